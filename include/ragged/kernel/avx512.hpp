// SPDX-License-Identifier: Apache-2.0
// The AVX-512 kernel (F, BW, VL, VBMI, VBMI2), compiled with target attributes
// so that no global -m flag is needed; chosen at run time. Internal: use
// compact.hpp.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

#include "bits.hpp"
#include "cpu.hpp"
#include "scalar.hpp"
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

// How many of the entries [0, n) of `mask` keep (byte masks or bit-packed
// ones), and where `bits` is given, each whole block's bits stored to
// bits[0, n / 64) (compact_sparse_avx512 keeps them for later).
template <class M>
[[gnu::target("avx512f,avx512bw,bmi2,popcnt"), gnu::always_inline]] inline std::int64_t
test_blocks_avx512(M mask, std::int64_t n, std::uint64_t* bits) noexcept {
  // Whole blocks with whole loads, as compact_avx512 (it says why).
  std::int64_t kept = 0, i = 0;
  for (; n - i >= 64; i += 64) {
    const std::uint64_t b = mask_bits_avx512(mask + i, 64);
    if (bits) bits[i / 64] = b;
    kept += static_cast<std::int64_t>(_mm_popcnt_u64(b));
  }
  if (i < n) kept += static_cast<std::int64_t>(_mm_popcnt_u64(mask_bits_avx512(mask + i, n - i)));
  return kept;
}

// The entries [0, n) of `mask` keep.
template <class M>
[[gnu::target("avx512f,avx512bw,bmi2,popcnt")]] inline std::int64_t count_avx512(
    M mask, std::int64_t n) noexcept {
  return test_blocks_avx512(mask, n, nullptr);
}

// mask_words_scalar with one vector test per word.
[[gnu::target("avx512f,avx512bw,bmi2,popcnt")]] inline void mask_words_avx512(
    const bool* mask, std::int64_t n, std::uint64_t* words, std::int64_t* prefix,
    std::int64_t base) noexcept {
  prefix[0] = base;
  std::int64_t k = 0;
  for (; 64 * k + 64 <= n; ++k) {  // whole loads (compact_avx512 says why)
    words[k] = mask_bits_avx512(mask + 64 * k, 64);
    prefix[k + 1] = prefix[k] + static_cast<std::int64_t>(_mm_popcnt_u64(words[k]));
  }
  if (64 * k < n) {
    words[k] = mask_bits_avx512(mask + 64 * k, n - 64 * k);
    prefix[k + 1] = prefix[k] + static_cast<std::int64_t>(_mm_popcnt_u64(words[k]));
  }
}

// Where each bit of a word of lane bits comes from when rows of L lanes
// (2 to max_row_lanes) are widened (widen_rows_avx512): byte i of
// lane_source[L][j] is the row, of a word's 64, of bit i of lane word j.
inline constexpr int max_row_lanes = 8;
alignas(64) inline constexpr auto lane_source = [] {
  std::array<std::array<std::array<std::uint8_t, 64>, max_row_lanes>, max_row_lanes + 1> t{};
  for (int lanes = 1; lanes <= max_row_lanes; ++lanes)
    for (int j = 0; j < lanes; ++j)
      for (int i = 0; i < 64; ++i)
        t[static_cast<std::size_t>(lanes)][static_cast<std::size_t>(j)]
         [static_cast<std::size_t>(i)] = static_cast<std::uint8_t>((64 * j + i) / lanes);
  return t;
}();

// Row bits widened to one bit per lane, for rows of `lanes` lanes (1 to
// max_row_lanes): the 64 rows of rows[k] give the lane bits
// out[k * lanes, (k + 1) * lanes), row r's bit copied to lanes r * lanes to
// r * lanes + lanes - 1. Each row word becomes 64 bytes, all ones or zero
// (vpmovm2b); each word of lane bits gathers its rows' bytes (vpermb) and
// reads back their top bits (vpmovb2m).
[[gnu::target("avx512f,avx512bw,avx512vbmi")]] inline void widen_rows_avx512(
    const std::uint64_t* rows, std::int64_t nwords, int lanes, std::uint64_t* out) noexcept {
  __m512i source[max_row_lanes];
  const auto& table = lane_source[static_cast<std::size_t>(lanes)];
  for (int j = 0; j < lanes; ++j)
    source[j] = _mm512_load_si512(table[static_cast<std::size_t>(j)].data());
  for (std::int64_t k = 0; k < nwords; ++k) {
    const __m512i bytes = _mm512_movm_epi8(rows[k]);
    for (int j = 0; j < lanes; ++j)
      out[k * lanes + j] =
          _mm512_movepi8_mask(_mm512_maskz_permutexvar_epi8(~0ull, source[j], bytes));
  }
}

// The AVX-512 operations on lanes of W bytes under a lane mask (the low 64 / W
// bits of `k`). compress merges into the register it compresses: with a zeroed
// destination AMD Zen 5 makes each vpcompress wait for the previous one to
// the same register (int32 2^14 in cache: 2.45x memcpy, 1.02 merged).
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
      return _mm512_mask_compress_epi##BITS(v, static_cast<MASK>(k), v);                        \
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

// Bytes 0, 1, ..., 63: byte j is j.
[[gnu::target("avx512f,avx512bw"), gnu::always_inline]] inline __m512i byte_iota_avx512() noexcept {
  return _mm512_set_epi8(63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45,
                         44, 43, 42, 41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26,
                         25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6,
                         5, 4, 3, 2, 1, 0);
}

// A full block of 64 entries with whole-vector stores throughout, where the
// next block alone keeps at least a vector's lanes (so every store lands
// inside the output), vector C by vector C (a function, not a lambda: GCC
// gives lambdas no target attribute). Each vector's lane mask is the block's
// bits shifted, and each vector is compressed into its own register
// (vpcompress merging into its source: with a zeroed destination, AMD Zen 5
// makes each compress wait for the previous one to the same register, which
// halved the kernel's speed in cache).
template <std::size_t W, unsigned C>
[[gnu::target("avx512f,avx512bw,avx512vl,avx512vbmi2,bmi2,popcnt"), gnu::always_inline]] inline void
compress_whole_avx512(const std::byte* src, std::uint64_t bits, std::byte*& dst) noexcept {
  constexpr unsigned lanes = 64 / static_cast<unsigned>(W);
  using Op = Lanes512<W>;
  const std::uint64_t k = _bzhi_u64(bits >> (C * lanes), lanes);
  const __m512i v = _mm512_loadu_si512(src + std::ptrdiff_t{64} * C);
  _mm512_storeu_si512(dst, Op::compress(k, v));
  dst += _mm_popcnt_u64(k) * static_cast<std::ptrdiff_t>(W);
}

template <std::size_t W, unsigned... C>
[[gnu::target("avx512f,avx512bw,avx512vl,avx512vbmi2,bmi2,popcnt"),
  gnu::always_inline]] inline std::byte*
compress_block_whole_avx512(const std::byte* src, std::uint64_t bits, std::byte* dst,
                            std::integer_sequence<unsigned, C...>) noexcept {
  (compress_whole_avx512<W, C>(src, bits, dst), ...);
  return dst;
}

// A full block of 64 entries of W bytes (2, 4 or 8) that keeps at most a
// vector's lanes (64 / W), kept entries gathered into one vector and stored
// whole, where a vector's lanes are kept from dst on (as
// compress_block_whole_avx512). The kept entries' indices are compressed
// from the bytes 0..63 (one vpcompressb), each moved to the low byte of its
// lane (one vpermb, the lanes' other bytes zeroed), and gather the entries
// from the block's vectors with permutes of two vectors: int16 one (a block
// is two vectors), int32 two and a blend, doubles four and three blends. One
// compress and one store per block where compress_block_whole has one of
// each per vector: in the caches a sparse block's stores, which all land in
// the same few lines, are what its time goes on. (AMD Zen 5, family 0x1A
// model 2, int32 2^14 in the caches, the kernel before and after in one
// process, alternated, medians of 31, x memcpy: density 0.02 1.13 to 1.37
// against 1.01 to 1.28, 0.05 1.62 to 1.65 against 1.22 to 1.23, 0.1 1.42 to
// 1.43 against 1.00 to 1.01, 0.2 (gathered while the band reached 1/4)
// 1.18 to 1.43 against 1.07 to 1.27, new x old 0.70 to 0.94; a loop that
// only loads the same values and mask took 0.93 to 0.95. With a branch past
// empty blocks, 0.05 took 1.31 to 1.32. Blocks that keep more than a
// vector's lanes (density 0.5) would need several gathers, each dearer than
// a compress: a loop of them took 1.13 to 1.34x memcpy there against 1.20
// to 1.22 for the kernel.)
template <std::size_t W>
[[gnu::target("avx512f,avx512bw,avx512vbmi,avx512vbmi2,popcnt"),
  gnu::always_inline]] inline std::byte*
gather_block_whole_avx512(const std::byte* src, std::uint64_t bits, std::byte* dst) noexcept {
  static_assert(W == 2 || W == 4 || W == 8);
  const __m512i iota = byte_iota_avx512();
  const __m512i at = _mm512_mask_compress_epi8(iota, bits, iota);  // merged: see Lanes512
  // Byte b of lane_source[W][0] is b / W: lane j's low byte takes index j.
  constexpr std::uint64_t low_bytes = W == 2   ? 0x5555555555555555
                                      : W == 4 ? 0x1111111111111111
                                               : 0x0101010101010101;
  const __m512i ix =
      _mm512_maskz_permutexvar_epi8(low_bytes, _mm512_load_si512(lane_source[W][0].data()), at);
  __m512i v[W];  // the block's vectors
  for (std::size_t c = 0; c < W; ++c) v[c] = _mm512_loadu_si512(src + 64 * c);
  __m512i r;
  if constexpr (W == 2) {
    r = _mm512_permutex2var_epi16(v[0], ix, v[1]);
  } else if constexpr (W == 4) {
    const __mmask16 high = _mm512_test_epi32_mask(ix, _mm512_set1_epi32(32));
    r = _mm512_mask_mov_epi32(_mm512_permutex2var_epi32(v[0], ix, v[1]), high,
                              _mm512_permutex2var_epi32(v[2], ix, v[3]));
  } else {
    const __mmask8 odd = _mm512_test_epi64_mask(ix, _mm512_set1_epi64(16));
    const __mmask8 high = _mm512_test_epi64_mask(ix, _mm512_set1_epi64(32));
    const __m512i a = _mm512_mask_mov_epi64(_mm512_permutex2var_epi64(v[0], ix, v[1]), odd,
                                            _mm512_permutex2var_epi64(v[2], ix, v[3]));
    const __m512i b = _mm512_mask_mov_epi64(_mm512_permutex2var_epi64(v[4], ix, v[5]), odd,
                                            _mm512_permutex2var_epi64(v[6], ix, v[7]));
    r = _mm512_mask_mov_epi64(a, high, b);
  }
  _mm512_storeu_si512(dst, r);
  return dst + _mm_popcnt_u64(bits) * static_cast<std::ptrdiff_t>(W);
}

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

// Requests the values of the block `ahead` (values_ahead) entries past entry i,
// and its mask `mask_ahead` entries past it, for inputs beyond the caches: a
// single core's memory bandwidth is bound by how many requests it has in
// flight. How far ahead: at least 4 KiB of values, since narrow entries pass by
// quickly and the same count of them is too short a lead, and at least 1024
// entries (Intel family 6 model 167, x Highway's CompressStore loop, 2^26
// entries: int8 density 0.5 1.04 with 512 entries ahead, 0.92 to 0.97 with
// 2048; int32 density 0.05 1.05 to 1.09 with the mask 512 ahead, 0.99 to 1.05
// with 2048; int32 and double were no faster with more than 512. AMD Zen 5,
// family 0x1A model 2, x Highway's best loop, three processes each: int32
// density 0.05 1.04 to 1.08 with 512 entries ahead, 0.71 to 0.96 with 1024,
// 1.02 with 2048; density 0.5 0.81 to 0.91 against 0.76 to 0.84 with 1024; int8
// 0.91 to 0.97 with 2048 entries ahead, 0.85 to 0.89 with 4096 in two of three,
// the third noisy). The mask leads the values by a KiB, at least 2 KiB of it: 2
// KiB of mask lagged 4 KiB of int8 values (0.89 to 0.90, four runs with the
// lead 0.78 to 0.96; int32's mask is 2 KiB ahead either way).
// Where the caller loads the mask `ahead` entries early (MaskLoadedAhead),
// the mask is requested as far before that load as before a block's own.
// Where the caller knows the block ahead keeps nothing (`bits_ahead` zero),
// only its first line of values is requested, not all W: its values are not
// needed, but with no request at all in empty stretches the loop ran slower
// where kept entries resumed (AMD Zen 5, family 0x1A model 2, 2^26 entries,
// runs of 1..1024 alike, x every line requested and each block tested as the
// loop reaches it: int32 1.03 in two processes with none, 0.96 with the
// first line, median of 9; int8 1.07 to 1.13 with none; one line in four,
// int8 1.29, median of 9).
template <std::size_t W>
inline constexpr std::int64_t values_ahead =
    std::max<std::int64_t>(1024, 4096 / static_cast<std::int64_t>(W));

// Besides the lines ahead, once per 4 KiB of values (a region) the region 16
// KiB ahead is requested, one line of it. The hardware prefetchers follow a
// stream only within a 4 KiB region and start again, with misses of their
// own, at each region's start; so it seems, since the gain is not the
// page-table walks that the line's early request also starts: the inputs
// were on 2 MiB pages. (AMD Zen 5, family 0x1A model 2, bench_highway's
// paired rounds, ours x best Highway, with the request against without, in
// builds of three layouts each way (loops and functions aligned as GCC
// chooses, to 64 and to 32 bytes), five to eight rounds in all each way:
// int32 2^26 density 0.05 0.63 to 0.77 against 0.85 to 1.04, 0.5 0.70 to
// 0.79 against 0.86 to 0.94, runs of 1..1024 alike 0.69 to 0.89 against 0.78
// to 1.02, density 0.001 0.45 to 0.46 against 0.69, double 0.69 to 0.81
// against 0.73 to 0.90, [4096, 4096] with a 2-D mask 0.74 to 0.79 against
// 0.76 to 0.91, dense to ragged 0.76 to 0.83 against 0.79 to 0.93; int8 the
// same in rounds alternated with it, 0.84 to 0.90 against 0.86 to 0.90, and
// int32 density 0.95, which its stores bound, 0.89 to 1.03 against 0.91 to
// 0.96. 8 and 32 KiB ahead took what 16 did; the mask's region requested as
// well took int32 at density 0.95 1.25, one round.) region_bytes and
// region_lead are in stream.hpp: row selection requests regions too
// (stream.hpp, RunQueue).
//
// IntoL2 (Reach::into_l2, on the CPUs that cpu.hpp's requests_into_l2 names):
// the values are requested into L2 4 KiB ahead whatever their width, again
// into L1 1 KiB ahead, and no region is. Requests into L1 from far ahead each
// hold one of its few fill buffers until the line arrives from memory, so it
// seems, and bound how many lines a core has in flight; the second request
// finds the line in L2. (Intel family 6 model 167, 1-D 2^28 bytes beyond the
// caches, staged (compact.hpp, compact_chunked), x every request into L1 as
// above, with the stage's whole lines (stream.hpp, LineStage), one process
// each, medians of 9: int32 density 0.5 0.85 to 0.86, 0.95 0.90 to 0.92,
// runs of 1..1024 alike 0.90 to 0.91; int8 and int16 0.5 0.84; doubles 0.5
// 0.84 to 0.86. Into L2 alone: int32 0.5 0.84 to 0.85, 0.95 0.86 to 0.92,
// but runs of 1..1024 1.03 to 1.10, where whole blocks are copied at the
// pace of L1; into L2 with the region request too, 0.5 0.91 to 0.93; 8 KiB
// ahead 1.05 to 1.12 x 4; the mask into L2 too, the same. docs/performance.md,
// "Intel model 167: whole lines out of the stage", has the rest.)
template <std::size_t W, bool MaskLoadedAhead = false, bool IntoL2 = false, class M>
[[gnu::always_inline]] inline void prefetch_block(const std::byte* in, M mask, std::int64_t i,
                                                  std::uint64_t bits_ahead = ~0ull) noexcept {
  constexpr std::int64_t ahead = IntoL2 ? 4096 / static_cast<std::int64_t>(W) : values_ahead<W>;
  constexpr std::int64_t mask_ahead =
      std::max<std::int64_t>(2048, ahead + 1024) + (MaskLoadedAhead ? ahead : 0);
  const auto w = static_cast<std::int64_t>(W);
  const std::int64_t lines = bits_ahead != 0 ? w : 1;
  for (std::int64_t c = 0; c < lines; ++c) prefetch_ahead<IntoL2>(in, (i + ahead) * w + c * 64);
  if constexpr (IntoL2) {
    for (std::int64_t c = 0; c < lines; ++c) prefetch_ahead(in, i * w + 1024 + c * 64);
  } else if ((i * w) % region_bytes == 0) {
    prefetch_ahead(in, i * w + region_lead);
  }
  if constexpr (std::is_same_v<M, Bits>) {
    if (i % 512 == 0)  // one line of bits covers 512 entries
      prefetch_ahead(mask.data, (mask.offset + i + mask_ahead) / 8);
  } else {
    prefetch_ahead(mask, i + mask_ahead);
  }
}

// One block of 64 entries (fewer at the end) selected by `bits`: all false ->
// skip (the values are not even read), all true -> plain copy, mixed ->
// compress_block_avx512. Returns the end of what it wrote.
template <std::size_t W, Avx512Store S, bool Full>
[[gnu::target("avx512f,avx512bw,avx512vl,avx512vbmi2,bmi2,popcnt"),
  gnu::always_inline]] inline std::byte*
block_avx512(const std::byte* src, std::uint64_t bits, std::byte* dst, std::int64_t room) noexcept {
  if (bits == 0) return dst;
  if (Full && bits == ~0ull) {
    for (std::size_t c = 0; c < W; ++c)
      _mm512_storeu_si512(dst + c * 64, _mm512_loadu_si512(src + c * 64));
    return dst + 64 * W;
  }
  return compress_block_avx512<W, S, Full>(src, bits, dst, room);
}

// compact_avx512 with Avx512Store::whole (it says how). Where the data lie
// (R: cached, beyond or in_order) is a template parameter here, not
// compact_avx512's flag: the loops in and beyond the caches group their
// blocks differently. Beyond them, blocks are requested ahead, and empty ones
// skipped unread and full ones copied; in_order (cpu.hpp, reads_in_order)
// every block is compressed as it comes and nothing requested.
template <std::size_t W, Reach R, std::int64_t Ahead = W == 1 ? 2 : 1, class M>
[[gnu::target("avx512f,avx512bw,avx512vl,avx512vbmi2,bmi2,popcnt")]] std::int64_t
compact_whole_avx512(const std::byte* in, M mask, std::int64_t n, std::byte* out) noexcept {
  constexpr auto S = Avx512Store::whole;
  constexpr bool requests = R == Reach::beyond, every_block = R == Reach::in_order;
  constexpr auto w = static_cast<std::int64_t>(W);
  std::byte* dst = out;
  std::int64_t i = 0;
  constexpr auto lanes = 64 / static_cast<long long>(W);
  // How many blocks ahead are tested (Ahead): by default enough that at
  // density 0.5 their kept count usually covers a vector's lanes. Bytes need
  // two (a vector is a whole block of 64 lanes, which one block ahead covers
  // only about half the time, a branch the predictor then misses half the
  // time). Sparser stretches need more: compact_carried_avx512 picks the
  // count per stretch and compact_cached_avx512 per call (blocks_ahead).
  constexpr std::int64_t ahead = Ahead;
  // How many blocks each step compacts on one test. In the caches every
  // branch per block costs: two blocks per test, 2- and 4-byte elements (AMD
  // Zen 5, family 0x1A model 2, x memcpy, against one block, in the same
  // processes: int32 2^14 1.12 to 1.18 against 1.21 to 1.23, int16 2^14 1.75
  // to 1.87 against 2.07 to 2.12; four blocks no better for int32, and
  // doubles 1.42 against 1.09). Beyond the caches two cost int32 at density
  // 0.95 3 to 9%, doubles 2 to 3%.
  constexpr std::int64_t group = (W == 2 || W == 4) && R == Reach::cached ? 2 : 1;
  constexpr std::int64_t window = group + ahead;
  constexpr std::int64_t span = 64 * window;
  // The bits of the window's blocks, i .. i + window - 1: the group's, then
  // the tested ones. Each block's mask is tested once and its bits carried.
  std::uint64_t b[window] = {};
  if (n >= span)
    for (std::int64_t j = 0; j < ahead; ++j) b[j] = mask_bits_avx512(mask + 64 * j, 64);
  for (; n - i >= span; i += 64 * group) {
    for (std::int64_t j = ahead; j < window; ++j) b[j] = mask_bits_avx512(mask + i + 64 * j, 64);
    std::int64_t next = 0;  // kept by the `ahead` blocks after the group
    for (std::int64_t j = group; j < window; ++j)
      next += static_cast<std::int64_t>(_mm_popcnt_u64(b[j]));
    // Requests ahead except where the next blocks keep a few entries (a
    // sparse mask): there the loop is bound by its reads, which the
    // hardware streams on its own, and requests of ours only compete with
    // them. Across empty blocks they bring in where kept entries resume.
    // (AMD Zen 5, 1-D int32 2^26 x memcpy: density 0.05 0.91 prefetching
    // always, 0.76 so, 0.80 never; 0.5 0.94 always, 0.89 so, 1.05 never;
    // clustered runs of 1..1024 0.88 to 0.92 so, 1.01 to 1.02 without
    // requests across empty blocks.)
    // Every store of the group is a whole vector where the kept entries from
    // its last vector on cover a vector's lanes (the earlier vectors have
    // more after them). The next blocks' count, and where a vector is half a
    // block or more (1- and 2-byte elements) the last vector's own too:
    // without them, at density 0.5, the test fails about half the time and
    // its branch is mispredicted as often. (AMD Zen 5, family 0x1A model 2,
    // x memcpy, one process each: int16 2^25 1.22 to 1.36 without, 0.86 to
    // 1.00 with. Counting them at every width cost int32 in cache 3 to 4%.)
    const bool all_whole =
        (lanes >= 32 ? _mm_popcnt_u64(b[group - 1] >> (64 - lanes)) : 0) + next >= lanes;
    // Empty blocks are skipped unread and full ones copied (block_avx512),
    // unless every block is read.
    bool plain = false;
    if constexpr (!every_block)
      for (std::int64_t g = 0; g < group; ++g) plain |= b[g] + 1 <= 1;
    if (requests && (all_whole || next == 0))
      for (std::int64_t g = 0; g < group; ++g) prefetch_block<W>(in, mask, i + 64 * g);
    const std::byte* src = in + i * w;
    // One branch on both tests.
    if (all_whole & !plain) {
      for (std::int64_t g = 0; g < group; ++g)
        dst = compress_block_whole_avx512<W>(src + 64 * w * g, b[g], dst,
                                             std::make_integer_sequence<unsigned, W>{});
    } else {
      auto room = next;
      for (std::int64_t g = 0; g < group; ++g)
        room += static_cast<std::int64_t>(_mm_popcnt_u64(b[g]));
      for (std::int64_t g = 0; g < group; ++g) {
        const std::byte* s = src + 64 * w * g;
        if constexpr (every_block) {
          dst = compress_block_avx512<W, S, true>(s, b[g], dst, room);  // counts `room` down
        } else {
          dst = block_avx512<W, S, true>(s, b[g], dst, room);
          room -= static_cast<std::int64_t>(_mm_popcnt_u64(b[g]));
        }
      }
    }
    for (std::int64_t j = 0; j < ahead; ++j) b[j] = b[j + group];
  }
  // The last blocks (all of a short input): a block's bits, and the next
  // block's for `room`, each read once and no further than the input.
  std::uint64_t next = i < n ? mask_bits_avx512(mask + i, n - i) : 0;
  for (; i < n; i += 64) {
    const std::uint64_t last_bits = next;
    next = n - i > 64 ? mask_bits_avx512(mask + i + 64, n - i - 64) : 0;
    const auto room = static_cast<std::int64_t>(_mm_popcnt_u64(last_bits) + _mm_popcnt_u64(next));
    const std::byte* src = in + i * w;
    dst = n - i >= 64 ? block_avx512<W, S, true>(src, last_bits, dst, room)
                      : block_avx512<W, S, false>(src, last_bits, dst, room);
  }
  return (dst - out) / w;
}

// Line `line` of compact_stream_avx512's buffer to out[at, at + 64): whole,
// with a non-temporal store; the output's first line, where the output does
// not begin it (`head` bytes before `out`, then 0), from `out` on with
// ordinary stores. (A function, not a lambda: GCC gives lambdas no target attribute.)
[[gnu::target("avx512f"), gnu::always_inline]] inline void line_out_avx512(
    const std::byte* line, std::byte* out, std::int64_t at, std::int64_t& head) noexcept {
  if (head == 0) [[likely]] {
    _mm512_stream_si512(reinterpret_cast<__m512i*>(out + at), _mm512_load_si512(line));
  } else {
    copy_bytes(out, line + head, static_cast<std::size_t>(64 - head));
    head = 0;
  }
}

// What compact_stream_avx512 reports (Report): the bits of each block since
// the last report and the count kept before it; handed over and emptied once
// report_entries entries are in, or the input ends.
struct Reported {
  static constexpr std::int64_t most = report_entries / 64;
  std::uint64_t words[most + 1];
  std::int64_t prefix[most + 1];
  std::int64_t lo = 0, k = 0;

  // The block at lo + 64k, selected by `bits`, with `kept` entries kept before it.
  [[gnu::always_inline]] void add(std::uint64_t bits, std::int64_t kept) noexcept {
    words[k] = bits;
    prefix[k++] = kept;
  }
  [[gnu::target("popcnt")]] void hand_over(const Report& to, std::int64_t end) noexcept {
    if (k == 0) return;
    prefix[k] = prefix[k - 1] + static_cast<std::int64_t>(_mm_popcnt_u64(words[k - 1]));
    words[k] = 0;
    to.report(to.to, lo, end, words, prefix);
    lo = end;
    k = 0;
  }
};

// compact_avx512 with Avx512Store::whole into an output beyond the caches
// (Reach::streamed): each block is compacted with whole-vector stores into a
// buffer that stays in L1, and the output's 64-byte lines go out from there,
// each once and whole, with non-temporal stores; only the partial lines at
// either end of the output are written with ordinary stores (the output's
// neighbours may share them). Written straight to the output, each of its
// lines is first read for ownership, as much memory traffic as the output
// itself. The lines go out in bursts of `burst`, once the last store is `lag`
// bytes past them; one burst is a branch that is mostly predicted, one per
// line would not be (AMD Zen 5, family 0x1A model 2, 2^26 entries, x the
// time straight to the output, one process: int32 density 0.5 0.85 to 0.94,
// 0.95 0.81, 0.05 0.93 to 0.95, double 0.87 to 0.89, int8 0.86 to 0.90;
// bursts of 4 lines 0.92 to 0.97 at int32 density 0.5; the whole output
// compacted in chunks of 8 KiB and each streamed out with stream_copy 1.2x).
// The caller fences (stream_fence).
//
// With a Report (Reports) the loop also hands over each block's bits and the
// count kept before it, report_entries entries at a time, from which the
// caller makes the result's row splits: so a mask in rows (dense to ragged,
// ragged by ragged) compacts in one pass, not in a call per row or chunk,
// each starting and ending its own stream and partial lines, with the mask
// read once. (AMD Zen 5, family 0x1A model 2, density 0.5 unless said,
// medians of 25 alternated in one process, x a call per row: dense to
// ragged [4096, 4096] int32 0.89 and 0.92, [8192, 8192] int8 0.86, [4096,
// 4096] double 0.92, int32 at density 0.05 0.92; int32 in 2^20 ragged rows
// of 0..127, x chunks of 2048 each read again for its bounds, 0.91 and 0.92.
// Against a loop that reported each uniform row's bound as it reached it,
// through a call per row: 0.92 to 1.01, and this serves ragged rows too.)
//
// Aligned to 128 bytes, so that where its loop lands follows from its own
// code, not from the code the linker happens to place before it: with GCC 12
// on Zen 5 (family 0x1A model 2) the same loop took 1.5 to 1.8x as long where
// the function began 64 bytes past a 128-byte boundary, in builds that
// differed only in code elsewhere (bench_highway, int32 2^26 at density 0.5,
// the binaries alternated: 16.0 to 20.5 ms against 10.6 to 13.7, Highway's
// loop the same in both; aligned to 128 in both builds, 10.7 to 13.6).
template <std::size_t W, bool Reports, class M>
[[gnu::target("avx512f,avx512bw,avx512vl,avx512vbmi2,bmi2,popcnt"), gnu::aligned(128)]] std::int64_t
compact_stream_avx512(const std::byte* in, M mask, std::int64_t n, std::byte* out,
                      const Report& report = {}) noexcept {
  constexpr auto w = static_cast<std::int64_t>(W);
  constexpr std::int64_t lag = 256, burst = 8;
  // Past this many bytes the lines not yet out move back to the buffer's
  // start: a copy of under a KiB per 4 KiB of output, in L1.
  constexpr std::int64_t wrap = 4096;
  // The buffer bounds every store: at a block's start pos < wrap + 64 *
  // burst + lag (after the bursts fewer than `burst` lines lie `lag` behind
  // pos, and fewer than `wrap` bytes of lines went out from the start), and a
  // block stores at most 64 * W bytes past pos.
  alignas(64) std::byte ring[wrap + 64 * (burst + w) + lag];
  // ring[x] is out[base + x]. The output's first line begins `head` bytes
  // before `out`: those bytes are not the output's, so that line is written
  // from `head` on with ordinary stores.
  auto head = static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(out) & 63);
  std::int64_t base = -head, pos = head, flushed = 0;
  std::int64_t i = 0;
  // Each whole block's mask is tested `lead` blocks early, where its values
  // are requested, and its bits kept here until the loop reaches it: the
  // skip of an empty block then waits for no load when it was mispredicted,
  // and the request can leave out the values of a block that keeps nothing
  // (prefetch_block), unless the block at hand keeps some. (AMD Zen 5, family
  // 0x1A model 2, 2^26 entries, x testing each block as it is reached,
  // medians of 7 to 9 processes: runs of 1..1024 alike int32 0.96, int8 0.94,
  // double 0.96; all false int32 0.47, double 0.32, int8 1.05; density 0.001
  // int32 0.63; density 0.05 0.96, 0.5 1.01, 0.95 0.96, int8 0.96, double 0.85.)
  constexpr std::int64_t ahead = values_ahead<W>, lead = ahead / 64;
  std::uint64_t known[lead] = {};  // known[k % lead]: the bits of block k
  for (std::int64_t k = 0; k < lead && n - 64 * k >= 64; ++k)
    known[k] = mask_bits_avx512(mask + 64 * k, 64);
  [[maybe_unused]] Reported reported;
  for (; n - i >= 64; i += 64) {
    auto& slot = known[(i / 64) % lead];
    const std::uint64_t bits = slot;
    // The block `lead` on, where whole (the loop stops before a partial one).
    slot = n - i - ahead >= 64 ? mask_bits_avx512(mask + (i + ahead), 64) : 0;
    prefetch_block<W, true>(in, mask, i, slot | bits);
    if constexpr (Reports) {
      reported.add(bits, (base + pos) / w);
      if (reported.k == Reported::most) [[unlikely]]
        reported.hand_over(report, i + 64);
    }
    if (bits == 0) continue;  // not even read
    pos = compress_block_whole_avx512<W>(in + i * w, bits, ring + pos,
                                         std::make_integer_sequence<unsigned, W>{}) -
          ring;
    for (; pos - lag >= 64 * (flushed + burst); flushed += burst)
      for (std::int64_t q = flushed; q < flushed + burst; ++q)
        line_out_avx512(ring + 64 * q, out, base + 64 * q, head);
    if (64 * flushed >= wrap) {
      const auto from = 64 * flushed;
      for (std::int64_t at = 0; at < pos - from; at += 64)
        _mm512_store_si512(reinterpret_cast<__m512i*>(ring + at),
                           _mm512_load_si512(ring + from + at));
      base += from;
      pos -= from;
      flushed = 0;
    }
  }
  // The last, partial block: loads masked by its bits, and every store whole
  // (a room of two blocks: the buffer is ours).
  if (i < n) {
    const auto bits = mask_bits_avx512(mask + i, n - i);
    if constexpr (Reports) reported.add(bits, (base + pos) / w);
    pos = block_avx512<W, Avx512Store::whole, false>(in + i * w, bits, ring + pos, 128) - ring;
  }
  if constexpr (Reports) reported.hand_over(report, n);
  // What is left: whole lines, then the last line's part.
  for (; 64 * (flushed + 1) <= pos; ++flushed)
    line_out_avx512(ring + 64 * flushed, out, base + 64 * flushed, head);
  const auto from = std::max(64 * flushed, head);
  if (pos > from)
    copy_bytes(out + (base + from), ring + from, static_cast<std::size_t>(pos - from));
  return (base + pos) / w;
}

// The output of compact_carried_avx512 where a stretch is carried: what the
// compressed vectors keep is put together in a register, `acc` (its first
// `fill` bytes), and each 64-byte line of the output goes out once it is
// whole, with one non-temporal store. No line is read for ownership, and no
// buffer in memory is written and read back: on AMD Zen 4 a line loaded from
// a buffer that the vectors' unaligned stores had just filled waited for them
// (a load that no single store forwards to), and streamed so the output took
// longer than written straight (1-D int32 2^26, ms, medians of 11, one
// process: density 0.95 28.5 through a buffer in L1, 20.0 straight, 16.1
// carried in a register).
struct Carry {
  __m512i acc;
  std::byte* line;    // the output's line that acc holds
  std::int64_t fill;  // acc's bytes [0, fill) are that line's
  std::int64_t head;  // its bytes before `head` are not the output's (the first line)
};

// A carry from `dst` on: the line that holds dst, its bytes before dst not
// ours.
[[gnu::target("avx512f"), gnu::always_inline]] inline Carry carry_from(std::byte* dst) noexcept {
  const auto head = static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(dst) & 63);
  return {_mm512_setzero_si512(), dst - head, head, head};
}

// Appends the first `bytes` bytes of `v` to the carry; a line made whole goes
// out (with an ordinary store masked to the output's bytes, where the line
// is the first and begins before the output). The byte rotation makes one
// path for every width, where rows of two int32 (8-byte elements) may begin
// at any 4-byte offset.
[[gnu::target("avx512f,avx512bw,avx512vbmi"), gnu::always_inline]] inline void carry_put(
    Carry& c, __m512i v, std::int64_t bytes) noexcept {
  const __m512i iota = byte_iota_avx512();
  // Byte j of `rotated` is byte (j - fill) mod 64 of v: v's bytes continue
  // acc's. (Masked, with every byte: GCC 12's unmasked form passes an
  // undefined register through, which -Wmaybe-uninitialized reports.)
  const __m512i rotated = _mm512_maskz_permutexvar_epi8(
      ~0ull, _mm512_sub_epi8(iota, _mm512_set1_epi8(static_cast<char>(c.fill))), v);
  const __m512i merged = _mm512_mask_blend_epi8(~0ull << c.fill, c.acc, rotated);
  c.fill += bytes;
  if (c.fill < 64) {
    c.acc = merged;
    return;
  }
  if (c.head == 0) [[likely]] {
    _mm512_stream_si512(reinterpret_cast<__m512i*>(c.line), merged);
  } else {
    _mm512_mask_storeu_epi8(c.line, ~0ull << c.head, merged);
    c.head = 0;
  }
  c.line += 64;
  c.fill -= 64;
  c.acc = rotated;  // its first `fill` bytes are the rest of v's
}

// Writes the carry's last, partial line with an ordinary store masked to its
// bytes, and returns the end of the output.
[[gnu::target("avx512f,avx512bw,bmi2"), gnu::always_inline]] inline std::byte* carry_end(
    const Carry& c) noexcept {
  const auto bytes = _bzhi_u64(~0ull, static_cast<unsigned>(c.fill)) & (~0ull << c.head);
  _mm512_mask_storeu_epi8(c.line, bytes, c.acc);
  return c.line + c.fill;
}

// Appends `bytes` bytes from `s` to the carry, 64 at a time, the rest with a
// load masked to them (nothing past s + bytes is read). From `whole_from`
// bytes on (and at least 64), the carry's line is topped up and the whole
// lines after it go out straight from `s` (stream_lines_avx512: a load and a
// store per line, where each through the carry takes a rotation and a blend
// as well), the rest into the carry. (Intel family 6 model 167, row selection of 2^26
// float beyond the caches, queued as copy_runs_carried_avx512 with a
// RunQueue, x the runs copied with stream_copy, medians of 12 alternated
// in one process: rows of 4 KiB at density 0.5 0.98 to 1.00 from 256 or
// 1024 bytes, 1.06 to 1.08 through the carry; rows of 400 bytes at density
// 0.9 0.95 to 0.96 from 128 to 2048 bytes, 1.03 through the carry.)
[[gnu::target("avx512f,avx512bw,avx512vbmi,bmi2"), gnu::always_inline]] inline void carry_copy(
    Carry& c, const std::byte* s, std::int64_t bytes,
    std::int64_t whole_from = std::numeric_limits<std::int64_t>::max()) noexcept {
  std::int64_t at = 0;
  if (bytes >= std::max<std::int64_t>(whole_from, 64)) {
    // A carry with no bytes holds none of the output's first line either
    // (its head is 0): the output is at the start of c.line.
    if (c.fill != 0) {
      at = 64 - c.fill;
      carry_put(c, _mm512_maskz_loadu_epi8(_bzhi_u64(~0ull, static_cast<unsigned>(at)), s), at);
    }
    const auto lines = (bytes - at) / 64;
    stream_lines_avx512(reinterpret_cast<unsigned char*>(c.line),
                        reinterpret_cast<const unsigned char*>(s + at),
                        static_cast<std::size_t>(lines));
    c.line += 64 * lines;
    at += 64 * lines;
  }
  for (; bytes - at >= 64; at += 64) carry_put(c, _mm512_loadu_si512(s + at), 64);
  if (at < bytes) {
    const auto rest = bytes - at;
    const auto m = _bzhi_u64(~0ull, static_cast<unsigned>(rest));
    carry_put(c, _mm512_maskz_loadu_epi8(m, s + at), rest);
  }
}

// Row selection (compact.hpp, copy_runs) beyond the caches, each run of
// kept rows (positions [bound(b), bound(e)) of `row_bytes` bytes each)
// appended to a Carry (carry_copy, from `whole_from` bytes its whole lines
// straight), so that every line of the output goes out once, whole, with a
// non-temporal store (the first and last with ordinary stores masked to the
// output's bytes). Runs copied with their own stores leave a partial line at
// either end of each, and there ordinary and non-temporal stores mixed cost
// more than either alone. The input is read as `Reads` says: in order
// (InOrderReads, on a CPU that reads in order, cpu.hpp, reads_in_order,
// where runs are long), or queued (RunQueue). Flattened,
// so that the lambdas (which the target attribute lets use the carry) are
// inlined. Returns the number of positions kept; the caller fences.
template <class Reads, class M, class Bound>
[[gnu::target("avx512f,avx512bw,avx512vbmi,bmi2,popcnt"), gnu::flatten]] std::int64_t
copy_runs_carried_avx512(const std::byte* in, M mask, std::int64_t nrows, Bound bound,
                         std::int64_t row_bytes, std::byte* out, std::int64_t whole_from) noexcept {
  auto carry = carry_from(out);
  Reads reads{in};
  std::int64_t kept = 0;
  const auto copy = [&](std::int64_t lo, std::int64_t hi)
      __attribute__((target("avx512f,avx512bw,avx512vbmi,bmi2"))) {
    carry_copy(carry, in + lo * row_bytes, (hi - lo) * row_bytes, whole_from);
  };
  for_each_run(
      mask, nrows,
      [&](std::int64_t b, std::int64_t e)
          __attribute__((target("avx512f,avx512bw,avx512vbmi,bmi2"))) {
            const auto lo = bound(b), hi = bound(e);
            reads.found(lo, hi, row_bytes, copy);
            kept += hi - lo;
          });
  reads.drain(copy);
  carry_end(carry);
  return kept;
}

// How many blocks compact_whole_avx512 tests ahead (its `ahead`) in a stretch
// of n entries that keeps `kept`, where compact_carried_avx512 writes it
// straight. Its whole stores wait on the next blocks' kept count covering a
// vector's lanes; where that count is about a vector's lanes, the test goes
// either way and its branch is missed about as often. So where a block keeps
// from 3/8 of a vector's lanes to one and a half (int32) or one (double),
// more blocks are counted: the bands are in sixteenths of a vector's lanes
// kept per block (`share`). (AMD Zen 4, family 0x19 model 17, 1-D 2^26 entries, x a Compress
// + StoreU loop in the same process, medians of 11, the loop called with one,
// two or three blocks ahead: int32 density 0.1 1.16 / 1.30 / 1.08, 0.125 1.31
// / 1.17 / 1.08, 0.15 1.42 / 1.09 / 1.15, 0.2 1.31 / 1.10 / 1.16, 0.3 1.11 /
// 1.07, 0.4 1.06 / 1.07; double 0.05 1.13 / 1.15 / 1.09, 0.08 1.15 / 1.05 /
// 1.03, 0.1 1.13 / 1.05 / 1.04, 0.125 1.09 / 1.08 / 1.08, 0.15 1.06 / 1.12 /
// 1.12. The kernel so, against one block ahead: int32 0.11 1.02 against
// 1.20, 0.125 1.05 against 1.34, 0.15 1.02 against 1.32, 0.2 0.98 against
// 1.20, 0.25 1.05 against 1.14, 0.3 and 0.4 1.00 either way; double 0.06
// 0.94 against 1.01, 0.08 0.94 against 1.03, 0.1 0.98 against 1.03.) The same
// bands hold in the caches, where compact_cached_avx512 picks the count per
// call, and int16 has one of its own, measured there and used in Zen 4's
// stretches too: three blocks from a quarter of a vector's lanes per block to
// three quarters (density 1/8 to 3/8). (AMD Zen 5, family 0x1A model 2, x a
// Compress + StoreU loop in the same process, medians of 15, one / two / three
// blocks ahead: int32 2^14 density 0.1 1.57 / 1.26 / 1.07, 0.125 1.30 / 1.08 /
// 0.95, 0.15 1.42 / 0.91 / 0.97, 0.2 1.45 / 1.12 / 0.99, 0.3 1.10 / 1.00 /
// 0.97, from 0.4 on one block as fast as more; int32 2^16 density 0.1 1.21 /
// 1.01 / 0.80; int32 2^20 density 0.05 0.96 to 1.04 / 0.92 to 1.06 / 1.12 to
// 1.25, 0.15 1.02 / 0.95 / 0.93; double 2^13 density 0.05 1.29 / 1.08 / 0.96,
// 0.08 1.45 / 1.04 / 1.00, 0.1 1.40 / 0.98 / 1.03; int16 2^15 density 0.15 1.37
// to 1.55 / 1.28 to 1.47 / 0.95 to 1.20, 0.2 1.44 to 1.81 / 1.09 to 1.42 / 0.90
// to 1.28, 0.3 1.39 to 1.48 / 1.00 to 1.11 / 1.01 to 1.21, 0.1 and 0.4 up
// within about 0.1 of each other.) One-byte elements are unmeasured and test as
// before.
template <std::size_t W>
[[nodiscard]] constexpr std::int64_t blocks_ahead(std::int64_t kept, std::int64_t n) noexcept {
  const std::int64_t share = 16 * static_cast<std::int64_t>(W) * kept;
  if constexpr (W == 4)
    return share < 6 * n ? 1 : share < 9 * n ? 3 : share < 24 * n ? 2 : 1;
  else if constexpr (W == 8)
    return share >= 6 * n && share < 16 * n ? 3 : 1;
  else if constexpr (W == 2)
    return share >= 4 * n && share < 12 * n ? 3 : 1;
  else
    return 1;
}

// Whether compact_cached_avx512 compacts an input whose first n entries keep
// `kept` by stretches (compact_sparse_avx512): from where a stretch of 1024
// entries keeps a vector's lanes on average (blocks_ahead's share of one:
// density 1/32 for int16, 1/64 for int32, 1/128 for doubles) up to where
// blocks_ahead's first band begins, where blocks tested ahead cover a
// vector's lanes (doubles a little into it, to density 1/16, a share of 8).
// Below, compact_whole_avx512, which skips empty blocks unread, is as fast
// or faster. (compact_sparse_avx512 has the figures.)
// Where a stretch's blocks are gathered (`gather`: Reach::gathered), the
// band reaches further, to density 3/16 for int16 and int32 and 1/8 for
// doubles, below where the loop so is as fast as compact_whole_avx512
// testing blocks ahead (gather_block_whole_avx512 has the figures). (For
// int32 about 1/4 on random entries; but rows of three floats, whose lanes
// are kept three at a time, took 1.03 to 1.06 of the time before at density
// 0.2 and 0.25, and 0.96 at 0.15, AMD Zen 5, family 0x1A model 2, 20000
// rows in the caches, before and after alternated in one process.)
template <std::size_t W>
[[nodiscard]] constexpr bool sparse_stretches(std::int64_t kept, std::int64_t n,
                                              bool gather = false) noexcept {
  const std::int64_t share = 16 * static_cast<std::int64_t>(W) * kept;  // as blocks_ahead's
  const std::int64_t top = gather ? (W == 2 ? 6 : W == 4 ? 12 : 16) : W == 2 ? 4 : W == 4 ? 6 : 8;
  return W != 1 && share >= n && share < top * n;
}

// compact_whole_avx512 testing `ahead` blocks ahead, as blocks_ahead says:
// one function per count, chosen at run time.
template <std::size_t W, Reach R, class M>
[[gnu::target("avx512f,avx512bw,avx512vl,avx512vbmi2,bmi2,popcnt"),
  gnu::always_inline]] inline std::int64_t
compact_whole_ahead_avx512(std::int64_t ahead, const std::byte* in, M mask, std::int64_t n,
                           std::byte* out) noexcept {
  if (ahead == 3) return compact_whole_avx512<W, R, 3>(in, mask, n, out);
  if (ahead == 2) return compact_whole_avx512<W, R, 2>(in, mask, n, out);
  return compact_whole_avx512<W, R>(in, mask, n, out);
}

// compact_avx512 with Avx512Store::whole in the caches for a sparse mask
// (sparse_stretches), a stretch of 1024 entries at a time, each block's mask
// tested once, a stretch ahead, and its bits kept until its stretch. A
// stretch's blocks are compressed with whole stores and no test per block
// but whether it is empty, as far as what is kept after them (in the
// stretch, and in the next one) covers a vector's lanes, so that every
// store lands inside the output; its last blocks, where that count falls
// short, and a last, partial block go as compact_whole_avx512. On such masks
// the test of compact_whole_avx512, the next blocks' count, fails nearly
// always, and it stores masked, which in the caches costs about half again
// as much. (AMD Zen 5, family 0x1A model 2, in the caches, x a Compress +
// StoreU loop in the same process, medians of 21, three processes, this loop
// against compact_whole_avx512 testing as many blocks ahead as blocks_ahead
// says: int32 2^14 density 0.02 0.90 to 1.15 against 1.10 to 1.37, 0.05 1.09
// to 1.18 against 1.44 to 1.50, 0.08 1.11 to 1.24 against 1.45 to 1.65, 0.1
// 1.11 to 1.26 against 1.05 to 1.14; doubles 2^13 density 0.01 0.66 to 0.67
// against 0.80 to 0.83, 0.03 0.91 to 1.02 against 1.23 to 1.41, 0.05 1.13 to
// 1.16 against 1.44 to 1.48, 0.0625 1.01 to 1.02 against 0.93 to 1.07, 0.08
// 0.95 to 1.18 against 0.98 to 1.06; int16 2^15 density 0.05 0.86 to 1.36
// against 1.23 to 1.75, 0.12 0.98 to 1.44 against 1.46 to 2.16; int32 runs
// of 1 to 32 kept, density 0.05, 0.41 to 0.49 against 0.49 to 0.54, and 1.21
// without the test for empty blocks. Sparser, int32 density 0.01 0.83 to 0.86
// against 0.73 to 0.77, doubles 0.004 0.30 against 0.24. bench_highway's
// int32 2^14 in the caches at density 0.05, ours x best Highway in paired
// rounds, three processes each: 0.69 to 0.99 against 1.03 to 1.47.)
template <std::size_t W, bool Gather = false, class M>
[[gnu::target("avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi2,popcnt")]] std::int64_t
compact_sparse_avx512(const std::byte* in, M mask, std::int64_t n, std::byte* out) noexcept {
  constexpr auto w = static_cast<std::int64_t>(W);
  constexpr std::int64_t lanes = 64 / w, stretch = 1024;
  std::byte* dst = out;
  std::uint64_t bits[2][stretch / 64];  // this stretch's blocks, and the next one's
  unsigned at = 0;                      // which of them is this stretch's
  (void)test_blocks_avx512(mask, std::min(n, stretch), bits[0]);
  for (std::int64_t i = 0; i < n; i += stretch, at ^= 1) {
    const std::int64_t len = std::min(stretch, n - i);
    std::int64_t after = i + stretch < n
                             ? test_blocks_avx512(mask + (i + stretch),
                                                  std::min(stretch, n - i - stretch), bits[at ^ 1])
                             : 0;
    // Blocks [0, whole) have a vector's lanes kept after them.
    std::int64_t whole = len / 64;
    while (whole > 0 && after < lanes)
      after += static_cast<std::int64_t>(_mm_popcnt_u64(bits[at][--whole]));
    const std::byte* src = in + i * w;
    for (std::int64_t b = 0; b < whole; ++b) {
      const std::uint64_t k = bits[at][b];
      // Gathered, an empty block goes through as any (it stores lanes that
      // later stores overwrite, and adds nothing): a branch on it would be
      // missed as often as blocks are empty.
      if constexpr (Gather) {
        if (static_cast<std::int64_t>(_mm_popcnt_u64(k)) <= lanes) {
          dst = gather_block_whole_avx512<W>(src + 64 * w * b, k, dst);
          continue;
        }
      }
      if (k == 0) continue;
      dst = compress_block_whole_avx512<W>(src + 64 * w * b, k, dst,
                                           std::make_integer_sequence<unsigned, W>{});
    }
    if (const std::int64_t from = 64 * whole; from < len)
      dst += w * compact_whole_avx512<W, Reach::cached>(src + from * w, mask + (i + from),
                                                        len - from, dst);
  }
  return (dst - out) / w;
}

// What a call's first entries keep, by which the loops in the caches choose
// theirs: the first 512 (eight mask tests, where a count of the whole mask
// would read it twice), or all where fewer.
struct Probe {
  std::int64_t kept = 0, n = 0;
};
template <class M>
[[gnu::target("avx512f,avx512bw,bmi2,popcnt"), gnu::always_inline]] inline Probe probe_avx512(
    M mask, std::int64_t n) noexcept {
  const std::int64_t first = std::min<std::int64_t>(n, 512);
  return {count_avx512(mask, first), first};
}

// compact_avx512 with Avx512Store::whole in the caches (Reach::cached, or
// Reach::gathered: `gather`), as what the first entries keep says
// (probe_avx512): by stretches where it is sparse (sparse_stretches;
// gathered, a wider band, each block's kept entries gathered into one
// vector), else compact_whole_avx512 testing as many blocks ahead as
// blocks_ahead says. (AMD Zen 5, family 0x1A model 2, int32 2^14 in the
// caches, three processes: the kernel so took 0.90 to 0.99 of the time of
// the same loop called directly, at density 0.5 and 0.95, where both test
// one block ahead.)
template <std::size_t W, class M>
[[gnu::target("avx512f,avx512bw,avx512vl,avx512vbmi2,bmi2,popcnt")]] std::int64_t
compact_cached_avx512(const std::byte* in, M mask, std::int64_t n, std::byte* out,
                      bool gather) noexcept {
  const Probe first = probe_avx512(mask, n);
  if constexpr (W != 1)
    if (gather && sparse_stretches<W>(first.kept, first.n, true))
      return compact_sparse_avx512<W, true>(in, mask, n, out);
  if (sparse_stretches<W>(first.kept, first.n)) return compact_sparse_avx512<W>(in, mask, n, out);
  return compact_whole_ahead_avx512<W, Reach::cached>(blocks_ahead<W>(first.kept, first.n), in,
                                                      mask, n, out);
}

// Requests the lines of the block of 64 entries at entry `at` (W bytes each)
// that hold an entry `k` keeps, each once: one per set bit's 64-byte vector.
template <std::size_t W>
[[gnu::target("bmi,bmi2"), gnu::always_inline]] inline void request_kept_lines(
    const std::byte* in, std::int64_t at, std::uint64_t k) noexcept {
  constexpr unsigned lanes = 64 / static_cast<unsigned>(W);
  while (k != 0) {
    const auto v = static_cast<unsigned>(_tzcnt_u64(k)) / lanes;
    prefetch_ahead(in, (at + std::int64_t{lanes} * v) * static_cast<std::int64_t>(W));
    k = v + 1 < W ? k & (~0ull << ((v + 1) * lanes)) : 0;
  }
}

// The blocks [i, i + 64 * blocks) of a stretch that keeps few entries
// (compact_carried_avx512), `bits` each block's mask: of each block only the
// lines that hold kept entries are read (empty blocks skipped, and vectors
// that keep nothing: a masked load with no lane set may still bring in its
// line), and the lines that hold kept entries 16 KiB ahead are requested,
// each alone; after a stretch that requested none (`requested` false), the
// first 16 KiB's at once. A CPU that reads in order (AMD Zen 4) streams every
// line of an input read without gaps, needed or not; here it is asked only
// for the few that are needed. Where more than about one line in twenty
// holds a kept entry, the hardware's stream is faster than requests of
// single lines. (AMD Zen 4, family 0x19 model 17, 1-D 2^26 entries, new x
// every stretch read in order, medians of 11 to 15 alternated in one
// process: int32 at density 0.0001 0.25 to 0.36, 0.001 0.35, 0.002 0.60,
// 0.003 0.66 to 0.68, 0.004 0.94 to 1.04, 0.005 1.06 to 1.07, 0.006 1.02,
// 0.008 0.99; double 2^25 at 0.001 0.23, 0.003 0.34, 0.006 0.47, 0.01 and
// 0.015 1.01 to 1.03. At 0.001, int32 took 0.47 x Highway's Compress +
// StoreU with a block's every vector loaded masked, 0.43 with only those
// that keep some, 0.34 with the first lines requested at once. int16 took
// 0.89 to 1.01 at 0.0001 to 0.001 and int8 1.16 to 2.08, whose lines hold
// 32 and 64 entries: not for them. A standalone loop that requested 8 and
// 32 KiB ahead took int32 at 0.001 0.36 to 0.44 and 0.39 x Highway's, 16 KiB
// 0.33, and none 0.56.) The stores are masked: there are few.
template <std::size_t W, class M>
[[gnu::target("avx512f,avx512bw,avx512vl,avx512vbmi2,bmi,bmi2,popcnt")]] std::byte*
compact_lines_avx512(const std::byte* in, M mask, std::int64_t n, std::int64_t i,
                     const std::uint64_t* bits, std::int64_t blocks, bool requested,
                     std::byte* dst) noexcept {
  constexpr auto w = static_cast<std::int64_t>(W);
  constexpr std::int64_t ahead = 16384 / (64 * w);  // blocks
  constexpr unsigned lanes = 64 / static_cast<unsigned>(W);
  // After a stretch that requested nothing, this one's first lines at once.
  if (!requested)
    for (std::int64_t b = 0; b < std::min(blocks, ahead); ++b)
      request_kept_lines<W>(in, i + 64 * b, bits[b]);
  for (std::int64_t b = 0; b < blocks; ++b) {
    if (const std::int64_t at = i + 64 * (b + ahead); n - at >= 64)
      request_kept_lines<W>(in, at, mask_bits_avx512(mask + at, 64));
    if (bits[b] == 0) continue;
    // A vector that keeps nothing is not loaded at all: a masked load with
    // no lanes set may still bring in its line.
    const std::byte* src = in + (i + 64 * b) * w;
    for (unsigned v = 0; v < W; ++v) {
      const std::uint64_t k = _bzhi_u64(bits[b] >> (v * lanes), lanes);
      if (k == 0) continue;
      using Op = Lanes512<W>;
      const auto kept = static_cast<unsigned>(_mm_popcnt_u64(k));
      Op::store(dst, _bzhi_u64(~0ull, kept),
                Op::compress(k, Op::load(k, src + std::ptrdiff_t{64} * v)));
      dst += kept * w;
    }
  }
  return dst;
}

// The lanes of `v` rotated up by `s` (0 to 16): lane j of the result is
// lane (j - s) mod 16 of v. (Masked, with every lane: GCC 12's unmasked form
// passes an undefined register through, which -Wmaybe-uninitialized
// reports.)
[[gnu::target("avx512f"), gnu::always_inline]] inline __m512i rotate_lanes32(__m512i v,
                                                                             int s) noexcept {
  const __m512i iota = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  return _mm512_maskz_permutexvar_epi32(0xffff, _mm512_sub_epi32(iota, _mm512_set1_epi32(s)), v);
}

// Lanes [s, 32) of two vectors end to end (`lo` then `hi`), from s = 0 to 32;
// the lanes past them are any.
[[gnu::target("avx512f"), gnu::always_inline]] inline __m512i lanes_from32(__m512i lo, __m512i hi,
                                                                           int s) noexcept {
  const __m512i iota = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  return _mm512_permutex2var_epi32(lo, _mm512_add_epi32(iota, _mm512_set1_epi32(s)), hi);
}

// The blocks of a stretch of 4-byte entries (compact_carried_avx512), `bits`
// each of its `blocks` blocks' mask, appended to a Carry `c` whose fill and
// head are whole lanes: every output line goes out whole, streamed. Each
// block's four compressed vectors are first put together with no branch
// (pairs by a rotation, then both pairs by permutes of two vectors) into
// four vectors x0..x3 of its P kept entries; appended to the carry's f
// lanes they make the lines o0..o4, of which the first (f + P) / 16 are
// whole and go out, and the next is the carry's. carry_put's branch per
// vector ("line whole?") goes either way at most densities and is missed
// half the time; here the branches are one per whole line of a block, and
// each goes mostly one way (at density 0.5 a block completes two lines
// about four times in five, one or three the rest). (AMD Zen 4, family
// 0x19 model 17, 1-D int32 2^26, medians of 15 alternated in one process,
// two processes, x a Compress + StoreU loop: density 0.5 0.80 to 0.82 against 0.96 to 1.06
// written straight before, 0.7 0.74 to 0.78 against 0.88 to 1.13 carried
// by carry_put, 0.95 0.71 to 0.77 against 0.80 to 0.84, 0.3 0.81 to 0.87
// against 0.98 to 1.00; new x before, 0.12 0.87 to 0.99, 0.08 0.91 to 0.96,
// runs of 1..1024 0.97 to 0.97, but 0.05 1.01 to 1.05: compact_carried_avx512
// says where it runs.)
[[gnu::target("avx512f,avx512bw,avx512vl,avx512vbmi2,bmi2,popcnt"), gnu::always_inline]] inline void
carry_blocks32_avx512(Carry& c, const std::byte* in, const std::uint64_t* bits,
                      std::int64_t blocks) noexcept {
  using Op = Lanes512<4>;
  auto f = static_cast<int>(c.fill / 4);  // lanes held
  __m512i acc = c.acc;
  std::byte* line = c.line;
#pragma GCC unroll 1
  for (std::int64_t b = 0; b < blocks; ++b) {
    const std::byte* src = in + 256 * b;
    const std::uint64_t k = bits[b];
    const std::uint64_t k0 = k & 0xffff, k1 = (k >> 16) & 0xffff, k2 = (k >> 32) & 0xffff,
                        k3 = k >> 48;
    const auto p0 = static_cast<int>(_mm_popcnt_u64(k0)), p1 = static_cast<int>(_mm_popcnt_u64(k1)),
               p2 = static_cast<int>(_mm_popcnt_u64(k2)), p3 = static_cast<int>(_mm_popcnt_u64(k3));
    const __m512i v0 = Op::compress(k0, _mm512_loadu_si512(src)),
                  v1 = Op::compress(k1, _mm512_loadu_si512(src + 64)),
                  v2 = Op::compress(k2, _mm512_loadu_si512(src + 128)),
                  v3 = Op::compress(k3, _mm512_loadu_si512(src + 192));
    // Pairs: a = v0's p0 then v1's p1, b = v2's p2 then v3's p3, two
    // vectors each (the second, the rotated one, holds what passes 16).
    const __m512i a1 = rotate_lanes32(v1, p0), b1 = rotate_lanes32(v3, p2);
    const __m512i a0 = _mm512_mask_mov_epi32(v0, static_cast<__mmask16>(0xffffu << p0), a1);
    const __m512i b0 = _mm512_mask_mov_epi32(v2, static_cast<__mmask16>(0xffffu << p2), b1);
    // The block, x0..x3: a's q lanes then b's.
    const int q = p0 + p1, kept = q + p2 + p3;
    const std::uint64_t from_b = ~0ull << q;  // of lanes 0 to 31
    const __m512i x0 =
        _mm512_mask_mov_epi32(a0, static_cast<__mmask16>(from_b), lanes_from32(b0, b1, -q));
    const __m512i x1 = _mm512_mask_mov_epi32(a1, static_cast<__mmask16>(from_b >> 16),
                                             lanes_from32(b0, b1, 16 - q));
    const __m512i x2 = lanes_from32(b0, b1, 32 - q), x3 = lanes_from32(b0, b1, 48 - q);
    // Appended to the carry's f lanes: the lines o0..o4.
    const __m512i o0 =
        _mm512_mask_mov_epi32(acc, static_cast<__mmask16>(0xffffu << f), rotate_lanes32(x0, f));
    const __m512i o1 = lanes_from32(x0, x1, 16 - f), o2 = lanes_from32(x1, x2, 16 - f),
                  o3 = lanes_from32(x2, x3, 16 - f), o4 = rotate_lanes32(x3, f);
    const int total = f + kept, whole = total >> 4;
    f = total & 15;
    if (whole >= 1) {
      if (c.head == 0) [[likely]] {
        _mm512_stream_si512(reinterpret_cast<__m512i*>(line), o0);
      } else {
        _mm512_mask_storeu_epi8(line, ~0ull << c.head, o0);
        c.head = 0;
      }
      if (whole >= 2) {
        _mm512_stream_si512(reinterpret_cast<__m512i*>(line + 64), o1);
        if (whole >= 3) {
          _mm512_stream_si512(reinterpret_cast<__m512i*>(line + 128), o2);
          if (whole >= 4) _mm512_stream_si512(reinterpret_cast<__m512i*>(line + 192), o3);
        }
      }
    }
    line += std::ptrdiff_t{64} * whole;
    // The carry: the line after the whole ones.
    const auto all = [](bool t) { return static_cast<__mmask16>(t ? 0xffff : 0); };
    acc = _mm512_mask_mov_epi32(o0, all(whole >= 1), o1);
    acc = _mm512_mask_mov_epi32(acc, all(whole >= 2), o2);
    acc = _mm512_mask_mov_epi32(acc, all(whole >= 3), o3);
    acc = _mm512_mask_mov_epi32(acc, all(whole >= 4), o4);
  }
  c.acc = acc;
  c.line = line;
  c.fill = std::int64_t{4} * f;
}

// compact_avx512 with Avx512Store::whole into an output beyond the caches, on
// a CPU that reads its inputs in order (Reach::carried; cpu.hpp,
// reads_in_order), a stretch of `stretch` entries at a time. Each stretch's
// mask is tested first, its blocks' bits kept and counted. A stretch whose
// carry branches the predictor foresees is compressed into a Carry and goes
// out in whole lines with non-temporal stores: one that keeps at least 5/8
// of its entries (most vectors fill a line), or one with at most a quarter
// of its blocks mixed, neither empty nor full (runs: empty blocks add
// nothing, full ones a line each). The others, and the last entries (under
// 1024, and a part block), are compacted as in_order (testing as many blocks ahead as
// blocks_ahead says), straight to the output, where a line's
// read for ownership costs less than the carry's steps per vector and its
// branch, which at density 0.5 goes either way. (AMD Zen 4, family 0x19
// model 17, 1-D int32 2^26, ms, medians of 11 in each of two processes,
// carried against straight: density 0.95 16.1 to 18.1 against 20.0 to 23.4,
// 0.8 17.4 against 19.6 to 21.5, 0.5 16.4 to 17.1 against 15.8 to 18.2, 0.4
// 17.4 to 17.8 against 14.6 to 16.2, 0.05 14.7 to 15.5 against 12.9 to 14.8;
// at 2^28 entries the same. Carried from 5/8 kept rather than 3/4, x a
// Compress + StoreU loop in the same process, medians of 11: density 0.75
// 0.93 against 1.08 to 1.10, 0.65 0.95 against 1.02, 0.6 1.00 to 1.02
// against 1.01 to 1.03, 0.5 0.98 to 0.99 either way; from 9/16 density 0.5
// took 1.02, from 1/2 1.07. Where density 0.5 was carried, its speed turned
// with where the loop landed in the binary: two builds whose loops were the
// same instructions at other addresses took 0.93 and 1.08 x Highway's best
// loop, paired rounds, two processes each; built with loops aligned to 32
// or 64 bytes 1.23 and 1.14.) Testing a stretch's mask before its values
// are read also sped up the stretches written straight: bench_highway, ours
// x Highway's Compress + StoreU in the same process, three to nine processes
// each, every block read in order as one loop against stretches of 4096:
// int32 density 0.05 1.01 to 1.15 against 0.87 to 0.92, density 0.5 1.02 to
// 1.08 against 0.91 to 0.95, [4096, 4096] with a 2-D mask 0.98 to 1.10
// against 0.84 to 0.98. Stretches of 1024 took runs of 1..1024 alike 1.22
// to 1.38, of 2048 0.93 to 1.15, of 4096 0.76 to 0.99 (docs/performance.md,
// "Zen 4: the output carried in a register"). Runs carried too, and the
// loop over a block's vectors kept rolled: bench_highway's paired rounds,
// ours x best Highway, two processes each, against runs straight and that
// loop unrolled (as GCC's -O3 unrolls it, each vector's "line whole?"
// branch in a place of its own): runs of 1..1024 alike 0.87 against 1.02 to
// 1.06, density 0.95 0.79 against 0.87 to 0.89, the other workloads within
// 0.03. 4-byte entries go carried from density 1/16 up, by blocks
// (carry_blocks32_avx512), in calls of four stretches or more. A carry stays
// open from one carried stretch to the next: closed at each stretch's end,
// its partial lines stored and begun again with ordinary stores, density 0.5
// by blocks took 0.91 to 0.95 x Highway's Compress + StoreU loop against
// 0.80 to 0.84 (same harness as carry_blocks32_avx512). With a Report
// (Reports) each stretch's bits and the counts kept before each block are
// handed over as the stretch is tested, and the last entries' after them,
// so that a mask in rows (dense to ragged, ragged by ragged) compacts in one
// call, the carry open across its rows, as compact_stream_avx512 does. The
// caller fences (stream_fence).
template <std::size_t W, class M, bool Reports = false>
[[gnu::target("avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi2,popcnt")]] std::int64_t
compact_carried_avx512(const std::byte* in, M mask, std::int64_t n, std::byte* out,
                       const Report& report = {}) noexcept {
  constexpr auto w = static_cast<std::int64_t>(W);
  constexpr std::int64_t stretch = 4096, tail = 1024;
  constexpr unsigned lanes = 64 / static_cast<unsigned>(W);
  std::byte* dst = out;
  std::int64_t i = 0;
  [[maybe_unused]] bool lines = false;  // the last stretch was compact_lines_avx512's
  // A carry stays open from one carried stretch to the next, so that the
  // output between them goes out in whole lines too; while it is, the
  // output's end is the carry's, not dst.
  Carry carry = carry_from(out);
  bool open = false;
  [[maybe_unused]] std::int64_t before = 0;  // kept before the stretch (Reports)
  // The last stretch may be shorter, down to `tail` entries, so that inputs
  // of a few stretches and a part (compact_lanes' chunks of 3, 5 or 7 lanes
  // a row) are not left to the straight loop in part.
  for (std::int64_t len = 0; n - i >= tail; i += len) {
    len = std::min(stretch, (n - i) / 64 * 64);
    const std::int64_t blocks = len / 64;
    std::uint64_t bits[stretch / 64 + 1];
    [[maybe_unused]] std::int64_t prefix[stretch / 64 + 1];
    std::int64_t kept = 0, mixed = 0;
    for (std::int64_t b = 0; b < blocks; ++b) {
      bits[b] = mask_bits_avx512(mask + (i + 64 * b), 64);
      if constexpr (Reports) prefix[b] = before + kept;
      kept += static_cast<std::int64_t>(_mm_popcnt_u64(bits[b]));
      mixed += bits[b] + 1 > 1;  // neither empty nor full
    }
    if constexpr (Reports) {
      bits[blocks] = 0;
      prefix[blocks] = before += kept;
      report.report(report.to, i, i + len, bits, prefix);
    }
    // Few kept (compact_lines_avx512): taken from at most one line in twenty
    // holding a kept entry (kept counts at least those lines), kept while at
    // most one in twelve, so that masks about the bound do not change loops
    // at every stretch. Only in calls of four stretches or more: shorter
    // ones (a ragged mask's chunks, dense rows to ragged ones) cannot
    // request ahead across calls, and each would break the stream the
    // hardware keeps from one call to the next.
    if constexpr (W >= 4) {
      if (n >= 4 * stretch) {
        const bool requested = lines;
        lines = (lines ? 12 : 20) * kept <= blocks * w;
        if (lines) {
          if (open) dst = carry_end(carry), open = false;
          dst = compact_lines_avx512<W>(in, mask, n, i, bits, blocks, requested, dst);
          continue;
        }
      }
    }
    // 4-byte entries: every stretch that keeps a sixteenth or more goes out
    // carried, its blocks put together whole (carry_blocks32_avx512), where
    // the output is at a whole lane. Sparser ones, where the straight loop
    // runs at the speed of its reads, stay straight. So do calls shorter
    // than four stretches, whose carry would end at each call's end: dense
    // rows to ragged ones, a call per row, took 1.01 to 1.04 x Highway's
    // Compress + StoreU loop against 0.99 to 1.00 straight (bench_highway,
    // paired, three processes each); in one call that reports its mask
    // (Reports) they take 0.91 to 0.96.
    if constexpr (W == 4) {
      if (16 * kept >= len && n >= 4 * stretch && reinterpret_cast<std::uintptr_t>(out) % 4 == 0) {
        if (!open) carry = carry_from(dst), open = true;
        carry_blocks32_avx512(carry, in + i * w, bits, blocks);
        continue;
      }
    }
    if (8 * kept < 5 * len && 4 * mixed > blocks) {
      if (open) dst = carry_end(carry), open = false;
      dst += w * compact_whole_ahead_avx512<W, Reach::in_order>(blocks_ahead<W>(kept, len),
                                                                in + i * w, mask + i, len, dst);
      continue;
    }
    // Both loops kept rolled (above): the loop over a block's vectors by
    // GCC's pragma, which Clang reads too; the loop over blocks, which Clang
    // otherwise unrolls whole, by Clang's.
    if (!open) carry = carry_from(dst), open = true;
#ifdef __clang__
#pragma clang loop unroll(disable)
#endif
    for (std::int64_t b = 0; b < blocks; ++b) {
      const std::byte* src = in + (i + 64 * b) * w;
#pragma GCC unroll 1
      for (unsigned v = 0; v < W; ++v) {
        const std::uint64_t k = _bzhi_u64(bits[b] >> (v * lanes), lanes);
        const __m512i c =
            Lanes512<W>::compress(k, _mm512_loadu_si512(src + std::ptrdiff_t{64} * v));
        carry_put(carry, c, static_cast<std::int64_t>(_mm_popcnt_u64(k)) * w);
      }
    }
  }
  if (open) dst = carry_end(carry);
  if constexpr (Reports) {
    if (i < n) {
      std::uint64_t words[tail / 64 + 2];
      std::int64_t prefix[tail / 64 + 2];
      std::int64_t k = 0;
      for (prefix[0] = before; 64 * k < n - i; ++k) {
        words[k] = mask_bits_avx512(mask + (i + 64 * k), n - i - 64 * k);
        prefix[k + 1] = prefix[k] + static_cast<std::int64_t>(_mm_popcnt_u64(words[k]));
      }
      words[k] = 0;
      report.report(report.to, i, n, words, prefix);
    }
  }
  if (i < n) dst += w * compact_whole_avx512<W, Reach::in_order>(in + i * w, mask + i, n - i, dst);
  return (dst - out) / w;
}

// One step of kept_limits_avx512: of the lengths of a vector of rows (lanes of
// B bytes, 4 or 8: row r's length splits[r + 1] - splits[r], from `s`), the
// ones `keep` selects moved to the front and summed in place, lane i the sum
// of the first i + 1, each plus `total`, stored to sp[0, kept). Every lane past
// them (zeroed, then summed) holds the sum of all: the last lane moves `total`
// on. (Masked forms with every lane: GCC 12's unmasked ones pass an undefined
// register through, which -Wmaybe-uninitialized reports.)
template <std::size_t B, class Index>
[[gnu::target("avx512f,avx512vl,avx512vbmi2,bmi2"), gnu::always_inline]] inline void
kept_limits_step_avx512(std::uint64_t keep, unsigned kept, const Index* s, Index* sp,
                        __m512i& total) noexcept {
  const __m512i z = _mm512_setzero_si512(), a = _mm512_loadu_si512(s),
                b = _mm512_loadu_si512(s + 1);
  const auto to = _bzhi_u32(~0u, kept);
  if constexpr (B == 8) {
    __m512i v = _mm512_maskz_compress_epi64(static_cast<__mmask8>(keep), _mm512_sub_epi64(b, a));
    v = _mm512_add_epi64(v, _mm512_maskz_alignr_epi64(0xff, v, z, 7));  // + the lane 1 before
    v = _mm512_add_epi64(v, _mm512_maskz_alignr_epi64(0xff, v, z, 6));  // + 2 before
    v = _mm512_add_epi64(v, _mm512_maskz_alignr_epi64(0xff, v, z, 4));  // + 4 before
    _mm512_mask_storeu_epi64(sp, static_cast<__mmask8>(to), _mm512_add_epi64(v, total));
    total = _mm512_add_epi64(total, _mm512_maskz_permutexvar_epi64(0xff, _mm512_set1_epi64(7), v));
  } else {
    __m512i v = _mm512_maskz_compress_epi32(static_cast<__mmask16>(keep), _mm512_sub_epi32(b, a));
    v = _mm512_add_epi32(v, _mm512_maskz_alignr_epi32(0xffff, v, z, 15));
    v = _mm512_add_epi32(v, _mm512_maskz_alignr_epi32(0xffff, v, z, 14));
    v = _mm512_add_epi32(v, _mm512_maskz_alignr_epi32(0xffff, v, z, 12));
    v = _mm512_add_epi32(v, _mm512_maskz_alignr_epi32(0xffff, v, z, 8));
    _mm512_mask_storeu_epi32(sp, static_cast<__mmask16>(to), _mm512_add_epi32(v, total));
    total =
        _mm512_add_epi32(total, _mm512_maskz_permutexvar_epi32(0xffff, _mm512_set1_epi32(15), v));
  }
}

// The splits of a row selection (compact.hpp, kept_limits) over the whole
// words of 64 rows from row 0: sp[1..k], the running total of the lengths of
// the rows that `mask` keeps, k the number kept. Returns the rows done (a
// multiple of 64; the caller does the rest) and sets `k`. A vector of rows a
// step (kept_limits_step_avx512). (AMD Zen 4, family 0x19 model 17, 2^20
// rows, int64 splits, every other row kept, beyond the caches, medians of 21:
// 0.80 to 0.86 ms against 1.08 to 1.09 for kept_limits' loop of a row a
// step.)
template <class Index, class M>
[[gnu::target("avx512f,avx512bw,avx512vl,avx512vbmi2,bmi2,popcnt")]] std::int64_t
kept_limits_avx512(M mask, std::int64_t nrows, const Index* splits, Index* sp,
                   std::int64_t& k) noexcept {
  constexpr std::size_t B = sizeof(Index);
  static_assert(B == 4 || B == 8);
  constexpr int lanes = 64 / static_cast<int>(B);
  __m512i total = _mm512_setzero_si512();
  std::int64_t base = 0;
  k = 0;
  for (; nrows - base >= 64; base += 64) {
    const std::uint64_t bits = mask_bits_avx512(mask + base, 64);
    for (int g = 0; g < 64 / lanes; ++g) {
      const auto keep = _bzhi_u64(bits >> (g * lanes), lanes);
      const auto kept = static_cast<unsigned>(_mm_popcnt_u64(keep));
      kept_limits_step_avx512<B>(keep, kept, splits + base + g * lanes, sp + k + 1, total);
      k += kept;
    }
  }
  return base;
}

// Block by block, each block's stores needing only its own mask (S: masked
// or compress_store), each block requested ahead where R is beyond the caches
// (Reach::beyond, or into L2: Reach::into_l2), nothing requested where it is
// Reach::cached.
// Masks of whole blocks are loaded whole, and only the tail's (the last
// block, or two) with a load masked to the input's end: masked loads, even
// with every lane set, cost the loop in cache. (AMD Zen 5, family 0x1A model 2,
// density 0.5, x memcpy, one process: 1-D int8 2^16 2.73 with every mask
// load masked, 1.64 so; int32 2^14 with masked stores 1.81 against 1.34.)
template <std::size_t W, Avx512Store S, Reach R, class M>
[[gnu::target("avx512f,avx512bw,avx512vl,avx512vbmi2,bmi2,popcnt"),
  gnu::always_inline]] inline std::int64_t
compact_blocks_avx512(const std::byte* in, M mask, std::int64_t n, std::byte* out) noexcept {
  static_assert(R == Reach::cached || R == Reach::beyond || R == Reach::into_l2);
  constexpr auto w = static_cast<std::int64_t>(W);
  std::byte* dst = out;
  std::int64_t i = 0;
  for (; n - i >= 64; i += 64) {
    if constexpr (R != Reach::cached) prefetch_block<W, false, R == Reach::into_l2>(in, mask, i);
    dst = block_avx512<W, S, true>(in + i * w, mask_bits_avx512(mask + i, 64), dst, 0);
  }
  if (i < n) dst = block_avx512<W, S, false>(in + i * w, mask_bits_avx512(mask + i, n - i), dst, 0);
  return (dst - out) / w;
}

// Whether, at the compress-store level in the caches, compress + masked
// store runs faster than compress-store for entries of W bytes where the
// first n entries keep `kept`: bytes always, int16 below density 7/8, int32
// from 3/8 to 3/4, doubles never. (Intel family 6 model 167, 64 KiB in the
// caches, masked x compress-store, medians of 31, three rounds: int8 0.48 to
// 0.83 at every density; int16 0.78 to 0.91 from 0.05 to 0.8, 1.01 to 1.12
// at 0.9 and 0.95; int32 0.88 to 0.96 from 0.4 to 0.7, 0.97 to 1.19 from
// 0.05 to 0.35 (0.99 at 0.35), 1.04 to 1.09 from 0.8 to 0.95; doubles 0.96
// to 1.31; beyond the caches 0.99 to 1.04 everywhere.)
template <std::size_t W>
[[nodiscard]] constexpr bool masked_in_caches(std::int64_t kept, std::int64_t n) noexcept {
  if constexpr (W == 1) return true;
  if constexpr (W == 2) return 8 * kept < 7 * n;
  if constexpr (W == 4) return 8 * kept >= 3 * n && 4 * kept < 3 * n;
  return false;
}

// The kernel at AVX-512, block by block. Beyond the caches (every Reach but
// cached and gathered) each block requests one ahead (prefetch_block); in
// them the masked and compress-store levels choose by what the first 512
// entries keep (gathered stretches, masked stores: below). (Where the stores
// are masked, one block loop per Reach it tells apart, none testing a flag per
// block. Intel family 6 model 167, 1-D int32 2^26 straight to the output at
// density 0.05 and 0.001, one process each, x the one loop of before, which
// tested whether to request: 1.02 to 1.04 with a second flag for into_l2,
// 0.95 to 1.00 so.)
// With Avx512Store::whole, streamed outputs go out through L1
// (compact_stream_avx512), Reach::in_order inputs are read block by block
// with no requests (compact_whole_avx512), and Reach::carried outputs are
// carried in a register where a stretch keeps most or holds runs
// (compact_carried_avx512).
//
// Avx512Store::whole (compact_whole_avx512): while the step's blocks (one, or
// two in the caches) and the next `ahead` are whole, the next blocks' kept
// count decides: where it covers a vector's lanes, every store of the step
// is a whole vector (compress_block_whole_avx512, no case per vector); else
// the stores are chosen per vector by `room`. Each block's mask is tested
// once, as a next block's, and its bits carried to the step that compacts
// it; each vector's lane mask is those bits shifted.
// (AMD Zen 5, family 0x1A model 2, bench_highway's int32 2^14 in cache, x
// memcpy: 1.30 to 1.32 so, 1.45 to 1.86 testing both blocks' masks afresh
// each step and each vector's lane mask again from its own bytes, three
// processes each; GCC 12 and Clang 14 both keep the bits in registers.)
template <std::size_t W, Avx512Store S, class M>
[[gnu::target("avx512f,avx512bw,avx512vl,avx512vbmi2,bmi2,popcnt")]] std::int64_t compact_avx512(
    const std::byte* in, M mask, std::int64_t n, std::byte* out, Reach reach) noexcept {
  if constexpr (S == Avx512Store::whole) {
    if (reach == Reach::streamed) return compact_stream_avx512<W, false>(in, mask, n, out);
    if (reach == Reach::in_order) return compact_whole_avx512<W, Reach::in_order>(in, mask, n, out);
    if (reach == Reach::carried) return compact_carried_avx512<W>(in, mask, n, out);
  }
  const bool prefetch = reach != Reach::cached && reach != Reach::gathered;
  if constexpr (S != Avx512Store::whole) {
    // In the caches, as what the first entries keep says (probe_avx512): on a
    // CPU that gathers sparse blocks (Reach::gathered), a sparse mask by
    // stretches, as with whole-vector stores (their whole stores stay inside
    // the output here too); with compress-store, masked stores where they
    // run faster (masked_in_caches).
    if (!prefetch && (reach == Reach::gathered || S == Avx512Store::compress_store)) {
      const Probe first = probe_avx512(mask, n);
      if constexpr (W != 1)
        if (reach == Reach::gathered && sparse_stretches<W>(first.kept, first.n, true))
          return compact_sparse_avx512<W, true>(in, mask, n, out);
      if constexpr (S == Avx512Store::compress_store)
        if (masked_in_caches<W>(first.kept, first.n))
          return compact_blocks_avx512<W, Avx512Store::masked, Reach::cached>(in, mask, n, out);
    }
  }
  // Bytes in the caches store masked even where whole vectors run: there a
  // whole store, which spans two lines wherever the output is not aligned,
  // costs more than it spares (AMD Zen 5, family 0x1A model 2, int8 2^16, x
  // memcpy: density 0.5 2.16 to 2.18 whole against 1.66 masked, 0.05 2.86
  // against 1.60).
  constexpr auto own = S == Avx512Store::whole ? Avx512Store::masked : S;
  if (S != Avx512Store::whole || (W == 1 && !prefetch)) {
    if (!prefetch) return compact_blocks_avx512<W, own, Reach::cached>(in, mask, n, out);
    if (reach == Reach::into_l2)
      return compact_blocks_avx512<W, own, Reach::into_l2>(in, mask, n, out);
    return compact_blocks_avx512<W, own, Reach::beyond>(in, mask, n, out);
  }
  if constexpr (W == 1)  // bytes in the caches stored masked, above
    return compact_whole_avx512<W, Reach::beyond>(in, mask, n, out);
  else
    return prefetch ? compact_whole_avx512<W, Reach::beyond>(in, mask, n, out)
                    : compact_cached_avx512<W>(in, mask, n, out, reach == Reach::gathered);
}

}  // namespace detail
}  // namespace kernel
}  // namespace v0_1
}  // namespace ragged
#endif
