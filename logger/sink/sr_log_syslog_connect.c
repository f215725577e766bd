/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_syslog_connect.c: the syslog sink's transports and its
 * (re)connection: the local datagram socket (/dev/log), UDP, TCP, a unix
 * stream or datagram socket at a path (SR_SYSLOG_UNIX: stream, else
 * datagram).  Every connect is non-blocking and bounded by
 * write_timeout_ms; a failed attempt makes the next wait a backoff that
 * doubles from SR_SYSLOG_FIRST_BACKOFF_MS up to reconnect_max_ms.  A stream
 * the collector closed is noticed before the next send, and retried at once.
 */
#include "sr_log_syslog_state_internal.h"
#include "sr_time.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

void
sr_log__syslog_disconnect(struct sr_log_syslog *ss)
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

bool
sr_log__syslog_try_connect(sr_log_sink *s)
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
		/* A unix socket of the other kind: the batch was framed for the one before. */
		if (ss->stream != was_stream && ss->frames > 0)
			sr_log__syslog_lose_batch(s, EPROTOTYPE);
		return true;
	}
	ss->last_errno = e;
	ss->next_attempt_ns = sr_monotonic_ns() + (int64_t)ss->backoff_ms * 1000000;
	ss->backoff_ms = ss->backoff_ms * 2 > s->cfg.reconnect_max_ms ? s->cfg.reconnect_max_ms : ss->backoff_ms * 2;
	sr_log__sink_add(&s->errors, 1);
	return false;
}

/* A stream the collector closed reads as end of file: find out before sending into it. */
static bool
peer_closed(const struct sr_log_syslog *ss)
{
	char c;
	ssize_t r = recv(ss->fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
	return r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

bool
sr_log__syslog_ensure_connected(sr_log_sink *s)
{
	struct sr_log_syslog *ss = s->syslog;
	if (ss->fd >= 0 && ss->stream && peer_closed(ss)) {
		ss->last_errno = ECONNRESET;
		sr_log__syslog_disconnect(ss);
		if (ss->sent > 0) {
			/* The rest of a frame begun on that connection would corrupt the next one. */
			sr_log__syslog_count_lost(s, 1, ECONNRESET);
			sr_log__syslog_drop_frames(ss, 1);
		}
		/* The collector may be back already (a restart): try at once. */
		ss->next_attempt_ns = 0;
	}
	if (ss->fd >= 0)
		return true;
	if (sr_monotonic_ns() < ss->next_attempt_ns)
		return false;
	return sr_log__syslog_try_connect(s);
}
