// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "detail/checked.hpp"
#include "error.hpp"
#include "row_partition.hpp"
#include "shape.hpp"
#include "tensor.hpp"
#include "view.hpp"

namespace ragged {
inline namespace v0_1 {

/// A read-only list of indices handed to a factory: a braced list, a
/// std::vector, a std::span or a rank-1 Tensor.
template <RowIndex Index>
class IndexSpan {
 public:
  IndexSpan(std::span<const Index> s) noexcept : s_(s) {}     // NOLINT: implicit by design
  IndexSpan(const std::vector<Index>& v) noexcept : s_(v) {}  // NOLINT
  /// A vector given as an rvalue is kept: a factory that stores the indices
  /// as they are (from_row_splits) adopts its memory instead of copying.
  IndexSpan(std::vector<Index>&& v) noexcept : owned_(std::move(v)), s_(owned_) {}  // NOLINT
  IndexSpan(IndexSpan&&) noexcept = default;  // a vector's buffer stays where it is
  IndexSpan(const IndexSpan&) = delete;
  IndexSpan& operator=(const IndexSpan&) = delete;
  IndexSpan& operator=(IndexSpan&&) = delete;
  ~IndexSpan() = default;
  IndexSpan(std::initializer_list<Index> l) noexcept : s_(l.begin(), l.size()) {}  // NOLINT
  IndexSpan(const Tensor<Index>& t) : s_(t.values()) {                             // NOLINT
    if (t.rank() != 1)
      detail::throw_shape_error("indices must have rank 1, got shape ", to_string(t.shape()));
  }
  // Indices of another type: a readable error, not "no matching function".
  template <class Other>
  requires(!std::same_as<Other, Index>) IndexSpan(const std::vector<Other>&) {  // NOLINT
    static_assert(std::same_as<Other, Index>,
                  "ragged: row splits, lengths and rowids must have the RaggedTensor's Index type "
                  "(std::int64_t by default; RaggedTensor<T, std::int32_t> takes int32 splits)");
  }
  [[nodiscard]] std::span<const Index> span() const noexcept { return s_; }
  [[nodiscard]] std::int64_t size() const noexcept { return static_cast<std::int64_t>(s_.size()); }
  [[nodiscard]] Index operator[](std::int64_t i) const noexcept { return s_[detail::to_size(i)]; }
  /// The indices as a rank-1 Tensor: the adopted vector's memory when there is one, else a copy.
  [[nodiscard]] Tensor<Index> to_tensor() && {
    if (s_.data() == owned_.data() && !owned_.empty())
      return Tensor<Index>(Shape{size()}, std::move(owned_));
    return Tensor<Index>(Shape{size()}, s_);
  }

 private:
  std::vector<Index> owned_;  // only for an rvalue vector
  std::span<const Index> s_;
};

namespace detail {

// The tag through which the members from_tensor and to_tensor find their
// definitions in conversion.hpp (by argument-dependent lookup).
struct conversion {};

template <class Index>
[[nodiscard]] constexpr const char* index_name() noexcept {
  return sizeof(Index) == 4 ? "int32" : "int64";
}

// Checks that a 64-bit count fits the splits' Index type.
template <class Index>
void check_fits(std::int64_t value, const char* what) {
  if (value > std::numeric_limits<Index>::max())
    throw_shape_error(what, " ", value, " does not fit in ", index_name<Index>(), " row splits",
                      sizeof(Index) < 8 ? "; use int64" : "");
}

// The checks of TensorFlow's RaggedTensor validation for one level of splits.
template <class Index>
void validate_splits(std::span<const Index> s, std::int64_t nvalues, const std::string& name) {
  if (s.empty()) throw_shape_error(name, " must not be empty: it needs at least the leading 0");
  if (s[0] != 0) throw_shape_error(name, "[0] = ", s[0], " is not 0");
  if (const auto i = first_where(1, s.size(), [&](std::size_t j) { return s[j] < s[j - 1]; });
      i < s.size())
    throw_shape_error(name, "[", i, "] = ", s[i], " is less than ", name, "[", i - 1,
                      "] = ", s[i - 1]);
  if (s.back() != nvalues)
    throw_shape_error(name, "[", s.size() - 1, "] = ", s.back(),
                      " (the last) is not the number of values below it, ", nvalues);
}

template <class Index>
[[nodiscard]] Tensor<Index> splits_tensor(detail::Buffer<Index> b) {
  const auto n = static_cast<std::int64_t>(b.size());
  return builder::tensor<Tensor<Index>>(Shape{n}, std::move(b));
}

// The product of dims [first, last) as a count of rows, which must fit int64
// even for an empty tensor (Shape::num_elements reports 0 there instead).
[[nodiscard]] inline std::int64_t rows_in(const Shape& shape, std::int64_t first,
                                          std::int64_t last) {
  std::int64_t n = 1;
  for (auto d = first; d < last; ++d)
    n = checked_mul(n, shape[d], "the rows in dims [", first, ", ", last, ") of shape ",
                    to_string(shape));
  return n;
}

// Splits [0, len, 2 len, ..., nrows len].
template <class Index>
[[nodiscard]] Tensor<Index> uniform_splits(std::int64_t nrows, std::int64_t len) {
  (void)checked_mul(nrows, len, "the values below ", nrows, " rows of ",
                    len);  // bounds every i * len
  Buffer<Index> b(to_size(checked_add(nrows, 1, "the row splits of nrows = ", nrows)),
                  for_overwrite);
  for (std::int64_t i = 0; i <= nrows; ++i) b[to_size(i)] = static_cast<Index>(i * len);
  return splits_tensor(std::move(b));
}

// Splits from row lengths (the exclusive scan), checked for negative lengths and
// for totals that do not fit Index.
template <class Index, class Length>
[[nodiscard]] Tensor<Index> splits_from_lengths(std::span<const Length> lengths, const char* name) {
  Buffer<Index> b(lengths.size() + 1, for_overwrite);
  std::int64_t total = 0;
  b[0] = 0;
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    const auto len = static_cast<std::int64_t>(lengths[i]);
    if (len < 0) throw_shape_error(name, "[", i, "] = ", len, " is negative");
    // Checked before adding: the sum itself must not overflow (found by fuzzing).
    if (len > std::numeric_limits<Index>::max() - total)
      throw_shape_error("the sum of ", name, " up to index ", i, " (", total, " + ", len,
                        ") does not fit in ", index_name<Index>(), " row splits");
    total += len;
    b[i + 1] = static_cast<Index>(total);
  }
  return splits_tensor(std::move(b));
}

}  // namespace detail

/// A tensor with one or more ragged (variable-length) dimensions: TensorFlow's
/// `tf.RaggedTensor`. It holds `flat_values()` (a dense Tensor of rank >= 1
/// whose inner dims are the uniform inner dims) and one row-splits vector per
/// ragged dimension, outermost first. With ragged_rank() == 0 it is just its
/// flat values (what boolean_mask returns for dense data and a 1-D mask).
///
/// Every factory validates its input unless told `validate = false`; every
/// failure throws ragged::shape_error with the position and values in the message.
template <class T, RowIndex Index = std::int64_t>
class RaggedTensor {
 public:
  using value_type = T;
  using index_type = Index;

  /// An empty tensor of shape (0, None).
  RaggedTensor() : flat_values_(Shape{0}, std::vector<T>{}) {
    splits_.push_back(Tensor<Index>(Shape{1}, {Index{0}}));
  }

  RaggedTensor(const RaggedTensor&) = default;
  RaggedTensor(RaggedTensor&&) noexcept = default;
  /// Copy assignment with the strong guarantee: should copying an element
  /// throw, the target is left as it was (copy, then swap).
  RaggedTensor& operator=(const RaggedTensor& other) {
    if (this != &other) {
      RaggedTensor copy(other);
      swap(copy);
    }
    return *this;
  }
  RaggedTensor& operator=(RaggedTensor&& other) noexcept {
    RaggedTensor moved(std::move(other));
    swap(moved);
    return *this;
  }
  ~RaggedTensor() = default;
  void swap(RaggedTensor& other) noexcept {
    flat_values_.swap(other.flat_values_);
    splits_.swap(other.splits_);
    std::swap(validated_, other.validated_);
  }
  friend void swap(RaggedTensor& a, RaggedTensor& b) noexcept { a.swap(b); }

  // ---- Factories, as tf.RaggedTensor.from_* -------------------------------------------------

  /// tf.RaggedTensor.from_row_splits: row i is values[splits[i]:splits[i+1]].
  /// `values` may be a Tensor or a RaggedTensor (which adds an outer level).
  template <class Values>
  static RaggedTensor from_row_splits(Values values, IndexSpan<Index> row_splits,
                                      bool validate = true) {
    // A std::vector&& of splits is adopted (no copy), as the values are.
    return with_outer_level(std::move(values), std::move(row_splits).to_tensor(), validate,
                            "row_splits");
  }

  /// tf.RaggedTensor.from_row_lengths: row i has row_lengths[i] values.
  template <class Values>
  static RaggedTensor from_row_lengths(Values values, IndexSpan<Index> row_lengths,
                                       bool validate = true) {
    auto s = detail::splits_from_lengths<Index>(row_lengths.span(), "row_lengths");
    return with_outer_level(std::move(values), std::move(s), validate,
                            "row_splits from row_lengths");
  }

  /// tf.RaggedTensor.from_row_starts: splits are row_starts + [nvals].
  template <class Values>
  static RaggedTensor from_row_starts(Values values, IndexSpan<Index> row_starts,
                                      bool validate = true) {
    const auto nvals = outer_size(values);
    detail::check_fits<Index>(nvals, "the number of values");
    detail::Buffer<Index> b(detail::to_size(row_starts.size() + 1), detail::for_overwrite);
    std::copy(row_starts.span().begin(), row_starts.span().end(), b.begin());
    b[detail::to_size(row_starts.size())] = static_cast<Index>(nvals);
    // No rows can hold no values: [] with values is not a partition.
    if (row_starts.size() == 0 && nvals != 0)
      detail::throw_shape_error("row_starts is empty but there are ", nvals, " values");
    if (validate) check_boundaries(row_starts.span(), nvals, "row_starts", true);
    return with_outer_level(std::move(values), detail::splits_tensor(std::move(b)), validate,
                            "row_starts", true);
  }

  /// tf.RaggedTensor.from_row_limits: splits are [0] + row_limits.
  template <class Values>
  static RaggedTensor from_row_limits(Values values, IndexSpan<Index> row_limits,
                                      bool validate = true) {
    const auto nvals = outer_size(values);
    detail::Buffer<Index> b(detail::to_size(row_limits.size() + 1), detail::for_overwrite);
    b[0] = 0;
    std::copy(row_limits.span().begin(), row_limits.span().end(), b.begin() + 1);
    if (row_limits.size() == 0 && nvals != 0)
      detail::throw_shape_error("row_limits is empty but there are ", nvals, " values");
    if (validate) check_boundaries(row_limits.span(), nvals, "row_limits", false);
    return with_outer_level(std::move(values), detail::splits_tensor(std::move(b)), validate,
                            "row_limits", true);
  }

  /// tf.RaggedTensor.from_value_rowids: value j belongs to row value_rowids[j];
  /// rowids must be sorted, each in [0, nrows).
  template <class Values>
  static RaggedTensor from_value_rowids(Values values, IndexSpan<Index> value_rowids,
                                        std::int64_t nrows, bool validate = true) {
    const auto nvals = outer_size(values);
    const auto ids = value_rowids.span();
    if (static_cast<std::int64_t>(ids.size()) != nvals)
      detail::throw_shape_error("value_rowids has ", ids.size(), " entries but there are ", nvals,
                                " values");
    if (nrows < 0) detail::throw_shape_error("nrows = ", nrows, " is negative");
    detail::check_fits<Index>(nrows, "nrows");
    detail::check_fits<Index>(nvals, "the number of values");
    if (validate) {
      // Order first: an unsorted list is reported as unsorted, not as a rowid
      // past an nrows inferred from its last entry.
      if (const auto j = detail::first_where(1, ids.size(),
                                             [&](std::size_t i) { return ids[i] < ids[i - 1]; });
          j < ids.size())
        detail::throw_shape_error("value_rowids[", j, "] = ", ids[j], " is less than value_rowids[",
                                  j - 1, "] = ", ids[j - 1], ": rowids must be sorted");
      if (!ids.empty() && ids.front() < 0)
        detail::throw_shape_error("value_rowids[0] = ", ids.front(), " is negative");
      if (!ids.empty() && ids.back() >= nrows)
        detail::throw_shape_error("value_rowids[", ids.size() - 1, "] = ", ids.back(),
                                  " is not less than nrows = ", nrows);
    }
    // splits[r] = the number of values whose row is < r (a lower bound search
    // per row; safe on any input, sorted or not).
    const auto nsplits = detail::checked_add(nrows, 1, "the row splits of nrows = ", nrows);
    detail::Buffer<Index> b(detail::to_size(nsplits), detail::for_overwrite);
    for (std::int64_t r = 0; r <= nrows; ++r)
      b[detail::to_size(r)] =
          static_cast<Index>(std::lower_bound(ids.begin(), ids.end(), r) - ids.begin());
    return with_outer_level(std::move(values), detail::splits_tensor(std::move(b)), validate,
                            "value_rowids", true);
  }

  /// from_value_rowids with nrows = last rowid + 1 (0 when there are no values).
  template <class Values>
  static RaggedTensor from_value_rowids(Values values, IndexSpan<Index> value_rowids) {
    const auto ids = value_rowids.span();
    const std::int64_t nrows =
        ids.empty() ? 0
                    : detail::checked_add(ids.back(), 1, "nrows inferred from value_rowids[",
                                          ids.size() - 1, "] = ", ids.back());
    return from_value_rowids(std::move(values), std::move(value_rowids),
                             std::max<std::int64_t>(nrows, 0));
  }

  /// tf.RaggedTensor.from_uniform_row_length: rows of `uniform_row_length` values
  /// each. `nrows` is needed only when the length is 0. (The result stores the
  /// dimension as splits, so shape() reports it as None.)
  template <class Values>
  static RaggedTensor from_uniform_row_length(Values values, std::int64_t uniform_row_length,
                                              std::optional<std::int64_t> nrows = std::nullopt) {
    const auto nvals = outer_size(values);
    if (uniform_row_length < 0)
      detail::throw_shape_error("uniform_row_length = ", uniform_row_length, " is negative");
    std::int64_t rows = 0;
    if (uniform_row_length == 0) {
      if (nvals != 0)
        detail::throw_shape_error("uniform_row_length = 0 but there are ", nvals, " values");
      rows = nrows.value_or(0);
    } else {
      if (nvals % uniform_row_length != 0)
        detail::throw_shape_error("uniform_row_length = ", uniform_row_length,
                                  " does not divide the number of values, ", nvals);
      rows = nvals / uniform_row_length;
    }
    if (nrows && *nrows != rows)
      detail::throw_shape_error("nrows = ", *nrows, " but ", nvals, " values in rows of ",
                                uniform_row_length, " make ", rows, " rows");
    if (rows < 0) detail::throw_shape_error("nrows = ", rows, " is negative");
    detail::check_fits<Index>(nvals, "the number of values");
    detail::check_fits<Index>(rows, "nrows");
    return with_outer_level(std::move(values),
                            detail::uniform_splits<Index>(rows, uniform_row_length), true,
                            "row_splits", true);
  }

  /// tf.RaggedTensor.from_nested_row_splits: one splits list per ragged dim, outermost first.
  static RaggedTensor from_nested_row_splits(Tensor<T> flat_values,
                                             const std::vector<std::vector<Index>>& nested,
                                             bool validate = true) {
    std::vector<Tensor<Index>> splits;
    splits.reserve(nested.size());
    for (const auto& s : nested) splits.emplace_back(Shape{static_cast<std::int64_t>(s.size())}, s);
    return from_parts(std::move(flat_values), std::move(splits), validate);
  }

  /// tf.RaggedTensor.from_nested_row_lengths: one lengths list per ragged dim, outermost first.
  static RaggedTensor from_nested_row_lengths(Tensor<T> flat_values,
                                              const std::vector<std::vector<Index>>& nested,
                                              bool validate = true) {
    std::vector<Tensor<Index>> splits;
    splits.reserve(nested.size());
    for (std::size_t l = 0; l < nested.size(); ++l)
      splits.push_back(detail::splits_from_lengths<Index>(
          std::span<const Index>(nested[l]), l == 0 ? "row_lengths" : "nested_row_lengths"));
    return from_parts(std::move(flat_values), std::move(splits), validate);
  }

  /// From flat values and nested splits already held as tensors (rank-1 each).
  static RaggedTensor from_parts(Tensor<T> flat_values, std::vector<Tensor<Index>> nested_splits,
                                 bool validate = true) {
    RaggedTensor rt(std::move(flat_values), std::move(nested_splits));
    rt.check(validate);
    rt.validated_ = validate;
    return rt;
  }

  /// tf.RaggedTensor.from_tensor: the first `ragged_rank` dims of a dense tensor
  /// become ragged. With `lengths` (one per row of the innermost ragged dim), row
  /// r keeps its first lengths[r] entries; with `padding`, trailing entries
  /// equal to it are dropped (for inner dims, a slab is dropped when all its
  /// elements equal `padding`). ragged_rank 0 returns the tensor itself.
  /// Defined in <ragged/conversion.hpp> (ragged::from_tensor), which runs the kernel.
  template <class Defined = detail::conversion>
  static RaggedTensor from_tensor(const Tensor<T>& tensor,
                                  const std::optional<std::vector<Index>>& lengths = std::nullopt,
                                  const std::optional<T>& padding = std::nullopt,
                                  std::int64_t ragged_rank = 1) {
    static_assert(
        requires { convert_from_tensor(Defined{}, tensor, lengths, padding, ragged_rank); },
        "RaggedTensor::from_tensor is defined in <ragged/conversion.hpp>: include it");
    return convert_from_tensor(Defined{}, tensor, lengths, padding, ragged_rank);
  }

  // ---- Accessors, as tf.RaggedTensor's -------------------------------------------------------

  /// The full validation of the factories (splits start at 0, never decrease,
  /// and end at the row count below them); throws shape_error naming the level,
  /// index and values. Free for tensors already validated or built by the
  /// library. Every operation and accessor that indexes through the splits
  /// calls it, so a tensor built with validate = false is checked there, in
  /// O(nsplits), before anything is read out of bounds.
  void validate() const {
    if (!validated_) check(true);
  }
  /// Whether the splits are known valid (validated, or built by the library).
  [[nodiscard]] bool is_validated() const noexcept { return validated_; }

  /// The innermost values: a dense tensor of rank >= 1 (tf: flat_values).
  [[nodiscard]] const Tensor<T>& flat_values() const noexcept { return flat_values_; }
  /// One rank-1 splits tensor per ragged dim, outermost first (tf: nested_row_splits).
  [[nodiscard]] const std::vector<Tensor<Index>>& nested_row_splits() const noexcept {
    return splits_;
  }
  /// The outermost row splits (tf: row_splits). Throws for ragged_rank() == 0.
  [[nodiscard]] const Tensor<Index>& row_splits() const {
    require_ragged("row_splits");
    return splits_.front();
  }
  /// The number of ragged dims (tf: ragged_rank).
  [[nodiscard]] std::int64_t ragged_rank() const noexcept {
    return static_cast<std::int64_t>(splits_.size());
  }
  /// The number of dims, ragged and uniform (tf: rank / shape.rank).
  [[nodiscard]] std::int64_t rank() const noexcept { return ragged_rank() + flat_values_.rank(); }
  /// The number of rows (tf: nrows()).
  [[nodiscard]] std::int64_t nrows() const noexcept {
    return splits_.empty() ? flat_values_.dim(0) : splits_.front().size() - 1;
  }

  /// A view of the whole tensor (O(ragged_rank), no copy).
  [[nodiscard]] RaggedTensorView<const T, Index> view() const {
    return RaggedTensorView<const T, Index>(*this);
  }

  /// One level down: the values partitioned by row_splits (tf: values), as a
  /// view (no copy; the tensor must outlive it).
  [[nodiscard]] RaggedTensorView<const T, Index> values() const {
    require_ragged("values");
    validate();
    std::vector<RowPartition<Index>> parts;
    for (std::size_t l = 1; l < splits_.size(); ++l)
      parts.push_back(RowPartition<Index>::from_row_splits(splits_[l].values(), false));
    return RaggedTensorView<const T, Index>::from_partitions(flat_values_, std::move(parts), false);
  }

  /// tf: row_lengths(): the length of each row.
  [[nodiscard]] Tensor<Index> row_lengths() const {
    require_ragged("row_lengths");
    validate();
    const auto s = splits_.front().values();
    detail::Buffer<Index> b(s.size() - 1, detail::for_overwrite);
    for (std::size_t i = 0; i + 1 < s.size(); ++i) b[i] = static_cast<Index>(s[i + 1] - s[i]);
    return detail::splits_tensor(std::move(b));
  }
  /// tf: row_starts().
  [[nodiscard]] Tensor<Index> row_starts() const {
    require_ragged("row_starts");
    const auto s = splits_.front().values();
    return Tensor<Index>(Shape{nrows()}, s.first(s.size() - 1));
  }
  /// tf: row_limits().
  [[nodiscard]] Tensor<Index> row_limits() const {
    require_ragged("row_limits");
    const auto s = splits_.front().values();
    return Tensor<Index>(Shape{nrows()}, s.subspan(1));
  }
  /// tf: value_rowids(): the row of each value one level down.
  [[nodiscard]] Tensor<Index> value_rowids() const {
    require_ragged("value_rowids");
    validate();
    const auto s = splits_.front().values();
    detail::Buffer<Index> b(detail::to_size(s.back()), detail::for_overwrite);
    for (std::size_t r = 0; r + 1 < s.size(); ++r)
      std::fill(b.begin() + s[r], b.begin() + s[r + 1], static_cast<Index>(r));
    return detail::splits_tensor(std::move(b));
  }

  /// tf: bounding_shape(): the smallest dense shape that holds every row.
  [[nodiscard]] Shape bounding_shape() const {
    validate();
    std::vector<std::int64_t> dims{nrows()};
    for (const auto& s : splits_) {
      std::int64_t longest = 0;
      const auto v = s.values();
      for (std::size_t i = 0; i + 1 < v.size(); ++i)
        longest = std::max(longest, std::int64_t{v[i + 1]} - v[i]);
      dims.push_back(longest);
    }
    for (std::int64_t d = 1; d < flat_values_.rank(); ++d) dims.push_back(flat_values_.dim(d));
    return Shape(std::move(dims));
  }
  /// tf: shape: known dims as numbers, ragged dims as std::nullopt, e.g. (3, None, 2).
  [[nodiscard]] PartialShape shape() const {
    PartialShape out{nrows()};
    for (std::int64_t l = 0; l < ragged_rank(); ++l) out.emplace_back(std::nullopt);
    for (std::int64_t d = 1; d < flat_values_.rank(); ++d) out.emplace_back(flat_values_.dim(d));
    return out;
  }

  /// Row `i` (tf: rt[i]) as a view of one rank less (no copy; the tensor must
  /// outlive it): ragged_rank one less, or a slab of the flat values when
  /// ragged_rank() is 0 or 1. Throws std::out_of_range for a bad index.
  [[nodiscard]] RaggedTensorView<const T, Index> operator[](std::int64_t i) const { return row(i); }
  [[nodiscard]] RaggedTensorView<const T, Index> row(std::int64_t i) const {
    if (i < 0 || i >= nrows())
      detail::throw_out_of_range("row ", i, " is out of range for a RaggedTensor with ", nrows(),
                                 " rows");
    if (rank() < 2)
      detail::throw_shape_error("row ", i, " of a rank-1 tensor is a scalar; read flat_values()");
    validate();
    const auto& fshape = flat_values_.shape();
    const auto inner = fshape.num_elements(1, fshape.rank());
    std::vector<std::int64_t> dims(fshape.begin(), fshape.end());
    if (splits_.empty()) {
      // A slab of the flat values: dims [1:].
      dims.erase(dims.begin());
      return RaggedTensorView<const T, Index>::from_partitions(
          TensorView<const T>(flat_values_.data() + i * inner, Shape(std::move(dims))), {}, false);
    }
    if (splits_.size() == 1) {
      const auto s = splits_.front().values();
      const std::int64_t lo = s[detail::to_size(i)];
      dims[0] = std::int64_t{s[detail::to_size(i) + 1]} - lo;
      return RaggedTensorView<const T, Index>::from_partitions(
          TensorView<const T>(flat_values_.data() + lo * inner, Shape(std::move(dims))), {}, false);
    }
    // The rows of level 1 under row i: their splits are absolute, as views allow.
    std::vector<RowPartition<Index>> parts;
    const auto s0 = splits_.front().values();
    const auto lo = static_cast<std::size_t>(s0[detail::to_size(i)]);
    const auto hi = static_cast<std::size_t>(s0[detail::to_size(i) + 1]);
    parts.push_back(
        RowPartition<Index>::from_row_splits(splits_[1].values().subspan(lo, hi - lo + 1), false));
    for (std::size_t l = 2; l < splits_.size(); ++l)
      parts.push_back(RowPartition<Index>::from_row_splits(splits_[l].values(), false));
    return RaggedTensorView<const T, Index>::from_partitions(flat_values_, std::move(parts), false);
  }

  /// The rows as views, for range-for (tf: iterating a RaggedTensor).
  class RowRange {
   public:
    class iterator {
     public:
      using value_type = RaggedTensorView<const T, Index>;
      using difference_type = std::ptrdiff_t;
      iterator() = default;
      iterator(const RaggedTensor* rt, std::int64_t i) noexcept : rt_(rt), i_(i) {}
      [[nodiscard]] value_type operator*() const { return rt_->row(i_); }
      iterator& operator++() noexcept {
        ++i_;
        return *this;
      }
      iterator operator++(int) noexcept {
        auto old = *this;
        ++i_;
        return old;
      }
      friend bool operator==(const iterator& a, const iterator& b) noexcept { return a.i_ == b.i_; }

     private:
      const RaggedTensor* rt_ = nullptr;
      std::int64_t i_ = 0;
    };
    explicit RowRange(const RaggedTensor& rt) noexcept : rt_(&rt) {}
    [[nodiscard]] iterator begin() const noexcept { return {rt_, 0}; }
    [[nodiscard]] iterator end() const noexcept { return {rt_, rt_->nrows()}; }
    [[nodiscard]] std::int64_t size() const noexcept { return rt_->nrows(); }

   private:
    const RaggedTensor* rt_;
  };
  [[nodiscard]] RowRange rows() const noexcept { return RowRange(*this); }

  /// tf: to_tensor(default_value, shape): a dense tensor padded with
  /// `default_value`; with `shape`, rows are padded or truncated to it.
  /// Defined in <ragged/conversion.hpp> (ragged::to_tensor).
  template <class Defined = detail::conversion>
  [[nodiscard]] Tensor<T> to_tensor(const T& default_value = T{},
                                    const std::optional<Shape>& shape = std::nullopt) const {
    static_assert(
        requires { convert_to_tensor(Defined{}, *this, default_value, shape); },
        "RaggedTensor::to_tensor is defined in <ragged/conversion.hpp>: include it");
    return convert_to_tensor(Defined{}, *this, default_value, shape);
  }

  /// The same tensor with another row-splits type (tf: with_row_splits_dtype);
  /// throws shape_error when a split does not fit.
  template <RowIndex Index2>
  [[nodiscard]] RaggedTensor<T, Index2> with_row_splits_dtype() const {
    validate();  // the last split is the largest only in valid splits
    std::vector<Tensor<Index2>> splits;
    for (const auto& s : splits_) {
      detail::check_fits<Index2>(s.values().empty() ? 0 : std::int64_t{s.values().back()},
                                 "row split");
      detail::Buffer<Index2> b(s.values().begin(), s.values().end());
      splits.push_back(detail::splits_tensor(std::move(b)));
    }
    auto out = RaggedTensor<T, Index2>::from_parts(flat_values_, std::move(splits), false);
    out.validated_ = true;  // validated above, and the values did not change
    return out;
  }

  /// Same structure and same values (NaN equals NaN).
  friend bool operator==(const RaggedTensor& a, const RaggedTensor& b) {
    return a.splits_ == b.splits_ && a.flat_values_ == b.flat_values_;
  }

 private:
  template <class, RowIndex>
  friend class RaggedTensor;
  friend struct detail::builder;

  RaggedTensor(Tensor<T> flat_values, std::vector<Tensor<Index>> splits)
      : flat_values_(std::move(flat_values)), splits_(std::move(splits)) {}

  void require_ragged(const char* what) const {
    if (splits_.empty())
      detail::throw_shape_error(what, "() needs ragged_rank >= 1, but ragged_rank is 0");
  }

  // The number of rows of a factory's values argument.
  static std::int64_t outer_size(const std::vector<T>& v) {
    return static_cast<std::int64_t>(v.size());
  }
  static std::int64_t outer_size(std::span<const T> v) {
    return static_cast<std::int64_t>(v.size());
  }
  static std::int64_t outer_size(const Tensor<T>& v) {
    if (v.rank() < 1) detail::throw_shape_error("values must have rank >= 1, got a scalar");
    return v.dim(0);
  }
  static std::int64_t outer_size(const RaggedTensor& v) { return v.nrows(); }

  // Adds `splits` above `values`. `validate` says whether the result counts as
  // validated; `checked` that the caller has already validated the splits in
  // its own terms (row starts, limits, rowids), so only the O(1) check is left.
  static RaggedTensor with_outer_level(Tensor<T> values, Tensor<Index> splits, bool validate,
                                       const char* name, bool checked = false) {
    if (values.rank() < 1) detail::throw_shape_error("values must have rank >= 1, got a scalar");
    detail::check_fits<Index>(values.dim(0), "the number of values");
    check_level(splits, values.dim(0), validate && !checked, name);
    std::vector<Tensor<Index>> s;
    s.push_back(std::move(splits));
    RaggedTensor rt(std::move(values), std::move(s));
    rt.validated_ = validate;
    return rt;
  }
  // Values given as a std::vector (adopted, no copy) or a span (copied once).
  static RaggedTensor with_outer_level(std::vector<T> values, Tensor<Index> splits, bool validate,
                                       const char* name, bool checked = false) {
    const auto n = static_cast<std::int64_t>(values.size());
    if constexpr (std::is_same_v<T, bool>)
      return with_outer_level(Tensor<T>(Shape{n}, values), std::move(splits), validate, name,
                              checked);
    else
      return with_outer_level(Tensor<T>(Shape{n}, std::move(values)), std::move(splits), validate,
                              name, checked);
  }
  static RaggedTensor with_outer_level(std::span<const T> values, Tensor<Index> splits,
                                       bool validate, const char* name, bool checked = false) {
    return with_outer_level(Tensor<T>(Shape{static_cast<std::int64_t>(values.size())}, values),
                            std::move(splits), validate, name, checked);
  }
  static RaggedTensor with_outer_level(RaggedTensor values, Tensor<Index> splits, bool validate,
                                       const char* name, bool checked = false) {
    check_level(splits, values.nrows(), validate && !checked, name);
    values.splits_.insert(values.splits_.begin(), std::move(splits));
    values.validated_ = validate && values.validated_;
    return values;
  }

  // Row starts (leading 0) or limits (trailing nvals) must be non-decreasing and within [0, nvals].
  static void check_boundaries(std::span<const Index> b, std::int64_t nvals, const char* name,
                               bool starts) {
    // The first entry that is out of range or below the one before, then which it is.
    const auto bad = [&](std::size_t i) {
      return b[i] < 0 || b[i] > nvals || (i > 0 && b[i] < b[i - 1]);
    };
    if (const auto i = detail::first_where(0, b.size(), bad); i < b.size()) {
      if (b[i] < 0) detail::throw_shape_error(name, "[", i, "] = ", b[i], " is negative");
      if (b[i] > nvals)
        detail::throw_shape_error(name, "[", i, "] = ", b[i],
                                  " is greater than the number of values, ", nvals);
      if (i && b[i] < b[i - 1])
        detail::throw_shape_error(name, "[", i, "] = ", b[i], " is less than ", name, "[", i - 1,
                                  "] = ", b[i - 1]);
    }
    if (starts && !b.empty() && b[0] != 0)
      detail::throw_shape_error(name, "[0] = ", b[0], " is not 0");
    if (!starts && !b.empty() && b.back() != nvals)
      detail::throw_shape_error(name, "[", b.size() - 1, "] = ", b.back(),
                                " (the last) is not the number of values, ", nvals);
  }

  // The full O(n) validation, or with validate = false only the O(1) size
  // agreement that indexing relies on.
  static void check_level(const Tensor<Index>& splits, std::int64_t below, bool validate,
                          const std::string& name) {
    if (splits.rank() != 1)
      detail::throw_shape_error(name, " must have rank 1, got shape ", to_string(splits.shape()));
    if (validate) {
      detail::validate_splits<Index>(splits.values(), below, name);
    } else if (splits.size() < 1 || splits.values().back() != below) {
      detail::throw_shape_error(name, " has ", splits.size(),
                                " entries that do not end at the number of values below it, ",
                                below);
    }
  }

  [[nodiscard]] std::string level_name(std::size_t l) const {
    return splits_.size() == 1 ? std::string("row_splits")
                               : detail::cat("nested_row_splits[", l, "]");
  }

  void check(bool validate) const {
    if (flat_values_.rank() < 1)
      detail::throw_shape_error("flat_values must have rank >= 1, got a scalar");
    detail::check_fits<Index>(flat_values_.dim(0), "the number of values");
    // Every level's own shape first, so that an empty level is blamed itself,
    // not the level above it whose row count it would be.
    for (std::size_t l = 0; l < splits_.size(); ++l) {
      if (splits_[l].rank() != 1)
        detail::throw_shape_error(level_name(l), " must have rank 1, got shape ",
                                  to_string(splits_[l].shape()));
      if (splits_[l].size() < 1)
        detail::throw_shape_error(level_name(l),
                                  " must not be empty: it needs at least the leading 0");
    }
    for (std::size_t l = 0; l < splits_.size(); ++l) {
      const auto below = l + 1 < splits_.size() ? splits_[l + 1].size() - 1 : flat_values_.dim(0);
      check_level(splits_[l], below, validate, level_name(l));
    }
  }

  // Copies rows [lo, hi) of level `level` into the dense output at `out`.
  Tensor<T> flat_values_;
  std::vector<Tensor<Index>> splits_;
  // Whether the splits have had the full validation (or were built by the
  // library, correct by construction). Those built with validate = false are
  // validated by every operation that indexes through them.
  bool validated_ = true;
};

}  // namespace v0_1
}  // namespace ragged
