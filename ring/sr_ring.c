/* SPDX-License-Identifier: Apache-2.0 */
#include "sr_ring.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sr_atomic.h"

/*
 * Slot arrays from this size up are mapped on their own, with every page
 * faulted in by the kernel in one call (MAP_POPULATE) instead of one page
 * fault per 4 KiB as a memset would take: an array made on a thread's
 * first log call is ready in a fraction of the time (docs/ring.md).  Below
 * it, aligned_alloc and a memset.  The rule depends on the size alone, so
 * that sr_ring_destroy frees the array the way it was made.
 */
#define MAPPED_FROM (64u * 1024u)

/* Zeroed bytes for the slots, cache-line aligned, every page touched; NULL when out of memory. */
static unsigned char *
slots_alloc(size_t bytes)
{
#if defined(MAP_ANONYMOUS) && defined(MAP_POPULATE)
	if (bytes >= MAPPED_FROM) {
		void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		return p != MAP_FAILED ? p : NULL;
	}
#endif
	unsigned char *p = aligned_alloc(SR_CACHELINE, bytes);
	/* Touch every page now, so that the first lap's producers take no page fault. */
	if (p != NULL)
		memset(p, 0, bytes);
	return p;
}

static void
slots_free(unsigned char *slots, size_t bytes)
{
#if defined(MAP_ANONYMOUS) && defined(MAP_POPULATE)
	if (bytes >= MAPPED_FROM) {
		munmap(slots, bytes);
		return;
	}
#endif
	free(slots);
}

sr_ring *
sr_ring_create(int64_t slot_count, size_t slot_size,
    sr_slot_init_fn init, void *init_ctx, sr_error *err)
{
	if (slot_count < 2 || slot_count > SR_RING_MAX_SLOT_COUNT ||
	    (slot_count & (slot_count - 1)) != 0) {
		sr_error_set(err, SR_EINVAL,
		    "slot_count %lld is invalid: expected a power of two from 2 to %lld",
		    (long long)slot_count, (long long)SR_RING_MAX_SLOT_COUNT);
		return NULL;
	}
	if (slot_size == 0 || slot_size % 8 != 0 || slot_size > SR_RING_MAX_SLOT_SIZE) {
		sr_error_set(err, SR_EINVAL,
		    "slot_size %zu is invalid: expected a multiple of 8 from 8 to %u",
		    slot_size, SR_RING_MAX_SLOT_SIZE);
		return NULL;
	}
	if ((size_t)slot_count > SIZE_MAX / slot_size) {
		sr_error_set(err, SR_EINVAL,
		    "slot_count %lld x slot_size %zu overflows the address space",
		    (long long)slot_count, slot_size);
		return NULL;
	}

	sr_ring *ring = calloc(1, sizeof *ring);
	if (ring == NULL) {
		sr_error_set(err, SR_ENOMEM, "cannot allocate the ring descriptor");
		return NULL;
	}
	ring->slot_count = slot_count;
	ring->mask = slot_count - 1;
	ring->slot_size = slot_size;
	ring->bytes = (size_t)slot_count * slot_size;
	ring->slot_shift = -1;
	if ((slot_size & (slot_size - 1)) == 0)
		ring->slot_shift = __builtin_ctzll((unsigned long long)slot_size);

	/* Round up so aligned_alloc's size is a multiple of its alignment. */
	size_t alloc = (ring->bytes + SR_CACHELINE - 1) / SR_CACHELINE * SR_CACHELINE;
	ring->slots = slots_alloc(alloc);
	if (ring->slots == NULL) {
		sr_error_set(err, SR_ENOMEM, "cannot allocate %zu bytes for %lld slots of %zu bytes",
		    alloc, (long long)slot_count, slot_size);
		free(ring);
		return NULL;
	}
	if (init != NULL) {
		for (int64_t i = 0; i < slot_count; i++) {
			int rc = init(ring->slots + (size_t)i * slot_size, i, init_ctx);
			if (rc != 0) {
				sr_error_set(err, SR_EINVAL,
				    "slot initialiser failed with %d at slot %lld", rc, (long long)i);
				slots_free(ring->slots, alloc);
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
	slots_free(ring->slots, (ring->bytes + SR_CACHELINE - 1) / SR_CACHELINE * SR_CACHELINE);
	free(ring);
}
