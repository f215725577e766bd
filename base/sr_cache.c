/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_cache.c: whether this CPU can evict a cache line without ordering,
 * and up to how many bytes of rings it is worth it (sr_cache_internal.h).
 */
#include "sr_cache_internal.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

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

/* A small number read from a sysfs file ("3", "32768K"), with its unit; 0 when absent. */
static size_t
read_sysfs_size(const char *path)
{
	FILE *f = fopen(path, "re");
	if (f == NULL)
		return 0;
	char text[32];
	bool got = fgets(text, sizeof text, f) != NULL;
	fclose(f);
	if (!got)
		return 0;
	char *end;
	errno = 0;
	unsigned long long n = strtoull(text, &end, 10);
	if (end == text || errno != 0)
		return 0;
	char unit = *end;
	unsigned long long scale = unit == 'K' ? 1ULL << 10 : unit == 'M' ? 1ULL << 20 : unit == 'G' ? 1ULL << 30 : 1;
	return (size_t)(n * scale);
}

/*
 * The last-level cache's bytes as the kernel describes cpu0's caches, 0
 * when it does not.  Not sysconf(_SC_LEVEL3_CACHE_SIZE): glibc computes it
 * from CPUID, which under some hypervisors reports the host's whole L3.
 */
static size_t
last_level_cache_bytes(void)
{
	size_t level_seen = 0, bytes = 0;
	for (int i = 0; i < 8; i++) {
		char path[96];
		snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
		size_t level = read_sysfs_size(path);
		if (level == 0)
			break;
		if (level < level_seen)
			continue;
		snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
		size_t size = read_sysfs_size(path);
		if (size > 0) {
			level_seen = level;
			bytes = size;
		}
	}
	return bytes;
}

size_t
sr_cache__evict_limit(void)
{
	if (!sr_cache__can_evict())
		return 0;
	size_t llc = last_level_cache_bytes();
	return llc > 0 ? llc / 2 : (size_t)8 << 20;
}
