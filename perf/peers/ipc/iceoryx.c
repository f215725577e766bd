/* SPDX-License-Identifier: Apache-2.0 */
/*
 * iceoryx.c: the `ipc` phase's Eclipse iceoryx row, through its C binding (Debian's
 * libiceoryx-binding-c-dev, iceoryx 2.0). Each process registers a runtime with the RouDi
 * daemon (iox-roudi, started by iceoryx_sandbox.sh with roudi.toml beside this file, in a
 * sandbox of its own), then offers a publisher for its outgoing channel and subscribes to the
 * other's: service "seqring-ipc", instance the pair's name, event "ch0" (producer -> consumer)
 * or "ch1" (back). No event may be lost, so the publisher waits for a slow subscriber
 * (ConsumerTooSlowPolicy_WAIT_FOR_CONSUMER) and the subscriber's queue blocks the producer when
 * full (QueueFullPolicy_BLOCK_PRODUCER; queue capacity 256, the largest iceoryx 2.0 allows);
 * history 0. Sending: loan a chunk, write the event, publish (zero-copy: the subscriber reads the
 * publisher's chunk in shared memory). Receiving: iox_sub_take_chunk in a loop without sleeping
 * (a `pause` when empty), check, release the chunk. Both sides wait up to 10 s for the other to
 * be connected before the first event.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <iceoryx_binding_c/log.h>
#include <iceoryx_binding_c/publisher.h>
#include <iceoryx_binding_c/runtime.h>
#include <iceoryx_binding_c/subscriber.h>

#include "ipc_bench.h"

#define IOX_QUEUE 256

typedef struct iox_ep {
	iox_pub_storage_t pub_storage;
	iox_sub_storage_t sub_storage;
	iox_pub_t pub;
	iox_sub_t sub;
	size_t bytes;
} iox_ep;

static void *
iox_open(const ipc_setup *s, enum ipc_role role, char *err, size_t errsize)
{
	iox_ep *e = calloc(1, sizeof *e);
	if (e == NULL) {
		ipc_err(err, errsize, "out of memory");
		return NULL;
	}
	e->bytes = s->bytes;
	char name[96];
	snprintf(name, sizeof name, "%s-%d", role == IPC_PRODUCER ? "producer" : "consumer", (int)getpid());
	iox_set_loglevel(Iceoryx_LogLevel_Warn);
	iox_runtime_init(name);   /* aborts the process when RouDi does not answer */

	iox_pub_options_t po;
	iox_pub_options_init(&po);
	po.historyCapacity = 0;
	po.subscriberTooSlowPolicy = ConsumerTooSlowPolicy_WAIT_FOR_CONSUMER;
	iox_sub_options_t so;
	iox_sub_options_init(&so);
	so.queueCapacity = IOX_QUEUE;
	so.historyRequest = 0;
	so.queueFullPolicy = QueueFullPolicy_BLOCK_PRODUCER;
	const char *out = role == IPC_PRODUCER ? "ch0" : "ch1", *in = role == IPC_PRODUCER ? "ch1" : "ch0";
	e->pub = iox_pub_init(&e->pub_storage, "seqring-ipc", s->name, out, &po);
	e->sub = iox_sub_init(&e->sub_storage, "seqring-ipc", s->name, in, &so);
	if (e->pub == NULL || e->sub == NULL) {
		ipc_err(err, errsize, "iox_pub_init / iox_sub_init failed");
		free(e);
		return NULL;
	}
	/* both connected: our subscriber to the peer's publisher, the peer's subscriber to ours */
	const int64_t deadline = ipc_now_ns() + IPC_PEER_WAIT_NS;
	while (!iox_pub_has_subscribers(e->pub) || iox_sub_get_subscription_state(e->sub) != SubscribeState_SUBSCRIBED) {
		if (ipc_now_ns() >= deadline) {
			ipc_err(err, errsize, "the peer did not connect within 10 s (publisher %s has %s, subscription"
			    " state %d)", out, iox_pub_has_subscribers(e->pub) ? "a subscriber" : "no subscriber",
			    (int)iox_sub_get_subscription_state(e->sub));
			iox_sub_deinit(e->sub);
			iox_pub_deinit(e->pub);
			free(e);
			return NULL;
		}
		usleep(1000);
	}
	return e;
}

static int
iox_send(void *ep, const void *event, char *err, size_t errsize)
{
	iox_ep *e = ep;
	void *chunk;
	enum iox_AllocationResult r = iox_pub_loan_chunk(e->pub, &chunk, (uint32_t)e->bytes);
	if (r != AllocationResult_SUCCESS)
		return ipc_err(err, errsize, "iox_pub_loan_chunk: allocation result %d", (int)r);
	memcpy(chunk, event, e->bytes);
	iox_pub_publish_chunk(e->pub, chunk);
	return 0;
}

static int64_t
iox_recv(void *ep, ipc_sink *k, int64_t max, char *err, size_t errsize)
{
	iox_ep *e = ep;
	int64_t n = 0;
	while (n < max) {
		const void *chunk;
		enum iox_ChunkReceiveResult r = iox_sub_take_chunk(e->sub, &chunk);
		if (r == ChunkReceiveResult_NO_CHUNK_AVAILABLE) {
			if (n > 0)
				break;
			ipc_cpu_relax();
			continue;
		}
		if (r != ChunkReceiveResult_SUCCESS)
			return ipc_err(err, errsize, "iox_sub_take_chunk: result %d", (int)r);
		n++;
		bool ok = ipc_sink_take(k, chunk);
		iox_sub_release_chunk(e->sub, chunk);
		if (!ok)
			return k->failed ? -1 : n;
	}
	if (iox_sub_has_lost_chunks(e->sub))
		return ipc_err(err, errsize, "iceoryx reports lost chunks (the subscriber's queue overflowed)");
	return n;
}

static void
iox_close(void *ep)
{
	iox_ep *e = ep;
	iox_sub_deinit(e->sub);
	iox_pub_deinit(e->pub);
	free(e);
}

static const char *
iox_ver(char *buf, size_t size)
{
	snprintf(buf, size, "%s", IOX_BINDING_VERSION);
	return buf;
}

int
main(int argc, char **argv)
{
	static const ipc_transport t = {
		.library = "iceoryx", .transport = "shared memory pub/sub (C binding)", .default_bytes = "8,64",
		.open = iox_open, .send = iox_send, .recv = iox_recv, .close = iox_close, .version = iox_ver,
	};
	return ipc_main(argc, argv, &t);
}
