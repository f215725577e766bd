#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# run.sh --tracer seqring|lttng --drivers DIR --out CSV [options]: one round of the trace phase
# for one tracer (README.md beside this file): the caller's cost (perf/caller's method: p50, p99,
# p99.9 with the TSC), instructions per call (callgrind, with --instructions), and for each thread
# count the events per second drained to the trace's files and the bytes per event on disk, every
# event counted in the trace (babeltrace2; a text file: its lines) and nothing discarded.
#   --tracer NAME       seqring (trace_seqring, its sink SEQRING_LOG_SINK=ctf:DIR, or file:PATH with
#                       --seqring-sink file) or lttng (trace_lttng, run inside sandbox.sh: a session
#                       daemon of its own; each measurement in a session of its own)
#   --drivers DIR       where build.sh put trace_lttng and trace_seqring
#   --out CSV           the round's rows, written afresh: library,sink,threads,events,seconds,
#                       events_per_sec,bytes_per_event,discarded,instructions_per_call,p50_ns,p99_ns,
#                       p999_ns,mean_ns,timer_p50_ns,calls_per_sec (the caller's columns, one
#                       thread's, on the first thread count's row; calls_per_sec: the drained run's
#                       call phase, first call to last return)
#   --sink-dir DIR      where the traces go, each in a fresh directory removed after use (default /tmp)
#   --seqring-sink KIND ctf (default) or file (seqring's text file sink, in ctf's place)
#   --threads LIST      thread counts of the drained runs (default 1,4)
#   --events M          calls per thread in a drained run (default 500000)
#   --calls N           timed calls of the caller's run (default 200000)
#   --instructions N    also count instructions per call over N calls (callgrind; needs valgrind)
#   --quick             --events 20000 --calls 20000, --instructions 1000 when given
# Exit 0: every measurement made and checked; 1: a failure (its message on stderr); 2: usage;
# 3: (lttng) the session daemon cannot run here (sandbox.sh's message).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tracer='' drivers='' out='' sink_dir=/tmp seqring_sink=ctf threads=1,4 events=500000 calls=200000 instr=0 quick=0
orig_args=("$@")
while [ $# -gt 0 ]; do
  case "$1" in
    --tracer) tracer=${2:?--tracer needs a value}; shift ;;
    --drivers) drivers=${2:?--drivers needs a directory}; shift ;;
    --out) out=${2:?--out needs a file}; shift ;;
    --sink-dir) sink_dir=${2:?--sink-dir needs a directory}; shift ;;
    --seqring-sink) seqring_sink=${2:?--seqring-sink needs ctf or file}; shift ;;
    --threads) threads=${2:?--threads needs a list}; shift ;;
    --events) events=${2:?--events needs a count}; shift ;;
    --calls) calls=${2:?--calls needs a count}; shift ;;
    --instructions) instr=${2:?--instructions needs a count}; shift ;;
    --quick) quick=1 ;;
    -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
    *) echo "trace run: unknown argument '$1' (--help lists them)" >&2; exit 2 ;;
  esac
  shift
done
case "$tracer" in seqring|lttng) ;; *) echo "trace run: --tracer must be seqring or lttng" >&2; exit 2 ;; esac
case "$seqring_sink" in ctf|file) ;; *) echo "trace run: --seqring-sink must be ctf or file" >&2; exit 2 ;; esac
if [ -z "$drivers" ] || [ -z "$out" ]; then echo "trace run: --drivers and --out are required" >&2; exit 2; fi
if [ "$quick" = 1 ]; then
  events=20000 calls=20000
  [ "$instr" = 0 ] || instr=1000
fi
drivers=$(cd "$drivers" && pwd)
driver=$drivers/trace_$tracer
[ -x "$driver" ] || { echo "trace run: $driver not found (perf/peers/lttng/build.sh builds it)" >&2; exit 1; }
mkdir -p "$sink_dir"
sink_dir=$(cd "$sink_dir" && pwd)

# LTTng: everything below runs beside a session daemon of its own (sandbox.sh re-runs this script)
if [ "$tracer" = lttng ] && [ "${SEQRING_LTTNG_SANDBOX:-}" != inside ]; then
  exec bash "$here/sandbox.sh" -- bash "$here/run.sh" "${orig_args[@]}"
fi

say() { echo "[trace $tracer] $*" >&2; }
scratch=$(mktemp -d "$sink_dir/seqring-trace-$tracer.XXXXXX")
session=
# shellcheck disable=SC2317  # run by the trap
cleanup() {
  local rc=$?
  trap - EXIT
  if [ -n "$session" ]; then lttng destroy "$session" >/dev/null 2>&1 || true; fi
  rm -rf "$scratch"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 143' TERM INT

# --- LTTng's session: the settings README.md lists ----------------------------------------------
# One channel of per-user buffers (LTTng's default buffering for user space), 8 sub-buffers of
# 1 MiB per CPU (room for about 240,000 of these events per CPU: far more than a burst of the
# caller's run), discard mode with --blocking-timeout=inf: a tracepoint that finds no room waits
# for the consumer daemon instead of discarding (the application needs LTTNG_UST_ALLOW_BLOCKING=1,
# sandbox.sh sets it), so nothing is lost, as seqring's queue-full policy block. Output: local
# files (--output), the consumer daemon's default mmap mode; clock: LTTng's default, the monotonic
# clock. No switch or read timer: sub-buffers go to disk when full and at the stop. The drained
# runs' driver stops the session itself (`lttng stop` through liblttng-ctl, timed); the others are
# stopped here with `lttng stop`, which also waits until the data is written.
SUBBUF_SIZE=1M
SUBBUF_COUNT=8
lttng_session() {  # NAME DIR: create, enable, start
  session=$1
  lttng create "$1" --output="$2" >/dev/null
  lttng enable-channel --userspace --session="$1" --buffers-uid --subbuf-size=$SUBBUF_SIZE \
    --num-subbuf=$SUBBUF_COUNT --blocking-timeout=inf chan >/dev/null
  lttng enable-event --userspace --session="$1" --channel=chan seqring_bench:call >/dev/null
  lttng start "$1" >/dev/null
}
lttng_discarded() {  # NAME: the channel's "Discarded events" statistic (after lttng stop)
  lttng list "$1" | awk -F: '/Discarded events/ { gsub(/ /, "", $2); print $2; exit }'
}
lttng_end() {  # NAME: destroy (the session is stopped)
  lttng destroy "$1" >/dev/null
  session=
}

# The events and discarded-event notices in a CTF trace (babeltrace2's counter; step=+0: only
# the final figures): "EVENTS DISCARDED_MESSAGES"
ctf_count() {
  babeltrace2 "$1" -c sink.utils.counter -p step=+0 2>"$scratch/bt.err" |
    awk '/Event messages/ && !/Discarded/ { e = $1 } /Discarded event messages/ { d = $1 } END { print e + 0, d + 0 }'
}

# seqring's sink for one measurement: a fresh directory (ctf) or file (file) under scratch
seqring_sink_set() {  # NAME: exports SEQRING_LOG_SINK; TRACE_PATH is what to count and measure
  if [ "$seqring_sink" = ctf ]; then
    TRACE_PATH=$scratch/$1
    export SEQRING_LOG_SINK=ctf:$TRACE_PATH
  else
    TRACE_PATH=$scratch/$1.log
    export SEQRING_LOG_SINK=file:$TRACE_PATH
  fi
}
# count_trace PATH -> "EVENTS DISCARDED_MESSAGES BYTES": everything in the trace, its size on
# disk (apparent bytes of every file: LTTng's metadata and index files and seqring's metadata included)
count_trace() {
  local p=$1 counts bytes
  if [ -f "$p" ]; then
    counts="$(wc -l < "$p") 0"   # a text file: one line per event
  else
    counts=$(ctf_count "$p")
  fi
  bytes=$(du -sb "$p" | cut -f1)
  echo "$counts $bytes"
}

sink_label=$tracer
[ "$tracer" = seqring ] && sink_label=$seqring_sink
[ "$tracer" = lttng ] && sink_label=ust
header="library,sink,threads,events,seconds,events_per_sec,bytes_per_event,discarded,instructions_per_call,p50_ns,p99_ns,p999_ns,mean_ns,timer_p50_ns,calls_per_sec"
caller_cols=",,,,,"
ipc=""

# --- instructions per call (callgrind; deterministic, so once is enough) --------------------------
callgrind_refs() {  # ARGS...: the largest "I refs" of the run (LTTng's helper processes show 0)
  local log=$scratch/callgrind.log
  if ! valgrind --tool=callgrind --toggle-collect='counted_calls_*' --callgrind-out-file=/dev/null \
       "$driver" "$@" > /dev/null 2> "$log"; then
    echo "trace run: $driver $* failed under callgrind:" >&2
    grep -v '^==' "$log" >&2 || true
    return 1
  fi
  sed -n 's/.*I *refs: *//p' "$log" | tr -d , | sort -n | tail -n 1
}
if [ "$instr" != 0 ]; then
  if ! command -v valgrind >/dev/null 2>&1; then
    say "no valgrind: no instruction counts (apt-get install valgrind)"
  else
    say "instructions per call: callgrind, $instr calls"
    # each run into a trace of its own (a ctf: directory that holds a trace is refused)
    if [ "$tracer" = lttng ]; then lttng_session trace-instr "$scratch/instr"; else seqring_sink_set instr-loop; fi
    loop=$(callgrind_refs --count-loop "$instr")
    [ "$tracer" = lttng ] || seqring_sink_set instr
    calls_ir=$(callgrind_refs --count "$instr")
    if [ "$tracer" = lttng ]; then lttng stop "$session" >/dev/null; lttng_end "$session"; fi
    rm -rf "$scratch"/instr*
    if [ -z "$calls_ir" ] || [ -z "$loop" ] || [ "$calls_ir" -le 0 ]; then
      echo "trace run: callgrind gave no instruction count for $driver --count $instr" >&2
      exit 1
    fi
    ipc=$(awk -v a="$calls_ir" -v b="$loop" -v n="$instr" 'BEGIN { printf "%.1f", (a - b) / n }')
  fi
fi

# --- the caller's cost: p50, p99, p99.9 (one run after the driver's warm-up round) ----------------
say "caller: $calls timed calls"
if [ "$tracer" = lttng ]; then lttng_session trace-caller "$scratch/caller"; else
  seqring_sink_set caller; fi
row=$("$driver" --caller --calls "$calls" --runs 1)
if [ "$tracer" = lttng ]; then
  lttng stop "$session" >/dev/null
  d=$(lttng_discarded "$session")
  lttng_end "$session"
  [ "$d" = 0 ] || { echo "trace run: LTTng discarded $d events in the caller's run" >&2; exit 1; }
fi
rm -rf "$scratch/caller" "$scratch/caller.log"
# caller,TRACER,runs,calls,p50,p99,p999,mean,timer_p50
caller_cols=$(echo "$row" | awk -F, '$1 == "caller" { printf ",%s,%s,%s,%s,%s", $5, $6, $7, $8, $9 }')
[ -n "$caller_cols" ] || { echo "trace run: the caller's run printed no row" >&2; exit 1; }

# --- drained: T threads x M events, into a fresh trace each --------------------------------------
echo "$header" > "$out"
first=1
for t in ${threads//,/ }; do
  say "drained: $t thread(s) x $events events"
  name=drain-$t
  if [ "$tracer" = lttng ]; then
    lttng_session "trace-$name" "$scratch/$name"
    TRACE_PATH=$scratch/$name
    row=$("$driver" --drain --threads "$t" --events "$events" --session "$session")
    dropped=$(lttng_discarded "$session")
    lttng_end "$session"
  else
    seqring_sink_set "$name"
    row=$("$driver" --drain --threads "$t" --events "$events")
    dropped=$(echo "$row" | cut -d, -f7)
  fi
  read -r counted notices bytes < <(count_trace "$TRACE_PATH")
  expected=$(( t * (events + 1) ))  # each thread's untimed first call too
  if [ "$counted" != "$expected" ] || [ "$notices" != 0 ] || [ "$dropped" != 0 ]; then
    echo "trace run: $t thread(s): the trace holds $counted events (expected $expected), $notices" \
      "discarded-event notices; the tracer counts $dropped discarded" >&2
    exit 1
  fi
  # drain,TRACER,T,M,seconds,events_per_sec,dropped,call_seconds,calls_per_sec
  echo "$row" | awk -F, -v lib="$tracer" -v sink="$sink_label" -v b="$bytes" -v n="$counted" \
      -v ipc="$([ "$first" = 1 ] && echo "$ipc")" -v cc="$([ "$first" = 1 ] && echo "$caller_cols" || echo ",,,,,")" '
    $1 == "drain" { printf "%s,%s,%s,%d,%s,%s,%.1f,0,%s%s,%s\n", lib, sink, $3, $3 * $4, $5, $6, b / n, ipc, cc, $9 }' >> "$out"
  rm -rf "$TRACE_PATH"
  first=0
done
say "done: $out"
