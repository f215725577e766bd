/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_sites_internal.h: the catalogue of the macros' sites and the
 * run-time rules that switch them (internal; the public face is
 * sr_log_sites.h).
 *
 * The registry (sr_log_site_registry.c) keeps each module's section of
 * site pointers; the query parser (sr_log_site_query.c) turns text into
 * rules; the rules (sr_log_site_rules.c) set each site's gate and control
 * and decide, at a call or in the consumer, what a category-dependent rule
 * makes of a call.
 */
#ifndef SR_LOG_SITES_INTERNAL_H
#define SR_LOG_SITES_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "sr_log_category.h"
#include "sr_log_limit.h"
#include "sr_log_site.h"
#include "sr_log_sites.h"

/* What a rule does to a site of level L that its matches took. */
enum sr_log__site_action {
	SR_LOG__SITE_RAISE = 1,   /* +LEVEL: on when L >= LEVEL */
	SR_LOG__SITE_LOWER,       /* -LEVEL: off when L <= LEVEL */
	SR_LOG__SITE_SET,         /* =LEVEL: on when L >= LEVEL, else off */
	SR_LOG__SITE_FOLLOW,      /* =category */
	/* Rate limits: the last that takes a site is its limit. */
	SR_LOG__SITE_ONCE,        /* once */
	SR_LOG__SITE_EVERY,       /* every N */
	SR_LOG__SITE_RATE,        /* limit R[/s] [burst B] */
	SR_LOG__SITE_NO_LIMIT     /* nolimit */
};

/* Whether an action is a rate limit's (else it switches the site). */
#define SR_LOG__SITE_IS_LIMIT(action) ((action) >= SR_LOG__SITE_ONCE)

/* The outcome of the rules for a site, or for one call through it. */
enum sr_log__site_outcome {
	SR_LOG__SITE_FOLLOWS = 0,
	SR_LOG__SITE_IS_ON = 1,
	SR_LOG__SITE_IS_OFF = 2
};

/* One command of a query: its matches (NULL / -1: none) and its action. */
typedef struct sr_log__site_rule {
	char *file;               /* a glob */
	bool file_has_slash;
	char *func;               /* a glob */
	char *format;             /* a substring */
	char *category;           /* a glob, or a name that also takes its descendants */
	bool category_is_glob;
	int32_t line_lo, line_hi; /* INT32_MIN, INT32_MAX: any */
	int level;                /* the site's level, or -1: any */
	int action;               /* enum sr_log__site_action */
	int action_level;
	int64_t limit[2];         /* EVERY: n; RATE: per second, burst */
} sr_log__site_rule;

/*
 * A rate limit a rule put on a site (sr_site.limit): its limiter, made
 * with the rule's parameters, and a twin of the site whose format ends
 * with SR_LOG_LIMIT_SUFFIX, for the line that says how many calls were
 * suppressed.  Never freed (a call may hold it; the limiter is listed).
 */
typedef struct sr_log__site_limit {
	sr_log_limiter limiter;
	int action;               /* SR_LOG__SITE_ONCE, _EVERY or _RATE */
	int64_t param[2];
	sr_site twin;
} sr_log__site_limit;

/*
 * A call through a site a rule limits, after its gate and call_admitted:
 * -1 suppressed; 0 written as it is; N written through limit->twin with N
 * as one more argument after the format's.
 */
int64_t sr_log__site_limit_admit(sr_log__site_limit *limit, sr_category *cat);

/* Parsing: the commands of query, appended to *rules (grown with realloc). */
typedef struct sr_log__site_rule_list {
	sr_log__site_rule *r;
	size_t n, cap;
	bool reset;               /* a `reset` command: the rules before the query's are dropped */
	size_t reset_at;          /* the query's rules from this index on follow the last reset */
} sr_log__site_rule_list;

int sr_log__site_query_parse(const char *query, sr_log__site_rule_list *out, sr_error *err);
void sr_log__site_rule_free(sr_log__site_rule *rule);

/* Registry: calls visit for each site of each module, under the catalogue's lock (held by the caller). */
typedef void sr_log__site_each_fn(sr_site *site, void *ctx);
void sr_log__sites_lock(void);
void sr_log__sites_unlock(void);
void sr_log__sites_each_locked(sr_log__site_each_fn *visit, void *ctx);
/* Adds a module's sites, or counts one more unit of a known module: true when it is new (lock held). */
bool sr_log__sites_add_module_locked(sr_site *const *begin, sr_site *const *end);

/* The rules' outcome for one call through a BY_CATEGORY site (any thread, no lock). */
int sr_log__site_outcome(const sr_site *site, const sr_category *cat);

/*
 * After a site's first call decided how it copies: a site a category rule
 * takes is held to the general path (SR_SITE_COPY_HELD instead of FAST).
 * Returns the copy to use.
 */
int sr_log__site_copy_decided(sr_site *site, int copy);

/* Whether a category's dotted name matches a rule's category. */
bool sr_log__site_category_matches(const sr_log__site_rule *rule, const char *name);

#endif /* SR_LOG_SITES_INTERNAL_H */
