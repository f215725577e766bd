#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Usage: check_limit_args.sh INCLUDE_DIR
#
# The rate-limiting macros (sr_log_limit.h) refuse, at compile time, a constant parameter below 1
# and a call with more than 31 arguments after the format, each with a message a user can act on:
# limit_args.c, against the headers in INCLUDE_DIR/seqring/, with -Wall -Wextra -Wpedantic
# -Werror, in C99 and C11 with gcc and clang and in C++11 and C++17 with g++ and clang++:
#   - the case `ok` (constants of at least 1, run-time values, 31 arguments) compiles;
#   - each other case fails, and its only error carries its message (CASES below, written in
#     sr_log_limit.h), naming the macro and the parameter.
# A failure names the compiler, the standard, the case and the first error. clang and clang++
# are skipped with a message when not installed; gcc and g++ never are.
# The compiles are compile_cases.sh's. Registered with CTest as the test `headers_limit_args` (label headers).
set -euo pipefail

CASES=(
  'every_n_zero|SR_LOG_EVERY_N: n must be at least 1'
  'every_n_negative|SR_INFO_EVERY_N: n must be at least 1'
  'rate_zero|SR_LOG_LIMIT: per_second must be at least 1'
  'burst_zero|SR_WARN_LIMIT: burst must be at least 1'
  'args_32|a rate-limited log call takes at most 31 arguments after the format'
)

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
exec bash "$here/compile_cases.sh" "limit args" "${1:?usage: check_limit_args.sh INCLUDE_DIR}" "$here/limit_args.c" \
  only LIMIT_CASE_ok "${CASES[@]/#/LIMIT_CASE_}"
