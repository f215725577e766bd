/*
 * sr_log_ring_internal.h: the ring backend's state, shared by
 * sr_log_backend_ring.c (the callers' claim and publish, start and stop),
 * sr_log_ring_consumer.c (the consumer's batch processor) and sr_log_crash.c
 * (which reads the ring in a signal handler) (internal).
 */
#ifndef SR_LOG_RING_INTERNAL_H
#define SR_LOG_RING_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "sr_log_internal.h"
#include "sr_processor.h"
#include "sr_ring.h"
#include "sr_sequencer.h"

/* States of sr_log_ring.crash_state. */
enum { SR_LOG_CRASH_NONE = 0, SR_LOG_CRASH_DRAIN = 1, SR_LOG_CRASH_TAKEOVER = 2 };

typedef struct sr_log_ring {
	sr_ring *ring;
	sr_sequencer *seq;        /* multi-producer: every caller claims on it */
	sr_processor *proc;       /* the consumer */
	bool consumer_started;
	/* The consumer's own (the closer's after join). */
	int64_t skip_until;       /* continuation slots of the record being read */
	unsigned char *scratch;   /* a record copied out when it wraps */
	/* The crash handler's (sr_log_crash.c). */
	sr_atomic_i32 crash_installed;
	sr_atomic_i32 crash_state;    /* SR_LOG_CRASH_*, while a handler runs */
	sr_atomic_i32 crash_parked;   /* the consumer stopped for the handler */
	sr_atomic_i64 handled_seq;    /* last sequence whose line is in the sinks' buffers */
	unsigned char *crash_rec;     /* the handler's record and line buffers (no malloc there) */
	char *crash_line;
} sr_log_ring;

/* The ring backend's state of a logger in ring mode, else NULL. */
static inline sr_log_ring *
sr_log__ring_of(const sr_log *log)
{
	return log->opt.mode == SR_LOG_MODE_RING ? (sr_log_ring *)log->state : NULL;
}

/* ---- sr_log_ring_consumer.c ---- */

/* The consumer's handler for the ring's batch processor. */
sr_handler sr_log__ring_consumer(sr_log *log);
/* After the processor stopped: handles what was published after its drain target, ends the batch. */
void sr_log__ring_drain_leftovers(sr_log *log, sr_log_ring *r);

/* ---- sr_log_crash.c ---- */

/* Consumer check point: parks the thread for good when a crash handler took over. */
void sr_log__crash_checkpoint(sr_log_ring *r);
/* True when the logger is in the crash handler's table (sr_log_describe). */
bool sr_log__crash_installed(const sr_log *log);

#endif /* SR_LOG_RING_INTERNAL_H */
