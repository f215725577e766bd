/* SPDX-License-Identifier: Apache-2.0 */
/*
 * seqring_decode.c: the command seqring-decode DIR, which prints the binary
 * trace a ctf: sink wrote (sr_log_decode_trace) as the lines a text sink
 * would have written, on standard output, once or following a live trace.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <seqring/sr_log.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
    "usage: seqring-decode [--layout text|json|pattern|message] [--pattern P] [--follow] DIR\n"
    "\n"
    "Prints the trace a ctf: sink wrote in directory DIR (SEQRING_LOG_SINK='ctf:DIR') on standard\n"
    "output: each event as the line a text sink of the writing program would have written, with its\n"
    "own time, level, category, thread and location, merged across the trace's streams by time.\n"
    "\n"
    "  --layout L    text (default), json, message or pattern (with --pattern)\n"
    "  --pattern P   the pattern of --layout pattern (implies it), e.g. '%d %-5p [%t] %c - %m%n'\n"
    "  --follow      keep reading as packets are appended to a live trace, until SIGINT or SIGTERM\n"
    "\n"
    "The SEQRING_LOG* environment is not read: the options above choose the output.\n"
    "\n"
    "Exit status: 0 done, 1 an error (on stderr), 2 usage.\n";

static volatile sig_atomic_t stop_requested;

static void
on_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static int
bad_usage(const char *why, const char *what)
{
	fprintf(stderr, "seqring-decode: %s%s%s\n\n%s", why, what != NULL ? ": " : "", what != NULL ? what : "", usage);
	return 2;
}

int
main(int argc, char **argv)
{
	const char *layout_name = NULL, *pattern = NULL, *dir = NULL;
	bool follow = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			fputs(usage, stdout);
			return 0;
		} else if (strcmp(a, "--follow") == 0 || strcmp(a, "-f") == 0) {
			follow = true;
		} else if (strcmp(a, "--layout") == 0 || strcmp(a, "--pattern") == 0) {
			if (i + 1 == argc)
				return bad_usage("a value is missing after", a);
			*(strcmp(a, "--layout") == 0 ? &layout_name : &pattern) = argv[++i];
		} else if (strncmp(a, "--layout=", 9) == 0) {
			layout_name = a + 9;
		} else if (strncmp(a, "--pattern=", 10) == 0) {
			pattern = a + 10;
		} else if (a[0] == '-' && a[1] != '\0') {
			return bad_usage("unknown option", a);
		} else if (dir != NULL) {
			return bad_usage("more than one directory", a);
		} else {
			dir = a;
		}
	}
	if (dir == NULL || dir[0] == '\0')
		return bad_usage("the trace's directory is missing", NULL);
	sr_error err;
	sr_log_layout layout = pattern != NULL ? SR_LOG_LAYOUT_PATTERN : SR_LOG_LAYOUT_TEXT;
	if (layout_name != NULL && sr_log_layout_parse(layout_name, &layout, &err) != SR_OK)
		return bad_usage(err.message, NULL);
	if (layout == SR_LOG_LAYOUT_PATTERN && pattern == NULL)
		return bad_usage("--layout pattern needs --pattern P", NULL);
	if (layout != SR_LOG_LAYOUT_PATTERN && pattern != NULL)
		return bad_usage("--pattern goes with --layout pattern, not", sr_log_layout_name(layout));

	sr_log_config c;
	sr_log_config_default(&c);
	/* What to print is the arguments': no ring directory, no sinks or layout from the environment. */
	c.ignore_environment = true;
	/* The caller's thread writes every line, in the order it decodes them: no consumer, no ring. */
	c.mode = SR_LOG_MODE_SYNC;
	c.level = SR_LOG_TRACE;
	c.layout = layout;
	c.pattern = pattern;
	sr_sink_config out = sr_sink_fd(STDOUT_FILENO);
	c.sinks = &out;
	c.sink_count = 1;
	c.close_at_exit = false;
	sr_log *log = sr_log_open(&c, &err);
	if (log == NULL) {
		fprintf(stderr, "seqring-decode: cannot open a logger to write to: %s\n", err.message);
		return 1;
	}
	if (follow) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_stop;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
	}
	sr_trace_decode_options options = { .follow = follow, .stop = &stop_requested };
	sr_trace_decode_report report;
	int rc = sr_log_decode_trace(log, dir, &options, &report, &err);
	sr_log_close(&log);
	if (rc != SR_OK) {
		fprintf(stderr, "seqring-decode: %s\n", err.message);
		return 1;
	}
	if (report.discarded > 0)
		fprintf(stderr, "seqring-decode: the writing program dropped %llu records (queue full): they are not in the "
		    "trace\n", (unsigned long long)report.discarded);
	return 0;
}
