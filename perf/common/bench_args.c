/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_args.c: see bench_args.h.
 */
#include "bench_args.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_output.h"

/* A limit as a reader writes it: 2^30 rather than 1073741824. */
static const char *
limit_text(int64_t v, char *buf, size_t size)
{
	if (v >= (INT64_C(1) << 20) && (v & (v - 1)) == 0)
		snprintf(buf, size, "2^%d", 63 - __builtin_clzll((unsigned long long)v));
	else
		snprintf(buf, size, "%" PRId64, v);
	return buf;
}

/* What a flag's value must be, for the message about a bad one. */
static void
expected_value(const bench_flag *f, char *buf, size_t size)
{
	int64_t min = f->min > 1 ? f->min : 1;
	char lo[32], hi[32];
	switch (f->kind) {
	case BENCH_INT:
	case BENCH_COUNT:
		if (f->max == 0 && min == 1)
			snprintf(buf, size, "a positive count%s", f->zero_ok ? " or 0" : "");
		else if (f->max == 0)
			snprintf(buf, size, "a count from %s%s", limit_text(min, lo, sizeof lo),
			    f->zero_ok ? ", or 0" : "");
		else
			snprintf(buf, size, "a count from %s to %s%s", limit_text(min, lo, sizeof lo),
			    limit_text(f->max, hi, sizeof hi), f->zero_ok ? ", or 0" : "");
		break;
	case BENCH_POWER_OF_TWO:
		snprintf(buf, size, "a power of two from %s to %s", limit_text(f->min, lo, sizeof lo),
		    limit_text(f->max, hi, sizeof hi));
		break;
	case BENCH_SECONDS:
		snprintf(buf, size, "%s", f->zero_ok ? "0 to 3600 seconds" : "a number of seconds above 0, at most 3600");
		break;
	default:
		snprintf(buf, size, "a value");
		break;
	}
}

/* Stores the value(s) of flag f; false with err. */
static bool
take_flag(const bench_flag *f, char **values, char *err, size_t errsize)
{
	const char *v = values[0];
	int64_t n = 0;
	bool ok = true;
	switch (f->kind) {
	case BENCH_SWITCH:
		*(bool *)f->dest = f->switch_to;
		break;
	case BENCH_INT:
	case BENCH_COUNT:
		if (!(f->zero_ok && strcmp(v, "0") == 0))
			ok = bench_parse_count(v, &n) && n >= f->min && (f->max == 0 || n <= f->max);
		if (ok && f->kind == BENCH_INT)
			*(int *)f->dest = (int)n;
		else if (ok)
			*(int64_t *)f->dest = n;
		break;
	case BENCH_POWER_OF_TWO:
		ok = bench_parse_power_of_two(v, f->min, f->max, (int64_t *)f->dest);
		break;
	case BENCH_SECONDS:
		ok = f->zero_ok ? bench_parse_seconds_or_zero(v, (double *)f->dest)
		    : bench_parse_seconds(v, (double *)f->dest);
		break;
	case BENCH_TEXT:
		*(const char **)f->dest = v;
		break;
	case BENCH_CUSTOM:
		if (!f->parse(f->dest, values, err, errsize))
			return false;
		break;
	}
	if (!ok) {
		char expected[96];
		expected_value(f, expected, sizeof expected);
		snprintf(err, errsize, "%s '%.64s' is invalid: expected %s", f->name, v, expected);
		return false;
	}
	if (f->given != NULL)
		*f->given = true;
	return true;
}

enum bench_parsed
bench_parse_flags(int argc, char **argv, const bench_flag *flags, int count, bool *quick,
    void (*usage)(FILE *), char *err, size_t errsize)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			usage(stdout);
			return BENCH_PARSED_HELP;
		} else if (strcmp(a, "--quick") == 0) {
			*quick = true;
			continue;
		} else if (strcmp(a, "--quiet") == 0) {
			bench_quiet = true;
			continue;
		}
		int k = 0;
		while (k < count && strcmp(a, flags[k].name) != 0)
			k++;
		const bench_flag *f = &flags[k];
		int values = k == count ? 0 : f->kind == BENCH_SWITCH ? 0 : f->kind != BENCH_CUSTOM ? 1
		    : f->values > 0 ? f->values : 1;
		if (k == count || i + values >= argc) {
			usage(stderr);
			snprintf(err, errsize, "%.64s: unknown option or missing value", a);
			return BENCH_PARSED_BAD;
		}
		if (!take_flag(f, argv + i + 1, err, errsize))
			return BENCH_PARSED_BAD;
		i += values;
	}
	return BENCH_PARSED_RUN;
}

int
bench_parsed_exit(enum bench_parsed parsed, const char *prog, const char *err)
{
	if (parsed == BENCH_PARSED_HELP)
		return 0;
	fprintf(stderr, "%s: %s\n", prog, err);
	return 2;
}

bool
bench_parse_count(const char *text, int64_t *out)
{
	if (text == NULL || *text == '\0')
		return false;
	char *end;
	errno = 0;
	double v = strtod(text, &end);
	if (errno != 0 || end == text)
		return false;
	double scale = 1;
	if (*end == 'k' || *end == 'K')
		scale = 1e3, end++;
	else if (*end == 'm' || *end == 'M')
		scale = 1e6, end++;
	else if (*end == 'g' || *end == 'G')
		scale = 1e9, end++;
	if (*end != '\0')
		return false;
	v *= scale;
	if (!(v >= 1) || v > 4e18)
		return false;
	*out = (int64_t)v;
	return true;
}

bool
bench_parse_count_or_zero(const char *text, int64_t *out)
{
	if (text != NULL && strcmp(text, "0") == 0) {
		*out = 0;
		return true;
	}
	return bench_parse_count(text, out);
}

bool
bench_parse_power_of_two(const char *text, int64_t min, int64_t max, int64_t *out)
{
	int64_t v;
	if (!bench_parse_count(text, &v) || v < min || v > max || (v & (v - 1)) != 0)
		return false;
	*out = v;
	return true;
}

bool
bench_parse_seconds(const char *text, double *out)
{
	if (text == NULL || *text == '\0')
		return false;
	char *end;
	errno = 0;
	double v = strtod(text, &end);
	if (errno != 0 || end == text || *end != '\0' || !(v > 0) || v > 3600)
		return false;
	*out = v;
	return true;
}

bool
bench_parse_seconds_or_zero(const char *text, double *out)
{
	if (text != NULL && strcmp(text, "0") == 0) {
		*out = 0;
		return true;
	}
	return bench_parse_seconds(text, out);
}

bool
bench_parse_count_list(const char *flag, const char *noun, const char *list, int64_t max,
    int64_t *out, int max_values, int *n, char *err, size_t errsize)
{
	*n = 0;
	const char *p = list;
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char item[32];
		int64_t v;
		if (len == 0 || len >= sizeof item) {
			snprintf(err, errsize, "%s '%.64s' is invalid: expected comma-separated %ss from 1 "
			    "to %" PRId64, flag, list, noun, max);
			return false;
		}
		memcpy(item, p, len);
		item[len] = '\0';
		if (!bench_parse_count(item, &v) || v > max) {
			snprintf(err, errsize, "%s '%.64s': '%s' is invalid: expected a %s from 1 to %" PRId64,
			    flag, list, item, noun, max);
			return false;
		}
		if (*n == max_values) {
			snprintf(err, errsize, "%s '%.64s': more than %d %ss", flag, list, max_values, noun);
			return false;
		}
		out[(*n)++] = v;
		if (comma == NULL)
			return true;
		p = comma + 1;
	}
}

bool
bench_parse_name_set(const char *flag, const char *noun, const char *list,
    const char *const *names, int count, bool *want, char *err, size_t errsize)
{
	bool all = strcmp(list, "all") == 0;
	for (int k = 0; k < count; k++)
		want[k] = all;
	if (all)
		return true;
	for (const char *p = list;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		int k = 0;
		while (k < count && !(strlen(names[k]) == len && strncmp(p, names[k], len) == 0))
			k++;
		if (k == count) {
			char expected[256] = "";
			for (int i = 0; i < count; i++) {
				size_t used = strlen(expected);
				snprintf(expected + used, sizeof expected - used, "%s%s", i ? ", " : "", names[i]);
			}
			snprintf(err, errsize, "%s '%.64s': '%.*s' is not a %s: expected %s or all", flag, list,
			    (int)(len > 32 ? 32 : len), p, noun, expected);
			return false;
		}
		want[k] = true;
		if (comma == NULL)
			return true;
		p = comma + 1;
	}
}
