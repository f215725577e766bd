/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_recovery_internal.h: recovery of a ring directory's records
 * (sr_log_recover.c; internal).  The public face is sr_log_recovery.h.
 */
#ifndef SR_LOG_RECOVERY_INTERNAL_H
#define SR_LOG_RECOVERY_INTERNAL_H

#include "sr_log_internal.h"
#include "sr_log_recovery.h"

/*
 * Recovers the files `names` (count of them, relative to dir, as
 * sr_log__ring_dir_list lists them; the caller holds dir's lock) into
 * into's sinks, then removes them.  Every file is checked before anything
 * is written or removed.
 */
int sr_log__recover_files(sr_log *into, const char *dir, char **names, int count, sr_log_recovery *report,
    sr_error *err);
/* At open, before the backend starts: what a dead process left in log's ring directory, if anything. */
int sr_log__recover_at_open(sr_log *log, sr_error *err);

#endif /* SR_LOG_RECOVERY_INTERNAL_H */
