#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# check_layers.sh [ROOT]: no library file includes a header from a higher layer.
#
# The layers are listed, bottom first, in .ci/layers (ROOT's, else the one beside this script;
# .ci/tree.sh reads it). An entry is a folder (its own files, not its subfolders': a subfolder
# holding C files is a layer of its own and must be listed too) or a file pattern inside one
# folder (logger/*.c: the logger's face, above the rooms whose folders sit beside it).
# For every .c and .h file of a library folder, each `#include "x.h"` is resolved the way the
# build resolves it: a name with a directory part relative to the including file; a bare name
# (the tree includes "sr_atomic.h", not paths) by searching the library folders for a file of
# that name. The include passes when the header lies in the file's own layer or a lower one,
# and fails, with file:line, the header and both layers, when it lies in a higher layer, in a
# program folder, in two library folders at once (a bare name would then be ambiguous), or
# nowhere in them. Folders holding C files that .ci/layers does not list fail too, so that a new
# folder cannot escape the check. Angle-bracket includes are system and third-party headers:
# not checked. Exit 0: clean; 1: findings; 2: usage or missing list.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=tree.sh
. "$(dirname "${BASH_SOURCE[0]}")/tree.sh"
tree_open "$@"
tree_layers
list="$layers_file"

declare -A height=() # layer entry -> its index in the list
for i in "${!layers[@]}"; do height[${layers[$i]}]=$i; done
declare -A is_program=()
for p in "${programs[@]}"; do is_program[$p]=1; done

# The layer entry a library file lies in: a pattern entry of its folder that matches its name,
# else its folder's own entry; empty when none.
layer_of() {
  local file="$1" dir="${1%/*}" entry
  [[ "$file" == */* ]] || dir=""
  for entry in "${layers[@]}"; do
    if [[ "$entry" == *[*?]* && "${entry%/*}" == "$dir" && "${file##*/}" == ${entry##*/} ]]; then
      echo "$entry"
      return
    fi
  done
  if [ -n "$dir" ] && [ -n "${height[$dir]+x}" ]; then echo "$dir"; fi
}

files="$(tree_files)"
findings=0
fail() { # file:line, then the message
  echo "$1: $2"
  findings=$((findings + 1))
}

# Folders holding C sources must be placed in the list: a top-level folder as a library layer or
# a program, and every folder below a library layer as a layer of its own.
while IFS= read -r dir; do
  top="${dir%%/*}"
  if [ -n "${is_program[$top]+x}" ]; then continue; fi
  [ -n "${height[$dir]+x}" ] ||
    fail "$dir/" "holds C sources but is neither a library layer nor a program in $list"
done < <(grep -E '^[^/]+/.*\.[ch]$' <<<"$files" | sed -E 's|/[^/]+$||' | sort -u)

# Every file of the library folders, by base name (a name in two folders is ambiguous), and the
# layer entry of each.
declare -A where=()
declare -A layer_at=()
present=()
for layer in "${layers[@]}"; do
  [[ "$layer" == *[*?]* ]] && continue
  if [ -d "$layer" ]; then present+=("$layer"); else echo "check_layers: note: layer folder $layer/ does not exist in $root" >&2; fi
done
while IFS= read -r f; do
  [ -n "$f" ] || continue
  entry="$(layer_of "$f")"
  [ -n "$entry" ] || continue
  layer_at[$f]="$entry"
  name="${f##*/}"
  # A header CMake generates from a template here (sr_version.h from sr_version.h.in) lies in
  # this folder's layer as if it were written here.
  [[ $name == *.h.in ]] && name="${name%.in}"
  where[$name]="${where[$name]:+${where[$name]} }$f"
done < <(grep -E '/' <<<"$files" | grep -vE '^\.' || true)

# The folder (layer entry or program) a tree path lies in; empty when none.
folder_of() {
  local top="${1%%/*}"
  if [ -n "${is_program[$top]+x}" ]; then echo "$top"; return; fi
  echo "${layer_at[$1]:-}"
}

checked=0
while IFS=: read -r file lineno text; do
  layer="${layer_at[$file]}"
  mine=${height[$layer]}
  checked=$((checked + 1))
  inc="$(sed -E 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]+)".*/\1/' <<<"$text")"
  target=""
  if [[ "$inc" == */* ]]; then
    # As the compiler does: relative to the including file's folder.
    target="$(realpath -m --relative-to="$root" "$(dirname "$file")/$inc")"
    [ -f "$target" ] || { fail "$file:$lineno" "#include \"$inc\": no such file ($target)"; continue; }
  else
    # A file of the same name beside the includer wins, as with the compiler's quote search.
    if [ -f "$(dirname "$file")/$inc" ]; then
      target="$(dirname "$file")/$inc"
    else
      read -r -a found <<<"${where[$inc]:-}" || true
      if [ ${#found[@]} -eq 0 ]; then
        fail "$file:$lineno" "#include \"$inc\": no library folder has it (${present[*]})"
        continue
      elif [ ${#found[@]} -gt 1 ]; then
        fail "$file:$lineno" "#include \"$inc\": ambiguous, in ${found[*]}"
        continue
      fi
      target="${found[0]}"
    fi
  fi
  target="${target#./}"
  theirs="$(folder_of "$target")"
  if [ -z "$theirs" ]; then
    fail "$file:$lineno" "#include \"$inc\" is $target, outside every folder of $list"
  elif [ -n "${is_program[$theirs]+x}" ]; then
    fail "$file:$lineno" "#include \"$inc\" is $target, in program folder $theirs/: layer $layer may include only library layers"
  elif [ "${height[$theirs]}" -gt "$mine" ]; then
    fail "$file:$lineno" "#include \"$inc\" is $target, in layer $theirs (above): layer $layer may include only its own layer and the layers below it (allowed: ${layers[*]:0:$((mine + 1))})"
  fi
done < <(for f in "${!layer_at[@]}"; do [[ "$f" == *.[ch] ]] && printf '%s\0' "$f"; done |
  sort -z | xargs -0 -r grep -HnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' || true)

if [ "$findings" -gt 0 ]; then
  echo "check_layers: $findings finding(s); the layers, bottom first, are in $list: ${layers[*]} (programs: ${programs[*]})" >&2
  exit 1
fi
echo "check_layers: clean: $checked quoted includes in ${layers[*]} (programs: ${programs[*]}, not checked)"
