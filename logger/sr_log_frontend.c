/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_frontend.c: the caller's side of a log call, after the macro's
 * level check.
 *
 * The macros' path (sr_log__emit_args): the site's signature (one
 * load-acquire after the first call) and how its arguments are copied
 * (decided once per site), the strings measured, room claimed on the
 * backend's ring (try_claim), the header, the values in one piece and the
 * strings written straight into it, committed.  Anything unusual leaves
 * this path for the general one: a record to cut under max_message_bytes,
 * a full ring (the policy), a baseline backend, arguments whose types
 * differ from the format's, a '*' precision, a refused format.
 *
 * The general path (sr_log_emit, and the macros' fallback): the arguments
 * gathered from the va_list or the typed array by the signature, fitted,
 * and handed to the backend's emit.
 */
#include "sr_fmt_fields_internal.h"
#include "sr_log_backend_internal.h"
#include "sr_log_categories_internal.h"
#include "sr_log_clock_internal.h"
#include "sr_log_consumer_internal.h"
#include "sr_log_ring_dir_internal.h"
#include "sr_log_sites_internal.h"
#include "sr_log_thread_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

__attribute__((noinline)) static void
emit_format_error(sr_log *log, sr_log_rec *h)
{
	h->kind = SR_REC_FORMAT_ERROR;
	h->size = sizeof *h;
	h->value_bytes = 0;
	h->ts_ns = sr_log__clock_read(log);
	log->backend->emit(log, h, NULL);
}

/* The header of a message record from site and cat, on this thread. */
static inline void
fill_header(sr_log_rec *h, sr_category *cat, sr_site *site, const sr_log_thread *self, int saved_errno)
{
	h->kind = SR_REC_MESSAGE;
	h->level = (uint8_t)site->level;
	h->tid = self->tid;
	h->errno_value = saved_errno;
	h->site = site;
	h->cat = cat;
	memcpy(h->thread, self->name, sizeof h->thread);
}

/* The general path for gathered arguments: fit, then the backend's emit. */
static void
emit_gathered(sr_log *log, sr_log_rec *h, sr_fmt_gather *g)
{
	h->ts_ns = sr_log__clock_read(log);
	h->size = (uint32_t)sr_fmt_fit(g, sizeof *h, log->opt.max_record);
	h->value_bytes = g->value_bytes;
	if (__builtin_expect(g->truncated, 0))
		h->kind |= SR_REC_TRUNCATED;
	log->backend->emit(log, h, g);
}

/* The macros' path when the fast one does not apply: convert by the signature, emit. */
__attribute__((noinline)) static void
emit_args_general(sr_log *log, sr_category *cat, sr_site *site, const sr_fmt_sig *sig,
    const sr_log_arg *args, int n, int saved_errno)
{
	sr_log_rec h;
	fill_header(&h, cat, site, sr_log__thread(), saved_errno);
	if (sig->error != SR_FMT_OK) {
		emit_format_error(log, &h);
	} else {
		sr_fmt_gather g;
		sr_fmt_gather_array(&g, sig, log->opt.max_record, args, n);
		emit_gathered(log, &h, &g);
	}
	/* Logging never changes errno (a clock or a sink may have). */
	errno = saved_errno;
}

/*
 * Decides, once per site, whether its calls may copy by C type: the
 * arguments must be the signature's, one for one (a character pointer may
 * be a %p), and no string may take a '*' precision (its bound is another
 * argument's value).  Deterministic: racing first calls agree.
 */
__attribute__((noinline)) static int
decide_copy(sr_site *site, const sr_fmt_sig *sig, const sr_log_arg *args, int n)
{
	bool by_type = sig->error == SR_FMT_OK && sig->nargs == n;
	uint32_t mask = 0;
	for (int i = 0; by_type && i < n; i++) {
		int want = sig->type[i], have = args[i].kind;
		if (want == SR_FMT_ARG_WIDTH || want == SR_FMT_ARG_PRECISION)
			want = SR_FMT_ARG_INT;
		if (want == SR_FMT_ARG_PTR && have == SR_FMT_ARG_STR)
			have = SR_FMT_ARG_PTR;
		by_type = want == have && !(want == SR_FMT_ARG_STR && sig->precision[i] == SR_FMT_PREC_STAR);
		if (want == SR_FMT_ARG_STR)
			mask |= UINT32_C(1) << i;
	}
	/*
	 * Inline (sr_log_fast.h) when no string has a precision, no record needs
	 * errno and every character pointer is a %s string: the site's arguments
	 * have the same C types at every call (the macro's expansion gives them),
	 * so the inline call checks this decision alone.
	 */
	bool inline_ok = by_type && !sig->uses_errno;
	for (int i = 0; inline_ok && i < n; i++)
		inline_ok = (args[i].kind == SR_FMT_ARG_STR) == (bool)(mask >> i & 1) &&
		    (!(mask >> i & 1) || sig->precision[i] == SR_FMT_PREC_NONE);
	int copy = inline_ok ? SR_SITE_COPY_FAST : by_type ? SR_SITE_COPY_BY_TYPE : SR_SITE_COPY_CONVERTED;
	if (!by_type)
		mask = 0;
	/*
	 * Racing first calls store the same values, so both are atomic (a
	 * plain store racing a load would be a data race even with equal
	 * values).  copy is stored last, with release: a thread that reads
	 * BY_TYPE (load-acquire in sr_log__emit_args) then reads this mask.
	 * sig itself was published by the site's READY (see sr_site_sig).
	 */
	sr_atomic_store_relaxed_i32(&site->str_mask, (int32_t)mask);
	sr_atomic_store_release_i32(&site->copy, copy);
	/* A run-time rule that names categories holds an inline site to this path (sr_log_sites.h). */
	return sr_log__site_copy_decided(site, copy);
}

/*
 * The macros' path once the site copies by type: measure the strings, claim,
 * write in place, commit.  False when the record must take the general path
 * (to be cut, or no room now).  thread_records is a constant in each of the
 * two copies sr_log__emit_args makes: a shared ring's header, or the shorter
 * one of a thread's ring (sr_log_record_internal.h).
 */
static inline __attribute__((always_inline)) bool
emit_by_type(sr_log *log, sr_category *cat, sr_site *site, const sr_fmt_sig *sig,
    const sr_log_arg *args, int n, int saved_errno, const bool thread_records)
{
	/* ordered by the load-acquire of copy in sr_log__emit_args (the store-release in decide_copy) */
	const uint32_t str_mask = (uint32_t)sr_atomic_load_relaxed_i32(&site->str_mask);

	/* Measure the strings: the record's size decides the claim. */
	uint32_t len[SR_SITE_MAX_ARGS];
	size_t cap = log->opt.max_record;
	size_t size = sizeof(sr_log_rec) + sig->value_bytes;
	for (uint32_t m = str_mask; m != 0; m &= m - 1) {
		int i = __builtin_ctz(m);
		const char *s = args[i].v.s;
		if (s == NULL) {
			len[i] = SR_FMT_NULL_STRING;
			continue;
		}
		len[i] = sr_fmt__string_len(s, sig->precision[i], cap);
		size += (size_t)len[i] + 1;
	}
	if (__builtin_expect(size > cap, 0))
		return false;
	sr_log_rec h;
	fill_header(&h, cat, site, sr_log__thread(), saved_errno);
	h.size = (uint32_t)size;
	h.value_bytes = sig->value_bytes;
	size_t header = thread_records ? sr_log__thread_header_size(&h) : sizeof h;
	size_t stored = size - sizeof h + header;
	sr_log_claim c;
	if (__builtin_expect(!log->backend->try_claim(log, stored, &c), 0))
		return false;
	h.ts_ns = sr_log__clock_read(log);
	/*
	 * The record in place when it does not cross the ring's physical end
	 * (nearly always), else assembled and streamed across it.
	 */
	unsigned char assembled[sizeof h + SR_FMT_MAX_VALUE_BYTES];
	bool in_place = c.w.pos + stored <= c.w.wrap;
	unsigned char *rec = in_place ? c.w.base + c.w.pos : assembled;
	if (thread_records)
		sr_log__thread_header_put(rec, &h);
	else
		memcpy(rec, &h, sizeof h);
	unsigned char *v = sr_fmt__put_values(rec + header, sig, args, n, len);
	/* The strings: in place (a copy and a NUL each), or streamed after the rest across the end. */
	if (in_place) {
		for (uint32_t m = str_mask; m != 0; m &= m - 1) {
			int i = __builtin_ctz(m);
			if (len[i] == SR_FMT_NULL_STRING)
				continue;
			memcpy(v, args[i].v.s, len[i]);
			v[len[i]] = '\0';
			v += len[i] + 1;
		}
	} else {
		static const char nul = '\0';
		sr_ring_writer_put(&c.w, assembled, (size_t)(v - assembled));
		for (uint32_t m = str_mask; m != 0; m &= m - 1) {
			int i = __builtin_ctz(m);
			if (len[i] == SR_FMT_NULL_STRING)
				continue;
			sr_ring_writer_put(&c.w, args[i].v.s, len[i]);
			sr_ring_writer_put(&c.w, &nul, 1);
		}
	}
	log->backend->commit(log, &c);
	return true;
}

/*
 * Sets the site's home category, once: the first category a typed call
 * through it names (sr_site.home_cat).  A compare-and-set from NULL,
 * because racing first calls may name different ones and the value must
 * never change (records that leave the category out take it from here),
 * and because a log call may come from a signal handler: no lock.  Called
 * before decide_copy's store-release of copy, which orders it before every
 * inline call's load of home_cat.
 */
static void
bind_home_category(sr_site *site, sr_category *cat)
{
	/* pairs with the inline call's and the consumer's load-acquire of home_cat (a full barrier) */
	if (sr_atomic_load_acquire_ptr(&site->home_cat) == NULL)
		(void)sr_atomic_cas_ptr(&site->home_cat, NULL, cat);
}

/* The macros' path, once the call is in progress and admitted (inlined: one frame per call). */
static inline __attribute__((always_inline)) void
emit_args(sr_log *log, sr_category *cat, sr_site *site, const sr_log_arg *args, int n)
{
	int saved_errno = errno;
	sr_fmt_sig scratch;
	const sr_fmt_sig *sig = sr_site_sig(site, &scratch);
	/*
	 * A site with key-value fields (SR_KV) encodes by its table's signature:
	 * the format's arguments, then the fields'.  Pairs with the CAS that
	 * published the table (sr_log_fields.c).
	 */
	const sr_fmt_fields *fields = sr_atomic_load_acquire_ptr(&site->fields);
	if (__builtin_expect(fields != NULL, 0))
		sig = &fields->sig;
	/* pairs with the store-release in decide_copy: str_mask is set */
	int copy = sr_atomic_load_acquire_i32(&site->copy);
	if (__builtin_expect(copy == SR_SITE_COPY_UNKNOWN, 0)) {
		bind_home_category(site, cat);
		/* Before the decision is published, so before any record of the site: the catalogue has it. */
		sr_log__site_catalogue_add(site, true);
		copy = decide_copy(site, sig, args, n);
	}
	if (__builtin_expect((copy == SR_SITE_COPY_BY_TYPE || copy == SR_SITE_COPY_FAST ||
	    copy == SR_SITE_COPY_HELD) &&
	    log->backend->try_claim != NULL, 1)) {
		bool done = log->backend->thread_records ?
		    emit_by_type(log, cat, site, sig, args, n, saved_errno, true) :
		    emit_by_type(log, cat, site, sig, args, n, saved_errno, false);
		if (__builtin_expect(done, 1)) {
			/* The site's next calls on this thread may write inline (sr_log_fast.h). */
			if (copy == SR_SITE_COPY_FAST && log->backend->cache_inline != NULL &&
			    sr_log__my_fast.sh.key != log->fast_key)
				log->backend->cache_inline(log);
			return;
		}
	}
	emit_args_general(log, cat, site, sig, args, n, saved_errno);
}

/*
 * A call in progress (sr_log__call_enter) reads its category's level again:
 * the macro's check may have come before a shutdown or close set it.  True
 * when the call may go on to the logger; otherwise it was refused (counted
 * as dropped when a shutdown or close refused it) and touched no logger
 * that may be gone.
 */
static inline bool
call_admitted(sr_category *cat, const sr_site *site)
{
	int32_t level = sr_atomic_load_relaxed_i32(&cat->level);
	/* A run-time rule on the site (sr_log_sites.h) decides instead of the category's level. */
	int outcome = __builtin_expect(sr_atomic_load_relaxed_i32(&site->control) == 0, 1) ?
	    SR_LOG__SITE_FOLLOWS : sr_log__site_outcome(site, cat);
	/* sr_category_off (no logger) and a closed one have a level no site reaches, nor a site on */
	if (__builtin_expect(outcome == SR_LOG__SITE_FOLLOWS ? site->level >= level :
	    outcome == SR_LOG__SITE_IS_ON && level <= SR_LOG_FATAL, 1))
		return true;
	/* A call a rule switched off is not a drop: as at a disabled level, it was never a message. */
	if (outcome != SR_LOG__SITE_IS_OFF)
		sr_log__refused(cat, level, site->level);
	return false;
}

/*
 * The twin of a limited site with key-value fields: the site's keys after
 * the twin's format arguments (the count one more of them), published as a
 * site's own (sr_fmt_fields_publish).
 */
static void
twin_fields(sr_site *twin, const sr_fmt_fields *fields, const sr_log_arg *with, int n)
{
	const char *keys[SR_SITE_MAX_ARGS];
	unsigned char flags[SR_SITE_MAX_ARGS];
	for (int j = 0; j < fields->count; j++) {
		keys[j] = fields->key[j];
		flags[j] = (unsigned char)(fields->unsigned_mask >> j & 1);
	}
	sr_fmt_fields_publish(twin, with, n, keys, flags, fields->count);
}

/*
 * A call through a site a run-time rule limits (sr_log_sites.h): the
 * limiter decides; a line after suppressed calls goes through the limit's
 * twin site, whose format ends with SR_LOG_LIMIT_SUFFIX, with the count as
 * the argument after the format's own.
 */

__attribute__((noinline)) static void
emit_limited(sr_log *log, sr_category *cat, sr_site *site, const sr_log_arg *args, int n)
{
	/* pairs with the store-release in the rules' set_site: the limit is whole */
	sr_log__site_limit *limit = sr_atomic_load_acquire_ptr(&site->limit);
	int64_t count = limit != NULL ? sr_log__site_limit_admit(limit, cat) : 0;
	sr_fmt_sig scratch;
	const sr_fmt_sig *sig = sr_site_sig(site, &scratch);
	int at = sig->error == SR_FMT_OK && sig->nargs <= n ? sig->nargs : n;
	if (count < 0)
		return;
	if (count == 0 || n >= SR_SITE_MAX_ARGS) {
		/* A site whose arguments fill a record's table writes its lines without the count. */
		emit_args(log, cat, site, args, n);
		return;
	}
	sr_log_arg with[SR_SITE_MAX_ARGS];
	memcpy(with, args, (size_t)at * sizeof with[0]);
	with[at] = sr_log__arg_ulong((unsigned long long)count);
	memcpy(with + at + 1, args + at, (size_t)(n - at) * sizeof with[0]);
	/* pairs with the CAS that published the site's key-value fields (sr_log_fields.c) */
	const sr_fmt_fields *fields = sr_atomic_load_acquire_ptr(&site->fields);
	if (fields != NULL && fields->sig.error == SR_FMT_OK && sr_atomic_load_acquire_ptr(&limit->twin.fields) == NULL)
		twin_fields(&limit->twin, fields, with, n + 1);
	emit_args(log, cat, &limit->twin, with, n + 1);
}

void
sr_log__emit_args(sr_category *cat, sr_site *site, const sr_log_arg *args, int n)
{
	sr_log_thread *self = sr_log__call_enter(cat);
	if (__builtin_expect(call_admitted(cat, site), 1)) {
		if (__builtin_expect(cat->log != NULL, 1) &&
		    __builtin_expect(sr_atomic_load_relaxed_i32(&site->control) & SR_SITE_CONTROL_LIMITED, 0))
			emit_limited(cat->log, cat, site, args, n);
		else if (__builtin_expect(cat->log != NULL, 1))
			emit_args(cat->log, cat, site, args, n);
		else
			sr_log__call_without_logger(cat);  /* sr_log_open failed: say so, once */
	}
	sr_log__call_leave(self);
}

static void
emit_va(sr_log *log, sr_category *cat, sr_site *site, va_list *ap)
{
	int saved_errno = errno;
	sr_log_thread *self = sr_log__thread();
	sr_fmt_sig scratch;
	const sr_fmt_sig *sig = sr_site_sig(site, &scratch);

	/* pairs with the catalogue's store-release: the site's entry is written before its first record */
	if (__builtin_expect(!(sr_atomic_load_acquire_i32(&site->catalogued) & SR_SITE_CATALOGUED), 0))
		sr_log__site_catalogue_add(site, false);
	sr_log_rec h;
	fill_header(&h, cat, site, self, saved_errno);
	if (__builtin_expect(sig->error != SR_FMT_OK, 0)) {
		emit_format_error(log, &h);
		errno = saved_errno;
		return;
	}

	sr_fmt_gather g;
	sr_fmt_gather_args(&g, sig, log->opt.max_record, ap);
	emit_gathered(log, &h, &g);
	/* Logging never changes errno (a clock or a sink may have). */
	errno = saved_errno;
}

void
sr_log_emit(sr_category *cat, sr_site *site, const char *format, ...)
{
	(void)format; /* the site's copy is used; the macro passes it for the format check */
	sr_log_thread *self = sr_log__call_enter(cat);
	if (__builtin_expect(call_admitted(cat, site), 1)) {
		if (__builtin_expect(cat->log != NULL, 1)) {
			va_list ap;
			va_start(ap, format);
			emit_va(cat->log, cat, site, &ap);
			va_end(ap);
		} else {
			sr_log__call_without_logger(cat);  /* sr_log_open failed: say so, once */
		}
	}
	sr_log__call_leave(self);
}

/* Calls refused because their logger was closed (no logger left to count them). */
static sr_atomic_i64 dropped_after_close;

__attribute__((noinline, cold)) void
sr_log__refused(sr_category *cat, int32_t level_now, int call_level)
{
	/* Counters only: no data rides on them. */
	if (cat == &sr_category_off)
		return;
	if (level_now == SR_LOG__CLOSED) {
		sr_atomic_faa_i64(&dropped_after_close, 1);
		return;
	}
	/* pairs with the store-release in begin_shutdown; the logger is valid (the call is in progress) */
	sr_log *log = cat->log;
	if (log != NULL && sr_atomic_load_acquire_i32(&log->shut))
		sr_log__count_drop(log, call_level);
}

uint64_t
sr_log_dropped_after_close(void)
{
	return (uint64_t)sr_atomic_load_relaxed_i64(&dropped_after_close);
}
