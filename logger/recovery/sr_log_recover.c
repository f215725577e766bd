/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_recover.c: what a dead process left in a ring directory, written
 * into a logger's sinks: at sr_log_open with config.ring_dir (before any
 * record of the new logger), or by sr_log_recover (seqring-recover).
 *
 * Every file is read into memory and checked before anything is written or
 * removed: a file that does not check stops the recovery with its error,
 * and the directory stays as it was.  For each dead logger (a meta file and
 * its rings, named PID-INSTANCE), each ring is read from the first record
 * not yet written: after its written sequence, or after its pending one
 * when the tracked file holds the whole write the death interrupted; when
 * the file holds part of that write, the file is cut back to its size
 * before it and the write's records are written again.  Records come out
 * merged by time across rings (each ring's own order kept), with the time
 * the dead process's calibration gives; a claimed slot that was never
 * published is skipped and counted; a record whose site or category the
 * meta file does not hold is counted, never guessed.  Then one line at
 * warn level, and the files are removed.
 */
#include "sr_log_direct_internal.h"
#include "sr_log_recovery_internal.h"
#include "sr_log_ring_dir_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct recovered_ring {
	char *name;
	unsigned char *bytes;
	size_t n;
	sr_log_ring_view v;
	sr_log_writer writer;         /* a thread ring's: its tid and (renamed) name */
	int64_t next, end;            /* the next sequence to read, the last */
	bool head;                    /* next starts a published record */
	int64_t head_ns;              /* and its time, as the merge compares it */
} recovered_ring;

typedef struct dead_logger {
	char key[128];                /* PID-INSTANCE */
	char *meta_name;
	unsigned char *meta_bytes;
	sr_log_meta_view meta;
	bool has_meta;
	sr_site *sites;               /* rebuilt from the meta file, parsed */
	sr_category *categories;
	recovered_ring *rings;
	int ring_count;
	bool from_pending;            /* the tracked write completed: start after pending */
	bool cut_write, unchecked, file_replaced;  /* what decide_start found (sr_log_recovery's) */
} dead_logger;

typedef struct recovery {
	sr_log *into;
	const char *dir;
	dead_logger *loggers;
	int logger_count;
	unsigned char *scratch;       /* a record copied out of the ring when it wraps */
	size_t scratch_bytes;
	char *line;
	sr_log_recovery report;
	sr_error *err;
} recovery;

/* dir/name read whole into memory aligned to 64; SR_ESYS naming it. */
static int
read_file(const char *dir, const char *name, unsigned char **bytes, size_t *n, sr_error *err)
{
	*bytes = NULL;
	*n = 0;
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return sr_error_set(err, SR_ESYS, "ring_dir: cannot open \"%s\": %s", path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) != 0 || st.st_size < 0) {
		int e = errno;
		close(fd);
		return sr_error_set(err, SR_ESYS, "ring_dir: cannot stat \"%s\": %s", path, strerror(e));
	}
	size_t size = (size_t)st.st_size;
	void *p = NULL;
	if (posix_memalign(&p, SR_LOG_RING_DIR_PAGE, size > 0 ? size : 1) != 0) {
		close(fd);
		return sr_error_set(err, SR_ENOMEM, "ring_dir: cannot allocate %zu bytes to read \"%s\"", size, path);
	}
	size_t got = 0;
	while (got < size) {
		ssize_t r = read(fd, (char *)p + got, size - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			int e = r < 0 ? errno : 0;
			close(fd);
			free(p);
			return sr_error_set(err, SR_ESYS, "ring_dir: cannot read \"%s\" (%zu of %zu bytes): %s", path, got,
			    size, e != 0 ? strerror(e) : "it shrank");
		}
		got += (size_t)r;
	}
	close(fd);
	*bytes = p;
	*n = size;
	return SR_OK;
}

/* The logger a file name belongs to: PID-INSTANCE of PID-INSTANCE.meta or PID-INSTANCE-K.ring. */
static void
key_of(const char *name, char *key, size_t size)
{
	snprintf(key, size, "%s", name);
	char *dot = strrchr(key, '.');
	bool ring = dot != NULL && strcmp(dot, ".ring") == 0;
	if (dot != NULL)
		*dot = '\0';
	char *dash = ring ? strrchr(key, '-') : NULL;
	if (dash != NULL)
		*dash = '\0';
}

static dead_logger *
logger_for(recovery *r, const char *name)
{
	char key[128];
	key_of(name, key, sizeof key);
	for (int i = 0; i < r->logger_count; i++)
		if (strcmp(r->loggers[i].key, key) == 0)
			return &r->loggers[i];
	dead_logger *more = realloc(r->loggers, (size_t)(r->logger_count + 1) * sizeof *more);
	if (more == NULL)
		return NULL;
	r->loggers = more;
	dead_logger *d = &r->loggers[r->logger_count++];
	memset(d, 0, sizeof *d);
	snprintf(d->key, sizeof d->key, "%s", key);
	return d;
}

static int
add_ring(recovery *r, dead_logger *d, const char *name)
{
	recovered_ring *more = realloc(d->rings, (size_t)(d->ring_count + 1) * sizeof *more);
	if (more == NULL)
		return sr_error_set(r->err, SR_ENOMEM, "ring_dir: cannot allocate the rings of \"%s\"", r->dir);
	d->rings = more;
	recovered_ring *g = &d->rings[d->ring_count];
	memset(g, 0, sizeof *g);
	if ((g->name = strdup(name)) == NULL)
		return sr_error_set(r->err, SR_ENOMEM, "ring_dir: cannot allocate a name");
	d->ring_count++;
	int rc = read_file(r->dir, name, &g->bytes, &g->n, r->err);
	if (rc != SR_OK)
		return rc;
	char what[PATH_MAX];
	snprintf(what, sizeof what, "%s/%s", r->dir, name);
	rc = sr_log__ring_file_parse(g->bytes, g->n, what, &g->v, r->err);
	if (rc != SR_OK)
		return rc;
	if (g->v.ring.bytes > r->scratch_bytes)
		r->scratch_bytes = g->v.ring.bytes;
	g->writer.tid = g->v.tid;
	memcpy(g->writer.name, g->v.name, sizeof g->writer.name);
	return SR_OK;
}

static int
add_meta(recovery *r, dead_logger *d, const char *name)
{
	if (d->has_meta)
		return sr_error_set(r->err, SR_EFORMAT, "ring_dir \"%s\": two meta files for %s", r->dir, d->key);
	size_t n = 0;
	int rc = read_file(r->dir, name, &d->meta_bytes, &n, r->err);
	if (rc != SR_OK)
		return rc;
	if ((d->meta_name = strdup(name)) == NULL)
		return sr_error_set(r->err, SR_ENOMEM, "ring_dir: cannot allocate a name");
	char what[PATH_MAX];
	snprintf(what, sizeof what, "%s/%s", r->dir, name);
	rc = sr_log__ring_meta_parse(d->meta_bytes, n, what, &d->meta, r->err);
	if (rc != SR_OK)
		return rc;
	d->has_meta = true;
	/* The sites and categories, rebuilt: the renderers read them as the live ones. */
	d->sites = calloc(d->meta.site_count + 1, sizeof *d->sites);
	d->categories = calloc(d->meta.category_count + 1, sizeof *d->categories);
	if (d->sites == NULL || d->categories == NULL)
		return sr_error_set(r->err, SR_ENOMEM, "ring_dir: cannot allocate the sites of \"%s\"", what);
	for (size_t i = 0; i < d->meta.site_count; i++) {
		const sr_log_meta_site *m = &d->meta.sites[i];
		sr_site *s = &d->sites[i];
		s->format = m->format;
		s->file = m->file;
		s->function = m->function;
		s->line = m->line;
		s->level = m->level;
		sr_fmt_sig scratch;
		(void)sr_site__parse(s, &scratch);
	}
	for (size_t i = 0; i < d->meta.category_count; i++)
		d->categories[i].name = d->meta.categories[i].name;
	return SR_OK;
}

/* Checks that every ring has its meta file and belongs to it. */
static int
check_loggers(recovery *r)
{
	for (int i = 0; i < r->logger_count; i++) {
		dead_logger *d = &r->loggers[i];
		if (!d->has_meta && d->ring_count > 0)
			return sr_error_set(r->err, SR_EFORMAT,
			    "ring_dir \"%s\": ring file \"%s\" has no meta file (\"%s.meta\" expected): its records cannot be "
			    "read; remove it to go on", r->dir, d->rings[0].name, d->key);
		for (int k = 0; k < d->ring_count; k++) {
			const sr_log_ring_view *v = &d->rings[k].v;
			if (v->pid != d->meta.pid || v->instance != d->meta.instance)
				return sr_error_set(r->err, SR_EFORMAT,
				    "ring_dir \"%s\": ring file \"%s\" is of pid %" PRId64 " instance %" PRIu64
				    ", its meta file of pid %" PRId64 " instance %" PRIu64, r->dir, d->rings[k].name, v->pid,
				    v->instance, d->meta.pid, d->meta.instance);
		}
	}
	return SR_OK;
}

/*
 * Where each ring starts: the tracked file's write in flight, if the death
 * interrupted one, decides between written and pending (and may be cut
 * back: the part of a write it holds).
 */
static void
decide_start(recovery *r, dead_logger *d)
{
	const sr_log_meta_view *m = &d->meta;
	d->from_pending = false;
	if (m->path[0] == '\0') {
		d->unchecked = true;
	} else if (m->in_flight) {
		struct stat st;
		if (stat(m->path, &st) != 0 || (int64_t)st.st_dev != m->flight_dev || (int64_t)st.st_ino != m->flight_ino) {
			/* Replaced since (rotated): the write went to the old file, whole or not. */
			d->from_pending = true;
			d->file_replaced = true;
		} else if ((int64_t)st.st_size >= m->flight_to) {
			d->from_pending = true;
		} else if ((int64_t)st.st_size > m->flight_from) {
			/* Part of the write: the file goes back to before it, and the write's lines come again whole. */
			if (truncate(m->path, (off_t)m->flight_from) == 0)
				d->cut_write = true;
			else
				d->from_pending = true;  /* cannot cut: the cut line stays, the rest is not written twice */
		}
	}
	r->report.unchecked |= d->unchecked;
	r->report.file_replaced |= d->file_replaced;
	r->report.cut_write |= d->cut_write;
	for (int k = 0; k < d->ring_count; k++) {
		recovered_ring *g = &d->rings[k];
		int64_t from = d->from_pending && g->v.pending > g->v.written ? g->v.pending : g->v.written;
		/*
		 * The ring holds its last slot_count sequences at most: older ones
		 * were written over (a written sequence that lagged, or a damaged one).
		 */
		if (from < g->v.cursor - g->v.ring.slot_count)
			from = g->v.cursor - g->v.ring.slot_count;
		g->next = from + 1;
		g->end = g->v.cursor;
		if (g->v.available == NULL)
			r->report.unpublished += (uint64_t)g->v.claimed_unpublished;
	}
}

/*
 * Moves g->next to the next published record (skipping unpublished and
 * content-less slots) and notes its time; false at the end.
 */
static bool
find_head(recovery *r, const dead_logger *d, recovered_ring *g)
{
	while (g->next <= g->end) {
		int64_t s = g->next;
		const sr_log_ring_view *v = &g->v;
		int64_t mark;
		memcpy(&mark, &v->skipped[s & v->ring.mask], sizeof mark);
		if (mark == s + 1) {
			g->next++;  /* published without content (a failed writer's) */
			continue;
		}
		if (!sr_log__ring_view_published(v, s)) {
			r->report.unpublished++;  /* claimed, never published: skipped */
			g->next++;
			continue;
		}
		g->head = true;
		g->head_ns = sr_log__meta_to_ns(&d->meta, sr_log__record_ts(&v->ring, s,
		    v->kind == SR_LOG_RING_FILE_THREAD ? &g->writer : NULL));
		return true;
	}
	g->head = false;
	return false;
}

/* Reads and writes the record at g->next, and moves past it. */
static void
take_record(recovery *r, dead_logger *d, recovered_ring *g)
{
	sr_log_rec h;
	const unsigned char *body = NULL;
	size_t len = 0;
	bool home = false;
	int64_t k;
	if (g->v.kind == SR_LOG_RING_FILE_THREAD)
		k = sr_log__thread_record_read(&g->v.ring, g->next, g->v.ring.bytes, r->scratch, &g->writer, &h, &body,
		    &len, &home);
	else
		k = sr_log__record_read(&g->v.ring, g->next, g->v.ring.bytes, r->scratch, NULL, &h, &body, &len);
	if (k == 0 || g->next + k - 1 > g->end) {
		/* Not a record we wrote, or one running past the ring's end: nothing after it can be trusted. */
		r->report.unresolved++;
		if (g->v.available != NULL) {
			g->next++;
		} else {
			g->next = g->end + 1;
		}
		return;
	}
	g->next += k;
	int kind = h.kind & SR_REC_KIND_MASK;
	if (kind != SR_REC_MESSAGE && kind != SR_REC_FORMAT_ERROR)
		return;  /* a notice, a dump, a thread's new name: nothing to write */
	const sr_log_meta_site *ms = sr_log__meta_find_site(&d->meta, (uint64_t)(uintptr_t)h.site);
	uint64_t cat_address = home && ms != NULL ? ms->home_cat : (uint64_t)(uintptr_t)h.cat;
	const sr_log_meta_category *mc = sr_log__meta_find_category(&d->meta, cat_address);
	if (ms == NULL || mc == NULL) {
		r->report.unresolved++;
		return;
	}
	h.site = &d->sites[ms - d->meta.sites];
	h.cat = &d->categories[mc - d->meta.categories];
	int64_t ns = sr_log__meta_to_ns(&d->meta, h.ts_ns);
	/*
	 * The raw reading is the dead process's: this logger's clock, which
	 * the event is made with before ns replaces its time, must not convert
	 * it (a tsc calibration of its own, and a reading that may be corrupt).
	 */
	h.ts_ns = 0;
	sr_log__write_recovered(r->into, &h, body, len, ns, r->line);
	r->report.records++;
}

/* One dead logger's records, merged by time across its rings. */
static void
write_logger(recovery *r, dead_logger *d)
{
	for (int k = 0; k < d->ring_count; k++)
		find_head(r, d, &d->rings[k]);
	for (;;) {
		recovered_ring *first = NULL;
		int64_t first_ns = 0;
		for (int k = 0; k < d->ring_count; k++) {
			recovered_ring *g = &d->rings[k];
			if (!g->head)
				continue;
			if (first == NULL || g->head_ns < first_ns) {
				first = g;
				first_ns = g->head_ns;
			}
		}
		if (first == NULL)
			return;
		take_record(r, d, first);
		find_head(r, d, first);
	}
}

static void
say_what_was_done(recovery *r, const dead_logger *d, uint64_t records, uint64_t unpublished, uint64_t unresolved)
{
	char text[PATH_MAX + 768];
	int n = snprintf(text, sizeof text,
	    "recovered %" PRIu64 " records of pid %" PRId64 " from ring directory \"%s\" (%d rings; written after it "
	    "died, each with its own time): %" PRIu64 " claimed slots were found unpublished and skipped (never "
	    "written half)", records, d->meta.pid, r->dir, d->ring_count, unpublished);
	if (unresolved > 0 && n > 0 && (size_t)n < sizeof text)
		n += snprintf(text + n, sizeof text - (size_t)n,
		    "; %" PRIu64 " records named a call site or category the process had not recorded, or did not "
		    "decode: not written", unresolved);
	if (d->cut_write && n > 0 && (size_t)n < sizeof text)
		n += snprintf(text + n, sizeof text - (size_t)n,
		    "; the kill cut a write to \"%s\": the file was cut back to the line before, and those lines written "
		    "again whole", d->meta.path);
	else if (d->file_replaced && n > 0 && (size_t)n < sizeof text)
		n += snprintf(text + n, sizeof text - (size_t)n,
		    "; \"%s\" was replaced since its last write: that write's lines were taken as written (lost if the "
		    "kill cut it)", d->meta.path);
	else if (d->unchecked && n > 0 && (size_t)n < sizeof text)
		n += snprintf(text + n, sizeof text - (size_t)n,
		    "; the lines of its last write could not be checked against a file sink and may appear twice");
	if (n < 0)
		return;
	sr_log__write_text_now(r->into, SR_LOG_WARN, text, (size_t)n < sizeof text ? (size_t)n : sizeof text - 1,
	    r->line);
}

static void
free_recovery(recovery *r)
{
	for (int i = 0; i < r->logger_count; i++) {
		dead_logger *d = &r->loggers[i];
		for (int k = 0; k < d->ring_count; k++) {
			free(d->rings[k].name);
			free(d->rings[k].bytes);
		}
		free(d->rings);
		free(d->sites);
		free(d->categories);
		sr_log__meta_view_free(&d->meta);
		free(d->meta_bytes);
		free(d->meta_name);
	}
	free(r->loggers);
	free(r->scratch);
	free(r->line);
}

static int
remove_files(recovery *r, char **names, int count)
{
	int rc = SR_OK;
	/* The rings first: a meta file left alone is read as a logger with nothing to write. */
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < count; i++) {
			size_t n = strlen(names[i]);
			bool meta = n >= 5 && strcmp(names[i] + n - 5, ".meta") == 0;
			if (meta != (pass == 1))
				continue;
			char path[PATH_MAX];
			snprintf(path, sizeof path, "%s/%s", r->dir, names[i]);
			if (unlink(path) != 0 && errno != ENOENT && rc == SR_OK)
				rc = sr_error_set(r->err, SR_ESYS, "ring_dir: recovered, but cannot remove \"%s\": %s", path,
				    strerror(errno));
		}
	}
	return rc;
}

int
sr_log__recover_files(sr_log *into, const char *dir, char **names, int count, sr_log_recovery *report,
    sr_error *err)
{
	recovery r;
	memset(&r, 0, sizeof r);
	r.into = into;
	r.dir = dir;
	r.err = err;
	int rc = SR_OK;
	for (int i = 0; i < count && rc == SR_OK; i++) {
		size_t len = strlen(names[i]);
		if (len > 5 && strcmp(names[i] + len - 5, ".part") == 0)
			continue;  /* a file its process was making when it died: no record was in it; removed below */
		dead_logger *d = logger_for(&r, names[i]);
		if (d == NULL) {
			rc = sr_error_set(err, SR_ENOMEM, "ring_dir: cannot allocate the list of \"%s\"", dir);
			break;
		}
		size_t n = strlen(names[i]);
		rc = n >= 5 && strcmp(names[i] + n - 5, ".meta") == 0 ? add_meta(&r, d, names[i]) : add_ring(&r, d, names[i]);
	}
	if (rc == SR_OK)
		rc = check_loggers(&r);
	if (rc == SR_OK && r.logger_count > 0) {
		r.scratch = malloc(r.scratch_bytes > 0 ? r.scratch_bytes : 1);
		r.line = malloc(into->opt.max_line + SR_FMT_LINE_RESERVE);
		if (r.scratch == NULL || r.line == NULL)
			rc = sr_error_set(err, SR_ENOMEM, "ring_dir: cannot allocate recovery's buffers");
	}
	for (int i = 0; rc == SR_OK && i < r.logger_count; i++) {
		dead_logger *d = &r.loggers[i];
		uint64_t records = r.report.records, unpublished = r.report.unpublished, unresolved = r.report.unresolved;
		decide_start(&r, d);
		write_logger(&r, d);
		r.report.pid = d->meta.pid;
		r.report.loggers++;
		r.report.rings += (uint32_t)d->ring_count;
		say_what_was_done(&r, d, r.report.records - records, r.report.unpublished - unpublished,
		    r.report.unresolved - unresolved);
	}
	if (rc == SR_OK)
		rc = remove_files(&r, names, count);
	if (report != NULL)
		*report = r.report;
	free_recovery(&r);
	return rc;
}

int
sr_log_recover(sr_log *into, const char *dir, sr_log_recovery *report, sr_error *err)
{
	if (report != NULL)
		memset(report, 0, sizeof *report);
	if (into == NULL)
		return sr_error_set(err, SR_EINVAL, "sr_log_recover: into is NULL: expected an open logger");
	if (dir == NULL || dir[0] == '\0')
		return sr_error_set(err, SR_EINVAL, "sr_log_recover: dir is %s: expected a ring directory's path",
		    dir == NULL ? "NULL" : "empty");
	struct stat st;
	if (stat(dir, &st) != 0)
		return sr_error_set(err, SR_ESYS, "sr_log_recover: ring directory \"%s\": %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return sr_error_set(err, SR_EINVAL, "sr_log_recover: \"%s\" is not a directory", dir);
	int fd;
	int rc = sr_log__ring_dir_lock(dir, &fd, err);
	if (rc != SR_OK)
		return rc;
	char **names;
	int count;
	rc = sr_log__ring_dir_list(dir, &names, &count, err);
	if (rc == SR_OK) {
		rc = sr_log__recover_files(into, dir, names, count, report, err);
		sr_log__ring_dir_list_free(names, count);
	}
	close(fd);
	return rc;
}

int
sr_log__recover_at_open(sr_log *log, sr_error *err)
{
	char **names;
	int count = sr_log__ring_dir_leftovers(log, &names);
	sr_log_ring_dir_recovery *done = sr_log__ring_dir_recovery(log);
	if (count == 0 || done == NULL)
		return SR_OK;
	sr_log_recovery report;
	int rc = sr_log__recover_files(log, sr_log__ring_dir_path(log), names, count, &report, err);
	if (rc == SR_OK) {
		done->done = true;
		done->pid = report.pid;
		done->records = report.records;
		done->unpublished = report.unpublished;
		done->unresolved = report.unresolved;
		done->cut_write = report.cut_write;
	}
	return rc;
}
