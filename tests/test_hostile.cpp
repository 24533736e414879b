// Hostile and extreme inputs: nothing crashes, nothing wraps, nothing is lost.
#include <ragged/ragged.hpp>

#include <cstdint>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "catch.hpp"

using ragged::RaggedTensor;
using ragged::Shape;
using ragged::Tensor;
using ragged_test::check_throws;
constexpr bool T = true, F = false;

TEST_CASE("splits: negative, decreasing, not from 0, wrong end, empty, near INT32_MAX") {
  using RT32 = RaggedTensor<int, std::int32_t>;
  const auto values = Tensor<int>(Shape{3}, {1, 2, 3});
  constexpr auto max32 = std::numeric_limits<std::int32_t>::max();
  check_throws<ragged::shape_error>(
      [&] {
        (void)RT32::from_row_splits(values, {0, -1, 3});
      },
      {"row_splits[1] = -1 is less than row_splits[0] = 0"});
  check_throws<ragged::shape_error>(
      [&] {
        (void)RT32::from_row_splits(values, {-2, 3});
      },
      {"row_splits[0] = -2"});
  check_throws<ragged::shape_error>(
      [&] {
        (void)RT32::from_row_splits(values, {0, max32});
      },
      {"row_splits[1] = 2147483647", "the number of values below it, 3"});
  check_throws<ragged::shape_error>(
      [&] {
        (void)RT32::from_row_splits(values, {0, max32, 3});
      },
      {"row_splits[2] = 3 is less than row_splits[1] = 2147483647"});
  check_throws<ragged::shape_error>(
      [&] {
        (void)RT32::from_row_lengths(values, {max32, max32, 1});
      },
      {"does not fit in int32"});
  check_throws<ragged::shape_error>(
      [&] {
        (void)RT32::from_row_lengths(values, {4, -1});
      },
      {"row_lengths[1] = -1 is negative"});
  check_throws<ragged::shape_error>(
      [&] {
        (void)RT32::from_value_rowids(values, {0, 0, max32}, 2);
      },
      {"value_rowids[2] = 2147483647 is not less than nrows = 2"});
  check_throws<ragged::shape_error>(
      [&] {
        (void)RT32::from_value_rowids(values, {1, 0, 0}, 2);
      },
      {"value_rowids[1] = 0 is less than value_rowids[0] = 1"});
  check_throws<ragged::shape_error>(
      [&] { (void)RT32::from_row_splits(values, std::vector<std::int32_t>{}); },
      {"must not be empty"});
}

TEST_CASE("sizes whose products overflow int64 throw before allocating") {
  constexpr std::int64_t big = std::int64_t{1} << 40;
  check_throws<ragged::shape_error>(
      [] {
        (void)Tensor<int>::filled(Shape{big, big}, 0);
      },
      {"more elements than int64"});
  check_throws<ragged::shape_error>(
      [] {
        (void)Tensor<int>::for_overwrite(Shape{big, big, 3});
      },
      {"more elements than int64"});
  // Representable but not allocatable: bad_alloc, not a crash.
  CHECK_THROWS_AS(Tensor<int>::filled(Shape{std::int64_t{1} << 31, std::int64_t{1} << 31}, 0),
                  std::bad_alloc);
  // An int32 ragged tensor whose splits would overflow.
  const auto wide = Tensor<int>::filled(Shape{65536, 65536, 0}, 0);
  check_throws<ragged::shape_error>(
      [&] {
        (void)RaggedTensor<int, std::int32_t>::from_tensor(wide, std::nullopt, std::nullopt, 2);
      },
      {"4294967296 does not fit in int32"});
}

TEST_CASE("masks: a mismatch at every dim, empty masks, masks longer than the data") {
  const auto data = Tensor<int>::filled(Shape{2, 3, 4, 5}, 1);
  for (std::int64_t k = 1; k <= 4; ++k) {
    for (std::int64_t d = 0; d < k; ++d) {
      std::vector<std::int64_t> dims{2, 3, 4, 5};
      dims.resize(static_cast<std::size_t>(k));
      dims[static_cast<std::size_t>(d)] += 1;
      const auto mask = Tensor<bool>::filled(Shape(dims), true);
      INFO("mask rank " << k << ", dim " << d << " too long");
      check_throws<ragged::shape_error>([&] { (void)ragged::boolean_mask(data, mask); },
                                        {"is not a prefix of"});
      check_throws<ragged::shape_error>([&] { (void)ragged::boolean_mask(data, mask, 0); },
                                        {"does not match"});
      dims[static_cast<std::size_t>(d)] -= 2;
      const auto shorter = Tensor<bool>::filled(Shape(dims), true);
      check_throws<ragged::shape_error>([&] { (void)ragged::boolean_mask(data, shorter); },
                                        {"is not a prefix of"});
    }
  }
  const auto empty = Tensor<int>::filled(Shape{0, 3}, 1);
  CHECK(ragged::boolean_mask(empty, Tensor<bool>::filled(Shape{0}, true)).flat_values().shape() ==
        Shape{0, 3});
  CHECK(ragged::boolean_mask(empty, Tensor<bool>::filled(Shape{0, 3}, true)).nrows() == 0);
  CHECK(ragged::boolean_mask(empty, Tensor<bool>::filled(Shape{0}, true), 0).shape() ==
        Shape{0, 3});
  check_throws<ragged::shape_error>(
      [] {
        (void)ragged::boolean_mask(ragged::constant<int>({{1}, {2}}),
                                   ragged::constant<bool>({{T}, {F}, {T}}));
      },
      {"mask shape (3, None) is not a prefix of data shape (2, None)"});
}

TEST_CASE("empty tensors at every rank and zero-length rows everywhere") {
  for (std::int64_t rank = 1; rank <= 4; ++rank) {
    for (std::int64_t zero = 0; zero < rank; ++zero) {
      std::vector<std::int64_t> dims(static_cast<std::size_t>(rank), 2);
      dims[static_cast<std::size_t>(zero)] = 0;
      const auto data = Tensor<int>::filled(Shape(dims), 1);
      for (std::int64_t k = 1; k <= rank; ++k) {
        std::vector<std::int64_t> mdims(dims.begin(), dims.begin() + k);
        const auto mask = Tensor<bool>::filled(Shape(mdims), true);
        INFO("shape " << ragged::to_string(Shape(dims)) << ", mask rank " << k);
        const auto out = ragged::boolean_mask(data, mask);
        CHECK(out.rank() == rank);
        CHECK(out.flat_values().size() == 0);
        CHECK(ragged::boolean_mask(data, mask, 0).size() == 0);
      }
    }
  }
  // 10^7 empty rows, with a ragged mask of 10^7 empty rows.
  const std::int64_t rows = 10'000'000;
  const auto data = RaggedTensor<int>::from_uniform_row_length(
      Tensor<int>(Shape{0}, std::vector<int>{}), 0, rows);
  const auto mask = RaggedTensor<bool>::from_uniform_row_length(
      Tensor<bool>(Shape{0}, std::vector<bool>{}), 0, rows);
  const auto out = ragged::boolean_mask(data, mask);
  CHECK(out.nrows() == rows);
  CHECK(out.flat_values().size() == 0);
  CHECK(out.row_splits().values().back() == 0);
  const auto selected = ragged::boolean_mask(data, Tensor<bool>::filled(Shape{rows}, true));
  CHECK(selected.nrows() == rows);
}

TEST_CASE("a single huge row") {
  const std::int64_t n = 10'000'000;
  std::vector<int> v(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int>(i);
  const auto data = RaggedTensor<int>::from_row_splits(Tensor<int>(Shape{n}, v), {0, n});
  auto m = Tensor<bool>::for_overwrite(Shape{n});
  for (std::int64_t i = 0; i < n; ++i) m.data()[i] = i % 3 == 0;
  const auto out = ragged::boolean_mask(data, RaggedTensor<bool>::from_row_splits(m, {0, n}));
  CHECK(out.nrows() == 1);
  CHECK(out.flat_values().size() == (n + 2) / 3);
  CHECK(out.flat_values().values()[1000] == 3000);
  CHECK(out.flat_values().values().back() == 9'999'999);
}

namespace {
// A value whose copies throw once a budget runs out.
int copies_left = 1 << 30;
struct Fragile {
  std::string payload;
  Fragile() = default;
  explicit Fragile(std::string p) : payload(std::move(p)) {}
  Fragile(const Fragile& other) : payload(other.payload) { spend(); }
  Fragile& operator=(const Fragile& other) {
    spend();
    payload = other.payload;
    return *this;
  }
  Fragile(Fragile&&) noexcept = default;
  Fragile& operator=(Fragile&&) noexcept = default;
  ~Fragile() = default;
  static void spend() {
    if (copies_left-- <= 0) throw std::runtime_error("copy budget exhausted");
  }
  friend bool operator==(const Fragile& a, const Fragile& b) { return a.payload == b.payload; }
};
}  // namespace

TEST_CASE("when a copy throws, the inputs are unchanged and the output is left empty") {
  std::vector<Fragile> v;
  for (int i = 0; i < 200; ++i) v.emplace_back(std::string(40, static_cast<char>('a' + i % 26)));
  const Tensor<Fragile> flat(Shape{200}, v);
  const auto data = RaggedTensor<Fragile>::from_uniform_row_length(flat, 20);
  const auto snapshot = data;
  auto m = Tensor<bool>::for_overwrite(Shape{200});
  for (std::int64_t i = 0; i < 200; ++i) m.data()[i] = i % 2 == 0;
  const auto mask = RaggedTensor<bool>::from_uniform_row_length(m, 20);
  for (int budget : {0, 1, 17, 50, 99}) {
    INFO("copies allowed: " << budget);
    copies_left = budget;
    CHECK_THROWS_AS(ragged::boolean_mask(data, mask), std::runtime_error);
    copies_left = 1 << 30;
    RaggedTensor<Fragile> out = ragged::constant<Fragile>({{Fragile("x")}});
    copies_left = budget;
    CHECK_THROWS_AS(ragged::boolean_mask(data, mask, out), std::runtime_error);
    CHECK(out.nrows() == 0);  // empty and valid, not half-built
    Tensor<Fragile> dense_out;
    copies_left = budget;
    CHECK_THROWS_AS(
        ragged::boolean_mask(flat.reshaped(Shape{10, 20}), m.reshaped(Shape{10, 20}), 0, dense_out),
        std::runtime_error);
    CHECK(dense_out.size() == 0);
    copies_left = 1 << 30;
    CHECK(data == snapshot);
  }
  copies_left = 1 << 30;
  CHECK(ragged::boolean_mask(data, mask).flat_values().size() == 100);
}
