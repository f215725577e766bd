/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_wait_list.h: the --wait flag of the harnesses: a list of wait
 * strategies, each parsed and validated by sr_wait_config_parse, with a
 * label for the CSV's wait column.
 */
#ifndef SR_PERF_BENCH_WAIT_LIST_H
#define SR_PERF_BENCH_WAIT_LIST_H

#include <stdbool.h>
#include <stddef.h>

#include <seqring/sr_wait.h>

#define BENCH_MAX_WAITS 16

typedef struct bench_wait {
	char spec[256];         /* the strategy handed to sr_wait_config_parse or the logger */
	char label[64];         /* the kind for bare names and the default, else the spec with ';' for ',' */
	sr_wait_config config;  /* spec, parsed */
} bench_wait;

typedef struct bench_wait_list {
	bench_wait waits[BENCH_MAX_WAITS];
	int nwaits;
} bench_wait_list;

/*
 * Parses a --wait list: "all" (every kind with its defaults), or strategies
 * separated by commas, where a piece with '=' and no ':' continues the
 * previous spec ("default,phased:spin=5us,yield=50us" is two strategies).
 * "default" stands for default_spec (NULL: no such name).  false with a
 * message naming the bad strategy in err (errsize bytes).
 */
bool bench_parse_wait_list(const char *list, const char *default_spec, bench_wait_list *out,
    char *err, size_t errsize);

#endif /* SR_PERF_BENCH_WAIT_LIST_H */
