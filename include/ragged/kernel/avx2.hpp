// SPDX-License-Identifier: Apache-2.0
// The AVX2 kernel: permutation tables for 1-, 4- and 8-byte elements, block
// skip and copy for all widths. Target attributes, chosen at run time. Internal.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "cpu.hpp"
#include "scalar.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

namespace ragged {
inline namespace v0_1 {
namespace kernel {
namespace detail {

// For each 8-bit mask: the lanes to gather, kept lanes first: 32-bit lanes
// for vpermd, and bytes of an 8-byte group for pshufb (the unused tail
// repeats lane 0, whatever it holds).
inline constexpr auto permute8x32 = [] {
  std::array<std::array<std::uint8_t, 8>, 256> t{};
  for (unsigned m = 0; m < 256; ++m) {
    unsigned k = 0;
    for (unsigned lane = 0; lane < 8; ++lane)
      if (m >> lane & 1) t[m][k++] = static_cast<std::uint8_t>(lane);
  }
  return t;
}();

// For each 4-bit mask: the 32-bit lane pairs of the 64-bit elements to gather.
inline constexpr auto permute4x64 = [] {
  std::array<std::array<std::uint8_t, 8>, 16> t{};
  for (unsigned m = 0; m < 16; ++m) {
    unsigned k = 0;
    for (unsigned e = 0; e < 4; ++e)
      if (m >> e & 1) {
        t[m][k++] = static_cast<std::uint8_t>(2 * e);
        t[m][k++] = static_cast<std::uint8_t>(2 * e + 1);
      }
  }
  return t;
}();

// The mask bits of 64 entries; the caller guarantees 64 readable bytes.
[[gnu::target("avx2"), gnu::always_inline]] inline std::uint64_t mask_bits_avx2(
    const bool* mask) noexcept {
  // Nonzero bytes are true (a signed compare with zero would drop 0x80..0xff).
  const __m256i zero = _mm256_setzero_si256();
  const auto lo = static_cast<std::uint32_t>(_mm256_movemask_epi8(
      _mm256_cmpeq_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(mask)), zero)));
  const auto hi = static_cast<std::uint32_t>(_mm256_movemask_epi8(
      _mm256_cmpeq_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(mask + 32)), zero)));
  return ~(std::uint64_t{hi} << 32 | lo);
}

[[gnu::always_inline]] inline std::uint64_t mask_bits_avx2(Bits mask) noexcept {
  return load_bits(mask, 64);
}

[[gnu::target("avx2,popcnt")]] inline std::int64_t count_avx2(const bool* mask,
                                                              std::int64_t n) noexcept {
  std::int64_t total = 0, i = 0;
  for (; i + 64 <= n; i += 64) total += _mm_popcnt_u64(mask_bits_avx2(mask + i));
  return total + count_scalar(mask + i, n - i);
}

// Bit-packed masks are counted a word at a time, with the popcnt instruction.
[[gnu::target("popcnt")]] inline std::int64_t count_popcnt(Bits mask, std::int64_t n) noexcept {
  std::int64_t total = 0;
  for (std::int64_t i = 0; i < n; i += 64) total += _mm_popcnt_u64(load_bits(mask + i, n - i));
  return total;
}

// The kept lanes of 32 bytes, stored with a lane mask so that nothing past the
// last kept element is written.
template <std::size_t W>
[[gnu::target("avx2,popcnt"), gnu::always_inline]] inline std::byte* compress_block_avx2(
    const std::byte* src, std::uint64_t bits, std::byte* dst) noexcept {
  constexpr int lanes = 32 / static_cast<int>(W);
  for (int c = 0; c < 64 / lanes; ++c) {
    const auto k = static_cast<unsigned>((bits >> (c * lanes)) & ((1u << lanes) - 1));
    if (k == 0) continue;
    const auto kept = _mm_popcnt_u32(k);
    const auto& perm = W == 4 ? permute8x32[k] : permute4x64[k];
    const __m256i idx =
        _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(perm.data())));
    const __m256i v =
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + std::ptrdiff_t{32} * c));
    const int kept_lanes = kept * static_cast<int>(W) / 4;
    // Lane i is stored when i < kept_lanes: compare a lane index ramp with the count.
    const __m256i store_mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(kept_lanes),
                                                  _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    _mm256_maskstore_epi32(reinterpret_cast<int*>(dst), store_mask,
                           _mm256_permutevar8x32_epi32(v, idx));
    dst += static_cast<std::ptrdiff_t>(kept) * static_cast<std::ptrdiff_t>(W);
  }
  return dst;
}

// The kept bytes of 64 one-byte elements, 8 at a time: pshufb gathers a group's
// kept bytes to its front and one 8-byte store writes the group. The store
// may write up to 7 bytes past the group's kept bytes, which is allowed only
// inside the output: `room` is how many bytes from `dst` on are known to be
// kept (this block's and the next block's). Groups whose store would reach
// past it are written byte by byte, so nothing past the last kept element is
// ever written.
[[gnu::target("avx2,popcnt"), gnu::always_inline]] inline std::byte* compress_bytes_avx2(
    const std::byte* src, std::uint64_t bits, std::byte* dst, std::int64_t room) noexcept {
  std::int64_t at = 0;  // bytes written in this block
  for (int c = 0; c < 8; ++c) {
    auto k = static_cast<unsigned>((bits >> (8 * c)) & 0xff);
    if (k == 0) continue;
    const auto kept = _mm_popcnt_u32(k);
    const std::byte* group = src + std::ptrdiff_t{8} * c;
    if (at + 8 <= room) {
      const __m128i v = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(group));
      const __m128i idx = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(permute8x32[k].data()));
      _mm_storel_epi64(reinterpret_cast<__m128i*>(dst + at), _mm_shuffle_epi8(v, idx));
    } else {
      for (std::byte* d = dst + at; k; k &= k - 1) *d++ = group[__builtin_ctz(k)];
    }
    at += kept;
  }
  return dst + at;
}

template <std::size_t W, class M>
[[gnu::target("avx2,popcnt")]] std::int64_t compact_avx2(const std::byte* in, M mask,
                                                         std::int64_t n, std::byte* out,
                                                         bool /*prefetch: not used*/) noexcept {
  std::byte* dst = out;
  std::int64_t i = 0;
  // One block of lookahead for one-byte elements: the next block's kept count
  // bounds how far this block's whole-group stores may reach.
  std::uint64_t next = W == 1 && n >= 64 ? mask_bits_avx2(mask) : 0;
  for (; i + 64 <= n; i += 64) {
    std::uint64_t bits = 0;
    if constexpr (W == 1) {
      bits = next;
      next = i + 128 <= n ? mask_bits_avx2(mask + i + 64) : 0;
    } else {
      bits = mask_bits_avx2(mask + i);
    }
    const std::byte* src = in + i * static_cast<std::int64_t>(W);
    if (bits == 0) continue;
    if (bits == ~0ull) {
      for (std::size_t c = 0; c < 2 * W; ++c)
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + c * 32),
                            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + c * 32)));
      dst += 64 * W;
      continue;
    }
    if constexpr (W == 4 || W == 8) {
      dst = compress_block_avx2<W>(src, bits, dst);
    } else if constexpr (W == 1) {
      dst = compress_bytes_avx2(src, bits, dst, _mm_popcnt_u64(bits) + _mm_popcnt_u64(next));
    } else {
      dst += compact_scalar<W>(src, mask + i, 64, dst) * static_cast<std::int64_t>(W);
    }
  }
  dst += compact_scalar<W>(in + i * static_cast<std::int64_t>(W), mask + i, n - i, dst) *
         static_cast<std::int64_t>(W);
  return (dst - out) / static_cast<std::int64_t>(W);
}

}  // namespace detail
}  // namespace kernel
}  // namespace v0_1
}  // namespace ragged
#endif
