/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_limit_internal.h: rate limits per call site (internal;
 * sr_log_limit.c).  The macros of sr_log_limit.h decide inline and call the
 * out-of-line halves declared there (sr_log__limit_wrote, _now, _take);
 * what the rest of the library needs of a limiter is here: one made at run
 * time (a limit attached to a site that has none in code), a call through
 * it, its counters, the process's list of limiters, and what a logger's
 * statistics count.
 *
 * A limiter is listed at its first written line (made by a macro) or when
 * made (sr_log__limit_init), and never unlisted: like a site, it must
 * outlive the process's use of it (a static one does).
 */
#ifndef SR_LOG_LIMIT_INTERNAL_H
#define SR_LOG_LIMIT_INTERNAL_H

#include <stdint.h>

#include "sr_log.h"

/* A limiter's counters, as sr_log__limit_counters reads them. */
typedef struct sr_log_limit_counters {
	int kind;              /* SR_LOG__LIMIT_*, 0 before the limiter's first line */
	int64_t param[2];      /* ONCE: 1; EVERY_N: n; RATE: per_second, burst (as given) */
	uint64_t calls;        /* calls that passed the level check: emitted + suppressed */
	uint64_t emitted;      /* calls written */
	uint64_t suppressed;   /* calls suppressed */
	uint64_t pending;      /* of those, the ones since the site's last line (no line reported them yet) */
} sr_log_limit_counters;

/*
 * Makes *l a fresh limiter of kind (SR_LOG__LIMIT_*) with its parameters
 * (EVERY_N: a = n; RATE: a = per_second, b = burst; ONCE: none) and lists
 * it.  For a limiter no macro made; *l must not be in use.
 */
void sr_log__limit_init(sr_log_limiter *l, int kind, int64_t a, int64_t b);

/*
 * A call through a limiter that sr_log__limit_init made, for cat, after its
 * level check: -1 when suppressed, else the count its line reports (0:
 * write the message as it is; N: write it with SR_LOG_LIMIT_SUFFIX and N).
 * now: for RATE, sr_log__limit_clock's reading (read just before); ignored
 * by the other kinds.
 */
int64_t sr_log__limit_admit(sr_log_limiter *l, sr_category *cat, int64_t now);

/* RATE: the limiter's clock now, in its units (set up first at its first call). */
int64_t sr_log__limit_clock(sr_log_limiter *l, sr_category *cat);

/* Its counters; exact when no thread is calling through it. */
void sr_log__limit_counters(const sr_log_limiter *l, sr_log_limit_counters *out);

/* Calls fn for every listed limiter, newest first (any thread; lock-free). */
void sr_log__limit_each(void (*fn)(sr_log_limiter *l, void *ctx), void *ctx);

/*
 * sr_log_counters.suppressed of log: over the limiters whose last line went
 * through one of log's categories, the calls each suppressed since its
 * first line through log (those its first line there reported included).
 */
uint64_t sr_log__limit_suppressed(const sr_log *log);

#endif /* SR_LOG_LIMIT_INTERNAL_H */
