#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# check_paths.sh [ROOT]: every repository path named in a header, a Markdown document or a
# string literal of a .c file (where the error messages are) exists in the tree.
#
# What counts as a path named: a word of the form dir/.../name whose first folder is a
# top-level folder of the tree or a folder of .ci/layers (logger/README-config.md,
# docs/configuration.md, perf/README.md), or one that starts with ./ or ../; in Markdown also
# the target of every relative link, [text](target). A path is looked for from the tree's root,
# then from the naming file's folder (./ and ../ paths: from that folder only); it exists when
# the tree has a file or a folder there (git's view in a checkout: tracked, or untracked and not
# ignored), or when it names a program the tree builds (perf/caller, from perf/caller.c). URLs,
# absolute paths (/tmp, /dev, /proc, /etc, /var: never the tree's) and words glued to other
# text are not paths named; comments in .c files are not read. The allow-list below holds what
# looks like a path and is not one.
#
# Markdown files are also checked when named without a top-level folder: in a header or a
# Markdown document a bare name.md (configuration.md), and anywhere a relative dir/name.md whose
# first folder is not a top-level one (results/ring.md in perf/README.md). Such a name resolves
# from the naming file's folder, then from the tree's root; a bare name that resolves from
# neither is still accepted when exactly one file of the tree has that name (a reader searching
# for it finds that one), never when several do (ring.md: docs/ring.md and perf/results/ring.md;
# the naming file must then say which, with its folder).
#
# Exit 0: every path exists; 1: findings (file:line and the path); 2: usage.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=tree.sh
. "$(dirname "${BASH_SOURCE[0]}")/tree.sh"
tree_open "$@"

# The allow-list: extended regular expressions, each matched against a path as written.
allowed=(
  '^build(/|$)'          # build output (build/<preset>/...): made by CMake, never in the tree
  '(^|/)(NAME|FILE|DIR|LABEL|N)(\.[a-z]+)?(/|$)'   # placeholders: examples/NAME.c, ring/LABEL
  '[*?]'                 # globs: ring/*.c, perf/results/*.csv
  '\.\.\.'               # elisions: perf/...
  # Labels, not paths: a logger mode and its wait strategy (ring/phased in the perf tables,
  # ring/phased/shared for the shared ring beside the default, ring/phased/ctf for its twin
  # writing a trace), or the modes together (ring/queue/sync).
  '^(ring|queue|sync)(/(ring|queue|sync|busyspin|yield|sleep|block|liteblock|timeout|phased|shared|ctf|dir))+$'
)
# Files whose paths name other projects' trees, not this one: the peers' sources and docs
# describe Log4j 2, Logback, spdlog and the Disruptor.
foreign='^perf/peers/'

files="$(tree_files)"
declare -A exists=() md_named=()
while IFS= read -r f; do
  [ -n "$f" ] || continue
  exists[$f]=1
  [[ "$f" != *.md ]] || md_named[${f##*/}]=$(( ${md_named[${f##*/}]:-0} + 1 ))
  d="$f"
  while [[ "$d" == */* ]]; do d="${d%/*}"; exists[$d]=1; done
done <<<"$files"
# Programs the tree builds, named as they are built (build/<preset>/perf/caller): by the path
# of their source without its extension (perf/caller from perf/caller.c), by the top folder and
# the source's base name (perf/caller from perf/logger/caller.c), and by the literal
# add_executable names of a folder's CMakeLists.txt (perf/micro).
while IFS= read -r f; do
  case "$f" in
    */*.c|*/*.cpp|*/*.sh) g="${f%.*}"; exists[$g]=1; exists[${f%%/*}/${g##*/}]=1 ;;
  esac
done <<<"$files"
mapfile -t cmakelists < <(grep -E '(^|/)CMakeLists\.txt$' <<<"$files" || true)
while IFS=: read -r cm name; do
  d="${cm%CMakeLists.txt}"
  exists[$d$name]=1
done < <(grep -oP 'add_executable\(\s*\K[A-Za-z0-9_]+' "${cmakelists[@]}" /dev/null || true)

# First folders that make a word a path: the tree's top-level folders and the listed ones.
declare -A top=()
while IFS= read -r d; do top[$d]=1; done < <(grep / <<<"$files" | cut -d/ -f1 | sort -u)
tree_layers
for d in "${layers[@]}" "${programs[@]}"; do top[$d]=1; done

# A path-like word: not glued to a preceding word, URL, absolute path, variable or placeholder.
word='(?<![\w./~$@{}<>%:=?#&*+\\-])(?:\.\.?/)*[\w][\w.+-]*(?:/[\w.+*?-]+)+/?'
# A bare Markdown file name: the same, with no folder part.
bare_md='(?<![\w./~$@{}<>%:=?#&*+\\-])[\w][\w.+-]*\.md(?![\w/-])'
url='[a-zA-Z][a-zA-Z0-9+.-]*://[^ )>`"]*'

# The tree path of DIR/PATH with . and .. resolved; empty when it leaves the tree.
resolve() {
  local -a parts=() out=()
  local p
  IFS=/ read -r -a parts <<<"$1/$2"
  for p in "${parts[@]}"; do
    case "$p" in
      ''|.) ;;
      ..) [ ${#out[@]} -gt 0 ] || { REPLY=""; return; }; unset 'out[${#out[@]}-1]' ;;
      *) out+=("$p") ;;
    esac
  done
  local IFS=/
  REPLY="${out[*]}"
}

findings=0
checked=0
declare -A reported=()
# check FILE LINE PATH [link]: report PATH unless it exists or is allowed.
check() {
  local file="$1" line="$2" path="$3" kind="${4:-}" dir base re
  path="${path%%#*}"
  path="${path%%\?*}"
  while [[ "$path" == *[.,:\;] ]]; do path="${path%?}"; done
  [ -n "$path" ] || return 0
  if [ "$kind" != link ] && [[ "$path" != *.md ]]; then
    base="${path#./}"
    while [[ "$base" == ../* ]]; do base="${base#../}"; done
    [[ "$path" == ./* || "$path" == ../* || -n "${top[${base%%/*}]+x}" ]] || return 0
  fi
  for re in "${allowed[@]}"; do [[ "$path" =~ $re ]] && return 0; done
  checked=$((checked + 1))
  if [[ "$path" != ./* && "$path" != ../* && -n "${exists[${path%/}]+x}" ]]; then return 0; fi
  dir=.
  [[ "$file" == */* ]] && dir="${file%/*}"
  resolve "$dir" "$path"
  [ -n "$REPLY" ] && [ -n "${exists[$REPLY]+x}" ] && return 0
  local where="in the tree"
  if [[ "$path" == *.md && "$path" != */* ]]; then
    case "${md_named[$path]:-0}" in
      1) return 0 ;;
      0) ;;
      *) where="in $dir or at the root, and ${md_named[$path]} files of the tree have that name: say which, with its folder" ;;
    esac
  fi
  # A Markdown link is also a word: say it once.
  [ -z "${reported[$file:$line:$path]+x}" ] || return 0
  reported[$file:$line:$path]=1
  echo "$file:$line: names $path, which does not exist $where"
  findings=$((findings + 1))
}

while IFS= read -r file; do
  [[ "$file" =~ $foreign ]] && continue
  case "$file" in
    *.h|*.md)
      # URLs first, so that their path parts are not read as this tree's.
      while IFS=: read -r line path; do check "$file" "$line" "$path"; done \
        < <(sed -E "s#$url##g" "$file" | grep -noP "$word|$bare_md" || true)
      [[ "$file" == *.md ]] || continue
      while IFS=: read -r line path; do
        case "$path" in http:*|https:*|mailto:*|'#'*) continue ;; esac
        check "$file" "$line" "$path" link
      done < <(grep -noP '\]\(\K[^)\s]+(?=\))' "$file" || true) ;;
    *.c)
      # Only the string literals, one a line, then the words in them; map back to file lines.
      literals="$(grep -noP '"(?:[^"\\]|\\.)*"' "$file" || true)"
      [ -n "$literals" ] || continue
      mapfile -t at < <(cut -d: -f1 <<<"$literals")
      while IFS=: read -r k path; do check "$file" "${at[$((k - 1))]}" "$path"; done \
        < <(cut -d: -f2- <<<"$literals" | sed -E "s#$url##g" | grep -noP "$word" || true) ;;
  esac
done < <(grep -E '\.(h|md|c)$' <<<"$files")

if [ "$findings" -gt 0 ]; then
  echo "check_paths: $findings path(s) named that do not exist (of $checked checked): fix the name," \
    "add the file, or, if it is no path of this tree, extend the allow-list in .ci/check_paths.sh" >&2
  exit 1
fi
echo "check_paths: clean: the $checked paths named in headers, docs and .c string literals exist"
