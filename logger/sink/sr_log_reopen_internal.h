/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_reopen_internal.h: reopening file sinks (internal;
 * sr_log_sink_reopen.c): sr_log_reopen and the opt-in reopen signal.
 */
#ifndef SR_LOG_REOPEN_INTERNAL_H
#define SR_LOG_REOPEN_INTERNAL_H

#include "sr_log_internal.h"

/* "SIGHUP", "HUP", "SIGUSR1", "SIGUSR2", "none"/"off"/"0" into *signo (0: none); -1 for another. */
int sr_log__reopen_signal_parse(const char *name, int *signo);
/* "SIGHUP", "SIGUSR1", "SIGUSR2", "none"; "?" for another. */
const char *sr_log__reopen_signal_name(int signo);
/* True for 0 and the signals above. */
bool sr_log__reopen_signal_valid(int signo);
/* At open: installs the handler of opt.reopen_signal for this logger.  SR_OK or SR_ESTATE/SR_ESYS. */
int sr_log__reopen_signal_install(sr_log *log, sr_error *err);
/* At shutdown: this logger no longer answers the signal (the program's handler comes back last). */
void sr_log__reopen_signal_remove(sr_log *log);
/* End of sr_log__sinks_flush: reopens the file sinks when asked to (consumer, or sync's mutex). */
void sr_log__sinks_reopen_if_asked(sr_log *log);
/*
 * Asks for a reopen at the next end of a batch (async-signal-safe: the
 * reopen signal's handler asks too).
 */
void sr_log__sinks_ask_reopen(sr_log *log);
/* How many asked reopens were done: sr_log_reopen waits until it moves. */
int64_t sr_log__sinks_reopens_done(const sr_log *log);

#endif /* SR_LOG_REOPEN_INTERNAL_H */
