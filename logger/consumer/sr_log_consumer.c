/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_consumer.c: the consuming side of the logger, whatever brought the
 * record (the ring's processor, the queue's drainer, a sync-mode caller
 * under the mutex): format into the sinks' buffers, and at the end of each
 * batch write them once, publish the counters and report drops.  A burst
 * costs one write(2) per sink buffer, not one per message.
 */
#include "sr_log_backtrace_internal.h"
#include "sr_log_clock_internal.h"
#include "sr_fmt_escape_internal.h"
#include "sr_log_consumer_internal.h"
#include "sr_log_consumer_lane_internal.h"
#include "sr_log_event_internal.h"
#include "sr_log_sink_internal.h"
#include "sr_log_thread_internal.h"
#include "sr_log_fanout_internal.h"

#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The consuming thread's own: only one thread at a time acts as the consumer. */
struct sr_log_consumer {
	char *line;               /* opt.max_line + SR_FMT_LINE_RESERVE */
	sr_log_site_parts *parts; /* what each call site's lines share, made once (NULL: made each time) */
	sr_log_lane *lane;        /* the straight path's caches (NULL: every record goes the general way) */
	/* The straight path's build this CPU runs best; NULL without lane or a sink it serves. */
	sr_log_lane_consume_fn *lane_consume;
	sr_log_lane_consume_fn *lane_first;    /* lane_consume, offered a record first; NULL with a backtrace */
	uint64_t batch_accepted, batch_written, batch_format_errors;
	uint64_t batch_truncated_records, batch_truncated_lines;
	int64_t max_occupancy_seen;
	uint64_t reported_drops[SR_LOG_LEVEL_COUNT];
};

int
sr_log__consumer_open(sr_log *log, sr_error *err)
{
	log->consumer = calloc(1, sizeof *log->consumer);
	if (log->consumer != NULL) {
		log->consumer->line = malloc(log->opt.max_line + SR_FMT_LINE_RESERVE);
		log->consumer->parts = sr_log__site_parts_new();  /* a speed-up: without it, lines are the same */
		log->consumer->lane = sr_log__lane_new();          /* likewise */
		if (log->consumer->lane != NULL && log->consumer->parts != NULL) {
			const sr_log_lane_build *builds;
			size_t count = sr_log__lane_builds(&builds);
			log->consumer->lane_consume = builds[count - 1].consume;  /* sr_log__consumer_sinks_opened decides */
		}
	}
	if (log->consumer == NULL || log->consumer->line == NULL)
		return sr_error_set(err, SR_ENOMEM, "cannot allocate the logger's line buffer");
	return SR_OK;
}

/* The straight path's build the consumer offers records to (NULL: none); with a backtrace, its work comes first. */
static void
use_lane(sr_log *log, sr_log_lane_consume_fn *consume)
{
	log->consumer->lane_consume = consume;
	log->consumer->lane_first = log->opt.bt_size > 0 ? NULL : consume;
}

void
sr_log__consumer_sinks_opened(sr_log *log)
{
	struct sr_log_consumer *c = log->consumer;
	bool served = false;
	for (int l = 0; l < SR_LOG_LEVEL_COUNT; l++) {
		const struct sr_log_sole_sink *sole = sr_log__sinks_sole(log, l);
		served |= sole->sink != NULL && (sole->layout == SR_LOG_LAYOUT_TEXT || sole->layout == SR_LOG_LAYOUT_JSON);
	}
	use_lane(log, served ? c->lane_consume : NULL);
}

bool
sr_log__consumer_use_lane_build(sr_log *log, size_t build)
{
	struct sr_log_consumer *c = log->consumer;
	const sr_log_lane_build *builds;
	if (build >= sr_log__lane_builds(&builds) || c->lane_consume == NULL)
		return false;
	use_lane(log, builds[build].consume);
	return true;
}

size_t
sr_log__lane_builds(const sr_log_lane_build **builds)
{
	static const sr_log_lane_build all[] = {
		{ "plain", sr_log__consume_in_lane_plain, sr_log__lane_line_plain },
#if defined(SEQRING_LANE_AVX2)
		{ "avx2", sr_log__consume_in_lane_avx2, sr_log__lane_line_avx2 },
#endif
	};
	*builds = all;
	return sizeof all / sizeof all[0] > 1 && sr_fmt_cpu_runs_avx2() ? 2 : 1;
}

void
sr_log__consumer_free(sr_log *log)
{
	if (log->consumer == NULL)
		return;
	free(log->consumer->line);
	sr_log__site_parts_free(log->consumer->parts);
	sr_log__lane_free(log->consumer->lane);
	free(log->consumer);
	log->consumer = NULL;
}

void
sr_log__consumer_after_fork(sr_log *log)
{
	/* The child starts its own counts: what the parent took is the parent's. */
	struct sr_log_consumer *c = log->consumer;
	c->batch_accepted = c->batch_written = c->batch_format_errors = 0;
	c->batch_truncated_records = c->batch_truncated_lines = 0;
	c->max_occupancy_seen = 0;
	memset(c->reported_drops, 0, sizeof c->reported_drops);
	sr_log_totals *t = &log->totals;
	sr_atomic_i64 *all[] = { &t->accepted, &t->written, &t->written_by_caller, &t->write_failed,
		&t->format_errors, &t->truncated_records, &t->truncated_lines, &t->max_occupancy, &t->batches,
		&t->backtrace_written, &t->backtrace_discarded };
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		sr_atomic_store_relaxed_i64(all[i], 0);
	for (int l = 0; l < SR_LOG_LEVEL_COUNT; l++)
		sr_atomic_store_relaxed_i64(&t->dropped[l], 0);
}

void
sr_log__count_drop(sr_log *log, int level)
{
	if (level < 0 || level >= SR_LOG_LEVEL_COUNT)
		level = SR_LOG_OFF;
	/* Read by report_drops and sr_log_stats; no data rides on it. */
	sr_atomic_faa_i64(&log->totals.dropped[level], 1);
}

/*
 * Writes "N message(s) dropped because the queue was full (N at info, ...)"
 * when drops happened since the last report.  Runs on the consumer (buffered,
 * then flushed) or, in sync mode, under sync_lock (written now).
 */
void
sr_log__report_drops(sr_log *log, bool now)
{
	uint64_t delta[SR_LOG_LEVEL_COUNT], total = 0;
	uint64_t current[SR_LOG_LEVEL_COUNT];
	for (int l = 0; l < SR_LOG_LEVEL_COUNT; l++) {
		current[l] = (uint64_t)sr_atomic_load_relaxed_i64(&log->totals.dropped[l]);
		delta[l] = current[l] - log->consumer->reported_drops[l];
		total += delta[l];
	}
	if (total == 0)
		return;
	char text[512];
	int n = snprintf(text, sizeof text, "%" PRIu64 " message(s) dropped because the queue was full (",
	    total);
	const char *sep = "";
	for (int l = SR_LOG_LEVEL_COUNT - 1; l >= 0; l--) {
		if (delta[l] == 0)
			continue;
		n += snprintf(text + n, sizeof text - (size_t)n, "%s%" PRIu64 " at %s", sep, delta[l],
		    sr_log_level_name(l));
		sep = ", ";
	}
	n += snprintf(text + n, sizeof text - (size_t)n, ")");
	if (!sr_log__self.init)
		sr_log__thread_init(&sr_log__self);
	sr_log_event ev;
	sr_log__event_of_text(SR_LOG_WARN, text, (size_t)n, &ev);
	sr_log__fanout(log, &ev, SR_LOG_WARN, now ? SR_DISPATCH_NOW : SR_DISPATCH_BUFFERED,
	    log->consumer->line);
	if (!now)
		(void)sr_log__sinks_flush(log); /* the report is no message: not counted */
	memcpy(log->consumer->reported_drops, current, sizeof current);
}

void
sr_log__consumer_thread_setup(sr_log *log)
{
	sr_log_thread *self = &sr_log__self;
	self->consumer_of = log;
	sr_log_thread_name(log->opt.thread_name);
	/* SIGPIPE stays blocked on this thread for its life: a dead pipe reader is an EPIPE. */
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	pthread_setname_np(pthread_self(), log->opt.thread_name);
}

/* Publishes the consumer's batch counters. */
static void
publish_batch_counters(sr_log *log)
{
	struct sr_log_consumer *c = log->consumer;
	struct {
		uint64_t *batch;
		sr_atomic_i64 *total;
	} counts[] = {
		{ &c->batch_accepted, &log->totals.accepted },
		{ &c->batch_written, &log->totals.written },
		{ &c->batch_format_errors, &log->totals.format_errors },
		{ &c->batch_truncated_records, &log->totals.truncated_records },
		{ &c->batch_truncated_lines, &log->totals.truncated_lines },
	};
	for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
		if (*counts[i].batch == 0)
			continue;
		/* Counters only, read by sr_log_stats: no data rides on these adds. */
		sr_atomic_faa_i64(counts[i].total, (int64_t)*counts[i].batch);
		*counts[i].batch = 0;
	}
	if (c->max_occupancy_seen > sr_atomic_load_relaxed_i64(&log->totals.max_occupancy))
		sr_atomic_store_relaxed_i64(&log->totals.max_occupancy, c->max_occupancy_seen);
}

void
sr_log__count_lost(sr_log *log, uint64_t lines)
{
	if (lines == 0)
		return;
	/* Counters only: counted written when handed to the sinks, they failed there. */
	sr_atomic_faa_i64(&log->totals.written, -(int64_t)lines);
	sr_atomic_faa_i64(&log->totals.write_failed, (int64_t)lines);
}

static void
end_batch(sr_log *log, bool behind)
{
	uint64_t lost = behind ? sr_log__sinks_flush_behind(log) : sr_log__sinks_flush(log);
	/* And what the writers' writes of earlier batches lost (their own lines: added). */
	lost += sr_log__sinks_take_behind_lost(log);
	publish_batch_counters(log);
	sr_log__count_lost(log, lost);
	sr_log__report_drops(log, false);
	sr_log__report_sink_losses(log, log->consumer->line, SR_DISPATCH_BUFFERED);
	/* tsc: a cheap check, a recalibration when due (see sr_log_clock.c). */
	if (log->clk != NULL)
		sr_log__clock_refresh(log, false);
}

void
sr_log__end_of_batch(sr_log *log)
{
	end_batch(log, false);
}

void
sr_log__end_of_batch_behind(sr_log *log)
{
	end_batch(log, true);
}

/* The site's count for the catalogue (sr_log_sites_list). */
static inline void
count_emitted(const sr_log_rec *h)
{
	if (h->site != NULL)
		sr_log__consumer_count_emitted(h->site);
}

/*
 * A record, a whole message, laid out on the straight path
 * (sr_log_consumer_lane_internal.h) in the buffer of the one sink its
 * level's lines go to, and counted written; false: the general way lays it
 * out (nothing of it was taken).
 */
static inline __attribute__((always_inline)) bool
consume_in_lane(sr_log *log, const sr_log_rec *h, const unsigned char *body, size_t body_len)
{
	struct sr_log_consumer *c = log->consumer;
	if (c->lane_consume == NULL || !c->lane_consume(log, c->lane, c->parts, h, body, body_len))
		return false;
	c->batch_written++;
	return true;
}

/* The record the general way, after sr_log__consume_record offered it to the straight path where it could. */
static __attribute__((noinline)) void
consume_general(sr_log *log, const sr_log_rec *h, const unsigned char *body, size_t body_len)
{
	int kind = h->kind & SR_REC_KIND_MASK;
	if (kind == SR_REC_DUMP)
		sr_log__bt_dump(log, SR_LOG_FATAL, log->consumer->line);
	if (kind == SR_REC_NOTICE || kind == SR_REC_DUMP)
		return;
	log->consumer->batch_accepted++;
	if (log->opt.bt_size > 0) {
		/* Let in for the backtrace only: keep it, unwritten. */
		if (kind == SR_REC_MESSAGE && sr_log__bt_only(log, h)) {
			sr_log__bt_keep(log, h, body, body_len);
			return;
		}
		if ((int)h->level >= log->opt.bt_trigger)
			sr_log__bt_dump(log, h->level, log->consumer->line);
	}
	if (kind == SR_REC_FORMAT_ERROR)
		log->consumer->batch_format_errors++;
	if (h->kind & SR_REC_TRUNCATED)
		log->consumer->batch_truncated_records++;
	/* With a backtrace the straight path comes after it (without one it was offered the record already). */
	if ((h->kind & ~SR_REC_ERRNO) == SR_REC_MESSAGE && log->opt.bt_size > 0 && consume_in_lane(log, h, body, body_len))
		return;
	sr_log_event ev;
	sr_log__event_of_record(log, h, body, body_len, false, false, &ev);
	ev.parts = log->consumer->parts;
	if (sr_log__fanout_events_only(log, h->level))
		sr_log__dispatch_event(log, SR_DISPATCH_BUFFERED, &ev, h->level);  /* no line to render */
	else if (sr_log__fanout(log, &ev, h->level, SR_DISPATCH_BUFFERED, log->consumer->line))
		log->consumer->batch_truncated_lines++;
	log->consumer->batch_written++;
	count_emitted(h);
}

/* Formats one record and hands its line to the sinks (consumer only). */
void
sr_log__consume_record(sr_log *log, const sr_log_rec *h, const unsigned char *body, size_t body_len)
{
	/*
	 * The common record first, with nothing before it to do: a message
	 * (not cut, not kept for a backtrace) on the straight path.
	 */
	struct sr_log_consumer *c = log->consumer;
	if ((h->kind & ~SR_REC_ERRNO) == SR_REC_MESSAGE && c->lane_first != NULL &&
	    c->lane_first(log, c->lane, c->parts, h, body, body_len)) {
		c->batch_accepted++;
		c->batch_written++;
		return;
	}
	consume_general(log, h, body, body_len);
}

void
sr_log__consumer_batch_start(sr_log *log, int64_t depth)
{
	if (depth > log->consumer->max_occupancy_seen)
		log->consumer->max_occupancy_seen = depth;
	/* A counter for sr_log_stats; no data rides on it. */
	sr_atomic_faa_i64(&log->totals.batches, 1);
}

void
sr_log__consume_line(sr_log *log, int level, const char *line, size_t len)
{
	sr_log__dispatch_buffered(log, level, line, len);
	log->consumer->batch_written++;
}
