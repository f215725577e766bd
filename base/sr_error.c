/* SPDX-License-Identifier: Apache-2.0 */
#include "sr_error.h"

#include <stdarg.h>
#include <stdio.h>

const char *
sr_strerror(int code)
{
	switch (code) {
	case SR_OK: return "success";
	case SR_EINVAL: return "invalid argument";
	case SR_ENOMEM: return "out of memory";
	case SR_EFULL: return "insufficient capacity";
	case SR_ETIMEDOUT: return "timed out";
	case SR_EALERTED: return "alerted";
	case SR_ESTATE: return "wrong state";
	case SR_ESYS: return "system call failed";
	case SR_EIO: return "write error";
	case SR_EFORMAT: return "unexpected format";
	default: return "unknown error";
	}
}

int
sr_error_set(sr_error *err, int code, const char *fmt, ...)
{
	if (err != NULL) {
		va_list ap;
		err->code = code;
		va_start(ap, fmt);
		vsnprintf(err->message, sizeof err->message, fmt, ap);
		va_end(ap);
	}
	return code;
}

void
sr_error_clear(sr_error *err)
{
	if (err != NULL) {
		err->code = SR_OK;
		err->message[0] = '\0';
	}
}
