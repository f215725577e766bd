#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# build.sh OUT_DIR INCLUDE_DIR: builds OUT_DIR/spdlog_throughput from
# spdlog_throughput.cpp against Debian's libspdlog-dev (installed with apt-get if
# missing), with the C helpers it shares with perf/throughput (perf/common:
# arguments, output, statistics; none of them needs the seqring library) and
# seqring's clock, included as every program includes it, <seqring/sr_time.h>,
# from INCLUDE_DIR: a configured build's staged headers (build/<preset>/include,
# where CMake links each public header as seqring/NAME.h). The monotonic clock is
# inline: nothing of seqring's is linked. Exit 0: built; 1: a step failed; 2: usage.
set -u
here=$(cd "$(dirname "$0")" && pwd)
common=$here/../../common
if [ $# -ne 2 ] || [ -z "$1" ] || [ -z "$2" ]; then
	echo "usage: $0 OUT_DIR INCLUDE_DIR   (INCLUDE_DIR: build/<preset>/include of a configured build)" >&2
	exit 2
fi
out=$1
include=$2
if [ ! -f "$include/seqring/sr_time.h" ]; then
	echo "build.sh: $include/seqring/sr_time.h does not exist: INCLUDE_DIR must be the staged include" \
		"directory of a configured build (build/<preset>/include; cmake --preset release makes it)" >&2
	exit 1
fi

install_spdlog() {
	echo "build.sh: libspdlog-dev is missing; installing it with apt-get" >&2
	if [ "$(id -u)" -ne 0 ]; then
		echo "build.sh: not root, cannot run apt-get: install libspdlog-dev (and pkg-config) first" >&2
		exit 1
	fi
	DEBIAN_FRONTEND=noninteractive apt-get install -y libspdlog-dev pkg-config >&2 && return 0
	echo "build.sh: apt-get install failed; running apt-get update and trying again" >&2
	apt-get update >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y libspdlog-dev pkg-config >&2 && return 0
	echo "build.sh: cannot install libspdlog-dev with apt-get" >&2
	exit 1
}

if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists spdlog; then
	install_spdlog
fi
if ! pkg-config --exists spdlog; then
	echo "build.sh: pkg-config does not find spdlog even after installing libspdlog-dev" >&2
	exit 1
fi
if ! mkdir -p "$out"; then
	echo "build.sh: cannot create $out" >&2
	exit 1
fi
objects=""
for c in bench_args bench_output bench_stats; do
	if ! gcc -O2 -std=c11 -D_GNU_SOURCE -Wall -Wextra -c "$common/$c.c" -o "$out/$c.o"; then
		echo "build.sh: compiling $common/$c.c failed" >&2
		exit 1
	fi
	objects="$objects $out/$c.o"
done
# Debian's spdlog is a compiled library on the external fmt (libfmt-dev): pkg-config says so
# (-DSPDLOG_COMPILED_LIB -DSPDLOG_FMT_EXTERNAL ... -lspdlog -lfmt).
# shellcheck disable=SC2046,SC2086
if ! g++ -O2 -std=c++17 -Wall -Wextra -I"$common" -I"$include" $(pkg-config --cflags spdlog) \
	-o "$out/spdlog_throughput" "$here/spdlog_throughput.cpp" $objects $(pkg-config --libs spdlog) -pthread; then
	echo "build.sh: compiling $here/spdlog_throughput.cpp failed" >&2
	exit 1
fi
echo "build.sh: built $out/spdlog_throughput (spdlog $(pkg-config --modversion spdlog))" >&2
