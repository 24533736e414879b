// The examples of TensorFlow's documentation of tf.ragged.boolean_mask and
// tf.boolean_mask, with ragged.
#include <ragged/ragged.hpp>

#include <iostream>

int main() {
  constexpr bool T = true, F = false;

  // tf.ragged.boolean_mask keeps the mask's dimensions.
  // Mask a 2D Tensor.
  std::cout << ragged::boolean_mask(ragged::tensor<int>({{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}),
                                    ragged::tensor<bool>({{T, F, T}, {F, F, F}, {T, F, F}}))
            << '\n';  // [[1, 3], [], [7]]
  // Mask a 2D RaggedTensor.
  std::cout << ragged::boolean_mask(ragged::constant<int>({{1, 2, 3}, {4}, {5, 6}}),
                                    ragged::constant<bool>({{F, F, T}, {F}, {T, T}}))
            << '\n';  // [[3], [], [5, 6]]
  // Mask rows of a 2D RaggedTensor.
  std::cout << ragged::boolean_mask(ragged::constant<int>({{1, 2, 3}, {4}, {5, 6}}),
                                    ragged::constant<bool>({T, F, T}))
            << '\n';  // [[1, 2, 3], [5, 6]]

  // tf.boolean_mask flattens the masked dimensions (NumPy's tensor[mask]).
  // 1-D example.
  std::cout << ragged::boolean_mask(ragged::tensor<int>({0, 1, 2, 3}),
                                    ragged::tensor<bool>({T, F, T, F}), 0)
            << '\n';  // [0, 2]
  // 2-D example.
  std::cout << ragged::boolean_mask(ragged::tensor<int>({{1, 2}, {3, 4}, {5, 6}}),
                                    ragged::tensor<bool>({T, F, T}), 0)
            << '\n';  // [[1, 2], [5, 6]]
}
