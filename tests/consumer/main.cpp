// A downstream program: uses the library by #include only.
#include <ragged/ragged.hpp>

#include <iostream>

int main() {
  const auto data = ragged::constant<int>({{1, 2, 3}, {4}, {5, 6}});
  const auto mask = ragged::constant<bool>({{false, false, true}, {false}, {true, true}});
  const auto out = ragged::to_string(ragged::boolean_mask(data, mask));
  std::cout << out << " (ragged " << ragged::version_string << ")\n";
  return out == "[[3], [], [5, 6]]" ? 0 : 1;
}
