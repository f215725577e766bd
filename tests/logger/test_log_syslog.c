/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_log_syslog.c: the syslog sink against collectors written here (a
 * unix datagram socket, a TCP listener), so that it is checked without
 * rsyslogd too (tests/stress/stress_log_syslog.c runs the real one): the
 * RFC 5424 and 3164 frames byte by byte, RFC 6587 octet counting, the cut of a
 * datagram too long for the transport, a collector down at open (the open
 * succeeds, the sink connects later, counts and reports what it lost), a
 * collector that closes the connection (no SIGPIPE, nothing sent twice),
 * and the SEQRING_LOG_SINK form with its errors.
 */
#include "test_log_support.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "sr_log_syslog_internal.h"

static char dir[64];

static void
make_dir(void)
{
	snprintf(dir, sizeof dir, "/tmp/seqring-syslogt-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

static void
remove_dir(void)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	cr_expect_eq(system(cmd), 0);
}

/* A unix datagram collector bound at dir/name; its descriptor. */
static int
dgram_collector(const char *name, char *path, size_t size)
{
	snprintf(path, size, "%s/%s", dir, name);
	int fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
	cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0, "bind %s: %s", path, strerror(errno));
	return fd;
}

/* The test's directory, made, and a unix datagram collector bound at c.sock in it; its descriptor. */
static int
collector_in_new_dir(char *path, size_t size)
{
	make_dir();
	return dgram_collector("c.sock", path, size);
}

/* Closes the logger, then the collector, then removes the test's directory. */
static void
close_all(sr_log **logp, int fd)
{
	sr_log_close(logp);
	close(fd);
	remove_dir();
}

/* One datagram (NUL-terminated into buf), waiting up to 2 s; its length or -1. */
static ssize_t
receive(int fd, char *buf, size_t size)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	if (poll(&p, 1, 2000) != 1)
		return -1;
	ssize_t n = recv(fd, buf, size - 1, 0);
	if (n >= 0)
		buf[n] = '\0';
	return n;
}

static sr_log *
open_with(sr_sink_config *s, sr_log_mode mode)
{
	sr_log_config c;
	tl_clear_env();
	tl_configure(&c, s, (tl_settings){ .ignore_environment = true, .ring_slots = 1024, .mode = mode });
	/* Raw messages: these tests check the framing of a newline inside an octet-counted frame. */
	c.escape_control_characters = false;
	return tl_open(&c);
}

/*
 * A logger (mode) whose one syslog sink, over transport to addr in the message layout, finds no
 * collector there at open and tries again after at most reconnect_max_ms.
 */
static sr_log *
open_collector_down(sr_syslog_transport transport, const char *addr, int reconnect_max_ms, sr_log_mode mode)
{
	sr_sink_config s = sr_sink_syslog(transport, addr);
	s.layout = SR_LOG_LAYOUT_MESSAGE;
	s.reconnect_max_ms = reconnect_max_ms;
	return open_with(&s, mode);
}

Test(log_syslog, rfc5424_frame_with_structured_data)
{
	char path[128];
	int fd = collector_in_new_dir(path, sizeof path);
	sr_sink_config s = sr_sink_syslog(SR_SYSLOG_UNIX_DGRAM, path);
	s.syslog_facility = 16; /* local0 */
	s.syslog_app = "myapp";
	s.layout = SR_LOG_LAYOUT_MESSAGE;
	sr_log *log = open_with(&s, SR_LOG_MODE_RING);
	sr_log_thread_name("worker");
	SR_WARN(sr_log_category(log, "net.http"), "GET %s -> %d \"q\" ]", "/", 200);
	sr_log_flush(log);
	char buf[4096];
	cr_assert_gt(receive(fd, buf, sizeof buf), 0);
	/* <PRI> = local0 (16) * 8 + warning (4) = 132 */
	char host[256];
	gethostname(host, sizeof host);
	char head[512];
	snprintf(head, sizeof head, "<132>1 ");
	cr_expect(strncmp(buf, head, strlen(head)) == 0, "%s", buf);
	/* 2026-12-01T12:34:56.123456Z */
	cr_expect(strlen(buf) > 34 && buf[11] == '-' && buf[17] == 'T' && buf[33] == 'Z' && buf[26] == '.', "%s", buf);
	snprintf(head, sizeof head, " %s myapp %d - [seqring@32473 category=\"net.http\" file=\"test_log_syslog.c\" line=\"",
	    host, (int)getpid());
	cr_expect(strstr(buf, head) != NULL, "%s\nwant %s", buf, head);
	cr_expect(strstr(buf, "\" thread=\"worker\" tid=\"") != NULL, "%s", buf);
	/* MSG is the line without its newline; SD values escape '"', '\' and ']' only. */
	const char *msg = strstr(buf, "\"] ");
	cr_assert_not_null(msg, "%s", buf);
	cr_expect_str_eq(msg + 3, "GET / -> 200 \"q\" ]");
	close_all(&log, fd);
}

Test(log_syslog, rfc3164_frame_and_datagram_cut)
{
	char path[128];
	int fd = collector_in_new_dir(path, sizeof path);
	sr_sink_config s = sr_sink_syslog(SR_SYSLOG_UNIX_DGRAM, path);
	s.syslog_format = SR_SYSLOG_3164;
	s.syslog_app = "old";
	s.layout = SR_LOG_LAYOUT_MESSAGE;
	sr_log_config c;
	tl_clear_env();
	tl_configure(&c, &s, (tl_settings){ .ignore_environment = true, .ring_slots = 1024, .max_message_bytes = 32768 });
	c.max_line_bytes = 32768;
	sr_log *log = tl_open(&c);
	sr_category *cat = sr_log_category(log, "x");
	SR_ERROR(cat, "short");
	char *big = malloc(20000);
	memset(big, 'a', 19999);
	big[19999] = '\0';
	SR_INFO(cat, "%s", big);
	sr_log_flush(log);
	char buf[32768];
	cr_assert_gt(receive(fd, buf, sizeof buf), 0);
	/* <11> = user (1) * 8 + error (3); "Mmm dd hh:mm:ss HOST old[PID]: MSG" */
	cr_expect(strncmp(buf, "<11>", 4) == 0 && buf[7] == ' ' && buf[10] == ' ' && buf[13] == ':', "%s", buf);
	char tail[64];
	snprintf(tail, sizeof tail, " old[%d]: short", (int)getpid());
	cr_expect(strstr(buf, tail) != NULL && strlen(strstr(buf, tail)) == strlen(tail), "%s", buf);
	ssize_t n = receive(fd, buf, sizeof buf);
	cr_expect_eq(n, SR_SYSLOG_MAX_DATAGRAM, "a too long message is cut to the datagram limit: %zd", n);
	cr_expect(n > 20 && strcmp(buf + n - 12, " [truncated]") == 0, "ends %s", buf + (n > 20 ? n - 20 : 0));
	free(big);
	close_all(&log, fd);
}

/* A TCP listener on a free port of 127.0.0.1. */
static int
tcp_listener(int *port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	int one = 1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof a;
	cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
	cr_assert_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	cr_assert_eq(listen(fd, 4), 0);
	*port = ntohs(a.sin_port);
	return fd;
}

/* Reads from fd until `want` octet-counted frames were parsed or 2 s passed; their MSG parts. */
static int
read_frames(int fd, char **msgs, int want)
{
	static char acc[1 << 20];
	size_t len = 0;
	int got = 0;
	while (got < want) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		if (poll(&p, 1, 2000) != 1)
			break;
		ssize_t n = recv(fd, acc + len, sizeof acc - len, 0);
		if (n <= 0)
			break;
		len += (size_t)n;
		for (;;) {
			char *sp = memchr(acc, ' ', len);
			if (sp == NULL)
				break;
			size_t flen = strtoul(acc, NULL, 10);
			size_t head = (size_t)(sp - acc) + 1;
			if (len < head + flen)
				break;
			const char *f = acc + head;
			const char *m = memmem(f, flen, "\"] ", 3);
			msgs[got++] = m != NULL ? strndup(m + 3, flen - (size_t)(m + 3 - f)) : strndup(f, flen);
			memmove(acc, acc + head + flen, len - head - flen);
			len -= head + flen;
			if (got == want)
				break;
		}
	}
	return got;
}

Test(log_syslog, tcp_octet_counting_down_at_open_then_reconnect_and_report)
{
	/* The port is found free, then the collector is not started yet: down at open. */
	int port;
	int l = tcp_listener(&port);
	close(l);
	char addr[64];
	snprintf(addr, sizeof addr, "127.0.0.1:%d", port);
	sr_log *log = open_collector_down(SR_SYSLOG_TCP, addr, 20, SR_LOG_MODE_RING);
	sr_category *cat = sr_log_category(log, "x");
	SR_INFO(cat, "lost %d", 1);
	SR_INFO(cat, "lost %d", 2);
	sr_log_flush(log);
	cr_expect_eq(tl_stats(log).sinks[0].lost_messages, 2);
	/* The collector comes up: the sink connects in the background (capped backoff). */
	int one = 1;
	l = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	cr_assert_eq(bind(l, (struct sockaddr *)&a, sizeof a), 0);
	cr_assert_eq(listen(l, 4), 0);
	tl_sleep_ms(100);
	SR_INFO(cat, "first %s", "delivered");
	SR_INFO(cat, "multi\nline");
	sr_log_flush(log);
	int c = accept(l, NULL, NULL);
	cr_assert_geq(c, 0);
	char *msgs[8] = { 0 };
	int got = read_frames(c, msgs, 3);
	cr_assert_eq(got, 3);
	/* The report follows the first batch delivered: before or after the second message. */
	int report = strncmp(msgs[1], "2 message(s)", 12) == 0 ? 1 : 2;
	cr_expect_str_eq(msgs[0], "first delivered");
	cr_expect_str_eq(msgs[report == 1 ? 2 : 1], "multi\nline");
	cr_expect(strncmp(msgs[report], "2 message(s) could not be delivered to log sink 0 (syslog tcp://", 64) == 0,
	    "%s", msgs[report]);
	cr_expect(strstr(msgs[report], "Connection refused; delivering again") != NULL, "%s", msgs[report]);
	for (int i = 0; i < got; i++)
		free(msgs[i]);

	/* The collector closes: no SIGPIPE (the test would die), the sink reconnects, nothing twice. */
	close(c);
	tl_sleep_ms(50);
	SR_INFO(cat, "after %s", "close");
	sr_log_flush(log);
	tl_sleep_ms(50);
	SR_INFO(cat, "again %d", 2);
	sr_log_flush(log);
	c = accept(l, NULL, NULL);
	cr_assert_geq(c, 0);
	got = read_frames(c, msgs, 2);
	cr_assert_geq(got, 1);
	sr_log_counters st = tl_stats(log);
	/* Whatever went into the closed connection is counted lost, and its report follows. */
	bool found_again = false;
	for (int i = 0; i < got; i++) {
		found_again |= strcmp(msgs[i], "again 2") == 0;
		cr_expect(strcmp(msgs[i], "after close") == 0 || strcmp(msgs[i], "again 2") == 0 ||
		    strstr(msgs[i], "could not be delivered") != NULL, "%s", msgs[i]);
		free(msgs[i]);
	}
	cr_expect(found_again || st.sinks[0].lost_messages > 2, "lost %" PRIu64, st.sinks[0].lost_messages);
	sr_log_close(&log);
	close(c);
	close(l);
}

/*
 * A collector that stops reading: TCP backpressure reaches the sink, a send
 * waits at most write_timeout_ms (then no more until one makes progress),
 * what does not fit is counted lost, and the callers (policy block) wait
 * for the consumer.  Then the collector reads everything: every message the
 * sink did not count lost arrives, once and in order.
 */
Test(log_syslog, slow_collector_accounts_for_every_message)
{
	int port;
	int l = tcp_listener(&port);
	int small = 4096;
	setsockopt(l, SOL_SOCKET, SO_RCVBUF, &small, sizeof small); /* the accepted socket inherits it */
	char addr[64];
	snprintf(addr, sizeof addr, "127.0.0.1:%d", port);
	sr_sink_config s = sr_sink_syslog(SR_SYSLOG_TCP, addr);
	s.layout = SR_LOG_LAYOUT_MESSAGE;
	s.write_timeout_ms = 5;
	s.buffer_bytes = 8192;
	sr_log_config c;
	tl_clear_env();
	/* A ring of 256 KiB (each thread's; ring_slots sizes the shared one): callers soon wait for the consumer. */
	tl_configure(&c, &s, (tl_settings){ .ignore_environment = true, .ring_slots = 256, .thread_ring_slots = 256,
	    .slot_size = 1024 });
	sr_log *log = tl_open(&c);
	int conn = accept(l, NULL, NULL);
	cr_assert_geq(conn, 0);
	enum { SENT = 30000 };
	static char pad[600];
	memset(pad, 'p', sizeof pad - 1);
	sr_category *cat = sr_log_category(log, "x");
	for (int i = 0; i < SENT; i++)
		SR_INFO(cat, "n=%d %s", i, pad);
	sr_log_shutdown(log);
	sr_log_counters st = tl_stats(log);
	sr_log_close(&log);
	/* The collector reads again: what went is in the kernel's buffers, then the end of the stream. */
	static char *msgs[SENT + 64];
	int got = read_frames(conn, msgs, SENT + 64);
	uint64_t lost = st.sinks[0].lost_messages;
	/* Policy block: the callers waited for the consumer, which waited at most 5 ms per send. */
	cr_expect_gt(lost, 0, "the collector never read, yet the sink lost nothing");
	cr_expect_eq(st.accepted, SENT);
	int prev = -1;
	for (int i = 0; i < got; i++) {
		int n;
		if (sscanf(msgs[i], "n=%d", &n) == 1) {
			cr_expect_gt(n, prev, "n=%d after n=%d: twice or out of order", n, prev);
			prev = n;
		}
		free(msgs[i]);
	}
	/* Every line given to the sink (the loss reports too) arrived or is counted lost. */
	cr_expect_eq((uint64_t)got + lost, st.sinks[0].messages, "%d arrived + %" PRIu64 " lost != %" PRIu64 " given",
	    got, lost, st.sinks[0].messages);
	cr_log_info("slow collector: %d arrived, %" PRIu64 " lost, %" PRIu64 " dropped", got, lost, st.dropped);
	close(conn);
	close(l);
}

/* Policy sync and mode sync: a caller sends its own frame, through the same connection. */
Test(log_syslog, sync_mode_sends_on_the_caller)
{
	char path[128];
	int fd = collector_in_new_dir(path, sizeof path);
	sr_sink_config s = sr_sink_syslog(SR_SYSLOG_UNIX, path);
	s.layout = SR_LOG_LAYOUT_JSON;
	sr_log *log = open_with(&s, SR_LOG_MODE_SYNC);
	SR_INFO(sr_log_category(log, "db"), "q %d", 1);
	char buf[4096];
	cr_assert_gt(receive(fd, buf, sizeof buf), 0);
	cr_expect(strstr(buf, "[seqring@32473 category=\"db\"") != NULL, "%s", buf);
	cr_expect(strstr(buf, "\"] {\"ts\":") != NULL && strstr(buf, "\"msg\":\"q 1\"") != NULL, "%s", buf);
	close_all(&log, fd);
}

/* Mode queue renders on the caller: the line arrives with no structured data ("-"). */
Test(log_syslog, queue_mode_lines_without_structured_data)
{
	char path[128];
	int fd = collector_in_new_dir(path, sizeof path);
	sr_sink_config s = sr_sink_syslog(SR_SYSLOG_UNIX_DGRAM, path);
	s.syslog_app = "q";
	sr_log *log = open_with(&s, SR_LOG_MODE_QUEUE);
	SR_INFO(sr_log_category(log, "db"), "queued %d", 1);
	sr_log_flush(log);
	char buf[4096];
	cr_assert_gt(receive(fd, buf, sizeof buf), 0);
	char want[64];
	snprintf(want, sizeof want, " q %d - - ", (int)getpid());
	cr_expect(strncmp(buf, "<14>1 ", 6) == 0 && strstr(buf, want) != NULL, "%s", buf);
	cr_expect(strstr(buf, " db - queued 1 (test_log_syslog.c:") != NULL, "the text layout as MSG: %s", buf);
	close_all(&log, fd);
}

/* Mode sync: the collector down at open, then up; the caller that delivers again reports the loss. */
Test(log_syslog, sync_mode_reports_loss)
{
	make_dir();
	char path[128];
	snprintf(path, sizeof path, "%s/late.sock", dir);
	sr_log *log = open_collector_down(SR_SYSLOG_UNIX_DGRAM, path, 10, SR_LOG_MODE_SYNC);
	sr_category *cat = sr_log_category(log, "db");
	SR_INFO(cat, "lost %d", 1);
	int fd = dgram_collector("late.sock", path, sizeof path);
	tl_sleep_ms(50);
	SR_INFO(cat, "delivered %d", 2);
	char buf[4096];
	cr_assert_gt(receive(fd, buf, sizeof buf), 0);
	cr_expect(strstr(buf, "\"] delivered 2") != NULL, "%s", buf);
	cr_assert_gt(receive(fd, buf, sizeof buf), 0);
	cr_expect(strstr(buf, "\"] 1 message(s) could not be delivered to log sink 0 (syslog unix-dgram:") != NULL,
	    "%s", buf);
	cr_expect_eq(tl_stats(log).sinks[0].lost_messages, 1);
	close_all(&log, fd);
}

Test(log_syslog, environment_form_and_errors)
{
	tl_clear_env();
	setenv("SEQRING_LOG_SINK", "syslog:tcp://127.0.0.1:9,facility=local3,format=3164,app=svc,reconnect=100,layout=json", 1);
	sr_log_config c;
	sr_log_config_default(&c);
	c.ring_slots = 1024;
	sr_log *log = tl_open(&c);
	char *d = tl_describe(log);
	cr_expect(strstr(d, "syslog tcp://127.0.0.1:9 level=trace facility=local3 format=3164 app=svc timeout=100 "
	    "reconnect_max=100 layout=json") != NULL, "%s", d);
	free(d);
	sr_log_close(&log);
	static const char *const bad[][2] = {
		{ "syslog:tcp://127.0.0.1", "sink 0: 'syslog:tcp://127.0.0.1': expected tcp://HOST:PORT with a port of 1 to 65535" },
		{ "syslog:udp://h:70000", "expected udp://HOST:PORT with a port of 1 to 65535" },
		{ "syslog:unix:", "sink 0: 'syslog:unix:': expected unix:PATH, a path of 1 to 107 bytes" },
		{ "syslog:carrier-pigeon", "is not a syslog sink: expected syslog, syslog:udp://HOST:PORT" },
		{ "syslog,facility=mars", "sink 0: facility 'mars' is invalid: expected kern, user, mail" },
		{ "syslog,format=5425", "sink 0: format '5425' is invalid: expected 5424 or 3164" },
		{ "syslog,app=two words", "sink 0: app 'two words' is invalid: expected 1 to 48 printable" },
		{ "syslog,reconnect=1", "sink 0: reconnect '1' is invalid: expected 10 to 600000 ms" },
		{ "syslog,max_size=1m", "option 'max_size' is not one of a syslog sink's (level, layout, pattern, facility" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		setenv("SEQRING_LOG_SINK", bad[i][0], 1);
		sr_log_config_default(&c);
		sr_error e = tl_open_refused(&c, "%s", bad[i][0]);
		cr_expect(strstr(e.message, "SEQRING_LOG_SINK '") == e.message && strstr(e.message, bad[i][1]) != NULL,
		    "%s: %s", bad[i][0], e.message);
	}
	unsetenv("SEQRING_LOG_SINK");
	sr_sink_config s = sr_sink_syslog(SR_SYSLOG_UDP, "nohostport");
	sr_log_config_default(&c);
	c.ignore_environment = true;
	c.sinks = &s;
	c.sink_count = 1;
	sr_error e = tl_open_refused(&c, "bad address");
	cr_expect(strstr(e.message, "config.sinks[0].syslog_address 'nohostport' is invalid: expected HOST:PORT") != NULL,
	    "%s", e.message);
	s = sr_sink_syslog(SR_SYSLOG_UDP, "127.0.0.1:514");
	s.syslog_facility = 24;
	e = tl_open_refused(&c, "facility 24");
	cr_expect(strstr(e.message, "config.sinks[0].syslog_facility 24 is out of range: expected 0 to 23") != NULL,
	    "%s", e.message);
}
