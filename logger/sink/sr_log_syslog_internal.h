/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_syslog_internal.h: the syslog sink (internal; sr_log_sink_syslog.c
 * opens and closes it, with the parts sr_log_syslog_state_internal.h lists:
 * framing, describing, loss, connecting, sending; sr_log_syslog_parse.c reads
 * the SEQRING_LOG_SINK form).
 *
 * append and flush run on the consumer (or at open and close); send_now on a
 * caller under the sink's lock (sync mode, policy sync).  The syslog state
 * (connection, batch, frame) is touched only under that lock.
 */
#ifndef SR_LOG_SYSLOG_INTERNAL_H
#define SR_LOG_SYSLOG_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "sr_log_sink_internal.h"

/* The SD-ID of the structured data: the enterprise number RFC 5612 reserves for examples. */
#define SR_SYSLOG_SD_ID "seqring@32473"
/* The structured-data element of a call's key-value fields (SR_KV), one SD-PARAM each. */
#define SR_SYSLOG_FIELDS_SD_ID "fields@32473"
/* The longest SD-NAME (RFC 5424): a longer key is cut. */
#define SR_SYSLOG_SD_NAME_MAX 32
/* The longest datagram (UDP, unix datagram, /dev/log): rsyslog's default maxMessageSize. */
#define SR_SYSLOG_MAX_DATAGRAM 8192
/* The first wait between two connection attempts (it doubles up to reconnect_max_ms). */
#define SR_SYSLOG_FIRST_BACKOFF_MS 10

/* At open: builds the state, tries to connect once (a failure is not an error). */
int sr_log__syslog_open(sr_log_sink *s, size_t max_line, sr_error *err);
/* Consumer: frames a line (ev: its event, or NULL) into the sink's batch. */
void sr_log__syslog_append(sr_log_sink *s, const sr_log_event *ev, int level, const char *line, size_t len);
/* Consumer: sends the batch (connecting first when due); what cannot go is counted lost. */
void sr_log__syslog_flush(sr_log_sink *s);
/* A caller: frames and sends one message now.  s->lock held. */
void sr_log__syslog_send_now_locked(sr_log_sink *s, const sr_log_event *ev, int level,
    const char *line, size_t len);
/* Flushes what is left, then closes the connection.  s->lock held. */
void sr_log__syslog_close(sr_log_sink *s);
void sr_log__syslog_free(sr_log_sink *s);
/* Messages this sink could not deliver, in all. */
uint64_t sr_log__syslog_lost(const sr_log_sink *s);
/*
 * Consumer: when messages were lost since the last report and the sink
 * delivers again, writes "N message(s) could not be delivered ..." into
 * text (size bytes) and returns its length; 0 when there is nothing to say.
 */
size_t sr_log__syslog_loss_report(sr_log_sink *s, char *text, size_t size);
/* "syslog tcp://127.0.0.1:514 facility=user format=5424 app=NAME" */
void sr_log__syslog_describe(const sr_sink_config *c, char *buf, size_t size);
/* "udp://HOST:PORT", "unix:PATH", "local" (/dev/log). */
void sr_log__syslog_target(const sr_sink_config *c, char *buf, size_t size);

/* ---- sr_log_syslog_parse.c: names ---- */

/* The facility's number for a name ("user", "local0", ... or 0 to 23); -1 for none. */
int sr_log__syslog_facility_parse(const char *name);
/* True for an APP-NAME of 1 to 48 printable characters without spaces. */
/* "kern", "user", ... "local7"; "?" past 23. */
const char *sr_log__syslog_facility_name(int facility);
#define SR_SYSLOG_FACILITIES_EXPECTED \
	"expected kern, user, mail, daemon, auth, syslog, lpr, news, uucp, cron, authpriv, ftp, " \
	"local0 to local7, or 0 to 23"
/*
 * Parses the head of a SEQRING_LOG_SINK syslog sink ("syslog",
 * "syslog:udp://HOST:PORT", "syslog:tcp://HOST:PORT", "syslog:unix:PATH")
 * into *c (addresses point into head).  0, or -1 with why (why_size bytes).
 */
int sr_log__syslog_parse_head(char *head, sr_sink_config *c, char *why, size_t why_size);
/*
 * Parses one option of a syslog sink (facility=, format=, app=, reconnect=):
 * 1 when it was one and is valid, 0 when key is not a syslog option, -1 with
 * why when its value is invalid.
 */
int sr_log__syslog_parse_option(const char *key, const char *val, sr_sink_config *c, char *why,
    size_t why_size);

#endif /* SR_LOG_SYSLOG_INTERNAL_H */
