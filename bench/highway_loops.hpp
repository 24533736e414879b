// SPDX-License-Identifier: Apache-2.0
// Highway's compaction loops (bench/highway_loops.cpp), for bench_highway.
#pragma once

#include <cstddef>
#include <cstdint>

// Compiled twice: for the build machine's static target (namespace
// bench::hwy_native) and for AVX2 (bench::hwy_avx2), the level most laptops
// and many cloud CPUs stop at. Each is instantiated for int8, int32 and double.
//
// hwy_compress_storeu: Compress + StoreU, a whole vector stored each step (needs
// one vector of slack after the output); hwy_compress_store: CompressStore,
// only the kept lanes. Both return the kept count. The *_rows loops run the
// same per row, as a user of Highway masks ragged data by a ragged mask (row r
// is [splits[r], splits[r + 1]) of the values and of the mask), writing the
// result's splits. hwy_lanes: int32 lanes per vector of the copy's target.
// hwy_read_only: only loads what a compaction must read, `n` entries of
// `width` bytes and their `n` mask bytes, interleaved as a compaction reads
// them, and returns an OR of it all. Beyond the caches it is about as fast as
// reading those bytes gets on one core: a compaction near it (x 1.0) is bound
// by its reads, and no store strategy can make it much faster. Given an
// output, it also writes `out_bytes` there, evenly over the loop and densely
// with whole-vector stores: the memory traffic of a compaction that keeps
// out_bytes, without the compaction (its time is the floor of any compaction
// into an output in the caches, which each store first reads for ownership).
#define RAGGED_HWY_LOOPS(ns)                                                                       \
  namespace bench::ns {                                                                            \
  template <class T>                                                                               \
  std::size_t hwy_compress_storeu(const T* in, const std::uint8_t* mask, std::size_t n, T* out);   \
  template <class T>                                                                               \
  std::size_t hwy_compress_store(const T* in, const std::uint8_t* mask, std::size_t n, T* out);    \
  template <class T>                                                                               \
  void hwy_rows_compress_storeu(const T* in, const std::uint8_t* mask, const std::int64_t* splits, \
                                std::size_t nrows, T* out, std::int64_t* out_splits);              \
  template <class T>                                                                               \
  void hwy_rows_compress_store(const T* in, const std::uint8_t* mask, const std::int64_t* splits,  \
                               std::size_t nrows, T* out, std::int64_t* out_splits);               \
  std::size_t hwy_lanes();                                                                         \
  std::uint64_t hwy_read_only(const void* values, std::size_t width, const std::uint8_t* mask,     \
                              std::size_t n, void* out = nullptr, std::size_t out_bytes = 0);      \
  }
RAGGED_HWY_LOOPS(hwy_native)
RAGGED_HWY_LOOPS(hwy_avx2)
#undef RAGGED_HWY_LOOPS
