#include <ragged/conversion.hpp>
#include <ragged/format.hpp>
#include <ragged/literal.hpp>
#include <ragged/ragged_tensor.hpp>

#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "catch.hpp"

using ragged::RaggedTensor;
using ragged::Shape;
using ragged::Tensor;
using ragged_test::check_throws;
using RT = RaggedTensor<int>;

namespace {
Tensor<int> iota(std::int64_t n) {
  std::vector<int> v(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int>(i + 1);
  return Tensor<int>(Shape{n}, v);
}
}  // namespace

TEST_CASE("from_row_splits and the accessors") {
  // [[1, 2, 3], [], [4], [5, 6, 7, 8]]
  const auto rt = RT::from_row_splits(iota(8), {0, 3, 3, 4, 8});
  CHECK(ragged::to_string(rt) == "[[1, 2, 3], [], [4], [5, 6, 7, 8]]");
  CHECK(rt.nrows() == 4);
  CHECK(rt.rank() == 2);
  CHECK(rt.ragged_rank() == 1);
  CHECK(ragged::to_string(rt.row_lengths()) == "[3, 0, 1, 4]");
  CHECK(ragged::to_string(rt.row_starts()) == "[0, 3, 3, 4]");
  CHECK(ragged::to_string(rt.row_limits()) == "[3, 3, 4, 8]");
  CHECK(ragged::to_string(rt.value_rowids()) == "[0, 0, 0, 2, 3, 3, 3, 3]");
  CHECK(ragged::to_string(rt.row_splits()) == "[0, 3, 3, 4, 8]");
  CHECK(rt.bounding_shape() == Shape{4, 4});
  CHECK(rt.shape() == ragged::PartialShape{4, std::nullopt});
  CHECK(ragged::to_string(rt[3]) == "[5, 6, 7, 8]");
  CHECK(ragged::to_string(rt[1]) == "[]");
  CHECK(ragged::to_string(rt.values()) == "[1, 2, 3, 4, 5, 6, 7, 8]");
  CHECK(rt.values().ragged_rank() == 0);
  check_throws<std::out_of_range>([&] { (void)rt[4]; }, {"row 4", "4 rows"});
  check_throws<std::out_of_range>([&] { (void)rt[-1]; }, {"row -1"});
}

TEST_CASE("every factory builds the same tensor") {
  const auto expected = RT::from_row_splits(iota(8), {0, 3, 3, 4, 8});
  CHECK(RT::from_row_lengths(iota(8), {3, 0, 1, 4}) == expected);
  CHECK(RT::from_value_rowids(iota(8), {0, 0, 0, 2, 3, 3, 3, 3}, 4) == expected);
  CHECK(RT::from_value_rowids(iota(8), {0, 0, 0, 2, 3, 3, 3, 3}) == expected);
  CHECK(RT::from_row_starts(iota(8), {0, 3, 3, 4}) == expected);
  CHECK(RT::from_row_limits(iota(8), {3, 3, 4, 8}) == expected);
  CHECK(RT::from_nested_row_splits(iota(8), {{0, 3, 3, 4, 8}}) == expected);
  CHECK(RT::from_nested_row_lengths(iota(8), {{3, 0, 1, 4}}) == expected);
  CHECK(RT::from_row_splits(iota(8), std::vector<std::int64_t>{0, 3, 3, 4, 8}) == expected);
  CHECK(RT::from_row_splits(iota(8), Tensor<std::int64_t>(Shape{5}, {0, 3, 3, 4, 8})) == expected);
  // Trailing empty rows need an explicit nrows.
  CHECK(ragged::to_string(RT::from_value_rowids(iota(2), {0, 0}, 3)) == "[[1, 2], [], []]");
  CHECK(ragged::to_string(RT::from_uniform_row_length(iota(6), 2)) == "[[1, 2], [3, 4], [5, 6]]");
  CHECK(RT::from_uniform_row_length(iota(0), 0, 3).nrows() == 3);
}

TEST_CASE("factories add outer levels to RaggedTensor values") {
  const auto inner = RT::from_row_lengths(iota(6), {2, 0, 3, 1});
  const auto rt = RT::from_row_lengths(inner, {3, 1});
  CHECK(rt.ragged_rank() == 2);
  CHECK(ragged::to_string(rt) == "[[[1, 2], [], [3, 4, 5]], [[6]]]");
  CHECK(RT::from_nested_row_lengths(iota(6), {{3, 1}, {2, 0, 3, 1}}) == rt);
  CHECK(RT::from_nested_row_splits(iota(6), {{0, 3, 4}, {0, 2, 2, 5, 6}}) == rt);
  CHECK(RT::from_row_splits(inner, {0, 3, 4}) == rt);
  CHECK(RT::from_uniform_row_length(inner, 2).bounding_shape() == Shape{2, 2, 3});
  CHECK(rt.values() == inner);
  CHECK(rt[0] == RT::from_row_lengths(iota(5), {2, 0, 3}));
  CHECK(rt.bounding_shape() == Shape{2, 3, 3});
  CHECK(rt.shape() == ragged::PartialShape{2, std::nullopt, std::nullopt});
}

TEST_CASE("uniform inner dims: shape [4, None, 2]") {
  const auto flat = ragged::tensor<int>({{1, 2}, {3, 4}, {5, 6}, {7, 8}, {9, 10}});
  const auto rt = RT::from_row_lengths(flat, {2, 0, 1, 2});
  CHECK(rt.rank() == 3);
  CHECK(rt.shape() == ragged::PartialShape{4, std::nullopt, 2});
  CHECK(ragged::to_string(rt) == "[[[1, 2], [3, 4]], [], [[5, 6]], [[7, 8], [9, 10]]]");
  CHECK(ragged::to_string(rt[3]) == "[[7, 8], [9, 10]]");
  CHECK(rt.to_tensor(0) ==
        ragged::tensor<int>(
            {{{1, 2}, {3, 4}}, {{0, 0}, {0, 0}}, {{5, 6}, {0, 0}}, {{7, 8}, {9, 10}}}));
}

TEST_CASE("validation errors carry the position and the values") {
  check_throws<ragged::shape_error>(
      [] {
        (void)RT::from_row_splits(iota(8), {0, 3, 5, 2, 8});
      },
      {"row_splits[3] = 2 is less than row_splits[2] = 5"});
  check_throws<ragged::shape_error>(
      [] {
        (void)RT::from_row_splits(iota(8), {1, 3, 8});
      },
      {"row_splits[0] = 1", "not 0"});
  check_throws<ragged::shape_error>(
      [] {
        (void)RT::from_row_splits(iota(8), {0, 3, 7});
      },
      {"row_splits[2] = 7", "the number of values below it, 8"});
  check_throws<ragged::shape_error>(
      [] { (void)RT::from_row_splits(iota(8), std::vector<std::int64_t>{}); },
      {"row_splits must not be empty"});
  check_throws<ragged::shape_error>(
      [] {
        (void)RT::from_row_lengths(iota(8), {3, -1, 6});
      },
      {"row_lengths[1] = -1 is negative"});
  check_throws<ragged::shape_error>(
      [] {
        (void)RT::from_row_lengths(iota(8), {3, 1});
      },
      {"the number of values below it, 8"});
  check_throws<ragged::shape_error>(
      [] {
        (void)RT::from_value_rowids(iota(3), {0, 2, 1}, 3);
      },
      {"value_rowids[2] = 1 is less than value_rowids[1] = 2", "sorted"});
  check_throws<ragged::shape_error>(
      [] {
        (void)RT::from_value_rowids(iota(3), {0, 1, 3}, 3);
      },
      {"value_rowids[2] = 3 is not less than nrows = 3"});
  check_throws<ragged::shape_error>(
      [] {
        (void)RT::from_value_rowids(iota(3), {-1, 0, 0}, 3);
      },
      {"value_rowids[0] = -1 is negative"});
  check_throws<ragged::shape_error>(
      [] {
        (void)RT::from_value_rowids(iota(3), {0, 0}, 3);
      },
      {"2 entries", "3 values"});
  check_throws<ragged::shape_error>(
      [] {
        (void)RT::from_row_starts(iota(8), {1, 3});
      },
      {"row_starts[0] = 1"});
  check_throws<ragged::shape_error>(
      [] {
        (void)RT::from_row_starts(iota(8), {0, 5, 3});
      },
      {"row_starts[2] = 3 is less than row_starts[1] = 5"});
  check_throws<ragged::shape_error>(
      [] {
        (void)RT::from_row_starts(iota(8), {0, 9});
      },
      {"row_starts[1] = 9 is greater than the number of values, 8"});
  check_throws<ragged::shape_error>(
      [] {
        (void)RT::from_row_limits(iota(8), {3, 7});
      },
      {"row_limits[1] = 7 (the last) is not the number of values, 8"});
  check_throws<ragged::shape_error>(
      [] { (void)RT::from_uniform_row_length(iota(8), 3); },
      {"uniform_row_length = 3 does not divide the number of values, 8"});
  check_throws<ragged::shape_error>([] { (void)RT::from_uniform_row_length(iota(8), -2); },
                                    {"negative"});
  check_throws<ragged::shape_error>(
      [] {
        (void)RT::from_nested_row_splits(iota(4), {{0, 1, 3}, {0, 2, 4}});
      },
      {"nested_row_splits[0][2] = 3", "the number of values below it, 2"});
  check_throws<ragged::shape_error>(
      [] {
        (void)RT::from_row_splits(Tensor<int>(Shape{}, {1}), {0, 1});
      },
      {"rank >= 1"});
}

TEST_CASE("validate = false skips the O(n) checks but not the sizes") {
  // Decreasing, but the sizes agree: accepted unchecked, as TensorFlow's validate=False.
  CHECK(RT::from_row_splits(iota(4), {0, 3, 1, 4}, false).nrows() == 3);
  check_throws<ragged::shape_error>(
      [] {
        (void)RT::from_row_splits(iota(4), {0, 3, 5}, false);
      },
      {"do not end at the number of values below it, 4"});
}

TEST_CASE("int32 row splits: conversion checks for overflow") {
  using RT32 = RaggedTensor<int, std::int32_t>;
  const auto rt32 = RT32::from_row_lengths(iota(3), {1, 2});
  CHECK(ragged::to_string(rt32) == "[[1], [2, 3]]");
  const auto rt64 = rt32.with_row_splits_dtype<std::int64_t>();
  CHECK(rt64 == RT::from_row_lengths(iota(3), {1, 2}));
  CHECK(rt64.with_row_splits_dtype<std::int32_t>() == rt32);
  constexpr std::int64_t big = std::int64_t{1} << 31;
  // 2^31 empty rows: nrows itself does not fit int32 splits.
  check_throws<ragged::shape_error>([=] { (void)RT32::from_uniform_row_length(iota(0), 0, big); },
                                    {"nrows 2147483648 does not fit in int32"});
  check_throws<ragged::shape_error>(
      [] {
        const std::vector<std::int32_t> lengths{std::numeric_limits<std::int32_t>::max(), 1};
        (void)RT32::from_row_lengths(iota(0), lengths);
      },
      {"does not fit in int32"});
  const auto many = RT::from_row_splits(iota(0), {0, 0});
  CHECK(many.with_row_splits_dtype<std::int32_t>().nrows() == 1);
}

TEST_CASE("to_tensor and from_tensor round trip") {
  const auto rt = ragged::constant<int>({{1, 2, 3}, {}, {4}});
  const auto dense = rt.to_tensor(0);
  CHECK(dense == ragged::tensor<int>({{1, 2, 3}, {0, 0, 0}, {4, 0, 0}}));
  CHECK(rt.to_tensor(-1, Shape{2, 2}) == ragged::tensor<int>({{1, 2}, {-1, -1}}));
  CHECK(rt.to_tensor(9, Shape{4, 4}) ==
        ragged::tensor<int>({{1, 2, 3, 9}, {9, 9, 9, 9}, {4, 9, 9, 9}, {9, 9, 9, 9}}));
  check_throws<ragged::shape_error>([&] { (void)rt.to_tensor(0, Shape{3}); }, {"rank 1", "rank 2"});
  CHECK(RT::from_tensor(dense, std::vector<std::int64_t>{3, 0, 1}) == rt);
  CHECK(RT::from_tensor(dense, std::nullopt, 0) == rt);
  CHECK(ragged::to_string(RT::from_tensor(dense)) == "[[1, 2, 3], [0, 0, 0], [4, 0, 0]]");
  CHECK(RT::from_tensor(dense, std::nullopt, std::nullopt, 0).ragged_rank() == 0);
  check_throws<ragged::shape_error>(
      [&] {
        (void)RT::from_tensor(dense, std::vector<std::int64_t>{3, -1, 1});
      },
      {"lengths[1] = -1 is negative"});
  check_throws<ragged::shape_error>(
      [&] { (void)RT::from_tensor(dense, std::vector<std::int64_t>{3}); }, {"1 entries", "3 rows"});
  check_throws<ragged::shape_error>(
      [&] { (void)RT::from_tensor(dense, std::nullopt, std::nullopt, 2); },
      {"ragged_rank = 2 must be in [0, 2)"});
  // Rank 3, ragged_rank 2: every dim but the last becomes ragged.
  const auto t3 = ragged::tensor<int>({{{1, 0}, {2, 3}}, {{0, 0}, {4, 0}}});
  const auto r3 = RT::from_tensor(t3, std::nullopt, 0, 2);
  CHECK(ragged::to_string(r3) == "[[[1], [2, 3]], [[], [4]]]");
  CHECK(r3.to_tensor(0) == t3);
  // Rank 3, ragged_rank 1, padding slabs.
  const auto r31 = RT::from_tensor(t3, std::nullopt, 0, 1);
  CHECK(ragged::to_string(r31) == "[[[1, 0], [2, 3]], [[0, 0], [4, 0]]]");
  CHECK(ragged::to_string(RT::from_tensor(ragged::tensor<int>({{{1, 1}, {0, 0}}, {{0, 0}, {0, 0}}}),
                                          std::nullopt, 0, 1)) == "[[[1, 1]], []]");
}

TEMPLATE_TEST_CASE("round trips for every value type", "", std::int8_t, std::int32_t, std::int64_t,
                   float, double, bool, std::string) {
  const auto v = ragged_test::sample_values<TestType>(7);
  const Tensor<TestType> flat(Shape{7}, v);
  const auto rt = RaggedTensor<TestType>::from_row_lengths(flat, {2, 0, 4, 1});
  CHECK(RaggedTensor<TestType>::from_row_lengths(flat, rt.row_lengths()) == rt);
  CHECK(RaggedTensor<TestType>::from_value_rowids(flat, rt.value_rowids(), rt.nrows()) == rt);
  CHECK(RaggedTensor<TestType>::from_row_splits(flat, rt.row_splits()) == rt);
  const auto dense = rt.to_tensor(TestType{});
  CHECK(dense.shape() == Shape{4, 4});
  const auto lengths = rt.row_lengths();
  CHECK(RaggedTensor<TestType>::from_tensor(
            dense, std::vector<std::int64_t>(lengths.values().begin(), lengths.values().end())) ==
        rt);
  CHECK(ragged::parse<TestType>(ragged::to_string(rt)) == rt);
  const auto empty = RaggedTensor<TestType>::from_row_lengths(
      Tensor<TestType>(Shape{0}, std::vector<TestType>{}), {0, 0});
  CHECK(ragged::to_string(empty) == "[[], []]");
  CHECK(empty.to_tensor().shape() == Shape{2, 0});
}
