/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_category_notices.c: handles that write nothing say so.  The handle
 * a NULL logger gives (sr_log_open failed, and the program logs anyway)
 * writes one line on stderr at its first call, naming why the open failed;
 * the registry reports a category name it refused.  Each line is written
 * with one write(2) and no stdio, since a log call may come from a signal
 * handler.
 */
#include "sr_fmt_escape_internal.h"
#include "sr_log_category_notices_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/*
 * What sr_log_category and sr_log_root give for a NULL logger (sr_log_open
 * failed, and the program logs anyway).  Its call-site level lets the first
 * call into the frontend, which calls sr_log__call_without_logger: one line
 * on stderr says why nothing is logged, then the handle is off.
 */
sr_category sr_log__no_logger = {
	.level = SR_LOG_TRACE, .id = -1, .log = NULL, .name = "no logger", .write_level = SR_LOG_OFF,
	.fast_key = SR_LOG__NO_FAST_KEY   /* never the inline path: its first call reaches the frontend */
};
static sr_atomic_i32 no_logger_reported;

/* Why the last sr_log_open failed, for that line. */
static pthread_mutex_t open_failure_lock = PTHREAD_MUTEX_INITIALIZER;
static char open_failure[SR_ERROR_MESSAGE_MAX];

void
sr_log__notice_line(const char *head, const char *text, const char *tail)
{
	char data[SR_ERROR_MESSAGE_MAX + 256 + SR_FMT_LINE_RESERVE];
	sr_fmt_buf b = { data, 0, sizeof data - SR_FMT_LINE_RESERVE, 0 };
	sr_fmt_buf_put(&b, "seqring: ", 9);
	sr_fmt_buf_put(&b, head, strlen(head));
	size_t start = b.len;
	sr_fmt_buf_put(&b, text, strlen(text));
	sr_fmt_escape_controls(&b, start);
	sr_fmt_buf_put(&b, tail, strlen(tail));
	b.data[b.len++] = '\n';
	ssize_t rc = write(2, b.data, b.len);
	(void)rc;  /* nowhere left to report a failure to */
}

void
sr_log__note_open_failure(const char *message)
{
	pthread_mutex_lock(&open_failure_lock);
	snprintf(open_failure, sizeof open_failure, "%s", message != NULL ? message : "");
	pthread_mutex_unlock(&open_failure_lock);
}

void
sr_log__call_without_logger(sr_category *cat)
{
	if (cat != &sr_log__no_logger)
		return;
	/* Relaxed: the line is written once whoever comes first; no data is published. */
	sr_atomic_store_relaxed_i32(&sr_log__no_logger.level, SR_LOG_OFF);
	if (sr_atomic_exchange_i32(&no_logger_reported, 1) != 0)
		return;
	static const char tail[] = " (this line is written once; check what sr_log_open returns)";
	/* trylock: a signal handler's call must not wait for the lock its own thread may hold. */
	if (pthread_mutex_trylock(&open_failure_lock) == 0) {
		if (open_failure[0] != '\0')
			sr_log__notice_line("nothing is logged: sr_log_open failed: ", open_failure, tail);
		else
			sr_log__notice_line("nothing is logged: a log call went through a category of a NULL logger", "", tail);
		pthread_mutex_unlock(&open_failure_lock);
	} else {
		sr_log__notice_line("nothing is logged: a log call went through a category of a NULL logger", "", tail);
	}
}
