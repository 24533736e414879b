// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

namespace ragged {
inline namespace v0_1 {
namespace detail {

inline void append_part(std::string& out, std::string_view s) {
  out.append(s);
}
inline void append_part(std::string& out, const char* s) {
  out.append(s);
}
inline void append_part(std::string& out, const std::string& s) {
  out.append(s);
}
inline void append_part(std::string& out, char c) {
  out.push_back(c);
}
template <std::integral I>
requires(!std::same_as<I, char> && !std::same_as<I, bool>) void append_part(std::string& out,
                                                                            I value) {
  out.append(std::to_string(value));
}

/// Concatenates strings and integers into one message.
template <class... Parts>
std::string cat(const Parts&... parts) {
  std::string out;
  (append_part(out, parts), ...);
  return out;
}

}  // namespace detail
}  // namespace v0_1
}  // namespace ragged
