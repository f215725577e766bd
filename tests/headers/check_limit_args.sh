#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Usage: check_limit_args.sh INCLUDE_DIR
#
# The rate-limiting macros (sr_log_limit.h) refuse, at compile time, a constant parameter below 1
# and a call with more than 31 arguments after the format, each with a message a user can act on:
# limit_args.c, against the headers in INCLUDE_DIR/seqring/, with -Wall -Wextra -Wpedantic
# -Werror, in C99 and C11 with gcc and clang and in C++11 and C++17 with g++ and clang++:
#   - the case `ok` (constants of at least 1, run-time values, 31 arguments) compiles;
#   - each other case fails, and its only error carries its message (CASES below, written in
#     sr_log_limit.h), naming the macro and the parameter.
# A failure names the compiler, the standard, the case and the first error. clang and clang++
# are skipped with a message when not installed; gcc and g++ never are.
# Registered with CTest as the test `headers_limit_args` (label headers).
set -euo pipefail

CASES=(
  'every_n_zero|SR_LOG_EVERY_N: n must be at least 1'
  'every_n_negative|SR_INFO_EVERY_N: n must be at least 1'
  'rate_zero|SR_LOG_LIMIT: per_second must be at least 1'
  'burst_zero|SR_WARN_LIMIT: burst must be at least 1'
  'args_32|a rate-limited log call takes at most 31 arguments after the format'
)

inc_dir=$(cd "${1:?usage: check_limit_args.sh INCLUDE_DIR}" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source=$here/limit_args.c
flags=(-Wall -Wextra -Wpedantic -Werror -fsyntax-only -I "$inc_dir")

tmp=$(mktemp -d "${TMPDIR:-/tmp}/seqring-limit-args.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

fail() { echo "limit args: $*" >&2; exit 1; }
have() { command -v "$1" >/dev/null 2>&1; }

checked=0
for pair in "gcc:c99 c11" "clang:c99 c11" "g++:c++11 c++17" "clang++:c++11 c++17"; do
  compiler=${pair%%:*}
  if ! have "$compiler"; then
    case $compiler in
      gcc | g++) fail "$compiler is not installed: it is required" ;;
    esac
    echo "limit args: $compiler is not installed: its modes are skipped (.ci/deps.sh installs it)"
    continue
  fi
  lang=()
  case $compiler in *++) lang=(-x c++) ;; esac
  for std in ${pair#*:}; do
    what="$compiler -std=$std"
    if ! "$compiler" -std="$std" "${lang[@]}" "${flags[@]}" -DLIMIT_CASE_ok "$source" >"$tmp/log" 2>&1; then
      cat "$tmp/log" >&2
      fail "the case ok does not compile with $what: $(grep -m1 'error:' "$tmp/log" || head -n1 "$tmp/log")"
    fi
    for entry in "${CASES[@]}"; do
      name=${entry%%|*}
      message=${entry#*|}
      if "$compiler" -std="$std" "${lang[@]}" "${flags[@]}" -DLIMIT_CASE_"$name" "$source" >"$tmp/log" 2>&1; then
        fail "the case $name compiles with $what: the macros must refuse it"
      fi
      first=$(grep -m1 'error:' "$tmp/log" || true)
      if ! grep -qF -- "$message" <<<"$first"; then
        cat "$tmp/log" >&2
        fail "the case $name with $what: the first error is not the macros' message
  first error: ${first:-(none)}
  expected it to contain: $message"
      fi
      errors=$(grep -c 'error:' "$tmp/log" || true)
      if [ "$errors" -ne 1 ]; then
        cat "$tmp/log" >&2
        fail "the case $name with $what: $errors errors, expected only the macros' message"
      fi
      checked=$((checked + 1))
    done
  done
done
echo "limit args: the case ok compiles; every bad constant and 32 arguments fail with the macros' message ($checked compiles)"
