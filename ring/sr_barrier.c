/* SPDX-License-Identifier: Apache-2.0 */
#include "sr_barrier.h"

#include <string.h>

int
sr_barrier_init(sr_barrier *b, sr_sequencer *s,
    const sr_sequence *const *dependents, int dependent_count, sr_error *err)
{
	if (b == NULL || s == NULL)
		return sr_error_set(err, SR_EINVAL, "barrier or sequencer is NULL");
	if (dependent_count < 0 || dependent_count > SR_BARRIER_MAX_DEPENDENTS)
		return sr_error_set(err, SR_EINVAL,
		    "dependent_count %d is out of range: expected 0 to %d",
		    dependent_count, SR_BARRIER_MAX_DEPENDENTS);
	if (dependent_count > 0 && dependents == NULL)
		return sr_error_set(err, SR_EINVAL,
		    "dependents is NULL but dependent_count is %d", dependent_count);
	memset(b, 0, sizeof *b);
	b->sequencer = s;
	for (int i = 0; i < dependent_count; i++) {
		if (dependents[i] == NULL)
			return sr_error_set(err, SR_EINVAL, "dependent sequence %d is NULL", i);
		b->dependents[i] = dependents[i];
	}
	b->dependent_count = dependent_count;
	sr_atomic_store_relaxed_i32(&b->alerted.value, 0);
	return SR_OK;
}
