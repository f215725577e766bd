/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_wait_spec.c: libFuzzer target for the wait-strategy spec parser of
 * wait_strategies/sr_wait.h (sr_wait_config_parse, _validate, _format).
 *
 * The input, as a C string, is parsed.  Properties:
 *   - parse never crashes or reads past the string (ASan), and either
 *     accepts or returns SR_EINVAL with a non-empty, terminated message that
 *     fits in sr_error;
 *   - an accepted config validates, formats to a canonical spec (SR_OK with
 *     a big enough buffer), and that spec parses back to an equal config
 *     and formats to the same text (round trip, and a fixed point);
 *   - format never writes past its size argument and fails for any size
 *     that cannot hold the text;
 *   - names are case-insensitive (sr_wait.h): flipping the case of the
 *     strategy name, the keys and the fallback name changes nothing.
 * The same bytes are also read as an sr_wait_config (fields mapped near
 * their valid ranges): when validate accepts it, format -> parse gives back
 * every field the kind uses, and defaults for the others.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fuzz_support.h"
#include <seqring/sr_wait.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The fields a kind's canonical spec carries (sr_wait_config_format). */
enum {
	F_SPIN_TRIES = 1 << 0,
	F_YIELD_TRIES = 1 << 1,
	F_SLEEP_NS = 1 << 2,
	F_TIMEOUT_NS = 1 << 3,
	F_SPIN_NS = 1 << 4,
	F_YIELD_NS = 1 << 5,
	F_FALLBACK = 1 << 6
};

static unsigned
fields_of(enum sr_wait_kind kind)
{
	switch (kind) {
	case SR_WAIT_YIELD: return F_SPIN_TRIES;
	case SR_WAIT_SLEEP: return F_SPIN_TRIES | F_YIELD_TRIES | F_SLEEP_NS;
	case SR_WAIT_TIMEOUT: return F_TIMEOUT_NS;
	case SR_WAIT_PHASED: return F_SPIN_NS | F_YIELD_NS | F_FALLBACK | F_TIMEOUT_NS | F_SLEEP_NS;
	default: return 0;
	}
}

static void
describe(const sr_wait_config *c, char *buf, size_t size)
{
	snprintf(buf, size, "{kind %d spin_tries %" PRId32 " yield_tries %" PRId32 " sleep_ns %" PRId64
	    " timeout_ns %" PRId64 " spin_ns %" PRId64 " yield_ns %" PRId64 " fallback %d}",
	    (int)c->kind, c->spin_tries, c->yield_tries, c->sleep_ns, c->timeout_ns, c->spin_ns,
	    c->yield_ns, (int)c->fallback);
}

/* Field-by-field (the struct has padding): true when a and b agree on `fields` and the kind. */
static bool
same_fields(const sr_wait_config *a, const sr_wait_config *b, unsigned fields)
{
	return a->kind == b->kind &&
	    (!(fields & F_SPIN_TRIES) || a->spin_tries == b->spin_tries) &&
	    (!(fields & F_YIELD_TRIES) || a->yield_tries == b->yield_tries) &&
	    (!(fields & F_SLEEP_NS) || a->sleep_ns == b->sleep_ns) &&
	    (!(fields & F_TIMEOUT_NS) || a->timeout_ns == b->timeout_ns) &&
	    (!(fields & F_SPIN_NS) || a->spin_ns == b->spin_ns) &&
	    (!(fields & F_YIELD_NS) || a->yield_ns == b->yield_ns) &&
	    (!(fields & F_FALLBACK) || a->fallback == b->fallback);
}

#define ALL_FIELDS 0x7fu

static void
check_error(int rc, const sr_error *err, const char *spec)
{
	FUZZ_CHECK(rc == SR_EINVAL, "parse(\"%s\") returned %d, expected SR_OK or SR_EINVAL", spec, rc);
	FUZZ_CHECK(err->code == SR_EINVAL, "parse(\"%s\"): err.code %d != rc", spec, err->code);
	size_t len = strnlen(err->message, sizeof err->message);
	FUZZ_CHECK(len > 0 && len < sizeof err->message, "parse(\"%s\"): message empty or unterminated", spec);
}

/* format(c) with every size from 0 to its length: never past size, SR_OK only when it fits. */
static void
check_format_sizes(const sr_wait_config *c, const char *canonical)
{
	size_t len = strlen(canonical);
	for (size_t size = 0; size <= len + 1; size++) {
		/* Exactly `size` bytes (1 for size 0, never touched): ASan catches an overflow. */
		char *buf = malloc(size > 0 ? size : 1);
		FUZZ_CHECK(buf != NULL, "malloc");
		buf[0] = 'X';
		int rc = sr_wait_config_format(c, buf, size);
		if (size <= len) {
			FUZZ_CHECK(rc != SR_OK, "format into %zu bytes succeeded for \"%s\" (%zu bytes)",
			    size, canonical, len);
		} else {
			FUZZ_CHECK(rc == SR_OK && strcmp(buf, canonical) == 0,
			    "format into %zu bytes: rc %d, \"%s\" != \"%s\"", size, rc, buf, canonical);
		}
		if (size == 0)
			FUZZ_CHECK(buf[0] == 'X', "format with size 0 wrote to the buffer");
		else if (size <= len)
			FUZZ_CHECK(memchr(buf, '\0', size) != NULL, "a failed format left no NUL in %zu bytes", size);
		free(buf);
	}
}

/* An accepted config: validate, format, parse again, compare, format again. */
static void
check_round_trip(const sr_wait_config *c, unsigned fields, const char *origin)
{
	char d1[256], d2[256];
	sr_error err;
	describe(c, d1, sizeof d1);
	FUZZ_CHECK(sr_wait_config_validate(c, &err) == SR_OK, "%s: accepted %s fails validate: %s",
	    origin, d1, err.message);

	char spec[512];
	int rc = sr_wait_config_format(c, spec, sizeof spec);
	FUZZ_CHECK(rc == SR_OK, "%s: format of %s returned %d", origin, d1, rc);

	sr_wait_config back;
	memset(&back, 0x5a, sizeof back);
	rc = sr_wait_config_parse(spec, &back, &err);
	FUZZ_CHECK(rc == SR_OK, "%s: canonical spec \"%s\" of %s does not parse: %s", origin, spec, d1,
	    err.message);
	describe(&back, d2, sizeof d2);
	FUZZ_CHECK(same_fields(c, &back, fields), "%s: \"%s\" round-trips %s to %s", origin, spec, d1, d2);

	/* Fields the spec does not carry come back as the kind's defaults. */
	sr_wait_config def;
	sr_wait_config_default(&def, back.kind);
	unsigned carried = fields_of(back.kind);
	FUZZ_CHECK(same_fields(&back, &def, ALL_FIELDS & ~carried),
	    "%s: \"%s\" parses to %s, whose uncarried fields are not the defaults", origin, spec, d2);

	char again[512];
	FUZZ_CHECK(sr_wait_config_format(&back, again, sizeof again) == SR_OK && strcmp(spec, again) == 0,
	    "%s: format is not a fixed point: \"%s\" -> \"%s\"", origin, spec, again);
	check_format_sizes(c, spec);
}

static void
flip_case(char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)p[i];
		if (isalpha(ch))
			p[i] = (char)(islower(ch) ? toupper(ch) : tolower(ch));
	}
}

/*
 * Flips the case of the strategy name, of each key and of a fallback value,
 * splitting the spec as sr_wait_config_parse does (name ':' items by ',',
 * each key '=' value).
 */
static void
flip_names(char *s)
{
	char *colon = strchr(s, ':');
	flip_case(s, colon != NULL ? (size_t)(colon - s) : strlen(s));
	if (colon == NULL)
		return;
	char *p = colon + 1;
	while (*p != '\0') {
		char *comma = strchr(p, ',');
		size_t item_len = comma != NULL ? (size_t)(comma - p) : strlen(p);
		char *eq = memchr(p, '=', item_len);
		if (eq != NULL) {
			size_t key_len = (size_t)(eq - p);
			bool fallback = key_len == 8 && strncasecmp(p, "fallback", 8) == 0;
			flip_case(p, key_len);
			if (fallback)
				flip_case(eq + 1, item_len - key_len - 1);
		} else {
			flip_case(p, item_len);
		}
		if (comma == NULL)
			break;
		p = comma + 1;
	}
}

static void
fuzz_text(const uint8_t *data, size_t size)
{
	/* An exactly sized, NUL-terminated copy: reading past the end is an ASan report. */
	char *spec = fuzz_strndup_exact(data, size);
	sr_wait_config c;
	sr_error err;
	sr_error_clear(&err);
	int rc = sr_wait_config_parse(spec, &c, &err);
	/* Without an sr_error the result is the same. */
	sr_wait_config c_noerr;
	int rc_noerr = sr_wait_config_parse(spec, &c_noerr, NULL);
	FUZZ_CHECK(rc == rc_noerr, "parse(\"%s\") gives %d with an sr_error, %d without", spec, rc, rc_noerr);

	if (rc == SR_OK) {
		FUZZ_CHECK(same_fields(&c, &c_noerr, ALL_FIELDS), "parse(\"%s\") is not deterministic", spec);
		check_round_trip(&c, ALL_FIELDS, spec);
	} else {
		check_error(rc, &err, spec);
	}

	/* Case-insensitive names: the same outcome with the names' case flipped. */
	char *flipped = fuzz_strndup_exact(spec, strlen(spec));
	flip_names(flipped);
	sr_wait_config cf;
	sr_error ef;
	int rcf = sr_wait_config_parse(flipped, &cf, &ef);
	FUZZ_CHECK(rcf == rc, "parse(\"%s\") = %d but parse(\"%s\") = %d (%s)", spec, rc, flipped, rcf,
	    rcf != SR_OK ? ef.message : "ok");
	if (rc == SR_OK)
		FUZZ_CHECK(same_fields(&c, &cf, ALL_FIELDS), "\"%s\" and \"%s\" parse differently", spec, flipped);
	free(flipped);
	free(spec);
}

/* A raw value mapped to lo - 2 .. hi + 2 most of the time, so both sides of each bound occur. */
static int64_t
near_range(fuzz_reader *r, int64_t lo, int64_t hi)
{
	uint64_t raw = fuzz_u64(r);
	if ((raw & 7) == 7)
		return (int64_t)raw;            /* anything at all, now and then */
	uint64_t span = (uint64_t)(hi - lo) + 5;
	return lo - 2 + (int64_t)((raw >> 3) % span);
}

static void
fuzz_struct(const uint8_t *data, size_t size)
{
	fuzz_reader r = { data, size };
	sr_wait_config c;
	memset(&c, 0, sizeof c);
	c.kind = (enum sr_wait_kind)near_range(&r, 0, SR_WAIT_KIND_COUNT - 1);
	c.spin_tries = (int32_t)near_range(&r, 0, SR_WAIT_MAX_TRIES);
	c.yield_tries = (int32_t)near_range(&r, 0, SR_WAIT_MAX_TRIES);
	c.sleep_ns = near_range(&r, 1, SR_WAIT_MAX_NS);
	c.timeout_ns = near_range(&r, 1000, SR_WAIT_MAX_NS);
	c.spin_ns = near_range(&r, 0, SR_WAIT_MAX_NS);
	c.yield_ns = near_range(&r, 0, SR_WAIT_MAX_NS);
	c.fallback = (enum sr_wait_kind)near_range(&r, 0, SR_WAIT_KIND_COUNT - 1);

	sr_error err;
	int rc = sr_wait_config_validate(&c, &err);
	if (rc != SR_OK) {
		FUZZ_CHECK(rc == SR_EINVAL && err.code == SR_EINVAL && err.message[0] != '\0',
		    "validate returned %d (code %d, \"%s\")", rc, err.code, err.message);
		/* An invalid config still formats without crashing. */
		char spec[512];
		(void)sr_wait_config_format(&c, spec, sizeof spec);
		return;
	}
	check_round_trip(&c, fields_of(c.kind), "struct");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_text(data, size);
	fuzz_struct(data, size);
	return 0;
}
