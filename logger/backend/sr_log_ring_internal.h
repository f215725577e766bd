/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_ring_internal.h: the ring backend's state, shared by
 * sr_log_backend_ring.c (the callers' claim and publish, start and stop),
 * sr_log_ring_consumer.c (the consumer's batch processor) and sr_log_crash.c,
 * which reads the ring in a signal handler (internal).
 */
#ifndef SR_LOG_RING_INTERNAL_H
#define SR_LOG_RING_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "sr_log_crash_state_internal.h"
#include "sr_log_internal.h"
#include "sr_processor.h"
#include "sr_ring.h"
#include "sr_sequencer.h"

typedef struct sr_log_ring {
	sr_ring *ring;
	sr_sequencer *seq;        /* multi-producer: every caller claims on it */
	struct sr_log_ring_file *file; /* with a ring directory: the file ring and seq lie in (ring is a view) */
	sr_processor *proc;       /* the consumer */
	bool consumer_started;
	/* The consumer's own (the closer's after join). */
	int64_t skip_until;       /* continuation slots of the record being read */
	unsigned char *scratch;   /* a record copied out when it wraps */
	/* The crash handler's (sr_log_crash.c): the one ring on its list, and its state. */
	sr_log_crash_ring crash_ring;
	sr_log_crash crash;
} sr_log_ring;

/* ---- sr_log_ring_consumer.c ---- */

/* The consumer's handler for the ring's batch processor. */
sr_handler sr_log__ring_consumer(sr_log *log);
/* After the processor stopped: handles what was published after its drain target, ends the batch. */
void sr_log__ring_drain_leftovers(sr_log *log, sr_log_ring *r);

#endif /* SR_LOG_RING_INTERNAL_H */
