/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tp.c: the probes of tp.h's provider, linked into trace_lttng itself (not a
 * separate shared object preloaded with LD_PRELOAD): the set-up LTTng-UST's
 * manual shows first, and the one where the tracepoint's call is cheapest.
 */
#define TRACEPOINT_CREATE_PROBES
#define TRACEPOINT_DEFINE
#include "tp.h"
