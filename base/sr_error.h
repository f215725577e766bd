/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_error.h: error values shared by every seqring component.
 *
 * Errors are values (ARCHITECTURE.md, decision 8): functions return 0 or a
 * negative SR_E* code, constructors return NULL, and when the caller passes an
 * sr_error the message names the bad value and what was expected.  Nothing in
 * the library aborts or exits on user input.
 */
#ifndef SR_ERROR_H
#define SR_ERROR_H

#include <stddef.h>

#include "sr_export.h"

#ifdef __cplusplus
extern "C" {
#endif

enum sr_status {
	SR_OK = 0,
	SR_EINVAL = -1,       /* an argument is out of range or NULL */
	SR_ENOMEM = -2,       /* allocation failed */
	SR_EFULL = -3,        /* try-claim: insufficient capacity right now */
	SR_ETIMEDOUT = -4,    /* a deadline or wait timeout passed */
	SR_EALERTED = -5,     /* a barrier was alerted (processor halting) */
	SR_ESTATE = -6,       /* the object is in the wrong state for this call */
	SR_ESYS = -7,         /* a system call failed; the message has errno text */
	SR_EIO = -8           /* a sink could not write */
};

#define SR_ERROR_MESSAGE_MAX 256

typedef struct sr_error {
	int code;
	char message[SR_ERROR_MESSAGE_MAX];
} sr_error;

/* A short, static name for an SR_E* code ("invalid argument", ...). */
SR_API const char *sr_strerror(int code);

/*
 * Fills err (if not NULL) with code and a printf-style message; returns code
 * so that callers can write `return sr_error_set(err, SR_EINVAL, ...)`.
 */
SR_API int sr_error_set(sr_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Clears err (if not NULL) to SR_OK and an empty message. */
SR_API void sr_error_clear(sr_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SR_ERROR_H */
