// A node's channel records and the mask of the messages it may receive now (the delivery
// adversary's candidates). Internal to lmx::sim; tests/sim/channel_test.cpp includes it to compare
// the vector form of the mask with the portable one.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace lmx::sim {

/// Messages per directed channel stored inline; Theorem 1 bounds the messages along an edge by 2.
constexpr unsigned inline_slots = 2;

/// One directed channel (the messages waiting at a node's port), in one 8-byte record so that a
/// send touches one cache line. Send times are kept modulo 2^16 ticks: a message is receivable when
/// its age is not 0 modulo 2^16 (a message that waited exactly a multiple of 2^16 ticks waits one
/// more tick, a delay the adversary may impose anyway), and ages order `oldest` delivery.
struct Channel {
  std::uint16_t stamp[inline_slots];
  std::uint8_t count;
  std::uint8_t byte[inline_slots];
  /// The messages this node sent on this port that still wait in the neighbour's channel (that
  /// channel's `count`, mirrored at the sender). P4 counts the messages along an edge at each
  /// send; with this copy the sender finds both halves in its own record, and the write into the
  /// receiver's channel may wait (deferred writes, in the engine).
  std::uint8_t outgoing;
};
static_assert(sizeof(Channel) == 8);

/// The receivable inline messages of `ports` consecutive channel records (ports 0..ports-1 of one
/// node), as a mask with bit port * inline_slots + slot: a slot is a candidate if it is occupied
/// and its message was not stamped `now` (sent by an execution that did not start earlier).
/// Requires ports * inline_slots <= 64 and every count <= inline_slots.
[[nodiscard]] inline std::uint64_t receivable_mask_portable(const Channel* ch, unsigned ports, std::uint16_t now) {
  static_assert(inline_slots == 2);
  std::uint64_t mask = 0;
  for (unsigned p = 0; p < ports; ++p) {
    const unsigned count = ch[p].count;
    const std::uint64_t bits = std::uint64_t(unsigned(count > 0) & unsigned(ch[p].stamp[0] != now)) |
                               std::uint64_t(unsigned(count > 1) & unsigned(ch[p].stamp[1] != now)) << 1;
    mask |= bits << (inline_slots * p);
  }
  return mask;
}

#if defined(__SSE2__)
/// The same mask, two records per 16-byte load: about a quarter of the portable form's
/// instructions, which collecting the candidates of every activation spent most of its time in.
[[nodiscard, gnu::always_inline]] inline std::uint64_t receivable_mask_sse2(const Channel* ch, unsigned ports,
                                                                            std::uint16_t now) {
  static_assert(inline_slots == 2);
  // As 16-bit lanes, a pair of records is: stamp0, stamp1, count | byte0 << 8, byte1 | outgoing << 8,
  // and the same for the second record in lanes 4..7.
  const __m128i now_lanes = _mm_set1_epi16(static_cast<short>(now));
  const __m128i low_byte = _mm_set1_epi16(0x00FF);
  // Slot 0 needs count > 0, slot 1 count > 1; lanes 2, 3, 6, 7 never pass (a count is below 255).
  const __m128i need = _mm_setr_epi16(0, 1, 255, 255, 0, 1, 255, 255);
  // A pair's candidate lanes (slot 0 and 1 of each record, all ones where receivable).
  auto pair_ok = [&](unsigned p) {
    const __m128i pair = _mm_loadu_si128(reinterpret_cast<const __m128i*>(ch + p));
    const __m128i stamped_now = _mm_cmpeq_epi16(pair, now_lanes);
    // Each record's count word into all four of its lanes.
    const __m128i counts = _mm_and_si128(_mm_shufflehi_epi16(_mm_shufflelo_epi16(pair, 0xAA), 0xAA), low_byte);
    return _mm_andnot_si128(stamped_now, _mm_cmpgt_epi16(counts, need));
  };
  std::uint64_t mask = 0;
  unsigned p = 0;
  for (; p + 4 <= ports; p += 4) {
    // Two pairs per movemask: bytes 0, 1, 4, 5, 8, 9, 12, 13 of the packed lanes are the four
    // records' slots; the shifts below gather those 8 bits.
    auto bits = static_cast<unsigned>(_mm_movemask_epi8(_mm_packs_epi16(pair_ok(p), pair_ok(p + 2))));
    bits &= 0x3333u;
    bits = (bits | (bits >> 2)) & 0x0F0Fu;
    bits = (bits | (bits >> 4)) & 0x00FFu;
    mask |= std::uint64_t{bits} << (inline_slots * p);
  }
  if (p + 2 <= ports) {
    const auto bits = static_cast<unsigned>(_mm_movemask_epi8(_mm_packs_epi16(pair_ok(p), pair_ok(p))));
    mask |= std::uint64_t((bits & 3u) | ((bits >> 2) & 0xCu)) << (inline_slots * p);
    p += 2;
  }
  if (p < ports) mask |= receivable_mask_portable(ch + p, 1, now) << (inline_slots * p);
  return mask;
}
#endif

[[nodiscard, gnu::always_inline]] inline std::uint64_t receivable_mask(const Channel* ch, unsigned ports,
                                                                       std::uint16_t now) {
#if defined(__SSE2__)
  return receivable_mask_sse2(ch, ports, now);
#else
  return receivable_mask_portable(ch, ports, now);
#endif
}

/// The position of the i-th (0-based) set bit of x; requires i < popcount(x). Without branches
/// (the adversary's pick is random, and a loop over the set bits mispredicted its exit on most
/// deliveries): per-byte counts and their prefix sums in one word, the byte that holds the bit
/// found by comparing every prefix with i at once, then a table for the bit within that byte.
[[nodiscard, gnu::always_inline]] inline unsigned nth_set_bit(std::uint64_t x, unsigned i) {
  static constexpr auto in_byte = [] {
    std::array<std::array<std::uint8_t, 8>, 256> table{};
    for (unsigned b = 0; b < 256; ++b)
      for (unsigned bit = 0, seen = 0; bit < 8; ++bit)
        if ((b >> bit) & 1u) table[b][seen++] = static_cast<std::uint8_t>(bit);
    return table;
  }();
  constexpr std::uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
  std::uint64_t counts = x - ((x >> 1) & 0x5555555555555555ull);
  counts = (counts & 0x3333333333333333ull) + ((counts >> 2) & 0x3333333333333333ull);
  counts = (counts + (counts >> 4)) & 0x0F0F0F0F0F0F0F0Full;
  const std::uint64_t prefix = counts * ones;  // byte j: the set bits in bytes 0..j (at most 64)
  // High bit of byte j set iff prefix_j <= i: the bytes wholly before the one that holds the bit.
  const std::uint64_t before = ((std::uint64_t{i} * ones | highs) - prefix) & highs;
  const auto byte = static_cast<unsigned>(((before >> 7) * ones) >> 56);
  const auto skipped = static_cast<unsigned>(((prefix << 8) >> (8 * byte)) & 0xFF);
  return 8 * byte + in_byte[(x >> (8 * byte)) & 0xFF][i - skipped];
}

/// receivable_mask for a port count fixed at compile time: the loop unrolls, with constant
/// shifts (at Delta = 8 a third fewer instructions per activation than the runtime count).
template <unsigned Ports>
[[nodiscard]] std::uint64_t receivable_mask_of(const Channel* ch, std::uint16_t now) {
  return receivable_mask(ch, Ports, now);
}
using ReceivableMask = std::uint64_t (*)(const Channel*, std::uint16_t);

/// The receivable_mask_of for `ports` (1..32) consecutive channel records.
[[nodiscard]] inline ReceivableMask receivable_mask_for(unsigned ports) {
  static constexpr auto table = []<unsigned... I>(std::integer_sequence<unsigned, I...>) {
    return std::array<ReceivableMask, sizeof...(I)>{&receivable_mask_of<I + 1>...};
  }
  (std::make_integer_sequence<unsigned, 32>{});
  if (ports < 1 || ports > table.size()) throw std::invalid_argument("receivable_mask_for: ports must be 1..32");
  return table[ports - 1];
}

}  // namespace lmx::sim
