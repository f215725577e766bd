#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Static analysis of the library sources: cppcheck and clang-tidy with a small agreed check list.
# Fails on any finding. Run from the repository root (CI runs it after the tests).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

sources=(base/*.c ring/*.c wait_strategies/*.c logger/*.c logger/*/*.c)
defines=(-D_GNU_SOURCE -D__x86_64__)
# The headers CMake generates (sr_version.h, sr_build.h), made here from their templates with the
# project's version, so that lint needs no build directory.
generated=$(mktemp -d)
trap 'rm -rf "$generated"' EXIT
version=$(sed -n 's/^project(seqring VERSION \([0-9]*\.[0-9]*\.[0-9]*\).*/\1/p' CMakeLists.txt)
IFS=. read -r major minor patch <<<"$version"
[ -n "$patch" ] || { echo "lint: no 'project(seqring VERSION X.Y.Z' in CMakeLists.txt" >&2; exit 2; }
sed -e "s/@PROJECT_VERSION_MAJOR@/$major/g" -e "s/@PROJECT_VERSION_MINOR@/$minor/g" \
    -e "s/@PROJECT_VERSION_PATCH@/$patch/g" -e "s/@PROJECT_VERSION@/$version/g" \
    base/sr_version.h.in >"$generated/sr_version.h"
sed -e 's/@SEQRING_BUILT_WITH_C11_ATOMICS@/0/g' base/sr_build.h.in >"$generated/sr_build.h"
includes=(-Ibase -Iring -Iwait_strategies -Ilogger "-I$generated")
for room in logger/*/; do includes+=("-I${room%/}"); done

echo "lint: cppcheck (warning, portability, performance) on ${#sources[@]} files"
# ctuuninitvar: cppcheck's cross-file analysis takes `&g` of an uninitialised struct passed to
# sr_fmt_gather_args (which fills it) as a read of uninitialised memory; it only takes the
# address of g->values there.
cppcheck --quiet --error-exitcode=1 --std=c11 --enable=warning,portability,performance \
  --inline-suppr --suppress=ctuuninitvar "${defines[@]}" "${includes[@]}" "${sources[@]}"

# The agreed clang-tidy list: bug-prone patterns and the static analyser, minus
#  - bugprone-easily-swappable-parameters: flags every (int64_t, int64_t) pair, i.e. the API;
#  - bugprone-reserved-identifier: our private names are sr_x__y by convention (ck's style);
#  - bugprone-macro-parentheses: the logging macros pass __VA_ARGS__ through unparenthesised;
#  - bugprone-implicit-widening-of-multiplication-result: size_t arithmetic on int64 counts
#    whose ranges are validated at creation;
#  - clang-analyzer-valist.Uninitialized: false positives on a va_list passed by pointer
#    (clang-tidy 14);
#  - clang-analyzer-security.insecureAPI.*: memcpy/snprintf "use the _s variants" advice.
checks='-*,bugprone-*,clang-analyzer-*,cert-err34-c'
checks+=',-bugprone-easily-swappable-parameters,-bugprone-reserved-identifier'
checks+=',-bugprone-macro-parentheses,-bugprone-implicit-widening-of-multiplication-result'
checks+=',-clang-analyzer-valist.Uninitialized,-clang-analyzer-security.insecureAPI.*'
echo "lint: clang-tidy ($checks)"
out="$(clang-tidy --quiet -checks="$checks" "${sources[@]}" -- -std=c11 "${defines[@]}" "${includes[@]}" 2>&1 || true)"
findings="$(grep -E '(warning|error):' <<<"$out" || true)"
if [ -n "$findings" ]; then
  echo "$out"
  echo "lint: clang-tidy reported $(wc -l <<<"$findings") finding(s)" >&2
  exit 1
fi
# The consumer's straight path built for AVX2 (an empty unit above, without the build's flag).
avx2=(logger/consumer/sr_log_consumer_lane_avx2.c)
echo "lint: clang-tidy on ${avx2[*]} as built for AVX2"
out="$(clang-tidy --quiet -checks="$checks" "${avx2[@]}" -- -std=c11 -mavx2 -DSEQRING_LANE_AVX2=1 "${defines[@]}" \
  "${includes[@]}" 2>&1 || true)"
findings="$(grep -E '(warning|error):' <<<"$out" || true)"
if [ -n "$findings" ]; then
  echo "$out"
  echo "lint: clang-tidy reported $(wc -l <<<"$findings") finding(s) in the AVX2 build" >&2
  exit 1
fi
echo "lint: clean"
