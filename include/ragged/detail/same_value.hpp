// SPDX-License-Identifier: Apache-2.0
// Element equality as the library compares tensors.
#pragma once

#include <cmath>
#include <type_traits>

namespace ragged {
inline namespace v0_1 {
namespace detail {

// NaN equals NaN here, so that a tensor equals its own copy and parse(to_string(x)) == x.
template <class T>
[[nodiscard]] bool same_value(const T& a, const T& b) {
  if constexpr (std::is_floating_point_v<T>)
    return a == b || (std::isnan(a) && std::isnan(b));
  else
    return a == b;
}

}  // namespace detail
}  // namespace v0_1
}  // namespace ragged
