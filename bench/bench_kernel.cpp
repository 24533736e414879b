// The compaction kernel into an existing output, next to the loops a C++ user
// would otherwise write, and the memcpy rooflines.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "common.hpp"

namespace {

using ragged::kernel::Isa;

// A fixture-free setup: values, a mask, and an output already faulted in.
template <class T>
struct Inputs {
  ragged::Tensor<T> values;
  ragged::Tensor<bool> mask;
  bench::big_vector<T> out;
  Inputs(std::int64_t n, int density, std::int64_t inner = 1)
      : values(bench::make_values<T>(ragged::Shape{n * inner})),
        mask(bench::make_mask(n, density)),
        out(static_cast<std::size_t>(n * inner + 1)) {}
};

// Times `loop(values, mask, n, out)` over the inputs of (n, density).
template <class T, class Loop>
void run_loop(benchmark::State& state, Loop loop) {
  const auto n = state.range(0);
  Inputs<T> in(n, static_cast<int>(state.range(1)));
  for (auto _ : state) {
    benchmark::DoNotOptimize(loop(in.values.data(), in.mask.data(), n, in.out.data()));
    benchmark::ClobberMemory();
  }
  bench::set_counters(state, n, n * static_cast<std::int64_t>(sizeof(T)));
}

template <class T>
void kernel_compact(benchmark::State& state) {
  run_loop<T>(state, [](const T* v, const bool* m, std::int64_t n, T* o) {
    return ragged::kernel::compact(v, m, n, o);
  });
}

// A byte mask bit-packed (Arrow's layout, LSB first): 8x fewer mask bytes.
inline std::vector<std::uint8_t> packed(const ragged::Tensor<bool>& mask) {
  const auto n = mask.size();
  std::vector<std::uint8_t> bits(static_cast<std::size_t>((n + 7) / 8));
  for (std::int64_t i = 0; i < n; ++i)
    bits[static_cast<std::size_t>(i / 8)] |=
        static_cast<std::uint8_t>(static_cast<unsigned>(mask.data()[i]) << (i % 8));
  return bits;
}

// Inputs of (n, density) with the mask bit-packed as well.
template <class T>
struct BitInputs : Inputs<T> {
  std::vector<std::uint8_t> words;
  ragged::kernel::Bits bits;
  BitInputs(std::int64_t n, int density)
      : Inputs<T>(n, density), words(packed(this->mask)), bits{words.data(), 0} {}
  BitInputs(const BitInputs&) = delete;  // `bits` points into `words`
  BitInputs& operator=(const BitInputs&) = delete;
};

// The same kernel on the same mask bit-packed.
template <class T>
void kernel_compact_bits(benchmark::State& state) {
  const auto n = state.range(0);
  BitInputs<T> in(n, static_cast<int>(state.range(1)));
  for (auto _ : state) {
    benchmark::DoNotOptimize(ragged::kernel::compact(in.values.data(), in.bits, n, in.out.data()));
    benchmark::ClobberMemory();
  }
  bench::set_counters(state, n, n * static_cast<std::int64_t>(sizeof(T)));
}

// The bit-packed mask and the byte mask it was packed from, timed in turn
// within each iteration (bench::timed_in_turn): the counter x_bytes is the
// median over iterations of the bit-packed call's time / the byte mask's, and
// the time reported is the bit-packed call's. Timed as separate benchmarks,
// one after the other, the host's drift between them decided which was
// faster: bits took 0.96 to 1.31x bytes at density 0.5 in four runs, and 0.74
// to 0.86 alternated in one process (AMD Zen 5, family 0x1A model 2, int32
// 2^26).
template <class T>
void kernel_bits_paired(benchmark::State& state) {
  const auto n = state.range(0);
  BitInputs<T> in(n, static_cast<int>(state.range(1)));
  const auto t = bench::timed_in_turn<2>(
      state,
      {[&] { ragged::kernel::compact(in.values.data(), in.bits, n, in.out.data()); },
       [&] { ragged::kernel::compact(in.values.data(), in.mask.data(), n, in.out.data()); }},
      1);
  std::vector<double> ratios;
  for (std::size_t i = 0; i < t[0].size(); ++i) ratios.push_back(t[0][i] / t[1][i]);
  if (!ratios.empty()) state.counters["x_bytes"] = bench::median(ratios);
  bench::set_counters(state, n, n * static_cast<std::int64_t>(sizeof(T)));
}

// The same kernel at a forced instruction-set level.
template <class T, Isa isa>
void kernel_compact_isa(benchmark::State& state) {
  const auto saved = ragged::kernel::active_isa();
  if (!ragged::kernel::force_isa(isa)) {
    state.SkipWithError("this CPU lacks the instruction set");
    return;
  }
  kernel_compact<T>(state);
  ragged::kernel::force_isa(saved);
}

#if defined(__x86_64__)
// The AVX-512 stores against each other (cpu.hpp, Avx512Store), without staging.
template <class T, ragged::kernel::Avx512Store S>
void kernel_avx512_store(benchmark::State& state) {
  if (!ragged::kernel::supports(Isa::avx512)) {
    state.SkipWithError("no AVX-512 VBMI2");
    return;
  }
  run_loop<T>(state, [](const T* v, const bool* m, std::int64_t n, T* o) {
    return ragged::kernel::detail::compact_avx512<sizeof(T), S>(
        reinterpret_cast<const std::byte*>(v), m, n, reinterpret_cast<std::byte*>(o),
        ragged::kernel::detail::Reach::cached);
  });
}

// The whole kernel (staged or not, as each store runs) with the AVX-512 store forced.
template <class T, ragged::kernel::Avx512Store S>
void kernel_compact_store(benchmark::State& state) {
  if (!ragged::kernel::supports(Isa::avx512)) {
    state.SkipWithError("no AVX-512 VBMI2");
    return;
  }
  const auto saved = ragged::kernel::active_avx512_store();
  ragged::kernel::force_avx512_store(S);
  kernel_compact<T>(state);
  ragged::kernel::force_avx512_store(saved);
}
#endif

// Baselines a user would write.
template <class T>
void baseline_branchy(benchmark::State& state) {
  run_loop<T>(state, [](const T* v, const bool* m, std::int64_t n, T* o) {
    std::int64_t j = 0;
    for (std::int64_t i = 0; i < n; ++i)
      if (m[i]) o[j++] = v[i];
    return j;
  });
}

template <class T>
void baseline_branchfree(benchmark::State& state) {
  run_loop<T>(state, [](const T* v, const bool* m, std::int64_t n, T* o) {
    std::int64_t j = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      o[j] = v[i];
      j += m[i];
    }
    return j;
  });
}

template <class T>
void baseline_copy_if(benchmark::State& state) {
  run_loop<T>(state, [](const T* v, const bool* m, std::int64_t n, T* o) {
    return std::copy_if(v, v + n, o, [&](const T& x) { return m[&x - v]; });
  });
}

// Rows of `inner` floats selected by a 1-D mask (row selection), of (n
// rows, inner, density in thousandths).
void kernel_rows(benchmark::State& state) {
  const auto n = state.range(0), inner = state.range(1);
  Inputs<float> in(n, static_cast<int>(state.range(2)), inner);
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        ragged::kernel::compact(in.values.data(), in.mask.data(), n, in.out.data(), inner));
    benchmark::ClobberMemory();
  }
  bench::set_counters(state, n * inner, n * inner * 4);
}

void baseline_rows_memcpy(benchmark::State& state) {
  const auto n = state.range(0), inner = state.range(1);
  Inputs<float> in(n, static_cast<int>(state.range(2)), inner);
  const auto row = static_cast<std::size_t>(inner) * sizeof(float);
  for (auto _ : state) {
    char* o = reinterpret_cast<char*>(in.out.data());
    const char* v = reinterpret_cast<const char*>(in.values.data());
    for (std::int64_t r = 0; r < n; ++r)
      if (in.mask.data()[r]) {
        std::memcpy(o, v + static_cast<std::size_t>(r) * row, row);
        o += row;
      }
    benchmark::DoNotOptimize(o);
    benchmark::ClobberMemory();
  }
  bench::set_counters(state, n * inner, n * inner * 4);
}

// Opt-in parallelism, and memcpy split over the same number of threads.
void kernel_parallel(benchmark::State& state) {
  const auto n = state.range(0);
  const auto threads = static_cast<int>(state.range(1));
  Inputs<std::int32_t> in(n, 500);
  for (auto _ : state) {
    benchmark::DoNotOptimize(ragged::kernel::compact(
        in.values.data(), in.mask.data(), n, in.out.data(), 1, ragged::kernel::Parallel{threads}));
    benchmark::ClobberMemory();
  }
  bench::set_counters(state, n, n * 4);
}

void memcpy_threads(benchmark::State& state) {
  const auto bytes = static_cast<std::size_t>(state.range(0));
  const auto threads = static_cast<std::size_t>(state.range(1));
  bench::big_vector<char> src(bytes, 1), dst(bytes, 2);
  for (auto _ : state) {
    std::vector<std::thread> pool;
    const auto step = bytes / threads;
    for (std::size_t t = 1; t < threads; ++t)
      pool.emplace_back([&, t] {
        std::memcpy(dst.data() + t * step, src.data() + t * step,
                    t + 1 == threads ? bytes - t * step : step);
      });
    std::memcpy(dst.data(), src.data(), threads == 1 ? bytes : step);
    for (auto& p : pool) p.join();
    benchmark::ClobberMemory();
  }
  bench::set_counters(state, static_cast<std::int64_t>(bytes), static_cast<std::int64_t>(bytes));
}

constexpr std::int64_t big = std::int64_t{1} << 26;
constexpr std::int64_t small = std::int64_t{1} << 14;

void densities(benchmark::internal::Benchmark* b, std::int64_t n) {
  for (int d : {10, 50, 500, 950, 990, -1}) b->Args({n, d});
}

}  // namespace

BENCHMARK(bench::memcpy_roofline)
    ->Arg(big * 4)
    ->Arg(big)
    ->Arg(big / 2 * 8)
    ->Arg(small * 4)
    ->Arg(std::int64_t{1} << 28)
    ->Arg(std::int64_t{1} << 20)
    ->UseRealTime();
BENCHMARK(bench::malloc_memcpy_roofline)->Arg(big * 4)->UseRealTime();

BENCHMARK(kernel_compact<std::int32_t>)->Apply([](auto* b) { densities(b, big); }) -> UseRealTime();
BENCHMARK(kernel_compact_bits<std::int32_t>)
    ->Args({big, 500})
    ->Args({big, 50})
    ->Args({small, 500})
    ->UseRealTime();
// 20 rounds a repetition, as bench_highway's paired rounds.
BENCHMARK(kernel_bits_paired<std::int32_t>)
    ->Args({big, 500})
    ->Args({big, 50})
    ->UseManualTime()
    ->Iterations(20);
// int8 in cache: as many value bytes as int32 in cache (memcpy_roofline's small * 4).
BENCHMARK(kernel_compact<std::int8_t>)->Args({big, 500})->Args({small * 4, 500})->UseRealTime();
BENCHMARK(kernel_compact<double>)->Args({big / 2, 500})->UseRealTime();
BENCHMARK(kernel_compact<std::int32_t>)->Args({small, 500})->UseRealTime();
BENCHMARK(kernel_compact_isa<std::int32_t, Isa::avx2>)->Args({big, 500})->UseRealTime();
BENCHMARK(kernel_compact_isa<std::int32_t, Isa::scalar>)->Args({big, 500})->UseRealTime();
#if defined(__x86_64__)
using ragged::kernel::Avx512Store;
BENCHMARK(kernel_avx512_store<std::int32_t, Avx512Store::compress_store>)
    ->Args({big, 500})
    ->Args({small, 500})
    ->UseRealTime();
BENCHMARK(kernel_avx512_store<std::int32_t, Avx512Store::masked>)
    ->Args({big, 500})
    ->Args({small, 500})
    ->UseRealTime();
BENCHMARK(kernel_avx512_store<std::int32_t, Avx512Store::whole>)
    ->Args({big, 500})
    ->Args({small, 500})
    ->UseRealTime();
BENCHMARK(kernel_avx512_store<double, Avx512Store::compress_store>)
    ->Args({big / 2, 500})
    ->UseRealTime();
BENCHMARK(kernel_avx512_store<double, Avx512Store::masked>)->Args({big / 2, 500})->UseRealTime();
BENCHMARK(kernel_avx512_store<double, Avx512Store::whole>)->Args({big / 2, 500})->UseRealTime();
BENCHMARK(kernel_compact_store<std::int32_t, Avx512Store::compress_store>)
    ->Args({big, 500})
    ->UseRealTime();
BENCHMARK(kernel_compact_store<std::int32_t, Avx512Store::masked>)->Args({big, 500})->UseRealTime();
BENCHMARK(kernel_compact_store<std::int32_t, Avx512Store::whole>)->Args({big, 500})->UseRealTime();
#endif
BENCHMARK(baseline_branchy<std::int32_t>)->Args({big, 500})->UseRealTime();
BENCHMARK(baseline_branchfree<std::int32_t>)->Args({big, 500})->Args({small, 500})->UseRealTime();
BENCHMARK(baseline_copy_if<std::int32_t>)->Args({big, 500})->UseRealTime();
// Rows of 256 bytes beyond the caches, half of them kept and 9 in 10 (runs
// queued and requested ahead, on Zen 5 at 9 in 10 carried, or where the CPU
// reads in order every line requested in order), rows of 16 and of 12 bytes
// (xyz points) beyond them, and rows of 16 bytes, 1 MiB in all, in the
// caches (lanes at AVX-512, compact_lanes; elsewhere runs).
BENCHMARK(kernel_rows)
    ->Args({std::int64_t{1} << 20, 64, 500})
    ->Args({std::int64_t{1} << 20, 64, 900})
    ->Args({std::int64_t{1} << 24, 4, 500})
    ->Args({std::int64_t{1} << 24, 3, 500})
    ->Args({std::int64_t{1} << 16, 4, 500})
    ->UseRealTime();
BENCHMARK(baseline_rows_memcpy)
    ->Args({std::int64_t{1} << 20, 64, 500})
    ->Args({std::int64_t{1} << 20, 64, 900})
    ->Args({std::int64_t{1} << 24, 4, 500})
    ->Args({std::int64_t{1} << 24, 3, 500})
    ->Args({std::int64_t{1} << 16, 4, 500})
    ->UseRealTime();
BENCHMARK(kernel_parallel)->Args({big, 2})->UseRealTime();
BENCHMARK(memcpy_threads)->Args({big * 4, 2})->UseRealTime();

BENCHMARK_MAIN();
