/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_log_journald.c: the journald sink against a real systemd-journald,
 * started by each test in a sandbox of its own (tests/support/log_journald.c:
 * a mount namespace of the test's worker, journald's namespace instance,
 * rate limiting off, nothing on the host's journal), read back with
 * journalctl.  Checks: every field of every record (MESSAGE, PRIORITY for
 * each level, CODE_FILE, CODE_LINE, CODE_FUNC, SYSLOG_IDENTIFIER by default
 * and with app=, TID, SEQRING_CATEGORY, SEQRING_THREAD, SEQRING_TIMESTAMP
 * equal to the record's time as the text layout prints it), a message with
 * newlines kept whole, a layout of the sink's own, 100,000 records from 8
 * threads each exactly once, a 1 MiB message whole (the memfd path),
 * journald absent at open, stopped and started again (losses counted and
 * reported, the sink reconnects, no crash); and, without journald, the
 * field names' mapping, the binary form, a bad socket path, the
 * SEQRING_LOG_SINK form and the errors at open.
 *
 * Without root, systemd-journald or a mount namespace, the tests that need
 * journald are skipped with the reason.
 */
#include "test_log_support.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>

#include "log_journald.h"
#include "sr_log_journald_internal.h"

#define NS "seqring-test"

static tl_journald jd;

/* Each journald test's end, passed or failed: journald stopped, the sandbox's mounts and files gone. */
static void
remove_journald(void)
{
	tl_journald_remove(&jd);
}

/* The sandbox and its journald, or the test skipped with the reason. */
static void
start_journald(void)
{
	const char *why = tl_journald_sandbox(&jd, NS);
	if (why != NULL) {
		if (jd.dir[0] != '\0')
			tl_journald_remove(&jd);
		cr_skip_test("no journald of our own: %s", why);
	}
	char err[256];
	cr_assert(tl_journald_start(&jd, err, sizeof err), "%s", err);
}

/* A logger on sinks (the environment ignored), with settings. */
static sr_log *
open_sinks(sr_sink_config *sinks, int n, tl_settings settings)
{
	sr_log_config c;
	tl_clear_env();
	settings.ignore_environment = true;
	tl_configure(&c, sinks, settings);
	c.sink_count = n;
	c.level = SR_LOG_TRACE; /* every level reaches the sinks */
	return tl_open(&c);
}

/*
 * The value of "name" in one line of journalctl's JSON (a flat object of
 * strings), decoded (\n, \", \\, \t, \uXXXX below 0x80) into out; false
 * when the line has no such field.
 */
static bool
json_field(const char *line, const char *name, char *out, size_t size)
{
	char key[80];
	snprintf(key, sizeof key, "\"%s\":\"", name);
	const char *p = strstr(line, key);
	if (p == NULL)
		return false;
	p += strlen(key);
	size_t n = 0;
	for (; *p != '\0' && *p != '"'; p++) {
		char c = *p;
		if (c == '\\') {
			p++;
			switch (*p) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'u': {
				unsigned v = 0;
				sscanf(p + 1, "%4x", &v);
				c = (char)v;
				p += 4;
				break;
			}
			default: c = *p; break;
			}
		}
		if (n + 1 < size)
			out[n++] = c;
	}
	out[n] = '\0';
	return true;
}

/*
 * journalctl's JSON of the entries whose SYSLOG_IDENTIFIER is ident (malloc'd lines), with the
 * record's own fields and those named in extra (",NAME,NAME...", or "").
 */
static char *
entries_with(const char *ident, size_t want, const char *extra)
{
	char match[128];
	snprintf(match, sizeof match, "SYSLOG_IDENTIFIER=%s", ident);
	size_t got = tl_journald_wait_lines(&jd, match, want, 30000);  /* a busy machine's journald is slow */
	cr_assert_geq(got, want, "journald holds %zu line(s) of %s, expected %zu", got, ident, want);
	char args[768];
	snprintf(args, sizeof args, "-o json --output-fields=MESSAGE,PRIORITY,CODE_FILE,CODE_LINE,CODE_FUNC,"
	    "SYSLOG_IDENTIFIER,TID,SEQRING_CATEGORY,SEQRING_THREAD,SEQRING_TIMESTAMP%s %s", extra, match);
	char *out = tl_journalctl(&jd, args, NULL);
	cr_assert_not_null(out);
	return out;
}

static char *
entries_of(const char *ident, size_t want)
{
	return entries_with(ident, want, "");
}

/* The line of out whose MESSAGE is message (copied into line), or NULL. */
static const char *
entry_with_message(const char *out, const char *message, char *line, size_t size)
{
	char value[4096];
	for (const char *p = out; *p != '\0';) {
		const char *end = strchr(p, '\n');
		size_t n = end != NULL ? (size_t)(end - p) : strlen(p);
		snprintf(line, size, "%.*s", (int)n, p);
		if (json_field(line, "MESSAGE", value, sizeof value) && strcmp(value, message) == 0)
			return line;
		p += n + (end != NULL);
	}
	return NULL;
}

static void
expect_field(const char *line, const char *name, const char *want)
{
	char got[4096] = "";
	cr_expect(json_field(line, name, got, sizeof got), "no %s in %s", name, line);
	cr_expect_str_eq(got, want, "%s: '%s', expected '%s' in %s", name, got, want, line);
}

/* The text layout's timestamp at the start of the line of text holding needle ("2026-...Z"). */
static void
text_time_of(const char *text, const char *needle, char *out, size_t size)
{
	char line[1024];
	cr_assert_not_null(tl_line_with(text, needle, line, sizeof line), "no line with '%s' in %s", needle, text);
	char *space = strchr(line, ' ');
	cr_assert_not_null(space);
	snprintf(out, size, "%.*s", (int)(space - line), line);
}

Test(log_journald, every_field_of_every_level, .fini = remove_journald)
{
	start_journald();
	char file[128];
	snprintf(file, sizeof file, "%s/fields.log", jd.dir); /* removed with the sandbox */
	sr_sink_config sinks[3] = { sr_sink_journald(jd.socket), sr_sink_journald(jd.socket), sr_sink_file(file) };
	sinks[1].syslog_app = "svc-app";
	sinks[2].layout = SR_LOG_LAYOUT_TEXT;
	sr_log *log = open_sinks(sinks, 3, (tl_settings){ .ring_slots = 1024 });
	sr_log_thread_name("jworker");
	uint32_t tid = (uint32_t)syscall(SYS_gettid);
	sr_category *cat = sr_log_category(log, "net.http");
	int lines[SR_LOG_LEVEL_COUNT];
	/* One record per level, each its own message; lines[l] is its call's line. */
	lines[0] = __LINE__ + 1;
	SR_TRACE(cat, "level %d of %s", 0, "six");
	lines[1] = __LINE__ + 1;
	SR_DEBUG(cat, "level %d of %s", 1, "six");
	lines[2] = __LINE__ + 1;
	SR_INFO(cat, "level %d of %s", 2, "six");
	lines[3] = __LINE__ + 1;
	SR_WARN(cat, "level %d of %s", 3, "six");
	lines[4] = __LINE__ + 1;
	SR_ERROR(cat, "level %d of %s", 4, "six");
	lines[5] = __LINE__ + 1;
	SR_FATAL(cat, "level %d of %s", 5, "six");
	int root_line = __LINE__ + 1;
	SR_INFO(sr_log_category(log, ""), "in the root category");
	sr_log_flush(log);
	sr_log_counters st = tl_stats(log);
	for (int k = 0; k < 2; k++)
		cr_expect_eq(st.sinks[k].lost_messages, 0, "journald sink %d lost %" PRIu64 " message(s), wrote %" PRIu64,
		    k, st.sinks[k].lost_messages, st.sinks[k].messages);
	char *text = tl_read_file(file, NULL);
	cr_assert_not_null(text);
	static const char *const priority[SR_LOG_LEVEL_COUNT - 1] = { "7", "7", "6", "4", "3", "2" };
	char want[64], line[8192], stamp[64];
	for (int k = 0; k < 2; k++) {
		const char *ident = k == 0 ? program_invocation_short_name : "svc-app";
		char *out = entries_of(ident, 7);
		for (int l = 0; l < SR_LOG_LEVEL_COUNT - 1; l++) {
			char message[64];
			snprintf(message, sizeof message, "level %d of six", l);
			cr_assert_not_null(entry_with_message(out, message, line, sizeof line), "no '%s' in %s", message, out);
			expect_field(line, "PRIORITY", priority[l]);
			expect_field(line, "CODE_FILE", __FILE__);
			snprintf(want, sizeof want, "%d", lines[l]);
			expect_field(line, "CODE_LINE", want);
			expect_field(line, "CODE_FUNC", __func__);
			expect_field(line, "SYSLOG_IDENTIFIER", ident);
			snprintf(want, sizeof want, "%" PRIu32, tid);
			expect_field(line, "TID", want);
			expect_field(line, "SEQRING_CATEGORY", "net.http");
			expect_field(line, "SEQRING_THREAD", "jworker");
			text_time_of(text, message, stamp, sizeof stamp);
			expect_field(line, "SEQRING_TIMESTAMP", stamp);
		}
		cr_assert_not_null(entry_with_message(out, "in the root category", line, sizeof line));
		expect_field(line, "SEQRING_CATEGORY", "root");
		snprintf(want, sizeof want, "%d", root_line);
		expect_field(line, "CODE_LINE", want);
		free(out);
	}
	cr_expect_eq(st.sinks[0].messages, 7);
	cr_expect_eq(st.sinks[0].writes, 7);
	cr_expect_eq(st.sinks[0].lost_messages, 0);
	cr_expect_eq(st.sinks[1].lost_messages, 0);
	free(text);
	sr_log_close(&log);
	tl_journald_remove(&jd);
}

Test(log_journald, key_value_fields_as_journal_fields, .fini = remove_journald)
{
	start_journald();
	sr_sink_config sinks[1] = { sr_sink_journald(jd.socket) };
	sinks[0].syslog_app = "svc-fields";
	sr_log *log = open_sinks(sinks, 1, (tl_settings){ .ring_slots = 1024 });
	sr_category *cat = sr_log_category(log, "orders");
	const char *venue = "XLON two";
	SR_INFO(cat, "order %d filled", 7, SR_KV("order", 42), SR_KV("px", 1.5), SR_KV("venue name", venue),
	    SR_KV("message", "not the message"), SR_KV("lots", -3), SR_KV("note", "two\nlines"));
	sr_log_flush(log);
	char *out = entries_with("svc-fields", 1, ",ORDER,PX,VENUE_NAME,FIELD_MESSAGE,LOTS,NOTE");
	char line[8192];
	cr_assert_not_null(entry_with_message(out, "order 7 filled", line, sizeof line), "%s", out);
	expect_field(line, "ORDER", "42");
	expect_field(line, "PX", "1.5");
	expect_field(line, "VENUE_NAME", "XLON two");
	expect_field(line, "FIELD_MESSAGE", "not the message");
	expect_field(line, "LOTS", "-3");
	expect_field(line, "NOTE", "two\nlines");
	expect_field(line, "MESSAGE", "order 7 filled");
	free(out);
	sr_log_close(&log);
	tl_journald_remove(&jd);
}

Test(log_journald, newlines_kept_and_a_layout_of_its_own, .fini = remove_journald)
{
	start_journald();
	sr_sink_config sinks[2] = { sr_sink_journald(jd.socket), sr_sink_journald(jd.socket) };
	sinks[0].syslog_app = "raw";
	sinks[1].syslog_app = "patterned";
	sinks[1].layout = SR_LOG_LAYOUT_PATTERN;
	sinks[1].pattern = "%p|%c|%m";
	/* The logger escapes control characters (the default): the raw MESSAGE keeps them all the same. */
	sr_log *log = open_sinks(sinks, 2, (tl_settings){ .ring_slots = 1024 });
	sr_category *cat = sr_log_category(log, "multi");
	SR_WARN(cat, "first line\nsecond %s\n\tthird=%d", "line", 3);
	SR_INFO(cat, "plain");
	sr_log_flush(log);
	char line[8192];
	char *out = entries_of("raw", 2);
	cr_expect_not_null(entry_with_message(out, "first line\nsecond line\n\tthird=3", line, sizeof line),
	    "the message with its newlines not whole in %s", out);
	cr_expect_not_null(entry_with_message(out, "plain", line, sizeof line), "%s", out);
	free(out);
	/* The pattern's line, escaped by the logger, without its newline. */
	out = entries_of("patterned", 2);
	cr_expect_not_null(entry_with_message(out, "WARN|multi|first line\\nsecond line\\n\\tthird=3", line, sizeof line),
	    "%s", out);
	cr_expect_not_null(entry_with_message(out, "INFO|multi|plain", line, sizeof line), "%s", out);
	free(out);
	char *d = tl_describe(log);
	cr_expect(strstr(d, "app=raw timeout=100 reconnect_max=2000 layout=message "
	    "(unescaped: the journald sink's default)") != NULL, "%s", d);
	cr_expect(strstr(d, "app=patterned timeout=100 reconnect_max=2000 layout=pattern '%p|%c|%m'") != NULL, "%s", d);
	free(d);
	sr_log_close(&log);
	tl_journald_remove(&jd);
}

enum { THREADS = 8, PER_THREAD = 12500, TOTAL = THREADS * PER_THREAD };

struct writer {
	sr_log *log;
	int t;
};

static void *
write_tagged(void *arg)
{
	struct writer *w = arg;
	sr_category *cat = sr_log_category(w->log, "many");
	for (int i = 0; i < PER_THREAD; i++)
		SR_INFO(cat, "t=%d i=%d", w->t, i);
	return NULL;
}

Test(log_journald, every_record_of_8_threads_exactly_once, .timeout = 240, .fini = remove_journald)
{
	start_journald();
	sr_sink_config s = sr_sink_journald(jd.socket);
	s.syslog_app = "many";
	/* A loaded machine may keep journald from reading for a while: wait, rather than lose. */
	s.write_timeout_ms = 20000;
	sr_log *log = open_sinks(&s, 1, (tl_settings){ 0 });
	pthread_t th[THREADS];
	struct writer w[THREADS];
	for (int t = 0; t < THREADS; t++) {
		w[t] = (struct writer){ log, t };
		cr_assert_eq(pthread_create(&th[t], NULL, write_tagged, &w[t]), 0);
	}
	for (int t = 0; t < THREADS; t++)
		pthread_join(th[t], NULL);
	sr_log_flush(log);
	sr_log_counters st = tl_stats(log);
	cr_expect_eq(st.sinks[0].lost_messages, 0, "%" PRIu64 " lost", st.sinks[0].lost_messages);
	cr_expect_eq(st.sinks[0].writes, TOTAL);
	size_t got = tl_journald_wait_lines(&jd, "SYSLOG_IDENTIFIER=many", TOTAL, 120000);
	cr_expect_eq(got, TOTAL, "journald holds %zu of %d records", got, TOTAL);
	char *out = tl_journalctl(&jd, "-o cat SYSLOG_IDENTIFIER=many", NULL);
	cr_assert_not_null(out);
	static unsigned char seen[TOTAL];
	memset(seen, 0, sizeof seen);
	int twice = 0, bad = 0;
	for (char *p = out; *p != '\0';) {
		char *end = strchr(p, '\n');
		if (end != NULL)
			*end = '\0';
		int t, i;
		if (sscanf(p, "t=%d i=%d", &t, &i) == 2 && t >= 0 && t < THREADS && i >= 0 && i < PER_THREAD)
			twice += seen[t * PER_THREAD + i]++ > 0;
		else
			bad++;
		if (end == NULL)
			break;
		p = end + 1;
	}
	int missing = 0;
	for (int k = 0; k < TOTAL; k++)
		missing += seen[k] == 0;
	cr_expect_eq(twice, 0, "%d record(s) twice", twice);
	cr_expect_eq(missing, 0, "%d record(s) missing", missing);
	cr_expect_eq(bad, 0, "%d line(s) of another shape", bad);
	free(out);
	sr_log_close(&log);
	tl_journald_remove(&jd);
}

Test(log_journald, one_mib_message_whole, .fini = remove_journald)
{
	start_journald();
	sr_sink_config s = sr_sink_journald(jd.socket);
	s.syslog_app = "big";
	sr_log_config c;
	tl_clear_env();
	tl_configure(&c, &s, (tl_settings){ .ignore_environment = true, .max_message_bytes = 1 << 20 });
	c.max_line_bytes = 2 << 20;
	sr_log *log = tl_open(&c);
	/* 1,000,000 bytes of string and a number padded to 48,576: 1 MiB of message, from a record under 1 MiB. */
	enum { STRING = 1000000, PAD = (1 << 20) - STRING };
	char *big = malloc(STRING + 1);
	for (int i = 0; i < STRING; i++)
		big[i] = (char)('a' + i % 26);
	big[STRING] = '\0';
	SR_INFO(sr_log_category(log, "big"), "%s%*d", big, PAD, 42);
	sr_log_flush(log);
	sr_log_counters st = tl_stats(log);
	cr_expect_eq(st.sinks[0].lost_messages, 0);
	cr_expect_eq(st.sinks[0].writes, 1);
	cr_expect_gt(st.sinks[0].bytes, 1 << 20);
	cr_assert_eq(tl_journald_wait_lines(&jd, "SYSLOG_IDENTIFIER=big", 1, 30000), 1);  /* a busy machine's journald is slow */
	size_t len;
	char *out = tl_journalctl(&jd, "-o cat SYSLOG_IDENTIFIER=big", &len);
	cr_assert_not_null(out);
	cr_expect_eq(len, (size_t)(1 << 20) + 1, "%zu bytes, expected 1 MiB and a newline", len);
	cr_expect(len > STRING && memcmp(out, big, STRING) == 0, "the string's bytes differ");
	cr_expect(len == (size_t)(1 << 20) + 1 && memcmp(out + (1 << 20) - 3, " 42\n", 4) == 0,
	    "the message does not end with the padded number");
	/* Whether the datagram could have gone without a memfd: the kernel caps the send buffer at wmem_max. */
	char *wmem = tl_read_file("/proc/sys/net/core/wmem_max", NULL);
	if (wmem != NULL && strtol(wmem, NULL, 10) * 2 < (1 << 20))
		cr_log_info("wmem_max %ld: the 1 MiB entry went through a memfd", strtol(wmem, NULL, 10));
	free(wmem);
	free(out);
	free(big);
	sr_log_close(&log);
	tl_journald_remove(&jd);
}

/* A unix datagram socket of our own bound at path (made from tag): it stands for journald. */
static int
own_socket(const char *tag, char *path, size_t size)
{
	snprintf(path, size, "/tmp/seqring-j%s-%d.sock", tag, (int)getpid());
	unlink(path);
	int fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
	cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0, "bind %s: %s", path, strerror(errno));
	return fd;
}

Test(log_journald, big_entry_in_a_sealed_memfd)
{
	/* A socket of our own stands for journald: what arrives is read here, the memfd's seals included. */
	char path[64];
	int fd = own_socket("memfd", path, sizeof path);
	sr_sink_config s = sr_sink_journald(path);
	s.syslog_app = "sealed";
	sr_log_config c;
	tl_clear_env();
	tl_configure(&c, &s, (tl_settings){ .ignore_environment = true, .max_message_bytes = 1 << 20 });
	c.max_line_bytes = 1 << 20;
	sr_log *log = tl_open(&c);
	enum { BIG = 300 * 1024 };
	SR_INFO(sr_log_category(log, "big"), "%*d", BIG, 7);
	SR_INFO(sr_log_category(log, "big"), "small");
	sr_log_flush(log);
	char byte;
	struct iovec iov = { &byte, 1 };
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int))];
	} control;
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
		.msg_controllen = sizeof control.buf };
	ssize_t n = recvmsg(fd, &mh, MSG_DONTWAIT);
	cr_assert_eq(n, 0, "the big entry's datagram holds %zd byte(s), expected none beside the memfd", n);
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
	cr_assert(cm != NULL && cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS, "no descriptor passed");
	int mfd;
	memcpy(&mfd, CMSG_DATA(cm), sizeof mfd);
	int seals = fcntl(mfd, F_GET_SEALS);
	cr_expect_eq(seals, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL, "seals 0x%x", seals);
	off_t size = lseek(mfd, 0, SEEK_END);
	char *entry = malloc((size_t)size + 1);
	cr_assert_eq(pread(mfd, entry, (size_t)size, 0), size);
	entry[size] = '\0';
	cr_expect(strncmp(entry, "MESSAGE=", 8) == 0 && size > BIG && memcmp(entry + 8 + BIG - 2, " 7\nPRIORITY=6\n", 14) == 0,
	    "the memfd holds no MESSAGE of %d bytes", BIG);
	cr_expect(strstr(entry + 8 + BIG, "\nSYSLOG_IDENTIFIER=sealed\n") != NULL);
	free(entry);
	close(mfd);
	/* The next, small, entry is a datagram again. */
	char small[4096];
	n = recv(fd, small, sizeof small - 1, MSG_DONTWAIT);
	cr_assert_gt(n, 0);
	small[n] = '\0';
	cr_expect(strncmp(small, "MESSAGE=small\nPRIORITY=6\n", 25) == 0, "%s", small);
	sr_log_close(&log);
	close(fd);
	unlink(path);
}

Test(log_journald, sync_and_queue_modes)
{
	char path[64], got[4096], want[256];
	int fd = own_socket("modes", path, sizeof path);
	/* Mode sync: the caller sends its record itself, every field from its event. */
	sr_sink_config s = sr_sink_journald(path);
	s.syslog_app = "syncapp";
	sr_log *log = open_sinks(&s, 1, (tl_settings){ .mode = SR_LOG_MODE_SYNC });
	int line = __LINE__ + 1;
	SR_WARN(sr_log_category(log, "sync"), "sent by %s", "the caller");
	ssize_t n = recv(fd, got, sizeof got - 1, MSG_DONTWAIT);
	cr_assert_gt(n, 0, "mode sync: nothing sent before the call returned");
	got[n] = '\0';
	snprintf(want, sizeof want, "MESSAGE=sent by the caller\nPRIORITY=4\nSYSLOG_IDENTIFIER=syncapp\nCODE_FILE=%s\n"
	    "CODE_LINE=%d\nCODE_FUNC=%s\nTID=%ld\nSEQRING_CATEGORY=sync\n", __FILE__, line, __func__,
	    (long)syscall(SYS_gettid));
	cr_expect(strncmp(got, want, strlen(want)) == 0, "%s", got);
	cr_expect(strstr(got, "\nSEQRING_TIMESTAMP=") != NULL, "%s", got);
	sr_log_close(&log);
	/* Mode queue renders on the caller: its line (the logger's layout) is MESSAGE, with no event's fields. */
	s = sr_sink_journald(path);
	s.syslog_app = "queueapp";
	log = open_sinks(&s, 1, (tl_settings){ .mode = SR_LOG_MODE_QUEUE, .ring_slots = 1024,
	    .layout = SR_LOG_LAYOUT_MESSAGE });
	SR_ERROR(sr_log_category(log, "q"), "queued %d", 1);
	sr_log_flush(log);
	n = recv(fd, got, sizeof got - 1, MSG_DONTWAIT);
	cr_assert_gt(n, 0);
	got[n] = '\0';
	cr_expect_str_eq(got, "MESSAGE=queued 1\nPRIORITY=3\nSYSLOG_IDENTIFIER=queueapp\n");
	sr_log_close(&log);
	close(fd);
	unlink(path);
}

/* Logs "after ROUND.N" every 20 ms until the sink delivers one again (10 s at most). */
static void
log_until_delivered(sr_log *log, int round)
{
	uint64_t writes = tl_stats(log).sinks[0].writes;
	sr_category *cat = sr_log_category(log, "back");
	for (int i = 0; i < 500; i++) {
		SR_INFO(cat, "after %d.%d", round, i);
		sr_log_flush(log);
		if (tl_stats(log).sinks[0].writes > writes)
			return;
		usleep(20000);
	}
	cr_assert_fail("the sink did not deliver to the restarted journald within 10 s");
}

Test(log_journald, absent_stopped_and_restarted_journald, .timeout = 120, .fini = remove_journald)
{
	const char *why = tl_journald_sandbox(&jd, NS);
	if (why != NULL) {
		if (jd.dir[0] != '\0')
			tl_journald_remove(&jd);
		cr_skip_test("no journald of our own: %s", why);
	}
	sr_sink_config s = sr_sink_journald(jd.socket);
	s.syslog_app = "comeback";
	s.reconnect_max_ms = 50;
	/* journald is not there: the open succeeds, and every record is counted lost. */
	sr_log *log = open_sinks(&s, 1, (tl_settings){ .ring_slots = 1024 });
	sr_category *cat = sr_log_category(log, "back");
	for (int i = 0; i < 10; i++)
		SR_INFO(cat, "before %d", i);
	sr_log_flush(log);
	sr_log_counters st = tl_stats(log);
	cr_expect_eq(st.sinks[0].lost_messages, 10);
	cr_expect_eq(st.sinks[0].writes, 0);
	cr_expect_gt(st.sinks[0].errors, 0);
	char err[256];
	cr_assert(tl_journald_start(&jd, err, sizeof err), "%s", err);
	log_until_delivered(log, 1);
	/* Stopped: its socket stays behind, refusing; records are counted lost, nothing crashes. */
	tl_journald_stop(&jd);
	uint64_t lost_before = tl_stats(log).sinks[0].lost_messages;
	for (int i = 0; i < 5; i++)
		SR_INFO(cat, "while stopped %d", i);
	sr_log_flush(log);
	cr_expect_eq(tl_stats(log).sinks[0].lost_messages, lost_before + 5);
	cr_assert(tl_journald_start(&jd, err, sizeof err), "%s", err);
	log_until_delivered(log, 2);
	sr_log_flush(log);
	/* Each delivery after a loss is followed by the report, into the journal too. */
	cr_expect_geq(tl_journald_wait_lines(&jd, "SYSLOG_IDENTIFIER=comeback SEQRING_CATEGORY=seqring", 2, 30000), 2);
	/*
	 * The reports together name every record lost: the 10 before, the 5
	 * while stopped, any between.  A loss between the two starts makes a
	 * report of its own, which may reach the journal after the first two:
	 * the journal is read until the reports add up to the sink's count
	 * (30 s at most; at once on an idle machine).
	 */
	char want[256];
	snprintf(want, sizeof want, "message(s) could not be delivered to log sink 0 (journald %s): ", jd.socket);
	char *out = NULL;
	uint64_t reported = 0;
	for (int tries = 0; tries < 300; tries++) {
		sr_log_flush(log);
		st = tl_stats(log);
		free(out);
		out = tl_journalctl(&jd, "-o cat SYSLOG_IDENTIFIER=comeback SEQRING_CATEGORY=seqring", NULL);
		cr_assert_not_null(out);
		reported = 0;
		for (const char *p = out; (p = strstr(p, " message(s) could not be delivered")) != NULL; p++) {
			const char *q = p;
			while (q > out && q[-1] >= '0' && q[-1] <= '9')
				q--;
			reported += strtoull(q, NULL, 10);
		}
		if (reported == st.sinks[0].lost_messages)
			break;
		usleep(100000);
	}
	cr_expect(strstr(out, want) != NULL, "no loss report in: %s", out);
	cr_expect_eq(reported, st.sinks[0].lost_messages, "the reports say %" PRIu64 ", the sink counts %" PRIu64
	    ": %s", reported, st.sinks[0].lost_messages, out);
	cr_expect_geq(st.sinks[0].lost_messages, 15);
	free(out);
	sr_log_close(&log);
	tl_journald_remove(&jd);
}

Test(log_journald, bad_socket_path_counts_losses)
{
	sr_sink_config s = sr_sink_journald("/nonexistent/seqring/journal.socket");
	sr_log *log = open_sinks(&s, 1, (tl_settings){ .ring_slots = 1024 });
	for (int i = 0; i < 3; i++)
		SR_ERROR(sr_log_category(log, "x"), "lost %d", i);
	sr_log_flush(log);
	sr_log_counters st = tl_stats(log);
	cr_expect_eq(st.sinks[0].messages, 3);
	cr_expect_eq(st.sinks[0].lost_messages, 3);
	cr_expect_eq(st.sinks[0].writes, 0);
	sr_log_close(&log);
}

Test(log_journald, field_names_and_the_binary_form)
{
	static const char *const names[][2] = {
		{ "MESSAGE", "MESSAGE" }, { "USER_ID", "USER_ID" }, { "user.id", "USER_ID" }, { "_pid", "X_PID" },
		{ "2fa", "X2FA" }, { "", "X" }, { "a-b c", "A_B_C" }, { "Ünï", "X__N__" },
		{ "A234567890123456789012345678901234567890123456789012345678901234",
		  "A234567890123456789012345678901234567890123456789012345678901234" },
		{ "a2345678901234567890123456789012345678901234567890123456789012345",
		  "A234567890123456789012345678901234567890123456789012345678901234" },
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		char out[SR_JOURNALD_NAME_MAX + 1];
		size_t n = sr_log__journald_field_name(names[i][0], strlen(names[i][0]), out);
		cr_expect_str_eq(out, names[i][1], "'%s' -> '%s', expected '%s'", names[i][0], out, names[i][1]);
		cr_expect_eq(n, strlen(names[i][1]));
		cr_expect(sr_log__journald_name_valid(out, n), "'%s' is not valid", out);
	}
	cr_expect_not(sr_log__journald_name_valid("_PID", 4));
	cr_expect_not(sr_log__journald_name_valid("9A", 2));
	sr_journald_buf b = { 0 };
	cr_assert(sr_log__journald_append_field(&b, "key.one", 7, "v1", 2));
	cr_assert(sr_log__journald_append_field(&b, "TWO", 3, "a\nb", 3));
	static const char want[] = "KEY_ONE=v1\nTWO\n\x03\0\0\0\0\0\0\0a\nb\n";
	cr_expect_eq(b.len, sizeof want - 1);
	cr_expect(memcmp(b.data, want, sizeof want - 1) == 0, "the fields' bytes differ");
	free(b.data);
	static const int severity[] = { 7, 7, 6, 4, 3, 2 };
	for (int l = 0; l < SR_LOG_LEVEL_COUNT - 1; l++)
		cr_expect_eq(sr_log__journald_priority(l), severity[l], "level %d", l);
}

Test(log_journald, environment_form_and_errors)
{
	tl_clear_env();
	setenv("SEQRING_LOG_SINK", "journald:/run/x/socket,app=svc,reconnect=100,level=warn,timeout=50", 1);
	sr_log_config c;
	sr_log_config_default(&c);
	c.ring_slots = 1024;
	sr_log *log = tl_open(&c);
	char *d = tl_describe(log);
	cr_expect(strstr(d, "journald /run/x/socket level=warn app=svc timeout=50 reconnect_max=100 layout=message "
	    "(unescaped: the journald sink's default)") != NULL, "%s", d);
	free(d);
	sr_log_close(&log);
	setenv("SEQRING_LOG_SINK", "journald,layout=json", 1);
	sr_log_config_default(&c);
	c.ring_slots = 1024;
	log = tl_open(&c);
	d = tl_describe(log);
	cr_expect(strstr(d, "journald " SR_JOURNALD_DEFAULT_SOCKET " level=trace app=") != NULL &&
	    strstr(d, "reconnect_max=2000 layout=json") != NULL, "%s", d);
	free(d);
	sr_log_close(&log);
	static const char *const bad[][2] = {
		{ "journald:", "sink 0: 'journald:': expected journald:SOCKET_PATH, a path of 1 to 107 bytes" },
		{ "journald,app=two words", "sink 0: app 'two words' is invalid: expected 1 to 48 printable characters "
		  "without spaces (SYSLOG_IDENTIFIER)" },
		{ "journald,reconnect=5", "sink 0: reconnect '5' is invalid: expected 10 to 600000 ms" },
		{ "journald,buffer=64k", "option 'buffer' is not one of a journald sink's (level, layout, pattern, app, "
		  "reconnect, timeout)" },
		{ "journald,facility=local0", "option 'facility' is not one of a journald sink's" },
		{ "journalx", "'journalx' is not a sink: expected stderr, stdout, null, fd:N, file:PATH, ctf:DIR, "
		  "syslog[:udp://HOST:PORT|:tcp://HOST:PORT|:unix:PATH] or journald[:SOCKET_PATH]" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		setenv("SEQRING_LOG_SINK", bad[i][0], 1);
		sr_log_config_default(&c);
		sr_error e = tl_open_refused(&c, "%s", bad[i][0]);
		cr_expect(strstr(e.message, "SEQRING_LOG_SINK '") == e.message && strstr(e.message, bad[i][1]) != NULL,
		    "%s: %s", bad[i][0], e.message);
	}
	unsetenv("SEQRING_LOG_SINK");
	sr_sink_config s = sr_sink_journald("");
	sr_log_config_default(&c);
	c.ignore_environment = true;
	c.sinks = &s;
	c.sink_count = 1;
	sr_error e = tl_open_refused(&c, "empty path");
	cr_expect(strstr(e.message, "config.sinks[0].syslog_address '' is invalid for a journald sink: expected the "
	    "path of journald's socket, 1 to 107 bytes, or NULL (" SR_JOURNALD_DEFAULT_SOCKET ")") != NULL,
	    "%s", e.message);
	s = sr_sink_journald(NULL);
	s.syslog_app = "a b";
	e = tl_open_refused(&c, "app");
	cr_expect(strstr(e.message, "config.sinks[0].syslog_app 'a b' is invalid: expected 1 to 48 printable") != NULL,
	    "%s", e.message);
	s = sr_sink_journald(NULL);
	s.reconnect_max_ms = 1;
	e = tl_open_refused(&c, "reconnect");
	cr_expect(strstr(e.message, "config.sinks[0].reconnect_max_ms 1 is out of range: expected 10 to 600000") != NULL,
	    "%s", e.message);
	s = sr_sink_journald(NULL);
	s.kind = (sr_sink_kind)7;
	e = tl_open_refused(&c, "kind");
	cr_expect(strstr(e.message, "config.sinks[0].kind 7 is invalid: expected SR_SINK_FILE (0)") != NULL &&
	    strstr(e.message, "SR_SINK_JOURNALD (6)") != NULL, "%s", e.message);
}
