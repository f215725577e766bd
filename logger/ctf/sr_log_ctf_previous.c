/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_ctf_previous.c: the trace directory taken for this run.  A live
 * writer holds an open-file-description lock on DIR/.lock for its life
 * (the kernel drops it whatever ends the process; a pid could be reused, a
 * lock cannot lie).  A directory that holds a trace whose writer is gone
 * (the previous run, ended well or killed) is kept, not written into: its
 * packets and metadata cut short by a kill are trimmed back to the last
 * whole one, so that any reader reads it, and it is renamed DIR.1 (an
 * older DIR.1 becoming DIR.2, and so on; nothing is deleted).  Then DIR is
 * made afresh.  A trace one live writer holds is refused.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "sr_file_lock_internal.h"
#include "sr_log_ctf_writer_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LOCK_NAME SR_CTF_LOCK_NAME

/* Locks the lock file in dir (made if missing): its descriptor, -1 when a live writer holds it (errno EAGAIN). */
static int
lock_dir(const char *dir, unsigned mode)
{
	char path[PATH_MAX];
	if (snprintf(path, sizeof path, "%s/" LOCK_NAME, dir) >= (int)sizeof path) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return sr__lock_file(path, mode);
}

/* Cuts a stream file back to its last whole packet; true when something was cut. */
static bool
trim_stream(const char *path)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	uint64_t size = (uint64_t)st.st_size, at = 0;
	while (at + sizeof(sr_ctf_packet_head) <= size) {
		sr_ctf_packet_head h;
		if (pread(fd, &h, sizeof h, (off_t)at) != (ssize_t)sizeof h || h.magic != SR_CTF_MAGIC ||
		    h.content_size % 8 != 0 || h.content_size / 8 < sizeof h || h.content_size / 8 > size - at)
			break;
		at += h.content_size / 8;
	}
	bool cut = at < size && ftruncate(fd, (off_t)at) == 0;
	close(fd);
	return cut;
}

/* Cuts the metadata back to its last whole top-level declaration ("};" at the start of a line). */
static bool
trim_metadata(const char *path)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0 || st.st_size == 0) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	char *text = malloc((size_t)st.st_size);
	bool cut = false;
	if (text != NULL && pread(fd, text, (size_t)st.st_size, 0) == st.st_size) {
		size_t end = 0;
		for (size_t i = 0; i + 3 <= (size_t)st.st_size; i++)
			if ((i == 0 || text[i - 1] == '\n') && memcmp(text + i, "};\n", 3) == 0)
				end = i + 3;
		cut = end > 0 && end < (size_t)st.st_size && ftruncate(fd, (off_t)end) == 0;
	}
	free(text);
	close(fd);
	return cut;
}

/* Trims every stream file and the metadata of a trace whose writer is gone; the count of files cut. */
static int
trim_trace(const char *dir)
{
	int cut = 0;
	char path[PATH_MAX + 300];
	snprintf(path, sizeof path, "%s/" SR_CTF_METADATA_NAME, dir);
	cut += trim_metadata(path);
	DIR *d = opendir(dir);
	if (d == NULL)
		return cut;
	for (struct dirent *e; (e = readdir(d)) != NULL;) {
		if (strncmp(e->d_name, SR_CTF_STREAM_PREFIX, strlen(SR_CTF_STREAM_PREFIX)) != 0)
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		cut += trim_stream(path);
	}
	closedir(d);
	return cut;
}

/* dir.N's name into out. */
static void
kept_name(const char *dir, int n, char *out, size_t size)
{
	if (n == 0)
		snprintf(out, size, "%s", dir);
	else
		snprintf(out, size, "%s.%d", dir, n);
}

/* Renames dir to dir.1, after dir.1 to dir.2 and so on (the chain up to the first free name). */
static int
keep_aside(const char *dir, char *kept, size_t size)
{
	enum { MOST_KEPT = 100000 };
	char from[PATH_MAX + 16], to[PATH_MAX + 16];
	struct stat st;
	int free_at = 1;
	for (;; free_at++) {
		kept_name(dir, free_at, to, sizeof to);
		if (lstat(to, &st) != 0)
			break;
		if (free_at == MOST_KEPT) {
			errno = EMLINK;
			return -1;
		}
	}
	for (int k = free_at; k >= 1; k--) {
		kept_name(dir, k - 1, from, sizeof from);
		kept_name(dir, k, to, sizeof to);
		if (rename(from, to) != 0)
			return -1;
	}
	kept_name(dir, 1, kept, size);
	return 0;
}

int
sr_log__ctf_take_dir(sr_log_ctf *t, sr_error *err)
{
	const char *dir = t->dir;
	t->made_dir = mkdir(dir, 0777) == 0;
	if (!t->made_dir && errno != EEXIST)
		return sr_error_set(err, SR_ESYS, "ctf sink: cannot make the trace directory \"%s\": %s (expected a "
		    "directory that exists or whose parent does)", dir, strerror(errno));
	struct stat st;
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return sr_error_set(err, SR_ESYS, "ctf sink: \"%s\" is not a directory (expected a directory for the "
		    "trace's files)", dir);
	int fd = lock_dir(dir, t->opt.file_mode);
	if (fd < 0 && errno == EAGAIN)
		return sr_error_set(err, SR_ESTATE, "ctf sink: \"%s\" is the trace of a live logger (it holds %s/"
		    LOCK_NAME "): a trace has one writer; expected a directory no running logger writes", dir, dir);
	if (fd < 0)
		return sr_error_set(err, SR_ESYS, "ctf sink: cannot lock \"%s/" LOCK_NAME "\": %s", dir, strerror(errno));
	char path[PATH_MAX + 32];
	snprintf(path, sizeof path, "%s/" SR_CTF_METADATA_NAME, dir);
	if (access(path, F_OK) == 0) {
		/* The previous run's trace: made readable, kept aside; this run's starts in a new DIR. */
		int cut = trim_trace(dir);
		char kept[PATH_MAX + 16];
		int rc = keep_aside(dir, kept, sizeof kept);
		close(fd);  /* the lock of the directory now named kept */
		if (rc != 0)
			return sr_error_set(err, SR_ESYS, "ctf sink: \"%s\" holds the previous run's trace, which cannot be "
			    "kept aside as \"%s.1\": %s", dir, dir, strerror(errno));
		fprintf(stderr, "seqring: ctf sink: the previous trace in \"%s\" is kept as \"%s\"%s\n", dir, kept,
		    cut > 0 ? " (the packets a kill cut short were trimmed)" : "");
		if (mkdir(dir, 0777) != 0)
			return sr_error_set(err, SR_ESYS, "ctf sink: cannot make the trace directory \"%s\": %s", dir,
			    strerror(errno));
		t->made_dir = true;
		fd = lock_dir(dir, t->opt.file_mode);
		if (fd < 0)
			return sr_error_set(err, errno == EAGAIN ? SR_ESTATE : SR_ESYS, "ctf sink: cannot lock \"%s/"
			    LOCK_NAME "\": %s", dir, errno == EAGAIN ? "another logger took it first" : strerror(errno));
	}
	t->lock_fd = fd;
	return SR_OK;
}
