/* SPDX-License-Identifier: Apache-2.0 */
/* sr_publish.c: claim, write and publish in one call. */
#include "sr_publish.h"

int
sr_publish_events_until(sr_sequencer *s, sr_ring *ring, int64_t n, int64_t deadline_ns,
    sr_event_writer write, void *ctx, int64_t *first)
{
	if (first != NULL)
		*first = INT64_MIN;
	if (s == NULL || ring == NULL || write == NULL)
		return SR_EINVAL;
	if (ring->slot_count != s->buffer_size)
		return SR_EINVAL;
	int64_t lo;
	int rc = sr_sequencer_claim_until(s, n, deadline_ns, &lo);
	if (rc != SR_OK)
		return rc;
	if (first != NULL)
		*first = lo;
	int result = SR_OK;
	for (int64_t i = 0; i < n; i++) {
		if (result == SR_OK)
			result = write(ctx, sr_ring_slot(ring, lo + i), lo + i, i);
		/* Not an else: the slot whose writer just failed is skipped too. */
		if (result != SR_OK)
			sr_sequencer_mark_skipped(s, lo + i);
	}
	sr_sequencer_publish_range(s, lo, lo + n - 1);
	return result;
}
