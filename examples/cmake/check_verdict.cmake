# SPDX-License-Identifier: Apache-2.0
# check_verdict.cmake: a lesson's verdict is computed, not written in advance.
#
#   cmake -DLESSON=path/to/lesson -DFLIP="--flag;value" -P check_verdict.cmake
#
# Runs the lesson with --quick, then with --quick and FLIP (a parameter that breaks what its
# prediction assumes), and fails unless both print a verdict and the second is "NOT as
# predicted"; when the first is "as predicted", the two ratios must also differ by more than a
# quarter: the parameter moved the measurement, and the verdict followed it. On a machine that
# other processes keep busy the first run may itself be "NOT as predicted", naming them (another
# process running, the hypervisor's steal): then the two timings say nothing about the parameter,
# and the verdicts are reported, not compared (seen: false_sharing's --same-cpu run 'as predicted'
# while other processes kept the CPUs busy). Both runs must still end well and print a verdict.

function(run_lesson out_verdict out_ratio out_line)
  execute_process(COMMAND ${LESSON} --quick ${ARGN}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${LESSON} --quick ${ARGN} exited with ${rc}:\n${out}\n${err}")
  endif()
  # The first verdict line: "Verdict on ...: ... as predicted (measured R.RRx ..." or
  # "... NOT as predicted (R.RRx): ...".
  string(REGEX MATCH "Verdict on [^\n]*" line "${out}")
  if(line STREQUAL "")
    message(FATAL_ERROR "${LESSON} --quick ${ARGN} printed no verdict:\n${out}\n${err}")
  endif()
  if(line MATCHES "NOT as predicted \\((-?[0-9.]+)x\\)")
    set(verdict NOT)
  elseif(line MATCHES "as predicted \\(measured (-?[0-9.]+)x")
    set(verdict AS)
  else()
    message(FATAL_ERROR "unreadable verdict: ${line}")
  endif()
  set(${out_verdict} ${verdict} PARENT_SCOPE)
  set(${out_ratio} ${CMAKE_MATCH_1} PARENT_SCOPE)
  set(${out_line} "${line}" PARENT_SCOPE)
  message(STATUS "${LESSON} --quick ${ARGN}: ${line}")
endfunction()

run_lesson(plain_verdict plain_ratio plain_line)
run_lesson(flip_verdict flip_ratio flip_line ${FLIP})
if(plain_line MATCHES "another process running|the hypervisor took")
  message(STATUS "the run without ${FLIP} measured on a busy machine (see its reason): the verdicts "
    "are not compared")
  return()
endif()
if(NOT flip_verdict STREQUAL "NOT")
  message(FATAL_ERROR "with ${FLIP} the verdict stayed 'as predicted' (${flip_ratio}x)")
endif()
if(plain_verdict STREQUAL "NOT")
  message(STATUS "the run without ${FLIP} was not as predicted either (${plain_ratio}x): see its reason")
  return()
endif()
# CMake has no floating point: the ratios are printed with two decimals, compare hundredths.
string(REPLACE "." "" a "${plain_ratio}")
string(REPLACE "." "" b "${flip_ratio}")
math(EXPR a4 "${a} * 4")
math(EXPR b4 "${b} * 4")
math(EXPR a5 "${a} * 5")
math(EXPR b5 "${b} * 5")
if(NOT (b5 LESS a4 OR a5 LESS b4))
  message(FATAL_ERROR "the ratio barely moved with ${FLIP}: ${plain_ratio}x, then ${flip_ratio}x")
endif()
