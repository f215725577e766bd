/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ex_flags.h: the examples' command lines.  Each example describes its flags
 * in a table and hands it to ex_flags_parse, so that every example checks its
 * values, answers --help and reports a bad flag the same way.
 */
#ifndef SEQRING_EXAMPLES_EX_FLAGS_H
#define SEQRING_EXAMPLES_EX_FLAGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A macro's value as a string literal, for a synopsis: "1.." EX_STRINGIFY(MAX) ")". */
#define EX_STRINGIFY(x) EX_STRINGIFY__(x)
#define EX_STRINGIFY__(x) #x

typedef enum ex_flag_kind {
	EX_FLAG_INT,     /* --name N: an int in [min, max] into *(int *)value */
	EX_FLAG_INT64,   /* --name N: an int64_t in [min, max] into *(int64_t *)value */
	EX_FLAG_DOUBLE,  /* --name X: a double in [min, max] into *(double *)value */
	EX_FLAG_SET,     /* --name: sets *(bool *)value */
	EX_FLAG_ACTION   /* --name: calls action(), in command-line order (--quick) */
} ex_flag_kind;

typedef struct ex_flag {
	const char *name; /* with its dashes: "--threads" */
	ex_flag_kind kind;
	void *value;
	double min, max;
	void (*action)(void);
} ex_flag;

/*
 * Parses argv[1..argc-1] against flags.  Returns -1 when the program is to go
 * on, or the status main is to exit with: 0 after --help or -h (the usage on
 * stdout), 2 after an unknown flag, a missing value or one out of range (a
 * line naming the flag, the value and what was expected, then the usage, on
 * stderr).  synopsis is the usage without the program's name.
 */
int ex_flags_parse(int argc, char **argv, const char *program, const char *synopsis,
    const ex_flag *flags, size_t count);

/*
 * The value of --ring-slots (or another slot count) at argv[*i + 1]: a power
 * of two from 2 to 1048576 into *slots, *i moved past it, and true; false
 * after a line on stderr naming the program, the flag and the value.  For the
 * lessons whose command lines also take positional arguments.
 */
bool ex_flags_slots(int argc, char **argv, int *i, const char *program, int64_t *slots);

/* "usage: PROGRAM SYNOPSIS" on to: for checks ex_flags_parse cannot make alone. */
void ex_flags_usage(FILE *to, const char *program, const char *synopsis);

#endif /* SEQRING_EXAMPLES_EX_FLAGS_H */
