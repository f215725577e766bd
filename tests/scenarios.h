/*
 * scenarios.h: the concurrent test scenarios of seqring, shared by the
 * Criterion tests (tests/test_*.c) and the plain stress programs
 * (tests/stress_*.c) that the ThreadSanitizer preset runs, since Criterion's
 * runner crashes under TSan.
 *
 * Each scenario is a static function that builds its ring, sequencer and
 * consumers, runs its threads, checks every event it delivers, tears
 * everything down and returns an sc_result: ok, the first failure's message,
 * and counts.  Scenarios never assert timings except generous bounds (a
 * watchdog that turns a hang into a failure, "an alert wakes within 100 ms"
 * in the caller); latencies are returned for the summary only.
 *
 * Threads other than the caller never call Criterion: they record failures
 * in an sc_check, and the caller asserts on the result.
 */
#ifndef SC_SCENARIOS_H
#define SC_SCENARIOS_H

#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sr_barrier.h"
#include "sr_error.h"
#include "sr_processor.h"
#include "sr_ring.h"
#include "sr_sequence.h"
#include "sr_sequencer.h"
#include "sr_wait.h"

#define SC_FN static __attribute__((unused))

/* ThreadSanitizer makes atomics and locks 5-20x slower: scale counts down. */
#if defined(__SANITIZE_THREAD__)
#define SC_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SC_TSAN 1
#endif
#endif
#ifndef SC_TSAN
#define SC_TSAN 0
#endif
#define SC_SCALE(plain, tsan) ((int64_t)(SC_TSAN ? (tsan) : (plain)))

#define SC_MS (INT64_C(1000000))
#define SC_S (INT64_C(1000000000))
/* A scenario that makes no progress for this long has hung (a bug). */
#define SC_WATCHDOG_NS (30 * SC_S)

/* Every wait strategy, by name, as the strategy tests iterate over them. */
static const char *const sc_strategies[] = {
	"busyspin", "yield", "sleep", "block", "liteblock", "timeout", "phased",
	"phased:fallback=block", "phased:fallback=timeout", "phased:fallback=sleep",
};
#define SC_STRATEGY_COUNT ((int)(sizeof sc_strategies / sizeof sc_strategies[0]))

typedef struct sc_result {
	bool ok;
	char message[512];      /* the first failure, empty when ok */
	int64_t events;         /* events delivered and checked */
	int64_t n[4];           /* scenario-specific counts, documented per scenario */
	int64_t max_latency_ns; /* wake-up and alert scenarios (reported, not asserted) */
	double seconds;
} sc_result;

/* First-failure recorder shared by a scenario's threads. */
typedef struct sc_check {
	atomic_int failed;
	pthread_mutex_t lock;
	char message[512];
} sc_check;

SC_FN void
sc_check_init(sc_check *c)
{
	atomic_init(&c->failed, 0);
	pthread_mutex_init(&c->lock, NULL);
	c->message[0] = '\0';
}

__attribute__((format(printf, 2, 3))) SC_FN void
sc_failf(sc_check *c, const char *fmt, ...)
{
	pthread_mutex_lock(&c->lock);
	if (atomic_load(&c->failed) == 0) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(c->message, sizeof c->message, fmt, ap);
		va_end(ap);
		atomic_store(&c->failed, 1);
	}
	pthread_mutex_unlock(&c->lock);
}

SC_FN bool
sc_failed(sc_check *c)
{
	return atomic_load(&c->failed) != 0;
}

/* Copies the verdict into r and releases the checker. */
SC_FN void
sc_check_finish(sc_check *c, sc_result *r)
{
	pthread_mutex_lock(&c->lock);
	r->ok = atomic_load(&c->failed) == 0;
	snprintf(r->message, sizeof r->message, "%s", c->message);
	pthread_mutex_unlock(&c->lock);
	pthread_mutex_destroy(&c->lock);
}

SC_FN void
sc_result_init(sc_result *r)
{
	memset(r, 0, sizeof *r);
	r->ok = true;
}

SC_FN int64_t
sc_now(void)
{
	return sr_monotonic_ns();
}

SC_FN void
sc_sleep_ns(int64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / SC_S), .tv_nsec = (long)(ns % SC_S) };
	while (nanosleep(&ts, &ts) != 0)
		;
}

/* xorshift64*: a small deterministic generator; seeds are printed on failure. */
SC_FN uint64_t
sc_rand(uint64_t *state)
{
	uint64_t x = *state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * UINT64_C(2685821657736338717);
}

/*
 * A hang cannot be cleaned up (threads stuck inside the library still use the
 * scenario's memory), so it ends the process with a clear message: Criterion
 * reports the test as crashed, a stress program exits non-zero.
 */
__attribute__((noreturn)) SC_FN void
sc_hung(const char *what)
{
	fprintf(stderr, "HUNG: %s (no progress for %lld s)\n", what,
	    (long long)(SC_WATCHDOG_NS / SC_S));
	fflush(stderr);
	_exit(3);
}

/* Busy work standing for a slow consumer. */
SC_FN void
sc_spin_ns(int64_t ns)
{
	if (ns <= 0)
		return;
	int64_t until = sc_now() + ns;
	while (sc_now() < until)
		sr_atomic_pause();
}

/* Parses a strategy spec that the caller knows is valid into *config. */
SC_FN bool
sc_parse_wait(sc_check *c, const char *spec, sr_wait_config *config)
{
	sr_error err;
	if (sr_wait_config_parse(spec, config, &err) != SR_OK) {
		sc_failf(c, "wait strategy '%s' does not parse: %s", spec, err.message);
		return false;
	}
	return true;
}

/* Creates a sequencer; on failure records why and returns NULL. */
SC_FN sr_sequencer *
sc_sequencer_cfg(sc_check *c, int64_t size, enum sr_producer_mode mode, const sr_wait_config *wait,
    bool synchronize, int64_t initial_sequence)
{
	sr_sequencer_config config;
	sr_sequencer_config_default(&config, size, mode);
	config.synchronize_enqueue_when_full = synchronize;
	config.initial_sequence = initial_sequence;
	config.wait = *wait;
	sr_error err;
	sr_sequencer *s = sr_sequencer_create(&config, &err);
	if (s == NULL)
		sc_failf(c, "sr_sequencer_create failed: %s", err.message);
	return s;
}

SC_FN sr_sequencer *
sc_sequencer(sc_check *c, int64_t size, enum sr_producer_mode mode, const char *wait_spec,
    bool synchronize, int64_t initial_sequence)
{
	sr_wait_config wait;
	if (!sc_parse_wait(c, wait_spec, &wait))
		return NULL;
	return sc_sequencer_cfg(c, size, mode, &wait, synchronize, initial_sequence);
}

SC_FN sr_processor *
sc_processor(sc_check *c, sr_ring *ring, sr_sequencer *s, const sr_sequence *const *deps,
    int ndeps, const sr_handler *handler, int64_t max_batch)
{
	sr_processor_config pc = {
		.ring = ring, .sequencer = s, .dependents = deps, .dependent_count = ndeps,
		.handler = *handler, .max_batch_size = max_batch,
	};
	sr_error err;
	sr_processor *p = sr_processor_create(&pc, &err);
	if (p == NULL)
		sc_failf(c, "sr_processor_create failed: %s", err.message);
	return p;
}

/*
 * Waits until *seq reaches target, or the watchdog expires (then records a
 * failure and returns false).  Used to wait for consumers without trusting
 * drain_and_halt, which is itself under test.
 */
SC_FN bool
sc_await_sequence(sc_check *c, const sr_sequence *seq, int64_t target, const char *who)
{
	int64_t deadline = sc_now() + SC_WATCHDOG_NS;
	int64_t last = sr_sequence_get(seq);
	while (last < target) {
		int64_t now = sc_now();
		/* A thread already failed and nothing moves: don't wait out the watchdog. */
		if (sc_failed(c) && now > deadline - SC_WATCHDOG_NS + SC_S)
			return false;
		if (now > deadline) {
			sc_failf(c, "%s stuck at sequence %" PRId64 ", expected %" PRId64 " (%lld s watchdog)",
			    who, last, target, (long long)(SC_WATCHDOG_NS / SC_S));
			return false;
		}
		sc_sleep_ns(50 * 1000);
		int64_t v = sr_sequence_get(seq);
		if (v != last) {
			last = v;
			deadline = sc_now() + SC_WATCHDOG_NS; /* progress: restart the watchdog */
		}
	}
	return true;
}

/* ------------------------------------------------------------------------ */
/* Multi-producer exactly-once, in producer order.                          */
/* ------------------------------------------------------------------------ */

typedef struct sc_mp_params {
	int producers;
	int64_t per_producer;
	int64_t ring_size;
	const char *wait;             /* the consumer's strategy spec */
	bool synchronize;             /* synchronize_enqueue_when_full */
	int max_claim;                /* 1: claim one; k > 1: claim_n of 1..k and publish_range */
	int64_t consumer_spin_ns;     /* slow consumer: busy work per event */
	int64_t consumer_nap_every;   /* slow consumer: a ~50 us nap every so many events */
	int64_t initial_sequence;     /* -1 normally; near 2^62 to exercise large values */
	uint64_t seed;
} sc_mp_params;

typedef struct sc_mp_slot {
	int32_t producer;
	int32_t check;   /* producer ^ low bits of index ^ a constant: catches torn slots */
	int64_t index;
} sc_mp_slot;

#define SC_MP_MAX_PRODUCERS 128

typedef struct sc_mp_ctx {
	sc_check check;
	const sc_mp_params *params;
	sr_ring *ring;
	sr_sequencer *seq;
	int64_t next[SC_MP_MAX_PRODUCERS]; /* consumer-private: next expected index */
	int64_t delivered;                 /* consumer-private */
	int64_t last_sequence;             /* consumer-private */
	atomic_int producers_done;
} sc_mp_ctx;

typedef struct sc_mp_producer {
	sc_mp_ctx *ctx;
	int id;
	pthread_t thread;
} sc_mp_producer;

static inline int32_t
sc_mp_check_value(int32_t producer, int64_t index)
{
	return producer ^ (int32_t)(index & 0x7fffffff) ^ 0x5a5a5a5a;
}

SC_FN void *
sc_mp_producer_main(void *arg)
{
	sc_mp_producer *pr = arg;
	sc_mp_ctx *ctx = pr->ctx;
	const sc_mp_params *pp = ctx->params;
	uint64_t rng = pp->seed * 1000003u + (uint64_t)pr->id + 1;
	for (int64_t i = 0; i < pp->per_producer && !sc_failed(&ctx->check);) {
		int64_t k = 1;
		if (pp->max_claim > 1) {
			k = 1 + (int64_t)(sc_rand(&rng) % (uint64_t)pp->max_claim);
			if (k > pp->per_producer - i)
				k = pp->per_producer - i;
		}
		int64_t first;
		int rc = k == 1 ? sr_sequencer_claim(ctx->seq, &first) :
		    sr_sequencer_claim_n(ctx->seq, k, &first);
		if (rc != SR_OK) {
			sc_failf(&ctx->check, "producer %d: claim of %" PRId64 " returned %d (%s)",
			    pr->id, k, rc, sr_strerror(rc));
			break;
		}
		for (int64_t j = 0; j < k; j++) {
			sc_mp_slot *slot = sr_ring_slot(ctx->ring, first + j);
			slot->producer = pr->id;
			slot->index = i + j;
			slot->check = sc_mp_check_value(pr->id, i + j);
		}
		if (k == 1)
			sr_sequencer_publish(ctx->seq, first);
		else
			sr_sequencer_publish_range(ctx->seq, first, first + k - 1);
		i += k;
	}
	atomic_fetch_add(&ctx->producers_done, 1);
	return NULL;
}

SC_FN int
sc_mp_on_event(void *arg, void *slot_ptr, int64_t sequence, bool end_of_batch)
{
	(void)end_of_batch;
	sc_mp_ctx *ctx = arg;
	const sc_mp_params *pp = ctx->params;
	const sc_mp_slot *slot = slot_ptr;
	if (sequence != ctx->last_sequence + 1)
		sc_failf(&ctx->check, "consumer: sequence %" PRId64 " follows %" PRId64,
		    sequence, ctx->last_sequence);
	ctx->last_sequence = sequence;
	int32_t p = slot->producer;
	if (p < 0 || p >= pp->producers || slot->check != sc_mp_check_value(p, slot->index)) {
		sc_failf(&ctx->check, "consumer: torn or foreign slot at sequence %" PRId64
		    " (producer %d, index %" PRId64 ", check %d)", sequence, p, slot->index, slot->check);
		return 0;
	}
	if (slot->index != ctx->next[p]) {
		sc_failf(&ctx->check, "consumer: producer %d's event %" PRId64 " arrived when %" PRId64
		    " was expected (sequence %" PRId64 "): %s", p, slot->index, ctx->next[p], sequence,
		    slot->index < ctx->next[p] ? "duplicate or overwritten" : "lost or reordered");
	}
	ctx->next[p] = slot->index + 1;
	ctx->delivered++;
	sc_spin_ns(pp->consumer_spin_ns);
	if (pp->consumer_nap_every > 0 && ctx->delivered % pp->consumer_nap_every == 0)
		sc_sleep_ns(50 * 1000);
	return 0;
}

/*
 * P producers each publish per_producer events (producer id, index) into one
 * multi-producer ring; one consumer checks that it sees every (producer,
 * index) exactly once and each producer's events in index order.
 * n[0]: the consumer's final sequence.
 */
SC_FN sc_result
sc_multi_producer(const sc_mp_params *pp)
{
	sc_result r;
	sc_result_init(&r);
	sc_mp_ctx *ctx = calloc(1, sizeof *ctx);
	sc_mp_producer *prods = calloc((size_t)pp->producers, sizeof *prods);
	sr_sequencer *seq = NULL;
	sr_processor *proc = NULL;
	sc_check_init(&ctx->check);
	ctx->params = pp;
	ctx->last_sequence = pp->initial_sequence;
	atomic_init(&ctx->producers_done, 0);
	int64_t t0 = sc_now();

	if (pp->producers < 1 || pp->producers > SC_MP_MAX_PRODUCERS) {
		sc_failf(&ctx->check, "bad scenario: %d producers", pp->producers);
		goto out;
	}
	sr_error err;
	ctx->ring = sr_ring_create(pp->ring_size, sizeof(sc_mp_slot), NULL, NULL, &err);
	if (ctx->ring == NULL) {
		sc_failf(&ctx->check, "sr_ring_create failed: %s", err.message);
		goto out;
	}
	seq = sc_sequencer(&ctx->check, pp->ring_size, SR_PRODUCER_MULTI, pp->wait,
	    pp->synchronize, pp->initial_sequence);
	if (seq == NULL)
		goto out;
	ctx->seq = seq;
	sr_handler h = { .ctx = ctx, .on_event = sc_mp_on_event };
	proc = sc_processor(&ctx->check, ctx->ring, seq, NULL, 0, &h, 0);
	if (proc == NULL)
		goto out;
	sr_sequencer_add_gating(seq, sr_processor_sequence(proc));
	if (sr_processor_start(proc, &err) != SR_OK) {
		sc_failf(&ctx->check, "sr_processor_start failed: %s", err.message);
		goto out;
	}
	for (int i = 0; i < pp->producers; i++) {
		prods[i].ctx = ctx;
		prods[i].id = i;
		pthread_create(&prods[i].thread, NULL, sc_mp_producer_main, &prods[i]);
	}
	int64_t total = (int64_t)pp->producers * pp->per_producer;
	int64_t last = pp->initial_sequence + total;
	/* Watch the consumer: it must reach the last sequence (a stall is a hang). */
	if (!sc_await_sequence(&ctx->check, sr_processor_sequence(proc), last, "consumer")) {
		sr_processor_halt(proc);
		sc_sleep_ns(100 * SC_MS);
		if (atomic_load(&ctx->producers_done) < pp->producers)
			sc_hung("multi-producer: producers blocked on a full ring behind a stuck consumer");
	}
	for (int i = 0; i < pp->producers; i++)
		pthread_join(prods[i].thread, NULL);
	sr_processor_halt(proc);
	sr_processor_join(proc);

	if (!sc_failed(&ctx->check)) {
		for (int i = 0; i < pp->producers; i++) {
			if (ctx->next[i] != pp->per_producer) {
				sc_failf(&ctx->check, "producer %d: %" PRId64 " of %" PRId64 " events delivered",
				    i, ctx->next[i], pp->per_producer);
				break;
			}
		}
		if (ctx->delivered != total)
			sc_failf(&ctx->check, "%" PRId64 " events delivered, expected %" PRId64,
			    ctx->delivered, total);
	}
	r.events = ctx->delivered;
	r.n[0] = sr_sequence_get(sr_processor_sequence(proc));
out:
	r.seconds = (double)(sc_now() - t0) / 1e9;
	sc_check_finish(&ctx->check, &r);
	sr_processor_destroy(proc);
	sr_sequencer_destroy(seq);
	sr_ring_destroy(ctx->ring);
	free(prods);
	free(ctx);
	return r;
}

/* ------------------------------------------------------------------------ */
/* A producer never overwrites a slot its consumer has not released.        */
/* ------------------------------------------------------------------------ */

#define SC_GUARD_WORDS 8

typedef struct sc_guard_ctx {
	sc_check check;
	sr_ring *ring;
	sr_sequencer *seq;
	sr_sequence consumed;   /* the consumer's gating sequence */
	sr_barrier barrier;
	int64_t per_producer;
	int producers;
	int64_t first;          /* the first sequence (initial + 1) */
	uint64_t seed;
	int64_t verified;       /* consumer-private */
	atomic_int producers_done;
} sc_guard_ctx;

typedef struct sc_guard_producer {
	sc_guard_ctx *ctx;
	int id;
	pthread_t thread;
} sc_guard_producer;

SC_FN void *
sc_guard_producer_main(void *arg)
{
	sc_guard_producer *pr = arg;
	sc_guard_ctx *ctx = pr->ctx;
	for (int64_t i = 0; i < ctx->per_producer && !sc_failed(&ctx->check); i++) {
		int64_t s;
		int rc = sr_sequencer_claim(ctx->seq, &s);
		if (rc != SR_OK) {
			sc_failf(&ctx->check, "producer %d: claim returned %d", pr->id, rc);
			break;
		}
		int64_t *words = sr_ring_slot(ctx->ring, s);
		/*
		 * The slot's previous occupant, s - size, must be published and
		 * consumed: it is there, whole.
		 */
		int64_t prev = s - ctx->ring->slot_count;
		if (prev >= ctx->first) {
			for (int w = 0; w < SC_GUARD_WORDS; w++) {
				if (words[w] != prev) {
					sc_failf(&ctx->check, "producer %d: claimed %" PRId64 " but its slot holds %"
					    PRId64 " in word %d, expected the consumed %" PRId64,
					    pr->id, s, words[w], w, prev);
					break;
				}
			}
		}
		for (int w = 0; w < SC_GUARD_WORDS; w++)
			words[w] = s;
		sr_sequencer_publish(ctx->seq, s);
	}
	atomic_fetch_add(&ctx->producers_done, 1);
	return NULL;
}

SC_FN void *
sc_guard_consumer_main(void *arg)
{
	sc_guard_ctx *ctx = arg;
	uint64_t rng = ctx->seed ^ UINT64_C(0x9e3779b97f4a7c15);
	int64_t last = ctx->first - 1 + (int64_t)ctx->producers * ctx->per_producer;
	int64_t next = ctx->first;
	while (next <= last) {
		int64_t avail;
		int rc = sr_barrier_wait_for(&ctx->barrier, next, &avail);
		if (rc == SR_EALERTED)
			return NULL;
		if (rc != SR_OK || avail < next)
			continue;
		if (avail > last)
			avail = last;
		/* After a failure, keep releasing (unchecked) so that producers finish. */
		bool check = !sc_failed(&ctx->check);
		for (int64_t s = next; check && s <= avail; s++) {
			const int64_t *words = sr_ring_slot(ctx->ring, s);
			for (int w = 0; w < SC_GUARD_WORDS; w++) {
				if (words[w] != s) {
					sc_failf(&ctx->check, "consumer: slot of sequence %" PRId64 " holds %" PRId64
					    " in word %d before release", s, words[w], w);
					check = false;
					break;
				}
			}
		}
		/* Linger now and then, holding the batch, then look again. */
		if (check && (sc_rand(&rng) & 7) == 0) {
			if (sc_rand(&rng) & 1)
				sched_yield();
			else
				sc_spin_ns(2000);
			for (int64_t s = next; s <= avail; s++) {
				const int64_t *words = sr_ring_slot(ctx->ring, s);
				if (words[0] != s || words[SC_GUARD_WORDS - 1] != s) {
					sc_failf(&ctx->check, "consumer: slot of sequence %" PRId64
					    " was overwritten with %" PRId64 " before the consumer released it",
					    s, words[0] != s ? words[0] : words[SC_GUARD_WORDS - 1]);
					break;
				}
			}
		}
		ctx->verified += avail - next + 1;
		/* pairs with the load-acquire of gating sequences in the producers' claim */
		sr_sequence_set(&ctx->consumed, avail);
		next = avail + 1;
	}
	return NULL;
}

/*
 * `producers` threads (one for SR_PRODUCER_SINGLE) claim and fill slots of a
 * tiny ring as fast as they can, each slot a run of words all equal to its
 * sequence; a hand-written consumer on a barrier checks each slot is intact
 * while it holds it, lingering at random, and producers check that a slot's
 * previous occupant is the consumed sequence.  Any early overwrite shows.
 */
SC_FN sc_result
sc_overwrite_guard(enum sr_producer_mode mode, int producers, int64_t ring_size,
    int64_t per_producer, const char *wait_spec, int64_t initial_sequence, uint64_t seed)
{
	sc_result r;
	sc_result_init(&r);
	sc_guard_ctx *ctx = aligned_alloc(SR_CACHELINE,
	    (sizeof *ctx + SR_CACHELINE - 1) / SR_CACHELINE * SR_CACHELINE);
	memset(ctx, 0, sizeof *ctx);
	sc_check_init(&ctx->check);
	atomic_init(&ctx->producers_done, 0);
	sc_guard_producer prods[16];
	int64_t t0 = sc_now();
	if (mode == SR_PRODUCER_SINGLE)
		producers = 1;
	if (producers > 16)
		producers = 16;
	ctx->producers = producers;
	ctx->per_producer = per_producer;
	ctx->first = initial_sequence + 1;
	ctx->seed = seed;
	sr_error err;
	ctx->ring = sr_ring_create(ring_size, SC_GUARD_WORDS * sizeof(int64_t), NULL, NULL, &err);
	if (ctx->ring == NULL) {
		sc_failf(&ctx->check, "sr_ring_create failed: %s", err.message);
		goto out;
	}
	ctx->seq = sc_sequencer(&ctx->check, ring_size, mode, wait_spec, true, initial_sequence);
	if (ctx->seq == NULL)
		goto out;
	sr_sequence_init(&ctx->consumed, initial_sequence);
	sr_sequencer_add_gating(ctx->seq, &ctx->consumed);
	if (sr_barrier_init(&ctx->barrier, ctx->seq, NULL, 0, &err) != SR_OK) {
		sc_failf(&ctx->check, "sr_barrier_init failed: %s", err.message);
		goto out;
	}
	pthread_t consumer;
	pthread_create(&consumer, NULL, sc_guard_consumer_main, ctx);
	for (int i = 0; i < producers; i++) {
		prods[i].ctx = ctx;
		prods[i].id = i;
		pthread_create(&prods[i].thread, NULL, sc_guard_producer_main, &prods[i]);
	}
	int64_t last = initial_sequence + (int64_t)producers * per_producer;
	if (!sc_await_sequence(&ctx->check, &ctx->consumed, last, "consumer")) {
		sr_barrier_alert(&ctx->barrier);
		sc_sleep_ns(100 * SC_MS);
		if (atomic_load(&ctx->producers_done) < producers)
			sc_hung("overwrite guard: consumer stuck, producers blocked");
	}
	for (int i = 0; i < producers; i++)
		pthread_join(prods[i].thread, NULL);
	pthread_join(consumer, NULL);
	r.events = ctx->verified;
	if (!sc_failed(&ctx->check) && ctx->verified != (int64_t)producers * per_producer)
		sc_failf(&ctx->check, "consumer verified %" PRId64 " slots, expected %" PRId64,
		    ctx->verified, (int64_t)producers * per_producer);
out:
	r.seconds = (double)(sc_now() - t0) / 1e9;
	sc_check_finish(&ctx->check, &r);
	sr_sequencer_destroy(ctx->seq);
	sr_ring_destroy(ctx->ring);
	free(ctx);
	return r;
}

/* ------------------------------------------------------------------------ */
/* Consumer graphs: pipeline A -> B -> C and diamond A -> (B, C) -> D.      */
/* ------------------------------------------------------------------------ */

enum sc_shape { SC_PIPELINE, SC_DIAMOND };

typedef struct sc_graph_slot {
	int64_t value;       /* the sequence, written by the producer */
	int64_t a, b, c, d;  /* each stage stamps the sequence when it has handled it */
} sc_graph_slot;

struct sc_graph_ctx;

typedef struct sc_stage {
	struct sc_graph_ctx *g;
	char name;
	sr_processor *proc;
	int64_t last;        /* stage-private: last sequence handled */
	int64_t handled;     /* stage-private */
	int64_t batches;     /* stage-private */
} sc_stage;

typedef struct sc_graph_ctx {
	sc_check check;
	enum sc_shape shape;
	sr_ring *ring;
	sr_sequencer *seq;
	sc_stage st[4];      /* A, B, C, D (D only in the diamond) */
	int64_t first;
	int64_t per_producer;
	int producers;
	atomic_llong reuse_checked;
	atomic_int producers_done;
} sc_graph_ctx;

typedef struct sc_graph_producer {
	sc_graph_ctx *g;
	int id;
	pthread_t thread;
} sc_graph_producer;

SC_FN void *
sc_graph_producer_main(void *arg)
{
	sc_graph_producer *pr = arg;
	sc_graph_ctx *g = pr->g;
	int64_t checked = 0;
	for (int64_t i = 0; i < g->per_producer && !sc_failed(&g->check); i++) {
		int64_t s;
		int rc = sr_sequencer_claim(g->seq, &s);
		if (rc != SR_OK) {
			sc_failf(&g->check, "producer %d: claim returned %d", pr->id, rc);
			break;
		}
		sc_graph_slot *slot = sr_ring_slot(g->ring, s);
		int64_t prev = s - g->ring->slot_count;
		if (prev >= g->first) {
			/* The last stage must be done with the slot's previous event. */
			int64_t final = g->shape == SC_PIPELINE ? slot->c : slot->d;
			if (slot->value != prev || final != prev) {
				sc_failf(&g->check, "producer %d: slot reused early: claiming %" PRId64
				    " found value %" PRId64 " and final stamp %" PRId64 ", expected %" PRId64,
				    pr->id, s, slot->value, final, prev);
				break;
			}
			checked++;
		}
		slot->value = s;
		slot->a = slot->b = slot->c = slot->d = -1;
		sr_sequencer_publish(g->seq, s);
	}
	atomic_fetch_add(&g->reuse_checked, checked);
	atomic_fetch_add(&g->producers_done, 1);
	return NULL;
}

/* Checks a stage sees its events in order and after every stage it follows. */
SC_FN int
sc_graph_on_event(void *arg, void *slot_ptr, int64_t s, bool end_of_batch)
{
	sc_stage *st = arg;
	sc_graph_ctx *g = st->g;
	sc_graph_slot *slot = slot_ptr;
	if (s != st->last + 1)
		sc_failf(&g->check, "stage %c: sequence %" PRId64 " after %" PRId64, st->name, s, st->last);
	st->last = s;
	st->handled++;
	if (end_of_batch)
		st->batches++;
	if (slot->value != s) {
		sc_failf(&g->check, "stage %c: slot of %" PRId64 " holds %" PRId64, st->name, s, slot->value);
		return 0;
	}
	/*
	 * Upstream stamps must be there, and upstream sequences past s; stamps
	 * of stages that run in parallel with this one are not read (they may
	 * be being written).
	 */
	switch (st->name) {
	case 'A':
		if (slot->a != -1)
			sc_failf(&g->check, "stage A: %" PRId64 " already stamped %" PRId64, s, slot->a);
		slot->a = s;
		break;
	case 'B':
		if (slot->a != s || sr_sequence_get(sr_processor_sequence(g->st[0].proc)) < s)
			sc_failf(&g->check, "stage B saw %" PRId64 " before A handled it (a = %" PRId64 ")",
			    s, slot->a);
		slot->b = s;
		break;
	case 'C':
		if (g->shape == SC_PIPELINE) {
			if (slot->a != s || slot->b != s ||
			    sr_sequence_get(sr_processor_sequence(g->st[1].proc)) < s)
				sc_failf(&g->check, "stage C saw %" PRId64 " before B handled it (a = %" PRId64
				    ", b = %" PRId64 ")", s, slot->a, slot->b);
		} else if (slot->a != s || sr_sequence_get(sr_processor_sequence(g->st[0].proc)) < s) {
			sc_failf(&g->check, "stage C saw %" PRId64 " before A handled it (a = %" PRId64 ")",
			    s, slot->a);
		}
		slot->c = s;
		break;
	case 'D':
		if (slot->a != s || slot->b != s || slot->c != s ||
		    sr_sequence_get(sr_processor_sequence(g->st[1].proc)) < s ||
		    sr_sequence_get(sr_processor_sequence(g->st[2].proc)) < s)
			sc_failf(&g->check, "stage D saw %" PRId64 " before both B and C handled it (a = %"
			    PRId64 ", b = %" PRId64 ", c = %" PRId64 ")", s, slot->a, slot->b, slot->c);
		slot->d = s;
		break;
	}
	return 0;
}

/*
 * Producers publish per_producer events each through a pipeline A -> B -> C
 * or a diamond A -> (B, C) -> D whose last stage gates the producers.  Every
 * stage checks that it sees each event once, in order, only after the stages
 * it depends on handled it; producers check that a slot is reused only after
 * the last stage handled its previous event.
 * n[0]: slot reuses verified by producers; n[1]: batches seen by the last stage.
 */
SC_FN sc_result
sc_graph(enum sc_shape shape, enum sr_producer_mode mode, int producers, int64_t per_producer,
    int64_t ring_size, const char *wait_spec, int64_t max_batch, int64_t initial_sequence)
{
	sc_result r;
	sc_result_init(&r);
	sc_graph_ctx *g = calloc(1, sizeof *g);
	sc_check_init(&g->check);
	atomic_init(&g->reuse_checked, 0);
	atomic_init(&g->producers_done, 0);
	sc_graph_producer prods[16];
	int nstages = shape == SC_PIPELINE ? 3 : 4;
	int64_t t0 = sc_now();
	if (mode == SR_PRODUCER_SINGLE)
		producers = 1;
	if (producers > 16)
		producers = 16;
	g->shape = shape;
	g->producers = producers;
	g->per_producer = per_producer;
	g->first = initial_sequence + 1;
	sr_error err;
	g->ring = sr_ring_create(ring_size, sizeof(sc_graph_slot), NULL, NULL, &err);
	if (g->ring == NULL) {
		sc_failf(&g->check, "sr_ring_create failed: %s", err.message);
		goto out;
	}
	g->seq = sc_sequencer(&g->check, ring_size, mode, wait_spec, true, initial_sequence);
	if (g->seq == NULL)
		goto out;
	for (int i = 0; i < nstages; i++) {
		g->st[i].g = g;
		g->st[i].name = (char)('A' + i);
		g->st[i].last = initial_sequence;
		const sr_sequence *deps[2];
		int ndeps = 0;
		if (i == 1 || (i == 2 && shape == SC_DIAMOND)) {
			deps[ndeps++] = sr_processor_sequence(g->st[0].proc);
		} else if (i == 2) {
			deps[ndeps++] = sr_processor_sequence(g->st[1].proc);
		} else if (i == 3) {
			deps[ndeps++] = sr_processor_sequence(g->st[1].proc);
			deps[ndeps++] = sr_processor_sequence(g->st[2].proc);
		}
		sr_handler h = { .ctx = &g->st[i], .on_event = sc_graph_on_event };
		g->st[i].proc = sc_processor(&g->check, g->ring, g->seq, deps, ndeps, &h, max_batch);
		if (g->st[i].proc == NULL)
			goto out;
	}
	sc_stage *final = &g->st[nstages - 1];
	sr_sequencer_add_gating(g->seq, sr_processor_sequence(final->proc));
	for (int i = 0; i < nstages; i++) {
		if (sr_processor_start(g->st[i].proc, &err) != SR_OK) {
			sc_failf(&g->check, "start of stage %c failed: %s", 'A' + i, err.message);
			for (int j = 0; j < i; j++) {
				sr_processor_halt(g->st[j].proc);
				sr_processor_join(g->st[j].proc);
			}
			goto out;
		}
	}
	for (int i = 0; i < producers; i++) {
		prods[i].g = g;
		prods[i].id = i;
		pthread_create(&prods[i].thread, NULL, sc_graph_producer_main, &prods[i]);
	}
	int64_t last = initial_sequence + (int64_t)producers * per_producer;
	if (!sc_await_sequence(&g->check, sr_processor_sequence(final->proc), last, "last stage")) {
		for (int i = 0; i < nstages; i++)
			sr_processor_halt(g->st[i].proc);
		sc_sleep_ns(100 * SC_MS);
		if (atomic_load(&g->producers_done) < producers)
			sc_hung("consumer graph: stages stuck, producers blocked");
	}
	for (int i = 0; i < producers; i++)
		pthread_join(prods[i].thread, NULL);
	for (int i = 0; i < nstages; i++) {
		sr_processor_halt(g->st[i].proc);
		sr_processor_join(g->st[i].proc);
	}
	int64_t total = (int64_t)producers * per_producer;
	for (int i = 0; i < nstages && !sc_failed(&g->check); i++) {
		if (g->st[i].handled != total || g->st[i].last != last)
			sc_failf(&g->check, "stage %c handled %" PRId64 " events up to %" PRId64
			    ", expected %" PRId64 " up to %" PRId64, 'A' + i, g->st[i].handled,
			    g->st[i].last, total, last);
	}
	r.events = final->handled;
	r.n[0] = atomic_load(&g->reuse_checked);
	r.n[1] = final->batches;
out:
	r.seconds = (double)(sc_now() - t0) / 1e9;
	sc_check_finish(&g->check, &r);
	for (int i = 0; i < nstages; i++)
		sr_processor_destroy(g->st[i].proc);
	sr_sequencer_destroy(g->seq);
	sr_ring_destroy(g->ring);
	free(g);
	return r;
}

/* ------------------------------------------------------------------------ */
/* Wake-ups: no event is ever left waiting for a wake-up that never comes.  */
/* ------------------------------------------------------------------------ */

typedef struct sc_wake_ctx {
	sc_check check;
	atomic_llong seen;       /* events the consumer has handled */
	int64_t expect;          /* consumer-private: next expected value */
} sc_wake_ctx;

SC_FN int
sc_wake_on_event(void *arg, void *slot, int64_t s, bool end_of_batch)
{
	(void)end_of_batch;
	sc_wake_ctx *w = arg;
	int64_t v = *(const int64_t *)slot;
	if (v != w->expect)
		sc_failf(&w->check, "consumer: event %" PRId64 " at sequence %" PRId64 ", expected %" PRId64,
		    v, s, w->expect);
	w->expect = v + 1;
	atomic_store(&w->seen, v + 1);
	return 0;
}

/* How long a published event may wait for a consumer using `spec`. */
SC_FN int64_t
sc_wake_bound_ns(const sr_wait_config *c)
{
	/*
	 * A lost wake-up leaves the event waiting forever, except under the
	 * timeout kinds, which wake at least every timeout_ns: there the bound
	 * is the timeout plus slack for a loaded 2-core machine (1 s: parallel
	 * test jobs can keep a woken thread off the CPU for a few hundred ms),
	 * and with a long timeout, the 3 s that catches a lost wake-up.
	 */
	bool timed = c->kind == SR_WAIT_TIMEOUT ||
	    (c->kind == SR_WAIT_PHASED && c->fallback == SR_WAIT_TIMEOUT);
	if (timed && c->timeout_ns + SC_S < 3 * SC_S)
		return c->timeout_ns + SC_S;
	return 3 * SC_S;
}

/*
 * One producer publishes `rounds` events, each after a random pause of 0 to
 * 2 ms and each only once the consumer has handled the previous one, so that
 * every publish meets a consumer that is waiting (spinning, yielding,
 * sleeping or asleep on the condition variable) or just about to.  Every
 * event must be seen within sc_wake_bound_ns.
 * max_latency_ns: the slowest publish-to-handled time; n[0]: the bound used.
 */
SC_FN sc_result
sc_wakeups(const char *spec, enum sr_producer_mode mode, int rounds, uint64_t seed)
{
	sc_result r;
	sc_result_init(&r);
	sc_wake_ctx *w = calloc(1, sizeof *w);
	sc_check_init(&w->check);
	atomic_init(&w->seen, 0);
	sr_ring *ring = NULL;
	sr_sequencer *seq = NULL;
	sr_processor *proc = NULL;
	int64_t t0 = sc_now();
	uint64_t rng = seed ? seed : 1;
	sr_wait_config wc;
	if (!sc_parse_wait(&w->check, spec, &wc))
		goto out;
	int64_t bound = sc_wake_bound_ns(&wc);
	r.n[0] = bound;
	sr_error err;
	ring = sr_ring_create(16, sizeof(int64_t), NULL, NULL, &err);
	seq = sc_sequencer(&w->check, 16, mode, spec, true, -1);
	if (ring == NULL || seq == NULL)
		goto out;
	sr_handler h = { .ctx = w, .on_event = sc_wake_on_event };
	proc = sc_processor(&w->check, ring, seq, NULL, 0, &h, 0);
	if (proc == NULL)
		goto out;
	sr_sequencer_add_gating(seq, sr_processor_sequence(proc));
	if (sr_processor_start(proc, &err) != SR_OK) {
		sc_failf(&w->check, "sr_processor_start failed: %s", err.message);
		goto out;
	}
	for (int i = 0; i < rounds && !sc_failed(&w->check); i++) {
		int64_t gap = (int64_t)(sc_rand(&rng) % (uint64_t)(2 * SC_MS + 1));
		if (gap > 20 * 1000)
			sc_sleep_ns(gap);
		else
			sc_spin_ns(gap); /* short gaps hit the consumer on its way back to sleep */
		int64_t s;
		int rc = sr_sequencer_claim(seq, &s);
		if (rc != SR_OK) {
			sc_failf(&w->check, "round %d: claim returned %d", i, rc);
			break;
		}
		*(int64_t *)sr_ring_slot(ring, s) = i;
		int64_t published = sc_now();
		sr_sequencer_publish(seq, s);
		for (;;) {
			if (atomic_load(&w->seen) > i)
				break;
			int64_t now = sc_now();
			if (now - published > bound) {
				sc_failf(&w->check, "%s (%s): round %d of %d: event not handled %lld ms after its"
				    " publish (lost wake-up; seed %" PRIu64 ")", spec,
				    mode == SR_PRODUCER_SINGLE ? "single" : "multi", i, rounds,
				    (long long)((now - published) / SC_MS), seed);
				break;
			}
			if (now - published < 20 * 1000)
				sched_yield();
			else
				sc_sleep_ns(10 * 1000);
		}
		int64_t latency = sc_now() - published;
		if (latency > r.max_latency_ns)
			r.max_latency_ns = latency;
	}
	/* Halting also wakes a consumer whose wake-up was lost. */
	sr_processor_halt(proc);
	sr_processor_join(proc);
	r.events = atomic_load(&w->seen);
	if (!sc_failed(&w->check) && r.events != rounds)
		sc_failf(&w->check, "%s: consumer handled %" PRId64 " of %d events", spec, r.events, rounds);
out:
	r.seconds = (double)(sc_now() - t0) / 1e9;
	sc_check_finish(&w->check, &r);
	sr_processor_destroy(proc);
	sr_sequencer_destroy(seq);
	sr_ring_destroy(ring);
	free(w);
	return r;
}

/* ------------------------------------------------------------------------ */
/* Alert wakes a waiter in every strategy.                                  */
/* ------------------------------------------------------------------------ */

typedef struct sc_alert_ctx {
	sr_barrier *barrier;
	int64_t wait_for;
	atomic_int started;
	atomic_int done;
	atomic_llong returned_at;
	int rc;
	int64_t available;
} sc_alert_ctx;

SC_FN void *
sc_alert_waiter(void *arg)
{
	sc_alert_ctx *a = arg;
	atomic_store(&a->started, 1);
	a->rc = sr_barrier_wait_for(a->barrier, a->wait_for, &a->available);
	atomic_store(&a->returned_at, sc_now());
	atomic_store(&a->done, 1);
	return NULL;
}

/*
 * A thread waits on a barrier over an empty ring (with_dependent: the event
 * is published but the consumer it follows has not handled it, so it waits
 * in the dependents phase); 30 ms later the barrier is alerted.  The wait
 * must return SR_EALERTED.  The timeout kinds get a 30 s timeout, so that
 * only the alert can end the wait.  After clear_alert the barrier works.
 * max_latency_ns: alert-to-return time (the caller checks it against 100 ms).
 */
SC_FN sc_result
sc_alert_wakes(const char *spec, bool with_dependent)
{
	sc_result r;
	sc_result_init(&r);
	sc_check check;
	sc_check_init(&check);
	sr_sequencer *seq = NULL;
	sr_sequence *dep = aligned_alloc(SR_CACHELINE, sizeof *dep);
	sr_barrier *b = aligned_alloc(SR_CACHELINE, sizeof *b);
	sc_alert_ctx a;
	memset(&a, 0, sizeof a);
	int64_t t0 = sc_now();
	sr_wait_config wc;
	if (!sc_parse_wait(&check, spec, &wc))
		goto out;
	wc.timeout_ns = 30 * SC_S; /* only the alert may end the wait */
	seq = sc_sequencer_cfg(&check, 8, SR_PRODUCER_SINGLE, &wc, true, -1);
	if (seq == NULL)
		goto out;
	sr_sequence_init(dep, -1);
	const sr_sequence *deps[1] = { dep };
	sr_error err;
	if (sr_barrier_init(b, seq, deps, with_dependent ? 1 : 0, &err) != SR_OK) {
		sc_failf(&check, "sr_barrier_init failed: %s", err.message);
		goto out;
	}
	if (with_dependent) {
		int64_t s;
		sr_sequencer_claim(seq, &s);
		sr_sequencer_publish(seq, s);
	}
	a.barrier = b;
	a.wait_for = 0;
	atomic_init(&a.started, 0);
	atomic_init(&a.done, 0);
	atomic_init(&a.returned_at, 0);
	pthread_t th;
	pthread_create(&th, NULL, sc_alert_waiter, &a);
	while (!atomic_load(&a.started))
		sched_yield();
	sc_sleep_ns(30 * SC_MS); /* deep into its wait: asleep, yielding or spinning */
	if (atomic_load(&a.done)) {
		pthread_join(th, NULL);
		sc_failf(&check, "%s: wait_for returned %d (%s) before any alert or publish",
		    spec, a.rc, sr_strerror(a.rc));
		goto out;
	}
	int64_t alerted_at = sc_now();
	sr_barrier_alert(b);
	int64_t deadline = alerted_at + 2 * SC_S;
	while (!atomic_load(&a.done) && sc_now() < deadline)
		sc_sleep_ns(100 * 1000);
	if (!atomic_load(&a.done)) {
		sc_failf(&check, "%s%s: alert did not wake the waiter within 2 s", spec,
		    with_dependent ? " (waiting on a dependent)" : "");
		/* Unblock it so it can be joined: publish, and release the dependent. */
		if (!with_dependent) {
			int64_t s;
			sr_sequencer_claim(seq, &s);
			sr_sequencer_publish(seq, s);
		}
		sr_sequence_set(dep, 0);
		sr_wait_signal_all(sr_sequencer_wait(seq));
		pthread_join(th, NULL);
		goto out;
	}
	pthread_join(th, NULL);
	r.max_latency_ns = atomic_load(&a.returned_at) - alerted_at;
	if (a.rc != SR_EALERTED) {
		sc_failf(&check, "%s: alerted wait returned %d (%s), expected SR_EALERTED",
		    spec, a.rc, sr_strerror(a.rc));
		goto out;
	}
	if (!sr_barrier_is_alerted(b))
		sc_failf(&check, "%s: barrier not alerted after sr_barrier_alert", spec);
	/* Still alerted: an immediate SR_EALERTED, even with the event there. */
	int64_t avail = -7;
	if (!with_dependent) {
		int64_t s;
		sr_sequencer_claim(seq, &s);
		sr_sequencer_publish(seq, s);
	}
	int rc = sr_barrier_wait_for(b, 0, &avail);
	if (rc != SR_EALERTED)
		sc_failf(&check, "%s: wait on an alerted barrier returned %d", spec, rc);
	sr_barrier_clear_alert(b);
	sr_sequence_set(dep, 0);
	rc = sr_barrier_wait_for(b, 0, &avail);
	if (rc != SR_OK || avail != 0)
		sc_failf(&check, "%s: after clear_alert wait_for(0) returned %d, available %" PRId64,
		    spec, rc, avail);
	r.events = 1;
out:
	r.seconds = (double)(sc_now() - t0) / 1e9;
	sc_check_finish(&check, &r);
	sr_sequencer_destroy(seq);
	free(dep);
	free(b);
	return r;
}

/* ------------------------------------------------------------------------ */
/* Processor lifecycle under each strategy: halt while waiting, timeouts.   */
/* ------------------------------------------------------------------------ */

typedef struct sc_life_ctx {
	sc_check check;
	atomic_int started;
	atomic_int shutdowns;
	atomic_llong shutdown_at;
	atomic_llong handled;
	atomic_llong timeouts;
	int64_t last;               /* consumer-private: last handled sequence */
} sc_life_ctx;

SC_FN void
sc_life_on_start(void *arg)
{
	sc_life_ctx *l = arg;
	atomic_fetch_add(&l->started, 1);
}

SC_FN void
sc_life_on_shutdown(void *arg)
{
	sc_life_ctx *l = arg;
	atomic_store(&l->shutdown_at, sc_now());
	atomic_fetch_add(&l->shutdowns, 1);
}

SC_FN int
sc_life_on_event(void *arg, void *slot, int64_t s, bool end_of_batch)
{
	(void)end_of_batch;
	sc_life_ctx *l = arg;
	if (*(const int64_t *)slot != s)
		sc_failf(&l->check, "slot of %" PRId64 " holds %" PRId64, s, *(const int64_t *)slot);
	if (s != l->last + 1)
		sc_failf(&l->check, "sequence %" PRId64 " after %" PRId64, s, l->last);
	l->last = s;
	atomic_fetch_add(&l->handled, 1);
	return 0;
}

SC_FN void
sc_life_on_timeout(void *arg, int64_t s)
{
	sc_life_ctx *l = arg;
	if (s != l->last)
		sc_failf(&l->check, "on_timeout reported sequence %" PRId64 ", but the last handled is %"
		    PRId64, s, l->last);
	atomic_fetch_add(&l->timeouts, 1);
}

SC_FN void
sc_publish_values(sr_sequencer *seq, sr_ring *ring, int count)
{
	for (int i = 0; i < count; i++) {
		int64_t s;
		sr_sequencer_claim(seq, &s);
		*(int64_t *)sr_ring_slot(ring, s) = s;
		sr_sequencer_publish(seq, s);
	}
}

/*
 * A processor waits on an empty ring with `spec`; 30 ms later it is halted.
 * on_shutdown must run (the thread ends), no event was handled, state is
 * HALTED, and start again is SR_ESTATE.
 * max_latency_ns: halt-to-on_shutdown time; n[0]: on_start calls;
 * n[1]: on_shutdown calls.
 */
SC_FN sc_result
sc_halt_while_waiting(const char *spec, enum sr_producer_mode mode)
{
	sc_result r;
	sc_result_init(&r);
	sc_life_ctx *l = calloc(1, sizeof *l);
	sc_check_init(&l->check);
	l->last = -1;
	sr_ring *ring = NULL;
	sr_sequencer *seq = NULL;
	sr_processor *proc = NULL;
	int64_t t0 = sc_now();
	sr_error err;
	ring = sr_ring_create(8, sizeof(int64_t), NULL, NULL, &err);
	seq = sc_sequencer(&l->check, 8, mode, spec, true, -1);
	if (ring == NULL || seq == NULL)
		goto out;
	sr_handler h = { .ctx = l, .on_event = sc_life_on_event, .on_start = sc_life_on_start,
	    .on_shutdown = sc_life_on_shutdown, .on_timeout = sc_life_on_timeout };
	proc = sc_processor(&l->check, ring, seq, NULL, 0, &h, 0);
	if (proc == NULL)
		goto out;
	sr_sequencer_add_gating(seq, sr_processor_sequence(proc));
	if (sr_processor_start(proc, &err) != SR_OK) {
		sc_failf(&l->check, "start failed: %s", err.message);
		goto out;
	}
	while (atomic_load(&l->started) == 0)
		sched_yield();
	sc_sleep_ns(30 * SC_MS);
	int64_t halted_at = sc_now();
	sr_processor_halt(proc);
	int64_t deadline = halted_at + 2 * SC_S;
	while (atomic_load(&l->shutdowns) == 0 && sc_now() < deadline)
		sc_sleep_ns(100 * 1000);
	if (atomic_load(&l->shutdowns) == 0) {
		sc_failf(&l->check, "%s: halt did not stop a waiting processor within 2 s", spec);
		sc_publish_values(seq, ring, 1); /* wake it so that it can be joined */
	}
	sr_processor_join(proc);
	r.max_latency_ns = atomic_load(&l->shutdown_at) - halted_at;
	r.n[0] = atomic_load(&l->started);
	r.n[1] = atomic_load(&l->shutdowns);
	r.events = atomic_load(&l->handled);
	if (sr_processor_state_get(proc) != SR_PROCESSOR_HALTED)
		sc_failf(&l->check, "%s: state %d after halt and join, expected HALTED", spec,
		    (int)sr_processor_state_get(proc));
	if (!sc_failed(&l->check) && (r.events != 0 || r.n[0] != 1 || r.n[1] != 1))
		sc_failf(&l->check, "%s: %" PRId64 " events, %" PRId64 " starts, %" PRId64
		    " shutdowns; expected 0, 1, 1", spec, r.events, r.n[0], r.n[1]);
	if (sr_processor_start(proc, &err) != SR_ESTATE)
		sc_failf(&l->check, "%s: restart of a halted processor was not SR_ESTATE", spec);
out:
	r.seconds = (double)(sc_now() - t0) / 1e9;
	sc_check_finish(&l->check, &r);
	sr_processor_destroy(proc);
	sr_sequencer_destroy(seq);
	sr_ring_destroy(ring);
	free(l);
	return r;
}

/*
 * A processor idles for idle_ns with `spec`, handles 3 events, idles again.
 * Each on_timeout must report the last handled sequence (-1, then 2).
 * n[0]: timeouts during the first idle spell; n[1]: during the second.
 */
SC_FN sc_result
sc_timeout_hook(const char *spec, int64_t idle_ns)
{
	sc_result r;
	sc_result_init(&r);
	sc_life_ctx *l = calloc(1, sizeof *l);
	sc_check_init(&l->check);
	l->last = -1;
	sr_ring *ring = NULL;
	sr_sequencer *seq = NULL;
	sr_processor *proc = NULL;
	int64_t t0 = sc_now();
	sr_error err;
	ring = sr_ring_create(8, sizeof(int64_t), NULL, NULL, &err);
	seq = sc_sequencer(&l->check, 8, SR_PRODUCER_SINGLE, spec, true, -1);
	if (ring == NULL || seq == NULL)
		goto out;
	sr_handler h = { .ctx = l, .on_event = sc_life_on_event, .on_start = sc_life_on_start,
	    .on_shutdown = sc_life_on_shutdown, .on_timeout = sc_life_on_timeout };
	proc = sc_processor(&l->check, ring, seq, NULL, 0, &h, 0);
	if (proc == NULL)
		goto out;
	sr_sequencer_add_gating(seq, sr_processor_sequence(proc));
	if (sr_processor_start(proc, &err) != SR_OK) {
		sc_failf(&l->check, "start failed: %s", err.message);
		goto out;
	}
	sc_sleep_ns(idle_ns);
	r.n[0] = atomic_load(&l->timeouts);
	sc_publish_values(seq, ring, 3);
	if (sc_await_sequence(&l->check, sr_processor_sequence(proc), 2, "consumer")) {
		int64_t before = atomic_load(&l->timeouts);
		sc_sleep_ns(idle_ns);
		r.n[1] = atomic_load(&l->timeouts) - before;
	}
	sr_processor_halt(proc);
	sr_processor_join(proc);
	r.events = atomic_load(&l->handled);
	if (!sc_failed(&l->check) && r.events != 3)
		sc_failf(&l->check, "%s: %" PRId64 " events handled, expected 3", spec, r.events);
out:
	r.seconds = (double)(sc_now() - t0) / 1e9;
	sc_check_finish(&l->check, &r);
	sr_processor_destroy(proc);
	sr_sequencer_destroy(seq);
	sr_ring_destroy(ring);
	free(l);
	return r;
}

/*
 * Latency bounds ("an alert wakes a waiter within 100 ms") are about the
 * mechanism, not about the scheduler: with ctest and Criterion both running
 * jobs in parallel, a 64-thread stress program next door can keep a woken
 * thread off both cores for a few hundred ms.  So a scenario whose only fault
 * is a slow wake-up is repeated, up to `tries` times, and the fastest run
 * counts; a strategy that really needs longer (a periodic poll instead of a
 * wake-up) is slow every time.  A correctness failure is returned at once.
 */
SC_FN sc_result
sc_alert_wakes_best_of(const char *spec, bool with_dependent, int64_t bound_ns, int tries)
{
	sc_result best = sc_alert_wakes(spec, with_dependent);
	for (int i = 1; i < tries && best.ok && best.max_latency_ns >= bound_ns; i++) {
		sc_result r = sc_alert_wakes(spec, with_dependent);
		if (!r.ok || r.max_latency_ns < best.max_latency_ns)
			best = r;
	}
	return best;
}

SC_FN sc_result
sc_halt_while_waiting_best_of(const char *spec, enum sr_producer_mode mode, int64_t bound_ns, int tries)
{
	sc_result best = sc_halt_while_waiting(spec, mode);
	for (int i = 1; i < tries && best.ok && best.max_latency_ns >= bound_ns; i++) {
		sc_result r = sc_halt_while_waiting(spec, mode);
		if (!r.ok || r.max_latency_ns < best.max_latency_ns)
			best = r;
	}
	return best;
}

/* ------------------------------------------------------------------------ */
/* Claim with a deadline on a full ring.                                    */
/* ------------------------------------------------------------------------ */

typedef struct sc_gate_ctx {
	sc_check check;
	atomic_int open;
	atomic_int in_handler;
	atomic_llong handled;
	int64_t last;               /* consumer-private */
	sr_sequencer *seq;
	int64_t timeout_ns;
	atomic_int claim_results[8];
} sc_gate_ctx;

SC_FN int
sc_gate_on_event(void *arg, void *slot, int64_t s, bool end_of_batch)
{
	(void)end_of_batch;
	sc_gate_ctx *g = arg;
	atomic_store(&g->in_handler, 1);
	while (!atomic_load(&g->open))
		sc_sleep_ns(200 * 1000);
	if (*(const int64_t *)slot != s || s != g->last + 1)
		sc_failf(&g->check, "consumer: sequence %" PRId64 " holds %" PRId64 " after %" PRId64,
		    s, *(const int64_t *)slot, g->last);
	g->last = s;
	atomic_fetch_add(&g->handled, 1);
	return 0;
}

typedef struct sc_claimer {
	sc_gate_ctx *g;
	int id;
	pthread_t thread;
} sc_claimer;

SC_FN void *
sc_claimer_main(void *arg)
{
	sc_claimer *c = arg;
	int64_t first;
	int rc = sr_sequencer_claim_timeout(c->g->seq, 1, c->g->timeout_ns, &first);
	atomic_store(&c->g->claim_results[c->id], rc);
	return NULL;
}

SC_FN void *
sc_gate_opener(void *arg)
{
	sc_gate_ctx *g = arg;
	sc_sleep_ns(20 * SC_MS);
	atomic_store(&g->open, 1);
	return NULL;
}

/*
 * A ring of 8 is filled while its consumer is stopped inside its handler.
 * try_claim is SR_EFULL; a claim with a 50 ms deadline (by the caller and,
 * in MP mode, by `claimers` threads at once) returns SR_ETIMEDOUT after at
 * least 50 ms without claiming anything; a claim with a 10 s deadline made
 * while the consumer resumes succeeds with the next sequence, and every
 * event, the late one included, is handled once in order.
 * n[0]: elapsed ns of the timed-out claim; n[1]: elapsed ns of the claim that
 * succeeded once the consumer resumed.
 */
SC_FN sc_result
sc_claim_deadline(enum sr_producer_mode mode, bool synchronize, int claimers, const char *spec)
{
	sc_result r;
	sc_result_init(&r);
	sc_gate_ctx *g = calloc(1, sizeof *g);
	sc_check_init(&g->check);
	g->last = -1;
	sr_ring *ring = NULL;
	sr_sequencer *seq = NULL;
	sr_processor *proc = NULL;
	bool started = false;
	int64_t t0 = sc_now();
	const int64_t timeout = 50 * SC_MS;
	sr_error err;
	ring = sr_ring_create(8, sizeof(int64_t), NULL, NULL, &err);
	seq = sc_sequencer(&g->check, 8, mode, spec, synchronize, -1);
	if (ring == NULL || seq == NULL)
		goto out;
	g->seq = seq;
	sr_handler h = { .ctx = g, .on_event = sc_gate_on_event };
	proc = sc_processor(&g->check, ring, seq, NULL, 0, &h, 0);
	if (proc == NULL)
		goto out;
	sr_sequencer_add_gating(seq, sr_processor_sequence(proc));
	if (sr_processor_start(proc, &err) != SR_OK) {
		sc_failf(&g->check, "start failed: %s", err.message);
		goto out;
	}
	started = true;
	sc_publish_values(seq, ring, 1);
	while (!atomic_load(&g->in_handler))
		sched_yield();
	sc_publish_values(seq, ring, 7); /* 8 published, none released: full */

	int64_t s = -100;
	int rc = sr_sequencer_try_claim(seq, &s);
	if (rc != SR_EFULL) {
		sc_failf(&g->check, "try_claim on a full ring returned %d, expected SR_EFULL", rc);
		goto out;
	}
	if (sr_sequencer_remaining_capacity(seq) != 0)
		sc_failf(&g->check, "remaining capacity of a full ring is %" PRId64,
		    sr_sequencer_remaining_capacity(seq));
	int64_t before = sc_now();
	rc = sr_sequencer_claim_timeout(seq, 1, timeout, &s);
	r.n[0] = sc_now() - before;
	if (rc != SR_ETIMEDOUT) {
		sc_failf(&g->check, "claim with a 50 ms deadline on a full ring returned %d (%s), expected"
		    " SR_ETIMEDOUT", rc, sr_strerror(rc));
		goto out;
	}
	if (r.n[0] < timeout - SC_MS)
		sc_failf(&g->check, "claim gave up after %" PRId64 " us, before its 50 ms deadline",
		    r.n[0] / 1000);
	rc = sr_sequencer_claim_timeout(seq, 3, 20 * SC_MS, &s);
	if (rc != SR_ETIMEDOUT)
		sc_failf(&g->check, "claim of 3 with a 20 ms deadline returned %d, expected SR_ETIMEDOUT", rc);
	if (mode == SR_PRODUCER_MULTI && claimers > 0) {
		sc_claimer cl[8];
		if (claimers > 8)
			claimers = 8;
		g->timeout_ns = timeout;
		for (int i = 0; i < claimers; i++) {
			cl[i].g = g;
			cl[i].id = i;
			atomic_store(&g->claim_results[i], 1);
			pthread_create(&cl[i].thread, NULL, sc_claimer_main, &cl[i]);
		}
		for (int i = 0; i < claimers; i++) {
			pthread_join(cl[i].thread, NULL);
			int crc = atomic_load(&g->claim_results[i]);
			if (crc != SR_ETIMEDOUT)
				sc_failf(&g->check, "concurrent claimer %d of %d returned %d, expected SR_ETIMEDOUT",
				    i, claimers, crc);
		}
	}
	if (sr_sequencer_cursor(seq) != 7)
		sc_failf(&g->check, "timed-out claims moved the cursor to %" PRId64, sr_sequencer_cursor(seq));
	if (atomic_load(&g->handled) != 0)
		sc_failf(&g->check, "the stopped consumer handled %lld events", (long long)atomic_load(&g->handled));

	/* Resume the consumer while a claim with a long deadline waits. */
	pthread_t opener;
	pthread_create(&opener, NULL, sc_gate_opener, g);
	before = sc_now();
	rc = sr_sequencer_claim_timeout(seq, 1, 10 * SC_S, &s);
	r.n[1] = sc_now() - before;
	pthread_join(opener, NULL);
	if (rc != SR_OK || s != 8) {
		sc_failf(&g->check, "claim once the consumer resumed returned %d with sequence %" PRId64
		    ", expected SR_OK and 8", rc, s);
		atomic_store(&g->open, 1);
		goto out;
	}
	*(int64_t *)sr_ring_slot(ring, s) = s;
	sr_sequencer_publish(seq, s);
	sc_await_sequence(&g->check, sr_processor_sequence(proc), 8, "consumer");
	r.events = atomic_load(&g->handled);
	if (!sc_failed(&g->check) && r.events != 9)
		sc_failf(&g->check, "%" PRId64 " events handled, expected 9", r.events);
out:
	atomic_store(&g->open, 1);
	if (started) {
		sr_processor_halt(proc);
		sr_processor_join(proc);
	}
	r.seconds = (double)(sc_now() - t0) / 1e9;
	sc_check_finish(&g->check, &r);
	sr_processor_destroy(proc);
	sr_sequencer_destroy(seq);
	sr_ring_destroy(ring);
	free(g);
	return r;
}

/* ------------------------------------------------------------------------ */
/* Drain then halt.                                                         */
/* ------------------------------------------------------------------------ */

typedef struct sc_drain_ctx {
	sc_check check;
	int64_t handled;            /* consumer-private, read after join */
	int64_t last;
	int64_t nap_every;
} sc_drain_ctx;

SC_FN int
sc_drain_on_event(void *arg, void *slot, int64_t s, bool end_of_batch)
{
	(void)end_of_batch;
	sc_drain_ctx *d = arg;
	if (*(const int64_t *)slot != s || s != d->last + 1)
		sc_failf(&d->check, "consumer: sequence %" PRId64 " holds %" PRId64 " after %" PRId64,
		    s, *(const int64_t *)slot, d->last);
	d->last = s;
	d->handled++;
	if (d->nap_every > 0 && d->handled % d->nap_every == 0)
		sc_sleep_ns(20 * 1000);
	return 0;
}

typedef struct sc_drain_producer {
	sr_sequencer *seq;
	sr_ring *ring;
	int64_t count;
	pthread_t thread;
} sc_drain_producer;

SC_FN void *
sc_drain_producer_main(void *arg)
{
	sc_drain_producer *p = arg;
	for (int64_t i = 0; i < p->count; i++) {
		int64_t s;
		if (sr_sequencer_claim(p->seq, &s) != SR_OK)
			break;
		*(int64_t *)sr_ring_slot(p->ring, s) = s;
		sr_sequencer_publish(p->seq, s);
	}
	return NULL;
}

/*
 * Producers publish `count` events each through a small ring to a consumer
 * that naps now and then, so that the ring is full of unhandled events when,
 * right after the last publish, drain_and_halt is called.  Every event must
 * have been handled when the processor stops, and not one more.
 * n[0]: events still unhandled when drain_and_halt was called.
 */
SC_FN sc_result
sc_drain(enum sr_producer_mode mode, int producers, int64_t count, const char *spec)
{
	sc_result r;
	sc_result_init(&r);
	sc_drain_ctx *d = calloc(1, sizeof *d);
	sc_check_init(&d->check);
	d->last = -1;
	d->nap_every = 64;
	sr_ring *ring = NULL;
	sr_sequencer *seq = NULL;
	sr_processor *proc = NULL;
	sc_drain_producer prods[8];
	int64_t t0 = sc_now();
	if (mode == SR_PRODUCER_SINGLE || producers < 1)
		producers = 1;
	if (producers > 8)
		producers = 8;
	sr_error err;
	ring = sr_ring_create(256, sizeof(int64_t), NULL, NULL, &err);
	seq = sc_sequencer(&d->check, 256, mode, spec, true, -1);
	if (ring == NULL || seq == NULL)
		goto out;
	sr_handler h = { .ctx = d, .on_event = sc_drain_on_event };
	proc = sc_processor(&d->check, ring, seq, NULL, 0, &h, 0);
	if (proc == NULL)
		goto out;
	sr_sequencer_add_gating(seq, sr_processor_sequence(proc));
	if (sr_processor_drain_and_halt(proc) != SR_ESTATE)
		sc_failf(&d->check, "drain_and_halt of a processor never started was not SR_ESTATE");
	if (sr_processor_start(proc, &err) != SR_OK) {
		sc_failf(&d->check, "start failed: %s", err.message);
		goto out;
	}
	for (int i = 0; i < producers; i++) {
		prods[i] = (sc_drain_producer){ .seq = seq, .ring = ring, .count = count };
		pthread_create(&prods[i].thread, NULL, sc_drain_producer_main, &prods[i]);
	}
	for (int i = 0; i < producers; i++)
		pthread_join(prods[i].thread, NULL);
	int64_t total = (int64_t)producers * count;
	r.n[0] = total - 1 - sr_sequence_get(sr_processor_sequence(proc));
	int rc = sr_processor_drain_and_halt(proc);
	if (rc != SR_OK)
		sc_failf(&d->check, "drain_and_halt returned %d", rc);
	sr_processor_join(proc);
	r.events = d->handled;
	if (!sc_failed(&d->check) && (d->handled != total || d->last != total - 1))
		sc_failf(&d->check, "drain_and_halt stopped after %" PRId64 " events (last %" PRId64
		    "), expected all %" PRId64, d->handled, d->last, total);
	if (sr_processor_state_get(proc) != SR_PROCESSOR_HALTED)
		sc_failf(&d->check, "state %d after drain_and_halt and join", (int)sr_processor_state_get(proc));
	if (sr_processor_drain_and_halt(proc) != SR_ESTATE)
		sc_failf(&d->check, "drain_and_halt of a halted processor was not SR_ESTATE");
out:
	r.seconds = (double)(sc_now() - t0) / 1e9;
	sc_check_finish(&d->check, &r);
	sr_processor_destroy(proc);
	sr_sequencer_destroy(seq);
	sr_ring_destroy(ring);
	free(d);
	return r;
}

/* ------------------------------------------------------------------------ */
/* Stress-program helpers.                                                  */
/* ------------------------------------------------------------------------ */

/* Prints one line per scenario; returns 1 on failure, for summing. */
SC_FN int
sc_report(const char *program, const char *name, const sc_result *r)
{
	if (r->ok) {
		printf("%s: %-52s ok   %10" PRId64 " events  %7.3f s", program, name, r->events, r->seconds);
		if (r->max_latency_ns > 0)
			printf("  max latency %.3f ms", (double)r->max_latency_ns / 1e6);
		printf("\n");
	} else {
		printf("%s: %-52s FAIL %s\n", program, name, r->message);
	}
	fflush(stdout);
	return r->ok ? 0 : 1;
}

SC_FN int
sc_summary(const char *program, int scenarios, int failures, int64_t started_ns)
{
	printf("%s: %s: %d scenarios, %d failed, %.2f s%s\n", program,
	    failures == 0 ? "PASS" : "FAIL", scenarios, failures,
	    (double)(sc_now() - started_ns) / 1e9, SC_TSAN ? " (ThreadSanitizer counts)" : "");
	return failures == 0 ? 0 : 1;
}

#endif /* SC_SCENARIOS_H */
