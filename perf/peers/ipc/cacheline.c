/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cacheline.c: the `ipc` phase's latency reference, measured on the machine in the same run: two
 * processes ping-pong one 64-byte cache line of a MAP_SHARED mapping (a memfd the launcher makes,
 * inherited by both). The producer stores ping k + 1 into the line's first word, the consumer
 * spins until it sees it and stores k + 1 into the line's second word, the producer spins until
 * it sees that: a round trip moves the line there and back, so half of it is one transfer of a
 * line between the two CPUs (plus half a clock read, as in every row). Latency only.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ipc_bench.h"

typedef struct line {
	_Atomic uint64_t word[8];   /* [0]: the producer's ping, [1]: the consumer's pong */
} __attribute__((aligned(64))) line;

typedef struct line_ep {
	line *l;
	int mine, theirs;
	uint64_t seen;              /* the peer word's last value */
} line_ep;

static int
line_prepare(ipc_setup *s, char *err, size_t errsize)
{
	int fd = memfd_create("seqring-ipc-line", 0);   /* no MFD_CLOEXEC: the pair inherits it */
	if (fd < 0)
		return ipc_err(err, errsize, "memfd_create: %s", strerror(errno));
	if (ftruncate(fd, 4096) != 0) {
		close(fd);
		return ipc_err(err, errsize, "ftruncate: %s", strerror(errno));
	}
	s->fds[0] = fd;
	s->nfds = 1;
	return 0;
}

static void *
line_open(const ipc_setup *s, enum ipc_role role, char *err, size_t errsize)
{
	if (s->nfds != 1) {
		ipc_err(err, errsize, "expected 1 inherited descriptor (--fds), got %d", s->nfds);
		return NULL;
	}
	line_ep *e = calloc(1, sizeof *e);
	if (e == NULL) {
		ipc_err(err, errsize, "out of memory");
		return NULL;
	}
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, s->fds[0], 0);
	if (p == MAP_FAILED) {
		ipc_err(err, errsize, "mmap: %s", strerror(errno));
		free(e);
		return NULL;
	}
	close(s->fds[0]);
	e->l = p;
	e->mine = role == IPC_PRODUCER ? 0 : 1;
	e->theirs = 1 - e->mine;
	return e;
}

/* The event's sequence + 1 (a stop: 0, which differs from any earlier value but the first). */
static int
line_send(void *ep, const void *event, char *err, size_t errsize)
{
	(void)err, (void)errsize;
	line_ep *e = ep;
	uint64_t seq;
	memcpy(&seq, event, sizeof seq);
	atomic_store_explicit(&e->l->word[e->mine], seq + 1, memory_order_release);
	return 0;
}

static int64_t
line_recv(void *ep, ipc_sink *k, int64_t max, char *err, size_t errsize)
{
	(void)max, (void)err, (void)errsize;
	line_ep *e = ep;
	uint64_t v;
	while ((v = atomic_load_explicit(&e->l->word[e->theirs], memory_order_acquire)) == e->seen)
		ipc_cpu_relax();
	e->seen = v;
	if (!ipc_sink_take_seq(k, v - 1))
		return k->failed ? -1 : 1;
	return 1;
}

static void
line_close(void *ep)
{
	line_ep *e = ep;
	munmap(e->l, 4096);
	free(e);
}

int
main(int argc, char **argv)
{
	static const ipc_transport t = {
		.library = "machine", .transport = "cache line (MAP_SHARED)", .default_bytes = "64",
		.latency_only = true,
		.prepare = line_prepare, .open = line_open, .send = line_send, .recv = line_recv,
		.close = line_close,
	};
	return ipc_main(argc, argv, &t);
}
