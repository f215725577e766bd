/* SPDX-License-Identifier: Apache-2.0 */
/*
 * stress_log_exit.c: a program that logs and ends without sr_log_close
 * loses nothing (close_at_exit is on by default).
 *
 * A plain program: each scenario is this program run again in a child
 * process (so that its exit is real), bounded in time.
 *   1. every mode (ring shared and per_thread, queue, sync): 10,000
 *      messages, then return from main, exit(0) or quick_exit(0): all
 *      10,000 lines are in the file, each once;
 *   2. three other threads keep logging while main returns: the exit still
 *      ends, with main's 10,000 lines written;
 *   3. a sink that blocks forever (a pipe nobody reads): exit ends within
 *      exit_timeout_ms (300 ms here) and says on stderr what was lost.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log_support.h"
#include <seqring/sr_log.h>

enum { MESSAGES = 10000 };

static sr_log *
open_logger(sr_sink_config *sink, const char *mode, const char *producer)
{
	sr_log_config c;
	tl_config_sink(&c, sink);
	c.ignore_environment = true;
	c.ring_slots = 1024;
	c.thread_ring_slots = 1024;
	if (mode != NULL && sr_log_mode_parse(mode, &c.mode, NULL) != SR_OK)
		return NULL;
	/* Named either way: "shared" must not fall to the default, per_thread. */
	if (producer != NULL && strcmp(producer, "shared") == 0)
		c.producer = SR_LOG_PRODUCER_SHARED;
	else if (producer != NULL && strcmp(producer, "per_thread") == 0)
		c.producer = SR_LOG_PRODUCER_PER_THREAD;
	else
		return NULL;
	sr_error err;
	sr_log *log = sr_log_open(&c, &err);
	if (log == NULL)
		fprintf(stderr, "open: %s\n", err.message);
	return log;
}

static void *
keep_logging(void *arg)
{
	sr_category *cat = arg;
	for (long i = 0;; i++)
		SR_INFO(cat, "B#%ld. busy", i % MESSAGES);
	return NULL;
}

/* The child: argv = how path mode producer. */
static int
child(char **argv)
{
	const char *how = argv[1];
	sr_sink_config sink = sr_sink_file(argv[2]);
	sr_log *log = open_logger(&sink, argv[3], argv[4]);
	if (log == NULL)
		return 3;
	sr_category *cat = sr_log_category(log, "exit");
	if (strcmp(how, "busy") == 0) {
		pthread_t t;
		for (int i = 0; i < 3; i++)
			pthread_create(&t, NULL, keep_logging, cat);
	}
	for (int i = 0; i < MESSAGES; i++)
		SR_INFO(cat, "E#%d. exit test", i);
	if (strcmp(how, "exit") == 0)
		exit(0);
	if (strcmp(how, "quick_exit") == 0)
		quick_exit(0);
	return 0; /* "return", "busy": main returns */
}

/* The child with a sink that never drains: argv = stuck fd. */
static int
stuck_child(char **argv)
{
	sr_sink_config sink = sr_sink_fd(atoi(argv[2]));
	sr_log_config c;
	tl_config_sink(&c, &sink);
	c.ignore_environment = true;
	c.ring_slots = 1024;
	c.thread_ring_slots = 1024;
	c.full_policy = SR_LOG_FULL_DROP;
	c.exit_timeout_ms = 300;
	sr_log *log = sr_log_open(&c, NULL);
	if (log == NULL)
		return 3;
	for (int i = 0; i < 100000; i++)
		SR_INFO(sr_log_root(log), "S#%d. a line for a pipe nobody reads", i);
	return 0;
}

static int failures;

static void
check(int ok, const char *what)
{
	printf("%-60s %s\n", what, ok ? "ok" : "FAILED");
	if (!ok)
		failures++;
}

static void
run_one(const char *how, const char *mode, const char *producer)
{
	char path[64];
	snprintf(path, sizeof path, "/tmp/seqring_exit_XXXXXX");
	int fd = mkstemp(path);
	close(fd);
	char *argv[] = { "stress_log_exit", (char *)how, path, (char *)mode, (char *)producer, NULL };
	int status = 0;
	int rc = tl_run_self(argv, 20000, &status);
	tl_tally t = tl_tally_lines(path, "E", MESSAGES);
	char what[128];
	snprintf(what, sizeof what, "%s, %s %s: %d lines, %d missing, %d twice", how, mode, producer,
	    t.lines, t.missing, t.doubled);
	check(rc == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 && t.missing == 0 && t.doubled == 0 &&
	    t.bad == 0, what);
	unlink(path);
}

int
main(int argc, char **argv)
{
	if (argc == 5)
		return child(argv);
	if (argc == 3 && strcmp(argv[1], "stuck") == 0)
		return stuck_child(argv);
	tl_clear_env();
	static const char *const modes[][2] = {
		{ "ring", "shared" }, { "ring", "per_thread" }, { "queue", "shared" }, { "sync", "shared" },
	};
	static const char *const hows[] = { "return", "exit", "quick_exit" };
	for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++)
		for (size_t h = 0; h < sizeof hows / sizeof hows[0]; h++)
			run_one(hows[h], modes[m][0], modes[m][1]);
	run_one("busy", "ring", "shared");
	run_one("busy", "ring", "per_thread");
	run_one("busy", "queue", "shared");

	/* 3: a pipe nobody reads; the parent holds the read end open. */
	int p[2];
	if (pipe(p) != 0)
		return 2;
	char fdtext[16];
	snprintf(fdtext, sizeof fdtext, "%d", p[1]);
	char *argv3[] = { "stress_log_exit", "stuck", fdtext, NULL };
	int status = 0;
	int rc = tl_run_self(argv3, 10000, &status);
	close(p[1]);
	check(rc == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "a sink that blocks: exit ends after exit_timeout_ms");
	close(p[0]);
	printf("stress_log_exit: %s\n", failures == 0 ? "ok" : "FAILED");
	return failures == 0 ? 0 : 1;
}
