/* SPDX-License-Identifier: Apache-2.0 */
/*
 * two_processes.c: two processes, one ring: what a page fault, a shared
 * futex and a cache line cost across a process boundary.
 *
 * The lesson forks a child.  The parent creates the shared rings (shm/,
 * POSIX shared memory) under names of its own, /seqring-lesson-PID-...;
 * the child opens them by name, and the parent removes the names as soon
 * as every side has joined (a join opens the name again): a mapping lives
 * on while a process has it, so nothing is left in /dev/shm whatever
 * happens next.  Each side waits for events in its own thread, with a
 * barrier over the ring's sequencer (what an sr_processor runs on its
 * thread); the two sides run on two different CPUs, the first two this
 * process may use, so that every event and every wake-up crosses from one
 * core to the other.
 *
 * It measures three things:
 *  1. an 8-byte event's one-way latency with a spinning consumer
 *     (busyspin): a ping-pong, one ring each way, halved.  The cores do not
 *     know which process a line belongs to: the consumer fetches the
 *     cursor's line and then the slot's, T to 2 T, as between threads;
 *  2. the same with a blocking consumer (block), one event every
 *     millisecond so that the consumer is always asleep: about W, since
 *     the futex is keyed by the shared page, which both processes map.
 *     For 1 and 2 the same code also runs between two threads of the
 *     parent, on rings made the same way, on the same two CPUs, in slices
 *     that alternate with the processes' (on a virtual machine a vCPU's
 *     place, and T with it, can change from one second to the next): the
 *     boundary is all that differs;
 *  3. the child writing two laps of a large ring: the parent's memset at
 *     creation gave the pages to the file, but the child's page tables are
 *     its own, so its first write to each page is a minor fault; the second
 *     lap finds them mapped.  The child counts its minor faults
 *     (getrusage's ru_minflt) around each lap; the parent then reads the
 *     second lap's events in its own mapping of the same pages.
 *
 * The prediction, the verdict: one minor fault per page in the child's
 * first lap (a count, which a busy machine does not move).  1 and 2 are
 * reported beside it, in units of T and W measured at the start.
 * --prefault makes the child populate its page tables before the lap
 * (madvise MADV_POPULATE_WRITE, or a write to every page where the kernel
 * lacks it): the faults happen then, none in the lap, and the verdict says
 * so.
 *
 * Flips the verdict: --prefault
 *
 * Run: two_processes [--quick] [--rounds N] [--block-rounds N] [--ring-mib MIB] [--prefault]
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <seqring/sr_barrier.h>
#include <seqring/sr_shm_consumer.h>
#include <seqring/sr_shm_producer.h>
#include <seqring/sr_shm_ring.h>

#include "ex_flags.h"
#include "ex_machine.h"
#include "ex_time.h"
#include "ex_verdict.h"

#define PING_SLOTS 1024      /* the ping-pong rings: 8-byte slots */
#define SPIN_BLOCK 1000      /* busyspin round trips per timed block */
#define BLOCK_GAP_NS 1000000 /* between block round trips: the consumer is asleep when the event comes */

/*
 * The rings, each under a name of its own: a ping-pong set of four (busyspin
 * and block, a ring each way) between two threads of the parent, the same
 * set between the two processes, and the large ring.
 */
enum { SPIN_PING, SPIN_PONG, BLOCK_PING, BLOCK_PONG, SET_SIZE };
enum { THREADS = 0, PROCESSES = SET_SIZE, LAPS = 2 * SET_SIZE, RING_COUNT };
static const char *const ring_tags[RING_COUNT] = { "threads-spin-ping", "threads-spin-pong",
	"threads-block-ping", "threads-block-pong", "spin-ping", "spin-pong", "block-ping", "block-pong", "laps" };
static char names[RING_COUNT][64];
static bool named[RING_COUNT]; /* created and not yet unlinked */

static int64_t rounds = 1000000, block_rounds = 1000, ring_mib = 64;
static bool prefault = false;

/*
 * The two columns, between threads and between processes, are measured in
 * alternating slices, so that both meet the machine as it is at the time
 * (on a virtual machine the host may move a vCPU, and T with it, between
 * one second and the next).  Set before the fork: every side runs them.
 */
#define SLICES 10
static int64_t spin_slices, blocks_per_slice, block_slices, trips_per_slice;

static void
quick(void)
{
	rounds = 100000;
	block_rounds = 100;
	ring_mib = 16;
}

static void
unlink_names(void)
{
	for (int i = 0; i < RING_COUNT; i++)
		if (named[i]) {
			sr_shm_ring_unlink(names[i], NULL);
			named[i] = false;
		}
}

/* Runs the calling thread on cpu (-1: wherever it may). */
static bool
pin(int cpu)
{
	if (cpu < 0)
		return true;
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	int rc = pthread_setaffinity_np(pthread_self(), sizeof one, &one);
	errno = rc;
	return rc == 0;
}

/* ------------------------------------------------------------------------------------------ */
/* One side of a ping-pong                                                                     */

/* A consumer of one ring that waits with the ring's strategy in the calling thread. */
struct reader {
	sr_shm_consumer *consumer;
	sr_barrier barrier;
	sr_ring *slots;
	sr_sequence *sequence;
	int64_t next;
};

static bool
reader_join(struct reader *r, sr_shm_ring *ring, sr_error *err)
{
	r->consumer = sr_shm_consumer_join(ring, 0, NULL, 0, true, err);
	if (r->consumer == NULL)
		return false;
	sr_processor_config pc;
	memset(&pc, 0, sizeof pc);
	sr_shm_consumer_processor_config(r->consumer, &pc);
	if (sr_barrier_init(&r->barrier, pc.sequencer, pc.dependents, pc.dependent_count, err) != SR_OK)
		return false;
	r->slots = pc.ring;
	r->sequence = pc.sequence;
	r->next = sr_shm_consumer_joined_after(r->consumer) + 1;
	return true;
}

/* The next event's 8 bytes: SR_OK, or SR_EALERTED when the barrier was alerted (the child died). */
static int
reader_take(struct reader *r, int64_t *value)
{
	int64_t available;
	int rc = sr_barrier_wait_for(&r->barrier, r->next, &available);
	if (rc != SR_OK)
		return rc;
	memcpy(value, sr_ring_slot(r->slots, r->next), sizeof *value);
	sr_sequence_set(r->sequence, r->next); /* handled: the producer may reuse the slot */
	r->next++;
	return SR_OK;
}

/* A producer of one ring. */
struct writer {
	sr_shm_producer *producer;
	sr_ring *slots;
};

static bool
writer_join(struct writer *w, sr_shm_ring *ring, sr_error *err)
{
	w->producer = sr_shm_producer_join(ring, err);
	w->slots = sr_shm_ring_slots(ring);
	return w->producer != NULL;
}

/* Claims a slot, writes value into it, publishes it. */
static int
writer_put(struct writer *w, int64_t value)
{
	int64_t s;
	int rc = sr_shm_producer_claim(w->producer, &s);
	if (rc != SR_OK)
		return rc;
	memcpy(sr_ring_slot(w->slots, s), &value, sizeof value);
	sr_shm_producer_publish(w->producer, s);
	return SR_OK;
}

/*
 * The answering side, the child or the parent's second thread: each ping is
 * sent back as it came, first on the busyspin rings, then on the block rings.
 */
struct echo {
	struct reader spin_in, block_in;
	struct writer spin_out, block_out;
	int cpu;                     /* where it runs (-1: where it is) */
	int gate;                    /* a pipe: one byte before each busyspin slice */
	sr_barrier *asker[2];        /* a thread that fails alerts the asking side's waits, so that none outlives it */
	int64_t spin_expected, block_expected; /* the next ping's value */
	int64_t out_of_order;        /* pings out of order, -1 after a failure */
	const char *failure;         /* what failed, or NULL */
};

/* Answers n pings; returns those out of order, or -1 when a wait or a claim failed. */
static int64_t
echo_rounds(struct reader *in, struct writer *out, int64_t n, int64_t *expected)
{
	int64_t wrong = 0;
	for (int64_t i = 0; i < n; i++) {
		int64_t v;
		if (reader_take(in, &v) != SR_OK || writer_put(out, v) != SR_OK)
			return -1;
		wrong += v != (*expected)++;
	}
	return wrong;
}

static void *
echo_run(void *arg)
{
	struct echo *e = arg;
	int64_t wrong = 0, r = 0;
	char go;
	if (!pin(e->cpu))
		e->failure = "cannot run on its CPU (sched_setaffinity)";
	/*
	 * Between its busyspin slices it waits in read(2), so as not to spin on
	 * the CPU that the other answering side's slice uses meanwhile.  A slice
	 * starts with a round trip that is not timed.
	 */
	for (int64_t k = 0; k < spin_slices && e->failure == NULL; k++)
		if (read(e->gate, &go, 1) != 1)
			e->failure = "the asking side went away";
		else if ((r = echo_rounds(&e->spin_in, &e->spin_out, 1 + blocks_per_slice * SPIN_BLOCK,
		    &e->spin_expected)) < 0)
			e->failure = "a wait or a claim failed (busyspin)";
		else
			wrong += r;
	/* A blocking side sleeps between its slices. */
	for (int64_t k = 0; k < block_slices && e->failure == NULL; k++)
		if ((r = echo_rounds(&e->block_in, &e->block_out, trips_per_slice, &e->block_expected)) < 0)
			e->failure = "a wait or a claim failed (block)";
		else
			wrong += r;
	e->out_of_order = e->failure == NULL ? wrong : -1;
	for (int i = 0; i < 2 && e->failure != NULL; i++)
		if (e->asker[i] != NULL)
			sr_barrier_alert(e->asker[i]);
	return NULL;
}

/* The answering side joins a set: it consumes pings and produces pongs. */
static bool
echo_join(struct echo *e, sr_shm_ring **set, sr_error *err)
{
	return reader_join(&e->spin_in, set[SPIN_PING], err) && reader_join(&e->block_in, set[BLOCK_PING], err) &&
	    writer_join(&e->spin_out, set[SPIN_PONG], err) && writer_join(&e->block_out, set[BLOCK_PONG], err);
}

/* The asking side, the parent's main thread, on one set. */
struct asker {
	struct reader spin_in, block_in;
	struct writer spin_out, block_out;
	int64_t spin_sent, block_sent; /* pings sent: the next one's value */
	int64_t out_of_order;
	double *blocks, *trips;        /* one-way ns: per timed busyspin block, per block round trip */
	int64_t blocks_done, trips_done;
};

/* The asking side joins a set: it produces pings and consumes pongs. */
static bool
asker_join(struct asker *a, sr_shm_ring **set, sr_error *err)
{
	return reader_join(&a->spin_in, set[SPIN_PONG], err) && reader_join(&a->block_in, set[BLOCK_PONG], err) &&
	    writer_join(&a->spin_out, set[SPIN_PING], err) && writer_join(&a->block_out, set[BLOCK_PING], err);
}

/* One ping out and back; false when the answering side stopped answering. */
static bool
round_trip(struct asker *a, struct writer *out, struct reader *in, int64_t *sent)
{
	int64_t v, value = (*sent)++;
	if (writer_put(out, value) != SR_OK || reader_take(in, &v) != SR_OK)
		return false;
	a->out_of_order += v != value;
	return true;
}

/* A busyspin slice: one round trip untimed (the other side has just left read(2)), then timed blocks. */
static bool
ask_spin_slice(struct asker *a)
{
	if (!round_trip(a, &a->spin_out, &a->spin_in, &a->spin_sent))
		return false;
	for (int64_t b = 0; b < blocks_per_slice; b++) {
		int64_t t0 = sr_monotonic_ns();
		for (int j = 0; j < SPIN_BLOCK; j++)
			if (!round_trip(a, &a->spin_out, &a->spin_in, &a->spin_sent))
				return false;
		a->blocks[a->blocks_done++] = (double)(sr_monotonic_ns() - t0) / (2.0 * SPIN_BLOCK);
	}
	return true;
}

/* A block slice: round trips a millisecond apart, each timed. */
static bool
ask_block_slice(struct asker *a)
{
	for (int64_t i = 0; i < trips_per_slice; i++) {
		ex_sleep_until(sr_monotonic_ns() + BLOCK_GAP_NS);
		int64_t t0 = sr_monotonic_ns();
		if (!round_trip(a, &a->block_out, &a->block_in, &a->block_sent))
			return false;
		a->trips[a->trips_done++] = (double)(sr_monotonic_ns() - t0) / 2.0;
	}
	return true;
}

static sr_shm_ring_options
options_no_reaper(void)
{
	/* Nothing here dies on purpose: no reaper thread in either process. */
	sr_shm_ring_options o;
	sr_shm_ring_options_default(&o);
	o.reaper_thread = false;
	return o;
}

static long
minor_faults(void)
{
	struct rusage r;
	getrusage(RUSAGE_SELF, &r);
	return r.ru_minflt;
}

/* ------------------------------------------------------------------------------------------ */
/* The child                                                                                   */

/* What the child measured, sent to the parent through a pipe. */
struct child_report {
	int64_t out_of_order;        /* pings, -1 when a wait failed */
	int64_t pages, events;       /* of the large ring */
	int64_t faults[3], ns[3];    /* before the lap (--prefault), first lap, second lap */
	int prefault_method;         /* 0 none, 1 madvise, 2 a write to every page */
};

static void
child_fail(const char *what, const char *message)
{
	fprintf(stderr, "two_processes: child process: %s: %s\n", what, message);
	_exit(1);
}

/* One lap of the large ring: every slot claimed, written and published; its faults and ns. */
static int
lap(struct writer *w, int64_t n, int64_t *faults, int64_t *ns)
{
	long f0 = minor_faults();
	int64_t t0 = sr_monotonic_ns();
	for (int64_t i = 0; i < n; i++) {
		int64_t s;
		int rc = sr_shm_producer_claim(w->producer, &s);
		if (rc != SR_OK)
			return rc;
		memcpy(sr_ring_slot(w->slots, s), &s, sizeof s);
		sr_shm_producer_publish(w->producer, s);
	}
	*ns = sr_monotonic_ns() - t0;
	*faults = minor_faults() - f0;
	return SR_OK;
}

static void
child_main(pid_t parent, int cpu, int from_parent, int to_parent)
{
	/* Dies with the parent, however the parent dies (checked: it may have died already). */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
		_exit(1);
	signal(SIGCHLD, SIG_DFL);
	if (!pin(cpu))
		child_fail("sched_setaffinity", strerror(errno));
	/*
	 * The parent says when the rings exist (a byte: open and join them),
	 * then when each busyspin slice starts (a byte each, read by echo_run).
	 */
	char go, ready = 'R';
	if (read(from_parent, &go, 1) != 1)
		_exit(1); /* the parent failed before the rings were ready, and said why */
	sr_error err;
	sr_shm_ring_options o = options_no_reaper();
	sr_shm_ring *ring[RING_COUNT] = { NULL };
	for (int i = PROCESSES; i < RING_COUNT; i++)
		if ((ring[i] = sr_shm_ring_open(names[i], &o, &err)) == NULL)
			child_fail("open", err.message);
	struct echo e = { .cpu = -1, .gate = from_parent };
	struct writer laps;
	if (!echo_join(&e, &ring[PROCESSES], &err) || !writer_join(&laps, ring[LAPS], &err))
		child_fail("join", err.message);
	if (write(to_parent, &ready, 1) != 1)
		_exit(1);

	struct child_report rep;
	memset(&rep, 0, sizeof rep);
	/* 1 and 2 */
	echo_run(&e);
	if ((rep.out_of_order = e.out_of_order) < 0)
		child_fail("ping-pong", e.failure);

	/* 3: two laps of the large ring, whose pages this process has not touched. */
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t lo = (uintptr_t)laps.slots->slots & ~(uintptr_t)(page - 1);
	uintptr_t hi = ((uintptr_t)laps.slots->slots + laps.slots->bytes + (uintptr_t)page - 1) &
	    ~(uintptr_t)(page - 1);
	rep.pages = (int64_t)((hi - lo) / (uintptr_t)page);
	rep.events = laps.slots->slot_count;
	if (prefault) {
		long f0 = minor_faults();
		int64_t t0 = sr_monotonic_ns();
		rep.prefault_method = 1;
#ifdef MADV_POPULATE_WRITE
		if (madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE) != 0)
#endif
		{
			/* No MADV_POPULATE_WRITE (before Linux 5.14): a write to every page, of what it holds. */
			rep.prefault_method = 2;
			for (uintptr_t a = lo; a < hi; a += (uintptr_t)page)
				*(volatile unsigned char *)a = *(volatile unsigned char *)a;
		}
		rep.ns[0] = sr_monotonic_ns() - t0;
		rep.faults[0] = minor_faults() - f0;
	}
	for (int k = 1; k <= 2; k++)
		if (lap(&laps, rep.events, &rep.faults[k], &rep.ns[k]) != SR_OK)
			child_fail("a lap of the large ring", "a claim failed");
	if (write(to_parent, &rep, sizeof rep) != (ssize_t)sizeof rep)
		_exit(1);
	for (int i = PROCESSES; i < RING_COUNT; i++)
		sr_shm_ring_close(&ring[i]);
	_exit(0);
}

/* ------------------------------------------------------------------------------------------ */
/* The parent                                                                                  */

/* The barriers the parent waits on: alerted when the child exits, so that no wait outlives it. */
static sr_barrier *volatile watched[2];

static void
on_child_exit(int sig)
{
	int saved = errno;
	for (int i = 0; i < 2; i++)
		if (watched[i] != NULL)
			sr_barrier_alert(watched[i]);
	errno = saved;
	(void)sig;
}

/*
 * Reaps the child; true when it exited with status 0, else false after a
 * message.  stop: a child still running is killed first (the parent failed).
 */
static bool
reap(pid_t child, bool stop)
{
	int status;
	pid_t r = stop ? waitpid(child, &status, WNOHANG) : 0;
	bool killed = false;
	if (r == 0) {
		if (stop)
			killed = kill(child, SIGKILL) == 0;
		while ((r = waitpid(child, &status, 0)) < 0 && errno == EINTR)
			;
	}
	if (r < 0) {
		fprintf(stderr, "two_processes: waitpid: %s\n", strerror(errno));
		return false;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return true;
	if (WIFEXITED(status))
		fprintf(stderr, "two_processes: the child process exited with status %d\n", WEXITSTATUS(status));
	else if (WIFSIGNALED(status) && !killed)
		fprintf(stderr, "two_processes: the child process was killed by signal %d (%s)\n",
		    WTERMSIG(status), strsignal(WTERMSIG(status)));
	return false;
}

/* Reads exactly n bytes; false at end of file (the child died) or on an error. */
static bool
read_all(int fd, void *buf, size_t n)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(fd, (char *)buf + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		got += (size_t)r;
	}
	return true;
}

static sr_shm_ring *
create_ring(int which, int64_t slot_count, enum sr_wait_kind kind, sr_error *err)
{
	sr_shm_ring_config c;
	sr_shm_ring_config_default(&c, slot_count, 8, SR_PRODUCER_SINGLE);
	sr_wait_config_default(&c.wait, kind);
	c.max_producers = 1;
	c.max_consumers = 1;
	sr_shm_ring_options o = options_no_reaper();
	sr_shm_ring *r = sr_shm_ring_create(names[which], &c, &o, err);
	named[which] = r != NULL;
	return r;
}

/* "65 ns = 2.1 T" into buf. */
static const char *
in_units(char *buf, size_t size, double ns, double unit_ns, const char *unit, bool us)
{
	int n = us ? snprintf(buf, size, "%.1f us", ns / 1e3) : snprintf(buf, size, "%.0f ns", ns);
	if (unit_ns > 0 && n > 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, " = %.2f %s", ns / unit_ns, unit);
	return buf;
}

int
main(int argc, char **argv)
{
	const ex_flag flags[] = {
		{ "--quick", EX_FLAG_ACTION, NULL, 0, 0, quick },
		{ "--rounds", EX_FLAG_INT64, &rounds, SPIN_BLOCK, 1e9, NULL },
		{ "--block-rounds", EX_FLAG_INT64, &block_rounds, 1, 100000, NULL },
		{ "--ring-mib", EX_FLAG_POW2, &ring_mib, 1, 1024, NULL },
		{ "--prefault", EX_FLAG_SET, &prefault, 0, 0, NULL },
	};
	ex_flags_parse(argc, argv, "two_processes",
	    "[--quick] [--rounds N (busyspin round trips, 1000 to 1e9; default 1000000)] "
	    "[--block-rounds N (block round trips, 1 ms apart, 1 to 100000; default 1000)] "
	    "[--ring-mib MIB (the large ring, a power of two from 1 to 1024; default 64)] "
	    "[--prefault (the child populates its page tables before its first lap)]",
	    flags, sizeof flags / sizeof flags[0]);
	ex_machine m;
	ex_machine_measure(&m);
	long page = sysconf(_SC_PAGESIZE);
	int64_t lap_slots = ring_mib * 1024 * 1024 / 8;
	ex_predict("minor page faults per page in the child's first lap", 1, "",
	    "one per %ld-byte page: the parent's memset at creation gave the %" PRId64 " MiB of pages to the "
	    "file, but the child's page tables are its own, filled one page per write fault",
	    page, ring_mib);

	/* The two sides on two CPUs: the first two this process may use. */
	int cpu[2] = { -1, -1 };
	cpu_set_t mine;
	if (sched_getaffinity(0, sizeof mine, &mine) == 0)
		for (int c = 0, k = 0; c < CPU_SETSIZE && k < 2; c++)
			if (CPU_ISSET(c, &mine))
				cpu[k++] = c;
	if (cpu[1] < 0) {
		/*
		 * One CPU: the block rows only.  A spinning side would keep the CPU
		 * until the scheduler took it away, once per event.
		 */
		cpu[0] = -1;
		rounds = 0;
	}
	if (!pin(cpu[0])) {
		fprintf(stderr, "two_processes: sched_setaffinity: %s\n", strerror(errno));
		return 1;
	}
	int64_t spin_blocks = rounds / SPIN_BLOCK;
	spin_slices = spin_blocks < SLICES ? spin_blocks : SLICES;
	blocks_per_slice = spin_slices > 0 ? spin_blocks / spin_slices : 0;
	spin_blocks = spin_slices * blocks_per_slice;
	block_slices = block_rounds < SLICES ? block_rounds : SLICES;
	trips_per_slice = block_rounds / block_slices;
	block_rounds = block_slices * trips_per_slice;

	pid_t self = getpid();
	for (int i = 0; i < RING_COUNT; i++)
		snprintf(names[i], sizeof names[i], "/seqring-lesson-%d-%s", (int)self, ring_tags[i]);
	int down[2], up[2], gate[2]; /* to the child, from the child, to the answering thread */
	if (pipe(down) != 0 || pipe(up) != 0 || pipe(gate) != 0) {
		fprintf(stderr, "two_processes: pipe: %s\n", strerror(errno));
		return 1;
	}
	/* A child that dies makes a write to it fail with EPIPE, not kill the parent. */
	signal(SIGPIPE, SIG_IGN);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_child_exit;
	sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);

	ex_watch w;
	ex_watch_start(&w);
	fflush(stdout); /* nothing buffered for the child to inherit */
	pid_t child = fork();
	if (child < 0) {
		fprintf(stderr, "two_processes: fork: %s\n", strerror(errno));
		return 1;
	}
	if (child == 0) {
		close(down[1]);
		close(up[0]);
		close(gate[0]);
		close(gate[1]);
		child_main(self, cpu[1], down[0], up[1]);
	}
	close(down[0]);
	close(up[1]);

	/* From here on every way out reaps the child and removes the names. */
	sr_error err;
	const char *failed = NULL;
	sr_shm_ring *ring[RING_COUNT] = { NULL };
	double *timed = calloc(2 * ((size_t)spin_blocks + (size_t)block_rounds) + 1, sizeof *timed);
	/*
	 * The parent's main thread asks on both sets, a[0] between threads and
	 * a[1] between processes; its second thread answers on the first, e.
	 */
	struct asker a[2] = {
		{ .blocks = timed, .trips = timed + spin_blocks },
		{ .blocks = timed + spin_blocks + block_rounds, .trips = timed + 2 * spin_blocks + block_rounds },
	};
	struct echo e = { .cpu = cpu[1], .gate = gate[0], .asker = { &a[0].spin_in.barrier, &a[0].block_in.barrier } };
	bool thread_started = false;
	pthread_t thread;
	struct child_report rep;
	double spin_ns[2] = { 0 }, block_ns[2] = { 0 }; /* [0] between threads, [1] between processes */
	long create_faults = 0;
	int64_t create_ns = 0;
	char go = 'G', ready;

	for (int i = 0; i < RING_COUNT && failed == NULL; i++) {
		long f0 = minor_faults();
		int64_t t0 = sr_monotonic_ns();
		bool spins = i == LAPS || i % SET_SIZE == SPIN_PING || i % SET_SIZE == SPIN_PONG;
		ring[i] = create_ring(i, i == LAPS ? lap_slots : PING_SLOTS, spins ? SR_WAIT_BUSY_SPIN : SR_WAIT_BLOCK,
		    &err);
		if (ring[i] == NULL)
			failed = err.message;
		if (i == LAPS) {
			create_ns = sr_monotonic_ns() - t0;
			create_faults = minor_faults() - f0;
		}
	}
	if (failed == NULL && timed == NULL)
		failed = "out of memory";
	if (failed == NULL && (!asker_join(&a[0], &ring[THREADS], &err) || !echo_join(&e, &ring[THREADS], &err) ||
	    !asker_join(&a[1], &ring[PROCESSES], &err)))
		failed = err.message;
	/* The child opens the second set and the large ring by name, and joins them. */
	if (failed == NULL && write(down[1], &go, 1) != 1)
		failed = "the child process is gone (it could not be told to open the rings)";
	else if (failed == NULL && !read_all(up[0], &ready, 1))
		failed = "the child process could not open or join the rings (its message is above)";
	/* Every participant has joined (a join opens the name again): the names are no longer needed. */
	unlink_names();
	if (failed != NULL)
		goto fail;
	printf("Two processes: the parent (pid %d) created 8 rings of %d 8-byte slots and one of %" PRId64
	    " MiB (%" PRId64 " slots) under /seqring-lesson-%d-*; the child (pid %d) opened 4 of the small ones "
	    "and the large one by name, and the names were removed once every side had joined. ", (int)self,
	    PING_SLOTS, ring_mib, lap_slots, (int)self, (int)child);
	if (cpu[0] >= 0)
		printf("The parent's main thread asks on CPU %d, the answering side (a second thread of the parent, "
		    "or the child) answers on CPU %d; ", cpu[0], cpu[1]);
	else
		printf("This process may use one CPU: both sides run on it; ");
	printf("the two columns below are measured in alternating slices, %" PRId64 " busyspin and %" PRId64
	    " block slices each.\n\n", spin_slices, block_slices);
	fflush(stdout);

	/* The answering thread, on the child's CPU; each waits for its first slice in read(2). */
	if (pthread_create(&thread, NULL, echo_run, &e) != 0) {
		failed = "cannot create the answering thread";
		goto fail;
	}
	thread_started = true;
	watched[0] = &a[1].spin_in.barrier;
	watched[1] = &a[1].block_in.barrier;
	/* Slices in turn: between threads, then between processes, and again. */
	for (int64_t k = 0; k < spin_slices + block_slices && failed == NULL; k++)
		for (int side = 0; side < 2 && failed == NULL; side++) {
			bool spin = k < spin_slices;
			if (spin && write(side == 0 ? gate[1] : down[1], &go, 1) != 1)
				failed = side == 0 ? "the answering thread is gone" : "the child process is gone";
			else if (!(spin ? ask_spin_slice(&a[side]) : ask_block_slice(&a[side])))
				failed = side == 0 ? "the answering thread stopped answering" :
				    "the child process stopped answering";
		}
	if (failed == NULL && !read_all(up[0], &rep, sizeof rep))
		failed = "the child process died before it reported its laps (its message is above)";
	if (failed != NULL)
		goto fail;
	pthread_join(thread, NULL);
	thread_started = false;
	if (e.out_of_order < 0) {
		failed = e.failure;
		goto fail;
	}
	for (int side = 0; side < 2; side++) {
		spin_ns[side] = spin_blocks > 0 ? ex_median(a[side].blocks, (int)spin_blocks) : 0;
		block_ns[side] = ex_median(a[side].trips, (int)block_rounds);
	}

	/* The second lap, as the parent's own mapping of the same pages shows it. */
	sr_ring *lap_view = sr_shm_ring_slots(ring[LAPS]);
	int64_t lap_errors = 0;
	for (int64_t s = lap_slots; s < 2 * lap_slots; s++) {
		int64_t v;
		memcpy(&v, sr_ring_slot(lap_view, s), sizeof v);
		lap_errors += v != s;
	}
	int64_t lap_cursor = sr_sequencer_cursor(sr_shm_ring_sequencer(ring[LAPS]));
	watched[0] = watched[1] = NULL;
	for (int i = 0; i < RING_COUNT; i++)
		sr_shm_ring_close(&ring[i]);
	close(down[1]);
	close(up[0]);
	close(gate[0]);
	close(gate[1]);
	free(timed);
	if (!reap(child, false))
		return 1;
	for (int k = 0; k < 2 && spin_blocks > 0; k++)
		if (!ex_check_cycles(&m, "one-way latency (busyspin)", spin_ns[k]))
			return 1;
	if (!ex_check_cycles(&m, "ns per event of the second lap", (double)rep.ns[2] / (double)rep.events))
		return 1;

	/* The tables. */
	char t[2][48], p[2][48];
	printf("| one-way latency of an 8-byte event (a ping-pong, one ring each way, halved) | between two threads "
	    "of the parent | between the two processes | processes / threads | the model |\n");
	printf("|---|---:|---:|---:|---|\n");
	if (spin_blocks > 0)
		printf("| spinning consumer (busyspin): median of %" PRId64 " blocks of %d | %s | %s | %.2f | T to 2 T "
		    "(T = %.0f ns): the cursor's line, then the slot's |\n", spin_blocks, SPIN_BLOCK,
		    in_units(t[0], sizeof t[0], spin_ns[0], m.transfer_ns, "T", false),
		    in_units(p[0], sizeof p[0], spin_ns[1], m.transfer_ns, "T", false), spin_ns[1] / spin_ns[0],
		    m.transfer_ns);
	else
		printf("| spinning consumer (busyspin): not run, this process may use one CPU | - | - | - | "
		    "needs a CPU for each side |\n");
	printf("| sleeping consumer (block), an event per ms: median of %" PRId64 " | %s | %s | %.2f | W "
	    "(W = %.1f us): a futex wake, keyed by the shared page |\n\n", block_rounds,
	    in_units(t[1], sizeof t[1], block_ns[0], m.wake_ns, "W", true),
	    in_units(p[1], sizeof p[1], block_ns[1], m.wake_ns, "W", true), block_ns[1] / block_ns[0],
	    m.wake_ns / 1e3);

	double pages = (double)rep.pages;
	printf("| the %" PRId64 " MiB ring: %" PRId64 " pages of %ld bytes, %" PRId64 " 8-byte events a lap | "
	    "minor faults | per page | ns per page | ns per event |\n", ring_mib, rep.pages, page, rep.events);
	printf("|---|---:|---:|---:|---:|\n");
	printf("| the parent creates it (its memset allocates the pages) | %ld | %.2f | %.0f | - |\n",
	    create_faults, (double)create_faults / pages, (double)create_ns / pages);
	if (prefault)
		printf("| the child, before its first lap: %s | %" PRId64 " | %.2f | %.0f | - |\n",
		    rep.prefault_method == 1 ? "madvise(MADV_POPULATE_WRITE)" : "a write to every page",
		    rep.faults[0], (double)rep.faults[0] / pages, (double)rep.ns[0] / pages);
	const char *lap_name[3] = { "", "the child, first lap", "the child, second lap" };
	for (int k = 1; k <= 2; k++)
		printf("| %s | %" PRId64 " | %.2f | %.0f | %.2f |\n", lap_name[k], rep.faults[k],
		    (double)rep.faults[k] / pages, (double)rep.ns[k] / pages, (double)rep.ns[k] / (double)rep.events);
	printf("\n");

	int64_t out_of_order = e.out_of_order + a[0].out_of_order + a[1].out_of_order + rep.out_of_order;
	bool ok = out_of_order == 0 && lap_errors == 0 && lap_cursor == 2 * lap_slots - 1;
	printf("%s: every ping came back in order (%" PRId64 " busyspin and %" PRId64 " block round trips in each "
	    "column, %" PRId64 " out of order), and the parent read the child's second lap, %" PRId64 " events, in "
	    "its own mapping of the same pages (%" PRId64 " wrong, cursor %" PRId64 ").\n\n", ok ? "PASS" : "FAIL",
	    spin_blocks * SPIN_BLOCK, block_rounds, out_of_order, lap_slots, lap_errors, lap_cursor);

	double per_page = (double)rep.faults[1] / pages;
	char reason[200] = "";
	if (prefault && per_page < 0.5)
		snprintf(reason, sizeof reason, "the child had populated its page tables before the lap (--prefault: "
		    "%" PRId64 " faults then, %.2f per page)", rep.faults[0], (double)rep.faults[0] / pages);
	else if (per_page < 0.77)
		snprintf(reason, sizeof reason, "fewer faults than pages: the kernel mapped several pages per fault "
		    "(large folios or huge pages in /dev/shm)");
	ex_claim c = { .what = "minor page faults per page in the child's first lap", .predicted = 1,
		.measured = per_page, .tolerance = 1.3, .threads = 1, .own_reason = reason[0] ? reason : NULL };
	ex_verdict(&m, &w, &c);

	char spin[256] = "with a sleeping consumer an event crossed from one process to the other in ";
	if (spin_blocks > 0) {
		double r = m.transfer_ns > 0 ? spin_ns[1] / m.transfer_ns : 0;
		snprintf(spin, sizeof spin, "with a spinning consumer an event crossed from one process to the other "
		    "in %s (%s%.2fx its time between two threads), with a sleeping one in ", p[0], r <= 0 ? "" : r < 1.5 ?
		    "about one line's transfer; " : r < 2.5 ? "about two lines' transfers; " :
		    "more than two lines' transfers; ", spin_ns[1] / spin_ns[0]);
	}
	char per_fault[48] = "";
	if (rep.faults[1] > 0)
		snprintf(per_fault, sizeof per_fault, " (%.2f us per fault)",
		    (double)(rep.ns[1] - rep.ns[2]) / (double)rep.faults[1] / 1e3);
	printf("Measured: %s%s (%.2fx its time between two threads); the child's first lap "
	    "took %" PRId64 " minor faults (%.2f per page) and %.0f ns more per page than its second, which took "
	    "%" PRId64 "%s.\n", spin, p[1], block_ns[1] / block_ns[0], rep.faults[1], per_page,
	    (double)(rep.ns[1] - rep.ns[2]) / pages, rep.faults[2], per_fault);
	return ok ? 0 : 1;

fail:
	fprintf(stderr, "two_processes: %s\n", failed);
	watched[0] = watched[1] = NULL;
	if (thread_started) {
		/* Out of its gate or its wait: the thread ends before the rings go. */
		close(gate[1]);
		gate[1] = -1;
		sr_barrier_alert(&e.spin_in.barrier);
		sr_barrier_alert(&e.block_in.barrier);
		pthread_join(thread, NULL);
	}
	reap(child, true);
	for (int i = 0; i < RING_COUNT; i++)
		sr_shm_ring_close(&ring[i]);
	unlink_names();
	close(down[1]);
	close(up[0]);
	close(gate[0]);
	if (gate[1] >= 0)
		close(gate[1]);
	free(timed);
	return 1;
}
