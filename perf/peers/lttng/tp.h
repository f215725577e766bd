/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tp.h: the LTTng-UST tracepoint provider of the trace phase: one event,
 * seqring_bench:call, with the fields of perf/caller's call (an int, a double
 * and a string: SR_INFO(c, "x=%d y=%f s=%s", i, d, s)).  The classic
 * TRACEPOINT_EVENT / ctf_* names: what LTTng-UST's documentation and users
 * write, accepted by 2.12 and 2.13 alike (2.13 maps them to its lttng_ust_*
 * names).  tp.c makes the probes; trace_bench.c includes this for the call.
 */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER seqring_bench

#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "./tp.h"

#if !defined(SEQRING_BENCH_TP_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define SEQRING_BENCH_TP_H

#include <lttng/tracepoint.h>

TRACEPOINT_EVENT(
	seqring_bench,
	call,
	TP_ARGS(int, x, double, y, const char *, s),
	TP_FIELDS(
		ctf_integer(int, x, x)
		ctf_float(double, y, y)
		ctf_string(s, s)
	)
)

/* INFO, as the seqring call it stands beside (SR_INFO). */
TRACEPOINT_LOGLEVEL(seqring_bench, call, TRACE_INFO)

#endif /* SEQRING_BENCH_TP_H */

#include <lttng/tracepoint-event.h>
