/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_levels_describe.c: the levels in force, as text: the spec that
 * sr_log_level_spec gives ("info,db=error", rules sorted by prefix) and
 * sr_log_describe's part (every directive with where it came from, every
 * known category with its configured and effective levels).
 */
#include "sr_log_categories_internal.h"
#include "sr_log_names_internal.h"
#include "sr_log_registry_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static int
cmp_rule(const void *a, const void *b)
{
	return strcmp(((const sr_log_rule *)a)->prefix, ((const sr_log_rule *)b)->prefix);
}

/* A copy of the rules sorted by prefix (cat_lock held); NULL without rules or memory. */
static sr_log_rule *
sorted_rules(const struct sr_log_levels *lv)
{
	sr_log_rule *sorted = lv->nrules > 0 ? malloc(lv->nrules * sizeof *sorted) : NULL;
	if (sorted != NULL) {
		memcpy(sorted, lv->rules, lv->nrules * sizeof *sorted);
		qsort(sorted, lv->nrules, sizeof *sorted, cmp_rule);
	}
	return sorted;
}

/* The spec in force, into a buffer (cat_lock held). */
static size_t
spec_locked(sr_log *log, char *buf, size_t size)
{
	sr_fmt_buf b = { buf, 0, size > 0 ? size - 1 : 0, 0 };
	const char *root = sr_log_level_name(log->levels->root_level);
	sr_fmt_buf_put(&b, root, strlen(root));
	sr_log_rule *sorted = sorted_rules(log->levels);
	for (size_t i = 0; i < log->levels->nrules; i++) {
		const sr_log_rule *r = sorted != NULL ? &sorted[i] : &log->levels->rules[i];
		sr_fmt_buf_putc(&b, ',');
		sr_fmt_buf_put(&b, r->prefix, strlen(r->prefix));
		sr_fmt_buf_putc(&b, '=');
		const char *l = sr_log_level_name(r->level);
		sr_fmt_buf_put(&b, l, strlen(l));
	}
	free(sorted);
	if (size > 0)
		buf[b.len] = '\0';
	return b.want;
}

int
sr_log_level_spec(sr_log *log, char *buf, size_t size)
{
	if (log == NULL || (buf == NULL && size > 0))
		return SR_EINVAL;
	pthread_mutex_lock(&log->levels->lock);
	size_t n = spec_locked(log, buf, size);
	pthread_mutex_unlock(&log->levels->lock);
	return n > INT32_MAX ? INT32_MAX : (int)n;
}

size_t
sr_log__levels_spec(sr_log *log, char *buf, size_t size, bool *runtime)
{
	pthread_mutex_lock(&log->levels->lock);
	size_t n = spec_locked(log, buf, size);
	if (runtime != NULL) {
		bool changed = log->levels->root_source == SR_SRC_RUNTIME;
		for (size_t i = 0; i < log->levels->nrules; i++)
			changed = changed || log->levels->rules[i].source == SR_SRC_RUNTIME;
		*runtime = changed;
	}
	pthread_mutex_unlock(&log->levels->lock);
	return n;
}

void
sr_log__levels_describe(sr_log *log, FILE *out)
{
	struct sr_log_levels *lv = log->levels;
	pthread_mutex_lock(&lv->lock);
	fprintf(out, "level directives (a category takes its longest dotted prefix's level):\n");
	fprintf(out, "  %-30s %-8s %s\n", "(root)", sr_log_level_name(lv->root_level),
	    sr_log__source_name(lv->root_source));
	sr_log_rule *sorted = sorted_rules(lv);
	for (size_t i = 0; sorted != NULL && i < lv->nrules; i++)
		fprintf(out, "  %-30s %-8s %s\n", sorted[i].prefix, sr_log_level_name(sorted[i].level),
		    sr_log__source_name(sorted[i].source));
	fprintf(out, "categories (configured level, from which directive; effective level%s):\n",
	    log->levels->sinks_min_level > SR_LOG_TRACE ? ", raised to the lowest sink level" : "");
	/* Known categories: created ones, and directive prefixes not (yet) created. */
	for (size_t i = 0; i < lv->ncats; i++) {
		const sr_category *c = lv->cats[i];
		long r = sr_log__rule_for(log, c->name);
		int conf = r >= 0 ? lv->rules[r].level : lv->root_level;
		fprintf(out, "  %-30s %-8s from %-20s effective %s", c->name[0] ? c->name : "root",
		    sr_log_level_name(conf), r >= 0 ? lv->rules[r].prefix : "(root)",
		    sr_log_level_name(sr_atomic_load_relaxed_i32(&c->write_level)));
		if (log->opt.bt_size > 0)
			fprintf(out, ", kept for the backtrace from %s",
			    sr_log_level_name(sr_atomic_load_relaxed_i32(&c->level)));
		fputc('\n', out);
	}
	for (size_t i = 0; sorted != NULL && i < lv->nrules; i++) {
		bool created = false;
		for (size_t k = 0; k < lv->ncats && !created; k++)
			created = strcmp(lv->cats[k]->name, sorted[i].prefix) == 0;
		if (!created)
			fprintf(out, "  %-30s %-8s from %-20s (no handle yet)\n", sorted[i].prefix,
			    sr_log_level_name(sorted[i].level), sorted[i].prefix);
	}
	pthread_mutex_unlock(&lv->lock);
	free(sorted);
}
