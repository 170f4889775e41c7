#include "model.hpp"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <stdexcept>

namespace lmx::check::detail {

using core::InitiatorState;
using core::Message;
using core::Port;

// The packed state: the topology moves left, then per node its Table-1 registers without the
// priority planes that stay 0 (bits >= ceil(log2 K) of a priority < K), lock, state and phase, then
// D, persist, the Lock calls left, the links of ports 1..Delta and the bags of ports 0..Delta, each
// field in the fewest bits that hold every value it can take in the instance. Ports above Delta
// never hold anything, so dropping them loses no information; a value that does not fit its field
// stops the run with an error instead of being truncated, so equal packings mean equal states.
namespace {
constexpr std::size_t planes_offset = offsetof(NState, priorities) + offsetof(core::Priorities<Word>, planes);
constexpr std::size_t tail_offset = offsetof(NState, lock_port);
static_assert(planes_offset + core::priority_planes == tail_offset && tail_offset + 3 == sizeof(NState),
              "NodeState layout: registers, planes, lock, state, phase");
constexpr unsigned state_bits = 3;  // six initiator states
constexpr unsigned phase_bits = 2;  // three participant phases

/// Bits to hold `values` distinct values (0..values-1).
unsigned bits_for(std::uint64_t values) {
  unsigned b = 0;
  while ((std::uint64_t{1} << b) < values) ++b;
  return b;
}

[[noreturn]] void does_not_fit() { throw std::logic_error("check: a state field does not fit its packed width"); }

inline std::uint32_t get(const std::uint8_t* in, std::size_t pos, unsigned n) {
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

/// Dense message codes: the encoded byte + 1 (as the bags hold it) to 1..K+8, in the same order.
struct Codes {
  std::array<std::uint8_t, 256> dense{};
  std::array<std::uint8_t, 256> byte{};
  unsigned count = 0;
};
Codes make_codes(unsigned k) {
  Codes c;
  for (unsigned b = 1; b < 256; ++b)
    if (core::decode(static_cast<std::uint8_t>(b - 1), k).ok()) {
      c.dense[b] = static_cast<std::uint8_t>(++c.count);
      c.byte[c.count] = static_cast<std::uint8_t>(b);
    }
  return c;
}
}  // namespace

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

void RecordTable::reset(std::size_t bytes, std::size_t capacity) {
  bytes_ = bytes;
  capacity_ = capacity;
  count_ = 0;
  data_.clear();
  index_.assign(std::size_t{1} << 12, 0);
}

std::uint32_t RecordTable::intern(const std::uint8_t* rec) {
  const std::size_t mask = index_.size() - 1;
  for (std::size_t i = hash_bytes(rec, bytes_) & mask;; i = (i + 1) & mask) {
    const std::uint32_t e = index_[i];
    if (e == 0) break;
    if (std::memcmp(at(e - 1), rec, bytes_) == 0) return e - 1;
  }
  if (count_ == capacity_)
    throw std::length_error("check: more than " + std::to_string(capacity_) +
                            " distinct node records, the most a stored state can number; run with --no-collapse");
  data_.insert(data_.end(), rec, rec + bytes_);
  const auto id = static_cast<std::uint32_t>(count_++);
  if (count_ * 2 > index_.size()) {
    grow();  // places every record, the new one included
  } else {
    std::size_t i = hash_bytes(rec, bytes_) & mask;
    while (index_[i] != 0) i = (i + 1) & mask;
    index_[i] = id + 1;
  }
  return id;
}

void RecordTable::grow() {
  index_.assign(index_.size() * 2, 0);
  const std::size_t mask = index_.size() - 1;
  for (std::size_t id = 0; id < count_; ++id) {
    std::size_t i = hash_bytes(at(static_cast<std::uint32_t>(id)), bytes_) & mask;
    while (index_[i] != 0) i = (i + 1) & mask;
    index_[i] = static_cast<std::uint32_t>(id + 1);
  }
}

void Model::restore_node_records(const std::uint8_t* data, std::size_t count) const {
  if (records_.size() != 0) throw std::logic_error("check: node records restored into a used table");
  for (std::size_t i = 0; i < count; ++i)
    if (records_.intern(data + i * records_.record_bytes()) != i)
      throw std::runtime_error("check: a checkpoint's node records repeat");
}

Model::Model(const Instance& inst, std::size_t memo_slots, bool collapse)
    : inst_(inst), proto_(core::Config{inst.delta, inst.k, inst.variant}) {
  std::array<std::uint8_t, max_nodes> p{};
  const unsigned n = std::min(inst.nodes, max_nodes);
  for (unsigned i = 0; i < max_nodes; ++i) p[i] = static_cast<std::uint8_t>(i);
  do perms_.push_back(p);
  while (std::next_permutation(p.begin(), p.begin() + n));
  std::array<std::uint8_t, max_delta + 1> q{};
  for (unsigned i = 0; i <= max_delta; ++i) q[i] = static_cast<std::uint8_t>(i);
  do port_perms_.push_back(q);
  while (std::next_permutation(q.begin() + 1, q.begin() + 1 + std::min(inst.delta, max_delta)));
  for (const auto& pm : port_perms_) {
    std::array<std::uint8_t, 16> t{};
    for (unsigned m = 0; m < 16; ++m) {
      unsigned x = m & 1u;
      for (unsigned b = 1; b <= std::min(inst.delta, max_delta); ++b)
        if ((m >> b) & 1u) x |= 1u << pm[b];
      t[m] = static_cast<std::uint8_t>(x);
    }
    bit_perms_.push_back(t);
  }
  for (unsigned u = 0; u < max_nodes; ++u) {
    identity_.node[u] = static_cast<std::uint8_t>(u);
    identity_.port[u] = port_perms_.front();
  }
  while ((1u << planes_) < inst.k) ++planes_;
  const Codes codes = make_codes(inst.k);
  codes_ = codes.count;
  dense_ = codes.dense;
  byte_ = codes.byte;
  for (unsigned i = 0; i < binom_.size(); ++i) {
    binom_[i][0] = 1;
    for (unsigned r = 1; r <= channel_capacity; ++r)
      binom_[i][r] = i == 0 ? 0 : binom_[i - 1][r - 1] + binom_[i - 1][r];
  }
  reg_bits_ = inst.delta + 1;
  lock_bits_ = bits_for(inst.delta + 2);
  unbounded_locks_ = inst.locks == unbounded_locks;
  locks_bits_ = unbounded_locks_ ? 0 : bits_for(inst.locks + 1);
  link_bits_ = bits_for(1 + inst.nodes * inst.delta);
  bag_bits_ = bits_for(binom_[codes_ + channel_capacity][channel_capacity]);
  changes_bits_ = bits_for(inst.max_changes + 1);
  state_bit_ = static_cast<unsigned>(planes_offset + planes_) * reg_bits_ + lock_bits_;
  node_bits_ = state_bit_ + state_bits + phase_bits + 2 * reg_bits_ + locks_bits_ + inst.delta * link_bits_ +
               (inst.delta + 1) * bag_bits_;
  stride_ = (changes_bits_ + inst.nodes * node_bits_ + 7) / 8;
  if (stride_ > max_stride) throw std::logic_error("check: packed state wider than max_stride");
  // A record's number takes the bits of the last byte the minimum leaves spare, up to 32.
  const std::size_t id_stride = (changes_bits_ + inst.nodes * min_record_id_bits + 7) / 8;
  id_bits_ = std::min(32u, static_cast<unsigned>((8 * id_stride - changes_bits_) / inst.nodes));
  collapse_ = collapse && node_bits_ > id_bits_;
  if (collapse_) {
    stride_ = id_stride;
    node_bytes_ = (node_bits_ + 7) / 8;
    records_.reset(node_bytes_, id_bits_ == 32 ? std::size_t{UINT32_MAX} : std::size_t{1} << id_bits_);
  }
  front_bits_ = static_cast<unsigned>(planes_offset + planes_ + 2) * reg_bits_ + lock_bits_ + state_bits + phase_bits +
                locks_bits_;
  if (front_bits_ > 128) throw std::logic_error("check: node fields wider than their memo");
  bags_fit_ = (inst.delta + 1) * bag_bits_ <= 64;
  for (const auto& pm : port_perms_) {
    std::array<std::uint8_t, max_delta + 1> inverse{};
    for (unsigned port = 0; port <= max_delta; ++port) inverse[pm[port]] = static_cast<std::uint8_t>(port);
    port_inverse_.push_back(inverse);
  }
  if (memo_slots == 0 || (memo_slots & (memo_slots - 1)) != 0)
    throw std::invalid_argument("check: the node-record memo needs a power-of-two size");
  memo_.resize(memo_slots);
  // Every bag there is, by rank (C(K + 12, 4) of them: 1 820 for K = 4, 135 751 for K = 32).
  bags_by_rank_.resize(binom_[codes_ + channel_capacity][channel_capacity]);
  for (std::uint32_t rank = 0; rank < bags_by_rank_.size(); ++rank) bag_unrank(rank, bags_by_rank_[rank]);
}

Model::~Model() = default;

// A bag is a multiset of at most channel_capacity codes: as channel_capacity dense values
// x1 <= ... <= x4 in 0..codes (0 = empty slot) its rank in the combinatorial number system is
// sum C(x_i + i - 1, i), a bijection onto 0..C(codes + 4, 4) - 1.
std::uint32_t Model::bag_rank(const std::array<std::uint8_t, channel_capacity>& bag) const {
  if (bag[0] == 0) return 0;  // the empty bag (the common case)
  std::array<unsigned, channel_capacity> x{};
  unsigned filled = 0;
  for (auto c : bag)
    if (c != 0) ++filled;
  // sorted ascending: the empties (0) first, then the codes (already ascending in the bag)
  for (unsigned i = 0; i < filled; ++i) {
    const unsigned d = dense_[bag[i]];
    if (d == 0) does_not_fit();
    x[channel_capacity - filled + i] = d;
  }
  std::uint32_t r = 0;
  for (unsigned i = 0; i < channel_capacity; ++i) r += binom_[x[i] + i][i + 1];
  return r;
}

void Model::bag_unrank(std::uint32_t rank, std::array<std::uint8_t, channel_capacity>& bag) const {
  bag.fill(0);
  if (rank == 0) return;  // the empty bag
  std::array<unsigned, channel_capacity> x{};
  for (unsigned i = channel_capacity; i-- > 0;) {
    unsigned y = i;  // C(i, i + 1) = 0 <= rank
    while (binom_[y + 1][i + 1] <= rank) ++y;
    rank -= binom_[y][i + 1];
    x[i] = y - i;
  }
  unsigned j = 0;
  for (unsigned i = 0; i < channel_capacity; ++i)
    if (x[i] != 0) bag[j++] = byte_[x[i]];
}

Global Model::initial() const {
  Global g;
  g.changes_left = static_cast<std::uint8_t>(inst_.max_changes);
  for (unsigned u = 0; u < inst_.nodes; ++u) {
    g.n[u].locks_left = static_cast<std::uint8_t>(inst_.locks);
    g.n[u].link.fill(no_link);
  }
  for (auto [u, v] : inst_.edges) {
    auto free_port = [&](unsigned w) {
      for (unsigned p = 1; p <= inst_.delta; ++p)
        if (g.n[w].link[p - 1] == no_link) return p;
      return 0u;
    };
    const unsigned pu = free_port(u), pv = free_port(v);
    g.n[u].link[pu - 1] = static_cast<std::uint8_t>(v << 4 | pv);
    g.n[v].link[pv - 1] = static_cast<std::uint8_t>(u << 4 | pu);
  }
  return g;
}

// Fills c for record a: everything packing and canonicalising need of a node but its links'
// peers. The checks a field-by-field packing would make are made here, once per record.
void Model::fill(NodeCanon& c, const NodeRec& a) const {
  const unsigned delta = inst_.delta;
  for (unsigned b = planes_; b < core::priority_planes; ++b)
    if (a.s.priorities.planes[b] != 0) throw std::logic_error("check: a priority plane beyond ceil(log2 K) is set");
  const auto* regs = reinterpret_cast<const std::uint8_t*>(&a.s);
  std::uint8_t sets = static_cast<std::uint8_t>(a.d | a.persist);  // port sets: no port above Delta
  for (std::size_t i = 0; i < planes_offset + planes_; ++i) sets = static_cast<std::uint8_t>(sets | regs[i]);
  if ((sets >> (delta + 1)) != 0) does_not_fit();
  if (a.s.lock_port != core::no_port && a.s.lock_port > delta) does_not_fit();
  const auto state = static_cast<std::uint32_t>(a.s.state), phase = static_cast<std::uint32_t>(a.s.phase);
  if ((state >> state_bits) != 0 || (phase >> phase_bits) != 0 || (a.locks_left >> locks_bits_) != 0) does_not_fit();
  c.filled = false;  // until every check below has passed
  c.tie_count = 0;
  c.number.fill({});
  for (std::size_t pi = 0; pi < port_perms_.size(); ++pi) {
    const auto& pm = port_perms_[pi];
    const auto& bits = bit_perms_[pi];
    // The fields before the links, one after another from bit 0 of front[0] on (front_bits_ <= 128).
    const std::uint32_t lock = a.s.lock_port == core::no_port ? 0u : pm[a.s.lock_port] + 1u;
    std::array<std::uint64_t, 2> front{};
    unsigned at = 0;
    auto field = [&](std::uint64_t v, unsigned width) {
      front[at / 64] |= v << (at % 64);
      if (at % 64 + width > 64) front[1] |= v >> (64 - at % 64);
      at += width;
    };
    for (std::size_t i = 0; i < planes_offset + planes_; ++i) field(bits[regs[i] & 15u], reg_bits_);
    field(lock, lock_bits_);
    field(state, state_bits);
    field(phase, phase_bits);
    field(bits[a.d & 15u], reg_bits_);
    field(bits[a.persist & 15u], reg_bits_);
    field(a.locks_left, locks_bits_);
    c.front[pi] = front;

    // The local key at this port order, and whether it is the smallest so far.
    LocalKey key;
    auto& k = key.b;
    std::size_t i = 0;
    for (; i < planes_offset + planes_; ++i) k[i] = bits[regs[i] & 15u];
    k[i++] = a.s.lock_port == core::no_port ? 0xFF : pm[a.s.lock_port];
    k[i++] = static_cast<std::uint8_t>(a.s.state);
    k[i++] = static_cast<std::uint8_t>(a.s.phase);
    k[i++] = bits[a.d & 15u];
    k[i++] = bits[a.persist & 15u];
    k[i++] = a.locks_left;
    std::uint8_t linked = 0;
    for (unsigned q = 1; q <= delta; ++q)
      if (a.link[q - 1] != no_link) linked = static_cast<std::uint8_t>(linked | 1u << pm[q]);
    k[i++] = linked;
    std::memcpy(&k[i], a.chan[0].data(), channel_capacity);
    for (unsigned q = 1; q <= delta; ++q)
      std::memcpy(&k[i + pm[q] * channel_capacity], a.chan[q].data(), channel_capacity);
    const int order = pi == 0 ? -1 : key.compare(c.best);
    if (order < 0) {
      c.best = key;
      c.tie_count = 0;
    }
    // Port orders that agree on the linked ports give the same links: keep one of them (free
    // ports are interchangeable: their local keys are equal and they have no peer).
    bool same_links = false;
    for (unsigned t = 0; order == 0 && t < c.tie_count && !same_links; ++t) {
      same_links = true;
      for (unsigned q = 1; q <= delta; ++q)
        if (a.link[q - 1] != no_link && port_perms_[c.ties[t]][q] != pm[q]) same_links = false;
    }
    if (order <= 0 && !same_links) c.ties[c.tie_count++] = static_cast<std::uint8_t>(pi);
  }
  for (unsigned q = 0; q <= delta; ++q) {
    c.bags[q] = bag_rank(a.chan[q]);
    if ((std::uint64_t{c.bags[q]} >> bag_bits_) != 0) does_not_fit();
  }
  if (bags_fit_)
    for (std::size_t pi = 0; pi < port_perms_.size(); ++pi) {
      std::uint64_t packed = 0;
      for (unsigned q = 0; q <= delta; ++q) packed |= std::uint64_t{c.bags[port_inverse_[pi][q]]} << (q * bag_bits_);
      c.bags_packed[pi] = packed;
    }
  c.rec = a;
  c.filled = true;
}

namespace {
/// A record as five 8-byte words, the last overlapping the fourth (memcmp of 39 bytes is a
/// library call).
using RecordWords = std::array<std::uint64_t, 5>;
static_assert(sizeof(NodeRec) > 32 && sizeof(NodeRec) <= 40);
RecordWords words_of(const NodeRec& a) {
  const auto* x = reinterpret_cast<const std::uint8_t*>(&a);
  RecordWords w;
  for (std::size_t i = 0; i < 4; ++i) std::memcpy(&w[i], x + 8 * i, 8);
  std::memcpy(&w[4], x + sizeof(NodeRec) - 8, 8);
  return w;
}
bool same_record(const NodeRec& a, const RecordWords& b) {
  const RecordWords w = words_of(a);
  std::uint64_t diff = 0;
  for (std::size_t i = 0; i < w.size(); ++i) diff |= w[i] ^ b[i];
  return diff == 0;
}
}  // namespace

const NodeCanon& Model::canon_of(const NodeRec& a) const {
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

std::uint32_t Model::link_code(std::uint8_t lk, const Renaming& r) const {
  if (lk == no_link) return 0;
  const unsigned peer_port = lk & 15;
  if (peer_port < 1 || peer_port > inst_.delta) does_not_fit();
  return 1 + r.node[lk >> 4] * inst_.delta + (r.port[lk >> 4][peer_port] - 1u);
}

// Packs node u of a state as it would be after renaming `r` (the identity for plain packing): the
// renaming is applied on the fly, so that canonicalising does not copy the state first. The
// fields but the links come from the record's memo entry `c`, at u's port order.
void Model::pack_node(const NodeRec& a, const NodeCanon& c, const Renaming& r, unsigned u, BitWriter& writer) const {
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

void Model::unpack_node(BitReader& in, NodeRec& r) const {
  r = NodeRec{};
  r.link.fill(no_link);
  auto* s = reinterpret_cast<std::uint8_t*>(&r.s);
  for (std::size_t i = 0; i < planes_offset + planes_; ++i) s[i] = static_cast<std::uint8_t>(in.get(reg_bits_));
  const std::uint32_t lock = in.get(lock_bits_);
  r.s.lock_port = lock == 0 ? core::no_port : static_cast<core::Port>(lock - 1);
  r.s.state = static_cast<core::InitiatorState>(in.get(state_bits));
  r.s.phase = static_cast<core::ParticipantPhase>(in.get(phase_bits));
  r.d = static_cast<std::uint8_t>(in.get(reg_bits_));
  r.persist = static_cast<std::uint8_t>(in.get(reg_bits_));
  r.locks_left = static_cast<std::uint8_t>(in.get(locks_bits_));
  for (unsigned p = 0; p < inst_.delta; ++p) {
    const std::uint32_t lk = in.get(link_bits_);
    if (lk != 0) r.link[p] = static_cast<std::uint8_t>((lk - 1) / inst_.delta << 4 | ((lk - 1) % inst_.delta + 1));
  }
  for (unsigned p = 0; p <= inst_.delta; ++p) {
    const std::uint32_t rank = in.get(bag_bits_);
    if (rank < bags_by_rank_.size())
      r.chan[p] = bags_by_rank_[rank];
    else
      bag_unrank(rank, r.chan[p]);
  }
}

void Model::put_node(const NodeRec& a, const NodeCanon& c, const Renaming& r, unsigned u, BitWriter& w) const {
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

core::InitiatorState Model::packed_state(const std::uint8_t* in, unsigned u) const {
  if (collapse_)
    return static_cast<core::InitiatorState>(
        get(records_.at(get(in, changes_bits_ + std::size_t{u} * id_bits_, id_bits_)), state_bit_, state_bits));
  return static_cast<core::InitiatorState>(
      get(in, changes_bits_ + std::size_t{u} * node_bits_ + state_bit_, state_bits));
}

void Model::pack(const Global& g, std::uint8_t* out) const {
  BitWriter w{out};
  w.put(g.changes_left, changes_bits_);
  for (unsigned u = 0; u < inst_.nodes; ++u) put_node(g.n[u], canon_of(g.n[u]), identity_, u, w);
  w.finish();
}

void Model::unpack(const std::uint8_t* in, Global& g) const {
  BitReader rd{in, in + stride_};
  g.changes_left = static_cast<std::uint8_t>(rd.get(changes_bits_));
  for (unsigned u = 0; u < inst_.nodes; ++u) {
    if (!collapse_) {
      unpack_node(rd, g.n[u]);
      continue;
    }
    const std::uint8_t* rec = records_.at(rd.get(id_bits_));
    BitReader node{rec, rec + node_bytes_};
    unpack_node(node, g.n[u]);
  }
  for (unsigned u = inst_.nodes; u < max_nodes; ++u) {
    g.n[u] = NodeRec{};
  }
}

void Model::rename(const Global& g, const Renaming& r, Global& out) const {
  out = g;
  for (unsigned u = 0; u < inst_.nodes; ++u) {
    const NodeRec& a = g.n[u];
    NodeRec& b = out.n[r.node[u]];
    const auto& pm = r.port[u];
    b = a;
    const auto& bits = bit_perms_[r.port_order[u]];  // port sets hold ports 0..Delta <= 3: 4 bits
    const auto* from = reinterpret_cast<const std::uint8_t*>(&a.s);
    auto* to = reinterpret_cast<std::uint8_t*>(&b.s);
    for (std::size_t i = 0; i < planes_offset + core::priority_planes; ++i) to[i] = bits[from[i] & 15u];
    if (a.s.lock_port != core::no_port) b.s.lock_port = pm[a.s.lock_port];
    b.d = bits[a.d & 15u];
    b.persist = bits[a.persist & 15u];
    b.link.fill(no_link);
    for (unsigned q = 1; q <= inst_.delta; ++q) {
      b.chan[pm[q]] = a.chan[q];
      const std::uint8_t lk = a.link[q - 1];
      if (lk != no_link) b.link[pm[q] - 1] = static_cast<std::uint8_t>(r.node[lk >> 4] << 4 | r.port[lk >> 4][lk & 15]);
    }
  }
}

std::vector<Renaming> Model::group() const {
  std::vector<Renaming> all;
  std::size_t orders = 1;
  for (unsigned u = 0; u < inst_.nodes; ++u) orders *= port_perms_.size();
  for (const auto& perm : perms_)
    for (std::size_t c = 0; c < orders; ++c) {
      Renaming r;
      r.node = perm;
      std::size_t rest = c;
      for (unsigned u = 0; u < max_nodes; ++u) {
        r.port_order[u] = static_cast<std::uint8_t>(u < inst_.nodes ? rest % port_perms_.size() : 0);
        r.port[u] = port_perms_[r.port_order[u]];
        if (u < inst_.nodes) rest /= port_perms_.size();
      }
      all.push_back(r);
    }
  return all;
}

// The canonical member of an orbit is the one whose key (the nodes' local keys in node order,
// then every link as (peer, peer port)) is lexicographically smallest; the key determines the
// state, so the canonical member is unique. The smallest key starts with the local keys sorted,
// each node's at its best port order, so only node orders that sort the keys and port orders
// that reach a node's best key are tried for the links (usually one of each).
Renaming Model::canonical(const Global& g, std::uint8_t* out, bool* moved) const {
  const unsigned n = inst_.nodes;
  std::array<const NodeCanon*, max_nodes> entry{};
  bool evicted = false;
  for (unsigned u = 0; u < n; ++u) entry[u] = &canon_of(g.n[u]);
  for (unsigned u = 0; u < n; ++u) evicted = evicted || !same_record(entry[u]->rec, words_of(g.n[u]));
  if (evicted) [[unlikely]] {  // two records shared a memo entry: work on copies
    std::array<NodeCanon, max_nodes> own;
    for (unsigned u = 0; u < n; ++u) fill(own[u], g.n[u]), entry[u] = &own[u];
    return canonical_from(g, entry, out, moved);
  }
  return canonical_from(g, entry, out, moved);
}

Renaming Model::canonical_from(const Global& g, const std::array<const NodeCanon*, max_nodes>& entry, std::uint8_t* out,
                               bool* moved) const {
  const unsigned n = inst_.nodes, delta = inst_.delta;
  auto node = [&](unsigned u) -> const NodeCanon& { return *entry[u]; };
  Renaming chosen, r;
  // A node order sorts the local keys iff it puts each node within the block of nodes with its key:
  // at or after the `below` nodes with smaller keys, and before the `equal` ones with the same key.
  std::array<unsigned, max_nodes> below{}, equal{};
  for (unsigned u = 0; u < n; ++u)
    for (unsigned v = u + 1; v < n; ++v) {
      const int order = node(u).best.compare(node(v).best);
      if (order < 0) ++below[v];
      if (order > 0) ++below[u];
      if (order == 0) ++equal[u], ++equal[v];
    }
  bool single = true;  // one sorting node order and one port order per node: no links to compare
  for (unsigned u = 0; u < n; ++u) single = single && equal[u] == 0 && node(u).tie_count == 1;
  if (single) {
    for (unsigned u = 0; u < n; ++u) {
      chosen.node[u] = static_cast<std::uint8_t>(below[u]);
      chosen.port_order[u] = node(u).ties[0];
      chosen.port[u] = port_perms_[chosen.port_order[u]];
    }
    for (unsigned u = n; u < max_nodes; ++u) chosen.node[u] = static_cast<std::uint8_t>(u);  // as perms_ has them
  }
  bool have = false;
  std::array<std::uint8_t, max_nodes * max_delta> links{}, best_links{};
  std::array<unsigned, max_nodes> pick{};
  for (const auto& perm : perms_) {
    if (single) break;
    bool sorted = true;
    for (unsigned u = 0; u < n && sorted; ++u) sorted = perm[u] >= below[u] && perm[u] <= below[u] + equal[u];
    if (!sorted) continue;
    r.node = perm;
    pick.fill(0);
    for (;;) {  // every combination of tied port orders
      for (unsigned u = 0; u < n; ++u)
        r.port_order[u] = node(u).ties[pick[u]], r.port[u] = port_perms_[node(u).ties[pick[u]]];
      links.fill(0);
      for (unsigned u = 0; u < n; ++u)
        for (unsigned q = 1; q <= delta; ++q) {
          const std::uint8_t lk = g.n[u].link[q - 1];
          if (lk != no_link)
            links[perm[u] * max_delta + r.port[u][q] - 1] =
                static_cast<std::uint8_t>(1 + (r.node[lk >> 4] << 4 | r.port[lk >> 4][lk & 15]));
        }
      if (!have || std::memcmp(links.data(), best_links.data(), links.size()) < 0) {
        have = true;
        best_links = links;
        chosen = r;
      }
      unsigned u = 0;
      while (u < n && ++pick[u] == node(u).tie_count) pick[u++] = 0;
      if (u == n) break;
    }
  }
  // Pack the renamed state (nodes in their new order).
  std::array<std::uint8_t, max_nodes> old{};
  bool identity = true;
  for (unsigned u = 0; u < n; ++u) {
    old[chosen.node[u]] = static_cast<std::uint8_t>(u);
    identity = identity && chosen.node[u] == u && chosen.port_order[u] == 0;
  }
  BitWriter w{out};
  w.put(g.changes_left, changes_bits_);
  for (unsigned j = 0; j < n; ++j) put_node(g.n[old[j]], node(old[j]), chosen, old[j], w);
  w.finish();
  // g is its own canonical member iff the identity reaches the smallest key; it is then the first
  // candidate tried (the first node order, each node's port order 0 as its first tie) and only a
  // strictly smaller key replaces it. So no other renaming is chosen for a canonical g.
  if (moved != nullptr) *moved = !identity;
  return chosen;
}

namespace {
void bag_insert(std::array<std::uint8_t, channel_capacity>& bag, std::uint8_t code, bool& overflow) {
  if (bag[channel_capacity - 1] != 0) {
    overflow = true;
    return;
  }
  bag[channel_capacity - 1] = code;
  // keep non-empty codes sorted ascending, empties (0) last
  for (unsigned i = channel_capacity - 1; i > 0 && (bag[i - 1] == 0 || bag[i - 1] > bag[i]); --i)
    std::swap(bag[i - 1], bag[i]);
}
bool bag_remove(std::array<std::uint8_t, channel_capacity>& bag, std::uint8_t code) {
  for (unsigned i = 0; i < channel_capacity; ++i)
    if (bag[i] == code) {
      for (unsigned j = i; j + 1 < channel_capacity; ++j) bag[j] = bag[j + 1];
      bag[channel_capacity - 1] = 0;
      return true;
    }
  return false;
}
struct FixedDraw {
  unsigned value;
  bool called = false;
  unsigned operator()(unsigned bound) {
    called = true;
    return value % bound;
  }
};
}  // namespace

const char* problem_kind(Problem p) { return p == Problem::p3 ? "P3" : "internal"; }

std::string problem_text(const Outcome& o) {
  switch (o.problem) {
    case Problem::none: return {};
    case Problem::core_status:
      return "internal: core returned " + std::string(core::to_string(static_cast<core::Status>(o.status)));
    case Problem::port_sent_twice: return "internal: a port was sent two messages in one action";
    case Problem::priority_overwritten: return "internal: a second priority arrived from one port";
    case Problem::overflow:
      return "internal: more than " + std::to_string(channel_capacity) + " messages wait at one port";
    case Problem::p3:
      return "P3: Lock returned ports " + std::to_string(o.returned) +
             " (bit mask) but the persistent neighbourhood is " + std::to_string(o.persistent);
  }
  return {};
}

void Model::finish(Global& g, unsigned u, const core::Effects<Word>& fx, Outcome& out,
                   std::vector<SentMessage>* log) const {
  NodeRec& r = g.n[u];
  const auto set_problem = [&](Problem p) {
    out.problem = p;
    out.problem_node = static_cast<std::uint8_t>(u);
  };
  if (fx.status != core::Status::ok) {
    out.status = static_cast<std::uint8_t>(fx.status);
    set_problem(Problem::core_status);
    return;
  }
  r.d = 0;  // the action consumed the detector's snapshot
  if (fx.port_sent_twice) set_problem(Problem::port_sent_twice);
  if (fx.priority_overwritten) set_problem(Problem::priority_overwritten);
  bool overflow = false;
  for (unsigned i = 0; i < fx.send_count; ++i) {
    const auto& s = fx.sends[i];
    const auto code = static_cast<std::uint8_t>(core::encode(s.message) + 1);
    for (Port p : s.ports) {
      if (p == core::self_port) {
        bag_insert(r.chan[0], code, overflow);
        if (log) log->push_back({u, p, s.message, static_cast<int>(u), 0});
        continue;
      }
      const std::uint8_t lk = r.link[p - 1];
      if (lk == no_link) {
        if (log) log->push_back({u, p, s.message, -1, 0});
        continue;
      }
      bag_insert(g.n[lk >> 4].chan[lk & 15], code, overflow);
      if (log) log->push_back({u, p, s.message, lk >> 4, static_cast<Port>(lk & 15)});
    }
  }
  if (overflow && out.problem == Problem::none) set_problem(Problem::overflow);
  if (fx.lock_acquired) {
    out.completed_lock = true;
    // P3: the ports returned are exactly port 0 plus the persistent neighbours of the request.
    if (fx.locked_ports.bits() != r.persist && out.problem == Problem::none) {
      out.returned = fx.locked_ports.bits();
      out.persistent = r.persist;
      set_problem(Problem::p3);
    }
  }
  if (fx.unlocked) {
    out.completed_unlock = true;
    r.persist = 0;
  }
}

void Model::apply(Global& g, const Label& l, Outcome& out, std::vector<SentMessage>* log) const {
  const unsigned u = l.node;
  NodeRec& r = g.n[u];
  const core::Context<Word> ctx{Ports(r.d), neighbours(r)};
  switch (l.move) {
    case Move::lock: {
      const auto fx = proto_.lock(r.s, ctx);
      if (!unbounded_locks_) --r.locks_left;
      r.persist = static_cast<std::uint8_t>(ctx.neighbours.bits() | 1u);
      finish(g, u, fx, out, log);
      return;
    }
    case Move::unlock: finish(g, u, proto_.unlock(r.s, ctx), out, log); return;
    case Move::guarded: {
      FixedDraw draw{l.prio};
      const auto fx =
          proto_.step(r.s, core::Activation{static_cast<core::Action>(l.a)}, ctx, core::PriorityDraw::from(draw));
      out.drew = draw.called;
      finish(g, u, fx, out, log);
      return;
    }
    case Move::deliver: {
      bag_remove(r.chan[l.a], l.b);
      const core::Decoded d = core::decode(static_cast<std::uint8_t>(l.b - 1), inst_.k);
      FixedDraw draw{0};
      const auto fx = proto_.step(r.s, core::Activation{core::receive_action(d.message.kind), l.a, d.message}, ctx,
                                  core::PriorityDraw::from(draw));
      finish(g, u, fx, out, log);
      return;
    }
    case Move::cut: {
      const std::uint8_t lk = r.link[l.a - 1];
      const unsigned v = lk >> 4, pv = lk & 15;
      NodeRec& rv = g.n[v];
      r.chan[l.a].fill(0);
      rv.chan[pv].fill(0);
      r.link[l.a - 1] = no_link;
      rv.link[pv - 1] = no_link;
      r.d = static_cast<std::uint8_t>(r.d | 1u << l.a);
      rv.d = static_cast<std::uint8_t>(rv.d | 1u << pv);
      r.persist = static_cast<std::uint8_t>(r.persist & ~(1u << l.a));
      rv.persist = static_cast<std::uint8_t>(rv.persist & ~(1u << pv));
      --g.changes_left;
      return;
    }
    case Move::connect: {
      r.link[l.a - 1] = static_cast<std::uint8_t>(l.b << 4 | l.c);
      g.n[l.b].link[l.c - 1] = static_cast<std::uint8_t>(u << 4 | l.a);
      --g.changes_left;
      return;
    }
  }
}

std::string Model::invariants(const Global& g, std::vector<unsigned>& nodes, std::string& detail) const {
  // P4: at most two messages in transit along any edge.
  for (unsigned u = 0; u < inst_.nodes; ++u)
    for (unsigned p = 1; p <= inst_.delta; ++p) {
      const std::uint8_t lk = g.n[u].link[p - 1];
      if (lk == no_link || (lk >> 4) < u) continue;
      const unsigned c = bag_count(g.n[u].chan[p]) + bag_count(g.n[lk >> 4].chan[lk & 15]);
      if (c > 2) {
        nodes = {u, static_cast<unsigned>(lk >> 4)};
        detail = std::to_string(c) + " messages in transit along one edge";
        return "P4";
      }
    }
  // P2: while u is LOCKED, u and every persistent neighbour of its request point at u.
  // P1: the locked neighbourhoods of LOCKED nodes are disjoint.
  std::array<int, max_nodes> owner{};
  owner.fill(-1);
  for (unsigned u = 0; u < inst_.nodes; ++u) {
    const NodeRec& r = g.n[u];
    if (r.s.state != InitiatorState::locked) continue;
    std::array<unsigned, max_delta + 1> held{u};
    unsigned held_count = 1;
    if (r.s.lock_port != core::self_port) {
      nodes = {u};
      detail = "a LOCKED node's lock variable does not point at itself";
      return "P2";
    }
    for (unsigned p = 1; p <= inst_.delta; ++p) {
      if (!((r.persist >> p) & 1u)) continue;
      const std::uint8_t lk = r.link[p - 1];
      const unsigned v = lk >> 4;
      if (g.n[v].s.lock_port != (lk & 15)) {
        nodes = {u, v};
        detail = "a persistent neighbour of a LOCKED node does not point at it";
        return "P2";
      }
      if (r.s.lock_set.contains(static_cast<Port>(p))) held[held_count++] = v;
    }
    for (unsigned i = 0; i < held_count; ++i) {
      const unsigned w = held[i];
      if (owner[w] >= 0) {
        nodes = {static_cast<unsigned>(owner[w]), u, w};
        detail = "two LOCKED nodes hold one node";
        return "P1";
      }
      owner[w] = static_cast<int>(u);
    }
  }
  return {};
}

}  // namespace lmx::check::detail
