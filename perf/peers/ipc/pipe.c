/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pipe.c: the `ipc` phase's pipe baseline: two anonymous pipes (pipe(2), the kernel's default
 * 64 KiB buffer), one per direction, made by the launcher and inherited by both processes. One
 * write(2) per event; the reader reads whatever is there (up to 64 KiB) and cuts it into events.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ipc_bench.h"

typedef struct pipe_ep {
	int out;
	size_t bytes;
	ipc_stream in;
} pipe_ep;

/* fds: channel 0 read, channel 0 write, channel 1 read, channel 1 write */
static int
pipe_prepare(ipc_setup *s, char *err, size_t errsize)
{
	int a[2], b[2];
	if (pipe(a) != 0)
		return ipc_err(err, errsize, "pipe: %s", strerror(errno));
	if (pipe(b) != 0) {
		close(a[0]);
		close(a[1]);
		return ipc_err(err, errsize, "pipe: %s", strerror(errno));
	}
	s->fds[0] = a[0], s->fds[1] = a[1], s->fds[2] = b[0], s->fds[3] = b[1];
	s->nfds = 4;
	return 0;
}

static void *
pipe_open(const ipc_setup *s, enum ipc_role role, char *err, size_t errsize)
{
	if (s->nfds != 4) {
		ipc_err(err, errsize, "expected 4 inherited descriptors (--fds), got %d", s->nfds);
		return NULL;
	}
	pipe_ep *e = calloc(1, sizeof *e);
	if (e == NULL) {
		ipc_err(err, errsize, "out of memory");
		return NULL;
	}
	e->bytes = s->bytes;
	int in = role == IPC_PRODUCER ? s->fds[2] : s->fds[0];
	e->out = role == IPC_PRODUCER ? s->fds[1] : s->fds[3];
	/* the ends this process does not use */
	close(role == IPC_PRODUCER ? s->fds[0] : s->fds[1]);
	close(role == IPC_PRODUCER ? s->fds[3] : s->fds[2]);
	e->in.fd = in;
	return e;
}

static int
pipe_send(void *ep, const void *event, char *err, size_t errsize)
{
	pipe_ep *e = ep;
	return ipc_stream_send(e->out, event, e->bytes, err, errsize);
}

static int64_t
pipe_recv(void *ep, ipc_sink *k, int64_t max, char *err, size_t errsize)
{
	pipe_ep *e = ep;
	return ipc_stream_recv(&e->in, k, max, err, errsize);
}

static void
pipe_close(void *ep)
{
	pipe_ep *e = ep;
	close(e->out);
	close(e->in.fd);
	free(e);
}

int
main(int argc, char **argv)
{
	static const ipc_transport t = {
		.library = "posix", .transport = "pipe", .default_bytes = "8,64",
		.prepare = pipe_prepare, .open = pipe_open, .send = pipe_send, .recv = pipe_recv,
		.close = pipe_close,
	};
	return ipc_main(argc, argv, &t);
}
