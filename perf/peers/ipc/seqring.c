/* SPDX-License-Identifier: Apache-2.0 */
/*
 * seqring.c: the `ipc` phase's ceiling: seqring's ring within ONE process, a producer thread ->
 * a consumer thread (what the two-process rows are measured against). Channel 0: a ring of
 * IPC_SEQRING_SLOTS (4,096) slots, channel 1 (the pongs and the run length): 1,024 slots
 * (wait_perf's ping-pong rings); slots of the event's size. Each has a single-producer
 * sequencer (sr_sequencer, SR_PRODUCER_SINGLE: claim, write the slot, publish) and an sr_poller
 * that gates it; the consumer polls without sleeping (busy-spin: a `pause` per empty poll), the
 * producer waits for room as the sequencer does (its bounded spin). The poller hands every
 * published event of a poll in order and moves its sequence once per poll.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <seqring/sr_poller.h>
#include <seqring/sr_ring.h>
#include <seqring/sr_sequencer.h>
#include <seqring/sr_version.h>

#include "ipc_bench.h"

typedef struct chan {
	sr_ring *ring;
	sr_sequencer *seq;
	sr_poller *poller;
} chan;

static chan chans[2];       /* both ends live in this process */
static int opened;

typedef struct sr_ep {
	chan *out, *in;
	size_t bytes;
	ipc_sink *sink;         /* the poll's */
	int64_t max, handed;
} sr_ep;

static int
chan_create(chan *c, int64_t slots, size_t bytes, char *err, size_t errsize)
{
	sr_error e;
	sr_sequencer_config cfg;
	sr_sequencer_config_default(&cfg, slots, SR_PRODUCER_SINGLE);
	sr_wait_config_default(&cfg.wait, SR_WAIT_BUSY_SPIN);
	if ((c->ring = sr_ring_create(slots, bytes, NULL, NULL, &e)) == NULL ||
	    (c->seq = sr_sequencer_create(&cfg, &e)) == NULL ||
	    (c->poller = sr_poller_create(c->ring, c->seq, NULL, 0, &e)) == NULL ||
	    sr_sequencer_add_gating(c->seq, sr_poller_sequence(c->poller)) != SR_OK)
		return ipc_err(err, errsize, "seqring set-up: %s", e.message);
	return 0;
}

static void *
sr_open(const ipc_setup *s, enum ipc_role role, char *err, size_t errsize)
{
	if (opened++ == 0 && (chan_create(&chans[0], IPC_SEQRING_SLOTS, s->bytes, err, errsize) != 0 ||
	    chan_create(&chans[1], 1024, s->bytes, err, errsize) != 0))
		return NULL;
	sr_ep *e = calloc(1, sizeof *e);
	if (e == NULL) {
		ipc_err(err, errsize, "out of memory");
		return NULL;
	}
	e->bytes = s->bytes;
	e->out = &chans[role == IPC_PRODUCER ? 0 : 1];
	e->in = &chans[role == IPC_PRODUCER ? 1 : 0];
	return e;
}

static int
sr_send(void *ep, const void *event, char *err, size_t errsize)
{
	sr_ep *e = ep;
	int64_t seq;
	int rc = sr_sequencer_claim(e->out->seq, &seq);
	if (rc != SR_OK)
		return ipc_err(err, errsize, "sr_sequencer_claim: error %d", rc);
	memcpy(sr_ring_slot(e->out->ring, seq), event, e->bytes);
	sr_sequencer_publish(e->out->seq, seq);
	return 0;
}

static bool
on_event(void *ctx, void *slot, int64_t sequence, bool end_of_batch)
{
	(void)sequence, (void)end_of_batch;
	sr_ep *e = ctx;
	e->handed++;
	return ipc_sink_take(e->sink, slot) && e->handed < e->max;
}

static int64_t
sr_recv(void *ep, ipc_sink *k, int64_t max, char *err, size_t errsize)
{
	sr_ep *e = ep;
	const sr_poll_handler h = { .ctx = e, .on_event = on_event };
	e->sink = k;
	e->max = max;
	e->handed = 0;
	for (;;) {
		int rc = sr_poller_poll(e->in->poller, &h);
		if (rc == SR_POLL_PROCESSING)
			return k->failed ? -1 : e->handed;
		if (rc != SR_POLL_IDLE && rc != SR_POLL_GATING)
			return ipc_err(err, errsize, "sr_poller_poll: error %d", rc);
		ipc_cpu_relax();
	}
}

static void
sr_close(void *ep)
{
	free(ep);
	if (--opened == 0)
		for (int i = 0; i < 2; i++) {
			sr_sequencer_remove_gating(chans[i].seq, sr_poller_sequence(chans[i].poller));
			sr_poller_destroy(chans[i].poller);
			sr_sequencer_destroy(chans[i].seq);
			sr_ring_destroy(chans[i].ring);
		}
}

static const char *
sr_ver(char *buf, size_t size)
{
	snprintf(buf, size, "%s", SEQRING_VERSION_STRING);
	return buf;
}

int
main(int argc, char **argv)
{
	static const ipc_transport t = {
		.library = "seqring", .transport = "in-process ring (threads)", .default_bytes = "8,64",
		.one_process = true,
		.open = sr_open, .send = sr_send, .recv = sr_recv, .close = sr_close, .version = sr_ver,
	};
	return ipc_main(argc, argv, &t);
}
