/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file sr_log_fast.h
 * @ingroup logger
 * @brief The log call inlined at its call site (for the macros only).
 *
 * With producer per_thread each thread that logs owns a single-producer
 * ring.  The thread caches what a call needs of that ring in a thread-local
 * (sr_log__my_fast), and the logging macros write the record there inline:
 * the types of the arguments are known at compile time, so the record's
 * size, the claim, the header, the values and the strings are straight-line
 * code specialised for the call site, with no call, no lock, no locked
 * instruction and no system call.  One compare decides: the category's
 * logger is the cached one and the site copies by C type.  Anything else (the
 * first call on a thread or a site, another logger, a record that would
 * cross the ring's end, a full ring, a string to cut, a shared ring, the
 * queue and sync modes) calls sr_log__emit_args, the out-of-line path that
 * handles every case.
 *
 * The record written here is a thread record (sr_log__thread_rec): the
 * consumer knows whose ring it reads, so the thread's name and id are not
 * in it.
 *
 * Nothing here is API: the names with two underscores may change in any
 * release (the library and the macros are built from the same headers).
 */
#ifndef SR_LOG_FAST_H
#define SR_LOG_FAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sr_export.h"
#include "sr_log_args.h"
#include "sr_log_category.h"
#include "sr_log_site.h"
#include "sr_sequencer.h"
#include "sr_time.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The header of a record in a thread's own ring.  32 bytes, or 24 (without
 * cat) for SR_LOG__REC_MESSAGE_HOME_CAT, the inline call's record when the
 * call names its site's home category.  kind holds SR_LOG__REC_MESSAGE for
 * a call of the general path and an inline call through another category;
 * the consumer's other kinds and flags are in sr_log_record_internal.h.
 */
typedef struct sr_log__thread_rec {
	uint32_t size;            /* header + value area + string area */
	uint16_t value_bytes;
	uint8_t kind;
	uint8_t level;
	int64_t ts_ns;            /* the clock's raw reading (sr_log__clock_read) */
	sr_site *site;
	sr_category *cat;         /* absent in a SR_LOG__REC_MESSAGE_HOME_CAT record */
} sr_log__thread_rec;

#define SR_LOG__REC_MESSAGE 1
/*
 * A call whose category is its site's home category (sr_site.home_cat):
 * the header stops before cat (SR_LOG__THREAD_HOME_HEADER bytes) and the
 * consumer takes the category from the site.
 */
#define SR_LOG__REC_MESSAGE_HOME_CAT 6
#define SR_LOG__THREAD_HOME_HEADER offsetof(sr_log__thread_rec, cat)

/*
 * A thread's ring has slots of one cache line, whatever the logger's
 * slot_size (which, with thread_ring_slots, sizes the ring's bytes): a
 * record starts on its own line (the consumer reading one record never
 * shares its line with the thread writing the next), and an inline call's
 * slot arithmetic is constants.
 */
#define SR_LOG__THREAD_SLOT_SHIFT 6
#define SR_LOG__THREAD_SLOT (1 << SR_LOG__THREAD_SLOT_SHIFT)

/*
 * The header of a record in a logger's shared ring.  56 bytes: the thread
 * record's fields and the caller's id, errno and name (the consumer of a
 * shared ring cannot tell whose record it reads).  The same layout as the
 * library's record header (sr_log_record_internal.h checks it).
 */
typedef struct sr_log__shared_rec {
	uint32_t size;
	uint16_t value_bytes;
	uint8_t kind;
	uint8_t level;
	uint32_t tid;
	int32_t errno_value;      /* 0 here: an inline call's format has no %m */
	int64_t ts_ns;
	sr_site *site;
	sr_category *cat;
	char thread[16];
} sr_log__shared_rec;

/* How the logger reads its clock (sr_log__fast.clock; the values of sr_log_clock). */
enum { SR_LOG__CLOCK_REALTIME = 0, SR_LOG__CLOCK_COARSE = 1, SR_LOG__CLOCK_TSC = 2 };

/* What the calling thread's inline calls need of its ring; all zero when none is cached. */
typedef struct sr_log__fast_ring {
	uint64_t key;             /* the logger's id (sr_category.fast_key), 0: none */
	sr_sequencer *seq;        /* the ring's single-producer sequencer */
	unsigned char *base;      /* the ring's slots */
	size_t bytes;             /* the slots' total size: a record must end by here */
	const sr_atomic_i32 *parked; /* the logger's consumer is parked: wake it */
	void *ring;               /* the backend's ring (for the wake) */
	uint32_t slot_shift;      /* log2 of the slot size (SR_LOG__THREAD_SLOT_SHIFT) */
	uint32_t max_record;      /* larger records take the out-of-line path (cut there) */
	int32_t clock;            /* SR_LOG__CLOCK_* */
	/* Added after 1.0.0 (at the end: calls compiled against 1.0.0 still find the fields above). */
	int64_t index_mask;       /* the sequencer's mask: a sequence's slot index */
	int64_t buffer_size;      /* the sequencer's slots */
	size_t slot_round;        /* the slot size - 1: a record's bytes round up to slots */
	uint64_t tsc_key;         /* key where clock is SR_LOG__CLOCK_TSC, else 0 */
	/*
	 * The largest last sequence an inline claim may take: the ring's last
	 * slot before its end in the current lap, or the last slot the cached
	 * gating sequence frees, whichever comes first (the library sets it
	 * after each of its own claims on the ring).
	 */
	int64_t claim_limit;
} sr_log__fast_ring;

/*
 * What the calling thread's inline calls need of a logger's shared ring (producer shared);
 * all zero when none is cached.  Added after 1.0.0.
 */
typedef struct sr_log__fast_shared {
	uint64_t key;             /* the logger's id (sr_category.fast_key), 0: none */
	uint64_t tsc_key;         /* key where clock is SR_LOG__CLOCK_TSC, else 0 */
	sr_sequencer *seq;        /* the ring's multi-producer sequencer */
	unsigned char *base;      /* the ring's slots */
	size_t bytes;             /* the slots' total size */
	const void *ring;         /* the ring (sr_ring), for a record that crosses its end */
	int64_t index_mask;       /* the sequencer's mask */
	size_t slot_round;        /* the slot size - 1 */
	uint32_t slot_shift;      /* log2 of the slot size */
	uint32_t max_record;      /* larger records take the out-of-line path */
	int32_t clock;            /* SR_LOG__CLOCK_* */
	uint32_t tid;             /* this thread's id and name, as its records carry them */
	char name[16];
} sr_log__fast_shared;

/* The largest record an inline call writes to a shared ring (one that crosses the end is assembled first). */
#define SR_LOG__FAST_SHARED_MAX 1024
/*
 * The smallest record limit a logger has (max_message_bytes' lower bound; sr_log_config_validate.c
 * checks it): a record no larger needs no check against its logger's.
 */
#define SR_LOG__MIN_RECORD 1024
/* A string measured by the inline blocks (sr_log__fast_strlen) takes at most this, with its NUL. */
#define SR_LOG__FAST_INLINE_STRING 32

/*
 * The calling thread's: its calls in progress, which a closing or shutting
 * down thread waits for (the protocol is in sr_log_thread_internal.h), and
 * its cached ring.
 */
typedef struct sr_log__fast {
	/* Odd while inside an outermost log call; only this thread writes it. */
	sr_atomic_i32 calls;
	/* The category of the outermost call in progress (NULL: a nested one's, any logger). */
	sr_atomic_ptr call_cat;
	sr_log__fast_ring r;
	/* Added after 1.0.0. */
	sr_log__fast_shared sh;
} sr_log__fast;

/*
 * C11's _Thread_local; GNU's __thread before C11, and in C++, where thread_local would make
 * every access check for a dynamic initialiser (the same TLS variable either way).
 */
#if defined(__cplusplus) || !defined(__STDC_VERSION__) || __STDC_VERSION__ < 201112L
extern SR_API __thread sr_log__fast sr_log__my_fast;
#else
extern SR_API _Thread_local sr_log__fast sr_log__my_fast;
#endif
/*
 * 1 where membarrier(2) is unavailable: a caller then fences after marking its call (the
 * general path's; no ring is cached for the inline calls then).
 */
extern SR_API sr_atomic_i32 sr_log__callers_fence;

/* Wakes the logger's parked consumer (out of line: only when the flag was seen). */
SR_API void sr_log__fast_wake(void *ring);
/* The calling thread's buffer of SR_LOG__FAST_SHARED_MAX bytes for a record that crosses a shared ring's end. */
SR_API unsigned char *sr_log__fast_scratch(void);
/* Writes the size bytes at rec (the scratch) to ring from first's slot on, across its end. */
SR_API void sr_log__fast_put_across(const void *ring, int64_t first, const unsigned char *rec, size_t size);

/*
 * Where the string scan below reads whole aligned 16-byte blocks (SSE2): such
 * a block never crosses a page, so reading past the NUL cannot fault, but an
 * address sanitizer would report the bytes read after it; under one, and
 * without SSE2, strnlen (or memchr in strict ISO C) does the scan.
 */
#if defined(__SANITIZE_ADDRESS__)
#define SR_LOG__FAST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define SR_LOG__FAST_SANITIZED 1
#endif
#endif
#if defined(__SSE2__) && !defined(SR_LOG__FAST_SANITIZED)
#define SR_LOG__FAST_SSE2 1
#include <emmintrin.h>
#endif

/*
 * GCC sees a string of known size at a call site, and a scan or a copy
 * further on that only a longer string would reach (past the inline blocks,
 * a copy of up to 32 bytes), and warns that it could read past the string;
 * the scan stops at the NUL and the copy's n is the measured length + 1.
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"
#if __GNUC__ >= 11
#pragma GCC diagnostic ignored "-Wstringop-overread"
#endif
#endif

/* The length of s, at most max, by the C library (strnlen, or memchr in strict ISO C). */
static inline uint32_t
sr_log__fast_strnlen(const char *s, uint32_t max)
{
#if defined(_POSIX_C_SOURCE) && _POSIX_C_SOURCE >= 200809L
	return (uint32_t)strnlen(s, max);
#else
	const char *nul = (const char *)memchr(s, 0, max);
	return (uint32_t)(nul != NULL ? (size_t)(nul - s) : max);
#endif
}

/*
 * The length of s, at most max.  Inline with SSE2 for the blocks a short
 * string spans (no call, so the caller saves no registers around one; a
 * 16-character string is two blocks), the C library's wider scan past them.
 */
static inline __attribute__((always_inline)) uint32_t
sr_log__fast_strlen(const char *s, uint32_t max)
{
#if defined(SR_LOG__FAST_SSE2)
	const uintptr_t skew = (uintptr_t)s & 15;
	const __m128i *block = (const __m128i *)(const void *)(s - skew);
	const __m128i zero = _mm_setzero_si128();
	/* The first block's bytes before s are shifted out. */
	uint32_t nul = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_load_si128(block), zero)) >> skew;
	uint32_t len = 0;
	if (nul == 0) {
		/* The string's bytes in the blocks before the one with its NUL. */
		len = 16 - (uint32_t)skew;
		nul = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_load_si128(++block), zero));
		if (__builtin_expect(nul == 0, 0)) {
			len += 16;
			/* Longer than two blocks: the library's scan, wider than these. */
			return len >= max ? max : len + sr_log__fast_strnlen(s + len, max - len);
		}
	}
	/* At most 31: below every record limit (SR_LOG__MIN_RECORD), so no clamp. */
	return len + (uint32_t)__builtin_ctz(nul);
#else
	return sr_log__fast_strnlen(s, max);
#endif
}

/*
 * Copies n bytes (n >= 1): inline for up to 32 with two overlapping moves
 * (every byte read and written is inside [src, src + n) and [dst, dst + n)),
 * memcpy above.
 */
static inline __attribute__((always_inline)) void
sr_log__fast_copy(unsigned char *dst, const char *src, uint32_t n)
{
	uint64_t a, b;
	if (__builtin_constant_p(n)) {
		/* A string the compiler measured: its moves, of a known size. */
		memcpy(dst, src, n);
		return;
	}
	if (n >= 16) {
		if (n > 32) {
			memcpy(dst, src, n);
			return;
		}
		unsigned char head[16], tail[16];
		memcpy(head, src, 16);
		memcpy(tail, src + n - 16, 16);
		memcpy(dst, head, 16);
		memcpy(dst + n - 16, tail, 16);
	} else if (n >= 8) {
		memcpy(&a, src, 8);
		memcpy(&b, src + n - 8, 8);
		memcpy(dst, &a, 8);
		memcpy(dst + n - 8, &b, 8);
	} else if (n >= 4) {
		uint32_t c, d;
		memcpy(&c, src, 4);
		memcpy(&d, src + n - 4, 4);
		memcpy(dst, &c, 4);
		memcpy(dst + n - 4, &d, 4);
	} else {
		dst[0] = (unsigned char)src[0];
		if (n > 1) {
			dst[1] = (unsigned char)src[1];
			dst[n - 1] = (unsigned char)src[n - 1];
		}
	}
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

/*
 * The TSC's reading in its two halves, as rdtsc gives them: stored as two
 * 4-byte halves (sr_log__fast_put_ts), they need no shift and or to be one.
 */
static inline __attribute__((always_inline)) void
sr_log__fast_tsc(uint32_t *lo, uint32_t *hi)
{
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
	__asm__ volatile("rdtsc" : "=a"(*lo), "=d"(*hi));
#else
	uint64_t t = (uint64_t)sr_tsc_read();
	*lo = (uint32_t)t;
	*hi = (uint32_t)(t >> 32);
#endif
}

/* Stores a reading given in halves as the int64_t at ts. */
static inline __attribute__((always_inline)) void
sr_log__fast_put_ts(int64_t *ts, uint32_t lo, uint32_t hi)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(ts, &lo, sizeof lo);
	memcpy((unsigned char *)ts + sizeof lo, &hi, sizeof hi);
#else
	*ts = (int64_t)((uint64_t)hi << 32 | lo);
#endif
}

/* The clock's raw reading, as sr_log__clock_read makes it. */
static inline int64_t
sr_log__fast_clock(int32_t clock)
{
	if (__builtin_expect(clock == SR_LOG__CLOCK_TSC, 1))  /* the default where the TSC is invariant */
		return sr_tsc_read();
	if (clock == SR_LOG__CLOCK_COARSE)
		return sr_realtime_coarse_ns();
	return sr_realtime_ns();
}

/*
 * The general path, given a copy of the arguments: args itself never has
 * its address taken, so the compiler keeps the values in registers on the
 * inline path and builds the array only here.
 */
static inline __attribute__((always_inline)) void
sr_log__emit_general(sr_category *cat, sr_site *site, const sr_log_arg *args, const int n,
    const char *const *keys, const unsigned char *kv_flags, const int nkv)
{
	sr_log_arg copy[SR_SITE_MAX_ARGS + 1];
	_Pragma("GCC unroll 33")
	for (int i = 0; i < n; i++)
		copy[i] = args[i];
	if (nkv > 0)
		sr_log__emit_fields(cat, site, copy, n, keys, kv_flags, nkv);
	else
		sr_log__emit_args(cat, site, copy, n);
}

/*
 * The record's value area (its size a constant) and each string's length
 * (SR_FMT_NULL_STRING for a NULL one, recorded as such; lens[i] where the
 * compiler knew it, SR_LOG__CONST_LEN); returns the string area's size and
 * the strings' count.  kinds, lens and n are constants: the loop unrolls,
 * the switch folds.
 */
static inline __attribute__((always_inline)) size_t
sr_log__fast_measure(const sr_log_arg *args, const unsigned char *kinds, const int32_t *lens,
    const int n, uint32_t max, uint32_t *len, size_t *values, size_t *strings)
{
	size_t value_bytes = 0, text = 0, count = 0;
	_Pragma("GCC unroll 33")
	for (int i = 0; i < n; i++) {
		switch (kinds[i]) {
		case SR_FMT_ARG_INT:
			value_bytes += 4;
			break;
		case SR_FMT_ARG_LDOUBLE:
			value_bytes += 16;
			break;
		case SR_FMT_ARG_STR:
			value_bytes += 4;
			count++;
			if (lens[i] >= 0 && lens[i] < SR_LOG__MIN_RECORD && args[i].v.s != NULL) {
				/* Known at compile time (so is the pointer: no test is made): below every limit. */
				len[i] = (uint32_t)lens[i];
				text += (size_t)len[i] + 1;
				break;
			}
			len[i] = SR_FMT_NULL_STRING;
			if (__builtin_expect(args[i].v.s != NULL, 1)) {
				len[i] = sr_log__fast_strlen(args[i].v.s, max);
				text += (size_t)len[i] + 1;
			}
			break;
		default:
			value_bytes += 8;
			break;
		}
	}
	*values = value_bytes;
	*strings = count;
	return text;
}

/*
 * The record's size behind a header of header bytes, its value area and its
 * strings measured (sr_log__fast_measure); false when it may exceed its
 * logger's limit max (the general path cuts it).  Strings of at most 31
 * characters each (as the inline blocks find them) keep a record of a few
 * arguments below the smallest limit: one compare of the text, and max's
 * only past it; with every length known at compile time, a constant.
 */
static inline __attribute__((always_inline)) bool
sr_log__fast_size(size_t header, const sr_log_arg *args, const unsigned char *kinds, const int32_t *lens,
    const int n, uint32_t max, uint32_t *len, size_t *values, size_t *size)
{
	size_t strings;
	const size_t text = sr_log__fast_measure(args, kinds, lens, n, max, len, values, &strings);
	const size_t bound = SR_LOG__FAST_INLINE_STRING * strings;
	const bool bounded = header + *values + bound <= SR_LOG__MIN_RECORD;
	*size = header + *values + text;
	return !((!bounded || text > bound) && *size > max);
}

/* The values at v, then each string with its NUL (s[len] is the NUL: len is below the limit). */
static inline __attribute__((always_inline)) void
sr_log__fast_put(unsigned char *v, const sr_log_arg *args, const unsigned char *kinds, const int n,
    const uint32_t *len)
{
	_Pragma("GCC unroll 33")
	for (int i = 0; i < n; i++) {
		switch (kinds[i]) {
		case SR_FMT_ARG_INT:
			memcpy(v, &args[i].v.i, 4);  /* the low 4 bytes (little-endian, as the codec) */
			v += 4;
			break;
		case SR_FMT_ARG_LDOUBLE:
			memcpy(v, args[i].v.ld, 16);
			v += 16;
			break;
		case SR_FMT_ARG_STR:
			memcpy(v, &len[i], 4);
			v += 4;
			break;
		default:
			memcpy(v, &args[i].v, 8);
			v += 8;
			break;
		}
	}
	_Pragma("GCC unroll 33")
	for (int i = 0; i < n; i++) {
		if (kinds[i] == SR_FMT_ARG_STR && len[i] != SR_FMT_NULL_STRING) {
			sr_log__fast_copy(v, args[i].v.s, len[i] + 1);
			v += len[i] + 1;
		}
	}
}

/*
 * calls + 1 stored with release, by the only thread that writes it.  On x86
 * one add to memory: its store is a release there (TSO), a closer reads the
 * old value or the new (an aligned 4-byte store), and the asm's clobber
 * keeps the compiler's accesses on their side (an atomic load then store
 * would be three instructions: the compiler does not merge them).  A thread
 * sanitizer sees no asm: there, and elsewhere, the atomic form.
 */
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__) && !defined(__SANITIZE_THREAD__)
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SR_LOG__FAST_ATOMIC_BUMP 1
#endif
#endif
#else
#define SR_LOG__FAST_ATOMIC_BUMP 1
#endif
static inline __attribute__((always_inline)) void
sr_log__fast_bump(sr_atomic_i32 *calls)
{
#if defined(SR_LOG__FAST_ATOMIC_BUMP)
	sr_atomic_store_release_i32(calls, sr_atomic_load_relaxed_i32(calls) + 1);
#else
	__asm__ volatile("addl $1, %0" : "+m"(*(int32_t *)(void *)calls) : : "memory");
#endif
}

/*
 * The call in progress, as sr_log__call_enter marks it: false when this
 * interrupts another call (a signal handler: odd calls), which the general
 * path handles.  The store-releases pair with the closer's load-acquires;
 * the StoreLoad with the level's load after it is the closer's membarrier
 * (a ring is cached for these calls only where membarrier works).  calls is
 * read again where it is stored: one register fewer held through the call
 * (only this thread writes it).
 */
static inline __attribute__((always_inline)) bool
sr_log__fast_enter(sr_log__fast *fc, sr_category *cat)
{
	if (__builtin_expect(sr_atomic_load_relaxed_i32(&fc->calls) & 1, 0))
		return false;
	sr_atomic_store_release_ptr(&fc->call_cat, cat);
	sr_log__fast_bump(&fc->calls);
	sr_atomic_fence_signal();  /* the store stays before the level's load */
	return true;
}

/* Out of the call; pairs with the closer's load-acquire: the record, if any, is published before. */
static inline __attribute__((always_inline)) void
sr_log__fast_leave(sr_log__fast *fc)
{
	sr_log__fast_bump(&fc->calls);
}

/*
 * The call on a logger's shared ring (producer shared), inside the call
 * marked in progress: the multi-producer claim (a CAS on the cursor), the
 * record written in place
 * (assembled in the thread's scratch and copied across when it crosses the
 * ring's end), the sequencer's publish with its wait strategy's signal.
 * False when the record must take the general path (too long, or the ring
 * full: the general path applies the full-queue policy).
 */
static inline __attribute__((always_inline)) bool
sr_log__emit_fast_shared(const sr_log__fast_shared *f, sr_category *cat, sr_site *site,
    const sr_log_arg *args, const unsigned char *kinds, const int32_t *lens, const int n,
    const int32_t level, const int64_t now)
{
	uint32_t len[SR_SITE_MAX_ARGS + 1];
	size_t values, size;
	if (__builtin_expect(!sr_log__fast_size(sizeof(sr_log__shared_rec), args, kinds, lens, n,
	    f->max_record, len, &values, &size), 0))
		return false;
	sr_sequencer *seq = f->seq;
	const int64_t slots = (int64_t)((size + f->slot_round) >> f->slot_shift);
	int64_t first;
	/* The ring is multi-producer (ring_cache_inline checked); slots is 1 to its size (a record fits). */
	if (__builtin_expect(sr_sequencer_try_claim_multi(seq, slots, &first) != SR_OK, 0))
		return false;
	const size_t pos = (size_t)(first & f->index_mask) << f->slot_shift;
	const bool in_place = __builtin_expect(pos + size <= f->bytes, 1);
	unsigned char *rec = in_place ? f->base + pos : sr_log__fast_scratch();
	sr_log__shared_rec *h = (sr_log__shared_rec *)(void *)rec;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* size, value_bytes, kind and level in one store, tid and errno (0) in another. */
	const uint64_t head = (uint64_t)size | (uint64_t)values << 32 |
	    (uint64_t)SR_LOG__REC_MESSAGE << 48 | (uint64_t)(uint8_t)level << 56;
	const uint64_t who = f->tid;
	memcpy(h, &head, sizeof head);
	memcpy(&h->tid, &who, sizeof who);
#else
	h->size = (uint32_t)size;
	h->value_bytes = (uint16_t)values;
	h->kind = SR_LOG__REC_MESSAGE;
	h->level = (uint8_t)level;
	h->tid = f->tid;
	h->errno_value = 0;
#endif
	h->ts_ns = now;
	h->site = site;
	h->cat = cat;
	memcpy(h->thread, f->name, sizeof h->thread);
	sr_log__fast_put(rec + sizeof *h, args, kinds, n, len);
	if (__builtin_expect(!in_place, 0))
		sr_log__fast_put_across(f->ring, first, rec, size);
	/* Top-down, as the backend's commit: the consumer sees all of the record's slots or none. */
	sr_sequencer_publish_multi(seq, first, first + slots - 1);
	return true;
}

/*
 * The record in the calling thread's own ring, published, and the consumer
 * woken if it parks; false when the record must take the general path (too
 * long for its logger, or past the cached claim limit).  header is a
 * constant: SR_LOG__THREAD_HOME_HEADER (the category is the site's home
 * category, left out) or the whole sr_log__thread_rec (the category in it).
 */
static inline __attribute__((always_inline)) bool
sr_log__fast_put_thread(const sr_log__fast_ring *f, sr_category *cat, sr_site *site,
    const sr_log_arg *args, const unsigned char *kinds, const int32_t *lens, const int n,
    const int32_t level, const uint32_t now_lo, const uint32_t now_hi, const size_t header)
{
	uint32_t len[SR_SITE_MAX_ARGS + 1];
	size_t values, size;
	const bool home = header == SR_LOG__THREAD_HOME_HEADER;
	if (__builtin_expect(!sr_log__fast_size(header, args, kinds, lens, n, f->max_record, len,
	    &values, &size), 0))
		return false;
	/*
	 * The claim, as sr_sequencer_try_claim_single makes it, against one
	 * limit cached here: a claim that would pass the cached gating sequence
	 * (the consumer must be read again) or a record that would cross the
	 * ring's end takes the general path, which sets the limit again.  Only
	 * this thread claims on its ring.
	 */
	sr_sequencer *seq = f->seq;
	const int64_t current = seq->single.next_value;
	const int64_t next = current +
	    (int64_t)((size + SR_LOG__THREAD_SLOT - 1) >> SR_LOG__THREAD_SLOT_SHIFT);
	if (__builtin_expect(next > f->claim_limit, 0))
		return false;
	seq->single.next_value = next;
	unsigned char *rec = f->base + ((size_t)((current + 1) & f->index_mask) << SR_LOG__THREAD_SLOT_SHIFT);
	sr_log__thread_rec *h = (sr_log__thread_rec *)(void *)rec;
	const uint8_t kind = home ? SR_LOG__REC_MESSAGE_HOME_CAT : SR_LOG__REC_MESSAGE;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* size, value_bytes, kind and level in one store: all but size are constants. */
	const uint64_t head = (uint64_t)size | (uint64_t)values << 32 |
	    (uint64_t)kind << 48 | (uint64_t)(uint8_t)level << 56;
	memcpy(h, &head, sizeof head);
#else
	h->size = (uint32_t)size;
	h->value_bytes = (uint16_t)values;
	h->kind = kind;
	h->level = (uint8_t)level;
#endif
	sr_log__fast_put_ts(&h->ts_ns, now_lo, now_hi);
	h->site = site;
	if (!home)
		h->cat = cat;
	sr_log__fast_put(rec + header, args, kinds, n, len);
	/*
	 * The publish: a thread's ring is single-producer with the busyspin
	 * strategy, so sr_sequencer_publish_range would only store the cursor.
	 * Pairs with the consumer's load-acquire of the cursor.
	 */
	sr_sequence_set(&seq->cursor, next);
	/*
	 * No fence: a consumer in a shallow park that missed this record wakes
	 * by its bound, and a deep park's membarrier is the fence
	 * (sr_log_per_thread_internal.h), so a relaxed look suffices.  The
	 * compiler barrier keeps the publish before it.
	 */
	sr_atomic_fence_signal();
	if (__builtin_expect(sr_atomic_load_relaxed_i32(f->parked) != 0, 0))
		sr_log__fast_wake(f->ring);
	return true;
}

/*
 * The macros' call: inline when the calling thread has cat's logger's ring
 * cached (its own ring, producer per_thread, or the logger's shared ring),
 * the site copies by type and every character pointer is a %s string, else
 * sr_log__emit_args.  n, level, kinds (a static constant array at the call
 * site, args[i].kind) and lens (each string's length where the compiler
 * knows it, else -1: SR_LOG__CONST_LEN) are constants, so the loops below
 * unroll and their switches fold to the arguments' own code.
 */
static inline __attribute__((always_inline)) void
sr_log__emit_fast_kv(sr_category *cat, sr_site *site, const sr_log_arg *args,
    const unsigned char *kinds, const int32_t *lens, const int n, const int32_t level,
    const char *const *keys, const unsigned char *kv_flags, const int nkv)
{
	sr_log__fast *fc = &sr_log__my_fast;
	const sr_log__fast_ring *f = &fc->r;
	const sr_log__fast_shared *sh = &fc->sh;
	/*
	 * The load-acquire of copy pairs with the store-release in the
	 * frontend's decide_copy.  FAST says the site's arguments copy by C
	 * type and each character pointer is a %s string (one printed with %p
	 * takes the general path): the site's types are this expansion's, the
	 * same at every call.
	 */
	if (__builtin_expect(sr_atomic_load_acquire_i32(&site->copy) != SR_SITE_COPY_FAST, 0))
		goto general;
	/*
	 * The clock now, before the record's size and the claim: the read (the
	 * TSC's takes tens of cycles) runs beside them instead of after them.
	 * A logger's key is cached twice per ring kind: in tsc_key for a logger
	 * on the TSC (the default where it is invariant: one compare decides
	 * both), in key for any logger.
	 */
	int64_t now;  /* assigned, not initialised: C++ forbids jumping past an initialisation */
	uint32_t now_lo, now_hi;  /* the thread ring's: the reading's halves, stored as they come */
	if (__builtin_expect(f->tsc_key == cat->fast_key, 1)) {
		sr_log__fast_tsc(&now_lo, &now_hi);
	} else if (sh->tsc_key == cat->fast_key || sh->key == cat->fast_key) {
		/* The logger's shared ring. */
		now = sh->tsc_key == cat->fast_key ? sr_tsc_read() : sr_log__fast_clock(sh->clock);
		if (!sr_log__fast_enter(fc, cat))
			goto general;
		/* The level again: a shutdown or close may have begun after the macro's check. */
		if (__builtin_expect(level < sr_atomic_load_relaxed_i32(&cat->level) ||
		    !sr_log__emit_fast_shared(sh, cat, site, args, kinds, lens, n, level, now), 0))
			goto leave_general;
		sr_log__fast_leave(fc);
		return;
	} else if (f->key == cat->fast_key) {
		now = sr_log__fast_clock(f->clock);
		now_lo = (uint32_t)(uint64_t)now;
		now_hi = (uint32_t)((uint64_t)now >> 32);
	} else {
		goto general;
	}
	/* The calling thread's own ring. */
	if (!sr_log__fast_enter(fc, cat))
		goto general;
	/* The level again: a shutdown or close may have begun after the macro's check. */
	if (__builtin_expect(level < sr_atomic_load_relaxed_i32(&cat->level), 0))
		goto leave_general;
	/*
	 * A call that names its site's home category leaves the category out of
	 * the header (24 bytes instead of 32): an int, a double and a
	 * 16-character string then fit one cache line.  A call through another
	 * category (a function that logs for the category its caller passes)
	 * writes the full header, in code of its own: the home call's
	 * instructions stay as they are.  The load-acquire of copy above orders
	 * this load after home_cat's store (the frontend sets it first).
	 */
	if (__builtin_expect(sr_atomic_load_acquire_ptr(&site->home_cat) == (void *)cat, 1)) {
		if (__builtin_expect(!sr_log__fast_put_thread(f, cat, site, args, kinds, lens, n, level,
		    now_lo, now_hi, SR_LOG__THREAD_HOME_HEADER), 0))
			goto leave_general;
	} else if (__builtin_expect(!sr_log__fast_put_thread(f, cat, site, args, kinds, lens, n, level,
	    now_lo, now_hi, sizeof(sr_log__thread_rec)), 0)) {
		goto leave_general;
	}
	sr_log__fast_leave(fc);
	return;
leave_general:
	/* Out of the call; the general path marks its own (sr_log__call_enter). */
	sr_log__fast_leave(fc);
general:
	sr_log__emit_general(cat, site, args, n, keys, kv_flags, nkv);
}

/*
 * The call without key-value fields.  A call with some (its last nkv
 * arguments SR_KV values, keys and kv_flags static arrays of the site) is
 * written inline as the same record: the site's key table, made by its first
 * call on the general path, says which values are fields.
 */
static inline __attribute__((always_inline)) void
sr_log__emit_fast(sr_category *cat, sr_site *site, const sr_log_arg *args,
    const unsigned char *kinds, const int32_t *lens, const int n, const int32_t level)
{
	sr_log__emit_fast_kv(cat, site, args, kinds, lens, n, level, NULL, NULL, 0);
}

#ifdef __cplusplus
}
#endif

#endif /* SR_LOG_FAST_H */
