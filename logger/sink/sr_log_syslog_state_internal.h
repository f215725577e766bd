/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_syslog_state_internal.h: the syslog sink's state and the functions
 * its files share (internal to the syslog sink; the rest of the logger uses
 * sr_log_syslog_internal.h).  From the bottom up: sr_log_syslog_frame.c
 * frames a line, sr_log_syslog_describe.c names the target,
 * sr_log_syslog_loss.c keeps the batch's books and counts what is lost,
 * sr_log_syslog_connect.c connects and reconnects, sr_log_syslog_send.c
 * sends the batch, sr_log_sink_syslog.c opens, closes and frees the sink.
 *
 * All of this state is touched only under the sink's lock (or at open and
 * close), except `lost`, a counter others read.
 */
#ifndef SR_LOG_SYSLOG_STATE_INTERNAL_H
#define SR_LOG_SYSLOG_STATE_INTERNAL_H

#include "sr_log_syslog_internal.h"

struct sr_log_syslog {
	sr_syslog_transport transport;
	bool stream;              /* octet-counted frames on a stream; else one datagram each */
	int fd;                   /* -1 while not connected; changed under the sink's lock */
	char host[256], port[16]; /* UDP, TCP */
	char path[108];           /* unix, local */
	char hostname[256], app[49], procid[24];
	char ident[340];          /* "Z HOSTNAME APP-NAME PROCID - " (RFC 5424) */
	size_t ident_len;
	char stamp[24];           /* "YYYY-MM-DDTHH:MM:SS" of stamp_sec */
	size_t stamp_len;
	int64_t stamp_sec;
	int facility, format;
	/* Reconnection (under the sink's lock). */
	int64_t next_attempt_ns;
	int backoff_ms;
	int last_errno;
	/* The batch: frames, their ends; bytes [0, sent) went already (a stream's partial frame). */
	char *buf;
	size_t len, cap, sent;
	size_t *ends;
	int frames, max_frames;
	/* One frame being made. */
	char *frame;
	size_t frame_cap;
	/* Loss: counted by whoever fails (relaxed adds); reported by the consumer. */
	sr_atomic_i64 lost;
	uint64_t reported_lost;
	bool delivered;           /* a send succeeded since the last report */
	bool stalled;             /* a send timed out: don't wait again until one makes progress */
	int lost_errno;           /* why the last loss happened */
};

/* ---- sr_log_syslog_frame.c ---- */

/* Makes the frame of one line (ev: its event, or NULL) in ss->frame; returns its length. */
size_t sr_log__syslog_make_frame(struct sr_log_syslog *ss, const sr_log_event *ev, int level,
    const char *line, size_t len);

/* ---- sr_log_syslog_describe.c ---- */

/* The program's short name, printable characters only ("-" when none is left): the APP-NAME. */

/* ---- sr_log_syslog_loss.c ---- */

/* Counts `messages` lost (a relaxed add), why being the errno that lost them. */
void sr_log__syslog_count_lost(sr_log_sink *s, int64_t messages, int why);
/* Counts every frame of the batch lost and empties it (a partial frame's rest too). */
void sr_log__syslog_lose_batch(sr_log_sink *s, int why);
/* Drops the frames before index k from the batch (they went, or are lost). */
void sr_log__syslog_drop_frames(struct sr_log_syslog *ss, int k);

/* ---- sr_log_syslog_connect.c ---- */

/* Closes the connection (if any); the next send waits again when it must. */
void sr_log__syslog_disconnect(struct sr_log_syslog *ss);
/* One connection attempt; on failure, the next one is due after the (doubled) backoff. */
bool sr_log__syslog_try_connect(sr_log_sink *s);
/* Connected, or connected now when an attempt is due; false otherwise. */
bool sr_log__syslog_ensure_connected(sr_log_sink *s);

/* ---- sr_log_syslog_send.c ---- */

/* Sends the batch (connecting first when due); what cannot go is counted lost.  s->lock held. */
void sr_log__syslog_send_batch_locked(sr_log_sink *s);

#endif /* SR_LOG_SYSLOG_STATE_INTERNAL_H */
