// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "detail/checked.hpp"
#include "error.hpp"
#include "kernel/compact.hpp"
#include "ragged_tensor.hpp"
#include "shape.hpp"
#include "tensor.hpp"

namespace ragged::inline v0_1 {

namespace detail {

using kernel::detail::bytewise;

// One dim of a tensor seen as rows of the next dim: uniform (every row has
// `uniform` items, as a dense dim) or given by explicit row splits. Dense dims
// stay uniform, so masking dense data never materialises splits it does not output.
template <class Index>
struct Level {
  std::int64_t nrows = 0;
  std::int64_t uniform = 0;
  const Index* splits = nullptr;

  [[nodiscard]] std::int64_t bound(std::int64_t r) const noexcept {
    return splits ? std::int64_t{splits[r]} : r * uniform;
  }
  [[nodiscard]] std::int64_t nvalues() const noexcept { return bound(nrows); }
};

// A tensor seen as `levels` of rows over flat values of `flat_shape`: the
// first levels.size() dims as levels, whatever their storage.
template <class T, class Index>
struct View {
  std::vector<Level<Index>> levels;
  const T* values = nullptr;
  Shape flat_shape;
  PartialShape shape;  // the tensor's shape, for messages and prefix checks
};

// Splits a dense flat shape's leading dims into uniform levels until there are `nlevels`.
template <class T, class Index>
void add_uniform_levels(View<T, Index>& v, const Shape& flat, std::int64_t nlevels) {
  auto dims = std::vector<std::int64_t>(flat.begin(), flat.end());
  std::int64_t rows = dims[0];
  std::size_t d = 1;
  while (static_cast<std::int64_t>(v.levels.size()) < nlevels) {
    v.levels.push_back(Level<Index>{rows, dims[d], nullptr});
    // Only an empty tensor can get here with a product past int64: (2^62, 2^62, 0).
    rows = checked_mul(rows, dims[d++], "the number of rows in the leading dims of shape ",
                       to_string(flat));
  }
  std::vector<std::int64_t> rest{rows};
  rest.insert(rest.end(), dims.begin() + static_cast<std::ptrdiff_t>(d), dims.end());
  v.flat_shape = Shape(std::move(rest));
}

template <class T, class Index>
View<T, Index> view_of(const Tensor<T>& t, std::int64_t nlevels) {
  View<T, Index> v;
  v.values = t.data();
  for (auto d : t.shape()) v.shape.emplace_back(d);
  add_uniform_levels(v, t.shape(), nlevels);
  return v;
}

template <class T, class Index>
View<T, Index> view_of(const RaggedTensor<T, Index>& rt, std::int64_t nlevels) {
  rt.validate();  // a tensor built with validate = false is checked before it is indexed
  View<T, Index> v;
  v.values = rt.flat_values().data();
  v.shape = rt.shape();
  for (const auto& s : rt.nested_row_splits())
    v.levels.push_back(Level<Index>{s.size() - 1, 0, s.data()});
  add_uniform_levels(v, rt.flat_values().shape(),
                     std::max<std::int64_t>(nlevels, rt.ragged_rank()));
  return v;
}

template <class T>
std::int64_t rank_of(const Tensor<T>& t) {
  return t.rank();
}
template <class T, class I>
std::int64_t rank_of(const RaggedTensor<T, I>& t) {
  return t.rank();
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
    if (!ml.splits && !dl.splits) continue;  // equal uniform dims: checked above
    for (std::int64_t r = 0; r <= ml.nrows; ++r)
      if (ml.bound(r) != dl.bound(r))
        throw_shape_error("mask and data must have identical row splits: nested_row_splits[", l,
                          "][", r, "] is ", ml.bound(r), " in the mask but ", dl.bound(r),
                          " in the data (mask shape ", to_string(mask.shape), ", data shape ",
                          to_string(data.shape), ")");
  }
}

// Level l of the result's splits, room for the splits of `nrows` rows, reusing
// `out`'s buffer when it has room. (nrows + 1 is checked: the uniform dims of
// an empty tensor may count INT64_MAX rows.)
template <class Index>
Tensor<Index>& reuse(std::vector<Tensor<Index>>& splits, std::size_t l, std::int64_t nrows) {
  if (splits.size() <= l) splits.resize(l + 1);
  splits[l].reset_for_overwrite(Shape{checked_add(nrows, 1, "the row splits of ", nrows, " rows")});
  return splits[l];
}

template <class T, class I>
std::int64_t rows_at(const View<T, I>& v, std::size_t dim) {
  return dim < v.levels.size() ? v.levels[dim].nrows : v.flat_shape[0];
}

// Row selection: keeps whole rows of dim `first` (where mask[r]) with everything
// nested under them. At each level below, the kernel gathers the kept rows'
// limits (splits[r + 1]) into the new splits, and one pass over the runs of
// kept rows rebases them (each run's limits are contiguous, less what was
// dropped before it). The flat values are the kept rows' contiguous ranges,
// moved by the kernel as runs. Temporaries are per row of dim `first` only.
template <class T, class Index>
void select_rows(const View<T, Index>& data, std::size_t first, const bool* mask,
                 std::vector<Tensor<Index>>& out_splits, Tensor<T>& out_flat) {
  const auto nrows = data.levels[first].nrows;
  std::vector<Index>
      composed;  // bounds of the kept rows one dim down, once not the splits themselves
  std::span<const Index> bounds;  // level l's rows under each row of dim `first`, for l > first
  for (std::size_t l = first; l < data.levels.size(); ++l) {
    const auto* splits = data.levels[l].splits;
    auto& s = reuse(out_splits, l, data.levels[l].nrows);  // room for every row; trimmed below
    auto* sp = s.data();
    const auto kept = l == first ? kernel::compact(splits + 1, mask, nrows, sp + 1)
                                 : kernel::compact(splits + 1, mask, bounds, sp + 1);
    sp[0] = 0;
    std::int64_t k = 0;
    kernel::detail::for_each_run(mask, nrows, [&](std::int64_t b, std::int64_t e) {
      const std::int64_t lo = l == first ? b : bounds[to_size(b)];
      const std::int64_t hi = l == first ? e : bounds[to_size(e)];
      const auto dropped = static_cast<Index>(splits[lo] - sp[k]);
      for (auto i = k + 1; i <= k + hi - lo; ++i) sp[i] = static_cast<Index>(sp[i] - dropped);
      k += hi - lo;
    });
    s.reset_for_overwrite(Shape{kept + 1});
    if (l == first) {
      bounds = std::span<const Index>(splits, to_size(nrows + 1));
    } else {
      composed.resize(to_size(nrows + 1));
      for (std::size_t r = 0; r <= to_size(nrows); ++r) composed[r] = splits[bounds[r]];
      bounds = composed;
    }
  }
  auto dims = std::vector<std::int64_t>(data.flat_shape.begin(), data.flat_shape.end());
  dims[0] = out_splits[data.levels.size() - 1].values().back();
  out_flat.reset_for_overwrite(Shape(std::move(dims)));
  kernel::compact(data.values, mask, bounds, out_flat.data(),
                  data.flat_shape.num_elements(1, data.flat_shape.rank()));
}

// tf.ragged.boolean_mask on views: `k` is the mask's rank; the mask view has
// k - 1 levels over 1-D flat values, the data view max(ragged_rank, k - 1).
template <class T, class I, class J>
void ragged_mask_into(const View<T, I>& data, const View<bool, J>& mask, std::int64_t k,
                      RaggedTensor<T, I>& out) {
  check_conformance(data, mask, k);
  // Every split of the result counts rows of the level below it, at most as
  // many as the data has there: checked once, up front, for the Index type (a
  // mask with more ragged dims than the data can make int32 splits of
  // uniform dims that would wrap).
  for (std::size_t l = 0; l < data.levels.size(); ++l)
    check_fits<I>(rows_at(data, l + 1), "the result's row splits would reach");
  auto& out_splits = ragged_parts::splits(out);
  auto& out_flat = ragged_parts::flat_values(out);
  const auto ndata_levels = data.levels.size();
  const auto sel = to_size(k - 1);  // the dim whose rows the mask's flat values select
  out_splits.resize(ndata_levels);
  // Dims above the mask's last: unchanged.
  for (std::size_t l = 0; l + 1 < sel; ++l) {
    const auto& level = data.levels[l];
    auto& s = reuse(out_splits, l, level.nrows);
    for (std::int64_t r = 0; r <= level.nrows; ++r) s.data()[r] = static_cast<I>(level.bound(r));
  }
  const auto n = rows_at(data, sel);
  if (sel < ndata_levels) {
    // The mask's last ragged dim: prefix sums of the kept counts per row.
    if (sel >= 1) {
      const auto& level = mask.levels[sel - 1];
      auto* sp = reuse(out_splits, sel - 1, level.nrows).data();
      sp[0] = 0;
      for (std::int64_t r = 0; r < level.nrows; ++r)
        sp[r + 1] = static_cast<I>(sp[r] + kernel::count(mask.values + level.bound(r),
                                                         level.bound(r + 1) - level.bound(r)));
    }
    select_rows(data, sel, mask.values, out_splits, out_flat);
    return;
  }
  // Elements (or uniform inner rows) of the flat values. Trivially copyable
  // values get room for every row and skip the counting pass: pages that are
  // never written are never touched. Others are counted first, so that only
  // the kept elements are constructed.
  auto dims = std::vector<std::int64_t>(data.flat_shape.begin(), data.flat_shape.end());
  dims[0] = bytewise<T> ? n : kernel::count(mask.values, n);
  out_flat.reset_for_overwrite(Shape(dims));
  const auto inner = data.flat_shape.num_elements(1, data.flat_shape.rank());
  std::int64_t kept = 0;
  if (sel >= 1) {
    // The mask's last ragged dim: its row splits are where the kernel reports
    // its running count, which makes the result's splits in the same pass.
    const auto& level = mask.levels[sel - 1];
    auto& s = reuse(out_splits, sel - 1, level.nrows);
    kept = kernel::compact(data.values, mask.values, n, out_flat.data(), inner,
                           kernel::Boundaries<J>{level.splits, level.uniform, level.nrows + 1},
                           s.data());
  } else {
    kept = kernel::compact(data.values, mask.values, n, out_flat.data(), inner);
  }
  dims[0] = kept;
  out_flat.reset_for_overwrite(Shape(std::move(dims)));
}

// The operation with the basic guarantee for `out`: should copying a T throw
// midway, `out` is left empty (and valid) rather than half-built. The inputs
// are never modified.
template <class T, class I, class J>
void ragged_mask(const View<T, I>& data, const View<bool, J>& mask, std::int64_t k,
                 RaggedTensor<T, I>& out) {
  try {
    ragged_mask_into(data, mask, k, out);
    ragged_parts::mark_validated(out);
  } catch (...) {
    out = RaggedTensor<T, I>();
    throw;
  }
}

// Whether two byte ranges share a byte (std::less: a total order on pointers).
inline bool ranges_overlap(const void* a, std::size_t an, const void* b, std::size_t bn) noexcept {
  const auto* p = static_cast<const std::byte*>(a);
  const auto* q = static_cast<const std::byte*>(b);
  const std::less<const std::byte*> before;
  return an && bn && before(p, q + bn) && before(q, p + an);
}

template <class T, class F>
void for_each_buffer(const Tensor<T>& t, F&& f) {
  f(static_cast<const void*>(t.data()), to_size(t.size()) * sizeof(T));
}
template <class T, class I, class F>
void for_each_buffer(const RaggedTensor<T, I>& t, F&& f) {
  for_each_buffer(t.flat_values(), f);
  for (const auto& s : t.nested_row_splits()) for_each_buffer(s, f);
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
inline constexpr bool bool_mask = std::is_same_v<value_of<Mask>, bool>;

// The view of data or mask as `nlevels` levels, whatever its representation.
template <class Index, class X>
auto levels_of(const X& x, std::int64_t nlevels) {
  return view_of<value_of<X>, Index>(x, nlevels);
}

template <class Data, class Mask>
void check_ranks(const Data& data, const Mask& mask) {
  if (rank_of(mask) == 0) throw_shape_error("mask cannot be scalar");
  if (rank_of(mask) > rank_of(data))
    throw_shape_error("mask of rank ", rank_of(mask), " has more dims than data of rank ",
                      rank_of(data), ": mask shape must be a prefix of data shape");
}

}  // namespace detail

/// tf.ragged.boolean_mask(data, mask): keeps the entries of `data` where `mask`
/// is true without flattening the mask's dims. `mask`'s shape must be a prefix
/// of `data`'s; both may be dense (Tensor) or ragged (RaggedTensor). The result
/// has rank(data) dims and ragged_rank max(data.ragged_rank, rank(mask) - 1)
/// (0 for dense data and a 1-D mask: then it is its flat values). With a 1-D
/// mask on ragged data, whole rows are kept, nested levels and all.
///
/// Goes beyond TensorFlow in one place: a ragged mask with more ragged dims than
/// the data is accepted where its row lengths agree with the data's uniform dims.
/// Throws shape_error: "mask cannot be scalar", a mask of higher rank than the
/// data, "mask shape (1, 3) is not a prefix of data shape (1, 2)", "mask and
/// data must have identical row splits: ...", and "... does not fit in int32
/// row splits; use int64" when int32 splits cannot hold the result.
///
/// The result is written into `out`, whose buffers are reused (no allocation
/// when they are large enough). `out` may be an input (the data or the mask):
/// then the result is computed into a fresh tensor and moved into `out`.
/// Exception guarantee: the inputs are never modified; should an element copy
/// throw, `out` is left empty and valid.
template <class Data, class Mask>
requires detail::tensor_like<Data> && detail::tensor_like<Mask> detail::ragged_result<Data>
&boolean_mask(const Data& data, const Mask& mask, detail::ragged_result<Data>& out) {
  static_assert(
      detail::bool_mask<Mask>,
      "ragged::boolean_mask: the mask must hold bool (TensorFlow rejects non-boolean masks too)");
  using I = typename detail::tensor_traits<Data>::index_type;
  using J = typename detail::tensor_traits<Mask>::index_type;
  detail::check_ranks(data, mask);
  const auto k = mask.rank();
  std::int64_t levels = k - 1;
  if constexpr (detail::tensor_traits<Data>::ragged) levels = std::max(data.ragged_rank(), k - 1);
  const auto compute = [&](detail::ragged_result<Data>& result) {
    detail::ragged_mask(detail::levels_of<I>(data, levels), detail::levels_of<J>(mask, k - 1), k,
                        result);
  };
  return detail::into_unaliased(out, compute, data, mask);
}

/// tf.ragged.boolean_mask(data, mask), returning a fresh RaggedTensor; see the
/// overload with `out` for the full contract.
template <class Data, class Mask>
requires detail::tensor_like<Data> && detail::tensor_like<Mask> detail::ragged_result<Data>
boolean_mask(const Data& data, const Mask& mask) {
  static_assert(
      detail::bool_mask<Mask>,
      "ragged::boolean_mask: the mask must hold bool (TensorFlow rejects non-boolean masks too)");
  detail::ragged_result<Data> out;
  boolean_mask(data, mask, out);
  return out;
}

/// tf.boolean_mask(tensor, mask, axis), NumPy's `tensor[mask]` for axis 0:
/// keeps the entries where `mask` (rank K >= 1, shape tensor.shape[axis : axis
/// + K]) is true and flattens those K dims into one. The result has shape
/// tensor.shape[:axis] + [count] + tensor.shape[axis + K:]. `axis` may be
/// negative, counting from the end as in NumPy. Throws shape_error naming both
/// shapes and the axis. Writes into `out`, reusing its buffer; `parallel`
/// lets large inputs be split over threads (opt-in, same result). `out` may be
/// the tensor or the mask itself: then the result is computed into a fresh
/// tensor and moved into `out`. Exception guarantee: the inputs are never
/// modified; should an element copy throw, `out` is left empty and valid.
template <class T>
Tensor<T>& boolean_mask(const Tensor<T>& tensor, const Tensor<bool>& mask, std::int64_t axis,
                        Tensor<T>& out, kernel::Parallel parallel = {}) {
  const auto k = mask.rank();
  const auto n = tensor.rank();
  if (k == 0) detail::throw_shape_error("mask cannot be scalar");
  const auto a = axis < 0 ? axis + n : axis;
  // `a > n - k`, not `a + k > n`: an axis near INT64_MAX must not wrap past the check.
  if (a < 0 || k > n || a > n - k)
    detail::throw_shape_error("axis ", axis, " is out of range for a mask of shape ",
                              to_string(mask.shape()), " on a tensor of shape ",
                              to_string(tensor.shape()), ": need 0 <= axis and axis + ", k,
                              " <= ", n);
  const auto& shape = tensor.shape();
  for (std::int64_t d = 0; d < k; ++d)
    if (shape[a + d] != mask.dim(d))
      detail::throw_shape_error("mask shape ", to_string(mask.shape()),
                                " does not match tensor shape ", to_string(shape), " at axis ",
                                axis, ": expected ", to_string(shape.slice(a, a + k)));
  const auto compute = [&](Tensor<T>& result) {
    const auto outer = shape.num_elements(0, a);
    const auto m = mask.size();
    const auto inner = shape.num_elements(a + k, n);
    std::vector<std::int64_t> dims(shape.begin(), shape.begin() + a);
    dims.push_back(0);
    dims.insert(dims.end(), shape.begin() + a + k, shape.end());
    if (tensor.size() == 0) {
      // Nothing to move: the result's shape is all there is (and `outer` may
      // count INT64_MAX empty rows, as in (INT64_MAX, 3, 0)).
      dims[detail::to_size(a)] = kernel::count(mask.data(), m);
      result.reset_for_overwrite(Shape(std::move(dims)));
      return;
    }
    if (outer == 1 && detail::bytewise<T>) {
      // One compaction: room for every row and no counting pass (pages that are
      // never written are never touched), then the size it kept.
      dims[detail::to_size(a)] = m;
      result.reset_for_overwrite(Shape(dims));
      dims[detail::to_size(a)] =
          kernel::compact(tensor.data(), mask.data(), m, result.data(), inner, parallel);
      result.reset_for_overwrite(Shape(std::move(dims)));
      return;
    }
    const auto kept = kernel::count(mask.data(), m);
    dims[detail::to_size(a)] = kept;
    result.reset_for_overwrite(Shape(std::move(dims)));
    try {
      for (std::int64_t o = 0; o < outer; ++o)
        kernel::compact(tensor.data() + o * m * inner, mask.data(), m,
                        result.data() + o * kept * inner, inner, parallel);
    } catch (...) {
      result = Tensor<T>();  // a copy of T threw: leave the result empty, not half-built
      throw;
    }
  };
  return detail::into_unaliased(out, compute, tensor, mask);
}

/// tf.boolean_mask(tensor, mask, axis) returning a fresh tensor.
template <class T, class M>
Tensor<T> boolean_mask(const Tensor<T>& tensor, const Tensor<M>& mask, std::int64_t axis) {
  static_assert(
      std::is_same_v<M, bool>,
      "ragged::boolean_mask: the mask must hold bool (TensorFlow rejects non-boolean masks too)");
  Tensor<T> out;
  boolean_mask(tensor, mask, axis, out);
  return out;
}

/// tf.boolean_mask on a RaggedTensor of ragged_rank 0 (as boolean_mask(data,
/// mask) returns for dense data): masks its flat values. Any other ragged_rank
/// throws shape_error: use the two-argument boolean_mask to keep ragged dims.
template <class T, RowIndex I, class M>
Tensor<T> boolean_mask(const RaggedTensor<T, I>& tensor, const Tensor<M>& mask, std::int64_t axis) {
  if (tensor.ragged_rank() != 0)
    detail::throw_shape_error(
        "boolean_mask with an axis needs a dense tensor, but the data has ragged_rank ",
        tensor.ragged_rank(), " and shape ", to_string(tensor.shape()));
  return boolean_mask(tensor.flat_values(), mask, axis);
}

}  // namespace ragged::inline v0_1
