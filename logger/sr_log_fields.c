/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_fields.c: the entry of a log call with key-value fields (SR_KV).
 * Its site's first call records the keys in the site (sr_site.fields), and
 * the call goes on as any macro's: the fields are arguments after the
 * format's, encoded by the table's signature (sr_log__emit_args).
 */
#include "sr_fmt_fields_internal.h"
#include "sr_log_args.h"

#include <stdlib.h>

/* Makes and publishes the site's table, once: racing first calls make equal ones, and one is kept. */
__attribute__((noinline)) static void
make_fields(sr_site *site, const sr_log_arg *args, int n, const char *const *keys,
    const unsigned char *flags, int nfields)
{
	sr_fmt_sig scratch;
	const sr_fmt_sig *sig = sr_site_sig(site, &scratch);
	sr_fmt_fields *t = sr_fmt_fields_make(sig, args, n, keys, flags, nfields);
	/* Out of memory: this call goes without its fields (by the format's signature), the next one tries again. */
	if (t == NULL)
		return;
	/*
	 * The CAS publishes the whole table (a full barrier); pairs with the
	 * load-acquire of fields in sr_log__emit_fields, the frontend's emit_args
	 * and the consumer's sr_log__event_fields.
	 */
	if (!sr_atomic_cas_ptr(&site->fields, NULL, t))
		free(t);
}

void
sr_log__emit_fields(sr_category *cat, sr_site *site, const sr_log_arg *args, int n,
    const char *const *keys, const unsigned char *flags, int nfields)
{
	/* pairs with the CAS in make_fields */
	if (__builtin_expect(sr_atomic_load_acquire_ptr(&site->fields) == NULL, 0))
		make_fields(site, args, n, keys, flags, nfields);
	sr_log__emit_args(cat, site, args, n);
}
