// Must not compile: a std::vector<bool> packs bits and is no tensor; the
// error names the adaptors to use.
#include <ragged/boolean_mask.hpp>

#include <vector>

int main() {
  const auto data = ragged::Tensor<int>(ragged::Shape{3}, {1, 2, 3});
  const std::vector<bool> mask{true, false, true};
  ragged::boolean_mask(data, mask);
}
