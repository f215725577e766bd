/* SPDX-License-Identifier: Apache-2.0 */
/*
 * use_seqring_c99.c: seqring from strict ISO C99 (built by run_programs.sh with -std=c99
 * -Wall -Wextra -Wpedantic -Werror, no -D flag and no feature macro, so the headers' pre-C11
 * paths run: _Generic as an extension, __thread, the out-of-line kernel clocks). The checks are
 * use_seqring_common.h's, the same as the C++ program's: the argument kinds, the ring with a
 * processor, the logger in three modes.  Usage: use_seqring_c99 OUTPUT_PREFIX
 */
#define USE_PROGRAM "use_seqring_c99.c"
#include "use_seqring_common.h"

#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#error "use_seqring_c99.c must be compiled as C99 (-std=c99)"
#endif

static void
check_log(const char *prefix, sr_log_mode mode, sr_log_producer producer, const char *what)
{
	char path[4096];
	if (snprintf(path, sizeof path, "%s.%s.log", prefix, what) >= (int)sizeof path)
		use_fail("the output prefix is too long: %s", prefix);
	sr_log *log = use_open(path, mode, producer);
	sr_category *cat = sr_log_category(log, "c99");
	/* Several rounds: the first call through each site parses it, later ones copy inline. */
	for (int round = 0; round < 3; round++)
		use_log_common(cat, round);
	use_close_and_check(&log, path, what);
}

int main(int argc, char **argv)
{
	if (argc != 2)
		use_fail("usage: use_seqring_c99 OUTPUT_PREFIX");
	use_check_ring(SR_PRODUCER_SINGLE);
	use_check_ring(SR_PRODUCER_MULTI);
	check_log(argv[1], SR_LOG_MODE_RING, SR_LOG_PRODUCER_SHARED, "shared");
	check_log(argv[1], SR_LOG_MODE_RING, SR_LOG_PRODUCER_PER_THREAD, "per_thread");
	check_log(argv[1], SR_LOG_MODE_SYNC, SR_LOG_PRODUCER_SHARED, "sync");
	printf("%s: ring, processor and logger ok\n", USE_PROGRAM);
	return 0;
}
