// The path of a user whose data is already in std::vector values, splits and
// mask bytes: copied into owning tensors first, or masked where it lies
// through views, next to the kernel alone on the same bytes. Into a reused
// output; the view path should be within a few percent of the kernel.
#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "common.hpp"

namespace {

constexpr std::int64_t n = std::int64_t{1} << 26;

struct UserData {
  std::vector<std::int32_t> values;
  std::vector<std::uint8_t> mask;  // NumPy-style bytes, 0 or 1
  std::vector<std::int64_t> splits;
  UserData() : values(static_cast<std::size_t>(n)), mask(static_cast<std::size_t>(n)) {
    std::mt19937_64 rng(3);
    for (auto& v : values) v = static_cast<std::int32_t>(rng() % 1000);
    for (auto& m : mask) m = static_cast<std::uint8_t>(rng() & 1);
    splits.push_back(0);
    while (splits.back() < n)
      splits.push_back(
          std::min<std::int64_t>(n, splits.back() + static_cast<std::int64_t>(rng() % 128)));
  }
};

UserData& user() {
  static UserData d;
  return d;
}

// The copy-in path: owning tensors made from the vectors on each call.
void views_dense_copy_in(benchmark::State& state) {
  auto& u = user();
  ragged::Tensor<std::int32_t> out;
  for (auto _ : state) {
    const ragged::Tensor<std::int32_t> values(ragged::Shape{n}, u.values);
    auto mask = ragged::Tensor<bool>::for_overwrite(ragged::Shape{n});
    std::memcpy(mask.data(), u.mask.data(), u.mask.size());
    ragged::boolean_mask_to(out, values, mask, 0);
    benchmark::DoNotOptimize(out.data());
  }
  bench::set_counters(state, n, n * 4);
}

void views_dense_view(benchmark::State& state) {
  auto& u = user();
  ragged::Tensor<std::int32_t> out;
  const ragged::TensorView<const std::int32_t> values{std::span<const std::int32_t>(u.values)};
  ragged::boolean_mask_to(out, values, ragged::byte_mask(u.mask), 0);  // untimed: allocates `out`
  for (auto _ : state) {
    ragged::boolean_mask_to(out, values, ragged::byte_mask(u.mask), 0);
    benchmark::DoNotOptimize(out.data());
  }
  bench::set_counters(state, n, n * 4);
}

// Straight into the caller's own output vector.
void views_dense_into_caller_memory(benchmark::State& state) {
  auto& u = user();
  std::vector<std::int32_t> dest(u.values.size());
  const ragged::TensorView<const std::int32_t> values{std::span<const std::int32_t>(u.values)};
  for (auto _ : state) {
    auto written = ragged::boolean_mask_to(ragged::TensorView<std::int32_t>{std::span(dest)},
                                           values, ragged::byte_mask(u.mask), 0);
    benchmark::DoNotOptimize(written.data());
  }
  bench::set_counters(state, n, n * 4);
}

void views_dense_kernel_alone(benchmark::State& state) {
  auto& u = user();
  std::vector<std::int32_t> dest(u.values.size());
  for (auto _ : state) {
    benchmark::DoNotOptimize(ragged::kernel::compact(
        u.values.data(), reinterpret_cast<const bool*>(u.mask.data()), n, dest.data()));
  }
  bench::set_counters(state, n, n * 4);
}

void views_ragged_copy_in(benchmark::State& state) {
  auto& u = user();
  ragged::RaggedTensor<std::int32_t> out;
  for (auto _ : state) {
    const auto data = ragged::RaggedTensor<std::int32_t>::from_row_splits(
        ragged::Tensor<std::int32_t>(ragged::Shape{n}, u.values), u.splits);
    auto m = ragged::Tensor<bool>::for_overwrite(ragged::Shape{n});
    std::memcpy(m.data(), u.mask.data(), u.mask.size());
    const auto mask = ragged::RaggedTensor<bool>::from_row_splits(std::move(m), u.splits);
    ragged::boolean_mask_to(out, data, mask);
    benchmark::DoNotOptimize(out.flat_values().data());
  }
  bench::set_counters(state, n, n * 4);
}

// Views made (and validated) on every call, as a user handed new buffers
// would, over `values` and `mask` bytes with the user's splits.
void ragged_view_loop(benchmark::State& state, std::span<const std::int32_t> values,
                      std::span<const std::uint8_t> mask) {
  const auto& splits = user().splits;
  ragged::RaggedTensor<std::int32_t> out;
  const auto run = [&] {
    const auto data = ragged::RaggedTensorView<const std::int32_t>::from_row_splits(
        ragged::TensorView<const std::int32_t>{values}, splits);
    const auto m =
        ragged::RaggedTensorView<const bool>::from_row_splits(ragged::byte_mask(mask), splits);
    ragged::boolean_mask_to(out, data, m);
  };
  run();  // untimed: allocates `out`
  for (auto _ : state) {
    run();
    benchmark::DoNotOptimize(out.flat_values().data());
  }
  bench::set_counters(state, n, n * 4);
}

void views_ragged_view(benchmark::State& state) {
  ragged_view_loop(state, user().values, user().mask);
}

// The same over memory in the library's own (huge-page) buffers: the
// difference between the two is the page size of the caller's memory, not
// the library.
void views_ragged_view_of_owned(benchmark::State& state) {
  const ragged::Tensor<std::int32_t> values(ragged::Shape{n}, user().values);
  const ragged::Tensor<std::uint8_t> bytes(ragged::Shape{n}, user().mask);
  ragged_view_loop(state, values.values(), bytes.values());
}

// The owning operation on tensors that already exist: what the view path must match.
void views_ragged_owning(benchmark::State& state) {
  auto& u = user();
  const auto data = ragged::RaggedTensor<std::int32_t>::from_row_splits(
      ragged::Tensor<std::int32_t>(ragged::Shape{n}, u.values), u.splits);
  auto m = ragged::Tensor<bool>::for_overwrite(ragged::Shape{n});
  std::memcpy(m.data(), u.mask.data(), u.mask.size());
  const auto mask = ragged::RaggedTensor<bool>::from_row_splits(std::move(m), u.splits);
  ragged::RaggedTensor<std::int32_t> out;
  ragged::boolean_mask_to(out, data, mask);
  for (auto _ : state) {
    ragged::boolean_mask_to(out, data, mask);
    benchmark::DoNotOptimize(out.flat_values().data());
  }
  bench::set_counters(state, n, n * 4);
}

}  // namespace

BENCHMARK(bench::memcpy_roofline)->Arg(n * 4)->UseRealTime();
BENCHMARK(views_dense_copy_in)->UseRealTime();
BENCHMARK(views_dense_view)->UseRealTime();
BENCHMARK(views_dense_into_caller_memory)->UseRealTime();
BENCHMARK(views_dense_kernel_alone)->UseRealTime();
BENCHMARK(views_ragged_copy_in)->UseRealTime();
BENCHMARK(views_ragged_view)->UseRealTime();
BENCHMARK(views_ragged_view_of_owned)->UseRealTime();
BENCHMARK(views_ragged_owning)->UseRealTime();
BENCHMARK_MAIN();
