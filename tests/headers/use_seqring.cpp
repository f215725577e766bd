// SPDX-License-Identifier: Apache-2.0
// use_seqring.cpp: seqring from C++ (built as C++11 and C++20 by run_programs.sh, with
// -Wall -Wextra -Wpedantic -Werror and no -D flag). The checks both languages share are in
// use_seqring_common.h: the argument kinds, the ring with a processor, the logger in three
// modes. C++ adds a std::string's c_str(), nullptr, two producer threads on a multi-producer
// ring, and a log call from a second thread and from a lambda. Usage: use_seqring OUTPUT_PREFIX
#include <string>
#include <thread>

#define USE_PROGRAM "use_seqring.cpp (C++" USE_STD ")"
#if __cplusplus >= 202002L
#define USE_STD "20"
#elif __cplusplus >= 201703L
#define USE_STD "17"
#elif __cplusplus >= 201402L
#define USE_STD "14"
#else
#define USE_STD "11"
#endif

#include "use_seqring_common.h"

static_assert(SR_LOG__KIND(nullptr) == SR_FMT_ARG_PTR, "nullptr is a pointer argument");

namespace {

// Two threads claim on one multi-producer ring: the inline claim's CAS, compiled as C++.
void check_ring_two_producers()
{
	sr_error err;
	sr_error_clear(&err);
	sr_ring *ring = sr_ring_create(USE_RING_SLOTS, 64, nullptr, nullptr, &err);
	sr_sequencer_config sc;
	sr_sequencer_config_default(&sc, USE_RING_SLOTS, SR_PRODUCER_MULTI);
	sr_sequencer *seq = ring != nullptr ? sr_sequencer_create(&sc, &err) : nullptr;
	if (seq == nullptr)
		use_fail("two producers: %s", err.message);
	struct per_producer {
		int64_t next[2];
		int64_t bad;
	} seen = { { 0, 0 }, -1 };
	sr_processor_config pc{};
	pc.ring = ring;
	pc.sequencer = seq;
	pc.handler.ctx = &seen;
	// Each event: (producer << 32) | its own count, so each producer's order can be checked.
	pc.handler.on_event = [](void *ctx, void *slot, int64_t sequence, bool) -> int {
		per_producer *s = static_cast<per_producer *>(ctx);
		int64_t v = static_cast<use_event *>(slot)->value;
		int producer = static_cast<int>(v >> 32);
		if (s->bad < 0 && (producer < 0 || producer > 1 || (v & 0xffffffff) != s->next[producer]))
			s->bad = sequence;
		else if (s->bad < 0)
			s->next[producer]++;
		return 0;
	};
	sr_processor *p = sr_processor_create(&pc, &err);
	if (p == nullptr || sr_sequencer_add_gating(seq, sr_processor_sequence(p)) != SR_OK ||
	    sr_processor_start(p, &err) != SR_OK)
		use_fail("two producers: %s", err.message);
	auto produce = [seq, ring](int64_t producer) {
		for (int64_t k = 0; k < USE_RING_EVENTS; k++) {
			int64_t s;
			if (sr_sequencer_claim(seq, &s) != SR_OK)
				use_fail("two producers: sr_sequencer_claim failed");
			static_cast<use_event *>(sr_ring_slot(ring, s))->value = producer << 32 | k;
			sr_sequencer_publish(seq, s);
		}
	};
	std::thread first(produce, 0), second(produce, 1);
	first.join();
	second.join();
	if (sr_processor_drain_and_halt(p) != SR_OK || sr_processor_join(p) != SR_OK)
		use_fail("two producers: drain and join failed");
	if (seen.bad >= 0 || seen.next[0] != USE_RING_EVENTS || seen.next[1] != USE_RING_EVENTS)
		use_fail("two producers: sequence %lld out of order; counts %lld and %lld, expected %d",
		    static_cast<long long>(seen.bad), static_cast<long long>(seen.next[0]),
		    static_cast<long long>(seen.next[1]), USE_RING_EVENTS);
	sr_processor_destroy(p);
	sr_sequencer_destroy(seq);
	sr_ring_destroy(ring);
}

// What only C++ has: std::string, nullptr, bool literals, a lambda, another thread.
void log_cxx(sr_category *cat, int round)
{
	const std::string name = "a std::string of round " + std::to_string(round);
	SR_INFO(cat, "int %d, double %.2f, const char* %s, std::string %s", 7, 0.25, "literal",
	    name.c_str());
	use_expect("int 7, double 0.25, const char* literal, std::string %s", name.c_str());
	USE_LOG(cat, "%d %d %p %c", true, false, static_cast<const void *>(nullptr), 'x');
	auto in_lambda = [cat](const std::string &s) { USE_LOG(cat, "in a lambda: %s", s.c_str()); };
	in_lambda(name);
}

void check_log(const std::string &prefix, sr_log_mode mode, sr_log_producer producer,
    const char *what)
{
	const std::string path = prefix + "." + what + ".log";
	sr_log *log = use_open(path.c_str(), mode, producer);
	sr_category *cat = sr_log_category(log, "cxx");
	// Several rounds: the first call through each site parses it, later ones (per-thread
	// ring) copy inline.
	for (int round = 0; round < 3; round++) {
		use_log_common(cat, round);
		log_cxx(cat, round);
	}
	// Another thread's call, after this one's are written (per-thread rings are merged by
	// timestamp, and two CPUs' counters may disagree by more than a thread start takes).
	if (sr_log_flush(log) != SR_OK)
		use_fail("%s: sr_log_flush failed", what);
	std::thread other([cat] { USE_LOG(cat, "from another thread: %s", "yes"); });
	other.join();
	use_close_and_check(&log, path.c_str(), what);
}

} // namespace

int main(int argc, char **argv)
{
	if (argc != 2)
		use_fail("usage: use_seqring OUTPUT_PREFIX");
	use_check_ring(SR_PRODUCER_SINGLE);
	use_check_ring(SR_PRODUCER_MULTI);
	check_ring_two_producers();
	check_log(argv[1], SR_LOG_MODE_RING, SR_LOG_PRODUCER_SHARED, "shared");
	check_log(argv[1], SR_LOG_MODE_RING, SR_LOG_PRODUCER_PER_THREAD, "per_thread");
	check_log(argv[1], SR_LOG_MODE_SYNC, SR_LOG_PRODUCER_SHARED, "sync");
	std::printf("%s: ring, processor and logger ok\n", USE_PROGRAM);
	return 0;
}
