/* SPDX-License-Identifier: Apache-2.0 */
/*
 * macros_check.c: every public macro expanded once, compiled (never run) by check_headers.sh
 * as C99, C11 and C17 and, with -x c++, as C++11 to C++20, with -Wall -Wextra -Wpedantic
 * -Werror: a header that compiles can still hold a macro that does not.
 */
#include <inttypes.h>
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

#if SEQRING_VERSION_NUMBER < 10000 || SEQRING_VERSION_MAJOR < 1 || SEQRING_SOVERSION < 1
#error "sr_version.h: the version macros must work in #if"
#endif
#if SEQRING_BUILT_WITH_C11_ATOMICS + SR_HAVE_TSC + SEQRING_VERSION_MINOR + SEQRING_VERSION_PATCH < 0
#error "sr_build.h, sr_time.h: the 0/1 macros must work in #if"
#endif

#ifdef __cplusplus
extern "C" {
#endif

enum macros_check_color { MACROS_CHECK_RED, MACROS_CHECK_BLUE };

SR_API int64_t macros_check_constants(void);
void macros_check_log(sr_category *cat);
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

/* Each level macro, SR_LOG and SR_LOG_ENABLED, with every argument type the macros convert. */
void macros_check_log(sr_category *cat)
{
	int i = -1;
	unsigned u = 2;
	long l = -3;
	unsigned long ul = 4;
	long long ll = -5;
	unsigned long long ull = 6;
	size_t z = 7;
	ptrdiff_t pd = -8;
	int64_t i64 = -9;
	uint32_t u32 = 10;
	short s = -11;
	unsigned short us = 12;
	signed char sc = -13;
	unsigned char uc = 14;
	char c = 'c';
	bool b = true;
	float f = 1.5f;
	double d = 2.5;
	long double ld = 3.5L;
	const char *str = "str";
	char buf[4] = "buf";
	const unsigned char *ustr = (const unsigned char *)"ustr";
	void *p = &i;
	const int *ip = &i;
	enum macros_check_color color = MACROS_CHECK_BLUE;

	SR_TRACE(cat, "no argument");
	SR_DEBUG(cat, "%d %u %ld %lu %lld %llu", i, u, l, ul, ll, ull);
	SR_INFO(cat, "%zu %td %" PRId64 " %" PRIu32, z, pd, i64, u32);
	SR_WARN(cat, "%hd %hu %hhd %hhu %c %d %d", s, us, sc, uc, c, b, color);
	SR_ERROR(cat, "%f %g %Le %a", f, d, ld, d * 2);
	SR_FATAL(cat, "%s %s %s %s", str, buf, "literal", (const char *)ustr);
	SR_LOG(cat, SR_LOG_INFO, "%p %p %p %s", p, (const void *)ip, (void *)buf, str + 1);
	SR_LOG(cat, SR_LOG_WARN, "%*d|%-*.*s|", 5, i, 6, 2, str);
	SR_INFO(cat, "%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d "
	    "%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d",
	    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
	    17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32);
	if (SR_LOG_ENABLED(cat, SR_LOG_DEBUG))
		SR_DEBUG(cat, "%d", i + 1);
	if (i < 0)
		SR_INFO(cat, "an if without braces: %d", i);
	else
		SR_INFO(cat, "and its else: %u", u);
}

#ifdef __cplusplus
}
#endif
