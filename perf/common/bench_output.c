/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_output.c: see bench_output.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "bench_output.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>

bool bench_quiet = false;

bool
bench_make_parent_dirs(const char *path)
{
	char buf[4096];
	size_t len = strlen(path);
	if (len >= sizeof buf)
		return false;
	memcpy(buf, path, len + 1);
	char *slash = strrchr(buf, '/');
	if (slash == NULL || slash == buf)
		return true;
	*slash = '\0';
	for (char *p = buf + 1; *p != '\0'; p++) {
		if (*p == '/') {
			*p = '\0';
			if (mkdir(buf, 0777) != 0 && errno != EEXIST)
				return false;
			*p = '/';
		}
	}
	if (mkdir(buf, 0777) != 0 && errno != EEXIST)
		return false;
	return true;
}

FILE *
bench_open_output(const char *path)
{
	if (!bench_make_parent_dirs(path)) {
		fprintf(stderr, "cannot create the directory of %s: %s\n", path, strerror(errno));
		return NULL;
	}
	FILE *f = fopen(path, "w");
	if (f == NULL)
		fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
	return f;
}

FILE *
bench_open_csv(const char *path, bool truncate, const char *header, char *err, size_t errsize)
{
	if (!bench_make_parent_dirs(path)) {
		snprintf(err, errsize, "--out '%s': cannot create its directory: %s", path, strerror(errno));
		return NULL;
	}
	FILE *f = fopen(path, truncate ? "w" : "a");
	if (f == NULL) {
		snprintf(err, errsize, "--out '%s': cannot write: %s", path, strerror(errno));
		return NULL;
	}
	fseek(f, 0, SEEK_END);
	if (ftell(f) == 0)
		fputs(header, f);
	return f;
}

int64_t
bench_file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? (int64_t)st.st_size : -1;
}

const char *
bench_fmt_rate(double v, char *buf, size_t size)
{
	if (v >= 1e9)
		snprintf(buf, size, "%.2f G", v / 1e9);
	else if (v >= 1e6)
		snprintf(buf, size, "%.1f M", v / 1e6);
	else if (v >= 1e3)
		snprintf(buf, size, "%.1f k", v / 1e3);
	else
		snprintf(buf, size, "%.0f", v);
	return buf;
}

void
bench_progress(const char *fmt, ...)
{
	if (bench_quiet)
		return;
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
}
