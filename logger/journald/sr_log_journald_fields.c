/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_journald_fields.c: the journal's native format.  A datagram is a
 * run of fields, each "NAME=value\n", or, for a value that holds a newline,
 * "NAME\n" then the value's length as a 64-bit little-endian number, the
 * value and "\n" (https://systemd.io/JOURNAL_NATIVE_PROTOCOL/).  Names are
 * A-Z, 0-9 and '_', not starting with '_' (journald's own fields) or a
 * digit, at most 64 characters: journald drops a field whose name is not,
 * so an invalid name is mapped here to a valid one, never lost.
 *
 * A record's fields: MESSAGE, PRIORITY, CODE_FILE, CODE_LINE, CODE_FUNC,
 * SYSLOG_IDENTIFIER, TID, SEQRING_CATEGORY, SEQRING_THREAD (a named
 * thread's name) and SEQRING_TIMESTAMP (the record's own time: journald's
 * __REALTIME_TIMESTAMP is when it received the datagram); then each
 * key-value field (SR_KV) under its key upper-cased and mapped to the
 * journal's rules, prefixed FIELD_ when it would meet a field of the
 * record's own (a key "message" is FIELD_MESSAGE).
 */
#include "sr_log_date_internal.h"
#include "sr_log_event_internal.h"
#include "sr_log_journald_state_internal.h"

#include <stdlib.h>
#include <string.h>

int
sr_log__journald_priority(int level)
{
	/* syslog's severities, as the syslog sink maps the levels */
	static const int sev[] = { 7, 7, 6, 4, 3, 2, 7 }; /* trace debug info warn error fatal off */
	return level >= 0 && level < SR_LOG_LEVEL_COUNT ? sev[level] : 6;
}

static bool
name_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

bool
sr_log__journald_name_valid(const char *name, size_t n)
{
	if (n == 0 || n > SR_JOURNALD_NAME_MAX || name[0] == '_' || (name[0] >= '0' && name[0] <= '9'))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!name_char(name[i]))
			return false;
	return true;
}

size_t
sr_log__journald_field_name(const char *name, size_t n, char *out)
{
	if (sr_log__journald_name_valid(name, n)) {
		memcpy(out, name, n);
		out[n] = '\0';
		return n;
	}
	size_t k = 0;
	/* Mapped, a first byte other than a letter is '_' (journald's trusted fields) or a digit (refused). */
	char c0 = '\0';
	if (n > 0)
		c0 = name[0];
	if (!((c0 >= 'a' && c0 <= 'z') || (c0 >= 'A' && c0 <= 'Z')))
		out[k++] = 'X';
	for (size_t i = 0; i < n && k < SR_JOURNALD_NAME_MAX; i++) {
		char c = name[i];
		if (c >= 'a' && c <= 'z')
			c = (char)(c - 'a' + 'A');
		if (!name_char(c))
			c = '_';
		out[k++] = c;
	}
	out[k] = '\0';
	return k;
}

/* Room for n more bytes; false (b->failed) when memory ran out. */
static bool
reserve(sr_journald_buf *b, size_t n)
{
	if (b->failed)
		return false;
	if (b->len + n <= b->cap)
		return true;
	size_t cap = b->cap > 0 ? b->cap : 4096;
	while (cap < b->len + n)
		cap *= 2;
	char *p = realloc(b->data, cap);
	if (p == NULL) {
		b->failed = true;
		return false;
	}
	b->data = p;
	b->cap = cap;
	return true;
}

bool
sr_log__journald_append_known(sr_journald_buf *b, const char *name, size_t name_len, const char *value,
    size_t value_len)
{
	/* The binary form costs 9 bytes more: only for a value it is needed for. */
	bool binary = memchr(value, '\n', value_len) != NULL;
	if (!reserve(b, name_len + value_len + (binary ? 10 : 2)))
		return false;
	char *p = b->data + b->len;
	memcpy(p, name, name_len);
	p += name_len;
	if (binary) {
		*p++ = '\n';
		uint64_t v = value_len;
		for (int i = 0; i < 8; i++, v >>= 8)
			*p++ = (char)(v & 0xff); /* little endian, whatever the host */
	} else {
		*p++ = '=';
	}
	memcpy(p, value, value_len);
	p += value_len;
	*p++ = '\n';
	b->len = (size_t)(p - b->data);
	return true;
}

bool
sr_log__journald_append_field(sr_journald_buf *b, const char *name, size_t name_len, const char *value,
    size_t value_len)
{
	char mapped[SR_JOURNALD_NAME_MAX + 1];
	size_t n = sr_log__journald_field_name(name, name_len, mapped);
	return sr_log__journald_append_known(b, mapped, n, value, value_len);
}

#define LIT(s) s, sizeof s - 1

static void
append_uint(sr_journald_buf *b, const char *name, size_t name_len, uint64_t v)
{
	char num[24];
	sr_fmt_buf nb = { num, 0, sizeof num, 0 };
	sr_log__put_uint(&nb, v, 1);
	sr_log__journald_append_known(b, name, name_len, num, nb.len);
}

/* SEQRING_TIMESTAMP: RFC 3339 in UTC with microseconds, as the text layout prints the time. */
static void
append_timestamp(sr_log_journald *j, int64_t ts_ns)
{
	int64_t sec;
	int32_t ns;
	sr_log__split_ns(ts_ns, &sec, &ns);
	if (sec != j->stamp_sec) {
		/* The date changes once a second: made then, copied for every record. */
		sr_fmt_buf d = { j->stamp, 0, sizeof j->stamp, 0 };
		sr_log__put_iso_seconds(&d, sec);
		j->stamp_len = d.len;
		j->stamp_sec = sec;
	}
	char text[40];
	memcpy(text, j->stamp, j->stamp_len);
	sr_fmt_buf b = { text, j->stamp_len, sizeof text, 0 };
	sr_fmt_buf_putc(&b, '.');
	sr_log__put_uint(&b, (uint64_t)(ns / 1000), 6);
	sr_fmt_buf_putc(&b, 'Z');
	sr_log__journald_append_known(&j->dgram, LIT("SEQRING_TIMESTAMP"), text, b.len);
}

/* The names a record's own fields take: a key-value field mapped to one of them is prefixed. */
static bool
own_field(const char *name, size_t n)
{
	static const char *const own[] = { "MESSAGE", "PRIORITY", "SYSLOG_IDENTIFIER", "CODE_FILE", "CODE_LINE",
	    "CODE_FUNC", "TID" };
	if (n >= 8 && memcmp(name, "SEQRING_", 8) == 0)
		return true;
	for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
		if (strlen(own[i]) == n && memcmp(own[i], name, n) == 0)
			return true;
	return false;
}

/* One key-value field: its key as a journal field name, its value as text (a string as it is). */
static void
append_key_value(sr_journald_buf *b, const sr_fmt_field *f)
{
	char mapped[SR_JOURNALD_NAME_MAX + 1];
	size_t n = sr_log__journald_field_name(f->key, f->key_len, mapped);
	char name[SR_JOURNALD_NAME_MAX + 1];
	size_t name_len = n;
	if (own_field(mapped, n)) {
		/* FIELD_ and the mapped name, cut to the journal's 64 characters. */
		name_len = n + 6 > SR_JOURNALD_NAME_MAX ? SR_JOURNALD_NAME_MAX : n + 6;
		static const char prefix[6] = { 'F', 'I', 'E', 'L', 'D', '_' };  /* no NUL: the name has its length */
		memcpy(name, prefix, sizeof prefix);
		memcpy(name + sizeof prefix, mapped, name_len - sizeof prefix);
	} else {
		memcpy(name, mapped, n);
	}
	if (f->kind == SR_FMT_ARG_STR) {
		if (f->str == NULL)
			sr_log__journald_append_known(b, name, name_len, LIT("(null)"));
		else
			sr_log__journald_append_known(b, name, name_len, f->str, f->str_len);
		return;
	}
	char num[64];
	sr_fmt_buf nb = { num, 0, sizeof num, 0 };
	sr_fmt_field_put_number(&nb, f, false);
	sr_log__journald_append_known(b, name, name_len, num, nb.len);
}

void
sr_log__journald_make_fields(sr_log_journald *j, const sr_log_event *ev, int level, const char *msg,
    size_t msg_len)
{
	sr_journald_buf *b = &j->dgram;
	b->len = 0;
	b->failed = false;
	sr_log__journald_append_known(b, LIT("MESSAGE"), msg, msg_len);
	char pri = (char)('0' + sr_log__journald_priority(level));
	sr_log__journald_append_known(b, LIT("PRIORITY"), &pri, 1);
	sr_log__journald_append_known(b, LIT("SYSLOG_IDENTIFIER"), j->ident, j->ident_len);
	if (ev == NULL)
		return;
	const sr_site *site = ev->site;
	if (site != NULL && site->file != NULL) {
		sr_log__journald_append_known(b, LIT("CODE_FILE"), site->file, strlen(site->file));
		append_uint(b, LIT("CODE_LINE"), (uint64_t)(site->line > 0 ? site->line : 0));
	}
	if (site != NULL && site->function != NULL)
		sr_log__journald_append_known(b, LIT("CODE_FUNC"), site->function, strlen(site->function));
	append_uint(b, LIT("TID"), ev->tid);
	const char *cat = ev->category != NULL && ev->category[0] != '\0' ? ev->category : "root";
	sr_log__journald_append_known(b, LIT("SEQRING_CATEGORY"), cat, strlen(cat));
	if (ev->thread != NULL && ev->thread[0] != '\0')
		sr_log__journald_append_known(b, LIT("SEQRING_THREAD"), ev->thread, strnlen(ev->thread, 16));
	append_timestamp(j, ev->ts_ns);
	sr_fmt_field_iter it;
	if (sr_log__event_fields(ev, &it)) {
		sr_fmt_field f;
		while (sr_fmt_fields_next(&it, &f))
			append_key_value(b, &f);
	}
}
