// The kernel and both operations next to Google Highway's compaction loops on
// the same data and into existing outputs, with the memcpy roofline of the
// same value bytes: what "faster than hand-written SIMD" is measured against.
// Built when Highway's headers are found. Every workload runs as ours, as
// each Highway loop (at the native level), and both again forced to AVX2;
// report.py prints ours / best Highway per workload.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common.hpp"
#include "highway_loops.hpp"

namespace {

// 1-D values and a mask, and an output with slack for Highway's whole-vector stores.
template <class T>
struct Flat {
  bench::big_vector<T> values;
  ragged::Tensor<bool> mask;
  bench::big_vector<T> out;
  std::size_t kept = 0;
  Flat(std::int64_t n, int density_per_mille)
      : values(static_cast<std::size_t>(n)),
        mask(bench::make_mask(n, density_per_mille)),
        out(static_cast<std::size_t>(n) + 64) {
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<T>(i % 100);
    kept = static_cast<std::size_t>(std::count(mask.data(), mask.data() + n, true));
  }
  [[nodiscard]] const std::uint8_t* bytes() const {
    return reinterpret_cast<const std::uint8_t*>(mask.data());
  }
  [[nodiscard]] std::size_t size() const { return values.size(); }
};

// Rows: values, a mask of the same positions, and the rows' splits.
struct Rows {
  ragged::Tensor<std::int32_t> values;
  ragged::Tensor<bool> mask;
  std::vector<std::int64_t> splits;
  bench::big_vector<std::int32_t> out;
  bench::big_vector<std::int64_t> out_splits;
  std::size_t kept = 0;
  [[nodiscard]] std::size_t nrows() const { return splits.size() - 1; }
  [[nodiscard]] const std::uint8_t* bytes() const {
    return reinterpret_cast<const std::uint8_t*>(mask.data());
  }
  void make_room() {
    out.resize(static_cast<std::size_t>(values.size()) + 64);
    out_splits.resize(splits.size());
    kept = static_cast<std::size_t>(std::count(mask.data(), mask.data() + mask.size(), true));
  }
};

// 2^20 rows of 0..127 int32 values (about 2^26 in all), as bench_ragged's.
Rows& ragged_rows() {
  static Rows rows = [] {
    Rows r;
    std::mt19937_64 rng(11);
    r.splits.push_back(0);
    for (std::int64_t i = 0; i < (std::int64_t{1} << 20); ++i)
      r.splits.push_back(r.splits.back() + static_cast<std::int64_t>(rng() % 128));
    r.values = bench::make_values<std::int32_t>(ragged::Shape{r.splits.back()});
    r.mask = bench::make_mask(r.splits.back(), 500);
    r.make_room();
    return r;
  }();
  return rows;
}

// [4096, 4096] int32 and a 2-D mask: its rows are uniform splits.
constexpr std::int64_t side = 4096;
Rows& dense_rows() {
  static Rows rows = [] {
    Rows r;
    r.values = bench::make_values<std::int32_t>(ragged::Shape{side, side});
    r.mask = bench::make_mask(side * side, 500).reshaped(ragged::Shape{side, side});
    for (std::int64_t i = 0; i <= side; ++i) r.splits.push_back(i * side);
    r.make_room();
    return r;
  }();
  return rows;
}

template <class Loop>
void timed(benchmark::State& state, Loop loop, std::int64_t items, std::int64_t value_bytes) {
  loop();  // untimed: faults the output in
  for (auto _ : state) {
    loop();
    benchmark::ClobberMemory();
  }
  bench::set_counters(state, items, value_bytes);
}

// Runs `fn` with the kernel capped at AVX2 (for the ours_avx2 rows).
template <class Fn>
void at_avx2(benchmark::State& state, Fn fn) {
  const auto saved = ragged::kernel::active_isa();
  if (!ragged::kernel::force_isa(ragged::kernel::Isa::avx2)) {
    state.SkipWithError("no AVX2");
    return;
  }
  fn();
  ragged::kernel::force_isa(saved);
}

// The loops of one Highway copy (native or AVX2), by type.
#define RAGGED_HWY_COPY(ns)                                                                       \
  struct ns {                                                                                     \
    template <class T>                                                                            \
    static std::size_t storeu(const T* in, const std::uint8_t* m, std::size_t n, T* out) {        \
      return bench::ns::hwy_compress_storeu(in, m, n, out);                                       \
    }                                                                                             \
    template <class T>                                                                            \
    static std::size_t store(const T* in, const std::uint8_t* m, std::size_t n, T* out) {         \
      return bench::ns::hwy_compress_store(in, m, n, out);                                        \
    }                                                                                             \
    static void rows_storeu(const Rows& r, std::int32_t* out, std::int64_t* splits) {             \
      bench::ns::hwy_rows_compress_storeu(r.values.data(), r.bytes(), r.splits.data(), r.nrows(), \
                                          out, splits);                                           \
    }                                                                                             \
    static void rows_store(const Rows& r, std::int32_t* out, std::int64_t* splits) {              \
      bench::ns::hwy_rows_compress_store(r.values.data(), r.bytes(), r.splits.data(), r.nrows(),  \
                                         out, splits);                                            \
    }                                                                                             \
    static std::size_t lanes() { return bench::ns::hwy_lanes(); }                                 \
  };
RAGGED_HWY_COPY(hwy_native)
RAGGED_HWY_COPY(hwy_avx2)
#undef RAGGED_HWY_COPY

// One call of a loop on a workload's data.
using Call = std::function<void()>;

// Ours and both Highway loops of one workload, timed in turn
// (bench::timed_in_turn): the counter x_best_highway is the median over
// iterations of ours / the faster Highway loop of the same iteration. Each
// timing covers at least 2^20 entries (a batch of calls in the caches). The
// time reported is ours. Each timed batch follows an untimed call of the same
// loop: timed straight after another loop, ours paid for the write-back of
// Highway's output (AMD Zen 5, family 0x1A model 2, ours x best Highway on
// [4096, 4096] int32 with a 2-D mask: 0.83 to 1.14 in four runs so, 0.80 and
// 0.83 in two with the untimed call, 0.61 to 0.85 in separate benchmarks).
void paired(benchmark::State& state, const Call& ours, const Call& storeu, const Call& store,
            std::int64_t items, std::int64_t value_bytes) {
  const std::int64_t batch = std::max<std::int64_t>(1, (std::int64_t{1} << 20) / items);
  const auto t = bench::timed_in_turn<3>(state, {ours, storeu, store}, batch);
  std::vector<double> ratios;
  for (std::size_t i = 0; i < t[0].size(); ++i)
    ratios.push_back(t[0][i] / std::min(t[1][i], t[2][i]));
  if (!ratios.empty()) state.counters["x_best_highway"] = bench::median(ratios);
  bench::set_counters(state, items, value_bytes);
}

// How many rounds paired() times, each repetition: a fixed count, since the
// minimum time would count ours alone while each round also runs both
// Highway loops and an untimed call of each. In the caches Highway's
// CompressStore loop takes 20 times ours, and the 0.2 s of ours a repetition
// asks for took 166,000 rounds, five minutes (AMD Zen 4, family 0x19 model
// 17); 20 rounds is about what 0.2 s took beyond the caches.
constexpr benchmark::IterationCount paired_rounds = 20;

// Registers one workload as ours, ours_avx2, the four Highway loops, ours
// paired with the two native ones (paired), its read-only loop and its
// read-write loop. `ours()` makes our side's call; `hwy(native, storeu)` the
// Highway side's; `read(write)` loads every value and mask byte the workload
// must read (hwy_read_only), and where `write` also writes the bytes it
// keeps, over `items` entries of `value_bytes` in all. (The calls are made
// inside each benchmark: the data is made on first use, not at registration.)
void add(const std::string& workload, const std::function<Call()>& ours,
         const std::function<Call(bool native, bool storeu)>& hwy,
         const std::function<std::uint64_t(bool write)>& read, std::int64_t items,
         std::int64_t value_bytes) {
  for (const bool write : {false, true})
    benchmark::RegisterBenchmark(((write ? "read_write/" : "read_only/") + workload).c_str(),
                                 [read, write, items, value_bytes](benchmark::State& s) {
                                   timed(
                                       s, [&] { benchmark::DoNotOptimize(read(write)); }, items,
                                       value_bytes);
                                 })
        ->UseRealTime();
  benchmark::RegisterBenchmark(("ours/" + workload).c_str(), [ours, items,
                                                              value_bytes](benchmark::State& s) {
    timed(s, ours(), items, value_bytes);
  })->UseRealTime();
  benchmark::RegisterBenchmark(("ours_avx2/" + workload).c_str(), [ours, items, value_bytes](
                                                                      benchmark::State& s) {
    at_avx2(s, [&] { timed(s, ours(), items, value_bytes); });
  })->UseRealTime();
  for (bool native : {true, false})
    for (bool storeu : {true, false}) {
      const std::string name = std::string(native ? "highway_" : "highway_avx2_") +
                               (storeu ? "compress_storeu/" : "compress_store/") + workload;
      benchmark::RegisterBenchmark(name.c_str(), [hwy, native, storeu, items,
                                                  value_bytes](benchmark::State& s) {
        timed(s, hwy(native, storeu), items, value_bytes);
        s.counters["lanes"] = static_cast<double>(native ? hwy_native::lanes() : hwy_avx2::lanes());
      })->UseRealTime();
    }
  benchmark::RegisterBenchmark(("paired/" + workload).c_str(),
                               [ours, hwy, items, value_bytes](benchmark::State& s) {
                                 paired(s, ours(), hwy(true, true), hwy(true, false), items,
                                        value_bytes);
                               })
      ->UseManualTime()
      ->Iterations(paired_rounds);
}

// A 1-D workload: the kernel into an existing output against Highway's loops.
template <class T>
void add_flat(const std::string& workload, std::int64_t n, int density) {
  static std::map<std::string, std::unique_ptr<Flat<T>>> cache;
  const auto get = [workload, n, density]() -> Flat<T>& {
    auto& p = cache[workload];
    if (!p) p = std::make_unique<Flat<T>>(n, density);
    return *p;
  };
  const auto bytes = n * static_cast<std::int64_t>(sizeof(T));
  add(
      workload,
      [get, n]() -> Call {
        auto* in = &get();
        return [in, n] {
          ragged::kernel::compact(in->values.data(), in->mask.data(), n, in->out.data());
        };
      },
      [get](bool native, bool storeu) -> Call {
        auto* in = &get();
        auto* loop = native ? (storeu ? &hwy_native::storeu<T> : &hwy_native::store<T>)
                            : (storeu ? &hwy_avx2::storeu<T> : &hwy_avx2::store<T>);
        return [in, loop] {
          benchmark::DoNotOptimize(
              loop(in->values.data(), in->bytes(), in->size(), in->out.data()));
        };
      },
      [get, n](bool write) {
        auto& in = get();
        return bench::hwy_native::hwy_read_only(
            in.values.data(), sizeof(T), in.bytes(), static_cast<std::size_t>(n),
            write ? in.out.data() : nullptr, in.kept * sizeof(T));
      },
      n, bytes);
}

// A workload of rows: one of the operations (`ours(rows)` makes its call)
// against Highway's loops run per row.
void add_rows(const std::string& workload, Rows& (*get)(), Call (*ours)(Rows&)) {
  add(
      workload, [get, ours] { return ours(get()); },
      [get](bool native, bool storeu) -> Call {
        auto* r = &get();
        auto* loop = native ? (storeu ? &hwy_native::rows_storeu : &hwy_native::rows_store)
                            : (storeu ? &hwy_avx2::rows_storeu : &hwy_avx2::rows_store);
        return [r, loop] { loop(*r, r->out.data(), r->out_splits.data()); };
      },
      [get](bool write) {
        auto& r = get();
        return bench::hwy_native::hwy_read_only(r.values.data(), 4, r.bytes(),
                                                static_cast<std::size_t>(r.values.size()),
                                                write ? r.out.data() : nullptr, r.kept * 4);
      },
      get().values.size(), get().values.size() * 4);
}

void register_all() {
  constexpr std::int64_t big = std::int64_t{1} << 26;
  add_flat<std::int32_t>("int32_2^26_density_0.5", big, 500);
  add_flat<std::int32_t>("int32_2^26_density_0.05", big, 50);
  add_flat<std::int32_t>("int32_2^26_density_0.95", big, 950);
  // A selection that keeps few (an event-selection cut): most blocks of 64 keep nothing.
  add_flat<std::int32_t>("int32_2^26_density_0.001", big, 1);
  add_flat<std::int32_t>("int32_2^26_clustered", big, -1);
  add_flat<double>("double_2^25_density_0.5", big / 2, 500);
  add_flat<std::int8_t>("int8_2^26_density_0.5", big, 500);
  add_flat<std::int32_t>("int32_2^14_in_cache", std::int64_t{1} << 14, 500);
  // A sparse mask in the caches, where no count of blocks ahead covers a
  // vector's lanes (avx512.hpp, compact_sparse_avx512).
  add_flat<std::int32_t>("int32_2^14_in_cache_density_0.05", std::int64_t{1} << 14, 50);
  // tf.boolean_mask of [4096, 4096] by a 2-D mask: one flattened compaction.
  add_rows("int32_4096x4096_2d_mask_flattened", &dense_rows, [](Rows& r) -> Call {
    auto out = std::make_shared<ragged::Tensor<std::int32_t>>();
    return [&r, out] { ragged::boolean_mask_to(*out, r.values, r.mask, 0); };
  });
  // tf.ragged.boolean_mask of ragged data by a ragged mask with the same splits.
  add_rows("ragged_int32_2^20_rows", &ragged_rows, [](Rows& r) -> Call {
    const auto data =
        ragged::RaggedTensorView<const std::int32_t>::from_row_splits(r.values, r.splits);
    const auto mask = ragged::RaggedTensorView<const bool>::from_row_splits(r.mask, r.splits);
    auto out = std::make_shared<ragged::RaggedTensor<std::int32_t>>();
    return [data, mask, out] { ragged::boolean_mask_to(*out, data, mask); };
  });
  // tf.ragged.boolean_mask of dense [4096, 4096] by a 2-D mask: ragged [4096, None].
  add_rows("dense_4096x4096_to_ragged", &dense_rows, [](Rows& r) -> Call {
    auto out = std::make_shared<ragged::RaggedTensor<std::int32_t>>();
    return [&r, out] { ragged::boolean_mask_to(*out, r.values, r.mask); };
  });
  for (const auto bytes : {big * 4, big, std::int64_t{4} << 14, ragged_rows().values.size() * 4})
    benchmark::RegisterBenchmark("bench::memcpy_roofline", bench::memcpy_roofline)
        ->Arg(bytes)
        ->UseRealTime();
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  register_all();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
}
