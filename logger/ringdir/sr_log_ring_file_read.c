/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_ring_file_read.c: a ring file a dead process left, checked field
 * by field in memory before anything in it is believed.  The file may be
 * truncated, foreign, of another version or corrupt: each is an error
 * naming the file, the offset and what was expected, never a read outside
 * the bytes.
 */
#include "sr_log_ring_dir_internal.h"
#include "sr_ring_internal.h"

#include <inttypes.h>
#include <string.h>

#define BAD(what_expected, offset, ...) \
	sr_error_set(err, SR_EFORMAT, "ring file \"%s\" at offset %" PRId64 ": " what_expected, what, \
	    (int64_t)(offset), __VA_ARGS__)

/* Whether [off, off + len) lies inside n bytes and off is aligned to align. */
static bool
inside(int64_t off, int64_t len, size_t n, int64_t align)
{
	return off > 0 && len >= 0 && off % align == 0 && (uint64_t)off <= n && (uint64_t)len <= n - (uint64_t)off;
}

static int64_t
load_i64(const unsigned char *p)
{
	int64_t v;
	memcpy(&v, p, sizeof v);
	return v;
}

int
sr_log__ring_file_parse(const unsigned char *bytes, size_t n, const char *what, sr_log_ring_view *v,
    sr_error *err)
{
	memset(v, 0, sizeof *v);
	sr_log_ring_file_head h;
	if (n < sizeof h)
		return BAD("%zu bytes, shorter than a ring file's header (%zu bytes)", 0, n, sizeof h);
	memcpy(&h, bytes, sizeof h);
	if (memcmp(h.magic, SR_LOG_RING_FILE_MAGIC, sizeof h.magic) != 0)
		return BAD("not a seqring ring file (magic \"%.8s\" expected)", 0, SR_LOG_RING_FILE_MAGIC);
	if (h.version != SR_LOG_RING_DIR_VERSION)
		return BAD("version %" PRIu32 ", expected %u", offsetof(sr_log_ring_file_head, version), h.version,
		    SR_LOG_RING_DIR_VERSION);
	if (h.head_bytes != sizeof h)
		return BAD("header of %" PRIu32 " bytes, expected %zu", offsetof(sr_log_ring_file_head, head_bytes),
		    h.head_bytes, sizeof h);
	uint64_t sum = sr_log__ring_file_head_checksum(&h);
	if (sum != h.checksum)
		return BAD("header checksum %#" PRIx64 ", expected %#" PRIx64 " (a corrupt header)",
		    offsetof(sr_log_ring_file_head, checksum), h.checksum, sum);
	if (h.kind != SR_LOG_RING_FILE_THREAD && h.kind != SR_LOG_RING_FILE_SHARED)
		return BAD("ring kind %" PRIu32 ", expected 1 (a thread's) or 2 (shared)",
		    offsetof(sr_log_ring_file_head, kind), h.kind);
	sr_error geometry;
	if (sr_ring__check_geometry(h.slot_count, h.slot_size, &geometry) != SR_OK)
		return BAD("%s", offsetof(sr_log_ring_file_head, slot_count), geometry.message);
	if (h.kind == SR_LOG_RING_FILE_THREAD ? h.slot_size != SR_LOG__THREAD_SLOT : h.slot_size < sizeof(sr_log_rec))
		return BAD("slots of %" PRIu32 " bytes, expected %s %d", offsetof(sr_log_ring_file_head, slot_size),
		    h.slot_size, h.kind == SR_LOG_RING_FILE_THREAD ? "a thread ring's" : "at least",
		    h.kind == SR_LOG_RING_FILE_THREAD ? SR_LOG__THREAD_SLOT : (int)sizeof(sr_log_rec));
	if (h.sequencer_bytes != sizeof(sr_sequencer))
		return BAD("a sequencer of %" PRIu32 " bytes, expected %zu (another build)",
		    offsetof(sr_log_ring_file_head, sequencer_bytes), h.sequencer_bytes, sizeof(sr_sequencer));
	if (h.file_bytes < 0 || (uint64_t)h.file_bytes != n)
		return BAD("%zu bytes, but its header says %" PRId64 " (a truncated file)",
		    offsetof(sr_log_ring_file_head, file_bytes), n, h.file_bytes);
	int64_t flags = h.slot_count * (int64_t)sizeof(int64_t);
	int64_t slots = h.slot_count * (int64_t)h.slot_size;
	if (!inside(h.sequencer_offset, (int64_t)sizeof(sr_sequencer), n, SR_CACHELINE) ||
	    !inside(h.written_offset, (int64_t)sizeof(sr_sequence), n, SR_CACHELINE) ||
	    !inside(h.pending_offset, (int64_t)sizeof(sr_sequence), n, SR_CACHELINE) ||
	    !inside(h.skipped_offset, flags, n, 8) || !inside(h.slots_offset, slots, n, SR_CACHELINE) ||
	    (h.kind == SR_LOG_RING_FILE_SHARED) != (h.available_offset != 0) ||
	    (h.available_offset != 0 && !inside(h.available_offset, flags, n, 8)))
		return BAD("a part outside the file or misaligned (sequencer %" PRId64 ", slots %" PRId64
		    ", flags %" PRId64 ", in %zu bytes)", offsetof(sr_log_ring_file_head, sequencer_offset),
		    h.sequencer_offset, h.slots_offset, h.available_offset, n);

	v->kind = (int)h.kind;
	v->pid = h.pid;
	v->instance = h.instance;
	v->tid = h.tid;
	memcpy(v->name, h.name, sizeof v->name);
	v->name[sizeof v->name - 1] = '\0';
	sr_ring__init_view(&v->ring, (unsigned char *)bytes + h.slots_offset, h.slot_count, h.slot_size);
	const unsigned char *seq = bytes + h.sequencer_offset;
	v->cursor = load_i64(seq + offsetof(sr_sequencer, cursor) + offsetof(sr_sequence, value));
	v->written = load_i64(bytes + h.written_offset + offsetof(sr_sequence, value));
	v->pending = load_i64(bytes + h.pending_offset + offsetof(sr_sequence, value));
	v->skipped = (const int64_t *)(const void *)(bytes + h.skipped_offset);
	if (h.available_offset != 0)
		v->available = (const int64_t *)(const void *)(bytes + h.available_offset);
	if (v->cursor < SR_SEQUENCE_INITIAL || v->written < SR_SEQUENCE_INITIAL || v->written > v->cursor ||
	    v->pending < SR_SEQUENCE_INITIAL || v->pending > v->cursor)
		return BAD("sequences out of order: written %" PRId64 ", pending %" PRId64 ", cursor %" PRId64,
		    h.written_offset, v->written, v->pending, v->cursor);
	/* No ring gets there (2^62 records); a reader may then add a ring's length to any sequence. */
	if (v->cursor > SR_LOG_RING_MAX_SEQUENCE)
		return BAD("a cursor of %" PRId64 ", expected at most 2^62", h.sequencer_offset, v->cursor);
	if (v->available == NULL) {
		/* A claim is a ring's length at most: more is damage, counted as that length. */
		int64_t next = load_i64(seq + offsetof(sr_sequencer, single.next_value));
		if (next > v->cursor)
			v->claimed_unpublished = next > v->cursor + h.slot_count ? h.slot_count : next - v->cursor;
	}
	return SR_OK;
}

bool
sr_log__ring_view_published(const sr_log_ring_view *v, int64_t s)
{
	if (v->available == NULL)
		return s <= v->cursor;
	int64_t flag;
	memcpy(&flag, &v->available[s & v->ring.mask], sizeof flag);
	return flag == s;
}
