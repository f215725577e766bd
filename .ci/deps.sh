#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Makes sure the Debian packages the build needs are installed; the first step of every Makefile
# target. Silent when everything is present, so that it costs nothing on a configured machine.
# SEQRING_SKIP_DEPS=1 skips the check (for machines without dpkg or with their own toolchain).
# --library checks only what building and installing the library needs (make install): cmake,
# make, a C compiler, pkg-config and Concurrency Kit's headers.
set -euo pipefail

[ "${SEQRING_SKIP_DEPS:-0}" = 1 ] && exit 0

# clang, libclang-rt-dev (libFuzzer and sanitizer runtimes) and libffi-dev: the fuzz targets of
# tests/fuzz (skipped by CMake when missing, so a machine without them still builds).
# rsyslog: tests/stress/stress_log_syslog.c runs its own rsyslogd (never the system's) as the
# syslog sink's collector; logrotate: tests/stress/stress_log_reopen.c rotates the logger's files
# with it (both tests are skipped when their program is missing). doxygen: the API reference
# (make docs, and the CTest test api_docs, skipped without it). babeltrace2 and python3-bt2: the
# ctf: sink's traces are read back by tools nobody here wrote (tests/logger/test_log_trace.c and
# tests/logger/trace_read_bt2.py; skipped when missing). systemd: tests/logger/test_log_journald.c
# runs its own systemd-journald (a namespace instance in a mount namespace of the test, never the
# system's journal) and reads it back with journalctl (skipped when missing).
packages=(cmake g++ pkg-config libck-dev libbenchmark-dev libcriterion-dev spin cppcheck clang-tidy
          clang libclang-rt-dev libffi-dev rsyslog logrotate doxygen babeltrace2 python3-bt2 systemd)
if [ "${1:-}" = --library ]; then
  packages=(cmake make gcc pkg-config libck-dev)
elif [ $# -gt 0 ]; then
  echo "deps: unknown argument '$1': expected --library or nothing" >&2
  exit 2
fi

if ! command -v dpkg >/dev/null 2>&1; then
  echo "deps: dpkg not found, cannot check for: ${packages[*]}" >&2
  echo "deps: install their equivalents, then rerun with SEQRING_SKIP_DEPS=1" >&2
  exit 1
fi

missing=()
for pkg in "${packages[@]}"; do
  # `dpkg -s` also succeeds for removed packages whose config files remain: check the state.
  if ! dpkg -s "$pkg" 2>/dev/null | grep -q '^Status: install ok installed$'; then
    missing+=("$pkg")
  fi
done
[ "${#missing[@]}" -eq 0 ] && exit 0

echo "deps: missing packages: ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "deps: not running as root, so cannot install them. Run:" >&2
  echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "deps: installing ${missing[*]}"
apt-get update
DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
