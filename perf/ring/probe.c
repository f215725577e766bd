/*
 * probe.c: the quick throughput probe of issue 2.  1 producer -> 1 consumer,
 * 8-byte events, 100 million events per run, busy-spin, median of 5 runs,
 * interleaved with a mutex + condition-variable bounded queue of the same
 * capacity (seqring, queue, seqring, queue, ...).  Prints both and the ratio.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "topology.h"

int
main(int argc, char **argv)
{
	int64_t events = 100000000;
	int64_t runs = 5;
	int64_t ring_size = 65536;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--quick") == 0) {
			events = 100000;
			runs = 1;
		} else if (strcmp(a, "--quiet") == 0) {
			bench_quiet = true;
		} else if (strcmp(a, "--events") == 0 && i + 1 < argc) {
			if (!bench_parse_count(argv[++i], &events)) {
				fprintf(stderr, "probe: --events %s: expected a positive count\n", argv[i]);
				return 2;
			}
		} else if (strcmp(a, "--runs") == 0 && i + 1 < argc) {
			if (!bench_parse_count(argv[++i], &runs) || runs > 101) {
				fprintf(stderr, "probe: --runs %s: expected 1 to 101\n", argv[i]);
				return 2;
			}
		} else if (strcmp(a, "--ring") == 0 && i + 1 < argc) {
			if (!bench_parse_count(argv[++i], &ring_size) || ring_size < 2 ||
			    (ring_size & (ring_size - 1)) != 0 || ring_size > (INT64_C(1) << 30)) {
				fprintf(stderr, "probe: --ring %s: expected a power of two from 2 to 2^30\n", argv[i]);
				return 2;
			}
		} else {
			fprintf(stderr, "usage: probe [--events N] [--runs N] [--ring SLOTS] [--quick] [--quiet]\n");
			return strcmp(a, "--help") == 0 ? 0 : 2;
		}
	}

	topo_variant v[2];
	memset(v, 0, sizeof v);
	v[0].topo = v[1].topo = TOPO_1_1;
	v[0].impl = IMPL_SEQRING;
	v[1].impl = IMPL_MUTEX;
	sr_wait_config_default(&v[0].wait, SR_WAIT_BUSY_SPIN);
	sr_wait_config_default(&v[1].wait, SR_WAIT_BUSY_SPIN);
	v[0].ring_size = v[1].ring_size = ring_size;

	double rates[2][101];
	char err[512];
	for (int k = 0; k < runs; k++) {
		for (int j = 0; j < 2; j++) {
			bench_progress("[probe] run %d/%d: %s (%" PRId64 " events)", k + 1, (int)runs,
			    j == 0 ? "seqring busyspin" : "mutex_condvar", events);
			topo_result res;
			if (topo_run(&v[j], events, 0, &res, err, sizeof err) != 0) {
				fprintf(stderr, "probe: FAILED %s\n", err);
				return 1;
			}
			rates[j][k] = res.events_per_sec;
		}
	}
	double med[2], lo[2], hi[2];
	for (int j = 0; j < 2; j++) {
		lo[j] = bench_min(rates[j], (int)runs);
		hi[j] = bench_max(rates[j], (int)runs);
		med[j] = bench_median(rates[j], (int)runs);
	}
	char a[32], b[32], c[32];
	printf("### Probe: 1 producer -> 1 consumer, 8-byte events, %" PRId64 " events per run, "
	    "%" PRId64 "-slot ring, median of %d interleaved runs\n\n", events, ring_size, (int)runs);
	printf("| queue | events/s (median) | min | max |\n|---|--:|--:|--:|\n");
	printf("| seqring, busy-spin | %s | %s | %s |\n", bench_fmt_rate(med[0], a, sizeof a),
	    bench_fmt_rate(lo[0], b, sizeof b), bench_fmt_rate(hi[0], c, sizeof c));
	printf("| mutex + condvar | %s | %s | %s |\n", bench_fmt_rate(med[1], a, sizeof a),
	    bench_fmt_rate(lo[1], b, sizeof b), bench_fmt_rate(hi[1], c, sizeof c));
	printf("\nratio seqring / mutex+condvar: %.1fx\n", med[1] > 0 ? med[0] / med[1] : 0.0);
	return 0;
}
