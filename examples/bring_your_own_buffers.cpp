// Data in your own buffers, masked where it lies: the README's "Bring your own
// buffers" section, as a program.
#include <ragged/ragged.hpp>

#include <cstdint>
#include <iostream>
#include <span>
#include <vector>

int main() {
  std::vector<float> values{1.5f, 0.2f, 3.0f, 0.1f, 2.5f};
  std::vector<std::int64_t> splits{0, 3, 3, 5};
  std::vector<std::uint8_t> keep{1, 0, 1, 0, 255};  // NumPy-style bytes: 0 = drop

  // No copy: a view of the values and splits, and the bytes as a mask.
  auto data = ragged::RaggedTensorView<const float>::from_row_splits(
      ragged::TensorView<const float>{std::span<const float>(values)}, splits);
  auto mask =
      ragged::RaggedTensorView<const bool>::from_row_splits(ragged::byte_mask(keep), splits);

  ragged::RaggedTensor<float> out;           // reused across calls: no allocation once large enough
  ragged::boolean_mask_to(out, data, mask);  // tf.ragged.boolean_mask
  std::cout << out << '\n';                  // [[1.5, 3.0], [], [2.5]]

  // tf.boolean_mask straight into your own memory: returns the view of what it wrote.
  std::vector<float> dest(values.size());
  auto kept = ragged::boolean_mask_to(
      ragged::TensorView<float>{std::span<float>(dest)},
      ragged::TensorView<const float>{std::span<const float>(values)}, ragged::byte_mask(keep), 0);
  std::cout << kept.size() << " values: " << dest[0] << ' ' << dest[1] << ' ' << dest[2] << '\n';
}
