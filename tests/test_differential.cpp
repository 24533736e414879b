// Thousands of random shapes, ragged ranks, lengths and densities: the library
// against the reference in reference.hpp.
#include <ragged/ragged.hpp>

#include <cstdint>
#include <string>

#include "catch.hpp"
#include "random_tensors.hpp"

using reference::Choices;
using reference::Node;

namespace {

constexpr int densities[] = {0, 50, 100, 10, 90};

// One random case of tf.ragged.boolean_mask; returns false when both sides rejected it.
template <class T>
void ragged_case(Choices& c, int iteration) {
  const int rank = c.pick(1, 4);
  const int ragged = c.pick(0, rank - 1);  // dims 1..ragged vary in length
  std::vector<int> dims{c.pick(0, 4)};
  for (int d = 1; d < rank; ++d) dims.push_back(c.chance(10) ? 0 : c.pick(1, 3));
  int counter = 0;
  const auto data = reference::random_node<T>(c, rank, ragged, dims, 0, counter);
  const int k = c.pick(1, rank);
  auto mask = reference::random_mask(c, data, k, densities[iteration % 5]);
  const bool mismatched = c.chance(10);
  if (mismatched) reference::perturb(c, mask, k);
  // Representations: any ragged_rank that fits the data's ragged dims.
  const int data_rr = c.pick(ragged, rank - 1);
  const int lowest_mask_rr = mismatched ? k - 1 : std::min(ragged, k - 1);
  const int mask_rr = c.pick(lowest_mask_rr, k - 1);
  const bool dense_data = data_rr == 0 && c.chance(50);
  const bool dense_mask = mask_rr == 0 && c.chance(50);

  const auto expected = reference::ragged_mask(data, mask);
  INFO("data " << reference::to_string(data) << " (ragged_rank " << data_rr
               << (dense_data ? ", dense" : "") << ")");
  INFO("mask " << reference::to_string(mask) << " (ragged_rank " << mask_rr
               << (dense_mask ? ", dense" : "") << ")");
  std::vector<int> mask_dims(dims.begin(), dims.begin() + k);
  mask_dims[0] = static_cast<int>(mask.items.size());  // a perturbed 1-D mask keeps its own length
  const auto run = [&](const auto& d) {
    if (dense_mask) return ragged::boolean_mask(d, reference::to_dense(mask, mask_dims));
    return ragged::boolean_mask(d, reference::to_ragged(mask, mask_rr, mask_dims));
  };
  const auto call = [&] {
    return dense_data ? run(reference::to_dense(data, dims))
                      : run(reference::to_ragged(data, data_rr, dims));
  };
  if (!expected) {
    CHECK_THROWS_AS(call(), ragged::shape_error);
    return;
  }
  const auto out = call();
  CHECK(ragged::to_string(out) == reference::to_string(*expected));
  CHECK(out.rank() == rank);
  CHECK(out.ragged_rank() == std::max(data_rr, k - 1));
}

template <class T>
void dense_case(Choices& c, int iteration) {
  const int rank = c.pick(1, 4);
  std::vector<int> dims;
  for (int d = 0; d < rank; ++d) dims.push_back(c.chance(10) ? 0 : c.pick(1, 3));
  int counter = 0;
  const auto data = reference::random_node<T>(c, rank, 0, dims, 0, counter);
  const int k = c.pick(1, rank);
  const int axis = c.pick(0, rank - k);
  // The mask: the shape dims[axis, axis + k), taken from the first block at that depth.
  std::vector<int> mdims(dims.begin() + axis, dims.begin() + axis + k);
  const bool mismatched = c.chance(10);
  if (mismatched) {
    auto& d = mdims[static_cast<std::size_t>(c.pick(0, k - 1))];
    d = d == 0 ? 1 : d + (c.chance(50) ? 1 : -1);
  }
  int unused = 0;
  const auto shaped = reference::random_node<int>(c, k, 0, mdims, 0, unused);
  const auto mask = reference::random_mask(c, shaped, k, densities[iteration % 5]);
  const int passed_axis = c.chance(30) ? axis - rank : axis;
  INFO("tensor " << reference::to_string(data) << ", mask " << reference::to_string(mask)
                 << ", axis " << passed_axis);
  const auto expected = reference::dense_mask(data, mask, axis);
  const auto call = [&] {
    return ragged::boolean_mask(reference::to_dense(data, dims), reference::to_dense(mask, mdims),
                                passed_axis);
  };
  if (!expected || mismatched) {
    CHECK_THROWS_AS(call(), ragged::shape_error);
    return;
  }
  const auto out = call();
  CHECK(ragged::to_string(out) == reference::to_string(*expected));
  CHECK(out.rank() == rank - k + 1);
}

}  // namespace

TEMPLATE_TEST_CASE("tf.ragged.boolean_mask agrees with the reference on random cases", "",
                   std::int32_t, std::string) {
  Choices c(20261130);
  for (int i = 0; i < 3000; ++i) ragged_case<TestType>(c, i);
}

TEMPLATE_TEST_CASE("tf.boolean_mask agrees with the reference on random cases", "", std::int32_t,
                   std::string) {
  Choices c(4242);
  for (int i = 0; i < 2000; ++i) dense_case<TestType>(c, i);
}
