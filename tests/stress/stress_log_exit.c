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
#include "stress_args.h"
#include <seqring/sr_log.h>

enum { MESSAGES = 10000 };

/* How a child's main ends (--how): returns, exit(0), quick_exit(0), or returns while threads log. */
enum how { HOW_RETURN, HOW_EXIT, HOW_QUICK_EXIT, HOW_BUSY };
static const char *const hows[] = { "return", "exit", "quick_exit", "busy", NULL };

static sr_log *
open_logger(sr_sink_config *sink, sr_log_mode mode, sr_log_producer producer)
{
	sr_log_config c;
	tl_config_sink(&c, sink);
	c.ignore_environment = true;
	c.ring_slots = 1024;
	c.thread_ring_slots = 1024;
	c.mode = mode;
	c.producer = producer;
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

/* The child: logs MESSAGES lines into path and ends as how says. */
static int
child(enum how how, const char *path, sr_log_mode mode, sr_log_producer producer)
{
	sr_sink_config sink = sr_sink_file(path);
	sr_log *log = open_logger(&sink, mode, producer);
	if (log == NULL)
		return 3;
	sr_category *cat = sr_log_category(log, "exit");
	if (how == HOW_BUSY) {
		pthread_t t;
		for (int i = 0; i < 3; i++)
			pthread_create(&t, NULL, keep_logging, cat);
	}
	for (int i = 0; i < MESSAGES; i++)
		SR_INFO(cat, "E#%d. exit test", i);
	if (how == HOW_EXIT)
		exit(0);
	if (how == HOW_QUICK_EXIT)
		quick_exit(0);
	return 0; /* HOW_RETURN, HOW_BUSY: main returns */
}

/* The child with a sink that never drains: the write end fd of a pipe nobody reads. */
static int
stuck_child(int fd)
{
	sr_sink_config sink = sr_sink_fd(fd);
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
run_one(enum how how, sr_log_mode mode, sr_log_producer producer)
{
	char path[64];
	snprintf(path, sizeof path, "/tmp/seqring_exit_XXXXXX");
	int fd = mkstemp(path);
	close(fd);
	char *argv[] = { "stress_log_exit", "--child", "--how", (char *)hows[how], "--file", path, "--mode",
		(char *)sa_log_modes[mode], "--producer", (char *)sa_log_producers[producer], NULL };
	int status = 0;
	int rc = tl_run_self(argv, 20000, &status);
	tl_tally t = tl_tally_lines(path, "E", MESSAGES);
	char what[128];
	snprintf(what, sizeof what, "%s, %s %s: %d lines, %d missing, %d twice", hows[how], sa_log_modes[mode],
	    sa_log_producers[producer], t.lines, t.missing, t.doubled);
	check(rc == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 && t.missing == 0 && t.doubled == 0 &&
	    t.bad == 0, what);
	unlink(path);
}

int
main(int argc, char **argv)
{
	bool run_child = false;
	int how = HOW_RETURN, mode = SR_LOG_MODE_RING, producer = SR_LOG_PRODUCER_PER_THREAD;
	const char *path = NULL;
	int64_t stuck_fd = -1;
	const sa_option options[] = {
		{ .name = "child", .kind = SA_SWITCH, .dest = &run_child,
		    .help = "one run in this process (what each check runs): log into --file, end as --how says" },
		{ .name = "how", .kind = SA_WORD, .dest = &how, .words = hows,
		    .help = "how the child's main ends; busy: returns while three threads log (default return)" },
		{ .name = "file", .kind = SA_TEXT, .dest = &path, .value = "PATH", .help = "the child's log file" },
		SA_LOG_MODE_OPTIONS(&mode, &producer),
		{ .name = "stuck-fd", .kind = SA_COUNT, .dest = &stuck_fd, .value = "FD", .min = 0, .max = 65535,
		    .help = "the child whose sink never drains: log into FD, a pipe nobody reads" },
	};
	sa_parse(argc, argv, options, sizeof options / sizeof *options, NULL);
	if (run_child && path == NULL)
		sa_usage_error("--child needs --file PATH: expected --child --file PATH");
	if (run_child)
		return child((enum how)how, path, (sr_log_mode)mode, (sr_log_producer)producer);
	if (stuck_fd >= 0)
		return stuck_child((int)stuck_fd);
	tl_clear_env();
	static const int modes[][2] = {
		{ SR_LOG_MODE_RING, SR_LOG_PRODUCER_SHARED }, { SR_LOG_MODE_RING, SR_LOG_PRODUCER_PER_THREAD },
		{ SR_LOG_MODE_QUEUE, SR_LOG_PRODUCER_SHARED }, { SR_LOG_MODE_SYNC, SR_LOG_PRODUCER_SHARED },
	};
	for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++)
		for (int h = HOW_RETURN; h <= HOW_QUICK_EXIT; h++)
			run_one((enum how)h, (sr_log_mode)modes[m][0], (sr_log_producer)modes[m][1]);
	run_one(HOW_BUSY, SR_LOG_MODE_RING, SR_LOG_PRODUCER_SHARED);
	run_one(HOW_BUSY, SR_LOG_MODE_RING, SR_LOG_PRODUCER_PER_THREAD);
	run_one(HOW_BUSY, SR_LOG_MODE_QUEUE, SR_LOG_PRODUCER_SHARED);

	/* 3: a pipe nobody reads; the parent holds the read end open. */
	int p[2];
	if (pipe(p) != 0)
		return 2;
	char fdtext[16];
	snprintf(fdtext, sizeof fdtext, "%d", p[1]);
	char *argv3[] = { "stress_log_exit", "--stuck-fd", fdtext, NULL };
	int status = 0;
	int rc = tl_run_self(argv3, 10000, &status);
	close(p[1]);
	check(rc == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "a sink that blocks: exit ends after exit_timeout_ms");
	close(p[0]);
	printf("stress_log_exit: %s\n", failures == 0 ? "ok" : "FAILED");
	return failures == 0 ? 0 : 1;
}
