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
 * The header of a record in a thread's own ring.  32 bytes.  kind holds
 * SR_LOG__REC_MESSAGE for a call; the consumer's other kinds and flags are
 * in sr_log_record_internal.h.
 */
typedef struct sr_log__thread_rec {
	uint32_t size;            /* header + value area + string area */
	uint16_t value_bytes;
	uint8_t kind;
	uint8_t level;
	int64_t ts_ns;            /* the clock's raw reading (sr_log__clock_read) */
	sr_site *site;
	sr_category *cat;
} sr_log__thread_rec;

#define SR_LOG__REC_MESSAGE 1

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
	uint32_t slot_shift;      /* log2 of the slot size */
	uint32_t max_record;      /* larger records take the out-of-line path (cut there) */
	int32_t clock;            /* SR_LOG__CLOCK_* */
} sr_log__fast_ring;

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
/* 1 where membarrier(2) is unavailable: a caller then fences after marking its call. */
extern SR_API sr_atomic_i32 sr_log__callers_fence;

/* Wakes the logger's parked consumer (out of line: only when the flag was seen). */
SR_API void sr_log__fast_wake(void *ring);

/*
 * The length of s, at most max: strnlen where POSIX declares it (fewer
 * instructions than memchr in glibc), memchr in strict ISO C, which stops at
 * the first NUL as strnlen does.
 */
static inline uint32_t
sr_log__fast_strlen(const char *s, size_t max)
{
#if defined(_POSIX_C_SOURCE) && _POSIX_C_SOURCE >= 200809L
	return (uint32_t)strnlen(s, max);
#else
	const char *nul = (const char *)memchr(s, 0, max);
	return (uint32_t)(nul != NULL ? (size_t)(nul - s) : max);
#endif
}

/* The clock's raw reading, as sr_log__clock_read makes it. */
static inline int64_t
sr_log__fast_clock(int32_t clock)
{
	if (clock == SR_LOG__CLOCK_TSC)
		return sr_tsc_read();
	if (clock == SR_LOG__CLOCK_COARSE)
		return sr_realtime_coarse_ns();
	return sr_realtime_ns();
}

/*
 * The macros' call: inline when the calling thread's ring for cat's logger
 * is cached and the site copies by type, else sr_log__emit_args.  n and
 * kinds (a static constant array at the call site, args[i].kind) are
 * constants, so the loops below unroll and their switches fold to the
 * arguments' own code.
 */
static inline __attribute__((always_inline)) void
sr_log__emit_fast(sr_category *cat, sr_site *site, const sr_log_arg *args,
    const unsigned char *kinds, const int n)
{
	sr_log__fast *fc = &sr_log__my_fast;
	const sr_log__fast_ring *f = &fc->r;
	/* pairs with the store-release in the frontend's decide_copy: str_mask is set */
	if (__builtin_expect(f->key != cat->fast_key ||
	    sr_atomic_load_acquire_i32(&site->copy) != SR_SITE_COPY_FAST, 0))
		goto general;
	/*
	 * The call in progress, as sr_log__call_enter marks it: odd calls means
	 * this interrupts another call (a signal handler), which the general
	 * path handles.  The store-releases pair with the closer's load-acquires;
	 * the StoreLoad with the level's load below is the closer's membarrier,
	 * or the fence where it is unavailable.
	 */
	int32_t calls;  /* not initialised here: C++ forbids jumping past an initialisation */
	calls = sr_atomic_load_relaxed_i32(&fc->calls);
	if (__builtin_expect(calls & 1, 0))
		goto general;
	sr_atomic_store_release_ptr(&fc->call_cat, cat);
	sr_atomic_store_release_i32(&fc->calls, calls + 1);
	if (__builtin_expect(sr_atomic_load_relaxed_i32(&sr_log__callers_fence) != 0, 0))
		sr_atomic_fence_seq_cst(); /* pairs with the closer's fence in sr_log__calls_quiesce */
	sr_atomic_fence_signal();  /* the store stays before the level's load */
	/* The level again: a shutdown or close may have begun after the macro's check. */
	if (__builtin_expect(site->level < sr_atomic_load_relaxed_i32(&cat->level), 0))
		goto leave_general;
	{
		/* ordered by the load-acquire of copy above */
		const uint32_t strings = (uint32_t)sr_atomic_load_relaxed_i32(&site->str_mask);
		uint32_t len[SR_SITE_MAX_ARGS + 1];
		size_t size = sizeof(sr_log__thread_rec);
		/* The value area's size, and the strings' (a NULL string is recorded as such). */
		_Pragma("GCC unroll 32")
		for (int i = 0; i < n; i++) {
			switch (kinds[i]) {
			case SR_FMT_ARG_INT:
				size += 4;
				break;
			case SR_FMT_ARG_LDOUBLE:
				size += 16;
				break;
			case SR_FMT_ARG_STR:
				if (strings >> i & 1) {
					len[i] = args[i].v.s == NULL ? SR_FMT_NULL_STRING :
					    sr_log__fast_strlen(args[i].v.s, f->max_record);
					size += 4 + (len[i] == SR_FMT_NULL_STRING ? 0 : (size_t)len[i] + 1);
				} else {
					len[i] = SR_FMT_NULL_STRING;  /* a character pointer printed with %p */
					size += 8;
				}
				break;
			default:
				size += 8;
				break;
			}
		}
		if (__builtin_expect(size > f->max_record, 0))
			goto leave_general;
		sr_sequencer *seq = f->seq;
		/* Where the record starts: the next claim's first slot (only this thread claims). */
		size_t pos = (size_t)(sr_sequencer_next_single(seq) & seq->mask) << f->slot_shift;
		int64_t slots = (int64_t)((size + ((size_t)1 << f->slot_shift) - 1) >> f->slot_shift);
		int64_t first;
		if (__builtin_expect(pos + size > f->bytes ||
		    sr_sequencer_try_claim_single(seq, slots, &first) != SR_OK, 0))
			goto leave_general;
		unsigned char *rec = f->base + pos;
		/* The header straight into the slot (its value_bytes once the values are in). */
		sr_log__thread_rec *h = (sr_log__thread_rec *)(void *)rec;
		h->size = (uint32_t)size;
		h->kind = SR_LOG__REC_MESSAGE;
		h->level = (uint8_t)site->level;
		h->ts_ns = sr_log__fast_clock(f->clock);
		h->site = site;
		h->cat = cat;
		unsigned char *v = rec + sizeof *h;
		_Pragma("GCC unroll 32")
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
				if (strings >> i & 1) {
					memcpy(v, &len[i], 4);
					v += 4;
				} else {
					memcpy(v, &args[i].v.p, 8);
					v += 8;
				}
				break;
			default:
				memcpy(v, &args[i].v, 8);
				v += 8;
				break;
			}
		}
		h->value_bytes = (uint16_t)(v - (rec + sizeof *h));
		_Pragma("GCC unroll 32")
		for (int i = 0; i < n; i++) {
			if (kinds[i] == SR_FMT_ARG_STR && len[i] != SR_FMT_NULL_STRING) {
				memcpy(v, args[i].v.s, len[i]);
				v[len[i]] = '\0';
				v += len[i] + 1;
			}
		}
		/*
		 * The publish: a thread's ring is single-producer with the busyspin
		 * strategy, so sr_sequencer_publish_range would only store the
		 * cursor.  Pairs with the consumer's load-acquire of the cursor.
		 */
		sr_sequence_set(&seq->cursor, first + slots - 1);
		/*
		 * No fence: a consumer that parks without seeing this record wakes
		 * by its bound (sr_log_threads_internal.h), so a relaxed look suffices.
		 */
		if (__builtin_expect(sr_atomic_load_relaxed_i32(f->parked) != 0, 0))
			sr_log__fast_wake(f->ring);
		/* pairs with the closer's load-acquire: the record is published before */
		sr_atomic_store_release_i32(&fc->calls, calls + 2);
		return;
	}
leave_general:
	/* Out of the call; the general path marks its own (sr_log__call_enter). */
	sr_atomic_store_release_i32(&fc->calls, calls + 2);
general:
	sr_log__emit_args(cat, site, args, n);
}

#ifdef __cplusplus
}
#endif

#endif /* SR_LOG_FAST_H */
