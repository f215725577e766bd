/* SPDX-License-Identifier: Apache-2.0 */
/* sr_disruptor.c: the consumer-graph builder and the graph's lifecycle. */
#include "sr_disruptor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sr_backoff.h"
#include "sr_time.h"

struct stage {
	sr_processor *proc;
	int deps[SR_GROUP_MAX];    /* the stages it follows */
	int ndeps;
	bool followed;             /* some later stage follows it: not an end */
};

struct sr_disruptor {
	sr_ring *ring;
	sr_sequencer *sequencer;
	int64_t max_batch_size;
	sr_rewind_strategy rewind;
	struct stage stages[SR_DISRUPTOR_MAX_STAGES];
	int stage_count;
	bool started;              /* once started, the graph is fixed */
	bool running;
};

void
sr_disruptor_config_default(sr_disruptor_config *c, int64_t slot_count, size_t slot_size,
    enum sr_producer_mode producer)
{
	memset(c, 0, sizeof *c);
	c->slot_count = slot_count;
	c->slot_size = slot_size;
	c->producer = producer;
	c->synchronize_enqueue_when_full = true;
	sr_wait_config_default(&c->wait, SR_WAIT_BLOCK);
}

sr_disruptor *
sr_disruptor_create(const sr_disruptor_config *c, sr_error *err)
{
	if (c == NULL) {
		sr_error_set(err, SR_EINVAL, "disruptor config is NULL");
		return NULL;
	}
	if (c->max_batch_size < 0 || c->rewind.pause_ns < 0) {
		sr_error_set(err, SR_EINVAL, "%s %lld is negative: expected 0 or more",
		    c->max_batch_size < 0 ? "max_batch_size" : "rewind.pause_ns",
		    (long long)(c->max_batch_size < 0 ? c->max_batch_size : c->rewind.pause_ns));
		return NULL;
	}
	sr_disruptor *d = calloc(1, sizeof *d);
	if (d == NULL) {
		sr_error_set(err, SR_ENOMEM, "cannot allocate a disruptor");
		return NULL;
	}
	sr_sequencer_config sc;
	sr_sequencer_config_default(&sc, c->slot_count, c->producer);
	sc.synchronize_enqueue_when_full = c->synchronize_enqueue_when_full;
	sc.wait = c->wait;
	d->ring = sr_ring_create(c->slot_count, c->slot_size, c->slot_init, c->slot_init_ctx, err);
	d->sequencer = d->ring != NULL ? sr_sequencer_create(&sc, err) : NULL;
	if (d->sequencer == NULL) {
		sr_ring_destroy(d->ring);
		free(d);
		return NULL;
	}
	d->max_batch_size = c->max_batch_size;
	d->rewind = c->rewind;
	return d;
}

void
sr_disruptor_destroy(sr_disruptor *d)
{
	if (d == NULL)
		return;
	/* Never free a running stage: the graph's, or one restarted by hand after a halt. */
	(void)sr_disruptor_halt(d);
	for (int i = 0; i < d->stage_count; i++)
		sr_processor_destroy(d->stages[i].proc);
	sr_sequencer_destroy(d->sequencer);
	sr_ring_destroy(d->ring);
	free(d);
}

sr_ring *
sr_disruptor_ring(sr_disruptor *d)
{
	return d != NULL ? d->ring : NULL;
}

sr_sequencer *
sr_disruptor_sequencer(sr_disruptor *d)
{
	return d != NULL ? d->sequencer : NULL;
}

int
sr_disruptor_stage_count(const sr_disruptor *d)
{
	return d != NULL ? d->stage_count : 0;
}

sr_processor *
sr_disruptor_processor(sr_disruptor *d, int stage)
{
	if (d == NULL || stage < 0 || stage >= d->stage_count)
		return NULL;
	return d->stages[stage].proc;
}

static sr_group
failed(sr_disruptor *d, int code)
{
	sr_group g;
	memset(&g, 0, sizeof g);
	g.disruptor = d;
	g.status = code;
	return g;
}

/* "'name'" or "at index i" for messages. */
static const char *
describe(const sr_handler *h, int index, char *buf, size_t size)
{
	if (h->name != NULL)
		snprintf(buf, size, "'%s'", h->name);
	else
		snprintf(buf, size, "at index %d", index);
	return buf;
}

static bool
same_handler(const sr_handler *a, const sr_handler *b)
{
	return a->on_event == b->on_event && a->ctx == b->ctx;
}

/* The stage running handler h, or -1. */
static int
find_stage(const sr_disruptor *d, const sr_handler *h)
{
	for (int i = 0; i < d->stage_count; i++)
		if (same_handler(&d->stages[i].proc->handler, h))
			return i;
	return -1;
}

/*
 * The index k of the first of deps[0..ndeps) that stage `up` is or precedes,
 * or -1.  One walk back from the deps, each stage visited once, so that it
 * costs the graph's size: a graph whose stages each follow the two before
 * it has as many paths as the Fibonacci numbers, and a walk of every path
 * took 0.9 s at 42 stages.  A stage first reached from deps[k] is behind no
 * earlier dep (their walks would have reached it), so the k found is the
 * first.
 */
static int
first_dep_after(const sr_disruptor *d, int up, const int *deps, int ndeps)
{
	bool visited[SR_DISRUPTOR_MAX_STAGES] = { false };
	int to_visit[SR_DISRUPTOR_MAX_STAGES]; /* each stage is put here once at most */
	for (int k = 0; k < ndeps; k++) {
		int count = 0;
		if (!visited[deps[k]]) {
			visited[deps[k]] = true;
			to_visit[count++] = deps[k];
		}
		while (count > 0) {
			int at = to_visit[--count];
			if (at == up)
				return k;
			const struct stage *st = &d->stages[at];
			for (int i = 0; i < st->ndeps; i++) {
				if (!visited[st->deps[i]]) {
					visited[st->deps[i]] = true;
					to_visit[count++] = st->deps[i];
				}
			}
		}
	}
	return -1;
}

/* Checks that the n handlers may be added after stages deps (cycles, twice). */
static int
check_new_handlers(const sr_disruptor *d, const int *deps, int ndeps,
    const sr_handler *handlers, int n, sr_error *err)
{
	char name[96];
	for (int i = 0; i < n; i++) {
		const sr_handler *h = &handlers[i];
		if (h->on_event == NULL)
			return sr_error_set(err, SR_EINVAL,
			    "handler %s has no on_event function", describe(h, i, name, sizeof name));
		for (int j = 0; j < i; j++)
			if (same_handler(&handlers[j], h))
				return sr_error_set(err, SR_EINVAL,
				    "handler %s is given twice in the same call: expected each handler once",
				    describe(h, i, name, sizeof name));
		int existing = find_stage(d, h);
		if (existing < 0)
			continue;
		int k = first_dep_after(d, existing, deps, ndeps);
		if (k >= 0)
			return sr_error_set(err, SR_EINVAL,
			    "handler %s (stage %d) would follow stage %d, which follows it: "
			    "a cycle; a handler may only follow stages added before it",
			    describe(h, i, name, sizeof name), existing, deps[k]);
		return sr_error_set(err, SR_EINVAL,
		    "handler %s was added twice (it is already stage %d): expected each handler once",
		    describe(h, i, name, sizeof name), existing);
	}
	return SR_OK;
}

/* Adds n stages following deps; the group of the new stages. */
static sr_group
add_stages(sr_disruptor *d, const int *deps, int ndeps, const sr_handler *handlers, int n,
    sr_error *err)
{
	if (d == NULL) /* err keeps sr_disruptor_create's message (see the header) */
		return failed(d, SR_EINVAL);
	if (d->started) {
		sr_error_set(err, SR_ESTATE,
		    "the graph was started: stages can only be added before sr_disruptor_start");
		return failed(d, SR_ESTATE);
	}
	if (handlers == NULL || n < 1 || n > SR_GROUP_MAX) {
		sr_error_set(err, SR_EINVAL, "%d handlers%s: expected 1 to %d", n,
		    handlers == NULL ? " at NULL" : "", SR_GROUP_MAX);
		return failed(d, SR_EINVAL);
	}
	if (d->stage_count + n > SR_DISRUPTOR_MAX_STAGES) {
		sr_error_set(err, SR_EINVAL, "%d stages plus %d exceed SR_DISRUPTOR_MAX_STAGES (%d)",
		    d->stage_count, n, SR_DISRUPTOR_MAX_STAGES);
		return failed(d, SR_EINVAL);
	}
	int rc = check_new_handlers(d, deps, ndeps, handlers, n, err);
	if (rc != SR_OK)
		return failed(d, rc);
	/*
	 * The new stages are gated on before their inputs are ungated, so
	 * the sequencer must hold them all at once (with any gating sequence
	 * the caller added, a poller's say).
	 */
	int32_t gating = sr_atomic_load_acquire_i32(&d->sequencer->gating_count);
	if (gating + n > SR_SEQUENCER_MAX_GATING) {
		sr_error_set(err, SR_EINVAL,
		    "%d gating sequences (the graph's ends and any added by hand) plus %d new stages "
		    "exceed SR_SEQUENCER_MAX_GATING (%d)", (int)gating, n, SR_SEQUENCER_MAX_GATING);
		return failed(d, SR_EINVAL);
	}

	const sr_sequence *after[SR_GROUP_MAX];
	for (int k = 0; k < ndeps; k++)
		after[k] = sr_processor_sequence(d->stages[deps[k]].proc);
	sr_processor *made[SR_GROUP_MAX];
	for (int i = 0; i < n; i++) {
		sr_processor_config pc = {
			.ring = d->ring, .sequencer = d->sequencer,
			.dependents = after, .dependent_count = ndeps,
			.handler = handlers[i], .max_batch_size = d->max_batch_size,
			.rewind = d->rewind,
		};
		made[i] = sr_processor_create(&pc, err);
		if (made[i] == NULL) {
			while (i-- > 0)
				sr_processor_destroy(made[i]);
			return failed(d, err != NULL ? err->code : SR_EINVAL);
		}
	}

	/*
	 * Gate on the new ends before ungating their inputs, so that the
	 * producers are never, even briefly, free to overtake them.  A new
	 * stage starts at its inputs' position (the sequencer's start before
	 * the graph runs).
	 */
	sr_group g = failed(d, SR_OK);
	for (int i = 0; i < n; i++) {
		int index = d->stage_count++;
		struct stage *st = &d->stages[index];
		st->proc = made[i];
		for (int k = 0; k < ndeps; k++) /* deps is NULL for a first stage */
			st->deps[k] = deps[k];
		st->ndeps = ndeps;
		st->followed = false;
		/* Cannot fail: the room was checked above, and this thread alone adds stages. */
		(void)sr_sequencer_add_gating(d->sequencer, sr_processor_sequence(made[i]));
		g.stages[g.count++] = index;
	}
	for (int k = 0; k < ndeps; k++) {
		struct stage *dep = &d->stages[deps[k]];
		if (!dep->followed) {
			dep->followed = true;
			(void)sr_sequencer_remove_gating(d->sequencer, sr_processor_sequence(dep->proc));
		}
	}
	return g;
}

sr_group
sr_disruptor_handle_events_with(sr_disruptor *d, const sr_handler *handlers, int n,
    sr_error *err)
{
	return add_stages(d, NULL, 0, handlers, n, err);
}

sr_group
sr_group_then(sr_group after, const sr_handler *handlers, int n, sr_error *err)
{
	if (after.status != SR_OK)
		return after;
	if (after.count < 1) {
		sr_error_set(err, SR_EINVAL, "the group to follow has no stages: expected at least 1");
		return failed(after.disruptor, SR_EINVAL);
	}
	return add_stages(after.disruptor, after.stages, after.count, handlers, n, err);
}

sr_group
sr_disruptor_after(sr_disruptor *d, const sr_handler *handlers, int n, sr_error *err)
{
	if (d == NULL)
		return failed(d, SR_EINVAL);
	if (handlers == NULL || n < 1 || n > SR_GROUP_MAX) {
		sr_error_set(err, SR_EINVAL, "after: %d handlers%s: expected 1 to %d", n,
		    handlers == NULL ? " at NULL" : "", SR_GROUP_MAX);
		return failed(d, SR_EINVAL);
	}
	sr_group g = failed(d, SR_OK);
	char name[96];
	for (int i = 0; i < n; i++) {
		int stage = find_stage(d, &handlers[i]);
		if (stage < 0) {
			sr_error_set(err, SR_EINVAL, "after: handler %s was never added",
			    describe(&handlers[i], i, name, sizeof name));
			return failed(d, SR_EINVAL);
		}
		g.stages[g.count++] = stage;
	}
	return g;
}

sr_group
sr_group_and(sr_group a, sr_group b, sr_error *err)
{
	if (a.status != SR_OK)
		return a;
	if (b.status != SR_OK)
		return b;
	if (a.disruptor != b.disruptor) {
		sr_error_set(err, SR_EINVAL, "and: the groups belong to different disruptors");
		return failed(a.disruptor, SR_EINVAL);
	}
	for (int i = 0; i < b.count; i++) {
		bool present = false;
		for (int j = 0; j < a.count; j++)
			present |= a.stages[j] == b.stages[i];
		if (present)
			continue;
		if (a.count == SR_GROUP_MAX) {
			sr_error_set(err, SR_EINVAL, "and: more than %d stages in one group", SR_GROUP_MAX);
			return failed(a.disruptor, SR_EINVAL);
		}
		a.stages[a.count++] = b.stages[i];
	}
	return a;
}

/*
 * Halts whatever runs among stages [0, n), whoever started it (the graph,
 * or sr_processor_start or sr_processor_run by hand after a halt), and
 * waits for each to end: the thread of sr_processor_start is joined (also
 * one that ended by itself and was never joined), a run in a thread of the
 * caller's is waited for until it has stored HALTED.  Only running stages
 * are halted: a halt that finds no run would end the next one at once
 * (sr_processor.h).  Returns how many stages ran or had a thread to join.
 */
static int
halt_stages(sr_disruptor *d, int n)
{
	bool was_running[SR_DISRUPTOR_MAX_STAGES];
	for (int i = 0; i < n; i++) {
		sr_processor *p = d->stages[i].proc;
		was_running[i] = sr_processor_state_get(p) == SR_PROCESSOR_RUNNING;
		if (was_running[i])
			sr_processor_halt(p);
	}
	int stopped = 0;
	for (int i = 0; i < n; i++) {
		sr_processor *p = d->stages[i].proc;
		if (p->thread_started) {
			sr_processor_join(p);
			stopped++;
		} else if (was_running[i]) {
			/*
			 * sr_processor_run in another thread: its store-release of
			 * HALTED, which this load-acquire pairs with, is its last
			 * access to the processor.
			 */
			sr_backoff backoff = SR_BACKOFF_INIT;
			while (sr_processor_state_get(p) == SR_PROCESSOR_RUNNING)
				sr_backoff_pause(&backoff);
			stopped++;
		}
	}
	return stopped;
}

int
sr_disruptor_start(sr_disruptor *d, sr_error *err)
{
	if (d == NULL)
		return sr_error_set(err, SR_EINVAL, "disruptor is NULL");
	if (d->started)
		return sr_error_set(err, SR_ESTATE, "the graph was already started: start it once");
	if (d->stage_count == 0)
		return sr_error_set(err, SR_EINVAL, "the graph has no stages: add handlers first");
	d->started = true;
	for (int i = 0; i < d->stage_count; i++) {
		int rc = sr_processor_start(d->stages[i].proc, err);
		if (rc != SR_OK) {
			halt_stages(d, i);
			return rc;
		}
	}
	d->running = true;
	return SR_OK;
}

int
sr_disruptor_halt(sr_disruptor *d)
{
	if (d == NULL)
		return SR_EINVAL;
	bool was_running = d->running;
	int stopped = halt_stages(d, d->stage_count);
	d->running = false;
	return was_running || stopped > 0 ? SR_OK : SR_ESTATE;
}

/* The lowest sequence among the ends (the stages nobody follows). */
static int64_t
lowest_end(const sr_disruptor *d)
{
	int64_t lowest = INT64_MAX;
	for (int i = 0; i < d->stage_count; i++) {
		if (d->stages[i].followed)
			continue;
		int64_t v = sr_sequence_get(sr_processor_sequence(d->stages[i].proc));
		if (v < lowest)
			lowest = v;
	}
	return lowest;
}

/*
 * The first stage in graph order that has not handled `target`, or -1.
 * Sets *halted when that stage (or any stage behind) has halted itself.
 */
static int
first_behind(const sr_disruptor *d, int64_t target, bool *halted)
{
	int first = -1;
	*halted = false;
	for (int i = 0; i < d->stage_count; i++) {
		sr_processor *p = d->stages[i].proc;
		if (sr_sequence_get(sr_processor_sequence(p)) >= target)
			continue;
		if (first < 0)
			first = i;
		*halted |= sr_processor_state_get(p) != SR_PROCESSOR_RUNNING;
	}
	return first;
}

static int
report_behind(sr_disruptor *d, int stage, int64_t target, int code, int64_t timeout_ns,
    int *stage_behind, sr_error *err)
{
	sr_processor *p = d->stages[stage].proc;
	char name[96], why[64];
	if (code == SR_ETIMEDOUT)
		snprintf(why, sizeof why, "timed out after %lld ns", (long long)timeout_ns);
	else
		snprintf(why, sizeof why, "cannot complete");
	if (stage_behind != NULL)
		*stage_behind = stage;
	return sr_error_set(err, code,
	    "shutdown %s: stage %d (handler %s) has handled up to sequence %lld of %lld claimed "
	    "before the shutdown, and %s", why, stage, describe(&p->handler, stage, name, sizeof name),
	    (long long)sr_sequence_get(sr_processor_sequence(p)), (long long)target,
	    sr_processor_state_get(p) == SR_PROCESSOR_RUNNING ?
	    "is still running" : "has halted itself");
}

int
sr_disruptor_shutdown(sr_disruptor *d, int64_t timeout_ns, int *stage_behind, sr_error *err)
{
	if (stage_behind != NULL)
		*stage_behind = -1;
	if (d == NULL || timeout_ns < 0)
		return sr_error_set(err, SR_EINVAL, "shutdown: %s",
		    d == NULL ? "disruptor is NULL" : "timeout_ns is negative: expected 0 or more");
	if (!d->running)
		return sr_error_set(err, SR_ESTATE, "shutdown: the graph is not running");
	int64_t now = sr_monotonic_ns();
	int64_t deadline = timeout_ns >= INT64_MAX - now ? INT64_MAX : now + timeout_ns;
	/*
	 * The cursor, as the Disruptor's shutdown compares against it: with
	 * several producers it is the highest claimed sequence, so a claim not
	 * yet published is waited for (what was published after it can only be
	 * handled after it), not taken as the end of what there is to drain.
	 */
	int64_t target = sr_sequencer_cursor(d->sequencer);
	sr_backoff backoff = SR_BACKOFF_INIT;
	while (lowest_end(d) < target) {
		bool halted;
		int behind = first_behind(d, target, &halted);
		/* A stage that halted itself behind the target will not get there. */
		if (behind >= 0 && halted)
			return report_behind(d, behind, target, SR_ESTATE, timeout_ns, stage_behind, err);
		if (behind >= 0 && deadline != INT64_MAX && sr_monotonic_ns() >= deadline)
			return report_behind(d, behind, target, SR_ETIMEDOUT, timeout_ns, stage_behind, err);
		sr_backoff_pause(&backoff);
	}
	halt_stages(d, d->stage_count);
	d->running = false;
	return SR_OK;
}
