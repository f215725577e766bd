/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_sink_internal.h: the sinks' state, shared by sr_log_sinks.c (opening,
 * buffering, closing), sr_log_sink_write.c (writing), sr_log_sink_rotate.c
 * (rotation), sr_log_sink_behind.c (the write-behind), sr_log_sink_raw.c
 * (the crash handler's writes), and the
 * sink functions the rest of the logger calls (internal).
 */
#ifndef SR_LOG_SINK_INTERNAL_H
#define SR_LOG_SINK_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sr_log_internal.h"
#include "sr_log_layout_internal.h"

typedef struct sr_log_sink {
	sr_sink_config cfg;       /* cfg.path points to `path`, and the strings below to copies */
	char *path;
	char *copies[3];          /* cfg.pattern, cfg.syslog_address, cfg.syslog_app (owned) */
	int index;
	int layout;               /* its layout: an index into sinks->layouts */
	struct sr_log_syslog *syslog; /* SYSLOG only (sr_log_syslog_state_internal.h) */
	struct sr_log_journald *journald; /* JOURNALD only (logger/journald/) */
	bool takes_events;        /* JOURNALD with the default layout: the fanout hands it the event, no line */
	int fd;                   /* -1 for null, callback and syslog */
	bool owns_fd;
	bool may_sigpipe;         /* a pipe or socket */
	bool midline;             /* a failed write stopped inside a line (ended with a marker first) */
	/* Changed only under `lock`. */
	bool broken;              /* EPIPE: the reader is gone; writes are skipped */
	bool stalled;             /* a write timed out on EAGAIN: don't wait again yet */
	bool closed;
	sr_atomic_i32 reported;   /* the one stderr report was made */
	/* Serialises writes: the consumer's flushes against callers' (sync). */
	pthread_mutex_t lock;
	/*
	 * The consumer's buffer: only the consumer thread touches it (and the
	 * crash handler, the consumer parked).  buf_size bytes: cap, and for a
	 * direct sink room for a line past cap.
	 */
	char *buf;
	size_t len, cap, buf_size;
	/* FILE: the write-behind (sr_log_sink_behind_internal.h), or NULL. */
	struct sr_log_sink_behind *behind;
	uint64_t batch_messages;
	/* FILE with rotation (cfg.max_file_bytes or cfg.rotate_daily); under `lock`. */
	uint64_t file_bytes;      /* bytes in the current file */
	int64_t file_day;         /* UTC day (days since the epoch) of the current file */
	char *rot_name;           /* scratch for "path.N" */
	size_t rot_name_size;
	sr_atomic_i64 rotations;
	sr_atomic_i64 reopens;    /* FILE: sr_log_reopen or the reopen signal reopened it */
	/*
	 * FILE on a regular file: a write of SR_LOG_SINK_RESERVE_MIN bytes or
	 * more first reserves its range (sr_log_sink_write.c); false once the
	 * file system refused.  Under `lock`; set again by each open.
	 */
	bool reserves;
	uint64_t reserved_bytes;  /* what the reservations covered (the tests' evidence) */
	bool color;               /* FD on a terminal (or color always): the level is coloured */
	/* Counters (relaxed; several writers use add). */
	sr_atomic_i64 messages, bytes, writes, errors, lost_bytes, lost_messages;
	/* Lines the last write under `lock` lost (plain_write_locked, a callback); its caller takes them. */
	uint64_t lost_pending;
	/* The consumer's: lines lost by this batch's writes. */
	uint64_t batch_lost;
	/* The tracked sink's (sr_log__sinks_track): told before and after each write of its file. */
	const struct sr_log_sink_write_hook *hook;
	void *hook_ctx;
	/* CTF only: the trace's writer (sr_log_sink_ctf.c). */
	struct sr_log_ctf *ctf;
} sr_log_sink;

struct sr_log_sinks {
	int n;
	int min_level;            /* the lowest level any sink writes */
	sr_log_sink s[SR_LOG_MAX_SINKS];
	/* The distinct layouts of the sinks: 0 is the logger's; patterns past 0 are owned. */
	int layout_count;
	sr_log_layout_choice layouts[SR_LOG_MAX_SINKS + 1];
	/* Bit k: some sink that takes this level uses layout k (set at open). */
	unsigned layouts_for_level[SR_LOG_LEVEL_COUNT];
	/*
	 * Per layout: the one sink that takes its lines, when that sink is a
	 * file or descriptor that only buffers them (no colour, no rotation,
	 * room for a whole line): the consumer lays such lines straight into
	 * its buffer (sr_log__sinks_direct, sr_log__sink_line_room). -1 otherwise.
	 */
	int direct_sink[SR_LOG_MAX_SINKS + 1];
	/*
	 * Per level: when the level's records make lines of one layout k alone,
	 * direct_sink[k] takes them and nothing else takes the record (no
	 * trace, no journald events), that sink and k's layout; a NULL sink
	 * otherwise.  The consumer's straight path (sr_log_lane_internal.h)
	 * serves such a level (sr_log__sinks_sole).
	 */
	struct sr_log_sole_sink {
		struct sr_log_sink *sink;
		sr_log_layout layout;
	} sole[SR_LOG_LEVEL_COUNT];
	bool has_syslog;          /* a syslog sink frames with the event: callers render through fanout */
	bool has_ctf;             /* a ctf sink takes events: callers hand them through fanout */
	bool has_journald;        /* a journald sink sends the event's fields: callers render through fanout */
	bool journald_events;     /* a journald sink takes the event alone (takes_events) */
	int ctf_count;            /* the ctf sinks, by index into s[] (the fanout walks only these) */
	int ctf_sinks[SR_LOG_MAX_SINKS];
	/* sr_log_reopen and the reopen signal ask (1); the writer reopens and counts it done. */
	sr_atomic_i32 reopen_asked;
	sr_atomic_i64 reopen_done;
};

/* How a rendered line reaches its sinks. */
enum sr_log_dispatch {
	SR_DISPATCH_BUFFERED = 0, /* into the sinks' buffers (the consumer) */
	SR_DISPATCH_NOW = 1,      /* written now, under each sink's lock (a caller) */
	SR_DISPATCH_RAW = 2       /* the crash handler: no lock, async-signal-safe */
};

/* ---- for the rest of the logger (sr_log_sinks.c) ---- */

int sr_log__sinks_open(sr_log *log, const sr_sink_config *configs, int count, sr_error *err);
/* Flushes (consumer buffers), closes owned descriptors, calls close callbacks. */
void sr_log__sinks_close(sr_log *log);
/* After a failed open: closes the files this open made (descriptors stay the caller's). */
void sr_log__sinks_abandon(sr_log *log);
void sr_log__sinks_free(sr_log *log);
/*
 * Hands a line laid out with layout `layout` (-1: a line for every sink) to
 * the sinks that use it and take `level`, as `how` (enum sr_log_dispatch).
 * ev is the event the line was made from (syslog sinks frame with it), or
 * NULL for a line made elsewhere.
 */
void sr_log__dispatch_to(sr_log *log, int layout, int how, const sr_log_event *ev, int level,
    const char *line, size_t len);
/* At open, after the sinks: their layouts (compiles their patterns). */
int sr_log__sinks_layouts_open(sr_log *log, const sr_sink_config *configs, int count, sr_error *err);
void sr_log__sinks_layouts_free(struct sr_log_sinks *sinks);
/* "layout=json" or "layout=text (the logger's)" for describe. */
int sr_log__sink_layout_describe(const sr_log *log, const sr_log_sink *s, char *buf, size_t size);
/*
 * fork (phase 0 prepare, 1 parent, 2 child): takes every sink's lock, or
 * releases them; the child also empties the buffers (the parent writes them).
 */
void sr_log__sinks_fork(sr_log *log, int phase);
/*
 * The per-thread consumer's backend, before its consumer starts (and again
 * in a forked child): starts the write-behind of every file sink that may
 * have one (sr_log_sink_behind_internal.h).  A sink whose writer cannot
 * start writes as before.
 */
void sr_log__sinks_behind_start(sr_log *log);
/*
 * The crash handler, the consumer still running: waits until deadline_ns
 * for every sink's writer to have written what was handed to it by the
 * call.  True when all have (those lines are in the files).
 * Async-signal-safe.
 */
bool sr_log__sinks_behind_wait_raw(sr_log *log, int64_t deadline_ns);
/*
 * Consumer, at the end of each batch: the lines the file sinks' writers
 * lost since the last call (failed writes: counted as the consumer's own).
 */
uint64_t sr_log__sinks_take_behind_lost(sr_log *log);
/* Consumer: appends a line to every qualifying sink's buffer (callbacks: calls them). */
void sr_log__dispatch_buffered(sr_log *log, int level, const char *line, size_t len);
/*
 * Consumer: writes every sink's buffer, calls flush callbacks, publishes
 * sink counters.  Returns the lines that did not reach a sink since the
 * last call (with several sinks, the most any one sink lost).
 */
uint64_t sr_log__sinks_flush(sr_log *log);
/* As sr_log__sinks_flush, when the consumer is behind: a ctf sink writes only its fuller streams (sr_log__ctf_flush_behind). */
uint64_t sr_log__sinks_flush_behind(sr_log *log);
/* A caller: writes a line to every qualifying sink now, under each sink's lock; false if one failed. */
bool sr_log__dispatch_now(sr_log *log, int level, const char *line, size_t len);
/*
 * What a ring directory is told of the tracked sink's writes (every write
 * of its file, by the consumer, a caller or the crash handler: the hook
 * tells them apart): before, the descriptor and the bytes about to be
 * written; after, that the write returned.  Async-signal-safe, as the
 * crash handler's writes call them too.
 */
typedef struct sr_log_sink_write_hook {
	void (*before)(void *ctx, int fd, size_t n);
	void (*after)(void *ctx);
} sr_log_sink_write_hook;
/*
 * At open, before any record: the first file sink becomes the tracked one
 * (its writes call hook with ctx).  Returns its path, or NULL when there is
 * no file sink.
 */
const char *sr_log__sinks_track(sr_log *log, const sr_log_sink_write_hook *hook, void *ctx);
/* The lowest level any sink writes (SR_LOG_OFF with none). */
int sr_log__sinks_min_level(const sr_log *log);
/* Copies the sinks' counters into *st (sr_log_stats). */
void sr_log__sinks_stats(const sr_log *log, sr_log_counters *st);
/* Describes sink i's configuration ("file /var/log/app.log level=trace ..."); false past the last. */
bool sr_log__sinks_describe(const sr_log *log, int i, char *buf, size_t size);
/*
 * The consumer's room for one line straight in the buffer of sink s, one
 * that takes a layout's lines alone (sinks->direct_sink[k]): max_line bytes
 * past the buffer's len (never more than its cap), and the line reserve
 * after them for sr_log__end_line's marker and '\n' (the buffer was grown
 * by both at open).  The line is then the sink's once
 * sr_log__sink_line_taken says its length, which writes what a copy would
 * have written when the line ends past cap: the bytes and the batch are
 * those of a line copied there.
 */
static inline sr_fmt_buf
sr_log__sink_line_room(const sr_log *log, sr_log_sink *s)
{
	return (sr_fmt_buf){ s->buf + s->len, 0, log->opt.max_line, 0 };  /* len <= cap: max_line bytes are free */
}
/* A line past the sink's cap: written as a copy would have been (sr_log_sinks.c). */
void sr_log__sink_line_past_cap(sr_log_sink *s, size_t len);
static inline void
sr_log__sink_line_taken(sr_log_sink *s, size_t len)
{
	s->batch_messages++;
	if (s->len + len <= s->cap)
		s->len += len;
	else
		sr_log__sink_line_past_cap(s, len);
}
/* The sink of layout k's lines alone (sinks->direct_sink[k]), or NULL. */
static inline sr_log_sink *
sr_log__sinks_direct(const sr_log *log, int k)
{
	int i = log->sinks->direct_sink[k];
	return i < 0 ? NULL : &log->sinks->s[i];
}
/* sinks->sole of a record's level (one past the levels: as SR_LOG_OFF's). */
static inline const struct sr_log_sole_sink *
sr_log__sinks_sole(const sr_log *log, int level)
{
	return &log->sinks->sole[level >= 0 && level < SR_LOG_LEVEL_COUNT ? level : SR_LOG_OFF];
}
/*
 * Crash handler (no lock, no rotation, async-signal-safe): writes a line to
 * the file and descriptor sinks that take `level`; writes and empties what
 * the consumer left in those sinks' buffers.
 */
void sr_log__sinks_write_raw(sr_log *log, int level, const char *line, size_t len);
/* sr_log__sinks_write_raw for the sinks with layout `layout` (-1: all). */
void sr_log__sinks_write_raw_layout(sr_log *log, int layout, int level, const char *line, size_t len);
void sr_log__sinks_write_buffers_raw(sr_log *log);
/* The crash handler: the ctf sinks' buffered packets written (sr_log_sink_ctf.c; no lock, no allocation). */
void sr_log__ctf_sinks_write_raw(sr_log *log);

/*
 * Hands an event to the ctf sinks that take `level` (sr_log_sink_ctf.c), as
 * `how`: buffered (the consumer), now (a caller, under each sink's lock),
 * raw (the crash handler).  The fanout calls it beside the lines it renders.
 */
void sr_log__dispatch_event(sr_log *log, int how, const sr_log_event *ev, int level);

/*
 * Hands an event to the journald sinks that take it alone (takes_events)
 * and take `level` (sr_log_sink_journald.c), as `how`: buffered (the
 * consumer) or now (a caller, under each sink's lock); never from the
 * crash handler.  The fanout calls it beside the lines it renders.
 */
void sr_log__dispatch_journald_events(sr_log *log, int how, const sr_log_event *ev, int level);
/* A journald sink's "N message(s) could not be delivered ..." (under its lock); 0 when there is none. */
size_t sr_log__journald_sink_loss_report(sr_log_sink *s, char *text, size_t size);

/* ---- between sr_log_sink*.c ---- */

/* The journald sink (sr_log_sink_journald.c): its client opened, handed a line, closed, freed, counted. */
int sr_log__journald_sink_open(sr_log *log, sr_log_sink *s, int i, sr_error *err);
/* A line (ev: its event, or NULL) to send; lock_held: a caller's, under s->lock already. */
void sr_log__journald_sink_put(sr_log_sink *s, const sr_log_event *ev, int level, const char *line, size_t len,
    bool lock_held);
void sr_log__journald_sink_close(sr_log_sink *s);
void sr_log__journald_sink_free(sr_log_sink *s);
void sr_log__journald_sink_counters(const sr_log_sink *s, sr_log_sink_counters *o);

/* The ctf sink (sr_log_sink_ctf.c): its writer opened, flushed, closed, reopened, forked, counted, described. */
int sr_log__ctf_sink_open(sr_log *log, sr_log_sink *s, const sr_sink_config *c, int i, sr_error *err);
uint64_t sr_log__ctf_sink_flush(sr_log_sink *s);
uint64_t sr_log__ctf_sink_flush_behind(sr_log_sink *s);
void sr_log__ctf_sink_close(sr_log_sink *s);
/* After a failed open (the logger never ran): the trace begun is removed if it holds no event. */
void sr_log__ctf_sink_abandon(sr_log_sink *s);
void sr_log__ctf_sink_reopen(sr_log_sink *s);
void sr_log__ctf_sink_after_fork(sr_log_sink *s);
void sr_log__ctf_sink_counters(const sr_log_sink *s, sr_log_sink_counters *o);
void sr_log__ctf_sink_describe(const sr_sink_config *c, char *buf, size_t size);

/* Adds to a counter (relaxed: counters only). */
void sr_log__sink_add(sr_atomic_i64 *counter, int64_t delta);
/* Reports the sink's first error on stderr, once. */
void sr_log__sink_report_once(sr_log_sink *s, const char *what);
/* Writes bytes to a file or descriptor sink, rotating when due (sr_log_sink_rotate.c); s->lock held. */
void sr_log__sink_write_locked(sr_log_sink *s, const char *p, size_t n);
/* Writes bytes as they are; false when the write failed (counted).  s->lock held. */
bool sr_log__sink_plain_write_locked(sr_log_sink *s, const char *p, size_t n, size_t *written);
/*
 * A file sink's write of this many bytes or more (a busy consumer's batch)
 * first reserves its range of the file; smaller ones are not worth the
 * system call (sr_log_sink_write.c).
 */
#define SR_LOG_SINK_RESERVE_MIN ((size_t)256 * 1024)
/* True for a file sink with a size limit or daily rotation. */
bool sr_log__sink_rotates(const sr_log_sink *s);
/* Opens (creates) the sink's file and learns its size and day.  s->lock held or at open. */
int sr_log__sink_open_file(sr_log_sink *s);
/* Writes whole lines, rotating between two of them when due.  s->lock held. */
void sr_log__sink_rotating_write_locked(sr_log_sink *s, const char *p, size_t n);

#endif /* SR_LOG_SINK_INTERNAL_H */
