#include <ragged/format.hpp>
#include <ragged/literal.hpp>

#include <cstdint>
#include <string>

#include "catch.hpp"

using ragged::Shape;
using ragged_test::check_throws;

TEST_CASE("constant: ragged_rank defaults to nesting depth - 1") {
  const auto rt = ragged::constant<int>({{1, 2, 3}, {4}, {5, 6}});
  CHECK(rt.ragged_rank() == 1);
  CHECK(ragged::to_string(rt.row_splits()) == "[0, 3, 4, 6]");
  const auto rt3 = ragged::constant<int>({{{1}, {2, 3}}, {}, {{4, 5, 6}}});
  CHECK(rt3.ragged_rank() == 2);
  CHECK(rt3.rank() == 3);
  CHECK(ragged::to_string(rt3) == "[[[1], [2, 3]], [], [[4, 5, 6]]]");
  CHECK(ragged::constant<int>({1, 2, 3}).ragged_rank() == 0);
  CHECK(ragged::constant<int>({}).nrows() == 0);
  CHECK(ragged::to_string(ragged::constant<int>({{}, {}})) == "[[], []]");
}

TEST_CASE("constant: a smaller ragged_rank makes inner dims uniform") {
  const auto rt = ragged::constant<int>({{{1, 2}, {3, 4}}, {{5, 6}}}, 1);
  CHECK(rt.ragged_rank() == 1);
  CHECK(rt.flat_values().shape() == Shape{3, 2});
  CHECK(rt.shape() == ragged::PartialShape{2, std::nullopt, 2});
  const auto dense = ragged::constant<int>({{1, 2}, {3, 4}}, 0);
  CHECK(dense.ragged_rank() == 0);
  CHECK(dense.flat_values() == ragged::tensor<int>({{1, 2}, {3, 4}}));
  check_throws<ragged::shape_error>(
      [] {
        (void)ragged::constant<int>({{{1, 2}, {3}}, {{5, 6}}}, 1);
      },
      {"not uniform", "1 items", "2 items"});
  check_throws<ragged::shape_error>(
      [] {
        (void)ragged::constant<int>({{1}, {2}}, 2);
      },
      {"ragged_rank = 2 must be in [0, 2)"});
  check_throws<ragged::shape_error>([] { (void)ragged::constant<int>(5); },
                                    {"rank >= 1", "scalar"});
}

TEST_CASE("constant: inconsistent nesting depth is an error") {
  check_throws<ragged::shape_error>(
      [] {
        (void)ragged::constant<int>({{1, 2}, 3});
      },
      {"inconsistent nesting depth"});
  check_throws<ragged::shape_error>(
      [] {
        (void)ragged::constant<int>({{{1}}, {2}});
      },
      {"inconsistent nesting depth"});
  // An empty list fits any depth.
  CHECK(ragged::constant<int>({{{1}}, {}}).ragged_rank() == 2);
}

TEST_CASE("constant works for bool masks and strings") {
  const auto m = ragged::constant<bool>({{false, true}, {true}});
  CHECK(ragged::to_string(m) == "[[False, True], [True]]");
  CHECK(m.flat_values().data()[1]);
  const auto s = ragged::constant<std::string>({{"a", "b"}, {}, {"c"}});
  CHECK(ragged::to_string(s) == R"([["a", "b"], [], ["c"]])");
}

TEST_CASE("int32 splits from a literal") {
  const auto rt = ragged::constant<int, std::int32_t>({{1}, {2, 3}});
  CHECK(ragged::to_string(rt.row_splits()) == "[0, 1, 3]");
}
