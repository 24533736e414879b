// tf.ragged.boolean_mask as users call it, next to the memcpy roofline of the
// same value bytes and the per-row loops users would write.
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "common.hpp"

namespace {

// 2^20 rows of 0..127 int32 values (about 2^26 values in all) and a ragged mask
// with identical splits.
struct RaggedInputs {
  ragged::RaggedTensor<std::int32_t> data;
  ragged::RaggedTensor<bool> mask;
  std::int64_t nvalues = 0;
  explicit RaggedInputs(std::int64_t rows, int density = 500) {
    std::mt19937_64 rng(11);
    std::vector<std::int64_t> lengths(static_cast<std::size_t>(rows));
    for (auto& l : lengths) nvalues += (l = static_cast<std::int64_t>(rng() % 128));
    data = ragged::RaggedTensor<std::int32_t>::from_row_lengths(
        bench::make_values<std::int32_t>(ragged::Shape{nvalues}), lengths);
    mask = ragged::RaggedTensor<bool>::from_row_splits(bench::make_mask(nvalues, density),
                                                       data.row_splits());
  }
};

constexpr std::int64_t rows = std::int64_t{1} << 20;
RaggedInputs& inputs() {
  static RaggedInputs in(rows);
  return in;
}

void ragged_reused(benchmark::State& state) {
  auto& in = inputs();
  ragged::RaggedTensor<std::int32_t> out;
  ragged::boolean_mask_to(out, in.data, in.mask);  // untimed: allocates `out`
  for (auto _ : state) {
    ragged::boolean_mask_to(out, in.data, in.mask);
    benchmark::DoNotOptimize(out.flat_values().data());
  }
  bench::set_counters(state, in.nvalues, in.nvalues * 4);
}

void ragged_fresh(benchmark::State& state) {
  auto& in = inputs();
  (void)ragged::boolean_mask(in.data, in.mask);  // untimed, as dense_fresh's first call
  for (auto _ : state) {
    auto out = ragged::boolean_mask(in.data, in.mask);
    benchmark::DoNotOptimize(out.flat_values().data());
  }
  bench::set_counters(state, in.nvalues, in.nvalues * 4);
}

// What a user writes by hand: per row, a branch-free loop, then the row's split.
void baseline_ragged_per_row(benchmark::State& state) {
  auto& in = inputs();
  bench::big_vector<std::int32_t> values(static_cast<std::size_t>(in.nvalues) + 1);
  std::vector<std::int64_t> splits(static_cast<std::size_t>(rows) + 1);
  const auto s = in.data.row_splits().values();
  for (auto _ : state) {
    const std::int32_t* v = in.data.flat_values().data();
    const bool* m = in.mask.flat_values().data();
    std::int64_t j = 0;
    for (std::int64_t r = 0; r < rows; ++r) {
      for (auto i = s[static_cast<std::size_t>(r)]; i < s[static_cast<std::size_t>(r) + 1]; ++i) {
        values[static_cast<std::size_t>(j)] = v[i];
        j += m[i];
      }
      splits[static_cast<std::size_t>(r) + 1] = j;
    }
    benchmark::DoNotOptimize(values.data());
    benchmark::ClobberMemory();
  }
  bench::set_counters(state, in.nvalues, in.nvalues * 4);
}

// Row selection: a 1-D mask over the rows.
void ragged_rows(benchmark::State& state) {
  auto& in = inputs();
  const auto mask = bench::make_mask(rows, 500);
  ragged::RaggedTensor<std::int32_t> out;
  ragged::boolean_mask_to(out, in.data, mask);  // untimed: allocates `out`
  for (auto _ : state) {
    ragged::boolean_mask_to(out, in.data, mask);
    benchmark::DoNotOptimize(out.flat_values().data());
  }
  bench::set_counters(state, in.nvalues, in.nvalues * 4);
}

void baseline_rows_memcpy(benchmark::State& state) {
  auto& in = inputs();
  const auto mask = bench::make_mask(rows, 500);
  bench::big_vector<std::int32_t> values(static_cast<std::size_t>(in.nvalues) + 1);
  std::vector<std::int64_t> splits(static_cast<std::size_t>(rows) + 1);
  const auto s = in.data.row_splits().values();
  for (auto _ : state) {
    const std::int32_t* v = in.data.flat_values().data();
    std::int64_t j = 0, k = 0;
    for (std::int64_t r = 0; r < rows; ++r) {
      if (!mask.data()[r]) continue;
      const auto a = s[static_cast<std::size_t>(r)], len = s[static_cast<std::size_t>(r) + 1] - a;
      std::memcpy(values.data() + j, v + a, static_cast<std::size_t>(len) * 4);
      j += len;
      splits[static_cast<std::size_t>(++k)] = j;
    }
    benchmark::DoNotOptimize(values.data());
    benchmark::ClobberMemory();
  }
  bench::set_counters(state, in.nvalues, in.nvalues * 4);
}

// Dense [4096, 4096] int32 with a 2-D mask: a ragged [4096, None] result.
void dense_to_ragged(benchmark::State& state) {
  const auto n = state.range(0);
  const auto values = bench::make_values<std::int32_t>(ragged::Shape{n, n});
  const auto mask = bench::make_mask(n * n, 500).reshaped(ragged::Shape{n, n});
  ragged::RaggedTensor<std::int32_t> out;
  ragged::boolean_mask_to(out, values, mask);  // untimed: allocates `out`
  for (auto _ : state) {
    ragged::boolean_mask_to(out, values, mask);
    benchmark::DoNotOptimize(out.flat_values().data());
  }
  bench::set_counters(state, n * n, n * n * 4);
}

void memcpy_ragged_values(benchmark::State& state) {
  // The roofline for the ragged inputs: memcpy of their value bytes.
  state.SetLabel("ragged value bytes");
  auto& in = inputs();
  const auto bytes = static_cast<std::size_t>(in.nvalues) * 4;
  bench::big_vector<char> src(bytes, 1), dst(bytes, 2);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), bytes);
    benchmark::ClobberMemory();
  }
  bench::set_counters(state, in.nvalues * 4, in.nvalues * 4);
}

}  // namespace

BENCHMARK(memcpy_ragged_values)->UseRealTime();
BENCHMARK(bench::memcpy_roofline)->Arg(std::int64_t{4096} * 4096 * 4)->UseRealTime();
BENCHMARK(ragged_reused)->UseRealTime();
BENCHMARK(ragged_fresh)->UseRealTime();
BENCHMARK(baseline_ragged_per_row)->UseRealTime();
BENCHMARK(ragged_rows)->UseRealTime();
BENCHMARK(baseline_rows_memcpy)->UseRealTime();
BENCHMARK(dense_to_ragged)->Arg(4096)->UseRealTime();

BENCHMARK_MAIN();
