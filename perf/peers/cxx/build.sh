#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Builds caller_quill and caller_fmtlog (perf/caller's method for two C++ loggers) with the
# same flags, from source trees given as arguments; neither logger is a Debian package (and
# fmtlog needs {fmt} 11, newer than bookworm's), so nothing here runs in make bench-peers.
#   perf/peers/cxx/build.sh QUILL_DIR FMTLOG_DIR FMT11_DIR OUT_DIR
set -e
if [ $# -ne 4 ]; then
	echo "usage: $0 QUILL_DIR FMTLOG_DIR FMT11_DIR OUT_DIR" >&2
	exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
quill=$1 fmtlog=$2 fmt=$3 out=$4
mkdir -p "$out"
F="-O2 -std=c++17 -pthread -I$here/../../common"
gcc -O2 -c "$here/../../common/bench_stats.c" -o "$out/bench_stats.o"
g++ $F -I"$quill/include" "$here/caller_quill.cpp" "$out/bench_stats.o" -o "$out/caller_quill"
g++ $F -I"$fmt/include" -c "$fmt/src/format.cc" -o "$out/fmt_format.o"
g++ $F -I"$fmt/include" -I"$fmtlog" -c "$fmtlog/fmtlog.cc" -o "$out/fmtlog.o"
g++ $F -I"$fmt/include" -I"$fmtlog" "$here/caller_fmtlog.cpp" "$out/fmtlog.o" "$out/fmt_format.o" "$out/bench_stats.o" -o "$out/caller_fmtlog"
echo "built $out/caller_quill and $out/caller_fmtlog"
