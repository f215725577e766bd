/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_console.c: a console people read.  Descriptor sinks colour the
 * level word of the text and pattern layouts with ANSI escapes when the
 * descriptor is a terminal (SR_LOG_COLOR_AUTO, the default, which also
 * respects NO_COLOR: set and not empty, it turns colour off, see
 * no-color.org), always (SR_LOG_COLOR_ALWAYS: for `less -R`), or never.
 * Files, JSON and the message layout are never coloured: they are read by
 * programs, or have no level to colour.
 */
#include "sr_log_console_internal.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

bool
sr_log__console_colors(int fd, int color)
{
	if (color == SR_LOG_COLOR_ALWAYS)
		return true;
	if (color == SR_LOG_COLOR_NEVER)
		return false;
	const char *no = getenv("NO_COLOR");
	return (no == NULL || no[0] == '\0') && isatty(fd) == 1;
}

/* SGR sequences by level: trace grey, debug cyan, info green, warn yellow, error red, fatal bold red. */
static const char *const sgr[] = { "\033[90m", "\033[36m", "\033[32m", "\033[33m", "\033[31m", "\033[1;31m" };
static const char reset[] = "\033[0m";

size_t
sr_log__console_color_line(int level, const char *line, size_t len, char *out, size_t room)
{
	if (level < 0 || level > SR_LOG_FATAL || len + SR_LOG_COLOR_EXTRA > room)
		return 0;
	/* The level word, where the text layout and most patterns put it: near the start. */
	const char *word = sr_log__level_upper(level);
	size_t nlen = strlen(word);
	size_t scan = len < 96 ? len : 96;
	const char *at = NULL;
	for (size_t i = 0; i + nlen <= scan && at == NULL; i++) {
		bool starts = i == 0 || line[i - 1] == ' ' || line[i - 1] == '[';
		bool ends = i + nlen == len || line[i + nlen] == ' ' || line[i + nlen] == ']' || line[i + nlen] == '|';
		if (starts && ends && memcmp(line + i, word, nlen) == 0)
			at = line + i;
	}
	if (at == NULL)
		return 0;
	size_t head = (size_t)(at - line), c = strlen(sgr[level]);
	char *p = out;
	memcpy(p, line, head);
	p += head;
	memcpy(p, sgr[level], c);
	p += c;
	memcpy(p, at, nlen);
	p += nlen;
	memcpy(p, reset, sizeof reset - 1);
	p += sizeof reset - 1;
	memcpy(p, at + nlen, len - head - nlen);
	p += len - head - nlen;
	return (size_t)(p - out);
}
