/* SPDX-License-Identifier: Apache-2.0 */
/*
 * scenarios.h: the concurrent test scenarios of seqring, shared by the
 * Criterion tests (tests/ring/test_*.c) and the plain stress programs
 * (tests/stress/stress_*.c) that the ThreadSanitizer preset runs, since
 * Criterion's runner crashes under TSan.  Part of the seqring_test_support
 * library, which needs no Criterion.
 *
 * Each scenario builds its ring, sequencer and consumers, runs its threads,
 * checks every event it delivers, tears everything down and returns an
 * sc_result: ok, the first failure's message, and counts.  Scenarios never
 * assert timings, only deadlines that a hang or a lost wake-up misses (a
 * watchdog that turns a hang into a failure, SC_WAKE_DEADLINE_NS);
 * latencies are returned for the summary only.
 *
 * Threads other than the caller never call Criterion: they record failures
 * in the scenario's checker, and the caller asserts on the result.
 */
#ifndef SC_SCENARIOS_H
#define SC_SCENARIOS_H

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <seqring/sr_barrier.h>
#include <seqring/sr_error.h>
#include <seqring/sr_processor.h>
#include <seqring/sr_ring.h>
#include <seqring/sr_sequence.h>
#include <seqring/sr_sequencer.h>
#include <seqring/sr_wait.h>

/* ThreadSanitizer makes atomics and locks 5-20x slower: scale counts down. */
#if defined(__SANITIZE_THREAD__)
#define SC_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SC_TSAN 1
#endif
#endif
#ifndef SC_TSAN
#define SC_TSAN 0
#endif
#define SC_SCALE(plain, tsan) ((int64_t)(SC_TSAN ? (tsan) : (plain)))

#define SC_MS (INT64_C(1000000))
#define SC_S (INT64_C(1000000000))
/* A scenario that makes no progress for this long has hung (a bug). */
#define SC_WATCHDOG_NS (30 * SC_S)
/*
 * An alert or a halt ends a wait before this, however busy the machine; only
 * a lost one takes longer (the timeout kinds' own timeouts are longer still
 * where the scenario says so).
 */
#define SC_WAKE_DEADLINE_NS (10 * SC_S)

/* Every wait strategy, by name, as the strategy tests iterate over them. */
#define SC_STRATEGY_COUNT 10
extern const char *const sc_strategies[SC_STRATEGY_COUNT];

/* ------------------------------------------------------------------------ */
/* Time (clock.c)                                                           */
/* ------------------------------------------------------------------------ */

/* CLOCK_MONOTONIC in ns: what every duration in the tests is measured on. */
int64_t sc_now(void);
/* CLOCK_REALTIME in ns: what the logger's timestamps are compared with. */
int64_t sc_realtime_ns(void);
/* Sleeps ns, however often a signal interrupts the sleep. */
void sc_sleep_ns(int64_t ns);
/* Busy work for ns, standing for a slow consumer. */
void sc_spin_ns(int64_t ns);
/* Waits up to ns for *flag to become non-zero; whether it did. */
bool sc_done_within(atomic_int *flag, int64_t ns);

/*
 * A call that may block (a claim on a full ring, a barrier wait), run on a
 * thread of its own so that the test can watch it (background.c): start it,
 * see whether it returned within a time, join it for fn's result.
 */
typedef struct sc_background {
	int (*fn)(void *arg);
	void *arg;
	atomic_int done;
	int rc;
	pthread_t thread;
} sc_background;

void sc_background_start(sc_background *b, int (*fn)(void *arg), void *arg);
bool sc_background_returned_within(sc_background *b, int64_t ns);
int sc_background_join(sc_background *b);

/* ------------------------------------------------------------------------ */
/* Results and the plain programs' reports (scenario_verdict.c)             */
/* ------------------------------------------------------------------------ */

typedef struct sc_result {
	bool ok;
	char message[512];      /* the first failure, empty when ok */
	int64_t events;         /* events delivered and checked */
	int64_t n[4];           /* scenario-specific counts, documented per scenario */
	int64_t max_latency_ns; /* wake-up and alert scenarios (reported, not asserted) */
	double seconds;
} sc_result;

/* Turns an ok r into a failure when it delivered other than `expected` events. */
void sc_expect_events(sc_result *r, int64_t expected);

/* Prints one line per scenario; returns 1 on failure, for summing. */
int sc_report(const char *program, const char *name, const sc_result *r);
/* Prints the program's verdict; its exit status. */
int sc_summary(const char *program, int scenarios, int failures, int64_t started_ns);

/*
 * A plain program's check: when cond is false, prints "PROGRAM: FAILED
 * file:line: message" on stderr and counts one failure (any thread may
 * check); sc_expect_failures() is the count so far.
 */
#define SC_EXPECT(cond, ...) \
	((cond) ? (void)0 : sc_expect_failed(__FILE__, __LINE__, __VA_ARGS__))
__attribute__((format(printf, 3, 4))) void sc_expect_failed(const char *file, int line, const char *fmt, ...);
int sc_expect_failures(void);

/* ------------------------------------------------------------------------ */
/* The scenarios (scenario_*.c)                                             */
/* ------------------------------------------------------------------------ */

typedef struct sc_mp_params {
	int producers;
	int64_t per_producer;
	int64_t ring_size;
	const char *wait;             /* the consumer's strategy spec */
	bool synchronize;             /* synchronize_enqueue_when_full */
	int max_claim;                /* 1: claim one; k > 1: claim_n of 1..k and publish_range */
	int64_t consumer_spin_ns;     /* slow consumer: busy work per event */
	int64_t consumer_nap_every;   /* slow consumer: a ~50 us nap every so many events */
	int64_t initial_sequence;     /* -1 normally; near 2^62 to exercise large values */
	uint64_t seed;
} sc_mp_params;

#define SC_MP_MAX_PRODUCERS 128

/*
 * P producers each publish per_producer events (producer id, index) into one
 * multi-producer ring; one consumer checks that it sees every (producer,
 * index) exactly once and each producer's events in index order.
 * n[0]: the consumer's final sequence.
 */
sc_result sc_multi_producer(const sc_mp_params *pp);

/*
 * `producers` threads (one for SR_PRODUCER_SINGLE) claim and fill slots of a
 * tiny ring as fast as they can, each slot a run of words all equal to its
 * sequence; a hand-written consumer on a barrier checks each slot is intact
 * while it holds it, lingering at random, and producers check that a slot's
 * previous occupant is the consumed sequence.  Any early overwrite shows.
 */
sc_result sc_overwrite_guard(enum sr_producer_mode mode, int producers, int64_t ring_size,
    int64_t per_producer, const char *wait_spec, int64_t initial_sequence, uint64_t seed);

/* Consumer graphs: pipeline A -> B -> C and diamond A -> (B, C) -> D. */
enum sc_shape { SC_PIPELINE, SC_DIAMOND };

/*
 * Producers publish per_producer events each through a pipeline A -> B -> C
 * or a diamond A -> (B, C) -> D whose last stage gates the producers.  Every
 * stage checks that it sees each event once, in order, only after the stages
 * it depends on handled it; producers check that a slot is reused only after
 * the last stage handled its previous event.
 * n[0]: slot reuses verified by producers; n[1]: batches seen by the last stage.
 */
sc_result sc_graph(enum sc_shape shape, enum sr_producer_mode mode, int producers, int64_t per_producer,
    int64_t ring_size, const char *wait_spec, int64_t max_batch, int64_t initial_sequence);

/*
 * One producer publishes `rounds` events, each after a random pause of 0 to
 * 2 ms and each only once the consumer has handled the previous one, so that
 * every publish meets a consumer that is waiting (spinning, yielding,
 * sleeping or asleep on the condition variable) or just about to.  Every
 * event must be seen within a bound (a lost wake-up waits forever, except
 * under the timeout kinds: see scenario_wakeups.c).
 * max_latency_ns: the slowest publish-to-handled time; n[0]: the bound used.
 */
sc_result sc_wakeups(const char *spec, enum sr_producer_mode mode, int rounds, uint64_t seed);

/*
 * A thread waits on a barrier over an empty ring (with_dependent: the event
 * is published but the consumer it follows has not handled it, so it waits
 * in the dependents phase); 30 ms later the barrier is alerted.  The wait
 * must return SR_EALERTED, within SC_WAKE_DEADLINE_NS.  The timeout kinds
 * get a 30 s timeout, so that only the alert can end the wait.  After
 * clear_alert the barrier works.
 * max_latency_ns: alert-to-return time (reported, not judged: a busy
 * machine can keep a woken thread off the CPU for a second and more).
 */
sc_result sc_alert_wakes(const char *spec, bool with_dependent);
/* sc_alert_wakes for every strategy: the first failure; max_latency_ns: the slowest strategy's. */
sc_result sc_alert_wakes_every_strategy(bool with_dependent);

/*
 * A processor waits on an empty ring with `spec`; 30 ms later it is halted.
 * on_shutdown must run (the thread ends) within SC_WAKE_DEADLINE_NS, no
 * event was handled, state is HALTED, and start again is SR_ESTATE.
 * max_latency_ns: halt-to-on_shutdown time (reported, not judged, as the
 * alert's); n[0]: on_start calls; n[1]: on_shutdown calls.
 */
sc_result sc_halt_while_waiting(const char *spec, enum sr_producer_mode mode);

/*
 * A processor idles with `spec`, handles 3 events, idles again; each idle
 * spell lasts idle_ns and, beyond it, until min_timeouts timeouts came in it
 * (failing after SC_WAKE_DEADLINE_NS more): a busy machine may run the
 * consumer too seldom for a fixed spell to hold several.  Each on_timeout
 * must report the last handled sequence (-1, then 2).
 * n[0]: timeouts during the first idle spell; n[1]: during the second;
 * n[2], n[3]: the spells' lengths, ns.
 */
sc_result sc_timeout_hook(const char *spec, int64_t idle_ns, int64_t min_timeouts);

/*
 * A ring of 8 is filled while its consumer is stopped inside its handler.
 * try_claim is SR_EFULL; a claim with a 50 ms deadline (by the caller and,
 * in MP mode, by `claimers` threads at once) returns SR_ETIMEDOUT after at
 * least 50 ms without claiming anything; a claim with a 10 s deadline made
 * while the consumer resumes succeeds with the next sequence, and every
 * event, the late one included, is handled once in order.
 * n[0]: elapsed ns of the timed-out claim; n[1]: elapsed ns of the claim that
 * succeeded once the consumer resumed.
 */
sc_result sc_claim_deadline(enum sr_producer_mode mode, bool synchronize, int claimers, const char *spec);

/*
 * Producers publish `count` events each through a small ring to a consumer
 * that naps now and then, so that the ring is full of unhandled events when,
 * right after the last publish, drain_and_halt is called.  Every event must
 * have been handled when the processor stops, and not one more.
 * n[0]: events still unhandled when drain_and_halt was called.
 */
sc_result sc_drain(enum sr_producer_mode mode, int producers, int64_t count, const char *spec);

#endif /* SC_SCENARIOS_H */
