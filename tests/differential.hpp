// SPDX-License-Identifier: Apache-2.0
// One random case of each boolean_mask, checked against the reference and the
// invariants; shared by the differential test and the structured fuzzer.
#pragma once

#include <ragged/ragged.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "random_tensors.hpp"

namespace reference {

// A failed case: what was run and what went wrong; empty when the case passed.
using Failure = std::string;

// Invariants of any boolean_mask result: valid splits (re-validated from
// scratch), ragged_rank and rank as documented, values kept = trues in the mask.
template <class T, class I>
Failure check_invariants(const ragged::RaggedTensor<T, I>& out, std::int64_t rank,
                         std::int64_t ragged_rank, std::int64_t kept_rows_at_mask_dim,
                         std::int64_t mask_trues) {
  std::ostringstream why;
  if (out.rank() != rank) why << "rank " << out.rank() << " != " << rank << "; ";
  if (out.ragged_rank() != ragged_rank)
    why << "ragged_rank " << out.ragged_rank() << " != " << ragged_rank << "; ";
  if (kept_rows_at_mask_dim != mask_trues)
    why << "kept " << kept_rows_at_mask_dim << " rows but the mask has " << mask_trues
        << " trues; ";
  try {
    std::vector<ragged::Tensor<I>> splits(out.nested_row_splits());
    (void)ragged::RaggedTensor<T, I>::from_parts(out.flat_values(), std::move(splits), true);
  } catch (const ragged::shape_error& e) {
    why << "invalid result: " << e.what() << "; ";
  }
  return why.str();
}

inline std::int64_t count_true(const Node<bool>& n) {
  if (n.leaf) return n.value ? 1 : 0;
  std::int64_t total = 0;
  for (const auto& item : n.items) total += count_true(item);
  return total;
}

// The number of entries at depth k - 1 of the result: the rows the mask kept.
template <class T, class I>
std::int64_t rows_at_depth(const ragged::RaggedTensor<T, I>& rt, std::int64_t depth) {
  if (depth == 0) return rt.nrows();
  if (depth <= rt.ragged_rank())
    return rt.nested_row_splits()[static_cast<std::size_t>(depth - 1)].values().back();
  // Uniform dims below the splits.
  const auto& flat = rt.flat_values();
  return flat.shape().num_elements(0, depth - rt.ragged_rank() + 1);
}

// tf.ragged.boolean_mask on one random data/mask pair: any rank 1..4, ragged
// dims, uniform inner dims, representation (dense or ragged at any fitting
// ragged_rank), mask density; one case in ten deliberately mismatched.
template <class T>
Failure ragged_case(Choices& c, int density) {
  const int rank = c.pick(1, 4);
  const int ragged = c.pick(0, rank - 1);  // dims 1..ragged vary in length
  std::vector<int> dims{c.pick(0, 4)};
  for (int d = 1; d < rank; ++d) dims.push_back(c.chance(10) ? 0 : c.pick(1, 3));
  int counter = 0;
  const auto data = random_node<T>(c, rank, ragged, dims, 0, counter);
  const int k = c.pick(1, rank);
  auto mask = random_mask(c, data, k, density);
  const bool mismatched = c.chance(10);
  if (mismatched) perturb(c, mask, k);
  const int data_rr = c.pick(ragged, rank - 1);
  const int mask_rr = c.pick(mismatched ? k - 1 : std::min(ragged, k - 1), k - 1);
  const bool dense_data = data_rr == 0 && c.chance(50);
  const bool dense_mask = mask_rr == 0 && c.chance(50);
  std::vector<int> mask_dims(dims.begin(), dims.begin() + k);
  mask_dims[0] = static_cast<int>(mask.items.size());  // a perturbed 1-D mask keeps its own length

  std::ostringstream what;
  what << "data " << to_string(data) << " (ragged_rank " << data_rr << (dense_data ? ", dense" : "")
       << "), mask " << to_string(mask) << " (ragged_rank " << mask_rr
       << (dense_mask ? ", dense" : "") << "): ";
  const auto run = [&](const auto& d) {
    if (dense_mask) return ragged::boolean_mask(d, to_dense(mask, mask_dims));
    return ragged::boolean_mask(d, to_ragged(mask, mask_rr, mask_dims));
  };
  const auto expected = ragged_mask(data, mask);
  try {
    const auto out = dense_data ? run(to_dense(data, dims)) : run(to_ragged(data, data_rr, dims));
    if (!expected) return what.str() + "accepted, but the reference rejects it";
    if (ragged::to_string(out) != to_string(*expected))
      return what.str() + "got " + ragged::to_string(out) + ", expected " + to_string(*expected);
    const auto broken = check_invariants(out, rank, std::max(data_rr, k - 1),
                                         rows_at_depth(out, k - 1), count_true(mask));
    if (!broken.empty()) return what.str() + broken;
    // The same through views of caller memory: dense data as a TensorView,
    // ragged data and masks embedded as Arrow-style slices (splits above 0,
    // unused values before and after).
    const int head = c.pick(0, 3), tail = c.pick(0, 3);
    const auto mask_view = [&](const auto& d) {
      if (dense_mask) {
        const auto m = to_dense(mask, mask_dims);
        return ragged::boolean_mask(d, ragged::TensorView<const bool>(m));
      }
      const Embedded<bool, std::int64_t> m(to_ragged(mask, mask_rr, mask_dims), tail, head);
      return ragged::boolean_mask(d, m.view());
    };
    std::string via_views;
    if (dense_data) {
      const auto d = to_dense(data, dims);
      via_views = ragged::to_string(mask_view(ragged::TensorView<const T>(d)));
    } else {
      const Embedded<T, std::int64_t> d(to_ragged(data, data_rr, dims), head, tail);
      via_views = ragged::to_string(mask_view(d.view()));
    }
    if (via_views != ragged::to_string(out))
      return what.str() + "through views got " + via_views + ", owning " + ragged::to_string(out);
    // The same with the mask bit-packed (Arrow's layout) from a random bit offset.
    const int offset = c.pick(0, 13);
    std::string via_bits;
    const auto bits_mask = [&](const auto& d) {
      if (dense_mask) {
        const auto m = to_dense(mask, mask_dims);
        return ragged::boolean_mask(d, BitPacked(m.data(), m.shape(), offset).view());
      }
      const auto m = to_ragged(mask, mask_rr, mask_dims);
      const BitPacked bits(m.flat_values().data(), m.flat_values().shape(), offset);
      return ragged::boolean_mask(d, bits.ragged_view(m));
    };
    via_bits = ragged::to_string(dense_data ? bits_mask(to_dense(data, dims))
                                            : bits_mask(to_ragged(data, data_rr, dims)));
    if (via_bits != ragged::to_string(out))
      return what.str() + "with a bit mask at bit offset " + std::to_string(offset) + " got " +
             via_bits + ", with bool " + ragged::to_string(out);
    // The same into caller memory of exactly the result's size, or a little more.
    const auto slack = static_cast<std::size_t>(c.pick(0, 2));
    std::vector<T> values(static_cast<std::size_t>(out.flat_values().size()) + slack);
    std::vector<std::vector<std::int64_t>> splits;
    for (const auto& level : out.nested_row_splits())
      splits.emplace_back(static_cast<std::size_t>(level.size()) + slack, -1);
    ragged::RaggedBuffers<T> buffers{ragged::TensorView<T>(std::span<T>(values)), {}};
    for (auto& level : splits) buffers.row_splits.emplace_back(level);
    const auto into = [&](const auto& d) {
      if (dense_mask)
        return ragged::to_string(ragged::boolean_mask_to(buffers, d, to_dense(mask, mask_dims)));
      return ragged::to_string(
          ragged::boolean_mask_to(buffers, d, to_ragged(mask, mask_rr, mask_dims)));
    };
    const auto via_buffers =
        dense_data ? into(to_dense(data, dims)) : into(to_ragged(data, data_rr, dims));
    if (via_buffers != ragged::to_string(out))
      return what.str() + "into caller memory got " + via_buffers + ", owning " +
             ragged::to_string(out);
    return {};
  } catch (const ragged::shape_error& e) {
    return expected ? what.str() + "rejected: " + e.what() : Failure{};
  }
}

// tf.boolean_mask on one random dense tensor, mask and axis (sometimes negative,
// sometimes with a mask that does not fit).
template <class T>
Failure dense_case(Choices& c, int density) {
  const int rank = c.pick(1, 4);
  std::vector<int> dims;
  for (int d = 0; d < rank; ++d) dims.push_back(c.chance(10) ? 0 : c.pick(1, 3));
  int counter = 0;
  const auto data = random_node<T>(c, rank, 0, dims, 0, counter);
  const int k = c.pick(1, rank);
  const int axis = c.pick(0, rank - k);
  std::vector<int> mdims(dims.begin() + axis, dims.begin() + axis + k);
  const bool mismatched = c.chance(10);
  if (mismatched) {
    auto& d = mdims[static_cast<std::size_t>(c.pick(0, k - 1))];
    d = d == 0 ? 1 : d + (c.chance(50) ? 1 : -1);
  }
  int unused = 0;
  const auto mask = random_mask(c, random_node<int>(c, k, 0, mdims, 0, unused), k, density);
  const int passed_axis = c.chance(30) ? axis - rank : axis;
  std::ostringstream what;
  what << "tensor " << to_string(data) << ", mask " << to_string(mask) << ", axis " << passed_axis
       << ": ";
  const auto expected = mismatched ? std::nullopt : dense_mask(data, mask, axis);
  try {
    const auto out = ragged::boolean_mask(to_dense(data, dims), to_dense(mask, mdims), passed_axis);
    if (!expected) return what.str() + "accepted, but the reference rejects it";
    if (ragged::to_string(out) != to_string(*expected))
      return what.str() + "got " + ragged::to_string(out) + ", expected " + to_string(*expected);
    if (out.rank() != rank - k + 1) return what.str() + "wrong rank";
    if (out.dim(axis) != count_true(mask))
      return what.str() + "kept count differs from the mask's trues";
    const int offset = c.pick(0, 13);
    const auto m = to_dense(mask, mdims);
    const auto via_bits = ragged::boolean_mask(
        to_dense(data, dims), BitPacked(m.data(), m.shape(), offset).view(), passed_axis);
    if (!(via_bits == out))
      return what.str() + "with a bit mask at bit offset " + std::to_string(offset) + " got " +
             ragged::to_string(via_bits);
    return {};
  } catch (const ragged::shape_error& e) {
    return expected ? what.str() + "rejected: " + e.what() : Failure{};
  }
}

// ---- Size classes that reach every path of the kernel -------------------------------------
// The cases above are small (rows of 0 to 4 entries): they never reach the
// 64-entry SIMD blocks, the 8 KiB chunks, the streaming threshold (16 MiB) or
// the parallel path. These build flat data directly, with rows of up to
// thousands of entries, totals past the streaming threshold, inner dims wide
// enough for run copies, Parallel on sizes that split, int32 and int64 splits,
// raw mask bytes (2, 0x80, 0xff mean true) and outputs that alias the input,
// and check them against plain loops.

// Mask bytes of one of several densities or patterns, with raw nonzero bytes sometimes.
inline ragged::Tensor<bool> large_mask(Choices& c, std::int64_t n, std::vector<char>& truth) {
  const int pattern = c.pick(0, 6);
  const bool raw = c.chance(30);
  truth.assign(static_cast<std::size_t>(n), 0);
  auto mask = ragged::Tensor<bool>::for_overwrite(ragged::Shape{n});
  auto* bytes = reinterpret_cast<unsigned char*>(mask.data());
  constexpr unsigned char truthy[] = {1, 2, 0x7f, 0x80, 0xff};
  bool run_value = c.chance(50);
  std::int64_t run_left = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    bool v = false;
    switch (pattern) {
      case 0:
        v = false;
        break;
      case 1:
        v = true;
        break;
      case 2:
        v = c.chance(50);
        break;
      case 3:
        v = c.chance(3);
        break;
      case 4:
        v = c.chance(97);
        break;
      default:  // clustered runs of 1..1024
        if (run_left == 0) {
          run_value = !run_value;
          run_left = c.pick(1, 1024);
        }
        --run_left;
        v = run_value;
    }
    truth[static_cast<std::size_t>(i)] = v;
    bytes[i] = v ? (raw ? truthy[c.pick(0, 4)] : 1) : 0;
  }
  return mask;
}

// A length in one of the size classes: tiny, around a block, thousands, or
// past the streaming threshold.
inline std::int64_t large_size_class(Choices& c) {
  switch (c.pick(0, 9)) {
    case 0:
      return c.pick(0, 130);
    case 1:
    case 2:
    case 3:
      return c.pick(1000, 20000);
    case 4:
    case 5:
      return (std::int64_t{1} << 17) + c.pick(0, 200);  // splits for 2 threads
    case 6:
      return c.pick(100000, 400000);
    default:
      return (std::int64_t{5} << 20) + c.pick(0, 130);  // 20 MiB of int32: streamed
  }
}

// A length from the size classes, at most `cap` (the fuzzer keeps it smaller, for throughput).
inline std::int64_t large_size(Choices& c, std::int64_t cap) {
  return std::min(cap, large_size_class(c));
}

// tf.boolean_mask(values, mask, 0) on [n, inner] int32 (sometimes [outer, n,
// inner] at axis 1), with threads, into a reused or aliased output.
inline Failure large_dense_case(Choices& c, std::int64_t cap = std::int64_t{6} << 20) {
  std::int64_t n = large_size(c, cap);
  const std::int64_t inner = c.chance(60) ? 1 : c.pick(2, 40);
  const std::int64_t outer = c.chance(20) ? c.pick(2, 3) : 1;
  n = std::min<std::int64_t>(n, (std::int64_t{6} << 20) / inner / outer);
  std::vector<char> truth;
  const auto mask = large_mask(c, n, truth);
  auto values = ragged::Tensor<std::int32_t>::for_overwrite(
      outer == 1 ? ragged::Shape{n, inner} : ragged::Shape{outer, n, inner});
  for (std::int64_t i = 0; i < values.size(); ++i) values.data()[i] = static_cast<std::int32_t>(i);
  std::vector<std::int32_t> want;
  std::int64_t kept = 0;
  for (std::int64_t i = 0; i < n; ++i) kept += truth[static_cast<std::size_t>(i)];
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t i = 0; i < n; ++i)
      if (truth[static_cast<std::size_t>(i)])
        for (std::int64_t j = 0; j < inner; ++j)
          want.push_back(static_cast<std::int32_t>((o * n + i) * inner + j));
  const int threads = c.pick(1, 3);
  const bool alias = c.chance(25);
  std::ostringstream what;
  what << "dense n " << n << ", inner " << inner << ", outer " << outer << ", kept " << kept
       << ", threads " << threads << (alias ? ", out = data" : "") << ": ";
  // Sometimes the mask bit-packed, as Arrow hands it over.
  const int bit_offset = c.chance(30) ? c.pick(0, 7) : -1;
  if (bit_offset >= 0) what << "bit mask at bit offset " << bit_offset << ": ";
  ragged::Tensor<std::int32_t> out;
  if (alias) out = values;
  const auto& input = alias ? out : values;
  const auto axis = outer == 1 ? 0 : 1;
  if (bit_offset >= 0)
    ragged::boolean_mask_to(out, input, BitPacked(mask.data(), mask.shape(), bit_offset).view(),
                            axis, ragged::kernel::Parallel{threads});
  else
    ragged::boolean_mask_to(out, input, mask, axis, ragged::kernel::Parallel{threads});
  const auto want_shape =
      outer == 1 ? ragged::Shape{kept, inner} : ragged::Shape{outer, kept, inner};
  if (!(out.shape() == want_shape)) return what.str() + "shape " + ragged::to_string(out.shape());
  if (!std::equal(want.begin(), want.end(), out.data()))
    return what.str() + "values differ from the reference";
  return {};
}

// tf.ragged.boolean_mask on int32 values in rows of up to thousands: a ragged
// mask (elements), or a 1-D mask (row selection), in int32 or int64 splits,
// sometimes with a uniform inner dim and sometimes with out = data.
template <class Index>
Failure large_ragged_case(Choices& c, std::int64_t cap = std::int64_t{6} << 20) {
  const auto total_goal = large_size(c, cap);
  const std::int64_t inner = c.chance(70) ? 1 : c.pick(2, 20);
  const std::int64_t longest = c.chance(50) ? c.pick(1, 200) : c.pick(1000, 5000);
  std::vector<Index> splits{0};
  // Bounded by a row count too: a fuzzer's exhausted bytes pick only empty rows.
  const auto goal = total_goal / inner;
  for (std::int64_t r = 0; splits.back() < goal && r <= goal; ++r)
    splits.push_back(static_cast<Index>(splits.back() + c.pick(0, static_cast<int>(longest))));
  const std::int64_t nvalues = splits.back();
  const auto nrows = static_cast<std::int64_t>(splits.size()) - 1;
  auto flat = ragged::Tensor<std::int32_t>::for_overwrite(ragged::Shape{nvalues, inner});
  for (std::int64_t i = 0; i < flat.size(); ++i) flat.data()[i] = static_cast<std::int32_t>(i);
  using RT = ragged::RaggedTensor<std::int32_t, Index>;
  auto data = RT::from_row_splits(std::move(flat), splits);
  const bool rows = c.chance(35);
  const bool alias = c.chance(25);
  const int bit_offset = c.chance(30) ? c.pick(0, 7) : -1;  // a bit-packed mask, sometimes
  std::vector<char> truth;
  std::vector<std::int32_t> want;
  std::vector<std::int64_t> want_splits{0};
  RT out;
  if (alias) out = data;
  RT& result = out;
  const RT& input = alias ? out : data;
  if (rows) {
    const auto mask = large_mask(c, nrows, truth);
    for (std::int64_t r = 0; r < nrows; ++r)
      if (truth[static_cast<std::size_t>(r)]) {
        for (auto v = std::int64_t{splits[static_cast<std::size_t>(r)]} * inner;
             v < std::int64_t{splits[static_cast<std::size_t>(r) + 1]} * inner; ++v)
          want.push_back(static_cast<std::int32_t>(v));
        want_splits.push_back(want_splits.back() + splits[static_cast<std::size_t>(r) + 1] -
                              splits[static_cast<std::size_t>(r)]);
      }
    if (bit_offset >= 0)
      ragged::boolean_mask_to(result, input,
                              BitPacked(mask.data(), mask.shape(), bit_offset).view());
    else
      ragged::boolean_mask_to(result, input, mask);
  } else {
    auto mask_values = large_mask(c, nvalues, truth);
    const auto mask = ragged::RaggedTensor<bool, Index>::from_row_splits(mask_values, splits);
    for (std::int64_t r = 0; r < nrows; ++r) {
      std::int64_t kept = 0;
      for (auto v = std::int64_t{splits[static_cast<std::size_t>(r)]};
           v < splits[static_cast<std::size_t>(r) + 1]; ++v)
        if (truth[static_cast<std::size_t>(v)]) {
          ++kept;
          for (std::int64_t j = 0; j < inner; ++j)
            want.push_back(static_cast<std::int32_t>(v * inner + j));
        }
      want_splits.push_back(want_splits.back() + kept);
    }
    if (bit_offset >= 0) {
      const BitPacked bits(mask_values.data(), mask_values.shape(), bit_offset);
      ragged::boolean_mask_to(result, input, bits.ragged_view(mask));
    } else {
      ragged::boolean_mask_to(result, input, mask);
    }
  }
  std::ostringstream what;
  what << "ragged " << (rows ? "row selection" : "ragged mask") << ", int" << sizeof(Index) * 8
       << " splits, " << nrows << " rows of up to " << longest << ", " << nvalues
       << " values of inner " << inner << (alias ? ", out = data" : "")
       << (bit_offset >= 0 ? ", bit mask at bit offset " + std::to_string(bit_offset) : "") << ": ";
  if (result.ragged_rank() != 1) return what.str() + "ragged_rank";
  const auto got_splits = result.row_splits().values();
  if (!std::equal(want_splits.begin(), want_splits.end(), got_splits.begin(), got_splits.end()))
    return what.str() + "row splits differ from the reference";
  const auto& fv = result.flat_values();
  if (fv.size() != static_cast<std::int64_t>(want.size()) ||
      !std::equal(want.begin(), want.end(), fv.data()))
    return what.str() + "values differ from the reference";
  return {};
}

}  // namespace reference
