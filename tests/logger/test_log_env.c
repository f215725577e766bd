/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_log_env.c: configuration from the environment and level specs.
 *
 * SEQRING_LOG specs (valid forms, every error and its message, longest
 * dotted prefix), how the environment and the code combine (the
 * environment wins, directive by directive; ignore_environment), every
 * SEQRING_LOG_* variable (a valid value reaches the logger, an invalid one
 * fails the open with a message naming the variable, the value and what is
 * valid), unknown names, sr_log_describe's sources and levels,
 * SEQRING_LOG_DESCRIBE, and run-time reloads.  Each test runs in its own
 * process (Criterion), so setenv stays within it.
 */
#include "test_log_support.h"

#include <errno.h>

/* Sets name=value in the environment, then opens c reading it (tl_config's configs do not), or fails. */
static sr_log *
open_env(sr_log_config *c, const char *name, const char *value)
{
	setenv(name, value, 1);
	c->ignore_environment = false;
	return tl_open(c);
}

/* Opens a default config of 64 slots with only name=value in the environment, which must fail. */
static sr_error
refused_with(const char *name, const char *value)
{
	tl_clear_env();
	setenv(name, value, 1);
	sr_log_config c;
	sr_log_config_default(&c);
	c.ring_slots = 64;
	return tl_open_refused(&c, "%s=%s", name, value);
}

/* ---------------------------------------------------------------------------------------- */
/* Specs                                                                                    */

Test(log_env, spec_levels_by_longest_dotted_prefix)
{
	tl_setup t;
	sr_log_config *c = tl_setup_begin(&t);
	sr_log *log = open_env(c, "SEQRING_LOG", "warn,net.http=info,net=error,db=trace");
	struct { const char *name; sr_log_level level; } cases[] = {
		{ "net.http.client", SR_LOG_INFO },   /* net.http beats net */
		{ "net.http", SR_LOG_INFO },
		{ "net", SR_LOG_ERROR },
		{ "net.tcp", SR_LOG_ERROR },
		{ "network", SR_LOG_WARN },          /* not a dotted prefix of "net" */
		{ "db.pool", SR_LOG_TRACE },
		{ "app", SR_LOG_WARN },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		sr_category *cat = sr_log_category(log, cases[i].name);
		cr_expect_eq(sr_category_level(cat), cases[i].level, "%s: %s", cases[i].name,
		    sr_log_level_name(sr_category_level(cat)));
		cr_expect_eq(sr_log_level_for(log, cases[i].name), cases[i].level, "%s", cases[i].name);
	}
	cr_expect_eq(sr_category_level(sr_log_root(log)), SR_LOG_WARN);
	/* What gets through. */
	sr_category *client = sr_log_category(log, "net.http.client");
	sr_category *tcp = sr_log_category(log, "net.tcp");
	SR_INFO(client, "client info");
	SR_DEBUG(client, "client debug");
	SR_WARN(tcp, "tcp warn");
	SR_ERROR(tcp, "tcp error");
	sr_log_close(&log);
	cr_expect_eq(tl_capture_grep(&t.cap, "client info"), 1);
	cr_expect_eq(tl_capture_grep(&t.cap, "client debug"), 0);
	cr_expect_eq(tl_capture_grep(&t.cap, "tcp warn"), 0);
	cr_expect_eq(tl_capture_grep(&t.cap, "tcp error"), 1);
	tl_setup_end(&t);
}

Test(log_env, spec_forms_spaces_case_and_aliases)
{
	tl_setup t;
	sr_log_config *c = tl_setup_begin(&t);
	sr_log *log = open_env(c, "SEQRING_LOG", "  Net.Http = DEBUG , WARNING ,db=Off,,");
	char spec[256];
	cr_assert_gt(sr_log_level_spec(log, spec, sizeof spec), 0);
	/* Canonical: root first, then prefixes sorted; names keep their case. */
	cr_expect_str_eq(spec, "warn,Net.Http=debug,db=off");
	cr_expect_eq(sr_category_level(sr_log_category(log, "db.x")), SR_LOG_OFF);
	/* A spec without a default level leaves the root alone. */
	sr_error err;
	cr_assert_eq(sr_log_set_level_spec(log, "db=info", &err), SR_OK, "%s", err.message);
	sr_log_level_spec(log, spec, sizeof spec);
	cr_expect_str_eq(spec, "warn,db=info");
	/* The size is reported as snprintf does. */
	char tiny[4];
	cr_expect_eq(sr_log_level_spec(log, tiny, sizeof tiny), (int)strlen("warn,db=info"));
	cr_expect_str_eq(tiny, "war");
	sr_log_close(&log);
	tl_setup_end(&t);
}

Test(log_env, every_invalid_spec_names_the_variable_the_value_and_what_is_valid)
{
	static const struct {
		const char *spec;
		const char *message;
	} cases[] = {
		{ "warn,net.http=loud",
		  "SEQRING_LOG 'warn,net.http=loud' is invalid: 'net.http=loud': level 'loud' is invalid: "
		  "expected trace, debug, info, warn, error, fatal or off" },
		{ "warn,info", "SEQRING_LOG 'warn,info' is invalid: 'info': a second default level (the first is warn)" },
		{ "db=info,db=warn", "SEQRING_LOG 'db=info,db=warn' is invalid: 'db=warn': category 'db' appears twice" },
		{ "=info", "SEQRING_LOG '=info' is invalid: '=info': the category before '=' is empty" },
		{ "net/GET=info", "SEQRING_LOG 'net/GET=info' is invalid: 'net/GET=info': '/' filters are not supported" },
		{ "a..b=info", "SEQRING_LOG 'a..b=info' is invalid: 'a..b=info': 'a..b' is neither a level" },
		{ "wran", "SEQRING_LOG 'wran' is invalid: 'wran' is not a level (expected trace, debug, info, warn, "
		  "error, fatal or off; for a category, write 'wran=trace')" },
		{ "net=", "SEQRING_LOG 'net=' is invalid: 'net=': level '' is invalid" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		sr_error err = refused_with("SEQRING_LOG", cases[i].spec);
		cr_expect_eq(err.code, SR_EINVAL);
		cr_expect(strncmp(err.message, cases[i].message, strlen(cases[i].message)) == 0,
		    "'%s':\n got  \"%s\"\n want \"%s\"", cases[i].spec, err.message, cases[i].message);
	}
	/* The same from code: config.level_spec, and the environment is not needed. */
	tl_clear_env();
	sr_log_config c;
	sr_log_config_default(&c);
	c.ring_slots = 64;
	c.ignore_environment = true;
	c.level_spec = "info,db=verbose";
	sr_error err;
	cr_assert_null(sr_log_open(&c, &err));
	cr_expect_str_eq(err.message, "config.level_spec 'info,db=verbose' is invalid: 'db=verbose': level "
	    "'verbose' is invalid: expected trace, debug, info, warn, error, fatal or off");
}

Test(log_env, run_time_reload_replaces_the_spec_or_changes_nothing)
{
	tl_setup t;
	sr_log_config *c = tl_setup_begin(&t);
	c->level_spec = "info,db=error,net=warn";
	sr_log *log = tl_open(c);
	sr_error err;
	sr_category *db = sr_log_category(log, "db.pool");
	sr_category *net = sr_log_category(log, "net.http");
	cr_assert_eq(sr_category_level(db), SR_LOG_ERROR);
	SR_INFO(db, "db info before");

	cr_assert_eq(sr_log_set_level_spec(log, "warn,db=debug", &err), SR_OK, "%s", err.message);
	/* Handles follow at once; "net" lost its directive and takes the new root. */
	cr_expect_eq(sr_category_level(db), SR_LOG_DEBUG);
	cr_expect_eq(sr_category_level(net), SR_LOG_WARN);
	cr_expect_eq(sr_category_level(sr_log_root(log)), SR_LOG_WARN);
	SR_DEBUG(db, "db debug after");
	SR_INFO(net, "net info after");

	/* An invalid reload changes nothing and says why. */
	cr_assert_eq(sr_log_set_level_spec(log, "error,db=chatty", &err), SR_EINVAL);
	cr_expect_str_eq(err.message, "level spec 'error,db=chatty' is invalid: 'db=chatty': level 'chatty' "
	    "is invalid: expected trace, debug, info, warn, error, fatal or off");
	cr_expect_eq(sr_category_level(db), SR_LOG_DEBUG);
	cr_expect_eq(sr_category_level(sr_log_root(log)), SR_LOG_WARN);
	char spec[128];
	sr_log_level_spec(log, spec, sizeof spec);
	cr_expect_str_eq(spec, "warn,db=debug");
	cr_expect_eq(sr_log_set_level_spec(log, NULL, &err), SR_EINVAL);
	cr_expect_eq(sr_log_set_level_spec(NULL, "info", &err), SR_EINVAL);
	sr_log_close(&log);
	cr_expect_eq(tl_capture_grep(&t.cap, "db info before"), 0);
	cr_expect_eq(tl_capture_grep(&t.cap, "db debug after"), 1);
	cr_expect_eq(tl_capture_grep(&t.cap, "net info after"), 0);
	tl_setup_end(&t);
}

/* ---------------------------------------------------------------------------------------- */
/* The environment and the code                                                             */

Test(log_env, environment_overrides_code_directive_by_directive)
{
	tl_setup t;
	sr_log_config *c = tl_setup_begin(&t);
	c->level = SR_LOG_ERROR;
	c->level_spec = "db=error,net=warn";
	sr_log *log = open_env(c, "SEQRING_LOG", "debug,db=trace");
	cr_expect_eq(sr_category_level(sr_log_root(log)), SR_LOG_DEBUG, "the environment's default wins");
	cr_expect_eq(sr_category_level(sr_log_category(log, "db")), SR_LOG_TRACE, "its directive wins");
	cr_expect_eq(sr_category_level(sr_log_category(log, "net")), SR_LOG_WARN, "the code's other one stays");
	char *d = tl_describe(log);
	char line[512];
	cr_expect_not_null(tl_row(d, "db", line, sizeof line));
	cr_expect(strstr(line, "trace") && strstr(line, "environment"), "%s", line);
	cr_expect_not_null(tl_row(d, "net", line, sizeof line));
	cr_expect(strstr(line, "warn") && strstr(line, "code"), "%s", line);
	cr_expect_not_null(tl_row(d, "(root)", line, sizeof line));
	cr_expect(strstr(line, "debug") && strstr(line, "environment"), "%s", line);
	free(d);
	sr_log_close(&log);

	/* ignore_environment: the code only. */
	tl_config(c, &t.sink, &t.cap);
	c->level = SR_LOG_ERROR;
	log = tl_open(c);
	cr_expect_eq(sr_category_level(sr_log_root(log)), SR_LOG_ERROR);
	d = tl_describe(log);
	cr_expect(strstr(d, "environment ignored: config.ignore_environment") != NULL, "%s", d);
	free(d);
	sr_log_close(&log);
	tl_setup_end(&t);
}

Test(log_env, every_variable_reaches_the_logger)
{
	tl_clear_env();
	char path[64];
	tl_temp_path(path, sizeof path, "envsink");
	char sink[128];
	snprintf(sink, sizeof sink, "file:%s,level=debug,buffer=4k,max_size=1m,keep=3;null", path);
	static const char *const vars[][2] = {
		{ "SEQRING_LOG", "info,db=debug" },
		{ "SEQRING_LOG_MODE", "ring" },
		{ "SEQRING_LOG_PRODUCER", "shared" },
		{ "SEQRING_LOG_RING_SLOTS", "1k" },
		{ "SEQRING_LOG_SLOT_SIZE", "256" },
		{ "SEQRING_LOG_WAIT", "timeout:timeout=7ms" },
		{ "SEQRING_LOG_FULL_POLICY", "discard" },
		{ "SEQRING_LOG_DISCARD_LEVEL", "debug" },
		{ "SEQRING_LOG_SYNC_ENQUEUE", "false" },
		{ "SEQRING_LOG_IMMEDIATE_FLUSH", "off" },
		{ "SEQRING_LOG_MAX_MESSAGE", "2k" },
		{ "SEQRING_LOG_MAX_LINE", "8192" },
		{ "SEQRING_LOG_PATTERN", "%p %c %m" },
		{ "SEQRING_LOG_CLOCK", "coarse" },
		{ "SEQRING_LOG_THREAD_NAME", "envlog" },
		{ "SEQRING_LOG_CLOSE_AT_EXIT", "0" },
		{ "SEQRING_LOG_BACKTRACE", "16" },
		{ "SEQRING_LOG_BACKTRACE_LEVEL", "debug" },
		{ "SEQRING_LOG_BACKTRACE_TRIGGER", "warn" },
		{ "SEQRING_LOG_CRASH_HANDLER", "no" },
		{ "SEQRING_LOG_DESCRIBE", "0" },
		{ "SEQRING_LOG_ESCAPE", "no" },
	};
	for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
		setenv(vars[i][0], vars[i][1], 1);
	setenv("SEQRING_LOG_SINK", sink, 1);
	sr_log_config c;
	sr_log_config_default(&c);
	sr_log *log = tl_open(&c);
	sr_log_counters st;
	sr_log_stats(log, &st);
	cr_expect_eq(st.capacity, 1024);
	cr_expect_eq(st.sink_count, 2);
	char *d = tl_describe(log);
	static const char *const expect[][2] = {
		{ "ring_slots", "1024" },
		{ "producer", "shared" },
		{ "slot_size", "256" },
		{ "wait_strategy", "timeout:timeout=7ms" },
		{ "full_policy", "discard" },
		{ "discard_level", "debug" },
		{ "synchronize_enqueue_when_full", "false" },
		{ "immediate_flush", "false" },
		{ "max_message_bytes", "2048" },
		{ "max_line_bytes", "8192" },
		{ "layout", "pattern" },
		{ "pattern", "%p %c %m" },
		{ "clock", "coarse" },
		{ "thread_name", "envlog" },
		{ "backtrace_size", "16" },
		{ "backtrace_level", "debug" },
		{ "backtrace_trigger", "warn" },
		{ "crash_handler", "false" },
		{ "escape_control_characters", "false" },
	};
	for (size_t i = 0; i < sizeof expect / sizeof *expect; i++) {
		char line[600];
		cr_assert_not_null(tl_row(d, expect[i][0], line, sizeof line), "no %s in:\n%s", expect[i][0], d);
		cr_expect(strstr(line, expect[i][1]) != NULL, "%s", line);
		cr_expect(strstr(line, strcmp(expect[i][0], "layout") == 0 ? "environment (implied by SEQRING_LOG_PATTERN)"
		    : "environment (SEQRING_LOG_") != NULL, "%s", line);
	}
	char line[600];
	cr_assert_not_null(tl_row(d, "sinks", line, sizeof line));
	cr_expect(strstr(line, "level=debug buffer=4096 max_size=1048576 keep=3") != NULL, "%s", line);
	cr_expect_not_null(tl_line_with(d, "sinks[1]", line, sizeof line));
	cr_expect(strstr(line, "null") != NULL, "%s", line);
	free(d);
	/* The pattern layout and the file sink's level are in force. */
	sr_category *db = sr_log_category(log, "db");
	SR_DEBUG(db, "to the file %d", 1);
	SR_TRACE(db, "not to the file");
	sr_log_close(&log);
	char *text = tl_read_file(path, NULL);
	cr_assert_not_null(text);
	cr_expect_str_eq(text, "DEBUG db to the file 1\n");
	free(text);
	unlink(path);
}

Test(log_env, every_invalid_value_is_an_error_at_open)
{
	static const struct {
		const char *name, *value, *message;
	} cases[] = {
		{ "SEQRING_LOG_MODE", "fast", "SEQRING_LOG_MODE 'fast' is invalid: expected ring, queue or sync" },
		{ "SEQRING_LOG_RING_SLOTS", "1000",
		  "SEQRING_LOG_RING_SLOTS '1000' is invalid: expected a power of two from 2 to 1073741824" },
		{ "SEQRING_LOG_RING_SLOTS", "lots", "SEQRING_LOG_RING_SLOTS 'lots' is invalid" },
		{ "SEQRING_LOG_RING_SLOTS", "-8", "SEQRING_LOG_RING_SLOTS '-8' is invalid" },
		{ "SEQRING_LOG_RING_SLOTS", "99999999999999999999999", "SEQRING_LOG_RING_SLOTS '9999" },
		{ "SEQRING_LOG_SLOT_SIZE", "100",
		  "SEQRING_LOG_SLOT_SIZE '100' is invalid: expected a power of two from 64 to 65536" },
		{ "SEQRING_LOG_WAIT", "snooze", "SEQRING_LOG_WAIT 'snooze' is invalid: " },
		{ "SEQRING_LOG_FULL_POLICY", "panic",
		  "SEQRING_LOG_FULL_POLICY 'panic' is invalid: expected block, drop, discard or sync" },
		{ "SEQRING_LOG_DISCARD_LEVEL", "off",
		  "SEQRING_LOG_DISCARD_LEVEL 'off' is invalid: expected trace, debug, info, warn, error or fatal" },
		{ "SEQRING_LOG_SYNC_ENQUEUE", "maybe",
		  "SEQRING_LOG_SYNC_ENQUEUE 'maybe' is invalid: expected 1, 0, true, false, yes, no, on or off" },
		{ "SEQRING_LOG_IMMEDIATE_FLUSH", "later",
		  "SEQRING_LOG_IMMEDIATE_FLUSH 'later' is invalid: expected 1, 0, true, false, yes, no, on or off" },
		{ "SEQRING_LOG_MAX_MESSAGE", "100",
		  "SEQRING_LOG_MAX_MESSAGE '100' is invalid: expected 1024 to 1048576 bytes" },
		{ "SEQRING_LOG_MAX_LINE", "17m", "SEQRING_LOG_MAX_LINE '17m' is invalid: expected 256 to 16777216" },
		{ "SEQRING_LOG_LAYOUT", "xml",
		  "SEQRING_LOG_LAYOUT 'xml' is invalid: expected text, message, pattern or json" },
		{ "SEQRING_LOG_LAYOUT", "pattern",
		  "SEQRING_LOG_LAYOUT 'pattern' needs a pattern: set SEQRING_LOG_PATTERN" },
		{ "SEQRING_LOG_PATTERN", "%d %q",
		  "SEQRING_LOG_PATTERN: pattern '%d %q' is invalid at column 4: '%q' is not a conversion" },
		{ "SEQRING_LOG_CLOCK", "sundial",
		  "SEQRING_LOG_CLOCK 'sundial' is invalid: expected realtime, coarse, tsc or auto" },
		{ "SEQRING_LOG_SINK", "journal",
		  "SEQRING_LOG_SINK 'journal' is invalid: sink 0: 'journal' is not a sink: expected stderr, stdout, "
		  "null, fd:N, file:PATH, ctf:DIR, syslog[:udp://HOST:PORT|:tcp://HOST:PORT|:unix:PATH] or "
		  "journald[:SOCKET_PATH]" },
		{ "SEQRING_LOG_SINK", "ctf:",
		  "SEQRING_LOG_SINK 'ctf:' is invalid: sink 0: 'ctf:' needs a directory (ctf:/var/log/app.trace)" },
		{ "SEQRING_LOG_SINK", "ctf:/tmp/t,layout=json",
		  "SEQRING_LOG_SINK 'ctf:/tmp/t,layout=json' is invalid: sink 0: option 'layout' is not one of a ctf "
		  "sink's (level, buffer, max_size, keep, mode): a trace holds events, not lines" },
		{ "SEQRING_LOG_SINK", "ctf:/tmp/t,daily=1",
		  "SEQRING_LOG_SINK 'ctf:/tmp/t,daily=1' is invalid: sink 0: option 'daily' is not one of a ctf "
		  "sink's (level, buffer, max_size, keep, mode): a trace holds events, not lines" },
		{ "SEQRING_LOG_SINK", "stderr;file:",
		  "SEQRING_LOG_SINK 'stderr;file:' is invalid: sink 1: 'file:' needs a path" },
		{ "SEQRING_LOG_SINK", "file:/tmp/x.log,keep=many",
		  "SEQRING_LOG_SINK 'file:/tmp/x.log,keep=many' is invalid: sink 0: keep 'many' is invalid: "
		  "expected 0 to 1000 files" },
		{ "SEQRING_LOG_SINK", "file:/tmp/x.log,max_size=100",
		  "sink 0: max_size '100' is invalid: expected 0 (no rotation) or 4096 to 2^50 bytes" },
		{ "SEQRING_LOG_SINK", "stderr,level=loud", "sink 0: level 'loud' is invalid" },
		{ "SEQRING_LOG_SINK", "stderr,keep=3",
		  "sink 0: option 'keep' is not one of an fd sink's (level, layout, pattern, buffer, timeout)" },
		{ "SEQRING_LOG_SINK", "stderr,fast", "sink 0: option 'fast' has no '='" },
		{ "SEQRING_LOG_SINK", "fd:x", "sink 0: 'fd:x': expected fd:N" },
		{ "SEQRING_LOG_SINK", " ; ", "sink 0: no sink" },
		{ "SEQRING_LOG_SINK", "fd:987", "SEQRING_LOG_SINK sink 0: fd 987 is not an open file descriptor" },
		{ "SEQRING_LOG_THREAD_NAME", "a-very-long-thread-name",
		  "SEQRING_LOG_THREAD_NAME 'a-very-long-thread-name' is invalid: expected 1 to 15 characters" },
		{ "SEQRING_LOG_CLOSE_AT_EXIT", "2", "SEQRING_LOG_CLOSE_AT_EXIT '2' is invalid" },
		{ "SEQRING_LOG_BACKTRACE", "100000",
		  "SEQRING_LOG_BACKTRACE '100000' is invalid: expected 0 (off) to 65536 messages" },
		{ "SEQRING_LOG_BACKTRACE_LEVEL", "loud", "SEQRING_LOG_BACKTRACE_LEVEL 'loud' is invalid" },
		{ "SEQRING_LOG_BACKTRACE_TRIGGER", "off", "SEQRING_LOG_BACKTRACE_TRIGGER 'off' is invalid" },
		{ "SEQRING_LOG_CRASH_HANDLER", "sure", "SEQRING_LOG_CRASH_HANDLER 'sure' is invalid" },
		{ "SEQRING_LOG_DESCRIBE", "please", "SEQRING_LOG_DESCRIBE 'please' is invalid" },
		{ "SEQRING_LOG_ESCAPE", "mostly", "SEQRING_LOG_ESCAPE 'mostly' is invalid: expected 1, 0" },
		{ "SEQRING_LOG_LAYOUTT", "json",
		  "SEQRING_LOG_LAYOUTT is not a seqring setting: did you mean SEQRING_LOG_LAYOUT?" },
		{ "SEQRING_LOG_VERBOSITY", "9", "SEQRING_LOG_VERBOSITY is not a seqring setting (the" },
		/* Only close names are suggested; the shared prefix does not count. */
		{ "SEQRING_LOG_QUUX", "1", "SEQRING_LOG_QUUX is not a seqring setting (the" },
		{ "SEQRING_LOG_RING_SLOT", "8", "did you mean SEQRING_LOG_RING_SLOTS?" },
		{ "SEQRING_LOG_RINGDIR", "/tmp", "did you mean SEQRING_LOG_RING_DIR?" },
		{ "SEQRING_LOG_BACKTRACE_SIZE", "8", "did you mean SEQRING_LOG_BACKTRACE?" },
		{ "SEQRING_LOG_SINKS", "stderr", "did you mean SEQRING_LOG_SINK?" },
		{ "SEQRING_LOG_LEVEL", "debug", "SEQRING_LOG_LEVEL is not a seqring setting: did you mean SEQRING_LOG? "
		  "(it holds the levels: SEQRING_LOG=debug)" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		sr_error err = refused_with(cases[i].name, cases[i].value);
		cr_expect_eq(err.code, SR_EINVAL, "%s=%s: %d", cases[i].name, cases[i].value, err.code);
		cr_expect(strstr(err.message, cases[i].message) != NULL, "%s=%s:\n got  \"%s\"\n want \"%s\"",
		    cases[i].name, cases[i].value, err.message, cases[i].message);
	}
	/* Ignored entirely with ignore_environment (even an unknown name). */
	tl_clear_env();
	setenv("SEQRING_LOG_RING_SLOTS", "1000", 1);
	setenv("SEQRING_LOG_LAYOUTT", "json", 1);
	sr_log_config c;
	sr_log_config_default(&c);
	c.ring_slots = 64;
	c.ignore_environment = true;
	sr_log *log = sr_log_open(&c, NULL);
	cr_expect_not_null(log);
	sr_log_close(&log);
	/* An empty variable counts as unset; a variable that only looks alike is not ours. */
	tl_clear_env();
	setenv("SEQRING_LOG_RING_SLOTS", "", 1);
	setenv("SEQRING_LOGGER", "x", 1);
	c.ignore_environment = false;
	log = sr_log_open(&c, NULL);
	cr_expect_not_null(log);
	sr_log_close(&log);
}

Test(log_env, layout_and_pattern_from_code_and_environment)
{
	tl_setup t;
	sr_log_config *c = tl_setup_begin(&t);
	c->layout = SR_LOG_LAYOUT_PATTERN;
	c->pattern = "code: %m";
	/* The operator picks json: the code's pattern no longer applies. */
	sr_log *log = open_env(c, "SEQRING_LOG_LAYOUT", "json");
	SR_WARN(sr_log_root(log), "hello");
	sr_log_close(&log);
	cr_expect_eq(tl_capture_grep(&t.cap, "\"msg\":\"hello\""), 1);
	/* Both set but disagreeing. */
	setenv("SEQRING_LOG_PATTERN", "%m", 1);
	c->ignore_environment = false;
	sr_error err;
	cr_expect_null(sr_log_open(c, &err));
	cr_expect_str_eq(err.message, "SEQRING_LOG_PATTERN is set but SEQRING_LOG_LAYOUT is 'json': a pattern "
	    "needs layout pattern (unset one of them)");
	/* In code, a pattern needs the pattern layout and the other way round. */
	tl_clear_env();
	tl_config(c, &t.sink, &t.cap);
	c->pattern = "%m";
	cr_expect_null(sr_log_open(c, &err));
	cr_expect_str_eq(err.message, "config.pattern '%m' is set but config.layout is text: a pattern needs "
	    "SR_LOG_LAYOUT_PATTERN");
	c->pattern = NULL;
	c->layout = SR_LOG_LAYOUT_PATTERN;
	cr_expect_null(sr_log_open(c, &err));
	cr_expect_str_eq(err.message, "config.pattern is NULL: layout SR_LOG_LAYOUT_PATTERN needs a pattern");
	tl_setup_end(&t);
}

/* ---------------------------------------------------------------------------------------- */
/* Describe                                                                                 */

Test(log_env, describe_says_where_each_setting_came_from)
{
	tl_setup t;
	sr_log_config *c = tl_setup_begin(&t);
	t.sink.level = SR_LOG_INFO;       /* raises every effective level to info */
	c->level = SR_LOG_TRACE;
	c->level_spec = "net.http=debug,db=error";
	c->full_policy = SR_LOG_FULL_DROP;
	setenv("SEQRING_LOG_SLOT_SIZE", "512", 1);
	sr_log *log = open_env(c, "SEQRING_LOG", "db=warn");
	sr_log_category(log, "net.http.client");
	sr_log_category(log, "app");
	char *d = tl_describe(log);
	char line[600];
	/* Settings: default, code, environment. */
	cr_assert_not_null(tl_row(d, "mode", line, sizeof line), "%s", d);
	cr_expect(strstr(line, "ring") && strstr(line, "default (SEQRING_LOG_MODE unset)"), "%s", line);
	cr_assert_not_null(tl_row(d, "full_policy", line, sizeof line));
	cr_expect(strstr(line, "drop") && strstr(line, "code"), "%s", line);
	cr_assert_not_null(tl_row(d, "ring_slots", line, sizeof line));
	cr_expect(strstr(line, "1024") && strstr(line, "code"), "%s", line);
	cr_assert_not_null(tl_row(d, "slot_size", line, sizeof line));
	cr_expect(strstr(line, "512") && strstr(line, "environment (SEQRING_LOG_SLOT_SIZE='512')"), "%s", line);
	cr_assert_not_null(tl_row(d, "level + level_spec", line, sizeof line));
	cr_expect(strstr(line, "trace,db=warn,net.http=debug") && strstr(line, "environment (SEQRING_LOG='db=warn')"),
	    "%s", line);
	cr_assert_not_null(tl_row(d, "sinks", line, sizeof line));
	cr_expect(strstr(line, "callback level=info") && strstr(line, "code"), "%s", line);
	/* Categories: configured level, deciding directive, effective level (raised by the sink). */
	cr_assert_not_null(tl_row(d, "net.http.client", line, sizeof line));
	cr_expect(strstr(line, "debug") && strstr(line, "from net.http") && strstr(line, "effective info"),
	    "%s", line);
	cr_assert_not_null(tl_row(d, "app", line, sizeof line));
	cr_expect(strstr(line, "trace") && strstr(line, "from (root)") && strstr(line, "effective info"), "%s", line);
	cr_assert_not_null(tl_row(d, "db", line, sizeof line));
	cr_expect(strstr(line, "warn") && strstr(line, "environment"), "%s", line);
	/* A directive without a handle is still a known category. */
	cr_expect(strstr(d, "(no handle yet)") != NULL, "%s", d);
	free(d);

	/* A run-time change shows as such. */
	sr_error err;
	cr_assert_eq(sr_log_set_level(log, "app", SR_LOG_ERROR, &err), SR_OK);
	d = tl_describe(log);
	cr_assert_not_null(tl_row(d, "app", line, sizeof line), "%s", d);
	cr_expect(strstr(line, "error") && strstr(line, "run time"), "%s", line);
	cr_expect(strstr(d, "(changed at run time since open)") != NULL, "%s", d);
	free(d);
	cr_expect_eq(sr_log_describe(NULL, stdout), SR_EINVAL);
	cr_expect_eq(sr_log_describe(log, NULL), SR_EINVAL);
	sr_log_close(&log);
	tl_setup_end(&t);
}

static void
open_with_describe(void *arg)
{
	(void)arg;
	sr_sink_config s = sr_sink_null();
	sr_log_config c;
	tl_config_sink(&c, &s);
	c.ring_slots = 64;
	sr_log *log = tl_open(&c);
	sr_log_close(&log);
}

Test(log_env, describe_at_open_from_the_environment)
{
	tl_clear_env();
	setenv("SEQRING_LOG_DESCRIBE", "1", 1);
	setenv("SEQRING_LOG", "warn,db=debug", 1);
	char *text = tl_with_stderr(open_with_describe, NULL);
	cr_assert_not_null(text);
	cr_expect(strstr(text, "seqring log configuration") != NULL, "%s", text);
	cr_expect(strstr(text, "warn,db=debug") != NULL, "%s", text);
	cr_expect(strstr(text, "describe") != NULL && strstr(text, "SEQRING_LOG_DESCRIBE='1'") != NULL, "%s", text);
	free(text);
	/* Off: nothing printed. */
	setenv("SEQRING_LOG_DESCRIBE", "0", 1);
	text = tl_with_stderr(open_with_describe, NULL);
	cr_expect_str_eq(text, "");
	free(text);
}

/*
 * Opens a null-sink logger of c (reading the environment) with stderr
 * captured; *stderr_text gets what the open printed there, and the result
 * is ring_slots' line of sr_log_describe (malloc'd).
 */
static char *
ring_slots_row(sr_log_config *c, char **stderr_text)
{
	sr_sink_config sink = sr_sink_null();
	c->sinks = &sink;
	c->sink_count = 1;
	c->ignore_environment = false;
	tl_stderr s;
	tl_stderr_begin(&s);
	sr_error err;
	sr_log *log = sr_log_open(c, &err);
	*stderr_text = tl_stderr_end(&s);
	cr_assert_not_null(log, "%s", err.message);
	char *d = tl_describe(log);
	char line[600];
	cr_assert_not_null(tl_row(d, "ring_slots", line, sizeof line), "%s", d);
	free(d);
	sr_log_close(&log);
	return strdup(line);
}

#define RING_SLOTS_UNUSED "(unused: producer per_thread; thread_ring_slots sizes each thread's ring)"

/*
 * With a ring per thread (the default producer), ring_slots sizes nothing:
 * describe says so wherever the value came from, and a value from the
 * environment (the operator's, who may think it sizes the ring) is warned
 * about on stderr at open, once, naming the variable, its value and why.
 */
Test(log_env, ring_slots_set_with_a_ring_per_thread_is_said_to_be_unused)
{
	tl_clear_env();
	setenv("SEQRING_LOG_RING_SLOTS", "1024", 1);
	sr_log_config c;
	sr_log_config_default(&c);
	char *text;
	char *row = ring_slots_row(&c, &text);
	cr_expect(strstr(row, "1024 " RING_SLOTS_UNUSED) != NULL && strstr(row, "environment "
	    "(SEQRING_LOG_RING_SLOTS='1024')") != NULL, "%s", row);
	cr_expect_str_eq(text, "seqring: warning: SEQRING_LOG_RING_SLOTS '1024' is unused: producer per_thread gives "
	    "each thread a ring of its own, sized by thread_ring_slots (SEQRING_LOG_THREAD_RING_SLOTS); "
	    "ring_slots sizes the shared ring (SEQRING_LOG_PRODUCER=shared) and the queue\n");
	free(row);
	free(text);

	/* Set in code: describe says so; no line on stderr (the code's value is no typo). */
	tl_clear_env();
	sr_log_config_default(&c);
	c.ring_slots = 2048;
	row = ring_slots_row(&c, &text);
	cr_expect(strstr(row, "2048 " RING_SLOTS_UNUSED) != NULL && strstr(row, "code") != NULL, "%s", row);
	cr_expect_str_eq(text, "");
	free(row);
	free(text);

	/* The default, unused as well. */
	sr_log_config_default(&c);
	row = ring_slots_row(&c, &text);
	cr_expect(strstr(row, "262144 " RING_SLOTS_UNUSED) != NULL && strstr(row, "default") != NULL, "%s", row);
	cr_expect_str_eq(text, "");
	free(row);
	free(text);
}

/* Where ring_slots sizes something (the shared ring, the queue), nothing more is said. */
Test(log_env, ring_slots_of_a_shared_ring_or_a_queue_is_used)
{
	static const struct { const char *mode, *producer; } cases[] = {
		{ "ring", "shared" }, { "queue", "per_thread" }, { "queue", "shared" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		tl_clear_env();
		setenv("SEQRING_LOG_RING_SLOTS", "1024", 1);
		setenv("SEQRING_LOG_MODE", cases[i].mode, 1);
		setenv("SEQRING_LOG_PRODUCER", cases[i].producer, 1);
		sr_log_config c;
		sr_log_config_default(&c);
		char *text;
		char *row = ring_slots_row(&c, &text);
		cr_expect(strstr(row, "1024 ") != NULL && strstr(row, "unused") == NULL, "mode %s, producer %s: %s",
		    cases[i].mode, cases[i].producer, row);
		cr_expect_str_eq(text, "", "mode %s, producer %s", cases[i].mode, cases[i].producer);
		free(row);
		free(text);
	}
}

/* ---------------------------------------------------------------------------------------- */
/* Names that look like settings and are none, outside SEQRING_LOG_*                        */

/* Opens a default config with name=value set; returns what stderr got (malloc'd). */
static char *
open_warned(const char *name, const char *value)
{
	tl_clear_env();
	unsetenv(name);
	setenv(name, value, 1);
	sr_log_config c;
	sr_log_config_default(&c);
	c.ring_slots = 64;
	tl_stderr s;
	tl_stderr_begin(&s);
	sr_error err;
	sr_log *log = sr_log_open(&c, &err);
	char *text = tl_stderr_end(&s);
	cr_expect_not_null(log, "%s=%s is another program's, maybe: a warning, not an error (%s)", name, value,
	    log == NULL ? err.message : "");
	sr_log_close(&log);
	unsetenv(name);
	return text;
}

Test(log_env, lookalike_names_are_warned_about)
{
	static const struct { const char *name, *warning; } cases[] = {
		{ "SEQRING_LOGLEVEL", "seqring: warning: SEQRING_LOGLEVEL is not a seqring setting and is ignored: "
		  "did you mean SEQRING_LOG? (it holds the levels: SEQRING_LOG=debug)\n" },
		{ "SEQRING_LOGMODE", "SEQRING_LOGMODE is not a seqring setting and is ignored: did you mean "
		  "SEQRING_LOG_MODE?\n" },
		{ "seqring_log_mode", "seqring_log_mode is not a seqring setting and is ignored: did you mean "
		  "SEQRING_LOG_MODE?\n" },
		{ "seqring_log", "did you mean SEQRING_LOG?\n" },
		{ "SEQRING_LOGGER", "SEQRING_LOGGER is not a seqring setting and is ignored (the settings are "
		  "SEQRING_LOG and SEQRING_LOG_*" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *text = open_warned(cases[i].name, "debug");
		cr_expect_not_null(strstr(text, cases[i].warning), "%s:\n got  \"%s\"\n want \"%s\"", cases[i].name,
		    text, cases[i].warning);
		cr_expect_eq(strchr(text, '\n'), strrchr(text, '\n'), "one line: %s", text);
		free(text);
	}
	/* A program that must not be reconfigured reads nothing, and warns about nothing. */
	tl_clear_env();
	setenv("SEQRING_LOGLEVEL", "debug", 1);
	sr_log_config c;
	sr_log_config_default(&c);
	c.ignore_environment = true;
	tl_stderr s;
	tl_stderr_begin(&s);
	sr_log *log = sr_log_open(&c, NULL);
	char *text = tl_stderr_end(&s);
	cr_expect_not_null(log);
	cr_expect_str_eq(text, "");
	free(text);
	sr_log_close(&log);
}

/* A sink the code configured is named as the code wrote it. */
Test(log_env, a_sink_from_code_is_named_by_its_field)
{
	tl_clear_env();
	sr_log_config c;
	sr_log_config_default(&c);
	c.ring_slots = 64;
	sr_sink_config sinks[2] = { sr_sink_fd(2), sr_sink_file("/no/such/dir/app.log") };
	c.sinks = sinks;
	c.sink_count = 2;
	sr_error err = tl_open_refused(&c, "a file in a missing directory");
	cr_expect_not_null(strstr(err.message, "config.sinks[1].path '/no/such/dir/app.log' cannot be opened"),
	    "%s", err.message);
	/* The environment replaces it: then the variable is named. */
	setenv("SEQRING_LOG_SINK", "stderr;file:/no/such/dir/other.log", 1);
	err = tl_open_refused(&c, "SEQRING_LOG_SINK in a missing directory");
	cr_expect_eq(err.code, SR_ESYS);
	cr_expect_str_eq(err.message, "SEQRING_LOG_SINK sink 1: path '/no/such/dir/other.log' cannot be "
	    "opened: No such file or directory");
}
