#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# build.sh OUT_DIR SEQRING_BUILD_DIR: builds the trace phase's two drivers into OUT_DIR from one
# source, trace_bench.c (README.md beside this file):
#   trace_lttng    the LTTng-UST tracepoint of tp.h, its probes (tp.c) linked in, -llttng-ust
#   trace_seqring  SR_INFO into seqring's logger, against SEQRING_BUILD_DIR's staged headers
#                  (include/seqring/) and libseqring.a
# Both with perf/common's statistics and the flags of seqring's own harnesses (-O3 -DNDEBUG, what
# CMake's Release gives them). The Debian packages (lttng-tools, liblttng-ust-dev) are
# perf/peers/deps.sh's. Exit 0: built; 1: a step failed (the message says which); 2: usage.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
common=$root/perf/common
if [ $# -ne 2 ] || [ -z "$1" ] || [ -z "$2" ]; then
  echo "usage: $0 OUT_DIR SEQRING_BUILD_DIR   (SEQRING_BUILD_DIR: a built seqring, e.g. build/release)" >&2
  exit 2
fi
out=$1
sr=$2
say() { echo "lttng build: $*" >&2; }

if [ ! -f "$sr/include/seqring/sr_log.h" ] || [ ! -f "$sr/libseqring.a" ]; then
  say "$sr is not a built seqring: $sr/include/seqring/sr_log.h and $sr/libseqring.a must exist" \
    "(make release builds build/release)"
  exit 1
fi
# Debian puts LTTng-UST's headers under the multiarch directory, which gcc searches by itself.
echo '#include <lttng/tracepoint.h>' | gcc -E -x c - >/dev/null 2>&1 || {
  say "<lttng/tracepoint.h> not found: install liblttng-ust-dev (perf/peers/deps.sh does)"
  exit 1
}
mkdir -p "$out/obj" || { say "cannot create $out"; exit 1; }

CFLAGS=(-O3 -DNDEBUG -std=c11 -D_GNU_SOURCE -Wall -Wextra -I"$common" -I"$here")
gcc "${CFLAGS[@]}" -c "$common/bench_stats.c" -o "$out/obj/bench_stats.o" || { say "compiling bench_stats.c failed"; exit 1; }
# tp.h is read again by tracepoint-event.h through TRACEPOINT_INCLUDE "./tp.h": -I"$here" finds it.
gcc "${CFLAGS[@]}" -c "$here/tp.c" -o "$out/obj/tp.o" || { say "compiling the tracepoint provider tp.c failed"; exit 1; }
gcc "${CFLAGS[@]}" -DTRACE_LTTNG -o "$out/trace_lttng" "$here/trace_bench.c" "$out/obj/tp.o" \
  "$out/obj/bench_stats.o" -llttng-ust -ldl -pthread || { say "compiling trace_lttng failed"; exit 1; }
gcc "${CFLAGS[@]}" -I"$sr/include" -o "$out/trace_seqring" "$here/trace_bench.c" "$out/obj/bench_stats.o" \
  "$sr/libseqring.a" -pthread -lm || { say "compiling trace_seqring failed"; exit 1; }
say "built into $out: trace_lttng (LTTng-UST $(dpkg-query -W -f='${Version}' liblttng-ust-dev 2>/dev/null || echo '?')), trace_seqring"
