// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace ragged {
inline namespace v0_1 {
namespace detail {

/// Tag: allocate without initialising trivially copyable elements (the caller
/// overwrites them all), as std::make_unique_for_overwrite.
struct for_overwrite_t {
  explicit for_overwrite_t() = default;
};
inline constexpr for_overwrite_t for_overwrite{};

// Buffers from this size up are 2 MiB aligned and advised into transparent huge
// pages: a fresh output that faults in 4 KiB pages costs many times the compaction
// itself on virtual machines (NumPy's allocator does the same).
inline constexpr std::size_t huge_page_bytes = std::size_t{2} << 20;
inline constexpr std::size_t cache_line_bytes = 64;

[[nodiscard]] constexpr std::size_t allocation_alignment(std::size_t bytes) noexcept {
  return bytes >= huge_page_bytes ? huge_page_bytes : cache_line_bytes;
}

[[nodiscard]] constexpr std::size_t allocation_bytes(std::size_t bytes) noexcept {
  const auto align = allocation_alignment(bytes);
  return (bytes + align - 1) / align * align;
}

// One freed large block, kept for the next large allocation: a result returned
// anew on every call (the fresh-result path) then reuses memory that is
// already mapped and on huge pages instead of faulting in new pages, which
// on virtual machines costs several times the compaction itself. Blocks from
// 2 MiB to `max_cached_bytes` are kept, one per process; the block's first
// word holds its size while it waits. release_cached_memory() frees it.
inline constexpr std::size_t max_cached_bytes = std::size_t{1} << 30;
inline std::atomic<void*> cached_block{nullptr};

inline void free_block(void* p) noexcept {
  ::operator delete (p, std::align_val_t{huge_page_bytes});
}

[[nodiscard]] inline void* allocate_bytes(std::size_t bytes) {
  const auto align = allocation_alignment(bytes);
  const auto size = allocation_bytes(bytes);
  if (align == huge_page_bytes && size <= max_cached_bytes) {
    if (void* c = cached_block.exchange(nullptr, std::memory_order_acquire)) {
      std::size_t have = 0;
      std::memcpy(&have, c, sizeof have);
      // Reused when it fits without wasting more than half of it.
      if (have >= size && have / 2 <= size) return c;
      void* none = nullptr;
      if (!cached_block.compare_exchange_strong(none, c, std::memory_order_release)) free_block(c);
    }
  }
  void* p = ::operator new (size, std::align_val_t{align});
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (align == huge_page_bytes) (void)::madvise(p, size, MADV_HUGEPAGE);
#endif
  return p;
}

// `bytes` may be less than the block holds (a cached block reused for a
// smaller buffer): it is then cached as that size, which is safe.
inline void deallocate_bytes(void* p, std::size_t bytes) noexcept {
  if (!p) return;
  const auto align = allocation_alignment(bytes);
  const auto size = allocation_bytes(bytes);
  if (align == huge_page_bytes && size <= max_cached_bytes) {
    std::memcpy(p, &size, sizeof size);
    if (void* old = cached_block.exchange(p, std::memory_order_acq_rel)) free_block(old);
    return;
  }
  ::operator delete (p, std::align_val_t{align});
}

/// Contiguous storage for tensors: 64-byte aligned (2 MiB and huge pages when
/// large), capacity kept when shrunk so a reused result allocates nothing, and
/// trivially copyable elements left uninitialised when asked to. Not
/// std::vector: that would zero-fill outputs the kernel overwrites anyway, and
/// std::vector<bool> has no contiguous bytes.
template <class T>
class Buffer {
  static constexpr bool trivial = std::is_trivially_copyable_v<T>;

 public:
  using value_type = T;

  Buffer() noexcept = default;

  /// `n` value-initialised elements.
  explicit Buffer(std::size_t n) : Buffer(n, for_overwrite) {
    if constexpr (trivial) std::uninitialized_value_construct_n(data_, n);
  }

  /// `n` elements left uninitialised when T is trivially copyable.
  Buffer(std::size_t n, for_overwrite_t) {
    allocate(n);
    if constexpr (!trivial) construct_default(0, n);
    size_ = n;
  }

  Buffer(std::size_t n, const T& value) {
    allocate(n);
    guard g{this};
    std::uninitialized_fill_n(data_, n, value);
    size_ = n;
    g.release();
  }

  template <std::input_iterator It>
  Buffer(It first, It last) {
    const auto n = static_cast<std::size_t>(std::distance(first, last));
    allocate(n);
    guard g{this};
    std::uninitialized_copy_n(first, n, data_);
    size_ = n;
    g.release();
  }

  /// Adopts a std::vector's memory: no copy, no allocation. (The library's
  /// own results still use aligned, huge-page buffers.)
  explicit Buffer(std::vector<T>&& adopted) noexcept requires(!std::is_same_v<T, bool>)
      : adopted_(std::move(adopted)), owns_vector_(true) {
    data_ = adopted_.data();
    size_ = capacity_ = adopted_.size();
  }

  Buffer(const Buffer& other) : Buffer(other.begin(), other.end()) {}
  Buffer(Buffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)),
        capacity_(std::exchange(other.capacity_, 0)),
        adopted_(std::move(other.adopted_)),
        owns_vector_(std::exchange(other.owns_vector_, false)) {
    other.adopted_.clear();
  }
  Buffer& operator=(const Buffer& other) {
    if (this != &other) {
      Buffer copy(other);
      swap(copy);
    }
    return *this;
  }
  Buffer& operator=(Buffer&& other) noexcept {
    Buffer moved(std::move(other));
    swap(moved);
    return *this;
  }
  ~Buffer() { release(); }

  void swap(Buffer& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(capacity_, other.capacity_);
    adopted_.swap(other.adopted_);  // a vector's swap keeps its elements where they are
    std::swap(owns_vector_, other.owns_vector_);
  }

  /// Sets the size to `n`, keeping the allocation when it is large enough. Kept
  /// trivially copyable elements are not touched, new ones are uninitialised;
  /// non-trivial elements keep their values or are default-constructed.
  void resize_for_overwrite(std::size_t n) {
    if constexpr (!std::is_same_v<T, bool>) {
      if (adopted()) {
        resize_adopted(n);
        return;
      }
    }
    if (n > capacity_) {
      Buffer fresh(n, for_overwrite);
      if constexpr (!trivial) std::move(begin(), end(), fresh.data_);
      swap(fresh);
      return;
    }
    if constexpr (!trivial) {
      if (n > size_)
        construct_default(size_, n);
      else
        std::destroy(data_ + n, data_ + size_);
    }
    size_ = n;
  }

  [[nodiscard]] T* data() noexcept { return data_; }
  [[nodiscard]] const T* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] std::size_t capacity() const noexcept { return capacity_; }
  [[nodiscard]] T* begin() noexcept { return data_; }
  [[nodiscard]] T* end() noexcept { return data_ + size_; }
  [[nodiscard]] const T* begin() const noexcept { return data_; }
  [[nodiscard]] const T* end() const noexcept { return data_ + size_; }
  [[nodiscard]] T& operator[](std::size_t i) noexcept { return data_[i]; }
  [[nodiscard]] const T& operator[](std::size_t i) const noexcept { return data_[i]; }

 private:
  // The adopted vector owns its elements' lifetimes: it resizes them itself.
  void resize_adopted(std::size_t n) {
    if (n > adopted_.capacity()) {
      Buffer fresh(n, for_overwrite);
      std::move(begin(), begin() + static_cast<std::ptrdiff_t>(std::min(n, size_)), fresh.data_);
      swap(fresh);
      return;
    }
    adopted_.resize(n);
    data_ = adopted_.data();
    size_ = n;
    capacity_ = adopted_.capacity();
  }

  // Frees the allocation if construction of the elements throws.
  struct guard {
    Buffer* self;
    void release() noexcept { self = nullptr; }
    ~guard() {
      if (self) self->free_storage();
    }
  };

  void allocate(std::size_t n) {
    if (n == 0) return;
    if (n > std::size_t(-1) / sizeof(T) / 2) throw std::bad_array_new_length();
    data_ = static_cast<T*>(allocate_bytes(n * sizeof(T)));
    capacity_ = n;
  }
  void construct_default(std::size_t from, std::size_t to) {
    std::size_t i = from;
    try {
      for (; i < to; ++i) ::new (static_cast<void*>(data_ + i)) T();
    } catch (...) {
      std::destroy(data_ + from, data_ + i);
      if (from == 0) free_storage();
      throw;
    }
  }
  void free_storage() noexcept {
    deallocate_bytes(data_, capacity_ * sizeof(T));
    data_ = nullptr;
    capacity_ = 0;
  }
  void release() noexcept {
    if (adopted()) {
      adopted_ = decltype(adopted_)();
      owns_vector_ = false;
    } else {
      if constexpr (!trivial) std::destroy(data_, data_ + size_);
      free_storage();
    }
    data_ = nullptr;
    size_ = 0;
    capacity_ = 0;
  }
  [[nodiscard]] bool adopted() const noexcept { return owns_vector_; }

  T* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
  // The memory adopted from a std::vector, when there is one (never for bool,
  // whose vector packs bits; the element type only keeps the member well-formed).
  std::vector<std::conditional_t<std::is_same_v<T, bool>, unsigned char, T>> adopted_;
  bool owns_vector_ = false;  // whether data_ is adopted_'s
};

template <class T>
[[nodiscard]] bool operator==(const Buffer<T>& a, const Buffer<T>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

}  // namespace detail

/// Frees the one large block the library keeps after a result is destroyed
/// (for the next result, so that it needs no new pages; at most 1 GiB).
/// Results in use are not affected.
inline void release_cached_memory() noexcept {
  if (void* c = detail::cached_block.exchange(nullptr, std::memory_order_acquire))
    detail::free_block(c);
}
}  // namespace v0_1
}  // namespace ragged
