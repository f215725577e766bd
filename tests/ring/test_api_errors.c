/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_api_errors.c: bad input to every public function of ring/,
 * wait_strategies/ and logger/sr_log.h that takes a pointer, a size or a
 * name: NULL, zero, too large and wrong values each give the documented
 * error, with a message naming the value where the function takes an
 * sr_error, and nothing crashes.
 *
 * What counts as documented:
 *   - the function's comment in its header (e.g. "SR_EINVAL for NULL",
 *     "NULL or *logp == NULL: nothing happens", "\"unknown\" otherwise");
 *   - for a value outside a range the header states, SR_EINVAL
 *     (sr_error.h: "an argument is out of range or NULL");
 *   - for constructors given a NULL configuration, ARCHITECTURE.md decision
 *     8: constructors validate their arguments and return NULL with a
 *     message.
 * A NULL pointer is tried only where one of these says what happens.  The
 * static inline hot paths (claim/publish, barrier waits, ring slot access,
 * wait_for/signal) take valid pointers by contract and are not given NULL;
 * their documented argument checks (n of a claim, say) are tested.
 * test_log.c covers each sr_log_config field once; the values here are the
 * zero, negative and too-large ones it does not try.
 */
#include "test_log_support.h"

#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <seqring/sr_barrier.h>
#include <seqring/sr_error.h>
#include <seqring/sr_log.h>
#include <seqring/sr_processor.h>
#include <seqring/sr_ring.h>
#include <seqring/sr_sequence.h>
#include <seqring/sr_sequencer.h>
#include <seqring/sr_wait.h>
#include "test_support.h"

#if defined(__SANITIZE_ADDRESS__)
/*
 * The out-of-memory case asks for 64 TiB: ASan's allocator must say NULL, as
 * malloc does, rather than abort the test.
 */
const char *__asan_default_options(void);
__attribute__((used)) const char *
__asan_default_options(void)
{
	return "allocator_may_return_null=1";
}
#endif

/* err.code is `code` and err.message contains each of the given substrings. */
#define EXPECT_ERR(err, expected_code, ...) do { \
	const char *const subs_[] = { __VA_ARGS__ }; \
	cr_expect_eq((err).code, (expected_code), "code %d, expected %d (\"%s\")", (err).code, \
	    (expected_code), (err).message); \
	for (size_t k_ = 0; k_ < sizeof subs_ / sizeof *subs_; k_++) \
		cr_expect(strstr((err).message, subs_[k_]) != NULL, "\"%s\" should contain \"%s\"", \
		    (err).message, subs_[k_]); \
} while (0)

/* An sr_error that a call must overwrite. */
static sr_error
fresh_error(void)
{
	sr_error e;
	e.code = 12345;
	strcpy(e.message, "untouched");
	return e;
}

/* ---------------------------------------------------------------------------------------- */
/* sr_error.h                                                                               */

Test(api_errors, error_helpers_take_null_and_long_messages)
{
	/* "Fills err (if not NULL)" and returns the code. */
	cr_expect_eq(sr_error_set(NULL, SR_EINVAL, "value %d", 7), SR_EINVAL);
	sr_error_clear(NULL);
	/* A message longer than the buffer is cut and stays terminated. */
	char big[3 * SR_ERROR_MESSAGE_MAX];
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	sr_error e = fresh_error();
	cr_expect_eq(sr_error_set(&e, SR_EIO, "%s", big), SR_EIO);
	cr_expect_eq(e.code, SR_EIO);
	cr_expect_eq(strnlen(e.message, sizeof e.message), SR_ERROR_MESSAGE_MAX - 1);
	sr_error_clear(&e);
	cr_expect_eq(e.code, SR_OK);
	cr_expect_str_empty(e.message);
	/* Every code has its own name. */
	static const int codes[] = { SR_OK, SR_EINVAL, SR_ENOMEM, SR_EFULL, SR_ETIMEDOUT, SR_EALERTED,
	    SR_ESTATE, SR_ESYS, SR_EIO };
	for (size_t i = 0; i < sizeof codes / sizeof *codes; i++) {
		cr_expect(sr_strerror(codes[i]) != NULL && sr_strerror(codes[i])[0] != '\0');
		for (size_t j = 0; j < i; j++)
			cr_expect_str_neq(sr_strerror(codes[i]), sr_strerror(codes[j]));
	}
	/* Not a code: no crash, still a string. */
	cr_expect_not_null(sr_strerror(42));
	cr_expect_not_null(sr_strerror(INT_MIN));
}

/* ---------------------------------------------------------------------------------------- */
/* sr_ring.h                                                                                */

static int
failing_init(void *slot, int64_t index, void *ctx)
{
	(void)slot;
	(void)ctx;
	return index == 3 ? 7 : 0;
}

Test(api_errors, ring_create_bad_sizes)
{
	static const struct { int64_t count; size_t size; const char *names; } cases[] = {
		{ 0, 64, "slot_count 0" },
		{ 1, 64, "slot_count 1" },
		{ 3, 64, "slot_count 3" },
		{ -8, 64, "slot_count -8" },
		{ INT64_MIN, 64, "slot_count -9223372036854775808" },
		{ SR_RING_MAX_SLOT_COUNT * 2, 64, "slot_count 2147483648" },
		{ INT64_MAX, 64, "slot_count 9223372036854775807" },
		{ SR_RING_MAX_SLOT_COUNT - 1, 64, "slot_count 1073741823" },
		{ 8, 0, "slot_size 0" },
		{ 8, 4, "slot_size 4" },
		{ 8, 12, "slot_size 12" },
		{ 8, SR_RING_MAX_SLOT_SIZE + 8, "slot_size 65544" },
		{ 8, SIZE_MAX, "slot_size 18446744073709551615" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		sr_error err = fresh_error();
		sr_ring *r = sr_ring_create(cases[i].count, cases[i].size, NULL, NULL, &err);
		cr_expect_null(r, "case %zu", i);
		EXPECT_ERR(err, SR_EINVAL, cases[i].names);
		/* No sr_error: the same refusal, nothing written anywhere. */
		cr_expect_null(sr_ring_create(cases[i].count, cases[i].size, NULL, NULL, NULL));
	}
	/* The smallest and largest slot sizes and the smallest count are valid. */
	sr_ring *r = sr_ring_create(2, 8, NULL, NULL, NULL);
	cr_expect_not_null(r);
	sr_ring_destroy(r);
	r = sr_ring_create(2, SR_RING_MAX_SLOT_SIZE, NULL, NULL, NULL);
	cr_expect_not_null(r);
	sr_ring_destroy(r);
	sr_ring_destroy(NULL);       /* "NULL is ignored" */
}

Test(api_errors, ring_create_failing_initialiser)
{
	sr_error err = fresh_error();
	cr_expect_null(sr_ring_create(8, 64, failing_init, NULL, &err));
	cr_expect_lt(err.code, 0, "an error code (%d)", err.code);
	cr_expect(strstr(err.message, "7") != NULL && strstr(err.message, "3") != NULL,
	    "names the result and the slot: %s", err.message);
	SC_ASSERT_NO_LEAKS();
}

Test(api_errors, ring_create_out_of_memory)
{
	/* With overcommit_memory=1 the kernel would grant 64 TiB and the memset would fault it in. */
	FILE *f = fopen("/proc/sys/vm/overcommit_memory", "r");
	int mode = -1;
	if (f != NULL) {
		if (fscanf(f, "%d", &mode) != 1)
			mode = -1;
		fclose(f);
	}
	if (mode != 0 && mode != 2)
		cr_skip_test("vm.overcommit_memory is %d: a 64 TiB allocation might succeed", mode);
	sr_error err = fresh_error();
	cr_expect_null(sr_ring_create(SR_RING_MAX_SLOT_COUNT, SR_RING_MAX_SLOT_SIZE, NULL, NULL, &err));
	EXPECT_ERR(err, SR_ENOMEM, "1073741824");

	/* The logger's shared ring, made at open: the error names what sized it, variables or fields. */
	tl_clear_env();
	setenv("SEQRING_LOG_RING_SLOTS", "1073741824", 1);
	setenv("SEQRING_LOG_SLOT_SIZE", "65536", 1);
	sr_log_config c;
	sr_log_config_default(&c);
	c.producer = SR_LOG_PRODUCER_SHARED;
	err = fresh_error();
	cr_expect_null(sr_log_open(&c, &err));
	EXPECT_ERR(err, SR_ENOMEM, "the ring is SEQRING_LOG_RING_SLOTS=1073741824 x SEQRING_LOG_SLOT_SIZE=65536");
	tl_clear_env();
	c.ring_slots = SR_RING_MAX_SLOT_COUNT;
	c.slot_size = SR_RING_MAX_SLOT_SIZE;
	err = fresh_error();
	cr_expect_null(sr_log_open(&c, &err));
	EXPECT_ERR(err, SR_ENOMEM, "the ring is config.ring_slots 1073741824 x config.slot_size 65536");
	/* One from each. */
	setenv("SEQRING_LOG_SLOT_SIZE", "64k", 1);
	err = fresh_error();
	cr_expect_null(sr_log_open(&c, &err));
	EXPECT_ERR(err, SR_ENOMEM, "config.ring_slots 1073741824 x SEQRING_LOG_SLOT_SIZE=64k");
	tl_clear_env();
}

/* ---------------------------------------------------------------------------------------- */
/* sr_sequencer.h                                                                           */

static sr_sequencer *
make_sequencer(int64_t size, enum sr_producer_mode mode)
{
	sr_sequencer_config c;
	sr_sequencer_config_default(&c, size, mode);
	sr_error err;
	sr_sequencer *s = sr_sequencer_create(&c, &err);
	cr_assert_not_null(s, "%s", err.message);
	return s;
}

typedef void (*seq_mutation)(sr_sequencer_config *c);
#define SEQ_MUTATION(name, body) static void name(sr_sequencer_config *c) { body; }
SEQ_MUTATION(seq_size_zero, c->buffer_size = 0)
SEQ_MUTATION(seq_size_one, c->buffer_size = 1)
SEQ_MUTATION(seq_size_odd, c->buffer_size = 12)
SEQ_MUTATION(seq_size_negative, c->buffer_size = -16)
SEQ_MUTATION(seq_size_too_large, c->buffer_size = SR_RING_MAX_SLOT_COUNT * 2)
SEQ_MUTATION(seq_size_max, c->buffer_size = INT64_MAX)
SEQ_MUTATION(seq_mode_two, c->mode = (enum sr_producer_mode)2)
SEQ_MUTATION(seq_mode_negative, c->mode = (enum sr_producer_mode)-1)
SEQ_MUTATION(seq_initial_below, c->initial_sequence = -2)
SEQ_MUTATION(seq_initial_min, c->initial_sequence = INT64_MIN)
SEQ_MUTATION(seq_initial_max, c->initial_sequence = INT64_MAX)
SEQ_MUTATION(seq_wait_kind, c->wait.kind = (enum sr_wait_kind)99)
SEQ_MUTATION(seq_wait_spins, c->wait.spin_tries = -1)
SEQ_MUTATION(seq_wait_timeout_zero, c->wait.timeout_ns = 0)

Test(api_errors, sequencer_create_bad_config)
{
	static const struct { seq_mutation fn; const char *names; } cases[] = {
		{ seq_size_zero, "buffer_size 0" },
		{ seq_size_one, "buffer_size 1" },
		{ seq_size_odd, "buffer_size 12" },
		{ seq_size_negative, "buffer_size -16" },
		{ seq_size_too_large, "buffer_size 2147483648" },
		{ seq_size_max, "buffer_size 9223372036854775807" },
		{ seq_mode_two, "mode 2" },
		{ seq_mode_negative, "mode -1" },
		{ seq_initial_below, "initial_sequence -2" },
		{ seq_initial_min, "initial_sequence -9223372036854775808" },
		{ seq_initial_max, "initial_sequence 9223372036854775807" },
		{ seq_wait_kind, "kind 99" },
		{ seq_wait_spins, "spin tries -1" },
		{ seq_wait_timeout_zero, "timeout 0 ns" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		sr_sequencer_config c;
		sr_sequencer_config_default(&c, 64, SR_PRODUCER_MULTI);
		cases[i].fn(&c);
		sr_error err = fresh_error();
		cr_expect_null(sr_sequencer_create(&c, &err), "case %zu", i);
		EXPECT_ERR(err, SR_EINVAL, cases[i].names);
		cr_expect_null(sr_sequencer_create(&c, NULL));
	}
	/* A NULL configuration (a constructor: ARCHITECTURE.md decision 8). */
	sr_error err = fresh_error();
	cr_expect_null(sr_sequencer_create(NULL, &err));
	EXPECT_ERR(err, SR_EINVAL, "NULL");
	/* Large starting sequences are fine (sequences near 2^62). */
	sr_sequencer_config c;
	sr_sequencer_config_default(&c, 64, SR_PRODUCER_SINGLE);
	c.initial_sequence = INT64_C(1) << 62;
	sr_sequencer *s = sr_sequencer_create(&c, &err);
	cr_expect_not_null(s, "%s", err.message);
	sr_sequencer_destroy(s);
	SC_ASSERT_NO_LEAKS();
}

Test(api_errors, sequencer_gating_null_full_and_unknown)
{
	sr_sequencer *s = make_sequencer(64, SR_PRODUCER_MULTI);
	/* "SR_EINVAL for NULL" */
	cr_expect_eq(sr_sequencer_add_gating(s, NULL), SR_EINVAL);
	static sr_sequence seqs[SR_SEQUENCER_MAX_GATING + 1];
	cr_expect_eq(sr_sequencer_add_gating(NULL, &seqs[0]), SR_EINVAL);
	/* "SR_EFULL past SR_SEQUENCER_MAX_GATING" */
	for (int i = 0; i < SR_SEQUENCER_MAX_GATING; i++) {
		sr_sequence_init(&seqs[i], -1);
		cr_expect_eq(sr_sequencer_add_gating(s, &seqs[i]), SR_OK, "gating %d", i);
	}
	sr_sequence_init(&seqs[SR_SEQUENCER_MAX_GATING], -1);
	cr_expect_eq(sr_sequencer_add_gating(s, &seqs[SR_SEQUENCER_MAX_GATING]), SR_EFULL);
	/* Remove: "SR_EINVAL when it was not added" (NULL never is). */
	cr_expect_eq(sr_sequencer_remove_gating(s, &seqs[SR_SEQUENCER_MAX_GATING]), SR_EINVAL);
	cr_expect_eq(sr_sequencer_remove_gating(s, NULL), SR_EINVAL);
	cr_expect_eq(sr_sequencer_remove_gating(s, &seqs[5]), SR_OK);
	cr_expect_eq(sr_sequencer_remove_gating(s, &seqs[5]), SR_EINVAL, "removed twice");
	/* Room again for one. */
	cr_expect_eq(sr_sequencer_add_gating(s, &seqs[SR_SEQUENCER_MAX_GATING]), SR_OK);
	sr_sequencer_destroy(s);
}

Test(api_errors, claim_counts_out_of_range)
{
	static const enum sr_producer_mode modes[] = { SR_PRODUCER_SINGLE, SR_PRODUCER_MULTI };
	for (int m = 0; m < 2; m++) {
		sr_sequencer *s = make_sequencer(16, modes[m]);
		static const int64_t bad[] = { 0, -1, INT64_MIN, 17, INT64_MAX };
		for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
			int64_t first;
			/* "SR_EINVAL when n < 1 or n > buffer_size", for every claim form. */
			cr_expect_eq(sr_sequencer_claim_until(s, bad[i], SR_DEADLINE_NONE, &first), SR_EINVAL,
			    "mode %d n %lld", m, (long long)bad[i]);
			cr_expect_eq(sr_sequencer_claim_until(s, bad[i], SR_DEADLINE_NOW, &first), SR_EINVAL);
			cr_expect_eq(sr_sequencer_try_claim_n(s, bad[i], &first), SR_EINVAL);
			cr_expect_eq(sr_sequencer_claim_n(s, bad[i], &first), SR_EINVAL);
			cr_expect_eq(sr_sequencer_claim_timeout(s, bad[i], 1000, &first), SR_EINVAL);
		}
		/* Nothing was claimed by the refused calls: the whole ring is still free. */
		cr_expect_eq(sr_sequencer_remaining_capacity(s), 16);
		/* n == buffer_size is allowed. */
		int64_t first;
		cr_expect_eq(sr_sequencer_try_claim_n(s, 16, &first), SR_OK);
		cr_expect_eq(first, 0);
		sr_sequencer_publish_range(s, first, first + 15);
		sr_sequencer_destroy(s);
	}
}

Test(api_errors, claim_full_ring_and_huge_timeout)
{
	sr_sequencer *s = make_sequencer(8, SR_PRODUCER_MULTI);
	sr_sequence consumer;
	sr_sequence_init(&consumer, -1);
	cr_assert_eq(sr_sequencer_add_gating(s, &consumer), SR_OK);
	int64_t first;
	/* A timeout "too large" to add to the clock: no overflow (UBSan), just no deadline. */
	cr_expect_eq(sr_sequencer_claim_timeout(s, 1, INT64_MAX, &first), SR_OK);
	cr_expect_eq(sr_sequencer_claim_n(s, 7, &first), SR_OK);
	sr_sequencer_publish_range(s, 0, 7);
	/* Full: try-claim fails at once, a timed claim times out. */
	cr_expect_eq(sr_sequencer_try_claim(s, &first), SR_EFULL);
	cr_expect_eq(sr_sequencer_try_claim_n(s, 8, &first), SR_EFULL);
	cr_expect_eq(sr_sequencer_claim_timeout(s, 1, 1000 * 1000, &first), SR_ETIMEDOUT);
	cr_expect_eq(sr_sequencer_claim_until(s, 1, sr_monotonic_ns() - 1, &first), SR_ETIMEDOUT,
	    "a deadline in the past");
	sr_sequencer_destroy(s);
}

/* ---------------------------------------------------------------------------------------- */
/* sr_barrier.h                                                                             */

Test(api_errors, barrier_init_bad_arguments)
{
	sr_sequencer *s = make_sequencer(16, SR_PRODUCER_SINGLE);
	static sr_barrier b;
	static sr_sequence deps[SR_BARRIER_MAX_DEPENDENTS + 1];
	const sr_sequence *ptrs[SR_BARRIER_MAX_DEPENDENTS + 1];
	for (int i = 0; i <= SR_BARRIER_MAX_DEPENDENTS; i++) {
		sr_sequence_init(&deps[i], -1);
		ptrs[i] = &deps[i];
	}
	sr_error err = fresh_error();
	/* "SR_EINVAL for NULL arguments" */
	cr_expect_eq(sr_barrier_init(NULL, s, NULL, 0, &err), SR_EINVAL);
	EXPECT_ERR(err, SR_EINVAL, "NULL");
	err = fresh_error();
	cr_expect_eq(sr_barrier_init(&b, NULL, NULL, 0, &err), SR_EINVAL);
	EXPECT_ERR(err, SR_EINVAL, "NULL");
	err = fresh_error();
	cr_expect_eq(sr_barrier_init(&b, s, NULL, 2, &err), SR_EINVAL);
	EXPECT_ERR(err, SR_EINVAL, "dependents is NULL", "2");
	/* "a NULL dependent" */
	const sr_sequence *with_null[3] = { &deps[0], NULL, &deps[2] };
	err = fresh_error();
	cr_expect_eq(sr_barrier_init(&b, s, with_null, 3, &err), SR_EINVAL);
	EXPECT_ERR(err, SR_EINVAL, "dependent sequence 1 is NULL");
	/* "more than SR_BARRIER_MAX_DEPENDENTS of them", and a negative count (out of range) */
	err = fresh_error();
	cr_expect_eq(sr_barrier_init(&b, s, ptrs, SR_BARRIER_MAX_DEPENDENTS + 1, &err), SR_EINVAL);
	EXPECT_ERR(err, SR_EINVAL, "dependent_count 17");
	err = fresh_error();
	cr_expect_eq(sr_barrier_init(&b, s, ptrs, -1, &err), SR_EINVAL);
	EXPECT_ERR(err, SR_EINVAL, "dependent_count -1");
	err = fresh_error();
	cr_expect_eq(sr_barrier_init(&b, s, ptrs, INT_MIN, &err), SR_EINVAL);
	EXPECT_ERR(err, SR_EINVAL, "dependent_count -2147483648");
	/* Without an sr_error: the same codes. */
	cr_expect_eq(sr_barrier_init(NULL, NULL, NULL, 0, NULL), SR_EINVAL);
	cr_expect_eq(sr_barrier_init(&b, s, with_null, 3, NULL), SR_EINVAL);
	/* The limit itself, and none, are fine. */
	cr_expect_eq(sr_barrier_init(&b, s, ptrs, SR_BARRIER_MAX_DEPENDENTS, NULL), SR_OK);
	cr_expect_eq(sr_barrier_init(&b, s, NULL, 0, NULL), SR_OK);
	sr_sequencer_destroy(s);
}

/* ---------------------------------------------------------------------------------------- */
/* sr_processor.h                                                                           */

static int
noop_event(void *ctx, void *slot, int64_t sequence, bool end_of_batch)
{
	(void)ctx;
	(void)slot;
	(void)sequence;
	(void)end_of_batch;
	return 0;
}

Test(api_errors, processor_create_bad_config)
{
	sr_ring *ring8 = sr_ring_create(8, 64, NULL, NULL, NULL);
	sr_ring *ring16 = sr_ring_create(16, 64, NULL, NULL, NULL);
	sr_sequencer *s = make_sequencer(16, SR_PRODUCER_SINGLE);
	cr_assert(ring8 != NULL && ring16 != NULL);
	sr_sequence dep;
	sr_sequence_init(&dep, -1);
	const sr_sequence *null_dep[1] = { NULL };

	const sr_processor_config good = {
		.ring = ring16, .sequencer = s, .handler = { .on_event = noop_event },
	};
	struct { sr_processor_config c; const char *names; } cases[8];
	int n = 0;
	cases[n].c = good; cases[n].c.ring = NULL; cases[n++].names = "ring";
	cases[n].c = good; cases[n].c.sequencer = NULL; cases[n++].names = "sequencer";
	cases[n].c = good; cases[n].c.handler.on_event = NULL; cases[n++].names = "on_event";
	cases[n].c = good; cases[n].c.ring = ring8; cases[n++].names = "8 slots";
	cases[n].c = good; cases[n].c.max_batch_size = -1; cases[n++].names = "max_batch_size -1";
	cases[n].c = good; cases[n].c.max_batch_size = INT64_MIN; cases[n++].names = "max_batch_size -9223372036854775808";
	cases[n].c = good; cases[n].c.dependents = NULL; cases[n].c.dependent_count = 2; cases[n++].names = "2";
	cases[n].c = good; cases[n].c.dependents = null_dep; cases[n].c.dependent_count = 1; cases[n++].names = "NULL";
	for (int i = 0; i < n; i++) {
		sr_error err = fresh_error();
		sr_processor *p = sr_processor_create(&cases[i].c, &err);
		cr_expect_null(p, "case %d", i);
		if (p != NULL)
			sr_processor_destroy(p);
		EXPECT_ERR(err, SR_EINVAL, cases[i].names);
		cr_expect_null(sr_processor_create(&cases[i].c, NULL));
	}
	/* Too many dependents. */
	static sr_sequence many[SR_BARRIER_MAX_DEPENDENTS + 1];
	const sr_sequence *ptrs[SR_BARRIER_MAX_DEPENDENTS + 1];
	for (int i = 0; i <= SR_BARRIER_MAX_DEPENDENTS; i++) {
		sr_sequence_init(&many[i], -1);
		ptrs[i] = &many[i];
	}
	sr_processor_config c = good;
	c.dependents = ptrs;
	c.dependent_count = SR_BARRIER_MAX_DEPENDENTS + 1;
	sr_error err = fresh_error();
	cr_expect_null(sr_processor_create(&c, &err));
	EXPECT_ERR(err, SR_EINVAL, "17");
	/* A NULL configuration (a constructor: ARCHITECTURE.md decision 8). */
	err = fresh_error();
	cr_expect_null(sr_processor_create(NULL, &err));
	EXPECT_ERR(err, SR_EINVAL, "NULL");
	sr_sequencer_destroy(s);
	sr_ring_destroy(ring8);
	sr_ring_destroy(ring16);
	SC_ASSERT_NO_LEAKS();
}

Test(api_errors, processor_wrong_state, .timeout = 20)
{
	sr_ring *ring = sr_ring_create(16, 64, NULL, NULL, NULL);
	sr_sequencer *s = make_sequencer(16, SR_PRODUCER_SINGLE);
	sr_processor_config c = { .ring = ring, .sequencer = s, .handler = { .on_event = noop_event } };
	sr_processor *p = sr_processor_create(&c, NULL);
	cr_assert_not_null(p);
	/* "SR_ESTATE if it was not running" */
	cr_expect_eq(sr_processor_drain_and_halt(p), SR_ESTATE);
	sr_error err = fresh_error();
	cr_assert_eq(sr_processor_start(p, &err), SR_OK, "%s", err.message);
	/* "SR_ESTATE if already started" / "if it is already running" */
	err = fresh_error();
	cr_expect_eq(sr_processor_start(p, &err), SR_ESTATE);
	EXPECT_ERR(err, SR_ESTATE, "already");
	cr_expect_eq(sr_processor_start(p, NULL), SR_ESTATE);
	cr_expect_eq(sr_processor_run(p), SR_ESTATE);
	cr_expect_eq(sr_processor_drain_and_halt(p), SR_OK);
	cr_expect_eq(sr_processor_join(p), SR_OK);
	cr_expect_eq(sr_processor_drain_and_halt(p), SR_ESTATE, "halted is not running");
	sr_processor_destroy(p);
	sr_sequencer_destroy(s);
	sr_ring_destroy(ring);
}

/* ---------------------------------------------------------------------------------------- */
/* sr_wait.h                                                                                */

Test(api_errors, wait_parse_bad_specs)
{
	char long_name[10000];
	memset(long_name, 'z', sizeof long_name - 1);
	long_name[sizeof long_name - 1] = '\0';
	static const struct { const char *spec; const char *names; } cases[] = {
		{ "", "''" },
		{ "snooze", "'snooze'" },
		{ "busy spin", "'busy spin'" },
		{ "block:", NULL },                          /* accepted: no parameters */
		{ "yield:sleep=1", "'sleep'" },
		{ "block:spin=1", "'spin'" },
		{ "yield:spin", "'spin'" },
		{ "yield:spin=", "'spin='" },
		{ "yield:spin=-1", "'spin=-1'" },
		{ "yield:spin=abc", "'spin=abc'" },
		{ "yield:spin=1000001", "'spin=1000001'" },
		{ "yield:spin=99999999999999999999", "'spin=99999999999999999999'" },
		{ "sleep:sleep=0", "sleep 0 ns" },
		{ "sleep:sleep=61s", "sleep 61000000000 ns" },
		{ "timeout:timeout=0", "timeout 0 ns" },
		{ "timeout:timeout=999ns", "timeout 999 ns" },
		{ "timeout:timeout=1h", "'timeout=1h'" },
		{ "timeout:timeout=18446744073709551616s", "'timeout=18446744073709551616s'" },
		{ "phased:spin=61s", "phased spin 61000000000 ns" },
		{ "phased:fallback=busyspin", "fallback 'busyspin'" },
		{ "phased:fallback=nap", "'fallback=nap'" },
		{ "phased:,spin=1us", "''" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		sr_wait_config c;
		sr_error err = fresh_error();
		int rc = sr_wait_config_parse(cases[i].spec, &c, &err);
		if (cases[i].names == NULL) {
			cr_expect_eq(rc, SR_OK, "\"%s\": %s", cases[i].spec, err.message);
			continue;
		}
		cr_expect_eq(rc, SR_EINVAL, "\"%s\"", cases[i].spec);
		EXPECT_ERR(err, SR_EINVAL, cases[i].names);
		cr_expect_eq(sr_wait_config_parse(cases[i].spec, &c, NULL), SR_EINVAL);
	}
	/* A huge name: refused, and the message stays inside sr_error. */
	sr_wait_config c;
	sr_error err = fresh_error();
	cr_expect_eq(sr_wait_config_parse(long_name, &c, &err), SR_EINVAL);
	cr_expect_eq(err.code, SR_EINVAL);
	cr_expect_lt(strnlen(err.message, sizeof err.message), sizeof err.message);
	cr_expect(strstr(err.message, "zzzz") != NULL, "%s", err.message);
	/* Unknown names list what is valid. */
	err = fresh_error();
	sr_wait_config_parse("snooze", &c, &err);
	EXPECT_ERR(err, SR_EINVAL, "busyspin", "yield", "sleep", "block", "liteblock", "timeout", "phased");
}

typedef void (*wait_mutation)(sr_wait_config *c);
#define WAIT_MUTATION(name, body) static void name(sr_wait_config *c) { body; }
WAIT_MUTATION(w_kind_count, c->kind = SR_WAIT_KIND_COUNT)
WAIT_MUTATION(w_kind_negative, c->kind = (enum sr_wait_kind)-1)
WAIT_MUTATION(w_spin_negative, c->spin_tries = -1)
WAIT_MUTATION(w_spin_large, c->spin_tries = SR_WAIT_MAX_TRIES + 1)
WAIT_MUTATION(w_yield_negative, c->yield_tries = INT32_MIN)
WAIT_MUTATION(w_yield_large, c->yield_tries = INT32_MAX)
WAIT_MUTATION(w_sleep_zero, c->sleep_ns = 0)
WAIT_MUTATION(w_sleep_large, c->sleep_ns = SR_WAIT_MAX_NS + 1)
WAIT_MUTATION(w_timeout_small, c->timeout_ns = 999)
WAIT_MUTATION(w_timeout_max, c->timeout_ns = INT64_MAX)
WAIT_MUTATION(w_spin_ns_negative, c->spin_ns = -1)
WAIT_MUTATION(w_yield_ns_large, c->yield_ns = SR_WAIT_MAX_NS + 1)
WAIT_MUTATION(w_fallback_busy, { c->kind = SR_WAIT_PHASED; c->fallback = SR_WAIT_BUSY_SPIN; })
WAIT_MUTATION(w_fallback_phased, { c->kind = SR_WAIT_PHASED; c->fallback = SR_WAIT_PHASED; })
WAIT_MUTATION(w_fallback_bad, { c->kind = SR_WAIT_PHASED; c->fallback = (enum sr_wait_kind)42; })

Test(api_errors, wait_validate_and_init_bad_configs)
{
	static const struct { wait_mutation fn; const char *names; } cases[] = {
		{ w_kind_count, "kind 7" },
		{ w_kind_negative, "kind -1" },
		{ w_spin_negative, "spin tries -1" },
		{ w_spin_large, "spin tries 1000001" },
		{ w_yield_negative, "yield tries -2147483648" },
		{ w_yield_large, "yield tries 2147483647" },
		{ w_sleep_zero, "sleep 0 ns" },
		{ w_sleep_large, "sleep 60000000001 ns" },
		{ w_timeout_small, "timeout 999 ns" },
		{ w_timeout_max, "timeout 9223372036854775807 ns" },
		{ w_spin_ns_negative, "spin -1 ns" },
		{ w_yield_ns_large, "yield 60000000001 ns" },
		{ w_fallback_busy, "fallback 'busyspin'" },
		{ w_fallback_phased, "fallback 'phased'" },
		/* The message quotes sr_wait_kind_name(42), "unknown", not 42: the code is what counts. */
		{ w_fallback_bad, "fallback" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		sr_wait_config c;
		sr_wait_config_default(&c, SR_WAIT_BLOCK);
		cases[i].fn(&c);
		sr_error err = fresh_error();
		cr_expect_eq(sr_wait_config_validate(&c, &err), SR_EINVAL, "case %zu", i);
		EXPECT_ERR(err, SR_EINVAL, cases[i].names);
		cr_expect_eq(sr_wait_config_validate(&c, NULL), SR_EINVAL);
		/* sr_wait_init validates the same way ("SR_EINVAL ... on failure"). */
		static sr_wait w;
		err = fresh_error();
		cr_expect_eq(sr_wait_init(&w, &c, &err), SR_EINVAL, "init, case %zu", i);
		EXPECT_ERR(err, SR_EINVAL, cases[i].names);
	}
}

Test(api_errors, wait_names_and_format_sizes)
{
	/* "\"unknown\" for an invalid kind" */
	cr_expect_str_eq(sr_wait_kind_name((enum sr_wait_kind)-1), "unknown");
	cr_expect_str_eq(sr_wait_kind_name(SR_WAIT_KIND_COUNT), "unknown");
	cr_expect_str_eq(sr_wait_kind_name((enum sr_wait_kind)1000), "unknown");
	/* format never writes past its size, however small. */
	sr_wait_config c;
	cr_assert_eq(sr_wait_config_parse("phased:spin=10us,yield=100us,fallback=timeout", &c, NULL), SR_OK);
	char full[256];
	cr_assert_eq(sr_wait_config_format(&c, full, sizeof full), SR_OK);
	size_t len = strlen(full);
	for (size_t size = 0; size <= len + 1; size++) {
		char buf[300];
		memset(buf, '#', sizeof buf);
		int rc = sr_wait_config_format(&c, buf, size);
		for (size_t k = size; k < sizeof buf; k++)
			cr_assert_eq(buf[k], '#', "size %zu: byte %zu written", size, k);
		if (size > len)
			cr_expect(rc == SR_OK && strcmp(buf, full) == 0, "size %zu", size);
		else
			cr_expect_neq(rc, SR_OK, "size %zu cannot hold %zu bytes and a NUL", size, len);
	}
}

/* ---------------------------------------------------------------------------------------- */
/* sr_log.h: names                                                                          */

Test(api_errors, log_level_and_policy_names)
{
	/* "\"unknown\" otherwise" */
	static const int bad[] = { -1, SR_LOG_LEVEL_COUNT, INT_MAX, INT_MIN };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		cr_expect_str_eq(sr_log_level_name(bad[i]), "unknown");

	char huge[5000];
	memset(huge, 'q', sizeof huge - 1);
	huge[sizeof huge - 1] = '\0';
	/* "SR_EINVAL, with a message listing the valid names, for anything else" */
	static const char *const bad_levels[] = { "", "warn ", " info", "information", "inf", "6", "tracex" };
	for (size_t i = 0; i < sizeof bad_levels / sizeof *bad_levels; i++) {
		sr_log_level level = SR_LOG_INFO;
		sr_error err = fresh_error();
		cr_expect_eq(sr_log_level_parse(bad_levels[i], &level, &err), SR_EINVAL, "'%s'", bad_levels[i]);
		char quoted[64];
		snprintf(quoted, sizeof quoted, "'%s'", bad_levels[i]);
		EXPECT_ERR(err, SR_EINVAL, quoted, "trace", "debug", "info", "warn", "error", "fatal", "off");
	}
	sr_error err = fresh_error();
	sr_log_level level;
	cr_expect_eq(sr_log_level_parse(NULL, &level, &err), SR_EINVAL, "NULL is not a level name");
	cr_expect_eq(err.code, SR_EINVAL);
	err = fresh_error();
	cr_expect_eq(sr_log_level_parse(huge, &level, &err), SR_EINVAL);
	cr_expect(strstr(err.message, "qqqq") != NULL && strnlen(err.message, sizeof err.message) < sizeof err.message);
	cr_expect_eq(sr_log_level_parse("WARNING", &level, NULL), SR_OK);
	cr_expect_eq(level, SR_LOG_WARN);

	/* "SR_EINVAL lists the valid ones" */
	static const char *const bad_names[] = { "", "rings", "drop ", "SYNCHRONOUS", NULL };
	for (size_t i = 0; i < sizeof bad_names / sizeof *bad_names; i++) {
		sr_log_mode mode = SR_LOG_MODE_QUEUE;
		err = fresh_error();
		cr_expect_eq(sr_log_mode_parse(bad_names[i], &mode, &err), SR_EINVAL);
		EXPECT_ERR(err, SR_EINVAL, "ring", "queue", "sync");
		sr_log_full_policy policy = SR_LOG_FULL_DROP;
		err = fresh_error();
		cr_expect_eq(sr_log_full_policy_parse(bad_names[i], &policy, &err), SR_EINVAL);
		EXPECT_ERR(err, SR_EINVAL, "block", "drop", "discard", "sync");
		if (bad_names[i] != NULL && bad_names[i][0] != '\0') {
			char quoted[64];
			snprintf(quoted, sizeof quoted, "'%s'", bad_names[i]);
			cr_expect(strstr(err.message, quoted) != NULL, "%s names %s", err.message, quoted);
		}
	}
	err = fresh_error();
	cr_expect_eq(sr_log_mode_parse(huge, NULL, &err), SR_EINVAL);
	cr_expect_lt(strnlen(err.message, sizeof err.message), sizeof err.message);
}

/* ---------------------------------------------------------------------------------------- */
/* sr_log.h: opening                                                                        */

static char *
temp_path(void)
{
	static char path[64];
	strcpy(path, "/tmp/seqring_api_XXXXXX");
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	close(fd);
	return path;
}

TL_MUTATION(l_mode_negative, c->mode = (sr_log_mode)-1)
TL_MUTATION(l_slots_zero, c->ring_slots = 0)
TL_MUTATION(l_slots_negative, c->ring_slots = -64)
TL_MUTATION(l_slots_min, c->ring_slots = INT64_MIN)
TL_MUTATION(l_slots_large, c->ring_slots = SR_RING_MAX_SLOT_COUNT * 2)
TL_MUTATION(l_slot_size_zero, c->slot_size = 0)
TL_MUTATION(l_slot_size_32, c->slot_size = 32)
TL_MUTATION(l_slot_size_large, c->slot_size = 2 * SR_RING_MAX_SLOT_SIZE)
TL_MUTATION(l_slot_size_max, c->slot_size = SIZE_MAX)
TL_MUTATION(l_wait_empty, c->wait_strategy = "")
TL_MUTATION(l_policy_negative, c->full_policy = (sr_log_full_policy)-1)
TL_MUTATION(l_discard_negative, c->discard_level = (sr_log_level)-1)
TL_MUTATION(l_level_large, c->level = (sr_log_level)7)
TL_MUTATION(l_max_message_zero, c->max_message_bytes = 0)
TL_MUTATION(l_max_message_max, c->max_message_bytes = SIZE_MAX)
TL_MUTATION(l_max_line_zero, c->max_line_bytes = 0)
TL_MUTATION(l_max_line_max, c->max_line_bytes = SIZE_MAX)
TL_MUTATION(l_layout_negative, c->layout = (sr_log_layout)-1)
TL_MUTATION(l_sink_count_negative, c->sink_count = -1)
TL_MUTATION(l_sink_count_min, c->sink_count = INT_MIN)
TL_MUTATION(l_thread_name_empty, c->thread_name = "")
TL_MUTATION(l_thread_name_16, c->thread_name = "sixteen-chars-xx")
TL_MUTATION(l_fd_negative, *s = sr_sink_fd(-1))
TL_MUTATION(l_fd_max, *s = sr_sink_fd(INT_MAX))
TL_MUTATION(l_pipe_small, { *s = sr_sink_fd(2); s->pipe_bytes = 4095; })
TL_MUTATION(l_pipe_large, { *s = sr_sink_fd(2); s->pipe_bytes = (1 << 30) + 1; })
TL_MUTATION(l_pipe_negative, { *s = sr_sink_fd(2); s->pipe_bytes = -4096; })
TL_MUTATION(l_buffer_zero, s->buffer_bytes = 0)
TL_MUTATION(l_buffer_max, s->buffer_bytes = SIZE_MAX)
TL_MUTATION(l_timeout_large, s->write_timeout_ms = 60001)
TL_MUTATION(l_file_mode_max, s->file_mode = UINT_MAX)
TL_MUTATION(l_sink_level_negative, s->level = (sr_log_level)-1)

Test(api_errors, log_open_zero_negative_and_huge_values)
{
	static const struct { tl_mutation *fn; int code; const char *names; } cases[] = {
		{ l_mode_negative, SR_EINVAL, "config.mode -1" },
		{ l_slots_zero, SR_EINVAL, "config.ring_slots 0" },
		{ l_slots_negative, SR_EINVAL, "config.ring_slots -64" },
		{ l_slots_min, SR_EINVAL, "config.ring_slots -9223372036854775808" },
		{ l_slots_large, SR_EINVAL, "config.ring_slots 2147483648" },
		{ l_slot_size_zero, SR_EINVAL, "config.slot_size 0" },
		{ l_slot_size_32, SR_EINVAL, "config.slot_size 32" },
		{ l_slot_size_large, SR_EINVAL, "config.slot_size 131072" },
		{ l_slot_size_max, SR_EINVAL, "config.slot_size 18446744073709551615" },
		{ l_wait_empty, SR_EINVAL, "config.wait_strategy ''" },
		{ l_policy_negative, SR_EINVAL, "config.full_policy -1" },
		{ l_discard_negative, SR_EINVAL, "config.discard_level -1" },
		{ l_level_large, SR_EINVAL, "config.level 7" },
		{ l_max_message_zero, SR_EINVAL, "config.max_message_bytes 0" },
		{ l_max_message_max, SR_EINVAL, "config.max_message_bytes 18446744073709551615" },
		{ l_max_line_zero, SR_EINVAL, "config.max_line_bytes 0" },
		{ l_max_line_max, SR_EINVAL, "config.max_line_bytes 18446744073709551615" },
		{ l_layout_negative, SR_EINVAL, "config.layout -1" },
		{ l_sink_count_negative, SR_EINVAL, "config.sink_count -1" },
		{ l_sink_count_min, SR_EINVAL, "config.sink_count -2147483648" },
		{ l_thread_name_empty, SR_EINVAL, "config.thread_name ''" },
		{ l_thread_name_16, SR_EINVAL, "config.thread_name 'sixteen-chars-xx'" },
		{ l_fd_negative, SR_EINVAL, "config.sinks[0].fd -1" },
		{ l_fd_max, SR_EINVAL, "config.sinks[0].fd 2147483647" },
		{ l_pipe_small, SR_EINVAL, "config.sinks[0].pipe_bytes 4095" },
		{ l_pipe_large, SR_EINVAL, "config.sinks[0].pipe_bytes 1073741825" },
		{ l_pipe_negative, SR_EINVAL, "config.sinks[0].pipe_bytes -4096" },
		{ l_buffer_zero, SR_EINVAL, "config.sinks[0].buffer_bytes 0" },
		{ l_buffer_max, SR_EINVAL, "config.sinks[0].buffer_bytes 18446744073709551615" },
		{ l_timeout_large, SR_EINVAL, "config.sinks[0].write_timeout_ms 60001" },
		{ l_file_mode_max, SR_EINVAL, "config.sinks[0].file_mode 037777777777" },
		{ l_sink_level_negative, SR_EINVAL, "config.sinks[0].level -1" },
	};
	char *path = temp_path();
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		sr_log_config c;
		sr_sink_config s;
		tl_mutated_config(&c, &s, path, cases[i].fn);
		sr_error err = tl_open_refused(&c, "case %zu", i);
		EXPECT_ERR(err, cases[i].code, cases[i].names);
		/* "err (if given)": without one, the same refusal. */
		sr_log *log = sr_log_open(&c, NULL);
		cr_expect_null(log, "case %zu without an sr_error", i);
		if (log != NULL)
			sr_log_close(&log);
	}
	unlink(path);
	SC_ASSERT_NO_LEAKS();
}

Test(api_errors, log_open_bad_sink_names_its_index_and_values)
{
	char *path = temp_path();
	sr_sink_config sinks[3] = { sr_sink_file(path), sr_sink_null(), sr_sink_fd(-7) };
	sr_log_config c;
	sr_log_config_default(&c);
	c.ring_slots = 64;
	c.sinks = sinks;
	c.sink_count = 3;
	sr_error err = fresh_error();
	cr_expect_null(sr_log_open(&c, &err));
	EXPECT_ERR(err, SR_EINVAL, "config.sinks[2].fd -7");
	/* pipe_bytes on something that is not a pipe: a regular file. */
	int fd = open(path, O_WRONLY | O_APPEND);
	cr_assert_geq(fd, 0);
	sinks[2] = sr_sink_fd(fd);
	sinks[2].pipe_bytes = 65536;
	err = fresh_error();
	cr_expect_null(sr_log_open(&c, &err));
	EXPECT_ERR(err, SR_EINVAL, "config.sinks[2].pipe_bytes 65536", "not a pipe");
	cr_expect_neq(fcntl(fd, F_GETFD), -1, "a failed open leaves the caller's descriptor open");
	close(fd);
	/* A wait strategy spec far too long to quote: the message stays bounded. */
	static char huge[20000];
	memset(huge, 'w', sizeof huge - 1);
	c.sink_count = 1;
	c.wait_strategy = huge;
	err = fresh_error();
	cr_expect_null(sr_log_open(&c, &err));
	cr_expect_eq(err.code, SR_EINVAL);
	cr_expect(strstr(err.message, "config.wait_strategy 'www") != NULL, "%s", err.message);
	cr_expect_lt(strnlen(err.message, sizeof err.message), sizeof err.message);
	unlink(path);
	SC_ASSERT_NO_LEAKS();
}

/* ---------------------------------------------------------------------------------------- */
/* sr_log.h: a running logger                                                               */

typedef struct callback_state {
	sr_log *log;
	int close_rc, shutdown_rc, flush_rc;
	bool called;
	char line[512];
} callback_state;

static int
calls_back_into_the_logger(void *ctx, sr_log_level level, const char *line, size_t len)
{
	callback_state *st = ctx;
	(void)level;
	if (!st->called) {
		st->called = true;
		/* On the consumer thread: each is documented to refuse with SR_ESTATE. */
		sr_log *log = st->log;
		st->close_rc = sr_log_close(&log);
		st->shutdown_rc = sr_log_shutdown(st->log);
		st->flush_rc = sr_log_flush(st->log);
	}
	size_t n = len < sizeof st->line - 1 ? len : sizeof st->line - 1;
	memcpy(st->line, line, n);
	st->line[n] = '\0';
	return 0;
}

static sr_log *
open_callback(callback_state *st, sr_log_layout layout)
{
	sr_sink_config s = sr_sink_callback(calls_back_into_the_logger, st);
	sr_log_config c;
	tl_configure(&c, &s, (tl_settings){ .ring_slots = 64, .layout = layout,
	    .wait_strategy = "timeout:timeout=2ms" });
	sr_log *log = tl_open(&c);
	st->log = log;
	return log;
}

Test(api_errors, log_lifecycle_null_twice_and_from_the_consumer, .timeout = 20)
{
	/* "NULL or *logp == NULL: nothing happens" */
	cr_expect_eq(sr_log_close(NULL), SR_OK);
	sr_log *none = NULL;
	cr_expect_eq(sr_log_close(&none), SR_OK);
	/* "SR_EINVAL for NULL" */
	cr_expect_eq(sr_log_flush(NULL), SR_EINVAL);
	sr_log_counters stats;
	cr_expect_eq(sr_log_stats(NULL, &stats), SR_EINVAL);

	callback_state st;
	memset(&st, 0, sizeof st);
	sr_log *log = open_callback(&st, SR_LOG_LAYOUT_MESSAGE);
	cr_expect_eq(sr_log_stats(log, NULL), SR_EINVAL);
	SR_INFO(sr_log_root(log), "first");
	cr_expect_eq(sr_log_flush(log), SR_OK);
	cr_expect(st.called);
	cr_expect_eq(st.close_rc, SR_ESTATE, "close from the consumer thread");
	cr_expect_eq(st.shutdown_rc, SR_ESTATE, "shutdown from the consumer thread");
	cr_expect_eq(st.flush_rc, SR_ESTATE, "flush from the consumer thread");
	cr_expect_str_eq(st.line, "first\n", "the logger survived its own sink's calls");

	/* Shutdown: idempotent; afterwards flush and categories are SR_ESTATE, logging a no-op. */
	cr_expect_eq(sr_log_shutdown(log), SR_OK);
	cr_expect_eq(sr_log_shutdown(log), SR_OK);
	cr_expect_eq(sr_log_flush(log), SR_ESTATE);
	sr_error err = fresh_error();
	cr_expect_null(sr_log_category_get(log, "late", &err));
	EXPECT_ERR(err, SR_ESTATE, "shut down");
	cr_expect_eq(sr_log_category(log, "late"), &sr_category_off);
	err = fresh_error();
	cr_expect_eq(sr_log_set_level(log, "late", SR_LOG_DEBUG, &err), SR_ESTATE);
	EXPECT_ERR(err, SR_ESTATE, "shut down");
	SR_ERROR(sr_log_root(log), "after shutdown");
	/* The default logger is cleared when it is closed. */
	sr_log_set_default(log);
	cr_expect_eq(sr_log_default(), log);
	cr_expect_eq(sr_log_close(&log), SR_OK);
	cr_expect_null(log);
	cr_expect_null(sr_log_default());
	cr_expect_eq(sr_log_close(&log), SR_OK, "twice is harmless");
}

Test(api_errors, log_category_names, .timeout = 20)
{
	callback_state st;
	memset(&st, 0, sizeof st);
	st.called = true;           /* no calls back into the logger here */
	sr_log *log = open_callback(&st, SR_LOG_LAYOUT_MESSAGE);
	char long_name[300];
	memset(long_name, 'n', 256);
	long_name[256] = '\0';
	static const char *const bad[] = {
		".", "a.", ".a", "a..b", "a b", "a,b", "a=b", "tab\there", "del\x7f", "new\nline",
		"broken\xc3", "c1\xc2\x85", "overlong\xc0\xaf", "surrogate\xed\xa0\x80",
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		sr_error err = fresh_error();
		cr_expect_null(sr_log_category_get(log, bad[i], &err), "'%s'", bad[i]);
		char quoted[64];
		snprintf(quoted, sizeof quoted, "category name '%s'", bad[i]);
		EXPECT_ERR(err, SR_EINVAL, quoted);
		/* never NULL: a refused name gives &sr_category_off (and says so on stderr) */
		cr_expect_eq(sr_log_category(log, bad[i]), &sr_category_off);
		err = fresh_error();
		cr_expect_eq(sr_log_set_level(log, bad[i][0] == '\0' ? "a..b" : bad[i], SR_LOG_DEBUG, &err),
		    SR_EINVAL);
		cr_expect_eq(err.code, SR_EINVAL);
	}
	/* 256 characters: too long; 255: fine. */
	sr_error err = fresh_error();
	cr_expect_null(sr_log_category_get(log, long_name, &err));
	EXPECT_ERR(err, SR_EINVAL, "category name 'nnnn", "255");
	long_name[255] = '\0';
	cr_expect_not_null(sr_log_category_get(log, long_name, NULL));
	/* NULL: a bad name; a NULL logger: SR_EINVAL. */
	err = fresh_error();
	cr_expect_null(sr_log_category_get(log, NULL, &err));
	cr_expect_eq(err.code, SR_EINVAL);
	err = fresh_error();
	cr_expect_null(sr_log_category_get(NULL, "net", &err));
	EXPECT_ERR(err, SR_EINVAL, "NULL");
	cr_expect_eq(sr_log_category(log, NULL), &sr_category_off);
	/* A NULL logger's handle is never written, and says why (test_log_category_names.c). */
	cr_expect_eq(sr_log_root(NULL), sr_log_category(NULL, "net"));
	cr_expect_eq(sr_category_level(sr_log_category(NULL, "net")), SR_LOG_OFF);
	/* UTF-8 names and "" (the root) are accepted. */
	cr_expect_not_null(sr_log_category_get(log, "caf\xc3\xa9.\xe6\x97\xa5\xe6\x9c\xac", NULL));
	cr_expect_eq(sr_log_category_get(log, "", NULL), sr_log_root(log));
	/* The off handle: every macro on it is a no-op. */
	SR_FATAL(&sr_category_off, "never %s", "written");
	cr_expect_eq(sr_category_level(&sr_category_off), SR_LOG_OFF);
	sr_log_close(&log);
	SC_ASSERT_NO_LEAKS();
}

Test(api_errors, log_set_level_bad_levels, .timeout = 20)
{
	callback_state st;
	memset(&st, 0, sizeof st);
	st.called = true;
	sr_log *log = open_callback(&st, SR_LOG_LAYOUT_MESSAGE);
	static const int bad[] = { SR_LOG_OFF + 1, -2, INT_MAX, INT_MIN };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char named[32];
		snprintf(named, sizeof named, "level %d", bad[i]);
		sr_error err = fresh_error();
		cr_expect_eq(sr_log_set_level(log, "net", bad[i], &err), SR_EINVAL);
		EXPECT_ERR(err, SR_EINVAL, named);
		err = fresh_error();
		cr_expect_eq(sr_log_set_level(log, NULL, bad[i], &err), SR_EINVAL, "root");
		EXPECT_ERR(err, SR_EINVAL, named);
	}
	/* "SR_LOG_INHERIT ... not allowed for the root" (NULL or "") */
	sr_error err = fresh_error();
	cr_expect_eq(sr_log_set_level(log, NULL, SR_LOG_INHERIT, &err), SR_EINVAL);
	EXPECT_ERR(err, SR_EINVAL, "root");
	err = fresh_error();
	cr_expect_eq(sr_log_set_level(log, "", SR_LOG_INHERIT, &err), SR_EINVAL);
	EXPECT_ERR(err, SR_EINVAL, "root");
	/* Nothing changed by the refused calls. */
	cr_expect_eq(sr_category_level(sr_log_category(log, "net")), SR_LOG_INFO);
	sr_log_close(&log);
}

Test(api_errors, log_thread_names_null_empty_and_long, .timeout = 20)
{
	callback_state st;
	memset(&st, 0, sizeof st);
	st.called = true;
	sr_log *log = open_callback(&st, SR_LOG_LAYOUT_TEXT);
	/* "1 to 15 bytes are kept" */
	sr_log_thread_name("a-thread-name-far-longer-than-fifteen-bytes");
	SR_INFO(sr_log_root(log), "long");
	cr_assert_eq(sr_log_flush(log), SR_OK);
	cr_expect(strstr(st.line, "[a-thread-name-f]") != NULL, "%s", st.line);
	/* "NULL or \"\" goes back to the default" (main thread: "main") */
	sr_log_thread_name(NULL);
	SR_INFO(sr_log_root(log), "null");
	cr_assert_eq(sr_log_flush(log), SR_OK);
	cr_expect(strstr(st.line, "[main]") != NULL, "%s", st.line);
	sr_log_thread_name("x");
	sr_log_thread_name("");
	SR_INFO(sr_log_root(log), "empty");
	cr_assert_eq(sr_log_flush(log), SR_OK);
	cr_expect(strstr(st.line, "[main]") != NULL, "%s", st.line);
	sr_log_close(&log);
}
