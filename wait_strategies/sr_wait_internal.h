/* SPDX-License-Identifier: Apache-2.0 */
/* sr_wait_internal.h: what the library's own layers need of a wait strategy beyond its API. */
#ifndef SR_WAIT_INTERNAL_H
#define SR_WAIT_INTERNAL_H

#include "sr_error.h"
#include "sr_wait.h"

/*
 * As sr_wait_init, for a wait strategy placed in a mapping shared between
 * processes: its waiters and publishers may be in any process that maps it.
 */
int sr_wait__init_shared(sr_wait *w, const sr_wait_config *config, sr_error *err);

#endif /* SR_WAIT_INTERNAL_H */
