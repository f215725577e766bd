/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_backend_queue.c: the queue backend, a baseline as Log4j 2's
 * AsyncAppender or .NET's console logger: callers format, then enqueue the
 * line in a bounded queue (a mutex and condition variables) of ring_slots
 * entries drained by one thread.
 */
#include "sr_log_backend_internal.h"
#include "sr_log_consumer_internal.h"
#include "sr_log_direct_internal.h"
#include "sr_log_sink_internal.h"
#include "sr_log_thread_internal.h"
#include "sr_time.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The drainer wakes this often while idle (drop reports). */
#define QUEUE_IDLE_NS (100 * 1000 * 1000)

/* One queued line. */
typedef struct queue_entry {
	char *line;               /* NULL: a notice (flush) */
	uint32_t len;
	uint8_t level;
} queue_entry;

typedef struct sr_log_queue {
	pthread_mutex_t lock;
	pthread_cond_t not_empty, not_full, progress;
	queue_entry *q;           /* opt.capacity entries */
	int64_t head, count;
	uint64_t enqueued, done;
	bool stop;
	bool started;
	bool draining;            /* the drainer writes a batch outside the lock */
	pthread_t thread;
} sr_log_queue;

static void
queue_emit(sr_log *log, const sr_log_rec *h, const sr_fmt_gather *g)
{
	sr_log_queue *q = log->state;
	/* A signal handler that interrupted a call may find the queue's lock (or malloc's) held. */
	if (sr_log__nested_call()) {
		sr_log__count_drop(log, h->level);
		return;
	}
	size_t len;
	char *copy = sr_log__render_call_on_heap(log, h, g, &len);
	if (copy == NULL)
		return;
	pthread_mutex_lock(&q->lock);
	while (q->count == log->opt.capacity && !q->stop) {
		bool drop = sr_log__must_not_wait() ||
		    log->opt.policy == SR_LOG_FULL_DROP ||
		    (log->opt.policy == SR_LOG_FULL_DISCARD && h->level <= log->opt.discard_level);
		if (drop || log->opt.policy == SR_LOG_FULL_SYNC) {
			pthread_mutex_unlock(&q->lock);
			if (drop) {
				sr_log__count_drop(log, h->level);
			} else {
				sr_log__count_by_caller(log, sr_log__dispatch_now(log, h->level, copy, len));
			}
			free(copy);
			return;
		}
		pthread_cond_wait(&q->not_full, &q->lock);
	}
	if (q->stop) {
		/*
		 * The drainer is draining for the last time, or has ended: an entry
		 * added now might never be written.  Refused, never accepted.
		 */
		pthread_mutex_unlock(&q->lock);
		free(copy);
		sr_log__count_drop(log, h->level);
		return;
	}
	queue_entry *e = &q->q[(q->head + q->count) & (log->opt.capacity - 1)];
	e->line = copy;
	e->len = (uint32_t)len;
	e->level = h->level;
	q->count++;
	q->enqueued++;
	sr_atomic_faa_i64(&log->totals.accepted, 1);
	pthread_cond_signal(&q->not_empty);
	pthread_mutex_unlock(&q->lock);
}


static void *
queue_main(void *arg)
{
	sr_log *log = arg;
	sr_log_queue *q = log->state;
	sr_log__consumer_thread_setup(log);
	pthread_mutex_lock(&q->lock);
	for (;;) {
		while (q->count == 0 && !q->stop) {
			struct timespec dl = sr_timespec_from_ns(sr_monotonic_ns() + QUEUE_IDLE_NS);
			if (pthread_cond_timedwait(&q->not_empty, &q->lock, &dl) != 0 &&
			    q->count == 0) {
				pthread_mutex_unlock(&q->lock);
				sr_log__end_of_batch(log);
				pthread_mutex_lock(&q->lock);
			}
		}
		if (q->count == 0)
			break; /* stopped and drained */
		int64_t n = q->count, head = q->head;
		q->draining = true;
		pthread_mutex_unlock(&q->lock);
		/* Entries head .. head+n-1 are ours until q_count drops: callers append after them. */
		sr_log__consumer_batch_start(log, n);
		for (int64_t i = 0; i < n; i++) {
			queue_entry *e = &q->q[(head + i) & (log->opt.capacity - 1)];
			if (e->line != NULL) {
				sr_log__consume_line(log, e->level, e->line, e->len);
				free(e->line);
				e->line = NULL;
			}
		}
		sr_log__end_of_batch(log);
		pthread_mutex_lock(&q->lock);
		q->head = (head + n) & (log->opt.capacity - 1);
		q->count -= n;
		q->done += (uint64_t)n;
		q->draining = false;
		pthread_cond_broadcast(&q->not_full);
		pthread_cond_broadcast(&q->progress);
	}
	pthread_mutex_unlock(&q->lock);
	sr_log__end_of_batch(log);
	return NULL;
}

static int
queue_flush(sr_log *log)
{
	sr_log_queue *q = log->state;
	int rc = SR_OK;
	pthread_mutex_lock(&q->lock);
	while (q->count == log->opt.capacity && !q->stop)
		pthread_cond_wait(&q->not_full, &q->lock);
	if (q->stop) {
		rc = SR_ESTATE;
	} else {
		queue_entry *e = &q->q[(q->head + q->count) & (log->opt.capacity - 1)];
		e->line = NULL;
		e->len = 0;
		e->level = 0;
		q->count++;
		uint64_t target = ++q->enqueued;
		pthread_cond_signal(&q->not_empty);
		while (q->done < target && !q->stop)
			pthread_cond_wait(&q->progress, &q->lock);
	}
	pthread_mutex_unlock(&q->lock);
	return rc;
}

static int
queue_start(sr_log *log, const sr_log_config *c, const sr_wait_config *wait, sr_error *err)
{
	(void)c;
	(void)wait;
	sr_log_queue *q = calloc(1, sizeof *q);
	if (q == NULL)
		return sr_error_set(err, SR_ENOMEM, "cannot allocate the queue backend");
	log->state = q;
	pthread_mutex_init(&q->lock, NULL);
	sr_log__cond_init_monotonic(&q->not_empty);
	sr_log__cond_init_monotonic(&q->not_full);
	sr_log__cond_init_monotonic(&q->progress);
	q->q = calloc((size_t)log->opt.capacity, sizeof *q->q);
	if (q->q == NULL)
		return sr_error_set(err, SR_ENOMEM, "cannot allocate a queue of %" PRId64 " entries",
		    log->opt.capacity);
	int e = pthread_create(&q->thread, NULL, queue_main, log);
	if (e != 0)
		return sr_error_set(err, SR_ESYS, "pthread_create failed: %s", strerror(e));
	q->started = true;
	return SR_OK;
}

static bool
queue_idle(sr_log *log)
{
	sr_log_queue *q = log->state;
	if (q == NULL)
		return true;
	pthread_mutex_lock(&q->lock);
	/* count drops only once a batch is written (queue_main) */
	bool idle = q->count == 0 || !q->started;
	pthread_mutex_unlock(&q->lock);
	return idle;
}

static void
queue_stop(sr_log *log)
{
	sr_log_queue *q = log->state;
	if (q == NULL || !q->started)
		return;
	pthread_mutex_lock(&q->lock);
	q->stop = true;
	pthread_cond_broadcast(&q->not_empty);
	pthread_cond_broadcast(&q->not_full);
	pthread_cond_broadcast(&q->progress);
	pthread_mutex_unlock(&q->lock);
	pthread_join(q->thread, NULL);
	q->started = false;
	sr_log__end_of_batch(log);
}

static void
queue_fork(sr_log *log, int phase)
{
	sr_log_queue *q = log->state;
	if (phase == SR_LOG_FORK_PREPARE) {
		pthread_mutex_lock(&q->lock);
		/* A batch being written outside the lock would be half freed in the child's copy. */
		while (q->draining)
			pthread_cond_wait(&q->progress, &q->lock);
		return;
	}
	if (phase == SR_LOG_FORK_PARENT) {
		pthread_mutex_unlock(&q->lock);
		return;
	}
	/* The child: the queued lines are the parent's to write; the drainer does not exist here. */
	for (int64_t i = 0; i < q->count; i++) {
		queue_entry *e = &q->q[(q->head + i) & (log->opt.capacity - 1)];
		free(e->line);
		e->line = NULL;
	}
	q->head = q->count = 0;
	q->enqueued = q->done = 0;
	/* Condition variables with waiters that do not exist in the child: made anew. */
	sr_log__cond_init_monotonic(&q->not_empty);
	sr_log__cond_init_monotonic(&q->not_full);
	sr_log__cond_init_monotonic(&q->progress);
	bool restart = q->started && !q->stop && phase == SR_LOG_FORK_CHILD;
	q->started = false;
	pthread_mutex_unlock(&q->lock);
	if (restart && pthread_create(&q->thread, NULL, queue_main, log) == 0)
		q->started = true;
	else
		q->stop = true; /* no drainer: calls are refused (counted), never queued for nobody */
}

static void
queue_destroy(sr_log *log)
{
	sr_log_queue *q = log->state;
	if (q == NULL)
		return;
	if (q->q != NULL) {
		for (int64_t i = 0; i < log->opt.capacity; i++)
			free(q->q[i].line);
		free(q->q);
	}
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->not_empty);
	pthread_cond_destroy(&q->not_full);
	pthread_cond_destroy(&q->progress);
	free(q);
	log->state = NULL;
}

const sr_log_backend sr_log__queue_backend = {
	.start = queue_start,
	.emit = queue_emit,
	.flush = queue_flush,
	.dump_backtrace = NULL,
	.idle = queue_idle,
	.stop = queue_stop,
	.fork = queue_fork,
	.destroy = queue_destroy,
};
