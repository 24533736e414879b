// Fuzz target: random Arrow arrays (lists, large lists and fixed-size lists
// nested up to four deep over int32 values or booleans, with array and child
// offsets, validity bitmaps and null counts), often broken in one field, fed
// to import_view and import_mask. Buffers are exactly as long as a valid
// array needs, so AddressSanitizer sees any read past them. Every broken
// array must be an arrow_error; every accepted one is read whole.
#include <ragged/arrow.hpp>
#include <ragged/format.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "../arrow_builder.hpp"
#include "../random_tensors.hpp"

namespace {

using arrow_test::Node;

// A random validity bitmap (or none) for `n` physical entries.
void maybe_validity(reference::Choices& c, Node& node, std::int64_t n) {
  if (!c.chance(25)) return;
  std::vector<int> valid(static_cast<std::size_t>(n));
  for (auto& v : valid) v = c.chance(85);
  node.buffers[0] = arrow_test::bitmap(valid);
  node.null_buffer[0] = false;
  node.null_count = c.chance(50) ? -1 : c.pick(0, 3);
}

// A node of logical length `length` (plus unused entries before and after).
std::unique_ptr<Node> make(reference::Choices& c, int depth, std::int64_t length, bool mask,
                           bool large) {
  const std::int64_t offset = c.pick(0, 3), tail = c.pick(0, 2);
  const auto physical = offset + length + tail;
  const int kind = depth >= 4 ? 0 : c.pick(0, 3);  // 0 leaf, 1-2 list, 3 fixed-size list
  std::unique_ptr<Node> n;
  if (kind == 0) {
    if (mask) {
      std::vector<int> bits(static_cast<std::size_t>(physical));
      for (auto& b : bits) b = c.chance(50);
      n = arrow_test::booleans(bits);
      n->length = physical;
      n->null_buffer[0] = true;
      n->buffers[0].clear();
    } else {
      std::vector<std::int32_t> values(static_cast<std::size_t>(physical));
      for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<std::int32_t>(i);
      n = arrow_test::primitive(values);
    }
  } else if (kind == 3) {
    const std::int64_t size = c.pick(0, 3);
    n = arrow_test::fixed_list(size, physical, make(c, depth + 1, physical * size, mask, large));
  } else {
    std::vector<std::int64_t> offsets{c.pick(0, 3)};
    for (std::int64_t i = 0; i < physical; ++i) offsets.push_back(offsets.back() + c.pick(0, 4));
    auto child = make(c, depth + 1, offsets.back(), mask, large);
    if (large) {
      n = arrow_test::list<std::int64_t>(offsets, std::move(child));
    } else {
      n = arrow_test::list<std::int32_t>(std::vector<std::int32_t>(offsets.begin(), offsets.end()),
                                         std::move(child));
    }
  }
  // The child's own offset shifts its logical entries: give it entries before them.
  n->offset = 0;
  n->length = physical;
  maybe_validity(c, *n, physical);
  if (offset || tail) {
    n->offset = offset;
    n->length = length;
  }
  return n;
}

// Breaks one field of one node, in a way the importer can see (the C
// interface carries no buffer sizes, so lengths are only ever made smaller).
void break_one(reference::Choices& c, Node& top) {
  Node* n = &top;
  for (int d = c.pick(0, 4); d > 0 && !n->children.empty(); --d) n = n->children[0].get();
  switch (c.pick(0, 11)) {
    case 0:
      n->length = -c.pick(1, 3);
      break;
    case 1:
      n->offset = -c.pick(1, 3);
      break;
    case 2:
      if (n->length > 0)
        n->length -= c.pick(1, static_cast<int>(std::min<std::int64_t>(n->length, 3)));
      break;
    case 3:
      if (!n->buffers.empty()) {
        n->buffers.pop_back();
        n->null_buffer.pop_back();
      }
      break;
    case 4:
      if (!n->null_buffer.empty()) n->null_buffer.back() = true;
      break;
    case 5: {
      static const char* formats[] = {
          "+s",    "u",  "i",  "b", "l",  "+w:", "+w:99999999999999999999",
          "+w:-1", "+l", "+L", "",  "+vl"};
      n->format = formats[c.pick(0, 11)];
      break;
    }
    case 6:
      n->children.clear();
      break;
    case 7:
      n->null_count = c.pick(-3, 5);
      break;
    case 8:  // an offset entry changed (offsets are 4 or 8 bytes; the first byte is enough)
      if (n->format[0] == '+' && n->format[1] != 'w' && n->buffers.size() > 1 &&
          !n->buffers[1].empty()) {
        auto& b = n->buffers[1];
        b[static_cast<std::size_t>(c.pick(0, static_cast<int>(b.size()) - 1))] =
            static_cast<std::uint8_t>(c.pick(0, 255));
      }
      break;
    case 9: {  // a slice further in, the length smaller by as much: still in bounds
      const int k = c.pick(1, 2);
      if (n->length >= k) {
        n->offset += k;
        n->length -= k;
      }
      break;
    }
    default:
      break;  // no change: a valid array
  }
}

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "%s\n", what.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  arrow_test::buffer_slack = 0;
  reference::Choices c(data + 1, size - 1);
  const bool mask = data[0] & 1, large = data[0] & 2, broken = data[0] & 4;
  auto top = make(c, 0, c.pick(0, 12), mask, large);
  if (broken) break_one(c, *top);
  top->link();
  try {
    if (mask) {
      // Read every entry the mask reaches, two ways.
      const auto read_all = [](const auto& imported) {
        const auto& f = imported.view().flat_values();
        std::int64_t ones = 0;
        for (std::int64_t i = 0; i < f.size(); ++i) ones += f.at(i);
        if (ones + imported.null_count() < ragged::kernel::count(f.data(), f.size()) ||
            ones != ragged::kernel::count(f.data(), f.size()))
          fail("the mask's count differs from its entries");
      };
      if (large)
        read_all(ragged::arrow::import_mask<std::int64_t>(top->schema, top->array));
      else
        read_all(ragged::arrow::import_mask<std::int32_t>(top->schema, top->array));
    } else if (large) {
      (void)ragged::to_string(ragged::arrow::import_view<std::int32_t>(top->schema, top->array));
    } else {
      (void)ragged::to_string(
          ragged::arrow::import_view<std::int32_t, std::int32_t>(top->schema, top->array));
    }
  } catch (const ragged::arrow::arrow_error&) {
    // A rejected array: the expected outcome for a broken one.
  } catch (const std::exception& e) {
    fail(std::string("an exception other than arrow_error: ") + e.what());
  }
  return 0;
}
