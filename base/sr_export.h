/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file sr_export.h
 * @ingroup base
 * @brief Which functions libseqring exports.
 *
 * SR_API marks a function that the shared library exports: the documented
 * API, and the out-of-line helpers (named sr_x__name) that the static inline
 * code of the public headers calls, which a consumer's object file refers to
 * and the library must therefore export too.  Everything else stays inside
 * the library once it is built with -fvisibility=hidden.
 *
 * The attribute goes on the declaration in the header; the definition in the
 * .c file inherits it.
 */
#ifndef SR_EXPORT_H
#define SR_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define SR_API __attribute__((visibility("default")))
#else
#define SR_API
#endif

#endif /* SR_EXPORT_H */
