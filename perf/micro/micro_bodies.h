/* SPDX-License-Identifier: Apache-2.0 */
/*
 * micro_bodies.h: the C side of the micro-benchmarks.  micro_shim.cpp (the
 * only C++ in perf/) registers every case with Google Benchmark and calls its
 * body once per benchmark iteration; the bodies and their set-up are C.
 *
 * This header is included by C++ and must stay free of ck and seqring headers.
 */
#ifndef SR_MICRO_BODIES_H
#define SR_MICRO_BODIES_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct micro_case {
	const char *name;              /* Google Benchmark name, e.g. "sp_claim_publish/busyspin" */
	void *(*setup)(int64_t arg);   /* returns the body's context, NULL on failure */
	void (*body)(void *ctx);       /* one operation */
	void (*teardown)(void *ctx);
	int64_t arg;
	int64_t bytes_per_op;          /* > 0: report bytes/s too */
	/*
	 * > 0: after every pause_every iterations the shim stops the clock and
	 * calls pause(ctx) (e.g. to let a logger's consumer catch up).
	 */
	int64_t pause_every;
	void (*pause)(void *ctx);
} micro_case;

/* The table of cases; *count receives its length. */
const micro_case *micro_cases(int *count);

/* Why the last setup returned NULL. */
const char *micro_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* SR_MICRO_BODIES_H */
