/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file sr_wait.h
 * @ingroup wait_strategies
 * @brief How a consumer spends its time waiting for a sequence.
 *
 * (How a
 * producer spends its time facing a full ring, sr_backoff_pause, is in
 * sr_backoff.h, which this header includes.)
 *
 * Wait strategies are data, not callbacks (ARCHITECTURE.md, decision 6): an
 * sr_wait_config names a kind and its parameters, an sr_wait adds the word
 * the blocking kinds sleep on (a futex), and the waiting loop is
 * a switch in sr_wait_for; the polling kinds step along an sr_backoff_ladder
 * (sr_backoff.h) built from the config at init.  The trade-offs (figures in
 * the README and perf/README.md):
 *
 *  busyspin  re-reads the sequence with a pause hint.  Lowest latency; burns a
 *            whole core even when idle.  It yields once every
 *            SR_BACKOFF_SPINNER_YIELD_EVERY (1024) fruitless reads, which costs
 *            nothing on a core of its own and lets its producer run when the
 *            scheduler put both on one core.  Publishers never signal.
 *  yield     spins spin_tries times (100), then sched_yield() between reads.
 *            Low latency, gives the core to runnable threads, still ~100% CPU
 *            when nothing else wants it.  Publishers never signal.
 *  sleep     spin_tries (100) spins, then yield_tries (100) yields, then
 *            nanosleep(sleep_ns) between reads (default 100 ns, but the kernel
 *            rounds a sleep up to its timer slack, tens of microseconds).
 *            Little idle CPU (each wake-up costs some), and the latency after
 *            a quiet spell is the real sleep time.  Publishers never signal.
 *  block     sleeps until woken, as the Disruptor's BlockingWaitStrategy
 *            (a lock and a condition variable there, a futex here), but a
 *            publisher wakes the waiters only when a waiter has announced
 *            that it is going to sleep (as liteblock, which it now equals),
 *            not on every publish: with several producers the lock the
 *            Disruptor takes on each publish is contended on most of them.  No idle CPU; while the consumer is
 *            awake a publish costs a fence and a load.
 *  liteblock a waiter announces that it is about to sleep and a publisher
 *            signals only then; while the consumer is awake, a publish costs
 *            a fence and a load, no lock and no system call.
 *  timeout   liteblock whose waits end at least every timeout_ns (default
 *            10 ms, as Log4j 2), so a lost signal costs at most that much and
 *            the consumer gets a periodic SR_ETIMEDOUT (the logger flushes
 *            there).  Signalling as liteblock, unlike Log4j 2's Timeout, whose
 *            publishers always lock and signal.
 *  phased    spins for spin_ns, yields until spin_ns + yield_ns, then waits
 *            as its fallback kind (liteblock by default; block, timeout or
 *            sleep).  Low latency for bursts, no idle CPU after a quiet spell.
 *
 * A consumer that follows other consumers (ndeps > 0) and blocks first waits
 * for the cursor, then polls for the consumers ahead of it along a fixed
 * ladder (100 spins, 100 yields, then 1 us sleeps): consumers do not signal.
 *
 * Every kind honours the alert flag of its barrier: sr_wait_signal_all wakes
 * even a waiter asleep in block, liteblock or timeout at once.
 *
 * A multi-producer consumer whose next sequence is claimed but not yet
 * published waits for its availability flag the same way
 * (sr_wait_for_publish): the blocking kinds sleep, sleep naps.  A claim that
 * is never published stalls the consumer for ever, but costs it no core.
 */
#ifndef SR_WAIT_H
#define SR_WAIT_H

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "sr_atomic.h"
#include "sr_backoff.h"
#include "sr_error.h"
#include "sr_export.h"
#include "sr_sequence.h"
#include "sr_time.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief The wait strategies (see the file's description for their trade-offs). */
enum sr_wait_kind {
	/** busyspin: re-reads the sequence with a pause hint */
	SR_WAIT_BUSY_SPIN = 0,
	/** yield: spins spin_tries times, then sched_yield() between reads */
	SR_WAIT_YIELD,
	/** sleep: spins, yields, then nanosleep(sleep_ns) between reads */
	SR_WAIT_SLEEP,
	/** block: sleeps until a publisher wakes it (signalling as liteblock) */
	SR_WAIT_BLOCK,
	/** liteblock: as block, publishers signal only a waiter about to sleep */
	SR_WAIT_LITE_BLOCK,
	/** timeout: liteblock whose waits end at least every timeout_ns */
	SR_WAIT_TIMEOUT,
	/** phased: spins for spin_ns, yields for yield_ns, then waits as its fallback */
	SR_WAIT_PHASED,
	/** the number of kinds (not a kind) */
	SR_WAIT_KIND_COUNT
};

/** @brief A wait strategy as data: its kind and its parameters (defaults in parentheses). */
typedef struct sr_wait_config {
	/** the strategy */
	enum sr_wait_kind kind;
	int32_t spin_tries;       /**< yield, sleep: spins before yielding (100) */
	int32_t yield_tries;      /**< sleep: yields before sleeping (100) */
	int64_t sleep_ns;         /**< sleep: requested park time (100 ns) */
	int64_t timeout_ns;       /**< timeout (and phased->timeout): 10 ms */
	int64_t spin_ns;          /**< phased: time spent spinning (10 us) */
	int64_t yield_ns;         /**< phased: time then spent yielding (100 us) */
	enum sr_wait_kind fallback; /**< phased: block, liteblock, timeout, sleep */
} sr_wait_config;

/** @brief The largest spin_tries and yield_tries, also quoted by error messages. */
#define SR_WAIT_MAX_TRIES 1000000
/** @brief The longest duration of a wait config (60 s), also quoted by error messages. */
#define SR_WAIT_MAX_NS (INT64_C(60) * 1000000000)

/**
 * @brief Fills *config with kind and that kind's documented defaults.
 *
 * The defaults: spin_tries 100, yield_tries 100, sleep_ns 100, timeout_ns 10 ms,
 * spin_ns 10 us, yield_ns 100 us, fallback liteblock (every field is set, whatever the kind).
 * @param config The config to fill; not NULL.
 * @param kind The strategy (not checked here: sr_wait_config_validate does).
 */
SR_API void sr_wait_config_default(sr_wait_config *config, enum sr_wait_kind kind);

/**
 * @brief Parses a strategy by name, with optional parameters.
 *
 *   "busyspin" | "yield[:spin=N]" | "sleep[:spin=N,yield=N,sleep=DUR]"
 *   | "block" | "liteblock" | "timeout[:timeout=DUR]"
 *   | "phased[:spin=DUR,yield=DUR,fallback=NAME,timeout=DUR,sleep=DUR]"
 * Names are case-insensitive; DUR is an integer with unit ns, us, ms or s.
 * Parameters not given keep the kind's defaults (sr_wait_config_default); the
 * result is checked as sr_wait_config_validate does.
 * @param spec The spec, e.g. "timeout:timeout=5ms"; NUL-terminated.
 * @param config Receives the parsed config; unchanged on failure.
 * @param err Receives the message on failure; may be NULL.
 * @retval SR_OK *config holds the strategy.
 * @retval SR_EINVAL spec or config is NULL, or an unknown name, key or bad value
 *         (the message lists what is valid), or a value out of range.
 */
SR_API int sr_wait_config_parse(const char *spec, sr_wait_config *config, sr_error *err);

/**
 * @brief Checks every parameter against its range.
 *
 * The ranges: spin_tries and yield_tries 0 to SR_WAIT_MAX_TRIES, sleep_ns 1 ns to 60 s,
 * timeout_ns 1 us to 60 s, spin_ns and yield_ns 0 to 60 s; a phased fallback is block,
 * liteblock, timeout or sleep.
 * @param config The config to check.
 * @param err Receives the message on failure; may be NULL.
 * @retval SR_OK Every parameter is in range.
 * @retval SR_EINVAL config is NULL, its kind is invalid or a parameter is out of
 *         range (the message names the bad one and its range).
 */
SR_API int sr_wait_config_validate(const sr_wait_config *config, sr_error *err);

/**
 * @brief Writes the canonical spec of config (parsable by sr_wait_config_parse).
 * @param config The config to format; not NULL.
 * @param buf Receives the NUL-terminated spec.
 * @param size The size of buf in bytes.
 * @retval SR_OK buf holds the whole spec.
 * @retval SR_EINVAL The spec does not fit in size bytes (buf holds it truncated).
 */
SR_API int sr_wait_config_format(const sr_wait_config *config, char *buf, size_t size);

/**
 * @brief The name of a kind, as sr_wait_config_parse accepts it.
 * @param kind The kind.
 * @return "busyspin", "yield", ...; "unknown" for an invalid kind (a static string, never NULL).
 */
SR_API const char *sr_wait_kind_name(enum sr_wait_kind kind);

/** @brief How a publisher must signal: decided once at init. */
enum sr_wait_signal_mode {
	SR_SIGNAL_NONE,      /**< busyspin, yield, sleep, phased->sleep */
	SR_SIGNAL_IF_NEEDED  /**< block, liteblock, timeout, phased->block|liteblock|timeout */
};

/**
 * @brief A wait strategy ready to wait on: its config, its ladders, and the word the
 * blocking kinds sleep on (sr_wait_init, sr_wait_destroy).
 *
 * It holds no pointer and no process-private lock, so a sequencer placed in a mapping
 * shared between processes carries its wait strategy with it.
 *
 * The fields belong to sr_wait_init and the wait functions; read them, do not write them.
 */
typedef struct sr_wait {
	/** the validated config */
	sr_wait_config config;
	/** how a publisher must signal */
	enum sr_wait_signal_mode signal_mode;
	enum sr_wait_kind sleeping_kind; /**< kind after phased's spin/yield */
	/* The ladders, set from config at init (sr_wait_for polls along them): */
	sr_backoff_ladder polling;    /**< busyspin, yield, sleep (and phased's sleep fallback) */
	sr_backoff_ladder phased;     /**< phased: spin_ns, then yield_ns, timed; then it blocks */
	sr_backoff_ladder dependents; /**< after a block: polling for upstream consumers */
	/**
	 * block/liteblock/timeout: where waiters announce sleep and sleep.  On
	 * its own line: waiters write it, every publisher reads it.
	 */
	struct {
		/** padding: the line is the waiters' own */
		char pad_before[SR_CACHELINE];
		/** 1 when a waiter may be about to sleep (it announced it) */
		sr_atomic_i32 announced;
		/**
		 * The word waiters sleep on (a futex): every wake adds one, so a
		 * waiter that read it before a wake does not fall asleep after it.
		 */
		sr_atomic_i32 wakes;
		/** the rest of the line */
		char pad_after[SR_CACHELINE - 2 * sizeof(int32_t)];
	} __attribute__((aligned(SR_CACHELINE))) sleepers;
	/**
	 * 1 when waiters and publishers may be in different processes (the wait
	 * lives in a mapping shared between them): the futex is keyed by the
	 * page, not by this process's address.
	 */
	int32_t process_shared;
} sr_wait;

/**
 * @brief Validates config and initialises w.
 * @param w The strategy to initialise (its previous contents are ignored).
 * @param config The strategy's config, copied (checked as sr_wait_config_validate does).
 * @param err Receives the message on failure; may be NULL.
 * @retval SR_OK w is ready; release it with sr_wait_destroy.
 * @retval SR_EINVAL w is NULL or config is NULL or invalid.
 */
SR_API int sr_wait_init(sr_wait *w, const sr_wait_config *config, sr_error *err);
/**
 * @brief Releases w (nothing to free today: kept so that callers stay correct if a
 * strategy ever owns a resource).
 *
 * No thread may be waiting on w.
 * @param w A strategy initialised by sr_wait_init; NULL does nothing.
 */
SR_API void sr_wait_destroy(sr_wait *w);

/*
 * Out-of-line slow paths (sr_wait.c).  sr_wait__block sleeps until *watched
 * (the cursor's value, or one availability flag of a multi-producer
 * sequencer) reaches `sequence`; pre_spin pauses are spent re-reading it
 * before it announces sleep.
 */
SR_API int sr_wait__block(sr_wait *w, int64_t sequence, const sr_atomic_i64 *watched,
    const sr_atomic_i32 *alert, enum sr_wait_kind kind, int pre_spin);
SR_API void sr_wait__wake(sr_wait *w);

/**
 * @brief Wakes every waiter of any kind (used by barrier alert).
 *
 * Changes the word waiters sleep on before it wakes them, so that a waiter
 * between its alert check and its sleep cannot miss it.
 * @param w The strategy; not NULL.
 */
SR_API void sr_wait_signal_all(sr_wait *w);

/**
 * @brief Wakes the waiters that need it, after a publish.
 *
 * Called by a publisher after its store-release of the cursor (or of the
 * availability flags).  Costs nothing for the spinning kinds, and a
 * StoreLoad fence plus one load for block, liteblock and timeout unless a
 * waiter has announced it is going to sleep.
 * @param w The strategy; not NULL.
 */
static inline void
sr_wait_signal(sr_wait *w)
{
	switch (w->signal_mode) {
	case SR_SIGNAL_NONE:
		return;
	case SR_SIGNAL_IF_NEEDED:
		/*
		 * Dekker hand-off: the publisher stored the cursor, then reads
		 * sleepers.announced; the waiter wrote it (exchange, a full
		 * barrier) then reads the cursor.  The fence keeps this load from
		 * passing the cursor store, so one of the two sees the other.
		 */
		sr_atomic_fence_seq_cst();
		if (sr_atomic_load_relaxed_i32(&w->sleepers.announced) != 0 &&
		    sr_atomic_exchange_i32(&w->sleepers.announced, 0) != 0)
			sr_wait__wake(w);
		return;
	}
}

/* The lowest of the dependent sequences, or the cursor when there are none. */
static inline int64_t
sr_wait__available(const sr_sequence *cursor, const sr_sequence *const *deps, int ndeps)
{
	if (ndeps == 0)
		return sr_sequence_get(cursor); /* pairs with the publisher's release */
	int64_t lowest = INT64_MAX;
	for (int i = 0; i < ndeps; i++) {
		/* pairs with the upstream processor's sr_sequence_set */
		int64_t v = sr_sequence_get(deps[i]);
		if (v < lowest)
			lowest = v;
	}
	return lowest;
}

/*
 * Pauses spent on an availability flag before sleeping on it: a claimed
 * sequence is normally published a few stores after its claim.
 */
#define SR_WAIT__PUBLISH_SPIN 64

/* sr_wait__poll's result when a ladder without a sleep phase has run out. */
#define SR_WAIT__LADDER_ENDED 1

/*
 * Polls along ladder until `sequence` is available (SR_OK, *available set),
 * *alert is set (SR_EALERTED) or the ladder runs out (SR_WAIT__LADDER_ENDED).
 */
static inline int
sr_wait__poll(const sr_backoff_ladder *ladder, int64_t sequence, const sr_sequence *cursor,
    const sr_sequence *const *deps, int ndeps, const sr_atomic_i32 *alert, int64_t *available)
{
	sr_backoff b;
	sr_backoff_start(&b, ladder);
	for (;;) {
		/* pairs with the alerting thread's store-release (sr_barrier_alert) */
		if (sr_atomic_load_acquire_i32(alert))
			return SR_EALERTED;
		int64_t avail = sr_wait__available(cursor, deps, ndeps);
		if (avail >= sequence) {
			*available = avail;
			return SR_OK;
		}
		if (!sr_backoff_step(&b, ladder))
			return SR_WAIT__LADDER_ENDED;
	}
}

/**
 * @brief Waits until `sequence` is available.
 *
 * Available: the cursor (and, when ndeps > 0, every
 * dependent sequence) has reached it.  On SR_OK, *available holds the highest
 * available sequence, which may be past `sequence` (that is what makes
 * batching possible).  Returns SR_EALERTED as soon as *alert is non-zero, and
 * SR_ETIMEDOUT when a timeout strategy's timeout passes first.
 *
 * For a multi-producer sequencer the cursor is the highest *claimed*
 * sequence; the barrier narrows the result to what is published.
 * @param w The strategy; not NULL.
 * @param sequence The sequence to wait for.
 * @param cursor The producers' cursor.
 * @param deps The sequences of the consumers this one follows; may be NULL when ndeps is 0.
 * @param ndeps How many deps there are, 0 or more.
 * @param alert The alert flag: the wait ends as soon as it is non-zero.
 * @param available Receives the highest available sequence on SR_OK.
 * @retval SR_OK sequence is available; *available is set.
 * @retval SR_EALERTED *alert was set.
 * @retval SR_ETIMEDOUT The timeout strategy's timeout passed first.
 */
static inline int
sr_wait_for(sr_wait *w, int64_t sequence, const sr_sequence *cursor,
    const sr_sequence *const *deps, int ndeps, const sr_atomic_i32 *alert,
    int64_t *available)
{
	enum sr_wait_kind kind = w->config.kind;

	/* Fast path: already there, whatever the strategy. */
	int64_t avail = sr_wait__available(cursor, deps, ndeps);
	if (avail >= sequence) {
		*available = avail;
		return SR_OK;
	}

	if (kind == SR_WAIT_PHASED) {
		int rc = sr_wait__poll(&w->phased, sequence, cursor, deps, ndeps, alert, available);
		if (rc != SR_WAIT__LADDER_ENDED)
			return rc;
		kind = w->sleeping_kind;
	}

	switch (kind) {
	case SR_WAIT_BUSY_SPIN:
	case SR_WAIT_YIELD:
	case SR_WAIT_SLEEP:
		/* Their ladders never end: spin, yield or sleep for ever. */
		return sr_wait__poll(&w->polling, sequence, cursor, deps, ndeps, alert, available);
	case SR_WAIT_BLOCK:
	case SR_WAIT_LITE_BLOCK:
	case SR_WAIT_TIMEOUT:
	default: {
		/*
		 * Sleep until the producers' cursor reaches sequence (publishers
		 * wake the sleepers); then, if this consumer follows
		 * other consumers, poll for them along the dependents' ladder,
		 * since consumers do not signal (as in the Disruptor).
		 */
		int rc = sr_wait__block(w, sequence, &cursor->value, alert, kind, 0);
		if (rc != SR_OK)
			return rc;
		return sr_wait__poll(&w->dependents, sequence, cursor, deps, ndeps, alert, available);
	}
	}
}

/**
 * @brief Waits until *flag >= sequence.
 *
 * For a multi-producer consumer whose cursor
 * shows `sequence` claimed but whose availability flag `flag` shows it not
 * yet published.  Every kind waits as it waits for the cursor: the blocking
 * kinds sleep on the futex (the publisher of that flag
 * signals after storing it), sleep naps, the spinning kinds spin.  A claim
 * that is never published therefore costs a blocked consumer no CPU.
 * @param w The strategy; not NULL.
 * @param sequence The sequence whose publication is awaited.
 * @param flag The availability flag that shows it published.
 * @param alert The alert flag: the wait ends as soon as it is non-zero.
 * @retval SR_OK sequence is published.
 * @retval SR_EALERTED *alert was set.
 * @retval SR_ETIMEDOUT The timeout kind's timeout passed first.
 */
static inline int
sr_wait_for_publish(sr_wait *w, int64_t sequence, const sr_atomic_i64 *flag,
    const sr_atomic_i32 *alert)
{
	enum sr_wait_kind kind = w->config.kind;
	if (kind == SR_WAIT_PHASED)
		kind = w->sleeping_kind; /* the phased spin already ran on the cursor */
	switch (kind) {
	case SR_WAIT_BLOCK:
	case SR_WAIT_LITE_BLOCK:
	case SR_WAIT_TIMEOUT:
		return sr_wait__block(w, sequence, flag, alert, kind, SR_WAIT__PUBLISH_SPIN);
	default: {
		sr_backoff b;
		sr_backoff_start(&b, &w->polling);
		for (;;) {
			/* pairs with the alerting thread's store-release (sr_barrier_alert) */
			if (sr_atomic_load_acquire_i32(alert))
				return SR_EALERTED;
			/* pairs with the publisher's store-release of the flag */
			if (sr_atomic_load_acquire_i64(flag) >= sequence)
				return SR_OK;
			sr_backoff_step(&b, &w->polling);
		}
	}
	}
}

#ifdef __cplusplus
}
#endif

#endif /* SR_WAIT_H */
