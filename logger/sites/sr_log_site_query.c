/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_site_query.c: the text of a sites query (sr_log_sites.h) into
 * rules.  Every command is checked before any is kept, so that a malformed
 * query changes nothing; a message names the command by its number and
 * text, the word, and what was expected.
 */
#include "sr_log_names_internal.h"
#include "sr_log_sites_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* The longest command a message quotes whole; longer ones are cut with "...". */
#define QUOTE_MAX 60

typedef struct cursor {
	const char *p;            /* the next character of the command */
	const char *end;          /* the command's end (its ';', new line or NUL) */
	const char *start;        /* the command's first character, for messages */
	int number;               /* the command's number, from 1 */
	char word[256];           /* the last word read, unquoted */
	size_t word_len;
	bool quoted;
} cursor;

static int
refuse(const cursor *c, sr_error *err, const char *fmt, const char *a, const char *b)
{
	size_t len = (size_t)(c->end - c->start);
	char problem[640];
	snprintf(problem, sizeof problem, fmt, a, b != NULL ? b : "");
	return sr_error_set(err, SR_EINVAL, "sites rule %d \"%.*s%s\": %s", c->number,
	    (int)(len > QUOTE_MAX ? QUOTE_MAX : len), c->start, len > QUOTE_MAX ? "..." : "", problem);
}

static bool
is_space(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r';
}

/* Reads the next word (a run of non-blanks, or a "quoted" string) into c->word; false at the end. */
static int
next_word(cursor *c, sr_error *err, bool *got)
{
	while (c->p < c->end && is_space(*c->p))
		c->p++;
	*got = false;
	c->word_len = 0;
	c->quoted = false;
	if (c->p == c->end)
		return SR_OK;
	*got = true;
	if (*c->p == '"') {
		c->quoted = true;
		for (c->p++;; c->p++) {
			if (c->p == c->end)
				return refuse(c, err, "a quoted string is not closed: expected '\"' before the end%s%s", "", NULL);
			char ch = *c->p;
			if (ch == '"') {
				c->p++;
				break;
			}
			if (ch == '\\' && c->p + 1 < c->end && (c->p[1] == '"' || c->p[1] == '\\'))
				ch = *++c->p;
			if (c->word_len + 1 >= sizeof c->word)
				return refuse(c, err, "a quoted string is longer than 255 bytes%s%s", "", NULL);
			c->word[c->word_len++] = ch;
		}
	} else {
		while (c->p < c->end && !is_space(*c->p)) {
			if (c->word_len + 1 >= sizeof c->word)
				return refuse(c, err, "a word is longer than 255 bytes%s%s", "", NULL);
			c->word[c->word_len++] = *c->p++;
		}
	}
	c->word[c->word_len] = '\0';
	return SR_OK;
}

static int
take_string(cursor *c, sr_error *err, const char *key, char **out)
{
	bool got;
	int rc = next_word(c, err, &got);
	if (rc != SR_OK)
		return rc;
	if (!got || (!c->quoted && c->word_len == 0))
		return refuse(c, err, "'%s' needs a value, found the end of the command%s", key, NULL);
	int level;
	if (!c->quoted && (c->word[0] == '+' || c->word[0] == '-' || c->word[0] == '=') &&
	    (strcmp(c->word + 1, "category") == 0 || (sr_log__level_of(c->word + 1, c->word_len - 1, &level) &&
	    level <= SR_LOG_FATAL)))
		return refuse(c, err, "'%s' needs a value, found the action '%s' (quote a value that looks like one)",
		    key, c->word);
	if (*out != NULL)
		return refuse(c, err, "'%s' is given twice%s", key, NULL);
	if ((*out = strdup(c->word)) == NULL)
		return sr_error_set(err, SR_ENOMEM, "sites rule %d: out of memory", c->number);
	return SR_OK;
}

static bool
parse_int(const char *s, size_t n, int32_t *v)
{
	if (n == 0 || n > 10)
		return false;
	long long x = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		x = x * 10 + (s[i] - '0');
	}
	if (x > INT32_MAX)
		return false;
	*v = (int32_t)x;
	return true;
}

/* N, N-M, N-, -M */
static int
take_lines(cursor *c, sr_error *err, sr_log__site_rule *r)
{
	bool got;
	int rc = next_word(c, err, &got);
	if (rc != SR_OK)
		return rc;
	if (!got)
		return refuse(c, err, "'line' needs N, N-M, N- or -M, found the end of the command%s%s", "", NULL);
	if (r->line_lo != INT32_MIN || r->line_hi != INT32_MAX)
		return refuse(c, err, "'line' is given twice%s%s", "", NULL);
	const char *w = c->word, *dash = strchr(w, '-');
	int32_t lo = INT32_MIN, hi = INT32_MAX;
	bool ok;
	if (dash == NULL) {
		ok = parse_int(w, c->word_len, &lo);
		hi = lo;
	} else {
		size_t left = (size_t)(dash - w), right = c->word_len - left - 1;
		ok = (left > 0 || right > 0) && (left == 0 || parse_int(w, left, &lo)) &&
		    (right == 0 || parse_int(dash + 1, right, &hi));
	}
	if (!ok)
		return refuse(c, err, "'line' takes N, N-M, N- or -M (decimal lines), found '%s'%s", c->word, NULL);
	if (lo > hi)
		return refuse(c, err, "'line %s' is an empty range: its first line is after its last%s", c->word, NULL);
	r->line_lo = lo;
	r->line_hi = hi;
	return SR_OK;
}

static int
level_of(cursor *c, sr_error *err, const char *word, const char *what, int *level)
{
	int v;
	if (!sr_log__level_of(word, strlen(word), &v) || v > SR_LOG_FATAL)
		return refuse(c, err, "%s: expected trace, debug, info, warn, error or fatal, found '%s'", what, word);
	*level = v;
	return SR_OK;
}

/* A positive count of at most 10^9 in word; false otherwise. */
static bool
parse_count(const char *word, size_t n, int64_t *v)
{
	int32_t x;
	if (!parse_int(word, n, &x) || x < 1 || x > 1000000000)
		return false;
	*v = x;
	return true;
}

/* once | every N | limit R[/s] [burst B] | nolimit, the action word already read into c->word. */
static int
take_limit(cursor *c, sr_error *err, sr_log__site_rule *r, const char *action)
{
	/* action is c->word, which the next word overwrites: which one it is, first. */
	bool once = strcmp(action, "once") == 0, every = strcmp(action, "every") == 0;
	bool got;
	int rc;
	if (once || strcmp(action, "nolimit") == 0) {
		r->action = once ? SR_LOG__SITE_ONCE : SR_LOG__SITE_NO_LIMIT;
		return SR_OK;
	}
	if ((rc = next_word(c, err, &got)) != SR_OK)
		return rc;
	if (every) {
		if (!got || !parse_count(c->word, c->word_len, &r->limit[0]))
			return refuse(c, err, "'every' takes a count of calls from 1 to 1000000000, found '%s'%s",
			    got ? c->word : "the end of the command", NULL);
		r->action = SR_LOG__SITE_EVERY;
		return SR_OK;
	}
	/* limit R or R/s */
	size_t n = got ? c->word_len : 0;
	if (n > 2 && strcmp(c->word + n - 2, "/s") == 0)
		n -= 2;
	if (!got || !parse_count(c->word, n, &r->limit[0]))
		return refuse(c, err, "'limit' takes calls per second from 1 to 1000000000 (e.g. 'limit 10/s'), found '%s'%s",
		    got ? c->word : "the end of the command", NULL);
	r->action = SR_LOG__SITE_RATE;
	r->limit[1] = r->limit[0];   /* the burst: a second's worth unless given */
	const char *before = c->p;
	if ((rc = next_word(c, err, &got)) != SR_OK)
		return rc;
	if (!got || strcmp(c->word, "burst") != 0) {
		c->p = before;   /* not ours: the next word is the command's */
		return SR_OK;
	}
	if ((rc = next_word(c, err, &got)) != SR_OK)
		return rc;
	if (!got || !parse_count(c->word, c->word_len, &r->limit[1]))
		return refuse(c, err, "'burst' takes a count of calls from 1 to 1000000000, found '%s'%s",
		    got ? c->word : "the end of the command", NULL);
	return SR_OK;
}

/* One command, from c->p to c->end: matches, then the action. */
static int
parse_command(cursor *c, sr_error *err, sr_log__site_rule *r, bool *is_reset, bool *is_empty)
{
	*r = (sr_log__site_rule){ .line_lo = INT32_MIN, .line_hi = INT32_MAX, .level = -1 };
	*is_reset = false;
	*is_empty = true;
	bool got;
	int rc;
	for (;;) {
		if ((rc = next_word(c, err, &got)) != SR_OK)
			return rc;
		if (!got)
			break;
		*is_empty = false;
		const char *w = c->word;
		if (r->action != 0)
			return refuse(c, err, "'%s' after the action: the action ends a command (separate commands with ';')%s", w, NULL);
		if (c->quoted)
			return refuse(c, err, "a quoted string \"%s\" where a match or an action was expected%s", w, NULL);
		if (strcmp(w, "reset") == 0) {
			const char *after = c->p;
			if ((rc = next_word(c, err, &got)) != SR_OK)
				return rc;
			if (got || r->file != NULL || r->func != NULL || r->format != NULL || r->category != NULL ||
			    r->level >= 0 || r->line_lo != INT32_MIN || r->line_hi != INT32_MAX)
				return refuse(c, err, "'reset' stands alone in its command%s%s", "", NULL);
			(void)after;
			*is_reset = true;
			return SR_OK;
		} else if (strcmp(w, "file") == 0) {
			if ((rc = take_string(c, err, "file", &r->file)) != SR_OK)
				return rc;
			r->file_has_slash = r->file != NULL && strchr(r->file, '/') != NULL;
		} else if (strcmp(w, "func") == 0) {
			if ((rc = take_string(c, err, "func", &r->func)) != SR_OK)
				return rc;
		} else if (strcmp(w, "format") == 0) {
			if ((rc = take_string(c, err, "format", &r->format)) != SR_OK)
				return rc;
		} else if (strcmp(w, "category") == 0) {
			if ((rc = take_string(c, err, "category", &r->category)) != SR_OK)
				return rc;
			r->category_is_glob = r->category != NULL && strpbrk(r->category, "*?[") != NULL;
		} else if (strcmp(w, "line") == 0) {
			if ((rc = take_lines(c, err, r)) != SR_OK)
				return rc;
		} else if (strcmp(w, "level") == 0) {
			if ((rc = next_word(c, err, &got)) != SR_OK)
				return rc;
			if (!got)
				return refuse(c, err, "'level' needs a level, found the end of the command%s%s", "", NULL);
			if (r->level >= 0)
				return refuse(c, err, "'level' is given twice%s%s", "", NULL);
			if ((rc = level_of(c, err, c->word, "'level'", &r->level)) != SR_OK)
				return rc;
		} else if (strcmp(w, "once") == 0 || strcmp(w, "every") == 0 || strcmp(w, "limit") == 0 ||
		    strcmp(w, "nolimit") == 0) {
			if ((rc = take_limit(c, err, r, w)) != SR_OK)
				return rc;
		} else if (w[0] == '+' || w[0] == '-' || w[0] == '=') {
			if (w[0] == '=' && strcmp(w + 1, "category") == 0) {
				r->action = SR_LOG__SITE_FOLLOW;
				continue;
			}
			if (w[1] == '\0')
				return refuse(c, err, "the action '%s' needs a level: %s", w,
				    w[0] == '=' ? "'=debug', or '=category' to follow the category again" : "e.g. '+debug' or '-info'");
			if ((rc = level_of(c, err, w + 1, "the action's level", &r->action_level)) != SR_OK)
				return rc;
			r->action = w[0] == '+' ? SR_LOG__SITE_RAISE : w[0] == '-' ? SR_LOG__SITE_LOWER : SR_LOG__SITE_SET;
		} else {
			return refuse(c, err, "'%s' is neither a match (file, func, line, format, category, level) nor an "
			    "action (+LEVEL, -LEVEL, =LEVEL, =category, once, every N, limit R/s [burst B], nolimit) nor "
			    "'reset'%s", w, NULL);
		}
	}
	if (!*is_empty && r->action == 0)
		return refuse(c, err, "no action: a command ends with +LEVEL, -LEVEL, =LEVEL, =category, once, every N, "
		    "limit R/s [burst B] or nolimit%s%s", "", NULL);
	/* A limit is the site's, not the call's: the category is known only at a call. */
	if (SR_LOG__SITE_IS_LIMIT(r->action) && r->category != NULL)
		return refuse(c, err, "a rate limit cannot depend on the category (a site's limit counts every call "
		    "through it): leave out 'category %s'%s", r->category, NULL);
	return SR_OK;
}

void
sr_log__site_rule_free(sr_log__site_rule *rule)
{
	free(rule->file);
	free(rule->func);
	free(rule->format);
	free(rule->category);
	*rule = (sr_log__site_rule){ 0 };
}

int
sr_log__site_query_parse(const char *query, sr_log__site_rule_list *out, sr_error *err)
{
	size_t first = out->n;
	int number = 0;
	const char *p = query;
	for (;;) {
		/* A command ends at ';' or a new line outside quotes. */
		const char *end = p;
		bool in_quotes = false;
		for (; *end != '\0'; end++) {
			if (*end == '"')
				in_quotes = !in_quotes;
			else if (in_quotes && *end == '\\' && end[1] != '\0')
				end++;
			else if (!in_quotes && (*end == ';' || *end == '\n'))
				break;
		}
		number++;
		cursor c = { .p = p, .end = end, .start = p, .number = number };
		while (c.start < end && (is_space(*c.start)))
			c.start++;
		sr_log__site_rule r;
		bool is_reset, is_empty;
		int rc = parse_command(&c, err, &r, &is_reset, &is_empty);
		if (rc == SR_OK && !is_empty && !is_reset && out->n == out->cap) {
			size_t cap = out->cap != 0 ? out->cap * 2 : 8;
			sr_log__site_rule *grown = realloc(out->r, cap * sizeof *grown);
			if (grown == NULL)
				rc = sr_error_set(err, SR_ENOMEM, "sites rule %d: out of memory", number);
			else {
				out->r = grown;
				out->cap = cap;
			}
		}
		if (rc != SR_OK) {
			sr_log__site_rule_free(&r);
			while (out->n > first)
				sr_log__site_rule_free(&out->r[--out->n]);
			out->reset = false;
			return rc;
		}
		if (is_reset) {
			out->reset = true;
			out->reset_at = out->n;
		} else if (!is_empty) {
			out->r[out->n++] = r;
		}
		if (*end == '\0')
			break;
		p = end + 1;
	}
	return SR_OK;
}
