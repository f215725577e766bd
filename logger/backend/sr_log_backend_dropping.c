/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_backend_dropping.c: the backend of a forked child's logger with
 * SR_LOG_FORK_DROP.  The child has none of the parent's consumer threads, so
 * every call is counted as dropped and nothing is written; the original
 * backend's state, left not started by the fork, is destroyed at close.
 */
#include "sr_log_backend_internal.h"
#include "sr_log_consumer_internal.h"

static void
dropping_emit(sr_log *log, const sr_log_rec *h, const sr_fmt_gather *g)
{
	(void)g;
	sr_log__count_drop(log, h->level);
}

static int
dropping_flush(sr_log *log)
{
	(void)log;
	return SR_OK; /* nothing was taken: nothing to wait for */
}

static void
dropping_stop(sr_log *log)
{
	(void)log;
}

static void
dropping_destroy(sr_log *log)
{
	/* The state is the original backend's, left not started by the fork. */
	if (log->forked_backend != NULL)
		log->forked_backend->destroy(log);
}

static void
dropping_fork(sr_log *log, int phase)
{
	(void)log;
	(void)phase;
}

const sr_log_backend sr_log__dropping_backend = {
	.emit = dropping_emit,
	.flush = dropping_flush,
	.stop = dropping_stop,
	.fork = dropping_fork,
	.destroy = dropping_destroy,
};
