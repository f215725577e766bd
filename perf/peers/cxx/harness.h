// SPDX-License-Identifier: Apache-2.0
// harness.h: the method of perf/logger/caller.c (time_row, timer_read,
// drain, percentiles, median over runs), for a C++ logger given as three functions
// the including file defines after including this header (macros before it):
//   static void log_call();            one INFO call "x={} y={} s={}", i, i*0.5, call_string
//   static void drain();               untimed: wait until the consumer handled every call so far
//   extern "C" void counted_calls_NAME(int64_t n);  n log_call()s, asm barrier after each
// and LOGGER_NAME ("quill"/"fmtlog"), LOGGER_DESC, COUNTED_CALLS (the function's name, which
// this header defines), and the logger's one flag of its own: EXTRA_FLAG ("--poll-ns"), its
// EXTRA_DEFAULT and EXTRA_USAGE (its value in options::extra).
#pragma once
#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

#include "bench_stats.h"

static const char call_string[] = "0123456789abcdef"; /* 16 bytes, as caller.c */
#ifdef SR_PEERS_OPAQUE_STRING
/* Read through a volatile pointer: the compiler cannot measure the string at compile time. */
static const char* volatile call_s_opaque = call_string;
#define call_s ((const char*)call_s_opaque)
#else
static const char* const call_s = call_string; /* passed as const char* */
#endif
static int g_value;                                   /* i, incremented per call (caller.c: h->value++) */
static inline void log_call();
static void drain();
extern "C" void COUNTED_CALLS(int64_t n);

/* lfence; rdtsc; lfence, as sr_tsc_read_fenced (base/sr_time.h). */
static inline uint64_t timer_read()
{
  uint32_t lo, hi;
  __asm__ __volatile__("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) : : "memory");
  return ((uint64_t)hi << 32) | lo;
}

static int64_t mono_ns()
{
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* sr_tsc_sample_clock: the tightest of 5 brackets (TSC mid-point, clock inside). */
static void sample_clock(int64_t* tsc, int64_t* ns)
{
  int64_t best = INT64_MAX;
  for (int i = 0; i < 5; i++)
  {
    int64_t before = (int64_t)timer_read();
    int64_t t = mono_ns();
    int64_t after = (int64_t)timer_read();
    if (after - before < best)
    {
      best = after - before;
      *tsc = before + (after - before) / 2;
      *ns = t;
    }
  }
}

/* sr_tsc_calibrate(200 ms): ticks per ns against CLOCK_MONOTONIC. */
static double ticks_per_ns()
{
  int64_t t0, n0, t1, n1;
  sample_clock(&t0, &n0);
  for (;;)
  {
    int64_t left = n0 + 200000000 - mono_ns();
    if (left <= 0)
      break;
    timespec ts{(time_t)(left / 1000000000), (long)(left % 1000000000)};
    nanosleep(&ts, nullptr);
  }
  sample_clock(&t1, &n1);
  double rate = (double)(t1 - t0) / (double)(n1 - n0);
  if (!(rate > 0.01 && rate < 100))
  {
    fprintf(stderr, "TSC calibration gave %.4g ticks per ns\n", rate);
    exit(1);
  }
  return rate;
}

/* perf/common's nearest-rank percentile and median, as perf/caller reports them. */
static int64_t percentile(std::vector<int64_t> const& s, double p)
{
  return bench_percentile(s.data(), s.size(), p);
}

static double median(std::vector<double> v)
{
  return bench_median(v.data(), (int)v.size());
}

/* n log_call()s, nothing else: what callgrind counts per call is the call and the loop's 3. */
extern "C" __attribute__((noinline)) void COUNTED_CALLS(int64_t n)
{
  for (int64_t i = 0; i < n; i++)
  {
    log_call();
    __asm__ volatile("" ::: "memory");
  }
}

/* The empty loop: what counted_calls_* costs without the calls. */
extern "C" __attribute__((noinline)) void counted_calls_loop(int64_t n)
{
  for (int64_t i = 0; i < n; i++)
    __asm__ volatile("" ::: "memory");
}

struct options
{
  int64_t calls = 200000, burst = 1000, count = -1;
  long long extra = EXTRA_DEFAULT; /* EXTRA_FLAG's value */
  int runs = 5;
  bool count_loop = false;
};

/* caller.c time_row: each call timed alone, bursts of o.burst, untimed drain between bursts. */
static void time_row(bool empty, options const& o, std::vector<int64_t>& samples)
{
  for (int64_t done = 0; done < o.calls;)
  {
    int64_t n = o.calls - done < o.burst ? o.calls - done : o.burst;
    for (int64_t i = 0; i < n; i++)
    {
      uint64_t t0 = timer_read();
      if (!empty)
        log_call();
      uint64_t t1 = timer_read();
      samples[done + i] = (int64_t)(t1 - t0);
    }
    done += n;
    if (!empty)
      drain();
  }
}

static int64_t parse_i64(char const* flag, char const* v)
{
  char* end;
  long long x = strtoll(v ? v : "", &end, 10);
  if (v == nullptr || *end != '\0' || x < 1)
  {
    fprintf(stderr, "%s: expected a positive integer\n", flag);
    exit(2);
  }
  return x;
}

/* Parses the common flags and the logger's own (EXTRA_FLAG). */
static options parse(int argc, char** argv)
{
  options o;
  for (int a = 1; a < argc; a++)
  {
    char const* f = argv[a];
    char const* v = a + 1 < argc ? argv[a + 1] : nullptr;
    if (!strcmp(f, "--calls"))
      o.calls = parse_i64(f, v), a++;
    else if (!strcmp(f, "--burst"))
      o.burst = parse_i64(f, v), a++;
    else if (!strcmp(f, "--runs"))
      o.runs = (int)parse_i64(f, v), a++;
    else if (!strcmp(f, "--count"))
      o.count = parse_i64(f, v), a++;
    else if (!strcmp(f, "--count-loop"))
      o.count = parse_i64(f, v), o.count_loop = true, a++;
    else if (!strcmp(f, EXTRA_FLAG) && v != nullptr)
      o.extra = atoll(v), a++;
    else
    {
      fprintf(stderr,
              "usage: %s [--calls N] [--burst N] [--runs N] | --count N | --count-loop N  %s\n",
              argv[0], EXTRA_USAGE);
      exit(2);
    }
  }
  return o;
}

/* --count: n calls in bursts of o.burst through COUNTED_CALLS (or the empty loop), drained
 * between bursts outside the counted function; for callgrind --toggle-collect='counted_calls_*'. */
static int count_mode(options const& o)
{
  log_call(); /* first call (registration, allocation) outside the counted function */
  drain();
  for (int64_t done = 0; done < o.count;)
  {
    int64_t n = o.count - done < o.burst ? o.count - done : o.burst;
    if (o.count_loop)
      counted_calls_loop(n);
    else
      COUNTED_CALLS(n);
    done += n;
    drain();
  }
  printf("%s: %" PRId64 " %s in bursts of %" PRId64 "\n", LOGGER_NAME, o.count,
         o.count_loop ? "empty iterations (counted_calls_loop)" : "calls (" COUNTED_NAME ")", o.burst);
  return 0;
}

static int bench_main(options const& o, char const* consumer_desc)
{
  if (o.count > 0)
    return count_mode(o);
  double tpn = ticks_per_ns();
  std::vector<int64_t> samples((size_t)o.calls);
  /* warm-up round, not recorded */
  time_row(true, o, samples);
  time_row(false, o, samples);
  std::vector<double> p50[2], p99[2], p999[2], mean[2];
  for (int run = 0; run < o.runs; run++)
  {
    for (int r = 0; r < 2; r++)
    {
      time_row(r == 0, o, samples);
      double sum = 0;
      for (int64_t s : samples)
        sum += (double)s;
      mean[r].push_back(sum / (double)o.calls / tpn);
      std::sort(samples.begin(), samples.end());
      p50[r].push_back((double)percentile(samples, 50.0) / tpn);
      p99[r].push_back((double)percentile(samples, 99.0) / tpn);
      p999[r].push_back((double)percentile(samples, 99.9) / tpn);
    }
  }
  printf("## Caller cost per call (%s)\n\n", LOGGER_NAME);
  printf("- Each call timed alone with the TSC (%.3f ticks/ns, lfence;rdtsc;lfence), %" PRId64
         " calls per row per run in bursts of %" PRId64
         " with an untimed drain between bursts; %d interleaved run(s), median of the runs' "
         "percentiles. Call: %s. Consumer: %s.\n\n",
         tpn, o.calls, o.burst, o.runs, LOGGER_DESC, consumer_desc);
  printf("| mode | p50 ns | p99 ns | p99.9 ns | mean ns |\n|---|---:|---:|---:|---:|\n");
  char const* names[2] = {"empty", LOGGER_NAME};
  for (int r = 0; r < 2; r++)
    printf("| %s | %.1f | %.1f | %.1f | %.1f |\n", names[r], median(p50[r]), median(p99[r]),
           median(p999[r]), median(mean[r]));
  return 0;
}
