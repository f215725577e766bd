/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_sequencer_internal.h: a sequencer built in memory its caller owns (a
 * mapping shared between processes), and the locks' robust locking.
 */
#ifndef SR_SEQUENCER_INTERNAL_H
#define SR_SEQUENCER_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>

#include "sr_error.h"
#include "sr_sequencer.h"

/* The checks of sr_sequencer_create, with its messages. */
int sr_sequencer__config_check(const sr_sequencer_config *config, sr_error *err);

/*
 * Builds a sequencer at s (SR_CACHELINE-aligned, sizeof(sr_sequencer)
 * bytes) over arrays its caller placed: available, buffer_size int64_t
 * (multi producer only; NULL otherwise) and skipped, buffer_size int64_t
 * already zero.  process_shared: its wait strategy and locks work across
 * processes that map s (the arrays must then be in the same mapping, so
 * that their offsets from s are the same in every process).  Undo with
 * sr_sequencer__fini.
 */
int sr_sequencer__init_at(sr_sequencer *s, const sr_sequencer_config *config,
    sr_atomic_i64 *available, sr_atomic_i64 *skipped, bool process_shared, sr_error *err);

/* Releases what sr_sequencer__init_at initialised (not the memory). */
void sr_sequencer__fini(sr_sequencer *s);

/* Locks one of the sequencer's robust mutexes; 0 or an errno value. */
int sr_sequencer__lock(pthread_mutex_t *m);

#endif /* SR_SEQUENCER_INTERNAL_H */
