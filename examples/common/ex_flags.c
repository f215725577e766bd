/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ex_flags.c: the one command-line parser of the examples (ex_flags.h), on
 * top of glibc's getopt_long.
 */
#include "ex_flags.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* getopt_long's answer for flags[k]: FIRST_FLAG + k, above every short option. */
enum { FIRST_FLAG = 256 };

/*
 * "-" first: positional arguments come back in command-line order (as 1), so
 * that "--quick 500" and "500 --quick" keep meaning different things; ":"
 * next: a missing value comes back as ':' and getopt prints nothing, since
 * every message is ours.
 */
static const char SHORT_OPTIONS[] = "-:h";

void
ex_flags_usage(FILE *to, const char *program, const char *synopsis)
{
	fprintf(to, "usage: %s %s\n", program, synopsis);
}

static bool
is_positional(const ex_flag *f)
{
	return f->name[0] != '-';
}

/* The whole of s as f's value; false for trailing text, overflow or a value out of range. */
static bool
store_value(const ex_flag *f, const char *s)
{
	char *end;
	errno = 0;
	if (f->kind == EX_FLAG_TEXT) {
		*(const char **)f->value = s;
		return true;
	}
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
	if (f->kind == EX_FLAG_POW2 && (v & (v - 1)) != 0)
		return false;
	if (f->kind == EX_FLAG_INT)
		*(int *)f->value = (int)v;
	else
		*(int64_t *)f->value = (int64_t)v;
	return true;
}

/* Stores s as f's value, or says what f expected; false after the message. */
static bool
take_value(const char *program, const ex_flag *f, const char *s)
{
	if (store_value(f, s))
		return true;
	fprintf(stderr, "%s: %s '%s': expected ", program, f->name, s);
	if (f->kind == EX_FLAG_DOUBLE)
		fprintf(stderr, "a number from %g to %g\n", f->min, f->max);
	else if (f->kind == EX_FLAG_POW2)
		fprintf(stderr, "a power of two from %.0f to %.0f\n", f->min, f->max);
	else if (f->max >= (double)INT64_MAX)
		fprintf(stderr, "a whole number of at least %.0f\n", f->min);
	else
		fprintf(stderr, "a whole number from %.0f to %.0f\n", f->min, f->max);
	return false;
}

/* The positional argument number `which` of the table, or NULL when it has fewer. */
static const ex_flag *
positional(const ex_flag *flags, size_t count, size_t which)
{
	for (size_t k = 0; k < count; k++)
		if (is_positional(&flags[k]) && which-- == 0)
			return &flags[k];
	return NULL;
}

/* Stores the next positional argument, or says it is one too many; false after the message. */
static bool
take_positional(const char *program, const ex_flag *flags, size_t count, size_t *taken, const char *s)
{
	const ex_flag *f = positional(flags, count, (*taken)++);
	if (f == NULL) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", program, s);
		return false;
	}
	return take_value(program, f, s);
}

/* What getopt_long refused (c is '?' or ':'), named: arg is the argument it was in. */
static void
say_refused(const char *program, const ex_flag *flags, size_t count, int c, const char *arg)
{
	if (c == ':') {
		fprintf(stderr, "%s: %s needs a value\n", program, flags[optopt - FIRST_FLAG].name);
		return;
	}
	if (optopt >= FIRST_FLAG) {
		fprintf(stderr, "%s: %s takes no value: '%s'\n", program, flags[optopt - FIRST_FLAG].name, arg);
		return;
	}
	if (optopt != 0) {
		fprintf(stderr, "%s: unknown flag '-%c'\n", program, optopt);
		return;
	}
	/* A long flag getopt_long could not match: none begins so, or (a shortened name) several do. */
	size_t typed = strcspn(arg, "="), matches = 0;
	for (size_t k = 0; k < count; k++)
		matches += !is_positional(&flags[k]) && strncmp(flags[k].name, arg, typed) == 0;
	if (matches > 1)
		fprintf(stderr, "%s: ambiguous flag '%s': %zu flags begin so\n", program, arg, matches);
	else
		fprintf(stderr, "%s: unknown flag '%s'\n", program, arg);
}

/* Restarts getopt_long on a command line: with glibc, optind 0 resets its whole state. */
static void
restart(void)
{
	optind = 0;
	opterr = 0;
}

static int
refuse(const char *program, const char *synopsis)
{
	ex_flags_usage(stderr, program, synopsis);
	return 2;
}

/* ex_flags_parse's work: -1 to go on, else the status to exit with. */
static int
parse(int argc, char **argv, const char *program, const char *synopsis, const ex_flag *flags,
    size_t count)
{
	if (count > EX_FLAGS_MAX) {
		fprintf(stderr, "%s: %zu entries in the flag table, more than EX_FLAGS_MAX (%d)\n", program,
		    count, EX_FLAGS_MAX);
		return 2;
	}
	struct option options[EX_FLAGS_MAX + 2]; /* the table's flags, --help, the zero end */
	size_t n = 0;
	for (size_t k = 0; k < count; k++)
		if (!is_positional(&flags[k]))
			options[n++] = (struct option){ flags[k].name + 2,
				flags[k].kind == EX_FLAG_SET || flags[k].kind == EX_FLAG_ACTION ? no_argument :
				required_argument, NULL, FIRST_FLAG + (int)k };
	options[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	options[n] = (struct option){ 0 };

	/* --help anywhere wins over the other arguments, bad ones included: a first pass looks for it. */
	int c;
	restart();
	while ((c = getopt_long(argc, argv, SHORT_OPTIONS, options, NULL)) != -1)
		if (c == 'h') {
			ex_flags_usage(stdout, program, synopsis);
			return 0;
		}

	restart();
	size_t taken = 0;
	while ((c = getopt_long(argc, argv, SHORT_OPTIONS, options, NULL)) != -1) {
		if (c == ':' || c == '?') {
			say_refused(program, flags, count, c, argv[optind - 1]);
			return refuse(program, synopsis);
		}
		if (c == 1) {
			if (!take_positional(program, flags, count, &taken, optarg))
				return refuse(program, synopsis);
			continue;
		}
		const ex_flag *f = &flags[c - FIRST_FLAG];
		if (f->kind == EX_FLAG_SET) {
			*(bool *)f->value = true;
		} else if (f->kind == EX_FLAG_ACTION) {
			f->action();
		} else if (!take_value(program, f, optarg)) {
			return refuse(program, synopsis);
		}
	}
	/* After "--", getopt_long stops: what follows is positional, whatever it looks like. */
	for (; optind < argc; optind++)
		if (!take_positional(program, flags, count, &taken, argv[optind]))
			return refuse(program, synopsis);
	return -1;
}

void
ex_flags_parse(int argc, char **argv, const char *program, const char *synopsis,
    const ex_flag *flags, size_t count)
{
	int status = parse(argc, argv, program, synopsis, flags, count);
	if (status >= 0)
		exit(status);
}
