// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <ranges>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "detail/buffer.hpp"
#include "detail/builder.hpp"
#include "detail/checked.hpp"
#include "detail/same_value.hpp"
#include "error.hpp"
#include "shape.hpp"

namespace ragged {
inline namespace v0_1 {

/// A dense, row-major tensor of any rank >= 0: TensorFlow's `tf.Tensor`, NumPy's
/// `ndarray`. `Tensor<bool>` holds one byte per element and has a real `data()`.
template <class T>
class Tensor {
 public:
  using value_type = T;

  /// An empty rank-1 tensor, shape (0).
  Tensor() : shape_{0} {}

  /// A tensor of `shape` holding `values` in row-major order.
  /// Throws shape_error when the counts differ.
  template <class Values = std::vector<T>>
  requires std::ranges::sized_range<Values> Tensor(Shape shape, const Values& values)
      : shape_(std::move(shape)) {
    const auto n = static_cast<std::int64_t>(std::ranges::size(values));
    if (n != shape_.num_elements())
      detail::throw_shape_error("cannot make a tensor of shape ", to_string(shape_), " (",
                                shape_.num_elements(), " elements) from ", n, " values");
    values_ = detail::Buffer<T>(std::ranges::begin(values), std::ranges::end(values));
  }
  /// A tensor of `shape` that adopts `values`' memory: no copy. (Not for
  /// bool, whose std::vector packs bits: those are copied into bytes.)
  Tensor(Shape shape, std::vector<T>&& values) requires(!std::is_same_v<T, bool>)
      : shape_(std::move(shape)) {
    const auto n = static_cast<std::int64_t>(values.size());
    if (n != shape_.num_elements())
      detail::throw_shape_error("cannot make a tensor of shape ", to_string(shape_), " (",
                                shape_.num_elements(), " elements) from ", n, " values");
    values_ = detail::Buffer<T>(std::move(values));
  }
  Tensor(Shape shape, std::initializer_list<T> values)
      : Tensor(std::move(shape), std::span<const T>(values.begin(), values.size())) {}

  Tensor(const Tensor&) = default;
  Tensor(Tensor&&) noexcept = default;
  /// Copy assignment with the strong guarantee: should copying an element
  /// throw, the target keeps its old shape and values (copy, then swap).
  Tensor& operator=(const Tensor& other) {
    if (this != &other) {
      Tensor copy(other);
      swap(copy);
    }
    return *this;
  }
  Tensor& operator=(Tensor&& other) noexcept {
    Tensor moved(std::move(other));
    swap(moved);
    return *this;
  }
  ~Tensor() = default;
  void swap(Tensor& other) noexcept {
    shape_.swap(other.shape_);
    values_.swap(other.values_);
  }
  friend void swap(Tensor& a, Tensor& b) noexcept { a.swap(b); }

  /// A tensor of `shape` with every element equal to `value`.
  static Tensor filled(Shape shape, const T& value) {
    auto n = detail::to_size(shape.num_elements());
    return Tensor(std::move(shape), detail::Buffer<T>(n, value));
  }

  /// A tensor of `shape` whose elements are left uninitialised when T is
  /// trivially copyable (for outputs that are overwritten in full).
  static Tensor for_overwrite(Shape shape) {
    auto n = detail::to_size(shape.num_elements());
    return Tensor(std::move(shape), detail::Buffer<T>(n, detail::for_overwrite));
  }

  [[nodiscard]] const Shape& shape() const noexcept { return shape_; }
  [[nodiscard]] std::int64_t rank() const noexcept { return shape_.rank(); }
  /// Dim `i`; throws std::out_of_range unless 0 <= i < rank().
  [[nodiscard]] std::int64_t dim(std::int64_t i) const { return shape_[i]; }
  [[nodiscard]] std::int64_t size() const noexcept { return shape_.num_elements(); }
  [[nodiscard]] bool empty() const noexcept { return size() == 0; }

  [[nodiscard]] T* data() noexcept { return values_.data(); }
  [[nodiscard]] const T* data() const noexcept { return values_.data(); }
  /// The elements in row-major order.
  [[nodiscard]] std::span<T> values() noexcept { return {values_.data(), values_.size()}; }
  [[nodiscard]] std::span<const T> values() const noexcept {
    return {values_.data(), values_.size()};
  }

  /// The element at a multi-index, e.g. `t.at({1, 2})`; throws std::out_of_range
  /// when the index has the wrong rank or is outside the shape.
  [[nodiscard]] const T& at(std::span<const std::int64_t> index) const {
    return values_[offset(index)];
  }
  [[nodiscard]] T& at(std::span<const std::int64_t> index) { return values_[offset(index)]; }
  [[nodiscard]] const T& at(std::initializer_list<std::int64_t> index) const {
    return at(std::span<const std::int64_t>(index.begin(), index.size()));
  }
  [[nodiscard]] T& at(std::initializer_list<std::int64_t> index) {
    return at(std::span<const std::int64_t>(index.begin(), index.size()));
  }
  /// The element at `t(i, j, ...)`, checked as at().
  template <std::integral... I>
  [[nodiscard]] const T& operator()(I... index) const {
    const std::int64_t idx[] = {static_cast<std::int64_t>(index)..., 0};
    return at(std::span<const std::int64_t>(idx, sizeof...(I)));
  }
  template <std::integral... I>
  [[nodiscard]] T& operator()(I... index) {
    const std::int64_t idx[] = {static_cast<std::int64_t>(index)..., 0};
    return at(std::span<const std::int64_t>(idx, sizeof...(I)));
  }

  /// The same elements under another shape with the same element count (np.reshape).
  [[nodiscard]] Tensor reshaped(Shape shape) const& {
    Tensor copy = *this;
    return std::move(copy).reshaped(std::move(shape));
  }
  [[nodiscard]] Tensor reshaped(Shape shape) && {
    if (shape.num_elements() != size())
      detail::throw_shape_error("cannot reshape a tensor of shape ", to_string(shape_), " to ",
                                to_string(shape));
    shape_ = std::move(shape);
    return std::move(*this);
  }

  /// Same shape and same elements (NaN equals NaN).
  friend bool operator==(const Tensor& a, const Tensor& b) {
    if (!(a.shape_ == b.shape_)) return false;
    for (std::size_t i = 0; i < a.values_.size(); ++i)
      if (!detail::same_value(a.values_[i], b.values_[i])) return false;
    return true;
  }

 private:
  friend struct detail::builder;

  // Adopts a buffer the library filled (sizes agree): detail::builder::tensor.
  Tensor(Shape shape, detail::Buffer<T> values)
      : shape_(std::move(shape)), values_(std::move(values)) {}

  [[nodiscard]] std::size_t offset(std::span<const std::int64_t> index) const {
    if (static_cast<std::int64_t>(index.size()) != rank())
      detail::throw_out_of_range("index of rank ", index.size(), " into a tensor of shape ",
                                 to_string(shape_));
    std::int64_t off = 0;
    for (std::int64_t d = 0; d < rank(); ++d) {
      const auto i = index[detail::to_size(d)];
      if (i < 0 || i >= shape_[d])
        detail::throw_out_of_range("index ", i, " is out of range for dimension ", d,
                                   " of a tensor of shape ", to_string(shape_));
      off = off * shape_[d] + i;
    }
    return detail::to_size(off);
  }

  Shape shape_;
  detail::Buffer<T> values_;
};

}  // namespace v0_1
}  // namespace ragged
