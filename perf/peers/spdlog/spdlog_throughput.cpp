/* SPDX-License-Identifier: Apache-2.0 */
// spdlog_throughput.cpp: spdlog beside seqring's logger in perf/throughput's
// per-thread throughput table, by the same method:
//
//   - T threads (1, 2, 4, ... 64) each make CALLS / T calls logging one
//     500-character string, SPDLOG_LOGGER_INFO(logger, "{}", msg), so that
//     the pattern's %s:%# get the call's file and line.  All threads start
//     at a gate.
//   - Each mode's logger is made once, on a fresh file under --sink-dir, and
//     warmed up with --warmup messages from the main thread, which are then
//     drained (below).  It stays open for every run; each run truncates its
//     file first (basic_file_sink opens it "ab", so writing restarts at 0).
//   - calls/s: all calls over the call phase, from the first thread's first
//     call to the last thread's last return.
//   - drained/s: lines in the file over the call phase plus the drain.  The
//     drain: a synchronous logger's flush() (fflush); an asynchronous
//     logger's flush request, posted to its thread pool behind every message,
//     then a wait until the pool's queue is empty (its single worker has then
//     taken the flush request, so it has handed every message to the file
//     sink), then the sink's own flush() (fflush, under the sink's mutex).
//   - Modes run interleaved within each run (A B C ... A B C ...); --runs
//     repetitions; median calls/s and drained/s, min and max calls/s.
//   - Checked: the file's lines are counted after every run (outside the
//     timing); block and sync runs must hold every message, overrun_oldest
//     runs every message that the thread pool did not overrun
//     (thread_pool::overrun_counter(), which counts the evicted messages).
//
// Nothing is shared between the worker threads and main except under the
// gate's mutex and through join, plus the atomic error counter.
#include <spdlog/async.h>
#include <spdlog/async_logger.h>
#include <spdlog/details/thread_pool.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/spdlog.h>

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

// perf/common's C helpers (build.sh compiles them with gcc): the same parsing
// of counts, the same rates, progress and results CSV as perf/throughput; and
// seqring's clock.
#include "bench_args.h"
#include "bench_output.h"
#include "bench_stats.h"
#include <seqring/sr_time.h>

namespace {

const char *const PROG = "spdlog_throughput";
constexpr int MAX_THREADS = 1024;
constexpr int MAX_RUNS = 101;
constexpr int64_t MAX_MESSAGE_BYTES = 60000;
constexpr size_t QUEUE_8K = 8192;
constexpr size_t QUEUE_256K = 262144;
// The closest spdlog pattern to seqring's text layout
// "2026-11-30T12:34:56.123456Z INFO  [main] bench - <message> (throughput.c:123)".
// %l is spdlog's level name ("info", lower case); %t the OS thread id (spdlog
// has no thread names).
const char *const PATTERN = "%Y-%m-%dT%H:%M:%S.%fZ %-5l [%t] %n - %v (%s:%#)";
const char *const LOGGER_NAME = "bench";

std::string sample_line;  // the first line of the first checked run, for the Markdown

struct Mode {
    const char *name;
    bool async;
    size_t queue;  // async: the thread pool's queue, in messages
    spdlog::async_overflow_policy policy;
};

const Mode MODES[] = {
    {"spdlog-async-8k-block", true, QUEUE_8K, spdlog::async_overflow_policy::block},
    {"spdlog-async-8k-overrun", true, QUEUE_8K, spdlog::async_overflow_policy::overrun_oldest},
    {"spdlog-async-256k-block", true, QUEUE_256K, spdlog::async_overflow_policy::block},
    {"spdlog-async-256k-overrun", true, QUEUE_256K, spdlog::async_overflow_policy::overrun_oldest},
    {"spdlog-sync", false, 0, spdlog::async_overflow_policy::block},
};
constexpr int MODE_COUNT = sizeof MODES / sizeof MODES[0];

// The CSV's policy column: sync has no queue, hence no full-queue policy (as perf/throughput's sync row).
const char *policy_label(const Mode &m)
{
    if (!m.async)
        return "none";
    return m.policy == spdlog::async_overflow_policy::block ? "block" : "overrun_oldest";
}

struct Options {
    std::vector<int> threads{1, 2, 4, 8, 16, 32, 64};
    std::vector<int> modes;  // indexes into MODES, in run order
    int64_t calls = 256 * 1024;
    int64_t message_bytes = 500;
    int64_t warmup = 200000;
    int runs = 5;
    std::string sink_dir = "/tmp";
    std::string out = "perf/results/spdlog_throughput.csv";
};

struct BadFlag {
    std::string message;
};

std::string fmt_rate(double v)
{
    char buf[32];
    return bench_fmt_rate(v, buf, sizeof buf);
}

// A count as perf/throughput takes it: a number with an optional k, M or G (10^3, 10^6, 10^9).
bool parse_count(const std::string &text, int64_t &out, bool allow_zero = false)
{
    return allow_zero ? bench_parse_count_or_zero(text.c_str(), &out) : bench_parse_count(text.c_str(), &out);
}

std::vector<std::string> split(const std::string &list)
{
    std::vector<std::string> items;
    size_t start = 0;
    for (;;) {
        size_t comma = list.find(',', start);
        items.push_back(list.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (comma == std::string::npos)
            return items;
        start = comma + 1;
    }
}

std::vector<int> parse_threads(const std::string &list)
{
    std::vector<int> threads;
    for (const std::string &item : split(list)) {
        int64_t t;
        if (!parse_count(item, t) || t > MAX_THREADS)
            throw BadFlag{"--threads '" + list + "': '" + item + "' is invalid: expected a thread count from 1 to " +
                std::to_string(MAX_THREADS)};
        threads.push_back((int)t);
    }
    return threads;
}

std::string mode_names()
{
    std::string names;
    for (const Mode &m : MODES)
        names += std::string(names.empty() ? "" : ", ") + m.name;
    return names;
}

std::vector<int> parse_modes(const std::string &list)
{
    std::vector<int> modes;
    if (list == "all") {
        for (int k = 0; k < MODE_COUNT; k++)
            modes.push_back(k);
        return modes;
    }
    for (const std::string &item : split(list)) {
        int k = 0;
        while (k < MODE_COUNT && item != MODES[k].name)
            k++;
        if (k == MODE_COUNT)
            throw BadFlag{"--modes '" + list + "': '" + item + "' is not a mode: expected " + mode_names() + " or all"};
        if (std::find(modes.begin(), modes.end(), k) == modes.end())
            modes.push_back(k);
    }
    return modes;
}

void usage(FILE *f)
{
    fprintf(f,
        "usage: spdlog_throughput [options]\n"
        "  perf/throughput's method (Log4j 2's) for spdlog: T threads make CALLS/T calls each,\n"
        "  call-phase rate and drained rate, median of RUNS, modes interleaved.\n"
        "  --threads LIST        thread counts (default 1,2,4,8,16,32,64)\n"
        "  --modes LIST          comma-separated, or all (default all):\n"
        "                        %s\n"
        "  --calls N             calls per run, all threads together (default 262144 = 256x1024)\n"
        "  --message-bytes N     characters of the logged string (default 500, at most %" PRId64 ")\n"
        "  --warmup N            messages logged and drained when a logger is made (default 200000; 0: none)\n"
        "  --runs N              measured repetitions (default 5, at most %d)\n"
        "  --sink-dir DIR        where the log files go (default /tmp); removed at the end\n"
        "  --out FILE            CSV, rows appended (default perf/results/spdlog_throughput.csv)\n"
        "  --quick               threads 1,2,4; 2,000 calls; warm-up 1,000; 1 run\n"
        "  --quiet               no progress on stderr\n",
        mode_names().c_str(), MAX_MESSAGE_BYTES, MAX_RUNS);
}

// ------------------------------------------------------------------ loggers

// One mode's logger, made once and kept across runs.
struct Live {
    std::shared_ptr<spdlog::details::thread_pool> pool;  // async only
    std::shared_ptr<spdlog::sinks::basic_file_sink_mt> sink;
    std::shared_ptr<spdlog::logger> logger;
    std::string path;
    std::shared_ptr<std::atomic<uint64_t>> errors = std::make_shared<std::atomic<uint64_t>>(0);
    std::string last_error;  // written by the error handler, read after a failed check
    std::mutex error_lock;
};

std::string log_path(const Options &o, int mode)
{
    return o.sink_dir + "/spdlog-throughput-" + std::to_string((long)getpid()) + "-" + std::to_string(mode) + ".log";
}

// The log files' paths, for the SIGINT/SIGTERM/SIGHUP handler, which removes them.
char signal_paths[MODE_COUNT][4096];

void on_signal(int sig)
{
    for (const char *p : signal_paths)
        if (p[0] != '\0')
            unlink(p);
    signal(sig, SIG_DFL);
    raise(sig);
}

void close_logger(Live &l)
{
    l.logger.reset();
    l.pool.reset();  // joins the worker
    l.sink.reset();  // closes the file
    if (!l.path.empty())
        unlink(l.path.c_str());
    l.path.clear();
}

// Everything logged so far is in the file (see the top of the file).
void drain(const Mode &m, Live &l)
{
    if (!m.async) {
        l.logger->flush();
        return;
    }
    // For a block logger this is exactly logger->flush().  An overrun_oldest
    // logger's flush() posts the request with overrun_oldest, which would
    // evict one more log message from a full queue: post it with block.
    auto self = std::static_pointer_cast<spdlog::async_logger>(l.logger);
    if (m.policy == spdlog::async_overflow_policy::block)
        l.logger->flush();
    else
        l.pool->post_flush(std::move(self), spdlog::async_overflow_policy::block);
    // One worker takes the queue's messages in order: once the queue is empty
    // it has taken the flush request, so it has finished every message before.
    while (l.pool->queue_size() != 0)
        std::this_thread::sleep_for(std::chrono::microseconds(20));
    l.sink->flush();
}

void log_message(spdlog::logger *logger, const char *msg)
{
    SPDLOG_LOGGER_INFO(logger, "{}", msg);
}

bool open_logger(const Options &o, int k, const char *msg, Live &l, std::string &err)
{
    const Mode &m = MODES[k];
    l.path = log_path(o, k);
    unlink(l.path.c_str());
    snprintf(signal_paths[k], sizeof signal_paths[k], "%s", l.path.c_str());
    try {
        l.sink = std::make_shared<spdlog::sinks::basic_file_sink_mt>(l.path, true);
        if (m.async) {
            l.pool = std::make_shared<spdlog::details::thread_pool>(m.queue, 1);
            l.logger = std::make_shared<spdlog::async_logger>(LOGGER_NAME, l.sink, l.pool, m.policy);
        } else {
            l.logger = std::make_shared<spdlog::logger>(LOGGER_NAME, l.sink);
        }
        l.logger->set_formatter(std::make_unique<spdlog::pattern_formatter>(PATTERN, spdlog::pattern_time_type::utc));
        l.logger->set_level(spdlog::level::info);
        l.logger->flush_on(spdlog::level::off);  // flush only when asked (the default)
        auto errors = l.errors;
        Live *lp = &l;
        l.logger->set_error_handler([errors, lp](const std::string &what) {
            if (errors->fetch_add(1) == 0) {
                std::lock_guard<std::mutex> g(lp->error_lock);
                lp->last_error = what;
            }
        });
    } catch (const std::exception &e) {
        err = std::string(m.name) + ": cannot make the logger on " + l.path + ": " + e.what();
        close_logger(l);
        return false;
    }
    for (int64_t i = 0; i < o.warmup; i++)
        log_message(l.logger.get(), msg);
    drain(m, l);
    return true;
}

// ------------------------------------------------------------------ one run

// The start line: workers announce themselves and wait until main opens it.
struct Gate {
    std::mutex lock;
    std::condition_variable cond;
    int ready = 0;
    bool open = false;
};

struct Worker {
    std::thread thread;
    int64_t calls = 0;
    int64_t start_ns = 0, end_ns = 0;  // written by the worker, read by main after join
};

struct Result {
    double calls_per_sec = 0, drained_per_sec = 0, line_bytes = 0;
    int64_t lost = 0;
};

// Lines in a file (counted outside the timing); -1 if it cannot be read.
int64_t count_lines(const std::string &path, int64_t &bytes)
{
    FILE *f = fopen(path.c_str(), "rb");
    if (f == nullptr)
        return -1;
    static char buf[1 << 16];
    int64_t lines = 0;
    bytes = 0;
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        bytes += (int64_t)n;
        for (const char *p = buf; (p = (const char *)memchr(p, '\n', (size_t)(buf + n - p))) != nullptr; p++)
            lines++;
    }
    bool failed = ferror(f) != 0;
    fclose(f);
    return failed ? -1 : lines;
}

// The first line of a file, without its newline, the message shortened to "<N characters>".
std::string first_line(const std::string &path, const std::string &msg)
{
    FILE *f = fopen(path.c_str(), "rb");
    if (f == nullptr)
        return "";
    std::string line;
    int ch;
    while ((ch = fgetc(f)) != EOF && ch != '\n')
        line.push_back((char)ch);
    fclose(f);
    size_t at = line.find(msg);
    if (at != std::string::npos)
        line.replace(at, msg.size(), "<" + std::to_string(msg.size()) + " characters>");
    return line;
}

bool run_once(const Options &o, int k, Live &l, int threads, const char *msg, Result &res, std::string &err)
{
    const Mode &m = MODES[k];
    if (truncate(l.path.c_str(), 0) != 0) {
        err = "cannot truncate " + l.path + ": " + strerror(errno);
        return false;
    }
    uint64_t errors_before = l.errors->load();
    size_t overrun_before = m.async ? l.pool->overrun_counter() : 0;
    int64_t per_thread = o.calls / threads;

    Gate gate;
    std::vector<Worker> w((size_t)threads);
    spdlog::logger *logger = l.logger.get();
    int created = 0;
    try {
        for (int t = 0; t < threads; t++) {
            Worker *me = &w[(size_t)t];
            me->calls = per_thread;
            me->thread = std::thread([me, &gate, logger, msg] {
                {
                    std::unique_lock<std::mutex> g(gate.lock);
                    gate.ready++;
                    gate.cond.notify_all();
                    gate.cond.wait(g, [&gate] { return gate.open; });
                }
                me->start_ns = sr_monotonic_ns();
                for (int64_t i = 0; i < me->calls; i++)
                    log_message(logger, msg);
                me->end_ns = sr_monotonic_ns();
            });
            created++;
        }
    } catch (const std::system_error &e) {
        err = "cannot start thread " + std::to_string(created + 1) + " of " + std::to_string(threads) + ": " + e.what();
        // The ones already started log their share, so that the logger is left idle and drained.
    }
    {
        std::unique_lock<std::mutex> g(gate.lock);
        gate.cond.wait(g, [&] { return gate.ready == created; });
        gate.open = true;
        gate.cond.notify_all();
    }
    for (int t = 0; t < created; t++)
        w[(size_t)t].thread.join();
    drain(m, l);
    int64_t drained_ns = sr_monotonic_ns();
    if (created < threads)
        return false;

    int64_t first = INT64_MAX, last = INT64_MIN;
    for (const Worker &x : w) {
        first = std::min(first, x.start_ns);
        last = std::max(last, x.end_ns);
    }
    int64_t calls = per_thread * threads;
    int64_t lost = m.async ? (int64_t)(l.pool->overrun_counter() - overrun_before) : 0;
    uint64_t errors = l.errors->load() - errors_before;
    int64_t bytes = 0;
    int64_t lines = count_lines(l.path, bytes);
    bool expect_all = !m.async || m.policy == spdlog::async_overflow_policy::block;
    if (lines < 0 || errors != 0 || lines + lost != calls || (expect_all && lost != 0)) {
        char buf[512];
        snprintf(buf, sizeof buf,
            "%s threads=%d: check failed: %" PRId64 " calls, %" PRId64 " lines in %s, %" PRId64
            " overrun, %" PRIu64 " logger errors",
            m.name, threads, calls, lines, l.path.c_str(), lost, errors);
        err = buf;
        if (errors != 0) {
            std::lock_guard<std::mutex> g(l.error_lock);
            err += " (first: " + l.last_error + ")";
        }
        return false;
    }
    if (sample_line.empty() && lines > 0)
        sample_line = first_line(l.path, msg);
    res.calls_per_sec = (double)calls * 1e9 / (double)(last - first);
    res.drained_per_sec = (double)lines * 1e9 / (double)(drained_ns - first);
    res.line_bytes = lines > 0 ? (double)bytes / (double)lines : 0;
    res.lost = lost;
    return true;
}

// ------------------------------------------------------------------ summary

double median(std::vector<double> v)
{
    return bench_median(v.data(), (int)v.size());
}

struct Cell {
    std::vector<double> calls, drained, line_bytes, lost;
    bool failed = false;
    double med_calls = 0, min_calls = 0, max_calls = 0, med_drained = 0, med_bytes = 0, med_lost = 0;
    int64_t total_lost = 0;

    void summarize()
    {
        if (calls.empty())
            return;
        med_calls = median(calls);
        min_calls = *std::min_element(calls.begin(), calls.end());
        max_calls = *std::max_element(calls.begin(), calls.end());
        med_drained = median(drained);
        med_bytes = median(line_bytes);
        med_lost = median(lost);
    }
};

Options parse_args(int argc, char **argv, bool &help)
{
    Options o;
    o.modes = parse_modes("all");
    bool quick = false, threads_given = false, calls_given = false, warmup_given = false, runs_given = false;
    help = false;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (a == "--help" || a == "-h") {
            help = true;
            return o;
        }
        if (a == "--quick") {
            quick = true;
            continue;
        }
        if (a == "--quiet") {
            bench_quiet = true;
            continue;
        }
        static const char *const with_value[] = {"--threads", "--runs", "--calls", "--message-bytes", "--warmup",
            "--sink-dir", "--out", "--modes"};
        if (std::find_if(std::begin(with_value), std::end(with_value), [&](const char *f) { return a == f; }) ==
            std::end(with_value))
            throw BadFlag{a + ": unknown option (see --help)"};
        if (i + 1 >= argc)
            throw BadFlag{a + ": missing value"};
        std::string val = argv[++i];
        int64_t n;
        if (a == "--threads") {
            o.threads = parse_threads(val);
            threads_given = true;
        } else if (a == "--modes") {
            o.modes = parse_modes(val);
        } else if (a == "--calls") {
            if (!parse_count(val, o.calls) || o.calls > (INT64_C(1) << 40))
                throw BadFlag{"--calls '" + val + "' is invalid: expected a count from 1 to 2^40"};
            calls_given = true;
        } else if (a == "--message-bytes") {
            if (!parse_count(val, o.message_bytes) || o.message_bytes > MAX_MESSAGE_BYTES)
                throw BadFlag{"--message-bytes '" + val + "' is invalid: expected 1 to " +
                    std::to_string(MAX_MESSAGE_BYTES)};
        } else if (a == "--warmup") {
            if (!parse_count(val, o.warmup, true))
                throw BadFlag{"--warmup '" + val + "' is invalid: expected a count (0 for none)"};
            warmup_given = true;
        } else if (a == "--runs") {
            if (!parse_count(val, n) || n > MAX_RUNS)
                throw BadFlag{"--runs '" + val + "' is invalid: expected 1 to " + std::to_string(MAX_RUNS)};
            o.runs = (int)n;
            runs_given = true;
        } else if (a == "--sink-dir") {
            o.sink_dir = val;
        } else if (a == "--out") {
            if (val.empty())
                throw BadFlag{"--out '' is invalid: expected a file name"};
            o.out = val;
        }
    }
    if (quick) {
        if (!threads_given)
            o.threads = {1, 2, 4};
        if (!calls_given)
            o.calls = 2000;
        if (!warmup_given)
            o.warmup = 1000;
        if (!runs_given)
            o.runs = 1;
    }
    for (int t : o.threads)
        if (o.calls < t)
            throw BadFlag{"--calls " + std::to_string(o.calls) + " is less than the thread count " + std::to_string(t) +
                ": every thread needs at least one call"};
    if (o.sink_dir.size() > 3000)
        throw BadFlag{"--sink-dir '" + o.sink_dir.substr(0, 40) + "...' is too long: at most 3000 bytes"};
    if (access(o.sink_dir.c_str(), W_OK | X_OK) != 0)
        throw BadFlag{"--sink-dir '" + o.sink_dir + "' is not a writable directory: " + strerror(errno)};
    return o;
}

void print_markdown(const Options &o, const std::vector<std::vector<Cell>> &cells)
{
    double line_bytes = 0;
    for (size_t mi = 0; mi < o.modes.size() && line_bytes == 0; mi++)
        for (const Cell &c : cells[mi])
            if (c.med_bytes > 0) {
                line_bytes = c.med_bytes;
                break;
            }
    printf("## spdlog throughput, perf/throughput's method (`perf/peers/spdlog`)\n\n");
    printf("- spdlog %d.%d.%d (fmt %d). Each of T threads makes %" PRId64 " / T calls of "
           "`SPDLOG_LOGGER_INFO(logger, \"{}\", msg)` with one %" PRId64 "-character string (the caller "
           "formats \"{}\" and the file:line comes from the macro's source_loc; lines are about %.0f bytes); "
           "all threads start together at a gate.\n",
        SPDLOG_VER_MAJOR, SPDLOG_VER_MINOR, SPDLOG_VER_PATCH, FMT_VERSION, o.calls, o.message_bytes, line_bytes);
    printf("- Pattern `%s`, UTC; basic_file_sink_mt under %s, flushed only when asked. Async modes: "
           "`spdlog::async_logger` with its own `thread_pool(queue, 1 worker)`; sync: `spdlog::logger`.\n",
        PATTERN, o.sink_dir.c_str());
    if (!sample_line.empty())
        printf("- A line: `%s`\n", sample_line.c_str());
    printf("- Each mode's logger is made once and warmed up with %" PRId64 " messages, drained; each run "
           "truncates the file first. %d run%s per thread count, modes interleaved within each run; median, "
           "with min-max of the call-phase rate.\n",
        o.warmup, o.runs, o.runs == 1 ? "" : "s");
    printf("- calls/s: all calls over the call phase (first thread's first call to last thread's last return). "
           "drained/s: lines in the file over the call phase plus the drain (flush request, queue empty, "
           "sink flushed). overrun_oldest rows count only the lines written; lost = messages the pool "
           "overran.\n");
    printf("\n| mode | policy | threads | calls/s (median) | min - max | drained/s (median) | lost per run (median) |\n");
    printf("|---|---|---:|---:|---:|---:|---:|\n");
    for (size_t ti = 0; ti < o.threads.size(); ti++) {
        for (size_t mi = 0; mi < o.modes.size(); mi++) {
            const Mode &m = MODES[o.modes[mi]];
            const Cell &c = cells[mi][ti];
            if (c.calls.empty()) {
                printf("| %s | %s | %d | failed | | | |\n", m.name, policy_label(m), o.threads[ti]);
                continue;
            }
            std::string lost = "";
            if (m.async && m.policy == spdlog::async_overflow_policy::overrun_oldest) {
                char buf[64];
                snprintf(buf, sizeof buf, "%.0f of %" PRId64, c.med_lost, o.calls / o.threads[ti] * o.threads[ti]);
                lost = buf;
            }
            printf("| %s | %s | %d | %s | %s - %s | %s | %s |\n", m.name, policy_label(m), o.threads[ti],
                fmt_rate(c.med_calls).c_str(), fmt_rate(c.min_calls).c_str(), fmt_rate(c.max_calls).c_str(),
                fmt_rate(c.med_drained).c_str(), lost.c_str());
        }
    }
    for (int pass = 0; pass < 2; pass++) {
        printf("\n%s (median, messages/s, all threads together)\n\n| logger |",
            pass == 0 ? "Call-phase rate" : "Drained rate");
        for (int t : o.threads)
            printf(" %d thread%s |", t, t == 1 ? "" : "s");
        printf("\n|---|");
        for (size_t ti = 0; ti < o.threads.size(); ti++)
            printf("---:|");
        printf("\n");
        for (size_t mi = 0; mi < o.modes.size(); mi++) {
            printf("| %s |", MODES[o.modes[mi]].name);
            for (const Cell &c : cells[mi])
                printf(" %s |", c.calls.empty() ? "failed" : fmt_rate(pass == 0 ? c.med_calls : c.med_drained).c_str());
            printf("\n");
        }
    }
    for (size_t mi = 0; mi < o.modes.size(); mi++)
        for (size_t ti = 0; ti < o.threads.size(); ti++)
            if (cells[mi][ti].total_lost > 0)
                printf("\n%s, %d thread%s: %" PRId64 " messages lost over %zu runs (overrun_oldest)\n",
                    MODES[o.modes[mi]].name, o.threads[ti], o.threads[ti] == 1 ? "" : "s", cells[mi][ti].total_lost, cells[mi][ti].calls.size());
}

bool write_csv(const Options &o, const std::vector<std::vector<Cell>> &cells, std::string &err)
{
    char why[512];
    FILE *csv = bench_open_csv(o.out.c_str(), false, "mode,wait,policy,threads,message_bytes,calls_per_sec,"
        "drained_per_sec,runs,min_calls_per_sec,max_calls_per_sec\n", why, sizeof why);
    if (csv == nullptr) {
        err = why;
        return false;
    }
    for (size_t mi = 0; mi < o.modes.size(); mi++) {
        const Mode &m = MODES[o.modes[mi]];
        for (size_t ti = 0; ti < o.threads.size(); ti++) {
            const Cell &c = cells[mi][ti];
            if (c.calls.empty())
                continue;
            fprintf(csv, "%s,none,%s,%d,%" PRId64 ",%.0f,%.0f,%zu,%.0f,%.0f\n", m.name, policy_label(m),
                o.threads[ti], o.message_bytes, c.med_calls, c.med_drained, c.calls.size(), c.min_calls,
                c.max_calls);
        }
    }
    if (fclose(csv) != 0) {
        err = "--out '" + o.out + "': write failed: " + strerror(errno);
        return false;
    }
    return true;
}

}  // namespace

int main(int argc, char **argv)
{
    Options o;
    bool help;
    try {
        o = parse_args(argc, argv, help);
    } catch (const BadFlag &b) {
        fprintf(stderr, "%s: %s\n", PROG, b.message.c_str());
        return 2;
    }
    if (help) {
        usage(stdout);
        return 0;
    }

    // The logged string: printable, exactly message_bytes characters.
    std::string message((size_t)o.message_bytes, ' ');
    for (int64_t i = 0; i < o.message_bytes; i++)
        message[(size_t)i] = (char)('A' + i % 26);
    const char *msg = message.c_str();

    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGHUP, on_signal);

    std::vector<std::vector<Cell>> cells(o.modes.size(), std::vector<Cell>(o.threads.size()));
    std::vector<Live> lives(o.modes.size());
    int failures = 0;
    int64_t t_begin = sr_monotonic_ns();
    for (size_t ti = 0; ti < o.threads.size(); ti++) {
        int threads = o.threads[ti];
        for (int run = 0; run < o.runs; run++) {
            for (size_t mi = 0; mi < o.modes.size(); mi++) {
                int k = o.modes[mi];
                Live &l = lives[mi];
                Cell &c = cells[mi][ti];
                std::string err;
                Result r;
                bool ok = true;
                if (!l.logger) {
                    bench_progress("%s: %s make and warm-up (%" PRId64 " messages)", PROG, MODES[k].name, o.warmup);
                    ok = open_logger(o, k, msg, l, err);
                }
                if (ok) {
                    bench_progress("%s: %s threads=%d run %d/%d", PROG, MODES[k].name, threads, run + 1, o.runs);
                    ok = run_once(o, k, l, threads, msg, r, err);
                }
                if (!ok) {
                    // A failed run may leave the logger in any state: the next run gets a new one.
                    close_logger(l);
                    fprintf(stderr, "%s: %s\n", PROG, err.c_str());
                    c.failed = true;
                    failures++;
                    continue;
                }
                c.calls.push_back(r.calls_per_sec);
                c.drained.push_back(r.drained_per_sec);
                c.line_bytes.push_back(r.line_bytes);
                c.lost.push_back((double)r.lost);
                c.total_lost += r.lost;
            }
        }
    }
    for (Live &l : lives)
        close_logger(l);
    double elapsed = (double)(sr_monotonic_ns() - t_begin) / 1e9;
    for (auto &row : cells)
        for (Cell &c : row)
            c.summarize();

    std::string err;
    if (!write_csv(o, cells, err)) {
        fprintf(stderr, "%s: %s\n", PROG, err.c_str());
        return 1;
    }
    print_markdown(o, cells);
    if (failures > 0)
        printf("\n%d run%s failed (see stderr).\n", failures, failures == 1 ? "" : "s");
    fflush(stdout);
    bench_progress("%s: done in %.1f s; CSV rows appended to %s", PROG, elapsed, o.out.c_str());
    return failures > 0 ? 1 : 0;
}
