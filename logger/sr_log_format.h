/*
 * sr_log_format.h: the deferred-format codec of the logger.
 *
 * A log call does not format.  Its call site (sr_site, a static descriptor
 * made by the logging macro) carries the printf-style format; the first call
 * through a site parses the format once into an argument signature (one type
 * per argument) cached in the site.  Every call then copies its arguments in
 * binary into a record (integers, floating point and pointers by value,
 * strings by value, NUL-terminated, truncated with SR_FMT_TRUNCATION_MARKER
 * when the record would exceed its limit); the consumer walks the format again
 * and renders each conversion with one snprintf call on the decoded argument,
 * so the text equals what snprintf would have printed for the same arguments.
 *
 * Supported: the conversions d i o u x X e E f F g G a A c s p % and m (glibc's
 * strerror(errno); the caller's errno is captured at the call), the flags
 * - + space # 0 ' I, widths and precisions (also '*'), and the length
 * modifiers hh h l ll j z t L (q as ll).  Refused with an error that names the
 * conversion: %n (it writes through a pointer), wide characters and strings
 * (%lc %ls %C %S), positional arguments (%1$d), any other conversion, more
 * than SR_SITE_MAX_ARGS arguments, and widths or precisions above INT_MAX.
 * A refused format is never passed to printf: the logger writes an error line
 * that names the problem and counts it (sr_log_counters.format_errors).
 *
 * Record layout (all copies through memcpy, no alignment assumed):
 *   header (sr_log.c), then the value area: each argument in format order,
 *   int 4 bytes, long/long long/intmax/size_t/ptrdiff/pointer/double 8 bytes,
 *   long double 16 bytes, string 4 bytes (its length, or SR_FMT_NULL_STRING),
 *   then the string area: each non-NULL string's bytes and a NUL, in order.
 *
 * This header is the codec's interface for the logger and for tests; the
 * logging API is sr_log.h.
 */
#ifndef SR_LOG_FORMAT_H
#define SR_LOG_FORMAT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sr_atomic.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Most arguments one call site may take ('*' widths and precisions count). */
#define SR_SITE_MAX_ARGS 32
/* Largest value area: every argument a long double. */
#define SR_FMT_MAX_VALUE_BYTES (SR_SITE_MAX_ARGS * 16)
/* Appended where a string or a line had to be cut. */
#define SR_FMT_TRUNCATION_MARKER "[truncated]"
#define SR_FMT_TRUNCATION_MARKER_LEN (sizeof SR_FMT_TRUNCATION_MARKER - 1)
/* The length stored for a NULL string argument. */
#define SR_FMT_NULL_STRING UINT32_MAX

/* Argument types of a signature. */
enum sr_fmt_arg {
	SR_FMT_ARG_INT = 1,     /* int (also char, short: promoted), 4 bytes */
	SR_FMT_ARG_LONG,        /* long, long long, intmax_t, size_t, ptrdiff_t: 8 bytes */
	SR_FMT_ARG_DOUBLE,      /* double (float promoted): 8 bytes */
	SR_FMT_ARG_LDOUBLE,     /* long double: 16 bytes */
	SR_FMT_ARG_PTR,         /* void *: 8 bytes */
	SR_FMT_ARG_STR,         /* const char *: by value */
	SR_FMT_ARG_WIDTH,       /* int from a '*' width */
	SR_FMT_ARG_PRECISION    /* int from a '*' precision (bounds the next %s) */
};

/* Precision markers in sr_fmt_sig.precision[] for string arguments. */
#define SR_FMT_PREC_NONE (-1)    /* %s: read up to the NUL */
#define SR_FMT_PREC_STAR (-2)    /* %.*s: the preceding SR_FMT_ARG_PRECISION */

/* Why a format was refused (sr_fmt_sig.error). */
enum sr_fmt_error {
	SR_FMT_OK = 0,
	SR_FMT_E_N,             /* %n */
	SR_FMT_E_UNSUPPORTED,   /* unknown conversion or length combination */
	SR_FMT_E_WIDE,          /* %lc %ls %C %S */
	SR_FMT_E_POSITIONAL,    /* %1$d */
	SR_FMT_E_INCOMPLETE,    /* '%' ... at the end of the format */
	SR_FMT_E_RANGE,         /* width or precision above INT_MAX */
	SR_FMT_E_TOO_MANY       /* more than SR_SITE_MAX_ARGS arguments */
};

/* A format's argument signature: what one call must copy. */
typedef struct sr_fmt_sig {
	uint8_t nargs;
	uint8_t nstrings;
	uint8_t error;                      /* enum sr_fmt_error */
	uint16_t value_bytes;               /* size of the value area */
	uint8_t type[SR_SITE_MAX_ARGS];     /* enum sr_fmt_arg */
	int32_t precision[SR_SITE_MAX_ARGS];/* strings: a precision or SR_FMT_PREC_* */
} sr_fmt_sig;

/* sr_site.state */
enum { SR_SITE_UNPARSED = 0, SR_SITE_PARSING = 1, SR_SITE_READY = 2 };

/*
 * A call site.  The logging macros make one `static` per call, so location
 * costs nothing at run time.  The first four fields are constant; the rest is
 * filled by the first call through the site and then only read.  A site must
 * outlive every record made through it (a static one does, unless its code is
 * unloaded with dlclose while a logger still holds its records).
 */
typedef struct sr_site {
	const char *format;
	const char *file;
	const char *function;
	int32_t line;
	int32_t level;                      /* enum sr_log_level */
	/*
	 * SR_SITE_READY once sig and file_base are filled: the parsing thread's
	 * store-release pairs with the load-acquire in sr_site_sig.
	 */
	sr_atomic_i32 state;
	uint16_t file_base;                 /* offset of the file's base name */
	sr_fmt_sig sig;
} sr_site;

/*
 * Parses format into *sig.  Returns SR_FMT_OK or the error (also stored in
 * sig->error); when msg is given it receives a message naming the offending
 * conversion, e.g. "conversion '%n' is refused: it writes through a pointer".
 */
int sr_fmt_parse(const char *format, sr_fmt_sig *sig, char *msg, size_t msg_size);

/* Slow path of sr_site_sig: parses the site, or into *scratch if another thread is. */
const sr_fmt_sig *sr_site__parse(sr_site *site, sr_fmt_sig *scratch);

/*
 * The site's signature: after the first call one load-acquire.  When another
 * thread is parsing the same site at that moment, this thread parses into
 * *scratch instead of waiting (parsing is deterministic).
 */
static inline const sr_fmt_sig *
sr_site_sig(sr_site *site, sr_fmt_sig *scratch)
{
	/* pairs with the store-release of SR_SITE_READY in sr_site__parse */
	if (__builtin_expect(sr_atomic_load_acquire_i32(&site->state) == SR_SITE_READY, 1))
		return &site->sig;
	return sr_site__parse(site, scratch);
}

/* The base name of the site's file (cached offset when the site is parsed). */
const char *sr_site_file_base(const sr_site *site);

/*
 * The arguments of one call, gathered from its va_list: the value area ready
 * to copy, and each string's address and length.
 */
typedef struct sr_fmt_gather {
	const sr_fmt_sig *sig;
	uint16_t value_bytes;
	uint8_t nstrings;
	bool truncated;                     /* a string was cut to fit */
	size_t string_bytes;                /* bytes of the string area */
	const char *str[SR_SITE_MAX_ARGS];
	uint32_t len[SR_SITE_MAX_ARGS];     /* bytes the string has (or its precision allows) */
	uint32_t take[SR_SITE_MAX_ARGS];    /* bytes stored, marker included */
	uint16_t len_at[SR_SITE_MAX_ARGS];  /* offset of its length field in values */
	unsigned char values[SR_FMT_MAX_VALUE_BYTES];
} sr_fmt_gather;

/*
 * Reads every argument of sig from *ap into g (strings are measured, not
 * copied; a string is measured no further than str_cap bytes, or its
 * precision, since a record never holds more).  0 means no cap.
 */
void sr_fmt_gather_args(sr_fmt_gather *g, const sr_fmt_sig *sig, size_t str_cap, va_list *ap);

/*
 * Decides how many bytes of each string fit when the record (header_bytes +
 * value area + string area) may not exceed max_record: strings are kept
 * whole when everything fits, else cut in order, each cut one ending with
 * SR_FMT_TRUNCATION_MARKER.  Returns the record's size (<= max_record when
 * max_record >= header_bytes + SR_FMT_MIN_BUDGET).
 */
size_t sr_fmt_fit(sr_fmt_gather *g, size_t header_bytes, size_t max_record);

/* Smallest record budget beyond the header that fits any signature. */
#define SR_FMT_MIN_BUDGET (SR_FMT_MAX_VALUE_BYTES + SR_SITE_MAX_ARGS * (SR_FMT_TRUNCATION_MARKER_LEN + 1))

/*
 * Where a record is written: a linear buffer, or a ring's byte array that
 * wraps at `wrap` bytes back to `base`.
 */
typedef struct sr_fmt_writer {
	unsigned char *base;
	size_t pos;
	size_t wrap;                        /* SIZE_MAX for a linear buffer */
} sr_fmt_writer;

static inline void
sr_fmt_put(sr_fmt_writer *w, const void *src, size_t len)
{
	if (__builtin_expect(w->pos + len <= w->wrap, 1)) {
		memcpy(w->base + w->pos, src, len);
		w->pos += len;
		if (w->pos == w->wrap)
			w->pos = 0;
	} else {
		size_t first = w->wrap - w->pos;
		memcpy(w->base + w->pos, src, first);
		memcpy(w->base, (const unsigned char *)src + first, len - first);
		w->pos = len - first;
	}
}

/* Writes the value area and the string area (after sr_fmt_fit). */
void sr_fmt_write(const sr_fmt_gather *g, sr_fmt_writer *w);

/*
 * A bounded text buffer.  Appends never overflow: what does not fit is cut,
 * and `want` keeps counting what would have been written, so that a caller
 * can tell (want > len) and retry with a bigger buffer.  data must have room
 * for cap + SR_FMT_LINE_RESERVE bytes: the reserve holds the marker, the
 * line end and snprintf's NUL after a cut.
 */
typedef struct sr_fmt_buf {
	char *data;
	size_t len;
	size_t cap;
	size_t want;
} sr_fmt_buf;

#define SR_FMT_LINE_RESERVE (SR_FMT_TRUNCATION_MARKER_LEN + 4)

static inline void
sr_fmt_buf_put(sr_fmt_buf *b, const char *s, size_t n)
{
	size_t room = b->cap - b->len;
	size_t k = n < room ? n : room;
	memcpy(b->data + b->len, s, k);
	b->len += k;
	b->want += n;
}

static inline void
sr_fmt_buf_putc(sr_fmt_buf *b, char c)
{
	if (b->len < b->cap)
		b->data[b->len++] = c;
	b->want++;
}

static inline bool
sr_fmt_buf_truncated(const sr_fmt_buf *b)
{
	return b->want > b->len;
}

/*
 * Renders the message of a record: walks format, copying literal text and
 * rendering each conversion from the value area (values, values_len bytes)
 * and the string area (strings, strings_len bytes), with errno_value for %m.
 * Inputs that do not match the format (a corrupt record) render as
 * "<bad record>" instead of being read past their end.
 */
void sr_fmt_render(sr_fmt_buf *out, const char *format,
    const unsigned char *values, size_t values_len,
    const unsigned char *strings, size_t strings_len, int errno_value);

/*
 * As sr_fmt_render, with no call that is not async-signal-safe (no
 * snprintf, no locale, no malloc), for the crash handler: integers,
 * characters, strings and pointers come out as printf prints them (flags,
 * width and precision included); floating-point values are printed by a
 * simpler routine whose last digits may differ from printf's; %m prints
 * "errno N".
 */
void sr_fmt_render_safe(sr_fmt_buf *out, const char *format,
    const unsigned char *values, size_t values_len,
    const unsigned char *strings, size_t strings_len, int errno_value);

/*
 * Renders a refused format's error text: "format error (<why>) in \"<fmt>\"".
 */
void sr_fmt_render_error(sr_fmt_buf *out, const char *format);

/*
 * snprintf through the deferred path: parses format, gathers the arguments,
 * fits them in a record of at most max_record bytes (0: unlimited), encodes,
 * decodes and renders into buf (size bytes, NUL-terminated when size > 0).
 * Returns the length of the full text (as snprintf), or -1 when the format
 * is refused (buf then holds the error text).  For tests and tools: the
 * logger itself never formats on the caller's thread in ring mode.
 */
int sr_fmt_snprintf(char *buf, size_t size, size_t max_record, const char *format, ...);
int sr_fmt_vsnprintf(char *buf, size_t size, size_t max_record, const char *format, va_list ap);

#ifdef __cplusplus
}
#endif

#endif /* SR_LOG_FORMAT_H */
