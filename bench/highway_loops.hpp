// SPDX-License-Identifier: Apache-2.0
// Highway's compaction loops (bench/highway_loops.cpp), for bench_highway.
#pragma once

#include <cstddef>
#include <cstdint>

namespace bench {
/// Compress + StoreU: stores a whole vector each step (needs one vector of
/// slack after the output). Returns the kept count.
std::size_t hwy_compress_storeu(const std::int32_t* in, const std::uint8_t* mask, std::size_t n,
                                std::int32_t* out);
/// CompressStore: stores only the kept lanes.
std::size_t hwy_compress_store(const std::int32_t* in, const std::uint8_t* mask, std::size_t n,
                               std::int32_t* out);
/// int32 lanes per vector of the target Highway was compiled for.
std::size_t hwy_lanes();
}  // namespace bench
