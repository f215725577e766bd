/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_log_faults.c: sink faults that test_log.c does not cover: short writes
 * and EINTR (and an error in the middle of a buffer), in every mode.
 *
 * Two ways to make them:
 *   - real descriptors: a non-blocking pipe of one page whose reader reads in
 *     odd sizes (every write bigger than the pipe's free space comes back
 *     short), and a blocking one-page pipe with a slow reader, whose writer
 *     gets SIGALRM (handler installed without SA_RESTART) while it is blocked
 *     in write(2), which then returns EINTR or a short count;
 *   - injected: this program defines write(2) itself (the library is linked
 *     statically, so the sink's calls come here; every other descriptor goes
 *     straight to the system call), and for one chosen descriptor it follows
 *     a plan: EINTR, a short write of k bytes, or an error.
 * In each case: every line arrives intact and in order, the logger keeps
 * accepting, short writes and EINTR are not errors (none counted, nothing on
 * stderr), a real error is counted and reported once, nothing deadlocks, and
 * once the fault clears the output resumes on a line of its own (a line cut
 * by a failed write is ended with " [truncated]" before the next one).
 */
#include "test_log_support.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>


/* ---------------------------------------------------------------------------------------- */
/* write(2), with faults injected on one descriptor                                         */

enum fault { PASS, FAIL_EINTR, SHORT, FAIL_ERRNO };

typedef struct step {
	enum fault what;
	int arg;                  /* SHORT: bytes written; FAIL_ERRNO: the errno */
} step;

static atomic_int inject_fd = -1;
/* The plan: injected in order, then repeated from `loop_from` (-1: then pass everything). */
static pthread_mutex_t plan_lock = PTHREAD_MUTEX_INITIALIZER;
static step plan[32];
static int plan_len, plan_pos, loop_from = -1;
static atomic_long injected_eintr, injected_short, injected_errors, calls_on_fd;

static void
set_plan(int fd, const step *steps, int n, int loop)
{
	pthread_mutex_lock(&plan_lock);
	memcpy(plan, steps, (size_t)n * sizeof *steps);
	plan_len = n;
	plan_pos = 0;
	loop_from = loop;
	pthread_mutex_unlock(&plan_lock);
	atomic_store(&inject_fd, fd);
}

static void
stop_injecting(void)
{
	atomic_store(&inject_fd, -1);
}

static step
next_step(void)
{
	step s = { PASS, 0 };
	pthread_mutex_lock(&plan_lock);
	if (plan_pos >= plan_len && loop_from >= 0 && plan_len > 0)
		plan_pos = loop_from;
	if (plan_pos < plan_len)
		s = plan[plan_pos++];
	pthread_mutex_unlock(&plan_lock);
	return s;
}

ssize_t
write(int fd, const void *buf, size_t count)
{
	if (fd < 0 || fd != atomic_load(&inject_fd))
		return (ssize_t)syscall(SYS_write, fd, buf, count);
	atomic_fetch_add(&calls_on_fd, 1);
	step s = next_step();
	switch (s.what) {
	case FAIL_EINTR:
		atomic_fetch_add(&injected_eintr, 1);
		errno = EINTR;
		return -1;
	case FAIL_ERRNO:
		atomic_fetch_add(&injected_errors, 1);
		errno = s.arg;
		return -1;
	case SHORT:
		if ((size_t)s.arg < count && s.arg > 0) {
			atomic_fetch_add(&injected_short, 1);
			count = (size_t)s.arg;
		}
		/* fall through */
	default:
		return (ssize_t)syscall(SYS_write, fd, buf, count);
	}
}

/* ---------------------------------------------------------------------------------------- */
/* Lines, loggers, captured stderr                                                          */

static const char *const mode_names[] = { "ring", "queue", "sync" };

#define LONGEST 6000
static char pattern[LONGEST + 1];

static void
init_pattern(void)
{
	for (int i = 0; i < LONGEST; i++)
		pattern[i] = (char)('a' + i % 26);
	pattern[LONGEST] = '\0';
}

/* Line i's string length: mostly short, sometimes longer than a pipe page. */
static int
len_of(int i)
{
	return i % 17 == 0 ? 4500 + (i * 131) % 1500 : (i * 37) % 300;
}

/* Appends line i of batch b ("b<b> i<i> <len> <pattern>\n") to buf; returns its length. */
static size_t
expected_line(char *buf, int b, int i)
{
	int n = len_of(i);
	return (size_t)sprintf(buf, "b%d i%d %d %.*s\n", b, i, n, n, pattern);
}

static void
log_batch(sr_category *cat, int b, int count)
{
	for (int i = 0; i < count; i++)
		SR_INFO(cat, "b%d i%d %d %.*s", b, i, len_of(i), len_of(i), pattern);
}

/* Everything batches first..last (count lines each) are expected to produce, concatenated. */
static char *
expected_text(int first, int last, int count, size_t *len)
{
	size_t cap = (size_t)(last - first + 1) * (size_t)count * (LONGEST + 40) + 1;
	char *text = malloc(cap);
	cr_assert_not_null(text);
	size_t n = 0;
	for (int b = first; b <= last; b++)
		for (int i = 0; i < count; i++)
			n += expected_line(text + n, b, i);
	*len = n;
	return text;
}

static sr_log *
open_on_fd(sr_log_mode mode, int fd, int write_timeout_ms)
{
	sr_sink_config s = sr_sink_fd(fd);
	s.write_timeout_ms = write_timeout_ms;
	sr_log_config c;
	/* A thread's ring of 256 x 128 bytes (a queue of 256): a stalled sink soon holds the caller up. */
	tl_configure(&c, &s, (tl_settings){ .mode = mode, .ring_slots = 256, .thread_ring_slots = 256,
	    .slot_size = 128, .max_message_bytes = 16384, .layout = SR_LOG_LAYOUT_MESSAGE,
	    .wait_strategy = "timeout:timeout=2ms" });
	c.thread_name = "faults-log";
	return tl_open(&c);
}

/* The first byte where a and b differ, for messages. */
static size_t
first_difference(const char *a, size_t alen, const char *b, size_t blen)
{
	size_t i = 0;
	while (i < alen && i < blen && a[i] == b[i])
		i++;
	return i;
}

#define ASSERT_SAME_TEXT(got, got_len, want, want_len) do { \
	size_t at_ = first_difference(got, got_len, want, want_len); \
	cr_assert(got_len == want_len && at_ == want_len, \
	    "output differs at byte %zu (got %zu bytes, expected %zu): got \"%.40s\", expected \"%.40s\"", \
	    at_, (size_t)(got_len), (size_t)(want_len), (got) + (at_ < got_len ? at_ : got_len), \
	    (want) + (at_ < want_len ? at_ : want_len)); \
} while (0)

/* got is exactly what batches first..last (count lines each) produce; its length. */
static size_t
expect_batches(const char *got, size_t got_len, int first, int last, int count)
{
	size_t want_len;
	char *want = expected_text(first, last, count, &want_len);
	ASSERT_SAME_TEXT(got, got_len, want, want_len);
	free(want);
	return want_len;
}

/* stderr's text (freed here) holds `reports` reports of the logger, naming needle if not NULL. */
static void
expect_reports(char *err, size_t reports, const char *needle)
{
	cr_assert_eq(tl_count_of(err, "seqring:"), reports, "%zu report(s) expected: %s", reports, err);
	if (needle != NULL)
		cr_assert(strstr(err, needle) != NULL, "the report says \"%s\": %s", needle, err);
	free(err);
}

/* The file at path (malloc'd, NUL-terminated), which must exist. */
static char *
file_text(const char *path, size_t *len)
{
	char *text = tl_read_file(path, len);
	cr_assert_not_null(text, "%s", path);
	return text;
}

/* Tests STEM_ring, STEM_queue and STEM_sync: fn(mode) in every mode. */
#define EVERY_MODE_TESTS(stem, fn) \
	Test(log_faults, stem##_ring, .timeout = 30) { fn(SR_LOG_MODE_RING); } \
	Test(log_faults, stem##_queue, .timeout = 30) { fn(SR_LOG_MODE_QUEUE); } \
	Test(log_faults, stem##_sync, .timeout = 30) { fn(SR_LOG_MODE_SYNC); }

/* ---------------------------------------------------------------------------------------- */
/* A pipe reader that reads in odd sizes, with pauses                                       */

typedef struct reader {
	int fd;
	int pause_us;             /* sleep after each read (0: none) */
	char *data;
	size_t len, cap;
	long reads;
	pthread_t thread;
} reader;

static void *
reader_main(void *arg)
{
	reader *r = arg;
	static const size_t sizes[] = { 1, 7, 13, 97, 331, 1021, 2039, 5 };
	for (long k = 0;; k++) {
		size_t want = sizes[k % 8];
		if (r->len + want > r->cap) {
			r->cap = (r->cap + want) * 2;
			r->data = realloc(r->data, r->cap);
			if (r->data == NULL)
				abort();
		}
		ssize_t n = read(r->fd, r->data + r->len, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		r->len += (size_t)n;
		r->reads++;
		if (r->pause_us > 0) {
			struct timespec ts = { 0, (long)r->pause_us * 1000 };
			nanosleep(&ts, NULL);
		}
	}
	return NULL;
}

static void
reader_start(reader *r, int fd, int pause_us)
{
	memset(r, 0, sizeof *r);
	r->fd = fd;
	r->pause_us = pause_us;
	cr_assert_eq(pthread_create(&r->thread, NULL, reader_main, r), 0);
}

static void
reader_join(reader *r)
{
	pthread_join(r->thread, NULL);
}

/* A pipe of one page (the smallest the kernel allows). */
static void
small_pipe(int p[2])
{
	cr_assert_eq(pipe(p), 0);
	cr_assert_geq(fcntl(p[1], F_SETPIPE_SZ, 4096), 4096);
}

enum { LINES = 200 };

/* ---------------------------------------------------------------------------------------- */
/* Short writes: a non-blocking one-page pipe                                               */

static void
short_writes_on_a_small_pipe(sr_log_mode mode)
{
	init_pattern();
	int p[2];
	small_pipe(p);
	cr_assert_eq(fcntl(p[1], F_SETFL, O_NONBLOCK), 0);
	reader r;
	reader_start(&r, p[0], 0);
	tl_stderr cap;
	tl_stderr_begin(&cap);
	/* The reader keeps reading: the write timeout is for a stalled machine only. */
	sr_log *log = open_on_fd(mode, p[1], 20000);
	sr_category *cat = sr_log_root(log);
	log_batch(cat, 0, LINES);
	cr_assert_eq(sr_log_flush(log), SR_OK);
	sr_log_counters st = tl_stats(log);
	sr_log_close(&log);
	close(p[1]);
	reader_join(&r);
	expect_reports(tl_stderr_end(&cap), 0, NULL);

	size_t want_len = expect_batches(r.data, r.len, 0, 0, LINES);
	cr_assert_eq(st.accepted, LINES);
	cr_assert_eq(st.written, LINES);
	cr_assert_eq(st.sinks[0].errors, 0, "short writes are not errors");
	cr_assert_eq(st.sinks[0].bytes, want_len);
	/*
	 * Lines of 4,500+ bytes, each written whole into a pipe that holds
	 * 4,096 bytes: no single write(2) can have taken one, so the sink went on
	 * after short writes (or EAGAIN and a wait).
	 */
	cr_assert_eq(fcntl(p[0], F_GETPIPE_SZ), 4096);
	cr_assert_gt(len_of(0), 4096);
	free(r.data);
	close(p[0]);
}

EVERY_MODE_TESTS(short_writes, short_writes_on_a_small_pipe)

/* ---------------------------------------------------------------------------------------- */
/* EINTR: SIGALRM while the writer is blocked in write(2)                                  */

static atomic_long alarms_received;

static void
on_alarm(int sig)
{
	(void)sig;
	atomic_fetch_add(&alarms_received, 1);
}

/* The thread id of the thread named `name`, or -1. */
static pid_t
thread_named(const char *name)
{
	DIR *d = opendir("/proc/self/task");
	if (d == NULL)
		return -1;
	pid_t found = -1;
	struct dirent *e;
	while (found < 0 && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		char path[300], comm[32] = { 0 };
		snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
		FILE *f = fopen(path, "r");
		if (f == NULL)
			continue;
		if (fgets(comm, sizeof comm, f) != NULL) {
			comm[strcspn(comm, "\n")] = '\0';
			if (strcmp(comm, name) == 0)
				found = (pid_t)atoi(e->d_name);
		}
		fclose(f);
	}
	closedir(d);
	return found;
}

/*
 * 1 when thread tid is inside write(2) on fd right now, 0 when not, -1 when
 * the kernel does not tell (no /proc/self/task/TID/syscall).
 */
static int
in_write(pid_t tid, int fd)
{
	char path[64], text[256];
	snprintf(path, sizeof path, "/proc/self/task/%d/syscall", (int)tid);
	int f = open(path, O_RDONLY);
	if (f < 0)
		return -1;
	ssize_t n = read(f, text, sizeof text - 1);
	close(f);
	if (n <= 0)
		return -1;
	text[n] = '\0';
	long nr;
	unsigned long arg0;
	return sscanf(text, "%ld 0x%lx", &nr, &arg0) == 2 && nr == SYS_write && arg0 == (unsigned long)fd;
}

typedef struct signaller {
	pid_t target;             /* the writing thread */
	const char *target_name;  /* or: found by this name once it exists */
	int fd;
	atomic_bool stop;
	long sent_in_write;       /* signals sent while the target was blocked in write */
	long sent_blind;          /* signals sent without knowing (no syscall file) */
	pthread_t thread;
} signaller;

static void *
signaller_main(void *arg)
{
	signaller *s = arg;
	while (!atomic_load(&s->stop)) {
		if (s->target < 0)
			s->target = thread_named(s->target_name);
		int w = s->target >= 0 ? in_write(s->target, s->fd) : 0;
		if (w != 0) {
			syscall(SYS_tgkill, getpid(), s->target, SIGALRM);
			if (w > 0)
				s->sent_in_write++;
			else
				s->sent_blind++;
		}
		struct timespec ts = { 0, 200 * 1000 };
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static void
eintr_while_blocked(sr_log_mode mode)
{
	init_pattern();
	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;
	sa.sa_flags = 0;          /* no SA_RESTART: a blocked write(2) returns EINTR or short */
	sigemptyset(&sa.sa_mask);
	cr_assert_eq(sigaction(SIGALRM, &sa, &old), 0);
	atomic_store(&alarms_received, 0);

	int p[2];
	small_pipe(p);            /* blocking: the writer sleeps in write(2) while the pipe is full */
	reader r;
	reader_start(&r, p[0], 300);  /* slow: the pipe stays full most of the time */
	tl_stderr cap;
	tl_stderr_begin(&cap);
	sr_log *log = open_on_fd(mode, p[1], 100);

	signaller sig;
	memset(&sig, 0, sizeof sig);
	/* Sync mode: the caller (this thread) writes; else the logger's own thread. */
	sig.target = mode == SR_LOG_MODE_SYNC ? (pid_t)syscall(SYS_gettid) : -1;
	sig.target_name = "faults-log";
	sig.fd = p[1];
	atomic_store(&sig.stop, false);
	cr_assert_eq(pthread_create(&sig.thread, NULL, signaller_main, &sig), 0);

	sr_category *cat = sr_log_root(log);
	log_batch(cat, 0, LINES);
	cr_assert_eq(sr_log_flush(log), SR_OK);
	atomic_store(&sig.stop, true);
	pthread_join(sig.thread, NULL);
	sr_log_counters st = tl_stats(log);
	sr_log_close(&log);
	close(p[1]);
	reader_join(&r);
	char *err = tl_stderr_end(&cap);
	sigaction(SIGALRM, &old, NULL);
	expect_reports(err, 0, NULL);

	expect_batches(r.data, r.len, 0, 0, LINES);
	cr_assert_eq(st.accepted, LINES, "the logger kept accepting");
	cr_assert_eq(st.written, LINES);
	cr_assert_eq(st.sinks[0].errors, 0, "EINTR and short writes are not errors");
	if (sig.sent_blind > 0 && sig.sent_in_write == 0)
		cr_log_warn("no /proc/self/task/TID/syscall: %ld SIGALRM sent without knowing whether the "
		    "writer was in write(2)", sig.sent_blind);
	else
		cr_assert_gt(sig.sent_in_write, 0, "no SIGALRM reached the writer inside write(2)");
	/* Standard signals do not queue: two sent close together may arrive as one. */
	cr_assert_gt(atomic_load(&alarms_received), 0);
	cr_log_info("%s: %ld SIGALRM sent while the writer was blocked in write(2), all survived",
	    mode_names[mode], sig.sent_in_write);
	free(r.data);
	close(p[0]);
}

EVERY_MODE_TESTS(eintr, eintr_while_blocked)

/* ---------------------------------------------------------------------------------------- */
/* Injected: EINTR and short writes by plan                                                 */

static int
temp_file(char *path, size_t size)
{
	snprintf(path, size, "/tmp/seqring_faults_out_XXXXXX");
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	return fd;
}

static void
injected_eintr_and_short_writes(sr_log_mode mode)
{
	init_pattern();
	char path[64];
	int fd = temp_file(path, sizeof path);
	static const step steps[] = {
		{ FAIL_EINTR, 0 }, { SHORT, 1 }, { PASS, 0 }, { SHORT, 7 }, { FAIL_EINTR, 0 },
		{ FAIL_EINTR, 0 }, { SHORT, 100 }, { SHORT, 4093 }, { FAIL_EINTR, 0 }, { SHORT, 2 },
	};
	atomic_store(&injected_eintr, 0);
	atomic_store(&injected_short, 0);
	tl_stderr cap;
	tl_stderr_begin(&cap);
	sr_log *log = open_on_fd(mode, fd, 100);
	set_plan(fd, steps, (int)(sizeof steps / sizeof *steps), 0);
	log_batch(sr_log_root(log), 0, LINES);
	cr_assert_eq(sr_log_flush(log), SR_OK);
	log_batch(sr_log_root(log), 1, LINES);
	cr_assert_eq(sr_log_flush(log), SR_OK);
	sr_log_counters st = tl_stats(log);
	log_batch(sr_log_root(log), 2, LINES);    /* written by the close, still under faults */
	sr_log_close(&log);
	stop_injecting();
	expect_reports(tl_stderr_end(&cap), 0, NULL);

	size_t got_len;
	char *got = file_text(path, &got_len);
	expect_batches(got, got_len, 0, 2, LINES);
	cr_assert_eq(st.sinks[0].errors, 0, "EINTR and short writes are not errors");
	cr_assert_gt(atomic_load(&injected_eintr), 0);
	cr_assert_gt(atomic_load(&injected_short), 0);
	cr_log_info("%s: %ld EINTR and %ld short writes injected, output intact", mode_names[mode],
	    atomic_load(&injected_eintr), atomic_load(&injected_short));
	free(got);
	close(fd);
	unlink(path);
}

EVERY_MODE_TESTS(injected_eintr_and_short, injected_eintr_and_short_writes)

/* ---------------------------------------------------------------------------------------- */
/* Injected: an error after a short write, then recovery                                    */

/*
 * A write that fails after writing part of a line (a short write, then EIO /
 * ENOSPC / EAGAIN past the timeout) must not leave that line open: these six
 * tests caught the logger gluing the next message onto the cut fragment.
 */

/*
 * Checks every line of `text`: each must be a whole expected line, or a line
 * cut short by a failed write: a prefix of an expected line, maybe followed
 * by a marker the logger adds (" [...").  What a failed partial write must
 * not do is leave its fragment without a line end, so that the next output
 * continues the fragment's line: that line is neither.  *why says which.
 */
static bool
lines_intact(const char *text, size_t len, size_t *complete, char *why, size_t why_size)
{
	char want[LONGEST + 64];
	*complete = 0;
	size_t pos = 0;
	while (pos < len) {
		const char *line = text + pos;
		const char *nl = memchr(line, '\n', len - pos);
		if (nl == NULL) {
			snprintf(why, why_size, "the output ends inside a line at byte %zu", pos);
			return false;
		}
		size_t n = (size_t)(nl - line);        /* without the newline */
		int b, i;
		bool ok = false;
		if (sscanf(line, "b%d i%d ", &b, &i) == 2 && b >= 0 && i >= 0) {
			size_t wlen = expected_line(want, b, i) - 1;
			if (n == wlen && memcmp(line, want, n) == 0) {
				(*complete)++;
				ok = true;
			} else {
				/* A fragment: a proper prefix, then nothing or a marker. */
				size_t body = n;
				for (size_t k = 0; k + 1 < n; k++) {
					if (line[k] == ' ' && line[k + 1] == '[') {
						body = k;
						break;
					}
				}
				ok = body < wlen && memcmp(line, want, body) == 0;
			}
		}
		if (!ok) {
			snprintf(why, why_size, "garbled line at byte %zu: \"%.50s...%.30s\"", pos, line,
			    n > 30 ? nl - 30 : line);
			return false;
		}
		pos += n + 1;
	}
	return true;
}

/* lines_intact, or the test fails: after `fault`, the output went on on a line of its own. */
static size_t
expect_lines_intact(const char *text, size_t len, sr_log_mode mode, const char *fault)
{
	char why[200] = "";
	size_t complete;
	bool ok = lines_intact(text, len, &complete, why, sizeof why);
	cr_assert(ok, "%s: after %s, the next output must start on a line of its own: %s", mode_names[mode],
	    fault, why);
	return complete;
}

static void
error_after_short_write_then_recovery(sr_log_mode mode)
{
	init_pattern();
	enum { N = 20 };
	char path[64];
	int fd = temp_file(path, sizeof path);
	tl_stderr cap;
	tl_stderr_begin(&cap);
	sr_log *log = open_on_fd(mode, fd, 100);
	sr_category *cat = sr_log_root(log);

	log_batch(cat, 0, N);                       /* written normally */
	cr_assert_eq(sr_log_flush(log), SR_OK);
	/* The next write stops after 37 bytes, and the one after fails with EIO. */
	static const step fault[] = { { SHORT, 37 }, { FAIL_ERRNO, EIO } };
	atomic_store(&injected_errors, 0);
	set_plan(fd, fault, 2, -1);
	log_batch(cat, 1, N);
	cr_assert_eq(sr_log_flush(log), SR_OK);
	sr_log_counters st1 = tl_stats(log);
	/* The same again: counted, not reported a second time. */
	set_plan(fd, fault, 2, -1);
	log_batch(cat, 2, N);
	cr_assert_eq(sr_log_flush(log), SR_OK);
	stop_injecting();
	log_batch(cat, 3, N);                       /* the fault has cleared */
	cr_assert_eq(sr_log_flush(log), SR_OK);
	sr_log_counters st = tl_stats(log);
	sr_log_close(&log);
	expect_reports(tl_stderr_end(&cap), 1, "Input/output error");

	cr_assert_eq(atomic_load(&injected_errors), 2);
	cr_assert_eq(st1.sinks[0].errors, 1, "the failed write is counted");
	cr_assert_eq(st.sinks[0].errors, 2);
	cr_assert_gt(st.sinks[0].lost_bytes, 0);
	cr_assert_eq(st.accepted, 4 * N, "the logger kept accepting");

	size_t len;
	char *text = file_text(path, &len);
	/* Before the fault: batch 0 exactly. */
	size_t before_len;
	char *before = expected_text(0, 0, N, &before_len);
	cr_assert(len >= before_len && memcmp(text, before, before_len) == 0, "output before the fault intact");
	/* After it: batch 3 whole at the end, and no line anywhere garbled by a cut one. */
	size_t after_len;
	char *after = expected_text(3, 3, N, &after_len);
	cr_assert(len >= after_len && memcmp(text + len - after_len, after, after_len) == 0,
	    "output after the fault cleared intact");
	expect_lines_intact(text, len, mode, "a failed partial write");
	free(text);
	free(before);
	free(after);
	close(fd);
	unlink(path);
}

EVERY_MODE_TESTS(error_after_short_write, error_after_short_write_then_recovery)

/* ---------------------------------------------------------------------------------------- */
/* A real descriptor: a pipe that takes part of a line, then stays full past the timeout    */

static void
eagain_after_partial_write_then_recovery(sr_log_mode mode)
{
	init_pattern();
	enum { N = 5 };
	int p[2];
	small_pipe(p);
	cr_assert_eq(fcntl(p[1], F_SETFL, O_NONBLOCK), 0);
	tl_stderr cap;
	tl_stderr_begin(&cap);
	sr_log *log = open_on_fd(mode, p[1], 50);
	sr_category *cat = sr_log_root(log);

	/* Batch 0: short lines, into the pipe; nobody reads yet. */
	for (int i = 1; i <= N; i++)
		SR_INFO(cat, "b0 i%d %d %.*s", i, len_of(i), len_of(i), pattern);
	cr_assert_eq(sr_log_flush(log), SR_OK);
	/* Line 0 (4,500 bytes) fits only in part: the rest waits 50 ms for room, then is dropped. */
	SR_INFO(cat, "b1 i0 %d %.*s", len_of(0), len_of(0), pattern);
	cr_assert_eq(sr_log_flush(log), SR_OK);
	sr_log_counters st1 = tl_stats(log);
	/* The reader comes back and drains the pipe; the next lines go through. */
	reader r;
	reader_start(&r, p[0], 0);
	for (int i = 1; i <= N; i++)
		SR_INFO(cat, "b2 i%d %d %.*s", i, len_of(i), len_of(i), pattern);
	cr_assert_eq(sr_log_flush(log), SR_OK);
	sr_log_counters st = tl_stats(log);
	sr_log_close(&log);
	close(p[1]);
	reader_join(&r);
	expect_reports(tl_stderr_end(&cap), 1, "stayed full");

	cr_assert_eq(st1.sinks[0].errors, 1, "the timed-out write is counted");
	cr_assert_gt(st1.sinks[0].lost_bytes, 0);
	cr_assert_eq(st.sinks[0].errors, 1, "and the writes after it succeed");
	cr_assert_eq(st.accepted, 2 * N + 1, "the logger kept accepting");
	/* The pipe holds batch 0, part of line 0 of batch 1, then batch 2. */
	char b2[LONGEST + 64];
	size_t b2_len = expected_line(b2, 2, N);
	cr_assert(r.len > b2_len && memcmp(r.data + r.len - b2_len, b2, b2_len) == 0,
	    "the last line arrives whole");
	size_t complete = expect_lines_intact(r.data, r.len, mode, "a write that timed out part-way through a line");
	cr_assert_eq(complete, 2 * N, "batches 0 and 2 whole");
	free(r.data);
	close(p[0]);
}

EVERY_MODE_TESTS(eagain_after_partial_write, eagain_after_partial_write_then_recovery)
