// Fuzz target: the factories fed arbitrary splits, row ids and lengths with
// validation on. Every invalid input throws shape_error; every accepted one
// is a valid tensor.
#include <ragged/ragged.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

template <class Index>
void run(const std::uint8_t* p, const std::uint8_t* end) {
  using RT = ragged::RaggedTensor<int, Index>;
  if (end - p < 3) return;
  const int which = p[0] % 9;
  const auto nvalues = static_cast<std::int64_t>(p[1] % 32);
  const auto count = static_cast<std::size_t>(p[2] % 16);
  p += 3;
  const auto values = ragged::Tensor<int>(ragged::Shape{nvalues},
                                          std::vector<int>(static_cast<std::size_t>(nvalues), 7));
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
      default:
        check_valid(RT::from_row_splits(RT::from_row_lengths(values, b), a));
        break;
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
