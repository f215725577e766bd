/* SPDX-License-Identifier: Apache-2.0 */
/*
 * log_journald.h: a systemd-journald of the test's own, never the host's
 * (log_journald.c), for the journald sink's test and its rate beside the
 * syslog sink's.
 *
 * The calling process moves into a mount namespace of its own (unshare),
 * where an overlay over /etc holds journald@NS.conf (rate limiting off,
 * volatile storage) and a machine id when the host has none, and tmpfs
 * covers /run/systemd, /run/log and /var/log/journal: journald's namespace
 * instance (`systemd-journald NS`) listens on /run/systemd/journal.NS/socket
 * and writes /run/log/journal/MACHINE.NS there, and nothing of it reaches
 * the host.  So the process that calls tl_journald_sandbox must be one the
 * test may give up (a Criterion worker, or a program of its own): its
 * mounts stay its own until it exits.
 */
#ifndef TESTS_LOG_JOURNALD_H
#define TESTS_LOG_JOURNALD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define TL_JOURNALD_BINARY "/lib/systemd/systemd-journald"

typedef struct tl_journald {
	char ns[32];              /* the namespace: journald's instance and journalctl's --namespace */
	char socket[108];         /* /run/systemd/journal.NS/socket */
	char dir[64];             /* a temporary directory: the overlay's layers, journald's output */
	pid_t pid;                /* journald, or -1 */
	unsigned mounted;         /* what the sandbox mounted (bits of log_journald.c's list), its own to unmount */
} tl_journald;

/*
 * Makes the sandbox for namespace ns in the calling process.  NULL, or why
 * the test cannot run here (not root, journald or journalctl missing, no
 * mount namespace), for a skip's message.
 */
const char *tl_journald_sandbox(tl_journald *jd, const char *ns);
/* Starts journald in the sandbox and waits (5 s at most) for its socket; false with why. */
bool tl_journald_start(tl_journald *jd, char *why, size_t size);
/* Stops journald (SIGTERM, then SIGKILL after 5 s); its files stay until tl_journald_remove. */
void tl_journald_stop(tl_journald *jd);
/* Stops journald, unmounts the sandbox's file systems and removes the temporary directory. */
void tl_journald_remove(tl_journald *jd);
/*
 * Runs `journalctl --namespace=NS --no-pager -a ARGS` in the sandbox and
 * returns its standard output (malloc'd, NUL-terminated; *len its length),
 * or NULL when it could not run.
 */
char *tl_journalctl(const tl_journald *jd, const char *args, size_t *len);
/*
 * Waits (timeout_ms at most) until `journalctl ... -o cat MATCH` prints at
 * least want lines; returns how many it printed last.
 */
size_t tl_journald_wait_lines(const tl_journald *jd, const char *match, size_t want, int timeout_ms);

#endif /* TESTS_LOG_JOURNALD_H */
