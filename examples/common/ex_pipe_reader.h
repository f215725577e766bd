/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ex_pipe_reader.h: the other end of a logger's pipe, in a child process: a
 * reader that drains the pipe at a fixed rate (a slow console, a log shipper
 * that keeps up only so far), that can be stopped and continued (one that
 * hangs), and that exits when the logger closes its end.
 */
#ifndef SEQRING_EXAMPLES_EX_PIPE_READER_H
#define SEQRING_EXAMPLES_EX_PIPE_READER_H

#include <sys/types.h>

typedef struct ex_pipe_reader {
	pid_t pid;
	int fd; /* the pipe's write end: the logger's sink, which must close it */
} ex_pipe_reader;

/*
 * Forks the reader: it reads never faster than rate bytes/s (a token bucket
 * holding at most 20 ms of reading, so that after a pause it does not catch
 * up in a burst), or as fast as it can when rate is 0.  -1 with a message on
 * stderr on failure.
 */
int ex_pipe_reader_start(ex_pipe_reader *r, double rate);

/* SIGSTOP: the reader stops reading at once, as a stuck terminal or log shipper would. */
void ex_pipe_reader_pause(const ex_pipe_reader *r);

/* SIGCONT: the reader reads again. */
void ex_pipe_reader_resume(const ex_pipe_reader *r);

/* Lets the reader drain at full speed, so that the end of a run does not wait on the limit. */
void ex_pipe_reader_unthrottle(const ex_pipe_reader *r);

/*
 * Waits for the reader to exit: the pipe's write end must have been closed
 * (by closing the logger).  0 if it exited cleanly, else -1 with a message.
 */
int ex_pipe_reader_wait(ex_pipe_reader *r);

#endif /* SEQRING_EXAMPLES_EX_PIPE_READER_H */
