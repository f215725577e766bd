# SPDX-License-Identifier: Apache-2.0
# Drives the CMake presets of CMakePresets.json; all build logic lives in CMakeLists.txt.
# Every target first runs the deps step, which installs missing Debian packages (as root).
#
#   make test       presets test and test-c11 (ck_pr and C11 atomics): configure, build, ctest
#   make tsan/asan  the sanitizer presets: configure, build, ctest
#   make bench      release build, then perf/run_bench.sh build/release
#   make bench-peers  release build, then perf/peers/run_peers.sh: seqring beside Log4j 2, Logback,
#                   spdlog and the LMAX Disruptor (installs a JDK and their Debian packages;
#                   about 20 minutes on 2 vCPUs; PEERS_ARGS=--quick for a 1-minute smoke run)
#   make examples   release build, then run every example (EXAMPLE_ARGS=--quick for short runs)
#   make install    the library alone (preset install: no tests, examples or perf; needs only
#                   cmake, a C compiler and libck-dev), installed into PREFIX (default /usr/local)
#   make docs       the API reference from the public headers (Doxygen), configured in the
#                   release preset: build/release/docs/api/html/index.html
#   make clean      remove build/

PREFIX ?= /usr/local
JOBS ?= 2
EXAMPLE_ARGS ?=
PEERS_ARGS ?=
CMAKE ?= cmake
CTEST ?= ctest

# cmake --build runs its own make: hand it neither this make's flags and jobserver (they would
# fight with its -j$(JOBS)) nor MAKELEVEL (which turns on "Entering directory" noise). MAKELEVEL
# cannot be unexported, hence env -u.
ISOLATED := env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL

.PHONY: all release deps test tsan asan bench bench-peers examples install docs clean

all: release

deps:
	@bash .ci/deps.sh

# $(call preset_build,NAME): configure and build one preset.
define preset_build
	$(ISOLATED) $(CMAKE) --preset $(1)
	$(ISOLATED) $(CMAKE) --build --preset $(1) -j $(JOBS)
endef

# $(call preset_test,NAME): configure, build and test one preset.
define preset_test
	$(call preset_build,$(1))
	$(ISOLATED) $(CTEST) --preset $(1)
endef

release: deps
	$(call preset_build,release)

test: deps
	$(call preset_test,test)
	$(call preset_test,test-c11)

tsan: deps
	$(call preset_test,tsan)

asan: deps
	$(call preset_test,asan)

bench: release
	@if [ ! -f perf/run_bench.sh ]; then echo "make bench: perf/run_bench.sh does not exist" >&2; exit 1; fi
	$(ISOLATED) SEQRING_BUILD_DIR=build/release bash perf/run_bench.sh build/release

bench-peers: release
	@bash perf/peers/deps.sh
	$(ISOLATED) SEQRING_BUILD_DIR=build/release bash perf/peers/run_peers.sh --no-deps $(PEERS_ARGS) build/release

examples: release
	@set -e; found=0; \
	for src in examples/*.c; do \
	  [ -e "$$src" ] || continue; found=1; \
	  name=$$(basename "$$src" .c); \
	  echo "== examples/$$name $(EXAMPLE_ARGS)"; \
	  build/release/examples/$$name $(EXAMPLE_ARGS); \
	done; \
	[ $$found = 1 ] || { echo "make examples: no examples/*.c" >&2; exit 1; }

install:
	@bash .ci/deps.sh --library
	$(call preset_build,install)
	$(ISOLATED) $(CMAKE) --install build/install --prefix $(PREFIX)

# Configures the release preset (nothing is compiled) and runs Doxygen; the target prints
# where the HTML is.
docs: deps
	$(ISOLATED) $(CMAKE) --preset release
	$(ISOLATED) $(CMAKE) --build --preset release --target docs

clean:
	rm -rf build
