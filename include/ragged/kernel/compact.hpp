// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "avx2.hpp"
#include "avx512.hpp"
#include "bits.hpp"
#include "cpu.hpp"
#include "scalar.hpp"
#include "stream.hpp"

/// The one stream-compaction kernel under both boolean_mask operations. It
/// knows nothing of tensors: pointers and counts in, the end of what it wrote
/// out; it never allocates and never throws (except what copying a non-trivial T
/// throws).
///
/// Output contract: the kernel writes exactly the kept elements, densely, from
/// `out` on, and never writes past the last of them; `out` needs room for
/// count(mask, n) * inner elements and nothing more. Large outputs are written
/// with non-temporal stores (they bypass the caches), fenced before the kernel
/// returns, except where the CPU compacts faster straight into the output
/// (Avx512Store::whole on AMD Zen 4, which reads its input in order,
/// reads_in_order; Zen 5 streams it through L1, streams_through_l1).
///
/// Masks (MaskPointer): bool bytes, where an entry is true when its byte is
/// nonzero, on every path and at every instruction set (byte masks from NumPy
/// or Arrow may hold 2 or 255); or Bits, bit-packed in Arrow's layout (LSB
/// first, from a bit offset), read 64 entries per load and never expanded.
///
/// Aliasing (a precondition, not checked here: the kernel takes raw pointers):
/// `out` must not overlap `in` or `mask`. The boolean_mask operations, which
/// see whole tensors, detect an output that aliases an input and compute into
/// a temporary instead.
namespace ragged {
inline namespace v0_1 {
namespace kernel {

/// The default execution of the dense operation: on the calling thread.
/// (kernel/parallel.hpp adds Parallel, which splits large inputs over threads.)
struct Serial {};

/// Rows as the kernel sees a row partition (ragged::RowPartition, TensorFlow's
/// RowPartition, in plain form): `nrows` rows, row r spanning positions
/// [bound(r), bound(r + 1)), from explicit row splits (`splits[r]`, nrows + 1
/// of them) or, where `splits` is null, a uniform row length (`r * length`).
template <class Index>
struct Rows {
  const Index* splits = nullptr;
  std::int64_t length = 0;
  std::int64_t nrows = 0;

  /// The rows of row splits (nrows = splits.size() - 1; no rows when empty).
  [[nodiscard]] static constexpr Rows of_splits(std::span<const Index> s) noexcept {
    return {s.data(), 0, s.empty() ? 0 : static_cast<std::int64_t>(s.size()) - 1};
  }
  /// `nrows` rows of `length` positions each.
  [[nodiscard]] static constexpr Rows uniform(std::int64_t length, std::int64_t nrows) noexcept {
    return {nullptr, length, nrows};
  }
  [[nodiscard]] constexpr std::int64_t bound(std::int64_t r) const noexcept {
    return splits ? std::int64_t{splits[r]} : r * length;
  }
};

namespace detail {

// Trivially copyable types move as bytes, specialised by byte width (1, 2, 4, 8), not by type.
template <class T>
inline constexpr bool bytewise = std::is_trivially_copyable_v<T>;

template <class M>
using compact_fn = std::int64_t (*)(const std::byte* in, M mask, std::int64_t n, std::byte* out,
                                    Reach reach) noexcept;

// A compaction chosen for a call (compaction_for): the function, and where
// its data lie (Reach, stream.hpp).
template <class M>
struct Compaction {
  compact_fn<M> fn = nullptr;
  Reach reach = Reach::cached;
  explicit operator bool() const noexcept { return fn != nullptr; }
  std::int64_t operator()(const std::byte* in, M mask, std::int64_t n,
                          std::byte* out) const noexcept {
    return fn(in, mask, n, out, reach);
  }
};

// Everything the kernel runs for one instruction set and mask kind M (const
// bool* or Bits): one table per level, built at compile time, and the level
// chosen by one index (implementation<M>()), not by a switch in each entry.
template <class M>
using reporting_fn = std::int64_t (*)(const std::byte* in, M mask, std::int64_t n, std::byte* out,
                                      const Report& report) noexcept;

template <class M>
struct Implementation {
  std::int64_t (*count)(M, std::int64_t) noexcept;
  void (*mask_words)(M, std::int64_t, std::uint64_t*, std::int64_t*, std::int64_t) noexcept;
  compact_fn<M> compact[4];  // by element width: 1, 2, 4, 8 bytes
  // The streamed compaction that reports what it read as it goes (Report),
  // by width; only where whole-vector stores run, null elsewhere.
  reporting_fn<M> compact_reporting[4];
  // The same for outputs carried in a register (compact_carried_avx512).
  reporting_fn<M> carried_reporting[4];
};

// The tables' order: scalar, avx2, then avx512 with each Avx512Store
// (masked, compress_store, whole; cpu.hpp says which CPU runs which).
inline constexpr int implementation_levels = 5;

template <class M, int Level>
constexpr Implementation<M> implementation_at() noexcept {
  Implementation<M> impl{
      &count_scalar,
      &mask_words_scalar<M>,
      {&compact_scalar<1, M>, &compact_scalar<2, M>, &compact_scalar<4, M>, &compact_scalar<8, M>},
      {},
      {}};
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if constexpr (Level == 1) {
    impl.compact[0] = &compact_avx2<1, M>;
    impl.compact[1] = &compact_avx2<2, M>;
    impl.compact[2] = &compact_avx2<4, M>;
    impl.compact[3] = &compact_avx2<8, M>;
  } else if constexpr (Level >= 2) {
    constexpr auto store = static_cast<Avx512Store>(Level - 2);
    impl.compact[0] = &compact_avx512<1, store, M>;
    impl.compact[1] = &compact_avx512<2, store, M>;
    impl.compact[2] = &compact_avx512<4, store, M>;
    impl.compact[3] = &compact_avx512<8, store, M>;
    if constexpr (store == Avx512Store::whole) {
      impl.compact_reporting[0] = &compact_stream_avx512<1, true, M>;
      impl.compact_reporting[1] = &compact_stream_avx512<2, true, M>;
      impl.compact_reporting[2] = &compact_stream_avx512<4, true, M>;
      impl.compact_reporting[3] = &compact_stream_avx512<8, true, M>;
      impl.carried_reporting[0] = &compact_carried_avx512<1, M, true>;
      impl.carried_reporting[1] = &compact_carried_avx512<2, M, true>;
      impl.carried_reporting[2] = &compact_carried_avx512<4, M, true>;
      impl.carried_reporting[3] = &compact_carried_avx512<8, M, true>;
    }
  }
  if constexpr (Level >= 1) {
    if constexpr (std::is_same_v<M, Bits>) {
      impl.count = &count_popcnt;
    } else {
      impl.count = Level == 1 ? &count_avx2 : &count_avx512<M>;
      if constexpr (Level >= 2) impl.mask_words = &mask_words_avx512;
    }
  }
#endif
  return impl;
}

// The table of the active level (kernel::active_isa(), and on AVX-512 the
// active store, kernel::active_avx512_store()).
template <class M>
[[nodiscard]] const Implementation<M>& implementation() noexcept {
  static constexpr Implementation<M> tables[implementation_levels] = {
      implementation_at<M, 0>(), implementation_at<M, 1>(), implementation_at<M, 2>(),
      implementation_at<M, 3>(), implementation_at<M, 4>()};
  const auto isa = static_cast<int>(active_isa());
  return tables[isa == 2 ? 2 + static_cast<int>(active_avx512_store()) : isa];
}

// Whether the active level compacts straight into outputs beyond the caches
// (AVX-512 with whole-vector stores, on AMD Zen 4 and Zen 5), where other
// levels stage their output in L1 and stream it out.
[[nodiscard]] inline bool writes_straight() noexcept {
  return active_isa() == Isa::avx512 && active_avx512_store() == Avx512Store::whole;
}

// How the level reads an input beyond the caches: in order, with no gaps
// and no requests ahead, where the CPU's prefetcher streams only that
// (reads_in_order; the loops that do not write straight read it as beyond);
// its values requested into L2 where the CPU reads faster so
// (requests_into_l2).
[[nodiscard]] inline Reach beyond_reach() noexcept {
  const auto id = cpu_features().id;
  return reads_in_order(id)     ? Reach::in_order
         : requests_into_l2(id) ? Reach::into_l2
                                : Reach::beyond;
}

// How the level compacts in the caches: a sparse mask's blocks gathered
// where the CPU runs that faster (gathers_sparse_blocks).
[[nodiscard]] inline Reach cached_reach() noexcept {
  return gathers_sparse_blocks(cpu_features().id) ? Reach::gathered : Reach::cached;
}

// How a level that stages its output beyond the caches (stage_outputs)
// compacts a chunk it writes straight to the output, sparse as it is, where
// the chunk before it kept under 1/64 of its entries (compact_chunked): as
// beyond_reach() says, or as in the caches, nothing requested ahead and empty
// blocks skipped unread, where requests would fetch the blocks it skips
// (requests_sparsest_input).
[[nodiscard]] inline Reach sparsest_reach() noexcept {
  return requests_sparsest_input(cpu_features().id) ? beyond_reach() : Reach::cached;
}

// How the level compacts an output beyond the caches where it writes
// straight to it: streamed through L1 where the CPU runs that faster
// (streams_through_l1), carried in a register where it reads in order
// (reads_in_order), else with ordinary stores.
[[nodiscard]] inline Reach straight_reach() noexcept {
  const auto id = cpu_features().id;
  return streams_through_l1(id) ? Reach::streamed
         : reads_in_order(id)   ? Reach::carried
                                : Reach::beyond;
}

// How many of the first 16384 entries of a mask of `n` (all, where fewer)
// are kept: the probe that Zen 5's choices of a way to write rest on
// (keeps_most, carried_runs).
struct MaskProbe {
  std::int64_t kept, n;
};
template <class M>
[[nodiscard]] MaskProbe probe_mask(M mask, std::int64_t n) noexcept {
  const auto len = std::min<std::int64_t>(n, 16384);
  return {implementation<M>().count(mask, len), len};
}

// Whether the probe keeps 7/8 or more of its entries: a mask whose output is
// nearly as large as its input.
template <class M>
[[nodiscard]] bool keeps_most(M mask, std::int64_t n) noexcept {
  const auto probe = probe_mask(mask, n);
  return 8 * probe.kept >= 7 * probe.n;
}

// straight_reach() for one pass over `n` entries of `mask` that reports
// nothing (compact() of single elements): where the level streams its output
// through L1 (Zen 5), a mask that keeps most entries (keeps_most) writes it
// straight with ordinary stores instead, reading as beyond_reach() says.
// There the output is nearly as large as the input, and which way writes it
// faster turns with the host's state ("streamed or straight beyond the
// caches", docs/performance.md): here the straight loop was the faster in
// every minute of two slow spells and the slower by a tenth in a quick one,
// and it writes as Highway's loops do, so that it moves with them. (AMD Zen
// 5, family 0x1A model 2, 2^26 entries on huge pages, the two alternated in
// one process, medians per minute, straight x streamed: int32 density 0.95 0.83 to 0.97 in 20
// minutes, density 0.875 0.86 to 0.95 in 11, 1.10 to 1.12 at 0.9 and 0.95
// in a quick spell before them; int8 and doubles at 0.95 0.69 to 0.94 and
// 0.83 to 0.91. At density 0.75 0.85 to 0.96, 1.06 in the quick spell, and
// at 0.625 0.86 to 0.98, 1.07 at 0.6: too close below 7/8 to be worth it.)
template <class M>
[[nodiscard]] Reach straight_reach(M mask, std::int64_t n) noexcept {
  const auto reach = straight_reach();
  return reach == Reach::streamed && keeps_most(mask, n) ? beyond_reach() : reach;
}

// Whether outputs beyond the caches are compacted into an L1 stage and
// streamed out (cpu.hpp): everywhere but where whole-vector stores run. Bytes
// there store whole vectors straight to the output too, where their own
// block's and the next two blocks' kept entries cover one (compact_avx512). (AMD Zen 5, family 0x1A
// model 2, 1-D int8 2^26 at density 0.5, x memcpy, five processes: masked and
// staged 1.18 to 1.31, whole and straight out 1.10 to 1.18, Highway's
// Compress + StoreU 1.13 to 1.21; whole stores that tested one block ahead,
// a branch missed half the time, had taken 1.77.)
[[nodiscard]] inline bool stage_outputs() noexcept {
  return !writes_straight();
}

// How runs of whole rows are copied: from `stream_from` bytes on with
// non-temporal stores (stream_copy), shorter runs with memcpy; where `wide`
// (an AVX-512 level), with 64-byte vectors both ways (one non-temporal store
// per line; copy_avx512). Chosen once per call (run_copy).
struct RunCopy {
  std::size_t stream_from = static_cast<std::size_t>(-1);  // never
  bool wide = false;
};

// The copy of runs into an output beyond the caches (`stream`) or not. Where
// the level writes straight to the output (writes_straight), and on CPUs that
// read in order (reads_in_order) at every level, runs shorter than 4 KiB are
// copied with memcpy: a short run's non-temporal stores and the ordinary
// stores of its partial lines at either end cost more there than the read for
// ownership they spare (and are copied with 64-byte vectors, copy_avx512,
// where the level is AVX-512). (AMD Zen 5, family 0x1A, model 2, 2^26 float
// in rows, density 0.5, runs streamed against memcpy'd: rows of 256 bytes
// 17.3 ms against 14.1, 64 bytes 22.5 against 23.0, 4 KiB 9.8 against 10.0,
// 64 KiB 6.2 against 6.9. AMD Zen 4, family 0x19 model 17, forced to AVX2,
// 2^20 ragged rows of 0..127 int32, every other row kept: 27.0 to 28.9
// streamed against 15.1 to 15.8.)
[[nodiscard]] inline RunCopy run_copy(bool stream) noexcept {
  if (!stream) return {};
  const bool short_runs_ordinary = writes_straight() || reads_in_order(cpu_features().id);
  return {short_runs_ordinary ? std::size_t{4096} : 0, active_isa() == Isa::avx512};
}

// The byte width single elements move at: the row's own size when it is 1, 2,
// 4 or 8 bytes (so rows of two int32 move as one 8-byte element), else 0 (runs).
template <class T>
[[nodiscard]] std::size_t element_width(std::int64_t inner) noexcept {
  if constexpr (bytewise<T>) {
    const auto bytes = static_cast<std::size_t>(inner) * sizeof(T);
    if (bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8) return bytes;
  }
  return 0;
}

// The slot of a byte width (1, 2, 4 or 8) in Implementation's tables.
[[nodiscard]] constexpr int width_slot(std::size_t w) noexcept {
  return w == 1 ? 0 : w == 2 ? 1 : w == 4 ? 2 : 3;
}

// The compaction a call runs, chosen once per call: the active level's
// function for the row's byte width (null for rows moved as runs).
template <class T, class M>
[[nodiscard]] Compaction<M> compaction_for(std::int64_t inner, Reach reach) noexcept {
  const auto w = element_width<T>(inner);
  if (!w) return {};
  return {implementation<M>().compact[width_slot(w)], reach};
}

// The compaction that reports what it read as it writes its output (a
// Report), where the level writes straight to outputs beyond the caches and
// either streams them through L1 (compact_stream_avx512) or carries them in
// a register (compact_carried_avx512); else null (rows are then compacted a
// chunk at a time, compact_chunked).
template <class T, class M>
[[nodiscard]] reporting_fn<M> reporting_for(std::int64_t inner) noexcept {
  const auto w = element_width<T>(inner);
  if (!w || !writes_straight()) return nullptr;
  const auto reach = straight_reach();
  if (reach == Reach::carried) return implementation<M>().carried_reporting[width_slot(w)];
  if (reach != Reach::streamed) return nullptr;
  return implementation<M>().compact_reporting[width_slot(w)];
}

// Whole rows [begin, end) of `row` elements each: one copy per run, as `how`
// says. Returns the end of what it wrote. Always inlined, and the end is
// returned rather than updated through a reference: either way round, the
// output pointer went through memory once per run.
template <class T>
[[gnu::always_inline]] inline T* copy_rows(const T* in, std::int64_t begin, std::int64_t end,
                                           std::int64_t row, T* out, RunCopy how) {
  const auto n = (end - begin) * row;
  // Runs are never empty, but rows of no elements make n 0; the test also
  // bounds the size the compiler sees (GCC 12 otherwise warns that a negative
  // n would pass SIZE_MAX to memcpy).
  if (n <= 0) return out;
  if constexpr (bytewise<T>) {
    const auto bytes = static_cast<std::size_t>(n) * sizeof(T);
    if (bytes >= how.stream_from) stream_copy(out, in + begin * row, bytes, how.wide);
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    else if (how.wide)
      copy_avx512(reinterpret_cast<unsigned char*>(out),
                  reinterpret_cast<const unsigned char*>(in + begin * row), bytes);
#endif
    else
      copy_bytes(static_cast<void*>(out), in + begin * row, bytes);
  } else {
    (void)how;
    std::copy(in + begin * row, in + begin * row + n, out);
  }
  return out + n;
}

// Calls f(bound) with the bound of `rows` as a function of the row: by
// multiplication for uniform rows, with no branch and no loads per call
// (rows of 12 bytes in the caches: 0.85x the time of rows.bound()), else from
// the splits.
template <class Index, class F>
[[gnu::always_inline]] inline decltype(auto) with_bound(const Rows<Index>& rows, F&& f) {
  if (rows.splits) return f([s = rows.splits](std::int64_t r) { return std::int64_t{s[r]}; });
  return f([length = rows.length](std::int64_t r) { return r * length; });
}

// Copies the rows of `rows` whose mask entry is true to `out` (row r spans
// positions [rows.bound(r), rows.bound(r + 1)) of `inner` elements each), one
// copy per maximal run of kept rows (copy_rows), the input read as `Reads`
// says: each run as it is found (NoReads: inputs in the caches); beyond the
// caches, each run copied as run_copy(true) says, on a CPU whose prefetcher
// streams only an input read in order (cpu.hpp, reads_in_order: AMD Zen 4)
// where runs are dense enough to read all of it, as found with every line of
// the input requested in order, the gaps between runs too (InOrderReads),
// else queued (RunQueue, which has its figures). The gaps and the order make
// the difference: requested 16 runs ahead, the runs alone (the first KiB of
// each) took 23.0 ms with every other row kept, as queued, and the runs with
// gaps of up to 2 KiB 19.0, against 13.6 to 14.2 in order. (2^20 ragged rows
// of 0..127 int32, AMD Zen 4, family 0x19 model 17, ms, medians of 21 in each
// of two processes.) copy_runs_of says where each runs. Returns the number of
// positions kept; beyond the caches, the caller fences what was streamed.
template <class Reads, class T, class M, class Index>
[[gnu::noinline]] std::int64_t copy_runs_copied(const T* in, M mask, Rows<Index> rows, T* out,
                                                std::int64_t inner) {
  T* o = out;
  std::int64_t kept = 0;
  const auto how = run_copy(!std::is_same_v<Reads, NoReads>);
  const auto row_bytes = inner * static_cast<std::int64_t>(sizeof(T));
  Reads reads{in};
  const auto copy = [&](std::int64_t lo, std::int64_t hi)
                        RAGGED_INLINED_LAMBDA { o = copy_rows(in, lo, hi, inner, o, how); };
  with_bound(rows, [&](auto bound) RAGGED_INLINED_LAMBDA {
    for_each_run(mask, rows.nrows, [&](std::int64_t b, std::int64_t e) RAGGED_INLINED_LAMBDA {
      const auto lo = bound(b), hi = bound(e);
      reads.found(lo, hi, row_bytes, copy);
      kept += hi - lo;
    });
  });
  reads.drain(copy);
  return kept;
}

// The bytes of all `rows` of `inner` T each, on which the row copies'
// choices rest (copy_runs_of, queued_regions, carried_runs).
template <class T, class Index>
[[nodiscard]] std::int64_t rows_bytes(const Rows<Index>& rows, std::int64_t inner) noexcept {
  return (rows.bound(rows.nrows) - rows.bound(0)) * inner * static_cast<std::int64_t>(sizeof(T));
}

// Whether queued runs request regions (RunQueue's Regions) for `rows` of `inner`
// T each: where rows average a line or more, and the first `probe` rows keep
// enough that a gap between runs averages under a region (a row's bytes
// over the share kept). Rows of 16 and 32 bytes, whose runs are short, and
// sparse masks, whose requests past a gap fetch a line the copy does not
// read for each few it does, took longer with them. (As RunQueue's
// figures: rows of 16 and 32 bytes at density 0.5 1.07 to 1.09, of 16 at 0.9
// 1.08 to 1.11, the same code against itself 0.99 to 1.03; rows of 256 bytes at
// density 0.01 1.16 to 1.71, 0.02 1.21 to 1.43, 0.03 0.85 to 1.32, 0.05
// (gaps of 5 KiB on average) 0.81 to 1.05, ragged rows at 0.05 1.09 to
// 1.10.) Where the runs are carried (copy_runs_carried with a RunQueue),
// only where they also keep `least_eighths` eighths or more: on Intel family
// 6 model 167, 2^26 float in rows beyond the caches, without the requests x
// with them, medians of 12 alternated in one process, rows of 64 bytes at
// density 0.1 0.85, 0.2 0.93, 0.3 0.95, 0.4 0.96, 0.5 0.96, 0.6 1.01, 0.9
// 1.06; of 400 bytes at 0.2 0.95, 0.3 0.97, 0.4 0.98, 0.5 1.02; of 256
// bytes at 0.1 0.80, 0.15 0.87, 0.2 0.91, 0.3 0.97, 0.35 and 0.4 0.99, 0.5
// 1.02, 0.6 1.05, 0.9 1.06; ragged rows of 0..127 int32 at 0.1 0.93, 0.2
// 0.96, 0.3 0.97 to 1.01, 0.35 and 0.4 1.02, 0.5 1.04, 0.6 1.04.
template <class T, class M, class Index>
[[nodiscard]] bool queued_regions(M mask, const Rows<Index>& rows, std::int64_t inner,
                                  std::int64_t least_eighths = 0) {
  if (rows.nrows == 0) return false;
  const auto mean = rows_bytes<T>(rows, inner) / rows.nrows;
  if (mean < 64) return false;
  const auto probe = std::min<std::int64_t>(rows.nrows, 4096);
  // The share kept, kept / probe, at least mean / region_bytes and
  // least_eighths / 8.
  const auto kept = implementation<M>().count(mask, probe);
  return kept * region_bytes >= mean * probe && 8 * kept >= least_eighths * probe;
}

// How a CPU that carries runs only where they pay (carries_kept_runs: AMD
// Zen 5) copies the runs of `rows` of `inner` T each, by the share of the
// first `probe` rows kept and the rows' mean bytes:
// - as_found, carried with nothing requested ahead (NoReads), where the
//   input is read nearly whole: 7/8 kept or more of rows averaging up to 256
//   bytes, or 3/4 of rows averaging under a line. There the hardware
//   prefetcher streams the input, and requests of ours only cost;
// - queued, carried with the queue's requests ahead (RunQueue), where 3/4
//   or more of rows averaging a line to under 4 KiB are kept in runs that
//   average 1 KiB or more (a random mask's run averages a row's bytes over
//   the share dropped);
// - else none: copied (copy_runs_copied). Runs of 4 KiB or more go out with
//   non-temporal stores copied too.
// (AMD Zen 5, family 0x1A model 2, 2^26 float in rows on huge pages, ms,
// medians of 11 in turn in one process, carried as found / carried queued /
// copied queued: dense rows of 64 bytes at density 0.95 16.3 / 18.2; of 128
// at 0.9 16.3 / 17.7, at 0.85 15.8 / - / 17.8, at 0.8 16.6 / 18.7 / 16.0,
// at 0.75 19.2 / 21.7 / 16.5; of 192 at 0.9 15.7 / 17.0; of 256 at 0.99
// 15.0 / 16.7, at 0.9 14.9 / 16.3, at 0.875 15.8 / 16.8, at 0.75 19.7 /
// 16.3; of 384 at 0.9 15.8 / 16.1; of 512 at 0.9 16.0 / 15.5, at 0.75 18.0
// / 14.7; of 1 KiB at 0.9 15.8 / 14.8; ragged rows of 0..15 int32 at 0.95
// 30.7 / 36.5 / 33.1, at 0.8 33.4 / 51.2 / 43.8, at 0.5 53.3 / - / 37.6; of
// 0..31 at 0.9 20.6 / - / 26.7, at 0.75 24.4 / 34.7 / 28.0, at 0.5 32.1 /
// - / 31.0; of 0..63 at 0.9 16.7 / 19.1, at 0.85 20.3 / - / 21.7, at 0.75
// 23.6 / 25.7 / 19.6; of 0..127 at 0.95 17.2 / 18.0, at 0.9 17.2 / 17.1; of
// 0..255 at 0.9 18.1 / 16.7. Carried queued x copied queued, medians of 12
// alternated, two processes: dense rows of 100 bytes at 0.5 1.18 to 1.19,
// of 512 at 0.5 1.00 to 1.03; ragged rows of 0..127 at 0.2 1.80.) A probe,
// not a count of the whole mask: counted whole, the mask of rows of 64
// bytes cost 1 to 2% where the runs were then copied.
enum class RunCarry { none, as_found, queued };

template <class T, class M, class Index>
[[nodiscard]] RunCarry carried_runs(M mask, const Rows<Index>& rows, std::int64_t inner) {
  if (rows.nrows == 0) return RunCarry::none;
  const auto mean = rows_bytes<T>(rows, inner) / rows.nrows;
  if (mean >= 4096) return RunCarry::none;
  const auto [kept, probe] = probe_mask(mask, rows.nrows);
  if (4 * kept < 3 * probe) return RunCarry::none;
  if (mean < 64 || (mean <= 256 && 8 * kept >= 7 * probe)) return RunCarry::as_found;
  return mean * probe >= 1024 * (probe - kept) ? RunCarry::queued : RunCarry::none;
}

// copy_runs_carried_avx512 (every output line streamed whole) for a row
// copy of T, its input read as `Reads` says, at the AVX-512 level only; the
// caller checks the level. Runs read in order go through the carry whole
// (as measured on AMD Zen 4, copy_runs); queued ones put their whole lines
// out straight from a KiB on (carry_copy has the figures).
template <class Reads, class T, class M, class Index>
std::int64_t copy_runs_carried(const T* in, M mask, Rows<Index> rows, T* out,
                               std::int64_t inner) noexcept {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  constexpr std::int64_t whole_from =
      std::is_same_v<Reads, InOrderReads> ? std::numeric_limits<std::int64_t>::max() : 1024;
  return with_bound(rows, [&](auto bound) {
    return copy_runs_carried_avx512<Reads>(reinterpret_cast<const std::byte*>(in), mask, rows.nrows,
                                           bound, inner * static_cast<std::int64_t>(sizeof(T)),
                                           reinterpret_cast<std::byte*>(out), whole_from);
  });
#else
  (void)in, (void)mask, (void)rows, (void)out, (void)inner;
  return 0;
#endif
}

// The row copy for inputs beyond the caches (`stream`) or not
// (copy_runs_copied with NoReads). Beyond them, on a CPU that reads in order (cpu.hpp,
// reads_in_order: AMD Zen 4) where at least a quarter of the rows are kept,
// every line of the input is read in order (InOrderReads), and each run of
// kept rows is copied as found: appended to a register and the output
// streamed in whole lines (copy_runs_carried, at AVX-512) where runs average
// 320 bytes or more, with run_copy's copies where they average 96 or more.
// Else runs are queued, with a request per region where queued_regions
// says: where the level stages its outputs (stage_outputs: Intel) at
// AVX-512, and on AMD Zen 5 where most rows are kept (carries_kept_runs,
// carried_runs), appended to a register and the output streamed in whole
// lines (copy_runs_carried with a RunQueue; on Zen 5 where nearly every
// line is read, as found with nothing requested), and elsewhere copied as
// run_copy says
// (copy_runs_copied with a RunQueue). Copied with their own stores, a run's partial lines at
// either end are read for ownership; carried, no line is. (Intel family 6
// model 167, 2^26 float in rows beyond the caches, carried x copied, both
// queued, each with the requests per region queued_regions asks of it,
// medians of 12 alternated in one process: ragged rows of 0..127 at density
// 0.5 0.76 to 0.79, 0.2 0.78, 0.1 0.70, 0.9 1.00; of 0..15 0.80 to 0.82; of
// 0..511 0.93; of 0..1023 1.01 to 1.03; dense rows of 100 bytes at 0.5 0.75,
// of 400 bytes 0.83, at 0.9 0.95; rows of 256 bytes, every run whole lines
// already, 0.97 at 0.5 and 0.9, 0.85 at 0.1; of 64 bytes 1.00 to 1.03 at
// 0.5, 0.97 at 0.9, 0.88 at 0.1; of 4 KiB 0.96 to 1.00; of 64 KiB 0.99 to
// 1.02.) A run of a random mask's kept rows is 1 / (1 - share kept) rows
// long on average, so its mean bytes are the rows' bytes over the rows dropped. (AMD Zen 4,
// family 0x19 model 17, 2^26 int32 in rows beyond the caches, ms, medians
// of 15, carried / copied as found / queued / a per-row memcpy loop: ragged
// rows of 0..127, half kept, 10.4 / 12.3 / 20.9 / 22.5; a quarter 10.9 /
// 12.1 / 13.3 / 14.4; 0.8 13.9 / 18.3 / 28.8 / 22.1; 0.95 17.2 / 19.7 / 23.7
// / 18.6; rows of 256 bytes, half kept, 10.2 to 10.8 / 13.3 to 15.4 / 19.7 to
// 20.1 / 18.8 to 19.9; 0.95 16.8 / 19.1 / 21.3 / 23.0; rows of 512 bytes 12.6
// / 16.6 / 20.5 / 19.6; of 128 bytes 13.1 / 13.5 / 21.7 / 21.0, 0.95 kept
// 17.8 / 23.9 / 27.8 / 21.2; of 96 bytes 16.8 / 14.7 / 22.9 / 23.4; ragged
// of 0..63 15.5 / 13.5 / 21.8 / 25.3; of 64 bytes 22.9 / 20.3 / 21.9 / 23.1;
// of 32 bytes 40.2 / 34.2 / 28.0 / 41.4; of 12 bytes, 2^23 rows, 26.8 / 20.5
// / 11.2 / 41.3. Below a quarter kept, in order reads mostly lines nobody
// needs: a tenth of the ragged rows 11.6 / 11.7 / 6.3 / 8.5.) Separate
// functions, not one loop with a branch on `stream` around it: the cached
// loop, compiled beside the queued one, took 1.4x the time (AMD Zen 5, family
// 0x1A model 2, rows of 16 bytes, 1 MiB, density 0.5: 4.07x memcpy against
// 2.94).
template <class T, class M, class Index>
std::int64_t copy_runs_of(const T* in, M mask, Rows<Index> rows, T* out, std::int64_t inner,
                          bool stream) {
  if (!stream) return copy_runs_copied<NoReads>(in, mask, rows, out, inner);
  if (reads_in_order(cpu_features().id)) {
    const auto kept = implementation<M>().count(mask, rows.nrows);
    const auto dropped = rows.nrows - kept;
    const auto bytes = rows_bytes<T>(rows, inner);
    if (4 * kept >= rows.nrows) {
      if constexpr (bytewise<T>)
        if (active_isa() == Isa::avx512 && bytes >= 320 * dropped)
          return copy_runs_carried<InOrderReads>(in, mask, rows, out, inner);
      if (bytes >= 96 * dropped) return copy_runs_copied<InOrderReads>(in, mask, rows, out, inner);
    }
  }
  if constexpr (bytewise<T>) {
    if (active_isa() == Isa::avx512) {
      const auto carry = stage_outputs()                        ? RunCarry::queued
                         : carries_kept_runs(cpu_features().id) ? carried_runs<T>(mask, rows, inner)
                                                                : RunCarry::none;
      if (carry == RunCarry::as_found)
        return copy_runs_carried<NoReads>(in, mask, rows, out, inner);
      if (carry == RunCarry::queued)
        return queued_regions<T>(mask, rows, inner, 3)
                   ? copy_runs_carried<RunQueue<true>>(in, mask, rows, out, inner)
                   : copy_runs_carried<RunQueue<false>>(in, mask, rows, out, inner);
    }
  }
  return queued_regions<T>(mask, rows, inner)
             ? copy_runs_copied<RunQueue<true>>(in, mask, rows, out, inner)
             : copy_runs_copied<RunQueue<false>>(in, mask, rows, out, inner);
}

// copy_runs_of for any T: trivially copyable rows move as bytes (a row of
// `inner` T is inner * sizeof(T) of them), so that every element type runs
// one instantiation per mask kind and index (and RAGGED_EXTERN_KERNEL
// compiles it once).
template <class T, class M, class Index>
std::int64_t copy_runs(const T* in, M mask, Rows<Index> rows, T* out, std::int64_t inner,
                       bool stream) {
  if constexpr (bytewise<T>)
    return copy_runs_of(reinterpret_cast<const std::byte*>(in), mask, rows,
                        reinterpret_cast<std::byte*>(out),
                        inner * static_cast<std::int64_t>(sizeof(T)), stream);
  else
    return copy_runs_of(in, mask, rows, out, inner, stream);
}

// What the kernel compiles whatever the element type: the tables of every
// level (implementation<M>(), which hold each width's loops) and the row
// copy, for both mask kinds and both index types; the body of nearly all of
// a call's code. RAGGED_KERNEL_INSTANCES(extern) declares them (where
// RAGGED_EXTERN_KERNEL is defined, so that a translation unit leaves them to
// the one that includes <ragged/kernel/instantiate.hpp>), and
// RAGGED_KERNEL_INSTANCES() defines them there. (EXTERN is a keyword or
// nothing, which parentheses cannot enclose.)
// NOLINTBEGIN(bugprone-macro-parentheses)
#define RAGGED_KERNEL_INSTANCES(EXTERN)                                                        \
  EXTERN template const Implementation<const bool*>& implementation<const bool*>() noexcept;   \
  EXTERN template const Implementation<Bits>& implementation<Bits>() noexcept;                 \
  EXTERN template std::int64_t copy_runs_of(const std::byte*, const bool*, Rows<std::int32_t>, \
                                            std::byte*, std::int64_t, bool);                   \
  EXTERN template std::int64_t copy_runs_of(const std::byte*, const bool*, Rows<std::int64_t>, \
                                            std::byte*, std::int64_t, bool);                   \
  EXTERN template std::int64_t copy_runs_of(const std::byte*, Bits, Rows<std::int32_t>,        \
                                            std::byte*, std::int64_t, bool);                   \
  EXTERN template std::int64_t copy_runs_of(const std::byte*, Bits, Rows<std::int64_t>,        \
                                            std::byte*, std::int64_t, bool);
// NOLINTEND(bugprone-macro-parentheses)

#ifdef RAGGED_EXTERN_KERNEL
RAGGED_KERNEL_INSTANCES(extern)
#endif

// How a dense row of `inner` T moves where compact_lanes moves it: as `count`
// lanes of `width` bytes (the widest of 8, 4, 2, 1 that divides the row),
// where the row is not itself 1, 2, 4 or 8 bytes (compaction_for moves those
// as single elements) and spans 2 to max_row_lanes lanes; else count 0.
struct RowLanes {
  std::size_t width = 0;
  int count = 0;
};

template <class T>
[[nodiscard]] RowLanes row_lanes(std::int64_t inner) noexcept {
#if !(defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)))
  (void)inner;
  return {};  // only the AVX-512 level moves rows as lanes
#else
  if constexpr (!bytewise<T>) {
    (void)inner;
    return {};
  } else {
    const auto bytes = inner * static_cast<std::int64_t>(sizeof(T));
    if (bytes <= 0) return {};
    const std::int64_t width = bytes % 8 == 0 ? 8 : bytes % 4 == 0 ? 4 : bytes % 2 == 0 ? 2 : 1;
    const auto count = bytes / width;
    if (count < 2 || count > max_row_lanes) return {};
    return {static_cast<std::size_t>(width), static_cast<int>(count)};
  }
#endif
}

// How compact_lanes moves `n` dense rows of `inner` T: as row_lanes says,
// where the level is AVX-512, the one it was measured at, and there are 256
// rows or more (fewer, in a call of a microsecond or less, do not pay for
// its probe of the mask); else count 0 (runs).
template <class T>
[[nodiscard]] RowLanes lanes_for(std::int64_t inner, std::int64_t n) noexcept {
  if (n < 256 || active_isa() != Isa::avx512) return {};
  return row_lanes<T>(inner);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
template <class T, class M>
std::int64_t compact_lanes(const T* in, M mask, std::int64_t n, T* out, RowLanes how, bool beyond);
#endif

// One compaction of rows of `inner` elements, without chunking: single
// elements of 1, 2, 4 or 8 bytes through `fn` (compaction_for), rows of 2 to
// 8 lanes as lanes where lanes_for says (compact_lanes), wider rows as runs,
// non-trivial T by assignment. Runs are copied as run_copy(stream) says (long
// ones with non-temporal stores). Returns the number of rows kept.
template <class T, class M>
std::int64_t compact_part(Compaction<M> fn, const T* in, M mask, std::int64_t n, T* out,
                          std::int64_t inner, bool stream) {
  if (fn)
    return fn(reinterpret_cast<const std::byte*>(in), mask, n, reinterpret_cast<std::byte*>(out));
  if constexpr (!bytewise<T>) {
    if (inner == 1) {
      std::int64_t j = 0;
      for (std::int64_t i = 0; i < n; ++i)
        if (mask_at(mask, i)) out[j++] = in[i];
      return j;
    }
  }
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if constexpr (bytewise<T>)
    if (const auto lanes = lanes_for<T>(inner, n); lanes.count)
      return compact_lanes(in, mask, n, out, lanes, stream);
#endif
  return copy_runs(in, mask, Rows<std::int64_t>::uniform(1, n), out, inner, stream);
}

// Whether a chunk that read `len` entries of `w` bytes (and their mask) and
// kept `kept` of them was worth staging: its output was at least an eighth of
// the bytes it read. Written straight to an output beyond the caches, each
// line is first read in (read for ownership), so staging saves memory traffic
// in proportion to the output; below that share the cost of staging (a
// second copy, the lines at each end written twice) is the larger. Measured
// on 1-D 2^26 (Intel, family 6, model 167), staged against straight to the
// output: int32 density 0.5 28.0 ms against 31.8, 0.2 (0.16 of the bytes
// read) 25.4 against 25.6, 0.1 24.3 against 22.9, 0.05 24.1 against 22.1;
// int8 density 0.5 (a quarter) 3 to 5% faster staged.
template <class M>
[[nodiscard]] constexpr bool worth_staging(std::int64_t kept, std::int64_t len,
                                           std::size_t w) noexcept {
  const auto width = static_cast<std::int64_t>(w);
  const std::int64_t mask_bytes = std::is_same_v<M, Bits> ? (len + 7) / 8 : len;
  return 8 * kept * width >= len * width + mask_bytes;
}

// The kernel over chunks of the input, for outputs beyond the caches and for
// reporting row splits: each chunk of elements is compacted into a small
// buffer that stays in L1 and streamed out from there (runs, and rows of
// lanes, go straight to the output: compact_part); after each stretch [lo,
// end) of the input, a chunk or a part of one, `after(lo, end, kept_before,
// kept_after)` sees how many rows had been kept before it and after it.
// A staged chunk is compacted and streamed out a part at a time (a quarter,
// stage_parts), each part reported (`after`) before its lines go out. Each
// line streamed out holds a place in the store buffer until it leaves for
// memory, and every store behind it waits: a chunk's whole output sent at
// once held up the next chunk's stores into L1, and the report's (Intel,
// family 6, model 167, 2^26 entries beyond the caches, density 0.5, x
// memcpy, alternated in one process, medians of 11: in 2^20 ragged rows of
// 0..127, int32 1.17 to 1.20 against 1.38 to 1.39 a whole chunk at a time
// and reported after its lines, doubles 1.12 to 1.14 against 1.22 to 1.23,
// int8 1.01 against 1.26; the report merely moved before the lines, int32
// 1.22 to 1.29. 1-D, parts x whole chunks: int32 0.98 to 0.99, density
// 0.95 0.91 to 0.95, int8 and int16 0.94 to 0.97, doubles 0.96 to 1.03.
// Whole chunks of a quarter the length instead decide too often whether to
// stage: runs of 1..1024 alike 1.17 to 1.19.)
// Whether a chunk is staged follows what the chunk before it kept
// (worth_staging): sparse masks write straight to the output, the sparsest
// as sparsest_reach() says. Where the level
// writes straight to the output (writes_straight), no chunk is staged: each
// is compacted as straight_reach() says, and where the caller reports at the
// bounds of uniform rows (`row_length`, 0 for none) at least a chunk long,
// each chunk is one of those rows. Returns the number of rows kept.
template <class T, class M, class After>
std::int64_t compact_chunked(const T* in, M mask, std::int64_t n, T* out, std::int64_t inner,
                             bool stream, std::int64_t row_length, After&& after) {
  constexpr std::int64_t stage_bytes = 8192;
  const bool staged = stage_outputs();
  // Where the level writes straight to the output, its compaction may stream it.
  const auto fn =
      compaction_for<T, M>(inner, stream && !staged ? straight_reach() : beyond_reach());
  // The chunks that such a level writes straight to the output, unstaged,
  // and those of them after a chunk that kept under 1/64 of its entries.
  const Compaction<M> unstaged{fn.fn, stream && staged ? beyond_reach() : fn.reach},
      sparsest{fn.fn, stream && staged ? sparsest_reach() : fn.reach};
  const bool wide = active_isa() == Isa::avx512;  // one 64-byte non-temporal store per line
  const auto w = static_cast<std::size_t>(inner) * sizeof(T);
  const auto row_bytes = std::max<std::int64_t>(1, inner * static_cast<std::int64_t>(sizeof(T)));
  std::int64_t chunk = std::max<std::int64_t>(64, stage_bytes / row_bytes / 64 * 64);
  // Rows that move as lanes (compact_part, lanes_for) are never staged, and
  // each call probes its mask: chunks as long as a report takes. (AMD Zen 5,
  // family 0x1A model 2, xyz float under a ragged mask, 1 MiB: density 0.05
  // 2.06x memcpy in chunks of 640 rows.)
  if (!fn && lanes_for<T>(inner, report_entries).count) chunk = report_entries;
  // Where no chunk is staged, its length need not fit the stage: chunks of
  // one long row each put every bound at a chunk's end (nothing in the mask
  // is counted again), and each chunk's output starts and ends its partial
  // lines once per row, not once per stage. (Measured on AMD Zen 5, family
  // 0x1A model 2, before its streamed loop reported what it read, as
  // compact() with rows now has it there and on Zen 4 (reporting_for).
  // Dense [4096, 4096] int32 to ragged, x the same data flattened, one
  // process each: 1.01 to 1.08 so in five, 1.12 and 1.16 in two noisier
  // ones; 1.10 in chunks of 2048 entries; chunks of two or four rows, their
  // inside bounds counted again, 1.08 to 1.12. On Zen 4, whose carry would
  // stay open across rows, chunks of four rows took 1.08 to 1.14 x
  // Highway's best loop, paired, against 1.01 to 1.04 a row each.)
  if ((!staged || !stream) && row_length >= chunk) chunk = row_length;
  constexpr std::int64_t stage_parts = 4;
  const std::int64_t part = std::max<std::int64_t>(64, chunk / stage_parts / 64 * 64);
  LineStage<stage_bytes> stage;
  std::int64_t kept = 0;
  bool stage_next = true, sparsest_next = false;
  for (std::int64_t lo = 0; lo < n; lo += chunk) {
    const auto len = std::min(chunk, n - lo);
    const auto kept_before = kept;
    if (fn && stream && staged && stage_next) {
      for (auto at = lo; at < lo + len; at += part) {
        const auto plen = std::min(part, lo + len - at);
        const auto k = fn(reinterpret_cast<const std::byte*>(in + at * inner), mask + at, plen,
                          stage.at(reinterpret_cast<std::byte*>(out + kept * inner)));
        after(at, at + plen, kept, kept + k);
        stage.wrote(static_cast<std::size_t>(k) * w, wide);
        kept += k;
      }
    } else {
      stage.flush();
      kept += compact_part(sparsest_next ? sparsest : unstaged, in + lo * inner, mask + lo, len,
                           out + kept * inner, inner, stream);
      after(lo, lo + len, kept_before, kept);
    }
    stage_next = worth_staging<M>(kept - kept_before, len, w);
    sparsest_next = 64 * (kept - kept_before) < len;
  }
  stage.flush();
  if (stream) stream_fence();
  return kept;
}

// The mask bits and running counts of a chunk, at the active instruction set.
template <class M>
void mask_words(M mask, std::int64_t n, std::uint64_t* words, std::int64_t* prefix,
                std::int64_t base) noexcept {
  implementation<M>().mask_words(mask, n, words, prefix, base);
}

// The result's splits at the mask rows' bounds in (lo, end], from the chunk's
// mask words and their running counts (mask_words): branch-free per bound.
// Returns the first bound past the chunk.
template <class Index, class OutIndex>
[[gnu::always_inline]] inline std::int64_t splits_in_chunk(
    const std::uint64_t* words, const std::int64_t* prefix, std::int64_t lo, std::int64_t end,
    Rows<Index> rows, std::int64_t r, std::int64_t nbounds, OutIndex* out) noexcept {
  for (; r < nbounds && rows.bound(r) <= end; ++r) {
    const auto at = rows.bound(r) - lo;
    const auto below = (std::uint64_t{1} << (at % 64)) - 1;
    out[r] = static_cast<OutIndex>(prefix[at / 64] + std::popcount(words[at / 64] & below));
  }
  return r;
}

// The same with the popcnt instruction where the vector levels run (on a
// baseline x86-64 build std::popcount is a libgcc call or a bit trick).
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
template <class Index, class OutIndex>
[[gnu::target("popcnt")]] std::int64_t splits_in_chunk_popcnt(
    const std::uint64_t* words, const std::int64_t* prefix, std::int64_t lo, std::int64_t end,
    Rows<Index> rows, std::int64_t r, std::int64_t nbounds, OutIndex* out) noexcept {
  return splits_in_chunk(words, prefix, lo, end, rows, r, nbounds, out);
}
#endif

template <class Index, class OutIndex>
std::int64_t splits_in_chunk_at(bool popcnt, const std::uint64_t* words, const std::int64_t* prefix,
                                std::int64_t lo, std::int64_t end, Rows<Index> rows, std::int64_t r,
                                std::int64_t nbounds, OutIndex* out) noexcept {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (popcnt) return splits_in_chunk_popcnt(words, prefix, lo, end, rows, r, nbounds, out);
#else
  (void)popcnt;
#endif
  return splits_in_chunk(words, prefix, lo, end, rows, r, nbounds, out);
}

// The splits of a row selection (boolean_mask.hpp, select_rows): of the rows of
// `splits` that `mask` keeps, into sp[1..kept], the running total of the kept
// rows' lengths. Branch-free per row: at density 0.5 runs of kept rows are too
// short for a branch per run to be predicted. At AVX-512, a vector of rows a
// step up to the last whole word of 64 (avx512.hpp, kept_limits_avx512). sp[0]
// is the caller's 0.
template <class M, class Index>
void kept_limits(M mask, std::int64_t nrows, const Index* splits, Index* sp) noexcept {
  std::int64_t k = 0, from = 0;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if constexpr (std::is_integral_v<Index> && (sizeof(Index) == 4 || sizeof(Index) == 8))
    if (active_isa() == Isa::avx512) from = kept_limits_avx512(mask, nrows, splits, sp, k);
#endif
  Index total = sp[k];
  for (std::int64_t base = from; base < nrows; base += 64) {
    const auto len = std::min<std::int64_t>(64, nrows - base);
    const auto bits = load_bits(mask + base, len);
    for (std::int64_t i = 0; i < len; ++i) {
      const auto keep = static_cast<std::int64_t>((bits >> i) & 1);
      const auto r = base + i;
      // An and with all ones or zero, not a conditional: compilers turn the latter into a branch.
      total = static_cast<Index>(total + ((splits[r + 1] - splits[r]) & static_cast<Index>(-keep)));
      k += keep;
      sp[k] = total;  // rewritten until the next kept row: the last value written stands
    }
  }
}

template <class T>
[[nodiscard]] bool worth_streaming(std::int64_t n, std::int64_t inner) noexcept {
  return bytewise<T> && n * inner * static_cast<std::int64_t>(sizeof(T)) >= stream_threshold_bytes;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

// How many runs of kept entries begin in the `nwords` mask words `words`
// (bits past the entries zero), the entry before them kept where `carry`.
[[nodiscard]] inline std::int64_t runs_begun(const std::uint64_t* words, std::int64_t nwords,
                                             std::uint64_t carry = 0) noexcept {
  std::int64_t runs = 0;
  for (std::int64_t k = 0; k < nwords; ++k) {
    runs += std::popcount(words[k] & ~(words[k] << 1 | carry));
    carry = words[k] >> 63;
  }
  return runs;
}

// compact() of dense rows as lanes (row_lanes: `how`); `beyond`: the input
// lies beyond the caches (worth_streaming). Where the first rows' runs of
// kept rows are long, or far apart, the rows move as runs (copy_runs): they
// read only the kept rows' lines. Else a chunk of rows at a time: its mask
// read as bit words (mask_words), each row's bit widened to one per lane
// (widen_rows_avx512), and the chunk's lanes compacted as single elements of
// the lanes' width by the 1-D kernel with that widened mask (Bits), straight
// to the output. In the caches, as the kernel compacts there. Beyond them,
// by the share of the chunk's rows kept: under 3/8, as the kernel compacts
// an output beyond the caches (straight_reach: on Zen 5 streamed through
// L1); under 3/4, reading the input as the kernel does beyond the caches,
// with ordinary stores (beyond_reach); from 3/4 on, as in the caches, with
// no requests ahead, which compete with the stores that bound the loop
// there; except, from 7/8 on, lanes of 4 or 8 bytes on a CPU that reads in
// order (AMD Zen 4), which go out carried in a register (straight_reach:
// Reach::carried), every output line whole. Returns the number of rows kept.
//
// Moved as runs, a random mask's rows of 12 to 64 bytes took 1.3 to 2.7x
// memcpy at densities 0.05 to 0.95: its runs of them are a few dozen bytes,
// each a branch and a copy. (AMD Zen 5, family 0x1A model 2, 256 MiB of rows
// beyond the caches, x memcpy of the input, medians of 7 rounds alternated
// in one process, runs / lanes streamed / lanes read beyond: rows of 12
// bytes at density 0.05 1.58 / 0.59 / 1.15, 0.25 1.38 / 0.71 / 0.85, 0.5 2.43
// / 1.04 / 0.86, 0.75 2.73 / 1.09 / 0.91; 24 bytes at 0.1 1.85 / 0.53 /
// 1.02, 0.5 2.00 / 0.97 / 0.76; 48 bytes at 0.25 1.50 / 0.56 / 0.77, 0.5 1.58
// / 1.16 / 0.67; 64 bytes at 0.05 0.16 / 0.75 / 0.62, 0.25 0.58 / 0.56 /
// 0.83, 0.5 1.79 / 1.29 / 1.14. Runs of 1..1024 rows alike: 64 bytes 0.58 /
// 0.93 / 0.88, 12 bytes 1.10 / 0.98 / 0.92. From 3/4 kept, as in the caches
// x read beyond, medians of 9: 16 to 48 bytes at density 0.9 0.89 to 0.91,
// at 0.95 0.88 to 0.93, at 0.75 0.97 to 1.01; at 0.5 1.11 to 1.22. Measured
// on Zen 5. On Zen 4, family 0x19 model 17, the same harness, carried x as
// in the caches, medians of 9: rows of 12, 16, 20, 24 and 28 bytes at
// density 0.95 0.85, 0.77 to 0.80, 0.84, 0.77 to 0.89 and 0.82, at 0.9 0.93
// (12 bytes) and 0.81 to 0.84; at 0.75 and 0.85 1.00 to 1.13, so not there;
// lanes of 1 and 2 bytes (rows of 3, 6 and 10 bytes) 1.00 to 1.10 at 0.9 and
// 0.95, so not them. The reaches of the other bands held on Zen 4: every
// row of 3 to 48 bytes at 0.05 to 0.75 took 0.40 to 0.95x memcpy.)
// Beyond the caches runs pay where there is one per KiB of rows or fewer,
// per 512 bytes for rows of a line, for which copy_runs requests a region
// ahead (queued_regions). Chosen once per call, from the first 4096 rows:
// chosen per chunk, the runs took 1.01 to 1.22x as long as in one call. In
// the caches, where a miss costs less, runs pay from one per 384 bytes, 320
// for rows of a line. (1 MiB of rows, medians of 21 rounds, lanes x runs:
// rows of 12 bytes at density 0.25 to 0.75 0.27 to 0.35, 0.95 0.75 to 0.83,
// runs of 1..64 rows, 780 bytes a run, 1.14; 24 bytes at 0.05, 500 bytes a
// run, 1.02 to 1.39; 64 bytes at 0.25, 341 bytes a run, 1.31, at 0.5 0.97;
// runs of 1..64 kept or dropped as runs. In 64 KiB the probe costs the
// calls that then move runs 4 to 21%, and lanes took 0.24 to 0.36 of the
// runs' time at density 0.5.)
template <class T, class M>
std::int64_t compact_lanes(const T* in, M mask, std::int64_t n, T* out, RowLanes how, bool beyond) {
  constexpr std::int64_t chunk = 2048;  // rows
  constexpr std::int64_t words = chunk / 64;
  std::uint64_t rows[words];
  std::int64_t prefix[words + 1];
  std::uint64_t lanes[words * max_row_lanes];
  const auto row = static_cast<std::int64_t>(how.width) * how.count;  // bytes
  const auto inner = row / static_cast<std::int64_t>(sizeof(T));
  std::int64_t runs = 0;
  const auto probe = std::min<std::int64_t>(n, 2 * chunk);
  for (std::int64_t lo = 0; lo < probe; lo += chunk) {
    const auto len = std::min(chunk, probe - lo);
    mask_words(mask + lo, len, rows, prefix, 0);
    runs += runs_begun(rows, (len + 63) / 64, lo > 0 && mask_at(mask, lo - 1));
  }
  const std::int64_t run_bytes = beyond ? (row >= 64 ? 512 : 1024) : (row >= 64 ? 320 : 384);
  if (runs * run_bytes <= probe * row)
    return copy_runs(in, mask, Rows<std::int64_t>::uniform(1, n), out, inner, beyond);
  const auto fn = implementation<Bits>().compact[width_slot(how.width)];
  const bool carry_densest = beyond && how.width >= 4 && reads_in_order(cpu_features().id);
  const Reach cached = cached_reach();
  const Compaction<Bits> sparse{fn, beyond ? straight_reach() : cached},
      half{fn, beyond ? beyond_reach() : cached}, most{fn, cached},
      densest{fn, carry_densest ? straight_reach() : cached};
  const auto* src = reinterpret_cast<const std::byte*>(in);
  auto* dst = reinterpret_cast<std::byte*>(out);
  std::int64_t kept = 0;  // rows
  for (std::int64_t lo = 0; lo < n; lo += chunk) {
    const auto len = std::min(chunk, n - lo);
    const auto nwords = (len + 63) / 64;
    mask_words(mask + lo, len, rows, prefix, 0);
    // Bits past `len` are zero (mask_words), and the kernel reads no lane past len * count.
    widen_rows_avx512(rows, nwords, how.count, lanes);
    // Little-endian words read as bytes are Bits' order: entry i is bit i % 8 of byte i / 8.
    const Bits bits{reinterpret_cast<const std::uint8_t*>(lanes), 0};
    const auto share = 8 * prefix[nwords];  // eighths of `len`
    const auto& compaction = share < 3 * len   ? sparse
                             : share < 6 * len ? half
                             : share < 7 * len ? most
                                               : densest;
    compaction(src + lo * row, bits, len * how.count, dst + kept * row);
    kept += prefix[nwords];
  }
  return kept;
}
#endif

}  // namespace detail

/// The number of true entries in mask[0, n): the size of a compaction's output,
/// so that it is allocated once.
template <MaskPointer M>
[[nodiscard]] std::int64_t count(M mask_in, std::int64_t n) noexcept {
  const auto mask = detail::mask_pointer(mask_in);
  using Kind = std::remove_const_t<decltype(mask)>;
  if (n <= 0) return 0;
  // Short rows of bytes do not pay for dispatch.
  if constexpr (!std::is_same_v<Kind, Bits>)
    if (n < 64) return detail::count_scalar(mask, n);
  return detail::implementation<Kind>().count(mask, n);
}

// Every compact() has one shape, that of std::copy_if and Highway's CopyIf:
// input, mask, the extent of the input (n entries, or rows), output; it returns
// the end of what it wrote.

/// Keeps the rows of `inner` consecutive elements of `in` (n rows, n * inner
/// elements) whose mask entry is true, writes them densely from `out` on and
/// returns the end of what it wrote (`out` + kept rows * inner). With inner ==
/// 1 these are single elements: NumPy's `np.compress(mask, in)`, the core of
/// tf.boolean_mask.
template <class T, MaskPointer M>
T* compact(const T* in, M mask_in, std::int64_t n, T* out,
           std::int64_t inner = 1) noexcept(detail::bytewise<T>) {
  const auto mask = detail::mask_pointer(mask_in);
  // Nothing to keep: return before any size arithmetic (an empty tensor's
  // inner size need not be small).
  if (n <= 0) return out;
  using Kind = std::remove_const_t<decltype(mask)>;
  std::int64_t kept = 0;
  // Rows of 2 to 8 lanes go through compact_part (compact_lanes) in one
  // call, in the caches or beyond them, never chunked: each call probes its mask.
  if (!detail::worth_streaming<T>(n, inner)) {
    kept = detail::compact_part(detail::compaction_for<T, Kind>(inner, detail::cached_reach()), in,
                                mask, n, out, inner, false);
  } else if (!detail::stage_outputs() || detail::lanes_for<T>(inner, n).count) {
    // Straight to the output in one pass (long runs still stream: run_copy).
    kept = detail::compact_part(
        detail::compaction_for<T, Kind>(inner, detail::straight_reach(mask, n)), in, mask, n, out,
        inner, true);
    detail::stream_fence();
  } else {
    kept = detail::compact_chunked(in, mask, n, out, inner, true, 0,
                                   [](std::int64_t, std::int64_t, std::int64_t, std::int64_t) {});
  }
  return out + kept * inner;
}

/// compact() of a mask in rows (`mask_rows` partitions the n entries, as a
/// ragged mask's row splits do) that also writes the row splits of the
/// result: `out_splits[r]`, for r in [0, mask_rows.nrows], is how many rows
/// it kept before mask_rows.bound(r). Made in the same pass over the mask as
/// the compaction. Returns the end of what it wrote to `out`.
template <class T, MaskPointer M, class Index, class OutIndex>
T* compact(const T* in, M mask_in, std::int64_t n, T* out, std::int64_t inner,
           Rows<Index> mask_rows, OutIndex* out_splits) noexcept(detail::bytewise<T>) {
  const auto mask = detail::mask_pointer(mask_in);
  using Kind = std::remove_const_t<decltype(mask)>;
  const auto nbounds = mask_rows.nrows + 1;
  const bool popcnt = active_isa() != Isa::scalar;  // every vector level has it
  std::int64_t r = 0;
  if (n <= 0) {
    // Nothing to move: return before any size arithmetic (an empty tensor's
    // inner size need not be small).
    for (; r < nbounds; ++r) out_splits[r] = OutIndex{0};
    return out;
  }
  // The bounds in [lo, end] of each stretch that compact_chunked reports (a
  // chunk, or a part of a staged one). Where two or more lie inside it
  // (short rows), from the stretch's mask bits (its bytes still in L1) and
  // their prefix counts, branch-free per bound. Where one does at most (rows
  // as long as the stretch or longer, as dense rows are), it adds the count
  // from the stretch's start (its mask is read again once at most), and a
  // bound at the stretch's end is the kept count so far. (A count per bound
  // for up to four, as before, cost where parts are short: Intel family 6
  // model 167, doubles in 2^20 ragged rows of 0..127, parts of 256 entries,
  // 1.18 to 1.20x memcpy against 1.11 to 1.15 with the bits; int32, parts
  // of 512, the same within the noise.)
  const auto report = [&](std::int64_t lo, std::int64_t end, std::int64_t kept_before_chunk,
                          std::int64_t kept_after_chunk) {
    constexpr std::int64_t few = 1;
    std::int64_t inside = 0;
    for (auto q = r; q < nbounds && mask_rows.bound(q) < end && inside <= few; ++q) ++inside;
    if (inside <= few) {
      auto running = kept_before_chunk;
      for (auto at = lo; r < nbounds && mask_rows.bound(r) < end; ++r) {
        running += kernel::count(mask + at, mask_rows.bound(r) - at);
        at = mask_rows.bound(r);
        out_splits[r] = static_cast<OutIndex>(running);
      }
      for (; r < nbounds && mask_rows.bound(r) == end; ++r)
        out_splits[r] = static_cast<OutIndex>(kept_after_chunk);
      return;
    }
    constexpr std::int64_t max_words = detail::report_entries / 64 + 1;
    std::uint64_t words[max_words + 1];
    std::int64_t prefix[max_words + 1];
    const auto nwords = (end - lo + 63) / 64;
    detail::mask_words(mask + lo, end - lo, words, prefix, kept_before_chunk);
    words[nwords] = 0;
    r = detail::splits_in_chunk_at(popcnt, words, prefix, lo, end, mask_rows, r, nbounds,
                                   out_splits);
  };
  const bool stream = detail::worth_streaming<T>(n, inner);
  // Where the level streams its output through L1: one pass, the loop
  // handing over the mask bits and counts it read, a stretch at a time, from
  // which the bounds are made as from a chunk's above.
  std::int64_t kept = 0;
  if (const auto reporting = stream ? detail::reporting_for<T, Kind>(inner) : nullptr) {
    struct Splits {
      Rows<Index> rows;
      std::int64_t r, nbounds;
      OutIndex* out;
      bool popcnt;
    } splits{mask_rows, r, nbounds, out_splits, popcnt};
    const detail::Report report_to{
        &splits, [](void* to, std::int64_t lo, std::int64_t end, const std::uint64_t* words,
                    const std::int64_t* prefix) noexcept {
          auto& s = *static_cast<Splits*>(to);
          s.r = detail::splits_in_chunk_at(s.popcnt, words, prefix, lo, end, s.rows, s.r, s.nbounds,
                                           s.out);
        }};
    kept = reporting(reinterpret_cast<const std::byte*>(in), mask, n,
                     reinterpret_cast<std::byte*>(out), report_to);
    detail::stream_fence();
    r = splits.r;
  } else {
    kept = detail::compact_chunked(in, mask, n, out, inner, stream,
                                   mask_rows.splits ? 0 : mask_rows.length, report);
  }
  for (; r < nbounds; ++r)
    out_splits[r] = static_cast<OutIndex>(kept);  // bounds at n, after the last chunk
  return out + kept * inner;
}

/// Row selection: keeps the rows of `rows` (row r is in[rows.bound(r) * inner,
/// rows.bound(r + 1) * inner)) whose mask entry is true, one mask entry per
/// row. Maximal runs of kept rows are contiguous in `in` and move with one copy
/// each. Returns the end of what it wrote. This is tf.ragged.boolean_mask of
/// ragged data by a mask over its rows.
template <class T, MaskPointer M, class Index>
T* compact(const T* in, M mask_in, Rows<Index> rows, T* out,
           std::int64_t inner = 1) noexcept(detail::bytewise<T>) {
  const auto mask = detail::mask_pointer(mask_in);
  if (rows.nrows <= 0) return out;
  const bool stream = detail::worth_streaming<T>(rows.bound(rows.nrows) - rows.bound(0), inner);
  const auto kept = detail::copy_runs(in, mask, rows, out, inner, stream);
  if (stream) detail::stream_fence();
  return out + kept * inner;
}

/// compact() on the calling thread: the overload the operations call by default.
template <class T, MaskPointer M>
T* compact(const T* in, M mask, std::int64_t n, T* out, std::int64_t inner,
           Serial) noexcept(detail::bytewise<T>) {
  return compact(in, mask, n, out, inner);
}

}  // namespace kernel
}  // namespace v0_1
}  // namespace ragged
