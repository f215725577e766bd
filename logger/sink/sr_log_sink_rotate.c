/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_sink_rotate.c: rotation of file sinks (max_file_bytes,
 * rotate_daily), in the write path, under the sink's lock, between two
 * lines: app.log.N-1 -> app.log.N, ..., app.log -> app.log.1, the oldest
 * deleted beyond keep_files.  No line is split, lost or written twice.  If a
 * rename fails the sink keeps appending to the same file (nothing is
 * truncated); if the new file cannot be opened, writes are counted as
 * errors and the open is retried at the next write.  sr_log__sink_write_locked,
 * every writer's way in, chooses between this and a plain write.
 */
#include "sr_log_sink_internal.h"
#include "sr_time.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>


bool
sr_log__sink_rotates(const sr_log_sink *s)
{
	return s->cfg.kind == SR_SINK_FILE && (s->cfg.max_file_bytes > 0 || s->cfg.rotate_daily);
}

static int64_t
utc_day(time_t t)
{
	int64_t sec = (int64_t)t;
	return sec >= 0 ? sec / 86400 : -((-sec + 86399) / 86400);
}

static int64_t
today(void)
{
	return utc_day((time_t)(sr_realtime_ns() / SR_NS_PER_S));
}

static const char *
numbered(sr_log_sink *s, int k)
{
	snprintf(s->rot_name, s->rot_name_size, "%s.%d", s->path, k);
	return s->rot_name;
}

/* Opens (creates) the sink's file and learns its size and day.  s->lock held or at open. */
int
sr_log__sink_open_file(sr_log_sink *s)
{
	int fd = open(s->path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC,
	    (mode_t)(s->cfg.file_mode != 0 ? s->cfg.file_mode : 0640));
	if (fd < 0)
		return errno;
	s->fd = fd;
	struct stat st;
	bool stat_ok = fstat(fd, &st) == 0;
	/* Only a regular file's ranges can be reserved (sr_log_sink_write.c). */
	s->reserves = stat_ok && S_ISREG(st.st_mode);
	if (stat_ok && st.st_size > 0) {
		s->file_bytes = (uint64_t)st.st_size;
		s->file_day = utc_day(st.st_mtime);
	} else {
		s->file_bytes = 0;
		s->file_day = today();
	}
	return 0;
}

/* Shifts the numbered files up, moves the file to .1 and starts a new one.  s->lock held. */
static void
rotate(sr_log_sink *s)
{
	char what[200];
	int keep = s->cfg.keep_files;
	bool moved = true;
	if (keep == 0) {
		if (unlink(s->path) != 0 && errno != ENOENT)
			moved = false;
	} else {
		if (unlink(numbered(s, keep)) != 0 && errno != ENOENT) {
			snprintf(what, sizeof what, "rotation: cannot delete %.120s: %s", s->rot_name, strerror(errno));
			sr_log__sink_report_once(s, what);
		}
		/* Renaming onto an existing name replaces it, so the order matters: oldest first. */
		char *from = s->rot_name + s->rot_name_size;  /* the second half of the scratch */
		for (int k = keep - 1; k >= 1; k--) {
			snprintf(from, s->rot_name_size, "%s.%d", s->path, k);
			if (rename(from, numbered(s, k + 1)) != 0 && errno != ENOENT) {
				snprintf(what, sizeof what, "rotation: cannot rename %.80s: %s", from, strerror(errno));
				sr_log__sink_report_once(s, what);
			}
		}
		if (rename(s->path, numbered(s, 1)) != 0)
			moved = false;
	}
	if (!moved) {
		/* Keep appending to the same file rather than lose or truncate anything. */
		snprintf(what, sizeof what, "rotation: cannot move %.120s aside: %s", s->path, strerror(errno));
		sr_log__sink_add(&s->errors, 1);
		sr_log__sink_report_once(s, what);
		s->file_bytes = 0;
		s->file_day = today();
		return;
	}
	close(s->fd);
	s->fd = -1;
	int e = sr_log__sink_open_file(s);
	if (e != 0) {
		snprintf(what, sizeof what, "rotation: cannot open a new %.120s: %s", s->path, strerror(e));
		sr_log__sink_add(&s->errors, 1);
		sr_log__sink_report_once(s, what);
		return;
	}
	sr_log__sink_add(&s->rotations, 1);
}

/*
 * Writes whole lines, rotating between two lines when the next would cross
 * max_file_bytes or the UTC date changed.  s->lock held.
 */
void
sr_log__sink_rotating_write_locked(sr_log_sink *s, const char *p, size_t n)
{
	uint64_t max = s->cfg.max_file_bytes;
	while (n > 0) {
		if (s->closed || s->broken) {
			sr_log__sink_plain_write_locked(s, p, n, &(size_t){ 0 });
			return;
		}
		if (s->fd < 0 && sr_log__sink_open_file(s) != 0) {
			sr_log__sink_add(&s->errors, 1);
			sr_log__sink_add(&s->lost_bytes, (int64_t)n);
			return;
		}
		if (s->cfg.rotate_daily && s->file_bytes > 0 && today() != s->file_day) {
			rotate(s);
			continue;
		}
		size_t chunk = n;
		if (max > 0 && s->file_bytes + n > max) {
			size_t room = s->file_bytes < max ? (size_t)(max - s->file_bytes) : 0;
			const char *nl = room > 0 ? memrchr(p, '\n', room < n ? room : n) : NULL;
			if (nl != NULL) {
				chunk = (size_t)(nl - p) + 1;
			} else if (s->file_bytes > 0) {
				/*
				 * After it, file_bytes is 0 (a new file, or the old one when
				 * the rename failed), so the next pass writes at least a line.
				 */
				rotate(s);
				continue;
			} else {
				/* An empty file and a first line longer than the limit: it gets the file alone. */
				nl = memchr(p, '\n', n);
				chunk = nl != NULL ? (size_t)(nl - p) + 1 : n;
			}
		}
		size_t written;
		bool ok = sr_log__sink_plain_write_locked(s, p, chunk, &written);
		s->file_bytes += written;
		if (!ok) {
			if (n > chunk)
				sr_log__sink_add(&s->lost_bytes, (int64_t)(n - chunk));
			return;
		}
		p += chunk;
		n -= chunk;
	}
}

void
sr_log__sink_write_locked(sr_log_sink *s, const char *p, size_t n)
{
	if (sr_log__sink_rotates(s))
		sr_log__sink_rotating_write_locked(s, p, n);
	else
		sr_log__sink_plain_write_locked(s, p, n, &(size_t){ 0 });
}
