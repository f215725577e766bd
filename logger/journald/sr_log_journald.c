/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_journald.c: a journald sink's client: made at open, a record's
 * fields assembled (sr_log_journald_fields.c) into a buffer the client
 * keeps, and sent (sr_log_journald_socket.c); its losses counted and
 * reported, its configuration described.
 *
 * Faults, as the syslog sink meets them on its local socket:
 *   - journald is absent at open (no socket, or nobody behind it): the open
 *     succeeds; each record finds the client unconnected, tries again when
 *     the backoff allows (doubling from 10 ms up to reconnect_max_ms) and
 *     is counted lost meanwhile.
 *   - journald stops or restarts: the send fails (ECONNREFUSED, ENOTCONN);
 *     the client reconnects at once and sends the record again (a datagram
 *     that failed was not delivered: never twice), else counts it lost.
 *   - journald is slow: a send waits at most write_timeout_ms for room in
 *     its queue, then the record is lost (counted), and the client waits no
 *     more until a send goes again.
 * Once the client delivers after a loss, the consumer writes "N message(s)
 * could not be delivered to log sink I (journald PATH): WHY; delivering
 * again" to every sink, as the syslog sink's report.
 *
 * No allocation per record: the fields' buffer and the message's are the
 * client's, grown only for a record bigger than any before (the memfd path
 * makes a memfd).
 */
#include "sr_log_identity_internal.h"
#include "sr_log_journald_state_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
sr_log__journald_open(const sr_sink_config *c, int index, size_t max_line, sr_log_journald **out,
    sr_error *err)
{
	sr_log_journald *j = calloc(1, sizeof *j);
	if (j == NULL)
		return sr_error_set(err, SR_ENOMEM, "cannot allocate journald sink %d", index);
	j->index = index;
	j->fd = -1;
	snprintf(j->path, sizeof j->path, "%s", c->syslog_address != NULL ? c->syslog_address : SR_JOURNALD_DEFAULT_SOCKET);
	if (c->syslog_app != NULL)
		snprintf(j->ident, sizeof j->ident, "%s", c->syslog_app);
	else
		sr_log__program_name(j->ident, sizeof j->ident);
	j->ident_len = strlen(j->ident);
	j->timeout_ms = c->write_timeout_ms;
	j->reconnect_max_ms = c->reconnect_max_ms;
	j->backoff_ms = SR_JOURNALD_FIRST_BACKOFF_MS;
	j->stamp_sec = INT64_MIN;
	/* The message, and its datagram with room for the other fields: made once, reused. */
	j->msg_cap = max_line;
	j->msg = malloc(j->msg_cap + SR_FMT_LINE_RESERVE);
	j->dgram.cap = max_line + 4096;
	j->dgram.data = malloc(j->dgram.cap);
	if (j->msg == NULL || j->dgram.data == NULL) {
		sr_log__journald_free(j);
		return sr_error_set(err, SR_ENOMEM, "cannot allocate journald sink %d", index);
	}
	/* journald may be absent: that is no error, the client retries. */
	(void)sr_log__journald_try_connect(j);
	*out = j;
	return SR_OK;
}

static void
count_lost(sr_log_journald *j, int why)
{
	sr_log__journald_add(&j->lost, 1);
	j->lost_errno = why;
}

/* A failed send: the connection is gone (journald stopped or restarted), not merely busy. */
static bool
connection_lost(int e)
{
	return e != EAGAIN && e != EMSGSIZE && e != ENOMEM && e != EMFILE && e != ENFILE;
}

void
sr_log__journald_send(sr_log_journald *j, const sr_log_event *ev, int level, const char *line, size_t len,
    bool message_from_event)
{
	const char *msg = line;
	size_t msg_len = len;
	if (message_from_event && ev != NULL) {
		/* The message alone, control characters as they are: a field's length frames it. */
		sr_fmt_buf b = { j->msg, 0, j->msg_cap, 0 };
		sr_log__put_message(ev, &b);
		if (sr_fmt_buf_truncated(&b)) {
			static const char mark[] = " " SR_FMT_TRUNCATION_MARKER;
			memcpy(b.data + b.len, mark, sizeof mark - 1);
			b.len += sizeof mark - 1;
		}
		msg = b.data;
		msg_len = b.len;
	} else if (msg_len > 0 && msg[msg_len - 1] == '\n') {
		msg_len--;
	}
	if (!sr_log__journald_ensure_connected(j)) {
		count_lost(j, j->last_errno);
		return;
	}
	sr_log__journald_make_fields(j, ev, level, msg, msg_len);
	if (j->dgram.failed) {
		sr_log__journald_add(&j->errors, 1);
		count_lost(j, ENOMEM);
		return;
	}
	int e = sr_log__journald_send_payload(j, j->dgram.data, j->dgram.len);
	if (e != 0 && connection_lost(e)) {
		/* journald went away (or restarted): the datagram was not delivered, so it may go again, once. */
		sr_log__journald_add(&j->errors, 1);
		sr_log__journald_disconnect(j);
		j->last_errno = e;
		e = sr_log__journald_try_connect(j) ? sr_log__journald_send_payload(j, j->dgram.data, j->dgram.len) : e;
		if (e != 0 && connection_lost(e) && j->fd >= 0) {
			sr_log__journald_disconnect(j);
			j->next_attempt_ns = 0;
		}
	}
	if (e != 0) {
		if (!connection_lost(e))
			sr_log__journald_add(&j->errors, 1);
		count_lost(j, e);
		return;
	}
	j->delivered = true;
	sr_log__journald_add(&j->writes, 1);
	sr_log__journald_add(&j->bytes, (int64_t)j->dgram.len);
}

void
sr_log__journald_close(sr_log_journald *j)
{
	if (j != NULL)
		sr_log__journald_disconnect(j);
}

void
sr_log__journald_free(sr_log_journald *j)
{
	if (j == NULL)
		return;
	sr_log__journald_disconnect(j);
	free(j->msg);
	free(j->dgram.data);
	free(j);
}

void
sr_log__journald_counters(const sr_log_journald *j, sr_log_sink_counters *o)
{
	if (j == NULL)
		return;
	o->writes += (uint64_t)sr_atomic_load_relaxed_i64(&j->writes);
	o->bytes += (uint64_t)sr_atomic_load_relaxed_i64(&j->bytes);
	o->errors += (uint64_t)sr_atomic_load_relaxed_i64(&j->errors);
	o->lost_messages += (uint64_t)sr_atomic_load_relaxed_i64(&j->lost);
}

size_t
sr_log__journald_loss_report(sr_log_journald *j, char *text, size_t size)
{
	if (j == NULL)
		return 0;
	uint64_t lost = (uint64_t)sr_atomic_load_relaxed_i64(&j->lost);
	uint64_t delta = lost - j->reported_lost;
	if (delta == 0 || !j->delivered || j->fd < 0)
		return 0;
	j->reported_lost = lost;
	j->delivered = false;
	int why = j->lost_errno;
	int n = snprintf(text, size,
	    "%" PRIu64 " message(s) could not be delivered to log sink %d (journald %s): %s; delivering again",
	    delta, j->index, j->path, why == EAGAIN ? "journald did not take them in time" : strerror(why));
	return n > 0 ? ((size_t)n < size ? (size_t)n : size - 1) : 0;
}

void
sr_log__journald_describe(const sr_sink_config *c, char *buf, size_t size)
{
	char app[64];
	if (c->syslog_app != NULL)
		snprintf(app, sizeof app, "%s", c->syslog_app);
	else
		sr_log__program_name(app, sizeof app);
	snprintf(buf, size, "journald %s level=%s app=%s timeout=%d reconnect_max=%d",
	    c->syslog_address != NULL ? c->syslog_address : SR_JOURNALD_DEFAULT_SOCKET,
	    sr_log_level_name(c->level), app, c->write_timeout_ms, c->reconnect_max_ms);
}
