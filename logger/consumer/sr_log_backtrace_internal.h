/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_backtrace_internal.h: the backtrace, the consumer's flight recorder
 * of messages below their category's level (internal; sr_log_backtrace.c).
 */
#ifndef SR_LOG_BACKTRACE_INTERNAL_H
#define SR_LOG_BACKTRACE_INTERNAL_H

#include "sr_log_internal.h"
#include "sr_log_sites_internal.h"

/* Allocates the backtrace when opt.bt_size > 0. */
int sr_log__bt_open(sr_log *log, sr_error *err);
void sr_log__bt_free(sr_log *log);
/* Consumer: keeps a copy of a record below its category's level. */
void sr_log__bt_keep(sr_log *log, const sr_log_rec *h, const unsigned char *body, size_t body_len);
/*
 * Consumer: renders what is kept, marked, into line (opt.max_line +
 * SR_FMT_LINE_RESERVE bytes), hands each to the sinks at `level`, empties it.
 */
void sr_log__bt_dump(sr_log *log, int level, char *line);

/* True when a message through its category was let in for the backtrace only. */
static inline bool
sr_log__bt_only(const sr_log *log, const sr_log_rec *h)
{
	/* Relaxed: see the category's write_level; no data rides on it. */
	return log->opt.bt_size > 0 && h->cat != NULL &&
	    (int)h->level < sr_atomic_load_relaxed_i32(&h->cat->write_level) &&
	    /* a site a run-time rule switched on is written, not kept (sr_log_sites.h) */
	    (h->site == NULL || sr_atomic_load_relaxed_i32(&h->site->control) == 0 ||
	    sr_log__site_outcome(h->site, h->cat) != SR_LOG__SITE_IS_ON);
}

#endif /* SR_LOG_BACKTRACE_INTERNAL_H */
