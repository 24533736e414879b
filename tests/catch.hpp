// SPDX-License-Identifier: Apache-2.0
// One include for Catch2 v2 (as Debian ships it) and v3, plus small helpers.
#pragma once

#if RAGGED_CATCH2_MAJOR == 3
#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>
#else
#include <catch2/catch.hpp>
#endif

#include <cstdint>
#include <exception>
#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace ragged_test {

/// "prefix" followed by the number. (Not `"prefix" + std::to_string(i)`: GCC 12
/// warns falsely about that once inlined, -Wrestrict, PR 105329.)
inline std::string numbered(std::string prefix, std::size_t i) {
  prefix += std::to_string(i);
  return prefix;
}

/// `n` distinct-ish values of T for typed tests: "value number i" strings,
/// every third bool true, numbers i + 1.
template <class T>
std::vector<T> sample_values(std::size_t n) {
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<T, std::string>)
      v[i] = numbered("value number ", i);
    else if constexpr (std::is_same_v<T, bool>)
      v[i] = i % 3 == 0;
    else
      v[i] = static_cast<T>(i + 1);
  }
  return v;
}

/// Checks that `f()` throws exactly an E (or a subclass) whose message holds every one of `words`.
template <class E, class F>
void check_throws(F&& f, std::initializer_list<std::string_view> words) {
  try {
    f();
  } catch (const E& e) {
    const std::string what = e.what();
    INFO("message: " << what);
    for (auto w : words) {
      INFO("expected words: " << w);
      CHECK(what.find(w) != std::string::npos);
    }
    return;
  } catch (const std::exception& e) {
    FAIL("threw another exception type: " << e.what());
  }
  FAIL("did not throw");
}

}  // namespace ragged_test
