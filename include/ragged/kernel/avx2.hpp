// SPDX-License-Identifier: Apache-2.0
// The AVX2 kernel: permutation tables for every element width, block skip and
// copy. Target attributes, chosen at run time. Internal.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "cpu.hpp"
#include "scalar.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

namespace ragged {
inline namespace v0_1 {
namespace kernel {
namespace detail {

// For each mask of `Lanes` bits: the indices that gather the kept lanes to
// the front, each lane as `Parts` consecutive indices (a lane of Parts
// bytes for pshufb, or of Parts 32-bit lanes for vpermd). The unused tail
// repeats index 0, whatever it holds.
template <std::size_t Lanes, std::size_t Parts>
constexpr auto lane_gather_table() {
  std::array<std::array<std::uint8_t, Lanes * Parts>, (std::size_t{1} << Lanes)> t{};
  for (std::size_t m = 0; m < t.size(); ++m) {
    std::size_t k = 0;
    for (std::size_t lane = 0; lane < Lanes; ++lane)
      if (m >> lane & 1)
        for (std::size_t part = 0; part < Parts; ++part)
          t[m][k++] = static_cast<std::uint8_t>(Parts * lane + part);
  }
  return t;
}

// 8 lanes of one index: 32-bit lanes for vpermd, or the bytes of an 8-byte group for pshufb.
inline constexpr auto permute8x32 = lane_gather_table<8, 1>();
// 8 lanes of two bytes, for pshufb on a group of 8 two-byte elements.
inline constexpr auto permute8x16 = lane_gather_table<8, 2>();
// 4 lanes of 64 bits, as pairs of 32-bit lanes for vpermd.
inline constexpr auto permute4x64 = lane_gather_table<4, 2>();

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

// A group of elements of W bytes: 8 of them for one- and two-byte elements
// (pshufb on 8 or 16 bytes), a 32-byte vector for four- and eight-byte ones
// (vpermd), with one permutation table entry per lane mask.
template <std::size_t W>
inline constexpr unsigned group_lanes = W <= 2 ? 8 : 32 / static_cast<unsigned>(W);

// The kept elements of one group (lane mask `k`) gathered to the front of
// one store of the group's width at `dst`: up to group_lanes<W> - 1 elements
// past the kept ones are written too.
template <std::size_t W>
[[gnu::target("avx2,popcnt"), gnu::always_inline]] inline void store_group_avx2(
    const std::byte* group, unsigned k, std::byte* dst) noexcept {
  if constexpr (W == 1) {
    const __m128i v = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(group));
    const __m128i idx = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(permute8x32[k].data()));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(dst), _mm_shuffle_epi8(v, idx));
  } else if constexpr (W == 2) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(group));
    const __m128i idx = _mm_loadu_si128(reinterpret_cast<const __m128i*>(permute8x16[k].data()));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst), _mm_shuffle_epi8(v, idx));
  } else {
    const auto& perm = W == 4 ? permute8x32[k] : permute4x64[k];
    const __m256i idx =
        _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(perm.data())));
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(group));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst), _mm256_permutevar8x32_epi32(v, idx));
  }
}

// The kept elements of a block of 64, a group at a time (store_group_avx2).
// `room` is how many elements from `dst` on are known to be kept (this
// block's and the next block's): while it covers a group's whole store, the
// group is stored straight to the output (an empty group's store is
// overwritten by the next); the groups from the first it does not cover on
// are gathered in a buffer on the stack and exactly their kept bytes copied
// out, so nothing past the last kept element is ever written. (With a branch
// per group on its kept lanes, and per element where the room ran out,
// sparse masks spent their time on mispredictions: int16 at density 0.05
// took 0.65 ns per element beyond L1 on AMD Zen 5 forced to AVX2, 0.25 now.)
template <std::size_t W>
[[gnu::target("avx2,popcnt"), gnu::always_inline]] inline std::byte* compress_groups_avx2(
    const std::byte* src, std::uint64_t bits, std::byte* dst, std::int64_t room) noexcept {
  constexpr unsigned lanes = group_lanes<W>;
  constexpr auto w = static_cast<std::int64_t>(W);
  const auto group = [bits](unsigned c) {
    return static_cast<unsigned>((bits >> (c * lanes)) & ((1u << lanes) - 1));
  };
  std::int64_t at = 0;  // elements written
  unsigned c = 0;
  for (; c < 64 / lanes && at + lanes <= room; ++c) {
    const auto k = group(c);
    store_group_avx2<W>(src + lanes * w * c, k, dst + at * w);
    at += _mm_popcnt_u32(k);
  }
  if (c < 64 / lanes) {
    alignas(32) std::byte buffer[64 * W];
    std::int64_t gathered = 0;
    for (; c < 64 / lanes; ++c) {
      const auto k = group(c);
      store_group_avx2<W>(src + lanes * w * c, k, buffer + gathered * w);
      gathered += _mm_popcnt_u32(k);
    }
    std::memcpy(dst + at * w, buffer, static_cast<std::size_t>(gathered * w));
    at += gathered;
  }
  return dst + at * w;
}

template <std::size_t W, class M>
[[gnu::target("avx2,popcnt")]] std::int64_t compact_avx2(const std::byte* in, M mask,
                                                         std::int64_t n, std::byte* out,
                                                         Reach /*how far: not used*/) noexcept {
  std::byte* dst = out;
  std::int64_t i = 0;
  // One block of lookahead: the next block's kept count bounds how far this
  // block's whole-group stores may reach.
  std::uint64_t next = n >= 64 ? mask_bits_avx2(mask) : 0;
  for (; i + 64 <= n; i += 64) {
    const std::uint64_t bits = next;
    next = i + 128 <= n ? mask_bits_avx2(mask + i + 64) : 0;
    const std::byte* src = in + i * static_cast<std::int64_t>(W);
    if (bits == 0) continue;
    if (bits == ~0ull) {
      for (std::size_t c = 0; c < 2 * W; ++c)
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + c * 32),
                            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + c * 32)));
      dst += 64 * W;
      continue;
    }
    dst = compress_groups_avx2<W>(src, bits, dst, _mm_popcnt_u64(bits) + _mm_popcnt_u64(next));
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
