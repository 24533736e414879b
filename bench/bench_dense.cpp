// tf.boolean_mask as users call it: a fresh result each call, or written into a
// reused one; next to the memcpy rooflines and the loops users would write.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "common.hpp"

namespace {

// tf.boolean_mask(values, mask, 0) into a reused result, random values and mask of density 0.5.
template <class T>
void dense_masked_reused(benchmark::State& state, ragged::Shape shape, ragged::Shape mask_shape) {
  const auto n = shape.num_elements();
  const auto values = bench::make_values<T>(std::move(shape));
  const auto mask =
      bench::make_mask(mask_shape.num_elements(), 500).reshaped(std::move(mask_shape));
  ragged::Tensor<T> out;
  ragged::boolean_mask_to(out, values, mask, 0);  // untimed: allocates `out`
  for (auto _ : state) {
    ragged::boolean_mask_to(out, values, mask, 0);
    benchmark::DoNotOptimize(out.data());
  }
  bench::set_counters(state, n, n * static_cast<std::int64_t>(sizeof(T)));
}

// 1-D int32, a fresh result per call (as NumPy's a[mask] or Polars' filter).
void dense_fresh(benchmark::State& state) {
  const auto n = state.range(0);
  const auto values = bench::make_values<std::int32_t>(ragged::Shape{n});
  const auto mask = bench::make_mask(n, static_cast<int>(state.range(1)));
  // Untimed: the process's first result faults its pages in from the OS (on
  // this kind of VM, several times the masking); later fresh results reuse
  // the block the library keeps (detail/buffer.hpp), as a loop of calls does.
  (void)ragged::boolean_mask(values, mask, 0);
  for (auto _ : state) {
    auto out = ragged::boolean_mask(values, mask, 0);
    benchmark::DoNotOptimize(out.data());
  }
  bench::set_counters(state, n, n * 4);
}

// The same into a reused result: no allocation in the loop.
void dense_reused(benchmark::State& state) {
  const auto n = state.range(0);
  dense_masked_reused<std::int32_t>(state, ragged::Shape{n}, ragged::Shape{n});
}

void dense_reused_parallel(benchmark::State& state) {
  const auto n = state.range(0);
  const auto values = bench::make_values<std::int32_t>(ragged::Shape{n});
  const auto mask = bench::make_mask(n, 500);
  ragged::Tensor<std::int32_t> out;
  const ragged::kernel::Parallel parallel{static_cast<int>(state.range(1))};
  ragged::boolean_mask_to(out, values, mask, 0, parallel);  // untimed: allocates `out`
  for (auto _ : state) {
    ragged::boolean_mask_to(out, values, mask, 0, parallel);
    benchmark::DoNotOptimize(out.data());
  }
  bench::set_counters(state, n, n * 4);
}

// [4096, 4096] int32 with a 2-D mask, flattened.
void dense_2d_mask(benchmark::State& state) {
  const auto rows = state.range(0);
  dense_masked_reused<std::int32_t>(state, ragged::Shape{rows, rows}, ragged::Shape{rows, rows});
}

// [2^20, 64] float, a 1-D mask on axis 0: row selection.
void dense_rows(benchmark::State& state) {
  const auto rows = state.range(0), inner = state.range(1);
  dense_masked_reused<float>(state, ragged::Shape{rows, inner}, ragged::Shape{rows});
}

// std::string: a fresh result against std::copy_if into a reserved vector.
void dense_strings(benchmark::State& state) {
  const auto n = state.range(0);
  const auto values = bench::make_values<std::string>(ragged::Shape{n});
  const auto mask = bench::make_mask(n, 500);
  for (auto _ : state) {
    auto out = ragged::boolean_mask(values, mask, 0);
    benchmark::DoNotOptimize(out.data());
  }
  bench::set_counters(state, n, n * static_cast<std::int64_t>(sizeof(std::string)));
}

void baseline_strings_copy_if(benchmark::State& state) {
  const auto n = state.range(0);
  const auto values = bench::make_values<std::string>(ragged::Shape{n});
  const auto mask = bench::make_mask(n, 500);
  for (auto _ : state) {
    std::vector<std::string> out;
    out.reserve(static_cast<std::size_t>(n));
    const std::string* v = values.data();
    const bool* m = mask.data();
    std::copy_if(v, v + n, std::back_inserter(out),
                 [&](const std::string& s) { return m[&s - v]; });
    benchmark::DoNotOptimize(out.data());
  }
  bench::set_counters(state, n, n * static_cast<std::int64_t>(sizeof(std::string)));
}

constexpr std::int64_t big = std::int64_t{1} << 26;

}  // namespace

BENCHMARK(bench::memcpy_roofline)->Arg(big * 4)->Arg(std::int64_t{4096} * 4096 * 4)->UseRealTime();
BENCHMARK(bench::malloc_memcpy_roofline)->Arg(big * 4)->UseRealTime();
BENCHMARK(dense_fresh)->Args({big, 500})->UseRealTime();
BENCHMARK(dense_reused)->Args({big, 500})->UseRealTime();
BENCHMARK(dense_reused_parallel)->Args({big, 2})->UseRealTime();
BENCHMARK(dense_2d_mask)->Arg(4096)->UseRealTime();
BENCHMARK(dense_rows)->Args({std::int64_t{1} << 20, 64})->UseRealTime();
BENCHMARK(dense_strings)->Arg(std::int64_t{1} << 20)->UseRealTime();
BENCHMARK(baseline_strings_copy_if)->Arg(std::int64_t{1} << 20)->UseRealTime();

BENCHMARK_MAIN();
