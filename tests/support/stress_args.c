/* SPDX-License-Identifier: Apache-2.0 */
/*
 * stress_args.c: the plain stress programs' command lines (stress_args.h).
 *
 * A bad argument ends the program, so its message is written to stderr
 * piece by piece (error_begin, the pieces, error_end) instead of built.
 */
#include "stress_args.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <seqring/sr_log.h>

const char *const sa_log_modes[] = { "ring", "queue", "sync", NULL };
const char *const sa_log_producers[] = { "shared", "per_thread", NULL };
_Static_assert(SR_LOG_MODE_RING == 0 && SR_LOG_MODE_QUEUE == 1 && SR_LOG_MODE_SYNC == 2,
    "sa_log_modes is indexed by sr_log_mode");
_Static_assert(SR_LOG_PRODUCER_SHARED == 0 && SR_LOG_PRODUCER_PER_THREAD == 1,
    "sa_log_producers is indexed by sr_log_producer");

/* getopt_long's value for options[i]: above every character, so that none is taken for a short option. */
enum { FIRST_OPTION = 256, HELP = 'h' };

/* What sa_parse was given, for the messages of the calls after it. */
static const char *program = "stress";
static const sa_option *table;
static size_t table_count;
static const char *table_operands;

/* words joined by sep, the last pair by last ("ring, queue or sync"; "ring|queue|sync"). */
static void
put_words(FILE *f, const char *const *words, const char *sep, const char *last)
{
	for (size_t i = 0; words[i] != NULL; i++)
		fprintf(f, "%s%s", i == 0 ? "" : words[i + 1] == NULL ? last : sep, words[i]);
}

/* "--name VALUE" as the usage writes it. */
static void
put_option(FILE *f, const sa_option *o)
{
	fprintf(f, "--%s", o->name);
	switch (o->kind) {
	case SA_SWITCH:
		break;
	case SA_WORD:
		fputc(' ', f);
		put_words(f, o->words, "|", "|");
		break;
	case SA_COUNT:
		fprintf(f, " %s", o->value != NULL ? o->value : "N");
		break;
	case SA_TEXT:
		fprintf(f, " %s", o->value != NULL ? o->value : "VALUE");
		break;
	}
}

static void
put_usage(FILE *f)
{
	fprintf(f, "usage: %s", program);
	for (size_t i = 0; i < table_count; i++) {
		fputs(" [", f);
		put_option(f, &table[i]);
		fputc(']', f);
	}
	fputs(" [--help]", f);
	if (table_operands != NULL)
		fprintf(f, " %s", table_operands);
	fputc('\n', f);
}

/* "--events N, --quick or --help": what the command line may hold. */
static void
put_expected_options(FILE *f)
{
	for (size_t i = 0; i < table_count; i++) {
		put_option(f, &table[i]);
		fputs(i + 1 < table_count ? ", " : " or ", f);
	}
	fputs("--help", f);
	if (table_operands != NULL)
		fprintf(f, ", then %s", table_operands);
}

static void
error_begin(void)
{
	fflush(stdout);
	fprintf(stderr, "%s: ", program);
}

/* Ends every bad argument's message: the usage line, then exit status 2. */
__attribute__((noreturn)) static void
error_end(void)
{
	fputc('\n', stderr);
	put_usage(stderr);
	exit(2);
}

void
sa_usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	error_begin();
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	error_end();
}

static void
help(void)
{
	put_usage(stdout);
	for (size_t i = 0; i < table_count; i++) {
		fputs("  ", stdout);
		put_option(stdout, &table[i]);
		printf("\n      %s\n", table[i].help != NULL ? table[i].help : "");
	}
	printf("  --help\n      this text\n");
	exit(0);
}

int64_t
sa_operand_count(const char *what, const char *text, int64_t min, int64_t max)
{
	char *end;
	errno = 0;
	long long v = strtoll(text, &end, 10);
	if (errno != 0 || end == text || *end != '\0' || v < min || v > max)
		sa_usage_error("%s '%s' is invalid: expected a whole number from %lld to %lld", what, text,
		    (long long)min, (long long)max);
	return v;
}

int
sa_operand_word(const char *what, const char *text, const char *const *words)
{
	for (int i = 0; words[i] != NULL; i++)
		if (strcmp(text, words[i]) == 0)
			return i;
	error_begin();
	fprintf(stderr, "%s '%s' is invalid: expected ", what, text);
	put_words(stderr, words, ", ", " or ");
	error_end();
}

static void
store(const sa_option *o, const char *value)
{
	char flag[64];
	snprintf(flag, sizeof flag, "--%s", o->name);
	switch (o->kind) {
	case SA_SWITCH:
		*(bool *)o->dest = true;
		break;
	case SA_COUNT:
		*(int64_t *)o->dest = sa_operand_count(flag, value, o->min, o->max);
		break;
	case SA_WORD:
		*(int *)o->dest = sa_operand_word(flag, value, o->words);
		break;
	case SA_TEXT:
		*(const char **)o->dest = value;
		break;
	}
}

/*
 * An argument getopt_long did not take ('?'): a switch given a value, an
 * unknown short option, a prefix of several long options, or an unknown one.
 */
__attribute__((noreturn)) static void
not_taken(const char *arg)
{
	if (optopt >= FIRST_OPTION)
		sa_usage_error("--%s takes no value: '%s'", table[optopt - FIRST_OPTION].name, arg);
	if (optopt == HELP && strncmp(arg, "--", 2) == 0)
		sa_usage_error("--help takes no value: '%s'", arg);
	error_begin();
	/* getopt_long takes a prefix of one long option for it: of several, it takes none. */
	size_t prefix = strncmp(arg, "--", 2) == 0 ? strcspn(arg + 2, "=") : 0;
	int matches = 0;
	for (size_t i = 0; prefix > 0 && i <= table_count; i++)
		matches += strncmp(i < table_count ? table[i].name : "help", arg + 2, prefix) == 0;
	if (optopt > 0)
		fprintf(stderr, "'-%c' is not an option: expected ", optopt);
	else if (matches > 1)
		fprintf(stderr, "'%s' is ambiguous, the beginning of %d options: expected ", arg, matches);
	else
		fprintf(stderr, "'%s' is not an option: expected ", arg);
	put_expected_options(stderr);
	error_end();
}

int
sa_parse(int argc, char **argv, const sa_option *options, size_t count, const char *operands)
{
	if (argc > 0 && argv[0] != NULL) {
		const char *slash = strrchr(argv[0], '/');
		program = slash != NULL ? slash + 1 : argv[0];
	}
	table = options;
	table_count = count;
	table_operands = operands;
	struct option *longs = calloc(count + 2, sizeof *longs);
	if (longs == NULL)
		sa_usage_error("no memory for a table of %zu options", count);
	for (size_t i = 0; i < count; i++)
		longs[i] = (struct option){ options[i].name, options[i].kind == SA_SWITCH ? no_argument :
		    required_argument, NULL, FIRST_OPTION + (int)i };
	longs[count] = (struct option){ "help", no_argument, NULL, HELP };
	opterr = 0; /* the messages are ours */
	for (int c; (c = getopt_long(argc, argv, ":", longs, NULL)) != -1;) {
		if (c == HELP)
			help();
		if (c == '?')
			not_taken(argv[optind - 1]);
		if (c == ':') {
			error_begin();
			fprintf(stderr, "--%s needs a value: expected ", options[optopt - FIRST_OPTION].name);
			put_option(stderr, &options[optopt - FIRST_OPTION]);
			error_end();
		}
		store(&options[c - FIRST_OPTION], optarg);
	}
	free(longs);
	if (operands == NULL && optind < argc) {
		error_begin();
		fprintf(stderr, "'%s' is not an option, and %s takes no operand: expected ", argv[optind], program);
		put_expected_options(stderr);
		error_end();
	}
	return optind;
}
