/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_level_spec.c: libFuzzer target for the SEQRING_LOG level-spec parser
 * (sr_log_set_level_spec / sr_log_level_spec in logger/sr_log.h).
 *
 * One logger (16 slots, a null sink, environment ignored) is opened once; each
 * input, as a C string, is applied as a spec.  Properties:
 *   - the parser never crashes or reads past the string (ASan);
 *   - a refused spec returns SR_EINVAL with a non-empty message and changes
 *     nothing: the levels in force print the same spec as before;
 *   - an accepted spec prints (sr_log_level_spec) as a canonical spec that
 *     parses again and prints identically (a fixed point);
 *   - the level of any dotted name looked up afterwards is a valid level.
 */
#include <stdint.h>
#include <string.h>

#include "fuzz_support.h"
#include <seqring/sr_log.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static sr_log *
the_logger(void)
{
	static sr_log *log;
	if (log == NULL) {
		sr_log_config c;
		sr_log_config_default(&c);
		sr_sink_config sink = sr_sink_null();
		c.ring_slots = 16;
		c.slot_size = 64;
		c.max_message_bytes = 1024;
		c.sinks = &sink;
		c.sink_count = 1;
		c.ignore_environment = true;
		sr_error err;
		log = sr_log_open(&c, &err);
		FUZZ_CHECK(log != NULL, "open: %s", err.message);
	}
	return log;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sr_log *log = the_logger();
	char *spec = fuzz_strndup_exact(data, size);
	char before[4096], after[4096], again[4096];
	FUZZ_CHECK(sr_log_level_spec(log, before, sizeof before) < (int)sizeof before, "spec too long");

	sr_error err = { 0, "" };
	int rc = sr_log_set_level_spec(log, spec, &err);
	if (rc != SR_OK) {
		FUZZ_CHECK(rc == SR_EINVAL, "rc %d for '%s'", rc, spec);
		FUZZ_CHECK(err.message[0] != '\0' && memchr(err.message, '\0', sizeof err.message) != NULL,
		    "empty or unterminated message for '%s'", spec);
		FUZZ_CHECK(sr_log_level_spec(log, after, sizeof after) >= 0 && strcmp(before, after) == 0,
		    "a refused spec '%s' changed the levels: '%s' -> '%s'", spec, before, after);
	} else {
		int n = sr_log_level_spec(log, after, sizeof after);
		if (n >= 0 && n < (int)sizeof after) {
			FUZZ_CHECK(sr_log_set_level_spec(log, after, &err) == SR_OK,
			    "canonical spec '%s' (from '%s') refused: %s", after, spec, err.message);
			FUZZ_CHECK(sr_log_level_spec(log, again, sizeof again) == n && strcmp(after, again) == 0,
			    "not a fixed point: '%s' -> '%s'", after, again);
		}
		/* Look up a name made of the input's first bytes (dots kept). */
		char name[64];
		size_t k = 0;
		for (size_t i = 0; i < size && k + 1 < sizeof name; i++)
			if ((data[i] >= 'a' && data[i] <= 'z') || data[i] == '.')
				name[k++] = (char)data[i];
		name[k] = '\0';
		sr_log_level lvl = sr_log_level_for(log, name);
		FUZZ_CHECK((int)lvl >= SR_LOG_TRACE && (int)lvl <= SR_LOG_OFF, "level %d for '%s'", (int)lvl, name);
	}
	free(spec);
	return 0;
}
