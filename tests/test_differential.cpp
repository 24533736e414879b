// Thousands of random shapes, ragged ranks, lengths and densities: the library
// against the reference in reference.hpp (the cases are in differential.hpp).
#include <cstdint>
#include <string>

#include "catch.hpp"
#include "differential.hpp"

namespace {

constexpr int densities[] = {0, 50, 100, 10, 90};

// Runs `count` random cases from `seed`, reporting at most five failures.
template <class Case>
void run_cases(std::uint64_t seed, int count, Case one_case) {
  reference::Choices c(seed);
  int failures = 0;
  for (int i = 0; i < count && failures < 5; ++i) {
    const auto failure = one_case(c, densities[i % 5]);
    if (!failure.empty()) {
      ++failures;
      FAIL_CHECK(failure);
    }
  }
  CHECK(failures == 0);
}

}  // namespace

TEMPLATE_TEST_CASE("tf.ragged.boolean_mask agrees with the reference on random cases", "",
                   std::int32_t, std::string) {
  run_cases(20261130, 3000, reference::ragged_case<TestType>);
}

TEMPLATE_TEST_CASE("tf.boolean_mask agrees with the reference on random cases", "", std::int32_t,
                   std::string) {
  run_cases(4242, 2000, reference::dense_case<TestType>);
}

TEST_CASE("large cases reach every path of the kernel: blocks, chunks, streaming, threads") {
  int failures = 0;
  reference::Choices c(20261201);
  for (int i = 0; i < 60 && failures < 3; ++i) {
    const auto failure = i % 3 == 0   ? reference::large_dense_case(c)
                         : i % 3 == 1 ? reference::large_ragged_case<std::int32_t>(c)
                                      : reference::large_ragged_case<std::int64_t>(c);
    if (!failure.empty()) {
      ++failures;
      FAIL_CHECK(failure);
    }
  }
  CHECK(failures == 0);
}
