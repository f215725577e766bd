#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# check_api_docs.sh DOXYGEN DOXYFILE HEADERS: the CTest test api_docs.
#
# 1. Runs Doxygen with DOXYFILE (docs/Doxyfile.in as configured in <build>/docs/, whose INPUT
#    is HEADERS, <build>/include/seqring, and the main page): every public
#    function, parameter, return value, type, enum value, field and macro of the public headers
#    must be documented; any warning fails, and the warnings are printed (file:line: text).
# 2. Checks that the same configuration still catches what it is there to catch, on a scratch
#    copy of the headers: one with a parameter's @param removed (WARN_IF_INCOMPLETE_DOC), one
#    with a function documented without any @param or @return (WARN_NO_PARAMDOC), one with an
#    undocumented function (WARN_IF_UNDOCUMENTED). Each must make Doxygen fail (WARN_AS_ERROR)
#    and name what is missing; a configuration that lets one through fails this test.
# Exit 0: documented, and the checks bite; 1: findings; 2: usage.
set -euo pipefail

if [ "$#" -ne 3 ] || [ ! -f "$2" ] || [ ! -f "$3/sr_ring.h" ]; then
	echo "usage: check_api_docs.sh DOXYGEN DOXYFILE HEADERS (HEADERS: the folder of sr_ring.h)" >&2
	exit 2
fi
doxygen=$1
doxyfile=$2
headers=$3

# 1. The real headers.
if ! out="$("$doxygen" "$doxyfile" 2>&1)" || grep -qE '(warning|error): ' <<<"$out"; then
	echo "$out"
	echo "api_docs: Doxygen found undocumented or badly documented API (above): document every" \
	     "parameter (@param), the return value (@return or @retval) and the errors" >&2
	exit 1
fi
echo "api_docs: every public name of $headers is documented"

# 2. The configuration still catches a missing @param and an undocumented function.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# $1: a label for the messages; $2: a string the warnings must contain. The headers to use are
# in $scratch/seqring.
expect_failure() {
	local label=$1 expected=$2 out rc=0
	out="$( (cat "$doxyfile"
		echo "INPUT = $scratch/seqring"
		echo "STRIP_FROM_PATH = $scratch/seqring"
		echo "OUTPUT_DIRECTORY = $scratch/out"
		echo "USE_MDFILE_AS_MAINPAGE =") | "$doxygen" - 2>&1)" || rc=$?
	if [ "$rc" -eq 0 ] || ! grep -qF -- "$expected" <<<"$out"; then
		echo "$out"
		echo "api_docs: $label went unnoticed (Doxygen exit $rc, no warning naming '$expected'):" \
		     "check WARN_IF_INCOMPLETE_DOC, WARN_NO_PARAMDOC, WARN_IF_UNDOCUMENTED and WARN_AS_ERROR" \
		     "in docs/Doxyfile.in" >&2
		exit 1
	fi
	echo "api_docs: $label is caught"
}

fresh_copy() {
	rm -rf "$scratch/seqring" "$scratch/out"
	mkdir -p "$scratch/seqring" "$scratch/out"
	cp -L "$headers"/sr_*.h "$scratch/seqring/"
}

# A parameter without its @param: the last one documented above sr_ring_create.
fresh_copy
create=$(grep -n -m1 '^SR_API sr_ring \*sr_ring_create(' "$scratch/seqring/sr_ring.h" | cut -d: -f1 || true)
param_line=""
if [ -n "$create" ]; then
	param_line=$(head -n "$create" "$scratch/seqring/sr_ring.h" | grep -n '^ \* @param [a-z_]* ' | tail -n 1 || true)
fi
if [ -z "$param_line" ]; then
	echo "api_docs: sr_ring.h has no ' * @param NAME ' line above sr_ring_create: nothing to remove" >&2
	exit 1
fi
param=${param_line#* @param }
param=${param%% *}
sed -i "${param_line%%:*}d" "$scratch/seqring/sr_ring.h"
expect_failure "sr_ring.h without the @param of '$param'" "parameter '$param'"

# A function with a brief but no @param and no @return.
fresh_copy
printf '/** @brief A probe. */\nint sr_api_docs_probe_brief(int probe_value);\n' >>"$scratch/seqring/sr_error.h"
expect_failure "a function without @param and @return (sr_api_docs_probe_brief)" "sr_api_docs_probe_brief"

# A public function without any documentation.
fresh_copy
echo 'int sr_api_docs_probe(int probe_value);' >>"$scratch/seqring/sr_error.h"
expect_failure "an undocumented function (sr_api_docs_probe)" "sr_api_docs_probe"
