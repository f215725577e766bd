/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_time.c: the cold parts of the time module: sleeping, probing the TSC
 * and measuring its rate.
 */
#include "sr_time.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#if SR_HAVE_TSC
#include <cpuid.h>
#endif

#define CLOCKSOURCE_DIR "/sys/devices/system/clocksource/clocksource0/"
#define SAMPLE_MAX_TRIES 1000
/* Samples at each end of a calibration. */
#define CALIBRATE_TRIES 5

int64_t
sr_time__monotonic_ns(void)
{
	return sr_monotonic_ns();
}

int64_t
sr_time__realtime_ns(void)
{
	return sr_realtime_ns();
}

int64_t
sr_time__realtime_coarse_ns(void)
{
	return sr_realtime_coarse_ns();
}

void
sr_sleep_ns(int64_t ns)
{
	struct timespec ts = sr_timespec_from_ns(ns > 0 ? ns : 0);
	nanosleep(&ts, NULL);
}

bool
sr_tsc_invariant(void)
{
#if SR_HAVE_TSC
	unsigned eax, ebx, ecx, edx;
	/* Leaf 0x80000000 gives the highest extended leaf. */
	if (__get_cpuid(0x80000000u, &eax, &ebx, &ecx, &edx) == 0 || eax < 0x80000007u)
		return false;
	__cpuid(0x80000007u, eax, ebx, ecx, edx);
	return (edx & (1u << 8)) != 0;
#else
	return false;
#endif
}

#if SR_HAVE_TSC
/*
 * Reads a sysfs file of whitespace-separated names and says whether "tsc" is
 * among them: 1 yes, 0 no, -1 unreadable.  open/read/close only, so that it
 * stays async-signal-safe.
 */
static int
lists_tsc(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	char buf[512];
	size_t len = 0;
	for (;;) {
		ssize_t n = read(fd, buf + len, sizeof buf - 1 - len);
		if (n <= 0)
			break;
		len += (size_t)n;
		if (len == sizeof buf - 1)
			break;
	}
	close(fd);
	buf[len] = '\0';
	for (char *p = buf; *p != '\0';) {
		while (*p == ' ' || *p == '\n' || *p == '\t')
			p++;
		char *word = p;
		while (*p != '\0' && *p != ' ' && *p != '\n' && *p != '\t')
			p++;
		if (p - word == 3 && memcmp(word, "tsc", 3) == 0)
			return 1;
	}
	return 0;
}
#endif

enum sr_tsc_clocksource
sr_tsc_clocksource(void)
{
#if SR_HAVE_TSC
	int current = lists_tsc(CLOCKSOURCE_DIR "current_clocksource");
	if (current == 1)
		return SR_TSC_CLOCKSOURCE_CURRENT;
	int available = lists_tsc(CLOCKSOURCE_DIR "available_clocksource");
	if (available == 1)
		return SR_TSC_CLOCKSOURCE_AVAILABLE;
	if (current < 0 && available < 0)
		return SR_TSC_CLOCKSOURCE_UNKNOWN;
	return SR_TSC_CLOCKSOURCE_UNLISTED;
#else
	return SR_TSC_CLOCKSOURCE_UNLISTED;
#endif
}

int
sr_tsc_sample_clock(int clock_id, int tries, sr_tsc_sample *out)
{
	if (out == NULL)
		return SR_EINVAL;
	out->tsc = 0;
	out->ns = 0;
	out->width = 0;
	if (!SR_HAVE_TSC || tries < 1 || tries > SAMPLE_MAX_TRIES)
		return SR_EINVAL;
	int64_t best = INT64_MAX;
	for (int i = 0; i < tries; i++) {
		struct timespec ts;
		int64_t before = sr_tsc_read_fenced();
		int rc = clock_gettime((clockid_t)clock_id, &ts);
		int64_t after = sr_tsc_read_fenced();
		if (rc != 0) {
			out->tsc = 0;
			out->ns = 0;
			return SR_EINVAL;
		}
		if (after - before < best) {
			best = after - before;
			out->tsc = before + (after - before) / 2;
			out->ns = sr_timespec_to_ns(&ts);
			out->width = best;
		}
	}
	return SR_OK;
}

int
sr_tsc_calibrate(int64_t window_ns, double *ticks_per_ns, sr_error *err)
{
	if (!SR_HAVE_TSC)
		return sr_error_set(err, SR_EINVAL,
		    "TSC calibration: this build has no time-stamp counter (it needs an x86 CPU)");
	if (ticks_per_ns == NULL)
		return sr_error_set(err, SR_EINVAL, "TSC calibration: the result pointer is NULL");
	if (window_ns < SR_TSC_CALIBRATE_MIN_NS || window_ns > SR_TSC_CALIBRATE_MAX_NS)
		return sr_error_set(err, SR_EINVAL,
		    "TSC calibration window %lld ns is out of range: expected 1 us to 60 s",
		    (long long)window_ns);
	sr_tsc_sample start, end;
	if (sr_tsc_sample_clock(CLOCK_MONOTONIC, CALIBRATE_TRIES, &start) != SR_OK)
		return sr_error_set(err, SR_ESYS, "TSC calibration: clock_gettime(CLOCK_MONOTONIC) failed");
	for (;;) {
		int64_t left = start.ns + window_ns - sr_monotonic_ns();
		if (left <= 0)
			break;
		sr_sleep_ns(left);
	}
	if (sr_tsc_sample_clock(CLOCK_MONOTONIC, CALIBRATE_TRIES, &end) != SR_OK)
		return sr_error_set(err, SR_ESYS, "TSC calibration: clock_gettime(CLOCK_MONOTONIC) failed");
	int64_t ticks = end.tsc - start.tsc, ns = end.ns - start.ns;
	if (ticks <= 0 || ns <= 0)
		return sr_error_set(err, SR_ESYS,
		    "TSC calibration failed: tsc %lld -> %lld over %lld ns of CLOCK_MONOTONIC: "
		    "expected both to advance", (long long)start.tsc, (long long)end.tsc, (long long)ns);
	double rate = (double)ticks / (double)ns;
	if (!(rate > 0.01 && rate < 100))
		return sr_error_set(err, SR_ESYS,
		    "TSC calibration gave %.4g ticks per ns (%lld ticks over %lld ns): "
		    "expected 0.01 to 100", rate, (long long)ticks, (long long)ns);
	*ticks_per_ns = rate;
	return SR_OK;
}
