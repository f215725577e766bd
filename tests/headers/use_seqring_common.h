/* SPDX-License-Identifier: Apache-2.0 */
/*
 * use_seqring_common.h: what the C++ program (use_seqring.cpp) and the C99 program
 * (use_seqring_c99.c) both check, written once in the subset of C99 and C++11 they share, so
 * that each language compiles the same inline code of the headers and runs it:
 *   - at compile time, that the log macros give each argument type the kind the C table
 *     (SR_LOG__TYPES) gives it (C++ maps types by overloads, C by _Generic);
 *   - the ring: a producer claims and publishes through the inline sequencer, a batch event
 *     processor consumes; every event arrives once, in order, with its value;
 *   - the logger: each log macro, every argument type, in the shared ring, the per-thread ring
 *     (the macros' inline path, sr_log_fast.h) and sync mode, to a file sink with the message
 *     layout; every line read back must equal snprintf's rendering of the same call.
 * run_programs.sh builds and runs both; each exits non-zero on the first mismatch.
 * check_headers.sh compiles this file in all 14 modes too, through macros_check.c.
 */
#ifndef USE_SEQRING_COMMON_H
#define USE_SEQRING_COMMON_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <seqring/sr_log.h>
#include <seqring/sr_processor.h>
#include <seqring/sr_ring.h>
#include <seqring/sr_sequencer.h>

/* ---- the argument kinds, at compile time ---- */

enum use_color { USE_RED, USE_BLUE };
struct use_point { int x; };

/* A negative array size fails the compile (no static assertion in C99). */
#define USE_CHECK_KIND(name, expr, kind) \
	typedef char use_kind_##name[SR_LOG__KIND(expr) == (kind) ? 1 : -1];
#define USE_KINDS(M) \
	M(bool_, (bool)0, SR_FMT_ARG_INT) M(char_, (char)0, SR_FMT_ARG_INT) \
	M(schar, (signed char)0, SR_FMT_ARG_INT) M(uchar, (unsigned char)0, SR_FMT_ARG_INT) \
	M(short_, (short)0, SR_FMT_ARG_INT) M(ushort, (unsigned short)0, SR_FMT_ARG_INT) \
	M(int_, 0, SR_FMT_ARG_INT) M(uint, 0u, SR_FMT_ARG_INT) M(wchar, (wchar_t)0, SR_FMT_ARG_INT) \
	M(enum_, USE_BLUE, SR_FMT_ARG_INT) M(int8, (int8_t)0, SR_FMT_ARG_INT) \
	M(uint32, (uint32_t)0, SR_FMT_ARG_INT) \
	M(long_, 0L, SR_FMT_ARG_LONG) M(ulong, 0UL, SR_FMT_ARG_LONG) \
	M(llong, 0LL, SR_FMT_ARG_LONG) M(ullong, 0ULL, SR_FMT_ARG_LONG) \
	M(size, sizeof(int), SR_FMT_ARG_LONG) M(int64, (int64_t)0, SR_FMT_ARG_LONG) \
	M(float_, 0.0f, SR_FMT_ARG_DOUBLE) M(double_, 0.0, SR_FMT_ARG_DOUBLE) \
	M(ldouble, 0.0L, SR_FMT_ARG_LDOUBLE) \
	M(literal, "literal", SR_FMT_ARG_STR) M(str, (char *)0, SR_FMT_ARG_STR) \
	M(cstr, (const char *)0, SR_FMT_ARG_STR) M(sstr, (signed char *)0, SR_FMT_ARG_STR) \
	M(csstr, (const signed char *)0, SR_FMT_ARG_STR) M(ustr, (unsigned char *)0, SR_FMT_ARG_STR) \
	M(custr, (const unsigned char *)0, SR_FMT_ARG_STR) \
	M(voidp, (void *)0, SR_FMT_ARG_PTR) M(cvoidp, (const void *)0, SR_FMT_ARG_PTR) \
	M(intp, (const int *)0, SR_FMT_ARG_PTR) M(vcharp, (volatile char *)0, SR_FMT_ARG_PTR) \
	M(structp, (struct use_point *)0, SR_FMT_ARG_PTR)
USE_KINDS(USE_CHECK_KIND)

/* ---- failures ---- */

static void use_fail(const char *what, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void
use_fail(const char *what, ...)
{
	va_list ap;
	va_start(ap, what);
	fprintf(stderr, "%s: ", USE_PROGRAM);
	vfprintf(stderr, what, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

/* ---- the ring ---- */

typedef struct use_event {
	int64_t sequence;
	int64_t value;
} use_event;

typedef struct use_consumer {
	int64_t next;      /* the sequence expected next */
	int64_t bad;       /* the first sequence whose event was wrong, or -1 */
	int64_t batches;
} use_consumer;

#define USE_RING_SLOTS 16
#define USE_RING_EVENTS 10000
#define USE_VALUE_OF(seq) ((seq) * 7 + 3)

static int
use_on_event(void *ctx, void *slot, int64_t sequence, bool end_of_batch)
{
	use_consumer *c = (use_consumer *)ctx;
	const use_event *e = (const use_event *)slot;
	if (c->bad < 0 && (sequence != c->next || e->sequence != sequence ||
	    e->value != USE_VALUE_OF(sequence)))
		c->bad = sequence;
	c->next = sequence + 1;
	if (end_of_batch)
		c->batches++;
	return 0;
}

/*
 * USE_RING_EVENTS events through a 16-slot ring (it wraps hundreds of times, so the producer
 * waits on the processor's gating sequence), claimed one or two at a time in `mode`.
 */
static void
use_check_ring(enum sr_producer_mode mode)
{
	sr_error err;
	sr_error_clear(&err);
	sr_ring *ring = sr_ring_create(USE_RING_SLOTS, 64, NULL, NULL, &err);
	if (ring == NULL)
		use_fail("sr_ring_create: %s", err.message);
	sr_sequencer_config sc;
	sr_sequencer_config_default(&sc, USE_RING_SLOTS, mode);
	sr_sequencer *seq = sr_sequencer_create(&sc, &err);
	if (seq == NULL)
		use_fail("sr_sequencer_create: %s", err.message);

	use_consumer consumer;
	consumer.next = 0;
	consumer.bad = -1;
	consumer.batches = 0;
	sr_processor_config pc;
	memset(&pc, 0, sizeof pc);
	pc.ring = ring;
	pc.sequencer = seq;
	pc.handler.ctx = &consumer;
	pc.handler.on_event = use_on_event;
	pc.handler.name = "use_seqring";
	sr_processor *p = sr_processor_create(&pc, &err);
	if (p == NULL)
		use_fail("sr_processor_create: %s", err.message);
	if (sr_sequencer_add_gating(seq, sr_processor_sequence(p)) != SR_OK)
		use_fail("sr_sequencer_add_gating failed");
	if (sr_processor_start(p, &err) != SR_OK)
		use_fail("sr_processor_start: %s", err.message);

	for (int64_t done = 0; done < USE_RING_EVENTS;) {
		int64_t n = done % 3 == 2 && done + 2 <= USE_RING_EVENTS ? 2 : 1;
		int64_t first;
		int rc = sr_sequencer_claim_n(seq, n, &first);
		if (rc != SR_OK)
			use_fail("sr_sequencer_claim_n(%lld): %s", (long long)n, sr_strerror(rc));
		for (int64_t s = first; s < first + n; s++) {
			use_event *e = (use_event *)sr_ring_slot(ring, s);
			e->sequence = s;
			e->value = USE_VALUE_OF(s);
		}
		sr_sequencer_publish_range(seq, first, first + n - 1);
		done += n;
	}
	if (sr_processor_drain_and_halt(p) != SR_OK || sr_processor_join(p) != SR_OK)
		use_fail("sr_processor_drain_and_halt or sr_processor_join failed");
	if (consumer.bad >= 0)
		use_fail("ring (%s producer): event %lld arrived wrong or out of order",
		    mode == SR_PRODUCER_SINGLE ? "single" : "multi", (long long)consumer.bad);
	if (consumer.next != USE_RING_EVENTS)
		use_fail("ring: %lld events consumed, expected %d", (long long)consumer.next,
		    USE_RING_EVENTS);
	if (sr_sequence_get(sr_processor_sequence(p)) != USE_RING_EVENTS - 1)
		use_fail("ring: the processor's sequence is %lld, expected %d",
		    (long long)sr_sequence_get(sr_processor_sequence(p)), USE_RING_EVENTS - 1);
	sr_processor_destroy(p);
	sr_sequencer_destroy(seq);
	sr_ring_destroy(ring);
}

/* ---- the logger ---- */

/* What the file must hold: every expected line, in order. */
static char use_expected[1 << 16];
static size_t use_expected_len;

/* Appends printf's rendering of one call, and its newline, to the expected text. */
static void use_expect(const char *format, ...) __attribute__((format(printf, 1, 2)));
static void
use_expect(const char *format, ...)
{
	va_list ap;
	va_start(ap, format);
	int n = vsnprintf(use_expected + use_expected_len,
	    sizeof use_expected - use_expected_len - 1, format, ap);
	va_end(ap);
	if (n < 0 || (size_t)n + 2 > sizeof use_expected - use_expected_len)
		use_fail("expected lines overflow their buffer");
	use_expected_len += (size_t)n;
	use_expected[use_expected_len++] = '\n';
	use_expected[use_expected_len] = '\0';
}

/* One log call, and what it must write: the same format and arguments through snprintf. */
#define USE_LOG(cat, ...) do { SR_INFO(cat, __VA_ARGS__); use_expect(__VA_ARGS__); } while (0)

/* The calls both languages make: each macro and every argument type the table knows. */
static void
use_log_common(sr_category *cat, int round)
{
	int i = -42 - round;
	unsigned u = 4000000000u;
	long l = -1234567890123L;
	unsigned long ul = 18446744073709551615UL;
	long long ll = -9000000000000000000LL;
	unsigned long long ull = 12345678901234567890ULL;
	size_t z = sizeof(use_event);
	ptrdiff_t pd = -7;
	int64_t i64 = INT64_MIN;
	uint32_t u32 = UINT32_MAX;
	short s = -12345;
	unsigned short us = 65535;
	signed char sc = -128;
	unsigned char uc = 255;
	char c = 'q';
	bool b = true;
	float f = 0.1f;
	double d = 3.25;
	long double ld = 2.718281828459045235360287L;
	const char *str = "a const char* string";
	char buf[16] = "a char array";
	const unsigned char *ustr = (const unsigned char *)"unsigned";
	void *p = &i;
	const int *ip = &i;
	enum use_color color = USE_BLUE;

	/* The brief's line, hard-coded: an int, a double and a string. */
	SR_INFO(cat, "int %d, double %.3f, string %s", 42, 2.5, "text");
	use_expect("int 42, double 2.500, string text");
	USE_LOG(cat, "no argument, round %d", round);
	USE_LOG(cat, "%d %u %ld %lu %lld %llu", i, u, l, ul, ll, ull);
	USE_LOG(cat, "%zu %td %hd %hu %hhd %hhu", z, pd, s, us, sc, uc);
	USE_LOG(cat, "%" PRId64 " %" PRIu32 " %" PRIx64, i64, u32, (uint64_t)i64);
	USE_LOG(cat, "%c %d %d %x %o %#X", c, b, color, u, (unsigned)i, 48879u);
	USE_LOG(cat, "%f %e %g %a %.10Lf", f, d, d * 1e10, d, ld);
	USE_LOG(cat, "[%s] [%s] [%s] [%.3s] [%s]", str, buf, "a literal", str, (const char *)ustr);
	USE_LOG(cat, "[%*d] [%-*d] [%.*s] [%10.4f]", 6, i, 6, i, 4, buf, d);
	USE_LOG(cat, "%p %p %p %%", p, (const void *)ip, (void *)buf);
	USE_LOG(cat, "%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d "
	    "%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d",
	    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
	    17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, round);
	if (SR_LOG_ENABLED(cat, SR_LOG_DEBUG))
		use_fail("SR_LOG_ENABLED: debug is enabled at level info");
	SR_DEBUG(cat, "not written: debug is below info %d", i);
	SR_WARN(cat, "warn %d", 1);
	SR_ERROR(cat, "error %d", 2);
	SR_FATAL(cat, "fatal %d", 3);
	SR_LOG(cat, SR_LOG_INFO, "SR_LOG at info %s", "too");
	use_expect("warn 1");
	use_expect("error 2");
	use_expect("fatal 3");
	use_expect("SR_LOG at info too");
}

/* Opens a logger of `mode` and `producer` writing the message layout to `path`. */
static sr_log *
use_open(const char *path, sr_log_mode mode, sr_log_producer producer)
{
	sr_log_config config;
	sr_log_config_default(&config);
	config.ignore_environment = true;
	config.mode = mode;
	config.producer = producer;
	config.ring_slots = 1024;
	config.thread_ring_slots = 1024;
	config.layout = SR_LOG_LAYOUT_MESSAGE;
	sr_sink_config sink = sr_sink_file(path);
	config.sinks = &sink;
	config.sink_count = 1;
	sr_error err;
	sr_error_clear(&err);
	remove(path);
	sr_log *log = sr_log_open(&config, &err);
	if (log == NULL)
		use_fail("sr_log_open(%s): %s", path, err.message);
	use_expected_len = 0;
	use_expected[0] = '\0';
	return log;
}

/* Closes the logger and compares the file with the expected lines. */
static void
use_close_and_check(sr_log **log, const char *path, const char *what)
{
	if (sr_log_close(log) != SR_OK)
		use_fail("%s: sr_log_close failed", what);
	static char got[sizeof use_expected];
	FILE *in = fopen(path, "rb");
	if (in == NULL)
		use_fail("%s: cannot open %s", what, path);
	size_t n = fread(got, 1, sizeof got - 1, in);
	fclose(in);
	got[n] = '\0';
	if (n == use_expected_len && memcmp(got, use_expected, n) == 0)
		return;
	/* The first line that differs. */
	const char *g = got, *e = use_expected;
	int line = 1;
	for (;;) {
		size_t gl = strcspn(g, "\n"), el = strcspn(e, "\n");
		if (gl != el || memcmp(g, e, gl) != 0)
			use_fail("%s: line %d of %s is\n  '%.*s'\nexpected\n  '%.*s'", what, line, path,
			    (int)gl, g, (int)el, e);
		if (g[gl] == '\0' || e[el] == '\0')
			use_fail("%s: %s has %zu bytes, expected %zu", what, path, n, use_expected_len);
		g += gl + 1;
		e += el + 1;
		line++;
	}
}

#endif /* USE_SEQRING_COMMON_H */
