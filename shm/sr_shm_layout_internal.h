/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_shm_layout_internal.h: the shared ring's mapping, field by field, and
 * this process's handle on it.
 *
 * The mapping, from offset 0 (every region aligned as said; offsets are
 * stored in the header and recomputed from its sizes at open):
 *
 *   0        header (SR_SHM__HEADER_BYTES): identity and its checksum, counters, registry lock
 *   4096     the sr_sequencer (sr_sequencer_internal.h), process-shared
 *   +64      available: slot_count int64 (multi producer only)
 *   +64      skipped: slot_count int64, zero
 *   +128     producers: max_producers sr_shm__producer_entry
 *   +256     consumers: max_consumers sr_shm__consumer_entry
 *   +4096    slots: slot_count * slot_size bytes
 *
 * Nothing in it is a pointer.  Owners and orderings are given field by
 * field below.  "Registry lock" means: changed only under
 * header.registry_lock (robust, process-shared), read without it only
 * where said.
 */
#ifndef SR_SHM_LAYOUT_INTERNAL_H
#define SR_SHM_LAYOUT_INTERNAL_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sr_atomic.h"
#include "sr_ring.h"
#include "sr_sequence.h"
#include "sr_sequencer.h"
#include "sr_shm_ring.h"

/* "SEQRSHM\x01": the first 8 bytes of every shared ring, little-endian. */
#define SR_SHM__MAGIC UINT64_C(0x014d485352514553)
#define SR_SHM__HEADER_BYTES 4096

/* A participant entry's state (registry lock). */
enum sr_shm__state {
	SR_SHM__FREE = 0,     /* nobody: may be joined */
	SR_SHM__ACTIVE = 1,   /* joined; its liveness lock tells whether it lives */
	SR_SHM__DEAD = 2,     /* producer found dead, its claims not all resolved yet */
	SR_SHM__DROPPED = 3   /* consumer found dead: its sequence is SR_SHM__DROPPED_SEQUENCE */
};

/* A dropped consumer's sequence: beyond every sequence, so no minimum sees it. */
#define SR_SHM__DROPPED_SEQUENCE INT64_MAX

typedef struct sr_shm__header {
	/*
	 * Identity: written by the creator before magic, never after; read by
	 * every open after its load-acquire of magic.
	 */
	sr_atomic_i64 magic;          /*   0: SR_SHM__MAGIC, stored last (release) */
	uint32_t layout_version;      /*   8: SR_SHM_LAYOUT_VERSION */
	uint32_t header_bytes;        /*  12: SR_SHM__HEADER_BYTES */
	uint64_t mapping_bytes;       /*  16: the whole mapping */
	int64_t slot_count;           /*  24 */
	uint64_t slot_size;           /*  32 */
	int32_t producer_mode;        /*  40: enum sr_producer_mode */
	int32_t max_producers;        /*  44 */
	int32_t max_consumers;        /*  48 */
	uint32_t sequencer_bytes;     /*  52: sizeof(sr_sequencer) of the creator */
	uint32_t producer_entry_bytes; /* 56: sizeof(sr_shm__producer_entry) */
	uint32_t consumer_entry_bytes; /* 60: sizeof(sr_shm__consumer_entry) */
	int64_t liveness_bound_ns;    /*  64 */
	uint64_t sequencer_offset;    /*  72 */
	uint64_t available_offset;    /*  80: 0 for a single producer */
	uint64_t skipped_offset;      /*  88 */
	uint64_t producers_offset;    /*  96 */
	uint64_t consumers_offset;    /* 104 */
	uint64_t slots_offset;        /* 112 */
	int32_t creator_pid;          /* 120: informative */
	uint32_t mutex_bytes;         /* 124: sizeof(pthread_mutex_t) of the creator */
	/*
	 * 128: FNV-1a of bytes 8 to 127 (every identity field but magic):
	 * written by the creator before magic, checked at open after every
	 * field, so that a change that leaves the fields consistent with each
	 * other (a slot size that still fits its pages) is refused too.
	 */
	uint64_t identity_checksum;
	char pad_identity[SR_CACHELINE - sizeof(uint64_t)];
	/*
	 * Counters, on their own line: added to (fetch-add) by reapers, read
	 * relaxed by sr_shm_ring_status_get.
	 */
	sr_atomic_i64 abandoned_sequences; /* 192 */
	sr_atomic_i64 dead_producers;      /* 200 */
	sr_atomic_i64 dropped_consumers;   /* 208 */
	char pad_lock[SR_CACHELINE - 3 * sizeof(int64_t)];
	/* Joins, leaves and reaps take it: robust, process-shared. 256 */
	pthread_mutex_t registry_lock;
} sr_shm__header;

_Static_assert(offsetof(sr_shm__header, layout_version) == 8, "header layout");
_Static_assert(offsetof(sr_shm__header, slots_offset) == 112, "header layout");
_Static_assert(offsetof(sr_shm__header, mutex_bytes) == 124, "header layout");
_Static_assert(offsetof(sr_shm__header, identity_checksum) == 128, "header layout");
_Static_assert(offsetof(sr_shm__header, abandoned_sequences) == 192, "header layout");
_Static_assert(offsetof(sr_shm__header, registry_lock) == 256, "header layout");
_Static_assert(sizeof(sr_shm__header) <= SR_SHM__HEADER_BYTES, "the header fits its page");

/*
 * A producer's entry: two lines, so that the adjacent-line prefetcher does
 * not pull one producer's note into another's cache.
 */
typedef struct sr_shm__producer_entry {
	sr_atomic_i32 state;      /* 0: enum sr_shm__state (registry lock; reapers read it under it) */
	int32_t pid;              /* 4: the joiner's (informative: liveness is the lock) */
	/*
	 * 8: the lowest sequence this producer may own unpublished, INT64_MAX
	 * when none.  Written by the producer alone: relaxed before its claim's
	 * CAS (sr_sequencer__claim_multi_noting), store-release after its
	 * publish (pairs with the reaper's load-acquire, which comes after its
	 * load-acquire of the cursor and before its look at the flags).
	 */
	sr_atomic_i64 claim_from;
	/*
	 * 16: the last sequence of that claim; below claim_from when unknown
	 * (not yet written, or stale).  Written by the producer alone
	 * (store-release, after claim_from: sr_shm_producer__note_oldest);
	 * read by reapers once the producer is dead, to skip the whole of a
	 * claim whose publish (hi down to lo) a death cut in the middle.
	 */
	sr_atomic_i64 claim_to;
	/*
	 * 24: written by the reaper that finds the producer dead (registry
	 * lock): the cursor then, at or above every sequence it claimed; its
	 * entry is freed once everything up to there is published or
	 * abandoned.
	 */
	int64_t resolve_to;
	char pad[2 * SR_CACHELINE - 32];
} __attribute__((aligned(2 * SR_CACHELINE))) sr_shm__producer_entry;

_Static_assert(sizeof(sr_shm__producer_entry) == 128, "producer entry layout");

/* A consumer's entry: its sequence (padded as every sr_sequence), then its registration. */
typedef struct sr_shm__consumer_entry {
	/*
	 * 0 (128 bytes: a line of padding, then the value's line): the last sequence handled.  Written by the consumer's processor or
	 * poller (store-release after handling), by a join (before the entry is
	 * ACTIVE, under the registry lock) and by a reaper that drops it
	 * (SR_SHM__DROPPED_SEQUENCE, release); read with load-acquire by
	 * producers (gating), by the consumers that follow it, and by reapers.
	 */
	sr_sequence sequence;
	sr_atomic_i32 state;      /* 128: enum sr_shm__state (registry lock) */
	int32_t pid;              /* 132: the joiner's (informative) */
	int32_t gating;           /* 136: 1 once its sequence is a gating sequence of the sequencer (registry lock) */
	char pad[4 * SR_CACHELINE - 140];
} __attribute__((aligned(4 * SR_CACHELINE))) sr_shm__consumer_entry;

_Static_assert(offsetof(sr_shm__consumer_entry, state) == 128, "consumer entry layout");
_Static_assert(sizeof(sr_shm__consumer_entry) == 256, "consumer entry layout");

/* Where each region starts, from the geometry alone (sr_shm__layout). */
typedef struct sr_shm__offsets {
	uint64_t sequencer, available, skipped, producers, consumers, slots, total;
} sr_shm__offsets;

/* Computes the offsets; the geometry must have been checked (no overflow is possible then). */
void sr_shm__layout(int64_t slot_count, size_t slot_size, int mode, int32_t max_producers,
    int32_t max_consumers, sr_shm__offsets *out);

/* This process's handle on a mapping. */
struct sr_shm_ring {
	char name[PATH_MAX];
	bool is_file;             /* a file path, not POSIX shared memory */
	int fd;                   /* the handle's own descriptor: it tests liveness locks, holds none */
	unsigned char *base;      /* the mapping */
	size_t bytes;
	sr_shm__header *header;
	sr_sequencer *sequencer;
	sr_ring ring;             /* a view of the slots */
	sr_shm__producer_entry *producers;
	sr_shm__consumer_entry *consumers;
	sr_shm_ring_options options;
	/* the reaper thread (sr_shm_reaper.c) */
	pthread_t reaper;
	bool reaper_running;
	bool reaper_stop;         /* under reaper_lock */
	pthread_mutex_t reaper_lock;
	pthread_cond_t reaper_wake;
	/* the participants joined through this handle, left at close (joined_lock) */
	pthread_mutex_t joined_lock;
	struct sr_shm_producer *joined_producers[SR_SHM_MAX_PARTICIPANTS];
	struct sr_shm_consumer *joined_consumers[SR_SHM_MAX_PARTICIPANTS];
};

/* The liveness lock's byte for a producer or consumer index (sr_shm_liveness.c). */
#define SR_SHM__PRODUCER_LOCK(i) ((off_t)(i))
#define SR_SHM__CONSUMER_LOCK(j) ((off_t)SR_SHM_MAX_PARTICIPANTS + (off_t)(j))

/*
 * Opens a descriptor of its own on the ring's mapping and takes the lock
 * of `byte` on it, for as long as the descriptor is open: SR_OK with *fd
 * set, SR_ESTATE when a live process holds it, SR_ESYS otherwise.
 */
int sr_shm__liveness_hold(const sr_shm_ring *ring, off_t byte, int *fd, sr_error *err);
/* 1 when a process holds the lock of `byte`, 0 when none does, SR_ESYS when it cannot tell. */
int sr_shm__liveness_held(const sr_shm_ring *ring, off_t byte);
/* Opens the ring's name (shm_open or open) with flags and mode. */
int sr_shm__open_name(const char *name, bool is_file, int flags, mode_t mode);

/* Locks the registry (robust: a holder that died leaves it consistent, see sr_shm_participants). */
int sr_shm__registry_lock(sr_shm_ring *ring);
void sr_shm__registry_unlock(sr_shm_ring *ring);

/* What a reaper's pass did, told to on_reap once the registry lock is released. */
typedef struct sr_shm__reaped {
	int count;
	struct {
		enum sr_shm_reap_kind kind;
		int index;
		int64_t value;
	} what[2 * SR_SHM_MAX_PARTICIPANTS];
} sr_shm__reaped;

/*
 * The reaper (sr_shm_reaper.c): one pass with the registry lock held (its
 * outcome added to *reaped; SR_ESYS when a liveness lock cannot be
 * tested), the handle's callback told of it afterwards, and the thread.
 */
int sr_shm__reap_locked(sr_shm_ring *ring, sr_shm__reaped *reaped);
void sr_shm__reaped_tell(const sr_shm_ring *ring, const sr_shm__reaped *reaped);
int sr_shm__reaper_start(sr_shm_ring *ring, sr_error *err);
void sr_shm__reaper_stop(sr_shm_ring *ring);

/* Leaving every participant still joined through the handle (sr_shm_producer.c, sr_shm_consumer.c). */
void sr_shm__producers_leave_all(sr_shm_ring *ring);
void sr_shm__consumers_leave_all(sr_shm_ring *ring);

#endif /* SR_SHM_LAYOUT_INTERNAL_H */
