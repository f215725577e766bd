/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_ring.c: the ring's storage (sr_ring.h), its sequence counter
 * (sr_sequence.h), the atomics layer (sr_atomic.h) and error values
 * (sr_error.h).
 */
#include <criterion/criterion.h>

#include "test_support.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <seqring/sr_atomic.h>
#include <seqring/sr_error.h>
#include <seqring/sr_ring.h>
#include <seqring/sr_sequence.h>

/* ---- creation and validation ---------------------------------------- */

static void
expect_refused(int64_t slot_count, size_t slot_size, const char *needle)
{
	sr_error err;
	sr_error_clear(&err);
	sr_ring *ring = sr_ring_create(slot_count, slot_size, NULL, NULL, &err);
	cr_assert_null(ring, "ring of %lld x %zu was accepted", (long long)slot_count, slot_size);
	cr_assert_eq(err.code, SR_EINVAL, "code %d for %lld x %zu", err.code, (long long)slot_count,
	    slot_size);
	cr_assert(strstr(err.message, needle) != NULL,
	    "message \"%s\" does not contain \"%s\"", err.message, needle);
}

Test(ring, refuses_bad_slot_counts_naming_the_value)
{
	expect_refused(0, 8, "slot_count 0 is invalid");
	expect_refused(1, 8, "slot_count 1 is invalid");
	expect_refused(3, 8, "slot_count 3 is invalid");
	expect_refused(6, 8, "slot_count 6 is invalid");
	expect_refused(1000, 8, "slot_count 1000 is invalid");
	expect_refused(-2, 8, "slot_count -2 is invalid");
	expect_refused(INT64_MIN, 8, "slot_count -9223372036854775808 is invalid");
	expect_refused(INT64_C(1) << 31, 8, "slot_count 2147483648 is invalid");
	expect_refused(INT64_C(1) << 62, 8, "slot_count 4611686018427387904");
	/* The message says what is expected, too. */
	expect_refused(3, 8, "expected a power of two from 2 to 1073741824");
	SC_ASSERT_NO_LEAKS();
}

Test(ring, refuses_bad_slot_sizes_naming_the_value)
{
	expect_refused(8, 0, "slot_size 0 is invalid");
	expect_refused(8, 4, "slot_size 4 is invalid");
	expect_refused(8, 12, "slot_size 12 is invalid");
	expect_refused(8, 65, "slot_size 65 is invalid");
	expect_refused(8, 65536 + 8, "slot_size 65544 is invalid");
	expect_refused(8, SIZE_MAX, "slot_size 18446744073709551615 is invalid");
	expect_refused(8, 12, "expected a multiple of 8 from 8 to 65536");
	/* slot_count is checked first. */
	expect_refused(3, 12, "slot_count 3");
	SC_ASSERT_NO_LEAKS();
}

Test(ring, refuses_without_an_error_struct)
{
	cr_assert_null(sr_ring_create(3, 8, NULL, NULL, NULL));
	cr_assert_null(sr_ring_create(4, 7, NULL, NULL, NULL));
}

Test(ring, accepts_the_limits_and_records_geometry)
{
	sr_error err;
	sr_ring *ring = sr_ring_create(2, 8, NULL, NULL, &err);
	cr_assert_not_null(ring, "2 x 8: %s", err.message);
	cr_assert_eq(ring->slot_count, 2);
	cr_assert_eq(ring->mask, 1);
	cr_assert_eq(ring->slot_size, 8);
	cr_assert_eq(ring->bytes, 16);
	sr_ring_destroy(ring);

	ring = sr_ring_create(4, SR_RING_MAX_SLOT_SIZE, NULL, NULL, &err);
	cr_assert_not_null(ring, "4 x 64 KiB: %s", err.message);
	cr_assert_eq(ring->slot_size, 65536);
	cr_assert_eq(ring->bytes, 4u * 65536u);
	sr_ring_destroy(ring);

	ring = sr_ring_create(1024, 24, NULL, NULL, &err);
	cr_assert_not_null(ring, "1024 x 24: %s", err.message);
	cr_assert_eq(ring->mask, 1023);
	cr_assert_eq(ring->bytes, 1024u * 24u);
	sr_ring_destroy(ring);

	sr_ring_destroy(NULL); /* ignored */
}

Test(ring, storage_is_cache_line_aligned_and_zeroed)
{
	int64_t counts[] = { 2, 4, 64, 4096 };
	size_t sizes[] = { 8, 24, 64, 520 };
	for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
		for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
			sr_ring *ring = sr_ring_create(counts[c], sizes[z], NULL, NULL, NULL);
			cr_assert_not_null(ring);
			cr_assert_eq((uintptr_t)ring->slots % SR_CACHELINE, 0,
			    "slots of %lld x %zu at %p", (long long)counts[c], sizes[z], (void *)ring->slots);
			size_t nonzero = 0;
			for (size_t i = 0; i < ring->bytes; i++)
				nonzero += ring->slots[i] != 0;
			cr_assert_eq(nonzero, 0, "%zu bytes not zeroed", nonzero);
			/* Every byte is writable (ASan checks the bounds). */
			memset(ring->slots, 0xab, ring->bytes);
			sr_ring_destroy(ring);
		}
	}
}

#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
Test(ring, reports_out_of_memory)
{
	/* 2^30 slots of 64 KiB: 64 TiB, more than this machine can commit. */
	sr_error err;
	sr_ring *ring = sr_ring_create(SR_RING_MAX_SLOT_COUNT, SR_RING_MAX_SLOT_SIZE, NULL, NULL, &err);
	if (ring != NULL) {
		sr_ring_destroy(ring);
		cr_skip_test("the kernel committed 64 TiB (overcommit always?)");
	}
	cr_assert_eq(err.code, SR_ENOMEM);
	cr_assert(strstr(err.message, "1073741824 slots of 65536 bytes") != NULL, "%s", err.message);
}
#endif

/* ---- slot addressing ------------------------------------------------ */

Test(ring, slot_address_is_sequence_and_mask)
{
	sr_ring *ring = sr_ring_create(8, 32, NULL, NULL, NULL);
	cr_assert_not_null(ring);
	int64_t bases[] = { 0, 8, 1024, (INT64_C(1) << 62) - 8, (INT64_C(1) << 62),
	    INT64_MAX - 15 };
	for (size_t b = 0; b < sizeof bases / sizeof bases[0]; b++) {
		for (int64_t i = 0; i < 8; i++) {
			int64_t s = bases[b] + i;
			unsigned char *slot = sr_ring_slot(ring, s);
			cr_assert_eq(slot, ring->slots + (size_t)(s & 7) * 32,
			    "sequence %lld maps to offset %td", (long long)s, slot - ring->slots);
			/* s and s + slot_count share a slot; neighbours do not. */
			if (s <= INT64_MAX - 8)
				cr_assert_eq(sr_ring_slot(ring, s + 8), (void *)slot);
			if (s < INT64_MAX)
				cr_assert_neq(sr_ring_slot(ring, s + 1), (void *)slot);
		}
	}
	/* 2^62 + 3 -> slot 3; 2^62 - 1 -> slot 7. */
	cr_assert_eq(sr_ring_slot(ring, (INT64_C(1) << 62) + 3), (void *)(ring->slots + 3 * 32));
	cr_assert_eq(sr_ring_slot(ring, (INT64_C(1) << 62) - 1), (void *)(ring->slots + 7 * 32));
	sr_ring_destroy(ring);
}

Test(ring, slots_for_rounds_up)
{
	sr_ring *ring = sr_ring_create(16, 24, NULL, NULL, NULL);
	cr_assert_not_null(ring);
	/* { bytes, slots of 24 bytes they need } */
	static const int64_t cases[][2] = { { 0, 1 }, { 1, 1 }, { 24, 1 }, { 25, 2 }, { 48, 2 }, { 49, 3 },
		{ 16 * 24, 16 } };
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		cr_assert_eq(sr_ring_slots_for(ring, cases[i][0]), cases[i][1], "%lld bytes",
		    (long long)cases[i][0]);
	sr_ring_destroy(ring);
}

Test(ring, contiguous_bytes_until_the_physical_end)
{
	sr_ring *ring = sr_ring_create(4, 16, NULL, NULL, NULL);
	cr_assert_not_null(ring);
	cr_assert_eq(sr_ring_contiguous_bytes(ring, 0), 64);
	cr_assert_eq(sr_ring_contiguous_bytes(ring, 1), 48);
	cr_assert_eq(sr_ring_contiguous_bytes(ring, 3), 16);
	cr_assert_eq(sr_ring_contiguous_bytes(ring, 4), 64);
	cr_assert_eq(sr_ring_contiguous_bytes(ring, (INT64_C(1) << 62) + 2), 32);
	sr_ring_destroy(ring);
}

/* ---- write and read across the physical end ------------------------- */

static void
fill_pattern(unsigned char *buf, size_t len, unsigned seed)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (unsigned char)(seed * 31u + i * 7u + 1u);
}

/* A zeroed ring of 4 slots of 16 bytes, with len pattern bytes (src) written at sequence s. */
static sr_ring *
ring_with_record(int64_t s, unsigned char *src, size_t len, unsigned seed)
{
	sr_ring *ring = sr_ring_create(4, 16, NULL, NULL, NULL);
	cr_assert_not_null(ring);
	fill_pattern(src, len, seed);
	sr_ring_write(ring, s, src, len);
	return ring;
}

Test(ring, write_without_wrap_lands_in_place)
{
	unsigned char src[32], dst[32];
	sr_ring *ring = ring_with_record(1, src, sizeof src, 1); /* slots 1 and 2 */
	cr_assert_eq(memcmp(ring->slots + 16, src, 32), 0);
	for (size_t i = 0; i < 16; i++)
		cr_assert_eq(ring->slots[i], 0, "slot 0 touched at byte %zu", i);
	for (size_t i = 48; i < 64; i++)
		cr_assert_eq(ring->slots[i], 0, "slot 3 touched at byte %zu", i);
	memset(dst, 0, sizeof dst);
	sr_ring_read(ring, 5, dst, 32); /* 5 & 3 == 1: the same slots */
	cr_assert_eq(memcmp(dst, src, 32), 0);
	sr_ring_destroy(ring);
}

Test(ring, write_exactly_to_the_end_does_not_wrap)
{
	unsigned char src[32];
	sr_ring *ring = ring_with_record(2, src, sizeof src, 2); /* slots 2 and 3, ends at the last byte */
	cr_assert_eq(memcmp(ring->slots + 32, src, 32), 0);
	for (size_t i = 0; i < 32; i++)
		cr_assert_eq(ring->slots[i], 0, "the start was touched at byte %zu", i);
	sr_ring_destroy(ring);
}

Test(ring, write_and_read_wrap_across_the_physical_end)
{
	unsigned char src[40], dst[40];
	/* Sequence 3 is the last slot: 16 bytes at the end, 24 at the start. */
	sr_ring *ring = ring_with_record(3, src, sizeof src, 3);
	cr_assert_eq(memcmp(ring->slots + 48, src, 16), 0, "head of the record");
	cr_assert_eq(memcmp(ring->slots, src + 16, 24), 0, "tail of the record after the wrap");
	for (size_t i = 24; i < 48; i++)
		cr_assert_eq(ring->slots[i], 0, "byte %zu outside the record was touched", i);
	memset(dst, 0, sizeof dst);
	sr_ring_read(ring, 3, dst, 40);
	cr_assert_eq(memcmp(dst, src, 40), 0);
	sr_ring_destroy(ring);
}

Test(ring, wrapping_records_at_large_sequences)
{
	sr_ring *ring = sr_ring_create(8, 24, NULL, NULL, NULL);
	cr_assert_not_null(ring);
	unsigned char src[100], dst[100];
	int64_t base = (INT64_C(1) << 62) - 3;
	/* Every start slot and every length up to 100 bytes (5 slots). */
	for (int64_t s = base; s < base + 16; s++) {
		for (size_t len = 1; len <= sizeof src; len += 9) {
			fill_pattern(src, len, (unsigned)(s + (int64_t)len));
			sr_ring_write(ring, s, src, len);
			memset(dst, 0xee, sizeof dst);
			sr_ring_read(ring, s, dst, len);
			cr_assert_eq(memcmp(dst, src, len), 0, "sequence %lld, %zu bytes", (long long)s, len);
			if (len < sizeof dst)
				cr_assert_eq(dst[len], 0xee, "read wrote past its length");
			/* Byte i of the record sits at ((s & mask) * size + i) mod bytes. */
			size_t start = (size_t)(s & ring->mask) * ring->slot_size;
			for (size_t i = 0; i < len; i++)
				cr_assert_eq(ring->slots[(start + i) % ring->bytes], src[i],
				    "sequence %lld byte %zu", (long long)s, i);
		}
	}
	sr_ring_destroy(ring);
}

Test(ring, a_record_as_large_as_the_ring_round_trips)
{
	unsigned char src[64], dst[64];
	sr_ring *ring = ring_with_record(6, src, sizeof src, 9); /* starts at slot 2, wraps, ends in slot 1 */
	cr_assert_eq(memcmp(ring->slots + 32, src, 32), 0);
	cr_assert_eq(memcmp(ring->slots, src + 32, 32), 0);
	sr_ring_read(ring, 6, dst, 64);
	cr_assert_eq(memcmp(dst, src, 64), 0);
	sr_ring_destroy(ring);
}

/* ---- the per-slot initialiser --------------------------------------- */

typedef struct init_log {
	int calls;
	int64_t indices[64];
	void *slots[64];
	int fail_at;        /* -1: never */
	int fail_code;
} init_log;

static int
record_init(void *slot, int64_t index, void *ctx)
{
	init_log *log = ctx;
	if (log->calls < 64) {
		log->indices[log->calls] = index;
		log->slots[log->calls] = slot;
	}
	log->calls++;
	if (index == log->fail_at)
		return log->fail_code;
	/* The event factory's job: preset the slot. */
	int64_t *words = slot;
	words[0] = 1000 + index;
	words[1] = -index;
	return 0;
}

/* ---- streamed writers and readers over claimed slots ----------------- */

Test(ring, slots_for_a_power_of_two_slot_size_matches_division)
{
	sr_ring *ring = sr_ring_create(8, 64, NULL, NULL, NULL);
	cr_assert_not_null(ring);
	cr_assert_eq(ring->slot_shift, 6);
	for (size_t bytes = 0; bytes <= 8 * 64; bytes++)
		cr_assert_eq(sr_ring_slots_for(ring, bytes), bytes == 0 ? 1 : (int64_t)((bytes + 63) / 64),
		    "%zu bytes", bytes);
	sr_ring_destroy(ring);
	ring = sr_ring_create(8, 24, NULL, NULL, NULL);
	cr_assert_not_null(ring);
	cr_assert_eq(ring->slot_shift, -1);
	sr_ring_destroy(ring);
}

Test(ring, a_stream_written_in_pieces_reads_back_across_the_physical_end)
{
	sr_ring *ring = sr_ring_create(4, 16, NULL, NULL, NULL);
	cr_assert_not_null(ring);
	/* From sequence 7 (slot 3, the last 16 bytes), 40 bytes in pieces of 5: it wraps once. */
	int64_t first = 7;
	unsigned char src[40], dst[40];
	for (int i = 0; i < 40; i++)
		src[i] = (unsigned char)(i * 7 + 1);
	sr_ring_writer w = sr_ring_stream_at(ring, first);
	for (int i = 0; i < 40; i += 5)
		sr_ring_writer_put(&w, src + i, 5);
	cr_assert_eq(w.pos, 40 - 16, "the writer continues from the start of the array");
	cr_assert_eq(memcmp(ring->slots + 48, src, 16), 0);
	cr_assert_eq(memcmp(ring->slots, src + 16, 24), 0);
	/* Read back in pieces of another size. */
	sr_ring_reader r = sr_ring_stream_at(ring, first);
	for (int i = 0; i < 40; i += 8)
		sr_ring_reader_get(&r, dst + i, 8);
	cr_assert_eq(memcmp(dst, src, 40), 0);
	/* The same bytes through the one-shot copy agree. */
	memset(dst, 0, sizeof dst);
	sr_ring_read(ring, first, dst, 40);
	cr_assert_eq(memcmp(dst, src, 40), 0);
	sr_ring_destroy(ring);
}

Test(ring, peek_gives_bytes_in_place_only_when_they_do_not_wrap)
{
	sr_ring *ring = sr_ring_create(4, 16, NULL, NULL, NULL);
	cr_assert_not_null(ring);
	sr_ring_reader r = sr_ring_stream_at(ring, 2);
	cr_assert_eq(sr_ring_reader_peek(&r, 32), ring->slots + 32, "slots 2 and 3 end at the array's end");
	cr_assert_eq(r.pos, 0, "a peek that ends at the end moves the stream to the start");
	r = sr_ring_stream_at(ring, 3);
	size_t before = r.pos;
	cr_assert_null(sr_ring_reader_peek(&r, 17), "17 bytes from the last slot wrap");
	cr_assert_eq(r.pos, before, "a refused peek does not move the stream");
	sr_ring_destroy(ring);
}

Test(ring, a_linear_writer_never_wraps)
{
	unsigned char buf[64];
	sr_ring_writer w = sr_ring_writer_linear(buf);
	for (int i = 0; i < 64; i++) {
		unsigned char b = (unsigned char)i;
		sr_ring_writer_put(&w, &b, 1);
	}
	cr_assert_eq(w.pos, 64);
	for (int i = 0; i < 64; i++)
		cr_assert_eq(buf[i], (unsigned char)i);
}

Test(ring, initialiser_runs_once_per_slot_in_order)
{
	init_log log = { .fail_at = -1 };
	sr_error err;
	sr_ring *ring = sr_ring_create(16, 32, record_init, &log, &err);
	cr_assert_not_null(ring, "%s", err.message);
	cr_assert_eq(log.calls, 16);
	for (int i = 0; i < 16; i++) {
		cr_assert_eq(log.indices[i], i, "call %d got index %lld", i, (long long)log.indices[i]);
		cr_assert_eq(log.slots[i], sr_ring_slot(ring, i), "call %d got the wrong slot", i);
		const int64_t *words = sr_ring_slot(ring, i);
		cr_assert_eq(words[0], 1000 + i);
		cr_assert_eq(words[1], -i);
		cr_assert_eq(words[2], 0, "the rest of the slot stays zeroed");
	}
	sr_ring_destroy(ring);
}

Test(ring, initialiser_failure_fails_creation)
{
	init_log log = { .fail_at = 5, .fail_code = 7 };
	sr_error err;
	sr_error_clear(&err);
	sr_ring *ring = sr_ring_create(16, 32, record_init, &log, &err);
	cr_assert_null(ring);
	cr_assert_eq(log.calls, 6, "the initialiser ran %d times; it must stop at the failure", log.calls);
	cr_assert_eq(err.code, SR_EINVAL);
	cr_assert(strstr(err.message, "slot initialiser failed with 7 at slot 5") != NULL, "%s",
	    err.message);

	/* Failing at the very first and the very last slot (nothing leaks: ASan). */
	log = (init_log){ .fail_at = 0, .fail_code = -3 };
	cr_assert_null(sr_ring_create(4, 8, record_init, &log, &err));
	cr_assert_eq(log.calls, 1);
	cr_assert(strstr(err.message, "failed with -3 at slot 0") != NULL, "%s", err.message);
	log = (init_log){ .fail_at = 3, .fail_code = 1 };
	cr_assert_null(sr_ring_create(4, 8, record_init, &log, NULL));
	cr_assert_eq(log.calls, 4);
	SC_ASSERT_NO_LEAKS();
}

Test(ring, initialiser_is_not_called_for_invalid_geometry)
{
	init_log log = { .fail_at = -1 };
	cr_assert_null(sr_ring_create(3, 8, record_init, &log, NULL));
	cr_assert_null(sr_ring_create(4, 9, record_init, &log, NULL));
	cr_assert_eq(log.calls, 0);
}

/* ---- sequences and atomics ------------------------------------------ */

Test(sequence, sits_alone_on_its_cache_line)
{
	cr_assert_eq(sizeof(sr_sequence) % SR_CACHELINE, 0);
	cr_assert_geq(offsetof(sr_sequence, value), SR_CACHELINE, "no padding before the value");
	cr_assert_geq(sizeof(sr_sequence) - offsetof(sr_sequence, value), SR_CACHELINE,
	    "the value's line is shared with what follows");
	cr_assert_eq(_Alignof(sr_sequence), SR_CACHELINE);
	sr_sequence pair[2];
	cr_assert_geq((uintptr_t)&pair[1].value - (uintptr_t)&pair[0].value, 2 * SR_CACHELINE);
}

Test(sequence, starts_at_minus_one_and_supports_its_operations)
{
	cr_assert_eq(SR_SEQUENCE_INITIAL, -1);
	sr_sequence s;
	sr_sequence_init(&s, SR_SEQUENCE_INITIAL);
	cr_assert_eq(sr_sequence_get(&s), -1);
	cr_assert_eq(sr_sequence_get_relaxed(&s), -1);
	sr_sequence_set(&s, 41);
	cr_assert_eq(sr_sequence_get(&s), 41);
	sr_sequence_set_fenced(&s, 42);
	cr_assert_eq(sr_sequence_get(&s), 42);
	cr_assert(sr_sequence_cas(&s, 42, 50));
	cr_assert_eq(sr_sequence_get(&s), 50);
	cr_assert_not(sr_sequence_cas(&s, 42, 60), "CAS succeeded with a stale expected value");
	cr_assert_eq(sr_sequence_get(&s), 50);
	cr_assert_eq(sr_sequence_add(&s, 5), 55, "add returns the new value");
	cr_assert_eq(sr_sequence_add(&s, -56), -1);
	int64_t big = (INT64_C(1) << 62) + 12345;
	sr_sequence_init(&s, big);
	cr_assert_eq(sr_sequence_add(&s, 1), big + 1);
	cr_assert(sr_sequence_cas(&s, big + 1, INT64_MAX));
	cr_assert_eq(sr_sequence_get(&s), INT64_MAX);
}

Test(atomic, operations_of_both_widths)
{
	cr_assert(strcmp(SR_ATOMIC_BACKEND, "c11") == 0 || strcmp(SR_ATOMIC_BACKEND, "ck_pr") == 0);
	sr_atomic_i64 a;
	sr_atomic_store_relaxed_i64(&a, -5);
	cr_assert_eq(sr_atomic_load_relaxed_i64(&a), -5);
	sr_atomic_store_release_i64(&a, INT64_MIN);
	cr_assert_eq(sr_atomic_load_acquire_i64(&a), INT64_MIN);
	sr_atomic_store_relaxed_i64(&a, 10);
	cr_assert_eq(sr_atomic_faa_i64(&a, 3), 10, "faa returns the old value");
	cr_assert_eq(sr_atomic_load_relaxed_i64(&a), 13);
	cr_assert(sr_atomic_cas_i64(&a, 13, -1));
	cr_assert_not(sr_atomic_cas_i64(&a, 13, 0));
	cr_assert_eq(sr_atomic_load_acquire_i64(&a), -1);

	sr_atomic_i32 b;
	sr_atomic_store_relaxed_i32(&b, 7);
	cr_assert_eq(sr_atomic_exchange_i32(&b, 9), 7);
	cr_assert_eq(sr_atomic_load_acquire_i32(&b), 9);
	cr_assert_eq(sr_atomic_faa_i32(&b, -10), 9);
	cr_assert_eq(sr_atomic_load_relaxed_i32(&b), -1);
	cr_assert(sr_atomic_cas_i32(&b, -1, 4));
	cr_assert_not(sr_atomic_cas_i32(&b, -1, 5));
	sr_atomic_store_release_i32(&b, 11);
	cr_assert_eq(sr_atomic_load_acquire_i32(&b), 11);

	int x = 3;
	sr_atomic_ptr p;
	sr_atomic_store_release_ptr(&p, &x);
	cr_assert_eq(sr_atomic_load_acquire_ptr(&p), (void *)&x);
	sr_atomic_fence_seq_cst();
	sr_atomic_pause();
}

/* ---- error values --------------------------------------------------- */

Test(error, codes_have_distinct_names)
{
	int codes[] = { SR_OK, SR_EINVAL, SR_ENOMEM, SR_EFULL, SR_ETIMEDOUT, SR_EALERTED, SR_ESTATE,
	    SR_ESYS, SR_EIO, SR_EFORMAT };
	const char *names[] = { "success", "invalid argument", "out of memory",
	    "insufficient capacity", "timed out", "alerted", "wrong state", "system call failed",
	    "write error", "unexpected format" };
	for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
		cr_assert_lt(codes[i], 1, "codes are 0 or negative");
		cr_assert_str_eq(sr_strerror(codes[i]), names[i]);
	}
	cr_assert_str_eq(sr_strerror(-99), "unknown error");
	cr_assert_str_eq(sr_strerror(1), "unknown error");
}

Test(error, set_formats_and_returns_the_code)
{
	sr_error err;
	cr_assert_eq(sr_error_set(&err, SR_EFULL, "ring %s has %d slots", "x", 4), SR_EFULL);
	cr_assert_eq(err.code, SR_EFULL);
	cr_assert_str_eq(err.message, "ring x has 4 slots");
	sr_error_clear(&err);
	cr_assert_eq(err.code, SR_OK);
	cr_assert_str_eq(err.message, "");
	/* NULL is allowed everywhere. */
	cr_assert_eq(sr_error_set(NULL, SR_EIO, "ignored"), SR_EIO);
	sr_error_clear(NULL);
	/* Long messages are truncated, not overflowed. */
	char big[600];
	memset(big, 'z', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	sr_error_set(&err, SR_EINVAL, "%s", big);
	cr_assert_eq(strlen(err.message), SR_ERROR_MESSAGE_MAX - 1);
}
