#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Usage: check_headers.sh INCLUDE_DIR
#
# Every public header in INCLUDE_DIR/seqring/ (the staged or installed include directory)
# compiles on its own, and macros_check.c (every public macro expanded) compiles, with
# -Wall -Wextra -Wpedantic -Werror and no -D flag, in 14 modes: C99, C11 and C17 with gcc and
# clang, C++11, C++14, C++17 and C++20 with g++ and clang++ (C++ also compiles one file that
# includes every header). In C++ no Concurrency Kit header may be included (they are not C++).
# Every header that declares something does it inside extern "C". A failure names the header,
# the compiler, the standard and the first error. clang and clang++ are skipped with a message
# when not installed; gcc and g++ never are.
# Registered with CTest as the test `headers_compile` (label headers).
set -euo pipefail

inc_dir=$(cd "${1:?usage: check_headers.sh INCLUDE_DIR}" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
flags=(-Wall -Wextra -Wpedantic -Werror -fsyntax-only -I "$inc_dir")

tmp=$(mktemp -d "${TMPDIR:-/tmp}/seqring-headers.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

fail() { echo "headers: $*" >&2; exit 1; }

headers=()
for path in "$inc_dir"/seqring/*.h; do
  [ -e "$path" ] || fail "no header in $inc_dir/seqring"
  name=$(basename "$path" .h)
  case $name in *_internal) fail "$name.h is internal but staged in $inc_dir/seqring" ;; esac
  headers+=("$name")
done
# C++ links a declaration by its language: every header that declares something wraps it in
# extern "C" (a function a C++ program sees without it would be looked up under a mangled name).
for name in "${headers[@]}"; do
  if grep -qE '^(SR_API|static inline|typedef|extern|enum|struct|union)\b' "$inc_dir/seqring/$name.h" &&
    ! grep -q '^extern "C" {' "$inc_dir/seqring/$name.h"; then
    fail "seqring/$name.h declares names outside an extern \"C\" block (#ifdef __cplusplus extern \"C\" {)"
  fi
done
for required in sr_log sr_ring sr_version sr_build; do
  [ -e "$inc_dir/seqring/$required.h" ] || fail "$required.h missing from $inc_dir/seqring"
done

# One translation unit per header. The typedef keeps the unit non-empty: ISO C forbids an
# empty one, and sr_export.h and sr_build.h define only macros.
units=()
for name in "${headers[@]}"; do
  printf '#include <seqring/%s.h>\ntypedef int check_headers_nonempty;\n' "$name" >"$tmp/$name.c"
  units+=("$tmp/$name.c")
done
all=$tmp/all_headers.c
for name in "${headers[@]}"; do printf '#include <seqring/%s.h>\n' "$name"; done >"$all"
echo 'typedef int check_headers_nonempty;' >>"$all"

# Names which unit failed and its first error; the whole output follows.
report() {
  local compiler=$1 std=$2 lang=$3 out=$4 unit what first
  shift 4
  for unit in "$@"; do
    if ! "$compiler" -std="$std" $lang "${flags[@]}" "$unit" >"$tmp/one.log" 2>&1; then
      case $unit in
        "$all") what="all headers together" ;;
        */macros_check.c) what="the macros (macros_check.c)" ;;
        *) what="seqring/$(basename "$unit" .c).h" ;;
      esac
      first=$(grep -m1 -E 'error|warning' "$tmp/one.log" || head -n1 "$tmp/one.log")
      cat "$tmp/one.log" >&2
      fail "$what does not compile with $compiler -std=$std: $first"
    fi
  done
  cat "$out" >&2
  fail "$compiler -std=$std failed, but no unit fails alone"
}

have() { command -v "$1" >/dev/null 2>&1; }

modes=0
# Every mode compiles all its units in one compiler invocation (fast); only a failure
# compiles them one by one, to name the failing one.
check_mode() {
  local compiler=$1 std=$2 lang=()
  local list=("${units[@]}" "$here/macros_check.c")
  case $std in
    c++*)
      lang=(-x c++)
      list+=("$all")
      ;;
  esac
  if ! "$compiler" -std="$std" "${lang[@]}" "${flags[@]}" "${list[@]}" >"$tmp/mode.log" 2>&1; then
    report "$compiler" "$std" "${lang[*]}" "$tmp/mode.log" "${list[@]}"
  fi
  modes=$((modes + 1))
}

# C++ must not see ck's headers: the default backend of sr_atomic.h includes them in C only.
check_no_ck() {
  local compiler=$1 deps
  deps=$("$compiler" -std=c++11 -x c++ -M -I "$inc_dir" "$all") || fail "$compiler -M failed"
  if grep -o '[^ ]*/ck_[a-z_]*\.h' <<<"$deps" | head -n1 | grep -q .; then
    fail "$compiler -std=c++11 includes Concurrency Kit's $(grep -o '[^ ]*/ck_[a-z_]*\.h' <<<"$deps" | head -n1): its headers are not C++"
  fi
}

for pair in "gcc:c99 c11 c17" "clang:c99 c11 c17" "g++:c++11 c++14 c++17 c++20" "clang++:c++11 c++14 c++17 c++20"; do
  compiler=${pair%%:*}
  if ! have "$compiler"; then
    case $compiler in
      gcc | g++) fail "$compiler is not installed: it is required" ;;
    esac
    echo "headers: $compiler is not installed: its modes are skipped (.ci/deps.sh installs it)"
    continue
  fi
  for std in ${pair#*:}; do
    check_mode "$compiler" "$std"
  done
  case $compiler in *++) check_no_ck "$compiler" ;; esac
done

echo "headers: ${#headers[@]} headers and the macros compile warning-free in $modes modes"
