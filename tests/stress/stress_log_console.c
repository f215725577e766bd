/* SPDX-License-Identifier: Apache-2.0 */
/*
 * stress_log_console.c: a console people read.  The program runs itself as
 * a child that logs to stderr, under a real terminal (util-linux's
 * `script`, which gives the child a pseudo-terminal) and through a pipe:
 *   - a terminal colours the level (auto, the default); a pipe does not;
 *   - NO_COLOR (set, not empty) turns auto off; SEQRING_LOG_COLOR=always
 *     colours a pipe; SEQRING_LOG_COLOR=never leaves a terminal plain;
 *   - a bad SEQRING_LOG_COLOR is refused with a message naming it.
 * Without `script`, or where no pseudo-terminal can be made (no devpts
 * mounted on /dev/pts, as in some containers), the program says why and
 * exits 77 (CTest: skipped).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <seqring/sr_log.h>

#include "stress_args.h"

static int
child(void)
{
	sr_error err;
	sr_log_config c;
	sr_log_config_default(&c);
	c.ring_slots = 1024;
	sr_log *log = sr_log_open(&c, &err);
	if (log == NULL) {
		fprintf(stderr, "open failed: %s\n", err.message);
		return 3;
	}
	sr_category *cat = sr_log_category(log, "console");
	SR_INFO(cat, "hello %d", 1);
	SR_ERROR(cat, "trouble %d", 2);
	sr_log_close(&log);
	return 0;
}

/* Runs cmd with sh, its output (stdout and stderr) into out. */
static void
capture(const char *cmd, char *out, size_t size)
{
	FILE *p = popen(cmd, "r");
	size_t n = p != NULL ? fread(out, 1, size - 1, p) : 0;
	out[n] = '\0';
	if (p != NULL)
		pclose(p);
}

static int failures;

static void
expect(const char *what, const char *env, bool terminal, bool colored, const char *needle)
{
	char self[512];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	self[n > 0 ? n : 0] = '\0';
	char cmd[1400], out[8192];
	if (terminal)
		snprintf(cmd, sizeof cmd,
		    "env -u NO_COLOR -u SEQRING_LOG_COLOR %s script -qfec '%s --child' /dev/null 2>&1", env, self);
	else
		snprintf(cmd, sizeof cmd, "env -u NO_COLOR -u SEQRING_LOG_COLOR %s '%s' --child 2>&1 | cat", env,
		    self);
	capture(cmd, out, sizeof out);
	bool has_info = strstr(out, "\033[32mINFO\033[0m") != NULL;
	bool has_error = strstr(out, "\033[31mERROR\033[0m") != NULL;
	bool any_escape = strchr(out, '\033') != NULL;
	bool ok = colored ? has_info && has_error : !any_escape && strstr(out, "INFO") != NULL;
	if (needle != NULL)
		ok = strstr(out, needle) != NULL;
	printf("%-4s %-58s %s\n", ok ? "ok" : "FAIL", what, ok ? "" : out);
	failures += !ok;
}

/*
 * Whether a pseudo-terminal can be made here, the way `script` makes its
 * child's: a master, unlocked, and its slave opened.  If not, why (the step
 * and its error) in why.
 */
static bool
terminal_can_be_made(char *why, size_t size)
{
	int master = posix_openpt(O_RDWR | O_NOCTTY);
	if (master < 0) {
		snprintf(why, size, "posix_openpt: %s", strerror(errno));
		return false;
	}
	const char *failed = NULL;
	const char *slave_path = NULL;
	int slave = -1;
	if (grantpt(master) != 0)
		failed = "grantpt";
	else if (unlockpt(master) != 0)
		failed = "unlockpt";
	else if ((slave_path = ptsname(master)) == NULL)
		failed = "ptsname";
	else if ((slave = open(slave_path, O_RDWR | O_NOCTTY)) < 0)
		failed = "opening the slave";
	if (failed != NULL)
		snprintf(why, size, "%s%s%s: %s", failed, slave_path != NULL ? " " : "",
		    slave_path != NULL ? slave_path : "", strerror(errno));
	if (slave >= 0)
		close(slave);
	close(master);
	return failed == NULL;
}

int
main(int argc, char **argv)
{
	bool run_child = false;
	const sa_option options[] = {
		{ .name = "child", .kind = SA_SWITCH, .dest = &run_child,
		    .help = "log two lines to stderr and end: what each check runs, under a terminal or a pipe" },
	};
	sa_parse(argc, argv, options, sizeof options / sizeof *options, NULL);
	if (run_child)
		return child();
	if (system("command -v script >/dev/null 2>&1") != 0) {
		printf("stress_log_console: script (util-linux) is not installed: skipped\n");
		return 77;
	}
	char why[256];
	if (!terminal_can_be_made(why, sizeof why)) {
		printf("stress_log_console: no pseudo-terminal can be made here (%s; is devpts mounted on /dev/pts?), "
		    "so script cannot give the child a terminal: skipped\n", why);
		return 77;
	}
	expect("a terminal colours the level (auto)", "", true, true, NULL);
	expect("a pipe does not", "", false, false, NULL);
	expect("NO_COLOR=1 turns auto off on a terminal", "NO_COLOR=1", true, false, NULL);
	expect("NO_COLOR= (empty) does not", "NO_COLOR=", true, true, NULL);
	expect("SEQRING_LOG_COLOR=always colours a pipe", "SEQRING_LOG_COLOR=always", false, true, NULL);
	expect("SEQRING_LOG_COLOR=never leaves a terminal plain", "SEQRING_LOG_COLOR=never", true, false, NULL);
	expect("SEQRING_LOG_COLOR=rainbow is refused", "SEQRING_LOG_COLOR=rainbow", false, false,
	    "SEQRING_LOG_COLOR 'rainbow' is invalid: expected auto, always or never");
	if (failures > 0) {
		printf("stress_log_console: %d failure(s)\n", failures);
		return 1;
	}
	printf("stress_log_console: passed\n");
	return 0;
}
