/* SPDX-License-Identifier: Apache-2.0 */
/*
 * scenario_alert.c: an alert wakes a barrier's waiter in every strategy.
 */
#include <sched.h>
#include <stdlib.h>

#include "scenario_internal.h"

typedef struct alert_ctx {
	sr_barrier *barrier;
	int64_t wait_for;
	atomic_int started;
	atomic_int done;
	atomic_llong returned_at;
	int rc;
	int64_t available;
} alert_ctx;

static void *
waiter_main(void *arg)
{
	alert_ctx *a = arg;
	atomic_store(&a->started, 1);
	a->rc = sr_barrier_wait_for(a->barrier, a->wait_for, &a->available);
	atomic_store(&a->returned_at, sc_now());
	atomic_store(&a->done, 1);
	return NULL;
}

static void
publish_one(sr_sequencer *seq)
{
	int64_t s;
	sr_sequencer_claim(seq, &s);
	sr_sequencer_publish(seq, s);
}

sc_result
sc_alert_wakes(const char *spec, bool with_dependent)
{
	sc_result r = sc_result_ok();
	sc_check check;
	int64_t t0 = sc_begin(&check);
	sr_sequencer *seq = NULL;
	sr_sequence *dep = aligned_alloc(SR_CACHELINE, sizeof *dep);
	sr_barrier *b = aligned_alloc(SR_CACHELINE, sizeof *b);
	alert_ctx a;
	memset(&a, 0, sizeof a);
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
	if (with_dependent)
		publish_one(seq);
	a.barrier = b;
	a.wait_for = 0;
	atomic_init(&a.started, 0);
	atomic_init(&a.done, 0);
	atomic_init(&a.returned_at, 0);
	pthread_t th;
	pthread_create(&th, NULL, waiter_main, &a);
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
	int64_t deadline = alerted_at + SC_WAKE_DEADLINE_NS;
	while (!atomic_load(&a.done) && sc_now() < deadline)
		sc_sleep_ns(100 * 1000);
	if (!atomic_load(&a.done)) {
		sc_failf(&check, "%s%s: alert did not wake the waiter within %lld s", spec,
		    with_dependent ? " (waiting on a dependent)" : "", (long long)(SC_WAKE_DEADLINE_NS / SC_S));
		/* Unblock it so it can be joined: publish, and release the dependent. */
		if (!with_dependent)
			publish_one(seq);
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
	if (!with_dependent)
		publish_one(seq);
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
	sc_finish(&check, &r, t0);
	sr_sequencer_destroy(seq);
	free(dep);
	free(b);
	return r;
}

sc_result
sc_alert_wakes_every_strategy(bool with_dependent)
{
	sc_result all = sc_result_ok();
	for (int k = 0; k < SC_STRATEGY_COUNT; k++) {
		sc_result r = sc_alert_wakes(sc_strategies[k], with_dependent);
		all.events += r.events;
		all.seconds += r.seconds;
		if (r.max_latency_ns > all.max_latency_ns)
			all.max_latency_ns = r.max_latency_ns;
		if (!r.ok) {
			all.ok = false;
			snprintf(all.message, sizeof all.message, "%s", r.message);
			break;
		}
	}
	return all;
}
