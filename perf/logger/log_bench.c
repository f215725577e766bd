/* SPDX-License-Identifier: Apache-2.0 */
/*
 * log_bench.c: see log_bench.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "log_bench.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_args.h"
#include "bench_output.h"

bool
log_bench_variants(const char *wait_list, const bool *want, int kind_count,
    log_bench_variant *out, int *n, char *err, size_t errsize)
{
	*n = 0;
	/* Checked even when the ring is not wanted: a bad --wait is an error either way. */
	bench_wait_list w;
	if (!bench_parse_wait_list(wait_list, SR_LOG_DEFAULT_WAIT, &w, err, errsize))
		return false;
	if (want[LOG_BENCH_RING]) {
		for (int i = 0; i < w.nwaits; i++) {
			log_bench_variant *v = &out[(*n)++];
			memset(v, 0, sizeof *v);
			v->kind = LOG_BENCH_RING;
			memcpy(v->spec, w.waits[i].spec, sizeof v->spec);
			memcpy(v->label, w.waits[i].label, sizeof v->label);
		}
	}
	for (int k = LOG_BENCH_RING + 1; k < kind_count; k++) {
		if (!want[k])
			continue;
		log_bench_variant *v = &out[(*n)++];
		memset(v, 0, sizeof *v);
		v->kind = k;
		strcpy(v->label, "none");
	}
	if (*n == 0) {
		snprintf(err, errsize, "--modes selects nothing to run");
		return false;
	}
	return true;
}

const char *
log_bench_variant_name(const log_bench_variant *v, const char *const *names, char *buf, size_t size)
{
	if (v->kind == LOG_BENCH_RING)
		snprintf(buf, size, "%s/%s", names[v->kind], v->label);
	else
		snprintf(buf, size, "%s", names[v->kind]);
	return buf;
}

void
log_bench_config(sr_log_config *c, const log_bench_variant *v, int64_t message_bytes,
    const sr_sink_config *sink)
{
	sr_log_config_default(c);
	c->mode = v->kind == LOG_BENCH_RING ? SR_LOG_MODE_RING : v->kind == LOG_BENCH_QUEUE
	    ? SR_LOG_MODE_QUEUE : SR_LOG_MODE_SYNC;
	if (v->kind == LOG_BENCH_RING)
		c->wait_strategy = v->spec;
	if ((size_t)message_bytes + 256 > c->max_message_bytes)
		c->max_message_bytes = (size_t)message_bytes + 256;
	if ((size_t)message_bytes + 1024 > c->max_line_bytes)
		c->max_line_bytes = (size_t)message_bytes + 1024;
	c->sinks = sink;
	c->sink_count = 1;
}

sr_log *
log_bench_open(const sr_log_config *c, const log_bench_variant *v, const char *const *names,
    char *err, size_t errsize)
{
	sr_error e;
	sr_log *log = sr_log_open(c, &e);
	if (log == NULL)
		snprintf(err, errsize, "%s/%s: sr_log_open failed: %s", names[v->kind], v->label, e.message);
	return log;
}

bool
log_bench_flush(sr_log *log, const log_bench_variant *v, const char *const *names,
    const char *when, char *err, size_t errsize)
{
	int rc = sr_log_flush(log);
	if (rc == SR_OK)
		return true;
	snprintf(err, errsize, "%s/%s: sr_log_flush after %s failed: %s", names[v->kind], v->label, when,
	    sr_strerror(rc));
	return false;
}

char *
log_bench_message(int64_t bytes, char first)
{
	char *msg = malloc((size_t)bytes + 1);
	if (msg == NULL)
		return NULL;
	for (int64_t i = 0; i < bytes; i++)
		msg[i] = (char)(first + i % 26);
	msg[bytes] = '\0';
	return msg;
}

/* --threads: a bench_flag parser into the flags' thread counts. */
static bool
parse_threads(void *dest, char **values, char *err, size_t errsize)
{
	log_bench_flags *f = dest;
	int64_t threads[LOG_BENCH_MAX_LIST];
	if (!bench_parse_count_list("--threads", "thread count", values[0], f->max_threads, threads,
	    LOG_BENCH_MAX_LIST, &f->nthreads, err, errsize))
		return false;
	for (int i = 0; i < f->nthreads; i++)
		f->threads[i] = (int)threads[i];
	return true;
}

/* --modes: a bench_flag parser into the flags' wanted kinds. */
static bool
parse_modes(void *dest, char **values, char *err, size_t errsize)
{
	log_bench_flags *f = dest;
	return bench_parse_name_set("--modes", "mode", values[0], f->kind_names, f->kind_count, f->want, err,
	    errsize);
}

void
log_bench_flags_init(log_bench_flags *f, const char *const *kind_names, int kind_count,
    int max_threads, const int *threads, int nthreads, const int *quick_threads, int quick_nthreads,
    int64_t message_bytes, const char *out)
{
	memset(f, 0, sizeof *f);
	f->kind_names = kind_names;
	f->kind_count = kind_count;
	f->max_threads = max_threads;
	memcpy(f->threads, threads, sizeof *threads * (size_t)nthreads);
	f->nthreads = nthreads;
	memcpy(f->quick_threads, quick_threads, sizeof *quick_threads * (size_t)quick_nthreads);
	f->quick_nthreads = quick_nthreads;
	for (int k = 0; k < kind_count; k++)
		f->want[k] = true;
	f->wait_list = "default";
	f->message_bytes = message_bytes;
	f->sink_dir = "/tmp";
	f->out = out;
}

enum bench_parsed
log_bench_parse_args(int argc, char **argv, log_bench_flags *f, const bench_flag *own, int own_count,
    void (*usage)(FILE *), char *err, size_t errsize)
{
	const bench_flag shared[] = {
		{ BENCH_FLAG("--threads", BENCH_CUSTOM, f), .parse = parse_threads, .given = &f->threads_given },
		{ BENCH_FLAG("--modes", BENCH_CUSTOM, f), .parse = parse_modes },
		{ BENCH_FLAG("--wait", BENCH_TEXT, &f->wait_list) },
		{ BENCH_FLAG("--message-bytes", BENCH_COUNT, &f->message_bytes), .max = LOG_BENCH_MAX_MESSAGE_BYTES },
		{ BENCH_FLAG("--sink-dir", BENCH_TEXT, &f->sink_dir) },
		{ BENCH_FLAG("--out", BENCH_TEXT, &f->out) },
		{ BENCH_FLAG("--truncate", BENCH_SWITCH, &f->truncate), .switch_to = true },
	};
	const int nshared = (int)(sizeof shared / sizeof shared[0]);
	bench_flag flags[sizeof shared / sizeof shared[0] + LOG_BENCH_MAX_OWN_FLAGS];
	if (own_count > LOG_BENCH_MAX_OWN_FLAGS) {
		snprintf(err, errsize, "%d flags of the harness's own: at most %d", own_count, LOG_BENCH_MAX_OWN_FLAGS);
		return BENCH_PARSED_BAD;
	}
	memcpy(flags, shared, sizeof shared);
	memcpy(flags + nshared, own, sizeof *own * (size_t)own_count);
	enum bench_parsed parsed = bench_parse_flags(argc, argv, flags, nshared + own_count, &f->quick, usage,
	    err, errsize);
	if (parsed == BENCH_PARSED_RUN && f->quick && !f->threads_given) {
		memcpy(f->threads, f->quick_threads, sizeof f->threads);
		f->nthreads = f->quick_nthreads;
	}
	return parsed;
}

bool
log_bench_check_sink_dir(const char *dir, char *err, size_t errsize)
{
	if (strlen(dir) > LOG_BENCH_SINK_DIR_MAX) {
		snprintf(err, errsize, "--sink-dir '%.40s...' is too long: at most %d bytes", dir,
		    LOG_BENCH_SINK_DIR_MAX);
		return false;
	}
	if (access(dir, W_OK | X_OK) != 0) {
		snprintf(err, errsize, "--sink-dir '%.256s' is not a writable directory: %s", dir,
		    strerror(errno));
		return false;
	}
	return true;
}

bool
log_bench_worker_start(const char *prefix, int index, bench_start_gate *start, int64_t *origin)
{
	char name[16];
	snprintf(name, sizeof name, "%.8s-%03d", prefix, index % 1000);
	sr_log_thread_name(name);
	return bench_start_gate_wait(start, origin);
}
