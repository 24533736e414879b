// SPDX-License-Identifier: Apache-2.0
// Hand-built Arrow C Data Interface arrays for the tests and the fuzzer: each
// node owns its buffers and children, and any field can be broken on purpose.
#pragma once

#include <ragged/arrow.hpp>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace arrow_test {

// One node of an array under construction: the format, the fields of both
// structs, the buffers' bytes, and children. as_c() links them into the
// ArrowSchema / ArrowArray the library reads; the release callbacks are
// no-ops (the Node owns everything).
struct Node {
  std::string format;
  std::int64_t length = 0, null_count = 0, offset = 0;
  std::vector<std::vector<std::uint8_t>> buffers;  // bytes of each buffer
  std::vector<bool> null_buffer;                   // buffers[i] is passed as null
  std::vector<std::unique_ptr<Node>> children;

  ArrowSchema schema{};
  ArrowArray array{};
  std::vector<const void*> buffer_ptrs;
  std::vector<ArrowSchema*> schema_children;
  std::vector<ArrowArray*> array_children;

  static void noop_schema(ArrowSchema*) {}
  static void noop_array(ArrowArray*) {}

  // Links this node and its children; call after the last change.
  void link() {
    buffer_ptrs.clear();
    for (std::size_t i = 0; i < buffers.size(); ++i)
      buffer_ptrs.push_back(i < null_buffer.size() && null_buffer[i]
                                ? nullptr
                                : static_cast<const void*>(buffers[i].data()));
    schema_children.clear();
    array_children.clear();
    for (auto& c : children) {
      c->link();
      schema_children.push_back(&c->schema);
      array_children.push_back(&c->array);
    }
    schema = ArrowSchema{};
    schema.format = format.c_str();
    schema.name = "";
    schema.n_children = static_cast<std::int64_t>(children.size());
    schema.children = schema_children.empty() ? nullptr : schema_children.data();
    schema.release = &noop_schema;
    array = ArrowArray{};
    array.length = length;
    array.null_count = null_count;
    array.offset = offset;
    array.n_buffers = static_cast<std::int64_t>(buffers.size());
    array.n_children = static_cast<std::int64_t>(children.size());
    array.buffers = buffer_ptrs.empty() ? nullptr : buffer_ptrs.data();
    array.children = array_children.empty() ? nullptr : array_children.data();
    array.release = &noop_array;
  }
};

// Spare bytes after each buffer: the unit tests keep 64; the fuzzer none, so
// that AddressSanitizer sees any read past a buffer.
inline std::size_t buffer_slack = 64;

template <class T>
std::vector<std::uint8_t> bytes_of(const std::vector<T>& v) {
  std::vector<std::uint8_t> b(v.size() * sizeof(T) + buffer_slack);
  if (!v.empty()) std::memcpy(b.data(), v.data(), v.size() * sizeof(T));
  return b;
}

// A bitmap of `bits` from bit `offset` (the bits before it set, to be ignored).
inline std::vector<std::uint8_t> bitmap(const std::vector<int>& bits, std::int64_t offset = 0) {
  std::vector<std::uint8_t> b(
      static_cast<std::size_t>((offset + static_cast<std::int64_t>(bits.size()) + 7) / 8) +
          buffer_slack,
      0);
  std::uint8_t* bytes = b.data();
  if (!bytes) return b;  // no entries and no slack
  for (std::int64_t i = 0; i < offset; ++i)
    bytes[i / 8] |= static_cast<std::uint8_t>(1u << (i % 8));
  for (std::size_t i = 0; i < bits.size(); ++i)
    if (bits[i]) {
      const auto p = static_cast<std::size_t>(offset) + i;
      bytes[p / 8] |= static_cast<std::uint8_t>(1u << (p % 8));
    }
  return b;
}

// A primitive array of `values` (length = values.size() - offset).
template <class T>
std::unique_ptr<Node> primitive(const std::vector<T>& values, std::int64_t offset = 0) {
  auto n = std::make_unique<Node>();
  n->format = std::string(1, ragged::arrow::format_of<T>);
  n->offset = offset;
  n->length = static_cast<std::int64_t>(values.size()) - offset;
  n->buffers = {{}, bytes_of(values)};
  n->null_buffer = {true, false};
  return n;
}

// A boolean array, bit-packed from bit `offset`; `valid` (when not empty) its validity.
inline std::unique_ptr<Node> booleans(const std::vector<int>& bits, std::int64_t offset = 0,
                                      const std::vector<int>& valid = {}) {
  auto n = std::make_unique<Node>();
  // A string moved in, not assigned from the literal: inlined into some tests,
  // GCC 12's assign from a literal reports a false -Wrestrict (GCC bug 105329).
  n->format = std::string("b");
  n->offset = offset;
  n->length = static_cast<std::int64_t>(bits.size());
  n->buffers = {valid.empty() ? std::vector<std::uint8_t>{} : bitmap(valid, offset),
                bitmap(bits, offset)};
  n->null_buffer = {valid.empty(), false};
  n->null_count = valid.empty() ? 0 : -1;
  return n;
}

// A list array (+l for int32 offsets, +L for int64) over `child`.
template <class Index>
std::unique_ptr<Node> list(const std::vector<Index>& offsets, std::unique_ptr<Node> child,
                           std::int64_t offset = 0) {
  auto n = std::make_unique<Node>();
  n->format = std::string(sizeof(Index) == 4 ? "+l" : "+L");
  n->offset = offset;
  n->length = static_cast<std::int64_t>(offsets.size()) - 1 - offset;
  n->buffers = {{}, bytes_of(offsets)};
  n->null_buffer = {true, false};
  n->children.push_back(std::move(child));
  return n;
}

inline std::unique_ptr<Node> fixed_list(std::int64_t size, std::int64_t length,
                                        std::unique_ptr<Node> child, std::int64_t offset = 0) {
  auto n = std::make_unique<Node>();
  n->format = "+w:" + std::to_string(size);
  n->offset = offset;
  n->length = length;
  n->buffers = {{}};
  n->null_buffer = {true};
  n->children.push_back(std::move(child));
  return n;
}

}  // namespace arrow_test
