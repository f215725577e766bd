#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Usage: check_arg_limit.sh INCLUDE_DIR
#
# The log macros take at most 32 arguments after the format (SR_SITE_MAX_ARGS), and a call with
# more must say so: arg_limit.c, against the headers in INCLUDE_DIR/seqring/, with -Wall -Wextra
# -Wpedantic -Werror, in C99 and C11 with gcc and clang and in C++11 and C++17 with g++ and
# clang++:
#   - the 32-argument call compiles;
#   - the 33-argument and the 124-argument calls fail, and their only error carries the
#     macros' message (MESSAGE below, written in sr_log_args.h): no error of the macros'
#     insides before or after it.
# A failure names the compiler, the standard, the call and the first error. clang and clang++
# are skipped with a message when not installed; gcc and g++ never are.
# Registered with CTest as the test `headers_arg_limit` (label headers).
set -euo pipefail

MESSAGE='a log call takes at most 32 arguments after the format (SR_SITE_MAX_ARGS)'

inc_dir=$(cd "${1:?usage: check_arg_limit.sh INCLUDE_DIR}" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source=$here/arg_limit.c
flags=(-Wall -Wextra -Wpedantic -Werror -fsyntax-only -I "$inc_dir")

tmp=$(mktemp -d "${TMPDIR:-/tmp}/seqring-arg-limit.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

fail() { echo "arg limit: $*" >&2; exit 1; }
have() { command -v "$1" >/dev/null 2>&1; }

checked=0
for pair in "gcc:c99 c11" "clang:c99 c11" "g++:c++11 c++17" "clang++:c++11 c++17"; do
  compiler=${pair%%:*}
  if ! have "$compiler"; then
    case $compiler in
      gcc | g++) fail "$compiler is not installed: it is required" ;;
    esac
    echo "arg limit: $compiler is not installed: its modes are skipped (.ci/deps.sh installs it)"
    continue
  fi
  lang=()
  case $compiler in *++) lang=(-x c++) ;; esac
  for std in ${pair#*:}; do
    what="$compiler -std=$std"
    if ! "$compiler" -std="$std" "${lang[@]}" "${flags[@]}" -DARG_LIMIT_COUNT=32 "$source" \
      >"$tmp/log" 2>&1; then
      cat "$tmp/log" >&2
      fail "the 32-argument call does not compile with $what: $(grep -m1 'error:' "$tmp/log" || head -n1 "$tmp/log")"
    fi
    for count in 33 124; do
      if "$compiler" -std="$std" "${lang[@]}" "${flags[@]}" -DARG_LIMIT_COUNT="$count" "$source" \
        >"$tmp/log" 2>&1; then
        fail "the $count-argument call compiles with $what: the macros must refuse more than 32"
      fi
      first=$(grep -m1 'error:' "$tmp/log" || true)
      if ! grep -qF -- "$MESSAGE" <<<"$first"; then
        cat "$tmp/log" >&2
        fail "the $count-argument call with $what: the first error is not the macros' message
  first error: ${first:-(none)}
  expected it to contain: $MESSAGE"
      fi
      errors=$(grep -c 'error:' "$tmp/log" || true)
      if [ "$errors" -ne 1 ]; then
        cat "$tmp/log" >&2
        fail "the $count-argument call with $what: $errors errors, expected only the macros' message"
      fi
      checked=$((checked + 1))
    done
  done
done
echo "arg limit: 32 arguments compile; 33 and 124 fail with the macros' message alone ($checked compiles)"
