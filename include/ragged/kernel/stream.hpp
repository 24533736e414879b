// SPDX-License-Identifier: Apache-2.0
// Copies for outputs larger than the caches: non-temporal stores, so that the
// output is not first read into the cache only to be overwritten (which costs
// as much memory traffic as the write itself). Internal: used by compact.hpp.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>  // SSE2 is part of every x86-64; AVX-512 under a target attribute
#endif

namespace ragged {
inline namespace v0_1 {
namespace kernel {
namespace detail {

/// Where a compaction's data lie, which decides how it moves them (chosen per
/// call, compact.hpp: compaction_for):
/// - cached: input and output in the caches;
/// - beyond: the input beyond them, its blocks requested ahead;
/// - streamed: the output beyond them too, not to be read again soon. Where
///   the level writes straight to the output (Avx512Store::whole), the
///   output's lines go out whole with non-temporal stores, unfenced: the
///   caller calls stream_fence(). Elsewhere as beyond (the caller stages and
///   streams, compact.hpp: compact_chunked);
/// - in_order: the input beyond the caches, read block by block without gaps
///   and nothing requested ahead, where the level writes straight to the
///   output (Avx512Store::whole) on a CPU whose prefetcher streams only an
///   input so read (cpu.hpp, reads_in_order); elsewhere as beyond;
/// - carried: as in_order, and the output beyond the caches too, not to be
///   read again soon: where a stretch of the input keeps most of its entries
///   or holds runs, its output goes out in whole lines with non-temporal
///   stores, carried between them in a register (avx512.hpp,
///   compact_carried_avx512), unfenced: the caller calls stream_fence().
///   Elsewhere as in_order;
/// - gathered: as cached, at AVX-512 a sparse mask's blocks each gathered
///   into one vector (avx512.hpp, gather_block_whole_avx512), on a CPU that
///   runs that faster (cpu.hpp, gathers_sparse_blocks). Elsewhere as cached;
/// - into_l2: as beyond, at the masked and compress-store levels each block's
///   values requested into L2 4 KiB ahead and into L1 1 KiB ahead, and no
///   region requested (avx512.hpp, prefetch_block), on a CPU whose loops read
///   faster so (cpu.hpp, requests_into_l2). Elsewhere as beyond.
enum class Reach : unsigned char { cached, beyond, streamed, in_order, carried, gathered, into_l2 };

// How a compaction that reports as it goes (compact() with mask rows) hands
// over what it read: after every report_entries entries, and after the last,
// report(to, lo, end, words, prefix) for the entries [lo, end), with their
// mask bits (words[k]: entries lo + 64k on) and the count kept before each
// word (prefix[k]; prefix[nwords], after the last word, the count at end;
// words[nwords] zero). A pointer to a function of the caller's, once a
// report, so that the loop is compiled once whatever the caller's rows.
inline constexpr std::int64_t report_entries = 8192;
struct Report {
  void* to = nullptr;
  void (*report)(void* to, std::int64_t lo, std::int64_t end, const std::uint64_t* words,
                 const std::int64_t* prefix) noexcept = nullptr;
};

// From this many input bytes on, the kernel streams its output: well past a
// core's L2, where an output is not read again before it leaves the cache.
inline constexpr std::int64_t stream_threshold_bytes = std::int64_t{16} << 20;

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
// `lines` whole 64-byte lines to a 64-byte aligned `d`, with non-temporal
// stores: SSE2's four per line on every x86-64, AVX-512's one where it runs.
inline void stream_lines_sse2(unsigned char* d, const unsigned char* s,
                              std::size_t lines) noexcept {
  for (; lines; --lines, d += 64, s += 64) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 16));
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 32));
    const __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 48));
    _mm_stream_si128(reinterpret_cast<__m128i*>(d), a);
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + 16), b);
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + 32), c);
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + 48), e);
  }
}
[[gnu::target("avx512f")]] inline void stream_lines_avx512(unsigned char* d, const unsigned char* s,
                                                           std::size_t lines) noexcept {
  for (; lines; --lines, d += 64, s += 64)
    _mm512_stream_si512(reinterpret_cast<__m512i*>(d), _mm512_loadu_si512(s));
}
// memcpy of `bytes` (d and s apart) with 64-byte vectors: the whole ones,
// then the last 64 bytes (over part of the one before), or below 64 one
// masked load and store. For the runs of rows copied into an output beyond
// the caches, where the C library's memcpy took longer (AMD Zen 4, family
// 0x19 model 17, 2^20 ragged rows of 0..127 int32, every other row kept, one
// process, medians of 15, ms: 20.2 to 20.4 against 23.4 to 23.8 with a
// memcpy call per run and 22.5 to 23.3 with one per row).
[[gnu::target("avx512f,avx512bw,bmi2")]] inline void copy_avx512(unsigned char* d,
                                                                 const unsigned char* s,
                                                                 std::size_t bytes) noexcept {
  if (bytes < 64) {
    const __mmask64 m = _bzhi_u64(~0ull, static_cast<unsigned>(bytes));
    _mm512_mask_storeu_epi8(d, m, _mm512_maskz_loadu_epi8(m, s));
    return;
  }
  const __m512i last = _mm512_loadu_si512(s + bytes - 64);
  for (std::size_t i = 0; i + 64 < bytes; i += 64)
    _mm512_storeu_si512(d + i, _mm512_loadu_si512(s + i));
  _mm512_storeu_si512(d + bytes - 64, last);
}
#endif

/// memcpy, with copies of up to 64 bytes done inline as two fixed-size copies
/// that overlap in the middle: no call and no dispatch on the size in a C
/// library, which cost short runs of rows most of their time. (Row selection
/// of rows of 12 bytes in the caches, density 0.5: 0.60x the time of a memcpy
/// call per run; rows of 16 bytes 0.83x; AMD Zen 5, family 0x1A model 2.)
[[gnu::always_inline]] inline void copy_bytes(void* dst, const void* src,
                                              std::size_t bytes) noexcept {
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  const auto both_ends = [&](auto width) {
    std::memcpy(d, s, width);
    std::memcpy(d + bytes - width, s + bytes - width, width);
  };
  if (bytes > 64)
    std::memcpy(d, s, bytes);
  else if (bytes >= 32)
    both_ends(std::integral_constant<std::size_t, 32>{});
  else if (bytes >= 16)
    both_ends(std::integral_constant<std::size_t, 16>{});
  else if (bytes >= 8)
    both_ends(std::integral_constant<std::size_t, 8>{});
  else if (bytes >= 4)
    both_ends(std::integral_constant<std::size_t, 4>{});
  else if (bytes >= 2)
    both_ends(std::integral_constant<std::size_t, 2>{});
  else if (bytes == 1)
    *d = *s;
}

// `lines` whole 64-byte lines to a 64-byte aligned `d` with non-temporal
// stores where the target has them (`wide`: the CPU runs AVX-512, one store
// per line), else with memcpy.
inline void stream_lines(void* d, const void* s, std::size_t lines, bool wide) noexcept {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (wide)
    stream_lines_avx512(static_cast<unsigned char*>(d), static_cast<const unsigned char*>(s),
                        lines);
  else
    stream_lines_sse2(static_cast<unsigned char*>(d), static_cast<const unsigned char*>(s), lines);
#else
  (void)wide;
  std::memcpy(d, s, lines * 64);
#endif
}

/// memcpy with non-temporal stores for the whole 64-byte lines of `dst`; the
/// partial lines at either end use ordinary stores, so a neighbouring copy may
/// share them. `wide`: the CPU runs AVX-512 (one store per line). Call
/// stream_fence() before the output is handed to anyone else.
inline void stream_copy(void* dst, const void* src, std::size_t bytes, bool wide = false) noexcept {
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  std::size_t head = (64 - (reinterpret_cast<std::uintptr_t>(d) & 63)) & 63;
  if (head >= bytes) {
    copy_bytes(d, s, bytes);
    return;
  }
  copy_bytes(d, s, head);
  d += head;
  s += head;
  bytes -= head;
  const auto lines = bytes / 64;
  stream_lines(d, s, lines, wide);
  copy_bytes(d + lines * 64, s + lines * 64, bytes % 64);
}

/// A buffer in L1 through which consecutive stretches of one output, each
/// compacted into it (at()) and handed over (wrote()), go out in whole 64-byte
/// lines with non-temporal stores. The partial line at the end of a stretch
/// waits in the buffer for the next one: written with ordinary stores it is
/// first read in (read for ownership), and every store after it, the next
/// stretch's into the buffer too, waits in the store buffer for that read,
/// once a stretch. Only the output's first and last lines, where they are
/// partial, are written with ordinary stores (the first as soon as it is
/// whole, the last by flush()). (Intel family 6 model 167, 1-D int32 2^26
/// beyond the caches, a loop staging chunks of 2048 entries with its input
/// requested into L2 (Reach::into_l2), medians of 9: density 0.5 0.379 ns
/// an entry with each chunk's output out by stream_copy against 0.345 with
/// whole lines only; 0.95 0.440 against 0.397.)
/// `Bytes`: the most a stretch writes. Call flush() after the last stretch,
/// and before anything else writes to the output after it.
template <std::size_t Bytes>
class LineStage {
 public:
  /// Where the stretch of the output that starts at `dst` is to be compacted:
  /// room for `Bytes` bytes. `dst` is where the stretch before it ended, unless
  /// flush() came between.
  [[nodiscard]] std::byte* at(std::byte* dst) noexcept {
    if (first_ == nullptr) {  // the buffer's first line is that of `dst`
      first_ = dst;
      from_ = end_ = static_cast<std::size_t>(reinterpret_cast<std::uintptr_t>(dst) & 63);
    }
    return buf_ + end_;
  }

  /// The stretch compacted at at() took `bytes`: the lines it completed go out.
  void wrote(std::size_t bytes, bool wide) noexcept {
    end_ += bytes;
    const auto lines = end_ / 64;
    if (lines == 0) return;
    // The completed lines out: the output's first with ordinary stores where
    // it is partly another's (stream_copy), the rest whole.
    const auto out_bytes = 64 * lines - from_;
    stream_copy(first_, buf_ + from_, out_bytes, wide);
    first_ += out_bytes;
    from_ = 0;
    end_ %= 64;
    copy_bytes(buf_, buf_ + 64 * lines, end_);
  }

  /// Writes what waits in the buffer (a partial line) with ordinary stores.
  void flush() noexcept {
    if (first_ != nullptr) copy_bytes(first_, buf_ + from_, end_ - from_);
    first_ = nullptr;
  }

 private:
  alignas(64) std::byte buf_[Bytes + 64];  // the lines from first_'s on
  std::byte* first_ = nullptr;             // where buf_[from_] goes: nullptr while nothing waits
  std::size_t from_ = 0, end_ = 0;         // buf_[from_, end_) is the output's, not yet written
};

// Requests the line at `p` into the caches (a hint: never faults): into
// every level, or where IntoL2, into L2 and not L1 (x86's prefetcht1). Always
// inlined, as is prefetch_ahead: GCC 12 finds a call to them free of side
// effects and drops it (with the hint) where it is not inlined first, as in a
// function template that calls them.
template <bool IntoL2 = false>
[[gnu::always_inline]] inline void prefetch(const void* p) noexcept {
#if defined(__GNUC__) || defined(__clang__)
  __builtin_prefetch(p, 0, IntoL2 ? 2 : 3);
#else
  (void)p;
#endif
}

// Requests the line `bytes` past `p` into the caches, where that may lie past
// the end of p's buffer (a lead that runs off the end near it): the address is
// formed as an integer, not by pointer arithmetic beyond the buffer. (The
// pointer made from it is only a hint to the prefetcher, never dereferenced,
// so the provenance it loses costs no optimisation.)
template <bool IntoL2 = false>
[[gnu::always_inline]] inline void prefetch_ahead(const void* p, std::int64_t bytes) noexcept {
  const auto at = reinterpret_cast<std::uintptr_t>(p) + static_cast<std::uintptr_t>(bytes);
  prefetch<IntoL2>(reinterpret_cast<const void*>(at));  // NOLINT(performance-no-int-to-ptr): a hint
}

// A region of the input, and how far ahead of the loop one line of the next
// ones is requested, once per region, by loops beyond the caches whose own
// requests and the hardware's do not start a region's stream early enough
// (avx512.hpp, prefetch_block, has why and the figures).
inline constexpr std::int64_t region_bytes = 4096, region_lead = 4 * region_bytes;

// The requests of a row copy that reads its input beyond the caches in order
// (compact.hpp, copy_runs_copied; avx512.hpp, copy_runs_carried_avx512),
// on a CPU whose prefetcher streams only an input read without gaps (cpu.hpp,
// reads_in_order): every line of the input is requested in order, the gaps
// between runs too (their last `gap` bytes), up to `lead` bytes past the end
// of the run being copied (from a long run, its first `most` bytes; the
// hardware streams the rest). Offsets are bytes from `in`.
struct InOrderReads {
  static constexpr std::int64_t lead = 512, most = 8192, gap = 4096;
  const void* in = nullptr;
  std::int64_t requested = 0;  // the requests so far reach in + requested
  std::int64_t end = 0;        // the last run copied ended at in + end

  // Before the run [lo, hi) is copied.
  [[gnu::always_inline]] void before(std::int64_t lo, std::int64_t hi) noexcept {
    // Not the rest of a long run, copied already, nor more of a gap than `gap`.
    requested = std::max({requested, end, lo - gap});
    for (const auto to = std::min(hi, lo + most) + lead; requested < to; requested += 64)
      prefetch_ahead(in, requested);
    end = hi;
  }

  // The run of positions [lo, hi), of `row_bytes` bytes each, found: its
  // lines requested, then copied at once (copy(lo, hi)). The interface of
  // RunQueue, which copies later.
  template <class Copy>
  [[gnu::always_inline]] void found(std::int64_t lo, std::int64_t hi, std::int64_t row_bytes,
                                    Copy&& copy) {
    before(lo * row_bytes, hi * row_bytes);
    copy(lo, hi);
  }
  template <class Copy>
  [[gnu::always_inline]] void drain(Copy&&) noexcept {}
};

// A row copy that requests nothing (inputs in the caches): each run copied as
// it is found. The interface of InOrderReads and RunQueue.
struct NoReads {
  const void* in = nullptr;

  template <class Copy>
  [[gnu::always_inline]] void found(std::int64_t lo, std::int64_t hi, std::int64_t, Copy&& copy) {
    copy(lo, hi);
  }
  template <class Copy>
  [[gnu::always_inline]] void drain(Copy&&) noexcept {}
};

// The requests of a row copy beyond the caches whose runs are not read in
// order (compact.hpp, copy_runs_copied; avx512.hpp, copy_runs_carried_avx512):
// each run's first load misses and the hardware's prefetchers do not see the
// gaps between runs coming, so runs are queued `depth` deep, up to the first
// `first` bytes of each requested when it is found, and copied once `depth`
// later runs have been found. (A KiB, not a quarter: dense rows of 64 float
// at density 0.5, runs of 512 bytes on average, took 2 to 14% less time with
// a KiB requested than with 256 bytes, in each of nine processes; AMD Zen 5,
// family 0x1A model 2.) With Regions (compact.hpp, queued_regions, says
// where), each run found also requests one line region_lead past each region
// boundary from the start of the region it begins in to its end, as the
// kernel beyond the caches does once per region (avx512.hpp,
// prefetch_block); the regions of a gap that holds a whole region are passed
// over, so a run requests at most one line it may not need. Why a line per
// region pays where every kept line is requested already is not proven, as
// for the kernel: the hardware's streams start again at each region. (AMD
// Zen 5, family 0x1A model 2, 2^26 float in rows beyond the caches, x
// without the requests in the same process, medians of 9 to 21 alternated
// rounds: rows of 256 bytes at density 0.07 0.65 to 0.70, 0.1 0.52 to 0.54,
// 0.25 0.41 to 0.66, 0.5 0.57 to 0.71, 0.9 0.89 to 0.93, runs of 1..16 rows
// 0.90 to 0.93 (the same code against itself 0.93 to 0.97), of 1..1024 1.00
// to 1.02; rows of 64 bytes at 0.5 0.86 to 1.01; ragged rows of 0..127 at 0.5
// 0.65 to 0.81, at 0.1 0.60 to 0.83. The lead, 0 to 64 KiB past the
// boundary, made no difference.) Offsets are bytes from `in`.
template <bool Regions>
struct RunQueue {
  static constexpr std::int64_t depth = 16, first = 1024;
  const void* in = nullptr;
  std::int64_t runs[depth][2] = {};  // [lo, hi) of the runs found and not yet copied
  std::int64_t count = 0;            // runs found so far
  std::int64_t region = 0;           // the next region boundary not yet requested past

  // The run of positions [lo, hi), of `row_bytes` bytes each, found: its
  // first lines requested; the run found `depth` before it, if any, copied
  // (copy(lo, hi)).
  template <class Copy>
  [[gnu::always_inline]] void found(std::int64_t lo, std::int64_t hi, std::int64_t row_bytes,
                                    Copy&& copy) {
    const auto bytes = std::min((hi - lo) * row_bytes, first);
    for (std::int64_t at = 0; at < bytes; at += 64) prefetch_ahead(in, lo * row_bytes + at);
    if constexpr (Regions) {
      region = std::max(region, lo * row_bytes / region_bytes * region_bytes);
      for (const auto end = hi * row_bytes; region <= end; region += region_bytes)
        prefetch_ahead(in, region + region_lead);
    }
    auto& slot = runs[count % depth];
    if (count >= depth) copy(slot[0], slot[1]);
    slot[0] = lo;
    slot[1] = hi;
    ++count;
  }

  // After the last run found: the runs still queued, copied in order.
  template <class Copy>
  [[gnu::always_inline]] void drain(Copy&& copy) {
    for (auto q = std::max<std::int64_t>(0, count - depth); q < count; ++q)
      copy(runs[q % depth][0], runs[q % depth][1]);
  }
};

/// Orders the non-temporal stores before anything that follows.
inline void stream_fence() noexcept {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  _mm_sfence();
#endif
}

}  // namespace detail
}  // namespace kernel
}  // namespace v0_1
}  // namespace ragged
