// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "error.hpp"
#include "ragged_tensor.hpp"
#include "tensor.hpp"

namespace ragged::inline v0_1 {

/// A nested list literal: a value of T, or a list of literals. It is what
/// `{{1, 2, 3}, {4}, {5, 6}}` becomes when passed to ragged::constant or
/// ragged::tensor, and what ragged::parse reads text into.
template <class T>
class Literal {
 public:
  static constexpr std::size_t no_offset = std::numeric_limits<std::size_t>::max();

  Literal(T value) : leaf_(true), value_(std::move(value)) {}  // NOLINT: implicit by design
  Literal(const char* value)  // NOLINT: so that {"a", "b"} makes strings
      requires std::same_as<T, std::string> : leaf_(true),
                                              value_(value) {}
  Literal(std::initializer_list<Literal> items) : items_(items) {}  // NOLINT

  /// A list from a vector of literals; `offset` is where it starts in parsed text.
  static Literal list(std::vector<Literal> items, std::size_t offset = no_offset) {
    Literal l{};
    l.items_ = std::move(items);
    l.offset_ = offset;
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

 private:
  bool leaf_ = false;
  T value_{};
  std::vector<Literal> items_;
  std::size_t offset_ = no_offset;
};

namespace detail {

template <class T>
std::string where(const Literal<T>& node) {
  return node.offset() == Literal<T>::no_offset ? std::string()
                                                : cat(" (at offset ", node.offset(), ")");
}

// Nesting depth: 0 for a value, 1 + the children's depth for a list. An empty
// list fits any depth >= 1 (it is "flexible"), as in tf.ragged.constant.
struct Depth {
  std::int64_t depth;
  bool flexible;
};

template <class T>
Depth nesting_depth(const Literal<T>& node) {
  if (node.is_leaf()) return {0, false};
  std::int64_t exact = -1, flexible = 0;
  for (const auto& child : node.items()) {
    const auto d = nesting_depth(child);
    if (d.flexible) {
      flexible = std::max(flexible, d.depth);
    } else if (exact < 0) {
      exact = d.depth;
    } else if (exact != d.depth) {
      throw_shape_error("inconsistent nesting depth in a literal: items at depths ", exact, " and ",
                        d.depth, where(child));
    }
  }
  if (exact < 0) return {1 + flexible, true};
  if (flexible > exact)
    throw_shape_error("inconsistent nesting depth in a literal: items at depths ", exact, " and ",
                      flexible, where(node));
  return {1 + exact, false};
}

inline std::string path_string(const std::vector<std::int64_t>& path) {
  std::string s;
  for (auto i : path) s += cat("[", i, "]");
  return s.empty() ? std::string("the top level") : s;
}

// Appends the values of a uniform block of shape `dims` (from dims[d] on) in
// row-major order; the first block's shape is the reference for the others.
template <class T>
void flatten_uniform(const Literal<T>& node, const std::vector<std::int64_t>& dims, std::size_t d,
                     std::vector<std::int64_t>& path, Buffer<T>& out, std::size_t& n) {
  if (d == dims.size()) {
    if (!node.is_leaf())
      throw_shape_error("inconsistent nesting depth in a literal: a list at ", path_string(path),
                        " where a value was expected", where(node));
    out[n++] = node.value();
    return;
  }
  if (node.is_leaf() || node.size() != dims[d])
    throw_shape_error("the literal is not uniform: ", path_string(path), " has ",
                      node.is_leaf() ? std::string("a value") : cat(node.size(), " items"),
                      " but should have ", dims[d], " items like the first row at that depth",
                      where(node));
  for (std::int64_t i = 0; i < node.size(); ++i) {
    path.push_back(i);
    flatten_uniform(node.items()[to_size(i)], dims, d + 1, path, out, n);
    path.pop_back();
  }
}

// The first block's shape: follow the first items down `rank` levels.
template <class T>
std::vector<std::int64_t> first_block_shape(const Literal<T>& node, std::int64_t rank) {
  std::vector<std::int64_t> dims;
  const Literal<T>* n = &node;
  for (std::int64_t d = 0; d < rank; ++d) {
    const auto size = n->is_leaf() ? 0 : n->size();
    dims.push_back(size);
    if (size == 0) {
      dims.resize(to_size(rank), 0);
      break;
    }
    n = &n->items().front();
  }
  return dims;
}

// The literal as rows of uniform blocks below `ragged_rank` levels of splits.
template <class T, class Index>
RaggedTensor<T, Index> literal_to_ragged(const Literal<T>& root, std::int64_t ragged_rank,
                                         std::int64_t depth) {
  std::vector<Tensor<Index>> splits;
  std::vector<const Literal<T>*> level;  // the rows of the current dim
  for (const auto& child : root.items()) level.push_back(&child);
  for (std::int64_t l = 0; l < ragged_rank; ++l) {
    std::vector<const Literal<T>*> next;
    Buffer<Index> s(level.size() + 1, for_overwrite);
    s[0] = 0;
    for (std::size_t r = 0; r < level.size(); ++r) {
      for (const auto& child : level[r]->items()) next.push_back(&child);
      check_fits<Index>(static_cast<std::int64_t>(next.size()), "the number of values");
      s[r + 1] = static_cast<Index>(next.size());
    }
    splits.push_back(splits_tensor(std::move(s)));
    level = std::move(next);
  }
  const auto block_rank = depth - ragged_rank - 1;
  auto dims = level.empty() ? std::vector<std::int64_t>(to_size(block_rank), 0)
                            : first_block_shape(*level.front(), block_rank);
  std::vector<std::int64_t> flat_dims{static_cast<std::int64_t>(level.size())};
  flat_dims.insert(flat_dims.end(), dims.begin(), dims.end());
  Shape flat_shape(std::move(flat_dims));
  Buffer<T> values(to_size(flat_shape.num_elements()));
  std::size_t n = 0;
  std::vector<std::int64_t> path;
  try {
    for (std::size_t r = 0; r < level.size(); ++r) {
      path.assign(1, static_cast<std::int64_t>(r));
      flatten_uniform(*level[r], dims, 0, path, values, n);
    }
  } catch (const shape_error& e) {
    if (ragged_rank == 0) throw;
    throw_shape_error(e.what(), " (indices count rows of the values below ragged_rank ",
                      ragged_rank, ")");
  }
  return RaggedTensor<T, Index>::from_parts(Tensor<T>(std::move(flat_shape), std::move(values)),
                                            std::move(splits), false);
}

template <class T>
void check_ragged_rank(std::int64_t ragged_rank, std::int64_t depth) {
  if (depth < 1) throw_shape_error("a RaggedTensor needs rank >= 1, but the literal is a scalar");
  if (ragged_rank < 0 || ragged_rank >= depth)
    throw_shape_error("ragged_rank = ", ragged_rank, " must be in [0, ", depth,
                      ") for a literal of nesting depth ", depth);
}

}  // namespace detail

/// tf.ragged.constant: a RaggedTensor from a nested list, e.g.
/// `ragged::constant<int>({{1, 2, 3}, {4}, {5, 6}})`. `ragged_rank` defaults to
/// the nesting depth - 1; a smaller one makes the inner dims uniform (they must
/// then be). Throws shape_error for inconsistent nesting or non-uniform inner dims.
template <class T, RowIndex Index = std::int64_t>
RaggedTensor<T, Index> constant(const Literal<T>& literal, std::int64_t ragged_rank = -1) {
  const auto depth = detail::nesting_depth(literal).depth;
  if (ragged_rank < 0 && depth >= 1) ragged_rank = depth - 1;
  detail::check_ragged_rank<T>(ragged_rank, depth);
  return detail::literal_to_ragged<T, Index>(literal, ragged_rank, depth);
}

/// tf.constant for nested lists: a dense Tensor, e.g. `ragged::tensor<int>({{1, 2}, {3, 4}})`;
/// a plain value makes a scalar. Throws shape_error naming the first row whose
/// length differs.
template <class T>
Tensor<T> tensor(const Literal<T>& literal) {
  const auto depth = detail::nesting_depth(literal).depth;
  if (depth == 0) return Tensor<T>(Shape{}, {literal.value()});
  return detail::literal_to_ragged<T, std::int64_t>(literal, 0, depth).flat_values();
}

}  // namespace ragged::inline v0_1
