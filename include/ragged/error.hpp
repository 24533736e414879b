// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

#include "detail/text.hpp"

namespace ragged {
inline namespace v0_1 {

/// Thrown when shapes do not conform: a mask that is not a prefix of the data,
/// row splits that are not valid, a literal whose rows differ in length. The
/// counterpart of TensorFlow's `ValueError` / `InvalidArgumentError` for shapes.
/// The message always carries the numbers (shapes, indices, values).
class shape_error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// Thrown by `ragged::parse` and friends for text that is not a literal. `offset()`
/// is the 0-based character offset of the problem in the input.
class parse_error : public std::invalid_argument {
 public:
  parse_error(const std::string& what, std::size_t offset)
      : std::invalid_argument(what), offset_(offset) {}
  [[nodiscard]] std::size_t offset() const noexcept { return offset_; }

 private:
  std::size_t offset_;
};

namespace detail {

// Cold, out-of-line throw helpers keep the formatting code off the hot paths.
template <class... Parts>
[[noreturn, gnu::cold, gnu::noinline]] void throw_shape_error(const Parts&... parts) {
  throw shape_error(cat(parts...));
}

template <class... Parts>
[[noreturn, gnu::cold, gnu::noinline]] void throw_out_of_range(const Parts&... parts) {
  throw std::out_of_range(cat(parts...));
}

}  // namespace detail
}  // namespace v0_1
}  // namespace ragged
