// SPDX-License-Identifier: Apache-2.0
// The kernel's code, compiled once for every test program: the test
// programs define RAGGED_EXTERN_KERNEL (tests/CMakeLists.txt) and link this.
#include <ragged/kernel/instantiate.hpp>
