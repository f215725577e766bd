#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "bench_util.h"

#include "sr_wait.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

bool bench_quiet = false;

int64_t
bench_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double
bench_median(double *v, int n)
{
	if (n <= 0)
		return 0.0;
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

double
bench_min(const double *v, int n)
{
	double m = n > 0 ? v[0] : 0.0;
	for (int i = 1; i < n; i++)
		if (v[i] < m)
			m = v[i];
	return m;
}

double
bench_max(const double *v, int n)
{
	double m = n > 0 ? v[0] : 0.0;
	for (int i = 1; i < n; i++)
		if (v[i] > m)
			m = v[i];
	return m;
}

static int
cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

void
bench_sort_i64(int64_t *v, size_t n)
{
	qsort(v, n, sizeof *v, cmp_i64);
}

int64_t
bench_percentile(const int64_t *sorted, size_t n, double p)
{
	if (n == 0)
		return 0;
	/* nearest rank: the smallest value with at least p% of samples at or below it */
	double rank = p / 100.0 * (double)n;
	size_t idx = (size_t)rank;
	if ((double)idx < rank)
		idx++;
	if (idx == 0)
		idx = 1;
	if (idx > n)
		idx = n;
	return sorted[idx - 1];
}

bool
bench_parse_count(const char *text, int64_t *out)
{
	if (text == NULL || *text == '\0')
		return false;
	char *end;
	errno = 0;
	double v = strtod(text, &end);
	if (errno != 0 || end == text)
		return false;
	double scale = 1;
	if (*end == 'k' || *end == 'K')
		scale = 1e3, end++;
	else if (*end == 'm' || *end == 'M')
		scale = 1e6, end++;
	else if (*end == 'g' || *end == 'G')
		scale = 1e9, end++;
	if (*end != '\0')
		return false;
	v *= scale;
	if (!(v >= 1) || v > 4e18)
		return false;
	*out = (int64_t)v;
	return true;
}

bool
bench_parse_seconds(const char *text, double *out)
{
	if (text == NULL || *text == '\0')
		return false;
	char *end;
	errno = 0;
	double v = strtod(text, &end);
	if (errno != 0 || end == text || *end != '\0' || !(v > 0) || v > 3600)
		return false;
	*out = v;
	return true;
}

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

bool
bench_parse_name_set(const char *flag, const char *noun, const char *list,
    const char *const *names, int count, bool *want, char *err, size_t errsize)
{
	bool all = strcmp(list, "all") == 0;
	for (int k = 0; k < count; k++)
		want[k] = all;
	if (all)
		return true;
	for (const char *p = list;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		int k = 0;
		while (k < count && !(strlen(names[k]) == len && strncmp(p, names[k], len) == 0))
			k++;
		if (k == count) {
			char expected[256] = "";
			for (int i = 0; i < count; i++) {
				size_t used = strlen(expected);
				snprintf(expected + used, sizeof expected - used, "%s%s", i ? ", " : "", names[i]);
			}
			snprintf(err, errsize, "%s '%.64s': '%.*s' is not a %s: expected %s or all", flag, list,
			    (int)(len > 32 ? 32 : len), p, noun, expected);
			return false;
		}
		want[k] = true;
		if (comma == NULL)
			return true;
		p = comma + 1;
	}
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

/* Adds one wait spec (validated) with a label for the CSV's wait column. */
static bool
add_wait(bench_wait_list *o, const char *token, const char *default_spec, char *err, size_t errsize)
{
	if (o->nwaits == BENCH_MAX_WAITS) {
		snprintf(err, errsize, "--wait: more than %d strategies", BENCH_MAX_WAITS);
		return false;
	}
	bool is_default = strcmp(token, "default") == 0 && default_spec != NULL;
	const char *spec = is_default ? default_spec : token;
	sr_wait_config wc;
	sr_error e;
	if (sr_wait_config_parse(spec, &wc, &e) != SR_OK) {
		snprintf(err, errsize, "--wait '%.200s' is invalid: %s", token, e.message);
		return false;
	}
	bench_wait *v = &o->waits[o->nwaits];
	memset(v, 0, sizeof *v);
	if (strlen(spec) >= sizeof v->spec) {
		snprintf(err, errsize, "--wait '%.64s...' is too long: at most %zu characters", token,
		    sizeof v->spec - 1);
		return false;
	}
	strcpy(v->spec, spec);
	/*
	 * The logger's default and bare names are labelled by their kind
	 * ("phased"); a spec with parameters keeps them, with ';' for ',' so
	 * that the CSV column stays one field.
	 */
	if (is_default || strchr(token, ':') == NULL) {
		snprintf(v->label, sizeof v->label, "%s", sr_wait_kind_name(wc.kind));
	} else {
		snprintf(v->label, sizeof v->label, "%.60s", token);
		for (char *c = v->label; *c != '\0'; c++)
			if (*c == ',')
				*c = ';';
	}
	/* Two strategies with one label (default and "phased", say) would be confused in the CSV. */
	for (int i = 0; i < o->nwaits; i++) {
		if (strcmp(o->waits[i].label, v->label) == 0) {
			size_t used = strlen(v->label);
			snprintf(v->label + used, sizeof v->label - used, "#%d", o->nwaits + 1);
			break;
		}
	}
	o->nwaits++;
	return true;
}

/*
 * Splits a --wait list at commas, except that a piece with '=' and no ':'
 * continues the previous spec: "default,phased:spin=5us,yield=50us" is two
 * strategies.
 */
bool
bench_parse_wait_list(const char *list, const char *default_spec, bench_wait_list *o, char *err,
    size_t errsize)
{
	o->nwaits = 0;
	if (strcmp(list, "all") == 0) {
		for (int k = 0; k < SR_WAIT_KIND_COUNT; k++)
			if (!add_wait(o, sr_wait_kind_name((enum sr_wait_kind)k), default_spec, err, errsize))
				return false;
		return true;
	}
	char spec[256] = "";
	const char *p = list;
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		bool continues = spec[0] != '\0' && memchr(p, '=', len) != NULL && memchr(p, ':', len) == NULL;
		if (!continues && spec[0] != '\0') {
			if (!add_wait(o, spec, default_spec, err, errsize))
				return false;
			spec[0] = '\0';
		}
		size_t used = strlen(spec);
		if (len == 0 || used + len + 2 > sizeof spec) {
			snprintf(err, errsize, "--wait '%.64s' is invalid: %s", list,
			    len == 0 ? "an empty strategy" : "a strategy longer than 254 characters");
			return false;
		}
		if (continues)
			spec[used++] = ',';
		memcpy(spec + used, p, len);
		spec[used + len] = '\0';
		if (comma == NULL)
			break;
		p = comma + 1;
	}
	return add_wait(o, spec, default_spec, err, errsize);
}
