/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_log_edges_config.c: the settings of a process's edges: close_at_exit
 * (on by default), exit_timeout_ms and fork_policy, from the code and from
 * the environment (SEQRING_LOG_EXIT_TIMEOUT_MS, SEQRING_LOG_FORK), and what
 * sr_log_describe says of them.  Each Criterion test runs in a process of
 * its own, so setenv stays within it.
 */
#include "test_log_support.h"

#include <stdlib.h>
#include <string.h>

static sr_log_config
null_config(sr_sink_config *sink)
{
	*sink = sr_sink_null();
	sr_log_config c;
	tl_config_sink(&c, sink);
	return c;
}

Test(log_edges_config, defaults)
{
	sr_log_config c;
	sr_log_config_default(&c);
	cr_expect(c.close_at_exit, "close_at_exit is on by default");
	cr_expect_eq(c.exit_timeout_ms, 5000);
	cr_expect_eq(c.fork_policy, SR_LOG_FORK_RESTART);
}

Test(log_edges_config, bad_values_from_the_code)
{
	tl_clear_env();
	sr_sink_config s;
	sr_log_config c = null_config(&s);
	c.exit_timeout_ms = -1;
	sr_error err = tl_open_refused(&c, "exit_timeout_ms -1");
	cr_expect_not_null(strstr(err.message, "config.exit_timeout_ms -1 is out of range"), "%s", err.message);
	c = null_config(&s);
	c.fork_policy = (sr_log_fork_policy)7;
	err = tl_open_refused(&c, "fork_policy 7");
	cr_expect_not_null(strstr(err.message, "config.fork_policy 7 is invalid"), "%s", err.message);
}

Test(log_edges_config, from_the_environment)
{
	tl_clear_env();
	setenv("SEQRING_LOG_EXIT_TIMEOUT_MS", "250", 1);
	setenv("SEQRING_LOG_FORK", "drop", 1);
	sr_sink_config s;
	sr_log_config c = null_config(&s);
	sr_log *log = tl_open(&c);
	char *text = tl_describe(log);
	char row[256];
	cr_expect_not_null(tl_row(text, "exit_timeout_ms", row, sizeof row), "%s", text);
	cr_expect_not_null(strstr(row, "250 ms"), "%s", row);
	cr_expect_not_null(strstr(row, "SEQRING_LOG_EXIT_TIMEOUT_MS"), "%s", row);
	cr_expect_not_null(tl_row(text, "fork_policy", row, sizeof row), "%s", text);
	cr_expect_not_null(strstr(row, "drop"), "%s", row);
	free(text);
	sr_log_close(&log);

	setenv("SEQRING_LOG_FORK", "sometimes", 1);
	c = null_config(&s);
	sr_error err = tl_open_refused(&c, "SEQRING_LOG_FORK=sometimes");
	cr_expect_not_null(strstr(err.message, "SEQRING_LOG_FORK 'sometimes' is invalid: expected restart or drop"),
	    "%s", err.message);
	unsetenv("SEQRING_LOG_FORK");
	setenv("SEQRING_LOG_EXIT_TIMEOUT_MS", "4000000", 1);
	c = null_config(&s);
	err = tl_open_refused(&c, "SEQRING_LOG_EXIT_TIMEOUT_MS=4000000");
	cr_expect_not_null(strstr(err.message, "SEQRING_LOG_EXIT_TIMEOUT_MS"), "%s", err.message);
}
