/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_support.h: shared by the libFuzzer targets of tests/fuzz.
 *
 * FUZZ_CHECK(cond, fmt, ...) fails the input (abort: libFuzzer saves it as a
 * crash) with a message saying which property broke.  fuzz_reader hands out
 * the fuzz input's bytes, and zeros once they run out, so that every input
 * decodes to something.
 */
#ifndef SEQRING_FUZZ_SUPPORT_H
#define SEQRING_FUZZ_SUPPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_CHECK(cond, ...) do { \
	if (!(cond)) { \
		fprintf(stderr, "%s:%d: property failed: %s\n  ", __FILE__, __LINE__, #cond); \
		fprintf(stderr, __VA_ARGS__); \
		fputc('\n', stderr); \
		abort(); \
	} \
} while (0)

typedef struct fuzz_reader {
	const uint8_t *p;
	size_t n;
} fuzz_reader;

static inline void
fuzz_take(fuzz_reader *r, void *dst, size_t len)
{
	size_t k = len < r->n ? len : r->n;
	memcpy(dst, r->p, k);
	memset((unsigned char *)dst + k, 0, len - k);
	r->p += k;
	r->n -= k;
}

static inline uint8_t
fuzz_u8(fuzz_reader *r)
{
	uint8_t v;
	fuzz_take(r, &v, 1);
	return v;
}

static inline uint32_t
fuzz_u32(fuzz_reader *r)
{
	uint32_t v;
	fuzz_take(r, &v, 4);
	return v;
}

static inline uint64_t
fuzz_u64(fuzz_reader *r)
{
	uint64_t v;
	fuzz_take(r, &v, 8);
	return v;
}

/* A heap copy of len bytes plus a NUL, exactly sized so that ASan sees any over-read. */
static inline char *
fuzz_strndup_exact(const void *src, size_t len)
{
	char *s = malloc(len + 1);
	if (s == NULL)
		abort();
	memcpy(s, src, len);
	s[len] = '\0';
	return s;
}

#endif /* SEQRING_FUZZ_SUPPORT_H */
