/* SPDX-License-Identifier: Apache-2.0 */
/*
 * topo_rounds.c: see topo_rounds.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "topo_rounds.h"

#include <inttypes.h>
#include <stdio.h>

#include "bench_output.h"

/* One run of a row; false (and the row failed) when the run fails. */
static bool
run_row(topo_row *r, const topo_rounds *cfg, int64_t events, topo_result *res, int *failures)
{
	char err[512];
	if (topo_run(&r->v, events, cfg->run_timeout, res, err, sizeof err) == 0)
		return true;
	fprintf(stderr, "%s: FAILED %s\n", cfg->prog, err);
	r->failed = true;
	(*failures)++;
	return false;
}

/* Round 0: sizes every row's runs, from a warm-up run unless no_warmup. */
static void
calibrate(topo_row *rows, int nrows, const topo_rounds *cfg, int *failures)
{
	for (int i = 0; i < nrows; i++) {
		topo_row *r = &rows[i];
		int64_t pilot = topo_round_events(r->v.topo, cfg->fixed_events ? cfg->fixed_events : 1000000);
		if (cfg->no_warmup) {
			r->events = pilot;
			continue;
		}
		bench_progress("%s warm-up %d/%d: %s %s (%" PRId64 " events)", cfg->tag, i + 1, nrows,
		    topo_name(r->v.topo), variant_wait_label(&r->v), pilot);
		topo_result res;
		if (!run_row(r, cfg, pilot, &res, failures))
			continue;
		if (res.capped)
			bench_progress("%s warm-up of %s %s hit the %.1f s cap: %.0f events/s", cfg->tag,
			    topo_name(r->v.topo), variant_wait_label(&r->v), cfg->run_timeout, res.events_per_sec);
		if (cfg->fixed_events) {
			r->events = pilot;
		} else {
			double want = res.events_per_sec * cfg->seconds;
			if (want < 1000)
				want = 1000;
			if (want > (double)cfg->max_events)
				want = (double)cfg->max_events;
			r->events = topo_round_events(r->v.topo, (int64_t)want);
		}
	}
}

int
topo_rounds_run(topo_row *rows, int nrows, const topo_rounds *cfg)
{
	int failures = 0;
	calibrate(rows, nrows, cfg, &failures);
	for (int k = 0; k < cfg->runs; k++) {
		for (int i = 0; i < nrows; i++) {
			topo_row *r = &rows[i];
			if (r->failed)
				continue;
			bench_progress("%s run %d/%d, row %d/%d: %s %s (%" PRId64 " events)", cfg->tag, k + 1,
			    cfg->runs, i + 1, nrows, topo_name(r->v.topo), variant_wait_label(&r->v), r->events);
			topo_result res;
			if (!run_row(r, cfg, r->events, &res, &failures))
				continue;
			if (res.capped)
				r->capped++;
			r->rates[r->nrates++] = res.events_per_sec;
		}
	}
	for (int i = 0; i < nrows; i++)
		rows[i].rate = bench_summarize(rows[i].rates, rows[i].nrates);
	return failures;
}
