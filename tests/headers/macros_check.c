/* SPDX-License-Identifier: Apache-2.0 */
/*
 * macros_check.c: every public macro expanded once, compiled (never run) by check_headers.sh
 * as C99, C11 and C17 and, with -x c++, as C++11 to C++20, with -Wall -Wextra -Wpedantic
 * -Werror: a header that compiles can still hold a macro that does not.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <seqring/sr_backoff.h>
#include <seqring/sr_barrier.h>
#include <seqring/sr_build.h>
#include <seqring/sr_disruptor.h>
#include <seqring/sr_error.h>
#include <seqring/sr_export.h>
#include <seqring/sr_log.h>
#include <seqring/sr_processor.h>
#include <seqring/sr_ring.h>
#include <seqring/sr_sequence.h>
#include <seqring/sr_sequencer.h>
#include <seqring/sr_time.h>
#include <seqring/sr_version.h>
#include <seqring/sr_wait.h>

#define USE_PROGRAM "macros_check.c"
#include "use_seqring_common.h"

#if SEQRING_VERSION_NUMBER < 10000 || SEQRING_VERSION_MAJOR < 1 || SEQRING_SOVERSION < 1
#error "sr_version.h: the version macros must work in #if"
#endif
#if SEQRING_BUILT_WITH_C11_ATOMICS + SR_HAVE_TSC + SEQRING_VERSION_MINOR + SEQRING_VERSION_PATCH < 0
#error "sr_build.h, sr_time.h: the 0/1 macros must work in #if"
#endif

#ifdef __cplusplus
extern "C" {
#endif

SR_API int64_t macros_check_constants(void);
const char *macros_check_string(int which);

int64_t macros_check_constants(void)
{
	sr_backoff backoff = SR_BACKOFF_INIT;
	return (int64_t)backoff.step + SR_BACKOFF_FOREVER / 2 + SR_BACKOFF_CLOCK_STEPS +
	    SR_BACKOFF_NAP_NS + SR_BACKOFF_SPIN_STEPS + SR_BACKOFF_YIELD_STEPS +
	    SR_BARRIER_MAX_DEPENDENTS + SR_CACHELINE + SR_DEADLINE_NONE / 2 + SR_DEADLINE_NOW / 2 +
	    SR_DISRUPTOR_MAX_STAGES + SR_ERROR_MESSAGE_MAX + SR_EVENT_REWIND + SR_FMT_NULL_STRING +
	    SR_FMT_PREC_NONE + SR_FMT_PREC_STAR + (int64_t)SR_FMT_TRUNCATION_MARKER_LEN +
	    SR_GROUP_MAX + SR_LOG_INHERIT + SR_LOG_LEVEL_COUNT + SR_LOG_MAX_SINKS + SR_NS_PER_S +
	    SR_RING_MAX_SLOT_COUNT + SR_RING_MAX_SLOT_SIZE + SR_SEQUENCER_MAX_GATING +
	    SR_SEQUENCE_INITIAL + SR_SITE_MAX_ARGS + SR_TSC_CALIBRATE_MAX_NS +
	    SR_TSC_CALIBRATE_MIN_NS + SR_WAIT_MAX_NS + SR_WAIT_MAX_TRIES;
}

const char *macros_check_string(int which)
{
	switch (which) {
	case 0: return SEQRING_VERSION_STRING;
	case 1: return SR_ATOMIC_BACKEND;
	case 2: return SR_FMT_TRUNCATION_MARKER;
	default: return SR_LOG_DEFAULT_WAIT;
	}
}

/*
 * The log macros: use_seqring_common.h expands each level macro, SR_LOG and SR_LOG_ENABLED with
 * every argument type the macros convert, and the ring's inline calls; compiled here in every
 * mode (the programs that run it are built in two), never run.
 */
void macros_check_programs(sr_category *cat);
void macros_check_programs(sr_category *cat)
{
	sr_log *log = use_open("unused", SR_LOG_MODE_RING, SR_LOG_PRODUCER_SHARED);
	use_check_ring(SR_PRODUCER_MULTI);
	use_log_common(cat, 0);
	use_close_and_check(&log, "unused", "unused");
}

/*
 * The rate-limiting macros (sr_log_limit.h), each of them, with constant and run-time
 * parameters; sr_log_limit_set_clock's signature.  Their compile-time refusals:
 * check_limit_args.sh.
 */
static int64_t macros_check_clock(void *ctx) { return ctx != NULL ? 1 : 0; }
void macros_check_limits(sr_category *cat, int n);
void macros_check_limits(sr_category *cat, int n)
{
	SR_LOG_ONCE(cat, SR_LOG_INFO, "once %d", n);
	SR_LOG_EVERY_N(cat, SR_LOG_INFO, 10, "every %d %s", n, "s");
	SR_LOG_LIMIT(cat, SR_LOG_INFO, n, 5, "limit %f", 0.5);
	SR_TRACE_ONCE(cat, "once"); SR_DEBUG_ONCE(cat, "once"); SR_INFO_ONCE(cat, "once");
	SR_WARN_ONCE(cat, "once"); SR_ERROR_ONCE(cat, "once"); SR_FATAL_ONCE(cat, "once %d", n);
	SR_TRACE_EVERY_N(cat, n, "every"); SR_DEBUG_EVERY_N(cat, 2, "every"); SR_INFO_EVERY_N(cat, 3, "every");
	SR_WARN_EVERY_N(cat, 4, "every"); SR_ERROR_EVERY_N(cat, 5, "every"); SR_FATAL_EVERY_N(cat, 6, "every %d", n);
	SR_TRACE_LIMIT(cat, 1, 1, "limit"); SR_DEBUG_LIMIT(cat, 2, n, "limit"); SR_INFO_LIMIT(cat, 3, 3, "limit");
	SR_WARN_LIMIT(cat, 4, 4, "limit"); SR_ERROR_LIMIT(cat, 5, 5, "limit"); SR_FATAL_LIMIT(cat, 6, 6, "limit %d", n);
	sr_log_limit_set_clock(macros_check_clock, NULL);
	sr_log_limit_set_clock(NULL, NULL);
}

#ifdef __cplusplus
}
#endif
