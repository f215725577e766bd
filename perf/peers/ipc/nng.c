/* SPDX-License-Identifier: Apache-2.0 */
/*
 * nng.c: the `ipc` phase's nng row (Debian's libnng-dev): a push0 socket -> a pull0 socket over
 * ipc:// for each direction. The consumer listens with channel 0's pull0 at ipc://DIR/nng0 and
 * dials ipc://DIR/nng1, where the producer's pull0 listens; dials are non-blocking (nng retries
 * in the background until the listener is there). nng_send per event (blocking: it waits until
 * the pipe takes the message), nng_recv per event into a buffer; nng's default options
 * (NNG_OPT_SENDBUF and NNG_OPT_RECVBUF 0: raising both to 1,024 did not change the rate here).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <nng/nng.h>
#include <nng/protocol/pipeline0/pull.h>
#include <nng/protocol/pipeline0/push.h>

#include "ipc_bench.h"

typedef struct nng_ep {
	nng_socket push, pull;
	bool push_open, pull_open;
	size_t bytes;
	unsigned char buf[IPC_MAX_BYTES + 8];
} nng_ep;

static void
nng_ep_close(nng_ep *e)
{
	if (e->push_open)
		nng_close(e->push);
	if (e->pull_open)
		nng_close(e->pull);
	free(e);
}

static void *
nng_open_ep(const ipc_setup *s, enum ipc_role role, char *err, size_t errsize)
{
	nng_ep *e = calloc(1, sizeof *e);
	if (e == NULL) {
		ipc_err(err, errsize, "out of memory");
		return NULL;
	}
	e->bytes = s->bytes;
	char in[256], out[256];
	snprintf(in, sizeof in, "ipc://%s/nng%d", s->dir, role == IPC_PRODUCER ? 1 : 0);
	snprintf(out, sizeof out, "ipc://%s/nng%d", s->dir, role == IPC_PRODUCER ? 0 : 1);
	int rv;
	if ((rv = nng_push0_open(&e->push)) != 0 || !(e->push_open = true) || (rv = nng_pull0_open(&e->pull)) != 0) {
		ipc_err(err, errsize, "nng socket: %s", nng_strerror(rv));
		nng_ep_close(e);
		return NULL;
	}
	e->pull_open = true;
	if ((rv = nng_listen(e->pull, in, NULL, 0)) != 0) {
		ipc_err(err, errsize, "nng_listen %s: %s", in, nng_strerror(rv));
		nng_ep_close(e);
		return NULL;
	}
	if ((rv = nng_dial(e->push, out, NULL, NNG_FLAG_NONBLOCK)) != 0) {
		ipc_err(err, errsize, "nng_dial %s: %s", out, nng_strerror(rv));
		nng_ep_close(e);
		return NULL;
	}
	return e;
}

static int
nng_send_ev(void *ep, const void *event, char *err, size_t errsize)
{
	nng_ep *e = ep;
	int rv = nng_send(e->push, (void *)event, e->bytes, 0);
	if (rv != 0)
		return ipc_err(err, errsize, "nng_send: %s", nng_strerror(rv));
	return 0;
}

static int64_t
nng_recv_ev(void *ep, ipc_sink *k, int64_t max, char *err, size_t errsize)
{
	nng_ep *e = ep;
	(void)max;
	size_t sz = sizeof e->buf;
	int rv = nng_recv(e->pull, e->buf, &sz, 0);
	if (rv != 0)
		return ipc_err(err, errsize, "nng_recv: %s", nng_strerror(rv));
	if (sz != e->bytes)
		return ipc_err(err, errsize, "nng_recv: a message of %zu bytes, expected %zu", sz, e->bytes);
	if (!ipc_sink_take(k, e->buf))
		return k->failed ? -1 : 1;
	return 1;
}

static void
nng_close_ep(void *ep)
{
	nng_ep_close(ep);
}

static const char *
nng_ver(char *buf, size_t size)
{
	snprintf(buf, size, "%s", nng_version());
	return buf;
}

int
main(int argc, char **argv)
{
	static const ipc_transport t = {
		.library = "nng", .transport = "ipc push0/pull0", .default_bytes = "8,64",
		.open = nng_open_ep, .send = nng_send_ev, .recv = nng_recv_ev, .close = nng_close_ep,
		.version = nng_ver,
	};
	return ipc_main(argc, argv, &t);
}
