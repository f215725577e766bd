/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file sr_log_sites.h
 * @ingroup logger
 * @brief The process's call sites: a catalogue, and rules that switch
 * single sites on or off at run time.
 *
 * Every log macro's site is in the catalogue from the start of its program
 * (or of its shared object's load), before its first call: file, function,
 * line, format, level, and once it was called the category of its first
 * call.  Rules, in the spirit of the Linux kernel's dynamic debug, pick
 * sites by what they are and switch them:
 *
 *     file net/tcp_*.c line 100-200 +debug  debug and above at those lines: written
 *     func parse_* -info                    info and below in parse_*: never written
 *     format "retry" =warn                  warn and above written, below not
 *     category app.db +debug                debug and above through app.db
 *     file net/tcp_*.c =category            back to what their category says
 *     reset                                 every rule removed
 *
 * A command is any number of matches, every one of which a site must meet,
 * then one action; commands are separated by ';' or a new line.
 *
 * Matches:
 *   - `file GLOB`: the site's __FILE__; a GLOB without '/' is matched
 *     against the base name, one with '/' against the path and every tail
 *     of it that starts after a '/' (so `net/tcp_*.c` matches "src/net/tcp_in.c");
 *     '*' and '?' do not cross a '/' (fnmatch(3) with FNM_PATHNAME).
 *   - `func GLOB`: the function's name.
 *   - `line N`, `line N-M`, `line N-`, `line -M`: the line, bounds included.
 *   - `format TEXT`: TEXT appears in the format (TEXT is a word, or a
 *     "double-quoted" string in which \" and \\ stand for " and \).
 *   - `category GLOB`: the call's category: its dotted name matches GLOB,
 *     or, for a GLOB without '*', '?' or '[', is GLOB or below it
 *     (`app` matches app and app.db).  A site's category is known only
 *     at a call, so a rule with this match is decided call by call.
 *   - `level LEVEL`: the site's level is LEVEL.
 *
 * Actions, on a site of level L that every match took:
 *   - `+LEVEL`: when L >= LEVEL, the site is written whatever its
 *     category's level (but a category set to off, or a closed logger).
 *   - `-LEVEL`: when L <= LEVEL, the site is never written.
 *   - `=LEVEL`: written when L >= LEVEL, never written below.
 *   - `=category`: the site follows its category's level again.
 *   - `once`, `every N`, `limit R/s` (or `limit R`) with an optional
 *     `burst B` (default R): a rate limit on the site, as SR_LOG_ONCE,
 *     SR_LOG_EVERY_N and SR_LOG_LIMIT put in code (sr_log_limit.h): calls
 *     its level and the switches let through are counted, the line after
 *     suppressed calls ends with SR_LOG_LIMIT_SUFFIX, and the counts are
 *     in sr_log_stats' suppressed and the catalogue; `nolimit` removes it.
 *     A limit rule cannot have a category match; a site's limit is the
 *     last limit rule that takes it, independent of the rules that switch
 *     it, and a site under a limit takes the general path.
 * Rules are kept in the order they were set and a later rule overrides an
 * earlier one on the sites (and calls) both take.  They are the process's,
 * like the sites: set through one logger, they act on every logger's calls.
 * A sink still writes only the levels it takes (sr_sink_config.level).
 *
 * Cost to the caller.  A site switched off, like a disabled level, costs
 * the compare of its gate with its category's level: nothing after it
 * runs.  A site switched on below its category's level takes the general
 * path instead of the inline one; a site that a category rule takes is
 * decided at each call on the general path.  Changing the rules is safe
 * while other threads log: a call that read the old gate finishes as it
 * began.
 */
#ifndef SR_LOG_SITES_H
#define SR_LOG_SITES_H

#include <stddef.h>
#include <stdint.h>

#include "sr_error.h"
#include "sr_export.h"
#include "sr_log_site.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sr_log;

/** @brief What the rules make of a site (sr_log_site_info.state). */
typedef enum sr_log_site_state {
	SR_LOG_SITE_FOLLOWS = 0,     /**< no rule takes it: its category's level decides */
	SR_LOG_SITE_ON = 1,          /**< written at any category level but off */
	SR_LOG_SITE_OFF = 2,         /**< never written */
	SR_LOG_SITE_BY_CATEGORY = 3  /**< a rule with a category match: decided by each call's category */
} sr_log_site_state;

/** @brief One site of the catalogue, as sr_log_sites_list hands it. */
typedef struct sr_log_site_info {
	const char *file;            /**< __FILE__ */
	const char *function;        /**< __func__ */
	const char *format;          /**< the format */
	int line;                    /**< __LINE__ */
	int level;                   /**< the site's level (enum sr_log_level) */
	/** the dotted name of the category of the site's first call ("" for the root); NULL before it */
	const char *category;
	sr_log_site_state state;     /**< what the rules make of it */
	/** records of the site the consumers took (exact with one logger; counted off the caller's path) */
	uint64_t emitted;
	/** the rate limit a rule put on the site ("once", "every 100", "limit 10/s burst 20"); "" for none */
	char limit[48];
	/** with a limit: the calls it saw (its gate and category let them through) */
	uint64_t limit_calls;
	/** with a limit: the calls of limit_calls it suppressed */
	uint64_t suppressed;
} sr_log_site_info;

/**
 * @brief Called by sr_log_sites_list for each site; a non-zero return stops the walk.
 * @param site The site; its strings live as long as the site.
 * @param ctx The caller's context.
 */
typedef int (*sr_log_site_visit_fn)(const sr_log_site_info *site, void *ctx);

/**
 * @brief Adds the commands of query to the process's rules and applies them.
 *
 * Either every command of query is taken or none (a malformed one leaves
 * the rules as they were).
 * @param log A logger (the rules are the process's: see the file's text).
 * @param query Commands as above; not NULL.
 * @param err Optional: on failure, a message naming the command, the word
 *        and what was expected ("sites rule 2 \"file +debug\": 'file' needs a
 *        pattern, found '+debug'").
 * @retval SR_OK Applied.
 * @retval SR_EINVAL log or query is NULL, or query is malformed.
 * @retval SR_ENOMEM No memory for the rules.
 */
SR_API int sr_log_sites_set(struct sr_log *log, const char *query, sr_error *err);

/**
 * @brief Walks the process's catalogue of sites.
 *
 * Sites of a module are listed in its order, modules in the order they
 * registered.  Not for a sink callback or a signal handler (it holds the
 * catalogue's lock).
 * @param visit Called for each site.
 * @param ctx Handed to visit.
 * @param only_ruled Non-zero: only the sites a rule takes (switched, or under a limit).
 * @return The sites visited, or SR_EINVAL when visit is NULL.
 */
SR_API long sr_log_sites_list(sr_log_site_visit_fn visit, void *ctx, int only_ruled);

/**
 * @brief The name of a site state.
 * @param state An sr_log_site_state; any int is accepted.
 * @return "follows", "on", "off" or "by category" (static strings); NULL for any other value.
 */
SR_API const char *sr_log_site_state_name(int state);

#ifdef __cplusplus
}
#endif

#endif /* SR_LOG_SITES_H */
