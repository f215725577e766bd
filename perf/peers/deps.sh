#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# perf/peers/deps.sh: makes sure the Debian packages that `make bench-peers` needs are installed
# (the peers' libraries, a JDK to compile and run the Java harnesses, spdlog's headers, gnuplot).
# Silent when everything is present. Same rules as .ci/deps.sh: installs as root (apt-get update
# only when a first install fails), prints the command to run otherwise.
# SEQRING_SKIP_DEPS=1 skips the check.
set -euo pipefail

[ "${SEQRING_SKIP_DEPS:-0}" = 1 ] && exit 0

# liblog4j2-java: log4j-api and log4j-core jars (2.19 on bookworm); libdisruptor-java: the LMAX
# Disruptor 3.4, which Log4j 2's all-asynchronous loggers need and the ring harness uses;
# liblogback-java + libslf4j-java: Logback 1.2 classic/core and the SLF4J API it implements;
# libhdrhistogram-java: HdrHistogram for the response-time harness (the histogram Log4j 2's
# ResponseTimeTest uses); libspdlog-dev: spdlog's headers for perf/peers/spdlog; lttng-tools and
# liblttng-ust-dev: LTTng-UST, the binary tracer of the trace phase (its session daemon is started
# and stopped by the harness).
packages=(default-jdk-headless liblog4j2-java libdisruptor-java liblogback-java libslf4j-java
          libhdrhistogram-java libspdlog-dev gnuplot-nox lttng-tools liblttng-ust-dev)

command -v dpkg-query >/dev/null 2>&1 || {
  echo "peers deps: dpkg-query not found; install the equivalents of: ${packages[*]}," >&2
  echo "peers deps: then rerun with SEQRING_SKIP_DEPS=1" >&2
  exit 1
}
# One query for all: the installed ones ("ii"), then whatever of the list is not among them.
installed=" $(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' "${packages[@]}" 2>/dev/null |
  awk '$1 == "ii" { printf "%s ", $2 }' || true)"  # dpkg-query fails for a package it never heard of
missing=()
for pkg in "${packages[@]}"; do
  [[ $installed == *" $pkg "* ]] || missing+=("$pkg")
done
[ "${#missing[@]}" -eq 0 ] && exit 0

echo "peers deps: missing: ${missing[*]}" >&2
[ "$(id -u)" -eq 0 ] || {
  echo "peers deps: not root, cannot install; run: sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
  exit 1
}
echo "peers deps: installing with apt-get (waiting up to 10 minutes for another apt's lock)" >&2
apt_install() {
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q "${missing[@]}" >&2
}
apt_install || { apt-get -o DPkg::Lock::Timeout=600 update -q >&2 && apt_install; }
