/* SPDX-License-Identifier: Apache-2.0 */
/*
 * scenario_verdict.c: how a scenario records its first failure, and how the
 * plain stress programs report results and count their own checks.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

#include "scenario_internal.h"

int64_t
sc_begin(sc_check *c)
{
	atomic_init(&c->failed, 0);
	pthread_mutex_init(&c->lock, NULL);
	c->message[0] = '\0';
	return sc_now();
}

void
sc_failf(sc_check *c, const char *fmt, ...)
{
	pthread_mutex_lock(&c->lock);
	if (atomic_load(&c->failed) == 0) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(c->message, sizeof c->message, fmt, ap);
		va_end(ap);
		atomic_store(&c->failed, 1);
	}
	pthread_mutex_unlock(&c->lock);
}

bool
sc_failed(sc_check *c)
{
	return atomic_load(&c->failed) != 0;
}

void
sc_finish(sc_check *c, sc_result *r, int64_t started_ns)
{
	r->seconds = (double)(sc_now() - started_ns) / 1e9;
	pthread_mutex_lock(&c->lock);
	r->ok = atomic_load(&c->failed) == 0;
	snprintf(r->message, sizeof r->message, "%s", c->message);
	pthread_mutex_unlock(&c->lock);
	pthread_mutex_destroy(&c->lock);
}

sc_result
sc_result_ok(void)
{
	return (sc_result){ .ok = true };
}

void
sc_hung(const char *what)
{
	fprintf(stderr, "HUNG: %s (no progress for %lld s)\n", what,
	    (long long)(SC_WATCHDOG_NS / SC_S));
	fflush(stderr);
	_exit(3);
}

void
sc_expect_events(sc_result *r, int64_t expected)
{
	if (r->ok && r->events != expected) {
		r->ok = false;
		snprintf(r->message, sizeof r->message, "%" PRId64 " events, expected %" PRId64, r->events,
		    expected);
	}
}


int
sc_report(const char *program, const char *name, const sc_result *r)
{
	if (r->ok) {
		printf("%s: %-52s ok   %10" PRId64 " events  %7.3f s", program, name, r->events, r->seconds);
		if (r->max_latency_ns > 0)
			printf("  max latency %.3f ms", (double)r->max_latency_ns / 1e6);
		printf("\n");
	} else {
		printf("%s: %-52s FAIL %s\n", program, name, r->message);
	}
	fflush(stdout);
	return r->ok ? 0 : 1;
}

int
sc_summary(const char *program, int scenarios, int failures, int64_t started_ns)
{
	printf("%s: %s: %d scenarios, %d failed, %.2f s%s\n", program,
	    failures == 0 ? "PASS" : "FAIL", scenarios, failures,
	    (double)(sc_now() - started_ns) / 1e9, SC_TSAN ? " (ThreadSanitizer counts)" : "");
	return failures == 0 ? 0 : 1;
}

static atomic_int expect_failures;

void
sc_expect_failed(const char *file, int line, const char *fmt, ...)
{
	/* One fprintf per line, so that lines of checks failing on two threads do not interleave. */
	char message[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(message, sizeof message, fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: FAILED %s:%d: %s\n", program_invocation_short_name, file, line, message);
	atomic_fetch_add(&expect_failures, 1);
}

int
sc_expect_failures(void)
{
	return atomic_load(&expect_failures);
}
