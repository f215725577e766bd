#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Usage: run_install_test.sh BUILD_DIR
#
# Installs a built seqring tree into a scratch prefix and builds tests/install/use_seqring.c
# against it (a) with gcc and `pkg-config --cflags --libs seqring`, as strict C11, with the
# program's own _POSIX_C_SOURCE and with its own _GNU_SOURCE (pkg-config must give no -D flag, so
# none of them can be redefined or changed), (b) with CMake and find_package(seqring), linking
# the shared and the static library. Each program must print "ok" and log one line on stderr.
# Registered with CTest as the test `install`, which passes CC and CMAKE.
set -euo pipefail

build_dir=$(cd "${1:?usage: run_install_test.sh BUILD_DIR}" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cc=${CC:-cc}
cmake=${CMAKE:-cmake}
pkg_config=${PKG_CONFIG:-pkg-config}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/seqring-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

fail() { echo "install test: $*" >&2; exit 1; }

# Run a command quietly; show its output only if it fails.
quiet() {
  local log=$tmp/step.log
  if ! "$@" >"$log" 2>&1; then
    cat "$log" >&2
    fail "failed: $*"
  fi
}

# Run a program that must print exactly "ok".
expect_ok() {
  local what=$1 out
  shift
  out=$("$@" 2>"$tmp/stderr") || fail "$what: exited with status $?: $(cat "$tmp/stderr")"
  [ "$out" = ok ] || fail "$what: printed '$out', expected 'ok'"
  grep -q "installed seqring .*: 42" "$tmp/stderr" || fail "$what: no log line on stderr: $(cat "$tmp/stderr")"
  echo "install test: $what: ok"
}

quiet "$cmake" --install "$build_dir" --prefix "$prefix"

# GNUInstallDirs picks lib or lib/<multiarch> depending on the prefix configured: look for it.
pc_file=$(find "$prefix" -path '*/pkgconfig/seqring.pc' -print -quit)
[ -n "$pc_file" ] || fail "no pkgconfig/seqring.pc under $prefix"
pc_dir=$(dirname "$pc_file")
lib_dir=$(dirname "$pc_dir")
version=$(sed -n 's/^#define SEQRING_VERSION_STRING "\(.*\)"$/\1/p' "$prefix/include/seqring/sr_version.h")
soversion=$(sed -n 's/^#define SEQRING_SOVERSION \([0-9]*\)$/\1/p' "$prefix/include/seqring/sr_version.h")
[ -n "$version" ] && [ -n "$soversion" ] || fail "no version in $prefix/include/seqring/sr_version.h"
so=libseqring.so.$soversion
[ -e "$lib_dir/$so" ] || fail "no $so in $lib_dir (sr_version.h says soversion $soversion)"
[ "$(readlink "$lib_dir/$so")" = "libseqring.so.$version" ] || fail "$so does not point at libseqring.so.$version"
[ -z "$(find "$prefix/include" -maxdepth 1 -name 'sr_*.h' -print -quit)" ] || fail "headers installed flat in $prefix/include"

[ -e "$lib_dir/libseqring.a" ] || fail "no libseqring.a in $lib_dir"

# (a) pkg-config. PKG_CONFIG_PATH adds to the default search path, where ck.pc lives.
flags=$(PKG_CONFIG_PATH="$pc_dir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}" "$pkg_config" --cflags --libs seqring) \
  || fail "pkg-config --cflags --libs seqring failed"
echo "install test: pkg-config: $flags"
case " $flags " in
  *" -D"*) fail "pkg-config --cflags --libs seqring gives a -D flag: $flags" ;;
esac
# shellcheck disable=SC2086 # $flags is a list of words
for variant in POSIX GNU; do
  quiet "$cc" -std=c11 -Wall -Wextra -Wpedantic -Werror -DUSE_SEQRING_$variant -o "$tmp/use_$variant" \
    "$here/use_seqring.c" $flags
  expect_ok "pkg-config, own _${variant}_SOURCE" env LD_LIBRARY_PATH="$lib_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    "$tmp/use_$variant"
done
# shellcheck disable=SC2086
quiet "$cc" -std=c11 -Wall -Wextra -Wpedantic -Werror -o "$tmp/use_pkgconfig" "$here/use_seqring.c" $flags
# The program must resolve libseqring from the scratch prefix, not from an older system install.
# ldd's output is captured first: under pipefail, `ldd | grep -q` fails whenever grep exits at the
# first match before ldd has written everything (ldd dies of SIGPIPE).
deps=$(LD_LIBRARY_PATH="$lib_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ldd "$tmp/use_pkgconfig")
grep -q "$so => $lib_dir/" <<<"$deps" || fail "use_pkgconfig does not load $lib_dir/$so"
expect_ok "pkg-config, shared" env LD_LIBRARY_PATH="$lib_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$tmp/use_pkgconfig"

# (b) find_package(seqring). The imported targets carry the library paths; CMake sets the RPATH.
quiet "$cmake" -S "$here" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release \
  -DSEQRING_VERSION="$version" \
  -DCMAKE_C_COMPILER="$cc"
quiet "$cmake" --build "$tmp/consumer"
expect_ok "find_package, seqring::seqring" "$tmp/consumer/use_seqring_shared"
expect_ok "find_package, seqring::seqring_static" "$tmp/consumer/use_seqring_static"
