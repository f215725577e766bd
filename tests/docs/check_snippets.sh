#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Usage: check_snippets.sh SOURCE_DIR INCLUDE_DIR LIBRARY [MARKDOWN...]
#
# Compiles every code block of README.md and docs/*.md (or of the MARKDOWN files given, paths
# from SOURCE_DIR), so that no snippet in the documentation can go stale:
#   ```c     compiled as it stands against INCLUDE_DIR (the build tree's staged headers, as users
#            include them: <seqring/sr_log.h>) with -std=c11 -Wall -Wextra -Wpedantic -Werror
#            and no -D flag. A block with a main() is linked with LIBRARY (-pthread) and run in a
#            scratch directory with no SEQRING_LOG* variable set: it must exit 0 within
#            SNIPPET_TIMEOUT seconds (10). A block without main() must be a whole translation
#            unit (fragments are written as functions).
#   ```sh, ```bash   parsed with bash -n.
#   ```cmake  with SNIPPET_BUILD_DIR set (a configured and built tree): a CMakeLists.txt for the
#            file's last complete C program before it (named as its add_executable says),
#            configured and built against an install of that tree into a scratch prefix, once
#            with seqring::seqring and once with seqring::seqring_static, then run (exit 0).
#            Without SNIPPET_BUILD_DIR, cmake blocks are listed as not checked.
#   other fences (```text, a bare ```)   output and diagrams: not checked.
# README.md's first complete program must end within its first 60 lines (its first screen).
# Each compile error names the Markdown file and line (the block is compiled under #line).
# Registered with CTest as the test doc_snippets (label docs), which passes CC, CMAKE and
# SNIPPET_BUILD_DIR. Exit 0: every
# block passed; 1: a block failed (each failure names FILE:LINE); 2: usage.
set -euo pipefail

[ $# -ge 3 ] || { echo "usage: check_snippets.sh SOURCE_DIR INCLUDE_DIR LIBRARY [MARKDOWN...]" >&2; exit 2; }
src=$(cd "$1" && pwd)
include_dir=$2
library=$3
shift 3
cc=${CC:-cc}
timeout_s=${SNIPPET_TIMEOUT:-10}
[ -d "$include_dir/seqring" ] || { echo "check_snippets: no $include_dir/seqring (the staged headers)" >&2; exit 2; }
[ -f "$library" ] || { echo "check_snippets: no library $library" >&2; exit 2; }

if [ $# -gt 0 ]; then
  files=("$@")
else
  files=(README.md)
  for f in "$src"/docs/*.md; do files+=("docs/${f##*/}"); done
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/seqring-snippets.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Split each file into blocks: $tmp/blocks/N.LANG, and a line "N LANG FILE LINE" in the index
# (LINE: the first line of the block's content). Fences may be indented (inside a list): the
# block's lines lose the fence's indentation.
mkdir -p "$tmp/blocks"
index=$tmp/index
: >"$index"
n=0
for f in "${files[@]}"; do
  [ -f "$src/$f" ] || { echo "check_snippets: no $f in $src" >&2; exit 2; }
  n=$(awk -v out="$tmp/blocks" -v index_file="$index" -v file="$f" -v n="$n" '
    !inside && /^ *```/ {
      indent = match($0, /[^ ]/) - 1
      lang = substr($0, indent + 4); sub(/[ \t].*$/, "", lang); sub(/\{.*$/, "", lang)
      if (lang == "") lang = "text"
      n++; inside = 1; start = NR; path = out "/" n "." lang
      printf "" > path
      print n, lang, file, NR + 1 >> index_file
      next
    }
    inside && /^ *```[ \t]*$/ { inside = 0; close(path); next }
    inside { line = $0; if (indent > 0 && substr(line, 1, indent) ~ /^ *$/) line = substr(line, indent + 1); print line >> path }
    END {
      if (inside) { print file ": a code block opened at line " start " is never closed" > "/dev/stderr"; exit 3 }
      print n
    }' "$src/$f")
done

# Programs run with no setting from the environment of whoever runs the suite.
unset_vars=()
while IFS= read -r name; do unset_vars+=(-u "$name"); done < <(env | sed -n 's/^\([Ss][Ee][Qq][Rr][Ii][Nn][Gg]_[Ll][Oo][Gg][^=]*\)=.*/\1/p')

failures=0
checked=0
declare -A last_program=() last_program_at=()
build_dir=${SNIPPET_BUILD_DIR:-}
cmake=${CMAKE:-cmake}
fail() { echo "$1: $2" >&2; failures=$((failures + 1)); }
while read -r i lang file line; do
  block=$tmp/blocks/$i.$lang
  where="$file:$line"
  case "$lang" in
    c)
      checked=$((checked + 1))
      unit=$tmp/snippet_$i.c
      { printf '#line %d "%s"\n' "$line" "$file"; cat "$block"; } >"$unit"
      if grep -Eq '^[[:space:]]*int[[:space:]]+main[[:space:]]*\(' "$block"; then
        last_program[$file]=$i
        last_program_at[$file]=$where
        if ! "$cc" -std=c11 -Wall -Wextra -Wpedantic -Werror -I"$include_dir" -o "$tmp/snippet_$i" \
          "$unit" "$library" -pthread >"$tmp/cc.log" 2>&1; then
          fail "$where" "c block (a program) does not compile or link:"
          cat "$tmp/cc.log" >&2
          continue
        fi
        run_dir=$tmp/run_$i
        mkdir -p "$run_dir"
        rc=0
        (cd "$run_dir" && env "${unset_vars[@]}" timeout "$timeout_s" "$tmp/snippet_$i" \
          >"$tmp/run.log" 2>&1 </dev/null) || rc=$?
        if [ "$rc" -ne 0 ]; then
          if [ "$rc" -eq 124 ]; then
            fail "$where" "c block (a program) did not finish within ${timeout_s} s; its output:"
          else
            fail "$where" "c block (a program) exited with status $rc (expected 0); its output:"
          fi
          cat "$tmp/run.log" >&2
        fi
      else
        if ! "$cc" -std=c11 -Wall -Wextra -Wpedantic -Werror -I"$include_dir" -c -o "$tmp/snippet_$i.o" \
          "$unit" >"$tmp/cc.log" 2>&1; then
          fail "$where" "c block (no main: a translation unit) does not compile:"
          cat "$tmp/cc.log" >&2
        fi
      fi
      ;;
    sh|bash)
      checked=$((checked + 1))
      if ! bash -n "$block" 2>"$tmp/sh.log"; then
        fail "$where" "$lang block does not parse (bash -n):"
        # bash says "BLOCK: line N: ..."; say the Markdown file's line instead.
        awk -v block="$block: line " -v file="$file" -v first="$line" '
          index($0, block) == 1 { rest = substr($0, length(block) + 1); n = rest + 0
                                  sub(/^[0-9]+/, "", rest); print file ":" first + n - 1 rest; next }
          { print }' "$tmp/sh.log" >&2
      fi
      ;;
    cmake)
      # A CMake consumer of the file's last complete program before it (the hello-world), built
      # against an install of the build tree into a scratch prefix, linking the shared library
      # and then the static one; each must run and exit 0.
      [ -n "$build_dir" ] || { echo "$where: cmake block not checked (no SNIPPET_BUILD_DIR)"; continue; }
      checked=$((checked + 1))
      program=${last_program[$file]:-}
      source_name=$(grep -oP 'add_executable\(\s*\S+\s+\K[^)\s]+' "$block" | head -n 1 || true)
      if [ -z "$program" ] || [ -z "$source_name" ]; then
        fail "$where" "cmake block: no add_executable(NAME FILE) or no complete c program before it in $file"
        continue
      fi
      if [ ! -d "$tmp/prefix" ] && ! "$cmake" --install "$build_dir" --prefix "$tmp/prefix" >"$tmp/install.log" 2>&1; then
        fail "$where" "cmake block: cannot install $build_dir into a scratch prefix:"
        cat "$tmp/install.log" >&2
        continue
      fi
      for variant in seqring seqring_static; do
        project=$tmp/cmake_${i}_$variant
        mkdir -p "$project"
        cp "$tmp/blocks/$program.c" "$project/$source_name"
        sed "s/seqring::seqring\b/seqring::$variant/" "$block" >"$project/CMakeLists.txt"
        if ! { "$cmake" -S "$project" -B "$project/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
                 -DCMAKE_C_COMPILER="$cc" && "$cmake" --build "$project/build"; } >"$tmp/cmake.log" 2>&1; then
          fail "$where" "cmake block ($variant) does not configure or build with the program at ${last_program_at[$file]}:"
          cat "$tmp/cmake.log" >&2
          continue
        fi
        exe=$(find "$project/build" -maxdepth 1 -type f -executable | head -n 1)
        rc=0
        (cd "$project" && env "${unset_vars[@]}" timeout "$timeout_s" "$exe" >"$tmp/run.log" 2>&1 </dev/null) || rc=$?
        if [ "$rc" -ne 0 ]; then
          fail "$where" "cmake block ($variant): the program exited with status $rc; its output:"
          cat "$tmp/run.log" >&2
        fi
      done
      ;;
    *) ;;   # output, diagrams
  esac
done <"$index"

# README.md's first screen is what seqring is, how to install it and a complete program that
# runs: its first c block with a main() (checked above) must end within its first 60 lines.
first_screen=60
for f in "${files[@]}"; do
  [ "$f" = README.md ] || continue
  program_end=""
  while read -r i lang file line; do
    [ "$file" = README.md ] && [ "$lang" = c ] || continue
    grep -Eq '^[[:space:]]*int[[:space:]]+main[[:space:]]*\(' "$tmp/blocks/$i.$lang" || continue
    program_end=$((line + $(wc -l <"$tmp/blocks/$i.$lang")))   # the closing fence's line
    break
  done <"$index"
  if [ -z "$program_end" ]; then
    fail README.md "no complete program (a c block with main) to show a first reader"
  elif [ "$program_end" -gt "$first_screen" ]; then
    fail "README.md:$program_end" "the first complete program ends after line $first_screen: the first screen is what seqring is, how to install it and a program that runs; move the rest below it"
  fi
done

[ "$checked" -gt 0 ] || { echo "check_snippets: no c, sh or bash block found in ${files[*]}" >&2; exit 1; }
if [ "$failures" -gt 0 ]; then
  echo "check_snippets: $failures of $checked code block(s) failed" >&2
  exit 1
fi
echo "check_snippets: the $checked c, sh and bash blocks of ${#files[@]} file(s) compile (programs run and exit 0)"
