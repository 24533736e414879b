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
    CHECK_THROWS_AS(ragged::boolean_mask_to(out, data, mask), std::runtime_error);
    CHECK(out.nrows() == 0);  // empty and valid, not half-built
    Tensor<Fragile> dense_out;
    copies_left = budget;
    CHECK_THROWS_AS(ragged::boolean_mask_to(dense_out, flat.reshaped(Shape{10, 20}),
                                            m.reshaped(Shape{10, 20}), 0),
                    std::runtime_error);
    CHECK(dense_out.size() == 0);
    copies_left = 1 << 30;
    CHECK(data == snapshot);
  }
  copies_left = 1 << 30;
  CHECK(ragged::boolean_mask(data, mask).flat_values().size() == 100);
}

TEST_CASE("copy assignment has the strong guarantee") {
  std::vector<Fragile> v;
  for (int i = 0; i < 50; ++i) v.emplace_back(std::string(30, static_cast<char>('a' + i % 26)));
  const Tensor<Fragile> big(Shape{50}, v);
  const auto big_ragged = RaggedTensor<Fragile>::from_uniform_row_length(big, 5);
  for (int budget : {0, 1, 25, 49}) {
    INFO("copies allowed: " << budget);
    Tensor<Fragile> target(Shape{2}, {Fragile("x"), Fragile("y")});
    const auto before = target;
    copies_left = budget;
    CHECK_THROWS_AS(target = big, std::runtime_error);
    copies_left = 1 << 30;
    CHECK(target == before);  // the old shape with the old values, not the new shape
    CHECK(target.shape() == Shape{2});
    auto rtarget = RaggedTensor<Fragile>::from_row_splits(before, {0, 1, 2});
    const auto rbefore = rtarget;
    copies_left = budget;
    CHECK_THROWS_AS(rtarget = big_ragged, std::runtime_error);
    copies_left = 1 << 30;
    CHECK(rtarget == rbefore);
    CHECK(rtarget.nrows() == 2);
  }
}

TEST_CASE("an output that is also an input: boolean_mask(x, m, x) and friends", "[threads]") {
  // Every `out` overload computes into a temporary when `out` shares memory
  // with an input, so the result equals the one into a fresh output.
  SECTION("ragged data as out, int and string") {
    auto x = ragged::constant<int>({{1, 2, 3}, {4}, {5, 6}});
    const auto m = ragged::constant<bool>({{T, F, T}, {F}, {T, T}});
    ragged::boolean_mask_to(x, x, m);
    CHECK(ragged::to_string(x) == "[[1, 3], [], [5, 6]]");
    auto s = ragged::constant<std::string>({{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "b"}, {"c"}});
    ragged::boolean_mask_to(s, s, ragged::constant<bool>({{F, T}, {T}}));
    CHECK(ragged::to_string(s) == "[[\"b\"], [\"c\"]]");
    auto rows = ragged::constant<std::string>({{"a", "b"}, {}, {"c"}});
    ragged::boolean_mask_to(rows, rows, ragged::tensor<bool>({F, T, T}));
    CHECK(ragged::to_string(rows) == "[[], [\"c\"]]");
  }
  SECTION("the mask as out") {
    auto m = ragged::constant<bool>({{T, F, T}, {F}, {T, T}});
    ragged::boolean_mask_to(m, m, m);
    CHECK(ragged::to_string(m) == "[[True, True], [], [True, True]]");
    auto dm = ragged::tensor<bool>({{T, F}, {T, T}});
    ragged::boolean_mask_to(dm, dm, dm, 0);
    CHECK(ragged::to_string(dm) == "[True, True, True]");
  }
  SECTION("dense data as out, with and without threads") {
    auto t = ragged::tensor<int>({{1, 2}, {3, 4}, {5, 6}});
    ragged::boolean_mask_to(t, t, ragged::tensor<bool>({T, F, T}), 0);
    CHECK(ragged::to_string(t) == "[[1, 2], [5, 6]]");
    const std::int64_t n = std::int64_t{1} << 18;
    auto big = Tensor<std::int32_t>::for_overwrite(Shape{n});
    auto mask = Tensor<bool>::for_overwrite(Shape{n});
    for (std::int64_t i = 0; i < n; ++i) {
      big.data()[i] = static_cast<std::int32_t>(i);
      mask.data()[i] = i % 3 != 0;
    }
    const auto want = ragged::boolean_mask(big, mask, 0);
    ragged::boolean_mask_to(big, big, mask, 0, ragged::kernel::Parallel{2});
    CHECK(big == want);
    auto strs = ragged::tensor<std::string>({"a long string that is not stored inline", "b"});
    ragged::boolean_mask_to(strs, strs, ragged::tensor<bool>({F, T}), 0);
    CHECK(ragged::to_string(strs) == "[\"b\"]");
  }
  SECTION("an unrelated out keeps its buffers") {
    const auto data = ragged::tensor<int>({1, 2, 3, 4});
    Tensor<int> out;
    ragged::boolean_mask_to(out, data, ragged::tensor<bool>({T, T, T, T}), 0);
    const int* first = out.data();
    ragged::boolean_mask_to(out, data, ragged::tensor<bool>({T, F, T, F}), 0);
    CHECK(out.data() == first);
  }
}

TEST_CASE("int32 results that would wrap are rejected") {
  // A mask with more ragged dims than the data: the result's inner splits
  // count the data's uniform rows. With data of shape (1, None, 4) in int32
  // splits and 2^29 + 1 rows, those splits would pass INT32_MAX. The inputs
  // such a case needs are gigabytes, so the operation's core is driven with
  // views of that shape over no memory: the check comes before any read.
  using Partition = ragged::RowPartition<std::int32_t>;
  const std::int32_t rows = (1 << 29) + 1;
  const std::int32_t outer[] = {0, rows};
  ragged::detail::View<std::uint8_t, std::int32_t> data;
  data.levels = {Partition::from_row_splits(outer), Partition::from_uniform_row_length(4, rows)};
  data.flat_shape = Shape{std::int64_t{rows} * 4};
  data.shape = {1, std::nullopt, 4};
  ragged::detail::View<bool, std::int32_t> mask;
  mask.levels = data.levels;
  mask.flat_shape = data.flat_shape;
  mask.shape = data.shape;
  RaggedTensor<std::uint8_t, std::int32_t> out;
  check_throws<ragged::shape_error>([&] { ragged::detail::ragged_mask(data, mask, 3, out); },
                                    {"the result's row splits would reach 2147483652",
                                     "does not fit in int32 row splits; use int64"});
  CHECK(out.nrows() == 0);
  // One row fewer fits, and the same shape at a small size runs end to end.
  const auto small = RaggedTensor<std::uint8_t, std::int32_t>::from_row_splits(
      Tensor<std::uint8_t>::filled(Shape{3, 4}, 1), {0, 3});
  const auto small_mask = RaggedTensor<bool, std::int32_t>::from_row_splits(
      RaggedTensor<bool, std::int32_t>::from_uniform_row_length(
          Tensor<bool>::filled(Shape{12}, true), 4),
      {0, 3});
  const auto r = ragged::boolean_mask(small, small_mask);
  CHECK(r.ragged_rank() == 2);
  CHECK(r.nested_row_splits()[1].values().back() == 12);
}

TEST_CASE("size arithmetic never overflows: huge dims, huge axes, huge nrows") {
  constexpr auto max64 = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t big = std::int64_t{1} << 62;
  SECTION("an axis near INT64_MAX is out of range, with a readable message") {
    const auto t = ragged::tensor<int>({{1, 2}, {3, 4}});
    check_throws<ragged::shape_error>(
        [&] {
          (void)ragged::boolean_mask(t, ragged::tensor<bool>({T, F}), max64);
        },
        {"axis 9223372036854775807 is out of range", "(2, 2)", "(2)"});
    check_throws<ragged::shape_error>(
        [&] {
          (void)ragged::boolean_mask(t, ragged::tensor<bool>({T, F}),
                                     std::numeric_limits<std::int64_t>::min());
        },
        {"is out of range"});
  }
  SECTION("zero-size tensors with huge dims give the right empty result") {
    const auto empty = Tensor<int>::for_overwrite(Shape{0, big, big});
    const auto out = ragged::boolean_mask(empty, Tensor<bool>::for_overwrite(Shape{0}), 0);
    CHECK(out.shape() == Shape{0, big, big});
    const auto out2 = ragged::boolean_mask(empty, Tensor<bool>::for_overwrite(Shape{0, big}), 0);
    CHECK(out2.shape() == Shape{0, big});
    const auto kept = ragged::boolean_mask(empty, Tensor<bool>::for_overwrite(Shape{0}));
    CHECK(kept.flat_values().shape() == Shape{0, big, big});
    const auto rows = ragged::boolean_mask(empty, Tensor<bool>::for_overwrite(Shape{0, big}));
    CHECK(ragged::to_string(rows) == "[]");
    CHECK(ragged::to_string(empty) == "[]");
    const auto rt = RaggedTensor<int>::from_tensor(empty);
    CHECK(rt.nrows() == 0);
    CHECK(ragged::to_string(rt) == "[]");
    CHECK(ragged::to_string(RaggedTensor<int>::from_tensor(empty, std::nullopt, std::nullopt, 2)) ==
          "[]");
    // Leading dims whose rows cannot be counted are an error, not a wrapped count.
    const auto wide = Tensor<int>::for_overwrite(Shape{big, big, 0});
    check_throws<ragged::shape_error>(
        [&] {
          (void)ragged::boolean_mask(wide, Tensor<bool>::for_overwrite(Shape{big, big, 0}));
        },
        {"does not fit in int64"});
  }
  SECTION("empty tensors whose leading dims count INT64_MAX rows (found by fuzzing)") {
    const auto rows = Tensor<int>::for_overwrite(Shape{max64, 3, 0});
    const auto out = ragged::boolean_mask(rows, ragged::tensor<bool>({T, F, T}), 1);
    CHECK(out.shape() == Shape{max64, 2, 0});
    check_throws<ragged::shape_error>(
        [] {
          (void)RaggedTensor<int>::from_tensor(Tensor<int>::for_overwrite(Shape{3, max64, 0}));
        },
        {"does not fit in int64"});
    const auto tall = Tensor<int>::for_overwrite(Shape{max64, 0});
    check_throws<ragged::shape_error>(
        [&] {
          (void)ragged::boolean_mask(tall, Tensor<bool>::for_overwrite(Shape{max64, 0}));
        },
        {"the row splits of 9223372036854775807 rows", "does not fit in int64"});
    // Unvalidated int32 splits far apart: bounding_shape validates first.
    const auto wide = RaggedTensor<int, std::int32_t>::from_row_splits(
        Tensor<int>::for_overwrite(Shape{0}), {0, std::numeric_limits<std::int32_t>::min(), 0},
        false);
    CHECK_THROWS_AS(wide.bounding_shape(), ragged::shape_error);
    CHECK_THROWS_AS(wide.row_lengths(), ragged::shape_error);
  }
  SECTION("from_value_rowids and from_uniform_row_length with nrows at INT64_MAX") {
    const auto none = Tensor<int>::for_overwrite(Shape{0});
    check_throws<ragged::shape_error>(
        [&] { (void)RaggedTensor<int>::from_value_rowids(none, {}, max64); },
        {"nrows = 9223372036854775807", "does not fit in int64"});
    const auto one = Tensor<int>(Shape{1}, {7});
    check_throws<ragged::shape_error>(
        [&] { (void)RaggedTensor<int>::from_value_rowids(one, {max64}); },
        {"value_rowids[0] = 9223372036854775807", "does not fit in int64"});
    check_throws<ragged::shape_error>(
        [&] { (void)RaggedTensor<int>::from_uniform_row_length(none, 0, max64); },
        {"nrows = 9223372036854775807", "does not fit in int64"});
  }
  SECTION("Shape's partial products") {
    const Shape s{0, big, big};
    CHECK(s.num_elements() == 0);
    CHECK(s.num_elements(0, 2) == 0);
    CHECK(s.num_elements(1, 2) == big);
    CHECK(s.num_elements(1, 3) == 0);  // does not fit; nothing is addressed with it
    CHECK_THROWS_AS(s.num_elements(2, 4), std::out_of_range);
    CHECK_THROWS_AS(s.slice(-1, 2), std::out_of_range);
  }
}

TEST_CASE("accessors check their index") {
  const Shape s{2, 3};
  CHECK(s[1] == 3);
  check_throws<std::out_of_range>([&] { (void)s[2]; }, {"dimension 2 is out of range", "(2, 3)"});
  check_throws<std::out_of_range>([&] { (void)s[-1]; }, {"dimension -1 is out of range"});
  const auto t = Tensor<int>::filled(Shape{2, 3}, 0);
  CHECK_THROWS_AS(t.dim(5), std::out_of_range);
  CHECK_THROWS_AS(Tensor<int>().dim(1), std::out_of_range);
}

TEST_CASE("validate = false: the splits are checked before anything indexes through them") {
  const auto values = Tensor<int>(Shape{4}, {1, 2, 3, 4});
  // Ends at the right count (the O(1) check passes) but goes up and down.
  const auto bad = RaggedTensor<int>::from_row_splits(values, {0, 9, 1, 4}, false);
  CHECK_FALSE(bad.is_validated());
  const char* words = "row_splits[2] = 1 is less than row_splits[1] = 9";
  check_throws<ragged::shape_error>([&] { (void)ragged::to_string(bad); }, {words});
  check_throws<ragged::shape_error>([&] { (void)bad[0]; }, {words});
  check_throws<ragged::shape_error>([&] { (void)bad.to_tensor(); }, {words});
  check_throws<ragged::shape_error>([&] { (void)bad.value_rowids(); }, {words});
  check_throws<ragged::shape_error>(
      [&] {
        (void)ragged::boolean_mask(bad, ragged::tensor<bool>({T, F, T}));
      },
      {words});
  const auto bad_mask = RaggedTensor<bool>::from_row_splits(Tensor<bool>::filled(Shape{4}, true),
                                                            {0, 9, 1, 4}, false);
  check_throws<ragged::shape_error>(
      [&] {
        (void)ragged::boolean_mask(RaggedTensor<int>::from_row_splits(values, {0, 1, 2, 4}),
                                   bad_mask);
      },
      {words});
  // Valid splits given with validate = false work as usual.
  const auto good = RaggedTensor<int>::from_row_splits(values, {0, 1, 1, 4}, false);
  CHECK(ragged::to_string(good) == "[[1], [], [2, 3, 4]]");
  CHECK(ragged::to_string(good[2]) == "[2, 3, 4]");
}

TEST_CASE("factory messages name the argument the caller passed") {
  const auto values = Tensor<int>(Shape{3}, {1, 2, 3});
  check_throws<ragged::shape_error>([&] { (void)RaggedTensor<int>::from_row_limits(values, {}); },
                                    {"row_limits is empty but there are 3 values"});
  check_throws<ragged::shape_error>(
      [&] {
        (void)RaggedTensor<int>::from_nested_row_splits(Tensor<int>::for_overwrite(Shape{0}),
                                                        {{0}, {}});
      },
      {"nested_row_splits[1] must not be empty"});
  check_throws<ragged::shape_error>(
      [&] {
        (void)RaggedTensor<int>::from_value_rowids(values, {0, 2, 1});
      },
      {"value_rowids[2] = 1 is less than value_rowids[1] = 2", "sorted"});
  check_throws<ragged::shape_error>(
      [&] {
        (void)RaggedTensor<int>::from_value_rowids(values, {-1, 0, 0});
      },
      {"value_rowids[0] = -1 is negative"});
  check_throws<ragged::shape_error>(
      [&] {
        (void)RaggedTensor<int>::from_tensor(ragged::tensor<int>({{1, 2}}),
                                             std::vector<std::int64_t>{1}, std::nullopt, 0);
      },
      {"lengths needs ragged_rank >= 1", "ragged_rank is 0"});
}
