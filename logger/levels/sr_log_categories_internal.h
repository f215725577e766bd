/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_categories_internal.h: levels and categories, as the rest of the
 * logger asks for them (internal; sr_log_categories.c owns the state).
 */
#ifndef SR_LOG_CATEGORY_INTERNAL_H
#define SR_LOG_CATEGORY_INTERNAL_H

#include <stdbool.h>
#include <stdio.h>

#include "sr_log_internal.h"
#include "sr_log_category_notices_internal.h"
#include "sr_log_level_spec_internal.h"

/* What the registry starts from, given by sr_log_open. */
typedef struct sr_log_levels_setup {
	int root_level;                 /* config.level */
	bool root_level_from_code;      /* config.level differs from the default */
	const sr_log_spec *code_spec;   /* config.level_spec, parsed */
	const sr_log_spec *env_spec;    /* SEQRING_LOG, parsed */
	/*
	 * The lowest level any sink takes (SR_LOG_OFF without sinks): a level
	 * below it is cut off at the call site.  The sinks are fixed at open.
	 */
	int sinks_min_level;
} sr_log_levels_setup;

/* Creates the registry and the root category, with the setup's rules (open time). */
int sr_log__levels_open(sr_log *log, const sr_log_levels_setup *setup, sr_error *err);
void sr_log__levels_free(sr_log *log);
/*
 * sr_log_close: every handle's level becomes SR_LOG__CLOSED and the handles
 * outlive the logger (never freed), so that a caller that still holds one
 * is refused at its level check, memory-safe.
 */
void sr_log__levels_retire(sr_log *log);
/* fork: takes (prepare) or releases (parent, child) the registry's lock. */
void sr_log__levels_fork(sr_log *log, bool prepare);
/* Sets every handle's call-site level to off (shutdown began; log->shut is set). */
void sr_log__levels_shut(sr_log *log);
/*
 * The spec in force ("info,db=error"), into buf; *runtime (if given) tells
 * whether a level was changed at run time since open.  Returns its length.
 */
size_t sr_log__levels_spec(sr_log *log, char *buf, size_t size, bool *runtime);
/* sr_log_describe's levels part: the directives and every known category. */
void sr_log__levels_describe(sr_log *log, FILE *out);
#endif /* SR_LOG_CATEGORY_INTERNAL_H */
