# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# tree.sh: what the .ci/check_*.sh scripts share, sourced by them: the tree they check and its
# layer list.
#
#   tree_open "$@"   takes the scripts' one optional argument, ROOT (default: the tree this file
#                    is in), sets $root to its absolute path and changes to it; a bad argument
#                    exits 2 with the usage
#   tree_files       prints the tree's files, relative to it, sorted: git's view in a checkout
#                    (tracked, and untracked but not ignored), else every file but build/ and .git/
#   tree_layers      reads the layer list, ROOT's .ci/layers (else the one beside this file),
#                    into $layers_file, layers (library folders, bottom first) and programs;
#                    a missing or malformed list exits 2

ci_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

tree_open() {
  local script="${BASH_SOURCE[1]##*/}"
  root="${1:-$ci_dir/..}"
  if [ $# -gt 1 ] || [ ! -d "$root" ]; then
    echo "usage: $script [ROOT]   (ROOT: the source tree to check, default the one $script is in)" >&2
    exit 2
  fi
  root="$(cd "$root" && pwd)"
  cd "$root" || exit 2
}

tree_files() {
  if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files -co --exclude-standard
  else
    find . \( -name build -o -name .git \) -prune -o -type f -print | sed 's|^\./||'
  fi | sort
}

tree_layers() {
  local line
  local -a words
  layers_file="$root/.ci/layers"
  [ -f "$layers_file" ] || layers_file="$ci_dir/layers"
  if [ ! -f "$layers_file" ]; then
    echo "${BASH_SOURCE[1]##*/}: no layer list: neither $root/.ci/layers nor $ci_dir/layers exists" >&2
    exit 2
  fi
  layers=()
  programs=()
  while IFS= read -r line; do
    line="${line%%#*}"
    read -r -a words <<<"$line" || true
    [ ${#words[@]} -gt 0 ] || continue
    if [ "${words[0]}" = "programs:" ]; then
      programs+=("${words[@]:1}")
    elif [ ${#words[@]} -eq 1 ]; then
      layers+=("${words[0]}")
    else
      echo "$layers_file: '$line' is neither one folder name nor 'programs: FOLDER...'" >&2
      exit 2
    fi
  done <"$layers_file"
  if [ ${#layers[@]} -eq 0 ]; then
    echo "$layers_file lists no library folder" >&2
    exit 2
  fi
}
