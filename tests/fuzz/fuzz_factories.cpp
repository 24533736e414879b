// Fuzz target: the factories fed arbitrary splits, row ids and lengths with
// validation on or off; zero-size shapes with huge dims through every
// operation; Literal trees of any depth through constant() and back through
// the text form. Every invalid input throws shape_error (or std::bad_alloc for
// a result no memory could hold); every accepted one is a valid tensor.
#include <ragged/ragged.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <optional>
#include <stdexcept>
#include <vector>

namespace {

template <class Index>
std::vector<Index> read_indices(const std::uint8_t*& p, const std::uint8_t* end,
                                std::size_t count) {
  std::vector<Index> v;
  for (std::size_t i = 0; i < count && p + sizeof(Index) <= end; ++i, p += sizeof(Index)) {
    Index x;
    std::memcpy(&x, p, sizeof x);
    // Mostly small values, so that valid inputs are found; sometimes raw ones.
    if (x % 8 != 0) x = static_cast<Index>(x % 16);
    v.push_back(x);
  }
  return v;
}

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "accepted an invalid tensor: %s\n", what);
  std::abort();
}

template <class Index>
void check_valid(const ragged::RaggedTensor<int, Index>& rt) {
  std::int64_t below = rt.flat_values().dim(0);
  const auto& nested = rt.nested_row_splits();
  for (std::size_t l = nested.size(); l-- > 0;) {
    const auto s = nested[l].values();
    if (s.empty() || s[0] != 0 || s.back() != below) fail("splits do not span the values");
    for (std::size_t i = 1; i < s.size(); ++i)
      if (s[i] < s[i - 1]) fail("decreasing splits");
    below = static_cast<std::int64_t>(s.size()) - 1;
  }
  if (rt.nrows() != below) fail("nrows");
  (void)ragged::to_string(rt);
  if (rt.flat_values().size() < 4096) (void)rt.to_tensor(0);
}

// The number of lists to_string would print for a shape: the product of the
// dims before the first zero (a (2^62, 0) tensor prints 2^62 empty lists).
std::int64_t printed_lists(const ragged::Shape& s) {
  std::int64_t n = 1;
  for (const auto d : s) {
    if (d == 0 || n > 4096) break;
    n = d > 4096 ? 4097 : n * d;
  }
  return n;
}

// Shapes of dims 0, 1, 3, 2^62 and INT64_MAX: mostly zero-size, and every
// product that must be counted or allocated either fits or is refused.
void huge_dims(const std::uint8_t* p, const std::uint8_t* end) {
  if (end - p < 3) return;
  constexpr std::int64_t dims_of[] = {0, 1, 3, std::int64_t{1} << 62,
                                      std::numeric_limits<std::int64_t>::max()};
  const int rank = 1 + p[0] % 4;
  const int k = 1 + p[1] % rank;
  const auto rr = static_cast<std::int64_t>(p[2] % rank);
  p += 3;
  std::vector<std::int64_t> dims;
  for (int d = 0; d < rank; ++d) dims.push_back(dims_of[p < end ? *p++ % 5 : 0]);
  try {
    const ragged::Shape shape{std::vector<std::int64_t>(dims)};
    if (shape.num_elements() > 4096) return;
    const auto t = ragged::Tensor<int>::filled(shape, 1);
    const ragged::Shape mshape{std::vector<std::int64_t>(dims.begin(), dims.begin() + k)};
    if (mshape.num_elements() > 4096) return;
    const auto m = ragged::Tensor<bool>::filled(mshape, true);
    const auto dense = ragged::boolean_mask(t, m, 0);
    if (dense.dim(0) != m.size()) fail("dense boolean_mask lost entries");
    if (printed_lists(dense.shape()) <= 4096) (void)ragged::to_string(dense);
    if (printed_lists(shape) <= 4096) (void)ragged::to_string(t);
    try {
      const auto kept = ragged::boolean_mask(t, m);
      if (kept.flat_values().size() != t.size()) fail("ragged boolean_mask lost entries");
    } catch (const std::bad_alloc&) {
    }
    if (rank > 1) {
      const auto rt = ragged::RaggedTensor<int>::from_tensor(t, std::nullopt, std::nullopt,
                                                             std::min<std::int64_t>(rr, rank - 1));
      if (rt.flat_values().size() != t.size()) fail("from_tensor lost entries");
    }
  } catch (const ragged::shape_error&) {
  } catch (const std::bad_alloc&) {
  }
}

// A Literal built from bytes: push a value, or wrap the last few items in a
// list (as deep as the bytes say, past the depth limit too).
void literals(const std::uint8_t* p, const std::uint8_t* end) {
  std::vector<ragged::Literal<int>> stack;
  try {
    for (; p < end; ++p) {
      const auto take = static_cast<std::size_t>(*p % 4);
      if (*p < 96 || stack.size() < take) {
        stack.emplace_back(static_cast<int>(*p));
      } else {
        std::vector<ragged::Literal<int>> items(stack.end() - static_cast<std::ptrdiff_t>(take),
                                                stack.end());
        stack.erase(stack.end() - static_cast<std::ptrdiff_t>(take), stack.end());
        stack.push_back(ragged::Literal<int>::list(std::move(items)));
      }
    }
  } catch (const ragged::shape_error&) {
    return;  // deeper than the limit: refused while building
  }
  if (stack.empty()) return;
  std::optional<ragged::Literal<int>> wrapped;
  try {
    wrapped = ragged::Literal<int>::list(std::move(stack));
  } catch (const ragged::shape_error&) {
    return;  // the outer list is one level too many
  }
  const auto& root = *wrapped;
  for (const std::int64_t rr :
       {std::int64_t{-1}, std::int64_t{0}, std::int64_t{1}, std::int64_t{3}}) {
    try {
      const auto rt = ragged::constant<int>(root, rr < 0 ? std::nullopt : std::optional(rr));
      const auto text = ragged::to_string(rt);
      if (!(ragged::parse<int>(text, rt.ragged_rank()) == rt)) fail("literal round trip");
    } catch (const ragged::shape_error&) {
    }
    try {
      (void)ragged::tensor<int>(root);
    } catch (const ragged::shape_error&) {
    }
  }
}

template <class Index>
void run(const std::uint8_t* p, const std::uint8_t* end) {
  using RT = ragged::RaggedTensor<int, Index>;
  if (end - p < 3) return;
  const int which = p[0] % 12;
  const auto nvalues = static_cast<std::int64_t>(p[1] % 32);
  const auto count = static_cast<std::size_t>(p[2] % 16);
  p += 3;
  const auto values = ragged::Tensor<int>(ragged::Shape{nvalues},
                                          std::vector<int>(static_cast<std::size_t>(nvalues), 7));
  if (which == 10) return huge_dims(p, end);
  if (which == 11) return literals(p, end);
  const auto a = read_indices<Index>(p, end, count);
  const auto b = read_indices<Index>(p, end, count);
  try {
    switch (which) {
      case 0:
        check_valid(RT::from_row_splits(values, a));
        break;
      case 1:
        check_valid(RT::from_row_lengths(values, a));
        break;
      case 2:
        check_valid(RT::from_value_rowids(values, a, static_cast<std::int64_t>(count)));
        break;
      case 3:
        check_valid(RT::from_row_starts(values, a));
        break;
      case 4:
        check_valid(RT::from_row_limits(values, a));
        break;
      case 5:
        check_valid(RT::from_uniform_row_length(values, a.empty() ? 0 : a[0],
                                                static_cast<std::int64_t>(count)));
        break;
      case 6:
        check_valid(RT::from_nested_row_splits(values, {a, b}));
        break;
      case 7:
        check_valid(RT::from_nested_row_lengths(values, {a, b}));
        break;
      case 8:
        check_valid(RT::from_row_splits(RT::from_row_lengths(values, b), a));
        break;
      default: {
        // validate = false: whatever indexes through bad splits must refuse
        // them first (to_string, rows, to_tensor, boolean_mask), never read
        // out of bounds.
        const auto rt = RT::from_row_splits(values, a, false);
        const auto mask = ragged::Tensor<bool>::filled(ragged::Shape{rt.nrows()}, true);
        const auto attempt = [](auto&& f) {
          try {
            f();
          } catch (const ragged::shape_error&) {
          } catch (const std::out_of_range&) {
          }
        };
        attempt([&] { (void)ragged::to_string(rt); });
        attempt([&] { (void)rt[0]; });
        attempt([&] { (void)rt.to_tensor(0); });
        attempt([&] { (void)rt.value_rowids(); });
        attempt([&] { (void)ragged::boolean_mask(rt, mask); });
        rt.validate();  // throws for invalid splits; the valid ones must be fully valid
        check_valid(rt);
        break;
      }
    }
  } catch (const ragged::shape_error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  if (data[0] & 1)
    run<std::int32_t>(data + 1, data + size);
  else
    run<std::int64_t>(data + 1, data + size);
  return 0;
}
