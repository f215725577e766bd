/* SPDX-License-Identifier: Apache-2.0 */
/*
 * stress_log_recover.c: a process logging into a ring directory is killed
 * at a random instant; a new logger opened on the directory writes what
 * the dead one had not, and every message whose call had returned before
 * the kill is in the file exactly once.
 *
 * A plain program.  Each round: a child opens a logger with ring_dir and a
 * file sink and logs numbered messages ("T<t> N<n>.") from THREADS threads,
 * each thread storing in a shared page how many of its calls have
 * returned; the parent kills it after a random 1 to 40 ms (variant kill:
 * SIGKILL; crash: SIGSEGV to a thread of a child with the crash handler
 * installed, then SIGKILL a random 0 to 2 ms later, while the handler may
 * still be writing), reads the counts, then opens a logger on the same
 * directory and the same file and closes it.  The file then holds, for
 * each thread, exactly the messages 0, 1, 2, ... up to at least the
 * returned count, in order, none twice, every line whole; each carries a
 * time from before the kill (its own, not the recovery's); one recovery
 * line says how many records were recovered; the directory holds nothing
 * but its lock.  Variants: kill and crash with producer per_thread, kill
 * with producer shared, and in-write: the child stopped (SIGSTOP) again and
 * again until it is caught inside a write of its file (the ring directory's
 * flag of a write in flight), then killed there: the write's lines are in
 * the file, and the recovery must not write them again.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "log_support.h"
#include "sr_log_ring_dir_internal.h"
#include "stress_args.h"
#include <seqring/sr_log.h>

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define DEFAULT_ROUNDS 4
#else
#define DEFAULT_ROUNDS 12
#endif
enum { THREADS = 4 };

/* The page the child's threads count their returned calls in. */
typedef struct shared_page {
	_Atomic int64_t returned[THREADS];
	_Atomic int ready;
	_Atomic pid_t tids[THREADS];
} shared_page;

static shared_page *page;
static bool verbose;
static int caught_in_write;
static sr_category *cat;

static void *
logging_thread(void *arg)
{
	int t = (int)(long)arg;
	atomic_store(&page->tids[t], gettid());
	for (int64_t n = 0;; n++) {
		SR_INFO(cat, "T%d N%lld. a message %s %f", t, (long long)n, "of a thread killed with its process",
		    (double)n * 0.5);
		atomic_store_explicit(&page->returned[t], n + 1, memory_order_release);
	}
	return NULL;
}

static const char *const variants[] = { "kill", "crash", "shared", "in-write", "all", NULL };
enum { V_KILL, V_CRASH, V_SHARED, V_IN_WRITE, V_ALL };

/* The logger a round opens (the child's and the recovering one's are the same but for the crash handler). */
static sr_log *
open_logger(const char *dir, const char *file, int variant, bool crash_handler, sr_error *err)
{
	sr_log_config c;
	sr_log_config_default(&c);
	c.ignore_environment = true;
	c.ring_dir = dir;
	static sr_sink_config sink;
	sink = sr_sink_file(file);
	c.sinks = &sink;
	c.sink_count = 1;
	c.producer = variant == V_SHARED ? SR_LOG_PRODUCER_SHARED : SR_LOG_PRODUCER_PER_THREAD;
	c.thread_ring_slots = 4096;
	c.ring_slots = 16384;
	c.crash_handler = crash_handler;
	c.close_at_exit = false;
	return sr_log_open(&c, err);
}

static void __attribute__((noreturn))
child(const char *dir, const char *file, int variant)
{
	sr_error err;
	sr_log *log = open_logger(dir, file, variant, variant == V_CRASH, &err);
	if (log == NULL) {
		fprintf(stderr, "stress_log_recover: child: %s\n", err.message);
		_exit(3);
	}
	cat = sr_log_category_get(log, "kid", &err);
	pthread_t th[THREADS];
	for (long t = 0; t < THREADS; t++)
		pthread_create(&th[t], NULL, logging_thread, (void *)t);
	atomic_store(&page->ready, 1);
	for (;;)
		pause();
}

/* Checks the file; 0 when every returned message is there once, in order, before the kill. */
static int
check(const char *file, const int64_t returned[THREADS], int64_t killed_ns, int round, const char *what)
{
	FILE *f = fopen(file, "r");
	if (f == NULL) {
		fprintf(stderr, "round %d (%s): cannot open %s: %s\n", round, what, file, strerror(errno));
		return 1;
	}
	int64_t next[THREADS] = { 0 };
	int recovery_lines = 0, bad = 0;
	char line[512];
	long lineno = 0;
	while (fgets(line, sizeof line, f) != NULL) {
		lineno++;
		size_t len = strlen(line);
		if (len == 0 || line[len - 1] != '\n') {
			fprintf(stderr, "round %d (%s): line %ld is not whole: \"%.80s\"\n", round, what, lineno, line);
			bad++;
			continue;
		}
		if (strstr(line, " seqring - recovered ") != NULL) {
			recovery_lines++;
			continue;
		}
		const char *m = strstr(line, " kid - T");
		int t;
		long long n;
		if (m == NULL || sscanf(m, " kid - T%d N%lld.", &t, &n) != 2 || t < 0 || t >= THREADS) {
			fprintf(stderr, "round %d (%s): line %ld is not a message: \"%.80s\"\n", round, what, lineno, line);
			bad++;
			continue;
		}
		if (n != next[t]) {
			fprintf(stderr, "round %d (%s): line %ld: thread %d's message %lld where %lld was due (%s)\n", round,
			    what, lineno, t, n, (long long)next[t], n < next[t] ? "written twice" : "one missing");
			bad++;
		}
		if (n >= next[t])
			next[t] = n + 1;
		int64_t at = tl_text_line_time(line);
		/* A recovered line keeps its own time: before the kill (the clocks' conversion: within 2 ms). */
		if (at < 0 || at > killed_ns + 2000000) {
			fprintf(stderr, "round %d (%s): line %ld has a time %.27s after the kill\n", round, what, lineno, line);
			bad++;
		}
		if (bad > 10)
			break;
	}
	fclose(f);
	for (int t = 0; t < THREADS; t++) {
		if (next[t] < returned[t]) {
			fprintf(stderr, "round %d (%s): thread %d: %lld calls returned, the file has %lld of them\n", round,
			    what, t, (long long)returned[t], (long long)next[t]);
			bad++;
		}
	}
	if (recovery_lines != 1) {
		fprintf(stderr, "round %d (%s): %d recovery lines, expected 1\n", round, what, recovery_lines);
		bad++;
	}
	return bad;
}

/* The directory holds its lock and nothing else. */
static int
check_empty(const char *dir, int round, const char *what)
{
	DIR *d = opendir(dir);
	if (d == NULL)
		return 1;
	int bad = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 || strcmp(e->d_name, "lock") == 0)
			continue;
		fprintf(stderr, "round %d (%s): %s/%s is left after recovery\n", round, what, dir, e->d_name);
		bad++;
	}
	closedir(d);
	return bad;
}

/* The meta file's flag of a write in flight (the child's one meta file in dir), or -1. */
static int64_t
write_in_flight(const char *dir)
{
	DIR *d = opendir(dir);
	if (d == NULL)
		return -1;
	int64_t v = -1;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		size_t n = strlen(e->d_name);
		if (n < 5 || strcmp(e->d_name + n - 5, ".meta") != 0)
			continue;
		char path[1024];
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		FILE *f = fopen(path, "r");
		if (f != NULL) {
			if (fseek(f, (long)offsetof(sr_log_ring_meta_head, in_flight), SEEK_SET) != 0 || fread(&v, sizeof v, 1, f) != 1)
				v = -1;
			fclose(f);
		}
	}
	closedir(d);
	return v;
}

/*
 * Stops the child (SIGSTOP) until it is caught between the start and the
 * end of a write of its file (the meta file's flag), at most 2,000 tries;
 * 1 when it was caught.  The kill then comes inside that write.
 */
static int
stop_inside_a_write(const char *dir, pid_t pid, unsigned *seed)
{
	for (int tries = 0; tries < 2000; tries++) {
		int st;
		kill(pid, SIGSTOP);
		waitpid(pid, &st, WUNTRACED);
		if (write_in_flight(dir) == 1)
			return 1;
		kill(pid, SIGCONT);
		usleep(rand_r(seed) % 300);
	}
	return 0;
}

static int
one_round(const char *base, int round, int variant, unsigned *seed)
{
	static const char *const names[] = { "kill", "crash", "shared", "in-write" };
	const char *what = names[variant];
	char dir[512], file[512], cmd[1100];
	snprintf(dir, sizeof dir, "%s/dir", base);
	snprintf(file, sizeof file, "%s/out.log", base);
	snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", dir, file);
	if (system(cmd) != 0)
		return 1;
	memset(page, 0, sizeof *page);
	pid_t pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0)
		child(dir, file, variant);
	while (atomic_load(&page->ready) == 0) {
		int st;
		if (waitpid(pid, &st, WNOHANG) == pid) {
			fprintf(stderr, "round %d (%s): the child ended before it logged (status %d)\n", round, what, st);
			return 1;
		}
		usleep(200);
	}
	usleep(1000 + rand_r(seed) % 40000);
	if (variant == V_CRASH) {
		/* A fatal signal in one of its threads: the crash handler writes what it can; then the kill. */
		pid_t tid = atomic_load(&page->tids[rand_r(seed) % THREADS]);
		syscall(SYS_tgkill, pid, tid, SIGSEGV);
		usleep(rand_r(seed) % 2000);
	}
	if (variant == V_IN_WRITE)
		caught_in_write += stop_inside_a_write(dir, pid, seed);
	int64_t killed_ns = sr_realtime_ns();
	kill(pid, SIGKILL);
	int st;
	waitpid(pid, &st, 0);
	int64_t returned[THREADS];
	for (int t = 0; t < THREADS; t++)
		returned[t] = atomic_load_explicit(&page->returned[t], memory_order_acquire);

	sr_error err;
	sr_log *log = open_logger(dir, file, variant, false, &err);
	if (log == NULL) {
		fprintf(stderr, "round %d (%s): the recovering open failed: %s\n", round, what, err.message);
		return 1;
	}
	sr_log_close(&log);
	int bad = check(file, returned, killed_ns, round, what) + check_empty(dir, round, what);
	if (verbose)
		printf("round %d (%s): %lld calls returned\n", round, what,
		    (long long)(returned[0] + returned[1] + returned[2] + returned[3]));
	return bad;
}

int
main(int argc, char **argv)
{
	int64_t rounds = DEFAULT_ROUNDS;
	int variant = V_ALL;
	const sa_option options[] = {
		{ .name = "rounds", .kind = SA_COUNT, .dest = &rounds, .min = 1, .max = 100000, .value = "N",
		  .help = "kill rounds per variant (default " SA_STRING(DEFAULT_ROUNDS) ")" },
		{ .name = "verbose", .kind = SA_SWITCH, .dest = &verbose, .help = "a line per round" },
		{ .name = "variant", .kind = SA_WORD, .dest = &variant, .words = variants,
		  .help = "kill (SIGKILL), crash (SIGSEGV with the crash handler, then SIGKILL), shared "
		          "(producer shared, SIGKILL), in-write (SIGKILL inside a write of the file), or all (default)" },
	};
	sa_parse(argc, argv, options, sizeof options / sizeof *options, NULL);
	page = mmap(NULL, sizeof *page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		return 1;
	char base[] = "/tmp/stress_log_recover.XXXXXX";
	if (mkdtemp(base) == NULL)
		return 1;
	unsigned seed = (unsigned)time(NULL) ^ (unsigned)getpid();
	int failed = 0, total = 0;
	for (int v = V_KILL; v <= V_IN_WRITE; v++) {
		if (variant != V_ALL && variant != v)
			continue;
		int ok = 0;
		for (int64_t r = 0; r < rounds; r++) {
			total++;
			if (one_round(base, (int)r, v, &seed) == 0)
				ok++;
			else
				failed++;
		}
		printf("stress_log_recover: %s: %d of %lld rounds exactly once\n", variants[v], ok, (long long)rounds);
		if (v == V_IN_WRITE)
			printf("stress_log_recover: in-write: %d of %lld kills came inside a write of the file\n",
			    caught_in_write, (long long)rounds);
	}
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
	(void)!system(cmd);
	printf("stress_log_recover: %d of %d rounds failed (seed %u)\n", failed, total, seed);
	return failed == 0 ? 0 : 1;
}
