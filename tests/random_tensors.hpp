// SPDX-License-Identifier: Apache-2.0
// Random nested data/mask pairs for the differential tests and the structured fuzzer.
#pragma once

#include <ragged/ragged.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "reference.hpp"

namespace reference {

// A source of choices: a seeded engine for tests, fuzzer bytes for fuzzing.
class Choices {
 public:
  explicit Choices(std::uint64_t seed) : engine_(seed) {}
  Choices(const std::uint8_t* data, std::size_t size) : bytes_(data), size_(size), engine_(size) {}
  // A number in [lo, hi].
  int pick(int lo, int hi) {
    if (hi <= lo) return lo;
    const auto span = static_cast<unsigned>(hi - lo + 1);
    unsigned r = 0;
    if (bytes_)
      r = pos_ < size_ ? bytes_[pos_++] : 0u;
    else
      r = static_cast<unsigned>(engine_());
    return lo + static_cast<int>(r % span);
  }
  bool chance(int percent) { return pick(0, 99) < percent; }

 private:
  const std::uint8_t* bytes_ = nullptr;
  std::size_t size_ = 0, pos_ = 0;
  std::mt19937_64 engine_;
};

template <class T>
T make_value(int i) {
  if constexpr (std::is_same_v<T, std::string>) {
    std::string s =
        std::to_string(i);  // not "v" + ...: GCC 12 warns falsely there (-Wrestrict, PR 105329)
    s.insert(s.begin(), 'v');
    return s;
  } else
    return static_cast<T>(i % 100);
}

// A nested list of rank `rank` whose dims 1..ragged_rank vary per row and the
// rest are the uniform `dims`.
template <class T>
Node<T> random_node(Choices& c, int rank, int ragged_rank, const std::vector<int>& dims, int d,
                    int& counter) {
  if (d == rank) return Node<T>::of(make_value<T>(counter++));
  const int n = (d >= 1 && d <= ragged_rank) ? c.pick(0, 4) : dims[static_cast<std::size_t>(d)];
  Node<T> out = Node<T>::list({});
  for (int i = 0; i < n; ++i)
    out.items.push_back(random_node<T>(c, rank, ragged_rank, dims, d + 1, counter));
  return out;
}

// The data's first `k` dims with a random bool at each position.
template <class T>
Node<bool> random_mask(Choices& c, const Node<T>& data, int k, int density) {
  if (k == 0)
    return Node<bool>::of(density >= 100 ? true : density <= 0 ? false : c.chance(density));
  Node<bool> out = Node<bool>::list({});
  for (const auto& item : data.items) out.items.push_back(random_mask(c, item, k - 1, density));
  return out;
}

// Adds or removes one item somewhere in the first `k` dims: a mask that no
// longer fits the data.
inline void perturb(Choices& c, Node<bool>& mask, int k) {
  Node<bool>* n = &mask;
  for (int d = 0; d + 1 < k && !n->items.empty() && c.chance(60); ++d)
    n = &n->items[static_cast<std::size_t>(c.pick(0, static_cast<int>(n->items.size()) - 1))];
  if (!n->items.empty() && c.chance(50)) {
    n->items.pop_back();
  } else if (!n->items.empty()) {
    n->items.push_back(n->items.front());
  } else {
    n->items.push_back(Node<bool>::of(true));
  }
}

template <class T>
void collect_leaves(const Node<T>& n, std::vector<T>& out) {
  if (n.leaf) out.push_back(n.value);
  for (const auto& item : n.items) collect_leaves(item, out);
}

// A dense Tensor of the given dims holding the node's values. (Not through a
// literal: a literal with empty lists does not say its inner dims.)
template <class T>
ragged::Tensor<T> to_dense(const Node<T>& n, const std::vector<int>& dims) {
  std::vector<T> values;
  collect_leaves(n, values);
  return ragged::Tensor<T>(ragged::Shape(std::vector<std::int64_t>(dims.begin(), dims.end())),
                           values);
}

// A RaggedTensor with `ragged_rank` ragged dims; `dims` gives the uniform inner dims.
template <class T>
ragged::RaggedTensor<T> to_ragged(const Node<T>& n, int ragged_rank, const std::vector<int>& dims) {
  std::vector<const Node<T>*> level;
  for (const auto& item : n.items) level.push_back(&item);
  std::vector<std::vector<std::int64_t>> splits;
  for (int l = 0; l < ragged_rank; ++l) {
    std::vector<const Node<T>*> next;
    splits.push_back({0});
    for (const auto* row : level) {
      for (const auto& item : row->items) next.push_back(&item);
      splits.back().push_back(static_cast<std::int64_t>(next.size()));
    }
    level = std::move(next);
  }
  std::vector<std::int64_t> flat_dims{static_cast<std::int64_t>(level.size())};
  for (std::size_t d = static_cast<std::size_t>(ragged_rank) + 1; d < dims.size(); ++d)
    flat_dims.push_back(dims[d]);
  std::vector<T> values;
  for (const auto* row : level) collect_leaves(*row, values);
  return ragged::RaggedTensor<T>::from_nested_row_splits(
      ragged::Tensor<T>(ragged::Shape(flat_dims), values), splits);
}

template <class T>
ragged::Literal<T> to_literal(const Node<T>& n) {
  if (n.leaf) return ragged::Literal<T>(n.value);
  std::vector<ragged::Literal<T>> items;
  for (const auto& item : n.items) items.push_back(to_literal(item));
  return ragged::Literal<T>::list(std::move(items));
}

// A RaggedTensor copied into caller-style storage and seen through a
// RaggedTensorView the way an Arrow slice is: every level's splits start
// above 0 (unused rows before and after each level, unused values before and
// after the flat values), so the view must follow absolute splits.
template <class T, class I>
class Embedded {
 public:
  Embedded(const ragged::RaggedTensor<T, I>& rt, int head, int tail) {
    const auto& flat = rt.flat_values();
    const auto inner = flat.shape().num_elements(1, flat.rank());
    const auto rows = flat.dim(0);
    const auto total = static_cast<std::size_t>((rows + head + tail) * inner);
    values_ = std::make_unique<T[]>(total + 1);
    for (std::int64_t i = 0; i < rows * inner; ++i)
      values_[static_cast<std::size_t>(head * inner + i)] = flat.data()[i];
    std::vector<std::int64_t> dims(flat.shape().begin(), flat.shape().end());
    dims[0] = rows + head + tail;
    const auto& nested = rt.nested_row_splits();
    splits_.resize(nested.size());
    // Level l's splits point at rows of level l + 1 (or the values), which
    // have `head` unused rows before them: shift by head. Each level below the
    // outermost also gets `head` empty rows before and `tail` after its own.
    for (std::size_t l = 0; l < nested.size(); ++l) {
      auto& s = splits_[l];
      const auto v = nested[l].values();
      if (l > 0) s.assign(static_cast<std::size_t>(head), static_cast<I>(head));
      for (const auto x : v) s.push_back(static_cast<I>(x + head));
      if (l > 0) s.insert(s.end(), static_cast<std::size_t>(tail), s.back());
    }
    if (nested.empty()) {
      // No splits to say which rows are used: the view starts at the values.
      dims[0] = rows;
      view_ = ragged::RaggedTensorView<const T, I>::from_nested_row_splits(
          ragged::TensorView<const T>(values_.get() + head * inner, ragged::Shape(std::move(dims))),
          {});
      return;
    }
    // The view gets the whole arrays; the levels reach only the used parts.
    const std::vector<std::span<const I>> spans(splits_.begin(), splits_.end());
    view_ = ragged::RaggedTensorView<const T, I>::from_nested_row_splits(
        ragged::TensorView<const T>(values_.get(), ragged::Shape(std::move(dims))), spans);
  }
  [[nodiscard]] const ragged::RaggedTensorView<const T, I>& view() const { return view_; }

 private:
  std::unique_ptr<T[]> values_;
  std::vector<std::vector<I>> splits_;
  ragged::RaggedTensorView<const T, I> view_;
};

// A mask's entries bit-packed as Arrow packs booleans (LSB first) from bit
// `offset`, in exactly the bytes they need; every other bit is set, which the
// library must never read as an entry.
class BitPacked {
 public:
  BitPacked(const bool* entries, ragged::Shape shape, int offset)
      : shape_(std::move(shape)), offset_(offset) {
    const auto n = shape_.num_elements();
    bytes_.assign(static_cast<std::size_t>((offset + n + 7) / 8), 0xff);
    for (std::int64_t i = 0; i < n; ++i) {
      const auto b = static_cast<std::size_t>(offset + i);
      if (!reinterpret_cast<const unsigned char*>(entries)[i])
        bytes_[b / 8] = static_cast<std::uint8_t>(bytes_[b / 8] & ~(1u << (b % 8)));
    }
  }
  [[nodiscard]] ragged::TensorView<const ragged::Bit> view() const {
    return ragged::bit_mask(bytes_, shape_, offset_);
  }
  // The same tensor's structure over these bits: a ragged bit mask.
  template <class I>
  [[nodiscard]] ragged::RaggedTensorView<const ragged::Bit, I> ragged_view(
      const ragged::RaggedTensor<bool, I>& like) const {
    std::vector<std::span<const I>> spans;
    for (const auto& s : like.nested_row_splits()) spans.push_back(s.values());
    return ragged::RaggedTensorView<const ragged::Bit, I>::from_nested_row_splits(view(), spans);
  }

 private:
  std::vector<std::uint8_t> bytes_;
  ragged::Shape shape_;
  int offset_;
};

}  // namespace reference
