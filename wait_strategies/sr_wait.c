/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_wait.c: the cold and the sleeping parts of the wait strategies: parsing
 * by name, validation, and the blocking kinds' sleep on a futex.
 */
#include "sr_wait.h"
#include "sr_wait_internal.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sr_futex_internal.h"

static const char *const kind_names[SR_WAIT_KIND_COUNT] = {
	[SR_WAIT_BUSY_SPIN] = "busyspin",
	[SR_WAIT_YIELD] = "yield",
	[SR_WAIT_SLEEP] = "sleep",
	[SR_WAIT_BLOCK] = "block",
	[SR_WAIT_LITE_BLOCK] = "liteblock",
	[SR_WAIT_TIMEOUT] = "timeout",
	[SR_WAIT_PHASED] = "phased",
};

#define VALID_NAMES "busyspin, yield, sleep, block, liteblock, timeout, phased"

const char *
sr_wait_kind_name(enum sr_wait_kind kind)
{
	if ((unsigned)kind >= SR_WAIT_KIND_COUNT)
		return "unknown";
	return kind_names[kind];
}

void
sr_wait_config_default(sr_wait_config *c, enum sr_wait_kind kind)
{
	c->kind = kind;
	c->spin_tries = 100;
	c->yield_tries = 100;
	c->sleep_ns = 100;
	c->timeout_ns = 10 * 1000 * 1000;
	c->spin_ns = 10 * 1000;
	c->yield_ns = 100 * 1000;
	c->fallback = SR_WAIT_LITE_BLOCK;
}

int
sr_wait_config_validate(const sr_wait_config *c, sr_error *err)
{
	if (c == NULL)
		return sr_error_set(err, SR_EINVAL, "wait config is NULL");
	if ((unsigned)c->kind >= SR_WAIT_KIND_COUNT)
		return sr_error_set(err, SR_EINVAL,
		    "wait strategy kind %d is invalid: expected one of " VALID_NAMES, (int)c->kind);
	if (c->spin_tries < 0 || c->spin_tries > SR_WAIT_MAX_TRIES)
		return sr_error_set(err, SR_EINVAL,
		    "wait spin tries %" PRId32 " is out of range: expected 0 to %d",
		    c->spin_tries, SR_WAIT_MAX_TRIES);
	if (c->yield_tries < 0 || c->yield_tries > SR_WAIT_MAX_TRIES)
		return sr_error_set(err, SR_EINVAL,
		    "wait yield tries %" PRId32 " is out of range: expected 0 to %d",
		    c->yield_tries, SR_WAIT_MAX_TRIES);
	if (c->sleep_ns < 1 || c->sleep_ns > SR_WAIT_MAX_NS)
		return sr_error_set(err, SR_EINVAL,
		    "wait sleep %" PRId64 " ns is out of range: expected 1 ns to 60 s", c->sleep_ns);
	if (c->timeout_ns < 1000 || c->timeout_ns > SR_WAIT_MAX_NS)
		return sr_error_set(err, SR_EINVAL,
		    "wait timeout %" PRId64 " ns is out of range: expected 1 us to 60 s", c->timeout_ns);
	if (c->spin_ns < 0 || c->spin_ns > SR_WAIT_MAX_NS)
		return sr_error_set(err, SR_EINVAL,
		    "phased spin %" PRId64 " ns is out of range: expected 0 to 60 s", c->spin_ns);
	if (c->yield_ns < 0 || c->yield_ns > SR_WAIT_MAX_NS)
		return sr_error_set(err, SR_EINVAL,
		    "phased yield %" PRId64 " ns is out of range: expected 0 to 60 s", c->yield_ns);
	if (c->kind == SR_WAIT_PHASED && (unsigned)c->fallback >= SR_WAIT_KIND_COUNT)
		return sr_error_set(err, SR_EINVAL,
		    "phased fallback %d is invalid: it is no wait strategy kind (expected block, liteblock, "
		    "timeout or sleep)", (int)c->fallback);
	if (c->kind == SR_WAIT_PHASED && c->fallback != SR_WAIT_BLOCK &&
	    c->fallback != SR_WAIT_LITE_BLOCK && c->fallback != SR_WAIT_TIMEOUT &&
	    c->fallback != SR_WAIT_SLEEP)
		return sr_error_set(err, SR_EINVAL,
		    "phased fallback '%s' is invalid: expected block, liteblock, timeout or sleep",
		    sr_wait_kind_name(c->fallback));
	return SR_OK;
}

/*
 * Copies a value of len bytes into buf (size bytes, NUL-terminated) and reads
 * its leading decimal digits into *v; *suffix is what follows them in buf.
 * -1 when the value is empty, does not fit in buf, does not start with a
 * digit or overflows.
 */
static int
parse_digits(const char *text, size_t len, char *buf, size_t size, unsigned long long *v,
    const char **suffix)
{
	if (len == 0 || len >= size)
		return -1;
	memcpy(buf, text, len);
	buf[len] = '\0';
	if (!isdigit((unsigned char)buf[0]))
		return -1;
	char *end;
	errno = 0;
	*v = strtoull(buf, &end, 10);
	*suffix = end;
	return errno != 0 ? -1 : 0;
}

/* Parses "123", "10us", "5ms", "1s" (no unit: nanoseconds). */
static int
parse_duration(const char *text, size_t len, int64_t *out)
{
	char buf[64];
	unsigned long long v;
	const char *unit;
	if (parse_digits(text, len, buf, sizeof buf, &v, &unit) != 0)
		return -1;
	int64_t scale;
	if (*unit == '\0' || strcasecmp(unit, "ns") == 0)
		scale = 1;
	else if (strcasecmp(unit, "us") == 0)
		scale = 1000;
	else if (strcasecmp(unit, "ms") == 0)
		scale = 1000 * 1000;
	else if (strcasecmp(unit, "s") == 0)
		scale = 1000 * 1000 * 1000;
	else
		return -1;
	if (v > (unsigned long long)(INT64_MAX / scale))
		return -1;
	*out = (int64_t)v * scale;
	return 0;
}

/* Parses a count of tries, 0 to SR_WAIT_MAX_TRIES. */
static int
parse_count(const char *text, size_t len, int32_t *out)
{
	char buf[32];
	unsigned long long v;
	const char *rest;
	if (parse_digits(text, len, buf, sizeof buf, &v, &rest) != 0 || *rest != '\0' ||
	    v > SR_WAIT_MAX_TRIES)
		return -1;
	*out = (int32_t)v;
	return 0;
}

static int
kind_from_name(const char *name, size_t len, enum sr_wait_kind *out)
{
	for (int k = 0; k < SR_WAIT_KIND_COUNT; k++) {
		if (strlen(kind_names[k]) == len && strncasecmp(kind_names[k], name, len) == 0) {
			*out = (enum sr_wait_kind)k;
			return 0;
		}
	}
	/* Log4j 2 spells it "Timeout" and the Disruptor "BusySpin": both match. */
	return -1;
}

int
sr_wait_config_parse(const char *spec, sr_wait_config *config, sr_error *err)
{
	if (spec == NULL || config == NULL)
		return sr_error_set(err, SR_EINVAL,
		    "wait strategy spec is NULL: expected one of " VALID_NAMES);
	const char *colon = strchr(spec, ':');
	size_t name_len = colon ? (size_t)(colon - spec) : strlen(spec);
	enum sr_wait_kind kind;
	if (kind_from_name(spec, name_len, &kind) != 0)
		return sr_error_set(err, SR_EINVAL,
		    "unknown wait strategy '%.*s': expected one of " VALID_NAMES,
		    (int)(name_len > 64 ? 64 : name_len), spec);
	sr_wait_config c;
	sr_wait_config_default(&c, kind);

	const char *p = colon ? colon + 1 : NULL;
	while (p != NULL && *p != '\0') {
		const char *comma = strchr(p, ',');
		size_t item_len = comma ? (size_t)(comma - p) : strlen(p);
		const char *eq = memchr(p, '=', item_len);
		if (eq == NULL)
			return sr_error_set(err, SR_EINVAL,
			    "wait strategy parameter '%.*s' has no value: expected key=value",
			    (int)(item_len > 64 ? 64 : item_len), p);
		size_t key_len = (size_t)(eq - p);
		const char *val = eq + 1;
		size_t val_len = item_len - key_len - 1;
		int bad = 0;
#define KEY_IS(s) (key_len == strlen(s) && strncasecmp(p, s, key_len) == 0)
		if (KEY_IS("spin") && kind == SR_WAIT_PHASED)
			bad = parse_duration(val, val_len, &c.spin_ns);
		else if (KEY_IS("yield") && kind == SR_WAIT_PHASED)
			bad = parse_duration(val, val_len, &c.yield_ns);
		else if (KEY_IS("spin") && (kind == SR_WAIT_YIELD || kind == SR_WAIT_SLEEP))
			bad = parse_count(val, val_len, &c.spin_tries);
		else if (KEY_IS("yield") && kind == SR_WAIT_SLEEP)
			bad = parse_count(val, val_len, &c.yield_tries);
		else if (KEY_IS("sleep") && (kind == SR_WAIT_SLEEP || kind == SR_WAIT_PHASED))
			bad = parse_duration(val, val_len, &c.sleep_ns);
		else if (KEY_IS("timeout") && (kind == SR_WAIT_TIMEOUT || kind == SR_WAIT_PHASED))
			bad = parse_duration(val, val_len, &c.timeout_ns);
		else if (KEY_IS("fallback") && kind == SR_WAIT_PHASED)
			bad = kind_from_name(val, val_len, &c.fallback);
		else
			return sr_error_set(err, SR_EINVAL,
			    "wait strategy '%s' has no parameter '%.*s': expected %s",
			    kind_names[kind], (int)(key_len > 64 ? 64 : key_len), p,
			    kind == SR_WAIT_YIELD ? "spin=N" :
			    kind == SR_WAIT_SLEEP ? "spin=N, yield=N, sleep=DUR" :
			    kind == SR_WAIT_TIMEOUT ? "timeout=DUR" :
			    kind == SR_WAIT_PHASED ? "spin=DUR, yield=DUR, fallback=NAME, timeout=DUR, sleep=DUR" :
			    "no parameters");
#undef KEY_IS
		if (bad)
			return sr_error_set(err, SR_EINVAL,
			    "wait strategy parameter '%.*s' has a bad value: expected %s",
			    (int)(item_len > 64 ? 64 : item_len), p,
			    (memchr(p, 'f', key_len) != NULL) ? "block, liteblock, timeout or sleep" :
			    "a non-negative integer (counts up to 1000000; durations take ns, us, ms or s,"
			    " up to 60 s)");
		p = comma ? comma + 1 : NULL;
	}
	int rc = sr_wait_config_validate(&c, err);
	if (rc != SR_OK)
		return rc;
	*config = c;
	return SR_OK;
}

int
sr_wait_config_format(const sr_wait_config *c, char *buf, size_t size)
{
	int n;
	switch (c->kind) {
	case SR_WAIT_YIELD:
		n = snprintf(buf, size, "yield:spin=%" PRId32, c->spin_tries);
		break;
	case SR_WAIT_SLEEP:
		n = snprintf(buf, size, "sleep:spin=%" PRId32 ",yield=%" PRId32 ",sleep=%" PRId64 "ns",
		    c->spin_tries, c->yield_tries, c->sleep_ns);
		break;
	case SR_WAIT_TIMEOUT:
		n = snprintf(buf, size, "timeout:timeout=%" PRId64 "ns", c->timeout_ns);
		break;
	case SR_WAIT_PHASED:
		/* timeout and sleep too: parse accepts them, so they must round-trip. */
		n = snprintf(buf, size, "phased:spin=%" PRId64 "ns,yield=%" PRId64 "ns,fallback=%s,"
		    "timeout=%" PRId64 "ns,sleep=%" PRId64 "ns",
		    c->spin_ns, c->yield_ns, sr_wait_kind_name(c->fallback), c->timeout_ns, c->sleep_ns);
		break;
	default:
		n = snprintf(buf, size, "%s", sr_wait_kind_name(c->kind));
		break;
	}
	return n < 0 || (size_t)n >= size ? SR_EINVAL : SR_OK;
}

/* A consumer that follows other consumers polls for them after a block: */
#define DEPENDENTS_SPINS 100
#define DEPENDENTS_YIELDS 100
#define DEPENDENTS_SLEEP_NS 1000

/* The ladders sr_wait_for polls along, from w->config and w->sleeping_kind. */
static void
set_ladders(sr_wait *w)
{
	const sr_wait_config *c = &w->config;
	switch (w->sleeping_kind) {
	case SR_WAIT_BUSY_SPIN:
		w->polling = (sr_backoff_ladder){ SR_BACKOFF_FOREVER, 0, 0, false, false };
		break;
	case SR_WAIT_YIELD:
		w->polling = (sr_backoff_ladder){ c->spin_tries, SR_BACKOFF_FOREVER, 0, false, false };
		break;
	default:
		/* sleep, and phased falling back to sleep; unused by the blocking kinds */
		w->polling = (sr_backoff_ladder){ c->spin_tries, c->yield_tries, c->sleep_ns, false, false };
		break;
	}
	w->phased = (sr_backoff_ladder){ c->spin_ns, c->yield_ns, 0, true, false };
	w->dependents = (sr_backoff_ladder){
		DEPENDENTS_SPINS, DEPENDENTS_YIELDS, DEPENDENTS_SLEEP_NS, false, false
	};
}

int
sr_wait_init(sr_wait *w, const sr_wait_config *config, sr_error *err)
{
	if (w == NULL)
		return sr_error_set(err, SR_EINVAL, "wait strategy pointer is NULL");
	int rc = sr_wait_config_validate(config, err);
	if (rc != SR_OK)
		return rc;
	memset(w, 0, sizeof *w);
	w->config = *config;
	w->sleeping_kind = config->kind == SR_WAIT_PHASED ? config->fallback : config->kind;
	switch (w->sleeping_kind) {
	case SR_WAIT_BLOCK:
	case SR_WAIT_LITE_BLOCK:
	case SR_WAIT_TIMEOUT:
		w->signal_mode = SR_SIGNAL_IF_NEEDED;
		break;
	default:
		w->signal_mode = SR_SIGNAL_NONE;
		break;
	}
	sr_atomic_store_relaxed_i32(&w->sleepers.announced, 0);
	sr_atomic_store_relaxed_i32(&w->sleepers.wakes, 0);
	set_ladders(w);
	return SR_OK;
}

void
sr_wait_destroy(sr_wait *w)
{
	(void)w;
}

/*
 * Wakes every sleeper: the change of `wakes` comes first, so a waiter that
 * read it before this wake finds it changed and does not sleep (the futex
 * compares the word with what the waiter read, atomically with its sleep).
 */
void
sr_wait__wake(sr_wait *w)
{
	/* pairs with the load-acquire of wakes in sr_wait__block */
	sr_atomic_faa_i32(&w->sleepers.wakes, 1);
	sr_futex__wake_all(&w->sleepers.wakes, w->process_shared != 0);
}

void
sr_wait_signal_all(sr_wait *w)
{
	sr_atomic_store_relaxed_i32(&w->sleepers.announced, 0);
	sr_wait__wake(w);
}

int
sr_wait__block(sr_wait *w, int64_t sequence, const sr_atomic_i64 *watched,
    const sr_atomic_i32 *alert, enum sr_wait_kind kind, int pre_spin)
{
	/* A short spin first where the caller asks for one (a publish is a few stores after its claim). */
	for (int i = 0; i < pre_spin; i++) {
		/* pairs with the publisher's store-release of *watched */
		if (sr_atomic_load_acquire_i64(watched) >= sequence)
			return SR_OK;
		sr_atomic_pause();
	}
	int64_t deadline = INT64_MAX;
	if (kind == SR_WAIT_TIMEOUT)
		deadline = sr_monotonic_ns() + w->config.timeout_ns;
	for (;;) {
		/*
		 * Read the wake count before the last look: a wake that comes
		 * after this read changes it, and the futex then refuses to
		 * sleep.  Pairs with the fetch-add in sr_wait__wake.
		 */
		int32_t wakes = sr_atomic_load_acquire_i32(&w->sleepers.wakes);
		/*
		 * Announce the sleep before the last look at the cursor.  The
		 * exchange is a full barrier; it pairs with the fence and load of
		 * sleepers.announced in sr_wait_signal.
		 */
		sr_atomic_exchange_i32(&w->sleepers.announced, 1);
		/*
		 * The C11 model orders an exchange before a later acquire load
		 * only through a fence (x86 needs none; this is the sleeping
		 * path): pairs with the fence in sr_wait_signal.
		 */
		sr_atomic_fence_seq_cst();
		/* pairs with the publisher's store-release of *watched */
		if (sr_atomic_load_acquire_i64(watched) >= sequence)
			return SR_OK;
		/* pairs with the store-release in sr_barrier_alert */
		if (sr_atomic_load_acquire_i32(alert))
			return SR_EALERTED;
		if (sr_futex__wait(&w->sleepers.wakes, wakes, deadline, w->process_shared != 0) ==
		    SR_FUTEX__TIMED_OUT) {
			if (sr_atomic_load_acquire_i64(watched) < sequence)
				return SR_ETIMEDOUT;
			return SR_OK;
		}
	}
}

int
sr_wait__init_shared(sr_wait *w, const sr_wait_config *config, sr_error *err)
{
	int rc = sr_wait_init(w, config, err);
	if (rc == SR_OK)
		w->process_shared = 1;
	return rc;
}
