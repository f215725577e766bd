/* SPDX-License-Identifier: Apache-2.0 */
/*
 * scenario_graph.c: consumer graphs, pipeline A -> B -> C and diamond
 * A -> (B, C) -> D.
 */
#include <stdlib.h>

#include "scenario_internal.h"

#define MAX_PRODUCERS 16

typedef struct graph_slot {
	int64_t value;       /* the sequence, written by the producer */
	int64_t a, b, c, d;  /* each stage stamps the sequence when it has handled it */
} graph_slot;

struct graph_ctx;

typedef struct stage {
	struct graph_ctx *g;
	char name;
	sr_processor *proc;
	int64_t last;        /* stage-private: last sequence handled */
	int64_t handled;     /* stage-private */
	int64_t batches;     /* stage-private */
} stage;

typedef struct graph_ctx {
	sc_check check;
	enum sc_shape shape;
	sc_line line;        /* ring and sequencer; the stages are below */
	sc_producers producers;
	stage st[4];         /* A, B, C, D (D only in the diamond) */
	int64_t reuse_checked[MAX_PRODUCERS]; /* each producer's own */
} graph_ctx;

/* A slot is reused only once the last stage is done with its previous event. */
static bool
fill(void *arg, int id, void *slot_ptr, int64_t s, int64_t prev)
{
	graph_ctx *g = arg;
	graph_slot *slot = slot_ptr;
	if (prev >= 0) {
		int64_t final = g->shape == SC_PIPELINE ? slot->c : slot->d;
		if (slot->value != prev || final != prev) {
			sc_failf(&g->check, "producer %d: slot reused early: claiming %" PRId64
			    " found value %" PRId64 " and final stamp %" PRId64 ", expected %" PRId64,
			    id, s, slot->value, final, prev);
			return false;
		}
		g->reuse_checked[id]++;
	}
	slot->value = s;
	slot->a = slot->b = slot->c = slot->d = -1;
	return true;
}

/* Checks a stage sees its events in order and after every stage it follows. */
static int
on_event(void *arg, void *slot_ptr, int64_t s, bool end_of_batch)
{
	stage *st = arg;
	graph_ctx *g = st->g;
	graph_slot *slot = slot_ptr;
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

/* Creates the stages, each following the ones its shape puts before it. */
static bool
create_stages(graph_ctx *g, int nstages, int64_t max_batch, int64_t initial_sequence)
{
	for (int i = 0; i < nstages; i++) {
		g->st[i].g = g;
		g->st[i].name = (char)('A' + i);
		g->st[i].last = initial_sequence;
		const sr_sequence *deps[2];
		int ndeps = 0;
		if (i == 1 || (i == 2 && g->shape == SC_DIAMOND)) {
			deps[ndeps++] = sr_processor_sequence(g->st[0].proc);
		} else if (i == 2) {
			deps[ndeps++] = sr_processor_sequence(g->st[1].proc);
		} else if (i == 3) {
			deps[ndeps++] = sr_processor_sequence(g->st[1].proc);
			deps[ndeps++] = sr_processor_sequence(g->st[2].proc);
		}
		sr_handler h = { .ctx = &g->st[i], .on_event = on_event };
		g->st[i].proc = sc_processor(&g->check, g->line.ring, g->line.seq, deps, ndeps, &h, max_batch);
		if (g->st[i].proc == NULL)
			return false;
	}
	return true;
}

static bool
start_stages(graph_ctx *g, int nstages)
{
	for (int i = 0; i < nstages; i++) {
		sr_error err;
		if (sr_processor_start(g->st[i].proc, &err) != SR_OK) {
			sc_failf(&g->check, "start of stage %c failed: %s", 'A' + i, err.message);
			return false;
		}
	}
	return true;
}

sc_result
sc_graph(enum sc_shape shape, enum sr_producer_mode mode, int producers, int64_t per_producer,
    int64_t ring_size, const char *wait_spec, int64_t max_batch, int64_t initial_sequence)
{
	sc_result r = sc_result_ok();
	graph_ctx *g = calloc(1, sizeof *g);
	int64_t t0 = sc_begin(&g->check);
	sc_thread prods[MAX_PRODUCERS];
	int nstages = shape == SC_PIPELINE ? 3 : 4;
	producers = sc_producer_count(mode, producers, MAX_PRODUCERS);
	g->shape = shape;
	sc_producers_init(&g->producers, &g->check, &g->line, initial_sequence + 1, per_producer, fill, g);
	sc_line_spec spec = {
		.size = ring_size, .slot_size = sizeof(graph_slot), .mode = mode, .wait = wait_spec,
		.synchronize = true, .initial_sequence = initial_sequence,
	};
	if (!sc_line_build(&g->line, &g->check, &spec) || !create_stages(g, nstages, max_batch, initial_sequence))
		goto out;
	stage *final = &g->st[nstages - 1];
	sr_sequencer_add_gating(g->line.seq, sr_processor_sequence(final->proc));
	if (!start_stages(g, nstages))
		goto out;
	sc_threads_start(prods, producers, sc_producer_main, &g->producers);
	int64_t last = initial_sequence + (int64_t)producers * per_producer;
	if (!sc_await_sequence(&g->check, sr_processor_sequence(final->proc), last, "last stage")) {
		for (int i = 0; i < nstages; i++)
			sr_processor_halt(g->st[i].proc);
		sc_sleep_ns(100 * SC_MS);
		if (atomic_load(&g->producers.done) < producers)
			sc_hung("consumer graph: stages stuck, producers blocked");
	}
	sc_threads_join(prods, producers);
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
	for (int i = 0; i < producers; i++)
		r.n[0] += g->reuse_checked[i];
	r.n[1] = final->batches;
out:
	sc_finish(&g->check, &r, t0);
	/* Stages that started are halted and joined first (harmless for the others). */
	for (int i = 0; i < nstages; i++) {
		sr_processor_halt(g->st[i].proc);
		sr_processor_join(g->st[i].proc);
		sr_processor_destroy(g->st[i].proc);
	}
	sc_line_destroy(&g->line);
	free(g);
	return r;
}
