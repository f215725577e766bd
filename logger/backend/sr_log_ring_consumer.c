/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_ring_consumer.c: the ring backend's consumer, a batch processor
 * (sr_processor.h) on the logger's ring: each event starts or continues a
 * record; a record is decoded (sr_log_record_internal.h) and handed to the
 * consuming side (sr_log_consumer.c), which puts its line in the sinks'
 * buffers; the end of each batch writes them.  Every step first passes the
 * crash handler's check point.
 */
#include "sr_log_consumer_internal.h"
#include "sr_log_crash_internal.h"
#include "sr_log_ring_files_internal.h"
#include "sr_log_ring_internal.h"

static void
ring_end_of_batch(sr_log *log)
{
	sr_log__crash_checkpoint(&((sr_log_ring *)log->state)->crash);
	sr_log__end_of_batch(log);
	sr_log__ring_files_batch_written(log);
}

static int
on_event(void *ctx, void *slot, int64_t sequence, bool end_of_batch_flag)
{
	sr_log *log = ctx;
	sr_log_ring *r = log->state;
	(void)slot;
	sr_log__crash_checkpoint(&r->crash);
	/* Continuation slots of a multi-slot record were handled with its first. */
	if (sequence >= r->skip_until) {
		sr_log_rec h;
		const unsigned char *rec;
		int64_t k = sr_log__record_decode(r->ring, sequence, log->opt.max_record, r->scratch, &h, &rec);
		if (k == 0) {
			/* Not a record we wrote: skip the slot rather than read garbage. */
			r->skip_until = sequence + 1;
		} else {
			r->skip_until = sequence + k;
			sr_log__consume_record(log, &h, rec + sizeof h, h.size - sizeof h);
			/*
			 * pairs with the crash handler's load-acquire: the record's
			 * line is in the sinks' buffers (or written) once it sees this.
			 */
			sr_atomic_store_release_i64(&r->crash_ring.handled_seq, sequence + k - 1);
		}
	}
	if (end_of_batch_flag)
		ring_end_of_batch(log);
	return 0;
}

static void
on_start(void *ctx)
{
	sr_log__consumer_thread_setup(ctx);
}

static void
on_batch_start(void *ctx, int64_t batch_size, int64_t queue_depth)
{
	(void)batch_size;
	sr_log__consumer_batch_start(ctx, queue_depth);
}

static void
on_timeout(void *ctx, int64_t sequence)
{
	(void)sequence;
	ring_end_of_batch(ctx);
}

static void
on_shutdown(void *ctx)
{
	ring_end_of_batch(ctx);
}

/* After the consumer stopped: handle what was published after its drain target. */
void
sr_log__ring_drain_leftovers(sr_log *log, sr_log_ring *r)
{
	sr_sequence *seq = sr_processor_sequence(r->proc);
	int64_t next = sr_sequence_get(seq) + 1;
	int64_t hi = sr_sequencer_highest_published(r->seq, next, sr_sequencer_cursor(r->seq));
	for (int64_t s = next; s <= hi; s++)
		on_event(log, sr_ring_slot(r->ring, s), s, s == hi);
	if (hi >= next)
		sr_sequence_set(seq, hi); /* pairs with callers' gating load-acquire */
	ring_end_of_batch(log);
}


sr_handler
sr_log__ring_consumer(sr_log *log)
{
	sr_handler h = {
		.ctx = log,
		.on_event = on_event,
		.on_start = on_start,
		.on_batch_start = on_batch_start,
		.on_timeout = on_timeout,
		.on_shutdown = on_shutdown,
	};
	return h;
}
