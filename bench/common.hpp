// SPDX-License-Identifier: Apache-2.0
// Inputs for the benchmarks: fixed seeds, densities and clustered masks, and the
// memcpy rooflines every ratio in the report is taken against.
#pragma once

#include <benchmark/benchmark.h>
#include <ragged/ragged.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <new>
#include <random>
#include <string>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace bench {

// Memory for the benchmarks' large buffers, on transparent huge pages where
// the system has them (Linux, MADV_HUGEPAGE), as the library's own result
// buffers are: every loop compared (ours, Highway's, memcpy) reads and writes
// memory mapped the same way. On 4 KiB pages a buffer's first touch and its
// TLB misses depend on how the system happened to map it, and on a virtual
// machine that moved interleaved repetitions of the same loop by up to 10x.
template <class T>
struct HugePages {
  using value_type = T;
  HugePages() = default;
  template <class U>
  HugePages(const HugePages<U>&) noexcept {}
  static constexpr std::size_t page = std::size_t{2} << 20;
  T* allocate(std::size_t n) {
    const auto bytes = (n * sizeof(T) + page - 1) / page * page;
    void* p = std::aligned_alloc(page, bytes);
    if (!p) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    (void)::madvise(p, bytes, MADV_HUGEPAGE);
#endif
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t) noexcept {
    std::free(p);
  }
  template <class U>
  bool operator==(const HugePages<U>&) const noexcept {
    return true;
  }
};

// A std::vector on huge pages (HugePages).
template <class T>
using big_vector = std::vector<T, HugePages<T>>;

// Density in 1/1000; -1 is "clustered": alternating runs of 1..1024 kept and dropped entries.
inline ragged::Tensor<bool> make_mask(std::int64_t n, int density_per_mille,
                                      std::uint64_t seed = 42) {
  auto mask = ragged::Tensor<bool>::for_overwrite(ragged::Shape{n});
  bool* m = mask.data();
  std::mt19937_64 rng(seed);
  if (density_per_mille < 0) {
    std::int64_t i = 0;
    bool v = true;
    while (i < n) {
      for (auto len = static_cast<std::int64_t>(rng() % 1024 + 1); len-- && i < n;) m[i++] = v;
      v = !v;
    }
  } else {
    // A threshold on 10 random bits per entry: density in 1/1000.
    for (std::int64_t i = 0; i < n; ++i) m[i] = static_cast<int>(rng() % 1000) < density_per_mille;
  }
  return mask;
}

template <class T>
ragged::Tensor<T> make_values(ragged::Shape shape, std::uint64_t seed = 7) {
  auto t = ragged::Tensor<T>::for_overwrite(std::move(shape));
  std::mt19937_64 rng(seed);
  for (auto& v : t.values()) {
    if constexpr (std::is_same_v<T, std::string>)
      v = std::string(8 + rng() % 17, static_cast<char>('a' + rng() % 26));
    else
      v = static_cast<T>(rng() % 1000);
  }
  return t;
}

// Reports bytes/s and items/s over the input values, and the value bytes that
// the report matches with a memcpy of the same size.
inline void set_counters(benchmark::State& state, std::int64_t items, std::int64_t value_bytes) {
  state.SetItemsProcessed(state.iterations() * items);
  state.SetBytesProcessed(state.iterations() * value_bytes);
  state.counters["value_bytes"] = static_cast<double>(value_bytes);
}

// The roofline: memcpy of `bytes` into an existing (already faulted-in) buffer.
inline void memcpy_roofline(benchmark::State& state) {
  const auto bytes = static_cast<std::size_t>(state.range(0));
  big_vector<char> src(bytes, 1), dst(bytes, 2);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), bytes);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  set_counters(state, static_cast<std::int64_t>(bytes), static_cast<std::int64_t>(bytes));
}

// The fresh-output roofline: malloc + memcpy + free, as a result that is returned anew each call.
inline void malloc_memcpy_roofline(benchmark::State& state) {
  const auto bytes = static_cast<std::size_t>(state.range(0));
  big_vector<char> src(bytes, 1);
  for (auto _ : state) {
    auto* dst = static_cast<char*>(std::malloc(bytes));
    std::memcpy(dst, src.data(), bytes);
    benchmark::DoNotOptimize(dst);
    benchmark::ClobberMemory();
    std::free(dst);
  }
  set_counters(state, static_cast<std::int64_t>(bytes), static_cast<std::int64_t>(bytes));
}

// Times `calls` in turn within each iteration of `state`, their order rotated
// each iteration, so that whatever slows the machine for a while (a
// neighbour's memory traffic, on a shared host) slows them all alike: loops
// timed in separate benchmarks, each in its own stretch of seconds, moved
// their ratio by 20% between runs. Each timed batch of `batch` calls follows
// an untimed call of the same loop, so that it starts from the caches its own
// loop leaves, as in a caller's loop and in the separate benchmarks (a loop
// that writes with ordinary stores leaves up to a last-level cache of dirty
// output lines, whose write-back the next call pays for). Returns, per call,
// its seconds per call in each iteration; the iteration's time (manual time)
// is that of calls[0].
template <std::size_t K>
std::array<std::vector<double>, K> timed_in_turn(benchmark::State& state,
                                                 const std::array<std::function<void()>, K>& calls,
                                                 std::int64_t batch) {
  std::array<std::vector<double>, K> seconds;
  std::size_t turn = 0;
  for (auto _ : state) {
    for (std::size_t k = 0; k < K; ++k) {
      const auto j = (turn + k) % K;
      calls[j]();  // untimed: the caches as this loop leaves them
      benchmark::ClobberMemory();
      const auto start = std::chrono::steady_clock::now();
      for (std::int64_t b = 0; b < batch; ++b) {
        calls[j]();
        benchmark::ClobberMemory();
      }
      seconds[j].push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() /
          static_cast<double>(batch));
    }
    ++turn;
    state.SetIterationTime(seconds[0].back());
  }
  return seconds;
}

// The median of `xs` (the upper one of an even count); 0 for none.
inline double median(std::vector<double> xs) {
  if (xs.empty()) return 0;
  const auto mid = xs.begin() + static_cast<std::ptrdiff_t>(xs.size() / 2);
  std::nth_element(xs.begin(), mid, xs.end());
  return *mid;
}

// The CPU and the kernel's choices on it, written into each run's context
// (the console header and the JSON that report.py saves), so that every
// figure kept from a run names the machine it came from: the same workload
// runs at different ratios on Zen 4, Zen 5 and Intel.
inline std::string describe_cpu() {
  const auto& f = ragged::kernel::cpu_features();
  if (f.id.family == 0) return "CPU not identified (no x86 CPUID)";
  const char* vendor = f.id.vendor == ragged::kernel::CpuId::Vendor::amd     ? "AMD"
                       : f.id.vendor == ragged::kernel::CpuId::Vendor::intel ? "Intel"
                                                                             : "other";
  char text[64];
  std::snprintf(text, sizeof text, "%s family 0x%X model %u", vendor, f.id.family, f.id.model);
  return text;
}

inline std::string describe_kernel() {
  using ragged::kernel::Isa;
  const auto isa = ragged::kernel::active_isa();
  if (isa == Isa::scalar) return "scalar";
  if (isa == Isa::avx2) return "avx2";
  const auto store = ragged::kernel::active_avx512_store();
  std::string text = store == ragged::kernel::Avx512Store::whole ? "avx512, whole-vector stores"
                     : store == ragged::kernel::Avx512Store::compress_store
                         ? "avx512, compress-store"
                         : "avx512, masked stores";
  // The kernel's own rule (compact.hpp), not a copy of it.
  namespace detail = ragged::kernel::detail;
  if (detail::writes_straight() && detail::straight_reach() == detail::Reach::streamed)
    text += ", streamed through L1 beyond the caches";
  return text;
}

// Runs once per binary, before main: AddCustomContext must precede the run.
inline const bool context_added = [] {
  benchmark::AddCustomContext("ragged_cpu", describe_cpu());
  benchmark::AddCustomContext("ragged_kernel", describe_kernel());
  return true;
}();

}  // namespace bench
