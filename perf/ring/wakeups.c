/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wakeups.c (wakeup_perf): what a wait strategy costs in context switches,
 * a count that load on the machine changes far less than it changes time.
 *
 * One graph built by sr_disruptor (one consumer), P producers publishing
 * with sr_disruptor_publish_event; each thread reads its own getrusage
 * (RUSAGE_THREAD) at its end.  Per million events, the medians of R
 * interleaved rounds: the consumer's voluntary switches (each one a sleep
 * in the strategy, so a futex wait and a wake paid by a publisher), the
 * producers' voluntary and involuntary switches (where the producers wait:
 * a full ring, the mutex of the block strategy, or preemption), and
 * events/s for reference only.
 *
 * Run: wakeup_perf [--wait LIST] [--producers 1,3] [--events N] [--runs R] [--quick]
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "bench_stats.h"
#include <seqring/sr_disruptor.h>

#define MAX_ROUNDS 32

typedef struct run_result {
	double consumer_voluntary, producer_voluntary, producer_involuntary, events_per_sec;
} run_result;

typedef struct producer {
	sr_disruptor *d;
	int64_t events;
	struct rusage usage;
} producer;

static int
on_event(void *ctx, void *slot, int64_t sequence, bool end_of_batch)
{
	(void)ctx, (void)slot, (void)sequence, (void)end_of_batch;
	return 0;
}

static void
on_shutdown(void *ctx)
{
	getrusage(RUSAGE_THREAD, ctx); /* the consumer's own thread */
}

static int
write_sequence(void *ctx, void *slot, int64_t sequence, int64_t index)
{
	(void)ctx, (void)index;
	memcpy(slot, &sequence, sizeof sequence);
	return 0;
}

static void *
produce(void *arg)
{
	producer *p = arg;
	for (int64_t i = 0; i < p->events; i++)
		sr_disruptor_publish_event(p->d, write_sequence, NULL);
	getrusage(RUSAGE_THREAD, &p->usage);
	return NULL;
}

static int
run_once(const sr_wait_config *wait, int producers, int64_t events, run_result *r)
{
	sr_disruptor_config c;
	sr_disruptor_config_default(&c, 65536, 8, producers > 1 ? SR_PRODUCER_MULTI : SR_PRODUCER_SINGLE);
	c.wait = *wait;
	sr_error err;
	struct rusage consumer;
	memset(&consumer, 0, sizeof consumer);
	sr_disruptor *d = sr_disruptor_create(&c, &err);
	sr_group g = sr_disruptor_handle_events_with(d, &(sr_handler){ .ctx = &consumer,
	    .on_event = on_event, .on_shutdown = on_shutdown }, 1, &err);
	if (d == NULL || g.status != SR_OK || sr_disruptor_start(d, &err) != SR_OK) {
		fprintf(stderr, "wakeup_perf: %s\n", err.message);
		sr_disruptor_destroy(d);
		return -1;
	}
	producer p[8];
	pthread_t t[8];
	int64_t t0 = sr_monotonic_ns();
	for (int i = 0; i < producers; i++) {
		p[i] = (producer){ .d = d, .events = events / producers };
		pthread_create(&t[i], NULL, produce, &p[i]);
	}
	for (int i = 0; i < producers; i++)
		pthread_join(t[i], NULL);
	int rc = sr_disruptor_shutdown(d, INT64_MAX, NULL, &err);
	double seconds = (double)(sr_monotonic_ns() - t0) / 1e9;
	sr_disruptor_destroy(d); /* the consumer's on_shutdown ran in the shutdown */
	double m = (double)events / 1e6;
	memset(r, 0, sizeof *r);
	r->consumer_voluntary = (double)consumer.ru_nvcsw / m;
	for (int i = 0; i < producers; i++) {
		r->producer_voluntary += (double)p[i].usage.ru_nvcsw / m;
		r->producer_involuntary += (double)p[i].usage.ru_nivcsw / m;
	}
	r->events_per_sec = (double)events / seconds;
	return rc == SR_OK ? 0 : -1;
}

int
main(int argc, char **argv)
{
	const char *waits = "block,timeout,liteblock";
	const char *counts = "1,3";
	int64_t events = 4000000;
	int rounds = 5;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--wait") == 0 && i + 1 < argc)
			waits = argv[++i];
		else if (strcmp(argv[i], "--producers") == 0 && i + 1 < argc)
			counts = argv[++i];
		else if (strcmp(argv[i], "--events") == 0 && i + 1 < argc)
			events = strtoll(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
			rounds = atoi(argv[++i]);
		else if (strcmp(argv[i], "--quick") == 0)
			events = 30000, rounds = 1;
		else {
			printf("usage: wakeup_perf [--wait LIST] [--producers 1,3] [--events N] [--runs R]"
			    " [--quick]\n");
			return strcmp(argv[i], "--help") == 0 ? 0 : 2;
		}
	}
	if (events < 24 || rounds < 1 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "wakeup_perf: --events %" PRId64 " or --runs %d out of range: expected at "
		    "least 24 events and 1 to %d runs\n", events, rounds, MAX_ROUNDS);
		return 2;
	}
	/* The rows: every strategy x every producer count, each run once per round. */
	struct row { sr_wait_config wait; char name[64]; int producers; double v[4][MAX_ROUNDS]; } rows[32];
	int nrows = 0;
	char wbuf[256];
	snprintf(wbuf, sizeof wbuf, "%s", waits);
	for (char *w = strtok(wbuf, ","); w != NULL && nrows < 32; w = strtok(NULL, ",")) {
		sr_wait_config wc;
		sr_error err;
		if (sr_wait_config_parse(w, &wc, &err) != SR_OK) {
			fprintf(stderr, "wakeup_perf: --wait: %s\n", err.message);
			return 2;
		}
		for (const char *p = counts; *p != '\0' && nrows < 32; p += strcspn(p, ",") + (p[strcspn(p, ",")] != '\0')) {
			int n = atoi(p);
			if (n < 1 || n > 8) {
				fprintf(stderr, "wakeup_perf: --producers %d: expected 1 to 8\n", n);
				return 2;
			}
			rows[nrows].wait = wc;
			snprintf(rows[nrows].name, sizeof rows[nrows].name, "%s", w);
			rows[nrows++].producers = n;
		}
	}
	for (int round = 0; round < rounds; round++) {
		for (int i = 0; i < nrows; i++) {
			run_result r;
			if (run_once(&rows[i].wait, rows[i].producers, events, &r) != 0)
				return 1;
			rows[i].v[0][round] = r.consumer_voluntary;
			rows[i].v[1][round] = r.producer_voluntary;
			rows[i].v[2][round] = r.producer_involuntary;
			rows[i].v[3][round] = r.events_per_sec;
		}
	}
	printf("### Context switches per million events (medians of %d interleaved runs of %" PRId64
	    " events)\n\n", rounds, events);
	printf("| wait | producers | consumer voluntary | producers voluntary | producers involuntary |"
	    " events/s (reference) |\n|---|--:|--:|--:|--:|--:|\n");
	for (int i = 0; i < nrows; i++)
		printf("| %s | %d | %.0f | %.0f | %.0f | %.1f M |\n", rows[i].name, rows[i].producers,
		    bench_median(rows[i].v[0], rounds), bench_median(rows[i].v[1], rounds),
		    bench_median(rows[i].v[2], rounds), bench_median(rows[i].v[3], rounds) / 1e6);
	return 0;
}
