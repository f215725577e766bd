/* SPDX-License-Identifier: Apache-2.0 */
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
	int slot_shift;         /* log2(slot_size) when it is a power of two, else -1 */
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
	if (bytes == 0)
		return 1;
	/* A shift where the slot size allows it: this runs once per record on hot paths. */
	if (__builtin_expect(ring->slot_shift >= 0, 1))
		return (int64_t)((bytes + ring->slot_size - 1) >> ring->slot_shift);
	return (int64_t)((bytes + ring->slot_size - 1) / ring->slot_size);
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

/*
 * Streamed access to a record that spans claimed slots: a writer (or
 * reader) starts at a sequence's slot and moves through the bytes of the
 * following sequences, wrapping at the physical end of the array, one piece
 * at a time.  The caller owns every slot it touches (claimed and not yet
 * published for a writer; published and not yet released for a reader);
 * the stream does not check.  A writer over a plain buffer (wrap SIZE_MAX)
 * lets one encoder fill either a ring or a linear buffer.
 */
typedef struct sr_ring_stream {
	unsigned char *base;
	size_t pos;             /* offset of the next byte from base */
	size_t wrap;            /* the array's size in bytes: pos goes back to 0 there */
} sr_ring_stream;

typedef sr_ring_stream sr_ring_writer;
typedef sr_ring_stream sr_ring_reader;

/* A stream at the start of sequence's slot. */
static inline sr_ring_stream
sr_ring_stream_at(const sr_ring *ring, int64_t sequence)
{
	sr_ring_stream s = { ring->slots, (size_t)(sequence & ring->mask) * ring->slot_size, ring->bytes };
	return s;
}

/* A writer over a linear buffer (never wraps): the same encoder for a ring or a buffer. */
static inline sr_ring_writer
sr_ring_writer_linear(void *buffer)
{
	sr_ring_writer w = { (unsigned char *)buffer, 0, SIZE_MAX };
	return w;
}

/* Appends len bytes (at most the ring's size). */
static inline void
sr_ring_writer_put(sr_ring_writer *w, const void *src, size_t len)
{
	if (__builtin_expect(w->pos + len <= w->wrap, 1)) {
		memcpy(w->base + w->pos, src, len);
		w->pos += len;
		if (w->pos == w->wrap)
			w->pos = 0;
	} else {
		size_t first = w->wrap - w->pos;
		memcpy(w->base + w->pos, src, first);
		memcpy(w->base, (const unsigned char *)src + first, len - first);
		w->pos = len - first;
	}
}

/* Takes the next len bytes (at most the ring's size) into dst. */
static inline void
sr_ring_reader_get(sr_ring_reader *r, void *dst, size_t len)
{
	if (__builtin_expect(r->pos + len <= r->wrap, 1)) {
		memcpy(dst, r->base + r->pos, len);
		r->pos += len;
		if (r->pos == r->wrap)
			r->pos = 0;
	} else {
		size_t first = r->wrap - r->pos;
		memcpy(dst, r->base + r->pos, first);
		memcpy((unsigned char *)dst + first, r->base, len - first);
		r->pos = len - first;
	}
}

/*
 * The next len bytes in place when they do not cross the physical end
 * (advancing past them), else NULL (and nothing moves): a reader then copies
 * them out with sr_ring_reader_get.
 */
static inline const void *
sr_ring_reader_peek(sr_ring_reader *r, size_t len)
{
	if (r->pos + len > r->wrap)
		return NULL;
	const void *p = r->base + r->pos;
	r->pos += len;
	if (r->pos == r->wrap)
		r->pos = 0;
	return p;
}

#ifdef __cplusplus
}
#endif

#endif /* SR_RING_H */
