/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_consumer_internal.h: what the consuming side does with a record,
 * whatever brought it (internal; sr_log_consumer.c).  The consumer is the
 * ring's batch processor, the queue's drainer, or, in sync mode, the caller
 * under the mutex; one thread at a time acts as it.
 */
#ifndef SR_LOG_CONSUMER_INTERNAL_H
#define SR_LOG_CONSUMER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sr_log_internal.h"

int sr_log__consumer_open(sr_log *log, sr_error *err);
/* After the sinks opened: whether the straight path serves any level's sink (else it is never offered a record). */
void sr_log__consumer_sinks_opened(sr_log *log);
/*
 * Makes the consumer lay its straight path's lines with the build of
 * sr_log__lane_builds at index `build` instead of the fastest (tests: every
 * build this CPU runs).  Before the first record; false for an index past the
 * builds, or when the straight path serves no sink.
 */
bool sr_log__consumer_use_lane_build(sr_log *log, size_t build);
void sr_log__consumer_free(sr_log *log);
/* On a consumer thread, once: names it, marks it, blocks SIGPIPE on it. */
void sr_log__consumer_thread_setup(sr_log *log);
/* A batch of `depth` waiting entries begins. */
void sr_log__consumer_batch_start(sr_log *log, int64_t depth);
/* Formats one record and hands its line to the sinks' buffers (the backtrace may keep it). */
void sr_log__consume_record(sr_log *log, const sr_log_rec *h, const unsigned char *body, size_t body_len);
/* Hands a line rendered elsewhere (the queue's) to the sinks' buffers. */
void sr_log__consume_line(sr_log *log, int level, const char *line, size_t len);
/* End of batch: write the sinks' buffers, publish the counters, report drops, keep tsc calibrated. */
void sr_log__end_of_batch(sr_log *log);
/*
 * The same when the consumer is behind (more waits than a batch took) and
 * no flush is waiting on this batch: a ctf sink may keep its emptier
 * streams' packets open for the next batch (sr_log__sinks_flush_behind).
 */
void sr_log__end_of_batch_behind(sr_log *log);
/* In a forked child: the consumer's batch state and the logger's counters start from zero. */
void sr_log__consumer_after_fork(sr_log *log);
/* Lines counted written when handed to the sinks that the sinks then lost (any thread). */
void sr_log__count_lost(sr_log *log, uint64_t lines);
/* A message lost to a full queue (any thread). */
void sr_log__count_drop(sr_log *log, int level);
/*
 * Writes "N message(s) dropped ..." when drops happened since the last
 * report: buffered then flushed (consumer), or written now (now: sync mode,
 * under its mutex).
 */
void sr_log__report_drops(sr_log *log, bool now);

#endif /* SR_LOG_CONSUMER_INTERNAL_H */
