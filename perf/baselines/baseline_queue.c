/* SPDX-License-Identifier: Apache-2.0 */
/*
 * baseline_queue.c: one measured run of a baseline queue (see
 * baseline_queue.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "baseline_queue.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if !defined(__SANITIZE_THREAD__)
/* ThreadSanitizer cannot see ck_pr's inline assembly: no ck_ring under TSan. */
#define BASELINE_HAVE_CK 1
#include <ck_ring.h>
#endif

#include "bench_threads.h"
#include <seqring/sr_atomic.h>
#include <seqring/sr_backoff.h>
#include <seqring/sr_time.h>

static const char *const baseline_names[BASELINE_COUNT] = {
	[BASELINE_CK_SPSC] = "ck_ring_spsc",
	[BASELINE_CK_MPMC] = "ck_ring_mpmc",
	[BASELINE_MUTEX] = "mutex_condvar",
	[BASELINE_CEILING] = "ceiling",
};

const char *
baseline_name(enum baseline_kind k)
{
	return (unsigned)k < BASELINE_COUNT ? baseline_names[k] : "unknown";
}

bool
baseline_supports(enum baseline_kind k, int producers)
{
	switch (k) {
	case BASELINE_CK_SPSC:
#ifdef BASELINE_HAVE_CK
		return producers == 1;
#else
		return false;
#endif
	case BASELINE_CK_MPMC:
#ifdef BASELINE_HAVE_CK
		return producers >= 1;
#else
		return false;
#endif
	case BASELINE_MUTEX:
		return producers >= 1;
	case BASELINE_CEILING:
		return producers == 1;
	default:
		return false;
	}
}

/*
 * How the baselines wait (the consumer on an empty queue, the producer on a
 * full one): a pause hint per miss, sched_yield() after 100 misses in a row,
 * so that the over-subscribed 3-1 rows cannot starve the thread they wait for.
 */
static const sr_backoff_ladder miss_ladder = { 100, SR_BACKOFF_FOREVER, 0, false, false };

static inline void
miss_wait(sr_backoff *misses)
{
	(void)sr_backoff_step(misses, &miss_ladder);
}

/* ------------------------------------------------------------ the queues */

/* A bounded FIFO behind one mutex, as java.util.concurrent.ArrayBlockingQueue. */
typedef struct mutex_queue {
	pthread_mutex_t mutex;
	pthread_cond_t not_empty;
	pthread_cond_t not_full;
	int64_t *items;
	int64_t capacity;
	int64_t mask;
	int64_t head;   /* next to take */
	int64_t tail;   /* next to put */
	bool closed;    /* no more puts: take returns false once empty */
} mutex_queue;

static void
mq_put(mutex_queue *q, int64_t v)
{
	pthread_mutex_lock(&q->mutex);
	while (q->tail - q->head == q->capacity)
		pthread_cond_wait(&q->not_full, &q->mutex);
	q->items[q->tail & q->mask] = v;
	q->tail++;
	pthread_cond_signal(&q->not_empty);
	pthread_mutex_unlock(&q->mutex);
}

static bool
mq_take(mutex_queue *q, int64_t *v)
{
	pthread_mutex_lock(&q->mutex);
	while (q->tail == q->head && !q->closed)
		pthread_cond_wait(&q->not_empty, &q->mutex);
	bool got = q->tail != q->head;
	if (got) {
		*v = q->items[q->head & q->mask];
		q->head++;
		pthread_cond_signal(&q->not_full);
	}
	pthread_mutex_unlock(&q->mutex);
	return got;
}

/* The ceiling: the least a ring must do, with both indices published every 64 items. */
typedef struct ceiling_ring {
	_Alignas(128) atomic_llong head;   /* written by the producer */
	_Alignas(128) atomic_llong tail;   /* written by the consumer */
	_Alignas(128) int64_t *items;
	int64_t size;
	int64_t mask;
} ceiling_ring;

/* ------------------------------------------------------------ one run */

typedef struct baseline {
	enum baseline_kind kind;
#ifdef BASELINE_HAVE_CK
	struct ck_ring *ck;
	ck_ring_buffer_t *ck_buf;
#endif
	mutex_queue *mq;
	ceiling_ring *ceil;
	_Alignas(128) atomic_int stop;     /* producers: the deadline passed */
	atomic_int closed;                 /* consumer: every producer has finished */
	bench_finish_gate producers_done;
	bench_finish_gate consumer_done;
} baseline;

typedef struct bl_thread {
	_Alignas(128) baseline *b;
	int64_t count;
	int64_t t_start;   /* producer */
	int64_t t_end;     /* consumer */
	int64_t acc;       /* consumer */
	pthread_barrier_t *gate;
} bl_thread;

/*
 * True once the queue is empty for good: `closed` (set after every producer
 * was joined) had been seen before the queue was last found empty.
 */
static inline bool
drained(baseline *b, bool *closed_seen)
{
	if (*closed_seen)
		return true;
	/* pairs with the store-release in baseline_run */
	*closed_seen = atomic_load_explicit(&b->closed, memory_order_acquire);
	return false;
}

#ifdef BASELINE_HAVE_CK
/*
 * ck_ring's producer and consumer loops, single- or multi-producer: mpmc is
 * a constant at every call and the function is inlined, so each loop calls
 * one ck_ring function with no branch between them.
 */
static inline __attribute__((always_inline)) void
ck_produce(baseline *b, bool mpmc, int64_t from, int64_t to)
{
	for (int64_t i = from; i < to; i++) {
		void *item = (void *)(uintptr_t)i;
		sr_backoff misses = SR_BACKOFF_INIT;
		while (!(mpmc ? ck_ring_enqueue_mpmc(b->ck, b->ck_buf, item)
		    : ck_ring_enqueue_spsc(b->ck, b->ck_buf, item)))
			miss_wait(&misses);
	}
}

static inline __attribute__((always_inline)) int64_t
ck_consume(baseline *b, bool mpmc, int64_t n)
{
	int64_t acc = 0;
	sr_backoff misses = SR_BACKOFF_INIT;
	bool closed_seen = false;
	for (int64_t got = 0; got < n;) {
		void *item;
		if (mpmc ? ck_ring_dequeue_mpmc(b->ck, b->ck_buf, &item)
		    : ck_ring_dequeue_spsc(b->ck, b->ck_buf, &item)) {
			acc += (int64_t)(uintptr_t)item;
			got++;
			misses = (sr_backoff)SR_BACKOFF_INIT;
		} else if (drained(b, &closed_seen)) {
			break;
		} else {
			miss_wait(&misses);
		}
	}
	return acc;
}
#endif

static void *
bl_producer(void *arg)
{
	bl_thread *p = arg;
	baseline *b = p->b;
	const int64_t n = p->count;
	sr_backoff misses = SR_BACKOFF_INIT;
	if (p->gate != NULL)
		pthread_barrier_wait(p->gate);
	p->t_start = sr_monotonic_ns();
	int64_t head = 0, cached_tail = 0;   /* ceiling only */
	for (int64_t base = 0; base < n; base += BENCH_STOP_CHECK_EVERY) {
		const int64_t end = base + BENCH_STOP_CHECK_EVERY < n ? base + BENCH_STOP_CHECK_EVERY : n;
		switch (b->kind) {
#ifdef BASELINE_HAVE_CK
		case BASELINE_CK_SPSC:
			ck_produce(b, false, base, end);
			break;
		case BASELINE_CK_MPMC:
			ck_produce(b, true, base, end);
			break;
#endif
		case BASELINE_MUTEX:
			for (int64_t i = base; i < end; i++)
				mq_put(b->mq, i);
			break;
		case BASELINE_CEILING: {
			ceiling_ring *r = b->ceil;
			for (int64_t i = base; i < end; i++) {
				if (head - cached_tail == r->size) {
					misses = (sr_backoff)SR_BACKOFF_INIT;
					/* pairs with the consumer's store-release of tail */
					while (head - (cached_tail = atomic_load_explicit(&r->tail,
					    memory_order_acquire)) == r->size)
						miss_wait(&misses);
				}
				r->items[head & r->mask] = i;
				head++;
				if ((head & (BASELINE_CEILING_PUBLISH - 1)) == 0)
					/* pairs with the consumer's load-acquire of head */
					atomic_store_explicit(&r->head, head, memory_order_release);
			}
			break;
		}
		default:
			break;
		}
		if (atomic_load_explicit(&b->stop, memory_order_relaxed))
			break;
	}
	if (b->kind == BASELINE_CEILING)
		/* the last partial group of 64; pairs with the consumer's load-acquire of head */
		atomic_store_explicit(&b->ceil->head, head, memory_order_release);
	bench_finish_gate_arrive(&b->producers_done);
	return NULL;
}

static void *
bl_consumer(void *arg)
{
	bl_thread *c = arg;
	baseline *b = c->b;
	const int64_t n = c->count;
	int64_t acc = 0;
	sr_backoff misses = SR_BACKOFF_INIT;
	bool closed_seen = false;
	switch (b->kind) {
#ifdef BASELINE_HAVE_CK
	case BASELINE_CK_SPSC:
		acc = ck_consume(b, false, n);
		break;
	case BASELINE_CK_MPMC:
		acc = ck_consume(b, true, n);
		break;
#endif
	case BASELINE_MUTEX:
		for (int64_t got = 0; got < n; got++) {
			int64_t v;
			if (!mq_take(b->mq, &v))
				break;
			acc += v;
		}
		break;
	case BASELINE_CEILING: {
		ceiling_ring *r = b->ceil;
		int64_t tail = 0;
		int64_t cached_head = 0;
		for (int64_t got = 0; got < n; got++) {
			if (tail == cached_head) {
				misses = (sr_backoff)SR_BACKOFF_INIT;
				/* pairs with the producer's store-release of head */
				while ((cached_head = atomic_load_explicit(&r->head,
				    memory_order_acquire)) == tail) {
					if (drained(b, &closed_seen))
						goto done;
					miss_wait(&misses);
				}
			}
			acc += r->items[tail & r->mask];
			tail++;
			if ((tail & (BASELINE_CEILING_PUBLISH - 1)) == 0)
				/* pairs with the producer's load-acquire of tail */
				atomic_store_explicit(&r->tail, tail, memory_order_release);
		}
	done:
		atomic_store_explicit(&r->tail, tail, memory_order_release);
		break;
	}
	default:
		break;
	}
	c->acc = acc;
	c->t_end = sr_monotonic_ns();
	bench_finish_gate_arrive(&b->consumer_done);
	return NULL;
}

/* Items the consumer has taken so far (for a capped run), read from the queue's own index. */
static int64_t
bl_consumed(baseline *b)
{
	switch (b->kind) {
#ifdef BASELINE_HAVE_CK
	case BASELINE_CK_SPSC:
	case BASELINE_CK_MPMC:
		return (int64_t)ck_pr_load_uint(&b->ck->c_head);
#endif
	case BASELINE_MUTEX: {
		pthread_mutex_lock(&b->mq->mutex);
		int64_t h = b->mq->head;
		pthread_mutex_unlock(&b->mq->mutex);
		return h;
	}
	case BASELINE_CEILING:
		/* published every 64 items */
		return atomic_load_explicit(&b->ceil->tail, memory_order_acquire);
	default:
		return 0;
	}
}

/* Allocates and sets up the queue of b; 0, or -1 with a message in err. */
static int
queue_create(baseline *b, int64_t slots, char *err, size_t errlen)
{
	switch (b->kind) {
#ifdef BASELINE_HAVE_CK
	case BASELINE_CK_SPSC:
	case BASELINE_CK_MPMC:
		b->ck = aligned_alloc(128, (sizeof *b->ck + 127) / 128 * 128);
		b->ck_buf = aligned_alloc(128, ((size_t)slots * sizeof *b->ck_buf + 127) / 128 * 128);
		if (b->ck == NULL || b->ck_buf == NULL)
			goto nomem;
		memset(b->ck_buf, 0, (size_t)slots * sizeof *b->ck_buf);
		ck_ring_init(b->ck, (unsigned int)slots);
		return 0;
#endif
	case BASELINE_MUTEX:
		b->mq = calloc(1, sizeof *b->mq);
		if (b->mq == NULL)
			goto nomem;
		b->mq->items = calloc((size_t)slots, sizeof(int64_t));
		if (b->mq->items == NULL)
			goto nomem;
		b->mq->capacity = slots;
		b->mq->mask = slots - 1;
		pthread_mutex_init(&b->mq->mutex, NULL);
		pthread_cond_init(&b->mq->not_empty, NULL);
		pthread_cond_init(&b->mq->not_full, NULL);
		return 0;
	case BASELINE_CEILING:
		b->ceil = aligned_alloc(128, sizeof *b->ceil);
		if (b->ceil == NULL)
			goto nomem;
		memset(b->ceil, 0, sizeof *b->ceil);
		b->ceil->items = aligned_alloc(128, ((size_t)slots * sizeof(int64_t) + 127) / 128 * 128);
		if (b->ceil->items == NULL)
			goto nomem;
		memset(b->ceil->items, 0, (size_t)slots * sizeof(int64_t));
		b->ceil->size = slots;
		b->ceil->mask = slots - 1;
		atomic_init(&b->ceil->head, 0);
		atomic_init(&b->ceil->tail, 0);
		return 0;
	default:
		snprintf(err, errlen, "%s is not available in this build", baseline_name(b->kind));
		return -1;
	}
nomem:
	snprintf(err, errlen, "out of memory");
	return -1;
}

static void
queue_destroy(baseline *b)
{
#ifdef BASELINE_HAVE_CK
	free(b->ck);
	free(b->ck_buf);
#endif
	if (b->mq != NULL) {
		if (b->mq->items != NULL) {
			pthread_mutex_destroy(&b->mq->mutex);
			pthread_cond_destroy(&b->mq->not_empty);
			pthread_cond_destroy(&b->mq->not_full);
		}
		free(b->mq->items);
		free(b->mq);
	}
	if (b->ceil != NULL)
		free(b->ceil->items);
	free(b->ceil);
}

int
baseline_run(enum baseline_kind k, int producers, int64_t events, int64_t slots,
    int64_t deadline_ns, baseline_result *res, char *err, size_t errlen)
{
	memset(res, 0, sizeof *res);
	if (!baseline_supports(k, producers)) {
		snprintf(err, errlen, "%s does not take %d producer(s) in this build", baseline_name(k),
		    producers);
		return -1;
	}
	const int nprod = producers;
	int rc = -1;
	baseline *b = aligned_alloc(128, (sizeof *b + 127) / 128 * 128);
	bl_thread *th = aligned_alloc(128, sizeof *th * (size_t)(nprod + 1));
	pthread_t *tids = calloc((size_t)nprod + 1, sizeof *tids);
	int started = 0;
	pthread_barrier_t gate;
	bool gate_made = false;
	if (th == NULL || b == NULL || tids == NULL) {
		free(b);
		free(th);
		free(tids);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memset(b, 0, sizeof *b);
	memset(th, 0, sizeof *th * (size_t)(nprod + 1));
	b->kind = k;
	atomic_init(&b->stop, 0);
	atomic_init(&b->closed, 0);
	bench_finish_gate_init(&b->producers_done);
	bench_finish_gate_init(&b->consumer_done);
	if (queue_create(b, slots, err, errlen) != 0)
		goto out;

	if (nprod > 1) {
		if (pthread_barrier_init(&gate, NULL, (unsigned)nprod) != 0) {
			snprintf(err, errlen, "pthread_barrier_init failed");
			goto out;
		}
		gate_made = true;
	}
	/* th[0] is the consumer, th[1..nprod] the producers. */
	th[0].b = b;
	th[0].count = events;
	if (pthread_create(&tids[0], NULL, bl_consumer, &th[0]) != 0) {
		snprintf(err, errlen, "pthread_create failed");
		goto out;
	}
	started = 1;
	for (int i = 1; i <= nprod; i++) {
		th[i].b = b;
		th[i].count = events / nprod;
		th[i].gate = gate_made ? &gate : NULL;
		if (pthread_create(&tids[i], NULL, bl_producer, &th[i]) != 0) {
			snprintf(err, errlen, "pthread_create failed");
			goto out;
		}
		started++;
	}
	bool capped = !bench_finish_gate_wait(&b->producers_done, started - 1, deadline_ns) ||
	    !bench_finish_gate_wait(&b->consumer_done, 1, deadline_ns);
	int64_t t_cap = 0, consumed = events;
	if (capped) {
		t_cap = sr_monotonic_ns();
		consumed = bl_consumed(b);
		atomic_store_explicit(&b->stop, 1, memory_order_relaxed);
	}
	for (int i = 1; i < started; i++)
		pthread_join(tids[i], NULL);
	/* pairs with the load-acquire in drained(): every item is in the queue by now */
	atomic_store_explicit(&b->closed, 1, memory_order_release);
	if (b->mq != NULL) {
		pthread_mutex_lock(&b->mq->mutex);
		b->mq->closed = true;
		pthread_cond_broadcast(&b->mq->not_empty);
		pthread_mutex_unlock(&b->mq->mutex);
	}
	pthread_join(tids[0], NULL);
	started = 0;
	int64_t t_start = th[1].t_start;
	for (int i = 2; i <= nprod; i++)
		if (th[i].t_start < t_start)
			t_start = th[i].t_start;
	res->capped = capped;
	res->consumed = consumed;
	res->sum = th[0].acc;
	res->seconds = (double)((capped ? t_cap : th[0].t_end) - t_start) / 1e9;
	rc = 0;
out:
	if (started > 0) {
		/* A thread failed to start: the others may wait forever; leave them be. */
		for (int i = 0; i < started; i++)
			pthread_detach(tids[i]);
		free(tids);
		return rc;
	}
	if (gate_made)
		pthread_barrier_destroy(&gate);
	queue_destroy(b);
	bench_finish_gate_destroy(&b->producers_done);
	bench_finish_gate_destroy(&b->consumer_done);
	free(b);
	free(th);
	free(tids);
	return rc;
}
