#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# perf/peers/run_peers.sh: the `make bench-peers` driver: seqring beside its peers,
# Log4j 2, Logback, spdlog and the LMAX Disruptor, on perf/'s workloads, between two
# processes beside iceoryx, ZeroMQ, nng, a unix socket and a pipe, and as a binary trace
# (its ctf: sink) beside LTTng-UST, in one run.
#
#   perf/peers/run_peers.sh [options] [BUILD_DIR]
#     --quick          tiny counts, one round (a smoke test of the whole chain: ~2 minutes)
#     --rounds N       throughput, ring, ipc and trace rounds (default 5)
#     --phases LIST    throughput,latency,ring,ipc,trace (default all five)
#     --only REGEX     only the contenders whose id matches (seqring, and ipc's cache line, always run)
#     --no-deps        do not check the Debian packages (perf/peers/deps.sh; ipc's own are
#                      checked by perf/peers/ipc/build.sh whatever this says)
# BUILD_DIR: seqring's release build (default $SEQRING_BUILD_DIR or build/release).
# Environment: RESULTS_DIR (perf/results), PEERS_SINK_DIR (/tmp: the log files),
# JAVA_OPTS (-Xms2g -Xmx2g -XX:+UseG1GC), JAR_DIR (/usr/share/java), TP_TIMEOUT, LAT_TIMEOUT,
# RING_TIMEOUT, IPC_TIMEOUT, TRACE_TIMEOUT (seconds per harness invocation before it counts as
# hung), IPC_PIN (P,C: pin ipc's producers to CPU P and consumers to CPU C; default none),
# TRACE_SEQRING_SINK (trace: ctf, file, or auto, the default: ctf when this build has the sink).
#
# Every contender runs once per round (seqring, then each peer, one at a time, never two at
# once), --runs 1 each; medians, min and max are taken over the rounds.  A harness that exits
# non-zero is "crashed (exit N)", one killed by its timeout "hung (killed after S s)": its
# rows get empty rates and runs=0 in the CSV and say so in the tables.
# Writes: RESULTS_DIR/peers.md (tables; the trace phase's alone in peers-trace.md too),
# RESULTS_DIR/peers/*.csv (every row of this run,
# seqring's included), *.png, environment.txt; and appends the peers' rows to
# RESULTS_DIR/throughput.csv, latency.csv and ring.csv after removing the peer rows a previous run
# left there (seqring's own rows in those files are not touched). Also, for a look at this run's
# failures: RESULTS_DIR/peers/logs/ (each invocation's output), raw/ (per-round CSVs, status) and
# dist/ (percentile files); git ignores those three (.gitignore).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$ROOT/perf/peers
BUILD_DIR=${BUILD_DIR:-${SEQRING_BUILD_DIR:-$ROOT/build/release}}
PEERS_BUILD=${PEERS_BUILD_DIR:-$ROOT/build/peers}
RESULTS=${RESULTS_DIR:-$ROOT/perf/results}
OUT=$RESULTS/peers
SINK_DIR=${PEERS_SINK_DIR:-/tmp}
JAVA=${JAVA:-java}
JAVAC=${JAVAC:-javac}
JAVA_OPTS=${JAVA_OPTS:--Xms2g -Xmx2g -XX:+UseG1GC}
JAR_DIR=${JAR_DIR:-/usr/share/java}
QUICK=0
ROUNDS=5
PHASES=throughput,latency,ring,ipc,trace
ONLY=.
DEPS=1
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) QUICK=1 ;;
    --rounds) ROUNDS=${2:?--rounds needs a value}; shift ;;
    --phases) PHASES=${2:?--phases needs a value}; shift ;;
    --only) ONLY=${2:?--only needs a value}; shift ;;
    --no-deps) DEPS=0 ;;
    -h|--help) sed -n '2,32p' "$0"; exit 0 ;;
    -*) echo "run_peers: unknown option: $1 (--help lists them)" >&2; exit 2 ;;
    *) BUILD_DIR=$1 ;;
  esac
  shift
done
case "$ROUNDS" in ''|*[!0-9]*|0) echo "run_peers: --rounds '$ROUNDS' is invalid: expected 1 or more" >&2; exit 2 ;; esac
if [ "$QUICK" = 1 ]; then ROUNDS=1; fi
for phase in ${PHASES//,/ }; do
  case "$phase" in
    throughput|latency|ring|ipc|trace) ;;
    *) echo "run_peers: --phases '$PHASES': '$phase' is not a phase: expected throughput, latency, ring, ipc or trace" >&2; exit 2 ;;
  esac
done
say() { echo "[peers] $*" >&2; }
has_phase() { case ",$PHASES," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }
wanted() { [ "$1" = seqring ] || [[ $1 =~ $ONLY ]]; }
# the phases that run Java (throughput, latency and ring all have a Java peer)
java_phases() { has_phase throughput || has_phase latency || has_phase ring; }

# --- setup: packages, seqring's harnesses, the Java and C++ harnesses ---------
if [ "$DEPS" = 1 ]; then
  bash "$HERE/deps.sh"
fi
tools=(timeout awk)
if java_phases; then tools+=("$JAVA" "$JAVAC"); fi
for tool in "${tools[@]}"; do
  command -v "$tool" >/dev/null 2>&1 || { echo "run_peers: $tool not found (perf/peers/deps.sh installs the JDK)" >&2; exit 1; }
done
[ -d "$BUILD_DIR" ] || { echo "run_peers: build directory $BUILD_DIR does not exist (make release first)" >&2; exit 1; }
BUILD_DIR=$(cd "$BUILD_DIR" && pwd)
bins=()
if has_phase throughput; then bins+=(throughput); fi
if has_phase latency; then bins+=(latency); fi
if has_phase ring; then bins+=(ring_perf); fi
for bin in "${bins[@]}"; do
  [ -x "$BUILD_DIR/perf/$bin" ] || { echo "run_peers: $BUILD_DIR/perf/$bin not found (make release first)" >&2; exit 1; }
done
THROUGHPUT=$BUILD_DIR/perf/throughput
LATENCY=$BUILD_DIR/perf/latency
RING_PERF=$BUILD_DIR/perf/ring_perf

if java_phases; then
  jars() { local j out=""; for j in "$@"; do out="$out:$JAR_DIR/$j.jar"; done; echo "${out#:}"; }
  LOG4J_JARS=$(jars log4j-api log4j-core disruptor hdrhistogram)
  LOGBACK_JARS=$(jars logback-classic logback-core slf4j-api hdrhistogram)
  DISRUPTOR_JARS=$(jars disruptor)
  for j in ${LOG4J_JARS//:/ } ${LOGBACK_JARS//:/ }; do
    [ -f "$j" ] || { echo "run_peers: $j not found (perf/peers/deps.sh installs it)" >&2; exit 1; }
  done
  CLASSES=$PEERS_BUILD/java
  rm -rf "$CLASSES"
  mkdir -p "$CLASSES"
  say "compiling the Java harnesses into $CLASSES"
  "$JAVAC" -Xlint:all -d "$CLASSES" -cp "$LOG4J_JARS:$LOGBACK_JARS" "$HERE"/java/*.java
  # shellcheck disable=SC2206
  JVM=("$JAVA" $JAVA_OPTS)
  J_LOG4J=("${JVM[@]}" -cp "$CLASSES:$LOG4J_JARS")
  J_LOGBACK=("${JVM[@]}" -cp "$CLASSES:$LOGBACK_JARS")
  J_DISRUPTOR=("${JVM[@]}" -cp "$CLASSES:$DISRUPTOR_JARS")
  CONFIG=(--config-dir "$HERE/java")
fi

# spdlog's harness includes <seqring/sr_time.h> from the release build's staged headers, as every
# program of the tree does. A peer that does not build fails the run here, before any
# measurement, rather than leaving its rows out of tables that would not say so.
if has_phase throughput && wanted spdlog; then
  say "building the spdlog harness into $PEERS_BUILD"
  if ! sh "$HERE/spdlog/build.sh" "$PEERS_BUILD" "$BUILD_DIR/include" >&2; then
    echo "run_peers: perf/peers/spdlog/build.sh $PEERS_BUILD $BUILD_DIR/include failed (its error is above);" \
      "fix it, or leave spdlog out with --only" >&2
    exit 1
  fi
fi

# ipc's programs (perf/peers/ipc/build.sh installs their Debian packages when missing): every one
# must build, but seqring's shared-memory row, built only when shm/sr_shm_ring.h exists and
# otherwise left out with a row that says why (IPC_BUILD/seqring_shm.status).
IPC_BUILD=$PEERS_BUILD/ipc
if has_phase ipc; then
  say "building the ipc programs into $IPC_BUILD"
  if ! bash "$HERE/ipc/build.sh" "$IPC_BUILD" "$BUILD_DIR"; then
    echo "run_peers: perf/peers/ipc/build.sh $IPC_BUILD $BUILD_DIR failed (its error is above);" \
      "fix it, or leave the ipc phase out with --phases" >&2
    exit 1
  fi
fi

# trace's two drivers (perf/peers/lttng/build.sh; its Debian packages are deps.sh's): both must
# build. Then whether an LTTng session daemon can run here at all (perf/peers/lttng/sandbox.sh
# --check: root, namespaces, lttng-sessiond): if not, the phase is skipped, and the table's
# section says why, rather than failed. And seqring's sink: ctf: when this build has it
# (TRACE_SEQRING_SINK=auto, the default: the driver opens a logger on a ctf: sink once), else
# the text file sink in its place, said in the table.
TRACE_BUILD=$PEERS_BUILD/lttng
TRACE_SKIP=
TRACE_SINK=${TRACE_SEQRING_SINK:-auto}
if has_phase trace; then
  mkdir -p "$SINK_DIR"
  say "building the trace drivers into $TRACE_BUILD"
  if ! bash "$HERE/lttng/build.sh" "$TRACE_BUILD" "$BUILD_DIR"; then
    echo "run_peers: perf/peers/lttng/build.sh $TRACE_BUILD $BUILD_DIR failed (its error is above);" \
      "fix it, or leave the trace phase out with --phases" >&2
    exit 1
  fi
  if ! trace_check=$(bash "$HERE/lttng/sandbox.sh" --check 2>&1); then
    TRACE_SKIP=$(echo "$trace_check" | head -n 1)
    say "trace: SKIPPED, no LTTng session daemon can run here: $TRACE_SKIP"
  fi
  [ -n "$TRACE_SKIP" ] || case "$TRACE_SINK" in
    ctf|file) ;;
    auto)
      probe=$(mktemp -d "$SINK_DIR/seqring-trace-probe.XXXXXX")
      if SEQRING_LOG_SINK=ctf:$probe/t "$TRACE_BUILD/trace_seqring" --count 1 >/dev/null 2>"$probe/err"; then
        TRACE_SINK=ctf
      else
        TRACE_SINK="file"
        say "trace: this build has no ctf: sink ($(head -n 1 "$probe/err")): seqring's text file sink in its place"
      fi
      rm -rf "$probe" ;;
    *) echo "run_peers: TRACE_SEQRING_SINK '$TRACE_SINK' is invalid: expected ctf, file or auto" >&2; exit 2 ;;
  esac
fi

# --- what runs ------------------------------------------------------------------
if [ "$QUICK" = 1 ]; then
  THREADS=1,2,4
  SIZE=(--quick)
  LAT_CONFIGS="1x1000"
  TP_TIMEOUT=${TP_TIMEOUT:-120}; LAT_TIMEOUT=${LAT_TIMEOUT:-60}; RING_TIMEOUT=${RING_TIMEOUT:-120}
  IPC_TIMEOUT=${IPC_TIMEOUT:-120}; TRACE_TIMEOUT=${TRACE_TIMEOUT:-120}
else
  THREADS=1,2,4,8,16,32,64
  SIZE=()
  LAT_CONFIGS="2x8000 4x8000"
  TP_TIMEOUT=${TP_TIMEOUT:-900}; LAT_TIMEOUT=${LAT_TIMEOUT:-180}; RING_TIMEOUT=${RING_TIMEOUT:-600}
  IPC_TIMEOUT=${IPC_TIMEOUT:-600}; TRACE_TIMEOUT=${TRACE_TIMEOUT:-300}
fi
MESSAGE_BYTES=500
# seqring's ring rows: its default wait (phased) and the waits Log4j 2's rows use
SEQRING_WAITS=${SEQRING_WAITS:-default,timeout,yield,busyspin}
# and in the response-time table: its default and the two waits of Log4j 2's rows there
SEQRING_LAT_WAITS=${SEQRING_LAT_WAITS:-default,timeout,yield}
TP_IDS=(seqring log4j2-async-timeout log4j2-async-yield log4j2-async-busyspin log4j2-appender log4j2-sync
        logback-async logback-sync spdlog)
LAT_IDS=(seqring log4j2-async-timeout log4j2-async-yield)
RING_IDS=(seqring disruptor)
# ipc: seqring in-process (the ceiling), seqring between processes, the peers, the baselines, and
# the cache line (the latency reference; it always runs, as seqring does)
IPC_IDS=(seqring seqring-shm iceoryx zeromq nng unix-socket pipe cacheline)

RAW=$OUT/raw
LOGS=$OUT/logs
rm -rf "$RAW" "$LOGS"
mkdir -p "$RAW" "$LOGS" "$SINK_DIR"
: > "$RAW/status.tsv"
: > "$RAW/expected.csv"
start=$(date +%s)

{
  echo "date: $(date -u '+%Y-%m-%dT%H:%M:%SZ')"
  echo "commit: $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$ROOT" diff --quiet 2>/dev/null || echo ' (with uncommitted changes)')"
  echo "cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), $(nproc) online"
  echo "kernel: $(uname -srm)"
  echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
  if java_phases; then
    echo "java: $("$JAVA" -version 2>&1 | tr '\n' ' ')"
    echo "JAVA_OPTS: $JAVA_OPTS"
  fi
  echo "phases: $PHASES; rounds: $ROUNDS; threads: $THREADS; latency: $LAT_CONFIGS; quick: $QUICK"
  echo "packages (dpkg):"
  dpkg-query -W -f='  ${Package} ${Version}\n' default-jdk-headless openjdk-17-jdk-headless liblog4j2-java \
    libdisruptor-java liblogback-java libslf4j-java libhdrhistogram-java libspdlog-dev libfmt-dev \
    iceoryx libiceoryx-binding-c-dev libzmq3-dev libzmq5 libnng-dev libnng1 lttng-tools liblttng-ust-dev \
    liblttng-ust1 babeltrace2 valgrind 2>/dev/null || true
} > "$OUT/environment.txt"

# run_one PHASE ID ROUND LIMIT CMD...: one harness invocation, under `timeout`, its output in
# logs/; the exit status goes to raw/status.tsv (124/137: killed by the timeout).
run_one() {
  local phase=$1 id=$2 round=$3 limit=$4
  shift 4
  local log=$LOGS/$phase.$id.$round t0 rc=0
  t0=$(date +%s)
  timeout -k 10 "$limit" "$@" > "$log.out" 2> "$log.err" || rc=$?
  printf '%s\t%s\t%s\t%s\t%s\n' "$phase" "$id" "$round" "$rc" "$limit" >> "$RAW/status.tsv"
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    say "  $id HUNG: killed after $limit s; its last words: $(tail -n 1 "$log.err" 2>/dev/null)"
  elif [ "$rc" != 0 ]; then
    say "  $id CRASHED (exit $rc); $log.err ends:"
    tail -n 5 "$log.err" >&2 || true
  else
    say "  $id: $(( $(date +%s) - t0 )) s"
  fi
}

# expect PHASE ID KEYS...: rows a peer must produce (key fields of its CSV); missing ones are
# reported as failed.
expect() {
  local phase=$1 id=$2
  shift 2
  local k
  for k in "$@"; do echo "$phase,$id,$k" >> "$RAW/expected.csv"; done
}

# --- throughput: perf/throughput's table ------------------------------------------
tp_modes() {  # the CSV mode,wait,policy of a Java contender id
  case "$1" in
    log4j2-async-*) echo "log4j2-async,${1#log4j2-async-},block" ;;
    *-sync) echo "$1,none,none" ;;
    *) echo "$1,none,block" ;;
  esac
}
tp_run() {
  local id=$1 k=$2 csv=$RAW/tp.$1.$2.csv
  local common=(--out "$csv" --sink-dir "$SINK_DIR")  # --out first: spdlog/run.sh takes the CSV apart
  [ "$QUICK" = 1 ] || common+=(--runs 1 --threads "$THREADS")
  case "$id" in
    seqring) run_one throughput "$id" "$k" "$TP_TIMEOUT" "$THROUGHPUT" "${SIZE[@]}" "${common[@]}" \
               --modes ring,queue,sync,ceiling --wait "$SEQRING_WAITS" ;;
    log4j2-async-*) run_one throughput "$id" "$k" "$TP_TIMEOUT" "${J_LOG4J[@]}" seqring.peers.LoggerThroughput \
               "${SIZE[@]}" "${common[@]}" "${CONFIG[@]}" --modes log4j2-async --wait "${id#log4j2-async-}" ;;
    log4j2-*) run_one throughput "$id" "$k" "$TP_TIMEOUT" "${J_LOG4J[@]}" seqring.peers.LoggerThroughput \
               "${SIZE[@]}" "${common[@]}" "${CONFIG[@]}" --modes "$id" ;;
    logback-*) run_one throughput "$id" "$k" "$TP_TIMEOUT" "${J_LOGBACK[@]}" seqring.peers.LoggerThroughput \
               "${SIZE[@]}" "${common[@]}" "${CONFIG[@]}" --modes "$id" ;;
    spdlog) run_one throughput "$id" "$k" "$TP_TIMEOUT" bash "$HERE/spdlog/run.sh" "$PEERS_BUILD" "$csv" \
               "${SIZE[@]}" "${common[@]:2}" ;;  # run.sh passes --out CSV itself
  esac
}
if has_phase throughput; then
  for id in "${TP_IDS[@]}"; do
    wanted "$id" || continue
    keys=()
    case "$id" in
      seqring) ;;
      spdlog) for m in 8k-block,none,block 8k-overrun,none,overrun_oldest 256k-block,none,block \
                       256k-overrun,none,overrun_oldest; do keys+=("spdlog-async-$m"); done
              keys+=("spdlog-sync,none,none") ;;
      *) keys=("$(tp_modes "$id")") ;;
    esac
    for key in "${keys[@]}"; do
      for t in ${THREADS//,/ }; do expect throughput "$id" "$key,$t,$MESSAGE_BYTES"; done
    done
  done
  for k in $(seq 1 "$ROUNDS"); do
    i=0
    for id in "${TP_IDS[@]}"; do
      wanted "$id" || continue
      i=$((i + 1))
      say "throughput round $k/$ROUNDS, contender $i: $id"
      tp_run "$id" "$k"
    done
  done
fi

# --- response time: perf/latency's test, seqring vs Log4j 2 all-async -------------
if has_phase latency; then
  for cfg in $LAT_CONFIGS; do
    for id in "${LAT_IDS[@]}"; do
      [ "$id" = seqring ] && continue
      wanted "$id" || continue
      for kind in service response; do
        expect latency "$id" "log4j2-async,${id#log4j2-async-},${cfg%x*},${cfg#*x},$kind"
      done
    done
  done
  LAT_ROUNDS=${LAT_ROUNDS:-1}
  mkdir -p "$OUT/dist"
  rm -f "$OUT"/dist/latency_*.dat
  for k in $(seq 1 "$LAT_ROUNDS"); do
    for cfg in $LAT_CONFIGS; do
      T=${cfg%x*} R=${cfg#*x}
      for id in "${LAT_IDS[@]}"; do
        wanted "$id" || continue
        say "latency round $k/$LAT_ROUNDS, $T threads x $R msg/s: $id"
        csv=$RAW/lat.$id.$k-$cfg.csv
        lat=(--out "$csv" --dist-dir "$OUT/dist" --sink-dir "$SINK_DIR")
        if [ "$QUICK" = 1 ]; then lat+=(--quick); else lat+=(--threads "$T" --rate "$R"); fi
        if [ "$id" = seqring ]; then
          run_one latency "$id" "$k-$cfg" "$LAT_TIMEOUT" "$LATENCY" "${lat[@]}" --modes ring \
            --wait "$SEQRING_LAT_WAITS"
        else
          run_one latency "$id" "$k-$cfg" "$LAT_TIMEOUT" "${J_LOG4J[@]}" seqring.peers.LoggerLatency "${lat[@]}" \
            "${CONFIG[@]}" --modes log4j2-async --wait "${id#log4j2-async-}"
        fi
      done
    done
  done
fi

# --- ring topologies: ring_perf vs the Disruptor, each wait strategy ----------------
RING_TOPOS=1-1,1-1-batch,3-1
RING_WAITS=busyspin,yield,sleep,block,liteblock,timeout,phased
if has_phase ring; then
  if wanted disruptor; then
    for topo in ${RING_TOPOS//,/ }; do
      p=1 b=1
      [ "$topo" = 3-1 ] && p=3
      [ "$topo" = 1-1-batch ] && b=10
      for w in ${RING_WAITS//,/ }; do expect ring disruptor "disruptor:$topo,$w,$p,1,$b"; done
    done
  fi
  for k in $(seq 1 "$ROUNDS"); do
    for id in "${RING_IDS[@]}"; do
      wanted "$id" || continue
      say "ring round $k/$ROUNDS: $id"
      ring=(--topo "$RING_TOPOS" --wait "$RING_WAITS" --out "$RAW/ring.$id.$k.csv")
      if [ "$QUICK" = 1 ]; then ring+=(--quick); else ring+=(--runs 1); fi
      if [ "$id" = seqring ]; then
        run_one ring "$id" "$k" "$RING_TIMEOUT" "$RING_PERF" "${ring[@]}" --no-baselines
      else
        run_one ring "$id" "$k" "$RING_TIMEOUT" "${J_DISRUPTOR[@]}" seqring.peers.DisruptorRing "${ring[@]}"
      fi
    done
  done
fi

# --- ipc: 1 producer process -> 1 consumer process, each transport's program -------------
# Each program measures both event sizes (8, 64 bytes) of its transport in one invocation, --quick
# or defaults (perf/peers/ipc/README.md), and writes its CSV rows to stdout (logs/ipc.ID.K.out,
# copied to raw/). iceoryx runs inside iceoryx_sandbox.sh, which starts its RouDi and stops it.
ipc_cmd() {  # IPC_CMD: the command of an ipc contender
  case "$1" in
    seqring) IPC_CMD=("$IPC_BUILD/ipc_seqring") ;;
    seqring-shm) IPC_CMD=("$IPC_BUILD/ipc_seqring_shm") ;;
    iceoryx) IPC_CMD=(bash "$HERE/ipc/iceoryx_sandbox.sh" -- "$IPC_BUILD/ipc_iceoryx") ;;
    zeromq) IPC_CMD=("$IPC_BUILD/ipc_zeromq") ;;
    nng) IPC_CMD=("$IPC_BUILD/ipc_nng") ;;
    unix-socket) IPC_CMD=("$IPC_BUILD/ipc_uds") ;;
    pipe) IPC_CMD=("$IPC_BUILD/ipc_pipe") ;;
    cacheline) IPC_CMD=("$IPC_BUILD/ipc_cacheline") ;;
  esac
}
IPC_RUN=()
: > "$RAW/ipc.notbuilt"
if has_phase ipc; then
  for id in "${IPC_IDS[@]}"; do
    wanted "$id" || [ "$id" = cacheline ] || continue
    if [ "$id" = seqring-shm ] && [ ! -x "$IPC_BUILD/ipc_seqring_shm" ]; then
      why=$(cat "$IPC_BUILD/seqring_shm.status" 2>/dev/null || echo "not built")
      say "ipc: seqring-shm left out: $why"
      printf '%s\t%s\n' "$id" "${why//,/;}" >> "$RAW/ipc.notbuilt"
      continue
    fi
    IPC_RUN+=("$id")
  done
  IPC_ARGS=()
  [ "$QUICK" = 1 ] && IPC_ARGS=(--quick)
  # IPC_PIN=P,C pins every producer to CPU P and consumer to CPU C (default: no pinning, as perf/)
  [ -n "${IPC_PIN:-}" ] && IPC_ARGS+=(--pin "$IPC_PIN")
  for k in $(seq 1 "$ROUNDS"); do
    for id in "${IPC_RUN[@]}"; do
      say "ipc round $k/$ROUNDS: $id"
      ipc_cmd "$id"
      run_one ipc "$id" "$k" "$IPC_TIMEOUT" "${IPC_CMD[@]}" "${IPC_ARGS[@]}" --out -
      cp "$LOGS/ipc.$id.$k.out" "$RAW/ipc.$id.$k.csv"
    done
  done
fi

# --- trace: seqring's ctf: sink vs LTTng-UST, one tracer at a time --------------------------------
# perf/peers/lttng/run.sh measures one tracer in one round (the caller's cost, then the drained
# runs at each thread count, every event counted in the trace); LTTng's inside a session daemon of
# its own (sandbox.sh). Instructions per call (callgrind: exact, the same every round) in round 1.
TRACE_IDS=(seqring lttng)
TRACE_THREADS=1,4
if has_phase trace && [ -z "$TRACE_SKIP" ]; then
  for k in $(seq 1 "$ROUNDS"); do
    for id in "${TRACE_IDS[@]}"; do
      wanted "$id" || continue
      say "trace round $k/$ROUNDS: $id"
      targs=(--tracer "$id" --drivers "$TRACE_BUILD" --out "$RAW/trace.$id.$k.csv" --sink-dir "$SINK_DIR"
             --seqring-sink "$TRACE_SINK" --threads "$TRACE_THREADS")
      [ "$QUICK" = 1 ] && targs+=(--quick)
      [ "$k" = 1 ] && targs+=(--instructions 100000)
      run_one trace "$id" "$k" "$TRACE_TIMEOUT" bash "$HERE/lttng/run.sh" "${targs[@]}"
    done
  done
fi
say "measurements took $(( $(date +%s) - start )) s"

# --- aggregation -------------------------------------------------------------------
# aggregate PHASE NCOL NKEY MEDIAN_COLS RUNS_COL MIN_COL MAX_COL SRC_COL ZERO_COL FILES...: one CSV
# row per contender and key (the first NKEY of the NCOL columns) over the rounds: the median of
# each MEDIAN_COLS column, the count of rounds in RUNS_COL, min and max of SRC_COL in MIN_COL and
# MAX_COL (0: the file has no such column); ZERO_COL is 0 in the rows no round produced.  Output: "id,<the harness's columns>,note", with rows of
# empty values and runs 0 for the expected keys no round produced; the note says which rounds
# crashed or hung.
aggregate() {
  local phase=$1 ncol=$2 nkey=$3 med=$4 runs=$5 lo=$6 hi=$7 src=$8 zero=$9
  shift 9
  awk -F, -v phase="$phase" -v ncol="$ncol" -v zerocol="$zero" -v nkey="$nkey" -v med="$med" -v runscol="$runs" -v locol="$lo" -v hicol="$hi" \
      -v src="$src" -v rounds="$ROUNDS" -v statusfile="$RAW/status.tsv" -v expfile="$RAW/expected.csv" '
    function sorted(key, col, n, a,    i, j, t) {
      for (i = 1; i <= n; i++) a[i] = vals[key, col, i] + 0
      for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    }
    function median(key, col, n,    a) {
      sorted(key, col, n, a)
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    function addkey(key) { if (!(key in seen)) { seen[key] = 1; order[++nk] = key } }
    BEGIN {
      nm = split(med, M, " ")
      while ((getline line < statusfile) > 0) {
        split(line, s, "\t")
        if (s[1] != phase || s[4] == 0) continue
        failed[s[2]]++
        if (s[4] == 124 || s[4] == 137) what[s[2]] = "hung (killed after " s[5] " s)"
        else what[s[2]] = "crashed (exit " s[4] ")"
      }
    }
    FNR == 1 { id = FILENAME; sub(/.*\/[a-z]+\./, "", id); sub(/\.[^.]*\.csv$/, "", id) }
    FNR == 1 && ($1 == "mode" || $1 == "topology") { next }
    {
      key = id
      for (i = 1; i <= nkey; i++) key = key "," $i
      addkey(key)
      c = ++count[key]
      for (i = 1; i <= NF; i++) vals[key, i, c] = $i
    }
    END {
      # the rows a peer should have made and no round did, after those made
      while ((getline line < expfile) > 0) {
        n = split(line, e, ",")
        if (e[1] != phase) continue
        key = e[2]
        for (i = 3; i <= n; i++) key = key "," e[i]
        addkey(key)
      }
      for (r = 1; r <= nk; r++) {
        key = order[r]
        n = split(key, kf, ",")
        id = kf[1]
        c = count[key] + 0
        line = key
        for (i = nkey + 1; i <= ncol; i++) {
          v = ""
          if (i == runscol) v = c
          else if (c == 0 && i == zerocol) v = 0
          else if (c > 0 && i == locol) { sorted(key, src, c, a); v = sprintf("%.0f", a[1]) }
          else if (c > 0 && i == hicol) { sorted(key, src, c, a); v = sprintf("%.0f", a[c]) }
          else if (c > 0) for (j = 1; j <= nm; j++) if (M[j] == i) v = sprintf("%.0f", median(key, i, c))
          line = line "," v
        }
        note = ""
        if (failed[id] > 0) note = (rounds > 1 ? failed[id] "/" rounds " rounds " : "") what[id]
        else if (c < rounds) note = c "/" rounds " rounds"
        print line "," note
      }
    }' "$@"
}

PEER_RE='^(log4j2|logback|spdlog)-'
# merge_csv AGG MAIN FILTER_RE HEADER: this run's rows (seqring's too) to peers/NAME, the peers'
# rows appended to the main CSV after removing the rows that match FILTER_RE in column 1.
merge_csv() {
  local agg=$1 main=$2 re=$3 header=$4
  { echo "$header"; cut -d, -f2- "$agg" | sed 's/,[^,]*$//'; } > "$OUT/$(basename "$main")"
  local tmp=$main.tmp
  if [ -s "$main" ]; then
    awk -F, -v re="$re" 'NR == 1 || $1 !~ re' "$main" > "$tmp"
  else
    echo "$header" > "$tmp"
  fi
  awk -F, 'NR > 0 && $1 != "seqring"' "$agg" | cut -d, -f2- | sed 's/,[^,]*$//' >> "$tmp"
  mv "$tmp" "$main"
}

TP_HEADER="mode,wait,policy,threads,message_bytes,calls_per_sec,drained_per_sec,runs,min_calls_per_sec,max_calls_per_sec"
LAT_HEADER="mode,wait,threads,rate_per_thread,kind,p50_ns,p90_ns,p99_ns,p999_ns,p9999_ns,max_ns,samples"
RING_HEADER="topology,wait,producers,consumers,batch,events_per_sec,runs,min_events_per_sec,max_events_per_sec"
shopt -s nullglob
files() { local f; for f in "$@"; do if [ -s "$f" ]; then echo "$f"; fi; done; }
if has_phase throughput; then
  mapfile -t tp_files < <(for id in "${TP_IDS[@]}"; do files "$RAW"/tp."$id".*.csv; done)
  aggregate throughput 10 5 "6 7" 8 9 10 6 8 "${tp_files[@]}" /dev/null > "$RAW/tp.agg"
  merge_csv "$RAW/tp.agg" "$RESULTS/throughput.csv" "$PEER_RE" "$TP_HEADER"
fi
if has_phase latency; then
  mapfile -t lat_files < <(for id in "${LAT_IDS[@]}"; do files "$RAW"/lat."$id".*.csv; done)
  aggregate latency 12 5 "6 7 8 9 10 11 12" 0 0 0 6 12 "${lat_files[@]}" /dev/null > "$RAW/lat.agg"
  merge_csv "$RAW/lat.agg" "$RESULTS/latency.csv" "$PEER_RE" "$LAT_HEADER"
fi
if has_phase ring; then
  mapfile -t ring_files < <(for id in "${RING_IDS[@]}"; do files "$RAW"/ring."$id".*.csv; done)
  aggregate ring 9 5 6 7 8 9 6 7 "${ring_files[@]}" /dev/null > "$RAW/ring.agg"
  merge_csv "$RAW/ring.agg" "$RESULTS/ring.csv" '^disruptor:' "$RING_HEADER"
fi
# ipc: per contender and event size, the median over the rounds of each of events/s, p50, p99,
# p99.9 (of the rounds that gave a value), the rounds counted, min and max of events/s, and a note
# on failed rounds; a contender that gave no row gets a row per size of empty values and its
# note. raw/ipc.agg: id,library,transport,event_bytes,events_per_sec,p50_ns,p99_ns,p999_ns,
# runs,min_events_per_sec,max_events_per_sec,note; peers/ipc.csv: columns 2 to 8 (not the rows of
# a contender that was not built).
IPC_HEADER="library,transport,event_bytes,events_per_sec,p50_ns,p99_ns,p999_ns"
ipc_labels() {  # id -> library,transport,sizes: for the rows of a contender that produced none
  case "$1" in
    seqring) echo "seqring,in-process ring (threads),8 64" ;;
    seqring-shm) echo "seqring,shm ring (2 processes),8 64" ;;
    iceoryx) echo "iceoryx,shared memory pub/sub (C binding),8 64" ;;
    zeromq) echo "zeromq,ipc push/pull,8 64" ;;
    nng) echo "nng,ipc push0/pull0,8 64" ;;
    unix-socket) echo "posix,unix stream socket,8 64" ;;
    pipe) echo "posix,pipe,8 64" ;;
    cacheline) echo "machine,cache line (MAP_SHARED),64" ;;
  esac
}
if has_phase ipc; then
  : > "$RAW/ipc.expected"
  for id in "${IPC_RUN[@]}"; do echo "$id,$(ipc_labels "$id")" >> "$RAW/ipc.expected"; done
  mapfile -t ipc_files < <(for id in "${IPC_RUN[@]}"; do files "$RAW"/ipc."$id".*.csv; done)
  awk -F, -v rounds="$ROUNDS" -v statusfile="$RAW/status.tsv" -v expfile="$RAW/ipc.expected" \
      -v nbfile="$RAW/ipc.notbuilt" '
    function median(key, col, n,    a, i, j, t, m) {
      m = 0
      for (i = 1; i <= n; i++) if (vals[key, col, i] != "") a[++m] = vals[key, col, i] + 0
      if (m == 0) return ""
      for (i = 2; i <= m; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
      return sprintf("%.0f", m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2)
    }
    function extreme(key, n, want_max,    i, v, r) {
      r = ""
      for (i = 1; i <= n; i++) {
        v = vals[key, 4, i]
        if (v == "") continue
        if (r == "" || (want_max ? v + 0 > r + 0 : v + 0 < r + 0)) r = v
      }
      return r
    }
    function addkey(key) { if (!(key in seen)) { seen[key] = 1; order[++nk] = key } }
    BEGIN {
      while ((getline line < statusfile) > 0) {
        split(line, s, "\t")
        if (s[1] != "ipc" || s[4] == 0) continue
        failed[s[2]]++
        what[s[2]] = (s[4] == 124 || s[4] == 137) ? "hung (killed after " s[5] " s)" : "crashed (exit " s[4] ")"
      }
      while ((getline line < expfile) > 0) {
        split(line, e, ",")
        eorder[++ne] = e[1]; lib[e[1]] = e[2]; tr[e[1]] = e[3]; sizes[e[1]] = e[4]
      }
    }
    FNR == 1 { id = FILENAME; sub(/.*\/ipc\./, "", id); sub(/\.[^.]*\.csv$/, "", id) }
    $1 == "library" || NF != 7 { next }
    {
      key = id SUBSEP $3
      if (!(key in seen)) { seen[key] = 1; label[key] = $1 "," $2 }
      c = ++count[key]
      for (i = 4; i <= 7; i++) vals[key, i, c] = $i
    }
    END {
      for (r = 1; r <= ne; r++) {
        id = eorder[r]
        ns = split(sizes[id], sz, " ")
        # the sizes this contender produced, then those it should have and did not
        for (key in seen) { split(key, kk, SUBSEP); if (kk[1] == id) { have[++nh] = kk[2] + 0 } }
        for (i = 2; i <= nh; i++) { t = have[i]; for (j = i - 1; j >= 1 && have[j] > t; j--) have[j + 1] = have[j]; have[j + 1] = t }
        for (i = 1; i <= ns; i++) { found = 0; for (j = 1; j <= nh; j++) if (have[j] == sz[i]) found = 1; if (!found) have[++nh] = sz[i] }
        for (h = 1; h <= nh; h++) {
          b = have[h]; key = id SUBSEP b; c = count[key] + 0
          note = ""
          if (failed[id] > 0) note = (rounds > 1 ? failed[id] "/" rounds " rounds " : "") what[id]
          else if (c < rounds) note = c "/" rounds " rounds"
          lab = c > 0 ? label[key] : lib[id] "," tr[id]
          printf "%s,%s,%s,%s,%s,%s,%s,%d,%s,%s,%s\n", id, lab, b, c ? median(key, 4, c) : "",
            c ? median(key, 5, c) : "", c ? median(key, 6, c) : "", c ? median(key, 7, c) : "", c,
            c ? extreme(key, c, 0) : "", c ? extreme(key, c, 1) : "", note
        }
        delete have; nh = 0
      }
      while ((getline line < nbfile) > 0) {
        split(line, nb, "\t")
        printf "%s,seqring,shm ring (2 processes),,,,,,0,,,%s\n", nb[1], nb[2]
      }
    }' "${ipc_files[@]}" /dev/null > "$RAW/ipc.agg"
  { echo "$IPC_HEADER"; awk -F, '$12 !~ /^not built/' "$RAW/ipc.agg" | cut -d, -f2-8; } > "$OUT/ipc.csv"
fi
# trace: per tracer and thread count, over the rounds: the median of each figure (of the rounds
# that gave it: instructions come from round 1 only), min and max of events/s, the most events
# discarded in any round (run.sh fails a round that discards any, so 0 or no row), the rounds
# counted, and a note on failed rounds; a tracer that gave no row gets a row per thread count of
# empty values and its note. raw/trace.agg: id,<peers/trace.csv's columns>,note.
TRACE_HEADER="library,sink,threads,events,events_per_sec,min_events_per_sec,max_events_per_sec,bytes_per_event,discarded,instructions_per_call,p50_ns,p99_ns,p999_ns,mean_ns,timer_p50_ns,calls_per_sec,runs"
if has_phase trace && [ -z "$TRACE_SKIP" ]; then
  : > "$RAW/trace.expected"
  for id in "${TRACE_IDS[@]}"; do
    wanted "$id" || continue
    sink=ust; [ "$id" = seqring ] && sink=$TRACE_SINK
    for t in ${TRACE_THREADS//,/ }; do echo "$id,$sink,$t" >> "$RAW/trace.expected"; done
  done
  mapfile -t trace_files < <(for id in "${TRACE_IDS[@]}"; do files "$RAW"/trace."$id".*.csv; done)
  awk -F, -v rounds="$ROUNDS" -v statusfile="$RAW/status.tsv" -v expfile="$RAW/trace.expected" '
    function median(key, col, n,    a, i, j, t, m) {
      m = 0
      for (i = 1; i <= n; i++) if (vals[key, col, i] != "") a[++m] = vals[key, col, i] + 0
      if (m == 0) return ""
      for (i = 2; i <= m; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
      return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
    }
    function extreme(key, col, n, want_max,    i, v, r) {
      r = ""
      for (i = 1; i <= n; i++) {
        v = vals[key, col, i]
        if (v == "") continue
        if (r == "" || (want_max ? v + 0 > r + 0 : v + 0 < r + 0)) r = v + 0
      }
      return r
    }
    function f(v, fmt) { return v == "" ? "" : sprintf(fmt, v) }
    BEGIN {
      while ((getline line < statusfile) > 0) {
        split(line, s, "\t")
        if (s[1] != "trace" || s[4] == 0) continue
        failed[s[2]]++
        what[s[2]] = (s[4] == 124 || s[4] == 137) ? "hung (killed after " s[5] " s)" : "crashed (exit " s[4] ")"
      }
    }
    FNR == 1 { id = FILENAME; sub(/.*\/trace\./, "", id); sub(/\.[^.]*\.csv$/, "", id) }
    $1 == "library" || NF != 15 { next }
    {
      key = id SUBSEP $3
      c = ++count[key]; sink[key] = $2; events[key] = $4
      for (i = 5; i <= 15; i++) vals[key, i, c] = $i
    }
    END {
      while ((getline line < expfile) > 0) {
        split(line, e, ",")
        key = e[1] SUBSEP e[3]; c = count[key] + 0
        note = ""
        if (failed[e[1]] > 0) note = (rounds > 1 ? failed[e[1]] "/" rounds " rounds " : "") what[e[1]]
        else if (c < rounds) note = c "/" rounds " rounds"
        printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%d,%s\n", e[1], e[1], c ? sink[key] : e[2], e[3],
          c ? events[key] : "", f(median(key, 6, c), "%.0f"), f(extreme(key, 6, c, 0), "%.0f"),
          f(extreme(key, 6, c, 1), "%.0f"), f(median(key, 7, c), "%.1f"), c ? extreme(key, 8, c, 1) : "",
          f(median(key, 9, c), "%.1f"), f(median(key, 10, c), "%.1f"), f(median(key, 11, c), "%.1f"),
          f(median(key, 12, c), "%.1f"), f(median(key, 13, c), "%.1f"), f(median(key, 14, c), "%.1f"),
          f(median(key, 15, c), "%.0f"), c, note
      }
    }' "${trace_files[@]}" /dev/null > "$RAW/trace.agg"
  { echo "$TRACE_HEADER"; cut -d, -f2-18 "$RAW/trace.agg"; } > "$OUT/trace.csv"
fi

# --- tables ---------------------------------------------------------------------------
# shellcheck disable=SC2016
AWK_FMT='
  function rate(r) {
    if (r == "") return ""
    if (r >= 1e9) return sprintf("%.2f G", r / 1e9)
    if (r >= 1e6) return sprintf("%.2f M", r / 1e6)
    if (r >= 1e3) return sprintf("%.1f k", r / 1e3)
    return sprintf("%.0f", r)
  }
  function us(ns) { return ns == "" ? "" : (ns >= 100000 ? sprintf("%.0f", ns / 1000) : sprintf("%.2f", ns / 1000)) }
  function range(a, b) { return a == "" ? "" : rate(a) " - " rate(b) }
  function ratio(a, b) { return (a == "" || b == "" || b + 0 == 0) ? "" : sprintf("%.2f×", a / b) }
'
# The seqring ring row a peer compares with: same wait for log4j2-async when seqring has it,
# else seqring's default; the queue for the Async Appender; sync for the synchronous peers.
tp_table() {  # COLUMN (6: call phase, 7: drained) TITLE
  awk -F, -v col="$1" -v title="$2" -v threads="$THREADS" "$AWK_FMT"'
    {
      id = $1; mode = $2; wait = $3; t = $5
      label = mode (wait != "none" ? "/" wait : "") ($4 == "overrun_oldest" ? " (overrun)" : "")
      if (id == "seqring" && mode == "ring" && !(defwait)) defwait = wait
      if (!(label in seen)) { seen[label] = 1; labels[++n] = label; lid[label] = id; lmode[label] = mode; lwait[label] = wait }
      v[label, t] = $(col); runs[label, t] = $9; note[label, t] = $NF
    }
    function match_of(l,    m, w) {
      m = lmode[l]; w = lwait[l]
      if (lid[l] == "seqring") return ""
      if (m == "log4j2-async" && (("ring/" w) in seen)) return "ring/" w
      if (m ~ /-async/) return "ring/" defwait
      if (m == "log4j2-appender") return "queue"
      if (m ~ /-sync$/) return "sync"
      return ""
    }
    END {
      nt = split(threads, T, ",")
      printf "#### %s\n\n| logger | vs seqring |", title
      for (i = 1; i <= nt; i++) printf " %s thread%s |", T[i], T[i] == 1 ? "" : "s"
      printf "\n|---|---|"
      for (i = 1; i <= nt; i++) printf "--:|"
      printf "\n"
      for (r = 1; r <= n; r++) {
        l = labels[r]; m = match_of(l)
        name = lid[l] == "seqring" ? "seqring " l (l == "ring/" defwait ? " (default)" : "") : l
        printf "| %s | %s |", name, m == "" ? "" : m
        for (i = 1; i <= nt; i++) {
          k = l SUBSEP T[i]
          if (runs[k] == 0 && note[k] != "") { printf " %s |", note[k]; continue }
          cell = rate(v[k])
          if (m != "" && v[k] != "") cell = cell " (" ratio(v[m, T[i]], v[k]) ")"
          if (note[k] != "") cell = cell " [" note[k] "]"
          printf " %s |", cell
        }
        printf "\n"
      }
    }' "$RAW/tp.agg"
}

lat_table() {
  awk -F, "$AWK_FMT"'
    {
      id = $1; mode = $2; wait = $3; cfg = $4 " x " $5; kind = $6
      row[++n] = $0
      if (id == "seqring") for (i = 7; i <= 13; i++) s[wait, cfg, kind, i] = $i
    }
    END {
      printf "| logger | threads x msg/s | kind | p50 | p90 | p99 | p99.9 | p99.99 | max | samples | p99 vs seqring | p99.99 vs seqring |\n"
      printf "|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n"
      for (r = 1; r <= n; r++) {
        split(row[r], f, ",")
        id = f[1]; mode = f[2]; wait = f[3]; cfg = f[4] " x " f[5]; kind = f[6]
        name = (id == "seqring" ? "seqring " : "") mode "/" wait
        if (f[13] == "0" && f[14] != "") { printf "| %s | %s | %s | %s | | | | | | | | |\n", name, cfg, kind, f[14]; continue }
        printf "| %s | %s | %s |", name, cfg, kind
        for (i = 7; i <= 12; i++) printf " %s |", us(f[i])
        printf " %s |", f[13]
        if (id == "seqring") printf " | |\n"
        else printf " %s | %s |\n", ratio(f[9], s[wait, cfg, kind, 9]), ratio(f[11], s[wait, cfg, kind, 11])
      }
    }' "$RAW/lat.agg"
}

ring_table() {
  awk -F, "$AWK_FMT"'
    {
      topo = $2; dis = sub(/^disruptor:/, "", topo)
      k = topo SUBSEP $3
      if (!(k in seen)) { seen[k] = 1; keys[++n] = k }
      if (dis) { d[k] = $7; dmin[k] = $9; dmax[k] = $10; dnote[k] = ($8 == 0 ? $NF : "") }
      else { s[k] = $7; smin[k] = $9; smax[k] = $10 }
    }
    END {
      printf "| topology | wait | seqring events/s | (min - max) | Disruptor events/s | (min - max) | seqring / Disruptor |\n"
      printf "|---|---|--:|--:|--:|--:|--:|\n"
      for (r = 1; r <= n; r++) {
        k = keys[r]; split(k, kk, SUBSEP)
        dd = dnote[k] != "" ? dnote[k] : rate(d[k])
        printf "| %s | %s | %s | %s | %s | %s | %s |\n", kk[1], kk[2], rate(s[k]), range(smin[k], smax[k]), dd,
          range(dmin[k], dmax[k]), ratio(s[k], d[k])
      }
    }' "$RAW/ring.agg"
}

# The ipc table: each row's events/s and one-way latency, with the ratios to seqring's in-process
# ring (the ceiling) and the latency's to one cache-line transfer (the reference) of the same run.
ipc_table() {
  awk -F, "$AWK_FMT"'
    function ns(v) { return v == "" ? "" : sprintf("%.2f", v / 1000) }
    function times(a, b,    x) {  # a / b, with fewer decimals as it grows
      if (a == "" || b == "" || b + 0 == 0) return ""
      x = a / b
      return sprintf(x < 10 ? "%.2f×" : x < 100 ? "%.1f×" : "%.0f×", x)
    }
    {
      row[++n] = $0
      if ($1 == "seqring") { ceil_rate[$4] = $5; ceil_p50[$4] = $6 }
      if ($1 == "cacheline") line_p50 = $6
    }
    END {
      printf "| library | transport | event bytes | events/s | (min - max) | ceiling / this | one-way p50 | p99 | p99.9 | p50 / ceiling | p50 / cache line |\n"
      printf "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n"
      for (r = 1; r <= n; r++) {
        split(row[r], f, ",")
        id = f[1]; b = f[4]
        name = f[2]; if (id == "seqring") name = name " (ceiling)"; if (id == "cacheline") name = name " (reference)"
        if (f[9] == 0) { printf "| %s | %s | %s | %s | | | | | | | |\n", name, f[3], b, f[12]; continue }
        note = f[12] != "" ? " [" f[12] "]" : ""
        rt = id == "cacheline" ? "-" : rate(f[5]) note
        printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", name, f[3], b, rt,
          id == "cacheline" ? "" : range(f[10], f[11]), (id == "seqring" || id == "cacheline") ? "" : times(ceil_rate[b], f[5]),
          ns(f[6]) (id == "cacheline" ? note : ""), ns(f[7]), ns(f[8]),
          (id == "seqring" || id == "cacheline") ? "" : times(f[6], ceil_p50[b]), id == "cacheline" ? "" : times(f[6], line_p50)
      }
    }' "$RAW/ipc.agg"
}

# The trace tables: the caller's cost (one thread), the drained rate and bytes per event per
# thread count, then where seqring loses and wins, figure by figure, from the same medians.
trace_tables() {
  awk -F, "$AWK_FMT"'
    function ns(v) { return v == "" ? "" : sprintf("%.1f", v) }
    function name(id, sink) { return id == "seqring" ? "seqring (" sink ":)" : "LTTng-UST" }
    function d(x) { return x + 0 >= 100000 ? rate(x) : x }
    # a figure of both tracers, lower or higher better: into the losses or the wins
    function cmp(what, s, l, lower, unit,    x) {
      if (s == "" || l == "" || s + 0 == 0 || l + 0 == 0) return
      x = lower ? s / l : l / s
      if (x > 1.05) loses = loses sprintf("\n- %s: seqring %s, LTTng %s%s (%.2f× %s)", what, d(s), d(l), unit, x, lower ? "more" : "fewer")
      else if (x < 1 / 1.05) wins = wins sprintf("\n- %s: seqring %s, LTTng %s%s (%.2f× %s)", what, d(s), d(l), unit, 1 / x, lower ? "less" : "more")
      else ties = ties sprintf("\n- %s: seqring %s, LTTng %s%s (within 5%%)", what, d(s), d(l), unit)
    }
    {
      id = $1; t = $4; row[++n] = $0
      if (!(id in first)) { first[id] = t; ids[++ni] = id }
      v[id, t, "rate"] = $6; v[id, t, "bytes"] = $9
      v[id, t, "calls"] = $17
      if (t == first[id]) { ir[id] = $11; p50[id] = $12; p99[id] = $13; p999[id] = $14; mean[id] = $15; timer[id] = $16; lab[id] = name(id, $3); nt[id] = t; cnote[id] = $19; cruns[id] = $18 }
    }
    END {
      printf "| tracer | the call | instructions per call | p50 ns | p99 ns | p99.9 ns | mean ns | net p50 ns |\n"
      printf "|---|---|--:|--:|--:|--:|--:|--:|\n"
      for (i = 1; i <= ni; i++) {
        id = ids[i]
        call = id == "seqring" ? "`SR_INFO(c, \"x=%d y=%f s=%s\", i, d, s)`" : "`tracepoint(seqring_bench, call, i, d, s)`"
        if (cruns[id] == 0) { printf "| %s | %s | %s | | | | | |\n", lab[id], call, cnote[id]; continue }
        printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", lab[id], call, ir[id] == "" ? "(no valgrind)" : ir[id],
          ns(p50[id]), ns(p99[id]), ns(p999[id]), ns(mean[id]), p50[id] == "" ? "" : ns(p50[id] - timer[id])
      }
      printf "\n| tracer | threads | events | events/s drained | (min - max) | seqring / LTTng | call phase events/s | bytes per event on disk | discarded |\n"
      printf "|---|--:|--:|--:|--:|--:|--:|--:|--:|\n"
      for (r = 1; r <= n; r++) {
        split(row[r], f, ",")
        id = f[1]; t = f[4]
        if (f[18] == 0) { printf "| %s | %s | | %s | | | | | |\n", name(id, f[3]), t, f[19]; continue }
        note = f[19] != "" ? " [" f[19] "]" : ""
        printf "| %s | %s | %s | %s%s | %s | %s | %s | %s | %s |\n", name(id, f[3]), t, f[5], rate(f[6]), note, range(f[7], f[8]),
          id == "lttng" ? ratio(v["seqring", t, "rate"], f[6]) : "", rate(f[17]), f[9], f[10]
      }
      if (("seqring" in first) && ("lttng" in first)) {
        cmp("instructions per call", ir["seqring"], ir["lttng"], 1, "")
        if (p50["seqring"] != "" && p50["lttng"] != "")
          cmp("net p50 per call", sprintf("%.1f", p50["seqring"] - timer["seqring"]), sprintf("%.1f", p50["lttng"] - timer["lttng"]), 1, " ns")
        cmp("p99 per call", p99["seqring"], p99["lttng"], 1, " ns")
        cmp("p99.9 per call", p999["seqring"], p999["lttng"], 1, " ns")
        for (r = 1; r <= n; r++) {
          split(row[r], f, ",")
          if (f[1] != "seqring") continue
          t = f[4]
          cmp("events/s drained, " t " thread" (t == 1 ? "" : "s"), v["seqring", t, "rate"], v["lttng", t, "rate"], 0, "")
          cmp("events/s in the call phase, " t " thread" (t == 1 ? "" : "s"), v["seqring", t, "calls"], v["lttng", t, "calls"], 0, "")
          cmp("bytes per event on disk, " t " thread" (t == 1 ? "" : "s"), v["seqring", t, "bytes"], v["lttng", t, "bytes"], 1, "")
        }
        printf "\n**Where seqring loses** (its figure worse than LTTng-UST'"'"'s by more than 5%%):%s\n", loses == "" ? " nowhere." : loses
        printf "\n**Where seqring wins:**%s\n", wins == "" ? " nowhere." : wins
        if (ties != "") printf "\n**Even:**%s\n", ties
      }
    }' "$RAW/trace.agg"
}

# --- plots (gnuplot) ----------------------------------------------------------------------
plot_throughput() {
  local dat=$RAW/tp.plot
  awk -F, '$9 > 0 {
      label = ($1 == "seqring" ? "seqring " : "") $2 ($3 != "none" ? "/" $3 : "") ($4 == "overrun_oldest" ? " overrun" : "")
      if (!(label in seen)) { seen[label] = 1; labels[++n] = label }
      rows[label] = rows[label] $5 " " $7 " " $8 "\n"
    }
    END { for (i = 1; i <= n; i++) printf "threads \"%s\" drained\n%s\n\n", labels[i], rows[labels[i]] }' \
    "$RAW/tp.agg" > "$dat"
  local blocks ours
  blocks=$(grep -c '^threads ' "$dat" || true)
  ours=$(grep -c '^threads "seqring ' "$dat" || true)  # seqring's blocks come first: solid lines
  [ "$blocks" -gt 0 ] || return 0
  gnuplot <<EOF
set terminal pngcairo size 1600,700 font ",10" noenhanced
set output "$OUT/throughput.png"
set multiplot layout 1,2 title "seqring and its peers, Log4j 2's throughput method (500-character messages; median of $ROUNDS interleaved rounds)"
set logscale x 2
set logscale y
set xlabel "threads"
set ylabel "messages/s, all threads together"
set grid
set key outside right top font ",8"
set title "call phase (first call to last return)"
plot for [i=0:$((ours - 1))] "$dat" index i using 1:2 with linespoints lw 2 lc i+1 dt 1 title columnheader(2), \
     for [i=$ours:$((blocks - 1))] "$dat" index i using 1:2 with linespoints lw 2 lc i+1 dt 2 title columnheader(2)
set title "drained (until every line is in the file)"
plot for [i=0:$((ours - 1))] "$dat" index i using 1:3 with linespoints lw 2 lc i+1 dt 1 title columnheader(2), \
     for [i=$ours:$((blocks - 1))] "$dat" index i using 1:3 with linespoints lw 2 lc i+1 dt 2 title columnheader(2)
unset multiplot
EOF
}

plot_latency() {
  local cfg
  for cfg in $LAT_CONFIGS; do
    local ours=() ournames=() peers=() peernames=() f name
    for f in "$OUT"/dist/latency_*_"${cfg}"_response.dat; do
      name=$(basename "$f" | sed -E "s/^latency_//; s/_${cfg}_response\.dat$//; s/_/\//")
      if [[ $name == log4j2* ]]; then peers+=("$f"); peernames+=("$name")
      else ours+=("$f"); ournames+=("seqring_$name"); fi
    done
    [ "${#ours[@]}" -gt 0 ] || [ "${#peers[@]}" -gt 0 ] || continue
    gnuplot <<EOF
set terminal pngcairo size 1200,700 font ",10" noenhanced
set output "$OUT/latency_${cfg}.png"
set title "Response time (from when each call was due): ${cfg%x*} threads x ${cfg#*x} msg/s each, 64-character messages"
set logscale x
set logscale y
set xrange [1:*]
set xtics ("0%%" 1, "90%%" 10, "99%%" 100, "99.9%%" 1000, "99.99%%" 10000, "99.999%%" 100000)
set xlabel "percentile"
set ylabel "microseconds"
set grid
set key outside right top
F = "${ours[*]}"
N = "${ournames[*]}"
G = "${peers[*]}"
M = "${peernames[*]}"
plot for [i=1:words(F)] word(F, i) using 3:(\$2 / 1000.0) with lines lw 2 lc i dt 1 title word(N, i), \
     for [i=1:words(G)] word(G, i) using 3:(\$2 / 1000.0) with lines lw 2 lc words(F) + i dt 2 title word(M, i)
EOF
  done
}

plot_ring() {
  local dat=$RAW/ring.plot
  awk -F, '{ topo = $2; dis = sub(/^disruptor:/, "", topo); k = topo " " $3
      if (!(k in seen)) { seen[k] = 1; keys[++n] = k }
      if (dis) d[k] = $7; else s[k] = $7 }
    END { print "row seqring Disruptor"
      for (i = 1; i <= n; i++) { k = keys[i]; t = k; gsub(/ /, "/", t)
        printf "\"%s\" %s %s\n", t, s[k] == "" ? "-" : s[k] / 1e6, d[k] == "" ? "-" : d[k] / 1e6 } }' \
    "$RAW/ring.agg" > "$dat"
  gnuplot <<EOF
set terminal pngcairo size 1600,600 font ",9" noenhanced
set output "$OUT/ring.png"
set title "seqring and the LMAX Disruptor, ring_perf topologies, 8-byte events: median events/s (millions, log scale)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set logscale y
set ylabel "million events/s"
set grid ytics
set xtics rotate by -60 font ",8"
set key top right
set datafile missing "-"
plot "$dat" using 2:xtic(1) title columnheader(2) lc rgb "#1f77b4", "" using 3 title columnheader(3) lc rgb "#ff7f0e"
EOF
}

if ! command -v gnuplot >/dev/null 2>&1; then
  say "gnuplot is missing (perf/peers/deps.sh installs gnuplot-nox): no plots"
else
  if has_phase throughput; then plot_throughput || say "throughput plot failed"; fi
  if has_phase latency; then plot_latency || say "latency plot failed"; fi
  if has_phase ring; then plot_ring || say "ring plot failed"; fi
fi

# --- peers.md -------------------------------------------------------------------------------
describe() {  # the configuration line a Java harness printed in its first successful round
  local f
  for f in "$LOGS"/"$1".*.out; do
    grep -m 1 '^- \(Log4j\|Logback\)' "$f" 2>/dev/null && return 0
  done
  return 0
}
# The trace section, in peers.md and alone in RESULTS_DIR/peers-trace.md (a table of its own, which
# a run of this phase alone leaves beside the last full run's peers.md).
trace_section() {
  echo "## Binary trace: seqring's ctf: sink vs LTTng-UST"
  echo
  if [ -n "$TRACE_SKIP" ]; then
    echo "Skipped: no LTTng session daemon can run here ($TRACE_SKIP)."
  else
    if [ "$TRACE_SINK" = file ]; then
      echo "**seqring wrote its text file sink (\`file:\`) in place of \`ctf:\`** (this build has no ctf: sink, or"
      echo "TRACE_SEQRING_SINK=file): its bytes per event are text lines'."
      echo
    fi
    echo "The call of perf/caller (an int, a double and a 16-character string) as seqring's \`SR_INFO\` into a"
    echo "logger whose only sink is \`$TRACE_SINK:\` (its defaults otherwise: a ring per thread, queue-full policy"
    echo "block) and as an LTTng-UST tracepoint of the same three fields into a session of its own (per-user"
    echo "buffers, 8 x 1 MiB sub-buffers per CPU, blocking timeout inf: nothing discarded). The caller's cost by"
    echo "perf/caller's method: each call timed alone with the TSC, 200,000 calls in bursts of 1,000 (quick:"
    echo "20,000), net = minus the timer's own p50; instructions per call under callgrind (100,000 calls, the"
    echo "empty loop subtracted; round 1). Drained: 1 and 4 threads each make 500,000 calls (quick: 20,000) as"
    echo "fast as the tracer takes them, from the first call until the trace is in its files (seqring:"
    echo "\`sr_log_flush\` returns; LTTng: \`lttng stop\`'s two steps through liblttng-ctl, stop, then no data pending,"
    echo "asked every millisecond); every event counted in the trace (babeltrace2;"
    echo "a text file: its lines) and none discarded, or the round fails. Bytes per event: the trace directory's"
    echo "files (metadata and index included) over its events. Call phase: the drained run's first call to its"
    echo "last return (what the callers sustained, before the wait for the files). Median of $ROUNDS round(s), the two tracers in"
    echo "turn. Set-up: perf/peers/README.md, \"Binary trace\"."
    echo
    trace_tables
  fi
}
if has_phase trace; then
  # its environment inline: a run of this phase alone may leave trace.md beside another run's environment.txt
  {
    trace_section
    echo
    echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC'), $ROUNDS round(s): $(sed -n 's/^commit: /commit /p' "$OUT/environment.txt");" \
      "$(sed -n 's/^cpu: //p' "$OUT/environment.txt"); $(sed -n 's/^kernel: //p' "$OUT/environment.txt")."
  } > "$RESULTS/peers-trace.md"
fi
MD=$RESULTS/peers.md
{
  echo "# seqring and its peers (\`make bench-peers\`)"
  echo
  echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC'); how each peer is configured and what the tables"
  echo "mean: [perf/peers/README.md](../peers/README.md). Environment: [peers/environment.txt](peers/environment.txt)."
  echo "Every contender ran once per round, one at a time; $ROUNDS round(s) (latency: ${LAT_ROUNDS:-1}); medians over the rounds."
  echo "A ratio is seqring's median over the peer's: above 1 seqring is faster (latency: the peer's"
  echo "time over seqring's, above 1 seqring is quicker). \"crashed\" / \"hung\" cells: that peer's harness"
  echo "exited non-zero / was killed by its timeout (their output: peers/logs/, kept by the run, not by git)."
  echo
  if has_phase throughput; then
    echo "## Throughput: Log4j 2's per-thread table (messages/s, all threads together)"
    echo
    echo "$MESSAGE_BYTES-character messages, 262,144 calls per run shared by the threads (quick: 2,000);"
    echo "200,000 warm-up messages; ring and queues hold a whole run. \"vs seqring\": the seqring row"
    echo "each ratio divides by. ![throughput](peers/throughput.png)"
    echo
    tp_table 7 "Call phase (first call to last return)"
    echo
    tp_table 8 "Drained (call phase + until every line is in the file)"
    echo
  fi
  if has_phase latency; then
    echo "## Response time: seqring vs Log4j 2 all-async (microseconds)"
    echo
    echo "64-character messages on a fixed schedule; response time counts from when each call was due."
    for cfg in $LAT_CONFIGS; do echo "![latency $cfg](peers/latency_$cfg.png)"; done
    echo
    lat_table
    echo
  fi
  if has_phase ring; then
    echo "## Ring topologies: seqring vs the LMAX Disruptor (8-byte events)"
    echo
    echo "ring_perf's 1-1, 1-1-batch (batches of 10) and 3-1 on 65,536-slot rings, each wait strategy;"
    echo "median of the rounds' runs. ![ring](peers/ring.png)"
    echo
    ring_table
    echo
  fi
  if has_phase ipc; then
    echo "## Between two processes: seqring vs iceoryx, ZeroMQ, nng, a unix socket and a pipe"
    echo
    echo "1 producer process → 1 consumer process, 8- and 64-byte events, every event checked at the consumer"
    echo "(its sequence number: each once, in order). Events/s: from the consumer's first event to its last, a"
    echo "run sized to 0.5 s by a 200,000-event warm-up (quick: 20,000 events). Latency in microseconds, one way"
    echo "(ping-pong round trip / 2): 100,000 round trips at most, 2 s at most, after 10,000 (quick: 2,000 after"
    echo "200). Median of $ROUNDS round(s) (each contender once per round, in turn). \"ceiling / this\": seqring's"
    echo "in-process ring (producer and consumer threads of one process) over the row, above 1 the ceiling is"
    echo "faster; \"p50 / ceiling\", \"p50 / cache line\": the row's p50 over the in-process ring's and over one"
    echo "transfer of a 64-byte cache line between the two processes, measured in the same run (the floor of"
    echo "any hand-off through shared memory). Set-ups: perf/peers/README.md, \"Between two processes\"."
    echo
    ipc_table
    echo
  fi
  if has_phase trace; then
    trace_section
    echo
  fi
  echo "## Configurations as run"
  echo
  if has_phase throughput; then
    for id in "${TP_IDS[@]}"; do
      [ "$id" = seqring ] && continue
      line=$(describe "throughput.$id")
      [ -n "$line" ] && echo "- **$id**: ${line#- }"
    done
  fi
  if java_phases; then
    echo "- **JVM** (every Java harness): \`$JAVA_OPTS\`; $("$JAVA" -version 2>&1 | head -n 1)"
  fi
  if has_phase ipc; then
    echo "- **ipc**: $(dpkg-query -W -f='${Package} ${Version}; ' iceoryx libzmq5 libnng1 2>/dev/null || true)programs built by perf/peers/ipc/build.sh (\`-O3\`); iceoryx beside its own iox-roudi in a sandbox (perf/peers/ipc/iceoryx_sandbox.sh); seqring shm: $(cat "$IPC_BUILD/seqring_shm.status" 2>/dev/null || echo unknown)"
  fi
  if has_phase trace && [ -z "$TRACE_SKIP" ]; then
    echo "- **trace**: $(dpkg-query -W -f='${Package} ${Version}; ' lttng-tools liblttng-ust1 babeltrace2 2>/dev/null || true)LTTng channel: per-user buffers, 8 x 1 MiB sub-buffers per CPU, discard mode with blocking timeout inf, no switch or read timer, mmap output, the monotonic clock; session daemon of its own (perf/peers/lttng/sandbox.sh); seqring: sink $TRACE_SINK:, drivers built by perf/peers/lttng/build.sh (\`-O3\`)"
  fi
  echo
  echo "Harness failures in this run:"
  awk -F'\t' '$4 != 0 { n++; printf "- %s %s round %s: %s\n", $1, $2, $3, ($4 == 124 || $4 == 137) ? "hung (killed after " $5 " s)" : "crashed (exit " $4 ")" }
    END { if (!n) print "- none" }' "$RAW/status.tsv"
} > "$MD"
cat "$MD"
say "done in $(( $(date +%s) - start )) s: $MD, $OUT/"
