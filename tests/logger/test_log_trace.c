/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_log_trace.c: the ctf: sink, read back by readers nobody here wrote:
 * Debian's babeltrace2 (its text output, parsed here) and python3-bt2
 * (tests/logger/trace_read_bt2.py, run by the tests).  Every event logged
 * is read once, with its fields' values, its thread, its level and its
 * time; a sink's level, drops, a crash, rotation, a renamed thread and a
 * forked child each show in the trace as docs/trace.md says; and the
 * configurations the sink refuses are refused with a message that names
 * them.  Each test is skipped, saying why, where a reader is missing.
 *
 * Most tests log through the same three call sites (log_three_calls), in
 * category "app.trace", from threads named w0, w1, ...: a thread's k-th
 * event is call k % 3 with the number k / 3, so each value the reader
 * prints can be checked.
 */
#include "test_log_support.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <strings.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#ifndef TRACE_READ_BT2_SCRIPT
#error "TRACE_READ_BT2_SCRIPT, the python3-bt2 reader's path, is defined by tests/CMakeLists.txt"
#endif

#define BABELTRACE "babeltrace2"
#define PYTHON_WITH_BT2 "/usr/bin/python3"
#define CATEGORY "app.trace"

enum { N = 2000, THREADS = 4, CALLS = 3 };

/* ---------------------------------------------------------------------------------------- */
/* The readers                                                                              */

static bool
babeltrace_missing(void)
{
	return system(BABELTRACE " --version >/dev/null 2>&1") != 0;
}

static bool
bt2_missing(void)
{
	return access(PYTHON_WITH_BT2, X_OK) != 0 ||
	    system(PYTHON_WITH_BT2 " -c 'import bt2' >/dev/null 2>&1") != 0;
}

#define SKIP_WITHOUT_BABELTRACE()                                                                             \
	do {                                                                                                   \
		if (babeltrace_missing()) {                                                                    \
			cr_skip_test("babeltrace2 is not installed (Debian: apt-get install babeltrace2)");    \
			return;                                                                                \
		}                                                                                              \
	} while (0)

#define SKIP_WITHOUT_BT2()                                                                                    \
	do {                                                                                                   \
		if (bt2_missing()) {                                                                           \
			cr_skip_test(PYTHON_WITH_BT2 " cannot import bt2 (Debian: apt-get install python3-bt2)");  \
			return;                                                                                \
		}                                                                                              \
	} while (0)

/* What a command printed on stdout (malloc'd, NUL-terminated) and its wait status. */
static char *
run_command(const char *command, int *status)
{
	FILE *p = popen(command, "r");
	cr_assert_not_null(p, "popen %s: %s", command, strerror(errno));
	size_t len = 0, cap = 1 << 16;
	char *out = malloc(cap);
	cr_assert_not_null(out);
	size_t got;
	while ((got = fread(out + len, 1, cap - len - 1, p)) > 0) {
		len += got;
		if (cap - len - 1 == 0) {
			cap *= 2;
			out = realloc(out, cap);
			cr_assert_not_null(out);
		}
	}
	out[len] = '\0';
	*status = pclose(p);
	return out;
}

/* One line of babeltrace2's output, as --clock-seconds --fields=loglevel,emf prints it. */
typedef struct bt_event {
	int64_t ns;               /* the event's time: nanoseconds since the epoch */
	int loglevel;             /* the number in "TRACE_INFO (6)" */
	char uri[512];            /* model.emf.uri */
	char name[64];            /* the event class's name: the category */
	unsigned tid;             /* the packet context's */
	char thread[17];
	const char *payload;      /* "{ arg0 = ..., ... }" (points into the line) */
	const char *line;
} bt_event;

/* What babeltrace2 printed for a trace: its events' lines, in its order. */
typedef struct bt_output {
	char *text;
	char **lines;
	size_t count;
	int status;
	char errors[1024];        /* the start of what it said on stderr */
} bt_output;

/* Runs babeltrace2 on dir; the lines that are events ("[...") are kept. */
static bt_output
babeltrace(const char *dir)
{
	bt_output o = { 0 };
	char err_path[96], command[512];
	tl_temp_path(err_path, sizeof err_path, "babeltrace_err");
	snprintf(command, sizeof command, BABELTRACE " --clock-seconds --fields=loglevel,emf '%s' 2>%s", dir,
	    err_path);
	o.text = run_command(command, &o.status);
	char *err = tl_read_file(err_path, NULL);
	snprintf(o.errors, sizeof o.errors, "%s", err != NULL ? err : "");
	free(err);
	unlink(err_path);
	size_t cap = 1024;
	o.lines = malloc(cap * sizeof *o.lines);
	for (char *line = o.text; *line != '\0';) {
		char *end = strchr(line, '\n');
		if (end != NULL)
			*end = '\0';
		if (line[0] == '[') {
			if (o.count == cap) {
				cap *= 2;
				o.lines = realloc(o.lines, cap * sizeof *o.lines);
			}
			o.lines[o.count++] = line;
		}
		if (end == NULL)
			break;
		line = end + 1;
	}
	return o;
}

static void
bt_output_free(bt_output *o)
{
	free(o->lines);
	free(o->text);
}

/* Reads one event line; the test fails on a line of another shape. */
static bt_event
bt_parse(const char *line)
{
	bt_event e = { .line = line };
	long long sec;
	char frac[16];
	cr_assert_eq(sscanf(line, "[%lld.%9[0-9]]", &sec, frac), 2, "no time: \"%s\"", line);
	cr_assert_eq(strlen(frac), 9u, "a time with nanoseconds: \"%s\"", line);
	e.ns = (int64_t)sec * 1000000000 + atoll(frac);
	const char *p = strstr(line, ") ");             /* after "(+delta)" */
	cr_assert_not_null(p, "\"%s\"", line);
	p += 2;
	const char *open = strchr(p, '(');
	cr_assert(open != NULL && sscanf(open, "(%d):", &e.loglevel) == 1, "a log level: \"%s\"", line);
	const char *uri = strstr(open, "):") + 2;
	const char *space = strchr(uri, ' ');
	cr_assert_not_null(space, "\"%s\"", line);
	snprintf(e.uri, sizeof e.uri, "%.*s", (int)(space - uri), uri);
	const char *colon = strstr(space + 1, ": { ");
	cr_assert_not_null(colon, "an event name: \"%s\"", line);
	snprintf(e.name, sizeof e.name, "%.*s", (int)(colon - space - 1), space + 1);
	cr_assert_eq(sscanf(colon, ": { tid = %u, thread_name = \"%16[^\"]\" }", &e.tid, e.thread), 2,
	    "a packet context with tid and thread_name: \"%s\"", line);
	e.payload = strstr(colon, " }, { ");
	cr_assert_not_null(e.payload, "a payload: \"%s\"", line);
	e.payload += 4;
	return e;
}

/* The text of the payload field `key` (a string's without its quotes), into buf; NULL when absent. */
static const char *
bt_field(const bt_event *e, const char *key, char *buf, size_t size)
{
	char want[64];
	snprintf(want, sizeof want, " %s = ", key);
	const char *p = strstr(e->payload, want);
	if (p == NULL)
		return NULL;
	p += strlen(want);
	size_t n;
	if (*p == '"') {
		p++;
		n = strcspn(p, "\"");
	} else {
		n = strcspn(p, ", }");
	}
	snprintf(buf, size, "%.*s", (int)n, p);
	return buf;
}

static long long
bt_int(const bt_event *e, const char *key)
{
	char buf[64];
	cr_assert_not_null(bt_field(e, key, buf, sizeof buf), "no %s in \"%s\"", key, e->line);
	return strtoll(buf, NULL, 0);
}

static unsigned long long
bt_uint(const bt_event *e, const char *key)
{
	char buf[64];
	cr_assert_not_null(bt_field(e, key, buf, sizeof buf), "no %s in \"%s\"", key, e->line);
	return strtoull(buf, NULL, 0);
}

/* ---------------------------------------------------------------------------------------- */
/* Directories                                                                              */

static int
remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

/* A fresh directory for a test's traces; its path ends without '/'. */
static char *
make_temp_dir(char *buf, size_t size)
{
	snprintf(buf, size, "/tmp/test_log_trace.XXXXXX");
	cr_assert_not_null(mkdtemp(buf), "mkdtemp: %s", strerror(errno));
	return buf;
}

/* Removes dir and everything in it (kept when KEEP_TEST_DIR is set, to look at a failure). */
static void
remove_temp_dir(const char *dir)
{
	if (getenv("KEEP_TEST_DIR") == NULL)
		(void)nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static bool
exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* ---------------------------------------------------------------------------------------- */
/* The three call sites and the threads that call them                                      */

static unsigned long
warn_lx(int i)
{
	return (unsigned long)i * 0x100000001ul;
}

static uintptr_t
warn_pointer(int i)
{
	return 0x7f0000001000u + (uintptr_t)i * 16u;
}

static int
error_errno(int i)
{
	return 1 + i % 100;
}

/*
 * The thread's i-th round: its events 3i, 3i+1, 3i+2.  Their classes' uris
 * carry the calls' lines, THREE_CALLS_AT + 6, + 7 and + 9 (checked in
 * processes that never ran the calls: a crashed child's parent).  (%m is
 * glibc's, which -Wpedantic reports as not ISO C.)
 */
enum { THREE_CALLS_AT = __LINE__ };
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat"
static void
log_three_calls(sr_category *c, int i)
{
	SR_INFO(c, "x=%d y=%f s=%s", i, i * 0.5, "sixteen-chars-ab");
	SR_WARN(c, "u=%u lx=%lx p=%p n=%s", (unsigned)i * 7u, warn_lx(i), (void *)warn_pointer(i), (const char *)NULL);
	errno = error_errno(i);
	SR_ERROR(c, "e=%m c=%c", 'a' + i % 26);
}
enum { INFO_LINE = THREE_CALLS_AT + 6, WARN_LINE = THREE_CALLS_AT + 7, ERROR_LINE = THREE_CALLS_AT + 9 };
#pragma GCC diagnostic pop

typedef struct worker {
	sr_log *log;
	int id;
	int rounds;
	unsigned tid;             /* the thread's id, as the trace should carry it */
	pthread_t thread;
} worker;

static void *
worker_main(void *arg)
{
	worker *w = arg;
	w->tid = (unsigned)syscall(SYS_gettid);
	tl_thread_name("w", w->id);
	sr_category *c = sr_log_category(w->log, CATEGORY);
	for (int i = 0; i < w->rounds; i++)
		log_three_calls(c, i);
	return NULL;
}

/* THREADS threads w0..w(THREADS-1) each log `rounds` rounds through log; they are joined. */
static void
run_workers(sr_log *log, worker *w, int rounds)
{
	for (int t = 0; t < THREADS; t++) {
		w[t] = (worker){ .log = log, .id = t, .rounds = rounds };
		cr_assert_eq(pthread_create(&w[t].thread, NULL, worker_main, &w[t]), 0);
	}
	for (int t = 0; t < THREADS; t++)
		pthread_join(w[t].thread, NULL);
}

/* A logger on these sinks, the environment ignored, the default mode and producer (ring, per thread). */
static sr_log *
open_with(sr_sink_config *sinks, int count)
{
	sr_log_config c;
	sr_log_config_default(&c);
	c.ignore_environment = true;
	c.close_at_exit = false;
	c.sinks = sinks;
	c.sink_count = count;
	return tl_open(&c);
}

/* The trace every event test reads: THREADS threads of N rounds into dir/trace (and dir/text.log). */
static void
write_the_workers_trace(const char *dir, char *trace, size_t trace_size, char *text, size_t text_size, worker *w)
{
	snprintf(trace, trace_size, "%s/trace", dir);
	snprintf(text, text_size, "%s/text.log", dir);
	sr_sink_config sinks[2] = { sr_sink_ctf(trace), sr_sink_file(text) };
	sr_log *log = open_with(sinks, 2);
	run_workers(log, w, N);
	sr_log_counters st = tl_flush_stats_close(&log);
	cr_assert_eq(st.written, (uint64_t)CALLS * N * THREADS, "the logger wrote %" PRIu64 " messages", st.written);
	cr_assert_eq(st.dropped, 0u);
}

/* Which worker made event e (by its thread's name "wT"); -1 for none. */
static int
worker_of(const bt_event *e)
{
	int t;
	char extra;
	if (sscanf(e->thread, "w%d%c", &t, &extra) != 1 || t < 0 || t >= THREADS)
		return -1;
	return t;
}

/* Checks that e, the k-th event of its thread, is that thread's call k % 3 of round k / 3, field by field. */
static void
expect_kth_event(const bt_event *e, int k)
{
	int i = k / CALLS;
	char buf[128], uri_line[64];
	cr_assert_str_eq(e->name, CATEGORY, "the event's name is its category: \"%s\"", e->line);
	switch (k % CALLS) {
	case 0:
		cr_assert_eq(e->loglevel, 6, "event %d of %s is an info (6): \"%s\"", k, e->thread, e->line);
		snprintf(uri_line, sizeof uri_line, "&line=%d&", INFO_LINE);
		cr_assert(strncmp(e->uri, "seqring:message?level=info&category=" CATEGORY "&", 37 + strlen(CATEGORY)) == 0 &&
		    strstr(e->uri, uri_line) != NULL && strstr(e->uri, "&format=x%3D%25d%20y%3D%25f%20s%3D%25s") != NULL,
		    "the info call's uri: %s", e->uri);
		cr_assert_eq(bt_int(e, "arg0"), i, "x, in order: \"%s\" (expected %d)", e->line, i);
		cr_assert_eq(strtod(bt_field(e, "arg1", buf, sizeof buf), NULL), i * 0.5, "y: \"%s\"", e->line);
		cr_assert_eq(bt_uint(e, "arg2_length"), 16u, "\"%s\"", e->line);
		cr_assert_str_eq(bt_field(e, "arg2", buf, sizeof buf), "sixteen-chars-ab", "\"%s\"", e->line);
		break;
	case 1:
		cr_assert_eq(e->loglevel, 4, "event %d of %s is a warning (4): \"%s\"", k, e->thread, e->line);
		snprintf(uri_line, sizeof uri_line, "&line=%d&", WARN_LINE);
		cr_assert(strncmp(e->uri, "seqring:message?level=warn&", 27) == 0 && strstr(e->uri, uri_line) != NULL &&
		    strstr(e->uri, "&format=u%3D%25u%20lx%3D%25lx%20p%3D%25p%20n%3D%25s") != NULL,
		    "the warn call's uri: %s", e->uri);
		cr_assert_eq(bt_uint(e, "arg0"), (unsigned)i * 7u, "u: \"%s\"", e->line);
		cr_assert_eq(bt_uint(e, "arg1"), (unsigned long long)warn_lx(i), "lx: \"%s\"", e->line);
		snprintf(uri_line, sizeof uri_line, "0x%" PRIxPTR, warn_pointer(i));
		cr_assert(strcasecmp(bt_field(e, "arg2", buf, sizeof buf), uri_line) == 0, "p, in base 16 (%s): \"%s\"",
		    uri_line, e->line);
		cr_assert_eq(bt_uint(e, "arg3_length"), 4294967295u, "a NULL string's length: \"%s\"", e->line);
		cr_assert_str_eq(bt_field(e, "arg3", buf, sizeof buf), "", "a NULL string is empty: \"%s\"", e->line);
		break;
	default:
		cr_assert_eq(e->loglevel, 3, "event %d of %s is an error (3): \"%s\"", k, e->thread, e->line);
		snprintf(uri_line, sizeof uri_line, "&line=%d&", ERROR_LINE);
		cr_assert(strncmp(e->uri, "seqring:message?level=error&", 28) == 0 && strstr(e->uri, uri_line) != NULL &&
		    strstr(e->uri, "&format=e%3D%25m%20c%3D%25c") != NULL, "the error call's uri: %s", e->uri);
		cr_assert_eq(bt_int(e, "errno"), error_errno(i), "errno: \"%s\"", e->line);
		cr_assert_eq(bt_int(e, "arg0"), 'a' + i % 26, "c, as its integer: \"%s\"", e->line);
		break;
	}
}

/* The times the text sink printed, per worker, in the order of its lines (ns, to the microsecond). */
typedef struct text_times {
	int64_t *at[THREADS];
	int count[THREADS];
} text_times;

static text_times
read_text_times(const char *path, int per_thread)
{
	text_times tt = { 0 };
	for (int t = 0; t < THREADS; t++)
		tt.at[t] = calloc((size_t)per_thread, sizeof *tt.at[t]);
	char *text = tl_read_file(path, NULL);
	cr_assert_not_null(text, "%s", path);
	for (char *line = text, *end; *line != '\0'; line = end + 1) {
		end = strchr(line, '\n');
		cr_assert_not_null(end, "the text file ends with a whole line");
		*end = '\0';
		const char *name = strstr(line, " [w");
		int t;
		if (name == NULL || sscanf(name, " [w%d]", &t) != 1 || t < 0 || t >= THREADS)
			continue;
		cr_assert_lt(tt.count[t], per_thread, "more lines of w%d than it logged", t);
		tt.at[t][tt.count[t]++] = tl_text_line_time(line);
	}
	free(text);
	return tt;
}

static void
text_times_free(text_times *tt)
{
	for (int t = 0; t < THREADS; t++)
		free(tt->at[t]);
}

/* ---------------------------------------------------------------------------------------- */
/* Every event, read by babeltrace2 and by python3-bt2                                      */

Test(log_trace, babeltrace2_reads_every_event_with_its_thread_fields_and_the_text_sinks_time, .timeout = 60)
{
	SKIP_WITHOUT_BABELTRACE();
	char dir[64], trace[96], text[96];
	worker w[THREADS];
	make_temp_dir(dir, sizeof dir);
	write_the_workers_trace(dir, trace, sizeof trace, text, sizeof text, w);
	bt_output o = babeltrace(trace);
	cr_assert_eq(o.status, 0, "babeltrace2 exited with status %d: %s", o.status, o.errors);
	cr_assert_eq(o.count, (size_t)CALLS * N * THREADS, "babeltrace2 printed %zu events, expected %d", o.count,
	    CALLS * N * THREADS);
	text_times tt = read_text_times(text, CALLS * N);
	int seen[THREADS] = { 0 };
	int64_t last_ns = 0;
	for (size_t j = 0; j < o.count; j++) {
		bt_event e = bt_parse(o.lines[j]);
		int t = worker_of(&e);
		cr_assert_geq(t, 0, "a thread the test did not start: \"%s\"", e.line);
		cr_assert_eq(e.tid, w[t].tid, "w%d's events carry its tid %u: \"%s\"", t, w[t].tid, e.line);
		cr_assert_lt(seen[t], CALLS * N, "more events of w%d than it logged", t);
		int k = seen[t]++;
		expect_kth_event(&e, k);
		cr_assert_geq(e.ns, last_ns, "babeltrace2 orders events by time: \"%s\"", e.line);
		last_ns = e.ns;
		/* The same record's line in the text file: its thread's k-th. */
		cr_assert_lt(k, tt.count[t], "the text file has %d lines of w%d", tt.count[t], t);
		cr_assert_eq(e.ns / 1000, tt.at[t][k] / 1000,
		    "event %d of w%d: the trace's time %" PRId64 " ns is not the text's %" PRId64 " ns to the microsecond",
		    k, t, e.ns, tt.at[t][k]);
	}
	for (int t = 0; t < THREADS; t++)
		cr_expect_eq(seen[t], CALLS * N, "w%d: %d events", t, seen[t]);
	text_times_free(&tt);
	bt_output_free(&o);
	remove_temp_dir(dir);
}

/*
 * Key-value fields: each a typed field babeltrace2 names kv_KEY after the
 * arguments, and the decoder writes the line the text sink wrote, fields
 * and all.
 */
Test(log_trace, key_value_fields_are_typed_fields_and_decode_to_the_text_sinks_lines, .timeout = 60)
{
	SKIP_WITHOUT_BABELTRACE();
	char dir[64], trace[96], text[96], decoded[112];
	make_temp_dir(dir, sizeof dir);
	snprintf(trace, sizeof trace, "%s/trace", dir);
	snprintf(text, sizeof text, "%s/text.log", dir);
	snprintf(decoded, sizeof decoded, "%s/decoded.log", dir);
	sr_sink_config sinks[2] = { sr_sink_ctf(trace), sr_sink_file(text) };
	sr_log *log = open_with(sinks, 2);
	sr_category *cat = sr_log_category(log, CATEGORY);
	tl_thread_name("w", 0);
	enum { FILLS = 3 };
	for (int i = 0; i < FILLS; i++)
		SR_INFO(cat, "order filled %d", i, SR_KV("order", 42 + i), SR_KV("venue", "XNYS"), SR_KV("px", -7));
	SR_WARN(cat, "fields alone", SR_KV("why", "a b\"c"));
	sr_log_close(&log);

	bt_output o = babeltrace(trace);
	cr_assert_eq(o.status, 0, "babeltrace2: status %d: %s", o.status, o.errors);
	cr_assert_eq(o.count, (size_t)FILLS + 1, "%zu events, expected %d", o.count, FILLS + 1);
	char buf[64];
	for (size_t j = 0; j < FILLS; j++) {
		bt_event e = bt_parse(o.lines[j]);
		cr_expect_eq(bt_int(&e, "arg0"), (long long)j, "\"%s\"", e.line);
		cr_expect_eq(bt_int(&e, "kv_order"), 42 + (long long)j, "\"%s\"", e.line);
		cr_expect_eq(bt_int(&e, "kv_px"), -7, "\"%s\"", e.line);
		cr_expect_str_eq(bt_field(&e, "kv_venue", buf, sizeof buf), "XNYS", "\"%s\"", e.line);
		cr_expect_not_null(strstr(e.uri, "fields="), "the class's URI names its fields: %s", e.uri);
	}
	bt_event alone = bt_parse(o.lines[FILLS]);
	cr_expect_str_eq(bt_field(&alone, "kv_why", buf, sizeof buf), "a b\\", "\"%s\"", alone.line);
	bt_output_free(&o);

	/* The decoder into a file sink: byte for byte the text sink's file. */
	sr_sink_config out = sr_sink_file(decoded);
	sr_log_config c;
	sr_log_config_default(&c);
	c.ignore_environment = true;
	c.close_at_exit = false;
	c.sinks = &out;
	c.sink_count = 1;
	c.mode = SR_LOG_MODE_SYNC;
	c.level = SR_LOG_TRACE;
	sr_log *into = tl_open(&c);
	sr_trace_decode_report report = { 0 };
	sr_error err = { 0 };
	int rc = sr_log_decode_trace(into, trace, NULL, &report, &err);
	sr_log_close(&into);
	cr_assert_eq(rc, SR_OK, "decode: %s", err.message);
	cr_expect_eq(report.events, (uint64_t)FILLS + 1, "%llu events decoded", (unsigned long long)report.events);
	char *want = tl_read_file(text, NULL), *got = tl_read_file(decoded, NULL);
	cr_assert(want != NULL && got != NULL);
	cr_expect_not_null(strstr(want, "order=42 venue=XNYS px=-7"), "the text sink's fields: %s", want);
	cr_expect_str_eq(got, want, "the decoded lines are the text sink's");
	free(want);
	free(got);
	remove_temp_dir(dir);
}

/* One call site again and again: the consumer's run of one class into one open packet. */
Test(log_trace, a_run_of_one_call_reads_back_in_order_with_the_text_sinks_time, .timeout = 60)
{
	SKIP_WITHOUT_BABELTRACE();
	char dir[64], trace[96], text[96];
	make_temp_dir(dir, sizeof dir);
	snprintf(trace, sizeof trace, "%s/trace", dir);
	snprintf(text, sizeof text, "%s/text.log", dir);
	sr_sink_config sinks[2] = { sr_sink_ctf(trace), sr_sink_file(text) };
	sr_log *log = open_with(sinks, 2);
	sr_category *cat = sr_log_category(log, CATEGORY);
	tl_thread_name("w", 0);
	enum { RUN = 3 * N };
	for (int i = 0; i < RUN; i++)
		SR_INFO(cat, "run %d of %s", i, "one call");
	sr_log_close(&log);
	bt_output o = babeltrace(trace);
	cr_assert_eq(o.status, 0, "babeltrace2: status %d: %s", o.status, o.errors);
	cr_assert_eq(o.count, (size_t)RUN, "%zu events, expected %d", o.count, RUN);
	text_times tt = read_text_times(text, RUN);
	cr_assert_eq(tt.count[0], RUN, "%d lines of w0 in the text file", tt.count[0]);
	char buf[64];
	for (size_t j = 0; j < o.count; j++) {
		bt_event e = bt_parse(o.lines[j]);
		cr_assert_eq(bt_int(&e, "arg0"), (long long)j, "in order: \"%s\"", e.line);
		cr_assert_str_eq(bt_field(&e, "arg1", buf, sizeof buf), "one call", "\"%s\"", e.line);
		cr_assert_str_eq(e.thread, "w0", "\"%s\"", e.line);
		cr_assert_eq(e.ns / 1000, tt.at[0][j] / 1000,
		    "event %zu: the trace's time %" PRId64 " ns is not the text's %" PRId64 " ns to the microsecond", j, e.ns,
		    tt.at[0][j]);
	}
	text_times_free(&tt);
	bt_output_free(&o);
	remove_temp_dir(dir);
}

Test(log_trace, python_bt2_reads_every_event_class_level_uri_field_class_and_value, .timeout = 60)
{
	SKIP_WITHOUT_BT2();
	char dir[64], trace[96], text[96];
	worker w[THREADS];
	make_temp_dir(dir, sizeof dir);
	write_the_workers_trace(dir, trace, sizeof trace, text, sizeof text, w);
	char command[512];
	snprintf(command, sizeof command, PYTHON_WITH_BT2 " '%s' '%s' %d %d 2>&1", TRACE_READ_BT2_SCRIPT, trace, N,
	    THREADS);
	int status;
	char *out = run_command(command, &status);
	cr_assert_eq(status, 0, "%s: status %d:\n%s", command, status, out);
	char want[160];
	snprintf(want, sizeof want, "events=%d threads=%d info=%d warn=%d error=%d discarded=0\n", CALLS * N * THREADS,
	    THREADS, N * THREADS, N * THREADS, N * THREADS);
	cr_expect_str_eq(out, want, "the script's summary");
	free(out);
	remove_temp_dir(dir);
}

/* ---------------------------------------------------------------------------------------- */
/* A sink's level                                                                           */

Test(log_trace, a_sink_level_from_the_environment_keeps_only_the_warnings_and_errors, .timeout = 30)
{
	SKIP_WITHOUT_BABELTRACE();
	char dir[64], trace[96], text[96], spec[256];
	make_temp_dir(dir, sizeof dir);
	snprintf(trace, sizeof trace, "%s/trace", dir);
	snprintf(text, sizeof text, "%s/text.log", dir);
	/* A file sink beside it takes the infos, so that they reach the consumer and the ctf sink's own level. */
	snprintf(spec, sizeof spec, "ctf:%s,level=warn;file:%s", trace, text);
	tl_clear_env();
	setenv("SEQRING_LOG_SINK", spec, 1);
	sr_log_config c;
	sr_log_config_default(&c);
	c.close_at_exit = false;
	sr_log *log = tl_open(&c);
	unsetenv("SEQRING_LOG_SINK");
	sr_category *cat = sr_log_category(log, CATEGORY);
	tl_thread_name("w", 0);
	enum { ROUNDS = 50 };
	for (int i = 0; i < ROUNDS; i++)
		log_three_calls(cat, i);
	sr_log_close(&log);
	cr_assert_eq(tl_count_lines(text, " INFO "), (size_t)ROUNDS, "the file sink has the infos");
	bt_output o = babeltrace(trace);
	cr_assert_eq(o.status, 0, "babeltrace2: status %d: %s", o.status, o.errors);
	cr_assert_eq(o.count, (size_t)2 * ROUNDS, "%zu events, expected the %d warnings and %d errors", o.count, ROUNDS,
	    ROUNDS);
	for (size_t j = 0; j < o.count; j++) {
		bt_event e = bt_parse(o.lines[j]);
		/* The k-th of all three calls is the (j + j / 2 + 1)-th: every info was left out. */
		expect_kth_event(&e, (int)(j + j / 2 + 1));
	}
	bt_output_free(&o);
	remove_temp_dir(dir);
}

/* ---------------------------------------------------------------------------------------- */
/* Drops                                                                                    */

/* The events_discarded of the last packet of each stream file in trace, summed (docs/trace.md's layout). */
static uint64_t
discarded_in_packet_heads(const char *trace, int *streams)
{
	DIR *d = opendir(trace);
	cr_assert_not_null(d, "opendir %s: %s", trace, strerror(errno));
	uint64_t sum = 0;
	*streams = 0;
	for (struct dirent *entry; (entry = readdir(d)) != NULL;) {
		if (strncmp(entry->d_name, "stream-", 7) != 0)
			continue;
		char path[PATH_MAX];
		cr_assert_lt((size_t)snprintf(path, sizeof path, "%s/%s", trace, entry->d_name), sizeof path);
		size_t len;
		char *bytes = tl_read_file(path, &len);
		cr_assert_not_null(bytes, "%s", path);
		uint64_t last = 0;
		for (size_t at = 0; at + 100 <= len;) {
			uint32_t magic;
			uint64_t packet_bits;
			memcpy(&magic, bytes + at, 4);
			cr_assert_eq(magic, 0xC1FC1FC1u, "%s: a packet at byte %zu", path, at);
			memcpy(&packet_bits, bytes + at + 56, 8);
			memcpy(&last, bytes + at + 72, 8);
			cr_assert(packet_bits >= 800 && packet_bits % 8 == 0, "%s: packet_size %" PRIu64, path, packet_bits);
			at += packet_bits / 8;
		}
		sum += last;
		(*streams)++;
		free(bytes);
	}
	closedir(d);
	return sum;
}

/*
 * A trace with drops: one thread logs ROUNDS rounds into a ring of 32
 * slots, policy drop, while the consumer is held in a second sink on the
 * first call; into dir/trace.  Returns the logger's counters.
 */
static sr_log_counters
write_a_trace_with_drops(const char *dir, char *trace, size_t trace_size)
{
	snprintf(trace, trace_size, "%s/trace", dir);
	tl_capture held;
	tl_capture_init(&held);
	sr_sink_config sinks[2] = { sr_sink_ctf(trace), tl_capture_sink(&held) };
	sr_log_config c;
	sr_log_config_default(&c);
	c.ignore_environment = true;
	c.close_at_exit = false;
	c.full_policy = SR_LOG_FULL_DROP;
	c.thread_ring_slots = 32;  /* the least that holds a record of max_message_bytes */
	c.sinks = sinks;
	c.sink_count = 2;
	sr_log *log = tl_open(&c);
	sr_category *cat = sr_log_category(log, CATEGORY);
	tl_thread_name("w", 0);
	/* The consumer takes the first call and stays in the held sink: the 32 slots fill, the rest is dropped. */
	tl_capture_pause(&held);
	enum { ROUNDS = 300 };
	log_three_calls(cat, 0);
	tl_capture_wait_stuck(&held);
	for (int i = 1; i < ROUNDS; i++)
		log_three_calls(cat, i);
	tl_capture_resume(&held);
	sr_log_counters st = tl_flush_stats_close(&log);
	tl_capture_free(&held);
	cr_assert_gt(st.dropped, 0u, "nothing was dropped: the test did not fill the ring");
	cr_assert_lt(st.dropped, (uint64_t)CALLS * ROUNDS, "everything was dropped");
	return st;
}

/* What trace_read_bt2.py --drops read in trace. */
typedef struct bt2_drops {
	unsigned long long events, discarded, uncounted, reports, reported;
} bt2_drops;

static bt2_drops
bt2_read_drops(const char *trace)
{
	char command[512];
	snprintf(command, sizeof command, PYTHON_WITH_BT2 " '%s' --drops '%s' 2>&1", TRACE_READ_BT2_SCRIPT, trace);
	int status;
	char *out = run_command(command, &status);
	cr_assert_eq(status, 0, "%s: status %d:\n%s", command, status, out);
	bt2_drops d;
	cr_assert_eq(sscanf(out, "events=%llu discarded=%llu uncounted=%llu reports=%llu reported=%llu", &d.events,
	    &d.discarded, &d.uncounted, &d.reports, &d.reported), 5, "the script's summary: %s", out);
	free(out);
	return d;
}

Test(log_trace, the_drops_of_a_full_ring_are_in_the_packets_and_the_drop_report_is_an_event, .timeout = 60)
{
	SKIP_WITHOUT_BT2();
	char dir[64], trace[96];
	make_temp_dir(dir, sizeof dir);
	sr_log_counters st = write_a_trace_with_drops(dir, trace, sizeof trace);
	int streams;
	uint64_t discarded = discarded_in_packet_heads(trace, &streams);
	cr_expect_eq(discarded, st.dropped,
	    "the last packets of the %d streams carry %" PRIu64 " discarded events; the logger dropped %" PRIu64, streams,
	    discarded, st.dropped);
	bt2_drops d = bt2_read_drops(trace);
	cr_expect_eq(d.events, st.written + 1, "%llu events: every message written (%" PRIu64 ") and the drop report",
	    d.events, st.written);
	cr_expect_eq(d.reports, 1u, "%llu drop reports, events named seqring of a seqring:text? uri", d.reports);
	cr_expect_eq(d.reported, st.dropped, "the report says %llu were dropped; the logger counted %" PRIu64,
	    d.reported, st.dropped);
	cr_expect_gt(d.discarded + d.uncounted, 0u, "bt2 reports discarded events");
	remove_temp_dir(dir);
}

Test(log_trace, bt2_counts_the_dropped_events, .timeout = 60)
{
	SKIP_WITHOUT_BT2();
	char dir[64], trace[96];
	make_temp_dir(dir, sizeof dir);
	sr_log_counters st = write_a_trace_with_drops(dir, trace, sizeof trace);
	bt2_drops d = bt2_read_drops(trace);
	cr_expect(d.discarded == st.dropped && d.uncounted == 0,
	    "bt2 counts %llu discarded events, and %llu discarded-events messages without a count; the logger dropped "
	    "%" PRIu64 " (a count a stream's first packet carries has no earlier packet to count from)", d.discarded,
	    d.uncounted, st.dropped);
	remove_temp_dir(dir);
}

/* ---------------------------------------------------------------------------------------- */
/* A crash                                                                                  */

/* A volatile pointer: the compiler cannot see (or warn about) where it points. */
static int *volatile wild_pointer = (int *)(uintptr_t)16;

enum { CRASH_ROUNDS = 1000 };

static int
stuck_sink(void *ctx, sr_log_level level, const char *line, size_t len)
{
	(void)ctx, (void)level;
	if (len >= 5 && memmem(line, len, "stuck", 5) != NULL)
		for (;;)
			pause();
	return 0;
}

/* The child: logs CRASH_ROUNDS rounds into trace with the crash handler installed, then faults.  Never returns. */
static void
crashing_child(const char *trace, bool consumer_stuck)
{
	alarm(20);
	int devnull = open("/dev/null", O_WRONLY);
	dup2(devnull, 2);
	sr_sink_config sinks[2];
	int n = 0;
	if (consumer_stuck)
		sinks[n++] = sr_sink_callback(stuck_sink, NULL);
	sinks[n++] = sr_sink_ctf(trace);
	sr_log_config c;
	sr_log_config_default(&c);
	c.ignore_environment = true;
	c.crash_handler = true;
	c.thread_ring_slots = 16384;
	c.sinks = sinks;
	c.sink_count = n;
	sr_log *log = sr_log_open(&c, NULL);
	if (log == NULL)
		_exit(99);
	sr_category *cat = sr_log_category(log, CATEGORY);
	tl_thread_name("w", 0);
	for (int i = 0; i < CRASH_ROUNDS; i++) {
		log_three_calls(cat, i);
		if (consumer_stuck && i == CRASH_ROUNDS / 3)
			SR_INFO(sr_log_category(log, "other"), "stuck");
	}
	*wild_pointer = 1;
	_exit(98);
}

static void
expect_died_of_sigsegv(int status)
{
#if defined(__SANITIZE_ADDRESS__)
	/* ASan's own SEGV handler (which the crash handler chains to) reports and exits 1. */
	if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
		return;
#endif
	cr_expect(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV, "the child's status 0x%x (exited %d, signal %d)",
	    status, WIFEXITED(status) ? WEXITSTATUS(status) : -1, WIFSIGNALED(status) ? WTERMSIG(status) : -1);
}

static void
every_event_survives_a_crash(bool consumer_stuck)
{
	SKIP_WITHOUT_BABELTRACE();
	char dir[64], trace[96];
	make_temp_dir(dir, sizeof dir);
	snprintf(trace, sizeof trace, "%s/trace", dir);
	fflush(NULL);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0)
		crashing_child(trace, consumer_stuck);
	int status;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	expect_died_of_sigsegv(status);
	bt_output o = babeltrace(trace);
	cr_assert_eq(o.status, 0, "babeltrace2 on the crashed child's trace: status %d: %s", o.status, o.errors);
	int k = 0;
	for (size_t j = 0; j < o.count; j++) {
		bt_event e = bt_parse(o.lines[j]);
		if (strcmp(e.name, "other") == 0)
			continue;  /* the call that holds the consumer */
		cr_assert_lt(k, CALLS * CRASH_ROUNDS, "more events than the child logged: \"%s\"", e.line);
		expect_kth_event(&e, k++);
	}
	cr_expect_eq(k, CALLS * CRASH_ROUNDS, "%d of the %d events logged before the crash are in the trace", k,
	    CALLS * CRASH_ROUNDS);
	bt_output_free(&o);
	remove_temp_dir(dir);
}

Test(log_trace, every_event_logged_before_a_crash_is_in_the_trace_once, .timeout = 60)
{
	every_event_survives_a_crash(false);
}

Test(log_trace, a_crash_with_the_consumer_stuck_in_a_sink_leaves_every_event_in_the_trace_once, .timeout = 60)
{
	every_event_survives_a_crash(true);
}

/* ---------------------------------------------------------------------------------------- */
/* What the sink refuses                                                                    */

static void
expect_refused(const sr_log_config *c, int code, const char *case_name, const char *const *wanted)
{
	sr_error err = tl_open_refused(c, "%s", case_name);
	cr_expect_eq(err.code, code, "%s: code %d (expected %d): %s", case_name, err.code, code, err.message);
	for (; *wanted != NULL; wanted++)
		cr_expect(strstr(err.message, *wanted) != NULL, "%s: the message lacks \"%s\": %s", case_name, *wanted,
		    err.message);
}

static void
config_with(sr_log_config *c, sr_sink_config *sink)
{
	sr_log_config_default(c);
	c->ignore_environment = true;
	c->close_at_exit = false;
	c->sinks = sink;
	c->sink_count = 1;
}

Test(log_trace, a_directory_a_live_logger_writes_is_refused)
{
	char dir[64], trace[96];
	make_temp_dir(dir, sizeof dir);
	snprintf(trace, sizeof trace, "%s/trace", dir);
	sr_sink_config sink = sr_sink_ctf(trace);
	sr_log_config c;
	config_with(&c, &sink);
	sr_log *log = tl_open(&c);
	expect_refused(&c, SR_ESTATE, "a second writer of a live trace",
	    (const char *[]){ "config.sinks[0]", trace, "is the trace of a live logger", NULL });
	sr_log_close(&log);
	remove_temp_dir(dir);
}

/*
 * Appends the first n bytes of path to itself: a packet (or a declaration) cut
 * short, as a kill leaves one. A stream's copy stops before the end of its
 * first packet: a whole packet copied would be one a kill cannot leave (an
 * earlier packet again, out of order), not one cut short.
 */
static void
append_own_head(const char *path, size_t n, bool stream)
{
	size_t len = 0;
	char *bytes = tl_read_file(path, &len);
	cr_assert_not_null(bytes, "read %s", path);
	if (stream) {
		uint64_t content_bits = 0;
		cr_assert_geq(len, 56, "%s holds a packet's head", path);
		memcpy(&content_bits, bytes + 48, sizeof content_bits); /* content_size, docs/trace.md */
		if (n >= content_bits / 8)
			n = content_bits / 8 - 1;
	}
	FILE *f = fopen(path, "a");
	cr_assert_not_null(f, "open %s: %s", path, strerror(errno));
	fwrite(bytes, 1, n < len ? n : len, f);
	fclose(f);
	free(bytes);
}

Test(log_trace, the_previous_runs_trace_is_kept_aside_and_trimmed_readable)
{
	if (babeltrace_missing())
		cr_skip_test("babeltrace2 is not installed (apt-get install babeltrace2)");
	char dir[64], trace[96], kept[112], path[400];
	make_temp_dir(dir, sizeof dir);
	snprintf(trace, sizeof trace, "%s/trace", dir);
	snprintf(kept, sizeof kept, "%s.1", trace);
	sr_sink_config sink = sr_sink_ctf(trace);
	sr_log_config c;
	config_with(&c, &sink);
	sr_log *log = tl_open(&c);
	sr_category *cat = sr_log_category(log, "app");
	for (int i = 0; i < 10; i++)
		SR_INFO(cat, "first run %d", i);
	sr_log_close(&log);
	/* What a kill in the middle of two writes leaves: a stream and the metadata cut short. */
	DIR *d = opendir(trace);
	cr_assert_not_null(d);
	for (struct dirent *e; (e = readdir(d)) != NULL;) {
		if (strncmp(e->d_name, "stream-", 7) != 0)
			continue;
		snprintf(path, sizeof path, "%s/%s", trace, e->d_name);
		append_own_head(path, 150, true);
	}
	closedir(d);
	snprintf(path, sizeof path, "%s/metadata", trace);
	append_own_head(path, 300, false);
	bt_output cut = babeltrace(trace);
	cr_expect_neq(cut.status, 0, "babeltrace2 refuses the cut trace (else this test proves nothing)");
	bt_output_free(&cut);

	log = tl_open(&c);
	cat = sr_log_category(log, "app");
	SR_INFO(cat, "second run");
	sr_log_close(&log);
	bt_output old = babeltrace(kept);
	cr_expect_eq(old.status, 0, "the kept trace reads: %s", old.errors);
	cr_expect_eq(old.count, 10, "the first run's 10 events in %s, got %zu", kept, old.count);
	bt_output_free(&old);
	bt_output now = babeltrace(trace);
	cr_expect_eq(now.status, 0, "the new trace reads: %s", now.errors);
	cr_expect_eq(now.count, 1, "the second run's one event in %s, got %zu", trace, now.count);
	bt_output_free(&now);
	remove_temp_dir(dir);
}

Test(log_trace, a_directory_whose_parent_is_missing_is_refused)
{
	char dir[64], trace[128];
	make_temp_dir(dir, sizeof dir);
	snprintf(trace, sizeof trace, "%s/no-such-parent/trace", dir);
	sr_sink_config sink = sr_sink_ctf(trace);
	sr_log_config c;
	config_with(&c, &sink);
	expect_refused(&c, SR_ESYS, "a missing parent",
	    (const char *[]){ "cannot make the trace directory", trace, "No such file or directory", NULL });
	cr_expect(!exists(trace), "nothing was made");
	remove_temp_dir(dir);
}

/* After a refused open: nothing of a trace is in `trace`, and `sinks` (the configuration put right) open there. */
static void
expect_no_trace_left(const char *case_name, const char *trace, sr_sink_config *sinks, int count)
{
	char metadata[160];
	snprintf(metadata, sizeof metadata, "%s/metadata", trace);
	cr_expect(!exists(metadata), "%s refused: a trace was begun in %s all the same", case_name, trace);
	sr_log_config c;
	config_with(&c, sinks);
	c.sink_count = count;
	sr_error err;
	sr_log *log = sr_log_open(&c, &err);
	cr_expect_not_null(log, "%s refused, the configuration put right is refused in turn: %s", case_name, err.message);
	if (log != NULL)
		sr_log_close(&log);
}

Test(log_trace, mode_queue_a_layout_and_a_pattern_are_refused_and_leave_no_trace_behind)
{
	char dir[64], trace[96];
	make_temp_dir(dir, sizeof dir);
	snprintf(trace, sizeof trace, "%s/layout", dir);
	sr_sink_config sink = sr_sink_ctf(trace);
	sr_log_config c;
	config_with(&c, &sink);
	sink.layout = SR_LOG_LAYOUT_JSON;
	expect_refused(&c, SR_EINVAL, "a layout",
	    (const char *[]){ "config.sinks[0] is a ctf sink with layout json", "expected SR_LOG_LAYOUT_LOGGER", NULL });
	sink.layout = SR_LOG_LAYOUT_PATTERN;
	sink.pattern = "%m%n";
	expect_refused(&c, SR_EINVAL, "a pattern",
	    (const char *[]){ "config.sinks[0] is a ctf sink with layout pattern", "no pattern", NULL });
	sink = sr_sink_ctf(trace);
	expect_no_trace_left("a layout, a pattern", trace, &sink, 1);

	snprintf(trace, sizeof trace, "%s/queue", dir);
	sink = sr_sink_ctf(trace);
	c.mode = SR_LOG_MODE_QUEUE;
	expect_refused(&c, SR_EINVAL, "mode queue",
	    (const char *[]){ "config.sinks[0] is a ctf sink but mode is queue", "expected mode ring or sync", NULL });
	expect_no_trace_left("mode queue", trace, &sink, 1);

	/* Another sink of the same configuration that cannot open. */
	char bad_file[128];
	snprintf(trace, sizeof trace, "%s/beside", dir);
	snprintf(bad_file, sizeof bad_file, "%s/no-such-dir/app.log", dir);
	sr_sink_config two[2] = { sr_sink_ctf(trace), sr_sink_file(bad_file) };
	config_with(&c, two);
	c.sink_count = 2;
	expect_refused(&c, SR_ESYS, "a file sink beside it that cannot open", (const char *[]){ bad_file, NULL });
	expect_no_trace_left("a file sink beside it", trace, two, 1);
	remove_temp_dir(dir);
}

Test(log_trace, seqring_log_sink_without_a_directory_or_with_a_layout_is_refused)
{
	char dir[64], spec[128];
	make_temp_dir(dir, sizeof dir);
	sr_sink_config sink = sr_sink_null();
	sr_log_config c;
	config_with(&c, &sink);
	c.ignore_environment = false;
	tl_clear_env();
	setenv("SEQRING_LOG_SINK", "ctf:", 1);
	expect_refused(&c, SR_EINVAL, "ctf: without a directory",
	    (const char *[]){ "SEQRING_LOG_SINK", "'ctf:' needs a directory", NULL });
	snprintf(spec, sizeof spec, "ctf:%s/trace,layout=json", dir);
	setenv("SEQRING_LOG_SINK", spec, 1);
	expect_refused(&c, SR_EINVAL, "ctf: with a layout",
	    (const char *[]){ "SEQRING_LOG_SINK", "option 'layout' is not one of a ctf sink's", NULL });
	unsetenv("SEQRING_LOG_SINK");
	remove_temp_dir(dir);
}

/* ---------------------------------------------------------------------------------------- */
/* Rotation                                                                                 */

/* One thread logs `rounds` rounds through SEQRING_LOG_SINK=spec; returns the thread's tid. */
static unsigned
log_rounds_through_env(const char *spec, int rounds)
{
	tl_clear_env();
	setenv("SEQRING_LOG_SINK", spec, 1);
	sr_log_config c;
	sr_log_config_default(&c);
	c.close_at_exit = false;
	sr_log *log = tl_open(&c);
	unsetenv("SEQRING_LOG_SINK");
	sr_category *cat = sr_log_category(log, CATEGORY);
	tl_thread_name("w", 0);
	for (int i = 0; i < rounds; i++) {
		log_three_calls(cat, i);
		if (i % 100 == 99)
			sr_log_flush(log);  /* a packet per flush: many packets, so many files */
	}
	sr_log_close(&log);
	return (unsigned)syscall(SYS_gettid);
}

Test(log_trace, rotated_stream_files_are_read_whole_and_in_order, .timeout = 60)
{
	SKIP_WITHOUT_BABELTRACE();
	char dir[64], trace[96], spec[160], path[160];
	make_temp_dir(dir, sizeof dir);
	snprintf(trace, sizeof trace, "%s/trace", dir);
	snprintf(spec, sizeof spec, "ctf:%s,max_size=8k,keep=100,buffer=4k", trace);
	enum { ROUNDS = 3000 };
	unsigned tid = log_rounds_through_env(spec, ROUNDS);
	int files = 0;
	for (int k = 1; k <= 100; k++) {
		snprintf(path, sizeof path, "%s/stream-%u.%d", trace, tid, k);
		if (!exists(path))
			break;
		files = k;
	}
	cr_assert_geq(files, 3, "stream-%u.1 .. .%d: expected several rotations", tid, files);
	snprintf(path, sizeof path, "%s/stream-%u.%d", trace, tid, files + 1);
	cr_expect(!exists(path), "the rotated files are numbered without a gap");
	bt_output o = babeltrace(trace);
	cr_assert_eq(o.status, 0, "babeltrace2: status %d: %s", o.status, o.errors);
	cr_assert_eq(o.count, (size_t)CALLS * ROUNDS, "%zu events over %d rotated files and the current one, expected %d",
	    o.count, files, CALLS * ROUNDS);
	for (size_t j = 0; j < o.count; j++) {
		bt_event e = bt_parse(o.lines[j]);
		cr_assert_eq(e.tid, tid, "\"%s\"", e.line);
		expect_kth_event(&e, (int)j);
	}
	bt_output_free(&o);
	remove_temp_dir(dir);
}

Test(log_trace, keep_zero_leaves_the_current_stream_file_alone_and_it_reads, .timeout = 60)
{
	SKIP_WITHOUT_BABELTRACE();
	char dir[64], trace[96], spec[160], path[160];
	make_temp_dir(dir, sizeof dir);
	snprintf(trace, sizeof trace, "%s/trace", dir);
	snprintf(spec, sizeof spec, "ctf:%s,max_size=8k,keep=0,buffer=4k", trace);
	enum { ROUNDS = 3000 };
	unsigned tid = log_rounds_through_env(spec, ROUNDS);
	snprintf(path, sizeof path, "%s/stream-%u.1", trace, tid);
	cr_expect(!exists(path), "keep=0 keeps no rotated file");
	snprintf(path, sizeof path, "%s/stream-%u", trace, tid);
	cr_assert(exists(path), "the current file %s", path);
	bt_output o = babeltrace(trace);
	cr_assert_eq(o.status, 0, "babeltrace2: status %d: %s", o.status, o.errors);
	cr_assert_gt(o.count, 0u);
	cr_assert_lt(o.count, (size_t)CALLS * ROUNDS, "%zu events: the older files are gone", o.count);
	/* The last events, whole, in order: the k-th of the thread's from where the file begins. */
	size_t first = (size_t)CALLS * ROUNDS - o.count;
	for (size_t j = 0; j < o.count; j++) {
		bt_event e = bt_parse(o.lines[j]);
		expect_kth_event(&e, (int)(first + j));
	}
	bt_output_free(&o);
	remove_temp_dir(dir);
}

/* ---------------------------------------------------------------------------------------- */
/* A renamed thread                                                                         */

Test(log_trace, a_thread_renamed_between_two_events_shows_each_name_in_its_packets, .timeout = 30)
{
	SKIP_WITHOUT_BABELTRACE();
	char dir[64], trace[96];
	make_temp_dir(dir, sizeof dir);
	snprintf(trace, sizeof trace, "%s/trace", dir);
	sr_sink_config sink = sr_sink_ctf(trace);
	sr_log *log = open_with(&sink, 1);
	sr_category *cat = sr_log_category(log, CATEGORY);
	/* In one batch, most likely, and in any case in one stream: a long name, a short one, the long one again. */
	static const char *const names[] = { "a-fifteen-chars", "short", "a-fifteen-chars", "w3" };
	enum { PER_NAME = 5 };
	for (int n = 0; n < 4; n++) {
		sr_log_thread_name(names[n]);
		for (int i = 0; i < PER_NAME; i++)
			SR_INFO(cat, "name %d event %d", n, i);
	}
	sr_log_close(&log);
	bt_output o = babeltrace(trace);
	cr_assert_eq(o.status, 0, "babeltrace2: status %d: %s", o.status, o.errors);
	cr_assert_eq(o.count, (size_t)4 * PER_NAME);
	unsigned tid = (unsigned)syscall(SYS_gettid);
	for (size_t j = 0; j < o.count; j++) {
		bt_event e = bt_parse(o.lines[j]);
		int n = (int)j / PER_NAME;
		cr_assert_eq(bt_int(&e, "arg0"), n, "in order: \"%s\"", e.line);
		cr_assert_eq(bt_int(&e, "arg1"), (int)j % PER_NAME, "in order: \"%s\"", e.line);
		cr_expect_str_eq(e.thread, names[n], "the name when the event was logged: \"%s\"", e.line);
		cr_expect_eq(e.tid, tid, "one thread: \"%s\"", e.line);
	}
	bt_output_free(&o);
	remove_temp_dir(dir);
}

/* ---------------------------------------------------------------------------------------- */
/* A forked child                                                                           */

Test(log_trace, a_forked_child_writes_a_trace_of_its_own_in_dir_dot_pid, .timeout = 60)
{
	SKIP_WITHOUT_BABELTRACE();
	char dir[64], trace[96], child_trace[128];
	make_temp_dir(dir, sizeof dir);
	snprintf(trace, sizeof trace, "%s/trace", dir);
	sr_sink_config sink = sr_sink_ctf(trace);
	sr_log *log = open_with(&sink, 1);
	sr_category *cat = sr_log_category(log, CATEGORY);
	tl_thread_name("w", 0);
	enum { PARENT = 100, CHILD = 200 };
	for (int i = 0; i < PARENT / 2; i++)
		SR_INFO(cat, "parent %d", i);
	sr_log_flush(log);
	fflush(NULL);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		alarm(20);
		tl_thread_name("child", 0);
		for (int i = 0; i < CHILD; i++)
			SR_INFO(cat, "child %d", i);
		sr_log_close(&log);
		_exit(0);
	}
	for (int i = PARENT / 2; i < PARENT; i++)
		SR_INFO(cat, "parent %d", i);
	int status;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child's status 0x%x", status);
	sr_log_close(&log);
	snprintf(child_trace, sizeof child_trace, "%s.%d", trace, (int)pid);
	cr_assert(exists(child_trace), "the child's trace %s", child_trace);
	bt_output child = babeltrace(child_trace);
	cr_assert_eq(child.status, 0, "babeltrace2 on the child's trace: status %d: %s", child.status, child.errors);
	cr_assert_eq(child.count, (size_t)CHILD, "%zu events in the child's trace", child.count);
	for (size_t j = 0; j < child.count; j++) {
		bt_event e = bt_parse(child.lines[j]);
		cr_assert(strstr(e.uri, "&format=child%20%25d") != NULL && bt_int(&e, "arg0") == (long long)j &&
		    strcmp(e.thread, "child0") == 0, "the child's event %zu: \"%s\"", j, e.line);
	}
	bt_output parent = babeltrace(trace);
	cr_assert_eq(parent.status, 0, "babeltrace2 on the parent's trace: status %d: %s", parent.status, parent.errors);
	cr_assert_eq(parent.count, (size_t)PARENT, "%zu events in the parent's trace, expected its %d alone",
	    parent.count, PARENT);
	for (size_t j = 0; j < parent.count; j++) {
		bt_event e = bt_parse(parent.lines[j]);
		cr_assert(strstr(e.uri, "&format=parent%20%25d") != NULL && bt_int(&e, "arg0") == (long long)j &&
		    strcmp(e.thread, "w0") == 0, "the parent's event %zu: \"%s\"", j, e.line);
	}
	bt_output_free(&child);
	bt_output_free(&parent);
	remove_temp_dir(dir);
}

/* A sink whose first line never returns: the consumer holds it, the records stay in the rings. */
static int
holds_the_consumer(void *ctx, sr_log_level level, const char *line, size_t len)
{
	(void)ctx, (void)level, (void)line, (void)len;
	for (;;)
		pause();
	return 0;
}

Test(log_trace, records_a_killed_process_left_in_its_ring_directory_reach_the_next_runs_trace)
{
	if (babeltrace_missing())
		cr_skip_test("babeltrace2 is not installed (apt-get install babeltrace2)");
	enum { LEFT = 200 };
	char dir[64], rings[96], trace[96], kept[112];
	make_temp_dir(dir, sizeof dir);
	snprintf(rings, sizeof rings, "%s/rings", dir);
	snprintf(trace, sizeof trace, "%s/trace", dir);
	snprintf(kept, sizeof kept, "%s.1", trace);
	cr_assert_eq(mkdir(rings, 0700), 0);
	int ready[2];
	cr_assert_eq(pipe(ready), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		/* The trace, and a sink that holds the consumer at the first line: every record stays in its ring file. */
		sr_sink_config sinks[2] = { sr_sink_ctf(trace), sr_sink_callback(holds_the_consumer, NULL) };
		sr_log_config c;
		sr_log_config_default(&c);
		c.ignore_environment = true;
		c.sinks = sinks;
		c.sink_count = 2;
		c.ring_dir = rings;
		sr_error err;
		sr_log *log = sr_log_open(&c, &err);
		if (log == NULL)
			_exit(3);
		sr_category *cat = sr_log_category_get(log, "app.left", &err);
		sr_log_thread_name("doomed");
		for (int i = 0; i < LEFT; i++)
			SR_INFO(cat, "left %d of %s", i, "the dead");
		(void)!write(ready[1], "x", 1);
		for (;;)
			pause();
	}
	close(ready[1]);
	char byte;
	cr_assert_eq(read(ready[0], &byte, 1), 1, "the child logged nothing");
	close(ready[0]);
	kill(pid, SIGKILL);
	int status;
	waitpid(pid, &status, 0);

	/* The next run, on the same ring directory and trace: the dead one's records come out in its trace. */
	sr_sink_config sink = sr_sink_ctf(trace);
	sr_log_config c;
	config_with(&c, &sink);
	c.ring_dir = rings;
	sr_log *log = tl_open(&c);
	sr_log_close(&log);
	bt_output now = babeltrace(trace);
	cr_expect_eq(now.status, 0, "the new trace reads: %s", now.errors);
	size_t recovered = 0;
	for (size_t i = 0; i < now.count; i++)
		if (strstr(now.lines[i], "app.left") != NULL && strstr(now.lines[i], "\"doomed\"") != NULL &&
		    strstr(now.lines[i], "arg1 = \"the dead\"") != NULL)
			recovered++;
	cr_expect_eq(recovered, LEFT, "the dead process's %d records, each with its thread, in %s: got %zu", LEFT, trace,
	    recovered);
	bt_output_free(&now);
	bt_output old = babeltrace(kept);
	cr_expect_eq(old.status, 0, "the dead process's own trace, kept as %s, reads: %s", kept, old.errors);
	bt_output_free(&old);
	remove_temp_dir(dir);
}

Test(log_trace, describe_names_the_trace_and_no_layout)
{
	char dir[64], trace[96], want[200];
	make_temp_dir(dir, sizeof dir);
	snprintf(trace, sizeof trace, "%s/trace", dir);
	sr_sink_config sink = sr_sink_ctf(trace);
	sink.level = SR_LOG_WARN;
	sink.max_file_bytes = 1 << 20;
	sink.keep_files = 3;
	sr_log_config c;
	config_with(&c, &sink);
	sr_log *log = tl_open(&c);
	char *text = tl_describe(log);
	snprintf(want, sizeof want, "ctf %s level=warn packet=65536 max_size=1048576 keep=3", trace);
	cr_expect_not_null(strstr(text, want), "describe says \"%s\":\n%s", want, text);
	const char *line = strstr(text, "ctf ");
	const char *end = line != NULL ? strchr(line, '\n') : NULL;
	cr_expect(line != NULL && end != NULL && memmem(line, (size_t)(end - line), "layout=", 7) == NULL,
	    "a trace has no layout, yet its line says one:\n%s", text);
	free(text);
	sr_log_close(&log);
	remove_temp_dir(dir);
}
