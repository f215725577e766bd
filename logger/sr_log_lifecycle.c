/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_lifecycle.c: the logger's lifecycle: open (resolve the environment, validate,
 * build each part, start the backend), flush, shutdown (stop every handle,
 * drain, close the sinks), close (free), the default logger, the exit list,
 * and sr_log_stats.  The path of one log call is in docs/ARCHITECTURE.md.
 */
#include "sr_log_backend_internal.h"
#include "sr_log_backtrace_internal.h"
#include "sr_log_categories_internal.h"
#include "sr_log_clock_internal.h"
#include "sr_log_config_validate_internal.h"
#include "sr_log_consumer_internal.h"
#include "sr_log_env_explain_internal.h"
#include "sr_log_env_internal.h"
#include "sr_log_layout_pattern_internal.h"
#include "sr_log_limit_internal.h"
#include "sr_log_recovery_internal.h"
#include "sr_log_reopen_internal.h"
#include "sr_log_ring_dir_internal.h"
#include "sr_log_ring_files_internal.h"
#include "sr_log_sink_internal.h"
#include "sr_log_thread_internal.h"
#include "sr_log_per_thread_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sr_backoff.h"
#include "sr_time.h"

/*
 * Every open logger, for the exit handler (those with close_at_exit) and
 * fork (all of them), under live_lock.
 */
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;
static sr_log *live_head;
static sr_atomic_ptr default_log;

static int shutdown_until(sr_log *log, int64_t deadline_ns);

/*
 * The exit handler (atexit, at_quick_exit): shut down every logger opened
 * with close_at_exit, each within its exit_timeout_ms.  Other threads may
 * still be logging: the shutdown stops them at their level check first,
 * and the memory stays valid (only sr_log_close frees).
 */
static void
run_at_exit(void)
{
	pthread_mutex_lock(&live_lock);
	for (sr_log *l = live_head; l != NULL; l = l->live_next) {
		if (!l->opt.close_at_exit || sr_log__self.consumer_of == l)
			continue;
		int64_t deadline = sr_monotonic_ns() + (int64_t)l->opt.exit_timeout_ms * 1000000;
		if (shutdown_until(l, deadline) == SR_ETIMEDOUT) {
			static const char msg[] = "seqring: exit: the log consumer did not write everything "
			    "within exit_timeout_ms; what it had not written is lost\n";
			ssize_t w = write(STDERR_FILENO, msg, sizeof msg - 1);
			(void)w;
		}
	}
	pthread_mutex_unlock(&live_lock);
}

static void
register_at_exit(void)
{
	/*
	 * Both fail only when the C library's table of handlers is full; the
	 * logger then simply does not flush at exit, as with close_at_exit off
	 * (sr_log_close still does).
	 */
	if (atexit(run_at_exit) != 0 || at_quick_exit(run_at_exit) != 0) {
		static const char msg[] = "seqring: cannot register the flush at exit (the C library's "
		    "handler table is full): call sr_log_close before exiting\n";
		ssize_t w = write(STDERR_FILENO, msg, sizeof msg - 1);
		(void)w;
	}
}

/*
 * fork(2) (pthread_atfork).  Before: every open logger's locks are taken, in
 * the order their holders take them (the logger's life, the backend's, the
 * levels', the sinks', then the per-thread rings' list), waiting for the
 * work in flight that holds them; so the child's copy of each logger is
 * consistent.  In the child, the only thread is the one that forked: each
 * logger that was not shutting down starts its consumer again, after what
 * the parent had taken (the parent writes that, once), with empty buffers
 * and counters from zero; the child's lines go to the same sinks (the
 * descriptors are shared: file sinks append).
 */
static void
fork_phase(int phase)
{
	if (phase == SR_LOG_FORK_PREPARE) {
		pthread_mutex_lock(&live_lock);
		for (sr_log *l = live_head; l != NULL; l = l->live_next) {
			pthread_mutex_lock(&l->life_lock);
			l->backend->fork(l, phase);
			sr_log__levels_fork(l, true);
			sr_log__sinks_fork(l, 0);
		}
		sr_log__threads_fork_global(phase);
		sr_log__site_catalogue_fork(phase);
		return;
	}
	sr_log__site_catalogue_fork(phase);
	if (phase == SR_LOG_FORK_CHILD)
		sr_log__calls_after_fork();
	sr_log__threads_fork_global(phase);
	for (sr_log *l = live_head; l != NULL; l = l->live_next) {
		bool child = phase == SR_LOG_FORK_CHILD;
		bool drop = child && l->opt.fork_policy == SR_LOG_FORK_DROP;
		if (child) {
			/* Before the backend's rings and consumer: the child's copy is private, the lock the parent's. */
			sr_log__ring_dir_after_fork_child(l);
			sr_log__consumer_after_fork(l);
		}
		sr_log__sinks_fork(l, child ? 2 : 1);
		sr_log__levels_fork(l, false);
		l->backend->fork(l, drop ? SR_LOG_FORK_CHILD_STOPPED : phase);
		if (drop && l->forked_backend == NULL) {
			/* The child has one thread, this one: the swap races nothing. */
			l->forked_backend = l->backend;
			l->backend = &sr_log__dropping_backend;
		}
		pthread_mutex_unlock(&l->life_lock);
	}
	pthread_mutex_unlock(&live_lock);
}

static void fork_prepare(void) { fork_phase(SR_LOG_FORK_PREPARE); }
static void fork_parent(void) { fork_phase(SR_LOG_FORK_PARENT); }
static void fork_child(void) { fork_phase(SR_LOG_FORK_CHILD); }

static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

static void
register_fork(void)
{
	pthread_atfork(fork_prepare, fork_parent, fork_child);
}

static const sr_log_backend *
backend_for(sr_log_mode mode, sr_log_producer producer, const sr_wait_config *wait)
{
	bool signal_locks = wait->kind == SR_WAIT_BLOCK ||
	    (wait->kind == SR_WAIT_PHASED && wait->fallback == SR_WAIT_BLOCK);
	switch (mode) {
	case SR_LOG_MODE_QUEUE:
		return &sr_log__queue_backend;
	case SR_LOG_MODE_SYNC:
		return &sr_log__sync_backend;
	default:
		if (producer == SR_LOG_PRODUCER_PER_THREAD)
			return &sr_log__threads_backend;
		return signal_locks ? &sr_log__ring_backend_locking : &sr_log__ring_backend;
	}
}

static void
free_log(sr_log *log)
{
	log->backend->destroy(log);
	/* After the rings closed: the meta file goes unless a ring stayed with records to recover. */
	sr_log__ring_dir_close(log, true);
	sr_log__levels_free(log);
	sr_log__sinks_free(log);
	sr_log__consumer_free(log);
	free(log->opt.thread_name);
	free(log->opt.wait_spec);
	free(log->opt.pattern_text);
	free(log->opt.sites);
	sr_log__pattern_free(log->pattern);
	sr_log__clock_close(log);
	sr_log__bt_free(log);
	if (log->settings != NULL) {
		for (int i = 0; i < SR_SET_COUNT; i++)
			free(log->settings->env_value[i]);
		free(log->settings);
	}
	pthread_mutex_destroy(&log->life_lock);
	free(log);
}

/* The options in force, from the resolved configuration. */
static int
set_options(sr_log *log, const sr_log_config *c, sr_error *err)
{
	sr_log_options *o = &log->opt;
	o->mode = c->mode;
	o->producer = c->producer;
	o->policy = c->full_policy;
	o->discard_level = c->discard_level;
	o->layout = c->layout;
	o->max_record = c->max_message_bytes;
	o->max_line = c->max_line_bytes;
	o->ring_slots = c->ring_slots;
	o->thread_ring_slots = c->thread_ring_slots;
	/* Each thread's ring with producer per_thread in mode ring; the queue's entries in mode queue. */
	o->capacity = sr_log__config_per_thread(c) ? c->thread_ring_slots : c->ring_slots;
	o->close_at_exit = c->close_at_exit;
	o->exit_timeout_ms = c->exit_timeout_ms;
	o->fork_policy = c->fork_policy;
	o->describe = c->describe;
	o->reopen_signal = c->reopen_signal;
	o->color = c->color;
	o->escape_controls = c->escape_control_characters;
	o->slot_size = c->slot_size;
	o->synchronize_enqueue = c->synchronize_enqueue_when_full;
	o->immediate_flush = c->immediate_flush;
	o->bt_size = c->backtrace_size;
	o->bt_level = c->backtrace_level;
	o->bt_trigger = c->backtrace_trigger;
	o->thread_name = strdup(c->thread_name != NULL ? c->thread_name : "seqring-log");
	o->wait_spec = strdup(c->wait_strategy != NULL ? c->wait_strategy : SR_LOG_DEFAULT_WAIT);
	o->pattern_text = c->pattern != NULL ? strdup(c->pattern) : NULL;
	if (o->thread_name == NULL || o->wait_spec == NULL || (c->pattern != NULL && o->pattern_text == NULL))
		return sr_error_set(err, SR_ENOMEM, "cannot allocate the logger's settings");
	return SR_OK;
}

/* Builds every part of the logger but the backend, in dependency order. */
static int
open_parts(sr_log *log, const sr_log_resolved *r, sr_error *err)
{
	const sr_log_config *c = &r->cfg;
	if (set_options(log, c, err) != SR_OK)
		return err != NULL ? err->code : SR_ENOMEM;
	/* The settings' sources move into the logger (for sr_log_describe). */
	log->settings = malloc(sizeof *log->settings);
	if (log->settings == NULL)
		return sr_error_set(err, SR_ENOMEM, "cannot allocate the logger's settings");
	*log->settings = r->settings;
	memset(((sr_log_resolved *)r)->settings.env_value, 0, sizeof r->settings.env_value);
	if (sr_log__consumer_open(log, err) != SR_OK)
		return err != NULL ? err->code : SR_ENOMEM;
	if (c->pattern != NULL && sr_log__pattern_compile(c->pattern, &log->pattern, err) != SR_OK)
		return err != NULL ? err->code : SR_EINVAL;
	if (sr_log__clock_open(log, c->clock, err) != SR_OK)
		return err != NULL ? err->code : SR_EINVAL;
	if (sr_log__bt_open(log, err) != SR_OK)
		return err != NULL ? err->code : SR_ENOMEM;
	if (sr_log__sinks_open(log, c->sinks, c->sink_count, err) != SR_OK)
		return err != NULL ? err->code : SR_ESYS;
	sr_log__consumer_sinks_opened(log);
	/* Before the categories (each goes into the directory's catalogue) and the rings. */
	if (c->ring_dir != NULL && sr_log__ring_files_open(log, c->ring_dir, err) != SR_OK)
		return err != NULL ? err->code : SR_ESYS;
	/* After the sinks: a category's effective level depends on the lowest sink level. */
	for (int l = 0; l < SR_LOG_LEVEL_COUNT; l++)
		sr_atomic_store_relaxed_i64(&log->totals.dropped[l], 0);
	sr_log_config defaults;
	sr_log_config_default(&defaults);
	sr_log_levels_setup levels = {
		.root_level = c->level,
		.root_level_from_code = c->level != defaults.level,
		.code_spec = &r->code_spec,
		.env_spec = &r->env_spec,
		.sinks_min_level = sr_log__sinks_min_level(log),
	};
	if (sr_log__levels_open(log, &levels, err) != SR_OK)
		return err != NULL ? err->code : SR_ENOMEM;
	if (c->sites != NULL && sr_log_sites_set(log, c->sites, err) != SR_OK) {
		/* Says where the rules came from: the message names the rule. */
		char why[sizeof err->message];
		snprintf(why, sizeof why, "%s", err->message);
		return sr_error_set(err, err->code, "%s: %s", log->settings->source[SR_SET_SITES] == SR_SRC_ENV ?
		    "SEQRING_LOG_SITES" : "config.sites", why);
	}
	if (c->sites != NULL && (log->opt.sites = strdup(c->sites)) == NULL)
		return sr_error_set(err, SR_ENOMEM, "cannot copy config.sites");
	return SR_OK;
}

sr_log *
sr_log_open(const sr_log_config *config, sr_error *err)
{
	sr_log_config defaults;
	sr_error own_err = { 0 };
	if (err == NULL)
		err = &own_err;  /* a failure's message is kept for the first call through its categories */
	if (config == NULL) {
		sr_log_config_default(&defaults);
		config = &defaults;
	}
	/* The code's configuration with the environment applied (sr_log_env.c). */
	sr_log_resolved *r = calloc(1, sizeof *r);
	if (r == NULL) {
		sr_error_set(err, SR_ENOMEM, "cannot allocate a logger");
		return NULL;
	}
	sr_log *log = NULL;
	sr_wait_config wait;
	if (sr_log__resolve(config, r, err) != SR_OK)
		goto out;
	if (sr_log__config_validate(&r->cfg, &wait, err) != SR_OK) {
		sr_log__explain_open_failure(r, &r->settings, true, err);
		goto out;
	}
	log = calloc(1, sizeof *log);
	if (log == NULL) {
		sr_error_set(err, SR_ENOMEM, "cannot allocate a logger");
		goto out;
	}
	pthread_mutex_init(&log->life_lock, NULL);
	sr_log__calls_setup();
	log->backend = backend_for(r->cfg.mode, r->cfg.producer, &wait);
	/* A key for each logger whose calls the macros may write inline (either ring kind). */
	log->fast_key = log->backend->thread_records || log->backend->cache_inline != NULL ?
	    sr_log__threads_new_key() : SR_LOG__NO_FAST_KEY;
	/* What a dead process left in the ring directory goes out before any record of this logger. */
	if (open_parts(log, r, err) != SR_OK || sr_log__recover_at_open(log, err) != SR_OK ||
	    log->backend->start(log, &r->cfg, &wait, err) != SR_OK) {
		/*
		 * Undo only what this call made: a consumer it started, files it
		 * opened.  Descriptors and callback contexts stay the caller's.
		 */
		log->backend->stop(log);
		sr_log__sinks_abandon(log);
		/* The settings' values moved into the logger with its parts. */
		sr_log__explain_open_failure(r, log->settings != NULL ? log->settings : &r->settings, false, err);
		free_log(log);
		log = NULL;
		goto out;
	}
	if ((r->cfg.crash_handler && sr_log_install_crash_handler(log, err) != SR_OK) ||
	    sr_log__reopen_signal_install(log, err) != SR_OK) {
		/* The sinks are closed (descriptors with close_fd too: the open failed late). */
		sr_log_shutdown(log);
		free_log(log);
		log = NULL;
		goto out;
	}
	if (log->opt.close_at_exit)
		pthread_once(&exit_once, register_at_exit);
	pthread_once(&fork_once, register_fork);
	pthread_mutex_lock(&live_lock);
	log->live_next = live_head;
	live_head = log;
	pthread_mutex_unlock(&live_lock);
	if (log->opt.describe)
		sr_log_describe(log, stderr);
out:
	/* A good open forgets an earlier failure: its line would send the reader to a config since fixed. */
	sr_log__note_open_failure(log == NULL ? err->message : NULL);
	sr_log__resolved_free(r);
	free(r);
	return log;
}

/*
 * Shutdown began: the crash handler lets go, the flag is set, every handle
 * is off (later calls end at their level check).  Idempotent.
 */
static void
begin_shutdown(sr_log *log)
{
	/* The crash handler and the reopen signal must not reach for a logger that is going away. */
	sr_log_remove_crash_handler(log);
	sr_log__reopen_signal_remove(log);
	/* pairs with the load-acquire in when_full, sr_log_flush, the category functions */
	sr_atomic_store_release_i32(&log->shut, 1);
	sr_log__levels_shut(log);
	/* pairs with the load-acquire in sr_log__claim_while_open: the levels are off for whoever sees it */
	sr_atomic_store_release_i32(&log->levels_off, 1);
}

/*
 * sr_log_shutdown with a bound (INT64_MAX: none): SR_ETIMEDOUT when the
 * consumer had not written everything by the deadline (the logger is then
 * left running: its threads end with the process).
 */
static int
shutdown_until(sr_log *log, int64_t deadline_ns)
{
	pthread_mutex_lock(&log->life_lock);
	if (log->shutdown_done) {
		pthread_mutex_unlock(&log->life_lock);
		return SR_OK;
	}
	begin_shutdown(log);
	if (deadline_ns != INT64_MAX && log->backend->idle != NULL) {
		sr_backoff b = SR_BACKOFF_INIT;
		while (!log->backend->idle(log)) {
			if (sr_monotonic_ns() >= deadline_ns) {
				pthread_mutex_unlock(&log->life_lock);
				return SR_ETIMEDOUT;
			}
			sr_backoff_pause(&b);
		}
	}

	/*
	 * A call that passed its level check before the shutdown began may
	 * still be claiming, publishing or writing (sync mode, policy sync):
	 * it finishes with the consumer still running, so that the last drain
	 * below takes it; later calls are refused at their second look.
	 */
	if (!sr_log__calls_quiesce(log, deadline_ns)) {
		pthread_mutex_unlock(&log->life_lock);
		return SR_ETIMEDOUT;
	}
	/* This thread acts as the consumer from here on: it must never wait on the ring. */
	const sr_log *was = sr_log__self.consumer_of;
	sr_log__self.consumer_of = log;
	sr_log__thread();
	log->backend->stop(log);
	sr_log__self.consumer_of = was;
	/* Drained: a process that exits now, without sr_log_close, leaves nothing to recover. */
	sr_log__ring_dir_settle(log);
	sr_log__sinks_close(log);
	log->shutdown_done = true;
	pthread_mutex_unlock(&log->life_lock);
	return SR_OK;
}

int
sr_log_shutdown(sr_log *log)
{
	if (log == NULL)
		return SR_EINVAL;
	if (sr_log__self.consumer_of == log)
		return SR_ESTATE;
	return shutdown_until(log, INT64_MAX);
}

int
sr_log_close(sr_log **logp)
{
	if (logp == NULL || *logp == NULL)
		return SR_OK;
	sr_log *log = *logp;
	if (sr_log__self.consumer_of == log)
		return SR_ESTATE;
	sr_log_shutdown(log);
	pthread_mutex_lock(&live_lock);
	for (sr_log **p = &live_head; *p != NULL; p = &(*p)->live_next) {
		if (*p == log) {
			*p = log->live_next;
			break;
		}
	}
	pthread_mutex_unlock(&live_lock);
	/* Clear the default only if it is this logger. */
	if (sr_atomic_load_acquire_ptr(&default_log) == log)
		sr_atomic_store_release_ptr(&default_log, NULL);
	/*
	 * Handles outlive the logger at a closed level; a call that saw the
	 * shutdown's off level may be counting its drop here: wait for it.
	 */
	sr_log__levels_retire(log);
	sr_log__calls_quiesce(log, INT64_MAX);
	free_log(log);
	*logp = NULL;
	return SR_OK;
}

sr_log *
sr_log_default(void)
{
	/* pairs with the store-release in sr_log_set_default: the logger is fully built */
	return sr_atomic_load_acquire_ptr(&default_log);
}

void
sr_log_set_default(sr_log *log)
{
	/* pairs with the load-acquire in sr_log_default */
	sr_atomic_store_release_ptr(&default_log, log);
}

int
sr_log_flush(sr_log *log)
{
	if (log == NULL)
		return SR_EINVAL;
	/* pairs with the store-release in sr_log_shutdown */
	if (sr_log__must_not_wait() || sr_atomic_load_acquire_i32(&log->shut))
		return SR_ESTATE;
	return log->backend->flush(log);
}

int
sr_log_reopen(sr_log *log)
{
	if (log == NULL)
		return SR_EINVAL;
	/* pairs with the store-release in sr_log_shutdown */
	if (sr_atomic_load_acquire_i32(&log->shut))
		return SR_ESTATE;
	sr_log__sinks_ask_reopen(log);
	/* On the consumer (a sink callback) it happens at the end of this batch. */
	if (sr_log__must_not_wait())
		return SR_OK;
	int64_t before = sr_log__sinks_reopens_done(log);
	int rc = sr_log_flush(log);
	/*
	 * The flush ends with a batch end that saw the request, unless a
	 * concurrent batch end took it first (then it is done too): either way
	 * the count of reopens done moved.  A sync-mode flush reopens under its
	 * mutex.
	 */
	for (int spins = 0; rc == SR_OK && sr_log__sinks_reopens_done(log) == before && spins < 1000; spins++)
		rc = sr_log_flush(log);
	return rc;
}

int
sr_log_thread_prepare(sr_log *log)
{
	if (log == NULL)
		return SR_EINVAL;
	/* pairs with the store-release in sr_log_shutdown */
	if (sr_atomic_load_acquire_i32(&log->shut))
		return SR_ESTATE;
	/* The thread's own state too: a signal handler's first call then registers nothing. */
	sr_log__thread();
	return log->backend->prepare != NULL ? log->backend->prepare(log) : SR_OK;
}

int
sr_log_dump_backtrace(sr_log *log)
{
	if (log == NULL)
		return SR_EINVAL;
	/* pairs with the store-release in sr_log_shutdown */
	if (log->backend->dump_backtrace == NULL || sr_log__must_not_wait() ||
	    sr_atomic_load_acquire_i32(&log->shut))
		return SR_ESTATE;
	return log->backend->dump_backtrace(log);
}

int
sr_log_stats(sr_log *log, sr_log_counters *st)
{
	if (log == NULL || st == NULL)
		return SR_EINVAL;
	memset(st, 0, sizeof *st);
	const sr_log_totals *t = &log->totals;
	st->accepted = (uint64_t)sr_atomic_load_relaxed_i64(&t->accepted);
	st->written = (uint64_t)sr_atomic_load_relaxed_i64(&t->written);
	st->written_by_caller = (uint64_t)sr_atomic_load_relaxed_i64(&t->written_by_caller);
	st->write_failed = (uint64_t)sr_atomic_load_relaxed_i64(&t->write_failed);
	for (int l = 0; l < SR_LOG_LEVEL_COUNT; l++) {
		st->dropped_by_level[l] = (uint64_t)sr_atomic_load_relaxed_i64(&t->dropped[l]);
		st->dropped += st->dropped_by_level[l];
	}
	st->format_errors = (uint64_t)sr_atomic_load_relaxed_i64(&t->format_errors);
	st->truncated_records = (uint64_t)sr_atomic_load_relaxed_i64(&t->truncated_records);
	st->truncated_lines = (uint64_t)sr_atomic_load_relaxed_i64(&t->truncated_lines);
	st->max_occupancy = sr_atomic_load_relaxed_i64(&t->max_occupancy);
	st->backtrace_written = (uint64_t)sr_atomic_load_relaxed_i64(&t->backtrace_written);
	st->backtrace_discarded = (uint64_t)sr_atomic_load_relaxed_i64(&t->backtrace_discarded);
	st->capacity = log->opt.capacity;
	st->batches = (uint64_t)sr_atomic_load_relaxed_i64(&t->batches);
	sr_log__sinks_stats(log, st);
	st->suppressed = sr_log__limit_suppressed(log);
	return SR_OK;
}
