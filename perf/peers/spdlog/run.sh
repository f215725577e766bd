#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# run.sh OUT_DIR CSV [flags...]: runs OUT_DIR/spdlog_throughput (built first by
# build.sh OUT_DIR INCLUDE_DIR) with --out CSV and the extra flags, e.g.
# --runs 1 --threads 1,2,4 --sink-dir /tmp.
set -u
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -lt 2 ] || [ -z "$1" ] || [ -z "$2" ]; then
	echo "usage: $0 OUT_DIR CSV [spdlog_throughput flags...]" >&2
	exit 2
fi
out=$1
csv=$2
shift 2
if [ ! -x "$out/spdlog_throughput" ]; then
	echo "run.sh: $out/spdlog_throughput does not exist: build it first with" \
		"$here/build.sh $out build/<preset>/include" >&2
	exit 1
fi
exec "$out/spdlog_throughput" --out "$csv" "$@"
