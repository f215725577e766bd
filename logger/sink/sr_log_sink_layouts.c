/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_sink_layouts.c: a layout per sink.  At open, the sinks' layouts are
 * gathered into a table of distinct ones (0 is the logger's own), and for
 * each level the set of layouts some sink taking that level uses, so that
 * the consumer renders a record once per layout in that set, not once per
 * sink (sr_log_fanout.c).
 */
#include "sr_log_names_internal.h"
#include "sr_log_sink_internal.h"

#include <stdio.h>
#include <string.h>

/* The index of a layout equal to (layout, pattern text) in the table, or -1. */
static int
find_layout(const struct sr_log_sinks *sinks, const char *const *texts, sr_log_layout layout,
    const char *pattern)
{
	for (int k = 0; k < sinks->layout_count; k++) {
		if (sinks->layouts[k].layout != layout)
			continue;
		if (layout != SR_LOG_LAYOUT_PATTERN || (texts[k] != NULL && strcmp(texts[k], pattern) == 0))
			return k;
	}
	return -1;
}

int
sr_log__sinks_layouts_open(sr_log *log, const sr_sink_config *configs, int count, sr_error *err)
{
	struct sr_log_sinks *sinks = log->sinks;
	const char *texts[SR_LOG_MAX_SINKS + 1] = { log->opt.pattern_text };
	sinks->layout_count = 1;
	sinks->layouts[0] = (sr_log_layout_choice){ log->opt.layout, log->pattern };
	for (int i = 0; i < sinks->n; i++) {
		sr_log_sink *s = &sinks->s[i];
		const sr_sink_config *c = count > 0 ? &configs[i] : NULL;
		s->layout = 0;
		if (c == NULL || c->layout == SR_LOG_LAYOUT_LOGGER)
			continue;
		int k = find_layout(sinks, texts, c->layout, c->pattern);
		if (k < 0) {
			if (log->opt.mode == SR_LOG_MODE_QUEUE)
				return sr_error_set(err, SR_EINVAL,
				    "config.sinks[%d].layout %s differs from the logger's (%s) but mode is queue: "
				    "the caller renders one line before it queues (expected SR_LOG_LAYOUT_LOGGER, "
				    "or mode ring or sync)", i, sr_log_layout_name(c->layout),
				    sr_log_layout_name(log->opt.layout));
			k = sinks->layout_count;
			sr_log_pattern *p = NULL;
			if (c->layout == SR_LOG_LAYOUT_PATTERN && sr_log__pattern_compile(c->pattern, &p, err) != SR_OK)
				return err != NULL ? err->code : SR_EINVAL;
			sinks->layouts[k] = (sr_log_layout_choice){ c->layout, p };
			texts[k] = c->pattern;
			sinks->layout_count++;
		}
		s->layout = k;
	}
	sinks->has_syslog = false;
	sinks->has_journald = false;
	sinks->journald_events = false;
	sinks->has_ctf = false;
	sinks->ctf_count = 0;
	for (int i = 0; i < sinks->n; i++) {
		if (sinks->s[i].cfg.kind == SR_SINK_CTF)
			sinks->ctf_sinks[sinks->ctf_count++] = i;
		sinks->has_syslog |= sinks->s[i].cfg.kind == SR_SINK_SYSLOG;
		sinks->has_journald |= sinks->s[i].cfg.kind == SR_SINK_JOURNALD;
		sinks->journald_events |= sinks->s[i].takes_events;
		sinks->has_ctf |= sinks->s[i].cfg.kind == SR_SINK_CTF;
		if (sinks->s[i].cfg.kind == SR_SINK_CTF && log->opt.mode == SR_LOG_MODE_QUEUE)
			return sr_error_set(err, SR_EINVAL,
			    "config.sinks[%d] is a ctf sink but mode is queue: the caller renders one line before it "
			    "queues, and a trace takes the record itself (expected mode ring or sync)", i);
	}
	for (int l = 0; l < SR_LOG_LEVEL_COUNT; l++) {
		unsigned mask = 0;
		/*
		 * A ctf sink renders no line: it takes the event itself
		 * (sr_log__dispatch_event); so does a journald sink with the default
		 * layout (sr_log__dispatch_journald_events).
		 */
		for (int i = 0; i < sinks->n; i++)
			if (l >= (int)sinks->s[i].cfg.level && sinks->s[i].cfg.kind != SR_SINK_CTF &&
			    !sinks->s[i].takes_events)
				mask |= 1u << sinks->s[i].layout;
		sinks->layouts_for_level[l] = mask;
	}
	return SR_OK;
}

void
sr_log__sinks_layouts_free(struct sr_log_sinks *sinks)
{
	/* Patterns past 0 were compiled for the sinks; 0's is the logger's. */
	for (int k = 1; k < sinks->layout_count; k++)
		sr_log__pattern_free((sr_log_pattern *)sinks->layouts[k].pattern);
	sinks->layout_count = 0;
}

int
sr_log__sink_layout_describe(const sr_log *log, const sr_log_sink *s, char *buf, size_t size)
{
	const sr_log_layout_choice *lc = &log->sinks->layouts[s->layout];
	bool own = s->cfg.layout != SR_LOG_LAYOUT_LOGGER;
	if (lc->layout == SR_LOG_LAYOUT_PATTERN)
		return snprintf(buf, size, "layout=pattern '%s'%s",
		    own ? s->cfg.pattern : log->opt.pattern_text, own ? "" : " (the logger's)");
	return snprintf(buf, size, "layout=%s%s", sr_log_layout_name(lc->layout), own ? "" : " (the logger's)");
}
