/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_ctf_streams.c: the trace's streams, one per thread and origin,
 * each a file of whole packets.  Events are appended to the stream's
 * buffer inside an open packet; a packet ends when the batch ends, the
 * buffer is full or the thread's name changes, and the buffer's packets go
 * to the file in one write.  Rotation renames stream-TID to stream-TID.1
 * (and so on up to keep_files) between two writes, so a file always holds
 * whole packets.  Paths are made without snprintf and writes without
 * allocation, so that the crash handler can write too.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "sr_log_ctf_writer_internal.h"
#include "sr_log_date_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

/* ---- paths ---- */

static void
put_text(sr_fmt_buf *b, const char *s)
{
	sr_fmt_buf_put(b, s, strlen(s));
}

/* DIR/stream-TID[-origin][.generation] (generation 0: the current file), cut to size - 1 bytes. */
static void
stream_path(const sr_log_ctf *t, uint32_t tid, int origin, int generation, char *out, size_t size)
{
	sr_fmt_buf b = { out, 0, size - 1, 0 };
	put_text(&b, t->dir);
	put_text(&b, "/" SR_CTF_STREAM_PREFIX);
	sr_log__put_uint(&b, tid, 1);
	put_text(&b, sr_ctf__origin_suffix(origin));
	if (generation > 0) {
		sr_fmt_buf_putc(&b, '.');
		sr_log__put_uint(&b, (uint64_t)generation, 1);
	}
	out[b.len] = '\0';
}

static int
open_path(const sr_log_ctf *t, const char *path)
{
	int fd;
	do
		fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, t->opt.file_mode);
	while (fd < 0 && errno == EINTR);
	return fd;
}

static bool
ensure_open(sr_log_ctf *t, sr_ctf_stream *s)
{
	if (s->fd >= 0)
		return true;
	char path[PATH_MAX];
	stream_path(t, s->tid, s->origin, 0, path, sizeof path);
	s->fd = open_path(t, path);
	struct stat st;
	s->file_bytes = s->fd >= 0 && fstat(s->fd, &st) == 0 ? (uint64_t)st.st_size : 0;
	return s->fd >= 0;
}

/* stream-TID.(k-1) to stream-TID.k, from the oldest kept down; then a new stream-TID. */
static void
rotate(sr_log_ctf *t, sr_ctf_stream *s)
{
	char from[PATH_MAX], to[PATH_MAX];
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	if (t->opt.keep_files == 0) {
		stream_path(t, s->tid, s->origin, 0, from, sizeof from);
		(void)unlink(from);
	}
	for (int k = t->opt.keep_files; k >= 1; k--) {
		stream_path(t, s->tid, s->origin, k - 1, from, sizeof from);
		stream_path(t, s->tid, s->origin, k, to, sizeof to);
		(void)rename(from, to);  /* a missing one (fewer files so far) is no error */
	}
	sr_atomic_faa_i64(&t->rotations, 1);  /* a counter for sr_log_stats only */
	(void)ensure_open(t, s);
}

static bool
write_all(int fd, const unsigned char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		p += w;
		n -= (size_t)w;
	}
	return true;
}

/* Counts a write's outcome (counters only: relaxed adds). */
static void
count_write(sr_log_ctf *t, bool ok, size_t bytes, uint64_t events)
{
	if (ok) {
		sr_atomic_faa_i64(&t->writes, 1);
		sr_atomic_faa_i64(&t->bytes, (int64_t)bytes);
		sr_atomic_faa_i64(&t->events, (int64_t)events);
	} else {
		sr_atomic_faa_i64(&t->errors, 1);
		sr_atomic_faa_i64(&t->lost_events, (int64_t)events);
	}
}

/* ---- packets ---- */

/* A thread's name as a packet holds it: 16 bytes, NUL-padded (a name of 16 has no NUL). */
static void
name_of(char out[16], const char *name)
{
	memset(out, 0, 16);
	if (name != NULL)
		memcpy(out, name, strnlen(name, 16));
}

static void
fill_head(const sr_log_ctf *t, const sr_ctf_stream *s, sr_ctf_packet_head *h, uint64_t ts_begin, uint64_t ts_end,
    size_t bytes, const char *name)
{
	h->magic = SR_CTF_MAGIC;
	memcpy(h->uuid, t->uuid, sizeof h->uuid);
	h->stream_id = 0;
	h->stream_instance_id = s->instance_id;
	h->timestamp_begin = ts_begin;
	h->timestamp_end = ts_end;
	h->content_size = (uint64_t)bytes * 8;
	h->packet_size = h->content_size;
	h->packet_seq_num = s->packet_seq_num;
	h->events_discarded = s->events_discarded;
	h->tid = s->tid;
	memcpy(h->thread_name, name, sizeof h->thread_name);
}

/* The drops the logger counted since a packet last carried them (the consumer's streams only). */
static void
carry_drops(sr_log_ctf *t, sr_ctf_stream_table *table, sr_ctf_stream *s)
{
	if (table != &t->consumer || t->opt.dropped == NULL)
		return;
	uint64_t total = 0;
	for (int l = 0; l < SR_LOG_LEVEL_COUNT; l++)
		total += (uint64_t)sr_atomic_load_relaxed_i64(&t->opt.dropped[l]);
	if (total > t->attributed_drops) {
		s->events_discarded += total - t->attributed_drops;
		t->attributed_drops = total;
	}
}

/* Ends the open packet: its head is written in front of its events. */
static void
end_packet(sr_log_ctf *t, sr_ctf_stream_table *table, sr_ctf_stream *s)
{
	if (s->packet_events == 0)
		return;
	uint64_t discarded_before = s->events_discarded;
	carry_drops(t, table, s);
	if (s->packet_seq_num == 0 && s->events_discarded > discarded_before) {
		/*
		 * A reader counts a packet's drops from the packet before it, and a
		 * stream's first has none: an empty packet goes ahead of it, which
		 * counts none (room for it was allocated with the buffer).
		 */
		sr_ctf_packet_head lead;
		uint64_t carried = s->events_discarded;
		s->events_discarded = discarded_before;
		fill_head(t, s, &lead, s->ts_begin, s->ts_begin, sizeof lead, s->name);
		s->events_discarded = carried;
		memmove(s->buf + s->packet_at + sizeof lead, s->buf + s->packet_at, s->len - s->packet_at);
		memcpy(s->buf + s->packet_at, &lead, sizeof lead);
		s->packet_seq_num++;
		s->packet_at += sizeof lead;
		s->len += sizeof lead;
	}
	sr_ctf_packet_head h;
	fill_head(t, s, &h, s->ts_begin, s->ts_end, s->len - s->packet_at, s->name);
	memcpy(s->buf + s->packet_at, &h, sizeof h);
	s->packet_seq_num++;
	s->packet_events = 0;
}

/* Writes the buffer's whole packets to the file (rotating first when due); empties it. */
static void
write_buffer(sr_log_ctf *t, sr_ctf_stream *s)
{
	size_t n = s->packet_events > 0 ? s->packet_at : s->len;
	if (n == 0)
		return;
	if (t->opt.max_file_bytes > 0 && s->file_bytes > 0 && s->file_bytes + n > t->opt.max_file_bytes)
		rotate(t, s);
	bool ok = ensure_open(t, s) && write_all(s->fd, s->buf, n);
	if (ok)
		s->file_bytes += n;
	count_write(t, ok, n, s->buffered_events - s->packet_events);
	/* An open packet (only when a write ran ahead of its end) moves to the front. */
	memmove(s->buf, s->buf + n, s->len - n);
	s->len -= n;
	s->packet_at = 0;
	s->buffered_events = s->packet_events;
}

/* ---- the table ---- */

static size_t
stream_hash(uint32_t tid, int origin)
{
	uint64_t h = ((uint64_t)tid * 4 + (uint64_t)origin) * 0x9E3779B97F4A7C15u;
	return (size_t)(h >> 20);
}

static sr_ctf_stream *
table_find(const sr_ctf_stream_table *table, uint32_t tid, int origin)
{
	if (table->cap == 0)
		return NULL;
	size_t mask = table->cap - 1;
	for (size_t i = stream_hash(tid, origin) & mask;; i = (i + 1) & mask) {
		sr_ctf_stream *s = table->slot[i];
		if (s == NULL || (s->tid == tid && s->origin == origin))
			return s;
	}
}

static void
slot_insert(sr_ctf_stream **slots, size_t cap, sr_ctf_stream *s)
{
	size_t mask = cap - 1;
	size_t i = stream_hash(s->tid, s->origin) & mask;
	while (slots[i] != NULL)
		i = (i + 1) & mask;
	slots[i] = s;
}

static bool
table_grow(sr_ctf_stream_table *table)
{
	if ((table->count + 1) * 2 <= table->cap)
		return true;
	size_t cap = table->cap == 0 ? 64 : table->cap * 2;
	sr_ctf_stream **slots = calloc(cap, sizeof(sr_ctf_stream *));
	sr_ctf_stream **dirty = realloc(table->dirty, cap * sizeof(sr_ctf_stream *));
	if (slots == NULL || dirty == NULL) {
		free(slots);
		if (dirty != NULL)
			table->dirty = dirty;
		return false;
	}
	for (size_t i = 0; i < table->cap; i++)
		if (table->slot[i] != NULL)
			slot_insert(slots, cap, table->slot[i]);
	free(table->slot);
	table->slot = slots;
	table->dirty = dirty;
	table->cap = cap;
	return true;
}

uint64_t
sr_log__ctf_next_instance(sr_log_ctf *t)
{
	/* A counter: no data rides on it (the crash handler may take one beside the consumer). */
	return (uint64_t)sr_atomic_faa_i64(&t->next_instance, 1);
}

sr_ctf_stream *
sr_log__ctf_stream_of(sr_log_ctf *t, sr_ctf_stream_table *table, uint32_t tid, int origin, bool raw)
{
	sr_ctf_stream *s = table->last;
	if (s != NULL && s->tid == tid && s->origin == origin)
		return s;
	s = table_find(table, tid, origin);
	if (s != NULL || raw) {
		if (s != NULL)
			table->last = s;
		return s;
	}
	if (!table_grow(table))
		return NULL;
	s = calloc(1, sizeof *s);
	/* Room for the packets of packet_bytes, and always for one event of the largest record. */
	size_t cap = t->opt.packet_bytes;
	size_t one = sizeof(sr_ctf_packet_head) + sizeof(sr_ctf_event_head) + 4 + t->opt.max_record + SR_SITE_MAX_ARGS;
	if (cap < one)
		cap = one;
	if (s != NULL)
		s->buf = malloc(cap + sizeof(sr_ctf_packet_head));  /* and an empty packet ahead of the first (end_packet) */
	if (s == NULL || s->buf == NULL) {
		free(s);
		return NULL;
	}
	s->tid = tid;
	s->origin = (uint8_t)origin;
	s->fd = -1;
	s->cap = cap;
	s->instance_id = sr_log__ctf_next_instance(t);
	slot_insert(table->slot, table->cap, s);
	table->count++;
	table->last = s;
	if (origin == SR_CTF_ORIGIN_CONSUMER)
		table->by_tid[tid % SR_CTF_STREAM_CACHE] = s;
	return s;
}

unsigned char *
sr_log__ctf_stream_reserve(sr_log_ctf *t, sr_ctf_stream_table *table, sr_ctf_stream *s, const char *name,
    size_t bytes)
{
	char name16[16];
	name_of(name16, name);
	if (s->packet_events > 0 && memcmp(s->name, name16, sizeof name16) != 0)
		end_packet(t, table, s);  /* a packet has one thread name */
	/* The consumer's fast path compares the name as the event holds it: the same bytes, the same packet. */
	if (s->packet_events > 0 && name != NULL)
		memcpy(s->name, name, sizeof s->name);
	size_t need = bytes + (s->packet_events == 0 ? sizeof(sr_ctf_packet_head) : 0);
	if (s->len + need > s->cap) {
		end_packet(t, table, s);
		write_buffer(t, s);
		need = bytes + sizeof(sr_ctf_packet_head);
		if (need > s->cap)
			return NULL;
	}
	if (s->packet_events == 0) {
		s->packet_at = s->len;
		s->len += sizeof(sr_ctf_packet_head);
		memcpy(s->name, name16, sizeof name16);
	}
	if (!s->dirty) {
		s->dirty = true;
		table->dirty[table->dirty_count++] = s;
	}
	return s->buf + s->len;
}

/* Closes the files of streams that had no event for a long while: a process with many short threads keeps few descriptors. */
static void
close_idle(sr_ctf_stream_table *table)
{
	enum { SWEEP_EVERY = 1024 };
	if (++table->flushes % SWEEP_EVERY != 0)
		return;
	for (size_t i = 0; i < table->cap; i++) {
		sr_ctf_stream *s = table->slot[i];
		if (s == NULL)
			continue;
		if (s->idle_flushes >= SWEEP_EVERY && s->fd >= 0 && s->len == 0) {
			close(s->fd);
			s->fd = -1;
		}
		s->idle_flushes += SWEEP_EVERY;
	}
}

uint64_t
sr_log__ctf_streams_flush_full(sr_log_ctf *t, sr_ctf_stream_table *table, size_t min_bytes)
{
	uint64_t lost_before = (uint64_t)sr_atomic_load_relaxed_i64(&t->lost_events);
	size_t kept = 0;
	for (size_t i = 0; i < table->dirty_count; i++) {
		sr_ctf_stream *s = table->dirty[i];
		if (s->len < min_bytes) {
			table->dirty[kept++] = s;  /* its open packet goes on */
			continue;
		}
		end_packet(t, table, s);
		write_buffer(t, s);
		s->dirty = false;
	}
	table->dirty_count = kept;
	if (kept == 0)
		close_idle(table);
	return (uint64_t)sr_atomic_load_relaxed_i64(&t->lost_events) - lost_before;
}

uint64_t
sr_log__ctf_streams_flush(sr_log_ctf *t, sr_ctf_stream_table *table)
{
	return sr_log__ctf_streams_flush_full(t, table, 0);
}

bool
sr_log__ctf_stream_write_single(sr_log_ctf *t, sr_ctf_stream *s, uint32_t tid, int origin, const char *name,
    uint64_t ts, const struct iovec *iov, int iovcnt, size_t bytes)
{
	enum { MOST_IOV = 3 * SR_SITE_MAX_ARGS + 8 };
	if (iovcnt + 1 > MOST_IOV)
		return false;
	sr_ctf_stream one = { .tid = tid, .origin = (uint8_t)origin, .fd = -1 };
	if (s == NULL) {
		/* A thread the consumer never wrote for: a stream of its own, in a file of its own name. */
		s = &one;
		s->instance_id = sr_log__ctf_next_instance(t);
	}
	char name16[16];
	name_of(name16, name);
	sr_ctf_packet_head h;
	size_t total = sizeof h + bytes;
	fill_head(t, s, &h, ts, ts, total, name16);
	struct iovec all[MOST_IOV];
	all[0] = (struct iovec){ &h, sizeof h };
	memcpy(all + 1, iov, (size_t)iovcnt * sizeof *iov);
	bool ok = ensure_open(t, s);
	ssize_t w = ok ? writev(s->fd, all, iovcnt + 1) : -1;
	ok = w == (ssize_t)total;
	if (ok) {
		s->packet_seq_num++;
		s->file_bytes += total;
		s->last_ts = ts;
	}
	count_write(t, ok, total, 1);
	if (s == &one && s->fd >= 0)
		close(s->fd);
	return ok;
}

void
sr_log__ctf_streams_close_files(sr_ctf_stream_table *table)
{
	for (size_t i = 0; i < table->cap; i++) {
		sr_ctf_stream *s = table->slot[i];
		if (s != NULL && s->fd >= 0) {
			close(s->fd);
			s->fd = -1;
		}
	}
}

void
sr_log__ctf_streams_free(sr_ctf_stream_table *table)
{
	for (size_t i = 0; i < table->cap; i++) {
		sr_ctf_stream *s = table->slot[i];
		if (s == NULL)
			continue;
		if (s->fd >= 0)
			close(s->fd);
		free(s->buf);
		free(s);
	}
	free(table->slot);
	free(table->dirty);
	*table = (sr_ctf_stream_table){ 0 };
}
