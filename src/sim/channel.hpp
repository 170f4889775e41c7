// A node's channel records and the mask of the messages it may receive now (the delivery
// adversary's candidates). Internal to lmx::sim; tests/sim/channel_test.cpp includes it to compare
// the vector form of the mask with the portable one.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace lmx::sim {

/// Messages per directed channel stored inline; Theorem 1 bounds the messages along an edge by 2.
constexpr unsigned inline_slots = 2;
/// The most messages one directed channel holds (its count is 4 bits); P4 allows 2, and a run
/// whose channel would hold more stops with a P4 report.
constexpr unsigned max_channel_count = 15;

/// The directed channels of one node (the messages waiting at its ports 0..ports-1), in one record
/// of `stride()` bytes laid out field by field: every port's first slot's send tick, then every
/// port's second slot's, then the two slots' message bytes the same way, then one byte per port with
/// the channel's count in its low 4 bits and, in its high 4 bits, the count of the messages this
/// node sent on that port that still wait in the neighbour's channel (that channel's count, mirrored
/// at the sender: P4 counts the messages along an edge at each send, and with this copy the sender
/// finds both halves in its own record, so the write into the receiver's channel may wait; deferred
/// writes, in the network). At Delta = 8 the record is 63 bytes, one cache line a node (with 8-byte
/// records per channel it was 72 bytes, two lines for most nodes). Send times are kept modulo 2^16
/// ticks: a message is receivable when its age is not 0 modulo 2^16 (a message that waited exactly
/// a multiple of 2^16 ticks waits one more tick, a delay the adversary may impose anyway), and ages
/// order `oldest` delivery.
struct ChannelFields {
  unsigned ports;
  [[nodiscard]] constexpr std::size_t stamp(unsigned slot, unsigned p) const {
    return 2 * (std::size_t{slot} * ports + p);
  }
  [[nodiscard]] constexpr std::size_t byte(unsigned slot, unsigned p) const {
    return 4 * std::size_t{ports} + std::size_t{slot} * ports + p;
  }
  [[nodiscard]] constexpr std::size_t counts(unsigned p) const { return 6 * std::size_t{ports} + p; }
  /// Bytes per node: the 7 * ports of the fields, rounded up to 8.
  [[nodiscard]] constexpr std::size_t stride() const { return (7 * std::size_t{ports} + 7) / 8 * 8; }
};
static_assert(ChannelFields{9}.stride() == 64);

/// The counts byte's halves.
constexpr unsigned count_mask = 0x0F, outgoing_one = 0x10;

[[nodiscard, gnu::always_inline]] inline std::uint16_t load_stamp(const std::uint8_t* at) {
  std::uint16_t v;
  std::memcpy(&v, at, sizeof v);
  return v;
}
[[gnu::always_inline]] inline void store_stamp(std::uint8_t* at, std::uint16_t v) { std::memcpy(at, &v, sizeof v); }

/// Port p's two candidate bits (slot 0, slot 1) in a record laid out by f.
[[nodiscard, gnu::always_inline]] inline std::uint64_t receivable_port(const std::uint8_t* rec, ChannelFields f,
                                                                       unsigned p, std::uint16_t now) {
  const unsigned count = rec[f.counts(p)] & count_mask;
  return std::uint64_t(unsigned(count > 0) & unsigned(load_stamp(rec + f.stamp(0, p)) != now)) |
         std::uint64_t(unsigned(count > 1) & unsigned(load_stamp(rec + f.stamp(1, p)) != now)) << 1;
}

/// The receivable inline messages of one node's record (`ports` channels), as a mask with bit
/// port * inline_slots + slot: a slot is a candidate if it is occupied and its message was not
/// stamped `now` (sent by an execution that did not start earlier). Requires ports * inline_slots <=
/// 64 and every count <= inline_slots.
[[nodiscard]] inline std::uint64_t receivable_mask_portable(const std::uint8_t* rec, unsigned ports,
                                                            std::uint16_t now) {
  static_assert(inline_slots == 2);
  const ChannelFields f{ports};
  std::uint64_t mask = 0;
  for (unsigned p = 0; p < ports; ++p) mask |= receivable_port(rec, f, p, now) << (inline_slots * p);
  return mask;
}

/// Bits 0..7 of x at the even positions 0..14 and bits 8..15 at the odd ones 1..15 (slot 0's and
/// slot 1's candidates of eight ports into the mask's port-by-port order).
[[nodiscard, gnu::always_inline]] constexpr unsigned interleave_slots(unsigned x) {
  unsigned t = (x & 0xFFu) | (x & 0xFF00u) << 8;  // slot 0 in bits 0..7, slot 1 in bits 16..23
  t = (t | t << 4) & 0x0F0F0F0Fu;
  t = (t | t << 2) & 0x33333333u;
  t = (t | t << 1) & 0x55555555u;
  return (t & 0xFFFFu) | (t >> 15);
}

#if defined(__SSE2__)
/// The candidates of ports p..p+Lanes-1 (Lanes 4 or 8, all below `ports`) in the mask's order,
/// from three loads: the two slots' stamps and the counts.
template <unsigned Lanes>
[[nodiscard, gnu::always_inline]] inline unsigned receivable_lanes(const std::uint8_t* rec, unsigned ports, unsigned p,
                                                                   __m128i now_lanes) {
  static_assert(Lanes == 4 || Lanes == 8);
  const ChannelFields f{ports};
  auto load = [](const std::uint8_t* at, unsigned bytes) {
    if (bytes == 16) return _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
    if (bytes == 8) return _mm_loadl_epi64(reinterpret_cast<const __m128i*>(at));
    std::uint32_t v;
    std::memcpy(&v, at, sizeof v);
    return _mm_cvtsi32_si128(static_cast<int>(v));
  };
  const __m128i stamps0 = load(rec + f.stamp(0, p), 2 * Lanes), stamps1 = load(rec + f.stamp(1, p), 2 * Lanes);
  // The counts as 16-bit lanes, their high halves (the sender's copies) cleared; lanes past Lanes
  // are 0, so they never pass.
  const __m128i counts =
      _mm_and_si128(_mm_unpacklo_epi8(load(rec + f.counts(p), Lanes), _mm_setzero_si128()), _mm_set1_epi16(count_mask));
  const __m128i slot0 =
      _mm_andnot_si128(_mm_cmpeq_epi16(stamps0, now_lanes), _mm_cmpgt_epi16(counts, _mm_setzero_si128()));
  const __m128i slot1 =
      _mm_andnot_si128(_mm_cmpeq_epi16(stamps1, now_lanes), _mm_cmpgt_epi16(counts, _mm_set1_epi16(1)));
  // Slot 0's lanes in bits 0..7, slot 1's in bits 8..15.
  const auto bits = static_cast<unsigned>(_mm_movemask_epi8(_mm_packs_epi16(slot0, slot1)));
  return interleave_slots(Lanes == 8 ? bits : (bits & 0x0Fu) | (bits & 0x0F00u));
}

/// The same mask, eight ports (or four) per three loads: about a quarter of the portable form's
/// instructions, which collecting the candidates of every activation spent most of its time in.
[[nodiscard, gnu::always_inline]] inline std::uint64_t receivable_mask_sse2(const std::uint8_t* rec, unsigned ports,
                                                                            std::uint16_t now) {
  static_assert(inline_slots == 2);
  const __m128i now_lanes = _mm_set1_epi16(static_cast<short>(now));
  std::uint64_t mask = 0;
  unsigned p = 0;
  for (; p + 8 <= ports; p += 8)
    mask |= std::uint64_t{receivable_lanes<8>(rec, ports, p, now_lanes)} << (inline_slots * p);
  if (p + 4 <= ports) {
    mask |= std::uint64_t{receivable_lanes<4>(rec, ports, p, now_lanes)} << (inline_slots * p);
    p += 4;
  }
  // The last one to three ports, one at a time.
  for (; p < ports; ++p) mask |= receivable_port(rec, ChannelFields{ports}, p, now) << (inline_slots * p);
  return mask;
}
#endif

[[nodiscard, gnu::always_inline]] inline std::uint64_t receivable_mask(const std::uint8_t* rec, unsigned ports,
                                                                       std::uint16_t now) {
#if defined(__SSE2__)
  return receivable_mask_sse2(rec, ports, now);
#else
  return receivable_mask_portable(rec, ports, now);
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
[[nodiscard, gnu::always_inline]] inline std::uint64_t receivable_mask_of(const std::uint8_t* rec, std::uint16_t now) {
  return receivable_mask(rec, Ports, now);
}
using ReceivableMask = std::uint64_t (*)(const std::uint8_t*, std::uint16_t);

/// The receivable_mask_of for a record of `ports` (1..32) channels.
[[nodiscard]] inline ReceivableMask receivable_mask_for(unsigned ports) {
  static constexpr auto table = []<unsigned... I>(std::integer_sequence<unsigned, I...>) {
    return std::array<ReceivableMask, sizeof...(I)>{&receivable_mask_of<I + 1>...};
  }
  (std::make_integer_sequence<unsigned, 32>{});
  if (ports < 1 || ports > table.size()) throw std::invalid_argument("receivable_mask_for: ports must be 1..32");
  return table[ports - 1];
}

}  // namespace lmx::sim
