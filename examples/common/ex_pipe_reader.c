/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ex_pipe_reader.c: a reader at a fixed rate, in a child process (ex_pipe_reader.h).
 */
#include "ex_pipe_reader.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <seqring/sr_wait.h>

/* Set by SIGUSR1 in the child: read as fast as it can from then on. */
static volatile sig_atomic_t unlimited;

static void
on_usr1(int sig)
{
	(void)sig;
	unlimited = 1;
}

/* The child: reads and discards until end of file, when the logger closed its end. */
__attribute__((noreturn)) static void
reader_main(int fd, double rate, const sigset_t *mask)
{
	/* Sleeps of a few ms must be a few ms, not a few ms plus the 50 us slack. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1; /* no SA_RESTART: SIGUSR1 cuts a throttling sleep short */
	sigaction(SIGUSR1, &sa, NULL);
	pthread_sigmask(SIG_SETMASK, mask, NULL);

	static char buf[65536];
	double burst = rate / 50 > 4096 ? rate / 50 : 4096;
	double chunk = burst < 4096 ? burst : 4096; /* read at least this much at a time */
	double tokens = burst;
	int64_t last = sr_monotonic_ns();
	for (;;) {
		size_t want = sizeof buf;
		if (rate > 0 && !unlimited) {
			int64_t now = sr_monotonic_ns();
			tokens += (double)(now - last) * rate / 1e9;
			if (tokens > burst)
				tokens = burst;
			last = now;
			if (tokens < chunk) {
				int64_t ns = (int64_t)((chunk - tokens) / rate * 1e9) + 1;
				struct timespec ts = { (time_t)(ns / 1000000000), (long)(ns % 1000000000) };
				nanosleep(&ts, NULL);
				continue;
			}
			want = tokens < (double)sizeof buf ? (size_t)tokens : sizeof buf;
		}
		ssize_t n = read(fd, buf, want);
		if (n > 0) {
			tokens -= (double)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		_exit(n == 0 ? 0 : 1);
	}
}

int
ex_pipe_reader_start(ex_pipe_reader *r, double rate)
{
	int fds[2];
	if (pipe(fds) != 0) {
		fprintf(stderr, "pipe failed: %s\n", strerror(errno));
		return -1;
	}
	/* Blocked until the child has its handler: an early SIGUSR1 must not kill it. */
	sigset_t usr1, old;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, &old);
	/* The child inherits stdio buffers: empty them so nothing is printed twice. */
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid == 0) {
		close(fds[1]);
		reader_main(fds[0], rate, &old);
	}
	int e = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	close(fds[0]);
	if (pid < 0) {
		close(fds[1]);
		fprintf(stderr, "fork failed: %s\n", strerror(e));
		return -1;
	}
	r->pid = pid;
	r->fd = fds[1];
	return 0;
}

void
ex_pipe_reader_pause(const ex_pipe_reader *r)
{
	kill(r->pid, SIGSTOP);
}

void
ex_pipe_reader_resume(const ex_pipe_reader *r)
{
	kill(r->pid, SIGCONT);
}

void
ex_pipe_reader_unthrottle(const ex_pipe_reader *r)
{
	kill(r->pid, SIGUSR1);
}

int
ex_pipe_reader_wait(ex_pipe_reader *r)
{
	int status;
	pid_t w;
	while ((w = waitpid(r->pid, &status, 0)) < 0 && errno == EINTR)
		;
	r->pid = -1;
	if (w < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "the pipe reader did not exit cleanly\n");
		return -1;
	}
	return 0;
}
