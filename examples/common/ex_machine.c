/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ex_machine.c: the machine figures measured at the start of a lesson (ex_machine.h).
 */
#include "ex_machine.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <seqring/sr_atomic.h>
#include <seqring/sr_wait.h>

#define BLOCKS 9

/*
 * Times n runs of the statement `...` (a block) in each of `blocks` blocks: v[b] is block b's
 * time per run in ns, divided by per_run (the operations one run makes).  A macro, so that the
 * timed loop holds the statement and nothing else (a call there would be timed with it), and
 * counts in n's own type.
 */
#define TIME_BLOCKS(v, blocks, n, per_run, ...) \
	for (int block_ = 0; block_ < (blocks); block_++) { \
		int64_t start_ = sr_monotonic_ns(); \
		for (__typeof__((n) + 0) run_ = 0; run_ < (n); run_++) { \
			__VA_ARGS__; \
		} \
		(v)[block_] = (double)(sr_monotonic_ns() - start_) / ((per_run) * (double)(n)); \
	}

static int
by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double
ex_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, by_value);
	return v[n / 2];
}

/* ---------------------------------------------------------------------------------------- */
/* One cycle                                                                                */

/*
 * Eight dependent adds per iteration: each waits for the one before, so an
 * iteration takes eight cycles whatever the core's width (the loop's own
 * instructions run beside them).  The empty asm makes the compiler keep
 * every add: it may not fold what it cannot see.
 */
#define CYCLE_BLOCKS 45

static double
cycle_ns(void)
{
	/*
	 * Many short blocks (~40 us each): a cycle taken too long would call
	 * real loops impossible, and on a busy machine some short block still
	 * runs without losing its CPU.
	 */
	const int64_t iters = 20000;
	double v[CYCLE_BLOCKS];
	uint64_t x = 0;
	TIME_BLOCKS(v, CYCLE_BLOCKS, iters, 8.0, {
		x += 1; __asm__ volatile("" : "+r"(x));
		x += 1; __asm__ volatile("" : "+r"(x));
		x += 1; __asm__ volatile("" : "+r"(x));
		x += 1; __asm__ volatile("" : "+r"(x));
		x += 1; __asm__ volatile("" : "+r"(x));
		x += 1; __asm__ volatile("" : "+r"(x));
		x += 1; __asm__ volatile("" : "+r"(x));
		x += 1; __asm__ volatile("" : "+r"(x));
	});
	/* The fastest block: a cycle cannot take less, and a preempted block takes more. */
	qsort(v, CYCLE_BLOCKS, sizeof *v, by_value);
	return x == 0 ? 0 : v[0];
}

/* ---------------------------------------------------------------------------------------- */
/* A cache line between two cores                                                           */

/* Many short blocks: on a busy machine some of them still run with both threads on a CPU. */
#define PING_ROUNDS 200
#define PING_BLOCKS 45

static struct {
	sr_atomic_i64 turn;  /* odd: the partner's move; even: ours */
	char pad[64 - sizeof(sr_atomic_i64)];
} __attribute__((aligned(128))) ping;

static void *
pong(void *arg)
{
	int64_t last = *(int64_t *)arg;
	for (int64_t k = 1; k < last; k += 2) {
		/* pairs with the store-release in transfer_ns */
		while (sr_atomic_load_acquire_i64(&ping.turn) != k)
			sr_atomic_pause();
		/* pairs with the load-acquire in transfer_ns */
		sr_atomic_store_release_i64(&ping.turn, k + 1);
	}
	return NULL;
}

/*
 * One line, two threads taking turns to write it: each turn moves the line
 * to the other core and back, two transfers per round trip.
 */
static double
transfer_ns(int cpus)
{
	if (cpus < 2)
		return 0;
	int64_t last = 2 * (int64_t)PING_ROUNDS * PING_BLOCKS;
	sr_atomic_store_relaxed_i64(&ping.turn, 0);
	pthread_t t;
	if (pthread_create(&t, NULL, pong, &last) != 0)
		return 0;
	double v[PING_BLOCKS];
	int64_t k = 0;
	for (int b = 0; b < PING_BLOCKS; b++) {
		int64_t a = sr_monotonic_ns();
		for (int r = 0; r < PING_ROUNDS; r++, k += 2) {
			/* pairs with pong's load-acquire */
			sr_atomic_store_release_i64(&ping.turn, k + 1);
			/* pairs with pong's store-release */
			while (sr_atomic_load_acquire_i64(&ping.turn) != k + 2)
				sr_atomic_pause();
		}
		v[b] = (double)(sr_monotonic_ns() - a) / (2.0 * PING_ROUNDS);
	}
	pthread_join(t, NULL);
	/*
	 * The fastest block: a transfer is a property of the hardware, and a
	 * block in which either thread lost its CPU to another process measures
	 * the scheduler instead.
	 */
	qsort(v, PING_BLOCKS, sizeof *v, by_value);
	return v[0];
}

/* ---------------------------------------------------------------------------------------- */
/* Waking a thread that sleeps                                                              */

#define WAKES 15

static struct {
	sr_atomic_i32 word;   /* the futex: the waiter sleeps while it is unchanged */
	sr_atomic_i64 sent;   /* when the waker changed it */
	sr_atomic_i64 woken;  /* the waiter's latency, or -1 until it has run */
} wake;

static void
futex_wait(sr_atomic_i32 *word, int32_t expected)
{
	syscall(SYS_futex, (void *)word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

static void
futex_wake(sr_atomic_i32 *word)
{
	syscall(SYS_futex, (void *)word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void *
waiter(void *arg)
{
	(void)arg;
	for (int32_t k = 0; k < WAKES; k++) {
		/* pairs with the waker's store-release of word */
		while (sr_atomic_load_acquire_i32(&wake.word) == k)
			futex_wait(&wake.word, k);
		int64_t now = sr_monotonic_ns();
		/* pairs with the waker's load-acquire of woken */
		sr_atomic_store_release_i64(&wake.woken, now - sr_atomic_load_relaxed_i64(&wake.sent));
	}
	return NULL;
}

static double
wake_ns(void)
{
	sr_atomic_store_relaxed_i32(&wake.word, 0);
	pthread_t t;
	if (pthread_create(&t, NULL, waiter, NULL) != 0)
		return 0;
	double v[WAKES];
	for (int32_t k = 0; k < WAKES; k++) {
		sr_atomic_store_relaxed_i64(&wake.woken, -1);
		/* Long enough for the waiter to be asleep in the kernel, not spinning or on its way. */
		struct timespec gap = { 0, 1000000 };
		nanosleep(&gap, NULL);
		sr_atomic_store_relaxed_i64(&wake.sent, sr_monotonic_ns());
		/* pairs with the waiter's load-acquire of word */
		sr_atomic_store_release_i32(&wake.word, k + 1);
		futex_wake(&wake.word);
		int64_t l;
		/* pairs with the waiter's store-release of woken */
		while ((l = sr_atomic_load_acquire_i64(&wake.woken)) < 0)
			sched_yield();
		v[k] = (double)l;
	}
	pthread_join(t, NULL);
	return ex_median(v, WAKES);
}

/* ---------------------------------------------------------------------------------------- */
/* A clock read and a write                                                                 */

static double
clock_ns(void)
{
	const int n = 10000;
	double v[BLOCKS];
	int64_t sum = 0;
	/* Every read's value is used: none can be dropped. */
	TIME_BLOCKS(v, BLOCKS, n, 1, sum += sr_monotonic_ns());
	return sum == 0 ? 0 : ex_median(v, BLOCKS);
}

static double
write_ns(void)
{
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	static char buf[EX_MACHINE_WRITE_BYTES];
	const int n = 200;
	double v[BLOCKS];
	TIME_BLOCKS(v, BLOCKS, n, 1, {
		if (write(fd, buf, sizeof buf) != (ssize_t)sizeof buf)
			break;
	});
	close(fd);
	return ex_median(v, BLOCKS);
}

static double
load_average(void)
{
	double l = -1;
	FILE *f = fopen("/proc/loadavg", "r");
	if (f != NULL) {
		if (fscanf(f, "%lf", &l) != 1)
			l = -1;
		fclose(f);
	}
	return l;
}

void
ex_machine_measure(ex_machine *m)
{
	cpu_set_t set;
	m->cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
	m->load_average = load_average();
	m->cycle_ns = cycle_ns();
	m->transfer_ns = transfer_ns(m->cpus);
	m->wake_ns = wake_ns();
	m->clock_ns = clock_ns();
	m->write_ns = write_ns();
	ex_machine_print(m);
}

bool
ex_run_on_one_cpu(void)
{
	cpu_set_t mine, one;
	CPU_ZERO(&one);
	if (sched_getaffinity(0, sizeof mine, &mine) == 0) {
		for (int c = 0; c < CPU_SETSIZE; c++) {
			if (CPU_ISSET(c, &mine)) {
				CPU_SET(c, &one);
				break;
			}
		}
	}
	if (CPU_COUNT(&one) == 0 || sched_setaffinity(0, sizeof one, &one) != 0) {
		fprintf(stderr, "cannot run on one CPU: sched_setaffinity failed\n");
		return false;
	}
	return true;
}

void
ex_machine_print(const ex_machine *m)
{
	printf("Machine figures, measured at the start of this run:\n\n");
	printf("| figure | measured | how |\n|---|---:|---|\n");
	printf("| CPUs this process may use | %d | sched_getaffinity |\n", m->cpus);
	printf("| load average (1 min) | %.2f | /proc/loadavg: runnable threads of every process |\n",
	    m->load_average);
	printf("| one cycle | %.3f ns (%.2f GHz) | fastest of %d blocks of dependent adds |\n", m->cycle_ns,
	    m->cycle_ns > 0 ? 1 / m->cycle_ns : 0, CYCLE_BLOCKS);
	if (m->transfer_ns > 0)
		printf("| cache-line transfer between two threads (T) | %.0f ns | half a ping-pong round trip, "
		    "fastest of %d x %d |\n", m->transfer_ns, PING_BLOCKS, PING_ROUNDS);
	else
		printf("| cache-line transfer between two threads (T) | none: one CPU | |\n");
	printf("| waking a sleeping thread (W) | %.1f us | futex wake until it runs, median of %d |\n",
	    m->wake_ns / 1e3, WAKES);
	printf("| clock read (C) | %.1f ns | sr_monotonic_ns, median of %d x 10,000 |\n", m->clock_ns, BLOCKS);
	printf("| write(2) of %d bytes to /dev/null (S) | %.2f us (%.1f GB/s) | median of %d x 200 |\n\n",
	    EX_MACHINE_WRITE_BYTES, m->write_ns / 1e3,
	    m->write_ns > 0 ? EX_MACHINE_WRITE_BYTES / m->write_ns : 0, BLOCKS);
}
