#include <ragged/kernel/compact.hpp>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "catch.hpp"

namespace {
// The plain definition, for comparison.
template <class T>
std::vector<T> expected_rows(const std::vector<T>& in, const std::vector<char>& mask,
                             std::int64_t inner) {
  std::vector<T> out;
  for (std::size_t r = 0; r < mask.size(); ++r)
    if (mask[r])
      for (std::int64_t j = 0; j < inner; ++j)
        out.push_back(in[r * static_cast<std::size_t>(inner) + static_cast<std::size_t>(j)]);
  return out;
}
}  // namespace

TEMPLATE_TEST_CASE("compact keeps the masked elements and rows and writes nothing past them", "",
                   std::int8_t, std::int16_t, std::int32_t, std::int64_t, float, double) {
  std::mt19937 rng(7);
  for (std::int64_t inner : {1, 2, 3, 17}) {
    for (std::int64_t n : {0, 1, 7, 8, 9, 63, 64, 65, 200}) {
      for (int density : {0, 50, 100}) {
        std::vector<TestType> in(static_cast<std::size_t>(n * inner));
        for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<TestType>(i % 100);
        std::vector<char> m(static_cast<std::size_t>(n));
        for (auto& b : m) b = static_cast<char>(static_cast<int>(rng() % 100) < density);
        auto mask = std::make_unique<bool[]>(m.size() + 1);
        for (std::size_t i = 0; i < m.size(); ++i) mask[i] = m[i] != 0;
        const auto want = expected_rows(in, m, inner);
        std::vector<TestType> out(want.size() + 16, static_cast<TestType>(99));
        const auto kept = ragged::kernel::compact(in.data(), mask.get(), n, out.data(), inner);
        INFO("n " << n << ", inner " << inner << ", density " << density);
        CHECK(kept * inner == static_cast<std::int64_t>(want.size()));
        CHECK(kept == ragged::kernel::count(mask.get(), n));
        CHECK(std::vector<TestType>(
                  out.begin(), out.begin() + static_cast<std::ptrdiff_t>(want.size())) == want);
        for (std::size_t i = want.size(); i < out.size(); ++i)
          CHECK(out[i] == static_cast<TestType>(99));
      }
    }
  }
}

TEST_CASE("compact moves non-trivial types") {
  const std::vector<std::string> in{"a", "bb", "ccc", "dddd"};
  const bool mask[] = {true, false, false, true};
  std::vector<std::string> out(2);
  CHECK(ragged::kernel::compact(in.data(), mask, 4, out.data()) == 2);
  CHECK(out == std::vector<std::string>{"a", "dddd"});
  std::vector<std::string> rows(2);
  CHECK(ragged::kernel::compact(in.data(), mask, 2, rows.data(), 2) == 1);
  CHECK(rows == std::vector<std::string>{"a", "bb"});
}

TEST_CASE("compact over variable-length rows copies runs") {
  const std::vector<int> in{1, 2, 3, 4, 5, 6, 7, 8};
  const std::vector<std::int64_t> bounds{0, 3, 3, 4, 8};  // [1 2 3] [] [4] [5 6 7 8]
  const bool mask[] = {true, true, false, true};
  std::vector<int> out(7, -1);
  CHECK(ragged::kernel::compact(in.data(), mask, std::span<const std::int64_t>(bounds),
                                out.data()) == 7);
  CHECK(out == std::vector<int>{1, 2, 3, 5, 6, 7, 8});
  std::vector<int> pairs(8, -1);  // the same rows of pairs
  const std::vector<std::int32_t> b2{0, 1, 1, 2, 4};
  CHECK(ragged::kernel::compact(in.data(), mask, std::span<const std::int32_t>(b2), pairs.data(),
                                2) == 3);
  CHECK(pairs == std::vector<int>{1, 2, 5, 6, 7, 8, -1, -1});
}
