#include <ragged/boolean_mask.hpp>
#include <ragged/format.hpp>
#include <ragged/literal.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "catch.hpp"

using ragged::RaggedTensor;
using ragged::Tensor;
using ragged_test::check_throws;
constexpr bool T = true, F = false;

namespace {
// parse<int>(text, rr) or, for rr < 0, a dense tensor; the result as TF's to_list().
std::string mask_text(const std::string& data, int data_rr, const std::string& mask, int mask_rr) {
  const auto run = [&](const auto& d) {
    if (mask_rr < 0)
      return ragged::to_string(ragged::boolean_mask(d, ragged::parse_tensor<bool>(mask)));
    return ragged::to_string(ragged::boolean_mask(d, ragged::parse<bool>(mask, mask_rr)));
  };
  return data_rr < 0 ? run(ragged::parse_tensor<int>(data))
                     : run(ragged::parse<int>(data, data_rr));
}
}  // namespace

TEST_CASE("the examples of tf.ragged.boolean_mask's documentation") {
  // Mask a 2D Tensor.
  CHECK(ragged::to_string(ragged::boolean_mask(
            ragged::tensor<int>({{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}),
            ragged::tensor<bool>({{T, F, T}, {F, F, F}, {T, F, F}}))) == "[[1, 3], [], [7]]");
  // Mask a 2D RaggedTensor.
  CHECK(ragged::to_string(ragged::boolean_mask(ragged::constant<int>({{1, 2, 3}, {4}, {5, 6}}),
                                               ragged::constant<bool>({{F, F, T}, {F}, {T, T}}))) ==
        "[[3], [], [5, 6]]");
  // Mask rows of a 2D RaggedTensor.
  CHECK(ragged::to_string(ragged::boolean_mask(ragged::constant<int>({{1, 2, 3}, {4}, {5, 6}}),
                                               ragged::constant<bool>({T, F, T}))) ==
        "[[1, 2, 3], [5, 6]]");
}

TEST_CASE("the examples of tf.boolean_mask's documentation") {
  CHECK(ragged::boolean_mask(ragged::tensor<int>({0, 1, 2, 3}), ragged::tensor<bool>({T, F, T, F}),
                             0) == ragged::tensor<int>({0, 2}));
  CHECK(ragged::boolean_mask(ragged::tensor<int>({{1, 2}, {3, 4}, {5, 6}}),
                             ragged::tensor<bool>({T, F, T}),
                             0) == ragged::tensor<int>({{1, 2}, {5, 6}}));
}

TEST_CASE("ragged boolean_mask: result ragged_rank is max(data.ragged_rank, rank(mask) - 1)") {
  const auto dense = ragged::tensor<int>({{1, 2}, {3, 4}});
  const auto r1 = ragged::boolean_mask(dense, ragged::tensor<bool>({F, T}));
  CHECK(r1.ragged_rank() == 0);
  CHECK(r1.flat_values() == ragged::tensor<int>({{3, 4}}));
  CHECK(ragged::boolean_mask(dense, ragged::tensor<bool>({{F, T}, {T, T}})).ragged_rank() == 1);
  const auto rt = ragged::constant<int>({{{1}, {2, 3}}, {{4}}});
  CHECK(ragged::boolean_mask(rt, ragged::tensor<bool>({T, F})).ragged_rank() == 2);
  CHECK(ragged::boolean_mask(rt, ragged::constant<bool>({{T, F}, {T}})).ragged_rank() == 2);
  CHECK(ragged::boolean_mask(rt, ragged::constant<bool>({{{T}, {F, T}}, {{F}}})).ragged_rank() ==
        2);
  CHECK(ragged::boolean_mask(rt, ragged::constant<bool>({{{T}, {F, T}}, {{F}}})).rank() == 3);
}

struct Case {
  const char* name;
  const char* data;
  int data_rr;  // -1: dense Tensor
  const char* mask;
  int mask_rr;  // -1: dense Tensor
  const char* expected;
};

TEST_CASE("ragged boolean_mask: every combination of dense and ragged") {
  const Case cases[] = {
      // data ragged_rank 0 (dense)
      {"dense 1-D, 1-D mask", "[1, 2, 3]", -1, "[True, False, True]", -1, "[1, 3]"},
      {"dense 2-D, 1-D mask: rows", "[[1, 2], [3, 4], [5, 6]]", -1, "[False, True, True]", -1,
       "[[3, 4], [5, 6]]"},
      {"dense 3-D, 2-D mask", "[[[1, 2], [3, 4]], [[5, 6], [7, 8]]]", -1,
       "[[True, False], [True, True]]", -1, "[[[1, 2]], [[5, 6], [7, 8]]]"},
      {"dense 3-D, 3-D mask", "[[[1, 2], [3, 4]], [[5, 6], [7, 8]]]", -1,
       "[[[True, False], [False, False]], [[True, True], [False, True]]]", -1,
       "[[[1], []], [[5, 6], [8]]]"},
      {"dense 2-D, ragged mask with equal rows", "[[1, 2], [3, 4]]", -1,
       "[[True, False], [False, True]]", 1, "[[1], [4]]"},
      {"dense 3-D, ragged 3-D mask", "[[[1, 2]], [[3, 4]]]", -1,
       "[[[False, True]], [[True, True]]]", 2, "[[[2]], [[3, 4]]]"},
      // data ragged_rank 1
      {"ragged 2-D, ragged mask", "[[1, 2, 3], [4], [5, 6]]", 1,
       "[[False, False, True], [False], [True, True]]", 1, "[[3], [], [5, 6]]"},
      {"ragged 2-D, 1-D mask: rows", "[[1, 2, 3], [4], [5, 6]]", 1, "[True, False, True]", -1,
       "[[1, 2, 3], [5, 6]]"},
      {"ragged with uniform rows, dense 2-D mask", "[[1, 2], [3, 4]]", 1,
       "[[True, False], [True, True]]", -1, "[[1], [3, 4]]"},
      {"[4, None, 2], [4] mask", "[[[1, 2], [3, 4]], [], [[5, 6]], [[7, 8]]]", 1,
       "[True, True, False, True]", -1, "[[[1, 2], [3, 4]], [], [[7, 8]]]"},
      {"[4, None, 2], [4, None] mask", "[[[1, 2], [3, 4]], [], [[5, 6]], [[7, 8]]]", 1,
       "[[False, True], [], [True], [False]]", 1, "[[[3, 4]], [], [[5, 6]], []]"},
      {"beyond TF: [2, None, 2] with a [2, None, None] mask", "[[[1, 2], [3, 4]], [[5, 6]]]", 1,
       "[[[True, False], [False, True]], [[True, True]]]", 2, "[[[1], [4]], [[5, 6]]]"},
      // data ragged_rank 2
      {"ragged_rank 2, 1-D mask", "[[[1], [2, 3]], [], [[4, 5, 6]]]", 2, "[False, True, True]", -1,
       "[[], [[4, 5, 6]]]"},
      {"ragged_rank 2, 2-D mask: nested rows", "[[[1], [2, 3]], [], [[4, 5, 6], []]]", 2,
       "[[True, False], [], [False, True]]", 1, "[[[1]], [], [[]]]"},
      {"ragged_rank 2, 3-D mask", "[[[1], [2, 3]], [], [[4, 5, 6]]]", 2,
       "[[[True], [False, True]], [], [[False, True, True]]]", 2, "[[[1], [3]], [], [[5, 6]]]"},
      // data ragged_rank 3
      {"ragged_rank 3, 1-D mask", "[[[[1], [2, 3]]], [[[4]], []], [[[5, 6]]]]", 3,
       "[True, False, True]", -1, "[[[[1], [2, 3]]], [[[5, 6]]]]"},
      {"ragged_rank 3, 2-D mask", "[[[[1], [2, 3]]], [[[4]], []], [[[5, 6]]]]", 3,
       "[[False], [True, True], [True]]", 1, "[[], [[[4]], []], [[[5, 6]]]]"},
      {"ragged_rank 3, 4-D mask", "[[[[1], [2, 3]]], [[[4]], []]]", 3,
       "[[[[False], [True, False]]], [[[True]], []]]", 3, "[[[[], [2]]], [[[4]], []]]"},
      // empty data, empty rows, all-true, all-false
      {"empty rows", "[[], [], []]", 1, "[[], [], []]", 1, "[[], [], []]"},
      {"no rows", "[]", -1, "[]", -1, "[]"},
      {"all true", "[[1, 2], [3]]", 1, "[[True, True], [True]]", 1, "[[1, 2], [3]]"},
      {"all false", "[[1, 2], [3]]", 1, "[[False, False], [False]]", 1, "[[], []]"},
      {"all rows dropped", "[[1, 2], [3]]", 1, "[False, False]", -1, "[]"},
  };
  for (const auto& c : cases) {
    INFO(c.name << ": data " << c.data << ", mask " << c.mask);
    CHECK(mask_text(c.data, c.data_rr, c.mask, c.mask_rr) == c.expected);
  }
}

TEST_CASE("ragged boolean_mask: uniform inner dims are carried through") {
  const auto rt = RaggedTensor<int>::from_row_lengths(
      ragged::tensor<int>({{1, 2}, {3, 4}, {5, 6}, {7, 8}}), {2, 0, 1, 1});
  const auto out = ragged::boolean_mask(rt, ragged::constant<bool>({{T, F}, {}, {T}, {F}}));
  CHECK(out.shape() == ragged::PartialShape{4, std::nullopt, 2});
  CHECK(out.flat_values() == ragged::tensor<int>({{1, 2}, {5, 6}}));
}

TEST_CASE("ragged boolean_mask: errors name the shapes or the split") {
  check_throws<ragged::shape_error>(
      [] {
        (void)ragged::boolean_mask(ragged::tensor<int>({1, 2}), ragged::tensor<bool>(T));
      },
      {"mask cannot be scalar"});
  check_throws<ragged::shape_error>(
      [] {
        (void)ragged::boolean_mask(ragged::tensor<int>({1, 2}),
                                   ragged::tensor<bool>({{T, F}, {T, F}}));
      },
      {"rank 2", "rank 1", "prefix"});
  check_throws<ragged::shape_error>(
      [] {
        (void)ragged::boolean_mask(ragged::tensor<int>({{1, 2}}),
                                   ragged::tensor<bool>({{T, F, T}}));
      },
      {"mask shape (1, 3) is not a prefix of data shape (1, 2)"});
  check_throws<ragged::shape_error>(
      [] {
        (void)ragged::boolean_mask(ragged::tensor<int>({1, 2, 3}), ragged::tensor<bool>({T, F}));
      },
      {"mask shape (2) is not a prefix of data shape (3)"});
  check_throws<ragged::shape_error>(
      [] {
        (void)ragged::boolean_mask(ragged::constant<int>({{1, 2, 3}, {4}}),
                                   ragged::constant<bool>({{T, F}, {F, T}}));
      },
      {"mask and data must have identical row splits",
       "nested_row_splits[0][1] is 2 in the mask but 3 in the data"});
  // Splits that differ only in the last entry.
  check_throws<ragged::shape_error>(
      [] {
        (void)ragged::boolean_mask(ragged::constant<int>({{1}, {2, 3}}),
                                   ragged::constant<bool>({{T}, {F, T, T}}));
      },
      {"identical row splits", "[0][2] is 4 in the mask but 3 in the data"});
  // A dense mask on ragged data whose rows are not all that long.
  check_throws<ragged::shape_error>(
      [] {
        (void)ragged::boolean_mask(ragged::constant<int>({{1, 2}, {3}}),
                                   ragged::tensor<bool>({{T, F}, {F, T}}));
      },
      {"identical row splits", "(2, 2)", "(2, None)"});
  check_throws<ragged::shape_error>(
      [] {
        (void)ragged::boolean_mask(ragged::constant<int>({{1, 2}, {3}}),
                                   ragged::tensor<bool>({T, F, T}));
      },
      {"mask shape (3) is not a prefix of data shape (2, None)"});
  check_throws<ragged::shape_error>(
      [] {
        (void)ragged::boolean_mask(ragged::constant<int>({{{1, 2}}, {{3, 4}}}, 1),
                                   ragged::constant<bool>({{{T}}, {{F}}}));
      },
      {"identical row splits"});
}

TEST_CASE("dense boolean_mask with an axis, negative axes, and errors") {
  const auto t =
      ragged::tensor<int>({{{1, 2, 3}, {4, 5, 6}}, {{7, 8, 9}, {10, 11, 12}}});  // (2, 2, 3)
  CHECK(ragged::boolean_mask(t, ragged::tensor<bool>({F, T, T}), 2) ==
        ragged::tensor<int>({{{2, 3}, {5, 6}}, {{8, 9}, {11, 12}}}));
  CHECK(ragged::boolean_mask(t, ragged::tensor<bool>({F, T, T}), -1) ==
        ragged::boolean_mask(t, ragged::tensor<bool>({F, T, T}), 2));
  CHECK(ragged::boolean_mask(t, ragged::tensor<bool>({{T, F}, {F, T}}), 0) ==
        ragged::tensor<int>({{1, 2, 3}, {10, 11, 12}}));
  // axis = rank - K
  CHECK(ragged::boolean_mask(t, ragged::tensor<bool>({{T, F, F}, {F, F, T}}), 1) ==
        ragged::tensor<int>({{1, 6}, {7, 12}}));
  CHECK(ragged::boolean_mask(t, ragged::tensor<bool>({{T, F, F}, {F, F, T}}), -2) ==
        ragged::tensor<int>({{1, 6}, {7, 12}}));
  CHECK(ragged::boolean_mask(t,
                             ragged::tensor<bool>({{{T, F, F}, {F, F, T}}, {{F, F, F}, {F, T, F}}}),
                             0) == ragged::tensor<int>({1, 6, 11}));
  CHECK(ragged::boolean_mask(t, ragged::tensor<bool>({F, F}), 1).shape() == ragged::Shape{2, 0, 3});
  check_throws<ragged::shape_error>(
      [&] { (void)ragged::boolean_mask(t, ragged::tensor<bool>(T), 0); },
      {"mask cannot be scalar"});
  check_throws<ragged::shape_error>(
      [&] {
        (void)ragged::boolean_mask(t, ragged::tensor<bool>({T, F}), 3);
      },
      {"axis 3", "(2)", "(2, 2, 3)"});
  check_throws<ragged::shape_error>(
      [&] {
        (void)ragged::boolean_mask(t, ragged::tensor<bool>({{T, F, T}}), -1);
      },
      {"axis -1", "(1, 3)", "(2, 2, 3)"});
  check_throws<ragged::shape_error>(
      [&] {
        (void)ragged::boolean_mask(t, ragged::tensor<bool>({T, F, T}), 1);
      },
      {"mask shape (3) does not match tensor shape (2, 2, 3) at axis 1", "expected (2)"});
  // A RaggedTensor with ragged_rank 0 is accepted as a dense tensor; other ragged_ranks are not.
  const auto rr0 =
      ragged::boolean_mask(ragged::tensor<int>({1, 2, 3}), ragged::tensor<bool>({T, T, F}));
  CHECK(ragged::boolean_mask(rr0, ragged::tensor<bool>({F, T}), 0) == ragged::tensor<int>({2}));
  check_throws<ragged::shape_error>(
      [] {
        (void)ragged::boolean_mask(ragged::constant<int>({{1}, {2}}), ragged::tensor<bool>({T, F}),
                                   0);
      },
      {"needs a dense tensor", "ragged_rank 1"});
}

TEST_CASE("writing into a reused result keeps its buffers") {
  const auto data = ragged::tensor<int>({1, 2, 3, 4, 5, 6, 7, 8});
  Tensor<int> out;
  ragged::boolean_mask_to(out, data, ragged::tensor<bool>({T, T, T, T, T, T, T, F}), 0);
  const int* first = out.data();
  ragged::boolean_mask_to(out, data, ragged::tensor<bool>({F, T, F, F, F, F, T, F}), 0);
  CHECK(out == ragged::tensor<int>({2, 7}));
  CHECK(out.data() == first);
  RaggedTensor<int> rout;
  const auto rt = ragged::constant<int>({{1, 2, 3}, {4}, {5, 6}});
  ragged::boolean_mask_to(rout, rt, ragged::constant<bool>({{T, T, T}, {T}, {T, F}}));
  const int* rfirst = rout.flat_values().data();
  ragged::boolean_mask_to(rout, rt, ragged::constant<bool>({{F, F, T}, {F}, {T, T}}));
  CHECK(ragged::to_string(rout) == "[[3], [], [5, 6]]");
  CHECK(rout.flat_values().data() == rfirst);
  // The same result object may change ragged_rank between calls.
  ragged::boolean_mask_to(rout, rt, ragged::tensor<bool>({T, F, T}));
  CHECK(ragged::to_string(rout) == "[[1, 2, 3], [5, 6]]");
}

TEMPLATE_TEST_CASE("boolean_mask for every value type", "", std::int8_t, std::int32_t, std::int64_t,
                   float, double, bool, std::string) {
  const auto v = ragged_test::sample_values<TestType>(6);
  const Tensor<TestType> flat(ragged::Shape{6}, v);
  const auto rt = RaggedTensor<TestType>::from_row_lengths(flat, {3, 0, 1, 2});
  const auto out = ragged::boolean_mask(rt, ragged::constant<bool>({{T, F, T}, {}, {F}, {T, T}}));
  CHECK(out == RaggedTensor<TestType>::from_row_lengths(
                   Tensor<TestType>(ragged::Shape{4}, {v[0], v[2], v[4], v[5]}), {2, 0, 0, 2}));
  const auto rows = ragged::boolean_mask(rt, ragged::tensor<bool>({T, F, F, T}));
  CHECK(rows == RaggedTensor<TestType>::from_row_lengths(
                    Tensor<TestType>(ragged::Shape{5}, {v[0], v[1], v[2], v[4], v[5]}), {3, 2}));
  const auto dense = ragged::boolean_mask(flat.reshaped(ragged::Shape{2, 3}),
                                          ragged::tensor<bool>({{F, T, T}, {T, F, F}}), 0);
  CHECK(dense == Tensor<TestType>(ragged::Shape{3}, {v[1], v[2], v[3]}));
}
