/*
 * test_log_support.h: helpers shared by the logger's Criterion suites
 * (test_log_env.c, test_log_layout.c, test_log_clock.c, test_log_rotate.c,
 * test_log_crash.c, test_log_backtrace.c).  Header-only: each suite is its
 * own program.
 */
#ifndef TEST_LOG_SUPPORT_H
#define TEST_LOG_SUPPORT_H

#include <criterion/criterion.h>

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sr_log.h"

/*
 * Criterion's runner process (not a test worker) sometimes leaks 48 bytes of
 * its own bookkeeping when two workers run in parallel, which would fail the
 * asan preset.  Test bodies run in separate worker processes, so turning leak
 * tracking off for the runner's thread alone (PRE_ALL hooks run only in the
 * runner) keeps every leak of the logger visible.  (As in test_log.c.)
 */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
ReportHook(PRE_ALL)(struct criterion_test_set *tests)
{
	(void)tests;
	__lsan_disable();
}
#endif

/* Removes every SEQRING_LOG* variable, so a developer's shell cannot change a test. */
static inline void
tl_clear_env(void)
{
	for (;;) {
		char name[256] = "";
		for (char **e = environ; *e != NULL; e++) {
			if (strncmp(*e, "SEQRING_LOG", 11) == 0) {
				const char *eq = strchr(*e, '=');
				size_t n = eq != NULL ? (size_t)(eq - *e) : strlen(*e);
				if (n < sizeof name) {
					memcpy(name, *e, n);
					name[n] = '\0';
				}
				break;
			}
		}
		if (name[0] == '\0')
			return;
		unsetenv(name);
	}
}

/* A capturing callback sink: every line, without its newline. */
typedef struct tl_capture {
	pthread_mutex_t lock;
	char **lines;
	int *levels;
	size_t count, cap;
} tl_capture;

static inline void
tl_capture_init(tl_capture *c)
{
	memset(c, 0, sizeof *c);
	pthread_mutex_init(&c->lock, NULL);
}

static inline void
tl_capture_free(tl_capture *c)
{
	for (size_t i = 0; i < c->count; i++)
		free(c->lines[i]);
	free(c->lines);
	free(c->levels);
	pthread_mutex_destroy(&c->lock);
}

static inline int
tl_capture_write(void *ctx, sr_log_level level, const char *line, size_t len)
{
	tl_capture *c = ctx;
	pthread_mutex_lock(&c->lock);
	if (c->count == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 64;
		c->lines = realloc(c->lines, c->cap * sizeof *c->lines);
		c->levels = realloc(c->levels, c->cap * sizeof *c->levels);
	}
	c->lines[c->count] = strndup(line, len > 0 && line[len - 1] == '\n' ? len - 1 : len);
	c->levels[c->count] = level;
	c->count++;
	pthread_mutex_unlock(&c->lock);
	return 0;
}

static inline size_t
tl_capture_grep(tl_capture *c, const char *needle)
{
	size_t n = 0;
	pthread_mutex_lock(&c->lock);
	for (size_t i = 0; i < c->count; i++)
		if (strstr(c->lines[i], needle) != NULL)
			n++;
	pthread_mutex_unlock(&c->lock);
	return n;
}

/* A config for tests: the environment ignored, one capture sink, small ring. */
static inline void
tl_config(sr_log_config *c, sr_sink_config *sink, tl_capture *cap)
{
	sr_log_config_default(c);
	c->ring_slots = 1024;
	c->ignore_environment = true;
	c->wait_strategy = "timeout:timeout=5ms";
	*sink = sr_sink_callback(tl_capture_write, cap);
	c->sinks = sink;
	c->sink_count = 1;
}

/* A fresh path in /tmp (the file does not exist). */
static inline char *
tl_temp_path(char *buf, size_t size, const char *tag)
{
	snprintf(buf, size, "/tmp/seqring_%s_XXXXXX", tag);
	int fd = mkstemp(buf);
	cr_assert_geq(fd, 0);
	close(fd);
	unlink(buf);
	return buf;
}

/* The whole file (NUL-terminated, malloc'd), or NULL when it does not exist. */
static inline char *
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

/* Runs fn with stderr redirected to a file; returns what it printed there (malloc'd). */
static inline char *
tl_with_stderr(void (*fn)(void *), void *arg)
{
	char path[64];
	tl_temp_path(path, sizeof path, "stderr");
	FILE *f = fopen(path, "w+");
	cr_assert_not_null(f);
	fflush(stderr);
	int saved = dup(2);
	dup2(fileno(f), 2);
	fn(arg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	fclose(f);
	char *text = tl_read_file(path, NULL);
	unlink(path);
	return text;
}

/* sr_log_describe's output (malloc'd). */
static inline char *
tl_describe(sr_log *log)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	cr_assert_not_null(f);
	cr_assert_eq(sr_log_describe(log, f), SR_OK);
	fclose(f);
	return text;
}

/* The line of text that contains needle (copied into buf), or NULL. */
static inline const char *
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

/* The line of text that starts with "  key " (a row of sr_log_describe), copied into buf. */
static inline const char *
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

static inline void
tl_sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };
	nanosleep(&ts, NULL);
}

#endif /* TEST_LOG_SUPPORT_H */
