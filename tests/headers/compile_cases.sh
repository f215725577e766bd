#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Usage: compile_cases.sh LABEL INCLUDE_DIR SOURCE ERRORS OK_DEFINE 'DEFINE|MESSAGE' ...
#
# The driver of the compile-time checks of the macros (check_arg_limit.sh, check_kv_fields.sh,
# check_limit_args.sh): SOURCE, against the headers in INCLUDE_DIR/seqring/, with -Wall -Wextra
# -Wpedantic -Werror -fsyntax-only, in C99 and C11 with gcc and clang and in C++11 and C++17
# with g++ and clang++:
#   - with -D OK_DEFINE it compiles;
#   - with -D DEFINE of each case it fails, and its first error carries MESSAGE; ERRORS `only`:
#     that error is the only one (no error of the macros' insides before or after it); `first`:
#     others may follow.
# A failure names the compiler, the standard, the case and the first error; LABEL starts every
# line. clang and clang++ are skipped with a message when not installed; gcc and g++ never are.
set -euo pipefail

label=${1:?usage: compile_cases.sh LABEL INCLUDE_DIR SOURCE ERRORS OK_DEFINE 'DEFINE|MESSAGE' ...}
inc_dir=$(cd "${2:?the include directory}" && pwd)
source=${3:?the source}
errors_wanted=${4:?only or first}
ok_define=${5:?the define of the case that compiles}
shift 5
[ "$#" -gt 0 ] || { echo "$label: no case to refuse" >&2; exit 2; }
case $errors_wanted in only | first) ;; *) echo "$label: ERRORS is '$errors_wanted': expected only or first" >&2; exit 2 ;; esac
flags=(-Wall -Wextra -Wpedantic -Werror -fsyntax-only -I "$inc_dir")

tmp=$(mktemp -d "${TMPDIR:-/tmp}/seqring-compile-cases.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

fail() { echo "$label: $*" >&2; exit 1; }
have() { command -v "$1" >/dev/null 2>&1; }

checked=0
for pair in "gcc:c99 c11" "clang:c99 c11" "g++:c++11 c++17" "clang++:c++11 c++17"; do
  compiler=${pair%%:*}
  if ! have "$compiler"; then
    case $compiler in
      gcc | g++) fail "$compiler is not installed: it is required" ;;
    esac
    echo "$label: $compiler is not installed: its modes are skipped (.ci/deps.sh installs it)"
    continue
  fi
  lang=()
  case $compiler in *++) lang=(-x c++) ;; esac
  for std in ${pair#*:}; do
    what="$compiler -std=$std"
    if ! "$compiler" -std="$std" "${lang[@]}" "${flags[@]}" -D"$ok_define" "$source" >"$tmp/log" 2>&1; then
      cat "$tmp/log" >&2
      fail "$ok_define does not compile with $what: $(grep -m1 'error:' "$tmp/log" || head -n1 "$tmp/log")"
    fi
    for entry in "$@"; do
      define=${entry%%|*}
      message=${entry#*|}
      if "$compiler" -std="$std" "${lang[@]}" "${flags[@]}" -D"$define" "$source" >"$tmp/log" 2>&1; then
        fail "$define compiles with $what: the macros must refuse it"
      fi
      first=$(grep -m1 'error:' "$tmp/log" || true)
      if ! grep -qF -- "$message" <<<"$first"; then
        cat "$tmp/log" >&2
        fail "$define with $what: the first error is not the macros' message
  first error: ${first:-(none)}
  expected it to contain: $message"
      fi
      errors=$(grep -c 'error:' "$tmp/log" || true)
      if [ "$errors_wanted" = only ] && [ "$errors" -ne 1 ]; then
        cat "$tmp/log" >&2
        fail "$define with $what: $errors errors, expected only the macros' message"
      fi
      checked=$((checked + 1))
    done
  done
done
echo "$label: $ok_define compiles; every case refused fails with the macros' message ($checked compiles)"
