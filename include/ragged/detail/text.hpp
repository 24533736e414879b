// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <concepts>
#include <cstdint>
#include <cstdio>
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

// Appends `s` with quotes, backslashes and control bytes escaped (\n, \xHH).
inline void append_escaped(std::string& out, std::string_view s) {
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char hex[8];
          std::snprintf(hex, sizeof hex, "\\x%02x", static_cast<unsigned>(c));
          out += hex;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
}

inline void append_quoted(std::string& out, std::string_view s) {
  out += '"';
  append_escaped(out, s);
  out += '"';
}

// Input text quoted for an error message: escaped (a NUL or an ESC sequence
// in the input must not cut the message or reach a terminal) and cut after
// 40 bytes.
inline std::string excerpt(std::string_view s) {
  constexpr std::size_t longest = 40;
  std::string out = "'";
  append_escaped(out, s.substr(0, longest));
  out += s.size() > longest ? "'..." : "'";
  return out;
}

}  // namespace detail
}  // namespace v0_1
}  // namespace ragged
