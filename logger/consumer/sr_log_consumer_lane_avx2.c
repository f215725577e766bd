/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_consumer_lane_avx2.c: the consumer's straight path built for AVX2
 * (sr_log_consumer_lane_internal.h): sr_log_consumer_lane.c again, its
 * functions named _avx2.  The build gives this unit -mavx2 and the library
 * SEQRING_LANE_AVX2 where the target is x86-64 and the compiler takes the
 * flag; elsewhere the unit is empty.  Only a CPU with AVX2 runs it
 * (sr_log__lane_builds asks sr_fmt_cpu_runs_avx2): the unit has no
 * constructor or destructor, and exports the two _avx2 functions alone
 * (tests/headers/check_avx2_unit.sh holds it to both).
 */
#if defined(SEQRING_LANE_AVX2)
#if !defined(__AVX2__)
#error "sr_log_consumer_lane_avx2.c: SEQRING_LANE_AVX2 is set but this unit is not built with -mavx2 (see CMakeLists.txt)"
#endif
#define SR_LOG_LANE_BUILD_NAME(name) name##_avx2
/* Nothing here may run before the CPU is asked: not the site catalogue's load-time hooks (sr_log_site.h). */
#define SR_LOG__NO_MODULE_HOOKS 1
#include "sr_log_consumer_lane.c" /* NOLINT(bugprone-suspicious-include): the same unit, built again */
#else
/* ISO C wants a unit to declare something. */
typedef int sr_log__lane_avx2_not_built;
#endif
