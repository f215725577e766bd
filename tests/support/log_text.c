/* SPDX-License-Identifier: Apache-2.0 */
/*
 * log_text.c: reading what a logger wrote: whole files, lines of
 * sr_log_describe's text, a rotation's files, the stress programs' records
 * (and their threads' names), and the counters at the end of a run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log_support.h"

char *
tl_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (f == NULL)
		return NULL;
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	for (;;) {
		if (n + 4096 > cap) {
			cap *= 2;
			buf = realloc(buf, cap);
		}
		size_t r = fread(buf + n, 1, cap - n - 1, f);
		if (r == 0)
			break;
		n += r;
	}
	fclose(f);
	buf[n] = '\0';
	if (len != NULL)
		*len = n;
	return buf;
}

const char *
tl_line_with(const char *text, const char *needle, char *buf, size_t size)
{
	const char *hit = strstr(text, needle);
	if (hit == NULL)
		return NULL;
	const char *start = hit;
	while (start > text && start[-1] != '\n')
		start--;
	const char *end = strchr(hit, '\n');
	size_t n = end != NULL ? (size_t)(end - start) : strlen(start);
	if (n >= size)
		n = size - 1;
	memcpy(buf, start, n);
	buf[n] = '\0';
	return buf;
}

const char *
tl_row(const char *text, const char *key, char *buf, size_t size)
{
	size_t klen = strlen(key);
	for (const char *line = text; line != NULL && *line != '\0';) {
		const char *end = strchr(line, '\n');
		size_t n = end != NULL ? (size_t)(end - line) : strlen(line);
		if (n > klen + 2 && strncmp(line, "  ", 2) == 0 && strncmp(line + 2, key, klen) == 0 &&
		    line[2 + klen] == ' ') {
			if (n >= size)
				n = size - 1;
			memcpy(buf, line, n);
			buf[n] = '\0';
			return buf;
		}
		line = end != NULL ? end + 1 : NULL;
	}
	return NULL;
}

int
tl_stress_line(const char *line, size_t len, char *text, size_t size, const char *pattern,
    int modulus, int *t, int *i)
{
	if (len >= size)
		return -1;
	memcpy(text, line, len);
	text[len] = '\0';
	int n, consumed = 0;
	if (sscanf(text, "t=%d i=%d n=%d s=%n", t, i, &n, &consumed) != 3 || consumed == 0)
		return 0;
	const char *str = text + consumed;
	if (len < (size_t)consumed + 2)
		return -1;
	size_t slen = len - (size_t)consumed - 2; /* "|\n" */
	if (*i < 0 || n != (*i * 37) % modulus || slen != (size_t)n || memcmp(str, pattern, slen) != 0 ||
	    str[slen] != '|')
		return -1;
	return 1;
}

int
tl_stress_sink_write(void *sink, sr_log_level level, const char *line, size_t len)
{
	const tl_stress_sink *k = sink;
	(void)level;
	char text[TL_STRESS_MODULUS_MAX + 128];
	size_t size = k->modulus < TL_STRESS_MODULUS_MAX ? (size_t)k->modulus + 128 : sizeof text;
	int t = -1, i = -1;
	int r = tl_stress_line(line, len, text, size, k->pattern, k->modulus, &t, &i);
	k->on_line(k->ctx, r, t, i, text);
	return 0;
}

size_t
tl_count_of(const char *text, const char *needle)
{
	size_t n = 0;
	for (const char *p = text; (p = strstr(p, needle)) != NULL; p += strlen(needle))
		n++;
	return n;
}

char *
tl_rotated_path(char *buf, size_t size, const char *base, int k)
{
	if (k == 0)
		snprintf(buf, size, "%s", base);
	else
		snprintf(buf, size, "%s.%d", base, k);
	return buf;
}

void
tl_thread_name(const char *prefix, int id)
{
	char name[16];
	snprintf(name, sizeof name, "%s%d", prefix, id);
	sr_log_thread_name(name);
}

sr_log_counters
tl_flush_stats_close(sr_log **logp)
{
	sr_log_counters st;
	sr_log_flush(*logp);
	sr_log_stats(*logp, &st);
	sr_log_close(logp);
	return st;
}

int64_t
tl_text_line_time(const char *line)
{
	struct tm tm;
	memset(&tm, 0, sizeof tm);
	long usec = 0;
	if (sscanf(line, "%4d-%2d-%2dT%2d:%2d:%2d.%6ldZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
	    &tm.tm_sec, &usec) != 7)
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	return (int64_t)timegm(&tm) * 1000000000 + usec * 1000;
}
