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
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if !defined(__SANITIZE_THREAD__)
/* ThreadSanitizer cannot see ck_pr's inline assembly: no ck rows under TSan. */
#define PERF_HAVE_CK 1
#include <ck_ring.h>
#endif

#include "bench_util.h"
#include "sr_processor.h"
#include "sr_ring.h"
#include "sr_sequencer.h"

/* ------------------------------------------------------------------ names */

static const char *const topo_names[TOPO_COUNT] = {
	[TOPO_1_1] = "1-1",
	[TOPO_1_1_BATCH] = "1-1-batch",
	[TOPO_PIPELINE] = "1-3-pipeline",
	[TOPO_MULTICAST] = "1-3-multicast",
	[TOPO_3_1] = "3-1",
	[TOPO_DIAMOND] = "1-3-diamond",
};

static const char *const impl_names[IMPL_COUNT] = {
	[IMPL_SEQRING] = "seqring",
	[IMPL_CK_SPSC] = "ck_ring_spsc",
	[IMPL_CK_MPMC] = "ck_ring_mpmc",
	[IMPL_MUTEX] = "mutex_condvar",
	[IMPL_CEILING] = "ceiling",
};

const char *
topo_name(enum topo_kind t)
{
	return (unsigned)t < TOPO_COUNT ? topo_names[t] : "unknown";
}

bool
topo_from_name(const char *name, size_t len, enum topo_kind *out)
{
	for (int t = 0; t < TOPO_COUNT; t++) {
		if (strlen(topo_names[t]) == len && strncmp(topo_names[t], name, len) == 0) {
			*out = (enum topo_kind)t;
			return true;
		}
	}
	return false;
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
	return (unsigned)i < IMPL_COUNT ? impl_names[i] : "unknown";
}

bool
topo_supported(enum topo_kind t, enum impl_kind i)
{
	switch (i) {
	case IMPL_SEQRING:
		return true;
	case IMPL_CK_SPSC:
#ifdef PERF_HAVE_CK
		return t == TOPO_1_1;
#else
		return false;
#endif
	case IMPL_CK_MPMC:
#ifdef PERF_HAVE_CK
		return t == TOPO_1_1 || t == TOPO_3_1;
#else
		return false;
#endif
	case IMPL_MUTEX:
		return t == TOPO_1_1 || t == TOPO_3_1;
	case IMPL_CEILING:
		return t == TOPO_1_1;
	default:
		return false;
	}
}

const char *
variant_wait_label(const topo_variant *v)
{
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
		c->t_end = bench_now_ns();
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

/*
 * Threads that finish check in here, so the main thread can wait for them
 * with a deadline (a condition variable on CLOCK_MONOTONIC; pthread_join has
 * no timeout, and ThreadSanitizer does not see pthread_clockjoin_np).
 */
typedef struct finish_gate {
	pthread_mutex_t mutex;
	pthread_cond_t cond;
	int finished;
} finish_gate;

static void
gate_init(finish_gate *g)
{
	pthread_condattr_t attr;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&g->cond, &attr);
	pthread_condattr_destroy(&attr);
	pthread_mutex_init(&g->mutex, NULL);
	g->finished = 0;
}

static void
gate_destroy(finish_gate *g)
{
	pthread_cond_destroy(&g->cond);
	pthread_mutex_destroy(&g->mutex);
}

static void
gate_finish(finish_gate *g)
{
	pthread_mutex_lock(&g->mutex);
	g->finished++;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->mutex);
}

/* Waits until `count` threads have finished; false when deadline_ns (CLOCK_MONOTONIC) passes first. */
static bool
gate_wait(finish_gate *g, int count, int64_t deadline_ns)
{
	struct timespec ts = { (time_t)(deadline_ns / 1000000000), (long)(deadline_ns % 1000000000) };
	pthread_mutex_lock(&g->mutex);
	while (g->finished < count) {
		if (deadline_ns == INT64_MAX)
			pthread_cond_wait(&g->cond, &g->mutex);
		else if (pthread_cond_timedwait(&g->cond, &g->mutex, &ts) == ETIMEDOUT)
			break;
	}
	bool all = g->finished >= count;
	pthread_mutex_unlock(&g->mutex);
	return all;
}

typedef struct producer {
	_Alignas(128) sr_sequencer *sequencer;
	sr_ring *ring;
	enum topo_kind topo;
	int64_t count;              /* events this producer publishes */
	int64_t produced;           /* events it did publish (less when the run was capped) */
	int64_t t_start;
	pthread_barrier_t *gate;    /* multi-producer: start together */
	const atomic_int *stop;     /* the run's time cap passed: stop publishing */
	finish_gate *finished;      /* checked in when the producer is done */
} producer;

/*
 * Producers look at the stop flag once per STOP_CHECK_EVERY events (a
 * multiple of TOPO_BATCH), so the check costs nothing measurable.
 */
#define STOP_CHECK_EVERY 1000

static void *
seqring_producer(void *arg)
{
	producer *p = arg;
	sr_sequencer *s = p->sequencer;
	sr_ring *ring = p->ring;
	if (p->gate != NULL)
		pthread_barrier_wait(p->gate);
	p->t_start = bench_now_ns();
	const int64_t n = p->count;
	for (int64_t base = 0; base < n; base += STOP_CHECK_EVERY) {
		const int64_t end = base + STOP_CHECK_EVERY < n ? base + STOP_CHECK_EVERY : n;
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
		p->produced = end;
		if (atomic_load_explicit(p->stop, memory_order_relaxed))
			break;
	}
	gate_finish(p->finished);
	return NULL;
}

/*
 * Waits for a consumer's done flag without burning the CPU it needs; false
 * when deadline_ns passes first.
 */
static bool
wait_done(consumer *c, int64_t deadline_ns)
{
	int spins = 0;
	/* pairs with the store-release in finish_if_last */
	while (!atomic_load_explicit(&c->done, memory_order_acquire)) {
		if (++spins < 50) {
			sched_yield();
		} else {
			struct timespec ts = { 0, 20000 };
			nanosleep(&ts, NULL);
			if (bench_now_ns() >= deadline_ns)
				return false;
		}
	}
	return true;
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
	consumer *cons = NULL;
	producer *prods = NULL;
	pthread_t threads[3];
	pthread_barrier_t gate;
	bool gate_made = false;
	int started = 0;
	atomic_int stop;
	atomic_init(&stop, 0);
	finish_gate finished;
	gate_init(&finished);

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
	bool capped = !gate_wait(&finished, started, deadline_ns);
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
		t_end = bench_now_ns();
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
	if (cons != NULL) {
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
	gate_destroy(&finished);
	free(cons);
	free(prods);
	sr_sequencer_destroy(seq);
	sr_ring_destroy(ring);
	return rc;
}

/* ---------------------------------------------------------------- options */

/*
 * Splits a --wait list on commas; an item with '=' but no ':' continues the
 * previous spec ("sleep:spin=10,yield=5,busyspin" is two specs).
 */
int
perf_parse_waits(const char *list, sr_wait_config *out, int max, const char *prog)
{
	if (strcmp(list, "all") == 0) {
		int n = 0;
		for (int k = 0; k < SR_WAIT_KIND_COUNT && n < max; k++)
			sr_wait_config_default(&out[n++], (enum sr_wait_kind)k);
		return n;
	}
	char spec[256];
	int n = 0;
	spec[0] = '\0';
	const char *p = list;
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		bool continues = memchr(p, '=', len) != NULL && memchr(p, ':', len) == NULL && spec[0] != '\0';
		if (!continues && spec[0] != '\0') {
			sr_error e;
			if (n >= max || sr_wait_config_parse(spec, &out[n], &e) != SR_OK) {
				fprintf(stderr, "%s: --wait: %s\n", prog, n >= max ? "too many" : e.message);
				return -1;
			}
			n++;
			spec[0] = '\0';
		}
		size_t used = strlen(spec);
		if (used + len + 2 >= sizeof spec) {
			fprintf(stderr, "%s: --wait: spec too long\n", prog);
			return -1;
		}
		if (continues)
			spec[used++] = ',';
		memcpy(spec + used, p, len);
		spec[used + len] = '\0';
		if (comma == NULL)
			break;
		p = comma + 1;
	}
	if (spec[0] != '\0') {
		sr_error e;
		if (n >= max || sr_wait_config_parse(spec, &out[n], &e) != SR_OK) {
			fprintf(stderr, "%s: --wait: %s\n", prog, n >= max ? "too many" : e.message);
			return -1;
		}
		n++;
	}
	return n;
}

/* -------------------------------------------------------------- baselines */

/*
 * How the baselines wait (the consumer on an empty queue, the producer on a
 * full one): a pause hint per miss, sched_yield() after 100 misses in a row,
 * so that the over-subscribed 3-1 rows cannot starve the thread they wait for.
 */
static inline void
miss_wait(int *misses)
{
	if (*misses < 100) {
		(*misses)++;
		sr_atomic_pause();
	} else {
		sched_yield();
	}
}

/* A bounded FIFO behind one mutex, as java.util.concurrent.ArrayBlockingQueue. */
typedef struct mutex_queue {
	pthread_mutex_t mutex;
	pthread_cond_t not_empty;
	pthread_cond_t not_full;
	int64_t *items;
	int64_t capacity;
	int64_t mask;
	int64_t head;   /* next to take */
	int64_t tail;   /* next to put */
	bool closed;    /* no more puts: take returns false once empty */
} mutex_queue;

static void
mq_put(mutex_queue *q, int64_t v)
{
	pthread_mutex_lock(&q->mutex);
	while (q->tail - q->head == q->capacity)
		pthread_cond_wait(&q->not_full, &q->mutex);
	q->items[q->tail & q->mask] = v;
	q->tail++;
	pthread_cond_signal(&q->not_empty);
	pthread_mutex_unlock(&q->mutex);
}

static bool
mq_take(mutex_queue *q, int64_t *v)
{
	pthread_mutex_lock(&q->mutex);
	while (q->tail == q->head && !q->closed)
		pthread_cond_wait(&q->not_empty, &q->mutex);
	bool got = q->tail != q->head;
	if (got) {
		*v = q->items[q->head & q->mask];
		q->head++;
		pthread_cond_signal(&q->not_full);
	}
	pthread_mutex_unlock(&q->mutex);
	return got;
}

/* The ceiling: the least a ring must do, with both indices published every 64 items. */
typedef struct ceiling_ring {
	_Alignas(128) atomic_llong head;   /* written by the producer */
	_Alignas(128) atomic_llong tail;   /* written by the consumer */
	_Alignas(128) int64_t *items;
	int64_t size;
	int64_t mask;
} ceiling_ring;

typedef struct baseline {
	enum impl_kind impl;
	int64_t size;
#ifdef PERF_HAVE_CK
	struct ck_ring *ck;
	ck_ring_buffer_t *ck_buf;
#endif
	mutex_queue *mq;
	ceiling_ring *ceil;
	_Alignas(128) atomic_int stop;     /* producers: the time cap passed */
	atomic_int closed;                 /* consumer: every producer has finished */
	finish_gate producers_done;
	finish_gate consumer_done;
} baseline;

typedef struct bl_thread {
	_Alignas(128) baseline *b;
	int64_t count;
	int64_t produced;  /* producer */
	int64_t t_start;   /* producer */
	int64_t t_end;     /* consumer */
	int64_t acc;       /* consumer */
	pthread_barrier_t *gate;
} bl_thread;

static void *
bl_producer(void *arg)
{
	bl_thread *p = arg;
	baseline *b = p->b;
	const int64_t n = p->count;
	int misses = 0;
	if (p->gate != NULL)
		pthread_barrier_wait(p->gate);
	p->t_start = bench_now_ns();
	int64_t head = 0, cached_tail = 0;   /* ceiling only */
	for (int64_t base = 0; base < n; base += STOP_CHECK_EVERY) {
		const int64_t end = base + STOP_CHECK_EVERY < n ? base + STOP_CHECK_EVERY : n;
		switch (b->impl) {
#ifdef PERF_HAVE_CK
		case IMPL_CK_SPSC:
			for (int64_t i = base; i < end; i++) {
				misses = 0;
				while (!ck_ring_enqueue_spsc(b->ck, b->ck_buf, (void *)(uintptr_t)i))
					miss_wait(&misses);
			}
			break;
		case IMPL_CK_MPMC:
			for (int64_t i = base; i < end; i++) {
				misses = 0;
				while (!ck_ring_enqueue_mpmc(b->ck, b->ck_buf, (void *)(uintptr_t)i))
					miss_wait(&misses);
			}
			break;
#endif
		case IMPL_MUTEX:
			for (int64_t i = base; i < end; i++)
				mq_put(b->mq, i);
			break;
		case IMPL_CEILING: {
			ceiling_ring *r = b->ceil;
			for (int64_t i = base; i < end; i++) {
				if (head - cached_tail == r->size) {
					misses = 0;
					/* pairs with the consumer's store-release of tail */
					while (head - (cached_tail = atomic_load_explicit(&r->tail,
					    memory_order_acquire)) == r->size)
						miss_wait(&misses);
				}
				r->items[head & r->mask] = i;
				head++;
				if ((head & (TOPO_CEILING_PUBLISH - 1)) == 0)
					/* pairs with the consumer's load-acquire of head */
					atomic_store_explicit(&r->head, head, memory_order_release);
			}
			break;
		}
		default:
			break;
		}
		p->produced = end;
		if (atomic_load_explicit(&b->stop, memory_order_relaxed))
			break;
	}
	if (b->impl == IMPL_CEILING)
		/* the last partial group of 64; pairs with the consumer's load-acquire of head */
		atomic_store_explicit(&b->ceil->head, head, memory_order_release);
	gate_finish(&b->producers_done);
	return NULL;
}

/*
 * True once the queue is empty for good: `closed` (set after every producer
 * was joined) had been seen before the queue was last found empty.
 */
static inline bool
drained(baseline *b, bool *closed_seen)
{
	if (*closed_seen)
		return true;
	/* pairs with the store-release in run_baseline */
	*closed_seen = atomic_load_explicit(&b->closed, memory_order_acquire);
	return false;
}

static void *
bl_consumer(void *arg)
{
	bl_thread *c = arg;
	baseline *b = c->b;
	const int64_t n = c->count;
	int64_t acc = 0;
	int misses = 0;
	bool closed_seen = false;
	switch (b->impl) {
#ifdef PERF_HAVE_CK
	case IMPL_CK_SPSC:
		for (int64_t got = 0; got < n;) {
			void *item;
			if (ck_ring_dequeue_spsc(b->ck, b->ck_buf, &item)) {
				acc += (int64_t)(uintptr_t)item;
				got++;
				misses = 0;
			} else if (drained(b, &closed_seen)) {
				break;
			} else {
				miss_wait(&misses);
			}
		}
		break;
	case IMPL_CK_MPMC:
		for (int64_t got = 0; got < n;) {
			void *item;
			if (ck_ring_dequeue_mpmc(b->ck, b->ck_buf, &item)) {
				acc += (int64_t)(uintptr_t)item;
				got++;
				misses = 0;
			} else if (drained(b, &closed_seen)) {
				break;
			} else {
				miss_wait(&misses);
			}
		}
		break;
#endif
	case IMPL_MUTEX:
		for (int64_t got = 0; got < n; got++) {
			int64_t v;
			if (!mq_take(b->mq, &v))
				break;
			acc += v;
		}
		break;
	case IMPL_CEILING: {
		ceiling_ring *r = b->ceil;
		int64_t tail = 0;
		int64_t cached_head = 0;
		for (int64_t got = 0; got < n; got++) {
			if (tail == cached_head) {
				misses = 0;
				/* pairs with the producer's store-release of head */
				while ((cached_head = atomic_load_explicit(&r->head,
				    memory_order_acquire)) == tail) {
					if (drained(b, &closed_seen))
						goto done;
					miss_wait(&misses);
				}
			}
			acc += r->items[tail & r->mask];
			tail++;
			if ((tail & (TOPO_CEILING_PUBLISH - 1)) == 0)
				/* pairs with the producer's load-acquire of tail */
				atomic_store_explicit(&r->tail, tail, memory_order_release);
		}
	done:
		atomic_store_explicit(&r->tail, tail, memory_order_release);
		break;
	}
	default:
		break;
	}
	c->acc = acc;
	c->t_end = bench_now_ns();
	gate_finish(&b->consumer_done);
	return NULL;
}

/* Events the consumer has taken so far (for a capped run), read from the queue's own index. */
static int64_t
bl_consumed(baseline *b)
{
	switch (b->impl) {
#ifdef PERF_HAVE_CK
	case IMPL_CK_SPSC:
	case IMPL_CK_MPMC:
		return (int64_t)ck_pr_load_uint(&b->ck->c_head);
#endif
	case IMPL_MUTEX: {
		pthread_mutex_lock(&b->mq->mutex);
		int64_t h = b->mq->head;
		pthread_mutex_unlock(&b->mq->mutex);
		return h;
	}
	case IMPL_CEILING:
		/* published every 64 items */
		return atomic_load_explicit(&b->ceil->tail, memory_order_acquire);
	default:
		return 0;
	}
}

static int
run_baseline(const topo_variant *v, int64_t events, int64_t deadline_ns, topo_result *res,
    char *err, size_t errlen)
{
	const int nprod = topo_producers(v->topo);
	int rc = -1;
	baseline *b = aligned_alloc(128, (sizeof *b + 127) / 128 * 128);
	bl_thread *th = aligned_alloc(128, sizeof *th * 4);
	pthread_t tids[4];
	int started = 0;
	pthread_barrier_t gate;
	bool gate_made = false;
	if (th == NULL || b == NULL) {
		free(b);
		free(th);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memset(b, 0, sizeof *b);
	memset(th, 0, sizeof *th * 4);
	b->impl = v->impl;
	b->size = v->ring_size;
	atomic_init(&b->stop, 0);
	atomic_init(&b->closed, 0);
	gate_init(&b->producers_done);
	gate_init(&b->consumer_done);

	switch (v->impl) {
#ifdef PERF_HAVE_CK
	case IMPL_CK_SPSC:
	case IMPL_CK_MPMC:
		b->ck = aligned_alloc(128, (sizeof *b->ck + 127) / 128 * 128);
		b->ck_buf = aligned_alloc(128, ((size_t)v->ring_size * sizeof *b->ck_buf + 127) / 128 * 128);
		if (b->ck == NULL || b->ck_buf == NULL)
			goto nomem;
		memset(b->ck_buf, 0, (size_t)v->ring_size * sizeof *b->ck_buf);
		ck_ring_init(b->ck, (unsigned int)v->ring_size);
		break;
#endif
	case IMPL_MUTEX:
		b->mq = calloc(1, sizeof *b->mq);
		if (b->mq == NULL)
			goto nomem;
		b->mq->items = calloc((size_t)v->ring_size, sizeof(int64_t));
		if (b->mq->items == NULL)
			goto nomem;
		b->mq->capacity = v->ring_size;
		b->mq->mask = v->ring_size - 1;
		pthread_mutex_init(&b->mq->mutex, NULL);
		pthread_cond_init(&b->mq->not_empty, NULL);
		pthread_cond_init(&b->mq->not_full, NULL);
		break;
	case IMPL_CEILING:
		b->ceil = aligned_alloc(128, sizeof *b->ceil);
		if (b->ceil == NULL)
			goto nomem;
		memset(b->ceil, 0, sizeof *b->ceil);
		b->ceil->items = aligned_alloc(128, ((size_t)v->ring_size * sizeof(int64_t) + 127) / 128 * 128);
		if (b->ceil->items == NULL)
			goto nomem;
		memset(b->ceil->items, 0, (size_t)v->ring_size * sizeof(int64_t));
		b->ceil->size = v->ring_size;
		b->ceil->mask = v->ring_size - 1;
		atomic_init(&b->ceil->head, 0);
		atomic_init(&b->ceil->tail, 0);
		break;
	default:
		snprintf(err, errlen, "%s is not available in this build", impl_name(v->impl));
		goto out;
	}

	if (nprod > 1) {
		if (pthread_barrier_init(&gate, NULL, (unsigned)nprod) != 0) {
			snprintf(err, errlen, "pthread_barrier_init failed");
			goto out;
		}
		gate_made = true;
	}
	/* th[0] is the consumer, th[1..nprod] the producers. */
	th[0].b = b;
	th[0].count = events;
	if (pthread_create(&tids[0], NULL, bl_consumer, &th[0]) != 0) {
		snprintf(err, errlen, "pthread_create failed");
		goto out;
	}
	started = 1;
	for (int i = 1; i <= nprod; i++) {
		th[i].b = b;
		th[i].count = events / nprod;
		th[i].gate = gate_made ? &gate : NULL;
		if (pthread_create(&tids[i], NULL, bl_producer, &th[i]) != 0) {
			snprintf(err, errlen, "pthread_create failed");
			goto out;
		}
		started++;
	}
	bool capped = !gate_wait(&b->producers_done, started - 1, deadline_ns) ||
	    !gate_wait(&b->consumer_done, 1, deadline_ns);
	int64_t t_cap = 0, consumed = events;
	if (capped) {
		t_cap = bench_now_ns();
		consumed = bl_consumed(b);
		atomic_store_explicit(&b->stop, 1, memory_order_relaxed);
	}
	for (int i = 1; i < started; i++)
		pthread_join(tids[i], NULL);
	/* pairs with the load-acquire in drained(): every item is in the queue by now */
	atomic_store_explicit(&b->closed, 1, memory_order_release);
	if (b->mq != NULL) {
		pthread_mutex_lock(&b->mq->mutex);
		b->mq->closed = true;
		pthread_cond_broadcast(&b->mq->not_empty);
		pthread_mutex_unlock(&b->mq->mutex);
	}
	pthread_join(tids[0], NULL);
	started = 0;
	int64_t t_start = th[1].t_start;
	for (int i = 2; i <= nprod; i++)
		if (th[i].t_start < t_start)
			t_start = th[i].t_start;
	res->capped = capped;
	res->events = consumed;
	res->seconds = (double)((capped ? t_cap : th[0].t_end) - t_start) / 1e9;
	res->events_per_sec = res->seconds > 0 ? (double)consumed / res->seconds : 0.0;
	if (!capped) {
		expected x = compute_expected(v->topo, events);
		if (th[0].acc != x.sum) {
			snprintf(err, errlen, "%s %s: sum is %" PRId64 ", expected %" PRId64,
			    topo_name(v->topo), impl_name(v->impl), th[0].acc, x.sum);
			goto out;
		}
	}
	rc = 0;
	goto out;
nomem:
	snprintf(err, errlen, "out of memory");
out:
	if (started > 0) {
		/* A thread failed to start: the others may wait forever; leave them be. */
		for (int i = 0; i < started; i++)
			pthread_detach(tids[i]);
		return rc;
	}
	if (gate_made)
		pthread_barrier_destroy(&gate);
#ifdef PERF_HAVE_CK
	free(b->ck);
	free(b->ck_buf);
#endif
	if (b->mq != NULL) {
		if (b->mq->items != NULL) {
			pthread_mutex_destroy(&b->mq->mutex);
			pthread_cond_destroy(&b->mq->not_empty);
			pthread_cond_destroy(&b->mq->not_full);
		}
		free(b->mq->items);
		free(b->mq);
	}
	if (b->ceil != NULL)
		free(b->ceil->items);
	free(b->ceil);
	gate_destroy(&b->producers_done);
	gate_destroy(&b->consumer_done);
	free(b);
	free(th);
	return rc;
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
	int64_t deadline = timeout_s > 0 ? bench_now_ns() + (int64_t)(timeout_s * 1e9) : INT64_MAX;
	if (v->impl == IMPL_SEQRING)
		return run_seqring(v, events, deadline, res, err, errlen);
	return run_baseline(v, events, deadline, res, err, errlen);
}
