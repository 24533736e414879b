#include <ragged/kernel/compact.hpp>
#include <ragged/kernel/parallel.hpp>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "catch.hpp"

namespace {
// The plain definition, for comparison.
template <class T>
std::vector<T> expected_rows(const std::vector<T>& in, const std::vector<char>& mask,
                             std::int64_t inner) {
  std::vector<T> out;
  for (std::size_t r = 0; r < mask.size(); ++r)
    if (mask[r])
      for (std::int64_t j = 0; j < inner; ++j)
        out.push_back(in[r * static_cast<std::size_t>(inner) + static_cast<std::size_t>(j)]);
  return out;
}

// Where two vectors first differ (the shorter one's length where it is a
// prefix of the other), or -1 where they are equal: a failed check of large
// outputs prints a place, not two vectors of millions of elements.
template <class V>
std::ptrdiff_t first_difference(const V& a, const V& b) {
  if (a == b) return -1;
  const auto n = static_cast<std::ptrdiff_t>(std::min(a.size(), b.size()));
  return std::mismatch(a.begin(), a.begin() + n, b.begin()).first - a.begin();
}
}  // namespace

TEST_CASE("RAGGED_FORCE_ISA caps the instruction set chosen at start-up") {
  // ctest runs this binary once more with RAGGED_FORCE_ISA=scalar (test_compact_forced_scalar).
  const char* forced = std::getenv("RAGGED_FORCE_ISA");
  if (forced && std::string(forced) == "scalar") {
    CHECK(ragged::kernel::active_isa() == ragged::kernel::Isa::scalar);
  } else {
    // Unforced: the best level the CPU supports.
    const auto isa = ragged::kernel::active_isa();
    CHECK(ragged::kernel::supports(isa));
    if (ragged::kernel::supports(ragged::kernel::Isa::avx512))
      CHECK(isa == ragged::kernel::Isa::avx512);
  }
}

TEMPLATE_TEST_CASE("compact keeps the masked elements and rows and writes nothing past them", "",
                   std::int8_t, std::int16_t, std::int32_t, std::int64_t, float, double) {
  std::mt19937 rng(7);
  for (std::int64_t inner : {1, 2, 3, 17}) {
    for (std::int64_t n : {0, 1, 7, 8, 9, 63, 64, 65, 200}) {
      for (int density : {0, 50, 100}) {
        std::vector<TestType> in(static_cast<std::size_t>(n * inner));
        for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<TestType>(i % 100);
        std::vector<char> m(static_cast<std::size_t>(n));
        for (auto& b : m) b = static_cast<char>(static_cast<int>(rng() % 100) < density);
        auto mask = std::make_unique<bool[]>(m.size() + 1);
        for (std::size_t i = 0; i < m.size(); ++i) mask[i] = m[i] != 0;
        const auto want = expected_rows(in, m, inner);
        std::vector<TestType> out(want.size() + 16, static_cast<TestType>(99));
        const auto* end = ragged::kernel::compact(in.data(), mask.get(), n, out.data(), inner);
        const auto kept = (end - out.data()) / inner;
        CHECK((end - out.data()) % inner == 0);
        INFO("n " << n << ", inner " << inner << ", density " << density);
        CHECK(kept * inner == static_cast<std::int64_t>(want.size()));
        CHECK(kept == ragged::kernel::count(mask.get(), n));
        CHECK(std::vector<TestType>(
                  out.begin(), out.begin() + static_cast<std::ptrdiff_t>(want.size())) == want);
        for (std::size_t i = want.size(); i < out.size(); ++i)
          CHECK(out[i] == static_cast<TestType>(99));
      }
    }
  }
}

TEST_CASE("compact moves non-trivial types") {
  const std::vector<std::string> in{"a", "bb", "ccc", "dddd"};
  const bool mask[] = {true, false, false, true};
  std::vector<std::string> out(2);
  CHECK(ragged::kernel::compact(in.data(), mask, 4, out.data()) == out.data() + 2);
  CHECK(out == std::vector<std::string>{"a", "dddd"});
  std::vector<std::string> rows(2);
  CHECK(ragged::kernel::compact(in.data(), mask, 2, rows.data(), 2) == rows.data() + 2);
  CHECK(rows == std::vector<std::string>{"a", "bb"});
}

TEST_CASE("compact over variable-length rows copies runs") {
  const std::vector<int> in{1, 2, 3, 4, 5, 6, 7, 8};
  const std::vector<std::int64_t> bounds{0, 3, 3, 4, 8};  // [1 2 3] [] [4] [5 6 7 8]
  const bool mask[] = {true, true, false, true};
  std::vector<int> out(7, -1);
  using ragged::kernel::Rows;
  CHECK(ragged::kernel::compact(in.data(), mask, Rows<std::int64_t>::of_splits(bounds),
                                out.data()) == out.data() + 7);
  CHECK(out == std::vector<int>{1, 2, 3, 5, 6, 7, 8});
  std::vector<int> pairs(8, -1);  // the same rows of pairs
  const std::vector<std::int32_t> b2{0, 1, 1, 2, 4};
  CHECK(ragged::kernel::compact(in.data(), mask, Rows<std::int32_t>::of_splits(b2), pairs.data(),
                                2) == pairs.data() + 6);
  // Uniform rows of 2: the same as dense rows of inner 2.
  std::vector<int> uniform(8, -1);
  CHECK(ragged::kernel::compact(in.data(), mask, Rows<std::int32_t>::uniform(2, 4),
                                uniform.data()) == uniform.data() + 6);
  CHECK(uniform == std::vector<int>{1, 2, 3, 4, 7, 8, -1, -1});
  CHECK(pairs == std::vector<int>{1, 2, 5, 6, 7, 8, -1, -1});
  // The mask bit-packed, two bits into its byte (0b1011 << 2), the other bits set to ignore.
  const std::uint8_t packed[] = {0b11101111};
  const auto bits = ragged::kernel::Bits{packed, 2};
  std::vector<int> from_bits(7, -1);
  CHECK(ragged::kernel::compact(in.data(), bits, Rows<std::int64_t>::of_splits(bounds),
                                from_bits.data()) == from_bits.data() + 7);
  CHECK(from_bits == out);
  std::vector<std::pair<std::int64_t, std::int64_t>> runs;
  ragged::kernel::detail::for_each_run(
      bits, 4, [&](std::int64_t b, std::int64_t e) { runs.emplace_back(b, e); });
  CHECK(runs == std::vector<std::pair<std::int64_t, std::int64_t>>{{0, 2}, {3, 4}});
}

TEST_CASE("row selection copies runs of every short size exactly and writes nothing past them") {
  // Runs of 1 to a few hundred bytes cross every size class of the inline
  // short copy (kernel/stream.hpp: copy_bytes); uniform rows of several
  // lengths and the same rows as splits must agree with a plain loop, and
  // the guard bytes after the output must stay untouched.
  using ragged::kernel::Rows;
  std::mt19937_64 rng(77);
  std::int64_t failures = 0;
  for (std::int64_t inner : {0, 1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 33, 63, 64, 65, 70})
    for (std::int64_t length : {0, 1, 3})
      for (int trial = 0; trial < 6 && failures < 5; ++trial) {
        const auto nrows = static_cast<std::int64_t>(rng() % 150);
        const auto positions = nrows * length;
        std::vector<std::uint8_t> in(static_cast<std::size_t>(positions * inner));
        for (auto& v : in) v = static_cast<std::uint8_t>(rng());
        std::vector<char> mask_bytes(static_cast<std::size_t>(nrows));
        for (auto& m : mask_bytes) m = static_cast<char>(rng() % 3 != 0);
        const auto* mask = reinterpret_cast<const bool*>(mask_bytes.data());
        std::vector<std::uint8_t> want;
        for (std::int64_t r = 0; r < nrows; ++r)
          if (mask[r])
            want.insert(want.end(), in.begin() + r * length * inner,
                        in.begin() + (r + 1) * length * inner);
        std::vector<std::int64_t> splits;
        for (std::int64_t r = 0; r <= nrows; ++r) splits.push_back(r * length);
        for (const bool uniform : {true, false}) {
          constexpr std::size_t guard = 80;
          std::vector<std::uint8_t> out(want.size() + guard, 0xA5);
          const auto rows = uniform ? Rows<std::int64_t>::uniform(length, nrows)
                                    : Rows<std::int64_t>::of_splits(splits);
          const auto* end = ragged::kernel::compact(in.data(), mask, rows, out.data(), inner);
          const bool ok =
              end == out.data() + want.size() &&
              std::equal(want.begin(), want.end(), out.begin()) &&
              std::all_of(out.end() - guard, out.end(), [](std::uint8_t b) { return b == 0xA5; });
          if (!ok) {
            ++failures;
            UNSCOPED_INFO("inner " << inner << " length " << length << " rows " << nrows
                                   << (uniform ? " uniform" : " splits"));
          }
        }
      }
  CHECK(failures == 0);
}

TEST_CASE("Bits walk Arrow's bit order: LSB first, across bytes, from any offset") {
  const std::uint8_t bytes[] = {0b10000001, 0b01000000, 0xff};
  const ragged::kernel::Bits b{bytes, 0};
  CHECK(b[0]);
  CHECK_FALSE(b[1]);
  CHECK(b[7]);
  CHECK(b[14]);
  CHECK_FALSE(b[15]);
  const auto c = b + 13;  // normalised: byte 1, bit 5
  CHECK(c.data == bytes + 1);
  CHECK(c.offset == 5);
  CHECK(c[1]);
  CHECK(ragged::kernel::count(b, 16) == 3);
  CHECK(ragged::kernel::count(c, 11) == 9);  // bits 13..23: one in byte 1, eight in byte 2
  CHECK(ragged::kernel::count(b + 7, 1) == 1);
}

namespace {

// Every path the kernel can run, whatever this CPU would choose: each
// instruction-set level, and AVX-512 with each of its stores.
struct Level {
  ragged::kernel::Isa isa;
  ragged::kernel::Avx512Store store;
  const char* name;
};
using ragged::kernel::Avx512Store;
constexpr Level all_isas[] = {
    {ragged::kernel::Isa::scalar, Avx512Store::masked, "scalar"},
    {ragged::kernel::Isa::avx2, Avx512Store::masked, "avx2"},
    {ragged::kernel::Isa::avx512, Avx512Store::masked, "avx512 masked stores"},
    {ragged::kernel::Isa::avx512, Avx512Store::compress_store, "avx512 compress-store"},
    {ragged::kernel::Isa::avx512, Avx512Store::whole, "avx512 whole-vector stores"}};

// Makes the kernel run `level`; false where this CPU lacks it.
bool force(const Level& level) {
  ragged::kernel::force_avx512_store(level.store);
  return ragged::kernel::force_isa(level.isa);
}

// Restores the kernel's level and store after a test forces them.
struct RestoreIsa {
  ragged::kernel::Isa saved = ragged::kernel::active_isa();
  Avx512Store saved_store = ragged::kernel::active_avx512_store();
  ~RestoreIsa() {
    ragged::kernel::force_isa(saved);
    ragged::kernel::force_avx512_store(saved_store);
  }
};

// The cases beyond the caches keep their large buffers across inputs and
// levels and refill them (assign, resize), not allocate them afresh: on a
// virtual machine every fresh page faults into the host, and ASan unmaps what
// it frees, so fresh 20 MB vectors per input took test_compact from 9 s to
// 32 s, and to 96 s under ASan.

// Runs `body(rng)` once at every level this CPU has, forced in turn (each
// assertion inside names the level), then restores the level chosen at
// start-up. One generator, seeded with `seed`, runs on across the levels.
template <class Body>
void at_every_level(std::uint64_t seed, Body body) {
  RestoreIsa restore;
  std::mt19937_64 rng(seed);
  for (const auto& level : all_isas) {
    if (!force(level)) {
      WARN("this CPU lacks " << level.name << "; not tested here");
      continue;
    }
    INFO("isa " << level.name);
    CHECK(ragged::kernel::active_isa() == level.isa);
    body(rng);
  }
}

// Mask bytes for `density` percent true; -1: clustered runs; -2: raw bytes as
// they arrive from NumPy or Arrow byte masks, about half zero and the others
// any of 1, 2, 0x7f, 0x80, 0xff (all of which mean true).
std::vector<char> random_mask(std::mt19937_64& rng, std::int64_t n, int density) {
  std::vector<char> m(static_cast<std::size_t>(n));
  if (density == -2) {
    constexpr unsigned char truthy[] = {1, 2, 0x7f, 0x80, 0xff};
    for (auto& b : m) b = static_cast<char>(rng() & 1 ? truthy[rng() % 5] : 0);
  } else if (density == -4) {  // sparse and dense in turns, over stretches of 500..12000
    std::size_t i = 0;
    bool dense = rng() & 1;
    while (i < m.size()) {
      for (auto len = rng() % 11500 + 500; len-- && i < m.size();)
        m[i++] = static_cast<char>(rng() % 100 < (dense ? 80u : 3u));
      dense = !dense;
    }
  } else if (density < 0) {  // clustered: runs of 1..80 of one value
    std::size_t i = 0;
    bool v = rng() & 1;
    while (i < m.size()) {
      for (auto len = rng() % 80 + 1; len-- && i < m.size();) m[i++] = v;
      v = !v;
    }
  } else {
    for (auto& b : m) b = static_cast<char>(static_cast<int>(rng() % 100) < density);
  }
  return m;
}

// A mask bit-packed as Arrow packs it (LSB first) from `bit_offset`, in a
// buffer of exactly the bytes it needs (so that AddressSanitizer sees any read
// past them); the bits outside [bit_offset, bit_offset + n) are set, which the
// kernel must ignore.
struct PackedBits {
  std::unique_ptr<std::uint8_t[]> bytes;
  ragged::kernel::Bits bits;
};
PackedBits pack_bits(const std::vector<char>& m, std::int64_t bit_offset) {
  const auto nbytes =
      static_cast<std::size_t>((bit_offset + static_cast<std::int64_t>(m.size()) + 7) / 8);
  PackedBits p{std::make_unique<std::uint8_t[]>(nbytes), {}};
  std::memset(p.bytes.get(), 0xff, nbytes);
  for (std::size_t i = 0; i < m.size(); ++i) {
    const auto b = static_cast<std::size_t>(bit_offset) + i;
    if (!m[i]) p.bytes[b / 8] = static_cast<std::uint8_t>(p.bytes[b / 8] & ~(1u << (b % 8)));
  }
  p.bits = ragged::kernel::Bits{p.bytes.get(), 0} + bit_offset;
  return p;
}

// Ragged rows for row selection: splits of rows of 0..longest - 1 positions
// (and where `empty_one_in`, that share of rows empty besides) up to `total`
// elements, and `in` numbered 0, 1, ... with `inner` elements a position.
std::vector<std::int64_t> ragged_rows(std::mt19937_64& rng, std::int64_t total,
                                      std::uint64_t longest, std::uint64_t empty_one_in,
                                      std::int64_t inner, std::vector<std::int32_t>& in) {
  std::vector<std::int64_t> splits{0};
  while (splits.back() < total / inner) {
    const bool empty = empty_one_in != 0 && rng() % empty_one_in == 0;
    splits.push_back(splits.back() + (empty ? 0 : static_cast<std::int64_t>(rng() % longest)));
  }
  in.resize(static_cast<std::size_t>(splits.back() * inner));
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<std::int32_t>(i);
  return splits;
}

// The rows of `splits` that `m` keeps, in order (the plain definition of row
// selection), into `want`.
void kept_rows(const std::vector<std::int32_t>& in, const std::vector<std::int64_t>& splits,
               const std::vector<char>& m, std::int64_t inner, std::vector<std::int32_t>& want) {
  want.clear();
  for (std::size_t r = 0; r < m.size(); ++r)
    if (m[r])
      want.insert(want.end(), in.begin() + splits[r] * inner, in.begin() + splits[r + 1] * inner);
}

// `m` as a mask of bools, one past its end allocated (and false).
std::unique_ptr<bool[]> as_bools(const std::vector<char>& m) {
  auto mask = std::make_unique<bool[]>(m.size() + 1);
  for (std::size_t r = 0; r < m.size(); ++r) mask[r] = m[r] != 0;
  return mask;
}

using ragged::kernel::detail::Reach;

// compact(), or beyond the caches the loops it runs on large inputs (requests
// ahead; where whole vectors run, bytes stored whole too, a streamed output
// through L1 with non-temporal stores, every block read in order, and the
// output carried in a register), run
// here on short inputs so that every length, tail and output alignment meets
// them.
template <class E, class M>
std::int64_t compact_bytes(const unsigned char* src, M mask, std::int64_t n, unsigned char* dst,
                           std::int64_t inner, Reach reach) {
  auto* out = reinterpret_cast<E*>(dst);
  if (reach != Reach::cached)
    if (const auto fn = ragged::kernel::detail::compaction_for<E, M>(inner, reach)) {
      const auto kept =
          fn(reinterpret_cast<const std::byte*>(src), mask, n, reinterpret_cast<std::byte*>(dst));
      ragged::kernel::detail::stream_fence();
      return kept;
    }
  return (ragged::kernel::compact(reinterpret_cast<const E*>(src), mask, n, out, inner) - out) /
         inner;
}

// One comparison of compact() against the plain definition, element bytes of
// width `w` at byte offsets `in_off` and `out_off`, with sentinels after the
// output; the mask as bytes, and bit-packed from bit offset `in_off % 13`.
bool check_one(std::size_t w, std::int64_t n, std::int64_t inner, std::size_t in_off,
               std::size_t out_off, const std::vector<char>& m) {
  const auto row = static_cast<std::size_t>(inner) * w;
  std::vector<unsigned char> in(in_off + static_cast<std::size_t>(n) * row + 1);
  // Bytes that do not repeat with any short period (a byte pattern of period
  // 256 gave doubles 32 entries apart the same value, so that an entry taken
  // from the wrong vector of a block went unseen).
  for (std::size_t i = 0; i < in.size(); ++i)
    in[i] = static_cast<unsigned char>((i * 0x9E3779B97F4A7C15ull + 7) >> 56);
  std::vector<unsigned char> want;
  for (std::int64_t r = 0; r < n; ++r)
    if (m[static_cast<std::size_t>(r)])
      want.insert(
          want.end(),
          in.begin() + static_cast<std::ptrdiff_t>(in_off + static_cast<std::size_t>(r) * row),
          in.begin() + static_cast<std::ptrdiff_t>(in_off + static_cast<std::size_t>(r + 1) * row));
  // The mask's bytes as given (raw byte masks too): the kernel reads nonzero as true.
  auto mask = std::make_unique<bool[]>(m.size() + 1);
  if (!m.empty()) std::memcpy(mask.get(), m.data(), m.size());
  const auto bit_offset = static_cast<std::int64_t>(in_off % 13);
  const auto packed = pack_bits(m, bit_offset);
  bool all_ok = true;
  for (const bool bits : {false, true})
    for (const Reach reach : {Reach::cached, Reach::beyond, Reach::streamed, Reach::in_order,
                              Reach::carried, Reach::gathered, Reach::into_l2}) {
      std::vector<unsigned char> out(out_off + want.size() + 64, 0xAB);
      const auto* src = in.data() + in_off;
      auto* dst = out.data() + out_off;
      const auto run = [&](auto mk) -> std::int64_t {
        // The element types of each width, at unaligned addresses (as a byte buffer may be).
        switch (w) {
          case 1:
            return compact_bytes<std::uint8_t>(src, mk, n, dst, inner, reach);
          case 2:
            return compact_bytes<std::uint16_t>(src, mk, n, dst, inner, reach);
          case 4:
            return compact_bytes<float>(src, mk, n, dst, inner, reach);
          default:
            return compact_bytes<double>(src, mk, n, dst, inner, reach);
        }
      };
      const auto kept = bits ? run(packed.bits) : run(static_cast<const bool*>(mask.get()));
      const auto counted = bits ? ragged::kernel::count(packed.bits, n)
                                : ragged::kernel::count(static_cast<const bool*>(mask.get()), n);
      bool ok = kept * static_cast<std::int64_t>(row) == static_cast<std::int64_t>(want.size()) &&
                kept == counted && std::equal(want.begin(), want.end(), dst);
      for (std::size_t i = out_off + want.size(); i < out.size(); ++i) ok = ok && out[i] == 0xAB;
      for (std::size_t i = 0; i < out_off; ++i) ok = ok && out[i] == 0xAB;
      if (!ok) {
        std::string ms;
        for (char c : m) ms += c ? '1' : '0';
        FAIL_CHECK((bits ? "bit mask at bit offset " + std::to_string(bit_offset) : "byte mask")
                   << (reach == Reach::beyond     ? ", the loop beyond the caches"
                       : reach == Reach::streamed ? ", the loop streaming its output"
                       : reach == Reach::in_order ? ", the loop reading every block in order"
                       : reach == Reach::carried  ? ", the loop carrying its output in a register"
                       : reach == Reach::gathered ? ", the loop in the caches gathering blocks"
                       : reach == Reach::into_l2  ? ", the loop requesting its input into L2"
                                                  : "")
                   << ", width " << w << ", n " << n << ", inner " << inner << ", in offset "
                   << in_off << ", out offset " << out_off << ", kept " << kept << ", counted "
                   << counted << ", expected bytes " << want.size() << "\nmask " << ms);
      }
      all_ok = all_ok && ok;
    }
  return all_ok;
}

}  // namespace

TEST_CASE(
    "every instruction-set level agrees with the definition: widths, lengths, offsets, densities") {
  at_every_level(1234, [](std::mt19937_64& rng) {
    std::int64_t failures = 0;
    for (std::size_t w : {1u, 2u, 4u, 8u}) {
      for (std::int64_t n = 0; n <= 300 && failures < 5; ++n)
        for (int density : {0, 50, 100, 3, -1, -2}) {
          const auto m = random_mask(rng, n, density);
          failures += !check_one(w, n, 1, static_cast<std::size_t>(n) % 64,
                                 static_cast<std::size_t>(n * 7 + density) % 64, m);
        }
      for (std::size_t off = 0; off < 64; ++off) {
        const auto m = random_mask(rng, 200, 50);
        failures += !check_one(w, 200, 1, off, 63 - off, m);
      }
      for (std::int64_t n : {4096, 100003}) {
        for (int density : {1, 50, 99, -1, -2})
          failures += !check_one(w, n, 1, 3, 5, random_mask(rng, n, density));
      }
    }
    for (std::int64_t inner = 1; inner <= 17; ++inner)
      for (std::int64_t n : {0, 1, 63, 64, 65, 130, 1000})
        for (int density : {0, 50, 100, -1, -2})
          for (std::size_t w : {1u, 4u, 8u})
            failures += !check_one(w, n, inner, 1, 2, random_mask(rng, n, density));
    CHECK(failures == 0);
  });
}

TEST_CASE("whole-vector stores end exactly at the last kept element, at every level") {
  // The last blocks of 64 entries keep a vector's lanes and one fewer and
  // one more, at the start or the end of their block, after a mixed block
  // and before empty ones: the whole-vector stores must stop inside the
  // output, whatever the width (check_one's sentinels, and AddressSanitizer).
  at_every_level(2026, [](std::mt19937_64& rng) {
    std::int64_t failures = 0;
    for (std::size_t w : {1u, 2u, 4u, 8u}) {
      const auto lanes = static_cast<std::int64_t>(64 / w);
      for (std::int64_t lead : {0, 1, 3})  // mixed blocks before the last kept ones
        for (std::int64_t kept = lanes - 1; kept <= lanes + 1; ++kept)
          for (const bool at_end : {false, true})
            for (std::int64_t empty : {0, 1, 2}) {
              const auto n = 64 * (lead + 1 + empty) + (empty ? 0 : 64);
              auto m = random_mask(rng, n, 50);
              const auto from = 64 * lead;
              for (std::int64_t i = from; i < n; ++i) m[static_cast<std::size_t>(i)] = 0;
              const auto k = std::min<std::int64_t>(kept, 64);
              for (std::int64_t j = 0; j < k; ++j)
                m[static_cast<std::size_t>(from + (at_end ? 63 - j : j))] = 1;
              failures += !check_one(w, n, 1, 0, 0, m);
              failures += !check_one(w, n, 1, 5, 3, m);
            }
    }
    CHECK(failures == 0);
  });
}

TEST_CASE("the carried loop: stretches carried or not, at every output offset and width") {
  // compact_carried_avx512 decides per stretch of 4096 entries: where it
  // keeps at least 5/8, or at most 16 of its 64 blocks are mixed (neither
  // empty nor full), its output goes out in whole lines from a register
  // (the first line masked to the output's bytes, the last partial line
  // stored masked); else it is compacted straight to the output, as are the
  // last entries, under 1024 and a part block. Stretches on either side of both thresholds
  // (2560 kept and 2559; 16 mixed blocks and 17, the others full and empty
  // by turns), all kept and none, in every order, then a shorter last
  // stretch of 1024 entries or more (carried or straight: dense or half
  // kept, or none), or under 1024 entries, or none, outputs starting at every offset in a line
  // (bytes not the output's, before and after, must stay as they were:
  // check_one's sentinels), and rows of two 4-byte elements, which move as
  // 8-byte ones from any 4-byte offset. Stretches written straight test one,
  // two or three blocks ahead by their kept count (blocks_ahead): stretches
  // on either side of each of its bounds too. Stretches that keep few
  // (4- and 8-byte elements: at most a line in twenty holding a kept entry
  // to begin, a line in twelve to go on, in calls of four stretches or more)
  // read only the lines they need (compact_lines_avx512): counts on either side of both bounds for
  // both widths (int32 12 and 13, 21 and 22; double 25 and 26, 42 and 43), after and before the
  // other kinds. 4-byte elements from a sixteenth kept (256 of a stretch;
  // 255 and 256 on either side) go carried by whole blocks
  // (carry_blocks32_avx512) where the output is at a whole lane, the carry
  // open from one stretch to the next. check_one runs every reach.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  {
    namespace kd = ragged::kernel::detail;
    constexpr std::int64_t s = 4096;
    CHECK(kd::blocks_ahead<4>(383, s) == 1);
    CHECK(kd::blocks_ahead<4>(384, s) == 3);
    CHECK(kd::blocks_ahead<4>(575, s) == 3);
    CHECK(kd::blocks_ahead<4>(576, s) == 2);
    CHECK(kd::blocks_ahead<4>(1535, s) == 2);
    CHECK(kd::blocks_ahead<4>(1536, s) == 1);
    CHECK(kd::blocks_ahead<8>(191, s) == 1);
    CHECK(kd::blocks_ahead<8>(192, s) == 3);
    CHECK(kd::blocks_ahead<8>(511, s) == 3);
    CHECK(kd::blocks_ahead<8>(512, s) == 1);
    CHECK(kd::blocks_ahead<2>(511, s) == 1);
    CHECK(kd::blocks_ahead<2>(512, s) == 3);
    CHECK(kd::blocks_ahead<2>(1535, s) == 3);
    CHECK(kd::blocks_ahead<2>(1536, s) == 1);
    CHECK(kd::blocks_ahead<1>(1000, s) == 1);
  }
#endif
  at_every_level(7777, [](std::mt19937_64& rng) {
    std::int64_t failures = 0;
    constexpr std::int64_t stretch = 4096;
    // A stretch that keeps `kept` entries at random or, where `kept` is
    // negative, has -kept mixed blocks (half kept) and the others full and
    // empty by turns.
    const auto with_kept = [&](std::vector<char>& m, std::int64_t from, std::int64_t kept) {
      std::vector<char> part(stretch, 0);
      if (kept >= 0) {
        std::fill(part.begin(), part.begin() + kept, 1);
        std::shuffle(part.begin(), part.end(), rng);
      } else {
        for (std::int64_t b = 0; b < stretch / 64; ++b)
          for (std::int64_t j = 64 * b; j < 64 * b + 64; ++j)
            part[static_cast<std::size_t>(j)] = static_cast<char>(
                b < -kept ? static_cast<int>(rng() & 1) : static_cast<int>(b % 2));
        for (std::int64_t b = 0; b < -kept; ++b) {  // mixed for sure
          part[static_cast<std::size_t>(64 * b)] = 1;
          part[static_cast<std::size_t>(64 * b + 1)] = 0;
        }
      }
      std::copy(part.begin(), part.end(), m.begin() + from);
    };
    const std::int64_t kinds[] = {2560, 2559, stretch, 0,    -16,  -17, 4000, 2048, -1,  3072, 383,
                                  384,  575,  576,     1535, 1536, 191, 192,  511,  512, 12,   13,
                                  21,   22,   25,      26,   42,   43,  1,    255,  256};
    for (std::size_t w : {1u, 2u, 4u, 8u})
      for (std::size_t first = 0; first < std::size(kinds) && failures < 5; ++first) {
        const std::int64_t tails[] = {0, 77, 1023, 1024, 2048 + 37, stretch - 1};
        const std::int64_t tail = tails[first % std::size(tails)];
        const auto n = 4 * stretch + tail;  // four stretches: compact_lines_avx512 needs them
        std::vector<char> m = random_mask(rng, n, first % 4 < 2 ? 90 : first % 4 == 2 ? 50 : 0);
        for (std::int64_t s = 0; s < 4; ++s)
          with_kept(m, s * stretch,
                    kinds[(first + static_cast<std::size_t>(s)) % std::size(kinds)]);
        for (std::size_t out_off : {std::size_t{0}, 1 + first * 11, 63 - first})
          failures += !check_one(w, n, 1, first, out_off, m);
        if (w == 4) failures += !check_one(w, n / 2, 2, 3, 4 + first * 8, m);
      }
    CHECK(failures == 0);
  });
}

namespace {

// 1-D T past the streaming threshold, by 5013 entries, none of them zero.
template <class T>
std::vector<T> large_1d_input() {
  const std::int64_t n =
      ragged::kernel::detail::stream_threshold_bytes / static_cast<std::int64_t>(sizeof(T)) + 5013;
  std::vector<T> in(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<T>(i % 30000 + 1);
  return in;
}

// compact() of `in` under `m` (bytes) into an output at an odd element
// offset, against the plain definition: exactly the kept entries, nothing
// past them on either side. `want` and `out` are the caller's buffers, kept
// across inputs (above).
template <class T>
void check_large_1d(const std::vector<T>& in, const std::vector<char>& m, std::vector<T>& want,
                    std::vector<T>& out) {
  const auto n = static_cast<std::int64_t>(in.size());
  want.clear();
  for (std::int64_t i = 0; i < n; ++i)
    if (m[static_cast<std::size_t>(i)]) want.push_back(in[static_cast<std::size_t>(i)]);
  const auto bools = as_bools(m);
  out.assign(want.size() + 2 * 64, T{0});
  T* const o = out.data() + 64 - 1;
  REQUIRE(ragged::kernel::compact(in.data(), bools.get(), n, o) == o + want.size());
  CHECK(std::equal(want.begin(), want.end(), o));
  CHECK(std::all_of(out.begin(), out.begin() + 63, [](T v) { return v == T{0}; }));
  CHECK(std::all_of(out.begin() + 63 + static_cast<std::ptrdiff_t>(want.size()), out.end(),
                    [](T v) { return v == T{0}; }));
}

// compact() of 1-D T past the streaming threshold under masks that keep very
// few entries (per 100000: 10, 100, 400, 2000), with stretches of 4096 that
// keep few and many in turns (0, 3, 12, 13, 21, 22, 200 or all, at random
// places), into an output at an odd element offset: exactly the kept entries,
// nothing past them.
template <class T>
void check_very_sparse(std::mt19937_64& rng) {
  const auto in = large_1d_input<T>();
  const auto n = static_cast<std::int64_t>(in.size());
  std::vector<T> want, out;
  for (const int per : {10, 100, 400, 2000, -1}) {
    std::vector<char> m(static_cast<std::size_t>(n), 0);
    if (per >= 0) {
      for (auto& b : m) b = static_cast<char>(rng() % 100000 < static_cast<unsigned>(per));
    } else {
      constexpr std::int64_t counts[] = {0, 3, 12, 13, 21, 22, 200, 4096};
      for (std::int64_t at = 0; at < n; at += 4096) {
        const auto len = std::min<std::int64_t>(4096, n - at);
        const auto kept = std::min(len, counts[rng() % std::size(counts)]);
        std::fill(m.begin() + at, m.begin() + at + kept, 1);
        std::shuffle(m.begin() + at, m.begin() + at + len, rng);
      }
    }
    INFO(sizeof(T) << "-byte elements, " << per << " per 100000 kept (-1: stretches in turns)");
    check_large_1d(in, m, want, out);
  }
}

}  // namespace

TEST_CASE("very sparse masks beyond the caches, and sparse stretches among dense ones") {
  // Where the CPU reads in order (AMD Zen 4), stretches that keep few read
  // only the lines that hold kept entries (compact_lines_avx512); elsewhere
  // the same masks run the level's own loops.
  at_every_level(4242, [](std::mt19937_64& rng) {
    check_very_sparse<std::int32_t>(rng);
    check_very_sparse<double>(rng);
  });
}

TEST_CASE("the loop in the caches tests as many blocks ahead as its first 512 entries ask") {
  // compact_cached_avx512 counts what the first 512 entries keep and tests
  // one, two or three blocks ahead (blocks_ahead) for the whole call. The
  // first 512 entries keep a count on either side of each width's bounds
  // (int16 64 and 192, int32 48, 72 and 192, double 24 and 64), so that
  // every count runs at every width; after them, inputs of every length
  // about a block and the loop's window, at densities other than the
  // first entries', so that the count chosen meets masks it was not chosen
  // for. check_one runs every reach, the caches' too.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  {
    namespace kd = ragged::kernel::detail;
    CHECK(kd::blocks_ahead<2>(63, 512) == 1);
    CHECK(kd::blocks_ahead<2>(64, 512) == 3);
    CHECK(kd::blocks_ahead<4>(47, 512) == 1);
    CHECK(kd::blocks_ahead<4>(48, 512) == 3);
    CHECK(kd::blocks_ahead<4>(72, 512) == 2);
    CHECK(kd::blocks_ahead<8>(24, 512) == 3);
    CHECK(kd::blocks_ahead<8>(64, 512) == 1);
  }
#endif
  at_every_level(5151, [](std::mt19937_64& rng) {
    std::int64_t failures = 0;
    const std::int64_t firsts[] = {23, 24, 47, 48, 63, 64, 71, 72, 191, 192};
    const std::int64_t rests[] = {0, 1, 63, 64, 65, 191, 320, 333, 2000, 5000};
    const int densities[] = {12, 0, 100, 50, 3, -1};
    for (std::size_t w : {2u, 4u, 8u})
      for (std::size_t f = 0; f < std::size(firsts) && failures < 5; ++f)
        for (std::size_t r = 0; r < std::size(rests); ++r) {
          const auto n = 512 + rests[r];
          std::vector<char> m = random_mask(rng, n, densities[(f + r) % std::size(densities)]);
          std::fill(m.begin(), m.begin() + 512, 0);
          std::fill(m.begin(), m.begin() + firsts[f], 1);
          std::shuffle(m.begin(), m.begin() + 512, rng);
          failures += !check_one(w, n, 1, (f * 7 + r) % 64, (f * 13 + r * 5) % 64, m);
        }
    CHECK(failures == 0);
  });
}

TEST_CASE("the sparse loop in the caches: stretches whose next keeps fewer than a vector") {
  // Where the first 512 entries are sparse (sparse_stretches: density 1/64
  // to 3/32 for int32), compact_cached_avx512 compacts by stretches of 1024,
  // storing whole vectors as far as the entries kept after them (to the end
  // of the next stretch) cover a vector's lanes. After a first 512 entries in
  // that band, stretches keep nothing, a vector's lanes less one, exactly
  // them, one more, or entries at random, all kept entries at the stretch's
  // start or end, so that the whole stores stop at every block of a stretch
  // and the rest goes as compact_whole_avx512; lengths end at, just before
  // and after stretches and blocks. check_one runs every reach, the caches'
  // too, with byte and bit masks.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  {
    namespace kd = ragged::kernel::detail;
    CHECK_FALSE(kd::sparse_stretches<4>(7, 512));
    CHECK(kd::sparse_stretches<4>(8, 512));
    CHECK(kd::sparse_stretches<4>(47, 512));
    CHECK_FALSE(kd::sparse_stretches<4>(48, 512));
    CHECK_FALSE(kd::sparse_stretches<8>(3, 512));
    CHECK(kd::sparse_stretches<8>(4, 512));
    CHECK(kd::sparse_stretches<8>(31, 512));
    CHECK_FALSE(kd::sparse_stretches<8>(32, 512));
    CHECK_FALSE(kd::sparse_stretches<2>(15, 512));
    CHECK(kd::sparse_stretches<2>(16, 512));
    CHECK(kd::sparse_stretches<2>(63, 512));
    CHECK_FALSE(kd::sparse_stretches<2>(64, 512));
    CHECK_FALSE(kd::sparse_stretches<1>(20, 512));
  }
#endif
  at_every_level(6161, [](std::mt19937_64& rng) {
    std::int64_t failures = 0;
    for (std::size_t w : {2u, 4u, 8u}) {
      const auto lanes = 64 / static_cast<std::int64_t>(w);
      for (std::int64_t n : {512, 1023, 1024, 1025, 2047, 2048, 2049, 2048 + 64, 3000, 4096 + 63})
        for (int shape = 0; shape < 6 && failures < 5; ++shape) {
          // Kept of the first 512: at the band's lower bound, or inside it.
          const auto first = shape % 2 ? 32 / static_cast<std::int64_t>(w) : w == 2 ? 40 : 20;
          std::vector<char> m(static_cast<std::size_t>(n), 0);
          for (std::int64_t s = 0; s < n; s += 1024) {
            const auto len = std::min<std::int64_t>(1024, n - s);
            // Kept in this stretch: none, lanes - 1, lanes, lanes + 1, or at random.
            const std::int64_t counts[] = {0, lanes - 1, lanes, lanes + 1};
            const auto k = std::min(len, shape < 4    ? counts[(shape + s / 1024) % 4]
                                         : shape == 4 ? static_cast<std::int64_t>(rng() % 64)
                                                      : len / 30);
            // At the stretch's start, at its end, or spread at random.
            const auto at = (s / 1024 + static_cast<std::int64_t>(rng() % 3)) % 3;
            for (std::int64_t j = 0; j < k; ++j)
              m[static_cast<std::size_t>(s + (at == 0 ? j : len - 1 - j))] = 1;
            if (at == 2) std::shuffle(m.begin() + s, m.begin() + s + len, rng);
          }
          std::fill(m.begin(), m.begin() + std::min<std::int64_t>(n, 512), 0);
          std::fill(m.begin(), m.begin() + first, 1);
          std::shuffle(m.begin(), m.begin() + std::min<std::int64_t>(n, 512), rng);
          failures += !check_one(w, n, 1, static_cast<std::size_t>(n + shape) % 64,
                                 static_cast<std::size_t>(n * 3 + shape) % 64, m);
        }
    }
    CHECK(failures == 0);
  });
}

TEST_CASE("the gathering loop in the caches: blocks that keep up to a vector, and more") {
  // With Reach::gathered, where the first 512 entries keep density 1/64
  // (int32; int16 1/32, doubles 1/128) to 3/16 (int16, int32) or 1/8
  // (doubles) (sparse_stretches with `gather`), each block of a stretch that
  // keeps at most a vector's lanes has its kept entries gathered into one
  // vector (gather_block_whole_avx512), and one
  // that keeps more is compressed vector by vector. After such a first 512
  // entries, each block keeps 0, 1, a vector's lanes less one, exactly them,
  // one more, all 64, or a count at random, in random places, so that both
  // kinds of block meet at every place in a stretch and around the whole
  // stores' end; in and out at every offset of a line. check_one runs every
  // reach, the gathered one too, with byte and bit masks.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  {
    namespace kd = ragged::kernel::detail;
    CHECK(kd::sparse_stretches<4>(47, 512, true));
    CHECK(kd::sparse_stretches<4>(95, 512, true));
    CHECK_FALSE(kd::sparse_stretches<4>(96, 512, true));
    CHECK_FALSE(kd::sparse_stretches<4>(7, 512, true));
    CHECK(kd::sparse_stretches<2>(16, 512, true));
    CHECK(kd::sparse_stretches<2>(95, 512, true));
    CHECK_FALSE(kd::sparse_stretches<2>(96, 512, true));
    CHECK(kd::sparse_stretches<8>(63, 512, true));
    CHECK_FALSE(kd::sparse_stretches<8>(64, 512, true));
    CHECK_FALSE(kd::sparse_stretches<1>(20, 512, true));
  }
#endif
  at_every_level(7171, [](std::mt19937_64& rng) {
    std::int64_t failures = 0;
    for (std::size_t w : {2u, 4u, 8u}) {
      const auto lanes = 64 / static_cast<std::int64_t>(w);
      // Kept of the first 512: the band's bottom, inside it, and its top.
      const std::int64_t firsts[] = {32 / static_cast<std::int64_t>(w),
                                     20 + static_cast<std::int64_t>(w), w == 8 ? 63 : 95};
      for (std::int64_t n : {512, 1000, 1024, 1087, 2048, 2049, 3072 + 65})
        for (std::size_t f = 0; f < std::size(firsts) && failures < 5; ++f) {
          std::vector<char> m(static_cast<std::size_t>(n), 0);
          for (std::int64_t b = 512; b < n; b += 64) {
            const auto len = std::min<std::int64_t>(64, n - b);
            const std::int64_t counts[] = {
                0, 1, lanes - 1, lanes, lanes + 1, 64, static_cast<std::int64_t>(rng() % 65)};
            const auto k = std::min(len, counts[rng() % std::size(counts)]);
            std::fill(m.begin() + b, m.begin() + b + k, 1);
            std::shuffle(m.begin() + b, m.begin() + b + len, rng);
          }
          std::fill(m.begin(), m.begin() + firsts[f], 1);
          std::shuffle(m.begin(), m.begin() + 512, rng);
          failures += !check_one(w, n, 1, static_cast<std::size_t>(rng() % 64),
                                 static_cast<std::size_t>(rng() % 64), m);
        }
    }
    CHECK(failures == 0);
  });
}

TEST_CASE("the streamed loop's masks tested ahead: lengths about its lead, empty stretches") {
  // compact_stream_avx512 tests each block's mask values_ahead entries (1024
  // for 4- and 8-byte elements, 2048 for 2, 4096 for 1) before it compacts
  // it and keeps the bits until then: lengths just below, at and past one
  // and two leads, where the block ahead is the last whole one, a partial one
  // or past the end; masks all false, all true, sparse, clustered, and
  // blocks of 64 that are empty or mixed by turns (what the request of values
  // leaves out). check_one runs every reach, so the streamed loop too.
  at_every_level(4242, [](std::mt19937_64& rng) {
    std::int64_t failures = 0;
    for (std::size_t w : {1u, 2u, 4u, 8u}) {
      const auto lead = std::max<std::int64_t>(1024, 4096 / static_cast<std::int64_t>(w));
      for (std::int64_t n : {lead - 1, lead, lead + 1, lead + 63, lead + 64, lead + 65,
                             2 * lead - 64, 2 * lead + 63, 2 * lead + 64, 3 * lead + 200})
        for (int density : {0, 100, 1, -1, -3}) {
          std::vector<char> m;
          if (density == -3) {  // 64-entry blocks empty or mixed, at random
            m.assign(static_cast<std::size_t>(n), 0);
            for (std::int64_t b = 0; b < n; b += 64)
              if (rng() % 3 == 0)
                for (std::int64_t j = b; j < std::min(n, b + 64); ++j)
                  m[static_cast<std::size_t>(j)] = static_cast<char>(rng() & 1);
          } else {
            m = random_mask(rng, n, density);
          }
          failures += !check_one(w, n, 1, 7, 9, m);
        }
    }
    CHECK(failures == 0);
  });
}

TEST_CASE("count agrees at every level") {
  at_every_level(99, [](std::mt19937_64& rng) {
    for (std::int64_t n : {0, 1, 7, 8, 9, 63, 64, 65, 127, 1000, 4097})
      for (int density : {50, -2}) {
        const auto m = random_mask(rng, n, density);
        auto mask = std::make_unique<bool[]>(m.size() + 1);
        if (!m.empty()) std::memcpy(mask.get(), m.data(), m.size());
        std::int64_t want = 0;
        for (const char b : m) want += b != 0;
        INFO("n " << n << ", density " << density);
        CHECK(ragged::kernel::count(mask.get(), n) == want);
      }
  });
}

TEST_CASE("the parallel kernel equals the serial one on sizes that do split", "[threads]") {
  // Threads start from 2^16 entries per chunk: every size here takes the
  // parallel path for 2 or more threads. The sizes walk n mod 64 and n mod 128
  // around the chunk boundaries (n = 1 mod 128 once lost its last entries).
  std::mt19937_64 rng(5);
  std::vector<std::int64_t> sizes;
  for (std::int64_t base : {std::int64_t{1} << 17, (std::int64_t{3} << 17) + 64})
    for (std::int64_t r : {0, 1, 2, 63, 64, 65, 127, 128, 129, 191}) sizes.push_back(base + r);
  std::int64_t failures = 0;
  std::vector<std::int32_t> in, serial, parallel, from_bits;
  for (const auto n : sizes) {
    for (int density : {100, 50, -1}) {
      const auto m = random_mask(rng, n, density);
      auto mask = std::make_unique<bool[]>(m.size() + 1);
      for (std::size_t i = 0; i < m.size(); ++i) mask[i] = m[i] != 0;
      // The same mask bit-packed from bit offset 5, as Arrow may hand it over.
      const auto packed = pack_bits(m, 5);
      in.resize(static_cast<std::size_t>(n) * 2);
      for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<std::int32_t>(i);
      const auto want = ragged::kernel::count(mask.get(), n);
      for (std::int64_t inner : {1, 2}) {
        serial.assign(in.size() + 1, -1);
        const auto a = (ragged::kernel::compact(in.data(), mask.get(), n, serial.data(), inner) -
                        serial.data()) /
                       inner;
        for (int threads : {2, 3, 4}) {
          parallel.assign(in.size() + 1, -1);
          const auto b = (ragged::kernel::compact(in.data(), mask.get(), n, parallel.data(), inner,
                                                  ragged::kernel::Parallel{threads}) -
                          parallel.data()) /
                         inner;
          from_bits.assign(in.size() + 1, -1);
          const auto c = (ragged::kernel::compact(in.data(), packed.bits, n, from_bits.data(),
                                                  inner, ragged::kernel::Parallel{threads}) -
                          from_bits.data()) /
                         inner;
          if (a != want || b != want || c != want || serial != parallel || serial != from_bits) {
            ++failures;
            FAIL_CHECK("n " << n << " (mod 128: " << n % 128 << "), density " << density
                            << ", inner " << inner << ", threads " << threads << ": serial kept "
                            << a << ", parallel " << b << ", from bits " << c << ", mask has "
                            << want);
          }
        }
      }
    }
  }
  CHECK(failures == 0);
}

TEST_CASE("row selection beyond the caches keeps the same rows, in order, and nothing past them") {
  // Inputs past the streaming threshold take the queued, prefetching path
  // (or, where the CPU reads in order and a quarter of the rows are kept,
  // the path that requests every line in order; on Zen 5 at 90% kept, runs
  // carried, as found (rows of up to 30 entries) or queued (up to 200)):
  // masks with fewer runs than the queue is deep, and with many.
  using ragged::kernel::Rows;
  std::vector<std::int32_t> in, want, out, from_bits;
  at_every_level(91, [&](std::mt19937_64& rng) {
    for (const std::uint64_t longest : {std::uint64_t{200}, std::uint64_t{30}})
      for (const std::int64_t inner : {std::int64_t{1}, std::int64_t{3}}) {
        const auto splits = ragged_rows(rng, std::int64_t{5} << 20, longest, 0, inner, in);
        const auto nrows = static_cast<std::int64_t>(splits.size()) - 1;
        for (int density : {0, 50, 90, 100, -1, -2, -3}) {
          std::vector<char> m;
          if (density == -3) {  // a handful of runs, fewer than the queue holds
            m.assign(static_cast<std::size_t>(nrows), 0);
            for (std::int64_t r = 3; r < nrows; r += nrows / 5) m[static_cast<std::size_t>(r)] = 1;
          } else {
            m = random_mask(rng, nrows, density);
          }
          const auto mask = as_bools(m);
          kept_rows(in, splits, m, inner, want);
          out.assign(want.size() + 64, -1);
          INFO("longest " << longest << ", inner " << inner << ", density " << density);
          const auto* end = ragged::kernel::compact(
              in.data(), mask.get(), Rows<std::int64_t>::of_splits(splits), out.data(), inner);
          REQUIRE(end == out.data() + want.size());
          CHECK(std::equal(want.begin(), want.end(), out.begin()));
          CHECK(std::all_of(out.begin() + static_cast<std::ptrdiff_t>(want.size()), out.end(),
                            [](std::int32_t v) { return v == -1; }));
          const auto packed = pack_bits(m, 5);
          from_bits.assign(out.size(), -1);
          CHECK(ragged::kernel::compact(in.data(), packed.bits,
                                        Rows<std::int64_t>::of_splits(splits), from_bits.data(),
                                        inner) == from_bits.data() + want.size());
          CHECK(first_difference(from_bits, out) == -1);
        }
      }
  });
}

namespace {

// A mask of n rows: every k-th (from row 0; none where k is 0) `marked`,
// the others not.
std::vector<char> every_kth(std::int64_t n, std::int64_t k, bool marked) {
  std::vector<char> m(static_cast<std::size_t>(n), static_cast<char>(!marked));
  if (k > 0)
    for (std::int64_t r = 0; r < n; r += k)
      m[static_cast<std::size_t>(r)] = static_cast<char>(marked);
  return m;
}

// decide(mask) of the mask as bytes, checked to be the same as bits.
template <class Decide>
auto as_bytes_and_bits(const std::vector<char>& m, Decide decide) {
  const auto bools = as_bools(m);
  const auto with_bytes = decide(static_cast<const bool*>(bools.get()));
  CHECK(decide(pack_bits(m, 3).bits) == with_bytes);
  return with_bytes;
}

}  // namespace

TEST_CASE("queued row selection requests regions for rows of a line or more, densely kept") {
  // queued_regions: rows averaging at least 64 bytes, and a share kept in the
  // first 4096 rows of at least the mean row's bytes over a region (4096),
  // and at least the eighths asked for (runs carried).
  using ragged::kernel::Rows;
  namespace kd = ragged::kernel::detail;
  const std::int64_t nrows = 8192;
  const auto every = [&](std::int64_t k) { return every_kth(nrows, k, true); };  // one in k kept
  const auto regions = [&](const std::vector<char>& m, const Rows<std::int64_t>& rows,
                           std::int64_t inner) {
    return as_bytes_and_bits(
        m, [&](auto mask) { return kd::queued_regions<std::int32_t>(mask, rows, inner); });
  };
  const auto all = every(1);
  CHECK(regions(all, Rows<std::int64_t>::uniform(16, nrows), 1));        // 64-byte rows
  CHECK_FALSE(regions(all, Rows<std::int64_t>::uniform(15, nrows), 1));  // 60 bytes
  CHECK_FALSE(regions(all, Rows<std::int64_t>::uniform(1, nrows), 8));   // 32 bytes
  CHECK(regions(all, Rows<std::int64_t>::uniform(1, nrows), 16));        // inner counts too
  // 256-byte rows: a sixteenth kept is enough, a seventeenth is not.
  CHECK(regions(every(16), Rows<std::int64_t>::uniform(64, nrows), 1));
  CHECK_FALSE(regions(every(17), Rows<std::int64_t>::uniform(64, nrows), 1));
  // Only the first 4096 rows are counted: nothing kept there, all after.
  auto late = all;
  std::fill(late.begin(), late.begin() + 4096, char{0});
  CHECK_FALSE(regions(late, Rows<std::int64_t>::uniform(64, nrows), 1));
  // Ragged rows by their mean: rows of 0 and 128 int32 average 256 bytes.
  std::vector<std::int64_t> splits(static_cast<std::size_t>(nrows) + 1);
  for (std::size_t r = 0; r < static_cast<std::size_t>(nrows); ++r)
    splits[r + 1] = splits[r] + (r % 2 ? 128 : 0);
  CHECK(regions(every(15), Rows<std::int64_t>::of_splits(splits), 1));
  CHECK_FALSE(regions(every(17), Rows<std::int64_t>::of_splits(splits), 1));
  CHECK_FALSE(regions({}, Rows<std::int64_t>::uniform(64, 0), 1));  // no rows
  // Runs carried ask for 3/8 kept as well: 1536 of the first 4096 rows.
  const auto bools = as_bools(all);
  const auto first_kept = [&](std::int64_t k) {
    auto m = every(1);
    std::fill(m.begin() + k, m.begin() + 4096, char{0});
    return m;
  };
  for (const std::int64_t k : {1535, 1536}) {
    const auto m = first_kept(k);
    const auto b = as_bools(m);
    const auto rows = Rows<std::int64_t>::uniform(64, nrows);
    CHECK(kd::queued_regions<std::int32_t>(static_cast<const bool*>(b.get()), rows, 1));
    CHECK(kd::queued_regions<std::int32_t>(static_cast<const bool*>(b.get()), rows, 1, 3) ==
          (k == 1536));
    CHECK(kd::queued_regions<std::int32_t>(pack_bits(m, 3).bits, rows, 1, 3) == (k == 1536));
  }
  CHECK(kd::queued_regions<std::int32_t>(static_cast<const bool*>(bools.get()),
                                         Rows<std::int64_t>::uniform(64, nrows), 1, 8));
}

TEST_CASE("Zen 5 carries runs where most rows are kept: as found or queued") {
  // carried_runs, from the first 16384 rows: as found where 7/8 or more of
  // rows averaging up to 256 bytes are kept, or 3/4 of rows under 64 bytes;
  // queued where 3/4 or more of rows averaging 64 bytes to under 4 KiB are
  // kept in runs that average 1 KiB or more; else not carried. Which CPUs
  // ask it: carries_kept_runs.
  using ragged::kernel::Rows;
  namespace kd = ragged::kernel::detail;
  using C = kd::RunCarry;
  const std::int64_t nrows = 32768;
  // One row in k dropped (0: none).
  const auto dropping = [&](std::int64_t k) { return every_kth(nrows, k, false); };
  const auto carry = [&](const std::vector<char>& m, const Rows<std::int64_t>& rows,
                         std::int64_t inner) {
    return as_bytes_and_bits(
        m, [&](auto mask) { return kd::carried_runs<std::int32_t>(mask, rows, inner); });
  };
  const auto uniform = [&](std::int64_t length) {
    return Rows<std::int64_t>::uniform(length, nrows);
  };
  // Rows of 256 bytes: 7/8 kept (one row in 8 dropped) as found, under it
  // queued while runs average 1 KiB (3/4 kept), then not at all.
  CHECK(carry(dropping(0), uniform(64), 1) == C::as_found);
  CHECK(carry(dropping(8), uniform(64), 1) == C::as_found);
  CHECK(carry(dropping(7), uniform(64), 1) == C::queued);
  CHECK(carry(dropping(4), uniform(64), 1) == C::queued);
  CHECK(carry(dropping(3), uniform(64), 1) == C::none);
  // Over 256 bytes, queued however many are kept; 4 KiB or more, never.
  CHECK(carry(dropping(0), uniform(65), 1) == C::queued);
  CHECK(carry(dropping(0), uniform(1023), 1) == C::queued);
  CHECK(carry(dropping(0), uniform(1024), 1) == C::none);
  // Rows of 64 bytes: 15/16 kept is 7/8 or more, as found; at 4/5 kept runs
  // average 320 bytes, too short to queue. Rows of 1 KiB at 4/5: queued.
  // (Over 256 bytes, runs at 3/4 kept or more average over 1 KiB anyway:
  // the runs' test binds only for rows of 64 to 256 bytes under 7/8 kept.)
  CHECK(carry(dropping(16), uniform(16), 1) == C::as_found);
  CHECK(carry(dropping(5), uniform(16), 1) == C::none);
  CHECK(carry(dropping(5), uniform(256), 1) == C::queued);
  // Under a line a row: as found from 3/4 kept.
  CHECK(carry(dropping(4), uniform(15), 1) == C::as_found);
  CHECK(carry(dropping(3), uniform(15), 1) == C::none);
  CHECK(carry(dropping(4), uniform(1), 1) == C::as_found);
  CHECK(carry(dropping(4), uniform(1), 16) == C::none);  // inner counts too: 64 bytes, runs of 256
  // Only the first 16384 rows are counted.
  auto late = dropping(0);
  std::fill(late.begin(), late.begin() + 16384, char{0});
  CHECK(carry(late, uniform(64), 1) == C::none);
  std::fill(late.begin(), late.end(), char{0});
  std::fill(late.begin(), late.begin() + 16384, char{1});
  CHECK(carry(late, uniform(64), 1) == C::as_found);
  // Ragged rows by their mean: rows of 0 and 256 int32 average 512 bytes,
  // queued from 3/4 kept (runs of 2 KiB).
  std::vector<std::int64_t> splits(static_cast<std::size_t>(nrows) + 1);
  for (std::size_t r = 0; r < static_cast<std::size_t>(nrows); ++r)
    splits[r + 1] = splits[r] + (r % 2 ? 256 : 0);
  CHECK(carry(dropping(4), Rows<std::int64_t>::of_splits(splits), 1) == C::queued);
  CHECK(carry(dropping(3), Rows<std::int64_t>::of_splits(splits), 1) == C::none);
  CHECK(carry({}, Rows<std::int64_t>::uniform(64, 0), 1) == C::none);  // no rows
}

TEST_CASE("masks that keep most entries: 7/8 or more of the first 16384") {
  // keeps_most counts the first 16384 entries (all, where fewer). Where the
  // level streams its output through L1 (streams_through_l1: Zen 5), compact()
  // writes such a mask's output straight, with ordinary stores instead.
  namespace kd = ragged::kernel::detail;
  const auto most = [](const std::vector<char>& m) {
    return as_bytes_and_bits(
        m, [&](auto mask) { return kd::keeps_most(mask, static_cast<std::int64_t>(m.size())); });
  };
  // One entry in k dropped (0: none).
  CHECK(most(every_kth(40000, 0, false)));
  CHECK(most(every_kth(40000, 8, false)));        // exactly 7/8 of the probe
  CHECK_FALSE(most(every_kth(40000, 7, false)));  // 6/7
  auto m = every_kth(16384, 0, true);             // 14336 of 16384 kept, then 14335
  std::fill(m.begin(), m.begin() + 14336, char{1});
  CHECK(most(m));
  m[0] = 0;
  CHECK_FALSE(most(m));
  // Only the probe counts: all kept after it, or nothing.
  m.assign(40000, 1);
  std::fill(m.begin(), m.begin() + 16384, char{0});
  CHECK_FALSE(most(m));
  m.assign(40000, 0);
  std::fill(m.begin(), m.begin() + 16384, char{1});
  CHECK(most(m));
  // Shorter masks are counted whole.
  CHECK(most(every_kth(96, 8, false)));        // 84 of 96
  CHECK_FALSE(most(every_kth(98, 7, false)));  // 84 of 98
  // How this CPU writes them beyond the caches.
  const auto all = as_bools(every_kth(40000, 0, false));
  const auto none = as_bools(every_kth(40000, 0, true));
  const bool streams = kd::straight_reach() == kd::Reach::streamed;
  CHECK(kd::straight_reach(static_cast<const bool*>(all.get()), 40000) ==
        (streams ? kd::beyond_reach() : kd::straight_reach()));
  CHECK(kd::straight_reach(static_cast<const bool*>(none.get()), 40000) == kd::straight_reach());
}

namespace {

// compact() of 1-D T past the streaming threshold under masks that keep most
// entries (all; one in 8 or one in 7 dropped, either side of keeps_most; 95%
// at random) and under one that keeps all of the first 16384 entries and 5%
// after them, into an output at an odd element offset: exactly the kept
// entries, nothing past them.
template <class T>
void check_mostly_kept(std::mt19937_64& rng) {
  const auto in = large_1d_input<T>();
  const auto n = static_cast<std::int64_t>(in.size());
  std::vector<T> want, out;
  for (const int kind : {0, 8, 7, -1, -2}) {
    std::vector<char> m = every_kth(n, kind > 0 ? kind : 0, false);
    if (kind == -1)
      for (auto& b : m) b = static_cast<char>(rng() % 100 < 95);
    if (kind == -2)
      for (std::size_t i = 16384; i < m.size(); ++i) m[i] = static_cast<char>(rng() % 100 < 5);
    INFO(sizeof(T) << "-byte elements, mask kind " << kind
                   << " (k > 0: one in k dropped; -1: 95% at random; -2: the probe all kept)");
    check_large_1d(in, m, want, out);
  }
}

}  // namespace

TEST_CASE("masks that keep most entries beyond the caches: exactly, nothing past them") {
  at_every_level(8787, [](std::mt19937_64& rng) {
    check_mostly_kept<std::int8_t>(rng);
    check_mostly_kept<std::int32_t>(rng);
    check_mostly_kept<double>(rng);
  });
}

TEST_CASE("row selection's loops beyond the caches copy the same rows, whatever the CPU") {
  // Which loop copies a row selection beyond the caches depends on the CPU,
  // the share kept and the rows' length (copy_runs), so each is called here
  // directly: each run copied with its own stores (copy_runs_copied) and
  // put together in a register, every line of the output streamed whole
  // (copy_runs_carried, where the CPU has AVX-512), each with the input read
  // in order (every line requested in order, gaps included) and queued, with
  // and without requests per region. Ragged rows
  // and uniform ones (bounds by multiplication), runs shorter and longer than
  // the first requests (8 KiB), rows of no elements, sparse and dense masks,
  // outputs at a random offset within a line, and a guard on either side of
  // the output that must stay untouched.
  using ragged::kernel::Rows;
  namespace kd = ragged::kernel::detail;
  std::vector<std::int32_t> in, want, out;
  const bool carries = ragged::kernel::supports(ragged::kernel::Isa::avx512);
  at_every_level(1905, [&](std::mt19937_64& rng) {
    for (const std::int64_t inner : {std::int64_t{1}, std::int64_t{3}})
      for (const std::int64_t uniform : {0, 37}) {
        auto splits = ragged_rows(rng, std::int64_t{1} << 20, 300, 7, inner, in);
        const auto nrows = static_cast<std::int64_t>(splits.size()) - 1;
        if (uniform) {  // the same number of rows, each `uniform` positions
          for (std::size_t r = 0; r < splits.size(); ++r)
            splits[r] = static_cast<std::int64_t>(r) * uniform;
          in.resize(static_cast<std::size_t>(splits.back() * inner));
          for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<std::int32_t>(i);
        }
        const auto rows = uniform ? Rows<std::int64_t>::uniform(uniform, nrows)
                                  : Rows<std::int64_t>::of_splits(splits);
        for (int density : {5, 50, 95, 100, -1, -4}) {
          const auto m = random_mask(rng, nrows, density);
          const auto mask = as_bools(m);
          kept_rows(in, splits, m, inner, want);
          for (const int loop : {0, 1, 2, 3, 4, 5}) {
            if ((loop == 1 || loop >= 4) && !carries) continue;
            // Guards of 40 entries; the output begins 0 to 15 entries into a line.
            const auto offset = static_cast<std::size_t>(rng() % 16);
            INFO("inner " << inner << ", uniform " << uniform << ", density " << density
                          << ", loop " << loop << ", offset " << offset);
            out.assign(want.size() + 80 + 16, -1);
            auto* const o =
                reinterpret_cast<std::int32_t*>(
                    (reinterpret_cast<std::uintptr_t>(out.data() + 40) + 63) / 64 * 64) +
                offset;
            const auto* b = mask.get();
            const auto kept =
                loop == 0   ? kd::copy_runs_copied<kd::InOrderReads>(in.data(), b, rows, o, inner)
                : loop == 1 ? kd::copy_runs_carried<kd::InOrderReads>(in.data(), b, rows, o, inner)
                : loop == 2
                    ? kd::copy_runs_copied<kd::RunQueue<false>>(in.data(), b, rows, o, inner)
                : loop == 3 ? kd::copy_runs_copied<kd::RunQueue<true>>(in.data(), b, rows, o, inner)
                : loop == 4
                    ? kd::copy_runs_carried<kd::RunQueue<false>>(in.data(), b, rows, o, inner)
                    : kd::copy_runs_carried<kd::RunQueue<true>>(in.data(), b, rows, o, inner);
            kd::stream_fence();
            CHECK(kept * inner == static_cast<std::int64_t>(want.size()));
            const auto at = static_cast<std::size_t>(o - out.data());
            CHECK(first_difference(std::vector<std::int32_t>(o, o + want.size()), want) == -1);
            CHECK(std::all_of(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(at),
                              [](std::int32_t v) { return v == -1; }));
            CHECK(std::all_of(out.begin() + static_cast<std::ptrdiff_t>(at + want.size()),
                              out.end(), [](std::int32_t v) { return v == -1; }));
          }
        }
      }
  });
}

TEMPLATE_TEST_CASE("row selection's splits: every row count around whole words, at every level", "",
                   std::int32_t, std::int64_t) {
  // kept_limits writes sp[1..kept], the running total of the kept rows'
  // lengths: at AVX-512 a vector of rows a step over whole words of 64 rows,
  // a row a step after them. Row counts on either side of word boundaries,
  // masks of bytes and of bits at odd offsets.
  std::vector<TestType> splits, sp, want;
  at_every_level(64, [&](std::mt19937_64& rng) {
    for (const std::int64_t nrows : {0, 1, 7, 8, 15, 16, 63, 64, 65, 127, 128, 129, 191, 1000}) {
      splits.assign(1, 0);
      for (std::int64_t r = 0; r < nrows; ++r)
        splits.push_back(static_cast<TestType>(splits.back() + static_cast<TestType>(rng() % 9)));
      for (int density : {0, 10, 50, 90, 100, -1}) {
        const auto m = random_mask(rng, nrows, density);
        want.assign(1, 0);
        for (std::int64_t r = 0; r < nrows; ++r)
          if (m[static_cast<std::size_t>(r)])
            want.push_back(static_cast<TestType>(want.back() +
                                                 splits[static_cast<std::size_t>(r) + 1] -
                                                 splits[static_cast<std::size_t>(r)]));
        INFO("rows " << nrows << ", density " << density);
        auto mask = std::make_unique<bool[]>(m.size() + 1);
        for (std::size_t r = 0; r < m.size(); ++r) mask[r] = m[r] != 0;
        // A guard entry past the kept rows' splits, which must stay as it is.
        sp.assign(want.size() + 1, TestType{-7});
        sp[0] = 0;
        ragged::kernel::detail::kept_limits(mask.get(), nrows, splits.data(), sp.data());
        CHECK(first_difference(std::vector<TestType>(sp.begin(), sp.end() - 1), want) == -1);
        CHECK(sp.back() == TestType{-7});
        const auto packed = pack_bits(m, 3);
        sp.assign(want.size() + 1, TestType{-7});
        sp[0] = 0;
        ragged::kernel::detail::kept_limits(packed.bits, nrows, splits.data(), sp.data());
        CHECK(first_difference(std::vector<TestType>(sp.begin(), sp.end() - 1), want) == -1);
        CHECK(sp.back() == TestType{-7});
      }
    }
  });
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
TEST_CASE("the 64-byte run copy copies every length exactly and nothing past it") {
  // copy_avx512: whole vectors, then the last 64 bytes over part of the one
  // before, or below 64 one masked store; every length to 300 bytes, from
  // and to every offset within a line.
  if (!ragged::kernel::supports(ragged::kernel::Isa::avx512)) {
    WARN("this CPU lacks AVX-512; not tested here");
    return;
  }
  std::vector<unsigned char> src(400), dst(400);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(i * 7 + 1);
  std::int64_t failures = 0;
  for (std::size_t bytes = 0; bytes <= 300; ++bytes)
    for (const std::size_t from : {0u, 1u, 13u, 63u})
      for (const std::size_t to : {0u, 5u, 32u, 63u}) {
        std::fill(dst.begin(), dst.end(), 0xA5);
        ragged::kernel::detail::copy_avx512(dst.data() + to, src.data() + from, bytes);
        const bool ok = std::equal(src.begin() + static_cast<std::ptrdiff_t>(from),
                                   src.begin() + static_cast<std::ptrdiff_t>(from + bytes),
                                   dst.begin() + static_cast<std::ptrdiff_t>(to)) &&
                        std::all_of(dst.begin(), dst.begin() + static_cast<std::ptrdiff_t>(to),
                                    [](unsigned char b) { return b == 0xA5; }) &&
                        std::all_of(dst.begin() + static_cast<std::ptrdiff_t>(to + bytes),
                                    dst.end(), [](unsigned char b) { return b == 0xA5; });
        if (!ok && ++failures <= 5)
          UNSCOPED_INFO("bytes " << bytes << " from " << from << " to " << to);
      }
  CHECK(failures == 0);
}
#endif

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
namespace {
// The runs [from, from + bytes) of `src` appended to a carry that begins at
// `out`, as carry_copy appends them from `whole_from` bytes; returns the end.
[[gnu::target("avx512f,avx512bw,avx512vbmi,bmi2")]] std::byte* carry_runs(
    const std::vector<std::pair<std::size_t, std::size_t>>& runs, const unsigned char* src,
    std::byte* out, std::int64_t whole_from) {
  namespace kd = ragged::kernel::detail;
  auto carry = kd::carry_from(out);
  for (const auto& [from, bytes] : runs)
    kd::carry_copy(carry, reinterpret_cast<const std::byte*>(src + from),
                   static_cast<std::int64_t>(bytes), whole_from);
  auto* end = kd::carry_end(carry);
  kd::stream_fence();
  return end;
}
}  // namespace

TEST_CASE("the carry appends runs of every length, through it or whole lines straight") {
  // carry_copy: runs of 0 to 300 bytes from any source offset, appended one
  // after another to a carry that begins at every offset within a line;
  // from `whole_from` bytes on (never, and 64 to 1024) the carry's line is
  // topped up and the whole lines after it go out straight. The output must
  // be the runs end to end, with guards either side untouched.
  if (!ragged::kernel::supports(ragged::kernel::Isa::avx512)) {
    WARN("this CPU lacks AVX-512; not tested here");
    return;
  }
  std::mt19937_64 rng(2024);
  std::vector<unsigned char> src(4096), want, out;
  std::vector<std::pair<std::size_t, std::size_t>> runs;
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(i * 7 + 3);
  std::int64_t failures = 0;
  for (const std::int64_t whole_from :
       {std::numeric_limits<std::int64_t>::max(), std::int64_t{0}, std::int64_t{64},
        std::int64_t{65}, std::int64_t{127}, std::int64_t{1024}})
    for (std::size_t offset = 0; offset < 64; ++offset) {
      want.clear();
      runs.clear();
      out.assign(64 + 40 * 1100 + 128, 0xA5);
      auto* const o = reinterpret_cast<std::byte*>(
          (reinterpret_cast<std::uintptr_t>(out.data()) + 63) / 64 * 64 + offset);
      for (int run = 0; run < 40; ++run) {
        // Mostly short runs, some long enough to pass 1024 bytes.
        const auto bytes = static_cast<std::size_t>(rng() % 4 ? rng() % 301 : rng() % 1100);
        const auto from = static_cast<std::size_t>(rng() % (src.size() - bytes));
        runs.emplace_back(from, bytes);
        want.insert(want.end(), src.begin() + static_cast<std::ptrdiff_t>(from),
                    src.begin() + static_cast<std::ptrdiff_t>(from + bytes));
      }
      const auto* end = carry_runs(runs, src.data(), o, whole_from);
      const auto at = static_cast<std::size_t>(reinterpret_cast<unsigned char*>(o) - out.data());
      const bool ok =
          end == o + want.size() &&
          std::equal(want.begin(), want.end(), out.begin() + static_cast<std::ptrdiff_t>(at)) &&
          std::all_of(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(at),
                      [](unsigned char b) { return b == 0xA5; }) &&
          std::all_of(out.begin() + static_cast<std::ptrdiff_t>(at + want.size()), out.end(),
                      [](unsigned char b) { return b == 0xA5; });
      if (!ok && ++failures <= 5)
        UNSCOPED_INFO("whole_from " << whole_from << ", offset " << offset);
    }
  CHECK(failures == 0);
}
#endif

TEST_CASE("dense rows beyond the caches: short runs and long ones, exactly, nothing past them") {
  // Rows wider than 8 bytes move as runs. Beyond the caches, runs from 4 KiB
  // on are streamed where the level writes straight to the output, shorter
  // ones copied with memcpy (run_copy): rows of 40 bytes to 8 KiB, in runs
  // on either side of that length, to an output at an odd element offset.
  std::vector<std::int32_t> in, want, out;
  at_every_level(4096, [&](std::mt19937_64& rng) {
    for (const std::int64_t inner : {std::int64_t{10}, std::int64_t{1000}, std::int64_t{2048}}) {
      const std::int64_t n = (std::int64_t{6} << 20) / inner;
      in.resize(static_cast<std::size_t>(n * inner));
      for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<std::int32_t>(i);
      for (int density : {50, -1, 100}) {
        const auto m = random_mask(rng, n, density);
        auto mask = std::make_unique<bool[]>(m.size() + 1);
        for (std::size_t r = 0; r < m.size(); ++r) mask[r] = m[r] != 0;
        want.clear();
        for (std::int64_t r = 0; r < n; ++r)
          if (m[static_cast<std::size_t>(r)])
            want.insert(want.end(), in.begin() + r * inner, in.begin() + (r + 1) * inner);
        out.assign(want.size() + 3 + 64, -1);
        INFO("inner " << inner << ", density " << density);
        const auto* end = ragged::kernel::compact(in.data(), mask.get(), n, out.data() + 3, inner);
        REQUIRE(end == out.data() + 3 + want.size());
        CHECK(std::equal(want.begin(), want.end(), out.begin() + 3));
        CHECK(std::all_of(out.begin(), out.begin() + 3, [](std::int32_t v) { return v == -1; }));
        CHECK(std::all_of(out.begin() + 3 + static_cast<std::ptrdiff_t>(want.size()), out.end(),
                          [](std::int32_t v) { return v == -1; }));
      }
    }
  });
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
TEST_CASE("a row's mask bit widens to one bit per lane, for rows of 1 to 8 lanes") {
  namespace kd = ragged::kernel::detail;
  if (!ragged::kernel::supports(ragged::kernel::Isa::avx512)) {
    WARN("this CPU lacks avx512; widen_rows_avx512 not tested here");
    return;
  }
  std::mt19937_64 rng(808);
  const std::uint64_t rows[] = {
      0x0ull, ~0x0ull, 0x8000000180000001ull, 0x123456789ABCDEF0ull, rng(),
      rng(),  rng(),   0x5555555555555555ull};
  constexpr std::int64_t nwords = std::size(rows);
  for (int lanes = 1; lanes <= kd::max_row_lanes; ++lanes) {
    INFO(lanes << " lanes a row");
    std::vector<std::uint64_t> out(nwords * kd::max_row_lanes + 1, 0xA5A5A5A5A5A5A5A5ull);
    kd::widen_rows_avx512(rows, nwords, lanes, out.data());
    std::int64_t wrong = 0;  // lanes whose bit is not their row's
    for (std::int64_t lane = 0; lane < 64 * nwords * lanes; ++lane) {
      const auto row = lane / lanes;
      wrong += ((out[static_cast<std::size_t>(lane / 64)] >> (lane % 64)) & 1) !=
               ((rows[row / 64] >> (row % 64)) & 1);
    }
    CHECK(wrong == 0);
    // Nothing past the last word of lane bits.
    CHECK(out[static_cast<std::size_t>(nwords * lanes)] == 0xA5A5A5A5A5A5A5A5ull);
  }
}
#endif

TEST_CASE("which dense rows move as lanes, and how wide") {
  namespace kd = ragged::kernel::detail;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  const auto lanes = [](auto row) { return std::pair{row.width, row.count}; };
  CHECK(lanes(kd::row_lanes<float>(3)) == std::pair{std::size_t{4}, 3});
  CHECK(lanes(kd::row_lanes<float>(4)) == std::pair{std::size_t{8}, 2});
  CHECK(lanes(kd::row_lanes<double>(3)) == std::pair{std::size_t{8}, 3});
  CHECK(lanes(kd::row_lanes<double>(8)) == std::pair{std::size_t{8}, 8});
  CHECK(lanes(kd::row_lanes<std::int16_t>(3)) == std::pair{std::size_t{2}, 3});
  CHECK(lanes(kd::row_lanes<std::uint8_t>(3)) == std::pair{std::size_t{1}, 3});
  CHECK(lanes(kd::row_lanes<std::uint8_t>(10)) == std::pair{std::size_t{2}, 5});
  CHECK(lanes(kd::row_lanes<std::uint8_t>(56)) == std::pair{std::size_t{8}, 7});
  // Rows of 1, 2, 4 or 8 bytes are single elements; past 8 lanes, runs.
  for (const std::int64_t bytes : {0, 1, 2, 4, 8, 9, 11, 13, 17, 72, 128})
    CHECK(kd::row_lanes<std::uint8_t>(bytes).count == 0);
#else
  CHECK(kd::row_lanes<float>(3).count == 0);  // only the AVX-512 level moves rows as lanes
#endif
}

namespace {

// compact() of `n` dense rows of `inner` T (which beyond the caches move as
// lanes at AVX-512, or as runs where those are long or far apart:
// compact_lanes) against the plain definition, with byte and bit masks: the
// kept rows exactly, nothing written on either side of them. The masks keep
// few rows (each chunk compacted as the kernel does outputs beyond the
// caches), about half (read beyond), most (as in the caches), stretches of
// few and most in turns (every way within one call), and runs of 1..80
// (as runs for rows of 16 bytes or more).
template <class T>
void check_lane_rows(std::mt19937_64& rng, std::int64_t inner, bool beyond = true) {
  const std::int64_t row = inner * static_cast<std::int64_t>(sizeof(T));
  // Past the streaming threshold, or in the caches, with a last chunk and a last word partial.
  const std::int64_t n =
      beyond ? ragged::kernel::detail::stream_threshold_bytes / row + 2048 + 37 : 2 * 2048 + 37;
  std::vector<T> in(static_cast<std::size_t>(n * inner)), want, out;
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<T>(i % 1000 + 1);
  // Density 88: chunks on either side of 7/8 kept (compact_lanes' bands).
  for (int density : {50, 5, 88, -4, -1}) {
    const auto m = random_mask(rng, n, density);
    want.clear();
    for (std::int64_t r = 0; r < n; ++r)
      if (m[static_cast<std::size_t>(r)])
        want.insert(want.end(), in.begin() + r * inner, in.begin() + (r + 1) * inner);
    const auto bools = as_bools(m);
    const auto packed = pack_bits(m, 5);
    for (const bool bits : {false, true}) {
      INFO("row of " << row << " bytes, " << n << " rows, density " << density << ", bits "
                     << bits);
      out.assign(want.size() + 2 * 64, T{0});
      T* const o = out.data() + 64 - 1;  // an odd element offset
      const T* end = bits ? ragged::kernel::compact(in.data(), packed.bits, n, o, inner)
                          : ragged::kernel::compact(in.data(), bools.get(), n, o, inner);
      REQUIRE(end == o + want.size());
      CHECK(std::equal(want.begin(), want.end(), o));
      CHECK(std::all_of(out.begin(), out.begin() + 63, [](T v) { return v == T{0}; }));
      CHECK(std::all_of(out.begin() + 63 + static_cast<std::ptrdiff_t>(want.size()), out.end(),
                        [](T v) { return v == T{0}; }));
    }
  }
}

}  // namespace

namespace {

// compact() of `n` rows of `inner` T (lanes at AVX-512) under a mask in rows
// (ragged, 0..130 entries, or uniform of `length`) against the plain
// definition: the kept rows exactly, nothing past them, and the result's row
// splits. In the caches, or past the streaming threshold.
template <class T>
void check_lane_rows_in_rows(std::mt19937_64& rng, std::int64_t inner, std::int64_t length,
                             bool beyond) {
  using ragged::kernel::Rows;
  const std::int64_t row = inner * static_cast<std::int64_t>(sizeof(T));
  const std::int64_t want_n =
      beyond ? ragged::kernel::detail::stream_threshold_bytes / row + 3000 : 20000;
  std::vector<std::int64_t> bounds{0};
  while (bounds.back() < want_n)
    bounds.push_back(bounds.back() + (length ? length : static_cast<std::int64_t>(rng() % 131)));
  const auto nrows = static_cast<std::int64_t>(bounds.size()) - 1;
  const auto n = bounds.back();
  std::vector<T> in(static_cast<std::size_t>(n * inner)), want, out;
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<T>(i % 1000 + 1);
  for (int density : {50, 5, 90, -4, -1}) {
    const auto m = random_mask(rng, n, density);
    want.clear();
    std::vector<std::int64_t> want_splits{0}, splits;
    for (std::int64_t r = 0; r < nrows; ++r) {
      for (auto i = bounds[static_cast<std::size_t>(r)];
           i < bounds[static_cast<std::size_t>(r) + 1]; ++i)
        if (m[static_cast<std::size_t>(i)])
          want.insert(want.end(), in.begin() + i * inner, in.begin() + (i + 1) * inner);
      want_splits.push_back(static_cast<std::int64_t>(want.size()) / inner);
    }
    const auto bools = as_bools(m);
    const auto packed = pack_bits(m, 3);
    const auto of_rows =
        length ? Rows<std::int64_t>::uniform(length, nrows) : Rows<std::int64_t>::of_splits(bounds);
    for (const bool bits : {false, true}) {
      INFO("row of " << row << " bytes, " << n << " rows in rows of "
                     << (length ? std::to_string(length) : "0..130") << ", density " << density
                     << ", bits " << bits);
      out.assign(want.size() + 64, T{0});
      splits.assign(static_cast<std::size_t>(nrows) + 1, -1);
      const T* end = bits ? ragged::kernel::compact(in.data(), packed.bits, n, out.data(), inner,
                                                    of_rows, splits.data())
                          : ragged::kernel::compact(in.data(), bools.get(), n, out.data(), inner,
                                                    of_rows, splits.data());
      REQUIRE(end == out.data() + want.size());
      CHECK(std::equal(want.begin(), want.end(), out.begin()));
      CHECK(std::all_of(out.begin() + static_cast<std::ptrdiff_t>(want.size()), out.end(),
                        [](T v) { return v == T{0}; }));
      CHECK(first_difference(splits, want_splits) == -1);
    }
  }
}

}  // namespace

TEST_CASE("rows of 2 to 8 lanes under a mask in rows: exactly, and the result's splits") {
  at_every_level(1717, [](std::mt19937_64& rng) {
    for (const bool beyond : {true, false}) {
      check_lane_rows_in_rows<float>(rng, 3, 0, beyond);  // ragged xyz points
      if (ragged::kernel::active_isa() != ragged::kernel::Isa::avx512) continue;
      check_lane_rows_in_rows<float>(rng, 3, 700, beyond);  // dense [n, 700, 3] to ragged
      check_lane_rows_in_rows<std::uint8_t>(rng, 3, 0, beyond);
      check_lane_rows_in_rows<double>(rng, 8, 0, beyond);
    }
  });
}

TEST_CASE("dense rows of 2 to 8 lanes, exactly, nothing past them") {
  at_every_level(1616, [](std::mt19937_64& rng) {
    for (const bool beyond : {true, false}) {
      check_lane_rows<float>(rng, 3, beyond);  // 3 lanes of 4 bytes: xyz points
      // The other levels move these rows as runs, which the tests above cover.
      if (ragged::kernel::active_isa() != ragged::kernel::Isa::avx512) continue;
      check_lane_rows<std::uint8_t>(rng, 3, beyond);   // 3 of 1
      check_lane_rows<std::int16_t>(rng, 3, beyond);   // 3 of 2
      check_lane_rows<float>(rng, 4, beyond);          // 2 of 8
      check_lane_rows<double>(rng, 3, beyond);         // 3 of 8
      check_lane_rows<std::int16_t>(rng, 16, beyond);  // 4 of 8
      check_lane_rows<float>(rng, 14, beyond);         // 7 of 8
      check_lane_rows<double>(rng, 8, beyond);         // 8 of 8
    }
    // On either side of the 256 rows from which rows move as lanes.
    for (const std::int64_t n : {255, 256, 300}) {
      const auto m = random_mask(rng, n, 50);
      std::vector<float> in(static_cast<std::size_t>(3 * n)), want;
      for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i + 1);
      for (std::int64_t r = 0; r < n; ++r)
        if (m[static_cast<std::size_t>(r)])
          want.insert(want.end(), in.begin() + 3 * r, in.begin() + 3 * r + 3);
      std::vector<float> out(want.size() + 1, -1.0f);
      const auto bools = as_bools(m);
      INFO(n << " rows of xyz");
      REQUIRE(ragged::kernel::compact(in.data(), bools.get(), n, out.data(), 3) ==
              out.data() + want.size());
      CHECK(std::equal(want.begin(), want.end(), out.begin()));
      CHECK(out.back() == -1.0f);
    }
  });
}

namespace {

// What the streamed loop hands over as it goes (Report): the stretches it
// reports must tile [0, n) in order, and their words and prefix counts give
// the count kept before every position, at and between words.
struct Seen {
  std::vector<std::int64_t> before;  // before[p]: kept before entry p, as reported
  std::int64_t next = 0;             // where the next stretch must start
  bool tiled = true;
};

// A loop that reports (Implementation's compact_reporting, streamed, or
// carried_reporting, where whole-vector stores run), called straight on a
// short input: the output bytes, and the counts its reports give at every
// position, each against the plain definition; output at byte offset `off`.
// False on any difference.
template <class M>
bool check_reporting(std::size_t w, std::int64_t n, const std::vector<char>& m, M mask,
                     bool carried, std::size_t off) {
  const auto& impl = ragged::kernel::detail::implementation<M>();
  const auto fn = (carried ? impl.carried_reporting
                           : impl.compact_reporting)[ragged::kernel::detail::width_slot(w)];
  if (!fn) return true;  // this level reports chunk by chunk (compact_chunked)
  std::vector<unsigned char> in(static_cast<std::size_t>(n) * w + 1);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<unsigned char>(i * 29 + 3);
  std::vector<unsigned char> want;
  std::vector<std::int64_t> want_before;
  for (std::int64_t i = 0; i <= n; ++i) {
    want_before.push_back(static_cast<std::int64_t>(want.size() / w));
    if (i < n && m[static_cast<std::size_t>(i)])
      for (std::size_t b = 0; b < w; ++b) want.push_back(in[static_cast<std::size_t>(i) * w + b]);
  }
  std::vector<unsigned char> out(want.size() + off + 64, 0xAB);
  Seen seen{std::vector<std::int64_t>(static_cast<std::size_t>(n) + 1, -1)};
  const ragged::kernel::detail::Report report{
      &seen, [](void* to, std::int64_t lo, std::int64_t end, const std::uint64_t* words,
                const std::int64_t* prefix) noexcept {
        auto& s = *static_cast<Seen*>(to);
        s.tiled = s.tiled && lo == s.next && end > lo &&
                  end - lo <= ragged::kernel::detail::report_entries;
        s.next = end;
        for (std::int64_t at = 0; at <= end - lo; ++at)
          s.before[static_cast<std::size_t>(lo + at)] =
              prefix[at / 64] +
              std::popcount(words[at / 64] & ((std::uint64_t{1} << (at % 64)) - 1));
      }};
  const auto kept = fn(reinterpret_cast<const std::byte*>(in.data()), mask, n,
                       reinterpret_cast<std::byte*>(out.data() + off), report);
  ragged::kernel::detail::stream_fence();
  return kept * static_cast<std::int64_t>(w) == static_cast<std::int64_t>(want.size()) &&
         std::equal(want.begin(), want.end(), out.begin() + static_cast<std::ptrdiff_t>(off)) &&
         std::all_of(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(off),
                     [](unsigned char c) { return c == 0xAB; }) &&
         std::all_of(out.begin() + static_cast<std::ptrdiff_t>(off + want.size()), out.end(),
                     [](unsigned char c) { return c == 0xAB; }) &&
         seen.tiled && seen.next == n && (n == 0 || seen.before == want_before);
}

// compact() with mask rows on an input just past the streaming threshold,
// against the plain definition: the kept values, nothing written past them,
// and the result's splits (int32, as a ragged result's may be). Uniform rows
// with several bounds a block, one at each block's start, bounds inside
// blocks, rows longer than the loop's lead (all but 64 end in a partial
// block); and explicit splits of 0..130 entries, empty rows among them.
template <class T>
void check_rows_streamed(std::mt19937_64& rng) {
  const auto threshold =
      ragged::kernel::detail::stream_threshold_bytes / static_cast<std::int64_t>(sizeof(T));
  std::vector<T> in, want, out;
  std::vector<std::int32_t> want_splits, splits;
  for (const std::int64_t length : {3, 64, 1000, 4103, 0}) {
    std::vector<std::int64_t> bounds{0};
    while (bounds.back() < threshold)
      bounds.push_back(bounds.back() + (length ? length : static_cast<std::int64_t>(rng() % 131)));
    const auto rows = static_cast<std::int64_t>(bounds.size()) - 1;
    const auto n = bounds.back();
    const auto m = random_mask(rng, n, length == 1000 ? -1 : 50);
    in.resize(static_cast<std::size_t>(n));
    want.clear();
    want.reserve(static_cast<std::size_t>(n));
    want_splits.assign(1, 0);
    for (std::int64_t r = 0; r < rows; ++r) {
      for (auto i = bounds[static_cast<std::size_t>(r)];
           i < bounds[static_cast<std::size_t>(r) + 1]; ++i) {
        in[static_cast<std::size_t>(i)] = static_cast<T>(i * 7 + 1);
        if (m[static_cast<std::size_t>(i)]) want.push_back(in[static_cast<std::size_t>(i)]);
      }
      want_splits.push_back(static_cast<std::int32_t>(want.size()));
    }
    auto mask = std::make_unique<bool[]>(m.size());
    for (std::size_t i = 0; i < m.size(); ++i) mask[i] = m[i] != 0;
    const auto packed = pack_bits(m, 6);
    const auto of_rows = length ? ragged::kernel::Rows<std::int64_t>::uniform(length, rows)
                                : ragged::kernel::Rows<std::int64_t>::of_splits(bounds);
    for (const bool bits : {false, true}) {
      INFO("width " << sizeof(T) << ", row length " << (length ? std::to_string(length) : "0..130")
                    << (bits ? ", bit-packed" : ""));
      out.assign(want.size() + 64, T{-1});
      splits.assign(static_cast<std::size_t>(rows) + 1, -1);
      const auto* end = bits ? ragged::kernel::compact(in.data(), packed.bits, n, out.data(), 1,
                                                       of_rows, splits.data())
                             : ragged::kernel::compact(in.data(), mask.get(), n, out.data(), 1,
                                                       of_rows, splits.data());
      REQUIRE(end == out.data() + want.size());
      CHECK(std::equal(want.begin(), want.end(), out.begin()));
      CHECK(std::all_of(out.begin() + static_cast<std::ptrdiff_t>(want.size()), out.end(),
                        [](T v) { return v == T{-1}; }));
      CHECK(first_difference(splits, want_splits) == -1);
    }
  }
}

}  // namespace

TEST_CASE("row splits made as the output streams: every width, row length, tail and offset") {
  // Where outputs beyond the caches stream through L1 (AMD Zen 5) or are
  // carried in a register (AMD Zen 4), compact() with mask rows (dense to
  // ragged, ragged by ragged) makes the result's splits in the one pass,
  // from the mask bits and counts the loop hands over as it goes. Short
  // inputs straight through both loops at every level that has them
  // (hand-overs mid-loop and at the end, a partial last block, the block a
  // lead ahead; the carried loop's stretches, its tail under 1024 entries,
  // and from four stretches on, its 4-byte blocks put together whole, which
  // need an output at a whole lane: offsets 3 and 8), then compact() itself
  // past the streaming threshold.
  at_every_level(515, [](std::mt19937_64& rng) {
    std::int64_t failures = 0;
    for (std::size_t w : {1u, 2u, 4u, 8u})
      for (const std::int64_t n :
           {0, 1, 63, 64, 65, 129, 1000, 4096, 4160, 8191, 8192, 8193, 8256, 16484, 20000})
        for (int density : {50, 0, 100, -1}) {
          const auto m = random_mask(rng, n, density);
          auto mask = std::make_unique<bool[]>(m.size() + 1);
          for (std::size_t i = 0; i < m.size(); ++i) mask[i] = m[i] != 0;
          const auto packed = pack_bits(m, 5);
          for (const bool carried : {false, true})
            for (const std::size_t off : {std::size_t{3}, std::size_t{8}}) {
              const bool ok =
                  check_reporting(w, n, m, static_cast<const bool*>(mask.get()), carried, off) &&
                  check_reporting(w, n, m, packed.bits, carried, off);
              if (!ok && ++failures <= 3)
                FAIL_CHECK((carried ? "carried" : "streamed")
                           << ", width " << w << ", n " << n << ", density " << density
                           << ", output offset " << off);
            }
        }
    CHECK(failures == 0);
  });
  // At the level chosen at start-up: where the loop is chosen by compact()
  // itself, else its chunks (at every level, int32: "compact reports the
  // kept count at row boundaries").
  std::mt19937_64 rng(5151);
  check_rows_streamed<std::int8_t>(rng);
  check_rows_streamed<std::int16_t>(rng);
  check_rows_streamed<float>(rng);
  check_rows_streamed<double>(rng);
}

TEST_CASE("compact of nothing does no size arithmetic") {
  // An empty tensor may have an inner size no buffer could hold.
  const std::int32_t* none = nullptr;
  std::int32_t out = -1;
  CHECK(ragged::kernel::compact(none, nullptr, 0, &out, std::int64_t{1} << 62) == &out);
  std::int64_t kept_before[2] = {-1, -1};
  const std::int64_t at[2] = {0, 0};
  CHECK(ragged::kernel::compact(none, nullptr, 0, &out, std::int64_t{1} << 62,
                                ragged::kernel::Rows<std::int64_t>::of_splits(at),
                                kept_before) == &out);
  CHECK(kept_before[0] == 0);
  CHECK(kept_before[1] == 0);
  CHECK(out == -1);
}

TEST_CASE("RAGGED_FORCE_ISA accepts exactly scalar, avx2 and avx512") {
  using ragged::kernel::Isa;
  CHECK(ragged::kernel::detail::isa_named("scalar") == Isa::scalar);
  CHECK(ragged::kernel::detail::isa_named("avx2") == Isa::avx2);
  CHECK(ragged::kernel::detail::isa_named("avx512") == Isa::avx512);
  CHECK_FALSE(ragged::kernel::detail::isa_named("AVX2").has_value());
  CHECK_FALSE(ragged::kernel::detail::isa_named("sse").has_value());
  CHECK_FALSE(ragged::kernel::detail::isa_named("").has_value());
}

TEST_CASE("beyond the caches, a chunk is staged where its output is an eighth of what it read") {
  using ragged::kernel::Bits;
  using ragged::kernel::detail::worth_staging;
  // int32 and a byte mask: 2048 entries read 10240 bytes; staged from 320 kept.
  STATIC_REQUIRE(worth_staging<const bool*>(320, 2048, 4));
  STATIC_REQUIRE(!worth_staging<const bool*>(319, 2048, 4));
  STATIC_REQUIRE(!worth_staging<const bool*>(0, 2048, 4));
  STATIC_REQUIRE(worth_staging<const bool*>(2048, 2048, 4));
  // int8: a quarter of the entries kept is an eighth of the bytes read.
  STATIC_REQUIRE(worth_staging<const bool*>(2048, 8192, 1));
  STATIC_REQUIRE(!worth_staging<const bool*>(2047, 8192, 1));
  // A bit-packed mask reads an eighth of a byte per entry.
  STATIC_REQUIRE(worth_staging<Bits>(264, 2048, 4));
  STATIC_REQUIRE(!worth_staging<Bits>(263, 2048, 4));
}

TEST_CASE("the line stage writes each stretch exactly, whole lines streamed, nothing else") {
  // Stretches of random lengths (none, under a line, many lines) through one
  // LineStage, at every offset of the output's first byte in its line, with
  // flushes between some: the output is their concatenation, and the bytes
  // before and after it are untouched.
  using ragged::kernel::detail::LineStage;
  constexpr std::size_t most = 1024;
  const bool wide = ragged::kernel::active_isa() == ragged::kernel::Isa::avx512;
  std::mt19937 rng(7);
  for (std::size_t line_offset = 0; line_offset < 64; ++line_offset)
    for (int round = 0; round < 8; ++round) {
      std::vector<unsigned char> want;
      std::vector<unsigned char> out(64 + 64 + 64 * most + 64, 0xAB);
      // The output's first byte `line_offset` bytes into a line.
      const auto offset =
          ((64 - (reinterpret_cast<std::uintptr_t>(out.data()) & 63)) & 63) + line_offset;
      auto* const first = reinterpret_cast<std::byte*>(out.data() + offset);
      LineStage<most> stage;
      for (int stretch = 0; stretch < 48; ++stretch) {
        const auto pick = rng() % 8;
        const std::size_t len = pick == 0 ? 0 : pick < 4 ? rng() % 64 : rng() % (most + 1);
        if (want.size() + len > 64 * (most - 1)) break;
        auto* at = stage.at(first + want.size());
        for (std::size_t b = 0; b < len; ++b) {
          const auto v = static_cast<unsigned char>(rng());
          at[b] = std::byte{v};
          want.push_back(v);
        }
        stage.wrote(len, wide);
        if (rng() % 6 == 0) stage.flush();
      }
      stage.flush();
      ragged::kernel::detail::stream_fence();
      INFO("line offset " << line_offset << ", round " << round << ", bytes " << want.size());
      CHECK(
          std::equal(want.begin(), want.end(), out.begin() + static_cast<std::ptrdiff_t>(offset)));
      CHECK(std::all_of(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(offset),
                        [](unsigned char c) { return c == 0xAB; }));
      CHECK(std::all_of(out.begin() + static_cast<std::ptrdiff_t>(offset + want.size()), out.end(),
                        [](unsigned char c) { return c == 0xAB; }));
    }
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
TEST_CASE("in the caches, the compress-store level stores masked where that runs faster") {
  // By the share that the first entries keep: bytes always, int16 below 7/8,
  // int32 from 3/8 up to 3/4, doubles never. (Either way the output is
  // exact: check_one runs every level.)
  using ragged::kernel::detail::masked_in_caches;
  STATIC_REQUIRE(masked_in_caches<1>(0, 512));
  STATIC_REQUIRE(masked_in_caches<1>(512, 512));
  STATIC_REQUIRE(masked_in_caches<2>(447, 512));
  STATIC_REQUIRE(!masked_in_caches<2>(448, 512));
  STATIC_REQUIRE(!masked_in_caches<4>(191, 512));
  STATIC_REQUIRE(masked_in_caches<4>(192, 512));
  STATIC_REQUIRE(masked_in_caches<4>(383, 512));
  STATIC_REQUIRE(!masked_in_caches<4>(384, 512));
  STATIC_REQUIRE(!masked_in_caches<8>(256, 512));
}
#endif

TEST_CASE("the AVX-512 store is chosen per CPU, by vendor, family, model and AVX512-FP16") {
  using ragged::kernel::Avx512Store;
  using ragged::kernel::choose_avx512_store;
  using ragged::kernel::CpuId;
  using V = CpuId::Vendor;
  // AMD: Zen 4, Zen 5 and later store whole vectors (Zen 5's compress-store
  // is fast, and still slower than that).
  STATIC_REQUIRE(choose_avx512_store({V::amd, 0x19, 0x11, false}) == Avx512Store::whole);
  STATIC_REQUIRE(choose_avx512_store({V::amd, 0x19, 0x61, false}) == Avx512Store::whole);
  STATIC_REQUIRE(choose_avx512_store({V::amd, 0x1a, 0x02, false}) == Avx512Store::whole);
  STATIC_REQUIRE(choose_avx512_store({V::amd, 0x1b, 0x00, false}) == Avx512Store::whole);
  STATIC_REQUIRE(ragged::kernel::cpu_has_fast_compress_store({V::amd, 0x1a, 0x02, false}));
  // Intel: Sapphire, Emerald and Granite Rapids by model, even where a
  // hypervisor hides AVX512-FP16 ...
  for (const unsigned model : {143u, 207u, 173u, 174u})
    CHECK(choose_avx512_store({V::intel, 6, model, false}) == Avx512Store::compress_store);
  // ... and any Intel core with AVX512-FP16 whatever model a hypervisor
  // reports (a KVM guest with FP16 and AMX reported model 167).
  STATIC_REQUIRE(choose_avx512_store({V::intel, 6, 167, true}) == Avx512Store::compress_store);
  // Ice Lake server and client, Tiger Lake, Rocket Lake: masked, staged.
  for (const unsigned model : {106u, 108u, 125u, 126u, 140u, 141u, 167u})
    CHECK(choose_avx512_store({V::intel, 6, model, false}) == Avx512Store::masked);
  // Other vendors (and an AMD family before Zen 4 with AVX-512, were there one): masked.
  STATIC_REQUIRE(choose_avx512_store({V::other, 6, 143, true}) == Avx512Store::masked);
  STATIC_REQUIRE(choose_avx512_store({V::amd, 0x17, 0x31, false}) == Avx512Store::masked);
  STATIC_REQUIRE(!ragged::kernel::cpu_has_fast_compress_store({V::amd, 0x19, 0x11, false}));
  // Outputs beyond the caches stream through L1 on Zen 5 and later only
  // (measured there); Zen 4 and Intel do not (their whole stores go straight
  // out, or their levels stage and stream per chunk).
  using ragged::kernel::streams_through_l1;
  STATIC_REQUIRE(streams_through_l1({V::amd, 0x1a, 0x02, false}));
  STATIC_REQUIRE(streams_through_l1({V::amd, 0x1b, 0x00, false}));
  STATIC_REQUIRE(!streams_through_l1({V::amd, 0x19, 0x11, false}));
  STATIC_REQUIRE(!streams_through_l1({V::intel, 6, 207, false}));
  STATIC_REQUIRE(!streams_through_l1({V::other, 0x1a, 0x02, false}));
  // Inputs beyond the caches are read in order, every block, on Zen 4 only.
  using ragged::kernel::reads_in_order;
  STATIC_REQUIRE(reads_in_order({V::amd, 0x19, 0x11, false}));
  STATIC_REQUIRE(reads_in_order({V::amd, 0x19, 0x61, false}));
  STATIC_REQUIRE(!reads_in_order({V::amd, 0x1a, 0x02, false}));
  STATIC_REQUIRE(!reads_in_order({V::intel, 6, 207, false}));
  STATIC_REQUIRE(!reads_in_order({V::other, 0x19, 0x11, false}));
  // Row selection carries runs where they pay on Zen 5 and later only.
  using ragged::kernel::carries_kept_runs;
  STATIC_REQUIRE(carries_kept_runs({V::amd, 0x1a, 0x02, false}));
  STATIC_REQUIRE(!carries_kept_runs({V::amd, 0x19, 0x11, false}));
  STATIC_REQUIRE(!carries_kept_runs({V::intel, 6, 167, true}));
  STATIC_REQUIRE(!carries_kept_runs({V::other, 0x1a, 0x02, false}));
  // Sparse blocks in the caches are gathered on Zen 5 and later, and on
  // Intel's cores with a fast compress-store; not on Zen 4 or older Intel.
  using ragged::kernel::gathers_sparse_blocks;
  STATIC_REQUIRE(gathers_sparse_blocks({V::amd, 0x1a, 0x02, false}));
  STATIC_REQUIRE(gathers_sparse_blocks({V::intel, 6, 207, false}));
  STATIC_REQUIRE(gathers_sparse_blocks({V::intel, 6, 167, true}));
  STATIC_REQUIRE(!gathers_sparse_blocks({V::intel, 6, 167, false}));
  STATIC_REQUIRE(!gathers_sparse_blocks({V::amd, 0x19, 0x11, false}));
  STATIC_REQUIRE(!gathers_sparse_blocks({V::other, 0x1a, 0x02, true}));
  // The sparsest chunks written straight to an output beyond the caches,
  // unstaged, request nothing ahead on those same Intel cores only.
  using ragged::kernel::requests_sparsest_input;
  STATIC_REQUIRE(!requests_sparsest_input({V::intel, 6, 143, false}));
  STATIC_REQUIRE(!requests_sparsest_input({V::intel, 6, 167, true}));
  STATIC_REQUIRE(requests_sparsest_input({V::intel, 6, 106, false}));
  STATIC_REQUIRE(requests_sparsest_input({V::amd, 0x1a, 0x02, false}));
  STATIC_REQUIRE(requests_sparsest_input({V::amd, 0x19, 0x11, false}));
  STATIC_REQUIRE(requests_sparsest_input({V::other, 6, 143, true}));
  // Those same Intel cores request the input into L2 (Reach::into_l2).
  using ragged::kernel::requests_into_l2;
  STATIC_REQUIRE(requests_into_l2({V::intel, 6, 143, false}));
  STATIC_REQUIRE(requests_into_l2({V::intel, 6, 167, true}));
  STATIC_REQUIRE(!requests_into_l2({V::intel, 6, 106, false}));
  STATIC_REQUIRE(!requests_into_l2({V::amd, 0x1a, 0x02, false}));
  STATIC_REQUIRE(!requests_into_l2({V::amd, 0x19, 0x11, false}));
  STATIC_REQUIRE(!requests_into_l2({V::other, 6, 143, true}));
  // What this machine got is the rule applied to its CPUID.
  const auto& f = ragged::kernel::cpu_features();
  if (f.avx512) CHECK(f.avx512_store == choose_avx512_store(f.id));
  CHECK(f.fast_compress_store == (f.avx512 && ragged::kernel::cpu_has_fast_compress_store(f.id)));
}

TEST_CASE("compact reports the kept count at row boundaries, in the same pass") {
  std::vector<std::int32_t> in, out, plain, bits_out, got;
  at_every_level(77, [&](std::mt19937_64& rng) {
    // Small and large (streamed) inputs; rows of random length, some empty.
    for (std::int64_t n : {std::int64_t{0}, std::int64_t{1}, std::int64_t{100}, std::int64_t{5000},
                           std::int64_t{5} << 20}) {
      // -4: sparse and dense stretches, so that chunks beyond the caches
      // switch between staged and written straight to the output.
      for (int density : {0, 50, 100, -1, -4}) {
        const auto m = random_mask(rng, n, density);
        auto mask = std::make_unique<bool[]>(m.size() + 1);
        for (std::size_t i = 0; i < m.size(); ++i) mask[i] = m[i] != 0;
        std::vector<std::int64_t> splits{0};
        while (splits.back() < n)
          splits.push_back(
              std::min<std::int64_t>(n, splits.back() + static_cast<std::int64_t>(rng() % 150)));
        in.resize(static_cast<std::size_t>(n));
        for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<std::int32_t>(i);
        out.assign(static_cast<std::size_t>(n) + 1, -1);
        std::vector<std::int32_t> kept_before(splits.size(), -1);
        const auto rows_of_mask = ragged::kernel::Rows<std::int64_t>::of_splits(splits);
        const auto kept = ragged::kernel::compact(in.data(), mask.get(), n, out.data(), 1,
                                                  rows_of_mask, kept_before.data()) -
                          out.data();
        std::int64_t want = 0, failures = 0;
        std::size_t r = 0;
        for (std::int64_t i = 0; i <= n; ++i) {
          for (; r < splits.size() && splits[r] == i; ++r) failures += kept_before[r] != want;
          if (i < n && mask[static_cast<std::size_t>(i)])
            failures += out[static_cast<std::size_t>(want++)] != i;
        }
        INFO("n " << n << ", density " << density);
        CHECK(kept == want);
        CHECK(failures == 0);
        CHECK(out[static_cast<std::size_t>(want)] == -1);
        // Without the splits: the same output (large inputs take the one-pass
        // path where the store is not staged).
        plain.assign(out.size(), -1);
        CHECK(ragged::kernel::compact(in.data(), mask.get(), n, plain.data()) ==
              plain.data() + want);
        CHECK(first_difference(plain, out) == -1);
        // The same mask bit-packed from bit offset 3: the same output and counts.
        const auto packed = pack_bits(m, 3);
        bits_out.assign(out.size(), -1);
        std::vector<std::int32_t> bits_before(splits.size(), -1);
        CHECK(ragged::kernel::compact(in.data(), packed.bits, n, bits_out.data(), 1, rows_of_mask,
                                      bits_before.data()) == bits_out.data() + kept);
        CHECK(first_difference(bits_out, out) == -1);
        CHECK(first_difference(bits_before, kept_before) == -1);
        // Uniform boundaries: short rows (many bounds per chunk), and rows as
        // long as a chunk or longer (few bounds per chunk, some at its ends;
        // where nothing is staged, one row per chunk). The values are the
        // first rows * length entries' kept ones: a prefix of `plain`, and
        // nothing is written past them.
        got.resize(out.size());
        for (const std::int64_t length : {64, 1000, 2048, 3001, 4096, 20000, 100000}) {
          const std::int64_t rows = n / length;
          std::vector<std::int64_t> uniform(static_cast<std::size_t>(rows) + 1, -1);
          for (const bool bit_packed : {false, true}) {
            std::fill(got.begin(), got.end(), -1);
            const auto rows_of = ragged::kernel::Rows<std::int64_t>::uniform(length, rows);
            const auto end = bit_packed
                                 ? ragged::kernel::compact(in.data(), packed.bits, rows * length,
                                                           got.data(), 1, rows_of, uniform.data())
                                 : ragged::kernel::compact(in.data(), mask.get(), rows * length,
                                                           got.data(), 1, rows_of, uniform.data());
            std::int64_t running = 0;
            for (std::int64_t row = 0; row <= rows; ++row) {
              if (uniform[static_cast<std::size_t>(row)] != running) ++failures;
              if (row < rows) running += ragged::kernel::count(mask.get() + row * length, length);
            }
            failures += end - got.data() != running;
            const auto stop = got.begin() + running;
            failures += !std::equal(got.begin(), stop, plain.begin());
            failures += !std::all_of(stop, got.end(), [](std::int32_t x) { return x == -1; });
          }
        }
        CHECK(failures == 0);
      }
    }
  });
}
