// SPDX-License-Identifier: Apache-2.0
// Reading a float or double from text, exactly rounded and independent of the
// program's locale, on every standard library: std::from_chars where the
// library has it for floating point (libstdc++ >= 11, MSVC), else the C
// library's strtod_l / strtof_l under a "C" locale object of its own (libc++
// before 20), which no setlocale() call can change. Internal.
#pragma once

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>
#include <system_error>

#if !(defined(__cpp_lib_to_chars) && __cpp_lib_to_chars >= 201611L)
#define RAGGED_FLOAT_FROM_CHARS 0
#include <locale.h>
#if defined(__APPLE__)
#include <xlocale.h>
#endif
#else
#define RAGGED_FLOAT_FROM_CHARS 1
#endif

namespace ragged {
inline namespace v0_1 {
namespace detail {

#if !RAGGED_FLOAT_FROM_CHARS
#if defined(_WIN32)
using c_locale_t = _locale_t;
inline c_locale_t c_locale() {
  static const c_locale_t loc = _create_locale(LC_ALL, "C");
  return loc;
}
inline double strtod_c(const char* s, char** end) {
  return _strtod_l(s, end, c_locale());
}
inline float strtof_c(const char* s, char** end) {
  return _strtof_l(s, end, c_locale());
}
#else
inline locale_t c_locale() {
  static const locale_t loc = newlocale(LC_ALL_MASK, "C", static_cast<locale_t>(nullptr));
  return loc;
}
inline double strtod_c(const char* s, char** end) {
  return strtod_l(s, end, c_locale());
}
inline float strtof_c(const char* s, char** end) {
  return strtof_l(s, end, c_locale());
}
#endif
#endif

/// std::from_chars(first, last, value) for float and double, in the general
/// format, with its contract: no leading '+', no whitespace, no hex; ec is
/// invalid_argument when no number starts at `first`, result_out_of_range
/// when the value overflows or underflows to zero (value unchanged then).
template <class F>
std::from_chars_result parse_floating(const char* first, const char* last, F& value) {
#if RAGGED_FLOAT_FROM_CHARS
  return std::from_chars(first, last, value);
#else
  // What from_chars does not accept, strtod would: refuse it first.
  if (first == last || *first == '+' || *first == ' ' || *first == '\t' || *first == '\n')
    return {first, std::errc::invalid_argument};
  const std::string text(first, last);  // NUL-terminated (tokens are short)
  if (text.find_first_of("xX") != std::string::npos) {
    // Hexadecimal floats are not in from_chars' general format: read up to the x.
    const auto x = text.find_first_of("xX");
    return parse_floating(first, first + x, value);
  }
  char* end = nullptr;
  errno = 0;
  const F v = sizeof(F) == sizeof(float) ? static_cast<F>(strtof_c(text.c_str(), &end))
                                         : static_cast<F>(strtod_c(text.c_str(), &end));
  const auto used = end - text.c_str();
  if (used == 0) return {first, std::errc::invalid_argument};
  // ERANGE: overflow (inf), or underflow, which is out of range only when
  // the result is zero (a subnormal result is the exactly rounded value).
  if (errno == ERANGE && (std::isinf(v) || v == F(0)))
    return {first + used, std::errc::result_out_of_range};
  value = v;
  return {first + used, std::errc()};
#endif
}

}  // namespace detail
}  // namespace v0_1
}  // namespace ragged
