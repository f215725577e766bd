/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_log_written.c: `written` counts only what reached the sinks; what
 * failed is counted apart (write_failed, and each sink's lost_messages).
 *
 * A file sink on /dev/full takes no byte (ENOSPC): in every mode, 3,001
 * messages give accepted 3,001, written 0, write_failed 3,001.  With a
 * second, working sink next to it, every line reached the working one and
 * failed on the full one: still counted failed, and the working sink's
 * file has every line.
 */
#include "test_log_support.h"

#include <stdio.h>
#include <unistd.h>

enum { MESSAGES = 3001 };

typedef struct mode_case {
	sr_log_mode mode;
	sr_log_producer producer;
	bool immediate;
	const char *name;
} mode_case;

static const mode_case cases[] = {
	{ SR_LOG_MODE_RING, SR_LOG_PRODUCER_SHARED, true, "ring" },
	{ SR_LOG_MODE_RING, SR_LOG_PRODUCER_PER_THREAD, true, "ring per_thread" },
	{ SR_LOG_MODE_QUEUE, SR_LOG_PRODUCER_SHARED, true, "queue" },
	{ SR_LOG_MODE_SYNC, SR_LOG_PRODUCER_SHARED, true, "sync" },
	{ SR_LOG_MODE_SYNC, SR_LOG_PRODUCER_SHARED, false, "sync buffered" },
};

static sr_log_counters
log_to(const mode_case *m, sr_sink_config *sinks, int n)
{
	sr_log_config c;
	sr_log_config_default(&c);
	c.ignore_environment = true;
	c.sinks = sinks;
	c.sink_count = n;
	c.mode = m->mode;
	c.producer = m->producer;
	c.immediate_flush = m->immediate;
	c.ring_slots = 1024;
	c.thread_ring_slots = 1024;
	sr_error err;
	sr_log *log = sr_log_open(&c, &err);
	cr_assert_not_null(log, "%s: %s", m->name, err.message);
	sr_category *cat = sr_log_category(log, "full");
	for (int i = 0; i < MESSAGES; i++)
		SR_INFO(cat, "W#%d. for a disk that is full", i);
	sr_log_shutdown(log);
	sr_log_counters st = tl_stats(log);
	sr_log_close(&log);
	return st;
}

Test(log_written, dev_full_writes_nothing_and_says_so)
{
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		sr_sink_config full = sr_sink_file("/dev/full");
		sr_log_counters st;
		char *err = NULL;
		tl_stderr s;
		tl_stderr_begin(&s);
		st = log_to(&cases[k], &full, 1);
		err = tl_stderr_end(&s);
		cr_expect_eq(st.accepted, MESSAGES, "%s: accepted %llu", cases[k].name, (unsigned long long)st.accepted);
		cr_expect_eq(st.written, 0, "%s: written %llu though no byte reached the file", cases[k].name,
		    (unsigned long long)st.written);
		cr_expect_eq(st.write_failed, MESSAGES, "%s: write_failed %llu", cases[k].name,
		    (unsigned long long)st.write_failed);
		cr_expect_eq(st.sinks[0].lost_messages, MESSAGES, "%s: lost_messages %llu", cases[k].name,
		    (unsigned long long)st.sinks[0].lost_messages);
		cr_expect_eq(st.sinks[0].bytes, 0);
		cr_expect_geq(st.sinks[0].errors, 1);
		cr_expect_not_null(strstr(err, "No space left on device"), "%s: stderr: %s", cases[k].name, err);
		free(err);
	}
}

Test(log_written, a_working_sink_beside_a_full_one)
{
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		char path[64];
		tl_temp_path(path, sizeof path, "written");
		sr_sink_config sinks[2] = { sr_sink_file(path), sr_sink_file("/dev/full") };
		tl_stderr s;
		tl_stderr_begin(&s);
		sr_log_counters st = log_to(&cases[k], sinks, 2);
		free(tl_stderr_end(&s));
		tl_tally t = tl_tally_lines(path, "W", MESSAGES);
		cr_expect_eq(t.lines, MESSAGES, "%s: %d lines in the working file", cases[k].name, t.lines);
		cr_expect_eq(st.sinks[0].lost_messages, 0, "%s", cases[k].name);
		cr_expect_eq(st.sinks[1].lost_messages, MESSAGES, "%s", cases[k].name);
		cr_expect_eq(st.written + st.write_failed, st.accepted, "%s: written %llu + failed %llu != accepted %llu",
		    cases[k].name, (unsigned long long)st.written, (unsigned long long)st.write_failed,
		    (unsigned long long)st.accepted);
		cr_expect_eq(st.write_failed, MESSAGES, "%s: every line failed on the full sink", cases[k].name);
		unlink(path);
	}
}
