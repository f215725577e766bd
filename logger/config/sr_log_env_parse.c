/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_env_parse.c: the forms an operator writes a number or a boolean
 * in, in a SEQRING_LOG* variable or a SEQRING_LOG_SINK option: the text to
 * its value, nothing else (the ranges are sr_log_settings.c's, the
 * messages their callers').
 */
#include "sr_log_env_parse_internal.h"
#include "sr_log_level_spec_internal.h"

#include <ctype.h>
#include <strings.h>

bool
sr_log__env_parse_size(const char *v, uint64_t *out)
{
	const char *p = v;
	while (sr_log__is_space(*p))
		p++;
	if (!isdigit((unsigned char)*p))
		return false;
	uint64_t x = 0;
	while (isdigit((unsigned char)*p)) {
		if (x > (UINT64_MAX - 9) / 10)
			return false;
		x = x * 10 + (uint64_t)(*p++ - '0');
	}
	uint64_t mult = 1;
	switch (*p) {
	case 'k': case 'K': mult = 1024; p++; break;
	case 'm': case 'M': mult = 1024 * 1024; p++; break;
	case 'g': case 'G': mult = 1024 * 1024 * 1024; p++; break;
	default: break;
	}
	if (mult > 1 && (*p == 'b' || *p == 'B'))
		p++;
	while (sr_log__is_space(*p))
		p++;
	if (*p != '\0' || (x != 0 && mult > UINT64_MAX / x))
		return false;
	*out = x * mult;
	return true;
}

bool
sr_log__env_parse_bool(const char *v, bool *out)
{
	static const char *const yes[] = { "1", "true", "yes", "on" };
	static const char *const no[] = { "0", "false", "no", "off" };
	for (int i = 0; i < 4; i++) {
		if (strcasecmp(v, yes[i]) == 0) {
			*out = true;
			return true;
		}
		if (strcasecmp(v, no[i]) == 0) {
			*out = false;
			return true;
		}
	}
	return false;
}
