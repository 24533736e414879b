// The layers of DESIGN.md: the type and literal headers know nothing of SIMD.
// Compiled with -M by test_types_without_kernel, which fails if the kernel's
// compaction or an intrinsics header is among the headers this TU reads.
#include <ragged/literal.hpp>
#include <ragged/parse.hpp>
#include <ragged/print.hpp>
#include <ragged/ragged_tensor.hpp>
#include <ragged/row_partition.hpp>
#include <ragged/shape.hpp>
#include <ragged/tensor.hpp>
#include <ragged/view.hpp>

int main() {}
