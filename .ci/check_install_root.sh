#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A new user's install, in a minimal Debian root: only the packages README.md's install command
# names, then `make install` (the library alone, into /usr/local), then the README's hello-world
# (its first ```c block) built with pkg-config and with CMake's find_package, and run without
# LD_LIBRARY_PATH. Fails if any step does.
#
# Needs root, mmdebstrap (installed here when missing) and a Debian mirror (SEQRING_MIRROR,
# default deb.debian.org). The root lives under /tmp and is removed at the end; mounts are made
# in a private mount namespace, so nothing is left behind if the script dies.
# Usage: .ci/check_install_root.sh [SUITE]   (default bookworm, the Debian release CI runs on)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
suite=${1:-bookworm}
mirror=${SEQRING_MIRROR:-http://deb.debian.org/debian}

fail() { echo "check_install_root: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || fail "needs root (a chroot and apt-get inside it)"

# What the README tells a user to install: its first `apt-get install` command, words after it.
packages=$(sed -n 's/^[$# ]*\(sudo \)\{0,1\}apt-get install \(-y \)\{0,1\}\([a-z0-9 .+-]*\).*$/\3/p' README.md | head -n 1)
[ -n "$packages" ] || fail "README.md has no 'apt-get install PACKAGES' line"
# The hello-world: the README's first ```c block.
hello=$(awk '/^```c$/ { inside = 1; next } inside && /^```$/ { exit } inside { print }' README.md)
grep -q 'main *(' <<<"$hello" || fail "README.md's first \`\`\`c block is not a complete program"

if ! command -v mmdebstrap >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y mmdebstrap >/dev/null
fi

work=$(mktemp -d /tmp/seqring-root.XXXXXX)
trap 'rm -rf "$work"' EXIT
root=$work/root
echo "check_install_root: a minimal $suite root (mmdebstrap --variant=minbase)"
mmdebstrap --quiet --variant=minbase --mode=root "$suite" "$root" "$mirror" \
  || fail "mmdebstrap failed"

# The tree as committed or changed here (tracked files), and the README's program.
mkdir -p "$root/src/seqring" "$root/src/hello"
git ls-files -z | tar --null -T - -cf - | tar -xf - -C "$root/src/seqring"
printf '%s\n' "$hello" >"$root/src/hello/hello.c"
cat >"$root/src/hello/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(hello LANGUAGES C)
find_package(seqring 1.0 REQUIRED)
add_executable(hello_shared hello.c)
target_link_libraries(hello_shared PRIVATE seqring::seqring)
add_executable(hello_static hello.c)
target_link_libraries(hello_static PRIVATE seqring::seqring_static)
CMAKE
cat >"$root/src/steps.sh" <<STEPS
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8
unset LD_LIBRARY_PATH
step() { echo "check_install_root: \$*"; }
step "apt-get install $packages (the README's list, nothing else)"
apt-get update -qq
apt-get install -y -qq $packages >/dev/null
step "make install (the library alone, into /usr/local)"
cd /src/seqring
start=\$(date +%s)
make install >/tmp/install.log 2>&1 || { cat /tmp/install.log; exit 1; }
step "make install took \$((\$(date +%s) - start)) s"
cd /src/hello
step "cc hello.c \\\$(pkg-config --cflags --libs seqring)"
cc -Wall -Wextra -Werror -o hello hello.c \$(pkg-config --cflags --libs seqring)
./hello >/tmp/hello.out 2>&1 || { cat /tmp/hello.out; echo "hello (pkg-config) failed"; exit 1; }
ldd ./hello | grep -q '/usr/local/lib/.*libseqring.so' || { ldd ./hello; echo "hello does not load /usr/local's libseqring"; exit 1; }
step "find_package(seqring): shared and static"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/tmp/cmake.log 2>&1 || { cat /tmp/cmake.log; exit 1; }
cmake --build build >/tmp/build.log 2>&1 || { cat /tmp/build.log; exit 1; }
./build/hello_shared >/tmp/hello.out 2>&1 || { cat /tmp/hello.out; echo "hello_shared failed"; exit 1; }
./build/hello_static >/tmp/hello.out 2>&1 || { cat /tmp/hello.out; echo "hello_static failed"; exit 1; }
step "the README's hello-world ran, linked three ways, without LD_LIBRARY_PATH"
STEPS
# A private mount namespace: /proc and /dev for the chroot go away with it.
unshare --mount --fork bash -c '
  set -e
  mount -t proc proc "$1/proc"
  mount --rbind /dev "$1/dev"
  cp /etc/resolv.conf "$1/etc/resolv.conf"
  chroot "$1" /bin/bash /src/steps.sh
' _ "$root" || fail "a step failed in the minimal root (output above)"
echo "check_install_root: ok"
