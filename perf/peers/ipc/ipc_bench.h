/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ipc_bench.h: what every program of the `ipc` phase shares (README.md beside this file).
 *
 * One program per transport. Each is its own launcher: for each event size it starts the two
 * processes of a pair (itself again, exec'd with --role producer and --role consumer; or one
 * process with both as threads for seqring's in-process ring), collects what they measured
 * and writes one CSV row, library,transport,event_bytes,events_per_sec,p50_ns,p99_ns,p999_ns.
 *
 * A pair does, in this order, over the same two channels (0: producer -> consumer, 1: back):
 *   1. warm-up: the producer sends --warmup events (sequences 0, 1, ...; fewer if
 *      --warmup-seconds runs out first) as fast as the transport takes them, then a stop event;
 *      the consumer times them, sizes the measured run from their rate (--seconds of events,
 *      unless --events fixes the count) and sends that count back;
 *   2. throughput: the producer sends that many more events; the consumer checks each (its
 *      sequence number in the first 8 bytes, each exactly once, in order; the last byte too)
 *      and times the run from its first event to its last;
 *   3. latency: ping-pong, the producer sends event k, the consumer echoes it, the producer
 *      times the round trip; --warmup-pings first, then up to --pings recorded round trips
 *      (at most --ping-seconds); one-way = round trip / 2; then a stop event.
 * A transport only implements open, send, recv and close (below); the driver does the rest.
 */
#ifndef SR_PERF_IPC_BENCH_H
#define SR_PERF_IPC_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

/* The largest event: --bytes takes multiples of 8 from 8 to this. */
#define IPC_MAX_BYTES 4096
/* Descriptors a launcher may hand both processes of a pair (pipes, a memfd). */
#define IPC_MAX_FDS 8
/*
 * The slots of seqring's producer -> consumer ring, in one process and between two: 4,096, so
 * that a lap of 8-byte events (32 KiB) stays in the consumer's L1 and of 64-byte events (256 KiB)
 * in its L2, as a user sizes a ring for a steady stream of small events. With 65,536
 * slots (ring_perf's size) a lap of 8-byte events filled L2 and both rows moved a quarter fewer
 * events (perf/peers/README.md).
 */
#define IPC_SEQRING_SLOTS 4096
/* The sequence of the event that ends a ping-pong. */
#define IPC_STOP UINT64_MAX
/* How long a process waits for its peer to come up (connect, subscribe, open). */
#define IPC_PEER_WAIT_NS (10 * INT64_C(1000000000))

enum ipc_role { IPC_LAUNCHER = 0, IPC_PRODUCER = 1, IPC_CONSUMER = 2, IPC_BOTH = 3 };

/* What both processes of a pair know: set by the launcher, handed to them on their command line. */
typedef struct ipc_setup {
	size_t bytes;              /* the event size */
	char dir[200];             /* a directory of the pair's own, for socket paths (removed after) */
	char name[64];             /* a name unique to the pair (its directory's), for named resources */
	int fds[IPC_MAX_FDS];      /* descriptors made by prepare, inherited by both processes */
	int nfds;
} ipc_setup;

/* The receiving side's check of what arrives, and its progress. */
typedef struct ipc_sink {
	size_t bytes;
	uint64_t next;             /* the sequence expected next */
	int64_t count;             /* events taken so far */
	bool accept_any;           /* take any sequence into `got` (the run length sent back) */
	bool accept_stop;          /* an IPC_STOP event ends the ping-pong */
	bool stopped;
	bool failed;
	uint64_t got;
	char msg[160];
} ipc_sink;

/*
 * A transport. Every function but open and close runs on a measured path: no allocation, no
 * message. Errors: -1 (or NULL from open) with a message in err (errsize bytes).
 */
typedef struct ipc_transport {
	const char *library;       /* CSV column 1: "zeromq" */
	const char *transport;     /* CSV column 2: "ipc push/pull" */
	const char *default_bytes; /* the --bytes default: "8,64" */
	bool one_process;          /* both roles are threads of one process (seqring in-process) */
	bool latency_only;         /* no throughput (the cache line) */
	/* Optional, in the launcher before each pair: make what both processes inherit (s->fds). */
	int (*prepare)(ipc_setup *s, char *err, size_t errsize);
	/*
	 * In each process (one_process: twice in the same process, producer first): open this role's
	 * ends. The producer sends on channel 0 and receives on channel 1, the consumer the reverse.
	 * Returns once the peer can be reached, or NULL after IPC_PEER_WAIT_NS.
	 */
	void *(*open)(const ipc_setup *s, enum ipc_role role, char *err, size_t errsize);
	/* Sends one event of s->bytes bytes, waiting as long as the transport makes it wait. */
	int (*send)(void *ep, const void *event, char *err, size_t errsize);
	/*
	 * Waits until at least one event is there, then hands events to ipc_sink_take (or
	 * ipc_sink_take_seq), at most max of them, stopping early when one returns false.
	 * Returns how many it handed, or -1 (a transport error, or the sink's failure).
	 */
	int64_t (*recv)(void *ep, ipc_sink *sink, int64_t max, char *err, size_t errsize);
	void (*close)(void *ep);
	/* Optional: the library's version, for the progress line. */
	const char *(*version)(char *buf, size_t size);
} ipc_transport;

int ipc_main(int argc, char **argv, const ipc_transport *t);

static inline int64_t
ipc_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline void
ipc_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

/* The last byte of an event of sequence seq (bigger than 8 bytes): checked with the sequence. */
static inline unsigned char
ipc_tail_byte(uint64_t seq)
{
	return (unsigned char)(seq * 31u + 7u);
}

/* Writes sequence seq into an event of `bytes` bytes. */
static inline void
ipc_event_fill(unsigned char *event, size_t bytes, uint64_t seq)
{
	memcpy(event, &seq, sizeof seq);
	if (bytes > sizeof seq)
		event[bytes - 1] = ipc_tail_byte(seq);
}

bool ipc_sink_fail(ipc_sink *k, uint64_t seq, const char *what);

/* Takes the event with sequence seq (a transport whose payload is the sequence alone). */
static inline bool
ipc_sink_take_seq(ipc_sink *k, uint64_t seq)
{
	if (__builtin_expect(seq == k->next && !k->accept_any, 1)) {
		k->next++;
		k->count++;
		return true;
	}
	if (seq == IPC_STOP && k->accept_stop) {
		k->stopped = true;
		return false;
	}
	if (k->accept_any) {
		k->got = seq;
		k->count++;
		return true;
	}
	return ipc_sink_fail(k, seq, "sequence");
}

/* Takes one event: its sequence (and last byte) must be the next expected. */
static inline bool
ipc_sink_take(ipc_sink *k, const void *event)
{
	uint64_t seq;
	memcpy(&seq, event, sizeof seq);
	if (k->bytes > sizeof seq && seq != IPC_STOP && !k->accept_any &&
	    ((const unsigned char *)event)[k->bytes - 1] != ipc_tail_byte(seq))
		return ipc_sink_fail(k, seq, "last byte");
	return ipc_sink_take_seq(k, seq);
}

/* A byte stream (pipe, stream socket) cut into events: a read buffer and what is left in it. */
typedef struct ipc_stream {
	int fd;
	size_t have, off;
	unsigned char buf[65536];
} ipc_stream;

/* Writes one event whole (retrying short writes and EINTR). */
int ipc_stream_send(int fd, const void *event, size_t bytes, char *err, size_t errsize);
/* recv for a byte stream: reads what is there (up to 64 KiB), hands the whole events. */
int64_t ipc_stream_recv(ipc_stream *s, ipc_sink *k, int64_t max, char *err, size_t errsize);

/* snprintf into err, for the transports' messages. */
int ipc_err(char *err, size_t errsize, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif /* SR_PERF_IPC_BENCH_H */
