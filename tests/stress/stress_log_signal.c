/* SPDX-License-Identifier: Apache-2.0 */
/*
 * stress_log_signal.c: logging from a signal handler never hangs, in every
 * mode, and every call is counted.
 *
 * A plain program: each mode runs in a child process (a deadlock there is a
 * hang the parent ends, and reports) for SECONDS: the main thread logs in a
 * loop while SIGALRM, every 200 us, runs a handler that logs too, most often
 * in the middle of one of the main thread's calls.  Then: no hang, and after
 * the shutdown accepted + dropped = the calls made (main's and the
 * handler's), written = accepted.
 *
 * Under ThreadSanitizer the queue run does not report signal-unsafe calls:
 * a handler call that did not interrupt a log call allocates its line there
 * (malloc), the limit sr_log.h documents for queue mode.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "log_support.h"
#include "stress_args.h"
#include <seqring/sr_log.h>

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
enum { SECONDS = 1 };
#else
enum { SECONDS = 2 };
#endif

static sr_category *cat;
static volatile long handler_calls;

static void
on_alarm(int sig)
{
	(void)sig;
	handler_calls++;
	SR_WARN(cat, "H#%ld. from the handler", handler_calls);
}

static double
seconds_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The child: logs from main and from the handler for SECONDS (wait NULL: the default strategy). */
static int
child(sr_log_mode mode, sr_log_producer producer, const char *wait)
{
	int devnull = open("/dev/null", O_WRONLY);
	sr_sink_config sink = sr_sink_fd(devnull);
	sr_log_config c;
	tl_config_sink(&c, &sink);
	c.ignore_environment = true;
	/* The same room whichever ring main writes into. */
	c.ring_slots = 4096;
	c.thread_ring_slots = 4096;
	c.mode = mode;
	c.producer = producer;
	if (wait != NULL)
		c.wait_strategy = wait;
	/* The logger's threads inherit this mask: SIGALRM lands on the main thread only. */
	sigset_t alrm;
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &alrm, NULL);
	sr_error err;
	sr_log *log = sr_log_open(&c, &err);
	if (log == NULL) {
		fprintf(stderr, "open: %s\n", err.message);
		return 3;
	}
	cat = sr_log_category(log, "signal");
	sr_log_thread_prepare(log);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	pthread_sigmask(SIG_UNBLOCK, &alrm, NULL);
	struct itimerval every = { .it_interval = { 0, 200 }, .it_value = { 0, 200 } };
	setitimer(ITIMER_REAL, &every, NULL);
	long main_calls = 0;
	double end = seconds_now() + SECONDS;
	while (seconds_now() < end) {
		for (int i = 0; i < 256; i++) {
			main_calls++;
			SR_INFO(cat, "M#%ld. from main, %s", main_calls, "with a string");
		}
	}
	struct itimerval off = { 0 };
	setitimer(ITIMER_REAL, &off, NULL);
	pthread_sigmask(SIG_BLOCK, &alrm, NULL);
	sr_log_shutdown(log);
	sr_log_counters st;
	sr_log_stats(log, &st);
	long attempted = main_calls + handler_calls;
	printf("  %s %s %s: main %ld, handler %ld; accepted %llu + dropped %llu = %llu (attempted %ld), "
	    "written %llu\n", sa_log_modes[mode], sa_log_producers[producer], wait != NULL ? wait : "default",
	    main_calls, handler_calls,
	    (unsigned long long)st.accepted, (unsigned long long)st.dropped,
	    (unsigned long long)(st.accepted + st.dropped), attempted, (unsigned long long)st.written);
	bool ok = st.accepted + st.dropped == (uint64_t)attempted && st.written == st.accepted && handler_calls > 0;
	sr_log_close(&log);
	return ok ? 0 : 1;
}

int
main(int argc, char **argv)
{
	bool run_child = false;
	int mode = SR_LOG_MODE_RING, producer = SR_LOG_PRODUCER_PER_THREAD;
	const char *wait = NULL;
	const sa_option options[] = {
		{ .name = "child", .kind = SA_SWITCH, .dest = &run_child,
		    .help = "one run in this process (what each check runs)" },
		SA_LOG_MODE_OPTIONS(&mode, &producer),
		{ .name = "wait", .kind = SA_TEXT, .dest = &wait, .value = "SPEC",
		    .help = "the logger's wait strategy (default: the logger's default)" },
	};
	sa_parse(argc, argv, options, sizeof options / sizeof *options, NULL);
	if (run_child)
		return child((sr_log_mode)mode, (sr_log_producer)producer, wait);
	tl_clear_env();
	/* mode, producer, wait strategy (NULL: the default) */
	static const char *const runs[][3] = {
		{ "ring", "shared", NULL },
		{ "ring", "shared", "block" },
		{ "ring", "per_thread", NULL },
		{ "queue", "shared", NULL },
		{ "sync", "shared", NULL },
	};
	int failures = 0;
	for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
#if defined(__SANITIZE_THREAD__)
		if (strcmp(runs[i][0], "queue") == 0)
			setenv("TSAN_OPTIONS", "report_signal_unsafe=0", 1);
		else
			unsetenv("TSAN_OPTIONS");
#endif
		/* The wait option last: without one, its place ends the list. */
		char *args[] = { "stress_log_signal", "--child", "--mode", (char *)runs[i][0], "--producer",
			(char *)runs[i][1], runs[i][2] != NULL ? "--wait" : NULL, (char *)runs[i][2], NULL };
		int status = 0;
		int rc = tl_run_self(args, SECONDS * 1000 + 15000, &status);
		bool ok = rc == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
		printf("%s %s wait %s: %s\n", runs[i][0], runs[i][1], runs[i][2] != NULL ? runs[i][2] : "default",
		    ok ? "ok" : rc == 1 ? "FAILED (hung: killed)" : "FAILED");
		failures += !ok;
	}
	printf("stress_log_signal: %s\n", failures == 0 ? "ok" : "FAILED");
	return failures == 0 ? 0 : 1;
}
