// SPDX-License-Identifier: Apache-2.0
// Compiles the kernel's code for every element type, once: include this in
// exactly one translation unit of a program whose other translation units
// define RAGGED_EXTERN_KERNEL (README, "Compile time").
#pragma once

#include "compact.hpp"

namespace ragged {
inline namespace v0_1 {
namespace kernel {
namespace detail {

RAGGED_KERNEL_INSTANCES()

}  // namespace detail
}  // namespace kernel
}  // namespace v0_1
}  // namespace ragged
