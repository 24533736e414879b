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
    return broken.empty() ? Failure{} : what.str() + broken;
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
    return {};
  } catch (const ragged::shape_error& e) {
    return expected ? what.str() + "rejected: " + e.what() : Failure{};
  }
}

}  // namespace reference
