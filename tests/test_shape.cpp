#include <ragged/shape.hpp>

#include <cstdint>

#include "catch.hpp"

using ragged::Shape;
using ragged_test::check_throws;

TEST_CASE("Shape counts elements and prints as TensorFlow does") {
  CHECK(Shape{}.rank() == 0);
  CHECK(Shape{}.num_elements() == 1);
  CHECK(Shape{2, 3, 4}.num_elements() == 24);
  CHECK(Shape{2, 3, 4}.num_elements(1, 3) == 12);
  CHECK(Shape{5, 0, 7}.num_elements() == 0);
  CHECK(ragged::to_string(Shape{1, 3}) == "(1, 3)");
  CHECK(ragged::to_string(Shape{}) == "()");
  CHECK(ragged::to_string(ragged::PartialShape{3, std::nullopt, 2}) == "(3, None, 2)");
  CHECK(Shape{2, 3, 4}.slice(1, 3) == Shape{3, 4});
}

TEST_CASE("Shape rejects negative dims and products that overflow int64") {
  check_throws<ragged::shape_error>([] { Shape{2, -1}; }, {"dimension 1", "(2, -1)", "negative"});
  constexpr std::int64_t big = std::int64_t{1} << 40;
  check_throws<ragged::shape_error>(
      [] {
        Shape{big, big};
      },
      {"(1099511627776, 1099511627776)", "more elements than int64"});
  // A zero dim makes the product 0 however large the others are.
  CHECK(Shape{big, big, 0}.num_elements() == 0);
}
