// Arrow C Data Interface in and out: imports are views (no copy), exports
// move the result's buffers, and malformed arrays are errors, not reads out
// of bounds.
#include <ragged/arrow.hpp>
#include <ragged/boolean_mask.hpp>
#include <ragged/format.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "arrow_builder.hpp"
#include "catch.hpp"

using arrow_test::booleans;
using arrow_test::fixed_list;
using arrow_test::list;
using arrow_test::Node;
using arrow_test::primitive;
using ragged::arrow::arrow_error;
using ragged::arrow::import_mask;
using ragged::arrow::import_view;
using ragged_test::check_throws;

namespace {
// A node linked and ready to read.
Node& ready(const std::unique_ptr<Node>& n) {
  n->link();
  return *n;
}
}  // namespace

TEST_CASE("import_view: a list array as a RaggedTensorView over Arrow's own buffers") {
  // [[1, 2], [], [3, 4, 5]] in an int32 list array.
  const auto n = list<std::int32_t>({0, 2, 2, 5}, primitive<int>({1, 2, 3, 4, 5}));
  auto& a = ready(n);
  const auto v = import_view<int, std::int32_t>(a.schema, a.array);
  CHECK(ragged::to_string(v) == "[[1, 2], [], [3, 4, 5]]");
  // No copy: the view reads the producer's buffers.
  CHECK(static_cast<const void*>(v.flat_values().data()) == a.children[0]->buffers[1].data());
  CHECK(static_cast<const void*>(v.partitions()[0].row_splits().data()) == a.buffers[1].data());
}

TEST_CASE("import_view honours array and child offsets (sliced arrays) and large lists") {
  // The parent is sliced (offset 1: rows 1..2 of [[9], [1, 2], [3]]), and so is the child
  // (offset 2: its entries start at the third value).
  const auto n = list<std::int64_t>({0, 1, 3, 4}, primitive<double>({-1, -1, 9, 1, 2, 3}, 2), 1);
  auto& a = ready(n);
  CHECK(a.array.length == 2);
  const auto v = import_view<double>(a.schema, a.array);
  CHECK(ragged::to_string(v) == "[[1.0, 2.0], [3.0]]");
  const auto m = booleans({1, 0, 1, 1, 1}, 5);  // child-aligned: one entry per value of the child
  // The mask is a list of booleans over the same splits, itself sliced by 1.
  const auto mn = list<std::int64_t>({0, 1, 3, 4}, booleans({1, 0, 1, 1}, 3), 1);
  auto& ma = ready(mn);
  const auto mask = import_mask(ma.schema, ma.array);
  CHECK(ragged::to_string(ragged::boolean_mask(v, mask.view())) == "[[2.0], [3.0]]");
  (void)m;
}

TEST_CASE("nested lists, fixed-size lists and flat arrays") {
  // list<list<int>>: [[[1], [2, 3]], [[4]]]
  const auto nested =
      list<std::int32_t>({0, 2, 3}, list<std::int32_t>({0, 1, 3, 4}, primitive<int>({1, 2, 3, 4})));
  auto& a = ready(nested);
  const auto v = import_view<int, std::int32_t>(a.schema, a.array);
  CHECK(v.ragged_rank() == 2);
  CHECK(ragged::to_string(v) == "[[[1], [2, 3]], [[4]]]");
  // list<fixed_size_list<int, 2>>: a uniform inner dim of the flat values, shape (2, None, 2).
  const auto inner =
      list<std::int32_t>({0, 1, 3}, fixed_list(2, 3, primitive<int>({1, 2, 3, 4, 5, 6})));
  auto& b = ready(inner);
  const auto w = import_view<int, std::int32_t>(b.schema, b.array);
  CHECK(w.ragged_rank() == 1);
  CHECK(w.flat_values().shape() == ragged::Shape{3, 2});
  CHECK(ragged::to_string(w) == "[[[1, 2]], [[3, 4], [5, 6]]]");
  // fixed_size_list<list<int>, 2>, sliced by one row: a uniform partition above a list.
  const auto outer =
      fixed_list(2, 1, list<std::int32_t>({0, 1, 1, 2, 4}, primitive<int>({7, 8, 9, 10})), 1);
  auto& c = ready(outer);
  const auto u = import_view<int, std::int32_t>(c.schema, c.array);
  CHECK(u.ragged_rank() == 2);
  CHECK(ragged::to_string(u) == "[[[8], [9, 10]]]");
  // A flat array: ragged_rank 0, tf.boolean_mask's dense tensor; a flat bit mask from bit 3.
  const auto flat = primitive<std::int64_t>({5, 6, 7, 8, 9}, 1);
  auto& d = ready(flat);
  const auto f = import_view<std::int64_t>(d.schema, d.array);
  CHECK(f.ragged_rank() == 0);
  const auto mn = booleans({1, 0, 0, 1}, 3);
  auto& m = ready(mn);
  const auto mask = import_mask(m.schema, m.array);
  CHECK(ragged::to_string(ragged::boolean_mask(f, mask.view(), 0)) == "[6, 9]");
}

TEST_CASE("null mask entries count as false; nulls in data are rejected, naming count and place") {
  const auto mn = booleans({1, 1, 0, 1, 1}, 2, {1, 0, 1, 1, 0});
  auto& m = ready(mn);
  const auto mask = import_mask(m.schema, m.array);
  CHECK(mask.null_count() == 2);
  const auto data = ragged::tensor<int>({10, 11, 12, 13, 14});
  CHECK(ragged::to_string(ragged::boolean_mask(data, mask.view().flat_values(), 0)) == "[10, 13]");
  // A null value in the data.
  const auto dn = primitive<int>({1, 2, 3, 4});
  dn->buffers[0] = arrow_test::bitmap({1, 1, 0, 1});
  dn->null_buffer = {false, false};
  dn->null_count = 1;
  auto& d = ready(dn);
  check_throws<arrow_error>([&] { (void)import_view<int>(d.schema, d.array); },
                            {"1 null values (the first at position 2)", "not supported"});
  // A null list.
  const auto ln = list<std::int64_t>({0, 1, 1, 2}, primitive<int>({1, 2}));
  ln->buffers[0] = arrow_test::bitmap({1, 0, 1});
  ln->null_buffer = {false, false};
  ln->null_count = -1;  // unknown: counted from the bitmap
  auto& l = ready(ln);
  check_throws<arrow_error>([&] { (void)import_view<int>(l.schema, l.array); },
                            {"level 0: 1 null lists (the first at position 1)"});
}

TEST_CASE("the first null is found at any position, across words and offsets") {
  // One null among 5000 values, at either end of a 64-entry word or far in,
  // behind an array offset of 0 or 3: the error names its logical position;
  // in a mask, that entry reads false and is the one null counted.
  for (const std::int64_t offset : {0, 3}) {
    for (const std::int64_t at : {0, 62, 63, 64, 65, 127, 128, 1000, 4999}) {
      INFO("offset " << offset << ", null at " << at);
      std::vector<int> values(5000 + static_cast<std::size_t>(offset), 1);
      std::vector<int> valid(values.size(), 1);
      valid[static_cast<std::size_t>(offset + at)] = 0;
      const auto dn = primitive<int>(values, offset);
      dn->buffers[0] = arrow_test::bitmap(valid);
      dn->null_buffer = {false, false};
      dn->null_count = 1;
      auto& d = ready(dn);
      check_throws<arrow_error>(
          [&] { (void)import_view<int>(d.schema, d.array); },
          {"1 null values (the first at position " + std::to_string(at) + ")"});
      std::vector<int> bits(5000, 1), mask_valid(5000, 1);
      mask_valid[static_cast<std::size_t>(at)] = 0;
      const auto mn = booleans(bits, offset, mask_valid);
      auto& m = ready(mn);
      const auto mask = import_mask(m.schema, m.array);
      CHECK(mask.null_count() == 1);
      const auto flat = mask.view().flat_values();
      CHECK(ragged::kernel::count(flat.data(), flat.size()) == 4999);
      CHECK_FALSE(flat.data()[at]);
    }
  }
}

TEST_CASE("nulls outside every row of a sliced array are not the data's") {
  // The child's first two values are null, but the parent's offsets start at 2:
  // no row reaches them (a slice of a larger list array, as pyarrow makes).
  const auto n = list<std::int64_t>({2, 4, 5}, primitive<int>({0, 0, 7, 8, 9}));
  n->children[0]->buffers[0] = arrow_test::bitmap({0, 0, 1, 1, 1});
  n->children[0]->null_buffer = {false, false};
  n->children[0]->null_count = 2;
  auto& a = ready(n);
  CHECK(ragged::to_string(import_view<int>(a.schema, a.array)) == "[[7, 8], [9]]");
  // A mask likewise counts only the nulls its rows reach.
  const auto mn = list<std::int64_t>({2, 4, 5}, booleans({1, 1, 1, 0, 1}, 0, {0, 0, 1, 0, 1}));
  auto& m = ready(mn);
  const auto mask = import_mask(m.schema, m.array);
  CHECK(mask.null_count() == 1);
  CHECK(ragged::to_string(ragged::boolean_mask(import_view<int>(a.schema, a.array), mask.view())) ==
        "[[7], [9]]");
  // A null inside a row is still refused, at its position in the child.
  n->children[0]->buffers[0] = arrow_test::bitmap({1, 1, 1, 0, 1});
  auto& b = ready(n);
  check_throws<arrow_error>([&] { (void)import_view<int>(b.schema, b.array); },
                            {"1 null values (the first at position 3)"});
}

TEST_CASE("formats and index types that do not fit are named") {
  const auto n = list<std::int32_t>({0, 1}, primitive<float>({1.5f}));
  auto& a = ready(n);
  check_throws<arrow_error>([&] { (void)import_view<float>(a.schema, a.array); },
                            {"format '+l' has int32 offsets; import with Index = std::int32_t"});
  check_throws<arrow_error>([&] { (void)import_view<double, std::int32_t>(a.schema, a.array); },
                            {"level 1: format 'f' is not supported here (expected 'g' values"});
  const auto s = primitive<int>({1});
  s->format = "u";
  auto& u = ready(s);
  check_throws<arrow_error>([&] { (void)import_view<int>(u.schema, u.array); },
                            {"format 'u' is not supported"});
  check_throws<arrow_error>([&] { (void)import_mask(u.schema, u.array); }, {"expected 'b' values"});
}

TEST_CASE("malformed arrays are errors before anything is read") {
  const auto fresh = [] { return list<std::int64_t>({0, 2, 3}, primitive<int>({1, 2, 3})); };
  const auto expect = [](const std::unique_ptr<Node>& n, std::string_view words) {
    auto& a = ready(n);
    check_throws<arrow_error>([&] { (void)import_view<int>(a.schema, a.array); }, {words});
  };
  {
    auto n = fresh();
    n->length = -1;
    expect(n, "length = -1 is negative");
  }
  {
    auto n = fresh();
    n->offset = -3;
    expect(n, "offset = -3 is negative");
  }
  {
    auto n = fresh();
    n->buffers[1] = arrow_test::bytes_of(std::vector<std::int64_t>{0, 3, 2});
    expect(n, "level 0 offsets[2] = 2 is less than level 0 offsets[1] = 3");
  }
  {
    auto n = fresh();
    n->buffers[1] = arrow_test::bytes_of(std::vector<std::int64_t>{0, 2, 4});
    expect(n, "level 1: the level above reaches entry 4 but the array has length 3");
  }
  {
    auto n = fresh();
    n->buffers[1] = arrow_test::bytes_of(std::vector<std::int64_t>{-1, 2, 3});
    expect(n, "offsets[0] = -1 is negative");
  }
  {
    auto n = fresh();
    n->buffers.pop_back();
    n->null_buffer.pop_back();
    expect(n, "format '+L' needs 2 buffers, the array has 1");
  }
  {
    auto n = fresh();
    n->null_buffer = {true, true};
    expect(n, "the offsets buffer is null");
  }
  {
    auto n = fresh();
    n->children[0]->null_buffer = {true, true};
    expect(n, "level 1: the values buffer is null");
  }
  {
    auto n = fresh();
    n->children.clear();
    expect(n, "needs 1 child, the schema has 0 and the array 0");
  }
  {
    auto n = fresh();
    n->null_count = 2;
    expect(n, "null_count = 2 but no validity bitmap");
  }
  {
    auto n = fresh();
    auto& a = ready(n);
    a.array.release = nullptr;
    check_throws<arrow_error>([&] { (void)import_view<int>(a.schema, a.array); },
                              {"the array is released"});
    a.array.release = &Node::noop_array;
    ArrowSchema dict{};
    a.schema.dictionary = &dict;
    check_throws<arrow_error>([&] { (void)import_view<int>(a.schema, a.array); },
                              {"dictionary-encoded"});
    a.schema.dictionary = nullptr;
    a.array.children[0] = nullptr;
    check_throws<arrow_error>([&] { (void)import_view<int>(a.schema, a.array); },
                              {"level 0: a children pointer is null"});
  }
  {
    // 70 levels of nesting.
    auto n = primitive<int>({1});
    for (int i = 0; i < 70; ++i) n = list<std::int64_t>({0, 1}, std::move(n));
    expect(n, "nesting deeper than 64 levels");
  }
  {
    auto n = fixed_list(2, 3, primitive<int>({1, 2, 3, 4, 5}));
    expect(n, "level 1: the level above reaches entry 6 but the array has length 5");
  }
  {
    auto n = fixed_list(2, 1, primitive<int>({1, 2}));
    n->format = "+w:x";
    expect(n, "format '+w:x' is not supported");
  }
}

TEST_CASE("export_array moves the result's buffers into the ArrowArray: no copy, 64-byte aligned") {
  const auto n = list<std::int64_t>({0, 2, 2, 5}, primitive<int>({1, 2, 3, 4, 5}));
  auto& a = ready(n);
  const auto mn = list<std::int64_t>({0, 2, 2, 5}, booleans({1, 0, 1, 1, 0}));
  auto& m = ready(mn);
  const auto mask = import_mask(m.schema, m.array);
  auto result = ragged::boolean_mask(import_view<int>(a.schema, a.array), mask.view());
  const auto* values = result.flat_values().data();
  const auto* splits = result.row_splits().data();
  ArrowSchema schema;
  ArrowArray array;
  ragged::arrow::export_array(std::move(result), &schema, &array);
  CHECK(std::string(schema.format) == "+L");
  CHECK(std::string(schema.children[0]->format) == "i");
  CHECK(array.length == 3);
  CHECK(array.buffers[1] == splits);
  CHECK(array.children[0]->buffers[1] == values);
  CHECK(array.children[0]->length == 3);
  CHECK(reinterpret_cast<std::uintptr_t>(array.children[0]->buffers[1]) % 64 == 0);
  // What we export, we import: the same formats.
  const auto back = import_view<int>(schema, array);
  CHECK(ragged::to_string(back) == "[[1], [], [3, 4]]");
  // A consumer may move a child out and release it on its own (the spec allows it).
  ArrowArray child = *array.children[0];
  array.children[0]->release = nullptr;
  array.release(&array);
  CHECK(array.release == nullptr);
  CHECK(static_cast<const int*>(child.buffers[1])[2] == 4);  // still alive: shared ownership
  child.release(&child);
  schema.release(&schema);
  CHECK(schema.release == nullptr);
}

TEST_CASE("export_array of dense tensors, int32 splits, nested levels and empty results") {
  ArrowSchema s;
  ArrowArray a;
  ragged::arrow::export_array(ragged::tensor<double>({{1, 2, 3}, {4, 5, 6}}), &s, &a, "x");
  CHECK(std::string(s.format) == "+w:3");
  CHECK(std::string(s.name) == "x");
  CHECK(a.n_buffers == 1);
  CHECK(std::string(s.children[0]->format) == "g");
  CHECK(ragged::to_string(import_view<double>(s, a)) == "[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]");
  a.release(&a);
  s.release(&s);
  auto rt = ragged::constant<std::int8_t, std::int32_t>({{{1}, {}}, {}, {{2, 3}}});
  ragged::arrow::export_array(std::move(rt), &s, &a);
  CHECK(std::string(s.format) == "+l");
  CHECK(std::string(s.children[0]->format) == "+l");
  CHECK(std::string(s.children[0]->children[0]->format) == "c");
  CHECK(ragged::to_string(import_view<std::int8_t, std::int32_t>(s, a)) ==
        "[[[1], []], [], [[2, 3]]]");
  a.release(&a);
  s.release(&s);
  ragged::arrow::export_array(ragged::RaggedTensor<float>(), &s, &a);
  CHECK(a.length == 0);
  CHECK(a.children[0]->buffers[1] != nullptr);
  CHECK(import_view<float>(s, a).nrows() == 0);
  a.release(&a);
  s.release(&s);
  check_throws<ragged::shape_error>(
      [&] { ragged::arrow::export_array(ragged::Tensor<int>::filled(ragged::Shape{}, 1), &s, &a); },
      {"a scalar is not an array"});
}
