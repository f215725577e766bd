#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# check_layers.sh [ROOT]: no library file includes a header from a higher layer.
#
# The layers are listed, bottom first, in .ci/layers (ROOT's, else the one beside this script;
# .ci/tree.sh reads it).
# For every .c and .h file of a library folder, each `#include "x.h"` is resolved the way the
# build resolves it: a name with a directory part relative to the including file; a bare name
# (the tree includes "sr_atomic.h", not paths) by searching the library folders for a file of
# that name. The include passes when the header lies in the file's own folder or a lower layer,
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

declare -A height=() # folder -> its index in the list
for i in "${!layers[@]}"; do height[${layers[$i]}]=$i; done
declare -A is_program=()
for p in "${programs[@]}"; do is_program[$p]=1; done

files="$(tree_files)"
findings=0
fail() { # file:line, then the message
  echo "$1: $2"
  findings=$((findings + 1))
}

# Top-level folders holding C sources must be placed in the list.
while IFS= read -r dir; do
  [ -n "${height[$dir]+x}" ] || [ -n "${is_program[$dir]+x}" ] ||
    fail "$dir/" "holds C sources but is neither a library layer nor a program in $list"
done < <(grep -E '^[^/]+/.*\.[ch]$' <<<"$files" | cut -d/ -f1 | sort -u)

# Every file of the library folders, by base name (a name in two folders is ambiguous).
declare -A where=()
present=()
for layer in "${layers[@]}"; do
  [ -d "$layer" ] || { echo "check_layers: note: layer folder $layer/ does not exist in $root" >&2; continue; }
  present+=("$layer")
  while IFS= read -r f; do
    name="${f##*/}"
    # A header CMake generates from a template here (sr_version.h from sr_version.h.in) lies in
    # this folder's layer as if it were written here.
    [[ $name == *.h.in ]] && name="${name%.in}"
    where[$name]="${where[$name]:+${where[$name]} }$f"
  done < <(grep -E "^$layer/" <<<"$files" || true)
done

# The folder (layer or program) a tree path lies in; empty when none.
folder_of() {
  local top="${1%%/*}"
  if [ -n "${height[$top]+x}" ] || [ -n "${is_program[$top]+x}" ]; then echo "$top"; fi
}

checked=0
for layer in "${present[@]}"; do
  mine=${height[$layer]}
  while IFS=: read -r file lineno text; do
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
      fail "$file:$lineno" "#include \"$inc\" is $target, in layer $theirs (above): layer $layer may include only its own folder and the layers below it (allowed: ${layers[*]:0:$((mine + 1))})"
    fi
  done < <(grep -E "^$layer/.*\.[ch]\$" <<<"$files" | tr '\n' '\0' |
    xargs -0 -r grep -HnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' || true)
done

if [ "$findings" -gt 0 ]; then
  echo "check_layers: $findings finding(s); the layers, bottom first, are in $list: ${layers[*]} (programs: ${programs[*]})" >&2
  exit 1
fi
echo "check_layers: clean: $checked quoted includes in ${present[*]} (programs: ${programs[*]}, not checked)"
