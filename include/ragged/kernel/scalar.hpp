// SPDX-License-Identifier: Apache-2.0
// The portable kernel: always compiled, the reference the SIMD paths are tested
// against, and the path for non-x86 targets. Internal: use kernel/compact.hpp.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "bits.hpp"
#include "stream.hpp"

namespace ragged {
inline namespace v0_1 {
namespace kernel {
namespace detail {

// A mask byte is true when it is nonzero, on every path: byte masks from NumPy
// or Arrow arrive memcpy'd into bool storage holding 2 or 255, and every ISA,
// count and compact alike, must read them the same way. So the kernel never
// reads a mask through `bool` (whose other values are undefined); it reads the
// bytes and normalises them to 0 or 1 first.
inline constexpr std::uint64_t all_true_word = 0x0101010101010101ull;

/// Mask entry i as 0 or 1: its byte, read as unsigned char (always allowed), nonzero = 1.
[[nodiscard]] inline std::uint8_t mask_at(const bool* mask, std::int64_t i) noexcept {
  return reinterpret_cast<const unsigned char*>(mask)[i] != 0;
}
/// Bit-packed entry i as 0 or 1.
[[nodiscard]] inline std::uint8_t mask_at(Bits mask, std::int64_t i) noexcept {
  return mask[i];
}

/// Eight mask bytes as one word, each byte normalised to 0 or 1: a byte's high
/// bit is set after the add when any of its low seven bits is, or'd with the
/// byte's own high bit.
[[nodiscard]] inline std::uint64_t load_word(const bool* mask) noexcept {
  std::uint64_t w;
  std::memcpy(&w, mask, sizeof w);
  constexpr std::uint64_t low7 = 0x7f7f7f7f7f7f7f7full;
  return (((w & low7) + low7) | w) >> 7 & all_true_word;
}

/// Bits set in a word: SWAR, inline (std::popcount calls a library routine
/// unless the whole program is compiled for a CPU with popcnt).
[[nodiscard]] constexpr int popcount64(std::uint64_t x) noexcept {
  x -= (x >> 1) & 0x5555555555555555ull;
  x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
  x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
  return static_cast<int>((x * 0x0101010101010101ull) >> 56);
}

/// The mask bits of 64 entries as one word, bit i for entry i. The multiply
/// gathers eight normalised 0/1 bytes into eight bits at once.
[[nodiscard]] inline std::uint64_t mask_word(const bool* mask) noexcept {
  std::uint64_t bits = 0;
  for (int b = 0; b < 8; ++b)
    bits |= ((load_word(mask + std::ptrdiff_t{8} * b) * 0x0102040810204080ull) >> 56) << (8 * b);
  return bits;
}

/// The mask bits of entries [0, len) as one word (zeros above len; len >= 64
/// means a whole word), from bool bytes; bytes past `len` are not read.
[[nodiscard]] inline std::uint64_t load_bits(const bool* mask, std::int64_t len) noexcept {
  if (len >= 64) return mask_word(mask);
  bool last[64] = {};
  std::memcpy(last, mask, static_cast<std::size_t>(len));
  return mask_word(last);
}

/// The mask bits of entries [0, n) as words (the last one padded with zeros)
/// and the running count before each word, starting from `base`.
template <class M>
void mask_words_scalar(M mask, std::int64_t n, std::uint64_t* words, std::int64_t* prefix,
                       std::int64_t base) noexcept {
  prefix[0] = base;
  for (std::int64_t k = 0; 64 * k < n; ++k) {
    words[k] = load_bits(mask + 64 * k, n - 64 * k);
    prefix[k + 1] = prefix[k] + static_cast<std::int64_t>(popcount64(words[k]));
  }
}

/// The number of true entries in mask[0, n).
[[nodiscard]] inline std::int64_t count_scalar(const bool* mask, std::int64_t n) noexcept {
  std::int64_t total = 0, i = 0;
  // Each byte is 0 or 1, so the multiply sums the eight bytes into the top byte.
  for (; i + 8 <= n; i += 8)
    total += static_cast<std::int64_t>((load_word(mask + i) * all_true_word) >> 56);
  for (; i < n; ++i) total += mask_at(mask, i);
  return total;
}
/// The number of set bits among entries [0, n).
[[nodiscard]] inline std::int64_t count_scalar(Bits mask, std::int64_t n) noexcept {
  std::int64_t total = 0;
  for (std::int64_t i = 0; i < n; i += 64) total += popcount64(load_bits(mask + i, n - i));
  return total;
}

/// Keeps the W-byte elements whose mask entry is true, reading the mask a
/// word of 64 entries at a time. Branch-free within a word: every element up
/// to the word's last kept one is written to out[j] and j advances only when
/// it is kept, so nothing past the last kept element is ever written.
template <std::size_t W, class M>
std::int64_t compact_scalar(const std::byte* in, M mask, std::int64_t n, std::byte* out,
                            Reach /*how far: not used*/ = Reach::cached) noexcept {
  constexpr auto w = static_cast<std::int64_t>(W);
  std::int64_t j = 0;
  for (std::int64_t base = 0; base < n; base += 64) {
    auto bits = load_bits(mask + base, n - base);
    const std::byte* src = in + base * w;
    const int len = 64 - std::countl_zero(bits);  // 0 for a word with nothing kept
    for (int i = 0; i < len; ++i, bits >>= 1) {
      std::memcpy(out + j * w, src + std::ptrdiff_t{i} * w, W);
      j += static_cast<std::int64_t>(bits & 1);
    }
  }
  return j;
}

/// On a lambda handed to for_each_run, after its parameters: the lambda is
/// inlined too. GCC leaves a body that for_each_run calls from two places out
/// of line, and each run then reloads what the lambda captures. (Row
/// selection of 2^20 ragged rows of 0..127 int32 beyond the caches, every
/// other row kept, AMD Zen 4, family 0x19 model 17, one process, medians of
/// 21: the runs copied as found, 21.1 to 21.3 ms inlined, 22.5 to 22.9 not.)
#if defined(__GNUC__) || defined(__clang__)
#define RAGGED_INLINED_LAMBDA __attribute__((always_inline))
#else
#define RAGGED_INLINED_LAMBDA
#endif

/// Calls run(begin, end) for each maximal run of true entries in mask[0, n),
/// in order. Runs are found from 64-entry bit words with trailing-zero
/// counts: one branch per run, not per entry (random masks have short runs).
/// Always inlined: its callers' lambdas capture by reference, and out of line
/// every run reloaded what they capture after each copy (rows of 16 bytes in
/// the caches took 1.4x the time; AMD Zen 5, family 0x1A model 2).
template <class M, class Run>
[[gnu::always_inline]] inline void for_each_run(M mask, std::int64_t n, Run&& run) {
  std::int64_t open = -1;  // the start of a run that reached the end of the previous word
  for (std::int64_t base = 0; base < n; base += 64) {
    const auto len = static_cast<int>(std::min<std::int64_t>(64, n - base));
    const std::uint64_t bits = load_bits(mask + base, len);
    int pos = 0;
    while (pos < len) {
      if (open < 0) {
        const auto rest = bits >> pos;
        if (rest == 0) break;
        pos += std::countr_zero(rest);
        open = base + pos;
      }
      const auto zeros = ~bits >> pos;
      if (zeros == 0) break;  // the run goes on into the next word
      pos += std::countr_zero(zeros);
      if (pos > len) pos = len;
      run(open, base + pos);
      open = -1;
    }
  }
  if (open >= 0) run(open, n);
}

}  // namespace detail
}  // namespace kernel
}  // namespace v0_1
}  // namespace ragged
