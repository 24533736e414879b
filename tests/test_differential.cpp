// Thousands of random shapes, ragged ranks, lengths and densities: the library
// against the reference in reference.hpp (the cases are in differential.hpp).
#include <cstdint>
#include <string>

#include "catch.hpp"
#include "differential.hpp"

namespace {
constexpr int densities[] = {0, 50, 100, 10, 90};
}

TEMPLATE_TEST_CASE("tf.ragged.boolean_mask agrees with the reference on random cases", "",
                   std::int32_t, std::string) {
  reference::Choices c(20261130);
  int failures = 0;
  for (int i = 0; i < 3000 && failures < 5; ++i) {
    const auto failure = reference::ragged_case<TestType>(c, densities[i % 5]);
    if (!failure.empty()) {
      ++failures;
      FAIL_CHECK(failure);
    }
  }
  CHECK(failures == 0);
}

TEMPLATE_TEST_CASE("tf.boolean_mask agrees with the reference on random cases", "", std::int32_t,
                   std::string) {
  reference::Choices c(4242);
  int failures = 0;
  for (int i = 0; i < 2000 && failures < 5; ++i) {
    const auto failure = reference::dense_case<TestType>(c, densities[i % 5]);
    if (!failure.empty()) {
      ++failures;
      FAIL_CHECK(failure);
    }
  }
  CHECK(failures == 0);
}
