/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_layout_json.c: the JSON Lines layout: one object per message,
 * strings escaped and invalid UTF-8 replaced, so that every line parses; a
 * message too long for the line is cut inside "msg" and the object stays
 * whole.  A call's key-value fields (SR_KV) are keys of the object, after
 * "msg" (json_fields).
 */
#include "sr_log_date_internal.h"
#include "sr_log_layout_json_internal.h"
#include "sr_log_names_internal.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Length of a valid UTF-8 sequence at s (n bytes left), or 0 with *bad the bytes to replace. */
static size_t
utf8_valid(const unsigned char *s, size_t n, size_t *bad)
{
	unsigned char c = s[0];
	size_t need;
	unsigned char lo = 0x80, hi = 0xbf;   /* the second byte's range */
	if (c >= 0xc2 && c <= 0xdf) {
		need = 2;
	} else if (c >= 0xe0 && c <= 0xef) {
		need = 3;
		if (c == 0xe0)
			lo = 0xa0;               /* no overlong forms */
		else if (c == 0xed)
			hi = 0x9f;               /* no UTF-16 surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		need = 4;
		if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f;               /* nothing above U+10FFFF */
	} else {
		*bad = 1;                    /* a stray continuation byte, C0, C1, F5..FF */
		return 0;
	}
	/* Replace the maximal valid prefix as one U+FFFD (Unicode's recommended practice). */
	size_t i = 1;
	if (i < n && s[i] >= lo && s[i] <= hi) {
		for (i = 2; i < need && i < n && s[i] >= 0x80 && s[i] <= 0xbf; i++)
			;
	}
	if (i == need)
		return need;
	*bad = i;
	return 0;
}

/*
 * The JSON form of the unit (a character, or an invalid sequence) at s:
 * its bytes in esc (or, for valid multi-byte UTF-8 and plain characters,
 * *src points to them), their count returned, the input bytes in *take.
 */
static size_t
escape_unit(const unsigned char *s, size_t n, char esc[6], const char **src, size_t *take)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char c = s[0];
	*take = 1;
	*src = esc;
	if (c >= 0x80) {
		size_t bad = 0;
		size_t ok = utf8_valid(s, n, &bad);
		if (ok > 0) {
			*src = (const char *)s;
			*take = ok;
			return ok;
		}
		*src = "\xef\xbf\xbd";  /* U+FFFD */
		*take = bad;
		return 3;
	}
	if (c == '"' || c == '\\') {
		esc[0] = '\\';
		esc[1] = (char)c;
		return 2;
	}
	if (c < 0x20 || c == 0x7f) {
		esc[0] = '\\';
		switch (c) {
		case '\n': esc[1] = 'n'; return 2;
		case '\r': esc[1] = 'r'; return 2;
		case '\t': esc[1] = 't'; return 2;
		case '\b': esc[1] = 'b'; return 2;
		case '\f': esc[1] = 'f'; return 2;
		default:
			esc[1] = 'u';
			esc[2] = '0';
			esc[3] = '0';
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 15];
			return 6;
		}
	}
	*src = (const char *)s;
	return 1;
}

/* Whether the 8 bytes of v are all printable ASCII other than '"' and '\\' (nothing to escape). */
static inline bool
word_plain(uint64_t v)
{
	const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
	/* A byte below 0x20, DEL (0x7f + 1 sets the high bit) or from 0x80 sets its high bit here. */
	uint64_t special = (v - ones * 0x20) | (v + ones) | v;
	/* A byte equal to '"' or '\\': zero after the xor, and (x - 1) & ~x sets its high bit. */
	uint64_t q = v ^ (ones * '"'), b = v ^ (ones * '\\');
	special |= ((q - ones) & ~q) | ((b - ones) & ~b);
	return (special & highs) == 0;
}

/* Whether none of the n bytes at s needs a JSON escape (or a UTF-8 check): the message stays as it is. */
static bool
json_plain(const unsigned char *s, size_t n)
{
	size_t i = 0;
#if defined(__SSE2__)
	/*
	 * 16 bytes a step: b + 1, then minus 0x21 saturating as signed, is
	 * negative exactly for the bytes below 0x20, DEL and from 0x80 (as the
	 * text layouts' escape finds them); '"' and '\\' by equality.
	 */
	const __m128i one = _mm_set1_epi8(1), limit = _mm_set1_epi8(0x21);
	const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
	for (; i + 16 <= n; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
		__m128i special = _mm_or_si128(_mm_subs_epi8(_mm_add_epi8(v, one), limit),
		    _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)));
		if (_mm_movemask_epi8(special) != 0)
			return false;
	}
#endif
	for (uint64_t v; i + 8 <= n; i += 8) {
		memcpy(&v, s + i, 8);
		if (!word_plain(v))
			return false;
	}
	if (i == n)
		return true;
	if (n >= 8) {
		/* The last 8 bytes, some of them seen already: one more word instead of a byte loop. */
		uint64_t v;
		memcpy(&v, s + n - 8, 8);
		return word_plain(v);
	}
	/* Shorter than a word: its bytes, padded with a plain one. */
	unsigned char w[8] = { 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a' };
	memcpy(w, s, n);
	uint64_t v;
	memcpy(&v, w, 8);
	return word_plain(v);
}

/*
 * Walks the escaped form of s: the input bytes whose escapes fit in room
 * (returned) and their escaped size (*esc_bytes), appended to out unless
 * out is NULL (counting only).  Never splits a unit.
 */
static size_t
escape_walk(sr_fmt_buf *out, const unsigned char *s, size_t n, size_t room, size_t *esc_bytes)
{
	size_t i = 0, used = 0;
	while (i < n) {
		char esc[6];
		const char *src;
		size_t take;
		size_t elen = escape_unit(s + i, n - i, esc, &src, &take);
		if (used + elen > room)
			break;
		if (out != NULL)
			sr_fmt_buf_put(out, src, elen);
		used += elen;
		i += take;
	}
	*esc_bytes = used;
	return i;
}

static size_t
escape_count(const unsigned char *s, size_t n, size_t room, size_t *esc_bytes)
{
	return escape_walk(NULL, s, n, room, esc_bytes);
}

size_t
sr_log__json_escape(sr_fmt_buf *out, const char *str, size_t n, size_t room)
{
	/* Nothing to escape: the bytes that fit, in one copy (what the walk would copy one by one). */
	if (json_plain((const unsigned char *)str, n)) {
		size_t k = n < room ? n : room;
		sr_fmt_buf_put(out, str, k);
		return k;
	}
	size_t used;
	return escape_walk(out, (const unsigned char *)str, n, room, &used);
}

/* "key":"escaped", the string cut to leave `reserve` bytes of out free. */
static void
json_string_field(sr_fmt_buf *out, const char *key, const char *s, size_t n, size_t reserve)
{
	sr_fmt_buf_put(out, key, strlen(key));
	size_t end = out->len + 1 + reserve;
	size_t room = out->cap > end ? out->cap - end : 0;
	sr_log__json_escape(out, s, n, room);
	sr_fmt_buf_putc(out, '"');
}

/*
 * The message, escaped in place: rendered raw at `before`, then moved to
 * the end of the room its escaped form needs and escaped forward from
 * there.  An escape is never shorter than its input, so the writer never
 * overtakes the reader.  Returns true when the message was cut.
 */
static bool
json_message(const sr_log_event *ev, sr_fmt_buf *out, size_t tail_len)
{
	size_t before = out->len, want_before = out->want;
	sr_log__put_message(ev, out);
	size_t raw_len = out->len - before;
	size_t raw_full = out->want - want_before;
	unsigned char *raw = (unsigned char *)out->data + before;
	size_t limit = out->cap > before + tail_len ? out->cap - before - tail_len : 0;
	/* Whole, it fits, and nothing in it is escaped: the bytes rendered are the bytes escaped. */
	if (raw_full == raw_len && raw_len <= limit && json_plain(raw, raw_len))
		return false;
	size_t esc_bytes;
	size_t used = escape_count(raw, raw_len, limit, &esc_bytes);
	bool cut = used < raw_len || raw_full > raw_len;
	if (cut) {
		limit = limit > SR_FMT_TRUNCATION_MARKER_LEN ? limit - SR_FMT_TRUNCATION_MARKER_LEN : 0;
		used = escape_count(raw, raw_len, limit, &esc_bytes);
	}
	size_t shift = esc_bytes - used;
	memmove(raw + shift, raw, used);
	const unsigned char *r = raw + shift;
	char *w = out->data + before;
	size_t i = 0;
	while (i < used) {
		char esc[6];
		const char *src;
		size_t take;
		/* Copy the unit out first: writing it may overlap where it is read from. */
		unsigned char unit[4];
		size_t ul = used - i < 4 ? used - i : 4;
		memcpy(unit, r + i, ul);
		size_t elen = escape_unit(unit, ul, esc, &src, &take);
		if (src == (const char *)unit)
			memmove(w, unit, elen);
		else
			memcpy(w, src, elen);
		w += elen;
		i += take;
	}
	out->len = before + esc_bytes;
	out->want = want_before + esc_bytes + (cut ? raw_full - used + 1 : 0);
	return cut;
}

/* The keys the layout writes itself: a field of that name is written "kv_" and its key. */
static bool
builtin_key(const char *key, size_t n)
{
	static const char *const keys[] = { "ts", "level", "category", "thread", "tid", "msg", "file",
		"line", "function", "backtrace" };
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (strlen(keys[i]) == n && memcmp(keys[i], key, n) == 0)
			return true;
	return false;
}

/* The most bytes of a line the fields take: the rest stays for the message and the other keys. */
#define JSON_FIELDS_MAX 4096

/*
 * ,"key":value for each key-value field (SR_KV), typed: numbers as JSON
 * numbers (a floating point NaN or infinity as the string "nan", "inf" or
 * "-inf"), a pointer as the string "0x...", a string escaped (a NULL one as
 * null) and cut with the truncation marker to stay within limit bytes of
 * out; a field that does not fit even so is left out with the rest.
 */
static void
json_fields(const sr_log_event *ev, sr_fmt_buf *out, size_t limit)
{
	sr_fmt_field_iter it;
	if (!sr_log__event_fields(ev, &it))
		return;
	if (limit > out->cap)
		limit = out->cap;
	sr_fmt_field f;
	while (sr_fmt_fields_next(&it, &f)) {
		size_t mark = out->len, want = out->want;
		sr_fmt_buf_put(out, ",\"", 2);
		if (builtin_key(f.key, f.key_len))
			sr_fmt_buf_put(out, "kv_", 3);
		sr_log__json_escape(out, f.key, f.key_len, 256);
		sr_fmt_buf_put(out, "\":", 2);
		if (f.kind == SR_FMT_ARG_STR) {
			if (f.str == NULL) {
				sr_fmt_buf_put(out, "null", 4);
			} else {
				sr_fmt_buf_putc(out, '"');
				size_t end = out->len + 1 + SR_FMT_TRUNCATION_MARKER_LEN;
				size_t room = limit > end ? limit - end : 0;
				size_t took = sr_log__json_escape(out, f.str, f.str_len, room);
				if (took < f.str_len)
					sr_fmt_buf_put(out, SR_FMT_TRUNCATION_MARKER, SR_FMT_TRUNCATION_MARKER_LEN);
				sr_fmt_buf_putc(out, '"');
			}
		} else {
			char num[64];
			sr_fmt_buf nb = { num, 0, sizeof num, 0 };
			sr_fmt_field_put_number(&nb, &f, ev->signal_safe);
			/* A number has no letter n: nan and inf are not JSON numbers, a pointer is a string. */
			bool quote = f.kind == SR_FMT_ARG_PTR || memchr(num, 'n', nb.len) != NULL;
			if (quote)
				sr_fmt_buf_putc(out, '"');
			sr_fmt_buf_put(out, num, nb.len);
			if (quote)
				sr_fmt_buf_putc(out, '"');
		}
		if (out->len > limit || out->want != out->len) {
			out->len = mark;
			out->want = want;
			return;
		}
	}
}

/* ,"file":"...","line":N,"function":"..." */
static void
put_site_keys(sr_fmt_buf *out, const sr_site *site)
{
	const char *file = sr_site_file_base(site);
	sr_fmt_buf_put(out, ",\"file\":\"", 9);
	sr_log__json_escape(out, file, strlen(file), 256);
	sr_fmt_buf_put(out, "\",\"line\":", 9);
	sr_log__put_int(out, site->line);
	const char *fn = site->function != NULL ? site->function : "";
	sr_fmt_buf_put(out, ",\"function\":\"", 13);
	sr_log__json_escape(out, fn, strlen(fn), 256);
	sr_fmt_buf_putc(out, '"');
}

/* The site's keys into its part, when they fit there (else they are made for each line). */
static void
make_json_part(const sr_site *site, sr_log_site_part *part)
{
	char keys[600];  /* the longest: two names of 256 escaped bytes, a line number and the key names */
	sr_fmt_buf b = { keys, 0, sizeof keys, 0 };
	put_site_keys(&b, site);
	if (b.want > b.len || b.len > SR_LOG_SITE_PART_JSON_MAX)
		return;
	memcpy(part->json, keys, b.len);
	part->json_len = (uint8_t)b.len;
	part->made |= SR_LOG_SITE_PART_JSON;
}

void
sr_log__json_head(sr_fmt_buf *out, int level, const char *category, const char *thread, uint32_t tid,
    size_t reserve)
{
	sr_fmt_buf_put(out, "Z\",\"level\":\"", 12);
	const char *ln = sr_log__level_lower(level);
	sr_fmt_buf_put(out, ln, strlen(ln));
	sr_fmt_buf_putc(out, '"');
	if (category == NULL || category[0] == '\0')
		category = "root";
	json_string_field(out, ",\"category\":\"", category, strlen(category), reserve + 60);
	size_t tl = strnlen(thread, 16);
	if (tl > 0) {
		json_string_field(out, ",\"thread\":\"", thread, tl, reserve + 20);
	} else {
		sr_fmt_buf_put(out, ",\"thread\":\"", 11);
		sr_log__put_uint(out, tid, 1);
		sr_fmt_buf_putc(out, '"');
	}
	sr_fmt_buf_put(out, ",\"tid\":", 7);
	sr_log__put_uint(out, tid, 1);
	sr_fmt_buf_put(out, ",\"msg\":\"", 8);
}

sr_log_site_part *
sr_log__json_site_part(sr_log_site_parts *parts, const sr_site *site)
{
	sr_log_site_part *part = sr_log__site_part(parts, site);
	if ((part->made & SR_LOG_SITE_PART_JSON) == 0)
		make_json_part(site, part);
	return (part->made & SR_LOG_SITE_PART_JSON) != 0 ? part : NULL;
}

bool
sr_log__json_is_plain(const char *s, size_t n)
{
	return json_plain((const unsigned char *)s, n);
}

void
sr_log__layout_json(const sr_log *log, const sr_log_event *ev, sr_fmt_buf *out)
{
	(void)log;
	/*
	 * The tail, made first so that the message can be cut to leave room for
	 * it: the message's closing quote, the key-value fields, the site's keys.
	 */
	char tail_data[640 + JSON_FIELDS_MAX];
	sr_fmt_buf tail = { tail_data, 0, sizeof tail_data - 8, 0 };
	sr_fmt_buf_putc(&tail, '"');
	json_fields(ev, &tail, 1 + (out->cap / 2 < JSON_FIELDS_MAX ? out->cap / 2 : JSON_FIELDS_MAX));
	if (ev->site != NULL) {
		/* The site's keys, made at its first record when the consumer keeps the parts. */
		const sr_log_site_part *part = ev->parts != NULL ? sr_log__json_site_part(ev->parts, ev->site) : NULL;
		if (part != NULL)
			sr_fmt_buf_put(&tail, part->json, part->json_len);
		else
			put_site_keys(&tail, ev->site);
	}
	if (ev->backtrace)
		sr_fmt_buf_put(&tail, ",\"backtrace\":true", 17);
	sr_fmt_buf_putc(&tail, '}');

	/* Before "msg" all is bounded; the category and thread are cut if the line is tiny. */
	size_t reserve = tail.len + SR_FMT_TRUNCATION_MARKER_LEN + 40;
	int64_t sec;
	int32_t ns;
	sr_log__split_ns(ev->ts_ns, &sec, &ns);
	sr_fmt_buf_put(out, "{\"ts\":\"", 7);
	/* The date and time to the second from a per-thread cache, rebuilt once a second. */
	if (ev->signal_safe)
		sr_log__put_iso_seconds(out, sec);
	else
		sr_log__put_iso_seconds_cached(out, sec);
	sr_fmt_buf_putc(out, '.');
	sr_log__put_nine_digits(out, (uint32_t)ns);
	sr_log__json_head(out, ev->level, ev->category, ev->thread, ev->tid, reserve);
	bool cut = json_message(ev, out, tail.len);
	size_t missing = out->want - out->len;
	if (cut)
		sr_fmt_buf_put(out, SR_FMT_TRUNCATION_MARKER, SR_FMT_TRUNCATION_MARKER_LEN);
	sr_fmt_buf_put(out, tail.data, tail.len);
	/*
	 * Uncut, want == len.  Cut, want says how much more the whole line
	 * would take, so that a caller rendering into a small buffer retries
	 * with a bigger one (sr_log__finish_line adds no marker for JSON).
	 */
	out->want = out->len + missing;
}
