/* SPDX-License-Identifier: Apache-2.0 */
/*
 * stress_log_ops.c: the logger's operational features under concurrency.
 *
 * A plain program (Criterion cannot run under ThreadSanitizer), bounded by
 * an alarm, exit status 0 on success.  Four scenarios, each counting every
 * message:
 *   1. tsc clock in the queue mode: callers convert timestamps (reading the
 *      calibration's sequence lock) while the drainer refreshes it, across
 *      the refreshes at 50 ms, 250 ms and 1.25 s; every message once, each
 *      thread's timestamps never going backwards, all within 1 ms of
 *      CLOCK_REALTIME readings around the call;
 *   2. the same in ring mode with policy sync and a tiny shared ring, so
 *      that callers and the consumer both convert and write (checked: some
 *      callers wrote);
 *   3. a rotating file sink written by the consumer and, under policy sync
 *      with small rings per thread, by callers at once (checked: some
 *      callers wrote): every line in the files exactly once, none split;
 *   4. level spec reloads and sr_log_describe from one thread while others
 *      log, with a backtrace: the messages at warn and above (never
 *      filtered by any of the specs) all arrive, once.
 */
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log_support.h"
#include "scenarios.h"
#include "stress_args.h"
#include <seqring/sr_log.h>

#if defined(__SANITIZE_THREAD__)
enum { THREADS = 3, EACH = 1500 };
#else
enum { THREADS = 4, EACH = 6000 };
#endif


/* ---------------------------------------------------------------------------------------- */
/* 1, 2: the tsc clock                                                                      */

typedef struct clock_seen {
	pthread_mutex_t lock;     /* the sink is called by the consumer and (policy sync) callers */
	unsigned char count[THREADS][EACH];
	int64_t ts[THREADS][EACH];
	long bad;
} clock_seen;

static clock_seen cs;

/*
 * Policy sync: the logger whose sink's first line waits until a caller
 * writes a line itself (then NULL).  Its consumer, held there, drains
 * nothing, so the writers' first bursts overfill the ring and a caller
 * surely finds it full, however the scheduler spreads their bursts.
 */
static _Atomic(sr_log *) hold_first_line;

/* Waits up to 10 s until a line reached log's sink without its consumer, which counts its own at the batch end. */
static void
await_a_callers_line(sr_log *log)
{
	int64_t deadline = sc_now() + 10 * SC_S;
	sr_log_counters st;
	while (sr_log_stats(log, &st) == SR_OK && st.sinks[0].messages == 0 && sc_now() < deadline)
		sc_sleep_ns(100 * 1000);
}

static int
clock_sink(void *ctx, sr_log_level level, const char *line, size_t len)
{
	(void)ctx;
	(void)level;
	sr_log *held = atomic_exchange(&hold_first_line, NULL);
	if (held != NULL)
		await_a_callers_line(held);
	char text[128];
	if (len >= sizeof text) {
		cs.bad++;
		return 0;
	}
	memcpy(text, line, len);
	text[len] = '\0';
	long long sec;
	long nsec;
	int t, n;
	pthread_mutex_lock(&cs.lock);
	if (sscanf(text, "%lld.%9ld t%d %d", &sec, &nsec, &t, &n) == 4 && t >= 0 && t < THREADS && n >= 0 && n < EACH) {
		cs.count[t][n]++;
		cs.ts[t][n] = (int64_t)sec * 1000000000 + nsec;
	} else {
		cs.bad++;
	}
	pthread_mutex_unlock(&cs.lock);
	return 0;
}

typedef struct clock_arg {
	sr_category *cat;
	int t;
	int64_t before[EACH], after[EACH];
} clock_arg;

static void *
clock_writer(void *p)
{
	clock_arg *a = p;
	for (int n = 0; n < EACH; n++) {
		a->before[n] = sc_realtime_ns();
		SR_INFO(a->cat, "t%d %d", a->t, n);
		a->after[n] = sc_realtime_ns();
		if (n % 16 == 0)
			sc_sleep_ns(3 * SC_MS); /* spread the run over ~1.3 s: crosses three refreshes */
	}
	return NULL;
}

/* slots: the queue's capacity, or the shared ring's in mode ring. */
static void
clock_scenario(sr_log_mode mode, sr_log_full_policy policy, int64_t slots)
{
	memset(cs.count, 0, sizeof cs.count);
	cs.bad = 0;
	sr_sink_config s = sr_sink_callback(clock_sink, NULL);
	sr_log_config c;
	/*
	 * The shared ring: the threads' bursts of 16 records together fill its
	 * 16 slots.  A thread's own ring is at least max_message_bytes (1 KiB):
	 * it holds a whole burst, which the consumer drains in the 3 ms between.
	 */
	tl_configure(&c, &s, (tl_settings){ .ignore_environment = true, .mode = mode, .full_policy = policy,
	    .shared_ring = true, .ring_slots = slots, .max_message_bytes = 1024, .layout = SR_LOG_LAYOUT_PATTERN,
	    .wait_strategy = "timeout:timeout=2ms" });
	c.clock = SR_LOG_CLOCK_TSC;
	c.pattern = "%d{%s.%9f} %m";
	sr_error err;
	sr_log *log = sr_log_open(&c, &err);
	if (log == NULL) {
		/* No invariant TSC here: nothing to stress. */
		SC_EXPECT(strstr(err.message, "clock tsc is unavailable") != NULL, "%s", err.message);
		return;
	}
	if (policy == SR_LOG_FULL_SYNC)
		atomic_store(&hold_first_line, log);
	static clock_arg args[THREADS];
	pthread_t th[THREADS];
	for (int t = 0; t < THREADS; t++) {
		args[t].cat = sr_log_root(log);
		args[t].t = t;
		pthread_create(&th[t], NULL, clock_writer, &args[t]);
	}
	for (int t = 0; t < THREADS; t++)
		pthread_join(th[t], NULL);
	sr_log_counters st = tl_flush_stats_close(&log);
	SC_EXPECT(cs.bad == 0, "%ld bad lines", cs.bad);
	if (policy == SR_LOG_FULL_SYNC)
		SC_EXPECT(st.written_by_caller > 0, "mode %d: no caller found its ring full and wrote", (int)mode);
	int64_t worst = 0;
	for (int t = 0; t < THREADS; t++) {
		int64_t prev = INT64_MIN;
		for (int n = 0; n < EACH; n++) {
			SC_EXPECT(cs.count[t][n] == 1, "mode %d: thread %d message %d seen %d times", (int)mode, t, n,
			    cs.count[t][n]);
			int64_t ts = cs.ts[t][n];
			SC_EXPECT(ts >= prev, "mode %d: thread %d message %d went back %" PRId64 " ns", (int)mode, t, n, prev - ts);
			prev = ts;
			int64_t off = ts < args[t].before[n] ? args[t].before[n] - ts : ts > args[t].after[n] ?
			    ts - args[t].after[n] : 0;
			if (off > worst)
				worst = off;
		}
	}
	SC_EXPECT(worst <= 1000000, "mode %d: a tsc timestamp is %" PRId64 " ns off CLOCK_REALTIME", (int)mode, worst);
	printf("stress_log_ops: tsc mode %s policy %s: worst offset %" PRId64 " ns, %" PRIu64 " written by callers\n",
	    sr_log_mode_name(mode), sr_log_full_policy_name(policy), worst, st.written_by_caller);
}

/* ---------------------------------------------------------------------------------------- */
/* 3: rotation with the consumer and callers writing                                        */

typedef struct rot_arg {
	sr_category *cat;
	int t;
} rot_arg;

static void *
rot_writer(void *p)
{
	rot_arg *a = p;
	for (int n = 0; n < EACH; n++)
		SR_INFO(a->cat, "t%d %d %.*s", a->t, n, n % 60, "------------------------------------------------------------");
	return NULL;
}

static void
rotation_scenario(void)
{
	char base[64];
	snprintf(base, sizeof base, "/tmp/seqring_stress_rot_%d", (int)getpid());
	sr_sink_config s = sr_sink_rotating(base, 16384, 1000);
	sr_log_config c;
	/* Rings of 8 KiB per thread, which the writers fill: then they write themselves. */
	tl_configure(&c, &s, (tl_settings){ .ignore_environment = true, .ring_slots = 64, .thread_ring_slots = 64,
	    .full_policy = SR_LOG_FULL_SYNC, .layout = SR_LOG_LAYOUT_MESSAGE,
	    .wait_strategy = "timeout:timeout=2ms" });
	sr_error err;
	sr_log *log = sr_log_open(&c, &err);
	SC_EXPECT(log != NULL, "%s", err.message);
	if (log == NULL)
		return;
	rot_arg args[THREADS];
	pthread_t th[THREADS];
	for (int t = 0; t < THREADS; t++) {
		args[t] = (rot_arg){ sr_log_root(log), t };
		pthread_create(&th[t], NULL, rot_writer, &args[t]);
	}
	for (int t = 0; t < THREADS; t++)
		pthread_join(th[t], NULL);
	sr_log_counters st = tl_flush_stats_close(&log);
	static unsigned char seen[THREADS][EACH];
	memset(seen, 0, sizeof seen);
	long lines = 0, bad = 0;
	for (int k = 0; k <= 1000; k++) {
		char path[96];
		FILE *f = fopen(tl_rotated_path(path, sizeof path, base, k), "r");
		if (f == NULL)
			continue;
		char line[256];
		long bytes = 0, in_file = 0;
		while (fgets(line, sizeof line, f) != NULL) {
			size_t l = strlen(line);
			bytes += (long)l;
			int t, n;
			if (l == 0 || line[l - 1] != '\n' || sscanf(line, "t%d %d", &t, &n) != 2 || t < 0 || t >= THREADS ||
			    n < 0 || n >= EACH) {
				bad++;
				continue;
			}
			seen[t][n]++;
			lines++;
			in_file++;
		}
		fclose(f);
		SC_EXPECT(bytes <= 16384 || in_file == 1, "%s has %ld bytes", path, bytes);
		unlink(path);
	}
	SC_EXPECT(bad == 0, "%ld bad lines", bad);
	SC_EXPECT(lines == (long)THREADS * EACH, "%ld lines in the files, %ld logged", lines, (long)THREADS * EACH);
	for (int t = 0; t < THREADS; t++)
		for (int n = 0; n < EACH; n++)
			SC_EXPECT(seen[t][n] == 1, "rotation: thread %d line %d seen %d times", t, n, seen[t][n]);
	SC_EXPECT(st.sinks[0].rotations > 5, "only %" PRIu64 " rotations", st.sinks[0].rotations);
	SC_EXPECT(st.written_by_caller > 0, "rotation: no caller found its ring full and wrote");
	printf("stress_log_ops: rotation: %ld lines over %" PRIu64 " rotations, %" PRIu64 " written by callers\n",
	    lines, st.sinks[0].rotations, st.written_by_caller);
}

/* ---------------------------------------------------------------------------------------- */
/* 4: reloads, describe and a backtrace while logging                                       */

static sr_atomic_i32 warn_seen[THREADS][EACH];
static sr_atomic_i32 stop_reloading;

static int
count_sink(void *ctx, sr_log_level level, const char *line, size_t len)
{
	(void)ctx;
	char text[128];
	if (level < SR_LOG_WARN || len >= sizeof text)
		return 0;
	memcpy(text, line, len);
	text[len] = '\0';
	int t, n;
	if (sscanf(text, "w%d %d", &t, &n) == 2 && t >= 0 && t < THREADS && n >= 0 && n < EACH)
		sr_atomic_faa_i32(&warn_seen[t][n], 1);
	return 0;
}

typedef struct reload_arg {
	sr_log *log;
	int t;
} reload_arg;

static void *
reload_writer(void *p)
{
	reload_arg *a = p;
	sr_category *cat = sr_log_category(a->log, a->t % 2 ? "net.http" : "db.pool");
	for (int n = 0; n < EACH; n++) {
		SR_DEBUG(cat, "d%d %d", a->t, n);
		SR_INFO(cat, "i%d %d", a->t, n);
		SR_WARN(cat, "w%d %d", a->t, n);
	}
	return NULL;
}

static void *
reloader(void *p)
{
	sr_log *log = p;
	static const char *const specs[] = { "warn", "info,net=debug", "error,db=warn,net.http=warn", "trace", "warn,db.pool=info" };
	FILE *devnull = fopen("/dev/null", "w");
	int i = 0;
	/* pairs with the store-release in reload_scenario */
	while (!sr_atomic_load_acquire_i32(&stop_reloading)) {
		sr_error err;
		int rc = sr_log_set_level_spec(log, specs[i++ % 5], &err);
		SC_EXPECT(rc == SR_OK, "%s", err.message);
		if (devnull != NULL && i % 8 == 0)
			sr_log_describe(log, devnull);
		sr_log_category(log, i % 2 ? "extra.a" : "extra.b");
		sc_sleep_ns(200 * 1000);
	}
	if (devnull != NULL)
		fclose(devnull);
	return NULL;
}

static void
reload_scenario(void)
{
	sr_sink_config s = sr_sink_callback(count_sink, NULL);
	sr_log_config c;
	tl_configure(&c, &s, (tl_settings){ .ignore_environment = true, .ring_slots = 1024,
	    .layout = SR_LOG_LAYOUT_MESSAGE });
	c.backtrace_size = 32;
	c.backtrace_trigger = SR_LOG_ERROR;
	sr_error err;
	sr_log *log = sr_log_open(&c, &err);
	SC_EXPECT(log != NULL, "%s", err.message);
	if (log == NULL)
		return;
	pthread_t rt, th[THREADS];
	pthread_create(&rt, NULL, reloader, log);
	reload_arg args[THREADS];
	for (int t = 0; t < THREADS; t++) {
		args[t] = (reload_arg){ log, t };
		pthread_create(&th[t], NULL, reload_writer, &args[t]);
	}
	for (int t = 0; t < THREADS; t++)
		pthread_join(th[t], NULL);
	/* pairs with the load-acquire in reloader */
	sr_atomic_store_release_i32(&stop_reloading, 1);
	pthread_join(rt, NULL);
	sr_log_close(&log);
	for (int t = 0; t < THREADS; t++)
		for (int n = 0; n < EACH; n++)
			SC_EXPECT(sr_atomic_load_relaxed_i32(&warn_seen[t][n]) == 1, "reload: w%d %d seen %d times", t, n,
			    sr_atomic_load_relaxed_i32(&warn_seen[t][n]));
	printf("stress_log_ops: reloads: every warning once\n");
}

int
main(int argc, char **argv)
{
	sa_parse(argc, argv, NULL, 0, NULL); /* no options but --help */
	alarm(120);
	pthread_mutex_init(&cs.lock, NULL);
	clock_scenario(SR_LOG_MODE_QUEUE, SR_LOG_FULL_BLOCK, 256);
	clock_scenario(SR_LOG_MODE_RING, SR_LOG_FULL_SYNC, 16);
	rotation_scenario();
	reload_scenario();
	if (sc_expect_failures() > 0) {
		fprintf(stderr, "stress_log_ops: %d failure(s)\n", sc_expect_failures());
		return 1;
	}
	printf("stress_log_ops: ok\n");
	return 0;
}
