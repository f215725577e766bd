/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_ctf_writer_internal.h: the writer of a ctf: sink's trace
 * (internal).  The sink room opens one per ctf: sink and hands it every
 * event the sink takes; the writer copies the record's encoded arguments
 * into its thread's stream, never formats them.
 *
 * Files: sr_log_ctf_classes.c (the event classes and the metadata they are
 * declared in), sr_log_ctf_streams.c (streams, packets, their files),
 * sr_log_ctf_previous.c (the directory taken for this run, a previous
 * run's trace kept aside), sr_log_ctf_writer.c (open, put, flush, close:
 * the face the sink calls).
 *
 * Who touches what.  The consumer (how BUFFERED: one thread at a time, the
 * consumer or a sync-mode caller under its mutex) owns the consumer streams
 * and their buffers, and a cache of event classes.  Callers writing now
 * (how NOW) hold the sink's lock and own the direct streams.  The table of
 * classes and the metadata file are shared: `classes_lock` guards them.
 * The crash handler (how RAW) takes no lock it could wait on and never
 * allocates: it writes what the consumer streams hold, then each event as a
 * packet of its own.
 */
#ifndef SR_LOG_CTF_WRITER_INTERNAL_H
#define SR_LOG_CTF_WRITER_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "sr_log_ctf_format_internal.h"
#include "sr_log_event_internal.h"

/* How an event reaches the writer (the sink room's enum sr_log_dispatch, same values). */
enum sr_ctf_how { SR_CTF_BUFFERED = 0, SR_CTF_NOW = 1, SR_CTF_RAW = 2 };

typedef struct sr_log_ctf_options {
	const char *dir;
	unsigned file_mode;           /* new files' permission bits */
	size_t packet_bytes;          /* a stream's buffer: packets are written when it is full, or at flush */
	size_t max_record;            /* the largest record: a buffer always holds one such event */
	uint64_t max_file_bytes;      /* rotate a stream file past this size (0: never) */
	int keep_files;               /* rotated files kept per stream */
	const sr_atomic_i64 *dropped; /* the logger's drop counters (SR_LOG_LEVEL_COUNT): events_discarded */
} sr_log_ctf_options;

/* What the writer did, for sr_log_stats (relaxed counters). */
typedef struct sr_log_ctf_counters {
	uint64_t events, bytes, writes, errors, lost_events, rotations, classes, streams;
} sr_log_ctf_counters;

/* One event class: what an event of it carries, fixed when it is declared. */
typedef struct sr_ctf_class {
	const sr_site *site;          /* key: NULL for the logger's own text */
	const void *category;         /* key: the record's category object (NULL: text, or the root) */
	uint32_t level_kind;          /* key: level | kind << 8 | backtrace << 12 */
	uint32_t id;
	uint8_t kind;                 /* enum sr_ctf_kind */
	bool uses_errno;
	uint8_t nstrings;
	uint16_t value_bytes;
	uint16_t string_len_at[SR_SITE_MAX_ARGS]; /* offset of each %s's length field in the value area */
} sr_ctf_class;

/* Streams the consumer finds by tid without a search (threads' records come interleaved by time). */
#define SR_CTF_STREAM_CACHE 256

/* One stream: one thread's events of one origin, in one file. */
typedef struct sr_ctf_stream {
	uint32_t tid;
	uint8_t origin;               /* enum sr_ctf_origin */
	bool dirty;                   /* on the list of streams with bytes to write */
	uint64_t instance_id;
	uint64_t packet_seq_num;      /* the next packet's */
	uint64_t events_discarded;    /* cumulative, as the last packet said */
	int fd;                       /* -1: closed (reopened by name when needed) */
	uint64_t file_bytes;          /* bytes in the current file */
	uint64_t idle_flushes;        /* flushes since it last had an event */
	char name[16];                /* the open packet's thread name */
	struct sr_ctf_class *fast_class; /* the consumer's: the class of this stream's last plain message */
	/* The buffer: whole packets, then the open packet from `packet_at`. */
	unsigned char *buf;
	size_t len, cap, packet_at;
	uint32_t packet_events;       /* events in the open packet */
	uint32_t buffered_events;     /* events in the buffer (lost together if its write fails) */
	uint64_t ts_begin, ts_end;    /* the open packet's */
	uint64_t last_ts;             /* the stream's latest event (its times never go back) */
} sr_ctf_stream;

/* A table of streams keyed by (tid, origin), owned by one side (consumer or direct). */
typedef struct sr_ctf_stream_table {
	sr_ctf_stream **slot;         /* open addressing; NULL: empty */
	size_t cap, count;
	sr_ctf_stream **dirty;        /* streams with bytes to write */
	size_t dirty_count;
	sr_ctf_stream *last;          /* the last one used: a thread's events come in runs */
	sr_ctf_stream *by_tid[SR_CTF_STREAM_CACHE]; /* consumer-origin streams by tid, direct-mapped */
	uint64_t flushes;
} sr_ctf_stream_table;

#define SR_CTF_CLASS_CACHE 256

typedef struct sr_log_ctf {
	sr_log_ctf_options opt;
	char *dir;
	uint8_t uuid[16];
	char uuid_text[40];
	/* Guards classes, class_count and the metadata file. */
	pthread_mutex_t classes_lock;
	sr_ctf_class **classes;       /* open addressing by key; NULL: empty */
	size_t classes_cap, class_count;
	sr_ctf_class *pool;           /* classes are carved from pools, never moved (caches point at them) */
	size_t pool_used, pool_cap;
	void **pools;                 /* every pool, for close */
	size_t pool_count;
	int metadata_fd;
	int lock_fd;                  /* DIR/.lock, held for the writer's life (sr_log_ctf_previous.c) */
	sr_atomic_i64 next_instance;  /* a counter: no data rides on it */
	/* The consumer's. */
	sr_ctf_class *cache[SR_CTF_CLASS_CACHE];
	sr_ctf_stream_table consumer;
	uint64_t attributed_drops;    /* drops already carried by some packet */
	/* The callers' that write now (under the sink's lock). */
	sr_ctf_stream_table direct;
	/* Counters (relaxed). */
	sr_atomic_i64 events, bytes, writes, errors, lost_events, rotations;
	bool write_failed_reported;
	bool made_dir;                /* this open made the directory (abandon removes it) */
} sr_log_ctf;

/* ---- sr_log_ctf_writer.c: the face ---- */

/* Makes the directory (if missing) and its metadata; refuses a directory that holds a trace. */
int sr_log__ctf_open(sr_log_ctf **out, const sr_log_ctf_options *o, sr_error *err);
/* Appends ev to its stream (how: enum sr_ctf_how); false when it is lost (counted). */
bool sr_log__ctf_put(sr_log_ctf *t, const sr_log_event *ev, int how);
/* Writes the consumer streams' packets (the crash handler too: no allocation, no lock); returns the events lost. */
uint64_t sr_log__ctf_flush(sr_log_ctf *t);
/*
 * The consumer is behind (more records wait than a batch takes): writes
 * only the consumer streams whose buffer is half full; the others keep
 * their open packet for the next batch, so that a batch spread over many
 * threads costs a few writes, not one per thread.  The next batch end that
 * is not behind (the consumer caught up, a flush asked) writes them all.
 */
uint64_t sr_log__ctf_flush_behind(sr_log_ctf *t);
/* Writes what is left, closes the files, frees the writer. */
void sr_log__ctf_close(sr_log_ctf *t);
/*
 * A logger's open failed after this sink opened: the trace it began (its
 * metadata and lock files, and the directory if open made it) is removed
 * when no event was written, so that the configuration put right opens
 * there; then as sr_log__ctf_close.
 */
void sr_log__ctf_abandon(sr_log_ctf *t);
/* The reopen signal: every file is opened again by name (a moved metadata file is written whole again). */
void sr_log__ctf_reopen(sr_log_ctf *t);
/*
 * In a forked child: the parent's streams are the parent's; the child
 * writes a trace of its own in DIR.PID (one stderr line says where).
 */
void sr_log__ctf_after_fork(sr_log_ctf *t);
void sr_log__ctf_counters(const sr_log_ctf *t, sr_log_ctf_counters *c);

/* ---- sr_log_ctf_classes.c ---- */

/* The class of ev (declared in the metadata first if new); NULL when it cannot be (counted by the caller). */
sr_ctf_class *sr_log__ctf_class_of(sr_log_ctf *t, const sr_log_event *ev, int how);
/* Writes the metadata's head: the trace, its clock, its stream class (at open, after a fork). */
int sr_log__ctf_metadata_begin(sr_log_ctf *t, sr_error *err);
/* Writes the metadata whole again (head and every class) into a new file. */
int sr_log__ctf_metadata_rewrite(sr_log_ctf *t);
void sr_log__ctf_classes_free(sr_log_ctf *t);

/* ---- sr_log_ctf_previous.c ---- */

/*
 * Makes the trace directory this run's: made if missing, locked; a trace a
 * previous writer left there trimmed to whole packets and kept as DIR.1
 * (older ones renumbered), DIR made afresh.  SR_ESTATE when a live writer
 * holds it.
 */
int sr_log__ctf_take_dir(sr_log_ctf *t, sr_error *err);

/* ---- sr_log_ctf_streams.c ---- */

/* The stream of (tid, origin) in table, made if new (never in raw); NULL when it cannot be. */
sr_ctf_stream *sr_log__ctf_stream_of(sr_log_ctf *t, sr_ctf_stream_table *table, uint32_t tid, int origin,
    bool raw);
/*
 * Room for an event of `bytes` in s's open packet, for a thread named
 * `name`: ends the packet first when the name changes, writes the buffer
 * when it is full.  Returns where the event goes, or NULL (lost).
 */
unsigned char *sr_log__ctf_stream_reserve(sr_log_ctf *t, sr_ctf_stream_table *table, sr_ctf_stream *s,
    const char *name, size_t bytes);
/* The event just written at the end of s's buffer (reserved, or found room for): its time and size. */
static inline void
sr_log__ctf_stream_commit(sr_ctf_stream *s, uint64_t ts, size_t bytes)
{
	s->len += bytes;
	if (s->packet_events == 0)
		s->ts_begin = ts;
	s->ts_end = ts;
	s->last_ts = ts;
	s->packet_events++;
	s->buffered_events++;
	s->idle_flushes = 0;
}
/* Writes every dirty stream of table (only those min_bytes full and more, the others kept dirty); returns the events lost. */
uint64_t sr_log__ctf_streams_flush(sr_log_ctf *t, sr_ctf_stream_table *table);
uint64_t sr_log__ctf_streams_flush_full(sr_log_ctf *t, sr_ctf_stream_table *table, size_t min_bytes);
/* The crash handler: ev as one packet of its own, appended to its stream's file (no allocation). */
bool sr_log__ctf_stream_write_single(sr_log_ctf *t, sr_ctf_stream *s, uint32_t tid, int origin,
    const char *name, uint64_t ts, const struct iovec *iov, int iovcnt, size_t bytes);
/* Closes every file of table (reopen, fork) or frees it (close). */
void sr_log__ctf_streams_close_files(sr_ctf_stream_table *table);
void sr_log__ctf_streams_free(sr_ctf_stream_table *table);
/* The next stream's instance id. */
uint64_t sr_log__ctf_next_instance(sr_log_ctf *t);

#endif /* SR_LOG_CTF_WRITER_INTERNAL_H */
