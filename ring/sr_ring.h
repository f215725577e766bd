/*
 * sr_ring.h: the ring's storage, a preallocated array of fixed-size slots.
 *
 * slot_count is a power of two (at least 2), slot_size a multiple of 8 up to
 * 64 KiB.  The array is allocated once, cache-line aligned, touched page by
 * page at creation (the first touch of a page is a page fault, which would
 * otherwise land on the first lap's producers) and never resized.
 * A sequence s lives in slot `s & mask`.
 *
 * The ring knows nothing about who may write where: that is the sequencer's
 * job (sr_sequencer.h).  Records bigger than one slot occupy consecutive
 * sequences; sr_ring_write/sr_ring_read copy such a record across the physical
 * end of the array.
 */
#ifndef SR_RING_H
#define SR_RING_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sr_error.h"
#include "sr_export.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SR_RING_MAX_SLOT_SIZE (64u * 1024u)
/* 2^30 slots: far more than memory allows for any useful slot size. */
#define SR_RING_MAX_SLOT_COUNT (INT64_C(1) << 30)

/*
 * Per-slot initialiser (the Disruptor's event factory): called once for each
 * slot at creation with its index; a non-zero return fails the creation.
 */
typedef int (*sr_slot_init_fn)(void *slot, int64_t index, void *ctx);

typedef struct sr_ring {
	unsigned char *slots;   /* slot_count * slot_size bytes, cache-line aligned */
	size_t slot_size;
	int64_t slot_count;
	int64_t mask;           /* slot_count - 1 */
	size_t bytes;           /* slot_count * slot_size */
} sr_ring;

/*
 * Creates a ring.  Returns NULL and fills err (if given) when slot_count is
 * not a power of two in [2, 2^30], slot_size is not a multiple of 8 in
 * [8, 64 KiB], memory runs out, or init returns non-zero.
 */
SR_API sr_ring *sr_ring_create(int64_t slot_count, size_t slot_size,
    sr_slot_init_fn init, void *init_ctx, sr_error *err);

/* Frees the ring; NULL is ignored. */
SR_API void sr_ring_destroy(sr_ring *ring);

/* The slot holding `sequence` (any sequence, including large ones). */
static inline void *
sr_ring_slot(const sr_ring *ring, int64_t sequence)
{
	return ring->slots + (size_t)(sequence & ring->mask) * ring->slot_size;
}

/* How many consecutive slots a record of `bytes` bytes occupies (at least 1). */
static inline int64_t
sr_ring_slots_for(const sr_ring *ring, size_t bytes)
{
	return bytes == 0 ? 1 : (int64_t)((bytes + ring->slot_size - 1) / ring->slot_size);
}

/*
 * Copies len bytes into the slots starting at `first`, continuing into the
 * following sequences and wrapping at the physical end of the array.  The
 * caller must own sequences first .. first + sr_ring_slots_for(len) - 1, and
 * len must not exceed the ring's size in bytes.
 */
static inline void
sr_ring_write(const sr_ring *ring, int64_t first, const void *src, size_t len)
{
	size_t offset = (size_t)(first & ring->mask) * ring->slot_size;
	size_t until_end = ring->bytes - offset;
	if (len <= until_end) {
		memcpy(ring->slots + offset, src, len);
	} else {
		memcpy(ring->slots + offset, src, until_end);
		memcpy(ring->slots, (const unsigned char *)src + until_end, len - until_end);
	}
}

/* The reverse of sr_ring_write: copies len bytes out starting at `first`. */
static inline void
sr_ring_read(const sr_ring *ring, int64_t first, void *dst, size_t len)
{
	size_t offset = (size_t)(first & ring->mask) * ring->slot_size;
	size_t until_end = ring->bytes - offset;
	if (len <= until_end) {
		memcpy(dst, ring->slots + offset, len);
	} else {
		memcpy(dst, ring->slots + offset, until_end);
		memcpy((unsigned char *)dst + until_end, ring->slots, len - until_end);
	}
}

/*
 * Bytes that can be read or written contiguously from `sequence` before the
 * physical end of the array (lets a caller avoid a copy when no wrap occurs).
 */
static inline size_t
sr_ring_contiguous_bytes(const sr_ring *ring, int64_t sequence)
{
	return ring->bytes - (size_t)(sequence & ring->mask) * ring->slot_size;
}

#ifdef __cplusplus
}
#endif

#endif /* SR_RING_H */
