#include <ragged/version.hpp>

#include <string>

#include "catch.hpp"

TEST_CASE("version.hpp agrees with the CMake project version") {
  CHECK(RAGGED_VERSION_MAJOR == RAGGED_CMAKE_VERSION_MAJOR);
  CHECK(RAGGED_VERSION_MINOR == RAGGED_CMAKE_VERSION_MINOR);
  CHECK(RAGGED_VERSION_PATCH == RAGGED_CMAKE_VERSION_PATCH);
  CHECK(std::string(ragged::version_string) == RAGGED_CMAKE_VERSION);
}
