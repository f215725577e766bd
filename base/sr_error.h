/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file sr_error.h
 * @ingroup base
 * @brief Error values shared by every seqring component.
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

/** @brief The status codes: 0 for success, a negative SR_E* value for each kind of failure. */
enum sr_status {
	/** success */
	SR_OK = 0,
	SR_EINVAL = -1,       /**< an argument is out of range or NULL */
	SR_ENOMEM = -2,       /**< allocation failed */
	SR_EFULL = -3,        /**< try-claim: insufficient capacity right now */
	SR_ETIMEDOUT = -4,    /**< a deadline or wait timeout passed */
	SR_EALERTED = -5,     /**< a barrier was alerted (processor halting) */
	SR_ESTATE = -6,       /**< the object is in the wrong state for this call */
	SR_ESYS = -7,         /**< a system call failed; the message has errno text */
	SR_EIO = -8,          /**< a sink could not write */
	SR_EFORMAT = -9       /**< a mapping or file is not in the layout expected (a shared ring's header) */
};

/** @brief Size of sr_error::message, terminating NUL included (longer messages are truncated). */
#define SR_ERROR_MESSAGE_MAX 256

/**
 * @brief A failure's code and its message, filled by the call that failed.
 *
 * Optional everywhere: a function taking an `sr_error *` accepts NULL and then
 * only returns the code.
 */
typedef struct sr_error {
	/** @brief The SR_E* code the call returned (SR_OK after sr_error_clear). */
	int code;
	/** @brief NUL-terminated text naming the bad value, where it came from and what was expected. */
	char message[SR_ERROR_MESSAGE_MAX];
} sr_error;

/**
 * @brief A short, static name for an SR_E* code ("invalid argument", ...).
 * @param code An SR_OK or SR_E* value; any other value is accepted too.
 * @return A static string, never NULL: "success" for SR_OK, one name per SR_E*
 *         code, "unknown error" for any other value.
 */
SR_API const char *sr_strerror(int code);

/**
 * @brief Fills err (if not NULL) with code and a printf-style message.
 *
 * Returns code so that callers can write `return sr_error_set(err, SR_EINVAL, ...)`.
 * A message longer than SR_ERROR_MESSAGE_MAX - 1 bytes is truncated.
 * @param err Where to store the code and the message; NULL stores nothing.
 * @param code The SR_E* code to record and return.
 * @param fmt A printf format for the message, followed by its arguments.
 * @return code, unchanged.
 */
SR_API int sr_error_set(sr_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/**
 * @brief Clears err (if not NULL) to SR_OK and an empty message.
 * @param err The error to clear; NULL does nothing.
 */
SR_API void sr_error_clear(sr_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SR_ERROR_H */
