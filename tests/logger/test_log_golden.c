/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_log_golden.c: every byte the consumer's text path writes today, pinned.
 *
 * A fixed corpus of records is rendered through every layout (text, JSON,
 * message, pattern), the signal-safe renderer of the crash handler, the
 * escape-off option, small and default line limits, and the syslog sink's
 * RFC 5424 and RFC 3164 framing, and the result is compared byte for byte
 * with the files in tests/logger/golden/ (one file per layout or group of
 * cases).  The files were written by this test against the code of commit
 * 5cb9164, so a passing run proves that a rewrite of the layouts, the
 * format renderer (sr_fmt_render*.c), the escapes and the dates
 * (sr_log_date.c) writes exactly what that code wrote.
 *
 * The records are real ones, made the way a log call makes them: a site
 * with its format parsed (sr_site_sig), the arguments gathered from a
 * va_list (as sr_log_emit does) or from typed arguments with key-value
 * fields (as SR_KV's calls do, with the site's table from
 * sr_fmt_fields_make), fitted under the record limit (sr_fmt_fit) and
 * encoded after the header (sr_log__record_encode).  The consumer's side
 * then runs unchanged: sr_log__event_of_record, sr_log__render_event,
 * sr_log__end_line, sr_log__syslog_make_frame.  Nothing reads a clock, a
 * thread id or the host name: each header's time, thread id and name are
 * set here (a logger in sync mode with the realtime clock, whose conversion
 * of a timestamp is the identity, lends its options and categories); the
 * logger's own lines (sr_log__event_of_text) get the same pinned values;
 * the syslog state is made here with a fixed host, application and process
 * id, and RFC 3164's local time is read with TZ=UTC.  One test runs a
 * whole logger (end_to_end.txt), with layouts that print no time or id.
 *
 * What the corpus holds: every conversion of the format engine (d i u o x
 * X c s p f F e E g G a A %% m) with each length modifier (hh h l ll q j z
 * t L), each flag (- + space # 0 ' I), static and '*' widths and
 * precisions, extreme and negative values, NaN, infinities, denormals, NULL
 * strings and pointers, errno values; strings cut at the record limit and
 * lines cut at the line limit; control characters, DEL, C1 controls,
 * quotes, backslashes, valid and invalid UTF-8, placed around the 8, 16 and
 * 32-byte blocks of the escape scans; key-value fields of every type;
 * every level, root and nested categories, unnamed and 15-byte threads,
 * the backtrace mark, the logger's own lines, refused formats and corrupt
 * records; and 76 instants (rollovers of every unit, leap days, the epoch,
 * before it, 2038, 2106, the ends of int64) ordered so that a date cached
 * per second that is not refreshed, or is keyed on less than the whole
 * second, or outlives its pattern, shows.
 *
 * The files, each line preceded by a line "# NNN case | layout" that names
 * it (the test's, not the library's):
 *   text.txt, json.txt, message.txt   the main corpus (343 records)
 *   pattern_log4j.txt                 the same, "%d %-5p [%t] %c - %m%n"
 *   pattern_all.txt                   the same, every line conversion
 *   pattern_widths.txt                26 patterns (each conversion with
 *                                     widths, justification, truncation;
 *                                     %n, %%, Log4j- and Spring-like ones)
 *                                     on 18 records sampled from the corpus
 *   signal_safe.txt                   the corpus through the crash
 *                                     handler's renderer, in each layout
 *   escapes_off.txt                   the corpus with
 *                                     escape_control_characters off
 *   line_limit.txt                    41 long records at line limits of
 *                                     256, 1024, 1500 and 65536 bytes, and
 *                                     the corpus at the smallest ones
 *   timestamps.txt                    the instants in every layout and date
 *                                     conversion, plain and signal-safe, with
 *                                     both syslog stamps; then each layout
 *                                     over all instants alone; then patterns
 *                                     each compiled after the last was freed
 *   syslog_rfc5424.txt, syslog_rfc3164.txt
 *                                     the frames (datagram, octet-counted
 *                                     stream, local) of the corpus, and of
 *                                     lines past a datagram, cut between
 *                                     UTF-8 characters
 *   end_to_end.txt                    a logger in ring mode, real log calls
 *                                     (SR_KV and the backtrace included),
 *                                     three file sinks with small buffers
 *                                     and layouts that print no time or
 *                                     thread id: the files as written
 * On a difference the test names the file, the first line that differs,
 * its column and its case, with the expected and the actual line.  Some
 * text is glibc's (strerror's for %m, printf's for floating point): the
 * files hold this machine's glibc's.
 *
 * To write the files instead of comparing (only ever from the reference
 * code, never to make a failing rewrite pass):
 *   SEQRING_GOLDEN_WRITE=/some/dir build/lead/tests/test_log_golden
 * writes every file into /some/dir (created if missing), and each test
 * passes; copy them into tests/logger/golden/.
 */
#include "test_log_support.h"

#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "sr_fmt_fields_internal.h"
#include "sr_fmt_internal.h"
#include "sr_log_event_internal.h"
#include "sr_log_consumer_lane_internal.h"
#include "sr_log_layout_internal.h"
#include "sr_log_layout_pattern_internal.h"
#include "sr_log_record_internal.h"
#include "sr_log_syslog_state_internal.h"

#ifndef GOLDEN_DIR
#error "GOLDEN_DIR (tests/logger/golden) is defined by tests/CMakeLists.txt"
#endif

/* ---------------------------------------------------------------------------------------- */
/* Text gathered for one golden file                                                        */

typedef struct golden_text {
	char *data;
	size_t len, cap;
} golden_text;

static void
text_put(golden_text *t, const void *s, size_t n)
{
	if (t->len + n > t->cap) {
		size_t cap = t->cap ? t->cap : 1 << 16;
		while (cap < t->len + n)
			cap *= 2;
		t->data = realloc(t->data, cap);
		cr_assert_not_null(t->data);
		t->cap = cap;
	}
	memcpy(t->data + t->len, s, n);
	t->len += n;
}

__attribute__((format(printf, 2, 3))) static void
text_printf(golden_text *t, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	cr_assert(n >= 0 && (size_t)n < sizeof tmp);
	text_put(t, tmp, (size_t)n);
}

/* Appends s as printable ASCII: other bytes as \xHH (labels and failure messages stay one line). */
static void
text_put_visible(golden_text *t, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c < 0x7f && c != '\\')
			text_put(t, &s[i], 1);
		else
			text_printf(t, "\\x%02x", c);
	}
}

static void
text_free(golden_text *t)
{
	free(t->data);
	*t = (golden_text){ 0 };
}

/* ---------------------------------------------------------------------------------------- */
/* Comparing with (or writing) a golden file                                                */

static char *
read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (f == NULL)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *data = malloc(cap);
	cr_assert_not_null(data);
	size_t got;
	while ((got = fread(data + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			cap *= 2;
			data = realloc(data, cap);
			cr_assert_not_null(data);
		}
	}
	fclose(f);
	*len = n;
	return data;
}

/* The line that starts at s[at] (n bytes in all): its length, without the '\n'. */
static size_t
line_len(const char *s, size_t n, size_t at)
{
	const char *nl = at < n ? memchr(s + at, '\n', n - at) : NULL;
	return nl != NULL ? (size_t)(nl - (s + at)) : n - at;
}

/* Up to 240 visible bytes of a line, from a little before col. */
static void
put_excerpt(golden_text *msg, const char *line, size_t len, size_t col)
{
	size_t from = col > 60 ? col - 60 : 0;
	size_t to = from + 240 < len ? from + 240 : len;
	if (from > 0)
		text_printf(msg, "...");
	text_put_visible(msg, line + from, to - from);
	if (to < len)
		text_printf(msg, "... (%zu bytes)", len);
}

/*
 * Compares got with the golden file `name`, or writes it into
 * $SEQRING_GOLDEN_WRITE.  A difference fails the test with the first line
 * that differs, its case and both versions.
 */
static void
golden_check(const char *name, const golden_text *got)
{
	char path[1024];
	const char *write_dir = getenv("SEQRING_GOLDEN_WRITE");
	if (write_dir != NULL && write_dir[0] != '\0') {
		if (mkdir(write_dir, 0755) != 0)
			cr_assert_eq(errno, EEXIST, "mkdir %s: %s", write_dir, strerror(errno));
		snprintf(path, sizeof path, "%s/%s", write_dir, name);
		FILE *f = fopen(path, "wb");
		cr_assert_not_null(f, "%s: %s", path, strerror(errno));
		cr_assert_eq(fwrite(got->data, 1, got->len, f), got->len, "%s: short write", path);
		cr_assert_eq(fclose(f), 0, "%s: %s", path, strerror(errno));
		cr_log_info("golden: wrote %s (%zu bytes)", path, got->len);
		return;
	}
	snprintf(path, sizeof path, "%s/%s", GOLDEN_DIR, name);
	size_t want_len = 0;
	char *want = read_file(path, &want_len);
	cr_assert_not_null(want, "golden file %s: %s (written by SEQRING_GOLDEN_WRITE=DIR from the reference code)",
	    path, strerror(errno));
	if (want_len == got->len && memcmp(want, got->data, want_len) == 0) {
		free(want);
		return;
	}
	/* The first line that differs, and the case it belongs to (the last "# " line before it). */
	size_t at = 0, line = 1, label_at = SIZE_MAX;
	for (;;) {
		size_t wl = line_len(want, want_len, at), gl = line_len(got->data, got->len, at);
		bool w_end = at >= want_len, g_end = at >= got->len;
		if (w_end || g_end || wl != gl || memcmp(want + at, got->data + at, wl) != 0)
			break;
		if (wl >= 2 && want[at] == '#' && want[at + 1] == ' ')
			label_at = at;
		at += wl + 1;
		line++;
	}
	size_t wl = line_len(want, want_len, at), gl = line_len(got->data, got->len, at);
	size_t col = 0;
	while (col < wl && col < gl && want[at + col] == got->data[at + col])
		col++;
	golden_text msg = { 0 };
	text_printf(&msg, "golden %s differs at line %zu, column %zu", name, line, col + 1);
	if (label_at != SIZE_MAX) {
		text_printf(&msg, ", in case \"");
		text_put_visible(&msg, want + label_at, line_len(want, want_len, label_at));
		text_printf(&msg, "\"");
	}
	text_printf(&msg, "\n  expected: ");
	if (at < want_len)
		put_excerpt(&msg, want + at, wl, col);
	else
		text_printf(&msg, "(end of file)");
	text_printf(&msg, "\n  got:      ");
	if (at < got->len)
		put_excerpt(&msg, got->data + at, gl, col);
	else
		text_printf(&msg, "(end of output)");
	text_printf(&msg, "\n  (%zu bytes expected, %zu written; file %s)", want_len, got->len, path);
	/* Copied out: the failed assertion ends the test. */
	static char report[4096];
	snprintf(report, sizeof report, "%.*s", (int)msg.len, msg.data);
	free(want);
	text_free(&msg);
	cr_assert_fail("%s", report);
}

/* ---------------------------------------------------------------------------------------- */
/* The corpus: records made as a log call makes them                                        */

#define GOLDEN_MAX_RECORDS 640
#define GOLDEN_MAX_SAMPLES 32
/* The record and line limits the corpus is rendered with: the defaults (sr_log_config_default). */
#define GOLDEN_MAX_RECORD 4096
#define GOLDEN_MAX_LINE 65536
/* The lines of each corpus the straight path takes (main, long, instants): fewer means it declines more. */
#define TEXT_TAKEN_AT_LEAST 384, 88, 150
#define JSON_TAKEN_AT_LEAST 10, 70, 150

typedef struct golden_record {
	char label[160];
	sr_log_rec h;
	sr_site *site;            /* the record's site (NULL: the logger's own text) */
	sr_site *site_with_keys;  /* a record without its key table: the site that had it */
	unsigned char *bytes;     /* header and body, as the ring holds them */
	const unsigned char *body;
	size_t body_len;
	bool backtrace;
	bool huge;                /* its line passes 64 KiB: rendered at small line limits only */
	const char *text;         /* the logger's own line (sr_log__event_of_text), or NULL */
	size_t text_len;
} golden_record;

typedef struct golden_corpus {
	golden_record records[GOLDEN_MAX_RECORDS];
	size_t count;
	size_t samples[GOLDEN_MAX_SAMPLES];   /* the records pattern_widths.txt renders */
	size_t nsamples;
	/* Where and when the next record comes from: set by the builders between cases. */
	int level;
	sr_category *cat;
	const char *thread;
	uint32_t tid;
	const char *file, *function;
	bool line_fixed;          /* the next sites' line is `line`, not one of their own */
	int32_t line;
	int errno_value;
	bool backtrace;
	bool huge;
	int64_t ts_ns;            /* the next record's time */
	int64_t tick_ns;          /* added after each record */
} golden_corpus;

/* The loggers that lend their options and categories (sync mode, realtime clock: nothing runs). */
static sr_log *golden_log;       /* escape_control_characters on (the default) */
static sr_log *golden_log_raw;   /* escape_control_characters off */
static golden_corpus *corpus_main, *corpus_long, *corpus_times, *corpus_datagram;
/* The one record of corpus_long rendered past 64 KiB, at the default line limit. */
static size_t default_limit_record;
static const char *const null_string = NULL;

static sr_log *
golden_open(bool escape_controls)
{
	sr_log_config c;
	sr_log_config_default(&c);
	c.ignore_environment = true;
	c.mode = SR_LOG_MODE_SYNC;
	c.clock = SR_LOG_CLOCK_REALTIME;
	c.level = SR_LOG_TRACE;
	c.max_message_bytes = GOLDEN_MAX_RECORD;
	c.max_line_bytes = GOLDEN_MAX_LINE;
	c.escape_control_characters = escape_controls;
	c.close_at_exit = false;
	sr_sink_config sink = sr_sink_null();
	c.sinks = &sink;
	c.sink_count = 1;
	return tl_open(&c);
}

static sr_category *
category(const char *name)
{
	sr_error err;
	sr_category *cat = sr_log_category_get(golden_log, name, &err);
	cr_assert_not_null(cat, "category '%s': %s", name, err.message);
	return cat;
}

static golden_corpus *
corpus_new(void)
{
	golden_corpus *c = calloc(1, sizeof *c);
	cr_assert_not_null(c);
	c->level = SR_LOG_INFO;
	c->cat = category("app");
	c->thread = "main";
	c->tid = 4242;
	c->file = "/src/app/server.c";
	c->function = "handle_request";
	return c;
}

static void
corpus_free(golden_corpus *c)
{
	if (c == NULL)
		return;
	for (size_t i = 0; i < c->count; i++) {
		golden_record *r = &c->records[i];
		free(r->bytes);
		sr_site *sites[2] = { r->site, r->site_with_keys };
		for (int k = 0; k < 2; k++) {
			if (sites[k] == NULL)
				continue;
			free(sr_atomic_load_acquire_ptr(&sites[k]->fields));
			free(sites[k]);
		}
	}
	free(c);
}

static void
mark_sample(golden_corpus *c)
{
	cr_assert_lt(c->nsamples, GOLDEN_MAX_SAMPLES);
	c->samples[c->nsamples++] = c->count - 1;
}

/* A new record of the corpus's current origin, its site's format `format` (the header's size not yet set). */
static golden_record *
record_begin(golden_corpus *c, const char *note, const char *format)
{
	cr_assert_lt(c->count, GOLDEN_MAX_RECORDS, "raise GOLDEN_MAX_RECORDS");
	golden_record *r = &c->records[c->count++];
	memset(r, 0, sizeof *r);
	/* The label: the note, or the format (made visible: it is one line of the file). */
	golden_text label = { 0 };
	if (note != NULL)
		text_put_visible(&label, note, strlen(note));
	else if (format != NULL)
		text_put_visible(&label, format, strlen(format));
	else
		text_printf(&label, "NULL format");
	size_t n = label.len < sizeof r->label - 1 ? label.len : sizeof r->label - 1;
	if (n > 0)
		memcpy(r->label, label.data, n);
	r->label[n] = '\0';
	text_free(&label);

	sr_site *site = calloc(1, sizeof *site);
	cr_assert_not_null(site);
	site->format = format;
	site->file = c->file;
	site->function = c->function;
	site->line = c->line_fixed ? c->line : (int32_t)(100 + c->count);
	site->level = c->level;
	r->site = site;
	r->h = (sr_log_rec){
		.kind = SR_REC_MESSAGE,
		.level = (uint8_t)c->level,
		.tid = c->tid,
		.errno_value = c->errno_value,
		.ts_ns = c->ts_ns,
		.site = site,
		.cat = c->cat,
	};
	memcpy(r->h.thread, c->thread, strnlen(c->thread, sizeof r->h.thread));
	r->backtrace = c->backtrace;
	r->huge = c->huge;
	c->ts_ns += c->tick_ns;
	return r;
}

/* The record of a refused format: its header alone (as the frontend's emit_format_error writes it). */
static void
record_refused(golden_record *r)
{
	r->h.kind = SR_REC_FORMAT_ERROR;
	r->h.size = sizeof r->h;
	r->h.value_bytes = 0;
	r->bytes = malloc(sizeof r->h);
	cr_assert_not_null(r->bytes);
	memcpy(r->bytes, &r->h, sizeof r->h);
	r->body = r->bytes + sizeof r->h;
	r->body_len = 0;
}

/* Fits g under the record limit and encodes header and arguments (as the frontend's emit_gathered). */
static void
record_encode(golden_record *r, sr_fmt_gather *g)
{
	r->h.size = (uint32_t)sr_fmt_fit(g, sizeof r->h, GOLDEN_MAX_RECORD);
	r->h.value_bytes = g->value_bytes;
	if (g->truncated)
		r->h.kind |= SR_REC_TRUNCATED;
	r->bytes = malloc(r->h.size);
	cr_assert_not_null(r->bytes);
	sr_ring_writer w = sr_ring_writer_linear(r->bytes);
	sr_log__record_encode(&w, &r->h, g);
	r->body = r->bytes + sizeof r->h;
	r->body_len = r->h.size - sizeof r->h;
}

/* A log call with a printf format: its arguments gathered from the va_list, as sr_log_emit does. */
__attribute__((format(printf, 3, 4))) static void
add_printf(golden_corpus *c, const char *note, const char *format, ...)
{
	golden_record *r = record_begin(c, note, format);
	sr_fmt_sig scratch;
	const sr_fmt_sig *sig = sr_site_sig(r->site, &scratch);
	cr_assert_eq(sig->error, SR_FMT_OK, "the corpus's format \"%s\" is refused", format);
	sr_fmt_gather *g = malloc(sizeof *g);
	cr_assert_not_null(g);
	va_list ap;
	va_start(ap, format);
	sr_fmt_gather_args(g, sig, GOLDEN_MAX_RECORD, &ap);
	va_end(ap);
	record_encode(r, g);
	free(g);
}

/* A log call whose format the engine refuses: the record of a format error. */
static void
add_refused(golden_corpus *c, const char *note, const char *format)
{
	golden_record *r = record_begin(c, note, format);
	sr_fmt_sig scratch;
	const sr_fmt_sig *sig = sr_site_sig(r->site, &scratch);
	cr_assert_neq(sig->error, SR_FMT_OK, "the corpus's format \"%s\" was meant to be refused", format);
	record_refused(r);
}

/*
 * A log call with key-value fields (SR_KV): args are the format's
 * arguments then the fields' values (n in all, nkeys of them fields);
 * the site's table is made as a site's first call makes it, and the
 * record encoded by its signature, as the frontend encodes such a call.
 */
static void
add_fields(golden_corpus *c, const char *note, const char *format, const sr_log_arg *args, int n,
    const char *const *keys, const unsigned char *unsigned_flags, int nkeys)
{
	golden_record *r = record_begin(c, note, format);
	sr_fmt_sig scratch;
	const sr_fmt_sig *sig = sr_site_sig(r->site, &scratch);
	cr_assert_eq(sig->error, SR_FMT_OK, "the corpus's format \"%s\" is refused", format);
	sr_fmt_fields *table = sr_fmt_fields_make(sig, args, n, keys, unsigned_flags, nkeys);
	cr_assert_not_null(table);
	cr_assert(sr_atomic_cas_ptr(&r->site->fields, NULL, table));
	if (table->sig.error != SR_FMT_OK) {
		record_refused(r);
		return;
	}
	sr_fmt_gather *g = malloc(sizeof *g);
	cr_assert_not_null(g);
	sr_fmt_gather_array(g, &table->sig, GOLDEN_MAX_RECORD, args, n);
	record_encode(r, g);
	free(g);
}

/* The logger's own line (a drop report, a sink's error): sr_log__event_of_text's event. */
static void
add_text(golden_corpus *c, const char *note, int level, const char *text)
{
	int saved = c->level;
	c->level = level;
	golden_record *r = record_begin(c, note, NULL);
	c->level = saved;
	free(r->site);
	r->site = NULL;
	r->h.site = NULL;
	r->text = text;
	r->text_len = strlen(text);
}

/* The arguments of add_fields: the array and its count. */
#define ARGS(...) ((const sr_log_arg[]){ __VA_ARGS__ }), \
	(int)(sizeof((const sr_log_arg[]){ __VA_ARGS__ }) / sizeof(sr_log_arg))
#define KEYS(...) ((const char *const[]){ __VA_ARGS__ })
#define FLAGS(...) ((const unsigned char[]){ __VA_ARGS__ })
#define KV_INT(x) sr_log__arg_int(x)
#define KV_UINT(x) sr_log__arg_uint(x)
#define KV_LONG(x) sr_log__arg_long(x)
#define KV_ULONG(x) sr_log__arg_ulong(x)
#define KV_DOUBLE(x) sr_log__arg_double(x)
#define KV_LDOUBLE(x) sr_log__arg_ldouble(x)
#define KV_STR(x) sr_log__arg_str(x)
#define KV_PTR(x) sr_log__arg_ptr(x)

/* A UTC instant as ns since the epoch (proleptic Gregorian; days from the civil date). */
static int64_t
utc_ns(int64_t year, int month, int day, int hour, int minute, int second, int64_t ns)
{
	int64_t y = year - (month <= 2);
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	int64_t days = era * 146097 + doe - 719468;
	/*
	 * Past 2262 the nanoseconds leave int64_t: unsigned arithmetic wraps
	 * them (defined, unlike a signed overflow), as the record's clock would.
	 */
	uint64_t sec = (uint64_t)(days * 86400 + hour * 3600 + minute * 60 + second);
	return (int64_t)(sec * UINT64_C(1000000000) + (uint64_t)ns);
}

/* A string of n copies of unit (malloc'd; kept until the process ends with the corpus). */
static char *
repeat(const char *unit, size_t n)
{
	size_t ul = strlen(unit);
	char *s = malloc(ul * n + 1);
	cr_assert_not_null(s);
	for (size_t i = 0; i < n; i++)
		memcpy(s + i * ul, unit, ul);
	s[ul * n] = '\0';
	return s;
}

/* Strings the corpus points into: freed at the end of each test. */
static char *owned_strings[96];
static size_t owned_count;

static char *
owned(char *s)
{
	cr_assert_lt(owned_count, sizeof owned_strings / sizeof *owned_strings);
	owned_strings[owned_count++] = s;
	return s;
}

/*
 * The corpus passes NULL to %s and INT_MAX to %.*f on purpose: GCC's
 * -Wformat-overflow, which reads add_printf as printf, would warn.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-overflow"

/* ---- the main corpus ---- */

static void
build_integers(golden_corpus *c)
{
	c->cat = category("fmt.int");
	add_printf(c, NULL, "%d", 0);
	add_printf(c, NULL, "%d", 42);
	mark_sample(c);
	add_printf(c, NULL, "%d", -42);
	add_printf(c, NULL, "%d|%d", INT_MAX, INT_MIN);
	add_printf(c, NULL, "%i|%i|%i", -7, 0, INT_MIN);
	add_printf(c, NULL, "%u|%u|%u", 0u, 1u, UINT_MAX);
	add_printf(c, NULL, "%o|%#o|%#o|%o", 8u, 8u, 0u, UINT_MAX);
	add_printf(c, NULL, "%x|%X|%#x|%#X|%#x|%x", 255u, 255u, 255u, 0xbeefu, 0u, UINT_MAX);
	add_printf(c, NULL, "%hhd|%hhd|%hhd|%hhd", (signed char)-128, (signed char)127, 300, -129);
	add_printf(c, NULL, "%hhu|%hhx|%hhX|%hho|%hhi", (unsigned char)255, (unsigned char)171, (unsigned char)171,
	    (unsigned char)8, (signed char)-1);
	add_printf(c, NULL, "%hd|%hd|%hu|%hx|%hX|%ho|%hi", (short)SHRT_MIN, (short)SHRT_MAX,
	    (unsigned short)USHRT_MAX, (unsigned short)0xabcd, (unsigned short)0xabcd, (unsigned short)8,
	    (short)-1);
	add_printf(c, NULL, "%hd|%hu", 70000, 70000);
	add_printf(c, NULL, "%ld|%ld|%lu|%lx|%lX|%lo|%li", LONG_MIN, LONG_MAX, ULONG_MAX, 0xdeadbeefUL, 0xdeadbeefUL,
	    511UL, -1L);
	add_printf(c, NULL, "%lld|%lld|%llu|%llx|%llX|%llo|%lli", LLONG_MIN, LLONG_MAX, ULLONG_MAX,
	    0x0123456789abcdefULL, 0x0123456789abcdefULL, ULLONG_MAX, 0LL);
	add_printf(c, NULL, "%jd|%jd|%ju|%jx|%ji", INTMAX_MIN, INTMAX_MAX, UINTMAX_MAX, (uintmax_t)48879, (intmax_t)-3);
	add_printf(c, NULL, "%zd|%zu|%zx|%zu|%zX|%zo", (ssize_t)-1, SIZE_MAX, (size_t)4096, (size_t)0, (size_t)0xabc,
	    (size_t)8);
	add_printf(c, NULL, "%td|%td|%td|%tx|%tu|%to", (ptrdiff_t)-5, PTRDIFF_MAX, PTRDIFF_MIN, (ptrdiff_t)255,
	    (ptrdiff_t)7, (ptrdiff_t)8);
	/* Flags, widths and precisions, static. */
	add_printf(c, NULL, "[%#08x][%-#10o][%#-10X][%#010o][%#.5x][%#.0o][%#.0x]", 255u, 8u, 255u, 8u, 255u, 0u, 0u);
	add_printf(c, NULL, "[%20lld][%-25lld][%025lld][%+.22lld][% 25lld]", LLONG_MIN, LLONG_MIN, LLONG_MIN, LLONG_MIN,
	    LLONG_MAX);
	add_printf(c, NULL, "[%#llx][%#llo][%#.20llX][%-#24llx][%030llu]", ULLONG_MAX, ULLONG_MAX, ULLONG_MAX,
	    ULLONG_MAX, ULLONG_MAX);
	add_printf(c, NULL, "[%5hhd][%-5hhu][%07hd][%+hd][%#hx][%#hho]", (signed char)-5, (unsigned char)200, (short)-300,
	    (short)300, (unsigned short)0xff, (unsigned char)8);
	add_printf(c, NULL, "[%15ld][%-15lu][%#20lx][%.12jd][%-14zu][%+td]", LONG_MIN, ULONG_MAX, ULONG_MAX, INTMAX_MIN,
	    SIZE_MAX, (ptrdiff_t)-9);
	add_printf(c, "width 300", "[%300d]", 1);
	add_printf(c, "precision 300", "[%.300d]", -1);
	/* '*' widths and precisions, negative ones included. */
	add_printf(c, NULL, "[%*d][%*d][%.*d][%.*d][%*.*d][%-*.*d][%*.*d]", 6, 42, -6, 42, 4, 42, -1, 42, 8, 5, -42, 8,
	    5, -42, -8, -5, 42);
	add_printf(c, NULL, "[%*lld][%.*llu][%*.*zx][%0*d][%-*x]", -22, LLONG_MIN, 25, ULLONG_MAX, 10, 4, (size_t)255,
	    7, -3, 3, 0xffu);
	add_printf(c, NULL, "[%*hhd][%.*hd][%*ld]", 5, 65, 4, 3, 0, LONG_MAX);
	add_printf(c, "thirty-two int arguments",
	    "%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d",
	    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27,
	    28, 29, 30, 31, -32);
}

/*
 * Formats GCC's format check warns about: flags that printf ignores, an
 * empty format, and (with -Wpedantic) the extensions %m, ', I and q.  They
 * are the engine's and glibc's, so they are pinned too.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat"
#pragma GCC diagnostic ignored "-Wformat-zero-length"
static void
build_extensions(golden_corpus *c)
{
	c->cat = category("fmt.ext");
	/* Flags printf ignores or that GCC finds odd: glibc's output, pinned. */
	add_printf(c, NULL, "[%-8d][%+d][% d][%08d][%+08d][%-+8d][% 08d][%-08d]", 42, 42, 42, 42, 42, 42, 42, 42);
	add_printf(c, NULL, "[%-8d][%+d][% d][%08d][%+08d][%-+8d][% 08d][%-08d]", -42, -42, -42, -42, -42, -42, -42,
	    -42);
	add_printf(c, NULL, "[%+ d][%+u][% u][%+x][% o]", 5, 5u, 5u, 5u, 5u);
	add_printf(c, NULL, "[%+.3d][%08.3d][%.0d][%+.0d][%5.0d][% .0d][%-5.0d][%.0u][%#.0x]", 7, 7, 0, 0, 0, 0, 0, 0u,
	    0u);
	add_printf(c, NULL, "[%10d][%-10d][%010d][%.10d][%-12.10d][%+12.10d][%012.10d]", INT_MIN, INT_MIN, INT_MIN,
	    INT_MIN, INT_MIN, INT_MIN, INT_MIN);
	add_printf(c, "empty format", "");
	add_printf(c, "q length", "%qd|%qu|%qx", LLONG_MIN, ULLONG_MAX, 255ULL);
	add_printf(c, "' flag (C locale: no grouping)", "%'d|%'15d|%'.2f|%'lld", 1234567, -1234567, 1234567.891,
	    LLONG_MAX);
	add_printf(c, "I flag (C locale: ASCII digits)", "%Id|%I5d|%If", 1234, -12, 2.5);
	c->errno_value = ENOENT;
	add_printf(c, "errno ENOENT", "open /etc/app.conf: %m");
	mark_sample(c);
	c->errno_value = EACCES;
	add_printf(c, "errno EACCES, width and precision", "[%m][%30m][%-30m][%.6m][%-10.3m]");
	c->errno_value = 0;
	add_printf(c, "errno 0", "%m");
	c->errno_value = 9999;
	add_printf(c, "errno 9999", "%m");
	c->errno_value = -1;
	add_printf(c, "errno -1", "%m");
	c->errno_value = EINTR;
	add_printf(c, "errno EINTR among arguments", "%d: %m (%s) %m", 3, "read");
	c->errno_value = 0;
}
#pragma GCC diagnostic pop

static void
build_floats(golden_corpus *c)
{
	c->cat = category("fmt.float");
	static const struct {
		const char *name;
		double v;
	} values[] = {
		{ "0.1", 0.1 }, { "1e300", 1e300 }, { "-0.0", -0.0 }, { "1/3", 1.0 / 3.0 }, { "+inf", INFINITY },
		{ "-inf", -INFINITY }, { "nan", NAN }, { "-nan", -NAN }, { "denormal DBL_TRUE_MIN", DBL_TRUE_MIN },
		{ "denormal 2.5e-320", 2.5e-320 }, { "DBL_MIN", DBL_MIN }, { "DBL_MAX", DBL_MAX }, { "1e-5", 1e-5 },
		{ "123456789", 123456789.0 }, { "0.5", 0.5 }, { "100", 100.0 }, { "-2718.281828", -2718.281828 },
		{ "1e15", 1e15 }, { "1e16", 1e16 }, { "0.0001", 0.0001 }, { "9.9999995", 9.9999995 },
	};
	for (size_t i = 0; i < sizeof values / sizeof *values; i++) {
		char note[96];
		snprintf(note, sizeof note, "%%f %%F %%e %%E %%g %%G %%a %%A of %s", values[i].name);
		double v = values[i].v;
		add_printf(c, note, "%f|%F|%e|%E|%g|%G|%a|%A", v, v, v, v, v, v, v, v);
	}
	mark_sample(c);
	add_printf(c, NULL, "[%+.3f][% .2e][%#.0f][%#g][%#.0e][%#a]", 3.14159, 3.14159, 1.0, 1.0, 2.0, 1.0);
	add_printf(c, NULL, "[%010.3f][%-10.2f|][%+010.2e][%#.3g][%.0e][%.17g][%.20f]", -3.14159, 2.5, 12345.678, 0.0001,
	    15.5, 0.1, 0.1);
	add_printf(c, NULL, "%.0f|%.0f|%.0f|%.0f|%.0f|%.1f|%.2f", 0.5, 1.5, 2.5, -0.5, 3.5, 0.05, 1.005);
	add_printf(c, NULL, "[%012f][%-12e|][%+g][% G][%012a][%-+14A|]", -INFINITY, NAN, INFINITY, -NAN, 1.5, -1.5);
	add_printf(c, NULL, "[%.3a][%.0a][%#.0a][%-20a|][%020a][%.13a]", 1.0 / 3, 1.0, 1.0, 0.1, -0.1, DBL_MAX);
	add_printf(c, NULL, "[%g][%g][%g][%g][%g][%g][%.3g][%.10g]", 100000.0, 1000000.0, 1e-4, 1e-5, 0.0, 123.456e10,
	    2.0 / 3, 2.0 / 3);
	add_printf(c, NULL, "%lf|%le|%lg|%lE|%lG|%la", 0.25, 0.25, 0.25, 0.25, 0.25, 0.25);
	add_printf(c, "float promoted", "%f|%.10f|%g|%a", (float)0.1, (float)0.1, (float)1e10, (float)1.0);
	add_printf(c, "'*' width and precision", "[%*.*f][%-*.*e|][%.*g][%.*f][%*f]", 12, 4, 3.14159265358979, 14, 2,
	    -2718.28, 3, 0.000123456, -5, 2.5, -12, 1.0);
	add_printf(c, "width 300", "[%300.2f]", 1.0);
	add_printf(c, "precision 300", "[%.300f]", 1.0 / 3);
	add_printf(c, "long double 0.1", "%Lf|%Le|%Lg|%La|%LA|%LE|%LG|%LF", 0.1L, 0.1L, 0.1L, 0.1L, 0.1L, 0.1L, 0.1L, 0.1L);
	add_printf(c, "long double limits", "%Le|%Lg|%Le|%Lg|%La", LDBL_MAX, LDBL_MAX, LDBL_MIN, LDBL_TRUE_MIN,
	    LDBL_TRUE_MIN);
	add_printf(c, "long double 1/3", "%.30Lg|%.25Lf|%#.3Lg|%+015.4Lf|%-15.2Le|", 1.0L / 3, 1.0L / 3, 1.0L, -1.0L / 3,
	    1.0L / 3);
	add_printf(c, "long double inf and nan", "%Lf|%Le|%Lg|%La|%Lf", (long double)INFINITY, -(long double)INFINITY,
	    (long double)NAN, (long double)NAN, -(long double)NAN);
	add_printf(c, "long double '*'", "[%*.*Lf][%.*Le]", 20, 3, 2.5L, 1, 1e4000L);
	add_printf(c, NULL, "[%.0Le][%#.0Lf][%.0Lf][%.0Lf]", 0.5L, 1.0L, 0.5L, 1.5L);
}

static void
build_strings_chars_pointers(golden_corpus *c)
{
	c->cat = category("fmt.str");
	add_printf(c, NULL, "%s", "plain");
	mark_sample(c);
	add_printf(c, NULL, "[%s]", "");
	add_printf(c, NULL, "%s%s%s", "", "a", "");
	add_printf(c, NULL, "[%10s][%-10s][%.3s][%10.3s][%-10.3s][%.0s][%3s]", "abcdef", "abcdef", "abcdef", "abcdef",
	    "abcdef", "abcdef", "abcdef");
	add_printf(c, "NULL strings", "[%s][%10s][%-10s][%.3s][%.6s][%.10s][%.*s]", null_string, null_string,
	    null_string, null_string, null_string, null_string, 2, null_string);
	add_printf(c, NULL, "[%*s][%-*s][%.*s][%.*s][%*.*s][%.*s]", 8, "abc", 8, "abc", 2, "abcdef", -1, "abcdef", 6, 2,
	    "abcdef", 0, "abcdef");
	add_printf(c, "precision stops at the array's end", "[%.4s][%.2s]", "abcdef", "é€");
	add_printf(c, NULL, "GET %s -> %d in %.1f ms", "/index.html", 200, 1.5);
	add_printf(c, NULL, "[%c][%c][%5c][%-5c][%c][%c]", 'A', '%', 'z', 'z', '~', ' ');
	add_printf(c, "%c of NUL", "[%c]", 0);
	add_printf(c, "%c of 0xe9 and 0x7f and 0x1b", "[%c][%c][%c]", 0xe9, 0x7f, 0x1b);
	add_printf(c, "%c with '*' widths", "[%*c][%-*c]", 3, 'x', 3, 'y');
	add_printf(c, "pointers", "[%p][%p][%20p][%-20p|][%p][%p]", (void *)(uintptr_t)0x1234, (void *)NULL,
	    (void *)(uintptr_t)0xdeadbeef, (void *)(uintptr_t)0xdeadbeef, (void *)UINTPTR_MAX, (void *)(uintptr_t)1);
	add_printf(c, "pointers, '*' width and NULL", "[%*p][%-*p|][%10p][%-10p|]", 18, (void *)(uintptr_t)0xabc, 18,
	    (void *)(uintptr_t)0xabc, (void *)NULL, (void *)NULL);
	add_printf(c, NULL, "100%% done");
	add_printf(c, NULL, "%%d %%s %%%% %d%%", 5);
	add_printf(c, NULL, "no conversion at all");
	add_printf(c, "mixed thirty-two",
	    "%s %d %f %lld %c %s %d %f %lld %c %s %d %f %lld %c %s %d %f %lld %c %s %d %f %lld %c %s %d %f %lld %c %s %d",
	    "s1", 1, 1.5, -1LL, 'a', "s2", 2, 2.5, -2LL, 'b', "s3", 3, 3.5, -3LL, 'c', "s4", 4, 4.5, -4LL, 'd', "s5", 5,
	    5.5, -5LL, 'e', "s6", 6, 6.5, -6LL, 'f', "s7", 7);
}

static void
build_escapes(golden_corpus *c)
{
	c->cat = category("esc");
	add_printf(c, "LF in an argument", "[%s]", "line1\nline2");
	mark_sample(c);
	add_printf(c, "CR and LF", "[%s]", "cr\rlf\ncrlf\r\n");
	add_printf(c, "TAB", "[%s]", "tab\there\t");
	add_printf(c, "controls in the format itself", "format with\tTAB,\nLF, \r CR, \x01 SOH and \x7f DEL: %d", 1);
	add_printf(c, "every C0 control but NUL", "[%s]",
	    "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f"
	    "\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f");
	add_printf(c, "DEL", "[%s]", "DEL\x7f" "DEL");
	add_printf(c, "C1 controls", "[%s]", "\xc2\x80|\xc2\x85|\xc2\x9f|\xc2\xa0 nbsp|\xc2\x9f\xc2\x80");
	add_printf(c, "lone 0xc2 at the end", "[%s]", "end\xc2");
	add_printf(c, "quotes and backslashes", "[%s]", "say \"hi\" \\ back\\slash /solidus \\n not a newline");
	add_printf(c, "BS and FF", "[%s]", "\bback\ffeed");
	add_printf(c, "ANSI colour", "[%s]", "\x1b[31mred\x1b[0m");
	add_printf(c, "only controls", "%s", "\n\n\r\t");
	/* The escape scans read 32, 16 and 8 bytes at a time: a byte to escape at each place of a 72-byte string. */
	static const int places[] = { 0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 48, 63, 64, 65, 71 };
	static const struct {
		const char *name, *byte;
	} specials[] = { { "LF", "\n" }, { "quote", "\"" }, { "0x80", "\x80" }, { "C1 0xc2 0x85", "\xc2\x85" } };
	for (size_t k = 0; k < sizeof specials / sizeof *specials; k++) {
		for (size_t i = 0; i < sizeof places / sizeof *places; i++) {
			char s[80];
			memset(s, 'a' + (int)(i % 26), 72);
			size_t bl = strlen(specials[k].byte);
			memcpy(s + places[i], specials[k].byte, bl);
			s[72 > places[i] + (int)bl ? 72 : places[i] + (int)bl] = '\0';
			char note[64];
			snprintf(note, sizeof note, "%s at byte %d of 72", specials[k].name, places[i]);
			add_printf(c, note, "%s", s);
		}
	}
	/* Short and block-sized strings ending with a byte to escape (the scans' tails). */
	static const int lengths[] = { 1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33 };
	static const char *const enders[] = { "\"", "\t", "\\", "\xff" };
	for (size_t k = 0; k < sizeof enders / sizeof *enders; k++) {
		for (size_t i = 0; i < sizeof lengths / sizeof *lengths; i++) {
			char s[40];
			memset(s, 'b', (size_t)lengths[i]);
			s[lengths[i] - 1] = enders[k][0];
			s[lengths[i]] = '\0';
			char note[64];
			snprintf(note, sizeof note, "%d bytes ending in 0x%02x", lengths[i], (unsigned char)enders[k][0]);
			add_printf(c, note, "%s", s);
		}
	}
	add_printf(c, "72 plain bytes", "%s", "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_+=!?@#$&*()");
}

static void
build_utf8(golden_corpus *c)
{
	c->cat = category("utf8");
	add_printf(c, "2, 3 and 4-byte characters", "[%s][%s][%s]", "é", "€ 20", "𝄞 clef");
	mark_sample(c);
	add_printf(c, "Japanese", "%s", "日本語のテキスト");
	add_printf(c, "mixed", "%s", "mixed é€𝄞 ascii ü");
	add_printf(c, "U+FFFD itself and the last scalar", "[%s][%s]", "\xef\xbf\xbd", "\xf4\x8f\xbf\xbf");
	static const struct {
		const char *name, *bytes;
	} invalid[] = {
		{ "0xff", "\xff" }, { "0xfe 0xff", "\xfe\xff" }, { "overlong 0xc0 0xaf", "\xc0\xaf" },
		{ "overlong 0xe0 0x80 0xaf", "\xe0\x80\xaf" }, { "surrogate 0xed 0xa0 0x80", "\xed\xa0\x80" },
		{ "above U+10FFFF", "\xf4\x90\x80\x80" }, { "0xf5", "\xf5\x80\x80\x80" }, { "stray continuation", "\x80x" },
		{ "cut 3-byte at the end", "cut \xe2\x82" }, { "bad second byte", "\xe2\x28\xa1" },
		{ "cut 4-byte then ASCII", "\xf0\x9d\x84x" }, { "0xc3 at the end", "end\xc3" }, { "0xc3 then ASCII", "a\xc3(b" },
		{ "0xc1 0xbf", "\xc1\xbf" }, { "many invalid in a row", "\xff\xfe\xfd\x80\x81\xc0\xc1" },
		{ "valid between invalid", "\xff\xc3\xa9\xff\xe2\x82\xac\xff" },
	};
	for (size_t i = 0; i < sizeof invalid / sizeof *invalid; i++) {
		char note[80];
		snprintf(note, sizeof note, "invalid UTF-8: %s", invalid[i].name);
		add_printf(c, note, "[%s]", invalid[i].bytes);
	}
	add_printf(c, "UTF-8 in the format", "température %s: %d °C", "é", 21);
}

static void
build_fields(golden_corpus *c)
{
	c->cat = category("kv");
	add_fields(c, "fields: int, double, string", "order filled",
	    ARGS(KV_INT(42), KV_DOUBLE(1.5), KV_STR("XNAS")), KEYS("order", "px", "venue"), FLAGS(0, 0, 0), 3);
	mark_sample(c);
	add_fields(c, "a format argument, then a field", "filled %d lots",
	    ARGS(KV_INT(3), KV_STR("XNAS")), KEYS("venue"), FLAGS(0), 1);
	add_fields(c, "integer fields", "integers",
	    ARGS(KV_INT(-7), KV_UINT(UINT_MAX), KV_INT(INT_MIN), KV_LONG(LLONG_MIN), KV_ULONG(ULLONG_MAX), KV_INT(0),
	        KV_LONG(LLONG_MAX)),
	    KEYS("neg", "umax", "imin", "llmin", "ullmax", "zero", "llmax"), FLAGS(0, 1, 0, 0, 1, 0, 0), 7);
	add_fields(c, "floating-point fields", "doubles",
	    ARGS(KV_DOUBLE(0.1), KV_DOUBLE(NAN), KV_DOUBLE(INFINITY), KV_DOUBLE(-INFINITY), KV_DOUBLE(-0.0),
	        KV_DOUBLE(1e300), KV_DOUBLE(DBL_TRUE_MIN), KV_DOUBLE(-NAN), KV_DOUBLE(100.0)),
	    KEYS("d01", "nan", "inf", "ninf", "neg0", "big", "tiny", "nnan", "hundred"), FLAGS(0, 0, 0, 0, 0, 0, 0, 0, 0),
	    9);
	add_fields(c, "long double fields", "long doubles",
	    ARGS(KV_LDOUBLE(0.1L), KV_LDOUBLE(LDBL_MAX), KV_LDOUBLE((long double)INFINITY), KV_LDOUBLE((long double)NAN)),
	    KEYS("ld", "ldmax", "ldinf", "ldnan"), FLAGS(0, 0, 0, 0), 4);
	add_fields(c, "pointer fields", "pointers",
	    ARGS(KV_PTR((void *)(uintptr_t)0x1234), KV_PTR(NULL), KV_PTR((void *)UINTPTR_MAX)),
	    KEYS("p", "null", "max"), FLAGS(0, 0, 0), 3);
	add_fields(c, "string fields needing quotes", "strings",
	    ARGS(KV_STR("abc"), KV_STR(""), KV_STR("a b"), KV_STR("k=v"), KV_STR("say \"hi\""), KV_STR("back\\slash"),
	        KV_STR("l1\nl2"), KV_STR("\r"), KV_STR("\t"), KV_STR("\x01"), KV_STR("\x7f"), KV_STR("é€"),
	        KV_STR("\xff"), KV_STR("\xc2\x85"), KV_STR(null_string), KV_STR("x]y")),
	    KEYS("plain", "empty", "space", "eq", "quote", "bs", "nl", "cr", "tab", "ctl", "del", "utf8", "bad", "c1",
	        "nullstr", "bracket"),
	    FLAGS(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), 16);
	mark_sample(c);
	add_fields(c, "keys that layouts map", "keys",
	    ARGS(KV_INT(1), KV_INT(2), KV_INT(3), KV_INT(4), KV_INT(5), KV_INT(6), KV_INT(7),
	        KV_INT(8)),
	    KEYS("a b", "k=v", "q\"x", "ctl\x01", "é", "x]y", "a_key_longer_than_thirty_two_bytes_for_syslog", "tab\tkey"),
	    FLAGS(0, 0, 0, 0, 0, 0, 0, 0), 8);
	add_fields(c, "keys the JSON layout writes itself", "builtin keys",
	    ARGS(KV_STR("m"), KV_INT(1), KV_STR("l"), KV_STR("c"), KV_STR("t"), KV_INT(2), KV_STR("f"), KV_INT(3),
	        KV_STR("fn"), KV_INT(0), KV_STR("other")),
	    KEYS("msg", "ts", "level", "category", "thread", "tid", "file", "line", "function", "backtrace", "kv_msg"),
	    FLAGS(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), 11);
	add_fields(c, "escapes in message and field", "[%s]",
	    ARGS(KV_STR("a\nb"), KV_STR("c\nd")), KEYS("f"), FLAGS(0), 1);
	add_fields(c, "format arguments of each kind, then fields", "%s %d %lld %f %p",
	    ARGS(KV_STR("s"), KV_INT(-1), KV_LONG(-2), KV_DOUBLE(0.5), KV_PTR((void *)(uintptr_t)0xff), KV_STR("v"),
	        KV_DOUBLE(2.0)),
	    KEYS("sv", "dv"), FLAGS(0, 0), 2);
	{
		sr_log_arg args[32];
		static const char *const keys[31] = { "k01", "k02", "k03", "k04", "k05", "k06", "k07", "k08", "k09", "k10",
			"k11", "k12", "k13", "k14", "k15", "k16", "k17", "k18", "k19", "k20", "k21", "k22", "k23", "k24", "k25",
			"k26", "k27", "k28", "k29", "k30", "k31" };
		args[0] = KV_INT(0);
		for (int i = 1; i < 32; i++)
			args[i] = i % 3 == 0 ? KV_STR("s") : i % 3 == 1 ? KV_INT(i) : KV_DOUBLE(i + 0.25);
		add_fields(c, "thirty-one fields after one format argument", "n=%d", args, 32, keys, NULL, 31);
	}
	add_fields(c, "a repeated key: the call is refused", "order %d",
	    ARGS(KV_INT(1), KV_INT(2), KV_INT(3)), KEYS("order", "order"), FLAGS(0, 0), 2);
	/* A record whose site has no key table (a dead process's, a decoded trace's): its fields are not written. */
	add_fields(c, "fields without the site's key table", "order filled",
	    ARGS(KV_INT(42), KV_DOUBLE(1.5), KV_STR("XNAS")), KEYS("order", "px", "venue"), FLAGS(0, 0, 0), 3);
	{
		golden_record *r = &c->records[c->count - 1];
		sr_site *bare = malloc(sizeof *bare);
		cr_assert_not_null(bare);
		memcpy(bare, r->site, sizeof *bare);
		sr_atomic_store_release_ptr(&bare->fields, NULL);
		r->site_with_keys = r->site;
		r->site = bare;
		r->h.site = bare;
		memcpy(r->bytes, &r->h, sizeof r->h);
	}
}

static void
build_origins(golden_corpus *c)
{
	/* Every level, OFF included (an out-of-range level prints as OFF). */
	c->cat = category("levels");
	static const char *const names[] = { "trace", "debug", "info", "warn", "error", "fatal", "off" };
	for (int level = SR_LOG_TRACE; level <= SR_LOG_OFF; level++) {
		c->level = level;
		char note[32];
		snprintf(note, sizeof note, "level %s", names[level]);
		add_printf(c, note, "at level %s", names[level]);
		if (level == SR_LOG_ERROR)
			mark_sample(c);
	}
	c->level = SR_LOG_INFO;
	/* Categories: the root's handle, no category at all, nested ones, UTF-8. */
	c->cat = category("");
	add_printf(c, "the root category's handle", "root %s", "handle");
	mark_sample(c);
	c->cat = NULL;
	add_printf(c, "no category", "no %s", "category");
	static const char *const cats[] = { "net", "net.http", "net.http.client.pool.v2", "café.données", "a.b.c.d.e.f.g" };
	for (size_t i = 0; i < sizeof cats / sizeof *cats; i++) {
		c->cat = category(cats[i]);
		char note[64];
		snprintf(note, sizeof note, "category %s", cats[i]);
		add_printf(c, note, "in category %s", cats[i]);
		if (i == 2 || i == 3)
			mark_sample(c);
	}
	c->cat = category("threads");
	/* Threads: named, unnamed (the id shows), 15 bytes, odd bytes. */
	static const struct {
		const char *name;
		uint32_t tid;
	} threads[] = {
		{ "worker-3", 77 }, { "", 4242 }, { "", 0 }, { "", UINT32_MAX }, { "abcdefghijklmno", 15 },
		{ "q\"b\\s p", 16 }, { "é-thread", 17 }, { "ctl\x01x\ny", 18 }, { "x", 1 },
		/* Ids at each change of their number of digits. */
		{ "", 9 }, { "", 10 }, { "", 99 }, { "", 100 }, { "", 99999 }, { "", 100000 }, { "", 999999999 },
		{ "", 1000000000 },
	};
	for (size_t i = 0; i < sizeof threads / sizeof *threads; i++) {
		c->thread = threads[i].name;
		c->tid = threads[i].tid;
		char note[64];
		golden_text t = { 0 };
		text_put_visible(&t, threads[i].name, strlen(threads[i].name));
		text_put(&t, "", 1);
		snprintf(note, sizeof note, "thread '%s' tid %" PRIu32, t.data, threads[i].tid);
		text_free(&t);
		add_printf(c, note, "from thread %d", (int)i);
		if (i == 1 || i == 4)
			mark_sample(c);
	}
	c->thread = "main";
	c->tid = 4242;
	/* Sites: a file without a directory, a long path, a function name with odd bytes, line 0. */
	c->cat = category("sites");
	c->file = "plain.c";
	c->function = "f";
	add_printf(c, "file without a directory", "site %d", 1);
	c->file = "/very/long/path/to/some/deeply/nested/module/with_a_long_file_name_indeed.c";
	c->function = "a_function_name_that_is_rather_long_for_a_pattern_width";
	add_printf(c, "long file and function names", "site %d", 2);
	c->file = "/src/app/server.c";
	c->function = "handle_request";
	/* Line numbers at each change of their number of digits, and the extremes a hand-made site may hold. */
	static const int32_t lines[] = { 0, 1, 9, 10, 99, 100, 999, 1000, 9999, 10000, 99999, 100000, 999999, 1000000,
		1234567890, INT32_MAX, -1, -100000, INT32_MIN };
	c->line_fixed = true;
	for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
		c->line = lines[i];
		char note[32];
		snprintf(note, sizeof note, "line %" PRId32, lines[i]);
		add_printf(c, note, "at line %" PRId32, lines[i]);
		if (i == 11)
			mark_sample(c);
	}
	c->line_fixed = false;
	/* Backtrace lines (the flight recorder's), as each layout marks them. */
	c->cat = category("bt");
	c->backtrace = true;
	c->level = SR_LOG_TRACE;
	add_printf(c, "backtrace line", "kept at trace: %d", 7);
	mark_sample(c);
	c->level = SR_LOG_DEBUG;
	add_fields(c, "backtrace line with a field", "kept at debug", ARGS(KV_INT(8)), KEYS("n"), FLAGS(0), 1);
	add_printf(c, "backtrace line with an escape", "kept: [%s]", "a\nb");
	c->backtrace = false;
	c->level = SR_LOG_INFO;
}

static void
build_logger_lines(golden_corpus *c)
{
	c->cat = category("own");
	add_text(c, "the logger's own line: drops", SR_LOG_WARN,
	    "3 records dropped: the ring was full (policy drop_newest) since the last report");
	mark_sample(c);
	add_text(c, "the logger's own line: a sink's error", SR_LOG_ERROR,
	    "sink 1 (file /var/log/app.log): write failed: No space left on device (reported once)");
	add_text(c, "the logger's own line: quotes", SR_LOG_INFO, "category \"x y\" refused: a name has no space \\ ");
	add_text(c, "the logger's own line: empty", SR_LOG_FATAL, "");
	c->thread = "";
	c->tid = 99;
	add_text(c, "the logger's own line on an unnamed thread", SR_LOG_DEBUG, "recovered 12 records of process 4711");
	c->thread = "main";
	c->tid = 4242;
}

static void
build_refused(golden_corpus *c)
{
	c->cat = category("errors");
	add_refused(c, NULL, "count%n");
	mark_sample(c);
	add_refused(c, NULL, "x %hhn");
	add_refused(c, NULL, "wide %ls");
	add_refused(c, NULL, "wide %lc");
	add_refused(c, NULL, "wide %S");
	add_refused(c, NULL, "wide %C");
	add_refused(c, NULL, "pos %1$d");
	add_refused(c, NULL, "pos %2$*1$d");
	add_refused(c, NULL, "what %y");
	add_refused(c, NULL, "binary %b");
	add_refused(c, NULL, "bad length %hf");
	add_refused(c, NULL, "bad length %lls");
	add_refused(c, NULL, "bad length %Lp");
	add_refused(c, NULL, "percent with a width %5%");
	add_refused(c, NULL, "incomplete %");
	add_refused(c, NULL, "incomplete %-08.");
	add_refused(c, NULL, "range %99999999999d");
	add_refused(c, NULL, "range %.99999999999f");
	add_refused(c, "thirty-three arguments",
	    "%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d");
	add_refused(c, "a control character in a refused format", "bad\n%n\ttab");
	add_refused(c, "NULL format", NULL);
	/* Records that do not match their format (a damaged record): "<bad record>". */
	add_printf(c, "corrupt: the value area cut short", "%d and %s", 5, "text");
	c->records[c->count - 1].body_len = 2;
	add_printf(c, "corrupt: the string area missing", "%d and %s", 6, "text");
	c->records[c->count - 1].body_len = c->records[c->count - 1].h.value_bytes;
	add_printf(c, "corrupt: nothing", "a %d b", 7);
	c->records[c->count - 1].body_len = 0;
}

static golden_corpus *
build_main_corpus(void)
{
	golden_corpus *c = corpus_new();
	/* 23:59:58 on a leap day: records 37 ms apart cross seconds, the day and the month. */
	c->ts_ns = utc_ns(2024, 2, 29, 23, 59, 58, 0);
	c->tick_ns = 37037037;
	build_integers(c);
	build_extensions(c);
	build_floats(c);
	build_strings_chars_pointers(c);
	build_escapes(c);
	build_utf8(c);
	build_fields(c);
	build_origins(c);
	build_logger_lines(c);
	build_refused(c);
	return c;
}

/* ---- records longer than the record or the line allows ---- */

static golden_corpus *
build_long_corpus(void)
{
	golden_corpus *c = corpus_new();
	c->ts_ns = utc_ns(2031, 7, 4, 8, 15, 30, 123456789);
	c->tick_ns = 1000;
	c->cat = category("long");
	char *x5000 = owned(repeat("x", 5000));
	char *y4035 = owned(repeat("y", 4035));
	char *y4036 = owned(repeat("y", 4036));
	char *z3000 = owned(repeat("z", 3000));
	add_printf(c, "a 5000-byte string, cut at the record limit", "%s", x5000);
	/* 56 (header) + 4 (its length) + 4035 + 1 (NUL) = 4096: the record is full, not cut. */
	add_printf(c, "a 4035-byte string: the record exactly full", "%s", y4035);
	add_printf(c, "a 4036-byte string: one byte over", "%s", y4036);
	add_printf(c, "two 3000-byte strings, both cut", "%s|%s", z3000, z3000);
	add_printf(c, "a cut string, then later arguments", "[%s] %d %s", x5000, 42, "tail");
	c->huge = true;
	add_printf(c, "a width past every line (clamped)", "%100000d|", 7);
	default_limit_record = c->count - 1;
	add_printf(c, "a left width past every line (clamped)", "%-100000s|", "left");
	add_printf(c, "a precision past every line (clamped)", "%.*f|", INT_MAX, 1.0);
	c->huge = false;
	add_printf(c, "long double LDBL_MAX in full", "%Lf", LDBL_MAX);
	add_printf(c, "3000 decimals", "%.3000f", 1.0 / 3);
	add_printf(c, "1200 SOH: escapes past the line", "%s", owned(repeat("\x01", 1200)));
	add_printf(c, "900 quotes", "%s", owned(repeat("\"", 900)));
	add_printf(c, "1500 2-byte characters", "%s", owned(repeat("é", 1500)));
	add_printf(c, "1000 3-byte characters", "%s", owned(repeat("€", 1000)));
	add_printf(c, "800 4-byte characters", "%s", owned(repeat("𝄞", 800)));
	add_printf(c, "1000 invalid bytes", "%s", owned(repeat("\xff", 1000)));
	add_printf(c, "LF every third byte", "%s", owned(repeat("ab\n", 600)));
	add_printf(c, "C1 controls across the cut", "%s", owned(repeat("a\xc2\x85", 500)));
	add_printf(c, "TAB every other byte", "%s", owned(repeat("\tb", 700)));
	add_fields(c, "a 3000-byte field, then another", "fields",
	    ARGS(KV_STR(z3000), KV_INT(5), KV_STR("after")), KEYS("big", "n", "s"), FLAGS(0, 0, 0), 3);
	add_fields(c, "a 300-byte message and small fields", "%s",
	    ARGS(KV_STR(owned(repeat("m", 300))), KV_INT(1), KV_DOUBLE(0.1)), KEYS("a", "b"), FLAGS(0, 0), 2);
	add_fields(c, "a 3000-byte field of quotes", "q",
	    ARGS(KV_STR(owned(repeat("\"", 3000)))), KEYS("quotes"), FLAGS(0), 1);
	/* Messages that leave the line's last bytes to a number (the text layout's line, a pattern's %T %L %d{%s}). */
	for (size_t n = 193; n <= 200; n++) {
		char note[64];
		snprintf(note, sizeof note, "%zu bytes: the line's end cut inside a number", n);
		add_printf(c, note, "%s", owned(repeat("k", n)));
	}
	for (size_t n = 228; n <= 252; n += 3) {
		char note[64];
		snprintf(note, sizeof note, "%zu bytes: a pattern's numbers cut", n);
		add_printf(c, note, "%s", owned(repeat("n", n)));
	}
	c->cat = category(
	    "c0123456789.c0123456789.c0123456789.c0123456789.c0123456789.c0123456789.c0123456789.c0123456789."
	    "c0123456789.c0123456789.c0123456789.c0123456789.c0123456789.c0123456789.c0123456789.c0123456789."
	    "c0123456789.c0123456789.c0123456789.c0123456789.c0123");
	add_printf(c, "a 255-byte category", "short message %d", 1);
	c->cat = category("long");
	c->thread = "abcdefghijklmno";
	c->backtrace = true;
	add_printf(c, "a backtrace line of 2000 bytes", "%s", owned(repeat("w", 2000)));
	c->backtrace = false;
	c->thread = "main";
	return c;
}

/* Lines past a syslog datagram (8192 bytes), cut inside a 4-byte character: four shifts, one of each. */
static golden_corpus *
build_datagram_corpus(void)
{
	golden_corpus *c = corpus_new();
	c->ts_ns = utc_ns(2031, 7, 4, 8, 15, 31, 0);
	c->tick_ns = 1000;
	c->cat = category("long");
	char *clefs = owned(repeat("𝄞", 1000));
	add_printf(c, "8100 spaces then 4-byte characters", "%8100d%s", 1, clefs);
	add_printf(c, "8101 spaces then 4-byte characters", "%8101d%s", 1, clefs);
	add_printf(c, "8102 spaces then 4-byte characters", "%8102d%s", 1, clefs);
	add_printf(c, "8103 spaces then 4-byte characters", "%8103d%s", 1, clefs);
	add_printf(c, "9000 2-byte characters", "%s", owned(repeat("é", 2000)));
	return c;
}

/* ---- instants ---- */

/* The instants, each record "tick N", or (preformatted) a lone "%s" of its name. */
static golden_corpus *
build_times_corpus_with(bool preformatted)
{
	golden_corpus *c = corpus_new();
	c->cat = category("time");
	c->tick_ns = 0;
	static const struct {
		int64_t y;
		int mo, d, h, mi, s;
		int64_t ns;
		const char *why;
	} instants[] = {
		{ 1970, 1, 1, 0, 0, 0, 0, "the epoch" },
		{ 1970, 1, 1, 0, 0, 0, 1, "1 ns after it" },
		{ 1970, 1, 1, 0, 0, 0, 999999999, "the epoch's last ns" },
		{ 1970, 1, 1, 0, 0, 1, 0, "second rollover" },
		{ 1970, 1, 1, 0, 0, 59, 999999999, "last ns of a minute" },
		{ 1970, 1, 1, 0, 1, 0, 0, "minute rollover" },
		{ 1970, 1, 1, 0, 59, 59, 500000000, "last second of an hour" },
		{ 1970, 1, 1, 1, 0, 0, 0, "hour rollover" },
		{ 1970, 1, 1, 23, 59, 59, 999999999, "last ns of a day" },
		{ 1970, 1, 2, 0, 0, 0, 0, "day rollover" },
		{ 1970, 1, 31, 23, 59, 59, 999000000, "last ms of January" },
		{ 1970, 2, 1, 0, 0, 0, 1000, "month rollover" },
		{ 1970, 12, 31, 23, 59, 59, 999999, "last second of a year" },
		{ 1971, 1, 1, 0, 0, 0, 999, "year rollover" },
		{ 2000, 2, 28, 23, 59, 59, 0, "2000: divisible by 400" },
		{ 2000, 2, 29, 23, 59, 59, 500000000, "29 February 2000" },
		{ 2000, 3, 1, 0, 0, 0, 0, "1 March 2000" },
		{ 2024, 2, 28, 23, 59, 59, 123000000, "the eve of a leap day" },
		{ 2024, 2, 29, 0, 0, 0, 0, "29 February 2024" },
		{ 2024, 2, 29, 12, 34, 56, 789012345, "noon of a leap day" },
		{ 2024, 2, 29, 23, 59, 59, 999999999, "a leap day's last ns" },
		{ 2024, 3, 1, 0, 0, 0, 0, "the day after" },
		{ 2024, 12, 31, 23, 59, 59, 0, "day 366" },
		{ 2023, 2, 28, 23, 59, 59, 999000000, "not a leap year" },
		{ 2023, 3, 1, 0, 0, 0, 0, "1 March 2023" },
		{ 2100, 2, 28, 23, 59, 59, 0, "2100: a century, no leap day" },
		{ 2100, 3, 1, 0, 0, 0, 0, "1 March 2100" },
		{ 2038, 1, 19, 3, 14, 7, 999999999, "INT32_MAX seconds" },
		{ 2038, 1, 19, 3, 14, 8, 0, "after 2038" },
		{ 2106, 2, 7, 6, 28, 15, 0, "UINT32_MAX seconds" },
		{ 2106, 2, 7, 6, 28, 16, 0, "after them" },
		{ 9999, 12, 31, 23, 59, 59, 0, "31 December 9999" },
		{ 1969, 12, 31, 23, 59, 59, 999999999, "1 ns before the epoch" },
		{ 1969, 12, 31, 23, 59, 59, 0, "1 s before the epoch" },
		{ 1969, 12, 31, 23, 59, 59, 500000000, "0.5 s before the epoch" },
		{ 1900, 1, 1, 0, 0, 0, 0, "1900" },
		{ 1900, 3, 1, 12, 0, 0, 0, "1 March 1900" },
		/* The same time of day on other days, months and years: a date kept by time of day alone shows. */
		{ 2024, 6, 15, 10, 20, 30, 500000000, "a day" },
		{ 2024, 6, 16, 10, 20, 30, 500000000, "the next day, same time" },
		{ 2024, 7, 16, 10, 20, 30, 500000000, "the next month, same time" },
		{ 2025, 7, 16, 10, 20, 30, 500000000, "the next year, same time" },
		/* Within one second, then the next, then back: each record its own time. */
		{ 2024, 6, 15, 10, 20, 30, 0, "a second's first ns" },
		{ 2024, 6, 15, 10, 20, 30, 1, "same second + 1 ns" },
		{ 2024, 6, 15, 10, 20, 30, 123456789, "same second" },
		{ 2024, 6, 15, 10, 20, 30, 999999999, "same second, last ns" },
		{ 2024, 6, 15, 10, 20, 31, 0, "the next second" },
		{ 2024, 6, 15, 10, 20, 30, 500000000, "back to the earlier second" },
		{ 2024, 6, 15, 10, 20, 31, 1000, "forward again" },
		{ 2024, 6, 15, 10, 20, 31, 1000, "the same instant twice" },
		{ 2024, 6, 15, 10, 21, 31, 1000, "60 s later" },
		/* One of each weekday. */
		{ 2024, 6, 16, 1, 2, 3, 4, "Sunday" },
		{ 2024, 6, 17, 1, 2, 3, 4, "Monday" },
		{ 2024, 6, 18, 1, 2, 3, 4, "Tuesday" },
		{ 2024, 6, 19, 1, 2, 3, 4, "Wednesday" },
		{ 2024, 6, 20, 1, 2, 3, 4, "Thursday" },
		{ 2024, 6, 21, 1, 2, 3, 4, "Friday" },
		{ 2024, 6, 22, 1, 2, 3, 4, "Saturday" },
		/* The first of each month (names, day of the year), and day-of-month padding. */
		{ 2023, 1, 1, 9, 0, 0, 0, "January" },
		{ 2023, 2, 1, 9, 0, 0, 0, "February" },
		{ 2023, 3, 1, 9, 0, 0, 0, "March" },
		{ 2023, 4, 1, 9, 0, 0, 0, "April" },
		{ 2023, 5, 9, 9, 0, 0, 0, "May" },
		{ 2023, 6, 10, 9, 0, 0, 0, "June" },
		{ 2023, 7, 1, 9, 0, 0, 0, "July" },
		{ 2023, 8, 1, 9, 0, 0, 0, "August" },
		{ 2023, 9, 1, 9, 0, 0, 0, "September" },
		{ 2023, 10, 1, 9, 0, 0, 0, "October" },
		{ 2023, 11, 1, 9, 0, 0, 0, "November" },
		{ 2023, 12, 1, 9, 0, 0, 0, "December" },
		/* Fractions: truncated, never rounded. */
		{ 2024, 1, 2, 3, 4, 5, 999999, "999999 ns" },
		{ 2024, 1, 2, 3, 4, 5, 999, "999 ns" },
		{ 2024, 1, 2, 3, 4, 5, 5000000, "5 ms" },
		{ 2024, 1, 2, 3, 4, 5, 100000000, "100 ms" },
	};
	for (size_t i = 0; i < sizeof instants / sizeof *instants; i++) {
		c->ts_ns = utc_ns(instants[i].y, instants[i].mo, instants[i].d, instants[i].h, instants[i].mi, instants[i].s,
		    instants[i].ns);
		if (preformatted)
			add_printf(c, instants[i].why, "%s", instants[i].why);
		else
			add_printf(c, instants[i].why, "tick %d", (int)i);
	}
	/* The ends of int64 ns: 2262-04-11 and 1677-09-21. */
	static const struct {
		int64_t ns;
		const char *why;
	} ends[] = { { INT64_MAX, "INT64_MAX ns" }, { INT64_MIN, "INT64_MIN ns" }, { -1, "-1 ns" } };
	for (int i = 0; i < 3; i++) {
		c->ts_ns = ends[i].ns;
		if (preformatted)
			add_printf(c, ends[i].why, "%s", ends[i].why);
		else
			add_printf(c, ends[i].why, "tick %d", -1 - i);
	}
	return c;
}

/*
 * Preformatted records ("%s") whose heads differ from the one before in one
 * thing at a time (level, thread name, thread id, category), then back:
 * what the straight path's cache of heads must tell apart.
 */
static golden_corpus *
build_heads_corpus(void)
{
	golden_corpus *c = corpus_new();
	sr_category *cats[4] = { category("app"), category("net.http.server"), sr_log_root(golden_log), NULL };
	static const char *const threads[4] = { "main", "", "fifteen-bytes-x", "sixteen-bytes-xy" };
	static const uint32_t tids[2] = { 4242, 7 };
	for (int round = 0; round < 2; round++) {
		for (int k = 0; k < 4; k++) {
			c->cat = cats[k];
			for (int t = 0; t < 4; t++) {
				c->thread = threads[t];
				for (int id = 0; id < 2; id++) {
					c->tid = tids[id];
					for (int level = SR_LOG_TRACE; level <= SR_LOG_FATAL; level++) {
						c->level = level;
						add_printf(c, "a head", "%s", "the same message");
					}
				}
			}
		}
	}
	return c;
}

/* The instants, each record "tick N". */
static golden_corpus *
build_times_corpus(void)
{
	return build_times_corpus_with(false);
}

#pragma GCC diagnostic pop

/* ---------------------------------------------------------------------------------------- */
/* Rendering                                                                                */

/* The line buffer, as the consumer's: max_line bytes and the reserve after them. */
static char line_buffer[GOLDEN_MAX_LINE + SR_FMT_LINE_RESERVE];

/* The event the consumer makes of r (the logger's own lines pinned to the record's time, thread and id). */
static void
golden_event(sr_log *log, const golden_record *r, bool signal_safe, sr_log_event *ev)
{
	if (r->text != NULL) {
		sr_log__event_of_text(r->h.level, r->text, r->text_len, ev);
		ev->ts_ns = r->h.ts_ns;
		ev->tid = r->h.tid;
		ev->thread = r->h.thread;
		ev->signal_safe = signal_safe;
		return;
	}
	sr_log__event_of_record(log, &r->h, r->body, r->body_len, r->backtrace, signal_safe, ev);
}

typedef struct golden_layout {
	const char *name;         /* in the label */
	sr_log_layout layout;
	const sr_log_pattern *pattern;
} golden_layout;

/* One line of ev in layout gl, cut at cap as the consumer cuts it, into line_buffer; its length. */
static size_t
render_line(const golden_layout *gl, const sr_log_event *ev, size_t cap)
{
	cr_assert_leq(cap, GOLDEN_MAX_LINE);
	sr_log_layout_choice lc = { gl->layout, gl->pattern };
	sr_fmt_buf b = { line_buffer, 0, cap, 0 };
	sr_log__render_event(&lc, ev, &b);
	sr_log__end_line(gl->layout, &b);
	return b.len;
}

static void
put_label(golden_text *out, size_t index, const golden_record *r, const char *what)
{
	text_printf(out, "# %03zu %s", index, r->label);
	if (what != NULL)
		text_printf(out, " | %s", what);
	text_put(out, "\n", 1);
}

/* Every record of c in layout gl (label lines only when name_layout). */
static void
render_corpus(golden_text *out, const golden_corpus *c, sr_log *log, const golden_layout *gl, bool signal_safe,
    bool name_layout)
{
	for (size_t i = 0; i < c->count; i++) {
		const golden_record *r = &c->records[i];
		sr_log_event ev;
		golden_event(log, r, signal_safe, &ev);
		put_label(out, i, r, name_layout ? gl->name : NULL);
		text_put(out, line_buffer, render_line(gl, &ev, GOLDEN_MAX_LINE));
	}
}

static sr_log_pattern *
compile_pattern(const char *text)
{
	sr_log_pattern *p;
	sr_error err;
	cr_assert_eq(sr_log__pattern_compile(text, &p, &err), SR_OK, "pattern '%s': %s", text, err.message);
	return p;
}

/* The Log4j 2-like default of the docs, and one with every conversion. */
#define PATTERN_LOG4J "%d %-5p [%t] %c - %m%n"
#define PATTERN_EVERY_CONVERSION \
	"%d{%Y-%m-%d %H:%M:%S.%3f} %p %c %t %T %F %L %M {%m}%K %% %d{%s.%9f}%n"

/* ---------------------------------------------------------------------------------------- */
/* The suite                                                                                */

static void
golden_setup(void)
{
	/* RFC 3164's stamp is local time: UTC here, so that it does not depend on the machine. */
	setenv("TZ", "UTC", 1);
	tzset();
	golden_log = golden_open(true);
	golden_log_raw = golden_open(false);
	corpus_main = build_main_corpus();
	corpus_long = build_long_corpus();
	corpus_times = build_times_corpus();
	corpus_datagram = build_datagram_corpus();
}

static void
golden_teardown(void)
{
	corpus_free(corpus_main);
	corpus_free(corpus_long);
	corpus_free(corpus_times);
	corpus_free(corpus_datagram);
	corpus_main = corpus_long = corpus_times = corpus_datagram = NULL;
	for (size_t i = 0; i < owned_count; i++)
		free(owned_strings[i]);
	owned_count = 0;
	sr_log_close(&golden_log_raw);
	sr_log_close(&golden_log);
}

TestSuite(log_golden, .init = golden_setup, .fini = golden_teardown);

/* The main corpus, one file per layout. */
static void
check_layout(const char *file, sr_log_layout layout, const char *pattern_text)
{
	sr_log_pattern *p = pattern_text != NULL ? compile_pattern(pattern_text) : NULL;
	golden_layout gl = { file, layout, p };
	golden_text out = { 0 };
	render_corpus(&out, corpus_main, golden_log, &gl, false, false);
	golden_check(file, &out);
	text_free(&out);
	sr_log__pattern_free(p);
}

Test(log_golden, text)
{
	check_layout("text.txt", SR_LOG_LAYOUT_TEXT, NULL);
}

Test(log_golden, json)
{
	check_layout("json.txt", SR_LOG_LAYOUT_JSON, NULL);
}

Test(log_golden, message)
{
	check_layout("message.txt", SR_LOG_LAYOUT_MESSAGE, NULL);
}

Test(log_golden, pattern_log4j)
{
	check_layout("pattern_log4j.txt", SR_LOG_LAYOUT_PATTERN, PATTERN_LOG4J);
}

Test(log_golden, pattern_every_conversion)
{
	check_layout("pattern_all.txt", SR_LOG_LAYOUT_PATTERN, PATTERN_EVERY_CONVERSION);
}

/* The crash handler's renderer (no snprintf, no cache): every layout. */
Test(log_golden, signal_safe)
{
	sr_log_pattern *p = compile_pattern(PATTERN_EVERY_CONVERSION);
	const golden_layout layouts[] = {
		{ "text", SR_LOG_LAYOUT_TEXT, NULL }, { "json", SR_LOG_LAYOUT_JSON, NULL },
		{ "message", SR_LOG_LAYOUT_MESSAGE, NULL }, { "pattern", SR_LOG_LAYOUT_PATTERN, p },
	};
	golden_text out = { 0 };
	for (size_t k = 0; k < sizeof layouts / sizeof *layouts; k++)
		render_corpus(&out, corpus_main, golden_log, &layouts[k], true, true);
	golden_check("signal_safe.txt", &out);
	text_free(&out);
	sr_log__pattern_free(p);
}

/* escape_control_characters off: the text layouts write the message's bytes as they are. */
Test(log_golden, escapes_off)
{
	sr_log_pattern *p = compile_pattern(PATTERN_LOG4J);
	const golden_layout layouts[] = {
		{ "text", SR_LOG_LAYOUT_TEXT, NULL }, { "message", SR_LOG_LAYOUT_MESSAGE, NULL },
		{ "pattern", SR_LOG_LAYOUT_PATTERN, p },
	};
	golden_text out = { 0 };
	for (size_t k = 0; k < sizeof layouts / sizeof *layouts; k++)
		render_corpus(&out, corpus_main, golden_log_raw, &layouts[k], false, true);
	golden_check("escapes_off.txt", &out);
	text_free(&out);
	sr_log__pattern_free(p);
}

/* Each pattern conversion with widths, justification and truncation, on a sample of records. */
Test(log_golden, pattern_widths)
{
	static const char *const patterns[] = {
		"%p|%-5p|%5p|%.1p|%-7.3p|%7.3p|",
		"%c|%.3c|%-12.8c|%12c|%-3c|%.1c|%.5c|",
		"%c{1} %c",
		"%t|%-16t|%16t|%.4t|%-4.2t|",
		"%T|%10T|%-10T|%.2T|",
		"%m|%20m|%-20m|%.3m|%-10.5m|",
		"%F|%.4F|%20F|%-20F|",
		"%L|%6L|%-6L|%.1L|",
		"%M|%-8M|%8M|%.3M|",
		"%K|%30K|%-30K|%.12K|",
		"%d|%30d|%-30d|%.10d|%5d{%H}|%-5d{%H}|%.2d{%Y}|%-40.20d{%a %b %e %H:%M:%S %Y}|",
		"100%% %m",
		"a%nb%n",
		"%m%n%n",
		"%n%m",
		"no conversion at all",
		"%d{%%}|%d{literal only}|%d{%%%Y%%}",
		"%d{%Y-%m-%dT%H:%M:%S.%6fZ} == %d",
		"%d{%H:%M:%S.%3f} %-5p [%t] %c - %m%n",
		"%d{%Y-%m-%d %H:%M:%S} %5p %T --- [%15.15t] %-40.40c : %m%K%n",
		"%d{%b %e %H:%M:%S} %c[%T]: %m",
		"[%-5p] %d{%H:%M:%S,%3f} %c{1} - %m%n",
		"%-5p %c: %m%K",
		"%m (%F:%L %M())",
		"{\"lvl\":\"%p\",\"msg\":\"%m\"}",
		"%4096m|",
	};
	golden_text out = { 0 };
	for (size_t k = 0; k < sizeof patterns / sizeof *patterns; k++) {
		sr_log_pattern *p = compile_pattern(patterns[k]);
		golden_text name = { 0 };
		text_printf(&name, "pattern ");
		text_put_visible(&name, patterns[k], strlen(patterns[k]));
		text_put(&name, "", 1);
		golden_layout gl = { name.data, SR_LOG_LAYOUT_PATTERN, p };
		for (size_t s = 0; s < corpus_main->nsamples; s++) {
			size_t i = corpus_main->samples[s];
			const golden_record *r = &corpus_main->records[i];
			sr_log_event ev;
			golden_event(golden_log, r, false, &ev);
			put_label(&out, i, r, gl.name);
			text_put(&out, line_buffer, render_line(&gl, &ev, GOLDEN_MAX_LINE));
		}
		text_free(&name);
		sr_log__pattern_free(p);
	}
	golden_check("pattern_widths.txt", &out);
	text_free(&out);
}

/* Lines longer than max_line_bytes at small limits and at the default, in every layout. */
Test(log_golden, line_limit)
{
	sr_log_pattern *log4j = compile_pattern(PATTERN_LOG4J);
	sr_log_pattern *wide = compile_pattern("%-300m|%300c|%K");
	sr_log_pattern *numbers = compile_pattern("%m|%T|%L|%d{%s.%9f}|%5T|%-8L|");
	static const struct {
		const char *name;
		sr_log_layout layout;
		int pattern;              /* 0: none, 1: log4j, 2: wide, 3: numbers */
		size_t cap;
	} renders[] = {
		{ "text at 256", SR_LOG_LAYOUT_TEXT, 0, 256 },
		{ "text at 1024", SR_LOG_LAYOUT_TEXT, 0, 1024 },
		{ "text at 65536", SR_LOG_LAYOUT_TEXT, 0, 65536 },
		{ "message at 256", SR_LOG_LAYOUT_MESSAGE, 0, 256 },
		{ "message at 1024", SR_LOG_LAYOUT_MESSAGE, 0, 1024 },
		{ "pattern log4j at 256", SR_LOG_LAYOUT_PATTERN, 1, 256 },
		{ "pattern log4j at 1024", SR_LOG_LAYOUT_PATTERN, 1, 1024 },
		{ "pattern %-300m|%300c|%K at 256", SR_LOG_LAYOUT_PATTERN, 2, 256 },
		{ "pattern %m|%T|%L|%d{%s.%9f}|%5T|%-8L| at 256", SR_LOG_LAYOUT_PATTERN, 3, 256 },
		{ "json at 1024", SR_LOG_LAYOUT_JSON, 0, 1024 },
		{ "json at 1500", SR_LOG_LAYOUT_JSON, 0, 1500 },
		{ "json at 65536", SR_LOG_LAYOUT_JSON, 0, 65536 },
	};
	golden_text out = { 0 };
	for (size_t i = 0; i < corpus_long->count; i++) {
		const golden_record *r = &corpus_long->records[i];
		for (size_t k = 0; k < sizeof renders / sizeof *renders; k++) {
			if (r->huge && renders[k].cap == GOLDEN_MAX_LINE)
				continue;
			golden_layout gl = { renders[k].name, renders[k].layout,
				renders[k].pattern == 1 ? log4j : renders[k].pattern == 2 ? wide :
				renders[k].pattern == 3 ? numbers : NULL };
			sr_log_event ev;
			golden_event(golden_log, r, false, &ev);
			put_label(&out, i, r, gl.name);
			text_put(&out, line_buffer, render_line(&gl, &ev, renders[k].cap));
		}
	}
	/* One line cut at the default limit (64 KiB). */
	{
		const golden_record *r = &corpus_long->records[default_limit_record];
		golden_layout text = { "text at 65536", SR_LOG_LAYOUT_TEXT, NULL };
		sr_log_event ev;
		golden_event(golden_log, r, false, &ev);
		put_label(&out, default_limit_record, r, text.name);
		text_put(&out, line_buffer, render_line(&text, &ev, GOLDEN_MAX_LINE));
	}
	/* The main corpus's records at the smallest limits too. */
	for (size_t i = 0; i < corpus_main->count; i++) {
		const golden_record *r = &corpus_main->records[i];
		sr_log_event ev;
		golden_event(golden_log, r, false, &ev);
		golden_layout text = { "text at 256", SR_LOG_LAYOUT_TEXT, NULL };
		put_label(&out, i, r, text.name);
		text_put(&out, line_buffer, render_line(&text, &ev, 256));
		golden_layout json = { "json at 1024", SR_LOG_LAYOUT_JSON, NULL };
		put_label(&out, i, r, json.name);
		text_put(&out, line_buffer, render_line(&json, &ev, 1024));
	}
	golden_check("line_limit.txt", &out);
	text_free(&out);
	sr_log__pattern_free(log4j);
	sr_log__pattern_free(wide);
	sr_log__pattern_free(numbers);
}

/* ---- syslog framing ---- */

static void
syslog_init(struct sr_log_syslog *ss, int format, sr_syslog_transport transport, bool stream, int facility)
{
	memset(ss, 0, sizeof *ss);
	ss->transport = transport;
	ss->stream = stream;
	ss->fd = -1;
	ss->format = format;
	ss->facility = facility;
	snprintf(ss->hostname, sizeof ss->hostname, "golden-host");
	snprintf(ss->app, sizeof ss->app, "golden");
	snprintf(ss->procid, sizeof ss->procid, "4242");
	/* As the sink makes it at open (sr_log_sink_syslog.c). */
	int il = snprintf(ss->ident, sizeof ss->ident, "Z %s %s %s - ", ss->hostname, ss->app, ss->procid);
	ss->ident_len = (size_t)il;
	ss->stamp_sec = INT64_MIN;
	ss->frame_cap = GOLDEN_MAX_LINE + 1024;
	ss->frame = malloc(ss->frame_cap);
	cr_assert_not_null(ss->frame);
}

/* The frame of r's line in layout gl, then '\n' (a frame has none of its own). */
static void
put_frame(golden_text *out, struct sr_log_syslog *ss, size_t index, const golden_record *r, const golden_layout *gl,
    const char *what)
{
	sr_log_event ev;
	golden_event(golden_log, r, false, &ev);
	size_t len = render_line(gl, &ev, GOLDEN_MAX_LINE);
	put_label(out, index, r, what);
	size_t n = sr_log__syslog_make_frame(ss, &ev, ev.level, line_buffer, len);
	text_put(out, ss->frame, n);
	text_put(out, "\n", 1);
}

Test(log_golden, syslog_rfc5424)
{
	struct sr_log_syslog udp, tcp, local7;
	syslog_init(&udp, SR_SYSLOG_5424, SR_SYSLOG_UDP, false, 1);
	syslog_init(&tcp, SR_SYSLOG_5424, SR_SYSLOG_TCP, true, 1);
	syslog_init(&local7, SR_SYSLOG_5424, SR_SYSLOG_UNIX_DGRAM, false, 23);
	const golden_layout text = { "text", SR_LOG_LAYOUT_TEXT, NULL };
	const golden_layout json = { "json", SR_LOG_LAYOUT_JSON, NULL };
	const golden_layout message = { "message", SR_LOG_LAYOUT_MESSAGE, NULL };
	golden_text out = { 0 };
	for (size_t i = 0; i < corpus_main->count; i++)
		put_frame(&out, &udp, i, &corpus_main->records[i], &message, "udp, user, message");
	for (size_t s = 0; s < corpus_main->nsamples; s++) {
		size_t i = corpus_main->samples[s];
		put_frame(&out, &tcp, i, &corpus_main->records[i], &text, "tcp (octet counting), user, text");
		put_frame(&out, &local7, i, &corpus_main->records[i], &json, "unix datagram, local7, json");
	}
	for (size_t i = 0; i < corpus_datagram->count; i++) {
		const golden_record *r = &corpus_datagram->records[i];
		put_frame(&out, &udp, i, r, &text, "udp, user, text (cut at the datagram's limit)");
		put_frame(&out, &tcp, i, r, &message, "tcp, user, message (no limit)");
	}
	golden_check("syslog_rfc5424.txt", &out);
	text_free(&out);
	free(udp.frame);
	free(tcp.frame);
	free(local7.frame);
}

Test(log_golden, syslog_rfc3164)
{
	struct sr_log_syslog local, udp, tcp;
	syslog_init(&local, SR_SYSLOG_3164, SR_SYSLOG_LOCAL, false, 1);
	syslog_init(&udp, SR_SYSLOG_3164, SR_SYSLOG_UDP, false, 16);
	syslog_init(&tcp, SR_SYSLOG_3164, SR_SYSLOG_TCP, true, 3);
	const golden_layout text = { "text", SR_LOG_LAYOUT_TEXT, NULL };
	const golden_layout message = { "message", SR_LOG_LAYOUT_MESSAGE, NULL };
	golden_text out = { 0 };
	for (size_t i = 0; i < corpus_main->count; i++)
		put_frame(&out, &local, i, &corpus_main->records[i], &message, "local (no host), user, message");
	for (size_t s = 0; s < corpus_main->nsamples; s++) {
		size_t i = corpus_main->samples[s];
		put_frame(&out, &udp, i, &corpus_main->records[i], &text, "udp, local0, text");
		put_frame(&out, &tcp, i, &corpus_main->records[i], &message, "tcp (octet counting), daemon, message");
	}
	for (size_t i = 0; i < corpus_datagram->count; i++)
		put_frame(&out, &udp, i, &corpus_datagram->records[i], &text, "udp, local0, text (cut at the datagram's limit)");
	golden_check("syslog_rfc3164.txt", &out);
	text_free(&out);
	free(local.frame);
	free(udp.frame);
	free(tcp.frame);
}

/* ---- dates ---- */

/* Every instant in every layout and date conversion that prints one, in an order that tests the caches. */
/*
 * The consumer's straight path (sr_log_lane_internal.h) lays out the lines
 * it takes itself: each must be the general path's line byte for byte.
 * Every record of a corpus is offered to it, one lane and one parts table
 * kept across them as a consumer keeps them (so that its caches of dates,
 * heads and sites are hit and missed); it declines most (conversions,
 * fields, bytes to escape, the logger's own text), and those it takes are
 * compared.  Returns how many it took.
 */
/*
 * The line the straight path lays for r in a buffer of exactly room bytes
 * (malloc'd: ASan sees a byte written past it) into lane_out; its length, 0
 * when declined.
 */
static char lane_out[GOLDEN_MAX_LINE];

static size_t
lane_line_at(const sr_log_lane_build *build, sr_log_lane *lane, sr_log *log, sr_log_layout layout,
    const golden_record *r, sr_log_site_parts *parts, size_t room)
{
	char *buffer = malloc(room);
	cr_assert_not_null(buffer);
	size_t n = build->line(lane, log, layout, &r->h, r->body, r->body_len, parts, buffer, room);
	cr_assert_leq(n, room, "the straight path says it wrote %zu bytes in a room of %zu", n, room);
	memcpy(lane_out, buffer, n);
	free(buffer);
	return n;
}

static size_t
check_straight_path_at_edge(const golden_corpus *c, sr_log *log, sr_log_layout layout, size_t room,
    const sr_log_lane_build *build, sr_log_lane *lane, sr_log_site_parts *parts, bool edge)
{
	const golden_layout gl = { layout == SR_LOG_LAYOUT_JSON ? "json" : "text", layout, NULL };
	size_t taken = 0;
	for (size_t i = 0; i < c->count; i++) {
		const golden_record *r = &c->records[i];
		if (r->text != NULL || r->backtrace)
			continue;  /* the consumer's records only: no logger text, no backtrace's replay */
		size_t at = room;
		size_t n = lane_line_at(build, lane, log, layout, r, parts, at);
		if (n == 0)
			continue;
		if (edge) {
			/* The least room it takes the record in (a smaller one it declines), found by halving. */
			size_t low = n, high = room;
			while (low < high) {
				size_t mid = low + (high - low) / 2;
				if (lane_line_at(build, lane, log, layout, r, parts, mid) != 0)
					high = mid;
				else
					low = mid + 1;
			}
			at = high;
			n = lane_line_at(build, lane, log, layout, r, parts, at);
			cr_assert_neq(n, 0, "record %zu (%s): taken at room %zu, then declined there", i, r->label, at);
		}
		taken++;
		sr_log_event ev;
		golden_event(log, r, false, &ev);
		size_t len = render_line(&gl, &ev, at);
		cr_assert(n == len && memcmp(lane_out, line_buffer, n) == 0,
		    "record %zu (%s), %s at room %zu, %s build: the straight path wrote\n%.*s\nwhere the general path "
		    "wrote\n%.*s", i, r->label, gl.name, at, build->name, (int)(n < 600 ? n : 600), lane_out,
		    (int)(len < 600 ? len : 600), line_buffer);
	}
	return taken;
}

static size_t
check_straight_path(const golden_corpus *c, sr_log *log, sr_log_layout layout, size_t room,
    const sr_log_lane_build *build, sr_log_lane *lane, sr_log_site_parts *parts)
{
	return check_straight_path_at_edge(c, log, layout, room, build, lane, parts, false);
}

Test(log_golden, straight_path_writes_the_general_lines)
{
	sr_log_lane *lane = sr_log__lane_new();
	sr_log_site_parts *parts = sr_log__site_parts_new();
	/* The instants again, each message formatted before the call ("%s"): the lines the straight path takes. */
	golden_corpus *times_preformatted = build_times_corpus_with(true);
	golden_corpus *heads = build_heads_corpus();
	cr_assert(lane != NULL && parts != NULL);
	static const sr_log_layout layouts[] = { SR_LOG_LAYOUT_TEXT, SR_LOG_LAYOUT_JSON };
	/* Every build of the straight path this CPU runs: the plain one, and the AVX2 one where it has AVX2. */
	const sr_log_lane_build *builds;
	size_t build_count = sr_log__lane_builds(&builds);
	cr_assert(build_count >= 1 && strcmp(builds[0].name, "plain") == 0);
	cr_log_info("straight path builds run here: %zu (the last: %s)", build_count, builds[build_count - 1].name);
	static const size_t at_least[2][3] = { { TEXT_TAKEN_AT_LEAST }, { JSON_TAKEN_AT_LEAST } };
	static const char *const corpus_names[3] = { "main corpus", "long records", "instants" };
	for (size_t b = 0; b < build_count; b++) {
		const sr_log_lane_build *build = &builds[b];
		size_t taken[2][3] = { { 0 } };  /* [text, json][main, long, instants] */
		size_t heads_taken[2] = { 0 };
		for (int k = 0; k < 2; k++) {
			/* With escapes on, then off. */
			for (int raw = 0; raw < 2; raw++) {
				sr_log *log = raw ? golden_log_raw : golden_log;
				taken[k][0] += check_straight_path(corpus_main, log, layouts[k], GOLDEN_MAX_LINE, build, lane, parts);
				taken[k][0] += check_straight_path(corpus_main, log, layouts[k], 1024, build, lane, parts);
				taken[k][1] += check_straight_path(corpus_long, log, layouts[k], GOLDEN_MAX_LINE, build, lane, parts);
				taken[k][1] += check_straight_path(corpus_long, log, layouts[k], 1500, build, lane, parts);
				taken[k][2] += check_straight_path(times_preformatted, log, layouts[k], GOLDEN_MAX_LINE, build, lane,
				    parts);
				heads_taken[k] += check_straight_path(heads, log, layouts[k], GOLDEN_MAX_LINE, build, lane, parts);
			}
		}
		/* Taken where they should be: the lone %s and plain-text records of each corpus, with escapes on and off. */
		for (int k = 0; k < 2; k++) {
			cr_log_info("straight path, %s build, %s: %zu main, %zu long, %zu instants", build->name,
			    k ? "json" : "text", taken[k][0], taken[k][1], taken[k][2]);
			for (int c = 0; c < 3; c++)
				cr_expect_geq(taken[k][c], at_least[k][c], "%s build, %s, %s: %zu lines taken", build->name,
				    k ? "json" : "text", corpus_names[c], taken[k][c]);
		}
		/* Every head's record: 2 rounds x 4 categories x 4 threads x 2 ids x 6 levels, with escapes on and off. */
		for (int k = 0; k < 2; k++)
			cr_expect_eq(heads_taken[k], 2u * 2 * 4 * 4 * 2 * 6, "%s build, %s: %zu of the heads' records taken",
			    build->name, k ? "json" : "text", heads_taken[k]);
	}
	corpus_free(heads);
	corpus_free(times_preformatted);
	sr_log__site_parts_free(parts);
	sr_log__lane_free(lane);
}

/* A consumer's straight-path caches for a test, and the builds of it this CPU runs. */
typedef struct lane_state {
	sr_log_lane *lane;
	sr_log_site_parts *parts;
	const sr_log_lane_build *builds;
	size_t build_count;
} lane_state;

static const sr_log_layout lane_layouts[] = { SR_LOG_LAYOUT_TEXT, SR_LOG_LAYOUT_JSON };

static lane_state
lane_state_new(void)
{
	lane_state st = { sr_log__lane_new(), sr_log__site_parts_new(), NULL, 0 };
	cr_assert(st.lane != NULL && st.parts != NULL);
	st.build_count = sr_log__lane_builds(&st.builds);
	return st;
}

static void
lane_state_free(lane_state *st)
{
	sr_log__site_parts_free(st->parts);
	sr_log__lane_free(st->lane);
}

/* xorshift64*: the same messages on every run. */
static uint64_t
random_next(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * UINT64_C(0x2545f4914f6cdd1d);
}

/*
 * A message of n bytes (no NUL), mostly lowercase letters; about one in
 * `rare` bytes is one the text or JSON escape changes or keeps, or a UTF-8
 * sequence, whole or not: at any place in the blocks of either build's copy.
 */
static void
random_message(uint64_t *state, char *msg, size_t n, unsigned rare)
{
	static const char *const specials[] = { "\n", "\t", "\x01", "\x1f", "\x7f", "\"", "\\", "\xc2\x85",
		"\xc2\xa0", "\xe2\x82\xac", "\xff", "\xc2", " ", "~", "{" };
	size_t i = 0;
	while (i < n) {
		uint64_t r = random_next(state);
		const char *sp = specials[(r >> 8) % (sizeof specials / sizeof specials[0])];
		size_t len = strlen(sp);
		if (r % rare == 0 && i + len <= n) {
			memcpy(msg + i, sp, len);
			i += len;
		} else {
			msg[i++] = (char)('a' + (r >> 16) % 26);
		}
	}
	msg[n] = '\0';
}

/*
 * The straight path's every build against the general path for messages
 * of every length to 700 bytes, plain and with bytes to escape at any
 * place: each line it takes is the general path's, byte for byte.
 */
Test(log_golden, straight_path_writes_the_general_lines_for_random_messages)
{
	lane_state st = lane_state_new();
	enum { ROUNDS = 20, PER_ROUND = 600, LONGEST = 700 };
	static char messages[PER_ROUND][LONGEST + 1];
	uint64_t state = UINT64_C(0x9e3779b97f4a7c15);
	size_t offered = 0, taken[2] = { 0 };
	for (int round = 0; round < ROUNDS; round++) {
		golden_corpus *c = corpus_new();
		c->ts_ns = utc_ns(2024, 2, 29, 23, 59, 59, 0) + round * INT64_C(7000000);
		c->tick_ns = 1234567;
		for (size_t i = 0; i < PER_ROUND; i++) {
			/* Lengths around the blocks' edges (16, 32, 64, 128) most, any to LONGEST too. */
			uint64_t r = random_next(&state);
			size_t n = r % 4 == 0 ? (size_t)(r >> 8) % (LONGEST + 1) : (size_t)(r >> 8) % 140;
			/* Half plain (taken), half with about one byte in 40 special (declined where the escape changes it). */
			random_message(&state, messages[i], n, i % 2 == 0 ? 1000000u : 40u);
			add_printf(c, "a random message", "%s", messages[i]);
		}
		for (size_t b = 0; b < st.build_count; b++)
			for (int k = 0; k < 2; k++)
				for (int raw = 0; raw < 2; raw++) {
					/* Each line it takes, again in the least room it takes it in. */
					taken[k] += check_straight_path_at_edge(c, raw ? golden_log_raw : golden_log, lane_layouts[k],
					    GOLDEN_MAX_LINE, &st.builds[b], st.lane, st.parts, true);
					offered += c->count;
				}
		corpus_free(c);
	}
	cr_log_info("random messages: %zu offered, %zu taken in text, %zu in JSON", offered, taken[0], taken[1]);
	/* The plain half at least, in every build, with escapes on and off. */
	for (int k = 0; k < 2; k++)
		cr_expect_geq(taken[k], st.build_count * 2 * ROUNDS * PER_ROUND / 2, "%s: %zu random messages taken",
		    k ? "json" : "text", taken[k]);
	lane_state_free(&st);
}

/*
 * One byte or sequence in a run of 'a's, at every place of every length to
 * 300: each edge of the copies' 16-, 32- and 64-byte blocks.  In text with
 * escapes on, the lane takes the line exactly when the escape keeps the
 * message as it is ('"', '\\', a whole UTF-8 character); with escapes off, always.
 * In JSON it never takes one: each is escaped or checked the general way.
 * Every line it takes is the general path's.
 */
Test(log_golden, straight_path_takes_a_message_by_each_byte_at_each_place)
{
	static const struct {
		const char *bytes;
		bool text_plain;            /* the text layout's escape keeps it */
	} specials[] = { { "\x01", false }, { "\xc2\x85", false }, { "\xe2\x82\xac", true }, { "\"", true },
		{ "\\", true }, { "\xc2", false } };
	enum { SPECIALS = sizeof specials / sizeof specials[0], LONGEST = 300, PER_CORPUS = 600 };
	lane_state st = lane_state_new();
	static char messages[PER_CORPUS][LONGEST + 4];
	size_t want_text_plain = 0, records = 0;
	size_t taken[2][2] = { { 0 } };  /* [text, json][escapes on, off] */
	size_t n = 1, at = 0;
	while (n <= LONGEST) {
		golden_corpus *c = corpus_new();
		c->ts_ns = utc_ns(2024, 2, 29, 23, 59, 59, 0) + (int64_t)records * 1000;
		c->tick_ns = 1000;
		for (size_t i = 0; i < PER_CORPUS && n <= LONGEST; i++) {
			size_t kind = (n + at) % SPECIALS;
			size_t len = strlen(specials[kind].bytes);
			memset(messages[i], 'a', n);
			memcpy(messages[i] + at, specials[kind].bytes, len);  /* n + len - 1 bytes at most */
			size_t total = at + len > n ? at + len : n;
			messages[i][total] = '\0';
			add_printf(c, "a byte at one place", "%s", messages[i]);
			want_text_plain += specials[kind].text_plain;
			records++;
			if (++at == n) {
				at = 0;
				n++;
			}
		}
		for (size_t b = 0; b < st.build_count; b++)
			for (int k = 0; k < 2; k++)
				for (int raw = 0; raw < 2; raw++)
					taken[k][raw] += check_straight_path(c, raw ? golden_log_raw : golden_log, lane_layouts[k],
					    GOLDEN_MAX_LINE, &st.builds[b], st.lane, st.parts);
		corpus_free(c);
	}
	cr_log_info("a byte at each place: %zu records; text took %zu and %zu, JSON %zu and %zu", records,
	    taken[0][0], taken[0][1], taken[1][0], taken[1][1]);
	cr_expect_eq(taken[0][0], st.build_count * want_text_plain, "text, escapes on: %zu taken, %zu builds x %zu plain",
	    taken[0][0], st.build_count, want_text_plain);
	cr_expect_eq(taken[0][1], st.build_count * records, "text, escapes off: %zu taken of %zu builds x %zu", taken[0][1],
	    st.build_count, records);
	cr_expect_eq(taken[1][0] + taken[1][1], 0u, "JSON: %zu taken", taken[1][0] + taken[1][1]);
	lane_state_free(&st);
}

Test(log_golden, timestamps)
{
	sr_log_pattern *plain = compile_pattern("%d");
	sr_log_pattern *every = compile_pattern(
	    "%d{%Y %y %m %d %e %H %M %S %f %1f %2f %3f %4f %5f %6f %7f %8f %9f %j %b %a %s %z %Z %%}");
	sr_log_pattern *several = compile_pattern("%d{%H:%M:%S.%3f}|%d{%s.%9f}|%d{%Y-%m-%d}|%d{%H:%M:%S.%3f}");
	sr_log_pattern *widths = compile_pattern("[%-32d{%a %b %e %H:%M:%S %Y}][%.8d][%40d][%-6.4d{%Y}]");
	sr_log_pattern *log4j = compile_pattern(PATTERN_LOG4J);
	sr_log_pattern *long_date = compile_pattern(
	    "%d{%Y-%m-%dT%H:%M:%S %Y-%m-%dT%H:%M:%S %Y-%m-%dT%H:%M:%S %Y-%m-%dT%H:%M:%S %a %b %j.%9f}");
	const golden_layout layouts[] = {
		{ "text", SR_LOG_LAYOUT_TEXT, NULL },
		{ "json", SR_LOG_LAYOUT_JSON, NULL },
		{ "pattern %d", SR_LOG_LAYOUT_PATTERN, plain },
		{ "pattern every date conversion", SR_LOG_LAYOUT_PATTERN, every },
		{ "pattern with four dates", SR_LOG_LAYOUT_PATTERN, several },
		{ "pattern date widths", SR_LOG_LAYOUT_PATTERN, widths },
		{ "pattern date longer than its cache", SR_LOG_LAYOUT_PATTERN, long_date },
		{ "pattern log4j", SR_LOG_LAYOUT_PATTERN, log4j },
	};
	const golden_layout *all = layouts;
	const size_t nall = sizeof layouts / sizeof *layouts;
	struct sr_log_syslog s5424, s3164;
	syslog_init(&s5424, SR_SYSLOG_5424, SR_SYSLOG_UDP, false, 1);
	syslog_init(&s3164, SR_SYSLOG_3164, SR_SYSLOG_UDP, false, 1);
	const golden_layout message = { "message", SR_LOG_LAYOUT_MESSAGE, NULL };
	golden_text out = { 0 };
	for (size_t i = 0; i < corpus_times->count; i++) {
		const golden_record *r = &corpus_times->records[i];
		for (int safe = 0; safe < 2; safe++) {
			for (size_t k = 0; k < nall; k++) {
				sr_log_event ev;
				golden_event(golden_log, r, safe != 0, &ev);
				char what[96];
				snprintf(what, sizeof what, "%s%s", all[k].name, safe ? " (signal-safe)" : "");
				put_label(&out, i, r, what);
				text_put(&out, line_buffer, render_line(&all[k], &ev, GOLDEN_MAX_LINE));
			}
		}
		put_frame(&out, &s5424, i, r, &message, "syslog 5424");
		put_frame(&out, &s3164, i, r, &message, "syslog 3164");
	}
	/* The whole list again, each instant in one layout only: no other layout refreshes a cache between them. */
	for (size_t k = 0; k < nall; k++) {
		for (size_t i = 0; i < corpus_times->count; i++) {
			const golden_record *r = &corpus_times->records[i];
			sr_log_event ev;
			golden_event(golden_log, r, false, &ev);
			put_label(&out, i, r, all[k].name);
			text_put(&out, line_buffer, render_line(&all[k], &ev, GOLDEN_MAX_LINE));
		}
	}
	/*
	 * Patterns compiled one after another, each freed before the next is
	 * made (in the memory it had, as malloc goes): a date cached for a
	 * pattern that is gone must not serve its successor.  Each has more
	 * than 16 date tokens, so that its tokens' array and its one item's
	 * are of different sizes: with glibc's malloc the next pattern's item
	 * then takes the freed item's address, the cache's key.
	 */
	static const char *const successive[] = {
		"%d{%Y-%m-%d %H:%M:%S %a %b %e %j}",
		"%d{%s %y %y %y %y %y %y %y %y}",
		"%d{%H:%M:%S %H:%M:%S %H:%M:%S}",
		"%d{%a %a %a %a %a %a %a %a %a}",
		"%d{%Y-%m-%d %H:%M:%S %a %b %e %j}",
		"%d{%j/%j/%j/%j/%j/%j/%j/%j/%j.%3f}",
	};
	for (size_t i = 0; i < corpus_times->count; i += 7) {
		const golden_record *r = &corpus_times->records[i];
		for (size_t k = 0; k < sizeof successive / sizeof *successive; k++) {
			sr_log_pattern *p = compile_pattern(successive[k]);
			golden_layout gl = { successive[k], SR_LOG_LAYOUT_PATTERN, p };
			sr_log_event ev;
			golden_event(golden_log, r, false, &ev);
			char what[96];
			snprintf(what, sizeof what, "pattern %s, compiled after the last one was freed", successive[k]);
			put_label(&out, i, r, what);
			text_put(&out, line_buffer, render_line(&gl, &ev, GOLDEN_MAX_LINE));
			sr_log__pattern_free(p);
		}
	}
	golden_check("timestamps.txt", &out);
	text_free(&out);
	free(s5424.frame);
	free(s3164.frame);
	sr_log__pattern_free(plain);
	sr_log__pattern_free(every);
	sr_log__pattern_free(several);
	sr_log__pattern_free(widths);
	sr_log__pattern_free(long_date);
	sr_log__pattern_free(log4j);
}

/* ---- end to end: a running logger's files ---- */

/*
 * What a logger in ring mode writes into its file sinks for real log calls
 * (the macros' inline and general paths, SR_KV, the backtrace), with
 * layouts that print no time and no thread: the consumer's batches and the
 * sinks' buffers between the layouts and the files, small buffers so that
 * lines cross their ends often, lines longer than max_line_bytes.
 */
static const char e2e_pattern[] = "%p %c - %m%K";
static const char e2e_narrow[] = "%-5p|%.12c|%30m|%K";

static void
e2e_calls(sr_log *log)
{
	sr_category *app = sr_log_category(log, "e2e");
	sr_category *sub = sr_log_category(log, "e2e.sub.module");
	sr_category *root = sr_log_category(log, "");
	static char filler[1201];
	for (int i = 0; i < 1200; i++)
		filler[i] = (char)('a' + i % 26);
	for (int i = 0; i < 300; i++) {
		int len = i % 97 == 0 ? 1100 : (i * 37) % 300;
		SR_INFO(app, "record %d [%.*s]", i, len, filler);
		SR_INFO(app, "plain %d %s", i, filler + 1200 - i % 40);
		if (i % 25 == 0)
			SR_WARN(sub, "fields of %d", i, SR_KV("i", i), SR_KV("s", "a b"), SR_KV("d", 0.5),
			    SR_KV("u", (unsigned)i));
		if (i % 40 == 0)
			SR_INFO(root, "controls %d: [%s] [%s]", i, "\x01\n\t\x7f", "\xff\xc3(\xe2\x82\xac");
		if (i % 60 == 0) {
			SR_TRACE(app, "kept for the backtrace %d", i);
			SR_DEBUG(sub, "kept too %d: %s", i, "x\ny");
			SR_ERROR(app, "trigger %d", i);
		}
	}
	static char big[5001];
	memset(big, 'B', 5000);
	SR_FATAL(app, "a record cut at its limit: %s", big);
	SR_INFO(app, "%s", "the last line");
}

Test(log_golden, end_to_end)
{
	char dir[] = "/tmp/test_log_golden.XXXXXX";
	cr_assert_not_null(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
	enum { SINKS = 4 };
	char paths[SINKS][64];
	sr_sink_config sinks[SINKS];
	for (int k = 0; k < SINKS; k++) {
		snprintf(paths[k], sizeof paths[k], "%s/sink%d.log", dir, k);
		sinks[k] = sr_sink_file(paths[k]);
		sinks[k].layout = SR_LOG_LAYOUT_PATTERN;
	}
	/* One sink a layout (its lines may go straight into its buffer), then two sinks sharing one. */
	sinks[0].layout = SR_LOG_LAYOUT_MESSAGE;
	sinks[0].buffer_bytes = 4096;
	sinks[1].pattern = e2e_pattern;
	sinks[1].buffer_bytes = 4096;
	sinks[2].pattern = e2e_narrow;
	sinks[2].buffer_bytes = 512;
	sinks[3].pattern = e2e_narrow;
	sr_log_config c;
	sr_log_config_default(&c);
	c.ignore_environment = true;
	c.close_at_exit = false;
	c.level = SR_LOG_INFO;
	c.max_line_bytes = 1024;
	c.backtrace_size = 16;
	c.backtrace_level = SR_LOG_TRACE;
	c.backtrace_trigger = SR_LOG_ERROR;
	c.sinks = sinks;
	c.sink_count = SINKS;
	sr_log *log = tl_open(&c);
	e2e_calls(log);
	sr_log_close(&log);

	golden_text out = { 0 };
	static const char *const what[] = { "message layout, a buffer of 4096", "pattern '%p %c - %m%K', a buffer of 4096",
		"pattern '%-5p|%.12c|%30m|%K', a buffer of 512, its layout shared" };
	char *files[SINKS];
	size_t lens[SINKS];
	for (int k = 0; k < SINKS; k++) {
		files[k] = read_file(paths[k], &lens[k]);
		cr_assert_not_null(files[k], "%s: %s", paths[k], strerror(errno));
		unlink(paths[k]);
	}
	rmdir(dir);
	for (int k = 0; k < 3; k++) {
		text_printf(&out, "# sink %d: %s\n", k, what[k]);
		text_put(&out, files[k], lens[k]);
	}
	/* The fourth sink takes the third one's lines: the same bytes. */
	cr_expect(lens[3] == lens[2] && memcmp(files[3], files[2], lens[2]) == 0,
	    "two file sinks of one layout wrote different files (%zu and %zu bytes)", lens[2], lens[3]);
	for (int k = 0; k < SINKS; k++)
		free(files[k]);
	golden_check("end_to_end.txt", &out);
	text_free(&out);
}
