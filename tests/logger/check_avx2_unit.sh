#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Usage: check_avx2_unit.sh OBJECT
#
# The consumer's straight path built for AVX2 (logger/consumer/sr_log_consumer_lane_avx2.c,
# compiled with -mavx2) is run only where the CPU has AVX2, once the consumer has asked. So its
# object may hold nothing that runs before that or that another unit could call by name:
#   - no constructor or destructor (.init_array, .fini_array, .ctors, .dtors), which run at load;
#   - no defined global symbol but its two functions (sr_log__consume_in_lane_avx2,
#     sr_log__lane_line_avx2): no inline function the linker could pick for other units.
# Registered with CTest as the test `lane_avx2_unit` (label plain) where the unit is built for
# AVX2, not under a sanitizer (whose own module constructor the object then carries).
set -euo pipefail

obj=${1:?usage: check_avx2_unit.sh OBJECT}
[ -f "$obj" ] || { echo "check_avx2_unit: $obj: no such object (expected the AVX2 unit's)" >&2; exit 2; }

status=0
sections=$(readelf -S --wide "$obj" | grep -oE '\.(init_array|fini_array|ctors|dtors)[^ ]*' | sort -u || true)
if [ -n "$sections" ]; then
  echo "check_avx2_unit: $obj has load-time hooks, which would run on any CPU: $(echo $sections)" >&2
  status=1
fi
symbols=$(nm --defined-only --extern-only "$obj" | awk '{ print $3 }' | sort)
expected=$(printf '%s\n' sr_log__consume_in_lane_avx2 sr_log__lane_line_avx2 | sort)
if [ "$symbols" != "$expected" ]; then
  echo "check_avx2_unit: $obj defines $(echo $symbols | tr '\n' ' ')where only the two _avx2 functions were expected" >&2
  status=1
fi
[ "$status" -eq 0 ] && echo "check_avx2_unit: $(basename "$obj"): no load-time hooks; exports $(echo $symbols)"
exit "$status"
