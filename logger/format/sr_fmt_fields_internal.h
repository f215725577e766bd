/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_fmt_fields_internal.h: a call site's key-value fields (SR_KV), the
 * table its first call with fields makes, and a record's fields read back
 * (sr_fmt_fields.c; internal).
 *
 * A call with fields encodes them as arguments after the format's own: the
 * same kinds, the same value area, the strings after the format's strings.
 * So a record carries only the values; the keys, constant per site, are in
 * the site's table (sr_site.fields), and the table's signature (the
 * format's arguments, then the fields') is what the calls encode by.
 */
#ifndef SR_FMT_FIELDS_INTERNAL_H
#define SR_FMT_FIELDS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sr_fmt_buf_internal.h"
#include "sr_log_args.h"
#include "sr_log_site.h"

/* A site's fields: made once, never changed or freed. */
typedef struct sr_fmt_fields {
	/* What the calls encode by: the format's arguments, then the fields'; error set when refused. */
	sr_fmt_sig sig;
	uint8_t first;                      /* the first field's argument: the format's nargs */
	uint8_t count;                      /* fields */
	uint32_t unsigned_mask;             /* bit j: field j's value has an unsigned type */
	const char *key[SR_SITE_MAX_ARGS];  /* the call site's string literals */
	uint16_t key_len[SR_SITE_MAX_ARGS];
	char error[160];                    /* why refused (sig.error SR_FMT_E_FIELDS), else "" */
} sr_fmt_fields;

/*
 * The table of a site whose calls pass n arguments, the last count of them
 * fields with keys[j] (flags[j]: unsigned), by the format's signature; a
 * repeated or empty key, or arguments that do not follow the format, make a
 * table that refuses the calls (sig.error SR_FMT_E_FIELDS, error says why).
 * NULL when out of memory.
 */
sr_fmt_fields *sr_fmt_fields_make(const sr_fmt_sig *format_sig, const sr_log_arg *args, int n,
    const char *const *keys, const unsigned char *flags, int count);
/*
 * Makes the table of site (by its format's signature) and publishes it in
 * site->fields, once: racing first calls make equal tables and one is kept.
 * Out of memory: nothing is published (the call goes without its fields;
 * the next one tries again).
 */
void sr_fmt_fields_publish(sr_site *site, const sr_log_arg *args, int n, const char *const *keys,
    const unsigned char *flags, int count);

/* One field of a record. */
typedef struct sr_fmt_field {
	const char *key;
	size_t key_len;
	int kind;                           /* enum sr_fmt_arg: INT, LONG, DOUBLE, LDOUBLE, PTR, STR */
	bool is_unsigned;                   /* INT, LONG: an unsigned type */
	const unsigned char *value;         /* its bytes in the value area (4, 8 or 16) */
	const char *str;                    /* STR: the bytes stored (cut ones end with the marker); NULL: a NULL string */
	uint32_t str_len;
} sr_fmt_field;

/* Walks a record's fields, bounds checked: a record that does not hold them ends the walk. */
typedef struct sr_fmt_field_iter {
	const sr_fmt_fields *f;
	const unsigned char *values;
	size_t values_len;
	const unsigned char *strings;
	size_t strings_len;
	size_t value_at, string_at;
	int next;
} sr_fmt_field_iter;

/* Starts a walk over the record's value area and string area; false when it holds no field. */
bool sr_fmt_fields_begin(sr_fmt_field_iter *it, const sr_fmt_fields *f, const unsigned char *values,
    size_t values_len, const unsigned char *strings, size_t strings_len);
/* The next field into *out; false at the end (or where the record is short). */
bool sr_fmt_fields_next(sr_fmt_field_iter *it, sr_fmt_field *out);

/*
 * A number field's value as text: %d or %u, %lld or %llu, %.17g (a double
 * reads back to the same bits), %.21Lg, a pointer as 0x and its hex digits
 * (0x0 for NULL).  Async-signal-safe with signal_safe (its digits may then
 * differ for floating point, as sr_fmt_render_safe's).  Not for STR.
 */
void sr_fmt_field_put_number(sr_fmt_buf *out, const sr_fmt_field *f, bool signal_safe);

#endif /* SR_FMT_FIELDS_INTERNAL_H */
