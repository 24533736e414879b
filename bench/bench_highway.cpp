// The kernel next to Google Highway's compaction loops on the same data and
// into existing outputs, with the memcpy roofline of the same bytes: what
// "faster than hand-written SIMD" is measured against. Built when Highway's
// headers are found.
#include <cstdint>
#include <memory>
#include <vector>

#include "common.hpp"
#include "highway_loops.hpp"

namespace {

struct Inputs {
  std::vector<std::int32_t> values;
  ragged::Tensor<bool> mask;
  std::vector<std::int32_t> out;
  Inputs(std::int64_t n, int density_per_mille)
      : values(static_cast<std::size_t>(n)),
        mask(bench::make_mask(n, density_per_mille)),
        out(static_cast<std::size_t>(n) + 64),  // slack for Highway's whole-vector stores
        density(density_per_mille) {
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<std::int32_t>(i);
  }
  int density = 0;
  const std::uint8_t* bytes() const { return reinterpret_cast<const std::uint8_t*>(mask.data()); }
};

Inputs& inputs(std::int64_t n, int density) {
  static std::vector<std::unique_ptr<Inputs>> cache;
  for (auto& in : cache)
    if (in->mask.size() == n && in->density == density) return *in;
  cache.push_back(std::make_unique<Inputs>(n, density));
  return *cache.back();
}

template <class Loop>
void run(benchmark::State& state, Loop loop) {
  const auto n = state.range(0);
  auto& in = inputs(n, static_cast<int>(state.range(1)));
  loop(in);  // untimed: faults the output in
  for (auto _ : state) benchmark::DoNotOptimize(loop(in));
  bench::set_counters(state, n, n * 4);
}

void ours(benchmark::State& state) {
  run(state, [](Inputs& in) {
    return ragged::kernel::compact(in.values.data(), in.mask.data(),
                                   static_cast<std::int64_t>(in.values.size()), in.out.data());
  });
}
// One of Highway's loops; `lanes` reports its target's int32 lanes per vector
// (16 for AVX-512, 8 for AVX2), so that a fallback to a narrower target shows.
template <auto Loop, auto Lanes>
void highway(benchmark::State& state) {
  run(state, [](Inputs& in) {
    return Loop(in.values.data(), in.bytes(), in.values.size(), in.out.data());
  });
  state.counters["lanes"] = static_cast<double>(Lanes());
}
void highway_compress_storeu(benchmark::State& state) {
  highway<&bench::hwy_native::hwy_compress_storeu, &bench::hwy_native::hwy_lanes>(state);
}
void highway_compress_store(benchmark::State& state) {
  highway<&bench::hwy_native::hwy_compress_store, &bench::hwy_native::hwy_lanes>(state);
}

// The kernel forced to AVX2, against Highway compiled for AVX2.
void ours_avx2(benchmark::State& state) {
  const auto saved = ragged::kernel::active_isa();
  if (!ragged::kernel::force_isa(ragged::kernel::Isa::avx2)) {
    state.SkipWithError("no AVX2");
    return;
  }
  ours(state);
  ragged::kernel::force_isa(saved);
}
void highway_avx2_compress_storeu(benchmark::State& state) {
  highway<&bench::hwy_avx2::hwy_compress_storeu, &bench::hwy_avx2::hwy_lanes>(state);
}
void highway_avx2_compress_store(benchmark::State& state) {
  highway<&bench::hwy_avx2::hwy_compress_store, &bench::hwy_avx2::hwy_lanes>(state);
}

// 1-D int32: 2^26 at densities 0.5, 0.05, 0.95 and clustered, and 2^14 in cache.
void workloads(benchmark::internal::Benchmark* b) {
  for (int density : {500, 50, 950, -1}) b->Args({std::int64_t{1} << 26, density});
  b->Args({std::int64_t{1} << 14, 500});
  b->UseRealTime();
}

}  // namespace

BENCHMARK(bench::memcpy_roofline)
    ->Arg(std::int64_t{4} << 26)
    ->Arg(std::int64_t{4} << 14)
    ->UseRealTime();
BENCHMARK(ours)->Apply(workloads);
BENCHMARK(highway_compress_storeu)->Apply(workloads);
BENCHMARK(highway_compress_store)->Apply(workloads);
BENCHMARK(ours_avx2)->Apply(workloads);
BENCHMARK(highway_avx2_compress_storeu)->Apply(workloads);
BENCHMARK(highway_avx2_compress_store)->Apply(workloads);
BENCHMARK_MAIN();
