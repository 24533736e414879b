// Fuzz target: ragged::parse of arbitrary bytes returns or throws a ragged
// error; what it accepts prints back to the same tensor.
#include <ragged/ragged.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

template <class T>
void parse_as(std::string_view text) {
  try {
    const auto rt = ragged::parse<T>(text);
    const auto again = ragged::parse<T>(ragged::to_string(rt), rt.ragged_rank());
    if (!(again == rt)) {
      std::fprintf(stderr, "round trip differs: %s\n", ragged::to_string(rt).c_str());
      std::abort();
    }
  } catch (const ragged::parse_error&) {
  } catch (const ragged::shape_error&) {
  }
  try {
    (void)ragged::parse_tensor<T>(text);
    struct Counting {
      std::size_t events = 0;
      void begin_list(std::size_t) { ++events; }
      void end_list() { ++events; }
      void value(const ragged::LiteralToken&) { ++events; }
    } sink;
    ragged::read_literal(text, sink);
  } catch (const ragged::parse_error&) {
  } catch (const ragged::shape_error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 5) {
    case 0:
      parse_as<std::int64_t>(text);
      break;
    case 1:
      parse_as<double>(text);
      break;
    case 2:
      parse_as<std::string>(text);
      break;
    case 3:
      parse_as<bool>(text);
      break;
    default:
      parse_as<std::int8_t>(text);
      break;
  }
  return 0;
}
