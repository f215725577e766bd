/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_log_sink_behind.c: a file sink's write-behind.  When the consumer is
 * behind, its batches go to the sink's writer thread while it lays out the
 * next; the file holds every line, whole and in order, a flush returns with
 * all of them in it, rotation and reopen keep their promises, a sink that
 * asks for none has none, the crash handler writes what the writer was
 * handed before the consumer's own buffer, and a forked child writes
 * behind too.
 *
 * The consumer is made to fall behind for sure: it is held in a second,
 * paused sink (a capture taking WARN and above, in another layout, so that
 * the file sink stays the only taker of its lines) while a thread fills its
 * ring, then let go on a ring of many batches.
 */
#include "test_log_support.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "sr_log_sink_behind_internal.h"
#include "sr_log_sink_internal.h"

enum { LINES = 20000 };

typedef struct behind_setup {
	tl_capture hold;              /* the paused sink that holds the consumer */
	sr_sink_config sinks[2];
	sr_log_config config;
	char path[64];
} behind_setup;

/* The config of a file sink (sinks[0], `file` as given) and the holding capture (sinks[1]). */
static void
behind_config(behind_setup *b, sr_sink_config file)
{
	tl_capture_init(&b->hold);
	b->sinks[0] = file;
	b->sinks[1] = tl_capture_sink(&b->hold);
	b->sinks[1].level = SR_LOG_WARN;
	b->sinks[1].layout = SR_LOG_LAYOUT_MESSAGE;
	sr_log_config_default(&b->config);
	b->config.ignore_environment = true;
	b->config.sinks = b->sinks;
	b->config.sink_count = 2;
	b->config.full_policy = SR_LOG_FULL_BLOCK;
	/* A ring that holds the whole burst: 2 slots of 128 B a line, rounded up to a power of two. */
	b->config.thread_ring_slots = 65536;
}

/* A logger on behind_config's sinks. */
static sr_log *
open_behind(behind_setup *b, sr_sink_config file)
{
	behind_config(b, file);
	return tl_open(&b->config);
}

/* Holds the consumer in the capture, logs `count` numbered lines from seq `from`, lets it go. */
static void
burst(behind_setup *b, sr_log *log, int from, int count)
{
	sr_category *cat = sr_log_category(log, "behind");
	tl_capture_pause(&b->hold);
	SR_WARN(cat, "hold");
	tl_capture_wait_stuck(&b->hold);
	for (int i = from; i < from + count; i++)
		SR_INFO(cat, "seq %06d %s", i, "a line of an ordinary length, about a hundred bytes with its head");
	tl_capture_resume(&b->hold);
}

/* The first line numbered_lines_in_order found out of place or cut (for the failure's message). */
static char first_bad[256];

/*
 * The numbered lines of the files at paths[0..n) (read in that order):
 * how many, and whether each is whole and follows the one before.
 */
static int
numbered_lines_in_order(const char *const *paths, int n, int first, bool *in_order)
{
	int count = 0, next = first;
	*in_order = true;
	first_bad[0] = '\0';
	char line[1024];
	for (int k = 0; k < n; k++) {
		FILE *f = fopen(paths[k], "r");
		cr_assert_not_null(f, "%s: %s", paths[k], strerror(errno));
		while (fgets(line, sizeof line, f) != NULL) {
			const char *p = strstr(line, "seq ");
			if (p == NULL)
				continue;
			int seq = atoi(p + 4);
			size_t len = strlen(line);
			bool whole = len > 0 && line[len - 1] == '\n' && strstr(line, "with its head (") != NULL;
			if ((seq != next || !whole) && *in_order) {
				*in_order = false;
				snprintf(first_bad, sizeof first_bad, "expected seq %d, found: %.180s", next, line);
			}
			next = seq + 1;
			count++;
		}
		fclose(f);
	}
	return count;
}

static int
numbered_lines(const char *path, int first, bool *in_order)
{
	const char *paths[] = { path };
	return numbered_lines_in_order(paths, 1, first, in_order);
}

static void
close_behind(behind_setup *b, sr_log **log)
{
	sr_log_close(log);
	tl_capture_free(&b->hold);
}

/*
 * A burst of many batches: the consumer hands them to the file sink's
 * writer, and once sr_log_flush returns every line is in the file, whole
 * and in order, counted once.
 */
Test(log_sink_behind, a_consumer_behind_hands_its_batches_to_the_writer, .timeout = 60)
{
	behind_setup b;
	tl_temp_path(b.path, sizeof b.path, "behind");
	sr_log *log = open_behind(&b, sr_sink_file(b.path));
	burst(&b, log, 0, LINES);
	cr_assert_eq(sr_log_flush(log), SR_OK);
	bool in_order;
	cr_expect_eq(numbered_lines(b.path, 0, &in_order), LINES, "every line is in the file after the flush");
	cr_expect(in_order, "the lines are whole and in order: %s", first_bad);
	sr_log_counters st = tl_stats(log);
	cr_expect_eq(st.sinks[0].messages, (uint64_t)LINES + 1);
	cr_expect_eq(st.sinks[0].lost_messages, 0);
	cr_expect_eq(st.sinks[0].errors, 0);
	struct stat fst;
	cr_assert_eq(stat(b.path, &fst), 0);
	cr_expect_eq((uint64_t)fst.st_size, st.sinks[0].bytes, "the bytes counted are the file's");
	const sr_log_sink_behind *w = log->sinks->s[0].behind;
	if (tl_two_cpus()) {
		cr_assert_not_null(w, "a file sink on two CPUs writes behind");
		/* LINES lines make LINES / 4,096 batches cut short by their bound, at least. */
		int64_t handed = sr_atomic_load_relaxed_i64(&w->handed);
		cr_expect_geq(handed, LINES / 4096, "%" PRId64 " batches handed", handed);
		cr_expect(sr_log__sink_behind_idle(w), "nothing handed stays unwritten after a flush");
	} else {
		cr_expect_null(w, "one CPU: nothing to overlap, no writer");
	}
	cr_expect_null(log->sinks->s[1].behind, "a callback sink has no writer");
	close_behind(&b, &log);
	cr_expect_eq(numbered_lines(b.path, 0, &in_order), LINES);
	unlink(b.path);
}

/* A file sink whose configuration says write_behind = false has no writer; its file is the same. */
Test(log_sink_behind, a_sink_that_asks_for_none_writes_its_own_batches, .timeout = 60)
{
	behind_setup b;
	tl_temp_path(b.path, sizeof b.path, "nobehind");
	sr_sink_config file = sr_sink_file(b.path);
	cr_expect(file.write_behind, "sr_sink_file writes behind by default");
	file.write_behind = false;
	sr_log *log = open_behind(&b, file);
	cr_expect_null(log->sinks->s[0].behind);
	char *described = tl_describe(log);
	cr_expect_not_null(strstr(described, "behind=0"), "%s", described);
	free(described);
	burst(&b, log, 0, LINES);
	close_behind(&b, &log);
	bool in_order;
	cr_expect_eq(numbered_lines(b.path, 0, &in_order), LINES);
	cr_expect(in_order, "%s", first_bad);
	unlink(b.path);
}

/* SEQRING_LOG_SINK's behind=0 turns it off; a bad value is refused with its name. */
Test(log_sink_behind, the_environment_turns_it_off)
{
	char path[64];
	tl_temp_path(path, sizeof path, "envbehind");
	char spec[128];
	snprintf(spec, sizeof spec, "file:%s,behind=0", path);
	tl_clear_env();
	setenv("SEQRING_LOG_SINK", spec, 1);
	sr_log_config c;
	sr_log_config_default(&c);
	sr_log *log = tl_open(&c);
	cr_expect_eq(log->sinks->n, 1);
	cr_expect_not(log->sinks->s[0].cfg.write_behind);
	cr_expect_null(log->sinks->s[0].behind);
	sr_log_close(&log);
	snprintf(spec, sizeof spec, "file:%s,behind=maybe", path);
	setenv("SEQRING_LOG_SINK", spec, 1);
	sr_error e = tl_open_refused(&c, "behind=maybe");
	cr_expect_not_null(strstr(e.message, "behind 'maybe' is invalid"), "%s", e.message);
	unsetenv("SEQRING_LOG_SINK");
	unlink(path);
}

/*
 * A rotating sink writes behind too: its writer rotates between two lines
 * as the consumer did, so the files hold every line once, whole, in order.
 */
Test(log_sink_behind, rotation_between_handed_batches_splits_no_line, .timeout = 60)
{
	enum { MAX = 256 * 1024, KEEP = 40 };
	behind_setup b;
	tl_temp_path(b.path, sizeof b.path, "behindrot");
	sr_log *log = open_behind(&b, sr_sink_rotating(b.path, MAX, KEEP));
	burst(&b, log, 0, LINES);
	cr_assert_eq(sr_log_flush(log), SR_OK);
	uint64_t rotations = tl_stats(log).sinks[0].rotations;
	if (tl_two_cpus())
		cr_expect_gt(sr_atomic_load_relaxed_i64(&log->sinks->s[0].behind->handed), 0);
	close_behind(&b, &log);
	cr_assert_gt(rotations, 4, "%" PRIu64 " rotations", rotations);
	cr_assert_lt(rotations, KEEP);
	/* Oldest first: path.N ... path.1, then path. */
	char names[KEEP + 1][80];
	const char *paths[KEEP + 1];
	int n = 0;
	for (uint64_t k = rotations; k >= 1; k--) {
		snprintf(names[n], sizeof names[n], "%s.%" PRIu64, b.path, k);
		paths[n] = names[n];
		n++;
	}
	paths[n++] = b.path;
	bool in_order;
	cr_expect_eq(numbered_lines_in_order(paths, n, 0, &in_order), LINES);
	cr_expect(in_order, "every line whole, once, in order across the rotated files: %s", first_bad);
	for (int k = 0; k < n; k++) {
		struct stat st;
		cr_expect(stat(paths[k], &st) == 0 && (uint64_t)st.st_size <= MAX, "%s: over the limit", paths[k]);
		unlink(paths[k]);
	}
}

/*
 * A reopen asked while the consumer drains a burst (no flush before it):
 * the lines before the reopen are in the old file, the rest in the new
 * one, every line once and in order across the two.
 */
Test(log_sink_behind, a_reopen_mid_drain_splits_the_lines_between_the_files_in_order, .timeout = 60)
{
	behind_setup b;
	tl_temp_path(b.path, sizeof b.path, "behindreopen");
	sr_log *log = open_behind(&b, sr_sink_file(b.path));
	char moved[80];
	snprintf(moved, sizeof moved, "%s.old", b.path);
	burst(&b, log, 0, LINES);
	cr_assert_eq(rename(b.path, moved), 0);
	cr_assert_eq(sr_log_reopen(log), SR_OK);
	burst(&b, log, LINES, LINES);
	cr_assert_eq(sr_log_flush(log), SR_OK);
	cr_expect_eq(tl_stats(log).sinks[0].reopens, 1);
	close_behind(&b, &log);
	const char *paths[] = { moved, b.path };
	bool in_order;
	cr_expect_eq(numbered_lines_in_order(paths, 2, 0, &in_order), 2 * LINES);
	cr_expect(in_order, "%s", first_bad);
	unlink(moved);
	unlink(b.path);
}

/*
 * The crash handler: a buffer handed to the writer but not yet claimed is
 * claimed and written raw, before the consumer's own buffer.  (The writer
 * is stopped and made to look alive, so that the handed buffer waits.)
 */
Test(log_sink_behind, the_crash_handler_writes_the_handed_buffer_first)
{
	if (!tl_two_cpus())
		cr_skip_test("one CPU: no writer");
	behind_setup b;
	tl_temp_path(b.path, sizeof b.path, "behindcrash");
	sr_log *log = open_behind(&b, sr_sink_file(b.path));
	sr_log_sink *s = &log->sinks->s[0];
	sr_log_sink_behind *w = s->behind;
	cr_assert_not_null(w);
	sr_log__sink_behind_stop(w);
	w->running = true;  /* no thread: the handed buffer stays unclaimed */
	static const char handed[] = "handed line 1\nhanded line 2\n", own[] = "consumer's line\n";
	memcpy(w->buf, handed, sizeof handed - 1);
	w->len = sizeof handed - 1;
	sr_atomic_store_release_i32(&w->state, SR_LOG_BEHIND_HANDED);
	memcpy(s->buf, own, sizeof own - 1);
	s->len = sizeof own - 1;
	sr_log__sinks_write_buffers_raw(log);
	cr_expect(sr_log__sink_behind_idle(w), "released once written");
	cr_expect_eq(s->len, 0);
	w->running = false;
	FILE *f = fopen(b.path, "r");
	cr_assert_not_null(f);
	char text[256] = { 0 };
	size_t n = fread(text, 1, sizeof text - 1, f);
	fclose(f);
	cr_expect_str_eq(text, "handed line 1\nhanded line 2\nconsumer's line\n", "%zu bytes: %s", n, text);
	close_behind(&b, &log);
	unlink(b.path);
}

/* A forked child's logger starts its own writer and writes its lines; the parent's are not repeated. */
Test(log_sink_behind, a_forked_child_writes_behind_too, .timeout = 60)
{
	behind_setup b;
	tl_temp_path(b.path, sizeof b.path, "behindfork");
	sr_log *log = open_behind(&b, sr_sink_file(b.path));
	burst(&b, log, 0, LINES);
	cr_assert_eq(sr_log_flush(log), SR_OK);
	fflush(NULL);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		/* The child: its writer runs again (two CPUs) on a buffer of its own, and its lines follow the parent's. */
		const sr_log_sink *s = &log->sinks->s[0];
		bool runs = s->behind == NULL || (s->behind->running && s->behind->buf != s->buf);
		burst(&b, log, LINES, LINES);
		int rc = sr_log_flush(log) == SR_OK && runs ? 0 : 1;
		sr_log_close(&log);
		_exit(rc);
	}
	int status = 0;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child's writer ran and its flush succeeded");
	close_behind(&b, &log);
	bool in_order;
	cr_expect_eq(numbered_lines(b.path, 0, &in_order), 2 * LINES);
	cr_expect(in_order, "%s", first_bad);
	unlink(b.path);
}

/* A volatile pointer: the compiler cannot see (or warn about) where it points. */
static int *volatile wild_pointer = (int *)(uintptr_t)16;

/*
 * A crash while the consumer drains a burst, batch after batch through the
 * writer: the crash handler lets the consumer finish and waits for the
 * writer, so the file holds every line once, in order, before the process
 * dies of its signal.  Five whole batches: the last one too is handed to
 * the writer (a batch of the bound's size ends behind).
 */
enum { CRASH_LINES = 5 * 4096 };

Test(log_sink_behind, a_crash_while_batches_are_handed_loses_no_line, .timeout = 60)
{
	behind_setup b;
	tl_temp_path(b.path, sizeof b.path, "behindsegv");
	fflush(NULL);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		alarm(30);
		int devnull = open("/dev/null", O_WRONLY);
		dup2(devnull, 2);  /* ASan's report of the fault */
		behind_config(&b, sr_sink_file(b.path));
		b.config.crash_handler = true;
		sr_error err;
		sr_log *log = sr_log_open(&b.config, &err);
		if (log == NULL)
			_exit(99);
		burst(&b, log, 0, CRASH_LINES);
		*wild_pointer = 1;  /* the consumer is still laying out and handing batches */
		_exit(98);
	}
	int status = 0;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
#if defined(__SANITIZE_ADDRESS__)
	/* ASan's own SEGV handler (which the crash handler chains to) reports and exits 1. */
	bool died = (WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV) || (WIFEXITED(status) && WEXITSTATUS(status) == 1);
#else
	bool died = WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV;
#endif
	cr_expect(died, "status %#x: not a death by SIGSEGV", status);
	bool in_order;
	cr_expect_eq(numbered_lines(b.path, 0, &in_order), CRASH_LINES, "every line written before the process died");
	cr_expect(in_order, "%s", first_bad);
	unlink(b.path);
}

/* The numbered lines of a file that end with their newline. */
static int
whole_numbered_lines(const char *path)
{
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f);
	char line[1024];
	int count = 0;
	while (fgets(line, sizeof line, f) != NULL) {
		size_t len = strlen(line);
		count += strstr(line, "seq ") != NULL && len > 0 && line[len - 1] == '\n';
	}
	fclose(f);
	return count;
}

/*
 * Writes that fail in the writer (the file may not grow past RLIMIT_FSIZE:
 * EFBIG) are counted as the consumer's own would be: the lines missing
 * from the file are the lines counted lost, and written plus failed are
 * the lines accepted.  In a child, which may lower its own limit.
 */
Test(log_sink_behind, lines_the_writer_fails_to_write_are_counted_lost, .timeout = 60)
{
	if (!tl_two_cpus())
		cr_skip_test("one CPU: no writer");
	enum { LIMIT = 1 << 20 };
	behind_setup b;
	tl_temp_path(b.path, sizeof b.path, "behindefbig");
	fflush(NULL);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		alarm(30);
		signal(SIGXFSZ, SIG_IGN);
		struct rlimit lim = { LIMIT, LIMIT };
		if (setrlimit(RLIMIT_FSIZE, &lim) != 0)
			_exit(90);
		int devnull = open("/dev/null", O_WRONLY);
		dup2(devnull, 2);  /* the sink's one report of its error */
		sr_log *log = open_behind(&b, sr_sink_file(b.path));
		burst(&b, log, 0, LINES);
		if (sr_log_flush(log) != SR_OK)
			_exit(91);
		sr_log_counters st = tl_stats(log);
		bool handed = log->sinks->s[0].behind != NULL && sr_atomic_load_relaxed_i64(&log->sinks->s[0].behind->handed) > 0;
		sr_log_close(&log);
		/* Whole lines only: the write the limit stopped left a line without its end, which counts lost. */
		int in_file = whole_numbered_lines(b.path);
		/* The hold line is accepted and written too; the burst's lost lines are all of the failed ones. */
		uint64_t burst_written = st.written - 1;
		if (!handed)
			_exit(92);
		if (st.write_failed == 0 || in_file >= LINES)
			_exit(93);  /* the limit failed no write */
		if (burst_written != (uint64_t)in_file || st.written + st.write_failed != st.accepted)
			_exit(94);
		_exit(0);
	}
	int status = 0;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "status %#x (92: no batch handed, 93: no write failed, 94: the counts do not match the file)", status);
	unlink(b.path);
}
