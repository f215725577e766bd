#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Usage: check_arg_limit.sh INCLUDE_DIR
#
# The log macros take at most 32 arguments after the format (SR_SITE_MAX_ARGS), and a call with
# more must say so: arg_limit.c, against the headers in INCLUDE_DIR/seqring/, with -Wall -Wextra
# -Wpedantic -Werror, in C99 and C11 with gcc and clang and in C++11 and C++17 with g++ and
# clang++:
#   - the 32-argument call compiles;
#   - the 33-argument and the 124-argument calls fail, and their only error carries the
#     macros' message (MESSAGE below, written in sr_log_args.h): no error of the macros'
#     insides before or after it.
# A failure names the compiler, the standard, the call and the first error. clang and clang++
# are skipped with a message when not installed; gcc and g++ never are.
# The compiles are compile_cases.sh's. Registered with CTest as the test `headers_arg_limit` (label headers).
set -euo pipefail

MESSAGE='a log call takes at most 32 arguments after the format (SR_SITE_MAX_ARGS)'

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
exec bash "$here/compile_cases.sh" "arg limit" "${1:?usage: check_arg_limit.sh INCLUDE_DIR}" "$here/arg_limit.c" only \
  ARG_LIMIT_COUNT=32 "ARG_LIMIT_COUNT=33|$MESSAGE" "ARG_LIMIT_COUNT=124|$MESSAGE"
