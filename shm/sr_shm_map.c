/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_shm_map.c: a shared ring's mapping made, checked, opened and closed:
 * the header written by the creator and every field of it checked at open.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sr_ring_internal.h"
#include "sr_sequencer_internal.h"
#include "sr_shm_layout_internal.h"
#include "sr_shm_ring.h"
#include "sr_time.h"

#define MIN_BOUND_NS INT64_C(1000000)
#define MAX_BOUND_NS (INT64_C(60) * 1000000000)
/* How long an open waits for a creator to finish its header. */
#define CREATION_WAIT_NS INT64_C(1000000000)

void
sr_shm_ring_config_default(sr_shm_ring_config *c, int64_t slot_count, size_t slot_size,
    enum sr_producer_mode mode)
{
	memset(c, 0, sizeof *c);
	c->slot_count = slot_count;
	c->slot_size = slot_size;
	c->mode = mode;
	sr_wait_config_default(&c->wait, SR_WAIT_BLOCK);
	c->synchronize_enqueue_when_full = true;
	c->max_producers = 16;
	c->max_consumers = 16;
	c->liveness_bound_ns = INT64_C(1000000000);
	c->permissions = 0600;
}

void
sr_shm_ring_options_default(sr_shm_ring_options *o)
{
	memset(o, 0, sizeof *o);
	o->reaper_thread = true;
}

/* FNV-1a 64 of the identity fields, bytes 8 to 127 of the header. */
static uint64_t
identity_checksum(const sr_shm__header *h)
{
	const unsigned char *p = (const unsigned char *)h;
	uint64_t x = UINT64_C(0xcbf29ce484222325);
	for (size_t i = 8; i < offsetof(sr_shm__header, identity_checksum); i++)
		x = (x ^ p[i]) * UINT64_C(0x100000001b3);
	return x;
}

static uint64_t
align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

void
sr_shm__layout(int64_t slot_count, size_t slot_size, int mode, int32_t max_producers,
    int32_t max_consumers, sr_shm__offsets *o)
{
	uint64_t flags = (uint64_t)slot_count * sizeof(int64_t);
	o->sequencer = SR_SHM__HEADER_BYTES;
	uint64_t at = align_up(o->sequencer + sizeof(sr_sequencer), SR_CACHELINE);
	o->available = mode == SR_PRODUCER_MULTI ? at : 0;
	if (mode == SR_PRODUCER_MULTI)
		at = align_up(at + flags, SR_CACHELINE);
	o->skipped = at;
	at = align_up(at + flags, sizeof(sr_shm__producer_entry));
	o->producers = at;
	at = align_up(at + (uint64_t)max_producers * sizeof(sr_shm__producer_entry),
	    sizeof(sr_shm__consumer_entry));
	o->consumers = at;
	at = align_up(at + (uint64_t)max_consumers * sizeof(sr_shm__consumer_entry), 4096);
	o->slots = at;
	o->total = align_up(at + (uint64_t)slot_count * slot_size, 4096);
}

/* "/NAME" is POSIX shared memory; a name with a slash elsewhere is a file. */
static int
parse_name(const char *name, bool *is_file, sr_error *err)
{
	if (name == NULL)
		return sr_error_set(err, SR_EINVAL, "shared ring name is NULL");
	size_t len = strlen(name);
	if (len == 0 || len >= PATH_MAX)
		return sr_error_set(err, SR_EINVAL,
		    "shared ring name of %zu bytes: expected 1 to %d", len, PATH_MAX - 1);
	const char *slash = strchr(name, '/');
	if (slash == NULL)
		return sr_error_set(err, SR_EINVAL,
		    "shared ring name \"%s\" has no slash: expected \"/NAME\" for POSIX shared memory "
		    "or a file path such as \"./%s\"", name, name);
	if (name[0] == '/' && strchr(name + 1, '/') == NULL) {
		if (len == 1 || len > NAME_MAX)
			return sr_error_set(err, SR_EINVAL,
			    "shared memory name \"%s\": expected \"/NAME\" with 1 to %d characters",
			    name, NAME_MAX - 1);
		*is_file = false;
	} else {
		*is_file = true;
	}
	return SR_OK;
}

int
sr_shm__open_name(const char *name, bool is_file, int flags, mode_t mode)
{
	return is_file ? open(name, flags | O_CLOEXEC, mode) : shm_open(name, flags, mode);
}

static int
check_config(const sr_shm_ring_config *c, sr_error *err)
{
	if (c == NULL)
		return sr_error_set(err, SR_EINVAL, "shared ring config is NULL");
	int rc = sr_ring__check_geometry(c->slot_count, c->slot_size, err);
	if (rc != SR_OK)
		return rc;
	sr_sequencer_config sc;
	sr_sequencer_config_default(&sc, c->slot_count, c->mode);
	sc.wait = c->wait;
	rc = sr_sequencer__config_check(&sc, err);
	if (rc != SR_OK)
		return rc;
	if (c->max_producers < 1 || c->max_producers > SR_SHM_MAX_PARTICIPANTS)
		return sr_error_set(err, SR_EINVAL, "max_producers %" PRId32 " is out of range: expected 1 to %d",
		    c->max_producers, SR_SHM_MAX_PARTICIPANTS);
	if (c->max_consumers < 1 || c->max_consumers > SR_SHM_MAX_PARTICIPANTS)
		return sr_error_set(err, SR_EINVAL, "max_consumers %" PRId32 " is out of range: expected 1 to %d",
		    c->max_consumers, SR_SHM_MAX_PARTICIPANTS);
	if (c->liveness_bound_ns < MIN_BOUND_NS || c->liveness_bound_ns > MAX_BOUND_NS)
		return sr_error_set(err, SR_EINVAL,
		    "liveness_bound_ns %" PRId64 " is out of range: expected 1 ms to 60 s (%" PRId64 " to %" PRId64 ")",
		    c->liveness_bound_ns, MIN_BOUND_NS, MAX_BOUND_NS);
	if ((c->permissions & ~(mode_t)0777) != 0)
		return sr_error_set(err, SR_EINVAL, "permissions %o: expected bits of 0777 only",
		    (unsigned)c->permissions);
	return SR_OK;
}

static sr_shm_ring *
handle_new(const char *name, bool is_file, const sr_shm_ring_options *options, sr_error *err)
{
	sr_shm_ring *r = calloc(1, sizeof *r);
	if (r == NULL) {
		sr_error_set(err, SR_ENOMEM, "cannot allocate a shared ring handle");
		return NULL;
	}
	snprintf(r->name, sizeof r->name, "%s", name);
	r->is_file = is_file;
	r->fd = -1;
	if (options != NULL)
		r->options = *options;
	else
		sr_shm_ring_options_default(&r->options);
	pthread_mutex_init(&r->joined_lock, NULL);
	return r;
}

static void
handle_free(sr_shm_ring *r)
{
	if (r->base != NULL)
		munmap(r->base, r->bytes);
	if (r->fd >= 0)
		close(r->fd);
	pthread_mutex_destroy(&r->joined_lock);
	free(r);
}

/* Points the handle at the regions of its mapping. */
static void
handle_attach(sr_shm_ring *r)
{
	sr_shm__header *h = (sr_shm__header *)r->base;
	r->header = h;
	r->sequencer = (sr_sequencer *)(r->base + h->sequencer_offset);
	r->producers = (sr_shm__producer_entry *)(r->base + h->producers_offset);
	r->consumers = (sr_shm__consumer_entry *)(r->base + h->consumers_offset);
	sr_ring__init_view(&r->ring, r->base + h->slots_offset, h->slot_count, (size_t)h->slot_size);
}

static sr_shm_ring *
fail(sr_shm_ring *r, bool unlink_it)
{
	if (unlink_it) {
		if (r->is_file)
			unlink(r->name);
		else
			shm_unlink(r->name);
	}
	handle_free(r);
	return NULL;
}

sr_shm_ring *
sr_shm_ring_create(const char *name, const sr_shm_ring_config *c, const sr_shm_ring_options *options,
    sr_error *err)
{
	bool is_file;
	if (parse_name(name, &is_file, err) != SR_OK || check_config(c, err) != SR_OK)
		return NULL;
	sr_shm__offsets o;
	sr_shm__layout(c->slot_count, c->slot_size, c->mode, c->max_producers, c->max_consumers, &o);
	if (o.total > (uint64_t)SIZE_MAX / 2 || o.total > (uint64_t)INT64_MAX) {
		sr_error_set(err, SR_EINVAL, "shared ring \"%s\" would need %" PRIu64 " bytes: too large",
		    name, o.total);
		return NULL;
	}
	sr_shm_ring *r = handle_new(name, is_file, options, err);
	if (r == NULL)
		return NULL;
	r->fd = sr_shm__open_name(name, is_file, O_RDWR | O_CREAT | O_EXCL, c->permissions);
	if (r->fd < 0) {
		sr_error_set(err, SR_ESYS, "cannot create shared ring \"%s\": %s", name, strerror(errno));
		return fail(r, false);
	}
	/*
	 * A new file is zero: the skip marks and every counter start there.
	 * Its blocks are allocated now, so that a full /dev/shm or disk is this
	 * error, not a SIGBUS at a later write into the mapping.
	 */
	int e = posix_fallocate(r->fd, 0, (off_t)o.total);
	if (e != 0) {
		sr_error_set(err, SR_ESYS, "cannot allocate %" PRIu64 " bytes for shared ring \"%s\": %s",
		    o.total, name, strerror(e));
		return fail(r, true);
	}
	r->bytes = (size_t)o.total;
	void *base = mmap(NULL, r->bytes, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
	if (base == MAP_FAILED) {
		sr_error_set(err, SR_ESYS, "cannot map shared ring \"%s\" (%zu bytes): %s",
		    name, r->bytes, strerror(errno));
		return fail(r, true);
	}
	r->base = base;
	sr_shm__header *h = (sr_shm__header *)r->base;
	h->layout_version = SR_SHM_LAYOUT_VERSION;
	h->header_bytes = SR_SHM__HEADER_BYTES;
	h->mapping_bytes = o.total;
	h->slot_count = c->slot_count;
	h->slot_size = c->slot_size;
	h->producer_mode = c->mode;
	h->max_producers = c->max_producers;
	h->max_consumers = c->max_consumers;
	h->sequencer_bytes = sizeof(sr_sequencer);
	h->producer_entry_bytes = sizeof(sr_shm__producer_entry);
	h->consumer_entry_bytes = sizeof(sr_shm__consumer_entry);
	h->liveness_bound_ns = c->liveness_bound_ns;
	h->sequencer_offset = o.sequencer;
	h->available_offset = o.available;
	h->skipped_offset = o.skipped;
	h->producers_offset = o.producers;
	h->consumers_offset = o.consumers;
	h->slots_offset = o.slots;
	h->creator_pid = (int32_t)getpid();
	h->mutex_bytes = sizeof(pthread_mutex_t);
	h->identity_checksum = identity_checksum(h);

	pthread_mutexattr_t attr;
	e = pthread_mutexattr_init(&attr);
	if (e == 0)
		e = pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
	if (e == 0)
		e = pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
	if (e == 0)
		e = pthread_mutex_init(&h->registry_lock, &attr);
	pthread_mutexattr_destroy(&attr);
	if (e != 0) {
		sr_error_set(err, SR_ESYS, "cannot initialise the registry lock of \"%s\": %s", name, strerror(e));
		return fail(r, true);
	}
	handle_attach(r);
	sr_sequencer_config sc;
	sr_sequencer_config_default(&sc, c->slot_count, c->mode);
	sc.wait = c->wait;
	sc.synchronize_enqueue_when_full = c->synchronize_enqueue_when_full;
	if (sr_sequencer__init_at(r->sequencer, &sc,
	    c->mode == SR_PRODUCER_MULTI ? (sr_atomic_i64 *)(r->base + o.available) : NULL,
	    (sr_atomic_i64 *)(r->base + o.skipped), true, err) != SR_OK)
		return fail(r, true);
	for (int32_t i = 0; i < c->max_producers; i++)
		sr_atomic_store_relaxed_i64(&r->producers[i].claim_from, INT64_MAX);
	for (int32_t j = 0; j < c->max_consumers; j++)
		sr_sequence_init(&r->consumers[j].sequence, SR_SEQUENCE_INITIAL);
	/*
	 * Touch the slots now, as sr_ring_create does, so the first lap does
	 * not pay a page fault per page (in this process; others fault in the
	 * page-table entries only).
	 */
	memset(r->ring.slots, 0, r->ring.bytes);
	/* Last: pairs with the load-acquire of magic in sr_shm_ring_open. */
	sr_atomic_store_release_i64(&h->magic, (int64_t)SR_SHM__MAGIC);
	if (r->options.reaper_thread && sr_shm__reaper_start(r, err) != SR_OK)
		return fail(r, true);
	return r;
}

/* Checks one field of the header: found against expected. */
#define CHECK_FIELD(found, expected, what)                                                     \
	do {                                                                                   \
		if ((uint64_t)(found) != (uint64_t)(expected))                                 \
			return sr_error_set(err, SR_EFORMAT,                                   \
			    "shared ring \"%s\": %s is %" PRIu64 ", expected %" PRIu64, name,  \
			    what, (uint64_t)(found), (uint64_t)(expected));                    \
	} while (0)

/*
 * Every field of a header against what this library would have written for
 * its geometry; the sequencer's own fields too once `mapped` bytes reach them.
 */
static int
check_header(const char *name, const sr_shm__header *h, uint64_t file_bytes, uint64_t mapped,
    sr_error *err)
{
	CHECK_FIELD(h->layout_version, SR_SHM_LAYOUT_VERSION, "the layout version");
	CHECK_FIELD(h->header_bytes, SR_SHM__HEADER_BYTES, "the header size");
	CHECK_FIELD(h->sequencer_bytes, sizeof(sr_sequencer), "the sequencer's size");
	CHECK_FIELD(h->producer_entry_bytes, sizeof(sr_shm__producer_entry), "the producer entry's size");
	CHECK_FIELD(h->consumer_entry_bytes, sizeof(sr_shm__consumer_entry), "the consumer entry's size");
	CHECK_FIELD(h->mutex_bytes, sizeof(pthread_mutex_t), "the mutex size");
	sr_error geometry;
	if (sr_ring__check_geometry(h->slot_count, (size_t)h->slot_size, &geometry) != SR_OK)
		return sr_error_set(err, SR_EFORMAT, "shared ring \"%s\": %s", name, geometry.message);
	if (h->producer_mode != SR_PRODUCER_SINGLE && h->producer_mode != SR_PRODUCER_MULTI)
		return sr_error_set(err, SR_EFORMAT,
		    "shared ring \"%s\": producer mode %" PRId32 ", expected 0 (single) or 1 (multi)",
		    name, h->producer_mode);
	if (h->max_producers < 1 || h->max_producers > SR_SHM_MAX_PARTICIPANTS ||
	    h->max_consumers < 1 || h->max_consumers > SR_SHM_MAX_PARTICIPANTS)
		return sr_error_set(err, SR_EFORMAT,
		    "shared ring \"%s\": %" PRId32 " producers and %" PRId32 " consumers, expected 1 to %d each",
		    name, h->max_producers, h->max_consumers, SR_SHM_MAX_PARTICIPANTS);
	if (h->liveness_bound_ns < MIN_BOUND_NS || h->liveness_bound_ns > MAX_BOUND_NS)
		return sr_error_set(err, SR_EFORMAT,
		    "shared ring \"%s\": liveness bound %" PRId64 " ns, expected 1 ms to 60 s", name,
		    h->liveness_bound_ns);
	sr_shm__offsets o;
	sr_shm__layout(h->slot_count, (size_t)h->slot_size, h->producer_mode, h->max_producers,
	    h->max_consumers, &o);
	CHECK_FIELD(h->mapping_bytes, o.total, "the mapping size in its header");
	CHECK_FIELD(file_bytes, o.total, "the file's size (truncated or grown)");
	CHECK_FIELD(h->sequencer_offset, o.sequencer, "the sequencer's offset");
	CHECK_FIELD(h->available_offset, o.available, "the availability flags' offset");
	CHECK_FIELD(h->skipped_offset, o.skipped, "the skip marks' offset");
	CHECK_FIELD(h->producers_offset, o.producers, "the producers' offset");
	CHECK_FIELD(h->consumers_offset, o.consumers, "the consumers' offset");
	CHECK_FIELD(h->slots_offset, o.slots, "the slots' offset");
	/* Last: what is left is a change that kept the fields consistent with each other. */
	CHECK_FIELD(h->identity_checksum, identity_checksum(h), "the header's checksum");
	if (mapped < o.total)
		return SR_OK;
	/* The sequencer in the mapping must agree with its header. */
	const sr_sequencer *s = (const sr_sequencer *)((const unsigned char *)h + o.sequencer);
	CHECK_FIELD(s->buffer_size, h->slot_count, "the sequencer's buffer size");
	CHECK_FIELD(s->mask, h->slot_count - 1, "the sequencer's mask");
	CHECK_FIELD(s->mode, h->producer_mode, "the sequencer's mode");
	CHECK_FIELD(s->skipped_offset, o.skipped - o.sequencer, "the sequencer's skip marks offset");
	if (h->producer_mode == SR_PRODUCER_MULTI)
		CHECK_FIELD(s->available_offset, o.available - o.sequencer, "the sequencer's flags offset");
	int32_t gating = sr_atomic_load_relaxed_i32(&s->gating_count);
	if (gating < 0 || gating > SR_SEQUENCER_MAX_GATING)
		return sr_error_set(err, SR_EFORMAT,
		    "shared ring \"%s\": %" PRId32 " gating sequences, expected 0 to %d", name, gating,
		    SR_SEQUENCER_MAX_GATING);
	for (int32_t i = 0; i < gating; i++) {
		/* every gating sequence is a consumer entry's */
		int64_t at = sr_atomic_load_relaxed_i64(&s->gating[i]) + (int64_t)o.sequencer;
		int64_t first = (int64_t)o.consumers;
		if (at < first || (at - first) % (int64_t)sizeof(sr_shm__consumer_entry) != 0 ||
		    (at - first) / (int64_t)sizeof(sr_shm__consumer_entry) >= h->max_consumers)
			return sr_error_set(err, SR_EFORMAT,
			    "shared ring \"%s\": gating sequence %" PRId32 " at offset %" PRId64
			    ", expected a consumer's sequence", name, i, at);
	}
	return SR_OK;
}

sr_shm_ring *
sr_shm_ring_open(const char *name, const sr_shm_ring_options *options, sr_error *err)
{
	bool is_file;
	if (parse_name(name, &is_file, err) != SR_OK)
		return NULL;
	sr_shm_ring *r = handle_new(name, is_file, options, err);
	if (r == NULL)
		return NULL;
	r->fd = sr_shm__open_name(name, is_file, O_RDWR, 0);
	if (r->fd < 0) {
		sr_error_set(err, SR_ESYS, "cannot open shared ring \"%s\": %s", name, strerror(errno));
		return fail(r, false);
	}
	/* Wait for a creator that is still writing its header, up to a second. */
	int64_t give_up = sr_monotonic_ns() + CREATION_WAIT_NS;
	struct stat st;
	for (;;) {
		if (fstat(r->fd, &st) != 0) {
			sr_error_set(err, SR_ESYS, "cannot stat shared ring \"%s\": %s", name, strerror(errno));
			return fail(r, false);
		}
		if (st.st_size >= SR_SHM__HEADER_BYTES) {
			if (r->base == NULL) {
				void *base = mmap(NULL, SR_SHM__HEADER_BYTES, PROT_READ, MAP_SHARED, r->fd, 0);
				if (base == MAP_FAILED) {
					sr_error_set(err, SR_ESYS, "cannot map the header of shared ring \"%s\": %s",
					    name, strerror(errno));
					return fail(r, false);
				}
				r->base = base;
				r->bytes = SR_SHM__HEADER_BYTES;
			}
			/* pairs with the creator's store-release of magic */
			int64_t magic = sr_atomic_load_acquire_i64(&((sr_shm__header *)r->base)->magic);
			if (magic == (int64_t)SR_SHM__MAGIC)
				break;
			if (magic != 0) {
				sr_error_set(err, SR_EFORMAT,
				    "\"%s\" is not a seqring shared ring: magic number 0x%016" PRIx64
				    ", expected 0x%016" PRIx64, name, (uint64_t)magic, SR_SHM__MAGIC);
				return fail(r, false);
			}
		}
		if (sr_monotonic_ns() >= give_up) {
			sr_error_set(err, SR_EFORMAT,
			    "shared ring \"%s\" (%lld bytes) has no header: expected a %d-byte header with the "
			    "magic number 0x%016" PRIx64 " (truncated, or its creator did not finish)",
			    name, (long long)st.st_size, SR_SHM__HEADER_BYTES, SR_SHM__MAGIC);
			return fail(r, false);
		}
		sr_sleep_ns(1000000);
	}
	/* The header alone first: the sizes must agree with the file before it is all mapped. */
	if (check_header(name, (const sr_shm__header *)r->base, (uint64_t)st.st_size, r->bytes, err) != SR_OK)
		return fail(r, false);
	munmap(r->base, r->bytes);
	r->base = NULL;
	r->bytes = (size_t)st.st_size;
	void *base = mmap(NULL, r->bytes, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
	if (base == MAP_FAILED) {
		sr_error_set(err, SR_ESYS, "cannot map shared ring \"%s\" (%zu bytes): %s", name, r->bytes,
		    strerror(errno));
		return fail(r, false);
	}
	r->base = base;
	/* The header again, now with the sequencer behind it (the file may have changed meanwhile). */
	if (check_header(name, (const sr_shm__header *)r->base, (uint64_t)st.st_size, r->bytes, err) != SR_OK)
		return fail(r, false);
	handle_attach(r);
	if (r->options.reaper_thread && sr_shm__reaper_start(r, err) != SR_OK)
		return fail(r, false);
	return r;
}

void
sr_shm_ring_close(sr_shm_ring **ringp)
{
	if (ringp == NULL || *ringp == NULL)
		return;
	sr_shm_ring *r = *ringp;
	*ringp = NULL;
	sr_shm__reaper_stop(r);
	sr_shm__producers_leave_all(r);
	sr_shm__consumers_leave_all(r);
	handle_free(r);
}

int
sr_shm_ring_unlink(const char *name, sr_error *err)
{
	bool is_file;
	int rc = parse_name(name, &is_file, err);
	if (rc != SR_OK)
		return rc;
	if ((is_file ? unlink(name) : shm_unlink(name)) != 0)
		return sr_error_set(err, SR_ESYS, "cannot remove shared ring \"%s\": %s", name, strerror(errno));
	return SR_OK;
}

sr_ring *
sr_shm_ring_slots(sr_shm_ring *r)
{
	return &r->ring;
}

sr_sequencer *
sr_shm_ring_sequencer(sr_shm_ring *r)
{
	return r->sequencer;
}

int
sr_shm_ring_status_get(sr_shm_ring *r, sr_shm_ring_status *st)
{
	if (r == NULL || st == NULL)
		return SR_EINVAL;
	memset(st, 0, sizeof *st);
	sr_shm__header *h = r->header;
	st->cursor = sr_sequencer_cursor(r->sequencer);
	st->abandoned_sequences = sr_atomic_load_relaxed_i64(&h->abandoned_sequences);
	st->dead_producers = sr_atomic_load_relaxed_i64(&h->dead_producers);
	st->dropped_consumers = sr_atomic_load_relaxed_i64(&h->dropped_consumers);
	for (int32_t i = 0; i < h->max_producers; i++)
		if (sr_atomic_load_relaxed_i32(&r->producers[i].state) == SR_SHM__ACTIVE &&
		    sr_shm__liveness_held(r, SR_SHM__PRODUCER_LOCK(i)) == 1)
			st->producers++;
	for (int32_t j = 0; j < h->max_consumers; j++)
		if (sr_atomic_load_relaxed_i32(&r->consumers[j].state) == SR_SHM__ACTIVE &&
		    sr_shm__liveness_held(r, SR_SHM__CONSUMER_LOCK(j)) == 1)
			st->consumers++;
	return SR_OK;
}
