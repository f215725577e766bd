/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ex_verdict.c: predictions, verdicts and their likeliest causes (ex_verdict.h).
 */
#include "ex_verdict.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "ex_time.h"
#include <seqring/sr_wait.h>

/* Reads the "cpu" line of /proc/stat: every CPU's ticks since boot. */
static bool
read_stat(unsigned long long *busy, unsigned long long *total, unsigned long long *steal)
{
	FILE *f = fopen("/proc/stat", "r");
	if (f == NULL)
		return false;
	unsigned long long v[8] = { 0 };
	int n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4],
	    &v[5], &v[6], &v[7]);
	fclose(f);
	if (n < 4)
		return false;
	/* user nice system idle iowait irq softirq steal: idle and iowait are not busy. */
	*total = 0;
	for (int i = 0; i < 8; i++)
		*total += v[i];
	*busy = *total - v[3] - v[4] - v[7];
	*steal = v[7];
	return true;
}

/*
 * This process's CPU time, with that of its children already waited for
 * (the logger lessons' pipe readers): their work is the lesson's, not
 * another process's.
 */
static int64_t
own_cpu_ns(void)
{
	struct rusage r;
	getrusage(RUSAGE_CHILDREN, &r);
	return ex_process_cpu_ns() + ex_rusage_cpu_ns(&r);
}

void
ex_watch_start(ex_watch *w)
{
	memset(w, 0, sizeof *w);
	w->have_stat = read_stat(&w->busy_ticks, &w->total_ticks, &w->steal_ticks);
	w->self_cpu_ns = own_cpu_ns();
	w->wall_ns = sr_monotonic_ns();
}

double
ex_predict(const char *what, double value, const char *unit, const char *formula, ...)
{
	printf("Prediction: %s = %.4g %s\n  from ", what, value, unit);
	va_list ap;
	va_start(ap, formula);
	vprintf(formula, ap);
	va_end(ap);
	printf("\n\n");
	fflush(stdout);
	return value;
}

/*
 * What the machine did besides this process since w: CPUs' worth of other
 * processes' work, and the share of time the hypervisor took (steal).
 */
static void
machine_meanwhile(const ex_watch *w, double *others_cpus, double *steal_share)
{
	*others_cpus = -1;
	*steal_share = -1;
	unsigned long long busy, total, steal;
	if (!w->have_stat || !read_stat(&busy, &total, &steal) || total <= w->total_ticks)
		return;
	double wall_s = (double)(sr_monotonic_ns() - w->wall_ns) / 1e9;
	double ticks = (double)(total - w->total_ticks);
	/* ticks counts every CPU of the machine; the share of it spent busy, in CPUs. */
	double machine_cpus = (double)sysconf(_SC_NPROCESSORS_ONLN);
	double busy_cpus = (double)(busy - w->busy_ticks) / ticks * machine_cpus;
	double self_cpus = wall_s > 0 ? (double)(own_cpu_ns() - w->self_cpu_ns) / 1e9 / wall_s : 0;
	*others_cpus = busy_cpus - self_cpus > 0 ? busy_cpus - self_cpus : 0;
	*steal_share = (double)(steal - w->steal_ticks) / ticks;
}

bool
ex_verdict(const ex_machine *m, const ex_watch *w, const ex_claim *c)
{
	double ratio = c->predicted > 0 ? c->measured / c->predicted : 0;
	bool ok = c->predicted > 0 && (c->at_most || ratio >= 1 / c->tolerance) &&
	    (c->at_least || ratio <= c->tolerance);
	printf("Verdict on %s: measured %.4g against %.4g predicted: ", c->what, c->measured, c->predicted);
	if (ok) {
		if (c->at_most)
			printf("as predicted (measured %.2fx the prediction, an upper bound; the lesson accepts "
			    "up to %.2fx).\n\n", ratio, c->tolerance);
		else if (c->at_least)
			printf("as predicted (measured %.2fx the prediction, a lower bound; the lesson accepts "
			    "%.2fx and more).\n\n", ratio, 1 / c->tolerance);
		else
			printf("as predicted (measured %.2fx the prediction; the lesson accepts %.2fx to %.2fx).\n\n",
			    ratio, 1 / c->tolerance, c->tolerance);
		return true;
	}
	printf("NOT as predicted (%.2fx): ", ratio);
	double others, steal;
	machine_meanwhile(w, &others, &steal);
	const char *sep = "";
	if (c->own_reason != NULL) {
		printf("%s", c->own_reason);
		sep = "; ";
	}
	if (c->threads > m->cpus) {
		printf("%stoo few CPUs: the measurement needs %d threads running at once, this process may use "
		    "%d CPU%s", sep, c->threads, m->cpus, m->cpus > 1 ? "s" : "");
		sep = "; ";
	}
	if (others > 0.25) {
		printf("%sanother process running: other processes kept %.1f of the machine's CPUs busy while it "
		    "measured", sep, others);
		sep = "; ";
	}
	if (steal > 0.02) {
		printf("%sthe hypervisor took %.0f%% of the CPU time (steal)", sep, 100 * steal);
		sep = "; ";
	}
	if (*sep == '\0')
		printf("no cause detected on this machine (%d CPUs free of other work, no steal): the "
		    "prediction's model leaves out something this machine does", m->cpus);
	printf(".\n\n");
	return false;
}

bool
ex_check_cycles(const ex_machine *m, const char *what, double ns_per_op)
{
	if (m->cycle_ns > 0 && ns_per_op < m->cycle_ns) {
		fprintf(stderr, "ERROR of the lesson: %s measured %.3f ns, below one cycle (%.3f ns): the compiler "
		    "removed or hoisted the work of the timed loop, which no program would run; this is not a "
		    "result\n", what, ns_per_op, m->cycle_ns);
		return false;
	}
	return true;
}
