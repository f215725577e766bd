/* SPDX-License-Identifier: Apache-2.0 */
/*
 * log_open.c: opening a logger for a test, and reading its statistics and
 * description, each failing the test when the logger refuses; and a config
 * that the logger must refuse.
 */
#include <stdarg.h>

#include "test_log_support.h"

void
tl_config(sr_log_config *c, sr_sink_config *sink, tl_capture *cap)
{
	*sink = sr_sink_callback(tl_capture_write, cap);
	tl_config_sink(c, sink);
	c->ring_slots = 1024;
	c->ignore_environment = true;
	c->wait_strategy = "timeout:timeout=5ms";
}

sr_log_config *
tl_setup_begin(tl_setup *t)
{
	tl_clear_env();
	tl_capture_init(&t->cap);
	tl_config(&t->config, &t->sink, &t->cap);
	return &t->config;
}

void
tl_setup_end(tl_setup *t)
{
	tl_capture_free(&t->cap);
}

sr_log *
tl_open(const sr_log_config *c)
{
	sr_error err;
	sr_log *log = sr_log_open(c, &err);
	cr_assert_not_null(log, "sr_log_open failed: %s", err.message);
	return log;
}

size_t
tl_flushed_count(sr_log *log, tl_capture *cap)
{
	cr_assert_eq(sr_log_flush(log), SR_OK);
	return tl_capture_count(cap);
}

void
tl_close(sr_log **logp, tl_capture *cap)
{
	sr_log_close(logp);
	tl_capture_free(cap);
}

sr_error
tl_open_refused(const sr_log_config *c, const char *fmt, ...)
{
	char what[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	sr_error err = { .code = 12345, .message = "untouched" };
	sr_log *log = sr_log_open(c, &err);
	cr_expect_null(log, "%s should be refused", what);
	if (log != NULL)
		sr_log_close(&log);
	return err;
}

sr_log_counters
tl_stats(sr_log *log)
{
	sr_log_counters st;
	cr_assert_eq(sr_log_stats(log, &st), SR_OK);
	return st;
}

char *
tl_describe(sr_log *log)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	cr_assert_not_null(f);
	cr_assert_eq(sr_log_describe(log, f), SR_OK);
	fclose(f);
	return text;
}
