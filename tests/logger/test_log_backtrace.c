/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_log_backtrace.c: the backtrace (flight recorder).
 *
 * Messages below their category's level but at or above backtrace_level are
 * kept, not written; a message at or above the trigger writes the last N of
 * them first, oldest first, marked; then they are gone.  Also: what is too
 * low is not kept, the sinks that take the trigger get the context, JSON
 * marks it, sr_log_dump_backtrace, run-time level changes, the counters,
 * and the configuration errors.
 */
#include "test_log_support.h"

/* Begins t: a logger at info whose backtrace keeps `size` messages from `level` up, for `trigger`. */
static sr_log *
open_bt(tl_setup *t, int size, sr_log_level level, sr_log_level trigger, sr_log_layout layout)
{
	sr_log_config *c = tl_setup_begin(t);
	c->layout = layout;
	c->level = SR_LOG_INFO;
	c->backtrace_size = size;
	c->backtrace_level = level;
	c->backtrace_trigger = trigger;
	return tl_open(c);
}

static void
expect_lines(tl_capture *cap, const char *const *want, size_t n)
{
	cr_assert_eq(cap->count, n, "%zu lines", cap->count);
	for (size_t i = 0; i < n; i++)
		cr_expect_str_eq(cap->lines[i], want[i], "line %zu", i);
}

Test(log_backtrace, a_trigger_writes_the_last_n_kept_messages_first)
{
	tl_setup t;
	sr_log *log = open_bt(&t, 4, SR_LOG_DEBUG, SR_LOG_ERROR, SR_LOG_LAYOUT_MESSAGE);
	sr_category *cat = sr_log_category(log, "app");
	cr_expect_eq(sr_category_level(cat), SR_LOG_INFO, "the effective level is unchanged");
	cr_expect(SR_LOG_ENABLED(cat, SR_LOG_DEBUG), "debug reaches the ring");
	cr_expect(!SR_LOG_ENABLED(cat, SR_LOG_TRACE), "trace does not");
	for (int i = 1; i <= 6; i++)
		SR_DEBUG(cat, "d%d", i);
	SR_TRACE(cat, "t1");
	SR_INFO(cat, "i1");
	SR_WARN(cat, "w1");
	sr_log_flush(log);
	static const char *const before[] = { "i1", "w1" };
	expect_lines(&t.cap, before, 2);
	SR_ERROR(cat, "e1");
	SR_ERROR(cat, "e2");     /* nothing kept since e1 */
	SR_DEBUG(cat, "d7");
	SR_FATAL(cat, "f1");
	sr_log_flush(log);
	static const char *const after[] = {
		"i1", "w1",
		"[backtrace] d3", "[backtrace] d4", "[backtrace] d5", "[backtrace] d6", "e1",
		"e2",
		"[backtrace] d7", "f1",
	};
	expect_lines(&t.cap, after, sizeof after / sizeof *after);
	sr_log_counters st;
	sr_log_stats(log, &st);
	cr_expect_eq(st.backtrace_written, 5);
	cr_expect_eq(st.backtrace_discarded, 2);
	cr_expect_eq(st.written, 5, "backtrace lines are counted apart");
	sr_log_close(&log);
	tl_setup_end(&t);
}

Test(log_backtrace, text_and_json_marks_and_sink_levels)
{
	tl_clear_env();
	tl_capture all, errors;
	tl_capture_init(&all);
	tl_capture_init(&errors);
	sr_log_config c;
	sr_sink_config s[2];
	tl_config(&c, &s[0], &all);
	s[1] = sr_sink_callback(tl_capture_write, &errors);
	s[1].level = SR_LOG_ERROR;
	c.sinks = s;
	c.sink_count = 2;
	c.layout = SR_LOG_LAYOUT_JSON;
	c.backtrace_size = 8;
	sr_log *log = tl_open(&c);
	sr_category *cat = sr_log_category(log, "db");
	SR_TRACE(cat, "context %d", 1);
	SR_ERROR(cat, "failure");
	sr_log_close(&log);
	/* The error sink takes the trigger, so it gets the context too. */
	for (int k = 0; k < 2; k++) {
		tl_capture *cap = k == 0 ? &all : &errors;
		cr_assert_eq(cap->count, 2);
		cr_expect(strstr(cap->lines[0], "\"msg\":\"context 1\"") != NULL, "%s", cap->lines[0]);
		cr_expect(strstr(cap->lines[0], "\"level\":\"trace\"") != NULL, "%s", cap->lines[0]);
		cr_expect(strstr(cap->lines[0], ",\"backtrace\":true}") != NULL, "%s", cap->lines[0]);
		cr_expect(strstr(cap->lines[1], "\"msg\":\"failure\"") != NULL, "%s", cap->lines[1]);
		cr_expect(strstr(cap->lines[1], "\"backtrace\":true") == NULL, "%s", cap->lines[1]);
	}
	tl_capture_free(&all);
	tl_capture_free(&errors);

	/* The text layout puts the mark first. */
	tl_setup t;
	log = open_bt(&t, 8, SR_LOG_TRACE, SR_LOG_WARN, SR_LOG_LAYOUT_TEXT);
	SR_DEBUG(sr_log_root(log), "ctx");
	SR_WARN(sr_log_root(log), "warned");
	sr_log_close(&log);
	cr_assert_eq(t.cap.count, 2);
	cr_expect(strncmp(t.cap.lines[0], "[backtrace] 20", 14) == 0, "%s", t.cap.lines[0]);
	cr_expect(strstr(t.cap.lines[0], " DEBUG [main] root - ctx (test_log_backtrace.c:") != NULL, "%s", t.cap.lines[0]);
	cr_expect(strstr(t.cap.lines[1], " WARN  [main] root - warned (") != NULL, "%s", t.cap.lines[1]);
	tl_setup_end(&t);
}

Test(log_backtrace, dump_on_demand_and_level_changes)
{
	tl_setup t;
	sr_log *log = open_bt(&t, 16, SR_LOG_TRACE, SR_LOG_ERROR, SR_LOG_LAYOUT_MESSAGE);
	sr_category *cat = sr_log_category(log, "net");
	SR_DEBUG(cat, "kept 1");
	cr_assert_eq(sr_log_dump_backtrace(log), SR_OK);
	cr_assert_eq(t.cap.count, 1);
	cr_expect_str_eq(t.cap.lines[0], "[backtrace] kept 1");
	cr_assert_eq(sr_log_dump_backtrace(log), SR_OK);
	cr_expect_eq(t.cap.count, 1, "emptied by the dump");
	/* Once the category's level is debug, debug messages are written, not kept. */
	sr_error err;
	cr_assert_eq(sr_log_set_level(log, "net", SR_LOG_DEBUG, &err), SR_OK);
	SR_DEBUG(cat, "written");
	SR_TRACE(cat, "kept 2");
	SR_ERROR(cat, "boom");
	sr_log_close(&log);
	static const char *const want[] = { "[backtrace] kept 1", "written", "[backtrace] kept 2", "boom" };
	expect_lines(&t.cap, want, 4);
	tl_setup_end(&t);
	/* Without a backtrace, or not in ring mode. */
	sr_log_config *c = tl_setup_begin(&t);
	log = tl_open(c);
	cr_expect_eq(sr_log_dump_backtrace(log), SR_ESTATE);
	sr_log_close(&log);
	cr_expect_eq(sr_log_dump_backtrace(NULL), SR_EINVAL);
	c->backtrace_size = 10;
	c->mode = SR_LOG_MODE_QUEUE;
	cr_expect_null(sr_log_open(c, &err));
	cr_expect_str_eq(err.message, "config.backtrace_size 10 needs mode ring (mode is queue): the backtrace lives on "
	    "the consumer");
	c->mode = SR_LOG_MODE_RING;
	c->backtrace_size = 70000;
	cr_expect_null(sr_log_open(c, &err));
	cr_expect_str_eq(err.message, "config.backtrace_size 70000 is out of range: expected 0 (off) to 65536");
	c->backtrace_size = 10;
	c->backtrace_trigger = SR_LOG_OFF;
	cr_expect_null(sr_log_open(c, &err));
	cr_expect_str_eq(err.message, "config.backtrace_trigger 6 is invalid: expected SR_LOG_TRACE (0) to SR_LOG_FATAL (5)");
	tl_setup_end(&t);
}

Test(log_backtrace, many_messages_keep_only_the_newest, .timeout = 20)
{
	tl_setup t;
	sr_log *log = open_bt(&t, 100, SR_LOG_DEBUG, SR_LOG_ERROR, SR_LOG_LAYOUT_MESSAGE);
	sr_category *cat = sr_log_root(log);
	for (int i = 0; i < 50000; i++)
		SR_DEBUG(cat, "debug %d with a string %s", i, i % 3 ? "short" : "a longer string that spans slots .........");
	SR_ERROR(cat, "the error");
	sr_log_close(&log);
	cr_assert_eq(t.cap.count, 101);
	for (int i = 0; i < 100; i++) {
		char want[128];
		int n = 49900 + i;
		snprintf(want, sizeof want, "[backtrace] debug %d with a string %s", n,
		    n % 3 ? "short" : "a longer string that spans slots .........");
		cr_expect_str_eq(t.cap.lines[i], want);
	}
	cr_expect_str_eq(t.cap.lines[100], "the error");
	tl_setup_end(&t);
}
