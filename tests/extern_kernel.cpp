// SPDX-License-Identifier: Apache-2.0
// With RAGGED_EXTERN_KERNEL and no translation unit that includes
// <ragged/kernel/instantiate.hpp>, the kernel's code is compiled nowhere: the
// link fails, naming it (test_extern_kernel_compiled_elsewhere); with
// tests/kernel_instance.cpp it links and runs (test_extern_kernel).
#include <ragged/boolean_mask.hpp>
#include <ragged/literal.hpp>

int main() {
  const auto kept = ragged::boolean_mask(ragged::tensor<int>({0, 1, 2, 3}),
                                         ragged::tensor<bool>({true, false, true, true}), 0);
  return kept.size() == 3 ? 0 : 1;
}
