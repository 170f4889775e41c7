// Storage for the simulator's per-node and per-channel arrays. At 10^6 nodes these arrays span
// hundreds of MB and every message delivery touches a random one of their pages; with 4 KiB pages
// almost every such access also misses the TLB. Backing the arrays with 2 MiB (transparent huge)
// pages cuts the page walks, which the profile showed to be a large share of a send's cost.
// The allocator changes where the bytes live, never their values: runs stay deterministic.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace lmx::sim {

/// One part of the simulator's memory, named as in the summary's bytes_per_node_by_part.
struct MemoryPart {
  const char* name;
  std::size_t bytes;
};
[[nodiscard]] inline std::size_t total_bytes(const std::vector<MemoryPart>& parts) {
  std::size_t total = 0;
  for (const MemoryPart& part : parts) total += part.bytes;
  return total;
}

template <class T>
struct HugePageAllocator {
  using value_type = T;
  static constexpr std::size_t huge_page = std::size_t{2} << 20;
  static constexpr std::align_val_t line{64};

  HugePageAllocator() = default;
  template <class U>
  explicit HugePageAllocator(const HugePageAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    // Small arrays on cache-line boundaries too: a node's channel record is one line at Delta = 8.
    if (bytes < huge_page) return static_cast<T*>(::operator new(bytes, line));
    // Round up to whole huge pages so that the aligned allocation is valid and fully advisable.
    const std::size_t rounded = (bytes + huge_page - 1) / huge_page * huge_page;
    void* p = std::aligned_alloc(huge_page, rounded);
    if (p == nullptr) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    ::madvise(p, rounded, MADV_HUGEPAGE);  // a hint: without huge pages the run is only slower
#endif
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (n * sizeof(T) < huge_page)
      ::operator delete(p, line);
    else
      std::free(p);
  }
  template <class U>
  bool operator==(const HugePageAllocator<U>&) const noexcept {
    return true;
  }
};

/// A std::vector on huge pages (for arrays indexed by node or channel).
template <class T>
using BigArray = std::vector<T, HugePageAllocator<T>>;

}  // namespace lmx::sim
