// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "error.hpp"
#include "ragged_tensor.hpp"
#include "tensor.hpp"

namespace ragged {
inline namespace v0_1 {

namespace detail {
// The deepest nesting any literal may have, on every path into one: text,
// braced lists and Literal::list. It bounds every recursion over a literal
// (walks and destructors) on hostile input, and is far deeper than any tensor.
inline constexpr std::int64_t max_literal_depth = 256;
}  // namespace detail

/// A nested list literal: a value of T, or a list of literals. It is what
/// `{{1, 2, 3}, {4}, {5, 6}}` becomes when passed to ragged::constant or
/// ragged::tensor, and what ragged::parse_literal reads text into. Nesting
/// deeper than 256 levels throws shape_error when the literal is built.
template <class T>
class Literal {
 public:
  static constexpr std::size_t no_offset = std::numeric_limits<std::size_t>::max();

  Literal(T value) : leaf_(true), value_(std::move(value)) {}  // NOLINT: implicit by design
  Literal(const char* value)  // NOLINT: so that {"a", "b"} makes strings
      requires std::same_as<T, std::string> : leaf_(true),
                                              value_(value) {}
  Literal(std::initializer_list<Literal> items) : items_(items) { set_depth(); }  // NOLINT

  /// A list from a vector of literals; `offset` is where it starts in parsed text.
  static Literal list(std::vector<Literal> items, std::size_t offset = no_offset) {
    Literal l{};
    l.items_ = std::move(items);
    l.offset_ = offset;
    l.set_depth();
    return l;
  }
  /// A value; `offset` is where it starts in parsed text.
  static Literal leaf(T value, std::size_t offset) {
    Literal l(std::move(value));
    l.offset_ = offset;
    return l;
  }

  [[nodiscard]] bool is_leaf() const noexcept { return leaf_; }
  [[nodiscard]] const T& value() const noexcept { return value_; }
  [[nodiscard]] const std::vector<Literal>& items() const noexcept { return items_; }
  [[nodiscard]] std::int64_t size() const noexcept {
    return static_cast<std::int64_t>(items_.size());
  }
  [[nodiscard]] std::size_t offset() const noexcept { return offset_; }
  /// The deepest nesting below this node: 0 for a value, 1 for a list of values or an empty list.
  [[nodiscard]] std::int64_t height() const noexcept { return height_; }

 private:
  void set_depth() {
    height_ = 1;
    for (const auto& item : items_) height_ = std::max(height_, item.height_ + 1);
    if (height_ > detail::max_literal_depth)
      detail::throw_shape_error("a literal may nest at most ", detail::max_literal_depth,
                                " levels deep");
  }

  bool leaf_ = false;
  T value_{};
  std::vector<Literal> items_;
  std::size_t offset_ = no_offset;
  std::int64_t height_ = 0;
};

namespace detail {

inline std::string where(std::size_t offset) {
  return offset == std::numeric_limits<std::size_t>::max() ? std::string()
                                                           : cat(" (at offset ", offset, ")");
}

// A literal gathered in one pass, from text or from a Literal tree, as the
// events begin_list / value / end_list: per depth, the lengths (and text
// offsets) of the lists at that depth in order, and the values in order. Lists
// at one depth come in row order whichever way the tree is walked, so these
// are the row lengths of every level; nothing else of the tree is kept (a
// parsed literal costs its values plus one length per list, not a node per
// value). The nesting depth is checked as the events arrive: all values must
// lie at one depth, and an empty list fits any depth (as in tf.ragged.constant).
template <class T>
class LiteralBuilder {
 public:
  void begin_list(std::size_t offset) {
    if (static_cast<std::int64_t>(open_.size()) >= max_literal_depth)
      throw_shape_error("a literal may nest at most ", max_literal_depth, " levels deep",
                        where(offset));
    count_item();
    open_.push_back(Open{offset});
    if (lengths_.size() < open_.size()) {
      lengths_.emplace_back();
      offsets_.emplace_back();
    }
  }
  void end_list() {
    const Open list = open_.back();
    open_.pop_back();
    const auto d = open_.size();
    lengths_[d].push_back(list.items);
    offsets_[d].push_back(list.offset);
    if (list.exact >= 0 && list.flexible > list.exact)
      inconsistent(list.exact, list.flexible, list.offset);
    if (list.exact < 0)
      add_child(1 + list.flexible, true, list.offset);
    else
      add_child(1 + list.exact, false, list.offset);
  }
  void value(T v, std::size_t offset) {
    count_item();
    add_child(0, false, offset);
    if (values_size_ == values_.size()) {
      Buffer<T> grown(std::max<std::size_t>(16, 2 * values_.size()), for_overwrite);
      std::move(values_.begin(), values_.begin() + static_cast<std::ptrdiff_t>(values_size_),
                grown.begin());
      values_.swap(grown);
    }
    values_[values_size_++] = std::move(v);
  }

  /// The nesting depth of the whole literal (0 for a single value).
  [[nodiscard]] std::int64_t depth() const noexcept { return root_depth_; }
  [[nodiscard]] const T& scalar() const noexcept { return values_[0]; }

  /// The literal as a RaggedTensor with `ragged_rank` levels of splits and
  /// uniform dims below them (they must be uniform): checked before anything
  /// is allocated for the values, which are moved, not copied.
  template <class Index>
  RaggedTensor<T, Index> take(std::int64_t ragged_rank) {
    const auto depth = root_depth_;
    std::vector<Tensor<Index>> splits;
    for (std::int64_t l = 0; l < ragged_rank; ++l)
      splits.push_back(splits_from_lengths<Index>(
          std::span<const std::int64_t>(lengths_[to_size(l + 1)]), "row_lengths"));
    std::vector<std::int64_t> flat_dims{
        ragged_rank + 1 < depth
            ? static_cast<std::int64_t>(lengths_[to_size(ragged_rank + 1)].size())
            : static_cast<std::int64_t>(values_size_)};
    if (ragged_rank > 0) check_fits<Index>(flat_dims[0], "the number of values");
    for (auto d = ragged_rank + 1; d < depth; ++d) {
      const auto& lens = lengths_[to_size(d)];
      const auto first = lens.empty() ? std::int64_t{0} : lens.front();
      for (std::size_t i = 1; i < lens.size(); ++i)
        if (lens[i] != first) not_uniform(d, i, first, ragged_rank);
      flat_dims.push_back(first);
    }
    values_.resize_for_overwrite(values_size_);
    return builder::ragged<RaggedTensor<T, Index>>(
        builder::tensor<Tensor<T>>(Shape(std::move(flat_dims)), std::move(values_)),
        std::move(splits));
  }

 private:
  struct Open {
    std::size_t offset = 0;
    std::int64_t items = 0;
    std::int64_t exact = -1;    // the depth of the items that are not empty lists
    std::int64_t flexible = 0;  // the deepest empty list among the items
  };

  void count_item() {
    if (!open_.empty()) ++open_.back().items;
  }
  void add_child(std::int64_t depth, bool flexible, std::size_t offset) {
    if (open_.empty()) {
      root_depth_ = depth;
      return;
    }
    auto& parent = open_.back();
    if (flexible) {
      parent.flexible = std::max(parent.flexible, depth);
    } else if (parent.exact < 0) {
      parent.exact = depth;
    } else if (parent.exact != depth) {
      inconsistent(parent.exact, depth, offset);
    }
  }
  [[noreturn]] static void inconsistent(std::int64_t a, std::int64_t b, std::size_t offset) {
    throw_shape_error("inconsistent nesting depth in a literal: items at depths ", a, " and ", b,
                      where(offset));
  }

  // List i at depth d has `lengths_[d][i]` items where the first has `want`.
  // Its path from the root is found by walking up through the row lengths.
  [[noreturn]] void not_uniform(std::int64_t d, std::size_t i, std::int64_t want,
                                std::int64_t ragged_rank) const {
    std::vector<std::int64_t> path;
    auto index = static_cast<std::int64_t>(i);
    for (auto e = d - 1; e >= 0; --e) {
      const auto& lens = lengths_[to_size(e)];
      std::int64_t start = 0;
      std::size_t parent = 0;
      while (start + lens[parent] <= index) start += lens[parent++];
      path.push_back(index - start);  // innermost first
      index = static_cast<std::int64_t>(parent);
    }
    std::string at;
    for (auto k = path.size(); k-- > 0;) at += cat("[", path[k], "]");
    throw_shape_error(
        "the literal is not uniform: ", at, " has ", lengths_[to_size(d)][i],
        " items but should have ", want, " items like the first row at that depth",
        where(offsets_[to_size(d)][i]),
        ragged_rank > 0 ? cat(" (below ragged_rank ", ragged_rank, ")") : std::string());
  }

  std::vector<Open> open_;
  std::vector<std::vector<std::int64_t>> lengths_;
  std::vector<std::vector<std::size_t>> offsets_;
  Buffer<T> values_;
  std::size_t values_size_ = 0;
  std::int64_t root_depth_ = 0;
};

// Feeds a Literal tree to a builder (recursion bounded by the depth limit).
template <class T>
void walk(const Literal<T>& node, LiteralBuilder<T>& b) {
  if (node.is_leaf()) return b.value(node.value(), node.offset());
  b.begin_list(node.offset());
  for (const auto& item : node.items()) walk(item, b);
  b.end_list();
}

// The ragged_rank to use: the default (depth - 1) or an explicit one in [0, depth).
inline std::int64_t resolve_ragged_rank(std::optional<std::int64_t> ragged_rank,
                                        std::int64_t depth) {
  if (depth < 1) throw_shape_error("a RaggedTensor needs rank >= 1, but the literal is a scalar");
  const auto r = ragged_rank.value_or(depth - 1);
  if (r < 0 || r >= depth)
    throw_shape_error("ragged_rank = ", r, " must be in [0, ", depth,
                      ") for a literal of nesting depth ", depth);
  return r;
}

template <class T, class Index>
RaggedTensor<T, Index> build_ragged(LiteralBuilder<T>& b, std::optional<std::int64_t> ragged_rank) {
  return b.template take<Index>(resolve_ragged_rank(ragged_rank, b.depth()));
}

template <class T>
Tensor<T> build_tensor(LiteralBuilder<T>& b) {
  if (b.depth() == 0) return Tensor<T>(Shape{}, {b.scalar()});
  return b.template take<std::int64_t>(0).flat_values();
}

}  // namespace detail

/// tf.ragged.constant: a RaggedTensor from a nested list, e.g.
/// `ragged::constant<int>({{1, 2, 3}, {4}, {5, 6}})`. `ragged_rank` defaults to
/// the nesting depth - 1; a smaller one makes the inner dims uniform (they must
/// then be). Throws shape_error for inconsistent nesting, non-uniform inner
/// dims, or a ragged_rank outside [0, depth) (a negative one included).
template <class T, RowIndex Index = std::int64_t>
RaggedTensor<T, Index> constant(const Literal<T>& literal,
                                std::optional<std::int64_t> ragged_rank = std::nullopt) {
  detail::LiteralBuilder<T> b;
  detail::walk(literal, b);
  return detail::build_ragged<T, Index>(b, ragged_rank);
}

/// tf.constant for nested lists: a dense Tensor, e.g. `ragged::tensor<int>({{1, 2}, {3, 4}})`;
/// a plain value makes a scalar. Throws shape_error naming the first row whose
/// length differs.
template <class T>
Tensor<T> tensor(const Literal<T>& literal) {
  detail::LiteralBuilder<T> b;
  detail::walk(literal, b);
  return detail::build_tensor(b);
}

}  // namespace v0_1
}  // namespace ragged
