/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_ring_dir_internal.h: the ring directory (config.ring_dir): the
 * logger's rings in files, and what a record needs to be read without the
 * process that wrote it (internal).
 *
 * A logger opened with a ring directory holds an open-file-description
 * lock on DIR/lock for as long as it is open: the kernel drops it when the
 * process dies, however it dies, so a lock that can be taken means that
 * whatever else lies in the directory belongs to a process that is gone
 * (a pid could have been reused; the lock cannot lie).  Its files:
 *
 *   PID-N.meta         the process's catalogue (sr_log_ring_meta): a header
 *                      page, mapped shared (the clock's calibration, the
 *                      tracked sink's write in flight), then entries
 *                      appended with write(2) before the first record that
 *                      needs them is published: every call site (format,
 *                      file, function, line, level, home category) and
 *                      every category (its name), each by the address the
 *                      records carry
 *   PID-N-K.ring       one ring (sr_log_ring_file): a header page, the
 *                      sequencer (its cursor), the written and pending
 *                      sequences, the multi-producer flags, then the slots
 *
 * Every file's space is reserved when it is made (posix_fallocate): a full
 * disk is an error at open or at a thread's first call, never a SIGBUS in
 * a log call.  A clean close removes the logger's files; what a dead
 * process left is read (sr_log_ring_file_parse, sr_log_ring_meta_parse:
 * bytes in memory, every offset checked) and removed by recovery
 * (logger/recovery/).
 *
 * Exactly once, for the tracked sink (the first file sink): before each
 * write of its buffer on the consumer thread, every ring's pending
 * sequence is set to what the write covers (the ring's handled_seq), then
 * the meta header's write in flight (the file's device, inode and size,
 * and the size after the write); after the write, written = pending and
 * the write is no longer in flight.  Recovery starts after pending when
 * the file holds the whole write, after written when it holds none of it,
 * and cuts the file back to its size before the write when it holds part
 * of it (a kill inside write(2)), so that no line is written twice or
 * half.
 */
#ifndef SR_LOG_RING_DIR_INTERNAL_H
#define SR_LOG_RING_DIR_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sr_error.h"
#include "sr_log_internal.h"
#include "sr_ring.h"
#include "sr_sequence.h"
#include "sr_sequencer.h"

/* ---- the files' layouts (fields little-endian, as the machine's; same-machine files) ---- */

#define SR_LOG_RING_FILE_MAGIC "SRLOGRNG"
#define SR_LOG_RING_META_MAGIC "SRLOGMET"
#define SR_LOG_RING_DIR_VERSION 1u
/* The header pages: the first page of each file. */
#define SR_LOG_RING_DIR_PAGE 4096
/* The longest path of a tracked sink the meta header keeps. */
#define SR_LOG_RING_META_PATH 1024

/* Ring kinds (sr_log_ring_file_head.kind). */
enum { SR_LOG_RING_FILE_THREAD = 1, SR_LOG_RING_FILE_SHARED = 2 };

/*
 * A ring file's header, at offset 0.  Written by its maker before the
 * file's first record, then only read, but for the writer (tid, name),
 * which a spare's next thread sets while the ring is drained.  Offsets are
 * from the file's start.
 */
typedef struct sr_log_ring_file_head {
	char magic[8];                /* SR_LOG_RING_FILE_MAGIC */
	uint32_t version;             /* SR_LOG_RING_DIR_VERSION */
	uint32_t head_bytes;          /* sizeof(sr_log_ring_file_head) */
	uint32_t kind;                /* SR_LOG_RING_FILE_THREAD or _SHARED */
	uint32_t slot_size;
	int64_t slot_count;           /* a power of two */
	int64_t pid;
	uint64_t instance;            /* the meta file's: which logger of the process */
	uint32_t tid;                 /* a thread ring's writer when it was made (renames are records) */
	char name[16];                /* and its name, "" for none */
	uint32_t sequencer_bytes;     /* sizeof(sr_sequencer) of the writer */
	int64_t sequencer_offset;     /* the sequencer: its cursor is the ring's published (SP) or claimed (MP) end */
	int64_t written_offset;       /* sr_sequence: every record up to it reached the tracked sinks */
	int64_t pending_offset;       /* sr_sequence: what the tracked sink's write in flight covers */
	int64_t available_offset;     /* MP: int64 flags, available[s & mask] == s once s is published; 0 SP */
	int64_t skipped_offset;       /* MP: int64 marks, skipped[s & mask] == s + 1 (content-less); 0 SP */
	int64_t slots_offset;
	int64_t file_bytes;
	uint64_t checksum;            /* FNV-1a of every byte before it, tid and name as 0 */
} sr_log_ring_file_head;

/* The meta file's header, at offset 0 (the page is mapped shared). */
typedef struct sr_log_ring_meta_head {
	char magic[8];                /* SR_LOG_RING_META_MAGIC */
	uint32_t version;
	uint32_t head_bytes;
	int64_t pid;
	uint64_t instance;
	int64_t opened_ns;            /* CLOCK_REALTIME at open */
	int32_t clock;                /* sr_log_clock of the records' timestamps */
	uint32_t path_len;            /* the tracked sink's path (0: none) */
	char path[SR_LOG_RING_META_PATH];
	uint64_t checksum;            /* FNV-1a of every byte before it */
	/*
	 * Written while the process runs, read after it died.  The clock: a
	 * tsc record converts as ns0 + (tsc - tsc0) * rate (raw ns for the
	 * other clocks), the consumer's latest calibration, under a sequence
	 * lock (clock_version odd while it changes).
	 */
	sr_atomic_i64 clock_version;
	sr_atomic_i64 clock_seg[5];   /* tsc0, ns0, tsc1, slewed rate bits, rate bits (sr_log_clock.c) */
	/* The tracked sink's write in flight (set by the consumer; 0 in_flight: none). */
	sr_atomic_i64 in_flight;
	sr_atomic_i64 flight_dev, flight_ino, flight_from, flight_to;
} sr_log_ring_meta_head;

/* Entries of the meta file, after its header page: a fixed part, then its strings. */
enum { SR_LOG_META_SITE = 1, SR_LOG_META_CATEGORY = 2 };
typedef struct sr_log_meta_entry {
	uint32_t kind;                /* SR_LOG_META_* */
	uint32_t bytes;               /* this entry's, strings included */
	uint64_t address;             /* what records carry: the sr_site or sr_category */
	uint64_t home_cat;            /* a site's home category's address (0: none) */
	int32_t line;                 /* a site's */
	int32_t level;
	uint32_t len[3];              /* a site: format, file, function; a category: name, 0, 0 */
	uint32_t checksum;            /* FNV-1a of the entry with this field 0 */
} sr_log_meta_entry;
/* The most bytes an entry may hold (its strings cut to fit, marked). */
#define SR_LOG_META_ENTRY_MAX 8192

/* ---- one ring in a file (sr_log_ring_file.c) ---- */

typedef struct sr_log_ring_file {
	char *path;
	unsigned char *base;          /* the mapping, file_bytes long */
	size_t bytes;
	sr_log_ring_file_head *head;
	sr_sequence *written, *pending;
	struct sr_log_ring_file *next;  /* its directory's list of files (under the directory's lock) */
} sr_log_ring_file;

/*
 * Makes DIR/PID-INSTANCE-INDEX.ring for a ring of slot_count x slot_size
 * (kind SR_LOG_RING_FILE_*, tid and name the writer's), reserves its
 * space and maps it shared; the sequencer is built in it (producer mode
 * of config) and the ring viewed over its slots.  NULL with *err set
 * (naming the path and the cause) when it cannot.
 */
sr_log_ring_file *sr_log__ring_file_make(const char *dir, int64_t pid, uint64_t instance, int index,
    int kind, int64_t slot_count, size_t slot_size, uint32_t tid, const char *name,
    const sr_sequencer_config *config, sr_ring *ring_out, sr_sequencer **seq_out, sr_error *err);
/* The header's checksum: FNV-1a of the bytes before it, the writer's tid and name as 0. */
uint64_t sr_log__ring_file_head_checksum(const sr_log_ring_file_head *h);
/* A drained spare's file for a new thread: its writer's tid and name. */
void sr_log__ring_file_set_writer(sr_log_ring_file *f, uint32_t tid, const char *name);
/* The sequencer in f. */
sr_sequencer *sr_log__ring_file_sequencer(const sr_log_ring_file *f);
/* Unmaps f (and frees it); removes its file when unlink_file. */
void sr_log__ring_file_close(sr_log_ring_file *f, bool unlink_file);
/* In a forked child: the mapping becomes private memory at the same address (copied). */
int sr_log__ring_file_privatize(sr_log_ring_file *f);

/* A ring file a dead process left, read into memory and checked (sr_log_ring_file_read.c). */
typedef struct sr_log_ring_view {
	int kind;
	int64_t pid;
	uint64_t instance;
	uint32_t tid;
	char name[16];
	sr_ring ring;                 /* a view over the slots in the bytes */
	int64_t cursor;               /* SP: published end; MP: claimed end */
	int64_t written, pending;
	const int64_t *available;     /* MP: the flags; NULL for SP */
	const int64_t *skipped;
	int64_t claimed_unpublished;  /* SP: claimed past the cursor (the sequencer's own note) */
} sr_log_ring_view;

/* The highest cursor a ring file may hold (a view's sequences are at most this). */
#define SR_LOG_RING_MAX_SEQUENCE (INT64_C(1) << 62)

/*
 * Checks bytes (a whole ring file, n bytes, at an address aligned to 64)
 * and fills *v; SR_EFORMAT with *err naming `what`, the offset and what
 * was expected when anything is out of place.  Never reads outside bytes.
 */
int sr_log__ring_file_parse(const unsigned char *bytes, size_t n, const char *what, sr_log_ring_view *v,
    sr_error *err);
/* MP: whether sequence s is published (its flag says this lap). */
bool sr_log__ring_view_published(const sr_log_ring_view *v, int64_t s);

/* A dead process's meta file, read into memory and checked (sr_log_ring_meta_read.c). */
typedef struct sr_log_meta_site {
	uint64_t address, home_cat;
	int32_t line, level;
	const char *format, *file, *function;   /* NUL-terminated copies in the view's text */
} sr_log_meta_site;
typedef struct sr_log_meta_category {
	uint64_t address;
	const char *name;
} sr_log_meta_category;
typedef struct sr_log_meta_view {
	int64_t pid;
	uint64_t instance;
	int64_t opened_ns;
	int32_t clock;
	char path[SR_LOG_RING_META_PATH + 1];  /* the tracked sink's, "" for none */
	int64_t clock_seg[5];
	bool in_flight;
	int64_t flight_dev, flight_ino, flight_from, flight_to;
	sr_log_meta_site *sites;      /* sorted by address */
	size_t site_count;
	sr_log_meta_category *categories; /* sorted by address */
	size_t category_count;
	size_t torn;                  /* bytes at the end that hold no whole entry (a write the death cut) */
	char *text;                   /* the strings */
} sr_log_meta_view;

/*
 * Checks bytes (a whole meta file) and fills *v (free it with
 * sr_log__meta_view_free); SR_EFORMAT naming `what` and the offset for a
 * bad header or entry (a torn last entry is not an error: counted in
 * torn), SR_ENOMEM.
 */
int sr_log__ring_meta_parse(const unsigned char *bytes, size_t n, const char *what, sr_log_meta_view *v,
    sr_error *err);
void sr_log__meta_view_free(sr_log_meta_view *v);
const sr_log_meta_site *sr_log__meta_find_site(const sr_log_meta_view *v, uint64_t address);
const sr_log_meta_category *sr_log__meta_find_category(const sr_log_meta_view *v, uint64_t address);
/*
 * A raw timestamp of the dead process as ns since the epoch (its clock and
 * calibration); opened_ns for one the calibration cannot map in range.
 */
int64_t sr_log__meta_to_ns(const sr_log_meta_view *v, int64_t raw);

/* ---- the directory and its catalogue (sr_log_ring_dir.c) ---- */

typedef struct sr_log_ring_dir sr_log_ring_dir;

/*
 * Opens dir for log (made if missing, one level): takes DIR/lock (SR_ESTATE
 * naming the directory when a live process holds it), lists what a dead
 * process left (sr_log__ring_dir_leftovers), makes this process's meta
 * file and writes every category of log so far and every site of the
 * process's catalogue into it.
 */
int sr_log__ring_dir_open(sr_log *log, const char *dir, sr_error *err);
/* DIR/lock taken into *fd (an open-file-description lock); SR_ESTATE when a live logger holds it. */
int sr_log__ring_dir_lock(const char *dir, int *fd, sr_error *err);
/* The .meta and .ring files in dir, sorted by name (free with sr_log__ring_dir_list_free). */
int sr_log__ring_dir_list(const char *dir, char ***names, int *count, sr_error *err);
void sr_log__ring_dir_list_free(char **names, int count);
/* Closes it: clean (the logger drained) removes its files; releases the lock. */
void sr_log__ring_dir_close(sr_log *log, bool clean);
/* The directory's path, or NULL when the logger has none. */
const char *sr_log__ring_dir_path(const sr_log *log);
/* The files a dead process left (names relative to the directory), as listed at open. */
int sr_log__ring_dir_leftovers(const sr_log *log, char ***names);
/* The next ring's file (kind SR_LOG_RING_FILE_*), as sr_log__ring_file_make. */
sr_log_ring_file *sr_log__ring_dir_make_ring(sr_log *log, int kind, int64_t slot_count, size_t slot_size,
    uint32_t tid, const char *name, const sr_sequencer_config *config, sr_ring *ring_out,
    sr_sequencer **seq_out, sr_error *err);
/* Whether log has a ring directory it makes files in (not a forked child's copy). */
bool sr_log__ring_dir_active(const sr_log *log);
/*
 * A ring's file closed: removed when written (every record reached the
 * sinks), else kept for the next open to recover (and the meta file with
 * it).  A forked child's copy (log without an active directory) never
 * removes a file: each is the parent's.
 */
void sr_log__ring_dir_ring_closed(sr_log *log, sr_log_ring_file *f, bool written);
/*
 * After a shutdown drained the logger: every ring file written to its end
 * is removed now, and the meta file when none is left with records (a
 * process that exits without sr_log_close leaves nothing to recover).  The
 * mappings stay until close.
 */
void sr_log__ring_dir_settle(sr_log *log);
/* A thread's ring file could not be made: said once on stderr, with why. */
void sr_log__ring_dir_refused(sr_log *log, const char *why);
/* The meta header (the clock and the tracked write are written through it). */
sr_log_ring_meta_head *sr_log__ring_dir_meta(const sr_log *log);
/* A category of log, into its meta file (before the category is handed out); nothing without a directory. */
void sr_log__ring_dir_note_category(sr_log *log, const sr_category *cat);
/* Sets the tracked sink's path in the meta header (NULL: none; at open, before any record). */
void sr_log__ring_dir_track_path(sr_log *log, const char *path);
/* Stores the logger's tsc calibration (or nothing for the other clocks) into the meta header. */
void sr_log__ring_dir_note_clock(sr_log *log);
/* What recovery did, for sr_log_describe (set once by recovery). */
typedef struct sr_log_ring_dir_recovery {
	bool done;
	int64_t pid;
	uint64_t records, unpublished, unresolved;
	bool cut_write;
} sr_log_ring_dir_recovery;
sr_log_ring_dir_recovery *sr_log__ring_dir_recovery(const sr_log *log);
/* fork, in the child: this process's rings and meta become private memory; the lock is let go. */
void sr_log__ring_dir_after_fork_child(sr_log *log);

/*
 * The process's catalogue of sites (sr_log_site_catalogue.c): a site's
 * first call (before its copy decision is published, so before any record
 * of it) writes its entry into the process's journal of sites and into
 * the meta file of every logger open with a ring directory; with_home
 * once its home category is bound (again, with it).  A thread that finds
 * another writing the same site's entry waits for it, unless it is that
 * thread (a signal handler's call nested in it).  The journal keeps copies
 * of the entries, not the sites: a logger opened later writes the journal
 * into its new meta file, and a site that did not outlive its calls
 * leaves nothing dangling.
 */
void sr_log__site_catalogue_add(sr_site *site, bool with_home);
/* Appends one entry (n bytes) to a meta file: the directory's (sr_log__ring_dir_append); false when it failed. */
typedef bool sr_log_meta_append_fn(void *dir, const void *entry, size_t n);
/*
 * Writes the journal into d's meta file through append and adds d to the
 * directories every later site's entry is appended to; detach takes it off.
 */
void sr_log__site_catalogue_attach(void *d, sr_log_meta_append_fn *append);
void sr_log__site_catalogue_detach(const void *d);
/* fork: the catalogue's mutex, taken before and let go after (SR_LOG_FORK_* phases). */
void sr_log__site_catalogue_fork(int phase);
/* Appends one entry (n bytes) to d's meta file (sr_log_ring_dir.c); false when the write failed. */
bool sr_log__ring_dir_append(sr_log_ring_dir *d, const void *entry, size_t n);
/*
 * A category's entry, and a site's (with its home category when
 * with_home), into buf (SR_LOG_META_ENTRY_MAX bytes); its size
 * (sr_log_meta_entry.c).
 */
size_t sr_log__meta_category_entry(const sr_category *cat, unsigned char *buf);
size_t sr_log__meta_site_entry(const sr_site *site, bool with_home, unsigned char *buf);

/* An entry's checksum: FNV-1a of its bytes with the checksum field as 0, folded to 32 bits. */
uint32_t sr_log__meta_entry_checksum(const unsigned char *p, size_t bytes);
/* FNV-1a, 64 bits, of n bytes (the headers' checksums). */
uint64_t sr_log__fnv1a64(const void *p, size_t n);

#endif /* SR_LOG_RING_DIR_INTERNAL_H */
