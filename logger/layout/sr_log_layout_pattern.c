/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_layout_pattern.c: the pattern layout (SR_LOG_LAYOUT_PATTERN), Log4j-like.
 *
 * A pattern is compiled once at open into items (literal text, or a
 * conversion with its width modifiers); %d's strftime-like format is compiled
 * into date tokens the same way.  Rendering walks the items; nothing is
 * parsed per line, and nothing calls the C library's time or printf
 * functions, so rendering is async-signal-safe when the event says so (the
 * crash handler).  Widths are in bytes.
 */
#include "sr_log_date_internal.h"
#include "sr_log_layout_escape_internal.h"
#include "sr_log_layout_pattern_internal.h"
#include "sr_log_names_internal.h"

#include <stdlib.h>
#include <string.h>

/* Widest width or truncation a conversion may ask for. */
#define MAX_WIDTH 4096

enum item_kind {
	I_LITERAL, I_DATE, I_LEVEL, I_CATEGORY, I_THREAD, I_TID, I_MESSAGE, I_FILE, I_LINE,
	I_FUNCTION, I_NEWLINE, I_FIELDS
};

enum date_kind {
	D_LITERAL, D_YEAR, D_YEAR2, D_MONTH, D_DAY, D_DAY_SPACE, D_HOUR, D_MINUTE, D_SECOND,
	D_FRACTION, D_YDAY, D_MONTH_NAME, D_WDAY_NAME, D_EPOCH, D_TZ_OFFSET, D_TZ_NAME
};

/*
 * A piece of a compiled pattern: an item of the line (kind an item_kind),
 * or a token of a %d date format (kind a date_kind).  One type for both, so
 * that one function adds either.
 */
typedef struct piece {
	uint8_t kind;
	bool left;                /* item: pad on the right */
	uint8_t digits;           /* D_FRACTION */
	int min;                  /* item: 0: none */
	int max;                  /* item: 0: none; keeps the last `max` bytes */
	uint32_t off, len;        /* I_LITERAL, D_LITERAL: text; I_DATE: its tokens */
} piece;
typedef piece item;
typedef piece date_token;

struct sr_log_pattern {
	char *text;               /* literal bytes */
	size_t text_len;
	item *items;
	size_t nitems;
	date_token *dates;
	size_t ndates;
	uint64_t serial;          /* unique in the process: the key of the date caches */
};

/* Patterns compiled so far: each one's serial, so that a cache never serves a freed pattern's reuse. */
static sr_atomic_i64 patterns_compiled;

static const char default_date[] = "%Y-%m-%dT%H:%M:%S.%6fZ";

typedef struct builder {
	sr_log_pattern *p;
	size_t text_cap, items_cap, dates_cap;
	bool nomem;
} builder;

/*
 * array (of elements of `size` bytes, *cap of them) grown, doubling, to hold
 * at least `need`; NULL, with b->nomem set, when out of memory (array is
 * then left as it was).
 */
static void *
grow(builder *b, void *array, size_t need, size_t *cap, size_t size)
{
	if (need <= *cap)
		return array;
	size_t n = *cap ? *cap * 2 : 16;
	while (n < need)
		n *= 2;
	void *grown = realloc(array, n * size);
	if (grown == NULL) {
		b->nomem = true;
		return NULL;
	}
	*cap = n;
	return grown;
}

static uint32_t
add_text(builder *b, const char *s, size_t n)
{
	sr_log_pattern *p = b->p;
	if (n == 0)
		return (uint32_t)p->text_len;
	char *text = grow(b, p->text, p->text_len + n, &b->text_cap, 1);
	if (text == NULL)
		return 0;
	p->text = text;
	memcpy(p->text + p->text_len, s, n);
	uint32_t off = (uint32_t)p->text_len;
	p->text_len += n;
	return off;
}

/* Stores s[0..n) in the pattern's text and points *off and *len at it. */
static void
add_literal(builder *b, uint32_t *off, uint32_t *len, const char *s, size_t n)
{
	*off = add_text(b, s, n);
	*len = (uint32_t)n;
}

/* A piece of kind `kind` added at the end of *array; NULL when out of memory. */
static piece *
add_piece(builder *b, piece **array, size_t *count, size_t *cap, uint8_t kind)
{
	piece *grown = grow(b, *array, *count + 1, cap, sizeof *grown);
	if (grown == NULL)
		return NULL;
	*array = grown;
	piece *added = &grown[(*count)++];
	*added = (piece){ .kind = kind };
	return added;
}

static item *
add_item(builder *b, uint8_t kind)
{
	return add_piece(b, &b->p->items, &b->p->nitems, &b->items_cap, kind);
}

static date_token *
add_date(builder *b, uint8_t kind)
{
	return add_piece(b, &b->p->dates, &b->p->ndates, &b->dates_cap, kind);
}

/*
 * Adds the literal bytes that start at s[i] (up to the next '%' or n; at
 * least one) as a piece of kind `kind`, made by add; returns where they
 * end, or 0 when out of memory.
 */
static size_t
add_literal_run(builder *b, piece *(*add)(builder *, uint8_t), uint8_t kind, const char *s,
    size_t i, size_t n)
{
	const char *percent = memchr(s + i, '%', n - i);
	size_t end = percent != NULL ? (size_t)(percent - s) : n;
	piece *literal = add(b, kind);
	if (literal == NULL)
		return 0;
	add_literal(b, &literal->off, &literal->len, s + i, end - i);
	return end;
}

/*
 * Reads the decimal digits at s[*i] into *v (which holds what came before);
 * false as soon as *v is above MAX_WIDTH.
 */
static bool
read_width(const char *s, size_t n, size_t *i, long *v)
{
	while (*i < n && s[*i] >= '0' && s[*i] <= '9') {
		*v = *v * 10 + (s[(*i)++] - '0');
		if (*v > MAX_WIDTH)
			return false;
	}
	return true;
}

/* The error for column col (0-based offset into pattern). */
static int
bad(sr_error *err, const char *pattern, size_t col, const char *what)
{
	return sr_error_set(err, SR_EINVAL, "pattern '%.80s%s' is invalid at column %zu: %s",
	    pattern, strlen(pattern) > 80 ? "..." : "", col + 1, what);
}

/* Compiles the date format fmt[0..n) (at column base of pattern) into tokens. */
static int
compile_date(builder *b, const char *pattern, size_t base, const char *fmt, size_t n,
    uint32_t *first, uint32_t *count, sr_error *err)
{
	*first = (uint32_t)b->p->ndates;
	size_t i = 0;
	while (i < n) {
		if (fmt[i] != '%') {
			i = add_literal_run(b, add_date, D_LITERAL, fmt, i, n);
			if (i == 0)
				return SR_ENOMEM;
			continue;
		}
		if (i + 1 >= n)
			return bad(err, pattern, base + i, "the date format ends with a lone '%'");
		char c = fmt[i + 1];
		uint8_t kind;
		uint8_t digits = 0;
		size_t used = 2;
		if (c >= '1' && c <= '9') {
			if (i + 2 >= n || fmt[i + 2] != 'f') {
				char what[96];
				snprintf(what, sizeof what, "'%%%c' in the date: a digit must be followed by f (%%3f ms, %%6f us, %%9f ns)", c);
				return bad(err, pattern, base + i, what);
			}
			digits = (uint8_t)(c - '0');
			kind = D_FRACTION;
			used = 3;
		} else {
			switch (c) {
			case 'Y': kind = D_YEAR; break;
			case 'y': kind = D_YEAR2; break;
			case 'm': kind = D_MONTH; break;
			case 'd': kind = D_DAY; break;
			case 'e': kind = D_DAY_SPACE; break;
			case 'H': kind = D_HOUR; break;
			case 'M': kind = D_MINUTE; break;
			case 'S': kind = D_SECOND; break;
			case 'f': kind = D_FRACTION; digits = 6; break;
			case 'j': kind = D_YDAY; break;
			case 'b': kind = D_MONTH_NAME; break;
			case 'a': kind = D_WDAY_NAME; break;
			case 's': kind = D_EPOCH; break;
			case 'z': kind = D_TZ_OFFSET; break;
			case 'Z': kind = D_TZ_NAME; break;
			case '%': kind = D_LITERAL; break;
			default: {
				char what[160];
				snprintf(what, sizeof what, "'%%%c' is not a date conversion (expected %%Y %%y %%m %%d %%e "
				    "%%H %%M %%S %%f %%3f %%6f %%9f %%j %%b %%a %%s %%z %%Z %%%%)", c);
				return bad(err, pattern, base + i, what);
			}
			}
		}
		date_token *d = add_date(b, kind);
		if (d == NULL)
			return SR_ENOMEM;
		d->digits = digits;
		if (kind == D_LITERAL)
			add_literal(b, &d->off, &d->len, "%", 1);
		i += used;
	}
	*count = (uint32_t)b->p->ndates - *first;
	return SR_OK;
}

static int
compile(builder *b, const char *pattern, sr_error *err)
{
	size_t n = strlen(pattern);
	if (n == 0)
		return sr_error_set(err, SR_EINVAL, "pattern '' is invalid: it is empty (try \"%%d %%-5p %%c - %%m%%n\")");
	size_t i = 0;
	while (i < n) {
		if (pattern[i] != '%') {
			i = add_literal_run(b, add_item, I_LITERAL, pattern, i, n);
			if (i == 0)
				return SR_ENOMEM;
			continue;
		}
		size_t start = i++;
		bool left = false;
		long min = 0, max = 0;
		if (i < n && pattern[i] == '-') {
			left = true;
			i++;
		}
		if (!read_width(pattern, n, &i, &min))
			return bad(err, pattern, start, "the width is above 4096");
		if (i < n && pattern[i] == '.') {
			i++;
			if (i >= n || pattern[i] < '0' || pattern[i] > '9')
				return bad(err, pattern, start, "'.' must be followed by the number of characters to keep");
			if (!read_width(pattern, n, &i, &max))
				return bad(err, pattern, start, "the truncation is above 4096");
			if (max == 0)
				return bad(err, pattern, start, "'.0' would keep nothing");
		}
		bool modified = left || min > 0 || max > 0;
		if (i >= n)
			return bad(err, pattern, start, "the pattern ends inside a conversion (a lone '%'? write %% for '%')");
		char c = pattern[i++];
		uint8_t kind;
		switch (c) {
		case 'd': kind = I_DATE; break;
		case 'p': kind = I_LEVEL; break;
		case 'c': kind = I_CATEGORY; break;
		case 't': kind = I_THREAD; break;
		case 'T': kind = I_TID; break;
		case 'm': kind = I_MESSAGE; break;
		case 'F': kind = I_FILE; break;
		case 'L': kind = I_LINE; break;
		case 'M': kind = I_FUNCTION; break;
		case 'n': kind = I_NEWLINE; break;
		case 'K': kind = I_FIELDS; break;
		case '%': kind = I_LITERAL; break;
		default: {
			char what[160];
			if ((unsigned char)c >= 0x21 && (unsigned char)c < 0x7f)
				snprintf(what, sizeof what, "'%%%c' is not a conversion (expected %%d %%p %%c %%t %%T %%m "
				    "%%F %%L %%M %%n %%%%)", c);
			else
				snprintf(what, sizeof what, "byte 0x%02x after '%%' is not a conversion (expected %%d %%p "
				    "%%c %%t %%T %%m %%F %%L %%M %%n %%%%)", (unsigned char)c);
			return bad(err, pattern, start, what);
		}
		}
		if (modified && (kind == I_NEWLINE || kind == I_LITERAL))
			return bad(err, pattern, start, "%n and %% take no width");
		item *it = add_item(b, kind);
		if (it == NULL)
			return SR_ENOMEM;
		it->left = left;
		it->min = (int)min;
		it->max = (int)max;
		if (kind == I_LITERAL) {
			add_literal(b, &it->off, &it->len, "%", 1);
		} else if (kind == I_DATE) {
			const char *fmt = default_date;
			size_t flen = sizeof default_date - 1, fbase = i;
			if (i < n && pattern[i] == '{') {
				const char *close = memchr(pattern + i + 1, '}', n - i - 1);
				if (close == NULL)
					return bad(err, pattern, i, "'{' of %d has no closing '}'");
				fmt = pattern + i + 1;
				flen = (size_t)(close - fmt);
				fbase = i + 1;
				i = (size_t)(close - pattern) + 1;
				if (flen == 0)
					return bad(err, pattern, fbase - 1, "%d{} has an empty date format");
			}
			uint32_t first = 0, count = 0;
			/* it may move when the item array grows: set its fields through the index. */
			size_t index = (size_t)(it - b->p->items);
			int rc = compile_date(b, pattern, fbase, fmt, flen, &first, &count, err);
			if (rc != SR_OK)
				return rc;
			b->p->items[index].off = first;
			b->p->items[index].len = count;
		}
		if (b->nomem)
			return SR_ENOMEM;
	}
	/* The line's own newline ends every line: a trailing %n is that newline. */
	if (b->p->nitems > 0 && b->p->items[b->p->nitems - 1].kind == I_NEWLINE)
		b->p->nitems--;
	return b->nomem ? SR_ENOMEM : SR_OK;
}

int
sr_log__pattern_compile(const char *text, sr_log_pattern **out, sr_error *err)
{
	*out = NULL;
	if (text == NULL)
		return sr_error_set(err, SR_EINVAL, "pattern is NULL");
	sr_log_pattern *p = calloc(1, sizeof *p);
	if (p == NULL)
		return sr_error_set(err, SR_ENOMEM, "cannot allocate a pattern");
	/* A count: no data rides on it. */
	p->serial = (uint64_t)sr_atomic_faa_i64(&patterns_compiled, 1) + 1;
	builder b = { .p = p };
	int rc = compile(&b, text, err);
	if (rc == SR_ENOMEM)
		sr_error_set(err, SR_ENOMEM, "cannot allocate the pattern '%.64s'", text);
	if (rc != SR_OK) {
		sr_log__pattern_free(p);
		return rc;
	}
	*out = p;
	return SR_OK;
}

void
sr_log__pattern_free(sr_log_pattern *p)
{
	if (p == NULL)
		return;
	free(p->text);
	free(p->items);
	free(p->dates);
	free(p);
}

int
sr_log_pattern_check(const char *pattern, sr_error *err)
{
	sr_log_pattern *p;
	int rc = sr_log__pattern_compile(pattern, &p, err);
	sr_log__pattern_free(p);
	return rc;
}

/* ---------------------------------------------------------------------------------------- */
/* Rendering                                                                                */

static const char month_names[12][4] = {
	"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"
};
static const char wday_names[7][4] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };

/*
 * The tokens of a %d before its first fraction of a second render the same
 * text all second long: a per-thread cache keeps that text for the last
 * (pattern, item, second) and the rest is rendered after it.
 */
static __attribute__((tls_model("initial-exec"))) _Thread_local struct {
	uint64_t serial;          /* the pattern's; 0: empty */
	const item *item;
	int64_t sec;
	uint32_t resume;          /* the first token not in text */
	size_t len;
	char text[64];
} date_cache;

static void render_date_tokens(const sr_log_pattern *p, const item *it, uint32_t from, uint32_t to, int64_t sec,
    int32_t ns, sr_fmt_buf *out);

static void
render_date(const sr_log_pattern *p, const item *it, int64_t ts_ns, sr_fmt_buf *out, bool signal_safe)
{
	int64_t sec;
	int32_t ns;
	sr_log__split_ns(ts_ns, &sec, &ns);
	if (signal_safe) {
		render_date_tokens(p, it, 0, it->len, sec, ns, out);
		return;
	}
	if (date_cache.serial != p->serial || date_cache.item != it || date_cache.sec != sec) {
		uint32_t resume = 0;
		while (resume < it->len && p->dates[it->off + resume].kind != D_FRACTION)
			resume++;
		sr_fmt_buf b = { date_cache.text, 0, sizeof date_cache.text, 0 };
		render_date_tokens(p, it, 0, resume, sec, ns, &b);
		if (sr_fmt_buf_truncated(&b)) {
			/* Too long to keep: rendered whole each time. */
			date_cache.serial = 0;
			render_date_tokens(p, it, 0, it->len, sec, ns, out);
			return;
		}
		date_cache.serial = p->serial;
		date_cache.item = it;
		date_cache.sec = sec;
		date_cache.resume = resume;
		date_cache.len = b.len;
	}
	sr_fmt_buf_put(out, date_cache.text, date_cache.len);
	render_date_tokens(p, it, date_cache.resume, it->len, sec, ns, out);
}

/* Tokens from..to of the date item it, for the time sec + ns. */
static void
render_date_tokens(const sr_log_pattern *p, const item *it, uint32_t from, uint32_t to, int64_t sec, int32_t ns,
    sr_fmt_buf *out)
{
	sr_log_tm tm;
	bool have_tm = false;
	for (uint32_t k = from; k < to; k++) {
		const date_token *d = &p->dates[it->off + k];
		/* The calendar only for a token that shows part of it (a literal or a fraction does not). */
		if (!have_tm && d->kind != D_LITERAL && d->kind != D_FRACTION) {
			sr_log__utc(sec, &tm);
			have_tm = true;
		}
		switch (d->kind) {
		case D_LITERAL: sr_fmt_buf_put(out, p->text + d->off, d->len); break;
		case D_YEAR:
			if (tm.year < 0) {
				sr_fmt_buf_putc(out, '-');
				sr_log__put_uint(out, (uint64_t)-(int64_t)tm.year, 4);
			} else {
				sr_log__put_uint(out, (uint64_t)tm.year, 4);
			}
			break;
		case D_YEAR2: sr_log__put_uint(out, (uint64_t)(((tm.year % 100) + 100) % 100), 2); break;
		case D_MONTH: sr_log__put_uint(out, (uint64_t)tm.month, 2); break;
		case D_DAY: sr_log__put_uint(out, (uint64_t)tm.day, 2); break;
		case D_DAY_SPACE:
			if (tm.day < 10)
				sr_fmt_buf_putc(out, ' ');
			sr_log__put_uint(out, (uint64_t)tm.day, 1);
			break;
		case D_HOUR: sr_log__put_uint(out, (uint64_t)tm.hour, 2); break;
		case D_MINUTE: sr_log__put_uint(out, (uint64_t)tm.minute, 2); break;
		case D_SECOND: sr_log__put_uint(out, (uint64_t)tm.second, 2); break;
		case D_FRACTION: {
			uint32_t v = (uint32_t)ns;
			for (int i = d->digits; i < 9; i++)
				v /= 10;
			sr_log__put_uint(out, v, d->digits);
			break;
		}
		case D_YDAY: sr_log__put_uint(out, (uint64_t)tm.yday + 1, 3); break;
		case D_MONTH_NAME: sr_fmt_buf_put(out, month_names[tm.month - 1], 3); break;
		case D_WDAY_NAME: sr_fmt_buf_put(out, wday_names[tm.wday], 3); break;
		case D_EPOCH: sr_log__put_int(out, sec); break;
		case D_TZ_OFFSET: sr_fmt_buf_put(out, "+0000", 5); break;
		case D_TZ_NAME: sr_fmt_buf_put(out, "UTC", 3); break;
		default: break;
		}
	}
}

static void
render_item(const sr_log_pattern *p, const item *it, const sr_log_event *ev, sr_fmt_buf *out)
{
	switch (it->kind) {
	case I_LITERAL: sr_fmt_buf_put(out, p->text + it->off, it->len); break;
	case I_DATE: render_date(p, it, ev->ts_ns, out, ev->signal_safe); break;
	case I_LEVEL: {
		const char *l = sr_log__level_upper(ev->level);
		sr_fmt_buf_put(out, l, strlen(l));
		break;
	}
	case I_CATEGORY: {
		const char *c = ev->category;
		if (c == NULL || c[0] == '\0')
			c = "root";
		sr_fmt_buf_put(out, c, strlen(c));
		break;
	}
	case I_THREAD: {
		size_t tl = strnlen(ev->thread, 16);
		if (tl > 0)
			sr_fmt_buf_put(out, ev->thread, tl);
		else
			sr_log__put_uint(out, ev->tid, 1);
		break;
	}
	case I_TID: sr_log__put_uint(out, ev->tid, 1); break;
	case I_MESSAGE: sr_log__put_message_escaped(ev, out); break;
	/* The key-value fields as the text layout writes them: " key=value" each (nothing without). */
	case I_FIELDS: sr_log__put_fields_logfmt(ev, out); break;
	case I_FILE:
		if (ev->site != NULL) {
			const char *f = sr_site_file_base(ev->site);
			sr_fmt_buf_put(out, f, strlen(f));
		}
		break;
	case I_LINE:
		if (ev->site != NULL)
			sr_log__put_uint(out, (uint64_t)(ev->site->line < 0 ? 0 : ev->site->line), 1);
		break;
	case I_FUNCTION:
		if (ev->site != NULL && ev->site->function != NULL)
			sr_fmt_buf_put(out, ev->site->function, strlen(ev->site->function));
		break;
	case I_NEWLINE: sr_fmt_buf_putc(out, '\n'); break;
	default: break;
	}
}

void
sr_log__pattern_render(const sr_log_pattern *p, const sr_log_event *ev, sr_fmt_buf *out)
{
	for (size_t k = 0; k < p->nitems; k++) {
		const item *it = &p->items[k];
		if (it->min == 0 && it->max == 0) {
			render_item(p, it, ev, out);
			continue;
		}
		size_t start = out->len, want0 = out->want;
		render_item(p, it, ev, out);
		size_t got = out->len - start, full = out->want - want0;
		if (got < full)
			continue; /* cut at the end of the line: nothing more fits anyway */
		if (it->max > 0 && got > (size_t)it->max) {
			/* Keep the last max bytes, as Log4j's %.N does. */
			memmove(out->data + start, out->data + start + got - (size_t)it->max, (size_t)it->max);
			out->len = start + (size_t)it->max;
			out->want = want0 + (size_t)it->max;
			got = (size_t)it->max;
		}
		if (it->min > 0 && got < (size_t)it->min) {
			size_t pad = (size_t)it->min - got;
			if (it->left) {
				for (size_t i = 0; i < pad; i++)
					sr_fmt_buf_putc(out, ' ');
			} else {
				/* Shift right within the buffer, then fill the gap. */
				size_t room = out->cap - start;
				size_t keep = got + pad <= room ? got : (room > pad ? room - pad : 0);
				size_t fill = pad < room ? pad : room;
				memmove(out->data + start + fill, out->data + start, keep);
				memset(out->data + start, ' ', fill);
				out->len = start + fill + keep;
				out->want = want0 + got + pad;
			}
		}
	}
}
