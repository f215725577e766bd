/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_fields.c: the entry of a log call with key-value fields (SR_KV).
 * Its site's first call records the keys in the site (sr_site.fields), and
 * the call goes on as any macro's: the fields are arguments after the
 * format's, encoded by the table's signature (sr_log__emit_args).
 */
#include "sr_fmt_fields_internal.h"
#include "sr_log_args.h"

void
sr_log__emit_fields(sr_category *cat, sr_site *site, const sr_log_arg *args, int n,
    const char *const *keys, const unsigned char *flags, int nfields)
{
	/* pairs with the CAS in sr_fmt_fields_publish */
	if (__builtin_expect(sr_atomic_load_acquire_ptr(&site->fields) == NULL, 0))
		sr_fmt_fields_publish(site, args, n, keys, flags, nfields);
	sr_log__emit_args(cat, site, args, n);
}
