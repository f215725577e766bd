#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Usage: check_env_defaults.sh SOURCE_DIR DESCRIBE_PROGRAM
#
# The defaults the documentation states are the library's: DESCRIBE_PROGRAM (describe_defaults.c:
# a logger opened with no configuration, sr_log_describe on stdout) is run with no SEQRING_LOG*
# variable set, and its lines are the truth. Checked against it:
#   - docs/configuration.md's environment table ("## Environment variables"): each variable whose
#     default is written as a value (`per_thread`; not prose such as "one sink, stderr") is set
#     to that value and the program run again: the setting's line must read as with the variable
#     unset (so 10us and 10000ns, 1 and true are the same value). A refused value fails too.
#   - The same table and the description name the same variables: a row for each variable
#     sr_log_describe reports, and no row for one it does not know.
#   - Its sr_log_config table: a field's default written as one constant, a boolean or a
#     number is what the description prints for that field (SR_LOG_PRODUCER_PER_THREAD:
#     per_thread).
#   - Every sr_log_describe line quoted in README.md or docs/*.md with the source
#     "default (VARIABLE unset)" shows the default value, except the clock, which the logger
#     chooses at open from the machine (auto: tsc where the TSC is invariant, else realtime).
# Registered with CTest as doc_env_defaults (label docs). Exit 0: every default agrees;
# 1: findings (FILE:LINE and what differs); 2: usage.
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: check_env_defaults.sh SOURCE_DIR DESCRIBE_PROGRAM" >&2; exit 2; }
src=$(cd "$1" && pwd)
program=$2
if [ ! -f "$program" ] || [ ! -x "$program" ]; then
  echo "check_env_defaults: $program is not an executable program" >&2
  exit 2
fi
program=$(cd "$(dirname "$program")" && pwd)/$(basename "$program")   # it runs from a scratch directory
doc=docs/configuration.md
[ -f "$src/$doc" ] || { echo "check_env_defaults: no $doc in $src" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/seqring-env-defaults.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# The program runs with no setting from the environment of whoever runs the suite.
unset_vars=()
while IFS= read -r name; do unset_vars+=(-u "$name"); done < <(env | sed -n 's/^\([Ss][Ee][Qq][Rr][Ii][Nn][Gg]_[Ll][Oo][Gg][^=]*\)=.*/\1/p')
describe() {  # describe [VAR=VALUE]: the program's output in $tmp/out, its errors in $tmp/err
  (cd "$tmp" && env "${unset_vars[@]}" "$@" "$program" >"$tmp/out" 2>"$tmp/err" </dev/null)
}
# A setting's line without its source ("default (VAR unset)" or "environment (VAR='...')") and
# with its spaces squeezed: what the setting is and its value.
setting_of() {  # setting_of VAR FILE
  grep -E "(default \\($1 unset\\)|environment \\($1=.*\\))\$" "$2" | head -n 1 |
    sed -E "s/ +(default \\($1 unset\\)|environment \\($1=.*\\))\$//; s/^ +//; s/ +/ /g"
}

if ! describe; then
  echo "check_env_defaults: $program failed with no SEQRING_LOG* variable set:" >&2
  cat "$tmp/err" >&2
  exit 1
fi
cp "$tmp/out" "$tmp/defaults"
mapfile -t described < <(grep -oE 'default \(SEQRING_LOG[A-Z_]* unset\)$' "$tmp/defaults" |
                         sed -E 's/default \((.*) unset\)/\1/')
[ ${#described[@]} -gt 0 ] || { echo "check_env_defaults: $program printed no 'default (SEQRING_LOG... unset)' line" >&2; exit 1; }

findings=0
finding() { echo "$1" >&2; findings=$((findings + 1)); }

# The table's rows: LINE<TAB>VARIABLE<TAB>DEFAULT CELL, from "| `VAR` | field | values | default | ...".
awk -F' \\| ' '
  /^## / { inside = ($0 == "## Environment variables") }
  inside && /^\| `SEQRING_LOG[A-Z_]*` \|/ { var = $1; gsub(/^\| `|`$/, "", var); print NR "\t" var "\t" $4 }
' "$src/$doc" >"$tmp/rows"
[ -s "$tmp/rows" ] || { echo "check_env_defaults: $doc has no environment table (## Environment variables)" >&2; exit 1; }

declare -A in_table=()
compared=0
while IFS=$'\t' read -r line var cell; do
  in_table[$var]=1
  [[ " ${described[*]} " == *" $var "* ]] ||
    finding "$doc:$line: $var is in the environment table, but sr_log_describe names no such setting"
  # Only a default written as one value, `value`, can be given back to the variable.
  [[ "$cell" =~ ^\`([^\`]+)\`$ ]] || continue
  value=${BASH_REMATCH[1]}
  want=$(setting_of "$var" "$tmp/defaults")
  [ -n "$want" ] || continue  # named by no setting line: reported above
  compared=$((compared + 1))
  if ! describe "$var=$value"; then
    finding "$doc:$line: $var's default is given as '$value', which the library refuses: $(head -n 1 "$tmp/err")"
    continue
  fi
  got=$(setting_of "$var" "$tmp/out")
  [ "$got" = "$want" ] ||
    finding "$doc:$line: $var's default is given as '$value', which gives '$got'; the library's default gives '$want'"
done <"$tmp/rows"
for var in "${described[@]}"; do
  [ -n "${in_table[$var]+x}" ] ||
    finding "$doc: the environment table has no row for $var, which sr_log_describe reports"
done

# The sr_log_config table ("## sr_log_config"): a field's default written as one constant
# (`SR_LOG_PRODUCER_PER_THREAD`), `true`/`false` or a number is the value sr_log_describe prints
# for that setting (per_thread: the constant's last words; a number: the value's first word).
awk -F' \\| ' '
  /^## / { inside = ($0 == "## sr_log_config") }
  inside && /^\| `[a-z_]+` \|/ { field = $1; gsub(/^\| `|`$/, "", field); print NR "\t" field "\t" $3 }
' "$src/$doc" >"$tmp/fields"
[ -s "$tmp/fields" ] || { echo "check_env_defaults: $doc has no sr_log_config table (## sr_log_config)" >&2; exit 1; }
fields=0
while IFS=$'\t' read -r line field cell; do
  [ "$field" != clock ] || continue   # auto: chosen at open from the machine
  cell=${cell#\`}
  cell=${cell%\`}
  [[ "$cell" =~ ^(SR_[A-Z0-9_]+|true|false|[0-9]+)$ ]] || continue
  # "  FIELD  VALUE ...": the setting column is padded with two spaces at least.
  value=$(sed -nE "s/^  $field  +([^ ]+).*/\1/p" "$tmp/defaults" | head -n 1)
  [ -n "$value" ] || continue   # not a line of its own in the description (level: level + level_spec)
  fields=$((fields + 1))
  if [[ "$cell" == SR_* ]]; then
    constant=${cell,,}
    [[ "$constant" == *"_$value" ]] && continue
  else
    [ "$cell" = "$value" ] && continue
  fi
  finding "$doc:$line: config.$field's default is given as $cell; sr_log_describe prints $field $value"
done <"$tmp/fields"

# Quoted description lines whose source is a default.
quoted=0
# From the source tree, wherever the script is run from (CTest runs it in the build tree).
for f in README.md $(cd "$src" && echo docs/*.md); do
  [ -f "$src/$f" ] || continue
  while IFS=: read -r line text; do
    var=$(sed -E 's/.*default \((SEQRING_LOG[A-Z_]*) unset\)$/\1/' <<<"$text")
    [ "$var" != SEQRING_LOG_CLOCK ] || continue   # chosen at open from the machine
    quoted=$((quoted + 1))
    want=$(setting_of "$var" "$tmp/defaults")
    got=$(printf '%s\n' "$text" | setting_of "$var" /dev/stdin)
    if [ -z "$want" ]; then
      finding "$f:$line: quotes a default of $var, which sr_log_describe does not report"
    elif [ "$got" != "$want" ]; then
      finding "$f:$line: quotes '$got' as a default; sr_log_describe prints '$want'"
    fi
  done < <(grep -nE '^ +[a-z_+ ]+ .* default \(SEQRING_LOG[A-Z_]* unset\)$' "$src/$f" || true)
done

if [ "$findings" -gt 0 ]; then
  echo "check_env_defaults: $findings default(s) in the documentation differ from the library's" >&2
  exit 1
fi
echo "check_env_defaults: the $compared defaults of $doc's environment table, $fields of its" \
  "sr_log_config table and the $quoted quoted description lines agree with sr_log_describe"
