/* Consumer of an installed seqring: proves that the installed headers, pkg-config file and CMake
 * package are enough to compile, link and run against the library. */
#include <stdio.h>

#include "sr_ring.h"

int main(void)
{
    sr_ring *ring = sr_ring_create(8, 64, NULL, NULL, NULL);
    if (ring == NULL) {
        fputs("sr_ring_create(8, 64, ...) failed\n", stderr);
        return 1;
    }
    sr_ring_destroy(ring);
    puts("ok");
    return 0;
}
