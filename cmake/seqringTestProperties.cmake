# SPDX-License-Identifier: Apache-2.0
# seqring_test_properties(NAME LABEL): the properties every CTest test of the project carries,
# whichever folder registers it (tests/, the examples, perf/): a label, a hang guard, and under
# sanitizers the report patterns that fail it.
#
# Included by the top-level CMakeLists.txt (inside if(SEQRING_BUILD_TESTS)) before any folder
# adds tests. A function sees its caller's variables, so SEQRING_SANITIZER_FAIL_REGEX is set here,
# in the top-level scope that every folder inherits.

# Under sanitizers a report must fail the test even when the exit status does not show it:
# LeakSanitizer reports at exit of a Criterion worker after the test has passed, and Criterion
# counts that worker as passing.
if(SEQRING_SANITIZE)
  set(SEQRING_SANITIZER_FAIL_REGEX "ERROR: [A-Za-z]+Sanitizer;WARNING: ThreadSanitizer;runtime error:")
endif()

function(seqring_test_properties name label)
  set_tests_properties(${name} PROPERTIES LABELS ${label} TIMEOUT 300)
  if(SEQRING_SANITIZER_FAIL_REGEX)
    set_tests_properties(${name} PROPERTIES FAIL_REGULAR_EXPRESSION "${SEQRING_SANITIZER_FAIL_REGEX}")
  endif()
endfunction()
