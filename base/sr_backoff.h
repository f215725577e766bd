/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file sr_backoff.h
 * @ingroup base
 * @brief The spin -> yield -> sleep ladder of everything in seqring
 * that waits by polling.
 *
 * A thread that polls for a condition (a sequence to advance, space in the
 * ring) calls sr_backoff_step after each failed look.  Each step is one
 * rung of a ladder:
 *   spin   a pause hint (sr_atomic_pause): the fastest reaction, a whole
 *          core busy;
 *   yield  sched_yield(): gives the core to a runnable thread, still busy
 *          when nothing else wants it;
 *   sleep  sr_sleep_ns(sleep_ns): frees the core; the reaction is as late as
 *          the kernel's wake-up (the timer slack rounds a sleep up).
 * An sr_backoff_ladder says how long each phase lasts; an sr_backoff is one
 * poller's position on it, so one ladder may serve many threads.
 *
 * A ladder counts its phases in steps or, when `timed`, in nanoseconds of
 * CLOCK_MONOTONIC from sr_backoff_start.  A timed ladder reads the clock only
 * every SR_BACKOFF_CLOCK_STEPS-th step, which stands in for that step's
 * pause; it yields on that step too once the spin time is over, and pauses
 * on the others.  A ladder without a sleep phase (sleep_ns 0) ends after its
 * yield phase: sr_backoff_step returns false and the caller moves on (the
 * phased wait strategy then blocks).
 *
 * A spin phase that never ends (the busyspin wait strategy's) yields once
 * every SR_BACKOFF_SPINNER_YIELD_EVERY fruitless steps: free when the
 * spinner has a core of its own (nothing else is runnable there), and the
 * only way the thread it waits for gets to run when the scheduler put both
 * on one core (a spinner that never yields holds it for its whole time
 * slice, every time: in one process, 16 M events/s instead of 160 M).
 *
 * Everything is static inline: a step is on the poller's hot path.  Not
 * async-signal-safe as a whole (sched_yield is not listed by POSIX).
 */
#ifndef SR_BACKOFF_H
#define SR_BACKOFF_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

#include "sr_atomic.h"
#include "sr_time.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Fruitless steps of a never-ending spin phase between two sched_yield() calls. */
#define SR_BACKOFF_SPINNER_YIELD_EVERY 1024

/** @brief A phase length that never ends (spin or yield for ever). */
#define SR_BACKOFF_FOREVER INT64_MAX

/** @brief A timed ladder reads the clock every this many steps (a power of two). */
#define SR_BACKOFF_CLOCK_STEPS 64

/** @brief How long each phase of a spin -> yield -> sleep ladder lasts; shared by any number of pollers. */
typedef struct sr_backoff_ladder {
	int64_t spin;      /**< spin phase: steps (or ns when timed), or SR_BACKOFF_FOREVER */
	int64_t yield;     /**< then the yield phase: steps (or ns), or SR_BACKOFF_FOREVER */
	int64_t sleep_ns;  /**< then every step sleeps this long; 0: no sleep phase, the ladder ends */
	bool timed;        /**< spin and yield are nanoseconds since sr_backoff_start */
	bool spin_doubles; /**< counted spin step k pauses 2^k times, not once (k up to 31) */
} sr_backoff_ladder;

/** @brief One poller's position on a ladder (its fields belong to sr_backoff_start and sr_backoff_step). */
typedef struct sr_backoff {
	uint32_t step;       /**< steps taken (counting on, wrapping, in a FOREVER spin); stays put in a FOREVER yield phase and in the sleep phase */
	bool past_yield;     /**< timed: the yield time is over */
	int64_t spin_until;  /**< timed: CLOCK_MONOTONIC end of the spin phase */
	int64_t yield_until; /**< timed: end of the yield phase */
} sr_backoff;

/** @brief The initialiser of an sr_backoff at the start of any counted ladder (a timed one needs sr_backoff_start). */
#define SR_BACKOFF_INIT { 0, false, 0, 0 }

static inline int64_t
sr_backoff__add_sat(int64_t a, int64_t b)
{
	return b > INT64_MAX - a ? INT64_MAX : a + b;
}

/**
 * @brief Puts b at the top of ladder; for a timed ladder, reads the clock (vDSO).
 * @param b The poller's position, overwritten.
 * @param ladder The ladder b will climb; not NULL.
 */
static inline void
sr_backoff_start(sr_backoff *b, const sr_backoff_ladder *ladder)
{
	b->step = 0;
	b->past_yield = false;
	b->spin_until = 0;
	b->yield_until = 0;
	if (ladder->timed) {
		b->spin_until = sr_backoff__add_sat(sr_monotonic_ns(), ladder->spin);
		b->yield_until = sr_backoff__add_sat(b->spin_until, ladder->yield);
	}
}

/* The sleep phase: sleeps, or ends a ladder that has none. */
static inline bool
sr_backoff__sleep(const sr_backoff_ladder *ladder)
{
	if (ladder->sleep_ns <= 0)
		return false;
	sr_sleep_ns(ladder->sleep_ns);
	return true;
}

static inline bool
sr_backoff__timed_step(sr_backoff *b, const sr_backoff_ladder *ladder)
{
	if (b->past_yield)
		return sr_backoff__sleep(ladder);
	if ((++b->step & (SR_BACKOFF_CLOCK_STEPS - 1)) != 0) {
		sr_atomic_pause();
		return true;
	}
	int64_t now = sr_monotonic_ns();
	if (now >= b->yield_until) {
		b->past_yield = true;
		return sr_backoff__sleep(ladder);
	}
	if (now >= b->spin_until)
		sched_yield();
	return true;
}

/**
 * @brief Takes the next step of ladder from b's position: pauses, yields or sleeps.
 * @param b The poller's position (SR_BACKOFF_INIT or sr_backoff_start), advanced.
 * @param ladder The ladder b was started on; not NULL.
 * @return true, or false once a ladder without a sleep phase has run out (b stays
 *         there: every further call returns false).
 */
static inline bool
sr_backoff_step(sr_backoff *b, const sr_backoff_ladder *ladder)
{
	if (ladder->timed)
		return sr_backoff__timed_step(b, ladder);
	int64_t step = b->step;
	if (step < ladder->spin) {
		if (ladder->spin_doubles) {
			/* a never-ending spin counts its steps only to yield: it doubles nothing */
			int64_t k = ladder->spin == SR_BACKOFF_FOREVER ? 0 : step;
			uint32_t pauses = UINT32_C(1) << (k < 31 ? k : 31);
			for (uint32_t i = 0; i < pauses; i++)
				sr_atomic_pause();
		} else {
			sr_atomic_pause();
		}
		if (ladder->spin != SR_BACKOFF_FOREVER)
			b->step++;
		else if ((++b->step & (SR_BACKOFF_SPINNER_YIELD_EVERY - 1)) == 0)
			sched_yield(); /* a spinner that shares its core lets the other thread run */
		return true;
	}
	if (step - ladder->spin < ladder->yield) {
		sched_yield();
		if (ladder->yield != SR_BACKOFF_FOREVER)
			b->step++;
		return true;
	}
	return sr_backoff__sleep(ladder);
}

/**
 * @brief Steps SR_BACKOFF_SPIN_STEPS of the producer's ladder for a full ring spin, with doubling pauses.
 *
 * The producer's ladder for a full ring (sr_sequencer's claims, a
 * processor's drain): spins with a doubling number of pauses, then yields,
 * then naps, so that a blocked producer stops burning the core its consumer
 * needs.  Start at SR_BACKOFF_INIT, call sr_backoff_pause per failed look.
 */
#define SR_BACKOFF_SPIN_STEPS 10   /**< 1 + 2 + ... + 512 pauses */
/** @brief Steps the producer's ladder for a full ring yields after its spin phase. */
#define SR_BACKOFF_YIELD_STEPS 50
/** @brief Nanoseconds each later step of the producer's ladder for a full ring sleeps. */
#define SR_BACKOFF_NAP_NS 20000

/**
 * @brief Takes the next step of the producer's ladder for a full ring (spin, yield, then nap).
 * @param b The poller's position, started at SR_BACKOFF_INIT; advanced.
 */
static inline void
sr_backoff_pause(sr_backoff *b)
{
	const sr_backoff_ladder full_ring = {
		SR_BACKOFF_SPIN_STEPS, SR_BACKOFF_YIELD_STEPS, SR_BACKOFF_NAP_NS, false, true
	};
	(void)sr_backoff_step(b, &full_ring);
}

#ifdef __cplusplus
}
#endif

#endif /* SR_BACKOFF_H */
