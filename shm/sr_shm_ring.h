/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file sr_shm_ring.h
 * @ingroup shm
 * @brief A ring, its sequencer and its consumers' sequences in one mapping shared between processes.
 *
 * One process creates the ring by name (sr_shm_ring_create); others open it
 * by name (sr_shm_ring_open).  A name of the form "/NAME" (one slash, at the
 * start) is POSIX shared memory (shm_open, under /dev/shm); any other name
 * with a slash ("/var/run/app/feed.ring", "./feed.ring") is a file, which
 * outlives a crash of every process for inspection.  The mapping holds no
 * pointer: everything in it is found by offsets, so each process may map it
 * at its own address.  A header with a magic number, a layout version and
 * every size is checked at open; a mapping of another version or layout is
 * refused with a message that names it, what was found and what was expected.
 *
 * In the mapping: the slots, a sequencer (single or multi producer, as
 * sr_sequencer.h, its wait strategy working across processes: the blocking
 * kinds sleep on a futex keyed by the shared page), and a registry of
 * participants.  Producers join (sr_shm_producer.h) and claim and publish as
 * in one process; consumers join by index (sr_shm_consumer.h) and consume
 * with an sr_processor or an sr_poller whose sequence lives in the mapping.
 *
 * Death.  Each participant holds a lock on a byte of the mapping's file
 * (an open-file-description lock, F_OFD_SETLK) for as long as it is joined:
 * the kernel releases it when the process dies, however it dies, and only
 * then; no pid is compared, so a reused pid cannot pass for a live peer, and
 * no heartbeat has to be written.  A reaper (a thread of every handle, unless
 * the options turn it off, or sr_shm_ring_check) tests those locks every
 * quarter of the liveness bound (default 1 s):
 *  - a dead producer's claimed, unpublished sequences are published as
 *    skipped (consumers pass over them: sr_processor calls on_skip) and
 *    counted as abandoned (on a single-producer ring they were never
 *    visible: the next producer claims them again); a slot a producer was
 *    writing when it died is never delivered, whole or half-written, nor is
 *    part of a claim whose publish the death cut;
 *  - a dead consumer is dropped: its sequence is set beyond every sequence,
 *    so that producers and the consumers that follow it no longer wait for
 *    it, and counted; a consumer that joins its index again starts after the
 *    cursor (the events published meanwhile are not delivered to it);
 *  - a consumer that rejoins its index before it was dropped resumes after
 *    the last sequence it recorded as handled: the event it was handling when
 *    it died is delivered again (at least once).
 * A participant that is alive but stopped (SIGSTOP, a debugger) is alive:
 * others wait for it as in one process.
 *
 * A handle and its participants belong to the process that made them: a
 * child forked afterwards must neither use nor close them (it would leave
 * its parent's participants), and while it lives it holds their liveness
 * locks open, so that they outlive a parent that dies before it.  The name
 * may be removed (sr_shm_ring_unlink) once every process has opened it:
 * joining does not need it.
 */
#ifndef SR_SHM_RING_H
#define SR_SHM_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sr_error.h"
#include "sr_export.h"
#include "sr_ring.h"
#include "sr_sequencer.h"
#include "sr_wait.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief The most producers and consumers a shared ring registers (each). */
#define SR_SHM_MAX_PARTICIPANTS 256

/** @brief The layout version this library writes and reads. */
#define SR_SHM_LAYOUT_VERSION 1

/** @brief What sr_shm_ring_create builds (fill it with sr_shm_ring_config_default first). */
typedef struct sr_shm_ring_config {
	int64_t slot_count;         /**< a power of two, 2 to SR_RING_MAX_SLOT_COUNT */
	size_t slot_size;           /**< a multiple of 8 up to SR_RING_MAX_SLOT_SIZE */
	/** single producer (one producer process at a time) or multi producer */
	enum sr_producer_mode mode;
	sr_wait_config wait;        /**< consumers' wait strategy (default block) */
	bool synchronize_enqueue_when_full; /**< as sr_sequencer_config (default true) */
	int32_t max_producers;      /**< producers registered at once, 1 to SR_SHM_MAX_PARTICIPANTS (16) */
	int32_t max_consumers;      /**< consumer indexes, 1 to SR_SHM_MAX_PARTICIPANTS (16) */
	/** how long a dead participant may hold the others up, 1 ms to 60 s (1 s) */
	int64_t liveness_bound_ns;
	mode_t permissions;         /**< of the new mapping (0600) */
} sr_shm_ring_config;

/** @brief What the reaper did (sr_shm_ring_options.on_reap). */
enum sr_shm_reap_kind {
	/** a dead producer's claimed, unpublished sequences were published as skipped */
	SR_SHM_REAP_PRODUCER = 1,
	/** a dead consumer was dropped */
	SR_SHM_REAP_CONSUMER = 2
};

/** @brief Process-local choices of a handle (sr_shm_ring_options_default). */
typedef struct sr_shm_ring_options {
	/** run a reaper thread for this handle (default true); without it, call sr_shm_ring_check */
	bool reaper_thread;
	/**
	 * Optional: called by the reaper (on its thread, or sr_shm_ring_check's
	 * caller) for each dead participant it handled: its kind, its index,
	 * and the sequences abandoned (producer) or the sequence it had handled
	 * (consumer).
	 */
	void (*on_reap)(void *ctx, enum sr_shm_reap_kind kind, int index, int64_t count);
	/** passed to on_reap */
	void *ctx;
} sr_shm_ring_options;

/** @brief What sr_shm_ring_status reports. */
typedef struct sr_shm_ring_status {
	int64_t cursor;               /**< the sequencer's cursor */
	int64_t abandoned_sequences;  /**< published as skipped after their producer died */
	int64_t dead_producers;       /**< producers found dead */
	int64_t dropped_consumers;    /**< consumers found dead and dropped */
	int32_t producers;            /**< producers joined and alive now */
	int32_t consumers;            /**< consumers joined and alive now */
} sr_shm_ring_status;

/** @brief An open shared ring: this process's handle on the mapping. */
typedef struct sr_shm_ring sr_shm_ring;

/**
 * @brief Fills config with the defaults: the geometry given, block, 16 and 16 participants, 1 s, 0600.
 * @param config The config to fill; not NULL.
 * @param slot_count Slots in the ring (checked by sr_shm_ring_create).
 * @param slot_size Bytes per slot (checked by sr_shm_ring_create).
 * @param mode Single or multi producer.
 */
SR_API void sr_shm_ring_config_default(sr_shm_ring_config *config, int64_t slot_count,
    size_t slot_size, enum sr_producer_mode mode);

/**
 * @brief Fills options with the defaults: a reaper thread, no callback.
 * @param options The options to fill; not NULL.
 */
SR_API void sr_shm_ring_options_default(sr_shm_ring_options *options);

/**
 * @brief Creates a shared ring under name; the name must not exist.
 * @param name "/NAME" for POSIX shared memory, or a file path with a slash.
 * @param config What to build; copied.
 * @param options This handle's options; NULL for the defaults.
 * @param err Receives the code and message on failure; may be NULL.
 * @return The handle, to close with sr_shm_ring_close; NULL on failure with err filled:
 *         SR_EINVAL for a NULL or malformed name or a config out of range (the message
 *         names the field, its value and its range); SR_ESYS when the name exists, the
 *         directory does not, permissions refuse it or the mapping cannot be made
 *         (the message has the name and the errno text); SR_ENOMEM.
 */
SR_API sr_shm_ring *sr_shm_ring_create(const char *name, const sr_shm_ring_config *config,
    const sr_shm_ring_options *options, sr_error *err);

/**
 * @brief Opens a shared ring that another process (or this one) created.
 * @param name As given to sr_shm_ring_create.
 * @param options This handle's options; NULL for the defaults.
 * @param err Receives the code and message on failure; may be NULL.
 * @return The handle; NULL on failure with err filled: SR_EINVAL for a malformed name;
 *         SR_ESYS when it does not exist or permissions refuse it (errno text);
 *         SR_EFORMAT when it is not a seqring ring of this layout: a wrong magic number,
 *         another layout version, a truncated mapping, sizes or offsets that do not agree
 *         (the message names the field, what was found and what was expected), or a
 *         creator that never finished (no magic number after 1 s); SR_ENOMEM.
 */
SR_API sr_shm_ring *sr_shm_ring_open(const char *name, const sr_shm_ring_options *options,
    sr_error *err);

/**
 * @brief Closes a handle: stops its reaper, leaves the participants still joined through it
 * (as sr_shm_producer_leave and sr_shm_consumer_leave), unmaps, sets *ring to NULL.
 *
 * Their pointers are invalid afterwards: halt their processors and pollers first.  Not from
 * the handle's own on_reap callback.
 *
 * The mapping stays, for other processes and later opens, until sr_shm_ring_unlink.
 * @param ring The handle's address; NULL or a NULL handle does nothing.
 */
SR_API void sr_shm_ring_close(sr_shm_ring **ring);

/**
 * @brief Removes a ring's name; processes that have it open keep their mappings.
 * @param name As given to sr_shm_ring_create.
 * @param err Receives the code and message on failure; may be NULL.
 * @retval SR_OK Removed.
 * @retval SR_EINVAL name is NULL or malformed.
 * @retval SR_ESYS It does not exist or cannot be removed (errno text).
 */
SR_API int sr_shm_ring_unlink(const char *name, sr_error *err);

/**
 * @brief The ring's slots, as this process maps them (sr_ring.h's functions read and write them).
 * @param ring The handle; not NULL.
 * @return The ring view, owned by the handle: never pass it to sr_ring_destroy.
 */
SR_API sr_ring *sr_shm_ring_slots(sr_shm_ring *ring);

/**
 * @brief The sequencer in the mapping (for sr_sequencer_cursor and the consumers' barriers).
 *
 * Producers claim and publish through their sr_shm_producer, not through it.
 * @param ring The handle; not NULL.
 * @return The sequencer, owned by the mapping: never pass it to sr_sequencer_destroy.
 */
SR_API sr_sequencer *sr_shm_ring_sequencer(sr_shm_ring *ring);

/**
 * @brief One pass of the reaper now: dead producers' claims abandoned, dead consumers dropped.
 * @param ring The handle; not NULL.
 * @return How many dead participants this pass handled, or a negative SR_E* code
 *         (SR_ESYS when the liveness locks cannot be tested).
 */
SR_API int sr_shm_ring_check(sr_shm_ring *ring);

/**
 * @brief Reads the ring's counters and who is joined.
 * @param ring The handle; not NULL.
 * @param status Receives them; not NULL.
 * @retval SR_OK *status is filled.
 * @retval SR_EINVAL ring or status is NULL.
 */
SR_API int sr_shm_ring_status_get(sr_shm_ring *ring, sr_shm_ring_status *status);

#ifdef __cplusplus
}
#endif

#endif /* SR_SHM_RING_H */
