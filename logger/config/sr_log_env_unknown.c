/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sr_log_env_unknown.c: a name in the environment that looks like a
 * setting and is none is a typo that would otherwise be silently ignored:
 * it is refused or warned about, with the setting it was probably meant to
 * be ("did you mean SEQRING_LOG_MODE?").
 */
#include "sr_log_env_unknown_internal.h"
#include "sr_log_settings_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* Edit distance, for "did you mean". */
static size_t
distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 40 || lb > 40)
		return 99;
	size_t row[41];
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

/* True for what someone who wants to set levels may call the variable: LEVEL, LOG_LEVEL, ... */
static bool
names_levels(const char *suffix)
{
	static const char *const words[] = { "LEVEL", "LEVELS", "LVL", "LOG_LEVEL", "LOGLEVEL", "SPEC" };
	while (*suffix == '_')
		suffix++;
	for (size_t i = 0; i < sizeof words / sizeof *words; i++)
		if (strcasecmp(suffix, words[i]) == 0)
			return true;
	return false;
}

/*
 * The setting a name that is none was probably meant to be, or -1: the
 * same name in another case; SEQRING_LOG for a name of levels (LEVEL,
 * LOG_LEVEL); else the setting whose part after "SEQRING_LOG_" is at most
 * half as different (edit distance, any case; a word more counts as one
 * edit) as it is long.  The shared prefix is not compared, so that
 * SEQRING_LOG_FOO suggests nothing rather than SEQRING_LOG_MODE.
 */
static int
closest_setting(const char *name)
{
	for (int i = 0; i < SR_SET_COUNT; i++)
		if (strcasecmp(name, sr_log__env_name(i)) == 0)
			return i;  /* names are upper case */
	const char *suffix = name + 11;
	if (names_levels(suffix))
		return SR_SET_LEVEL;
	while (*suffix == '_')
		suffix++;
	char upper[64];
	size_t n = 0;
	for (; n < sizeof upper - 1 && suffix[n] != '\0'; n++)
		upper[n] = (char)toupper((unsigned char)suffix[n]);
	upper[n] = '\0';
	size_t best = 99;
	int best_i = -1;
	for (int i = 0; i < SR_SET_COUNT; i++) {
		if (i == SR_SET_LEVEL)
			continue;
		const char *cand = sr_log__env_name(i) + 12;
		size_t d = distance(upper, cand);
		size_t cl = strlen(cand);
		if (strncmp(upper, cand, cl) == 0 && upper[cl] == '_' && d > 1)
			d = 1;  /* a setting with a word more: BACKTRACE_SIZE for BACKTRACE */
		size_t longer = n > strlen(cand) ? n : strlen(cand);
		if (d < best && 2 * d <= longer) {
			best = d;
			best_i = i;
		}
	}
	return best_i;
}

/* " did you mean X?" for a name close to a setting, or "". */
static void
suggestion(const char *name, char *buf, size_t size)
{
	int i = closest_setting(name);
	if (i == SR_SET_LEVEL && strcasecmp(name, sr_log__env_name(i)) != 0)
		snprintf(buf, size, ": did you mean SEQRING_LOG? (it holds the levels: SEQRING_LOG=debug)");
	else if (i >= 0)
		snprintf(buf, size, ": did you mean %s?", sr_log__env_name(i));
	else
		buf[0] = '\0';
}

/*
 * SEQRING_LOG_<anything> is ours: an error.  Other names that begin
 * SEQRING_LOG in any case (SEQRING_LOGLEVEL, seqring_log_mode) may be
 * another program's, and get a warning on stderr.
 */
int
sr_log__env_check_unknown(sr_error *err)
{
	for (char **e = environ; e != NULL && *e != NULL; e++) {
		const char *entry = *e;
		if (strncasecmp(entry, "SEQRING_LOG", 11) != 0)
			continue;
		const char *eq = strchr(entry, '=');
		size_t n = eq != NULL ? (size_t)(eq - entry) : strlen(entry);
		char name[128];
		if (n >= sizeof name)
			n = sizeof name - 1;
		memcpy(name, entry, n);
		name[n] = '\0';
		bool known = false;
		for (int i = 0; i < SR_SET_COUNT && !known; i++)
			known = strcmp(name, sr_log__env_name(i)) == 0;
		if (known)
			continue;
		char hint[96];
		suggestion(name, hint, sizeof hint);
		bool ours = strncmp(name, "SEQRING_LOG", 11) == 0 && (name[11] == '\0' || name[11] == '_');
		if (ours)
			return sr_error_set(err, SR_EINVAL,
			    "%.64s is not a seqring setting%s (the SEQRING_LOG_* variables are listed in "
			    "sr_log_config.h and docs/configuration.md)", name, hint);
		fprintf(stderr, "seqring: warning: %.64s is not a seqring setting and is ignored%s%s\n", name,
		    hint[0] != '\0' ? hint : " (the settings are SEQRING_LOG and SEQRING_LOG_*",
		    hint[0] != '\0' ? "" : ", listed in docs/configuration.md)");
	}
	return SR_OK;
}
