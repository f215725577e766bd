/* SPDX-License-Identifier: Apache-2.0 */
/*
 * scenario_internal.h: what the scenario files (scenario_*.c) share and the
 * tests do not see: the first-failure recorder, the random generator, the
 * hang exit, and the builders of the ring, sequencer and processor that most
 * scenarios set up the same way.
 */
#ifndef SC_SCENARIO_INTERNAL_H
#define SC_SCENARIO_INTERNAL_H

#include <pthread.h>

#include "scenarios.h"

/* First-failure recorder shared by a scenario's threads. */
typedef struct sc_check {
	atomic_int failed;
	pthread_mutex_t lock;
	char message[512];
} sc_check;

/* Starts a scenario: its checker ready; the start time, for sc_finish. */
int64_t sc_begin(sc_check *c);
__attribute__((format(printf, 2, 3))) void sc_failf(sc_check *c, const char *fmt, ...);
bool sc_failed(sc_check *c);
/* Ends a scenario begun at started_ns: its duration and verdict into r; releases the checker. */
void sc_finish(sc_check *c, sc_result *r, int64_t started_ns);

/* An sc_result that is ok and counts nothing yet. */
sc_result sc_result_ok(void);

/* A scenario's own thread: its function gets this record. */
typedef struct sc_thread {
	void *ctx;
	int id;                     /* 0 to n - 1 */
	pthread_t thread;
} sc_thread;

/* Starts n threads running fn, thread i with record t[i] = { ctx, i }; joins them. */
void sc_threads_start(sc_thread *t, int n, void *(*fn)(void *), void *ctx);
void sc_threads_join(sc_thread *t, int n);

/* xorshift64*: a small deterministic generator; seeds are printed on failure. */
uint64_t sc_rand(uint64_t *state);

/*
 * A hang cannot be cleaned up (threads stuck inside the library still use the
 * scenario's memory), so it ends the process with a clear message: Criterion
 * reports the test as crashed, a stress program exits non-zero.
 */
__attribute__((noreturn)) void sc_hung(const char *what);

/* Parses a strategy spec that the caller knows is valid into *config. */
bool sc_parse_wait(sc_check *c, const char *spec, sr_wait_config *config);
/* Creates a sequencer; on failure records why and returns NULL. */
sr_sequencer *sc_sequencer_cfg(sc_check *c, int64_t size, enum sr_producer_mode mode,
    const sr_wait_config *wait, bool synchronize, int64_t initial_sequence);
/* Creates a processor of ring and s following deps; on failure records why and returns NULL. */
sr_processor *sc_processor(sc_check *c, sr_ring *ring, sr_sequencer *s, const sr_sequence *const *deps,
    int ndeps, const sr_handler *handler, int64_t max_batch);

/*
 * Waits until *seq reaches target, or the watchdog expires (then records a
 * failure and returns false).  Used to wait for consumers without trusting
 * drain_and_halt, which is itself under test.
 */
bool sc_await_sequence(sc_check *c, const sr_sequence *seq, int64_t target, const char *who);

/* Claims and publishes `count` single events, each slot holding its sequence (an int64_t). */
void sc_publish_values(sr_sequencer *seq, sr_ring *ring, int count);

/*
 * A ring, its sequencer and (for most scenarios) one processor that gates
 * it.  Build, add the consumer, start; any step that fails records why in
 * the checker and returns false, and sc_line_destroy releases whatever was
 * built.
 */
typedef struct sc_line_spec {
	int64_t size;               /* the ring's slots, the sequencer's buffer_size */
	size_t slot_size;
	enum sr_producer_mode mode;
	const char *wait;           /* the sequencer's wait strategy spec */
	bool synchronize;           /* synchronize_enqueue_when_full */
	int64_t initial_sequence;
} sc_line_spec;

typedef struct sc_line {
	sr_ring *ring;
	sr_sequencer *seq;
	sr_processor *proc;         /* NULL until sc_line_consumer */
} sc_line;

/* A line of `size` int64_t slots, synchronized enqueue, sequences from 0. */
sc_line_spec sc_int64_line(int64_t size, enum sr_producer_mode mode, const char *wait);

/* The ring and its sequencer. */
bool sc_line_build(sc_line *l, sc_check *c, const sc_line_spec *spec);
/* The processor that runs h, follows no other consumer and gates the sequencer. */
bool sc_line_consumer(sc_line *l, sc_check *c, const sr_handler *h);
bool sc_line_start(sc_line *l, sc_check *c);
/* Build, consumer and start in one. */
bool sc_line_open(sc_line *l, sc_check *c, const sc_line_spec *spec, const sr_handler *h);
/* Halts and joins the processor (harmless when it is not running), then frees everything. */
void sc_line_destroy(sc_line *l);

/*
 * Producer threads that claim and publish single events: each claims
 * `count` events one by one, has fill(ctx, id, slot, s, prev) check the
 * claimed slot and write event s into it, and publishes it.  prev is the
 * sequence the slot held before (s minus the ring's size), or -1 when s is
 * the slot's first use since `first`, the line's first sequence.  A
 * producer stops early once the checker holds a failure, after a failed
 * claim (recorded), or when fill returns false (it recorded why; s is then
 * left unpublished).  sc_producer_main is the threads' function, with the
 * sc_producers as the threads' ctx (sc_threads_start).
 */
typedef bool sc_fill_fn(void *ctx, int id, void *slot, int64_t s, int64_t prev);

typedef struct sc_producers {
	sc_check *check;
	const sc_line *line;
	int64_t first;
	int64_t count;
	sc_fill_fn *fill;
	void *ctx;
	atomic_int done;            /* producers that have finished */
} sc_producers;

void sc_producers_init(sc_producers *p, sc_check *check, const sc_line *line, int64_t first,
    int64_t count, sc_fill_fn *fill, void *ctx);
void *sc_producer_main(void *thread);
/* How many producers a scenario runs when asked for n: one for SR_PRODUCER_SINGLE, 1 to max. */
int sc_producer_count(enum sr_producer_mode mode, int n, int max);

#endif /* SC_SCENARIO_INTERNAL_H */
