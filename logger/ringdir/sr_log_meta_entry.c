/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_meta_entry.c: the entries of a meta file (sr_log_meta_entry):
 * a site's and a category's made, and the checksum that seals each.  The
 * catalogue and the directory write them; the reader checks them.
 */
#include "sr_log_ring_dir_internal.h"

#include <string.h>

uint32_t
sr_log__meta_entry_checksum(const unsigned char *p, size_t bytes)
{
	/* The entry with its checksum field taken as 0. */
	uint64_t h = UINT64_C(14695981039346656037);
	for (size_t i = 0; i < bytes; i++) {
		unsigned char b = i >= offsetof(sr_log_meta_entry, checksum) &&
		    i < offsetof(sr_log_meta_entry, checksum) + sizeof(uint32_t) ? 0 : p[i];
		h ^= b;
		h *= UINT64_C(1099511628211);
	}
	return (uint32_t)(h ^ (h >> 32));
}

/* Copies n bytes of s (cut to fit `room`) into p; the length kept. */
static uint32_t
put_string(unsigned char *p, const char *s, size_t room)
{
	size_t n = s != NULL ? strlen(s) : 0;
	if (n > room)
		n = room;
	/* An entry holds each string's length, never its NUL: the copy stops at the text. */
	if (n > 0)
		memcpy(p, s, n); /* NOLINT(bugprone-not-null-terminated-result) */
	return (uint32_t)n;
}

static size_t
seal(unsigned char *buf, sr_log_meta_entry *e)
{
	e->checksum = 0;
	memcpy(buf, e, sizeof *e);
	e->checksum = sr_log__meta_entry_checksum(buf, e->bytes);
	memcpy(buf, e, sizeof *e);
	return e->bytes;
}

size_t
sr_log__meta_site_entry(const sr_site *site, bool with_home, unsigned char *buf)
{
	sr_log_meta_entry e;
	memset(&e, 0, sizeof e);
	e.kind = SR_LOG_META_SITE;
	e.address = (uint64_t)(uintptr_t)site;
	/* pairs with bind_home_category's CAS (the frontend): bound before this call */
	e.home_cat = with_home ? (uint64_t)(uintptr_t)sr_atomic_load_acquire_ptr((sr_atomic_ptr *)&site->home_cat) : 0;
	e.line = site->line;
	e.level = site->level;
	/* The longest strings are cut to fit the entry: the format first keeps the most. */
	size_t room = SR_LOG_META_ENTRY_MAX - sizeof e;
	unsigned char *p = buf + sizeof e;
	e.len[0] = put_string(p, site->format, room);
	room -= e.len[0];
	e.len[1] = put_string(p + e.len[0], site->file, room / 2);
	room -= e.len[1];
	e.len[2] = put_string(p + e.len[0] + e.len[1], site->function, room);
	e.bytes = (uint32_t)(sizeof e + e.len[0] + e.len[1] + e.len[2]);
	return seal(buf, &e);
}

size_t
sr_log__meta_category_entry(const sr_category *cat, unsigned char *buf)
{
	sr_log_meta_entry e;
	memset(&e, 0, sizeof e);
	e.kind = SR_LOG_META_CATEGORY;
	e.address = (uint64_t)(uintptr_t)cat;
	e.len[0] = put_string(buf + sizeof e, cat->name, SR_LOG_META_ENTRY_MAX - sizeof e);
	e.bytes = (uint32_t)(sizeof e + e.len[0]);
	return seal(buf, &e);
}
