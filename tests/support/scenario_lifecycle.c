/* SPDX-License-Identifier: Apache-2.0 */
/*
 * scenario_lifecycle.c: a processor's lifecycle under each strategy: halt
 * while it waits, and the timeouts it reports while idle.
 */
#include <sched.h>
#include <stdlib.h>

#include "scenario_internal.h"

typedef struct life_ctx {
	sc_check check;
	int64_t started_ns;
	sc_line line;
	atomic_int started;
	atomic_int shutdowns;
	atomic_llong shutdown_at;
	atomic_llong handled;
	atomic_llong timeouts;
	int64_t last;               /* consumer-private: last handled sequence */
} life_ctx;

static void
on_start(void *arg)
{
	life_ctx *l = arg;
	atomic_fetch_add(&l->started, 1);
}

static void
on_shutdown(void *arg)
{
	life_ctx *l = arg;
	atomic_store(&l->shutdown_at, sc_now());
	atomic_fetch_add(&l->shutdowns, 1);
}

static int
on_event(void *arg, void *slot, int64_t s, bool end_of_batch)
{
	(void)end_of_batch;
	life_ctx *l = arg;
	if (*(const int64_t *)slot != s)
		sc_failf(&l->check, "slot of %" PRId64 " holds %" PRId64, s, *(const int64_t *)slot);
	if (s != l->last + 1)
		sc_failf(&l->check, "sequence %" PRId64 " after %" PRId64, s, l->last);
	l->last = s;
	atomic_fetch_add(&l->handled, 1);
	return 0;
}

static void
on_timeout(void *arg, int64_t s)
{
	life_ctx *l = arg;
	if (s != l->last)
		sc_failf(&l->check, "on_timeout reported sequence %" PRId64 ", but the last handled is %"
		    PRId64, s, l->last);
	atomic_fetch_add(&l->timeouts, 1);
}

/* A started processor with every hook above over an idle 8-slot ring; NULL after a failure. */
static life_ctx *
life_begin(const char *spec, enum sr_producer_mode mode)
{
	life_ctx *l = calloc(1, sizeof *l);
	l->started_ns = sc_begin(&l->check);
	l->last = -1;
	sc_line_spec lspec = sc_int64_line(8, mode, spec);
	sr_handler h = { .ctx = l, .on_event = on_event, .on_start = on_start,
	    .on_shutdown = on_shutdown, .on_timeout = on_timeout };
	sc_line_open(&l->line, &l->check, &lspec, &h);
	return l;
}

/* The verdict of l's run, r its counts; frees l. */
static sc_result
life_end(life_ctx *l, sc_result r)
{
	sc_finish(&l->check, &r, l->started_ns);
	sc_line_destroy(&l->line);
	free(l);
	return r;
}

sc_result
sc_halt_while_waiting(const char *spec, enum sr_producer_mode mode)
{
	sc_result r = sc_result_ok();
	life_ctx *l = life_begin(spec, mode);
	if (sc_failed(&l->check))
		return life_end(l, r);
	sr_processor *proc = l->line.proc;
	while (atomic_load(&l->started) == 0)
		sched_yield();
	sc_sleep_ns(30 * SC_MS);
	int64_t halted_at = sc_now();
	sr_processor_halt(proc);
	int64_t deadline = halted_at + SC_WAKE_DEADLINE_NS;
	while (atomic_load(&l->shutdowns) == 0 && sc_now() < deadline)
		sc_sleep_ns(100 * 1000);
	if (atomic_load(&l->shutdowns) == 0) {
		sc_failf(&l->check, "%s: halt did not stop a waiting processor within %lld s", spec,
		    (long long)(SC_WAKE_DEADLINE_NS / SC_S));
		sc_publish_values(l->line.seq, l->line.ring, 1); /* wake it so that it can be joined */
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
	/* A halted processor starts again, waits as before, and halts again. */
	sr_error err;
	if (!sc_failed(&l->check) && sr_processor_start(proc, &err) != SR_OK)
		sc_failf(&l->check, "%s: restart of a halted processor failed: %s", spec, err.message);
	else if (!sc_failed(&l->check)) {
		sr_processor_halt(proc);
		sr_processor_join(proc);
		if (atomic_load(&l->started) != 2 || atomic_load(&l->shutdowns) != 2 ||
		    atomic_load(&l->handled) != 0)
			sc_failf(&l->check, "%s: after a restart and a halt: %d starts, %d shutdowns, %lld "
			    "events; expected 2, 2, 0", spec, atomic_load(&l->started),
			    atomic_load(&l->shutdowns), (long long)atomic_load(&l->handled));
	}
	return life_end(l, r);
}

/*
 * One idle spell of sc_timeout_hook: idle_ns, then until min_timeouts
 * timeouts came since it began; the timeouts, and the spell's length in
 * *spell_ns.
 */
static int64_t
idle_spell(life_ctx *l, const char *spec, int64_t idle_ns, int64_t min_timeouts, int64_t *spell_ns)
{
	int64_t began = sc_now(), before = atomic_load(&l->timeouts);
	sc_sleep_ns(idle_ns);
	int64_t deadline = sc_now() + SC_WAKE_DEADLINE_NS;
	while (atomic_load(&l->timeouts) - before < min_timeouts && sc_now() < deadline)
		sc_sleep_ns(SC_MS);
	int64_t got = atomic_load(&l->timeouts) - before;
	*spell_ns = sc_now() - began;
	if (got < min_timeouts)
		sc_failf(&l->check, "%s: %" PRId64 " timeouts in %.1f s idle, expected %" PRId64, spec, got,
		    (double)*spell_ns / 1e9, min_timeouts);
	return got;
}

sc_result
sc_timeout_hook(const char *spec, int64_t idle_ns, int64_t min_timeouts)
{
	sc_result r = sc_result_ok();
	life_ctx *l = life_begin(spec, SR_PRODUCER_SINGLE);
	if (sc_failed(&l->check))
		return life_end(l, r);
	sr_processor *proc = l->line.proc;
	r.n[0] = idle_spell(l, spec, idle_ns, min_timeouts, &r.n[2]);
	sc_publish_values(l->line.seq, l->line.ring, 3);
	if (sc_await_sequence(&l->check, sr_processor_sequence(proc), 2, "consumer"))
		r.n[1] = idle_spell(l, spec, idle_ns, min_timeouts, &r.n[3]);
	sr_processor_halt(proc);
	sr_processor_join(proc);
	r.events = atomic_load(&l->handled);
	if (!sc_failed(&l->check) && r.events != 3)
		sc_failf(&l->check, "%s: %" PRId64 " events handled, expected 3", spec, r.events);
	return life_end(l, r);
}
