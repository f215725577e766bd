/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_ring_files_internal.h: a logger's rings kept recoverable in its
 * ring directory (sr_log_ring_files.c; internal).
 */
#ifndef SR_LOG_RING_FILES_INTERNAL_H
#define SR_LOG_RING_FILES_INTERNAL_H

#include "sr_error.h"
#include "sr_log_internal.h"

/*
 * At open, after the sinks and before the categories: opens the ring
 * directory (sr_log__ring_dir_open), makes the first file sink the tracked
 * one and notes the clock.
 */
int sr_log__ring_files_open(sr_log *log, const char *dir, sr_error *err);
/*
 * The consumer, after a batch's end (the sinks' buffers written): every
 * ring's written sequence moves to its handled record; the clock is noted.
 */
void sr_log__ring_files_batch_written(sr_log *log);

#endif /* SR_LOG_RING_FILES_INTERNAL_H */
