/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_categories.c: levels and categories.  A category is a dotted name
 * with a handle whose level callers read without a lock; its level is that
 * of its longest configured prefix (a rule), else the root's.  Rules come
 * from the code, the environment (applied at open) and the run-time API; a
 * change recomputes every handle under one mutex.
 */
#include "sr_log_ring_dir_internal.h"
#include "sr_log_categories_internal.h"
#include "sr_log_registry_internal.h"
#include "sr_log_names_internal.h"
#include "sr_log_thread_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>



/* Its level is above off, so that even a site at SR_LOG_OFF ends at the level check. */
sr_category sr_category_off = {
	.level = SR_LOG__CLOSED, .id = -1, .log = NULL, .name = "off", .write_level = SR_LOG_OFF,
	.fast_key = SR_LOG__NO_FAST_KEY
};

/* ---------------------------------------------------------------------------------------- */
/* Handles that write nothing say so                                                        */

/*
 * A name sr_log_category refused: said on stderr once per name and logger
 * (for SR_LOG_MAX_REFUSED names, then once that more are not reported).
 */
#define SR_LOG_MAX_REFUSED 32

static void
report_refused(sr_log *log, const char *name, const char *message)
{
	struct sr_log_levels *lv = log->levels;
	pthread_mutex_lock(&lv->lock);
	bool seen = false;
	for (size_t i = 0; i < lv->nrefused && i < SR_LOG_MAX_REFUSED && !seen; i++)
		seen = lv->refused != NULL && lv->refused[i] != NULL && strcmp(lv->refused[i], name) == 0;
	bool report = !seen && lv->nrefused <= SR_LOG_MAX_REFUSED;
	if (report) {
		if (lv->refused == NULL)
			lv->refused = calloc(SR_LOG_MAX_REFUSED, sizeof *lv->refused);
		char *copy = lv->nrefused < SR_LOG_MAX_REFUSED ? strdup(name) : NULL;
		if (lv->refused != NULL && copy != NULL)
			lv->refused[lv->nrefused] = copy;
		else
			free(copy);
		lv->nrefused++;
	}
	size_t n = lv->nrefused;
	pthread_mutex_unlock(&lv->lock);
	if (!report)
		return;
	if (n > SR_LOG_MAX_REFUSED)
		sr_log__notice_line("sr_log_category refused more category names; they are not reported", "", "");
	else
		sr_log__notice_line("", message, "; sr_log_category gave the off handle: nothing logged through it is written");
}

/* ---------------------------------------------------------------------------------------- */
/* Categories and rules                                                                     */

static bool
prefix_matches(const char *prefix, size_t plen, const char *name)
{
	return strncmp(name, prefix, plen) == 0 && (name[plen] == '\0' || name[plen] == '.');
}

long
sr_log__rule_for(const sr_log *log, const char *name)
{
	long found = -1;
	size_t best = 0;
	for (size_t i = 0; i < log->levels->nrules; i++) {
		size_t plen = strlen(log->levels->rules[i].prefix);
		if (plen > best && prefix_matches(log->levels->rules[i].prefix, plen, name)) {
			best = plen;
			found = (long)i;
		}
	}
	return found;
}

/* The configured level of a name: its longest rule prefix's, else the root's.  cat_lock held. */
static int
configured_level(const sr_log *log, const char *name)
{
	long r = sr_log__rule_for(log, name);
	return r >= 0 ? log->levels->rules[r].level : log->levels->root_level;
}

/* Sets a handle's write level and call-site level.  cat_lock held. */
static void
set_category_levels(const sr_log *log, sr_category *c)
{
	int level = configured_level(log, c->name);
	/* A level that no sink writes is cut off at the call site. */
	int write = level > log->levels->sinks_min_level ? level : log->levels->sinks_min_level;
	int site = write;
	/* The backtrace keeps what is below the write level, from its own level up. */
	if (log->opt.bt_size > 0 && log->opt.bt_level < site)
		site = log->opt.bt_level;
	/*
	 * After shutdown began, callers stop at the level check; the write
	 * level stays, so that what is still in the ring is written as it was
	 * meant to be (pairs with the store-release in sr_log_shutdown).
	 */
	if (sr_atomic_load_acquire_i32(&log->shut))
		site = SR_LOG_OFF;
	/*
	 * Relaxed: the macros' and the consumer's relaxed loads; no data is
	 * published with them.  A caller that passed the old call-site level
	 * while the write level moved is handled by the consumer's own check.
	 */
	sr_atomic_store_relaxed_i32(&c->write_level, write);
	sr_atomic_store_relaxed_i32(&c->level, site);
}

static void
update_categories(sr_log *log)
{
	for (size_t i = 0; i < log->levels->ncats; i++)
		set_category_levels(log, log->levels->cats[i]);
}

/* Creates or finds a category.  cat_lock held. */
static sr_category *
category_locked(sr_log *log, const char *name, sr_error *err)
{
	for (size_t i = 0; i < log->levels->ncats; i++)
		if (strcmp(log->levels->cats[i]->name, name) == 0)
			return log->levels->cats[i];
	if (log->levels->ncats == log->levels->cats_cap) {
		size_t cap = log->levels->cats_cap == 0 ? 16 : log->levels->cats_cap * 2;
		/* an array of pointers: sizeof *grown is the pointer size, as intended */
		sr_category **grown = realloc(log->levels->cats, cap * sizeof *grown); /* NOLINT(bugprone-sizeof-expression) */
		if (grown == NULL) {
			sr_error_set(err, SR_ENOMEM, "cannot grow the category registry to %zu", cap);
			return NULL;
		}
		log->levels->cats = grown;
		log->levels->cats_cap = cap;
	}
	sr_category *c = malloc(sizeof *c);
	char *copy = strdup(name);
	if (c == NULL || copy == NULL) {
		free(c);
		free(copy);
		sr_error_set(err, SR_ENOMEM, "cannot allocate category '%.64s'", name);
		return NULL;
	}
	c->id = (int32_t)log->levels->ncats;
	c->log = log;
	c->fast_key = log->fast_key;
	c->name = copy;
	/* In the ring directory's catalogue before any record can name it. */
	sr_log__ring_dir_note_category(log, c);
	set_category_levels(log, c);
	log->levels->cats[log->levels->ncats++] = c;
	return c;
}

sr_category *
sr_log_category_get(sr_log *log, const char *name, sr_error *err)
{
	if (log == NULL) {
		sr_error_set(err, SR_EINVAL, "logger is NULL");
		return NULL;
	}
	if (name == NULL || (name[0] != '\0' && !sr_log__valid_category_name(name))) {
		size_t n = name != NULL ? strlen(name) : 0;
		sr_error_set(err, SR_EINVAL,
		    "category name '%.64s%s' is invalid: expected 1 to %d bytes of printable ASCII but "
		    "space, ',' and '=', or UTF-8, in non-empty dot-separated parts%s",
		    name != NULL ? name : "(null)", n > 64 ? "..." : "", SR_LOG_MAX_CATEGORY_NAME,
		    n > SR_LOG_MAX_CATEGORY_NAME ? " (it has more bytes)" : "");
		return NULL;
	}
	pthread_mutex_lock(&log->levels->lock);
	sr_category *c = NULL;
	if (sr_atomic_load_acquire_i32(&log->shut))
		sr_error_set(err, SR_ESTATE, "the logger is shut down");
	else
		c = category_locked(log, name, err);  /* "" finds the root, made at open */
	pthread_mutex_unlock(&log->levels->lock);
	return c;
}

sr_category *
sr_log_category(sr_log *log, const char *name)
{
	if (log == NULL)
		return &sr_log__no_logger;
	sr_error err;
	sr_category *c = sr_log_category_get(log, name, &err);
	if (c != NULL)
		return c;
	/* After shutdown every handle is off anyway; any other refusal is said. */
	if (err.code != SR_ESTATE)
		report_refused(log, name != NULL ? name : "(null)", err.message);
	return &sr_category_off;
}

sr_category *
sr_log_root(sr_log *log)
{
	if (log == NULL)
		return &sr_log__no_logger;
	if (log->levels->ncats == 0)
		return &sr_category_off;
	return log->levels->cats[0];  /* created at open, never moves */
}

sr_log_level
sr_category_level(const sr_category *category)
{
	if (category == NULL)
		return SR_LOG_OFF;
	int level = sr_atomic_load_relaxed_i32(&category->write_level);
	return (sr_log_level)(level > SR_LOG_OFF ? SR_LOG_OFF : level); /* a closed logger's: off */
}

sr_log_level
sr_log_level_for(sr_log *log, const char *name)
{
	if (log == NULL)
		return SR_LOG_OFF;
	pthread_mutex_lock(&log->levels->lock);
	int level = configured_level(log, name != NULL ? name : "");
	pthread_mutex_unlock(&log->levels->lock);
	return (sr_log_level)level;
}

int
sr_log_set_level(sr_log *log, const char *prefix, int level, sr_error *err)
{
	if (log == NULL)
		return sr_error_set(err, SR_EINVAL, "logger is NULL");
	bool root = prefix == NULL || prefix[0] == '\0';
	if ((level < SR_LOG_TRACE || level > SR_LOG_OFF) && level != SR_LOG_INHERIT)
		return sr_error_set(err, SR_EINVAL,
		    "level %d is invalid: expected SR_LOG_TRACE (0) to SR_LOG_OFF (6) or SR_LOG_INHERIT (-1)",
		    level);
	if (root && level == SR_LOG_INHERIT)
		return sr_error_set(err, SR_EINVAL, "the root level cannot be SR_LOG_INHERIT: it has no parent");
	if (!root && !sr_log__valid_category_name(prefix))
		return sr_error_set(err, SR_EINVAL,
		    "category prefix '%.64s' is invalid: expected 1 to %d printable characters without "
		    "spaces, ',' or '=', in non-empty dot-separated parts", prefix, SR_LOG_MAX_CATEGORY_NAME);
	int rc = SR_OK;
	pthread_mutex_lock(&log->levels->lock);
	if (sr_atomic_load_acquire_i32(&log->shut)) {
		rc = sr_error_set(err, SR_ESTATE, "the logger is shut down");
		goto out;
	}
	if (root) {
		log->levels->root_level = level;
		log->levels->root_source = SR_SRC_RUNTIME;
	} else {
		size_t i;
		for (i = 0; i < log->levels->nrules; i++)
			if (strcmp(log->levels->rules[i].prefix, prefix) == 0)
				break;
		if (level == SR_LOG_INHERIT) {
			if (i < log->levels->nrules) {
				free(log->levels->rules[i].prefix);
				log->levels->rules[i] = log->levels->rules[--log->levels->nrules];
			}
		} else if (i < log->levels->nrules) {
			log->levels->rules[i].level = level;
			log->levels->rules[i].source = SR_SRC_RUNTIME;
		} else {
			if (log->levels->nrules == log->levels->rules_cap) {
				size_t cap = log->levels->rules_cap == 0 ? 8 : log->levels->rules_cap * 2;
				sr_log_rule *grown = realloc(log->levels->rules, cap * sizeof *grown);
				if (grown == NULL) {
					rc = sr_error_set(err, SR_ENOMEM, "cannot grow the level rules to %zu", cap);
					goto out;
				}
				log->levels->rules = grown;
				log->levels->rules_cap = cap;
			}
			char *copy = strdup(prefix);
			if (copy == NULL) {
				rc = sr_error_set(err, SR_ENOMEM, "cannot copy category prefix '%.64s'", prefix);
				goto out;
			}
			log->levels->rules[log->levels->nrules].prefix = copy;
			log->levels->rules[log->levels->nrules].level = level;
			log->levels->rules[log->levels->nrules].source = SR_SRC_RUNTIME;
			log->levels->nrules++;
		}
	}
	update_categories(log);
out:
	pthread_mutex_unlock(&log->levels->lock);
	return rc;
}

/* Adds or replaces a rule at open (no lock: the logger is not shared yet). */
static int
put_rule(sr_log *log, const char *prefix, int level, uint8_t source)
{
	for (size_t i = 0; i < log->levels->nrules; i++) {
		if (strcmp(log->levels->rules[i].prefix, prefix) == 0) {
			log->levels->rules[i].level = level;
			log->levels->rules[i].source = source;
			return SR_OK;
		}
	}
	if (log->levels->nrules == log->levels->rules_cap) {
		size_t cap = log->levels->rules_cap ? log->levels->rules_cap * 2 : 8;
		sr_log_rule *grown = realloc(log->levels->rules, cap * sizeof *grown);
		if (grown == NULL)
			return SR_ENOMEM;
		log->levels->rules = grown;
		log->levels->rules_cap = cap;
	}
	char *copy = strdup(prefix);
	if (copy == NULL)
		return SR_ENOMEM;
	log->levels->rules[log->levels->nrules++] = (sr_log_rule){ copy, level, source };
	return SR_OK;
}

static int
apply_specs(sr_log *log, const sr_log_levels_setup *setup, sr_error *err)
{
	log->levels->root_level = setup->root_level;
	log->levels->root_source = setup->root_level_from_code ? SR_SRC_CODE : SR_SRC_DEFAULT;
	const sr_log_spec *specs[2] = { setup->code_spec, setup->env_spec };
	const uint8_t sources[2] = { SR_SRC_CODE, SR_SRC_ENV };
	for (int k = 0; k < 2; k++) {
		const sr_log_spec *s = specs[k];
		if (s->has_root) {
			log->levels->root_level = s->root;
			log->levels->root_source = sources[k];
		}
		for (size_t i = 0; i < s->n; i++)
			if (put_rule(log, s->d[i].prefix, s->d[i].level, sources[k]) != SR_OK)
				return sr_error_set(err, SR_ENOMEM, "cannot store the level directives");
	}
	return SR_OK;
}


/* Run-time specs                                                                           */

int
sr_log_set_level_spec(sr_log *log, const char *spec, sr_error *err)
{
	if (log == NULL)
		return sr_error_set(err, SR_EINVAL, "logger is NULL");
	sr_log_spec s;
	char msg[SR_ERROR_MESSAGE_MAX];
	int rc = sr_log__spec_parse(spec, &s, msg, sizeof msg);
	if (rc != SR_OK) {
		sr_log__spec_free(&s);
		return sr_error_set(err, rc, "level spec '%.64s%s' is invalid: %s", spec != NULL ? spec : "(null)",
		    spec != NULL && strlen(spec) > 64 ? "..." : "", msg);
	}
	/* Everything is allocated before the lock, so the swap cannot fail half-way. */
	sr_log_rule *rules = s.n > 0 ? malloc(s.n * sizeof *rules) : NULL;
	if (s.n > 0 && rules == NULL) {
		sr_log__spec_free(&s);
		return sr_error_set(err, SR_ENOMEM, "cannot allocate %zu level directives", s.n);
	}
	for (size_t i = 0; i < s.n; i++) {
		rules[i] = s.d[i];
		rules[i].source = SR_SRC_RUNTIME;
	}
	pthread_mutex_lock(&log->levels->lock);
	/* pairs with the store-release in sr_log_shutdown */
	if (sr_atomic_load_acquire_i32(&log->shut)) {
		pthread_mutex_unlock(&log->levels->lock);
		free(rules);
		sr_log__spec_free(&s);
		return sr_error_set(err, SR_ESTATE, "the logger is shut down");
	}
	sr_log_rule *old = log->levels->rules;
	size_t nold = log->levels->nrules;
	log->levels->rules = rules;
	log->levels->nrules = s.n;
	log->levels->rules_cap = s.n;
	if (s.has_root) {
		log->levels->root_level = s.root;
		log->levels->root_source = SR_SRC_RUNTIME;
	}
	update_categories(log);
	pthread_mutex_unlock(&log->levels->lock);
	for (size_t i = 0; i < nold; i++)
		free(old[i].prefix);
	free(old);
	free(s.d); /* the prefixes moved into the rules */
	return SR_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* For the rest of the logger                                                               */

int
sr_log__levels_open(sr_log *log, const sr_log_levels_setup *setup, sr_error *err)
{
	log->levels = calloc(1, sizeof *log->levels);
	if (log->levels == NULL)
		return sr_error_set(err, SR_ENOMEM, "cannot allocate the category registry");
	pthread_mutex_init(&log->levels->lock, NULL);
	log->levels->sinks_min_level = setup->sinks_min_level;
	int rc = apply_specs(log, setup, err);
	if (rc != SR_OK)
		return rc;
	pthread_mutex_lock(&log->levels->lock);
	sr_category *root = category_locked(log, "", err);
	pthread_mutex_unlock(&log->levels->lock);
	return root != NULL ? SR_OK : (err != NULL ? err->code : SR_ENOMEM);
}

void
sr_log__levels_free(sr_log *log)
{
	struct sr_log_levels *lv = log->levels;
	if (lv == NULL)
		return;
	if (lv->ncats > 0 && sr_atomic_load_relaxed_i32(&lv->cats[0]->level) == SR_LOG__CLOSED) {
		/* Retired without a list to keep them on: they stay, as retired handles must. */
		lv->cats = NULL;
		lv->ncats = 0;
	}
	for (size_t i = 0; i < lv->ncats; i++) {
		free((char *)lv->cats[i]->name);
		free(lv->cats[i]);
	}
	free(lv->cats);
	for (size_t i = 0; i < lv->nrules; i++)
		free(lv->rules[i].prefix);
	free(lv->rules);
	for (size_t i = 0; i < lv->nrefused && i < SR_LOG_MAX_REFUSED; i++)
		free(lv->refused != NULL ? lv->refused[i] : NULL);
	free(lv->refused);
	pthread_mutex_destroy(&lv->lock);
	free(lv);
	log->levels = NULL;
}

/*
 * The handles of closed loggers.  A caller may still hold one (a static
 * pointer, a call racing the close): it must read a valid level, so handles
 * are never freed; each is a few dozen bytes, kept for the process's life.
 */
typedef struct retired_handles {
	struct retired_handles *next;
	sr_category **cats;
	size_t n;
} retired_handles;
static pthread_mutex_t retired_lock = PTHREAD_MUTEX_INITIALIZER;
static retired_handles *retired;

void
sr_log__levels_retire(sr_log *log)
{
	struct sr_log_levels *lv = log->levels;
	retired_handles *r = malloc(sizeof *r);
	pthread_mutex_lock(&lv->lock);
	for (size_t i = 0; i < lv->ncats; i++) {
		sr_category *c = lv->cats[i];
		/* Relaxed, as every level store: callers reread it once in progress (sr_log_frontend.c). */
		sr_atomic_store_relaxed_i32(&c->write_level, SR_LOG__CLOSED);
		sr_atomic_store_relaxed_i32(&c->level, SR_LOG__CLOSED);
	}
	if (r != NULL) {
		/* The names go (nobody reads them after the consumer stopped); the handles stay. */
		for (size_t i = 0; i < lv->ncats; i++) {
			free((char *)lv->cats[i]->name);
			lv->cats[i]->name = "(closed)";
		}
		r->cats = lv->cats;
		r->n = lv->ncats;
		lv->cats = NULL;
		lv->ncats = lv->cats_cap = 0;
	}
	pthread_mutex_unlock(&lv->lock);
	if (r == NULL)
		return; /* out of memory: the registry (handles, names) stays allocated, unfreed */
	pthread_mutex_lock(&retired_lock);
	r->next = retired;
	retired = r;
	pthread_mutex_unlock(&retired_lock);
}

void
sr_log__levels_fork(sr_log *log, bool prepare)
{
	if (prepare)
		pthread_mutex_lock(&log->levels->lock);
	else
		pthread_mutex_unlock(&log->levels->lock);
}

void
sr_log__levels_shut(sr_log *log)
{
	pthread_mutex_lock(&log->levels->lock);
	update_categories(log); /* every handle off: later calls end at the level check */
	pthread_mutex_unlock(&log->levels->lock);
}
