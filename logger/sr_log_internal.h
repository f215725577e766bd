/*
 * sr_log_internal.h: the logger's private structures, shared by sr_log.c
 * (API, hot path, consumer, modes), sr_log_sink.c (sinks, rotation),
 * sr_log_layout.c (text and message lines, dates, JSON), sr_log_pattern.c
 * (the pattern layout), sr_log_env.c (level specs, the environment,
 * describe), sr_log_clock.c (clocks), sr_log_crash.c (crash flush) and
 * sr_log_backtrace.c (the flight recorder).  Not part of the API: use
 * sr_log.h.
 */
#ifndef SR_LOG_INTERNAL_H
#define SR_LOG_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "sr_log.h"
#include "sr_log_format.h"
#include "sr_processor.h"
#include "sr_ring.h"
#include "sr_sequencer.h"

/* Record kinds (sr_log_rec.kind, low bits); SR_REC_TRUNCATED is a flag. */
enum {
	SR_REC_MESSAGE = 1,       /* a log call: header, value area, string area */
	SR_REC_FORMAT_ERROR = 2,  /* a call whose format was refused: header only */
	SR_REC_NOTICE = 3,        /* no message: makes the consumer end a batch (flush) */
	SR_REC_DUMP = 4,          /* a notice that also writes the backtrace (sr_log_dump_backtrace) */
	SR_REC_KIND_MASK = 0x7f,
	SR_REC_TRUNCATED = 0x80   /* strings were cut to max_message_bytes */
};

/*
 * The header of every record, at the start of its first slot (slots are at
 * least 64 bytes, so it never wraps).  56 bytes.
 */
typedef struct sr_log_rec {
	uint32_t size;            /* header + value area + string area */
	uint16_t value_bytes;
	uint8_t kind;
	uint8_t level;
	uint32_t tid;
	int32_t errno_value;      /* the caller's errno, for %m */
	int64_t ts_ns;            /* the clock's raw reading: ns since the epoch, or TSC ticks (tsc) */
	sr_site *site;
	sr_category *cat;
	char thread[16];          /* the caller's name, "" for none */
} sr_log_rec;

/* Per-thread state (each thread's own; no locking). */
typedef struct sr_log_thread {
	bool init;
	bool named;               /* name set by sr_log_thread_name */
	int in_sink;              /* depth of sink writes on this thread */
	const sr_log *consumer_of;/* set on a logger's consumer thread */
	uint32_t tid;
	char name[16];
} sr_log_thread;

extern _Thread_local sr_log_thread sr_log__self;
void sr_log__thread_init(sr_log_thread *t);

/* True on any seqring logger's consumer thread or inside a sink write. */
static inline bool
sr_log__must_not_wait(void)
{
	return sr_log__self.consumer_of != NULL || sr_log__self.in_sink > 0;
}

typedef struct sr_log_sink {
	sr_sink_config cfg;       /* cfg.path points to `path` */
	char *path;
	int index;
	int fd;                   /* -1 for null and callback */
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
	/* The consumer's buffer: only the consumer thread touches it. */
	char *buf;
	size_t len, cap;
	uint64_t batch_messages;
	/* FILE with rotation (cfg.max_file_bytes or cfg.rotate_daily); under `lock`. */
	uint64_t file_bytes;      /* bytes in the current file */
	int64_t file_day;         /* UTC day (days since the epoch) of the current file */
	char *rot_name;           /* scratch for "path.N" */
	size_t rot_name_size;
	sr_atomic_i64 rotations;
	/* Counters (relaxed; several writers use add). */
	sr_atomic_i64 messages, bytes, writes, errors, lost_bytes;
} sr_log_sink;

/* Where a setting or a level directive came from (sr_log_describe). */
enum sr_log_source {
	SR_SRC_DEFAULT = 0,
	SR_SRC_CODE = 1,          /* sr_log_config differs from sr_log_config_default */
	SR_SRC_ENV = 2,           /* a SEQRING_LOG* variable */
	SR_SRC_RUNTIME = 3        /* sr_log_set_level / sr_log_set_level_spec after open */
};

/* A level rule: names with this dotted prefix take this level. */
typedef struct sr_log_rule {
	char *prefix;
	int level;
	uint8_t source;           /* enum sr_log_source */
} sr_log_rule;

/* A parsed level spec (SEQRING_LOG's form). */
typedef struct sr_log_spec {
	bool has_root;
	int root;
	size_t n;
	sr_log_rule *d;           /* prefix, level; source unused */
} sr_log_spec;

/*
 * Parses a level spec.  SR_OK, or SR_EINVAL with msg (if given) saying what
 * is wrong with which directive (the caller prefixes where the spec came
 * from).  *out must be freed with sr_log__spec_free either way.
 */
int sr_log__spec_parse(const char *spec, sr_log_spec *out, char *msg, size_t msg_size);
void sr_log__spec_free(sr_log_spec *spec);

/* The settings sr_log_describe prints, in order (sr_log_settings.source). */
enum sr_log_setting {
	SR_SET_LEVEL, SR_SET_MODE, SR_SET_RING_SLOTS, SR_SET_SLOT_SIZE, SR_SET_WAIT,
	SR_SET_FULL_POLICY, SR_SET_DISCARD_LEVEL, SR_SET_SYNC_ENQUEUE, SR_SET_IMMEDIATE_FLUSH,
	SR_SET_MAX_MESSAGE,
	SR_SET_MAX_LINE, SR_SET_LAYOUT, SR_SET_PATTERN, SR_SET_CLOCK, SR_SET_SINKS,
	SR_SET_THREAD_NAME, SR_SET_CLOSE_AT_EXIT, SR_SET_BACKTRACE, SR_SET_BACKTRACE_LEVEL,
	SR_SET_BACKTRACE_TRIGGER, SR_SET_CRASH_HANDLER, SR_SET_DESCRIBE, SR_SET_COUNT
};

/* What sr_log_describe needs to say where each setting came from. */
typedef struct sr_log_settings {
	uint8_t source[SR_SET_COUNT];
	char *env_value[SR_SET_COUNT];    /* the variable's text when source is SR_SRC_ENV */
	bool environment_read;            /* false with config.ignore_environment */
} sr_log_settings;

/*
 * The configuration sr_log_open uses: the caller's with the environment
 * applied (sr_log_env.c).  Strings point into the caller's config, the
 * environment, or `owned`.
 */
typedef struct sr_log_resolved {
	sr_log_config cfg;
	sr_log_settings settings;         /* env_value owned here until moved into the logger */
	sr_sink_config sinks[SR_LOG_MAX_SINKS];
	char *sink_text;                  /* writable copy of SEQRING_LOG_SINK (paths point into it) */
	sr_log_spec code_spec;            /* config.level_spec */
	sr_log_spec env_spec;             /* SEQRING_LOG */
} sr_log_resolved;

/* Applies the environment to *config (unless config->ignore_environment) and parses the specs. */
int sr_log__resolve(const sr_log_config *config, sr_log_resolved *r, sr_error *err);
void sr_log__resolved_free(sr_log_resolved *r);
/* The SEQRING_LOG* variable of a setting. */
const char *sr_log__env_name(int setting);
/* Sets the logger's root level and rules from r (open time; no lock needed). */
int sr_log__apply_specs(sr_log *log, const sr_log_resolved *r, sr_error *err);

/* queue mode: one queued line. */
typedef struct sr_log_qentry {
	char *line;               /* NULL: a notice (flush) */
	uint32_t len;
	uint8_t level;
} sr_log_qentry;

/*
 * The tsc clock's calibration (sr_log_clock.c): two segments of the
 * tsc -> ns mapping (seg[0] the previous, seg[1] the current), each
 * { tsc0, ns0, tsc1, slewed rate bits, rate bits }, behind a sequence lock.
 */
#define SR_LOG_CLOCK_FIELDS 5
typedef struct sr_log_clock_state {
	sr_atomic_i64 version;    /* odd while a refresh writes the segments */
	sr_atomic_i64 seg[2][SR_LOG_CLOCK_FIELDS];
	sr_atomic_i64 next_refresh;   /* tsc at which a refresh is due */
	sr_atomic_i32 refreshing;     /* 1 while a thread refreshes */
	/* The refresher's own (under `refreshing`). */
	int64_t last_tsc, last_ns;
	double rate;              /* measured ns per tick */
	int64_t period_ns;
	uint64_t refreshes, steps;
} sr_log_clock_state;

/* A rendered pattern (sr_log_pattern.c). */
typedef struct sr_log_pattern sr_log_pattern;

/* One message to lay out: a record, or text made by the logger itself. */
typedef struct sr_log_event {
	int64_t ts_ns;            /* converted: ns since the epoch */
	int level;
	uint32_t tid;
	const char *thread;       /* up to 16 bytes, NUL-padded; "" for none */
	const char *category;     /* NULL or "" for the root */
	const sr_site *site;      /* NULL for the logger's own lines */
	const sr_log_rec *h;      /* the record, or NULL: text */
	const unsigned char *body;
	size_t body_len;
	const char *text;
	size_t text_len;
	bool backtrace;           /* mark it as a backtrace line */
	bool signal_safe;         /* in a signal handler: no snprintf, no locale, no malloc */
} sr_log_event;

/* The backtrace (sr_log_backtrace.c): the consumer's own. */
typedef struct sr_log_bt_entry {
	unsigned char *rec;       /* header + body */
	size_t len, cap;
} sr_log_bt_entry;

struct sr_log {
	sr_log_mode mode;
	sr_log_full_policy policy;
	int discard_level;
	sr_log_layout layout;
	sr_log_pattern *pattern;  /* SR_LOG_LAYOUT_PATTERN */
	sr_log_clock clock;
	sr_log_clock_state *clk;  /* tsc only */
	sr_log_settings settings;
	bool synchronize_enqueue;
	bool immediate_flush;     /* sync mode: false buffers lines in the sinks (under sync_lock) */
	bool describe;
	size_t slot_size;
	char *pattern_text;
	size_t max_record;
	size_t max_line;
	int64_t capacity;
	char *thread_name;
	char *wait_spec;
	bool close_at_exit;

	/* ring mode */
	sr_ring *ring;
	sr_sequencer *seq;
	sr_processor *proc;
	unsigned slot_shift;
	bool consumer_started;

	/* consumer-private (ring consumer or queue drainer; the closer after join) */
	int64_t skip_until;
	unsigned char *scratch;   /* a record copied out when it wraps */
	char *line;               /* max_line + SR_FMT_LINE_RESERVE */
	uint64_t batch_accepted, batch_written, batch_format_errors;
	uint64_t batch_truncated_records, batch_truncated_lines;
	int64_t max_occupancy_seen;
	uint64_t reported_drops[SR_LOG_LEVEL_COUNT];

	/* queue mode */
	pthread_mutex_t q_lock;
	pthread_cond_t q_not_empty, q_not_full, q_progress;
	sr_log_qentry *q;
	int64_t q_head, q_count;
	uint64_t q_enqueued, q_done;
	bool q_stop;
	pthread_t q_thread;

	/* sync mode: the one mutex */
	pthread_mutex_t sync_lock;

	/* categories and level rules (cold path) */
	pthread_mutex_t cat_lock;
	sr_category **cats;
	size_t ncats, cats_cap;
	sr_log_rule *rules;
	size_t nrules, rules_cap;
	int root_level;
	uint8_t root_source;      /* enum sr_log_source */
	int min_sink_level;

	/* backtrace: configuration, then the consumer's ring of records */
	int bt_size;              /* 0: off */
	int bt_level, bt_trigger;
	sr_log_bt_entry *bt;
	int bt_head, bt_count;
	sr_atomic_i64 bt_written, bt_discarded;

	/* crash flush (sr_log_crash.c) */
	sr_atomic_i32 crash_installed;
	sr_atomic_i32 crash_state;    /* 0, or SR_LOG_CRASH_* while a handler runs */
	sr_atomic_i32 crash_parked;   /* the consumer stopped for the handler */
	sr_atomic_i64 handled_seq;    /* last ring sequence whose line is in the sinks' buffers */
	unsigned char *crash_rec;     /* the handler's record and line buffers (no malloc in a handler) */
	char *crash_line;

	/* sinks */
	int nsinks;
	sr_log_sink sinks[SR_LOG_MAX_SINKS];

	/* counters */
	sr_atomic_i64 accepted, written, written_by_caller, format_errors;
	sr_atomic_i64 truncated_records, truncated_lines, max_occupancy, batches;
	sr_atomic_i64 dropped[SR_LOG_LEVEL_COUNT];

	/* lifecycle */
	sr_atomic_i32 shut;       /* 1 once shutdown began */
	bool shutdown_done;
	pthread_mutex_t life_lock;
	struct sr_log *exit_next;
	bool in_exit_list;
};

/* ---- sr_log_clock.c ---- */

static inline int64_t
sr_log__rdtsc(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return (int64_t)__builtin_ia32_rdtsc();
#else
	return 0;
#endif
}

int64_t sr_log__realtime_ns(void);

/* The clock's raw reading on the calling thread (the hot path). */
static inline int64_t
sr_log__clock_read(const sr_log *log)
{
	struct timespec ts;
	switch (log->clock) {
	case SR_LOG_CLOCK_TSC:
		return sr_log__rdtsc();
	case SR_LOG_CLOCK_COARSE:
		clock_gettime(CLOCK_REALTIME_COARSE, &ts);
		return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	default:
		clock_gettime(CLOCK_REALTIME, &ts);
		return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	}
}

/* Sets log->clock and, for tsc, checks the CPU and calibrates. */
int sr_log__clock_open(sr_log *log, sr_log_clock kind, sr_error *err);
void sr_log__clock_close(sr_log *log);
/* A raw reading as ns since the epoch (any thread; async-signal-safe). */
int64_t sr_log__clock_to_ns(const sr_log *log, int64_t raw);
/* tsc: recalibrates when due (force: now).  Cheap when not due; any thread. */
void sr_log__clock_refresh(sr_log *log, bool force);

/* ---- sr_log_layout.c ---- */

/* Renders a record (header h, body = value + string areas) as one line. */
void sr_log__render_record(const sr_log *log, const sr_log_rec *h,
    const unsigned char *body, size_t body_len, sr_fmt_buf *out);
/* As sr_log__render_record, for a backtrace line or in a signal handler. */
void sr_log__render_record_ex(const sr_log *log, const sr_log_rec *h,
    const unsigned char *body, size_t body_len, bool backtrace, bool signal_safe,
    sr_fmt_buf *out);
/* Renders a line made by the logger itself (drop reports) from text. */
void sr_log__render_text(const sr_log *log, int level, const char *text, size_t len,
    sr_fmt_buf *out);
/*
 * Ends a line: the cut marker when it was cut (not for JSON, which cuts
 * inside "msg" and stays whole), then '\n'; true when cut.
 */
bool sr_log__finish_line(const sr_log *log, sr_fmt_buf *out);
int64_t sr_log__now_ns(void);

/* Broken-down UTC time, computed without the C library (async-signal-safe). */
typedef struct sr_log_tm {
	int year, month, day, hour, minute, second, yday, wday;  /* month 1-12, yday 0-365, wday 0 = Sunday */
} sr_log_tm;
void sr_log__utc(int64_t sec, sr_log_tm *tm);
/* Floor division of ns into seconds and the nanoseconds within the second. */
void sr_log__split_ns(int64_t ts_ns, int64_t *sec, int32_t *ns);
/* The message of an event (record or text), rendered into out. */
void sr_log__put_message(const sr_log_event *ev, sr_fmt_buf *out);
/* Unsigned decimal, zero-padded to at least `digits`. */
void sr_log__put_uint(sr_fmt_buf *out, uint64_t v, int digits);
/* Level names: "TRACE" ... "OFF" (upper) and "trace" ... (lower); "?" for others. */
const char *sr_log__level_upper(int level);

/* ---- sr_log_pattern.c ---- */

int sr_log__pattern_compile(const char *text, sr_log_pattern **out, sr_error *err);
void sr_log__pattern_free(sr_log_pattern *p);
void sr_log__pattern_render(const sr_log_pattern *p, const sr_log_event *ev, sr_fmt_buf *out);

/* ---- sr_log_layout.c: JSON ---- */

/*
 * Appends s (n bytes) as JSON string content: escaped, invalid UTF-8 as
 * U+FFFD.  At most `room` bytes are written, never splitting an escape or a
 * character; returns the input bytes consumed (n when all fit).
 */
size_t sr_log__json_escape(sr_fmt_buf *out, const char *s, size_t n, size_t room);
void sr_log__render_json(const sr_log *log, const sr_log_event *ev, sr_fmt_buf *out);

/* ---- sr_log_sink.c ---- */

int sr_log__sinks_open(sr_log *log, const sr_sink_config *configs, int count, sr_error *err);
/* Flushes (consumer buffers), closes owned descriptors, calls close callbacks. */
void sr_log__sinks_close(sr_log *log);
void sr_log__sinks_free(sr_log *log);
/* Consumer: appends a line to every qualifying sink's buffer (callbacks: calls them). */
void sr_log__dispatch_buffered(sr_log *log, int level, const char *line, size_t len);
/* Consumer: writes every sink's buffer, calls flush callbacks, publishes sink counters. */
void sr_log__sinks_flush(sr_log *log);
/* A caller: writes a line to every qualifying sink now, under each sink's lock. */
void sr_log__dispatch_now(sr_log *log, int level, const char *line, size_t len);
/* Crash handler: writes bytes to a file or descriptor sink, no lock, no rotation. */
void sr_log__sink_write_raw(sr_log_sink *s, const char *p, size_t n);
/* Describes a sink's configuration ("file /var/log/app.log level=trace ..."). */
void sr_log__sink_describe(const sr_sink_config *c, char *buf, size_t size);

/* ---- sr_log.c (used by the other files) ---- */

/* Recomputes every handle's levels.  cat_lock held. */
void sr_log__update_categories(sr_log *log);
/* True for a valid category name or prefix. */
bool sr_log__valid_category_name(const char *name);
/* The index of the rule that decides name's level, or -1 (the root).  cat_lock held. */
long sr_log__rule_for(const sr_log *log, const char *name);

/* ---- sr_log_backtrace.c ---- */

int sr_log__bt_open(sr_log *log, sr_error *err);
void sr_log__bt_free(sr_log *log);
/* Consumer: keeps a copy of a record below its category's level. */
void sr_log__bt_keep(sr_log *log, const sr_log_rec *h, const unsigned char *body, size_t body_len);
/* Consumer: renders and dispatches what is kept, marked, at `level` for the sinks; empties it. */
void sr_log__bt_dump(sr_log *log, int level);

/* ---- sr_log_crash.c ---- */

/* States of sr_log.crash_state. */
enum { SR_LOG_CRASH_NONE = 0, SR_LOG_CRASH_DRAIN = 1, SR_LOG_CRASH_TAKEOVER = 2 };
/* Consumer check point: parks the thread for good when a crash handler took over. */
void sr_log__crash_checkpoint(sr_log *log);

#endif /* SR_LOG_INTERNAL_H */
