#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Checks the shared library's exported symbols (the ABI):
#   1. they are exactly the committed list .ci/exported_symbols.txt, so that any change of the
#      ABI shows as a diff in review (update the list in the same commit, and the soname when
#      the change breaks the ABI);
#   2. every function or object that a public header marks SR_API is among them (a declaration
#      the library forgot to define or to export fails here, not in a user's link).
# Usage: .ci/check_exports.sh path/to/libseqring.so
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
lib="${1:?usage: check_exports.sh path/to/libseqring.so}"
list="$root/.ci/exported_symbols.txt"
[ -f "$lib" ] || { echo "check_exports: $lib does not exist (build the library first)" >&2; exit 2; }

actual=$(nm -D --defined-only "$lib" | awk 'NF == 3 && $2 ~ /^[TDBRVWi]$/ { print $3 }' | sort -u)
expected=$(grep -v '^#' "$list" | sed '/^$/d' | sort -u)
status=0
if ! diff_out=$(diff <(echo "$expected") <(echo "$actual")); then
  echo "check_exports: $lib exports differ from .ci/exported_symbols.txt (< listed only, > exported only):" >&2
  echo "$diff_out" | grep '^[<>]' >&2
  status=1
fi

# Names marked SR_API in the installed (public) headers: not the *_internal.h ones.
declared=$(find "$root/base" "$root/ring" "$root/wait_strategies" "$root/logger" \( -name 'sr_*.h' -o -name 'sr_*.h.in' \) \
             ! -name '*_internal.h' -print0 | xargs -0 python3 -c '
import re, sys
for path in sys.argv[1:]:
    text = re.sub(r"/\*.*?\*/", " ", open(path).read(), flags=re.S)
    text = re.sub(r"^[ \t]*#.*$", " ", text, flags=re.M)
    for decl in re.findall(r"\bSR_API\b([^;{]*)", text):
        name = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\s*(\(|$|\[)", decl.strip())
        if name:
            print(name.group(1))
' | sort -u)
missing=$(comm -23 <(echo "$declared") <(echo "$actual"))
if [ -n "$missing" ]; then
  echo "check_exports: declared SR_API in a public header but not exported by $lib:" >&2
  echo "$missing" | sed 's/^/  /' >&2
  status=1
fi
[ "$status" = 0 ] && echo "check_exports: $(echo "$actual" | wc -l) symbols, as listed; every SR_API declaration exported"
exit "$status"
