/* SPDX-License-Identifier: Apache-2.0 */
// micro_shim.cpp: registers the C micro-benchmark bodies (micro_bodies.c)
// with Google Benchmark and provides main() (Debian ships no benchmark_main).
// This is the only C++ file in perf/ and includes no ck or seqring header.
//
// Extra options, translated to Google Benchmark's own:
//   --quick      one short pass of every case (for CTest): --benchmark_min_time=0.001
//   --out FILE   JSON results: --benchmark_out=FILE --benchmark_out_format=json
// Every --benchmark_* option is passed through.

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "micro_bodies.h"

namespace {

void run_case(benchmark::State &state, const micro_case *c)
{
	void *ctx = c->setup(c->arg);
	if (ctx == nullptr) {
		std::string why = std::string("setup failed: ") + micro_last_error();
		state.SkipWithError(why.c_str());
		for (auto _ : state) {
		}
		return;
	}
	void (*body)(void *) = c->body;
	if (c->pause_every > 0) {
		// Untimed breaks (a logger's flush) every pause_every iterations.
		int64_t k = 0;
		for (auto _ : state) {
			body(ctx);
			if (++k == c->pause_every) {
				state.PauseTiming();
				c->pause(ctx);
				state.ResumeTiming();
				k = 0;
			}
		}
	} else {
		for (auto _ : state)
			body(ctx);
	}
	c->teardown(ctx);
	state.SetItemsProcessed(state.iterations());
	if (c->bytes_per_op > 0)
		state.SetBytesProcessed(state.iterations() * c->bytes_per_op);
}

} // namespace

int main(int argc, char **argv)
{
	std::vector<std::string> args;
	args.emplace_back(argv[0]);
	for (int i = 1; i < argc; i++) {
		if (std::strcmp(argv[i], "--quick") == 0) {
			args.emplace_back("--benchmark_min_time=0.001");
		} else if (std::strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
			args.emplace_back(std::string("--benchmark_out=") + argv[++i]);
			args.emplace_back("--benchmark_out_format=json");
		} else if (std::strcmp(argv[i], "--help") == 0) {
			std::printf("usage: micro [--quick] [--out FILE.json] [--benchmark_* options]\n");
			args.emplace_back("--help");
		} else {
			args.emplace_back(argv[i]);
		}
	}
	std::vector<char *> cargv;
	for (auto &a : args)
		cargv.push_back(&a[0]);
	int cargc = static_cast<int>(cargv.size());
	cargv.push_back(nullptr);

	int count = 0;
	const micro_case *cases = micro_cases(&count);
	for (int i = 0; i < count; i++)
		benchmark::RegisterBenchmark(cases[i].name, run_case, &cases[i]);

	benchmark::Initialize(&cargc, cargv.data());
	if (benchmark::ReportUnrecognizedArguments(cargc, cargv.data()))
		return 2;
	benchmark::RunSpecifiedBenchmarks();
	benchmark::Shutdown();
	return 0;
}
