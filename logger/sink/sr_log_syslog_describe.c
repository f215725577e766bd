/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_syslog_describe.c: the syslog sink in words: its target
 * ("tcp://HOST:PORT", "unix:PATH", "local /dev/log"), the whole
 * configuration for sr_log_describe, and the APP-NAME it takes from the
 * program when none is configured.
 */
#include "sr_log_identity_internal.h"
#include "sr_log_syslog_state_internal.h"

#include <errno.h>
#include <stdio.h>

static const char *const transport_names[] = { "local", "udp", "tcp", "unix", "unix-stream", "unix-dgram" };

void
sr_log__syslog_target(const sr_sink_config *c, char *buf, size_t size)
{
	unsigned t = (unsigned)c->syslog_transport;
	const char *name = t < 6 ? transport_names[t] : "?";
	if (c->syslog_transport == SR_SYSLOG_UDP || c->syslog_transport == SR_SYSLOG_TCP)
		snprintf(buf, size, "%s://%s", name, c->syslog_address != NULL ? c->syslog_address : "?");
	else if (c->syslog_transport == SR_SYSLOG_LOCAL)
		snprintf(buf, size, "local %s", c->syslog_address != NULL ? c->syslog_address : "/dev/log");
	else
		snprintf(buf, size, "%s:%s", name, c->syslog_address != NULL ? c->syslog_address : "?");
}

void
sr_log__syslog_describe(const sr_sink_config *c, char *buf, size_t size)
{
	char target[300];
	sr_log__syslog_target(c, target, sizeof target);
	char app[64];
	if (c->syslog_app != NULL)
		snprintf(app, sizeof app, "%s", c->syslog_app);
	else
		sr_log__program_name(app, sizeof app);
	snprintf(buf, size, "syslog %s level=%s facility=%s format=%d app=%s timeout=%d reconnect_max=%d",
	    target, sr_log_level_name(c->level), sr_log__syslog_facility_name(c->syslog_facility),
	    (int)c->syslog_format, app, c->write_timeout_ms, c->reconnect_max_ms);
}
