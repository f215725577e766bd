// SPDX-License-Identifier: Apache-2.0
// caller_quill: perf/caller's method (see harness.h) for Quill (header-only, v12.1.0).
#include "quill/Backend.h"
#include "quill/Frontend.h"
#include "quill/LogMacros.h"
#include "quill/Logger.h"
#include "quill/sinks/FileSink.h"

#include <string>

#define LOGGER_NAME "quill"
#define LOGGER_DESC "LOG_INFO(logger, \"x={} y={} s={}\", i, i * 0.5, s)"
#define COUNTED_CALLS counted_calls_quill
#define COUNTED_NAME "counted_calls_quill"
#define EXTRA_FLAG "--backend-sleep-ns"
#define EXTRA_DEFAULT -1
#define EXTRA_USAGE "[--backend-sleep-ns N (default: Quill's BackendOptions default)]"
#include "harness.h"

static quill::Logger* g_logger;

static inline void log_call()
{
  int i = g_value++;
  LOG_INFO(g_logger, "x={} y={} s={}", i, i * 0.5, call_s);
}

/* flush_log() enqueues a flush event and blocks until the backend has processed it
 * (every earlier record formatted and handed to the sink, the sink flushed). */
static void drain() { g_logger->flush_log(); }

int main(int argc, char** argv)
{
  options o = parse(argc, argv);
  const long long sleep_ns = o.extra;
  quill::BackendOptions bo; /* defaults */
  if (sleep_ns >= 0)
    bo.sleep_duration = std::chrono::nanoseconds{sleep_ns};
  quill::Backend::start(bo);
  auto sink = quill::Frontend::create_or_get_sink<quill::FileSink>("/dev/null");
  g_logger = quill::Frontend::create_or_get_logger("root", std::move(sink));
  quill::Frontend::preallocate();
  std::string desc = "Quill backend thread, default BackendOptions (sleep_duration " +
    std::to_string((long long)bo.sleep_duration.count()) + " ns when idle, yield_when_idle " +
    (bo.enable_yield_when_idle ? "on" : "off") +
    "), default FrontendOptions (UnboundedBlocking, 128 KiB), FileSink(\"/dev/null\"), default pattern";
  int rc = bench_main(o, desc.c_str());
  g_logger->flush_log();
  quill::Backend::stop();
  return rc;
}
