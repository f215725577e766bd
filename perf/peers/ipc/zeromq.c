/* SPDX-License-Identifier: Apache-2.0 */
/*
 * zeromq.c: the `ipc` phase's ZeroMQ row (libzmq, Debian's libzmq3-dev): a PUSH socket -> a
 * PULL socket over ipc:// for each direction. The consumer binds channel 0's PULL at
 * ipc://DIR/zmq0 and connects its PUSH to ipc://DIR/zmq1, which the producer's PULL binds
 * (ZeroMQ connects before the bind happens and retries). One zmq_send per event (blocking: it
 * waits when the high-water mark, ZeroMQ's default 1,000 messages, is reached), one zmq_recv per
 * event. One context per process with ZeroMQ's defaults (one I/O thread), linger 5 s.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "ipc_bench.h"

typedef struct zmq_ep {
	void *ctx, *push, *pull;
	size_t bytes;
	unsigned char buf[IPC_MAX_BYTES + 8];
} zmq_ep;

static void
zmq_ep_close(zmq_ep *e)
{
	if (e->push != NULL)
		zmq_close(e->push);
	if (e->pull != NULL)
		zmq_close(e->pull);
	if (e->ctx != NULL)
		zmq_ctx_term(e->ctx);
	free(e);
}

static void *
zmq_open_ep(const ipc_setup *s, enum ipc_role role, char *err, size_t errsize)
{
	zmq_ep *e = calloc(1, sizeof *e);
	if (e == NULL) {
		ipc_err(err, errsize, "out of memory");
		return NULL;
	}
	e->bytes = s->bytes;
	char in[256], out[256];
	snprintf(in, sizeof in, "ipc://%s/zmq%d", s->dir, role == IPC_PRODUCER ? 1 : 0);
	snprintf(out, sizeof out, "ipc://%s/zmq%d", s->dir, role == IPC_PRODUCER ? 0 : 1);
	int linger = 5000;
	if ((e->ctx = zmq_ctx_new()) == NULL || (e->push = zmq_socket(e->ctx, ZMQ_PUSH)) == NULL ||
	    (e->pull = zmq_socket(e->ctx, ZMQ_PULL)) == NULL ||
	    zmq_setsockopt(e->push, ZMQ_LINGER, &linger, sizeof linger) != 0) {
		ipc_err(err, errsize, "zmq set-up: %s", zmq_strerror(zmq_errno()));
		zmq_ep_close(e);
		return NULL;
	}
	if (zmq_bind(e->pull, in) != 0) {
		ipc_err(err, errsize, "zmq_bind %s: %s", in, zmq_strerror(zmq_errno()));
		zmq_ep_close(e);
		return NULL;
	}
	if (zmq_connect(e->push, out) != 0) {
		ipc_err(err, errsize, "zmq_connect %s: %s", out, zmq_strerror(zmq_errno()));
		zmq_ep_close(e);
		return NULL;
	}
	return e;
}

static int
zmq_send_ev(void *ep, const void *event, char *err, size_t errsize)
{
	zmq_ep *e = ep;
	while (zmq_send(e->push, event, e->bytes, 0) < 0) {
		if (zmq_errno() != EINTR)
			return ipc_err(err, errsize, "zmq_send: %s", zmq_strerror(zmq_errno()));
	}
	return 0;
}

static int64_t
zmq_recv_ev(void *ep, ipc_sink *k, int64_t max, char *err, size_t errsize)
{
	zmq_ep *e = ep;
	(void)max;
	int r;
	while ((r = zmq_recv(e->pull, e->buf, sizeof e->buf, 0)) < 0) {
		if (zmq_errno() != EINTR)
			return ipc_err(err, errsize, "zmq_recv: %s", zmq_strerror(zmq_errno()));
	}
	if ((size_t)r != e->bytes)
		return ipc_err(err, errsize, "zmq_recv: a message of %d bytes, expected %zu", r, e->bytes);
	if (!ipc_sink_take(k, e->buf))
		return k->failed ? -1 : 1;
	return 1;
}

static void
zmq_close_ep(void *ep)
{
	zmq_ep_close(ep);
}

static const char *
zmq_ver(char *buf, size_t size)
{
	int a, b, c;
	zmq_version(&a, &b, &c);
	snprintf(buf, size, "%d.%d.%d", a, b, c);
	return buf;
}

int
main(int argc, char **argv)
{
	static const ipc_transport t = {
		.library = "zeromq", .transport = "ipc push/pull", .default_bytes = "8,64",
		.open = zmq_open_ep, .send = zmq_send_ev, .recv = zmq_recv_ev, .close = zmq_close_ep,
		.version = zmq_ver,
	};
	return ipc_main(argc, argv, &t);
}
