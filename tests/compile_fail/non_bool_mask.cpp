// Must not compile: tf.boolean_mask rejects a non-boolean mask, and so do we.
#include <ragged/boolean_mask.hpp>

int main() {
  const auto data = ragged::Tensor<int>(ragged::Shape{3}, {1, 2, 3});
  const auto mask = ragged::Tensor<int>(ragged::Shape{3}, {1, 0, 1});
  (void)ragged::boolean_mask(data, mask);
}
