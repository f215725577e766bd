/*
 * sr_log_thread_internal.h: what the logger keeps per thread (internal).
 * Each thread's own, so nothing here is locked or atomic.
 */
#ifndef SR_LOG_THREAD_INTERNAL_H
#define SR_LOG_THREAD_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "sr_log.h"

typedef struct sr_log_thread {
	bool init;
	bool named;               /* name set by sr_log_thread_name */
	int in_sink;              /* depth of sink writes on this thread */
	const sr_log *consumer_of;/* set on a logger's consumer thread */
	uint32_t tid;
	uint32_t name_gen;        /* bumped by sr_log_thread_name: per-thread rings tell the consumer */
	char name[16];
} sr_log_thread;

extern _Thread_local sr_log_thread sr_log__self;
/* Fills in the thread id and, unless named, the default name. */
void sr_log__thread_init(sr_log_thread *t);

/* The calling thread's state, initialised on first use. */
static inline sr_log_thread *
sr_log__thread(void)
{
	sr_log_thread *self = &sr_log__self;
	if (__builtin_expect(!self->init, 0))
		sr_log__thread_init(self);
	return self;
}

/* True on any seqring logger's consumer thread or inside a sink write. */
static inline bool
sr_log__must_not_wait(void)
{
	return sr_log__self.consumer_of != NULL || sr_log__self.in_sink > 0;
}

#endif /* SR_LOG_THREAD_INTERNAL_H */
