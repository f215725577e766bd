/* SPDX-License-Identifier: Apache-2.0 */
/* sr_version.c: the running library's version, from the generated sr_version.h. */
#include "sr_version.h"

const char *
sr_version(void)
{
	return SEQRING_VERSION_STRING;
}

int
sr_version_number(void)
{
	return SEQRING_VERSION_NUMBER;
}
