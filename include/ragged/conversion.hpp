// SPDX-License-Identifier: Apache-2.0
// Dense to ragged and back: tf.RaggedTensor.from_tensor and to_tensor. In the
// operations layer, because from_tensor runs the compaction kernel; the
// members RaggedTensor::from_tensor and rt.to_tensor() are defined here.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "detail/builder.hpp"
#include "detail/checked.hpp"
#include "detail/same_value.hpp"
#include "error.hpp"
#include "kernel/compact.hpp"
#include "ragged_tensor.hpp"
#include "shape.hpp"
#include "tensor.hpp"
#include "view.hpp"

namespace ragged {
inline namespace v0_1 {

/// tf.RaggedTensor.from_tensor: the first `ragged_rank` dims of a dense tensor
/// (or a view of one) become ragged. With `lengths` (one per row of the
/// innermost ragged dim), row r keeps its first lengths[r] entries; with
/// `padding`, trailing entries equal to it are dropped (for inner dims, a slab
/// is dropped when all its elements equal `padding`). ragged_rank 0 returns
/// the tensor itself. The kept entries move with one kernel compaction.
template <RowIndex Index = std::int64_t, class T>
[[nodiscard]] RaggedTensor<T, Index> from_tensor(
    TensorView<const T> tensor, const std::optional<std::vector<Index>>& lengths = std::nullopt,
    const std::optional<T>& padding = std::nullopt, std::int64_t ragged_rank = 1) {
  if (ragged_rank < 0 || ragged_rank >= tensor.rank())
    detail::throw_shape_error("ragged_rank = ", ragged_rank, " must be in [0, ", tensor.rank(),
                              ") for a tensor of shape ", to_string(tensor.shape()));
  if (lengths && padding)
    detail::throw_shape_error("from_tensor takes lengths or padding, not both");
  if (ragged_rank == 0 && (lengths || padding))
    detail::throw_shape_error("from_tensor: ", lengths ? "lengths" : "padding",
                              " needs ragged_rank >= 1, but ragged_rank is 0");
  const auto& shape = tensor.shape();
  for (std::int64_t d = 0; d <= ragged_rank; ++d)
    detail::check_fits<Index>(detail::rows_in(shape, 0, d + 1), "the dimension product");
  std::vector<Tensor<Index>> splits;
  for (std::int64_t l = 0; l < ragged_rank; ++l)
    splits.push_back(detail::uniform_splits<Index>(detail::rows_in(shape, 0, l + 1), shape[l + 1]));
  std::vector<std::int64_t> flat_dims{detail::rows_in(shape, 0, ragged_rank + 1)};
  for (std::int64_t d = ragged_rank + 1; d < tensor.rank(); ++d) flat_dims.push_back(shape[d]);
  using detail::builder;
  if (ragged_rank == 0 || (!lengths && !padding))
    return builder::ragged<RaggedTensor<T, Index>>(
        Tensor<T>(Shape(std::move(flat_dims)), tensor.values()), std::move(splits));

  // Keep the first len[r] slabs of each innermost row: one compaction of slabs.
  const auto rows = detail::rows_in(shape, 0, ragged_rank);
  const auto width = shape[ragged_rank];
  const auto inner = shape.num_elements(ragged_rank + 1, tensor.rank());
  std::vector<std::int64_t> len(detail::to_size(rows), width);
  if (lengths) {
    if (static_cast<std::int64_t>(lengths->size()) != rows)
      detail::throw_shape_error("from_tensor: lengths has ", lengths->size(),
                                " entries but the tensor of shape ", to_string(shape), " has ",
                                rows, " rows");
    for (std::int64_t r = 0; r < rows; ++r) {
      const std::int64_t l = (*lengths)[detail::to_size(r)];
      if (l < 0) detail::throw_shape_error("from_tensor: lengths[", r, "] = ", l, " is negative");
      len[detail::to_size(r)] = std::min(l, width);
    }
  } else {
    const T* v = tensor.data();
    for (std::int64_t r = 0; r < rows; ++r) {
      auto& l = len[detail::to_size(r)];
      while (l > 0 && std::all_of(v + (r * width + l - 1) * inner, v + (r * width + l) * inner,
                                  [&](const T& x) { return detail::same_value(x, *padding); }))
        --l;
    }
  }
  detail::Buffer<bool> keep(detail::to_size(rows * width), detail::for_overwrite);
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < width; ++c)
      keep[detail::to_size(r * width + c)] = c < len[detail::to_size(r)];
  auto inner_lengths =
      detail::splits_from_lengths<Index>(std::span<const std::int64_t>(len), "lengths");
  flat_dims[0] = inner_lengths.values().back();
  auto flat = Tensor<T>::for_overwrite(Shape(std::move(flat_dims)));
  kernel::compact(tensor.data(), keep.data(), rows * width, flat.data(), inner);
  splits.back() = std::move(inner_lengths);
  return builder::ragged<RaggedTensor<T, Index>>(std::move(flat), std::move(splits));
}

/// from_tensor of an owning tensor (tf.RaggedTensor.from_tensor).
template <RowIndex Index = std::int64_t, class T>
[[nodiscard]] RaggedTensor<T, Index> from_tensor(
    const Tensor<T>& tensor, const std::optional<std::vector<Index>>& lengths = std::nullopt,
    const std::optional<T>& padding = std::nullopt, std::int64_t ragged_rank = 1) {
  return from_tensor<Index>(TensorView<const T>(tensor), lengths, padding, ragged_rank);
}

namespace detail {

// Copies rows [lo, hi) of a dense source (dims from `sd` on) into the target
// (dims from `td` on), truncating or leaving padding where the dims differ.
template <class T>
void copy_clipped(const T* src, const Shape& sshape, std::int64_t sd, std::int64_t lo,
                  std::int64_t hi, T* out, const Shape& tshape, std::int64_t td) {
  const auto sstride = sshape.num_elements(sd, sshape.rank());
  const auto tstride = tshape.num_elements(td + 1, tshape.rank());
  for (auto r = lo; r < hi; ++r) {
    const T* row = src + r * sstride;
    T* dst = out + (r - lo) * tstride;
    if (sd == sshape.rank()) {
      *dst = *row;
    } else {
      copy_clipped(row, sshape, sd + 1, 0, std::min(sshape[sd], tshape[td + 1]), dst, tshape,
                   td + 1);
    }
  }
}

// Rows [lo, hi) of ragged level `level` into the dense target, clipped to its shape.
template <class T, class Index>
void fill_dense(const RaggedTensor<T, Index>& rt, std::size_t level, std::int64_t lo,
                std::int64_t hi, T* out, const Shape& shape) {
  const auto d = static_cast<std::int64_t>(level);
  const auto stride = shape.num_elements(d + 1, shape.rank());
  const auto& splits = rt.nested_row_splits();
  if (level == splits.size()) {
    // Flat values: rows of the flat tensor's inner dims, clipped to the target shape.
    const auto& flat = rt.flat_values();
    copy_clipped(flat.data(), flat.shape(), 1, lo, hi, out, shape, d);
    return;
  }
  const auto s = splits[level].values();
  for (auto r = lo; r < hi; ++r) {
    const auto a = std::int64_t{s[to_size(r)]};
    const auto n = std::min<std::int64_t>(std::int64_t{s[to_size(r + 1)]} - a, shape[d + 1]);
    fill_dense(rt, level + 1, a, a + n, out + (r - lo) * stride, shape);
  }
}

}  // namespace detail

/// tf: rt.to_tensor(default_value, shape): a dense tensor padded with
/// `default_value`; with `shape`, rows are padded or truncated to it.
template <class T, class Index>
[[nodiscard]] Tensor<T> to_tensor(const RaggedTensor<T, Index>& rt, const T& default_value = T{},
                                  const std::optional<Shape>& shape = std::nullopt) {
  Shape out_shape = shape ? *shape : rt.bounding_shape();
  if (out_shape.rank() != rt.rank())
    detail::throw_shape_error("to_tensor: shape ", to_string(out_shape), " has rank ",
                              out_shape.rank(), " but the RaggedTensor has rank ", rt.rank());
  rt.validate();
  auto out = Tensor<T>::filled(out_shape, default_value);
  detail::fill_dense(rt, 0, 0, std::min(rt.nrows(), out_shape[0]), out.data(), out_shape);
  return out;
}

namespace detail {
// The members' definitions, found through the tag (ragged_tensor.hpp).
template <class T, class Index>
RaggedTensor<T, Index> convert_from_tensor(conversion, const Tensor<T>& tensor,
                                           const std::optional<std::vector<Index>>& lengths,
                                           const std::optional<T>& padding,
                                           std::int64_t ragged_rank) {
  return ragged::from_tensor<Index>(tensor, lengths, padding, ragged_rank);
}
template <class T, class Index>
Tensor<T> convert_to_tensor(conversion, const RaggedTensor<T, Index>& rt, const T& default_value,
                            const std::optional<Shape>& shape) {
  return ragged::to_tensor(rt, default_value, shape);
}
}  // namespace detail

}  // namespace v0_1
}  // namespace ragged
