#include <ragged/format.hpp>
#include <ragged/literal.hpp>
#include <ragged/tensor.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "catch.hpp"

using ragged::Shape;
using ragged::Tensor;
using ragged_test::check_throws;

TEST_CASE("Tensor from a shape and values, checked") {
  const Tensor<int> t(Shape{2, 3}, {1, 2, 3, 4, 5, 6});
  CHECK(t.rank() == 2);
  CHECK(t.size() == 6);
  CHECK(t.dim(1) == 3);
  CHECK(t(1, 2) == 6);
  CHECK(t.at({0, 1}) == 2);
  CHECK(t.values()[4] == 5);
  check_throws<ragged::shape_error>(
      [] {
        Tensor<int>(Shape{2, 3}, {1, 2});
      },
      {"(2, 3)", "6 elements", "2 values"});
  check_throws<std::out_of_range>([&] { (void)t(2, 0); }, {"index 2", "dimension 0", "(2, 3)"});
  check_throws<std::out_of_range>([&] { (void)t(1); }, {"rank 1", "(2, 3)"});
}

TEST_CASE("Tensor is 64-byte aligned and bool tensors hold one byte per element") {
  const auto t = Tensor<bool>(Shape{5}, std::vector<bool>{true, false, true, true, false});
  static_assert(sizeof(bool) == 1);
  const bool* p = t.data();
  CHECK(reinterpret_cast<std::uintptr_t>(p) % 64 == 0);
  CHECK(p[0]);
  CHECK_FALSE(p[1]);
  CHECK(p[3]);
  const auto big = Tensor<float>::filled(Shape{1 << 20}, 1.0f);
  CHECK(reinterpret_cast<std::uintptr_t>(big.data()) % (2 << 20) == 0);
}

TEST_CASE("tensor<T> literal") {
  const auto t = ragged::tensor<int>({{1, 2}, {3, 4}, {5, 6}});
  CHECK(t.shape() == Shape{3, 2});
  CHECK(t(2, 1) == 6);
  CHECK(ragged::tensor<int>(7).rank() == 0);
  CHECK(ragged::tensor<int>(7)() == 7);
  CHECK(ragged::tensor<int>({}).shape() == Shape{0});
  CHECK(ragged::tensor<int>({{}, {}}).shape() == Shape{2, 0});
  check_throws<ragged::shape_error>(
      [] {
        (void)ragged::tensor<int>({{1, 2, 3}, {4}});
      },
      {"not uniform", "[1]", "1 items", "3 items"});
  check_throws<ragged::shape_error>(
      [] {
        (void)ragged::tensor<int>({{1, 2}, 3});
      },
      {"inconsistent nesting depth"});
}

TEST_CASE("Tensor equality, reshape, empty tensors") {
  const auto a = ragged::tensor<double>({1.0, std::nan(""), 3.0});
  CHECK(a == a);  // NaN equals NaN here
  CHECK_FALSE(a == ragged::tensor<double>({1.0, 2.0, 3.0}));
  CHECK_FALSE(ragged::tensor<int>({1, 2, 3, 4}) == ragged::tensor<int>({{1, 2}, {3, 4}}));
  CHECK(ragged::tensor<int>({1, 2, 3, 4}).reshaped(Shape{2, 2}) ==
        ragged::tensor<int>({{1, 2}, {3, 4}}));
  check_throws<ragged::shape_error>(
      [] {
        (void)ragged::tensor<int>({1, 2, 3}).reshaped(Shape{2, 2});
      },
      {"(3)", "(2, 2)"});
  const Tensor<std::string> e(Shape{0, 4}, std::vector<std::string>{});
  CHECK(e.empty());
  CHECK(e.rank() == 2);
  CHECK(Tensor<int>().shape() == Shape{0});
}

TEMPLATE_TEST_CASE("Tensor copies and moves keep values", "", std::int8_t, std::int32_t,
                   std::int64_t, float, double, bool, std::string) {
  std::vector<TestType> v(6);
  for (std::size_t i = 0; i < v.size(); ++i) {
    if constexpr (std::is_same_v<TestType, std::string>)
      v[i] = std::string(i, 'x');
    else
      v[i] = static_cast<TestType>(i % 2);
  }
  const Tensor<TestType> t(Shape{3, 2}, v);
  Tensor<TestType> copy = t;
  CHECK(copy == t);
  Tensor<TestType> moved = std::move(copy);
  CHECK(moved == t);
  CHECK(moved.at({2, 1}) == v[5]);
  CHECK(ragged::parse_tensor<TestType>(ragged::to_string(t)) == t);
}
