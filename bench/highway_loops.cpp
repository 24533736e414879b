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

// The mask of N int32 lanes from N mask bytes (nonzero = true).
template <class D>
auto lanes_mask(D d, const std::uint8_t* mask) {
  const hn::RebindToUnsigned<D> du;
  const hn::Rebind<std::uint8_t, D> d8;
  const auto wide = hn::PromoteTo(du, hn::LoadU(d8, mask));
  return hn::RebindMask(d, hn::Ne(wide, hn::Zero(du)));
}

}  // namespace

std::size_t hwy_compress_storeu(const std::int32_t* in, const std::uint8_t* mask, std::size_t n,
                                std::int32_t* out) {
  const hn::ScalableTag<std::int32_t> d;
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

std::size_t hwy_compress_store(const std::int32_t* in, const std::uint8_t* mask, std::size_t n,
                               std::int32_t* out) {
  const hn::ScalableTag<std::int32_t> d;
  const std::size_t lanes = hn::Lanes(d);
  std::size_t i = 0, j = 0;
  for (; i + lanes <= n; i += lanes)
    j += hn::CompressStore(hn::LoadU(d, in + i), lanes_mask(d, mask + i), d, out + j);
  for (; i < n; ++i)
    if (mask[i]) out[j++] = in[i];
  return j;
}

std::size_t hwy_lanes() {
  return hn::Lanes(hn::ScalableTag<std::int32_t>());
}

}  // namespace bench::RAGGED_HWY_NS
