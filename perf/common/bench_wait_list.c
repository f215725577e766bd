/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_wait_list.c: see bench_wait_list.h.
 */
#include "bench_wait_list.h"

#include <stdio.h>
#include <string.h>

/* Adds one wait spec (validated) with a label for the CSV's wait column. */
static bool
add_wait(bench_wait_list *o, const char *token, const char *default_spec, char *err, size_t errsize)
{
	if (o->nwaits == BENCH_MAX_WAITS) {
		snprintf(err, errsize, "--wait: more than %d strategies", BENCH_MAX_WAITS);
		return false;
	}
	bool is_default = strcmp(token, "default") == 0 && default_spec != NULL;
	const char *spec = is_default ? default_spec : token;
	sr_wait_config wc;
	sr_error e;
	if (sr_wait_config_parse(spec, &wc, &e) != SR_OK) {
		snprintf(err, errsize, "--wait '%.200s' is invalid: %s", token, e.message);
		return false;
	}
	bench_wait *v = &o->waits[o->nwaits];
	memset(v, 0, sizeof *v);
	v->config = wc;
	if (strlen(spec) >= sizeof v->spec) {
		snprintf(err, errsize, "--wait '%.64s...' is too long: at most %zu characters", token,
		    sizeof v->spec - 1);
		return false;
	}
	strcpy(v->spec, spec);
	/*
	 * The logger's default and bare names are labelled by their kind
	 * ("phased"); a spec with parameters keeps them, with ';' for ',' so
	 * that the CSV column stays one field.
	 */
	if (is_default || strchr(token, ':') == NULL) {
		snprintf(v->label, sizeof v->label, "%s", sr_wait_kind_name(wc.kind));
	} else {
		snprintf(v->label, sizeof v->label, "%.60s", token);
		for (char *c = v->label; *c != '\0'; c++)
			if (*c == ',')
				*c = ';';
	}
	/* Two strategies with one label (default and "phased", say) would be confused in the CSV. */
	for (int i = 0; i < o->nwaits; i++) {
		if (strcmp(o->waits[i].label, v->label) == 0) {
			size_t used = strlen(v->label);
			snprintf(v->label + used, sizeof v->label - used, "#%d", o->nwaits + 1);
			break;
		}
	}
	o->nwaits++;
	return true;
}

/*
 * Splits a --wait list at commas, except that a piece with '=' and no ':'
 * continues the previous spec: "default,phased:spin=5us,yield=50us" is two
 * strategies.
 */
bool
bench_parse_wait_list(const char *list, const char *default_spec, bench_wait_list *o, char *err,
    size_t errsize)
{
	o->nwaits = 0;
	if (strcmp(list, "all") == 0) {
		for (int k = 0; k < SR_WAIT_KIND_COUNT; k++)
			if (!add_wait(o, sr_wait_kind_name((enum sr_wait_kind)k), default_spec, err, errsize))
				return false;
		return true;
	}
	char spec[256] = "";
	const char *p = list;
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		bool continues = spec[0] != '\0' && memchr(p, '=', len) != NULL && memchr(p, ':', len) == NULL;
		if (!continues && spec[0] != '\0') {
			if (!add_wait(o, spec, default_spec, err, errsize))
				return false;
			spec[0] = '\0';
		}
		size_t used = strlen(spec);
		if (len == 0 || used + len + 2 > sizeof spec) {
			snprintf(err, errsize, "--wait '%.64s' is invalid: %s", list,
			    len == 0 ? "an empty strategy" : "a strategy longer than 254 characters");
			return false;
		}
		if (continues)
			spec[used++] = ',';
		memcpy(spec + used, p, len);
		spec[used + len] = '\0';
		if (comma == NULL)
			break;
		p = comma + 1;
	}
	return add_wait(o, spec, default_spec, err, errsize);
}
