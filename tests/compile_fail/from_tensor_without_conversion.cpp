// Must not compile: RaggedTensor::from_tensor runs the kernel, so it is defined
// in <ragged/conversion.hpp>; the error says to include it.
#include <ragged/ragged_tensor.hpp>

int main() {
  const auto dense = ragged::Tensor<int>(ragged::Shape{2, 2}, {1, 2, 3, 4});
  (void)ragged::RaggedTensor<int>::from_tensor(dense);
}
