// Peak memory of boolean_mask: no allocation proportional to the input beyond
// the output itself. Reads the process's peak resident set (Linux).
#include <ragged/ragged.hpp>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

#include "catch.hpp"

namespace {

// VmHWM in bytes, or -1 where /proc is not there.
std::int64_t peak_rss() {
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == "VmHWM:") {
      std::int64_t kb = 0;
      status >> kb;
      return kb * 1024;
    }
    std::getline(status, key);
  }
  return -1;
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool sanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
constexpr bool sanitized = true;
#else
constexpr bool sanitized = false;
#endif
#else
constexpr bool sanitized = false;
#endif

constexpr std::int64_t slack = std::int64_t{32} << 20;

}  // namespace

// Runs first: VmHWM only grows, so the small case must come before the large one.
TEST_CASE("parsing a 32 MB literal peaks within a small multiple of the input and output") {
  if (sanitized || peak_rss() < 0) {
    WARN("peak memory is not measured under sanitizers or without /proc");
    return;
  }
  const std::int64_t rows = 1'000'000;
  std::string text = "[";
  text.reserve(static_cast<std::size_t>(rows) * 33 + 2);
  for (std::int64_t r = 0; r < rows; ++r)
    text += r ? ", [1, 2, 3, 4, 5, 6, 7, 8, 9, 0]" : "[1, 2, 3, 4, 5, 6, 7, 8, 9, 0]";
  text += "]";
  const auto input_bytes = static_cast<std::int64_t>(text.size());
  const auto output_bytes = rows * 10 * 4 + (rows + 1) * 8;
  const auto before = peak_rss();
  {
    const auto rt = ragged::parse<std::int32_t>(text);
    CHECK(rt.flat_values().size() == rows * 10);
  }
  const auto growth = peak_rss() - before;
  std::printf("parse: input %lld MB, output %lld MB, peak grew by %lld MB\n",
              static_cast<long long>(input_bytes >> 20), static_cast<long long>(output_bytes >> 20),
              static_cast<long long>(growth >> 20));
  // Values grow by doubling and one length is kept per list: at most about
  // three times the output while the last doubling moves, never a node per value.
  CHECK(growth <= 3 * output_bytes + slack);
}

TEST_CASE("boolean_mask on 10^8 int32 values allocates only its output") {
  if (sanitized || peak_rss() < 0) {
    WARN("peak memory is not measured under sanitizers or without /proc");
    return;
  }
  const std::int64_t n = 100'000'000;
  auto values = ragged::Tensor<std::int32_t>::filled(ragged::Shape{n}, 5);
  auto mask = ragged::Tensor<bool>::for_overwrite(ragged::Shape{n});
  for (std::int64_t i = 0; i < n; ++i) mask.data()[i] = (i * 2654435761u) % 7 < 3;
  const auto kept = ragged::kernel::count(mask.data(), n);
  const auto output_bytes = kept * 4;

  const auto before_dense = peak_rss();
  {
    const auto out = ragged::boolean_mask(values, mask, 0);
    CHECK(out.size() == kept);
  }
  const auto dense_growth = peak_rss() - before_dense;
  std::printf("dense: input %lld MB + mask %lld MB, output %lld MB, peak grew by %lld MB\n",
              static_cast<long long>(n * 4 >> 20), static_cast<long long>(n >> 20),
              static_cast<long long>(output_bytes >> 20),
              static_cast<long long>(dense_growth >> 20));
  CHECK(dense_growth <= output_bytes + slack);

  // Ragged: rows of 100 values and a ragged mask with the same splits.
  const auto data = ragged::RaggedTensor<std::int32_t>::from_uniform_row_length(values, 100);
  const auto rmask = ragged::RaggedTensor<bool>::from_uniform_row_length(mask, 100);
  const auto splits_bytes = (n / 100 + 1) * 8;
  const auto before_ragged = peak_rss();
  {
    const auto out = ragged::boolean_mask(data, rmask);
    CHECK(out.flat_values().size() == kept);
  }
  const auto ragged_growth = peak_rss() - before_ragged;
  std::printf("ragged: output %lld MB values + %lld MB splits, peak grew by %lld MB\n",
              static_cast<long long>(output_bytes >> 20),
              static_cast<long long>(splits_bytes >> 20),
              static_cast<long long>(ragged_growth >> 20));
  CHECK(ragged_growth <= output_bytes + splits_bytes + slack);
}

TEST_CASE("a fresh result reuses the large block the last one freed, and only that") {
  ragged::release_cached_memory();
  const std::int64_t n = std::int64_t{1} << 21;  // 8 MiB of int32: a huge-page buffer
  const void* first = nullptr;
  {
    const auto t = ragged::Tensor<std::int32_t>::for_overwrite(ragged::Shape{n});
    first = t.data();
  }
  {
    // The same size, and a size between half and all of it: the same block.
    const auto again = ragged::Tensor<std::int32_t>::for_overwrite(ragged::Shape{n});
    CHECK(static_cast<const void*>(again.data()) == first);
  }
  {
    const auto smaller = ragged::Tensor<std::int32_t>::for_overwrite(ragged::Shape{n / 2 + 1024});
    CHECK(static_cast<const void*>(smaller.data()) == first);
  }
  {
    // Larger than the block: new memory, and the block stays for later.
    const auto larger = ragged::Tensor<std::int32_t>::for_overwrite(ragged::Shape{2 * n});
    CHECK(static_cast<const void*>(larger.data()) != first);
  }
  // Small buffers never take or give the block.
  const auto small = ragged::Tensor<std::int32_t>::for_overwrite(ragged::Shape{16});
  CHECK(static_cast<const void*>(small.data()) != first);
  ragged::release_cached_memory();
  CHECK(ragged::detail::cached_block.load() == nullptr);
  // The kept block is written only while no tensor holds it: a result's values
  // are intact after another result is freed.
  const auto kept = ragged::Tensor<std::int32_t>(
      ragged::Shape{n}, std::vector<std::int32_t>(static_cast<std::size_t>(n), 7));
  { const auto other = ragged::Tensor<std::int32_t>::filled(ragged::Shape{n}, 1); }
  CHECK(kept.data()[0] == 7);
  ragged::release_cached_memory();
}
