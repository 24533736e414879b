// SPDX-License-Identifier: Apache-2.0
// A deliberately simple reference for both boolean_mask operations, on nested
// std::vectors, written from TensorFlow's documentation. It shares no code with
// the library: the differential tests and fuzzers compare the two.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace reference {

// A value or a list of nodes: what TensorFlow's to_list() returns.
template <class T>
struct Node {
  bool leaf = false;
  T value{};
  std::vector<Node> items;

  static Node of(T v) { return Node{true, std::move(v), {}}; }
  static Node list(std::vector<Node> items) { return Node{false, T{}, std::move(items)}; }
};

// tf.ragged.boolean_mask: output[a..., i, b...] = data[a..., j, b...] for the i-th true
// entry j of mask[a...]; nullopt where the mask's shape is not a prefix of the data's.
template <class T>
std::optional<Node<T>> ragged_mask(const Node<T>& data, const Node<bool>& mask) {
  if (mask.leaf || data.leaf || mask.items.size() != data.items.size()) return std::nullopt;
  Node<T> out = Node<T>::list({});
  for (std::size_t i = 0; i < mask.items.size(); ++i) {
    const auto& m = mask.items[i];
    if (m.leaf) {
      if (m.value) out.items.push_back(data.items[i]);
    } else {
      auto sub = ragged_mask(data.items[i], m);
      if (!sub) return std::nullopt;
      out.items.push_back(std::move(*sub));
    }
  }
  return out;
}

// Walks the mask's K dims together with the data's, collecting the kept blocks.
template <class T>
bool collect(const Node<T>& data, const Node<bool>& mask, std::vector<Node<T>>& out) {
  if (mask.leaf) {
    if (mask.value) out.push_back(data);
    return true;
  }
  if (data.leaf || data.items.size() != mask.items.size()) return false;
  for (std::size_t i = 0; i < mask.items.size(); ++i)
    if (!collect(data.items[i], mask.items[i], out)) return false;
  return true;
}

// tf.boolean_mask(tensor, mask, axis) for axis >= 0 on a dense nested list.
template <class T>
std::optional<Node<T>> dense_mask(const Node<T>& tensor, const Node<bool>& mask, int axis) {
  if (axis > 0) {
    if (tensor.leaf) return std::nullopt;
    Node<T> out = Node<T>::list({});
    for (const auto& item : tensor.items) {
      auto sub = dense_mask(item, mask, axis - 1);
      if (!sub) return std::nullopt;
      out.items.push_back(std::move(*sub));
    }
    return out;
  }
  if (mask.leaf) return std::nullopt;  // a scalar mask
  Node<T> out = Node<T>::list({});
  if (!collect(tensor, mask, out.items)) return std::nullopt;
  return out;
}

template <class T>
void print(std::ostream& os, const Node<T>& n) {
  if (n.leaf) {
    if constexpr (std::is_same_v<T, bool>)
      os << (n.value ? "True" : "False");
    else if constexpr (std::is_same_v<T, std::string>)
      os << '"' << n.value << '"';
    else if constexpr (std::is_floating_point_v<T>)
      os << static_cast<long long>(n.value) << ".0";  // whole values only, as Python prints them
    else
      os << +n.value;
    return;
  }
  os << '[';
  for (std::size_t i = 0; i < n.items.size(); ++i) {
    if (i) os << ", ";
    print(os, n.items[i]);
  }
  os << ']';
}

template <class T>
std::string to_string(const Node<T>& n) {
  std::ostringstream os;
  print(os, n);
  return os.str();
}

// The depth of nesting (0 for a value); for an empty list, 1.
template <class T>
int depth(const Node<T>& n) {
  return n.leaf ? 0 : n.items.empty() ? 1 : 1 + depth(n.items.front());
}

}  // namespace reference
