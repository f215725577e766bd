/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_fmt_fields.c: a site's key-value fields: the table made at its first
 * call with fields, and a record's fields read back by it.
 */
#include "sr_fmt_fields_internal.h"
#include "sr_fmt_internal.h"
#include "sr_fmt_spec_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sr_fmt_fields *
refuse(sr_fmt_fields *t, const char *why, const char *key)
{
	t->sig.error = SR_FMT_E_FIELDS;
	if (key != NULL)
		snprintf(t->error, sizeof t->error, "key-value field \"%.64s\" %s", key, why);
	else
		snprintf(t->error, sizeof t->error, "key-value fields %s", why);
	return t;
}

sr_fmt_fields *
sr_fmt_fields_make(const sr_fmt_sig *format_sig, const sr_log_arg *args, int n,
    const char *const *keys, const unsigned char *flags, int count)
{
	sr_fmt_fields *t = calloc(1, sizeof *t);
	if (t == NULL)
		return NULL;
	t->sig = *format_sig;
	if (format_sig->error != SR_FMT_OK)
		return t;  /* the format's own error, reported as every refused format's */
	int first = n - count;
	if (count <= 0 || n > SR_SITE_MAX_ARGS || first != format_sig->nargs)
		return refuse(t, "do not follow the format's arguments one for one", NULL);
	t->first = (uint8_t)first;
	t->count = (uint8_t)count;
	for (int j = 0; j < count; j++) {
		const char *key = keys[j];
		if (key == NULL || key[0] == '\0')
			return refuse(t, "has an empty key", "");
		for (int k = 0; k < j; k++)
			if (strcmp(keys[k], key) == 0)
				return refuse(t, "is repeated in the call", key);
		size_t len = strlen(key);
		t->key[j] = key;
		t->key_len[j] = (uint16_t)(len < UINT16_MAX ? len : UINT16_MAX);
		if (flags != NULL && flags[j])
			t->unsigned_mask |= UINT32_C(1) << j;
		int kind = args[first + j].kind;
		t->sig.type[first + j] = (uint8_t)kind;
		t->sig.precision[first + j] = SR_FMT_PREC_NONE;
		t->sig.value_bytes = (uint16_t)(t->sig.value_bytes + sr_fmt__value_bytes(kind));
		if (kind == SR_FMT_ARG_STR)
			t->sig.nstrings++;
	}
	t->sig.nargs = (uint8_t)n;
	return t;
}

/* A string's stored length at the value area's offset at (SR_FMT_NULL_STRING: NULL). */
static uint32_t
string_len_at(const unsigned char *values, size_t at)
{
	uint32_t len;
	memcpy(&len, values + at, 4);
	return len;
}

bool
sr_fmt_fields_begin(sr_fmt_field_iter *it, const sr_fmt_fields *f, const unsigned char *values,
    size_t values_len, const unsigned char *strings, size_t strings_len)
{
	*it = (sr_fmt_field_iter){ .f = f, .values = values, .values_len = values_len,
		.strings = strings, .strings_len = strings_len };
	if (f == NULL || f->sig.error != SR_FMT_OK || f->count == 0)
		return false;
	/* Past the format's values, and its strings in the string area. */
	size_t at = 0, text = 0;
	for (int i = 0; i < f->first; i++) {
		size_t size = sr_fmt__value_bytes(f->sig.type[i]);
		if (at + size > values_len)
			return false;
		if (f->sig.type[i] == SR_FMT_ARG_STR) {
			uint32_t len = string_len_at(values, at);
			if (len != SR_FMT_NULL_STRING)
				text += (size_t)len + 1;
		}
		at += size;
	}
	if (text > strings_len)
		return false;
	it->value_at = at;
	it->string_at = text;
	return true;
}

bool
sr_fmt_fields_next(sr_fmt_field_iter *it, sr_fmt_field *out)
{
	const sr_fmt_fields *f = it->f;
	if (f == NULL || it->next >= f->count)
		return false;
	int j = it->next;
	int kind = f->sig.type[f->first + j];
	size_t size = sr_fmt__value_bytes(kind);
	if (it->value_at + size > it->values_len)
		return false;
	*out = (sr_fmt_field){ .key = f->key[j], .key_len = f->key_len[j], .kind = kind,
		.is_unsigned = (f->unsigned_mask >> j & 1) != 0, .value = it->values + it->value_at };
	if (kind == SR_FMT_ARG_STR) {
		uint32_t len = string_len_at(it->values, it->value_at);
		if (len != SR_FMT_NULL_STRING) {
			/* The bytes and their NUL inside the string area, or the walk ends here. */
			if (it->string_at + (size_t)len + 1 > it->strings_len)
				return false;
			out->str = (const char *)it->strings + it->string_at;
			out->str_len = len;
			it->string_at += (size_t)len + 1;
		}
	}
	it->value_at += size;
	it->next++;
	return true;
}

void
sr_fmt_field_put_number(sr_fmt_buf *out, const sr_fmt_field *f, bool signal_safe)
{
	const char *format;
	switch (f->kind) {
	case SR_FMT_ARG_INT: format = f->is_unsigned ? "%u" : "%d"; break;
	case SR_FMT_ARG_LONG: format = f->is_unsigned ? "%llu" : "%lld"; break;
	case SR_FMT_ARG_DOUBLE: format = "%.17g"; break;
	case SR_FMT_ARG_LDOUBLE: format = "%.21Lg"; break;
	case SR_FMT_ARG_PTR: {
		/* By hand: the same text in every layout and in a signal handler, 0x0 for NULL. */
		static const char hex[] = "0123456789abcdef";
		uint64_t p;
		memcpy(&p, f->value, 8);
		char digits[18];
		int n = 0;
		do {
			digits[sizeof digits - 1 - n++] = hex[p & 15];
			p >>= 4;
		} while (p != 0);
		sr_fmt_buf_put(out, "0x", 2);
		sr_fmt_buf_put(out, digits + sizeof digits - n, (size_t)n);
		return;
	}
	default:
		return;
	}
	size_t bytes = sr_fmt__value_bytes(f->kind);
	if (signal_safe)
		sr_fmt_render_safe(out, format, f->value, bytes, NULL, 0, 0);
	else
		sr_fmt_render(out, format, f->value, bytes, NULL, 0, 0);
}

void
sr_fmt_fields_publish(sr_site *site, const sr_log_arg *args, int n, const char *const *keys,
    const unsigned char *flags, int count)
{
	sr_fmt_sig scratch;
	sr_fmt_fields *t = sr_fmt_fields_make(sr_site_sig(site, &scratch), args, n, keys, flags, count);
	/*
	 * The CAS publishes the whole table (a full barrier); pairs with the
	 * load-acquire of fields in sr_log__emit_fields, the frontend's emit_args
	 * and the consumer's sr_log__event_fields.
	 */
	if (t != NULL && !sr_atomic_cas_ptr(&site->fields, NULL, t))
		free(t);
} /* NOLINT(clang-analyzer-unix.Malloc): a published t is site->fields, kept as long as the site */
