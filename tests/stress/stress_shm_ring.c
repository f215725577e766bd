/* SPDX-License-Identifier: Apache-2.0 */
/*
 * stress_shm_ring: processes killed at random instants on a shared ring
 * (sr_shm_ring.h), round after round, every wait strategy in turn.
 *
 * A producer round: a victim producer process and a surviving one publish
 * into a multi-producer ring that this process consumes; the victim is
 * killed with SIGKILL after a random time.  Then every event the victim
 * published is delivered exactly once and in order, the abandoned count is
 * the claim it had in flight (0 or 1, as its own record of its state
 * says), and every event of the survivor, sent after the kill, arrives.
 * A consumer round: a victim consumer process gates the ring with this
 * process's consumer; it is killed; the producer (this process) must still
 * publish every event, and this process's consumer receive them in order.
 *
 * Counts decide; time only bounds: a round that has not finished after
 * 10 s fails.  The rounds whose survivors resumed within the liveness
 * bound are counted and printed (a figure, not a verdict: a busy machine
 * delays a reaper).  This process forks its children before it starts a
 * thread (ThreadSanitizer runs it too), so it reaps with sr_shm_ring_check
 * every quarter of the bound while it waits, as the reaper thread would.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <seqring/sr_processor.h>
#include <seqring/sr_shm_consumer.h>
#include <seqring/sr_shm_producer.h>
#include <seqring/sr_shm_ring.h>

#include "stress_args.h"
#include "tagged_events.h"

#define ROUND_LIMIT_NS (INT64_C(10) * 1000000000)
#define BOUND_NS (INT64_C(50) * 1000000)
#define SURVIVOR_EVENTS 2000

static int64_t rounds = 200;
/* producer rounds whose victim died with a claim in flight (its sequence abandoned) */
static int64_t rounds_abandoned;

/* What the victim producer says of itself, in a page shared with this process. */
typedef struct victim_page {
	volatile int64_t published;   /* events published (after each publish) */
	volatile int64_t claimed;     /* 1 between a claim (after it) and its publish's record */
	volatile int64_t claimed_sequence; /* the sequence of that claim */
	volatile int32_t go;          /* the survivor may start its post-kill events */
	volatile int32_t joined;      /* the victim has joined */
} victim_page;

typedef struct tally {
	int64_t next[3];
	int64_t disorder, skips, events;
	int64_t want_survivor;        /* the survivor's events to wait for */
	sr_processor *self;
} tally;

static int
on_event(void *ctx, void *slot, int64_t sequence, bool end_of_batch)
{
	(void)sequence;
	(void)end_of_batch;
	tally *t = ctx;
	if (!tagged_in_order(t->next, 3, *(int64_t *)slot))
		t->disorder++;
	t->events++;
	if (t->want_survivor > 0 && t->next[2] == t->want_survivor)
		sr_processor_halt(t->self);
	return 0;
}

static void
on_skip(void *ctx, int64_t sequence, bool end_of_batch)
{
	(void)sequence;
	(void)end_of_batch;
	((tally *)ctx)->skips++;
}

static void
fail(const char *what, int64_t round)
{
	fprintf(stderr, "stress_shm_ring: round %lld: %s\n", (long long)round, what);
	exit(1);
}

/* In a child: it dies with this process, so that a failed round leaves no process behind. */
static void
die_with_parent(void)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
}

static sr_shm_producer *
open_producer(const char *name)
{
	die_with_parent();
	sr_shm_ring_options o;
	sr_shm_ring_options_default(&o);
	o.reaper_thread = false;
	sr_shm_ring *r = sr_shm_ring_open(name, &o, NULL);
	sr_shm_producer *p = r != NULL ? sr_shm_producer_join(r, NULL) : NULL;
	if (p == NULL)
		_exit(20);
	return p;
}

static void
publish(sr_shm_producer *p, sr_ring *ring, int id, int64_t i)
{
	int64_t s;
	if (sr_shm_producer_claim(p, &s) != SR_OK)
		_exit(21);
	*(int64_t *)sr_ring_slot(ring, s) = tagged_event(id, i);
	sr_shm_producer_publish(p, s);
}

static void
victim_producer(const char *name, victim_page *page, unsigned seed)
{
	sr_shm_producer *p = open_producer(name);
	sr_ring *ring = sr_shm_ring_slots(p->ring);
	page->joined = 1;
	for (int64_t i = 0;; i++) {
		int64_t s;
		if (sr_shm_producer_claim(p, &s) != SR_OK)
			_exit(21);
		page->claimed_sequence = s;
		page->claimed = 1;
		*(int64_t *)sr_ring_slot(ring, s) = tagged_event(1, i);
		for (unsigned k = rand_r(&seed) % 64; k > 0; k--)
			sr_atomic_pause();
		sr_shm_producer_publish(p, s);
		/* in this order: a kill between the two leaves "not in flight" only once the count says published */
		page->claimed = 0;
		page->published = i + 1;
	}
}

static void
survivor_producer(const char *name, victim_page *page)
{
	sr_shm_producer *p = open_producer(name);
	sr_ring *ring = sr_shm_ring_slots(p->ring);
	while (!page->go)
		sr_sleep_ns(100000);
	for (int64_t i = 0; i < SURVIVOR_EVENTS; i++)
		publish(p, ring, 2, i);
	/* leaves, so that it is not counted dead */
	sr_shm_ring *handle = p->ring;
	sr_shm_ring_close(&handle);
	_exit(0);
}

static sr_shm_ring *
make_ring(const char *name, int64_t slots, enum sr_producer_mode mode, enum sr_wait_kind wait)
{
	sr_shm_ring_config c;
	sr_shm_ring_config_default(&c, slots, 8, mode);
	sr_wait_config_default(&c.wait, wait);
	c.liveness_bound_ns = BOUND_NS;
	sr_error err;
	sr_shm_ring_unlink(name, NULL);
	sr_shm_ring_options o;
	sr_shm_ring_options_default(&o);
	o.reaper_thread = false;
	sr_shm_ring *r = sr_shm_ring_create(name, &c, &o, &err);
	if (r == NULL) {
		fprintf(stderr, "stress_shm_ring: %s\n", err.message);
		exit(1);
	}
	return r;
}

/* Joins and makes the processor; sr_processor_start after the forks. */
static sr_processor *
make_consumer(sr_shm_ring *r, int index, tally *t)
{
	sr_error err;
	sr_shm_consumer *c = sr_shm_consumer_join(r, index, NULL, 0, true, &err);
	sr_processor_config pc;
	memset(&pc, 0, sizeof pc);
	if (c == NULL || sr_shm_consumer_processor_config(c, &pc) != SR_OK)
		fail(c == NULL ? err.message : "processor config", -1);
	pc.handler.ctx = t;
	pc.handler.on_event = on_event;
	pc.handler.on_skip = on_skip;
	sr_processor *proc = sr_processor_create(&pc, &err);
	if (proc == NULL)
		fail(err.message, -1);
	t->self = proc;
	return proc;
}

static void
start(sr_processor *proc)
{
	sr_error err;
	if (sr_processor_start(proc, &err) != SR_OK)
		fail(err.message, -1);
}

/* A pause of a waiting loop: what the reaper thread would do, every quarter of the bound. */
static void
wait_a_little(sr_shm_ring *r, int64_t *next_check)
{
	sr_sleep_ns(200000);
	if (sr_monotonic_ns() >= *next_check) {
		sr_shm_ring_check(r);
		*next_check = sr_monotonic_ns() + BOUND_NS / 4;
	}
}

/* Waits for the processor to halt itself (it has what it wanted), up to the round's limit. */
static bool
finished(sr_shm_ring *r, sr_processor *proc, int64_t deadline)
{
	int64_t next_check = sr_monotonic_ns() + BOUND_NS / 4;
	while (sr_processor_state_get(proc) == SR_PROCESSOR_RUNNING) {
		if (sr_monotonic_ns() > deadline)
			return false;
		wait_a_little(r, &next_check);
	}
	return true;
}

static int
producer_round(int64_t round, const char *name, enum sr_wait_kind wait, int64_t *resumed_in_bound)
{
	sr_shm_ring *r = make_ring(name, 1024, SR_PRODUCER_MULTI, wait);
	victim_page *page = mmap(NULL, sizeof *page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		fail("mmap", round);
	tally t = { .want_survivor = SURVIVOR_EVENTS };
	sr_processor *proc = make_consumer(r, 0, &t);
	pid_t victim = fork();
	if (victim == 0)
		victim_producer(name, page, (unsigned)round * 7919u);
	pid_t survivor = fork();
	if (survivor == 0)
		survivor_producer(name, page);
	start(proc);
	while (!page->joined)
		sr_sleep_ns(100000);
	sr_sleep_ns((int64_t)(1 + round % 20) * 1000000);
	int64_t killed_at = sr_monotonic_ns();
	kill(victim, SIGKILL);
	waitpid(victim, NULL, 0);
	int64_t published = page->published;
	int64_t claimed = page->claimed;
	page->go = 1;
	int64_t deadline = killed_at + ROUND_LIMIT_NS;
	if (!finished(r, proc, deadline)) {
		sr_shm_ring_status st;
		sr_shm_ring_status_get(r, &st);
		sr_sequencer *seq = sr_shm_ring_sequencer(r);
		int64_t at = sr_sequence_get(sr_processor_sequence(proc)) + 1;
		fprintf(stderr, "stress_shm_ring: round %lld (%s): consumer stalled: %lld of the survivor's %d events, "
		    "victim %lld published (in flight %lld at %lld); consumer waits for %lld (available %s, "
		    "skipped %s), cursor %lld; %lld abandoned, %lld dead, %d producers alive\n",
		    (long long)round, sr_wait_kind_name(wait), (long long)t.next[2], SURVIVOR_EVENTS,
		    (long long)published, (long long)claimed, (long long)page->claimed_sequence, (long long)at,
		    sr_sequencer_is_available(seq, at) ? "yes" : "no", sr_sequencer_is_skipped(seq, at) ? "yes" : "no",
		    (long long)st.cursor, (long long)st.abandoned_sequences, (long long)st.dead_producers,
		    (int)st.producers);
		exit(1);
	}
	int64_t resumed = sr_monotonic_ns() - killed_at;
	sr_processor_join(proc);
	int status;
	waitpid(survivor, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		char why[80];
		snprintf(why, sizeof why, "the surviving producer failed (wait status %#x)", status);
		fail(why, round);
	}
	/* the victim's death is counted by a pass that came after it: this one, if no other did */
	sr_shm_ring_check(r);
	sr_shm_ring_status st;
	sr_shm_ring_status_get(r, &st);
	int64_t delivered = t.next[1];
	int64_t extra = delivered - published; /* 1 when the kill fell between a publish and its record */
	char why[512];
	if (t.disorder != 0) {
		snprintf(why, sizeof why, "%lld events out of order or repeated", (long long)t.disorder);
		fail(why, round);
	}
	if (extra < 0 || extra > 1 || st.abandoned_sequences + extra > 1 ||
	    (claimed && st.abandoned_sequences + extra != 1) || t.skips != st.abandoned_sequences) {
		sr_sequencer *seq = sr_shm_ring_sequencer(r);
		int64_t at = page->claimed_sequence;
		snprintf(why, sizeof why, "victim published %lld (in flight: %lld, sequence %lld: available %s, "
		    "skipped %s), %lld delivered, %lld abandoned, %lld skipped; cursor %lld, survivor %lld",
		    (long long)published, (long long)claimed, (long long)at,
		    sr_sequencer_is_available(seq, at) ? "yes" : "no", sr_sequencer_is_skipped(seq, at) ? "yes" : "no",
		    (long long)delivered, (long long)st.abandoned_sequences, (long long)t.skips,
		    (long long)sr_sequencer_cursor(seq), (long long)t.next[2]);
		fail(why, round);
	}
	rounds_abandoned += st.abandoned_sequences;
	if (st.dead_producers != 1)
		fail(st.dead_producers == 0 ? "the victim was not counted dead" : "more than the victim counted dead", round);
	if (resumed <= BOUND_NS + 20 * 1000000)
		(*resumed_in_bound)++;
	sr_processor_destroy(proc);
	sr_shm_ring_close(&r);
	sr_shm_ring_unlink(name, NULL);
	munmap(page, sizeof *page);
	return 0;
}

static void
victim_consumer(const char *name, int ready)
{
	die_with_parent();
	sr_shm_ring_options o;
	sr_shm_ring_options_default(&o);
	o.reaper_thread = false;
	sr_shm_ring *r = sr_shm_ring_open(name, &o, NULL);
	sr_shm_consumer *c = r != NULL ? sr_shm_consumer_join(r, 1, NULL, 0, true, NULL) : NULL;
	if (c == NULL)
		_exit(30);
	char b = 1;
	if (write(ready, &b, 1) != 1)
		_exit(31);
	for (;;) {
		/* slower than the producer, so that it is the one the ring waits for when killed */
		int64_t cursor = sr_sequencer_cursor(sr_shm_ring_sequencer(r));
		sr_sequence *mine = sr_shm_consumer_sequence(c);
		if (sr_sequence_get(mine) < cursor)
			sr_sequence_set(mine, sr_sequence_get(mine) + 1);
		sr_sleep_ns(20000);
	}
}

static int
consumer_round(int64_t round, const char *name, enum sr_wait_kind wait, int64_t *resumed_in_bound)
{
	sr_shm_ring *r = make_ring(name, 64, round % 2 ? SR_PRODUCER_MULTI : SR_PRODUCER_SINGLE, wait);
	tally t = { .want_survivor = 0 };
	sr_processor *proc = make_consumer(r, 0, &t);
	int ready[2];
	if (pipe(ready) != 0)
		fail("pipe", round);
	pid_t victim = fork();
	if (victim == 0)
		victim_consumer(name, ready[1]);
	char b;
	if (read(ready[0], &b, 1) != 1)
		fail("the victim consumer did not join", round);
	close(ready[0]);
	close(ready[1]);
	start(proc);
	sr_error err;
	sr_shm_producer *p = sr_shm_producer_join(r, &err);
	if (p == NULL)
		fail(err.message, round);
	int64_t events = 5000;
	t.want_survivor = 0;
	int64_t killed_at = 0;
	int64_t deadline = sr_monotonic_ns() + ROUND_LIMIT_NS;
	int64_t stalled_from = 0, longest_stall = 0;
	int64_t next_check = sr_monotonic_ns() + BOUND_NS / 4;
	for (int64_t i = 0; i < events; i++) {
		if (i == 100 + round % 200) {
			killed_at = sr_monotonic_ns();
			kill(victim, SIGKILL);
			waitpid(victim, NULL, 0);
		}
		int64_t s;
		int rc;
		while ((rc = sr_shm_producer_claim_until(p, 1, SR_DEADLINE_NOW, &s)) == SR_EFULL) {
			if (stalled_from == 0)
				stalled_from = sr_monotonic_ns();
			if (sr_monotonic_ns() > deadline)
				fail("the producer stalled behind the dead consumer", round);
			wait_a_little(r, &next_check);
		}
		if (stalled_from != 0 && killed_at != 0) {
			int64_t stall = sr_monotonic_ns() - (stalled_from > killed_at ? stalled_from : killed_at);
			if (stall > longest_stall)
				longest_stall = stall;
		}
		stalled_from = 0;
		*(int64_t *)sr_ring_slot(sr_shm_ring_slots(r), s) = i;
		sr_shm_producer_publish(p, s);
	}
	/* Its sequence, not the tally, which its thread writes: pairs with the processor's store-release. */
	while (sr_sequence_get(sr_processor_sequence(proc)) < sr_sequencer_cursor(sr_shm_ring_sequencer(r)) &&
	    sr_monotonic_ns() < deadline)
		wait_a_little(r, &next_check);
	sr_processor_halt(proc);
	sr_processor_join(proc);
	if (t.events != events || t.next[0] != events || t.disorder != 0) {
		char why[160];
		snprintf(why, sizeof why, "the surviving consumer got %lld of %lld events (%lld out of order)",
		    (long long)t.events, (long long)events, (long long)t.disorder);
		fail(why, round);
	}
	sr_shm_ring_status st;
	sr_shm_ring_status_get(r, &st);
	if (st.dropped_consumers != 1)
		fail("the dead consumer was not dropped once", round);
	if (longest_stall <= BOUND_NS + 20 * 1000000)
		(*resumed_in_bound)++;
	sr_processor_destroy(proc);
	sr_shm_ring_close(&r);
	sr_shm_ring_unlink(name, NULL);
	return 0;
}

int
main(int argc, char **argv)
{
	static const char *const kinds[] = { "producer", "consumer", "both", NULL };
	int kind = 2;
	const sa_option options[] = {
		{ "rounds", SA_COUNT, &rounds, "rounds of each kind (default 200)", "N", 1, 100000, NULL },
		{ "kill", SA_WORD, &kind, "whom to kill (default both)", NULL, 0, 0, kinds },
	};
	sa_parse(argc, argv, options, sizeof options / sizeof options[0], NULL);
	char name[64];
	snprintf(name, sizeof name, "/seqring-stress-%d", (int)getpid());
	int64_t in_bound[2] = { 0, 0 };
	for (int64_t round = 0; round < rounds; round++) {
		enum sr_wait_kind wait = (enum sr_wait_kind)(round % SR_WAIT_KIND_COUNT);
		if (kind != 1)
			producer_round(round, name, wait, &in_bound[0]);
		if (kind != 0)
			consumer_round(round, name, wait, &in_bound[1]);
	}
	if (kind != 1)
		printf("stress_shm_ring: %lld producer rounds: every published event once, abandoned = in flight; "
		    "consumers resumed within the bound (+20 ms) in %lld; %lld victims died with a claim in flight\n",
		    (long long)rounds, (long long)in_bound[0], (long long)rounds_abandoned);
	if (kind != 0)
		printf("stress_shm_ring: %lld consumer rounds: every event delivered, the dead consumer dropped; "
		    "the producer resumed within the bound (+20 ms) in %lld\n", (long long)rounds, (long long)in_bound[1]);
	return 0;
}
