/*
 * sr_log_frontend.c: the caller's side of a log call, after the macro's
 * level check: the site's signature (one load-acquire after the first call),
 * the record header, the arguments gathered from the va_list (strings
 * measured), the clock read, the record fitted under max_message_bytes, and
 * the hand-over to the backend chosen at open (sr_log_backend_internal.h).
 */
#include "sr_log_backend_internal.h"
#include "sr_log_clock_internal.h"
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

void
sr_log_emit(sr_category *cat, sr_site *site, const char *format, ...)
{
	int saved_errno = errno;
	sr_log *log = cat->log;
	(void)format; /* the site's copy is used; the macro passes it for the format check */
	if (__builtin_expect(log == NULL, 0))
		return;
	sr_log_thread *self = sr_log__thread();
	sr_fmt_sig scratch;
	const sr_fmt_sig *sig = sr_site_sig(site, &scratch);

	sr_log_rec h;
	h.kind = SR_REC_MESSAGE;
	h.level = (uint8_t)site->level;
	h.tid = self->tid;
	h.errno_value = saved_errno;
	h.site = site;
	h.cat = cat;
	memcpy(h.thread, self->name, sizeof h.thread);
	if (__builtin_expect(sig->error != SR_FMT_OK, 0)) {
		emit_format_error(log, &h);
		errno = saved_errno;
		return;
	}

	sr_fmt_gather g;
	va_list ap;
	va_start(ap, format);
	sr_fmt_gather_args(&g, sig, log->opt.max_record, &ap);
	va_end(ap);
	h.ts_ns = sr_log__clock_read(log);
	h.size = (uint32_t)sr_fmt_fit(&g, sizeof h, log->opt.max_record);
	h.value_bytes = g.value_bytes;
	if (__builtin_expect(g.truncated, 0))
		h.kind |= SR_REC_TRUNCATED;

	log->backend->emit(log, &h, &g);
	/* Logging never changes errno (a clock or a sink may have). */
	errno = saved_errno;
}
