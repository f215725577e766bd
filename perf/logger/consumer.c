/* SPDX-License-Identifier: Apache-2.0 */
/*
 * consumer.c: perf/consumer, the records a count of the consumer's work is
 * taken over.  One thread logs N records of SR_INFO(cat, "%s", msg), msg
 * BYTES characters, into a thread ring that holds them all, through a
 * logger whose one sink, /dev/null, lays them out with LAYOUT (text, json,
 * or pattern: Log4j 2's default "%d %-5p [%t] %c - %m%n" in our pattern
 * language); then closes the logger.  It measures nothing itself:
 * perf/run_bench.sh runs it under
 *   valgrind --tool=callgrind --toggle-collect='sr_log__consume_record'
 * and divides the instructions by N, the consumer's instructions per line
 * from the record read to the line in the sink's buffer (the write(2) of a
 * batch, shared by its lines, is not counted).  Instructions are exact and
 * repeatable where time is not.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <seqring/sr_log.h>

static const char *const layouts[] = { "text", "json", "pattern", NULL };

int
main(int argc, char **argv)
{
	int64_t records = 20000, bytes = 100;
	int layout = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--records") == 0 && i + 1 < argc) {
			records = strtoll(argv[++i], NULL, 10);
		} else if (strcmp(argv[i], "--bytes") == 0 && i + 1 < argc) {
			bytes = strtoll(argv[++i], NULL, 10);
		} else if (strcmp(argv[i], "--layout") == 0 && i + 1 < argc) {
			const char *name = argv[++i];
			layout = -1;
			for (int k = 0; layouts[k] != NULL; k++)
				if (strcmp(name, layouts[k]) == 0)
					layout = k;
			if (layout < 0) {
				fprintf(stderr, "consumer: --layout '%.64s' is unknown: expected text, json or pattern\n", name);
				return 2;
			}
		} else {
			fprintf(stderr, "consumer: '%.64s' is not an option\n"
			    "usage: consumer [--records N] [--bytes B] [--layout text|json|pattern]\n", argv[i]);
			return 2;
		}
	}
	if (records < 1 || records > 1000000 || bytes < 1 || bytes > 4000) {
		fprintf(stderr, "consumer: --records %lld or --bytes %lld out of range: expected 1 to 1,000,000 and 1 to "
		    "4,000\n", (long long)records, (long long)bytes);
		return 2;
	}
	sr_log_config c;
	sr_log_config_default(&c);
	c.ignore_environment = true;
	sr_sink_config sink = sr_sink_file("/dev/null");
	c.sinks = &sink;
	c.sink_count = 1;
	c.max_message_bytes = 8192;
	/* Room for every record: the consumer never makes the caller wait, the count is the consumer's alone. */
	int64_t slots = 1024;
	while (slots < records * ((bytes + 96) / 64 + 1))
		slots *= 2;
	c.thread_ring_slots = slots;
	if (layout == 1)
		c.layout = SR_LOG_LAYOUT_JSON;
	if (layout == 2) {
		c.layout = SR_LOG_LAYOUT_PATTERN;
		c.pattern = "%d %-5p [%t] %c - %m%n";
	}
	sr_error err;
	sr_log *log = sr_log_open(&c, &err);
	if (log == NULL) {
		fprintf(stderr, "consumer: %s\n", err.message);
		return 1;
	}
	sr_category *cat = sr_log_category_get(log, "bench", &err);
	char *msg = malloc((size_t)bytes + 1);
	if (msg == NULL || cat == NULL)
		return 1;
	for (int64_t i = 0; i < bytes; i++)
		msg[i] = (char)('a' + i % 26);
	msg[bytes] = '\0';
	for (int64_t i = 0; i < records; i++)
		SR_INFO(cat, "%s", msg);
	sr_log_close(&log);
	free(msg);
	return 0;
}
