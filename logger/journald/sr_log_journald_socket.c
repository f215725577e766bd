/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_journald_socket.c: a journald client's socket.  An AF_UNIX
 * datagram socket connected to journald's (non-blocking: connecting never
 * waits, and a send waits, in poll, at most write_timeout_ms for room in
 * journald's queue).  A payload too big for a datagram (above
 * SR_JOURNALD_MAX_DATAGRAM, bigger than the socket's send buffer allows, or
 * refused with EMSGSIZE) is written into a memfd, sealed (shrink, grow, write and the seals themselves), and the
 * memfd alone is sent with SCM_RIGHTS and an empty payload: journald reads
 * the entry from it.  A failed connection waits before the next attempt,
 * doubling from SR_JOURNALD_FIRST_BACKOFF_MS up to reconnect_max_ms.
 */
#include "sr_log_journald_state_internal.h"
#include "sr_time.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* What systemd's own client asks for: room for many datagrams in flight (the kernel caps it at wmem_max). */
#define SR_JOURNALD_SNDBUF (8 << 20)
/* What a unix datagram costs of the send buffer beyond its payload (the kernel's check, af_unix.c). */
#define SR_JOURNALD_DGRAM_OVERHEAD 32
/*
 * The biggest payload sent as a datagram.  The kernel copies a datagram
 * into mostly one contiguous buffer, so a bigger one asks for a high-order
 * allocation that fails (ENOBUFS) when memory is fragmented; past this size
 * a memfd's few system calls cost less than that risk.
 */
#define SR_JOURNALD_MAX_DATAGRAM (256 * 1024)

void
sr_log__journald_disconnect(sr_log_journald *j)
{
	if (j->fd >= 0)
		close(j->fd);
	j->fd = -1;
	j->stalled = false;
}

/* 0, or the errno that refused the connection. */
static int
connect_socket(sr_log_journald *j)
{
	struct sockaddr_un sa;
	memset(&sa, 0, sizeof sa);
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, j->path, strlen(j->path) + 1);
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
		int e = errno;
		close(fd);
		return e;
	}
	int want = SR_JOURNALD_SNDBUF;
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &want, sizeof want);
	int got = 0;
	socklen_t gl = sizeof got;
	if (getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &got, &gl) != 0 || got <= SR_JOURNALD_DGRAM_OVERHEAD)
		got = 4096;
	j->sndbuf = (size_t)got;
	j->fd = fd;
	return 0;
}

bool
sr_log__journald_try_connect(sr_log_journald *j)
{
	int e = connect_socket(j);
	if (e == 0) {
		j->backoff_ms = SR_JOURNALD_FIRST_BACKOFF_MS;
		return true;
	}
	j->last_errno = e;
	j->next_attempt_ns = sr_monotonic_ns() + (int64_t)j->backoff_ms * 1000000;
	j->backoff_ms = j->backoff_ms * 2 > j->reconnect_max_ms ? j->reconnect_max_ms : j->backoff_ms * 2;
	sr_log__journald_add(&j->errors, 1);
	return false;
}

bool
sr_log__journald_ensure_connected(sr_log_journald *j)
{
	if (j->fd >= 0)
		return true;
	if (sr_monotonic_ns() < j->next_attempt_ns)
		return false;
	return sr_log__journald_try_connect(j);
}

/*
 * Waits for room until deadline_ns; false when it passed.  After one
 * timeout the client stops waiting until a send goes again, so that a
 * journald that stopped reading costs a failed send per record, not a
 * timeout per record.
 */
static bool
wait_writable(sr_log_journald *j, int64_t deadline_ns)
{
	int64_t left = deadline_ns - sr_monotonic_ns();
	if (j->stalled || left <= 0) {
		j->stalled = true;
		return false;
	}
	struct pollfd pfd = { .fd = j->fd, .events = POLLOUT };
	int pr = poll(&pfd, 1, (int)((left + 999999) / 1000000));
	if (pr == 0)
		j->stalled = true;
	return pr != 0;
}

/* sendmsg with a bounded wait for room: 0, or the errno (EAGAIN: the deadline passed). */
static int
send_bounded(sr_log_journald *j, const struct msghdr *mh, int64_t deadline_ns)
{
	for (;;) {
		if (sendmsg(j->fd, mh, MSG_NOSIGNAL | MSG_DONTWAIT) >= 0) {
			j->stalled = false;
			return 0;
		}
		int e = errno;
		if (e == EINTR)
			continue;
		if ((e == EAGAIN || e == EWOULDBLOCK || e == ENOBUFS) && wait_writable(j, deadline_ns))
			continue;
		return e == EWOULDBLOCK || e == ENOBUFS ? EAGAIN : e;
	}
}

/* The payload in a sealed memfd, the memfd sent alone: 0 or an errno. */
static int
send_memfd(sr_log_journald *j, const char *p, size_t n, int64_t deadline_ns)
{
	int mfd = memfd_create("seqring-journald", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (mfd < 0)
		return errno;
	size_t done = 0;
	while (done < n) {
		ssize_t w = write(mfd, p + done, n - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int e = w < 0 ? errno : EIO;
			close(mfd);
			return e;
		}
		done += (size_t)w;
	}
	/* journald takes only a memfd nobody can change any more. */
	if (fcntl(mfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0) {
		int e = errno;
		close(mfd);
		return e;
	}
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int))];
	} control;
	memset(&control, 0, sizeof control);
	struct msghdr mh;
	memset(&mh, 0, sizeof mh);
	mh.msg_control = control.buf;
	mh.msg_controllen = sizeof control.buf;
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &mfd, sizeof mfd);
	int e = send_bounded(j, &mh, deadline_ns);
	close(mfd);
	return e;
}

int
sr_log__journald_send_payload(sr_log_journald *j, const char *p, size_t n)
{
	int64_t deadline = sr_monotonic_ns() + (int64_t)j->timeout_ms * 1000000;
	if (n > SR_JOURNALD_MAX_DATAGRAM || n + SR_JOURNALD_DGRAM_OVERHEAD > j->sndbuf)
		return send_memfd(j, p, n, deadline);
	struct iovec iov = { (void *)p, n };
	struct msghdr mh;
	memset(&mh, 0, sizeof mh);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	int e = send_bounded(j, &mh, deadline);
	/* The kernel's own limit on a datagram may be below the send buffer's. */
	return e == EMSGSIZE ? send_memfd(j, p, n, deadline) : e;
}
