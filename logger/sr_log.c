/*
 * sr_log.c: the logger's API, its hot path (sr_log_emit), the ring consumer,
 * the queue and sync baseline modes, categories, and the lifecycle.
 *
 * Hot path (ring mode), in the caller's thread:
 *   level check (macro) -> site signature (one load-acquire after the first
 *   call) -> gather the arguments from the va_list (strings measured) ->
 *   clock_gettime -> fit the record under max_message_bytes -> try-claim k
 *   slots (one CAS) -> copy header, values and strings into the slots
 *   (wrapping at the physical end) -> publish the range (top-down, so the
 *   consumer never sees part of a record) -> the wait strategy's signal (a
 *   fence and a load unless the consumer sleeps).
 * Only a full ring leaves this path (when_full, out of line).
 */
#include "sr_log_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <fcntl.h>
#include <unistd.h>

#define MAX_CATEGORY_NAME 255
/* A caller blocked on a full ring re-checks for shutdown this often. */
#define BLOCK_SLICE_NS (10 * 1000 * 1000)
/* The queue drainer wakes this often while idle (drop reports). */
#define QUEUE_IDLE_NS (100 * 1000 * 1000)

__attribute__((tls_model("initial-exec"))) _Thread_local sr_log_thread sr_log__self;

sr_category sr_category_off = {
	.level = SR_LOG_OFF, .id = -1, .log = NULL, .name = "off", .write_level = SR_LOG_OFF
};

/* ---------------------------------------------------------------------------------------- */
/* Names                                                                                    */

static const char *const level_names[SR_LOG_LEVEL_COUNT] = {
	"trace", "debug", "info", "warn", "error", "fatal", "off"
};
static const char *const mode_names[] = { "ring", "queue", "sync" };
static const char *const policy_names[] = { "block", "drop", "discard", "sync" };
static const char *const layout_names[] = { "text", "message", "pattern", "json" };

const char *
sr_log_level_name(int level)
{
	return level >= 0 && level < SR_LOG_LEVEL_COUNT ? level_names[level] : "unknown";
}

const char *
sr_log_mode_name(int mode)
{
	return mode >= 0 && mode < 3 ? mode_names[mode] : "unknown";
}

const char *
sr_log_full_policy_name(int policy)
{
	return policy >= 0 && policy < 4 ? policy_names[policy] : "unknown";
}

const char *
sr_log_layout_name(int layout)
{
	return layout >= 0 && layout < 4 ? layout_names[layout] : "unknown";
}

static int
parse_name(const char *name, const char *const *names, int count, int *out)
{
	if (name == NULL)
		return -1;
	for (int i = 0; i < count; i++) {
		if (strcasecmp(name, names[i]) == 0) {
			*out = i;
			return 0;
		}
	}
	return -1;
}

int
sr_log_level_parse(const char *name, sr_log_level *level, sr_error *err)
{
	int v;
	if (parse_name(name, level_names, SR_LOG_LEVEL_COUNT, &v) != 0) {
		if (name != NULL && strcasecmp(name, "warning") == 0) {
			v = SR_LOG_WARN;
		} else {
			return sr_error_set(err, SR_EINVAL,
			    "level '%.64s' is invalid: expected trace, debug, info, warn, error, fatal or off",
			    name != NULL ? name : "(null)");
		}
	}
	if (level != NULL)
		*level = (sr_log_level)v;
	return SR_OK;
}

int
sr_log_mode_parse(const char *name, sr_log_mode *mode, sr_error *err)
{
	int v;
	if (parse_name(name, mode_names, 3, &v) != 0)
		return sr_error_set(err, SR_EINVAL, "mode '%.64s' is invalid: expected ring, queue or sync",
		    name != NULL ? name : "(null)");
	if (mode != NULL)
		*mode = (sr_log_mode)v;
	return SR_OK;
}

int
sr_log_layout_parse(const char *name, sr_log_layout *layout, sr_error *err)
{
	int v;
	if (parse_name(name, layout_names, 4, &v) != 0)
		return sr_error_set(err, SR_EINVAL, "layout '%.64s' is invalid: expected text, message, pattern or json",
		    name != NULL ? name : "(null)");
	if (layout != NULL)
		*layout = (sr_log_layout)v;
	return SR_OK;
}

int
sr_log_full_policy_parse(const char *name, sr_log_full_policy *policy, sr_error *err)
{
	int v;
	if (parse_name(name, policy_names, 4, &v) != 0)
		return sr_error_set(err, SR_EINVAL,
		    "full-queue policy '%.64s' is invalid: expected block, drop, discard or sync",
		    name != NULL ? name : "(null)");
	if (policy != NULL)
		*policy = (sr_log_full_policy)v;
	return SR_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* Threads                                                                                  */

void
sr_log__thread_init(sr_log_thread *t)
{
	t->tid = (uint32_t)syscall(SYS_gettid);
	if (!t->named) {
		memset(t->name, 0, sizeof t->name);
		if ((pid_t)t->tid == getpid()) {
			memcpy(t->name, "main", 5);
		} else {
			/* The OS name, unless it is just the inherited process name. */
			char comm[17] = { 0 };
			if (prctl(PR_GET_NAME, comm, 0, 0, 0) == 0 &&
			    strncmp(comm, program_invocation_short_name, 15) != 0)
				memcpy(t->name, comm, 15);
		}
	}
	t->init = true;
}

void
sr_log_thread_name(const char *name)
{
	sr_log_thread *t = &sr_log__self;
	if (name != NULL && name[0] != '\0') {
		memset(t->name, 0, sizeof t->name);
		memcpy(t->name, name, strnlen(name, 15));
		t->named = true;
		if (!t->init)
			sr_log__thread_init(t);
	} else {
		t->named = false;
		sr_log__thread_init(t);
	}
}

/* ---------------------------------------------------------------------------------------- */
/* Configuration                                                                            */

void
sr_log_config_default(sr_log_config *c)
{
	memset(c, 0, sizeof *c);
	c->mode = SR_LOG_MODE_RING;
	c->ring_slots = 262144;
	c->slot_size = 128;
	c->wait_strategy = SR_LOG_DEFAULT_WAIT;
	c->full_policy = SR_LOG_FULL_BLOCK;
	c->discard_level = SR_LOG_INFO;
	c->synchronize_enqueue_when_full = true;
	c->immediate_flush = true;
	c->level = SR_LOG_INFO;
	c->max_message_bytes = 4096;
	c->max_line_bytes = 65536;
	c->layout = SR_LOG_LAYOUT_TEXT;
	c->sinks = NULL;
	c->sink_count = 0;
	c->close_at_exit = false;
	c->thread_name = NULL;
	c->level_spec = NULL;
	c->pattern = NULL;
	c->clock = SR_LOG_CLOCK_AUTO;
	c->backtrace_size = 0;
	c->backtrace_level = SR_LOG_TRACE;
	c->backtrace_trigger = SR_LOG_ERROR;
	c->crash_handler = false;
	c->describe = false;
	c->ignore_environment = false;
}

static bool
is_pow2(uint64_t v)
{
	return v != 0 && (v & (v - 1)) == 0;
}

static int
validate_sink(const sr_sink_config *s, int i, sr_error *err)
{
	if ((unsigned)s->kind > SR_SINK_CALLBACK)
		return sr_error_set(err, SR_EINVAL,
		    "config.sinks[%d].kind %d is invalid: expected SR_SINK_FILE (0), SR_SINK_FD (1), "
		    "SR_SINK_NULL (2) or SR_SINK_CALLBACK (3)", i, (int)s->kind);
	if ((unsigned)s->level > SR_LOG_OFF)
		return sr_error_set(err, SR_EINVAL,
		    "config.sinks[%d].level %d is invalid: expected SR_LOG_TRACE (0) to SR_LOG_OFF (6)",
		    i, (int)s->level);
	switch (s->kind) {
	case SR_SINK_FILE:
		if (s->path == NULL || s->path[0] == '\0')
			return sr_error_set(err, SR_EINVAL,
			    "config.sinks[%d].path is %s: expected the path of the log file",
			    i, s->path == NULL ? "NULL" : "empty");
		if (s->file_mode > 07777)
			return sr_error_set(err, SR_EINVAL,
			    "config.sinks[%d].file_mode 0%o is invalid: expected 0 to 07777", i, s->file_mode);
		if (s->max_file_bytes != 0 && (s->max_file_bytes < 4096 || s->max_file_bytes > (UINT64_C(1) << 50)))
			return sr_error_set(err, SR_EINVAL,
			    "config.sinks[%d].max_file_bytes %" PRIu64 " is out of range: expected 0 (no rotation) "
			    "or 4096 to %" PRIu64, i, s->max_file_bytes, UINT64_C(1) << 50);
		if (s->keep_files < 0 || s->keep_files > 1000)
			return sr_error_set(err, SR_EINVAL,
			    "config.sinks[%d].keep_files %d is out of range: expected 0 to 1000", i, s->keep_files);
		break;
	case SR_SINK_FD:
		if (s->fd < 0 || fcntl(s->fd, F_GETFD) == -1)
			return sr_error_set(err, SR_EINVAL,
			    "config.sinks[%d].fd %d is not an open file descriptor", i, s->fd);
		if (s->pipe_bytes != 0 && (s->pipe_bytes < 4096 || s->pipe_bytes > (1 << 30)))
			return sr_error_set(err, SR_EINVAL,
			    "config.sinks[%d].pipe_bytes %d is out of range: expected 0 (leave the pipe) "
			    "or 4096 to %d", i, s->pipe_bytes, 1 << 30);
		break;
	case SR_SINK_CALLBACK:
		if (s->write == NULL)
			return sr_error_set(err, SR_EINVAL,
			    "config.sinks[%d].write is NULL: a callback sink needs a write function", i);
		break;
	default:
		break;
	}
	if (s->kind == SR_SINK_FILE || s->kind == SR_SINK_FD) {
		if (s->buffer_bytes < 256 || s->buffer_bytes > (64u << 20))
			return sr_error_set(err, SR_EINVAL,
			    "config.sinks[%d].buffer_bytes %zu is out of range: expected 256 to %u",
			    i, s->buffer_bytes, 64u << 20);
		if (s->write_timeout_ms < 0 || s->write_timeout_ms > 60000)
			return sr_error_set(err, SR_EINVAL,
			    "config.sinks[%d].write_timeout_ms %d is out of range: expected 0 to 60000",
			    i, s->write_timeout_ms);
	}
	return SR_OK;
}

static int
validate(const sr_log_config *c, sr_wait_config *wait, sr_error *err)
{
	if ((unsigned)c->mode > SR_LOG_MODE_SYNC)
		return sr_error_set(err, SR_EINVAL,
		    "config.mode %d is invalid: expected SR_LOG_MODE_RING (0), SR_LOG_MODE_QUEUE (1) "
		    "or SR_LOG_MODE_SYNC (2)", (int)c->mode);
	if (c->ring_slots < 2 || c->ring_slots > SR_RING_MAX_SLOT_COUNT || !is_pow2((uint64_t)c->ring_slots))
		return sr_error_set(err, SR_EINVAL,
		    "config.ring_slots %" PRId64 " is invalid: expected a power of two from 2 to %" PRId64,
		    c->ring_slots, (int64_t)SR_RING_MAX_SLOT_COUNT);
	if (c->slot_size < 64 || c->slot_size > SR_RING_MAX_SLOT_SIZE || !is_pow2(c->slot_size))
		return sr_error_set(err, SR_EINVAL,
		    "config.slot_size %zu is invalid: expected a power of two from 64 to %u",
		    c->slot_size, SR_RING_MAX_SLOT_SIZE);
	const char *spec = c->wait_strategy != NULL ? c->wait_strategy : SR_LOG_DEFAULT_WAIT;
	sr_error werr;
	if (sr_wait_config_parse(spec, wait, &werr) != SR_OK)
		return sr_error_set(err, SR_EINVAL, "config.wait_strategy '%.48s' is invalid: %s",
		    spec, werr.message);
	if ((unsigned)c->full_policy > SR_LOG_FULL_SYNC)
		return sr_error_set(err, SR_EINVAL,
		    "config.full_policy %d is invalid: expected SR_LOG_FULL_BLOCK (0), SR_LOG_FULL_DROP (1), "
		    "SR_LOG_FULL_DISCARD (2) or SR_LOG_FULL_SYNC (3)", (int)c->full_policy);
	if ((unsigned)c->discard_level > SR_LOG_FATAL)
		return sr_error_set(err, SR_EINVAL,
		    "config.discard_level %d is invalid: expected SR_LOG_TRACE (0) to SR_LOG_FATAL (5)",
		    (int)c->discard_level);
	if ((unsigned)c->level > SR_LOG_OFF)
		return sr_error_set(err, SR_EINVAL,
		    "config.level %d is invalid: expected SR_LOG_TRACE (0) to SR_LOG_OFF (6)", (int)c->level);
	if (c->max_message_bytes < 1024 || c->max_message_bytes > (1u << 20))
		return sr_error_set(err, SR_EINVAL,
		    "config.max_message_bytes %zu is out of range: expected 1024 to %u",
		    c->max_message_bytes, 1u << 20);
	if (c->mode == SR_LOG_MODE_RING &&
	    c->max_message_bytes > (uint64_t)c->ring_slots * c->slot_size)
		return sr_error_set(err, SR_EINVAL,
		    "config.max_message_bytes %zu exceeds the ring (%" PRId64 " slots x %zu bytes): "
		    "expected at most %" PRIu64, c->max_message_bytes, c->ring_slots, c->slot_size,
		    (uint64_t)c->ring_slots * c->slot_size);
	if (c->max_line_bytes < 256 || c->max_line_bytes > (16u << 20))
		return sr_error_set(err, SR_EINVAL,
		    "config.max_line_bytes %zu is out of range: expected 256 to %u",
		    c->max_line_bytes, 16u << 20);
	if ((unsigned)c->layout > SR_LOG_LAYOUT_JSON)
		return sr_error_set(err, SR_EINVAL,
		    "config.layout %d is invalid: expected SR_LOG_LAYOUT_TEXT (0), SR_LOG_LAYOUT_MESSAGE (1), "
		    "SR_LOG_LAYOUT_PATTERN (2) or SR_LOG_LAYOUT_JSON (3)", (int)c->layout);
	if (c->layout == SR_LOG_LAYOUT_PATTERN && c->pattern == NULL)
		return sr_error_set(err, SR_EINVAL,
		    "config.pattern is NULL: layout SR_LOG_LAYOUT_PATTERN needs a pattern");
	if (c->layout != SR_LOG_LAYOUT_PATTERN && c->pattern != NULL)
		return sr_error_set(err, SR_EINVAL,
		    "config.pattern '%.64s' is set but config.layout is %s: a pattern needs SR_LOG_LAYOUT_PATTERN",
		    c->pattern, sr_log_layout_name(c->layout));
	if (c->layout == SR_LOG_LAYOUT_JSON && c->max_line_bytes < 1024)
		return sr_error_set(err, SR_EINVAL,
		    "config.max_line_bytes %zu is too small for the json layout: expected at least 1024",
		    c->max_line_bytes);
	if ((unsigned)c->clock > SR_LOG_CLOCK_AUTO)
		return sr_error_set(err, SR_EINVAL,
		    "config.clock %d is invalid: expected SR_LOG_CLOCK_REALTIME (0), SR_LOG_CLOCK_COARSE (1), "
		    "SR_LOG_CLOCK_TSC (2) or SR_LOG_CLOCK_AUTO (3)", (int)c->clock);
	if (c->backtrace_size < 0 || c->backtrace_size > 65536)
		return sr_error_set(err, SR_EINVAL,
		    "config.backtrace_size %d is out of range: expected 0 (off) to 65536", c->backtrace_size);
	if ((unsigned)c->backtrace_level > SR_LOG_FATAL)
		return sr_error_set(err, SR_EINVAL,
		    "config.backtrace_level %d is invalid: expected SR_LOG_TRACE (0) to SR_LOG_FATAL (5)",
		    (int)c->backtrace_level);
	if ((unsigned)c->backtrace_trigger > SR_LOG_FATAL)
		return sr_error_set(err, SR_EINVAL,
		    "config.backtrace_trigger %d is invalid: expected SR_LOG_TRACE (0) to SR_LOG_FATAL (5)",
		    (int)c->backtrace_trigger);
	if (c->backtrace_size > 0 && c->mode != SR_LOG_MODE_RING)
		return sr_error_set(err, SR_EINVAL,
		    "config.backtrace_size %d needs mode ring (mode is %s): the backtrace lives on the consumer",
		    c->backtrace_size, sr_log_mode_name(c->mode));
	if (c->crash_handler && c->mode != SR_LOG_MODE_RING)
		return sr_error_set(err, SR_EINVAL,
		    "config.crash_handler needs mode ring (mode is %s): the other modes write as they go",
		    sr_log_mode_name(c->mode));
	if (c->sink_count < 0 || c->sink_count > SR_LOG_MAX_SINKS)
		return sr_error_set(err, SR_EINVAL,
		    "config.sink_count %d is out of range: expected 0 to %d", c->sink_count, SR_LOG_MAX_SINKS);
	if (c->sink_count > 0 && c->sinks == NULL)
		return sr_error_set(err, SR_EINVAL,
		    "config.sinks is NULL but config.sink_count is %d", c->sink_count);
	for (int i = 0; i < c->sink_count; i++) {
		int rc = validate_sink(&c->sinks[i], i, err);
		if (rc != SR_OK)
			return rc;
	}
	if (c->thread_name != NULL && (c->thread_name[0] == '\0' || strlen(c->thread_name) > 15))
		return sr_error_set(err, SR_EINVAL,
		    "config.thread_name '%.32s' is invalid: expected 1 to 15 characters", c->thread_name);
	return SR_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* Categories and levels                                                                    */

bool
sr_log__valid_category_name(const char *name)
{
	size_t n = strlen(name);
	if (n == 0 || n > MAX_CATEGORY_NAME || name[0] == '.' || name[n - 1] == '.')
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)name[i];
		if (c <= ' ' || c > '~' || c == ',' || c == '=')
			return false;
		if (c == '.' && name[i + 1] == '.')
			return false;
	}
	return true;
}

static bool
prefix_matches(const char *prefix, size_t plen, const char *name)
{
	return strncmp(name, prefix, plen) == 0 && (name[plen] == '\0' || name[plen] == '.');
}

long
sr_log__rule_for(const sr_log *log, const char *name)
{
	long found = -1;
	size_t best = 0;
	for (size_t i = 0; i < log->nrules; i++) {
		size_t plen = strlen(log->rules[i].prefix);
		if (plen > best && prefix_matches(log->rules[i].prefix, plen, name)) {
			best = plen;
			found = (long)i;
		}
	}
	return found;
}

/* The configured level of a name: its longest rule prefix's, else the root's.  cat_lock held. */
static int
configured_level(const sr_log *log, const char *name)
{
	long r = sr_log__rule_for(log, name);
	return r >= 0 ? log->rules[r].level : log->root_level;
}

/* Sets a handle's write level and call-site level.  cat_lock held. */
static void
set_category_levels(const sr_log *log, sr_category *c)
{
	int level = configured_level(log, c->name);
	/* A level that no sink writes is cut off at the call site. */
	int write = level > log->min_sink_level ? level : log->min_sink_level;
	int site = write;
	/* The backtrace keeps what is below the write level, from its own level up. */
	if (log->bt_size > 0 && log->bt_level < site)
		site = log->bt_level;
	/*
	 * After shutdown began, callers stop at the level check; the write
	 * level stays, so that what is still in the ring is written as it was
	 * meant to be (pairs with the store-release in sr_log_shutdown).
	 */
	if (sr_atomic_load_acquire_i32(&log->shut))
		site = SR_LOG_OFF;
	/*
	 * Relaxed: the macros' and the consumer's relaxed loads; no data is
	 * published with them.  A caller that passed the old call-site level
	 * while the write level moved is handled by the consumer's own check.
	 */
	sr_atomic_store_relaxed_i32(&c->write_level, write);
	sr_atomic_store_relaxed_i32(&c->level, site);
}

void
sr_log__update_categories(sr_log *log)
{
	for (size_t i = 0; i < log->ncats; i++)
		set_category_levels(log, log->cats[i]);
}

/* Creates or finds a category.  cat_lock held. */
static sr_category *
category_locked(sr_log *log, const char *name, sr_error *err)
{
	for (size_t i = 0; i < log->ncats; i++)
		if (strcmp(log->cats[i]->name, name) == 0)
			return log->cats[i];
	if (log->ncats == log->cats_cap) {
		size_t cap = log->cats_cap == 0 ? 16 : log->cats_cap * 2;
		/* an array of pointers: sizeof *grown is the pointer size, as intended */
		sr_category **grown = realloc(log->cats, cap * sizeof *grown); /* NOLINT(bugprone-sizeof-expression) */
		if (grown == NULL) {
			sr_error_set(err, SR_ENOMEM, "cannot grow the category registry to %zu", cap);
			return NULL;
		}
		log->cats = grown;
		log->cats_cap = cap;
	}
	sr_category *c = malloc(sizeof *c);
	char *copy = strdup(name);
	if (c == NULL || copy == NULL) {
		free(c);
		free(copy);
		sr_error_set(err, SR_ENOMEM, "cannot allocate category '%.64s'", name);
		return NULL;
	}
	c->id = (int32_t)log->ncats;
	c->log = log;
	c->name = copy;
	set_category_levels(log, c);
	log->cats[log->ncats++] = c;
	return c;
}

sr_category *
sr_log_category_get(sr_log *log, const char *name, sr_error *err)
{
	if (log == NULL) {
		sr_error_set(err, SR_EINVAL, "logger is NULL");
		return NULL;
	}
	if (name == NULL || !sr_log__valid_category_name(name)) {
		sr_error_set(err, SR_EINVAL,
		    "category name '%.64s' is invalid: expected 1 to %d printable characters without "
		    "spaces, ',' or '=', in non-empty dot-separated parts", name != NULL ? name : "(null)",
		    MAX_CATEGORY_NAME);
		return NULL;
	}
	pthread_mutex_lock(&log->cat_lock);
	sr_category *c = NULL;
	if (sr_atomic_load_acquire_i32(&log->shut))
		sr_error_set(err, SR_ESTATE, "the logger is shut down");
	else
		c = category_locked(log, name, err);
	pthread_mutex_unlock(&log->cat_lock);
	return c;
}

sr_category *
sr_log_category(sr_log *log, const char *name)
{
	sr_category *c = sr_log_category_get(log, name, NULL);
	return c != NULL ? c : &sr_category_off;
}

sr_category *
sr_log_root(sr_log *log)
{
	if (log == NULL || log->ncats == 0)
		return &sr_category_off;
	return log->cats[0];  /* created at open, never moves */
}

sr_log_level
sr_category_level(const sr_category *category)
{
	if (category == NULL)
		return SR_LOG_OFF;
	return (sr_log_level)sr_atomic_load_relaxed_i32(&category->write_level);
}

sr_log_level
sr_log_level_for(sr_log *log, const char *name)
{
	if (log == NULL)
		return SR_LOG_OFF;
	pthread_mutex_lock(&log->cat_lock);
	int level = configured_level(log, name != NULL ? name : "");
	pthread_mutex_unlock(&log->cat_lock);
	return (sr_log_level)level;
}

int
sr_log_set_level(sr_log *log, const char *prefix, int level, sr_error *err)
{
	if (log == NULL)
		return sr_error_set(err, SR_EINVAL, "logger is NULL");
	bool root = prefix == NULL || prefix[0] == '\0';
	if ((level < SR_LOG_TRACE || level > SR_LOG_OFF) && level != SR_LOG_INHERIT)
		return sr_error_set(err, SR_EINVAL,
		    "level %d is invalid: expected SR_LOG_TRACE (0) to SR_LOG_OFF (6) or SR_LOG_INHERIT (-1)",
		    level);
	if (root && level == SR_LOG_INHERIT)
		return sr_error_set(err, SR_EINVAL, "the root level cannot be SR_LOG_INHERIT: it has no parent");
	if (!root && !sr_log__valid_category_name(prefix))
		return sr_error_set(err, SR_EINVAL,
		    "category prefix '%.64s' is invalid: expected 1 to %d printable characters without "
		    "spaces, ',' or '=', in non-empty dot-separated parts", prefix, MAX_CATEGORY_NAME);
	int rc = SR_OK;
	pthread_mutex_lock(&log->cat_lock);
	if (sr_atomic_load_acquire_i32(&log->shut)) {
		rc = sr_error_set(err, SR_ESTATE, "the logger is shut down");
		goto out;
	}
	if (root) {
		log->root_level = level;
		log->root_source = SR_SRC_RUNTIME;
	} else {
		size_t i;
		for (i = 0; i < log->nrules; i++)
			if (strcmp(log->rules[i].prefix, prefix) == 0)
				break;
		if (level == SR_LOG_INHERIT) {
			if (i < log->nrules) {
				free(log->rules[i].prefix);
				log->rules[i] = log->rules[--log->nrules];
			}
		} else if (i < log->nrules) {
			log->rules[i].level = level;
			log->rules[i].source = SR_SRC_RUNTIME;
		} else {
			if (log->nrules == log->rules_cap) {
				size_t cap = log->rules_cap == 0 ? 8 : log->rules_cap * 2;
				sr_log_rule *grown = realloc(log->rules, cap * sizeof *grown);
				if (grown == NULL) {
					rc = sr_error_set(err, SR_ENOMEM, "cannot grow the level rules to %zu", cap);
					goto out;
				}
				log->rules = grown;
				log->rules_cap = cap;
			}
			char *copy = strdup(prefix);
			if (copy == NULL) {
				rc = sr_error_set(err, SR_ENOMEM, "cannot copy category prefix '%.64s'", prefix);
				goto out;
			}
			log->rules[log->nrules].prefix = copy;
			log->rules[log->nrules].level = level;
			log->rules[log->nrules].source = SR_SRC_RUNTIME;
			log->nrules++;
		}
	}
	sr_log__update_categories(log);
out:
	pthread_mutex_unlock(&log->cat_lock);
	return rc;
}

/* ---------------------------------------------------------------------------------------- */
/* Counting and reporting drops                                                             */

static void
count_drop(sr_log *log, int level)
{
	if (level < 0 || level >= SR_LOG_LEVEL_COUNT)
		level = SR_LOG_OFF;
	/* Read by report_drops and sr_log_stats; no data rides on it. */
	sr_atomic_faa_i64(&log->dropped[level], 1);
}

/*
 * Writes "N message(s) dropped because the queue was full (N at info, ...)"
 * when drops happened since the last report.  Runs on the consumer (buffered,
 * then flushed) or, in sync mode, under sync_lock (written now).
 */
static void
report_drops(sr_log *log, bool now)
{
	uint64_t delta[SR_LOG_LEVEL_COUNT], total = 0;
	uint64_t current[SR_LOG_LEVEL_COUNT];
	for (int l = 0; l < SR_LOG_LEVEL_COUNT; l++) {
		current[l] = (uint64_t)sr_atomic_load_relaxed_i64(&log->dropped[l]);
		delta[l] = current[l] - log->reported_drops[l];
		total += delta[l];
	}
	if (total == 0)
		return;
	char text[512];
	int n = snprintf(text, sizeof text, "%" PRIu64 " message(s) dropped because the queue was full (",
	    total);
	const char *sep = "";
	for (int l = SR_LOG_LEVEL_COUNT - 1; l >= 0; l--) {
		if (delta[l] == 0)
			continue;
		n += snprintf(text + n, sizeof text - (size_t)n, "%s%" PRIu64 " at %s", sep, delta[l],
		    level_names[l]);
		sep = ", ";
	}
	n += snprintf(text + n, sizeof text - (size_t)n, ")");
	if (!sr_log__self.init)
		sr_log__thread_init(&sr_log__self);
	sr_fmt_buf b = { log->line, 0, log->max_line, 0 };
	sr_log__render_text(log, SR_LOG_WARN, text, (size_t)n, &b);
	sr_log__finish_line(log, &b);
	if (now) {
		sr_log__dispatch_now(log, SR_LOG_WARN, b.data, b.len);
	} else {
		sr_log__dispatch_buffered(log, SR_LOG_WARN, b.data, b.len);
		sr_log__sinks_flush(log);
	}
	memcpy(log->reported_drops, current, sizeof current);
}

/* ---------------------------------------------------------------------------------------- */
/* Rendering on a caller's thread (sync mode, queue mode, policy sync)                      */

/*
 * Renders a linear record into stack (stack_size bytes), or into a heap
 * buffer when the line is longer and max_line allows it.  Returns the line
 * (stack or heap: the caller frees it when it is not stack).
 */
static char *
render_by_caller(sr_log *log, const sr_log_rec *h, const unsigned char *body, size_t body_len,
    char *stack, size_t stack_size, size_t *len)
{
	size_t cap = stack_size - SR_FMT_LINE_RESERVE;
	if (cap > log->max_line)
		cap = log->max_line;
	sr_fmt_buf b = { stack, 0, cap, 0 };
	sr_log__render_record(log, h, body, body_len, &b);
	if (b.want > b.len && cap < log->max_line) {
		size_t need = b.want < log->max_line ? b.want : log->max_line;
		char *heap = malloc(need + SR_FMT_LINE_RESERVE);
		if (heap != NULL) {
			b = (sr_fmt_buf){ heap, 0, need, 0 };
			sr_log__render_record(log, h, body, body_len, &b);
		}
	}
	if (sr_log__finish_line(log, &b))
		sr_atomic_faa_i64(&log->truncated_lines, 1);
	if ((h->kind & SR_REC_KIND_MASK) == SR_REC_FORMAT_ERROR)
		sr_atomic_faa_i64(&log->format_errors, 1);
	if (h->kind & SR_REC_TRUNCATED)
		sr_atomic_faa_i64(&log->truncated_records, 1);
	*len = b.len;
	return b.data;
}

/* Encodes a record linearly into stack or the heap; NULL when out of memory. */
static unsigned char *
encode_linear(const sr_log_rec *h, const sr_fmt_gather *g, unsigned char *stack, size_t stack_size)
{
	unsigned char *rec = h->size <= stack_size ? stack : malloc(h->size);
	if (rec == NULL)
		return NULL;
	sr_fmt_writer w = { rec, 0, SIZE_MAX };
	sr_fmt_put(&w, h, sizeof *h);
	if (g != NULL)
		sr_fmt_write(g, &w);
	return rec;
}

/*
 * Policy sync (or sync mode): render on this thread and write now, or, when
 * buffered (sync mode without immediate_flush, under sync_lock, which makes
 * the caller the sinks' only user), append to the sinks' buffers.
 */
static void
write_by_caller(sr_log *log, const sr_log_rec *h, const sr_fmt_gather *g, bool buffered)
{
	unsigned char rstack[2048];
	char lstack[4096];
	unsigned char *rec = encode_linear(h, g, rstack, sizeof rstack);
	if (rec == NULL) {
		count_drop(log, h->level);
		return;
	}
	size_t len;
	char *line = render_by_caller(log, h, rec + sizeof *h, h->size - sizeof *h,
	    lstack, sizeof lstack, &len);
	if (buffered)
		sr_log__dispatch_buffered(log, h->level, line, len);
	else
		sr_log__dispatch_now(log, h->level, line, len);
	sr_atomic_faa_i64(&log->accepted, 1);
	sr_atomic_faa_i64(&log->written, 1);
	sr_atomic_faa_i64(&log->written_by_caller, 1);
	if (line != lstack)
		free(line);
	if (rec != rstack)
		free(rec);
}

/* ---------------------------------------------------------------------------------------- */
/* The hot path                                                                             */

enum { FULL_CLAIMED, FULL_DROPPED, FULL_BY_CALLER };

/* The ring had no room for k slots: apply the policy.  Out of line on purpose. */
__attribute__((noinline)) static int
when_full(sr_log *log, int level, int64_t k, int64_t *first)
{
	/* A consumer (or a sink's write) that waited for the consumer would wait forever. */
	if (sr_log__must_not_wait())
		goto drop;
	switch (log->policy) {
	case SR_LOG_FULL_DROP:
		goto drop;
	case SR_LOG_FULL_SYNC:
		return FULL_BY_CALLER;
	case SR_LOG_FULL_DISCARD:
		if (level <= log->discard_level)
			goto drop;
		break;
	default:
		break;
	}
	/*
	 * Block: the sequencer's full-ring wait (backoff, synchronized enqueue),
	 * in slices, so that a caller stranded by a shutdown gives up.
	 */
	for (;;) {
		int rc = sr_sequencer_claim_until(log->seq, k, sr_monotonic_ns() + BLOCK_SLICE_NS, first);
		if (rc == SR_OK)
			return FULL_CLAIMED;
		/* pairs with the store-release in sr_log_shutdown */
		if (rc != SR_ETIMEDOUT || sr_atomic_load_acquire_i32(&log->shut))
			goto drop;
	}
drop:
	count_drop(log, level);
	return FULL_DROPPED;
}

static void
ring_emit(sr_log *log, const sr_log_rec *h, const sr_fmt_gather *g)
{
	int64_t k = (int64_t)((h->size + ((size_t)1 << log->slot_shift) - 1) >> log->slot_shift);
	int64_t first;
	if (__builtin_expect(sr_sequencer_try_claim_n(log->seq, k, &first) != SR_OK, 0)) {
		int r = when_full(log, h->level, k, &first);
		if (r == FULL_DROPPED)
			return;
		if (r == FULL_BY_CALLER) {
			/* A message let in for the backtrace only is not the caller's to write. */
			if (log->bt_size > 0 && h->cat != NULL &&
			    (int)h->level < sr_atomic_load_relaxed_i32(&h->cat->write_level)) {
				count_drop(log, h->level);
				return;
			}
			write_by_caller(log, h, g, false);
			return;
		}
	}
	const sr_ring *ring = log->ring;
	/* The writer wraps at the ring's physical end: records may straddle it. */
	sr_fmt_writer w = { ring->slots, (size_t)(first & ring->mask) << log->slot_shift, ring->bytes };
	sr_fmt_put(&w, h, sizeof *h);
	if (g != NULL)
		sr_fmt_write(g, &w);
	/* Top-down in MP mode: the consumer sees all k slots or none. */
	sr_sequencer_publish_range(log->seq, first, first + k - 1);
}

static void
sync_emit(sr_log *log, const sr_log_rec *h, const sr_fmt_gather *g)
{
	/* A sink callback logging from inside the one mutex would deadlock on it. */
	if (sr_log__self.in_sink > 0) {
		count_drop(log, h->level);
		return;
	}
	pthread_mutex_lock(&log->sync_lock);
	if (!log->immediate_flush && sr_atomic_load_acquire_i32(&log->shut)) {
		/*
		 * pairs with the store-release in sr_log_shutdown: the sinks'
		 * buffers were flushed for the last time (a caller that logs after
		 * the shutdown began is counted as a drop, as in the other modes).
		 */
		pthread_mutex_unlock(&log->sync_lock);
		count_drop(log, h->level);
		return;
	}
	if (log->clk != NULL)
		sr_log__clock_refresh(log, false); /* no consumer here: callers keep tsc calibrated */
	write_by_caller(log, h, g, !log->immediate_flush);
	pthread_mutex_unlock(&log->sync_lock);
}

static void
queue_emit(sr_log *log, const sr_log_rec *h, const sr_fmt_gather *g)
{
	unsigned char rstack[2048];
	char lstack[4096];
	unsigned char *rec = encode_linear(h, g, rstack, sizeof rstack);
	if (rec == NULL) {
		count_drop(log, h->level);
		return;
	}
	size_t len;
	char *line = render_by_caller(log, h, rec + sizeof *h, h->size - sizeof *h,
	    lstack, sizeof lstack, &len);
	if (rec != rstack)
		free(rec);
	char *copy = line;
	if (line == lstack) {
		copy = malloc(len);
		if (copy != NULL)
			memcpy(copy, line, len);
	}
	if (copy == NULL) {
		count_drop(log, h->level);
		return;
	}
	pthread_mutex_lock(&log->q_lock);
	while (log->q_count == log->capacity) {
		bool drop = sr_log__must_not_wait() || log->q_stop ||
		    log->policy == SR_LOG_FULL_DROP ||
		    (log->policy == SR_LOG_FULL_DISCARD && h->level <= log->discard_level);
		if (drop || log->policy == SR_LOG_FULL_SYNC) {
			pthread_mutex_unlock(&log->q_lock);
			if (drop) {
				count_drop(log, h->level);
			} else {
				sr_log__dispatch_now(log, h->level, copy, len);
				sr_atomic_faa_i64(&log->accepted, 1);
				sr_atomic_faa_i64(&log->written, 1);
				sr_atomic_faa_i64(&log->written_by_caller, 1);
			}
			free(copy);
			return;
		}
		pthread_cond_wait(&log->q_not_full, &log->q_lock);
	}
	sr_log_qentry *e = &log->q[(log->q_head + log->q_count) & (log->capacity - 1)];
	e->line = copy;
	e->len = (uint32_t)len;
	e->level = h->level;
	log->q_count++;
	log->q_enqueued++;
	sr_atomic_faa_i64(&log->accepted, 1);
	pthread_cond_signal(&log->q_not_empty);
	pthread_mutex_unlock(&log->q_lock);
}

__attribute__((noinline)) static void
emit_format_error(sr_log *log, sr_log_rec *h)
{
	h->kind = SR_REC_FORMAT_ERROR;
	h->size = sizeof *h;
	h->value_bytes = 0;
	h->ts_ns = sr_log__clock_read(log);
	switch (log->mode) {
	case SR_LOG_MODE_RING: ring_emit(log, h, NULL); break;
	case SR_LOG_MODE_QUEUE: queue_emit(log, h, NULL); break;
	default: sync_emit(log, h, NULL); break;
	}
}

void
sr_log_emit(sr_category *cat, sr_site *site, const char *format, ...)
{
	int saved_errno = errno;
	sr_log *log = cat->log;
	(void)format; /* the site's copy is used; the macro passes it for the format check */
	if (__builtin_expect(log == NULL, 0))
		return;
	sr_log_thread *self = &sr_log__self;
	if (__builtin_expect(!self->init, 0))
		sr_log__thread_init(self);
	sr_fmt_sig scratch;
	const sr_fmt_sig *sig = sr_site_sig(site, &scratch);

	sr_log_rec h;
	h.kind = SR_REC_MESSAGE;
	h.level = (uint8_t)site->level;
	h.tid = self->tid;
	h.errno_value = saved_errno;
	h.site = site;
	h.cat = cat;
	memcpy(h.thread, self->name, sizeof h.thread);
	if (__builtin_expect(sig->error != SR_FMT_OK, 0)) {
		emit_format_error(log, &h);
		errno = saved_errno;
		return;
	}

	sr_fmt_gather g;
	va_list ap;
	va_start(ap, format);
	sr_fmt_gather_args(&g, sig, log->max_record, &ap);
	va_end(ap);
	h.ts_ns = sr_log__clock_read(log);
	h.size = (uint32_t)sr_fmt_fit(&g, sizeof h, log->max_record);
	h.value_bytes = g.value_bytes;
	if (__builtin_expect(g.truncated, 0))
		h.kind |= SR_REC_TRUNCATED;

	if (__builtin_expect(log->mode == SR_LOG_MODE_RING, 1))
		ring_emit(log, &h, &g);
	else if (log->mode == SR_LOG_MODE_QUEUE)
		queue_emit(log, &h, &g);
	else
		sync_emit(log, &h, &g);
	/* Logging never changes errno (a clock or a sink may have). */
	errno = saved_errno;
}

/* ---------------------------------------------------------------------------------------- */
/* The consumer (ring mode)                                                                 */

static void
consumer_thread_setup(sr_log *log)
{
	sr_log_thread *self = &sr_log__self;
	self->consumer_of = log;
	sr_log_thread_name(log->thread_name);
	/* SIGPIPE stays blocked on this thread for its life: a dead pipe reader is an EPIPE. */
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	pthread_setname_np(pthread_self(), log->thread_name);
}

/* Publishes the consumer's batch counters. */
static void
publish_batch_counters(sr_log *log)
{
	/* Relaxed adds: counters only, read by sr_log_stats. */
	if (log->batch_accepted != 0) {
		sr_atomic_faa_i64(&log->accepted, (int64_t)log->batch_accepted);
		log->batch_accepted = 0;
	}
	if (log->batch_written != 0) {
		sr_atomic_faa_i64(&log->written, (int64_t)log->batch_written);
		log->batch_written = 0;
	}
	if (log->batch_format_errors != 0) {
		sr_atomic_faa_i64(&log->format_errors, (int64_t)log->batch_format_errors);
		log->batch_format_errors = 0;
	}
	if (log->batch_truncated_records != 0) {
		sr_atomic_faa_i64(&log->truncated_records, (int64_t)log->batch_truncated_records);
		log->batch_truncated_records = 0;
	}
	if (log->batch_truncated_lines != 0) {
		sr_atomic_faa_i64(&log->truncated_lines, (int64_t)log->batch_truncated_lines);
		log->batch_truncated_lines = 0;
	}
	if (log->max_occupancy_seen > sr_atomic_load_relaxed_i64(&log->max_occupancy))
		sr_atomic_store_relaxed_i64(&log->max_occupancy, log->max_occupancy_seen);
}

static void
end_of_batch(sr_log *log)
{
	sr_log__crash_checkpoint(log);
	sr_log__sinks_flush(log);
	publish_batch_counters(log);
	report_drops(log, false);
	/* tsc: a cheap check, a recalibration when due (see sr_log_clock.c). */
	if (log->clk != NULL)
		sr_log__clock_refresh(log, false);
}

/* Formats one record and hands its line to the sinks (consumer only). */
static void
consume_record(sr_log *log, const sr_log_rec *h, const unsigned char *body, size_t body_len)
{
	int kind = h->kind & SR_REC_KIND_MASK;
	if (kind == SR_REC_DUMP && log->bt_size > 0)
		sr_log__bt_dump(log, SR_LOG_FATAL);
	if (kind == SR_REC_NOTICE || kind == SR_REC_DUMP)
		return;
	log->batch_accepted++;
	if (log->bt_size > 0) {
		/* Let in for the backtrace only: keep it, unwritten (relaxed: see set_category_levels). */
		if (h->cat != NULL && kind == SR_REC_MESSAGE &&
		    (int)h->level < sr_atomic_load_relaxed_i32(&h->cat->write_level)) {
			sr_log__bt_keep(log, h, body, body_len);
			return;
		}
		if ((int)h->level >= log->bt_trigger && log->bt_count > 0)
			sr_log__bt_dump(log, h->level);
	}
	if (kind == SR_REC_FORMAT_ERROR)
		log->batch_format_errors++;
	if (h->kind & SR_REC_TRUNCATED)
		log->batch_truncated_records++;
	sr_fmt_buf b = { log->line, 0, log->max_line, 0 };
	sr_log__render_record(log, h, body, body_len, &b);
	if (sr_log__finish_line(log, &b))
		log->batch_truncated_lines++;
	sr_log__dispatch_buffered(log, h->level, b.data, b.len);
	log->batch_written++;
}

static int
on_event(void *ctx, void *slot, int64_t sequence, bool end_of_batch_flag)
{
	sr_log *log = ctx;
	sr_log__crash_checkpoint(log);
	/* Continuation slots of a multi-slot record were handled with its first. */
	if (sequence >= log->skip_until) {
		sr_log_rec h;
		memcpy(&h, slot, sizeof h);
		size_t max = log->max_record > sizeof h ? log->max_record : sizeof h;
		if (h.size < sizeof h || h.size > max) {
			/* Not a record we wrote: skip the slot rather than read garbage. */
			log->skip_until = sequence + 1;
		} else {
			int64_t k = (int64_t)((h.size + ((size_t)1 << log->slot_shift) - 1) >> log->slot_shift);
			log->skip_until = sequence + k;
			const unsigned char *rec = slot;
			if (h.size > sr_ring_contiguous_bytes(log->ring, sequence)) {
				/* It wraps at the physical end: copy it out in one piece. */
				sr_ring_read(log->ring, sequence, log->scratch, h.size);
				rec = log->scratch;
			}
			consume_record(log, &h, rec + sizeof h, h.size - sizeof h);
			/*
			 * pairs with the crash handler's load-acquire: the record's
			 * line is in the sinks' buffers (or written) once it sees this.
			 */
			sr_atomic_store_release_i64(&log->handled_seq, sequence + k - 1);
		}
	}
	if (end_of_batch_flag)
		end_of_batch(log);
	return 0;
}

static void
on_start(void *ctx)
{
	consumer_thread_setup(ctx);
}

static void
on_batch_start(void *ctx, int64_t batch_size, int64_t queue_depth)
{
	sr_log *log = ctx;
	(void)batch_size;
	if (queue_depth > log->max_occupancy_seen)
		log->max_occupancy_seen = queue_depth;
	sr_atomic_faa_i64(&log->batches, 1);
}

static void
on_timeout(void *ctx, int64_t sequence)
{
	(void)sequence;
	end_of_batch(ctx);
}

static void
on_shutdown(void *ctx)
{
	end_of_batch(ctx);
}

/* ---------------------------------------------------------------------------------------- */
/* The queue drainer (queue mode)                                                           */

static void *
queue_main(void *arg)
{
	sr_log *log = arg;
	consumer_thread_setup(log);
	pthread_mutex_lock(&log->q_lock);
	for (;;) {
		while (log->q_count == 0 && !log->q_stop) {
			struct timespec dl;
			clock_gettime(CLOCK_MONOTONIC, &dl);
			dl.tv_nsec += QUEUE_IDLE_NS;
			if (dl.tv_nsec >= 1000000000) {
				dl.tv_sec++;
				dl.tv_nsec -= 1000000000;
			}
			if (pthread_cond_timedwait(&log->q_not_empty, &log->q_lock, &dl) != 0 &&
			    log->q_count == 0) {
				pthread_mutex_unlock(&log->q_lock);
				end_of_batch(log);
				pthread_mutex_lock(&log->q_lock);
			}
		}
		if (log->q_count == 0)
			break; /* stopped and drained */
		int64_t n = log->q_count, head = log->q_head;
		pthread_mutex_unlock(&log->q_lock);
		/* Entries head .. head+n-1 are ours until q_count drops: callers append after them. */
		if (n > log->max_occupancy_seen)
			log->max_occupancy_seen = n;
		sr_atomic_faa_i64(&log->batches, 1);
		for (int64_t i = 0; i < n; i++) {
			sr_log_qentry *e = &log->q[(head + i) & (log->capacity - 1)];
			if (e->line != NULL) {
				sr_log__dispatch_buffered(log, e->level, e->line, e->len);
				log->batch_written++;
				free(e->line);
				e->line = NULL;
			}
		}
		end_of_batch(log);
		pthread_mutex_lock(&log->q_lock);
		log->q_head = (head + n) & (log->capacity - 1);
		log->q_count -= n;
		log->q_done += (uint64_t)n;
		pthread_cond_broadcast(&log->q_not_full);
		pthread_cond_broadcast(&log->q_progress);
	}
	pthread_mutex_unlock(&log->q_lock);
	end_of_batch(log);
	return NULL;
}

/* ---------------------------------------------------------------------------------------- */
/* Lifecycle                                                                                */

static pthread_mutex_t exit_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;
static sr_log *exit_head;
static sr_atomic_ptr default_log;

static void
run_at_exit(void)
{
	pthread_mutex_lock(&exit_lock);
	for (sr_log *l = exit_head; l != NULL; l = l->exit_next)
		sr_log_shutdown(l);
	pthread_mutex_unlock(&exit_lock);
}

static void
register_at_exit(void)
{
	atexit(run_at_exit);
}

static void
free_log(sr_log *log)
{
	if (log->proc != NULL)
		sr_processor_destroy(log->proc);
	sr_sequencer_destroy(log->seq);
	sr_ring_destroy(log->ring);
	if (log->q != NULL) {
		for (int64_t i = 0; i < log->capacity; i++)
			free(log->q[i].line);
		free(log->q);
	}
	for (size_t i = 0; i < log->ncats; i++) {
		free((char *)log->cats[i]->name);
		free(log->cats[i]);
	}
	free(log->cats);
	for (size_t i = 0; i < log->nrules; i++)
		free(log->rules[i].prefix);
	free(log->rules);
	sr_log__sinks_free(log);
	free(log->line);
	free(log->scratch);
	free(log->thread_name);
	free(log->wait_spec);
	free(log->pattern_text);
	sr_log__pattern_free(log->pattern);
	sr_log__clock_close(log);
	sr_log__bt_free(log);
	free(log->crash_rec);
	free(log->crash_line);
	for (int i = 0; i < SR_SET_COUNT; i++)
		free(log->settings.env_value[i]);
	pthread_mutex_destroy(&log->q_lock);
	pthread_cond_destroy(&log->q_not_empty);
	pthread_cond_destroy(&log->q_not_full);
	pthread_cond_destroy(&log->q_progress);
	pthread_mutex_destroy(&log->sync_lock);
	pthread_mutex_destroy(&log->cat_lock);
	pthread_mutex_destroy(&log->life_lock);
	free(log);
}

static int
start_ring(sr_log *log, const sr_log_config *c, const sr_wait_config *wait, sr_error *err)
{
	log->ring = sr_ring_create(c->ring_slots, c->slot_size, NULL, NULL, err);
	if (log->ring == NULL)
		return err != NULL ? err->code : SR_ENOMEM;
	sr_sequencer_config sc;
	sr_sequencer_config_default(&sc, c->ring_slots, SR_PRODUCER_MULTI);
	sc.synchronize_enqueue_when_full = c->synchronize_enqueue_when_full;
	sc.wait = *wait;
	log->seq = sr_sequencer_create(&sc, err);
	if (log->seq == NULL)
		return err != NULL ? err->code : SR_ENOMEM;
	log->scratch = malloc(c->max_message_bytes);
	if (log->scratch == NULL)
		return sr_error_set(err, SR_ENOMEM, "cannot allocate the consumer's record buffer");
	unsigned shift = 0;
	while (((size_t)1 << shift) < c->slot_size)
		shift++;
	log->slot_shift = shift;
	log->skip_until = INT64_MIN;
	/*
	 * Bounded batches: the processor advances its sequence (and so frees
	 * slots for blocked callers) at the end of each batch; a batch may end
	 * inside a multi-slot record, whose continuation slots are then skipped.
	 */
	int64_t max_batch = c->ring_slots >= 8192 ? 4096 : (c->ring_slots / 2 > 0 ? c->ring_slots / 2 : 1);
	sr_processor_config pc = {
		.ring = log->ring,
		.sequencer = log->seq,
		.handler = {
			.ctx = log,
			.on_event = on_event,
			.on_start = on_start,
			.on_batch_start = on_batch_start,
			.on_timeout = on_timeout,
			.on_shutdown = on_shutdown,
		},
		.max_batch_size = max_batch,
	};
	log->proc = sr_processor_create(&pc, err);
	if (log->proc == NULL)
		return err != NULL ? err->code : SR_ENOMEM;
	int rc = sr_sequencer_add_gating(log->seq, sr_processor_sequence(log->proc));
	if (rc != SR_OK)
		return sr_error_set(err, rc, "cannot gate the ring on the consumer");
	rc = sr_processor_start(log->proc, err);
	if (rc != SR_OK)
		return rc;
	log->consumer_started = true;
	return SR_OK;
}

static int
start_queue(sr_log *log, sr_error *err)
{
	log->q = calloc((size_t)log->capacity, sizeof *log->q);
	if (log->q == NULL)
		return sr_error_set(err, SR_ENOMEM, "cannot allocate a queue of %" PRId64 " entries",
		    log->capacity);
	int e = pthread_create(&log->q_thread, NULL, queue_main, log);
	if (e != 0)
		return sr_error_set(err, SR_ESYS, "pthread_create failed: %s", strerror(e));
	log->consumer_started = true;
	return SR_OK;
}

/*
 * A configuration error that may involve values from the environment: say
 * which variables were applied, so that the user looks there too.
 */
static void
note_environment(const sr_log_resolved *r, sr_error *err)
{
	if (err == NULL)
		return;
	char note[SR_ERROR_MESSAGE_MAX];
	size_t len = 0;
	for (int i = 0; i < SR_SET_COUNT; i++) {
		if (r->settings.source[i] != SR_SRC_ENV)
			continue;
		int n = snprintf(note + len, sizeof note - len, "%s%s=%.24s", len == 0 ? " (from the environment: " : ", ",
		    sr_log__env_name(i), r->settings.env_value[i]);
		if (n < 0 || (size_t)n >= sizeof note - len)
			return;
		len += (size_t)n;
	}
	size_t have = strlen(err->message);
	if (len > 0 && have + len + 2 <= sizeof err->message) {
		memcpy(err->message + have, note, len);
		err->message[have + len] = ')';
		err->message[have + len + 1] = '\0';
	}
}

sr_log *
sr_log_open(const sr_log_config *config, sr_error *err)
{
	sr_log_config defaults;
	if (config == NULL) {
		sr_log_config_default(&defaults);
		config = &defaults;
	}
	/* The code's configuration with the environment applied (sr_log_env.c). */
	sr_log_resolved *r = calloc(1, sizeof *r);
	if (r == NULL) {
		sr_error_set(err, SR_ENOMEM, "cannot allocate a logger");
		return NULL;
	}
	if (sr_log__resolve(config, r, err) != SR_OK) {
		sr_log__resolved_free(r);
		free(r);
		return NULL;
	}
	config = &r->cfg;
	sr_wait_config wait;
	if (validate(config, &wait, err) != SR_OK) {
		note_environment(r, err);
		sr_log__resolved_free(r);
		free(r);
		return NULL;
	}

	sr_log *log = calloc(1, sizeof *log);
	if (log == NULL) {
		sr_error_set(err, SR_ENOMEM, "cannot allocate a logger");
		sr_log__resolved_free(r);
		free(r);
		return NULL;
	}
	pthread_mutex_init(&log->life_lock, NULL);
	pthread_mutex_init(&log->cat_lock, NULL);
	pthread_mutex_init(&log->sync_lock, NULL);
	pthread_mutex_init(&log->q_lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&log->q_not_empty, &ca);
	pthread_cond_init(&log->q_not_full, &ca);
	pthread_cond_init(&log->q_progress, &ca);
	pthread_condattr_destroy(&ca);

	log->mode = config->mode;
	log->policy = config->full_policy;
	log->discard_level = config->discard_level;
	log->layout = config->layout;
	log->max_record = config->max_message_bytes;
	log->max_line = config->max_line_bytes;
	log->capacity = config->ring_slots;
	log->close_at_exit = config->close_at_exit;
	log->describe = config->describe;
	log->slot_size = config->slot_size;
	log->synchronize_enqueue = config->synchronize_enqueue_when_full;
	log->immediate_flush = config->immediate_flush;
	log->bt_size = config->backtrace_size;
	log->bt_level = config->backtrace_level;
	log->bt_trigger = config->backtrace_trigger;
	sr_atomic_store_relaxed_i64(&log->handled_seq, -1);
	/* The settings' sources move into the logger (for sr_log_describe). */
	log->settings = r->settings;
	memset(r->settings.env_value, 0, sizeof r->settings.env_value);
	if (sr_log__apply_specs(log, r, err) != SR_OK)
		goto fail;
	log->thread_name = strdup(config->thread_name != NULL ? config->thread_name : "seqring-log");
	log->wait_spec = strdup(config->wait_strategy != NULL ? config->wait_strategy : SR_LOG_DEFAULT_WAIT);
	log->line = malloc(log->max_line + SR_FMT_LINE_RESERVE);
	if (log->thread_name == NULL || log->wait_spec == NULL || log->line == NULL) {
		sr_error_set(err, SR_ENOMEM, "cannot allocate the logger's buffers");
		goto fail;
	}
	if (config->pattern != NULL) {
		log->pattern_text = strdup(config->pattern);
		if (log->pattern_text == NULL) {
			sr_error_set(err, SR_ENOMEM, "cannot copy the pattern");
			goto fail;
		}
		if (sr_log__pattern_compile(config->pattern, &log->pattern, err) != SR_OK)
			goto fail;
	}
	if (sr_log__clock_open(log, config->clock, err) != SR_OK)
		goto fail;
	if (sr_log__bt_open(log, err) != SR_OK)
		goto fail;
	if (sr_log__sinks_open(log, config->sinks, config->sink_count, err) != SR_OK)
		goto fail;
	log->min_sink_level = SR_LOG_OFF;
	for (int i = 0; i < log->nsinks; i++)
		if ((int)log->sinks[i].cfg.level < log->min_sink_level)
			log->min_sink_level = (int)log->sinks[i].cfg.level;
	for (int l = 0; l < SR_LOG_LEVEL_COUNT; l++)
		sr_atomic_store_relaxed_i64(&log->dropped[l], 0);
	pthread_mutex_lock(&log->cat_lock);
	sr_category *root = category_locked(log, "", err);
	pthread_mutex_unlock(&log->cat_lock);
	if (root == NULL)
		goto fail;

	int rc = SR_OK;
	if (log->mode == SR_LOG_MODE_RING)
		rc = start_ring(log, config, &wait, err);
	else if (log->mode == SR_LOG_MODE_QUEUE)
		rc = start_queue(log, err);
	if (rc != SR_OK)
		goto fail;

	if (config->crash_handler && sr_log_install_crash_handler(log, err) != SR_OK) {
		sr_log_shutdown(log);
		goto fail_stopped;
	}
	if (log->close_at_exit) {
		pthread_once(&exit_once, register_at_exit);
		pthread_mutex_lock(&exit_lock);
		log->exit_next = exit_head;
		exit_head = log;
		log->in_exit_list = true;
		pthread_mutex_unlock(&exit_lock);
	}
	sr_log__resolved_free(r);
	free(r);
	if (log->describe)
		sr_log_describe(log, stderr);
	return log;
fail_stopped:
	/* The sinks are closed (descriptors with close_fd too: the open failed late). */
	free_log(log);
	sr_log__resolved_free(r);
	free(r);
	return NULL;
fail:
	/*
	 * Undo only what this call made: files it opened.  Descriptors and
	 * callback contexts stay the caller's, since the open failed.
	 */
	if (log->consumer_started) {
		/* Only possible if something after the start fails: stop it first. */
		sr_log_shutdown(log);
	} else {
		for (int i = 0; i < log->nsinks; i++)
			if (log->sinks[i].cfg.kind == SR_SINK_FILE && log->sinks[i].fd >= 0)
				close(log->sinks[i].fd);
	}
	free_log(log);
	sr_log__resolved_free(r);
	free(r);
	return NULL;
}

/* Ring mode, after the consumer stopped: handle what was published after its drain target. */
static void
drain_leftovers(sr_log *log)
{
	sr_sequence *seq = sr_processor_sequence(log->proc);
	int64_t next = sr_sequence_get(seq) + 1;
	int64_t hi = sr_sequencer_highest_published(log->seq, next, sr_sequencer_cursor(log->seq));
	for (int64_t s = next; s <= hi; s++)
		on_event(log, sr_ring_slot(log->ring, s), s, s == hi);
	if (hi >= next)
		sr_sequence_set(seq, hi); /* pairs with callers' gating load-acquire */
}

int
sr_log_shutdown(sr_log *log)
{
	if (log == NULL)
		return SR_EINVAL;
	if (sr_log__self.consumer_of == log)
		return SR_ESTATE;
	pthread_mutex_lock(&log->life_lock);
	if (log->shutdown_done) {
		pthread_mutex_unlock(&log->life_lock);
		return SR_OK;
	}
	/* The crash handler must not reach for a logger that is going away. */
	sr_log_remove_crash_handler(log);
	/* pairs with the load-acquire in when_full, sr_log_flush, the category functions */
	sr_atomic_store_release_i32(&log->shut, 1);
	pthread_mutex_lock(&log->cat_lock);
	sr_log__update_categories(log); /* every handle off: later calls end at the level check */
	pthread_mutex_unlock(&log->cat_lock);

	/* This thread acts as the consumer from here on: it must never wait on the ring. */
	const sr_log *was = sr_log__self.consumer_of;
	sr_log__self.consumer_of = log;
	if (!sr_log__self.init)
		sr_log__thread_init(&sr_log__self);
	if (log->mode == SR_LOG_MODE_RING && log->consumer_started) {
		sr_processor_drain_and_halt(log->proc);
		sr_processor_join(log->proc);
		log->consumer_started = false;
		drain_leftovers(log);
		end_of_batch(log);
	} else if (log->mode == SR_LOG_MODE_QUEUE && log->consumer_started) {
		pthread_mutex_lock(&log->q_lock);
		log->q_stop = true;
		pthread_cond_broadcast(&log->q_not_empty);
		pthread_cond_broadcast(&log->q_not_full);
		pthread_cond_broadcast(&log->q_progress);
		pthread_mutex_unlock(&log->q_lock);
		pthread_join(log->q_thread, NULL);
		log->consumer_started = false;
		end_of_batch(log);
	} else if (log->mode == SR_LOG_MODE_SYNC) {
		pthread_mutex_lock(&log->sync_lock);
		report_drops(log, true);
		sr_log__sinks_flush(log);
		pthread_mutex_unlock(&log->sync_lock);
	}
	sr_log__self.consumer_of = was;
	sr_log__sinks_close(log);
	log->shutdown_done = true;
	pthread_mutex_unlock(&log->life_lock);
	return SR_OK;
}

int
sr_log_close(sr_log **logp)
{
	if (logp == NULL || *logp == NULL)
		return SR_OK;
	sr_log *log = *logp;
	if (sr_log__self.consumer_of == log)
		return SR_ESTATE;
	sr_log_shutdown(log);
	if (log->in_exit_list) {
		pthread_mutex_lock(&exit_lock);
		for (sr_log **p = &exit_head; *p != NULL; p = &(*p)->exit_next) {
			if (*p == log) {
				*p = log->exit_next;
				break;
			}
		}
		pthread_mutex_unlock(&exit_lock);
	}
	/* Clear the default only if it is this logger. */
	if (sr_atomic_load_acquire_ptr(&default_log) == log)
		sr_atomic_store_release_ptr(&default_log, NULL);
	free_log(log);
	*logp = NULL;
	return SR_OK;
}

sr_log *
sr_log_default(void)
{
	/* pairs with the store-release in sr_log_set_default: the logger is fully built */
	return sr_atomic_load_acquire_ptr(&default_log);
}

void
sr_log_set_default(sr_log *log)
{
	/* pairs with the load-acquire in sr_log_default */
	sr_atomic_store_release_ptr(&default_log, log);
}

/*
 * Ring mode: publishes a notice record (SR_REC_NOTICE, SR_REC_DUMP) and
 * waits until the consumer has passed it: everything published before it is
 * then written.
 */
static int
ring_notice(sr_log *log, int kind)
{
	int64_t s;
	for (;;) {
		int rc = sr_sequencer_claim_until(log->seq, 1, sr_monotonic_ns() + BLOCK_SLICE_NS, &s);
		if (rc == SR_OK)
			break;
		/* pairs with the store-release in sr_log_shutdown */
		if (rc != SR_ETIMEDOUT || sr_atomic_load_acquire_i32(&log->shut))
			return SR_ESTATE;
	}
	sr_log_rec h;
	memset(&h, 0, sizeof h);
	h.size = sizeof h;
	h.kind = (uint8_t)kind;
	memcpy(sr_ring_slot(log->ring, s), &h, sizeof h);
	sr_sequencer_publish(log->seq, s);
	sr_backoff b = SR_BACKOFF_INIT;
	/* pairs with the consumer's store-release of its sequence after the batch */
	while (sr_sequence_get(sr_processor_sequence(log->proc)) < s) {
		if (sr_atomic_load_acquire_i32(&log->shut) &&
		    sr_processor_state_get(log->proc) != SR_PROCESSOR_RUNNING)
			return SR_ESTATE;
		sr_backoff_pause(&b);
	}
	return SR_OK;
}

int
sr_log_dump_backtrace(sr_log *log)
{
	if (log == NULL)
		return SR_EINVAL;
	/* pairs with the store-release in sr_log_shutdown */
	if (log->bt_size == 0 || log->mode != SR_LOG_MODE_RING || sr_log__must_not_wait() ||
	    sr_atomic_load_acquire_i32(&log->shut))
		return SR_ESTATE;
	return ring_notice(log, SR_REC_DUMP);
}

int
sr_log_flush(sr_log *log)
{
	if (log == NULL)
		return SR_EINVAL;
	/* pairs with the store-release in sr_log_shutdown */
	if (sr_log__must_not_wait() || sr_atomic_load_acquire_i32(&log->shut))
		return SR_ESTATE;
	if (log->mode == SR_LOG_MODE_RING)
		return ring_notice(log, SR_REC_NOTICE);
	if (log->mode == SR_LOG_MODE_QUEUE) {
		int rc = SR_OK;
		pthread_mutex_lock(&log->q_lock);
		while (log->q_count == log->capacity && !log->q_stop)
			pthread_cond_wait(&log->q_not_full, &log->q_lock);
		if (log->q_stop) {
			rc = SR_ESTATE;
		} else {
			sr_log_qentry *e = &log->q[(log->q_head + log->q_count) & (log->capacity - 1)];
			e->line = NULL;
			e->len = 0;
			e->level = 0;
			log->q_count++;
			uint64_t target = ++log->q_enqueued;
			pthread_cond_signal(&log->q_not_empty);
			while (log->q_done < target && !log->q_stop)
				pthread_cond_wait(&log->q_progress, &log->q_lock);
		}
		pthread_mutex_unlock(&log->q_lock);
		return rc;
	}
	pthread_mutex_lock(&log->sync_lock);
	report_drops(log, true);
	/* Lines buffered without immediate_flush (under this lock, see sync_emit). */
	sr_log__sinks_flush(log);
	pthread_mutex_unlock(&log->sync_lock);
	return SR_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* Statistics                                                                               */

int
sr_log_stats(sr_log *log, sr_log_counters *st)
{
	if (log == NULL || st == NULL)
		return SR_EINVAL;
	memset(st, 0, sizeof *st);
	st->accepted = (uint64_t)sr_atomic_load_relaxed_i64(&log->accepted);
	st->written = (uint64_t)sr_atomic_load_relaxed_i64(&log->written);
	st->written_by_caller = (uint64_t)sr_atomic_load_relaxed_i64(&log->written_by_caller);
	for (int l = 0; l < SR_LOG_LEVEL_COUNT; l++) {
		st->dropped_by_level[l] = (uint64_t)sr_atomic_load_relaxed_i64(&log->dropped[l]);
		st->dropped += st->dropped_by_level[l];
	}
	st->format_errors = (uint64_t)sr_atomic_load_relaxed_i64(&log->format_errors);
	st->truncated_records = (uint64_t)sr_atomic_load_relaxed_i64(&log->truncated_records);
	st->truncated_lines = (uint64_t)sr_atomic_load_relaxed_i64(&log->truncated_lines);
	st->max_occupancy = sr_atomic_load_relaxed_i64(&log->max_occupancy);
	st->backtrace_written = (uint64_t)sr_atomic_load_relaxed_i64(&log->bt_written);
	st->backtrace_discarded = (uint64_t)sr_atomic_load_relaxed_i64(&log->bt_discarded);
	st->capacity = log->capacity;
	st->batches = (uint64_t)sr_atomic_load_relaxed_i64(&log->batches);
	st->sink_count = log->nsinks;
	for (int i = 0; i < log->nsinks; i++) {
		sr_log_sink *s = &log->sinks[i];
		sr_log_sink_counters *o = &st->sinks[i];
		o->messages = (uint64_t)sr_atomic_load_relaxed_i64(&s->messages);
		o->bytes = (uint64_t)sr_atomic_load_relaxed_i64(&s->bytes);
		o->writes = (uint64_t)sr_atomic_load_relaxed_i64(&s->writes);
		o->errors = (uint64_t)sr_atomic_load_relaxed_i64(&s->errors);
		o->lost_bytes = (uint64_t)sr_atomic_load_relaxed_i64(&s->lost_bytes);
		o->rotations = (uint64_t)sr_atomic_load_relaxed_i64(&s->rotations);
		st->sink_errors += o->errors;
	}
	return SR_OK;
}
