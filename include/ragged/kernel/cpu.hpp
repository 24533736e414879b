// SPDX-License-Identifier: Apache-2.0
// Which instruction sets the kernel may use: detected once at run time, so a
// binary built for baseline x86-64 still uses AVX-512 where the CPU has it.
#pragma once

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#endif

namespace ragged {
inline namespace v0_1 {
namespace kernel {

/// The kernel's instruction-set levels. avx512 means AVX-512 F, BW, VL, VBMI
/// and VBMI2 (Ice Lake, Zen 4 and later); avx2 means AVX2 and BMI2.
enum class Isa { scalar = 0, avx2 = 1, avx512 = 2 };

/// How the AVX-512 level stores each compressed vector: chosen per CPU
/// (choose_avx512_store says why), forced with force_avx512_store for tests and comparisons.
enum class Avx512Store {
  /// Compress in a register, store with a mask of the kept lanes. Outputs
  /// beyond the caches are staged in L1 and streamed out.
  masked = 0,
  /// vpcompress straight to memory; staged and streamed as `masked`.
  compress_store = 1,
  /// Compress in a register and store the whole vector wherever the kept
  /// count of the rest of its block and the next one proves that the lanes
  /// past the kept ones land inside the output (later stores overwrite
  /// them); a masked store only where it does not, so the kernel still never
  /// writes past the last kept element. Not staged: written straight to
  /// the output, or on Zen 5 beyond the caches through L1
  /// (streams_through_l1). One-byte elements test two blocks ahead (a
  /// vector is a whole block of them), and in the caches store masked.
  whole = 2,
};

/// The identity of a CPU that the choice of AVX-512 store rests on, as CPUID
/// reports it (family and model with their extended parts folded in).
struct CpuId {
  enum class Vendor { other, intel, amd };
  Vendor vendor = Vendor::other;
  unsigned family = 0;
  unsigned model = 0;
  // AVX512-FP16 (CPUID leaf 7, EDX bit 23): Intel's Golden Cove cores and
  // their successors, the first whose compress-store is fast.
  bool avx512fp16 = false;
};

/// What the CPU offers, as the kernel needs to know it.
struct CpuFeatures {
  bool avx2 = false;
  bool avx512 = false;
  // Compress-store straight to memory (vpcompress* m, k, zmm) is fast:
  // cpu_has_fast_compress_store says where.
  bool fast_compress_store = false;
  // The AVX-512 store this CPU runs fastest (where avx512): choose_avx512_store(id).
  Avx512Store avx512_store = Avx512Store::masked;
  // The CPU as CPUID reports it.
  CpuId id;
};

/// Whether vpcompress* straight to memory is fast on `id`. It is microcoded
/// and slow on AMD Zen 4 (family 0x19) and on Intel before Golden Cove (Ice
/// Lake, Tiger Lake, Rocket Lake); fast on AMD Zen 5 (family 0x1A) and on
/// Intel's cores since Sapphire Rapids: in cache 0.82 to 0.89 of the time of
/// compress + masked store on Emerald Rapids (family 6, model 207), 0.79 on a
/// KVM guest that reports family 6, model 167 with AVX512-FP16 and AMX.
/// Hypervisors rewrite the model, so Intel is known by AVX512-FP16 as well
/// as by the models of Sapphire, Emerald and Granite Rapids (143, 207, 173, 174).
[[nodiscard]] constexpr bool cpu_has_fast_compress_store(const CpuId& id) noexcept {
  if (id.vendor == CpuId::Vendor::amd) return id.family >= 0x1a;
  if (id.vendor != CpuId::Vendor::intel) return false;
  const bool server_since_spr =
      id.family == 6 && (id.model == 143 || id.model == 207 || id.model == 173 || id.model == 174);
  return server_since_spr || id.avx512fp16;
}

/// The AVX-512 store that runs fastest on `id` (a CPU with the avx512 level).
/// AMD's Zen 4 and Zen 5 store whole vectors, straight to the output
/// (compact.hpp, stage_outputs, has one-byte elements' figures). Zen 4 (family 0x19, 2 vCPUs of an
/// EPYC, 1-D int32 2^26 into an existing output, as a ratio to memcpy):
/// compress + masked store straight to the output took 0.82, the same staged
/// in L1 and streamed 0.94 to 0.95, and Highway's compress + whole-vector
/// store 0.82. Zen 5 (family 0x1A, model 2, the same workload, one process,
/// huge pages): whole 0.92, compress-store staged 1.06, masked staged 1.04,
/// Highway's whole-vector loop 1.05; in cache (2^14) whole 1.19, masked 1.72
/// and compress-store 2.00 against 1.17 for Highway's loop. Where Intel's
/// compress-store is fast it is used, staged; elsewhere staging paid off
/// (Emerald Rapids: whole-vector stores 1.4 to 1.7x slower than masked ones
/// in cache), so other CPUs store masked, staged.
[[nodiscard]] constexpr Avx512Store choose_avx512_store(const CpuId& id) noexcept {
  if (id.vendor == CpuId::Vendor::amd && id.family >= 0x19) return Avx512Store::whole;
  if (cpu_has_fast_compress_store(id)) return Avx512Store::compress_store;
  return Avx512Store::masked;
}

/// Whether, with Avx512Store::whole, outputs beyond the caches go out through
/// a buffer in L1 with non-temporal stores (kernel/avx512.hpp,
/// compact_stream_avx512) rather than straight to the output. Zen 5 (family
/// 0x1A, model 2, 2^26 entries, density 0.5, x the time straight to the
/// output, one process each): int32 0.85 to 0.96, double 0.87 to 0.95, int8
/// 0.86 to 0.99. Zen 4 (family 0x19 model 0x11) writes straight: streamed
/// through L1, reading every block in order as it does (reads_in_order), it
/// was no faster (int32 2^26, ms, medians of 3 in three processes, streamed
/// against straight: density 0.5 16.9 to 24.1 against 15.8 to 19.4, 0.05
/// 12.9 to 16.9 against 12.4 to 13.0, 0.95 20.8 to 22.7 against 22.2 to 24.2,
/// runs of 1..1024 16.7 to 21.0 against 16.7 to 19.3). Measured again later
/// on Zen 5, which way is faster turned with the host's state (straight x
/// streamed, one process each: int32 density 0.95 0.78 to 1.09, density 0.05
/// 0.94 to 1.31), and a choice per call by timing both gained too little to
/// keep (docs/performance.md, "streamed or straight beyond the caches").
/// Masks that keep 7/8 or more of their first entries are written straight
/// all the same (compact.hpp, straight_reach(mask, n)): there the straight
/// loop was the faster in most minutes measured, and it moves with
/// Highway's loops, which write the same way.
/// Zen 4's stretches that keep most entries or hold runs go out with
/// non-temporal stores all the same, their lines put together in a register
/// rather than a buffer in L1 (Reach::carried, kernel/avx512.hpp:
/// compact_carried_avx512).
[[nodiscard]] constexpr bool streams_through_l1(const CpuId& id) noexcept {
  return id.vendor == CpuId::Vendor::amd && id.family >= 0x1a;
}

/// Whether, with Avx512Store::whole, an input beyond the caches is read block
/// by block in order, every block compressed (empty and full ones too) and
/// nothing requested ahead by the loop, rather than empty blocks skipped
/// unread, full ones copied and each block's values requested ahead
/// (kernel/avx512.hpp, compact_whole_avx512). AMD Zen 4 (family 0x19): its
/// hardware prefetcher streams an input read without gaps, and it loses the
/// stream at each gap that skipped blocks leave; requests of ours did not
/// make up for it. (Family 0x19 model 0x11, 1-D int32 2^26 into an existing
/// output, ms, medians of 3 in each of three processes: runs of 1..1024 alike
/// 21.4 to 24.2 skipping with requests, 21.2 to 23.5 skipping without, 16.0 to
/// 17.2 in order, Highway's Compress + StoreU 14.5 to 17.3 beside them; random
/// density 0.5 17.5 to 21.0 against 15.8 to 19.4 in order; density 0.95 24.0
/// to 27.0 against 21.8 to 25.9.) Zen 5 streams its output through
/// L1 instead (streams_through_l1), where skipping pays. Row selection beyond
/// the caches, where at least a quarter of the rows are kept and runs are not
/// short, requests every line of its input in order there, the gaps between
/// kept runs too, and where runs are long puts the output's lines together in
/// a register (kernel/compact.hpp, copy_runs). Zen 3 (family 0x19 too, AVX2
/// only) is taken to read as Zen 4 does; not measured.
[[nodiscard]] constexpr bool reads_in_order(const CpuId& id) noexcept {
  return id.vendor == CpuId::Vendor::amd && id.family == 0x19;
}

/// Whether row selection beyond the caches, with Avx512Store::whole, puts
/// runs of kept rows together in a register and streams the output in whole
/// lines (kernel/compact.hpp, copy_runs_carried) where the mask keeps most
/// rows (carried_runs says which and how), rather than copying each run
/// with its own stores, which read every line of a run under 4 KiB for
/// ownership first. Zen 5 (family 0x1A model 2, 2^26 float in rows, carried
/// x copied, medians of 12 alternated in one process, two processes, the
/// runs queued and requested ahead either way): dense rows of 128 bytes at
/// density 0.9 0.78 to 0.85, of 256 at 0.9 0.78 to 0.79, of 512 at 0.75
/// 0.83 to 0.85; ragged rows of 0..127 int32 at 0.9 0.81 to 0.82; where runs
/// are short or few rows kept it costs more than it spares (ragged rows of
/// 0..31 at 0.9 1.08 to 1.10, dense rows of 100 bytes at 0.5 1.18 to 1.19),
/// unless nothing is requested ahead either (carried_runs has the figures).
/// Intel's staged levels carry every queued run (kernel/compact.hpp,
/// copy_runs_of); Zen 4 reads in order (reads_in_order) and carries by its
/// own test.
[[nodiscard]] constexpr bool carries_kept_runs(const CpuId& id) noexcept {
  return id.vendor == CpuId::Vendor::amd && id.family >= 0x1a;
}

/// Whether, with Avx512Store::whole, the loop in the caches gathers each
/// block of a sparse mask's kept entries into one vector by their indices
/// and stores it once (kernel/avx512.hpp, gather_block_whole_avx512), rather
/// than compressing and storing each of the block's vectors. Zen 5 (family
/// 0x1A model 2, in the caches, x memcpy, the loop in the caches as it was
/// against gathered, one process per width): int32 2^14 density 0.02 to
/// 0.15 1.14 to 1.30 against 1.00 to 1.07; int16 2^15 0.05 to 0.15 1.55 to
/// 1.71 against 1.37 to 1.39; doubles 2^13 0.01 to 0.125 0.70 to 1.28
/// against 0.51 to 1.09. Intel's cores with a fast compress-store
/// (cpu_has_fast_compress_store) gather too, at the compress-store level
/// (family 6 model 167, int32 2^14, x memcpy: density 0.05 0.56 to 0.61
/// against 0.73 to 0.78, 0.1 0.56 to 0.68 against 0.79 to 0.96). Zen 4 is
/// not measured, and keeps the loop as it was.
[[nodiscard]] constexpr bool gathers_sparse_blocks(const CpuId& id) noexcept {
  if (id.vendor == CpuId::Vendor::intel) return cpu_has_fast_compress_store(id);
  return id.vendor == CpuId::Vendor::amd && id.family >= 0x1a;
}

/// Whether a loop that compacts a chunk straight into an output beyond the
/// caches, at a level that stages dense chunks in L1 (compact.hpp,
/// compact_chunked: a sparse chunk, not worth_staging), requests its input
/// ahead (prefetch_block) where the chunk before it kept under 1/64 of its
/// entries. Not on Intel's cores with a fast compress-store: there nearly
/// every block of such a chunk keeps nothing and is skipped unread, and the
/// requests would fetch what it skips; sparse chunks that keep more request
/// their input into L2 (requests_into_l2). (Family 6 model 167, 1-D int32
/// 2^26 in chunks of 2048 entries, straight to the output, x memcpy, one
/// process, medians of 9 to 15: density 0.001 0.35 without requests against
/// 0.99 with requests into L1. Requests into L2 x none, one process each,
/// medians of 9 to 11: int32 density 0.003 1.58, 0.005 1.30, 0.0075 1.08,
/// 0.01 0.94, 0.02 0.90, 0.03 to 0.1 0.96 to 0.98; doubles 0.005 1.51, 0.01
/// 1.01, 0.02 0.83, 0.05 0.93; int8 0.005 1.02, 0.02 0.85, 0.05 0.92.)
/// Elsewhere, and on Intel's older cores, not measured: they request, as
/// before.
[[nodiscard]] constexpr bool requests_sparsest_input(const CpuId& id) noexcept {
  return !(id.vendor == CpuId::Vendor::intel && cpu_has_fast_compress_store(id));
}

/// Whether a loop that reads its input beyond the caches and requests it
/// ahead (kernel/avx512.hpp, prefetch_block, at the masked and compress-store
/// levels) requests the values into L2 only, 4 KiB ahead, and no region ahead
/// (kernel/stream.hpp, Reach::into_l2). On Intel's cores with a fast
/// compress-store: requests into L1 bound how many lines the loop has in
/// flight there (family 6 model 167, 1-D int32 2^26 staged, x requests into
/// L1: density 0.5 0.85 to 0.86, 0.95 0.90 to 0.92; avx512.hpp has the rest).
/// Elsewhere not measured: the requests stay as they were.
[[nodiscard]] constexpr bool requests_into_l2(const CpuId& id) noexcept {
  return id.vendor == CpuId::Vendor::intel && cpu_has_fast_compress_store(id);
}

namespace detail {

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
inline constexpr bool x86 = true;

[[gnu::target("xsave")]] inline unsigned long long read_xcr0() noexcept {
  return __builtin_ia32_xgetbv(0);
}

inline CpuFeatures detect_cpu() noexcept {
  CpuFeatures f;
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(0, &a, &b, &c, &d)) return f;
  const unsigned max_leaf = a;
  CpuId id;
  if (b == 0x756e6547) id.vendor = CpuId::Vendor::intel;  // "Genu"ineIntel
  if (b == 0x68747541) id.vendor = CpuId::Vendor::amd;    // "Auth"enticAMD
  __get_cpuid(1, &a, &b, &c, &d);
  const unsigned base_family = (a >> 8) & 0xf;
  id.family = base_family == 0xf ? base_family + ((a >> 20) & 0xff) : base_family;
  id.model = base_family == 0x6 || base_family == 0xf ? ((a >> 4) & 0xf) | (((a >> 16) & 0xf) << 4)
                                                      : (a >> 4) & 0xf;
  const bool osxsave = (c >> 27) & 1;
  if (!osxsave || max_leaf < 7) return f;
  const auto xcr0 = read_xcr0();
  const bool ymm_state = (xcr0 & 0x6) == 0x6;
  const bool zmm_state = (xcr0 & 0xe6) == 0xe6;
  __get_cpuid_count(7, 0, &a, &b, &c, &d);
  const bool avx2 = (b >> 5) & 1, bmi2 = (b >> 8) & 1;
  const bool avx512f = (b >> 16) & 1, avx512bw = (b >> 30) & 1, avx512vl = (b >> 31) & 1;
  const bool avx512vbmi = (c >> 1) & 1, avx512vbmi2 = (c >> 6) & 1;
  id.avx512fp16 = (d >> 23) & 1;
  f.avx2 = ymm_state && avx2 && bmi2;
  f.avx512 = f.avx2 && zmm_state && avx512f && avx512bw && avx512vl && avx512vbmi && avx512vbmi2;
  f.fast_compress_store = f.avx512 && cpu_has_fast_compress_store(id);
  f.avx512_store = choose_avx512_store(id);
  f.id = id;
  return f;
}
#else
inline constexpr bool x86 = false;
inline CpuFeatures detect_cpu() noexcept {
  return {};
}
#endif

inline const CpuFeatures& cpu() noexcept {
  static const CpuFeatures features = detect_cpu();
  return features;
}

[[nodiscard]] inline bool cpu_supports(Isa isa) noexcept {
  switch (isa) {
    case Isa::scalar:
      return true;
    case Isa::avx2:
      return cpu().avx2;
    case Isa::avx512:
      return cpu().avx512;
  }
  return false;
}

// The level RAGGED_FORCE_ISA names: scalar, avx2 or avx512, exactly; nullopt otherwise.
[[nodiscard]] inline std::optional<Isa> isa_named(const char* name) noexcept {
  if (std::strcmp(name, "scalar") == 0) return Isa::scalar;
  if (std::strcmp(name, "avx2") == 0) return Isa::avx2;
  if (std::strcmp(name, "avx512") == 0) return Isa::avx512;
  return std::nullopt;
}

// The best level the CPU has, capped by RAGGED_FORCE_ISA (for tests and
// comparisons). An unknown value caps nothing and says so once on stderr: a
// typo ("AVX2") must not pass for a forced level unnoticed. Runs once.
inline Isa best_isa() noexcept {
  Isa best = cpu().avx512 ? Isa::avx512 : cpu().avx2 ? Isa::avx2 : Isa::scalar;
  if (const char* forced = std::getenv("RAGGED_FORCE_ISA")) {
    if (const auto want = isa_named(forced)) {
      if (static_cast<int>(*want) < static_cast<int>(best)) best = *want;
    } else {
      std::fprintf(stderr,
                   "ragged: RAGGED_FORCE_ISA=%.40s is not one of scalar, avx2, avx512; "
                   "ignored (no cap)\n",
                   forced);
    }
  }
  return best;
}

inline std::atomic<int>& isa_state() noexcept {
  static std::atomic<int> state{static_cast<int>(best_isa())};
  return state;
}

inline std::atomic<int>& avx512_store_state() noexcept {
  static std::atomic<int> state{static_cast<int>(cpu().avx512_store)};
  return state;
}

}  // namespace detail

/// The instruction set the kernel uses now.
[[nodiscard]] inline Isa active_isa() noexcept {
  return static_cast<Isa>(detail::isa_state().load(std::memory_order_relaxed));
}

/// Whether this CPU (and build) can run the kernel at `isa`.
[[nodiscard]] inline bool supports(Isa isa) noexcept {
  return detail::cpu_supports(isa);
}

/// Makes the kernel use `isa` from now on, for tests and comparisons; returns
/// false (and changes nothing) where the CPU lacks it. Not meant to be called
/// while other threads run the kernel.
inline bool force_isa(Isa isa) noexcept {
  if (!supports(isa)) return false;
  detail::isa_state().store(static_cast<int>(isa), std::memory_order_relaxed);
  return true;
}

/// The store the AVX-512 level uses now (CpuFeatures::avx512_store unless forced).
[[nodiscard]] inline Avx512Store active_avx512_store() noexcept {
  return static_cast<Avx512Store>(detail::avx512_store_state().load(std::memory_order_relaxed));
}

/// Makes the AVX-512 level store with `store` from now on, for tests and
/// comparisons (every store is correct on every AVX-512 CPU; they differ in
/// speed). Not meant to be called while other threads run the kernel.
inline void force_avx512_store(Avx512Store store) noexcept {
  detail::avx512_store_state().store(static_cast<int>(store), std::memory_order_relaxed);
}

/// The CPU's features as the kernel sees them.
[[nodiscard]] inline const CpuFeatures& cpu_features() noexcept {
  return detail::cpu();
}

}  // namespace kernel
}  // namespace v0_1
}  // namespace ragged
