#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs one libFuzzer target the way CTest does (tests/fuzz/CMakeLists.txt):
#   1. replays every file in REGRESSIONS (inputs that once crashed: they must pass now);
#   2. replays the committed CORPUS once (every seed must pass);
#   3. fuzzes for SECONDS from a temporary copy of CORPUS (the tree is never modified).
# Fails on any crash, sanitizer report, leak or timeout, leaving the input in ARTIFACTS/ and
# printing the command that replays it.  Prints the number of executions of step 3.
#
# Usage: run_fuzz.sh BINARY CORPUS REGRESSIONS SECONDS ARTIFACTS [libFuzzer flags...]
# SEQRING_FUZZ_SECONDS in the environment overrides SECONDS (e.g. 3 while developing).
set -euo pipefail

if [ "$#" -lt 5 ]; then
  echo "usage: $0 BINARY CORPUS REGRESSIONS SECONDS ARTIFACTS [libFuzzer flags...]" >&2
  exit 2
fi
bin="$1" corpus="$2" regressions="$3" seconds="${SEQRING_FUZZ_SECONDS:-$4}" artifacts="$5"
shift 5
name="$(basename "$bin")"

if [ ! -x "$bin" ]; then
  echo "run_fuzz: $bin is not built" >&2
  exit 1
fi
mkdir -p "$artifacts"
work="$(mktemp -d "${TMPDIR:-/tmp}/seqring-fuzz-$name.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# Common flags: a hang of 10 s in one input is a failure; keep memory bounded; report where the
# crashing input went.  -print_final_stats gives the execution count.
common=(-timeout=10 -rss_limit_mb=2048 -artifact_prefix="$artifacts/" "$@")

on_failure() {
  local what="$1" log="$2"
  echo "run_fuzz: $name: FAILED during $what" >&2
  # libFuzzer's last lines name the crashing input ("Test unit written to ...").
  tail -n 60 "$log" >&2
  local unit
  unit="$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)"
  if [ -n "$unit" ]; then
    echo "run_fuzz: reproduce with: $bin $unit" >&2
    echo "run_fuzz: add it as a regression: cp $unit $regressions/" >&2
  fi
  exit 1
}

files=()
if [ -d "$regressions" ]; then
  while IFS= read -r -d '' f; do files+=("$f"); done \
    < <(find "$regressions" -maxdepth 1 -type f ! -name '.*' ! -name 'README*' -print0 | sort -z)
fi
if [ "${#files[@]}" -gt 0 ]; then
  "$bin" "${common[@]}" "${files[@]}" >"$work/replay.log" 2>&1 || on_failure "regression replay" "$work/replay.log"
  echo "run_fuzz: $name: ${#files[@]} regression input(s) pass"
fi

seeds=()
if [ -d "$corpus" ]; then
  while IFS= read -r -d '' f; do seeds+=("$f"); done \
    < <(find "$corpus" -maxdepth 1 -type f -print0 | sort -z)
fi
if [ "${#seeds[@]}" -gt 0 ]; then
  "$bin" "${common[@]}" "${seeds[@]}" >"$work/seeds.log" 2>&1 || on_failure "seed corpus replay" "$work/seeds.log"
  echo "run_fuzz: $name: ${#seeds[@]} seed input(s) pass"
fi

if [ "$seconds" -gt 0 ]; then
  mkdir "$work/corpus"
  if [ "${#seeds[@]}" -gt 0 ]; then
    cp -- "${seeds[@]}" "$work/corpus/"
  fi
  "$bin" "${common[@]}" -max_total_time="$seconds" -print_final_stats=1 "$work/corpus" \
    >"$work/fuzz.log" 2>&1 || on_failure "fuzzing" "$work/fuzz.log"
  execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/fuzz.log" | tail -1)"
  rate="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/fuzz.log" | tail -1)"
  cov="$(grep -o 'cov: [0-9]*' "$work/fuzz.log" | tail -1)"
  echo "run_fuzz: $name: ${execs:-?} executions in ${seconds} s (${rate:-?}/s), ${cov:-cov: ?}, no crash"
fi
