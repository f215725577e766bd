/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ex_flags.h: the examples' command lines.  Each example describes its flags
 * and positional arguments in a table and hands it to ex_flags_parse, which
 * reads the command line with getopt_long, so that every example checks its
 * values, answers --help and reports a bad argument the same way.
 */
#ifndef SEQRING_EXAMPLES_EX_FLAGS_H
#define SEQRING_EXAMPLES_EX_FLAGS_H

#include <stddef.h>
#include <stdio.h>

/* A macro's value as a string literal, for a synopsis: "1.." EX_STRINGIFY(MAX) ")". */
#define EX_STRINGIFY(x) EX_STRINGIFY__(x)
#define EX_STRINGIFY__(x) #x

/* The most entries a table may have. */
#define EX_FLAGS_MAX 15

typedef enum ex_flag_kind {
	EX_FLAG_INT,     /* N: an int in [min, max] into *(int *)value */
	EX_FLAG_INT64,   /* N: an int64_t in [min, max] into *(int64_t *)value */
	EX_FLAG_POW2,    /* N: as EX_FLAG_INT64, and a power of two (a ring's slots) */
	EX_FLAG_DOUBLE,  /* X: a double in [min, max] into *(double *)value */
	EX_FLAG_TEXT,    /* S: any text into *(const char **)value, for the program to check */
	EX_FLAG_SET,     /* a flag without a value: sets *(bool *)value */
	EX_FLAG_ACTION   /* a flag without a value: calls action(), in command-line order (--quick) */
} ex_flag_kind;

typedef struct ex_flag {
	/*
	 * A flag with its two dashes, "--threads" (its value as "--threads 4" or
	 * "--threads=4"), or a positional argument's name in capitals, "EVENTS":
	 * the positional arguments are taken in the table's order.
	 */
	const char *name;
	ex_flag_kind kind;
	void *value;
	double min, max;
	void (*action)(void);
} ex_flag;

/*
 * Parses argv[1..argc-1] against flags, in command-line order, and returns
 * when the program is to go on.  Otherwise it exits: with 0 when --help or
 * -h is anywhere on the line (the usage on stdout), with 2 after an unknown
 * flag, a missing value, one out of range or an argument too many (a line
 * naming the argument, and the value and what was expected, then the usage,
 * on stderr).  synopsis is the usage without the program's name.
 */
void ex_flags_parse(int argc, char **argv, const char *program, const char *synopsis,
    const ex_flag *flags, size_t count);

/* "usage: PROGRAM SYNOPSIS" on to: for checks ex_flags_parse cannot make alone. */
void ex_flags_usage(FILE *to, const char *program, const char *synopsis);

#endif /* SEQRING_EXAMPLES_EX_FLAGS_H */
