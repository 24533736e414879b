// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <concepts>
#include <cstdint>
#include <span>
#include <string>

#include "detail/checked.hpp"
#include "error.hpp"

namespace ragged {
inline namespace v0_1 {

/// The index types row splits may use, as TensorFlow's `row_splits_dtype`
/// (tf.int64 or tf.int32).
template <class Index>
concept RowIndex = std::same_as<Index, std::int64_t> || std::same_as<Index, std::int32_t>;

/// How the rows of one dim partition the items of the next: TensorFlow's
/// `RowPartition`, here non-owning. Either explicit row splits (row r holds
/// items [splits[r], splits[r + 1]), absolute, so splits may start above 0 as
/// in a sliced Arrow list array) or a uniform row length (row r holds items
/// [r * length, (r + 1) * length)). The splits live in the caller's memory.
template <RowIndex Index>
class RowPartition {
 public:
  /// No rows.
  RowPartition() = default;

  /// Row splits in the caller's memory: at least one entry, not negative,
  /// never decreasing (checked unless `validate` is false, then it is the
  /// caller's precondition). Throws shape_error naming the index and values.
  static RowPartition from_row_splits(std::span<const Index> splits, bool validate = true,
                                      const std::string& name = "row_splits") {
    if (splits.empty())
      detail::throw_shape_error(name, " must not be empty: it needs at least one entry");
    if (validate) {
      if (splits[0] < 0) detail::throw_shape_error(name, "[0] = ", splits[0], " is negative");
      const auto i = detail::first_where(1, splits.size(),
                                         [&](std::size_t j) { return splits[j] < splits[j - 1]; });
      if (i < splits.size())
        detail::throw_shape_error(name, "[", i, "] = ", splits[i], " is less than ", name, "[",
                                  i - 1, "] = ", splits[i - 1]);
    }
    RowPartition p;
    p.splits_ = splits.data();
    p.nrows_ = static_cast<std::int64_t>(splits.size()) - 1;
    return p;
  }

  /// `nrows` rows of `length` items each (tf.RaggedTensor.from_uniform_row_length).
  static RowPartition from_uniform_row_length(std::int64_t length, std::int64_t nrows) {
    if (length < 0) detail::throw_shape_error("uniform_row_length = ", length, " is negative");
    if (nrows < 0) detail::throw_shape_error("nrows = ", nrows, " is negative");
    (void)detail::checked_mul(length, nrows, "the items of ", nrows, " rows of ", length);
    RowPartition p;
    p.uniform_ = length;
    p.nrows_ = nrows;
    return p;
  }

  /// The number of rows (tf: nrows()).
  [[nodiscard]] std::int64_t nrows() const noexcept { return nrows_; }
  /// Whether the rows all have uniform_row_length() items (no splits are stored).
  [[nodiscard]] bool is_uniform() const noexcept { return splits_ == nullptr; }
  [[nodiscard]] std::int64_t uniform_row_length() const noexcept { return uniform_; }
  /// The explicit splits (nrows() + 1 of them), or an empty span when uniform.
  [[nodiscard]] std::span<const Index> row_splits() const noexcept {
    return splits_ ? std::span<const Index>(splits_, static_cast<std::size_t>(nrows_ + 1))
                   : std::span<const Index>();
  }
  /// Where row r starts, for r in [0, nrows()] (r = nrows() is the end of the last row).
  [[nodiscard]] std::int64_t bound(std::int64_t r) const noexcept {
    return splits_ ? std::int64_t{splits_[r]} : r * uniform_;
  }
  /// The first item the rows use and one past the last: [bound(0), bound(nrows())).
  [[nodiscard]] std::int64_t first_item() const noexcept { return bound(0); }
  [[nodiscard]] std::int64_t end_item() const noexcept { return bound(nrows_); }

 private:
  const Index* splits_ = nullptr;
  std::int64_t nrows_ = 0;
  std::int64_t uniform_ = 0;
};

}  // namespace v0_1
}  // namespace ragged
