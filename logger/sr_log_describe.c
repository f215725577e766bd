/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_describe.c: sr_log_describe, every setting with its value and
 * where it came from, then the levels (levels/sr_log_levels_describe.c prints those).
 */
#include "sr_log_categories_internal.h"
#include "sr_log_config_validate_internal.h"
#include "sr_log_crash_internal.h"
#include "sr_log_reopen_internal.h"
#include "sr_log_ring_dir_internal.h"
#include "sr_log_settings_internal.h"
#include "sr_log_sink_internal.h"
#include "sr_log_per_thread_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static void
row(FILE *out, const sr_log *log, int set, const char *value)
{
	uint8_t src = log->settings->source[set];
	fprintf(out, "  %-30s %-36s %s", sr_log__field_name(set), value, sr_log__source_name(src));
	if (src == SR_SRC_ENV && log->settings->env_value[set] != NULL)
		fprintf(out, " (%s='%s')", sr_log__env_name(set), log->settings->env_value[set]);
	else if (src == SR_SRC_ENV)
		fprintf(out, " (implied by SEQRING_LOG_PATTERN)");
	else if (log->settings->environment_read)
		fprintf(out, " (%s unset)", sr_log__env_name(set));
	fputc('\n', out);
}

static const char *
b2s(bool b)
{
	return b ? "true" : "false";
}

/* One site a run-time rule takes (sr_log_sites.h): where it is, its level and what the rules make of it. */
static int
describe_site(const sr_log_site_info *site, void *ctx)
{
	const char *base = strrchr(site->file, '/');
	fprintf(ctx, "    %s:%d %s() %s: %s%s%s\n", base != NULL ? base + 1 : site->file, site->line, site->function,
	    sr_log_level_name(site->level), sr_log_site_state_name((int)site->state), site->limit[0] != '\0' ? ", " : "",
	    site->limit);
	return 0;
}

static int
count_site(const sr_log_site_info *site, void *ctx)
{
	(void)site, (void)ctx;
	return 0;
}

/* The sites whose rules make them differ from their category (the process's, as the rules are). */
static void
describe_sites(FILE *out)
{
	long n = sr_log_sites_list(count_site, NULL, 1);
	if (n == 0)
		fprintf(out, "  sites under rules: none (every site follows its category)\n");
	else
		fprintf(out, "  sites under rules (sr_log_sites_set): %ld\n", n);
	if (n > 0)
		(void)sr_log_sites_list(describe_site, out, 1);
}

int
sr_log_describe(sr_log *log, FILE *out)
{
	if (log == NULL || out == NULL)
		return SR_EINVAL;
	char v[512];
	fprintf(out, "seqring log configuration (environment %s)\n",
	    log->settings->environment_read ? "read: SEQRING_LOG* override the code" :
	    "ignored: config.ignore_environment");
	fprintf(out, "  %-30s %-36s %s\n", "setting", "value", "source");

	bool runtime;
	sr_log__levels_spec(log, v, sizeof v, &runtime);
	row(out, log, SR_SET_LEVEL, v);
	if (runtime)
		fprintf(out, "  %-30s %-36s %s\n", "", "(changed at run time since open)", "run time");
	row(out, log, SR_SET_MODE, sr_log_mode_name(log->opt.mode));
	/* The queue and sync modes have no ring: the setting is kept, and said to be unused. */
	if (log->opt.mode == SR_LOG_MODE_RING)
		snprintf(v, sizeof v, "%s", sr_log__producer_name(log->opt.producer));
	else
		snprintf(v, sizeof v, "%s (unused: mode %s)", sr_log__producer_name(log->opt.producer),
		    sr_log_mode_name(log->opt.mode));
	row(out, log, SR_SET_PRODUCER, v);
	int64_t live, made, freed, reused;
	if (sr_log__threads_counts(log, &live, &made, &freed)) {
		int spare = sr_log__threads_spare_count(log->state, &reused);
		fprintf(out, "  %-30s %" PRId64 " live (%" PRId64 " made, %" PRId64 " freed), %d spare (%" PRId64
		    " reused)\n", "per-thread rings", live, made, freed, spare, reused);
	}
	/* A ring per thread: ring_slots sizes nothing, wherever its value came from. */
	bool per_thread = log->opt.mode == SR_LOG_MODE_RING && log->opt.producer == SR_LOG_PRODUCER_PER_THREAD;
	snprintf(v, sizeof v, "%" PRId64 "%s", log->opt.ring_slots,
	    per_thread ? " (unused: producer per_thread; thread_ring_slots sizes each thread's ring)" : "");
	row(out, log, SR_SET_RING_SLOTS, v);
	snprintf(v, sizeof v, "%zu", log->opt.slot_size);
	row(out, log, SR_SET_SLOT_SIZE, v);
	snprintf(v, sizeof v, "%" PRId64, log->opt.thread_ring_slots);
	row(out, log, SR_SET_THREAD_RING_SLOTS, v);
	/* The strategy in canonical form, with every parameter spelled out. */
	sr_wait_config wc;
	if (sr_wait_config_parse(log->opt.wait_spec, &wc, NULL) != SR_OK ||
	    sr_wait_config_format(&wc, v, sizeof v) < 0)
		snprintf(v, sizeof v, "%s", log->opt.wait_spec);
	row(out, log, SR_SET_WAIT, v);
	row(out, log, SR_SET_FULL_POLICY, sr_log_full_policy_name(log->opt.policy));
	row(out, log, SR_SET_DISCARD_LEVEL, sr_log_level_name(log->opt.discard_level));
	row(out, log, SR_SET_SYNC_ENQUEUE, b2s(log->opt.synchronize_enqueue));
	row(out, log, SR_SET_IMMEDIATE_FLUSH, b2s(log->opt.immediate_flush));
	snprintf(v, sizeof v, "%zu", log->opt.max_record);
	row(out, log, SR_SET_MAX_MESSAGE, v);
	snprintf(v, sizeof v, "%zu", log->opt.max_line);
	row(out, log, SR_SET_MAX_LINE, v);
	row(out, log, SR_SET_LAYOUT, sr_log_layout_name(log->opt.layout));
	snprintf(v, sizeof v, "%s", log->opt.pattern_text != NULL ? log->opt.pattern_text : "(none)");
	row(out, log, SR_SET_PATTERN, v);
	row(out, log, SR_SET_CLOCK, sr_log_clock_name(log->opt.clock));
	for (int i = 0; sr_log__sinks_describe(log, i, v, sizeof v); i++) {
		if (i == 0) {
			row(out, log, SR_SET_SINKS, v);
		} else {
			char name[32];
			snprintf(name, sizeof name, "sinks[%d]", i);
			fprintf(out, "  %-30s %s\n", name, v);
		}
	}
	row(out, log, SR_SET_THREAD_NAME, log->opt.thread_name);
	row(out, log, SR_SET_CLOSE_AT_EXIT, b2s(log->opt.close_at_exit));
	snprintf(v, sizeof v, "%d ms", log->opt.exit_timeout_ms);
	row(out, log, SR_SET_EXIT_TIMEOUT, v);
	row(out, log, SR_SET_FORK, sr_log__fork_policy_name(log->opt.fork_policy));
	snprintf(v, sizeof v, "%d%s", log->opt.bt_size, log->opt.bt_size == 0 ? " (off)" : "");
	row(out, log, SR_SET_BACKTRACE, v);
	row(out, log, SR_SET_BACKTRACE_LEVEL, sr_log_level_name(log->opt.bt_level));
	row(out, log, SR_SET_BACKTRACE_TRIGGER, sr_log_level_name(log->opt.bt_trigger));
	row(out, log, SR_SET_CRASH_HANDLER, b2s(sr_log__crash_installed(log)));
	row(out, log, SR_SET_DESCRIBE, b2s(log->opt.describe));
	row(out, log, SR_SET_REOPEN_SIGNAL, sr_log__reopen_signal_name(log->opt.reopen_signal));
	row(out, log, SR_SET_COLOR, sr_log_color_name(log->opt.color));
	row(out, log, SR_SET_ESCAPE, b2s(log->opt.escape_controls));
	const char *dir = sr_log__ring_dir_path(log);
	row(out, log, SR_SET_RING_DIR, dir != NULL ? dir : "(none: the rings are in anonymous memory)");
	row(out, log, SR_SET_SITES, log->opt.sites != NULL ? log->opt.sites : "(none applied at open)");
	const sr_log_ring_dir_recovery *rec = sr_log__ring_dir_recovery(log);
	if (rec != NULL && rec->done)
		fprintf(out, "  %-30s %" PRIu64 " records of pid %" PRId64 " written at open (%" PRIu64
		    " claimed slots unpublished, %" PRIu64 " unresolved%s)\n", "recovery", rec->records, rec->pid,
		    rec->unpublished, rec->unresolved, rec->cut_write ? ", a cut write done again" : "");
	else if (rec != NULL)
		fprintf(out, "  %-30s %s\n", "recovery", "none at open (no dead process's rings in the directory)");

	sr_log__levels_describe(log, out);
	describe_sites(out);
	fflush(out);
	return SR_OK;
}
