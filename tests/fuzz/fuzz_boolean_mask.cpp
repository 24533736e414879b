// Fuzz target: bytes decide a random data/mask pair (ranks, ragged dims, uniform
// inner dims, lengths, densities, sometimes mismatched); both operations are
// checked against the reference implementation and the invariants. The large
// cases add long rows, streamed sizes, Parallel, int32 splits, raw mask bytes
// and outputs that alias the input.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "../differential.hpp"

// Large enough for 64-entry blocks, 8 KiB chunks and two threads; the
// streaming sizes are left to the unit test, for throughput.
constexpr std::int64_t fuzz_cap = std::int64_t{1} << 18;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  reference::Choices c(data + 2, size - 2);
  const int density = data[1] % 101;
  reference::Failure failure;
  switch (data[0] % 7) {
    case 0:
      failure = reference::ragged_case<std::int32_t>(c, density);
      break;
    case 1:
      failure = reference::ragged_case<std::string>(c, density);
      break;
    case 2:
      failure = reference::dense_case<std::int8_t>(c, density);
      break;
    case 3:
      failure = reference::dense_case<double>(c, density);
      break;
    case 4:
      failure = reference::large_dense_case(c, fuzz_cap);
      break;
    case 5:
      failure = reference::large_ragged_case<std::int32_t>(c, fuzz_cap);
      break;
    default:
      failure = reference::large_ragged_case<std::int64_t>(c, fuzz_cap);
      break;
  }
  if (!failure.empty()) {
    std::fprintf(stderr, "%s\n", failure.c_str());
    std::abort();
  }
  return 0;
}
