/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_ctf_format_internal.h: the binary trace's layout, shared by its
 * writer (the ctf: sink) and its reader (seqring-decode): the packet's
 * header and context, the event's header, the event classes' kinds and the
 * payload of a message event (internal).  docs/trace.md is the same layout
 * in prose; a change here is a change of trace_format_version.
 */
#ifndef SR_LOG_CTF_FORMAT_INTERNAL_H
#define SR_LOG_CTF_FORMAT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sr_fmt_spec_internal.h"
#include "sr_log_site.h"

/* The metadata's first line, as CTF 1.8 asks of plain-text metadata. */
#define SR_CTF_METADATA_SIGNATURE "/* CTF 1.8 */"
/* env.trace_format and env.trace_format_version: what a reader checks before it believes the rest. */
#define SR_CTF_TRACE_FORMAT "seqring-ctf"
#define SR_CTF_TRACE_FORMAT_VERSION 1
#define SR_CTF_MAGIC 0xC1FC1FC1u
#define SR_CTF_METADATA_NAME "metadata"
/* The live writer's lock (a dot file: readers skip it). */
#define SR_CTF_LOCK_NAME ".lock"
/* Stream files: "stream-TID" plus the origin's suffix. */
#define SR_CTF_STREAM_PREFIX "stream-"

/* Where a stream's events come from (its file name's suffix). */
enum sr_ctf_origin {
	SR_CTF_ORIGIN_CONSUMER = 0,   /* "": the consumer, in each thread's ring order */
	SR_CTF_ORIGIN_DIRECT = 1,     /* "-direct": the thread wrote them itself */
	SR_CTF_ORIGIN_BACKTRACE = 2,  /* "-backtrace": kept by the backtrace buffer, written later */
	SR_CTF_ORIGIN_COUNT = 3
};

static inline const char *
sr_ctf__origin_suffix(int origin)
{
	return origin == SR_CTF_ORIGIN_DIRECT ? "-direct" : origin == SR_CTF_ORIGIN_BACKTRACE ? "-backtrace" : "";
}

/* The packet's header and context, 100 bytes, little-endian, no padding (docs/trace.md). */
typedef struct __attribute__((packed)) sr_ctf_packet_head {
	uint32_t magic;               /* SR_CTF_MAGIC */
	uint8_t uuid[16];             /* the trace's */
	uint32_t stream_id;           /* 0 */
	uint64_t stream_instance_id;  /* the stream's number, in order of creation */
	uint64_t timestamp_begin;     /* the first event's time (ns since the epoch) */
	uint64_t timestamp_end;       /* the last event's */
	uint64_t content_size;        /* the packet's size in bits, this head included */
	uint64_t packet_size;         /* the same: no padding */
	uint64_t packet_seq_num;      /* 0, 1, ... per stream */
	uint64_t events_discarded;    /* per stream, cumulative */
	uint32_t tid;
	char thread_name[16];         /* NUL-padded */
} sr_ctf_packet_head;
_Static_assert(sizeof(sr_ctf_packet_head) == 100, "the packet's head as docs/trace.md lays it out");

/* The event's header, 12 bytes. */
typedef struct __attribute__((packed)) sr_ctf_event_head {
	uint32_t id;                  /* the event class */
	uint64_t timestamp;           /* ns since the epoch */
} sr_ctf_event_head;
_Static_assert(sizeof(sr_ctf_event_head) == 12, "the event's header as docs/trace.md lays it out");

/* An event class's kind: the word after "seqring:" in its model.emf.uri. */
enum sr_ctf_kind {
	SR_CTF_KIND_MESSAGE = 0,      /* a log call: [errno] value fields, then strings */
	SR_CTF_KIND_FORMAT_ERROR = 1, /* a call whose format was refused: no fields */
	SR_CTF_KIND_TEXT = 2          /* the logger's own line: string message */
};

static inline const char *
sr_ctf__kind_name(int kind)
{
	return kind == SR_CTF_KIND_FORMAT_ERROR ? "format_error" : kind == SR_CTF_KIND_TEXT ? "text" : "message";
}

/* The event class's loglevel for a seqring level (CTF's syslog-like scale; docs/trace.md). */
static inline int
sr_ctf__loglevel(int level)
{
	static const int by_level[] = { 14, 13, 6, 4, 3, 2 };  /* trace debug info warn error fatal */
	return level >= 0 && level < (int)(sizeof by_level / sizeof by_level[0]) ? by_level[level] : 6;
}

/* A byte a URI value keeps as it is; every other is written %XX. */
static inline bool
sr_ctf__uri_keeps(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
	    c == '_' || c == '~' || c == '/' || c == ':';
}


#endif /* SR_LOG_CTF_FORMAT_INTERNAL_H */
