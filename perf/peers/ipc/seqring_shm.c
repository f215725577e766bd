/* SPDX-License-Identifier: Apache-2.0 */
/*
 * seqring_shm.c: the `ipc` phase's "seqring shm" row: seqring's ring in shared memory between
 * the two processes. Built by build.sh only when shm/sr_shm_ring.h exists (else the table says
 * "not built").
 *
 * Two rings, each created by the process that reads it and opened by the one that writes it:
 * channel 0 (producer -> consumer) IPC_SEQRING_SLOTS (4,096) slots, channel 1 (the pongs, the run length) 1,024
 * slots, as the in-process row (seqring.c); slots of the event's size; single producer;
 * sr_shm_ring's defaults otherwise (a reaper thread per handle, 1 s liveness bound). The reader
 * joins its ring as consumer 0, gating, right after creating it, and reads it with the poller of
 * sr_shm_consumer_poller (its sequence in the mapping) without sleeping (a `pause` per empty
 * poll), as the in-process row reads with sr_poller; the writer opens the ring, joins as its
 * producer, waits (at most 10 s) until the reader has joined, then claims, writes the slot and
 * publishes (sr_shm_producer.h), as in-process through the sequencer.
 *
 * Every call of the shared-memory API is in the adapter section below: if shm/sr_shm_ring.h
 * changes, that section is what to adapt.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <seqring/sr_poller.h>
#include <seqring/sr_ring.h>
#include <seqring/sr_shm_consumer.h>
#include <seqring/sr_shm_producer.h>
#include <seqring/sr_shm_ring.h>
#include <seqring/sr_version.h>

#include "ipc_bench.h"

/* --- adapter: the shared-memory ring's calls ------------------------------------------------ */

typedef struct shm_chan {
	sr_shm_ring *shm;
	sr_ring *ring;
	sr_shm_producer *producer;  /* the writer's */
	sr_shm_consumer *consumer;  /* the reader's */
	sr_poller *poller;          /* the reader's */
	bool created;
	char name[96];
} shm_chan;

/* Creates the ring `name` and joins it as its consumer (this process reads it). */
static int
chan_create(shm_chan *c, const char *name, int64_t slots, size_t bytes, char *err, size_t errsize)
{
	sr_error e = { 0 };
	snprintf(c->name, sizeof c->name, "%s", name);
	sr_shm_ring_config cfg;
	sr_shm_ring_config_default(&cfg, slots, bytes, SR_PRODUCER_SINGLE);
	sr_wait_config_default(&cfg.wait, SR_WAIT_BUSY_SPIN);
	if ((c->shm = sr_shm_ring_create(name, &cfg, NULL, &e)) == NULL)
		return ipc_err(err, errsize, "sr_shm_ring_create %s: %s", name, e.message);
	c->created = true;
	c->ring = sr_shm_ring_slots(c->shm);
	if ((c->consumer = sr_shm_consumer_join(c->shm, 0, NULL, 0, true, &e)) == NULL ||
	    (c->poller = sr_shm_consumer_poller(c->consumer, &e)) == NULL)
		return ipc_err(err, errsize, "joining %s as its consumer: %s", name, e.message);
	return 0;
}

/* Opens the ring `name` (this process writes it) once its creator has joined it: at most 10 s. */
static int
chan_open(shm_chan *c, const char *name, char *err, size_t errsize)
{
	sr_error e = { 0 };
	snprintf(c->name, sizeof c->name, "%s", name);
	const int64_t deadline = ipc_now_ns() + IPC_PEER_WAIT_NS;
	while ((c->shm = sr_shm_ring_open(name, NULL, &e)) == NULL) {
		if (ipc_now_ns() >= deadline)
			return ipc_err(err, errsize, "sr_shm_ring_open %s: not there within 10 s: %s", name, e.message);
		usleep(1000);
	}
	c->ring = sr_shm_ring_slots(c->shm);
	if ((c->producer = sr_shm_producer_join(c->shm, &e)) == NULL)
		return ipc_err(err, errsize, "joining %s as its producer: %s", name, e.message);
	sr_shm_ring_status st = { .consumers = 0 };
	while (sr_shm_ring_status_get(c->shm, &st) == SR_OK && st.consumers < 1) {
		if (ipc_now_ns() >= deadline)
			return ipc_err(err, errsize, "%s: its consumer did not join within 10 s", name);
		usleep(1000);
	}
	return 0;
}

static int
chan_send(shm_chan *c, const void *event, size_t bytes, char *err, size_t errsize)
{
	int64_t seq;
	int rc = sr_shm_producer_claim(c->producer, &seq);
	if (rc != SR_OK)
		return ipc_err(err, errsize, "sr_shm_producer_claim: error %d", rc);
	memcpy(sr_ring_slot(c->ring, seq), event, bytes);
	sr_shm_producer_publish(c->producer, seq);
	return 0;
}

static void
chan_close(shm_chan *c)
{
	if (c->poller != NULL)
		sr_poller_destroy(c->poller);
	sr_shm_consumer_leave(&c->consumer);
	sr_shm_producer_leave(&c->producer);
	sr_shm_ring_close(&c->shm);
	if (c->created)
		sr_shm_ring_unlink(c->name, NULL);
}

/* --- the transport ------------------------------------------------------------------------ */

typedef struct shm_ep {
	shm_chan out, in;
	size_t bytes;
} shm_ep;

static void *
shm_open_ep(const ipc_setup *s, enum ipc_role role, char *err, size_t errsize)
{
	shm_ep *e = calloc(1, sizeof *e);
	if (e == NULL) {
		ipc_err(err, errsize, "out of memory");
		return NULL;
	}
	e->bytes = s->bytes;
	char in[96], out[96];
	snprintf(in, sizeof in, "/%.80s-ch%d", s->name, role == IPC_PRODUCER ? 1 : 0);
	snprintf(out, sizeof out, "/%.80s-ch%d", s->name, role == IPC_PRODUCER ? 0 : 1);
	if (chan_create(&e->in, in, role == IPC_PRODUCER ? 1024 : IPC_SEQRING_SLOTS, s->bytes, err, errsize) != 0 ||
	    chan_open(&e->out, out, err, errsize) != 0) {
		chan_close(&e->in);
		chan_close(&e->out);
		free(e);
		return NULL;
	}
	return e;
}

static int
shm_send(void *ep, const void *event, char *err, size_t errsize)
{
	shm_ep *e = ep;
	return chan_send(&e->out, event, e->bytes, err, errsize);
}

typedef struct poll_ctx {
	ipc_sink *sink;
	int64_t max, handed;
} poll_ctx;

static bool
on_event(void *ctx, void *slot, int64_t sequence, bool end_of_batch)
{
	(void)sequence, (void)end_of_batch;
	poll_ctx *p = ctx;
	p->handed++;
	return ipc_sink_take(p->sink, slot) && p->handed < p->max;
}

static int64_t
shm_recv(void *ep, ipc_sink *k, int64_t max, char *err, size_t errsize)
{
	shm_ep *e = ep;
	poll_ctx p = { .sink = k, .max = max };
	const sr_poll_handler h = { .ctx = &p, .on_event = on_event };
	for (;;) {
		int rc = sr_poller_poll(e->in.poller, &h);
		if (rc == SR_POLL_PROCESSING)
			return k->failed ? -1 : p.handed;
		if (rc != SR_POLL_IDLE && rc != SR_POLL_GATING)
			return ipc_err(err, errsize, "sr_poller_poll: error %d", rc);
		ipc_cpu_relax();
	}
}

static void
shm_close_ep(void *ep)
{
	shm_ep *e = ep;
	chan_close(&e->out);
	chan_close(&e->in);
	free(e);
}

static const char *
shm_ver(char *buf, size_t size)
{
	snprintf(buf, size, "%s", SEQRING_VERSION_STRING);
	return buf;
}

int
main(int argc, char **argv)
{
	static const ipc_transport t = {
		.library = "seqring", .transport = "shm ring (2 processes)", .default_bytes = "8,64",
		.open = shm_open_ep, .send = shm_send, .recv = shm_recv, .close = shm_close_ep, .version = shm_ver,
	};
	return ipc_main(argc, argv, &t);
}
