/* SPDX-License-Identifier: Apache-2.0 */
/*
 * stress_log_fork.c: fork(2) after sr_log_open, in every mode: the child
 * has a working logger, nothing hangs, no line is written twice.
 *
 * A plain program; each mode runs in a child process of its own (a hang
 * there is ended and reported by the top).  In it: THREADS threads log
 * numbered messages ("P#n.") to a file while the main thread forks.  The
 * forked child logs its own set ("C#n.") from its one thread and exits
 * without sr_log_close (close_at_exit writes the rest); the parent's threads
 * finish and it closes its logger.  Then every P line and every C line is
 * in the file (both write to the same file: the descriptor is shared and
 * the sink appends) exactly once: the parent wrote what it had taken before
 * the fork, the child only its own calls.  With fork_policy drop, the
 * children's calls are dropped and counted (dropped = their calls, accepted
 * 0) and none of their lines is in the file.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log_support.h"
#include "stress_args.h"
#include <seqring/sr_log.h>

#if defined(__SANITIZE_THREAD__)
enum { THREADS = 3, EACH = 5000, CHILD = 2000, FORKS = 2 };
#else
enum { THREADS = 4, EACH = 20000, CHILD = 5000, FORKS = 3 };
#endif

static sr_category *cat;

/* --fork-policy's words, indexed by sr_log_fork_policy. */
static const char *const fork_policies[] = { "restart", "drop", NULL };
_Static_assert(SR_LOG_FORK_RESTART == 0 && SR_LOG_FORK_DROP == 1,
    "fork_policies is indexed by sr_log_fork_policy");

static void *
work(void *arg)
{
	int t = (int)(long)arg;
	for (int i = 0; i < EACH; i++)
		SR_INFO(cat, "P#%d. from a parent's thread, %s", t * EACH + i, "logging while main forks");
	return NULL;
}

/* One run, logging into path; exit status 0 when every line is there once. */
static int
run_mode(sr_log_mode mode, sr_log_producer producer, sr_log_fork_policy policy, const char *path)
{
	sr_sink_config sink = sr_sink_file(path);
	sr_log_config c;
	tl_config_sink(&c, &sink);
	c.ignore_environment = true;
	c.ring_slots = 1024;
	c.thread_ring_slots = 1024;
	c.mode = mode;
	c.producer = producer;
	c.fork_policy = policy;
	bool drop = policy == SR_LOG_FORK_DROP;
	sr_log *log = sr_log_open(&c, NULL);
	if (log == NULL)
		return 3;
	cat = sr_log_category(log, "fork");
	pthread_t th[THREADS];
	for (int t = 0; t < THREADS; t++)
		pthread_create(&th[t], NULL, work, (void *)(long)t);
	pid_t kids[FORKS];
	for (int f = 0; f < FORKS; f++) {
		tl_sleep_ms(2);
		kids[f] = fork();
		if (kids[f] == 0) {
			/* The child: one thread; its calls must neither hang nor repeat the parent's. */
			for (int i = 0; i < CHILD; i++)
				SR_INFO(cat, "C#%d. from child %d", f * CHILD + i, f);
			if (drop) {
				/* Every call dropped and counted; the logger still flushes and shuts down. */
				sr_log_counters cst;
				sr_log_stats(log, &cst);
				int ok = cst.dropped == CHILD && cst.accepted == 0 && sr_log_flush(log) == SR_OK;
				exit(ok ? 0 : 1);
			}
			exit(0); /* close_at_exit writes what is left */
		}
	}
	int bad = 0;
	for (int f = 0; f < FORKS; f++) {
		/* A child that hangs is killed (and counted), so that none outlives the test. */
		int status = 0, waited_ms = 0;
		while (waitpid(kids[f], &status, WNOHANG) == 0) {
			if (waited_ms >= 20000) {
				kill(kids[f], SIGKILL);
				waitpid(kids[f], &status, 0);
				printf("  %s %s: child %d hung: killed\n", sa_log_modes[mode], sa_log_producers[producer],
				    f);
				break;
			}
			tl_sleep_ms(5);
			waited_ms += 5;
		}
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			bad++;
	}
	for (int t = 0; t < THREADS; t++)
		pthread_join(th[t], NULL);
	sr_log_counters st;
	sr_log_shutdown(log);
	sr_log_stats(log, &st);
	sr_log_close(&log);
	tl_tally p = tl_tally_lines(path, "P", THREADS * EACH);
	tl_tally ch = tl_tally_lines(path, "C", FORKS * CHILD);
	if (drop && ch.lines == 0)
		ch.missing = ch.doubled = 0; /* as it should be: nothing of the children's */
	else if (drop)
		ch.missing = 1;
	printf("  %s %s %s: parent %d lines (%d missing, %d twice), children %d lines (%d missing, %d twice), "
	    "parent accepted %llu dropped %llu\n", sa_log_modes[mode], sa_log_producers[producer],
	    fork_policies[policy], p.lines, p.missing, p.doubled, ch.lines, ch.missing, ch.doubled,
	    (unsigned long long)st.accepted, (unsigned long long)st.dropped);
	return bad == 0 && p.missing == 0 && p.doubled == 0 && p.bad == 0 && ch.missing == 0 && ch.doubled == 0 &&
	    ch.bad == 0 ? 0 : 1;
}

int
main(int argc, char **argv)
{
	bool run_child = false;
	int mode = SR_LOG_MODE_RING, producer = SR_LOG_PRODUCER_PER_THREAD, policy = SR_LOG_FORK_RESTART;
	const char *path = NULL;
	const sa_option options[] = {
		{ .name = "child", .kind = SA_SWITCH, .dest = &run_child,
		    .help = "one run in this process (what each check runs), logging into --file" },
		{ .name = "file", .kind = SA_TEXT, .dest = &path, .value = "PATH", .help = "the child's log file" },
		SA_LOG_MODE_OPTIONS(&mode, &producer),
		{ .name = "fork-policy", .kind = SA_WORD, .dest = &policy, .words = fork_policies,
		    .help = "the logger's fork_policy (default restart)" },
	};
	sa_parse(argc, argv, options, sizeof options / sizeof *options, NULL);
	if (run_child && path == NULL)
		sa_usage_error("--child needs --file PATH: expected --child --file PATH");
	if (run_child)
		return run_mode((sr_log_mode)mode, (sr_log_producer)producer, (sr_log_fork_policy)policy, path);
	tl_clear_env();
#if defined(__SANITIZE_THREAD__)
	/*
	 * ThreadSanitizer cannot follow a thread started after a multi-threaded
	 * fork ("dup thread with used id", then it exits): under it, only the
	 * runs whose child starts no thread (sync, and every fork_policy drop).
	 */
	setenv("TSAN_OPTIONS", "die_after_fork=0", 0);
	const bool child_threads_ok = false;
#elif defined(__SANITIZE_ADDRESS__)
	/*
	 * AddressSanitizer's allocator is not fork-safe in a multi-threaded
	 * process: a size class's lock that another thread held at the fork
	 * stays held in the child, and the child's consumer hangs in free().
	 * Under it too, only the runs whose child starts no thread.
	 */
	const bool child_threads_ok = false;
#else
	const bool child_threads_ok = true;
#endif
#if defined(__SANITIZE_ADDRESS__)
	/*
	 * A forked child's heap holds what the parent's other threads had in
	 * hand at the fork (a queue line being enqueued): unreachable there, but
	 * no leak of the logger's.  The runs check lines, not leaks.
	 */
	setenv("ASAN_OPTIONS", "detect_leaks=0", 0);
#endif
	static const char *const runs[][3] = {
		{ "ring", "shared", "restart" }, { "ring", "per_thread", "restart" }, { "queue", "shared", "restart" },
		{ "sync", "shared", "restart" }, { "ring", "shared", "drop" }, { "ring", "per_thread", "drop" },
		{ "queue", "shared", "drop" }, { "sync", "shared", "drop" },
	};
	int failures = 0;
	for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
		if (!child_threads_ok && strcmp(runs[r][2], "restart") == 0 && strcmp(runs[r][0], "sync") != 0)
			continue;
		char path[64];
		snprintf(path, sizeof path, "/tmp/seqring_fork_XXXXXX");
		close(mkstemp(path));
		char *args[] = { "stress_log_fork", "--child", "--mode", (char *)runs[r][0], "--producer",
			(char *)runs[r][1], "--fork-policy", (char *)runs[r][2], "--file", path, NULL };
		int status = 0;
		int rc = tl_run_self(args, 60000, &status);
		bool ok = rc == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
		printf("%s %s %s: %s\n", runs[r][0], runs[r][1], runs[r][2], ok ? "ok" : rc == 1 ? "FAILED (hung: killed)" : "FAILED");
		failures += !ok;
		unlink(path);
	}
	printf("stress_log_fork: %s\n", failures == 0 ? "ok" : "FAILED");
	return failures == 0 ? 0 : 1;
}
