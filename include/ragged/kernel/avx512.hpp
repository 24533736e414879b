// SPDX-License-Identifier: Apache-2.0
// The AVX-512 kernel (F, BW, VL, VBMI2), compiled with target attributes so that
// no global -m flag is needed; chosen at run time. Internal: use compact.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "bits.hpp"
#include "cpu.hpp"

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

// Keeps the elements of one block of 64 (fewer at the end) selected by `bits`,
// W bytes each, and returns the end of what it wrote. A Full block is loaded
// whole; the last, partial one with loads masked by `bits`, so nothing past
// the input's end is read. Stores are masked by the kept count, so nothing past
// the last kept element is written. No branches: an empty part stores nothing.
// With Direct, vpcompress stores straight to memory (fast on Zen 5 and Intel since SPR);
// without, it compresses in a register and stores with a mask.
template <std::size_t W, bool Direct, bool Full>
[[gnu::target("avx512f,avx512bw,avx512vl,avx512vbmi2,bmi2,popcnt"),
  gnu::always_inline]] inline std::byte*
compress_block_avx512(const std::byte* src, std::uint64_t bits, std::byte* dst) noexcept {
  if constexpr (W == 1) {
    const __m512i v = Full ? _mm512_loadu_si512(src) : _mm512_maskz_loadu_epi8(bits, src);
    if constexpr (Direct)
      _mm512_mask_compressstoreu_epi8(dst, bits, v);
    else
      _mm512_mask_storeu_epi8(dst, _bzhi_u64(~0ull, static_cast<unsigned>(_mm_popcnt_u64(bits))),
                              _mm512_maskz_compress_epi8(bits, v));
    return dst + _mm_popcnt_u64(bits);
  } else {
    constexpr int lanes = 64 / static_cast<int>(W);  // per 64-byte vector
    for (int c = 0; c < 64 / lanes; ++c) {
      const auto k =
          static_cast<unsigned>((bits >> (c * lanes)) & ((lanes == 64 ? 0 : (1ull << lanes)) - 1));
      const std::byte* s = src + std::ptrdiff_t{64} * c;
      const auto kept = _mm_popcnt_u32(k);
      const auto low = _bzhi_u32(~0u, static_cast<unsigned>(kept));
      if constexpr (W == 2) {
        const __m512i v = Full ? _mm512_loadu_si512(s) : _mm512_maskz_loadu_epi16(k, s);
        if constexpr (Direct)
          _mm512_mask_compressstoreu_epi16(dst, k, v);
        else
          _mm512_mask_storeu_epi16(dst, low, _mm512_maskz_compress_epi16(k, v));
      } else if constexpr (W == 4) {
        const auto k16 = static_cast<__mmask16>(k);
        const __m512i v = Full ? _mm512_loadu_si512(s) : _mm512_maskz_loadu_epi32(k16, s);
        if constexpr (Direct)
          _mm512_mask_compressstoreu_epi32(dst, k16, v);
        else
          _mm512_mask_storeu_epi32(dst, static_cast<__mmask16>(low),
                                   _mm512_maskz_compress_epi32(k16, v));
      } else {
        const auto k8 = static_cast<__mmask8>(k);
        const __m512i v = Full ? _mm512_loadu_si512(s) : _mm512_maskz_loadu_epi64(k8, s);
        if constexpr (Direct)
          _mm512_mask_compressstoreu_epi64(dst, k8, v);
        else
          _mm512_mask_storeu_epi64(dst, static_cast<__mmask8>(low),
                                   _mm512_maskz_compress_epi64(k8, v));
      }
      dst += static_cast<std::ptrdiff_t>(kept) * static_cast<std::ptrdiff_t>(W);
    }
    return dst;
  }
}

// Per block of 64 entries: all false -> skip (the values are not even read),
// all true -> plain copy, mixed -> compress. With Prefetch (for inputs beyond
// the caches), the next blocks are requested ahead: a single core's memory
// bandwidth is bound by how many requests it has in flight.
template <std::size_t W, bool Direct, bool Prefetch, class M>
[[gnu::target("avx512f,avx512bw,avx512vl,avx512vbmi2,bmi2,popcnt")]] std::int64_t compact_avx512(
    const std::byte* in, M mask, std::int64_t n, std::byte* out) noexcept {
  constexpr std::int64_t ahead = 512;  // entries
  std::byte* dst = out;
  for (std::int64_t i = 0; i < n; i += 64) {
    if constexpr (Prefetch) {
      for (std::size_t c = 0; c < W; ++c)
        _mm_prefetch(
            reinterpret_cast<const char*>(in + (i + ahead) * static_cast<std::int64_t>(W)) + c * 64,
            _MM_HINT_T0);
      if constexpr (std::is_same_v<M, Bits>) {
        if (i % 512 == 0)  // one line of bits covers 512 entries
          _mm_prefetch(reinterpret_cast<const char*>((mask + i + ahead).data), _MM_HINT_T0);
      } else {
        _mm_prefetch(reinterpret_cast<const char*>(mask + i + ahead), _MM_HINT_T0);
      }
    }
    const std::uint64_t bits = mask_bits_avx512(mask + i, n - i);
    const std::byte* src = in + i * static_cast<std::int64_t>(W);
    if (bits == 0) continue;
    if (bits == ~0ull) {
      for (std::size_t c = 0; c < W; ++c)
        _mm512_storeu_si512(dst + c * 64, _mm512_loadu_si512(src + c * 64));
      dst += 64 * W;
      continue;
    }
    dst = n - i >= 64 ? compress_block_avx512<W, Direct, true>(src, bits, dst)
                      : compress_block_avx512<W, Direct, false>(src, bits, dst);
  }
  return (dst - out) / static_cast<std::int64_t>(W);
}

}  // namespace detail
}  // namespace kernel
}  // namespace v0_1
}  // namespace ragged
#endif
