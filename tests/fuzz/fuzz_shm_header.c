/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_shm_header.c: libFuzzer target for the check of a shared ring's
 * header at open (shm/sr_shm_map.c, sr_shm_ring_open).
 *
 * A valid ring file is made once (multi producer, 64 slots of 8 bytes); each
 * input patches it: its first two bytes choose an offset in the header and
 * the sequencer that follows it, its third byte a length to cut the file to
 * past its header (0: none), the rest are written at the offset.  The patched file is
 * opened.  Properties:
 *   - open never crashes, reads outside the file or the mapping (ASan), or
 *     hangs, whatever the bytes;
 *   - it succeeds, or fails with SR_EFORMAT or SR_ESYS and a terminated
 *     message that names the file;
 *   - when it succeeds, the ring it describes is the ring that was made:
 *     the same slot count, slot size and mode (a header that passes is
 *     consistent with itself and with the file's size).
 * The magic number is never patched to 0: a zero magic is a creator still
 * at work, which open waits a second for.  The locks' contents are not
 * checked by open (nothing can tell a held lock from a corrupt one), so the
 * target does not join.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_support.h"
#include <seqring/sr_shm_ring.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned char *template_bytes;
static size_t template_size;
static char path[64];

static void
make_template(void)
{
	snprintf(path, sizeof path, "/tmp/seqring-fuzz-%d.ring", (int)getpid());
	unlink(path);
	sr_shm_ring_config c;
	sr_shm_ring_config_default(&c, 64, 8, SR_PRODUCER_MULTI);
	sr_shm_ring_options o;
	sr_shm_ring_options_default(&o);
	o.reaper_thread = false;
	sr_error err;
	sr_shm_ring *r = sr_shm_ring_create(path, &c, &o, &err);
	FUZZ_CHECK(r != NULL, "create: %s", err.message);
	sr_shm_ring_close(&r);
	FILE *f = fopen(path, "rb");
	FUZZ_CHECK(f != NULL, "reopen the template");
	fseek(f, 0, SEEK_END);
	template_size = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	template_bytes = malloc(template_size);
	FUZZ_CHECK(fread(template_bytes, 1, template_size, f) == template_size, "read the template");
	fclose(f);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (template_bytes == NULL)
		make_template();
	if (size < 3)
		return 0;
	/* the header (4096 bytes) and the sequencer behind it */
	size_t at = ((size_t)data[0] << 8 | data[1]) % 8192;
	/*
	 * Cut after the header: a file shorter than a header is a creator still
	 * at work, which open also waits a second for (test_shm_ring covers it).
	 */
	size_t cut = data[2] == 0 ? template_size : 4096 + (size_t)data[2] * 64;
	const uint8_t *patch = data + 3;
	size_t n = size - 3;
	if (at + n > template_size)
		n = template_size - at;
	unsigned char *bytes = malloc(template_size);
	memcpy(bytes, template_bytes, template_size);
	memcpy(bytes + at, patch, n);
	uint64_t magic;
	memcpy(&magic, bytes, sizeof magic);
	if (magic == 0)
		bytes[0] = 1;
	if (cut > template_size)
		cut = template_size;
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	FUZZ_CHECK(fd >= 0, "write the patched file");
	FUZZ_CHECK(write(fd, bytes, cut) == (ssize_t)cut, "write the patched file");
	close(fd);
	free(bytes);

	sr_shm_ring_options o;
	sr_shm_ring_options_default(&o);
	o.reaper_thread = false;
	sr_error err;
	memset(&err, 0x55, sizeof err);
	sr_shm_ring *r = sr_shm_ring_open(path, &o, &err);
	if (r == NULL) {
		FUZZ_CHECK(err.code == SR_EFORMAT || err.code == SR_ESYS, "code %d: %s", err.code, err.message);
		FUZZ_CHECK(memchr(err.message, '\0', sizeof err.message) != NULL, "message not terminated");
		FUZZ_CHECK(strstr(err.message, path) != NULL, "the message does not name the file: %s",
		    err.message);
		return 0;
	}
	sr_ring *ring = sr_shm_ring_slots(r);
	sr_sequencer *s = sr_shm_ring_sequencer(r);
	FUZZ_CHECK(ring->slot_count == 64 && ring->slot_size == 8 && s->mode == SR_PRODUCER_MULTI &&
	    s->buffer_size == 64, "a header that passed describes another ring: %lld x %zu, mode %d",
	    (long long)ring->slot_count, ring->slot_size, (int)s->mode);
	sr_shm_ring_close(&r);
	return 0;
}
