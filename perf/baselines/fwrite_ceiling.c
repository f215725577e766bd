/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fwrite_ceiling.c: see fwrite_ceiling.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "fwrite_ceiling.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <seqring/sr_time.h>

bool
fwrite_ceiling_run(const char *path, int64_t lines, int64_t line_bytes, int64_t *elapsed_ns,
    char *err, size_t errlen)
{
	unlink(path);
	char *line = malloc((size_t)line_bytes);
	static char buffer[FWRITE_CEILING_BUFFER];
	if (line == NULL) {
		snprintf(err, errlen, "out of memory for a %" PRId64 "-byte line", line_bytes);
		return false;
	}
	for (int64_t i = 0; i < line_bytes - 1; i++)
		line[i] = (char)('a' + i % 26);
	line[line_bytes - 1] = '\n';
	bool ok = false;
	int64_t t0 = sr_monotonic_ns();
	FILE *f = fopen(path, "w");
	if (f == NULL) {
		snprintf(err, errlen, "ceiling: cannot create %s: %s", path, strerror(errno));
		goto out;
	}
	setvbuf(f, buffer, _IOFBF, sizeof buffer);
	for (int64_t i = 0; i < lines; i++)
		fwrite(line, 1, (size_t)line_bytes, f);
	bool write_failed = ferror(f) != 0;
	if (fclose(f) != 0 || write_failed) {
		snprintf(err, errlen, "ceiling: writing %s failed: %s", path, strerror(errno));
		goto out;
	}
	*elapsed_ns = sr_monotonic_ns() - t0;
	ok = true;
out:
	free(line);
	unlink(path);
	return ok;
}
