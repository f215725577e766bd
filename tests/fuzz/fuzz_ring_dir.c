/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_ring_dir.c: libFuzzer target for the reading of a ring directory
 * that a dead process left (logger/ringdir/sr_log_ring_meta_read.c,
 * logger/ringdir/sr_log_ring_file_read.c, logger/recovery/sr_log_recover.c).
 *
 * An input is a meta file and one to three ring files:
 *
 *   byte 0      flags (FIX_* and the others below)
 *   byte 1      ring files: 1 + byte % 3
 *   byte 2      the tracked sink's size, in 64-byte units
 *   byte 3      unused
 *   u32 x (1 + rings)  the meta file's length, then each ring file's
 *   the files' bytes, one after the other (a length is cut to what is left)
 *
 * The FIX_* flags make a mutated file pass a check the fuzzer cannot guess
 * (a checksum, the file's size in its header), so that mutations reach what
 * comes after it; inputs without them keep those checks fuzzed.  A meta
 * file's sink path is always replaced by a file of the target's own
 * directory (its checksum kept valid if it was), so that recovery, which
 * may cut back the tracked file, never touches anything else.
 *
 * Each input is read twice:
 *   1. by the parsers, on copies of exactly the files' sizes at an address
 *      aligned to 64 (as recovery reads them): a refused file is SR_EFORMAT
 *      with a message that names it; an accepted ring describes slots inside
 *      its bytes and sequences in order, an accepted meta file tables sorted
 *      by address whose every entry is found again;
 *   2. end to end: the files are written into a private directory as
 *      1-1.meta and 1-1-K.ring and sr_log_recover writes what they hold into
 *      a logger (mode sync, the default clock, two callback sinks, text and
 *      JSON, that discard their lines): it succeeds, reporting the one dead
 *      logger and its rings and leaving none of its files, or fails with
 *      SR_EFORMAT (every file left as it was), SR_ESYS or SR_ENOMEM and a
 *      terminated message; then the directory is emptied.
 * Neither may crash, read outside the files' bytes, leak, trip a sanitizer
 * or hang, whatever the bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_support.h"
#include "sr_log_ring_dir_internal.h"
#include <seqring/sr_log.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum {
	FIX_META_HEAD = 0x01,   /* the meta header's checksum */
	FIX_META_ENTRIES = 0x02, /* each well-sized meta entry's checksum */
	FIX_RING_SIZE = 0x04,   /* each ring header's file_bytes: the file's length */
	FIX_RING_HEAD = 0x08,   /* each ring header's checksum (after the other fixes) */
	SAME_LOGGER = 0x10,     /* each ring header's pid and instance: the meta file's */
	FLIGHT_SINK = 0x20,     /* the meta header's write in flight names the sink file (device, inode) */
	NO_META = 0x40          /* no meta file: the rings alone */
};

#define MAX_RINGS 3

static char dir[64];
static char sink_path[128];
static sr_log *log_into;

static int
discard_line(void *ctx, sr_log_level level, const char *line, size_t len)
{
	(void)ctx;
	(void)level;
	(void)line;
	(void)len;
	return 0;
}

/* At exit: each input leaves the directory empty, but for the lock a recovery may have made. */
static void
remove_dir(void)
{
	char path[160];
	snprintf(path, sizeof path, "%s/lock", dir);
	unlink(path);
	if (rmdir(dir) != 0)
		fprintf(stderr, "fuzz_ring_dir: cannot remove %s: %s\n", dir, strerror(errno));
}

static void
set_up(void)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof dir, "%s/seqring-fuzz-ringdir.XXXXXX", tmp != NULL && strlen(tmp) < 24 ? tmp : "/tmp");
	FUZZ_CHECK(mkdtemp(dir) != NULL, "mkdtemp %s: %s", dir, strerror(errno));
	snprintf(sink_path, sizeof sink_path, "%s/sink.log", dir);
	atexit(remove_dir);

	sr_log_config c;
	sr_log_config_default(&c);
	sr_sink_config sinks[2] = { sr_sink_callback(discard_line, NULL), sr_sink_callback(discard_line, NULL) };
	sinks[1].layout = SR_LOG_LAYOUT_JSON;
	c.mode = SR_LOG_MODE_SYNC;
	/* The default clock, as a logger that recovers at open has: tsc where the CPU has one. */
	c.clock = SR_LOG_CLOCK_AUTO;
	c.level = SR_LOG_TRACE;
	c.max_line_bytes = 4096;
	c.sinks = sinks;
	c.sink_count = 2;
	c.ignore_environment = true;
	c.close_at_exit = false;
	sr_error err;
	log_into = sr_log_open(&c, &err);
	FUZZ_CHECK(log_into != NULL, "open the logger: %s", err.message);
}

/* A copy of n bytes (exactly: ASan sees any read past them) at an address aligned to 64. */
static unsigned char *
aligned_copy(const unsigned char *p, size_t n)
{
	void *q = NULL;
	FUZZ_CHECK(posix_memalign(&q, 64, n > 0 ? n : 1) == 0, "allocate %zu bytes", n);
	if (n > 0)
		memcpy(q, p, n);
	return q;
}

static void
check_refusal(int rc, const sr_error *err, const char *what)
{
	FUZZ_CHECK(rc == SR_EFORMAT || rc == SR_ENOMEM, "rc %d: %s", rc, err->message);
	FUZZ_CHECK(memchr(err->message, '\0', sizeof err->message) != NULL, "message not terminated");
	FUZZ_CHECK(strstr(err->message, what) != NULL, "the message does not name the file: %s", err->message);
}

static void
parse_meta(const unsigned char *bytes, size_t n)
{
	unsigned char *copy = aligned_copy(bytes, n);
	sr_log_meta_view v;
	sr_error err;
	int rc = sr_log__ring_meta_parse(copy, n, "fuzz.meta", &v, &err);
	if (rc != SR_OK) {
		check_refusal(rc, &err, "fuzz.meta");
	} else {
		FUZZ_CHECK(v.torn <= n - SR_LOG_RING_DIR_PAGE, "torn %zu of %zu bytes", v.torn, n);
		FUZZ_CHECK(strlen(v.path) <= SR_LOG_RING_META_PATH, "path");
		for (size_t i = 0; i < v.site_count; i++) {
			const sr_log_meta_site *s = &v.sites[i];
			FUZZ_CHECK(i == 0 || v.sites[i - 1].address <= s->address, "sites unsorted at %zu", i);
			const sr_log_meta_site *f = sr_log__meta_find_site(&v, s->address);
			FUZZ_CHECK(f != NULL && f->address == s->address, "site %zu not found", i);
			(void)strlen(s->format);
			(void)strlen(s->file);
			(void)strlen(s->function);
		}
		for (size_t i = 0; i < v.category_count; i++) {
			const sr_log_meta_category *c = &v.categories[i];
			FUZZ_CHECK(i == 0 || v.categories[i - 1].address <= c->address, "categories unsorted at %zu", i);
			const sr_log_meta_category *f = sr_log__meta_find_category(&v, c->address);
			FUZZ_CHECK(f != NULL && f->address == c->address, "category %zu not found", i);
			(void)strlen(c->name);
		}
		/* Times of the dead process's clock, whatever its calibration says. */
		int64_t raws[] = { 0, 1, -1, v.clock_seg[0], v.clock_seg[2], INT64_MAX, INT64_MIN };
		for (size_t i = 0; i < sizeof raws / sizeof raws[0]; i++)
			(void)sr_log__meta_to_ns(&v, raws[i]);
	}
	sr_log__meta_view_free(&v);
	free(copy);
}

static void
parse_ring(const unsigned char *bytes, size_t n)
{
	unsigned char *copy = aligned_copy(bytes, n);
	sr_log_ring_view v;
	sr_error err;
	int rc = sr_log__ring_file_parse(copy, n, "fuzz.ring", &v, &err);
	if (rc != SR_OK) {
		check_refusal(rc, &err, "fuzz.ring");
		free(copy);
		return;
	}
	FUZZ_CHECK(v.kind == SR_LOG_RING_FILE_THREAD || v.kind == SR_LOG_RING_FILE_SHARED, "kind %d", v.kind);
	FUZZ_CHECK(v.ring.slots >= copy && v.ring.bytes <= n && (size_t)(v.ring.slots - copy) <= n - v.ring.bytes,
	    "slots outside the file: at %td, %zu bytes of %zu", v.ring.slots - copy, v.ring.bytes, n);
	FUZZ_CHECK((v.available != NULL) == (v.kind == SR_LOG_RING_FILE_SHARED), "flags of kind %d", v.kind);
	FUZZ_CHECK(v.written <= v.cursor && v.pending <= v.cursor && v.written >= -1 && v.pending >= -1,
	    "sequences: written %lld, pending %lld, cursor %lld", (long long)v.written, (long long)v.pending,
	    (long long)v.cursor);
	FUZZ_CHECK(strlen(v.name) < sizeof v.name, "name");
	/* What recovery reads first: the flags and the first slots after written. */
	for (int64_t s = v.written + 1, k = 0; s <= v.cursor && k < 64; s++, k++) {
		int64_t mark;
		memcpy(&mark, &v.skipped[s & v.ring.mask], sizeof mark);
		(void)sr_log__ring_view_published(&v, s);
		volatile unsigned char first = *(const unsigned char *)sr_ring_slot(&v.ring, s);
		(void)first;
	}
	free(copy);
}

static void
put_u64(unsigned char *p, uint64_t v)
{
	memcpy(p, &v, sizeof v);
}

/*
 * The meta file as recovery gets it: the sink path replaced (its checksum
 * kept valid if it was, or made valid with FIX_META_HEAD), the entries'
 * checksums fixed with FIX_META_ENTRIES, the write in flight pointed at the
 * sink file with FLIGHT_SINK.
 */
static void
prepare_meta(unsigned char *m, size_t n, unsigned flags, const struct stat *sink)
{
	if (n < sizeof(sr_log_ring_meta_head))
		return;
	sr_log_ring_meta_head h;
	memcpy(&h, m, sizeof h);
	size_t sum_at = offsetof(sr_log_ring_meta_head, checksum);
	bool valid = sr_log__fnv1a64(&h, sum_at) == h.checksum;
	if (h.path_len > 0 && h.path_len <= SR_LOG_RING_META_PATH) {
		memset(h.path, 0, sizeof h.path);
		size_t len = strlen(sink_path);
		memcpy(h.path, sink_path, len);
		h.path_len = (uint32_t)len;
	}
	if (valid || (flags & FIX_META_HEAD))
		h.checksum = sr_log__fnv1a64(&h, sum_at);
	memcpy(m, &h, sum_at + sizeof h.checksum);
	if (flags & FLIGHT_SINK) {
		put_u64(m + offsetof(sr_log_ring_meta_head, flight_dev), (uint64_t)sink->st_dev);
		put_u64(m + offsetof(sr_log_ring_meta_head, flight_ino), (uint64_t)sink->st_ino);
	}
	if (flags & FIX_META_ENTRIES) {
		for (size_t at = SR_LOG_RING_DIR_PAGE; at < n && n - at >= sizeof(sr_log_meta_entry);) {
			sr_log_meta_entry e;
			memcpy(&e, m + at, sizeof e);
			if (e.bytes < sizeof e || e.bytes > n - at)
				break;
			e.checksum = sr_log__meta_entry_checksum(m + at, e.bytes);
			memcpy(m + at + offsetof(sr_log_meta_entry, checksum), &e.checksum, sizeof e.checksum);
			at += e.bytes;
		}
	}
}

static void
prepare_ring(unsigned char *r, size_t n, unsigned flags, const unsigned char *meta, size_t meta_n)
{
	if (n < sizeof(sr_log_ring_file_head))
		return;
	sr_log_ring_file_head h;
	memcpy(&h, r, sizeof h);
	if (flags & FIX_RING_SIZE)
		h.file_bytes = (int64_t)n;
	if ((flags & SAME_LOGGER) && meta != NULL && meta_n >= sizeof(sr_log_ring_meta_head)) {
		memcpy(&h.pid, meta + offsetof(sr_log_ring_meta_head, pid), sizeof h.pid);
		memcpy(&h.instance, meta + offsetof(sr_log_ring_meta_head, instance), sizeof h.instance);
	}
	if (flags & FIX_RING_HEAD)
		h.checksum = sr_log__ring_file_head_checksum(&h);
	memcpy(r, &h, sizeof h);
}

static void
write_file(const char *name, const unsigned char *bytes, size_t n)
{
	char path[160];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	FUZZ_CHECK(fd >= 0, "create %s: %s", path, strerror(errno));
	size_t done = 0;
	while (done < n) {
		ssize_t w = write(fd, bytes + done, n - done);
		FUZZ_CHECK(w > 0, "write %s: %s", path, strerror(errno));
		done += (size_t)w;
	}
	close(fd);
}

static bool
exists(const char *name)
{
	char path[160];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

static void
remove_file(const char *name)
{
	char path[160];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FUZZ_CHECK(unlink(path) == 0 || errno == ENOENT, "remove %s: %s", path, strerror(errno));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (log_into == NULL)
		set_up();
	fuzz_reader in = { data, size };
	unsigned flags = fuzz_u8(&in);
	int rings = 1 + fuzz_u8(&in) % MAX_RINGS;
	size_t sink_bytes = (size_t)fuzz_u8(&in) * 64;
	(void)fuzz_u8(&in);
	size_t len[1 + MAX_RINGS];
	for (int i = 0; i <= rings; i++)
		len[i] = fuzz_u32(&in);
	unsigned char *file[1 + MAX_RINGS];
	for (int i = 0; i <= rings; i++) {
		if (len[i] > in.n)
			len[i] = in.n;
		file[i] = (unsigned char *)fuzz_strndup_exact(in.p, len[i]);
		in.p += len[i];
		in.n -= len[i];
	}

	/* The tracked sink: a file of the directory's own, of the input's size. */
	unsigned char *sink_text = malloc(sink_bytes + 1);
	memset(sink_text, 'x', sink_bytes);
	for (size_t i = 63; i < sink_bytes; i += 64)
		sink_text[i] = '\n';
	write_file("sink.log", sink_text, sink_bytes);
	free(sink_text);
	struct stat sink;
	FUZZ_CHECK(stat(sink_path, &sink) == 0, "stat %s", sink_path);

	bool with_meta = !(flags & NO_META);
	prepare_meta(file[0], len[0], flags, &sink);
	for (int i = 1; i <= rings; i++)
		prepare_ring(file[i], len[i], flags, with_meta ? file[0] : NULL, len[0]);

	/* 1. The parsers, on the bytes. */
	parse_meta(file[0], len[0]);
	for (int i = 1; i <= rings; i++)
		parse_ring(file[i], len[i]);

	/* 2. Recovery, from the files. */
	char name[32];
	if (with_meta)
		write_file("1-1.meta", file[0], len[0]);
	for (int i = 1; i <= rings; i++) {
		snprintf(name, sizeof name, "1-1-%d.ring", i - 1);
		write_file(name, file[i], len[i]);
	}
	sr_log_recovery report;
	sr_error err;
	int rc = sr_log_recover(log_into, dir, &report, &err);
	/* A refused directory stays as it was; a recovered one loses its files. */
	bool kept = !with_meta || exists("1-1.meta");
	for (int i = 1; i <= rings; i++) {
		snprintf(name, sizeof name, "1-1-%d.ring", i - 1);
		kept = kept && exists(name);
	}
	if (rc != SR_OK) {
		FUZZ_CHECK(rc == SR_EFORMAT || rc == SR_ESYS || rc == SR_ENOMEM, "rc %d: %s", rc, err.message);
		FUZZ_CHECK(memchr(err.message, '\0', sizeof err.message) != NULL, "message not terminated");
		FUZZ_CHECK(rc != SR_EFORMAT || kept, "a file was removed though recovery refused: %s", err.message);
	} else {
		FUZZ_CHECK(report.rings == (uint32_t)rings && report.loggers == 1, "%u rings, %u loggers of %d rings",
		    report.rings, report.loggers, rings);
		FUZZ_CHECK(!exists("1-1.meta") && !exists("1-1-0.ring"), "recovered files left in the directory");
	}

	remove_file("1-1.meta");
	for (int i = 1; i <= rings; i++) {
		snprintf(name, sizeof name, "1-1-%d.ring", i - 1);
		remove_file(name);
	}
	remove_file("sink.log");
	remove_file("lock");
	for (int i = 0; i <= rings; i++)
		free(file[i]);
	return 0;
}
