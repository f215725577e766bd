/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_sink_behind_internal.h: a file sink's write-behind (internal).
 *
 * When the consumer is behind, the time it spends in write(2) is time it
 * does not lay out lines.  A file sink with a write-behind has a thread of
 * its own, the writer, and a second buffer: at the end of a batch cut short
 * by its bound (sr_log__sinks_flush_behind), the consumer hands its full
 * buffer to the writer and lays the next batch's lines out in the other one
 * while the kernel copies the first.  Any other write of the sink (the end
 * of a batch that caught up or that a flush waits for, a line bigger than
 * the buffer, a reopen, close) first waits until the writer is idle, so the
 * file holds the lines in the consumer's order and a flush's lines are in it
 * when the flush returns.  The writer writes as the consumer would have
 * (sr_log__sink_write_locked, under the sink's lock): rotation, errors and
 * counters are unchanged.
 *
 * The handover is one word, `state`, that both threads also sleep on
 * (futex):
 *
 *   IDLE     the writer owns `buf` empty (the spare): the consumer may hand.
 *   HANDED   the consumer swapped its full buffer into `buf` (len bytes) and
 *            stored HANDED (exchange, seq_cst).  Pairs with the claim's CAS:
 *            the writer (or the crash handler) that claims sees the bytes.
 *   WRITING  claimed (CAS from HANDED) by the writer, or by the crash handler
 *            (sr_log__sink_behind_claim).
 *   STOP     stored by sr_log__sink_behind_stop on an idle writer: it ends.
 *
 * The claimer stores IDLE (exchange, seq_cst) when the bytes are written:
 * pairs with the consumer's load-acquire in sr_log__sink_behind_wait, after
 * which `buf` is the spare again.  A thread about to sleep sets its
 * `*_sleeps` flag (exchange) before the futex compares the word; a thread
 * that changed the word reads the other's flag after a seq_cst fence and
 * wakes it if set.  One of the two sees the other (Dekker), so no wake-up
 * is lost, and a busy pipeline makes no futex call at all.
 *
 * Offered to a file sink on a regular file whose configuration asks for it
 * (sr_sink_config.write_behind), in a process that may run on two CPUs or
 * more (its affinity, and its cgroup's CPU quota), when the logger's rings
 * are not files (a ring directory's record of what is in the file follows
 * the consumer's own writes).
 */
#ifndef SR_LOG_SINK_BEHIND_INTERNAL_H
#define SR_LOG_SINK_BEHIND_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sr_atomic.h"

struct sr_log_sink;

enum sr_log_behind_state {
	SR_LOG_BEHIND_IDLE = 0,
	SR_LOG_BEHIND_HANDED = 1,
	SR_LOG_BEHIND_WRITING = 2,
	SR_LOG_BEHIND_STOP = 3
};

typedef struct sr_log_sink_behind {
	sr_atomic_i32 state;          /* enum sr_log_behind_state; the futex word */
	sr_atomic_i32 writer_sleeps;  /* the writer sleeps (or is about to) while IDLE */
	sr_atomic_i32 consumer_sleeps; /* the consumer sleeps (or is about to) until IDLE */
	char *buf;                    /* the writer's: the handed lines, or the spare when IDLE */
	size_t len;                   /* the handed bytes: written before HANDED */
	/* Lines the writer's writes lost: the writer adds, the consumer takes them (sr_log__sinks_take_behind_lost). */
	sr_atomic_i64 lost;
	/*
	 * Buffers handed (the consumer's store, before HANDED) and written (the
	 * claimer's, before IDLE; release): the crash handler waits for written
	 * to reach what was handed when it looked (a writer kept busy is never
	 * seen idle).
	 */
	sr_atomic_i64 handed, written;
	int consumer_cpu;             /* where the consumer handed from (sched_getcpu): set before HANDED */
	struct sr_log_sink *sink;
	char name[16];                /* the writer thread's name */
	pthread_t thread;
	bool running;                 /* the writer thread exists (the consumer's view) */
} sr_log_sink_behind;

/*
 * Starts the write-behind of s (a FILE sink with a buffer of buf_size
 * bytes), or starts its writer again after fork; thread_name names the
 * logger's consumer.  0, or an errno (ENOMEM, or pthread_create's): s then
 * writes as it did without one.
 */
int sr_log__sink_behind_start(struct sr_log_sink *s, size_t buf_size, const char *thread_name);
/* Whether s's writer runs: the consumer may hand it buffers. */
static inline bool
sr_log__sink_behind_on(const struct sr_log_sink_behind *b)
{
	return b != NULL && b->running;
}
/*
 * The consumer: waits until the writer is idle, swaps the sink's buffer
 * (s->len bytes) with the spare and hands the full one over; s->len is 0
 * after.  Only while sr_log__sink_behind_on.
 */
void sr_log__sink_behind_hand(struct sr_log_sink *s);
/* The consumer: waits until every handed buffer is written.  At once without a running writer. */
void sr_log__sink_behind_wait(struct sr_log_sink_behind *b);
/* Waits for the writer to be idle, ends it and joins it; the buffers stay (freed by free). */
void sr_log__sink_behind_stop(struct sr_log_sink_behind *b);
void sr_log__sink_behind_free(struct sr_log_sink_behind *b);
/* fork's child: the writer is gone; what was handed is the parent's to write. */
void sr_log__sink_behind_after_fork_child(struct sr_log_sink_behind *b);
/*
 * The crash handler (async-signal-safe): waits, until deadline_ns
 * (CLOCK_MONOTONIC), while the writer writes; a buffer handed but not yet
 * claimed is claimed instead: true with its bytes in *p, *n, which the
 * caller writes, then calls sr_log__sink_behind_release.  False when there
 * is nothing to write here (idle, or still being written at the deadline).
 */
bool sr_log__sink_behind_claim(sr_log_sink_behind *b, int64_t deadline_ns, const char **p, size_t *n);
void sr_log__sink_behind_release(sr_log_sink_behind *b);
/* Whether the writer is idle (nothing handed unwritten).  Async-signal-safe. */
bool sr_log__sink_behind_idle(const sr_log_sink_behind *b);
/* Whether every buffer handed so far is written.  Async-signal-safe. */
bool sr_log__sink_behind_caught_up(const sr_log_sink_behind *b, int64_t handed);
/* The consumer: the lines the writer's writes lost since the last call. */
uint64_t sr_log__sink_behind_take_lost(sr_log_sink_behind *b);

#endif /* SR_LOG_SINK_BEHIND_INTERNAL_H */
