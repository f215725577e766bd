/* SPDX-License-Identifier: Apache-2.0 */
/* sr_ring_internal.h: a ring over slots its caller placed (in a mapping shared between processes). */
#ifndef SR_RING_INTERNAL_H
#define SR_RING_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "sr_error.h"
#include "sr_ring.h"

/* The checks of sr_ring_create on the slot count and size, with its messages. */
int sr_ring__check_geometry(int64_t slot_count, size_t slot_size, sr_error *err);

/*
 * Fills *ring to read and write slot_count slots of slot_size bytes at
 * slots (checked with sr_ring__check_geometry first); the ring does not own
 * them: never pass it to sr_ring_destroy.
 */
void sr_ring__init_view(sr_ring *ring, unsigned char *slots, int64_t slot_count, size_t slot_size);

#endif /* SR_RING_INTERNAL_H */
