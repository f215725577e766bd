/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_futex_internal.h: sleeping on a 32-bit word until another thread,
 * perhaps in another process, changes it and wakes the sleepers.
 *
 * The blocking wait strategies sleep here instead of on a condition
 * variable: a futex is a word and nothing else, so it works unchanged in a
 * mapping shared between processes (the kernel keys a shared futex by the
 * page and offset, not by the address), and a sleeper that dies leaves no
 * state behind for the others to repair, unlike a condition variable whose
 * internal counters would still count it.  `process_shared` selects the key:
 * false adds FUTEX_PRIVATE_FLAG (a cheaper lookup, this process only).
 */
#ifndef SR_FUTEX_INTERNAL_H
#define SR_FUTEX_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "sr_atomic.h"

/* sr_futex__wait's results, besides SR_OK (woken, or the word had changed). */
#define SR_FUTEX__TIMED_OUT 1

/*
 * Sleeps while *word == expected, until woken, the deadline (CLOCK_MONOTONIC
 * ns; INT64_MAX: none) passes, or a signal interrupts.  Returns SR_OK when it
 * may have been woken or the word differed (the caller re-checks its
 * condition: wake-ups may be spurious), SR_FUTEX__TIMED_OUT when the
 * deadline passed.
 */
int sr_futex__wait(sr_atomic_i32 *word, int32_t expected, int64_t deadline_ns, bool process_shared);

/* Wakes every thread asleep on word. */
void sr_futex__wake_all(sr_atomic_i32 *word, bool process_shared);

#endif /* SR_FUTEX_INTERNAL_H */
