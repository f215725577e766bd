/* SPDX-License-Identifier: Apache-2.0 */
/*
 * log_files.c: temporary paths, counting a file's lines, and stderr captured
 * into a file while a test runs code that reports there.
 */
#include "test_log_support.h"

char *
tl_temp_path(char *buf, size_t size, const char *tag)
{
	snprintf(buf, size, "/tmp/seqring_%s_XXXXXX", tag);
	int fd = mkstemp(buf);
	cr_assert_geq(fd, 0);
	close(fd);
	unlink(buf);
	return buf;
}

size_t
tl_count_lines(const char *path, const char *needle)
{
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f, "%s", path);
	char line[4096];
	size_t n = 0;
	while (fgets(line, sizeof line, f) != NULL)
		if (needle == NULL || strstr(line, needle) != NULL)
			n++;
	fclose(f);
	return n;
}

void
tl_stderr_begin(tl_stderr *s)
{
	tl_temp_path(s->path, sizeof s->path, "stderr");
	s->file = fopen(s->path, "w+");
	cr_assert_not_null(s->file);
	fflush(stderr);
	s->saved = dup(2);
	dup2(fileno(s->file), 2);
}

char *
tl_stderr_end(tl_stderr *s)
{
	fflush(stderr);
	dup2(s->saved, 2);
	close(s->saved);
	fclose(s->file);
	char *text = tl_read_file(s->path, NULL);
	unlink(s->path);
	return text;
}

char *
tl_with_stderr(void (*fn)(void *), void *arg)
{
	tl_stderr s;
	tl_stderr_begin(&s);
	fn(arg);
	return tl_stderr_end(&s);
}
