/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_site_registry.c: the modules whose sections of site pointers make
 * the process's catalogue (sr_log_site.h, SR_SITE__CATALOGUE).
 *
 * Every translation unit that includes sr_log_site.h registers its module's
 * section from a constructor, so a module arrives once per such unit: the
 * registry keeps it once, counted, and drops it when the last unit's
 * destructor leaves (a dlclose).  One mutex orders the modules and the
 * rules; constructors run before main and at dlopen, never on a log call.
 * Registering is the rules' (sr_log_site_rules.c): a new module's sites
 * take the rules already set.
 */
#include "sr_log_sites_internal.h"

#include <pthread.h>
#include <stdlib.h>

typedef struct module {
	sr_site *const *begin, *const *end;
	long units;               /* translation units that registered it and have not left */
	struct module *next;
} module;

static pthread_mutex_t catalogue_lock = PTHREAD_MUTEX_INITIALIZER;
static module *modules;       /* in the order they registered; under catalogue_lock */

void
sr_log__sites_lock(void)
{
	pthread_mutex_lock(&catalogue_lock);
}

void
sr_log__sites_unlock(void)
{
	pthread_mutex_unlock(&catalogue_lock);
}

bool
sr_log__sites_add_module_locked(sr_site *const *begin, sr_site *const *end)
{
	module **tail = &modules;
	for (; *tail != NULL; tail = &(*tail)->next) {
		if ((*tail)->begin == begin) {
			(*tail)->units++;
			return false;
		}
	}
	/*
	 * A module the registry cannot keep (no memory before main) is left out
	 * of the catalogue: its sites log as ever, only rules cannot reach them.
	 */
	module *m = malloc(sizeof *m);
	if (m == NULL)
		return false;
	*m = (module){ .begin = begin, .end = end, .units = 1 };
	*tail = m;
	return true;
}

void
sr_log__sites_unregister(sr_site *const *begin, sr_site *const *end)
{
	(void)end;
	sr_log__sites_lock();
	for (module **p = &modules; *p != NULL; p = &(*p)->next) {
		if ((*p)->begin == begin) {
			if (--(*p)->units == 0) {
				module *gone = *p;
				*p = gone->next;
				free(gone);
			}
			break;
		}
	}
	sr_log__sites_unlock();
}

void
sr_log__sites_each_locked(sr_log__site_each_fn *visit, void *ctx)
{
	for (const module *m = modules; m != NULL; m = m->next)
		for (sr_site *const *s = m->begin; s < m->end; s++)
			/* A slot the linker padded (an alignment gap) holds NULL. */
			if (*s != NULL)
				visit(*s, ctx);
}
