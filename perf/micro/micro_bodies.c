/* SPDX-License-Identifier: Apache-2.0 */
/*
 * micro_bodies.c: C bodies of the micro-benchmarks (see micro_bodies.h).
 *
 * Each body does one operation and is called through a function pointer from
 * the shim, so every figure includes one indirect call; the "call_overhead"
 * case (an empty body) measures it.
 *
 * Claim + publish cases run without a consumer: the sequencer has no gating
 * sequence, so the ring never fills and the claim's gating scan happens once
 * per lap, as on the fast path of a ring whose consumer keeps up.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "micro_bodies.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include <seqring/sr_ring.h>
#include <seqring/sr_sequencer.h>
#include <seqring/sr_time.h>

static char last_error[256];

const char *
micro_last_error(void)
{
	return last_error;
}

/* ------------------------------------------------------- claim + publish */

typedef struct seq_ctx {
	sr_ring *ring;
	sr_sequencer *seq;
} seq_ctx;

static void *
seq_setup(enum sr_producer_mode mode, enum sr_wait_kind kind)
{
	sr_error e;
	sr_error_clear(&e);
	seq_ctx *c = calloc(1, sizeof *c);
	if (c == NULL)
		return NULL;
	c->ring = sr_ring_create(1024, 8, NULL, NULL, &e);
	if (c->ring != NULL) {
		sr_sequencer_config sc;
		sr_sequencer_config_default(&sc, 1024, mode);
		sr_wait_config_default(&sc.wait, kind);
		c->seq = sr_sequencer_create(&sc, &e);
	}
	if (c->seq == NULL) {
		snprintf(last_error, sizeof last_error, "%s", e.message);
		sr_ring_destroy(c->ring);
		free(c);
		return NULL;
	}
	return c;
}

static void
seq_teardown(void *ctx)
{
	seq_ctx *c = ctx;
	sr_sequencer_destroy(c->seq);
	sr_ring_destroy(c->ring);
	free(c);
}

static void *setup_sp(int64_t kind) { return seq_setup(SR_PRODUCER_SINGLE, (enum sr_wait_kind)kind); }
static void *setup_mp(int64_t kind) { return seq_setup(SR_PRODUCER_MULTI, (enum sr_wait_kind)kind); }

static void
body_claim_publish(void *ctx)
{
	seq_ctx *c = ctx;
	int64_t s;
	sr_sequencer_claim(c->seq, &s);
	*(int64_t *)sr_ring_slot(c->ring, s) = s;
	sr_sequencer_publish(c->seq, s);
}

static void
body_try_claim_publish(void *ctx)
{
	seq_ctx *c = ctx;
	int64_t s;
	if (sr_sequencer_try_claim(c->seq, &s) == SR_OK) {
		*(int64_t *)sr_ring_slot(c->ring, s) = s;
		sr_sequencer_publish(c->seq, s);
	}
}

static void
body_claim10_publish_range(void *ctx)
{
	seq_ctx *c = ctx;
	int64_t first;
	sr_sequencer_claim_n(c->seq, 10, &first);
	for (int64_t k = 0; k < 10; k++)
		*(int64_t *)sr_ring_slot(c->ring, first + k) = first + k;
	sr_sequencer_publish_range(c->seq, first, first + 9);
}

/* ------------------------------------------------------------ ring write */

typedef struct write_ctx {
	sr_ring *ring;
	int64_t next;
	int64_t step;
	size_t len;
	unsigned char src[512];
} write_ctx;

static void *
setup_write(int64_t len)
{
	sr_error e;
	write_ctx *c = calloc(1, sizeof *c);
	if (c == NULL)
		return NULL;
	/* 64-byte slots, 1024 of them (64 KiB): a 512-byte record spans 8 slots. */
	c->ring = sr_ring_create(1024, 64, NULL, NULL, &e);
	if (c->ring == NULL) {
		snprintf(last_error, sizeof last_error, "%s", e.message);
		free(c);
		return NULL;
	}
	c->len = (size_t)len;
	c->step = sr_ring_slots_for(c->ring, c->len);
	for (size_t i = 0; i < sizeof c->src; i++)
		c->src[i] = (unsigned char)i;
	return c;
}

static void
teardown_write(void *ctx)
{
	write_ctx *c = ctx;
	sr_ring_destroy(c->ring);
	free(c);
}

static void
body_write(void *ctx)
{
	write_ctx *c = ctx;
	sr_ring_write(c->ring, c->next, c->src, c->len);
	c->next += c->step;
}

/* ---------------------------------------------------------------- clocks */

static volatile int64_t clock_sink;

static int none_ctx;
static void *setup_none(int64_t arg) { (void)arg; return &none_ctx; }
static void teardown_none(void *ctx) { (void)ctx; }
static void body_empty(void *ctx) { (void)ctx; }

/* The clocks of base/sr_time.h, as the library reads them. */
static void body_realtime(void *ctx) { (void)ctx; clock_sink = sr_realtime_ns(); }
static void body_realtime_coarse(void *ctx) { (void)ctx; clock_sink = sr_realtime_coarse_ns(); }
static void body_monotonic(void *ctx) { (void)ctx; clock_sink = sr_monotonic_ns(); }

static void
body_rdtsc(void *ctx)
{
	(void)ctx;
#if SR_HAVE_TSC
	clock_sink = sr_tsc_read();
#else
	clock_sink = sr_monotonic_ns();
#endif
}

/* rdtscp, the instruction itself (sr_time.h has no clock on it): what ordering it costs over rdtsc. */
static void
body_rdtscp(void *ctx)
{
	(void)ctx;
#if SR_HAVE_TSC
	unsigned int aux;
	clock_sink = (int64_t)__rdtscp(&aux);
#else
	clock_sink = sr_monotonic_ns();
#endif
}

/* ---------------------------------------------------------------- logger */

#if defined(__has_include)
#if __has_include("sr_log.h")
#define MICRO_HAVE_LOG 1
#endif
#endif

#ifdef MICRO_HAVE_LOG
#include <seqring/sr_log.h>
#include "sr_fmt_internal.h"

/*
 * Argument mixes, each a format and its arguments:
 *   lit     "request handled"                       no arguments
 *   int     "value %d"                              one int
 *   mix     "GET %s -> %d in %.1f ms"               a 20-byte string, an int, a double
 *   str500  "%s"                                    a 500-character string (Log4j's message)
 */
enum { MIX_LIT = 0, MIX_INT, MIX_MIX, MIX_STR500 };

static const char *const mix_format[] = {
	[MIX_LIT] = "request handled",
	[MIX_INT] = "value %d",
	[MIX_MIX] = "GET %s -> %d in %.1f ms",
	[MIX_STR500] = "%s",
};

static const char micro_path[] = "/api/v1/items/12345";   /* 19 characters + NUL */
static char micro_str500[501];

static void
fill_str500(void)
{
	for (int i = 0; i < 500; i++)
		micro_str500[i] = (char)('a' + i % 26);
	micro_str500[500] = '\0';
}

/* A logger in ring (or queue, sync) mode with a null sink: the consumer formats and discards. */
typedef struct log_ctx {
	sr_log *log;
	sr_category *cat;
	int mix;
	int value;
} log_ctx;

static void *
setup_log(int64_t arg)
{
	fill_str500();
	log_ctx *c = calloc(1, sizeof *c);
	if (c == NULL)
		return NULL;
	c->mix = (int)(arg & 15);
	sr_log_config cfg;
	sr_log_config_default(&cfg);
	cfg.mode = (sr_log_mode)(arg >> 4);
	sr_sink_config sink = sr_sink_null();
	cfg.sinks = &sink;
	cfg.sink_count = 1;
	cfg.level = SR_LOG_INFO;
	sr_error e;
	sr_error_clear(&e);
	c->log = sr_log_open(&cfg, &e);
	if (c->log == NULL) {
		snprintf(last_error, sizeof last_error, "%s", e.message);
		free(c);
		return NULL;
	}
	c->cat = sr_log_category(c->log, "bench.micro");
	return c;
}

static void
teardown_log(void *ctx)
{
	log_ctx *c = ctx;
	sr_log_close(&c->log);
	free(c);
}

/* Between timed stretches: wait until the consumer has written everything (not timed). */
static void
pause_log(void *ctx)
{
	log_ctx *c = ctx;
	sr_log_flush(c->log);
}

static void
body_log_disabled(void *ctx)
{
	log_ctx *c = ctx;
	SR_DEBUG(c->cat, "value %d", c->value++);
}

static void
body_log_enabled(void *ctx)
{
	log_ctx *c = ctx;
	switch (c->mix) {
	case MIX_LIT:
		SR_INFO(c->cat, "request handled");
		break;
	case MIX_INT:
		SR_INFO(c->cat, "value %d", c->value++);
		break;
	case MIX_MIX:
		SR_INFO(c->cat, "GET %s -> %d in %.1f ms", micro_path, 200 + (c->value++ & 7), 1.5);
		break;
	default:
		SR_INFO(c->cat, "%s", micro_str500);
		break;
	}
}

/* The codec alone: encode a call's arguments into a record, render a record into text. */
typedef struct codec_ctx {
	int mix;
	int value;
	const char *format;
	sr_fmt_sig sig;
	size_t values_len;
	size_t strings_len;
	unsigned char record[8192];
	char text[1024 + SR_FMT_LINE_RESERVE];
} codec_ctx;

/* What sr_log_emit does with the arguments (no header, no ring): gather, fit, write. */
static void
encode(codec_ctx *c, ...)
{
	sr_fmt_gather g;
	va_list ap;
	va_start(ap, c);
	sr_fmt_gather_args(&g, &c->sig, 4096, &ap);
	va_end(ap);
	sr_fmt_fit(&g, 0, 4096);
	sr_ring_writer w = { c->record, 0, SIZE_MAX };
	sr_fmt_write(&g, &w);
	c->values_len = g.value_bytes;
	c->strings_len = g.string_bytes;
}

static void
body_encode(void *ctx)
{
	codec_ctx *c = ctx;
	switch (c->mix) {
	case MIX_LIT:
		encode(c);
		break;
	case MIX_INT:
		encode(c, c->value++);
		break;
	case MIX_MIX:
		encode(c, micro_path, 200 + (c->value++ & 7), 1.5);
		break;
	default:
		encode(c, micro_str500);
		break;
	}
}

static void
body_render(void *ctx)
{
	codec_ctx *c = ctx;
	sr_fmt_buf out = { c->text, 0, 1024, 0 };
	sr_fmt_render(&out, c->format, c->record, c->values_len,
	    c->record + c->values_len, c->strings_len, 0);
}

/* The reference: snprintf of the same format and arguments. */
static void
body_snprintf(void *ctx)
{
	codec_ctx *c = ctx;
	switch (c->mix) {
	case MIX_LIT:
		snprintf(c->text, 1024, "request handled");
		break;
	case MIX_INT:
		snprintf(c->text, 1024, "value %d", c->value++);
		break;
	case MIX_MIX:
		snprintf(c->text, 1024, "GET %s -> %d in %.1f ms", micro_path, 200 + (c->value++ & 7), 1.5);
		break;
	default:
		snprintf(c->text, 1024, "%s", micro_str500);
		break;
	}
}

static void *
setup_codec(int64_t mix)
{
	fill_str500();
	codec_ctx *c = calloc(1, sizeof *c);
	if (c == NULL)
		return NULL;
	c->mix = (int)mix;
	c->format = mix_format[mix];
	if (sr_fmt_parse(c->format, &c->sig, last_error, sizeof last_error) != SR_FMT_OK) {
		free(c);
		return NULL;
	}
	body_encode(c);   /* a record for the render case */
	return c;
}

static void
teardown_codec(void *ctx)
{
	free(ctx);
}

#define LOG_RING(mix) ((int64_t)SR_LOG_MODE_RING << 4 | (mix))
#define LOG_QUEUE(mix) ((int64_t)SR_LOG_MODE_QUEUE << 4 | (mix))
#define LOG_SYNC(mix) ((int64_t)SR_LOG_MODE_SYNC << 4 | (mix))
/*
 * Enabled calls run in stretches of 20,000 (a 500-byte record takes 5 of the
 * default ring's 262,144 slots of 128 bytes), each followed by an untimed
 * flush, so the figure is the caller's cost while the consumer keeps up,
 * not the consumer's rate once the ring is full (perf/throughput measures that).
 */
#define LOG_STRETCH 20000
#define LOG_CASES \
	{ "log/disabled", setup_log, body_log_disabled, teardown_log, LOG_RING(MIX_INT), 0, 0, NULL }, \
	{ "log/enabled/ring/lit", setup_log, body_log_enabled, teardown_log, LOG_RING(MIX_LIT), 0, LOG_STRETCH, pause_log }, \
	{ "log/enabled/ring/int", setup_log, body_log_enabled, teardown_log, LOG_RING(MIX_INT), 0, LOG_STRETCH, pause_log }, \
	{ "log/enabled/ring/mix", setup_log, body_log_enabled, teardown_log, LOG_RING(MIX_MIX), 0, LOG_STRETCH, pause_log }, \
	{ "log/enabled/ring/str500", setup_log, body_log_enabled, teardown_log, LOG_RING(MIX_STR500), 500, LOG_STRETCH, pause_log }, \
	{ "log/enabled/queue/mix", setup_log, body_log_enabled, teardown_log, LOG_QUEUE(MIX_MIX), 0, LOG_STRETCH, pause_log }, \
	{ "log/enabled/sync/mix", setup_log, body_log_enabled, teardown_log, LOG_SYNC(MIX_MIX), 0, LOG_STRETCH, pause_log }, \
	{ "log/encode/lit", setup_codec, body_encode, teardown_codec, MIX_LIT, 0, 0, NULL }, \
	{ "log/encode/int", setup_codec, body_encode, teardown_codec, MIX_INT, 0, 0, NULL }, \
	{ "log/encode/mix", setup_codec, body_encode, teardown_codec, MIX_MIX, 0, 0, NULL }, \
	{ "log/encode/str500", setup_codec, body_encode, teardown_codec, MIX_STR500, 500, 0, NULL }, \
	{ "log/format/lit", setup_codec, body_render, teardown_codec, MIX_LIT, 0, 0, NULL }, \
	{ "log/format/int", setup_codec, body_render, teardown_codec, MIX_INT, 0, 0, NULL }, \
	{ "log/format/mix", setup_codec, body_render, teardown_codec, MIX_MIX, 0, 0, NULL }, \
	{ "log/format/str500", setup_codec, body_render, teardown_codec, MIX_STR500, 500, 0, NULL }, \
	{ "snprintf/int", setup_codec, body_snprintf, teardown_codec, MIX_INT, 0, 0, NULL }, \
	{ "snprintf/mix", setup_codec, body_snprintf, teardown_codec, MIX_MIX, 0, 0, NULL }, \
	{ "snprintf/str500", setup_codec, body_snprintf, teardown_codec, MIX_STR500, 500, 0, NULL },
#else
#define LOG_CASES
#endif

/* ----------------------------------------------------------------- table */

static const micro_case cases[] = {
	{ "call_overhead", setup_none, body_empty, teardown_none, 0, 0, 0, NULL },
	{ "sp_claim_publish/busyspin", setup_sp, body_claim_publish, seq_teardown, SR_WAIT_BUSY_SPIN, 0, 0, NULL },
	{ "sp_claim_publish/liteblock", setup_sp, body_claim_publish, seq_teardown, SR_WAIT_LITE_BLOCK, 0, 0, NULL },
	{ "sp_claim_publish/block", setup_sp, body_claim_publish, seq_teardown, SR_WAIT_BLOCK, 0, 0, NULL },
	{ "sp_claim10_publish_range/busyspin", setup_sp, body_claim10_publish_range, seq_teardown, SR_WAIT_BUSY_SPIN, 0, 0, NULL },
	{ "sp_try_claim_publish/busyspin", setup_sp, body_try_claim_publish, seq_teardown, SR_WAIT_BUSY_SPIN, 0, 0, NULL },
	{ "mp_claim_publish/busyspin", setup_mp, body_claim_publish, seq_teardown, SR_WAIT_BUSY_SPIN, 0, 0, NULL },
	{ "mp_claim_publish/liteblock", setup_mp, body_claim_publish, seq_teardown, SR_WAIT_LITE_BLOCK, 0, 0, NULL },
	{ "mp_claim10_publish_range/busyspin", setup_mp, body_claim10_publish_range, seq_teardown, SR_WAIT_BUSY_SPIN, 0, 0, NULL },
	{ "mp_try_claim_publish/busyspin", setup_mp, body_try_claim_publish, seq_teardown, SR_WAIT_BUSY_SPIN, 0, 0, NULL },
	{ "ring_write/8", setup_write, body_write, teardown_write, 8, 8, 0, NULL },
	{ "ring_write/64", setup_write, body_write, teardown_write, 64, 64, 0, NULL },
	{ "ring_write/512", setup_write, body_write, teardown_write, 512, 512, 0, NULL },
	{ "clock/realtime", setup_none, body_realtime, teardown_none, 0, 0, 0, NULL },
	{ "clock/realtime_coarse", setup_none, body_realtime_coarse, teardown_none, 0, 0, 0, NULL },
	{ "clock/monotonic", setup_none, body_monotonic, teardown_none, 0, 0, 0, NULL },
	{ "clock/rdtsc", setup_none, body_rdtsc, teardown_none, 0, 0, 0, NULL },
	{ "clock/rdtscp", setup_none, body_rdtscp, teardown_none, 0, 0, 0, NULL },
	LOG_CASES
};

const micro_case *
micro_cases(int *count)
{
	*count = (int)(sizeof cases / sizeof cases[0]);
	return cases;
}
