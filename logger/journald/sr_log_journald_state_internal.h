/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_journald_state_internal.h: a journald client's state and what the
 * room's files share (internal to logger/journald/; the rest of the logger
 * uses sr_log_journald_internal.h).
 *
 * All of it is touched by one thread at a time (the sink's lock serialises
 * the consumer and the callers of sync mode), except the counters, which
 * sr_log_stats reads (relaxed).
 */
#ifndef SR_LOG_JOURNALD_STATE_INTERNAL_H
#define SR_LOG_JOURNALD_STATE_INTERNAL_H

#include "sr_atomic.h"
#include "sr_log_journald_internal.h"

/* The first wait between two connection attempts (it doubles up to reconnect_max_ms). */
#define SR_JOURNALD_FIRST_BACKOFF_MS 10

struct sr_log_journald {
	int index;                /* the sink's, for the loss report */
	int fd;                   /* -1 while not connected */
	char path[108];
	char ident[64];           /* SYSLOG_IDENTIFIER */
	size_t ident_len;
	int timeout_ms, reconnect_max_ms;
	size_t sndbuf;            /* the socket's send buffer: a bigger datagram goes in a memfd */
	/* Reconnection. */
	int64_t next_attempt_ns;
	int backoff_ms;
	int last_errno;
	bool stalled;             /* a send timed out: don't wait again until one goes */
	/* One record's fields (reused), and its message when the event gives it. */
	sr_journald_buf dgram;
	char *msg;
	size_t msg_cap;
	/* The date of stamp_sec, made once a second. */
	char stamp[24];
	size_t stamp_len;
	int64_t stamp_sec;
	/* Counters (relaxed adds: read by sr_log_stats). */
	sr_atomic_i64 writes, bytes, errors, lost;
	/* The loss report's books. */
	uint64_t reported_lost;
	bool delivered;           /* a send went since the last report */
	int lost_errno;           /* why the last loss happened */
};

/* ---- sr_log_journald_fields.c ---- */

/* The record's fields (ev: its event, or NULL) with MESSAGE msg[0..msg_len), into j->dgram (emptied first). */
void sr_log__journald_make_fields(sr_log_journald *j, const sr_log_event *ev, int level,
    const char *msg, size_t msg_len);

/* ---- sr_log_journald_socket.c ---- */

/* Closes the socket (if any). */
void sr_log__journald_disconnect(sr_log_journald *j);
/* One connection attempt; on failure the next is due after the (doubled) backoff. */
bool sr_log__journald_try_connect(sr_log_journald *j);
/* Connected, or connected now when an attempt is due; false otherwise. */
bool sr_log__journald_ensure_connected(sr_log_journald *j);
/*
 * Sends p[0..n) as one datagram, or through a sealed memfd when it is too
 * big for one; waits at most timeout_ms for room.  0, or the errno that
 * lost it (EAGAIN: journald did not take it in time).
 */
int sr_log__journald_send_payload(sr_log_journald *j, const char *p, size_t n);

/* Adds to a counter (relaxed: counters only). */
static inline void
sr_log__journald_add(sr_atomic_i64 *counter, int64_t delta)
{
	sr_atomic_faa_i64(counter, delta);
}

#endif /* SR_LOG_JOURNALD_STATE_INTERNAL_H */
