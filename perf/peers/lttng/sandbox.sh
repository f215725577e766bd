#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# sandbox.sh [--check] -- COMMAND [ARGS...]: runs COMMAND beside an LTTng session daemon of its
# own, in a sandbox that shares nothing of LTTng's with the host, and stops the daemon at the end,
# whatever happens. --check: start the daemon, run `lttng version` against it, stop (exit 0 when
# LTTng can run here; otherwise 3 and one line on stderr saying why).
#
# Where LTTng keeps its state: a root session daemon (this needs root, see below) and the
# instrumented applications meet in the run directory /var/run/lttng (= /run/lttng: the client,
# application and health sockets, the pid file), a user's in $LTTNG_HOME/.lttng; the applications'
# wait shared memory is in /dev/shm (lttng-sessiond(8), lttng-ust(3)). So the sandbox is
# `unshare --mount --pid --ipc --mount-proc` with fresh tmpfs mounts on /run and /dev/shm (and on
# /etc/lttng if the host has one: no host configuration or auto-loaded session), LTTNG_HOME a
# fresh directory (mktemp -d under TMPDIR, default /tmp: no ~/.lttng of the host's user), and
# `--load` an empty directory. A host's own session daemon, if one runs, is neither seen nor
# disturbed. The sandbox is a PID namespace whose first process is this script: when it ends,
# however it ends (its trap stops the daemon with SIGTERM, then SIGKILL after 5 s; if it is
# killed, unshare's --kill-child kills it and the kernel every process of the namespace: the
# session and consumer daemons too), the daemons end, and the tmpfs mounts with them.
#
# COMMAND gets LTTNG_HOME (the client finds the daemon through it), LTTNG_UST_REGISTER_TIMEOUT
# (10000 ms: an application's constructor waits that long for its registration, so that its
# first events are traced), LTTNG_UST_ALLOW_BLOCKING=1 (needed for a channel's
# --blocking-timeout to take effect in the application) and LTTNG_SANDBOX_DIR (LTTNG_HOME:
# scratch space removed at the end). Traces should go under a directory COMMAND makes itself
# (the harness uses PEERS_SINK_DIR), on the same file system as seqring's.
# Exit: COMMAND's status; 3 when the session daemon cannot start here (no root, no unshare, no
# lttng-sessiond, or the daemon fails: the message says which); 2 for bad arguments.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
check=0
while [ $# -gt 0 ]; do
  case "$1" in
    --check) check=1; shift ;;
    --) shift; break ;;
    -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
    *) echo "lttng sandbox: unknown argument '$1' (expected [--check] -- COMMAND...)" >&2; exit 2 ;;
  esac
done
# --check: the daemon answering `lttng list` (below) is the whole check
if [ "$check" = 1 ]; then set -- true; fi
[ $# -gt 0 ] || { echo "lttng sandbox: no COMMAND (expected [--check] -- COMMAND...)" >&2; exit 2; }

if [ "${SEQRING_LTTNG_SANDBOX:-}" != inside ]; then
  [ "$(id -u)" -eq 0 ] || { echo "lttng sandbox: needs root (unshare of mount and PID namespaces)" >&2; exit 3; }
  command -v unshare >/dev/null 2>&1 || { echo "lttng sandbox: unshare not found (util-linux)" >&2; exit 3; }
  for tool in lttng-sessiond lttng; do
    command -v "$tool" >/dev/null 2>&1 || {
      echo "lttng sandbox: $tool not found (Debian's package lttng-tools; perf/peers/deps.sh installs it)" >&2
      exit 3
    }
  done
  # unshare itself fails without the privilege (a container without CAP_SYS_ADMIN): say so, as "cannot start"
  unshare --mount --pid --fork true 2>/dev/null || {
    echo "lttng sandbox: unshare --mount --pid fails here (no CAP_SYS_ADMIN?): cannot sandbox a session daemon" >&2
    exit 3
  }
  # --check has become COMMAND `true` above: the inside run checks the same daemon
  exec env SEQRING_LTTNG_SANDBOX=inside unshare --mount --pid --ipc --fork --kill-child --mount-proc \
    --propagation private bash "$here/sandbox.sh" -- "$@"
fi

# --- inside: the first process of the sandbox's PID namespace ------------------------------
mount -t tmpfs -o size=64m,mode=755 seqring-lttng-run /run
mount -t tmpfs -o size=1g,mode=1777 seqring-lttng-shm /dev/shm
if [ -d /etc/lttng ]; then mount -t tmpfs -o size=1m,mode=755 seqring-lttng-etc /etc/lttng; fi
LTTNG_HOME=$(mktemp -d "${TMPDIR:-/tmp}/seqring-lttng-home.XXXXXX")
export LTTNG_HOME LTTNG_SANDBOX_DIR=$LTTNG_HOME
mkdir "$LTTNG_HOME/no-sessions"
log=$LTTNG_HOME/sessiond.log
pidfile=/run/lttng/lttng-sessiond.pid
# shellcheck disable=SC2317  # run by the traps
stop_sessiond() {
  local rc=$? pid=
  trap - EXIT
  [ -f "$pidfile" ] && pid=$(cat "$pidfile" 2>/dev/null || true)
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then
      echo "lttng sandbox: lttng-sessiond did not stop within 5 s of SIGTERM: killing it" >&2
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  rm -rf "$LTTNG_HOME"
  exit "$rc"
}
trap stop_sessiond EXIT
trap 'exit 143' TERM INT

# --no-kernel: user space only (no kernel modules loaded, nothing asked of the kernel's tracer).
# LTTNG_APP_SOCKET_TIMEOUT: an application under valgrind answers slowly; 5 s (the default)
# would unregister it.
if ! LTTNG_APP_SOCKET_TIMEOUT=60 lttng-sessiond --daemonize --no-kernel --load="$LTTNG_HOME/no-sessions" \
     > "$log" 2>&1; then
  echo "lttng sandbox: lttng-sessiond could not start; its output:" >&2
  sed 's/^/  lttng-sessiond: /' "$log" >&2 || true
  exit 3
fi
if ! lttng list > "$LTTNG_HOME/list.out" 2>&1; then
  echo "lttng sandbox: lttng-sessiond started but does not answer \`lttng list\`:" >&2
  sed 's/^/  lttng: /' "$LTTNG_HOME/list.out" >&2 || true
  exit 3
fi

export LTTNG_UST_REGISTER_TIMEOUT=${LTTNG_UST_REGISTER_TIMEOUT:-10000} LTTNG_UST_ALLOW_BLOCKING=1
rc=0
"$@" || rc=$?
pid=$(cat "$pidfile" 2>/dev/null || true)
if [ -z "$pid" ] || ! kill -0 "$pid" 2>/dev/null; then
  echo "lttng sandbox: lttng-sessiond died during the run; its output:" >&2
  sed 's/^/  lttng-sessiond: /' "$log" >&2 || true
  [ "$rc" != 0 ] || rc=1
fi
exit "$rc"
