/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_pattern.c: libFuzzer target for the pattern-layout parser and
 * renderer (sr_log_pattern_check, SR_LOG_LAYOUT_PATTERN in logger/sr_log.h).
 *
 * Each input, as a C string, is checked as a pattern.  Properties:
 *   - the check never crashes or reads past the string (ASan);
 *   - a refused pattern returns SR_EINVAL with a non-empty message;
 *   - an accepted pattern opens a logger (callback sink, 16 slots), which
 *     renders one message through it: the line arrives, once, within
 *     max_line_bytes, ending with a newline when the pattern prints one.
 */
#include <stdint.h>
#include <string.h>

#include "fuzz_support.h"
#include <seqring/sr_log.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct capture {
	int lines;
	size_t bytes;
};

static int
capture_line(void *ctx, sr_log_level level, const char *line, size_t len)
{
	struct capture *c = ctx;
	(void)level;
	(void)line;
	c->lines++;
	c->bytes += len;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *pattern = fuzz_strndup_exact(data, size);
	sr_error err = { 0, "" };
	int rc = sr_log_pattern_check(pattern, &err);
	if (rc != SR_OK) {
		FUZZ_CHECK(rc == SR_EINVAL, "rc %d for '%s'", rc, pattern);
		FUZZ_CHECK(err.message[0] != '\0', "empty message for '%s'", pattern);
		free(pattern);
		return 0;
	}
	struct capture cap = { 0, 0 };
	sr_log_config c;
	sr_log_config_default(&c);
	sr_sink_config sink = sr_sink_callback(capture_line, &cap);
	c.ring_slots = 16;
	c.slot_size = 64;
	c.max_message_bytes = 1024;
	c.max_line_bytes = 4096;
	c.layout = SR_LOG_LAYOUT_PATTERN;
	c.pattern = pattern;
	c.sinks = &sink;
	c.sink_count = 1;
	c.ignore_environment = true;
	c.wait_strategy = "block";
	sr_log *log = sr_log_open(&c, &err);
	FUZZ_CHECK(log != NULL, "pattern '%s' passed the check but open failed: %s", pattern, err.message);
	sr_category *cat = sr_log_category(log, "fuzz.pattern");
	SR_WARN(cat, "message %d %s", 42, "text");
	FUZZ_CHECK(sr_log_flush(log) == SR_OK, "flush");
	FUZZ_CHECK(cap.lines == 1, "%d lines for pattern '%s'", cap.lines, pattern);
	FUZZ_CHECK(cap.bytes <= 4096 + 64, "%zu bytes for pattern '%s'", cap.bytes, pattern);
	sr_log_close(&log);
	free(pattern);
	return 0;
}
