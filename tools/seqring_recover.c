/* SPDX-License-Identifier: Apache-2.0 */
/*
 * seqring_recover.c: the command seqring-recover DIR, for a program that
 * died with records in its ring directory and is not started again: writes
 * them (sr_log_recover) to standard output, or to the sinks
 * SEQRING_LOG_SINK names, then removes the dead process's files.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <seqring/sr_log.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
    "usage: seqring-recover DIR\n"
    "\n"
    "Writes the records a dead process left in its ring directory DIR (a logger opened with\n"
    "config.ring_dir or SEQRING_LOG_RING_DIR that was killed before it wrote them) to standard\n"
    "output, each with its own time, level, category, thread and location, merged by time, then a\n"
    "line saying what was recovered; then removes the dead process's files from DIR.\n"
    "\n"
    "SEQRING_LOG_SINK chooses other sinks (e.g. file:/var/log/app.log), SEQRING_LOG_LAYOUT and\n"
    "SEQRING_LOG_PATTERN the layout, as for any seqring logger. A directory a live logger holds\n"
    "is refused.\n"
    "\n"
    "Exit status: 0 done (also when there was nothing to recover), 1 an error (on stderr), 2 usage.\n";

int
main(int argc, char **argv)
{
	if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
		fputs(usage, stdout);
		return 0;
	}
	if (argc != 2 || argv[1][0] == '\0' || argv[1][0] == '-') {
		fputs(usage, stderr);
		return 2;
	}
	/* This logger writes what another left: it must not take a directory of its own. */
	if (getenv("SEQRING_LOG_RING_DIR") != NULL) {
		fprintf(stderr, "seqring-recover: SEQRING_LOG_RING_DIR is ignored here (the directory to read is the "
		    "argument)\n");
		unsetenv("SEQRING_LOG_RING_DIR");
	}
	sr_log_config c;
	sr_log_config_default(&c);
	/* The caller's thread writes every line: no consumer, no ring to fill. */
	c.mode = SR_LOG_MODE_SYNC;
	sr_sink_config out = sr_sink_fd(STDOUT_FILENO);
	c.sinks = &out;
	c.sink_count = 1;
	c.close_at_exit = false;
	sr_error err;
	sr_log *log = sr_log_open(&c, &err);
	if (log == NULL) {
		fprintf(stderr, "seqring-recover: cannot open a logger to write to: %s\n", err.message);
		return 1;
	}
	sr_log_recovery report;
	int rc = sr_log_recover(log, argv[1], &report, &err);
	sr_log_close(&log);
	if (rc != SR_OK) {
		fprintf(stderr, "seqring-recover: %s\n", err.message);
		return 1;
	}
	if (report.loggers == 0)
		fprintf(stderr, "seqring-recover: \"%s\" holds no dead process's rings: nothing to recover\n", argv[1]);
	return 0;
}
