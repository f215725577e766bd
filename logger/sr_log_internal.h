/*
 * sr_log_internal.h: the logger's private structures, shared by sr_log.c
 * (API, hot path, consumer, modes), sr_log_sink.c (sinks) and
 * sr_log_layout.c (lines).  Not part of the API: use sr_log.h.
 */
#ifndef SR_LOG_INTERNAL_H
#define SR_LOG_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

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
	int64_t ts_ns;            /* CLOCK_REALTIME at the call */
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
	/* Counters (relaxed; several writers use add). */
	sr_atomic_i64 messages, bytes, writes, errors, lost_bytes;
} sr_log_sink;

/* A level rule: names with this dotted prefix take this level. */
typedef struct sr_log_rule {
	char *prefix;
	int level;
} sr_log_rule;

/* queue mode: one queued line. */
typedef struct sr_log_qentry {
	char *line;               /* NULL: a notice (flush) */
	uint32_t len;
	uint8_t level;
} sr_log_qentry;

struct sr_log {
	sr_log_mode mode;
	sr_log_full_policy policy;
	int discard_level;
	sr_log_layout layout;
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
	int min_sink_level;

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

/* ---- sr_log_layout.c ---- */

/* Renders a record (header h, body = value + string areas) as one line. */
void sr_log__render_record(const sr_log *log, const sr_log_rec *h,
    const unsigned char *body, size_t body_len, sr_fmt_buf *out);
/* Renders a line made by the logger itself (drop reports) from text. */
void sr_log__render_text(const sr_log *log, int level, const char *text, size_t len,
    sr_fmt_buf *out);
/* Ends a line: the cut marker when it was cut, then '\n'; true when cut. */
bool sr_log__finish_line(sr_fmt_buf *out);
int64_t sr_log__now_ns(void);

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

#endif /* SR_LOG_INTERNAL_H */
