/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_syslog_send.c: the syslog sink's batch and its sending.  The
 * consumer appends framed lines to the batch; at the end of its batch (or
 * when the sink's batch is full) the batch goes in one send on a stream, in
 * sendmmsg bursts of datagrams otherwise, with MSG_NOSIGNAL (a dead peer
 * never raises SIGPIPE).  A send waits (poll) at most write_timeout_ms;
 * what did not go stays for the next batch.  A caller (sync mode, policy
 * sync) sends its line now, behind what the consumer buffered.
 */
#include "sr_log_syslog_state_internal.h"
#include "sr_time.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>

/*
 * Waits for room until deadline_ns; false when it passed.  After one such
 * timeout the sink stops waiting until a send makes progress again, so that
 * a collector that stopped reading costs a failed send per batch, not a
 * timeout per message.
 */
static bool
wait_writable(struct sr_log_syslog *ss, int64_t deadline_ns)
{
	int64_t left = deadline_ns - sr_monotonic_ns();
	if (ss->stalled || left <= 0) {
		ss->stalled = true;
		return false;
	}
	struct pollfd pfd = { .fd = ss->fd, .events = POLLOUT };
	int pr = poll(&pfd, 1, (int)((left + 999999) / 1000000));
	if (pr == 0)
		ss->stalled = true;
	return pr != 0;
}

/* Sends p[0..n) on a stream; *done gets what went.  0 or an errno (EAGAIN: the deadline passed). */
static int
send_bounded(sr_log_sink *s, const char *p, size_t n, size_t *done, int64_t deadline_ns)
{
	struct sr_log_syslog *ss = s->syslog;
	*done = 0;
	while (*done < n) {
		ssize_t w = send(ss->fd, p + *done, n - *done, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w >= 0) {
			*done += (size_t)w;
			ss->stalled = false;
			continue;
		}
		if (errno == EINTR)
			continue;
		if ((errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS) && wait_writable(ss, deadline_ns))
			continue;
		return errno == EWOULDBLOCK ? EAGAIN : errno;
	}
	sr_log__sink_add(&s->writes, 1);
	sr_log__sink_add(&s->bytes, (int64_t)*done);
	return 0;
}

/* True for errors that mean the connection is gone. */
static bool
connection_lost(const struct sr_log_syslog *ss, int e)
{
	if (ss->transport == SR_SYSLOG_UDP)
		return false; /* ECONNREFUSED: the collector's port answered ICMP; no connection to lose */
	return e != EAGAIN && e != EMSGSIZE;
}

/*
 * Sends the frames from *k on, one datagram each, up to 64 per sendmmsg;
 * *k moves past what went (or was refused alone).  0, or the errno that
 * stopped them (EAGAIN: the deadline passed).
 */
static int
send_datagrams(sr_log_sink *s, int *k, int64_t deadline_ns)
{
	struct sr_log_syslog *ss = s->syslog;
	enum { BURST = 64 };
	struct mmsghdr msgs[BURST];
	struct iovec iov[BURST];
	while (*k < ss->frames) {
		int n = 0;
		for (; n < BURST && *k + n < ss->frames; n++) {
			int f = *k + n;
			size_t start = f == 0 ? 0 : ss->ends[f - 1];
			iov[n] = (struct iovec){ ss->buf + start, ss->ends[f] - start };
			memset(&msgs[n], 0, sizeof msgs[n]);
			msgs[n].msg_hdr.msg_iov = &iov[n];
			msgs[n].msg_hdr.msg_iovlen = 1;
		}
		int sent = sendmmsg(ss->fd, msgs, (unsigned)n, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (sent > 0) {
			int64_t bytes = 0;
			for (int i = 0; i < sent; i++)
				bytes += msgs[i].msg_len;
			sr_log__sink_add(&s->writes, 1);
			sr_log__sink_add(&s->bytes, bytes);
			*k += sent;
			ss->stalled = false;
			continue;
		}
		int e = sent == 0 ? EAGAIN : errno;
		if (e == EINTR)
			continue;
		if ((e == EAGAIN || e == EWOULDBLOCK || e == ENOBUFS) && wait_writable(ss, deadline_ns))
			continue;
		if (e == EWOULDBLOCK || e == ENOBUFS)
			e = EAGAIN;
		if (e != EAGAIN && !connection_lost(ss, e)) {
			/* This one datagram is refused (UDP: no listener; too big): count it, go on. */
			sr_log__syslog_count_lost(s, 1, e);
			sr_log__sink_add(&s->errors, 1);
			(*k)++;
			continue;
		}
		return e;
	}
	return 0;
}

void
sr_log__syslog_send_batch_locked(sr_log_sink *s)
{
	struct sr_log_syslog *ss = s->syslog;
	if (ss->frames == 0)
		return;
	if (!sr_log__syslog_ensure_connected(s)) {
		/* The partial frame (if any) was begun on a connection that is gone: lost too. */
		sr_log__syslog_lose_batch(s, ss->last_errno);
		return;
	}
	int64_t deadline = sr_monotonic_ns() + (int64_t)s->cfg.write_timeout_ms * 1000000;
	int done_frames = 0;
	int e = 0;
	if (ss->stream) {
		size_t went;
		e = send_bounded(s, ss->buf + ss->sent, ss->len - ss->sent, &went, deadline);
		ss->sent += went;
		while (done_frames < ss->frames && ss->ends[done_frames] <= ss->sent)
			done_frames++;
	} else {
		e = send_datagrams(s, &done_frames, deadline);
	}
	if (done_frames > 0)
		ss->delivered = true;
	sr_log__syslog_drop_frames(ss, done_frames);
	if (e == 0 || e == EAGAIN)
		return; /* what is left (a slow collector) waits for the next batch */
	/* The connection is gone: what did not go in full is lost, never sent again. */
	sr_log__sink_add(&s->errors, 1);
	sr_log__syslog_lose_batch(s, e);
	ss->last_errno = e;
	sr_log__syslog_disconnect(ss);
	ss->next_attempt_ns = 0;
}

/* Frames a line into the batch, sending the batch first when it is full. */
static void
append_locked(sr_log_sink *s, const sr_log_event *ev, int level, const char *line, size_t len)
{
	struct sr_log_syslog *ss = s->syslog;
	size_t n = sr_log__syslog_make_frame(ss, ev, level, line, len);
	if (ss->len + n > ss->cap || ss->frames == ss->max_frames)
		sr_log__syslog_send_batch_locked(s);
	if (ss->len + n > ss->cap || ss->frames == ss->max_frames) {
		/* The collector did not take the batch in time: no room for this one. */
		sr_log__syslog_count_lost(s, 1, EAGAIN);
		sr_log__sink_add(&s->lost_bytes, (int64_t)n);
		return;
	}
	memcpy(ss->buf + ss->len, ss->frame, n);
	ss->len += n;
	ss->ends[ss->frames++] = ss->len;
}

void
sr_log__syslog_append(sr_log_sink *s, const sr_log_event *ev, int level, const char *line, size_t len)
{
	/*
	 * The whole state is under the sink's lock, taken once per message: a
	 * caller's send_now (policy sync) shares the connection and the batch.
	 */
	pthread_mutex_lock(&s->lock);
	append_locked(s, ev, level, line, len);
	pthread_mutex_unlock(&s->lock);
}

void
sr_log__syslog_flush(sr_log_sink *s)
{
	if (s->syslog == NULL)
		return;
	pthread_mutex_lock(&s->lock);
	sr_log__syslog_send_batch_locked(s);
	pthread_mutex_unlock(&s->lock);
}

void
sr_log__syslog_send_now_locked(sr_log_sink *s, const sr_log_event *ev, int level,
    const char *line, size_t len)
{
	/* Behind what the consumer buffered, so that a stream never interleaves two frames. */
	append_locked(s, ev, level, line, len);
	sr_log__syslog_send_batch_locked(s);
}
