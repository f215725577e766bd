/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_per_thread_start.c: the life of the per-thread rings backend (mode
 * ring, producer per_thread): its state made and its consumer thread
 * (sr_log_per_thread_consumer.c) started at open, the consumer stopped at
 * close after its last drain, the state after fork(2), and its freeing.
 * The callers' side and the backend's table are sr_log_backend_per_thread.c.
 */
#include "sr_cache_internal.h"
#include "sr_log_backend_internal.h"
#include "sr_log_crash_internal.h"
#include "sr_log_per_thread_internal.h"
#include "sr_log_sink_internal.h"

#include <stdlib.h>
#include <string.h>

int
sr_log__threads_start(sr_log *log, const sr_log_config *c, const sr_wait_config *wait, sr_error *err)
{
	int e = sr_log__thread_rings_init();
	if (e != 0)
		return sr_error_set(err, SR_ESYS, "cannot make the per-thread rings' thread key: %s",
		    strerror(e));
	sr_log_threads *t = aligned_alloc(SR_CACHELINE, (sizeof *t + SR_CACHELINE - 1) / SR_CACHELINE * SR_CACHELINE);
	if (t == NULL)
		return sr_error_set(err, SR_ENOMEM, "cannot allocate the per-thread rings backend");
	memset(t, 0, sizeof *t);
	log->state = t;
	/* The key sr_log_open chose (sr_log__threads_new_key): categories carry it too. */
	t->hot.id = log->fast_key;
	t->log = log;
	/* thread_ring_slots x slot_size bytes, in slots of a cache line (sr_log_fast.h); the config checked the count. */
	t->slots = c->thread_ring_slots * (int64_t)(c->slot_size / SR_LOG__THREAD_SLOT);
	pthread_mutex_init(&t->lock, NULL);
	pthread_mutex_init(&t->park_lock, NULL);
	e = sr_log__cond_init_monotonic(&t->park_cond);
	if (e != 0)
		return sr_error_set(err, SR_ESYS, "pthread_cond_init failed: %s", strerror(e));
	/* The consumer idles along the logger's wait strategy's ladders, then parks. */
	if (sr_wait_init(&t->wait, wait, err) != SR_OK)
		return err != NULL ? err->code : SR_EINVAL;
	t->scratch = malloc(c->max_message_bytes);
	if (t->scratch == NULL)
		return sr_error_set(err, SR_ENOMEM, "cannot allocate the consumer's record buffer");
	t->seen_changes = -1;
	sr_sequence_init(&t->flushes_done, 0);
	t->evict_limit = sr_cache__evict_limit();
	t->evict = false;  /* no ring yet: set as rings come and go (sr_log_per_thread_consumer.c) */
	/* The file sinks' writers, for the batches the consumer ends behind (before it can end one). */
	sr_log__sinks_behind_start(log);
	/* pairs with the crash handler's load-acquire; before the thread exists */
	sr_atomic_store_release_i32(&t->running, 1);
	e = pthread_create(&t->thread, NULL, sr_log__threads_consumer_main, log);
	if (e != 0) {
		sr_atomic_store_release_i32(&t->running, 0);
		return sr_error_set(err, SR_ESYS, "pthread_create failed: %s", strerror(e));
	}
	t->started = true;
	return SR_OK;
}

void
sr_log__threads_stop(sr_log *log)
{
	sr_log_threads *t = log->state;
	if (t == NULL || !t->started)
		return;
	/* pairs with the consumer's load-acquire: it drains every ring and ends */
	sr_atomic_store_release_i32(&t->stopping, 1);
	sr_atomic_store_relaxed_i32(&t->hot.parked, 0);
	pthread_mutex_lock(&t->park_lock);
	pthread_cond_signal(&t->park_cond);
	pthread_mutex_unlock(&t->park_lock);
	pthread_join(t->thread, NULL);
	t->started = false;
}

/*
 * fork: in the child only the forking thread exists.  Every ring is taken
 * as consumed up to its cursor (what the parent published is the parent's
 * to write), the rings of the other threads are finished (their threads are
 * not in the child: the new consumer frees them), and a consumer starts.
 */
void
sr_log__threads_fork(sr_log *log, int phase)
{
	sr_log_threads *t = log->state;
	if (phase == SR_LOG_FORK_PREPARE) {
		pthread_mutex_lock(&t->lock);
		pthread_mutex_lock(&t->park_lock);
		return;
	}
	if (phase == SR_LOG_FORK_PARENT) {
		pthread_mutex_unlock(&t->park_lock);
		pthread_mutex_unlock(&t->lock);
		return;
	}
	sr_log__thread_rings_after_fork(t);
	t->pins = 0;
	t->heap_len = 0;
	t->seen_changes = -1; /* the consumer reads the list afresh */
	sr_log__cond_init_monotonic(&t->park_cond);
	sr_atomic_store_relaxed_i32(&t->hot.parked, 0);
	pthread_mutex_unlock(&t->park_lock);
	pthread_mutex_unlock(&t->lock);
	if (phase == SR_LOG_FORK_CHILD_STOPPED) {
		/* The child's calls are dropped (another backend): none may go inline into a ring. */
		sr_log__thread_ring_forget_cached();
		t->started = false;
		sr_atomic_store_release_i32(&t->running, 0);
		return;
	}
	if (!t->started || sr_atomic_load_acquire_i32(&t->stopping))
		return;
	sr_log__sinks_behind_start(log);
	t->started = pthread_create(&t->thread, NULL, sr_log__threads_consumer_main, log) == 0;
	if (!t->started)
		sr_atomic_store_release_i32(&t->running, 0);
}

void
sr_log__threads_destroy(sr_log *log)
{
	sr_log_threads *t = log->state;
	if (t == NULL)
		return;
	/* After stop: no consumer, no crash handler (shutdown removed it). */
	sr_log_crash_ring *cr = sr_atomic_load_acquire_ptr(&t->crash.rings);
	while (cr != NULL) {
		sr_log_crash_ring *next = sr_atomic_load_acquire_ptr(&cr->next);
		sr_log__thread_ring_free(sr_log__thread_ring_of_crash(cr));
		cr = next;
	}
	sr_log__threads_release_spares(t, INT64_MAX);
	sr_wait_destroy(&t->wait);
	pthread_cond_destroy(&t->park_cond);
	pthread_mutex_destroy(&t->park_lock);
	pthread_mutex_destroy(&t->lock);
	free(t->rings);
	free(t->heap);
	free(t->scratch);
	sr_log__crash_free(&t->crash);
	free(t);
	log->state = NULL;
}
