// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "detail/checked.hpp"
#include "error.hpp"

namespace ragged {
inline namespace v0_1 {

class Shape;
std::string to_string(const Shape& shape);

/// The dims of a dense tensor (TensorFlow's `TensorShape`): rank >= 0, each dim >= 0.
/// Products of dims are computed in 64 bits and checked for overflow.
class Shape {
 public:
  Shape() = default;  // rank 0: a scalar
  Shape(std::initializer_list<std::int64_t> dims) : dims_(dims) { check(); }
  explicit Shape(std::vector<std::int64_t> dims) : dims_(std::move(dims)) { check(); }
  explicit Shape(std::span<const std::int64_t> dims) : dims_(dims.begin(), dims.end()) { check(); }

  [[nodiscard]] std::int64_t rank() const noexcept {
    return static_cast<std::int64_t>(dims_.size());
  }
  /// Dim `i`, 0 <= i < rank(); throws std::out_of_range otherwise (a shape is
  /// a handful of dims: checking costs nothing next to what is done with it).
  [[nodiscard]] std::int64_t operator[](std::int64_t i) const {
    if (i < 0 || i >= rank())
      detail::throw_out_of_range("dimension ", i, " is out of range for shape ", to_string(*this),
                                 " of rank ", rank());
    return dims_[static_cast<std::size_t>(i)];
  }
  [[nodiscard]] std::span<const std::int64_t> dims() const noexcept { return dims_; }
  [[nodiscard]] auto begin() const noexcept { return dims_.begin(); }
  [[nodiscard]] auto end() const noexcept { return dims_.end(); }

  /// The number of elements: the product of the dims (1 for a scalar).
  [[nodiscard]] std::int64_t num_elements() const noexcept { return num_elements_; }
  /// The product of dims [first, last), 0 <= first <= last <= rank() (else
  /// std::out_of_range). It fits int64 whenever the shape has elements. When it
  /// has none, a zero dim outside [first, last) may leave the product too large
  /// for int64, as in (0, 2^62, 2^62); then 0 is returned: no element is ever
  /// addressed with it, and every size derived from it stays finite.
  [[nodiscard]] std::int64_t num_elements(std::int64_t first, std::int64_t last) const {
    check_range(first, last);
    std::int64_t n = 1;
    for (auto i = first; i < last; ++i)
      if (detail::mul_overflows(n, dims_[static_cast<std::size_t>(i)], n)) return 0;
    return n;
  }
  /// The dims [first, last) as a new shape (std::out_of_range for a bad range).
  [[nodiscard]] Shape slice(std::int64_t first, std::int64_t last) const {
    check_range(first, last);
    return Shape(std::span<const std::int64_t>(dims_).subspan(
        static_cast<std::size_t>(first), static_cast<std::size_t>(last - first)));
  }

  void swap(Shape& other) noexcept {
    dims_.swap(other.dims_);
    std::swap(num_elements_, other.num_elements_);
  }

  friend bool operator==(const Shape& a, const Shape& b) noexcept { return a.dims_ == b.dims_; }

 private:
  void check_range(std::int64_t first, std::int64_t last) const {
    if (first < 0 || first > last || last > rank())
      detail::throw_out_of_range("dims [", first, ", ", last, ") are out of range for shape ",
                                 to_string(*this), " of rank ", rank());
  }
  void check() {
    bool has_zero = false;
    for (std::size_t i = 0; i < dims_.size(); ++i) {
      if (dims_[i] < 0)
        detail::throw_shape_error("dimension ", i, " of shape ", to_string(*this), " is negative");
      has_zero = has_zero || dims_[i] == 0;
    }
    std::int64_t n = 1;
    // A zero dim makes the product 0 even where the other dims would overflow.
    if (has_zero)
      n = 0;
    else
      for (const auto d : dims_) {
        if (n > std::numeric_limits<std::int64_t>::max() / d)
          detail::throw_shape_error("shape ", to_string(*this),
                                    " has more elements than int64 can count");
        n *= d;
      }
    num_elements_ = n;
  }

  std::vector<std::int64_t> dims_;
  std::int64_t num_elements_ = 1;
};

/// A shape whose ragged dims are unknown (`std::nullopt`), as TensorFlow's
/// `RaggedTensor.shape`, e.g. `[3, None, 2]`.
using PartialShape = std::vector<std::optional<std::int64_t>>;

/// "(1, 3)": a shape as TensorFlow's error messages print it; "()" for a scalar.
inline std::string to_string(const Shape& shape) {
  std::string out = "(";
  for (std::int64_t i = 0; i < shape.rank(); ++i) {
    if (i) out += ", ";
    out += std::to_string(shape[i]);
  }
  out += ")";
  return out;
}

/// "(3, None, 2)": a partial shape, unknown (ragged) dims printed as None.
inline std::string to_string(const PartialShape& shape) {
  std::string out = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) out += ", ";
    out += shape[i] ? std::to_string(*shape[i]) : std::string("None");
  }
  out += ")";
  return out;
}

}  // namespace v0_1
}  // namespace ragged
