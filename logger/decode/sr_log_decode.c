/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_decode.c: a trace that a ctf: sink wrote, written into a logger's
 * sinks (sr_log_decode_trace, the command seqring-decode): the metadata and
 * every stream file read and checked (logger/ctf/sr_log_ctf_read.c), the
 * events merged across streams by time and each written as the line the
 * writer's text sink would have written for the same record.
 *
 * A read is a round: each stream file is read from where the last round
 * stopped, then the metadata (an event class is in the metadata before the
 * first packet that holds one of its events is written, so reading it after
 * the streams finds every class their packets use).  Following a live
 * trace, a round takes whole packets only and leaves the rest for the next.
 */
#include "sr_log_ctf_read_internal.h"
#include "sr_log_direct_internal.h"
#include "sr_log_event_internal.h"
#include "sr_log_trace.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef struct stream {
	char *name, *path;
	dev_t dev;                    /* the file, whatever its name: rotation renames it */
	ino_t ino;
	bool listed;                  /* the last listing found it (rotation removes the oldest) */
	uint64_t consumed;            /* the file's bytes taken by past rounds: whole packets */
	sr_ctf_stream_state state;
	uint64_t discarded;           /* its last packet's events_discarded */
	/* this round */
	unsigned char *bytes;         /* the file from consumed on (whole packets only, when following) */
	size_t n, at;                 /* their length, the next packet's offset in them */
	sr_ctf_packet packet;
	bool in_packet;
	size_t event_at;              /* the next event's offset in the packet */
	unsigned char *body;          /* the head event's body, rebuilt */
	size_t body_cap;
	bool has_head;
	sr_ctf_event head;
} stream;

typedef struct decoder {
	sr_log *into;
	const char *dir;
	bool follow;
	sr_ctf_metadata meta;
	char meta_path[PATH_MAX];
	stream *streams;              /* sorted by name */
	int count;
	char *line;
	sr_trace_decode_report report;
	sr_error *err;
} decoder;

/*
 * path's bytes from offset to its end, into a new buffer (*bytes NULL when
 * there are none).  SR_ESYS naming the path; SR_EFORMAT when it shrank.
 */
static int
read_from(const char *path, uint64_t offset, const stream *expected, unsigned char **bytes, size_t *n,
    sr_error *err)
{
	*bytes = NULL;
	*n = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && expected != NULL && errno == ENOENT)
		return SR_OK;  /* renamed since the listing: the next one finds it */
	if (fd < 0)
		return sr_error_set(err, SR_ESYS, "trace: cannot open \"%s\": %s", path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) != 0) {
		int e = errno;
		close(fd);
		return sr_error_set(err, SR_ESYS, "trace: cannot stat \"%s\": %s", path, strerror(e));
	}
	if (expected != NULL && (st.st_dev != expected->dev || st.st_ino != expected->ino)) {
		close(fd);
		return SR_OK;  /* another file took the name since the listing (a rotation): the next one sorts it out */
	}
	if ((uint64_t)st.st_size < offset) {
		close(fd);
		return sr_error_set(err, SR_EFORMAT, "%s: offset %" PRIu64 ": the file is %lld bytes now, %" PRIu64
		    " were read before: expected a trace's file only to grow", path, offset, (long long)st.st_size, offset);
	}
	size_t size = (size_t)((uint64_t)st.st_size - offset);
	if (size == 0) {
		close(fd);
		return SR_OK;
	}
	unsigned char *p = malloc(size);
	if (p == NULL) {
		close(fd);
		return sr_error_set(err, SR_ENOMEM, "trace: cannot allocate %zu bytes to read \"%s\"", size, path);
	}
	size_t got = 0;
	while (got < size) {
		ssize_t r = pread(fd, p + got, size - got, (off_t)(offset + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			close(fd);
			free(p);
			return sr_error_set(err, SR_ESYS, "trace: cannot read \"%s\": %s", path, strerror(e));
		}
		if (r == 0)
			break;  /* shorter than fstat said (being replaced): what is there */
		got += (size_t)r;
	}
	close(fd);
	*bytes = p;
	*n = got;
	return SR_OK;
}

/* A stream file's name without its rotation suffix (".N", N the higher the older); *n is N, 0 for none. */
static size_t
base_of(const char *name, unsigned long *n)
{
	size_t len = strlen(name);
	const char *dot = strrchr(name, '.');
	*n = 0;
	if (dot == NULL || dot[1] == '\0' || strspn(dot + 1, "0123456789") != strlen(dot + 1))
		return len;
	*n = strtoul(dot + 1, NULL, 10);
	return (size_t)(dot - name);
}

/*
 * The streams' order, which ties in time follow: by name, and a stream's
 * rotated files oldest first, before the file it writes now.
 */
static int
compare_streams(const void *a, const void *b)
{
	const char *x = ((const stream *)a)->name, *y = ((const stream *)b)->name;
	unsigned long xn, yn;
	size_t xl = base_of(x, &xn), yl = base_of(y, &yn);
	int c = strncmp(x, y, xl < yl ? xl : yl);
	if (c != 0 || xl != yl)
		return c != 0 ? c : xl < yl ? -1 : 1;
	if (xn != yn)
		return xn == 0 ? 1 : yn == 0 ? -1 : xn > yn ? -1 : 1;
	return strcmp(x, y);
}

/* Sets s's name (and path) to name, which it takes. */
static int
name_stream(decoder *d, stream *s, char *name)
{
	size_t len = strlen(d->dir) + strlen(name) + 2;
	char *path = malloc(len);
	if (path == NULL) {
		free(name);
		return sr_error_set(d->err, SR_ENOMEM, "trace: cannot allocate a path in \"%s\"", d->dir);
	}
	snprintf(path, len, "%s/%s", d->dir, name);
	free(s->name);
	free(s->path);
	s->name = name;
	s->path = path;
	return SR_OK;
}

/*
 * Lists the stream files: a file known by its device and inode keeps its
 * reading under a new name (rotation renames stream-TID to stream-TID.1),
 * a new one is added; one no longer there is dropped (rotation removed it,
 * read to where it was).  Then sorts them.
 */
static int
list_streams(decoder *d)
{
	DIR *dh = opendir(d->dir);
	if (dh == NULL)
		return sr_error_set(d->err, SR_ESYS, "trace: cannot read the directory \"%s\": %s", d->dir, strerror(errno));
	for (int i = 0; i < d->count; i++)
		d->streams[i].listed = false;
	int rc = SR_OK;
	struct dirent *e;
	while (rc == SR_OK && (e = readdir(dh)) != NULL) {
		if (strncmp(e->d_name, SR_CTF_STREAM_PREFIX, sizeof SR_CTF_STREAM_PREFIX - 1) != 0)
			continue;
		struct stat st;
		if (fstatat(dirfd(dh), e->d_name, &st, 0) != 0) {
			if (errno == ENOENT)
				continue;  /* renamed or removed since readdir */
			rc = sr_error_set(d->err, SR_ESYS, "trace: cannot stat \"%s/%s\": %s", d->dir, e->d_name,
			    strerror(errno));
			break;
		}
		if (!S_ISREG(st.st_mode))
			continue;
		stream *s = NULL;
		for (int i = 0; i < d->count && s == NULL; i++)
			if (d->streams[i].dev == st.st_dev && d->streams[i].ino == st.st_ino)
				s = &d->streams[i];
		if (s == NULL) {
			stream *more = realloc(d->streams, (size_t)(d->count + 1) * sizeof *more);
			if (more == NULL) {
				rc = sr_error_set(d->err, SR_ENOMEM, "trace: cannot allocate the streams of \"%s\"", d->dir);
				break;
			}
			d->streams = more;
			s = &d->streams[d->count++];
			memset(s, 0, sizeof *s);
			s->dev = st.st_dev;
			s->ino = st.st_ino;
			d->report.streams++;
		}
		s->listed = true;
		if (s->name == NULL || strcmp(s->name, e->d_name) != 0) {
			char *name = strdup(e->d_name);
			rc = name != NULL ? name_stream(d, s, name) :
			    sr_error_set(d->err, SR_ENOMEM, "trace: cannot allocate a name in \"%s\"", d->dir);
		}
	}
	closedir(dh);
	/* A file no longer listed (or one whose naming failed) is done with. */
	int kept = 0;
	for (int i = 0; i < d->count; i++) {
		stream *s = &d->streams[i];
		if (s->listed && s->name != NULL) {
			d->streams[kept++] = *s;
			continue;
		}
		free(s->name);
		free(s->path);
		free(s->body);
	}
	d->count = kept;
	/* Ties in time go to the stream listed first: the same order in every round. */
	if (d->count > 1)
		qsort(d->streams, (size_t)d->count, sizeof *d->streams, compare_streams);
	return rc;
}

/* A stream's bytes since the last round; when following, its whole packets only. */
static int
load_stream(decoder *d, stream *s)
{
	int rc = read_from(s->path, s->consumed, s, &s->bytes, &s->n, d->err);
	if (rc != SR_OK || !d->follow)
		return rc;
	size_t whole = 0;
	while (whole < s->n) {
		size_t size = sr_ctf__packet_size_hint(s->bytes + whole, s->n - whole);
		if (size == 0) {
			if (s->n - whole >= sizeof(sr_ctf_packet_head))
				whole = s->n;  /* a head that will not check: the check says why */
			break;
		}
		if (size > s->n - whole)
			break;  /* being written */
		whole += size;
	}
	s->n = whole;
	return SR_OK;
}

static int
load_metadata(decoder *d)
{
	unsigned char *bytes;
	size_t n;
	struct stat st;
	if (stat(d->meta_path, &st) != 0 && errno == ENOENT)
		return sr_error_set(d->err, SR_EFORMAT, "trace \"%s\": no metadata file (\"%s\" expected at offset 0): not a "
		    "trace a ctf: sink wrote", d->dir, d->meta_path);
	int rc = read_from(d->meta_path, 0, NULL, &bytes, &n, d->err);
	if (rc != SR_OK)
		return rc;
	if (n < d->meta.parsed) {
		free(bytes);
		return sr_error_set(d->err, SR_EFORMAT, "%s: offset %zu: the metadata is %zu bytes now, %zu were read "
		    "before: expected it only to grow", d->meta_path, n, n, d->meta.parsed);
	}
	rc = sr_ctf__metadata_parse(&d->meta, bytes != NULL ? (const char *)bytes : "", n, !d->follow, d->meta_path,
	    d->err);
	free(bytes);
	return rc;
}

/* Moves s to its next event (s->has_head false at the end of this round's bytes). */
static int
next_event(decoder *d, stream *s)
{
	s->has_head = false;
	for (;;) {
		if (s->in_packet && s->event_at < s->packet.size) {
			int rc = sr_ctf__event_read(&d->meta, &s->packet, &s->event_at, s->path, s->body, &s->head, d->err);
			s->has_head = rc == SR_OK;
			return rc;
		}
		s->in_packet = false;
		if (s->at >= s->n)
			return SR_OK;
		bool cut = false;
		int rc = sr_ctf__packet_read(&d->meta, s->bytes + s->at, s->n - s->at, s->consumed + s->at, s->path,
		    &s->state, &s->packet, d->follow ? &cut : NULL, d->err);
		if (rc != SR_OK)
			return rc;
		if (cut) {
			s->n = s->at;  /* not whole yet: the next round reads it again */
			return SR_OK;
		}
		if (s->packet.size > s->body_cap) {
			unsigned char *more = realloc(s->body, s->packet.size);
			if (more == NULL)
				return sr_error_set(d->err, SR_ENOMEM, "trace: cannot allocate %zu bytes for \"%s\"",
				    s->packet.size, s->path);
			s->body = more;
			s->body_cap = s->packet.size;
		}
		s->at += s->packet.size;
		s->in_packet = true;
		s->event_at = sizeof(sr_ctf_packet_head);
		s->discarded = s->packet.head.events_discarded;
		d->report.packets++;
	}
}

/* Writes s's head event into the logger, as the writer's text sink wrote its record. */
static void
write_event(decoder *d, stream *s)
{
	const sr_ctf_event *ev = &s->head;
	sr_ctf_read_class *c = ev->cls;
	const sr_ctf_packet_head *ph = &s->packet.head;
	sr_log_event e;
	sr_log_rec h;
	if (c->kind == SR_CTF_KIND_TEXT) {
		/* The logger's own line: its text as it is, with the trace's time and thread. */
		e = (sr_log_event){
			.ts_ns = ev->ts_ns,
			.level = c->level,
			.tid = ph->tid,
			.thread = ph->thread_name,
			.category = c->category_name,
			.text = ev->text,
			.text_len = ev->text_len,
			.backtrace = c->backtrace,
		};
	} else {
		memset(&h, 0, sizeof h);
		bool message = c->kind == SR_CTF_KIND_MESSAGE;
		h.size = (uint32_t)(sizeof h + (message ? ev->body_len : 0));
		/* pairs with the reader's store-release of a class's fields: whole before its events */
		const sr_fmt_fields *fields = sr_atomic_load_acquire_ptr((sr_atomic_ptr *)&c->site.fields);
		h.value_bytes = message ? (fields != NULL ? fields->sig.value_bytes : c->site.sig.value_bytes) : 0;
		h.kind = message ? SR_REC_MESSAGE : SR_REC_FORMAT_ERROR;
		h.level = (uint8_t)c->level;
		h.tid = ph->tid;
		h.errno_value = ev->errno_value;
		/* The writer's time is ev->ts_ns, already converted: this logger's clock must not convert it. */
		h.ts_ns = 0;
		h.site = &c->site;
		h.cat = &c->category;
		memcpy(h.thread, ph->thread_name, sizeof h.thread);
		sr_log__event_of_record(d->into, &h, message ? ev->body : NULL, message ? ev->body_len : 0, c->backtrace,
		    false, &e);
		e.ts_ns = ev->ts_ns;
	}
	sr_log__write_event_now(d->into, &e, d->line);
	d->report.events++;
}

/* One round: every stream's new bytes, the metadata, then the events merged by time. */
static int
read_round(decoder *d)
{
	int rc = list_streams(d);
	for (int i = 0; rc == SR_OK && i < d->count; i++)
		rc = load_stream(d, &d->streams[i]);
	if (rc == SR_OK)
		rc = load_metadata(d);
	if (rc == SR_OK && !(d->meta.has_trace && d->meta.has_env))
		goto done;  /* following, and the metadata's head is being written: the packets wait */
	for (int i = 0; rc == SR_OK && i < d->count; i++)
		rc = next_event(d, &d->streams[i]);
	while (rc == SR_OK) {
		stream *first = NULL;
		for (int i = 0; i < d->count; i++) {
			stream *s = &d->streams[i];
			/* Strictly earlier: a tie goes to the stream listed first. */
			if (s->has_head && (first == NULL || s->head.ts_ns < first->head.ts_ns))
				first = s;
		}
		if (first == NULL)
			break;
		write_event(d, first);
		rc = next_event(d, first);
	}
	if (rc == SR_OK)
		for (int i = 0; i < d->count; i++)
			d->streams[i].consumed += d->streams[i].n;
done:
	for (int i = 0; i < d->count; i++) {
		stream *s = &d->streams[i];
		free(s->bytes);
		s->bytes = NULL;
		s->n = s->at = 0;
		s->in_packet = s->has_head = false;
	}
	/*
	 * Each stream's count is cumulative, and a rotated stream has several
	 * files: the largest count of each stream (its instance id), summed.
	 */
	d->report.discarded = 0;
	for (int i = 0; i < d->count; i++) {
		const stream *s = &d->streams[i];
		bool largest = s->state.started;
		for (int k = 0; k < d->count && largest; k++) {
			const stream *o = &d->streams[k];
			if (k != i && o->state.started && o->state.instance == s->state.instance &&
			    (o->discarded > s->discarded || (o->discarded == s->discarded && k < i)))
				largest = false;
		}
		if (largest)
			d->report.discarded += s->discarded;
	}
	return rc;
}

static bool
stopped(const sr_trace_decode_options *o)
{
	return o->stop != NULL && *o->stop != 0;
}

/* Sleeps ms, in slices so that a stop is seen within one. */
static void
wait_ms(const sr_trace_decode_options *o, int ms)
{
	while (ms > 0 && !stopped(o)) {
		int slice = ms < 50 ? ms : 50;
		struct timespec ts = { slice / 1000, (long)(slice % 1000) * 1000000L };
		nanosleep(&ts, NULL);  /* a signal cuts it short: the loop looks at stop again */
		ms -= slice;
	}
}

int
sr_log_decode_trace(sr_log *into, const char *dir, const sr_trace_decode_options *options,
    sr_trace_decode_report *report, sr_error *err)
{
	if (report != NULL)
		memset(report, 0, sizeof *report);
	if (into == NULL)
		return sr_error_set(err, SR_EINVAL, "sr_log_decode_trace: into is NULL: expected an open logger");
	if (dir == NULL || dir[0] == '\0')
		return sr_error_set(err, SR_EINVAL, "sr_log_decode_trace: dir is %s: expected a trace's directory",
		    dir == NULL ? "NULL" : "empty");
	sr_trace_decode_options o = { 0 };
	if (options != NULL)
		o = *options;
	if (o.poll_ms < 0 || o.poll_ms > 60000)
		return sr_error_set(err, SR_EINVAL, "sr_log_decode_trace: options.poll_ms is %d: expected 1 to 60000 ms "
		    "(0: 100)", o.poll_ms);
	if (o.poll_ms == 0)
		o.poll_ms = 100;
	struct stat st;
	if (stat(dir, &st) != 0)
		return sr_error_set(err, SR_ESYS, "sr_log_decode_trace: trace directory \"%s\": %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return sr_error_set(err, SR_EFORMAT, "sr_log_decode_trace: \"%s\" is not a directory: expected a trace's "
		    "directory (its metadata and stream files)", dir);
	decoder d;
	memset(&d, 0, sizeof d);
	d.into = into;
	d.dir = dir;
	d.follow = o.follow;
	d.err = err;
	if (strlen(dir) + sizeof SR_CTF_METADATA_NAME + 1 > sizeof d.meta_path)
		return sr_error_set(err, SR_EINVAL, "sr_log_decode_trace: dir \"%.60s...\" is %zu bytes long: expected a "
		    "path of at most %zu", dir, strlen(dir), sizeof d.meta_path - sizeof SR_CTF_METADATA_NAME - 1);
	snprintf(d.meta_path, sizeof d.meta_path, "%s/%s", dir, SR_CTF_METADATA_NAME);
	d.line = malloc(into->opt.max_line + SR_FMT_LINE_RESERVE);
	if (d.line == NULL)
		return sr_error_set(err, SR_ENOMEM, "sr_log_decode_trace: cannot allocate a line of %zu bytes",
		    into->opt.max_line + SR_FMT_LINE_RESERVE);
	int rc = SR_OK;
	while (rc == SR_OK) {
		rc = read_round(&d);
		if (rc != SR_OK || !d.follow || stopped(&o))
			break;
		wait_ms(&o, o.poll_ms);
		if (stopped(&o))
			break;
	}
	if (report != NULL)
		*report = d.report;
	for (int i = 0; i < d.count; i++) {
		free(d.streams[i].name);
		free(d.streams[i].path);
		free(d.streams[i].body);
	}
	free(d.streams);
	sr_ctf__metadata_free(&d.meta);
	free(d.line);
	return rc;
}
