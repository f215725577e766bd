/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Consumer of an installed seqring: proves that the installed headers, pkg-config file and CMake
 * package are enough to compile, link and run against the library, with no flag from seqring.
 * run_install_test.sh compiles it as strict ISO C (no feature macro), with the program's own
 * _POSIX_C_SOURCE and with its own _GNU_SOURCE (USE_SEQRING_POSIX or USE_SEQRING_GNU on the
 * command line pick which, as a user's file defines one at its top), under -Werror. It prints
 * "ok" on stdout and one log line on stderr.
 */
#if defined(USE_SEQRING_POSIX)
#define _POSIX_C_SOURCE 200809L
#elif defined(USE_SEQRING_GNU)
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <string.h>

#include <seqring/sr_log.h>
#include <seqring/sr_ring.h>
#include <seqring/sr_version.h>

int main(void)
{
    if (strcmp(sr_version(), SEQRING_VERSION_STRING) != 0 || sr_version_number() != SEQRING_VERSION_NUMBER) {
        fprintf(stderr, "compiled against seqring %s, running with %s\n", SEQRING_VERSION_STRING, sr_version());
        return 1;
    }
    sr_ring *ring = sr_ring_create(8, 64, NULL, NULL, NULL);
    if (ring == NULL) {
        fputs("sr_ring_create(8, 64, ...) failed\n", stderr);
        return 1;
    }
    sr_ring_destroy(ring);

    sr_log_config config;
    sr_log_config_default(&config);
    config.ignore_environment = true; /* the default sink: stderr */
    sr_error err = { 0 };
    sr_log *log = sr_log_open(&config, &err);
    if (log == NULL) {
        fprintf(stderr, "sr_log_open: %s\n", err.message);
        return 1;
    }
    sr_category *cat = sr_log_category(log, "install");
    SR_INFO(cat, "installed seqring %s: %d", sr_version(), 42);
    sr_log_close(&log);
#if defined(USE_SEQRING_POSIX) && !defined(_GNU_SOURCE)
    /* The program's own POSIX strerror_r (int), not the GNU one (char *) a flag of ours would pick. */
    char buf[64];
    if (strerror_r(1, buf, sizeof buf) != 0)
        return 1;
#endif
    puts("ok");
    return 0;
}
