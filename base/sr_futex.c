/* SPDX-License-Identifier: Apache-2.0 */
/* sr_futex.c: the futex(2) calls behind the blocking waits (sr_futex_internal.h). */
#include "sr_futex_internal.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sr_error.h"
#include "sr_time.h"

int
sr_futex__wait(sr_atomic_i32 *word, int32_t expected, int64_t deadline_ns, bool process_shared)
{
	/*
	 * FUTEX_WAIT_BITSET takes an absolute deadline on CLOCK_MONOTONIC, so a
	 * wait interrupted and restarted keeps its deadline.
	 */
	int op = FUTEX_WAIT_BITSET | (process_shared ? 0 : FUTEX_PRIVATE_FLAG);
	struct timespec ts;
	const struct timespec *deadline = NULL;
	if (deadline_ns != INT64_MAX) {
		ts = sr_timespec_from_ns(deadline_ns < 0 ? 0 : deadline_ns);
		deadline = &ts;
	}
	long rc = syscall(SYS_futex, (int32_t *)word, op, expected, deadline, NULL,
	    FUTEX_BITSET_MATCH_ANY);
	if (rc == -1 && errno == ETIMEDOUT)
		return SR_FUTEX__TIMED_OUT;
	/* woken, EAGAIN (the word had changed) or EINTR: the caller looks again */
	return SR_OK;
}

void
sr_futex__wake_all(sr_atomic_i32 *word, bool process_shared)
{
	int op = FUTEX_WAKE | (process_shared ? 0 : FUTEX_PRIVATE_FLAG);
	syscall(SYS_futex, (int32_t *)word, op, INT_MAX, NULL, NULL, 0);
}
