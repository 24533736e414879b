// ragged: ragged-tensor masking for C++20.
// SPDX-License-Identifier: Apache-2.0
#pragma once

// The version is defined once, in CMakeLists.txt's project(); a test checks that
// these numbers agree with it, so a vendored copy used without CMake still knows
// what it is.
#define RAGGED_VERSION_MAJOR 0
#define RAGGED_VERSION_MINOR 1
#define RAGGED_VERSION_PATCH 0

namespace ragged {
inline namespace v0_1 {

/// The library version as "major.minor.patch".
inline constexpr const char* version_string = "0.1.0";

}  // namespace v0_1
}  // namespace ragged
