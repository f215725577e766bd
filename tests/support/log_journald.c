/* SPDX-License-Identifier: Apache-2.0 */
/*
 * log_journald.c: a systemd-journald of the test's own in a mount namespace
 * of the calling process (log_journald.h says what it covers and why).
 */
#include "log_journald.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static bool
write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (f == NULL)
		return false;
	bool ok = fputs(text, f) >= 0;
	return fclose(f) == 0 && ok;
}

/* True when the host has a machine id journald can read. */
static bool
machine_id_present(void)
{
	char id[64] = "";
	FILE *f = fopen("/etc/machine-id", "r");
	if (f == NULL)
		return false;
	bool ok = fgets(id, sizeof id, f) != NULL && strlen(id) >= 32;
	fclose(f);
	return ok;
}

/* A random machine id (32 hex digits and a newline) into /etc/machine-id: the overlay's, never the host's. */
static bool
make_machine_id(void)
{
	unsigned char raw[16];
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || read(fd, raw, sizeof raw) != (ssize_t)sizeof raw) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	close(fd);
	char text[34];
	for (int i = 0; i < 16; i++)
		snprintf(text + 2 * i, 3, "%02x", raw[i]);
	text[32] = '\n';
	text[33] = '\0';
	return write_text("/etc/machine-id", text);
}

/* What the sandbox mounts, by bit of tl_journald.mounted: unmounted in reverse order. */
static const char *const sandbox_mounts[] = { "/etc", "/etc/systemd", "/run/systemd", "/run/log", "/var/log/journal" };

const char *
tl_journald_sandbox(tl_journald *jd, const char *ns)
{
	static char why[256];
	memset(jd, 0, sizeof *jd);
	jd->pid = -1;
	snprintf(jd->ns, sizeof jd->ns, "%s", ns);
	snprintf(jd->socket, sizeof jd->socket, "/run/systemd/journal.%s/socket", ns);
	if (geteuid() != 0)
		return "not root: journald's sandbox needs a mount namespace and its mounts";
	if (access(TL_JOURNALD_BINARY, X_OK) != 0)
		return TL_JOURNALD_BINARY " is not installed (Debian package systemd)";
	if (access("/usr/bin/journalctl", X_OK) != 0 && access("/bin/journalctl", X_OK) != 0)
		return "journalctl is not installed (Debian package systemd)";
	snprintf(jd->dir, sizeof jd->dir, "/tmp/seqring-journald-XXXXXX");
	if (mkdtemp(jd->dir) == NULL) {
		snprintf(why, sizeof why, "mkdtemp %s: %s", jd->dir, strerror(errno));
		jd->dir[0] = '\0';
		return why;
	}
	if (unshare(CLONE_NEWNS) != 0) {
		snprintf(why, sizeof why, "unshare(CLONE_NEWNS): %s: no mount namespace of our own here",
		    strerror(errno));
		return why;
	}
	/* Nothing mounted from here on may reach the host's namespace. */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
		snprintf(why, sizeof why, "mount --make-rprivate /: %s", strerror(errno));
		return why;
	}
	char upper[128], work[128], opts[400];
	snprintf(upper, sizeof upper, "%s/etc-upper", jd->dir);
	snprintf(work, sizeof work, "%s/etc-work", jd->dir);
	mkdir(upper, 0755);
	mkdir(work, 0755);
	snprintf(opts, sizeof opts, "lowerdir=/etc,upperdir=%s,workdir=%s", upper, work);
	bool overlay = mount("overlay", "/etc", "overlay", 0, opts) == 0;
	if (overlay)
		jd->mounted |= 1u << 0;
	if (!overlay) {
		/* No overlay here: journald's configuration alone on a tmpfs of its own. */
		if (mount("tmpfs", "/etc/systemd", "tmpfs", 0, "mode=0755") != 0) {
			snprintf(why, sizeof why, "neither an overlay over /etc nor a tmpfs over /etc/systemd: %s",
			    strerror(errno));
			return why;
		}
		jd->mounted |= 1u << 1;
	}
	if (!machine_id_present()) {
		if (!overlay)
			return "/etc/machine-id is missing and no overlay over /etc can hold one for journald";
		if (!make_machine_id())
			return "cannot write a machine id into the overlay over /etc";
	}
	for (unsigned i = 2; i < sizeof sandbox_mounts / sizeof sandbox_mounts[0]; i++) {
		mkdir(sandbox_mounts[i], 0755); /* /var/log/journal may not exist: made in the host's /var/log, empty */
		if (mount("tmpfs", sandbox_mounts[i], "tmpfs", 0, "mode=0755") != 0) {
			snprintf(why, sizeof why, "mount tmpfs on %s: %s", sandbox_mounts[i], strerror(errno));
			return why;
		}
		jd->mounted |= 1u << i;
	}
	char conf[128];
	snprintf(conf, sizeof conf, "/etc/systemd/journald@%s.conf", ns);
	/* Rate limiting off (a test logs 100,000 records in a second), nothing written to disk. */
	if (!write_text(conf, "[Journal]\nRateLimitIntervalSec=0\nRateLimitBurst=0\nStorage=volatile\n"
	    "RuntimeMaxUse=512M\nRuntimeMaxFileSize=128M\n")) {
		snprintf(why, sizeof why, "cannot write %s: %s", conf, strerror(errno));
		return why;
	}
	return NULL;
}

static void
sleep_ms(int ms)
{
	struct timespec t = { ms / 1000, (long)(ms % 1000) * 1000000L };
	nanosleep(&t, NULL);
}

bool
tl_journald_start(tl_journald *jd, char *why, size_t size)
{
	char out[128];
	snprintf(out, sizeof out, "%s/journald.out", jd->dir);
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(why, size, "fork: %s", strerror(errno));
		return false;
	}
	if (pid == 0) {
		/* journald dies with the test, whatever ends it. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		int fd = open(out, O_WRONLY | O_CREAT | O_APPEND, 0644);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
			close(fd);
		}
		execl(TL_JOURNALD_BINARY, "systemd-journald", jd->ns, (char *)NULL);
		_exit(127);
	}
	jd->pid = pid;
	for (int i = 0; i < 500; i++) {
		struct stat st;
		if (stat(jd->socket, &st) == 0 && S_ISSOCK(st.st_mode))
			return true;
		int status;
		if (waitpid(pid, &status, WNOHANG) == pid) {
			jd->pid = -1;
			snprintf(why, size, "systemd-journald %s exited at start (see %s)", jd->ns, out);
			return false;
		}
		sleep_ms(10);
	}
	snprintf(why, size, "systemd-journald %s did not make %s within 5 s", jd->ns, jd->socket);
	tl_journald_stop(jd);
	return false;
}

void
tl_journald_stop(tl_journald *jd)
{
	if (jd->pid <= 0)
		return;
	kill(jd->pid, SIGTERM);
	for (int i = 0; i < 500; i++) {
		if (waitpid(jd->pid, NULL, WNOHANG) == jd->pid) {
			jd->pid = -1;
			return;
		}
		sleep_ms(10);
	}
	kill(jd->pid, SIGKILL);
	waitpid(jd->pid, NULL, 0);
	jd->pid = -1;
}

void
tl_journald_remove(tl_journald *jd)
{
	tl_journald_stop(jd);
	/* Only what the sandbox mounted, in its own namespace: never a mount of the host's. */
	for (int i = (int)(sizeof sandbox_mounts / sizeof sandbox_mounts[0]) - 1; i >= 0; i--)
		if (jd->mounted & (1u << i))
			(void)umount2(sandbox_mounts[i], MNT_DETACH);
	jd->mounted = 0;
	if (jd->dir[0] != '\0' && getenv("KEEP_TEST_DIR") == NULL) {
		char cmd[128];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", jd->dir);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", jd->dir);
		jd->dir[0] = '\0';
	}
}

char *
tl_journalctl(const tl_journald *jd, const char *args, size_t *len)
{
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "journalctl --namespace=%s --no-pager -a %s 2>/dev/null", jd->ns, args);
	FILE *p = popen(cmd, "r");
	if (p == NULL)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	for (;;) {
		if (buf == NULL)
			break;
		if (cap - n < 65536) {
			char *grown = realloc(buf, cap * 2);
			if (grown == NULL) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = grown;
			cap *= 2;
		}
		size_t r = fread(buf + n, 1, cap - n - 1, p);
		if (r == 0)
			break;
		n += r;
	}
	pclose(p);
	if (buf != NULL)
		buf[n] = '\0';
	if (len != NULL)
		*len = n;
	return buf;
}

static int64_t
now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

size_t
tl_journald_wait_lines(const tl_journald *jd, const char *match, size_t want, int timeout_ms)
{
	char args[512];
	snprintf(args, sizeof args, "-o cat %s", match);
	int64_t deadline = now_ms() + timeout_ms;
	for (;;) {
		/* journald writes what it received before it answers --sync. */
		char sync[128];
		snprintf(sync, sizeof sync, "journalctl --namespace=%s --sync >/dev/null 2>&1", jd->ns);
		if (system(sync) != 0) { /* an old journalctl without --sync: the wait below still bounds it */ }
		char *out = tl_journalctl(jd, args, NULL);
		size_t lines = 0;
		for (const char *p = out; p != NULL && *p != '\0'; p++)
			lines += *p == '\n';
		free(out);
		if (lines >= want || now_ms() >= deadline)
			return lines;
		sleep_ms(100);
	}
}
