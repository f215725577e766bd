/*
 * log_config.c: a test's logger configuration: the environment cleared, one
 * sink.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log_support.h"

void
tl_clear_env(void)
{
	for (;;) {
		char name[256] = "";
		for (char **e = environ; *e != NULL; e++) {
			if (strncmp(*e, "SEQRING_LOG", 11) == 0) {
				const char *eq = strchr(*e, '=');
				size_t n = eq != NULL ? (size_t)(eq - *e) : strlen(*e);
				if (n < sizeof name) {
					memcpy(name, *e, n);
					name[n] = '\0';
				}
				break;
			}
		}
		if (name[0] == '\0')
			return;
		unsetenv(name);
	}
}

void
tl_config_sink(sr_log_config *c, sr_sink_config *sink)
{
	sr_log_config_default(c);
	c->sinks = sink;
	c->sink_count = 1;
}
