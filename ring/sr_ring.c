/* SPDX-License-Identifier: Apache-2.0 */
#include "sr_ring.h"
#include "sr_ring_internal.h"

#include <stdlib.h>
#include <unistd.h>

#include "sr_atomic.h"

int
sr_ring__check_geometry(int64_t slot_count, size_t slot_size, sr_error *err)
{
	if (slot_count < 2 || slot_count > SR_RING_MAX_SLOT_COUNT ||
	    (slot_count & (slot_count - 1)) != 0)
		return sr_error_set(err, SR_EINVAL,
		    "slot_count %lld is invalid: expected a power of two from 2 to %lld",
		    (long long)slot_count, (long long)SR_RING_MAX_SLOT_COUNT);
	if (slot_size == 0 || slot_size % 8 != 0 || slot_size > SR_RING_MAX_SLOT_SIZE)
		return sr_error_set(err, SR_EINVAL,
		    "slot_size %zu is invalid: expected a multiple of 8 from 8 to %u",
		    slot_size, SR_RING_MAX_SLOT_SIZE);
	if ((size_t)slot_count > SIZE_MAX / slot_size)
		return sr_error_set(err, SR_EINVAL,
		    "slot_count %lld x slot_size %zu overflows the address space",
		    (long long)slot_count, slot_size);
	return SR_OK;
}

void
sr_ring__init_view(sr_ring *ring, unsigned char *slots, int64_t slot_count, size_t slot_size)
{
	ring->slots = slots;
	ring->slot_count = slot_count;
	ring->mask = slot_count - 1;
	ring->slot_size = slot_size;
	ring->bytes = (size_t)slot_count * slot_size;
	ring->slot_shift = -1;
	if ((slot_size & (slot_size - 1)) == 0)
		ring->slot_shift = __builtin_ctzll((unsigned long long)slot_size);
}

sr_ring *
sr_ring_create(int64_t slot_count, size_t slot_size,
    sr_slot_init_fn init, void *init_ctx, sr_error *err)
{
	if (sr_ring__check_geometry(slot_count, slot_size, err) != SR_OK)
		return NULL;

	sr_ring *ring = calloc(1, sizeof *ring);
	if (ring == NULL) {
		sr_error_set(err, SR_ENOMEM, "cannot allocate the ring descriptor");
		return NULL;
	}
	sr_ring__init_view(ring, NULL, slot_count, slot_size);

	/* Round up so aligned_alloc's size is a multiple of its alignment. */
	size_t alloc = (ring->bytes + SR_CACHELINE - 1) / SR_CACHELINE * SR_CACHELINE;
	ring->slots = aligned_alloc(SR_CACHELINE, alloc);
	if (ring->slots == NULL) {
		sr_error_set(err, SR_ENOMEM, "cannot allocate %zu bytes for %lld slots of %zu bytes",
		    alloc, (long long)slot_count, slot_size);
		free(ring);
		return NULL;
	}
	/*
	 * Touch every page now (memset zeroes and faults in each one) so the
	 * first lap's producers don't pay a page fault per 4 KiB.
	 */
	memset(ring->slots, 0, alloc);

	if (init != NULL) {
		for (int64_t i = 0; i < slot_count; i++) {
			int rc = init(ring->slots + (size_t)i * slot_size, i, init_ctx);
			if (rc != 0) {
				sr_error_set(err, SR_EINVAL,
				    "slot initialiser failed with %d at slot %lld", rc, (long long)i);
				free(ring->slots);
				free(ring);
				return NULL;
			}
		}
	}
	return ring;
}

void
sr_ring_destroy(sr_ring *ring)
{
	if (ring == NULL)
		return;
	free(ring->slots);
	free(ring);
}
