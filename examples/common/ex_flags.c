/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ex_flags.c: the one flag parser of the examples (ex_flags.h).
 */
#include "ex_flags.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void
ex_flags_usage(FILE *to, const char *program, const char *synopsis)
{
	fprintf(to, "usage: %s %s\n", program, synopsis);
}

/* The whole of s as a number in [min, max]; false for trailing text, overflow or out of range. */
static bool
parse_value(const ex_flag *f, const char *s)
{
	char *end;
	errno = 0;
	if (f->kind == EX_FLAG_DOUBLE) {
		double v = strtod(s, &end);
		if (errno != 0 || end == s || *end != '\0' || !(v >= f->min && v <= f->max))
			return false;
		*(double *)f->value = v;
		return true;
	}
	long long v = strtoll(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || (double)v < f->min || (double)v > f->max)
		return false;
	if (f->kind == EX_FLAG_INT)
		*(int *)f->value = (int)v;
	else
		*(int64_t *)f->value = (int64_t)v;
	return true;
}

static int
refuse(const char *program, const char *synopsis)
{
	ex_flags_usage(stderr, program, synopsis);
	return 2;
}

int
ex_flags_parse(int argc, char **argv, const char *program, const char *synopsis,
    const ex_flag *flags, size_t count)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			ex_flags_usage(stdout, program, synopsis);
			return 0;
		}
		const ex_flag *f = NULL;
		for (size_t k = 0; k < count && f == NULL; k++)
			if (strcmp(argv[i], flags[k].name) == 0)
				f = &flags[k];
		if (f == NULL) {
			fprintf(stderr, "%s: unknown flag '%s'\n", program, argv[i]);
			return refuse(program, synopsis);
		}
		if (f->kind == EX_FLAG_SET) {
			*(bool *)f->value = true;
			continue;
		}
		if (f->kind == EX_FLAG_ACTION) {
			f->action();
			continue;
		}
		if (i + 1 >= argc) {
			fprintf(stderr, "%s: %s needs a value\n", program, f->name);
			return refuse(program, synopsis);
		}
		const char *s = argv[++i];
		if (!parse_value(f, s)) {
			if (f->kind == EX_FLAG_DOUBLE)
				fprintf(stderr, "%s: %s '%s': expected a number from %g to %g\n", program,
				    f->name, s, f->min, f->max);
			else if (f->max >= (double)INT64_MAX)
				fprintf(stderr, "%s: %s '%s': expected a whole number of at least %.0f\n",
				    program, f->name, s, f->min);
			else
				fprintf(stderr, "%s: %s '%s': expected a whole number from %.0f to %.0f\n",
				    program, f->name, s, f->min, f->max);
			return refuse(program, synopsis);
		}
	}
	return -1;
}

bool
ex_flags_slots(int argc, char **argv, int *i, const char *program, int64_t *slots)
{
	const char *flag = argv[*i];
	const char *text = *i + 1 < argc ? argv[*i + 1] : "";
	char *end = NULL;
	long long v = strtoll(text, &end, 10);
	if (*i + 1 >= argc || end == text || *end != '\0' || v < 2 || v > 1048576 || (v & (v - 1)) != 0) {
		fprintf(stderr, "%s: %s '%s': expected a power of two from 2 to 1048576\n", program, flag, text);
		return false;
	}
	*slots = v;
	*i += 1;
	return true;
}
