/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_sink_behind.c: a file sink's write-behind: its writer thread and
 * the handover of full buffers (sr_log_sink_behind_internal.h).
 */
#include "sr_log_sink_behind_internal.h"
#include "sr_futex_internal.h"
#include "sr_log_sink_internal.h"
#include "sr_time.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/*
 * How long a thread spins on the word before it sleeps.  A busy consumer
 * hands a buffer every batch (a few hundred microseconds of lines), and the
 * writer's write of the last one often ends within this: the handover then
 * costs neither thread a system call.
 */
#define SPIN_NS (30 * INT64_C(1000))
/* How often a wait that is not the handover's (on the crash handler, or for it) looks again. */
#define POLL_NS (100 * INT64_C(1000))

static int32_t
state_of(const sr_log_sink_behind *b)
{
	/* pairs with the exchange that stored it (the hand's, or the claimer's IDLE) */
	return sr_atomic_load_acquire_i32(&b->state);
}

/*
 * Waits until the writer is idle (until_idle) or until it is not; returns
 * the state seen last.  It spins for SPIN_NS, then sleeps on the word with
 * *sleeps set (see wake_if_sleeping).
 */
static int32_t
await_state(sr_log_sink_behind *b, bool until_idle, sr_atomic_i32 *sleeps)
{
	int64_t deadline = 0;
	for (int i = 0;; i++) {
		int32_t st = state_of(b);
		if ((st == SR_LOG_BEHIND_IDLE) == until_idle)
			return st;
		if ((i & 63) == 63) {
			int64_t now = sr_monotonic_ns();
			if (deadline == 0)
				deadline = now + SPIN_NS;
			else if (now >= deadline)
				break;
		}
		sr_atomic_pause();
	}
	/* pairs with the other thread's fence in wake_if_sleeping after its exchange of the word */
	sr_atomic_exchange_i32(sleeps, 1);
	int32_t st;
	while (((st = state_of(b)) == SR_LOG_BEHIND_IDLE) != until_idle)
		sr_futex__wait(&b->state, st, INT64_MAX, false);
	sr_atomic_store_relaxed_i32(sleeps, 0);
	return st;
}

/* After changing the word: wakes a thread that sleeps on it (its flag, read after a seq_cst fence: Dekker). */
static void
wake_if_sleeping(sr_log_sink_behind *b, sr_atomic_i32 *sleeps)
{
	/* orders the exchange of the word before this read: pairs with the sleeper's exchange of its flag */
	sr_atomic_fence_seq_cst();
	if (sr_atomic_load_relaxed_i32(sleeps) != 0)
		sr_futex__wake_all(&b->state, false);
}

/*
 * The writer, on the CPU the consumer handed from: it moves to another one
 * of the CPUs it may use.  Woken by the consumer, the writer is often
 * placed on the consumer's CPU (the kernel favours the waker's CPU when it
 * cannot see another one idle at once), and stays there: the two then take
 * turns on one CPU, slower than one thread doing both, while the other CPU
 * idles.  Its affinity without that CPU moves it at once; the mask it had
 * is restored right after, so nothing of the user's placement changes but
 * where the writer runs now.
 */
static void
move_off_cpu(int cpu)
{
	cpu_set_t mask, others;
	if (cpu < 0 || cpu >= CPU_SETSIZE || pthread_getaffinity_np(pthread_self(), sizeof mask, &mask) != 0)
		return;
	others = mask;
	CPU_CLR(cpu, &others);
	if (CPU_COUNT(&others) == 0 || pthread_setaffinity_np(pthread_self(), sizeof others, &others) != 0)
		return;
	(void)pthread_setaffinity_np(pthread_self(), sizeof mask, &mask);
}

static void *
writer_main(void *arg)
{
	sr_log_sink_behind *b = arg;
	sr_log_sink *s = b->sink;
	/*
	 * Every signal blocked but the faults a thread raises itself: a signal
	 * sent to the process (the crash handler's SIGABRT among them) goes to
	 * another thread, never to one in the middle of a write that a crash
	 * handler would then wait for.  A write never raises SIGPIPE here.
	 */
	sigset_t set;
	sigfillset(&set);
	const int faults[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS };
	for (size_t k = 0; k < sizeof faults / sizeof faults[0]; k++)
		sigdelset(&set, faults[k]);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	pthread_setname_np(pthread_self(), b->name);
	for (;;) {
		int32_t st = await_state(b, false, &b->writer_sleeps);
		if (st == SR_LOG_BEHIND_STOP)
			break;
		/* pairs with the consumer's exchange to HANDED: buf, len and consumer_cpu are the handed ones */
		if (st != SR_LOG_BEHIND_HANDED ||
		    !sr_atomic_cas_i32(&b->state, SR_LOG_BEHIND_HANDED, SR_LOG_BEHIND_WRITING)) {
			/* The crash handler claimed it: it writes, then releases. */
			while (state_of(b) == SR_LOG_BEHIND_WRITING)
				sr_sleep_ns(POLL_NS);
			continue;
		}
		if (sched_getcpu() == b->consumer_cpu)
			move_off_cpu(b->consumer_cpu);
		pthread_mutex_lock(&s->lock);
		sr_log__sink_write_locked(s, b->buf, b->len);
		/* A caller's write under the lock takes lost_pending as its own: the writer's go aside. */
		if (s->lost_pending > 0)
			sr_atomic_faa_i64(&b->lost, (int64_t)s->lost_pending);
		s->lost_pending = 0;
		pthread_mutex_unlock(&s->lock);
		sr_log__sink_behind_release(b);
	}
	return NULL;
}

int
sr_log__sink_behind_start(sr_log_sink *s, size_t buf_size, const char *thread_name)
{
	sr_log_sink_behind *b = s->behind;
	if (b == NULL) {
		b = calloc(1, sizeof *b);
		if (b == NULL)
			return ENOMEM;
		b->buf = malloc(buf_size);
		if (b->buf == NULL) {
			free(b);
			return ENOMEM;
		}
		b->sink = s;
		/* The consumer's name with ".w" (a thread's name holds 15 characters). */
		snprintf(b->name, sizeof b->name, "%.12s.w", thread_name);
		s->behind = b;
	}
	if (b->running)
		return 0;
	sr_atomic_store_relaxed_i32(&b->state, SR_LOG_BEHIND_IDLE);
	sr_atomic_store_relaxed_i32(&b->writer_sleeps, 0);
	sr_atomic_store_relaxed_i32(&b->consumer_sleeps, 0);
	/* pthread_create orders these stores before the writer's first load */
	int e = pthread_create(&b->thread, NULL, writer_main, b);
	if (e != 0)
		return e;
	b->running = true;
	return 0;
}

void
sr_log__sink_behind_wait(sr_log_sink_behind *b)
{
	if (b == NULL || !b->running)
		return;
	(void)await_state(b, true, &b->consumer_sleeps);
}

void
sr_log__sink_behind_hand(sr_log_sink *s)
{
	sr_log_sink_behind *b = s->behind;
	sr_log__sink_behind_wait(b);
	/* Under the sink's lock, which fork's prepare takes: a child never sees the swap half made. */
	pthread_mutex_lock(&s->lock);
	char *full = s->buf;
	s->buf = b->buf;
	b->buf = full;
	b->len = s->len;
	s->len = 0;
	pthread_mutex_unlock(&s->lock);
	/* Relaxed: the exchange to HANDED below publishes it with the buffer. */
	sr_atomic_store_relaxed_i64(&b->handed, sr_atomic_load_relaxed_i64(&b->handed) + 1);
	b->consumer_cpu = sched_getcpu();
	/* pairs with the claim's CAS (the writer's, or the crash handler's): buf and len are set */
	sr_atomic_exchange_i32(&b->state, SR_LOG_BEHIND_HANDED);
	wake_if_sleeping(b, &b->writer_sleeps);
}

void
sr_log__sink_behind_release(sr_log_sink_behind *b)
{
	/* pairs with the crash handler's load-acquire in sr_log__sink_behind_caught_up */
	sr_atomic_store_release_i64(&b->written, sr_atomic_load_relaxed_i64(&b->written) + 1);
	/* pairs with the consumer's load-acquire in sr_log__sink_behind_wait: buf is the spare again */
	sr_atomic_exchange_i32(&b->state, SR_LOG_BEHIND_IDLE);
	wake_if_sleeping(b, &b->consumer_sleeps);
}

void
sr_log__sink_behind_stop(sr_log_sink_behind *b)
{
	if (b == NULL || !b->running)
		return;
	sr_log__sink_behind_wait(b);
	/* an idle writer sleeps on IDLE: STOP wakes it, and it ends */
	sr_atomic_exchange_i32(&b->state, SR_LOG_BEHIND_STOP);
	sr_futex__wake_all(&b->state, false);
	pthread_join(b->thread, NULL);
	b->running = false;
	sr_atomic_store_relaxed_i32(&b->state, SR_LOG_BEHIND_IDLE);
}

void
sr_log__sink_behind_free(sr_log_sink_behind *b)
{
	if (b == NULL)
		return;
	sr_log__sink_behind_stop(b);
	free(b->buf);
	free(b);
}

void
sr_log__sink_behind_after_fork_child(sr_log_sink_behind *b)
{
	if (b == NULL)
		return;
	b->running = false;
	sr_atomic_store_relaxed_i64(&b->lost, 0);
	/* What was handed is the parent's: the child's counts start even. */
	sr_atomic_store_relaxed_i64(&b->written, sr_atomic_load_relaxed_i64(&b->handed));
	sr_atomic_store_relaxed_i32(&b->state, SR_LOG_BEHIND_IDLE);
	sr_atomic_store_relaxed_i32(&b->writer_sleeps, 0);
	sr_atomic_store_relaxed_i32(&b->consumer_sleeps, 0);
}

bool
sr_log__sink_behind_idle(const sr_log_sink_behind *b)
{
	return b == NULL || !b->running || state_of(b) == SR_LOG_BEHIND_IDLE;
}

bool
sr_log__sink_behind_caught_up(const sr_log_sink_behind *b, int64_t handed)
{
	/* pairs with the store-release in sr_log__sink_behind_release: the buffers up to it are written */
	return b == NULL || !b->running || sr_atomic_load_acquire_i64(&b->written) >= handed;
}

uint64_t
sr_log__sink_behind_take_lost(sr_log_sink_behind *b)
{
	if (b == NULL)
		return 0;
	/* Only this thread subtracts: what it read stays to subtract. */
	int64_t lost = sr_atomic_load_relaxed_i64(&b->lost);
	if (lost > 0)
		sr_atomic_faa_i64(&b->lost, -lost);
	return (uint64_t)lost;
}

bool
sr_log__sink_behind_claim(sr_log_sink_behind *b, int64_t deadline_ns, const char **p, size_t *n)
{
	if (b == NULL || !b->running)
		return false;
	for (;;) {
		int32_t st = state_of(b);
		/* pairs with the consumer's exchange to HANDED, as the writer's claim does */
		if (st == SR_LOG_BEHIND_HANDED &&
		    sr_atomic_cas_i32(&b->state, SR_LOG_BEHIND_HANDED, SR_LOG_BEHIND_WRITING)) {
			*p = b->buf;
			*n = b->len;
			return true;
		}
		if (st != SR_LOG_BEHIND_WRITING && st != SR_LOG_BEHIND_HANDED)
			return false;
		if (sr_monotonic_ns() >= deadline_ns)
			return false;
		sr_sleep_ns(POLL_NS);
	}
}

/*
 * Whether this process may run on two CPUs at once: its affinity allows
 * two, and its cgroup's CPU quota (cgroup v2's cpu.max, "QUOTA PERIOD" or
 * "max PERIOD") gives it at least two CPUs' worth of time.  On less, the
 * writer and the consumer could only take turns.
 */
static bool
two_cpus_usable(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) != 0 || CPU_COUNT(&set) < 2)
		return false;
	FILE *f = fopen("/sys/fs/cgroup/cpu.max", "re");
	if (f == NULL)
		return true;  /* no cgroup v2 limit to read */
	char text[64];
	bool read = fgets(text, sizeof text, f) != NULL;
	fclose(f);
	if (!read || strncmp(text, "max", 3) == 0)
		return true;
	char *end;
	errno = 0;
	long long quota = strtoll(text, &end, 10);
	long long period = errno == 0 && end != text ? strtoll(end, &end, 10) : 0;
	bool limited = errno == 0 && quota > 0 && period > 0;
	return !limited || quota >= 2 * period;
}

/* Whether s may have a write-behind: see sr_log_sink_behind_internal.h. */
static bool
may_write_behind(const sr_log *log, const sr_log_sink *s)
{
	struct stat st;
	return s->cfg.kind == SR_SINK_FILE && s->cfg.write_behind && s->buf != NULL && s->hook == NULL &&
	    log->ring_dir == NULL && s->fd >= 0 && fstat(s->fd, &st) == 0 && S_ISREG(st.st_mode);
}

uint64_t
sr_log__sinks_take_behind_lost(sr_log *log)
{
	uint64_t lost = 0;
	for (int i = 0; i < log->sinks->n; i++)
		lost += sr_log__sink_behind_take_lost(log->sinks->s[i].behind);
	return lost;
}

void
sr_log__sinks_behind_start(sr_log *log)
{
	if (log->sinks == NULL || !two_cpus_usable())
		return;
	for (int i = 0; i < log->sinks->n; i++) {
		sr_log_sink *s = &log->sinks->s[i];
		if (may_write_behind(log, s))
			(void)sr_log__sink_behind_start(s, s->buf_size, log->opt.thread_name);
	}
}

bool
sr_log__sinks_behind_wait_raw(sr_log *log, int64_t deadline_ns)
{
	for (int i = 0; i < log->sinks->n; i++) {
		const sr_log_sink_behind *b = log->sinks->s[i].behind;
		/* What was handed by now (the consumer's relaxed count: its lines were handed before they count as handled). */
		int64_t handed = b != NULL ? sr_atomic_load_relaxed_i64(&b->handed) : 0;
		while (!sr_log__sink_behind_caught_up(b, handed)) {
			if (sr_monotonic_ns() >= deadline_ns)
				return false;
			sr_sleep_ns(POLL_NS);
		}
	}
	return true;
}
