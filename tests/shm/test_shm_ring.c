/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_shm_ring.c: the ring between processes (sr_shm_ring.h): names and
 * headers refused with messages that say why, events from producer
 * processes delivered exactly once and in order, a dead producer's claims
 * abandoned and counted, a dead consumer dropped, a consumer that rejoins
 * resumed.  The death of a process at a random instant, 200 times, is
 * stress_shm_ring's.
 */
#include <criterion/criterion.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <seqring/sr_processor.h>
#include <seqring/sr_shm_consumer.h>
#include <seqring/sr_shm_producer.h>
#include <seqring/sr_shm_ring.h>

#include "tagged_events.h"

#define LONG_WAIT_NS (INT64_C(10) * 1000000000)

static char shm_name[64];
static char file_name[64];

static void
names(void)
{
	static int n;
	snprintf(shm_name, sizeof shm_name, "/seqring-test-%d-%d", (int)getpid(), n);
	snprintf(file_name, sizeof file_name, "/tmp/seqring-test-%d-%d.ring", (int)getpid(), n);
	n++;
	shm_unlink(shm_name);
	unlink(file_name);
}

static sr_shm_ring_options
no_reaper(void)
{
	sr_shm_ring_options o;
	sr_shm_ring_options_default(&o);
	o.reaper_thread = false;
	return o;
}

static sr_shm_ring *
make(const char *name, int64_t slots, enum sr_producer_mode mode, enum sr_wait_kind wait, bool reaper)
{
	sr_shm_ring_config c;
	sr_shm_ring_config_default(&c, slots, 8, mode);
	sr_wait_config_default(&c.wait, wait);
	c.liveness_bound_ns = 40 * 1000000;
	sr_shm_ring_options o = no_reaper();
	o.reaper_thread = reaper;
	sr_error err;
	sr_shm_ring *r = sr_shm_ring_create(name, &c, &o, &err);
	cr_assert_not_null(r, "create %s: %s", name, err.message);
	return r;
}

/* ---- names and headers ------------------------------------------------ */

Test(shm_open, refuses_a_name_it_cannot_place)
{
	sr_error err;
	sr_shm_ring_options o = no_reaper();
	cr_assert_null(sr_shm_ring_open("feed", &o, &err));
	cr_assert_eq(err.code, SR_EINVAL);
	cr_assert(strstr(err.message, "\"feed\" has no slash") != NULL, "%s", err.message);
	cr_assert_null(sr_shm_ring_open(NULL, &o, &err));
	cr_assert_eq(err.code, SR_EINVAL);
	cr_assert_null(sr_shm_ring_open("/", &o, &err));
	cr_assert_eq(err.code, SR_EINVAL);
}

Test(shm_open, names_a_ring_that_does_not_exist)
{
	names();
	sr_error err;
	sr_shm_ring_options o = no_reaper();
	cr_assert_null(sr_shm_ring_open(shm_name, &o, &err));
	cr_assert_eq(err.code, SR_ESYS);
	cr_assert(strstr(err.message, shm_name) != NULL && strstr(err.message, "No such file") != NULL,
	    "%s", err.message);
}

Test(shm_create, refuses_a_name_that_exists_and_a_config_out_of_range)
{
	names();
	sr_shm_ring *r = make(shm_name, 64, SR_PRODUCER_MULTI, SR_WAIT_BLOCK, false);
	sr_shm_ring_config c;
	sr_shm_ring_config_default(&c, 64, 8, SR_PRODUCER_MULTI);
	sr_error err;
	sr_shm_ring_options o = no_reaper();
	cr_assert_null(sr_shm_ring_create(shm_name, &c, &o, &err));
	cr_assert_eq(err.code, SR_ESYS);
	cr_assert(strstr(err.message, "File exists") != NULL, "%s", err.message);
	sr_shm_ring_close(&r);
	cr_assert_null(r);
	cr_assert_eq(sr_shm_ring_unlink(shm_name, &err), SR_OK, "%s", err.message);

	c.slot_count = 48;
	cr_assert_null(sr_shm_ring_create(shm_name, &c, &o, &err));
	cr_assert_eq(err.code, SR_EINVAL);
	cr_assert(strstr(err.message, "slot_count 48") != NULL, "%s", err.message);
	sr_shm_ring_config_default(&c, 64, 8, SR_PRODUCER_MULTI);
	c.max_consumers = 0;
	cr_assert_null(sr_shm_ring_create(shm_name, &c, &o, &err));
	cr_assert(strstr(err.message, "max_consumers 0 is out of range") != NULL, "%s", err.message);
	sr_shm_ring_config_default(&c, 64, 8, SR_PRODUCER_MULTI);
	c.liveness_bound_ns = 5;
	cr_assert_null(sr_shm_ring_create(shm_name, &c, &o, &err));
	cr_assert(strstr(err.message, "liveness_bound_ns 5") != NULL, "%s", err.message);
}

/* Writes bytes at an offset of a ring file, then opens it and returns the message. */
static int
open_patched(const char *path, off_t at, const void *bytes, size_t n, sr_error *err)
{
	int fd = open(path, O_RDWR);
	cr_assert_geq(fd, 0);
	cr_assert_eq(pwrite(fd, bytes, n, at), (ssize_t)n);
	close(fd);
	sr_shm_ring_options o = no_reaper();
	sr_shm_ring *r = sr_shm_ring_open(path, &o, err);
	if (r != NULL) {
		sr_shm_ring_close(&r);
		return SR_OK;
	}
	return err->code;
}

Test(shm_open, refuses_a_header_of_another_layout_with_what_it_found)
{
	names();
	sr_shm_ring *r = make(file_name, 64, SR_PRODUCER_MULTI, SR_WAIT_BLOCK, false);
	sr_shm_ring_close(&r);
	sr_error err;

	uint32_t version = 2;
	cr_assert_eq(open_patched(file_name, 8, &version, 4, &err), SR_EFORMAT);
	cr_assert(strstr(err.message, "the layout version is 2, expected 1") != NULL, "%s", err.message);
	version = 1;
	cr_assert_eq(open_patched(file_name, 8, &version, 4, &err), SR_OK, "%s", err.message);

	int64_t slots = 128;
	cr_assert_eq(open_patched(file_name, 24, &slots, 8, &err), SR_EFORMAT);
	cr_assert(strstr(err.message, "the skip marks' offset is ") != NULL &&
	    strstr(err.message, ", expected ") != NULL, "%s", err.message);
	slots = 63;
	cr_assert_eq(open_patched(file_name, 24, &slots, 8, &err), SR_EFORMAT);
	cr_assert(strstr(err.message, "slot_count 63") != NULL, "%s", err.message);
	slots = 64;
	cr_assert_eq(open_patched(file_name, 24, &slots, 8, &err), SR_OK, "%s", err.message);

	char junk[8] = "not-ring";
	cr_assert_eq(open_patched(file_name, 0, junk, 8, &err), SR_EFORMAT);
	cr_assert(strstr(err.message, "is not a seqring shared ring: magic number") != NULL, "%s",
	    err.message);
	unlink(file_name);
}

Test(shm_open, refuses_a_truncated_file)
{
	names();
	sr_shm_ring *r = make(file_name, 64, SR_PRODUCER_SINGLE, SR_WAIT_BLOCK, false);
	sr_shm_ring_close(&r);
	cr_assert_eq(truncate(file_name, 8192), 0);
	sr_error err;
	sr_shm_ring_options o = no_reaper();
	cr_assert_null(sr_shm_ring_open(file_name, &o, &err));
	cr_assert_eq(err.code, SR_EFORMAT);
	cr_assert(strstr(err.message, "the file's size (truncated or grown) is 8192") != NULL, "%s",
	    err.message);
	cr_assert_eq(truncate(file_name, 100), 0);
	cr_assert_null(sr_shm_ring_open(file_name, &o, &err));
	cr_assert_eq(err.code, SR_EFORMAT);
	cr_assert(strstr(err.message, "has no header") != NULL, "%s", err.message);
	unlink(file_name);
}

/* ---- events between processes --------------------------------------- */

/* A producer process: `count` events (id << 32 | i) into the ring, then exit 0. */
static void
produce(const char *name, int id, int64_t count)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL); /* no process left behind by a failed test */
	sr_error err;
	sr_shm_ring_options o = no_reaper();
	sr_shm_ring *r = sr_shm_ring_open(name, &o, &err);
	if (r == NULL)
		_exit(10);
	sr_shm_producer *p = sr_shm_producer_join(r, &err);
	if (p == NULL)
		_exit(11);
	sr_ring *ring = sr_shm_ring_slots(r);
	for (int64_t i = 0; i < count; i++) {
		int64_t s;
		if (sr_shm_producer_claim(p, &s) != SR_OK)
			_exit(12);
		*(int64_t *)sr_ring_slot(ring, s) = tagged_event(id, i);
		sr_shm_producer_publish(p, s);
	}
	sr_shm_ring_close(&r);
	_exit(0);
}

typedef struct tally {
	int64_t next[8];  /* the next counter expected of each producer */
	int64_t events, skips, disorder;
	int64_t want;
	sr_processor *self;
} tally;

static int
count_event(void *ctx, void *slot, int64_t sequence, bool end_of_batch)
{
	(void)sequence;
	(void)end_of_batch;
	tally *t = ctx;
	if (!tagged_in_order(t->next, 8, *(int64_t *)slot))
		t->disorder++;
	if (++t->events + t->skips == t->want)
		sr_processor_halt(t->self);
	return 0;
}

static void
count_skip(void *ctx, int64_t sequence, bool end_of_batch)
{
	(void)sequence;
	(void)end_of_batch;
	tally *t = ctx;
	if (t->events + ++t->skips == t->want)
		sr_processor_halt(t->self);
}

/* N producer processes x M events into a processor of this process, for one wait strategy. */
static void
run_processes(enum sr_producer_mode mode, int producers, int64_t each, enum sr_wait_kind wait)
{
	names();
	sr_shm_ring *r = make(shm_name, 256, mode, wait, true);
	sr_error err;
	sr_shm_consumer *c = sr_shm_consumer_join(r, 0, NULL, 0, true, &err);
	cr_assert_not_null(c, "%s", err.message);
	tally t = { .want = producers * each };
	sr_processor_config pc;
	memset(&pc, 0, sizeof pc);
	cr_assert_eq(sr_shm_consumer_processor_config(c, &pc), SR_OK);
	pc.handler.ctx = &t;
	pc.handler.on_event = count_event;
	pc.handler.on_skip = count_skip;
	sr_processor *proc = sr_processor_create(&pc, &err);
	cr_assert_not_null(proc, "%s", err.message);
	t.self = proc;
	cr_assert_eq(sr_processor_start(proc, &err), SR_OK, "%s", err.message);
	pid_t pids[8];
	for (int k = 0; k < producers; k++) {
		pids[k] = fork();
		cr_assert_geq(pids[k], 0);
		if (pids[k] == 0)
			produce(shm_name, k, each);
	}
	for (int k = 0; k < producers; k++) {
		int status;
		cr_assert_eq(waitpid(pids[k], &status, 0), pids[k]);
		cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "producer %d: status %#x", k, status);
	}
	cr_assert_eq(sr_processor_join(proc), SR_OK);
	cr_assert_eq(t.disorder, 0, "%s %s: %lld events out of order", sr_wait_kind_name(wait),
	    mode == SR_PRODUCER_SINGLE ? "single" : "multi", (long long)t.disorder);
	cr_assert_eq(t.skips, 0);
	for (int k = 0; k < producers; k++)
		cr_assert_eq(t.next[k], each, "producer %d: %lld of %lld events", k, (long long)t.next[k],
		    (long long)each);
	sr_shm_ring_status st;
	cr_assert_eq(sr_shm_ring_status_get(r, &st), SR_OK);
	cr_assert_eq(st.abandoned_sequences, 0);
	cr_assert_eq(st.dead_producers, 0, "producers that left were counted as dead");
	sr_processor_destroy(proc);
	sr_shm_ring_close(&r);
	sr_shm_ring_unlink(shm_name, NULL);
}

Test(shm_events, one_producer_process_every_event_once_in_order_for_every_wait_strategy)
{
	for (int w = 0; w < SR_WAIT_KIND_COUNT; w++)
		run_processes(SR_PRODUCER_SINGLE, 1, 20000, (enum sr_wait_kind)w);
}

Test(shm_events, three_producer_processes_every_event_once_in_order_for_every_wait_strategy)
{
	for (int w = 0; w < SR_WAIT_KIND_COUNT; w++)
		run_processes(SR_PRODUCER_MULTI, 3, 20000, (enum sr_wait_kind)w);
}

typedef struct polled {
	int64_t got, bad, skips;
} polled;

static bool
poll_event(void *ctx, void *slot, int64_t sequence, bool end_of_batch)
{
	(void)end_of_batch;
	polled *v = ctx;
	if (*(int64_t *)slot != v->got + v->skips || sequence != v->got + v->skips)
		v->bad++;
	v->got++;
	return true;
}

static void
poll_skip(void *ctx, int64_t sequence)
{
	(void)sequence;
	((polled *)ctx)->skips++;
}

/* Polls until `want` events or skips arrived, for at most LONG_WAIT_NS. */
static void
poll_until(sr_poller *poller, polled *v, int64_t want)
{
	sr_poll_handler h = { .ctx = v, .on_event = poll_event, .on_skip = poll_skip };
	int64_t deadline = sr_monotonic_ns() + LONG_WAIT_NS;
	while (v->got + v->skips < want && sr_monotonic_ns() < deadline)
		if (sr_poller_poll(poller, &h) != SR_POLL_PROCESSING)
			sr_sleep_ns(100000);
}

Test(shm_events, a_poller_reads_what_another_process_publishes)
{
	names();
	sr_shm_ring *r = make(shm_name, 64, SR_PRODUCER_SINGLE, SR_WAIT_BLOCK, false);
	sr_error err;
	sr_shm_consumer *c = sr_shm_consumer_join(r, 3, NULL, 0, true, &err);
	cr_assert_not_null(c, "%s", err.message);
	sr_poller *poller = sr_shm_consumer_poller(c, &err);
	cr_assert_not_null(poller, "%s", err.message);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0)
		produce(shm_name, 0, 1000);
	polled v = { 0 };
	poll_until(poller, &v, 1000);
	cr_assert_eq(v.got, 1000);
	cr_assert_eq(v.bad, 0);
	cr_assert_eq(sr_sequence_get(sr_shm_consumer_sequence(c)), 999, "progress is in the mapping");
	int status;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x", status);
	sr_poller_destroy(poller);
	sr_shm_ring_close(&r);
	sr_shm_ring_unlink(shm_name, NULL);
}

/* ---- death ------------------------------------------------------------ */

/*
 * Forks a process that opens the ring `name` (no reaper), does `part`'s
 * work on it (true: done), says so and waits to be killed; returns once it
 * has said so.
 */
typedef bool (*hang_part)(sr_shm_ring *ring, int64_t arg);

static pid_t
fork_and_hang(const char *name, hang_part part, int64_t arg)
{
	int ready[2];
	cr_assert_eq(pipe(ready), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL); /* no process left behind by a failed test */
		sr_shm_ring_options o = no_reaper();
		sr_shm_ring *r = sr_shm_ring_open(name, &o, NULL);
		if (r == NULL || !part(r, arg))
			_exit(1);
		char c = 1;
		if (write(ready[1], &c, 1) != 1)
			_exit(2);
		for (;;)
			pause();
	}
	char c;
	cr_assert_eq(read(ready[0], &c, 1), 1, "the child did its part");
	close(ready[0]);
	close(ready[1]);
	return pid;
}

/* A producer that claims `claims` sequences and publishes none. */
static bool
claim_part(sr_shm_ring *r, int64_t claims)
{
	sr_shm_producer *p = sr_shm_producer_join(r, NULL);
	int64_t first;
	return p != NULL && sr_shm_producer_claim_until(p, claims, SR_DEADLINE_NONE, &first) == SR_OK;
}

static pid_t
claim_and_hang(const char *name, int64_t claims)
{
	return fork_and_hang(name, claim_part, claims);
}

Test(shm_death, a_killed_producers_claims_are_abandoned_and_counted_and_later_events_delivered)
{
	names();
	sr_shm_ring *r = make(shm_name, 64, SR_PRODUCER_MULTI, SR_WAIT_BLOCK, false);
	sr_error err;
	sr_shm_consumer *c = sr_shm_consumer_join(r, 0, NULL, 0, true, &err);
	cr_assert_not_null(c, "%s", err.message);
	pid_t victim = claim_and_hang(shm_name, 3); /* sequences 0..2 */
	sr_shm_producer *p = sr_shm_producer_join(r, &err);
	cr_assert_not_null(p, "%s", err.message);
	int64_t s;
	cr_assert_eq(sr_shm_producer_claim(p, &s), SR_OK);
	cr_assert_eq(s, 3);
	*(int64_t *)sr_ring_slot(sr_shm_ring_slots(r), s) = 42;
	sr_shm_producer_publish(p, s);

	/* Alive: nothing is abandoned, whatever the time. */
	cr_assert_eq(sr_shm_ring_check(r), 0);
	sr_sequencer *seq = sr_shm_ring_sequencer(r);
	cr_assert_eq(sr_sequencer_highest_published(seq, 0, sr_sequencer_cursor(seq)), -1);

	kill(victim, SIGKILL);
	cr_assert_eq(waitpid(victim, NULL, 0), victim);
	cr_assert_eq(sr_shm_ring_check(r), 1, "one dead producer");
	cr_assert_eq(sr_sequencer_highest_published(seq, 0, sr_sequencer_cursor(seq)), 3);
	for (int64_t k = 0; k < 3; k++)
		cr_assert(sr_sequencer_is_skipped(seq, k), "sequence %lld published as skipped", (long long)k);
	cr_assert_not(sr_sequencer_is_skipped(seq, 3));
	sr_shm_ring_status st;
	sr_shm_ring_status_get(r, &st);
	cr_assert_eq(st.abandoned_sequences, 3);
	cr_assert_eq(st.dead_producers, 1);
	cr_assert_eq(st.producers, 1);
	cr_assert_eq(sr_shm_ring_check(r), 0, "reaped once");
	sr_shm_ring_status_get(r, &st);
	cr_assert_eq(st.abandoned_sequences, 3, "counted once");
	sr_shm_ring_close(&r);
	sr_shm_ring_unlink(shm_name, NULL);
}

Test(shm_death, a_dead_single_producers_claims_are_counted_and_the_next_producer_goes_on)
{
	names();
	sr_shm_ring *r = make(shm_name, 64, SR_PRODUCER_SINGLE, SR_WAIT_BLOCK, false);
	pid_t victim = claim_and_hang(shm_name, 5);
	sr_error err;
	cr_assert_null(sr_shm_producer_join(r, &err), "a second producer on a single-producer ring");
	cr_assert_eq(err.code, SR_ESTATE);
	cr_assert(strstr(err.message, "is alive") != NULL, "%s", err.message);
	kill(victim, SIGKILL);
	cr_assert_eq(waitpid(victim, NULL, 0), victim);
	sr_shm_producer *p = sr_shm_producer_join(r, &err);
	cr_assert_not_null(p, "%s", err.message);
	int64_t s;
	cr_assert_eq(sr_shm_producer_claim(p, &s), SR_OK);
	cr_assert_eq(s, 0, "the dead producer's claims are given back");
	sr_shm_ring_status st;
	sr_shm_ring_status_get(r, &st);
	cr_assert_eq(st.abandoned_sequences, 5);
	sr_shm_ring_close(&r);
	sr_shm_ring_unlink(shm_name, NULL);
}

static int reaped_consumers;

static void
on_reap(void *ctx, enum sr_shm_reap_kind kind, int index, int64_t value)
{
	(void)ctx;
	(void)value;
	if (kind == SR_SHM_REAP_CONSUMER && index == 1)
		reaped_consumers++;
}

/* A consumer that joins index 1 (gating) and records `handled` as handled. */
static bool
consume_part(sr_shm_ring *r, int64_t handled)
{
	sr_shm_consumer *c = sr_shm_consumer_join(r, 1, NULL, 0, true, NULL);
	if (c != NULL)
		sr_sequence_set(sr_shm_consumer_sequence(c), handled);
	return c != NULL;
}

static pid_t
consume_and_hang(const char *name, int64_t handled)
{
	return fork_and_hang(name, consume_part, handled);
}

Test(shm_death, a_dead_consumer_is_dropped_and_producers_go_past_it)
{
	names();
	sr_shm_ring_config cfg;
	sr_shm_ring_config_default(&cfg, 16, 8, SR_PRODUCER_MULTI);
	sr_shm_ring_options o = no_reaper();
	o.on_reap = on_reap;
	sr_error err;
	sr_shm_ring *r = sr_shm_ring_create(shm_name, &cfg, &o, &err);
	cr_assert_not_null(r, "%s", err.message);
	pid_t victim = consume_and_hang(shm_name, -1);
	sr_shm_producer *p = sr_shm_producer_join(r, &err);
	cr_assert_not_null(p, "%s", err.message);
	int64_t s;
	for (int k = 0; k < 16; k++) {
		cr_assert_eq(sr_shm_producer_try_claim_n(p, 1, &s), SR_OK);
		sr_shm_producer_publish(p, s);
	}
	cr_assert_eq(sr_shm_producer_try_claim_n(p, 1, &s), SR_EFULL, "the live consumer gates");
	cr_assert_eq(sr_shm_ring_check(r), 0);
	kill(victim, SIGKILL);
	cr_assert_eq(waitpid(victim, NULL, 0), victim);
	cr_assert_eq(sr_shm_ring_check(r), 1);
	cr_assert_eq(reaped_consumers, 1, "told once");
	for (int k = 0; k < 100; k++) {
		cr_assert_eq(sr_shm_producer_try_claim_n(p, 1, &s), SR_OK, "after the drop, claim %d", k);
		sr_shm_producer_publish(p, s);
	}
	sr_shm_ring_status st;
	sr_shm_ring_status_get(r, &st);
	cr_assert_eq(st.dropped_consumers, 1);
	/* Joining the dropped index again starts after the cursor. */
	sr_shm_consumer *c = sr_shm_consumer_join(r, 1, NULL, 0, true, &err);
	cr_assert_not_null(c, "%s", err.message);
	cr_assert_eq(sr_shm_consumer_joined_after(c), 115);
	sr_shm_ring_close(&r);
	sr_shm_ring_unlink(shm_name, NULL);
}

Test(shm_death, a_consumer_that_rejoins_before_it_is_dropped_resumes)
{
	names();
	sr_shm_ring *r = make(shm_name, 16, SR_PRODUCER_MULTI, SR_WAIT_BLOCK, false);
	sr_error err;
	pid_t holder = consume_and_hang(shm_name, 6);
	cr_assert_null(sr_shm_consumer_join(r, 1, NULL, 0, true, &err), "held by a live process");
	cr_assert_eq(err.code, SR_ESTATE);
	cr_assert(strstr(err.message, "is held by live pid") != NULL, "%s", err.message);
	kill(holder, SIGKILL);
	cr_assert_eq(waitpid(holder, NULL, 0), holder);
	sr_shm_consumer *c = sr_shm_consumer_join(r, 1, NULL, 0, true, &err);
	cr_assert_not_null(c, "%s", err.message);
	cr_assert_eq(sr_shm_consumer_joined_after(c), 6, "resumed after what it had handled");
	sr_shm_ring_status st;
	sr_shm_ring_status_get(r, &st);
	cr_assert_eq(st.dropped_consumers, 0);
	cr_assert_eq(st.consumers, 1);
	sr_shm_ring_close(&r);
	sr_shm_ring_unlink(shm_name, NULL);
}

Test(shm_death, a_follower_of_a_consumer_that_left_is_held_by_the_cursor_alone)
{
	names();
	sr_shm_ring *r = make(shm_name, 16, SR_PRODUCER_SINGLE, SR_WAIT_BLOCK, false);
	sr_error err;
	sr_shm_consumer *first = sr_shm_consumer_join(r, 0, NULL, 0, false, &err);
	cr_assert_not_null(first, "%s", err.message);
	int follows[] = { 0 };
	sr_shm_consumer *second = sr_shm_consumer_join(r, 1, follows, 1, true, &err);
	cr_assert_not_null(second, "%s", err.message);
	sr_poller *poller = sr_shm_consumer_poller(second, &err);
	cr_assert_not_null(poller, "%s", err.message);
	sr_shm_producer *p = sr_shm_producer_join(r, &err);
	cr_assert_not_null(p, "%s", err.message);
	int64_t s;
	for (int64_t k = 0; k < 3; k++) {
		cr_assert_eq(sr_shm_producer_claim(p, &s), SR_OK);
		*(int64_t *)sr_ring_slot(sr_shm_ring_slots(r), s) = k;
		sr_shm_producer_publish(p, s);
	}
	polled v = { 0 };
	sr_poll_handler h = { .ctx = &v, .on_event = poll_event, .on_skip = poll_skip };
	cr_assert_eq(sr_poller_poll(poller, &h), SR_POLL_GATING, "the first consumer handled nothing");
	cr_assert_eq(v.got, 0);
	sr_shm_consumer_leave(&first);
	cr_assert_null(first);
	poll_until(poller, &v, 3);
	cr_assert_eq(v.got, 3, "the cursor alone holds it back now");
	cr_assert_eq(v.bad, 0);
	cr_assert_eq(sr_poller_poll(poller, &h), SR_POLL_IDLE, "and never past the cursor");
	sr_poller_destroy(poller);
	sr_shm_ring_close(&r);
	sr_shm_ring_unlink(shm_name, NULL);
}

static int thread_reaped;

static void
count_reap(void *ctx, enum sr_shm_reap_kind kind, int index, int64_t value)
{
	(void)ctx;
	(void)index;
	(void)value;
	if (kind == SR_SHM_REAP_CONSUMER)
		__atomic_add_fetch(&thread_reaped, 1, __ATOMIC_RELEASE);
}

Test(shm_death, the_reaper_thread_drops_a_dead_consumer_by_itself)
{
	names();
	sr_shm_ring_config cfg;
	sr_shm_ring_config_default(&cfg, 16, 8, SR_PRODUCER_SINGLE);
	cfg.liveness_bound_ns = 20 * 1000000;
	sr_shm_ring_options o;
	sr_shm_ring_options_default(&o);
	o.on_reap = count_reap;
	sr_error err;
	sr_shm_ring *r = sr_shm_ring_create(shm_name, &cfg, &o, &err);
	cr_assert_not_null(r, "%s", err.message);
	pid_t victim = consume_and_hang(shm_name, -1);
	kill(victim, SIGKILL);
	cr_assert_eq(waitpid(victim, NULL, 0), victim);
	int64_t deadline = sr_monotonic_ns() + LONG_WAIT_NS;
	while (__atomic_load_n(&thread_reaped, __ATOMIC_ACQUIRE) == 0 && sr_monotonic_ns() < deadline)
		sr_sleep_ns(1000000);
	cr_assert_eq(__atomic_load_n(&thread_reaped, __ATOMIC_ACQUIRE), 1, "dropped by the thread, told once");
	sr_shm_ring_status st;
	sr_shm_ring_status_get(r, &st);
	cr_assert_eq(st.dropped_consumers, 1);
	sr_shm_ring_close(&r);
	sr_shm_ring_unlink(shm_name, NULL);
}

/*
 * A producer that publishes and dies before its wake-up, having taken the
 * sleeping consumer's announcement (sr_wait_signal's exchange): the next
 * publisher sees none and wakes nobody, so the reaper must.
 */
static bool
publish_and_die_before_waking(sr_shm_ring *r, int64_t value)
{
	sr_shm_producer *p = sr_shm_producer_join(r, NULL);
	int64_t s;
	if (p == NULL || sr_shm_producer_claim(p, &s) != SR_OK)
		return false;
	*(int64_t *)sr_ring_slot(sr_shm_ring_slots(r), s) = value;
	sr_sequencer *seq = sr_shm_ring_sequencer(r);
	sr_sequence_set(&seq->cursor, s); /* the single-producer publish, without its signal */
	sr_atomic_exchange_i32(&seq->wait.sleepers.announced, 0);
	_exit(0);
}

static int
note_event(void *ctx, void *slot, int64_t sequence, bool end_of_batch)
{
	(void)sequence;
	(void)end_of_batch;
	__atomic_store_n((int64_t *)ctx, *(int64_t *)slot, __ATOMIC_RELEASE);
	return 0;
}

Test(shm_death, a_consumer_asleep_when_its_producer_dies_before_the_wake_up_is_woken)
{
	names();
	sr_shm_ring_config cfg;
	sr_shm_ring_config_default(&cfg, 16, 8, SR_PRODUCER_SINGLE);
	cfg.liveness_bound_ns = 20 * 1000000;
	sr_error err;
	sr_shm_ring *r = sr_shm_ring_create(shm_name, &cfg, NULL, &err);
	cr_assert_not_null(r, "%s", err.message);
	sr_shm_consumer *c = sr_shm_consumer_join(r, 0, NULL, 0, true, &err);
	cr_assert_not_null(c, "%s", err.message);
	int64_t seen = 0;
	sr_processor_config pc;
	memset(&pc, 0, sizeof pc);
	sr_shm_consumer_processor_config(c, &pc);
	pc.handler.ctx = &seen;
	pc.handler.on_event = note_event;
	sr_processor *proc = sr_processor_create(&pc, &err);
	cr_assert_not_null(proc, "%s", err.message);
	cr_assert_eq(sr_processor_start(proc, &err), SR_OK, "%s", err.message);
	sr_sequencer *seq = sr_shm_ring_sequencer(r);
	int64_t deadline = sr_monotonic_ns() + LONG_WAIT_NS;
	while (sr_atomic_load_acquire_i32(&seq->wait.sleepers.announced) == 0 && sr_monotonic_ns() < deadline)
		sr_sleep_ns(1000000);
	cr_assert_eq(sr_atomic_load_acquire_i32(&seq->wait.sleepers.announced), 1, "the consumer sleeps");
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		sr_shm_ring *mine = sr_shm_ring_open(shm_name, NULL, NULL);
		if (mine == NULL || !publish_and_die_before_waking(mine, 77))
			_exit(1);
	}
	int status;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x", status);
	deadline = sr_monotonic_ns() + LONG_WAIT_NS;
	while (__atomic_load_n(&seen, __ATOMIC_ACQUIRE) != 77 && sr_monotonic_ns() < deadline)
		sr_sleep_ns(1000000);
	cr_assert_eq(__atomic_load_n(&seen, __ATOMIC_ACQUIRE), 77, "the reaper woke the consumer");
	sr_processor_halt(proc);
	sr_processor_join(proc);
	sr_processor_destroy(proc);
	sr_shm_ring_close(&r);
	sr_shm_ring_unlink(shm_name, NULL);
}

/* A consumer process that waits a second for an event that never comes; exits 0. */
static void
wait_in_vain(const char *name)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL); /* no process left behind by a failed test */
	sr_shm_ring_options o = no_reaper();
	sr_shm_ring *r = sr_shm_ring_open(name, &o, NULL);
	sr_shm_consumer *c = r != NULL ? sr_shm_consumer_join(r, 0, NULL, 0, true, NULL) : NULL;
	sr_processor_config pc;
	memset(&pc, 0, sizeof pc);
	if (c == NULL || sr_shm_consumer_processor_config(c, &pc) != SR_OK)
		_exit(1);
	int64_t seen = 0;
	pc.handler.ctx = &seen;
	pc.handler.on_event = note_event;
	sr_processor *proc = sr_processor_create(&pc, NULL);
	if (proc == NULL || sr_processor_start(proc, NULL) != SR_OK)
		_exit(2);
	sr_sleep_ns(1000000000);
	sr_processor_halt(proc);
	sr_processor_join(proc);
	_exit(__atomic_load_n(&seen, __ATOMIC_ACQUIRE) == 0 ? 0 : 3);
}

/* The CPU time a consumer process spends waiting a second with one wait strategy. */
static double
idle_cpu_seconds(enum sr_wait_kind wait)
{
	names();
	sr_shm_ring *r = make(shm_name, 16, SR_PRODUCER_SINGLE, wait, false);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0)
		wait_in_vain(shm_name);
	int status;
	struct rusage ru;
	cr_assert_eq(wait4(pid, &status, 0, &ru), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s: status %#x", sr_wait_kind_name(wait),
	    status);
	sr_shm_ring_close(&r);
	sr_shm_ring_unlink(shm_name, NULL);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	    (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

Test(shm_events, a_blocking_consumer_in_another_process_idles_without_a_core)
{
	/* block, liteblock and timeout sleep on the futex of the shared page: about no CPU */
	const enum sr_wait_kind sleeping[] = { SR_WAIT_BLOCK, SR_WAIT_LITE_BLOCK, SR_WAIT_TIMEOUT };
	for (size_t k = 0; k < sizeof sleeping / sizeof sleeping[0]; k++) {
		double cpu = idle_cpu_seconds(sleeping[k]);
		cr_assert_lt(cpu, 0.3, "%s: a consumer idle for 1 s used %.3f s of CPU",
		    sr_wait_kind_name(sleeping[k]), cpu);
	}
}

Test(shm_create, participants_join_after_the_name_is_removed)
{
	names();
	sr_shm_ring *r = make(file_name, 16, SR_PRODUCER_MULTI, SR_WAIT_BLOCK, false);
	sr_error err;
	cr_assert_eq(sr_shm_ring_unlink(file_name, &err), SR_OK, "%s", err.message);
	sr_shm_producer *p = sr_shm_producer_join(r, &err);
	cr_assert_not_null(p, "%s", err.message);
	sr_shm_consumer *c = sr_shm_consumer_join(r, 0, NULL, 0, true, &err);
	cr_assert_not_null(c, "%s", err.message);
	sr_shm_ring_status st;
	sr_shm_ring_status_get(r, &st);
	cr_assert_eq(st.producers, 1);
	cr_assert_eq(st.consumers, 1);
	cr_assert_eq(sr_shm_ring_unlink(file_name, &err), SR_ESYS, "removed already");
	cr_assert(strstr(err.message, "No such file") != NULL, "%s", err.message);
	sr_shm_ring_close(&r);
}

/* A producer that claims 4 sequences, writes them, and dies with only the top two flags stored. */
static bool
die_in_the_middle_of_a_publish(sr_shm_ring *r, int64_t unused)
{
	(void)unused;
	sr_shm_producer *p = sr_shm_producer_join(r, NULL);
	int64_t first;
	if (p == NULL || sr_shm_producer_claim_until(p, 4, SR_DEADLINE_NONE, &first) != SR_OK)
		return false;
	sr_sequencer *seq = sr_shm_ring_sequencer(r);
	for (int64_t k = 0; k < 4; k++)
		*(int64_t *)sr_ring_slot(sr_shm_ring_slots(r), first + k) = 100 + k;
	/* the publish stores the flags from the last down: cut after two of them */
	sr_atomic_store_release_i64(&sr_sequencer__available(seq)[(first + 3) & seq->mask], first + 3);
	sr_atomic_store_release_i64(&sr_sequencer__available(seq)[(first + 2) & seq->mask], first + 2);
	return true;
}

Test(shm_death, a_publish_cut_by_death_is_skipped_whole)
{
	names();
	sr_shm_ring *r = make(shm_name, 16, SR_PRODUCER_MULTI, SR_WAIT_BLOCK, false);
	sr_error err;
	sr_shm_consumer *c = sr_shm_consumer_join(r, 0, NULL, 0, true, &err);
	cr_assert_not_null(c, "%s", err.message);
	sr_poller *poller = sr_shm_consumer_poller(c, &err);
	cr_assert_not_null(poller, "%s", err.message);
	pid_t victim = fork_and_hang(shm_name, die_in_the_middle_of_a_publish, 0);
	kill(victim, SIGKILL);
	cr_assert_eq(waitpid(victim, NULL, 0), victim);
	cr_assert_eq(sr_shm_ring_check(r), 1);
	polled v = { 0 };
	poll_until(poller, &v, 4);
	cr_assert_eq(v.skips, 4, "the whole record is skipped, its published tail too");
	cr_assert_eq(v.got, 0, "no part of it is delivered");
	sr_shm_ring_status st;
	sr_shm_ring_status_get(r, &st);
	cr_assert_eq(st.abandoned_sequences, 2, "the two never published are counted");
	sr_poller_destroy(poller);
	sr_shm_ring_close(&r);
	sr_shm_ring_unlink(shm_name, NULL);
}

Test(shm_death, a_dead_producers_claim_behind_a_live_producers_two_claims_is_abandoned)
{
	names();
	sr_shm_ring *r = make(shm_name, 16, SR_PRODUCER_MULTI, SR_WAIT_BLOCK, false);
	sr_error err;
	sr_shm_producer *live = sr_shm_producer_join(r, &err);
	cr_assert_not_null(live, "%s", err.message);
	int64_t l0, l2;
	cr_assert_eq(sr_shm_producer_claim(live, &l0), SR_OK);       /* 0 */
	pid_t victim = claim_and_hang(shm_name, 1);                     /* 1 */
	cr_assert_eq(sr_shm_producer_claim(live, &l2), SR_OK);       /* 2 */
	cr_assert_eq(l2, 2);
	sr_shm_producer_publish(live, l0);
	kill(victim, SIGKILL);
	cr_assert_eq(waitpid(victim, NULL, 0), victim);
	cr_assert_eq(sr_shm_ring_check(r), 1);
	sr_sequencer *seq = sr_shm_ring_sequencer(r);
	cr_assert(sr_sequencer_is_available(seq, 1) && sr_sequencer_is_skipped(seq, 1),
	    "the live producer's note moved to its second claim, past the dead one's");
	cr_assert_not(sr_sequencer_is_available(seq, 2), "the live producer's claim is its own");
	sr_shm_producer_publish(live, l2);
	cr_assert_eq(sr_sequencer_highest_published(seq, 0, sr_sequencer_cursor(seq)), 2);
	sr_shm_ring_close(&r);
	sr_shm_ring_unlink(shm_name, NULL);
}
