/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_cache.c: whether this CPU can evict a cache line without ordering
 * (sr_cache_internal.h).
 */
#include "sr_cache_internal.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

bool
sr_cache__can_evict(void)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned eax, ebx, ecx, edx;
	/* Leaf 7, subleaf 0: structured extended features; EBX bit 23 is CLFLUSHOPT. */
	if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) == 0)
		return false;
	return (ebx & (1u << 23)) != 0;
#else
	return false;
#endif
}
