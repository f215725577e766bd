/* SPDX-License-Identifier: Apache-2.0 */
/*
 * uds.c: the `ipc` phase's unix-domain socket baseline: one SOCK_STREAM connection (the socket
 * type ZeroMQ's and nng's ipc:// transports use underneath), full duplex: channel 0 one way,
 * channel 1 the other. The consumer listens on a path in the pair's directory, the producer
 * connects (retrying until the path answers, at most 10 s). Kernel default buffer sizes. One
 * write(2) per event; the reader reads whatever is there (up to 64 KiB) and cuts it into events.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "ipc_bench.h"

typedef struct uds_ep {
	size_t bytes;
	ipc_stream in;   /* in.fd: the connection, both ways */
} uds_ep;

static void *
uds_open(const ipc_setup *s, enum ipc_role role, char *err, size_t errsize)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	if ((size_t)snprintf(addr.sun_path, sizeof addr.sun_path, "%s/uds.sock", s->dir) >= sizeof addr.sun_path) {
		ipc_err(err, errsize, "socket path %s/uds.sock is too long", s->dir);
		return NULL;
	}
	int fd = -1;
	const int64_t deadline = ipc_now_ns() + IPC_PEER_WAIT_NS;
	if (role == IPC_CONSUMER) {
		int lfd = socket(AF_UNIX, SOCK_STREAM, 0);
		if (lfd < 0 || bind(lfd, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(lfd, 1) != 0) {
			ipc_err(err, errsize, "listening on %s: %s", addr.sun_path, strerror(errno));
			if (lfd >= 0)
				close(lfd);
			return NULL;
		}
		struct pollfd p = { .fd = lfd, .events = POLLIN };
		int r = poll(&p, 1, (int)(IPC_PEER_WAIT_NS / 1000000));
		if (r <= 0 || (fd = accept(lfd, NULL, NULL)) < 0) {
			ipc_err(err, errsize, "no producer connected to %s within 10 s%s%s", addr.sun_path,
			    r < 0 ? ": " : "", r < 0 ? strerror(errno) : "");
			close(lfd);
			return NULL;
		}
		close(lfd);
	} else {
		for (;;) {
			fd = socket(AF_UNIX, SOCK_STREAM, 0);
			if (fd < 0) {
				ipc_err(err, errsize, "socket: %s", strerror(errno));
				return NULL;
			}
			if (connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0)
				break;
			int e = errno;
			close(fd);
			if ((e != ENOENT && e != ECONNREFUSED) || ipc_now_ns() >= deadline) {
				ipc_err(err, errsize, "cannot connect to %s within 10 s: %s", addr.sun_path, strerror(e));
				return NULL;
			}
			usleep(1000);
		}
	}
	uds_ep *e = calloc(1, sizeof *e);
	if (e == NULL) {
		close(fd);
		ipc_err(err, errsize, "out of memory");
		return NULL;
	}
	e->bytes = s->bytes;
	e->in.fd = fd;
	return e;
}

static int
uds_send(void *ep, const void *event, char *err, size_t errsize)
{
	uds_ep *e = ep;
	return ipc_stream_send(e->in.fd, event, e->bytes, err, errsize);
}

static int64_t
uds_recv(void *ep, ipc_sink *k, int64_t max, char *err, size_t errsize)
{
	uds_ep *e = ep;
	return ipc_stream_recv(&e->in, k, max, err, errsize);
}

static void
uds_close(void *ep)
{
	uds_ep *e = ep;
	close(e->in.fd);
	free(e);
}

int
main(int argc, char **argv)
{
	static const ipc_transport t = {
		.library = "posix", .transport = "unix stream socket", .default_bytes = "8,64",
		.open = uds_open, .send = uds_send, .recv = uds_recv, .close = uds_close,
	};
	return ipc_main(argc, argv, &t);
}
