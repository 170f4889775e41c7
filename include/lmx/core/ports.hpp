// Port sets as bit registers over ports 0..capacity-1 (paper, Section 4: "linear registers of
// length Delta, where port l is in set X iff the l-th bit of register X is true").
#pragma once

#include <bit>
#include <cstdint>
#include <type_traits>

namespace lmx::core {

/// A port label: 0 is the node itself, 1..Delta its neighbours (paper, Section 3.1).
using Port = std::uint8_t;
inline constexpr Port self_port = 0;
/// The value bottom of `lock` (paper, Table 1).
inline constexpr Port no_port = 0xFF;

template <class Word>
class PortSet {
  static_assert(std::is_unsigned_v<Word>, "registers are unsigned words");

 public:
  using word_type = Word;
  /// Ports 0..capacity-1 fit; Delta <= capacity - 1.
  static constexpr unsigned capacity = sizeof(Word) * 8;

  constexpr PortSet() = default;
  constexpr explicit PortSet(Word bits) : bits_(bits) {}
  static constexpr PortSet of(Port p) { return PortSet(static_cast<Word>(Word{1} << p)); }
  /// Ports first..last inclusive.
  static constexpr PortSet range(Port first, Port last) {
    PortSet s;
    for (unsigned p = first; p <= last; ++p) s.insert(static_cast<Port>(p));
    return s;
  }

  [[nodiscard]] constexpr Word bits() const { return bits_; }
  [[nodiscard]] constexpr bool contains(Port p) const { return p < capacity && ((bits_ >> p) & Word{1}) != 0; }
  [[nodiscard]] constexpr bool empty() const { return bits_ == 0; }
  /// |X|. Inline SWAR popcount unless the target has a popcount instruction: without one, GCC
  /// calls a library routine, which dominated the cost of CheckPriorities and CheckWin.
  [[nodiscard]] constexpr unsigned size() const {
#if defined(__POPCNT__) || !(defined(__x86_64__) || defined(__i386__))
    return static_cast<unsigned>(std::popcount(bits_));
#else
    std::uint64_t x = bits_;
    x -= (x >> 1) & 0x5555555555555555ull;
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
    return static_cast<unsigned>((x * 0x0101010101010101ull) >> 56);
#endif
  }
  /// |X| = 1 (std::has_single_bit is a popcount in libstdc++, which has the cost noted above).
  [[nodiscard]] constexpr bool single() const { return bits_ != 0 && (bits_ & (bits_ - 1)) == 0; }
  constexpr void insert(Port p) { bits_ = static_cast<Word>(bits_ | (Word{1} << p)); }
  constexpr void erase(Port p) { bits_ = static_cast<Word>(bits_ & ~(Word{1} << p)); }
  constexpr void clear() { bits_ = 0; }
  /// Lowest port in the set; the set must not be empty.
  [[nodiscard]] constexpr Port first() const { return static_cast<Port>(std::countr_zero(bits_)); }

  constexpr PortSet operator|(PortSet o) const { return PortSet(static_cast<Word>(bits_ | o.bits_)); }
  constexpr PortSet operator&(PortSet o) const { return PortSet(static_cast<Word>(bits_ & o.bits_)); }
  /// Set difference.
  constexpr PortSet operator-(PortSet o) const { return PortSet(static_cast<Word>(bits_ & ~o.bits_)); }
  constexpr PortSet& operator|=(PortSet o) { return *this = *this | o; }
  constexpr PortSet& operator&=(PortSet o) { return *this = *this & o; }
  constexpr PortSet& operator-=(PortSet o) { return *this = *this - o; }
  constexpr bool operator==(const PortSet&) const = default;

  class iterator {
   public:
    constexpr explicit iterator(Word rest) : rest_(rest) {}
    constexpr Port operator*() const { return static_cast<Port>(std::countr_zero(rest_)); }
    constexpr iterator& operator++() {
      rest_ = static_cast<Word>(rest_ & (rest_ - 1));
      return *this;
    }
    constexpr bool operator==(const iterator&) const = default;

   private:
    Word rest_;
  };
  [[nodiscard]] constexpr iterator begin() const { return iterator(bits_); }
  [[nodiscard]] constexpr iterator end() const { return iterator(0); }

 private:
  Word bits_ = 0;
};

}  // namespace lmx::core
