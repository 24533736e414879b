// SPDX-License-Identifier: Apache-2.0
// Reading nested-list literals: parse (tf.ragged.constant from text),
// parse_tensor, parse_literal, and read_literal, the streaming reader under
// them. (print.hpp writes them.)
#pragma once

#include <charconv>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

#include "detail/float_parse.hpp"
#include "detail/text.hpp"
#include "error.hpp"
#include "literal.hpp"
#include "ragged_tensor.hpp"
#include "tensor.hpp"

namespace ragged {
inline namespace v0_1 {

/// The kinds of value a literal can hold.
enum class ValueKind { none, boolean, integer, floating, string };

/// One value of a literal as written, as read_literal reports it: its kind,
/// its text (a string's unescaped, a number's as written) and the offset where
/// it starts.
struct LiteralToken {
  ValueKind kind = ValueKind::none;
  std::string text;
  std::size_t offset = 0;
};

namespace detail {

// A nested-list reader that keeps no tree: it reports begin_list(offset),
// value(LiteralToken) and end_list() to a sink as it reads, so that what the text
// becomes (typed values and row lengths, a Literal tree, a kind) is the
// sink's business and costs only what the sink keeps.
class Parser {
 public:
  explicit Parser(std::string_view text) : s_(text) {}

  template <class Sink>
  void parse_all(Sink& sink) {
    skip_space();
    parse_item(sink, 0);
    skip_space();
    if (i_ != s_.size()) fail("the end of the input");
  }

 private:
  [[noreturn]] void fail(std::string_view expected) const {
    const std::string found =
        i_ < s_.size() ? excerpt(s_.substr(i_, 1)) : std::string("the end of the input");
    throw parse_error(cat("parse error at offset ", i_, ": expected ", expected, ", found ", found),
                      i_);
  }
  void skip_space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r'))
      ++i_;
  }

  template <class Sink>
  void parse_item(Sink& sink, std::int64_t depth) {
    if (i_ >= s_.size()) fail("a value or '['");
    const char c = s_[i_];
    if (c == '[') return parse_list(sink, depth);
    if (c == '"' || c == '\'') return sink.value(parse_string());
    return sink.value(parse_word());
  }

  template <class Sink>
  void parse_list(Sink& sink, std::int64_t depth) {
    // The same limit as every other path into a literal; it bounds this recursion.
    if (depth >= max_literal_depth) fail(cat("at most ", max_literal_depth, " levels of nesting"));
    sink.begin_list(i_++);
    skip_space();
    while (true) {
      if (i_ < s_.size() && s_[i_] == ']') {
        ++i_;
        sink.end_list();
        return;
      }
      parse_item(sink, depth + 1);
      skip_space();
      if (i_ < s_.size() && s_[i_] == ',') {
        ++i_;
        skip_space();
      } else if (i_ >= s_.size() || s_[i_] != ']') {
        fail("',' or ']'");
      }
    }
  }

  LiteralToken parse_string() {
    LiteralToken t;
    t.kind = ValueKind::string;
    t.offset = i_;
    const char quote = s_[i_++];
    while (true) {
      if (i_ >= s_.size()) fail(cat("a closing ", quote));
      const char c = s_[i_++];
      if (c == quote) return t;
      if (c != '\\') {
        t.text += c;
        continue;
      }
      if (i_ >= s_.size()) fail("an escaped character");
      const char e = s_[i_++];
      switch (e) {
        case 'n':
          t.text += '\n';
          break;
        case 't':
          t.text += '\t';
          break;
        case 'r':
          t.text += '\r';
          break;
        case '0':
          t.text += '\0';
          break;
        case '\\':
        case '"':
        case '\'':
          t.text += e;
          break;
        case 'x': {
          unsigned v = 0;
          const auto r =
              std::from_chars(s_.data() + i_, s_.data() + std::min(i_ + 2, s_.size()), v, 16);
          if (r.ptr != s_.data() + i_ + 2) fail("two hex digits after \\x");
          i_ += 2;
          t.text += static_cast<char>(v);
          break;
        }
        default:
          --i_;
          fail("one of the escapes \\n \\t \\r \\0 \\\\ \\\" \\' \\xHH");
      }
    }
  }

  LiteralToken parse_word() {
    LiteralToken t;
    t.offset = i_;
    const auto start = i_;
    // Numbers and words: letters, digits, signs and points (1e-5, -inf, True).
    const auto word_char = [](char c) {
      return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
             c == '+' || c == '-' || c == '.' || c == '_';
    };
    while (i_ < s_.size() && word_char(s_[i_])) ++i_;
    t.text = std::string(s_.substr(start, i_ - start));
    if (t.text == "True" || t.text == "true" || t.text == "False" || t.text == "false") {
      t.kind = ValueKind::boolean;
      return t;
    }
    // A number: one optional sign, then an integer (all digits) or a float.
    const std::string_view w = t.text;
    const std::size_t sign = (!w.empty() && (w[0] == '-' || w[0] == '+')) ? 1 : 0;
    const auto not_a_number = [&] {
      i_ = start;
      fail("a number, True, False, a quoted string or '['");
    };
    // "+-1" and "-+inf" are not numbers (Python agrees); from_chars alone would read "-1".
    if (w.size() <= sign || w[sign] == '-' || w[sign] == '+') not_a_number();
    if (w.find_first_not_of("0123456789", sign) == std::string_view::npos) {
      t.kind = ValueKind::integer;
      return t;
    }
    double d = 0;
    const auto r = parse_floating(w.data() + sign, w.data() + w.size(), d);
    if (r.ec == std::errc::invalid_argument || r.ptr != w.data() + w.size()) not_a_number();
    t.kind = ValueKind::floating;
    return t;
  }

  std::string_view s_;
  std::size_t i_ = 0;
};

[[noreturn]] inline void wrong_kind(const LiteralToken& t, std::string_view expected) {
  throw parse_error(
      cat("parse error at offset ", t.offset, ": expected ", expected, ", found ",
          t.kind == ValueKind::string ? std::string("a string ") : std::string(), excerpt(t.text)),
      t.offset);
}

// Whether a decimal number whose magnitude does not fit a float is tiny (it
// underflows to 0) rather than huge (inf): from where its first nonzero digit
// stands and its exponent, "0.<400 zeros>1" as well as "1e-999".
inline bool underflows(std::string_view w) {
  const auto e = w.find_first_of("eE");
  const auto mantissa = w.substr(0, e);
  std::int64_t exponent = 0;
  if (e != std::string_view::npos) {
    auto digits = w.substr(e + 1);
    const bool negative = !digits.empty() && digits[0] == '-';
    if (!digits.empty() && (digits[0] == '-' || digits[0] == '+')) digits.remove_prefix(1);
    // A huge exponent saturates: its sign is all that matters here.
    for (const char c : digits)
      exponent = std::min<std::int64_t>(exponent * 10 + (c - '0'), std::int64_t{1} << 40);
    if (negative) exponent = -exponent;
  }
  const auto point = mantissa.find('.');
  const auto int_part = mantissa.substr(0, point);
  const auto first = int_part.find_first_not_of("+-0");
  if (first != std::string_view::npos)
    return exponent + static_cast<std::int64_t>(int_part.size() - first) - 1 < 0;
  // Only zeros before the point: the first nonzero digit after it sets the scale.
  const auto frac =
      point == std::string_view::npos ? std::string_view() : mantissa.substr(point + 1);
  const auto nonzero = frac.find_first_not_of('0');
  return nonzero == std::string_view::npos || exponent - static_cast<std::int64_t>(nonzero) - 1 < 0;
}

template <class T>
T token_value(const LiteralToken& t) {
  if constexpr (std::same_as<T, bool>) {
    if (t.kind != ValueKind::boolean) wrong_kind(t, "True or False");
    return t.text == "True" || t.text == "true";
  } else if constexpr (std::integral<T>) {
    if (t.kind != ValueKind::integer) wrong_kind(t, "an integer");
    const std::string_view w = t.text;
    const auto skip = static_cast<std::size_t>(w[0] == '+');
    T v{};
    const auto r = std::from_chars(w.data() + skip, w.data() + w.size(), v);
    if (r.ec != std::errc() || r.ptr != w.data() + w.size())
      throw parse_error(cat("parse error at offset ", t.offset, ": ", excerpt(w),
                            " does not fit in a ", sizeof(T) * 8, "-bit integer"),
                        t.offset);
    return v;
  } else if constexpr (std::floating_point<T>) {
    if (t.kind != ValueKind::integer && t.kind != ValueKind::floating) wrong_kind(t, "a number");
    const std::string_view w = t.text;
    const bool neg = w[0] == '-';
    const auto skip = static_cast<std::size_t>(w[0] == '+');
    T v{};
    const auto r = parse_floating(w.data() + skip, w.data() + w.size(), v);
    if (r.ec == std::errc::result_out_of_range) {
      // Python reads 1e999 as inf and 1e-999 (or 0.000...0001) as 0: so do we.
      v = underflows(w)
              ? T(neg ? -0.0 : 0.0)
              : (neg ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity());
    }
    return v;
  } else if constexpr (std::same_as<T, std::string>) {
    if (t.kind != ValueKind::string) wrong_kind(t, "a quoted string");
    return t.text;
  } else {
    static_assert(sizeof(T) == 0, "ragged::parse: no reader for this element type");
  }
}

// Typed values straight into the builder: no tree, no token kept.
template <class T>
struct BuilderSink {
  LiteralBuilder<T>& builder;
  void begin_list(std::size_t offset) { builder.begin_list(offset); }
  void end_list() { builder.end_list(); }
  void value(const LiteralToken& t) { builder.value(token_value<T>(t), t.offset); }
};

// A Literal tree, for parse_literal.
template <class T>
struct TreeSink {
  struct Open {
    std::size_t offset;
    std::vector<Literal<T>> items;
  };
  std::vector<Open> open;
  std::vector<Literal<T>> root;
  void begin_list(std::size_t offset) { open.push_back(Open{offset, {}}); }
  void end_list() {
    auto list = Literal<T>::list(std::move(open.back().items), open.back().offset);
    open.pop_back();
    (open.empty() ? root : open.back().items).push_back(std::move(list));
  }
  void value(const LiteralToken& t) {
    auto leaf = Literal<T>::leaf(token_value<T>(t), t.offset);
    (open.empty() ? root : open.back().items).push_back(std::move(leaf));
  }
};

}  // namespace detail

/// Reads a nested-list literal into a Literal<T>: integers, floats (with
/// exponents, inf, nan), quoted strings with escapes, True/False/true/false,
/// any whitespace. Throws ragged::parse_error with the offset and what was expected.
template <class T>
Literal<T> parse_literal(std::string_view text) {
  detail::TreeSink<T> sink;
  detail::Parser(text).parse_all(sink);
  return std::move(sink.root.front());
}

/// tf.ragged.constant from text: `ragged::parse<int>("[[1, 2, 3], [4], [5, 6]]")`.
/// Always a RaggedTensor (ragged_rank defaults to the nesting depth - 1; an
/// explicit one must be in [0, depth)). Reads in one pass into the values and
/// row lengths, checking shapes before the result is built: peak memory is the
/// result plus one length per list, whatever the text.
template <class T, RowIndex Index = std::int64_t>
RaggedTensor<T, Index> parse(std::string_view text,
                             std::optional<std::int64_t> ragged_rank = std::nullopt) {
  detail::LiteralBuilder<T> b;
  detail::BuilderSink<T> sink{b};
  detail::Parser(text).parse_all(sink);
  return detail::build_ragged<T, Index>(b, ragged_rank);
}

/// A dense Tensor from a uniform literal: `ragged::parse_tensor<int>("[[1, 2], [3, 4]]")`.
template <class T>
Tensor<T> parse_tensor(std::string_view text) {
  detail::LiteralBuilder<T> b;
  detail::BuilderSink<T> sink{b};
  detail::Parser(text).parse_all(sink);
  return detail::build_tensor(b);
}

/// The streaming reader under parse, parse_tensor and parse_literal (a SAX
/// reader, as simdjson's and RapidJSON's): reads the literal once and reports
/// to `sink` as it goes: `sink.begin_list(offset)`, `sink.value(const
/// LiteralToken&)` and `sink.end_list()`, keeping no tree. Checks the syntax and
/// the nesting depth (the limit every reader shares) and throws parse_error
/// with the offset; what the values mean is the sink's business.
template <class Sink>
requires requires(Sink& s, const LiteralToken& t) {
  s.begin_list(std::size_t{});
  s.value(t);
  s.end_list();
}
void read_literal(std::string_view text, Sink& sink) {
  detail::Parser(text).parse_all(sink);
}

}  // namespace v0_1
}  // namespace ragged
