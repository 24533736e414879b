// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "detail/checked.hpp"
#include "error.hpp"
#include "kernel/compact.hpp"
#include "ragged_tensor.hpp"
#include "row_partition.hpp"
#include "shape.hpp"
#include "tensor.hpp"
#include "view.hpp"

namespace ragged {
inline namespace v0_1 {

/// Caller memory for a ragged result of boolean_mask_to: room for the flat
/// values (only its size counts) and one span of room per ragged dim of the
/// result for its row splits, outermost first. Memory sized like the input is
/// always enough where the data's ragged_rank is at least rank(mask) - 1: as
/// many values, and at each level as many splits, as the data has.
template <class T, RowIndex Index = std::int64_t>
struct RaggedBuffers {
  TensorView<T> values;
  std::vector<std::span<Index>> row_splits;
};

namespace detail {

using kernel::detail::bytewise;

// A tensor seen as `levels` of rows over flat values of `flat_shape`: the
// first levels.size() dims as row partitions starting at 0, whatever their
// storage. Dense dims stay uniform partitions, so masking dense data never
// materialises splits it does not output. Splits that start above 0 (a view
// of a slice) are rebased into `rebased`: O(nsplits), and the values are
// never copied.
// What points at a tensor's values: const T*, or kernel::Bits for bit masks.
template <class T>
using pointer_to = std::conditional_t<std::is_same_v<T, Bit>, kernel::Bits, const T*>;

template <class T, class Index>
struct View {
  std::vector<RowPartition<Index>> levels;
  pointer_to<T> values{};  // the first row the levels reach
  Shape flat_shape;        // the rows the levels reach, and the inner dims
  PartialShape shape;      // the tensor's shape, for messages and prefix checks
  std::vector<std::vector<Index>> rebased;
};

template <class Index>
[[nodiscard]] const Index* splits_of(const RowPartition<Index>& p) noexcept {
  return p.is_uniform() ? nullptr : p.row_splits().data();
}

// Splits a dense flat shape's leading dims into uniform levels until there are `nlevels`.
template <class T, class Index>
void add_uniform_levels(View<T, Index>& v, const Shape& flat, std::int64_t nlevels) {
  auto dims = std::vector<std::int64_t>(flat.begin(), flat.end());
  std::int64_t rows = dims[0];
  std::size_t d = 1;
  while (static_cast<std::int64_t>(v.levels.size()) < nlevels) {
    v.levels.push_back(RowPartition<Index>::from_uniform_row_length(dims[d], rows));
    // Only an empty tensor can get here with a product past int64: (2^62, 2^62, 0).
    rows = checked_mul(rows, dims[d++], "the number of rows in the leading dims of shape ",
                       to_string(flat));
  }
  std::vector<std::int64_t> rest{rows};
  rest.insert(rest.end(), dims.begin() + static_cast<std::ptrdiff_t>(d), dims.end());
  v.flat_shape = Shape(std::move(rest));
}

template <class T, class Index>
View<T, Index> view_of(const TensorView<const T>& t, std::int64_t nlevels) {
  View<T, Index> v;
  v.values = t.data();
  for (auto d : t.shape()) v.shape.emplace_back(d);
  add_uniform_levels(v, t.shape(), nlevels);
  return v;
}

template <class T, class Index>
View<T, Index> view_of(const RaggedTensorView<const T, Index>& rt, std::int64_t nlevels) {
  View<T, Index> v;
  v.shape = rt.shape();
  v.rebased.reserve(rt.partitions().size());  // levels point into it: no reallocation
  // The rows of the current level the tensor reaches: [first, first + count).
  std::int64_t first = 0;
  std::int64_t count = rt.nrows();
  for (const auto& p : rt.partitions()) {
    if (p.is_uniform()) {
      // Ragged row selection follows explicit splits: make them (O(nrows)).
      const auto len = p.uniform_row_length();
      check_fits<Index>(checked_mul(count, len, "the values below a uniform partition"),
                        "the values below a uniform partition");
      auto& r = v.rebased.emplace_back(to_size(count + 1));
      for (std::int64_t i = 0; i <= count; ++i) r[to_size(i)] = static_cast<Index>(i * len);
      v.levels.push_back(RowPartition<Index>::from_row_splits(r, false));
      first *= len;
      count *= len;
      continue;
    }
    const auto s = p.row_splits().subspan(to_size(first), to_size(count + 1));
    const std::int64_t base = s.front();
    if (base == 0) {
      v.levels.push_back(RowPartition<Index>::from_row_splits(s, false));
    } else {
      auto& r = v.rebased.emplace_back(s.size());
      for (std::size_t i = 0; i < s.size(); ++i) r[i] = static_cast<Index>(s[i] - base);
      v.levels.push_back(RowPartition<Index>::from_row_splits(r, false));
    }
    first = base;
    count = std::int64_t{s.back()} - base;
  }
  const auto& flat = rt.flat_values().shape();
  std::vector<std::int64_t> dims(flat.begin(), flat.end());
  dims[0] = count;
  const auto inner = flat.num_elements(1, flat.rank());
  v.values = rt.flat_values().data() + (count == 0 ? 0 : first * inner);
  add_uniform_levels(v, Shape(std::move(dims)), std::max<std::int64_t>(nlevels, rt.ragged_rank()));
  return v;
}

template <class T, class I, class M, class J>
[[noreturn]] void not_a_prefix(const View<T, I>& data, const View<M, J>& mask,
                               const std::string& why = {}) {
  throw_shape_error("mask shape ", to_string(mask.shape), " is not a prefix of data shape ",
                    to_string(data.shape), why);
}

// Everything tf.ragged.boolean_mask checks: mask rank, the static prefix, and
// identical row partitions over the mask's leading dims.
template <class T, class I, class M, class J>
void check_conformance(const View<T, I>& data, const View<M, J>& mask, std::int64_t k) {
  for (std::int64_t d = 0; d < k; ++d) {
    const auto& a = mask.shape[to_size(d)];
    const auto& b = data.shape[to_size(d)];
    if (a && b && *a != *b) not_a_prefix(data, mask);
  }
  for (std::int64_t l = 0; l + 1 < k; ++l) {
    const auto& ml = mask.levels[to_size(l)];
    const auto& dl = data.levels[to_size(l)];
    if (ml.is_uniform() && dl.is_uniform() && ml.uniform_row_length() == dl.uniform_row_length())
      continue;
    // The same splits in memory (a mask made over the data's own splits): identical.
    if (!ml.is_uniform() &&
        static_cast<const void*>(ml.row_splits().data()) ==
            static_cast<const void*>(dl.row_splits().data()) &&
        ml.nrows() == dl.nrows())
      continue;
    for (std::int64_t r = 0; r <= ml.nrows(); ++r)
      if (ml.bound(r) != dl.bound(r))
        throw_shape_error("mask and data must have identical row splits: nested_row_splits[", l,
                          "][", r, "] is ", ml.bound(r), " in the mask but ", dl.bound(r),
                          " in the data (mask shape ", to_string(mask.shape), ", data shape ",
                          to_string(data.shape), ")");
  }
}

// Where a ragged result is written, level by level: an owning RaggedTensor,
// whose buffers are reused (OwnedOut), or the caller's memory (BufferOut).
// splits_room(l, nrows) gives room for level l's splits of `nrows` rows and
// splits_used(l, n) says how many were written; values_room(dims) and
// values_used(dims) the same for the flat values.
template <class T, class Index>
struct OwnedOut {
  std::vector<Tensor<Index>>& splits;
  Tensor<T>& flat;
  void levels(std::size_t n) { splits.resize(n); }
  // (nrows + 1 is checked: the uniform dims of an empty tensor may count INT64_MAX rows.)
  Index* splits_room(std::size_t l, std::int64_t nrows) {
    if (splits.size() <= l) splits.resize(l + 1);
    builder::reset_for_overwrite(
        splits[l], Shape{checked_add(nrows, 1, "the row splits of ", nrows, " rows")});
    return splits[l].data();
  }
  void splits_used(std::size_t l, std::int64_t n) {
    builder::reset_for_overwrite(splits[l], Shape{n});
  }
  [[nodiscard]] static bool room_for_values(std::int64_t) noexcept { return true; }
  T* values_room(const std::vector<std::int64_t>& dims) {
    builder::reset_for_overwrite(flat, Shape(dims));
    return flat.data();
  }
  void values_used(std::vector<std::int64_t> dims) {
    builder::reset_for_overwrite(flat, Shape(std::move(dims)));
  }
};

template <class T, class Index>
struct BufferOut {
  TensorView<T> values;
  const std::vector<std::span<Index>>& splits;
  std::vector<std::int64_t> used{};
  std::vector<std::int64_t> dims{};
  void levels(std::size_t n) {
    if (splits.size() < n)
      throw_shape_error("boolean_mask_to: out has row splits for ", splits.size(),
                        " ragged dims but the result has ", n);
    used.assign(n, 0);
  }
  Index* splits_room(std::size_t l, std::int64_t nrows) {
    const auto need = checked_add(nrows, 1, "the row splits of ", nrows, " rows");
    if (static_cast<std::int64_t>(splits[l].size()) < need)
      throw_shape_error("boolean_mask_to: out has room for ", splits[l].size(),
                        " row splits at ragged dim ", l, " but the result needs ", need);
    return splits[l].data();
  }
  void splits_used(std::size_t l, std::int64_t n) { used[l] = n; }
  [[nodiscard]] bool room_for_values(std::int64_t n) const noexcept { return values.size() >= n; }
  T* values_room(const std::vector<std::int64_t>& d) {
    const auto need = Shape(d).num_elements();
    if (values.size() < need)
      throw_shape_error("boolean_mask_to: out has room for ", values.size(),
                        " values but the result has ", need);
    dims = d;
    return values.data();
  }
  void values_used(std::vector<std::int64_t> d) { dims = std::move(d); }
  // The view of what was written.
  RaggedTensorView<T, Index> result() const {
    std::vector<RowPartition<Index>> parts;
    for (std::size_t l = 0; l < used.size(); ++l)
      parts.push_back(RowPartition<Index>::from_row_splits(
          std::span<const Index>(splits[l].data(), to_size(used[l])), false));
    return RaggedTensorView<T, Index>::from_partitions(TensorView<T>(values.data(), Shape(dims)),
                                                       std::move(parts), false);
  }
};

// The rows a compaction wrote to [out, end): rows of `inner` elements, counted
// in the mask where rows are empty (they leave no trace in the output).
template <class T, class M>
std::int64_t rows_written(const T* out, const T* end, std::int64_t inner, M mask, std::int64_t n) {
  return inner > 0 ? (end - out) / inner : kernel::count(mask, n);
}

template <class T, class I>
std::int64_t rows_at(const View<T, I>& v, std::size_t dim) {
  return dim < v.levels.size() ? v.levels[dim].nrows() : v.flat_shape[0];
}

// The `count` row limits after `first` (first[1..count]), less `dropped`, into
// out[0, count): a kept run's limits in the result's splits.
template <class Index>
void rebase_limits(const Index* first, std::int64_t count, Index dropped, Index* out) noexcept {
  for (std::int64_t i = 0; i < count; ++i) out[i] = static_cast<Index>(first[i + 1] - dropped);
}

// Row selection: keeps whole rows of dim `first` (where mask[r]) with everything
// nested under them. At each level below, one pass over the runs of kept rows
// writes the new splits: a run's limits are contiguous in the old splits, less
// what was dropped before it. The flat values are the kept rows' contiguous
// ranges, moved by the kernel as runs. Temporaries are per row of dim `first` only.
template <class T, class Index, class M, class Out>
void select_rows(const View<T, Index>& data, std::size_t first, M mask, Out& out) {
  const auto nrows = data.levels[first].nrows();
  std::vector<Index>
      composed;  // bounds of the kept rows one dim down, once not the splits themselves
  std::span<const Index> bounds;  // level l's rows under each row of dim `first`, for l > first
  Index last = 0;                 // the last split written: the number of values kept
  for (std::size_t l = first; l < data.levels.size(); ++l) {
    const auto* splits = splits_of(data.levels[l]);
    // The rows this level keeps: the kept rows of dim `first`, or the rows under them.
    std::int64_t keeps = 0;
    if (l == first)
      keeps = kernel::count(mask, nrows);
    else
      kernel::detail::for_each_run(mask, nrows, [&](std::int64_t b, std::int64_t e) {
        keeps += std::int64_t{bounds[to_size(e)]} - bounds[to_size(b)];
      });
    auto* sp = out.splits_room(l, keeps);
    // Each kept row's limit, rebased by what was dropped before its run: one
    // pass over the runs of kept rows, reading the splits once.
    sp[0] = 0;
    if (l == first) {
      kernel::detail::kept_limits(mask, nrows, splits, sp);
    } else {
      std::int64_t k = 0;
      kernel::detail::for_each_run(mask, nrows, [&](std::int64_t b, std::int64_t e) {
        const std::int64_t lo = bounds[to_size(b)], hi = bounds[to_size(e)];
        rebase_limits(splits + lo, hi - lo, static_cast<Index>(splits[lo] - sp[k]), sp + k + 1);
        k += hi - lo;
      });
    }
    out.splits_used(l, keeps + 1);
    last = sp[keeps];
    if (l == first) {
      bounds = std::span<const Index>(splits, to_size(nrows + 1));
    } else {
      composed.resize(to_size(nrows + 1));
      for (std::size_t r = 0; r <= to_size(nrows); ++r) composed[r] = splits[bounds[r]];
      bounds = composed;
    }
  }
  auto dims = std::vector<std::int64_t>(data.flat_shape.begin(), data.flat_shape.end());
  dims[0] = last;
  kernel::compact(data.values, mask, kernel::Rows<Index>::of_splits(bounds), out.values_room(dims),
                  data.flat_shape.num_elements(1, data.flat_shape.rank()));
}

// tf.ragged.boolean_mask on views: `k` is the mask's rank; the mask view has
// k - 1 levels over 1-D flat values, the data view max(ragged_rank, k - 1).
template <class T, class I, class MT, class J, class Out>
void ragged_mask_into(const View<T, I>& data, const View<MT, J>& mask, std::int64_t k, Out& out) {
  check_conformance(data, mask, k);
  // Every split of the result counts rows of the level below it, at most as
  // many as the data has there: checked once, up front, for the Index type (a
  // mask with more ragged dims than the data can make int32 splits of
  // uniform dims that would wrap).
  for (std::size_t l = 0; l < data.levels.size(); ++l)
    check_fits<I>(rows_at(data, l + 1), "the result's row splits would reach");
  const auto ndata_levels = data.levels.size();
  const auto sel = to_size(k - 1);  // the dim whose rows the mask's flat values select
  out.levels(ndata_levels);
  // Dims above the mask's last: unchanged.
  for (std::size_t l = 0; l + 1 < sel; ++l) {
    const auto& level = data.levels[l];
    auto* sp = out.splits_room(l, level.nrows());
    for (std::int64_t r = 0; r <= level.nrows(); ++r) sp[r] = static_cast<I>(level.bound(r));
    out.splits_used(l, level.nrows() + 1);
  }
  const auto n = rows_at(data, sel);
  if (sel < ndata_levels) {
    // The mask's last ragged dim: prefix sums of the kept counts per row.
    if (sel >= 1) {
      const auto& level = mask.levels[sel - 1];
      auto* sp = out.splits_room(sel - 1, level.nrows());
      sp[0] = 0;
      for (std::int64_t r = 0; r < level.nrows(); ++r)
        sp[r + 1] = static_cast<I>(sp[r] + kernel::count(mask.values + level.bound(r),
                                                         level.bound(r + 1) - level.bound(r)));
      out.splits_used(sel - 1, level.nrows() + 1);
    }
    select_rows(data, sel, mask.values, out);
    return;
  }
  // Elements (or uniform inner rows) of the flat values. Trivially copyable
  // values get room for every row and skip the counting pass (pages that are
  // never written are never touched) where there is that room. Others are
  // counted first, so that only the kept elements are constructed.
  auto dims = std::vector<std::int64_t>(data.flat_shape.begin(), data.flat_shape.end());
  const auto inner = data.flat_shape.num_elements(1, data.flat_shape.rank());
  dims[0] = bytewise<T> && out.room_for_values(n * inner) ? n : kernel::count(mask.values, n);
  T* values = out.values_room(dims);
  std::int64_t kept = 0;
  if (sel >= 1) {
    // The mask's last ragged dim: its row splits are where the kernel reports
    // its running count, which makes the result's splits in the same pass.
    const auto& level = mask.levels[sel - 1];
    auto* sp = out.splits_room(sel - 1, level.nrows());
    kernel::compact(data.values, mask.values, n, values, inner,
                    kernel::Rows<J>{splits_of(level), level.uniform_row_length(), level.nrows()},
                    sp);
    kept = sp[level.nrows()];  // the mask's rows cover its n entries
    out.splits_used(sel - 1, level.nrows() + 1);
  } else {
    kept = rows_written(values, kernel::compact(data.values, mask.values, n, values, inner), inner,
                        mask.values, n);
  }
  dims[0] = kept;
  out.values_used(std::move(dims));
}

// The operation with the basic guarantee for `out`: should copying a T throw
// midway, `out` is left empty (and valid) rather than half-built. The inputs
// are never modified.
template <class T, class I, class MT, class J>
void ragged_mask(const View<T, I>& data, const View<MT, J>& mask, std::int64_t k,
                 RaggedTensor<T, I>& out) {
  // The result's buffers, taken out to be refilled (out is empty meanwhile).
  auto [flat, splits] = builder::take_apart(out);
  OwnedOut<T, I> sink{splits, flat};
  ragged_mask_into(data, mask, k, sink);
  out = builder::ragged<RaggedTensor<T, I>>(std::move(flat), std::move(splits));
}

// Whether two byte ranges share a byte. (Compared as integers: comparing
// pointers into different objects with < is unspecified.)
inline bool ranges_overlap(const void* a, std::size_t an, const void* b, std::size_t bn) noexcept {
  const auto p = reinterpret_cast<std::uintptr_t>(a);
  const auto q = reinterpret_cast<std::uintptr_t>(b);
  return an && bn && p < q + bn && q < p + an;
}

// The byte ranges of every buffer a tensor reads or writes; owning tensors
// through the same views the operations use.
template <class T, class F>
void for_each_buffer(const TensorView<T>& t, F&& f) {
  f(static_cast<const void*>(t.data()), to_size(t.size()) * sizeof(T));
}
template <class F>
void for_each_buffer(const TensorView<const Bit>& t, F&& f) {
  f(static_cast<const void*>(t.bytes().data()), t.bytes().size());
}
template <class T, class F>
void for_each_buffer(const Tensor<T>& t, F&& f) {
  for_each_buffer(TensorView<const T>(t), f);
}
template <class T, class I, class F>
void for_each_buffer(const RaggedTensor<T, I>& t, F&& f) {
  for_each_buffer(t.flat_values(), f);
  for (const auto& s : t.nested_row_splits()) for_each_buffer(s, f);
}
template <class T, class I, class F>
void for_each_buffer(const RaggedTensorView<T, I>& t, F&& f) {
  for_each_buffer(t.flat_values(), f);
  for (const auto& p : t.partitions())
    f(static_cast<const void*>(p.row_splits().data()), p.row_splits().size_bytes());
}

template <class T, class I, class F>
void for_each_buffer(const RaggedBuffers<T, I>& b, F&& f) {
  for_each_buffer(b.values, f);
  for (const auto& s : b.row_splits) f(static_cast<const void*>(s.data()), s.size_bytes());
}

// Whether any buffer of `a` overlaps any buffer of `b`.
template <class A, class B>
bool shares_memory(const A& a, const B& b) {
  bool shared = false;
  for_each_buffer(a, [&](const void* p, std::size_t n) {
    for_each_buffer(
        b, [&](const void* q, std::size_t m) { shared = shared || ranges_overlap(p, n, q, m); });
  });
  return shared;
}

// The one aliasing rule of every `out` overload: when `out` shares memory with
// an input (boolean_mask(x, m, x), or out being the mask), the result is
// computed into a fresh object and then moved into `out`, so that nothing is
// overwritten or freed while the kernel still reads it. Otherwise `out`'s
// buffers are reused.
template <class Out, class Compute, class... Inputs>
Out& into_unaliased(Out& out, Compute&& compute, const Inputs&... inputs) {
  if ((shares_memory(out, inputs) || ...)) {
    Out fresh;
    compute(fresh);
    out = std::move(fresh);
  } else {
    compute(out);
  }
  return out;
}

template <class X>
struct tensor_traits;
template <class T>
struct tensor_traits<Tensor<T>> {
  using value_type = T;
  using index_type = std::int64_t;  // what a ragged result of dense data uses
  static constexpr bool ragged = false;
};
template <class T, class I>
struct tensor_traits<RaggedTensor<T, I>> {
  using value_type = T;
  using index_type = I;
  static constexpr bool ragged = true;
};
template <class T>
struct tensor_traits<TensorView<T>> {
  using value_type = std::remove_const_t<T>;
  using index_type = std::int64_t;
  static constexpr bool ragged = false;
};
template <class T, class I>
struct tensor_traits<RaggedTensorView<T, I>> {
  using value_type = std::remove_const_t<T>;
  using index_type = I;
  static constexpr bool ragged = true;
};

template <class X>
concept tensor_like = requires {
  typename tensor_traits<X>::value_type;
};

template <class X>
using value_of = typename tensor_traits<X>::value_type;

// The result type of tf.ragged.boolean_mask on `Data`.
template <class Data>
using ragged_result = RaggedTensor<value_of<Data>, typename tensor_traits<Data>::index_type>;

template <class Mask>
inline constexpr bool bool_mask =
    std::is_same_v<value_of<Mask>, bool> || std::is_same_v<value_of<Mask>, Bit>;

// One place for the rule of every overload: TensorFlow's TypeError for a non-bool mask.
template <class Mask>
constexpr void require_bool_mask() noexcept {
  static_assert(bool_mask<Mask>,
                "ragged::boolean_mask: the mask must hold bool (TensorFlow rejects non-boolean "
                "masks too); wrap other byte masks with ragged::byte_mask and bit-packed ones "
                "with ragged::bit_mask");
}

// The view of data or mask as `nlevels` levels, whatever its representation.
template <class Index, class X>
auto levels_of(const X& x, std::int64_t nlevels) {
  return view_of<value_of<X>, Index>(x, nlevels);
}

template <class Data, class Mask>
void check_ranks(const Data& data, const Mask& mask) {
  if (mask.rank() == 0) throw_shape_error("mask cannot be scalar");
  if (mask.rank() > data.rank())
    throw_shape_error("mask of rank ", mask.rank(), " has more dims than data of rank ",
                      data.rank(), ": mask shape must be a prefix of data shape");
}

// The result types of tf.ragged.boolean_mask into caller memory.
template <class Data>
using ragged_view_of = RaggedTensorView<value_of<Data>, typename tensor_traits<Data>::index_type>;
template <class Data>
using ragged_buffers_of = RaggedBuffers<value_of<Data>, typename tensor_traits<Data>::index_type>;

// Calls run(data levels, mask levels, rank(mask)): the views of both as the
// levels tf.ragged.boolean_mask works on (the data's max(ragged_rank,
// rank(mask) - 1), the mask's rank(mask) - 1).
template <class Data, class Mask, class Run>
void with_ragged_levels(const Data& data, const Mask& mask, Run&& run) {
  using I = typename tensor_traits<Data>::index_type;
  using J = typename tensor_traits<Mask>::index_type;
  const auto k = mask.rank();
  std::int64_t levels = k - 1;
  if constexpr (tensor_traits<Data>::ragged) levels = std::max(data.ragged_rank(), k - 1);
  run(levels_of<I>(data, levels), levels_of<J>(mask, k - 1), k);
}

}  // namespace detail

/// tf.ragged.boolean_mask(data, mask) written into `out`: keeps the entries of
/// `data` where `mask` is true without flattening the mask's dims. `mask`'s
/// shape must be a prefix of `data`'s; each may be dense or ragged, owning
/// (Tensor, RaggedTensor) or a view of the caller's memory (TensorView,
/// RaggedTensorView, byte_mask). The result has rank(data) dims and
/// ragged_rank max(data.ragged_rank, rank(mask) - 1) (0 for dense data and a
/// 1-D mask: then it is its flat values). With a 1-D mask on ragged data,
/// whole rows are kept, nested levels and all.
///
/// Goes beyond TensorFlow in one place: a ragged mask with more ragged dims than
/// the data is accepted where its row lengths agree with the data's uniform dims.
/// Throws shape_error: "mask cannot be scalar", a mask of higher rank than the
/// data, "mask shape (1, 3) is not a prefix of data shape (1, 2)", "mask and
/// data must have identical row splits: ...", and "... does not fit in int32
/// row splits; use int64" when int32 splits cannot hold the result.
///
/// `out`'s buffers are reused (no allocation when they are large enough).
/// `out` may be an input (the data or the mask): then the result is computed
/// into a fresh tensor and moved into `out`. Exception guarantee: the inputs
/// are never modified; should an element copy throw, `out` is left empty and
/// valid. Returns `out`. (fmt's format / format_to is the model for the name.)
template <class Data, class Mask>
requires detail::tensor_like<Data> && detail::tensor_like<Mask> detail::ragged_result<Data>
&boolean_mask_to(detail::ragged_result<Data>& out, const Data& data, const Mask& mask) {
  detail::require_bool_mask<Mask>();
  detail::check_ranks(data, mask);
  const auto compute = [&](detail::ragged_result<Data>& result) {
    detail::with_ragged_levels(data, mask, [&](const auto& d, const auto& m, std::int64_t k) {
      detail::ragged_mask(d, m, k, result);
    });
  };
  return detail::into_unaliased(out, compute, data, mask);
}

/// tf.ragged.boolean_mask(data, mask) written into the caller's memory:
/// returns the RaggedTensorView of what was written (its splits start at 0).
/// Where a buffer is too small for the result, throws shape_error naming both
/// sizes, and nothing is written past any buffer (levels checked before may
/// have been written). `out` may overlap the inputs: the result is then
/// computed into a temporary and copied there. Otherwise as boolean_mask_to
/// into a RaggedTensor; should an element copy throw, the buffers' contents
/// are unspecified.
template <class Data, class Mask>
requires detail::tensor_like<Data> && detail::tensor_like<Mask> detail::ragged_view_of<Data>
boolean_mask_to(detail::ragged_buffers_of<Data> out, const Data& data, const Mask& mask) {
  detail::require_bool_mask<Mask>();
  using T = detail::value_of<Data>;
  using I = typename detail::tensor_traits<Data>::index_type;
  detail::check_ranks(data, mask);
  detail::BufferOut<T, I> sink{out.values, out.row_splits};
  if (detail::shares_memory(out, data) || detail::shares_memory(out, mask)) {
    // Computed apart, then copied in through the same checks.
    detail::ragged_result<Data> fresh;
    boolean_mask_to(fresh, data, mask);
    sink.levels(fresh.nested_row_splits().size());
    for (std::size_t l = 0; l < fresh.nested_row_splits().size(); ++l) {
      const auto& src = fresh.nested_row_splits()[l];
      std::copy(src.data(), src.data() + src.size(), sink.splits_room(l, src.size() - 1));
      sink.splits_used(l, src.size());
    }
    const auto& fv = fresh.flat_values();
    std::copy(fv.data(), fv.data() + fv.size(),
              sink.values_room(std::vector<std::int64_t>(fv.shape().begin(), fv.shape().end())));
    return sink.result();
  }
  detail::with_ragged_levels(data, mask, [&](const auto& d, const auto& m, std::int64_t k) {
    detail::ragged_mask_into(d, m, k, sink);
  });
  return sink.result();
}

/// tf.ragged.boolean_mask(data, mask), returning a fresh RaggedTensor; see
/// boolean_mask_to for the full contract.
template <class Data, class Mask>
requires detail::tensor_like<Data> && detail::tensor_like<Mask> detail::ragged_result<Data>
boolean_mask(const Data& data, const Mask& mask) {
  detail::require_bool_mask<Mask>();
  detail::ragged_result<Data> out;
  boolean_mask_to(out, data, mask);
  return out;
}

namespace detail {
template <class>
inline constexpr bool not_a_tensor = false;
}  // namespace detail

namespace detail {
// The rule of the fallback overloads below.
template <class Mask>
constexpr void require_tensors() noexcept {
  static_assert(not_a_tensor<Mask>,
                "ragged::boolean_mask: data and mask must be tensors or views; a mask must be a "
                "Tensor<bool>, RaggedTensor<bool> or a view of one; wrap bytes (NumPy, Arrow, "
                "std::vector<std::uint8_t>) with ragged::byte_mask, and copy a std::vector<bool> "
                "(which packs bits) into a Tensor<bool>");
}
}  // namespace detail

/// Data or a mask that is no tensor type (a std::vector<bool>, a plain
/// vector): a compile-time error that names the adaptor to use.
template <class Data, class Mask>
requires(!detail::tensor_like<Data> || !detail::tensor_like<Mask>) void boolean_mask(const Data&,
                                                                                     const Mask&) {
  detail::require_tensors<Mask>();
}
template <class Out, class Data, class Mask>
requires(!detail::tensor_like<Data> ||
         !detail::tensor_like<Mask>) void boolean_mask_to(Out&, const Data&, const Mask&) {
  detail::require_tensors<Mask>();
}
template <class Data, class Mask>
requires(!detail::tensor_like<Data> ||
         !detail::tensor_like<Mask>) void boolean_mask(const Data&, const Mask&, std::int64_t) {
  detail::require_tensors<Mask>();
}

namespace detail {

// The dense operand of tf.boolean_mask: a Tensor or TensorView as it is, a
// RaggedTensor (or view) of ragged_rank 0 as its flat values.
template <class X>
TensorView<const value_of<X>> dense_operand(const X& x, const char* what) {
  if constexpr (tensor_traits<X>::ragged) {
    if (x.ragged_rank() != 0)
      throw_shape_error("boolean_mask with an axis needs a dense ", what, ", but the ", what,
                        " has ragged_rank ", x.ragged_rank(), " and shape ", to_string(x.shape()),
                        ": use the two-argument boolean_mask to keep ragged dims");
    return TensorView<const value_of<X>>(x.flat_values());
  } else {
    return TensorView<const value_of<X>>(x);
  }
}

// tf.boolean_mask's checks and the result's layout: `outer` rows of `m` mask
// entries of `inner` elements each; the result has `dims` with the count at
// `axis` (resolved, not negative).
struct DensePlan {
  std::int64_t axis = 0, outer = 1, m = 0, inner = 1;
  std::vector<std::int64_t> dims;
};

template <class T, class MT>
DensePlan plan_dense(const TensorView<const T>& tensor, const TensorView<const MT>& mask,
                     std::int64_t axis) {
  const auto k = mask.rank();
  const auto n = tensor.rank();
  if (k == 0) throw_shape_error("mask cannot be scalar");
  const auto a = axis < 0 ? axis + n : axis;
  // `a > n - k`, not `a + k > n`: an axis near INT64_MAX must not wrap past the check.
  if (a < 0 || k > n || a > n - k)
    throw_shape_error("axis ", axis, " is out of range for a mask of shape ",
                      to_string(mask.shape()), " on a tensor of shape ", to_string(tensor.shape()),
                      ": need 0 <= axis and axis + ", k, " <= ", n);
  const auto& shape = tensor.shape();
  for (std::int64_t d = 0; d < k; ++d)
    if (shape[a + d] != mask.dim(d))
      throw_shape_error("mask shape ", to_string(mask.shape()), " does not match tensor shape ",
                        to_string(shape), " at axis ", axis, ": expected ",
                        to_string(shape.slice(a, a + k)));
  DensePlan p;
  p.axis = a;
  p.outer = shape.num_elements(0, a);
  p.m = mask.size();
  p.inner = shape.num_elements(a + k, n);
  p.dims.assign(shape.begin(), shape.begin() + a);
  p.dims.push_back(0);
  p.dims.insert(p.dims.end(), shape.begin() + a + k, shape.end());
  return p;
}

// What one tf.boolean_mask call works on: the operands as views, and the plan.
template <class T, class MT>
struct DenseCall {
  TensorView<const T> tensor;
  TensorView<const MT> mask;
  DensePlan plan;
};

template <class Data, class Mask>
DenseCall<value_of<Data>, value_of<Mask>> dense_call(const Data& tensor, const Mask& mask,
                                                     std::int64_t axis) {
  auto t = dense_operand(tensor, "tensor");
  auto m = dense_operand(mask, "mask");
  auto plan = plan_dense(t, m, axis);
  return {std::move(t), std::move(m), std::move(plan)};
}

// Compacts into `out`, which has room for the result (`kept` known, or -1 when
// `out` has room for the whole input and the single-pass path may run);
// returns the count kept per outer row.
template <class T, class MT, class Policy>
std::int64_t dense_into(T* out, const TensorView<const T>& tensor, const TensorView<const MT>& mask,
                        const DensePlan& p, std::int64_t kept, const Policy& parallel) {
  // Unqualified, so that the Policy's own overload (kernel::Parallel, declared
  // in kernel/parallel.hpp, perhaps after this header) is found by ADL.
  using kernel::compact;
  if (tensor.size() == 0) return kept >= 0 ? kept : kernel::count(mask.data(), p.m);
  if (p.outer == 1 && kept < 0)
    return rows_written(out, compact(tensor.data(), mask.data(), p.m, out, p.inner, parallel),
                        p.inner, mask.data(), p.m);
  if (kept < 0) kept = kernel::count(mask.data(), p.m);
  for (std::int64_t o = 0; o < p.outer; ++o)
    compact(tensor.data() + o * p.m * p.inner, mask.data(), p.m, out + o * kept * p.inner, p.inner,
            parallel);
  return kept;
}

template <class T, class MT, class Policy>
void dense_mask(Tensor<T>& result, const TensorView<const T>& tensor,
                const TensorView<const MT>& mask, DensePlan p, const Policy& parallel) {
  if (tensor.size() == 0) {
    // Nothing to move: the result's shape is all there is (and `outer` may
    // count INT64_MAX empty rows, as in (INT64_MAX, 3, 0)).
    p.dims[to_size(p.axis)] = kernel::count(mask.data(), p.m);
    builder::reset_for_overwrite(result, Shape(std::move(p.dims)));
    return;
  }
  if (p.outer == 1 && bytewise<T>) {
    // One compaction: room for every row and no counting pass (pages that are
    // never written are never touched), then the size it kept.
    p.dims[to_size(p.axis)] = p.m;
    builder::reset_for_overwrite(result, Shape(p.dims));
    p.dims[to_size(p.axis)] = dense_into(result.data(), tensor, mask, p, -1, parallel);
    builder::reset_for_overwrite(result, Shape(std::move(p.dims)));
    return;
  }
  const auto kept = kernel::count(mask.data(), p.m);
  p.dims[to_size(p.axis)] = kept;
  builder::reset_for_overwrite(result, Shape(p.dims));
  try {
    dense_into(result.data(), tensor, mask, p, kept, parallel);
  } catch (...) {
    result = Tensor<T>();  // a copy of T threw: leave the result empty, not half-built
    throw;
  }
}

}  // namespace detail

/// tf.boolean_mask(tensor, mask, axis) written into `out`, NumPy's `tensor[mask]`
/// for axis 0: keeps the entries where `mask` (rank K >= 1, shape
/// tensor.shape[axis : axis + K]) is true and flattens those K dims into one.
/// The result has shape tensor.shape[:axis] + [count] + tensor.shape[axis + K:].
/// `axis` may be negative, counting from the end as in NumPy. `tensor` and
/// `mask` may be owning or views (a RaggedTensor of ragged_rank 0 counts as
/// its flat values). Throws shape_error naming both shapes and the axis.
/// `out`'s buffer is reused; `parallel`, a kernel::Parallel{threads} from
/// <ragged/kernel/parallel.hpp>, lets large inputs be split over threads
/// (opt-in, same result; the default runs on the calling thread). `out` may be the tensor or the
/// mask itself: then the result is computed into a fresh tensor and moved into `out`. Exception
/// guarantee: the inputs are never modified; should an element copy throw, `out` is left empty and
/// valid.
template <class Data, class Mask, class Policy = kernel::Serial>
requires detail::tensor_like<Data> && detail::tensor_like<Mask> Tensor<detail::value_of<Data>>
&boolean_mask_to(Tensor<detail::value_of<Data>>& out, const Data& tensor, const Mask& mask,
                 std::int64_t axis, Policy parallel = {}) {
  detail::require_bool_mask<Mask>();
  using T = detail::value_of<Data>;
  auto call = detail::dense_call(tensor, mask, axis);
  const auto compute = [&](Tensor<T>& result) {
    detail::dense_mask(result, call.tensor, call.mask, std::move(call.plan), parallel);
  };
  return detail::into_unaliased(out, compute, call.tensor, call.mask);
}

/// tf.boolean_mask(tensor, mask, axis) written into the caller's memory:
/// `out` views room for the result (memory sized like the input is always
/// enough). Returns the view of what was written, shaped like the result.
/// When `out` is too small, throws shape_error naming both sizes and writes
/// nothing. `out` may overlap an input: the result is then computed into a
/// temporary and copied there.
template <class Data, class Mask, class Policy = kernel::Serial>
requires detail::tensor_like<Data> && detail::tensor_like<Mask> TensorView<detail::value_of<Data>>
boolean_mask_to(TensorView<detail::value_of<Data>> out, const Data& tensor, const Mask& mask,
                std::int64_t axis, Policy parallel = {}) {
  detail::require_bool_mask<Mask>();
  using T = detail::value_of<Data>;
  auto call = detail::dense_call(tensor, mask, axis);
  const auto& t = call.tensor;
  const auto& m = call.mask;
  auto& plan = call.plan;
  const auto room = out.size();
  const auto too_small = [&](std::int64_t need) {
    detail::throw_shape_error("boolean_mask_to: out has room for ", room,
                              " elements but the result has ", need);
  };
  if (detail::shares_memory(out, t) || detail::shares_memory(out, m)) {
    Tensor<T> result;
    detail::dense_mask(result, t, m, std::move(plan), parallel);
    if (result.size() > room) too_small(result.size());
    std::copy(result.data(), result.data() + result.size(), out.data());
    return TensorView<T>(out.data(), result.shape());
  }
  // Room for the whole input: one pass, no counting. Else count, and check first.
  std::int64_t kept = -1;
  if (room < t.size()) {
    kept = kernel::count(m.data(), plan.m);
    const auto need = plan.outer * kept * plan.inner;  // at most t.size(): no overflow
    if (need > room) too_small(need);
  }
  plan.dims[detail::to_size(plan.axis)] =
      detail::dense_into(out.data(), t, m, plan, kept, parallel);
  return TensorView<T>(out.data(), Shape(std::move(plan.dims)));
}

/// tf.boolean_mask(tensor, mask, axis), returning a fresh Tensor; see
/// boolean_mask_to for the full contract.
template <class Data, class Mask>
requires detail::tensor_like<Data> && detail::tensor_like<Mask> Tensor<detail::value_of<Data>>
boolean_mask(const Data& tensor, const Mask& mask, std::int64_t axis) {
  detail::require_bool_mask<Mask>();
  Tensor<detail::value_of<Data>> out;
  boolean_mask_to(out, tensor, mask, axis);
  return out;
}

}  // namespace v0_1
}  // namespace ragged
