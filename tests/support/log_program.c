/* SPDX-License-Identifier: Apache-2.0 */
/*
 * log_program.c: what the plain test programs that run other programs
 * (rsyslogd, logrotate, script) share: a temporary directory removed at
 * exit, and a failure that ends the program so that its atexit handlers
 * (stopping what it started) run.
 */
#include "log_support.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char temp_dir[64];
static const char *program = "test";

static void
remove_temp_dir(void)
{
	if (temp_dir[0] == '\0' || getenv("KEEP_TEST_DIR") != NULL)
		return;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", temp_dir);
	if (system(cmd) != 0)
		fprintf(stderr, "%s: could not remove %s\n", program, temp_dir);
}

const char *
tl_program_dir(const char *name)
{
	program = name;
	snprintf(temp_dir, sizeof temp_dir, "/tmp/seqring-%.20s-XXXXXX", name);
	if (mkdtemp(temp_dir) == NULL)
		tl_fail("mkdtemp %s failed", temp_dir);
	atexit(remove_temp_dir);
	return temp_dir;
}

void
tl_fail(const char *fmt, ...)
{
	/* One write of the whole line: another thread's output cannot land inside it. */
	char message[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(message, sizeof message, fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: FAIL: %s\n", program, message);
	exit(1);
}

sr_log *
tl_program_open(sr_sink_config *sinks, int count, int64_t ring_slots, int reopen_signal)
{
	sr_log_config c;
	tl_configure(&c, sinks, (tl_settings){ .ignore_environment = true, .ring_slots = ring_slots });
	c.sink_count = count;
	c.reopen_signal = reopen_signal;
	/*
	 * These programs fork only to exec a daemon or a tool: the child needs no
	 * logger, and one restarted there would start a thread in a child of a
	 * multi-threaded process (ThreadSanitizer refuses that).
	 */
	c.fork_policy = SR_LOG_FORK_DROP;
	sr_error err;
	sr_log *log = sr_log_open(&c, &err);
	if (log == NULL)
		tl_fail("sr_log_open: %s", err.message);
	return log;
}
