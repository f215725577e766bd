/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_log_sites.c: the catalogue of call sites and the run-time rules
 * that switch them (sr_log_sites.h): every site listed before its first
 * call; a site switched on below its category's level, off above it, set
 * to a level, or ruled by category, by file, line, function, format and
 * level; rules undone and reset; malformed rules refused whole, each with
 * a message that names the command and the word; the rules from
 * SEQRING_LOG_SITES at open; switching while threads log; the counts the
 * catalogue keeps; sr_log_describe's list.
 *
 * The rules are the process's: every test starts with `reset`.
 */
#include "test_log_support.h"

#include <seqring/sr_log_sites.h>

/* The logger of a test: message layout, per-thread rings, root level info, a capturing sink. */
static tl_capture cap;
static sr_log *logger;
static sr_category *app, *app_db, *app_net;

static void
open_logger_with(sr_log_layout layout)
{
	tl_clear_env();
	tl_capture_init(&cap);
	cap.newline_required = true;
	static sr_sink_config sink;
	sr_log_config c;
	sink = tl_capture_sink(&cap);
	tl_configure(&c, &sink, (tl_settings){ .layout = layout, .ignore_environment = true,
	    .wait_strategy = "timeout:timeout=5ms" });
	c.level = SR_LOG_INFO;
	logger = tl_open(&c);
	app = sr_log_category(logger, "app");
	app_db = sr_log_category(logger, "app.db");
	app_net = sr_log_category(logger, "app.net");
	sr_error err;
	cr_assert_eq(sr_log_sites_set(logger, "reset", &err), SR_OK, "%s", err.message);
}

static void
open_logger(void)
{
	open_logger_with(SR_LOG_LAYOUT_MESSAGE);
}

/* The text layout: the key-value fields after the message. */
static void
open_text_logger(void)
{
	open_logger_with(SR_LOG_LAYOUT_TEXT);
}

static void
close_logger(void)
{
	sr_error err;
	cr_assert_eq(sr_log_sites_set(logger, "reset", &err), SR_OK, "%s", err.message);
	tl_close(&logger, &cap);
}

#define WITH_LOGGER .init = open_logger, .fini = close_logger
#define WITH_TEXT_LOGGER .init = open_text_logger, .fini = close_logger

/* Sets rules, or the test fails with their message. */
static void
rules(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void
rules(const char *fmt, ...)
{
	char query[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(query, sizeof query, fmt, ap);
	va_end(ap);
	sr_error err;
	cr_assert_eq(sr_log_sites_set(logger, query, &err), SR_OK, "rules \"%s\": %s", query, err.message);
}

/* The lines written since the capture began that are exactly `line`. */
static size_t
written(const char *line)
{
	sr_log_flush(logger);
	return tl_capture_exact(&cap, line);
}

/* ---------------------------------------------------------------------------------------- */
/* Sites of this file, each on a line of its own so that rules can pick them                */

static int line_debug_alpha, line_debug_beta;

static void
debug_alpha(sr_category *c)
{
	line_debug_alpha = __LINE__ + 1;
	SR_DEBUG(c, "alpha at debug");
}

static void
debug_beta(sr_category *c)
{
	line_debug_beta = __LINE__ + 1;
	SR_DEBUG(c, "beta at debug");
}

static void
parse_header(sr_category *c)
{
	SR_INFO(c, "parsing a header");
	SR_WARN(c, "a header too long");
}

static int evaluations;

static int
evaluated(void)
{
	return ++evaluations;
}

static void
count_evaluations(sr_category *c)
{
	SR_INFO(c, "evaluated %d", evaluated());
}

static void
fetch(sr_category *c, int attempt)
{
	SR_INFO(c, "retry %d of the fetch", attempt);
	SR_WARN(c, "fetch failed, retry %d", attempt);
	SR_INFO(c, "fetch %d done", attempt);
}

static void
fill(sr_category *c, int order)
{
	SR_INFO(c, "fill %d", order, SR_KV("order", order), SR_KV("venue", "XNYS"));
}

/* A site no test calls: the catalogue has it all the same. */
void never_called(sr_category *c);
void
never_called(sr_category *c)
{
	SR_ERROR(c, "a site never called");
}

/* ---------------------------------------------------------------------------------------- */
/* The catalogue                                                                             */

typedef struct found {
	const char *format;
	sr_log_site_info info;
	int seen;
	long visited;
} found;

static int
find_format(const sr_log_site_info *site, void *ctx)
{
	found *f = ctx;
	f->visited++;
	if (strcmp(site->format, f->format) == 0) {
		f->info = *site;
		f->seen++;
	}
	return 0;
}

/* The catalogue's entry of the one site whose format is `format` (the test fails unless there is one). */
static sr_log_site_info
site_of(const char *format)
{
	found f = { .format = format };
	long n = sr_log_sites_list(find_format, &f, 0);
	cr_assert_eq(n, f.visited, "sr_log_sites_list returned %ld after visiting %ld sites", n, f.visited);
	cr_assert_eq(f.seen, 1, "the catalogue holds %d sites of format \"%s\": expected one", f.seen, format);
	return f.info;
}

Test(log_sites, the_catalogue_lists_a_site_before_its_first_call, WITH_LOGGER)
{
	sr_log_site_info s = site_of("a site never called");
	cr_assert_str_eq(strrchr(s.file, '/') != NULL ? strrchr(s.file, '/') + 1 : s.file, "test_log_sites.c");
	cr_assert_str_eq(s.function, "never_called");
	cr_assert_eq(s.level, SR_LOG_ERROR);
	cr_assert_gt(s.line, 0);
	cr_assert_null(s.category, "a site never called has no category yet, found \"%s\"", s.category);
	cr_assert_eq(s.state, SR_LOG_SITE_FOLLOWS);
	cr_assert_eq(s.emitted, 0);
}

Test(log_sites, the_catalogue_counts_what_a_site_wrote_and_names_its_category, WITH_LOGGER)
{
	for (int i = 0; i < 7; i++)
		fetch(app_net, i);
	sr_log_flush(logger);
	sr_log_site_info s = site_of("fetch %d done");
	cr_assert_eq(s.emitted, 7, "emitted %llu, expected 7", (unsigned long long)s.emitted);
	cr_assert_str_eq(s.category, "app.net");
}

/* ---------------------------------------------------------------------------------------- */
/* Rules                                                                                     */

Test(log_sites, plus_debug_by_file_and_line_writes_that_site_alone_below_its_category_level, WITH_LOGGER)
{
	debug_alpha(app);
	debug_beta(app);
	cr_assert_eq(written("alpha at debug"), 0, "info category: debug is off before any rule");
	rules("file test_log_sites.c line %d +debug", line_debug_alpha);
	debug_alpha(app);
	debug_beta(app);
	cr_assert_eq(written("alpha at debug"), 1);
	cr_assert_eq(written("beta at debug"), 0, "the rule's line is alpha's alone");
	cr_assert_eq(site_of("alpha at debug").state, SR_LOG_SITE_ON);
	cr_assert_eq(site_of("beta at debug").state, SR_LOG_SITE_FOLLOWS);
	/* A range with both, through a path's tail. */
	rules("file tests/logger/test_log_sites.c line %d-%d +debug", line_debug_alpha, line_debug_beta);
	debug_beta(app);
	cr_assert_eq(written("beta at debug"), 1);
}

Test(log_sites, minus_info_by_function_glob_silences_info_and_keeps_warn, WITH_LOGGER)
{
	rules("func parse_* -info");
	for (int i = 0; i < 3; i++)
		parse_header(app);
	cr_assert_eq(written("parsing a header"), 0);
	cr_assert_eq(written("a header too long"), 3, "warn is above -info: still written");
	cr_assert_eq(site_of("parsing a header").state, SR_LOG_SITE_OFF);
	cr_assert_eq(site_of("a header too long").state, SR_LOG_SITE_FOLLOWS);
	sr_log_counters st = tl_stats(logger);
	cr_assert_eq(st.dropped, 0, "a site switched off drops nothing: dropped %llu", (unsigned long long)st.dropped);
}

Test(log_sites, a_site_switched_off_evaluates_no_argument_as_a_disabled_level, WITH_LOGGER)
{
	count_evaluations(app);
	cr_assert_eq(evaluations, 1);
	rules("func count_evaluations -info");
	for (int i = 0; i < 10; i++)
		count_evaluations(app);
	cr_assert_eq(evaluations, 1, "a switched-off site evaluated its argument %d times", evaluations - 1);
	cr_assert_eq(written("evaluated 1"), 1);
	sr_log_flush(logger);
	cr_assert_eq(tl_capture_grep(&cap, "evaluated"), 1);
}

Test(log_sites, equals_warn_by_format_sets_the_sites_own_threshold, WITH_LOGGER)
{
	rules("format \"retry\" =warn");
	sr_log_set_level(logger, "app", SR_LOG_TRACE, NULL);
	fetch(app, 1);
	cr_assert_eq(written("retry 1 of the fetch"), 0, "info below =warn: off even with app at trace");
	cr_assert_eq(written("fetch failed, retry 1"), 1);
	cr_assert_eq(written("fetch 1 done"), 1, "no \"retry\" in its format: the category decides");
}

Test(log_sites, a_category_rule_decides_each_call_by_its_category, WITH_LOGGER)
{
	fetch(app_db, 0);  /* its sites' first calls: inline from now on, until a category rule holds them */
	cr_assert_eq(written("fetch 0 done"), 1);
	rules("category app.db +debug");
	debug_alpha(app_db);
	debug_alpha(app_net);
	debug_alpha(app);
	cr_assert_eq(written("alpha at debug"), 1, "only the call through app.db");
	cr_assert_eq(site_of("alpha at debug").state, SR_LOG_SITE_BY_CATEGORY);
	/* A name takes its descendants: app takes app.db and app.net; a later rule wins. */
	rules("category app -debug; category app.net +debug");
	debug_alpha(app_db);
	debug_alpha(app_net);
	cr_assert_eq(written("alpha at debug"), 2, "app.net's call now, app.db's not");
	/* A category rule that switches off an inline site holds it to the decision. */
	rules("reset; category app.db -info");
	for (int i = 0; i < 5; i++) {
		fetch(app_db, 100 + i);
		fetch(app_net, 100 + i);
	}
	cr_assert_eq(written("fetch 104 done"), 1, "app.net's line only");
	sr_log_flush(logger);
	cr_assert_eq(tl_capture_grep(&cap, "done"), 6, "fetch 0's and app.net's five");
}

Test(log_sites, equals_category_and_reset_give_the_category_back, WITH_LOGGER)
{
	rules("func debug_* +debug");
	debug_beta(app);
	cr_assert_eq(written("beta at debug"), 1);
	rules("func debug_beta =category");
	debug_beta(app);
	debug_alpha(app);
	cr_assert_eq(written("beta at debug"), 1, "beta follows its category again");
	cr_assert_eq(written("alpha at debug"), 1, "alpha is still on");
	rules("reset");
	debug_alpha(app);
	cr_assert_eq(written("alpha at debug"), 1);
	cr_assert_eq(site_of("alpha at debug").state, SR_LOG_SITE_FOLLOWS);
}

Test(log_sites, a_level_match_takes_only_sites_of_that_level, WITH_LOGGER)
{
	rules("file test_log_sites.c level warn -fatal");
	parse_header(app);
	cr_assert_eq(written("a header too long"), 0);
	cr_assert_eq(written("parsing a header"), 1);
}

Test(log_sites, a_site_switched_on_is_written_but_not_through_a_category_set_to_off, WITH_LOGGER)
{
	rules("func debug_alpha +trace");
	sr_log_set_level(logger, "app", SR_LOG_OFF, NULL);
	debug_alpha(app);
	cr_assert_eq(written("alpha at debug"), 0);
	sr_log_set_level(logger, "app", SR_LOG_ERROR, NULL);
	debug_alpha(app);
	cr_assert_eq(written("alpha at debug"), 1);
}

/* ---------------------------------------------------------------------------------------- */
/* Rate limits by rule                                                                       */

Test(log_sites, every_n_by_rule_writes_each_nth_call_and_says_how_many_were_suppressed, WITH_LOGGER)
{
	rules("format \"done\" every 10");
	for (int i = 0; i < 25; i++)
		fetch(app, i);
	cr_assert_eq(written("fetch 0 done"), 1);
	cr_assert_eq(written("fetch 10 done (9 suppressed)"), 1);
	cr_assert_eq(written("fetch 20 done (9 suppressed)"), 1);
	sr_log_flush(logger);
	cr_assert_eq(tl_capture_grep(&cap, "done"), 3);
	cr_assert_eq(tl_capture_grep(&cap, "retry"), 50, "the other sites of fetch are not limited");
	cr_assert_eq(tl_stats(logger).suppressed, 22);
	sr_log_site_info s = site_of("fetch %d done");
	cr_assert_str_eq(s.limit, "every 10");
	cr_assert_eq(s.limit_calls, 25);
	cr_assert_eq(s.suppressed, 22);
	cr_assert_eq(s.state, SR_LOG_SITE_FOLLOWS, "a limit does not switch the site");
	/* nolimit: every call written again. */
	rules("format \"done\" nolimit");
	for (int i = 100; i < 105; i++)
		fetch(app, i);
	sr_log_flush(logger);
	cr_assert_eq(tl_capture_grep(&cap, "done"), 8);
	cr_assert_str_eq(site_of("fetch %d done").limit, "");
}

Test(log_sites, a_limit_by_rule_holds_a_site_that_already_wrote_inline, WITH_LOGGER)
{
	count_evaluations(app);  /* its first call: the site writes inline from now on */
	rules("func count_evaluations every 3");
	for (int i = 0; i < 6; i++)
		count_evaluations(app);
	cr_assert_eq(written("evaluated 2"), 1);
	cr_assert_eq(written("evaluated 5 (2 suppressed)"), 1);
	sr_log_flush(logger);
	cr_assert_eq(tl_capture_grep(&cap, "evaluated"), 3);
	/* The library decides a rule's limit: the suppressed calls' arguments were evaluated. */
	cr_assert_eq(evaluations, 7);
}

Test(log_sites, a_limited_site_with_key_value_fields_keeps_them_beside_the_count, WITH_TEXT_LOGGER)
{
	rules("func fill every 3");
	for (int i = 0; i < 7; i++)
		fill(app, i);
	sr_log_flush(logger);
	cr_assert_eq(tl_capture_grep(&cap, " - fill 0 order=0 venue=XNYS ("), 1);
	cr_assert_eq(tl_capture_grep(&cap, " - fill 3 (2 suppressed) order=3 venue=XNYS ("), 1);
	cr_assert_eq(tl_capture_grep(&cap, " - fill 6 (2 suppressed) order=6 venue=XNYS ("), 1);
	cr_assert_eq(tl_capture_grep(&cap, " - fill "), 3);
	cr_assert_eq(site_of("fill %d").suppressed, 4);
}

Test(log_sites, once_by_rule_on_a_site_switched_on_below_its_level, WITH_LOGGER)
{
	rules("func debug_beta +debug; func debug_beta once");
	for (int i = 0; i < 5; i++)
		debug_beta(app);
	cr_assert_eq(written("beta at debug"), 1);
	cr_assert_eq(tl_stats(logger).suppressed, 4);
	char *text = tl_describe(logger);
	char want[128];
	snprintf(want, sizeof want, "test_log_sites.c:%d debug_beta() debug: on, once", site_of("beta at debug").line);
	cr_assert(strstr(text, want) != NULL, "no \"%s\" in:\n%s", want, text);
	free(text);
}

static int64_t fake_now;

static int64_t
fake_clock(void *ctx)
{
	(void)ctx;
	return fake_now;
}

Test(log_sites, limit_by_rule_is_a_token_bucket_on_the_limit_clock, WITH_LOGGER)
{
	fake_now = 1000000000;
	sr_log_limit_set_clock(fake_clock, NULL);
	rules("format \"done\" limit 2/s burst 3");
	for (int i = 0; i < 10; i++)
		fetch(app, i);
	sr_log_flush(logger);
	cr_assert_eq(tl_capture_grep(&cap, "done"), 3, "the burst");
	fake_now += 500000000;  /* half a second: one token */
	fetch(app, 10);
	fetch(app, 11);
	cr_assert_eq(written("fetch 10 done (7 suppressed)"), 1);
	cr_assert_eq(written("fetch 11 done"), 0);
	cr_assert_eq(site_of("fetch %d done").suppressed, 8);
	sr_log_limit_set_clock(NULL, NULL);
}

/* ---------------------------------------------------------------------------------------- */
/* Bad rules                                                                                 */

Test(log_sites, a_malformed_query_is_refused_whole_with_a_message_naming_it, WITH_LOGGER)
{
	rules("func debug_alpha +debug");
	static const struct {
		const char *query;
		const char *says;
	} bad[] = {
		{ "file +debug", "'file' needs a value" },
		{ "func parse_*", "no action" },
		{ "line 12x +debug", "'line' takes N, N-M, N- or -M" },
		{ "line 20-10 +debug", "empty range" },
		{ "line 99999999999 +debug", "'line' takes" },
		{ "file a.c file b.c +debug", "'file' is given twice" },
		{ "format \"retry +debug", "not closed" },
		{ "frobnicate +debug", "'frobnicate' is neither a match" },
		{ "file a.c +loud", "found 'loud'" },
		{ "file a.c +off", "found 'off'" },
		{ "file a.c +", "needs a level" },
		{ "level chatty -info", "'level': expected trace" },
		{ "file a.c +debug func b", "after the action" },
		{ "reset file a.c", "'reset' stands alone" },
		{ "func debug_alpha =category; line 1-0 -info", "sites rule 2" },
		{ "func fetch every 0", "'every' takes a count" },
		{ "func fetch every", "'every' takes a count of calls from 1 to 1000000000, found 'the end" },
		{ "func fetch limit 0/s", "'limit' takes calls per second" },
		{ "func fetch limit fast", "found 'fast'" },
		{ "func fetch limit 5/s burst x", "'burst' takes a count" },
		{ "category app every 2", "cannot depend on the category" },
		{ "func fetch every 2 once", "after the action" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		sr_error err = { 0 };
		cr_expect_eq(sr_log_sites_set(logger, bad[i].query, &err), SR_EINVAL, "\"%s\" was taken", bad[i].query);
		cr_expect(strstr(err.message, bad[i].says) != NULL, "\"%s\": the message \"%s\" does not say \"%s\"",
		    bad[i].query, err.message, bad[i].says);
		cr_expect(strstr(err.message, "sites rule") != NULL, "\"%s\": \"%s\" does not name the rule",
		    bad[i].query, err.message);
	}
	/* Nothing of them was kept: the first command of the last one would have undone alpha. */
	debug_alpha(app);
	cr_assert_eq(written("alpha at debug"), 1);
	sr_error err;
	cr_assert_eq(sr_log_sites_set(NULL, "reset", &err), SR_EINVAL);
	cr_assert_eq(sr_log_sites_set(logger, NULL, &err), SR_EINVAL);
	cr_assert(strstr(err.message, "query is NULL") != NULL, "%s", err.message);
	cr_assert_eq(sr_log_sites_list(NULL, NULL, 0), SR_EINVAL);
}

/* ---------------------------------------------------------------------------------------- */
/* At open, while threads log, and in sr_log_describe                                        */

Test(log_sites, rules_from_the_environment_apply_at_open_and_a_bad_one_fails_it)
{
	tl_clear_env();
	tl_capture_init(&cap);
	static sr_sink_config sink;
	sr_log_config c;
	sink = tl_capture_sink(&cap);
	tl_configure(&c, &sink, (tl_settings){ .layout = SR_LOG_LAYOUT_MESSAGE });
	c.level = SR_LOG_INFO;
	setenv("SEQRING_LOG_SITES", "reset; func debug_beta +debug", 1);
	logger = tl_open(&c);
	debug_beta(sr_log_root(logger));
	cr_assert_eq(written("beta at debug"), 1);
	tl_close(&logger, &cap);

	setenv("SEQRING_LOG_SITES", "func debug_beta +verbose", 1);
	sr_error err = tl_open_refused(&c, "a bad SEQRING_LOG_SITES");
	cr_assert(strstr(err.message, "SEQRING_LOG_SITES") != NULL && strstr(err.message, "'verbose'") != NULL,
	    "%s", err.message);
	unsetenv("SEQRING_LOG_SITES");
	c.sites = "func debug_beta -info +debug";
	err = tl_open_refused(&c, "a bad config.sites");
	cr_assert(strstr(err.message, "config.sites") != NULL && strstr(err.message, "after the action") != NULL,
	    "%s", err.message);
}

enum { LOGGERS = 4, CALLS = 20000 };

static void *
call_alpha(void *arg)
{
	(void)arg;
	for (int i = 0; i < CALLS; i++)
		debug_alpha(app);
	return NULL;
}

Test(log_sites, switching_a_site_while_threads_log_through_it_loses_no_call_once_it_settles, WITH_LOGGER)
{
	pthread_t t[LOGGERS];
	for (int i = 0; i < LOGGERS; i++)
		cr_assert_eq(pthread_create(&t[i], NULL, call_alpha, NULL), 0);
	for (int k = 0; k < 400; k++)
		rules(k % 2 == 0 ? "func debug_alpha +debug" : "func debug_alpha =category");
	for (int i = 0; i < LOGGERS; i++)
		pthread_join(t[i], NULL);
	size_t during = written("alpha at debug");
	cr_assert_leq(during, (size_t)LOGGERS * CALLS);
	/* Settled on: every call written, each once. */
	rules("func debug_alpha +debug");
	for (int i = 0; i < LOGGERS; i++)
		cr_assert_eq(pthread_create(&t[i], NULL, call_alpha, NULL), 0);
	for (int i = 0; i < LOGGERS; i++)
		pthread_join(t[i], NULL);
	cr_assert_eq(written("alpha at debug"), during + (size_t)LOGGERS * CALLS);
	sr_log_counters st = tl_stats(logger);
	cr_assert_eq(st.dropped, 0);
}

Test(log_sites, describe_lists_the_sites_under_rules, WITH_LOGGER)
{
	char *text = tl_describe(logger);
	cr_assert(strstr(text, "every site follows its category") != NULL, "%s", text);
	free(text);
	rules("func parse_header -info; func debug_beta +debug");
	text = tl_describe(logger);
	char want[128];
	snprintf(want, sizeof want, "test_log_sites.c:%d parse_header() info: off", site_of("parsing a header").line);
	cr_assert(strstr(text, want) != NULL, "no \"%s\" in:\n%s", want, text);
	snprintf(want, sizeof want, "test_log_sites.c:%d debug_beta() debug: on", site_of("beta at debug").line);
	cr_assert(strstr(text, want) != NULL, "no \"%s\" in:\n%s", want, text);
	snprintf(want, sizeof want, "sites under rules (sr_log_sites_set): 2\n");
	cr_assert(strstr(text, want) != NULL, "no \"%s\" in:\n%s", want, text);
	free(text);
}
