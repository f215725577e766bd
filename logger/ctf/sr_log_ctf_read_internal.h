/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_ctf_read_internal.h: the binary trace read back, checked before it
 * is believed: its metadata text parsed into event classes, its packets
 * checked one by one and their events decoded into a record's body
 * (sr_log_ctf_read.c; internal).  Pure: no logger state, no file access;
 * the caller reads the files (logger/decode).
 */
#ifndef SR_LOG_CTF_READ_INTERNAL_H
#define SR_LOG_CTF_READ_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sr_error.h"
#include "sr_log_category.h"
#include "sr_log_ctf_format_internal.h"
#include "sr_log_site.h"

/* One event class of the metadata: what its URI says, rebuilt as the site and category its records had. */
typedef struct sr_ctf_read_class {
	uint32_t id;
	int kind;                     /* enum sr_ctf_kind */
	int level;                    /* enum sr_log_level */
	bool backtrace;               /* its lines carry the backtrace mark */
	char *category_name;          /* "" for the root */
	char *file, *function, *format;  /* NULL when the URI has none */
	char *fields_spec;            /* the URI's fields= (key-value fields), NULL when none */
	char *keys[SR_SITE_MAX_ARGS]; /* their keys, decoded: site.fields points at them */
	/* format, file, function, line and level; parsed (a message's payload follows its sig) */
	sr_site site;
	sr_category category;         /* only its name is set */
} sr_ctf_read_class;

/* The metadata as parsed so far (it grows while a live trace is followed). */
typedef struct sr_ctf_metadata {
	bool has_trace, has_env;      /* both are needed before a packet can be checked */
	uint8_t uuid[16];
	sr_ctf_read_class **classes;       /* sorted by id; each allocated alone, so a class never moves */
	size_t class_count, class_cap;
	size_t parsed;                /* bytes of the text parsed: whole top-level declarations */
	int parsed_line;              /* the line number at parsed (1 at the start) */
} sr_ctf_metadata;

/*
 * Parses the metadata text (text, len bytes: the whole file as it is now)
 * from where the last call stopped (m->parsed; zero m before the first).
 * whole: the text is complete, and a declaration it cuts short is an
 * error; otherwise parsing stops before it and the next call takes it up.
 * what names the file in messages.  SR_EFORMAT names the line, the offset
 * and what was expected; SR_ENOMEM.  After a whole parse, m has its trace
 * and env (checked) or the call failed.
 */
int sr_ctf__metadata_parse(sr_ctf_metadata *m, const char *text, size_t len, bool whole, const char *what,
    sr_error *err);
/* The class of id, or NULL. */
sr_ctf_read_class *sr_ctf__metadata_class(const sr_ctf_metadata *m, uint32_t id);
void sr_ctf__metadata_free(sr_ctf_metadata *m);

/* Where a stream file's reading stands: the packets it checked. */
typedef struct sr_ctf_stream_state {
	bool started;                 /* a packet was read: the next two fields hold */
	uint64_t next_seq;            /* the packet_seq_num the next packet must have */
	uint64_t instance;            /* the stream_instance_id of every packet */
} sr_ctf_stream_state;

/* A packet checked: its head, and its bytes (the head included). */
typedef struct sr_ctf_packet {
	sr_ctf_packet_head head;
	const unsigned char *bytes;
	size_t size;                  /* content_size / 8 */
	uint64_t offset;              /* in its file */
} sr_ctf_packet;

/*
 * The size of the packet at bytes (avail bytes left in the file), as its
 * head says, without checking it; 0 when the head is not whole yet or its
 * size is not one a check would accept (then sr_ctf__packet_read says why).
 */
size_t sr_ctf__packet_size_hint(const unsigned char *bytes, size_t avail);

/*
 * Checks the packet at bytes (avail bytes left in the file, which is at
 * offset in it): magic, uuid, stream_id, sizes, its sequence number and
 * stream against *state, its time range.  *cut (may be NULL) is set when
 * the packet runs past avail: then SR_EFORMAT (naming what is missing) if
 * cut is NULL, else SR_OK with nothing read, for a follower to wait.  On
 * success *p is the packet and *state moves past it.
 */
int sr_ctf__packet_read(const sr_ctf_metadata *m, const unsigned char *bytes, size_t avail, uint64_t offset,
    const char *what, sr_ctf_stream_state *state, sr_ctf_packet *p, bool *cut, sr_error *err);

/* An event decoded: its class, time and, for a message, the record's body rebuilt. */
typedef struct sr_ctf_event {
	sr_ctf_read_class *cls;            /* the metadata's (a record points at its site and category) */
	int64_t ts_ns;                /* ns since the epoch */
	int32_t errno_value;          /* for %m */
	const unsigned char *body;    /* message: the value area then the string area, as a record holds them */
	size_t body_len;
	const char *text;             /* text: the line's text (NUL-terminated in the packet) */
	size_t text_len;
} sr_ctf_event;

/*
 * Decodes the event at *at (an offset in the packet, from
 * sizeof(sr_ctf_packet_head) until p->size) and moves *at past it.  A
 * message's body is rebuilt into body_buf (at least p->size bytes): the
 * trace's strings with a NUL each, but a NULL string (length
 * SR_FMT_NULL_STRING, an empty string in the trace) has no bytes in a
 * record.  SR_EFORMAT names the file, the offset and what was expected.
 */
int sr_ctf__event_read(const sr_ctf_metadata *m, const sr_ctf_packet *p, size_t *at, const char *what,
    unsigned char *body_buf, sr_ctf_event *ev, sr_error *err);

#endif /* SR_LOG_CTF_READ_INTERNAL_H */
