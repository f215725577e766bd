/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_log_rotate.c: the rotating file sink.
 *
 * Writes numbered lines across many rotations and reads every file back:
 * each line exactly once, none split, in order (per thread), every file
 * within the size limit, app.log.N older than app.log.N-1, only keep_files
 * old files left, the rotation count in the statistics.  Also: several
 * threads, the sync and queue modes, a line longer than the limit, an
 * existing file already over the limit, keep_files 0, daily rotation (an
 * existing file from yesterday), and the configuration errors.
 */
#include "test_log_support.h"

#include <dirent.h>
#include <errno.h>
#include <utime.h>

#define MAX_FILES 1001

typedef struct files {
	char base[64];
	char *text[MAX_FILES + 1];    /* [0] app.log, [k] app.log.k */
	size_t len[MAX_FILES + 1];
	int highest;                  /* the highest k present */
} files;

static void
read_files(files *f)
{
	f->highest = 0;
	for (int k = 0; k <= MAX_FILES; k++) {
		char path[96];
		f->text[k] = tl_read_file(tl_rotated_path(path, sizeof path, f->base, k), &f->len[k]);
		if (f->text[k] != NULL && k > f->highest)
			f->highest = k;
	}
}

static void
remove_files(files *f)
{
	for (int k = 0; k <= MAX_FILES; k++) {
		free(f->text[k]);
		f->text[k] = NULL;
		char path[96];
		unlink(tl_rotated_path(path, sizeof path, f->base, k));
	}
}

/* A fresh base path for f (tag names it), no file there yet. */
static void
new_files(files *f, const char *tag)
{
	memset(f, 0, sizeof *f);
	tl_temp_path(f->base, sizeof f->base, tag);
}

static sr_log *
open_rotating(const char *path, uint64_t max, int keep, sr_log_mode mode, int64_t slots)
{
	sr_sink_config s = sr_sink_rotating(path, max, keep);
	s.buffer_bytes = 16384;   /* buffers bigger than the files: a flush crosses rotations */
	sr_log_config c;
	tl_configure(&c, &s, (tl_settings){ .ignore_environment = true, .mode = mode,
	    .ring_slots = slots, .layout = SR_LOG_LAYOUT_MESSAGE,
	    .wait_strategy = "timeout:timeout=5ms", .max_message_bytes = 16384 });
	return tl_open(&c);
}

/*
 * Checks that the files, oldest (highest k) first, hold lines "t<thread> <n> <padding>"
 * with n running 0.. per thread without gap or repeat, starting at first[t];
 * returns the total lines.  Every file ends with a newline and is within max
 * (unless it holds a single line).
 */
static long
check_lines_seen(files *f, int threads, const long *first, long *next, uint64_t max, unsigned char **seen)
{
	for (int t = 0; t < threads; t++)
		next[t] = first[t];
	long total = 0;
	for (int k = f->highest; k >= 0; k--) {
		cr_assert_not_null(f->text[k], "%s.%d is missing (highest %d)", f->base, k, f->highest);
		if (f->len[k] == 0)
			continue;
		cr_assert_eq(f->text[k][f->len[k] - 1], '\n', "%s.%d ends inside a line", f->base, k);
		long in_file = 0;
		for (char *line = f->text[k]; *line != '\0';) {
			char *end = strchr(line, '\n');
			cr_assert_not_null(end);
			int t = -1;
			long n = -1;
			cr_assert_eq(sscanf(line, "t%d %ld", &t, &n), 2, "bad line in %s.%d: %.40s", f->base, k, line);
			cr_assert(t >= 0 && t < threads);
			if (seen != NULL) {
				/* Unordered (policy sync writes before older ring lines): once each. */
				cr_assert(n >= 0 && n < 4000);
				cr_assert_eq(seen[t][n], 0, "thread %d line %ld twice", t, n);
				seen[t][n] = 1;
				if (n + 1 > next[t])
					next[t] = n + 1;
			} else {
				cr_assert_eq(n, next[t], "%s.%d: thread %d line %ld where %ld was due", f->base, k, t, n,
				    next[t]);
				next[t]++;
			}
			total++;
			in_file++;
			line = end + 1;
		}
		if (in_file > 1)
			cr_assert_leq(f->len[k], max, "%s.%d has %zu bytes", f->base, k, f->len[k]);
	}
	return total;
}

static long
check_lines(files *f, int threads, const long *first, long *next, uint64_t max)
{
	return check_lines_seen(f, threads, first, next, max, NULL);
}

/* Up to 39 characters of it pad line n to n % 40 of them: lines of every length up to the rotation. */
static const char padding[] = "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx";

static void
write_lines(sr_log *log, int t, long from, long to)
{
	sr_category *cat = sr_log_root(log);
	for (long n = from; n < to; n++)
		SR_INFO(cat, "t%d %ld %.*s", t, n, (int)(n % 40), padding);
}

Test(log_rotate, every_line_exactly_once_across_many_rotations, .timeout = 30)
{
	files f;
	new_files(&f, "rot");
	sr_log *log = open_rotating(f.base, 4096, 1000, SR_LOG_MODE_RING, 1024);
	write_lines(log, 0, 0, 20000);
	sr_log_counters st = tl_flush_stats_close(&log);
	read_files(&f);
	cr_assert_gt(f.highest, 50, "only %d rotations", f.highest);
	cr_expect_eq(st.sinks[0].rotations, (uint64_t)f.highest);
	cr_expect_eq(st.sinks[0].lost_bytes, 0);
	long first = 0, next;
	cr_expect_eq(check_lines(&f, 1, &first, &next, 4096), 20000);
	cr_expect_eq(next, 20000);
	remove_files(&f);
}

Test(log_rotate, only_keep_files_are_kept_and_they_are_the_newest, .timeout = 30)
{
	files f;
	new_files(&f, "rotk");
	sr_log *log = open_rotating(f.base, 4096, 3, SR_LOG_MODE_RING, 1024);
	write_lines(log, 0, 0, 5000);
	sr_log_close(&log);
	read_files(&f);
	cr_expect_eq(f.highest, 3);
	/* The kept files are the last lines, contiguous, ending with the last one. */
	char *oldest = f.text[3];
	cr_assert_not_null(oldest);
	long first = -1;
	cr_assert_eq(sscanf(oldest, "t0 %ld", &first), 1);
	long next;
	long total = check_lines(&f, 1, &first, &next, 4096);
	cr_expect_eq(next, 5000);
	cr_expect_eq(total, 5000 - first);
	remove_files(&f);
}

typedef struct writer {
	sr_log *log;
	int t;
	long count;
} writer;

static void *
writer_main(void *arg)
{
	writer *w = arg;
	write_lines(w->log, w->t, 0, w->count);
	return NULL;
}

static void
threads_mode(sr_log_mode mode, sr_log_full_policy policy)
{
	files f;
	new_files(&f, "rott");
	sr_sink_config s = sr_sink_rotating(f.base, 8192, 1000);
	sr_log_config c;
	/* Small rings (each thread's, or the queue): policy sync writes from the callers. */
	tl_configure(&c, &s, (tl_settings){ .ignore_environment = true, .mode = mode, .full_policy = policy,
	    .ring_slots = 64, .thread_ring_slots = 64, .layout = SR_LOG_LAYOUT_MESSAGE,
	    .wait_strategy = "timeout:timeout=5ms" });
	sr_log *log = tl_open(&c);
	enum { T = 4, EACH = 4000 };
	pthread_t th[T];
	writer w[T];
	for (int t = 0; t < T; t++) {
		w[t] = (writer){ log, t, EACH };
		pthread_create(&th[t], NULL, writer_main, &w[t]);
	}
	for (int t = 0; t < T; t++)
		pthread_join(th[t], NULL);
	sr_log_counters st = tl_flush_stats_close(&log);
	cr_expect_eq(st.dropped, 0);
	if (mode == SR_LOG_MODE_RING && policy == SR_LOG_FULL_SYNC)
		cr_expect_gt(st.written_by_caller, 0, "callers found their rings full and wrote");
	read_files(&f);
	long first[T] = { 0 }, next[T];
	static unsigned char seen_data[T][EACH];
	unsigned char *seen[T];
	memset(seen_data, 0, sizeof seen_data);
	for (int t = 0; t < T; t++)
		seen[t] = seen_data[t];
	/*
	 * Policy sync: a caller that finds the ring full writes its line at
	 * once, possibly before its own older lines still in the ring.
	 */
	bool ordered = policy != SR_LOG_FULL_SYNC;
	cr_expect_eq(check_lines_seen(&f, T, first, next, 8192, ordered ? NULL : seen), (long)T * EACH);
	for (int t = 0; t < T; t++)
		cr_expect_eq(next[t], EACH, "thread %d", t);
	cr_expect_gt(f.highest, 10);
	remove_files(&f);
}

Test(log_rotate, threads_ring, .timeout = 30) { threads_mode(SR_LOG_MODE_RING, SR_LOG_FULL_BLOCK); }
Test(log_rotate, threads_ring_policy_sync, .timeout = 30) { threads_mode(SR_LOG_MODE_RING, SR_LOG_FULL_SYNC); }
Test(log_rotate, threads_queue, .timeout = 30) { threads_mode(SR_LOG_MODE_QUEUE, SR_LOG_FULL_BLOCK); }
Test(log_rotate, threads_sync, .timeout = 30) { threads_mode(SR_LOG_MODE_SYNC, SR_LOG_FULL_BLOCK); }

Test(log_rotate, long_lines_existing_files_and_keep_zero)
{
	files f;
	new_files(&f, "rotl");
	/* An existing file over the limit is rotated before the first write. */
	FILE *old = fopen(f.base, "w");
	cr_assert_not_null(old);
	for (int i = 0; i < 600; i++)
		fprintf(old, "old line %d\n", i);
	fclose(old);
	sr_log *log = open_rotating(f.base, 4096, 3, SR_LOG_MODE_RING, 1024);
	static char big[10000];
	memset(big, 'B', sizeof big - 1);
	SR_INFO(sr_log_root(log), "first");
	SR_INFO(sr_log_root(log), "%s", big);   /* longer than a file: alone in its own */
	SR_INFO(sr_log_root(log), "last");
	sr_log_close(&log);
	read_files(&f);
	cr_expect_eq(f.highest, 3);
	cr_assert_not_null(f.text[3]);
	cr_expect(strncmp(f.text[3], "old line 0\n", 11) == 0 && f.len[3] > 4096, "the old file was moved, whole");
	cr_expect_str_eq(f.text[2], "first\n");
	cr_assert_not_null(f.text[1]);
	cr_expect_eq(f.len[1], sizeof big, "the big line alone: %zu", f.len[1]);
	cr_expect_eq(strspn(f.text[1], "B"), sizeof big - 1);
	cr_expect_str_eq(f.text[0], "last\n");
	remove_files(&f);
	/* keep 0: the old file is deleted. */
	new_files(&f, "rot0");
	log = open_rotating(f.base, 4096, 0, SR_LOG_MODE_RING, 1024);
	write_lines(log, 0, 0, 1000);
	sr_log_close(&log);
	read_files(&f);
	cr_expect_eq(f.highest, 0);
	long first = -1, next;
	cr_assert_eq(sscanf(f.text[0], "t0 %ld", &first), 1);
	cr_expect_gt(first, 0);
	check_lines(&f, 1, &first, &next, 4096);
	cr_expect_eq(next, 1000);
	remove_files(&f);
}

Test(log_rotate, daily_rotation_of_a_file_from_yesterday)
{
	files f;
	new_files(&f, "rotd");
	FILE *old = fopen(f.base, "w");
	cr_assert_not_null(old);
	fputs("yesterday\n", old);
	fclose(old);
	struct utimbuf times = { time(NULL) - 86400, time(NULL) - 86400 };
	cr_assert_eq(utime(f.base, &times), 0);
	sr_sink_config s = sr_sink_file(f.base);
	s.rotate_daily = true;
	s.keep_files = 7;
	sr_log_config c;
	tl_configure(&c, &s, (tl_settings){ .ignore_environment = true, .ring_slots = 64,
	    .layout = SR_LOG_LAYOUT_MESSAGE });
	sr_log *log = tl_open(&c);
	SR_INFO(sr_log_root(log), "today");
	SR_INFO(sr_log_root(log), "today again");
	sr_log_close(&log);
	read_files(&f);
	cr_expect_eq(f.highest, 1);
	cr_expect_str_eq(f.text[1], "yesterday\n");
	cr_expect_str_eq(f.text[0], "today\ntoday again\n");
	remove_files(&f);
}

Test(log_rotate, bad_rotation_settings)
{
	sr_sink_config s = sr_sink_rotating("/tmp/seqring_never.log", 100, 3);
	sr_log_config c;
	tl_config_sink(&c, &s);
	c.ignore_environment = true;
	c.ring_slots = 64;
	sr_error err;
	cr_expect_null(sr_log_open(&c, &err));
	cr_expect_str_eq(err.message, "config.sinks[0].max_file_bytes 100 is out of range: expected 0 (no "
	    "rotation) or 4096 to 1125899906842624");
	s = sr_sink_rotating("/tmp/seqring_never.log", 1 << 20, 1001);
	cr_expect_null(sr_log_open(&c, &err));
	cr_expect_str_eq(err.message, "config.sinks[0].keep_files 1001 is out of range: expected 0 to 1000");
	cr_expect_eq(access("/tmp/seqring_never.log", F_OK), -1);
}
