/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wait_cost.c: every wait strategy buys latency with CPU, or CPU with
 * latency.  For each strategy: an occasional event (one every 2 ms, so the
 * consumer is idle in between) is timed from publish to handling (p50, p99),
 * then the consumer's CPU time is measured over an idle spell.  Waking a
 * thread that sleeps on another CPU takes tens of microseconds, and
 * nanosleep sleeps at least the timer slack (50 us by default on Linux)
 * whatever it is asked: that is where the latency of the economical
 * strategies comes from.
 *
 * The predictions, from the machine figures measured at the start: a
 * consumer that spins sees an event two cache-line transfers after it is
 * published (the cursor's line, then the slot's) plus a clock read: p50 =
 * 2 T + C; one that blocks sleeps in the kernel and pays a wake-up: p50 = W.
 * --same-cpu puts the producer and the consumer on one CPU: a spinning
 * consumer then sees the event only once the producer has gone to sleep and
 * the kernel has switched to it, and the first verdict says so.
 *
 * Flips the verdict: --same-cpu
 *
 * Run: wait_cost [--quick] [--events N] [--same-cpu]
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


#include "ex_flags.h"
#include "ex_machine.h"
#include "ex_verdict.h"
#include <seqring/sr_processor.h>

#define MAX_EVENTS 100000

struct latencies { int64_t n; int64_t ns[MAX_EVENTS]; };

static int
on_event(void *ctx, void *slot, int64_t sequence, bool end_of_batch)
{
	struct latencies *l = ctx;
	int64_t sent;
	memcpy(&sent, slot, sizeof sent);
	if (l->n < MAX_EVENTS)
		l->ns[l->n++] = sr_monotonic_ns() - sent;
	(void)sequence, (void)end_of_batch;
	return 0;
}

static int
by_value(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static int64_t
thread_cpu_ns(pthread_t t)
{
	clockid_t id;
	struct timespec ts;
	if (pthread_getcpuclockid(t, &id) != 0 || clock_gettime(id, &ts) != 0)
		return -1;
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t events = 300, idle_ms = 500;

static void
quick(void)
{
	events = 20;
	idle_ms = 50;
}

int
main(int argc, char **argv)
{
	const int64_t gap_us = 2000;
	bool same_cpu = false;
	const ex_flag flags[] = {
		{ "--quick", EX_FLAG_ACTION, NULL, 0, 0, quick },
		{ "--events", EX_FLAG_INT64, &events, 1, MAX_EVENTS, NULL },
		{ "--same-cpu", EX_FLAG_SET, &same_cpu, 0, 0, NULL },
	};
	ex_flags_parse(argc, argv, "wait_cost",
	    "[--quick] [--events N (1.." EX_STRINGIFY(MAX_EVENTS) ")] [--same-cpu (producer and consumer on one CPU)]",
	    flags, sizeof flags / sizeof flags[0]);
	ex_machine m;
	ex_machine_measure(&m);
	/* This thread, and every thread it creates from now on, on one CPU. */
	if (same_cpu && !ex_run_on_one_cpu())
		return 1;
	double spin_predicted = ex_predict("p50 latency of busyspin", (2 * m.transfer_ns + m.clock_ns) / 1e3, "us",
	    "2 T + C = 2 x %.0f ns + %.0f ns: the cursor's line and the slot's move to the spinning consumer, "
	    "which reads the clock", m.transfer_ns, m.clock_ns);
	double block_predicted = ex_predict("p50 latency of block", m.wake_ns / 1e3, "us",
	    "W = %.1f us: the consumer sleeps in the kernel and is woken", m.wake_ns / 1e3);
	ex_watch w;
	ex_watch_start(&w);
	double spin_p50 = 0, block_p50 = 0;
	static struct latencies lat;
	printf("| strategy | p50 latency (us) | p99 latency (us) | consumer CPU while idle (%%) |\n");
	printf("|---|---:|---:|---:|\n");
	double best_p50 = 1e30, worst_p50 = 0, most_cpu = 0, least_cpu = 1e30;
	for (int k = 0; k < SR_WAIT_KIND_COUNT; k++) {
		sr_error err;
		sr_sequencer_config sc;
		sr_sequencer_config_default(&sc, 1024, SR_PRODUCER_SINGLE);
		sr_wait_config_default(&sc.wait, (enum sr_wait_kind)k);
		sr_ring *ring = sr_ring_create(1024, 8, NULL, NULL, &err);
		sr_sequencer *seq = sr_sequencer_create(&sc, &err);
		lat.n = 0;
		sr_processor_config pc = { .ring = ring, .sequencer = seq,
		    .handler = { .ctx = &lat, .on_event = on_event } };
		sr_processor *p = sr_processor_create(&pc, &err);
		if (p == NULL || sr_processor_start(p, &err) != SR_OK) {
			fprintf(stderr, "wait_cost: %s\n", err.message);
			return 1;
		}
		sr_sequencer_add_gating(seq, sr_processor_sequence(p));
		for (int64_t i = 0; i < events; i++) {
			struct timespec gap = { 0, (long)gap_us * 1000 };
			nanosleep(&gap, NULL);
			int64_t s, now = sr_monotonic_ns();
			sr_sequencer_claim(seq, &s);
			memcpy(sr_ring_slot(ring, s), &now, sizeof now);
			sr_sequencer_publish(seq, s);
		}
		int64_t cpu0 = thread_cpu_ns(p->thread);
		struct timespec idle = { idle_ms / 1000, (long)(idle_ms % 1000) * 1000000 };
		nanosleep(&idle, NULL);
		double cpu = (double)(thread_cpu_ns(p->thread) - cpu0) / ((double)idle_ms * 1e4);
		sr_processor_drain_and_halt(p);
		sr_processor_join(p);
		qsort(lat.ns, (size_t)lat.n, sizeof lat.ns[0], by_value);
		double p50 = lat.n ? (double)lat.ns[lat.n / 2] / 1e3 : -1;
		double p99 = lat.n ? (double)lat.ns[(lat.n * 99) / 100] / 1e3 : -1;
		printf("| %s | %.1f | %.1f | %.0f |\n", sr_wait_kind_name((enum sr_wait_kind)k), p50, p99, cpu);
		if (k == SR_WAIT_BUSY_SPIN)
			spin_p50 = p50;
		if (k == SR_WAIT_BLOCK)
			block_p50 = p50;
		if (p50 < best_p50) best_p50 = p50;
		if (p50 > worst_p50) worst_p50 = p50;
		if (cpu > most_cpu) most_cpu = cpu;
		if (cpu < least_cpu) least_cpu = cpu;
		sr_processor_destroy(p);
		sr_sequencer_destroy(seq);
		sr_ring_destroy(ring);
	}
	printf("\n");
	const char *one_cpu = same_cpu ? "producer and consumer ran on one CPU (--same-cpu): the consumer ran only "
	    "once the producer slept" : NULL;
	ex_claim spin = { .what = "p50 latency of busyspin (us)", .predicted = spin_predicted, .measured = spin_p50,
		.tolerance = 2, .threads = 2, .own_reason = one_cpu };
	ex_verdict(&m, &w, &spin);
	ex_claim block = { .what = "p50 latency of block (us)", .predicted = block_predicted, .measured = block_p50,
		.tolerance = 2, .threads = 2 };
	ex_verdict(&m, &w, &block);
	printf("Measured: the fastest strategy answered in %.1f us at the median and the slowest in %.1f us; "
	    "idle consumers used between %.0f%% and %.0f%% of a core: latency or CPU, pick one.\n",
	    best_p50, worst_p50, least_cpu, most_cpu);
	return 0;
}
