/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kv_fields.c: the log macros' key-value fields (SR_KV), compiled (never run) by
 * check_kv_fields.sh as C and, with -x c++, as C++. KV_CASE picks the call:
 *   ok              fields alone, after format arguments, of every value type, in SR_LOG, the
 *                   level shorthands and the rate-limited macros, passed through another macro:
 *                   must compile warning-free (the format check sees the format's arguments only);
 *   key_variable    a key that is a variable, not a string literal;
 *   key_empty       the key "";
 *   kv_first        a field before a format argument;
 *   args_33         32 format arguments and a field.
 * each failing case must fail with its message (check_kv_fields.sh) as the first error.
 */
#include <seqring/sr_log.h>

#if !defined(KV_CASE_ok) && !defined(KV_CASE_key_variable) && !defined(KV_CASE_key_empty) && \
    !defined(KV_CASE_kv_first) && !defined(KV_CASE_args_33)
#error "compile with -DKV_CASE_ok, _key_variable, _key_empty, _kv_first or _args_33"
#endif

#define KV_ARGS_4 a, a + 1, a + 2, a + 3
#define KV_ARGS_8 KV_ARGS_4, KV_ARGS_4
#define KV_ARGS_32 KV_ARGS_8, KV_ARGS_8, KV_ARGS_8, KV_ARGS_8
#define KV_F4 "%d %d %d %d "
#define KV_F8 KV_F4 KV_F4
#define KV_F32 KV_F8 KV_F8 KV_F8 KV_F8
#define KV_WRAP(statement) statement

#ifdef __cplusplus
extern "C" {
#endif

void kv_fields_call(sr_category *cat, int a, const char *s, double d, void *p);

void kv_fields_call(sr_category *cat, int a, const char *s, double d, void *p)
{
#if defined(KV_CASE_ok)
	unsigned u = 3;
	long long ll = -4;
	long double ld = 2.5L;
	SR_INFO(cat, "order filled", SR_KV("order", a), SR_KV("px", d), SR_KV("venue", s));
	SR_INFO(cat, "filled %d lots at %s", a, s, SR_KV("u", u), SR_KV("ll", ll), SR_KV("ld", ld),
	    SR_KV("p", p), SR_KV("lit", "XNAS"), SR_KV("cast", (long)a), SR_KV("expr", (a + 1) * 2));
	SR_LOG(cat, SR_LOG_WARN, "plain %d", a);
	SR_LOG(cat, SR_LOG_WARN, "only");
	KV_WRAP(SR_ERROR(cat, "wrapped %s", s, SR_KV("k", a)));
	SR_INFO_ONCE(cat, "once %d", a, SR_KV("k", s));
	SR_INFO_EVERY_N(cat, 3, "every", SR_KV("k", d), SR_KV("k2", a));
	SR_LOG_LIMIT(cat, SR_LOG_INFO, 10, 5, "limited %d", a, SR_KV("k", a));
	SR_INFO(cat, KV_F8 KV_F8 KV_F8 KV_F4 "%d %d %d", KV_ARGS_8, KV_ARGS_8, KV_ARGS_8, KV_ARGS_4, a, a,
	    a, SR_KV("last", a));
#elif defined(KV_CASE_key_variable)
	(void)p;
	(void)d;
	SR_INFO(cat, "key", SR_KV(s, a));
#elif defined(KV_CASE_key_empty)
	(void)p;
	(void)d;
	(void)s;
	SR_INFO(cat, "empty", SR_KV("", a));
#elif defined(KV_CASE_kv_first)
	(void)p;
	(void)d;
	SR_INFO(cat, "first %s", SR_KV("k", a), s);
#elif defined(KV_CASE_args_33)
	(void)p;
	(void)d;
	(void)s;
	SR_INFO(cat, KV_F32, KV_ARGS_32, SR_KV("k", a));
#endif
}

#ifdef __cplusplus
}
#endif
