/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_site_parts.c: a consumer's table of the parts of a line that a
 * call site fixes (sr_log_site_parts_internal.h).
 */
#include "sr_log_site_parts_internal.h"

#include <stdlib.h>

_Static_assert(sizeof(sr_log_site_part) == 256, "a slot's index is a shift");

sr_log_site_parts *
sr_log__site_parts_new(void)
{
	return calloc(1, sizeof(sr_log_site_parts));
}

void
sr_log__site_parts_free(sr_log_site_parts *parts)
{
	free(parts);
}

void
sr_log__site_part_claim(sr_log_site_part *p, const sr_site *site)
{
	p->site = site;
	p->format = site->format;
	p->file = site->file;
	p->function = site->function;
	p->line = site->line;
	p->made = 0;
}
