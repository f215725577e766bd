/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tagged_events.h: the events of the shared-ring tests, each tagged with
 * its producer: (producer << 32) | counter, so that a consumer checks that
 * it gets every producer's events once and in order.
 */
#ifndef SC_TAGGED_EVENTS_H
#define SC_TAGGED_EVENTS_H

#include <stdbool.h>
#include <stdint.h>

/* Producer `id`'s event number `i`. */
static inline int64_t
tagged_event(int id, int64_t i)
{
	return ((int64_t)id << 32) | i;
}

/*
 * Counts event v in next[producer] when it is that producer's next one
 * (producers 0 to producers - 1); false when it is out of order, repeated
 * or from no known producer.
 */
static inline bool
tagged_in_order(int64_t *next, int producers, int64_t v)
{
	int id = (int)(v >> 32);
	int64_t i = v & 0xffffffff;
	if (id < 0 || id >= producers || i != next[id])
		return false;
	next[id]++;
	return true;
}

#endif /* SC_TAGGED_EVENTS_H */
