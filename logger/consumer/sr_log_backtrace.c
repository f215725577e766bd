/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_backtrace.c: the backtrace, a flight recorder of recent messages.
 *
 * With config.backtrace_size N > 0, each category's call-site level is
 * lowered to backtrace_level, so that messages below the category's own
 * (write) level still reach the ring.  The consumer does not write them: it
 * copies each record into a ring of N entries (the oldest is overwritten and
 * counted as discarded).  When a message at or above backtrace_trigger is
 * written, the consumer first renders the kept records, oldest first,
 * marked as backtrace lines, and hands them to the sinks that take the
 * trigger message; then it forgets them.  Formatting a kept message costs
 * nothing until a trigger comes; the caller's cost is the same as for any
 * enabled message (a record copy), which is the price of having the
 * context of a failure without writing debug output all the time.
 *
 * Everything here runs on the consumer thread and touches only its data.
 * Entries keep whole records (header and arguments), so a kept record is
 * rendered exactly as it would have been when it was logged; its call site
 * and category outlive it as every record's do.
 */
#include "sr_log_backtrace_internal.h"
#include "sr_log_event_internal.h"
#include "sr_log_sink_internal.h"
#include "sr_log_fanout_internal.h"

#include <stdlib.h>
#include <string.h>

/* One kept message: its whole record (header and arguments). */
typedef struct bt_entry {
	unsigned char *rec;
	size_t len, cap;
} bt_entry;

/* The consumer's ring of kept messages. */
struct sr_log_backtrace {
	bt_entry *entries;        /* opt.bt_size of them */
	int head, count;
};

int
sr_log__bt_open(sr_log *log, sr_error *err)
{
	if (log->opt.bt_size == 0)
		return SR_OK;
	log->bt = calloc(1, sizeof *log->bt);
	if (log->bt != NULL)
		log->bt->entries = calloc((size_t)log->opt.bt_size, sizeof *log->bt->entries);
	if (log->bt == NULL || log->bt->entries == NULL)
		return sr_error_set(err, SR_ENOMEM, "cannot allocate a backtrace of %d messages", log->opt.bt_size);
	return SR_OK;
}

void
sr_log__bt_free(sr_log *log)
{
	if (log->bt == NULL)
		return;
	for (int i = 0; log->bt->entries != NULL && i < log->opt.bt_size; i++)
		free(log->bt->entries[i].rec);
	free(log->bt->entries);
	free(log->bt);
	log->bt = NULL;
}

void
sr_log__bt_keep(sr_log *log, const sr_log_rec *h, const unsigned char *body, size_t body_len)
{
	struct sr_log_backtrace *bt = log->bt;
	int size = log->opt.bt_size;
	int slot = (bt->head + bt->count) % size;
	if (bt->count == size) {
		/* Full: the oldest goes. */
		slot = bt->head;
		bt->head = (bt->head + 1) % size;
		/* A counter for sr_log_stats; no data rides on it. */
		sr_atomic_faa_i64(&log->totals.backtrace_discarded, 1);
	} else {
		bt->count++;
	}
	bt_entry *e = &bt->entries[slot];
	size_t need = sizeof *h + body_len;
	if (e->cap < need) {
		/* Grown once to the largest record seen in this slot, then reused. */
		unsigned char *grown = realloc(e->rec, need);
		if (grown == NULL) {
			e->len = 0;
			return;
		}
		e->rec = grown;
		e->cap = need;
	}
	memcpy(e->rec, h, sizeof *h);
	memcpy(e->rec + sizeof *h, body, body_len);
	e->len = need;
}

void
sr_log__bt_dump(sr_log *log, int level, char *line)
{
	struct sr_log_backtrace *bt = log->bt;
	if (bt == NULL || bt->count == 0)
		return;
	uint64_t written = 0;
	for (int i = 0; i < bt->count; i++) {
		bt_entry *e = &bt->entries[(bt->head + i) % log->opt.bt_size];
		if (e->len < sizeof(sr_log_rec))
			continue;
		sr_log_rec h;
		memcpy(&h, e->rec, sizeof h);
		sr_log_event ev;
		sr_log__event_of_record(log, &h, e->rec + sizeof h, e->len - sizeof h, true, false, &ev);
		/* The trigger's level decides which sinks get the context. */
		sr_log__fanout(log, &ev, level, SR_DISPATCH_BUFFERED, line);
		e->len = 0;
		written++;
	}
	bt->head = 0;
	bt->count = 0;
	if (written > 0)
		sr_atomic_faa_i64(&log->totals.backtrace_written, (int64_t)written); /* a counter only */
}
