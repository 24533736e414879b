// SPDX-License-Identifier: Apache-2.0
// Opt-in threads for the kernel and the dense operation. Its own header (and
// its own CMake target, ragged::parallel, which links the thread library) so
// that code which never asks for threads includes no <thread>.
#pragma once

#include <algorithm>
#include <cstdint>
#include <thread>
#include <utility>
#include <vector>

#include "compact.hpp"

namespace ragged {
inline namespace v0_1 {
namespace kernel {

/// Opt-in parallelism for one call: how many threads may share the work. The
/// default, 1, runs on the calling thread. There is no pool: threads start for
/// the call and are joined before it returns; inputs too small to gain run serially.
struct Parallel {
  int threads = 1;
};

/// compact() with opt-in parallelism: the rows are split into `par.threads`
/// chunks (on 64-entry boundaries); each chunk is counted, an exclusive scan of
/// the counts gives each chunk its place in `out`, and each thread compacts its
/// own range there. The result is identical to the serial call's, and so is
/// the return value (the end of what it wrote). Should a thread fail to start,
/// its chunk runs on the calling thread.
template <class T, MaskPointer M>
T* compact(const T* in, M mask, std::int64_t n, T* out, std::int64_t inner, Parallel par) {
  constexpr std::int64_t min_chunk =
      std::int64_t{1} << 16;  // entries: below this, threads cost more than they save
  const std::int64_t chunks = std::min<std::int64_t>(par.threads, n / min_chunk);
  // Non-trivial T copies may throw, which must not happen on another thread.
  if (chunks <= 1 || !detail::bytewise<T>) return compact(in, mask, n, out, inner);
  // The chunk length: n / chunks rounded up (so that `chunks` steps cover all
  // n), then up to a multiple of 64 (so chunks start on whole mask blocks).
  const std::int64_t step = ((n + chunks - 1) / chunks + 63) / 64 * 64;
  std::vector<std::int64_t> offsets(static_cast<std::size_t>(chunks) + 1, 0);
  const auto range = [&](std::int64_t c) {
    const auto lo = std::min(n, c * step);
    return std::pair<std::int64_t, std::int64_t>{lo, std::min(n, lo + step)};
  };
  const auto run_all = [&](auto&& work) {
    std::vector<std::thread> threads;
    threads.reserve(static_cast<std::size_t>(chunks) - 1);
    for (std::int64_t c = 1; c < chunks; ++c) {
      try {
        threads.emplace_back(work, c);
      } catch (...) {
        work(c);  // no thread to be had: do it here
      }
    }
    work(std::int64_t{0});
    for (auto& t : threads) t.join();
  };
  run_all([&](std::int64_t c) {
    const auto [lo, hi] = range(c);
    offsets[static_cast<std::size_t>(c) + 1] = count(mask + lo, hi - lo);
  });
  for (std::size_t c = 1; c < offsets.size(); ++c) offsets[c] += offsets[c - 1];
  run_all([&](std::int64_t c) {
    const auto [lo, hi] = range(c);
    compact(in + lo * inner, mask + lo, hi - lo, out + offsets[static_cast<std::size_t>(c)] * inner,
            inner);
  });
  return out + offsets.back() * inner;
}

}  // namespace kernel
}  // namespace v0_1
}  // namespace ragged
