/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eager_consumer.c: a consumer that keeps up too well slows its producer.
 * One producer claims a 128-byte slot of a multi-producer ring (as the
 * logger's shared ring does), copies a record of a log call's size into it
 * and publishes, in bursts of back-to-back calls; between bursts, untimed,
 * it waits for the consumer to finish.  Two consumers, both spinning on the
 * ring:
 *
 *   trailing  formats each record with snprintf into a buffer, as a logger's
 *             consumer does: slower than the producer, it falls behind
 *             within a burst and reads slots the producer is done with;
 *   eager     only reads each record: it runs right behind the producer, and
 *             every slot it reads, and the cursor it polls, are lines the
 *             producer writes next.
 *
 * The prediction: each eager call finds in the consumer's cache the lines
 * it must write: the cursor (claimed with a CAS), the availability flag and
 * the slot's two lines: 4 transfers, so the eager call costs the trailing
 * one plus 4 T, T measured at the start.  --same-cpu puts the producer and
 * the consumer on one CPU, where no line moves: the prediction then fails,
 * and the verdict says so.
 *
 * Flips the verdict: --same-cpu
 *
 * Run: eager_consumer [--quick] [--bursts N] [--same-cpu]
 */
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ex_flags.h"
#include "ex_machine.h"
#include "ex_verdict.h"
#include <seqring/sr_processor.h>

#define SLOTS 65536
#define SLOT_SIZE 128
#define RECORD 96      /* the logger's record for a call with three arguments: header and values */
#define BURST 1000
#define MAX_BURSTS 100000
#define LINES_PER_CALL 4

static int64_t bursts = 2000;

struct consumer {
	bool eager;
	uint64_t sum;      /* what the consumer read, so that it must read it */
	uint64_t events, batches;
	size_t used;
	char buf[65536];
};

static int
on_event(void *ctx, void *slot, int64_t sequence, bool end_of_batch)
{
	struct consumer *c = ctx;
	const unsigned char *p = slot;
	int64_t v;
	memcpy(&v, p + 8, sizeof v);
	if (c->eager) {
		c->sum += (uint64_t)v + p[RECORD - 1];
	} else {
		if (sizeof c->buf - c->used < 256)
			c->used = 0; /* a sink would write the buffer here */
		int n = snprintf(c->buf + c->used, sizeof c->buf - c->used, "x=%" PRId64 " y=%f s=%.16s\n", v,
		    (double)v * 0.5, (const char *)p + 24);
		c->used += n > 0 ? (size_t)n : 0;
		c->sum += (uint64_t)n;
	}
	c->events++;
	c->batches += end_of_batch;
	(void)sequence;
	return 0;
}

static double burst_ns[MAX_BURSTS];

/*
 * The median ns per call over the bursts, with the given consumer; its mean
 * batch in *mean_batch (right behind the producer, a few events; a consumer
 * that was not running meanwhile takes a whole burst at once).
 */
static double
run(bool eager, int64_t *out_sum, double *mean_batch)
{
	sr_error err = { 0 };
	sr_sequencer_config sc;
	sr_sequencer_config_default(&sc, SLOTS, SR_PRODUCER_MULTI);
	sr_wait_config_default(&sc.wait, SR_WAIT_BUSY_SPIN);
	sr_ring *ring = sr_ring_create(SLOTS, SLOT_SIZE, NULL, NULL, &err);
	sr_sequencer *seq = ring != NULL ? sr_sequencer_create(&sc, &err) : NULL;
	static struct consumer c;
	memset(&c, 0, sizeof c);
	c.eager = eager;
	sr_processor_config pc = { .ring = ring, .sequencer = seq,
		.handler = { .ctx = &c, .on_event = on_event } };
	sr_processor *p = seq != NULL ? sr_processor_create(&pc, &err) : NULL;
	if (p == NULL || sr_processor_start(p, &err) != SR_OK) {
		fprintf(stderr, "eager_consumer: %s\n", err.message);
		return -1;
	}
	sr_sequencer_add_gating(seq, sr_processor_sequence(p));
	unsigned char record[RECORD];
	memset(record, 'r', sizeof record);
	memcpy(record + 24, "0123456789abcdef", 16);
	int64_t v = 0, last = -1;
	for (int64_t b = 0; b < bursts; b++) {
		int64_t a = sr_monotonic_ns();
		for (int k = 0; k < BURST; k++, v++) {
			int64_t s;
			sr_sequencer_claim(seq, &s);
			unsigned char *slot = sr_ring_slot(ring, s);
			memcpy(slot, record, sizeof record);
			memcpy(slot + 8, &v, sizeof v);
			sr_sequencer_publish(seq, s);
			last = s;
		}
		burst_ns[b] = (double)(sr_monotonic_ns() - a) / BURST;
		/* Untimed: the consumer finishes, so that no burst finds the ring full. */
		while (sr_sequence_get(sr_processor_sequence(p)) < last)
			sched_yield();
	}
	sr_processor_drain_and_halt(p);
	sr_processor_join(p);
	*out_sum = (int64_t)c.sum;
	*mean_batch = c.batches > 0 ? (double)c.events / (double)c.batches : 0;
	sr_processor_destroy(p);
	sr_sequencer_destroy(seq);
	sr_ring_destroy(ring);
	return ex_median(burst_ns, (int)bursts);
}

static void
quick(void)
{
	bursts = 200;
}

int
main(int argc, char **argv)
{
	bool same_cpu = false;
	const ex_flag flags[] = {
		{ "--quick", EX_FLAG_ACTION, NULL, 0, 0, quick },
		{ "--bursts", EX_FLAG_INT64, &bursts, 10, MAX_BURSTS, NULL },
		{ "--same-cpu", EX_FLAG_SET, &same_cpu, 0, 0, NULL },
	};
	ex_flags_parse(argc, argv, "eager_consumer",
	    "[--quick] [--bursts N (10.." EX_STRINGIFY(MAX_BURSTS) ", of " EX_STRINGIFY(BURST) " calls)] "
	    "[--same-cpu (producer and consumer on one CPU)]", flags, sizeof flags / sizeof flags[0]);
	ex_machine m;
	ex_machine_measure(&m);
	/* This thread, and every thread it creates from now on, on one CPU. */
	if (same_cpu && !ex_run_on_one_cpu())
		return 1;
	ex_watch w;
	ex_watch_start(&w);
	int64_t sum_trailing, sum_eager;
	double trailing_batch, eager_batch;
	double trailing = run(false, &sum_trailing, &trailing_batch);
	if (trailing < 0)
		return 1;
	double predicted = ex_predict("ns per call with the eager consumer", trailing + LINES_PER_CALL * m.transfer_ns,
	    "ns", "the trailing consumer's call, %.1f ns (just measured), + %d T = %d x %.0f ns: the cursor, the "
	    "availability flag and the slot's two lines come back from the consumer's cache", trailing,
	    LINES_PER_CALL, LINES_PER_CALL, m.transfer_ns);
	double eager = run(true, &sum_eager, &eager_batch);
	if (eager < 0 || !ex_check_cycles(&m, "a call", trailing) || !ex_check_cycles(&m, "a call", eager))
		return 1;
	printf("| consumer | ns per call, median of %" PRId64 " bursts of %d | consumer's mean batch (events) |\n"
	    "|---|---:|---:|\n", bursts, BURST);
	printf("| trailing (formats each record) | %.1f | %.1f |\n| eager (only reads) | %.1f | %.1f |\n\n",
	    trailing, trailing_batch, eager, eager_batch);
	char reason[200] = "";
	if (same_cpu)
		snprintf(reason, sizeof reason, "producer and consumer ran on one CPU (--same-cpu): no line moved");
	else if (eager_batch > BURST / 4)
		snprintf(reason, sizeof reason, "the eager consumer was seldom running beside the producer: its "
		    "mean batch was %.0f events, where right behind it takes a few", eager_batch);
	ex_claim c = { .what = "ns per call with the eager consumer", .predicted = predicted, .measured = eager,
		.tolerance = 2, .threads = 2, .own_reason = reason[0] ? reason : NULL };
	ex_verdict(&m, &w, &c);
	printf("Measured: the eager consumer made each call %.2fx the trailing one's, %.0f ns more, %.1f T "
	    "(checksums %" PRId64 " and %" PRId64 ").\n", eager / trailing, eager - trailing,
	    m.transfer_ns > 0 ? (eager - trailing) / m.transfer_ns : 0, sum_trailing, sum_eager);
	return 0;
}
