/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file sr_log_category.h
 * @ingroup logger
 * @brief Category handles (dotted names with inherited levels),
 * the level rules, and the level spec in SEQRING_LOG's form.  Part of the
 * logging API (sr_log.h includes it).
 */
#ifndef SR_LOG_CATEGORY_H
#define SR_LOG_CATEGORY_H

#include <stddef.h>
#include <stdint.h>

#include "sr_atomic.h"
#include "sr_error.h"
#include "sr_export.h"
#include "sr_log_level.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief A logger (opaque; sr_log_open in sr_log.h). */
typedef struct sr_log sr_log;

/**
 * @brief A category handle.
 *
 * Logging macros read `level` (relaxed, one load); the
 * rest is private.  Handles are stable until the logger is closed.
 */
typedef struct sr_category {
	/**
	 * The call-site threshold: a message at level >= this enters the
	 * logger.  It is the effective level (write_level) or, with a
	 * backtrace, the lower backtrace_level.  Relaxed: a change reaches
	 * callers "soon", no ordering is needed (the record carries everything
	 * the consumer reads).
	 */
	sr_atomic_i32 level;
	/** private: the category's index in its logger */
	int32_t id;
	/** private: the logger it belongs to */
	sr_log *log;
	/** private: its dotted name ("" for the root) */
	const char *name;
	/**
	 * Effective level: messages at or above it are written, those below it
	 * (let in for the backtrace) are kept in the backtrace.  The higher of
	 * the category's configured level and the lowest sink level.  Read
	 * relaxed by the consumer and sr_category_level.
	 */
	sr_atomic_i32 write_level;
	/**
	 * The logger's key for the macros' inline call (sr_log_fast.h): equal
	 * to the calling thread's cached key when that thread's own ring for
	 * this logger is cached.  Set at creation, then only read.
	 */
	uint64_t fast_key;
} sr_category;

/* A category's fast_key when its logger has no per-thread rings: no thread caches it. */
#define SR_LOG__NO_FAST_KEY UINT64_MAX

/**
 * @brief The handle of a dotted category name ("net.http"), created on first use.
 *
 * Created on first use
 * with the level of its longest configured prefix ("net.http" takes "net"'s
 * level unless "net.http" has its own; "network" does not match "net").
 * Names: 1 to 255 bytes, printable ASCII except space, ',' and '=' (the
 * level specs' syntax), or UTF-8 (any language; no control character, no
 * broken sequence), made of non-empty dot-separated parts; "" is the root.
 * @param log The logger.
 * @param name The category's dotted name.
 * @param err Receives the code and message on failure; may be NULL.
 * @return The handle, stable until the logger is closed; NULL on failure, with err
 *         filled: SR_EINVAL for a bad name (the message names it) or a NULL
 *         log, SR_ENOMEM, SR_ESTATE after shutdown.
 */
SR_API sr_category *sr_log_category_get(sr_log *log, const char *name, sr_error *err);

/**
 * @brief As sr_log_category_get, but never NULL and never silent.
 *
 * Never NULL, so that a library can log through
 * sr_log_default() unconditionally; and never silent.  A refused name (or
 * SR_ENOMEM) gives &sr_category_off, a handle whose level is off (every
 * macro on it is a no-op), and writes one line on stderr naming the name and
 * why (once per name and logger).  A NULL log (sr_log_open failed) gives a
 * handle whose first log call writes one line on stderr saying why nothing
 * is logged (sr_log_open's error), then is off.  After shutdown: the off
 * handle, silently (every handle is off then).
 * @param log The logger; may be NULL (see above).
 * @param name The category's dotted name.
 * @return The handle, or an off handle as described above; never NULL.
 */
SR_API sr_category *sr_log_category(sr_log *log, const char *name);

/**
 * @brief The root category (name "", printed "root").
 * @param log The logger; NULL gives sr_log_category's NULL-logger handle.
 * @return The root handle; never NULL.
 */
SR_API sr_category *sr_log_root(sr_log *log);

/** @brief The always-off handle (never written). */
SR_API extern sr_category sr_category_off;

/**
 * @brief Sets the level of a category name and of every name below it.
 *
 * Every name below it that has no
 * longer prefix of its own ("net" affects "net.http" unless "net.http" was
 * set); NULL or "" sets the root level.  SR_LOG_INHERIT removes the prefix's
 * own level (not allowed for the root).  Every affected handle's effective
 * level is updated at once; callers see it without locks.
 * @param log The logger.
 * @param prefix The dotted name; NULL or "" for the root.
 * @param level An sr_log_level, or SR_LOG_INHERIT (not for the root).
 * @param err Receives the message on failure; may be NULL.
 * @retval SR_OK Set.
 * @retval SR_EINVAL A NULL log, a bad name or a bad level.
 * @retval SR_ENOMEM Memory ran out.
 * @retval SR_ESTATE After shutdown.
 */
SR_API int sr_log_set_level(sr_log *log, const char *prefix, int level, sr_error *err);

/**
 * @brief A handle's effective level (sr_category.write_level).
 * @param category The handle; NULL gives SR_LOG_OFF.
 * @return The level at and above which its messages are written (SR_LOG_OFF once closed).
 */
SR_API sr_log_level sr_category_level(const sr_category *category);

/**
 * @brief The configured (not effective) level a name would get: its longest prefix's.
 * @param log The logger; NULL gives SR_LOG_OFF.
 * @param name The dotted name; NULL for the root.
 * @return The level of the longest configured prefix of name.
 */
SR_API sr_log_level sr_log_level_for(sr_log *log, const char *name);

/**
 * @brief Replaces the logger's levels with a spec in SEQRING_LOG's form.
 *
 * As in
 * Rust's RUST_LOG: comma-separated directives, each a level (the root
 * level: at most one) or `prefix=level`.  Unlike RUST_LOG, a bare name is
 * an error, not "name=trace": the likeliest bare word is a misspelt level.
 * Levels are trace, debug, info, warn (warning), error, fatal, off, any
 * case; spaces around items are ignored; a prefix may appear once.  A
 * category takes the level of its longest dotted prefix ("net.http.client"
 * takes "net.http=info" over "net=warn"; "network" does not match "net").
 * Every directive set before (by code, the environment or the API) is
 * removed; the root level changes only when the spec has one.  The spec is
 * checked whole first: on SR_EINVAL nothing changed and the message names
 * the directive, e.g. "level spec 'warn,db=loud': 'db=loud': level 'loud'
 * is invalid: expected trace, debug, info, warn, error, fatal or off".
 * @param log The logger.
 * @param spec The spec, e.g. "warn,db=error,net.http=debug".
 * @param err Receives the message on failure; may be NULL.
 * @retval SR_OK The levels are replaced.
 * @retval SR_EINVAL A NULL argument or a bad directive; nothing changed.
 * @retval SR_ENOMEM Memory ran out.
 * @retval SR_ESTATE After shutdown.
 */
SR_API int sr_log_set_level_spec(sr_log *log, const char *spec, sr_error *err);

/**
 * @brief Writes the levels in force as a spec, NUL-terminated, into buf.
 *
 * The spec: "info,db=error,net.http=debug", root first, then prefixes sorted.
 * @param log The logger.
 * @param buf Receives the spec; may be NULL when size is 0.
 * @param size The size of buf in bytes.
 * @return The spec's length (as snprintf: a value >= size means it was cut), or
 *         SR_EINVAL for a NULL log or a NULL buf with a non-zero size.
 */
SR_API int sr_log_level_spec(sr_log *log, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* SR_LOG_CATEGORY_H */
