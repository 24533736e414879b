// SPDX-License-Identifier: Apache-2.0
// Highway's compaction loops (bench/highway_loops.cpp), for bench_highway.
#pragma once

#include <cstddef>
#include <cstdint>

// Compiled twice: for the build machine's static target (namespace
// bench::hwy_native) and for AVX2 (bench::hwy_avx2), the level most laptops
// and many cloud CPUs stop at. RAGGED_HWY_NS names the copy being compiled.
#define RAGGED_HWY_LOOPS(ns)                                                                       \
  namespace bench::ns {                                                                            \
  std::size_t hwy_compress_storeu(const std::int32_t* in, const std::uint8_t* mask, std::size_t n, \
                                  std::int32_t* out);                                              \
  std::size_t hwy_compress_store(const std::int32_t* in, const std::uint8_t* mask, std::size_t n,  \
                                 std::int32_t* out);                                               \
  std::size_t hwy_lanes();                                                                         \
  }
RAGGED_HWY_LOOPS(hwy_native)
RAGGED_HWY_LOOPS(hwy_avx2)
#undef RAGGED_HWY_LOOPS

// hwy_compress_storeu: Compress + StoreU, a whole vector stored each step (needs
// one vector of slack after the output); hwy_compress_store: CompressStore,
// only the kept lanes. Both return the kept count. hwy_lanes: int32 lanes per
// vector of the copy's target.
