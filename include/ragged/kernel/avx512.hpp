// SPDX-License-Identifier: Apache-2.0
// The AVX-512 kernel (F, BW, VL, VBMI2), compiled with target attributes so that
// no global -m flag is needed; chosen at run time. Internal: use compact.hpp.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "bits.hpp"
#include "cpu.hpp"
#include "stream.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

namespace ragged {
inline namespace v0_1 {
namespace kernel {
namespace detail {

// The mask bits of 64 entries from `len` (1..64) mask bytes; bytes past `len` are not read.
[[gnu::target("avx512f,avx512bw,bmi2"), gnu::always_inline]] inline std::uint64_t mask_bits_avx512(
    const bool* mask, std::int64_t len) noexcept {
  const __mmask64 valid = len >= 64 ? ~0ull : _bzhi_u64(~0ull, static_cast<unsigned>(len));
  const __m512i m = _mm512_maskz_loadu_epi8(valid, mask);
  return _mm512_test_epi8_mask(m, m);
}

// Bit-packed masks need no vector test: their words are loaded as they are.
[[gnu::always_inline]] inline std::uint64_t mask_bits_avx512(Bits mask, std::int64_t len) noexcept {
  return load_bits(mask, len);
}

[[gnu::target("avx512f,avx512bw,bmi2,popcnt")]] inline std::int64_t count_avx512(
    const bool* mask, std::int64_t n) noexcept {
  std::int64_t total = 0;
  for (std::int64_t i = 0; i < n; i += 64)
    total += _mm_popcnt_u64(mask_bits_avx512(mask + i, n - i));
  return total;
}

// mask_words_scalar with one vector test per word.
[[gnu::target("avx512f,avx512bw,bmi2,popcnt")]] inline void mask_words_avx512(
    const bool* mask, std::int64_t n, std::uint64_t* words, std::int64_t* prefix,
    std::int64_t base) noexcept {
  prefix[0] = base;
  for (std::int64_t k = 0; 64 * k < n; ++k) {
    words[k] = mask_bits_avx512(mask + 64 * k, n - 64 * k);
    prefix[k + 1] = prefix[k] + static_cast<std::int64_t>(_mm_popcnt_u64(words[k]));
  }
}

// The AVX-512 operations on lanes of W bytes under a lane mask (the low 64 / W bits of `k`).
template <std::size_t W>
struct Lanes512;
#define RAGGED_LANES512(W, BITS, MASK)                                                          \
  template <>                                                                                   \
  struct Lanes512<W> {                                                                          \
    [[gnu::target("avx512f,avx512bw,avx512vl,avx512vbmi2"), gnu::always_inline]] static __m512i \
    load(std::uint64_t k, const void* s) noexcept {                                             \
      return _mm512_maskz_loadu_epi##BITS(static_cast<MASK>(k), s);                             \
    }                                                                                           \
    [[gnu::target("avx512f,avx512bw,avx512vl,avx512vbmi2"), gnu::always_inline]] static __m512i \
    compress(std::uint64_t k, __m512i v) noexcept {                                             \
      return _mm512_maskz_compress_epi##BITS(static_cast<MASK>(k), v);                          \
    }                                                                                           \
    [[gnu::target("avx512f,avx512bw,avx512vl,avx512vbmi2"), gnu::always_inline]] static void    \
    store(void* d, std::uint64_t k, __m512i v) noexcept {                                       \
      _mm512_mask_storeu_epi##BITS(d, static_cast<MASK>(k), v);                                 \
    }                                                                                           \
    [[gnu::target("avx512f,avx512bw,avx512vl,avx512vbmi2"), gnu::always_inline]] static void    \
    compress_store(void* d, std::uint64_t k, __m512i v) noexcept {                              \
      _mm512_mask_compressstoreu_epi##BITS(d, static_cast<MASK>(k), v);                         \
    }                                                                                           \
  };
RAGGED_LANES512(1, 8, __mmask64)
RAGGED_LANES512(2, 16, __mmask32)
RAGGED_LANES512(4, 32, __mmask16)
RAGGED_LANES512(8, 64, __mmask8)
#undef RAGGED_LANES512

// Keeps the elements of one block of 64 (fewer at the end) selected by `bits`,
// W bytes each, and returns the end of what it wrote. A Full block is loaded
// whole; the last, partial one with loads masked by `bits`, so nothing past
// the input's end is read. No branches on the data but one per vector with
// Avx512Store::whole. The stores (cpu.hpp, Avx512Store):
// - compress_store: vpcompress straight to memory;
// - masked: compressed in a register, stored with the mask of its kept lanes;
// - whole: the whole register where `room` (the kept elements known to follow
//   from dst on: the rest of this block and the next one) covers its lanes,
//   else masked. Either way nothing past the last kept element is written, and
//   an empty part stores nothing (or, whole, lanes a later store overwrites).
template <std::size_t W, Avx512Store S, bool Full>
[[gnu::target("avx512f,avx512bw,avx512vl,avx512vbmi2,bmi2,popcnt"),
  gnu::always_inline]] inline std::byte*
compress_block_avx512(const std::byte* src, std::uint64_t bits, std::byte* dst,
                      std::int64_t& room) noexcept {
  constexpr int lanes = 64 / static_cast<int>(W);  // per 64-byte vector
  constexpr bool direct = S == Avx512Store::compress_store;
  for (int c = 0; c < 64 / lanes; ++c) {
    std::uint64_t k = bits;
    if constexpr (lanes < 64) k = (bits >> (c * lanes)) & ((std::uint64_t{1} << lanes) - 1);
    const std::byte* s = src + std::ptrdiff_t{64} * c;
    const auto kept = static_cast<std::int64_t>(_mm_popcnt_u64(k));
    // The store's lane mask: the kept lanes, or all where `room` allows (whole).
    auto low = _bzhi_u64(~0ull, static_cast<unsigned>(kept));
    if constexpr (S == Avx512Store::whole) {
      if (room >= lanes) low = ~0ull;
      room -= kept;
    }
    using Op = Lanes512<W>;
    const __m512i v = Full ? _mm512_loadu_si512(s) : Op::load(k, s);
    if constexpr (direct)
      Op::compress_store(dst, k, v);
    else if (S == Avx512Store::whole && low == ~0ull)
      _mm512_storeu_si512(dst, Op::compress(k, v));
    else
      Op::store(dst, low, Op::compress(k, v));
    dst += kept * static_cast<std::ptrdiff_t>(W);
  }
  return dst;
}

// Per block of 64 entries: all false -> skip (the values are not even read),
// all true -> plain copy, mixed -> compress. With `prefetch` (for inputs beyond
// the caches), the next blocks are requested ahead: a single core's memory
// bandwidth is bound by how many requests it has in flight. With
// Avx512Store::whole the next block's bits are read one block ahead, for `room`.
// (A run-time flag, not a template parameter: one function per width and
// store, not two, for a branch per block that is always predicted.)
template <std::size_t W, Avx512Store S, class M>
[[gnu::target("avx512f,avx512bw,avx512vl,avx512vbmi2,bmi2,popcnt")]] std::int64_t compact_avx512(
    const std::byte* in, M mask, std::int64_t n, std::byte* out, bool prefetch) noexcept {
  // How far ahead, in entries: at least 2 KiB of values, and 2 KiB of a byte
  // mask. Narrow entries pass by quickly, so the same count of them is too
  // short a lead (Intel family 6 model 167, x Highway's CompressStore loop,
  // 2^26 entries: int8 density 0.5 1.04 with 512 entries ahead, 0.92 to 0.97
  // with 2048; int32 density 0.05 1.05 to 1.09 with the mask 512 ahead, 0.99
  // to 1.05 with 2048; int32 and double were no faster with more than 512).
  constexpr std::int64_t ahead = std::max<std::int64_t>(512, 2048 / static_cast<std::int64_t>(W));
  constexpr std::int64_t mask_ahead = 2048;
  constexpr bool whole = S == Avx512Store::whole;
  std::byte* dst = out;
  std::uint64_t next = whole && n > 0 ? mask_bits_avx512(mask, n) : 0;
  for (std::int64_t i = 0; i < n; i += 64) {
    if (prefetch) {
      const auto w = static_cast<std::int64_t>(W);
      for (std::int64_t c = 0; c < w; ++c) prefetch_ahead(in, (i + ahead) * w + c * 64);
      if constexpr (std::is_same_v<M, Bits>) {
        if (i % 512 == 0)  // one line of bits covers 512 entries
          prefetch_ahead(mask.data, (mask.offset + i + mask_ahead) / 8);
      } else {
        prefetch_ahead(mask, i + mask_ahead);
      }
    }
    std::uint64_t bits = 0;
    std::int64_t room = 0;
    if constexpr (whole) {
      bits = next;
      next = n - i > 64 ? mask_bits_avx512(mask + i + 64, n - i - 64) : 0;
      room = static_cast<std::int64_t>(_mm_popcnt_u64(bits) + _mm_popcnt_u64(next));
    } else {
      bits = mask_bits_avx512(mask + i, n - i);
    }
    const std::byte* src = in + i * static_cast<std::int64_t>(W);
    if (bits == 0) continue;
    if (bits == ~0ull) {
      for (std::size_t c = 0; c < W; ++c)
        _mm512_storeu_si512(dst + c * 64, _mm512_loadu_si512(src + c * 64));
      dst += 64 * W;
      continue;
    }
    dst = n - i >= 64 ? compress_block_avx512<W, S, true>(src, bits, dst, room)
                      : compress_block_avx512<W, S, false>(src, bits, dst, room);
  }
  return (dst - out) / static_cast<std::int64_t>(W);
}

}  // namespace detail
}  // namespace kernel
}  // namespace v0_1
}  // namespace ragged
#endif
