/* SPDX-License-Identifier: Apache-2.0 */
/*
 * stress_log_reopen.c: file sinks reopened for Debian's logrotate while
 * threads log.
 *
 *   1. "create": logrotate renames app.log and runs its postrotate
 *      `kill -HUP <this process>`; the logger (reopen_signal SIGHUP) reopens
 *      its file sink on the consumer thread.  Rotated several times under
 *      load, every line is in exactly one of app.log, app.log.1, ...; none is
 *      split, and the sink counts the reopens.
 *   2. sr_log_reopen after the file was deleted: the lines after it are in
 *      the new file.
 *   3. "copytruncate": logrotate copies app.log and truncates it; the logger
 *      does nothing.  No line is written twice or split; what logrotate's
 *      own window between the copy and the truncation loses (its manual
 *      says so) is printed, and must be one run of lines at most per
 *      rotation.
 * Without logrotate the program says so and exits 77 (CTest: skipped).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log_support.h"
#include "stress_args.h"
#include <seqring/sr_log.h>
#include <seqring/sr_time.h>

#define LOGROTATE "/usr/sbin/logrotate"
#if defined(__SANITIZE_THREAD__)
enum { THREADS = 2, EACH = 4000, ROTATIONS = 3 };
#else
enum { THREADS = 3, EACH = 20000, ROTATIONS = 5 };
#endif

static const char *dir;

typedef struct worker {
	sr_category *cat;
	int t;
	volatile int *stop_at;    /* logging stops at this count (EACH unless changed) */
} worker;

static void *
work(void *arg)
{
	worker *w = arg;
	for (int i = 0; i < EACH; i++) {
		SR_INFO(w->cat, "t=%d i=%d end", w->t, i);
		if (i % 64 == 63)
			usleep(200);
	}
	return NULL;
}

static void
write_config(const char *mode)
{
	char path[128];
	snprintf(path, sizeof path, "%s/logrotate.conf", dir);
	FILE *f = fopen(path, "w");
	if (f == NULL)
		tl_fail("cannot write %s: %s", path, strerror(errno));
	fprintf(f, "%s/app.log {\n  rotate 100\n  %s\n  missingok\n  nocompress\n", dir, mode);
	if (strcmp(mode, "create") == 0)
		fprintf(f, "  postrotate\n    kill -HUP %d\n  endscript\n", (int)getpid());
	fprintf(f, "}\n");
	fclose(f);
}

static void
rotate(void)
{
	char cmd[320];
	snprintf(cmd, sizeof cmd, "%s -f -s %s/state %s/logrotate.conf", LOGROTATE, dir, dir);
	if (system(cmd) != 0)
		tl_fail("'%s' failed", cmd);
}

/* Counts each (t, i) over app.log and app.log.N; fails on a split or foreign line. */
static void
count_lines(unsigned char *seen, int *files)
{
	*files = 0;
	char base[128];
	snprintf(base, sizeof base, "%s/app.log", dir);
	for (int k = 0; k <= 101; k++) {
		char path[160];
		FILE *f = fopen(tl_rotated_path(path, sizeof path, base, k), "r");
		if (f == NULL)
			continue;
		(*files)++;
		char line[512];
		while (fgets(line, sizeof line, f) != NULL) {
			const char *m = strstr(line, " - t=");
			int t, i;
			char end[8];
			if (m == NULL) {
				if (strstr(line, "seqring") != NULL)
					continue; /* the logger's own lines */
				tl_fail("%s: a line that is no message: %s", path, line);
			}
			if (sscanf(m, " - t=%d i=%d %7s", &t, &i, end) != 3 || strcmp(end, "end") != 0 ||
			    t < 0 || t >= THREADS || i < 0 || i >= EACH)
				tl_fail("%s: a split or foreign line: %s", path, line);
			if (seen[t * EACH + i] < 255)
				seen[t * EACH + i]++;
		}
		fclose(f);
	}
}

static sr_log *
open_logger(const char *path, int reopen_signal)
{
	sr_sink_config s = sr_sink_file(path);
	return tl_program_open(&s, 1, 8192, reopen_signal);
}

static void
run(const char *mode)
{
	char cmd[256], path[128];
	snprintf(cmd, sizeof cmd, "rm -f %s/app.log* %s/state", dir, dir);
	if (system(cmd) != 0)
		tl_fail("%s failed", cmd);
	snprintf(path, sizeof path, "%s/app.log", dir);
	write_config(mode);
	bool create = strcmp(mode, "create") == 0;
	sr_log *log = open_logger(path, create ? SIGHUP : 0);
	pthread_t th[THREADS];
	worker w[THREADS];
	for (int t = 0; t < THREADS; t++) {
		w[t] = (worker){ sr_log_category(log, "app"), t, NULL };
		pthread_create(&th[t], NULL, work, &w[t]);
	}
	for (int r = 0; r < ROTATIONS; r++) {
		usleep(100000);
		rotate();
		/*
		 * create: the signal only asks; the consumer reopens at its next
		 * batch end or housekeeping (within 100 ms when idle).  Wait for
		 * it, so that the next rotation's request is not folded into this
		 * one's (two requests before one reopen are one reopen); up to 10 s,
		 * which only a reopen that never comes takes.
		 */
		int64_t deadline = sr_monotonic_ns() + 10 * SR_NS_PER_S;
		while (create && sr_monotonic_ns() < deadline) {
			sr_log_counters now;
			sr_log_stats(log, &now);
			if (now.sinks[0].reopens >= (uint64_t)r + 1)
				break;
			usleep(1000);
		}
	}
	for (int t = 0; t < THREADS; t++)
		pthread_join(th[t], NULL);
	sr_log_counters st = tl_flush_stats_close(&log);
	unsigned char *seen = calloc((size_t)THREADS * EACH, 1);
	int files;
	count_lines(seen, &files);
	size_t missing = 0, twice = 0;
	int runs = 0;
	for (int t = 0; t < THREADS; t++) {
		bool in_run = false;
		for (int i = 0; i < EACH; i++) {
			unsigned char n = seen[t * EACH + i];
			twice += n > 1;
			missing += n == 0;
			if (n == 0 && !in_run)
				runs++;
			in_run = n == 0;
		}
	}
	free(seen);
	if (twice > 0)
		tl_fail("%s: %zu lines written twice", mode, twice);
	if (create) {
		if (missing > 0)
			tl_fail("create: %zu lines missing", missing);
		if (files != ROTATIONS + 1)
			tl_fail("create: %d files, expected %d", files, ROTATIONS + 1);
		if (st.sinks[0].reopens < ROTATIONS)
			tl_fail("create: the sink reopened %" PRIu64 " times for %d rotations", st.sinks[0].reopens, ROTATIONS);
		printf("create: %d lines in %d files, each exactly once; %" PRIu64 " reopens\n", THREADS * EACH,
		    files, st.sinks[0].reopens);
	} else {
		if (runs > ROTATIONS * THREADS)
			tl_fail("copytruncate: %d runs of missing lines for %d rotations", runs, ROTATIONS);
		printf("copytruncate: %d lines, none twice; %zu lost in logrotate's copy-to-truncate window "
		    "(%d run(s) over %d rotations)\n", THREADS * EACH, missing, runs, ROTATIONS);
	}
}

static void
deleted_file(void)
{
	char path[128];
	snprintf(path, sizeof path, "%s/deleted.log", dir);
	sr_log *log = open_logger(path, 0);
	sr_category *cat = sr_log_category(log, "app");
	SR_INFO(cat, "before");
	sr_log_flush(log);
	unlink(path);
	SR_INFO(cat, "lost with the deleted file");
	if (sr_log_reopen(log) != SR_OK)
		tl_fail("sr_log_reopen failed");
	SR_INFO(cat, "after");
	sr_log_close(&log);
	FILE *f = fopen(path, "r");
	if (f == NULL)
		tl_fail("deleted: sr_log_reopen made no new file");
	char line[256];
	int n = 0;
	while (fgets(line, sizeof line, f) != NULL) {
		n++;
		if (strstr(line, " - after") == NULL)
			tl_fail("deleted: the new file has '%s'", line);
	}
	fclose(f);
	if (n != 1)
		tl_fail("deleted: %d lines in the new file, expected 1", n);
	printf("deleted: the line after sr_log_reopen is in the new file\n");
}

int
main(int argc, char **argv)
{
	sa_parse(argc, argv, NULL, 0, NULL); /* no options but --help */
	if (access(LOGROTATE, X_OK) != 0) {
		printf("stress_log_reopen: %s is not installed (Debian package logrotate): skipped\n", LOGROTATE);
		return 77;
	}
	alarm(120);
	dir = tl_program_dir("stress_log_reopen");
	run("create");
	deleted_file();
	run("copytruncate");
	printf("stress_log_reopen: passed\n");
	return 0;
}
