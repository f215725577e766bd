/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_log_layout.c: the pattern and JSON Lines layouts.
 *
 * Pattern: every date conversion on fixed instants (leap day, before the
 * epoch, far years), every line conversion end to end through a logger,
 * widths, left-justify and truncation, the trailing-newline rule, and every
 * invalid pattern's message and column.  JSON: adversarial messages
 * (quotes, backslashes, every control character, NUL, valid and invalid
 * UTF-8 of every kind, huge messages cut at the line limit, odd thread and
 * category names) written by each mode, each line parsed by Python's json
 * module, and each "msg" compared with Python's own UTF-8 decoding (with
 * replacement) of the raw message, an oracle independent of our code.  The
 * signal-safe renderer (used by the crash handler) against snprintf.
 */
#include "test_log_support.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>

#include "sr_fmt_escape_internal.h"
#include "sr_log_layout_pattern_internal.h"
#include "sr_fmt_render_internal.h"

/* ---------------------------------------------------------------------------------------- */
/* Pattern: dates and widths on fixed events                                                */

static const sr_site fixed_site = {
	.format = "fixed %d", .file = "/src/app/server.c", .function = "handle", .line = 42,
	.level = SR_LOG_WARN
};

/* Renders text through a compiled pattern for a fixed event at ts_ns. */
static char *
render_fixed(const char *pattern, int64_t ts_ns, const char *thread, const char *category,
    const char *text, char *buf, size_t size)
{
	sr_log_pattern *p;
	sr_error err;
	cr_assert_eq(sr_log__pattern_compile(pattern, &p, &err), SR_OK, "%s: %s", pattern, err.message);
	sr_log_event ev = {
		.ts_ns = ts_ns, .level = SR_LOG_WARN, .tid = 4242, .thread = thread, .category = category,
		.site = &fixed_site, .text = text, .text_len = strlen(text),
	};
	sr_fmt_buf b = { buf, 0, size - 1, 0 };
	sr_log__pattern_render(p, &ev, &b);
	buf[b.len] = '\0';
	sr_log__pattern_free(p);
	return buf;
}

Test(log_layout, pattern_dates_on_fixed_instants)
{
	static const struct {
		int64_t ts_ns;
		const char *pattern, *want;
	} cases[] = {
		{ INT64_C(1709251199123456789), "%d", "2024-02-29T23:59:59.123456Z" },
		{ INT64_C(1709251199123456789), "%d{%Y-%m-%d %H:%M:%S.%3f}", "2024-02-29 23:59:59.123" },
		{ INT64_C(1709251199123456789), "%d{%9f|%6f|%3f|%1f|%f}", "123456789|123456|123|1|123456" },
		{ INT64_C(1709251199123456789), "%d{%j %a %b %e %y %s %z %Z %%}", "060 Thu Feb 29 24 1709251199 +0000 UTC %" },
		{ INT64_C(-500000000), "%d{%Y-%m-%dT%H:%M:%S.%3f %j %a %s}", "1969-12-31T23:59:59.500 365 Wed -1" },
		{ INT64_C(4107542400000000000), "%d{%Y-%m-%d %j %a %b %e}", "2100-03-01 060 Mon Mar  1" },
		{ INT64_C(946684800000000001), "%d{%Y-%m-%d %a %9f}", "2000-01-01 Sat 000000001" },
		{ INT64_C(9214646399999999999), "%d{%Y-%m-%d %H:%M:%S %j %a}", "2261-12-31 23:59:59 365 Tue" },
		{ INT64_C(-2203848000000000000), "%d{%Y-%m-%d %H %j %a}", "1900-03-01 12 060 Thu" },
		{ 0, "%d{date %Y!}", "date 1970!" },
	};
	char buf[256];
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		cr_expect_str_eq(render_fixed(cases[i].pattern, cases[i].ts_ns, "main", "net", "x", buf, sizeof buf),
		    cases[i].want, "%s", cases[i].pattern);
}

Test(log_layout, one_pattern_renders_each_instant_of_a_second_and_the_next)
{
	/* The date's text to the second is kept between records: each record still gets its own time. */
	sr_log_pattern *p;
	sr_error err;
	cr_assert_eq(sr_log__pattern_compile("%d{%Y-%m-%d %H:%M:%S.%3f %a} %m", &p, &err), SR_OK, "%s", err.message);
	static const struct {
		int64_t ts_ns;
		const char *want;
	} records[] = {
		{ INT64_C(1709251199123456789), "2024-02-29 23:59:59.123 Thu x" },
		{ INT64_C(1709251199987654321), "2024-02-29 23:59:59.987 Thu x" },
		{ INT64_C(1709251200000000001), "2024-03-01 00:00:00.000 Fri x" },
		{ INT64_C(1709251199000000000), "2024-02-29 23:59:59.000 Thu x" },
		{ INT64_C(1709251200500000000), "2024-03-01 00:00:00.500 Fri x" },
	};
	char buf[256];
	for (size_t i = 0; i < sizeof records / sizeof *records; i++) {
		sr_log_event ev = {
			.ts_ns = records[i].ts_ns, .level = SR_LOG_WARN, .tid = 4242, .thread = "main", .category = "net",
			.site = &fixed_site, .text = "x", .text_len = 1,
		};
		sr_fmt_buf b = { buf, 0, sizeof buf - 1, 0 };
		sr_log__pattern_render(p, &ev, &b);
		buf[b.len] = '\0';
		cr_expect_str_eq(buf, records[i].want, "record %zu", i);
	}
	sr_log__pattern_free(p);
	/* Another pattern at the same instant, and one with two dates: their own dates, not the last one's. */
	cr_expect_str_eq(render_fixed("%d{%H:%M}", INT64_C(1709251200500000000), "main", "net", "x", buf, sizeof buf),
	    "00:00");
	cr_expect_str_eq(render_fixed("%d{%S.%3f}|%d{%s %9f}", INT64_C(1709251200500000000), "main", "net", "x", buf,
	    sizeof buf), "00.500|1709251200 500000000");
}

Test(log_layout, pattern_widths_justify_truncation_and_newlines)
{
	static const struct {
		const char *pattern, *want;
	} cases[] = {
		{ "[%p]", "[WARN]" },
		{ "[%-5p]", "[WARN ]" },
		{ "[%5p]", "[ WARN]" },
		{ "[%.3c]", "[ttp]" },                 /* keeps the last 3, as Log4j */
		{ "[%-12.8c]", "[net.http    ]" },
		{ "[%12c]", "[    net.http]" },
		{ "[%-3c]", "[net.http]" },            /* a width never cuts */
		{ "[%t|%T]", "[worker-3|4242]" },
		{ "[%-10t]", "[worker-3  ]" },
		{ "%F:%L %M", "server.c:42 handle" },
		{ "%.4F|%6L|%-8M|", "er.c|    42|handle  |" },
		{ "%m", "the message" },
		{ "%m%n", "the message" },             /* the trailing %n is the line's own newline */
		{ "%m%n%n", "the message\n" },
		{ "a%nb", "a\nb" },
		{ "100%% %m", "100% the message" },
		{ "%20m|", "         the message|" },
		{ "%-20m|", "the message         |" },
		{ "%.3m", "age" },
		{ "%5d{%H}|", "   23|" },
		{ "no conversion at all", "no conversion at all" },
	};
	char buf[256];
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		cr_expect_str_eq(render_fixed(cases[i].pattern, INT64_C(1709251199123456789), "worker-3", "net.http",
		    "the message", buf, sizeof buf), cases[i].want, "%s", cases[i].pattern);
	/* The root category and a thread without a name. */
	cr_expect_str_eq(render_fixed("%c|%t", 0, "", "", "x", buf, sizeof buf), "root|4242");
	/* A width at the end of a full buffer cuts instead of overflowing. */
	char small[8];
	render_fixed("%20m", 0, "t", "c", "abc", small, sizeof small);
	cr_expect_eq(strlen(small), 7);
}

Test(log_layout, every_invalid_pattern_names_its_column)
{
	static const struct {
		const char *pattern, *message;
	} cases[] = {
		{ "%d %q", "pattern '%d %q' is invalid at column 4: '%q' is not a conversion (expected %d %p %c %t %T "
		  "%m %F %L %M %n %%)" },
		{ "abc %", "pattern 'abc %' is invalid at column 5: the pattern ends inside a conversion (a lone '%'? "
		  "write %% for '%')" },
		{ "%-", "pattern '%-' is invalid at column 1: the pattern ends inside a conversion" },
		{ "x %d{%Y-%m", "pattern 'x %d{%Y-%m' is invalid at column 5: '{' of %d has no closing '}'" },
		{ "%d{%Y %Q}", "pattern '%d{%Y %Q}' is invalid at column 7: '%Q' is not a date conversion (expected %Y" },
		{ "%d{%Y %}", "pattern '%d{%Y %}' is invalid at column 7: the date format ends with a lone '%'" },
		{ "%d{%4Y}", "pattern '%d{%4Y}' is invalid at column 4: '%4' in the date: a digit must be followed by f" },
		{ "%d{}", "pattern '%d{}' is invalid at column 3: %d{} has an empty date format" },
		{ "%5000m", "pattern '%5000m' is invalid at column 1: the width is above 4096" },
		{ "%.9999c", "pattern '%.9999c' is invalid at column 1: the truncation is above 4096" },
		{ "%.c", "pattern '%.c' is invalid at column 1: '.' must be followed by the number of characters to keep" },
		{ "%.0c", "pattern '%.0c' is invalid at column 1: '.0' would keep nothing" },
		{ "%5n", "pattern '%5n' is invalid at column 1: %n and %% take no width" },
		{ "%-%", "pattern '%-%' is invalid at column 1: %n and %% take no width" },
		{ "ab\x01%\x01", "byte 0x01 after '%' is not a conversion" },
		{ "", "pattern '' is invalid: it is empty" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		sr_error err;
		sr_error_clear(&err);
		cr_expect_eq(sr_log_pattern_check(cases[i].pattern, &err), SR_EINVAL, "%s", cases[i].pattern);
		cr_expect(strstr(err.message, cases[i].message) != NULL, "'%s':\n got  \"%s\"\n want \"%s\"",
		    cases[i].pattern, err.message, cases[i].message);
	}
	cr_expect_eq(sr_log_pattern_check(NULL, NULL), SR_EINVAL);
	cr_expect_eq(sr_log_pattern_check("%d{%Y} %-5p [%t] %c - %m (%F:%L %M)%n", NULL), SR_OK);
	/* At open, the same error. */
	sr_log_config c;
	sr_log_config_default(&c);
	c.ignore_environment = true;
	c.ring_slots = 64;
	c.layout = SR_LOG_LAYOUT_PATTERN;
	c.pattern = "%m %Z";
	sr_error err;
	cr_expect_null(sr_log_open(&c, &err));
	cr_expect_str_eq(err.message, "pattern '%m %Z' is invalid at column 4: '%Z' is not a conversion (expected "
	    "%d %p %c %t %T %m %F %L %M %n %%)");
}

Test(log_layout, pattern_through_a_logger_in_every_mode)
{
	static const sr_log_mode modes[] = { SR_LOG_MODE_RING, SR_LOG_MODE_QUEUE, SR_LOG_MODE_SYNC };
	for (int m = 0; m < 3; m++) {
		tl_setup t;
		sr_log_config *c = tl_setup_begin(&t);
		c->mode = modes[m];
		c->level = SR_LOG_TRACE;
		c->layout = SR_LOG_LAYOUT_PATTERN;
		c->pattern = "%d{%Y-%m-%dT%H:%M:%S.%9fZ} %-5p %-8c [%t/%T] %m <%F:%L %M>%n";
		sr_log *log = tl_open(c);
		sr_log_thread_name("pat-thread");
		sr_category *cat = sr_log_category(log, "db.pool");
		int line = __LINE__ + 1;
		SR_INFO(cat, "query %s took %d ms", "SELECT 1", 7);
		sr_log_close(&log);
		cr_assert_eq(t.cap.count, 1);
		char want_tail[256];
		snprintf(want_tail, sizeof want_tail, " INFO  db.pool  [pat-thread/%d] query SELECT 1 took 7 ms "
		    "<test_log_layout.c:%d %s>", (int)gettid(), line, __func__);
		const char *got = t.cap.lines[0];
		cr_expect_eq(strlen(got), 30 + strlen(want_tail), "%s", got);
		cr_expect_str_eq(got + 30, want_tail, "mode %d", m);
		cr_expect(got[4] == '-' && got[10] == 'T' && got[29] == 'Z', "%s", got);
		tl_setup_end(&t);
	}
}

/* ---------------------------------------------------------------------------------------- */
/* JSON Lines against a real parser                                                         */

/* Runs python3 on the log and the raw messages (hex); returns its output. */
static char *
python_check(const char *log_path, const char *hex_path)
{
	static const char script[] =
	    "import json,re,sys\n"
	    "raw=open(sys.argv[1],'rb').read()\n"
	    "text=raw.decode('utf-8')\n"                       /* the file is valid UTF-8, strictly */
	    "assert text.endswith('\\n'), 'no final newline'\n"
	    "lines=text[:-1].split('\\n')\n"
	    "exp=[bytes.fromhex(h[1:]).decode('utf-8','replace') for h in open(sys.argv[2]).read().split()]\n"
	    "assert len(lines)==len(exp), (len(lines),len(exp))\n"
	    "ts=re.compile(r'^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{9}Z$')\n"
	    "cut=0\n"
	    "for i,(l,e) in enumerate(zip(lines,exp)):\n"
	    "    o=json.loads(l)\n"                            /* strict: raw control characters fail */
	    "    assert isinstance(o,dict), l\n"
	    "    keys=['ts','level','category','thread','tid','msg','file','line','function']\n"
	    "    assert list(o.keys())==keys, (i,list(o.keys()))\n"
	    "    assert ts.match(o['ts']), o['ts']\n"
	    "    assert o['level'] in ('trace','debug','info','warn','error','fatal'), o['level']\n"
	    "    assert isinstance(o['tid'],int) and isinstance(o['line'],int)\n"
	    "    assert o['file']=='test_log_layout.c' and o['function']=='log_adversarial', (o['file'],o['function'])\n"
	    "    m=o['msg']\n"
	    "    if m.endswith('[truncated]') and not e.endswith('[truncated]'):\n"
	    "        cut+=1\n"
	    "        k=m[:-len('[truncated]')].rstrip('\\ufffd')\n"
	    "        assert len(k)>500 and e.startswith(k), (i,len(k))\n"
	    "        assert len(l.encode('utf-8'))<=int(sys.argv[3]), len(l)\n"
	    "    else:\n"
	    "        assert m==e, (i,m,e)\n"
	    "    assert o['thread']==sys.argv[4], (o['thread'],sys.argv[4])\n"
	    "    assert o['category'] in ('adv.\"q\\\\b','root'), o['category']\n"
	    "print('ok',len(lines),'cut',cut)\n";
	char script_path[64];
	tl_temp_path(script_path, sizeof script_path, "jsonchk");
	FILE *f = fopen(script_path, "w");
	cr_assert_not_null(f);
	fputs(script, f);
	fclose(f);
	char cmd[512];
	snprintf(cmd, sizeof cmd, "python3 %s %s %s 4096 'we\"ird\\' 2>&1", script_path, log_path, hex_path);
	FILE *p = popen(cmd, "r");
	cr_assert_not_null(p);
	char *out = calloc(1, 8192);
	size_t n = fread(out, 1, 8191, p);
	out[n] = '\0';
	int status = pclose(p);
	unlink(script_path);
	cr_expect_eq(status, 0, "python: %s", out);
	return out;
}

/* The adversarial messages, as raw bytes. */
static const char *const adversarial[] = {
	"plain",
	"quotes \" and \"\" and a backslash \\ and \\\\ and \\\" and /slash",
	"controls \x01\x02\x03\x04\x05\x06\x07\b\t\n\x0b\f\r\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18"
	"\x19\x1a\x1b\x1c\x1d\x1e\x1f and DEL \x7f",
	"valid UTF-8: h\xc3\xa9llo w\xc3\xb6rld \xe2\x9c\x93 \xf0\x9d\x84\x9e \xe2\x80\xa8 \xef\xbb\xbf \xf4\x8f\xbf\xbf",
	"lone \xff and \xfe and \x80 continuation",
	"overlong \xc0\xaf \xc1\xbf \xe0\x80\xaf \xf0\x80\x80\xaf",
	"surrogates \xed\xa0\x80 \xed\xbf\xbf",
	"above U+10FFFF \xf4\x90\x80\x80 \xf5\x80\x80\x80",
	"truncated \xe2\x82 then text, \xf0\x9f\x98 then more, \xc3",
	"ends in a truncated sequence \xe2\x82",
	"{\"json\":\"inside\",\"a\":[1,2]}",
	"",
	"\xef\xbf\xbd already a replacement",
};

static void
put_hex(FILE *f, const unsigned char *s, size_t n)
{
	fputc('x', f); /* so that an empty message is a line too */
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%02x", s[i]);
	fputc('\n', f);
}

/* Logs every adversarial message (and the hex of each into hex_f); returns how many. */
static int
log_adversarial(sr_log *log, FILE *hex_f)
{
	sr_category *cat = sr_log_category(log, "adv.\"q\\b");
	cr_assert_neq(cat, &sr_category_off);
	int n = 0;
	for (size_t i = 0; i < sizeof adversarial / sizeof *adversarial; i++) {
		SR_WARN(cat, "%s", adversarial[i]);
		put_hex(hex_f, (const unsigned char *)adversarial[i], strlen(adversarial[i]));
		n++;
	}
	/* A NUL byte inside the message, through %c. */
	SR_ERROR(cat, "nul [%c] byte", 0);
	put_hex(hex_f, (const unsigned char *)"nul [\0] byte", 12);
	n++;
	/* Every byte value 1..255 in one message. */
	unsigned char all[256];
	for (int b = 1; b < 256; b++)
		all[b - 1] = (unsigned char)b;
	all[255] = 0;
	SR_INFO(cat, "%s", (const char *)all);
	put_hex(hex_f, all, 255);
	n++;
	/* Longer than the line: cut inside "msg", the object stays whole.  Multi-byte at the cut. */
	static char big[12000];
	for (size_t i = 0; i + 3 < sizeof big; i += 3)
		memcpy(big + i, i % 2 ? "\xe2\x9c\x93" : "a\"\\", 3);
	big[sizeof big - 1] = '\0';
	big[sizeof big - 2] = '\0';
	big[sizeof big - 3] = '\0';
	SR_INFO(cat, "%s", big);
	put_hex(hex_f, (const unsigned char *)big, strlen(big));
	n++;
	/* Many escapes: each control byte becomes six. */
	static char ctl[3000];
	memset(ctl, 1, sizeof ctl - 1);
	ctl[sizeof ctl - 1] = '\0';
	SR_INFO(cat, "%s", ctl);
	put_hex(hex_f, (const unsigned char *)ctl, strlen(ctl));
	n++;
	/* A format error's text is a message too. */
	int written = 0;
	SR_INFO(sr_log_root(log), "bad \"format\" %n", &written);
	return n;
}

static void
json_mode(sr_log_mode mode)
{
	tl_clear_env();
	char path[64], hex_path[64];
	tl_temp_path(path, sizeof path, "json");
	tl_temp_path(hex_path, sizeof hex_path, "jsonhex");
	sr_sink_config s = sr_sink_file(path);
	sr_log_config c;
	tl_configure(&c, &s, (tl_settings){ .ignore_environment = true, .mode = mode, .ring_slots = 256,
	    .layout = SR_LOG_LAYOUT_JSON, .max_message_bytes = 16384 });
	c.max_line_bytes = 4096;
	c.level = SR_LOG_TRACE;
	sr_log *log = tl_open(&c);
	sr_log_thread_name("we\"ird\\");
	FILE *hex = fopen(hex_path, "w");
	cr_assert_not_null(hex);
	log_adversarial(log, hex);
	/* The format error line: its msg is our error text, check it separately below. */
	fclose(hex);
	sr_log_close(&log);
	/* Drop the last line (the format error) into its own check. */
	size_t len;
	char *text = tl_read_file(path, &len);
	cr_assert_not_null(text);
	cr_assert_gt(len, 0);
	char *last = text + len - 1;
	*last = '\0';
	char *nl = strrchr(text, '\n');
	cr_assert_not_null(nl);
	cr_expect(strstr(nl + 1, "\"msg\":\"format error: conversion '%n' is refused") != NULL, "%s", nl + 1);
	cr_expect(strstr(nl + 1, "in \\\"bad \\\"format\\\" %n\\\"") != NULL, "%s", nl + 1);
	FILE *f = fopen(path, "w");
	fwrite(text, 1, (size_t)(nl - text) + 1, f);
	fclose(f);
	free(text);
	char *out = python_check(path, hex_path);
	cr_expect(strncmp(out, "ok 17 cut 2", 11) == 0, "python says: %s", out);
	free(out);
	unlink(path);
	unlink(hex_path);
}

Test(log_layout, json_lines_parse_ring, .timeout = 30) { json_mode(SR_LOG_MODE_RING); }
Test(log_layout, json_lines_parse_queue, .timeout = 30) { json_mode(SR_LOG_MODE_QUEUE); }
Test(log_layout, json_lines_parse_sync, .timeout = 30) { json_mode(SR_LOG_MODE_SYNC); }

Test(log_layout, json_exact_line_and_small_limits)
{
	tl_setup t;
	sr_log_config *c = tl_setup_begin(&t);
	c->layout = SR_LOG_LAYOUT_JSON;
	c->max_line_bytes = 1024;
	sr_log *log = tl_open(c);
	sr_log_thread_name("j1");
	int line = __LINE__ + 1;
	SR_WARN(sr_log_category(log, "net.http"), "GET %s -> %d", "/a\"b", 404);
	/* A long category and message: the line stays at most max_line_bytes and whole. */
	char name[256];
	memset(name, '"', 200);
	name[200] = '\0';
	static char msg[5000];
	memset(msg, '\x02', sizeof msg - 1);
	SR_WARN(sr_log_category(log, name), "%s", msg);
	sr_log_close(&log);
	cr_assert_eq(t.cap.count, 2);
	char want[512];
	int n = snprintf(want, sizeof want, "\"level\":\"warn\",\"category\":\"net.http\",\"thread\":\"j1\",\"tid\":%d,"
	    "\"msg\":\"GET /a\\\"b -> 404\",\"file\":\"test_log_layout.c\",\"line\":%d,\"function\":"
	    "\"%s\"}", (int)gettid(), line, __func__);
	cr_assert_gt(n, 0);
	const char *got = t.cap.lines[0];
	cr_expect(strncmp(got, "{\"ts\":\"", 7) == 0 && strlen(got) == 7 + 30 + 2 + strlen(want), "%s", got);
	cr_expect_str_eq(got + 7 + 30 + 2, want);
	const char *big = t.cap.lines[1];
	cr_expect_leq(strlen(big) + 1, 1024, "%zu", strlen(big));
	cr_expect(strstr(big, "[truncated]\",\"file\":\"test_log_layout.c\"") != NULL, "%s", big);
	cr_expect(big[strlen(big) - 1] == '}', "%s", big);
	/* JSON needs room for a line. */
	c->max_line_bytes = 512;
	sr_error err = tl_open_refused(c, "max_line_bytes 512 with the json layout");
	cr_expect_str_eq(err.message, "config.max_line_bytes 512 is too small for the json layout: expected at least 1024");
	tl_setup_end(&t);
}

/* ---------------------------------------------------------------------------------------- */
/* The signal-safe renderer                                                                 */

/* Renders format and its arguments both ways; integer and string output must be equal. */
static void
safe_vs_printf(const char *format, ...)
{
	va_list ap, aq;
	va_start(ap, format);
	va_copy(aq, ap);
	char want[512];
	vsnprintf(want, sizeof want, format, ap);
	va_end(ap);
	sr_fmt_sig sig;
	cr_assert_eq(sr_fmt_parse(format, &sig, NULL, 0), SR_FMT_OK, "%s", format);
	sr_fmt_gather g;
	sr_fmt_gather_args(&g, &sig, 0, &aq);
	va_end(aq);
	size_t bytes = sr_fmt_fit(&g, 0, 1 << 20);
	unsigned char rec[4096];
	cr_assert_leq(bytes, sizeof rec);
	sr_ring_writer w = { rec, 0, SIZE_MAX };
	sr_fmt_write(&g, &w);
	char got[512 + SR_FMT_LINE_RESERVE];
	sr_fmt_buf b = { got, 0, 511, 0 };
	sr_fmt_render_safe(&b, format, rec, g.value_bytes, rec + g.value_bytes, g.string_bytes, 0);
	got[b.len] = '\0';
	cr_expect_str_eq(got, want, "format \"%s\"", format);
}

Test(log_layout, signal_safe_renderer_matches_printf)
{
	safe_vs_printf("%d %i %u %x %X %o %c %%", -42, 7, 3000000000u, 0xbeefu, 0xbeefu, 8u, 'z');
	safe_vs_printf("[%5d|%-5d|%05d|%+d|% d|%.3d|%8.3d|%-8.3d]", 42, 42, -42, 42, 42, 7, -7, 7);
	safe_vs_printf("[%#x|%#X|%#o|%#x|%#o]", 255u, 255u, 8u, 0u, 0u);
	safe_vs_printf("[%ld|%lu|%lld|%llx|%zu|%zd|%jd|%td]", -1L, 1UL << 63, -9223372036854775807LL - 1,
	    0xffffffffffffffffULL, (size_t)123, (ssize_t)-5, (intmax_t)-6, (ptrdiff_t)-7);
	safe_vs_printf("[%hhd|%hhu|%hd|%hu|%hhx]", 300, 300, 70000, 70000, 511);
	safe_vs_printf("[%s|%10s|%-10s|%.2s|%*s|%-*s|%.*s]", "abc", "abc", "abc", "abc", 6, "ab", 6, "ab", 1, "xyz");
	safe_vs_printf("[%s|%.3s|%10s]", (char *)NULL, (char *)NULL, (char *)NULL);
	safe_vs_printf("[%p|%p|%20p]", (void *)0x1234, (void *)NULL, (void *)0xdeadbeef);
	safe_vs_printf("[%*d|%-*d|%.*d]", 6, 42, 6, 42, 4, 42);
	safe_vs_printf("[%*d]", -6, 42);
	/* Floating point: exact for what a double holds in these digits. */
	safe_vs_printf("[%f|%.2f|%.0f|%10.3f|%-10.1f|%+.1f|%f]", 3.5, 2.25, 2.5e3, -1.125, 0.5, 1.0, 0.0);
	safe_vs_printf("[%e|%.2e|%E]", 12345.678, 0.00125, 6.02e23);
	safe_vs_printf("[%g|%g|%g|%g|%G]", 100000.0, 1e-5, 0.5, 1234567.0, 1e20);
	safe_vs_printf("[%f|%f|%F|%e]", 1.0 / 0.0, -1.0 / 0.0, 1.0 / 0.0, -1.0 / 0.0);
	/* %m is "errno N" (strerror is not async-signal-safe). */
	unsigned char none[1];
	char got[64 + SR_FMT_LINE_RESERVE];
	sr_fmt_buf b = { got, 0, 63, 0 };
	sr_fmt_render_safe(&b, "failed: %m", none, 0, none, 0, ENOENT);
	got[b.len] = '\0';
	cr_expect_str_eq(got, "failed: errno 2");
}

/* ---------------------------------------------------------------------------------------- */
/* Hostile widths and precisions                                                            */

/*
 * The worst '*' values through a logger in every mode: each line is cut at
 * the line limit and marked, and the lines after it are written (unclamped,
 * %.*f with INT_MAX took the consumer seconds and gigabytes and printed nothing).
 */
Test(log_layout, hostile_widths_are_cut_and_marked, .timeout = 20)
{
	static const sr_log_mode modes[] = { SR_LOG_MODE_RING, SR_LOG_MODE_QUEUE, SR_LOG_MODE_SYNC };
	for (int m = 0; m < 3; m++) {
		tl_setup t;
		sr_log_config *c = tl_setup_begin(&t);
		c->mode = modes[m];
		c->layout = SR_LOG_LAYOUT_MESSAGE;
		c->max_line_bytes = 4096;
		sr_log *log = tl_open(c);
		sr_category *cat = sr_log_category(log, "hostile");
		/* Sync mode renders on this thread: its count of bytes snprintf produced is the work. */
		unsigned long long work = sr_fmt__render_work();
		SR_WARN(cat, "w[%*d]", INT_MAX, 1);
		SR_WARN(cat, "p[%.*f]", INT_MAX, 0.5);
		SR_WARN(cat, "n[%*d]", -INT_MAX, 2);
		SR_WARN(cat, "after");
		work = sr_fmt__render_work() - work;
		if (modes[m] == SR_LOG_MODE_SYNC) {
			cr_expect_geq(work, 3ULL * 4096, "each hostile record fills its line");
			cr_expect_leq(work, 3ULL * 2 * (4096 + 5000 + 5000), "%llu bytes for 3 records", work);
		}
		cr_assert_eq(tl_flushed_count(log, &t.cap), 4, "mode %d", m);
		const char *mark = " " SR_FMT_TRUNCATION_MARKER;
		for (int i = 0; i < 3; i++) {
			const char *line = t.cap.lines[i];
			size_t len = strlen(line);
			cr_expect_eq(len, 4096 + strlen(mark), "mode %d line %d: %zu bytes", m, i, len);
			cr_expect_str_eq(line + len - strlen(mark), mark, "mode %d line %d", m, i);
		}
		cr_expect_eq(strspn(t.cap.lines[0] + 2, " "), 4094 + 1, "padding, then the marker's space");
		cr_expect(strncmp(t.cap.lines[1], "p[0.5000", 8) == 0, "%.20s", t.cap.lines[1]);
		cr_expect(strncmp(t.cap.lines[2], "n[2   ", 6) == 0, "%.20s", t.cap.lines[2]);
		cr_expect_str_eq(t.cap.lines[3], "after");
		cr_expect_eq(tl_stats(log).truncated_lines, 3, "mode %d", m);
		sr_log_close(&log);
		tl_setup_end(&t);
	}
}

/* ---------------------------------------------------------------------------------------- */
/* Control characters                                                                       */

/* Escapes text (n bytes) in a buffer of cap bytes after a prefix; returns the buffer's text. */
static char *
escaped(const char *prefix, const char *text, size_t n, size_t cap, sr_fmt_buf *b, char *data)
{
	*b = (sr_fmt_buf){ data, 0, cap, 0 };
	sr_fmt_buf_put(b, prefix, strlen(prefix));
	size_t start = b->len;
	sr_fmt_buf_put(b, text, n);
	sr_fmt_escape_controls(b, start);
	data[b->len] = '\0';
	return data;
}

Test(log_layout, control_characters_are_escaped)
{
	char data[512];
	sr_fmt_buf b;
	/* Every C0 control, DEL and the C1 controls; printable UTF-8 and backslashes stay. */
	static const char text[] = "a\nb\rc\td\x1b[31me\x7f" "f\xc2\x85g\xc2\x9f" "h\xc2\xa3\xc3\xa9\\n\x01";
	cr_expect_str_eq(escaped("> ", text, sizeof text - 1, 400, &b, data),
	    "> a\\nb\\rc\\td\\x1b[31me\\x7ff\\u0085g\\u009fh\xc2\xa3\xc3\xa9\\n\\x01");
	cr_expect_eq(b.want, b.len);
	/* NUL is a control too (a %c of 0). */
	cr_expect_str_eq(escaped("", "x\0y", 3, 400, &b, data), "x\\x00y");
	/* Nothing to escape: untouched. */
	cr_expect_str_eq(escaped("p", "plain text \xe2\x82\xac", 14, 400, &b, data), "pplain text \xe2\x82\xac");
	/* A lone C2 at the end of a cut message is a byte, not half a control. */
	cr_expect_str_eq(escaped("", "z\xc2", 2, 400, &b, data), "z\xc2");
	for (size_t cap = 2; cap < 14; cap++) {
		/* Cut: escapes are kept whole, and want says the line was cut. */
		escaped("ab", "\n\n\x1b\n", 4, cap, &b, data);
		size_t kept = b.len - 2;
		cr_expect(kept == 0 || kept == 2 || kept == 4 || kept == 8 || kept == 10, "cap %zu: %s", cap, data);
		cr_expect_leq(b.len, cap);
		cr_expect_eq(strncmp(data, "ab\\n\\n\\x1b\\n", b.len), 0, "cap %zu: %s", cap, data);
		if (kept < 10)
			cr_expect_gt(b.want, b.len, "cap %zu: a cut escape is a cut line", cap);
		else
			cr_expect_eq(b.want, b.len);
	}
}

/* The escape of one byte b of a string as the documented rule says (no C1 pairs here). */
static size_t
reference_escape(unsigned char b, char *out)
{
	if (b == '\n' || b == '\r' || b == '\t')
		return (size_t)sprintf(out, "\\%c", b == '\n' ? 'n' : b == '\r' ? 'r' : 't');
	if (b < 0x20 || b == 0x7f)
		return (size_t)sprintf(out, "\\x%02x", b);
	out[0] = (char)b;
	return 1;
}

/*
 * Every byte at every position of a 59-byte message, so that each scan
 * meets each in each lane: a step of two 16-byte blocks and one of a
 * single block (SSE2), an 8-byte word, the byte loop's tail.
 */
Test(log_layout, every_byte_in_every_lane)
{
	char data[512], want[512];
	for (int b = 0; b < 256; b++) {
		if (b == 0xc2)
			continue;  /* a C1 control's first byte: its own cases above */
		for (size_t pos = 0; pos < 59; pos++) {
			char text[59];
			memset(text, 'a', sizeof text);
			text[pos] = (char)b;
			size_t w = 0;
			for (size_t i = 0; i < sizeof text; i++)
				w += reference_escape((unsigned char)text[i], want + w);
			want[w] = '\0';
			sr_fmt_buf buf;
			escaped("", text, sizeof text, 400, &buf, data);
			cr_assert_eq(buf.len, w, "byte 0x%02x at %zu", b, pos);
			cr_assert_eq(memcmp(data, want, w), 0, "byte 0x%02x at %zu", b, pos);
		}
	}
}

/* Logs a message made to forge a second line through layout; returns the captured lines. */
static void
forge_through(sr_log_layout layout, bool escape, const char *env, tl_setup *t, size_t *count)
{
	sr_log_config *c = tl_setup_begin(t);
	c->layout = layout;
	c->pattern = layout == SR_LOG_LAYOUT_PATTERN ? "%p %c: %m%n" : NULL;
	c->escape_control_characters = escape;
	if (env != NULL) {
		setenv("SEQRING_LOG_ESCAPE", env, 1);
		c->ignore_environment = false;
	}
	sr_log *log = tl_open(c);
	const char *user = "bob\n2026-01-01T00:00:00.000000Z ERROR [main] auth - admin logged in\r\x1b[2J";
	SR_WARN(sr_log_category(log, "auth"), "login failed for %s", user);
	*count = tl_flushed_count(log, &t->cap);
	sr_log_close(&log);
}

Test(log_layout, a_message_cannot_forge_lines_in_any_layout)
{
	static const sr_log_layout layouts[] = {
		SR_LOG_LAYOUT_TEXT, SR_LOG_LAYOUT_MESSAGE, SR_LOG_LAYOUT_PATTERN, SR_LOG_LAYOUT_JSON
	};
	for (int i = 0; i < 4; i++) {
		tl_setup t;
		size_t count;
		forge_through(layouts[i], true, NULL, &t, &count);
		cr_expect_eq(count, 1, "layout %s", sr_log_layout_name(layouts[i]));
		const char *line = t.cap.lines[0];
		cr_expect_null(strpbrk(line, "\n\r\x1b"), "layout %s: %s", sr_log_layout_name(layouts[i]), line);
		if (layouts[i] != SR_LOG_LAYOUT_JSON)
			cr_expect_not_null(strstr(line, "login failed for bob\\n2026-01-01T00:00:00.000000Z ERROR"
			    " [main] auth - admin logged in\\r\\x1b[2J"), "%s", line);
		tl_setup_end(&t);
	}
}

Test(log_layout, raw_control_characters_by_option_or_environment)
{
	/* From the code. */
	tl_setup t;
	size_t count;
	forge_through(SR_LOG_LAYOUT_TEXT, false, NULL, &t, &count);
	cr_expect_eq(count, 1);
	cr_expect_not_null(strstr(t.cap.lines[0], "for bob\n2026-01-01"), "%s", t.cap.lines[0]);
	tl_setup_end(&t);
	/* From the environment, over the code's default. */
	forge_through(SR_LOG_LAYOUT_PATTERN, true, "0", &t, &count);
	cr_expect_not_null(strstr(t.cap.lines[0], "logged in\r\x1b[2J"), "%s", t.cap.lines[0]);
	tl_setup_end(&t);
	forge_through(SR_LOG_LAYOUT_MESSAGE, false, "on", &t, &count);
	cr_expect_not_null(strstr(t.cap.lines[0], "bob\\n2026"), "%s", t.cap.lines[0]);
	tl_setup_end(&t);
	/* A bad value names the variable. */
	tl_clear_env();
	setenv("SEQRING_LOG_ESCAPE", "sometimes", 1);
	sr_log_config c;
	sr_log_config_default(&c);
	c.ring_slots = 64;
	sr_error err = tl_open_refused(&c, "SEQRING_LOG_ESCAPE=sometimes");
	cr_expect_str_eq(err.message, "SEQRING_LOG_ESCAPE 'sometimes' is invalid: expected 1, 0, true, false, "
	    "yes, no, on or off");
	sr_log_config_default(&c);
	cr_expect(c.escape_control_characters, "escaping is the default");
}
