#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Usage: check_kv_fields.sh INCLUDE_DIR
#
# The log macros' key-value fields (SR_KV): kv_fields.c, against the headers in
# INCLUDE_DIR/seqring/, with -Wall -Wextra -Wpedantic -Werror, in C99 and C11 with gcc and clang
# and in C++11 and C++17 with g++ and clang++:
#   - the case `ok` (fields alone and after format arguments, every value type, the rate-limited
#     macros) compiles warning-free;
#   - each other case fails, and its first error carries its message (CASES below, written in
#     sr_log_args.h).
# A failure names the compiler, the standard, the case and the first error. clang and clang++
# are skipped with a message when not installed; gcc and g++ never are.
# The compiles are compile_cases.sh's. Registered with CTest as the test `headers_kv_fields` (label headers).
set -euo pipefail

CASES=(
  'key_variable|SR_KV: the key must be a string literal'
  'key_empty|SR_KV: the key must not be empty'
  'kv_first|SR_KV: key-value arguments come after the format arguments'
  'args_33|a log call takes at most 32 arguments after the format'
)

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
exec bash "$here/compile_cases.sh" "kv fields" "${1:?usage: check_kv_fields.sh INCLUDE_DIR}" "$here/kv_fields.c" first \
  KV_CASE_ok "${CASES[@]/#/KV_CASE_}"
