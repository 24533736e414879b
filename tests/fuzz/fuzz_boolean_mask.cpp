// Fuzz target: bytes decide a random data/mask pair (ranks, ragged dims, uniform
// inner dims, lengths, densities, sometimes mismatched); both operations are
// checked against the reference implementation and the invariants.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "../differential.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  reference::Choices c(data + 2, size - 2);
  const int density = data[1] % 101;
  reference::Failure failure;
  switch (data[0] % 4) {
    case 0:
      failure = reference::ragged_case<std::int32_t>(c, density);
      break;
    case 1:
      failure = reference::ragged_case<std::string>(c, density);
      break;
    case 2:
      failure = reference::dense_case<std::int8_t>(c, density);
      break;
    default:
      failure = reference::dense_case<double>(c, density);
      break;
  }
  if (!failure.empty()) {
    std::fprintf(stderr, "%s\n", failure.c_str());
    std::abort();
  }
  return 0;
}
