/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_level_spec_internal.h: level rules and level specs in SEQRING_LOG's form
 * (internal; parsed by sr_log_level_spec.c, applied by sr_log_categories.c).
 */
#ifndef SR_LOG_SPEC_INTERNAL_H
#define SR_LOG_SPEC_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sr_log.h"
#include "sr_log_names_internal.h"

/* Where a setting or a level directive came from (sr_log_describe). */
enum sr_log_source {
	SR_SRC_DEFAULT = 0,
	SR_SRC_CODE = 1,          /* sr_log_config differs from sr_log_config_default */
	SR_SRC_ENV = 2,           /* a SEQRING_LOG* variable */
	SR_SRC_RUNTIME = 3        /* sr_log_set_level / sr_log_set_level_spec after open */
};

/* A level rule: names with this dotted prefix take this level. */
typedef struct sr_log_rule {
	char *prefix;
	int level;
	uint8_t source;           /* enum sr_log_source */
} sr_log_rule;

/* A parsed level spec (SEQRING_LOG's form). */
typedef struct sr_log_spec {
	bool has_root;
	int root;
	size_t n;
	sr_log_rule *d;           /* prefix, level; source unused */
} sr_log_spec;

/*
 * Parses a level spec.  SR_OK, or SR_EINVAL with msg (if given) saying what
 * is wrong with which directive (the caller prefixes where the spec came
 * from).  *out must be freed with sr_log__spec_free either way.
 */
int sr_log__spec_parse(const char *spec, sr_log_spec *out, char *msg, size_t msg_size);
void sr_log__spec_free(sr_log_spec *spec);

/* Longest category name or prefix. */
#define SR_LOG_MAX_CATEGORY_NAME 255
/*
 * True for a valid category name or prefix: 1 to 255 bytes of printable
 * ASCII but space, ',' and '=', or UTF-8 (no control, no broken sequence),
 * in non-empty dot-separated parts.
 */
bool sr_log__valid_category_name(const char *name);

/* What a bad level is told it should be. */
#define SR_LOG_LEVELS_EXPECTED "expected trace, debug, info, warn, error, fatal or off"

static inline bool
sr_log__is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* "default", "code", "environment", "run time" (enum sr_log_source). */
const char *sr_log__source_name(int source);

#endif /* SR_LOG_SPEC_INTERNAL_H */
