// SPDX-License-Identifier: Apache-2.0
// Google Highway's compaction loops, as a user of Highway would write them:
// the SIMD baseline the kernel is measured against. Its own translation unit,
// compiled once for the build machine's static target (-march=native) and
// once for AVX2 (RAGGED_HWY_NS names the namespace of each copy).
#include "highway_loops.hpp"

#include <hwy/highway.h>

namespace hn = hwy::HWY_NAMESPACE;

#ifndef RAGGED_HWY_NS
#define RAGGED_HWY_NS hwy_native
#endif

namespace bench::RAGGED_HWY_NS {
namespace {

// The mask of a vector's lanes from as many mask bytes (nonzero = true).
template <class D>
auto lanes_mask(D d, const std::uint8_t* mask) {
  using T = hn::TFromD<D>;
  const hn::RebindToUnsigned<D> du;
  const hn::Rebind<std::uint8_t, D> d8;
  if constexpr (sizeof(T) == 1) {
    return hn::RebindMask(d, hn::Ne(hn::LoadU(du, mask), hn::Zero(du)));
  } else if constexpr (sizeof(T) == 8) {
    const hn::Rebind<std::uint32_t, D> d32;
    const auto wide = hn::PromoteTo(du, hn::PromoteTo(d32, hn::LoadU(d8, mask)));
    return hn::RebindMask(d, hn::Ne(wide, hn::Zero(du)));
  } else {
    const auto wide = hn::PromoteTo(du, hn::LoadU(d8, mask));
    return hn::RebindMask(d, hn::Ne(wide, hn::Zero(du)));
  }
}

template <class T>
std::size_t storeu_loop(const T* in, const std::uint8_t* mask, std::size_t n, T* out) {
  const hn::ScalableTag<T> d;
  const std::size_t lanes = hn::Lanes(d);
  std::size_t i = 0, j = 0;
  for (; i + lanes <= n; i += lanes) {
    const auto m = lanes_mask(d, mask + i);
    hn::StoreU(hn::Compress(hn::LoadU(d, in + i), m), d, out + j);  // writes a whole vector
    j += hn::CountTrue(d, m);
  }
  for (; i < n; ++i)
    if (mask[i]) out[j++] = in[i];
  return j;
}

template <class T>
std::size_t store_loop(const T* in, const std::uint8_t* mask, std::size_t n, T* out) {
  const hn::ScalableTag<T> d;
  const std::size_t lanes = hn::Lanes(d);
  std::size_t i = 0, j = 0;
  for (; i + lanes <= n; i += lanes)
    j += hn::CompressStore(hn::LoadU(d, in + i), lanes_mask(d, mask + i), d, out + j);
  for (; i < n; ++i)
    if (mask[i]) out[j++] = in[i];
  return j;
}

template <class T, class Loop>
void rows_loop(const T* in, const std::uint8_t* mask, const std::int64_t* splits, std::size_t nrows,
               T* out, std::int64_t* out_splits, Loop loop) {
  std::int64_t j = 0;
  out_splits[0] = 0;
  for (std::size_t r = 0; r < nrows; ++r) {
    const auto b = static_cast<std::size_t>(splits[r]);
    const auto e = static_cast<std::size_t>(splits[r + 1]);
    j += static_cast<std::int64_t>(loop(in + b, mask + b, e - b, out + j));
    out_splits[r + 1] = j;
  }
}

}  // namespace

template <class T>
std::size_t hwy_compress_storeu(const T* in, const std::uint8_t* mask, std::size_t n, T* out) {
  return storeu_loop(in, mask, n, out);
}
template <class T>
std::size_t hwy_compress_store(const T* in, const std::uint8_t* mask, std::size_t n, T* out) {
  return store_loop(in, mask, n, out);
}
template <class T>
void hwy_rows_compress_storeu(const T* in, const std::uint8_t* mask, const std::int64_t* splits,
                              std::size_t nrows, T* out, std::int64_t* out_splits) {
  rows_loop(in, mask, splits, nrows, out, out_splits, &storeu_loop<T>);
}
template <class T>
void hwy_rows_compress_store(const T* in, const std::uint8_t* mask, const std::int64_t* splits,
                             std::size_t nrows, T* out, std::int64_t* out_splits) {
  rows_loop(in, mask, splits, nrows, out, out_splits, &store_loop<T>);
}

#define RAGGED_HWY_INSTANTIATE(T)                                                               \
  template std::size_t hwy_compress_storeu<T>(const T*, const std::uint8_t*, std::size_t, T*);  \
  template std::size_t hwy_compress_store<T>(const T*, const std::uint8_t*, std::size_t, T*);   \
  template void hwy_rows_compress_storeu<T>(const T*, const std::uint8_t*, const std::int64_t*, \
                                            std::size_t, T*, std::int64_t*);                    \
  template void hwy_rows_compress_store<T>(const T*, const std::uint8_t*, const std::int64_t*,  \
                                           std::size_t, T*, std::int64_t*);
RAGGED_HWY_INSTANTIATE(std::int8_t)
RAGGED_HWY_INSTANTIATE(std::int32_t)
RAGGED_HWY_INSTANTIATE(double)
#undef RAGGED_HWY_INSTANTIATE

namespace {

// The read-only loop at `W` bytes per entry. The loads are ORed into three
// accumulators in turn, and the mask's into a fourth: into one, each OR would
// wait for the one before, and in the caches the loop would time that chain
// rather than the reads (int32 2^14: five ORs in a row per 64 entries).
// With an output (`out`, `out_bytes`), it also writes out_bytes bytes to it,
// spread evenly over the loop as a compaction's kept bytes are: each step
// advances the output by its share (in 1/65536ths of a byte: no division in
// the loop) and stores there the fewest whole vectors of what it read that
// cover the share (the same count every step: no branch), as a compaction that
// stores whole vectors does; the last vector may reach up to one vector past
// out_bytes, which the caller's output has room for.
template <std::size_t W>
std::uint64_t read_only_loop(const std::uint8_t* v, const std::uint8_t* mask, std::size_t n,
                             std::uint8_t* out, std::size_t out_bytes) {
  const hn::ScalableTag<std::uint8_t> d;
  const std::size_t lanes = hn::Lanes(d);  // mask entries per step
  auto at_mask = hn::Zero(d), a1 = hn::Zero(d), a2 = hn::Zero(d), a3 = hn::Zero(d);
  const std::size_t steps = n / lanes;
  const std::size_t share = out && steps ? (out_bytes << 16) / steps : 0;
  const std::size_t stores = ((share >> 16) + lanes) / lanes;  // vectors covering a share
  std::size_t at = 0;
  std::size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    at_mask = hn::Or(at_mask, hn::LoadU(d, mask + i));
    for (std::size_t c = 0; c < W; ++c) {
      auto& acc = c % 3 == 0 ? a1 : c % 3 == 1 ? a2 : a3;
      acc = hn::Or(acc, hn::LoadU(d, v + (i * W) + c * lanes));
    }
    if (out)
      for (std::size_t c = 0; c < stores; ++c) hn::StoreU(a1, d, out + (at >> 16) + c * lanes);
    at += share;
  }
  std::uint64_t tail = 0;
  for (; i < n; ++i) {
    tail |= mask[i];
    for (std::size_t c = 0; c < W; ++c) tail |= v[i * W + c];
  }
  for (std::size_t o = at >> 16; out && o < out_bytes; ++o)
    out[o] = static_cast<std::uint8_t>(tail);
  const auto all = hn::Or(hn::Or(at_mask, a1), hn::Or(a2, a3));
  return hn::GetLane(hn::SumsOf8(all)) | tail;
}

}  // namespace

std::uint64_t hwy_read_only(const void* values, std::size_t width, const std::uint8_t* mask,
                            std::size_t n, void* out, std::size_t out_bytes) {
  auto* o = static_cast<std::uint8_t*>(out);
  const auto* v = static_cast<const std::uint8_t*>(values);
  switch (width) {
    case 1:
      return read_only_loop<1>(v, mask, n, o, out_bytes);
    case 2:
      return read_only_loop<2>(v, mask, n, o, out_bytes);
    case 4:
      return read_only_loop<4>(v, mask, n, o, out_bytes);
    default:
      return read_only_loop<8>(v, mask, n, o, out_bytes);
  }
}

std::size_t hwy_lanes() {
  return hn::Lanes(hn::ScalableTag<std::int32_t>());
}

}  // namespace bench::RAGGED_HWY_NS
