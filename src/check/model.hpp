// The global state of a small instance and its transitions (internal to lmx::check).
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "checksum.hpp"
#include "lmx/check/checker.hpp"
#include "lmx/core/protocol.hpp"

namespace lmx::check::detail {

using Word = std::uint8_t;
using Ports = core::PortSet<Word>;
using NState = core::NodeState<Word>;
inline constexpr std::uint8_t no_link = 0xFF;
/// Bytes of the widest packed state (4 nodes, Delta = 3, K = 32, 15 Lock calls: under 80).
inline constexpr std::size_t max_stride = 128;

/// One node: its Table-1 registers, the detector D, the ports persistent since its request began
/// (observer-only, for P2/P3), the Lock calls left, its links and its receiving bags.
struct NodeRec {
  NState s;
  std::uint8_t d = 0;
  std::uint8_t persist = 0;
  std::uint8_t locks_left = 0;
  std::uint8_t pad = 0;
  std::array<std::uint8_t, max_delta> link{};  ///< port p at link[p-1]: no_link or node<<4 | port
  std::array<std::array<std::uint8_t, channel_capacity>, max_delta + 1> chan{};  ///< encode(m)+1, sorted, 0 = empty
};
static_assert(std::is_trivially_copyable_v<NodeRec>);
static_assert(sizeof(NodeRec) == 16 + 4 + max_delta + (max_delta + 1) * channel_capacity, "no padding");

struct Global {
  std::uint8_t changes_left = 0;
  std::array<NodeRec, max_nodes> n{};
};

/// An element of the instance's symmetry group: nodes are renamed, and at each node its ports
/// 1..Delta are renamed (port 0, the self-channel, stays). Nodes are anonymous and the core treats
/// ports only as members of sets, so a renamed run is a run (docs/checker.md, "Symmetry").
struct Renaming {
  std::array<std::uint8_t, max_nodes> node{};                             ///< node[old] = new
  std::array<std::array<std::uint8_t, max_delta + 1>, max_nodes> port{};  ///< port[old node][old port] = new port
  std::array<std::uint8_t, max_nodes> port_order{};  ///< port[u] as an index into the instance's port orders
};

struct BitWriter;
struct BitReader;
struct NodeCanon;

enum class Move : std::uint8_t { lock, unlock, guarded, deliver, cut, connect };

/// One transition: which move, by which node, with which parameters and priority draw.
struct Label {
  Move move = Move::guarded;
  std::uint8_t node = 0;
  /// guarded: action; deliver: port; cut/connect: port of node; lock under Instance::lock_subsets:
  /// the ports 1..Delta requested (a mask; port 0 is always locked), else 0 (every port).
  std::uint8_t a = 0;
  std::uint8_t b = 0;  ///< deliver: message code (encode+1); connect: other node
  std::uint8_t c = 0;  ///< connect: port of the other node
  std::uint8_t prio = 0;
  bool probabilistic = false;
};

/// An invariant broken by a transition itself (P3, internal). A code, not a text: the successor
/// loop runs millions of times per second and must not allocate; the text is built only when a
/// problem is reported (problem_text).
enum class Problem : std::uint8_t { none, core_status, port_sent_twice, priority_overwritten, overflow, p3 };

/// What a transition produced that the properties look at.
struct Outcome {
  bool completed_lock = false;
  bool completed_unlock = false;
  bool drew = false;  ///< the action drew a priority
  Problem problem = Problem::none;
  std::uint8_t problem_node = 0;  ///< the node whose action broke it
  std::uint8_t status = 0;        ///< core_status: the core::Status returned
  std::uint8_t returned = 0;      ///< p3: the ports Lock returned (bit mask)
  std::uint8_t persistent = 0;    ///< p3: the persistent neighbourhood (bit mask)
};

/// The property a transition's problem breaks: P3, or internal for the others.
[[nodiscard]] Property problem_kind(Problem p);
/// The explanation of a transition's problem ("internal: ...", "P3: ...").
[[nodiscard]] std::string problem_text(const Outcome& o);

/// Sends, in the order the core produced them, for trace writing.
struct SentMessage {
  unsigned from;
  core::Port port;
  core::Message message;
  int to;  ///< -1: no edge, lost at once
  core::Port to_port;
};

/// A 64-bit hash of n bytes (word-wise multiply and shift, then the MurmurHash3 finaliser, by which
/// every bit affects every bit): for the index of stored states and the table of node records.
inline std::uint64_t hash_bytes(const std::uint8_t* p, std::size_t n) {
  std::uint64_t h = 0x9E3779B97F4A7C15ull ^ n;
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, p + i, 8);
    h = (h ^ w) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
  }
  // The last n - i < 8 bytes as a little-endian word: without a memcpy of variable length (a
  // library call), by loads that may overlap; the same word as std::memcpy(&w, p + i, n - i).
  std::uint64_t w = 0;
  const std::size_t r = n - i;
  if constexpr (std::endian::native == std::endian::little) {
    if (r >= 4) {
      std::uint32_t lo, hi;
      std::memcpy(&lo, p + i, 4);
      std::memcpy(&hi, p + n - 4, 4);
      w = lo | std::uint64_t{hi} << (8 * (r - 4));
    } else if (r > 0) {
      w = std::uint64_t{p[i]} | std::uint64_t{p[i + r / 2]} << (8 * (r / 2)) | std::uint64_t{p[n - 1]} << (8 * (r - 1));
    }
  } else {
    std::memcpy(&w, p + i, r);
  }
  return detail::murmur_finalize(h ^ w);
}

/// Node records by number (collapse compression, as in SPIN's collapse mode and LTSmin's tree
/// compression): a stored state holds the numbers of its node records instead of the records, which
/// recur across states far more often than states do (docs/checker.md, "Node records by number").
/// Numbers are given in order of first interning; a run packs states in a fixed order, so it
/// numbers them the same every time.
class RecordTable {
 public:
  /// Records of `bytes` bytes each, at most `capacity` of them (interning one more throws).
  void reset(std::size_t bytes, std::size_t capacity);
  /// The number of a record (of record_bytes() bytes), given the next free number if it is new.
  std::uint32_t intern(const std::uint8_t* rec);
  [[nodiscard]] const std::uint8_t* at(std::uint32_t id) const { return data_.data() + std::size_t{id} * bytes_; }
  [[nodiscard]] std::size_t size() const { return count_; }
  [[nodiscard]] std::size_t record_bytes() const { return bytes_; }
  [[nodiscard]] std::size_t capacity() const { return capacity_; }
  /// Memory held: the records and their index.
  [[nodiscard]] std::size_t memory_bytes() const {
    return data_.capacity() + index_.capacity() * sizeof(std::uint32_t);
  }

 private:
  void grow();
  std::size_t bytes_ = 0;
  std::size_t capacity_ = 0;
  std::size_t count_ = 0;
  std::vector<std::uint8_t> data_;    ///< record i at i * bytes_
  std::vector<std::uint32_t> index_;  ///< open addressing, linear probing: number + 1, 0 = free
};

class Model {
 public:
  /// Entries of the node-record memo (a power of two): 5.6 MB of 344-byte entries, for the records of
  /// the instances the checker runs (docs/checker.md, "Performance"). Tests use fewer (evictions).
  static constexpr std::size_t default_memo_slots = std::size_t{1} << 14;
  /// Bits of a node record's number in a stored state (at least; spare bits of the last byte go to
  /// it too): 2^24 distinct records, against 372 000 measured in 20 M states of the triangle.
  static constexpr unsigned min_record_id_bits = 24;
  /// `collapse`: store states as the numbers of their node records (Options::collapse); it applies
  /// only where a node record is wider than its number.
  explicit Model(const Instance& inst, std::size_t memo_slots = default_memo_slots, bool collapse = true);
  ~Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;
  [[nodiscard]] const Instance& instance() const { return inst_; }
  [[nodiscard]] const core::Protocol<Word>& protocol() const { return proto_; }
  [[nodiscard]] Global initial() const;
  /// Bytes of one stored state: the topology moves left and, per node, its record bit-packed with
  /// each field in the fewest bits its values in this instance need (node_bits).
  /// With collapse, a stored state is the topology moves left and the nodes' record numbers.
  [[nodiscard]] std::size_t stride() const { return stride_; }
  [[nodiscard]] bool collapsed() const { return collapse_; }
  /// Distinct node records numbered so far (0 without collapse), and the memory they take.
  [[nodiscard]] std::size_t node_records() const { return records_.size(); }
  [[nodiscard]] std::size_t node_record_bytes() const { return collapse_ ? records_.memory_bytes() : 0; }
  /// The numbered node records, in order: node_records() of them, record_size() bytes each.
  [[nodiscard]] const std::uint8_t* node_record_data() const { return records_.at(0); }
  [[nodiscard]] std::size_t record_size() const { return records_.record_bytes(); }
  /// The most node records a stored state can number (0 without collapse).
  [[nodiscard]] std::size_t record_capacity() const { return collapse_ ? records_.capacity() : 0; }
  /// Numbers `count` records given in order (those of a checkpoint), as the run that saved them
  /// did, so that its stored states read back the same. Only before any state is packed.
  void restore_node_records(const std::uint8_t* data, std::size_t count) const;
  /// Whether `rec` (record_size() bytes, read from a checkpoint) is a node record as this instance
  /// numbers them: every field in range, the unused bits zero. Reading it back is then safe.
  [[nodiscard]] bool record_is_valid(const std::uint8_t* rec) const;
  /// Whether `in` (stride() bytes, read from a checkpoint, after its node records were restored)
  /// is a stored state of this instance: every field in range, record numbers below
  /// node_records(), links paired (is_valid), the unused bits zero. Unpacking it is then safe.
  [[nodiscard]] bool stored_is_valid(const std::uint8_t* in) const;
  /// Whether g is a state of this instance (as unpack gives them): registers of ports 0..Delta,
  /// priorities below K, enums in range, Lock calls and topology moves within the budgets, each
  /// link between two distinct nodes and paired with the other end's, at most one edge between
  /// two nodes, bags of valid messages sorted, nodes past the instance empty.
  [[nodiscard]] bool is_valid(const Global& g) const;
  void pack(const Global& g, std::uint8_t* out) const;
  /// pack(g) for a successor g of `parent`, which packs to `parent_packed`: with collapse, a node
  /// record the move left unchanged keeps the number read from the parent, without being hashed
  /// and looked up (a move changes one to three nodes).
  void pack_successor(const Global& g, const Global& parent, const std::uint8_t* parent_packed,
                      std::uint8_t* out) const;
  void unpack(const std::uint8_t* in, Global& g) const;
  /// The `state` register of node u in a packed state (without unpacking the rest).
  [[nodiscard]] core::InitiatorState packed_state(const std::uint8_t* in, unsigned u) const;
  /// g with nodes and ports renamed.
  void rename(const Global& g, const Renaming& r, Global& out) const;
  /// Every renaming of this instance: N! node orders times (Delta!)^N port orders.
  [[nodiscard]] std::vector<Renaming> group() const;
  /// Packs the canonical member of g's orbit under the group (the same for every member of the
  /// orbit) and returns the renaming that maps g to it; `moved` (optional) tells whether the
  /// canonical member differs from g.
  Renaming canonical(const Global& g, std::uint8_t* out, bool* moved = nullptr) const;

  /// Enumerates transitions: emit(const Label&, Global& next, const Outcome&): the node moves in
  /// node_moves order (a priority draw as K transitions in a row, priority 0 first), then the
  /// topology moves.
  template <class Emit>
  void successors(const Global& g, Emit&& emit) const;
  /// The same, each successor built in the Global that place() returns (valid until the next
  /// call of place): a caller that keeps the successors builds them where it keeps them, instead
  /// of copying each one there (a Global is 160 bytes, and a state has about ten successors).
  template <class Place, class Emit>
  void successors_in(const Global& g, Place&& place, Emit&& emit) const;
  /// The node moves enabled in g (Lock, Unlock, guarded actions, deliveries), as labels, without
  /// executing them: visit(const Label&). A guarded action's label says nothing of a priority draw.
  template <class Visit>
  void node_moves(const Global& g, Visit&& visit) const;

  /// Executes one transition. `log` (optional) receives the sends.
  void apply(Global& g, const Label& l, Outcome& out, std::vector<SentMessage>* log = nullptr) const;

  /// Invariants P1, P2, P4 on a state; returns the property broken (none if none), its nodes and why.
  [[nodiscard]] std::optional<Property> invariants(const Global& g, std::vector<unsigned>& nodes,
                                                   std::string& detail) const;

  [[nodiscard]] Ports neighbours(const NodeRec& r) const {
    Ports p;
    for (unsigned q = 1; q <= inst_.delta; ++q)
      if (r.link[q - 1] != no_link) p.insert(static_cast<core::Port>(q));
    return p;
  }

 private:
  Instance inst_;
  core::Protocol<Word> proto_;
  std::vector<std::array<std::uint8_t, max_nodes>> perms_;           ///< node orders, perm[old] = new
  std::vector<std::array<std::uint8_t, max_delta + 1>> port_perms_;  ///< port orders of one node, [old] = new
  std::vector<std::array<std::uint8_t, 16>> bit_perms_;  ///< per port order: a mask of ports 0..Delta renamed
  Renaming identity_;
  unsigned planes_ = 1;  ///< priority planes in use: ceil(log2 K) (the others stay 0)
  // Field widths in bits (docs/checker.md, "The model explored").
  unsigned reg_bits_ = 0;      ///< a port-set register, D or persist: Delta + 1
  unsigned lock_bits_ = 0;     ///< lock: bottom or a port 0..Delta
  unsigned locks_bits_ = 0;    ///< Lock calls left: 0..locks (none kept when unbounded)
  unsigned link_bits_ = 0;     ///< a link: none or (peer, peer port)
  unsigned bag_bits_ = 0;      ///< a bag: rank of a multiset of at most channel_capacity messages
  unsigned changes_bits_ = 0;  ///< topology moves left: 0..max_changes
  unsigned node_bits_ = 0;     ///< packed bits per node
  unsigned state_bit_ = 0;     ///< offset of the state register within a node
  std::size_t stride_ = 0;
  bool collapse_ = false;       ///< states hold record numbers (RecordTable)
  unsigned id_bits_ = 0;        ///< bits of a record number in a stored state
  std::size_t node_bytes_ = 0;  ///< bytes of one node's packed record, alone (from bit 0)
  /// The records by number. Mutable like memo_: numbering a record does not change the state it
  /// belongs to; a Model is used by one thread.
  mutable RecordTable records_;
  bool unbounded_locks_ = false;           ///< a node may call Lock whenever it is idle (Instance::locks)
  unsigned codes_ = 0;                     ///< message kinds with their values: K + 8
  std::array<std::uint8_t, 256> dense_{};  ///< bag code (encoded byte + 1) to 1..codes, in order
  std::array<std::uint8_t, 256> byte_{};   ///< the inverse
  /// binom_[n][r] for the combinatorial number system of bags.
  std::array<std::array<std::uint32_t, channel_capacity + 1>, 48> binom_{};

  unsigned front_bits_ = 0;                                            ///< a node's packed fields before its links
  bool bags_fit_ = false;                                              ///< a node's packed bags fit one 64-bit word
  std::vector<std::array<std::uint8_t, max_delta + 1>> port_inverse_;  ///< per port order: [new] = old
  /// What canonicalising and packing need of one node record, which depends on the record alone:
  /// a direct-mapped memo of that pure function (records recur across states far more often than
  /// states do). Mutable: a cache, not state; a Model is used by one thread.
  mutable std::vector<NodeCanon> memo_;
  std::vector<std::array<std::uint8_t, channel_capacity>> bags_by_rank_;  ///< bag_unrank, tabulated
  /// With collapse: node records by number, unpacked, in a direct-mapped cache (a numbered record
  /// never changes, and the states unpacked one after another share most of their records), so
  /// that unpacking a stored state mostly copies records instead of decoding their bit fields.
  struct Unpacked {
    std::uint32_t id = UINT32_MAX;  ///< the record's number, UINT32_MAX: empty
    NodeRec rec{};
  };
  static constexpr std::size_t unpacked_slots = std::size_t{1} << 15;  // 1.4 MB
  mutable std::vector<Unpacked> unpacked_;
  /// The record numbered `id`, unpacked.
  const NodeRec& record(std::uint32_t id) const;

  /// The memo's entry for a record, computed on a miss. Valid until the next call.
  const NodeCanon& canon_of(const NodeRec& a) const;
  void fill(NodeCanon& c, const NodeRec& a) const;
  Renaming canonical_from(const Global& g, const std::array<const NodeCanon*, max_nodes>& entry, std::uint8_t* out,
                          bool* moved) const;
  /// A link as packed after renaming `r`: 0 for none, else 1 + peer * Delta + (peer port - 1).
  [[nodiscard]] std::uint32_t link_code(std::uint8_t lk, const Renaming& r) const;
  void pack_node(const NodeRec& a, const NodeCanon& c, const Renaming& r, unsigned u, BitWriter& w) const;
  /// pack_node, or with collapse the number of the record pack_node writes.
  void put_node(const NodeRec& a, const NodeCanon& c, const Renaming& r, unsigned u, BitWriter& w) const;
  void unpack_node(BitReader& in, NodeRec& r) const;
  /// unpack_node from bytes read from a checkpoint: false, instead of reading out of range, if a
  /// field holds a value this instance never packs.
  bool unpack_node_checked(BitReader& in, NodeRec& r) const;
  [[nodiscard]] std::uint32_t bag_rank(const std::array<std::uint8_t, channel_capacity>& bag) const;
  void bag_unrank(std::uint32_t rank, std::array<std::uint8_t, channel_capacity>& bag) const;

  void finish(Global& g, unsigned u, const core::Effects<Word>& fx, Outcome& out, std::vector<SentMessage>* log) const;
};

inline unsigned bag_count(const std::array<std::uint8_t, channel_capacity>& bag) {
  unsigned c = 0;
  for (auto m : bag) c += m != 0;
  return c;
}

template <class Visit>
void Model::node_moves(const Global& g, Visit&& visit) const {
  for (unsigned u = 0; u < inst_.nodes; ++u) {
    const NodeRec& r = g.n[u];
    const auto node = static_cast<std::uint8_t>(u);
    if (r.s.state == core::InitiatorState::idle && (r.locks_left > 0 || unbounded_locks_)) {
      if (!inst_.lock_subsets) {
        visit(Label{Move::lock, node, 0, 0, 0, 0, false});
      } else {  // every subset of ports 1..Delta, whether its ports hold an edge or not: the empty one first
        for (unsigned requested = 0; requested < (2u << inst_.delta); requested += 2)
          visit(Label{Move::lock, node, static_cast<std::uint8_t>(requested), 0, 0, 0, false});
      }
    }
    if (r.s.state == core::InitiatorState::locked) visit(Label{Move::unlock, node, 0, 0, 0, 0, false});
    const core::ActionSet en = proto_.enabled_guarded(r.s);
    for (core::Action a : core::guarded_actions)
      if (en.contains(a)) visit(Label{Move::guarded, node, static_cast<std::uint8_t>(a), 0, 0, 0, false});
    for (unsigned p = 0; p <= inst_.delta; ++p) {
      const auto& bag = r.chan[p];
      for (unsigned i = 0; i < channel_capacity && bag[i] != 0; ++i) {
        if (i > 0 && bag[i] == bag[i - 1]) continue;  // a bag: identical messages are one choice
        visit(Label{Move::deliver, node, static_cast<std::uint8_t>(p), bag[i], 0, 0, false});
      }
    }
  }
}

template <class Emit>
void Model::successors(const Global& g, Emit&& emit) const {
  Global next;
  successors_in(
      g, [&]() -> Global& { return next; }, emit);
}

template <class Place, class Emit>
void Model::successors_in(const Global& g, Place&& place, Emit&& emit) const {
  Outcome out;
  auto run = [&](Label l) {
    Global& next = place();
    next = g;
    out = Outcome{};
    apply(next, l, out);
    l.probabilistic = out.drew;  // a priority draw (guarded actions only): K transitions in a row
    emit(l, next, out);
  };
  node_moves(g, [&](Label l) {
    run(l);
    for (unsigned p = 1; out.drew && p < inst_.k; ++p) {
      l.prio = static_cast<std::uint8_t>(p);
      run(l);
    }
  });
  if (g.changes_left == 0) return;
  for (unsigned u = 0; u < inst_.nodes; ++u)
    for (unsigned p = 1; p <= inst_.delta; ++p) {
      const std::uint8_t lk = g.n[u].link[p - 1];
      if (lk == no_link) continue;
      if ((lk >> 4) < u) continue;  // each edge once, from its lower end
      run(Label{Move::cut, static_cast<std::uint8_t>(u), static_cast<std::uint8_t>(p), 0, 0, 0, false});
    }
  for (unsigned u = 0; u < inst_.nodes; ++u)
    for (unsigned v = u + 1; v < inst_.nodes; ++v) {
      bool adjacent = false;
      for (unsigned p = 1; p <= inst_.delta; ++p)
        if (g.n[u].link[p - 1] != no_link && (g.n[u].link[p - 1] >> 4) == v) adjacent = true;
      if (adjacent) continue;
      for (unsigned pu = 1; pu <= inst_.delta; ++pu) {
        if (g.n[u].link[pu - 1] != no_link) continue;
        for (unsigned pv = 1; pv <= inst_.delta; ++pv) {
          if (g.n[v].link[pv - 1] != no_link) continue;
          run(Label{Move::connect, static_cast<std::uint8_t>(u), static_cast<std::uint8_t>(pu),
                    static_cast<std::uint8_t>(v), static_cast<std::uint8_t>(pv), 0, false});
        }
      }
    }
}

/// Writes the lmx-trace/1 counterexample for a path of labels from the initial state.
std::string write_trace(const Model& m, const std::vector<Label>& path, const std::string& property,
                        const std::vector<unsigned>& nodes, const std::string& detail);

}  // namespace lmx::check::detail
