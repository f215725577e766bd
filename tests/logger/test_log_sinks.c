/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_log_sinks.c: a layout per sink.  Each sink lays out messages with
 * its own layout (or the logger's); a record is rendered once per distinct
 * layout; SEQRING_LOG_SINK takes layout= and pattern=; sr_log_describe
 * shows each sink's layout; bad values are refused with a message naming
 * the field or variable.  The consumer lays the lines of a layout only one
 * buffering file sink takes straight into that sink's buffer: the file is
 * the one a copy would make.
 */
#include "test_log_support.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <sys/stat.h>

#include "sr_log_consumer_internal.h"
#include "sr_log_consumer_lane_internal.h"
#include "sr_log_sink_internal.h"

static bool
is_json(const char *line)
{
	size_t n = strlen(line);
	return n > 2 && line[0] == '{' && line[n - 1] == '}' && strstr(line, "\"msg\":\"hello 7\"") != NULL;
}

Test(log_sinks, each_sink_lays_out_with_its_own_layout)
{
	tl_capture text, json, plain, pat, json2;
	tl_capture_init(&text);
	tl_capture_init(&json);
	tl_capture_init(&plain);
	tl_capture_init(&pat);
	tl_capture_init(&json2);
	sr_sink_config s[5] = {
		sr_sink_callback(tl_capture_write, &text),
		sr_sink_callback(tl_capture_write, &json),
		sr_sink_callback(tl_capture_write, &plain),
		sr_sink_callback(tl_capture_write, &pat),
		sr_sink_callback(tl_capture_write, &json2),
	};
	s[1].layout = SR_LOG_LAYOUT_JSON;
	s[2].layout = SR_LOG_LAYOUT_MESSAGE;
	s[3].layout = SR_LOG_LAYOUT_PATTERN;
	s[3].pattern = "%p|%c|%m";
	s[4].layout = SR_LOG_LAYOUT_JSON;
	sr_log_config c;
	tl_config(&c, &s[0], &text);
	c.sinks = s;
	c.sink_count = 5;
	sr_log *log = tl_open(&c);
	/* The logger's text layout, json, message, one pattern: four distinct layouts for five sinks. */
	cr_expect_eq(log->sinks->layout_count, 4);
	cr_expect_eq(log->sinks->s[4].layout, log->sinks->s[1].layout);
	sr_category *cat = sr_log_category(log, "net.http");
	SR_INFO(cat, "hello %d", 7);
	sr_log_flush(log);
	cr_assert_eq(tl_capture_count(&text), 1);
	cr_expect(strstr(text.lines[0], " INFO  ") != NULL && strstr(text.lines[0], "net.http - hello 7") != NULL,
	    "text: %s", text.lines[0]);
	cr_assert_eq(tl_capture_count(&json), 1);
	cr_expect(is_json(json.lines[0]), "json: %s", json.lines[0]);
	cr_assert_eq(tl_capture_count(&json2), 1);
	cr_expect_str_eq(json2.lines[0], json.lines[0]);
	cr_assert_eq(tl_capture_count(&plain), 1);
	cr_expect_str_eq(plain.lines[0], "hello 7");
	cr_assert_eq(tl_capture_count(&pat), 1);
	cr_expect_str_eq(pat.lines[0], "INFO|net.http|hello 7");

	char *d = tl_describe(log);
	cr_expect(strstr(d, "layout=text (the logger's)") != NULL, "%s", d);
	cr_expect(strstr(d, "layout=json") != NULL, "%s", d);
	cr_expect(strstr(d, "layout=pattern '%p|%c|%m'") != NULL, "%s", d);
	free(d);
	sr_log_close(&log);
	tl_capture_free(&text);
	tl_capture_free(&json);
	tl_capture_free(&plain);
	tl_capture_free(&pat);
	tl_capture_free(&json2);
}

/* Drop reports and the sync mode's caller-written lines go through each sink's layout too. */
Test(log_sinks, sync_mode_and_levels)
{
	tl_capture text, json;
	tl_capture_init(&text);
	tl_capture_init(&json);
	sr_sink_config s[2] = { sr_sink_callback(tl_capture_write, &text), sr_sink_callback(tl_capture_write, &json) };
	s[1].layout = SR_LOG_LAYOUT_JSON;
	s[1].level = SR_LOG_WARN;
	sr_log_config c;
	tl_config(&c, &s[0], &text);
	c.sinks = s;
	c.sink_count = 2;
	c.mode = SR_LOG_MODE_SYNC;
	sr_log *log = tl_open(&c);
	sr_category *cat = sr_log_category(log, "db");
	SR_INFO(cat, "hello %d", 7);
	SR_WARN(cat, "hello %d", 7);
	sr_log_flush(log);
	cr_expect_eq(tl_capture_count(&text), 2);
	cr_assert_eq(tl_capture_count(&json), 1);
	cr_expect(is_json(json.lines[0]) && strstr(json.lines[0], "\"level\":\"warn\"") != NULL, "%s", json.lines[0]);
	sr_log_close(&log);
	tl_capture_free(&text);
	tl_capture_free(&json);
}

/* A sync-mode logger writing path's file sink with its default buffer, flushed only when asked. */
static sr_log *
open_buffered_sync_file(const char *path)
{
	sr_sink_config sink = sr_sink_file(path);
	sr_log_config c;
	sr_log_config_default(&c);
	c.ignore_environment = true;
	c.sinks = &sink;
	c.sink_count = 1;
	c.mode = SR_LOG_MODE_SYNC;
	c.immediate_flush = false;
	return tl_open(&c);
}

/*
 * A file's or descriptor's buffer holds a batch of ordinary lines by
 * default, so that a batch takes one write(2); the other sinks keep 64 KiB
 * (datagrams, packets, callbacks).  2,000 lines of about 130 bytes, logged
 * in sync mode without immediate flushes, reach the file in one write.
 */
Test(log_sinks, a_file_or_descriptor_buffers_a_batch_by_default)
{
	enum { MiB = 1024 * 1024, KiB64 = 64 * 1024, LINES = 2000 };
	cr_expect_eq(sr_sink_file("app.log").buffer_bytes, (size_t)MiB);
	cr_expect_eq(sr_sink_rotating("app.log", MiB, 3).buffer_bytes, (size_t)MiB);
	cr_expect_eq(sr_sink_fd(2).buffer_bytes, (size_t)MiB);
	cr_expect_eq(sr_sink_ctf("trace").buffer_bytes, (size_t)KiB64);
	cr_expect_eq(sr_sink_syslog(SR_SYSLOG_LOCAL, NULL).buffer_bytes, (size_t)KiB64);
	cr_expect_eq(sr_sink_journald(NULL).buffer_bytes, (size_t)KiB64);
	cr_expect_eq(sr_sink_callback(tl_capture_write, NULL).buffer_bytes, (size_t)KiB64);
	cr_expect_eq(sr_sink_null().buffer_bytes, (size_t)KiB64);

	char path[64];
	tl_temp_path(path, sizeof path, "batch");
	sr_log *log = open_buffered_sync_file(path);
	sr_category *cat = sr_log_category(log, "batch");
	for (int i = 0; i < LINES; i++)
		SR_INFO(cat, "%s %04d", "a line of an ordinary length, about a hundred bytes with its head and site", i);
	sr_log_flush(log);
	sr_log_counters st = tl_stats(log);
	cr_expect_eq(st.sinks[0].messages, (uint64_t)LINES);
	cr_expect_gt(st.sinks[0].bytes, (uint64_t)LINES * 100, "%" PRIu64 " bytes", st.sinks[0].bytes);
	cr_expect_eq(st.sinks[0].writes, 1, "%" PRIu64 " writes for %" PRIu64 " bytes", st.sinks[0].writes,
	    st.sinks[0].bytes);
	sr_log_close(&log);
	unlink(path);
}

/* Whether the file system under /tmp reserves a range past a file's end (fallocate). */
static bool
temp_files_take_reservations(void)
{
	char path[64];
	tl_temp_path(path, sizeof path, "reserve-probe");
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	bool ok = fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 4096) == 0;
	close(fd);
	unlink(path);
	return ok;
}

/*
 * A file sink's big write (a batch of SR_LOG_SINK_RESERVE_MIN bytes or
 * more) first reserves exactly its range of the file, with the file's size
 * kept: the file holds the lines alone, and no block stays reserved past its
 * end.  A small write reserves nothing.
 */
Test(log_sinks, a_big_write_to_a_file_reserves_its_range_and_no_more)
{
	if (!temp_files_take_reservations())
		cr_skip_test("the file system under /tmp reserves no ranges (fallocate)");
	enum { BIG = 6000, SMALL = 100 };
	char path[64];
	tl_temp_path(path, sizeof path, "reserve");
	sr_log *log = open_buffered_sync_file(path);
	sr_category *cat = sr_log_category(log, "reserve");
	const sr_log_sink *s = &log->sinks->s[0];
	for (int i = 0; i < BIG; i++)
		SR_INFO(cat, "%s %05d", "a line of an ordinary length, about a hundred bytes with its head and site", i);
	sr_log_flush(log);
	uint64_t big_bytes = tl_stats(log).sinks[0].bytes;
	cr_assert_geq(big_bytes, (uint64_t)SR_LOG_SINK_RESERVE_MIN, "%" PRIu64 " bytes: not a big write", big_bytes);
	cr_expect_eq(tl_stats(log).sinks[0].writes, 1);
	cr_expect_eq(s->reserved_bytes, big_bytes, "reserved %" PRIu64 " bytes for a write of %" PRIu64,
	    s->reserved_bytes, big_bytes);
	uint64_t reserved = s->reserved_bytes;
	for (int i = 0; i < SMALL; i++)
		SR_INFO(cat, "small %d", i);
	sr_log_flush(log);
	cr_expect_eq(s->reserved_bytes, reserved, "a small write reserved %" PRIu64 " bytes more",
	    s->reserved_bytes - reserved);
	uint64_t bytes = tl_stats(log).sinks[0].bytes;
	sr_log_close(&log);

	struct stat st;
	cr_assert_eq(stat(path, &st), 0);
	cr_expect_eq((uint64_t)st.st_size, bytes, "the file's size is its lines' bytes");
	uint64_t blocks_bytes = (uint64_t)st.st_blocks * 512, whole_pages = (bytes + 4095) / 4096 * 4096;
	cr_expect_leq(blocks_bytes, whole_pages + 4096, "%" PRIu64 " bytes of blocks for %" PRIu64 " bytes of lines",
	    blocks_bytes, bytes);
	cr_expect_eq(tl_count_lines(path, NULL), BIG + SMALL);
	cr_expect_eq(tl_count_lines(path, "a line of an ordinary length"), BIG);
	cr_expect_eq(tl_count_lines(path, " 05999"), 1);
	cr_expect_eq(tl_count_lines(path, "small 99"), 1);
	unlink(path);
}

Test(log_sinks, environment_sets_each_sinks_layout)
{
	char path[128], path2[128];
	tl_temp_path(path, sizeof path, "sink-json");
	tl_temp_path(path2, sizeof path2, "sink-pattern");
	char spec[512];
	snprintf(spec, sizeof spec, "null,layout=text;file:%s,layout=json;file:%s,pattern=%%p %%m", path, path2);
	tl_clear_env();
	setenv("SEQRING_LOG_SINK", spec, 1);
	sr_log_config c;
	sr_log_config_default(&c);
	c.ring_slots = 1024;
	sr_log *log = tl_open(&c);
	unsetenv("SEQRING_LOG_SINK");
	SR_INFO(sr_log_category(log, "x"), "hello %d", 7);
	sr_log_close(&log);
	cr_expect_eq(tl_count_lines(path, "\"msg\":\"hello 7\""), 1);
	cr_expect_eq(tl_count_lines(path2, NULL), 1);
	cr_expect_eq(tl_count_lines(path2, "INFO hello 7"), 1);
	unlink(path);
	unlink(path2);
}

Test(log_sinks, bad_layouts_are_refused)
{
	tl_setup t;
	sr_log_config *c = tl_setup_begin(&t);
	t.sink.layout = (sr_log_layout)9;
	sr_error e = tl_open_refused(c, "layout 9");
	cr_expect(strstr(e.message, "config.sinks[0].layout 9 is invalid: expected SR_LOG_LAYOUT_LOGGER (-1)") != NULL,
	    "%s", e.message);
	t.sink.layout = SR_LOG_LAYOUT_PATTERN;
	e = tl_open_refused(c, "pattern NULL");
	cr_expect(strstr(e.message, "config.sinks[0].pattern is NULL") != NULL, "%s", e.message);
	t.sink.pattern = "%q";
	e = tl_open_refused(c, "bad pattern");
	cr_expect(strstr(e.message, "config.sinks[0].pattern: pattern '%q' is invalid at column 1") != NULL,
	    "%s", e.message);
	t.sink.layout = SR_LOG_LAYOUT_JSON;
	e = tl_open_refused(c, "pattern without its layout");
	cr_expect(strstr(e.message, "config.sinks[0].pattern '%q' is set but config.sinks[0].layout is json") != NULL,
	    "%s", e.message);
	t.sink.pattern = NULL;
	c->mode = SR_LOG_MODE_QUEUE;
	e = tl_open_refused(c, "queue with a sink layout");
	cr_expect(strstr(e.message, "config.sinks[0].layout json differs from the logger's (text) but mode is queue") != NULL,
	    "%s", e.message);
	tl_setup_end(&t);

	tl_clear_env();
	setenv("SEQRING_LOG_SINK", "stderr,layout=xml", 1);
	sr_log_config d;
	sr_log_config_default(&d);
	e = tl_open_refused(&d, "env layout xml");
	cr_expect_str_eq(e.message, "SEQRING_LOG_SINK 'stderr,layout=xml' is invalid: sink 0: layout 'xml' is "
	    "invalid: expected text, message, pattern or json");
	unsetenv("SEQRING_LOG_SINK");
}

Test(log_sinks, reopen_signal_and_color_settings)
{
	tl_setup t;
	sr_log_config *c = tl_setup_begin(&t);
	c->reopen_signal = 9;
	sr_error e = tl_open_refused(c, "reopen_signal 9");
	cr_expect_str_eq(e.message, "config.reopen_signal 9 is invalid: expected 0 (none), SIGHUP, SIGUSR1 or SIGUSR2");
	c->reopen_signal = 0;
	c->color = (sr_log_color)7;
	e = tl_open_refused(c, "color 7");
	cr_expect(strstr(e.message, "config.color 7 is invalid: expected SR_LOG_COLOR_AUTO (0)") != NULL, "%s", e.message);
	tl_setup_end(&t);

	tl_clear_env();
	setenv("SEQRING_LOG_REOPEN_SIGNAL", "SIGTERM", 1);
	sr_log_config d;
	sr_log_config_default(&d);
	e = tl_open_refused(&d, "SIGTERM");
	cr_expect_str_eq(e.message, "SEQRING_LOG_REOPEN_SIGNAL 'SIGTERM' is invalid: expected SIGHUP, SIGUSR1, SIGUSR2 or none");
	setenv("SEQRING_LOG_REOPEN_SIGNAL", "hup", 1);
	setenv("SEQRING_LOG_COLOR", "never", 1);
	sr_log_config_default(&d);
	d.ring_slots = 1024;
	sr_log *log = tl_open(&d);
	char *text = tl_describe(log);
	cr_expect(strstr(text, "SIGHUP") != NULL && strstr(text, "(SEQRING_LOG_REOPEN_SIGNAL='hup')") != NULL, "%s", text);
	cr_expect(strstr(text, "(SEQRING_LOG_COLOR='never')") != NULL, "%s", text);
	free(text);
	/* The handler answers: a SIGHUP reopens (counted) instead of killing the process. */
	raise(SIGHUP);
	tl_sleep_ms(300);
	cr_expect_eq(sr_log_reopen(log), SR_OK);
	sr_log_close(&log);
	unsetenv("SEQRING_LOG_REOPEN_SIGNAL");
	unsetenv("SEQRING_LOG_COLOR");
	/* After close the program's disposition is back: SIGHUP ignored here, so this returns. */
	signal(SIGHUP, SIG_IGN);
	raise(SIGHUP);
}

/* The message of line i: its number, then filler to one of four lengths, one of them past a 4 KiB buffer. */
static size_t
direct_line(int i, char *buf, size_t size)
{
	static const size_t lengths[4] = { 40, 3000, 9000, 1 };
	size_t n = lengths[i % 4];
	int head = snprintf(buf, size, "%d:", i);
	memset(buf + head, 'a' + i % 26, n);
	buf[head + (int)n] = '\0';
	return (size_t)head + n;
}

/* Logs the lines through a ring logger writing files with these sinks; the bytes each should hold. */
static char *
log_direct_lines(sr_sink_config *sinks, int count, sr_log **out_log, size_t *expected_len)
{
	sr_log_config c;
	tl_configure(&c, &sinks[0], (tl_settings){ .ignore_environment = true, .layout = SR_LOG_LAYOUT_MESSAGE });
	c.sinks = sinks;
	c.sink_count = count;
	c.max_line_bytes = 16384;
	c.max_message_bytes = 12288;  /* a 9,000-character argument whole */
	sr_log *log = tl_open(&c);
	sr_category *root = sr_log_root(log);
	enum { LINES = 400 };
	size_t cap = LINES * 9100, len = 0;
	char *expected = malloc(cap);
	char *msg = malloc(9100);
	cr_assert(expected != NULL && msg != NULL);
	for (int i = 0; i < LINES; i++) {
		size_t n = direct_line(i, msg, 9100);
		SR_INFO(root, "%s", msg);
		memcpy(expected + len, msg, n);
		expected[len + n] = '\n';
		len += n + 1;
	}
	free(msg);
	*out_log = log;
	*expected_len = len;
	return expected;
}

/*
 * One file sink on a layout: the consumer lays each line straight into the
 * sink's buffer; the file holds every line once, in order, lines bigger
 * than the buffer among them, in the writes a copy would have made.
 */
Test(log_sinks, lines_laid_in_a_file_sinks_buffer_are_written_whole_and_in_order, .timeout = 30)
{
	char path[64];
	tl_temp_path(path, sizeof path, "direct");
	sr_sink_config s = sr_sink_file(path);
	s.buffer_bytes = 4096;
	sr_log *log;
	size_t len;
	char *expected = log_direct_lines(&s, 1, &log, &len);
	cr_expect_eq(log->sinks->direct_sink[0], 0, "one buffering file sink takes the layout: lines go straight in");
	sr_log_counters st;
	sr_log_flush(log);
	sr_log_stats(log, &st);
	cr_assert_eq(sr_log_close(&log), SR_OK);
	size_t got_len = 0;
	char *got = tl_read_file(path, &got_len);
	cr_assert_not_null(got);
	cr_assert_eq(got_len, len, "the file has %zu bytes, the lines %zu", got_len, len);
	cr_expect_eq(memcmp(got, expected, len), 0, "every line once, in order");
	cr_expect_eq(st.sinks[0].bytes, len);
	/* A line bigger than the buffer goes alone, after what was buffered: two writes for each of the 100. */
	cr_expect_geq(st.sinks[0].writes, 200u, "%" PRIu64 " writes", st.sinks[0].writes);
	free(got);
	free(expected);
	unlink(path);
}

/* Two sinks on one layout: the line is laid out once and copied into each; both files are the same. */
Test(log_sinks, two_file_sinks_on_one_layout_get_the_same_lines, .timeout = 30)
{
	char path[2][64];
	sr_sink_config s[2];
	for (int i = 0; i < 2; i++) {
		tl_temp_path(path[i], sizeof path[i], "copied");
		s[i] = sr_sink_file(path[i]);
		s[i].buffer_bytes = 4096;
	}
	sr_log *log;
	size_t len;
	char *expected = log_direct_lines(s, 2, &log, &len);
	cr_expect_eq(log->sinks->direct_sink[0], -1, "two sinks take the layout: the line is copied into each");
	cr_assert_eq(sr_log_close(&log), SR_OK);
	for (int i = 0; i < 2; i++) {
		size_t got_len = 0;
		char *got = tl_read_file(path[i], &got_len);
		cr_assert_not_null(got);
		cr_assert_eq(got_len, len, "%s has %zu bytes, the lines %zu", path[i], got_len, len);
		cr_expect_eq(memcmp(got, expected, len), 0, "%s: every line once, in order", path[i]);
		free(got);
		unlink(path[i]);
	}
	free(expected);
}

/*
 * Cut lines laid in a file sink's buffer when it is nearly full: the cut
 * marker and the newline go past the line's room, into a reserve the
 * buffer has (under ASan a write past it is an error).  Every line reaches
 * the file, the long ones cut at the line limit with the marker.
 */
Test(log_sinks, cut_lines_laid_in_a_nearly_full_buffer_stay_inside_it, .timeout = 30)
{
	char path[64];
	tl_temp_path(path, sizeof path, "cut");
	sr_sink_config s = sr_sink_file(path);
	s.buffer_bytes = 4 * 1037;
	sr_log_config c;
	sr_log_config_default(&c);
	c.ignore_environment = true;
	c.sinks = &s;
	c.sink_count = 1;
	c.max_line_bytes = 1024;
	c.max_message_bytes = 8192;
	sr_log *log = tl_open(&c);
	cr_expect_eq(log->sinks->direct_sink[0], 0, "one buffering file sink: lines are laid in its buffer");
	sr_category *root = sr_log_root(log);
	static char big[5001];
	memset(big, 'a', 5000);
	enum { ROUNDS = 60 };
	/* Cut lines alone first: four fill the buffer to its cap exactly (1,037 bytes each), the fifth starts there. */
	for (int i = 0; i < ROUNDS / 2; i++)
		SR_INFO(root, "x%s", big);
	for (int i = 0; i < ROUNDS / 2; i++) {
		/* Then short lines of several lengths between them, so that the cut lines end at other offsets. */
		SR_INFO(root, "short %.*s", i % 37, big);
		SR_INFO(root, "x%s", big);
	}
	cr_assert_eq(sr_log_close(&log), SR_OK);
	size_t len = 0;
	char *got = tl_read_file(path, &len);
	cr_assert_not_null(got);
	size_t lines = 0, cut = 0;
	for (char *p = got, *nl; p < got + len; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(got + len - p));
		cr_assert_not_null(nl, "the file ends with a whole line");
		lines++;
		static const char marker[] = " " SR_FMT_TRUNCATION_MARKER;
		size_t n = (size_t)(nl - p);
		if (n >= sizeof marker - 1 && memcmp(nl - (sizeof marker - 1), marker, sizeof marker - 1) == 0) {
			cut++;
			cr_expect_eq(n, 1024 + sizeof marker - 1, "a cut line is the limit's bytes and the marker");
		}
	}
	cr_expect_eq(lines, ROUNDS + ROUNDS / 2);
	cr_expect_eq(cut, ROUNDS, "every long line cut, no short one");
	free(got);
	unlink(path);
}

/* The lines of one logger's file, split; each a NUL-terminated string in the returned buffer. */
static size_t
split_lines(char *text, size_t len, char **lines, size_t max)
{
	size_t n = 0;
	for (char *p = text, *nl; p < text + len && n < max; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(text + len - p));
		if (nl == NULL)
			break;
		*nl = '\0';
		lines[n++] = p;
	}
	return n;
}

/*
 * The consumer's straight path serves a level whose lines go to one file
 * sink in the text or JSON layout, and only then: its lines and the
 * general path's follow each other in the call's order, each whole, and
 * the logger's counts are those of the general path.  With a second sink
 * of another layout, both files get every line.
 */
Test(log_sinks, the_straight_path_serves_a_sole_text_or_json_sink, .timeout = 30)
{
	enum { CALLS = 300 };
	static const sr_log_layout layouts[] = { SR_LOG_LAYOUT_TEXT, SR_LOG_LAYOUT_JSON };
	/* Every build of the straight path this CPU runs, each laying lines into the sink's buffer. */
	const sr_log_lane_build *builds;
	size_t build_count = sr_log__lane_builds(&builds);
	for (size_t b = 0; b < build_count * 2 * 2; b++) {
		size_t build = b / 4;
		int both = (int)(b / 2 % 2), k = (int)(b % 2);
		{
			char path[2][64];
			sr_sink_config s[2];
			for (int i = 0; i < 2; i++) {
				tl_temp_path(path[i], sizeof path[i], "lane");
				s[i] = sr_sink_file(path[i]);
				s[i].layout = layouts[(k + i) % 2];
			}
			sr_log_config c;
			sr_log_config_default(&c);
			c.ignore_environment = true;
			c.sinks = s;
			c.sink_count = both ? 2 : 1;
			sr_log *log = tl_open(&c);
			bool sole = sr_log__sinks_sole(log, SR_LOG_INFO)->sink != NULL;
			cr_expect_eq(sole, !both, "%s: a level with %s has %s", both ? "two sinks" : "one sink",
			    both ? "two layouts" : "one layout", sole ? "a sole sink" : "none");
			/* Served alone by one sink: the build is used; with two layouts there is nothing to serve. */
			cr_expect_eq(sr_log__consumer_use_lane_build(log, build), !both, "%s build, %s", builds[build].name,
			    both ? "two sinks" : "one sink");
			sr_category *cat = sr_log_category_get(log, "lane.test", NULL);
			cr_assert_not_null(cat);
			for (int i = 0; i < CALLS; i++) {
				char msg[32];
				snprintf(msg, sizeof msg, "preformatted %d", i);
				if (i % 3 == 0)
					SR_INFO(cat, "%s", msg);            /* the straight path's */
				else if (i % 3 == 1)
					SR_INFO(cat, "converted %d", i);    /* the general path's */
				else
					SR_INFO(cat, "plain text");         /* the straight path's */
			}
			sr_log_flush(log);
			sr_log_counters st;
			sr_log_stats(log, &st);
			cr_expect_eq(st.accepted, (uint64_t)CALLS);
			cr_expect_eq(st.written, (uint64_t)CALLS);
			cr_expect_eq(st.sinks[0].messages, (uint64_t)CALLS);
			cr_assert_eq(sr_log_close(&log), SR_OK);
			for (int f = 0; f < (both ? 2 : 1); f++) {
				size_t len = 0;
				char *got = tl_read_file(path[f], &len);
				cr_assert_not_null(got);
				static char *lines[CALLS + 1];
				size_t n = split_lines(got, len, lines, CALLS + 1);
				cr_assert_eq(n, (size_t)CALLS, "%s: %zu lines", path[f], n);
				bool json = layouts[(k + f) % 2] == SR_LOG_LAYOUT_JSON;
				for (int i = 0; i < CALLS; i++) {
					char want[64];
					if (i % 3 == 0)
						snprintf(want, sizeof want, json ? "\"msg\":\"preformatted %d\"" : " - preformatted %d (", i);
					else if (i % 3 == 1)
						snprintf(want, sizeof want, json ? "\"msg\":\"converted %d\"" : " - converted %d (", i);
					else
						snprintf(want, sizeof want, json ? "\"msg\":\"plain text\"" : " - plain text (");
					cr_expect(strstr(lines[i], want) != NULL, "%s line %d: '%s' lacks '%s'", path[f], i, lines[i],
					    want);
					cr_expect(json ? strstr(lines[i], "\"category\":\"lane.test\"") != NULL :
					    strstr(lines[i], "INFO  [") != NULL && strstr(lines[i], "] lane.test - ") != NULL,
					    "%s line %d: '%s'", path[f], i, lines[i]);
				}
				free(got);
				unlink(path[f]);
			}
			if (!both)
				unlink(path[1]);
		}
	}
}
