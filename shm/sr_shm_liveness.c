/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_shm_liveness.c: whether a participant lives, by the lock it holds on a
 * byte of the mapping's file, and the registry's robust lock.
 *
 * Open-file-description locks (F_OFD_SETLK) belong to the descriptor's
 * open file, not to a process or a thread: the kernel drops one when the
 * last descriptor of that open file closes, which a process's death does,
 * however it dies.  Each participant opens the file again for an open
 * file of its own, so that two participants of one process hold distinct locks,
 * and the handle tests them from its own descriptor, which holds none (a
 * test from the holder's own open file would see no conflict).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sr_shm_layout_internal.h"

static struct flock
byte_lock(short type, off_t byte)
{
	struct flock fl;
	memset(&fl, 0, sizeof fl);
	fl.l_type = type;
	fl.l_whence = SEEK_SET;
	fl.l_start = byte;
	fl.l_len = 1;
	fl.l_pid = 0; /* required 0 for OFD locks */
	return fl;
}

int
sr_shm__liveness_hold(const sr_shm_ring *ring, off_t byte, int *fdp, sr_error *err)
{
	/*
	 * Through /proc, not by name: a new open file of the same file, even
	 * after its name was removed.
	 */
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", ring->fd);
	int fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return sr_error_set(err, SR_ESYS, "cannot open shared ring \"%s\" for a liveness lock: %s",
		    ring->name, strerror(errno));
	struct flock fl = byte_lock(F_WRLCK, byte);
	if (fcntl(fd, F_OFD_SETLK, &fl) != 0) {
		int e = errno;
		close(fd);
		if (e == EAGAIN || e == EACCES)
			return sr_error_set(err, SR_ESTATE,
			    "shared ring \"%s\": the liveness lock of byte %lld is held by a live process",
			    ring->name, (long long)byte);
		return sr_error_set(err, SR_ESYS, "shared ring \"%s\": cannot take a liveness lock: %s",
		    ring->name, strerror(e));
	}
	*fdp = fd;
	return SR_OK;
}

int
sr_shm__liveness_held(const sr_shm_ring *ring, off_t byte)
{
	struct flock fl = byte_lock(F_WRLCK, byte);
	if (fcntl(ring->fd, F_OFD_GETLK, &fl) != 0)
		return SR_ESYS;
	return fl.l_type == F_UNLCK ? 0 : 1;
}

int
sr_shm__registry_lock(sr_shm_ring *ring)
{
	int e = pthread_mutex_lock(&ring->header->registry_lock);
	/*
	 * A holder died holding it.  Every change made under it leaves the
	 * registry consistent at each store (an entry's state is written last
	 * on a join, first on a leave), so the next holder goes on.
	 */
	if (e == EOWNERDEAD)
		e = pthread_mutex_consistent(&ring->header->registry_lock);
	return e == 0 ? SR_OK : SR_ESYS;
}

void
sr_shm__registry_unlock(sr_shm_ring *ring)
{
	pthread_mutex_unlock(&ring->header->registry_lock);
}
