// How a state is packed (docs/checker.md, "The model explored"): the fields' widths, the bit writer
// and reader, and the per-record memo that packing and canonicalising share. Internal to the
// model's sources (model.cpp, symmetry.cpp); the functions on the hot path of the exploration are
// inline here so that both reach them without a call.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>

#include "model.hpp"

namespace lmx::check::detail {

// The packed state: the topology moves left, then per node its Table-1 registers without the
// priority planes that stay 0 (bits >= ceil(log2 K) of a priority < K), lock, state and phase, then
// D, persist, the Lock calls left, the links of ports 1..Delta and the bags of ports 0..Delta, each
// field in the fewest bits that hold every value it can take in the instance. Ports above Delta
// never hold anything, so dropping them loses no information; a value that does not fit its field
// stops the run with an error instead of being truncated, so equal packings mean equal states.
inline constexpr std::size_t planes_offset = offsetof(NState, priorities) + offsetof(core::Priorities<Word>, planes);
inline constexpr std::size_t tail_offset = offsetof(NState, lock_port);
static_assert(planes_offset + core::priority_planes == tail_offset && tail_offset + 3 == sizeof(NState),
              "NodeState layout: registers, planes, lock, state, phase");
inline constexpr unsigned state_bits = 3;  // six initiator states
inline constexpr unsigned phase_bits = 2;  // three participant phases

/// Bits to hold `values` distinct values (0..values-1).
inline unsigned bits_for(std::uint64_t values) {
  unsigned b = 0;
  while ((std::uint64_t{1} << b) < values) ++b;
  return b;
}

[[noreturn]] inline void does_not_fit() {
  throw std::logic_error("check: a state field does not fit its packed width");
}

/// The n bits at bit `pos` of a packed state (its fields one by one, least significant bit first).
inline std::uint32_t read_bits(const std::uint8_t* in, std::size_t pos, unsigned n) {
  std::uint32_t v = 0;
  unsigned done = 0;
  while (done < n) {
    const unsigned off = pos & 7, take = std::min(n - done, 8 - off);
    v |= ((static_cast<std::uint32_t>(in[pos >> 3]) >> off) & ((1u << take) - 1)) << done;
    done += take;
    pos += take;
  }
  return v;
}

/// Everything of one node except the peers of its links, with its ports renamed: what the
/// canonical form orders nodes and ports by. Equal keys and equal links mean equal nodes.
/// Compared as 64-bit words: the canonical member needs a fixed total order of keys, not a
/// lexicographic one, and the key's unused tail stays zero.
struct LocalKey {
  static constexpr std::size_t bytes = planes_offset + core::priority_planes + 8 + (max_delta + 1) * channel_capacity;
  static constexpr std::size_t words = (bytes + 7) / 8;
  std::array<std::uint8_t, words * 8> b{};
  /// -1, 0 or 1.
  [[nodiscard]] int compare(const LocalKey& o) const {
    for (std::size_t i = 0; i < words; ++i) {
      std::uint64_t x, y;
      std::memcpy(&x, b.data() + 8 * i, 8);
      std::memcpy(&y, o.b.data() + 8 * i, 8);
      if (x != y) return x < y ? -1 : 1;
    }
    return 0;
  }
};

/// One node record's share of canonicalising and packing a state (Model::canon_of): its smallest
/// local key and the port orders reaching it, and per port order its packed registers and other
/// fields; its bags' ranks per (old) port. Only the links depend on the other nodes.
struct NodeCanon {
  NodeRec rec{};  ///< the record this entry describes (the memo's key)
  bool filled = false;
  std::uint8_t tie_count = 0;
  std::array<std::uint8_t, 6> ties{};  ///< port orders (indices) reaching `best`
  LocalKey best;
  /// Per port order: the fields before the links (registers, priority planes in use, lock, state,
  /// phase, D, persist, Lock calls left) as they are packed, in two words.
  std::array<std::array<std::uint64_t, 2>, 6> front{};
  /// Per port order: the bags as they are packed, if they fit one word (Model::bags_fit_).
  std::array<std::uint64_t, 6> bags_packed{};
  std::array<std::uint32_t, max_delta + 1> bags{};  ///< per old port: the bag's rank
  /// With collapse, per port order: the numbers of the two records last packed at it, the latest
  /// first, each with its links (the one part not in the entry) as bits 32..47 and bit 63 set (0:
  /// none yet). Packing one of them again, as most successors do, then needs no lookup in the
  /// table of records (two ways: the canonical renaming and the identity often alternate). Mutable:
  /// a cache within the memo's cache.
  mutable std::array<std::array<std::uint64_t, 2>, 6> number{};
};

/// Writes fields of up to 32 bits one after another, least significant bit first, eight bytes at a
/// time; finish() writes the last bytes (the unused high bits of the last one zero). A value wider
/// than its field is noted, not tested field by field, and finish() stops the run with an error.
struct BitWriter {
  std::uint8_t* out;
  std::uint64_t acc = 0;
  unsigned n = 0;          ///< bits held in acc, under 64
  std::uint64_t wide = 0;  ///< nonzero if a value did not fit its field
  void put(std::uint32_t v, unsigned bits) {
    wide |= std::uint64_t{v} >> bits;
    acc |= std::uint64_t{v} << n;
    n += bits;
    if (n >= 64) {
      store(acc);
      out += 8;
      n -= 64;
      acc = std::uint64_t{v} >> (bits - n);  // the bits of v that did not fit in acc
    }
  }
  /// Writes the 64 bits of acc, least significant byte first.
  void store(std::uint64_t word) {
    if constexpr (std::endian::native == std::endian::little)
      std::memcpy(out, &word, 8);
    else
      for (unsigned i = 0; i < 8; ++i) out[i] = static_cast<std::uint8_t>(word >> (8 * i));
  }
  /// Up to 64 bits at once, already known to fit (fields checked when the memo entry was filled).
  void put_word(std::uint64_t v, unsigned bits) {
    acc |= v << n;
    const unsigned total = n + bits;
    if (total >= 64) {
      store(acc);
      out += 8;
      acc = n == 0 ? 0 : v >> (64 - n);  // the bits of v that did not fit in acc
      n = total - 64;
    } else {
      n = total;
    }
  }
  void finish() {
    if (wide != 0) does_not_fit();
    for (; n > 0; n = n > 8 ? n - 8 : 0) {
      *out++ = static_cast<std::uint8_t>(acc);
      acc >>= 8;
    }
  }
};

/// Reads what BitWriter wrote, never past `end`, the end of the bytes it wrote. Away from the end
/// (and on a little-endian machine) it takes as many whole bytes as fit in one 8-byte load.
struct BitReader {
  const std::uint8_t* in;
  const std::uint8_t* end;
  std::uint64_t acc = 0;
  unsigned n = 0;  ///< bits held in acc (the bits above them are 0)
  std::uint32_t get(unsigned bits) {
    if (n < bits) refill(bits);
    const auto v = static_cast<std::uint32_t>(acc & ((std::uint64_t{1} << bits) - 1));
    acc >>= bits;
    n -= bits;
    return v;
  }
  void refill(unsigned bits) {
    if (std::endian::native == std::endian::little && end - in >= 8) {
      std::uint64_t w = 0;
      std::memcpy(&w, in, 8);
      const unsigned take = (64 - n) / 8;  // whole bytes that fit above the n bits held
      acc |= w << n;
      n += 8 * take;
      in += take;
      if (n < 64) acc &= (std::uint64_t{1} << n) - 1;  // drop the part of a byte not taken
      return;
    }
    while (n < bits) {
      acc |= std::uint64_t{*in++} << n;
      n += 8;
    }
  }
};

/// A record as five 8-byte words, the last overlapping the fourth (memcmp of 39 bytes is a
/// library call).
using RecordWords = std::array<std::uint64_t, 5>;
static_assert(sizeof(NodeRec) > 32 && sizeof(NodeRec) <= 40);
inline RecordWords words_of(const NodeRec& a) {
  const auto* x = reinterpret_cast<const std::uint8_t*>(&a);
  RecordWords w;
  for (std::size_t i = 0; i < 4; ++i) std::memcpy(&w[i], x + 8 * i, 8);
  std::memcpy(&w[4], x + sizeof(NodeRec) - 8, 8);
  return w;
}
inline bool same_record(const NodeRec& a, const RecordWords& b) {
  const RecordWords w = words_of(a);
  std::uint64_t diff = 0;
  for (std::size_t i = 0; i < w.size(); ++i) diff |= w[i] ^ b[i];
  return diff == 0;
}

inline const NodeCanon& Model::canon_of(const NodeRec& a) const {
  const RecordWords w = words_of(a);
  // Independent products (no chain of multiplications), folded.
  std::uint64_t h = w[0] * 0x9E3779B97F4A7C15ull + w[1] * 0xC2B2AE3D27D4EB4Full + w[2] * 0x165667B19E3779F9ull +
                    w[3] * 0xD6E8FEB86659FD93ull + w[4] * 0xFF51AFD7ED558CCDull;
  h ^= h >> 29;
  h *= 0x94D049BB133111EBull;
  h ^= h >> 32;
  NodeCanon& c = memo_[h & (memo_.size() - 1)];
  if (!c.filled || !same_record(c.rec, w)) fill(c, a);
  return c;
}

inline std::uint32_t Model::link_code(std::uint8_t lk, const Renaming& r) const {
  if (lk == no_link) return 0;
  const unsigned peer_port = lk & 15;
  if (peer_port < 1 || peer_port > inst_.delta) does_not_fit();
  return 1 + r.node[lk >> 4] * inst_.delta + (r.port[lk >> 4][peer_port] - 1u);
}

// Packs node u of a state as it would be after renaming `r` (the identity for plain packing): the
// renaming is applied on the fly, so that canonicalising does not copy the state first. The
// fields but the links come from the record's memo entry `c`, at u's port order.
inline void Model::pack_node(const NodeRec& a, const NodeCanon& c, const Renaming& r, unsigned u,
                             BitWriter& writer) const {
  BitWriter w = writer;  // a local copy stays in registers (the caller's may alias the state)
  const unsigned delta = inst_.delta;
  const unsigned pi = r.port_order[u];
  const auto& from = port_inverse_[pi];  // from[new port] = old port
  w.put_word(c.front[pi][0], std::min(front_bits_, 64u));
  if (front_bits_ > 64) w.put_word(c.front[pi][1], front_bits_ - 64);
  for (unsigned q = 1; q <= delta; ++q) w.put(link_code(a.link[from[q] - 1], r), link_bits_);
  if (bags_fit_)
    w.put_word(c.bags_packed[pi], (delta + 1) * bag_bits_);
  else
    for (unsigned q = 0; q <= delta; ++q) w.put(c.bags[from[q]], bag_bits_);
  writer = w;
}

inline void Model::put_node(const NodeRec& a, const NodeCanon& c, const Renaming& r, unsigned u, BitWriter& w) const {
  if (!collapse_) {
    pack_node(a, c, r, u, w);
    return;
  }
  const unsigned pi = r.port_order[u];
  const auto& from = port_inverse_[pi];  // from[new port] = old port
  std::uint64_t links = 0;               // the links as pack_node packs them: at most 3 * 4 bits
  for (unsigned q = 1; q <= inst_.delta; ++q)
    links |= std::uint64_t{link_code(a.link[from[q] - 1], r)} << ((q - 1) * link_bits_);
  const std::uint64_t key = std::uint64_t{1} << 63 | links << 32;
  auto& ways = c.number[pi];
  constexpr std::uint64_t id_mask = 0xFFFFFFFF;
  if ((ways[1] & ~id_mask) == key) std::swap(ways[0], ways[1]);
  if ((ways[0] & ~id_mask) != key) {
    std::array<std::uint8_t, max_stride> rec;  // BitWriter writes each of its node_bytes_ bytes
    BitWriter nw{rec.data()};
    pack_node(a, c, r, u, nw);
    nw.finish();
    ways[1] = ways[0];
    ways[0] = key | records_.intern(rec.data());
  }
  w.put(static_cast<std::uint32_t>(ways[0] & id_mask), id_bits_);
}

}  // namespace lmx::check::detail
