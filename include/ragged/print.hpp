// SPDX-License-Identifier: Apache-2.0
// Printing tensors and views as nested lists, as Python prints TensorFlow's
// to_list(): to_string and operator<<. (parse.hpp reads them back.)
#pragma once

#include <charconv>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>

#include "detail/text.hpp"
#include "ragged_tensor.hpp"
#include "shape.hpp"
#include "tensor.hpp"
#include "view.hpp"

namespace ragged {
inline namespace v0_1 {

namespace detail {

// Python's repr(float): the shortest digits that round-trip, in fixed notation
// for decimal exponents in [-4, 16) (with ".0" when integral), else d.ddde+XX.
template <std::floating_point F>
void append_float(std::string& out, F value) {
  if (std::isnan(value)) {
    out += "nan";
    return;
  }
  if (std::isinf(value)) {
    out += value < 0 ? "-inf" : "inf";
    return;
  }
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
  std::string_view sci(buf, static_cast<std::size_t>(res.ptr - buf));  // e.g. "-1.2345e+02"
  const bool negative = sci.front() == '-';
  if (negative) sci.remove_prefix(1);
  const auto e = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e))
    if (c != '.') digits += c;
  int exp = 0;
  std::from_chars(sci.data() + e + 1 + (sci[e + 1] == '+'), sci.data() + sci.size(), exp);
  if (negative) out += '-';
  if (exp >= -4 && exp < 16) {
    if (exp < 0) {
      out += "0.";
      out.append(static_cast<std::size_t>(-exp - 1), '0');
      out += digits;
    } else {
      const auto point = static_cast<std::size_t>(exp) + 1;
      if (digits.size() <= point) {
        out += digits;
        out.append(point - digits.size(), '0');
        out += ".0";
      } else {
        out += digits.substr(0, point);
        out += '.';
        out += digits.substr(point);
      }
    }
  } else {
    out += digits.substr(0, 1);
    if (digits.size() > 1) {
      out += '.';
      out += digits.substr(1);
    }
    char ebuf[16];
    std::snprintf(ebuf, sizeof ebuf, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    out += ebuf;
  }
}

// Element types to_string can print: bool, numbers, and anything that reads as a string.
template <class T>
concept printable = std::same_as<T, bool> || std::integral<T> || std::floating_point<T> ||
    std::convertible_to<const T&, std::string_view>;

template <class T>
void append_value(std::string& out, const T& v) {
  if constexpr (std::same_as<T, bool>)
    out += v ? "True" : "False";
  else if constexpr (std::floating_point<T>)
    append_float(out, v);
  else if constexpr (std::integral<T>)
    out += std::to_string(v);
  else if constexpr (std::convertible_to<const T&, std::string_view>)
    append_quoted(out, std::string_view(v));
  else
    static_assert(sizeof(T) == 0, "ragged::to_string: no printer for this element type");
}

// Prints `count` blocks of the given dims (from dims[d] on) starting at `v`.
template <class T>
const T* append_block(std::string& out, const T* v, const Shape& shape, std::int64_t d) {
  if (d == shape.rank()) {
    append_value(out, *v);
    return v + 1;
  }
  out += '[';
  for (std::int64_t i = 0; i < shape[d]; ++i) {
    if (i) out += ", ";
    v = append_block(out, v, shape, d + 1);
  }
  out += ']';
  return v;
}

// Rows [lo, hi) of `level` of a ragged view, nested: one printer for owning
// tensors and views alike (partitions hold absolute bounds).
template <class T, class Index>
void append_ragged(std::string& out, const RaggedTensorView<T, Index>& rt, std::size_t level,
                   std::int64_t lo, std::int64_t hi) {
  out += '[';
  const auto& parts = rt.partitions();
  const auto& flat = rt.flat_values();
  for (auto r = lo; r < hi; ++r) {
    if (r > lo) out += ", ";
    if (level == parts.size()) {
      // Only reached for rows that exist, so `inner` fits: a row of an empty
      // tensor is never printed.
      const auto inner = flat.shape().num_elements(1, flat.rank());
      append_block(out, flat.data() + r * inner, flat.shape(), 1);
    } else {
      const auto& p = parts[level];
      append_ragged(out, rt, level + 1, p.bound(r), p.bound(r + 1));
    }
  }
  out += ']';
}

}  // namespace detail

/// The tensor as a nested list, exactly as Python prints TensorFlow's
/// `tensor.numpy().tolist()`: `[[1, 2], [3, 4]]`; floats as Python's repr
/// (`1.5`, `2.0`), strings double-quoted and escaped, bools `True`/`False`.
template <class T>
requires detail::printable<T> std::string to_string(const Tensor<T>& t) {
  std::string out;
  detail::append_block(out, t.data(), t.shape(), 0);
  return out;
}

/// The ragged tensor as a nested list, as TensorFlow's `rt.to_list()` printed
/// by Python: `[[1, 3], [], [7]]`.
template <class T, class Index>
requires detail::printable<std::remove_const_t<T>> std::string to_string(
    const RaggedTensorView<T, Index>& rt) {
  std::string out;
  detail::append_ragged(out, rt, 0, 0, rt.nrows());
  return out;
}
template <class T, class Index>
requires detail::printable<T> std::string to_string(const RaggedTensor<T, Index>& rt) {
  // The view validates splits given with validate = false before they are followed.
  return to_string(rt.view());
}
/// A dense view as a nested list, as to_string of a Tensor.
template <class T>
requires detail::printable<std::remove_const_t<T>> std::string to_string(const TensorView<T>& t) {
  std::string out;
  detail::append_block(out, t.data(), t.shape(), 0);
  return out;
}

template <class T>
requires detail::printable<T> std::ostream& operator<<(std::ostream& os, const Tensor<T>& t) {
  return os << to_string(t);
}
template <class T, class Index>
requires detail::printable<T> std::ostream& operator<<(std::ostream& os,
                                                       const RaggedTensor<T, Index>& rt) {
  return os << to_string(rt);
}
template <class T>
requires detail::printable<std::remove_const_t<T>> std::ostream& operator<<(
    std::ostream& os, const TensorView<T>& t) {
  return os << to_string(t);
}
template <class T, class Index>
requires detail::printable<std::remove_const_t<T>> std::ostream& operator<<(
    std::ostream& os, const RaggedTensorView<T, Index>& rt) {
  return os << to_string(rt);
}

}  // namespace v0_1
}  // namespace ragged
