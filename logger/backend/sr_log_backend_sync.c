/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_backend_sync.c: the sync backend, a baseline synchronous logger:
 * callers format and write under one mutex, one write(2) per message per
 * sink (immediate_flush, the default), or into the sinks' buffers until one
 * fills, sr_log_flush or close (immediate_flush false, as Log4j 2's
 * immediateFlush="false").  There is no queue, so no full-queue policy.
 */
#include "sr_log_backend_internal.h"
#include "sr_log_clock_internal.h"
#include "sr_log_consumer_internal.h"
#include "sr_log_sink_internal.h"
#include "sr_log_thread_internal.h"
#include "sr_log_direct_internal.h"

#include <pthread.h>
#include <stdlib.h>

typedef struct sr_log_sync {
	pthread_mutex_t lock;     /* the one mutex: its holder is the sinks' only user */
} sr_log_sync;

static void
sync_emit(sr_log *log, const sr_log_rec *h, const sr_fmt_gather *g)
{
	sr_log_sync *s = log->state;
	/*
	 * A sink callback logging from inside the one mutex, or a signal
	 * handler that interrupted a call holding it, would deadlock on it.
	 */
	if (sr_log__self.in_sink > 0 || sr_log__nested_call()) {
		sr_log__count_drop(log, h->level);
		return;
	}
	pthread_mutex_lock(&s->lock);
	if (sr_atomic_load_acquire_i32(&log->shut)) {
		/*
		 * pairs with the store-release in sr_log_shutdown, which then takes
		 * this lock to flush the sinks for the last time before closing
		 * them: a caller that comes after the shutdown began is counted as
		 * a drop, never accepted, as in the other modes.
		 */
		pthread_mutex_unlock(&s->lock);
		sr_log__count_drop(log, h->level);
		return;
	}
	if (log->clk != NULL)
		sr_log__clock_refresh(log, false); /* no consumer here: callers keep tsc calibrated */
	sr_log__write_by_caller(log, h, g, !log->opt.immediate_flush);
	pthread_mutex_unlock(&s->lock);
}

static int
sync_flush(sr_log *log)
{
	sr_log_sync *s = log->state;
	pthread_mutex_lock(&s->lock);
	sr_log__report_drops(log, true);
	/* Lines buffered without immediate_flush (under this lock, see sync_emit). */
	sr_log__count_lost(log, sr_log__sinks_flush(log));
	pthread_mutex_unlock(&s->lock);
	return SR_OK;
}

static int
sync_start(sr_log *log, const sr_log_config *c, const sr_wait_config *wait, sr_error *err)
{
	(void)c;
	(void)wait;
	sr_log_sync *s = calloc(1, sizeof *s);
	if (s == NULL)
		return sr_error_set(err, SR_ENOMEM, "cannot allocate the sync backend");
	pthread_mutex_init(&s->lock, NULL);
	log->state = s;
	return SR_OK;
}

static void
sync_stop(sr_log *log)
{
	if (log->state != NULL)
		sync_flush(log);
}

static void
sync_fork(sr_log *log, int phase)
{
	sr_log_sync *s = log->state;
	if (phase == SR_LOG_FORK_PREPARE)
		pthread_mutex_lock(&s->lock);
	else
		pthread_mutex_unlock(&s->lock); /* the child: this thread took it before the fork */
}

static void
sync_destroy(sr_log *log)
{
	sr_log_sync *s = log->state;
	if (s == NULL)
		return;
	pthread_mutex_destroy(&s->lock);
	free(s);
	log->state = NULL;
}

const sr_log_backend sr_log__sync_backend = {
	.start = sync_start,
	.emit = sync_emit,
	.flush = sync_flush,
	.dump_backtrace = NULL,
	.stop = sync_stop,
	.fork = sync_fork,
	.destroy = sync_destroy,
};
