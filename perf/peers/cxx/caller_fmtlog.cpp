// SPDX-License-Identifier: Apache-2.0
// caller_fmtlog: perf/caller's method (see harness.h) for fmtlog (HEAD 308b231, fmt 11.1.3).
#include "fmtlog.h"

#include <atomic>
#include <sched.h>
#include <string>

#define LOGGER_NAME "fmtlog"
#define LOGGER_DESC "logi(\"x={} y={} s={}\", i, i * 0.5, s)"
#define COUNTED_CALLS counted_calls_fmtlog
#define COUNTED_NAME "counted_calls_fmtlog"
#define EXTRA_FLAG "--poll-ns"
#define EXTRA_DEFAULT 0
#define EXTRA_USAGE "[--poll-ns N (startPollingThread interval; default 0: busy poll)]"
#include "harness.h"

static inline void log_call()
{
  int i = g_value++;
  logi("x={} y={} s={}", i, i * 0.5, call_s);
}

/* Records the polling thread has formatted, counted by a log callback (setLogCB) that the
 * polling thread calls for each record after formatting it into its write buffer. */
static std::atomic<int64_t> g_handled{0};
static void on_log(int64_t, fmtlog::LogLevel, fmt::string_view, size_t, fmt::string_view,
                   fmt::string_view, size_t, size_t)
{
  g_handled.store(g_handled.load(std::memory_order_relaxed) + 1, std::memory_order_release);
}

/* fmtlog has no flush-and-wait and forbids calling poll() while the polling thread runs:
 * wait (sched_yield) until the callback has seen every call made so far. */
static void drain()
{
  while (g_handled.load(std::memory_order_acquire) < (int64_t)g_value)
    sched_yield();
}

int main(int argc, char** argv)
{
  options o = parse(argc, argv);
  const long long poll_ns = o.extra;
  fmtlog::setLogFile("/dev/null");
  fmtlog::setLogCB(on_log, fmtlog::INF);
  fmtlog::preallocate();
  fmtlog::startPollingThread(poll_ns);
  std::string desc = "fmtlog polling thread, startPollingThread(" + std::to_string(poll_ns) +
    " ns)" + (poll_ns == 0 ? " (busy poll, never sleeps)" : "") +
    ", setLogFile(\"/dev/null\") (fmtlog's default 1 MiB queue, 8 KiB write buffer, default header)"
    ", setLogCB counter for the drain";
  int rc = bench_main(o, desc.c_str());
  fmtlog::stopPollingThread();
  return rc;
}
