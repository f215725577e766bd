/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_syslog_loss.c: the syslog sink's batch books and its losses.
 * Frames leave the batch when they went or are lost; what is lost is counted
 * once, by whoever fails, and never sent again.  The consumer reports it
 * ("N message(s) could not be delivered ...") once the sink delivers again.
 */
#include "sr_log_syslog_state_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

void
sr_log__syslog_count_lost(sr_log_sink *s, int64_t messages, int why)
{
	if (messages <= 0)
		return;
	sr_atomic_faa_i64(&s->syslog->lost, messages); /* a counter only */
	s->syslog->lost_errno = why;
}

void
sr_log__syslog_lose_batch(sr_log_sink *s, int why)
{
	struct sr_log_syslog *ss = s->syslog;
	sr_log__syslog_count_lost(s, ss->frames, why);
	ss->len = ss->sent = 0;
	ss->frames = 0;
}

void
sr_log__syslog_drop_frames(struct sr_log_syslog *ss, int k)
{
	if (k <= 0)
		return;
	size_t shift = ss->ends[k - 1];
	memmove(ss->buf, ss->buf + shift, ss->len - shift);
	ss->len -= shift;
	ss->sent = ss->sent > shift ? ss->sent - shift : 0;
	for (int i = k; i < ss->frames; i++)
		ss->ends[i - k] = ss->ends[i] - shift;
	ss->frames -= k;
}

uint64_t
sr_log__syslog_lost(const sr_log_sink *s)
{
	return s->syslog != NULL ? (uint64_t)sr_atomic_load_relaxed_i64(&s->syslog->lost) : 0;
}

size_t
sr_log__syslog_loss_report(sr_log_sink *s, char *text, size_t size)
{
	struct sr_log_syslog *ss = s->syslog;
	if (ss == NULL)
		return 0;
	pthread_mutex_lock(&s->lock);
	uint64_t lost = (uint64_t)sr_atomic_load_relaxed_i64(&ss->lost);
	uint64_t delta = lost - ss->reported_lost;
	bool due = delta > 0 && ss->delivered && ss->fd >= 0;
	int why = ss->lost_errno;
	if (due) {
		ss->reported_lost = lost;
		ss->delivered = false;
	}
	pthread_mutex_unlock(&s->lock);
	if (!due)
		return 0;
	char target[300];
	sr_log__syslog_target(&s->cfg, target, sizeof target);
	int n = snprintf(text, size,
	    "%" PRIu64 " message(s) could not be delivered to log sink %d (syslog %s): %s; "
	    "delivering again", delta, s->index, target,
	    why == EAGAIN ? "the collector did not take them in time" : strerror(why));
	return n > 0 ? ((size_t)n < size ? (size_t)n : size - 1) : 0;
}
