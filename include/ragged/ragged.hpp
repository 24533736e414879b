// SPDX-License-Identifier: Apache-2.0
// ragged: TensorFlow's boolean_mask for ragged and dense tensors, header-only C++20.
// The umbrella header: includes the whole public API.
#pragma once

#include "boolean_mask.hpp"     // IWYU pragma: export
#include "conversion.hpp"       // IWYU pragma: export
#include "error.hpp"            // IWYU pragma: export
#include "format.hpp"           // IWYU pragma: export
#include "kernel/compact.hpp"   // IWYU pragma: export
#include "kernel/parallel.hpp"  // IWYU pragma: export
#include "literal.hpp"          // IWYU pragma: export
#include "parse.hpp"            // IWYU pragma: export
#include "print.hpp"            // IWYU pragma: export
#include "ragged_tensor.hpp"    // IWYU pragma: export
#include "row_partition.hpp"    // IWYU pragma: export
#include "shape.hpp"            // IWYU pragma: export
#include "tensor.hpp"           // IWYU pragma: export
#include "version.hpp"          // IWYU pragma: export
#include "view.hpp"             // IWYU pragma: export
