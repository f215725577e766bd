/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_ring_files.c: the rings of a logger with a ring directory, as the
 * consumer and the crash handler keep them recoverable: the directory
 * opened at open (its tracked sink chosen, the clock noted), each ring's
 * written sequence moved on at the end of a batch, and the tracked file's
 * writes bracketed (sr_log_ring_dir_internal.h says why: exactly once).
 */
#include "sr_log_backend_internal.h"
#include "sr_log_crash_internal.h"
#include "sr_log_per_thread_internal.h"
#include "sr_log_ring_dir_internal.h"
#include "sr_log_ring_files_internal.h"
#include "sr_log_ring_internal.h"
#include "sr_log_sink_internal.h"
#include "sr_log_thread_internal.h"

#include <sys/stat.h>

/* The logger's list of rings (the crash handler's view), or NULL. */
static sr_log_crash *
rings_of(const sr_log *log)
{
	sr_log_ring *r = sr_log__ring_backend_state(log, SR_LOG_PRODUCER_SHARED);
	if (r != NULL)
		return &r->crash;
	sr_log_threads *t = sr_log__ring_backend_state(log, SR_LOG_PRODUCER_PER_THREAD);
	return t != NULL ? &t->crash : NULL;
}

/*
 * Whether this write of the tracked file carries ring records: the
 * consumer's, or a crash handler's (which writes what the consumer left);
 * not a caller's (policy sync) or recovery's.
 */
static sr_log_crash *
records_write(const sr_log *log)
{
	if (!sr_log__ring_dir_active(log))
		return NULL;
	sr_log_crash *c = rings_of(log);
	if (c == NULL)
		return NULL;
	if (sr_log__self.consumer_of == log || sr_atomic_load_relaxed_i32(&c->state) != SR_LOG_CRASH_NONE)
		return c;
	return NULL;
}

/* The rings' lists: pairs with the store-release of each link (as the crash handler walks them). */
#define FOR_EACH_RING(cr, c) \
	for (sr_log_crash_ring *cr = sr_atomic_load_acquire_ptr(&(c)->rings); cr != NULL; \
	     cr = sr_atomic_load_acquire_ptr(&cr->next))

static void
before_write(void *ctx, int fd, size_t n)
{
	sr_log *log = ctx;
	sr_log_crash *c = records_write(log);
	if (c == NULL)
		return;
	struct stat st;
	if (fstat(fd, &st) != 0)
		return;
	sr_log_ring_meta_head *m = sr_log__ring_dir_meta(log);
	/*
	 * The stores only need to reach the pages in this order (a reader
	 * comes after this process died): first what the write covers, ring by
	 * ring, then the write itself.
	 */
	FOR_EACH_RING(cr, c) {
		if (cr->file != NULL)
			/* pairs with the consumer's store-release of handled_seq (this thread, or the parked consumer's) */
			sr_sequence_set(cr->file->pending, sr_atomic_load_acquire_i64(&cr->handled_seq));
	}
	sr_atomic_store_relaxed_i64(&m->flight_dev, (int64_t)st.st_dev);
	sr_atomic_store_relaxed_i64(&m->flight_ino, (int64_t)st.st_ino);
	sr_atomic_store_relaxed_i64(&m->flight_from, (int64_t)st.st_size);
	sr_atomic_store_relaxed_i64(&m->flight_to, (int64_t)st.st_size + (int64_t)n);
	/* after the fields above (release): a reader that sees the flight sees them */
	sr_atomic_store_release_i64(&m->in_flight, 1);
}

static void
after_write(void *ctx)
{
	sr_log *log = ctx;
	sr_log_crash *c = records_write(log);
	if (c == NULL)
		return;
	sr_log_ring_meta_head *m = sr_log__ring_dir_meta(log);
	if (sr_atomic_load_relaxed_i64(&m->in_flight) == 0)
		return;
	/* Even a failed write moves on: its lines are lost and counted, as without a directory. */
	FOR_EACH_RING(cr, c) {
		if (cr->file != NULL)
			sr_sequence_set(cr->file->written, sr_sequence_get(cr->file->pending));
	}
	/* after the written sequences (release): no flight, and they hold */
	sr_atomic_store_release_i64(&m->in_flight, 0);
}

static const sr_log_sink_write_hook hook = { before_write, after_write };

int
sr_log__ring_files_open(sr_log *log, const char *dir, sr_error *err)
{
	int rc = sr_log__ring_dir_open(log, dir, err);
	if (rc != SR_OK)
		return rc;
	sr_log__ring_dir_track_path(log, sr_log__sinks_track(log, &hook, log));
	/* Before the first record: the calibration a recovery converts times with. */
	sr_log__ring_dir_note_clock(log);
	return SR_OK;
}

void
sr_log__ring_files_batch_written(sr_log *log)
{
	if (log->ring_dir == NULL)
		return;
	sr_log_crash *c = rings_of(log);
	if (c == NULL)
		return;
	/* The batch's lines are out, in every sink: every ring is written up to its handled record. */
	FOR_EACH_RING(cr, c) {
		if (cr->file == NULL)
			continue;
		/* handled_seq is this thread's own store (the consumer's) */
		int64_t handled = sr_atomic_load_relaxed_i64(&cr->handled_seq);
		if (handled > sr_sequence_get(cr->file->written))
			sr_sequence_set(cr->file->written, handled);
	}
	sr_log__ring_dir_note_clock(log);
}
