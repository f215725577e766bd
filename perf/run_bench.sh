#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# perf/run_bench.sh: the `make bench` driver.
#
# Run from anywhere after a release build (`make bench` does both):
#   perf/run_bench.sh [BUILD_DIR]          the default suite (about 6 minutes on 2 cores)
#   perf/run_bench.sh --quick [BUILD_DIR]  every harness once with tiny counts (smoke test)
# BUILD_DIR: the argument, else $BUILD_DIR or $SEQRING_BUILD_DIR, else <repo>/build/release;
# the harnesses are looked for in BUILD_DIR/perf, then anywhere under BUILD_DIR.
# RESULTS_DIR (default <repo>/perf/results) receives the results.
#
# Writes under RESULTS_DIR: environment.txt, throughput.csv/.md (the main job: Log4j 2's
# per-thread table, the ring rows with the logger's default producer and with the shared ring),
# latency.csv/.md and latency_*.dat (response time), ring.csv/.md,
# wait.csv/.md, micro.json/.txt and PNG plots; prints the Markdown tables at the end. git keeps the
# tables, CSVs, plots and environment.txt; latency_*.dat and micro.json are ignored (.gitignore).
# Progress goes to stderr.  Harnesses run one after the other, never two at once.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-${SEQRING_BUILD_DIR:-$ROOT/build/release}}
RESULTS=${RESULTS_DIR:-$ROOT/perf/results}
QUICK=0
for arg in "$@"; do
  case "$arg" in
    --quick) QUICK=1 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    -*) echo "run_bench: unknown option: $arg" >&2; exit 2 ;;
    *) BUILD_DIR=$arg ;;
  esac
done
if [ ! -d "$BUILD_DIR" ]; then
  echo "run_bench: build directory $BUILD_DIR does not exist (make release first)" >&2
  exit 1
fi
BUILD_DIR=$(cd "$BUILD_DIR" && pwd)

say() { echo "[bench] $*" >&2; }

find_bin() {
  local name=$1
  if [ -x "$BUILD_DIR/perf/$name" ]; then
    echo "$BUILD_DIR/perf/$name"
    return
  fi
  local found
  found=$(find "$BUILD_DIR" -type f -name "$name" -perm -u+x 2>/dev/null | head -n 1 || true)
  if [ -z "$found" ]; then
    echo "run_bench: $name not found under $BUILD_DIR (build a release first: cmake --preset release && cmake --build build/release)" >&2
    exit 1
  fi
  echo "$found"
}

RING_PERF=$(find_bin ring_perf)
WAIT_PERF=$(find_bin wait_perf)
MICRO=$(find_bin micro)
THROUGHPUT=$(find_bin throughput)
CALLER=$(find_bin caller)
CONSUMER=$(find_bin consumer)
LATENCY=$(find_bin latency)
mkdir -p "$RESULTS"

# --- setup: gnuplot for the plots, valgrind for the instruction counts -------
# bench_install COMMAND PACKAGE WHAT_IS_LOST: installs PACKAGE with apt-get when COMMAND is missing.
bench_install() {
  local cmd=$1 pkg=$2 lost=$3 sudo=""
  command -v "$cmd" >/dev/null 2>&1 && return 0
  say "$cmd is missing: installing the Debian package $pkg with apt-get"
  if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1; then sudo=sudo; fi
  if ! $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$pkg" >&2; then
    $sudo apt-get update -q >&2 || true
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$pkg" >&2 ||
      say "could not install $pkg: $lost"
  fi
}
bench_install gnuplot gnuplot-nox "the tables and CSV files are written, the plots are not"
bench_install valgrind valgrind "the instruction counts are skipped"

# --- environment.txt --------------------------------------------------------
cache_var() {
  sed -n "s/^$1:[A-Z]*=//p" "$BUILD_DIR/CMakeCache.txt" 2>/dev/null | head -n 1
}
{
  echo "date: $(date -u '+%Y-%m-%dT%H:%M:%SZ')"
  echo "commit: $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$ROOT" diff --quiet 2>/dev/null || echo ' (with uncommitted changes)')"
  echo "cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
  echo "cores: $(nproc) online ($(lscpu 2>/dev/null | sed -n 's/^Thread(s) per core:[[:space:]]*/threads per core: /p'))"
  lscpu 2>/dev/null | grep -E '^(Hypervisor vendor|Virtualization type|L1d cache|L2 cache|L3 cache|CPU max MHz|BogoMIPS):' | sed 's/:[[:space:]]*/: /' || true
  echo "clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown)"
  echo "kernel: $(uname -srvm)"
  echo "os: $(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME")"
  echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "compiler: $(gcc --version | head -n 1)"
  echo "c++ compiler: $(g++ --version 2>/dev/null | head -n 1)"
  echo "build type: $(cache_var CMAKE_BUILD_TYPE)"
  echo "CMAKE_C_FLAGS: $(cache_var CMAKE_C_FLAGS)"
  echo "CMAKE_C_FLAGS_RELEASE: $(cache_var CMAKE_C_FLAGS_RELEASE)"
  echo "CMAKE_CXX_FLAGS_RELEASE: $(cache_var CMAKE_CXX_FLAGS_RELEASE)"
  grep -E '^SR_[A-Z_]*:BOOL=|^SEQRING_[A-Z_]*:BOOL=' "$BUILD_DIR/CMakeCache.txt" 2>/dev/null | sed 's/:BOOL=/: /' || true
  echo "libraries (dpkg):"
  dpkg-query -W -f='  ${Package} ${Version}\n' libc6 libck-dev libbenchmark-dev libcriterion-dev gnuplot-nox cmake gcc-12 2>/dev/null || true
} > "$RESULTS/environment.txt"
say "environment: $RESULTS/environment.txt"

start=$(date +%s)

# --- logger throughput: Log4j 2's per-thread table (the main job) -----------
# threads 1..64, 256 x 1024 calls per run, 5 runs; ring with a ring per thread (the logger's
# default producer), ring with the shared multi-producer ring (its rows "phased/shared"),
# queue, sync and the fwrite ceiling interleaved within each run: about 2 minutes on 2 cores
if [ "$QUICK" = 1 ]; then TP_ARGS=(--quick); else TP_ARGS=(); fi
say "logger throughput: $THROUGHPUT ${TP_ARGS[*]} --producer both"
"$THROUGHPUT" "${TP_ARGS[@]}" --producer both --truncate --out "$RESULTS/throughput.csv" \
  > "$RESULTS/throughput.md"
rm -f "$RESULTS/throughput_shared.csv" "$RESULTS/throughput_shared.md"

# --- logger response time: Log4j 2's method (the main job) ------------------
# 2 and 4 threads x 8,000 msg/s each, 10 s measured after 3 s of warm-up, ring/queue/sync:
# about 80 s; one percentile-distribution file per row and kind
if [ "$QUICK" = 1 ]; then LAT_ARGS=(--quick); else LAT_ARGS=(); fi
rm -f "$RESULTS"/latency_*.dat "$RESULTS"/latency_*.png
say "logger response time: $LATENCY ${LAT_ARGS[*]}"
"$LATENCY" "${LAT_ARGS[@]}" --truncate --out "$RESULTS/latency.csv" --dist-dir "$RESULTS" > "$RESULTS/latency.md"

# --- the caller's cost per call ----------------------------------------------
# SR_INFO(c, "x=%d y=%f s=%s", ...) timed call by call (TSC): ring, per-thread (and again with its
# ring a file in a fresh ring directory under /tmp, per-thread-dir), queue, sync, a bare ring,
# a disabled call; 5 interleaved runs of 200,000 calls: about 10 s
if [ "$QUICK" = 1 ]; then CALLER_ARGS=(--quick); else CALLER_ARGS=(); fi
say "caller cost: $CALLER ${CALLER_ARGS[*]}"
"$CALLER" "${CALLER_ARGS[@]}" --truncate --out "$RESULTS/caller.csv" > "$RESULTS/caller.md"

# Instructions per call (callgrind counts them exactly; time it cannot): each kind's loop
# minus the empty loop, over COUNT_CALLS calls.
count_instructions() {
  local mode=$1 calls=$2 out
  shift 2
  out=$(valgrind --tool=callgrind --toggle-collect='counted_calls_*' --callgrind-out-file=/dev/null \
        "$CALLER" --count "$mode" "$calls" "$@" 2>&1 >/dev/null | sed -n 's/.*I *refs: *//p' | tr -d ,)
  echo "${out:-0}"
}
if command -v valgrind >/dev/null 2>&1; then
  if [ "$QUICK" = 1 ]; then COUNT_CALLS=1000; else COUNT_CALLS=100000; fi
  say "instructions per call: valgrind --tool=callgrind, $COUNT_CALLS calls each"
  loop_ir=$(count_instructions loop "$COUNT_CALLS")
  {
    echo "mode,calls,instructions_per_call"
    # per-thread: a thread ring that holds every call (no wrap, no drain in between);
    # per-thread-dir: the same ring a file in a ring directory (caller makes and removes it);
    # -runtime: the string read at run time (--string runtime) instead of one the compiler knows;
    # limit-*: rate-limited sites (sr_log_limit.h) on the per-thread logger: limit-once,
    # limit-every-n and limit-rate suppress every counted call, limit-every-1 and
    # limit-rate-open write every one; site-off: an enabled level at a site a rule switched off;
    # site-limit: a site whose limit by rule suppresses every counted call.
    for mode in disabled site-off site-limit bare ring per-thread per-thread-dir ring-runtime per-thread-runtime \
                limit-once limit-every-n limit-rate limit-every-1 limit-rate-open; do
      args=(--thread-ring-slots 524288)
      case $mode in *-runtime) args+=(--string runtime) ;; esac
      ir=$(count_instructions "${mode%-runtime}" "$COUNT_CALLS" "${args[@]}")
      awk -v m="$mode" -v n="$COUNT_CALLS" -v ir="$ir" -v l="$loop_ir" \
        'BEGIN { printf "%s,%d,%.1f\n", m, n, (ir - l) / n }'
    done
  } > "$RESULTS/instructions.csv"
  {
    echo
    echo "Instructions per call on the caller's thread (valgrind --tool=callgrind, $COUNT_CALLS calls, the empty loop's instructions subtracted; exact and repeatable):"
    echo
    echo "| call | instructions |"
    echo "|---|---:|"
    # One if per row: mawk (Debian's awk) takes no line break inside a ?: chain.
    awk -F, 'NR > 1 {
      if ($1 == "disabled") name = "disabled SR_DEBUG"
      else if ($1 == "site-off") name = "SR_INFO at a site a run-time rule switched off (sr_log_sites_set)"
      else if ($1 == "site-limit") name = "SR_INFO at a site whose limit by rule suppresses the call (the general path)"
      else if ($1 == "bare") name = "bare ring claim + copy + publish"
      else if ($1 == "ring") name = "SR_INFO into the shared ring (producer shared)"
      else if ($1 == "per-thread") name = "SR_INFO into the thread'"'"'s own ring (producer per_thread, the default)"
      else if ($1 == "per-thread-dir") name = "the same, own ring a file in a ring directory (ring_dir)"
      else if ($1 == "ring-runtime") name = "the same, shared ring, the string read at run time"
      else if ($1 == "per-thread-runtime") name = "the same, own ring, the string read at run time"
      else if ($1 == "limit-once") name = "SR_INFO_ONCE, suppressed (a limited site'"'"'s level check and decision)"
      else if ($1 == "limit-every-n") name = "SR_INFO_EVERY_N, suppressed"
      else if ($1 == "limit-rate") name = "SR_INFO_LIMIT, suppressed (the TSC read, the bucket looked at)"
      else if ($1 == "limit-every-1") name = "SR_INFO_EVERY_N with n 1: every call written (the per-thread call behind a limiter)"
      else name = "SR_INFO_LIMIT that never runs dry: every call written (the bucket'"'"'s CAS)"
      printf "| %s | %s |\n", name, $3 }' "$RESULTS/instructions.csv"
  } >> "$RESULTS/caller.md"
else
  say "no valgrind: skipping the instruction counts (apt-get install valgrind)"
fi

# --- the consumer's instructions per line -----------------------------------
# perf/consumer logs N records of one %s message into a ring that holds them all; callgrind
# counts sr_log__consume_record (the record, its header once read, laid out and appended to the
# sink's buffer)
# and the whole pass (run_pass: also taking the record from its ring, the merge of the rings,
# the batch's end and the sink's write, less the system call itself)
if command -v valgrind >/dev/null 2>&1; then
  if [ "$QUICK" = 1 ]; then CONS_RECORDS=200; else CONS_RECORDS=20000; fi
  say "consumer instructions per line: valgrind --tool=callgrind, $CONS_RECORDS records each"
  cons_ir() {  # cons_ir FUNCTION LAYOUT BYTES: instructions in FUNCTION over the run
    valgrind --tool=callgrind --toggle-collect="$1" --callgrind-out-file=/dev/null \
      "$CONSUMER" --records "$CONS_RECORDS" --bytes "$3" --layout "$2" 2>&1 >/dev/null |
      sed -n 's/.*Collected : *//p' | tr -d ,
  }
  {
    echo "layout,message_bytes,records,instructions_per_line,pass_instructions_per_line"
    for layout in text json pattern; do
      for bytes in 100 500; do
        ir=$(cons_ir sr_log__consume_record "$layout" "$bytes")
        pass=$(cons_ir run_pass "$layout" "$bytes")
        awk -v l="$layout" -v b="$bytes" -v n="$CONS_RECORDS" -v ir="${ir:-0}" -v p="${pass:-0}" \
          'BEGIN { printf "%s,%d,%d,%.0f,%.0f\n", l, b, n, ir / n, p / n }'
      done
    done
  } > "$RESULTS/consumer_instructions.csv"
fi

# --- the consumer's rate for 100-byte messages -------------------------------
# one producer (faster than the consumer), drained rate = what the consumer writes per second,
# beside the fwrite ceiling for the same bytes
if [ "$QUICK" = 1 ]; then CONS_ARGS=(--quick --threads 1); else CONS_ARGS=(--threads 1,4,64); fi
say "consumer rate, 100-byte messages: $THROUGHPUT ${CONS_ARGS[*]} --message-bytes 100 --modes ring,ceiling"
"$THROUGHPUT" "${CONS_ARGS[@]}" --message-bytes 100 --modes ring,ceiling --truncate \
  --out "$RESULTS/consumer.csv" > "$RESULTS/consumer.md"
if [ -s "$RESULTS/consumer_instructions.csv" ]; then
  {
    echo
    echo "The consumer's instructions per line (\`perf/consumer\`, valgrind --tool=callgrind; one"
    echo "\`SR_INFO(cat, \"%s\", msg)\` record each, the pattern Log4j 2's default \`%d %-5p [%t] %c - %m%n\`)."
    echo "The line: \`sr_log__consume_record\`, the record laid out and appended to the sink's buffer."
    echo "The whole pass: \`run_pass\`, also the record taken from its ring (its header read and checked),"
    echo "the merge of the rings in time order, the batch's end and the sink's write (less the kernel's work):"
    echo
    echo "| layout | line, 100 characters | whole pass, 100 | line, 500 characters | whole pass, 500 |"
    echo "|---|---:|---:|---:|---:|"
    awk -F, 'NR > 1 { v[$1 "," $2] = $4; w[$1 "," $2] = $5; if (!($1 in seen)) { seen[$1] = 1; order[++k] = $1 } }
      END { for (i = 1; i <= k; i++) { o = order[i]; printf "| %s | %s | %s | %s | %s |\n", o, v[o ",100"], w[o ",100"], v[o ",500"], w[o ",500"] } }' \
      "$RESULTS/consumer_instructions.csv"
  } >> "$RESULTS/consumer.md"
fi

# --- the binary trace: the ctf: sink beside the text file ----------------------
# each ring row twice, the twin writing a ctf: trace (perf/throughput --trace), interleaved within
# every round: the three-argument call of the binary tracers (an int, a double, a 16-character
# string), and Log4j 2's 500-character message beside the fwrite ceiling; the consumer's
# instructions per record for the three-argument call, text and ctf
if [ "$QUICK" = 1 ]; then TRACE_ARGS=(--quick --threads 1,4); else TRACE_ARGS=(--threads 1,64); fi
say "binary trace: $THROUGHPUT ${TRACE_ARGS[*]} --trace (--call three; --call message with the ceiling)"
"$THROUGHPUT" "${TRACE_ARGS[@]}" --trace --call three --modes ring --truncate \
  --out "$RESULTS/trace_three.csv" > "$RESULTS/trace.md"
"$THROUGHPUT" "${TRACE_ARGS[@]}" --trace --call message --modes ring,ceiling --truncate \
  --out "$RESULTS/trace_message.csv" >> "$RESULTS/trace.md"
if command -v valgrind >/dev/null 2>&1; then
  {
    echo
    echo "The consumer's instructions per record for the three-argument call (\`perf/consumer --call three\`,"
    echo "valgrind --tool=callgrind on \`sr_log__consume_record\`, $CONS_RECORDS records):"
    echo
    echo "| sink | instructions per record |"
    echo "|---|---:|"
    for layout in text ctf; do
      ir=$(valgrind --tool=callgrind --toggle-collect='sr_log__consume_record' --callgrind-out-file=/dev/null \
           "$CONSUMER" --records "$CONS_RECORDS" --call three --layout "$layout" 2>&1 >/dev/null |
           sed -n 's/.*Collected : *//p' | tr -d ,)
      awk -v l="$layout" -v n="$CONS_RECORDS" -v ir="${ir:-0}" \
        'BEGIN { printf "| %s | %.0f |\n", (l == "ctf" ? "ctf: (binary event)" : "text file (text layout)"), ir / n }'
    done
  } >> "$RESULTS/trace.md"
fi

# --- ring topologies --------------------------------------------------------
if [ "$QUICK" = 1 ]; then RING_ARGS=(--quick); else RING_ARGS=(); fi
say "ring topologies: $RING_PERF ${RING_ARGS[*]}"
"$RING_PERF" "${RING_ARGS[@]}" --out "$RESULTS/ring.csv" > "$RESULTS/ring.md"

# --- wait strategies --------------------------------------------------------
if [ "$QUICK" = 1 ]; then
  WAIT_ARGS=(--quick)
else
  # the short default: 3 throughput runs per strategy, 0.3 s of round trips, 1 s idle, 5 s full ring
  WAIT_ARGS=(--runs 3 --seconds 0.15 --ping-seconds 0.3 --idle-seconds 1 --full-seconds 5)
fi
say "wait strategies: $WAIT_PERF ${WAIT_ARGS[*]}"
"$WAIT_PERF" "${WAIT_ARGS[@]}" --out "$RESULTS/wait.csv" > "$RESULTS/wait.md"

# --- micro-benchmarks -------------------------------------------------------
if [ "$QUICK" = 1 ]; then MICRO_ARGS=(--quick); else MICRO_ARGS=(--benchmark_min_time=0.2); fi
say "micro-benchmarks: $MICRO ${MICRO_ARGS[*]}"
"$MICRO" "${MICRO_ARGS[@]}" --out "$RESULTS/micro.json" > "$RESULTS/micro.txt"

say "measurements took $(( $(date +%s) - start )) s"

# --- plots --------------------------------------------------------------------
plot_throughput() {
  # One gnuplot data block per logger (mode/wait): threads, call-phase rate, drained rate.
  local dat="$RESULTS/throughput_plot.dat"
  awk -F, '
    NR == 1 { next }
    {
      key = ($1 == "ring") ? "ring/" $2 : $1
      if (!(key in seen)) { seen[key] = 1; keys[++n] = key }
      rows[key] = rows[key] $4 " " $6 " " $7 "\n"
    }
    END { for (i = 1; i <= n; i++) printf "threads \"%s\" drained\n%s\n\n", keys[i], rows[keys[i]] }
  ' "$RESULTS/throughput.csv" > "$dat"
  local blocks
  blocks=$(grep -c '^threads ' "$dat" || true)
  [ "$blocks" -gt 0 ] || { rm -f "$dat"; return 0; }
  gnuplot <<EOF
set terminal pngcairo size 1200,700 font ",10" noenhanced
set output "$RESULTS/throughput.png"
set title "Logger throughput, Log4j 2's method: messages/s, all threads together\n(solid: call phase; dashed: drained into the file)"
set logscale x 2
set logscale y
set xlabel "threads"
set ylabel "messages/s"
set grid
set key outside right top
plot for [i=0:$((blocks - 1))] "$dat" index i using 1:2 with linespoints lw 2 lc i+1 title columnheader(2), \
     for [i=0:$((blocks - 1))] "$dat" index i using 1:3 with lines dt 2 lw 1 lc i+1 notitle
EOF
  rm -f "$dat"
}

plot_latency() {
  # One PNG per threads x rate: every mode's response (solid) and service (dashed) time
  # against 1/(1-percentile), HdrHistogram's percentile-distribution axis.
  local cfg
  for cfg in $(ls "$RESULTS"/latency_*_response.dat 2>/dev/null |
               sed -E 's/.*_([0-9]+x[0-9]+)_response\.dat$/\1/' | sort -u); do
    local rfiles="" sfiles="" names="" f name
    for f in "$RESULTS"/latency_*_"${cfg}"_response.dat; do
      [ -e "$f" ] || continue
      # latency_ring_phased_2x8000_response.dat -> ring/phased
      name=$(basename "$f" | sed -E "s/^latency_//; s/_${cfg}_response\.dat$//; s/^([a-z]+)_/\1\//")
      rfiles="$rfiles $f"
      sfiles="$sfiles ${f%_response.dat}_service.dat"
      names="$names $name"
    done
    gnuplot <<EOF
set terminal pngcairo size 1200,700 font ",10" noenhanced
set output "$RESULTS/latency_${cfg}.png"
set title "Logger response time (solid) and service time (dashed): ${cfg%x*} threads x ${cfg#*x} msg/s each"
set logscale x
set logscale y
set xrange [1:*]
set xtics ("0%%" 1, "90%%" 10, "99%%" 100, "99.9%%" 1000, "99.99%%" 10000, "99.999%%" 100000, "99.9999%%" 1000000)
set xlabel "percentile"
set ylabel "microseconds"
set grid
set key outside right top
R = "$rfiles"
S = "$sfiles"
N = "$names"
plot for [i=1:words(R)] word(R, i) using 3:(\$2 / 1000.0) with lines lw 2 lc i title word(N, i), \
     for [i=1:words(S)] word(S, i) using 3:(\$2 / 1000.0) with lines lw 1 dt 2 lc i notitle
EOF
  done
}

plot_ring() {
  # Pivot ring.csv into one line per topology, one column per wait/baseline.
  local dat="$RESULTS/ring_plot.dat"
  awk -F, '
    NR == 1 { next }
    {
      if (!($1 in seen_t)) { seen_t[$1] = 1; topos[++nt] = $1 }
      if (!($2 in seen_w)) { seen_w[$2] = 1; waits[++nw] = $2 }
      v[$1, $2] = $6
    }
    END {
      # colours: the strategies in hues, the baselines in greys
      split("#1f77b4 #ff7f0e #2ca02c #d62728 #9467bd #8c564b #e377c2 #17becf #bcbd22 #7f7f7f", hue, " ")
      grey["ck_ring_spsc"] = "#000000"; grey["ck_ring_mpmc"] = "#555555"
      grey["mutex_condvar"] = "#999999"; grey["ceiling"] = "#cccccc"
      for (j = 1; j <= nw; j++) {
        c = (waits[j] in grey) ? grey[waits[j]] : hue[(h++ % 10) + 1]
        colors = colors (j > 1 ? " " : "") c
      }
      print colors > colorfile
      # the log axis starts at the power of ten below the smallest bar
      lo = 1e30
      for (k in v) if (v[k] != "" && v[k] / 1e6 < lo) lo = v[k] / 1e6
      floor10 = 1
      while (floor10 > lo && floor10 > 1e-6) floor10 /= 10
      while (floor10 * 10 <= lo) floor10 *= 10
      print floor10 > (colorfile ".ymin")
      printf "topology"
      for (j = 1; j <= nw; j++) printf " %s", waits[j]
      printf "\n"
      for (i = 1; i <= nt; i++) {
        printf "%s", topos[i]
        for (j = 1; j <= nw; j++) {
          x = v[topos[i], waits[j]]
          printf " %s", (x == "" ? "-" : x / 1e6)
        }
        printf "\n"
      }
    }' colorfile="$dat.colors" "$RESULTS/ring.csv" > "$dat"
  local ncol colors ymin
  colors=$(cat "$dat.colors")
  ymin=$(cat "$dat.colors.ymin")
  ncol=$(head -n 1 "$dat" | wc -w)
  gnuplot <<EOF
set terminal pngcairo size 1400,700 font ",10" noenhanced
set output "$RESULTS/ring.png"
COLORS = "$colors"
set title "Ring topologies, 8-byte events: median events/s (millions, log scale)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set logscale y
set yrange [$ymin:*]
set ylabel "million events/s"
set grid ytics
set key outside right top vertical
set datafile missing "-"
plot for [c=2:$ncol] "$dat" using c:xtic(1) title columnheader(c) lc rgb word(COLORS, c - 1)
EOF
  rm -f "$dat" "$dat.colors" "$dat.colors.ymin"
}

plot_wait() {
  local dat="$RESULTS/wait_plot.dat"
  awk -F, 'NR > 1 && $1 == "strategy" { printf "%s %s %s %s\n", $2, $6 / 1e6, $10 / 1e3, $11 / 1e3 }' \
    "$RESULTS/wait.csv" > "$dat"
  gnuplot <<EOF
set terminal pngcairo size 1400,600 font ",10" noenhanced
set output "$RESULTS/wait.png"
set multiplot layout 1,2
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set logscale y
set grid ytics
set title "1-1 throughput (million events/s, log scale)"
plot "$dat" using 2:xtic(1) notitle
set title "Ping-pong round trip (microseconds, log scale)"
set key top left
plot "$dat" using 3:xtic(1) title "p50", "" using 4 title "p99"
unset multiplot
EOF
  rm -f "$dat"
}

if command -v gnuplot >/dev/null 2>&1; then
  say "plots: $RESULTS/ring.png, $RESULTS/wait.png"
  plot_throughput || say "throughput plot failed"
  plot_latency || say "latency plot failed"
  plot_ring || say "ring plot failed"
  plot_wait || say "wait plot failed"
else
  say "no gnuplot: skipping the plots"
fi

# --- the tables ----------------------------------------------------------------
echo
echo "## Benchmark results ($(date -u '+%Y-%m-%d %H:%M UTC'))"
echo
echo '```'
cat "$RESULTS/environment.txt"
echo '```'
echo
cat "$RESULTS/throughput.md"
echo
cat "$RESULTS/latency.md"
echo
cat "$RESULTS/caller.md"
echo
echo "### The consumer's rate for 100-byte messages (1 producer; drained = written per second)"
echo
cat "$RESULTS/consumer.md"
echo
echo "### The binary trace (ctf: sink) beside the text file"
echo
cat "$RESULTS/trace.md"
echo
cat "$RESULTS/ring.md"
echo
cat "$RESULTS/wait.md"
echo
echo "### Micro-benchmarks (Google Benchmark; JSON in $RESULTS/micro.json)"
echo
echo '```'
cat "$RESULTS/micro.txt"
echo '```'
say "done in $(( $(date +%s) - start )) s; results in $RESULTS"
