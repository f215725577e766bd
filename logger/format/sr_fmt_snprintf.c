/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_fmt_snprintf.c: sr_fmt_snprintf, the codec end to end (parse, gather,
 * fit, write, render) on one thread, for tests and tools.  The top of the
 * format engine: nothing in it calls this file.
 */
#include "sr_fmt_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int
sr_fmt_vsnprintf(char *buf, size_t size, size_t max_record, const char *format, va_list ap)
{
	sr_fmt_sig sig;
	char tmp_small[512];
	char *tmp = tmp_small;
	size_t tmp_size = size + SR_FMT_LINE_RESERVE;
	if (tmp_size > sizeof tmp_small) {
		tmp = malloc(tmp_size);
		if (tmp == NULL)
			return -1;
	}
	sr_fmt_buf out = { tmp, 0, size > 0 ? size - 1 : 0, 0 };
	int rc;
	if (sr_fmt_parse(format, &sig, NULL, 0) != SR_FMT_OK) {
		sr_fmt_render_error(&out, format);
		rc = -1;
	} else {
		sr_fmt_gather *g = malloc(sizeof *g);
		unsigned char *rec = NULL;
		rc = -1;
		if (g != NULL) {
			va_list aq;
			va_copy(aq, ap);
			sr_fmt_gather_args(g, &sig, max_record, &aq);
			va_end(aq);
			size_t bytes = sr_fmt_fit(g, 0, max_record);
			rec = malloc(bytes + 1);
			if (rec != NULL) {
				sr_ring_writer w = sr_ring_writer_linear(rec);
				sr_fmt_write(g, &w);
				int e = errno;
				sr_fmt_render(&out, format, rec, g->value_bytes,
				    rec + g->value_bytes, g->string_bytes, e);
				rc = out.want > INT_MAX ? -1 : (int)out.want;
			}
		}
		free(rec);
		free(g);
	}
	if (size > 0) {
		memcpy(buf, tmp, out.len);
		buf[out.len] = '\0';
	}
	if (tmp != tmp_small)
		free(tmp);
	return rc;
}

int
sr_fmt_snprintf(char *buf, size_t size, size_t max_record, const char *format, ...)
{
	va_list ap;
	va_start(ap, format);
	int n = sr_fmt_vsnprintf(buf, size, max_record, format, ap);
	va_end(ap);
	return n;
}
