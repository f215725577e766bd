#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Model-checks ring/sr_sequencer.pml (the multi-producer claim/publish/availability protocol and
# the consumer barrier) with spin, for several small configurations, and fails on any assertion
# violation (lost, reordered or overwritten event) or invalid end state (deadlock).
#
# Then it checks that the model has teeth: three deliberately broken copies (no gating check, no
# availability scan, slot written after publish) must each be caught.
#
# Usage: run_spin.sh [WORKDIR]   (prints one line per configuration with its state count)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
model="$here/../../ring/sr_sequencer.pml"
work="${1:-$(mktemp -d)}"
mkdir -p "$work"
cd "$work"

if ! command -v spin >/dev/null 2>&1; then
  echo "run_spin: spin is not installed (apt-get install spin)" >&2
  exit 1
fi

# check NAME MODEL EXPECT(ok|fail) SPIN_DEFINES...
check() {
  local name="$1" file="$2" expect="$3"
  shift 3
  spin "$@" -a "$file" >/dev/null
  # -DSAFETY: safety properties only; -DCOLLAPSE and MEMLIM keep memory bounded (MB).
  gcc -O2 -DSAFETY -DCOLLAPSE -DMEMLIM=2048 -w -o pan pan.c
  local out
  out="$(./pan -m200000 2>&1 || true)"
  local errors states
  errors="$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' <<<"$out" | head -1)"
  states="$(sed -n 's/^ *\([0-9]*\) states, stored.*/\1/p' <<<"$out" | head -1)"
  if grep -q "MEMLIM\|max search depth too small" <<<"$out"; then
    echo "FAIL $name: search incomplete"; echo "$out"; return 1
  fi
  if [ "$expect" = ok ] && [ "$errors" = 0 ]; then
    echo "ok   $name: ${states} states, 0 errors"
  elif [ "$expect" = fail ] && [ "${errors:-0}" != 0 ]; then
    echo "ok   $name: broken model caught ($(grep -m1 -o 'assertion violated.*' <<<"$out" | cut -c1-60)...)"
  else
    echo "FAIL $name (expected $expect): errors=${errors:-?}"; echo "$out"; return 1
  fi
}

status=0
check "2 slots, 2 producers x 2 events, 1 consumer"  "$model" ok -DN=2 -DP=2 -DK=2 || status=1
check "2 slots, 2 producers x 2 events, pipeline"    "$model" ok -DN=2 -DP=2 -DK=2 -DCHAIN=1 || status=1
check "2 slots, 3 producers x 1 event, 1 consumer"   "$model" ok -DN=2 -DP=3 -DK=1 || status=1
check "2 slots, 3 producers x 1 event, pipeline"     "$model" ok -DN=2 -DP=3 -DK=1 -DCHAIN=1 || status=1
check "4 slots, 2 producers x 3 events, 1 consumer"  "$model" ok -DN=4 -DP=2 -DK=3 || status=1

# Mutants: each must be caught.
sed 's/:: (wrap > cached || cached > current) ->/:: false ->/' "$model" > no_gating.pml
sed 's/:: follows_consumer -> highest = avail/:: true -> highest = avail/' "$model" > no_scan.pml
sed 's/available\[next % N\] = next;  /available[next % N] = next; data_index[next % N] = k + 1;/' \
  "$model" > late_write.pml
for m in no_gating no_scan late_write; do
  if cmp -s "$model" "$m.pml"; then echo "FAIL mutant $m: the edit did not apply"; status=1; continue; fi
  check "mutant $m" "$m.pml" fail -DN=2 -DP=2 -DK=2 || status=1
done

[ "$status" = 0 ] && echo "spin: every configuration verified, every mutant caught"
exit "$status"
