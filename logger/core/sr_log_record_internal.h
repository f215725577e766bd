/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_record_internal.h: the log record, encoded and decoded in one place
 * (internal).
 *
 * A record is a header (sr_log_rec) followed by the codec's value and string
 * areas (sr_fmt_internal.h).  In a thread's own ring (producer
 * per_thread) the header is the shorter sr_log__thread_rec (sr_log_fast.h):
 * the ring's writer (sr_log_writer) gives the thread's name and id, and the
 * caller's errno follows the header only when the site's format has %m
 * (SR_REC_ERRNO); sr_log__record_read expands it to an sr_log_rec.  In ring
 * mode a record occupies
 * sr_ring_slots_for(size) consecutive slots from its first sequence and may
 * cross the physical end of the array; slots are at least 64 bytes, so the
 * header itself never does.  The caller encodes, the consumer and the crash
 * handler decode, the caller-side modes encode into a linear buffer with the
 * same code.
 */
#ifndef SR_LOG_RECORD_INTERNAL_H
#define SR_LOG_RECORD_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sr_log_category.h"
#include "sr_fmt_internal.h"
#include "sr_log_fast.h"
#include "sr_ring.h"

/* Record kinds (sr_log_rec.kind, low bits); SR_REC_TRUNCATED is a flag. */
enum {
	SR_REC_MESSAGE = 1,       /* a log call: header, value area, string area */
	SR_REC_FORMAT_ERROR = 2,  /* a call whose format was refused: header only */
	SR_REC_NOTICE = 3,        /* no message: makes the consumer end a batch (flush) */
	SR_REC_DUMP = 4,          /* a notice that also writes the backtrace (sr_log_dump_backtrace) */
	SR_REC_THREAD_NAME = 5,   /* thread rings: the writer's new name (16 bytes) follows */
	/* thread rings: a message whose category is its site's home one, with the shorter header */
	SR_REC_MESSAGE_HOME_CAT = 6,
	SR_REC_KIND_MASK = 0x3f,
	SR_REC_ERRNO = 0x40,      /* thread rings: the caller's errno (4 bytes) follows the header */
	SR_REC_TRUNCATED = 0x80   /* strings were cut to max_message_bytes */
};
_Static_assert(SR_REC_MESSAGE == SR_LOG__REC_MESSAGE, "the inline call's record kind");
_Static_assert(SR_REC_MESSAGE_HOME_CAT == SR_LOG__REC_MESSAGE_HOME_CAT, "the inline call's short record kind");
/* The inline call writes a shared ring's header as sr_log__shared_rec (sr_log_fast.h). */
#define SR_LOG__SAME_FIELD(f) \
	_Static_assert(offsetof(sr_log_rec, f) == offsetof(sr_log__shared_rec, f) && \
	    sizeof(((sr_log_rec *)0)->f) == sizeof(((sr_log__shared_rec *)0)->f), "inline header: " #f);

/* The header of every record.  56 bytes. */
typedef struct sr_log_rec {
	uint32_t size;            /* header + value area + string area */
	uint16_t value_bytes;
	uint8_t kind;
	uint8_t level;
	uint32_t tid;
	int32_t errno_value;      /* the caller's errno, for %m */
	int64_t ts_ns;            /* the clock's raw reading: ns since the epoch, or TSC ticks (tsc) */
	sr_site *site;
	sr_category *cat;
	char thread[16];          /* the caller's name, "" for none */
} sr_log_rec;
SR_LOG__SAME_FIELD(size)
SR_LOG__SAME_FIELD(value_bytes)
SR_LOG__SAME_FIELD(kind)
SR_LOG__SAME_FIELD(level)
SR_LOG__SAME_FIELD(tid)
SR_LOG__SAME_FIELD(errno_value)
SR_LOG__SAME_FIELD(ts_ns)
SR_LOG__SAME_FIELD(site)
SR_LOG__SAME_FIELD(cat)
SR_LOG__SAME_FIELD(thread)
_Static_assert(sizeof(sr_log_rec) == sizeof(sr_log__shared_rec), "inline header: size");
_Static_assert(sizeof(sr_log_rec) == 4 + 2 + 1 + 1 + 4 + 4 + 8 + 2 * sizeof(void *) + 16,
    "sr_log_rec has no padding: a read that sets every field leaves no byte unset");
#undef SR_LOG__SAME_FIELD

/* Whose records a thread's ring holds: the consumer's view (SR_REC_THREAD_NAME updates it). */
typedef struct sr_log_writer {
	uint32_t tid;
	char name[16];            /* "" for none */
} sr_log_writer;

/* The size of h's header in a thread's ring (errno only where the format has %m). */
static inline size_t
sr_log__thread_header_size(const sr_log_rec *h)
{
	bool with_errno = h->site != NULL && h->site->sig.uses_errno;
	return sizeof(sr_log__thread_rec) + (with_errno ? sizeof h->errno_value : 0);
}

/*
 * Writes h's header as a thread ring stores it at dst (sizeof sr_log_rec
 * bytes of room): the record's size is h->size less what the shorter header
 * saves.  Returns the header's size.
 */
static inline size_t
sr_log__thread_header_put(unsigned char *dst, const sr_log_rec *h)
{
	size_t hs = sr_log__thread_header_size(h);
	sr_log__thread_rec t;
	t.size = (uint32_t)(h->size - sizeof *h + hs);
	t.value_bytes = h->value_bytes;
	t.kind = (uint8_t)(h->kind | (hs > sizeof t ? SR_REC_ERRNO : 0));
	t.level = h->level;
	t.ts_ns = h->ts_ns;
	t.site = h->site;
	t.cat = h->cat;
	memcpy(dst, &t, sizeof t);
	if (hs > sizeof t)
		memcpy(dst + sizeof t, &h->errno_value, sizeof h->errno_value);
	return hs;
}

/* Writes a record (its header, then the arguments g gathered, if any) through w. */
static inline void
sr_log__record_encode(sr_ring_writer *w, const sr_log_rec *h, const sr_fmt_gather *g)
{
	sr_ring_writer_put(w, h, sizeof *h);
	if (g != NULL)
		sr_fmt_write(g, w);
}

/*
 * The size bytes of the record at sequence: in place, or (when they cross
 * the ring's physical end) copied into scratch.
 */
static inline const unsigned char *
sr_log__record_bytes(const sr_ring *ring, int64_t sequence, size_t size, unsigned char *scratch)
{
	sr_ring_reader r = sr_ring_stream_at(ring, sequence);
	const unsigned char *rec = sr_ring_reader_peek(&r, size);
	if (rec == NULL) {
		sr_ring_reader_get(&r, scratch, size);
		rec = scratch;
	}
	return rec;
}

/*
 * Reads the record that starts at sequence: its header into *h and, in
 * *rec, the whole record in place or (when it crosses the physical end)
 * copied into scratch (max_record bytes).  Returns the slots it occupies,
 * or 0 when the slot holds no record we wrote (a size out of range): the
 * caller then skips that one slot rather than read garbage.
 */
static inline int64_t
sr_log__record_decode(const sr_ring *ring, int64_t sequence, size_t max_record,
    unsigned char *scratch, sr_log_rec *h, const unsigned char **rec)
{
	memcpy(h, sr_ring_slot(ring, sequence), sizeof *h);
	size_t max = max_record > sizeof *h ? max_record : sizeof *h;
	if (h->size < sizeof *h || h->size > max)
		return 0;
	*rec = sr_log__record_bytes(ring, sequence, h->size, scratch);
	return sr_ring_slots_for(ring, h->size);
}

/* The same in a thread's ring (sr_log__thread_header_put's header). */
static inline void
sr_log__thread_record_encode(sr_ring_writer *w, const sr_log_rec *h, const sr_fmt_gather *g)
{
	unsigned char head[sizeof *h];
	sr_ring_writer_put(w, head, sr_log__thread_header_put(head, h));
	if (g != NULL)
		sr_fmt_write(g, w);
}

/* The timestamp of the record at sequence (writer: a thread ring's; any 8 bytes when none). */
static inline int64_t
sr_log__record_ts(const sr_ring *ring, int64_t sequence, const sr_log_writer *writer)
{
	int64_t ts;
	size_t at = writer != NULL ? offsetof(sr_log__thread_rec, ts_ns) : offsetof(sr_log_rec, ts_ns);
	memcpy(&ts, (const unsigned char *)sr_ring_slot(ring, sequence) + at, sizeof ts);
	return ts;
}

/*
 * Reads the record at sequence of a thread's ring (writer: its ring's) into
 * a full header *h and its body (the value and string areas), as
 * sr_log__record_read does, except that a record which left its category
 * out for its site's home one gets h->cat NULL and *home true: the caller
 * takes the category from the site (a live one, or a dead process's
 * catalogue).  Returns the slots it occupies, or 0 for a slot that holds
 * no record we wrote.
 */
static inline int64_t
sr_log__thread_record_read(const sr_ring *ring, int64_t sequence, size_t max_record,
    unsigned char *scratch, sr_log_writer *writer, sr_log_rec *h,
    const unsigned char **body, size_t *body_len, bool *home)
{
	/* A slot holds at least sizeof t bytes (a thread ring's are a cache line): cat is read, maybe unused. */
	sr_log__thread_rec t;
	memcpy(&t, sr_ring_slot(ring, sequence), sizeof t);
	*home = (t.kind & SR_REC_KIND_MASK) == SR_REC_MESSAGE_HOME_CAT;
	size_t base = *home ? SR_LOG__THREAD_HOME_HEADER : sizeof t;
	size_t hs = base + (t.kind & SR_REC_ERRNO ? sizeof h->errno_value : 0);
	size_t max = max_record > sizeof t ? max_record : sizeof t;
	if (t.size < hs || t.size > max)
		return 0;
	const unsigned char *rec = sr_log__record_bytes(ring, sequence, t.size, scratch);
	/* Every field is set below (the header has no padding): no memset, once a record. */
	h->size = (uint32_t)(t.size - hs + sizeof *h);
	h->value_bytes = t.value_bytes;
	/* A home-category message is a message whose category is the site's. */
	uint8_t kind = (uint8_t)(t.kind & ~SR_REC_ERRNO);
	h->kind = *home ? (uint8_t)((kind & ~SR_REC_KIND_MASK) | SR_REC_MESSAGE) : kind;
	h->level = t.level;
	h->ts_ns = t.ts_ns;
	h->site = t.site;
	h->cat = *home ? NULL : t.cat;
	h->errno_value = 0;
	if (t.kind & SR_REC_ERRNO)
		memcpy(&h->errno_value, rec + base, sizeof h->errno_value);
	*body = rec + hs;
	*body_len = t.size - hs;
	if ((h->kind & SR_REC_KIND_MASK) == SR_REC_THREAD_NAME && *body_len >= sizeof writer->name) {
		memcpy(writer->name, *body, sizeof writer->name);
		writer->name[sizeof writer->name - 1] = '\0';
	}
	h->tid = writer->tid;
	memcpy(h->thread, writer->name, sizeof h->thread);
	return sr_ring_slots_for(ring, t.size);
}

/*
 * Reads the record at sequence as sr_log__record_decode does, from a
 * shared ring (writer NULL) or a thread's (writer: its ring's), into a full
 * header *h and its body (the value and string areas).  A thread ring's
 * SR_REC_THREAD_NAME record renames the writer here; its kind tells the
 * caller there is nothing else to do.  Returns the slots it occupies, or 0
 * for a slot that holds no record we wrote.
 */
static inline int64_t
sr_log__record_read(const sr_ring *ring, int64_t sequence, size_t max_record,
    unsigned char *scratch, sr_log_writer *writer, sr_log_rec *h,
    const unsigned char **body, size_t *body_len)
{
	if (writer == NULL) {
		const unsigned char *rec;
		int64_t k = sr_log__record_decode(ring, sequence, max_record, scratch, h, &rec);
		if (k != 0) {
			*body = rec + sizeof *h;
			*body_len = h->size - sizeof *h;
		}
		return k;
	}
	bool home;
	int64_t k = sr_log__thread_record_read(ring, sequence, max_record, scratch, writer, h, body, body_len, &home);
	/*
	 * The site's home category, which the caller found equal to its own:
	 * set once before the site's copy decision, which the caller read
	 * (load-acquire) before it published this record (pairs with the
	 * frontend's compare-and-set in bind_home_category).
	 */
	if (k != 0 && home)
		h->cat = (sr_category *)sr_atomic_load_acquire_ptr(&h->site->home_cat);
	return k;
}

/* A record made by the logger itself: no message, only a kind (notices). */
static inline sr_log_rec
sr_log__record_notice(int kind)
{
	sr_log_rec h;
	memset(&h, 0, sizeof h);
	h.size = sizeof h;
	h.kind = (uint8_t)kind;
	return h;
}

#endif /* SR_LOG_RECORD_INTERNAL_H */
