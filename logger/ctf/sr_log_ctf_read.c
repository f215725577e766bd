/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_ctf_read.c: the reader of the binary trace (docs/trace.md): the
 * metadata's TSDL text parsed into event classes, packets checked, events
 * decoded into a record's body.  Every byte comes from a file that may be
 * corrupt: each read is bounded by what was checked before it.
 */
#include "sr_fmt_fields_internal.h"
#include "sr_log_ctf_read_internal.h"
#include "sr_log_level.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the metadata's tokens ---- */

enum tok_kind { T_END, T_CUT, T_BAD, T_IDENT, T_NUMBER, T_STRING, T_PUNCT, T_DEFINE };

typedef struct token {
	int kind;
	size_t at, len;               /* in the text; a string's without its quotes */
	int line;
	char punct;
} token;

typedef struct lexer {
	const char *p;
	size_t n, at;
	int line;
} lexer;

static bool
ident_start(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static bool
ident_char(char c)
{
	/* "model.emf.uri", "packet.header": a dotted name is one token here. */
	return ident_start(c) || (c >= '0' && c <= '9') || c == '.';
}

/* The next token; T_CUT when the text ends inside one (a comment, a string). */
static token
next_token(lexer *x)
{
	for (;;) {
		while (x->at < x->n && (x->p[x->at] == ' ' || x->p[x->at] == '\t' || x->p[x->at] == '\r' ||
		    x->p[x->at] == '\n' || x->p[x->at] == '\f' || x->p[x->at] == '\v')) {
			if (x->p[x->at] == '\n')
				x->line++;
			x->at++;
		}
		if (x->at + 1 < x->n && x->p[x->at] == '/' && x->p[x->at + 1] == '*') {
			size_t i = x->at + 2;
			int line = x->line;
			while (i + 1 < x->n && !(x->p[i] == '*' && x->p[i + 1] == '/')) {
				if (x->p[i] == '\n')
					line++;
				i++;
			}
			if (i + 1 >= x->n)
				return (token){ .kind = T_CUT, .at = x->at, .line = x->line };
			x->line = line;
			x->at = i + 2;
			continue;
		}
		if (x->at + 1 < x->n && x->p[x->at] == '/' && x->p[x->at + 1] == '/') {
			size_t i = x->at;
			while (i < x->n && x->p[i] != '\n')
				i++;
			if (i >= x->n)
				return (token){ .kind = T_CUT, .at = x->at, .line = x->line };
			x->at = i;
			continue;
		}
		break;
	}
	token t = { .at = x->at, .line = x->line };
	if (x->at >= x->n) {
		t.kind = T_END;
		return t;
	}
	char c = x->p[x->at];
	if (ident_start(c)) {
		size_t i = x->at;
		while (i < x->n && ident_char(x->p[i]))
			i++;
		t.kind = i < x->n ? T_IDENT : T_CUT;  /* a name the text ends in may go on */
		t.len = i - x->at;
		x->at = i;
		return t;
	}
	if (c >= '0' && c <= '9') {
		size_t i = x->at;
		while (i < x->n && ((x->p[i] >= '0' && x->p[i] <= '9') || (x->p[i] >= 'a' && x->p[i] <= 'z') ||
		    (x->p[i] >= 'A' && x->p[i] <= 'Z')))
			i++;
		t.kind = i < x->n ? T_NUMBER : T_CUT;
		t.len = i - x->at;
		x->at = i;
		return t;
	}
	if (c == '"') {
		size_t i = x->at + 1;
		while (i < x->n && x->p[i] != '"' && x->p[i] != '\n') {
			if (x->p[i] == '\\')
				i++;
			i++;
		}
		if (i >= x->n)
			return (token){ .kind = T_CUT, .at = x->at, .line = x->line };
		if (x->p[i] != '"') {
			t.kind = T_BAD;  /* a string across lines */
			return t;
		}
		t.kind = T_STRING;
		t.at = x->at + 1;
		t.len = i - x->at - 1;
		x->at = i + 1;
		return t;
	}
	if (c == ':' && x->at + 1 < x->n && x->p[x->at + 1] == '=') {
		t.kind = T_DEFINE;
		t.len = 2;
		x->at += 2;
		return t;
	}
	if ((c == ':' || c == '/') && x->at + 1 >= x->n)
		return (token){ .kind = T_CUT, .at = x->at, .line = x->line };
	if (strchr("{}[]()<>;=,:+-*", c) != NULL) {
		t.kind = T_PUNCT;
		t.punct = c;
		t.len = 1;
		x->at++;
		return t;
	}
	t.kind = T_BAD;
	t.len = 1;
	return t;
}

static bool
is_punct(const token *t, char c)
{
	return t->kind == T_PUNCT && t->punct == c;
}

static bool
is_word(const lexer *x, const token *t, const char *word)
{
	return t->kind == T_IDENT && t->len == strlen(word) && memcmp(x->p + t->at, word, t->len) == 0;
}

/* A token as a message shows it: its text (cut to 40 bytes), or "the end". */
static void
describe(const lexer *x, const token *t, char *buf, size_t size)
{
	if (t->kind == T_END || t->kind == T_CUT) {
		snprintf(buf, size, "the end of the text");
		return;
	}
	size_t len = t->kind == T_BAD ? 1 : t->len;
	size_t shown = len < 40 ? len : 40;
	char text[41];
	for (size_t i = 0; i < shown; i++) {
		unsigned char c = (unsigned char)x->p[t->at + i];
		text[i] = (char)(c >= 0x20 && c < 0x7f ? c : '?');
	}
	text[shown] = '\0';
	snprintf(buf, size, t->kind == T_STRING ? "\"%s%s\"" : "'%s%s'", text, len > shown ? "..." : "");
}

static int
syntax_error(sr_error *err, const char *what, const lexer *x, const token *t, const char *expected)
{
	char found[64];
	describe(x, t, found, sizeof found);
	return sr_error_set(err, SR_EFORMAT, "%s: line %d (offset %zu): expected %s, found %s", what, t->line, t->at,
	    expected, found);
}

/* ---- a block's assignments ---- */

enum { MAX_PAIRS = 32 };

typedef struct pair {
	token key, value;
} pair;

typedef struct block {
	token head;                   /* trace, env or event */
	pair pairs[MAX_PAIRS];
	int count;
} block;

static const pair *
find_pair(const lexer *x, const block *b, const char *key)
{
	const pair *found = NULL;
	for (int i = 0; i < b->count; i++)
		if (is_word(x, &b->pairs[i].key, key))
			found = &b->pairs[i];  /* the last one wins, as a redefinition would */
	return found;
}

/*
 * Skips to the ';' that ends a declaration at the current depth (braces
 * balanced).  SR_OK at it; 1 when the text ends first; SR_EFORMAT.
 */
static int
skip_declaration(lexer *x, const char *what, sr_error *err)
{
	int depth = 0;
	for (;;) {
		token t = next_token(x);
		if (t.kind == T_END || t.kind == T_CUT)
			return 1;
		if (t.kind == T_BAD)
			return syntax_error(err, what, x, &t, "a TSDL token");
		if (is_punct(&t, '{')) {
			depth++;
		} else if (is_punct(&t, '}')) {
			if (depth == 0)
				return syntax_error(err, what, x, &t, "';' before the block's end");
			depth--;
		} else if (is_punct(&t, ';') && depth == 0) {
			return SR_OK;
		}
	}
}

/*
 * Reads a block's body after its '{' up to its "};": each `name = value;`
 * at its top (value one token) is kept, anything else (a field's type, a
 * nested struct) skipped.  SR_OK; 1 when the text ends first; SR_EFORMAT.
 */
static int
read_block(lexer *x, block *b, const char *what, sr_error *err)
{
	for (;;) {
		token t = next_token(x);
		if (t.kind == T_END || t.kind == T_CUT)
			return 1;
		if (is_punct(&t, '}')) {
			token semi = next_token(x);
			if (semi.kind == T_END || semi.kind == T_CUT)
				return 1;
			if (!is_punct(&semi, ';'))
				return syntax_error(err, what, x, &semi, "';' after the block's '}'");
			return SR_OK;
		}
		if (t.kind != T_IDENT)
			return syntax_error(err, what, x, &t, "a field's name or '}'");
		size_t mark = x->at;
		int mark_line = x->line;
		token eq = next_token(x);
		if (eq.kind == T_END || eq.kind == T_CUT)
			return 1;
		if (is_punct(&eq, '=')) {
			token value = next_token(x);
			if (value.kind == T_END || value.kind == T_CUT)
				return 1;
			token semi = next_token(x);
			if (semi.kind == T_END || semi.kind == T_CUT)
				return 1;
			if ((value.kind == T_IDENT || value.kind == T_NUMBER || value.kind == T_STRING) && is_punct(&semi, ';')) {
				if (b->count == MAX_PAIRS)
					return syntax_error(err, what, x, &t, "at most 32 assignments in one block");
				b->pairs[b->count++] = (pair){ t, value };
				continue;
			}
			/* A value of several tokens (-1, an expression): none this reader needs; skipped below. */
		}
		/* Not an assignment (a type, a declaration): skipped whole. */
		x->at = mark;
		x->line = mark_line;
		int rc = skip_declaration(x, what, err);
		if (rc != SR_OK)
			return rc;
	}
}

/* ---- values ---- */

static int
number_value(const lexer *x, const block *b, const char *key, bool required, uint64_t *out, bool *present,
    const char *what, sr_error *err)
{
	const pair *p = find_pair(x, b, key);
	if (present != NULL)
		*present = p != NULL;
	if (p == NULL) {
		if (!required)
			return SR_OK;
		return sr_error_set(err, SR_EFORMAT, "%s: line %d (offset %zu): the %.*s block has no %s: expected `%s = N;`",
		    what, b->head.line, b->head.at, (int)b->head.len, x->p + b->head.at, key, key);
	}
	char text[32];
	const token *v = &p->value;
	bool ok = v->kind == T_NUMBER && v->len < sizeof text;
	if (ok) {
		memcpy(text, x->p + v->at, v->len);
		text[v->len] = '\0';
		char *end;
		bool hex = v->len > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
		unsigned long long n = strtoull(hex ? text + 2 : text, &end, hex ? 16 : 10);
		/* A leading '-' or a space is refused by the lexer; an overflow saturates and is caught here. */
		ok = *end == '\0' && end != (hex ? text + 2 : text) && n != ULLONG_MAX;
		*out = n;
	}
	if (!ok) {
		char found[64];
		describe(x, v, found, sizeof found);
		return sr_error_set(err, SR_EFORMAT, "%s: line %d (offset %zu): %s is %s: expected a number", what, v->line,
		    v->at, key, found);
	}
	return SR_OK;
}

/* A TSDL string's bytes, its escapes undone, into a new NUL-terminated copy; NULL when out of memory. */
static char *
string_copy(const lexer *x, const token *v, size_t *len)
{
	char *s = malloc(v->len + 1);
	if (s == NULL)
		return NULL;
	size_t n = 0;
	for (size_t i = 0; i < v->len; i++) {
		char c = x->p[v->at + i];
		if (c == '\\' && i + 1 < v->len) {
			c = x->p[v->at + ++i];
			c = (char)(c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c);
		}
		s[n++] = c;
	}
	s[n] = '\0';
	*len = n;
	return s;
}

static bool
string_is(const lexer *x, const token *v, const char *want)
{
	return v->kind == T_STRING && v->len == strlen(want) && memcmp(x->p + v->at, want, v->len) == 0;
}

static int
hex_digit(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* ---- the trace and env blocks ---- */

static int
apply_trace(sr_ctf_metadata *m, const lexer *x, const block *b, const char *what, sr_error *err)
{
	if (m->has_trace)
		return sr_error_set(err, SR_EFORMAT, "%s: line %d (offset %zu): a second trace block: expected one",
		    what, b->head.line, b->head.at);
	const pair *u = find_pair(x, b, "uuid");
	const token *v = u != NULL ? &u->value : NULL;
	bool ok = v != NULL && v->kind == T_STRING && v->len == 36;
	for (size_t i = 0, k = 0; ok && i < 36; i++) {
		char c = x->p[v->at + i];
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			ok = c == '-';
			continue;
		}
		int hi = hex_digit(c), lo = i + 1 < 36 ? hex_digit(x->p[v->at + i + 1]) : -1;
		ok = hi >= 0 && lo >= 0;
		if (ok)
			m->uuid[k++] = (uint8_t)(hi << 4 | lo);
		i++;
	}
	if (!ok) {
		char found[64] = "nothing";
		if (v != NULL)
			describe(x, v, found, sizeof found);
		return sr_error_set(err, SR_EFORMAT, "%s: line %d (offset %zu): the trace's uuid is %s: expected "
		    "`uuid = \"xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx\";` (hex)", what, b->head.line, b->head.at, found);
	}
	const pair *o = find_pair(x, b, "byte_order");
	if (o == NULL || !is_word(x, &o->value, "le")) {
		char found[64] = "nothing";
		if (o != NULL)
			describe(x, &o->value, found, sizeof found);
		return sr_error_set(err, SR_EFORMAT, "%s: line %d (offset %zu): the trace's byte_order is %s: expected le "
		    "(a seqring trace is little-endian)", what, b->head.line, b->head.at, found);
	}
	m->has_trace = true;
	return SR_OK;
}

static int
apply_env(sr_ctf_metadata *m, const lexer *x, const block *b, const char *what, sr_error *err)
{
	const pair *f = find_pair(x, b, "trace_format");
	if (f == NULL || !string_is(x, &f->value, SR_CTF_TRACE_FORMAT)) {
		char found[64] = "nothing";
		if (f != NULL)
			describe(x, &f->value, found, sizeof found);
		return sr_error_set(err, SR_EFORMAT, "%s: line %d (offset %zu): env.trace_format is %s: expected \"%s\" "
		    "(not a trace a seqring ctf: sink wrote)", what, b->head.line, b->head.at, found, SR_CTF_TRACE_FORMAT);
	}
	uint64_t version = 0;
	bool present;
	int rc = number_value(x, b, "trace_format_version", true, &version, &present, what, err);
	if (rc != SR_OK)
		return rc;
	if (version != SR_CTF_TRACE_FORMAT_VERSION)
		return sr_error_set(err, SR_EFORMAT, "%s: line %d (offset %zu): env.trace_format_version is %" PRIu64
		    ": expected %d (this reader's; a newer seqring-decode may read it)", what, b->head.line, b->head.at,
		    version, SR_CTF_TRACE_FORMAT_VERSION);
	m->has_env = true;
	return SR_OK;
}

/* ---- an event block and its URI ---- */

static void
class_free(sr_ctf_read_class *c)
{
	if (c == NULL)
		return;
	free(c->category_name);
	free(c->file);
	free(c->function);
	free(c->format);
	free(c->fields_spec);
	for (int j = 0; j < SR_SITE_MAX_ARGS; j++)
		free(c->keys[j]);
	free(sr_atomic_load_acquire_ptr(&c->site.fields));
	free(c);
}

/*
 * The class's key-value fields from its URI's fields=KEY:K[u],... (the
 * writer's md_uri_fields): their keys decoded into c->keys, a table as the
 * writing site had (sr_fmt_fields_make), into c->site.fields.
 */
static int
read_fields(sr_ctf_read_class *c, const sr_fmt_sig *sig, const char *where, sr_error *err)
{
	sr_log_arg args[SR_SITE_MAX_ARGS];
	unsigned char flags[SR_SITE_MAX_ARGS];
	int n = sig->nargs, count = 0;
	memset(args, 0, sizeof args);
	for (int i = 0; i < n; i++)
		args[i].kind = sig->type[i];
	for (const char *p = c->fields_spec; *p != '\0';) {
		const char *end = strchr(p, ',');
		size_t len = end != NULL ? (size_t)(end - p) : strlen(p);
		const char *colon = len > 0 ? memchr(p, ':', len) : NULL;
		if (colon == NULL || colon == p || n + count >= SR_SITE_MAX_ARGS)
			return sr_error_set(err, SR_EFORMAT, "%s: the URI's fields \"%.60s\" has \"%.*s\": expected KEY:KIND, "
			    "at most %d arguments with the format's", where, c->fields_spec, (int)(len < 40 ? len : 40), p,
			    SR_SITE_MAX_ARGS);
		const char *k = colon + 1, *k_end = p + len;
		static const char kinds[] = "ildLps";
		const char *at = k < k_end ? strchr(kinds, *k) : NULL;
		bool is_unsigned = k_end - k == 2 && k[1] == 'u';
		if (at == NULL || *k == '\0' || (k_end - k != 1 && !is_unsigned))
			return sr_error_set(err, SR_EFORMAT, "%s: the URI's fields \"%.60s\" has the kind \"%.*s\": expected one "
			    "of i l d L p s, then u for an unsigned type", where, c->fields_spec, (int)(k_end - k), k);
		static const int kind_of[] = { SR_FMT_ARG_INT, SR_FMT_ARG_LONG, SR_FMT_ARG_DOUBLE, SR_FMT_ARG_LDOUBLE,
			SR_FMT_ARG_PTR, SR_FMT_ARG_STR };
		char *key = malloc((size_t)(colon - p) + 1);
		if (key == NULL)
			return sr_error_set(err, SR_ENOMEM, "%s: cannot allocate a field's key", where);
		size_t kn = 0;
		for (const char *q = p; q < colon; q++) {
			int hi, lo;
			if (*q == '%' && colon - q >= 3 && (hi = hex_digit(q[1])) >= 0 && (lo = hex_digit(q[2])) >= 0 &&
			    (hi | lo) != 0) {
				key[kn++] = (char)(hi << 4 | lo);
				q += 2;
			} else if (*q == '%') {
				free(key);
				return sr_error_set(err, SR_EFORMAT, "%s: the URI's fields \"%.60s\": a key has a bad escape: "
				    "expected %%XX (two hex digits, not %%00)", where, c->fields_spec);
			} else {
				key[kn++] = *q;
			}
		}
		key[kn] = '\0';
		c->keys[count] = key;
		flags[count] = is_unsigned;
		args[n + count].kind = (uint8_t)kind_of[at - kinds];
		count++;
		p = end != NULL ? end + 1 : p + len;
	}
	sr_fmt_fields *t = sr_fmt_fields_make(sig, args, n + count, (const char *const *)c->keys, flags, count);
	if (t == NULL)
		return sr_error_set(err, SR_ENOMEM, "%s: cannot allocate a table of fields", where);
	if (t->sig.error != SR_FMT_OK) {
		int rc = sr_error_set(err, SR_EFORMAT, "%s: the URI's fields \"%.60s\" are refused: %s", where,
		    c->fields_spec, t->error);
		free(t);
		return rc;
	}
	/* pairs with the load-acquires of the layouts and event_read: the table is whole (one thread has it yet) */
	sr_atomic_store_release_ptr(&c->site.fields, t);
	return SR_OK;
}

/*
 * A URI value percent-decoded into a new string; NULL with *bad set when
 * it is malformed (a '%' without two hex digits, a NUL), NULL otherwise
 * when out of memory.
 */
static char *
uri_value(const char *v, size_t len, bool *bad)
{
	*bad = false;
	char *s = malloc(len + 1);
	if (s == NULL)
		return NULL;
	size_t n = 0;
	for (size_t i = 0; i < len; i++) {
		char c = v[i];
		if (c == '%') {
			int hi = i + 2 < len ? hex_digit(v[i + 1]) : -1;
			int lo = i + 2 < len ? hex_digit(v[i + 2]) : -1;
			if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) {
				*bad = true;
				free(s);
				return NULL;
			}
			c = (char)(hi << 4 | lo);
			i += 2;
		}
		s[n++] = c;
	}
	s[n] = '\0';
	return s;
}

/* Parses the class's URI, "seqring:KIND?key=value&...", into c. */
static int
parse_uri(sr_ctf_read_class *c, const char *uri, const char *what, int line, size_t at, sr_error *err)
{
	static const char scheme[] = "seqring:";
	char where[96];
	snprintf(where, sizeof where, "%s: line %d (offset %zu): event class %" PRIu32, what, line, at, c->id);
	if (strncmp(uri, scheme, sizeof scheme - 1) != 0)
		return sr_error_set(err, SR_EFORMAT, "%s: model.emf.uri \"%.60s\" does not start with \"%s\"", where, uri,
		    scheme);
	const char *kind = uri + sizeof scheme - 1;
	const char *q = strchr(kind, '?');
	size_t kind_len = q != NULL ? (size_t)(q - kind) : strlen(kind);
	c->kind = -1;
	for (int k = SR_CTF_KIND_MESSAGE; k <= SR_CTF_KIND_TEXT; k++)
		if (strlen(sr_ctf__kind_name(k)) == kind_len && memcmp(kind, sr_ctf__kind_name(k), kind_len) == 0)
			c->kind = k;
	if (c->kind < 0)
		return sr_error_set(err, SR_EFORMAT, "%s: the URI's kind is \"%.*s\": expected message, format_error or text",
		    where, (int)(kind_len < 40 ? kind_len : 40), kind);
	bool has_level = false, has_line = false;
	const char *p = q != NULL ? q + 1 : kind + kind_len;
	while (q != NULL && *p != '\0') {
		const char *amp = strchr(p, '&');
		size_t pair_len = amp != NULL ? (size_t)(amp - p) : strlen(p);
		const char *eq = memchr(p, '=', pair_len);
		if (eq == NULL)
			return sr_error_set(err, SR_EFORMAT, "%s: the URI's query has \"%.*s\": expected key=value", where,
			    (int)(pair_len < 40 ? pair_len : 40), p);
		size_t key_len = (size_t)(eq - p);
		bool bad;
		char *value = uri_value(eq + 1, pair_len - key_len - 1, &bad);
		if (value == NULL && bad)
			return sr_error_set(err, SR_EFORMAT, "%s: the URI's %.*s has a bad escape: expected %%XX (two hex "
			    "digits, not %%00)", where, (int)(key_len < 40 ? key_len : 40), p);
		if (value == NULL)
			return sr_error_set(err, SR_ENOMEM, "%s: cannot allocate a URI value", where);
		char **slot = NULL;
#define KEY_IS(k) (key_len == sizeof k - 1 && memcmp(p, k, key_len) == 0)
		if (KEY_IS("level")) {
			sr_log_level level;
			int rc = sr_log_level_parse(value, &level, NULL);
			if (rc != SR_OK || level < SR_LOG_TRACE || level > SR_LOG_FATAL) {
				rc = sr_error_set(err, SR_EFORMAT, "%s: the URI's level is \"%.40s\": expected trace, debug, "
				    "info, warn, error or fatal", where, value);
				free(value);
				return rc;
			}
			c->level = (int)level;
			has_level = true;
		} else if (KEY_IS("line")) {
			char *end;
			long n = strtol(value, &end, 10);
			if (*end != '\0' || end == value || n < INT32_MIN || n > INT32_MAX) {
				int rc = sr_error_set(err, SR_EFORMAT, "%s: the URI's line is \"%.40s\": expected a number",
				    where, value);
				free(value);
				return rc;
			}
			c->site.line = (int32_t)n;
			has_line = true;
		} else if (KEY_IS("backtrace")) {
			c->backtrace = strcmp(value, "1") == 0;
		} else if (KEY_IS("category")) {
			slot = &c->category_name;
		} else if (KEY_IS("file")) {
			slot = &c->file;
		} else if (KEY_IS("function")) {
			slot = &c->function;
		} else if (KEY_IS("format")) {
			slot = &c->format;
		} else if (KEY_IS("fields")) {
			slot = &c->fields_spec;
		}
#undef KEY_IS
		if (slot != NULL) {
			free(*slot);  /* a key given twice: the last one, as for the block's fields */
			*slot = value;
		} else {
			free(value);  /* a key this reader does not know: nothing it needs */
		}
		p += pair_len;
		if (*p == '&')
			p++;
	}
	(void)has_line;
	if (!has_level)
		return sr_error_set(err, SR_EFORMAT, "%s: the URI has no level: expected level=NAME", where);
	if (c->category_name == NULL)
		return sr_error_set(err, SR_EFORMAT, "%s: the URI has no category: expected category=NAME (empty for the root)",
		    where);
	if (c->kind == SR_CTF_KIND_MESSAGE) {
		if (c->format == NULL)
			return sr_error_set(err, SR_EFORMAT, "%s: a message class's URI has no format: expected format=...",
			    where);
		sr_fmt_sig sig;
		char why[160];
		if (sr_fmt_parse(c->format, &sig, why, sizeof why) != SR_FMT_OK)
			return sr_error_set(err, SR_EFORMAT, "%s: a message class's format \"%.60s\" is refused (%s): expected "
			    "one the logger takes (else the class is a format_error)", where, c->format, why);
	}
	c->site.format = c->format;
	c->site.file = c->file;
	c->site.function = c->function;
	c->site.level = c->level;
	sr_fmt_sig scratch;
	const sr_fmt_sig *sig = sr_site__parse(&c->site, &scratch);  /* this thread alone has the site */
	size_t sum = 0;
	for (int i = 0; i < sig->nargs; i++)
		sum += sr_fmt__value_bytes(sig->type[i]);
	if (c->kind == SR_CTF_KIND_MESSAGE && sum != sig->value_bytes)
		return sr_error_set(err, SR_EFORMAT, "%s: the format \"%.60s\" takes %zu bytes of values by its "
		    "arguments' types but %u by its signature: the trace's layout and this reader's disagree", where,
		    c->format, sum, (unsigned)sig->value_bytes);
	if (c->kind == SR_CTF_KIND_MESSAGE && c->fields_spec != NULL) {
		int rc = read_fields(c, sig, where, err);
		if (rc != SR_OK)
			return rc;
	}
	c->category.name = c->category_name;
	return SR_OK;
}

/* Adds c to the metadata, which owns it from then on: freed here if it cannot be added. */
static int
add_class(sr_ctf_metadata *m, sr_ctf_read_class *c, const char *what, int line, size_t at, sr_error *err)
{
	size_t lo = 0, hi = m->class_count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->classes[mid]->id < c->id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < m->class_count && m->classes[lo]->id == c->id) {
		uint32_t id = c->id;
		class_free(c);
		return sr_error_set(err, SR_EFORMAT, "%s: line %d (offset %zu): event class id %" PRIu32 " is defined twice: "
		    "expected each id once", what, line, at, id);
	}
	if (m->class_count == m->class_cap) {
		size_t cap = m->class_cap > 0 ? m->class_cap * 2 : 16;
		sr_ctf_read_class **more = realloc(m->classes, cap * sizeof(sr_ctf_read_class *));
		if (more == NULL) {
			class_free(c);
			return sr_error_set(err, SR_ENOMEM, "%s: cannot allocate %zu event classes", what, cap);
		}
		m->classes = more;
		m->class_cap = cap;
	}
	memmove(&m->classes[lo + 1], &m->classes[lo], (m->class_count - lo) * sizeof(sr_ctf_read_class *));
	m->classes[lo] = c;
	m->class_count++;
	return SR_OK;
}

static int
apply_event(sr_ctf_metadata *m, const lexer *x, const block *b, const char *what, sr_error *err)
{
	uint64_t id = 0, stream_id = 0;
	bool has_stream;
	int rc = number_value(x, b, "id", true, &id, NULL, what, err);
	if (rc == SR_OK)
		rc = number_value(x, b, "stream_id", false, &stream_id, &has_stream, what, err);
	if (rc != SR_OK)
		return rc;
	if (id > UINT32_MAX)
		return sr_error_set(err, SR_EFORMAT, "%s: line %d (offset %zu): event id %" PRIu64 ": expected at most %"
		    PRIu32 " (the event header's id is 32 bits)", what, b->head.line, b->head.at, id, UINT32_MAX);
	if (has_stream && stream_id != 0)
		return sr_error_set(err, SR_EFORMAT, "%s: line %d (offset %zu): event class %" PRIu64 " is of stream %" PRIu64
		    ": expected 0 (a seqring trace has one stream class)", what, b->head.line, b->head.at, id, stream_id);
	const pair *u = find_pair(x, b, "model.emf.uri");
	if (u == NULL || u->value.kind != T_STRING)
		return sr_error_set(err, SR_EFORMAT, "%s: line %d (offset %zu): event class %" PRIu64 " has no "
		    "model.emf.uri string: expected `model.emf.uri = \"seqring:KIND?...\";`", what, b->head.line, b->head.at,
		    id);
	sr_ctf_read_class *c = calloc(1, sizeof *c);
	size_t len;
	char *uri = c != NULL ? string_copy(x, &u->value, &len) : NULL;
	if (uri == NULL) {
		free(c);
		return sr_error_set(err, SR_ENOMEM, "%s: cannot allocate an event class", what);
	}
	c->id = (uint32_t)id;
	if (strlen(uri) != len) {
		free(uri);
		class_free(c);
		return sr_error_set(err, SR_EFORMAT, "%s: line %d (offset %zu): event class %" PRIu64 "'s URI holds a NUL: "
		    "expected text", what, u->value.line, u->value.at, id);
	}
	rc = parse_uri(c, uri, what, u->value.line, u->value.at, err);
	free(uri);
	if (rc != SR_OK) {
		class_free(c);
		return rc;
	}
	return add_class(m, c, what, b->head.line, b->head.at, err);
}

int
sr_ctf__metadata_parse(sr_ctf_metadata *m, const char *text, size_t len, bool whole, const char *what,
    sr_error *err)
{
	static const char signature[] = SR_CTF_METADATA_SIGNATURE;
	if (m->parsed == 0) {
		size_t sl = sizeof signature - 1;
		if (len < sl && memcmp(text, signature, len) == 0 && !whole)
			return SR_OK;  /* being written */
		if (len < sl || memcmp(text, signature, sl) != 0) {
			bool packetized = len >= 4 && (uint8_t)text[0] == 0x57 && (uint8_t)text[1] == 0x1D &&
			    (uint8_t)text[2] == 0xD1 && (uint8_t)text[3] == 0x75;
			return sr_error_set(err, SR_EFORMAT, "%s: offset 0: expected the plain-text CTF metadata's first line "
			    "\"%s\"%s", what, signature, packetized ? ", found packetized metadata (not a seqring trace)" :
			    len == 0 ? ", found an empty file" : ": not a CTF trace's metadata");
		}
		m->parsed = sl;
		m->parsed_line = 1;
	}
	lexer x = { text, len, m->parsed, m->parsed_line };
	for (;;) {
		size_t start = x.at;
		int start_line = x.line;
		token t = next_token(&x);
		int rc = SR_OK;
		if (t.kind == T_END) {
			m->parsed = t.at;
			m->parsed_line = x.line;
			break;
		}
		if (t.kind == T_BAD)
			return syntax_error(err, what, &x, &t, "a TSDL declaration");
		if (t.kind == T_CUT) {
			rc = 1;
		} else if (is_word(&x, &t, "trace") || is_word(&x, &t, "env") || is_word(&x, &t, "event")) {
			token brace = next_token(&x);
			if (brace.kind == T_END || brace.kind == T_CUT) {
				rc = 1;
			} else if (!is_punct(&brace, '{')) {
				return syntax_error(err, what, &x, &brace, "'{' after the block's name");
			} else {
				block b = { .head = t };
				rc = read_block(&x, &b, what, err);
				if (rc == SR_OK)
					rc = is_word(&x, &t, "trace") ? apply_trace(m, &x, &b, what, err) :
					    is_word(&x, &t, "env") ? apply_env(m, &x, &b, what, err) :
					    apply_event(m, &x, &b, what, err);
			}
		} else if (t.kind == T_IDENT) {
			/* clock, stream, typealias...: what this reader needs is in the three blocks above. */
			rc = skip_declaration(&x, what, err);
		} else {
			return syntax_error(err, what, &x, &t, "a TSDL declaration (trace, env, clock, stream, event...)");
		}
		if (rc == 1) {
			if (whole)
				return sr_error_set(err, SR_EFORMAT, "%s: line %d (offset %zu): the text ends inside the "
				    "declaration begun here: expected it whole, up to its ';'", what, t.line, t.at);
			m->parsed = start;  /* being written: taken up again at the next call */
			m->parsed_line = start_line;
			break;
		}
		if (rc != SR_OK)
			return rc;
		m->parsed = x.at;
		m->parsed_line = x.line;
	}
	if (whole && !m->has_trace)
		return sr_error_set(err, SR_EFORMAT, "%s: offset %zu: no trace block: expected `trace { uuid = ...; "
		    "byte_order = le; ... };`", what, len);
	if (whole && !m->has_env)
		return sr_error_set(err, SR_EFORMAT, "%s: offset %zu: no env block: expected `env { trace_format = \"%s\"; "
		    "trace_format_version = %d; ... };` (not a seqring trace)", what, len, SR_CTF_TRACE_FORMAT,
		    SR_CTF_TRACE_FORMAT_VERSION);
	return SR_OK;
}

sr_ctf_read_class *
sr_ctf__metadata_class(const sr_ctf_metadata *m, uint32_t id)
{
	size_t lo = 0, hi = m->class_count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->classes[mid]->id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->class_count && m->classes[lo]->id == id ? m->classes[lo] : NULL;
}

void
sr_ctf__metadata_free(sr_ctf_metadata *m)
{
	for (size_t i = 0; i < m->class_count; i++)
		class_free(m->classes[i]);
	free(m->classes);
	memset(m, 0, sizeof *m);
}

/* ---- packets ---- */

size_t
sr_ctf__packet_size_hint(const unsigned char *bytes, size_t avail)
{
	sr_ctf_packet_head h;
	if (avail < sizeof h)
		return 0;
	memcpy(&h, bytes, sizeof h);
	if (h.content_size % 8 != 0 || h.content_size / 8 < sizeof h || h.content_size / 8 > SIZE_MAX / 2)
		return 0;
	return (size_t)(h.content_size / 8);
}

int
sr_ctf__packet_read(const sr_ctf_metadata *m, const unsigned char *bytes, size_t avail, uint64_t offset,
    const char *what, sr_ctf_stream_state *state, sr_ctf_packet *p, bool *cut, sr_error *err)
{
	if (cut != NULL)
		*cut = false;
	sr_ctf_packet_head h;
	if (avail < sizeof h) {
		if (cut != NULL) {
			*cut = true;
			return SR_OK;
		}
		return sr_error_set(err, SR_EFORMAT, "%s: offset %" PRIu64 ": the packet is cut short: %zu bytes of its "
		    "%zu-byte head", what, offset, avail, sizeof h);
	}
	memcpy(&h, bytes, sizeof h);
	if (h.magic != SR_CTF_MAGIC)
		return sr_error_set(err, SR_EFORMAT, "%s: offset %" PRIu64 ": the packet's magic is 0x%08" PRIX32
		    ": expected 0x%08X", what, offset, h.magic, SR_CTF_MAGIC);
	if (memcmp(h.uuid, m->uuid, sizeof h.uuid) != 0)
		return sr_error_set(err, SR_EFORMAT, "%s: offset %" PRIu64 ": the packet's uuid is not the trace's (the "
		    "metadata's): a stream of another trace", what, offset);
	if (h.stream_id != 0)
		return sr_error_set(err, SR_EFORMAT, "%s: offset %" PRIu64 ": the packet's stream_id is %" PRIu32
		    ": expected 0", what, offset + 20, h.stream_id);
	if (h.content_size % 8 != 0 || h.content_size / 8 < sizeof h)
		return sr_error_set(err, SR_EFORMAT, "%s: offset %" PRIu64 ": the packet's content_size is %" PRIu64
		    " bits: expected a multiple of 8, at least %zu (its head)", what, offset + 48, h.content_size,
		    sizeof h * 8);
	if (h.packet_size != h.content_size)
		return sr_error_set(err, SR_EFORMAT, "%s: offset %" PRIu64 ": the packet's packet_size is %" PRIu64
		    " bits: expected its content_size, %" PRIu64 " (no padding)", what, offset + 56, h.packet_size,
		    h.content_size);
	uint64_t size = h.content_size / 8;
	if (size > avail) {
		if (cut != NULL) {
			*cut = true;
			return SR_OK;
		}
		return sr_error_set(err, SR_EFORMAT, "%s: offset %" PRIu64 ": the packet is cut short: %zu bytes of its %"
		    PRIu64, what, offset, avail, size);
	}
	if (state->started && h.packet_seq_num != state->next_seq)
		return sr_error_set(err, SR_EFORMAT, "%s: offset %" PRIu64 ": the packet's packet_seq_num is %" PRIu64
		    ": expected %" PRIu64 " (a packet is missing or repeated)", what, offset + 64, h.packet_seq_num,
		    state->next_seq);
	if (state->started && h.stream_instance_id != state->instance)
		return sr_error_set(err, SR_EFORMAT, "%s: offset %" PRIu64 ": the packet's stream_instance_id is %" PRIu64
		    ": expected %" PRIu64 " (the file's first packet's)", what, offset + 24, h.stream_instance_id,
		    state->instance);
	if (h.timestamp_begin > h.timestamp_end)
		return sr_error_set(err, SR_EFORMAT, "%s: offset %" PRIu64 ": the packet's timestamp_begin %" PRIu64
		    " is after its timestamp_end %" PRIu64, what, offset + 32, h.timestamp_begin, h.timestamp_end);
	if (h.timestamp_end > INT64_MAX)
		return sr_error_set(err, SR_EFORMAT, "%s: offset %" PRIu64 ": the packet's timestamp_end %" PRIu64
		    ": expected ns since the epoch, at most %" PRId64, what, offset + 40, h.timestamp_end, INT64_MAX);
	state->started = true;
	state->next_seq = h.packet_seq_num + 1;
	state->instance = h.stream_instance_id;
	p->head = h;
	p->head.thread_name[sizeof p->head.thread_name - 1] = '\0';  /* a name is at most 15 bytes and its NUL */
	p->bytes = bytes;
	p->size = (size_t)size;
	p->offset = offset;
	return SR_OK;
}

/* ---- events ---- */

/* The NUL-terminated string at *at (before end); false when there is no NUL before end. */
static bool
take_string(const unsigned char *bytes, size_t *at, size_t end, const char **s, size_t *len)
{
	const unsigned char *nul = memchr(bytes + *at, '\0', end - *at);
	if (nul == NULL)
		return false;
	*s = (const char *)bytes + *at;
	*len = (size_t)(nul - (bytes + *at));
	*at += *len + 1;
	return true;
}

int
sr_ctf__event_read(const sr_ctf_metadata *m, const sr_ctf_packet *p, size_t *at, const char *what,
    unsigned char *body_buf, sr_ctf_event *ev, sr_error *err)
{
	size_t start = *at, end = p->size;
	uint64_t where = p->offset + start;
	memset(ev, 0, sizeof *ev);
	sr_ctf_event_head eh;
	if (start > end || end - start < sizeof eh)
		return sr_error_set(err, SR_EFORMAT, "%s: offset %" PRIu64 ": an event's %zu-byte header runs past the "
		    "packet's content_size (%zu bytes left): expected whole events", what, where, sizeof eh,
		    start <= end ? end - start : 0);
	memcpy(&eh, p->bytes + start, sizeof eh);
	sr_ctf_read_class *c = sr_ctf__metadata_class(m, eh.id);
	if (c == NULL)
		return sr_error_set(err, SR_EFORMAT, "%s: offset %" PRIu64 ": the event's class id %" PRIu32 " is not in the "
		    "metadata: expected one of its event classes", what, where, eh.id);
	if (eh.timestamp < p->head.timestamp_begin || eh.timestamp > p->head.timestamp_end)
		return sr_error_set(err, SR_EFORMAT, "%s: offset %" PRIu64 ": the event's timestamp %" PRIu64 " is outside "
		    "its packet's range %" PRIu64 " to %" PRIu64, what, where + 4, eh.timestamp, p->head.timestamp_begin,
		    p->head.timestamp_end);
	ev->cls = c;
	ev->ts_ns = (int64_t)eh.timestamp;  /* at most timestamp_end, checked to fit */
	size_t pos = start + sizeof eh;
	if (c->kind == SR_CTF_KIND_FORMAT_ERROR) {
		*at = pos;
		return SR_OK;
	}
	if (c->kind == SR_CTF_KIND_TEXT) {
		if (!take_string(p->bytes, &pos, end, &ev->text, &ev->text_len))
			return sr_error_set(err, SR_EFORMAT, "%s: offset %" PRIu64 ": the text event's message has no NUL "
			    "before the packet's end: expected a NUL-terminated string", what, p->offset + start + sizeof eh);
		*at = pos;
		return SR_OK;
	}
	/* pairs with read_fields' store-release: a class's table is whole */
	const sr_fmt_fields *fields = sr_atomic_load_acquire_ptr(&c->site.fields);
	const sr_fmt_sig *sig = fields != NULL ? &fields->sig : &c->site.sig;
	size_t fixed = (sig->uses_errno ? sizeof(int32_t) : 0) + sig->value_bytes;
	if (end - pos < fixed)
		return sr_error_set(err, SR_EFORMAT, "%s: offset %" PRIu64 ": the event (class %" PRIu32 ") runs past the "
		    "packet's content_size: its fields need %zu bytes, %zu are left", what, where, c->id, fixed, end - pos);
	if (sig->uses_errno) {
		memcpy(&ev->errno_value, p->bytes + pos, sizeof ev->errno_value);
		pos += sizeof ev->errno_value;
	}
	const unsigned char *values = p->bytes + pos;
	memcpy(body_buf, values, sig->value_bytes);
	pos += sig->value_bytes;
	size_t body_len = sig->value_bytes;
	/* Each %s: its length field in the value area, then its string after it. */
	size_t v = 0;
	for (int i = 0; i < sig->nargs; i++) {
		int type = sig->type[i];
		if (type != SR_FMT_ARG_STR) {
			v += sr_fmt__value_bytes(type);
			continue;
		}
		uint32_t length;
		memcpy(&length, values + v, sizeof length);
		v += sizeof length;
		size_t string_at = pos;
		const char *s;
		size_t len;
		if (!take_string(p->bytes, &pos, end, &s, &len))
			return sr_error_set(err, SR_EFORMAT, "%s: offset %" PRIu64 ": string arg%d has no NUL before the "
			    "packet's end: expected a NUL-terminated string", what, p->offset + string_at, i);
		if (length == SR_FMT_NULL_STRING) {
			if (len != 0)
				return sr_error_set(err, SR_EFORMAT, "%s: offset %" PRIu64 ": string arg%d is NULL (length "
				    "4294967295) but holds %zu bytes: expected an empty string", what, p->offset + string_at, i,
				    len);
			continue;  /* no bytes in a record's string area, not even a NUL */
		}
		if (length != len)
			return sr_error_set(err, SR_EFORMAT, "%s: offset %" PRIu64 ": string arg%d holds %zu bytes, its "
			    "length field says %" PRIu32, what, p->offset + string_at, i, len, length);
		memcpy(body_buf + body_len, s, len + 1);
		body_len += len + 1;
	}
	ev->body = body_buf;
	ev->body_len = body_len;
	*at = pos;
	return SR_OK;
}
