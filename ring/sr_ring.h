/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file sr_ring.h
 * @ingroup ring
 * @brief The ring's storage, a preallocated array of fixed-size slots.
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

/** @brief The largest slot_size of sr_ring_create, in bytes (64 KiB). */
#define SR_RING_MAX_SLOT_SIZE (64u * 1024u)
/** @brief The largest slot_count of sr_ring_create, 2^30 slots: far more than memory allows for any useful slot size. */
#define SR_RING_MAX_SLOT_COUNT (INT64_C(1) << 30)

/**
 * @brief Per-slot initialiser (the Disruptor's event factory).
 *
 * Called once for each slot at creation with its index, after the slots are zeroed.
 * @param slot The slot, slot_size bytes.
 * @param index The slot's index, 0 to slot_count - 1.
 * @param ctx The init_ctx given to sr_ring_create.
 * @return 0; a non-zero return fails the creation.
 */
typedef int (*sr_slot_init_fn)(void *slot, int64_t index, void *ctx);

/** @brief The ring's storage; fields set by sr_ring_create, read-only afterwards. */
typedef struct sr_ring {
	unsigned char *slots;   /**< slot_count * slot_size bytes, cache-line aligned */
	/** bytes per slot: a multiple of 8 up to SR_RING_MAX_SLOT_SIZE */
	size_t slot_size;
	/** number of slots: a power of two, at least 2 */
	int64_t slot_count;
	int64_t mask;           /**< slot_count - 1 */
	size_t bytes;           /**< slot_count * slot_size */
	int slot_shift;         /**< log2(slot_size) when it is a power of two, else -1 */
} sr_ring;

/**
 * @brief Creates a ring of zeroed slots, each passed to init.
 * @param slot_count Number of slots: a power of two in [2, 2^30] (SR_RING_MAX_SLOT_COUNT).
 * @param slot_size Bytes per slot: a multiple of 8 in [8, 64 KiB] (SR_RING_MAX_SLOT_SIZE).
 * @param init Called once per slot; NULL leaves the slots zeroed.
 * @param init_ctx Passed to init.
 * @param err Receives the code and message on failure; may be NULL.
 * @return The ring, to free with sr_ring_destroy; NULL on failure, with err filled:
 *         SR_EINVAL when slot_count or slot_size is out of range (or their product
 *         overflows the address space) or init returns non-zero (the message has its
 *         value and the slot), SR_ENOMEM when memory runs out.
 */
SR_API sr_ring *sr_ring_create(int64_t slot_count, size_t slot_size,
    sr_slot_init_fn init, void *init_ctx, sr_error *err);

/**
 * @brief Frees the ring.
 * @param ring A ring from sr_ring_create; NULL is ignored.
 */
SR_API void sr_ring_destroy(sr_ring *ring);

/**
 * @brief The slot holding `sequence`.
 * @param ring The ring; not NULL.
 * @param sequence Any sequence, including large ones.
 * @return The start of the slot `sequence & mask`.
 */
static inline void *
sr_ring_slot(const sr_ring *ring, int64_t sequence)
{
	return ring->slots + (size_t)(sequence & ring->mask) * ring->slot_size;
}

/**
 * @brief How many consecutive slots a record of `bytes` bytes occupies.
 * @param ring The ring; not NULL.
 * @param bytes The record's size.
 * @return The number of slots, at least 1 (also for 0 bytes).
 */
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

/**
 * @brief Copies len bytes into the slots starting at `first`.
 *
 * Continues into the
 * following sequences and wrapping at the physical end of the array.  The
 * caller must own sequences first .. first + sr_ring_slots_for(len) - 1, and
 * len must not exceed the ring's size in bytes.
 * @param ring The ring; not NULL.
 * @param first The first sequence of the record.
 * @param src The bytes to copy.
 * @param len How many, at most the ring's size in bytes.
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

/**
 * @brief The reverse of sr_ring_write: copies len bytes out starting at `first`.
 * @param ring The ring; not NULL.
 * @param first The first sequence of the record.
 * @param dst Receives the bytes.
 * @param len How many, at most the ring's size in bytes.
 */
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

/**
 * @brief Bytes that can be read or written contiguously from `sequence` before the
 * physical end of the array.
 *
 * Lets a caller avoid a copy when no wrap occurs.
 * @param ring The ring; not NULL.
 * @param sequence Any sequence.
 * @return The bytes from the start of sequence's slot to the end of the array.
 */
static inline size_t
sr_ring_contiguous_bytes(const sr_ring *ring, int64_t sequence)
{
	return ring->bytes - (size_t)(sequence & ring->mask) * ring->slot_size;
}

/**
 * @brief Streamed access to a record that spans claimed slots.
 *
 * A writer (or
 * reader) starts at a sequence's slot and moves through the bytes of the
 * following sequences, wrapping at the physical end of the array, one piece
 * at a time.  The caller owns every slot it touches (claimed and not yet
 * published for a writer; published and not yet released for a reader);
 * the stream does not check.  A writer over a plain buffer (wrap SIZE_MAX)
 * lets one encoder fill either a ring or a linear buffer.
 */
typedef struct sr_ring_stream {
	/** the array (or the linear buffer) */
	unsigned char *base;
	size_t pos;             /**< offset of the next byte from base */
	size_t wrap;            /**< the array's size in bytes: pos goes back to 0 there */
} sr_ring_stream;

/** @brief A stream that writes (sr_ring_writer_put). */
typedef sr_ring_stream sr_ring_writer;
/** @brief A stream that reads (sr_ring_reader_get, sr_ring_reader_peek). */
typedef sr_ring_stream sr_ring_reader;

/**
 * @brief A stream at the start of sequence's slot.
 * @param ring The ring; not NULL.
 * @param sequence The sequence whose slot the stream starts at.
 * @return The stream, to use as a writer or a reader.
 */
static inline sr_ring_stream
sr_ring_stream_at(const sr_ring *ring, int64_t sequence)
{
	sr_ring_stream s = { ring->slots, (size_t)(sequence & ring->mask) * ring->slot_size, ring->bytes };
	return s;
}

/**
 * @brief A writer over a linear buffer (never wraps): the same encoder for a ring or a buffer.
 * @param buffer The buffer; large enough for everything written (not checked).
 * @return A writer at the buffer's start.
 */
static inline sr_ring_writer
sr_ring_writer_linear(void *buffer)
{
	sr_ring_writer w = { (unsigned char *)buffer, 0, SIZE_MAX };
	return w;
}

/**
 * @brief Appends len bytes, wrapping at the physical end of the array.
 * @param w The writer; not NULL.
 * @param src The bytes.
 * @param len How many, at most the ring's size.
 */
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

/**
 * @brief Takes the next len bytes into dst, wrapping at the physical end of the array.
 * @param r The reader; not NULL.
 * @param dst Receives the bytes.
 * @param len How many, at most the ring's size.
 */
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

/**
 * @brief The next len bytes in place, when they do not cross the physical end.
 * @param r The reader; not NULL.
 * @param len How many bytes.
 * @return A pointer to them (the reader advances past them), or NULL when they
 *         cross the end (nothing moves: copy them out with sr_ring_reader_get).
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
