/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_ctf_classes.c: the trace's event classes, one per distinct (call
 * site, category, level, kind, backtrace mark), each declared in the
 * metadata before the first packet that holds one of its events is
 * written; and the metadata's head (the trace, its clock, its stream
 * class).  Everything is written through a small fixed buffer, with no
 * allocation and no snprintf, so that the crash handler can declare a
 * class too.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "sr_log_ctf_writer_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sr_fmt_fields_internal.h"
#include "sr_log_date_internal.h"
#include "sr_version.h"

/* ---- text out to the metadata file ---- */

typedef struct md_out {
	int fd;
	bool failed;
	size_t len;
	char buf[1024];
} md_out;

static void
md_flush(md_out *o)
{
	size_t at = 0;
	while (at < o->len && !o->failed) {
		ssize_t w = write(o->fd, o->buf + at, o->len - at);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			o->failed = true;
		else
			at += (size_t)w;
	}
	o->len = 0;
}

static void
md_put(md_out *o, const char *s, size_t n)
{
	while (n > 0) {
		if (o->len == sizeof o->buf)
			md_flush(o);
		size_t k = sizeof o->buf - o->len < n ? sizeof o->buf - o->len : n;
		memcpy(o->buf + o->len, s, k);
		o->len += k;
		s += k;
		n -= k;
	}
}

static void
md_str(md_out *o, const char *s)
{
	md_put(o, s, strlen(s));
}

static void
md_u64(md_out *o, uint64_t v)
{
	char digits[24];
	sr_fmt_buf b = { digits, 0, sizeof digits, 0 };
	sr_log__put_uint(&b, v, 1);
	md_put(o, digits, b.len);
}

/* A value inside a TSDL string literal made of bytes a name may hold: anything else becomes '_'. */
static void
md_name(md_out *o, const char *s)
{
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;
		char k = (char)(c >= 0x20 && c < 0x7f && c != '"' && c != '\\' ? c : '_');
		md_put(o, &k, 1);
	}
}

/* A URI value: percent-encoded (docs/trace.md), so that the string literal needs no escape. */
static void
md_uri_value(md_out *o, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	for (; s != NULL && *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;
		if (sr_ctf__uri_keeps(c)) {
			md_put(o, (const char *)&c, 1);
		} else {
			char e[3] = { '%', hex[c >> 4], hex[c & 15] };
			md_put(o, e, 3);
		}
	}
}

/* ---- the head ---- */

static const char head_types[] =
    SR_CTF_METADATA_SIGNATURE "\n"
    "/* Written by seqring's ctf: sink; docs/trace.md describes every field. */\n\n"
    "typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
    "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
    "typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
    "typealias integer { size = 32; align = 8; signed = true; } := int32_t;\n"
    "typealias integer { size = 64; align = 8; signed = true; } := int64_t;\n"
    "typealias integer { size = 64; align = 8; signed = false; base = 16; } := seqring_pointer_t;\n"
    "typealias floating_point { exp_dig = 11; mant_dig = 53; byte_order = le; align = 8; } := seqring_double_t;\n"
    "typealias integer { size = 8; align = 8; signed = false; encoding = UTF8; } := seqring_char_t;\n\n"
    "trace {\n"
    "\tmajor = 1;\n"
    "\tminor = 8;\n"
    "\tuuid = \"";

static const char head_trace_end[] =
    "\";\n"
    "\tbyte_order = le;\n"
    "\tpacket.header := struct {\n"
    "\t\tuint32_t magic;\n"
    "\t\tuint8_t uuid[16];\n"
    "\t\tuint32_t stream_id;\n"
    "\t\tuint64_t stream_instance_id;\n"
    "\t};\n"
    "};\n\n"
    "env {\n"
    "\ttracer_name = \"seqring\";\n";

static const char head_clock_stream[] =
    "};\n\n"
    "clock {\n"
    "\tname = \"realtime\";\n"
    "\tdescription = \"the logger's time: nanoseconds since the Unix epoch, as the text sinks print it\";\n"
    "\tfreq = 1000000000;\n"
    "\tprecision = 1;\n"
    "\toffset_s = 0;\n"
    "\toffset = 0;\n"
    "\tabsolute = true;\n"
    "};\n\n"
    "typealias integer { size = 64; align = 8; signed = false; map = clock.realtime.value; } := seqring_clock_t;\n\n"
    "stream {\n"
    "\tid = 0;\n"
    "\tpacket.context := struct {\n"
    "\t\tseqring_clock_t timestamp_begin;\n"
    "\t\tseqring_clock_t timestamp_end;\n"
    "\t\tuint64_t content_size;\n"
    "\t\tuint64_t packet_size;\n"
    "\t\tuint64_t packet_seq_num;\n"
    "\t\tuint64_t events_discarded;\n"
    "\t\tuint32_t tid;\n"
    "\t\tseqring_char_t thread_name[16];\n"
    "\t};\n"
    "\tevent.header := struct {\n"
    "\t\tuint32_t id;\n"
    "\t\tseqring_clock_t timestamp;\n"
    "\t};\n"
    "};\n";

static void
md_env_u64(md_out *o, const char *key, uint64_t v)
{
	md_str(o, "\t");
	md_str(o, key);
	md_str(o, " = ");
	md_u64(o, v);
	md_str(o, ";\n");
}

static void
md_env_str(md_out *o, const char *key, const char *v)
{
	md_str(o, "\t");
	md_str(o, key);
	md_str(o, " = \"");
	md_name(o, v);
	md_str(o, "\";\n");
}

static void
write_head(sr_log_ctf *t, md_out *o)
{
	md_str(o, head_types);
	md_str(o, t->uuid_text);
	md_str(o, head_trace_end);
	md_env_u64(o, "tracer_major", SEQRING_VERSION_MAJOR);
	md_env_u64(o, "tracer_minor", SEQRING_VERSION_MINOR);
	md_env_u64(o, "tracer_patch", SEQRING_VERSION_PATCH);
	md_env_str(o, "trace_format", SR_CTF_TRACE_FORMAT);
	md_env_u64(o, "trace_format_version", SR_CTF_TRACE_FORMAT_VERSION);
	char host[256] = "";
	if (gethostname(host, sizeof host - 1) != 0)
		host[0] = '\0';
	md_env_str(o, "hostname", host);
	md_env_str(o, "procname", program_invocation_short_name);
	md_env_u64(o, "vpid", (uint64_t)getpid());
	md_str(o, head_clock_stream);
}

/* ---- one class's declaration ---- */

/* The conversion of each argument of format (in argument order): 'd' for a '*' width or precision. */
static int
conversions_of(const char *format, char *conv, int max)
{
	int n = 0;
	for (const char *p = format; p != NULL && *p != '\0'; p++) {
		if (*p != '%')
			continue;
		sr_fmt_spec s;
		if (sr_fmt__parse_spec(p, &s) != SR_FMT_OK)
			return -1;
		p += s.len - 1;
		if (s.width_star && n < max)
			conv[n++] = 'd';
		if (s.prec_star && n < max)
			conv[n++] = 'd';
		if (s.conv != '%' && s.conv != 'm' && n < max)
			conv[n++] = s.conv;
	}
	return n;
}

static void
md_field(md_out *o, const char *type, const char *name, int arg, const char *suffix)
{
	md_str(o, "\t\t");
	md_str(o, type);
	md_str(o, " ");
	md_str(o, name);
	if (arg >= 0)
		md_u64(o, (uint64_t)arg);
	md_str(o, suffix);
	md_str(o, ";\n");
}

/* A site's key-value fields (SR_KV), when its calls have them and they are taken. */
static const sr_fmt_fields *
site_fields(const sr_site *site)
{
	/* pairs with the CAS that published the table, before the site's first record */
	const sr_fmt_fields *f = site != NULL ? sr_atomic_load_acquire_ptr(&((sr_site *)site)->fields) : NULL;
	return f != NULL && f->sig.error == SR_FMT_OK && f->count > 0 ? f : NULL;
}

/* kv_ and field j's key, every byte but A-Z a-z 0-9 _ made '_'; its length. */
static size_t
kv_base_name(const sr_fmt_fields *f, int j, char *out, size_t size)
{
	size_t n = (size_t)snprintf(out, size, "kv_");
	for (size_t i = 0; i < f->key_len[j] && n + 1 < size && n < 67; i++) {
		char ch = f->key[j][i];
		if (!((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9')))
			ch = '_';
		out[n++] = ch;
	}
	out[n] = '\0';
	return n;
}

/*
 * Field j's name in the event class: kv_ and its key with every byte but
 * A-Z a-z 0-9 _ made '_' (a TSDL identifier that no keyword nor argN
 * meets), then _j when an earlier field's name is the same.
 */
static void
kv_name(const sr_fmt_fields *f, int j, char *out, size_t size)
{
	size_t n = kv_base_name(f, j, out, size);
	for (int e = 0; e < j; e++) {
		char earlier[80];
		kv_name(f, e, earlier, sizeof earlier);
		if (strcmp(earlier, out) == 0) {
			snprintf(out + n, size - n, "_%d", j);
			return;
		}
	}
}

/* A field's declaration: argN (name "arg", i) or a key-value field's kv name (arg -1). */
static void
md_typed_field(md_out *o, int type, bool is_unsigned, const char *name, int arg)
{
	switch (type) {
	case SR_FMT_ARG_LONG:
		md_field(o, is_unsigned ? "uint64_t" : "int64_t", name, arg, "");
		break;
	case SR_FMT_ARG_DOUBLE:
		md_field(o, "seqring_double_t", name, arg, "");
		break;
	case SR_FMT_ARG_LDOUBLE:
		md_field(o, "uint8_t", name, arg, "[16]");
		break;
	case SR_FMT_ARG_PTR:
		md_field(o, "seqring_pointer_t", name, arg, "");
		break;
	case SR_FMT_ARG_STR:
		md_field(o, "uint32_t", name, arg, "_length");
		break;
	default:
		md_field(o, is_unsigned ? "uint32_t" : "int32_t", name, arg, "");
		break;
	}
}

/*
 * The payload's fields: errno, the format's arguments (argN), the
 * key-value fields (kv_KEY, typed as arguments), then the strings of both
 * in order, as a record lays them out.
 */
static void
write_message_fields(md_out *o, const sr_site *site, const sr_fmt_sig *sig, const sr_fmt_fields *f)
{
	char conv[SR_SITE_MAX_ARGS];
	int first = f != NULL ? f->first : sig->nargs;
	int nconv = conversions_of(site->format, conv, SR_SITE_MAX_ARGS);
	if (sig->uses_errno)
		md_field(o, "int32_t", "errno", -1, "");
	char name[96];
	for (int i = 0; i < sig->nargs; i++) {
		if (i >= first) {
			kv_name(f, i - first, name, sizeof name);
			md_typed_field(o, sig->type[i], f->unsigned_mask >> (i - first) & 1, name, -1);
			continue;
		}
		char c = 'd';  /* a format whose conversions were not all read: signed */
		if (nconv == first)
			c = conv[i];
		md_typed_field(o, sig->type[i], c == 'u' || c == 'o' || c == 'x' || c == 'X', "arg", i);
	}
	for (int i = 0; i < sig->nargs; i++) {
		if (sig->type[i] != SR_FMT_ARG_STR)
			continue;
		if (i >= first) {
			kv_name(f, i - first, name, sizeof name);
			md_field(o, "string", name, -1, "");
		} else {
			md_field(o, "string", "arg", i, "");
		}
	}
}

/* The letter of a field's kind in the URI's fields= (the reader's sr_ctf__field_kind). */
static char
kind_letter(int type)
{
	switch (type) {
	case SR_FMT_ARG_LONG:
		return 'l';
	case SR_FMT_ARG_DOUBLE:
		return 'd';
	case SR_FMT_ARG_LDOUBLE:
		return 'L';
	case SR_FMT_ARG_PTR:
		return 'p';
	case SR_FMT_ARG_STR:
		return 's';
	default:
		return 'i';
	}
}

static void md_uri_pair(md_out *o, const char *key, const char *value);

/*
 * fields=KEY:K[u],...: each field's key (its bytes but A-Z a-z 0-9 - _ .
 * as %XX, so that ',' and ':' only separate), its kind letter and u for an
 * unsigned type; the whole percent-encoded again as a URI value.
 */
static void
md_uri_fields(md_out *o, const sr_fmt_fields *f)
{
	static const char hex[] = "0123456789ABCDEF";
	char list[SR_SITE_MAX_ARGS * 64];
	size_t n = 0;
	for (int j = 0; j < f->count && n + 8 < sizeof list; j++) {
		if (j > 0)
			list[n++] = ',';
		for (size_t i = 0; i < f->key_len[j] && n + 8 < sizeof list; i++) {
			unsigned char ch = (unsigned char)f->key[j][i];
			if ((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-' ||
			    ch == '_' || ch == '.') {
				list[n++] = (char)ch;
			} else {
				list[n++] = '%';
				list[n++] = hex[ch >> 4];
				list[n++] = hex[ch & 15];
			}
		}
		list[n++] = ':';
		list[n++] = kind_letter(f->sig.type[f->first + j]);
		if (f->unsigned_mask >> j & 1)
			list[n++] = 'u';
	}
	list[n] = '\0';
	md_uri_pair(o, "fields", list);
}

static void
md_uri_pair(md_out *o, const char *key, const char *value)
{
	md_str(o, "&");
	md_str(o, key);
	md_str(o, "=");
	md_uri_value(o, value);
}

static void
write_class(md_out *o, const sr_ctf_class *c)
{
	const sr_site *site = c->site;
	const sr_category *cat = c->category;
	const char *category = c->kind == SR_CTF_KIND_TEXT ? "seqring" : cat != NULL && cat->name != NULL ? cat->name : "";
	int level = (int)(c->level_kind & 0xff);
	md_str(o, "\nevent {\n\tname = \"");
	md_name(o, category[0] != '\0' ? category : "root");
	md_str(o, "\";\n\tid = ");
	md_u64(o, c->id);
	md_str(o, ";\n\tstream_id = 0;\n\tloglevel = ");
	md_u64(o, (uint64_t)sr_ctf__loglevel(level));
	md_str(o, ";\n\tmodel.emf.uri = \"seqring:");
	md_str(o, sr_ctf__kind_name(c->kind));
	md_str(o, "?level=");
	md_str(o, sr_log_level_name(level));
	md_uri_pair(o, "category", category);
	if (c->kind != SR_CTF_KIND_TEXT && site != NULL) {
		md_uri_pair(o, "file", site->file);
		md_str(o, "&line=");  /* digits: nothing to encode */
		md_u64(o, site->line > 0 ? (uint64_t)site->line : 0);
		md_uri_pair(o, "function", site->function);
		md_uri_pair(o, "format", site->format);
	}
	const sr_fmt_fields *f = c->kind == SR_CTF_KIND_MESSAGE ? site_fields(site) : NULL;
	if (f != NULL)
		md_uri_fields(o, f);
	if (c->level_kind >> 12 & 1)
		md_str(o, "&backtrace=1");
	md_str(o, "\";\n");
	if (c->kind == SR_CTF_KIND_MESSAGE && site != NULL) {
		md_str(o, "\tfields := struct {\n");
		write_message_fields(o, site, f != NULL ? &f->sig : &site->sig, f);
		md_str(o, "\t};\n");
	} else if (c->kind == SR_CTF_KIND_TEXT) {
		md_str(o, "\tfields := struct {\n\t\tstring message;\n\t};\n");
	}
	md_str(o, "};\n");
}

int
sr_log__ctf_metadata_begin(sr_log_ctf *t, sr_error *err)
{
	md_out o = { .fd = t->metadata_fd };
	write_head(t, &o);
	md_flush(&o);
	if (o.failed)
		return sr_error_set(err, SR_ESYS, "ctf sink: cannot write the metadata of trace \"%s\": %s", t->dir,
		    strerror(errno));
	return SR_OK;
}

/* ---- the table ---- */

/* Classes per pool: pools never move, so the consumer's cache may point into them. */
#define CLASS_POOL 256

static size_t
key_hash(const void *site, const void *category, uint32_t level_kind)
{
	uint64_t h = (uint64_t)(uintptr_t)site * 0x9E3779B97F4A7C15u;
	h ^= (uint64_t)(uintptr_t)category * 0xC2B2AE3D27D4EB4Fu;
	h ^= level_kind * 0x165667B19E3779F9u;
	return (size_t)(h ^ (h >> 29));
}

static bool
same_key(const sr_ctf_class *c, const void *site, const void *category, uint32_t level_kind)
{
	return c->site == site && c->category == category && c->level_kind == level_kind;
}

static sr_ctf_class *
table_find(const sr_log_ctf *t, const void *site, const void *category, uint32_t level_kind)
{
	size_t mask = t->classes_cap - 1;
	for (size_t i = key_hash(site, category, level_kind) & mask;; i = (i + 1) & mask) {
		sr_ctf_class *c = t->classes[i];
		if (c == NULL || same_key(c, site, category, level_kind))
			return c;
	}
}

static void
table_insert(sr_ctf_class **slots, size_t cap, sr_ctf_class *c)
{
	size_t mask = cap - 1;
	size_t i = key_hash(c->site, c->category, c->level_kind) & mask;
	while (slots[i] != NULL)
		i = (i + 1) & mask;
	slots[i] = c;
}

/* Room for one more class: the table at most half full, a free place in the pool (raw: no allocation). */
static bool
make_room(sr_log_ctf *t, bool raw)
{
	if ((t->class_count + 1) * 2 > t->classes_cap) {
		if (raw && (t->class_count + 1) * 4 > t->classes_cap * 3)
			return false;
		if (!raw) {
			size_t cap = t->classes_cap * 2;
			sr_ctf_class **slots = calloc(cap, sizeof(sr_ctf_class *));
			if (slots == NULL)
				return false;
			for (size_t i = 0; i < t->classes_cap; i++)
				if (t->classes[i] != NULL)
					table_insert(slots, cap, t->classes[i]);
			free(t->classes);
			t->classes = slots;
			t->classes_cap = cap;
		}
	}
	if (t->pool_used < t->pool_cap)
		return true;
	if (raw)
		return false;
	size_t cap = CLASS_POOL;
	sr_ctf_class *pool = calloc(cap, sizeof *pool);
	void **pools = realloc(t->pools, (t->pool_count + 1) * sizeof *pools);
	if (pool == NULL || pools == NULL) {
		free(pool);
		if (pools != NULL)
			t->pools = pools;
		return false;
	}
	t->pools = pools;
	t->pools[t->pool_count++] = pool;
	t->pool = pool;
	t->pool_used = 0;
	t->pool_cap = cap;
	return true;
}

/* The key of ev's class: its kind and backtrace mark go with the level. */
static void
key_of(const sr_log_event *ev, const void **site, const void **category, uint32_t *level_kind, int *kind)
{
	const sr_log_rec *h = ev->h;
	if (h == NULL)
		*kind = SR_CTF_KIND_TEXT;
	else if ((h->kind & SR_REC_KIND_MASK) == SR_REC_FORMAT_ERROR)
		*kind = SR_CTF_KIND_FORMAT_ERROR;
	else
		*kind = SR_CTF_KIND_MESSAGE;
	*site = h != NULL ? (const void *)ev->site : NULL;
	*category = h != NULL ? (const void *)h->cat : NULL;
	*level_kind = (uint32_t)(ev->level & 0xff) | (uint32_t)*kind << 8 | (uint32_t)(ev->backtrace ? 1 : 0) << 12;
}

/* Declares a new class for ev (classes_lock held, or raw). */
static sr_ctf_class *
declare(sr_log_ctf *t, const sr_log_event *ev, const void *site, const void *category, uint32_t level_kind,
    int kind, bool raw)
{
	sr_fmt_sig scratch;
	const sr_fmt_sig *sig = NULL;
	if (kind == SR_CTF_KIND_MESSAGE || kind == SR_CTF_KIND_FORMAT_ERROR) {
		if (ev->site == NULL)
			return NULL;
		/* A record exists, so its site was parsed: its sig is final (write_class reads it). */
		sig = sr_site_sig((sr_site *)ev->site, &scratch);
		if (kind == SR_CTF_KIND_MESSAGE && (sig != &ev->site->sig || sig->error != SR_FMT_OK))
			return NULL;
		/* A site with key-value fields: its records hold the format's values, then the fields'. */
		const sr_fmt_fields *f = kind == SR_CTF_KIND_MESSAGE ? site_fields(ev->site) : NULL;
		if (f != NULL)
			sig = &f->sig;
	}
	if (!make_room(t, raw))
		return NULL;
	sr_ctf_class *c = &t->pool[t->pool_used];
	*c = (sr_ctf_class){ .site = site, .category = category, .level_kind = level_kind,
		.id = (uint32_t)t->class_count, .kind = (uint8_t)kind };
	if (kind == SR_CTF_KIND_MESSAGE) {
		c->uses_errno = sig->uses_errno != 0;
		c->value_bytes = sig->value_bytes;
		size_t at = 0;
		for (int i = 0; i < sig->nargs; i++) {
			if (sig->type[i] == SR_FMT_ARG_STR)
				c->string_len_at[c->nstrings++] = (uint16_t)at;
			at += sr_fmt__value_bytes(sig->type[i]);
		}
	}
	md_out o = { .fd = t->metadata_fd };
	write_class(&o, c);
	md_flush(&o);
	if (o.failed)
		return NULL;  /* a declaration the file may hold in part: no event of it is ever written */
	t->pool_used++;
	t->class_count++;
	table_insert(t->classes, t->classes_cap, c);
	return c;
}

sr_ctf_class *
sr_log__ctf_class_of(sr_log_ctf *t, const sr_log_event *ev, int how)
{
	const void *site, *category;
	uint32_t level_kind;
	int kind;
	key_of(ev, &site, &category, &level_kind, &kind);
	size_t slot = key_hash(site, category, level_kind) & (SR_CTF_CLASS_CACHE - 1);
	if (how == SR_CTF_BUFFERED) {
		sr_ctf_class *c = t->cache[slot];
		if (c != NULL && same_key(c, site, category, level_kind))
			return c;
	}
	bool raw = how == SR_CTF_RAW;
	/* The crash handler never waits: it may have interrupted the lock's holder. */
	bool locked = raw ? pthread_mutex_trylock(&t->classes_lock) == 0 : pthread_mutex_lock(&t->classes_lock) == 0;
	sr_ctf_class *c = table_find(t, site, category, level_kind);
	if (c == NULL && (locked || !raw))
		c = declare(t, ev, site, category, level_kind, kind, raw);
	if (locked)
		pthread_mutex_unlock(&t->classes_lock);
	if (c != NULL && how == SR_CTF_BUFFERED)
		t->cache[slot] = c;
	return c;
}

int
sr_log__ctf_metadata_rewrite(sr_log_ctf *t)
{
	md_out o = { .fd = t->metadata_fd };
	write_head(t, &o);
	/* In id order: the pools were filled in order. */
	for (size_t p = 0; p < t->pool_count; p++) {
		const sr_ctf_class *pool = t->pools[p];
		size_t used = pool == t->pool ? t->pool_used : CLASS_POOL;
		for (size_t i = 0; i < used; i++)
			write_class(&o, &pool[i]);
	}
	md_flush(&o);
	return o.failed ? SR_ESYS : SR_OK;
}

void
sr_log__ctf_classes_free(sr_log_ctf *t)
{
	for (size_t i = 0; i < t->pool_count; i++)
		free(t->pools[i]);
	free(t->pools);
	free(t->classes);
	t->pools = NULL;
	t->pool_count = 0;
	t->pool = NULL;
	t->pool_used = t->pool_cap = 0;
	t->classes = NULL;
	t->classes_cap = t->class_count = 0;
	memset(t->cache, 0, sizeof t->cache);
}
