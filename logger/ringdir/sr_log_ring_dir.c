/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_ring_dir.c: a logger's ring directory: its lock, what a dead
 * process left in it, this process's meta file (header page and entries)
 * and its ring files' names; closing it, and a forked child's copy.
 *
 * The lock is an open-file-description lock (F_OFD_SETLK) on DIR/lock:
 * the kernel drops it when the process dies, however it dies, and a pid
 * can be reused where a lock cannot lie.  A forked child shares the open
 * file: it closes its descriptor (the lock stays the parent's) and keeps
 * its rings in private memory.
 */
#include "sr_log_ring_dir_internal.h"
#include "sr_log_clock_internal.h"
#include "sr_file_lock_internal.h"

#include <dirent.h>
#include <pthread.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct sr_log_ring_dir {
	char *path;
	int lock_fd;
	int meta_fd;                  /* O_APPEND: entries; -1 in a forked child */
	char *meta_path;
	sr_log_ring_meta_head *meta;  /* the header page, mapped shared (private in a forked child) */
	int64_t pid;
	uint64_t instance;
	sr_atomic_i32 next_ring;      /* the next ring file's index */
	bool forked;                  /* a forked child's copy: no new file, nothing removed */
	bool write_failed_told;
	sr_atomic_i32 refused_told;   /* a ring file could not be made: said once */
	sr_atomic_i32 kept;           /* ring files closed with records not yet written: the meta file stays */
	pthread_mutex_t files_lock;   /* guards files */
	sr_log_ring_file *files;      /* the ring files open now */
	bool settled;                 /* a drained shutdown removed the files */
	char **leftovers;             /* a dead process's files, as listed at open */
	int leftover_count;
	sr_log_ring_dir_recovery recovery;
};

static sr_log_meta_append_fn append_entry;

static uint64_t
new_instance(void)
{
	uint64_t v = 0;
	if (getrandom(&v, sizeof v, GRND_NONBLOCK) != (ssize_t)sizeof v) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		v = (uint64_t)ts.tv_nsec * UINT64_C(0x9E3779B97F4A7C15) ^ (uint64_t)ts.tv_sec ^ (uint64_t)getpid() << 32;
	}
	return v;
}

static bool
ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);
	return n >= t && strcmp(s + n - t, tail) == 0;
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int
sr_log__ring_dir_list(const char *path, char ***names, int *count, sr_error *err)
{
	*names = NULL;
	*count = 0;
	DIR *dir = opendir(path);
	if (dir == NULL)
		return sr_error_set(err, SR_ESYS, "ring_dir \"%s\": cannot list it: %s", path, strerror(errno));
	int cap = 0, rc = SR_OK;
	struct dirent *e;
	while ((e = readdir(dir)) != NULL) {
		if (!ends_with(e->d_name, ".meta") && !ends_with(e->d_name, ".ring") && !ends_with(e->d_name, ".part"))
			continue;
		if (*count == cap) {
			cap = cap == 0 ? 8 : cap * 2;
			char **more = realloc(*names, (size_t)cap * sizeof *more);
			if (more == NULL) {
				rc = sr_error_set(err, SR_ENOMEM, "ring_dir \"%s\": cannot allocate its list", path);
				break;
			}
			*names = more;
		}
		if (((*names)[*count] = strdup(e->d_name)) == NULL) {
			rc = sr_error_set(err, SR_ENOMEM, "ring_dir \"%s\": cannot allocate its list", path);
			break;
		}
		(*count)++;
	}
	closedir(dir);
	if (rc != SR_OK) {
		sr_log__ring_dir_list_free(*names, *count);
		*names = NULL;
		*count = 0;
		return rc;
	}
	if (*count > 1)
		qsort(*names, (size_t)*count, sizeof **names, by_name);
	return SR_OK;
}

void
sr_log__ring_dir_list_free(char **names, int count)
{
	for (int i = 0; i < count; i++)
		free(names[i]);
	free(names);
}

int
sr_log__ring_dir_lock(const char *dir, int *fdp, sr_error *err)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/lock", dir);
	int fd = sr__lock_file(path, 0600);
	if (fd < 0 && errno == EAGAIN)
		return sr_error_set(err, SR_ESTATE,
		    "ring_dir \"%s\" is in use by a live logger (its lock \"%s\" is held): two live loggers "
		    "never share a ring directory", dir, path);
	if (fd < 0)
		return sr_error_set(err, SR_ESYS, "ring_dir \"%s\": cannot open or lock its lock file \"%s\": %s%s", dir,
		    path, strerror(errno), errno == EROFS || errno == EACCES ? " (the directory must be writable)" : "");
	*fdp = fd;
	return SR_OK;
}

/* Makes this process's meta file and maps its header page. */
static int
make_meta(sr_log_ring_dir *d, const sr_log *log, sr_error *err)
{
	size_t plen = strlen(d->path) + 64;
	d->meta_path = malloc(plen);
	if (d->meta_path == NULL)
		return sr_error_set(err, SR_ENOMEM, "ring_dir \"%s\": cannot allocate a name", d->path);
	snprintf(d->meta_path, plen, "%s/%" PRId64 "-%" PRIu64 ".meta", d->path, d->pid, d->instance);
	/* Made under a name recovery does not read, then renamed once its header is whole. */
	char part[PATH_MAX];
	snprintf(part, sizeof part, "%s.part", d->meta_path);
	int fd = open(part, O_RDWR | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0600);
	if (fd < 0)
		return sr_error_set(err, SR_ESYS, "ring_dir: cannot create meta file \"%s\": %s%s", d->meta_path,
		    strerror(errno), errno == EROFS || errno == EACCES ? " (the directory must be writable)" : "");
	int e = posix_fallocate(fd, 0, SR_LOG_RING_DIR_PAGE);
	void *m = e == 0 ? mmap(NULL, SR_LOG_RING_DIR_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
	if (m == MAP_FAILED) {
		if (e == 0)
			e = errno;
		close(fd);
		unlink(part);
		return sr_error_set(err, SR_ESYS, "ring_dir: cannot %s meta file \"%s\": %s", e == ENOSPC ||
		    e == EOPNOTSUPP ? "reserve" : "map", d->meta_path, strerror(e));
	}
	/* Room for the entries too, when the filesystem can keep it without growing the file (best effort). */
	(void)fallocate(fd, FALLOC_FL_KEEP_SIZE, SR_LOG_RING_DIR_PAGE, 64 << 10);
	d->meta_fd = fd;
	d->meta = m;
	sr_log_ring_meta_head *h = d->meta;
	memset(h, 0, sizeof *h);
	memcpy(h->magic, SR_LOG_RING_META_MAGIC, sizeof h->magic);
	h->version = SR_LOG_RING_DIR_VERSION;
	h->head_bytes = (uint32_t)sizeof *h;
	h->pid = d->pid;
	h->instance = d->instance;
	h->opened_ns = sr_realtime_ns();
	h->clock = (int32_t)log->opt.clock;
	h->checksum = sr_log__fnv1a64(h, offsetof(sr_log_ring_meta_head, checksum));
	if (rename(part, d->meta_path) != 0) {
		int e = errno;
		munmap(d->meta, SR_LOG_RING_DIR_PAGE);
		d->meta = NULL;
		close(fd);
		d->meta_fd = -1;
		unlink(part);
		return sr_error_set(err, SR_ESYS, "ring_dir: cannot name meta file \"%s\": %s", d->meta_path, strerror(e));
	}
	return SR_OK;
}

static void
dir_free(sr_log_ring_dir *d)
{
	if (d == NULL)
		return;
	sr_log__ring_dir_list_free(d->leftovers, d->leftover_count);
	pthread_mutex_destroy(&d->files_lock);
	free(d->meta_path);
	free(d->path);
	free(d);
}

int
sr_log__ring_dir_open(sr_log *log, const char *path, sr_error *err)
{
	if (path == NULL || path[0] == '\0')
		return sr_error_set(err, SR_EINVAL, "config.ring_dir is empty: expected a directory's path");
	if (strlen(path) > PATH_MAX - 128)
		return sr_error_set(err, SR_EINVAL, "config.ring_dir \"%.64s...\" is too long: at most %d bytes",
		    path, PATH_MAX - 128);
	sr_log_ring_dir *d = calloc(1, sizeof *d);
	if (d == NULL || (d->path = strdup(path)) == NULL) {
		free(d);
		return sr_error_set(err, SR_ENOMEM, "cannot allocate ring_dir \"%s\"", path);
	}
	d->lock_fd = d->meta_fd = -1;
	pthread_mutex_init(&d->files_lock, NULL);
	d->pid = (int64_t)getpid();
	d->instance = new_instance();
	if (mkdir(path, 0700) != 0 && errno != EEXIST) {
		sr_error_set(err, SR_ESYS, "ring_dir \"%s\": cannot make it: %s", path, strerror(errno));
		dir_free(d);
		return err != NULL ? err->code : SR_ESYS;
	}
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
		sr_error_set(err, SR_EINVAL, "ring_dir \"%s\" is not a directory", path);
		dir_free(d);
		return SR_EINVAL;
	}
	int rc = sr_log__ring_dir_lock(path, &d->lock_fd, err);
	if (rc == SR_OK)
		rc = sr_log__ring_dir_list(path, &d->leftovers, &d->leftover_count, err);
	if (rc == SR_OK)
		rc = make_meta(d, log, err);
	if (rc != SR_OK) {
		if (d->lock_fd >= 0)
			close(d->lock_fd);
		dir_free(d);
		return rc;
	}
	log->ring_dir = d;
	sr_log__site_catalogue_attach(d, append_entry);
	return SR_OK;
}

void
sr_log__ring_dir_close(sr_log *log, bool clean)
{
	sr_log_ring_dir *d = log->ring_dir;
	if (d == NULL)
		return;
	log->ring_dir = NULL;
	sr_log__site_catalogue_detach(d);
	/* Its rings are closed already: the meta file goes with them, unless one stayed to be recovered. */
	if (clean && !d->forked && !d->settled && sr_atomic_load_relaxed_i32(&d->kept) == 0)
		unlink(d->meta_path);
	if (d->meta != NULL)
		munmap(d->meta, SR_LOG_RING_DIR_PAGE);
	if (d->meta_fd >= 0)
		close(d->meta_fd);
	if (d->lock_fd >= 0)
		close(d->lock_fd);
	dir_free(d);
}

const char *
sr_log__ring_dir_path(const sr_log *log)
{
	return log->ring_dir != NULL ? log->ring_dir->path : NULL;
}

int
sr_log__ring_dir_leftovers(const sr_log *log, char ***names)
{
	*names = log->ring_dir != NULL ? log->ring_dir->leftovers : NULL;
	return log->ring_dir != NULL ? log->ring_dir->leftover_count : 0;
}

sr_log_ring_file *
sr_log__ring_dir_make_ring(sr_log *log, int kind, int64_t slot_count, size_t slot_size, uint32_t tid,
    const char *name, const sr_sequencer_config *config, sr_ring *ring_out, sr_sequencer **seq_out,
    sr_error *err)
{
	sr_log_ring_dir *d = log->ring_dir;
	if (d == NULL || d->forked) {
		sr_error_set(err, SR_ESTATE, "no ring directory in this process");
		return NULL;
	}
	/* Counters of names only: no data rides on this add. */
	int index = sr_atomic_faa_i32(&d->next_ring, 1);
	sr_log_ring_file *f = sr_log__ring_file_make(d->path, d->pid, d->instance, index, kind, slot_count, slot_size,
	    tid, name, config, ring_out, seq_out, err);
	if (f != NULL) {
		pthread_mutex_lock(&d->files_lock);
		f->next = d->files;
		d->files = f;
		pthread_mutex_unlock(&d->files_lock);
	}
	return f;
}

/* Whether every record of f reached the sinks. */
static bool
file_written(const sr_log_ring_file *f)
{
	return sr_sequence_get(f->written) >= sr_sequencer_cursor(sr_log__ring_file_sequencer(f));
}

void
sr_log__ring_dir_settle(sr_log *log)
{
	sr_log_ring_dir *d = log->ring_dir;
	if (d == NULL || d->forked || d->settled)
		return;
	pthread_mutex_lock(&d->files_lock);
	bool all = sr_atomic_load_relaxed_i32(&d->kept) == 0;
	for (sr_log_ring_file *f = d->files; f != NULL; f = f->next) {
		if (!file_written(f)) {
			all = false;
			continue;
		}
		unlink(f->path);
		f->path[0] = '\0';  /* removed: its close has nothing left to remove */
	}
	pthread_mutex_unlock(&d->files_lock);
	if (all) {
		unlink(d->meta_path);
		d->settled = true;
	}
}

bool
sr_log__ring_dir_active(const sr_log *log)
{
	return log->ring_dir != NULL && !log->ring_dir->forked;
}

sr_log_ring_meta_head *
sr_log__ring_dir_meta(const sr_log *log)
{
	return log->ring_dir != NULL ? log->ring_dir->meta : NULL;
}

bool
sr_log__ring_dir_append(sr_log_ring_dir *d, const void *entry, size_t n)
{
	if (d->meta_fd < 0)
		return false;
	/* O_APPEND: writers of different threads never interleave inside an entry. */
	ssize_t w = write(d->meta_fd, entry, n);
	if (w == (ssize_t)n)
		return true;
	if (!d->write_failed_told) {
		/* Told once, on stderr: what a recovery will lack is a site or a category's name. */
		d->write_failed_told = true;
		char line[PATH_MAX + 160];
		int len = snprintf(line, sizeof line,
		    "seqring: ring_dir meta file \"%s\": an entry could not be written (%s): records that need it "
		    "cannot be recovered\n", d->meta_path, w < 0 ? strerror(errno) : "a short write");
		if (len > 0)
			(void)!write(STDERR_FILENO, line, (size_t)len < sizeof line ? (size_t)len : sizeof line - 1);
	}
	return false;
}

/* sr_log__ring_dir_append as the catalogue calls it. */
static bool
append_entry(void *d, const void *entry, size_t n)
{
	return sr_log__ring_dir_append(d, entry, n);
}

void
sr_log__ring_dir_note_category(sr_log *log, const sr_category *cat)
{
	if (log->ring_dir == NULL)
		return;
	unsigned char entry[SR_LOG_META_ENTRY_MAX];
	size_t n = sr_log__meta_category_entry(cat, entry);
	(void)sr_log__ring_dir_append(log->ring_dir, entry, n);
}

void
sr_log__ring_dir_track_path(sr_log *log, const char *path)
{
	sr_log_ring_dir *d = log->ring_dir;
	if (d == NULL)
		return;
	sr_log_ring_meta_head *h = d->meta;
	size_t n = path != NULL ? strlen(path) : 0;
	if (n > SR_LOG_RING_META_PATH)
		n = 0;  /* too long to keep: recovery then cannot tell a cut write (at least once) */
	memset(h->path, 0, sizeof h->path);
	if (n > 0)
		memcpy(h->path, path, n);
	h->path_len = (uint32_t)n;
	h->checksum = sr_log__fnv1a64(h, offsetof(sr_log_ring_meta_head, checksum));
}

void
sr_log__ring_dir_note_clock(sr_log *log)
{
	sr_log_ring_dir *d = log->ring_dir;
	int64_t seg[5];
	if (d == NULL || !sr_log__clock_segment(log, seg))
		return;
	sr_log_ring_meta_head *h = d->meta;
	/*
	 * A sequence lock for a reader that comes after this process died: odd
	 * while the fields change.  The stores only need to reach the page in
	 * order (one writer, the consumer).
	 */
	int64_t v = sr_atomic_load_relaxed_i64(&h->clock_version);
	sr_atomic_store_relaxed_i64(&h->clock_version, v + 1);
	sr_atomic_fence_release();
	for (int f = 0; f < 5; f++)
		sr_atomic_store_relaxed_i64(&h->clock_seg[f], seg[f]);
	/* pairs with the reader's load of the version (recovery, another process, later) */
	sr_atomic_store_release_i64(&h->clock_version, v + 2);
}

sr_log_ring_dir_recovery *
sr_log__ring_dir_recovery(const sr_log *log)
{
	return log->ring_dir != NULL ? &log->ring_dir->recovery : NULL;
}

void
sr_log__ring_dir_after_fork_child(sr_log *log)
{
	sr_log_ring_dir *d = log->ring_dir;
	if (d == NULL || d->forked)
		return;
	d->forked = true;
	/* The lock's open file stays the parent's: closing our descriptor keeps its lock. */
	if (d->lock_fd >= 0)
		close(d->lock_fd);
	d->lock_fd = -1;
	if (d->meta_fd >= 0)
		close(d->meta_fd);
	d->meta_fd = -1;
	/* The header page: private (the parent writes its own clock and writes in flight there). */
	unsigned char copy[SR_LOG_RING_DIR_PAGE];
	memcpy(copy, d->meta, sizeof copy);
	if (mmap(d->meta, SR_LOG_RING_DIR_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
	    0) != MAP_FAILED)
		memcpy(d->meta, copy, sizeof copy);
}

void
sr_log__ring_dir_ring_closed(sr_log *log, sr_log_ring_file *f, bool written)
{
	sr_log_ring_dir *d = log != NULL ? log->ring_dir : NULL;
	if (d != NULL) {
		pthread_mutex_lock(&d->files_lock);
		for (sr_log_ring_file **q = &d->files; *q != NULL; q = &(*q)->next) {
			if (*q == f) {
				*q = f->next;
				break;
			}
		}
		pthread_mutex_unlock(&d->files_lock);
	}
	/* A forked child's copy never removes a file: each is the parent's. */
	bool mine = d != NULL && !d->forked;
	if (!written && mine)
		sr_atomic_faa_i32(&d->kept, 1);  /* a count: no data rides on it */
	sr_log__ring_file_close(f, written && mine);
}

void
sr_log__ring_dir_refused(sr_log *log, const char *why)
{
	sr_log_ring_dir *d = log->ring_dir;
	if (d == NULL || !sr_atomic_cas_i32(&d->refused_told, 0, 1))
		return;
	char line[PATH_MAX + 512];
	int len = snprintf(line, sizeof line,
	    "seqring: ring_dir \"%s\": a thread's ring could not be made (%s): that thread's calls through this "
	    "logger are dropped (counted in sr_log_stats)\n", d->path, why);
	if (len > 0)
		(void)!write(STDERR_FILENO, line, (size_t)len < sizeof line ? (size_t)len : sizeof line - 1);
}
