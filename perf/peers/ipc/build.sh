#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# build.sh OUT_DIR SEQRING_BUILD_DIR: builds the `ipc` phase's programs into OUT_DIR (README.md
# beside this file), installing the Debian packages they need when missing (as root, like
# perf/peers/deps.sh; apt-get update only when a first install fails):
#   libiceoryx-binding-c-dev  iceoryx's C binding (and, through its dependencies, the runtime)
#   iceoryx                   iox-roudi, the daemon the iceoryx row runs beside (its sandbox)
#   libzmq3-dev               ZeroMQ (libzmq 4.3)
#   libnng-dev                nng (1.5)
# SEQRING_BUILD_DIR: a configured and built seqring (build/release): its staged headers
# (include/seqring/) and libseqring.a, for the two seqring rows.
# ipc_seqring_shm is built only when shm/sr_shm_ring.h exists; whether it was, and why not, is
# in OUT_DIR/seqring_shm.status (one line), which run_peers.sh shows in the table. Every other
# program must build. Exit 0: built; 1: a step failed (the message says which); 2: usage.
# SEQRING_SKIP_DEPS=1: do not check the packages.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
common=$root/perf/common
if [ $# -ne 2 ] || [ -z "$1" ] || [ -z "$2" ]; then
  echo "usage: $0 OUT_DIR SEQRING_BUILD_DIR   (SEQRING_BUILD_DIR: a built seqring, e.g. build/release)" >&2
  exit 2
fi
out=$1
sr=$2
say() { echo "ipc build: $*" >&2; }

# --- packages -----------------------------------------------------------------------------
packages=(gcc pkg-config libiceoryx-binding-c-dev iceoryx libzmq3-dev libnng-dev)
if [ "${SEQRING_SKIP_DEPS:-0}" != 1 ]; then
  command -v dpkg-query >/dev/null 2>&1 || {
    say "dpkg-query not found; install the equivalents of: ${packages[*]}, then rerun with SEQRING_SKIP_DEPS=1"
    exit 1
  }
  installed=" $(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' "${packages[@]}" 2>/dev/null |
    awk '$1 == "ii" { printf "%s ", $2 }' || true)"
  missing=()
  for pkg in "${packages[@]}"; do
    [[ $installed == *" $pkg "* ]] || missing+=("$pkg")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    say "missing: ${missing[*]}"
    [ "$(id -u)" -eq 0 ] || {
      say "not root, cannot install; run: sudo apt-get update && sudo apt-get install -y ${missing[*]}"
      exit 1
    }
    say "installing with apt-get (waiting up to 10 minutes for another apt's lock)"
    apt_install() {
      DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q "${missing[@]}" >&2
    }
    apt_install || { apt-get -o DPkg::Lock::Timeout=600 update -q >&2 && apt_install; } || {
      say "apt-get could not install: ${missing[*]}"
      exit 1
    }
  fi
fi

# --- inputs -------------------------------------------------------------------------------
if [ ! -f "$sr/include/seqring/sr_poller.h" ] || [ ! -f "$sr/libseqring.a" ]; then
  say "$sr is not a built seqring: $sr/include/seqring/sr_poller.h and $sr/libseqring.a must exist" \
    "(make release builds build/release)"
  exit 1
fi
iox_inc=$(find /usr/include/iceoryx -mindepth 1 -maxdepth 1 -type d -name 'v*' 2>/dev/null | sort -V | tail -n 1)
if [ -z "$iox_inc" ] || [ ! -f "$iox_inc/iceoryx_binding_c/publisher.h" ]; then
  say "iceoryx's C binding headers (/usr/include/iceoryx/v*/iceoryx_binding_c) not found: install libiceoryx-binding-c-dev"
  exit 1
fi
iox_version=${iox_inc##*/v}
pkg-config --exists libzmq || { say "pkg-config does not find libzmq: install libzmq3-dev"; exit 1; }
[ -f /usr/include/nng/nng.h ] || { say "/usr/include/nng/nng.h not found: install libnng-dev"; exit 1; }
mkdir -p "$out/obj" || { say "cannot create $out"; exit 1; }

# --- compile ------------------------------------------------------------------------------
# -O3 -DNDEBUG: what CMake's Release gives seqring's own harnesses (ring_perf, wait_perf).
CFLAGS=(-O3 -DNDEBUG -std=c11 -D_GNU_SOURCE -Wall -Wextra -I"$common" -I"$here")
objects=()
for src in "$common/bench_args.c" "$common/bench_output.c" "$common/bench_stats.c" "$here/ipc_bench.c"; do
  o=$out/obj/$(basename "$src" .c).o
  gcc "${CFLAGS[@]}" -c "$src" -o "$o" || { say "compiling $src failed"; exit 1; }
  objects+=("$o")
done
# program NAME SOURCE [flags and libraries...]
program() {
  local name=$1 src=$2
  shift 2
  gcc "${CFLAGS[@]}" -o "$out/$name" "$here/$src" "${objects[@]}" "$@" -pthread || {
    say "compiling perf/peers/ipc/$src failed"
    return 1
  }
}
program ipc_pipe pipe.c
program ipc_uds uds.c
program ipc_cacheline cacheline.c
# shellcheck disable=SC2046
program ipc_zeromq zeromq.c $(pkg-config --cflags --libs libzmq)
program ipc_nng nng.c -lnng
program ipc_iceoryx iceoryx.c -I"$iox_inc" -DIOX_BINDING_VERSION="\"$iox_version\"" -liceoryx_binding_c
program ipc_seqring seqring.c -I"$sr/include" "$sr/libseqring.a"

# seqring shm: only against the shared-memory ring's header, when it exists
rm -f "$out/ipc_seqring_shm"
status=$out/seqring_shm.status
if [ ! -f "$root/shm/sr_shm_ring.h" ]; then
  echo "not built: shm/sr_shm_ring.h does not exist (yet)" > "$status"
elif gcc "${CFLAGS[@]}" -I"$sr/include" -o "$out/ipc_seqring_shm" "$here/seqring_shm.c" \
     "${objects[@]}" "$sr/libseqring.a" -pthread -lrt > "$out/seqring_shm.log" 2>&1; then
  echo "built" > "$status"
else
  log=$(cd "$out" && pwd)/seqring_shm.log
  echo "not built: compiling perf/peers/ipc/seqring_shm.c against shm/sr_shm_ring.h failed" \
    "(its messages: ${log#"$root"/})" > "$status"
  say "seqring_shm.c did not build against shm/sr_shm_ring.h (the row says so); $out/seqring_shm.log:"
  sed 's/^/  /' "$out/seqring_shm.log" | head -n 20 >&2
fi
say "built into $out: ipc_pipe ipc_uds ipc_cacheline ipc_zeromq (libzmq $(pkg-config --modversion libzmq))" \
  "ipc_nng ipc_iceoryx (iceoryx $iox_version) ipc_seqring; seqring shm: $(cat "$status")"
