/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_ring_file.c: one of the logger's rings in a file of the ring
 * directory: made with its space reserved, mapped shared, its sequencer and
 * slots inside; unmapped and removed; turned into private memory in a
 * forked child.  The layout is sr_log_ring_file_head's
 * (sr_log_ring_dir_internal.h).
 */
#include "sr_log_ring_dir_internal.h"
#include "sr_ring_internal.h"
#include "sr_sequencer_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

uint64_t
sr_log__fnv1a64(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t h = UINT64_C(14695981039346656037);
	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= UINT64_C(1099511628211);
	}
	return h;
}

uint64_t
sr_log__ring_file_head_checksum(const sr_log_ring_file_head *h)
{
	/* The writer (tid, name) is left out: a spare ring's file takes a new one while it is readable. */
	sr_log_ring_file_head c = *h;
	c.tid = 0;
	memset(c.name, 0, sizeof c.name);
	return sr_log__fnv1a64(&c, offsetof(sr_log_ring_file_head, checksum));
}

static int64_t
round_up(int64_t v, int64_t to)
{
	return (v + to - 1) / to * to;
}

/* The layout of a ring of slot_count x slot_size (mode: whether it has the MP flags). */
static void
layout(sr_log_ring_file_head *h, int64_t slot_count, size_t slot_size)
{
	int64_t at = round_up((int64_t)sizeof *h, SR_CACHELINE);
	h->sequencer_bytes = (uint32_t)sizeof(sr_sequencer);
	h->sequencer_offset = at;
	at = round_up(at + (int64_t)sizeof(sr_sequencer), SR_CACHELINE);
	h->written_offset = at;
	at += (int64_t)sizeof(sr_sequence);
	h->pending_offset = at;
	at += (int64_t)sizeof(sr_sequence);
	if (h->kind == SR_LOG_RING_FILE_SHARED) {
		h->available_offset = at;
		at += slot_count * (int64_t)sizeof(int64_t);
	}
	h->skipped_offset = at;
	at += slot_count * (int64_t)sizeof(int64_t);
	h->slots_offset = round_up(at, SR_LOG_RING_DIR_PAGE);
	h->file_bytes = h->slots_offset + slot_count * (int64_t)slot_size;
}

sr_log_ring_file *
sr_log__ring_file_make(const char *dir, int64_t pid, uint64_t instance, int index, int kind,
    int64_t slot_count, size_t slot_size, uint32_t tid, const char *name,
    const sr_sequencer_config *config, sr_ring *ring_out, sr_sequencer **seq_out, sr_error *err)
{
	if (sr_ring__check_geometry(slot_count, slot_size, err) != SR_OK)
		return NULL;
	sr_log_ring_file *f = calloc(1, sizeof *f);
	size_t plen = strlen(dir) + 64;
	char *path = malloc(plen);
	if (f == NULL || path == NULL) {
		free(f);
		free(path);
		sr_error_set(err, SR_ENOMEM, "cannot allocate a ring file's name in \"%s\"", dir);
		return NULL;
	}
	snprintf(path, plen, "%s/%" PRId64 "-%" PRIu64 "-%d.ring", dir, pid, instance, index);
	f->path = path;
	/* Made under a name recovery does not read, then renamed once whole: a death meanwhile leaves a .part. */
	char part[PATH_MAX];
	snprintf(part, sizeof part, "%s.part", path);

	sr_log_ring_file_head h;
	memset(&h, 0, sizeof h);
	memcpy(h.magic, SR_LOG_RING_FILE_MAGIC, sizeof h.magic);
	h.version = SR_LOG_RING_DIR_VERSION;
	h.head_bytes = (uint32_t)sizeof h;
	h.kind = (uint32_t)kind;
	h.slot_size = (uint32_t)slot_size;
	h.slot_count = slot_count;
	h.pid = pid;
	h.instance = instance;
	h.tid = tid;
	if (name != NULL)
		strncpy(h.name, name, sizeof h.name - 1);
	layout(&h, slot_count, slot_size);
	h.checksum = sr_log__ring_file_head_checksum(&h);

	int fd = open(part, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		sr_error_set(err, SR_ESYS, "ring_dir: cannot create ring file \"%s\": %s", path, strerror(errno));
		goto fail;
	}
	/*
	 * Every block now: a disk that fills later is an error here, not a
	 * SIGBUS when a log call first touches an unbacked page.
	 */
	int e = posix_fallocate(fd, 0, (off_t)h.file_bytes);
	if (e != 0) {
		sr_error_set(err, SR_ESYS,
		    "ring_dir: cannot reserve %" PRId64 " bytes for ring file \"%s\": %s%s", h.file_bytes, path,
		    strerror(e), e == EOPNOTSUPP || e == EINVAL ? " (the filesystem cannot reserve space)" : "");
		close(fd);
		unlink(part);
		goto fail;
	}
	void *m = mmap(NULL, (size_t)h.file_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	e = errno;
	close(fd);
	if (m == MAP_FAILED) {
		sr_error_set(err, SR_ESYS, "ring_dir: cannot map ring file \"%s\" shared: %s", path, strerror(e));
		unlink(part);
		goto fail;
	}
	f->base = m;
	f->bytes = (size_t)h.file_bytes;
	/*
	 * Every page written once now, as sr_ring_create touches its memory: a
	 * shared file's page is mapped for writing only at its first write (a
	 * fault), which then falls here and not on a log call's first lap.
	 */
	for (size_t at = 0; at < f->bytes; at += SR_LOG_RING_DIR_PAGE)
		((volatile unsigned char *)f->base)[at] = 0;
	f->written = (sr_sequence *)(void *)(f->base + h.written_offset);
	f->pending = (sr_sequence *)(void *)(f->base + h.pending_offset);
	sr_sequence_init(f->written, SR_SEQUENCE_INITIAL);
	sr_sequence_init(f->pending, SR_SEQUENCE_INITIAL);
	sr_sequencer *seq = (sr_sequencer *)(void *)(f->base + h.sequencer_offset);
	sr_atomic_i64 *available = h.available_offset != 0 ?
	    (sr_atomic_i64 *)(void *)(f->base + h.available_offset) : NULL;
	sr_atomic_i64 *skipped = (sr_atomic_i64 *)(void *)(f->base + h.skipped_offset);
	if (sr_sequencer__init_at(seq, config, available, skipped, false, err) != SR_OK) {
		munmap(f->base, f->bytes);
		unlink(part);
		goto fail;
	}
	sr_ring__init_view(ring_out, f->base + h.slots_offset, slot_count, slot_size);
	/* The header last: a file whose header checks describes a ring ready to be read. */
	memcpy(f->base, &h, sizeof h);
	f->head = (sr_log_ring_file_head *)(void *)f->base;
	if (rename(part, path) != 0) {
		sr_error_set(err, SR_ESYS, "ring_dir: cannot name ring file \"%s\": %s", path, strerror(errno));
		sr_sequencer__fini(seq);
		munmap(f->base, f->bytes);
		unlink(part);
		goto fail;
	}
	*seq_out = seq;
	return f;
fail:
	free(f->path);
	free(f);
	return NULL;
}

void
sr_log__ring_file_set_writer(sr_log_ring_file *f, uint32_t tid, const char *name)
{
	/*
	 * A spare's file, drained (written == cursor): read after a death now,
	 * it has nothing to recover whatever these fields hold; the new
	 * thread's records, after them, find them whole.
	 */
	f->head->tid = tid;
	memset(f->head->name, 0, sizeof f->head->name);
	if (name != NULL)
		strncpy(f->head->name, name, sizeof f->head->name - 1);
}

sr_sequencer *
sr_log__ring_file_sequencer(const sr_log_ring_file *f)
{
	return (sr_sequencer *)(void *)(f->base + f->head->sequencer_offset);
}

void
sr_log__ring_file_close(sr_log_ring_file *f, bool unlink_file)
{
	if (f == NULL)
		return;
	sr_sequencer__fini((sr_sequencer *)(void *)(f->base + f->head->sequencer_offset));
	if (unlink_file && f->path[0] != '\0')
		unlink(f->path);
	munmap(f->base, f->bytes);
	free(f->path);
	free(f);
}

int
sr_log__ring_file_privatize(sr_log_ring_file *f)
{
	/* The child is single-threaded here: copy out, replace the pages in place, copy back. */
	void *copy = malloc(f->bytes);
	if (copy == NULL)
		return SR_ENOMEM;
	memcpy(copy, f->base, f->bytes);
	void *m = mmap(f->base, f->bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (m == MAP_FAILED) {
		free(copy);
		return SR_ESYS;
	}
	memcpy(f->base, copy, f->bytes);
	free(copy);
	/* The file stays the parent's. */
	f->path[0] = '\0';
	return SR_OK;
}
