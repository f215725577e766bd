/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_sink_syslog.c: the syslog sink.  Frames each line as an RFC 5424
 * message (PRI, UTC timestamp with microseconds, HOSTNAME, APP-NAME,
 * PROCID, structured data with the category, file, line and thread, then
 * the line as MSG) or an RFC 3164 one, and sends it to the collector: the
 * local datagram socket (/dev/log), UDP, TCP with RFC 6587 octet counting
 * ("LEN SP MSG"), or a unix stream or datagram socket at a path.  A batch
 * goes in one send on a stream, in sendmmsg bursts of datagrams otherwise.
 *
 * Faults, as rsyslog's omfwd meets them:
 *   - The collector is down at open: the open succeeds; the consumer
 *     connects in the background of its batches, each attempt bounded by
 *     write_timeout_ms, retried after a wait that doubles from 10 ms up to
 *     reconnect_max_ms.  What arrives meanwhile is counted lost.
 *   - The connection breaks (EPIPE, ECONNRESET, a stream the collector
 *     closed, a datagram socket that refuses): the messages not yet handed
 *     to the kernel are counted lost, never sent twice, and the sink
 *     reconnects.  Once it delivers again, the consumer writes "N
 *     message(s) could not be delivered ..." to the log, as drop reports are.
 *     Sends use MSG_NOSIGNAL: a dead peer never raises SIGPIPE.
 *   - A slow collector: a send waits (poll) at most write_timeout_ms; what
 *     did not go stays in the sink's buffer for the next batch, so the
 *     consumer slows down and the ring's full-queue policy applies; a
 *     message that finds the buffer still full is counted lost.
 * What the dying collector had already taken from the kernel but not
 * written cannot be known without acknowledgements (RELP): it is the one
 * loss this sink cannot count.
 */
#include "sr_log_syslog_internal.h"
#include "sr_log_thread_internal.h"
#include "sr_time.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

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

static const char *const transport_names[] = { "local", "udp", "tcp", "unix", "unix-stream", "unix-dgram" };

static int64_t
now_ns(void)
{
	return sr_monotonic_ns();
}

/* ---------------------------------------------------------------------------------------- */
/* Framing                                                                                  */

static int
severity_of(int level)
{
	static const int sev[] = { 7, 7, 6, 4, 3, 2, 7 }; /* trace debug info warn error fatal off */
	return level >= 0 && level < SR_LOG_LEVEL_COUNT ? sev[level] : 6;
}

/* An SD-PARAM value: '"', '\\' and ']' escaped (RFC 5424, 6.3.3). */
static void
put_sd_value(sr_fmt_buf *b, const char *s, size_t n)
{
	size_t from = 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		/* One compare for a lower-case letter: the three specials are at or below ']'. */
		if (c > ']' || (c != '"' && c != '\\' && c != ']'))
			continue;
		/* Runs without a special character go in one copy. */
		sr_fmt_buf_put(b, s + from, i - from);
		sr_fmt_buf_putc(b, '\\');
		from = i;
	}
	sr_fmt_buf_put(b, s + from, n - from);
}

static void
put_str(sr_fmt_buf *b, const char *s)
{
	sr_fmt_buf_put(b, s, strlen(s));
}

static const char *
base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash != NULL ? slash + 1 : path;
}

static void
put_structured_data(sr_fmt_buf *b, const sr_log_event *ev)
{
	if (ev == NULL) {
		sr_fmt_buf_putc(b, '-');
		return;
	}
	put_str(b, "[" SR_SYSLOG_SD_ID " category=\"");
	const char *cat = ev->category != NULL && ev->category[0] != '\0' ? ev->category : "root";
	put_sd_value(b, cat, strlen(cat));
	sr_fmt_buf_putc(b, '"');
	if (ev->site != NULL && ev->site->file != NULL) {
		put_str(b, " file=\"");
		const char *f = base_name(ev->site->file);
		put_sd_value(b, f, strlen(f));
		put_str(b, "\" line=\"");
		sr_log__put_uint(b, (uint64_t)ev->site->line, 1);
		sr_fmt_buf_putc(b, '"');
	}
	if (ev->thread != NULL && ev->thread[0] != '\0') {
		put_str(b, " thread=\"");
		put_sd_value(b, ev->thread, strnlen(ev->thread, 16));
		sr_fmt_buf_putc(b, '"');
	}
	put_str(b, " tid=\"");
	sr_log__put_uint(b, ev->tid, 1);
	put_str(b, "\"]");
}

static void
put_header_5424(struct sr_log_syslog *ss, sr_fmt_buf *b, const sr_log_event *ev, int64_t ts_ns)
{
	int64_t sec;
	int32_t ns;
	sr_log__split_ns(ts_ns, &sec, &ns);
	if (sec != ss->stamp_sec) {
		/* The date changes once a second: made then, copied for every message. */
		sr_fmt_buf d = { ss->stamp, 0, sizeof ss->stamp, 0 };
		sr_log__put_iso_seconds(&d, sec);
		ss->stamp_len = d.len;
		ss->stamp_sec = sec;
	}
	sr_fmt_buf_put(b, "1 ", 2);
	sr_fmt_buf_put(b, ss->stamp, ss->stamp_len);
	sr_fmt_buf_putc(b, '.');
	sr_log__put_uint(b, (uint64_t)(ns / 1000), 6);
	/* "Z HOSTNAME APP-NAME PROCID - ", fixed at open */
	sr_fmt_buf_put(b, ss->ident, ss->ident_len);
	put_structured_data(b, ev);
	sr_fmt_buf_putc(b, ' ');
}

static void
put_header_3164(const struct sr_log_syslog *ss, sr_fmt_buf *b, int64_t ts_ns)
{
	static const char months[12][4] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
		"Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	time_t t = (time_t)(ts_ns / 1000000000);
	struct tm tm;
	localtime_r(&t, &tm);
	char stamp[32];
	snprintf(stamp, sizeof stamp, "%s %2d %02d:%02d:%02d ", months[tm.tm_mon % 12], tm.tm_mday,
	    tm.tm_hour, tm.tm_min, tm.tm_sec);
	put_str(b, stamp);
	/* The local daemon adds the host itself (as glibc's syslog() leaves it out). */
	if (ss->transport != SR_SYSLOG_LOCAL) {
		put_str(b, ss->hostname);
		sr_fmt_buf_putc(b, ' ');
	}
	put_str(b, ss->app);
	sr_fmt_buf_putc(b, '[');
	put_str(b, ss->procid);
	put_str(b, "]: ");
}

/* Backs up over UTF-8 continuation bytes so that a cut at n splits no character. */
static size_t
utf8_boundary(const char *s, size_t n)
{
	while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
		n--;
	return n;
}

/* Makes the frame of one line in ss->frame; returns its length. */
static size_t
make_frame(struct sr_log_syslog *ss, const sr_log_event *ev, int level, const char *line, size_t len)
{
	if (len > 0 && line[len - 1] == '\n')
		len--;
	/* Streams: room for "LEN " in front, written once the length is known. */
	size_t lead = ss->stream ? 12 : 0;
	sr_fmt_buf b = { ss->frame + lead, 0, ss->frame_cap - lead, 0 };
	sr_fmt_buf_putc(&b, '<');
	sr_log__put_uint(&b, (uint64_t)ss->facility * 8 + (uint64_t)severity_of(level), 1);
	sr_fmt_buf_putc(&b, '>');
	int64_t ts = ev != NULL ? ev->ts_ns : sr_log__now_ns();
	if (ss->format == SR_SYSLOG_3164)
		put_header_3164(ss, &b, ts);
	else
		put_header_5424(ss, &b, ev, ts);
	size_t head = b.len;
	size_t limit = ss->stream ? b.cap : SR_SYSLOG_MAX_DATAGRAM;
	if (limit > b.cap)
		limit = b.cap;
	static const char mark[] = " " SR_FMT_TRUNCATION_MARKER;
	if (head + len > limit) {
		/* Too long for the transport: cut, visibly. */
		size_t keep = limit > head + sizeof mark ? limit - head - (sizeof mark - 1) : 0;
		keep = utf8_boundary(line, keep);
		sr_fmt_buf_put(&b, line, keep);
		sr_fmt_buf_put(&b, mark, sizeof mark - 1);
	} else {
		sr_fmt_buf_put(&b, line, len);
	}
	if (!ss->stream)
		return b.len;
	/* "LEN " right before the message, then the frame moved to the start. */
	char num[24];
	sr_fmt_buf nb = { num, 0, sizeof num, 0 };
	sr_log__put_uint(&nb, b.len, 1);
	num[nb.len++] = ' ';
	memcpy(ss->frame + lead - nb.len, num, nb.len);
	memmove(ss->frame, ss->frame + lead - nb.len, nb.len + b.len);
	return nb.len + b.len;
}

/* ---------------------------------------------------------------------------------------- */
/* Connecting                                                                               */

static void
disconnect(struct sr_log_syslog *ss)
{
	if (ss->fd >= 0)
		close(ss->fd);
	ss->fd = -1;
	ss->stalled = false;
}

/* Connects fd to addr, waiting at most timeout_ms; 0 or an errno. */
static int
connect_bounded(int fd, const struct sockaddr *addr, socklen_t addrlen, int timeout_ms)
{
	if (connect(fd, addr, addrlen) == 0)
		return 0;
	if (errno != EINPROGRESS && errno != EAGAIN)
		return errno;
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	int pr;
	do
		pr = poll(&pfd, 1, timeout_ms);
	while (pr < 0 && errno == EINTR);
	if (pr == 0)
		return ETIMEDOUT;
	int e = 0;
	socklen_t el = sizeof e;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) != 0)
		return errno;
	return e;
}

static int
connect_unix(struct sr_log_syslog *ss, int type, int timeout_ms)
{
	struct sockaddr_un sa;
	memset(&sa, 0, sizeof sa);
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, ss->path, strlen(ss->path) + 1);
	int fd = socket(AF_UNIX, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return errno;
	int e = connect_bounded(fd, (struct sockaddr *)&sa, sizeof sa, timeout_ms);
	if (e != 0) {
		close(fd);
		return e;
	}
	ss->fd = fd;
	ss->stream = type == SOCK_STREAM;
	return 0;
}

static int
connect_inet(struct sr_log_syslog *ss, int timeout_ms)
{
	struct addrinfo hints, *ai = NULL;
	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = ss->transport == SR_SYSLOG_TCP ? SOCK_STREAM : SOCK_DGRAM;
	hints.ai_flags = AI_NUMERICSERV;
	int g = getaddrinfo(ss->host, ss->port, &hints, &ai);
	if (g != 0)
		return g == EAI_SYSTEM ? errno : EHOSTUNREACH;
	int e = ECONNREFUSED;
	for (struct addrinfo *p = ai; p != NULL; p = p->ai_next) {
		int fd = socket(p->ai_family, p->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, p->ai_protocol);
		if (fd < 0) {
			e = errno;
			continue;
		}
		e = connect_bounded(fd, p->ai_addr, p->ai_addrlen, timeout_ms);
		if (e == 0) {
			if (ss->transport == SR_SYSLOG_TCP) {
				int one = 1;
				setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
			}
			ss->fd = fd;
			ss->stream = ss->transport == SR_SYSLOG_TCP;
			break;
		}
		close(fd);
	}
	freeaddrinfo(ai);
	return e;
}

static void
count_lost(sr_log_sink *s, int64_t messages, int why)
{
	if (messages <= 0)
		return;
	sr_atomic_faa_i64(&s->syslog->lost, messages); /* a counter only */
	s->syslog->lost_errno = why;
}

/* One attempt; on failure, the next one is due after the (doubled) backoff. */
static bool
try_connect(sr_log_sink *s)
{
	struct sr_log_syslog *ss = s->syslog;
	int timeout = s->cfg.write_timeout_ms;
	bool was_stream = ss->stream;
	int e;
	switch (ss->transport) {
	case SR_SYSLOG_UDP:
	case SR_SYSLOG_TCP:
		e = connect_inet(ss, timeout);
		break;
	case SR_SYSLOG_UNIX:
		e = connect_unix(ss, SOCK_STREAM, timeout);
		if (e == EPROTOTYPE)
			e = connect_unix(ss, SOCK_DGRAM, timeout);
		break;
	case SR_SYSLOG_UNIX_STREAM:
		e = connect_unix(ss, SOCK_STREAM, timeout);
		break;
	default:
		e = connect_unix(ss, SOCK_DGRAM, timeout);
		break;
	}
	if (e == 0) {
		ss->backoff_ms = SR_SYSLOG_FIRST_BACKOFF_MS;
		if (ss->stream != was_stream && ss->frames > 0) {
			/* A unix socket of the other kind: the batch was framed for the one before. */
			count_lost(s, ss->frames, EPROTOTYPE);
			ss->len = ss->sent = 0;
			ss->frames = 0;
		}
		return true;
	}
	ss->last_errno = e;
	ss->next_attempt_ns = now_ns() + (int64_t)ss->backoff_ms * 1000000;
	ss->backoff_ms = ss->backoff_ms * 2 > s->cfg.reconnect_max_ms ? s->cfg.reconnect_max_ms : ss->backoff_ms * 2;
	sr_log__sink_add(&s->errors, 1);
	return false;
}

/* Drops the frames before index k from the batch (they went, or are lost). */
static void
drop_frames(struct sr_log_syslog *ss, int k)
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


/* A stream the collector closed reads as end of file: find out before sending into it. */
static bool
peer_closed(const struct sr_log_syslog *ss)
{
	char c;
	ssize_t r = recv(ss->fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
	return r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

/* Connected (or connected now, when an attempt is due). */
static bool
ensure_connected(sr_log_sink *s)
{
	struct sr_log_syslog *ss = s->syslog;
	if (ss->fd >= 0 && ss->stream && peer_closed(ss)) {
		ss->last_errno = ECONNRESET;
		disconnect(ss);
		if (ss->sent > 0) {
			/* The rest of a frame begun on that connection would corrupt the next one. */
			count_lost(s, 1, ECONNRESET);
			drop_frames(ss, 1);
		}
		/* The collector may be back already (a restart): try at once. */
		ss->next_attempt_ns = 0;
	}
	if (ss->fd >= 0)
		return true;
	if (now_ns() < ss->next_attempt_ns)
		return false;
	return try_connect(s);
}

/* ---------------------------------------------------------------------------------------- */
/* Sending                                                                                  */

/*
 * Waits for room until deadline_ns; false when it passed.  After one such
 * timeout the sink stops waiting until a send makes progress again, so that
 * a collector that stopped reading costs a failed send per batch, not a
 * timeout per message.
 */
static bool
wait_writable(struct sr_log_syslog *ss, int64_t deadline_ns)
{
	int64_t left = deadline_ns - now_ns();
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
			count_lost(s, 1, e);
			sr_log__sink_add(&s->errors, 1);
			(*k)++;
			continue;
		}
		return e;
	}
	return 0;
}

/* Sends the batch, under the sink's lock. */
static void
send_batch_locked(sr_log_sink *s)
{
	struct sr_log_syslog *ss = s->syslog;
	if (ss->frames == 0)
		return;
	if (!ensure_connected(s)) {
		/* The partial frame (if any) was begun on a connection that is gone: lost too. */
		count_lost(s, ss->frames, ss->last_errno);
		ss->len = ss->sent = 0;
		ss->frames = 0;
		return;
	}
	int64_t deadline = now_ns() + (int64_t)s->cfg.write_timeout_ms * 1000000;
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
	drop_frames(ss, done_frames);
	if (e == 0 || e == EAGAIN)
		return; /* what is left (a slow collector) waits for the next batch */
	/* The connection is gone: what did not go in full is lost, never sent again. */
	sr_log__sink_add(&s->errors, 1);
	count_lost(s, ss->frames, e);
	ss->len = ss->sent = 0;
	ss->frames = 0;
	ss->last_errno = e;
	disconnect(ss);
	ss->next_attempt_ns = 0;
}

/* Frames a line into the batch, sending the batch first when it is full. */
static void
append_locked(sr_log_sink *s, const sr_log_event *ev, int level, const char *line, size_t len)
{
	struct sr_log_syslog *ss = s->syslog;
	size_t n = make_frame(ss, ev, level, line, len);
	if (ss->len + n > ss->cap || ss->frames == ss->max_frames)
		send_batch_locked(s);
	if (ss->len + n > ss->cap || ss->frames == ss->max_frames) {
		/* The collector did not take the batch in time: no room for this one. */
		count_lost(s, 1, EAGAIN);
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
	send_batch_locked(s);
	pthread_mutex_unlock(&s->lock);
}

void
sr_log__syslog_send_now_locked(sr_log_sink *s, const sr_log_event *ev, int level,
    const char *line, size_t len)
{
	/* Behind what the consumer buffered, so that a stream never interleaves two frames. */
	append_locked(s, ev, level, line, len);
	send_batch_locked(s);
}

/* ---------------------------------------------------------------------------------------- */
/* Open, close, report                                                                      */

static void
program_name(char *out, size_t size)
{
	const char *name = program_invocation_short_name;
	size_t n = 0;
	for (const char *p = name; *p != '\0' && n + 1 < size; p++)
		if (*p > ' ' && *p <= '~')
			out[n++] = *p;
	if (n == 0)
		out[n++] = '-';
	out[n] = '\0';
}

int
sr_log__syslog_open(sr_log_sink *s, size_t max_line, sr_error *err)
{
	const sr_sink_config *c = &s->cfg;
	struct sr_log_syslog *ss = calloc(1, sizeof *ss);
	if (ss == NULL)
		return sr_error_set(err, SR_ENOMEM, "cannot allocate syslog sink %d", s->index);
	ss->fd = -1;
	ss->transport = c->syslog_transport;
	ss->facility = c->syslog_facility;
	ss->format = c->syslog_format;
	ss->backoff_ms = SR_SYSLOG_FIRST_BACKOFF_MS;
	/* Framing until a connection says otherwise (a unix socket of either kind: datagram). */
	ss->stream = ss->transport == SR_SYSLOG_TCP || ss->transport == SR_SYSLOG_UNIX_STREAM;
	const char *addr = c->syslog_address;
	if (ss->transport == SR_SYSLOG_UDP || ss->transport == SR_SYSLOG_TCP) {
		/* HOST:PORT, or [V6]:PORT (checked by validation) */
		const char *colon = strrchr(addr, ':');
		const char *h = addr;
		size_t hl = (size_t)(colon - addr);
		if (h[0] == '[' && hl >= 2 && h[hl - 1] == ']') {
			h++;
			hl -= 2;
		}
		snprintf(ss->host, sizeof ss->host, "%.*s", (int)hl, h);
		snprintf(ss->port, sizeof ss->port, "%s", colon + 1);
	} else {
		snprintf(ss->path, sizeof ss->path, "%s", addr != NULL ? addr : "/dev/log");
	}
	if (gethostname(ss->hostname, sizeof ss->hostname - 1) != 0 || ss->hostname[0] == '\0')
		snprintf(ss->hostname, sizeof ss->hostname, "-");
	for (char *p = ss->hostname; *p != '\0'; p++)
		if (*p <= ' ' || *p > '~')
			*p = '-';
	if (c->syslog_app != NULL)
		snprintf(ss->app, sizeof ss->app, "%s", c->syslog_app);
	else
		program_name(ss->app, sizeof ss->app);
	snprintf(ss->procid, sizeof ss->procid, "%ld", (long)getpid());
	int il = snprintf(ss->ident, sizeof ss->ident, "Z %s %s %s - ", ss->hostname, ss->app, ss->procid);
	ss->ident_len = il > 0 && (size_t)il < sizeof ss->ident ? (size_t)il : 0;
	ss->stamp_sec = INT64_MIN;
	ss->frame_cap = max_line + 1024;
	ss->cap = c->buffer_bytes > ss->frame_cap ? c->buffer_bytes : ss->frame_cap;
	ss->max_frames = (int)(ss->cap / 64 + 1);
	ss->frame = malloc(ss->frame_cap);
	ss->buf = malloc(ss->cap);
	ss->ends = malloc((size_t)ss->max_frames * sizeof *ss->ends);
	s->syslog = ss;
	if (ss->frame == NULL || ss->buf == NULL || ss->ends == NULL) {
		sr_log__syslog_free(s);
		return sr_error_set(err, SR_ENOMEM, "cannot allocate syslog sink %d", s->index);
	}
	/* The collector may be down: that is no error, the consumer retries. */
	try_connect(s);
	return SR_OK;
}

void
sr_log__syslog_close(sr_log_sink *s)
{
	if (s->syslog == NULL)
		return;
	send_batch_locked(s);
	/* What the collector did not take in time is lost: counted, a loss no line can report. */
	count_lost(s, s->syslog->frames, EAGAIN);
	s->syslog->frames = 0;
	s->syslog->len = s->syslog->sent = 0;
	disconnect(s->syslog);
}

void
sr_log__syslog_free(sr_log_sink *s)
{
	struct sr_log_syslog *ss = s->syslog;
	if (ss == NULL)
		return;
	disconnect(ss);
	free(ss->frame);
	free(ss->buf);
	free(ss->ends);
	free(ss);
	s->syslog = NULL;
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

void
sr_log__syslog_target(const sr_sink_config *c, char *buf, size_t size)
{
	unsigned t = (unsigned)c->syslog_transport;
	const char *name = t < 6 ? transport_names[t] : "?";
	if (c->syslog_transport == SR_SYSLOG_UDP || c->syslog_transport == SR_SYSLOG_TCP)
		snprintf(buf, size, "%s://%s", name, c->syslog_address != NULL ? c->syslog_address : "?");
	else if (c->syslog_transport == SR_SYSLOG_LOCAL)
		snprintf(buf, size, "local %s", c->syslog_address != NULL ? c->syslog_address : "/dev/log");
	else
		snprintf(buf, size, "%s:%s", name, c->syslog_address != NULL ? c->syslog_address : "?");
}

void
sr_log__syslog_describe(const sr_sink_config *c, char *buf, size_t size)
{
	char target[300];
	sr_log__syslog_target(c, target, sizeof target);
	char app[64];
	if (c->syslog_app != NULL)
		snprintf(app, sizeof app, "%s", c->syslog_app);
	else
		program_name(app, sizeof app);
	snprintf(buf, size, "syslog %s level=%s facility=%s format=%d app=%s timeout=%d reconnect_max=%d",
	    target, sr_log_level_name(c->level), sr_log__syslog_facility_name(c->syslog_facility),
	    (int)c->syslog_format, app, c->write_timeout_ms, c->reconnect_max_ms);
}
