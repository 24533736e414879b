// Views of the caller's memory: no copy in, results into caller memory.
#include <ragged/boolean_mask.hpp>
#include <ragged/conversion.hpp>
#include <ragged/format.hpp>
#include <ragged/kernel/parallel.hpp>
#include <ragged/literal.hpp>
#include <ragged/view.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "catch.hpp"

using ragged::RaggedTensor;
using ragged::RaggedTensorView;
using ragged::Shape;
using ragged::Tensor;
using ragged::TensorView;
using ragged_test::check_throws;
constexpr bool T = true, F = false;

namespace {
// Counts copies, to prove that the view paths copy no input value.
int copies = 0;
struct Counted {
  int v = 0;
  Counted() = default;
  explicit Counted(int x) : v(x) {}
  Counted(const Counted& o) : v(o.v) { ++copies; }
  Counted& operator=(const Counted& o) {
    v = o.v;
    ++copies;
    return *this;
  }
  Counted(Counted&&) noexcept = default;
  Counted& operator=(Counted&&) noexcept = default;
  ~Counted() = default;
};
}  // namespace

TEST_CASE("TensorView: from a pointer and a shape, a span, a Tensor") {
  std::vector<int> v{1, 2, 3, 4, 5, 6};
  const TensorView<int> a(v.data(), Shape{2, 3});
  CHECK(a.rank() == 2);
  CHECK(a.size() == 6);
  CHECK(a.dim(1) == 3);
  CHECK(a.data() == v.data());
  const TensorView<int> b{std::span<int>(v)};
  CHECK(b.shape() == Shape{6});
  auto t = ragged::tensor<int>({{1, 2}, {3, 4}});
  const TensorView<const int> c = t;
  CHECK(c.data() == t.data());
  int sum = 0;
  for (const int x : c) sum += x;
  CHECK(sum == 10);
  const TensorView<const int> d = a;  // mutable to const
  CHECK(d.data() == v.data());
}

TEST_CASE("byte_mask: NumPy and Arrow byte masks, any nonzero byte true, no copy") {
  const std::vector<std::uint8_t> bytes{0, 1, 2, 0, 255, 0x80};
  const auto m = ragged::byte_mask(bytes);
  CHECK(reinterpret_cast<const void*>(m.data()) == bytes.data());
  const std::vector<int> values{10, 11, 12, 13, 14, 15};
  const auto out = ragged::boolean_mask(TensorView<const int>(std::span<const int>(values)), m, 0);
  CHECK(ragged::to_string(out) == "[11, 12, 14, 15]");
  check_throws<ragged::shape_error>(
      [&] {
        (void)ragged::byte_mask(bytes, Shape{4, 2});
      },
      {"6 bytes cannot have shape (4, 2)"});
  const auto m2 = ragged::byte_mask(bytes, Shape{2, 3});
  const auto rows = ragged::boolean_mask(ragged::tensor<int>({{1, 2, 3}, {4, 5, 6}}), m2);
  CHECK(ragged::to_string(rows) == "[[2, 3], [5, 6]]");
}

TEST_CASE("bit_mask: Arrow's bit-packed booleans, LSB first, from any bit offset, no copy") {
  // Entries 0..9 from bit 3: bits 3..7 of byte 0, then bits 0..4 of byte 1.
  //   byte 0 = 0b10101'111: entries 1 0 1 0 1 (bits 3..7); bits 0..2 are not entries
  //   byte 1 = 0b111'00110: entries 0 1 1 0 0 (bits 0..4); bits 5..7 are not entries
  const std::vector<std::uint8_t> bytes{0b10101111, 0b11100110};
  const auto m = ragged::bit_mask(bytes, {10}, 3);
  CHECK(m.data().data == bytes.data());
  CHECK(m.data().offset == 3);
  CHECK(m.bytes().size() == 2);
  CHECK(m.at(0));
  CHECK_FALSE(m.at(1));
  CHECK(m.at(6));
  CHECK_THROWS_AS(m.at(10), std::out_of_range);
  const std::vector<int> values{0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  const TensorView<const int> v(std::span<const int>{values});
  CHECK(ragged::to_string(ragged::boolean_mask(v, m, 0)) == "[0, 2, 4, 6, 7]");
  // Dense masks of any rank, and the two-argument operation.
  const auto m2 = ragged::bit_mask(bytes, {2, 5}, 3);
  const auto t = ragged::tensor<int>({{0, 1, 2, 3, 4}, {5, 6, 7, 8, 9}});
  CHECK(ragged::to_string(ragged::boolean_mask(t, m2)) == "[[0, 2, 4], [6, 7]]");
  CHECK(ragged::to_string(ragged::boolean_mask(t, m2, 0)) == "[0, 2, 4, 6, 7]");
  // As the flat values of a ragged mask: rows [1 0 1] [] [0 1 0 1 1 0 0].
  const std::vector<std::int64_t> splits{0, 3, 3, 10};
  const auto rm = RaggedTensorView<const ragged::Bit>::from_row_splits(m, splits);
  const auto rt = RaggedTensorView<const int>::from_row_splits(v, splits);
  CHECK(ragged::to_string(ragged::boolean_mask(rt, rm)) == "[[0, 2], [], [4, 6, 7]]");
  // A 1-D bit mask selects rows.
  const auto rows = ragged::bit_mask(bytes, {3}, 3);  // 1 0 1
  CHECK(ragged::to_string(ragged::boolean_mask(rt, rows)) == "[[0, 1, 2], [3, 4, 5, 6, 7, 8, 9]]");
  CHECK(rm == rm);
}

TEST_CASE("bit_mask checks that the bytes hold the entries") {
  const std::vector<std::uint8_t> bytes{0xff, 0xff};
  CHECK(ragged::bit_mask(bytes, {16}).size() == 16);
  CHECK(ragged::bit_mask(bytes, {1}, 15).at(0));
  CHECK(ragged::bit_mask(bytes, {0}, 16).empty());
  check_throws<ragged::shape_error>(
      [&] { (void)ragged::bit_mask(bytes, {17}); },
      {"2 bytes hold 16 bits, too few for 17 entries of shape (17)", "from bit offset 0"});
  check_throws<ragged::shape_error>(
      [&] {
        (void)ragged::bit_mask(bytes, {2, 4}, 9);
      },
      {"too few for 8 entries of shape (2, 4) from bit offset 9"});
  check_throws<ragged::shape_error>([&] { (void)ragged::bit_mask(bytes, {1}, 17); },
                                    {"from bit offset 17"});
  check_throws<ragged::shape_error>([&] { (void)ragged::bit_mask(bytes, {1}, -1); },
                                    {"bit_offset = -1 is negative"});
  // The operations check the mask's shape against the data as for any mask.
  const auto t = ragged::tensor<int>({1, 2, 3});
  check_throws<ragged::shape_error>(
      [&] { (void)ragged::boolean_mask(t, ragged::bit_mask(bytes, {4}), 0); },
      {"mask shape (4) does not match tensor shape (3)"});
}

TEST_CASE("an output over a bit mask's bytes is detected as aliasing") {
  // The caller's buffer holds both the mask bits and room for the result.
  std::vector<std::uint8_t> buffer{0b00000101, 0, 0, 0};
  const auto m = ragged::bit_mask(std::span<const std::uint8_t>(buffer.data(), 1), {3});
  const auto data = ragged::tensor<std::uint8_t>({7, 8, 9});
  const auto got =
      ragged::boolean_mask_to(TensorView<std::uint8_t>(buffer.data(), Shape{4}), data, m, 0);
  CHECK(ragged::to_string(got) == "[7, 9]");
}

TEST_CASE("RaggedTensorView: factories over the caller's values and splits") {
  std::vector<float> values{1.5f, 0.2f, 3.0f, 0.1f, 2.5f};
  const std::vector<std::int64_t> splits{0, 3, 3, 5};
  const auto rt = RaggedTensorView<const float>::from_row_splits(
      TensorView<const float>(std::span<const float>(values)), splits);
  CHECK(rt.nrows() == 3);
  CHECK(rt.ragged_rank() == 1);
  CHECK(rt.flat_values().data() == values.data());
  const auto mask = ragged::constant<bool>({{T, F, T}, {}, {F, T}});
  CHECK(ragged::to_string(ragged::boolean_mask(rt, mask)) == "[[1.5, 3.0], [], [2.5]]");
  // Validation names the split and its values; the values may be longer.
  check_throws<ragged::shape_error>(
      [&] {
        const std::vector<std::int64_t> bad{0, 4, 2};
        (void)RaggedTensorView<const float>::from_row_splits(
            TensorView<const float>(std::span<const float>(values)), bad);
      },
      {"row_splits[2] = 2 is less than row_splits[1] = 4"});
  check_throws<ragged::shape_error>(
      [&] {
        const std::vector<std::int64_t> far{0, 6};
        (void)RaggedTensorView<const float>::from_row_splits(
            TensorView<const float>(std::span<const float>(values)), far);
      },
      {"row_splits reaches 6 but there are only 5 rows below it"});
  // Uniform rows store no splits.
  const auto uniform = RaggedTensorView<const float>::from_uniform_row_length(
      TensorView<const float>(values.data(), Shape{4}), 2, 2);
  CHECK(ragged::to_string(ragged::boolean_mask(uniform, ragged::tensor<bool>({F, T}))) ==
        "[[3.0, 0.1]]");
  CHECK(ragged::to_string(ragged::boolean_mask(uniform, ragged::tensor<bool>({{T, F}, {F, T}}))) ==
        "[[1.5], [0.1]]");
}

TEST_CASE("RaggedTensorView: splits that start above 0 and values with unused head and tail") {
  // An Arrow slice: rows 1..2 of [[9], [1, 2, 3], [4], [8, 8]] (offsets 1..6 used).
  const std::vector<int> values{9, 1, 2, 3, 4, 8, 8};
  const std::vector<std::int64_t> offsets{1, 4, 5};
  const auto rt = RaggedTensorView<const int>::from_row_splits(
      TensorView<const int>(std::span<const int>(values)), offsets);
  CHECK(ragged::to_string(ragged::boolean_mask(rt, ragged::constant<bool>({{F, T, T}, {T}}))) ==
        "[[2, 3], [4]]");
  CHECK(ragged::to_string(ragged::boolean_mask(rt, ragged::tensor<bool>({F, T}))) == "[[4]]");
  // Nested: the outer splits select rows 2..3 of the inner level.
  const std::vector<std::int32_t> outer{2, 4};
  const std::vector<std::int32_t> inner{0, 1, 1, 3, 5};
  const auto nested = RaggedTensorView<const int, std::int32_t>::from_nested_row_splits(
      TensorView<const int>(std::span<const int>(values)), {outer, inner});
  const auto mask = ragged::constant<bool, std::int32_t>({{{T, F}, {F, T}}});
  CHECK(ragged::to_string(ragged::boolean_mask(nested, mask)) == "[[[1], [4]]]");
  // A ragged mask that is itself a slice, with other offsets than the data's.
  const std::vector<std::uint8_t> mbytes{1, 1, 0, 1, 1, 0};
  const std::vector<std::int64_t> moffsets{2, 5, 6};
  const auto sliced_mask =
      RaggedTensorView<const bool>::from_row_splits(ragged::byte_mask(mbytes), moffsets);
  CHECK(ragged::to_string(ragged::boolean_mask(rt, sliced_mask)) == "[[2, 3], []]");
}

TEST_CASE("the view path copies no input value") {
  std::vector<Counted> values;
  for (int i = 0; i < 5; ++i) values.emplace_back(i);
  const std::vector<std::int64_t> splits{0, 2, 5};
  copies = 0;
  const auto rt = RaggedTensorView<const Counted>::from_row_splits(
      TensorView<const Counted>(std::span<const Counted>(values)), splits);
  const auto mask = ragged::constant<bool>({{T, F}, {T, F, T}});
  CHECK(copies == 0);
  const auto out = ragged::boolean_mask(rt, mask);
  CHECK(copies == 3);  // the kept values, into the result, and nothing else
  CHECK(out.flat_values().data()[2].v == 4);
}

TEST_CASE("owning types adopt a std::vector's memory") {
  std::vector<float> v{1, 2, 3, 4};
  const auto* p = v.data();
  const Tensor<float> t(Shape{2, 2}, std::move(v));
  CHECK(t.data() == p);
  std::vector<float> values{1.5f, 0.2f, 3.0f};
  const auto* q = values.data();
  const std::vector<std::int64_t> splits{0, 2, 3};
  const auto rt = RaggedTensor<float>::from_row_splits(std::move(values), splits);
  CHECK(rt.flat_values().data() == q);
  CHECK(ragged::to_string(rt) == "[[1.5, 0.2], [3.0]]");
  // A reused result that adopted a vector grows and shrinks safely.
  Tensor<int> out(Shape{3}, std::vector<int>{7, 8, 9});
  ragged::boolean_mask_to(out, ragged::tensor<int>({1, 2, 3, 4, 5}),
                          ragged::tensor<bool>({T, T, T, T, F}), 0);
  CHECK(ragged::to_string(out) == "[1, 2, 3, 4]");
  ragged::boolean_mask_to(out, ragged::tensor<int>({1, 2}), ragged::tensor<bool>({F, F}), 0);
  CHECK(out.size() == 0);
  ragged::boolean_mask_to(out, ragged::tensor<int>({1, 2}), ragged::tensor<bool>({F, T}), 0);
  CHECK(ragged::to_string(out) == "[2]");
  Tensor<std::string> strings(Shape{2}, std::vector<std::string>{"a", "b"});
  strings = ragged::boolean_mask(strings, ragged::tensor<bool>({F, T}), 0);
  CHECK(ragged::to_string(strings) == "[\"b\"]");
  // Splits given as a std::vector&& are adopted too; an lvalue or a braced list is copied.
  std::vector<std::int64_t> own_splits{0, 1, 3};
  const auto* sp = own_splits.data();
  const auto adopted =
      RaggedTensor<float>::from_row_splits(std::vector<float>{1, 2, 3}, std::move(own_splits));
  CHECK(adopted.row_splits().data() == sp);
  CHECK(ragged::to_string(adopted) == "[[1.0], [2.0, 3.0]]");
  const auto copied = RaggedTensor<float>::from_row_splits(std::vector<float>{1, 2, 3}, splits);
  CHECK(copied.row_splits().data() != splits.data());
  CHECK(ragged::to_string(RaggedTensor<float>::from_row_splits(std::vector<float>{1, 2, 3},
                                                               {0, 3})) == "[[1.0, 2.0, 3.0]]");
  // Adopted splits are validated as any others.
  check_throws<ragged::shape_error>(
      [] {
        (void)RaggedTensor<float>::from_row_splits(std::vector<float>{1},
                                                   std::vector<std::int64_t>{0, 2});
      },
      {"row_splits"});
}

TEST_CASE("boolean_mask_to writes into caller memory and returns the view of what it wrote",
          "[threads]") {
  const auto data = ragged::tensor<int>({{1, 2}, {3, 4}, {5, 6}});
  const auto mask = ragged::tensor<bool>({T, F, T});
  std::vector<int> room(6 + 2, -1);  // sized like the input, and two sentinels
  const auto out = ragged::boolean_mask_to(TensorView<int>(room.data(), Shape{6}), data, mask, 0);
  CHECK(out.data() == room.data());
  CHECK(out.shape() == Shape{2, 2});
  CHECK(room == std::vector<int>{1, 2, 5, 6, -1, -1, -1, -1});
  // Exactly the result's size is enough; one less is an error naming both sizes
  // and writes nothing.
  std::vector<int> exact(4 + 2, -1);
  const auto fits = ragged::boolean_mask_to(TensorView<int>(exact.data(), Shape{4}), data, mask, 0);
  CHECK(fits.shape() == Shape{2, 2});
  CHECK(exact[4] == -1);
  std::vector<int> small(3 + 2, -1);
  check_throws<ragged::shape_error>(
      [&] {
        (void)ragged::boolean_mask_to(TensorView<int>(small.data(), Shape{3}), data, mask, 0);
      },
      {"out has room for 3 elements but the result has 4"});
  CHECK(small == std::vector<int>(5, -1));
  // Caller memory that is also the input.
  std::vector<int> inplace{1, 2, 3, 4, 5, 6};
  const auto same =
      ragged::boolean_mask_to(TensorView<int>(inplace.data(), Shape{6}),
                              TensorView<const int>(inplace.data(), Shape{3, 2}), mask, 0);
  CHECK(same.shape() == Shape{2, 2});
  CHECK(std::vector<int>(inplace.begin(), inplace.begin() + 4) == std::vector<int>{1, 2, 5, 6});
  // Threads, on a size that splits.
  const std::int64_t n = std::int64_t{1} << 18;
  std::vector<std::int32_t> big(static_cast<std::size_t>(n));
  std::vector<std::uint8_t> bits(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < big.size(); ++i) {
    big[i] = static_cast<std::int32_t>(i);
    bits[i] = static_cast<std::uint8_t>(i % 5 == 0 ? 0 : i % 7);
  }
  std::vector<std::int32_t> dest(big.size());
  const auto par =
      ragged::boolean_mask_to(TensorView<std::int32_t>(std::span<std::int32_t>(dest)),
                              TensorView<const std::int32_t>(std::span<const std::int32_t>(big)),
                              ragged::byte_mask(bits), 0, ragged::kernel::Parallel{2});
  std::int64_t want = 0;
  for (const auto b : bits) want += b != 0;
  CHECK(par.size() == want);
  CHECK(dest[0] == 1);
  CHECK(dest[1] == 2);
}

static_assert(std::is_copy_constructible_v<TensorView<int>> &&
              std::is_copy_constructible_v<ragged::RaggedTensorView<int>>);
static_assert(std::is_convertible_v<TensorView<int>, TensorView<const int>>);

TEST_CASE("boolean_mask_to writes a ragged result into caller memory") {
  std::vector<float> values{1.5f, 0.2f, 3.0f, 0.1f, 2.5f};
  std::vector<std::int64_t> splits{0, 3, 3, 5};
  const std::vector<std::uint8_t> keep{1, 0, 1, 0, 255};
  const auto data = RaggedTensorView<const float>::from_row_splits(
      TensorView<const float>{std::span<const float>(values)}, splits);
  const auto mask = RaggedTensorView<const bool>::from_row_splits(ragged::byte_mask(keep), splits);
  // Room sized like the input.
  std::vector<float> out_values(values.size(), -1);
  std::vector<std::int64_t> out_splits(splits.size(), -1);
  const auto got = ragged::boolean_mask_to(
      ragged::RaggedBuffers<float>{TensorView<float>{std::span<float>(out_values)},
                                   {std::span<std::int64_t>(out_splits)}},
      data, mask);
  CHECK(ragged::to_string(got) == "[[1.5, 3.0], [], [2.5]]");
  CHECK(got.flat_values().data() == out_values.data());
  CHECK(got.partitions()[0].row_splits().data() == out_splits.data());
  CHECK(out_splits == std::vector<std::int64_t>{0, 2, 2, 3});
  CHECK(out_values[3] == -1);  // nothing past the result
  // Row selection on ragged_rank 2, and a dense mask of rank 2 on dense data.
  const auto nested = ragged::constant<int>({{{1, 2}, {}}, {{3}}, {{4, 5, 6}}});
  std::vector<int> v2(6, 0);
  std::vector<std::int64_t> s0(4), s1(5);
  const auto rows = ragged::boolean_mask_to(
      ragged::RaggedBuffers<int>{TensorView<int>{std::span<int>(v2)},
                                 {std::span<std::int64_t>(s0), std::span<std::int64_t>(s1)}},
      nested, ragged::tensor<bool>({T, F, T}));
  CHECK(ragged::to_string(rows) == "[[[1, 2], []], [[4, 5, 6]]]");
  const auto dense = ragged::tensor<int>({{1, 2, 3}, {4, 5, 6}});
  std::vector<int> v3(6);
  std::vector<std::int64_t> s3(3);
  const auto elems =
      ragged::boolean_mask_to(ragged::RaggedBuffers<int>{TensorView<int>{std::span<int>(v3)},
                                                         {std::span<std::int64_t>(s3)}},
                              dense, ragged::tensor<bool>({{T, F, T}, {F, F, T}}));
  CHECK(ragged::to_string(elems) == "[[1, 3], [6]]");
}

TEST_CASE("boolean_mask_to into caller memory that is too small names both sizes") {
  const auto data = ragged::constant<int>({{1, 2, 3}, {4}});
  const auto mask = ragged::constant<bool>({{T, T, F}, {T}});
  std::vector<int> values(4, -7);
  std::vector<std::int64_t> splits(3, -7);
  const auto buffers = [&](std::size_t nvalues, std::size_t nsplits) {
    return ragged::RaggedBuffers<int>{
        TensorView<int>(values.data(), Shape{static_cast<std::int64_t>(nvalues)}),
        {std::span<std::int64_t>(splits.data(), nsplits)}};
  };
  // Two values are kept: room for one is refused before anything is written there.
  check_throws<ragged::shape_error>(
      [&] {
        (void)ragged::boolean_mask_to(buffers(1, 3), data, ragged::tensor<bool>({T, F}));
      },
      {"out has room for 1 values but the result has 3"});
  CHECK(values[1] == -7);
  check_throws<ragged::shape_error>(
      [&] { (void)ragged::boolean_mask_to(buffers(4, 2), data, mask); },
      {"out has room for 2 row splits at ragged dim 0 but the result "
       "needs 3"});
  check_throws<ragged::shape_error>(
      [&] {
        (void)ragged::boolean_mask_to(
            ragged::RaggedBuffers<int>{TensorView<int>(values.data(), Shape{4}), {}}, data, mask);
      },
      {"out has row splits for 0 ragged dims but the result has 1"});
  // Exactly the result's size is enough for elements (they are counted first).
  const auto got = ragged::boolean_mask_to(buffers(3, 3), data, mask);
  CHECK(ragged::to_string(got) == "[[1, 2], [4]]");
  CHECK(values[3] == -7);
}

TEST_CASE("boolean_mask_to into caller memory that aliases the input") {
  std::vector<int> values{1, 2, 3, 4};
  std::vector<std::int64_t> splits{0, 3, 4};
  const auto data = RaggedTensorView<const int>::from_row_splits(
      TensorView<const int>{std::span<const int>(values)}, splits);
  const auto mask = ragged::constant<bool>({{F, T, T}, {T}});
  // The result is written over the data's own values and splits.
  const auto got =
      ragged::boolean_mask_to(ragged::RaggedBuffers<int>{TensorView<int>{std::span<int>(values)},
                                                         {std::span<std::int64_t>(splits)}},
                              data, mask);
  CHECK(ragged::to_string(got) == "[[2, 3], [4]]");
  CHECK(values[0] == 2);
  CHECK(splits == std::vector<std::int64_t>{0, 2, 3});
}

TEST_CASE("rows, values() and rows() are views: no copy, as TensorFlow's") {
  const auto rt = ragged::constant<int>({{{1, 2}, {}}, {}, {{3}, {4, 5, 6}}});
  const auto row2 = rt[2];  // [[3], [4, 5, 6]]
  CHECK(row2.flat_values().data() == rt.flat_values().data());
  CHECK(row2.nrows() == 2);
  CHECK(ragged::to_string(row2) == "[[3], [4, 5, 6]]");
  // Views compare by structure and values, wherever their splits start.
  CHECK(row2 == ragged::constant<int>({{3}, {4, 5, 6}}));
  CHECK_FALSE(row2 == ragged::constant<int>({{3, 4}, {5, 6}}));
  CHECK(ragged::to_string(rt.values()) == "[[1, 2], [], [3], [4, 5, 6]]");
  CHECK(rt.values().flat_values().data() == rt.flat_values().data());
  std::vector<std::string> printed;
  for (const auto& row : rt.rows()) printed.push_back(ragged::to_string(row));
  CHECK(printed == std::vector<std::string>{"[[1, 2], []]", "[]", "[[3], [4, 5, 6]]"});
  // A row of a row, and masking a row view.
  CHECK(ragged::to_string(ragged::constant<int>({{1, 2, 3}, {4}})[0]) == "[1, 2, 3]");
  const auto kept = ragged::boolean_mask(row2, ragged::constant<bool>({{F}, {T, F, T}}));
  CHECK(ragged::to_string(kept) == "[[], [4, 6]]");
  // Dense rows: a slab of the flat values.
  const auto dense = RaggedTensor<int>::from_tensor(ragged::tensor<int>({{1, 2}, {3, 4}}),
                                                    std::nullopt, std::nullopt, 0);
  CHECK(ragged::to_string(dense[1]) == "[3, 4]");
  CHECK(dense[1].flat_values().data() == dense.flat_values().data() + 2);
}
