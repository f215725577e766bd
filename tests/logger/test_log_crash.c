/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_log_crash.c: the opt-in crash flush.
 *
 * Each test forks a child that opens a logger on a file, installs the crash
 * handler, logs N numbered messages and crashes (a wild write, abort(), a
 * crash on the consumer thread itself, a consumer stuck in a sink); the
 * parent checks how the child died (the signal it would have died of
 * without us, or what the application's own handler decided) and that
 * every one of the N messages is in the file, exactly once.  Also: the
 * handlers are restored on close, and a handler the application installed
 * later is left alone.
 */
#include "test_log_support.h"

#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/wait.h>

enum { N = 3000 };

typedef enum crash_kind {
	CRASH_SEGV,            /* a write through a wild pointer on the main thread */
	CRASH_ABORT,           /* abort() */
	CRASH_FPE,             /* raise(SIGFPE) from another thread while the main thread logs */
	CRASH_IN_CONSUMER,     /* a callback sink faults on the consumer thread */
	CRASH_CONSUMER_STUCK,  /* a callback sink never returns; the main thread faults */
	CRASH_APP_HANDLER      /* the application had its own SIGSEGV handler first */
} crash_kind;

static const char *kind_names[] = { "segv", "abort", "fpe", "in-consumer", "consumer-stuck", "app-handler" };

/* A volatile pointer: the compiler cannot see (or warn about) where it points. */
static int *volatile wild_pointer = (int *)(uintptr_t)16;

/* Set by the main thread once all N messages are published. */
static sr_atomic_i32 all_logged;
/* Set by the main thread after its first message: its ring (with producer per_thread) exists. */
static sr_atomic_i32 first_logged;

static int
crashing_sink(void *ctx, sr_log_level level, const char *line, size_t len)
{
	(void)ctx;
	(void)level;
	if (len >= 4 && memmem(line, len, "boom", 4) != NULL) {
		/* Crash with the rest of the messages still in the ring, unwritten. */
		while (!sr_atomic_load_acquire_i32(&all_logged))  /* pairs with the main thread's store */
			tl_sleep_ms(1);
		*wild_pointer = 1;                 /* on the consumer thread */
	}
	return 0;
}

static int
stuck_sink(void *ctx, sr_log_level level, const char *line, size_t len)
{
	(void)ctx;
	(void)level;
	if (len >= 5 && memmem(line, len, "stuck", 5) != NULL)
		for (;;)
			pause();                       /* never returns */
	return 0;
}

static void
app_handler(int sig)
{
	(void)sig;
	static const char msg[] = "app handler ran\n";
	(void)!write(3, msg, sizeof msg - 1);
	_exit(42);
}

static void *
fpe_thread(void *arg)
{
	(void)arg;
	/* pairs with the main thread's store-release after its first message */
	while (!sr_atomic_load_acquire_i32(&first_logged))
		tl_sleep_ms(1);
	tl_sleep_ms(2);
	raise(SIGFPE);
	return NULL;
}

/* The child: never returns. */
static void
child(crash_kind kind, const char *path)
{
	alarm(20); /* a handler that hangs must not hang the test */
	/* ASan prints its own report of the fault on stderr: keep the test output clean. */
	int devnull = open("/dev/null", O_WRONLY);
	dup2(devnull, 2);
	if (kind == CRASH_APP_HANDLER) {
		signal(SIGSEGV, app_handler);
	}
	sr_log_config c;
	sr_log_config_default(&c);
	c.ignore_environment = true;
	/*
	 * Records of ~100 bytes span two 64-byte slots; 8192 slots hold all N, so
	 * that a consumer stuck in a sink does not block the main thread (block
	 * policy) before it crashes.  The ring still wraps in the other runs.
	 * Each thread's own ring (the default), or one shared ring where this
	 * file is built as test_log_crash_shared.
	 */
	c.ring_slots = 8192;
	c.thread_ring_slots = 8192;
#ifdef TL_PRODUCER_SHARED
	c.producer = SR_LOG_PRODUCER_SHARED;
#endif
	c.slot_size = 64;
	c.layout = SR_LOG_LAYOUT_MESSAGE;
	sr_sink_config sinks[2];
	int n = 0;
	if (kind == CRASH_IN_CONSUMER)
		sinks[n++] = sr_sink_callback(crashing_sink, NULL);
	if (kind == CRASH_CONSUMER_STUCK)
		sinks[n++] = sr_sink_callback(stuck_sink, NULL);
	sinks[n++] = sr_sink_file(path);
	c.sinks = sinks;
	c.sink_count = n;
	c.crash_handler = true;
	sr_error err;
	sr_log *log = sr_log_open(&c, &err);
	if (log == NULL)
		_exit(99);
	sr_category *cat = sr_log_category(log, "crash");
	pthread_t t;
	if (kind == CRASH_FPE)
		pthread_create(&t, NULL, fpe_thread, NULL);
	for (int i = 0; i < N; i++) {
		SR_INFO(cat, "message %d of %s %.*s", i, "the run", i % 50, "..................................................");
		if (i == 0)
			sr_atomic_store_release_i32(&first_logged, 1);  /* pairs with fpe_thread's load-acquire */
		if (kind == CRASH_IN_CONSUMER && i == N / 2)
			SR_INFO(cat, "boom");
		if (kind == CRASH_CONSUMER_STUCK && i == N / 3)
			SR_INFO(cat, "stuck");
	}
	/* pairs with the load-acquire in crashing_sink */
	sr_atomic_store_release_i32(&all_logged, 1);
	switch (kind) {
	case CRASH_ABORT:
		abort();
	case CRASH_IN_CONSUMER:
	case CRASH_FPE:
		for (;;)
			pause();              /* the other thread's crash ends us */
	default:
		*wild_pointer = 1;
		break;
	}
	_exit(98);
}

/* Forks and runs the child; its wait status, and its log file's text (malloc'd; the file is removed). */
static char *
run_child(crash_kind kind, int *status)
{
	char path[64], marker[64];
	tl_temp_path(path, sizeof path, "crash");
	tl_temp_path(marker, sizeof marker, "crashmark");
	fflush(NULL);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		int fd = open(marker, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 3);
		child(kind, path);
	}
	cr_assert_eq(waitpid(pid, status, 0), pid);
	char *text = tl_read_file(path, NULL);
	unlink(path);
	char *mark = tl_read_file(marker, NULL);
	if (kind == CRASH_APP_HANDLER)
		cr_expect(mark != NULL && strcmp(mark, "app handler ran\n") == 0, "the application's handler ran");
	free(mark);
	unlink(marker);
	return text;
}

/* Every message 0..N-1 exactly once, in order. */
static void
check_all_messages(const char *text, crash_kind kind)
{
	cr_assert_not_null(text);
	int next = 0;
	for (const char *line = text; *line != '\0';) {
		const char *end = strchr(line, '\n');
		cr_assert_not_null(end, "%s: the last line is cut", kind_names[kind]);
		int i;
		if (sscanf(line, "message %d of the run", &i) == 1) {
			cr_assert_eq(i, next, "%s: message %d where %d was due", kind_names[kind], i, next);
			char want[160];
			snprintf(want, sizeof want, "message %d of the run %.*s", i, i % 50,
			    "..................................................");
			cr_assert(strlen(want) == (size_t)(end - line) && strncmp(line, want, (size_t)(end - line)) == 0,
			    "%s: %.*s", kind_names[kind], (int)(end - line), line);
			next++;
		}
		line = end + 1;
	}
	cr_expect_eq(next, N, "%s: %d of %d messages in the file", kind_names[kind], next, N);
}

static void
expect_died_of(int status, int sig, crash_kind kind)
{
#if defined(__SANITIZE_ADDRESS__)
	/* ASan's own SEGV and FPE handlers (which we chain to) report and exit(1). */
	if (sig == SIGSEGV || sig == SIGFPE || sig == SIGBUS) {
		cr_expect((WIFSIGNALED(status) && WTERMSIG(status) == sig) || (WIFEXITED(status) && WEXITSTATUS(status) != 0),
		    "%s: status 0x%x", kind_names[kind], status);
		return;
	}
#endif
	cr_expect(WIFSIGNALED(status) && WTERMSIG(status) == sig, "%s: status 0x%x (exited %d, signal %d)",
	    kind_names[kind], status, WIFEXITED(status) ? WEXITSTATUS(status) : -1,
	    WIFSIGNALED(status) ? WTERMSIG(status) : -1);
}

/* The child of `kind` wrote every message, then died of sig; `also` (if not NULL) is in the file too. */
static void
expect_flushed_then_died_of(crash_kind kind, int sig, const char *also)
{
	int status;
	char *text = run_child(kind, &status);
	expect_died_of(status, sig, kind);
	check_all_messages(text, kind);
	if (also != NULL)
		cr_expect(strstr(text, also) != NULL, "%s: the file also holds \"%s\"", kind_names[kind], also);
	free(text);
}

Test(log_crash, wild_write_flushes_everything_then_dies_of_sigsegv, .timeout = 30)
{
	expect_flushed_then_died_of(CRASH_SEGV, SIGSEGV, NULL);
}

Test(log_crash, abort_flushes_everything_then_dies_of_sigabrt, .timeout = 30)
{
	expect_flushed_then_died_of(CRASH_ABORT, SIGABRT, NULL);
}

Test(log_crash, a_signal_from_another_thread, .timeout = 30)
{
	int status;
	char *text = run_child(CRASH_FPE, &status);
	expect_died_of(status, SIGFPE, CRASH_FPE);
	/* The main thread was still logging: what was published is there, in order, once. */
	cr_assert_not_null(text);
	int next = 0, i;
	for (const char *line = text; sscanf(line, "message %d of the run", &i) == 1;) {
		cr_assert_eq(i, next);
		next++;
		line = strchr(line, '\n') + 1;
	}
	cr_expect_gt(next, 0);
	free(text);
}

/* With the record being written when it crashed ("boom"). */
Test(log_crash, a_crash_on_the_consumer_thread, .timeout = 30)
{
	expect_flushed_then_died_of(CRASH_IN_CONSUMER, SIGSEGV, "\nboom\n");
}

Test(log_crash, a_consumer_stuck_in_a_sink, .timeout = 30)
{
	expect_flushed_then_died_of(CRASH_CONSUMER_STUCK, SIGSEGV, NULL);
}

Test(log_crash, the_applications_handler_still_runs, .timeout = 30)
{
	int status;
	char *text = run_child(CRASH_APP_HANDLER, &status);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 42, "status 0x%x", status);
	check_all_messages(text, CRASH_APP_HANDLER);
	free(text);
}

static void
dummy_handler(int sig)
{
	(void)sig;
}

Test(log_crash, handlers_are_restored_and_later_ones_left_alone)
{
	struct sigaction before, now;
	sigaction(SIGBUS, NULL, &before);
	sr_sink_config s = sr_sink_null();
	sr_log_config c;
	tl_config_sink(&c, &s);
	c.ignore_environment = true;
	c.ring_slots = 64;
	sr_log *a = sr_log_open(&c, NULL);
	sr_log *b = sr_log_open(&c, NULL);
	cr_assert(a != NULL && b != NULL);
	sr_error err;
	cr_assert_eq(sr_log_install_crash_handler(a, &err), SR_OK, "%s", err.message);
	cr_assert_eq(sr_log_install_crash_handler(a, &err), SR_OK, "installing twice is harmless");
	cr_assert_eq(sr_log_install_crash_handler(b, &err), SR_OK);
	sigaction(SIGBUS, NULL, &now);
	cr_expect((now.sa_flags & SA_SIGINFO) && now.sa_sigaction != before.sa_sigaction, "ours is installed");
	sr_log_close(&a);
	sigaction(SIGBUS, NULL, &now);
	cr_expect((now.sa_flags & SA_SIGINFO) && now.sa_sigaction != before.sa_sigaction, "still ours: b uses it");
	sr_log_close(&b);
	sigaction(SIGBUS, NULL, &now);
	/* (The kernel reports SA_RESTORER, which glibc adds, so compare the handler and SA_SIGINFO.) */
	cr_expect(now.sa_handler == before.sa_handler && (now.sa_flags & SA_SIGINFO) == (before.sa_flags & SA_SIGINFO),
	    "restored on the last close");
	/* A handler the application sets after ours is not touched on close. */
	a = sr_log_open(&c, NULL);
	cr_assert_eq(sr_log_install_crash_handler(a, &err), SR_OK);
	signal(SIGILL, dummy_handler);
	sr_log_close(&a);
	sigaction(SIGILL, NULL, &now);
	cr_expect(now.sa_handler == dummy_handler, "the application's later handler stays");
	signal(SIGILL, SIG_DFL);
	/* Not in the other modes. */
	c.mode = SR_LOG_MODE_SYNC;
	a = tl_open(&c);
	cr_expect_eq(sr_log_install_crash_handler(a, &err), SR_EINVAL);
	cr_expect_str_eq(err.message, "the crash handler needs mode ring (this logger's is sync)");
	sr_log_close(&a);
	c.crash_handler = true;
	cr_expect_null(sr_log_open(&c, &err));
	cr_expect_str_eq(err.message, "config.crash_handler needs mode ring (mode is sync): the other modes write "
	    "as they go");
	cr_expect_eq(sr_log_install_crash_handler(NULL, &err), SR_EINVAL);
}
