/* SPDX-License-Identifier: Apache-2.0 */
/*
 * log_edges.c: what the tests of a process's edges (exit, fork, signals,
 * close) share: a child process run from this very program with a bound on
 * its time, the tally of numbered lines in a log file, and whether the
 * process may run on two CPUs at once.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "log_support.h"

int
tl_run_self(char *const argv[], int timeout_ms, int *status)
{
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	struct timespec start;
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		pid_t w = waitpid(pid, status, WNOHANG);
		if (w == pid)
			return 0;
		if (w < 0 && errno != EINTR)
			return -1;
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		long ms = (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
		if (ms > timeout_ms) {
			kill(pid, SIGKILL);
			waitpid(pid, status, 0);
			return 1;
		}
		tl_sleep_ms(5);
	}
}

tl_tally
tl_tally_lines(const char *path, const char *tag, int n)
{
	tl_tally t = { 0 };
	unsigned char *seen = calloc((size_t)n, 1);
	size_t len;
	char *text = tl_read_file(path, &len);
	size_t tlen = strlen(tag);
	for (char *line = text; line != NULL && *line != '\0';) {
		char *end = strchr(line, '\n');
		if (end != NULL)
			*end = '\0';
		/* "<tag>#<number>." anywhere in the line: the number is the message's. */
		for (char *hit = strstr(line, tag); hit != NULL; hit = strstr(hit + 1, tag)) {
			if (hit[tlen] != '#')
				continue;
			char *after;
			long i = strtol(hit + tlen + 1, &after, 10);
			if (*after != '.')
				continue;
			t.lines++;
			if (i < 0 || i >= n)
				t.bad++;
			else if (seen[i] < 255)
				seen[i]++;
			break;
		}
		line = end != NULL ? end + 1 : NULL;
	}
	for (int i = 0; i < n; i++) {
		if (seen[i] == 0)
			t.missing++;
		else if (seen[i] > 1)
			t.doubled++;
	}
	free(seen);
	free(text);
	return t;
}

bool
tl_two_cpus(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) != 0 || CPU_COUNT(&set) < 2)
		return false;
	FILE *f = fopen("/sys/fs/cgroup/cpu.max", "r");
	if (f == NULL)
		return true;
	char quota[32] = "max";
	long long period = 0;
	int n = fscanf(f, "%31s %lld", quota, &period);
	fclose(f);
	return n != 2 || strcmp(quota, "max") == 0 || period <= 0 || atoll(quota) >= 2 * period;
}
