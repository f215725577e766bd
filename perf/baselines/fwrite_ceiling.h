/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fwrite_ceiling.h: what the disk path allows a logger, without a logger: the
 * same lines written with fwrite through a 64 KiB stdio buffer, one thread,
 * no formatting.  perf/throughput's "ceiling" rows.
 */
#ifndef SR_PERF_FWRITE_CEILING_H
#define SR_PERF_FWRITE_CEILING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The stdio buffer the ceiling writes through. */
#define FWRITE_CEILING_BUFFER (64 * 1024)

/*
 * Writes `lines` lines of line_bytes bytes each (the last one a newline) to a
 * fresh file at path, which is removed afterwards.  *elapsed_ns: from the
 * fopen to the fclose.  false with a message in err (errlen bytes).
 */
bool fwrite_ceiling_run(const char *path, int64_t lines, int64_t line_bytes, int64_t *elapsed_ns,
    char *err, size_t errlen);

#endif /* SR_PERF_FWRITE_CEILING_H */
