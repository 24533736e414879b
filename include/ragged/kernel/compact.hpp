// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>

#include "scalar.hpp"

/// The one stream-compaction kernel under both boolean_mask operations. It
/// knows nothing of tensors: pointers and counts in, a count out; it never
/// allocates and never throws (except what copying a non-trivial T throws).
///
/// Output contract: the kernel writes exactly the kept elements, densely, from
/// `out` on, and never writes past the last of them; `out` needs room for
/// count(mask, n) * inner elements and nothing more. Input and output must not
/// overlap.
namespace ragged::inline v0_1::kernel {

/// The number of true entries in mask[0, n): the size of a compaction's output,
/// so that it is allocated once.
[[nodiscard]] inline std::int64_t count(const bool* mask, std::int64_t n) noexcept {
  return detail::count_scalar(mask, n);
}

namespace detail {

template <class T>
inline constexpr bool bytewise = std::is_trivially_copyable_v<T>;

// Whole rows [begin, end) of `row` elements each: one copy per run.
template <class T>
void copy_rows(const T* in, std::int64_t begin, std::int64_t end, std::int64_t row, T*& out) {
  const auto n = (end - begin) * row;
  if constexpr (bytewise<T>) {
    if (n)
      std::memcpy(static_cast<void*>(out), in + begin * row,
                  static_cast<std::size_t>(n) * sizeof(T));
  } else {
    std::copy(in + begin * row, in + begin * row + n, out);
  }
  out += n;
}

template <class T>
std::int64_t compact_elements(const T* in, const bool* mask, std::int64_t n, T* out) {
  if constexpr (bytewise<T>) {
    return compact_scalar<sizeof(T)>(reinterpret_cast<const std::byte*>(in), mask, n,
                                     reinterpret_cast<std::byte*>(out));
  } else {
    std::int64_t j = 0;
    for (std::int64_t i = 0; i < n; ++i)
      if (mask[i]) out[j++] = in[i];
    return j;
  }
}

}  // namespace detail

/// Keeps the rows of `inner` consecutive elements of `in` (n rows, n * inner
/// elements) whose mask entry is true, writes them densely to `out` and returns
/// how many rows it kept. With inner == 1 these are single elements: NumPy's
/// `np.compress(mask, in)`, the core of tf.boolean_mask.
template <class T>
std::int64_t compact(const T* in, const bool* mask, std::int64_t n, T* out,
                     std::int64_t inner = 1) noexcept(detail::bytewise<T>) {
  if (inner == 1) return detail::compact_elements(in, mask, n, out);
  if constexpr (detail::bytewise<T>) {
    // Rows of 1, 2, 4 or 8 bytes move as single elements of that width.
    const auto row_bytes = static_cast<std::size_t>(inner) * sizeof(T);
    const auto* bin = reinterpret_cast<const std::byte*>(in);
    auto* bout = reinterpret_cast<std::byte*>(out);
    switch (row_bytes) {
      case 2:
        return detail::compact_scalar<2>(bin, mask, n, bout);
      case 4:
        return detail::compact_scalar<4>(bin, mask, n, bout);
      case 8:
        return detail::compact_scalar<8>(bin, mask, n, bout);
      default:
        break;
    }
  }
  T* o = out;
  std::int64_t kept = 0;
  detail::for_each_run(mask, n, [&](std::int64_t b, std::int64_t e) {
    detail::copy_rows(in, b, e, inner, o);
    kept += e - b;
  });
  return kept;
}

/// Keeps variable-length rows: row r is in[bounds[r] * inner, bounds[r+1] * inner),
/// for r < bounds.size() - 1, and is kept when mask[r] is true. Maximal runs of
/// kept rows are contiguous in `in` and move with one copy each. Returns the
/// number of inner-element rows written (the sum of the kept rows' lengths).
/// This is row selection on ragged data (tf.ragged.boolean_mask with a 1-D mask).
template <class T, class Bound>
std::int64_t compact(const T* in, const bool* mask, std::span<const Bound> bounds, T* out,
                     std::int64_t inner = 1) noexcept(detail::bytewise<T>) {
  if (bounds.size() < 2) return 0;
  T* o = out;
  std::int64_t kept = 0;
  const auto nrows = static_cast<std::int64_t>(bounds.size()) - 1;
  detail::for_each_run(mask, nrows, [&](std::int64_t b, std::int64_t e) {
    const std::int64_t first = bounds[static_cast<std::size_t>(b)];
    const std::int64_t last = bounds[static_cast<std::size_t>(e)];
    detail::copy_rows(in, first, last, inner, o);
    kept += last - first;
  });
  return kept;
}

}  // namespace ragged::inline v0_1::kernel
