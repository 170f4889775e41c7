// The model's layout and packing: field widths, bags in the combinatorial number system, the
// initial state, packing and unpacking (docs/checker.md, "The model explored").
#include "model.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <stdexcept>

#include "packing.hpp"

namespace lmx::check::detail {

namespace {
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
  if (collapse_) unpacked_.resize(unpacked_slots);
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

core::InitiatorState Model::packed_state(const std::uint8_t* in, unsigned u) const {
  if (collapse_)
    return static_cast<core::InitiatorState>(read_bits(
        records_.at(read_bits(in, changes_bits_ + std::size_t{u} * id_bits_, id_bits_)), state_bit_, state_bits));
  return static_cast<core::InitiatorState>(
      read_bits(in, changes_bits_ + std::size_t{u} * node_bits_ + state_bit_, state_bits));
}

void Model::pack(const Global& g, std::uint8_t* out) const {
  BitWriter w{out};
  w.put(g.changes_left, changes_bits_);
  for (unsigned u = 0; u < inst_.nodes; ++u) put_node(g.n[u], canon_of(g.n[u]), identity_, u, w);
  w.finish();
}

void Model::pack_successor(const Global& g, const Global& parent, const std::uint8_t* parent_packed,
                           std::uint8_t* out) const {
  if (!collapse_) {
    pack(g, out);
    return;
  }
  BitReader rd{parent_packed, parent_packed + stride_};
  rd.get(changes_bits_);
  BitWriter w{out};
  w.put(g.changes_left, changes_bits_);
  for (unsigned u = 0; u < inst_.nodes; ++u) {
    const std::uint32_t id = rd.get(id_bits_);
    if (same_record(g.n[u], words_of(parent.n[u])))
      w.put(id, id_bits_);  // the parent's record, so its number
    else
      put_node(g.n[u], canon_of(g.n[u]), identity_, u, w);
  }
  w.finish();
}

const NodeRec& Model::record(std::uint32_t id) const {
  Unpacked& e = unpacked_[id & (unpacked_slots - 1)];
  if (e.id != id) {
    const std::uint8_t* rec = records_.at(id);
    BitReader node{rec, rec + node_bytes_};
    unpack_node(node, e.rec);
    e.id = id;
  }
  return e.rec;
}

void Model::unpack(const std::uint8_t* in, Global& g) const {
  BitReader rd{in, in + stride_};
  g.changes_left = static_cast<std::uint8_t>(rd.get(changes_bits_));
  for (unsigned u = 0; u < inst_.nodes; ++u) {
    if (!collapse_) {
      unpack_node(rd, g.n[u]);
      continue;
    }
    g.n[u] = record(rd.get(id_bits_));
  }
  for (unsigned u = inst_.nodes; u < max_nodes; ++u) {
    g.n[u] = NodeRec{};
  }
}

// What a checkpoint holds is read back only after it is checked here: a packed field can hold
// values that no state packs to (a bag's rank past the last bag, a link to a node the instance does
// not have), and unpacking them would read out of range.
bool Model::unpack_node_checked(BitReader& in, NodeRec& r) const {
  const unsigned delta = inst_.delta;
  r = NodeRec{};
  r.link.fill(no_link);
  auto* s = reinterpret_cast<std::uint8_t*>(&r.s);
  for (std::size_t i = 0; i < planes_offset + planes_; ++i) s[i] = static_cast<std::uint8_t>(in.get(reg_bits_));
  const std::uint32_t lock = in.get(lock_bits_);
  if (lock > delta + 1) return false;
  r.s.lock_port = lock == 0 ? core::no_port : static_cast<core::Port>(lock - 1);
  const std::uint32_t state = in.get(state_bits), phase = in.get(phase_bits);
  if (state > static_cast<std::uint32_t>(core::InitiatorState::unlock) ||
      phase > static_cast<std::uint32_t>(core::ParticipantPhase::compete))
    return false;
  r.s.state = static_cast<core::InitiatorState>(state);
  r.s.phase = static_cast<core::ParticipantPhase>(phase);
  r.d = static_cast<std::uint8_t>(in.get(reg_bits_));
  r.persist = static_cast<std::uint8_t>(in.get(reg_bits_));
  const std::uint32_t locks_left = in.get(locks_bits_);
  if (!unbounded_locks_ && locks_left > inst_.locks) return false;
  r.locks_left = static_cast<std::uint8_t>(locks_left);
  for (unsigned p = 0; p < delta; ++p) {
    const std::uint32_t lk = in.get(link_bits_);
    if (lk > inst_.nodes * delta) return false;
    if (lk != 0) r.link[p] = static_cast<std::uint8_t>((lk - 1) / delta << 4 | ((lk - 1) % delta + 1));
  }
  for (unsigned p = 0; p <= delta; ++p) {
    const std::uint32_t rank = in.get(bag_bits_);
    if (rank >= bags_by_rank_.size()) return false;
    r.chan[p] = bags_by_rank_[rank];
  }
  for (unsigned p = 0; p <= delta; ++p)
    if (r.s.priorities.get(static_cast<core::Port>(p)) >= inst_.k) return false;
  return true;
}

bool Model::record_is_valid(const std::uint8_t* rec) const {
  BitReader in{rec, rec + node_bytes_};
  NodeRec r;
  if (!unpack_node_checked(in, r)) return false;
  const unsigned spare = static_cast<unsigned>(8 * node_bytes_ - node_bits_);
  return spare == 0 || in.get(spare) == 0;
}

bool Model::stored_is_valid(const std::uint8_t* in) const {
  BitReader rd{in, in + stride_};
  Global g;
  const std::uint32_t changes = rd.get(changes_bits_);
  if (changes > inst_.max_changes) return false;
  g.changes_left = static_cast<std::uint8_t>(changes);
  for (unsigned u = 0; u < inst_.nodes; ++u) {
    if (!collapse_) {
      if (!unpack_node_checked(rd, g.n[u])) return false;
      continue;
    }
    const std::uint32_t id = rd.get(id_bits_);
    if (id >= records_.size()) return false;
    const std::uint8_t* rec = records_.at(id);
    BitReader node{rec, rec + node_bytes_};
    unpack_node(node, g.n[u]);  // a restored record: checked already (record_is_valid)
  }
  const unsigned used = changes_bits_ + inst_.nodes * (collapse_ ? id_bits_ : node_bits_);
  const unsigned spare = static_cast<unsigned>(8 * stride_ - used);
  if (spare != 0 && rd.get(spare) != 0) return false;
  return is_valid(g);
}

bool Model::is_valid(const Global& g) const {
  const unsigned delta = inst_.delta;
  const unsigned ports = (1u << (delta + 1)) - 1;  // the port sets' bits: ports 0..Delta
  if (g.changes_left > inst_.max_changes) return false;
  for (unsigned u = 0; u < max_nodes; ++u) {
    const NodeRec& r = g.n[u];
    if (u >= inst_.nodes) {
      const NodeRec empty{};
      if (std::memcmp(&r, &empty, sizeof r) != 0) return false;
      continue;
    }
    const auto* s = reinterpret_cast<const std::uint8_t*>(&r.s);
    for (std::size_t i = 0; i < planes_offset + core::priority_planes; ++i)
      if ((s[i] & ~ports) != 0 || (i >= planes_offset + planes_ && s[i] != 0)) return false;
    for (unsigned p = 0; p <= delta; ++p)
      if (r.s.priorities.get(static_cast<core::Port>(p)) >= inst_.k) return false;
    if (r.s.lock_port != core::no_port && r.s.lock_port > delta) return false;
    if (r.s.state > core::InitiatorState::unlock || r.s.phase > core::ParticipantPhase::compete) return false;
    if ((r.d & ~ports) != 0 || (r.persist & ~ports) != 0 || r.pad != 0) return false;
    if (r.locks_left > (unbounded_locks_ ? 0u : inst_.locks)) return false;
    unsigned peers = 0;  // bit v: linked to node v
    for (unsigned p = 1; p <= max_delta; ++p) {
      const std::uint8_t lk = r.link[p - 1];
      if (lk == no_link) continue;
      const unsigned v = lk >> 4, pv = lk & 15u;
      if (p > delta || v >= inst_.nodes || v == u || pv < 1 || pv > delta || ((peers >> v) & 1u) != 0) return false;
      if (g.n[v].link[pv - 1] != (u << 4 | p)) return false;
      peers |= 1u << v;
    }
    for (unsigned p = 0; p <= max_delta; ++p) {
      const auto& bag = r.chan[p];
      for (unsigned i = 0; i < channel_capacity; ++i) {
        if (bag[i] == 0) {
          if (i + 1 < channel_capacity && bag[i + 1] != 0) return false;  // the empty slots last
          continue;
        }
        if (p > delta || dense_[bag[i]] == 0 || (i > 0 && bag[i - 1] > bag[i])) return false;
      }
    }
  }
  return true;
}

}  // namespace lmx::check::detail
