/* SPDX-License-Identifier: Apache-2.0 */
/*
 * stress_log_shutdown.c: logging that races sr_log_shutdown loses nothing
 * that was accepted, in every mode.
 *
 * A plain program.  ROUNDS rounds per mode: THREADS threads log numbered
 * messages to a file while the main thread shuts the logger down after a
 * short, varying delay.  After the shutdown: the lines in the file, written
 * and accepted are one number, and no line is there twice.  A message the
 * shutdown refused is counted as dropped, never accepted.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log_support.h"
#include "stress_args.h"
#include <seqring/sr_log.h>

#if defined(__SANITIZE_THREAD__)
enum { THREADS = 3, EACH = 20000, ROUNDS = 4 };
#else
enum { THREADS = 4, EACH = 50000, ROUNDS = 8 };
#endif

typedef struct worker {
	sr_category *cat;
	int t;
} worker;

static void *
work(void *arg)
{
	worker *w = arg;
	for (int i = 0; i < EACH; i++)
		SR_INFO(w->cat, "S#%d. a message that races the shutdown", w->t * EACH + i);
	return NULL;
}

static bool
round_once(sr_log_mode mode, sr_log_producer producer, bool immediate, int round)
{
	char path[64];
	snprintf(path, sizeof path, "/tmp/seqring_shutdown_XXXXXX");
	close(mkstemp(path));
	sr_sink_config sink = sr_sink_file(path);
	sr_log_config c;
	tl_config_sink(&c, &sink);
	c.ignore_environment = true;
	c.mode = mode;
	c.producer = producer;
	c.immediate_flush = immediate;
	c.ring_slots = 1024;
	c.thread_ring_slots = 1024;
	sr_log *log = sr_log_open(&c, NULL);
	if (log == NULL)
		return false;
	worker w[THREADS];
	pthread_t th[THREADS];
	for (int t = 0; t < THREADS; t++) {
		w[t] = (worker){ sr_log_category(log, "race"), t };
		pthread_create(&th[t], NULL, work, &w[t]);
	}
	tl_sleep_ms(2 + round % 5);
	sr_log_shutdown(log);
	for (int t = 0; t < THREADS; t++)
		pthread_join(th[t], NULL);
	sr_log_counters st;
	sr_log_stats(log, &st);
	tl_tally tally = tl_tally_lines(path, "S", THREADS * EACH);
	bool ok = (uint64_t)tally.lines == st.written && st.written == st.accepted && tally.doubled == 0 &&
	    tally.bad == 0 && st.sink_errors == 0 && st.accepted + st.dropped <= (uint64_t)THREADS * EACH;
	printf("  %s%s%s round %d: accepted %llu, written %llu, lines %d, dropped %llu, sink errors %llu%s\n",
	    sr_log_mode_name(mode), producer == SR_LOG_PRODUCER_PER_THREAD ? " per_thread" : "",
	    mode == SR_LOG_MODE_SYNC && !immediate ? " buffered" : "", round,
	    (unsigned long long)st.accepted, (unsigned long long)st.written, tally.lines,
	    (unsigned long long)st.dropped, (unsigned long long)st.sink_errors, ok ? "" : "  FAILED");
	sr_log_close(&log);
	unlink(path);
	return ok;
}

int
main(int argc, char **argv)
{
	sa_parse(argc, argv, NULL, 0, NULL); /* no options but --help */
	tl_clear_env();
	static const struct {
		sr_log_mode mode;
		sr_log_producer producer;
		bool immediate;
	} runs[] = {
		{ SR_LOG_MODE_QUEUE, SR_LOG_PRODUCER_SHARED, true },
		{ SR_LOG_MODE_SYNC, SR_LOG_PRODUCER_SHARED, true },
		{ SR_LOG_MODE_SYNC, SR_LOG_PRODUCER_SHARED, false },
		{ SR_LOG_MODE_RING, SR_LOG_PRODUCER_SHARED, true },
		{ SR_LOG_MODE_RING, SR_LOG_PRODUCER_PER_THREAD, true },
	};
	int failures = 0;
	for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++)
		for (int round = 0; round < ROUNDS; round++)
			failures += !round_once(runs[r].mode, runs[r].producer, runs[r].immediate, round);
	printf("stress_log_shutdown: %s (%d failed rounds)\n", failures == 0 ? "ok" : "FAILED", failures);
	return failures == 0 ? 0 : 1;
}
