// SPDX-License-Identifier: Apache-2.0
// Non-owning tensors over the caller's memory: what the operations take, so
// that data in a std::vector, a span, a memory-mapped file or an Arrow array
// is masked where it lies, without a copy.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "detail/checked.hpp"
#include "detail/same_value.hpp"
#include "error.hpp"
#include "kernel/bits.hpp"
#include "row_partition.hpp"
#include "shape.hpp"
#include "tensor.hpp"

namespace ragged {
inline namespace v0_1 {

template <class T, RowIndex Index>
class RaggedTensor;

/// A dense, row-major tensor in someone else's memory: a pointer and a Shape,
/// as `std::mdspan` with a row-major layout or xtensor's `adapt`. `T` may be
/// const. Made from a pointer and a shape, from a span (rank 1), or
/// implicitly and in O(1) from a Tensor. The memory must outlive the view.
template <class T>
class TensorView {
 public:
  using value_type = std::remove_const_t<T>;
  using element_type = T;

  /// An empty rank-1 view, shape (0).
  TensorView() : shape_{0} {}
  /// `shape.num_elements()` elements from `data` on, row-major.
  TensorView(T* data, Shape shape) : data_(data), shape_(std::move(shape)) {}
  /// A rank-1 view of a span (a std::vector converts to one).
  TensorView(std::span<T> values)  // NOLINT: implicit by design
      : data_(values.data()), shape_{static_cast<std::int64_t>(values.size())} {}
  /// A view of a Tensor's elements (O(1), no copy).
  TensorView(Tensor<value_type>& t) : data_(t.data()), shape_(t.shape()) {}  // NOLINT
  TensorView(const Tensor<value_type>& t)                                    // NOLINT
      requires std::is_const_v<T> : data_(t.data()),
                                    shape_(t.shape()) {}
  /// A mutable view converts to a const one. (A template, so that it is not
  /// taken for the copy constructor of a mutable view.)
  template <class U>
  requires(std::is_const_v<T>&& std::is_same_v<U, value_type>) TensorView(  // NOLINT
      const TensorView<U>& v)
      : data_(v.data()), shape_(v.shape()) {}

  [[nodiscard]] T* data() const noexcept { return data_; }
  [[nodiscard]] const Shape& shape() const noexcept { return shape_; }
  [[nodiscard]] std::int64_t rank() const noexcept { return shape_.rank(); }
  /// Dim `i`; throws std::out_of_range unless 0 <= i < rank().
  [[nodiscard]] std::int64_t dim(std::int64_t i) const { return shape_[i]; }
  [[nodiscard]] std::int64_t size() const noexcept { return shape_.num_elements(); }
  [[nodiscard]] bool empty() const noexcept { return size() == 0; }
  [[nodiscard]] std::span<T> values() const noexcept {
    return {data_, static_cast<std::size_t>(size())};
  }
  [[nodiscard]] T* begin() const noexcept { return data_; }
  [[nodiscard]] T* end() const noexcept { return data_ + size(); }

 private:
  T* data_ = nullptr;
  Shape shape_;
};

template <class T>
TensorView(T*, Shape) -> TensorView<T>;
template <class T>
TensorView(Tensor<T>&) -> TensorView<T>;
template <class T>
TensorView(const Tensor<T>&) -> TensorView<const T>;

/// A byte mask of another library (NumPy's or Arrow's bytes, 0 = false and
/// any other value true) as a mask the operations take, without a copy; the
/// kernel reads every mask byte as nonzero = true. Rank 1, or `shape`.
inline TensorView<const bool> byte_mask(std::span<const std::uint8_t> bytes) {
  return {reinterpret_cast<const bool*>(bytes.data()),
          Shape{static_cast<std::int64_t>(bytes.size())}};
}
inline TensorView<const bool> byte_mask(std::span<const std::uint8_t> bytes, Shape shape) {
  if (shape.num_elements() != static_cast<std::int64_t>(bytes.size()))
    detail::throw_shape_error("byte_mask: ", bytes.size(), " bytes cannot have shape ",
                              to_string(shape), " (", shape.num_elements(), " elements)");
  return {reinterpret_cast<const bool*>(bytes.data()), std::move(shape)};
}

/// The element type of bit-packed masks: a TensorView<const Bit> is a mask of
/// one bit per entry in Arrow's boolean layout (LSB first, from a bit offset),
/// made by bit_mask(); as the flat values of a RaggedTensorView it makes a
/// ragged bit mask. The kernel reads such masks 64 entries per load, with no
/// expansion to bytes. There are no Bit objects: entries read as bool.
struct Bit {};

/// A bit-packed mask over the caller's bytes (see bit_mask): kernel::Bits and a Shape.
template <>
class TensorView<const Bit> {
 public:
  using value_type = Bit;
  using element_type = const Bit;

  /// An empty rank-1 mask, shape (0).
  TensorView() : shape_{0} {}
  /// `shape.num_elements()` entries from `bits` on, row-major.
  TensorView(kernel::Bits bits, Shape shape) : bits_(bits), shape_(std::move(shape)) {}

  /// Where entry 0 is; `data() + i` is entry i.
  [[nodiscard]] kernel::Bits data() const noexcept { return bits_; }
  [[nodiscard]] const Shape& shape() const noexcept { return shape_; }
  [[nodiscard]] std::int64_t rank() const noexcept { return shape_.rank(); }
  [[nodiscard]] std::int64_t dim(std::int64_t i) const { return shape_[i]; }
  [[nodiscard]] std::int64_t size() const noexcept { return shape_.num_elements(); }
  [[nodiscard]] bool empty() const noexcept { return size() == 0; }
  /// Entry `i` of the flat (row-major) entries; throws std::out_of_range unless 0 <= i < size().
  [[nodiscard]] bool at(std::int64_t i) const {
    if (i < 0 || i >= size()) detail::throw_out_of_range("bit mask entry ", i, " of ", size());
    return bits_[i];
  }
  /// The bytes that hold the entries (for aliasing checks).
  [[nodiscard]] std::span<const std::uint8_t> bytes() const noexcept {
    return {bits_.data, static_cast<std::size_t>((bits_.offset + size() + 7) / 8)};
  }

 private:
  kernel::Bits bits_;
  Shape shape_;
};

/// A bit-packed mask of another library, in Arrow's layout for booleans and
/// validity bitmaps (pyarrow's BooleanArray buffers, a std::vector<uint64_t>
/// of words on a little-endian machine): entry i is bit (bit_offset + i) % 8
/// of bytes[(bit_offset + i) / 8], least significant bit first. No copy: the
/// bytes must outlive the mask. Shape (n) for a flat mask, or any shape for a
/// dense one; as the flat values of a RaggedTensorView<const Bit> it is a
/// ragged mask. Bits outside the entries are never read as entries. Throws
/// shape_error when the bytes hold fewer than bit_offset + n bits, or when
/// bit_offset is negative.
inline TensorView<const Bit> bit_mask(std::span<const std::uint8_t> bytes, Shape shape,
                                      std::int64_t bit_offset = 0) {
  const auto n = shape.num_elements();
  const auto have = detail::checked_mul(static_cast<std::int64_t>(bytes.size()), 8, "the bits of ",
                                        bytes.size(), " bytes");
  if (bit_offset < 0)
    detail::throw_shape_error("bit_mask: bit_offset = ", bit_offset, " is negative");
  if (bit_offset > have || n > have - bit_offset)
    detail::throw_shape_error("bit_mask: ", bytes.size(), " bytes hold ", have,
                              " bits, too few for ", n, " entries of shape ", to_string(shape),
                              " from bit offset ", bit_offset);
  return {kernel::Bits{bytes.data(), 0} + bit_offset, std::move(shape)};
}

/// A RaggedTensor in someone else's memory: flat values (a TensorView) and
/// one RowPartition per ragged dim, outermost first; splits may start above
/// 0 and the values may be longer than the splits reach (an Arrow slice).
/// Made in O(1) per level from a RaggedTensor, or by the factories below,
/// which validate in O(nsplits) unless told not to.
template <class T, RowIndex Index = std::int64_t>
class RaggedTensorView {
 public:
  using value_type = std::remove_const_t<T>;
  using index_type = Index;

  RaggedTensorView() = default;
  /// A view of a RaggedTensor (O(ragged_rank), no copy). A RaggedTensor built
  /// with validate = false is validated here first.
  RaggedTensorView(const RaggedTensor<value_type, Index>& rt)  // NOLINT: implicit by design
      requires std::is_const_v<T> : flat_values_(rt.flat_values()) {
    rt.validate();
    for (const auto& s : rt.nested_row_splits())
      partitions_.push_back(RowPartition<Index>::from_row_splits(s.values(), false));
  }

  /// tf.RaggedTensor.from_row_splits over the caller's values and splits:
  /// row i is values[splits[i] : splits[i + 1]] (splits not negative, never
  /// decreasing, the last at most the number of values).
  static RaggedTensorView from_row_splits(TensorView<T> values, std::span<const Index> splits,
                                          bool validate = true) {
    return from_partitions(std::move(values),
                           {RowPartition<Index>::from_row_splits(splits, validate)}, validate);
  }
  /// tf.RaggedTensor.from_nested_row_splits: one splits span per ragged dim, outermost first.
  static RaggedTensorView from_nested_row_splits(TensorView<T> flat_values,
                                                 const std::vector<std::span<const Index>>& nested,
                                                 bool validate = true) {
    std::vector<RowPartition<Index>> parts;
    for (std::size_t l = 0; l < nested.size(); ++l)
      parts.push_back(RowPartition<Index>::from_row_splits(
          nested[l], validate,
          nested.size() == 1 ? std::string("row_splits")
                             : detail::cat("nested_row_splits[", l, "]")));
    return from_partitions(std::move(flat_values), std::move(parts), validate);
  }
  /// tf.RaggedTensor.from_uniform_row_length: rows of `length` values; no
  /// splits are stored. (`values` must hold a whole number of rows.)
  static RaggedTensorView from_uniform_row_length(TensorView<T> values, std::int64_t length,
                                                  std::int64_t nrows) {
    return from_partitions(std::move(values),
                           {RowPartition<Index>::from_uniform_row_length(length, nrows)}, true);
  }
  /// From flat values and partitions, outermost first. Each level's rows must
  /// lie within the rows of the level below (checked unless `validate` is false).
  static RaggedTensorView from_partitions(TensorView<T> flat_values,
                                          std::vector<RowPartition<Index>> partitions,
                                          bool validate = true) {
    if (flat_values.rank() < 1)
      detail::throw_shape_error("flat_values must have rank >= 1, got a scalar");
    RaggedTensorView v;
    v.flat_values_ = std::move(flat_values);
    v.partitions_ = std::move(partitions);
    if (validate) v.check_levels();
    return v;
  }

  [[nodiscard]] const TensorView<T>& flat_values() const noexcept { return flat_values_; }
  [[nodiscard]] const std::vector<RowPartition<Index>>& partitions() const noexcept {
    return partitions_;
  }
  [[nodiscard]] std::int64_t ragged_rank() const noexcept {
    return static_cast<std::int64_t>(partitions_.size());
  }
  [[nodiscard]] std::int64_t rank() const noexcept { return ragged_rank() + flat_values_.rank(); }
  [[nodiscard]] std::int64_t nrows() const noexcept {
    return partitions_.empty() ? flat_values_.dim(0) : partitions_.front().nrows();
  }
  /// Same structure (row lengths at every level, inner dims) and same values
  /// (NaN equals NaN), wherever each side's splits start; a RaggedTensor
  /// compares through its view.
  friend bool operator==(const RaggedTensorView& a, const RaggedTensorView& b) {
    if (a.ragged_rank() != b.ragged_rank() || a.nrows() != b.nrows()) return false;
    const auto& fa = a.flat_values().shape();
    const auto& fb = b.flat_values().shape();
    if (fa.rank() != fb.rank()) return false;
    for (std::int64_t d = 1; d < fa.rank(); ++d)
      if (fa[d] != fb[d]) return false;
    return equal_rows(a, b, 0, 0, 0, a.nrows());
  }

  /// tf: shape, e.g. (3, None, 2); uniform partitions are reported as None too.
  [[nodiscard]] PartialShape shape() const {
    PartialShape out{nrows()};
    for (std::int64_t l = 0; l < ragged_rank(); ++l) out.emplace_back(std::nullopt);
    for (std::int64_t d = 1; d < flat_values_.rank(); ++d) out.emplace_back(flat_values_.dim(d));
    return out;
  }

 private:
  // Rows [la, la + n) of a and [lb, lb + n) of b, from `level` down.
  static bool equal_rows(const RaggedTensorView& a, const RaggedTensorView& b, std::size_t level,
                         std::int64_t la, std::int64_t lb, std::int64_t n) {
    if (level == a.partitions_.size()) {
      const auto inner = a.flat_values_.shape().num_elements(1, a.flat_values_.rank());
      const auto x = a.flat_values_.data() + la * inner;
      const auto y = b.flat_values_.data() + lb * inner;
      for (std::int64_t i = 0; i < n * inner; ++i)
        if (!detail::same_value(x[i], y[i])) return false;
      return true;
    }
    const auto& pa = a.partitions_[level];
    const auto& pb = b.partitions_[level];
    for (std::int64_t r = 0; r < n; ++r)
      if (pa.bound(la + r + 1) - pa.bound(la + r) != pb.bound(lb + r + 1) - pb.bound(lb + r))
        return false;
    return n == 0 ||
           equal_rows(a, b, level + 1, pa.bound(la), pb.bound(lb), pa.bound(la + n) - pa.bound(la));
  }

  // Each level reaches only rows that exist one level down.
  void check_levels() const {
    for (std::size_t l = 0; l < partitions_.size(); ++l) {
      const auto below =
          l + 1 < partitions_.size() ? partitions_[l + 1].nrows() : flat_values_.dim(0);
      const auto& p = partitions_[l];
      if (p.end_item() > below)
        detail::throw_shape_error(
            partitions_.size() == 1 ? std::string("row_splits")
                                    : detail::cat("nested_row_splits[", l, "]"),
            " reaches ", p.end_item(), " but there are only ", below, " rows below it");
    }
  }

  TensorView<T> flat_values_;
  std::vector<RowPartition<Index>> partitions_;
};

template <class T, class Index>
RaggedTensorView(const RaggedTensor<T, Index>&) -> RaggedTensorView<const T, Index>;

}  // namespace v0_1
}  // namespace ragged
