/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_log_fields.c: key-value fields at the call site (SR_KV): each value
 * type in the text layout (logfmt), quoting and escaping, fields alone and
 * after format arguments, a NULL string, a long value cut like a %s string;
 * the JSON layout parsed strictly by Python (keys, typed values, a key that
 * collides with the layout's own); the pattern layout's %K; RFC 5424 framing
 * through a unix datagram collector of the test's own; a repeated key's
 * error line and counter; the rate-limited macros; 8 threads logging with
 * fields, every record once.
 */
#include "test_log_support.h"

#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>

/* The logger, writing into t's capture with layout and (for PATTERN) pattern. */
static sr_log *
open_layout(tl_setup *t, sr_log_layout layout, const char *pattern)
{
	sr_log_config *c = tl_setup_begin(t);
	c->layout = layout;
	c->pattern = pattern;
	return tl_open(c);
}

/* The one captured line that contains needle (the test fails without exactly one). */
static const char *
only_line(tl_capture *cap, const char *needle)
{
	const char *found = NULL;
	size_t n = 0;
	for (size_t i = 0; i < cap->count; i++)
		if (strstr(cap->lines[i], needle) != NULL) {
			found = cap->lines[i];
			n++;
		}
	cr_assert_eq(n, 1, "%zu lines with \"%s\"", n, needle);
	return found;
}

/* The text after " - " (the message and the fields) up to " (", the site. */
static char *
body_of(const char *line, char *buf, size_t size)
{
	const char *start = strstr(line, " - ");
	cr_assert_not_null(start, "%s", line);
	start += 3;
	const char *end = strstr(start, " (test_log_fields.c:");
	cr_assert_not_null(end, "%s", line);
	snprintf(buf, size, "%.*s", (int)(end - start), start);
	return buf;
}

Test(log_fields, text_each_value_type)
{
	tl_setup t;
	sr_log *log = open_layout(&t, SR_LOG_LAYOUT_TEXT, NULL);
	sr_category *c = sr_log_category(log, "app");
	unsigned u = 4000000000u;
	unsigned long long ull = 18446744073709551615ull;
	const char *none = NULL;
	SR_INFO(c, "order filled", SR_KV("order", 42), SR_KV("neg", -7), SR_KV("u", u), SR_KV("big", -5000000000LL),
	    SR_KV("ull", ull), SR_KV("px", 1.5), SR_KV("tenth", 0.1), SR_KV("f", 2.25f), SR_KV("ld", 2.5L),
	    SR_KV("venue", "XNAS"), SR_KV("ptr", (void *)0x1234), SR_KV("nullp", (void *)0), SR_KV("none", none),
	    SR_KV("ch", 'A'), SR_KV("yes", (_Bool)1));
	tl_flushed_count(log, &t.cap);
	char body[1024];
	cr_expect_str_eq(body_of(only_line(&t.cap, "order filled"), body, sizeof body),
	    "order filled order=42 neg=-7 u=4000000000 big=-5000000000 ull=18446744073709551615 px=1.5 "
	    "tenth=0.10000000000000001 f=2.25 ld=2.5 venue=XNAS ptr=0x1234 nullp=0x0 none=(null) ch=65 yes=1");
	tl_close(&log, &t.cap);
}

Test(log_fields, text_alone_mixed_and_quoted)
{
	tl_setup t;
	sr_log *log = open_layout(&t, SR_LOG_LAYOUT_TEXT, NULL);
	sr_category *c = sr_log_category(log, "app");
	int n = 7;
	SR_INFO(c, "filled %d lots at %s", n, "XNAS", SR_KV("venue", "a b"), SR_KV("lots", n));
	SR_WARN(c, "quoting", SR_KV("empty", ""), SR_KV("eq", "a=b"), SR_KV("quote", "say \"hi\""),
	    SR_KV("back", "c:\\dir"), SR_KV("nl", "one\ntwo"), SR_KV("tab", "a\tb"), SR_KV("bell", "\a"),
	    SR_KV("utf8", "h\xc3\xa9"), SR_KV("key with space", 1), SR_KV("k=v", 2));
	SR_ERROR(c, "%s", "no fields");
	tl_flushed_count(log, &t.cap);
	char body[1024];
	cr_expect_str_eq(body_of(only_line(&t.cap, "filled 7"), body, sizeof body),
	    "filled 7 lots at XNAS venue=\"a b\" lots=7");
	cr_expect_str_eq(body_of(only_line(&t.cap, "quoting"), body, sizeof body),
	    "quoting empty=\"\" eq=\"a=b\" quote=\"say \\\"hi\\\"\" back=\"c:\\\\dir\" nl=\"one\\ntwo\" "
	    "tab=\"a\\tb\" bell=\"\\x07\" utf8=h\xc3\xa9 key_with_space=1 k_v=2");
	cr_expect_str_eq(body_of(only_line(&t.cap, "no fields"), body, sizeof body), "no fields");
	tl_close(&log, &t.cap);
}

Test(log_fields, pattern_conversion_K)
{
	tl_setup t;
	sr_log *log = open_layout(&t, SR_LOG_LAYOUT_PATTERN, "%p %m|%K|");
	sr_category *c = sr_log_category(log, "app");
	SR_INFO(c, "with", SR_KV("a", 1), SR_KV("b", "x y"));
	SR_INFO(c, "without");
	tl_flushed_count(log, &t.cap);
	cr_expect_eq(tl_capture_exact(&t.cap, "INFO with| a=1 b=\"x y\"|"), 1);
	cr_expect_eq(tl_capture_exact(&t.cap, "INFO without||"), 1);
	tl_close(&log, &t.cap);
}

Test(log_fields, long_value_cut_like_a_string_and_counted)
{
	tl_setup t;
	sr_log_config *cfg = tl_setup_begin(&t);
	cfg->max_message_bytes = 1024;
	sr_log *log = tl_open(cfg);
	sr_category *c = sr_log_category(log, "app");
	static char big[3000];
	memset(big, 'v', sizeof big - 1);
	SR_INFO(c, "long", SR_KV("blob", big), SR_KV("after", 5));
	tl_flushed_count(log, &t.cap);
	const char *line = only_line(&t.cap, "long blob=");
	const char *v = strstr(line, "blob=") + 5;
	const char *cut = strstr(v, SR_FMT_TRUNCATION_MARKER " after=5");
	cr_assert_not_null(cut, "%s", line);
	cr_expect_lt((size_t)(cut - v), 1024);
	cr_expect_gt((size_t)(cut - v), 800);
	sr_log_counters s = tl_stats(log);
	cr_expect_eq(s.truncated_records, 1);
	tl_close(&log, &t.cap);
}

Test(log_fields, repeated_key_is_a_format_error_line)
{
	tl_setup t;
	sr_log *log = open_layout(&t, SR_LOG_LAYOUT_TEXT, NULL);
	sr_category *c = sr_log_category(log, "app");
	for (int i = 0; i < 3; i++)
		SR_INFO(c, "twice %d", i, SR_KV("order", i), SR_KV("order", 2 * i));
	SR_INFO(c, "fine", SR_KV("order", 1));
	tl_flushed_count(log, &t.cap);
	cr_expect_eq(tl_capture_grep(&t.cap,
	    "format error: key-value field \"order\" is repeated in the call in \"twice %d\""), 3);
	cr_expect_eq(tl_capture_grep(&t.cap, "fine order=1"), 1);
	sr_log_counters s = tl_stats(log);
	cr_expect_eq(s.format_errors, 3);
	tl_close(&log, &t.cap);
}

Test(log_fields, rate_limited_macros_take_fields)
{
	tl_setup t;
	sr_log *log = open_layout(&t, SR_LOG_LAYOUT_TEXT, NULL);
	sr_category *c = sr_log_category(log, "app");
	for (int i = 0; i < 5; i++)
		SR_INFO_EVERY_N(c, 2, "every %d", i, SR_KV("i", i), SR_KV("s", "x"));
	SR_INFO_ONCE(c, "once", SR_KV("k", 1.5));
	tl_flushed_count(log, &t.cap);
	cr_expect_eq(tl_capture_grep(&t.cap, "every 0 i=0 s=x"), 1);
	/* The line after a suppressed call: the count after the format's arguments, the fields last. */
	cr_expect_eq(tl_capture_grep(&t.cap, "every 2 (1 suppressed) i=2 s=x"), 1);
	cr_expect_eq(tl_capture_grep(&t.cap, "every 4 (1 suppressed) i=4 s=x"), 1);
	cr_expect_eq(tl_capture_grep(&t.cap, "once k=1.5"), 1);
	cr_expect_eq(tl_capture_grep(&t.cap, "every 1"), 0);
	tl_close(&log, &t.cap);
}

/* ---------------------------------------------------------------------------------------- */
/* JSON, parsed strictly                                                                    */

Test(log_fields, json_typed_and_collisions, .timeout = 30)
{
	tl_setup t;
	sr_log *log = open_layout(&t, SR_LOG_LAYOUT_JSON, NULL);
	sr_category *c = sr_log_category(log, "app");
	unsigned u = 4000000000u;
	const char *none = NULL;
	SR_INFO(c, "json %d", 3, SR_KV("order", 42), SR_KV("u", u), SR_KV("big", -5000000000LL),
	    SR_KV("px", 1.5), SR_KV("tenth", 0.1), SR_KV("ld", 2.5L), SR_KV("venue", "q\"\\\n\x01"),
	    SR_KV("ptr", (void *)0x1234), SR_KV("none", none), SR_KV("msg", "clash"), SR_KV("level", 9),
	    SR_KV("nan", __builtin_nan("")), SR_KV("inf", -1.0 / 0.0));
	tl_flushed_count(log, &t.cap);
	char path[128];
	tl_temp_path(path, sizeof path, "kvjson");
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fprintf(f, "%s\n", only_line(&t.cap, "\"json 3\""));
	fclose(f);
	char script[128];
	tl_temp_path(script, sizeof script, "kvjsonpy");
	f = fopen(script, "w");
	cr_assert_not_null(f);
	fputs("import json,sys\n"
	    "o=json.loads(open(sys.argv[1]).read(), parse_constant=lambda c: sys.exit('constant '+c))\n"
	    "want={'msg':'json 3','order':42,'u':4000000000,'big':-5000000000,'px':1.5,'tenth':0.1,"
	    "'ld':2.5,'venue':'q\"\\\\\\n\\x01','ptr':'0x1234','none':None,'kv_msg':'clash','kv_level':9,"
	    "'nan':'nan','inf':'-inf'}\n"
	    "for k,v in want.items():\n"
	    "    if k not in o or o[k]!=v or type(o[k])!=type(v): sys.exit('bad %s: %r' % (k, o.get(k)))\n"
	    "keys=set(o)-set(want)\n"
	    "if keys!={'ts','level','category','thread','tid','file','line','function'}: sys.exit('keys %r' % keys)\n"
	    "if o['level']!='info': sys.exit('level')\n"
	    "print('ok')\n", f);
	fclose(f);
	char cmd[512];
	snprintf(cmd, sizeof cmd, "python3 %s %s 2>&1", script, path);
	FILE *p = popen(cmd, "r");
	cr_assert_not_null(p);
	char out[512] = "";
	size_t got = fread(out, 1, sizeof out - 1, p);
	out[got] = '\0';
	int status = pclose(p);
	cr_expect_eq(status, 0, "python: %s", out);
	cr_expect(strncmp(out, "ok", 2) == 0, "python: %s", out);
	unlink(path);
	unlink(script);
	tl_close(&log, &t.cap);
}

/* ---------------------------------------------------------------------------------------- */
/* RFC 5424                                                                                 */

Test(log_fields, rfc5424_fields_element)
{
	char dir[64];
	tl_temp_path(dir, sizeof dir, "kvsys");
	cr_assert_eq(mkdir(dir, 0700), 0);
	char path[80];
	snprintf(path, sizeof path, "%s/c.sock", dir);
	int fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
	cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0, "bind: %s", strerror(errno));
	sr_sink_config s = sr_sink_syslog(SR_SYSLOG_UNIX_DGRAM, path);
	s.layout = SR_LOG_LAYOUT_MESSAGE;
	sr_log_config c;
	tl_clear_env();
	tl_configure(&c, &s, (tl_settings){ .ignore_environment = true, .ring_slots = 1024, .mode = SR_LOG_MODE_RING });
	sr_log *log = tl_open(&c);
	SR_WARN(sr_log_category(log, "net"), "sent %d", 2, SR_KV("order", 42), SR_KV("px", 1.5),
	    SR_KV("s", "a\"b\\c]d"), SR_KV("bad name=\"x]", 1),
	    SR_KV("a_key_that_is_longer_than_thirty_two_characters", 2), SR_KV("p", (void *)0xff));
	sr_log_flush(log);
	struct pollfd pf = { .fd = fd, .events = POLLIN };
	cr_assert_eq(poll(&pf, 1, 2000), 1);
	char buf[4096];
	ssize_t n = recv(fd, buf, sizeof buf - 1, 0);
	cr_assert_gt(n, 0);
	buf[n] = '\0';
	const char *want = "\"][fields@32473 order=\"42\" px=\"1.5\" s=\"a\\\"b\\\\c\\]d\" bad_name__x_=\"1\" "
	    "a_key_that_is_longer_than_thirty=\"2\" p=\"0xff\"] sent 2";
	cr_expect(strstr(buf, want) != NULL, "%s\nwant %s", buf, want);
	sr_log_close(&log);
	close(fd);
	unlink(path);
	rmdir(dir);
}

/* ---------------------------------------------------------------------------------------- */
/* Threads                                                                                  */

#define KV_THREADS 8
#define KV_PER_THREAD 2000

typedef struct kv_worker {
	sr_category *cat;
	int id;
} kv_worker;

static void *
kv_work(void *arg)
{
	kv_worker *w = arg;
	for (int i = 0; i < KV_PER_THREAD; i++)
		SR_INFO(w->cat, "rec", SR_KV("t", w->id), SR_KV("i", i), SR_KV("tag", "thread-field"));
	return NULL;
}

Test(log_fields, eight_threads_every_record_once, .timeout = 60)
{
	tl_setup t;
	sr_log_config *cfg = tl_setup_begin(&t);
	cfg->full_policy = SR_LOG_FULL_BLOCK;
	sr_log *log = tl_open(cfg);
	pthread_t th[KV_THREADS];
	kv_worker w[KV_THREADS];
	for (int k = 0; k < KV_THREADS; k++) {
		w[k] = (kv_worker){ sr_log_category(log, "mt"), k };
		cr_assert_eq(pthread_create(&th[k], NULL, kv_work, &w[k]), 0);
	}
	for (int k = 0; k < KV_THREADS; k++)
		pthread_join(th[k], NULL);
	tl_flushed_count(log, &t.cap);
	static unsigned char seen[KV_THREADS][KV_PER_THREAD];
	memset(seen, 0, sizeof seen);
	size_t records = 0;
	for (size_t l = 0; l < t.cap.count; l++) {
		const char *r = strstr(t.cap.lines[l], " - rec t=");
		if (r == NULL)
			continue;
		int id, i;
		char tag[32];
		cr_assert_eq(sscanf(r, " - rec t=%d i=%d tag=%31s", &id, &i, tag), 3, "%s", t.cap.lines[l]);
		cr_assert(id >= 0 && id < KV_THREADS && i >= 0 && i < KV_PER_THREAD, "%s", t.cap.lines[l]);
		cr_expect_str_eq(tag, "thread-field");
		seen[id][i]++;
		records++;
	}
	cr_expect_eq(records, (size_t)KV_THREADS * KV_PER_THREAD);
	for (int k = 0; k < KV_THREADS; k++)
		for (int i = 0; i < KV_PER_THREAD; i++)
			cr_expect_eq(seen[k][i], 1, "thread %d record %d seen %d times", k, i, seen[k][i]);
	tl_close(&log, &t.cap);
}
