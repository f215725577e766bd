/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_ctf_writer.c: the face of a ctf: sink's writer.  An event becomes
 * its class's id, its time and a copy of the record's encoded arguments
 * (the value area, then the strings, each ending with its NUL: a NULL
 * string gets an empty one), appended to its thread's stream; nothing is
 * formatted.  A record whose string area does not match its format (never
 * one this logger made) is written as the text its renderer makes of it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "sr_log_ctf_writer_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

/* ---- open ---- */

static void
make_uuid(sr_log_ctf *t)
{
	if (getrandom(t->uuid, sizeof t->uuid, GRND_NONBLOCK) != (ssize_t)sizeof t->uuid) {
		/* No entropy yet (early boot): unique enough from the time, the pid and the address. */
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		uint64_t a = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
		uint64_t b = ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)t;
		memcpy(t->uuid, &a, 8);
		memcpy(t->uuid + 8, &b, 8);
	}
	t->uuid[6] = (uint8_t)((t->uuid[6] & 0x0f) | 0x40);  /* version 4 */
	t->uuid[8] = (uint8_t)((t->uuid[8] & 0x3f) | 0x80);  /* variant 1 */
	static const char hex[] = "0123456789abcdef";
	size_t at = 0;
	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			t->uuid_text[at++] = '-';
		t->uuid_text[at++] = hex[t->uuid[i] >> 4];
		t->uuid_text[at++] = hex[t->uuid[i] & 15];
	}
	t->uuid_text[at] = '\0';
}

/* Takes dir for this run (sr_log_ctf_previous.c) and makes its metadata file. */
static int
begin_trace(sr_log_ctf *t, sr_error *err)
{
	int rc = sr_log__ctf_take_dir(t, err);
	if (rc != SR_OK)
		return rc;
	char path[PATH_MAX];
	if (snprintf(path, sizeof path, "%s/" SR_CTF_METADATA_NAME, t->dir) >= (int)sizeof path)
		return sr_error_set(err, SR_EINVAL, "ctf sink: the trace directory's path is too long (%zu bytes)",
		    strlen(t->dir));
	t->metadata_fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, t->opt.file_mode);
	if (t->metadata_fd < 0)
		return sr_error_set(err, SR_ESYS, "ctf sink: cannot create \"%s\": %s", path, strerror(errno));
	make_uuid(t);
	return sr_log__ctf_metadata_begin(t, err);
}

int
sr_log__ctf_open(sr_log_ctf **out, const sr_log_ctf_options *o, sr_error *err)
{
	*out = NULL;
	if (o->dir == NULL || o->dir[0] == '\0')
		return sr_error_set(err, SR_EINVAL, "ctf sink: no directory (expected ctf:DIR, or sr_sink_ctf(dir))");
	sr_log_ctf *t = calloc(1, sizeof *t);
	if (t == NULL || (t->dir = strdup(o->dir)) == NULL) {
		free(t);
		return sr_error_set(err, SR_ENOMEM, "ctf sink: cannot allocate the writer of \"%s\"", o->dir);
	}
	t->opt = *o;
	t->opt.dir = t->dir;
	t->metadata_fd = -1;
	t->lock_fd = -1;
	t->classes_cap = 1024;
	t->classes = calloc(t->classes_cap, sizeof(sr_ctf_class *));
	if (t->classes == NULL) {
		sr_log__ctf_close(t);
		return sr_error_set(err, SR_ENOMEM, "ctf sink: cannot allocate the event classes of \"%s\"", o->dir);
	}
	pthread_mutex_init(&t->classes_lock, NULL);
	int rc = begin_trace(t, err);
	if (rc != SR_OK) {
		sr_log__ctf_close(t);
		return rc;
	}
	/* Drops before the sink existed are no part of its trace. */
	if (o->dropped != NULL)
		for (int l = 0; l < SR_LOG_LEVEL_COUNT; l++)
			t->attributed_drops += (uint64_t)sr_atomic_load_relaxed_i64(&o->dropped[l]);
	*out = t;
	return SR_OK;
}

/* ---- one event ---- */

static uint32_t
read_u32(const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof v);
	return v;
}

/* message_bytes' answer for a record that does not match its class (0 is a message without arguments). */
#define NOT_ITS_CLASS SIZE_MAX

/*
 * The payload of a message event: checks that the string area holds one
 * NUL-ended string per non-NULL %s, of the length its field says.  Returns
 * the payload's bytes (errno, body, a NUL per NULL string), or
 * NOT_ITS_CLASS when the record does not match its class.
 */
static inline size_t
message_bytes(const sr_ctf_class *c, const sr_log_event *ev, int *null_strings)
{
	const unsigned char *body = ev->body;
	size_t len = ev->body_len;
	if (ev->h == NULL || len < c->value_bytes || ev->h->value_bytes != c->value_bytes)
		return NOT_ITS_CLASS;
	size_t at = c->value_bytes;
	int nulls = 0;
	for (int i = 0; i < c->nstrings; i++) {
		uint32_t n = read_u32(body + c->string_len_at[i]);
		if (n == SR_FMT_NULL_STRING) {
			nulls++;
			continue;
		}
		if (n >= len - at || body[at + n] != '\0')
			return NOT_ITS_CLASS;
		at += (size_t)n + 1;
	}
	if (at != len)
		return NOT_ITS_CLASS;
	*null_strings = nulls;
	return (c->uses_errno ? 4 : 0) + len + (size_t)nulls;
}

/* The pieces of a message's payload, in order (a NULL string's NUL between them). */
static int
message_pieces(const sr_ctf_class *c, const sr_log_event *ev, struct iovec *iov)
{
	static const unsigned char nul = 0;
	int n = 0;
	if (c->uses_errno)
		iov[n++] = (struct iovec){ (void *)&ev->h->errno_value, 4 };
	const unsigned char *body = ev->body;
	size_t from = 0, at = c->value_bytes;
	for (int i = 0; i < c->nstrings; i++) {
		uint32_t len = read_u32(body + c->string_len_at[i]);
		if (len != SR_FMT_NULL_STRING) {
			at += (size_t)len + 1;
			continue;
		}
		iov[n++] = (struct iovec){ (void *)(body + from), at - from };
		iov[n++] = (struct iovec){ (void *)&nul, 1 };
		from = at;
	}
	iov[n++] = (struct iovec){ (void *)(body + from), ev->body_len - from };
	return n;
}

static bool put_general(sr_log_ctf *t, const sr_log_event *ev, int how);

/* A record that does not match its class: the text its renderer makes ("<bad record>" and what it could read). */
static bool
put_rendered(sr_log_ctf *t, const sr_log_event *ev, int how)
{
	char text[512];
	sr_fmt_buf b = { text, 0, sizeof text - 1, 0 };
	sr_log__put_message(ev, &b);
	sr_log_event as_text = *ev;
	as_text.h = NULL;
	as_text.site = NULL;
	as_text.text = text;
	as_text.text_len = b.len < sizeof text ? b.len : sizeof text - 1;
	return put_general(t, &as_text, how);
}

/* An event's time in stream s (NULL: none yet): a stream's times never go back (a realtime clock stepped back shows as no step). */
static inline uint64_t
event_time(const sr_ctf_stream *s, const sr_log_event *ev)
{
	uint64_t ts = ev->ts_ns > 0 ? (uint64_t)ev->ts_ns : 0;
	return s != NULL && ts < s->last_ts ? s->last_ts : ts;
}

/* A message's payload with no NULL string at w: errno (a format with %m), then the body whole; its end. */
static inline unsigned char *
put_whole_payload(unsigned char *w, const sr_ctf_class *c, const sr_log_event *ev)
{
	if (c->uses_errno) {
		memcpy(w, &ev->h->errno_value, 4);
		w += 4;
	}
	memcpy(w, ev->body, ev->body_len);
	return w + ev->body_len;
}

/*
 * The consumer's common case, a message whose class it met last, with no
 * NULL string, into the open packet of the stream it wrote last, for the
 * same thread name: a head and one copy.  False when any of that is not
 * so: the general path then does it all.
 */
static inline bool
put_buffered_fast(sr_log_ctf *t, const sr_log_event *ev)
{
	const sr_log_rec *h = ev->h;
	sr_ctf_stream *s = t->consumer.by_tid[ev->tid % SR_CTF_STREAM_CACHE];
	if (s == NULL || s->tid != ev->tid || h == NULL)
		return false;
	/* A stream's fast_class is a message class of no backtrace mark, the last it took. */
	sr_ctf_class *c = s->fast_class;
	if (c == NULL || c->site != ev->site || c->category != h->cat || c->level_kind != (uint32_t)ev->level ||
	    ev->backtrace || (h->kind & SR_REC_KIND_MASK) != SR_REC_MESSAGE || s->packet_events == 0 ||
	    memcmp(s->name, ev->thread, sizeof s->name) != 0)
		return false;
	int null_strings = 0;
	size_t payload = message_bytes(c, ev, &null_strings);
	size_t bytes = sizeof(sr_ctf_event_head) + payload;
	if (payload == NOT_ITS_CLASS || null_strings != 0 || s->len + bytes > s->cap)
		return false;
	uint64_t ts = event_time(s, ev);
	sr_ctf_event_head eh = { .id = c->id, .timestamp = ts };
	memcpy(s->buf + s->len, &eh, sizeof eh);
	put_whole_payload(s->buf + s->len + sizeof eh, c, ev);
	sr_log__ctf_stream_commit(s, ts, bytes);
	return true;
}

/* Any event, any way (the general path): its class and stream found or made, its packet begun or ended. */
static __attribute__((noinline)) bool
put_general(sr_log_ctf *t, const sr_log_event *ev, int how)
{
	sr_ctf_class *c = sr_log__ctf_class_of(t, ev, how);
	if (c == NULL) {
		sr_atomic_faa_i64(&t->lost_events, 1);  /* a counter only */
		return false;
	}
	int null_strings = 0;
	size_t payload;
	size_t text_len = 0;
	switch (c->kind) {
	case SR_CTF_KIND_MESSAGE:
		payload = message_bytes(c, ev, &null_strings);
		if (payload == NOT_ITS_CLASS)
			return put_rendered(t, ev, how);
		break;
	case SR_CTF_KIND_FORMAT_ERROR:
		payload = 0;
		break;
	default: {
		const char *nul = memchr(ev->text, '\0', ev->text_len);
		text_len = nul != NULL ? (size_t)(nul - ev->text) : ev->text_len;
		payload = text_len + 1;
		break;
	}
	}
	int origin = ev->backtrace ? SR_CTF_ORIGIN_BACKTRACE : how == SR_CTF_NOW ? SR_CTF_ORIGIN_DIRECT
	    : SR_CTF_ORIGIN_CONSUMER;
	sr_ctf_stream_table *table = how == SR_CTF_NOW ? &t->direct : &t->consumer;
	bool raw = how == SR_CTF_RAW;
	sr_ctf_stream *s = sr_log__ctf_stream_of(t, table, ev->tid, origin, raw);
	if (s == NULL && !raw) {
		sr_atomic_faa_i64(&t->lost_events, 1);
		return false;
	}
	uint64_t ts = event_time(s, ev);
	sr_ctf_event_head eh = { .id = c->id, .timestamp = ts };
	size_t bytes = sizeof eh + payload;
	if (raw) {
		/* What the consumer left first, then this event as a packet of its own. */
		struct iovec iov[3 * SR_SITE_MAX_ARGS + 4];
		int n = 0;
		iov[n++] = (struct iovec){ &eh, sizeof eh };
		if (c->kind == SR_CTF_KIND_MESSAGE)
			n += message_pieces(c, ev, iov + n);
		else if (c->kind == SR_CTF_KIND_TEXT) {
			static const char nul = '\0';
			iov[n++] = (struct iovec){ (void *)ev->text, text_len };
			iov[n++] = (struct iovec){ (void *)&nul, 1 };
		}
		if (s != NULL && s->len > 0)
			(void)sr_log__ctf_streams_flush(t, table);
		return sr_log__ctf_stream_write_single(t, s, ev->tid, origin, ev->thread, ts, iov, n, bytes);
	}
	unsigned char *p = sr_log__ctf_stream_reserve(t, table, s, ev->thread, bytes);
	if (p == NULL) {
		sr_atomic_faa_i64(&t->lost_events, 1);
		return false;
	}
	memcpy(p, &eh, sizeof eh);
	unsigned char *w = p + sizeof eh;
	if (c->kind == SR_CTF_KIND_MESSAGE) {
		if (null_strings == 0) {
			put_whole_payload(w, c, ev);
		} else {
			struct iovec iov[2 * SR_SITE_MAX_ARGS + 2];
			int n = message_pieces(c, ev, iov);
			for (int i = 0; i < n; i++) {
				memcpy(w, iov[i].iov_base, iov[i].iov_len);
				w += iov[i].iov_len;
			}
		}
	} else if (c->kind == SR_CTF_KIND_TEXT) {
		memcpy(w, ev->text, text_len);
		w[text_len] = '\0';
	}
	sr_log__ctf_stream_commit(s, ts, bytes);
	/* The fast path's: a plain message into a consumer stream. */
	if (how == SR_CTF_BUFFERED && origin == SR_CTF_ORIGIN_CONSUMER)
		s->fast_class = c->kind == SR_CTF_KIND_MESSAGE ? c : NULL;
	if (how == SR_CTF_NOW)
		(void)sr_log__ctf_streams_flush(t, table);  /* written now: the caller's sync promise */
	return true;
}

bool
sr_log__ctf_put(sr_log_ctf *t, const sr_log_event *ev, int how)
{
	if (how == SR_CTF_BUFFERED && put_buffered_fast(t, ev))
		return true;
	return put_general(t, ev, how);
}

uint64_t
sr_log__ctf_flush_behind(sr_log_ctf *t)
{
	return sr_log__ctf_streams_flush_full(t, &t->consumer, t->opt.packet_bytes / 2);
}

uint64_t
sr_log__ctf_flush(sr_log_ctf *t)
{
	return sr_log__ctf_streams_flush(t, &t->consumer);
}

/* ---- close, reopen, fork ---- */

void
sr_log__ctf_close(sr_log_ctf *t)
{
	if (t == NULL)
		return;
	if (t->classes != NULL) {
		(void)sr_log__ctf_streams_flush(t, &t->consumer);
		(void)sr_log__ctf_streams_flush(t, &t->direct);
	}
	sr_log__ctf_streams_free(&t->consumer);
	sr_log__ctf_streams_free(&t->direct);
	if (t->metadata_fd >= 0)
		close(t->metadata_fd);
	if (t->lock_fd >= 0)
		close(t->lock_fd);  /* the last: the trace is whole when another writer may take the directory */
	if (t->classes != NULL)
		pthread_mutex_destroy(&t->classes_lock);
	sr_log__ctf_classes_free(t);
	free(t->dir);
	free(t);
}

void
sr_log__ctf_abandon(sr_log_ctf *t)
{
	if (t == NULL)
		return;
	if (t->metadata_fd >= 0 && t->class_count == 0 && t->consumer.count == 0 && t->direct.count == 0) {
		const char *const names[] = { SR_CTF_METADATA_NAME, SR_CTF_LOCK_NAME };
		for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
			char path[PATH_MAX];
			if (snprintf(path, sizeof path, "%s/%s", t->dir, names[i]) < (int)sizeof path)
				(void)unlink(path);
		}
		if (t->made_dir)
			(void)rmdir(t->dir);  /* fails, harmlessly, if anything else is in it */
	}
	sr_log__ctf_close(t);
}

void
sr_log__ctf_reopen(sr_log_ctf *t)
{
	pthread_mutex_lock(&t->classes_lock);
	sr_log__ctf_streams_close_files(&t->consumer);
	sr_log__ctf_streams_close_files(&t->direct);
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/" SR_CTF_METADATA_NAME, t->dir);
	if (t->metadata_fd >= 0)
		close(t->metadata_fd);
	t->metadata_fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (t->metadata_fd < 0) {
		/* Moved away: the streams that follow need a metadata file that declares them whole. */
		t->metadata_fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, t->opt.file_mode);
		if (t->metadata_fd < 0 || sr_log__ctf_metadata_rewrite(t) != SR_OK)
			sr_atomic_faa_i64(&t->errors, 1);
	}
	pthread_mutex_unlock(&t->classes_lock);
}

void
sr_log__ctf_after_fork(sr_log_ctf *t)
{
	/* The parent's buffered packets are the parent's to write; its files are its own. */
	sr_log__ctf_streams_free(&t->consumer);
	sr_log__ctf_streams_free(&t->direct);
	sr_log__ctf_classes_free(t);
	if (t->metadata_fd >= 0)
		close(t->metadata_fd);
	t->metadata_fd = -1;
	/* The parent's lock stays the parent's: its own descriptor holds it still. */
	if (t->lock_fd >= 0)
		close(t->lock_fd);
	t->lock_fd = -1;
	pthread_mutex_init(&t->classes_lock, NULL);
	sr_atomic_store_relaxed_i64(&t->next_instance, 0);
	char *child = NULL;
	t->classes_cap = 1024;
	t->classes = calloc(t->classes_cap, sizeof(sr_ctf_class *));
	if (t->classes != NULL && asprintf(&child, "%s.%ld", t->dir, (long)getpid()) > 0) {
		free(t->dir);
		t->dir = child;
		t->opt.dir = child;
		sr_error err;
		if (begin_trace(t, &err) == SR_OK) {
			fprintf(stderr, "seqring: a forked child (pid %ld) writes its ctf trace in \"%s\"\n", (long)getpid(),
			    t->dir);
			return;
		}
		fprintf(stderr, "seqring: a forked child's ctf trace: %s; its events are lost (counted)\n", err.message);
	}
	sr_atomic_faa_i64(&t->errors, 1);
}

void
sr_log__ctf_counters(const sr_log_ctf *t, sr_log_ctf_counters *c)
{
	c->events = (uint64_t)sr_atomic_load_relaxed_i64(&t->events);
	c->bytes = (uint64_t)sr_atomic_load_relaxed_i64(&t->bytes);
	c->writes = (uint64_t)sr_atomic_load_relaxed_i64(&t->writes);
	c->errors = (uint64_t)sr_atomic_load_relaxed_i64(&t->errors);
	c->lost_events = (uint64_t)sr_atomic_load_relaxed_i64(&t->lost_events);
	c->rotations = (uint64_t)sr_atomic_load_relaxed_i64(&t->rotations);
	c->classes = t->class_count;
	c->streams = t->consumer.count + t->direct.count;
}
