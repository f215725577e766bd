/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_registry_internal.h: the registry of categories and rules, as the
 * levels' own files share it (internal; sr_log_categories.c owns it,
 * sr_log_levels_describe.c prints it).
 */
#ifndef SR_LOG_REGISTRY_INTERNAL_H
#define SR_LOG_REGISTRY_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "sr_log_internal.h"
#include "sr_log_level_spec_internal.h"

/* The registry: handles and rules, under `lock` (a cold path). */
struct sr_log_levels {
	pthread_mutex_t lock;
	sr_category **cats;
	size_t ncats, cats_cap;
	sr_log_rule *rules;
	size_t nrules, rules_cap;
	int root_level;
	uint8_t root_source;      /* enum sr_log_source */
	int sinks_min_level;      /* the lowest level a sink takes, fixed at open */
	char **refused;           /* names sr_log_category refused and reported, each once */
	size_t nrefused;
};

/* The index of name's longest matching rule prefix, or -1 (cat_lock held). */
long sr_log__rule_for(const sr_log *log, const char *name);

#endif /* SR_LOG_REGISTRY_INTERNAL_H */
