/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ex_verdict.h: a lesson's prediction and its verdict.
 *
 * A lesson states what it expects before it measures (ex_predict: the
 * figure, its formula with the machine figures put in), watches the machine
 * while it measures (ex_watch_start), then prints the verdict computed from
 * the two (ex_verdict): "as predicted (measured 1.02x the prediction)" or
 * "NOT as predicted (3.1x): " and the likeliest cause it can detect: fewer
 * CPUs than the measurement needs, other processes using the CPUs meanwhile
 * (from /proc/stat, beside this process's own CPU time), the hypervisor's
 * steal time, or a cause the lesson itself detected.
 *
 * ex_check_cycles refuses a figure below one cycle per operation: no real
 * loop does that, so it is a fault of the lesson (a loop the compiler
 * removed or hoisted), never a result.
 */
#ifndef SEQRING_EXAMPLES_EX_VERDICT_H
#define SEQRING_EXAMPLES_EX_VERDICT_H

#include <stdbool.h>
#include <stdint.h>

#include "ex_machine.h"

/* What the machine did while a lesson measured (ex_watch_start .. ex_verdict). */
typedef struct ex_watch {
	int64_t wall_ns;
	unsigned long long busy_ticks, total_ticks, steal_ticks; /* /proc/stat, all CPUs */
	int64_t self_cpu_ns;                                     /* this process and its waited children */
	bool have_stat;
} ex_watch;

void ex_watch_start(ex_watch *w);

/*
 * Prints "Prediction: WHAT = VALUE UNIT" and the formula, a printf format
 * with the figures it uses, on the next line.  Returns value.
 */
double ex_predict(const char *what, double value, const char *unit, const char *formula, ...)
    __attribute__((format(printf, 4, 5)));

typedef struct ex_claim {
	const char *what;        /* the figure, as ex_predict named it */
	double predicted;
	double measured;
	double tolerance;        /* as predicted when measured / predicted is in [1/tolerance, tolerance] */
	bool at_least;           /* a lower bound: as predicted when measured / predicted >= 1/tolerance */
	bool at_most;            /* an upper bound: as predicted when measured / predicted <= tolerance */
	int threads;             /* threads the measurement needs running at the same time */
	const char *own_reason;  /* a cause the lesson detected itself, or NULL */
} ex_claim;

/*
 * Prints "Verdict: ..." for c, with what w saw since ex_watch_start, and
 * returns true when the measurement is as predicted.  The line always
 * carries the ratio as "(measured R.RRx the prediction)" or "(R.RRx)", which
 * the lessons' tests read.
 */
bool ex_verdict(const ex_machine *m, const ex_watch *w, const ex_claim *c);

/*
 * false, after an error line on stderr naming the figure, when ns_per_op is
 * below one cycle of m: the loop did not do what a program does.
 */
bool ex_check_cycles(const ex_machine *m, const char *what, double ns_per_op);

#endif /* SEQRING_EXAMPLES_EX_VERDICT_H */
