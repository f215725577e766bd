/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_sink_reopen.c: reopening the file sinks by their paths, for
 * logrotate's "create" mode (the file was renamed; a new one should start)
 * and for a deleted file.  sr_log_reopen and the opt-in reopen signal only
 * ask; the thread that writes the sinks does it, at the end of
 * sr_log__sinks_flush: after the buffered lines went to the old file and
 * before the next one is written, under each sink's lock, so that no line
 * is lost, split or written twice.
 *
 * The signal handler only sets each registered logger's flag (an atomic
 * store: async-signal-safe); the consumer sees it at its next batch or idle
 * timeout (100 ms with the default wait strategy).
 */
#include "sr_log_reopen_internal.h"
#include "sr_log_sink_behind_internal.h"
#include "sr_log_sink_internal.h"
#include "sr_log_thread_internal.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* The loggers that answer a reopen signal. */
#define REOPEN_LOGGERS 8
static sr_atomic_ptr registered[REOPEN_LOGGERS];
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
/* The handler the program had for each signal we took, called after ours. */
static struct sigaction previous[3];
static int installed_count[3];
static const int reopen_signals[3] = { SIGHUP, SIGUSR1, SIGUSR2 };
static const char *const reopen_signal_names[3] = { "SIGHUP", "SIGUSR1", "SIGUSR2" };

static int
signal_index(int signo)
{
	for (int i = 0; i < 3; i++)
		if (reopen_signals[i] == signo)
			return i;
	return -1;
}

bool
sr_log__reopen_signal_valid(int signo)
{
	return signo == 0 || signal_index(signo) >= 0;
}

int
sr_log__reopen_signal_parse(const char *name, int *signo)
{
	if (strcasecmp(name, "none") == 0 || strcasecmp(name, "off") == 0 || strcmp(name, "0") == 0) {
		*signo = 0;
		return 0;
	}
	for (int i = 0; i < 3; i++) {
		if (strcasecmp(name, reopen_signal_names[i]) == 0 || strcasecmp(name, reopen_signal_names[i] + 3) == 0) {
			*signo = reopen_signals[i];
			return 0;
		}
	}
	return -1;
}

const char *
sr_log__reopen_signal_name(int signo)
{
	int i = signal_index(signo);
	return signo == 0 ? "none" : i >= 0 ? reopen_signal_names[i] : "?";
}

void
sr_log__sinks_ask_reopen(sr_log *log)
{
	/* pairs with the exchange in sr_log__sinks_reopen_if_asked */
	sr_atomic_store_release_i32(&log->sinks->reopen_asked, 1);
}

static void
on_reopen_signal(int signo, siginfo_t *info, void *uctx)
{
	int saved = errno;
	for (int i = 0; i < REOPEN_LOGGERS; i++) {
		/* pairs with the store-release in sr_log__reopen_signal_install */
		sr_log *log = sr_atomic_load_acquire_ptr(&registered[i]);
		if (log != NULL && log->opt.reopen_signal == signo)
			sr_log__sinks_ask_reopen(log);
	}
	int k = signal_index(signo);
	if (k >= 0 && (previous[k].sa_flags & SA_SIGINFO) && previous[k].sa_sigaction != NULL)
		previous[k].sa_sigaction(signo, info, uctx);
	else if (k >= 0 && !(previous[k].sa_flags & SA_SIGINFO) && previous[k].sa_handler != SIG_DFL &&
	    previous[k].sa_handler != SIG_IGN)
		previous[k].sa_handler(signo);
	errno = saved;
}

int
sr_log__reopen_signal_install(sr_log *log, sr_error *err)
{
	int k = signal_index(log->opt.reopen_signal);
	if (k < 0)
		return SR_OK;
	pthread_mutex_lock(&registry_lock);
	int slot = -1;
	for (int i = 0; i < REOPEN_LOGGERS && slot < 0; i++)
		if (sr_atomic_load_acquire_ptr(&registered[i]) == NULL)
			slot = i;
	if (slot < 0) {
		pthread_mutex_unlock(&registry_lock);
		return sr_error_set(err, SR_ESTATE, "config.reopen_signal %s: %d loggers answer reopen signals "
		    "already (expected at most %d)", reopen_signal_names[k], REOPEN_LOGGERS, REOPEN_LOGGERS);
	}
	if (installed_count[k] == 0) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_sigaction = on_reopen_signal;
		sa.sa_flags = SA_SIGINFO | SA_RESTART;
		sigemptyset(&sa.sa_mask);
		if (sigaction(reopen_signals[k], &sa, &previous[k]) != 0) {
			int e = errno;
			pthread_mutex_unlock(&registry_lock);
			return sr_error_set(err, SR_ESYS, "config.reopen_signal %s: sigaction failed: %s",
			    reopen_signal_names[k], strerror(e));
		}
	}
	installed_count[k]++;
	/* pairs with the load-acquire in the handler */
	sr_atomic_store_release_ptr(&registered[slot], log);
	pthread_mutex_unlock(&registry_lock);
	return SR_OK;
}

void
sr_log__reopen_signal_remove(sr_log *log)
{
	int k = signal_index(log->opt.reopen_signal);
	if (k < 0)
		return;
	pthread_mutex_lock(&registry_lock);
	for (int i = 0; i < REOPEN_LOGGERS; i++) {
		if (sr_atomic_load_acquire_ptr(&registered[i]) == log) {
			sr_atomic_store_release_ptr(&registered[i], NULL);
			if (--installed_count[k] == 0)
				sigaction(reopen_signals[k], &previous[k], NULL);
			break;
		}
	}
	pthread_mutex_unlock(&registry_lock);
}

void
sr_log__sinks_reopen_if_asked(sr_log *log)
{
	struct sr_log_sinks *sinks = log->sinks;
	/* A relaxed look first: this runs at the end of every batch. */
	if (sr_atomic_load_relaxed_i32(&sinks->reopen_asked) == 0)
		return;
	/* pairs with the store-release in request */
	if (sr_atomic_exchange_i32(&sinks->reopen_asked, 0) == 0)
		return;
	for (int i = 0; i < sinks->n; i++) {
		sr_log_sink *s = &sinks->s[i];
		if (s->cfg.kind == SR_SINK_CTF)
			sr_log__ctf_sink_reopen(s);
		if (s->cfg.kind != SR_SINK_FILE)
			continue;
		/* What its writer was handed goes to the old file, as the buffered lines did. */
		sr_log__sink_behind_wait(s->behind);
		pthread_mutex_lock(&s->lock);
		if (!s->closed) {
			int old = s->fd;
			int e = sr_log__sink_open_file(s);
			if (e == 0) {
				close(old);
				s->broken = false;
				s->stalled = false;
				sr_log__sink_add(&s->reopens, 1);
			} else {
				sr_log__sink_add(&s->errors, 1);
				char what[160];
				snprintf(what, sizeof what, "cannot reopen: %s (writing on to the file it had open)",
				    strerror(e));
				sr_log__sink_report_once(s, what);
			}
		}
		pthread_mutex_unlock(&s->lock);
	}
	/* pairs with the load-acquire in sr_log_reopen's wait */
	sr_atomic_faa_i64(&sinks->reopen_done, 1);
}

int64_t
sr_log__sinks_reopens_done(const sr_log *log)
{
	/* pairs with the add at the end of sr_log__sinks_reopen_if_asked */
	return sr_atomic_load_acquire_i64(&log->sinks->reopen_done);
}
