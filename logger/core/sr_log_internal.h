/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_internal.h: the logger object, as the logger's files share it
 * (internal; the API is sr_log.h).
 *
 * struct sr_log holds what every part of the logger reads (the options
 * fixed at open, the counters of sr_log_stats, the shutdown flag) and one
 * pointer per part that owns state of its own.  Each part's state is
 * defined in its own .c file (or, where two files share it, in that part's
 * internal header), so that no file sees another part's fields:
 *
 *   backend state   backend/sr_log_backend_ring.c, _per_thread.c, _queue.c, _sync.c (chosen at open)
 *   levels          levels/sr_log_categories.c: categories, rules, their lock
 *   sinks           sink/sr_log_sinks.c: descriptors, buffers, rotation
 *   consumer        consumer/sr_log_consumer.c: the consuming thread's line buffer and batch counts
 *   backtrace       consumer/sr_log_backtrace.c
 *   clock           core/sr_log_clock.c (tsc calibration)
 *   pattern         layout/sr_log_layout_pattern.c
 *   settings        config/sr_log_env.c (where each setting came from, for sr_log_describe)
 */
#ifndef SR_LOG_INTERNAL_H
#define SR_LOG_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "sr_log.h"
#include "sr_fmt_internal.h"
#include "sr_log_record_internal.h"

typedef struct sr_log_backend sr_log_backend;

/* The configuration in force: set by sr_log_open, only read afterwards. */
typedef struct sr_log_options {
	sr_log_mode mode;
	sr_log_producer producer;
	sr_log_full_policy policy;
	int discard_level;
	sr_log_layout layout;
	sr_log_clock clock;       /* after auto is decided */
	bool synchronize_enqueue;
	bool immediate_flush;     /* sync mode: false buffers lines in the sinks */
	bool describe;
	int reopen_signal;        /* 0: none */
	int color;                /* sr_log_color */
	bool close_at_exit;
	bool escape_controls;     /* escape_control_characters */
	int exit_timeout_ms;
	sr_log_fork_policy fork_policy;
	size_t slot_size;
	size_t max_record;        /* max_message_bytes */
	size_t max_line;          /* max_line_bytes */
	int64_t capacity;         /* slots of the ring a caller writes into, or the queue's entries */
	int64_t ring_slots;       /* as configured (describe) */
	int64_t thread_ring_slots;
	char *thread_name;        /* the consumer's */
	char *wait_spec;
	char *pattern_text;
	char *sites;              /* config.sites as applied at open (describe); NULL: none */
	int bt_size;              /* backtrace entries; 0: off */
	int bt_level, bt_trigger;
} sr_log_options;

/*
 * The counters of sr_log_stats.  Callers and the consumer add to them
 * (sr_atomic_faa_i64); sr_log_stats reads them relaxed.  No data is
 * published through them.
 */
typedef struct sr_log_totals {
	sr_atomic_i64 accepted, written, written_by_caller, write_failed, format_errors;
	sr_atomic_i64 truncated_records, truncated_lines, max_occupancy, batches;
	sr_atomic_i64 backtrace_written, backtrace_discarded;
	sr_atomic_i64 dropped[SR_LOG_LEVEL_COUNT];
} sr_log_totals;

struct sr_log {
	sr_log_options opt;
	const sr_log_backend *backend;          /* chosen once, at open */
	void *state;                            /* the backend's own (its file defines it) */
	/*
	 * What the macros' inline calls compare with their thread's cached ring
	 * (sr_category.fast_key, sr_log_fast.h): the per-thread backend's key,
	 * else SR_LOG__NO_FAST_KEY, which no thread caches.
	 */
	uint64_t fast_key;
	struct sr_log_levels *levels;
	struct sr_log_sinks *sinks;
	struct sr_log_consumer *consumer;
	struct sr_log_backtrace *bt;            /* NULL when opt.bt_size is 0 */
	struct sr_log_clock_state *clk;         /* tsc only */
	struct sr_log_pattern *pattern;         /* SR_LOG_LAYOUT_PATTERN only */
	struct sr_log_settings *settings;
	struct sr_log_ring_dir *ring_dir;       /* config.ring_dir only (logger/ringdir/) */
	sr_log_totals totals;
	/*
	 * 1 once shutdown began: the store-release in sr_log_shutdown pairs with
	 * the load-acquire of every path that must not start new work after it.
	 */
	sr_atomic_i32 shut;
	/*
	 * 1 once the shutdown has turned every category off (after shut): a
	 * caller blocked on a full ring gives up only then, so that its next
	 * call finds the level off and cannot be accepted after the one it gave up.
	 */
	sr_atomic_i32 levels_off;
	/* Lifecycle (sr_log_lifecycle.c). */
	bool shutdown_done;
	pthread_mutex_t life_lock;
	struct sr_log *live_next;         /* the list of open loggers (sr_log_lifecycle.c) */
	/* In a forked child with SR_LOG_FORK_DROP: the backend whose state `state` is (to destroy it). */
	const sr_log_backend *forked_backend;
};

/*
 * A call in progress found its category's level above its own on its
 * second look (sr_log_frontend.c): counted as dropped when a shutdown
 * (level_now off, log->shut set) or a close (level_now SR_LOG__CLOSED: in
 * the process's count, sr_log_dropped_after_close, the logger may be gone)
 * refused it; a level merely raised meanwhile is not a drop.  Cold.
 */
void sr_log__refused(sr_category *cat, int32_t level_now, int call_level);

#endif /* SR_LOG_INTERNAL_H */
