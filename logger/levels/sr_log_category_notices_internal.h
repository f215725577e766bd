/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_category_notices_internal.h: the lines on stderr of handles that
 * write nothing (internal; sr_log_category_notices.c).
 */
#ifndef SR_LOG_CATEGORY_NOTICES_INTERNAL_H
#define SR_LOG_CATEGORY_NOTICES_INTERNAL_H

#include "sr_log_internal.h"

/*
 * What sr_log_category and sr_log_root give for a NULL logger: its
 * call-site level lets the first call into the frontend, which calls
 * sr_log__call_without_logger.
 */
extern sr_category sr_log__no_logger;
/*
 * Writes "seqring: <head><text><tail>" on stderr as one line, the control
 * characters of text (a name, a message quoting one) escaped.
 */
void sr_log__notice_line(const char *head, const char *text, const char *tail);
/*
 * Keeps why the last sr_log_open failed, for the line a call through a NULL
 * logger's category writes; NULL (the last open succeeded) forgets it.
 */
void sr_log__note_open_failure(const char *message);
/*
 * The frontend's call through a category without a logger: for the handle
 * that sr_log_category gives a NULL logger, the first call writes one line
 * to stderr saying why nothing is logged (the open's error) and turns it off.
 */
void sr_log__call_without_logger(sr_category *cat);

#endif /* SR_LOG_CATEGORY_NOTICES_INTERNAL_H */
