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

TEST_CASE("an explicit negative ragged_rank is an error, not the default") {
  check_throws<ragged::shape_error>(
      [] {
        (void)ragged::constant<int>({{1}, {2}}, -1);
      },
      {"ragged_rank = -1 must be in [0, 2)"});
  check_throws<ragged::shape_error>([] { (void)ragged::parse<int>("[[1], [2]]", -1); },
                                    {"ragged_rank = -1 must be in [0, 2)"});
  check_throws<ragged::shape_error>([] { (void)ragged::parse<int>("[[1], [2]]", -7); },
                                    {"ragged_rank = -7"});
  CHECK(ragged::parse<int>("[[1], [2]]").ragged_rank() == 1);
}

TEST_CASE("one depth limit for every path into a literal") {
  // Literal::list, as deep as a caller likes: rejected at 257 levels while it
  // is built, so that no walk or destructor recurses past the limit.
  ragged::Literal<int> deep = 1;
  int levels = 0;
  try {
    for (; levels < 100000; ++levels) deep = ragged::Literal<int>::list({deep});
    FAIL("100000 levels were accepted");
  } catch (const ragged::shape_error& e) {
    CHECK(std::string(e.what()).find("at most 256 levels") != std::string::npos);
  }
  CHECK(levels == 256);
  CHECK(deep.height() == 256);
  CHECK(ragged::constant<int>(deep).rank() == 256);
  // Text: 256 levels parse, 257 do not.
  const auto nested = [](std::size_t n) { return std::string(n, '[') + "1" + std::string(n, ']'); };
  CHECK(ragged::parse<int>(nested(256)).rank() == 256);
  check_throws<ragged::parse_error>([&] { (void)ragged::parse<int>(nested(257)); },
                                    {"at most 256 levels of nesting"});
}

TEST_CASE("shapes are checked before values are allocated") {
  // [[[1] * 2000, [] * 1999], [] * 1999]: 16 KB of text whose first block
  // alone would claim (2000, 2000, 2000) values.
  std::string text = "[[[";
  for (int i = 0; i < 2000; ++i) text += i ? ", 1" : "1";
  text += "]";
  for (int i = 0; i < 1999; ++i) text += ", []";
  text += "]";
  for (int i = 0; i < 1999; ++i) text += ", []";
  text += "]";
  check_throws<ragged::shape_error>([&] { (void)ragged::parse_tensor<std::int64_t>(text); },
                                    {"not uniform", "[1] has 0 items but should have 2000"});
  // As a ragged literal it is valid and small.
  const auto rt = ragged::parse<std::int64_t>(text);
  CHECK(rt.flat_values().size() == 2000);
  CHECK(rt.nrows() == 2000);
  // A non-uniform row deep inside is named by its full path.
  check_throws<ragged::shape_error>(
      [] { (void)ragged::parse_tensor<int>("[[[1, 2], [3, 4]], [[5, 6], [7]]]"); },
      {"[1][1] has 1 items but should have 2", "offset 28"});
  check_throws<ragged::shape_error>(
      [] { (void)ragged::parse<int>("[[[1, 2], [3, 4]], [[5, 6], [7]]]", 1); },
      {"[1][1] has 1 items", "below ragged_rank 1"});
}
