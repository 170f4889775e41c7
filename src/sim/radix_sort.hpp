// A least-significant-digit radix sort, for the engine's per-round sorts of node numbers (the
// calendar's buckets, mobility's new pairs): stable, and linear in the elements where std::sort
// was a few percent of a round at 10^6 nodes.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

namespace lmx::sim {

/// Sorts data[0, size) stably by key(element), an unsigned whose bits at `bits` and above do not
/// matter, one pass per DigitBits-bit digit; `scratch` holds at least `size` elements.
template <unsigned DigitBits, class T, class Key>
void radix_sort(T* data, T* scratch, std::size_t size, unsigned bits, Key&& key) {
  constexpr std::uint64_t mask = (std::uint64_t{1} << DigitBits) - 1;
  T* from = data;
  T* to = scratch;
  for (unsigned shift = 0; shift < bits; shift += DigitBits) {
    std::array<std::uint32_t, std::size_t{1} << DigitBits> count{};
    for (std::size_t i = 0; i < size; ++i) ++count[(std::uint64_t{key(from[i])} >> shift) & mask];
    std::uint32_t sum = 0;
    for (auto& c : count) {
      const std::uint32_t here = c;
      c = sum, sum += here;
    }
    for (std::size_t i = 0; i < size; ++i) to[count[(std::uint64_t{key(from[i])} >> shift) & mask]++] = from[i];
    std::swap(from, to);
  }
  if (from != data) std::copy(from, from + size, data);
}

}  // namespace lmx::sim
