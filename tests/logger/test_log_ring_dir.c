/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_log_ring_dir.c: records that outlive their process (config.ring_dir).
 *
 * Most tests make a dead process's directory the same way: a child opens a
 * logger on the directory whose one sink blocks on its first line, so that
 * every record stays in the rings; it logs N numbered messages (thread
 * "worker", category "net.http"), tells the parent, and is killed with
 * SIGKILL.  Then the parent opens a logger on the directory (or calls
 * sr_log_recover) and looks at what came out.
 */
#include "test_log_support.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdatomic.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/wait.h>

enum { N = 100 };
/* The line of the child's log call, for the location its records carry. */
static int call_line;

/* A sink whose first line never returns: the consumer holds it, the rest stays in the rings. */
static int
never_returns(void *ctx, sr_log_level level, const char *line, size_t len)
{
	(void)ctx, (void)level, (void)line, (void)len;
	for (;;)
		pause();
	return 0;
}

static char *
temp_dir(char *buf, size_t size)
{
	snprintf(buf, size, "/tmp/test_log_ring_dir.XXXXXX");
	cr_assert_not_null(mkdtemp(buf), "mkdtemp: %s", strerror(errno));
	return buf;
}

/* The names in dir but "." and "..", joined by spaces (malloc'd). */
static char *
dir_names(const char *dir)
{
	char *out = calloc(1, 4096);
	DIR *d = opendir(dir);
	cr_assert_not_null(d, "opendir %s: %s", dir, strerror(errno));
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (out[0] != '\0')
			strncat(out, " ", 4095 - strlen(out));
		strncat(out, e->d_name, 4095 - strlen(out));
	}
	closedir(d);
	return out;
}

static void
config_for(sr_log_config *c, const char *dir, sr_log_producer producer, sr_sink_config *sink)
{
	sr_log_config_default(c);
	c->ignore_environment = true;
	c->close_at_exit = false;
	c->ring_dir = dir;
	c->producer = producer;
	c->thread_ring_slots = 1024;
	c->ring_slots = 1024;
	c->sinks = sink;
	c->sink_count = 1;
}

/*
 * A child logs N messages into dir and is killed with every record still
 * in its rings; returns its pid.  *before_ns: the time before its first call.
 */
static pid_t
kill_a_logging_child(const char *dir, sr_log_producer producer, int64_t *before_ns)
{
	int ready[2];
	cr_assert_eq(pipe(ready), 0);
	*before_ns = sr_realtime_ns();
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		sr_sink_config sink = sr_sink_callback(never_returns, NULL);
		sr_log_config c;
		config_for(&c, dir, producer, &sink);
		sr_error err;
		sr_log *log = sr_log_open(&c, &err);
		if (log == NULL) {
			fprintf(stderr, "child: %s\n", err.message);
			_exit(3);
		}
		sr_category *net = sr_log_category_get(log, "net.http", &err);
		sr_log_thread_name("worker");
		sr_log_thread_prepare(log);
		for (int i = 0; i < N; i++) {
			call_line = __LINE__ + 1;
			SR_INFO(net, "m %d of %s, %.2f", i, "the dead", i * 0.25);
		}
		char line[16];
		int len = snprintf(line, sizeof line, "%d\n", call_line);
		(void)!write(ready[1], line, (size_t)len);
		for (;;)
			pause();
	}
	close(ready[1]);
	char line[16] = { 0 };
	cr_assert_gt(read(ready[0], line, sizeof line - 1), 0, "the child logged nothing");
	close(ready[0]);
	call_line = atoi(line);
	kill(pid, SIGKILL);
	int st;
	waitpid(pid, &st, 0);
	cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "the child died otherwise (status %d)", st);
	return pid;
}

/* Opens a logger on dir with a capture, which receives what the dead process left. */
static sr_log *
open_on(const char *dir, sr_log_producer producer, tl_capture *cap, sr_sink_config *sink)
{
	tl_capture_init(cap);
	*sink = tl_capture_sink(cap);
	sr_log_config c;
	config_for(&c, dir, producer, sink);
	return tl_open(&c);
}

static void
expect_every_record_recovered(tl_capture *cap, pid_t pid, int64_t before_ns, int64_t after_ns)
{
	cr_assert_geq(cap->count, (size_t)N + 1, "%zu lines, expected the %d messages and the recovery line first",
	    cap->count, N);
	char where[64];
	snprintf(where, sizeof where, "(test_log_ring_dir.c:%d)", call_line);
	for (int i = 0; i < N; i++) {
		const char *l = cap->lines[i];
		char want[64];
		snprintf(want, sizeof want, " - m %d of the dead, %.2f ", i, i * 0.25);
		cr_expect(strstr(l, want) != NULL, "line %d, in order: \"%s\" lacks \"%s\"", i, l, want);
		cr_expect(strstr(l, " INFO ") != NULL && strstr(l, " net.http - ") != NULL, "level, category: \"%s\"", l);
		cr_expect(strstr(l, "[worker]") != NULL, "the thread's name: \"%s\"", l);
		cr_expect(strstr(l, where) != NULL, "the location %s: \"%s\"", where, l);
		/* Its own time, from the dead process's clock: between its start and its kill. */
		int64_t at = tl_text_line_time(l);
		cr_assert_geq(at, 0, "a time: \"%s\"", l);
		cr_expect(at >= before_ns - 2000000 && at <= after_ns + 2000000,
		    "line %d's time %" PRId64 " is not within the child's life [%" PRId64 ", %" PRId64 "]", i, at,
		    before_ns, after_ns);
	}
	char want[96];
	snprintf(want, sizeof want, "recovered %d records of pid %d from ring directory", N, (int)pid);
	cr_expect(strstr(cap->lines[N], want) != NULL && cap->levels[N] == SR_LOG_WARN,
	    "the last line, at warn, says what was recovered: \"%s\"", cap->lines[N]);
	cr_expect(strstr(cap->lines[N], "0 claimed slots were found unpublished") != NULL, "\"%s\"", cap->lines[N]);
}

static void
recovers_a_dead_process(sr_log_producer producer)
{
	char dir[64];
	temp_dir(dir, sizeof dir);
	int64_t before;
	pid_t pid = kill_a_logging_child(dir, producer, &before);
	int64_t after = sr_realtime_ns();
	tl_capture cap;
	sr_sink_config sink;
	sr_log *log = open_on(dir, producer, &cap, &sink);
	/* Written at open, before any record of the new logger. */
	cr_assert_eq(cap.count, (size_t)N + 1, "at open: %zu lines", cap.count);
	sr_category *root = sr_log_category_get(log, "", NULL);
	SR_INFO(root, "the new process's first message");
	sr_log_flush(log);
	cr_expect(cap.count == (size_t)N + 2 && strstr(cap.lines[N + 1], "the new process's first message") != NULL,
	    "the new logger's own record comes after");
	cr_expect_eq(tl_stats(log).written_by_caller, (uint64_t)N, "recovered records count as written by a caller");
	char *text = tl_describe(log);
	char want[96];
	snprintf(want, sizeof want, "%d records of pid %d written at open", N, (int)pid);
	cr_expect(strstr(text, want) != NULL && strstr(text, dir) != NULL, "describe shows the recovery:\n%s", text);
	free(text);
	sr_log_close(&log);
	expect_every_record_recovered(&cap, pid, before, after);
	char *names = dir_names(dir);
	cr_expect_str_eq(names, "lock", "the dead process's files and the new logger's are gone");
	free(names);
	tl_capture_free(&cap);
}

Test(log_ring_dir, a_new_logger_writes_every_record_a_killed_process_left_in_its_thread_rings)
{
	recovers_a_dead_process(SR_LOG_PRODUCER_PER_THREAD);
}

Test(log_ring_dir, a_new_logger_writes_every_record_a_killed_process_left_in_its_shared_ring)
{
	recovers_a_dead_process(SR_LOG_PRODUCER_SHARED);
}

Test(log_ring_dir, recovery_happens_once)
{
	char dir[64];
	temp_dir(dir, sizeof dir);
	int64_t before;
	kill_a_logging_child(dir, SR_LOG_PRODUCER_PER_THREAD, &before);
	tl_capture cap;
	sr_sink_config sink;
	sr_log *log = open_on(dir, SR_LOG_PRODUCER_PER_THREAD, &cap, &sink);
	sr_log_close(&log);
	tl_capture_free(&cap);
	log = open_on(dir, SR_LOG_PRODUCER_PER_THREAD, &cap, &sink);
	cr_expect_eq(cap.count, 0u, "a second open finds nothing: \"%s\"", cap.count > 0 ? cap.lines[0] : "");
	char *text = tl_describe(log);
	cr_expect(strstr(text, "none at open") != NULL, "describe says no recovery:\n%s", text);
	free(text);
	sr_log_close(&log);
	tl_capture_free(&cap);
}

Test(log_ring_dir, sr_log_recover_writes_a_dead_process_records_into_any_logger)
{
	char dir[64];
	temp_dir(dir, sizeof dir);
	int64_t before;
	pid_t pid = kill_a_logging_child(dir, SR_LOG_PRODUCER_SHARED, &before);
	int64_t after = sr_realtime_ns();
	tl_setup t;
	sr_log_config *c = tl_setup_begin(&t);
	c->mode = SR_LOG_MODE_SYNC;
	sr_log *log = tl_open(c);
	sr_log_recovery report;
	sr_error err;
	cr_assert_eq(sr_log_recover(log, dir, &report, &err), SR_OK, "%s", err.message);
	cr_expect_eq(report.pid, pid);
	cr_expect_eq(report.records, (uint64_t)N);
	cr_expect_eq(report.loggers, 1u);
	cr_expect_eq(report.rings, 1u);
	cr_expect_eq(report.unresolved, 0u);
	cr_expect(report.unchecked, "no file sink was tracked: the last write could not be checked");
	expect_every_record_recovered(&t.cap, pid, before, after);
	/* Nothing left: a second call finds nothing and says so in its report. */
	cr_assert_eq(sr_log_recover(log, dir, &report, &err), SR_OK, "%s", err.message);
	cr_expect(report.loggers == 0 && report.records == 0);
	sr_log_close(&log);
	tl_setup_end(&t);
}

Test(log_ring_dir, sr_log_recover_names_each_bad_argument)
{
	tl_setup t;
	sr_log *log = tl_open(tl_setup_begin(&t));
	sr_error err;
	cr_expect_eq(sr_log_recover(NULL, "/tmp", NULL, &err), SR_EINVAL);
	cr_expect(strstr(err.message, "into is NULL") != NULL, "%s", err.message);
	cr_expect_eq(sr_log_recover(log, NULL, NULL, &err), SR_EINVAL);
	cr_expect(strstr(err.message, "dir is NULL") != NULL, "%s", err.message);
	cr_expect_eq(sr_log_recover(log, "", NULL, &err), SR_EINVAL);
	cr_expect_eq(sr_log_recover(log, "/nonexistent/ring/dir", NULL, &err), SR_ESYS);
	cr_expect(strstr(err.message, "/nonexistent/ring/dir") != NULL, "%s", err.message);
	cr_expect_eq(sr_log_recover(log, "/etc/hostname", NULL, &err), SR_EINVAL);
	cr_expect(strstr(err.message, "is not a directory") != NULL, "%s", err.message);
	sr_log_close(&log);
	tl_setup_end(&t);
}

Test(log_ring_dir, a_directory_a_live_logger_holds_is_refused)
{
	char dir[64];
	temp_dir(dir, sizeof dir);
	tl_setup t;
	sr_log_config *c = tl_setup_begin(&t);
	c->ring_dir = dir;
	sr_log *log = tl_open(c);
	sr_error err = tl_open_refused(c, "a second logger on %s", dir);
	cr_expect_eq(err.code, SR_ESTATE);
	cr_expect(strstr(err.message, dir) != NULL && strstr(err.message, "in use by a live logger") != NULL, "%s",
	    err.message);
	cr_expect_eq(sr_log_recover(log, dir, NULL, &err), SR_ESTATE, "recovery does not read a live logger's rings");
	sr_log_close(&log);
	char *names = dir_names(dir);
	cr_expect_str_eq(names, "lock", "a clean close leaves only the lock");
	free(names);
	tl_setup_end(&t);
}

Test(log_ring_dir, the_option_is_checked_at_open)
{
	tl_setup t;
	sr_log_config *c = tl_setup_begin(&t);
	c->ring_dir = "";
	sr_error err = tl_open_refused(c, "an empty ring_dir");
	cr_expect(strstr(err.message, "config.ring_dir is empty") != NULL, "%s", err.message);
	c->ring_dir = "/tmp";
	c->mode = SR_LOG_MODE_SYNC;
	err = tl_open_refused(c, "ring_dir in mode sync");
	cr_expect(strstr(err.message, "needs mode ring") != NULL, "%s", err.message);
	c->mode = SR_LOG_MODE_RING;
	c->ring_dir = "/etc/hostname";
	err = tl_open_refused(c, "a file for a directory");
	cr_expect(strstr(err.message, "/etc/hostname") != NULL, "%s", err.message);
	tl_setup_end(&t);
}

Test(log_ring_dir, the_environment_sets_the_directory)
{
	char dir[64];
	temp_dir(dir, sizeof dir);
	tl_setup t;
	sr_log_config *c = tl_setup_begin(&t);
	c->ignore_environment = false;
	setenv("SEQRING_LOG_RING_DIR", dir, 1);
	sr_log *log = tl_open(c);
	unsetenv("SEQRING_LOG_RING_DIR");
	char *text = tl_describe(log);
	cr_expect(strstr(text, dir) != NULL, "describe shows the directory:\n%s", text);
	free(text);
	sr_category *root = sr_log_category_get(log, "", NULL);
	SR_INFO(root, "a record in a file");
	char *names = dir_names(dir);
	cr_expect(strstr(names, ".meta") != NULL && strstr(names, ".ring") != NULL,
	    "a meta file and the thread's ring file: %s", names);
	free(names);
	sr_log_close(&log);
	tl_setup_end(&t);
}

/* Corrupts one byte at offset of the first file in dir whose name ends with suffix; its name. */
static char *
corrupt(const char *dir, const char *suffix, off_t offset)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char *path = NULL;
	while ((e = readdir(d)) != NULL && path == NULL) {
		size_t n = strlen(e->d_name), s = strlen(suffix);
		if (n > s && strcmp(e->d_name + n - s, suffix) == 0) {
			path = malloc(strlen(dir) + n + 2);
			sprintf(path, "%s/%s", dir, e->d_name);
		}
	}
	closedir(d);
	cr_assert_not_null(path, "no %s file in %s", suffix, dir);
	int fd = open(path, O_RDWR);
	unsigned char b;
	cr_assert_eq(pread(fd, &b, 1, offset), 1);
	b ^= 0x5a;
	cr_assert_eq(pwrite(fd, &b, 1, offset), 1);
	close(fd);
	return path;
}

Test(log_ring_dir, a_corrupt_ring_file_stops_the_open_and_is_left_alone)
{
	char dir[64];
	temp_dir(dir, sizeof dir);
	int64_t before;
	kill_a_logging_child(dir, SR_LOG_PRODUCER_PER_THREAD, &before);
	char *ring = corrupt(dir, ".ring", 40);
	tl_setup t;
	sr_log_config *c = tl_setup_begin(&t);
	c->ring_dir = dir;
	sr_error err = tl_open_refused(c, "a ring file with a corrupt header");
	cr_expect_eq(err.code, SR_EFORMAT);
	cr_expect(strstr(err.message, ring) != NULL && strstr(err.message, "checksum") != NULL, "%s", err.message);
	cr_expect_eq(access(ring, F_OK), 0, "the file stays for whoever looks into it");
	cr_expect_eq(t.cap.count, 0u, "nothing was written");
	free(ring);
	tl_setup_end(&t);
}

Test(log_ring_dir, a_foreign_file_is_an_error_that_names_it)
{
	char dir[64];
	temp_dir(dir, sizeof dir);
	char path[128];
	snprintf(path, sizeof path, "%s/notes.ring", dir);
	FILE *f = fopen(path, "w");
	fputs("not a ring at all\n", f);
	fclose(f);
	tl_setup t;
	sr_log_config *c = tl_setup_begin(&t);
	c->ring_dir = dir;
	sr_error err = tl_open_refused(c, "a foreign file");
	cr_expect_eq(err.code, SR_EFORMAT);
	cr_expect(strstr(err.message, "notes") != NULL, "%s", err.message);
	cr_expect_eq(access(path, F_OK), 0);
	tl_setup_end(&t);
}

Test(log_ring_dir, a_record_whose_site_was_not_recorded_is_counted_not_guessed)
{
	char dir[64];
	temp_dir(dir, sizeof dir);
	int64_t before;
	pid_t pid = kill_a_logging_child(dir, SR_LOG_PRODUCER_PER_THREAD, &before);
	/* The meta file without its entries: its header page alone. */
	char *meta = corrupt(dir, ".meta", 8);
	free(corrupt(dir, ".meta", 8)); /* the same byte back */
	cr_assert_eq(truncate(meta, 4096), 0);
	free(meta);
	tl_capture cap;
	sr_sink_config sink;
	sr_log *log = open_on(dir, SR_LOG_PRODUCER_PER_THREAD, &cap, &sink);
	sr_log_close(&log);
	cr_assert_eq(cap.count, 1u, "no message, one recovery line: %zu lines", cap.count);
	char want[160];
	snprintf(want, sizeof want, "recovered 0 records of pid %d", (int)pid);
	cr_expect(strstr(cap.lines[0], want) != NULL, "\"%s\"", cap.lines[0]);
	snprintf(want, sizeof want, "%d records named a call site or category the process had not recorded", N);
	cr_expect(strstr(cap.lines[0], want) != NULL, "\"%s\"", cap.lines[0]);
	tl_capture_free(&cap);
}

static sr_category *full_cat;

static void *
log_once(void *arg)
{
	(void)arg;
	SR_INFO(full_cat, "from a thread of its own");
	return NULL;
}

Test(log_ring_dir, a_forked_child_keeps_its_rings_out_of_the_directory)
{
	char dir[64], file[128];
	temp_dir(dir, sizeof dir);
	snprintf(file, sizeof file, "%s.log", dir);
	sr_sink_config sink = sr_sink_file(file);
	sr_log_config c;
	config_for(&c, dir, SR_LOG_PRODUCER_PER_THREAD, &sink);
	sr_log *log = tl_open(&c);
	sr_category *root = sr_log_category_get(log, "", NULL);
	SR_INFO(root, "parent before the fork");
	sr_log_flush(log);
	char *names_before = dir_names(dir);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		SR_INFO(root, "child after the fork");
		pthread_t th;
		/* A new thread's ring in the child: made in memory, not in the parent's directory. */
		full_cat = root;
		pthread_create(&th, NULL, log_once, NULL);
		pthread_join(th, NULL);
		char *names = dir_names(dir);
		int same = strcmp(names, names_before) == 0;
		sr_log_close(&log);
		_exit(same ? 0 : 1);
	}
	int st;
	waitpid(pid, &st, 0);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the child made or removed files in the directory");
	SR_INFO(root, "parent after the child");
	sr_log_close(&log);
	char *names = dir_names(dir);
	cr_expect_str_eq(names, "lock", "the parent's close removed its files, the child's none");
	cr_expect_eq(tl_count_lines(file, "child after the fork"), 1u);
	cr_expect_eq(tl_count_lines(file, "parent after the child"), 1u);
	free(names);
	free(names_before);
	unlink(file);
}

/* Runs seqring-recover with args (a shell's words); its exit status, its stdout in out (malloc'd). */
static int
run_command(const char *args, char **out)
{
	char cmd[512];
	snprintf(cmd, sizeof cmd, "env -u SEQRING_LOG_SINK '%s' %s 2>&1", SEQRING_RECOVER_COMMAND, args);
	FILE *p = popen(cmd, "r");
	cr_assert_not_null(p);
	size_t cap = 1 << 20, len = 0;
	*out = calloc(1, cap);
	size_t got;
	while ((got = fread(*out + len, 1, cap - 1 - len, p)) > 0)
		len += got;
	int st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

Test(log_ring_dir, seqring_recover_writes_a_dead_process_records_to_standard_output)
{
	char dir[64];
	temp_dir(dir, sizeof dir);
	int64_t before;
	pid_t pid = kill_a_logging_child(dir, SR_LOG_PRODUCER_PER_THREAD, &before);
	char *out;
	cr_assert_eq(run_command(dir, &out), 0, "seqring-recover %s:\n%s", dir, out);
	cr_expect_eq(tl_count_of(out, " net.http - m "), (size_t)N, "the %d messages:\n%.2000s", N, out);
	char want[96];
	snprintf(want, sizeof want, "recovered %d records of pid %d", N, (int)pid);
	cr_expect(strstr(out, want) != NULL, "the recovery line:\n%.2000s", out);
	free(out);
	char *names = dir_names(dir);
	cr_expect_str_eq(names, "lock");
	free(names);
	/* Nothing left: it says so, and succeeds. */
	cr_expect_eq(run_command(dir, &out), 0);
	cr_expect(strstr(out, "nothing to recover") != NULL, "%s", out);
	free(out);
	/* Usage and errors. */
	cr_expect_eq(run_command("", &out), 2, "no directory: usage");
	cr_expect(strstr(out, "usage: seqring-recover DIR") != NULL, "%s", out);
	free(out);
	cr_expect_eq(run_command("/nonexistent/dir", &out), 1);
	cr_expect(strstr(out, "/nonexistent/dir") != NULL, "%s", out);
	free(out);
}

Test(log_ring_dir, seqring_recover_refuses_a_directory_a_live_logger_holds)
{
	char dir[64];
	temp_dir(dir, sizeof dir);
	tl_setup t;
	sr_log_config *c = tl_setup_begin(&t);
	c->ring_dir = dir;
	sr_log *log = tl_open(c);
	char *out;
	cr_expect_eq(run_command(dir, &out), 1);
	cr_expect(strstr(out, "in use by a live logger") != NULL, "%s", out);
	free(out);
	sr_log_close(&log);
	tl_setup_end(&t);
}

/* ---- a site first logged through sr_log_emit, then through the macros' entry ---- */

Test(log_ring_dir, a_site_catalogued_twice_keeps_its_home_category)
{
	char dir[64];
	temp_dir(dir, sizeof dir);
	int ready[2];
	cr_assert_eq(pipe(ready), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		sr_sink_config sink = sr_sink_callback(never_returns, NULL);
		sr_log_config c;
		config_for(&c, dir, SR_LOG_PRODUCER_PER_THREAD, &sink);
		sr_error err;
		sr_log *log = sr_log_open(&c, &err);
		if (log == NULL)
			_exit(3);
		sr_category *net = sr_log_category_get(log, "net.http", &err);
		static sr_site site = { .format = "dual %d", .file = __FILE__, .function = "dual", .line = 7,
			.level = SR_LOG_INFO };
		/* The variadic entry catalogues the site without a home category ... */
		sr_log_emit(net, &site, "dual %d", 1);
		/*
		 * ... the macros' entry (what SR_INFO expands to) binds one,
		 * catalogues it again, and its inline records leave the category out.
		 */
		static const unsigned char kinds[] = { SR_FMT_ARG_INT };
		static const int32_t lens[] = { -1 };
		for (int i = 2; i <= N; i++) {
			sr_log_arg arg = sr_log__arg_int(i);
			sr_log__emit_fast(net, &site, &arg, kinds, lens, 1, SR_LOG_INFO);
		}
		(void)!write(ready[1], "1\n", 2);
		for (;;)
			pause();
	}
	close(ready[1]);
	char line[8] = { 0 };
	cr_assert_gt(read(ready[0], line, sizeof line - 1), 0, "the child logged nothing");
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	tl_capture cap;
	sr_sink_config sink;
	sr_log *log = open_on(dir, SR_LOG_PRODUCER_PER_THREAD, &cap, &sink);
	sr_log_close(&log);
	cr_assert_eq(cap.count, (size_t)N + 1, "every record and the recovery line: %zu lines", cap.count);
	cr_expect_eq(tl_capture_grep(&cap, " net.http - dual "), (size_t)N, "each with its category");
	cr_expect(strstr(cap.lines[N], "records named a call site or category") == NULL, "none unresolved: \"%s\"",
	    cap.lines[N]);
	tl_capture_free(&cap);
}

/* ---- an exited thread's ring file kept for the next thread; a process that exits without close ---- */

static _Atomic int block_writes;

/* A sink that writes nothing and, once block_writes is set, never returns. */
static int
blocks_when_told(void *ctx, sr_log_level level, const char *line, size_t len)
{
	(void)ctx, (void)level, (void)line, (void)len;
	while (block_writes)
		pause();
	return 0;
}

static sr_category *spare_cat;

static void *
first_thread(void *arg)
{
	(void)arg;
	sr_log_thread_name("first");
	for (int i = 0; i < 10; i++)
		SR_INFO(spare_cat, "a %d", i);
	return NULL;
}

/* The spare rings describe's "per-thread rings" line shows, and (reused) how many spares new threads took. */
static long
spare_rings(sr_log *log, long *reused)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	sr_log_describe(log, f);
	fclose(f);
	const char *line = strstr(text, "per-thread rings");
	long live, made, freed, spare = -1, taken = -1;
	if (line == NULL || sscanf(line + strlen("per-thread rings"), " %ld live (%ld made, %ld freed), %ld spare (%ld reused)",
	    &live, &made, &freed, &spare, &taken) != 5)
		spare = -1;
	free(text);
	if (reused != NULL)
		*reused = taken;
	return spare;
}

static size_t
ring_files(const char *dir)
{
	char *names = dir_names(dir);
	size_t n = tl_count_of(names, ".ring");
	free(names);
	return n;
}

Test(log_ring_dir, an_exited_threads_ring_file_carries_on_for_the_next_thread_and_recovers_as_its, .timeout = 60)
{
	char dir[64];
	temp_dir(dir, sizeof dir);
	int ready[2];
	cr_assert_eq(pipe(ready), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		sr_sink_config sink = sr_sink_callback(blocks_when_told, NULL);
		sr_log_config c;
		config_for(&c, dir, SR_LOG_PRODUCER_PER_THREAD, &sink);
		sr_error err;
		sr_log *log = sr_log_open(&c, &err);
		if (log == NULL)
			_exit(3);
		spare_cat = sr_log_category_get(log, "net.http", &err);
		pthread_t th;
		pthread_create(&th, NULL, first_thread, NULL);
		pthread_join(th, NULL);
		sr_log_flush(log);
		/* The first thread's ring, drained, becomes a spare (at the consumer's next look). */
		int64_t deadline = sr_monotonic_ns() + 15 * INT64_C(1000000000);
		long spares_before;
		while ((spares_before = spare_rings(log, NULL)) != 1 && sr_monotonic_ns() < deadline)
			usleep(1000);
		block_writes = 1;
		sr_log_thread_name("second");
		for (int i = 0; i < N; i++)
			SR_INFO(spare_cat, "b %d", i);
		long reused;
		long spares_after = spare_rings(log, &reused);
		char line[64];
		int len = snprintf(line, sizeof line, "%ld %ld %ld %zu\n", spares_before, spares_after, reused,
		    ring_files(dir));
		(void)!write(ready[1], line, (size_t)len);
		for (;;)
			pause();
	}
	close(ready[1]);
	char line[64] = { 0 };
	cr_assert_gt(read(ready[0], line, sizeof line - 1), 0, "the child logged nothing");
	long spares_before = -1, spares_after = -1, reused = -1;
	size_t files = 0;
	cr_assert_eq(sscanf(line, "%ld %ld %ld %zu", &spares_before, &spares_after, &reused, &files), 4, "%s", line);
	cr_expect_eq(spares_before, 1, "the first thread's ring file became a spare");
	cr_expect(spares_after == 0 && reused == 1, "the second thread took the spare (%ld left, %ld reused)",
	    spares_after, reused);
	cr_expect_eq(files, 1u, "one ring file for two threads, one after the other");
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	tl_capture cap;
	sr_sink_config sink;
	sr_log *log = open_on(dir, SR_LOG_PRODUCER_PER_THREAD, &cap, &sink);
	sr_log_close(&log);
	cr_assert_eq(cap.count, (size_t)N + 1, "the second thread's messages and the recovery line: %zu lines", cap.count);
	for (int i = 0; i < N; i++) {
		char want[32];
		snprintf(want, sizeof want, " - b %d ", i);
		cr_expect(strstr(cap.lines[i], want) != NULL && strstr(cap.lines[i], "[second]") != NULL,
		    "line %d: \"%s\"", i, cap.lines[i]);
	}
	tl_capture_free(&cap);
}

Test(log_ring_dir, a_process_that_exits_without_closing_its_logger_leaves_nothing_to_recover)
{
	char dir[64];
	temp_dir(dir, sizeof dir);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		sr_sink_config sink = sr_sink_null();
		sr_log_config c;
		config_for(&c, dir, SR_LOG_PRODUCER_PER_THREAD, &sink);
		c.close_at_exit = true;
		sr_error err;
		sr_log *log = sr_log_open(&c, &err);
		if (log == NULL)
			_exit(3);
		sr_category *root = sr_log_category_get(log, "", &err);
		for (int i = 0; i < N; i++)
			SR_INFO(root, "m %d", i);
		exit(0);
	}
	int st;
	waitpid(pid, &st, 0);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
	char *names = dir_names(dir);
	cr_expect_str_eq(names, "lock", "the exit handler's drain removed the files");
	free(names);
}

/* ---- a filesystem of a few MiB, read-only: root only, in a mount namespace of the test's own ---- */

static bool
private_tmpfs(const char *at, const char *options)
{
	if (geteuid() != 0 || unshare(CLONE_NEWNS) != 0)
		return false;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		return false;
	return mount("tmpfs", at, "tmpfs", 0, options) == 0;
}

Test(log_ring_dir, a_full_filesystem_is_an_error_at_open_never_a_signal)
{
	char dir[64];
	temp_dir(dir, sizeof dir);
	if (!private_tmpfs(dir, "size=3m"))
		cr_skip_test("needs root and mount namespaces");
	tl_setup t;
	sr_log_config *c = tl_setup_begin(&t);
	c->ring_dir = dir;
	c->producer = SR_LOG_PRODUCER_SHARED;
	c->ring_slots = 65536;
	c->slot_size = 128;
	sr_error err = tl_open_refused(c, "a shared ring of 8 MiB on 3 MiB");
	cr_expect_eq(err.code, SR_ESYS);
	cr_expect(strstr(err.message, "cannot reserve") != NULL && strstr(err.message, dir) != NULL, "%s", err.message);
	tl_setup_end(&t);
	umount(dir);
}


static void
second_thread(void *arg)
{
	pthread_t th;
	pthread_create(&th, NULL, log_once, arg);
	pthread_join(th, NULL);
}

Test(log_ring_dir, a_thread_whose_ring_does_not_fit_loses_its_calls_counted_never_a_signal)
{
	char dir[64];
	temp_dir(dir, sizeof dir);
	if (!private_tmpfs(dir, "size=3m"))
		cr_skip_test("needs root and mount namespaces");
	tl_setup t;
	sr_log_config *c = tl_setup_begin(&t);
	c->ring_dir = dir;
	c->thread_ring_slots = 16384; /* 2 MiB a thread (128-byte slots): one fits, two do not */
	sr_log *log = tl_open(c);
	full_cat = sr_log_category_get(log, "", NULL);
	SR_INFO(full_cat, "from the thread whose ring fits");
	char *said = tl_with_stderr(second_thread, NULL);
	cr_expect(strstr(said, "a thread's ring could not be made") != NULL && strstr(said, dir) != NULL, "stderr: %s",
	    said);
	free(said);
	sr_log_flush(log);
	cr_expect_eq(tl_stats(log).dropped, 1u, "the call that found no ring is counted");
	cr_expect_eq(tl_capture_grep(&t.cap, "the thread whose ring fits"), 1u);
	sr_log_close(&log);
	tl_setup_end(&t);
	umount(dir);
}

Test(log_ring_dir, a_read_only_directory_is_an_error_that_names_it)
{
	char dir[64];
	temp_dir(dir, sizeof dir);
	if (!private_tmpfs(dir, "size=1m,mode=0700") || mount(NULL, dir, NULL, MS_REMOUNT | MS_RDONLY, NULL) != 0)
		cr_skip_test("needs root and mount namespaces");
	tl_setup t;
	sr_log_config *c = tl_setup_begin(&t);
	c->ring_dir = dir;
	sr_error err = tl_open_refused(c, "a read-only directory");
	cr_expect_eq(err.code, SR_ESYS);
	cr_expect(strstr(err.message, dir) != NULL && strstr(err.message, "Read-only file system") != NULL, "%s",
	    err.message);
	tl_setup_end(&t);
	umount(dir);
}
