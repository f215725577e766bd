/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_ring_meta_read.c: a dead process's meta file, checked before it
 * is believed: the header (magic, version, size, checksum), then each
 * entry (its size, kind, string lengths and checksum).  The entries become
 * two tables sorted by address, which recovery looks records' sites and
 * categories up in; an address found in neither is reported by recovery,
 * never guessed.  The last entry may be torn (the death cut its write):
 * that is counted, not an error.
 */
#include "sr_log_ring_dir_internal.h"
#include "sr_log_clock_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define BAD(what_expected, offset, ...) \
	sr_error_set(err, SR_EFORMAT, "meta file \"%s\" at offset %" PRId64 ": " what_expected, what, \
	    (int64_t)(offset), __VA_ARGS__)

static int
by_site_address(const void *a, const void *b)
{
	uint64_t x = ((const sr_log_meta_site *)a)->address, y = ((const sr_log_meta_site *)b)->address;
	return x < y ? -1 : x > y;
}

static int
by_category_address(const void *a, const void *b)
{
	uint64_t x = ((const sr_log_meta_category *)a)->address, y = ((const sr_log_meta_category *)b)->address;
	return x < y ? -1 : x > y;
}

/* Copies len bytes of s into the text at *at, NUL-terminated; returns the copy. */
static const char *
keep(char *text, size_t *at, const unsigned char *s, uint32_t len)
{
	char *dst = text + *at;
	memcpy(dst, s, len);
	dst[len] = '\0';
	*at += (size_t)len + 1;
	return dst;
}

int
sr_log__ring_meta_parse(const unsigned char *bytes, size_t n, const char *what, sr_log_meta_view *v,
    sr_error *err)
{
	memset(v, 0, sizeof *v);
	sr_log_ring_meta_head h;
	if (n < SR_LOG_RING_DIR_PAGE)
		return BAD("%zu bytes, shorter than a meta file's header page (%d bytes)", 0, n, SR_LOG_RING_DIR_PAGE);
	memcpy(&h, bytes, sizeof h);
	if (memcmp(h.magic, SR_LOG_RING_META_MAGIC, sizeof h.magic) != 0)
		return BAD("not a seqring meta file (magic \"%.8s\" expected)", 0, SR_LOG_RING_META_MAGIC);
	if (h.version != SR_LOG_RING_DIR_VERSION)
		return BAD("version %" PRIu32 ", expected %u", offsetof(sr_log_ring_meta_head, version), h.version,
		    SR_LOG_RING_DIR_VERSION);
	if (h.head_bytes != sizeof h)
		return BAD("header of %" PRIu32 " bytes, expected %zu", offsetof(sr_log_ring_meta_head, head_bytes),
		    h.head_bytes, sizeof h);
	uint64_t sum = sr_log__fnv1a64(&h, offsetof(sr_log_ring_meta_head, checksum));
	if (sum != h.checksum)
		return BAD("header checksum %#" PRIx64 ", expected %#" PRIx64 " (a corrupt header)",
		    offsetof(sr_log_ring_meta_head, checksum), h.checksum, sum);
	if (h.path_len > SR_LOG_RING_META_PATH)
		return BAD("a sink path of %" PRIu32 " bytes, at most %d expected",
		    offsetof(sr_log_ring_meta_head, path_len), h.path_len, SR_LOG_RING_META_PATH);
	v->pid = h.pid;
	v->instance = h.instance;
	v->opened_ns = h.opened_ns;
	v->clock = h.clock;
	memcpy(v->path, h.path, h.path_len);
	v->path[h.path_len] = '\0';
	for (int f = 0; f < 5; f++)
		v->clock_seg[f] = sr_atomic_load_relaxed_i64(&h.clock_seg[f]);
	v->in_flight = sr_atomic_load_relaxed_i64(&h.in_flight) != 0;
	v->flight_dev = sr_atomic_load_relaxed_i64(&h.flight_dev);
	v->flight_ino = sr_atomic_load_relaxed_i64(&h.flight_ino);
	v->flight_from = sr_atomic_load_relaxed_i64(&h.flight_from);
	v->flight_to = sr_atomic_load_relaxed_i64(&h.flight_to);

	/* Two passes: count and check, then copy. */
	size_t sites = 0, cats = 0, text = 0, at = SR_LOG_RING_DIR_PAGE, end = n;
	while (at < n) {
		sr_log_meta_entry e;
		if (n - at < sizeof e) {
			end = at;  /* the last write, cut */
			break;
		}
		memcpy(&e, bytes + at, sizeof e);
		size_t strings = (size_t)e.len[0] + e.len[1] + e.len[2];
		bool shaped = e.bytes >= sizeof e && e.bytes <= SR_LOG_META_ENTRY_MAX &&
		    e.len[0] <= SR_LOG_META_ENTRY_MAX && e.len[1] <= SR_LOG_META_ENTRY_MAX &&
		    e.len[2] <= SR_LOG_META_ENTRY_MAX && sizeof e + strings == e.bytes &&
		    (e.kind == SR_LOG_META_SITE || e.kind == SR_LOG_META_CATEGORY);
		if (!shaped || e.bytes > n - at || sr_log__meta_entry_checksum(bytes + at, e.bytes) != e.checksum) {
			/* Only the last write can be cut: anything longer than one entry is damage. */
			if (n - at <= SR_LOG_META_ENTRY_MAX) {
				end = at;
				break;
			}
			return BAD("an entry of kind %" PRIu32 " and %" PRIu32 " bytes that does not check (its size, "
			    "kind, string lengths or checksum), with %zu bytes after it: expected a site or a "
			    "category entry", at, e.kind, e.bytes, n - at);
		}
		if (e.kind == SR_LOG_META_SITE)
			sites++;
		else
			cats++;
		text += strings + 3;
		at += e.bytes;
	}
	v->torn = n - end;
	v->sites = calloc(sites + 1, sizeof *v->sites);
	v->categories = calloc(cats + 1, sizeof *v->categories);
	v->text = malloc(text + 1);
	if (v->sites == NULL || v->categories == NULL || v->text == NULL) {
		sr_log__meta_view_free(v);
		return sr_error_set(err, SR_ENOMEM, "cannot allocate the tables of meta file \"%s\"", what);
	}
	size_t t = 0;
	for (at = SR_LOG_RING_DIR_PAGE; at < end;) {
		sr_log_meta_entry e;
		memcpy(&e, bytes + at, sizeof e);
		const unsigned char *s = bytes + at + sizeof e;
		if (e.kind == SR_LOG_META_SITE) {
			sr_log_meta_site *m = &v->sites[v->site_count++];
			m->address = e.address;
			m->home_cat = e.home_cat;
			m->line = e.line;
			m->level = e.level;
			m->format = keep(v->text, &t, s, e.len[0]);
			m->file = keep(v->text, &t, s + e.len[0], e.len[1]);
			m->function = keep(v->text, &t, s + e.len[0] + e.len[1], e.len[2]);
		} else {
			sr_log_meta_category *m = &v->categories[v->category_count++];
			m->address = e.address;
			m->name = keep(v->text, &t, s, e.len[0]);
		}
		at += e.bytes;
	}
	qsort(v->sites, v->site_count, sizeof *v->sites, by_site_address);
	/*
	 * A site written twice (first by a call through sr_log_emit, without
	 * its home category, then by the macros' first call, with it) keeps
	 * the home category in every copy, whichever the search finds.
	 */
	for (size_t i = 1; i < v->site_count; i++) {
		if (v->sites[i].address != v->sites[i - 1].address)
			continue;
		if (v->sites[i].home_cat == 0)
			v->sites[i].home_cat = v->sites[i - 1].home_cat;
	}
	for (size_t i = v->site_count; i-- > 1;) {
		if (v->sites[i].address == v->sites[i - 1].address && v->sites[i - 1].home_cat == 0)
			v->sites[i - 1].home_cat = v->sites[i].home_cat;
	}
	qsort(v->categories, v->category_count, sizeof *v->categories, by_category_address);
	return SR_OK;
}

void
sr_log__meta_view_free(sr_log_meta_view *v)
{
	free(v->sites);
	free(v->categories);
	free(v->text);
	memset(v, 0, sizeof *v);
}

const sr_log_meta_site *
sr_log__meta_find_site(const sr_log_meta_view *v, uint64_t address)
{
	sr_log_meta_site key = { .address = address };
	/* A site written twice (two first calls raced) has the same fields: either is right. */
	return bsearch(&key, v->sites, v->site_count, sizeof key, by_site_address);
}

const sr_log_meta_category *
sr_log__meta_find_category(const sr_log_meta_view *v, uint64_t address)
{
	sr_log_meta_category key = { .address = address };
	return bsearch(&key, v->categories, v->category_count, sizeof key, by_category_address);
}

/*
 * Whether the calibration maps raw without leaving int64_t on the way:
 * the dead process's values (and a record's raw time) are not trusted.
 * Counts of ticks below 2^61 in magnitude, the base time below 2^62 (the
 * year 2116) and each product below 2^60 ns (36 years): every difference,
 * product and sum of the mapping stays inside int64_t.
 */
static bool
maps_in_range(const int64_t seg[5], int64_t raw)
{
	const int64_t ticks = INT64_C(1) << 61, ns = INT64_C(1) << 62;
	const double product = 0x1p60;
	if (seg[0] <= -ticks || seg[0] >= ticks || seg[2] <= -ticks || seg[2] >= ticks || raw <= -ticks ||
	    raw >= ticks || seg[1] <= -ns || seg[1] >= ns)
		return false;
	double slewed, rate;
	memcpy(&slewed, &seg[3], sizeof slewed);
	memcpy(&rate, &seg[4], sizeof rate);
	/* NaN fails every comparison; an infinity the bounds. */
	double span = (double)(seg[2] - seg[0]) * slewed;
	double before = (double)(raw - seg[0]) * slewed;
	double after = (double)(raw - seg[2]) * rate;
	return slewed > -product && slewed < product && rate > -product && rate < product && span > -product &&
	    span < product && before > -product && before < product && after > -product && after < product;
}

int64_t
sr_log__meta_to_ns(const sr_log_meta_view *v, int64_t raw)
{
	if (v->clock != SR_LOG_CLOCK_TSC)
		return raw;
	/* A time the calibration cannot map (a corrupt record or calibration): the logger's opening. */
	if (!maps_in_range(v->clock_seg, raw))
		return v->opened_ns;
	return sr_log__clock_map_segment(v->clock_seg, raw);
}
