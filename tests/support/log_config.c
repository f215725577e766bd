/* SPDX-License-Identifier: Apache-2.0 */
/*
 * log_config.c: a test's logger configuration: the environment cleared, one
 * sink.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log_support.h"

void
tl_clear_env(void)
{
	for (;;) {
		char name[256] = "";
		for (char **e = environ; *e != NULL; e++) {
			if (strncmp(*e, "SEQRING_LOG", 11) == 0) {
				const char *eq = strchr(*e, '=');
				size_t n = eq != NULL ? (size_t)(eq - *e) : strlen(*e);
				if (n < sizeof name) {
					memcpy(name, *e, n);
					name[n] = '\0';
				}
				break;
			}
		}
		if (name[0] == '\0')
			return;
		unsetenv(name);
	}
}

void
tl_config_sink(sr_log_config *c, sr_sink_config *sink)
{
	sr_log_config_default(c);
	c->sinks = sink;
	c->sink_count = 1;
}

void
tl_mutated_config(sr_log_config *c, sr_sink_config *sink, const char *path, tl_mutation *mutate)
{
	*sink = sr_sink_file(path);
	tl_config_sink(c, sink);
	c->ring_slots = 64;
	mutate(c, sink);
}

void
tl_configure(sr_log_config *c, sr_sink_config *sink, tl_settings settings)
{
	tl_config_sink(c, sink);
	if (settings.mode != 0)
		c->mode = settings.mode;
	if (settings.full_policy != 0)
		c->full_policy = settings.full_policy;
	if (settings.layout != 0)
		c->layout = settings.layout;
	if (settings.ignore_environment)
		c->ignore_environment = true;
	if (settings.shared_ring)
		c->producer = SR_LOG_PRODUCER_SHARED;
	if (settings.ring_slots != 0)
		c->ring_slots = settings.ring_slots;
	if (settings.thread_ring_slots != 0)
		c->thread_ring_slots = settings.thread_ring_slots;
	if (settings.slot_size != 0)
		c->slot_size = settings.slot_size;
	if (settings.max_message_bytes != 0)
		c->max_message_bytes = settings.max_message_bytes;
	if (settings.wait_strategy != NULL)
		c->wait_strategy = settings.wait_strategy;
}
