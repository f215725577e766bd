/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_level_spec.c: level specs in RUST_LOG's form ("warn,net.http=info,db"),
 * parsed for config.level_spec, SEQRING_LOG and sr_log_set_level_spec.
 */
#include "sr_log_level_spec_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void
sr_log__spec_free(sr_log_spec *spec)
{
	for (size_t i = 0; i < spec->n; i++)
		free(spec->d[i].prefix);
	free(spec->d);
	memset(spec, 0, sizeof *spec);
}

int
sr_log__spec_parse(const char *spec, sr_log_spec *out, char *msg, size_t msg_size)
{
	memset(out, 0, sizeof *out);
	if (spec == NULL) {
		if (msg != NULL)
			snprintf(msg, msg_size, "the spec is NULL");
		return SR_EINVAL;
	}
	size_t cap = 0;
	const char *p = spec;
	for (;;) {
		const char *end = strchr(p, ',');
		if (end == NULL)
			end = p + strlen(p);
		/* One directive, trimmed. */
		const char *a = p, *b = end;
		while (a < b && sr_log__is_space(*a))
			a++;
		while (b > a && sr_log__is_space(b[-1]))
			b--;
		size_t n = (size_t)(b - a);
		if (n > 0) {
			const char *eq = memchr(a, '=', n);
			int level;
			if (eq == NULL && sr_log__level_of(a, n, &level)) {
				if (out->has_root) {
					if (msg != NULL)
						snprintf(msg, msg_size, "'%.*s': a second default level (the first is %s)",
						    (int)(n > 64 ? 64 : n), a, sr_log_level_name(out->root));
					return SR_EINVAL;
				}
				out->has_root = true;
				out->root = level;
			} else {
				const char *name_end = eq != NULL ? eq : b;
				while (name_end > a && sr_log__is_space(name_end[-1]))
					name_end--;
				size_t nlen = (size_t)(name_end - a);
				if (eq != NULL) {
					const char *lv = eq + 1;
					while (lv < b && sr_log__is_space(*lv))
						lv++;
					if (!sr_log__level_of(lv, (size_t)(b - lv), &level)) {
						if (msg != NULL)
							snprintf(msg, msg_size, "'%.*s': level '%.*s' is invalid: " SR_LOG_LEVELS_EXPECTED,
							    (int)(n > 64 ? 64 : n), a, (int)(b - lv > 32 ? 32 : b - lv), lv);
						return SR_EINVAL;
					}
				} else {
					/*
					 * RUST_LOG reads a bare name as "name=trace"; here it is an
					 * error, because the likeliest bare word is a misspelt level
					 * ("wran"), which would otherwise pass silently.
					 */
					if (msg != NULL)
						snprintf(msg, msg_size, "'%.*s' is not a level (" SR_LOG_LEVELS_EXPECTED
						    "; for a category, write '%.*s=trace')", (int)(n > 64 ? 64 : n), a,
						    (int)(n > 64 ? 64 : n), a);
					return SR_EINVAL;
				}
				char *name = strndup(a, nlen);
				if (name == NULL) {
					if (msg != NULL)
						snprintf(msg, msg_size, "out of memory");
					return SR_ENOMEM;
				}
				if (memchr(a, '/', n) != NULL || !sr_log__valid_category_name(name)) {
					if (msg != NULL) {
						if (nlen == 0)
							snprintf(msg, msg_size, "'%.*s': the category before '=' is empty",
							    (int)(n > 64 ? 64 : n), a);
						else if (memchr(a, '/', n) != NULL)
							snprintf(msg, msg_size, "'%.*s': '/' filters are not supported",
							    (int)(n > 64 ? 64 : n), a);
						else
							snprintf(msg, msg_size,
							    "'%.*s': '%.*s' is neither a level (trace, debug, info, warn, error, "
							    "fatal, off) nor a category name (dot-separated parts of printable "
							    "characters or UTF-8, without spaces, ',' or '=')",
							    (int)(n > 64 ? 64 : n), a, (int)(nlen > 64 ? 64 : nlen), a);
					}
					free(name);
					return SR_EINVAL;
				}
				for (size_t i = 0; i < out->n; i++) {
					if (strcmp(out->d[i].prefix, name) == 0) {
						if (msg != NULL)
							snprintf(msg, msg_size, "'%.*s': category '%.64s' appears twice",
							    (int)(n > 64 ? 64 : n), a, name);
						free(name);
						return SR_EINVAL;
					}
				}
				if (out->n == cap) {
					size_t c = cap ? cap * 2 : 8;
					sr_log_rule *grown = realloc(out->d, c * sizeof *grown);
					if (grown == NULL) {
						free(name);
						if (msg != NULL)
							snprintf(msg, msg_size, "out of memory");
						return SR_ENOMEM;
					}
					out->d = grown;
					cap = c;
				}
				out->d[out->n].prefix = name;
				out->d[out->n].level = level;
				out->d[out->n].source = SR_SRC_DEFAULT;
				out->n++;
			}
		}
		if (*end == '\0')
			break;
		p = end + 1;
	}
	return SR_OK;
}


const char *
sr_log__source_name(int source)
{
	static const char *const names[] = { "default", "code", "environment", "run time" };
	return source >= 0 && source < 4 ? names[source] : "?";
}

/*
 * The length of the UTF-8 character at s (n bytes left), or 0 when it is
 * not one (overlong, a surrogate, above U+10FFFF, cut) or is a C1 control.
 */
static size_t
utf8_char(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
	if (c < 0xc2 || c > 0xf4 || len > n)
		return 0;
	uint32_t cp = c & (0x3f >> (len - 1));
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	static const uint32_t least[5] = { 0, 0, 0x80, 0x800, 0x10000 };
	if (cp < least[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || cp <= 0x9f)
		return 0;
	return len;
}

bool
sr_log__valid_category_name(const char *name)
{
	size_t n = strlen(name);
	if (n == 0 || n > SR_LOG_MAX_CATEGORY_NAME || name[0] == '.' || name[n - 1] == '.')
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)name[i];
		if (c >= 0x80) {
			/* Any language's letters; not a control, not broken UTF-8. */
			size_t len = utf8_char((const unsigned char *)name + i, n - i);
			if (len == 0)
				return false;
			i += len - 1;
			continue;
		}
		if (c <= ' ' || c > '~' || c == ',' || c == '=')
			return false;
		if (c == '.' && name[i + 1] == '.')
			return false;
	}
	return true;
}
