/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_journald_internal.h: systemd-journald's native protocol
 * (internal): the room's face for the sink room, which owns a journald
 * sink's client and calls it under the sink's lock, and for the
 * configuration, which parses and checks the sink's settings.
 *
 * A record becomes one datagram of journal fields on an AF_UNIX datagram
 * socket (https://systemd.io/JOURNAL_NATIVE_PROTOCOL/); one too big for a
 * datagram goes in a sealed memfd passed with SCM_RIGHTS.  The room knows
 * events and the sink's configuration, never the sink itself: it counts its
 * own writes, bytes, errors and losses, and the sink adds them to its
 * counters.
 *
 * The room's files, bottom first: sr_log_journald_fields.c (a field, and a
 * record's fields), sr_log_journald_socket.c (connecting, sending, the
 * memfd), sr_log_journald.c (the client: open, send a record, losses,
 * describe), sr_log_journald_parse.c (SEQRING_LOG_SINK's journald form and
 * the checks at open).
 */
#ifndef SR_LOG_JOURNALD_INTERNAL_H
#define SR_LOG_JOURNALD_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sr_log_config.h"
#include "sr_log_event_internal.h"

/* journald's socket when the sink names none. */
#define SR_JOURNALD_DEFAULT_SOCKET "/run/systemd/journal/socket"
/* The longest field name the journal accepts. */
#define SR_JOURNALD_NAME_MAX 64

/* ---- sr_log_journald_fields.c: the native format ---- */

/* A growing buffer of fields: a datagram's payload.  failed: memory ran out, the record is lost. */
typedef struct sr_journald_buf {
	char *data;
	size_t len, cap;
	bool failed;
} sr_journald_buf;

/*
 * The journal's name for name[0..n) in out (SR_JOURNALD_NAME_MAX + 1 bytes,
 * NUL-terminated); its length.  A valid name (A-Z, 0-9 and '_', not
 * starting with '_' or a digit, 1 to 64 characters) is kept as it is; any
 * other is mapped, never refused: a-z to A-Z, every other byte to '_', a
 * name that then starts with '_' or a digit (or is empty) gets "X" in
 * front, and the result is cut at 64 characters.  So "user.id" is USER_ID,
 * "_pid" X_PID and "2fa" X2FA.
 */
size_t sr_log__journald_field_name(const char *name, size_t n, char *out);
/* True when name[0..n) is a valid journal field name as it is. */
bool sr_log__journald_name_valid(const char *name, size_t n);
/*
 * Appends one field, NAME=value, to b: the name mapped as
 * sr_log__journald_field_name says; a value with a newline in the binary
 * form (NAME, '\n', its length as 64-bit little endian, the value, '\n'),
 * so that it arrives whole.  Grows b when needed; false (b->failed) when
 * memory ran out.
 */
bool sr_log__journald_append_field(sr_journald_buf *b, const char *name, size_t name_len,
    const char *value, size_t value_len);
/* As sr_log__journald_append_field, for a name known to be valid (a literal of ours): no mapping. */
bool sr_log__journald_append_known(sr_journald_buf *b, const char *name, size_t name_len,
    const char *value, size_t value_len);
/* The syslog severity of a level, journald's PRIORITY: trace and debug 7, info 6, warn 4, error 3, fatal 2. */
int sr_log__journald_priority(int level);

/* ---- sr_log_journald.c: the client ---- */

typedef struct sr_log_journald sr_log_journald;

/*
 * At open: the client of sink `index` as c says (its socket, identifier,
 * timeouts), with room for a message of max_line bytes; tries to connect
 * once (journald absent is no error: the client retries).  SR_OK, or
 * SR_ENOMEM naming the sink.
 */
int sr_log__journald_open(const sr_sink_config *c, int index, size_t max_line, sr_log_journald **out,
    sr_error *err);
/*
 * Sends one record: its fields from ev (NULL: a line made elsewhere, which
 * gets PRIORITY and SYSLOG_IDENTIFIER only), MESSAGE the event's message
 * alone when message_from_event, else line[0..len) without its newline.
 * Connects first when due; what cannot go is counted lost.  The caller
 * serialises calls (the sink's lock).
 */
void sr_log__journald_send(sr_log_journald *j, const sr_log_event *ev, int level, const char *line,
    size_t len, bool message_from_event);
/* Closes the socket (at close; the client may still be freed after). */
void sr_log__journald_close(sr_log_journald *j);
void sr_log__journald_free(sr_log_journald *j);
/* Adds the client's writes, bytes, errors and lost messages to *o. */
void sr_log__journald_counters(const sr_log_journald *j, sr_log_sink_counters *o);
/*
 * When messages were lost since the last report and the client delivers
 * again: "N message(s) could not be delivered to log sink I (journald
 * PATH): WHY; delivering again" into text (size bytes); its length, 0 when
 * there is nothing to say.  The caller serialises calls (the sink's lock).
 */
size_t sr_log__journald_loss_report(sr_log_journald *j, char *text, size_t size);
/* "journald /run/systemd/journal/socket level=trace app=NAME timeout=100 reconnect_max=2000" */
void sr_log__journald_describe(const sr_sink_config *c, char *buf, size_t size);

/* ---- sr_log_journald_parse.c: the configuration ---- */

/*
 * Parses the head of a SEQRING_LOG_SINK journald sink ("journald",
 * "journald:PATH"): *path gets the socket's path (into head), or NULL for
 * the default.  0, or -1 with why (why_size bytes).
 */
int sr_log__journald_parse_head(char *head, char **path, char *why, size_t why_size);
/*
 * One option of a journald sink (app=, reconnect=): 1 when it was one and
 * is valid, 0 when key is not a journald option, -1 with why when its
 * value is invalid.
 */
int sr_log__journald_parse_option(const char *key, const char *val, sr_sink_config *c, char *why,
    size_t why_size);
/* config.sinks[i]'s journald fields (path, app, reconnect_max_ms): SR_OK, or SR_EINVAL naming the field, its value and what is valid. */
int sr_log__journald_validate(const sr_sink_config *c, int i, sr_error *err);

#endif /* SR_LOG_JOURNALD_INTERNAL_H */
