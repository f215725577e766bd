/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_trace_decode.c: libFuzzer target for the reading of a binary trace
 * that a ctf: sink wrote (logger/ctf/sr_log_ctf_read.c,
 * logger/decode/sr_log_decode.c).
 *
 * An input is a metadata text and one or two stream files:
 *
 *   byte 0      flags (below)
 *   u32         the metadata's length
 *   u32         the first stream file's length
 *   the metadata's bytes, then the first stream's; the rest is the second
 *   stream (with TWO_STREAMS) or nothing (a length is cut to what is left)
 *
 * FIX_HEADS makes each packet's head pass the checks a mutation cannot
 * guess (magic, the metadata's uuid, stream 0, packet_size equal to
 * content_size, consecutive sequence numbers, a time range holding any
 * event), so that mutations reach the events; inputs without it keep the
 * heads fuzzed.  FOLLOW reads once as a follower does (the stop flag
 * already set): a packet or declaration not yet whole waits instead of
 * failing.
 *
 * The files are written into a private directory and sr_log_decode_trace
 * writes what they hold into a logger (mode sync, two callback sinks, text
 * and JSON, that discard their lines): it succeeds, or fails with
 * SR_EFORMAT naming a file of the directory, SR_ESYS or SR_ENOMEM, with a
 * terminated message.  It may not crash, read outside the files' bytes,
 * leak, trip a sanitizer or hang, whatever the bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_support.h"
#include "sr_log_ctf_read_internal.h"
#include <seqring/sr_log.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum {
	FIX_HEADS = 0x01,     /* each packet's head made to pass the checks it does not need fuzzed */
	TWO_STREAMS = 0x02,   /* the rest of the input is a second stream file */
	FOLLOW = 0x04         /* read once as a follower */
};

static char dir[64];
static sr_log *log_into;

static int
discard_line(void *ctx, sr_log_level level, const char *line, size_t len)
{
	(void)ctx;
	(void)level;
	(void)line;
	(void)len;
	return 0;
}

static void
remove_dir(void)
{
	if (rmdir(dir) != 0)
		fprintf(stderr, "fuzz_trace_decode: cannot remove %s: %s\n", dir, strerror(errno));
}

static void
set_up(void)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof dir, "%s/seqring-fuzz-trace.XXXXXX", tmp != NULL && strlen(tmp) < 24 ? tmp : "/tmp");
	FUZZ_CHECK(mkdtemp(dir) != NULL, "mkdtemp %s: %s", dir, strerror(errno));
	atexit(remove_dir);
	sr_log_config c;
	sr_log_config_default(&c);
	sr_sink_config sinks[2] = { sr_sink_callback(discard_line, NULL), sr_sink_callback(discard_line, NULL) };
	sinks[1].layout = SR_LOG_LAYOUT_JSON;
	c.mode = SR_LOG_MODE_SYNC;
	c.level = SR_LOG_TRACE;
	c.max_line_bytes = 4096;
	c.sinks = sinks;
	c.sink_count = 2;
	c.ignore_environment = true;
	c.close_at_exit = false;
	sr_error err;
	log_into = sr_log_open(&c, &err);
	FUZZ_CHECK(log_into != NULL, "open the logger: %s", err.message);
}

/* The uuid the metadata gives, if it parses that far; zeros otherwise. */
static void
metadata_uuid(const unsigned char *text, size_t n, uint8_t uuid[16])
{
	sr_ctf_metadata m;
	memset(&m, 0, sizeof m);
	sr_error err;
	(void)sr_ctf__metadata_parse(&m, (const char *)text, n, false, "fuzz metadata", &err);
	memcpy(uuid, m.uuid, 16);
	sr_ctf__metadata_free(&m);
}

/* Each packet's head made to pass its checks: the packets follow each other by their content_size. */
static void
fix_heads(unsigned char *s, size_t n, const uint8_t uuid[16])
{
	uint64_t seq = 0;
	for (size_t at = 0; n - at >= sizeof(sr_ctf_packet_head);) {
		sr_ctf_packet_head h;
		memcpy(&h, s + at, sizeof h);
		h.magic = SR_CTF_MAGIC;
		memcpy(h.uuid, uuid, sizeof h.uuid);
		h.stream_id = 0;
		uint64_t size = h.content_size / 8;
		if (size < sizeof h || size > n - at)
			size = n - at;  /* the rest of the file */
		h.content_size = h.packet_size = size * 8;
		h.packet_seq_num = seq++;
		h.stream_instance_id = 0;
		h.timestamp_begin = 0;
		h.timestamp_end = INT64_MAX;
		memcpy(s + at, &h, sizeof h);
		at += (size_t)size;
	}
}

static void
write_file(const char *name, const unsigned char *bytes, size_t n)
{
	char path[160];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	FUZZ_CHECK(fd >= 0, "create %s: %s", path, strerror(errno));
	size_t done = 0;
	while (done < n) {
		ssize_t w = write(fd, bytes + done, n - done);
		FUZZ_CHECK(w > 0, "write %s: %s", path, strerror(errno));
		done += (size_t)w;
	}
	close(fd);
}

static void
remove_file(const char *name)
{
	char path[160];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FUZZ_CHECK(unlink(path) == 0 || errno == ENOENT, "remove %s: %s", path, strerror(errno));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (log_into == NULL)
		set_up();
	fuzz_reader in = { data, size };
	unsigned flags = fuzz_u8(&in);
	size_t len[3];
	len[0] = fuzz_u32(&in);
	len[1] = fuzz_u32(&in);
	if (len[0] > in.n)
		len[0] = in.n;
	if (len[1] > in.n - len[0])
		len[1] = in.n - len[0];
	len[2] = flags & TWO_STREAMS ? in.n - len[0] - len[1] : 0;
	unsigned char *file[3];
	for (int i = 0; i < 3; i++) {
		/* Exactly the file's bytes: ASan sees a read past them (the decoder reads its own copies). */
		file[i] = malloc(len[i] > 0 ? len[i] : 1);
		FUZZ_CHECK(file[i] != NULL, "allocate %zu bytes", len[i]);
		memcpy(file[i], in.p, len[i]);
		in.p += len[i];
		in.n -= len[i];
	}
	if (flags & FIX_HEADS) {
		uint8_t uuid[16];
		metadata_uuid(file[0], len[0], uuid);
		fix_heads(file[1], len[1], uuid);
		fix_heads(file[2], len[2], uuid);
	}
	write_file("metadata", file[0], len[0]);
	write_file("stream-1", file[1], len[1]);
	if (flags & TWO_STREAMS)
		write_file("stream-2", file[2], len[2]);

	volatile sig_atomic_t stop = 1;
	sr_trace_decode_options options = { .follow = (flags & FOLLOW) != 0, .poll_ms = 1, .stop = &stop };
	sr_trace_decode_report report;
	sr_error err;
	int rc = sr_log_decode_trace(log_into, dir, &options, &report, &err);
	if (rc != SR_OK) {
		FUZZ_CHECK(rc == SR_EFORMAT || rc == SR_ESYS || rc == SR_ENOMEM, "rc %d: %s", rc, err.message);
		FUZZ_CHECK(memchr(err.message, '\0', sizeof err.message) != NULL, "message not terminated");
		FUZZ_CHECK(rc != SR_EFORMAT || strstr(err.message, dir) != NULL, "the message does not name the file: %s",
		    err.message);
	}
	FUZZ_CHECK(report.streams == ((flags & TWO_STREAMS) ? 2u : 1u), "%u streams", report.streams);
	FUZZ_CHECK(report.events <= size, "%llu events of %zu bytes", (unsigned long long)report.events, size);

	remove_file("metadata");
	remove_file("stream-1");
	remove_file("stream-2");
	for (int i = 0; i < 3; i++)
		free(file[i]);
	return 0;
}
