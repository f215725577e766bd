/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_log_category_names.c: category names as a new user writes them, and
 * handles that write nothing saying so.
 *
 * UTF-8 names are accepted everywhere a name goes (handles, run-time levels,
 * SEQRING_LOG) and written as they are; "" is the root; a refused name is
 * reported on stderr once, by name, with its control characters escaped;
 * an over-long one says so; a program that logs through the categories of a
 * logger that failed to open gets one line on stderr saying why.
 */
#include "test_log_support.h"

Test(log_category_names, utf8_names_are_accepted_and_written)
{
	tl_setup t;
	sr_log_config *c = tl_setup_begin(&t);
	c->layout = SR_LOG_LAYOUT_TEXT;
	setenv("SEQRING_LOG", "warn,caf\xc3\xa9=debug", 1);
	c->ignore_environment = false;
	sr_log *log = tl_open(c);
	sr_error err;
	sr_category *cafe = sr_log_category_get(log, "caf\xc3\xa9.cr\xc3\xa8me", &err);
	cr_assert_not_null(cafe, "%s", err.message);
	cr_expect_eq(sr_category_level(cafe), SR_LOG_DEBUG, "SEQRING_LOG's UTF-8 prefix applies");
	sr_category *jp = sr_log_category(log, "\xe6\x97\xa5\xe6\x9c\xac.\xf0\x9f\x93\xa6");
	cr_assert_neq(jp, &sr_category_off);
	cr_expect_eq(sr_log_set_level(log, "\xe6\x97\xa5\xe6\x9c\xac", SR_LOG_INFO, &err), SR_OK, "%s", err.message);
	cr_expect_eq(sr_category_level(jp), SR_LOG_INFO);
	SR_DEBUG(cafe, "bonjour");
	SR_INFO(jp, "konnichiwa");
	/* "" is the root, as in Log4j. */
	cr_expect_eq(sr_log_category(log, ""), sr_log_root(log));
	cr_assert_eq(tl_flushed_count(log, &t.cap), 2);
	cr_expect_not_null(strstr(t.cap.lines[0], " caf\xc3\xa9.cr\xc3\xa8me - bonjour"), "%s", t.cap.lines[0]);
	cr_expect_not_null(strstr(t.cap.lines[1], " \xe6\x97\xa5\xe6\x9c\xac.\xf0\x9f\x93\xa6 - konnichiwa"),
	    "%s", t.cap.lines[1]);
	sr_log_close(&log);
	tl_setup_end(&t);
}

Test(log_category_names, a_refused_name_is_said_once_by_name)
{
	tl_setup t;
	sr_log *log = tl_open(tl_setup_begin(&t));
	char long_name[301];
	memset(long_name, 'x', 300);
	long_name[300] = '\0';
	tl_stderr s;
	tl_stderr_begin(&s);
	for (int round = 0; round < 3; round++) {
		SR_ERROR(sr_log_category(log, "bad name"), "lost");
		SR_ERROR(sr_log_category(log, "new\nline"), "lost");
		SR_ERROR(sr_log_category(log, "broken\xc3"), "lost");
		SR_ERROR(sr_log_category(log, long_name), "lost");
	}
	char *text = tl_stderr_end(&s);
	cr_expect_eq(tl_count_of(text, "\n"), 4, "one line per name:\n%s", text);
	cr_expect_eq(tl_count_of(text, "seqring: category name 'bad name' is invalid"), 1, "%s", text);
	cr_expect_eq(tl_count_of(text, "category name 'new\\nline' is invalid"), 1, "escaped:\n%s", text);
	cr_expect_eq(tl_count_of(text, "category name 'broken\\xc3' is invalid"), 0, "UTF-8 bytes stay:\n%s", text);
	cr_expect_eq(tl_count_of(text, "category name 'broken\xc3' is invalid"), 1, "%s", text);
	cr_expect_eq(tl_count_of(text, "(it has more bytes)"), 1, "the over-long one:\n%s", text);
	cr_expect_eq(tl_count_of(text, "nothing logged through it is written"), 4, "%s", text);
	free(text);
	cr_expect_eq(tl_flushed_count(log, &t.cap), 0);
	sr_log_close(&log);
	tl_setup_end(&t);
}

Test(log_category_names, many_refused_names_end_in_one_line)
{
	tl_setup t;
	sr_log *log = tl_open(tl_setup_begin(&t));
	tl_stderr s;
	tl_stderr_begin(&s);
	for (int i = 0; i < 100; i++) {
		char name[32];
		snprintf(name, sizeof name, "bad=%d", i);
		(void)sr_log_category(log, name);
	}
	char *text = tl_stderr_end(&s);
	cr_expect_eq(tl_count_of(text, "is invalid"), 32, "%s", text);
	cr_expect_eq(tl_count_of(text, "refused more category names"), 1, "%s", text);
	cr_expect_eq(tl_count_of(text, "\n"), 33);
	free(text);
	sr_log_close(&log);
	tl_setup_end(&t);
}

/* A failed open, then logging anyway, as the README's snippet once did. */
static void
log_without_checking(bool with_err)
{
	tl_clear_env();
	sr_log_config c;
	sr_log_config_default(&c);
	c.ignore_environment = true;
	c.ring_slots = 1000;    /* not a power of two */
	sr_error err;
	tl_stderr s;
	tl_stderr_begin(&s);
	sr_log *log = sr_log_open(&c, with_err ? &err : NULL);
	sr_category *net = sr_log_category(log, "net");
	for (int i = 0; i < 5; i++) {
		SR_INFO(net, "request %d", i);
		SR_WARN(sr_log_root(log), "root %d", i);
	}
	char *text = tl_stderr_end(&s);
	cr_assert_null(log);
	cr_expect_eq(tl_count_of(text, "\n"), 1, "one line:\n%s", text);
	cr_expect_eq(tl_count_of(text, "seqring: nothing is logged: sr_log_open failed: config.ring_slots 1000 is "
	    "invalid: expected a power of two"), 1, "%s", text);
	cr_expect_eq(sr_category_level(net), SR_LOG_OFF);
	free(text);
}

Test(log_category_names, logging_through_a_failed_open_says_why_once) { log_without_checking(true); }
Test(log_category_names, says_why_without_an_error_struct) { log_without_checking(false); }

Test(log_category_names, a_null_logger_never_opened_says_so)
{
	tl_stderr s;
	tl_stderr_begin(&s);
	SR_ERROR(sr_log_category(NULL, "x"), "nothing");
	SR_ERROR(sr_log_category(NULL, "y"), "nothing");
	char *text = tl_stderr_end(&s);
	cr_expect_eq(tl_count_of(text, "\n"), 1, "%s", text);
	cr_expect_eq(tl_count_of(text, "a category of a NULL logger"), 1, "%s", text);
	free(text);
}

/*
 * A failure the program handled, then a good open and its close: the line of
 * a call through the NULL default logger must not send the reader to the
 * config that was fixed, but say what is true (no logger).
 */
Test(log_category_names, a_good_open_forgets_an_earlier_failure)
{
	tl_clear_env();
	sr_log_config c;
	sr_log_config_default(&c);
	c.ignore_environment = true;
	c.mode = (sr_log_mode)99;
	sr_error err;
	cr_assert_null(sr_log_open(&c, &err));
	cr_expect(strstr(err.message, "config.mode 99 is invalid") != NULL, "%s", err.message);
	c.mode = SR_LOG_MODE_RING;
	sr_sink_config sink = sr_sink_null();
	c.sinks = &sink;
	c.sink_count = 1;
	sr_log *log = tl_open(&c);
	sr_log_set_default(log);
	sr_log_close(&log);
	tl_stderr s;
	tl_stderr_begin(&s);
	SR_ERROR(sr_log_category(sr_log_default(), "net"), "lost %d", 1);
	char *text = tl_stderr_end(&s);
	cr_expect_eq(tl_count_of(text, "\n"), 1, "%s", text);
	cr_expect_eq(tl_count_of(text, "config.mode 99"), 0, "%s", text);
	cr_expect_eq(tl_count_of(text, "seqring: nothing is logged: a log call went through a category of a NULL "
	    "logger"), 1, "%s", text);
	free(text);
}

/* A thread whose own ring of another logger is cached still says why a NULL logger writes nothing. */
Test(log_category_names, a_null_logger_says_so_beside_a_per_thread_logger)
{
	tl_setup t;
	sr_log_config *c = tl_setup_begin(&t);
	c->producer = SR_LOG_PRODUCER_PER_THREAD;
	sr_log *log = tl_open(c);
	SR_WARN(sr_log_root(log), "cached %d", 1);   /* this thread's ring for log is cached now */
	tl_stderr s;
	tl_stderr_begin(&s);
	SR_WARN(sr_log_category(NULL, "x"), "lost %d", 2);
	SR_WARN(sr_log_category(NULL, "x"), "lost %d", 3);
	char *text = tl_stderr_end(&s);
	cr_expect_eq(tl_count_of(text, "seqring: nothing is logged"), 1, "%s", text);
	free(text);
	SR_WARN(sr_log_root(log), "cached %d", 4);
	cr_expect_eq(tl_flushed_count(log, &t.cap), 2);
	sr_log_close(&log);
	tl_setup_end(&t);
}
