/* SPDX-License-Identifier: Apache-2.0 */
/*
 * topology.c: one measured run of a ring topology (see topology.h).
 *
 * What is timed: from the first producer's first claim (each producer reads
 * the clock just before its loop; the earliest counts) to the moment the last
 * consumer handles the last event (its handler reads the clock there).  Thread
 * creation, ring allocation, processor start, halt, join and the result check
 * are outside that span.
 *
 * Handlers follow the Disruptor's performance tests: 1-1 and 3-1 add the
 * values up; multicast adds, subtracts and xors; the pipeline's stages
 * rewrite the event in place (+1, then x3) and the last one sums; the
 * diamond's two middle stages set a fizz and a buzz byte and the last stage
 * counts the events with both.  Every run checks the result, so a
 * benchmark that loses or reorders events fails instead of reporting a rate.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "topology.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline_queue.h"
#include "bench_threads.h"
#include <seqring/sr_backoff.h>
#include <seqring/sr_disruptor.h>
#include <seqring/sr_processor.h>
#include <seqring/sr_ring.h>
#include <seqring/sr_sequencer.h>
#include <seqring/sr_time.h>

/* ------------------------------------------------------------------ names */

static const char *const topo_names[TOPO_COUNT] = {
	[TOPO_1_1] = "1-1",
	[TOPO_1_1_BATCH] = "1-1-batch",
	[TOPO_PIPELINE] = "1-3-pipeline",
	[TOPO_MULTICAST] = "1-3-multicast",
	[TOPO_3_1] = "3-1",
	[TOPO_DIAMOND] = "1-3-diamond",
};

/* The baseline queue of a non-seqring implementation (the enums list them in the same order). */
static enum baseline_kind
baseline_of(enum impl_kind i)
{
	return (enum baseline_kind)(i - IMPL_CK_SPSC);
}

_Static_assert(IMPL_CK_SPSC + BASELINE_CK_MPMC == IMPL_CK_MPMC && IMPL_CK_SPSC + BASELINE_MUTEX == IMPL_MUTEX &&
    IMPL_CK_SPSC + BASELINE_CEILING == IMPL_CEILING && IMPL_CK_SPSC + BASELINE_COUNT == IMPL_COUNT,
    "impl_kind lists the baselines in baseline_kind's order");

const char *
topo_name(enum topo_kind t)
{
	return (unsigned)t < TOPO_COUNT ? topo_names[t] : "unknown";
}

int
topo_producers(enum topo_kind t)
{
	return t == TOPO_3_1 ? 3 : 1;
}

int
topo_consumers(enum topo_kind t)
{
	return (t == TOPO_1_1 || t == TOPO_1_1_BATCH || t == TOPO_3_1) ? 1 : 3;
}

int
topo_batch(enum topo_kind t)
{
	return t == TOPO_1_1_BATCH ? TOPO_BATCH : 1;
}

const char *
impl_name(enum impl_kind i)
{
	if (i == IMPL_SEQRING)
		return "seqring";
	return (unsigned)i < IMPL_COUNT ? baseline_name(baseline_of(i)) : "unknown";
}

bool
topo_supported(enum topo_kind t, enum impl_kind i)
{
	if (i == IMPL_SEQRING)
		return true;
	/* The baselines run the topologies of one queue: 1-1 and 3-1. */
	return (unsigned)i < IMPL_COUNT && (t == TOPO_1_1 || t == TOPO_3_1) &&
	    baseline_supports(baseline_of(i), topo_producers(t));
}

const char *
variant_wait_label(const topo_variant *v)
{
	static const char *const built[SR_WAIT_KIND_COUNT] = {
		"busyspin+builder", "yield+builder", "sleep+builder", "block+builder",
		"liteblock+builder", "timeout+builder", "phased+builder",
	};
	if (v->impl == IMPL_SEQRING && v->built && (unsigned)v->wait.kind < SR_WAIT_KIND_COUNT)
		return built[v->wait.kind];
	if (v->impl == IMPL_SEQRING)
		return sr_wait_kind_name(v->wait.kind);
	return impl_name(v->impl);
}

int64_t
topo_round_events(enum topo_kind t, int64_t events)
{
	int64_t unit = (int64_t)topo_producers(t) * topo_batch(t);
	if (events < unit)
		events = unit;
	return (events + unit - 1) / unit * unit;
}

/* ----------------------------------------------------------- expectations */

/* What the consumers must have computed after `events` events. */
typedef struct expected {
	int64_t sum;       /* 1-1, batch, 3-1 */
	int64_t xor_all;   /* multicast */
	int64_t pipeline;  /* sum of (v + 1) * 3 */
	int64_t fizzbuzz;  /* values divisible by 15 */
} expected;

static expected
compute_expected(enum topo_kind t, int64_t events)
{
	expected e;
	memset(&e, 0, sizeof e);
	int64_t producers = topo_producers(t);
	int64_t n = events / producers;    /* values 0 .. n-1 from each producer */
	e.sum = producers * (n * (n - 1) / 2);
	/* xor of 0..n-1: a closed form over n-1 mod 4 */
	int64_t m = n - 1;
	switch (m & 3) {
	case 0: e.xor_all = m; break;
	case 1: e.xor_all = 1; break;
	case 2: e.xor_all = m + 1; break;
	default: e.xor_all = 0; break;
	}
	e.pipeline = 3 * (n * (n + 1) / 2);
	e.fizzbuzz = (n + 14) / 15;
	return e;
}

/* --------------------------------------------------------- seqring rings */

/* The diamond's 8-byte event: the two middle stages write different bytes. */
typedef struct fb_event {
	uint32_t value;
	uint8_t fizz;
	uint8_t buzz;
	uint16_t pad;
} fb_event;

_Static_assert(sizeof(fb_event) == 8, "events are 8 bytes");

/* One consumer's state, alone on its cache lines (its handler writes acc per event). */
typedef struct consumer {
	_Alignas(128) int64_t acc;
	int64_t last;           /* the sequence of the last event */
	int64_t t_end;          /* written before done is released */
	atomic_int done;
	sr_processor *proc;
} consumer;

static inline int
finish_if_last(consumer *c, int64_t sequence)
{
	if (sequence == c->last) {
		c->t_end = sr_monotonic_ns();
		/* pairs with the load-acquire in wait_done */
		atomic_store_explicit(&c->done, 1, memory_order_release);
	}
	return 0;
}

static int
h_add(void *ctx, void *slot, int64_t sequence, bool end_of_batch)
{
	(void)end_of_batch;
	consumer *c = ctx;
	c->acc += *(const int64_t *)slot;
	return finish_if_last(c, sequence);
}

static int
h_sub(void *ctx, void *slot, int64_t sequence, bool end_of_batch)
{
	(void)end_of_batch;
	consumer *c = ctx;
	c->acc -= *(const int64_t *)slot;
	return finish_if_last(c, sequence);
}

static int
h_xor(void *ctx, void *slot, int64_t sequence, bool end_of_batch)
{
	(void)end_of_batch;
	consumer *c = ctx;
	c->acc ^= *(const int64_t *)slot;
	return finish_if_last(c, sequence);
}

static int
h_stage_plus1(void *ctx, void *slot, int64_t sequence, bool end_of_batch)
{
	(void)end_of_batch;
	int64_t *v = slot;
	*v += 1;
	return finish_if_last(ctx, sequence);
}

static int
h_stage_times3(void *ctx, void *slot, int64_t sequence, bool end_of_batch)
{
	(void)end_of_batch;
	int64_t *v = slot;
	*v *= 3;
	return finish_if_last(ctx, sequence);
}

static int
h_fizz(void *ctx, void *slot, int64_t sequence, bool end_of_batch)
{
	(void)end_of_batch;
	fb_event *e = slot;
	e->fizz = e->value % 3 == 0;
	return finish_if_last(ctx, sequence);
}

static int
h_buzz(void *ctx, void *slot, int64_t sequence, bool end_of_batch)
{
	(void)end_of_batch;
	fb_event *e = slot;
	e->buzz = e->value % 5 == 0;
	return finish_if_last(ctx, sequence);
}

static int
h_fizzbuzz(void *ctx, void *slot, int64_t sequence, bool end_of_batch)
{
	(void)end_of_batch;
	consumer *c = ctx;
	const fb_event *e = slot;
	if (e->fizz && e->buzz)
		c->acc++;
	return finish_if_last(c, sequence);
}

typedef struct producer {
	_Alignas(128) sr_sequencer *sequencer;
	sr_ring *ring;
	enum topo_kind topo;
	int64_t count;              /* events this producer publishes */
	int64_t t_start;
	pthread_barrier_t *gate;    /* multi-producer: start together */
	const atomic_int *stop;     /* the run's time cap passed: stop publishing */
	bench_finish_gate *finished;      /* checked in when the producer is done */
} producer;

_Static_assert(BENCH_STOP_CHECK_EVERY % TOPO_BATCH == 0, "a stop check falls between batches");

static void *
seqring_producer(void *arg)
{
	producer *p = arg;
	sr_sequencer *s = p->sequencer;
	sr_ring *ring = p->ring;
	if (p->gate != NULL)
		pthread_barrier_wait(p->gate);
	p->t_start = sr_monotonic_ns();
	const int64_t n = p->count;
	for (int64_t base = 0; base < n; base += BENCH_STOP_CHECK_EVERY) {
		const int64_t end = base + BENCH_STOP_CHECK_EVERY < n ? base + BENCH_STOP_CHECK_EVERY : n;
		if (p->topo == TOPO_1_1_BATCH) {
			for (int64_t i = base; i < end; i += TOPO_BATCH) {
				int64_t first;
				sr_sequencer_claim_n(s, TOPO_BATCH, &first);
				for (int64_t k = 0; k < TOPO_BATCH; k++)
					*(int64_t *)sr_ring_slot(ring, first + k) = i + k;
				sr_sequencer_publish_range(s, first, first + TOPO_BATCH - 1);
			}
		} else if (p->topo == TOPO_DIAMOND) {
			for (int64_t i = base; i < end; i++) {
				int64_t seq;
				sr_sequencer_claim(s, &seq);
				fb_event *e = sr_ring_slot(ring, seq);
				e->value = (uint32_t)i;
				e->fizz = 0;
				e->buzz = 0;
				e->pad = 0;
				sr_sequencer_publish(s, seq);
			}
		} else {
			for (int64_t i = base; i < end; i++) {
				int64_t seq;
				sr_sequencer_claim(s, &seq);
				*(int64_t *)sr_ring_slot(ring, seq) = i;
				sr_sequencer_publish(s, seq);
			}
		}
		if (atomic_load_explicit(p->stop, memory_order_relaxed))
			break;
	}
	bench_finish_gate_arrive(p->finished);
	return NULL;
}

/*
 * Waits for a consumer's done flag without burning the CPU it needs; false
 * when deadline_ns passes first.
 */
static bool
wait_done(consumer *c, int64_t deadline_ns)
{
	/* 49 yields, then 20 us naps, the deadline checked after each */
	static const sr_backoff_ladder ladder = { 0, 49, 20000, false, false };
	sr_backoff b = SR_BACKOFF_INIT;
	/* pairs with the store-release in finish_if_last */
	while (!atomic_load_explicit(&c->done, memory_order_acquire)) {
		sr_backoff_step(&b, &ladder);
		if (sr_monotonic_ns() >= deadline_ns)
			return false;
	}
	return true;
}

/*
 * The same graphs as the hand-wired ones below, from the builder: stage i
 * is cons[i], running fns[i].  Multicast: three in parallel; pipeline: a
 * chain of three; diamond: two in parallel, then one after both.
 */
static int
wire_with_builder(sr_disruptor *graph, enum topo_kind t, consumer *cons,
    int (*const *fns)(void *, void *, int64_t, bool), int ncons, sr_error *e)
{
	sr_handler h[3];
	for (int i = 0; i < ncons; i++)
		h[i] = (sr_handler){ .ctx = &cons[i], .on_event = fns[i] };
	sr_group g;
	switch (t) {
	case TOPO_PIPELINE:
		g = sr_disruptor_handle_events_with(graph, &h[0], 1, e);
		g = sr_group_then(sr_group_then(g, &h[1], 1, e), &h[2], 1, e);
		break;
	case TOPO_DIAMOND:
		g = sr_group_then(sr_disruptor_handle_events_with(graph, &h[0], 2, e), &h[2], 1, e);
		break;
	default: /* one consumer, or multicast's three in parallel */
		g = sr_disruptor_handle_events_with(graph, h, ncons, e);
		break;
	}
	if (g.status != SR_OK)
		return g.status;
	for (int i = 0; i < ncons; i++)
		cons[i].proc = sr_disruptor_processor(graph, i);
	return sr_disruptor_start(graph, e);
}

static int
run_seqring(const topo_variant *v, int64_t events, int64_t deadline_ns, topo_result *res,
    char *err, size_t errlen)
{
	const enum topo_kind t = v->topo;
	const int nprod = topo_producers(t);
	const int ncons = topo_consumers(t);
	int rc = -1;
	sr_error e;
	sr_error_clear(&e);
	sr_ring *ring = NULL;
	sr_sequencer *seq = NULL;
	sr_disruptor *graph = NULL;  /* v->built: owns ring, seq and the processors */
	consumer *cons = NULL;
	producer *prods = NULL;
	pthread_t threads[3];
	pthread_barrier_t gate;
	bool gate_made = false;
	int started = 0;
	atomic_int stop;
	atomic_init(&stop, 0);
	bench_finish_gate finished;
	bench_finish_gate_init(&finished);

	if (v->built) {
		/* The ring and its sequencer are the builder's, made from one config. */
		sr_disruptor_config dc;
		sr_disruptor_config_default(&dc, v->ring_size, 8,
		    nprod > 1 ? SR_PRODUCER_MULTI : SR_PRODUCER_SINGLE);
		dc.wait = v->wait;
		dc.max_batch_size = v->max_batch;
		if ((graph = sr_disruptor_create(&dc, &e)) == NULL)
			goto fail_sr;
		ring = sr_disruptor_ring(graph);
		seq = sr_disruptor_sequencer(graph);
	} else {
		ring = sr_ring_create(v->ring_size, 8, NULL, NULL, &e);
		if (ring == NULL)
			goto fail_sr;
		sr_sequencer_config sc;
		sr_sequencer_config_default(&sc, v->ring_size,
		    nprod > 1 ? SR_PRODUCER_MULTI : SR_PRODUCER_SINGLE);
		sc.wait = v->wait;
		seq = sr_sequencer_create(&sc, &e);
		if (seq == NULL)
			goto fail_sr;
	}

	cons = aligned_alloc(128, sizeof *cons * 3);
	prods = aligned_alloc(128, sizeof *prods * 3);
	if (cons == NULL || prods == NULL) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	memset(cons, 0, sizeof *cons * 3);
	memset(prods, 0, sizeof *prods * 3);
	for (int i = 0; i < 3; i++) {
		cons[i].last = events - 1;   /* sequences start at 0 */
		atomic_init(&cons[i].done, 0);
	}

	/* Consumer graph. */
	typedef int (*handler_fn)(void *, void *, int64_t, bool);
	handler_fn fns[3] = { h_add, NULL, NULL };
	const sr_sequence *deps[3][2];
	int ndeps[3] = { 0, 0, 0 };
	bool gating[3] = { true, false, false };
	int final_idx[3] = { 0, -1, -1 };
	switch (t) {
	case TOPO_1_1:
	case TOPO_1_1_BATCH:
	case TOPO_3_1:
		break;
	case TOPO_MULTICAST:
		fns[0] = h_add; fns[1] = h_sub; fns[2] = h_xor;
		gating[1] = gating[2] = true;
		final_idx[1] = 1; final_idx[2] = 2;
		break;
	case TOPO_PIPELINE:
		fns[0] = h_stage_plus1; fns[1] = h_stage_times3; fns[2] = h_add;
		gating[0] = false; gating[2] = true;
		final_idx[0] = 2;
		break;
	case TOPO_DIAMOND:
		fns[0] = h_fizz; fns[1] = h_buzz; fns[2] = h_fizzbuzz;
		gating[0] = false; gating[2] = true;
		final_idx[0] = 2;
		break;
	default:
		snprintf(err, errlen, "unknown topology %d", (int)t);
		goto out;
	}
	if (v->built) {
		if (wire_with_builder(graph, t, cons, fns, ncons, &e) != SR_OK)
			goto fail_sr;
	} else {
		for (int i = 0; i < ncons; i++) {
			/* dependents are wired after creation: they need the upstream processors */
			if (t == TOPO_PIPELINE && i > 0) {
				deps[i][0] = sr_processor_sequence(cons[i - 1].proc);
				ndeps[i] = 1;
			} else if (t == TOPO_DIAMOND && i == 2) {
				deps[i][0] = sr_processor_sequence(cons[0].proc);
				deps[i][1] = sr_processor_sequence(cons[1].proc);
				ndeps[i] = 2;
			}
			sr_processor_config pc;
			memset(&pc, 0, sizeof pc);
			pc.ring = ring;
			pc.sequencer = seq;
			pc.dependents = ndeps[i] ? deps[i] : NULL;
			pc.dependent_count = ndeps[i];
			pc.handler.ctx = &cons[i];
			pc.handler.on_event = fns[i];
			pc.max_batch_size = v->max_batch;
			cons[i].proc = sr_processor_create(&pc, &e);
			if (cons[i].proc == NULL)
				goto fail_sr;
			if (gating[i] && sr_sequencer_add_gating(seq, sr_processor_sequence(cons[i].proc)) != SR_OK) {
				snprintf(err, errlen, "cannot add a gating sequence");
				goto out;
			}
		}
		for (int i = 0; i < ncons; i++) {
			if (sr_processor_start(cons[i].proc, &e) != SR_OK)
				goto fail_sr;
		}
	}

	if (nprod > 1) {
		if (pthread_barrier_init(&gate, NULL, (unsigned)nprod) != 0) {
			snprintf(err, errlen, "pthread_barrier_init failed");
			goto out;
		}
		gate_made = true;
	}
	for (int i = 0; i < nprod; i++) {
		prods[i].sequencer = seq;
		prods[i].ring = ring;
		prods[i].topo = t;
		prods[i].count = events / nprod;
		prods[i].gate = gate_made ? &gate : NULL;
		prods[i].stop = &stop;
		prods[i].finished = &finished;
		if (pthread_create(&threads[i], NULL, seqring_producer, &prods[i]) != 0) {
			snprintf(err, errlen, "pthread_create failed");
			goto out;
		}
		started++;
	}
	/* The run ends when the last final consumer handles the last event, or at the cap. */
	bool capped = !bench_finish_gate_wait(&finished, started, deadline_ns);
	int64_t t_end = 0;
	for (int i = 0; i < 3 && !capped; i++) {
		if (final_idx[i] < 0)
			continue;
		consumer *c = &cons[final_idx[i]];
		if (!wait_done(c, deadline_ns)) {
			capped = true;
			break;
		}
		if (c->t_end > t_end)
			t_end = c->t_end;
	}
	int64_t handled = events;
	if (capped) {
		/* Count what the final consumers have handled by now, then stop the producers. */
		t_end = sr_monotonic_ns();
		handled = INT64_MAX;
		for (int i = 0; i < 3; i++) {
			if (final_idx[i] < 0)
				continue;
			int64_t h = sr_sequence_get(sr_processor_sequence(cons[final_idx[i]].proc)) + 1;
			if (h < handled)
				handled = h;
		}
		atomic_store_explicit(&stop, 1, memory_order_relaxed);
	}
	for (int i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	started = 0;
	int64_t t_start = prods[0].t_start;
	for (int i = 1; i < nprod; i++)
		if (prods[i].t_start < t_start)
			t_start = prods[i].t_start;
	res->capped = capped;
	res->events = handled;
	res->seconds = (double)(t_end - t_start) / 1e9;
	res->events_per_sec = res->seconds > 0 ? (double)handled / res->seconds : 0.0;
	if (capped) {
		rc = 0;   /* a capped run handled only part of the events: nothing to check */
		goto out;
	}

	/* Check what the consumers computed. */
	expected x = compute_expected(t, events);
	int64_t got = 0, want = 0;
	const char *what = NULL;
	switch (t) {
	case TOPO_MULTICAST:
		if (cons[0].acc != x.sum) { what = "sum"; got = cons[0].acc; want = x.sum; }
		else if (cons[1].acc != -x.sum) { what = "negated sum"; got = cons[1].acc; want = -x.sum; }
		else if (cons[2].acc != x.xor_all) { what = "xor"; got = cons[2].acc; want = x.xor_all; }
		break;
	case TOPO_PIPELINE:
		if (cons[2].acc != x.pipeline) { what = "pipeline sum"; got = cons[2].acc; want = x.pipeline; }
		break;
	case TOPO_DIAMOND:
		if (cons[2].acc != x.fizzbuzz) { what = "fizzbuzz count"; got = cons[2].acc; want = x.fizzbuzz; }
		break;
	default:
		if (cons[0].acc != x.sum) { what = "sum"; got = cons[0].acc; want = x.sum; }
		break;
	}
	if (what != NULL) {
		snprintf(err, errlen, "%s %s/%s: %s is %" PRId64 ", expected %" PRId64,
		    topo_name(t), variant_wait_label(v), "check", what, got, want);
		goto out;
	}
	rc = 0;
	goto out;

fail_sr:
	snprintf(err, errlen, "%s", e.message[0] ? e.message : "setup failed");
out:
	for (int i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	if (graph != NULL) {
		sr_disruptor_destroy(graph); /* halts and joins the stages, frees ring and seq */
		ring = NULL;
		seq = NULL;
	} else if (cons != NULL) {
		for (int i = 0; i < ncons; i++)
			if (cons[i].proc != NULL)
				sr_processor_halt(cons[i].proc);
		/* all joined before any is freed: downstream consumers read upstream sequences */
		for (int i = 0; i < ncons; i++)
			if (cons[i].proc != NULL)
				sr_processor_join(cons[i].proc);
		for (int i = 0; i < ncons; i++)
			sr_processor_destroy(cons[i].proc);
	}
	if (gate_made)
		pthread_barrier_destroy(&gate);
	bench_finish_gate_destroy(&finished);
	free(cons);
	free(prods);
	sr_sequencer_destroy(seq);
	sr_ring_destroy(ring);
	return rc;
}

/* -------------------------------------------------------------- baselines */

static int
run_baseline(const topo_variant *v, int64_t events, int64_t deadline_ns, topo_result *res,
    char *err, size_t errlen)
{
	baseline_result b;
	if (baseline_run(baseline_of(v->impl), topo_producers(v->topo), events, v->ring_size, deadline_ns,
	    &b, err, errlen) != 0)
		return -1;
	res->capped = b.capped;
	res->events = b.consumed;
	res->seconds = b.seconds;
	res->events_per_sec = res->seconds > 0 ? (double)b.consumed / res->seconds : 0.0;
	if (!b.capped) {
		expected x = compute_expected(v->topo, events);
		if (b.sum != x.sum) {
			snprintf(err, errlen, "%s %s: sum is %" PRId64 ", expected %" PRId64,
			    topo_name(v->topo), impl_name(v->impl), b.sum, x.sum);
			return -1;
		}
	}
	return 0;
}

int
topo_run(const topo_variant *v, int64_t events, double timeout_s, topo_result *res,
    char *err, size_t errlen)
{
	if (err != NULL && errlen > 0)
		err[0] = '\0';
	memset(res, 0, sizeof *res);
	if (!topo_supported(v->topo, v->impl)) {
		snprintf(err, errlen, "%s has no %s variant", topo_name(v->topo), impl_name(v->impl));
		return -1;
	}
	if (events != topo_round_events(v->topo, events)) {
		snprintf(err, errlen, "%" PRId64 " events is not a multiple of producers x batch", events);
		return -1;
	}
	int64_t deadline = timeout_s > 0 ? sr_monotonic_ns() + (int64_t)(timeout_s * 1e9) : INT64_MAX;
	if (v->impl == IMPL_SEQRING)
		return run_seqring(v, events, deadline, res, err, errlen);
	return run_baseline(v, events, deadline, res, err, errlen);
}
