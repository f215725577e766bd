/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_site_rules.c: the process's rules on call sites, and what they
 * make of each site (sr_log_sites.h).
 *
 * The rules are an array replaced whole by each sr_log_sites_set and never
 * freed while the process runs (kept on a list, so that a call that read
 * the old array can finish with it: rules change seldom, calls never
 * wait).  For each site the rules make a gate (what the macro compares with
 * its category's level) and a control word (what the general path
 * decides).  A rule with a category match cannot be decided before the
 * call, whose category it is: its sites are BY_CATEGORY, held to the
 * general path, which asks sr_log__site_outcome at each call.
 */
#include "sr_log_limit_internal.h"
#include "sr_log_sites_internal.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct rule_set {
	size_t n;
	struct rule_set *older;   /* the sets this one replaced: kept, never freed */
	sr_log__site_rule r[];
} rule_set;

/* The current set (NULL: none); replaced under the catalogue's lock, read by calls with acquire. */
static sr_atomic_ptr current;

/* ---------------------------------------------------------------------------------------- */
/* Matching                                                                                  */

static bool
file_matches(const sr_log__site_rule *r, const char *file)
{
	if (file == NULL)
		return false;
	if (!r->file_has_slash) {
		const char *base = strrchr(file, '/');
		return fnmatch(r->file, base != NULL ? base + 1 : file, FNM_PATHNAME) == 0;
	}
	/* The path, then every tail of it after a '/'. */
	for (const char *tail = file; tail != NULL; tail = strchr(tail, '/')) {
		if (*tail == '/')
			tail++;
		if (fnmatch(r->file, tail, FNM_PATHNAME) == 0)
			return true;
	}
	return false;
}

/* Every match but the category. */
static bool
static_matches(const sr_log__site_rule *r, const sr_site *site)
{
	return (r->file == NULL || file_matches(r, site->file)) &&
	    (r->func == NULL || (site->function != NULL && fnmatch(r->func, site->function, 0) == 0)) &&
	    (r->format == NULL || (site->format != NULL && strstr(site->format, r->format) != NULL)) &&
	    site->line >= r->line_lo && site->line <= r->line_hi &&
	    (r->level < 0 || site->level == r->level);
}

bool
sr_log__site_category_matches(const sr_log__site_rule *r, const char *name)
{
	if (name == NULL)
		return false;
	if (r->category_is_glob)
		return fnmatch(r->category, name, 0) == 0;
	size_t n = strlen(r->category);
	/* The name, or below it: "app" takes "app" and "app.db", not "apple". */
	return strncmp(name, r->category, n) == 0 && (name[n] == '\0' || name[n] == '.' || n == 0);
}

/* What the rule makes of a site of level L that it takes; -1 when it leaves it as it was. */
static int
action_outcome(const sr_log__site_rule *r, int level)
{
	switch (r->action) {
	case SR_LOG__SITE_RAISE:
		return level >= r->action_level ? SR_LOG__SITE_IS_ON : -1;
	case SR_LOG__SITE_LOWER:
		return level <= r->action_level ? SR_LOG__SITE_IS_OFF : -1;
	case SR_LOG__SITE_SET:
		return level >= r->action_level ? SR_LOG__SITE_IS_ON : SR_LOG__SITE_IS_OFF;
	case SR_LOG__SITE_FOLLOW:
		return SR_LOG__SITE_FOLLOWS;
	default:
		return -1;   /* a rate limit: whether the site is written is another rule's */
	}
}

/* ---------------------------------------------------------------------------------------- */
/* A site's gate and control                                                                 */

/*
 * The outcomes a site's calls may have under the rules: the last rule
 * without a category match that takes the site decides every call but
 * those a later category rule takes; each of those may decide its own.
 */
static void
site_outcomes(const rule_set *set, const sr_site *site, int *fixed, bool *by_category, bool *may_be_on,
    bool *may_be_off, bool *may_follow)
{
	*fixed = SR_LOG__SITE_FOLLOWS;
	*by_category = *may_be_on = *may_be_off = *may_follow = false;
	size_t i = set != NULL ? set->n : 0;
	while (i-- > 0) {
		const sr_log__site_rule *r = &set->r[i];
		int o;
		if (!static_matches(r, site) || (o = action_outcome(r, site->level)) < 0)
			continue;
		if (r->category != NULL) {
			*by_category = true;
			*may_be_on |= o == SR_LOG__SITE_IS_ON;
			*may_be_off |= o == SR_LOG__SITE_IS_OFF;
			*may_follow |= o == SR_LOG__SITE_FOLLOWS;
			continue;
		}
		*fixed = o;
		break;
	}
	*may_be_on |= *fixed == SR_LOG__SITE_IS_ON;
	*may_be_off |= *fixed == SR_LOG__SITE_IS_OFF;
	*may_follow |= *fixed == SR_LOG__SITE_FOLLOWS;
}

/* Holds a site whose first call found it FAST to the general path, or lets it go back. */
static void
hold(sr_site *site, bool held)
{
	if (held)
		(void)sr_atomic_cas_i32(&site->copy, SR_SITE_COPY_FAST, SR_SITE_COPY_HELD);
	else
		(void)sr_atomic_cas_i32(&site->copy, SR_SITE_COPY_HELD, SR_SITE_COPY_FAST);
}

/* The last rate-limit rule that takes the site, or NULL (none, or nolimit). */
static const sr_log__site_rule *
limit_rule(const rule_set *set, const sr_site *site)
{
	for (size_t i = set != NULL ? set->n : 0; i-- > 0;) {
		const sr_log__site_rule *r = &set->r[i];
		if (SR_LOG__SITE_IS_LIMIT(r->action) && static_matches(r, site))
			return r->action == SR_LOG__SITE_NO_LIMIT ? NULL : r;
	}
	return NULL;
}

/*
 * The site's limit under rule r: the one it has when the same (its counts
 * go on), else a new one (NULL when out of memory: the site stays unlimited).
 */
static sr_log__site_limit *
limit_for(sr_site *site, const sr_log__site_rule *r)
{
	if (r == NULL)
		return NULL;
	sr_log__site_limit *old = sr_atomic_load_acquire_ptr(&site->limit);
	if (old != NULL && old->action == r->action && old->param[0] == r->limit[0] && old->param[1] == r->limit[1])
		return old;
	sr_log__site_limit *l = calloc(1, sizeof *l);
	size_t n = strlen(site->format != NULL ? site->format : "");
	char *format = malloc(n + sizeof SR_LOG_LIMIT_SUFFIX);
	if (l == NULL || format == NULL) {
		free(l);
		free(format);
		return NULL;
	}
	memcpy(format, site->format != NULL ? site->format : "", n);
	memcpy(format + n, SR_LOG_LIMIT_SUFFIX, sizeof SR_LOG_LIMIT_SUFFIX);
	l->action = r->action;
	l->param[0] = r->limit[0];
	l->param[1] = r->limit[1];
	sr_log__limit_init(&l->limiter, r->action == SR_LOG__SITE_ONCE ? SR_LOG__LIMIT_ONCE :
	    r->action == SR_LOG__SITE_EVERY ? SR_LOG__LIMIT_EVERY_N : SR_LOG__LIMIT_RATE, r->limit[0], r->limit[1]);
	l->twin = (sr_site)SR_SITE__INIT(format, site->file, site->function, site->line, site->level);
	return l;
}

static void
set_site(sr_site *site, const rule_set *set)
{
	int fixed;
	bool by_category, may_be_on, may_be_off, may_follow;
	site_outcomes(set, site, &fixed, &by_category, &may_be_on, &may_be_off, &may_follow);
	int control = 0, gate = site->level;
	if (by_category && (may_be_on + may_be_off + may_follow) > 1) {
		/*
		 * Decided at each call: the gate lets through every call that may be
		 * written, the general path decides (a call the category's level lets
		 * through must not be written inline before the decision).
		 */
		control = SR_SITE_CONTROL_BY_CATEGORY;
		gate = may_be_on ? SR_SITE_GATE_ON : site->level;
	} else if (may_be_on) {
		control = SR_SITE_CONTROL_ON;
		gate = SR_SITE_GATE_ON;
	} else if (may_be_off) {
		control = SR_SITE_CONTROL_OFF;
		gate = SR_SITE_GATE_OFF;
	}
	sr_log__site_limit *limit = limit_for(site, limit_rule(set, site));
	if (limit != NULL) {
		/* pairs with the general path's load-acquire of limit: the limiter is whole */
		sr_atomic_store_release_ptr(&site->limit, limit);
		control |= SR_SITE_CONTROL_LIMITED;
	}
	/*
	 * control before the hold, gate last: a call that passes the new gate
	 * finds the control that goes with it.  The seq_cst CAS in hold pairs
	 * with the one in sr_log__site_copy_decided: a first call deciding FAST
	 * at this moment sees a control that holds it, or this sees its FAST.
	 * A site whose limit went keeps its last limit object (a call may be
	 * in it); without the LIMITED bit nothing reads it.
	 */
	sr_atomic_store_relaxed_i32(&site->control, control);
	hold(site, (control & (SR_SITE_CONTROL_BY_CATEGORY | SR_SITE_CONTROL_LIMITED)) != 0);
	sr_atomic_store_relaxed_i32(&site->gate, gate);
}

static void
set_site_visit(sr_site *site, void *ctx)
{
	set_site(site, ctx);
}

void
sr_log__sites_register(sr_site *const *begin, sr_site *const *end)
{
	if (begin == NULL || end == NULL || end <= begin)
		return;
	sr_log__sites_lock();
	/* Rules set before the module came (a dlopen) take its sites too. */
	const rule_set *set = sr_atomic_load_acquire_ptr(&current);
	if (sr_log__sites_add_module_locked(begin, end) && set != NULL)
		for (sr_site *const *s = begin; s < end; s++)
			if (*s != NULL)
				set_site(*s, set);
	sr_log__sites_unlock();
}

int64_t
sr_log__site_limit_admit(sr_log__site_limit *limit, sr_category *cat)
{
	sr_log_limiter *l = &limit->limiter;
	int64_t now = limit->action == SR_LOG__SITE_RATE ? sr_log__limit_clock(l, cat) : 0;
	return sr_log__limit_admit(l, cat, now);
}

int
sr_log__site_copy_decided(sr_site *site, int copy)
{
	if (copy != SR_SITE_COPY_FAST)
		return copy;
	sr_atomic_fence_seq_cst();  /* pairs with set_site's: its control store, then its hold */
	if (sr_atomic_load_relaxed_i32(&site->control) & (SR_SITE_CONTROL_BY_CATEGORY | SR_SITE_CONTROL_LIMITED)) {
		hold(site, true);
		return SR_SITE_COPY_HELD;
	}
	return copy;
}

int
sr_log__site_outcome(const sr_site *site, const sr_category *cat)
{
	if (site == NULL)
		return SR_LOG__SITE_FOLLOWS;
	int control = sr_atomic_load_relaxed_i32(&site->control) & SR_SITE_CONTROL_SWITCH;
	if (control == SR_SITE_CONTROL_ON)
		return SR_LOG__SITE_IS_ON;
	if (control == SR_SITE_CONTROL_OFF)
		return SR_LOG__SITE_IS_OFF;
	if (control != SR_SITE_CONTROL_BY_CATEGORY)
		return SR_LOG__SITE_FOLLOWS;
	/* pairs with the store-release in sr_log_sites_set: the set's rules are whole */
	const rule_set *set = sr_atomic_load_acquire_ptr(&current);
	const char *name = cat != NULL ? cat->name : NULL;
	for (size_t i = set != NULL ? set->n : 0; i-- > 0;) {
		const sr_log__site_rule *r = &set->r[i];
		int o;
		if (!static_matches(r, site) || (o = action_outcome(r, site->level)) < 0)
			continue;
		if (r->category == NULL || sr_log__site_category_matches(r, name))
			return o;
	}
	return SR_LOG__SITE_FOLLOWS;
}

/* ---------------------------------------------------------------------------------------- */
/* The public face                                                                           */

static bool
same_string(const char *a, const char *b)
{
	return a == NULL ? b == NULL : b != NULL && strcmp(a, b) == 0;
}

/*
 * Whether a later rule decides every site and call an earlier one did: the
 * same matches, and an action that takes each site the earlier one's took
 * (=LEVEL and =category take every site they match).
 */
static bool same_matches(const sr_log__site_rule *a, const sr_log__site_rule *b);

static bool
supersedes(const sr_log__site_rule *later, const sr_log__site_rule *earlier)
{
	if (!same_matches(later, earlier) || SR_LOG__SITE_IS_LIMIT(later->action) != SR_LOG__SITE_IS_LIMIT(earlier->action))
		return false;
	/* A later limit replaces an earlier one on the same sites whatever its kind. */
	return SR_LOG__SITE_IS_LIMIT(later->action) || later->action == SR_LOG__SITE_SET ||
	    later->action == SR_LOG__SITE_FOLLOW ||
	    (later->action == earlier->action && later->action_level == earlier->action_level);
}

/* Whether two rules take the same sites and calls. */
static bool
same_matches(const sr_log__site_rule *a, const sr_log__site_rule *b)
{
	return same_string(a->file, b->file) && same_string(a->func, b->func) &&
	    same_string(a->format, b->format) && same_string(a->category, b->category) &&
	    a->line_lo == b->line_lo && a->line_hi == b->line_hi && a->level == b->level;
}

int
sr_log_sites_set(struct sr_log *log, const char *query, sr_error *err)
{
	if (log == NULL)
		return sr_error_set(err, SR_EINVAL, "sr_log_sites_set: log is NULL: expected an open logger");
	if (query == NULL)
		return sr_error_set(err, SR_EINVAL, "sr_log_sites_set: query is NULL: expected commands such as \"file net/*.c +debug\"");
	sr_log__site_rule_list parsed = { 0 };
	int rc = sr_log__site_query_parse(query, &parsed, err);
	if (rc != SR_OK) {
		free(parsed.r);  /* its rules were freed by the parse; the array it grew was not */
		return rc;
	}
	sr_log__sites_lock();
	const rule_set *old = sr_atomic_load_acquire_ptr(&current);
	size_t keep_old = parsed.reset || old == NULL ? 0 : old->n;
	size_t from = parsed.reset ? parsed.reset_at : 0;
	size_t n = keep_old + (parsed.n - from);
	rule_set *set = malloc(sizeof *set + n * sizeof set->r[0]);
	if (set == NULL) {
		sr_log__sites_unlock();
		for (size_t i = 0; i < parsed.n; i++)
			sr_log__site_rule_free(&parsed.r[i]);
		free(parsed.r);
		return sr_error_set(err, SR_ENOMEM, "sr_log_sites_set: out of memory for %zu rules", n);
	}
	set->older = (rule_set *)old;
	/*
	 * The old set's rules are shared, not copied (their strings too: sets
	 * are never freed).  An old rule whose matches a new one repeats is left
	 * out: the new one decides every site and call it took, so switching one
	 * site on and off again does not grow the rules.
	 */
	size_t k = 0;
	for (size_t i = 0; i < keep_old; i++) {
		bool repeated = false;
		for (size_t j = from; j < parsed.n && !repeated; j++)
			repeated = supersedes(&parsed.r[j], &old->r[i]);
		if (!repeated)
			set->r[k++] = old->r[i];
	}
	if (parsed.n > from) /* parsed.r is NULL when the query held no command */
		memcpy(set->r + k, parsed.r + from, (parsed.n - from) * sizeof set->r[0]);
	set->n = k + (parsed.n - from);
	/* Commands before a reset in the same query are dropped with it. */
	for (size_t i = 0; i < from; i++)
		sr_log__site_rule_free(&parsed.r[i]);
	free(parsed.r);
	/* pairs with the load-acquire in sr_log__site_outcome and apply_range */
	sr_atomic_store_release_ptr(&current, set);
	sr_log__sites_each_locked(set_site_visit, set);
	sr_log__sites_unlock();
	return SR_OK;
}

static sr_log_site_state
state_of(const sr_site *site)
{
	switch (sr_atomic_load_relaxed_i32(&site->control) & SR_SITE_CONTROL_SWITCH) {
	case SR_SITE_CONTROL_ON:
		return SR_LOG_SITE_ON;
	case SR_SITE_CONTROL_OFF:
		return SR_LOG_SITE_OFF;
	case SR_SITE_CONTROL_BY_CATEGORY:
		return SR_LOG_SITE_BY_CATEGORY;
	default:
		return SR_LOG_SITE_FOLLOWS;
	}
}

typedef struct list_walk {
	sr_log_site_visit_fn visit;
	void *ctx;
	bool only_ruled;
	bool stopped;
	long count;
} list_walk;

static void
list_visit(sr_site *site, void *ctx)
{
	list_walk *w = ctx;
	if (w->stopped)
		return;
	sr_log_site_state state = state_of(site);
	/* pairs with the CAS in the frontend's bind_home_category: the category is whole */
	const sr_category *home = sr_atomic_load_acquire_ptr(&site->home_cat);
	sr_log_site_info info = {
		.file = site->file != NULL ? site->file : "",
		.function = site->function != NULL ? site->function : "",
		.format = site->format != NULL ? site->format : "",
		.line = site->line,
		.level = site->level,
		.category = home != NULL ? home->name : NULL,
		.state = state,
		.emitted = (uint64_t)sr_atomic_load_relaxed_i64(&site->emitted),
	};
	/* pairs with the store-release in set_site: the limit is whole */
	const sr_log__site_limit *limit = sr_atomic_load_acquire_ptr(&site->limit);
	if (limit != NULL && (sr_atomic_load_relaxed_i32(&site->control) & SR_SITE_CONTROL_LIMITED)) {
		sr_log_limit_counters counters;
		sr_log__limit_counters(&limit->limiter, &counters);
		info.limit_calls = counters.calls;
		info.suppressed = counters.suppressed;
		if (limit->action == SR_LOG__SITE_ONCE)
			snprintf(info.limit, sizeof info.limit, "once");
		else if (limit->action == SR_LOG__SITE_EVERY)
			snprintf(info.limit, sizeof info.limit, "every %lld", (long long)limit->param[0]);
		else
			snprintf(info.limit, sizeof info.limit, "limit %lld/s burst %lld", (long long)limit->param[0],
			    (long long)limit->param[1]);
	}
	if (w->only_ruled && state == SR_LOG_SITE_FOLLOWS && info.limit[0] == '\0')
		return;
	w->count++;
	if (w->visit(&info, w->ctx) != 0)
		w->stopped = true;
}

long
sr_log_sites_list(sr_log_site_visit_fn visit, void *ctx, int only_ruled)
{
	if (visit == NULL)
		return SR_EINVAL;
	list_walk w = { .visit = visit, .ctx = ctx, .only_ruled = only_ruled != 0 };
	sr_log__sites_lock();
	sr_log__sites_each_locked(list_visit, &w);
	sr_log__sites_unlock();
	return w.count;
}

const char *
sr_log_site_state_name(int state)
{
	switch (state) {
	case SR_LOG_SITE_FOLLOWS:
		return "follows";
	case SR_LOG_SITE_ON:
		return "on";
	case SR_LOG_SITE_OFF:
		return "off";
	case SR_LOG_SITE_BY_CATEGORY:
		return "by category";
	default:
		return NULL;
	}
}
