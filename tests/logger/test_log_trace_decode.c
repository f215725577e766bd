/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_log_trace_decode.c: sr_log_decode_trace reading traces made by hand
 * here (a metadata text and packets laid out with
 * sr_log_ctf_format_internal.h's structs, so that these tests do not depend
 * on the ctf: sink's writer): two streams merged by time into the lines a
 * text sink writes, and every kind of bad input refused with SR_EFORMAT and
 * a message naming the file and the offset, never a crash.
 */
#include "test_log_support.h"

#include "sr_log_ctf_format_internal.h"

#include <dirent.h>
#include <inttypes.h>
#include <errno.h>
#include <stdarg.h>

#define UUID_TEXT "01234567-89ab-cdef-0123-456789abcdef"
static const uint8_t trace_uuid[16] = { 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
	0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef };
/* 2023-11-14T22:13:20Z, in ns: the events are this plus a few microseconds. */
#define T0 UINT64_C(1700000000000000000)
#define US(k) (T0 + (uint64_t)(k) * 1000u)

/* ---- building a trace ---- */

static char *
temp_dir(char *buf, size_t size)
{
	snprintf(buf, size, "/tmp/test_trace_decode.XXXXXX");
	cr_assert_not_null(mkdtemp(buf), "mkdtemp: %s", strerror(errno));
	return buf;
}

static void
remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	if (d == NULL)
		return;
	struct dirent *e;
	char path[512];
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		unlink(path);
	}
	closedir(d);
	rmdir(dir);
}

static void
put_file(const char *dir, const char *name, const void *bytes, size_t n)
{
	char path[256];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	cr_assert_not_null(f, "fopen %s: %s", path, strerror(errno));
	cr_assert_eq(fwrite(bytes, 1, n, f), n);
	fclose(f);
}

/* value percent-encoded as the writer encodes a URI's values, appended to out. */
static void
uri_put(char *out, size_t size, const char *key, const char *value)
{
	size_t n = strlen(out);
	n += (size_t)snprintf(out + n, size - n, "%s%s=", strchr(out, '?') != NULL ? "&" : "?", key);
	for (const unsigned char *p = (const unsigned char *)value; *p != '\0' && n + 4 < size; p++)
		n += (size_t)(sr_ctf__uri_keeps(*p) ? snprintf(out + n, size - n, "%c", *p) :
		    snprintf(out + n, size - n, "%%%02X", *p));
}

/* An event class's URI: kind, level, category, then for message and format_error the site. */
static char *
uri(char *out, size_t size, const char *kind, const char *level, const char *category, const char *file, int line,
    const char *format, bool backtrace)
{
	snprintf(out, size, "seqring:%s", kind);
	uri_put(out, size, "level", level);
	uri_put(out, size, "category", category);
	if (file != NULL) {
		char number[16];
		snprintf(number, sizeof number, "%d", line);
		uri_put(out, size, "file", file);
		uri_put(out, size, "line", number);
		uri_put(out, size, "function", "query");
		uri_put(out, size, "format", format);
	}
	if (backtrace)
		uri_put(out, size, "backtrace", "1");
	return out;
}

/* An event block, as the writer appends one (fields included: the reader need not parse them). */
static void
event_block(char *out, size_t size, unsigned id, const char *the_uri)
{
	size_t n = strlen(out);
	snprintf(out + n, size - n,
	    "\nevent {\n\tname = \"app.db\";\n\tid = %u;\n\tstream_id = 0;\n\tloglevel = 6;\n"
	    "\tmodel.emf.uri = \"%s\";\n\tfields := struct {\n\t\tinteger { size = 32; align = 8; signed = true; "
	    "} arg1;\n\t\tstring arg0;\n\t};\n};\n", id, the_uri);
}

/* The metadata's head: the trace, env (with version), a clock and the stream class, with comments. */
static void
metadata_head(char *out, size_t size, const char *version)
{
	snprintf(out, size,
	    "/* CTF 1.8 */\n"
	    "typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
	    "/* the trace */\n"
	    "trace {\n\tmajor = 1;\n\tminor = 8;\n\tuuid = \"" UUID_TEXT "\";\n\tbyte_order = le;\n"
	    "\tpacket.header := struct {\n\t\tuint32_t magic;\n\t\tuint8_t uuid[16];\n\t\tuint32_t stream_id;\n"
	    "\t\tuint64_t stream_instance_id;\n\t};\n};\n"
	    "env {\n\ttracer_name = \"seqring\";\n\ttrace_format = \"seqring-ctf\";\n"
	    "\ttrace_format_version = %s; // this reader's\n\tvpid = 1234;\n\thostname = \"h\";\n};\n"
	    "clock {\n\tname = \"realtime\";\n\tfreq = 1000000000;\n\toffset = 0;\n\tabsolute = true;\n};\n"
	    "stream {\n\tid = 0;\n\tevent.header := struct { uint32_t id; uint64_t timestamp; };\n};\n",
	    version);
}

typedef struct packet {
	unsigned char b[4096];
	size_t n;
	uint64_t first_ts, last_ts;
	bool any;
} packet;

static void
packet_begin(packet *p, uint64_t instance, uint64_t seq, uint32_t tid, const char *thread)
{
	memset(p, 0, sizeof *p);
	sr_ctf_packet_head h;
	memset(&h, 0, sizeof h);
	h.magic = SR_CTF_MAGIC;
	memcpy(h.uuid, trace_uuid, sizeof h.uuid);
	h.stream_instance_id = instance;
	h.packet_seq_num = seq;
	h.tid = tid;
	memcpy(h.thread_name, thread, strnlen(thread, sizeof h.thread_name));  /* NUL-padded: h was zeroed */
	memcpy(p->b, &h, sizeof h);
	p->n = sizeof h;
}

static void
put(packet *p, const void *v, size_t n)
{
	cr_assert_leq(p->n + n, sizeof p->b);
	memcpy(p->b + p->n, v, n);
	p->n += n;
}

static void
put_u32(packet *p, uint32_t v)
{
	put(p, &v, sizeof v);
}

static void
put_string(packet *p, const char *s)
{
	put(p, s, strlen(s) + 1);
}

static void
event_head(packet *p, uint32_t id, uint64_t ts)
{
	sr_ctf_event_head e = { .id = id, .timestamp = ts };
	put(p, &e, sizeof e);
	if (!p->any || ts < p->first_ts)
		p->first_ts = ts;
	if (!p->any || ts > p->last_ts)
		p->last_ts = ts;
	p->any = true;
}

/* Sets the packet's sizes (its length now), time range and drops. */
static void
packet_end(packet *p, uint64_t discarded)
{
	sr_ctf_packet_head h;
	memcpy(&h, p->b, sizeof h);
	h.content_size = h.packet_size = (uint64_t)p->n * 8;
	h.timestamp_begin = p->first_ts;
	h.timestamp_end = p->last_ts;
	h.events_discarded = discarded;
	memcpy(p->b, &h, sizeof h);
}

static void
put_stream(const char *dir, const char *name, const packet *ps, int count)
{
	unsigned char *all = malloc(sizeof ps[0].b * (size_t)count);
	size_t n = 0;
	for (int i = 0; i < count; i++) {
		memcpy(all + n, ps[i].b, ps[i].n);
		n += ps[i].n;
	}
	put_file(dir, name, all, n);
	free(all);
}

/* ---- the classes of the tests' traces ---- */

enum {
	C_USER = 0,       /* info app.db "user %s id=%d" (src/db.c:42) */
	C_PAIR = 1,       /* warn root "%s|%s" (src/net.c:7) */
	C_DROPS = 2,      /* text warn seqring */
	C_OPEN = 3,       /* error app.db "open: %m" (src/io.c:9), a backtrace line */
	C_REFUSED = 4     /* format_error info app.db "bad %n" (src/db.c:50) */
};

static void
metadata_with_classes(const char *dir, const char *version)
{
	char text[16384], u[1024];
	metadata_head(text, sizeof text, version);
	event_block(text, sizeof text, C_USER, uri(u, sizeof u, "message", "info", "app.db", "src/db.c", 42,
	    "user %s id=%d", false));
	event_block(text, sizeof text, C_PAIR, uri(u, sizeof u, "message", "warn", "", "src/net.c", 7, "%s|%s", false));
	event_block(text, sizeof text, C_DROPS, uri(u, sizeof u, "text", "warn", "seqring", NULL, 0, NULL, false));
	event_block(text, sizeof text, C_OPEN, uri(u, sizeof u, "message", "error", "app.db", "src/io.c", 9, "open: %m",
	    true));
	event_block(text, sizeof text, C_REFUSED, uri(u, sizeof u, "format_error", "info", "app.db", "src/db.c", 50,
	    "bad %n", false));
	put_file(dir, SR_CTF_METADATA_NAME, text, strlen(text));
}

/* A C_USER event: the string's length, the int, then the string. */
static void
user_event(packet *p, uint64_t ts, const char *name, int32_t id)
{
	event_head(p, C_USER, ts);
	put_u32(p, (uint32_t)strlen(name));
	put(p, &id, sizeof id);
	put_string(p, name);
}

/* ---- decoding ---- */

typedef struct decoded {
	tl_setup setup;
	sr_log *log;
	int rc;
	sr_error err;
	sr_trace_decode_report report;
} decoded;

static void
decode(decoded *d, const char *dir)
{
	memset(d, 0, sizeof *d);
	sr_log_config *c = tl_setup_begin(&d->setup);
	c->mode = SR_LOG_MODE_SYNC;
	c->level = SR_LOG_TRACE;
	d->log = tl_open(c);
	d->rc = sr_log_decode_trace(d->log, dir, NULL, &d->report, &d->err);
}

static void
decoded_end(decoded *d)
{
	sr_log_close(&d->log);
	tl_setup_end(&d->setup);
}

/* dir decodes to SR_EFORMAT, with a message that names file (under dir) and an offset and holds want. */
static void
expect_refused(const char *dir, const char *file, const char *want)
{
	decoded d;
	decode(&d, dir);
	cr_assert_eq(d.rc, SR_EFORMAT, "rc %d: %s", d.rc, d.err.message);
	cr_log_info("%s", d.err.message);  /* shown with --verbose */
	char path[256];
	snprintf(path, sizeof path, "%s/%s", dir, file);
	cr_expect_not_null(strstr(d.err.message, path), "the message names %s: %s", path, d.err.message);
	cr_expect_not_null(strstr(d.err.message, "offset"), "the message names the offset: %s", d.err.message);
	cr_expect_not_null(strstr(d.err.message, want), "the message says \"%s\": %s", want, d.err.message);
	decoded_end(&d);
	remove_dir(dir);
}

/* ---- the tests ---- */

Test(trace_decode, two_streams_merged_by_time)
{
	char dir[64];
	temp_dir(dir, sizeof dir);
	metadata_with_classes(dir, "1");
	/* alpha (tid 100): two packets. */
	packet a[2];
	packet_begin(&a[0], 0, 0, 100, "alpha");
	user_event(&a[0], US(1), "bob", 7);
	event_head(&a[0], C_OPEN, US(3));
	int32_t enoent = ENOENT;
	put(&a[0], &enoent, sizeof enoent);
	packet_end(&a[0], 0);
	packet_begin(&a[1], 0, 1, 100, "alpha");
	event_head(&a[1], C_REFUSED, US(5));
	packet_end(&a[1], 2);
	put_stream(dir, "stream-100", a, 2);
	/* beta (tid 200): one packet; its text event ties with alpha's at 3 us and comes after it. */
	packet b;
	packet_begin(&b, 1, 0, 200, "beta");
	event_head(&b, C_PAIR, US(2));
	put_u32(&b, 1);
	put_u32(&b, SR_FMT_NULL_STRING);
	put_string(&b, "x");
	put_string(&b, "");  /* the NULL one: empty in the trace */
	event_head(&b, C_DROPS, US(3));
	put_string(&b, "dropped 3 records");
	user_event(&b, US(6), "eve", -1);
	packet_end(&b, 3);
	put_stream(dir, "stream-200", &b, 1);

	decoded d;
	decode(&d, dir);
	cr_assert_eq(d.rc, SR_OK, "%s", d.err.message);
	static const char *const want[] = {
		"2023-11-14T22:13:20.000001Z INFO  [alpha] app.db - user bob id=7 (db.c:42)",
		"2023-11-14T22:13:20.000002Z WARN  [beta] root - x|(null) (net.c:7)",
		"[backtrace] 2023-11-14T22:13:20.000003Z ERROR [alpha] app.db - open: No such file or directory (io.c:9)",
		"2023-11-14T22:13:20.000003Z WARN  [beta] seqring - dropped 3 records",
		"2023-11-14T22:13:20.000005Z INFO  [alpha] app.db - format error: ",
		"2023-11-14T22:13:20.000006Z INFO  [beta] app.db - user eve id=-1 (db.c:42)",
	};
	size_t count = sizeof want / sizeof want[0];
	cr_assert_eq(d.setup.cap.count, count, "%zu lines", d.setup.cap.count);
	for (size_t i = 0; i < count; i++) {
		if (i == 4) {
			cr_expect_eq(strncmp(d.setup.cap.lines[i], want[i], strlen(want[i])), 0, "line %zu: %s", i,
			    d.setup.cap.lines[i]);
			cr_expect_not_null(strstr(d.setup.cap.lines[i], "(db.c:50)"), "%s", d.setup.cap.lines[i]);
		} else {
			cr_expect_str_eq(d.setup.cap.lines[i], want[i], "line %zu", i);
		}
	}
	cr_expect_eq(d.report.events, count);
	cr_expect_eq(d.report.streams, 2);
	cr_expect_eq(d.report.packets, 3);
	cr_expect_eq(d.report.discarded, 5, "the last packets' drops summed: %llu",
	    (unsigned long long)d.report.discarded);
	decoded_end(&d);
	remove_dir(dir);
}

Test(trace_decode, no_metadata)
{
	char dir[64];
	temp_dir(dir, sizeof dir);
	expect_refused(dir, "metadata", "no metadata");
}

Test(trace_decode, metadata_not_ctf)
{
	char dir[64];
	temp_dir(dir, sizeof dir);
	put_file(dir, "metadata", "hello, world\n", 13);
	expect_refused(dir, "metadata", "CTF 1.8");
}

Test(trace_decode, another_format_version)
{
	char dir[64];
	temp_dir(dir, sizeof dir);
	metadata_with_classes(dir, "2");
	expect_refused(dir, "metadata", "trace_format_version is 2: expected 1");
}

Test(trace_decode, event_block_without_id)
{
	char dir[64];
	temp_dir(dir, sizeof dir);
	char text[4096], u[512];
	metadata_head(text, sizeof text, "1");
	size_t n = strlen(text);
	snprintf(text + n, sizeof text - n, "event {\n\tname = \"x\";\n\tstream_id = 0;\n\tmodel.emf.uri = \"%s\";\n};\n",
	    uri(u, sizeof u, "text", "warn", "seqring", NULL, 0, NULL, false));
	put_file(dir, "metadata", text, strlen(text));
	expect_refused(dir, "metadata", "has no id");
}

/* A trace whose one stream is p (and the usual metadata). */
static void
trace_of(char *dir, size_t size, const packet *p, size_t cut)
{
	temp_dir(dir, size);
	metadata_with_classes(dir, "1");
	put_file(dir, "stream-7", p->b, p->n - cut);
}

static void
one_user_packet(packet *p)
{
	packet_begin(p, 0, 0, 7, "main");
	user_event(p, US(1), "bob", 7);
	packet_end(p, 0);
}

Test(trace_decode, bad_magic)
{
	packet p;
	one_user_packet(&p);
	p.b[0] ^= 0xff;
	char dir[64];
	trace_of(dir, sizeof dir, &p, 0);
	expect_refused(dir, "stream-7", "magic");
}

Test(trace_decode, packet_cut_short)
{
	packet p;
	one_user_packet(&p);
	char dir[64];
	trace_of(dir, sizeof dir, &p, 3);
	expect_refused(dir, "stream-7", "cut short");
}

Test(trace_decode, uuid_of_another_trace)
{
	packet p;
	one_user_packet(&p);
	p.b[offsetof(sr_ctf_packet_head, uuid) + 5] ^= 1;
	char dir[64];
	trace_of(dir, sizeof dir, &p, 0);
	expect_refused(dir, "stream-7", "uuid");
}

Test(trace_decode, unknown_class_id)
{
	packet p;
	packet_begin(&p, 0, 0, 7, "main");
	event_head(&p, 99, US(1));
	packet_end(&p, 0);
	char dir[64];
	trace_of(dir, sizeof dir, &p, 0);
	expect_refused(dir, "stream-7", "class id 99");
}

Test(trace_decode, string_without_nul)
{
	packet p;
	packet_begin(&p, 0, 0, 7, "main");
	event_head(&p, C_USER, US(1));
	put_u32(&p, 3);
	int32_t id = 7;
	put(&p, &id, sizeof id);
	put(&p, "bob", 3);  /* no NUL before the packet's end */
	packet_end(&p, 0);
	char dir[64];
	trace_of(dir, sizeof dir, &p, 0);
	expect_refused(dir, "stream-7", "no NUL");
}

Test(trace_decode, event_past_content_size)
{
	packet p;
	packet_begin(&p, 0, 0, 7, "main");
	event_head(&p, C_USER, US(1));
	put_u32(&p, 3);  /* the int that follows is past the packet's end */
	packet_end(&p, 0);
	char dir[64];
	trace_of(dir, sizeof dir, &p, 0);
	expect_refused(dir, "stream-7", "runs past the packet's content_size");
}

Test(trace_decode, string_length_differs)
{
	packet p;
	packet_begin(&p, 0, 0, 7, "main");
	event_head(&p, C_USER, US(1));
	put_u32(&p, 4);
	int32_t id = 7;
	put(&p, &id, sizeof id);
	put_string(&p, "bob");
	packet_end(&p, 0);
	char dir[64];
	trace_of(dir, sizeof dir, &p, 0);
	expect_refused(dir, "stream-7", "length field says 4");
}

Test(trace_decode, packets_out_of_sequence)
{
	char dir[64];
	temp_dir(dir, sizeof dir);
	metadata_with_classes(dir, "1");
	packet p[2];
	one_user_packet(&p[0]);
	one_user_packet(&p[1]);  /* seq 0 again */
	put_stream(dir, "stream-7", p, 2);
	expect_refused(dir, "stream-7", "packet_seq_num is 0: expected 1");
}

/* What came before the bad packet was written. */
Test(trace_decode, lines_before_the_error_are_written)
{
	char dir[64];
	temp_dir(dir, sizeof dir);
	metadata_with_classes(dir, "1");
	packet p[2];
	one_user_packet(&p[0]);
	packet_begin(&p[1], 0, 1, 7, "main");
	event_head(&p[1], 99, US(2));
	packet_end(&p[1], 0);
	put_stream(dir, "stream-7", p, 2);
	decoded d;
	decode(&d, dir);
	cr_expect_eq(d.rc, SR_EFORMAT);
	cr_expect_eq(d.setup.cap.count, 1);
	cr_expect_eq(d.report.events, 1);
	decoded_end(&d);
	remove_dir(dir);
}

Test(trace_decode, bad_options)
{
	char dir[64];
	temp_dir(dir, sizeof dir);
	metadata_with_classes(dir, "1");
	tl_setup s;
	sr_log_config *c = tl_setup_begin(&s);
	c->mode = SR_LOG_MODE_SYNC;
	sr_log *log = tl_open(c);
	sr_error err;
	sr_trace_decode_options o = { .poll_ms = 60001 };
	cr_expect_eq(sr_log_decode_trace(log, dir, &o, NULL, &err), SR_EINVAL);
	cr_expect_not_null(strstr(err.message, "60001"), "%s", err.message);
	cr_expect_eq(sr_log_decode_trace(NULL, dir, NULL, NULL, &err), SR_EINVAL);
	cr_expect_eq(sr_log_decode_trace(log, "", NULL, NULL, &err), SR_EINVAL);
	sr_log_close(&log);
	tl_setup_end(&s);
	remove_dir(dir);
}

/* ---- the writer's trace, read back ---- */

/* A sync logger with max_message_bytes 1,024 writing to the given sinks. */
static sr_log *
sync_logger(sr_sink_config *sinks, int count)
{
	sr_log_config c;
	sr_log_config_default(&c);
	c.ignore_environment = true;
	c.close_at_exit = false;
	c.mode = SR_LOG_MODE_SYNC;
	c.level = SR_LOG_TRACE;
	c.max_message_bytes = 1024;
	c.sinks = sinks;
	c.sink_count = count;
	return tl_open(&c);
}

typedef void log_calls(sr_log *log);

/* The file at a, the file at b: the same bytes (the test fails showing both otherwise). */
static void
expect_same_file(const char *a, const char *b)
{
	size_t a_len, b_len;
	char *want = tl_read_file(a, &a_len), *got = tl_read_file(b, &b_len);
	cr_assert_not_null(want);
	cr_assert_not_null(got);
	cr_expect(a_len > 0 && a_len == b_len && memcmp(want, got, a_len) == 0, "%s holds:\n%s\n%s holds:\n%s", a, want,
	    b, got);
	free(want);
	free(got);
}

/*
 * calls made through a logger of mode sync with a ctf: sink, a file sink
 * (text layout) and one in JSON (the ctf: sink's stream files rotated at
 * rotate_at bytes, keep_files kept; 0: never); the trace decoded into two file sinks,
 * text and JSON: each gives its twin's bytes.  Returns the events decoded.
 */
static uint64_t
round_trip(log_calls *calls, uint64_t rotate_at, int keep_files)
{
	char dir[64], trace[96], text[96], json[96], text_again[96], json_again[96];
	temp_dir(dir, sizeof dir);
	snprintf(trace, sizeof trace, "%s/trace", dir);
	snprintf(text, sizeof text, "%s/text.log", dir);
	snprintf(json, sizeof json, "%s/json.log", dir);
	snprintf(text_again, sizeof text_again, "%s/text-decoded.log", dir);
	snprintf(json_again, sizeof json_again, "%s/json-decoded.log", dir);
	sr_sink_config sinks[3] = { sr_sink_ctf(trace), sr_sink_file(text), sr_sink_file(json) };
	sinks[2].layout = SR_LOG_LAYOUT_JSON;
	sinks[0].max_file_bytes = rotate_at;
	sinks[0].keep_files = keep_files;
	sr_log *log = sync_logger(sinks, 3);
	calls(log);
	sr_log_close(&log);

	sr_sink_config out[2] = { sr_sink_file(text_again), sr_sink_file(json_again) };
	out[1].layout = SR_LOG_LAYOUT_JSON;
	sr_log *reader = sync_logger(out, 2);
	sr_error err;
	sr_trace_decode_report report;
	int rc = sr_log_decode_trace(reader, trace, NULL, &report, &err);
	sr_log_close(&reader);
	cr_assert_eq(rc, SR_OK, "%s", err.message);
	expect_same_file(text, text_again);
	expect_same_file(json, json_again);
	if (rotate_at > 0)
		cr_expect_gt(report.streams, 2, "the stream was rotated: %u files", report.streams);
	char cmd[160];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	cr_expect_eq(system(cmd), 0);
	return report.events;
}

static void
every_conversion(sr_log *log)
{
	sr_category *db = sr_log_category(log, "app.db"), *root = sr_log_root(log);
	char big[3000];
	memset(big, 'b', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	const char *null_string = NULL;
	long double ld = 1.25L;
	SR_INFO(db, "ints %d %i %c %u %o %x %X %hhd %hd %ld %lld %jd %zu %td %lu %llx", -1, 2, 'z', 3u, 8u, 255u, 255u,
	    (signed char)-3, (short)-4, -5L, -6LL, (intmax_t)-7, (size_t)8, (ptrdiff_t)-9, 10UL, 0xabcULL);
	SR_WARN(root, "floats %f %e %E %g %G %a %A %F %Lf %.2f %10.3e", 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5, ld, 9.125,
	    1e10);
	SR_ERROR(db, "flags %-5d|%+d|% d|%#x|%#o|%05d|%*d|%-*d|%.*f|%%", 1, 2, 3, 4, 5, 6, 4, 7, 3, 8, 2, 9.0);
	SR_DEBUG(db, "strings %s|%.3s|%10s|%-6s|%.*s|%s|%s", "plain", "abcdef", "right", "left", 2, "xyz", null_string,
	    "after the NULL one");
	SR_TRACE(db, "newlines %s and invalid UTF-8 %s", "one\ntwo\r\tthree", "\xff\xfe\xc3");
	SR_FATAL(root, "pointer %p", (void *)0x1234);
	errno = ENOENT;
	/* %m: glibc's extension, which the logger supports (its own renderer, not this printf check). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat"
	SR_INFO(db, "errno: %m (%d)", 5);
	SR_INFO(db, "refused %n", (int *)NULL);
#pragma GCC diagnostic pop
	SR_INFO(db, "cut %s end", big);
}

/*
 * Every conversion, strings with newlines and invalid UTF-8, a NULL %s, a
 * string cut with the truncation marker, a refused format and each level.
 */
Test(trace_decode, round_trip_gives_the_text_sinks_bytes)
{
	cr_expect_eq(round_trip(every_conversion, 0, 0), 9);
}

static void
many_messages(sr_log *log)
{
	sr_category *db = sr_log_category(log, "app.db");
	for (int i = 0; i < 300; i++)
		SR_INFO(db, "message %d of a stream whose file is rotated %s", i, "while it is written");
}

/* A stream's files read in order, the rotated ones first, each packet once. */
Test(trace_decode, round_trip_of_rotated_stream_files)
{
	cr_expect_eq(round_trip(many_messages, 4096, 50), 300);
}

static void
no_arguments(sr_log *log)
{
	SR_INFO(sr_log_category(log, "app.db"), "no arguments at all");
}

/* A message without arguments or %m: its payload is empty, and it is a message all the same. */
Test(trace_decode, round_trip_of_a_message_without_arguments)
{
	cr_expect_eq(round_trip(no_arguments, 0, 0), 1);
}

/* ---- following a live trace ---- */

typedef struct follower {
	sr_log *log;
	const char *dir;
	volatile sig_atomic_t stop;
	int rc;
	sr_error err;
	sr_trace_decode_report report;
} follower;

static void *
follow_trace(void *arg)
{
	follower *f = arg;
	sr_trace_decode_options o = { .follow = true, .poll_ms = 5, .stop = &f->stop };
	f->rc = sr_log_decode_trace(f->log, f->dir, &o, &f->report, &f->err);
	return NULL;
}

static void
append_file(const char *dir, const char *name, const void *bytes, size_t n)
{
	char path[256];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "ab");
	cr_assert_not_null(f, "fopen %s: %s", path, strerror(errno));
	cr_assert_eq(fwrite(bytes, 1, n, f), n);
	fclose(f);
}

/* Waits up to 5 s for the capture to hold n lines. */
static void
wait_lines(tl_capture *cap, size_t n)
{
	for (int i = 0; i < 500 && tl_capture_count(cap) < n; i++)
		tl_sleep_ms(10);
	cr_assert_eq(tl_capture_count(cap), n, "%zu lines, %zu expected", tl_capture_count(cap), n);
}

/*
 * A follower writes a packet once it is whole, a stream file made after it
 * started, and an event whose class was appended to the metadata since;
 * it ends when stop is set.
 */
Test(trace_decode, follow_takes_packets_as_they_become_whole)
{
	char dir[64];
	temp_dir(dir, sizeof dir);
	char text[16384], u[1024];
	metadata_head(text, sizeof text, "1");
	event_block(text, sizeof text, C_USER, uri(u, sizeof u, "message", "info", "app.db", "src/db.c", 42,
	    "user %s id=%d", false));
	size_t first_part = strlen(text);
	event_block(text, sizeof text, C_PAIR, uri(u, sizeof u, "message", "warn", "", "src/net.c", 7, "%s|%s", false));
	put_file(dir, SR_CTF_METADATA_NAME, text, first_part);
	packet a[2];
	packet_begin(&a[0], 0, 0, 100, "alpha");
	user_event(&a[0], US(1), "bob", 7);
	packet_end(&a[0], 0);
	packet_begin(&a[1], 0, 1, 100, "alpha");
	user_event(&a[1], US(2), "eve", 8);
	packet_end(&a[1], 0);
	put_file(dir, "stream-100", a[0].b, a[0].n);
	append_file(dir, "stream-100", a[1].b, 50);

	follower f = { 0 };
	tl_setup s;
	sr_log_config *c = tl_setup_begin(&s);
	c->mode = SR_LOG_MODE_SYNC;
	f.log = tl_open(c);
	f.dir = dir;
	pthread_t thread;
	cr_assert_eq(pthread_create(&thread, NULL, follow_trace, &f), 0);
	wait_lines(&s.cap, 1);
	append_file(dir, "stream-100", a[1].b + 50, a[1].n - 50);
	wait_lines(&s.cap, 2);
	/* A new stream whose class the metadata declares after the follower started. */
	packet b;
	packet_begin(&b, 1, 0, 200, "beta");
	event_head(&b, C_PAIR, US(3));
	put_u32(&b, 1);
	put_u32(&b, SR_FMT_NULL_STRING);
	put_string(&b, "x");
	put_string(&b, "");
	packet_end(&b, 4);
	append_file(dir, SR_CTF_METADATA_NAME, text + first_part, strlen(text) - first_part);
	put_file(dir, "stream-200", b.b, b.n);
	wait_lines(&s.cap, 3);
	f.stop = 1;
	pthread_join(thread, NULL);
	cr_expect_eq(f.rc, SR_OK, "%s", f.err.message);
	cr_expect_str_eq(s.cap.lines[1], "2023-11-14T22:13:20.000002Z INFO  [alpha] app.db - user eve id=8 (db.c:42)");
	cr_expect_str_eq(s.cap.lines[2], "2023-11-14T22:13:20.000003Z WARN  [beta] root - x|(null) (net.c:7)");
	cr_expect_eq(f.report.events, 3);
	cr_expect_eq(f.report.packets, 3);
	cr_expect_eq(f.report.streams, 2);
	cr_expect_eq(f.report.discarded, 4);
	sr_log_close(&f.log);
	tl_setup_end(&s);
	remove_dir(dir);
}

/* ---- many threads in ring mode: the consumer's order in the text file, time order decoded ---- */

enum { RING_THREADS = 64, RING_CALLS = 200 };

typedef struct ring_worker {
	sr_category *cat;
	int index;
} ring_worker;

static void *
ring_worker_main(void *arg)
{
	ring_worker *w = arg;
	char name[16];
	snprintf(name, sizeof name, "w%02d", w->index);
	sr_log_thread_name(name);
	for (int i = 0; i < RING_CALLS; i++)
		SR_INFO(w->cat, "thread %d call %d x=%f s=%s", w->index, i, i * 0.5, i % 7 == 0 ? "seven\nlines" : "plain");
	return NULL;
}

static int
by_bytes(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The lines of text (modified in place), sorted when sort. */
static char **
lines_of(char *text, size_t *count, bool sort)
{
	size_t cap = 1024, n = 0;
	char **lines = malloc(cap * sizeof *lines);
	for (char *p = text; *p != '\0';) {
		char *end = strchr(p, '\n');
		/* A message's own newline is escaped by the text layout: a line ends at a newline. */
		if (end != NULL)
			*end = '\0';
		if (n == cap)
			lines = realloc(lines, (cap *= 2) * sizeof *lines);
		lines[n++] = p;
		if (end == NULL)
			break;
		p = end + 1;
	}
	if (sort)
		qsort(lines, n, sizeof *lines, by_bytes);
	*count = n;
	return lines;
}

/* The calls of thread k, in the order the lines give them: each must follow the one before. */
static void
expect_each_thread_in_order(char **lines, size_t n, const char *what)
{
	int next[RING_THREADS] = { 0 };
	for (size_t i = 0; i < n; i++) {
		const char *m = strstr(lines[i], "thread ");
		int k, call;
		if (m == NULL || sscanf(m, "thread %d call %d", &k, &call) != 2 || k < 0 || k >= RING_THREADS)
			continue;
		cr_expect_eq(call, next[k], "%s: thread %d's call %d came where call %d was due", what, k, call, next[k]);
		next[k] = call + 1;
	}
	for (int k = 0; k < RING_THREADS; k++)
		cr_expect_eq(next[k], RING_CALLS, "%s: thread %d has %d calls", what, k, next[k]);
}

/*
 * 64 threads log through the per-thread rings (the default) into a ctf:
 * sink and a text file; the trace decoded into a text file holds the same
 * lines, byte for byte, each thread's in the same order.
 */
Test(trace_decode, round_trip_of_64_threads_in_ring_mode)
{
	char dir[64], trace[96], text[96], text_again[96];
	temp_dir(dir, sizeof dir);
	snprintf(trace, sizeof trace, "%s/trace", dir);
	snprintf(text, sizeof text, "%s/text.log", dir);
	snprintf(text_again, sizeof text_again, "%s/text-decoded.log", dir);
	sr_sink_config sinks[2] = { sr_sink_ctf(trace), sr_sink_file(text) };
	sr_log_config c;
	sr_log_config_default(&c);
	c.ignore_environment = true;
	c.close_at_exit = false;
	c.sinks = sinks;
	c.sink_count = 2;
	sr_log *log = tl_open(&c);
	sr_category *cat = sr_log_category(log, "app.many");
	pthread_t threads[RING_THREADS];
	ring_worker w[RING_THREADS];
	for (int k = 0; k < RING_THREADS; k++) {
		w[k] = (ring_worker){ cat, k };
		cr_assert_eq(pthread_create(&threads[k], NULL, ring_worker_main, &w[k]), 0);
	}
	for (int k = 0; k < RING_THREADS; k++)
		pthread_join(threads[k], NULL);
	sr_log_close(&log);

	sr_sink_config out = sr_sink_file(text_again);
	sr_log *reader = sync_logger(&out, 1);
	sr_error err;
	sr_trace_decode_report report;
	int rc = sr_log_decode_trace(reader, trace, NULL, &report, &err);
	sr_log_close(&reader);
	cr_assert_eq(rc, SR_OK, "%s", err.message);
	cr_expect_eq(report.events, (uint64_t)RING_THREADS * RING_CALLS, "events decoded: %" PRIu64, report.events);
	char *want_text = tl_read_file(text, NULL), *got_text = tl_read_file(text_again, NULL);
	cr_assert(want_text != NULL && got_text != NULL);
	size_t want_n, got_n;
	char **want = lines_of(want_text, &want_n, false), **got = lines_of(got_text, &got_n, false);
	expect_each_thread_in_order(want, want_n, "the text sink");
	expect_each_thread_in_order(got, got_n, "the decoded trace");
	qsort(want, want_n, sizeof *want, by_bytes);
	qsort(got, got_n, sizeof *got, by_bytes);
	cr_expect_eq(want_n, got_n, "%zu lines written, %zu decoded", want_n, got_n);
	size_t differ = 0;
	for (size_t i = 0; i < want_n && i < got_n; i++)
		if (strcmp(want[i], got[i]) != 0 && differ++ == 0)
			cr_expect_fail("the text sink wrote\n%s\nwhere the decoded trace has\n%s", want[i], got[i]);
	cr_expect_eq(differ, 0, "%zu lines differ", differ);
	free(want);
	free(got);
	free(want_text);
	free(got_text);
	char cmd[160];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	cr_expect_eq(system(cmd), 0);
}
