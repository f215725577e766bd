/* SPDX-License-Identifier: Apache-2.0 */
/*
 * describe_defaults: opens a logger with no configuration (sr_log_open(NULL)), prints
 * sr_log_describe to stdout and closes it. check_env_defaults.sh runs it with no SEQRING_LOG*
 * variable set, then with each variable set to the default docs/configuration.md gives it: the
 * setting must come out the same, or the table says a default the library does not have.
 * Exit 0: described; 1: the logger did not open or describe failed (the message on stderr).
 */
#include <stdio.h>

#include <seqring/sr_log.h>

int
main(void)
{
	sr_error err;
	sr_log *log = sr_log_open(NULL, &err);
	if (log == NULL) {
		fprintf(stderr, "describe_defaults: sr_log_open(NULL) failed: %s\n", err.message);
		return 1;
	}
	int rc = sr_log_describe(log, stdout);
	int flushed = fflush(stdout) == 0;
	sr_log_close(&log);
	if (rc != SR_OK) {
		fprintf(stderr, "describe_defaults: sr_log_describe returned %d: expected SR_OK\n", rc);
		return 1;
	}
	if (!flushed) {
		perror("describe_defaults: writing the description to stdout");
		return 1;
	}
	return 0;
}
