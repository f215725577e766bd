/* SPDX-License-Identifier: Apache-2.0 */
/*
 * stress_log_syslog.c: the syslog sink against a real rsyslogd.
 *
 * The program starts its own `rsyslogd -n -f <generated config> -i <pid
 * file>` in a temporary directory, listening on free ports of 127.0.0.1
 * (imtcp, imudp) and on a unix socket there (imuxsock, the system socket
 * off), writing what each input receives to its own file.  It never touches
 * the system's syslog and always stops the daemon it started (at exit, on
 * failure, and the daemon dies with it: PR_SET_PDEATHSIG).  Checks:
 *   1. TCP and the unix socket: every message arrives exactly once, in
 *      order per thread, parsed by rsyslog as RFC 5424 with our structured
 *      data; the sinks count nothing lost.
 *   2. UDP: received + counted lost = sent.
 *   3. rsyslogd killed and restarted while a thread logs over TCP: nothing
 *      arrives twice or out of order, every message the sink counts lost is
 *      missing, what is missing beyond that is one run at the kill (what the
 *      dying daemon had taken from the kernel), and the sink's report line
 *      ("N message(s) could not be delivered ...") arrives once it delivers
 *      again, with N as sr_log_stats counts.
 * With --rate [MESSAGES [ROUNDS [file|tcp|unix|journald]]] (not run by
 * CTest): messages per second into rsyslogd over TCP and the unix socket,
 * and into a systemd-journald of the program's own through the journald
 * sink (its native protocol; tests/support/log_journald.h: a mount
 * namespace of this process, never the host's journal; skipped with the
 * reason where it cannot run), beside a file sink, in the same run, the
 * sinks interleaved round by round, and the consumer thread's CPU time per
 * message (from /proc's schedstat).
 * Without rsyslogd (not installed) the program says so and exits 77, which
 * CTest counts as skipped.
 */
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "log_journald.h"
#include "log_support.h"
#include "stress_args.h"
#include <seqring/sr_log.h>

#define RSYSLOGD "/usr/sbin/rsyslogd"
#define THREADS 4
#define PER_THREAD 5000

static const char *dir;
static int tcp_port, udp_port;
static pid_t daemon_pid = -1;

static void
stop_daemon(void)
{
	if (daemon_pid <= 0)
		return;
	kill(daemon_pid, SIGTERM);
	for (int i = 0; i < 200; i++) {
		if (waitpid(daemon_pid, NULL, WNOHANG) == daemon_pid) {
			daemon_pid = -1;
			return;
		}
		usleep(10000);
	}
	kill(daemon_pid, SIGKILL);
	waitpid(daemon_pid, NULL, 0);
	daemon_pid = -1;
}

static void
on_signal(int sig)
{
	if (daemon_pid > 0)
		kill(daemon_pid, SIGKILL);
	signal(sig, SIG_DFL);
	raise(sig);
}

static int
free_port(int type)
{
	int fd = socket(AF_INET, type, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof a;
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) != 0)
		tl_fail("cannot find a free port: %s", strerror(errno));
	close(fd);
	return ntohs(a.sin_port);
}

static void
write_config(void)
{
	char path[128];
	snprintf(path, sizeof path, "%s/rsyslog.conf", dir);
	FILE *f = fopen(path, "w");
	if (f == NULL)
		tl_fail("cannot write %s: %s", path, strerror(errno));
	fprintf(f,
	    "global(workDirectory=\"%s\" maxMessageSize=\"64k\")\n"
	    "module(load=\"imuxsock\" SysSock.Use=\"off\")\n"
	    "module(load=\"imtcp\")\n"
	    "module(load=\"imudp\")\n"
	    "template(name=\"fields\" type=\"string\" "
	    "string=\"%%protocol-version%%|%%app-name%%|%%procid%%|%%structured-data%%|%%msg%%\\n\")\n"
	    "input(type=\"imtcp\" address=\"127.0.0.1\" port=\"%d\" ruleset=\"tcp\")\n"
	    "input(type=\"imudp\" address=\"127.0.0.1\" port=\"%d\" rcvbufSize=\"4m\" ruleset=\"udp\")\n"
	    "input(type=\"imuxsock\" Socket=\"%s/log.sock\" UseSpecialParser=\"off\" ParseHostname=\"on\" "
	    "RateLimit.Interval=\"0\" ruleset=\"unix\")\n"
	    "ruleset(name=\"tcp\") { action(type=\"omfile\" file=\"%s/tcp.log\" template=\"fields\") }\n"
	    "ruleset(name=\"udp\") { action(type=\"omfile\" file=\"%s/udp.log\" template=\"fields\") }\n"
	    "ruleset(name=\"unix\") { action(type=\"omfile\" file=\"%s/unix.log\" template=\"fields\") }\n",
	    dir, tcp_port, udp_port, dir, dir, dir, dir);
	fclose(f);
}

static bool
tcp_accepts(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)tcp_port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	bool ok = connect(fd, (struct sockaddr *)&a, sizeof a) == 0;
	close(fd);
	return ok;
}

static void
start_daemon(void)
{
	char conf[128], pid[128], sock[128];
	snprintf(conf, sizeof conf, "%s/rsyslog.conf", dir);
	snprintf(pid, sizeof pid, "%s/rsyslogd.pid", dir);
	snprintf(sock, sizeof sock, "%s/log.sock", dir);
	unlink(pid);
	pid_t parent = getpid();
	fflush(stdout);
	pid_t p = fork();
	if (p < 0)
		tl_fail("fork: %s", strerror(errno));
	if (p == 0) {
		/* Dies with the thread that started it (the main thread: it outlives the checks). */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		char log[128];
		snprintf(log, sizeof log, "%s/rsyslogd.out", dir);
		if (freopen(log, "a", stdout) == NULL || freopen(log, "a", stderr) == NULL)
			_exit(127);
		execl(RSYSLOGD, "rsyslogd", "-n", "-f", conf, "-i", pid, (char *)NULL);
		_exit(127);
	}
	daemon_pid = p;
	struct stat st;
	for (int i = 0; i < 500; i++) {
		if (waitpid(p, NULL, WNOHANG) == p) {
			daemon_pid = -1;
			tl_fail("rsyslogd exited at start (see %s/rsyslogd.out)", dir);
		}
		if (tcp_accepts() && stat(sock, &st) == 0)
			return;
		usleep(10000);
	}
	tl_fail("rsyslogd did not listen within 5 s");
}

/* The lines of a file (malloc'd, NUL-separated in place); *n gets their count. */
static char **
read_lines(const char *name, size_t *n)
{
	char path[128];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	*n = 0;
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return NULL;
	size_t cap = 1024;
	char **lines = malloc(cap * sizeof *lines);
	char *line = NULL;
	size_t lcap = 0;
	ssize_t len;
	while ((len = getline(&line, &lcap, f)) > 0) {
		if (line[len - 1] == '\n')
			line[len - 1] = '\0';
		if (*n == cap)
			lines = realloc(lines, (cap *= 2) * sizeof *lines);
		lines[(*n)++] = strdup(line);
	}
	free(line);
	fclose(f);
	return lines;
}

static void
free_lines(char **lines, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
}

/* Waits until the file holds at least want lines that contain needle, or stops growing. */
static size_t
wait_lines(const char *name, const char *needle, size_t want)
{
	size_t have = 0, last = (size_t)-1;
	for (int quiet = 0; quiet < 100;) {
		size_t n;
		char **lines = read_lines(name, &n);
		have = 0;
		for (size_t i = 0; i < n; i++)
			have += strstr(lines[i], needle) != NULL;
		free_lines(lines, n);
		if (have >= want)
			break;
		quiet = have == last ? quiet + 1 : 0;
		last = have;
		usleep(20000);
	}
	return have;
}

typedef struct worker {
	sr_log *log;
	sr_category *cat;
	int t, count, pause_every;
} worker;

static void *
work(void *arg)
{
	worker *w = arg;
	tl_thread_name("w", w->t);
	for (int i = 0; i < w->count; i++) {
		SR_INFO(w->cat, "t=%d i=%d", w->t, i);
		if (w->pause_every > 0 && i % w->pause_every == w->pause_every - 1)
			usleep(1000);
	}
	return NULL;
}

static sr_log *
open_logger(sr_sink_config *sinks, int n)
{
	return tl_program_open(sinks, n, 65536, 0);
}

/* Parses "...|t=T i=I" at the end of a line; false for other lines. */
static bool
message_of(const char *line, int *t, int *i)
{
	const char *m = strrchr(line, '|');
	return m != NULL && sscanf(m + 1, "t=%d i=%d", t, i) == 2;
}

/*
 * Every message of threads x count exactly once and in order per thread;
 * RFC 5424 fields as rsyslog parsed them.  Returns how many arrived.
 */
static size_t
check_stream(const char *name, int threads, int count, bool all)
{
	size_t n;
	char **lines = read_lines(name, &n);
	int next[THREADS] = { 0 };
	char *seen = calloc((size_t)threads * (size_t)count, 1);
	size_t got = 0;
	for (size_t k = 0; k < n; k++) {
		int t, i;
		if (!message_of(lines[k], &t, &i))
			continue;
		if (t < 0 || t >= threads || i < 0 || i >= count)
			tl_fail("%s: line %zu names no message sent: %s", name, k + 1, lines[k]);
		if (seen[t * count + i]++)
			tl_fail("%s: message t=%d i=%d arrived twice", name, t, i);
		if (i < next[t])
			tl_fail("%s: message t=%d i=%d arrived after i=%d", name, t, i, next[t] - 1);
		if (all && i != next[t])
			tl_fail("%s: message t=%d i=%d is missing (next is i=%d)", name, t, next[t], i);
		next[t] = i + 1;
		got++;
		char want_sd[96];
		snprintf(want_sd, sizeof want_sd, "|[seqring@32473 category=\"syslogtest\" file=\"stress_log_syslog.c\" line=\"");
		if (strncmp(lines[k], "1|stress_log_sysl|", 18) != 0 && strncmp(lines[k], "1|sysltest|", 11) != 0)
			tl_fail("%s: not parsed as RFC 5424 with our APP-NAME: %s", name, lines[k]);
		if (strstr(lines[k], want_sd) == NULL || strstr(lines[k], " thread=\"w") == NULL ||
		    strstr(lines[k], " tid=\"") == NULL)
			tl_fail("%s: no structured data as sent: %s", name, lines[k]);
	}
	free(seen);
	free_lines(lines, n);
	if (all && got != (size_t)threads * (size_t)count)
		tl_fail("%s: %zu of %d messages arrived", name, got, threads * count);
	return got;
}

static void
check_tcp_and_unix(void)
{
	char sock[128], tcp[64];
	snprintf(sock, sizeof sock, "%s/log.sock", dir);
	snprintf(tcp, sizeof tcp, "127.0.0.1:%d", tcp_port);
	sr_sink_config s[2] = { sr_sink_syslog(SR_SYSLOG_TCP, tcp), sr_sink_syslog(SR_SYSLOG_UNIX, sock) };
	for (int i = 0; i < 2; i++) {
		s[i].layout = SR_LOG_LAYOUT_MESSAGE;
		s[i].syslog_app = "sysltest";
		s[i].write_timeout_ms = 2000;
	}
	sr_log *log = open_logger(s, 2);
	pthread_t th[THREADS];
	worker w[THREADS];
	for (int t = 0; t < THREADS; t++) {
		w[t] = (worker){ log, sr_log_category(log, "syslogtest"), t, PER_THREAD, 0 };
		pthread_create(&th[t], NULL, work, &w[t]);
	}
	for (int t = 0; t < THREADS; t++)
		pthread_join(th[t], NULL);
	sr_log_counters st = tl_flush_stats_close(&log);
	if (st.sinks[0].lost_messages != 0 || st.sinks[1].lost_messages != 0)
		tl_fail("tcp/unix: the sinks counted %" PRIu64 " and %" PRIu64 " messages lost",
		    st.sinks[0].lost_messages, st.sinks[1].lost_messages);
	size_t want = (size_t)THREADS * PER_THREAD;
	wait_lines("tcp.log", "|t=", want);
	wait_lines("unix.log", "|t=", want);
	check_stream("tcp.log", THREADS, PER_THREAD, true);
	check_stream("unix.log", THREADS, PER_THREAD, true);
	printf("tcp and unix: %zu messages each arrived exactly once, in order, as RFC 5424\n", want);
}

static void
check_udp(void)
{
	char udp[64];
	snprintf(udp, sizeof udp, "127.0.0.1:%d", udp_port);
	sr_sink_config s = sr_sink_syslog(SR_SYSLOG_UDP, udp);
	s.layout = SR_LOG_LAYOUT_MESSAGE;
	s.syslog_app = "sysltest";
	sr_log *log = open_logger(&s, 1);
	enum { SENT = 4000 };
	worker w = { log, sr_log_category(log, "syslogtest"), 0, SENT, 10 };
	work(&w);
	sr_log_counters st = tl_flush_stats_close(&log);
	size_t got = wait_lines("udp.log", "|t=", SENT - (size_t)st.sinks[0].lost_messages);
	got = check_stream("udp.log", 1, SENT, false);
	if (got + st.sinks[0].lost_messages != SENT)
		tl_fail("udp: %zu received + %" PRIu64 " counted lost != %d sent", got, st.sinks[0].lost_messages, SENT);
	printf("udp: %zu received + %" PRIu64 " counted lost = %d sent\n", got, st.sinks[0].lost_messages, SENT);
}

typedef struct restarter {
	int delay_ms, down_ms;
} restarter;

static void
restart(void *arg)
{
	restarter *r = arg;
	usleep((useconds_t)r->delay_ms * 1000);
	kill(daemon_pid, SIGKILL);
	waitpid(daemon_pid, NULL, 0);
	daemon_pid = -1;
	usleep((useconds_t)r->down_ms * 1000);
	start_daemon();
}

static void
check_restart(void)
{
	char tcp[64];
	snprintf(tcp, sizeof tcp, "127.0.0.1:%d", tcp_port);
	char path[128];
	snprintf(path, sizeof path, "%s/tcp.log", dir);
	unlink(path); /* the first check's lines; rsyslogd reopens it on its next write */
	sr_sink_config s = sr_sink_syslog(SR_SYSLOG_TCP, tcp);
	s.layout = SR_LOG_LAYOUT_MESSAGE;
	s.syslog_app = "sysltest";
	s.reconnect_max_ms = 50;
	sr_log *log = open_logger(&s, 1);
	enum { SENT = 20000 };
	worker w = { log, sr_log_category(log, "syslogtest"), 0, SENT, 20 };
	/* The daemon is restarted by this thread: PR_SET_PDEATHSIG follows the thread that forked. */
	restarter r = { 300, 300 };
	pthread_t th;
	pthread_create(&th, NULL, work, &w);
	restart(&r);
	pthread_join(th, NULL);
	/* Let the sink reconnect, then a last message to carry its report. */
	usleep(300000);
	SR_INFO(w.cat, "t=%d i=%d", 0, SENT);
	sr_log_flush(log);
	usleep(100000);
	SR_INFO(w.cat, "t=%d i=%d", 0, SENT + 1);
	sr_log_counters st = tl_flush_stats_close(&log);
	uint64_t lost = st.sinks[0].lost_messages;
	wait_lines("tcp.log", "i=20001", 1);
	size_t n;
	char **lines = read_lines("tcp.log", &n);
	/* Order, no duplicates; the run of missing messages. */
	int prev = -1, gaps = 0;
	size_t got = 0, missing = 0;
	uint64_t reported = 0;
	for (size_t k = 0; k < n; k++) {
		unsigned long long v;
		const char *rep = strstr(lines[k], "|");
		rep = rep != NULL ? strrchr(lines[k], '|') + 1 : lines[k];
		if (sscanf(rep, "%llu message(s) could not be delivered", &v) == 1) {
			reported += v;
			continue;
		}
		int t, i;
		if (!message_of(lines[k], &t, &i))
			continue;
		if (i <= prev)
			tl_fail("restart: message i=%d arrived after i=%d (twice or out of order)", i, prev);
		if (i != prev + 1) {
			gaps++;
			missing += (size_t)(i - prev - 1);
		}
		prev = i;
		got++;
	}
	free_lines(lines, n);
	if (prev != SENT + 1)
		tl_fail("restart: the last message (i=%d) did not arrive (last: %d; the sink: %" PRIu64 " messages, "
		    "%" PRIu64 " lost, %" PRIu64 " errors, %" PRIu64 " bytes)", SENT + 1, prev, st.sinks[0].messages,
		    lost, st.sinks[0].errors, st.sinks[0].bytes);
	if (lost == 0 || reported != lost)
		tl_fail("restart: the sink counted %" PRIu64 " lost and its report lines say %" PRIu64, lost, reported);
	if (missing < lost)
		tl_fail("restart: %zu missing but %" PRIu64 " counted lost: a message counted lost arrived", missing, lost);
	if (gaps > 2)
		tl_fail("restart: %d runs of missing messages, expected the one at the kill", gaps);
	printf("restart: %d sent, %zu received, %zu missing in %d run(s), %" PRIu64 " of them counted lost "
	    "and reported; %zu taken by the killed daemon before it read them\n",
	    SENT + 2, got, missing, gaps, lost, missing - (size_t)lost);
}

/* The consumer thread's time on a CPU, ns (schedstat), found by its name. */
static uint64_t
consumer_cpu_ns(void)
{
	char path[128], comm[32];
	for (int tid = getpid(); tid < getpid() + 4096; tid++) {
		snprintf(path, sizeof path, "/proc/self/task/%d/comm", tid);
		FILE *f = fopen(path, "r");
		if (f == NULL)
			continue;
		bool ours = fgets(comm, sizeof comm, f) != NULL && strncmp(comm, "seqring-log", 11) == 0;
		fclose(f);
		if (!ours)
			continue;
		snprintf(path, sizeof path, "/proc/self/task/%d/schedstat", tid);
		f = fopen(path, "r");
		unsigned long long ns = 0;
		if (f != NULL && fscanf(f, "%llu", &ns) != 1)
			ns = 0;
		if (f != NULL)
			fclose(f);
		return ns;
	}
	return 0;
}

static void
rate(const char *what, sr_sink_config s, int count)
{
	/* The message alone: a journald sink's default sends it so (unescaped, in MESSAGE). */
	if (s.kind != SR_SINK_JOURNALD)
		s.layout = SR_LOG_LAYOUT_MESSAGE;
	sr_log *log = open_logger(&s, 1);
	sr_category *cat = sr_log_category(log, "syslogtest");
	SR_INFO(cat, "t=%d i=%d", 0, -1);
	sr_log_flush(log);
	uint64_t cpu0 = consumer_cpu_ns();
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < count; i++)
		SR_INFO(cat, "t=%d i=%d", 0, i);
	sr_log_flush(log);
	clock_gettime(CLOCK_MONOTONIC, &b);
	uint64_t cpu = consumer_cpu_ns() - cpu0;
	sr_log_counters st;
	sr_log_stats(log, &st);
	sr_log_close(&log);
	double sec = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	printf("%-22s %9.0f messages/s  consumer %6.0f ns/message  lost %" PRIu64 "\n", what, count / sec,
	    (double)cpu / count, st.sinks[0].lost_messages);
}

/* rates' sinks, as --rate's third operand names them. */
enum rate_sink { RATE_FILE, RATE_TCP, RATE_UNIX, RATE_JOURNALD, RATE_ALL };
static const char *const rate_sinks[] = { "file", "tcp", "unix", "journald", NULL };

/* The journald of --rate's journald row, in this process's own mount namespace. */
static tl_journald journald;
static bool journald_up;

static void
remove_journald(void)
{
	tl_journald_remove(&journald);
}

/* Starts the journald row's journald; false (said why) when it cannot run here. */
static bool
start_journald(void)
{
	const char *why = tl_journald_sandbox(&journald, "seqring-rate");
	char err[256];
	if (why == NULL && !tl_journald_start(&journald, err, sizeof err))
		why = err;
	if (journald.dir[0] != '\0')
		atexit(remove_journald);
	if (why != NULL) {
		printf("%-22s skipped: %s\n", "journald", why);
		return false;
	}
	return true;
}

static void
rates(int count, int rounds, enum rate_sink only)
{
	char sock[128], tcp[64], file[128];
	snprintf(sock, sizeof sock, "%s/log.sock", dir);
	snprintf(tcp, sizeof tcp, "127.0.0.1:%d", tcp_port);
	snprintf(file, sizeof file, "%s/file.log", dir);
	for (int round = 0; round < rounds; round++) {
		if (only == RATE_ALL || only == RATE_FILE)
			rate("file", sr_sink_file(file), count);
		if (only == RATE_ALL || only == RATE_TCP)
			rate("syslog tcp", sr_sink_syslog(SR_SYSLOG_TCP, tcp), count);
		if (only == RATE_ALL || only == RATE_UNIX)
			rate("syslog unix (dgram)", sr_sink_syslog(SR_SYSLOG_UNIX, sock), count);
		if ((only == RATE_ALL || only == RATE_JOURNALD) && journald_up)
			rate("journald (native)", sr_sink_journald(journald.socket), count);
	}
}

int
main(int argc, char **argv)
{
	bool rate_only = false;
	const sa_option options[] = {
		{ .name = "rate", .kind = SA_SWITCH, .dest = &rate_only,
		    .help = "measure instead: MESSAGES (200000) per sink, ROUNDS (3) times, one sink or all" },
	};
	const char *rate_operands = "[MESSAGES [ROUNDS [file|tcp|unix|journald]]]";
	int first = sa_parse(argc, argv, options, sizeof options / sizeof *options, rate_operands);
	int operands = argc - first;
	if (operands > 0 && !rate_only)
		sa_usage_error("'%s' is an operand of --rate only: expected --rate %s", argv[first], rate_operands);
	if (operands > 3)
		sa_usage_error("'%s' is a fourth operand: expected --rate %s", argv[first + 3], rate_operands);
	int64_t messages = operands > 0 ? sa_operand_count("MESSAGES", argv[first], 1, 1000000000) : 200000;
	int64_t rounds = operands > 1 ? sa_operand_count("ROUNDS", argv[first + 1], 1, 1000) : 3;
	enum rate_sink only = RATE_ALL;
	if (operands > 2)
		only = (enum rate_sink)sa_operand_word("the sink", argv[first + 2], rate_sinks);
	if (access(RSYSLOGD, X_OK) != 0) {
		printf("stress_log_syslog: %s is not installed (Debian package rsyslog): skipped\n", RSYSLOGD);
		return 77;
	}
	dir = tl_program_dir("stress_log_syslog");
	atexit(stop_daemon); /* before the directory goes */
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	tcp_port = free_port(SOCK_STREAM);
	udp_port = free_port(SOCK_DGRAM);
	write_config();
	start_daemon();
	if (rate_only) {
		if (only == RATE_ALL || only == RATE_JOURNALD)
			journald_up = start_journald();
		rates((int)messages, (int)rounds, only);
		return 0;
	}
	check_tcp_and_unix();
	check_udp();
	check_restart();
	printf("stress_log_syslog: passed\n");
	return 0;
}
