#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every source file of the project says its licence on one of its first lines (SPDX), so a file
# copied out of the tree still carries it. Source files: C and C++ sources and headers, the
# Promela model, Java peers, CMake files, shell and Python scripts, Makefiles.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
missing=0
while IFS= read -r f; do
	if ! head -n 3 "$f" | grep -q 'SPDX-License-Identifier: Apache-2.0'; then
		echo "check_spdx: $f: no 'SPDX-License-Identifier: Apache-2.0' in its first 3 lines" >&2
		missing=$((missing + 1))
	fi
done < <(git ls-files -- '*.c' '*.h' '*.cpp' '*.pml' '*.java' '*.cmake' '*.cmake.in' '*.pc.in' 'CMakeLists.txt' \
	'*/CMakeLists.txt' '*.sh' '*.py' 'Makefile' '*/Makefile' '.ci/run')
if [ "$missing" -ne 0 ]; then
	echo "check_spdx: $missing file(s) without the licence line" >&2
	exit 1
fi
echo "check_spdx: every source file carries SPDX-License-Identifier: Apache-2.0"
