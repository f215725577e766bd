/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_sink_config.c: the public constructors of a sink's configuration
 * (sr_sink_file, sr_sink_rotating, sr_sink_fd, sr_sink_null, sr_sink_syslog,
 * sr_sink_journald, sr_sink_callback): each starts from sr_sink_file's defaults.  They fill a
 * struct and call nothing of the logger, so that any file may call them
 * (the syslog sink's parser does) without making a circle.
 */
#include "sr_log_config.h"

#include <string.h>

/*
 * A file's or descriptor's buffer holds a batch's lines (a batch is up to
 * a few thousand records): one write(2) a batch.  Smaller, the batch takes
 * a write each time the buffer fills, and the kernel's share per line grows
 * (perf/README.md, finding 10).  The other sinks keep 64 KiB: a syslog
 * sink's datagrams, a ctf: sink's packets, a callback's lines.
 */
enum { FILE_BUFFER_BYTES = 1024 * 1024, OTHER_BUFFER_BYTES = 64 * 1024 };

sr_sink_config
sr_sink_file(const char *path)
{
	sr_sink_config c;
	memset(&c, 0, sizeof c);
	c.kind = SR_SINK_FILE;
	c.level = SR_LOG_TRACE;
	c.path = path;
	c.file_mode = 0640;
	c.fd = -1;
	c.buffer_bytes = FILE_BUFFER_BYTES;
	c.write_timeout_ms = 100;
	c.write_behind = true;
	c.max_file_bytes = 0;
	c.keep_files = 5;
	c.rotate_daily = false;
	c.layout = SR_LOG_LAYOUT_LOGGER;
	c.pattern = NULL;
	c.syslog_transport = SR_SYSLOG_LOCAL;
	c.syslog_facility = 1; /* user */
	c.syslog_format = SR_SYSLOG_5424;
	c.reconnect_max_ms = 2000;
	return c;
}

sr_sink_config
sr_sink_rotating(const char *path, uint64_t max_file_bytes, int keep_files)
{
	sr_sink_config c = sr_sink_file(path);
	c.max_file_bytes = max_file_bytes;
	c.keep_files = keep_files;
	return c;
}

sr_sink_config
sr_sink_fd(int fd)
{
	sr_sink_config c = sr_sink_file(NULL);
	c.kind = SR_SINK_FD;
	c.fd = fd;
	return c;
}

sr_sink_config
sr_sink_null(void)
{
	sr_sink_config c = sr_sink_file(NULL);
	c.kind = SR_SINK_NULL;
	c.buffer_bytes = OTHER_BUFFER_BYTES;
	return c;
}

sr_sink_config
sr_sink_ctf(const char *dir)
{
	sr_sink_config c = sr_sink_file(dir);
	c.kind = SR_SINK_CTF;
	c.buffer_bytes = OTHER_BUFFER_BYTES;
	return c;
}

sr_sink_config
sr_sink_syslog(sr_syslog_transport transport, const char *address)
{
	sr_sink_config c = sr_sink_file(NULL);
	c.kind = SR_SINK_SYSLOG;
	c.buffer_bytes = OTHER_BUFFER_BYTES;
	c.syslog_transport = transport;
	c.syslog_address = address;
	/* The local daemons (journald, rsyslog's imuxsock) read the traditional form. */
	if (transport == SR_SYSLOG_LOCAL)
		c.syslog_format = SR_SYSLOG_3164;
	return c;
}

sr_sink_config
sr_sink_journald(const char *socket_path)
{
	sr_sink_config c = sr_sink_file(NULL);
	c.kind = SR_SINK_JOURNALD;
	c.buffer_bytes = OTHER_BUFFER_BYTES;
	c.syslog_address = socket_path;
	return c;
}

sr_sink_config
sr_sink_callback(sr_sink_write_fn write, void *ctx)
{
	sr_sink_config c = sr_sink_file(NULL);
	c.kind = SR_SINK_CALLBACK;
	c.buffer_bytes = OTHER_BUFFER_BYTES;
	c.write = write;
	c.ctx = ctx;
	return c;
}
