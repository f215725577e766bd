#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# iceoryx_sandbox.sh [--config FILE] -- COMMAND [ARGS...]: runs COMMAND beside an iox-roudi
# daemon of its own, in a sandbox that shares nothing of iceoryx's with the host, and stops the
# daemon at the end, whatever happens.
#
# iceoryx's applications find RouDi, and RouDi keeps its state, in /tmp (the unix socket
# /tmp/roudi, the lock files /tmp/*.lock) and /dev/shm (the shared memory and its semaphores):
# iceoryx's docs (FAQ, "icedocker" example) run RouDi and its applications in containers that
# share these two with each other. The sandbox is that, without a container runtime:
# `unshare --mount --pid --ipc --mount-proc`, then fresh tmpfs mounts on /tmp and /dev/shm (1 GiB
# at most; RouDi reserves about 66 MB with roudi.toml) that only RouDi and COMMAND see. A host's
# own RouDi, if one runs, is neither seen nor disturbed. The sandbox is a PID namespace whose
# first process is this script: when it ends, however it ends (its trap stops RouDi with
# SIGTERM, then SIGKILL after 5 s; if it is killed, unshare's --kill-child kills it and the
# kernel every process of the namespace), RouDi ends too, and the tmpfs mounts with it.
#
# COMMAND must not live under /tmp (the sandbox's /tmp is empty) and writes its results to
# stdout, which goes through. RouDi's own output goes to stderr when it fails, else is dropped.
# Exit: COMMAND's status; 1 if RouDi does not come up within 10 s, dies, or cannot be started;
# 2 for bad arguments. Needs root (unshare) and iox-roudi (Debian's package iceoryx).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
config=$here/roudi.toml
while [ $# -gt 0 ]; do
  case "$1" in
    --config) config=${2:?--config needs a file}; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "iceoryx_sandbox: unknown argument '$1' (expected --config FILE -- COMMAND...)" >&2; exit 2 ;;
  esac
done
[ $# -gt 0 ] || { echo "iceoryx_sandbox: no COMMAND (expected --config FILE -- COMMAND...)" >&2; exit 2; }

if [ "${SEQRING_IPC_SANDBOX:-}" != inside ]; then
  [ "$(id -u)" -eq 0 ] || { echo "iceoryx_sandbox: needs root (unshare of mount and PID namespaces)" >&2; exit 1; }
  command -v unshare >/dev/null 2>&1 || { echo "iceoryx_sandbox: unshare not found (util-linux)" >&2; exit 1; }
  command -v iox-roudi >/dev/null 2>&1 || {
    echo "iceoryx_sandbox: iox-roudi not found (Debian's package iceoryx; perf/peers/ipc/build.sh installs it)" >&2
    exit 1
  }
  [ -f "$config" ] || { echo "iceoryx_sandbox: RouDi configuration $config does not exist" >&2; exit 1; }
  config=$(cd "$(dirname "$config")" && pwd)/$(basename "$config")
  cmd=$1
  if [[ $cmd == */* ]]; then cmd=$(cd "$(dirname "$cmd")" && pwd)/$(basename "$cmd"); fi
  case "$cmd:$config:$here" in
    /tmp/*|*:/tmp/*) echo "iceoryx_sandbox: $cmd, $config and this script must not be under /tmp:" \
                       "the sandbox mounts an empty /tmp" >&2; exit 1 ;;
  esac
  shift
  exec env SEQRING_IPC_SANDBOX=inside unshare --mount --pid --ipc --fork --kill-child --mount-proc \
    --propagation private bash "$here/iceoryx_sandbox.sh" --config "$config" -- "$cmd" "$@"
fi

# --- inside: the first process of the sandbox's PID namespace ------------------------------
mount -t tmpfs -o size=1g,mode=1777 seqring-ipc-tmp /tmp
mount -t tmpfs -o size=1g,mode=1777 seqring-ipc-shm /dev/shm
log=/tmp/iox-roudi.log
roudi=
# shellcheck disable=SC2317  # run by the traps
stop_roudi() {
  local rc=$?
  trap - EXIT
  if [ -n "$roudi" ] && kill -0 "$roudi" 2>/dev/null; then
    kill -TERM "$roudi" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$roudi" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$roudi" 2>/dev/null; then
      echo "iceoryx_sandbox: iox-roudi did not stop within 5 s of SIGTERM: killing it" >&2
      kill -KILL "$roudi" 2>/dev/null || true
    fi
    wait "$roudi" 2>/dev/null || true
  fi
  exit "$rc"
}
trap stop_roudi EXIT
trap 'exit 143' TERM INT

iox-roudi -c "$config" -l info > "$log" 2>&1 &
roudi=$!
ready=0
for _ in $(seq 1 100); do
  if grep -q 'RouDi is ready for clients' "$log" 2>/dev/null && [ -S /tmp/roudi ]; then ready=1; break; fi
  kill -0 "$roudi" 2>/dev/null || break
  sleep 0.1
done
if [ "$ready" != 1 ]; then
  if kill -0 "$roudi" 2>/dev/null; then
    echo "iceoryx_sandbox: iox-roudi did not come up within 10 s; its output:" >&2
  else
    wait "$roudi" && st=0 || st=$?
    echo "iceoryx_sandbox: iox-roudi exited with status $st before it was ready; its output:" >&2
  fi
  sed 's/^/  iox-roudi: /' "$log" >&2 || true
  exit 1
fi

rc=0
"$@" || rc=$?
if ! kill -0 "$roudi" 2>/dev/null; then
  echo "iceoryx_sandbox: iox-roudi died during the run; its output:" >&2
  sed 's/^/  iox-roudi: /' "$log" >&2 || true
  [ "$rc" != 0 ] || rc=1
elif [ "$rc" != 0 ]; then
  echo "iceoryx_sandbox: the command failed (status $rc); iox-roudi's output:" >&2
  sed 's/^/  iox-roudi: /' "$log" >&2 || true
fi
exit "$rc"
