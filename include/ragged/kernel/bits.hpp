// SPDX-License-Identifier: Apache-2.0
// Bit-packed masks, as Arrow lays out booleans and validity: the kernel reads
// them 64 entries per load, never expanded to bytes. Internal to the kernel's
// mask handling; the public way in is ragged::bit_mask (view.hpp).
#pragma once

#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace ragged {
inline namespace v0_1 {
namespace kernel {

/// A pointer to bit-packed mask entries in Arrow's layout: entry i is bit
/// (offset + i) % 8 of byte (offset + i) / 8, least significant bit first.
/// Kept normalised (offset in [0, 8)), so `data` is the byte of entry 0.
struct Bits {
  const std::uint8_t* data = nullptr;
  std::int64_t offset = 0;

  /// Entry `i` of this pointer (i >= 0), as a pointer.
  [[nodiscard]] friend constexpr Bits operator+(Bits b, std::int64_t i) noexcept {
    const auto p = b.offset + i;
    return {b.data + (p >> 3), p & 7};
  }
  /// Entry `i` (i >= 0).
  [[nodiscard]] constexpr bool operator[](std::int64_t i) const noexcept {
    const auto p = offset + i;
    return (data[p >> 3] >> (p & 7)) & 1;
  }
};

/// What the kernel takes for a mask: bool bytes (any nonzero byte is true)
/// or Bits (nullptr: no entries, for n = 0).
template <class M>
concept MaskPointer = std::same_as<M, const bool*> || std::same_as<M, bool*> ||
    std::same_as<M, std::nullptr_t> || std::same_as<M, Bits>;

namespace detail {

// A mask pointer in the one form each kind is handled in: const bool* or Bits.
[[nodiscard]] inline const bool* mask_pointer(const bool* m) noexcept {
  return m;
}
[[nodiscard]] inline Bits mask_pointer(Bits m) noexcept {
  return m;
}

// Eight bytes as a little-endian word (Arrow's bit order is by byte, LSB first).
[[nodiscard]] inline std::uint64_t load_le64(const std::uint8_t* p) noexcept {
  std::uint64_t w;
  std::memcpy(&w, p, sizeof w);
  if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap64(w);
  return w;
}

/// The bits of entries [0, len) as one word, bit i for entry i, zeros above
/// `len` (1 <= len; 64 or more means a whole word). Reads only the bytes that
/// hold those entries: 8, or 9 when the offset is not 0, for a whole word.
[[nodiscard]] inline std::uint64_t load_bits(Bits m, std::int64_t len) noexcept {
  const auto off = static_cast<unsigned>(m.offset);
  if (len >= 64) {
    const auto lo = load_le64(m.data);
    return off == 0 ? lo : lo >> off | std::uint64_t{m.data[8]} << (64 - off);
  }
  std::uint8_t tail[16] = {};
  std::memcpy(tail, m.data, static_cast<std::size_t>((off + len + 7) / 8));
  const auto w = load_le64(tail) >> off | std::uint64_t{tail[8]} << 1 << (63 - off);
  return w & ((std::uint64_t{1} << len) - 1);
}

}  // namespace detail
}  // namespace kernel
}  // namespace v0_1
}  // namespace ragged
