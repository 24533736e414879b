// SPDX-License-Identifier: Apache-2.0
// The one way the library's own code builds tensors from parts it made itself:
// a Tensor adopting a buffer, a RaggedTensor from splits that are valid by
// construction, and a result's buffers taken apart to be refilled (their
// capacity reused). Users never name it; the classes' public surface stays
// what it promises (validated factories, no raw buffers).
#pragma once

#include <utility>

#include "../shape.hpp"
#include "buffer.hpp"

namespace ragged {
inline namespace v0_1 {
namespace detail {

struct builder {
  // A tensor that adopts `values` (values.size() == shape.num_elements()).
  template <class Tensor, class T>
  [[nodiscard]] static Tensor tensor(Shape shape, Buffer<T>&& values) {
    return Tensor(std::move(shape), std::move(values));
  }
  // `t` resized for an output that is about to be overwritten, keeping capacity.
  template <class Tensor>
  static void reset_for_overwrite(Tensor& t, Shape&& shape) {
    t.values_.resize_for_overwrite(static_cast<std::size_t>(shape.num_elements()));
    t.shape_ = std::move(shape);
  }
  // A RaggedTensor of splits the library built itself: valid by construction.
  template <class Ragged, class Flat, class Splits>
  [[nodiscard]] static Ragged ragged(Flat&& flat, Splits&& splits) {
    Ragged rt(std::forward<Flat>(flat), std::forward<Splits>(splits));
    rt.validated_ = true;
    return rt;
  }
  // The parts of `rt`, moved out to be refilled and put back with ragged();
  // `rt` is left empty.
  template <class Ragged>
  [[nodiscard]] static auto take_apart(Ragged& rt) noexcept {
    auto parts = std::pair{std::move(rt.flat_values_), std::move(rt.splits_)};
    rt = Ragged();
    return parts;
  }
};

}  // namespace detail
}  // namespace v0_1
}  // namespace ragged
