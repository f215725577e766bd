/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_log.c: the asynchronous logger (sr_log.h).
 *
 * Levels and categories, the ring path against snprintf (including records
 * that span several slots and the physical end of a small ring), strings
 * snapshotted at the call, each full-queue policy against a sink that can be
 * paused (exact counts), the drop report, a consumer that logs while the ring
 * is full, sink errors through descriptors we control, close draining
 * everything in every mode, and every bad configuration value.
 *
 * This is the shared ring's suite: its ring-mode loggers are pinned to
 * producer shared (shared_config, open_capture, open_fd_sink and the tests
 * that build their own config), so that ring_slots sizes the ring that fills
 * and wraps; test_log_producer.c is the per-thread rings' suite.  Only the
 * tests of the defaults keep the default producer, per_thread.
 */
#include "test_log_support.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/wait.h>

/* Every line this suite's capturing sinks receive must end with its newline. */
static void
capture_init(tl_capture *c)
{
	tl_capture_init(c);
	c->newline_required = true;
}

/* tl_config_sink on the shared ring of ring_slots, this suite's ring. */
static void
shared_config(sr_log_config *c, sr_sink_config *sink)
{
	tl_config_sink(c, sink);
	c->producer = SR_LOG_PRODUCER_SHARED;
}

/* On a fresh capture: a logger on it (with flush and close), level trace, small shared ring. */
static sr_log *
open_capture(tl_capture *cap, sr_log_mode mode, sr_log_full_policy policy, int64_t slots,
    size_t slot_size, sr_log_layout layout)
{
	capture_init(cap);
	sr_sink_config s = tl_capture_sink(cap);
	sr_log_config c;
	tl_configure(&c, &s, (tl_settings){ .mode = mode, .full_policy = policy, .shared_ring = true,
	    .ring_slots = slots, .slot_size = slot_size, .max_message_bytes = 1024, .layout = layout,
	    .wait_strategy = "timeout:timeout=5ms" });
	c.level = SR_LOG_TRACE;
	return tl_open(&c);
}

/* On a fresh capture: a ring logger, block policy, 64 slots of 128 bytes, the message layout. */
static sr_log *
open_message_logger(tl_capture *cap)
{
	return open_capture(cap, SR_LOG_MODE_RING, SR_LOG_FULL_BLOCK, 64, 128, SR_LOG_LAYOUT_MESSAGE);
}

/*
 * The tests marked WITH_LOGGER run on `logger`, open_message_logger's,
 * writing into `sink`: opened before each of them, closed after.
 */
static tl_capture sink;
static sr_log *logger;

static void
open_the_logger(void)
{
	logger = open_message_logger(&sink);
}

static void
close_the_logger(void)
{
	tl_close(&logger, &sink);
}

#define WITH_LOGGER .init = open_the_logger, .fini = close_the_logger

/* ---------------------------------------------------------------------------------------- */
/* Levels and categories                                                                    */

static int evaluations;

static int
side_effect(void)
{
	return ++evaluations;
}

Test(log, disabled_level_evaluates_no_argument, WITH_LOGGER)
{
	sr_error err;
	cr_assert_eq(sr_log_set_level(logger, NULL, SR_LOG_INFO, &err), SR_OK);
	sr_category *c = sr_log_category(logger, "app");
	evaluations = 0;
	SR_TRACE(c, "t %d", side_effect());
	SR_DEBUG(c, "d %d", side_effect());
	cr_assert_eq(evaluations, 0, "a disabled level must not evaluate its arguments");
	SR_INFO(c, "i %d", side_effect());
	SR_ERROR(c, "e %d", side_effect());
	cr_assert_eq(evaluations, 2);
	cr_assert(!SR_LOG_ENABLED(c, SR_LOG_DEBUG));
	cr_assert(SR_LOG_ENABLED(c, SR_LOG_WARN));
	/* The off handle: nothing is ever evaluated. */
	SR_FATAL(&sr_category_off, "f %d", side_effect());
	cr_assert_eq(evaluations, 2);
	/* A NULL logger's handle lets its first call in, to say on stderr why nothing is logged; then off. */
	SR_FATAL(sr_log_category(NULL, "x"), "f %d", side_effect());
	SR_FATAL(sr_log_category(NULL, "x"), "f %d", side_effect());
	cr_assert_eq(evaluations, 3);
	cr_assert_eq(tl_flushed_count(logger, &sink), 2);
	cr_assert_str_eq(sink.lines[0], "i 1");
	cr_assert_str_eq(sink.lines[1], "e 2");
}

Test(log, levels_by_dotted_prefix_longest_wins, WITH_LOGGER)
{
	sr_error err;
	sr_log_set_level(logger, "", SR_LOG_INFO, &err);
	sr_category *net = sr_log_category(logger, "net");
	sr_category *http = sr_log_category(logger, "net.http");
	sr_category *client = sr_log_category(logger, "net.http.client");
	sr_category *network = sr_log_category(logger, "network");
	sr_category *db = sr_log_category(logger, "db");
	cr_assert_eq(sr_log_category(logger, "net.http"), http, "one handle per name");
	cr_assert_eq(sr_category_level(http), SR_LOG_INFO);

	cr_assert_eq(sr_log_set_level(logger, "net", SR_LOG_DEBUG, &err), SR_OK);
	cr_assert_eq(sr_category_level(net), SR_LOG_DEBUG);
	cr_assert_eq(sr_category_level(http), SR_LOG_DEBUG);
	cr_assert_eq(sr_category_level(client), SR_LOG_DEBUG);
	cr_assert_eq(sr_category_level(network), SR_LOG_INFO, "'net' is not a prefix of 'network'");
	cr_assert_eq(sr_category_level(db), SR_LOG_INFO);

	cr_assert_eq(sr_log_set_level(logger, "net.http", SR_LOG_ERROR, &err), SR_OK);
	cr_assert_eq(sr_category_level(net), SR_LOG_DEBUG);
	cr_assert_eq(sr_category_level(http), SR_LOG_ERROR);
	cr_assert_eq(sr_category_level(client), SR_LOG_ERROR, "the longest prefix wins");
	/* A handle made after the rule gets it too. */
	cr_assert_eq(sr_category_level(sr_log_category(logger, "net.http.server")), SR_LOG_ERROR);
	cr_assert_eq(sr_log_level_for(logger, "net.http.x.y"), SR_LOG_ERROR);
	cr_assert_eq(sr_log_level_for(logger, "net.other"), SR_LOG_DEBUG);

	cr_assert_eq(sr_log_set_level(logger, "net.http", SR_LOG_INHERIT, &err), SR_OK);
	cr_assert_eq(sr_category_level(client), SR_LOG_DEBUG, "inherit again after the rule is removed");
	cr_assert_eq(sr_log_set_level(logger, NULL, SR_LOG_WARN, &err), SR_OK);
	cr_assert_eq(sr_category_level(db), SR_LOG_WARN);
	cr_assert_eq(sr_category_level(sr_log_root(logger)), SR_LOG_WARN);
	cr_assert_eq(sr_category_level(http), SR_LOG_DEBUG);

	SR_DEBUG(http, "debug through net");
	SR_INFO(db, "not written");
	SR_WARN(db, "written");
	cr_assert_eq(tl_flushed_count(logger, &sink), 2);

	/* Errors. */
	cr_assert_eq(sr_log_set_level(logger, "net", 9, &err), SR_EINVAL);
	cr_assert(strstr(err.message, "level 9") != NULL, "%s", err.message);
	cr_assert_eq(sr_log_set_level(logger, NULL, SR_LOG_INHERIT, &err), SR_EINVAL);
	cr_assert_eq(sr_log_set_level(logger, "a..b", SR_LOG_INFO, &err), SR_EINVAL);
	cr_assert(strstr(err.message, "'a..b'") != NULL, "%s", err.message);
}

Test(log, category_names_and_level_names, WITH_LOGGER)
{
	static const char *const bad[] = { ".a", "a.", "a..b", "a b", "a=b", "a,b", "tab\t", "\x7f", "\xff" };
	sr_error err;
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		cr_assert_null(sr_log_category_get(logger, bad[i], &err), "'%s' should be refused", bad[i]);
		cr_assert_eq(err.code, SR_EINVAL);
		cr_assert(strstr(err.message, "category name") != NULL, "%s", err.message);
		cr_assert_eq(sr_log_category(logger, bad[i]), &sr_category_off);
	}
	char longname[300];
	memset(longname, 'a', sizeof longname - 1);
	longname[sizeof longname - 1] = '\0';
	cr_assert_null(sr_log_category_get(logger, longname, &err));
	longname[255] = '\0';
	cr_assert_not_null(sr_log_category_get(logger, longname, &err));
	cr_assert_null(sr_log_category_get(NULL, "x", &err));
	cr_assert_not_null(sr_log_category_get(logger, "a-b_c/d:e.F9", &err));

	sr_log_level l;
	cr_assert_eq(sr_log_level_parse("WARN", &l, &err), SR_OK);
	cr_assert_eq(l, SR_LOG_WARN);
	cr_assert_eq(sr_log_level_parse("warning", &l, &err), SR_OK);
	cr_assert_eq(sr_log_level_parse("Off", &l, &err), SR_OK);
	cr_assert_eq(l, SR_LOG_OFF);
	cr_assert_eq(sr_log_level_parse("verbose", &l, &err), SR_EINVAL);
	cr_assert(strstr(err.message, "'verbose'") != NULL && strstr(err.message, "trace, debug") != NULL);
	cr_assert_str_eq(sr_log_level_name(SR_LOG_FATAL), "fatal");
	cr_assert_str_eq(sr_log_level_name(42), "unknown");
	sr_log_full_policy p;
	cr_assert_eq(sr_log_full_policy_parse("Discard", &p, &err), SR_OK);
	cr_assert_eq(p, SR_LOG_FULL_DISCARD);
	cr_assert_eq(sr_log_full_policy_parse("wait", &p, &err), SR_EINVAL);
	sr_log_mode m;
	cr_assert_eq(sr_log_mode_parse("queue", &m, &err), SR_OK);
	cr_assert_eq(m, SR_LOG_MODE_QUEUE);
}

Test(log, sink_levels_raise_the_effective_level)
{
	tl_capture all, warn;
	capture_init(&all);
	capture_init(&warn);
	sr_log_config c;
	sr_sink_config s[2] = { sr_sink_callback(tl_capture_write, &all), sr_sink_callback(tl_capture_write, &warn) };
	shared_config(&c, s);
	c.sink_count = 2;
	c.ring_slots = 64;
	c.level = SR_LOG_TRACE;
	c.layout = SR_LOG_LAYOUT_MESSAGE;
	s[0].level = SR_LOG_DEBUG;
	s[1].level = SR_LOG_WARN;
	sr_log *log = tl_open(&c);
	sr_category *x = sr_log_category(log, "x");
	cr_assert_eq(sr_category_level(x), SR_LOG_DEBUG, "trace is written by no sink: cut at the call site");
	evaluations = 0;
	SR_TRACE(x, "%d", side_effect());
	cr_assert_eq(evaluations, 0);
	SR_DEBUG(x, "debug");
	SR_ERROR(x, "error");
	cr_assert_eq(tl_flushed_count(log, &all), 2);
	cr_assert_eq(tl_capture_count(&warn), 1);
	cr_assert_str_eq(warn.lines[0], "error");
	sr_log_counters st = tl_stats(log);
	cr_assert_eq(st.sinks[0].messages, 2);
	cr_assert_eq(st.sinks[1].messages, 1);
	sr_log_close(&log);
	tl_capture_free(&all);
	tl_capture_free(&warn);
}

/* ---------------------------------------------------------------------------------------- */
/* Formatting through the ring                                                              */

Test(log, text_layout)
{
	tl_capture cap;
	sr_log *log = open_capture(&cap, SR_LOG_MODE_RING, SR_LOG_FULL_BLOCK, 64, 128, SR_LOG_LAYOUT_TEXT);
	sr_category *c = sr_log_category(log, "net.http");
	int line = __LINE__ + 1;
	SR_WARN(c, "GET %s -> %d in %.1f ms", "/index.html", 200, 1.25);
	sr_log_thread_name("worker-3");
	SR_INFO(sr_log_root(log), "named");
	sr_log_thread_name(NULL);
	cr_assert_eq(tl_flushed_count(log, &cap), 2);
	const char *l = cap.lines[0];
	/* 2026-11-30T12:34:56.123456Z WARN  [main] net.http - GET ... (test_log.c:NNN) */
	int y, mo, d, h, mi, s, us;
	char z;
	cr_assert_eq(sscanf(l, "%4d-%2d-%2dT%2d:%2d:%2d.%6d%c", &y, &mo, &d, &h, &mi, &s, &us, &z), 8, "%s", l);
	cr_assert_eq(z, 'Z');
	cr_assert_eq(l[27], ' ');
	char tail[200];
	snprintf(tail, sizeof tail, " WARN  [main] net.http - GET /index.html -> 200 in 1.2 ms (test_log.c:%d)", line);
	cr_assert_str_eq(l + 27, tail);
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	cr_assert_eq(y, tm.tm_year + 1900, "the timestamp is UTC now");
	cr_assert(strstr(cap.lines[1], " INFO  [worker-3] root - named (test_log.c:") != NULL, "%s", cap.lines[1]);
	tl_close(&log, &cap);
}

/* Generated formats through the whole ring path (small slots: multi-slot records). */
Test(log, ring_path_matches_snprintf)
{
	tl_capture cap;
	sr_log *log = open_capture(&cap, SR_LOG_MODE_RING, SR_LOG_FULL_BLOCK, 32, 64, SR_LOG_LAYOUT_MESSAGE);
	sr_category *c = sr_log_category(log, "gen");
	static const char *const specs[] = { "%d", "%5d", "%-5d|", "%+d", "%05d", "%x", "%#o", "%hhd",
		"%ld", "%lld", "%zu", "%jd", "%f", "%.2f", "%e", "%g", "%10.4Lf", "%a", "%s", "%10s",
		"%-10s|", "%.3s", "%c", "%p", "%%", "%*d", "%.*s" };
	enum { N = sizeof specs / sizeof *specs };
	static sr_site sites[N];
	char want[N][256];
	const char *str = "seqring";
	int local;
	for (size_t i = 0; i < N; i++) {
		char fmt[64];
		snprintf(fmt, sizeof fmt, "[%s]", specs[i]);
		sites[i].format = strdup(fmt);
		sites[i].file = __FILE__;
		sites[i].function = __func__;
		sites[i].line = __LINE__;
		sites[i].level = SR_LOG_INFO;
		const char *f = sites[i].format;
		sr_site *s = &sites[i];
		switch (specs[i][strlen(specs[i]) - (specs[i][strlen(specs[i]) - 1] == '|' ? 2 : 1)]) {
		case 'd': case 'x': case 'o': case 'c':
			if (strstr(f, "*")) {
				snprintf(want[i], 256, f, 9, 42);
				sr_log_emit(c, s, f, 9, 42);
			} else if (strstr(f, "ll") || strstr(f, "l")) {
				snprintf(want[i], 256, f, -1234567890123LL);
				sr_log_emit(c, s, f, -1234567890123LL);
			} else if (strstr(f, "j")) {
				snprintf(want[i], 256, f, (intmax_t)-77);
				sr_log_emit(c, s, f, (intmax_t)-77);
			} else {
				snprintf(want[i], 256, f, 300);
				sr_log_emit(c, s, f, 300);
			}
			break;
		case 'u':
			snprintf(want[i], 256, f, (size_t)123456);
			sr_log_emit(c, s, f, (size_t)123456);
			break;
		case 'f': case 'e': case 'g': case 'a':
			if (strstr(f, "L")) {
				snprintf(want[i], 256, f, (long double)2.718281828L);
				sr_log_emit(c, s, f, (long double)2.718281828L);
			} else {
				snprintf(want[i], 256, f, -3.14159);
				sr_log_emit(c, s, f, -3.14159);
			}
			break;
		case 's':
			if (strstr(f, "*")) {
				snprintf(want[i], 256, f, 4, str);
				sr_log_emit(c, s, f, 4, str);
			} else {
				snprintf(want[i], 256, f, str);
				sr_log_emit(c, s, f, str);
			}
			break;
		case 'p':
			snprintf(want[i], 256, f, (void *)&local);
			sr_log_emit(c, s, f, (void *)&local);
			break;
		default:
			snprintf(want[i], 256, "%s", "[%]");
			sr_log_emit(c, s, f, 0);
			break;
		}
	}
	cr_assert_eq(tl_flushed_count(log, &cap), N);
	for (size_t i = 0; i < N; i++) {
		cr_expect_str_eq(cap.lines[i], want[i], "spec %s", specs[i]);
		free((char *)sites[i].format);
	}
	tl_close(&log, &cap);
}

Test(log, strings_are_snapshotted_at_the_call, WITH_LOGGER)
{
	sr_category *c = sr_log_category(logger, "s");
	tl_capture_pause(&sink);
	SR_INFO(c, "first");
	tl_capture_wait_stuck(&sink);       /* the consumer waits in the sink: later records wait in the ring */
	char buf[64];
	strcpy(buf, "original value");
	SR_INFO(c, "buf=%s n=%d", buf, 1);
	strcpy(buf, "CHANGED!");
	char *heap = strdup("heap string");
	SR_INFO(c, "heap=%s", heap);
	free(heap);                     /* freed before the consumer formats: ASan would catch a read */
	tl_capture_resume(&sink);
	cr_assert_eq(tl_flushed_count(logger, &sink), 3);
	cr_assert_str_eq(sink.lines[1], "buf=original value n=1");
	cr_assert_str_eq(sink.lines[2], "heap=heap string");
}

Test(log, multi_slot_records_across_the_physical_end)
{
	tl_capture cap;
	/* 16 slots of 64 bytes: a record of up to 1024 bytes takes up to all 16 slots. */
	sr_log *log = open_capture(&cap, SR_LOG_MODE_RING, SR_LOG_FULL_BLOCK, 16, 64, SR_LOG_LAYOUT_MESSAGE);
	sr_category *c = sr_log_category(log, "wrap");
	char text[1100];
	for (size_t i = 0; i < sizeof text - 1; i++)
		text[i] = (char)('a' + i % 26);
	text[sizeof text - 1] = '\0';
	enum { ROUNDS = 600 };
	char *want[ROUNDS];
	for (int i = 0; i < ROUNDS; i++) {
		/* Lengths 0..~900 in an order that lands records at every slot offset. */
		int len = (i * 37) % 900;
		char save = text[len];
		text[len] = '\0';
		SR_INFO(c, "#%d %s|%d", i, text, len);
		want[i] = malloc(len + 32);
		snprintf(want[i], (size_t)len + 32, "#%d %.*s|%d", i, len, text, len);
		text[len] = save;
	}
	/* Longer than the record allows: cut, marked, never overflowing the ring. */
	SR_INFO(c, "long %s end", text);
	cr_assert_eq(tl_flushed_count(log, &cap), ROUNDS + 1);
	for (int i = 0; i < ROUNDS; i++) {
		cr_assert_str_eq(cap.lines[i], want[i], "record %d", i);
		free(want[i]);
	}
	cr_assert(strstr(cap.lines[ROUNDS], SR_FMT_TRUNCATION_MARKER " end") != NULL, "%s", cap.lines[ROUNDS]);
	sr_log_counters st = tl_stats(log);
	cr_assert_eq(st.truncated_records, 1);
	cr_assert_eq(st.accepted, ROUNDS + 1);
	cr_assert_leq(st.max_occupancy, 16);
	tl_close(&log, &cap);
}

Test(log, refused_format_is_an_error_line, WITH_LOGGER)
{
	sr_category *c = sr_log_category(logger, "f");
	int n = 0;
	SR_ERROR(c, "count%n", &n);
	SR_INFO(c, "after");
	sr_log_flush(logger);
	cr_assert_eq(n, 0, "%%n never writes");
	cr_assert_eq(tl_capture_count(&sink), 2);
	cr_assert(strstr(sink.lines[0], "format error: conversion '%n' is refused") != NULL, "%s", sink.lines[0]);
	cr_assert(strstr(sink.lines[0], "\"count%n\"") != NULL, "%s", sink.lines[0]);
	cr_assert_eq(sink.levels[0], SR_LOG_ERROR);
	cr_assert_eq(tl_stats(logger).format_errors, 1);
}

Test(log, errno_is_preserved_and_captured_for_m, WITH_LOGGER)
{
	sr_category *c = sr_log_category(logger, "e");
	errno = EACCES;
	SR_ERROR(c, "open: %s", strerror(errno));
	cr_assert_eq(errno, EACCES, "logging does not change errno");
	cr_assert_eq(tl_flushed_count(logger, &sink), 1);
	cr_assert_str_eq(sink.lines[0], "open: Permission denied");
}

Test(log, line_limit_cuts_huge_output)
{
	tl_capture cap;
	capture_init(&cap);
	sr_sink_config s = sr_sink_callback(tl_capture_write, &cap);
	sr_log_config c;
	shared_config(&c, &s);
	c.ring_slots = 64;
	c.layout = SR_LOG_LAYOUT_MESSAGE;
	c.max_line_bytes = 1000;
	sr_log *log = tl_open(&c);
	SR_INFO(sr_log_root(log), "%100000d|", 1);
	SR_INFO(sr_log_root(log), "%500d|", 2);
	cr_assert_eq(tl_flushed_count(log, &cap), 2);
	cr_assert_eq(strlen(cap.lines[0]), 1000 + strlen(" " SR_FMT_TRUNCATION_MARKER));
	cr_assert(strstr(cap.lines[0], " " SR_FMT_TRUNCATION_MARKER) != NULL);
	char want[600];
	snprintf(want, sizeof want, "%500d|", 2);
	cr_assert_str_eq(cap.lines[1], want);
	cr_assert_eq(tl_stats(log).truncated_lines, 1);
	tl_close(&log, &cap);
}

/* ---------------------------------------------------------------------------------------- */
/* Full-queue policies                                                                      */

/* Tests STEM_ring and STEM_queue: fn(mode) in each mode that has a ring to fill. */
#define RING_AND_QUEUE_TESTS(stem, fn) \
	Test(log, stem##_ring, .timeout = 20) { fn(SR_LOG_MODE_RING); } \
	Test(log, stem##_queue, .timeout = 20) { fn(SR_LOG_MODE_QUEUE); }

typedef struct producer {
	sr_category *cat;
	int count;
	int level_mix;    /* 0: all info; 1: alternate info and warn */
	volatile int done;
} producer;

static void *
produce(void *arg)
{
	producer *p = arg;
	for (int i = 0; i < p->count; i++) {
		if (p->level_mix && i % 2 == 1)
			SR_WARN(p->cat, "m %d", i);
		else
			SR_INFO(p->cat, "m %d", i);
	}
	p->done = 1;
	return NULL;
}

/*
 * Flushes; checks that each of the `attempted` messages was accepted or
 * dropped and each accepted one written to the sink; the counters.
 */
static sr_log_counters
flushed_counts(sr_log *log, uint64_t attempted, tl_capture *cap)
{
	sr_log_flush(log);
	sr_log_counters st = tl_stats(log);
	cr_assert_eq(st.accepted + st.dropped, attempted, "accepted %lu + dropped %lu != attempted %lu",
	    (unsigned long)st.accepted, (unsigned long)st.dropped, (unsigned long)attempted);
	cr_assert_eq(st.written, st.accepted, "written %lu != accepted %lu",
	    (unsigned long)st.written, (unsigned long)st.accepted);
	cr_assert_eq(tl_capture_grep(cap, "m ") + tl_capture_grep(cap, "early "), st.accepted,
	    "lines in the sink = accepted");
	return st;
}

/*
 * On a fresh capture: a logger of 8 slots whose consumer is stuck in the
 * paused sink, writing "m first", with the ring empty behind it; *cat is
 * category "p".
 */
static sr_log *
open_stuck(tl_capture *cap, sr_log_mode mode, sr_log_full_policy policy, sr_category **cat)
{
	sr_log *log = open_capture(cap, mode, policy, 8, 128, SR_LOG_LAYOUT_MESSAGE);
	*cat = sr_log_category(log, "p");
	tl_capture_pause(cap);
	SR_INFO(*cat, "m first");
	tl_capture_wait_stuck(cap);
	return log;
}

/* Each of the lines "m FROM", "m FROM+STEP", ... below "m TO" is in the sink once. */
static void
expect_each_once(tl_capture *cap, int from, int to, int step)
{
	for (int i = from; i < to; i += step) {
		char want[16];
		snprintf(want, sizeof want, "m %d", i);
		cr_assert_eq(tl_capture_exact(cap, want), 1, "message %d written once", i);
	}
}

static void
policy_block(sr_log_mode mode)
{
	tl_capture cap;
	sr_log *log = open_capture(&cap, mode, SR_LOG_FULL_BLOCK, 8, 128, SR_LOG_LAYOUT_MESSAGE);
	tl_capture_pause(&cap);
	producer p = { .cat = sr_log_category(log, "p"), .count = 200 };
	pthread_t t;
	pthread_create(&t, NULL, produce, &p);
	tl_capture_wait_stuck(&cap);
	tl_sleep_ms(50);
	cr_assert_eq(p.done, 0, "the producer waits for room while the sink is paused");
	tl_capture_resume(&cap);
	pthread_join(t, NULL);
	sr_log_counters st = flushed_counts(log, 200, &cap);
	cr_assert_eq(st.dropped, 0);
	cr_assert_eq(st.accepted, 200);
	for (int i = 0; i < 200; i++) {
		char want[16];
		snprintf(want, sizeof want, "m %d", i);
		cr_assert_str_eq(cap.lines[i], want, "in order");
	}
	cr_assert_geq(st.max_occupancy, 4, "the ring was seen (nearly) full: %ld", (long)st.max_occupancy);
	tl_close(&log, &cap);
}

RING_AND_QUEUE_TESTS(policy_block, policy_block)

/* Drop policy with exact counts, checked after a flush (stats need the logger alive). */
static void
policy_drop_counts(sr_log_mode mode)
{
	tl_capture cap;
	sr_category *c;
	sr_log *log = open_stuck(&cap, mode, SR_LOG_FULL_DROP, &c);
	for (int i = 0; i < 100; i++)
		SR_INFO(c, "m %d", i);
	for (int i = 0; i < 20; i++)
		SR_DEBUG(c, "m d%d", i);
	tl_capture_resume(&cap);
	sr_log_counters st = flushed_counts(log, 121, &cap);
	cr_assert_gt(st.dropped_by_level[SR_LOG_INFO], 80);
	cr_assert_eq(st.dropped_by_level[SR_LOG_DEBUG], 20);
	cr_assert_eq(st.dropped, st.dropped_by_level[SR_LOG_INFO] + st.dropped_by_level[SR_LOG_DEBUG]);
	/* The drop report: one line, exact figures, most severe level first. */
	char want[200];
	snprintf(want, sizeof want, "%lu message(s) dropped because the queue was full (%lu at info, 20 at debug)",
	    (unsigned long)st.dropped, (unsigned long)st.dropped_by_level[SR_LOG_INFO]);
	cr_assert_eq(tl_capture_grep(&cap, "dropped because the queue was full"), 1);
	cr_assert_eq(tl_capture_grep(&cap, want), 1, "expected the line \"%s\"", want);
	size_t report = 0;
	for (size_t i = 0; i < cap.count; i++)
		if (strstr(cap.lines[i], "dropped because"))
			report = i;
	cr_assert_eq(cap.levels[report], SR_LOG_WARN);
	/* A later drop is reported again, with only the new figures. */
	tl_capture_pause(&cap);
	SR_INFO(c, "m again");
	tl_capture_wait_stuck(&cap);
	uint64_t before = st.dropped;
	for (int i = 0; i < 30; i++)
		SR_INFO(c, "m x%d", i);
	tl_capture_resume(&cap);
	st = flushed_counts(log, 121 + 31, &cap);
	snprintf(want, sizeof want, "%lu message(s) dropped because the queue was full (%lu at info)",
	    (unsigned long)(st.dropped - before), (unsigned long)(st.dropped - before));
	cr_assert_eq(tl_capture_grep(&cap, want), 1, "expected the line \"%s\"", want);
	tl_close(&log, &cap);
}

RING_AND_QUEUE_TESTS(policy_drop, policy_drop_counts)

static void *
resume_later(void *arg)
{
	tl_sleep_ms(100);
	tl_capture_resume(arg);
	return NULL;
}

static void
policy_discard(sr_log_mode mode)
{
	tl_capture cap;
	producer p = { .count = 200, .level_mix = 1 };
	sr_log *log = open_stuck(&cap, mode, SR_LOG_FULL_DISCARD, &p.cat);
	/* The consumer is stuck: of these, what does not fit is dropped, at once. */
	for (int i = 0; i < 20; i++)
		SR_INFO(p.cat, "early %d", i);
	sr_log_counters st = tl_stats(log);
	cr_assert_geq(st.dropped_by_level[SR_LOG_INFO], 20 - 8, "info is discarded while full");
	pthread_t t;
	pthread_create(&t, NULL, resume_later, &cap);
	produce(&p);    /* info dropped while full; warn waits until the resume */
	pthread_join(t, NULL);
	st = flushed_counts(log, 221, &cap);
	cr_assert_eq(st.dropped_by_level[SR_LOG_WARN], 0, "warnings are never discarded");
	expect_each_once(&cap, 1, 200, 2); /* the warnings */
	tl_close(&log, &cap);
}

RING_AND_QUEUE_TESTS(policy_discard, policy_discard)

static void
policy_sync(sr_log_mode mode)
{
	tl_capture cap;
	producer p = { .count = 100 };
	sr_log *log = open_stuck(&cap, mode, SR_LOG_FULL_SYNC, &p.cat);
	/*
	 * The producer fills the ring, then writes itself: it waits for the
	 * sink (the consumer holds the sink's lock while stuck in it), never
	 * for the ring.  Resuming the sink lets both go on.  The consumer
	 * counts its lines at the end of its batch, which is stuck: a line
	 * the sink counts now is the producer's own.  Resumed only then, so
	 * that a producer slow to start on a busy machine still finds the ring
	 * full.
	 */
	pthread_t t;
	pthread_create(&t, NULL, produce, &p);
	int64_t deadline = sr_monotonic_ns() + 10 * INT64_C(1000000000);
	while (tl_stats(log).sinks[0].messages == 0 && sr_monotonic_ns() < deadline)
		tl_sleep_ms(1);
	cr_assert_gt(tl_stats(log).sinks[0].messages, 0, "in 10 s the producer never wrote a line itself");
	tl_capture_resume(&cap);
	pthread_join(t, NULL);
	sr_log_counters st = flushed_counts(log, 101, &cap);
	cr_assert_eq(st.dropped, 0);
	cr_assert_gt(st.written_by_caller, 0, "with the ring full, the caller wrote");
	expect_each_once(&cap, 0, 100, 1);
	tl_close(&log, &cap);
}

RING_AND_QUEUE_TESTS(policy_sync, policy_sync)

/* A sink that logs through its own logger from the consumer thread. */
typedef struct reentrant {
	tl_capture cap;
	sr_category *cat;
	int inner;
} reentrant;

static int
reentrant_write(void *ctx, sr_log_level level, const char *line, size_t len)
{
	reentrant *r = ctx;
	if (strncmp(line, "outer", 5) == 0) {
		for (int i = 0; i < 20; i++) {
			r->inner++;
			SR_WARN(r->cat, "inner %d", i);
		}
		/* Only the consumer logs here, and only while outer lines arrive (before the flush). */
	}
	return tl_capture_write(&r->cap, level, line, len);
}

static void
consumer_logs_while_full(sr_log_full_policy policy, sr_log_mode mode)
{
	reentrant r;
	memset(&r, 0, sizeof r);
	capture_init(&r.cap);
	sr_sink_config s = sr_sink_callback(reentrant_write, &r);
	sr_log_config c;
	tl_configure(&c, &s, (tl_settings){ .mode = mode, .shared_ring = true, .ring_slots = 8, .slot_size = 128,
	    .max_message_bytes = 1024, .full_policy = policy, .layout = SR_LOG_LAYOUT_MESSAGE });
	sr_log *log = tl_open(&c);
	r.cat = sr_log_category(log, "re");
	for (int i = 0; i < 100; i++)
		SR_WARN(r.cat, "outer %d", i);
	/* After the flush every outer line was handled; inner records may still be queued. */
	cr_assert_eq(sr_log_flush(log), SR_OK);
	cr_assert_eq(sr_log_shutdown(log), SR_OK);
	sr_log_counters st = tl_stats(log);
	cr_assert_eq(tl_capture_grep(&r.cap, "outer"), 100, "every outer message is written");
	cr_assert_eq(tl_capture_grep(&r.cap, "inner"), st.accepted - 100);
	cr_assert_gt(st.dropped, 0, "inner messages that found the ring full were dropped, not waited for");
	cr_assert_eq(st.accepted + st.dropped, 100 + (uint64_t)r.inner);
	sr_log_close(&log);
	tl_capture_free(&r.cap);
}

Test(log, consumer_logging_while_full_never_waits, .timeout = 20)
{
	consumer_logs_while_full(SR_LOG_FULL_BLOCK, SR_LOG_MODE_RING);
	consumer_logs_while_full(SR_LOG_FULL_SYNC, SR_LOG_MODE_RING);
	consumer_logs_while_full(SR_LOG_FULL_BLOCK, SR_LOG_MODE_QUEUE);
}

/* ---------------------------------------------------------------------------------------- */
/* Sinks and their errors                                                                   */

static sr_log *
open_fd_sink(sr_log_mode mode, int fd, int timeout_ms)
{
	sr_sink_config s = sr_sink_fd(fd);
	s.write_timeout_ms = timeout_ms;
	sr_log_config c;
	tl_configure(&c, &s, (tl_settings){ .mode = mode, .shared_ring = true, .ring_slots = 64,
	    .layout = SR_LOG_LAYOUT_MESSAGE });
	return tl_open(&c);
}

static void
broken_pipe_body(void *arg)
{
	sr_log_mode mode = *(sr_log_mode *)arg;
	int p[2];
	cr_assert_eq(pipe(p), 0);
	close(p[0]);                       /* the reader is gone */
	sr_log *log = open_fd_sink(mode, p[1], 100);
	for (int i = 0; i < 5; i++) {
		SR_ERROR(sr_log_root(log), "into a broken pipe %d", i);
		sr_log_flush(log);
	}
	sr_log_counters st = tl_stats(log);
	cr_assert_geq(st.sinks[0].errors, 1);
	cr_assert_gt(st.sinks[0].lost_bytes, 0);
	cr_assert_eq(st.sinks[0].bytes, 0);
	cr_assert_eq(st.accepted, 5, "the logger goes on");
	cr_assert_eq(st.written, 0, "nothing reached the pipe");
	cr_assert_eq(st.write_failed, 5);
	sr_log_close(&log);
	close(p[1]);
}

Test(log, broken_pipe_is_counted_not_fatal, .timeout = 20)
{
	/* The default action of SIGPIPE kills: make sure it is the default here. */
	signal(SIGPIPE, SIG_DFL);
	static const sr_log_mode modes[] = { SR_LOG_MODE_RING, SR_LOG_MODE_QUEUE, SR_LOG_MODE_SYNC };
	for (int m = 0; m < 3; m++) {
		sr_log_mode mode = modes[m];
		char *err = tl_with_stderr(broken_pipe_body, &mode);
		cr_assert(strstr(err, "Broken pipe") != NULL, "reported: %s", err);
		char *second = strstr(err, "seqring:");
		cr_assert(second != NULL && strstr(second + 1, "seqring:") == NULL, "reported once: %s", err);
		free(err);
	}
	/* Still alive, and SIGPIPE is not left blocked on this thread. */
	sigset_t mask;
	pthread_sigmask(SIG_BLOCK, NULL, &mask);
	cr_assert_eq(sigismember(&mask, SIGPIPE), 0);
}

static void
dev_full_body(void *arg)
{
	(void)arg;
	sr_sink_config s = sr_sink_file("/dev/full");
	sr_log_config c;
	shared_config(&c, &s);
	c.ring_slots = 64;
	sr_log *log = tl_open(&c);
	for (int i = 0; i < 5; i++) {
		SR_ERROR(sr_log_root(log), "no space %d", i);
		sr_log_flush(log);
	}
	sr_log_counters st = tl_stats(log);
	cr_assert_eq(st.sinks[0].errors, 5, "each failed write is counted");
	cr_assert_gt(st.sinks[0].lost_bytes, 0);
	cr_assert_eq(st.sink_errors, 5);
	sr_log_close(&log);
}

Test(log, enospc_is_counted_and_reported_once, .timeout = 20)
{
	char *err = tl_with_stderr(dev_full_body, NULL);
	cr_assert(strstr(err, "No space left on device") != NULL, "reported: %s", err);
	cr_assert(strstr(strstr(err, "seqring:") + 1, "seqring:") == NULL, "reported once: %s", err);
	free(err);
}

static void
full_pipe_body(void *arg)
{
	(void)arg;
	int p[2];
	cr_assert_eq(pipe(p), 0);
	fcntl(p[1], F_SETFL, O_NONBLOCK);
	char junk[4096];
	memset(junk, 'j', sizeof junk);
	while (write(p[1], junk, sizeof junk) > 0)
		;
	cr_assert_eq(errno, EAGAIN);
	sr_log *log = open_fd_sink(SR_LOG_MODE_RING, p[1], 30);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < 20; i++) {
		SR_ERROR(sr_log_root(log), "into a full pipe %d", i);
		sr_log_flush(log);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	cr_assert_lt(secs, 2.0, "one timeout, then no more waiting while it stays full (%.3f s)", secs);
	sr_log_counters st = tl_stats(log);
	cr_assert_eq(st.sinks[0].errors, 20);
	cr_assert_eq(st.written, 0, "nothing reached the full pipe");
	cr_assert_eq(st.write_failed, 20);
	/* The reader catches up: writes work again. */
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	while (read(p[0], junk, sizeof junk) > 0)
		;
	SR_ERROR(sr_log_root(log), "the reader is back");
	sr_log_flush(log);
	st = tl_stats(log);
	cr_assert_eq(st.sinks[0].errors, 20);
	cr_assert_eq(st.sinks[0].writes, 1);
	char got[64] = { 0 };
	cr_assert_gt(read(p[0], got, sizeof got - 1), 0);
	cr_assert_str_eq(got, "the reader is back\n");
	sr_log_close(&log);
	close(p[0]);
	close(p[1]);
}

Test(log, full_nonblocking_pipe_is_bounded, .timeout = 20)
{
	char *err = tl_with_stderr(full_pipe_body, NULL);
	cr_assert(strstr(err, "stayed full") != NULL, "reported: %s", err);
	free(err);
}

static void
callback_error_body(void *arg)
{
	(void)arg;
	tl_capture cap;
	sr_log *log = open_message_logger(&cap);
	cap.fail_with = 5;           /* before any record: the consumer has not read it yet */
	SR_INFO(sr_log_root(log), "a");
	SR_INFO(sr_log_root(log), "b");
	sr_log_flush(log);
	cr_assert_eq(tl_stats(log).sinks[0].errors, 2);
	sr_log_close(&log);
	cr_assert_eq(cap.closes, 1);
	tl_capture_free(&cap);
}

Test(log, callback_errors_are_counted)
{
	char *err = tl_with_stderr(callback_error_body, NULL);
	cr_assert(strstr(err, "write callback returned 5") != NULL, "reported: %s", err);
	free(err);
}

typedef struct writer_arg {
	sr_category *cat;
	int id;
	int count;
} writer_arg;

static void *
writer(void *arg)
{
	writer_arg *w = arg;
	for (int i = 0; i < w->count; i++)
		SR_INFO(w->cat, "writer %d message %d with a string %s", w->id, i, "0123456789abcdef");
	return NULL;
}

static void
close_drains_ex(sr_log_mode mode, bool immediate_flush)
{
	char path[64];
	tl_temp_path(path, sizeof path, "log");
	sr_sink_config s = sr_sink_file(path);
	s.file_mode = 0600;
	sr_log_config c;
	shared_config(&c, &s);
	c.mode = mode;
	c.immediate_flush = immediate_flush;
	c.ring_slots = 1024;
	sr_log *log = tl_open(&c);
	enum { THREADS = 3, EACH = 5000 };
	pthread_t t[THREADS];
	writer_arg w[THREADS];
	for (int i = 0; i < THREADS; i++) {
		w[i] = (writer_arg){ sr_log_category(log, "drain"), i, EACH };
		pthread_create(&t[i], NULL, writer, &w[i]);
	}
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	cr_assert_eq(sr_log_close(&log), SR_OK);
	cr_assert_null(log, "close clears the handle");
	cr_assert_eq(sr_log_close(&log), SR_OK, "closing twice is harmless");
	cr_assert_eq(tl_count_lines(path, " - writer "), THREADS * EACH, "every message is in the file");
	struct stat st;
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0600);
	unlink(path);
}

Test(log, close_drains_everything_ring, .timeout = 30) { close_drains_ex(SR_LOG_MODE_RING, true); }
Test(log, close_drains_everything_queue, .timeout = 30) { close_drains_ex(SR_LOG_MODE_QUEUE, true); }
Test(log, close_drains_everything_sync, .timeout = 30) { close_drains_ex(SR_LOG_MODE_SYNC, true); }
Test(log, close_drains_everything_sync_buffered, .timeout = 30) { close_drains_ex(SR_LOG_MODE_SYNC, false); }

static size_t
file_size(const char *path)
{
	struct stat st;
	cr_assert_eq(stat(path, &st), 0, "%s", path);
	return (size_t)st.st_size;
}

/* Sync mode without immediate_flush: lines wait in the sink's buffer until it fills or a flush. */
Test(log, sync_mode_without_immediate_flush_writes_when_the_buffer_fills_or_on_flush, .timeout = 30)
{
	char path[64];
	tl_temp_path(path, sizeof path, "log");
	sr_sink_config s = sr_sink_file(path);
	s.buffer_bytes = 4096;
	sr_log_config c;
	tl_configure(&c, &s, (tl_settings){ .ignore_environment = true, .mode = SR_LOG_MODE_SYNC,
	    .layout = SR_LOG_LAYOUT_MESSAGE });
	c.immediate_flush = false;
	sr_log *log = tl_open(&c);
	sr_category *root = sr_log_root(log);
	for (int i = 0; i < 10; i++)
		SR_INFO(root, "line %03d %s", i, "0123456789012345678901234567890123456789"); /* 50 bytes */
	cr_expect_eq(file_size(path), 0, "ten lines stay in the 4 KiB buffer");
	cr_assert_eq(sr_log_flush(log), SR_OK);
	cr_expect_eq(file_size(path), 10 * 50, "sr_log_flush writes them");
	for (int i = 10; i < 200; i++)
		SR_INFO(root, "line %03d %s", i, "0123456789012345678901234567890123456789");
	size_t partial = file_size(path);
	cr_expect_gt(partial, 10 * 50, "a full buffer is written without a flush");
	cr_expect_lt(partial, 200 * 50, "what is left stays buffered");
	cr_expect_eq(partial % 50, 0, "only whole lines are written: %zu bytes", partial);
	sr_log_counters st;
	sr_log_stats(log, &st);
	cr_expect_eq(st.written, 200);
	cr_assert_eq(sr_log_close(&log), SR_OK);
	cr_expect_eq(file_size(path), 200 * 50, "close writes the rest");
	cr_expect_eq(tl_count_lines(path, "line 199 "), 1);
	unlink(path);
}

/* The default writes each line before the call returns. */
Test(log, sync_mode_with_immediate_flush_writes_every_line_at_once)
{
	char path[64];
	tl_temp_path(path, sizeof path, "log");
	sr_log_config c;
	sr_log_config_default(&c);
	c.ignore_environment = true;
	cr_expect(c.immediate_flush, "immediate_flush is the default");
	c.mode = SR_LOG_MODE_SYNC;
	c.layout = SR_LOG_LAYOUT_MESSAGE;
	sr_sink_config s = sr_sink_file(path);
	c.sinks = &s;
	c.sink_count = 1;
	sr_log *log = tl_open(&c);
	SR_INFO(sr_log_root(log), "line %03d %s", 1, "0123456789012345678901234567890123456789");
	cr_expect_eq(file_size(path), 50);
	sr_log_close(&log);
	unlink(path);
}

Test(log, file_sink_defaults_and_append)
{
	char path[64];
	tl_temp_path(path, sizeof path, "log");
	int fd = open(path, O_WRONLY | O_CREAT, 0600);
	cr_assert_eq(write(fd, "existing\n", 9), 9);
	close(fd);
	sr_sink_config s = sr_sink_file(path);
	sr_log_config c;
	shared_config(&c, &s);
	c.ring_slots = 64;
	sr_log *log = sr_log_open(&c, NULL);
	SR_INFO(sr_log_root(log), "appended");
	sr_log_close(&log);
	cr_assert_eq(tl_count_lines(path, NULL), 2, "O_APPEND keeps what was there");
	unlink(path);
	/* A new file gets 0640 (less the umask). */
	mode_t old = umask(0);
	log = sr_log_open(&c, NULL);
	sr_log_close(&log);
	umask(old);
	struct stat st;
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0640);
	unlink(path);
}

Test(log, modes_produce_the_same_text)
{
	static const sr_log_mode modes[] = { SR_LOG_MODE_RING, SR_LOG_MODE_QUEUE, SR_LOG_MODE_SYNC };
	tl_capture cap[3];
	for (int m = 0; m < 3; m++) {
		sr_log *log = open_capture(&cap[m], modes[m], SR_LOG_FULL_BLOCK, 64, 128, SR_LOG_LAYOUT_MESSAGE);
		sr_category *c = sr_log_category(log, "same");
		SR_INFO(c, "x=%d y=%f s=%s", 42, 2.5, "text");
		SR_WARN(c, "%-8s|%08.3f|%#x|%c", "left", -1.5, 255u, 'q');
		int n;
		SR_ERROR(c, "refused %n", &n);
		sr_log_close(&log);
		cr_assert_eq(cap[m].count, 3, "mode %s", sr_log_mode_name(modes[m]));
		cr_assert_eq(cap[m].closes, 1);
	}
	for (int m = 1; m < 3; m++)
		for (size_t i = 0; i < 3; i++)
			cr_assert_str_eq(cap[m].lines[i], cap[0].lines[i], "mode %s line %zu",
			    sr_log_mode_name(modes[m]), i);
	cr_assert_str_eq(cap[0].lines[0], "x=42 y=2.500000 s=text");
	for (int m = 0; m < 3; m++)
		tl_capture_free(&cap[m]);
}

Test(log, shutdown_then_log_is_a_no_op, WITH_LOGGER)
{
	sr_category *c = sr_log_category(logger, "late");
	SR_INFO(c, "before");
	cr_assert_eq(sr_log_shutdown(logger), SR_OK);
	cr_assert_eq(sr_log_shutdown(logger), SR_OK, "idempotent");
	evaluations = 0;
	SR_FATAL(c, "after %d", side_effect());
	cr_assert_eq(evaluations, 0, "every category is off after shutdown");
	cr_assert_eq(sr_log_flush(logger), SR_ESTATE);
	sr_error err;
	cr_assert_null(sr_log_category_get(logger, "new", &err));
	cr_assert_eq(err.code, SR_ESTATE);
	cr_assert_eq(tl_capture_count(&sink), 1);
	cr_assert_eq(sink.closes, 1);
	sr_log_close(&logger);
	cr_assert_eq(sr_log_close(NULL), SR_OK);
}

/*
 * close_at_exit runs in a fresh process: this binary re-executed with
 * SEQRING_TEST_EXIT_CHILD=<path>, caught by a constructor before Criterion's
 * main.  (A fork of a Criterion worker would inherit its threads' records.)
 */
__attribute__((constructor)) static void
exit_child(void)
{
	const char *path = getenv("SEQRING_TEST_EXIT_CHILD");
	if (path == NULL)
		return;
	sr_sink_config s = sr_sink_file(path);
	sr_log_config c;
	shared_config(&c, &s);
	c.ring_slots = 1024;
	c.close_at_exit = true;
	sr_log *log = sr_log_open(&c, NULL);
	if (log == NULL)
		_exit(3);
	sr_log_set_default(log);
	for (int i = 0; i < 3000; i++)
		SR_INFO(sr_log_category(sr_log_default(), "exit"), "line %d", i);
	exit(0);        /* no close: the atexit handler drains */
}

Test(log, close_at_exit_writes_everything)
{
	char path[64];
	tl_temp_path(path, sizeof path, "log");
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		setenv("SEQRING_TEST_EXIT_CHILD", path, 1);
		execl("/proc/self/exe", "test_log", (char *)NULL);
		_exit(4);
	}
	int status;
	waitpid(pid, &status, 0);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
	cr_assert_eq(tl_count_lines(path, " - line "), 3000);
	unlink(path);
}

Test(log, stats_and_default_logger, WITH_LOGGER)
{
	cr_assert_null(sr_log_default());
	sr_log_set_default(logger);
	cr_assert_eq(sr_log_default(), logger);
	for (int i = 0; i < 10; i++)
		SR_INFO(sr_log_root(logger), "%d", i);
	sr_log_flush(logger);
	sr_log_counters st = tl_stats(logger);
	cr_assert_eq(st.accepted, 10);
	cr_assert_eq(st.written, 10);
	cr_assert_eq(st.capacity, 64);
	cr_assert_geq(st.batches, 1);
	cr_assert_eq(st.sink_count, 1);
	cr_assert_eq(st.sinks[0].messages, 10);
	cr_assert_eq(st.sinks[0].writes, 10, "a callback counts one write per line");
	cr_assert_geq(sink.flushes, 1, "flush callbacks run at the end of batches");
	cr_assert_eq(sr_log_stats(NULL, &st), SR_EINVAL);
	sr_log_close(&logger);
	cr_assert_null(sr_log_default(), "closing the default logger clears it");
}

Test(log, fd_sink_enlarges_its_pipe)
{
	int p[2];
	cr_assert_eq(pipe(p), 0);
	sr_sink_config s = sr_sink_fd(p[1]);
	s.pipe_bytes = 256 * 1024;
	sr_log_config c;
	shared_config(&c, &s);
	c.ring_slots = 64;
	sr_log *log = tl_open(&c);
	cr_assert_geq(fcntl(p[1], F_GETPIPE_SZ), 256 * 1024);
	sr_log_close(&log);
	/* Not a pipe, or out of range: errors that name the field. */
	s = sr_sink_fd(2);
	s.pipe_bytes = 1 << 20;
	int devnull = open("/dev/null", O_WRONLY);
	s.fd = devnull;
	sr_error err;
	cr_assert_null(sr_log_open(&c, &err));
	cr_assert(strstr(err.message, "config.sinks[0].pipe_bytes 1048576 is set but fd") != NULL, "%s", err.message);
	s.pipe_bytes = 100;
	cr_assert_null(sr_log_open(&c, &err));
	cr_assert(strstr(err.message, "config.sinks[0].pipe_bytes 100 is out of range") != NULL, "%s", err.message);
	close(devnull);
	close(p[0]);
	close(p[1]);
}

Test(log, fd_sink_batches_writes)
{
	int p[2];
	cr_assert_eq(pipe(p), 0);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	sr_log *log = open_fd_sink(SR_LOG_MODE_RING, p[1], 100);
	sr_log_flush(log);
	for (int i = 0; i < 50; i++)
		SR_INFO(sr_log_root(log), "burst %d", i);
	sr_log_flush(log);
	sr_log_counters st = tl_stats(log);
	cr_assert_eq(st.sinks[0].messages, 50);
	cr_assert_lt(st.sinks[0].writes, 50, "a burst is written in batches, not per message (%lu writes)",
	    (unsigned long)st.sinks[0].writes);
	char buf[8192];
	ssize_t n = read(p[0], buf, sizeof buf);
	cr_assert_gt(n, 0);
	sr_log_close(&log);
	close(p[0]);
	close(p[1]);
}

/* ---------------------------------------------------------------------------------------- */
/* Configuration errors                                                                     */

TL_MUTATION(bad_mode, c->mode = (sr_log_mode)7)
TL_MUTATION(bad_slots, c->ring_slots = 1000)
TL_MUTATION(bad_slots_small, c->ring_slots = 1)
TL_MUTATION(bad_slot_size, c->slot_size = 96)
TL_MUTATION(bad_slot_size_small, c->slot_size = 32)
TL_MUTATION(bad_wait, c->wait_strategy = "snooze")
TL_MUTATION(bad_wait_param, c->wait_strategy = "timeout:timeout=0")
TL_MUTATION(bad_policy, c->full_policy = (sr_log_full_policy)9)
TL_MUTATION(bad_discard, c->discard_level = SR_LOG_OFF)
TL_MUTATION(bad_level, c->level = (sr_log_level)-3)
TL_MUTATION(bad_max_message, c->max_message_bytes = 100)
TL_MUTATION(bad_max_message_ring, { c->producer = SR_LOG_PRODUCER_SHARED; c->ring_slots = 8; c->slot_size = 64;
    c->max_message_bytes = 1024; })
TL_MUTATION(bad_max_line, c->max_line_bytes = 10)
TL_MUTATION(bad_layout, c->layout = (sr_log_layout)5)
TL_MUTATION(bad_sink_count, c->sink_count = 17)
TL_MUTATION(bad_sinks_null, c->sinks = NULL)
TL_MUTATION(bad_sink_kind, s->kind = (sr_sink_kind)8)
TL_MUTATION(bad_sink_level, s->level = (sr_log_level)12)
TL_MUTATION(bad_sink_path, s->path = NULL)
TL_MUTATION(bad_sink_path_empty, s->path = "")
TL_MUTATION(bad_sink_mode, s->file_mode = 010000)
TL_MUTATION(bad_sink_buffer, s->buffer_bytes = 10)
TL_MUTATION(bad_sink_timeout, s->write_timeout_ms = -1)
TL_MUTATION(bad_sink_fd, { s->kind = SR_SINK_FD; s->fd = 12345; })
TL_MUTATION(bad_sink_callback, { s->kind = SR_SINK_CALLBACK; s->write = NULL; })
TL_MUTATION(bad_thread_name, c->thread_name = "a-name-that-is-too-long")
TL_MUTATION(bad_file_dir, s->path = "/nonexistent-dir/seqring/x.log")

Test(log, every_bad_configuration_value_is_an_error)
{
	static const struct {
		tl_mutation *fn;
		int code;
		const char *names;
	} cases[] = {
		{ bad_mode, SR_EINVAL, "config.mode 7" },
		{ bad_slots, SR_EINVAL, "config.ring_slots 1000 is invalid: expected a power of two" },
		{ bad_slots_small, SR_EINVAL, "config.ring_slots 1" },
		{ bad_slot_size, SR_EINVAL, "config.slot_size 96" },
		{ bad_slot_size_small, SR_EINVAL, "from 64 to 65536" },
		{ bad_wait, SR_EINVAL, "config.wait_strategy 'snooze'" },
		{ bad_wait_param, SR_EINVAL, "config.wait_strategy 'timeout:timeout=0'" },
		{ bad_policy, SR_EINVAL, "config.full_policy 9" },
		{ bad_discard, SR_EINVAL, "config.discard_level 6" },
		{ bad_level, SR_EINVAL, "config.level -3" },
		{ bad_max_message, SR_EINVAL, "config.max_message_bytes 100 is out of range: expected 1024 to" },
		{ bad_max_message_ring, SR_EINVAL, "exceeds the ring (8 slots x 64 bytes)" },
		{ bad_max_line, SR_EINVAL, "config.max_line_bytes 10" },
		{ bad_layout, SR_EINVAL, "config.layout 5" },
		{ bad_sink_count, SR_EINVAL, "config.sink_count 17 is out of range: expected 0 to 16" },
		{ bad_sinks_null, SR_EINVAL, "config.sinks is NULL" },
		{ bad_sink_kind, SR_EINVAL, "config.sinks[0].kind 8" },
		{ bad_sink_level, SR_EINVAL, "config.sinks[0].level 12" },
		{ bad_sink_path, SR_EINVAL, "config.sinks[0].path is NULL" },
		{ bad_sink_path_empty, SR_EINVAL, "config.sinks[0].path is empty" },
		{ bad_sink_mode, SR_EINVAL, "config.sinks[0].file_mode 010000" },
		{ bad_sink_buffer, SR_EINVAL, "config.sinks[0].buffer_bytes 10 is out of range" },
		{ bad_sink_timeout, SR_EINVAL, "config.sinks[0].write_timeout_ms -1" },
		{ bad_sink_fd, SR_EINVAL, "config.sinks[0].fd 12345 is not an open file descriptor" },
		{ bad_sink_callback, SR_EINVAL, "config.sinks[0].write is NULL" },
		{ bad_thread_name, SR_EINVAL, "config.thread_name" },
		{ bad_file_dir, SR_ESYS, "config.sinks[0].path '/nonexistent-dir/seqring/x.log' cannot be opened: No such file" },
	};
	char path[64];
	tl_temp_path(path, sizeof path, "log");
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		sr_log_config c;
		sr_sink_config s;
		tl_mutated_config(&c, &s, path, cases[i].fn);
		sr_error err = tl_open_refused(&c, "case %zu", i);
		cr_expect_eq(err.code, cases[i].code, "case %zu: code %d (%s)", i, err.code, err.message);
		cr_expect(strstr(err.message, cases[i].names) != NULL, "case %zu: \"%s\" should contain \"%s\"",
		    i, err.message, cases[i].names);
	}
	/* A failure after the first sinks opened leaks nothing (ASan's leak check) and keeps fds. */
	sr_sink_config two[2] = { sr_sink_file(path), sr_sink_file("/nonexistent-dir/x.log") };
	sr_log_config c;
	sr_log_config_default(&c);
	c.sinks = two;
	c.sink_count = 2;
	cr_assert_null(sr_log_open(&c, NULL));
	/* Defaults are valid, and NULL means defaults (a stderr sink). */
	sr_log_config_default(&c);
	c.ring_slots = 64;
	sr_log *log = tl_open(&c);
	sr_log_close(&log);
	unlink(path);
}

Test(log, default_configuration_opens)
{
	sr_error err;
	sr_log *log = sr_log_open(NULL, &err);
	cr_assert_not_null(log, "%s", err.message);
	sr_log_counters st = tl_stats(log);
	/* The default producer is per_thread: the capacity is each thread's ring, thread_ring_slots. */
	cr_assert_eq(st.capacity, 16384);
	cr_assert_eq(sr_category_level(sr_log_root(log)), SR_LOG_INFO);
	sr_log_close(&log);
}
