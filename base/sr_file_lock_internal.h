/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_file_lock_internal.h: "a live process holds this directory", told by
 * an open-file-description lock (F_OFD_SETLK) on a file in it.  The kernel
 * drops the lock with the last descriptor of the open file, however the
 * process ends, so a lock that can be taken means its holder is gone (a
 * pid could have been reused; the lock cannot lie).  A forked child's copy
 * of the descriptor keeps the parent's lock, and closing it does not drop
 * it.  Used by the ring directory and by a trace's directory.
 */
#ifndef SR_FILE_LOCK_INTERNAL_H
#define SR_FILE_LOCK_INTERNAL_H

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/*
 * Opens path (made with mode if missing) and takes its lock: the
 * descriptor, held for as long as it stays open; or -1 with errno, EAGAIN
 * when a live holder has it.
 */
static inline int
sr__lock_file(const char *path, unsigned mode)
{
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, mode);
	if (fd < 0)
		return -1;
	struct flock fl;
	memset(&fl, 0, sizeof fl);
	fl.l_type = F_WRLCK;
	fl.l_whence = SEEK_SET;
	fl.l_len = 1;
	if (fcntl(fd, F_OFD_SETLK, &fl) != 0) {
		int e = errno == EACCES ? EAGAIN : errno;  /* either means: another holds it */
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

#endif /* SR_FILE_LOCK_INTERNAL_H */
