/* SPDX-License-Identifier: Apache-2.0 */
/*
 * stress_args.h: the plain stress programs' command lines, parsed with
 * getopt_long from a table of options (stress_args.c, in
 * seqring_test_support).  Every program words its errors the same way,
 * "PROGRAM: what is wrong: expected what", then its usage line on stderr,
 * and exits 2; --help prints the usage and each option's help and exits 0.
 */
#ifndef SA_STRESS_ARGS_H
#define SA_STRESS_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum sa_kind {
	SA_SWITCH,                  /* no value: *(bool *)dest = true */
	SA_COUNT,                   /* a whole number from min to max: *(int64_t *)dest */
	SA_WORD,                    /* one of words: *(int *)dest = its index */
	SA_TEXT                     /* any value: *(const char **)dest */
} sa_kind;

typedef struct sa_option {
	const char *name;           /* without its dashes: "events" is --events */
	sa_kind kind;
	void *dest;
	const char *help;           /* one line for --help */
	const char *value;          /* the value's name in the usage ("N", "PATH"); SA_WORD lists its words */
	int64_t min, max;           /* SA_COUNT */
	const char *const *words;   /* SA_WORD: NULL-terminated */
} sa_option;

/*
 * Parses argv[1..argc-1] against options[count] (options may be NULL when
 * count is 0).  operands is the usage of the words the program takes after
 * its options ("[MESSAGES [ROUNDS]]"), or NULL when it takes none: an
 * operand is then an error.  Returns the index in argv of the first operand
 * (argc when there is none); getopt_long moves the operands after the
 * options.  Does not return on --help (exit 0) or on a bad argument (exit 2).
 */
int sa_parse(int argc, char **argv, const sa_option *options, size_t count, const char *operands);

/* After sa_parse: "PROGRAM: <message>" and the usage line on stderr, then exit 2. */
__attribute__((format(printf, 1, 2), noreturn)) void sa_usage_error(const char *fmt, ...);

/* After sa_parse, for an operand: text as a whole number from min to max, else sa_usage_error naming what. */
int64_t sa_operand_count(const char *what, const char *text, int64_t min, int64_t max);
/* After sa_parse, for an operand: the index of text in words (NULL-terminated), else sa_usage_error. */
int sa_operand_word(const char *what, const char *text, const char *const *words);

/* A macro's value as a string, for a help line: "(default " SA_STRING(DEFAULT_EVENTS) ")". */
#define SA_STRING(x) SA_STRING_(x)
#define SA_STRING_(x) #x

/* The logger's words, indexed by their enum's values (stress_args.c checks that they match). */
extern const char *const sa_log_modes[];      /* sr_log_mode: ring, queue, sync */
extern const char *const sa_log_producers[];  /* sr_log_producer: shared, per_thread */

/*
 * The two options of a run in one logger mode, --mode MODE and --producer
 * PRODUCER, into int *mode and *producer, which the program sets to the
 * logger's defaults (ring, per_thread) before sa_parse.
 */
#define SA_LOG_MODE_OPTIONS(mode, producer) \
	{ .name = "mode", .kind = SA_WORD, .dest = (mode), .words = sa_log_modes, \
	    .help = "the logger's mode (default ring)" }, \
	{ .name = "producer", .kind = SA_WORD, .dest = (producer), .words = sa_log_producers, \
	    .help = "mode ring's producer (default per_thread)" }

#endif /* SA_STRESS_ARGS_H */
