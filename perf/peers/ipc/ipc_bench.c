/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ipc_bench.c: the driver every program of the `ipc` phase shares (ipc_bench.h says what a pair
 * does; README.md beside this file how it is run). The launcher, the two roles, the checks.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "ipc_bench.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <dirent.h>

#include "bench_args.h"
#include "bench_output.h"
#include "bench_stats.h"

typedef struct ipc_opts {
	const char *bytes_text;
	int64_t bytes[8];
	int nbytes;
	int64_t events;            /* measured events per run (0: sized by the warm-up) */
	int64_t warmup;            /* warm-up events, at most */
	double warmup_seconds;     /* and at most this long */
	double seconds;            /* the measured run's length, from the warm-up's rate */
	int64_t max_events;        /* at most this many measured events */
	int64_t pings;             /* recorded round trips, at most */
	int64_t warmup_pings;
	double ping_seconds;       /* and at most this long */
	double timeout;            /* a pair's whole life */
	const char *pin_text;
	int pin[2];
	const char *out;
	bool quick, events_given, warmup_given, pings_given, warmup_pings_given;
	/* internal: a role's process */
	const char *role_text;
	int64_t size;
	const char *dir;
	const char *name;
	const char *fds_text;
	int64_t result_fd, release_fd;
} ipc_opts;

static const char *prog = "ipc";
static const ipc_transport *T;

int
ipc_err(char *err, size_t errsize, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errsize, fmt, ap);
	va_end(ap);
	return -1;
}

bool
ipc_sink_fail(ipc_sink *k, uint64_t seq, const char *what)
{
	k->failed = true;
	if (seq == IPC_STOP)
		snprintf(k->msg, sizeof k->msg, "event %" PRId64 ": a stop event where sequence %" PRIu64
		    " was expected", k->count, k->next);
	else
		snprintf(k->msg, sizeof k->msg, "event %" PRId64 ": expected sequence %" PRIu64 ", got %" PRIu64
		    "%s (an event lost, duplicated, reordered or torn)", k->count, k->next, seq,
		    strcmp(what, "sequence") == 0 ? "" : " with a wrong last byte");
	return false;
}

/* --- byte streams (pipe, unix stream socket) ------------------------------------------------ */

int
ipc_stream_send(int fd, const void *event, size_t bytes, char *err, size_t errsize)
{
	const unsigned char *p = event;
	while (bytes > 0) {
		ssize_t w = write(fd, p, bytes);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return ipc_err(err, errsize, "write: %s", strerror(errno));
		}
		p += w;
		bytes -= (size_t)w;
	}
	return 0;
}

int64_t
ipc_stream_recv(ipc_stream *s, ipc_sink *k, int64_t max, char *err, size_t errsize)
{
	size_t b = k->bytes;
	while (s->have - s->off < b) {
		/* keep the part of an event that was read, read behind it */
		if (s->off > 0) {
			memmove(s->buf, s->buf + s->off, s->have - s->off);
			s->have -= s->off;
			s->off = 0;
		}
		ssize_t r = read(s->fd, s->buf + s->have, sizeof s->buf - s->have);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return ipc_err(err, errsize, "read: %s", strerror(errno));
		}
		if (r == 0)
			return ipc_err(err, errsize, "the peer closed its end after %" PRId64 " events", k->count);
		s->have += (size_t)r;
	}
	int64_t n = 0;
	while (n < max && s->have - s->off >= b) {
		const unsigned char *ev = s->buf + s->off;
		s->off += b;
		n++;
		if (!ipc_sink_take(k, ev))
			return k->failed ? -1 : n;
	}
	return n;
}

/* --- one role's process ------------------------------------------------------------------- */

/* What a role reports when the launcher stops it: where it was. Read by the signal handler. */
static ipc_sink *volatile g_sink;
static const char *volatile g_phase = "starting";
static const char *volatile g_role = "launcher";

static void
put_u64(char *buf, size_t *len, uint64_t v)
{
	char tmp[24];
	int n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v > 0);
	while (n > 0)
		buf[(*len)++] = tmp[--n];
}

static void
put_str(char *buf, size_t *len, const char *s)
{
	while (*s != '\0' && *len < 400)
		buf[(*len)++] = *s++;
}

static void
on_stop_signal(int sig)
{
	(void)sig;
	char buf[512];
	size_t len = 0;
	put_str(buf, &len, prog);
	put_str(buf, &len, " ");
	put_str(buf, &len, g_role);
	put_str(buf, &len, ": stopped by the launcher during ");
	put_str(buf, &len, g_phase);
	ipc_sink *k = g_sink;
	if (k != NULL) {
		put_str(buf, &len, " after ");
		put_u64(buf, &len, (uint64_t)k->count);
		put_str(buf, &len, " events (next expected sequence ");
		put_u64(buf, &len, k->next);
		put_str(buf, &len, ")");
	}
	put_str(buf, &len, "\n");
	ssize_t ignored = write(2, buf, len);
	(void)ignored;
	_exit(3);
}

static int
pin_self(int cpu, bool thread)
{
	if (cpu < 0)
		return 0;
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	int rc = thread ? pthread_setaffinity_np(pthread_self(), sizeof set, &set)
	    : (sched_setaffinity(0, sizeof set, &set) == 0 ? 0 : errno);
	if (rc != 0) {
		fprintf(stderr, "%s %s: cannot pin to CPU %d: %s\n", prog, g_role, cpu, strerror(rc));
		return -1;
	}
	return 0;
}

/* Receives until the sink has taken `until` events (or stopped); 0, or -1 with err. */
static int
recv_until(void *ep, ipc_sink *k, int64_t until, char *err, size_t errsize)
{
	while (k->count < until && !k->stopped) {
		if (T->recv(ep, k, until - k->count, err, errsize) < 0 || k->failed) {
			if (k->failed)
				snprintf(err, errsize, "%s", k->msg);
			return -1;
		}
	}
	return 0;
}

typedef struct role_result {
	double rate;               /* measured events per second (0: none) */
	int64_t events;            /* in the measured run */
	double warmup_rate;
	int64_t samples;           /* recorded round trips */
	int64_t p50, p99, p999;    /* one-way, ns */
	int64_t pings_done;
	char err[256];
} role_result;

static int
produce(void *ep, const ipc_opts *o, size_t bytes, role_result *res)
{
	unsigned char ev[IPC_MAX_BYTES];
	memset(ev, 0xab, sizeof ev);
	char *err = res->err;
	size_t es = sizeof res->err;
	uint64_t seq = 0;
	if (!T->latency_only) {
		g_phase = "warm-up (sending)";
		const int64_t warm_end = ipc_now_ns() + (int64_t)(o->warmup_seconds * 1e9);
		for (; seq < (uint64_t)o->warmup; seq++) {
			if ((seq & 1023) == 1023 && ipc_now_ns() >= warm_end)
				break;
			ipc_event_fill(ev, bytes, seq);
			if (T->send(ep, ev, err, es) != 0)
				return -1;
		}
		/* the end of the warm-up: a stop event */
		ipc_event_fill(ev, bytes, IPC_STOP);
		if (T->send(ep, ev, err, es) != 0)
			return -1;
		g_phase = "waiting for the run length";
		static ipc_sink ctl;   /* static: the signal handler may read it (g_sink) */
		ctl = (ipc_sink){ .bytes = bytes, .accept_any = true };
		g_sink = &ctl;
		if (recv_until(ep, &ctl, 1, err, es) != 0)
			return -1;
		uint64_t n = ctl.got;
		if (n < 2 || n > (uint64_t)INT64_MAX / 2)
			return ipc_err(err, es, "the consumer sent a run length of %" PRIu64, n);
		g_phase = "throughput (sending)";
		g_sink = NULL;
		for (uint64_t end = seq + n; seq < end; seq++) {
			ipc_event_fill(ev, bytes, seq);
			if (T->send(ep, ev, err, es) != 0)
				return -1;
		}
	}
	/* ping-pong */
	int64_t *rtt = malloc((size_t)o->pings * sizeof *rtt);
	if (rtt == NULL)
		return ipc_err(err, es, "out of memory for %" PRId64 " samples", o->pings);
	static ipc_sink k;
	k = (ipc_sink){ .bytes = bytes };
	g_sink = &k;
	g_phase = "ping-pong (pinging)";
	int64_t n = 0, start = ipc_now_ns(), recorded_from = 0;
	const int64_t warm_cap = (int64_t)(o->ping_seconds * 0.5e9), cap = (int64_t)(o->ping_seconds * 1e9);
	uint64_t p;
	for (p = 0;; p++) {
		ipc_event_fill(ev, bytes, p);
		int64_t t0 = ipc_now_ns();
		if (T->send(ep, ev, err, es) != 0 || recv_until(ep, &k, (int64_t)p + 1, err, es) != 0) {
			free(rtt);
			return -1;
		}
		int64_t t1 = ipc_now_ns();
		if (recorded_from == 0) {
			/* warm-up: --warmup-pings, or until half of --ping-seconds has gone */
			if (p + 1 >= (uint64_t)o->warmup_pings || t1 - start >= warm_cap)
				recorded_from = t1;
			continue;
		}
		rtt[n++] = t1 - t0;
		if (n == o->pings || t1 - recorded_from >= cap)
			break;
	}
	ipc_event_fill(ev, bytes, IPC_STOP);
	if (T->send(ep, ev, err, es) != 0) {
		free(rtt);
		return -1;
	}
	bench_sort_i64(rtt, (size_t)n);
	res->samples = n;
	res->pings_done = (int64_t)p + 1;
	res->p50 = (bench_percentile(rtt, (size_t)n, 50) + 1) / 2;
	res->p99 = (bench_percentile(rtt, (size_t)n, 99) + 1) / 2;
	res->p999 = (bench_percentile(rtt, (size_t)n, 99.9) + 1) / 2;
	free(rtt);
	g_phase = "the end";
	return 0;
}

static int
consume(void *ep, const ipc_opts *o, size_t bytes, role_result *res)
{
	unsigned char ev[IPC_MAX_BYTES];
	memset(ev, 0xab, sizeof ev);
	char *err = res->err;
	size_t es = sizeof res->err;
	if (!T->latency_only) {
		static ipc_sink k;
		k = (ipc_sink){ .bytes = bytes, .accept_stop = true };
		g_sink = &k;
		g_phase = "warm-up (receiving)";
		int64_t t0 = 0;
		if (recv_until(ep, &k, 1, err, es) != 0)
			return -1;
		t0 = ipc_now_ns();
		/* until the producer's stop event: --warmup events or fewer (--warmup-seconds) */
		if (recv_until(ep, &k, INT64_MAX / 2, err, es) != 0)
			return -1;
		int64_t t1 = ipc_now_ns();
		if (k.count < 2)
			return ipc_err(err, es, "the warm-up ended after %" PRId64 " events", k.count);
		res->warmup_rate = t1 > t0 ? (double)(k.count - 1) * 1e9 / (double)(t1 - t0) : 0;
		k.stopped = false;
		k.accept_stop = false;
		int64_t n = o->events;
		if (!o->events_given) {
			double want = res->warmup_rate * o->seconds;
			n = want > (double)o->max_events ? o->max_events : want < 1000 ? 1000 : (int64_t)want;
		}
		g_phase = "sending the run length";
		ipc_event_fill(ev, bytes, (uint64_t)n);
		if (T->send(ep, ev, err, es) != 0)
			return -1;
		g_phase = "throughput (receiving)";
		int64_t end = k.count + n;
		if (recv_until(ep, &k, k.count + 1, err, es) != 0)
			return -1;
		int64_t first = ipc_now_ns();
		if (recv_until(ep, &k, end, err, es) != 0)
			return -1;
		int64_t last = ipc_now_ns();
		res->events = n;
		res->rate = last > first ? (double)(n - 1) * 1e9 / (double)(last - first) : 0;
	}
	/* ping-pong: echo each ping until the stop event */
	static ipc_sink pk;
	pk = (ipc_sink){ .bytes = bytes, .accept_stop = true };
	ipc_sink *const pkp = &pk;
	g_sink = pkp;
	g_phase = "ping-pong (echoing)";
	for (;;) {
		if (recv_until(ep, pkp, pk.count + 1, err, es) != 0)
			return -1;
		if (pk.stopped)
			break;
		ipc_event_fill(ev, bytes, pk.next - 1);
		if (T->send(ep, ev, err, es) != 0)
			return -1;
	}
	g_phase = "the end";
	return 0;
}

static int
write_all(int fd, const char *s)
{
	size_t len = strlen(s);
	while (len > 0) {
		ssize_t w = write(fd, s, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		s += w;
		len -= (size_t)w;
	}
	return 0;
}

static void
report(int fd, const char *role, const role_result *r)
{
	char line[256];
	if (strcmp(role, "consumer") == 0)
		snprintf(line, sizeof line, "consumer %.1f %" PRId64 " %.1f\n", r->rate, r->events, r->warmup_rate);
	else
		snprintf(line, sizeof line, "producer %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 "\n",
		    r->samples, r->pings_done, r->p50, r->p99, r->p999);
	if (write_all(fd, line) != 0)
		fprintf(stderr, "%s %s: cannot write the result to the launcher: %s\n", prog, role, strerror(errno));
}

/* After reporting, keep every end open until the launcher has both results: closing one could drop
 * the last event still in flight (nng and ZeroMQ discard what they have not sent at close). */
static void
await_release(int fd)
{
	char c;
	while (read(fd, &c, 1) < 0 && errno == EINTR)
		;
}

typedef struct thread_arg {
	void *ep;
	const ipc_opts *o;
	size_t bytes;
	role_result res;
	int rc;
} thread_arg;

static void *
producer_thread(void *p)
{
	thread_arg *a = p;
	a->rc = pin_self(a->o->pin[0], true) != 0 ? -1 : produce(a->ep, a->o, a->bytes, &a->res);
	return NULL;
}

static int
run_role(const ipc_opts *o, enum ipc_role role)
{
	ipc_setup s = { .bytes = (size_t)o->size };
	snprintf(s.dir, sizeof s.dir, "%s", o->dir ? o->dir : "");
	snprintf(s.name, sizeof s.name, "%s", o->name ? o->name : "");
	if (o->fds_text != NULL && *o->fds_text != '\0') {
		const char *p = o->fds_text;
		while (*p != '\0' && s.nfds < IPC_MAX_FDS) {
			char *end;
			long v = strtol(p, &end, 10);
			if (end == p || v < 0 || v > INT_MAX) {
				fprintf(stderr, "%s: --fds '%s' is invalid: expected descriptor numbers\n", prog, o->fds_text);
				return 2;
			}
			s.fds[s.nfds++] = (int)v;
			p = *end == ',' ? end + 1 : end;
		}
	}
	const int rfd = (int)o->result_fd, relfd = (int)o->release_fd;
	struct sigaction sa = { .sa_handler = on_stop_signal };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	char err[256] = "";
	if (role == IPC_BOTH) {
		g_role = "producer+consumer";
		thread_arg a = { .o = o, .bytes = s.bytes };
		g_phase = "opening";
		a.ep = T->open(&s, IPC_PRODUCER, err, sizeof err);
		void *cep = a.ep ? T->open(&s, IPC_CONSUMER, err, sizeof err) : NULL;
		if (cep == NULL) {
			fprintf(stderr, "%s: cannot open the transport: %s\n", prog, err);
			return 1;
		}
		if (pin_self(o->pin[1], true) != 0)
			return 1;
		pthread_t th;
		if (pthread_create(&th, NULL, producer_thread, &a) != 0) {
			fprintf(stderr, "%s: cannot start the producer thread\n", prog);
			return 1;
		}
		role_result cr = { .rate = 0 };
		int crc = consume(cep, o, s.bytes, &cr);
		if (crc != 0) {
			fprintf(stderr, "%s consumer: %s\n", prog, cr.err);
			return 1;   /* the producer may wait for ever: exit kills it */
		}
		pthread_join(th, NULL);
		if (a.rc != 0) {
			fprintf(stderr, "%s producer: %s\n", prog, a.res.err);
			return 1;
		}
		report(rfd, "consumer", &cr);
		report(rfd, "producer", &a.res);
		await_release(relfd);
		T->close(cep);
		T->close(a.ep);
		return 0;
	}
	g_role = role == IPC_PRODUCER ? "producer" : "consumer";
	if (pin_self(o->pin[role == IPC_PRODUCER ? 0 : 1], false) != 0)
		return 1;
	g_phase = "opening";
	void *ep = T->open(&s, role, err, sizeof err);
	if (ep == NULL) {
		fprintf(stderr, "%s %s: cannot open the transport: %s\n", prog, g_role, err);
		return 1;
	}
	role_result r = { .rate = 0 };
	int rc = role == IPC_PRODUCER ? produce(ep, o, s.bytes, &r) : consume(ep, o, s.bytes, &r);
	if (rc != 0) {
		fprintf(stderr, "%s %s: %s\n", prog, g_role, r.err);
		return 1;
	}
	report(rfd, g_role, &r);
	await_release(relfd);
	T->close(ep);
	return 0;
}

/* --- the launcher ----------------------------------------------------------------------- */

typedef struct child {
	pid_t pid;
	const char *role;
	bool done;
	int status;
} child;

static char self_exe[PATH_MAX];

static pid_t
spawn(int argc, char **argv, const char *role, const ipc_setup *s, int rfd, int relfd, const int *close_fds,
    int nclose)
{
	char size[32], fds[128] = "", rf[16], rel[16];
	snprintf(size, sizeof size, "%zu", s->bytes);
	snprintf(rf, sizeof rf, "%d", rfd);
	snprintf(rel, sizeof rel, "%d", relfd);
	for (int i = 0; i < s->nfds; i++)
		snprintf(fds + strlen(fds), sizeof fds - strlen(fds), "%s%d", i ? "," : "", s->fds[i]);
	char **av = calloc((size_t)argc + 20, sizeof *av);
	if (av == NULL)
		return -1;
	int n = 0;
	av[n++] = argv[0];
	for (int i = 1; i < argc; i++)
		av[n++] = argv[i];
	const char *extra[] = { "--role", role, "--size", size, "--dir", s->dir, "--name", s->name,
	    "--fds", fds, "--result-fd", rf, "--release-fd", rel };
	for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++)
		av[n++] = (char *)extra[i];
	av[n] = NULL;
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		for (int i = 0; i < nclose; i++)
			close(close_fds[i]);
		execv(self_exe, av);
		fprintf(stderr, "%s: cannot run %s: %s\n", prog, self_exe, strerror(errno));
		_exit(127);
	}
	free(av);
	return pid;
}

static void
remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	if (d == NULL)
		return;
	struct dirent *e;
	char path[512];
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		unlink(path);
	}
	closedir(d);
	rmdir(dir);
}

static void
signal_all(child *c, int n, int sig)
{
	for (int i = 0; i < n; i++)
		if (!c[i].done && c[i].pid > 0)
			kill(c[i].pid, sig);
}

static bool
reap(child *c, int n, int64_t deadline)
{
	for (;;) {
		bool all = true;
		for (int i = 0; i < n; i++) {
			if (c[i].done)
				continue;
			int st;
			pid_t r = waitpid(c[i].pid, &st, WNOHANG);
			if (r == c[i].pid) {
				c[i].done = true;
				c[i].status = st;
			} else {
				all = false;
			}
		}
		if (all)
			return true;
		if (ipc_now_ns() >= deadline)
			return false;
		usleep(2000);
	}
}

static void
describe_status(const child *c, char *buf, size_t size)
{
	if (!c->done)
		snprintf(buf, size, "%s: still running", c->role);
	else if (WIFEXITED(c->status))
		snprintf(buf, size, "%s exited with status %d", c->role, WEXITSTATUS(c->status));
	else if (WIFSIGNALED(c->status))
		snprintf(buf, size, "%s was killed by signal %d (%s)", c->role, WTERMSIG(c->status),
		    strsignal(WTERMSIG(c->status)));
	else
		snprintf(buf, size, "%s: status %d", c->role, c->status);
}

static bool
child_failed(const child *c)
{
	return c->done && !(WIFEXITED(c->status) && WEXITSTATUS(c->status) == 0);
}

typedef struct pair_result {
	bool have_rate, have_lat;
	double rate, warmup_rate;
	int64_t events, samples, pings_done, p50, p99, p999;
} pair_result;

static void
parse_results(const char *buf, pair_result *pr)
{
	const char *line = buf;
	while (line != NULL && *line != '\0') {
		if (strncmp(line, "consumer ", 9) == 0 && !T->latency_only) {
			if (sscanf(line + 9, "%lf %" SCNd64 " %lf", &pr->rate, &pr->events, &pr->warmup_rate) == 3)
				pr->have_rate = true;
		} else if (strncmp(line, "producer ", 9) == 0) {
			if (sscanf(line + 9, "%" SCNd64 " %" SCNd64 " %" SCNd64 " %" SCNd64 " %" SCNd64, &pr->samples,
			    &pr->pings_done, &pr->p50, &pr->p99, &pr->p999) == 5)
				pr->have_lat = true;
		}
		line = strchr(line, '\n');
		if (line != NULL)
			line++;
	}
}

/* One pair for one event size: 0 with pr filled, or 1 with a message on stderr. */
static int
run_pair(int argc, char **argv, const ipc_opts *o, size_t bytes, pair_result *pr)
{
	ipc_setup s = { .bytes = bytes };
	const char *tmp = getenv("TMPDIR");
	snprintf(s.dir, sizeof s.dir, "%s/seqring-ipc.XXXXXX", tmp != NULL && *tmp != '\0' ? tmp : "/tmp");
	if (mkdtemp(s.dir) == NULL) {
		fprintf(stderr, "%s: cannot create a directory %s: %s\n", prog, s.dir, strerror(errno));
		return 1;
	}
	const char *base = strrchr(s.dir, '/');
	snprintf(s.name, sizeof s.name, "sr-ipc-%.40s-%zu", base != NULL ? base + 1 : s.dir, bytes);
	char err[256] = "";
	if (T->prepare != NULL && T->prepare(&s, err, sizeof err) != 0) {
		fprintf(stderr, "%s: cannot prepare the pair: %s\n", prog, err);
		remove_dir(s.dir);
		return 1;
	}
	int res_pipe[2], rel_pipe[2];
	if (pipe(res_pipe) != 0 || pipe(rel_pipe) != 0) {
		fprintf(stderr, "%s: pipe: %s\n", prog, strerror(errno));
		return 1;
	}
	/* the children close the launcher's ends; the launcher closes theirs */
	const int child_close[] = { res_pipe[0], rel_pipe[1] };
	child c[2] = { { 0 } };
	int n = 0;
	if (T->one_process) {
		c[n].role = "producer+consumer";
		c[n].pid = spawn(argc, argv, "both", &s, res_pipe[1], rel_pipe[0], child_close, 2);
		n++;
	} else {
		c[n].role = "consumer";
		c[n].pid = spawn(argc, argv, "consumer", &s, res_pipe[1], rel_pipe[0], child_close, 2);
		n++;
		c[n].role = "producer";
		c[n].pid = c[0].pid > 0 ? spawn(argc, argv, "producer", &s, res_pipe[1], rel_pipe[0], child_close, 2) : -1;
		n++;
	}
	close(res_pipe[1]);
	close(rel_pipe[0]);
	for (int i = 0; i < s.nfds; i++)
		close(s.fds[i]);
	int failed = 0;
	for (int i = 0; i < n; i++)
		if (c[i].pid <= 0) {
			fprintf(stderr, "%s: cannot start the %s: %s\n", prog, c[i].role, strerror(errno));
			failed = 1;
		}
	/* results: one line per role, until the deadline or a child's failure */
	char buf[1024] = "";
	size_t have = 0;
	int lines = 0;
	const int want_lines = 2;
	const int64_t deadline = ipc_now_ns() + (int64_t)(o->timeout * 1e9);
	bool timed_out = false, eof = false;
	while (!failed && lines < want_lines) {
		struct pollfd pfd = { .fd = res_pipe[0], .events = POLLIN };
		int pr_ = poll(&pfd, 1, 5);
		if (pr_ > 0) {
			ssize_t r = read(res_pipe[0], buf + have, sizeof buf - 1 - have);
			if (r > 0) {
				have += (size_t)r;
				buf[have] = '\0';
				lines = 0;
				for (const char *p = buf; (p = strchr(p, '\n')) != NULL; p++)
					lines++;
				continue;
			}
			if (r == 0)
				eof = true;
		}
		for (int i = 0; i < n; i++) {
			if (c[i].done)
				continue;
			int st;
			if (waitpid(c[i].pid, &st, WNOHANG) == c[i].pid) {
				c[i].done = true;
				c[i].status = st;
				if (child_failed(&c[i]))
					failed = 1;
			}
		}
		bool all_done = true;
		for (int i = 0; i < n; i++)
			all_done = all_done && c[i].done;
		if (!failed && eof && all_done) {
			fprintf(stderr, "%s: %zu-byte pair: the processes exited without their results\n", prog, bytes);
			failed = 1;
		}
		if (!failed && ipc_now_ns() >= deadline) {
			timed_out = true;
			failed = 1;
		}
	}
	if (failed) {
		char d[128];
		for (int i = 0; i < n; i++)
			if (child_failed(&c[i])) {
				describe_status(&c[i], d, sizeof d);
				fprintf(stderr, "%s: %zu-byte pair: the %s\n", prog, bytes, d);
			}
		if (timed_out)
			fprintf(stderr, "%s: %zu-byte pair: not done after %.0f s (--timeout): stopping it\n", prog, bytes,
			    o->timeout);
		/* SIGTERM first: each says where it was */
		signal_all(c, n, SIGTERM);
		if (!reap(c, n, ipc_now_ns() + 2 * INT64_C(1000000000))) {
			signal_all(c, n, SIGKILL);
			reap(c, n, ipc_now_ns() + 5 * INT64_C(1000000000));
		}
	} else {
		close(rel_pipe[1]);
		rel_pipe[1] = -1;
		if (!reap(c, n, ipc_now_ns() + 10 * INT64_C(1000000000))) {
			fprintf(stderr, "%s: %zu-byte pair: a process did not exit within 10 s after its result: killed\n",
			    prog, bytes);
			signal_all(c, n, SIGKILL);
			reap(c, n, ipc_now_ns() + 5 * INT64_C(1000000000));
			failed = 1;
		}
		for (int i = 0; i < n; i++)
			if (child_failed(&c[i])) {
				char d[128];
				describe_status(&c[i], d, sizeof d);
				fprintf(stderr, "%s: %zu-byte pair: the %s after its result\n", prog, bytes, d);
				failed = 1;
			}
	}
	if (rel_pipe[1] >= 0)
		close(rel_pipe[1]);
	close(res_pipe[0]);
	remove_dir(s.dir);
	if (failed)
		return 1;
	parse_results(buf, pr);
	if ((!T->latency_only && !pr->have_rate) || !pr->have_lat) {
		fprintf(stderr, "%s: %zu-byte pair: unreadable results: '%s'\n", prog, bytes, buf);
		return 1;
	}
	return 0;
}

static bool
parse_bytes(const char *text, ipc_opts *o, char *err, size_t errsize)
{
	o->nbytes = 0;
	const char *p = text;
	while (*p != '\0') {
		char *end;
		long v = strtol(p, &end, 10);
		if (end == p || (*end != ',' && *end != '\0') || v < 8 || v > IPC_MAX_BYTES || v % 8 != 0 ||
		    o->nbytes == 8) {
			snprintf(err, errsize, "--bytes '%.64s' is invalid: expected up to 8 sizes, each a multiple of 8"
			    " from 8 to %d", text, IPC_MAX_BYTES);
			return false;
		}
		o->bytes[o->nbytes++] = v;
		p = *end == ',' ? end + 1 : end;
	}
	if (o->nbytes == 0) {
		snprintf(err, errsize, "--bytes is empty");
		return false;
	}
	return true;
}

static bool
parse_pin(const char *text, ipc_opts *o, char *err, size_t errsize)
{
	long a, b;
	char c;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (sscanf(text, "%ld,%ld%c", &a, &b, &c) != 2 || a < 0 || b < 0 || a >= ncpu || b >= ncpu) {
		snprintf(err, errsize, "--pin '%.64s' is invalid: expected two CPU numbers below %ld, PRODUCER,CONSUMER",
		    text, ncpu);
		return false;
	}
	o->pin[0] = (int)a;
	o->pin[1] = (int)b;
	return true;
}

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: %s [--bytes LIST] [--events N] [--warmup N] [--warmup-seconds S] [--seconds S] [--max-events N]\n"
	    "       [--pings N] [--warmup-pings N] [--ping-seconds S] [--timeout S] [--pin P,C]\n"
	    "       [--out FILE|-] [--quick] [--quiet]\n"
	    "One producer process -> one consumer process (%s, %s): throughput and ping-pong latency\n"
	    "per event size; one CSV row per size: library,transport,event_bytes,events_per_sec,p50_ns,p99_ns,p999_ns\n"
	    "(one-way latency = round trip / 2). Defaults: --bytes %s --warmup 200000 --warmup-seconds 1 --seconds 0.5\n"
	    "--max-events 200M --pings 100000 --warmup-pings 10000 --ping-seconds 2 --timeout 120 --out -;\n"
	    "--quick: --events 20000 --warmup 2000 --pings 2000 --warmup-pings 200. No pinning unless --pin.\n"
	    "Internal (the launcher starts itself with them): --role, --size, --dir, --name, --fds,\n"
	    "--result-fd, --release-fd.\n",
	    prog, T->library, T->transport, T->default_bytes);
}

int
ipc_main(int argc, char **argv, const ipc_transport *t)
{
	T = t;
	const char *slash = strrchr(argv[0], '/');
	prog = slash != NULL ? slash + 1 : argv[0];
	ipc_opts o = { .bytes_text = t->default_bytes, .warmup = 200000, .warmup_seconds = 1, .seconds = 0.5, .max_events = 200000000,
	    .pings = 100000, .warmup_pings = 10000, .ping_seconds = 2, .timeout = 120, .out = "-",
	    .pin = { -1, -1 }, .result_fd = -1, .release_fd = -1 };
	const bench_flag flags[] = {
		{ BENCH_FLAG("--bytes", BENCH_TEXT, &o.bytes_text) },
		{ BENCH_FLAG("--events", BENCH_COUNT, &o.events), .min = 2, .given = &o.events_given },
		{ BENCH_FLAG("--warmup", BENCH_COUNT, &o.warmup), .min = 2, .given = &o.warmup_given },
		{ BENCH_FLAG("--warmup-seconds", BENCH_SECONDS, &o.warmup_seconds) },
		{ BENCH_FLAG("--seconds", BENCH_SECONDS, &o.seconds) },
		{ BENCH_FLAG("--max-events", BENCH_COUNT, &o.max_events), .min = 1000 },
		{ BENCH_FLAG("--pings", BENCH_COUNT, &o.pings), .given = &o.pings_given, .max = 100000000 },
		{ BENCH_FLAG("--warmup-pings", BENCH_COUNT, &o.warmup_pings), .given = &o.warmup_pings_given },
		{ BENCH_FLAG("--ping-seconds", BENCH_SECONDS, &o.ping_seconds) },
		{ BENCH_FLAG("--timeout", BENCH_SECONDS, &o.timeout) },
		{ BENCH_FLAG("--pin", BENCH_TEXT, &o.pin_text) },
		{ BENCH_FLAG("--out", BENCH_TEXT, &o.out) },
		{ BENCH_FLAG("--role", BENCH_TEXT, &o.role_text) },
		{ BENCH_FLAG("--size", BENCH_COUNT, &o.size), .min = 8, .max = IPC_MAX_BYTES },
		{ BENCH_FLAG("--dir", BENCH_TEXT, &o.dir) },
		{ BENCH_FLAG("--name", BENCH_TEXT, &o.name) },
		{ BENCH_FLAG("--fds", BENCH_TEXT, &o.fds_text) },
		{ BENCH_FLAG("--result-fd", BENCH_COUNT, &o.result_fd), .zero_ok = true },
		{ BENCH_FLAG("--release-fd", BENCH_COUNT, &o.release_fd), .zero_ok = true },
	};
	char err[256];
	enum bench_parsed parsed = bench_parse_flags(argc, argv, flags, (int)(sizeof flags / sizeof flags[0]),
	    &o.quick, usage, err, sizeof err);
	if (parsed != BENCH_PARSED_RUN)
		return bench_parsed_exit(parsed, prog, err);
	if (o.quick) {
		if (!o.events_given)
			o.events = 20000, o.events_given = true;
		if (!o.warmup_given)
			o.warmup = 2000;
		if (!o.pings_given)
			o.pings = 2000;
		if (!o.warmup_pings_given)
			o.warmup_pings = 200;
	}
	if (!parse_bytes(o.bytes_text, &o, err, sizeof err) || (o.pin_text != NULL && !parse_pin(o.pin_text, &o, err,
	    sizeof err)))
		return bench_parsed_exit(BENCH_PARSED_BAD, prog, err);

	if (o.role_text != NULL) {
		enum ipc_role role = strcmp(o.role_text, "producer") == 0 ? IPC_PRODUCER
		    : strcmp(o.role_text, "consumer") == 0 ? IPC_CONSUMER
		    : strcmp(o.role_text, "both") == 0 ? IPC_BOTH : IPC_LAUNCHER;
		if (role == IPC_LAUNCHER || o.size == 0 || o.result_fd < 0 || o.release_fd < 0) {
			fprintf(stderr, "%s: --role '%s' (internal) needs producer, consumer or both, with --size,"
			    " --result-fd and --release-fd\n", prog, o.role_text);
			return 2;
		}
		signal(SIGPIPE, SIG_IGN);
		return run_role(&o, role);
	}

	ssize_t len = readlink("/proc/self/exe", self_exe, sizeof self_exe - 1);
	if (len <= 0) {
		fprintf(stderr, "%s: cannot read /proc/self/exe: %s\n", prog, strerror(errno));
		return 1;
	}
	self_exe[len] = '\0';
	signal(SIGPIPE, SIG_IGN);
	FILE *out = stdout;
	if (strcmp(o.out, "-") != 0) {
		if (!bench_make_parent_dirs(o.out) || (out = fopen(o.out, "w")) == NULL) {
			fprintf(stderr, "%s: cannot write %s: %s\n", prog, o.out, strerror(errno));
			return 1;
		}
	}
	fprintf(out, "library,transport,event_bytes,events_per_sec,p50_ns,p99_ns,p999_ns\n");
	fflush(out);
	char version[64] = "";
	if (t->version != NULL)
		t->version(version, sizeof version);
	int status = 0;
	for (int i = 0; i < o.nbytes; i++) {
		pair_result pr = { .rate = 0 };
		bench_progress("[ipc] %s %s%s%s, %" PRId64 "-byte events", t->library, t->transport,
		    *version ? " " : "", version, o.bytes[i]);
		if (run_pair(argc, argv, &o, (size_t)o.bytes[i], &pr) != 0) {
			status = 1;
			continue;
		}
		char rate[32] = "";
		if (pr.have_rate)
			snprintf(rate, sizeof rate, "%.0f", pr.rate);
		fprintf(out, "%s,%s,%" PRId64 ",%s,%" PRId64 ",%" PRId64 ",%" PRId64 "\n", t->library, t->transport,
		    o.bytes[i], rate, pr.p50, pr.p99, pr.p999);
		fflush(out);
		char r1[32], r2[32];
		bench_progress("[ipc]   %s events/s (%" PRId64 " events; warm-up %s/s); one-way p50 %" PRId64
		    " ns, p99 %" PRId64 " ns, p99.9 %" PRId64 " ns (%" PRId64 " round trips)",
		    pr.have_rate ? bench_fmt_rate(pr.rate, r1, sizeof r1) : "-", pr.events,
		    pr.have_rate ? bench_fmt_rate(pr.warmup_rate, r2, sizeof r2) : "-", pr.p50, pr.p99, pr.p999,
		    pr.samples);
	}
	if (out != stdout && fclose(out) != 0) {
		fprintf(stderr, "%s: cannot write %s: %s\n", prog, o.out, strerror(errno));
		status = 1;
	}
	return status;
}
