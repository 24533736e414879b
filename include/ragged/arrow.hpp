// SPDX-License-Identifier: Apache-2.0
// Arrow in and out through the Arrow C Data Interface: list arrays (and flat
// arrays) from any engine that speaks it (DuckDB, Polars, pyarrow, Spark) are
// imported as views, without a copy, masked, and handed back as ArrowArrays
// that own the result's buffers. Optional: nothing else includes it, and it
// needs no Arrow library, only the two C structs the specification publishes.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "error.hpp"
#include "kernel/compact.hpp"
#include "ragged_tensor.hpp"
#include "row_partition.hpp"
#include "shape.hpp"
#include "tensor.hpp"
#include "view.hpp"

// The Arrow C Data Interface, exactly as the specification publishes it
// (https://arrow.apache.org/docs/format/CDataInterface.html), under its own
// guard so that it coexists with Arrow's, nanoarrow's or DuckDB's copy.
#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

struct ArrowSchema {
  // Array type description
  const char* format;
  const char* name;
  const char* metadata;
  int64_t flags;
  int64_t n_children;
  struct ArrowSchema** children;
  struct ArrowSchema* dictionary;

  // Release callback
  void (*release)(struct ArrowSchema*);
  // Opaque producer-specific data
  void* private_data;
};

struct ArrowArray {
  // Array data description
  int64_t length;
  int64_t null_count;
  int64_t offset;
  int64_t n_buffers;
  int64_t n_children;
  const void** buffers;
  struct ArrowArray** children;
  struct ArrowArray* dictionary;

  // Release callback
  void (*release)(struct ArrowArray*);
  // Opaque producer-specific data
  void* private_data;
};

#endif  // ARROW_C_DATA_INTERFACE

namespace ragged {
inline namespace v0_1 {
namespace arrow {

/// An ArrowSchema or ArrowArray that cannot be imported: malformed (a buggy
/// producer), or a type or null this library does not handle. The message
/// names the field, the nesting level and the value.
class arrow_error : public shape_error {
 public:
  using shape_error::shape_error;
};

/// The Arrow format character of a value type: 'c' int8, 'C' uint8, 's'
/// int16, 'S' uint16, 'i' int32, 'I' uint32, 'l' int64, 'L' uint64, 'f'
/// float, 'g' double; 0 for any other type.
template <class T>
inline constexpr char format_of = std::is_same_v<T, std::int8_t>     ? 'c'
                                  : std::is_same_v<T, std::uint8_t>  ? 'C'
                                  : std::is_same_v<T, std::int16_t>  ? 's'
                                  : std::is_same_v<T, std::uint16_t> ? 'S'
                                  : std::is_same_v<T, std::int32_t>  ? 'i'
                                  : std::is_same_v<T, std::uint32_t> ? 'I'
                                  : std::is_same_v<T, std::int64_t>  ? 'l'
                                  : std::is_same_v<T, std::uint64_t> ? 'L'
                                  : std::is_same_v<T, float>         ? 'f'
                                  : std::is_same_v<T, double>        ? 'g'
                                                                     : 0;

namespace detail {

using ragged::detail::cat;
using ragged::detail::checked_add;
using ragged::detail::checked_mul;

// Deeper nesting than this is refused (before any recursion could matter).
inline constexpr int max_depth = 64;

template <class... Parts>
[[noreturn, gnu::cold, gnu::noinline]] void fail(const Parts&... parts) {
  throw arrow_error(cat("ragged::arrow: ", parts...));
}

// The format string, printable in a message (bounded, escaped).
inline std::string format_text(const char* f) {
  std::string out;
  for (std::size_t i = 0; f[i] && i < 32; ++i) {
    const auto c = static_cast<unsigned char>(f[i]);
    if (c >= 0x20 && c < 0x7f)
      out += static_cast<char>(c);
    else
      out += cat("\\x", "0123456789abcdef"[c >> 4], "0123456789abcdef"[c & 15]);
  }
  return out;
}

// The checks every node needs before anything of it is read: the structs
// exist, are not released, agree with each other, and have sane sizes.
inline void check_node(const ArrowSchema* s, const ArrowArray* a, int depth, std::int64_t buffers,
                       std::int64_t children) {
  if (!a->release) fail("level ", depth, ": the array is released (its release callback is null)");
  if (a->length < 0) fail("level ", depth, ": length = ", a->length, " is negative");
  if (a->offset < 0) fail("level ", depth, ": offset = ", a->offset, " is negative");
  (void)checked_add(checked_add(a->offset, a->length, "level ", depth, ": offset + length"), 1,
                    "level ", depth, ": offset + length");
  if (a->null_count < -1) fail("level ", depth, ": null_count = ", a->null_count, " is below -1");
  if (s->dictionary || a->dictionary)
    fail("level ", depth, ": dictionary-encoded arrays are not supported");
  if (a->n_buffers != buffers)
    fail("level ", depth, ": format '", format_text(s->format), "' needs ", buffers,
         " buffers, the array has ", a->n_buffers);
  if (buffers > 0 && !a->buffers) fail("level ", depth, ": the buffers pointer is null");
  if (s->n_children != children || a->n_children != children)
    fail("level ", depth, ": format '", format_text(s->format), "' needs ", children,
         " child, the schema has ", s->n_children, " and the array ", a->n_children);
  if (children > 0 && (!s->children || !a->children || !s->children[0] || !a->children[0]))
    fail("level ", depth, ": a children pointer is null");
}

// The nulls among entries [first, first + n) of a validity bitmap (none when
// it is absent or the producer says there are none), and where the first is.
struct Nulls {
  std::int64_t count = 0;
  std::int64_t first = -1;
};
inline Nulls nulls_in(const ArrowArray* a, std::int64_t first, std::int64_t n) {
  Nulls out;
  if (a->null_count == 0 || n == 0) return out;
  const auto* validity = static_cast<const std::uint8_t*>(a->buffers[0]);
  if (!validity) {
    if (a->null_count > 0) fail("null_count = ", a->null_count, " but no validity bitmap");
    return out;
  }
  const auto bits = kernel::Bits{validity, 0} + (a->offset + first);
  out.count = n - kernel::count(bits, n);
  // The first null, 64 entries a word (the bits past n are not read).
  for (std::int64_t i = 0; out.count > 0 && i < n; i += 64) {
    const auto len = std::min<std::int64_t>(64, n - i);
    const auto in_range = len == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << len) - 1;
    if (const auto null = ~kernel::detail::load_bits(bits + i, len) & in_range) {
      out.first = first + i + std::countr_zero(null);  // a logical position in the array
      break;
    }
  }
  return out;
}

inline void reject_nulls(const ArrowArray* a, std::int64_t first, std::int64_t n, int depth,
                         const char* what) {
  const auto nulls = nulls_in(a, first, n);
  if (nulls.count > 0)
    fail("level ", depth, ": ", nulls.count, " null ", what, " (the first at position ",
         nulls.first,
         "); nulls are not supported there (a mask's null entries, which count as "
         "false, are the one exception)");
}

// A format of one primitive character, e.g. "i".
inline bool is_leaf_format(const char* f, char c) noexcept {
  return f[0] == c && f[1] == 0;
}

// "+w:N" -> N (digits only, within int64), or -1.
inline std::int64_t fixed_size_of(const char* f) noexcept {
  if (std::strncmp(f, "+w:", 3) != 0 || !f[3]) return -1;
  std::int64_t n = 0;
  for (const char* p = f + 3; *p; ++p) {
    if (*p < '0' || *p > '9' || n > (INT64_MAX - 9) / 10) return -1;
    n = n * 10 + (*p - '0');
  }
  return n;
}

// What the walk from the top array down to the values found: row partitions
// (outermost first), the flat values' shape (rows, then the fixed sizes
// below the last list level), and the leaf's entries [first, first + count)
// (logical positions, before the leaf's own offset).
template <class Index>
struct Walk {
  std::vector<RowPartition<Index>> partitions;
  std::vector<std::int64_t> flat_dims;
  const ArrowArray* leaf = nullptr;
  std::int64_t first = 0, count = 0;
  std::int64_t reached = 0;  // the first entry a row reaches (>= first)
  int depth = 0;
};

// Runs `f`, reporting the library's own shape errors (from validating
// offsets and sizes) as arrow_error: whatever a malformed array trips, the
// caller catches one type.
template <class F>
auto as_arrow_errors(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const arrow_error&) {
    throw;
  } catch (const shape_error& e) {
    fail(e.what());
  }
}

// Walks lists (+l, +L) and fixed-size lists (+w:N) down to a leaf whose
// format is `leaf_format`, validating every node before reading it.
template <class Index>
Walk<Index> walk(const ArrowSchema& schema, const ArrowArray& array, char leaf_format) {
  Walk<Index> w;
  const ArrowSchema* s = &schema;
  const ArrowArray* a = &array;
  // The logical entries of `a` the view spans: [base, base + count) (all of
  // the top array); those the rows above reach: [reached, base + count). (A
  // list's child is spanned from 0, as its offsets are absolute, but only
  // reached from its first offset: nulls before that are in no row.)
  std::int64_t base = 0, count = -1, reached = 0;
  for (int depth = 0;; ++depth) {
    if (depth > max_depth) fail("nesting deeper than ", max_depth, " levels");
    if (!s || !a) fail("level ", depth, ": a child schema or array pointer is null");
    if (!s->format) fail("level ", depth, ": the schema has no format string");
    const char* f = s->format;
    const bool list32 = std::strcmp(f, "+l") == 0, list64 = std::strcmp(f, "+L") == 0;
    const auto fixed = fixed_size_of(f);
    const bool leaf = !list32 && !list64 && fixed < 0;
    if (leaf && !is_leaf_format(f, leaf_format))
      fail("level ", depth, ": format '", format_text(f), "' is not supported here (expected '",
           leaf_format, "' values, or lists of them: +l, +L, +w:N)");
    check_node(s, a, depth, fixed >= 0 ? 1 : 2, leaf ? 0 : 1);
    if (count < 0) count = a->length;
    if (base > a->length || count > a->length - base)
      fail("level ", depth, ": the level above reaches entry ", base + count,
           " but the array has length ", a->length);
    if (leaf) {
      if (count > 0 && !a->buffers[1]) fail("level ", depth, ": the values buffer is null");
      // Fixed-size levels below the last list are inner dims of the flat values.
      std::int64_t rows = count;
      std::vector<std::int64_t> inner;  // innermost first
      while (!w.partitions.empty() && w.partitions.back().is_uniform()) {
        inner.push_back(w.partitions.back().uniform_row_length());
        rows = w.partitions.back().nrows();
        w.partitions.pop_back();
      }
      w.flat_dims.push_back(rows);
      w.flat_dims.insert(w.flat_dims.end(), inner.rbegin(), inner.rend());
      w.leaf = a;
      w.first = base;
      w.count = count;
      w.reached = reached;
      w.depth = depth;
      return w;
    }
    reject_nulls(a, reached, base + count - reached, depth, "lists");
    if (fixed >= 0) {
      w.partitions.push_back(RowPartition<Index>::from_uniform_row_length(fixed, count));
      // Row r's items are the child's logical entries [(offset + r) * N, ...).
      reached = checked_mul(a->offset + reached, fixed, "level ", depth,
                            ": the fixed-size list's first item reached");
      base = checked_mul(checked_add(a->offset, base, "level ", depth, ": offset"), fixed, "level ",
                         depth, ": the fixed-size list's first item");
      count = checked_mul(count, fixed, "level ", depth, ": the fixed-size list's items");
    } else {
      if ((list32 && !std::is_same_v<Index, std::int32_t>) ||
          (list64 && !std::is_same_v<Index, std::int64_t>))
        fail("level ", depth, ": format '", f, "' has ", list32 ? "int32" : "int64",
             " offsets; import with Index = std::", list32 ? "int32_t" : "int64_t");
      const auto* offsets = static_cast<const Index*>(a->buffers[1]);
      if (!offsets) fail("level ", depth, ": the offsets buffer is null");
      if (reinterpret_cast<std::uintptr_t>(offsets) % alignof(Index) != 0)
        fail("level ", depth, ": the offsets buffer is not aligned for its type");
      const std::span<const Index> splits(offsets + a->offset + base,
                                          static_cast<std::size_t>(count) + 1);
      w.partitions.push_back(
          RowPartition<Index>::from_row_splits(splits, true, cat("level ", depth, " offsets")));
      // Offsets are absolute positions in the child: keep them so, and use
      // the child's entries from 0 to the last offset.
      base = 0;
      count = splits.back();
      reached = splits.front();
    }
    s = s->children[0];
    a = a->children[0];
  }
}

// A non-null address for buffers of no entries (pointer arithmetic on null is undefined).
alignas(64) inline constexpr std::int64_t empty_buffer[8] = {};

// The leaf's values as a TensorView of T (alignment checked).
template <class T, class Index>
TensorView<const T> leaf_values(const Walk<Index>& w) {
  const auto* values = static_cast<const T*>(w.leaf->buffers[1]);
  if (!values) return {reinterpret_cast<const T*>(empty_buffer), Shape(w.flat_dims)};
  if (reinterpret_cast<std::uintptr_t>(values) % alignof(T) != 0)
    fail("level ", w.depth, ": the values buffer is not aligned for its type");
  return {values + w.leaf->offset + w.first, Shape(w.flat_dims)};
}

}  // namespace detail

/// An Arrow array as a RaggedTensorView, without a copy: a list (`+l`, with
/// Index = std::int32_t) or large list (`+L`, Index = std::int64_t), nested
/// to any depth (ragged_rank > 1); fixed-size lists (`+w:N`) below the last
/// list level become inner dims of the flat values, above it uniform
/// partitions; a flat primitive array gives ragged_rank 0 (its flat values,
/// which tf.boolean_mask takes as a dense tensor). Values of T: int8..int64,
/// uint8..uint64, float, double, matching the leaf's format. Array and child
/// offsets are honoured (sliced arrays need no rebasing).
///
/// Everything read is validated first (buffer and child counts, lengths and
/// offsets not negative, list offsets never decreasing and within the child,
/// alignment), so a malformed array is an arrow_error, never a read out of
/// bounds. (The C interface does not carry buffer sizes: that each buffer
/// holds what its array's offset and length say is the producer's promise.)
/// Nulls (lists or values) are rejected with their count and the first
/// position: validity is not carried through yet. The caller keeps the array
/// alive while the view is used; nothing is released here.
template <class T, RowIndex Index = std::int64_t>
RaggedTensorView<const T, Index> import_view(const ArrowSchema& schema, const ArrowArray& array) {
  static_assert(format_of<T> != 0,
                "ragged::arrow::import_view: T must be one of int8..int64, uint8..uint64, float, "
                "double");
  return detail::as_arrow_errors([&] {
    const auto w = detail::walk<Index>(schema, array, format_of<T>);
    detail::reject_nulls(w.leaf, w.reached, w.first + w.count - w.reached, w.depth, "values");
    return RaggedTensorView<const T, Index>::from_partitions(detail::leaf_values<T>(w),
                                                             w.partitions, true);
  });
}

/// An Arrow boolean array (`b`, bit-packed, any bit offset), or lists of them
/// for a ragged mask, as a mask for the operations: a RaggedTensorView of
/// bits (ragged_rank 0 for a flat array). A null entry counts as false (Arrow
/// compute's filter default, "drop", and SQL's WHERE); only then are the
/// values and validity combined into a bitmap this object owns (n / 8
/// bytes), else the view reads the array's own bits. Null lists are rejected.
/// Validation as for import_view. Keep the array alive while it is used.
template <RowIndex Index = std::int64_t>
class Mask {
 public:
  Mask(const ArrowSchema& schema, const ArrowArray& array) {
    detail::as_arrow_errors([&] { read(schema, array); });
  }
  Mask(const Mask&) = delete;
  Mask& operator=(const Mask&) = delete;
  Mask(Mask&&) noexcept = default;  // the combined bitmap's memory moves with it
  Mask& operator=(Mask&&) noexcept = default;
  ~Mask() = default;

  /// The mask, for boolean_mask(data, mask.view()) or boolean_mask(t, mask.view(), axis).
  [[nodiscard]] const RaggedTensorView<const Bit, Index>& view() const noexcept { return view_; }
  /// How many null entries were read as false.
  [[nodiscard]] std::int64_t null_count() const noexcept { return nulls_; }

 private:
  void read(const ArrowSchema& schema, const ArrowArray& array) {
    const auto w = detail::walk<Index>(schema, array, 'b');
    const auto* values = static_cast<const std::uint8_t*>(w.leaf->buffers[1]);
    auto bits = values
                    ? kernel::Bits{values, 0} + (w.leaf->offset + w.first)
                    : kernel::Bits{reinterpret_cast<const std::uint8_t*>(detail::empty_buffer), 0};
    // Nulls before the first entry a row reaches are in no row: not counted,
    // but still read as false. Each range's validity is read once.
    nulls_ = detail::nulls_in(w.leaf, w.reached, w.first + w.count - w.reached).count;
    if (nulls_ > 0 || detail::nulls_in(w.leaf, w.first, w.reached - w.first).count > 0) {
      // value AND valid, a word at a time, into storage of our own.
      const auto validity = kernel::Bits{static_cast<const std::uint8_t*>(w.leaf->buffers[0]), 0} +
                            (w.leaf->offset + w.first);
      combined_.resize(static_cast<std::size_t>((w.count + 63) / 64));
      for (std::int64_t i = 0; i < w.count; i += 64)
        combined_[static_cast<std::size_t>(i / 64)] =
            kernel::detail::load_bits(bits + i, w.count - i) &
            kernel::detail::load_bits(validity + i, w.count - i);
      if constexpr (std::endian::native == std::endian::big)
        for (auto& word : combined_) word = __builtin_bswap64(word);
      bits = kernel::Bits{reinterpret_cast<const std::uint8_t*>(combined_.data()), 0};
    }
    view_ = RaggedTensorView<const Bit, Index>::from_partitions(
        TensorView<const Bit>(bits, Shape(w.flat_dims)), w.partitions, true);
  }

  std::vector<std::uint64_t> combined_;
  RaggedTensorView<const Bit, Index> view_;
  std::int64_t nulls_ = 0;
};

/// import_view's counterpart for masks: see Mask.
template <RowIndex Index = std::int64_t>
Mask<Index> import_mask(const ArrowSchema& schema, const ArrowArray& array) {
  return Mask<Index>(schema, array);
}

namespace detail {

// One exported level's private data: the buffers' owner (shared by every
// level, so that a consumer may move a child out and release it on its
// own), the buffer pointers, and the child's struct.
struct ArrayNode {
  std::shared_ptr<const void> owner;
  const void* buffers[2] = {nullptr, nullptr};
  ArrowArray child{};
  ArrowArray* children[1] = {nullptr};
};

inline void release_array(ArrowArray* a) noexcept {
  auto* node = static_cast<ArrayNode*>(a->private_data);
  if (a->n_children > 0 && node->child.release) node->child.release(&node->child);
  delete node;
  a->release = nullptr;
  a->private_data = nullptr;
}

struct SchemaNode {
  std::string format, name;
  ArrowSchema child{};
  ArrowSchema* children[1] = {nullptr};
};

inline void release_schema(ArrowSchema* s) noexcept {
  auto* node = static_cast<SchemaNode*>(s->private_data);
  if (s->n_children > 0 && node->child.release) node->child.release(&node->child);
  delete node;
  s->release = nullptr;
  s->private_data = nullptr;
}

// One level to export: its format, length and data buffer (offsets or values).
struct ExportLevel {
  std::string format;
  std::int64_t length = 0;
  const void* data = nullptr;
};

// Fills `schema` and `array` with levels[i...] (each the child of the one
// before), the buffers kept alive by `owner`. Nothing is left half-built on
// an allocation failure: the nodes made so far are released.
inline void fill(const std::vector<ExportLevel>& levels, std::size_t i,
                 const std::shared_ptr<const void>& owner, ArrowSchema* schema, ArrowArray* array,
                 const char* name) {
  auto snode = std::make_unique<SchemaNode>();
  auto anode = std::make_unique<ArrayNode>();
  const auto& level = levels[i];
  snode->format = level.format;
  snode->name = name;
  const bool has_child = i + 1 < levels.size();
  // The last step that may throw; what it built it releases itself.
  if (has_child) fill(levels, i + 1, owner, &snode->child, &anode->child, "item");
  snode->children[0] = &snode->child;
  anode->owner = owner;
  anode->children[0] = &anode->child;
  anode->buffers[0] = nullptr;  // no validity bitmap: no nulls
  // Not null even when empty: some consumers take a null buffer for a malformed array.
  anode->buffers[1] = level.data ? level.data : static_cast<const void*>(empty_buffer);
  *schema = ArrowSchema{};
  schema->format = snode->format.c_str();
  schema->name = snode->name.c_str();
  schema->n_children = has_child ? 1 : 0;
  schema->children = has_child ? snode->children : nullptr;
  schema->release = &release_schema;
  *array = ArrowArray{};
  array->length = level.length;
  array->n_buffers = level.format.rfind("+w:", 0) == 0 ? 1 : 2;
  array->n_children = has_child ? 1 : 0;
  array->buffers = anode->buffers;
  array->children = has_child ? anode->children : nullptr;
  array->release = &release_array;
  schema->private_data = snode.release();
  array->private_data = anode.release();
}

// The fixed-size levels and the leaf of flat values of `shape`.
template <class T>
void add_values(std::vector<ExportLevel>& levels, const Shape& shape, const T* data) {
  std::int64_t rows = shape[0];
  for (std::int64_t d = 1; d < shape.rank(); ++d) {
    levels.push_back({cat("+w:", shape[d]), rows, nullptr});
    rows *= shape[d];  // at most the number of elements: no overflow
  }
  levels.push_back({std::string(1, format_of<T>), shape.num_elements(), data});
}

template <class T>
constexpr void require_exportable() noexcept {
  static_assert(format_of<T> != 0,
                "ragged::arrow::export_array: T must be one of int8..int64, uint8..uint64, float, "
                "double (bool would need bit packing: a copy)");
}

}  // namespace detail

namespace detail {
// Moves `x` (whose buffers `levels` point into) into shared ownership held by
// every exported node. Built first, moved last: should an allocation fail,
// `x` is left as it was.
template <class X>
void export_levels(X& x, const std::vector<ExportLevel>& levels, ArrowSchema* schema,
                   ArrowArray* array, const char* name) {
  auto owner = std::make_shared<X>();
  ArrowSchema s{};
  ArrowArray a{};
  fill(levels, 0, owner, &s, &a, name);
  *owner = std::move(x);  // moving keeps every buffer where it is: the pointers stay valid
  *schema = s;
  *array = a;
}
}  // namespace detail

/// Hands a RaggedTensor to Arrow without copying its buffers: they move into
/// `array`, whose release callback frees them; `schema` describes it (`+l`
/// for int32 splits, `+L` for int64, one list level per ragged dim, `+w:N`
/// for each uniform inner dim, then the value format), the formats
/// import_view reads. Buffers the library allocated are 64-byte aligned, as
/// the specification recommends. No nulls (no validity bitmaps). `schema` and
/// `array` must not hold live structs (they are overwritten, not released).
/// Strong guarantee: should an allocation fail, `rt` is left as it was.
template <class T, RowIndex Index>
void export_array(RaggedTensor<T, Index>&& rt, ArrowSchema* schema, ArrowArray* array,
                  const char* name = "") {
  detail::require_exportable<T>();
  rt.validate();
  std::vector<detail::ExportLevel> levels;
  for (const auto& s : rt.nested_row_splits())
    levels.push_back({std::is_same_v<Index, std::int32_t> ? "+l" : "+L", s.size() - 1, s.data()});
  detail::add_values(levels, rt.flat_values().shape(), rt.flat_values().data());
  detail::export_levels(rt, levels, schema, array, name);
}

/// export_array for a dense Tensor: a flat primitive array for rank 1, fixed-
/// size lists (`+w:N`) for each further dim. Throws shape_error for a scalar.
template <class T>
void export_array(Tensor<T>&& t, ArrowSchema* schema, ArrowArray* array, const char* name = "") {
  detail::require_exportable<T>();
  if (t.rank() == 0) ragged::detail::throw_shape_error("export_array: a scalar is not an array");
  std::vector<detail::ExportLevel> levels;
  detail::add_values(levels, t.shape(), t.data());
  detail::export_levels(t, levels, schema, array, name);
}

}  // namespace arrow
}  // namespace v0_1
}  // namespace ragged
