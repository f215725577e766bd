/* SPDX-License-Identifier: Apache-2.0 */
/*
 * consumer.c: perf/consumer, the records a count of the consumer's work is
 * taken over.  One thread logs N records of SR_INFO(cat, "%s", msg), msg
 * BYTES characters, into a thread ring that holds them all, through a
 * logger whose one sink, /dev/null, lays them out with LAYOUT (text, json,
 * or pattern: Log4j 2's default "%d %-5p [%t] %c - %m%n" in our pattern
 * language; or ctf: a ctf: sink's binary trace, in a directory made under
 * /tmp and removed after); then closes the logger.  --call three logs
 * SR_INFO(cat, "x=%d y=%f s=%s", i, i * 0.5, s) with a 16-character s
 * instead (BYTES is then unused).  It measures nothing itself:
 * perf/run_bench.sh runs it under
 *   valgrind --tool=callgrind --toggle-collect='sr_log__consume_record'
 * and divides the instructions by N, the consumer's instructions per line
 * from the record's header, once read, to the line in the sink's buffer; and again
 * with --toggle-collect='run_pass', the whole pass: the record taken from its
 * ring as well, the merge of the rings, the batch's end and the sink's write
 * (the kernel's work in write(2) is not counted).  Instructions are exact and
 * repeatable where time is not.
 */
#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <seqring/sr_log.h>

static const char *const layouts[] = { "text", "json", "pattern", "ctf", NULL };
#define USAGE "usage: consumer [--records N] [--bytes B] [--layout text|json|pattern|ctf] [--call message|three]\n"

/* Removes a trace directory and its files. */
static void
remove_trace(const char *dir)
{
	DIR *d = opendir(dir);
	if (d != NULL) {
		for (struct dirent *e; (e = readdir(d)) != NULL;) {
			if (e->d_name[0] == '.')
				continue;
			char path[PATH_MAX + 300];
			snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
			unlink(path);
		}
		closedir(d);
	}
	rmdir(dir);
}

int
main(int argc, char **argv)
{
	int64_t records = 20000, bytes = 100;
	int layout = 0;
	bool three = false;
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
				fprintf(stderr, "consumer: --layout '%.64s' is unknown: expected text, json, pattern or ctf\n",
				    name);
				return 2;
			}
		} else if (strcmp(argv[i], "--call") == 0 && i + 1 < argc &&
		    (strcmp(argv[i + 1], "message") == 0 || strcmp(argv[i + 1], "three") == 0)) {
			three = strcmp(argv[++i], "three") == 0;
		} else {
			fprintf(stderr, "consumer: '%.64s' is not an option (or lacks its value)\n" USAGE, argv[i]);
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
	char trace[] = "/tmp/seqring-consumer-XXXXXX";
	if (layout == 3) {
		if (mkdtemp(trace) == NULL) {
			perror("consumer: mkdtemp");
			return 1;
		}
		sink = sr_sink_ctf(trace);
	}
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
	for (int64_t i = 0; i < records; i++) {
		if (three)
			SR_INFO(cat, "x=%d y=%f s=%s", (int)i, (double)i * 0.5, "sixteen-chars-ab");
		else
			SR_INFO(cat, "%s", msg);
	}
	sr_log_close(&log);
	if (layout == 3)
		remove_trace(trace);
	free(msg);
	return 0;
}
