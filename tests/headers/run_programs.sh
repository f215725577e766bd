#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Usage: run_programs.sh c++|c99 INCLUDE_DIR LIBRARY
#
# Builds and runs the programs that use seqring from another language mode, against the
# headers in INCLUDE_DIR/seqring/ and LIBRARY, with -O2 -Wall -Wextra -Wpedantic -Werror and no
# -D flag:
#   c++  use_seqring.cpp as C++11 and C++20, with g++ and (when installed) clang++;
#   c99  use_seqring_c99.c as C99, with gcc and (when installed) clang.
# Each program checks its own outcome (use_seqring_common.h) and exits non-zero on a mismatch.
# LIBRARY is the static library, or the shared one (a .so, found at run time by an rpath to its
# folder): linking the shared one proves that every function the programs' macros and inline
# calls refer to is exported.
# SEQRING_PROGRAM_FLAGS adds compile and link flags (a sanitizer build's, or -O0);
# SEQRING_PROGRAM_COMPILERS replaces the list of compilers (a sanitizer build uses only the
# library's own compiler).
# Registered with CTest as the tests `cxx_program` and `c99_program` (the static library) and
# `cxx_program_shared_O0` and `c99_program_shared_O0` (label headers).
set -euo pipefail

lang=${1:?usage: run_programs.sh c++|c99 INCLUDE_DIR LIBRARY}
inc_dir=$(cd "${2:?usage: run_programs.sh c++|c99 INCLUDE_DIR LIBRARY}" && pwd)
library=${3:?usage: run_programs.sh c++|c99 INCLUDE_DIR LIBRARY}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
read -r -a extra <<<"${SEQRING_PROGRAM_FLAGS:-}"

fail() { echo "$lang program: $*" >&2; exit 1; }
[ -f "$library" ] || fail "no library at $library"
link=()
case $(basename "$library") in
  *.so | *.so.*) link=(-Wl,-rpath,"$(cd "$(dirname "$library")" && pwd)") ;;
esac

case $lang in
  c++) source=$here/use_seqring.cpp default_compilers="g++ clang++" standards="c++11 c++20" ;;
  c99) source=$here/use_seqring_c99.c default_compilers="gcc clang" standards="c99" ;;
  *) fail "unknown language '$lang': expected c++ or c99" ;;
esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/seqring-programs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

built=0
for compiler in ${SEQRING_PROGRAM_COMPILERS:-$default_compilers}; do
  if ! command -v "$compiler" >/dev/null 2>&1; then
    case $compiler in
      gcc | g++) fail "$compiler is not installed: it is required" ;;
    esac
    echo "$lang program: $compiler is not installed: skipped (.ci/deps.sh installs it)"
    continue
  fi
  for std in $standards; do
    exe=$tmp/use_${compiler}_$std
    if ! "$compiler" -std="$std" -O2 -Wall -Wextra -Wpedantic -Werror "${extra[@]}" \
      -I "$inc_dir" -o "$exe" "$source" "$library" "${link[@]}" -pthread >"$tmp/build.log" 2>&1; then
      cat "$tmp/build.log" >&2
      fail "$(basename "$source") does not build with $compiler -std=$std: $(grep -m1 -E 'error|warning' "$tmp/build.log" || head -n1 "$tmp/build.log")"
    fi
    if ! "$exe" "$tmp/log_${compiler}_$std"; then
      fail "$(basename "$source") built with $compiler -std=$std failed (its message is above)"
    fi
    built=$((built + 1))
  done
done
[ "$built" -gt 0 ] || fail "no compiler built the program"
echo "$lang program: $built builds ran and checked their outcome"
