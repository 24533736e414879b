// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "avx2.hpp"
#include "avx512.hpp"
#include "bits.hpp"
#include "cpu.hpp"
#include "scalar.hpp"
#include "stream.hpp"

/// The one stream-compaction kernel under both boolean_mask operations. It
/// knows nothing of tensors: pointers and counts in, a count out; it never
/// allocates and never throws (except what copying a non-trivial T throws).
///
/// Output contract: the kernel writes exactly the kept elements, densely, from
/// `out` on, and never writes past the last of them; `out` needs room for
/// count(mask, n) * inner elements and nothing more. Large outputs are written
/// with non-temporal stores (they bypass the caches), fenced before the kernel
/// returns.
///
/// Masks (MaskPointer): bool bytes, where an entry is true when its byte is
/// nonzero, on every path and at every instruction set (byte masks from NumPy
/// or Arrow may hold 2 or 255); or Bits, bit-packed in Arrow's layout (LSB
/// first, from a bit offset), read 64 entries per load and never expanded.
///
/// Aliasing (a precondition, not checked here: the kernel takes raw pointers):
/// `out` must not overlap `in` or `mask`. The boolean_mask operations, which
/// see whole tensors, detect an output that aliases an input and compute into
/// a temporary instead.
namespace ragged {
inline namespace v0_1 {
namespace kernel {

/// The default execution of the dense operation: on the calling thread.
/// (kernel/parallel.hpp adds Parallel, which splits large inputs over threads.)
struct Serial {};

/// Sorted positions in a mask at which compact() reports how many entries it
/// has kept so far: row boundaries, explicit (`positions[r]`) or uniform
/// (`r * stride`), for r in [0, count). With a ragged mask's row splits as
/// positions, the reported counts are the row splits of the result.
template <class Index>
struct Boundaries {
  const Index* positions = nullptr;
  std::int64_t stride = 0;
  std::int64_t count = 0;
  [[nodiscard]] std::int64_t operator[](std::int64_t r) const noexcept {
    return positions ? std::int64_t{positions[r]} : r * stride;
  }
};

namespace detail {

// Trivially copyable types move as bytes, specialised by byte width (1, 2, 4, 8), not by type.
template <class T>
inline constexpr bool bytewise = std::is_trivially_copyable_v<T>;

template <class M>
using compact_fn = std::int64_t (*)(const std::byte*, M, std::int64_t, std::byte*) noexcept;

// Everything the kernel runs for one instruction set and mask kind M (const
// bool* or Bits): one table per level, built at compile time, and the level
// chosen by one index (implementation<M>()), not by a switch in each entry.
template <class M>
struct Implementation {
  std::int64_t (*count)(M, std::int64_t) noexcept;
  void (*mask_words)(M, std::int64_t, std::uint64_t*, std::int64_t*, std::int64_t) noexcept;
  compact_fn<M> compact[4][2];  // by element width (1, 2, 4, 8 bytes), then `large` (prefetching)
};

// The tables' order: scalar, avx2, avx512 (compress in a register), and
// avx512 storing with vpcompress (fast on AMD Zen 5 and Intel since Sapphire Rapids; see cpu.hpp).
inline constexpr int implementation_levels = 4;

template <class M, int Level>
constexpr Implementation<M> implementation_at() noexcept {
  Implementation<M> impl{&count_scalar,
                         &mask_words_scalar<M>,
                         {{&compact_scalar<1, M>, &compact_scalar<1, M>},
                          {&compact_scalar<2, M>, &compact_scalar<2, M>},
                          {&compact_scalar<4, M>, &compact_scalar<4, M>},
                          {&compact_scalar<8, M>, &compact_scalar<8, M>}}};
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if constexpr (Level == 1) {
    impl.compact[0][0] = impl.compact[0][1] = &compact_avx2<1, M>;
    impl.compact[1][0] = impl.compact[1][1] = &compact_avx2<2, M>;
    impl.compact[2][0] = impl.compact[2][1] = &compact_avx2<4, M>;
    impl.compact[3][0] = impl.compact[3][1] = &compact_avx2<8, M>;
  } else if constexpr (Level >= 2) {
    constexpr bool direct = Level == 3;
    impl.compact[0][0] = &compact_avx512<1, direct, false, M>;
    impl.compact[0][1] = &compact_avx512<1, direct, true, M>;
    impl.compact[1][0] = &compact_avx512<2, direct, false, M>;
    impl.compact[1][1] = &compact_avx512<2, direct, true, M>;
    impl.compact[2][0] = &compact_avx512<4, direct, false, M>;
    impl.compact[2][1] = &compact_avx512<4, direct, true, M>;
    impl.compact[3][0] = &compact_avx512<8, direct, false, M>;
    impl.compact[3][1] = &compact_avx512<8, direct, true, M>;
  }
  if constexpr (Level >= 1) {
    if constexpr (std::is_same_v<M, Bits>) {
      impl.count = &count_popcnt;
    } else {
      impl.count = Level == 1 ? &count_avx2 : &count_avx512;
      if constexpr (Level >= 2) impl.mask_words = &mask_words_avx512;
    }
  }
#endif
  return impl;
}

// The table of the active level (kernel::active_isa(), and on AVX-512 whether
// the CPU stores compressed vectors fast).
template <class M>
[[nodiscard]] const Implementation<M>& implementation() noexcept {
  static constexpr Implementation<M> tables[implementation_levels] = {
      implementation_at<M, 0>(), implementation_at<M, 1>(), implementation_at<M, 2>(),
      implementation_at<M, 3>()};
  const auto isa = static_cast<int>(active_isa());
  return tables[isa == 2 && cpu().fast_compress_store ? 3 : isa];
}

// The compaction of one element width (1, 2, 4 or 8 bytes) at the active level.
template <std::size_t W, class M>
[[nodiscard]] compact_fn<M> compact_for_width(bool large) noexcept {
  constexpr int slot = W == 1 ? 0 : W == 2 ? 1 : W == 4 ? 2 : 3;
  return implementation<M>().compact[slot][large ? 1 : 0];
}

// The byte width single elements move at: the row's own size when it is 1, 2,
// 4 or 8 bytes (so rows of two int32 move as one 8-byte element), else 0 (runs).
template <class T>
[[nodiscard]] std::size_t element_width(std::int64_t inner) noexcept {
  if constexpr (bytewise<T>) {
    const auto bytes = static_cast<std::size_t>(inner) * sizeof(T);
    if (bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8) return bytes;
  }
  return 0;
}

template <std::size_t W, class M>
std::int64_t compact_width(const void* in, M mask, std::int64_t n, void* out, bool large) noexcept {
  return compact_for_width<W, M>(large)(static_cast<const std::byte*>(in), mask, n,
                                        static_cast<std::byte*>(out));
}

template <class M>
std::int64_t compact_width(std::size_t w, const void* in, M mask, std::int64_t n, void* out,
                           bool large) noexcept {
  switch (w) {
    case 1:
      return compact_width<1>(in, mask, n, out, large);
    case 2:
      return compact_width<2>(in, mask, n, out, large);
    case 4:
      return compact_width<4>(in, mask, n, out, large);
    default:
      return compact_width<8>(in, mask, n, out, large);
  }
}

// Whole rows [begin, end) of `row` elements each: one copy per run, streamed
// when the output is large.
template <class T>
void copy_rows(const T* in, std::int64_t begin, std::int64_t end, std::int64_t row, T*& out,
               bool stream) {
  const auto n = (end - begin) * row;
  if constexpr (bytewise<T>) {
    const auto bytes = static_cast<std::size_t>(n) * sizeof(T);
    if (stream)
      stream_copy(out, in + begin * row, bytes);
    else if (n)
      std::memcpy(static_cast<void*>(out), in + begin * row, bytes);
  } else {
    (void)stream;
    std::copy(in + begin * row, in + begin * row + n, out);
  }
  out += n;
}

// One compaction of rows of `inner` elements, without chunking: single
// elements of 1, 2, 4 or 8 bytes through the vector code, wider rows as runs,
// non-trivial T by assignment. `stream` writes runs with non-temporal stores.
template <class T, class M>
std::int64_t compact_part(const T* in, M mask, std::int64_t n, T* out, std::int64_t inner,
                          bool stream) {
  if (const auto w = element_width<T>(inner)) return compact_width(w, in, mask, n, out, stream);
  if constexpr (!bytewise<T>) {
    if (inner == 1) {
      std::int64_t j = 0;
      for (std::int64_t i = 0; i < n; ++i)
        if (mask_at(mask, i)) out[j++] = in[i];
      return j;
    }
  }
  T* o = out;
  std::int64_t kept = 0;
  for_each_run(mask, n, [&](std::int64_t b, std::int64_t e) {
    copy_rows(in, b, e, inner, o, stream);
    kept += e - b;
  });
  return kept;
}

// The kernel over chunks of the input, for outputs beyond the caches and for
// reporting boundaries: each chunk of elements is compacted into a small
// buffer that stays in L1 and streamed out from there (runs stream straight
// from the input); after each chunk [lo, end), `after(lo, end, kept_before)`
// sees how many rows had been kept before it.
template <class T, class M, class After>
std::int64_t compact_chunked(const T* in, M mask, std::int64_t n, T* out, std::int64_t inner,
                             bool stream, After&& after) {
  constexpr std::int64_t stage_bytes = 8192;
  const auto w = element_width<T>(inner);
  const auto row_bytes = std::max<std::int64_t>(1, inner * static_cast<std::int64_t>(sizeof(T)));
  const std::int64_t chunk = std::max<std::int64_t>(64, stage_bytes / row_bytes / 64 * 64);
  alignas(64) std::byte stage[stage_bytes];
  std::int64_t kept = 0;
  for (std::int64_t lo = 0; lo < n; lo += chunk) {
    const auto len = std::min(chunk, n - lo);
    T* dst = out + kept * inner;
    const auto kept_before = kept;
    if (w && stream) {
      const auto k = compact_width(w, in + lo * inner, mask + lo, len, stage, true);
      stream_copy(dst, stage, static_cast<std::size_t>(k) * w);
      kept += k;
    } else {
      kept += compact_part(in + lo * inner, mask + lo, len, dst, inner, stream);
    }
    after(lo, lo + len, kept_before);
  }
  if (stream) stream_fence();
  return kept;
}

// The mask bits and running counts of a chunk, at the active instruction set.
template <class M>
void mask_words(M mask, std::int64_t n, std::uint64_t* words, std::int64_t* prefix,
                std::int64_t base) noexcept {
  implementation<M>().mask_words(mask, n, words, prefix, base);
}

template <class T>
[[nodiscard]] bool worth_streaming(std::int64_t n, std::int64_t inner) noexcept {
  return bytewise<T> && n * inner * static_cast<std::int64_t>(sizeof(T)) >= stream_threshold_bytes;
}

}  // namespace detail

/// The number of true entries in mask[0, n): the size of a compaction's output,
/// so that it is allocated once.
template <MaskPointer M>
[[nodiscard]] std::int64_t count(M mask_in, std::int64_t n) noexcept {
  const auto mask = detail::mask_pointer(mask_in);
  using Kind = std::remove_const_t<decltype(mask)>;
  if (n <= 0) return 0;
  // Short rows of bytes do not pay for dispatch.
  if constexpr (!std::is_same_v<Kind, Bits>)
    if (n < 64) return detail::count_scalar(mask, n);
  return detail::implementation<Kind>().count(mask, n);
}

/// Keeps the rows of `inner` consecutive elements of `in` (n rows, n * inner
/// elements) whose mask entry is true, writes them densely to `out` and returns
/// how many rows it kept. With inner == 1 these are single elements: NumPy's
/// `np.compress(mask, in)`, the core of tf.boolean_mask.
template <class T, MaskPointer M>
std::int64_t compact(const T* in, M mask_in, std::int64_t n, T* out,
                     std::int64_t inner = 1) noexcept(detail::bytewise<T>) {
  const auto mask = detail::mask_pointer(mask_in);
  // Nothing to keep: return before any size arithmetic (an empty tensor's
  // inner size need not be small).
  if (n <= 0) return 0;
  if (!detail::worth_streaming<T>(n, inner))
    return detail::compact_part(in, mask, n, out, inner, false);
  return detail::compact_chunked(in, mask, n, out, inner, true,
                                 [](std::int64_t, std::int64_t, std::int64_t) {});
}

/// compact() that also reports, for each of the sorted `bounds` (positions in
/// [0, n]), how many rows it kept before that position: kept_before[r]. With a
/// ragged mask's row splits as bounds, these are the result's row splits, made
/// in the same pass over the mask as the compaction.
template <class T, MaskPointer M, class Index, class OutIndex>
std::int64_t compact(const T* in, M mask_in, std::int64_t n, T* out, std::int64_t inner,
                     Boundaries<Index> bounds,
                     OutIndex* kept_before) noexcept(detail::bytewise<T>) {
  const auto mask = detail::mask_pointer(mask_in);
  std::int64_t r = 0;
  if (n <= 0) {
    // Nothing to move: return before any size arithmetic (an empty tensor's
    // inner size need not be small).
    for (; r < bounds.count; ++r) kept_before[r] = OutIndex{0};
    return 0;
  }
  // The boundaries in (lo, end]: from the chunk's mask bits (its bytes still in
  // L1) and their prefix counts, branch-free per boundary.
  const auto report = [&](std::int64_t lo, std::int64_t end, std::int64_t kept_before_chunk) {
    constexpr std::int64_t max_words = 8192 / 64 + 1;
    std::uint64_t words[max_words + 1];
    std::int64_t prefix[max_words + 1];
    const auto nwords = (end - lo + 63) / 64;
    detail::mask_words(mask + lo, end - lo, words, prefix, kept_before_chunk);
    words[nwords] = 0;
    auto next = r;  // a local: the loop keeps it in a register
    for (; next < bounds.count && bounds[next] <= end; ++next) {
      const auto at = bounds[next] - lo;
      const auto below = (std::uint64_t{1} << (at % 64)) - 1;
      kept_before[next] =
          static_cast<OutIndex>(prefix[at / 64] + detail::popcount64(words[at / 64] & below));
    }
    r = next;
  };
  const auto kept = detail::compact_chunked(in, mask, n, out, inner,
                                            detail::worth_streaming<T>(n, inner), report);
  for (; r < bounds.count; ++r)
    kept_before[r] = static_cast<OutIndex>(kept);  // positions at n, after the last chunk
  return kept;
}

/// Keeps variable-length rows: row r is in[bounds[r] * inner, bounds[r+1] * inner),
/// for r < bounds.size() - 1, and is kept when mask[r] is true. Maximal runs of
/// kept rows are contiguous in `in` and move with one copy each. Returns the
/// number of inner-element rows written (the sum of the kept rows' lengths).
/// This is row selection on ragged data (tf.ragged.boolean_mask with a 1-D mask).
template <class T, MaskPointer M, class Bound>
std::int64_t compact(const T* in, M mask_in, std::span<const Bound> bounds, T* out,
                     std::int64_t inner = 1) noexcept(detail::bytewise<T>) {
  const auto mask = detail::mask_pointer(mask_in);
  if (bounds.size() < 2) return 0;
  T* o = out;
  std::int64_t kept = 0;
  const auto nrows = static_cast<std::int64_t>(bounds.size()) - 1;
  const bool stream = detail::worth_streaming<T>(bounds.back() - bounds.front(), inner);
  detail::for_each_run(mask, nrows, [&](std::int64_t b, std::int64_t e) {
    const std::int64_t first = bounds[static_cast<std::size_t>(b)];
    const std::int64_t last = bounds[static_cast<std::size_t>(e)];
    detail::copy_rows(in, first, last, inner, o, stream);
    kept += last - first;
  });
  if (stream) detail::stream_fence();
  return kept;
}

/// compact() on the calling thread: the overload the operations call by default.
template <class T, MaskPointer M>
std::int64_t compact(const T* in, M mask, std::int64_t n, T* out, std::int64_t inner,
                     Serial) noexcept(detail::bytewise<T>) {
  return compact(in, mask, n, out, inner);
}

}  // namespace kernel
}  // namespace v0_1
}  // namespace ragged
