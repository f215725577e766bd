/* SPDX-License-Identifier: Apache-2.0 */
/*
 * scenario_setup.c: building what the scenarios run on (a ring, its
 * sequencer, processors, producer threads) and waiting for their consumers,
 * with every failure recorded in the scenario's checker.
 */
#include "scenario_internal.h"

const char *const sc_strategies[SC_STRATEGY_COUNT] = {
	"busyspin", "yield", "sleep", "block", "liteblock", "timeout", "phased",
	"phased:fallback=block", "phased:fallback=timeout", "phased:fallback=sleep",
};

bool
sc_parse_wait(sc_check *c, const char *spec, sr_wait_config *config)
{
	sr_error err;
	if (sr_wait_config_parse(spec, config, &err) != SR_OK) {
		sc_failf(c, "wait strategy '%s' does not parse: %s", spec, err.message);
		return false;
	}
	return true;
}

sr_sequencer *
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

sr_processor *
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

uint64_t
sc_rand(uint64_t *state)
{
	uint64_t x = *state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * UINT64_C(2685821657736338717);
}

void
sc_threads_start(sc_thread *t, int n, void *(*fn)(void *), void *ctx)
{
	for (int i = 0; i < n; i++) {
		t[i].ctx = ctx;
		t[i].id = i;
		pthread_create(&t[i].thread, NULL, fn, &t[i]);
	}
}

void
sc_threads_join(sc_thread *t, int n)
{
	for (int i = 0; i < n; i++)
		pthread_join(t[i].thread, NULL);
}

void
sc_producers_init(sc_producers *p, sc_check *check, const sc_line *line, int64_t first,
    int64_t count, sc_fill_fn *fill, void *ctx)
{
	*p = (sc_producers){ .check = check, .line = line, .first = first, .count = count, .fill = fill, .ctx = ctx };
	atomic_init(&p->done, 0);
}

void *
sc_producer_main(void *thread)
{
	const sc_thread *t = thread;
	sc_producers *p = t->ctx;
	for (int64_t i = 0; i < p->count && !sc_failed(p->check); i++) {
		int64_t s;
		int rc = sr_sequencer_claim(p->line->seq, &s);
		if (rc != SR_OK) {
			sc_failf(p->check, "producer %d: claim returned %d", t->id, rc);
			break;
		}
		int64_t prev = s - p->line->ring->slot_count;
		if (!p->fill(p->ctx, t->id, sr_ring_slot(p->line->ring, s), s, prev >= p->first ? prev : -1))
			break;
		sr_sequencer_publish(p->line->seq, s);
	}
	atomic_fetch_add(&p->done, 1);
	return NULL;
}

int
sc_producer_count(enum sr_producer_mode mode, int n, int max)
{
	if (mode == SR_PRODUCER_SINGLE || n < 1)
		return 1;
	return n > max ? max : n;
}

bool
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

void
sc_publish_values(sr_sequencer *seq, sr_ring *ring, int count)
{
	for (int i = 0; i < count; i++) {
		int64_t s;
		sr_sequencer_claim(seq, &s);
		*(int64_t *)sr_ring_slot(ring, s) = s;
		sr_sequencer_publish(seq, s);
	}
}

sc_line_spec
sc_int64_line(int64_t size, enum sr_producer_mode mode, const char *wait)
{
	return (sc_line_spec){
		.size = size, .slot_size = sizeof(int64_t), .mode = mode, .wait = wait, .synchronize = true,
		.initial_sequence = -1,
	};
}

bool
sc_line_build(sc_line *l, sc_check *c, const sc_line_spec *spec)
{
	*l = (sc_line){ 0 };
	sr_error err;
	l->ring = sr_ring_create(spec->size, spec->slot_size, NULL, NULL, &err);
	if (l->ring == NULL) {
		sc_failf(c, "sr_ring_create failed: %s", err.message);
		return false;
	}
	sr_wait_config wait;
	if (!sc_parse_wait(c, spec->wait, &wait))
		return false;
	l->seq = sc_sequencer_cfg(c, spec->size, spec->mode, &wait, spec->synchronize, spec->initial_sequence);
	return l->seq != NULL;
}

bool
sc_line_consumer(sc_line *l, sc_check *c, const sr_handler *h)
{
	l->proc = sc_processor(c, l->ring, l->seq, NULL, 0, h, 0);
	if (l->proc == NULL)
		return false;
	sr_sequencer_add_gating(l->seq, sr_processor_sequence(l->proc));
	return true;
}

bool
sc_line_start(sc_line *l, sc_check *c)
{
	sr_error err;
	if (sr_processor_start(l->proc, &err) != SR_OK) {
		sc_failf(c, "sr_processor_start failed: %s", err.message);
		return false;
	}
	return true;
}

bool
sc_line_open(sc_line *l, sc_check *c, const sc_line_spec *spec, const sr_handler *h)
{
	return sc_line_build(l, c, spec) && sc_line_consumer(l, c, h) && sc_line_start(l, c);
}

void
sc_line_destroy(sc_line *l)
{
	sr_processor_halt(l->proc);
	sr_processor_join(l->proc);
	sr_processor_destroy(l->proc);
	sr_sequencer_destroy(l->seq);
	sr_ring_destroy(l->ring);
	*l = (sc_line){ 0 };
}
