/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ex_machine.h: the machine figures a lesson's prediction is built from,
 * measured at the start of every run, on the machine the lesson runs on:
 * one cycle, one cache-line transfer between two cores, waking a thread
 * that sleeps, one clock read, one write(2) to /dev/null.
 *
 * Each figure is the median of several short measurements, so that a
 * neighbour that takes a CPU for a moment moves it less; on a loaded
 * machine it is still the machine as it is now, which is what the lesson's
 * measurement will meet too.
 */
#ifndef SEQRING_EXAMPLES_EX_MACHINE_H
#define SEQRING_EXAMPLES_EX_MACHINE_H

#include <stdbool.h>

typedef struct ex_machine {
	int cpus;                /* CPUs this process may run on (sched_getaffinity) */
	double cycle_ns;         /* one cycle: a chain of dependent adds, one cycle each */
	double transfer_ns;      /* one cache line moved between two threads (half a ping-pong); 0 on one CPU */
	double wake_ns;          /* a futex wake until the woken thread runs */
	double clock_ns;         /* one sr_monotonic_ns */
	double write_ns;         /* one write(2) of EX_MACHINE_WRITE_BYTES to /dev/null */
	double load_average;     /* /proc/loadavg, 1 minute, when measured */
} ex_machine;

#define EX_MACHINE_WRITE_BYTES 4096

/*
 * Measures every figure (about a tenth of a second) and prints them as a
 * table on stdout, so that a prediction made from them can be checked by
 * hand.
 */
void ex_machine_measure(ex_machine *m);

/* The figures as one table on stdout. */
void ex_machine_print(const ex_machine *m);

/* The median of v[0..n-1] (n > 0), which it sorts. */
double ex_median(double *v, int n);

/*
 * Restricts the calling thread, and every thread it creates from then on, to
 * the first CPU this process may use (the lessons' --same-cpu).  false after
 * a message on stderr.
 */
bool ex_run_on_one_cpu(void);

#endif /* SEQRING_EXAMPLES_EX_MACHINE_H */
