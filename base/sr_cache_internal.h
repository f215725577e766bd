/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_cache_internal.h: handing cache lines a consumer has finished with back
 * to memory.
 *
 * A single-producer ring small enough to stay in the caches has a cost on
 * the producer's side: the lines it writes were read by the consumer one
 * lap earlier and still sit in the consumer's caches, so each store to a
 * new line waits for the consumer's copy to be invalidated, a transfer
 * between cores that the stream prefetcher does not hide.  A consumer that
 * evicts each line once it has read it (CLFLUSHOPT: unordered, it does not
 * stall the consumer) leaves the producer a line it fetches from memory,
 * which the prefetcher does hide.  docs/caller-path.md has the measurement.
 *
 * Where the instruction is missing (other CPUs, old x86, valgrind, which
 * hides it) sr_cache__can_evict says so and the consumer does nothing; a
 * consumer whose rings are bigger than the caches gains nothing from it
 * (sr_cache__evict_limit).
 */
#ifndef SR_CACHE_INTERNAL_H
#define SR_CACHE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "sr_atomic.h"

/* Whether this CPU has CLFLUSHOPT (CPUID leaf 7, EBX bit 23); false on other CPUs. */
bool sr_cache__can_evict(void);

/*
 * The most bytes of rings a consumer may read in a lap and still gain by
 * evicting the lines it has read: under that, a producer coming back a lap
 * later would find its lines in the consumer's caches; over it, they are
 * back in memory by then, and evicting them would only cost the consumer the
 * instructions and the write-backs (docs/caller-path.md has both
 * measurements).  Half the last-level cache, 8 MiB where its size is
 * unknown; 0 where this CPU cannot evict.
 */
size_t sr_cache__evict_limit(void);

/*
 * Evicts the cache lines of [p, p + bytes) from every cache, written back
 * if dirty; the memory's contents are unchanged.  p is line-aligned.  Call
 * only where sr_cache__can_evict() said true.
 */
static inline void
sr_cache__evict(const void *p, size_t bytes)
{
#if defined(__x86_64__) || defined(__i386__)
	const char *line = (const char *)p;
	for (size_t off = 0; off < bytes; off += SR_CACHELINE)
		__asm__ volatile("clflushopt %0" : : "m"(line[off]));
#else
	(void)p;
	(void)bytes;
#endif
}

#endif /* SR_CACHE_INTERNAL_H */
