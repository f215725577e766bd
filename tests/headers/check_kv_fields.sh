#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Usage: check_kv_fields.sh INCLUDE_DIR
#
# The log macros' key-value fields (SR_KV): kv_fields.c, against the headers in
# INCLUDE_DIR/seqring/, with -Wall -Wextra -Wpedantic -Werror, in C99 and C11 with gcc and clang
# and in C++11 and C++17 with g++ and clang++:
#   - the case `ok` (fields alone and after format arguments, every value type, the rate-limited
#     macros) compiles warning-free;
#   - each other case fails, and its first error carries its message (CASES below, written in
#     sr_log_args.h).
# A failure names the compiler, the standard, the case and the first error. clang and clang++
# are skipped with a message when not installed; gcc and g++ never are.
# Registered with CTest as the test `headers_kv_fields` (label headers).
set -euo pipefail

CASES=(
  'key_variable|SR_KV: the key must be a string literal'
  'key_empty|SR_KV: the key must not be empty'
  'kv_first|SR_KV: key-value arguments come after the format arguments'
  'args_33|a log call takes at most 32 arguments after the format'
)

inc_dir=$(cd "${1:?usage: check_kv_fields.sh INCLUDE_DIR}" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source=$here/kv_fields.c
flags=(-Wall -Wextra -Wpedantic -Werror -fsyntax-only -I "$inc_dir")

tmp=$(mktemp -d "${TMPDIR:-/tmp}/seqring-kv-fields.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

fail() { echo "kv fields: $*" >&2; exit 1; }
have() { command -v "$1" >/dev/null 2>&1; }

checked=0
for pair in "gcc:c99 c11" "clang:c99 c11" "g++:c++11 c++17" "clang++:c++11 c++17"; do
  compiler=${pair%%:*}
  if ! have "$compiler"; then
    case $compiler in
      gcc | g++) fail "$compiler is not installed: it is required" ;;
    esac
    echo "kv fields: $compiler is not installed: its modes are skipped (.ci/deps.sh installs it)"
    continue
  fi
  lang=()
  case $compiler in *++) lang=(-x c++) ;; esac
  for std in ${pair#*:}; do
    what="$compiler -std=$std"
    if ! "$compiler" -std="$std" "${lang[@]}" "${flags[@]}" -DKV_CASE_ok "$source" >"$tmp/log" 2>&1; then
      cat "$tmp/log" >&2
      fail "the case ok does not compile with $what: $(grep -m1 'error:' "$tmp/log" || head -n1 "$tmp/log")"
    fi
    for entry in "${CASES[@]}"; do
      name=${entry%%|*}
      message=${entry#*|}
      if "$compiler" -std="$std" "${lang[@]}" "${flags[@]}" -DKV_CASE_"$name" "$source" >"$tmp/log" 2>&1; then
        fail "the case $name compiles with $what: the macros must refuse it"
      fi
      first=$(grep -m1 'error:' "$tmp/log" || true)
      if ! grep -qF -- "$message" <<<"$first"; then
        cat "$tmp/log" >&2
        fail "the case $name with $what: the first error is not the macros' message
  first error: ${first:-(none)}
  expected it to contain: $message"
      fi
      checked=$((checked + 1))
    done
  done
done
echo "kv fields: the case ok compiles; every bad call fails with the macros' message first ($checked compiles)"
