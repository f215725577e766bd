/* SPDX-License-Identifier: Apache-2.0 */
/*
 * background.c: a call that may block, run on a thread of its own.
 */
#include "scenarios.h"

static void *
background_main(void *arg)
{
	sc_background *b = arg;
	b->rc = b->fn(b->arg);
	atomic_store(&b->done, 1);
	return NULL;
}

void
sc_background_start(sc_background *b, int (*fn)(void *arg), void *arg)
{
	b->fn = fn;
	b->arg = arg;
	b->rc = 0;
	atomic_init(&b->done, 0);
	pthread_create(&b->thread, NULL, background_main, b);
}

bool
sc_background_returned_within(sc_background *b, int64_t ns)
{
	return sc_done_within(&b->done, ns);
}

int
sc_background_join(sc_background *b)
{
	pthread_join(b->thread, NULL);
	return b->rc;
}
