/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_log_args.c: the logging macros' arguments, typed at compile time
 * (sr_log_args.h): every conversion and length modifier the codec supports
 * comes out of SR_INFO as snprintf prints it, whether the site copies its
 * arguments by C type (the fast path) or converts them by the format (a
 * '*' precision, types that differ from the format's); each argument is
 * evaluated once; records to cut, a full ring and the baseline modes leave
 * the fast path with the same text.  Built twice: its ring-mode loggers use
 * the shared ring, and as test_log_args_per_thread (TL_PRODUCER_PER_THREAD)
 * per-thread rings (the default); both write a site's calls after its first
 * inline (sr_log_fast.h).
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "test_log_support.h"

static tl_setup setup;
static sr_log *logger;
static sr_category *cat;

/* The suite's config: the message layout, mode, and the shared ring (per-thread rings in the _per_thread build). */
static sr_log_config *
message_config(sr_log_mode mode)
{
	sr_log_config *c = tl_setup_begin(&setup);
	c->layout = SR_LOG_LAYOUT_MESSAGE;
	c->mode = mode;
#ifdef TL_PRODUCER_PER_THREAD
	if (mode == SR_LOG_MODE_RING)
		c->producer = SR_LOG_PRODUCER_PER_THREAD;
#else
	c->producer = SR_LOG_PRODUCER_SHARED;
#endif
	return c;
}

static void
open_config(const sr_log_config *c)
{
	logger = tl_open(c);
	cat = sr_log_root(logger);
}

static void
open_message_logger(sr_log_mode mode)
{
	open_config(message_config(mode));
}

static void
open_ring(void)
{
	open_message_logger(SR_LOG_MODE_RING);
}

static void
close_logger(void)
{
	sr_log_close(&logger);
	tl_setup_end(&setup);
}

/* The last line written, after a flush. */
static const char *
last_line(void)
{
	cr_assert_eq(sr_log_flush(logger), SR_OK);
	cr_assert_gt(setup.cap.count, 0, "no line written");
	return setup.cap.lines[setup.cap.count - 1];
}

/*
 * SR_INFO(fmt, ...) must print what snprintf(fmt, ...) prints, at a site's
 * first call (which decides how the site copies) and at its later ones
 * (which copy as decided: inline, with per-thread rings).
 */
#define EXPECT_AS_SNPRINTF(...) do { \
	char want_[1024]; \
	snprintf(want_, sizeof want_, __VA_ARGS__); \
	for (int call_ = 0; call_ < 2; call_++) \
		SR_INFO(cat, __VA_ARGS__); \
	cr_expect_str_eq(last_line(), want_, "format %s, a later call", #__VA_ARGS__); \
	cr_expect_str_eq(setup.cap.lines[setup.cap.count - 2], want_, "format %s, the first call", \
	    #__VA_ARGS__); \
} while (0)

TestSuite(log_args, .init = open_ring, .fini = close_logger);

Test(log_args, integers_of_every_size_print_as_snprintf_prints_them)
{
	signed char sc = -5;
	unsigned char uc = 250;
	short sh = -1234;
	unsigned short us = 65000;
	long l = -1234567890123L;
	unsigned long ul = 18446744073709551615UL;
	long long ll = -9223372036854775807LL - 1;
	size_t z = (size_t)-1;
	ptrdiff_t t = -42;
	intmax_t j = INTMAX_MIN;
	_Bool b = 1;
	enum { RED = 3 } e = RED;
	EXPECT_AS_SNPRINTF("%d %i %u %x %X %o", -7, 42, 4000000000u, 0xbeefu, 0xbeefu, 0755u);
	EXPECT_AS_SNPRINTF("%hhd %hhu %hd %hu", sc, uc, sh, us);
	EXPECT_AS_SNPRINTF("%ld %lu %lld %zu %td %jd", l, ul, ll, z, t, j);
	EXPECT_AS_SNPRINTF("%d %d %c", b, e, 'q');
	EXPECT_AS_SNPRINTF("[%-6d|%+d|% d|%06d|%#x|%#o]", 42, 42, 42, -42, 255u, 8u);
	EXPECT_AS_SNPRINTF("%*d|%-*d|%.*d", 8, 5, 6, 7, 4, 3);
}

Test(log_args, floating_point_prints_as_snprintf_prints_it)
{
	float f = 1.5f;
	double d = 3.14159265358979;
	long double ld = 2.718281828459045235L;
	EXPECT_AS_SNPRINTF("%f %e %E %g %G %a %A", d, d, d, d, d, d, d);
	EXPECT_AS_SNPRINTF("%f %.2f %10.3f %-10.1e|", f, d, d, d);
	EXPECT_AS_SNPRINTF("%Lf %Le %Lg %.3Lf", ld, ld, ld, ld);
	EXPECT_AS_SNPRINTF("%d %f %s %Lf %d", 1, d, "mixed", ld, 2);
}

Test(log_args, strings_pointers_and_characters_print_as_snprintf_prints_them)
{
	const char *s = "sixteen chars ok";
	char array[] = "an array decays";
	unsigned char ubytes[] = "unsigned bytes";
	int x = 0;
	EXPECT_AS_SNPRINTF("s=%s a=%s u=%s", s, array, ubytes);
	EXPECT_AS_SNPRINTF("[%10s][%-10s][%.3s][%.0s]", "right", "left", "truncate", "none");
	EXPECT_AS_SNPRINTF("%p %p", (void *)&x, (void *)NULL);
	/* A character pointer given to %p is a pointer, not a string. */
	EXPECT_AS_SNPRINTF("%p", (void *)s);
	SR_INFO(cat, "%p", s);
	char want[64];
	snprintf(want, sizeof want, "%p", (const void *)s);
	cr_expect_str_eq(last_line(), want);
	EXPECT_AS_SNPRINTF("%c%c%c %%", 'a', 'b', 'c');
	EXPECT_AS_SNPRINTF("no arguments at all");
}

/*
 * The inline path measures a string by whole aligned 16-byte blocks and
 * copies it with overlapping moves: every length at every alignment must
 * come out whole, and a string that ends just before an unmapped page must
 * be read without touching it (a read past the NUL there would fault).
 */
Test(log_args, strings_of_every_length_and_alignment_print_whole_even_before_an_unmapped_page)
{
	long page = sysconf(_SC_PAGESIZE);
	cr_assert_gt(page, 0);
	unsigned char *map = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(map, MAP_FAILED);
	cr_assert_eq(mprotect(map + page, (size_t)page, PROT_NONE), 0);
	char *guarded_end = (char *)map + page;
	char want[256];
	for (int len = 0; len <= 100; len++) {
		/* Ending at the guard page, then at each of the 16 alignments further from it. */
		for (int skew = 0; skew <= 16; skew++) {
			char *str = guarded_end - 1 - len - skew;
			for (int i = 0; i < len; i++)
				str[i] = (char)('a' + (i + skew) % 26);
			str[len] = '\0';
			memset(str + len + 1, 'x', (size_t)skew);  /* no NUL after the string's own */
			for (int call = 0; call < 2; call++)
				SR_INFO(cat, "<%s>", str);
			snprintf(want, sizeof want, "<%s>", str);
			cr_expect_str_eq(last_line(), want, "length %d, %d bytes before the unmapped page", len,
			    skew);
			cr_expect_str_eq(setup.cap.lines[setup.cap.count - 2], want, "length %d, the first call", len);
		}
	}
	/* Heap blocks of the string's own size: what memcheck checks reads against. */
	for (int len = 0; len <= 70; len++) {
		char *str = malloc((size_t)len + 1);
		cr_assert_not_null(str);
		memset(str, 'h', (size_t)len);
		str[len] = '\0';
		for (int call = 0; call < 2; call++)
			SR_INFO(cat, "<%s>", str);
		snprintf(want, sizeof want, "<%s>", str);
		free(str);
		cr_expect_str_eq(last_line(), want, "a heap string of length %d", len);
	}
	/* Strings side by side in one record: each copy must leave the one before it whole. */
	for (int a = 0; a <= 40; a += 3) {
		for (int b = 0; b <= 40; b += 5) {
			char first[64], second[64];
			memset(first, 'F', (size_t)a);
			first[a] = '\0';
			memset(second, 'S', (size_t)b);
			second[b] = '\0';
			for (int call = 0; call < 2; call++)
				SR_INFO(cat, "%s|%s|%d|%s", first, second, a + b, first + a / 2);
			snprintf(want, sizeof want, "%s|%s|%d|%s", first, second, a + b, first + a / 2);
			cr_expect_str_eq(last_line(), want, "lengths %d and %d", a, b);
		}
	}
	cr_assert_eq(munmap(map, (size_t)page * 2), 0);
}

#define TEN "0123456789"
#define HUNDRED TEN TEN TEN TEN TEN TEN TEN TEN TEN TEN

/*
 * A string literal or a const array is measured by the compiler (its length
 * a constant at the call site) and copied by moves of that size: every such
 * length must print whole, a null constant as "(null)", and one longer than
 * the smallest record limit is measured and cut at run time as any other.
 */
Test(log_args, strings_the_compiler_knows_print_whole_at_every_length)
{
	static const char sixteen[] = "sixteen chars ok";
	static const char forty[] = "forty characters, a const array, measured";
	EXPECT_AS_SNPRINTF("[%s]", "");
	EXPECT_AS_SNPRINTF("[%s]", "a");
	EXPECT_AS_SNPRINTF("[%s]", "abc");
	EXPECT_AS_SNPRINTF("[%s]", "seven c");
	EXPECT_AS_SNPRINTF("[%s]", "eight ch");
	EXPECT_AS_SNPRINTF("[%s]", "fifteen charact");
	EXPECT_AS_SNPRINTF("[%s]", sixteen);
	EXPECT_AS_SNPRINTF("[%s]", "seventeen charact");
	EXPECT_AS_SNPRINTF("[%s]", TEN TEN TEN "1");
	EXPECT_AS_SNPRINTF("[%s]", TEN TEN TEN "12");
	EXPECT_AS_SNPRINTF("[%s]", TEN TEN TEN "123");
	EXPECT_AS_SNPRINTF("[%s]", forty);
	EXPECT_AS_SNPRINTF("[%s]", HUNDRED);
	EXPECT_AS_SNPRINTF("[%s|%s|%d|%s]", "ab", sixteen, 7, HUNDRED HUNDRED HUNDRED);
	EXPECT_AS_SNPRINTF("[%s]", "embedded\0nul");
	const char *runtime = forty + 10;
	EXPECT_AS_SNPRINTF("[%s %s %s]", "known", runtime, "known again");
	/* glibc prints "(null)" for a NULL %s. */
	SR_INFO(cat, "[%s] [%s]", (const char *)NULL, "after");
	cr_expect_str_eq(last_line(), "[(null)] [after]");
	/* Longer than the smallest record limit (1,024): measured at run time, whole below this logger's. */
	static char want[1300];
	snprintf(want, sizeof want, "<%s>", HUNDRED HUNDRED HUNDRED HUNDRED HUNDRED HUNDRED HUNDRED HUNDRED
	    HUNDRED HUNDRED HUNDRED HUNDRED);
	for (int call = 0; call < 2; call++)
		SR_INFO(cat, "<%s>", HUNDRED HUNDRED HUNDRED HUNDRED HUNDRED HUNDRED HUNDRED HUNDRED
		    HUNDRED HUNDRED HUNDRED HUNDRED);
	cr_expect_str_eq(last_line(), want);
	cr_expect_str_eq(setup.cap.lines[setup.cap.count - 2], want);
	cr_expect_eq(tl_stats(logger).truncated_records, 0);
}

/* With the smallest limit, a known string that fits no record of it is cut, measured or not. */
Test(log_args, a_string_the_compiler_knows_is_cut_to_the_records_limit)
{
	close_logger();
	sr_log_config *c = message_config(SR_LOG_MODE_RING);
	c->max_message_bytes = 1024;
	open_config(c);
	for (int call = 0; call < 2; call++) {
		/* 1,000 characters: measured at compile time, below the smallest limit, the record above it. */
		SR_INFO(cat, "<%s>", HUNDRED HUNDRED HUNDRED HUNDRED HUNDRED HUNDRED HUNDRED HUNDRED HUNDRED HUNDRED);
		const char *line = last_line();
		cr_expect(strstr(line, SR_FMT_TRUNCATION_MARKER ">") != NULL, "call %d: %.80s...", call, line);
		/* 1,100: measured at run time. */
		SR_INFO(cat, "<%s>", HUNDRED HUNDRED HUNDRED HUNDRED HUNDRED HUNDRED HUNDRED HUNDRED HUNDRED HUNDRED
		    HUNDRED);
		line = last_line();
		cr_expect(strstr(line, SR_FMT_TRUNCATION_MARKER ">") != NULL, "call %d: %.80s...", call, line);
	}
	cr_expect_eq(tl_stats(logger).truncated_records, 4);
	/* 900 characters fit. */
	EXPECT_AS_SNPRINTF("<%s>", HUNDRED HUNDRED HUNDRED HUNDRED HUNDRED HUNDRED HUNDRED HUNDRED HUNDRED);
}

Test(log_args, a_null_string_prints_as_glibc_prints_it)
{
	const char *none = NULL;
	SR_INFO(cat, "[%s] [%.2s]", none, none);
	char want[64];
	/* glibc prints "(null)" for a NULL %s, and nothing of it past a precision below 6. */
	snprintf(want, sizeof want, "[%s] [%.2s]", "(null)", "");
	cr_expect_str_eq(last_line(), want);
}

Test(log_args, a_star_precision_bounds_the_string_through_the_converting_path)
{
	/* The bound of %.*s is another argument: such a site converts instead of copying by type. */
	EXPECT_AS_SNPRINTF("[%.*s] [%.*s] [%.*s]", 3, "abcdef", 0, "xyz", -1, "negative means none");
}

/* %m and the ' flag are glibc's, which -Wpedantic reports as not ISO C. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat"
Test(log_args, glibc_extensions_print_as_glibc_prints_them)
{
	EXPECT_AS_SNPRINTF("%'d %'.2f", 1234567, 9876543.21);
}

Test(log_args, percent_m_prints_the_callers_errno)
{
	errno = ENOENT;
	SR_INFO(cat, "open: %m");
	char want[128];
	snprintf(want, sizeof want, "open: %s", strerror(ENOENT));
	cr_expect_str_eq(last_line(), want);
	cr_expect_eq(errno, ENOENT, "logging never changes errno");
}
#pragma GCC diagnostic pop

static int evaluations;

static int
counted(int v)
{
	evaluations++;
	return v;
}

Test(log_args, each_argument_is_evaluated_once_and_not_at_all_when_disabled)
{
	evaluations = 0;
	SR_INFO(cat, "%d %d %s", counted(1), counted(2), counted(3) ? "three" : "none");
	cr_expect_eq(evaluations, 3);
	cr_expect_str_eq(last_line(), "1 2 three");
	evaluations = 0;
	SR_DEBUG(cat, "%d", counted(4));
	cr_expect_eq(evaluations, 0, "a disabled level evaluates nothing");
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat"
#pragma GCC diagnostic ignored "-Wformat-extra-args"
Test(log_args, arguments_whose_types_differ_from_the_format_are_converted_by_the_format)
{
	/* The compiler warns about each of these; the logger still prints values, never garbage. */
	long big = 7;
	SR_INFO(cat, "%d|%ld|%f", big, 5, 2);
	cr_expect_str_eq(last_line(), "7|5|2.000000");
	SR_INFO(cat, "%d and %d", 1);
	cr_expect_str_eq(last_line(), "1 and 0", "a missing argument reads as zero");
	SR_INFO(cat, "%s", 12);
	cr_expect_str_eq(last_line(), "(null)", "a number given to %%s reads as NULL");
	SR_INFO(cat, "%d", 1, 2, 3);
	cr_expect_str_eq(last_line(), "1", "extra arguments are ignored");
}
#pragma GCC diagnostic pop

Test(log_args, a_record_too_long_is_cut_with_the_marker_as_before)
{
	static char huge[8192];
	memset(huge, 'h', sizeof huge - 1);
	SR_INFO(cat, "<%s>", huge);
	const char *line = last_line();
	cr_expect(strstr(line, SR_FMT_TRUNCATION_MARKER ">") != NULL, "%.80s...", line);
	cr_expect_lt(strlen(line), sizeof huge);
	cr_expect_eq(tl_stats(logger).truncated_records, 1);
}

/*
 * A ring of 16 slots of 64 bytes: records of one to five slots keep crossing
 * its physical end, where the inline call assembles the record first and
 * copies it across (a shared ring) or leaves it to the general path (a
 * thread's ring).  Every line must come out whole and in order.
 */
Test(log_args, records_that_cross_the_rings_end_print_whole)
{
	close_logger();
	sr_log_config *c = message_config(SR_LOG_MODE_RING);
	c->ring_slots = 16;
	c->thread_ring_slots = 16;
	c->slot_size = 64;
	c->max_message_bytes = 1024;
	open_config(c);
	char text[300];
	memset(text, 't', sizeof text - 1);
	text[sizeof text - 1] = '\0';
	size_t before = setup.cap.count;
	for (int i = 0; i < 300; i++)
		SR_INFO(cat, "%d [%s] %d", i, text + sizeof text - 1 - (size_t)(i * 37 % 250), -i);
	cr_assert_eq(sr_log_flush(logger), SR_OK);
	cr_assert_eq(setup.cap.count - before, 300);
	for (int i = 0; i < 300; i++) {
		char want[400];
		snprintf(want, sizeof want, "%d [%s] %d", i, text + sizeof text - 1 - (size_t)(i * 37 % 250), -i);
		cr_expect_str_eq(setup.cap.lines[before + (size_t)i], want, "call %d", i);
	}
}

Test(log_args, a_full_ring_applies_the_policy_to_macro_calls)
{
	close_logger();
	sr_log_config *c = message_config(SR_LOG_MODE_RING);
	c->producer = SR_LOG_PRODUCER_SHARED;  /* in either build: ring_slots sizes the shared ring */
	c->ring_slots = 64;
	c->full_policy = SR_LOG_FULL_DROP;
	open_config(c);
	tl_capture_pause(&setup.cap);
	SR_INFO(cat, "%s", "stuck");
	tl_capture_wait_stuck(&setup.cap);
	for (int i = 0; i < 200; i++)
		SR_INFO(cat, "fill %d", i);
	tl_capture_resume(&setup.cap);
	cr_assert_eq(sr_log_flush(logger), SR_OK);
	sr_log_counters st = tl_stats(logger);
	cr_expect_gt(st.dropped, 0, "64 slots cannot hold 200 records while the sink is stuck");
	cr_expect_eq(st.accepted + st.dropped, 201, "every call accepted or counted as dropped");
}

static void
baseline_mode(sr_log_mode mode)
{
	close_logger();
	open_message_logger(mode);
	EXPECT_AS_SNPRINTF("%s=%d %.2f %p", "queue or sync", 3, 0.5, (void *)&setup);
}

Test(log_args, the_queue_and_sync_modes_print_the_same_text)
{
	baseline_mode(SR_LOG_MODE_QUEUE);
	baseline_mode(SR_LOG_MODE_SYNC);
}

Test(log_args, a_thread_prepared_for_per_thread_rings_logs_as_any_other)
{
	close_logger();
	sr_log_config *c = message_config(SR_LOG_MODE_RING);
	c->producer = SR_LOG_PRODUCER_PER_THREAD;
	open_config(c);
	cr_expect_eq(sr_log_thread_prepare(logger), SR_OK);
	cr_expect_eq(sr_log_thread_prepare(logger), SR_OK, "a second prepare finds the ring made");
	EXPECT_AS_SNPRINTF("%s %d %f", "per thread", 42, 0.25);
	cr_expect_eq(sr_log_thread_prepare(NULL), SR_EINVAL);
}

Test(log_args, prepare_is_a_no_op_where_there_is_nothing_to_make)
{
	cr_expect_eq(sr_log_thread_prepare(logger), SR_OK, "shared producer");
	sr_log_shutdown(logger);
	cr_expect_eq(sr_log_thread_prepare(logger), SR_ESTATE, "after shutdown");
}
