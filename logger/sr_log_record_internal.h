/*
 * sr_log_record_internal.h: the log record, encoded and decoded in one place
 * (internal).
 *
 * A record is a header (sr_log_rec) followed by the codec's value and string
 * areas (sr_log_codec_internal.h).  In ring mode it occupies
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
#include "sr_log_codec_internal.h"
#include "sr_ring.h"

/* Record kinds (sr_log_rec.kind, low bits); SR_REC_TRUNCATED is a flag. */
enum {
	SR_REC_MESSAGE = 1,       /* a log call: header, value area, string area */
	SR_REC_FORMAT_ERROR = 2,  /* a call whose format was refused: header only */
	SR_REC_NOTICE = 3,        /* no message: makes the consumer end a batch (flush) */
	SR_REC_DUMP = 4,          /* a notice that also writes the backtrace (sr_log_dump_backtrace) */
	SR_REC_KIND_MASK = 0x7f,
	SR_REC_TRUNCATED = 0x80   /* strings were cut to max_message_bytes */
};

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

/* Writes a record (its header, then the arguments g gathered, if any) through w. */
static inline void
sr_log__record_encode(sr_ring_writer *w, const sr_log_rec *h, const sr_fmt_gather *g)
{
	sr_ring_writer_put(w, h, sizeof *h);
	if (g != NULL)
		sr_fmt_write(g, w);
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
	sr_ring_reader r = sr_ring_stream_at(ring, sequence);
	*rec = sr_ring_reader_peek(&r, h->size);
	if (*rec == NULL) {
		sr_ring_reader_get(&r, scratch, h->size);
		*rec = scratch;
	}
	return sr_ring_slots_for(ring, h->size);
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
