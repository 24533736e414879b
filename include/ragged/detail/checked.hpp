// SPDX-License-Identifier: Apache-2.0
// Checked 64-bit size arithmetic: the one place where sums and products of
// sizes are computed when an input could make them overflow. An overflow is an
// error naming what was computed, never a wrapped value.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "../error.hpp"

namespace ragged {
inline namespace v0_1 {
namespace detail {

// The first i in [begin, end) where bad(i), or end. Validation scans every
// split, so blocks are tested without a branch per entry (the test
// vectorizes) and only a block with a hit is searched for its first.
template <class Bad>
[[nodiscard]] std::size_t first_where(std::size_t begin, std::size_t end, Bad bad) {
  constexpr std::size_t block = 512;
  for (auto lo = begin; lo < end; lo += block) {
    const auto hi = std::min(end, lo + block);
    bool any = false;
    for (auto i = lo; i < hi; ++i) any |= bad(i);
    if (any)
      for (auto i = lo;; ++i)
        if (bad(i)) return i;
  }
  return end;
}

// A count already known to be non-negative and in range, as a std::size_t.
template <class T>
[[nodiscard]] constexpr std::size_t to_size(T n) noexcept {
  return static_cast<std::size_t>(n);
}

/// Stores a + b in `out`; true when it does not fit int64 (then `out` is unspecified).
[[nodiscard]] constexpr bool add_overflows(std::int64_t a, std::int64_t b,
                                           std::int64_t& out) noexcept {
#if defined(__GNUC__) || defined(__clang__)
  return __builtin_add_overflow(a, b, &out);
#else
  if ((b > 0 && a > std::numeric_limits<std::int64_t>::max() - b) ||
      (b < 0 && a < std::numeric_limits<std::int64_t>::min() - b))
    return true;
  out = a + b;
  return false;
#endif
}

/// Stores a * b in `out`; true when it does not fit int64 (then `out` is unspecified).
[[nodiscard]] constexpr bool mul_overflows(std::int64_t a, std::int64_t b,
                                           std::int64_t& out) noexcept {
#if defined(__GNUC__) || defined(__clang__)
  return __builtin_mul_overflow(a, b, &out);
#else
  constexpr auto max = std::numeric_limits<std::int64_t>::max();
  constexpr auto min = std::numeric_limits<std::int64_t>::min();
  // CERT INT32-C: compare against the bound before multiplying.
  if (a > 0 ? (b > 0 ? a > max / b : b < min / a) : (b > 0 ? a < min / b : (a != 0 && b < max / a)))
    return true;
  out = a * b;
  return false;
#endif
}

/// a + b; throws shape_error "<what> (a + b) does not fit in int64" on overflow.
template <class... What>
[[nodiscard]] std::int64_t checked_add(std::int64_t a, std::int64_t b, const What&... what) {
  std::int64_t r = 0;
  if (add_overflows(a, b, r))
    throw_shape_error(what..., " (", a, " + ", b, ") does not fit in int64");
  return r;
}

/// a * b; throws shape_error "<what> (a * b) does not fit in int64" on overflow.
template <class... What>
[[nodiscard]] std::int64_t checked_mul(std::int64_t a, std::int64_t b, const What&... what) {
  std::int64_t r = 0;
  if (mul_overflows(a, b, r))
    throw_shape_error(what..., " (", a, " * ", b, ") does not fit in int64");
  return r;
}

}  // namespace detail
}  // namespace v0_1
}  // namespace ragged
