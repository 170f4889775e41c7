// The network of a simulation (docs/simulator.md, "The model, operationally"): the time-varying
// graph with its ports, the disconnection detectors, and the channels with their messages in
// transit, including the deferred writes of the semi-synchronous scan and of the asynchronous
// engine's ticks.
//
// Storage is structure-of-arrays indexed by node (the channels: one record of a node's Delta + 1
// channels per node, channel.hpp; a channel's number is node * (Delta + 1) + port), sized once at
// construction; nothing here allocates per message unless a channel overflows the P4 bound (the
// overflow goes to a side table and the engine reports a P4 violation).
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <stdexcept>
#include <unordered_map>
#include <utility>
#include <vector>

#include "big_array.hpp"
#include "channel.hpp"
#include "lmx/core/protocol.hpp"
#include "lmx/sim/scenario.hpp"
#include "wakeup_queue.hpp"

namespace lmx::sim {

/// A message in transit: its byte, the (wrapping, 16-bit) tick it was sent at, and its trace id.
struct Stored {
  std::uint8_t byte;
  std::uint16_t stamp;
  std::uint64_t id;
};

/// A delivered message's coordinates in a channel.
struct Slot {
  core::Port port;
  std::uint16_t index;
};

/// The messages a node may receive now (the delivery adversary's candidates), in channel order:
/// port 0..Delta, slot by slot. In the common case a bit mask over (port, slot) pairs, bit
/// port * inline_slots + slot, so that an activation that does not deliver writes no list.
struct Candidates {
  unsigned k = 0;          ///< how many
  bool masked = false;     ///< given by `mask`, not by `slots`
  std::uint64_t mask = 0;  ///< the candidates' bits, when masked
  std::array<Slot, 64> slots;
  /// Candidate i (0-based, in channel order). Inlined by force, as is WriteList::append: once the
  /// engine was split over several files, GCC kept both out of line, where a call cost about as
  /// much as the body.
  [[nodiscard, gnu::always_inline]] Slot at(unsigned i) const {
    if (!masked) return slots[i];
    const unsigned b = nth_set_bit(mask, i);
    return Slot{static_cast<core::Port>(b / inline_slots), static_cast<std::uint16_t>(b % inline_slots)};
  }
};

/// Who is held back by the delivery adversary `delay-target` (docs/simulator.md).
struct DelayRule {
  bool active = false;
  NodeId target = no_node;
  std::uint64_t patience_ticks = 0;
};

/// A growable list of entries whose append inlines (std::vector's does not, here).
template <class Entry>
class BasicWriteList {
 public:
  [[gnu::always_inline]] void append(Entry entry) {
    if (size_ == capacity_) [[unlikely]]
      grow();
    data_[size_++] = entry;
  }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] const Entry* data() const { return data_.get(); }
  void clear() { size_ = 0; }
  [[nodiscard]] std::size_t bytes() const { return capacity_ * sizeof(Entry); }

 private:
  [[gnu::noinline]] void grow() {
    // By a quarter, not doubled: a list keeps the largest capacity it reached, and the lists of
    // the scan's blocks peak at different times, so their slack adds up (docs/performance.md,
    // "The application's record in 12 bytes", the lists' growth).
    const std::size_t capacity = std::max<std::size_t>(64, capacity_ + capacity_ / 4);
    // Not zeroed: an entry is always written before it is read.
    auto data = std::make_unique_for_overwrite<Entry[]>(capacity);
    std::copy(data_.get(), data_.get() + size_, data.get());
    data_ = std::move(data), capacity_ = capacity;
  }
  std::unique_ptr<Entry[]> data_;
  std::size_t size_ = 0, capacity_ = 0;
};
/// The scan's entries: a channel's index within its block, the message byte, the kind bit.
using WriteList = BasicWriteList<std::uint32_t>;

/// `FixedDelta`: 0, or the Delta of every network of this type, known at compile time (the
/// engine's Delta = 8 instantiation): the port count and the far ends' stride are then constants
/// in every address, not members reloaded after each byte store (an `unsigned char` store may
/// alias them). Its far ends are packed (packed_far_ends): 4 * Delta bytes a node, not 5 * Delta.
/// Same behaviour.
template <class Word, unsigned FixedDelta = 0>
class Network {
 public:
  using Ports = core::PortSet<Word>;
  using Port = core::Port;

  /// `now` is the engine's clock (ticks): messages carry the tick they were sent at.
  /// `keep_ids`: message ids are stored (for trace lines). `defer_writes`: the semi-synchronous
  /// scan defers writes into other blocks' channels (see "Deferred writes" below).
  /// `channels_later`: the channel records wait for allocate_channels (the engine links its
  /// initial edges first, so that their list is freed before the records take their place).
  Network(NodeId n, unsigned delta, bool keep_ids, bool defer_writes, unsigned block_shift, const std::uint32_t& now,
          bool channels_later = false)
      : n_(n),
        delta_(delta),
        ports_(delta + 1),
        block_shift_(std::min(14u, block_shift)),
        keep_ids_(keep_ids),
        keep_outgoing_(defer_writes),
        deferred_cap_(std::max<std::size_t>(std::size_t{1} << 12, std::size_t{n})),
        pipelined_cap_(2 * deferred_cap_),
        now_(now) {
    if (FixedDelta != 0 && delta != FixedDelta)
      throw std::logic_error("sim: a network for a fixed Delta built for another");
    if (packed_far_ends && n > max_packed_nodes) throw std::logic_error("sim: too many nodes for packed far ends");
    port_sets_.assign(n_, PortSets{});
    // Packed, every byte 0xFF is every port free (the word ~0); else set_peer writes no_node.
    far_ends_.assign(std::size_t{n_} * far_stride_of(), std::uint8_t{packed_far_ends ? 0xFF : 0});
    if (!packed_far_ends)
      for (NodeId u = 0; u < n_; ++u)
        for (Port p = 1; p <= delta_of(); ++p) set_peer(u, p, no_node);
    if (!channels_later) allocate_channels();
  }
  /// The channel records (and the message ids), all empty. Linking edges before it reads none of
  /// them (a link reads them only after a test's injection); every other use comes after it.
  void allocate_channels() {
    if (!channels_.empty()) return;
    channels_.assign(std::size_t{n_} * stride_of(), std::uint8_t{0});
    if (keep_ids_) id_.assign(std::size_t{n_} * ports_of() * inline_slots, std::uint64_t{0});
  }

  /// Whether the semi-synchronous scan of a run with these parameters can defer writes: blocks of
  /// more than one, and entries that fit 32 bits.
  [[nodiscard]] static bool can_defer(NodeId n, unsigned delta, unsigned block_shift) {
    return (n >> std::min(14u, block_shift)) > 0 && can_defer_in_ticks(delta, block_shift);
  }

  /// Whether the asynchronous engine's ticks can defer writes: entries that fit 32 bits within a
  /// block (their blocks are only a way to number channels there).
  [[nodiscard]] static bool can_defer_in_ticks(unsigned delta, unsigned block_shift) {
    const unsigned shift = std::min(14u, block_shift);
    return (std::size_t{1} << (port_shift_for(delta + 1) + shift + entry_shift)) <= (std::size_t{1} << 32);
  }

  // ---------------------------------------------------------------- graph
  [[nodiscard]] NodeId nodes() const { return n_; }
  [[nodiscard]] unsigned delta() const { return delta_; }
  [[nodiscard]] NodeId peer(NodeId u, Port p) const {
    NodeId v;
    std::memcpy(&v, far_node(u, p), sizeof v);
    if constexpr (packed_far_ends) return unpacked_node(v);
    return v;
  }
  [[nodiscard]] Port peer_port(NodeId u, Port p) const {
    if constexpr (packed_far_ends) {
      std::uint32_t w;
      std::memcpy(&w, far_node(u, p), sizeof w);
      return static_cast<Port>(w & port_mask);
    }
    return *far_port(u, p);
  }
  /// Whether the far ends are packed: one 32-bit word per port, the far node above 4 bits of far
  /// port (a free port's word is ~0), for a Delta fixed at compile time below 16. A node's far ends
  /// then fill 32 bytes at Delta = 8, half a line, where the node numbers and then the port numbers
  /// took 40 and straddled two lines one node in two.
  static constexpr bool packed_far_ends = FixedDelta != 0 && FixedDelta < 16;
  /// The most nodes packed far ends hold: node numbers below 2^27, so that an arithmetic shift of
  /// a word is its far node and that of a free port's word no_node.
  static constexpr NodeId max_packed_nodes = NodeId{1} << 27;
  [[nodiscard]] Ports neighbours(NodeId u) const { return Ports(port_sets_[u].neighbours); }
  [[nodiscard]] Word neighbour_bits(NodeId u) const { return port_sets_[u].neighbours; }
  /// The disconnection detector's D of u.
  [[nodiscard]] Ports detector(NodeId u) const { return Ports(port_sets_[u].detector); }
  void set_detector(NodeId u, Ports d) { port_sets_[u].detector = d.bits(); }
  [[nodiscard]] Ports all_neighbour_ports() const { return Ports::range(1, static_cast<Port>(delta_of())); }
  [[nodiscard]] Ports free_ports(NodeId u) const { return all_neighbour_ports() - neighbours(u); }
  [[nodiscard]] bool adjacent(NodeId u, NodeId v) const { return adjacent_ports(u, v) != 0; }
  /// The ports of u whose far node is v, as bits (0: not adjacent). Every port's far node is
  /// compared, without a branch on which one matches (mobility asks this for every pair within r,
  /// and where the match lies is random): a free port's is no_node. Mobility's pair scan also
  /// confirms with it the edges that stay within r.
  [[nodiscard]] std::uint64_t adjacent_ports(NodeId u, NodeId v) const {
    const std::uint8_t* far = far_node(u, 1);
    std::uint64_t ports = 0;
    unsigned p = 0;
#if defined(__SSE2__)
    // Four far nodes per comparison (all of them in two at Delta = 8, the default, unrolled).
    const __m128i target = _mm_set1_epi32(static_cast<int>(v));
    auto four_at = [&](unsigned from) {
      const __m128i four = far_nodes4(far + std::size_t{4} * from);
      return std::uint64_t{static_cast<unsigned>(_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(four, target))))}
             << (from + 1);
    };
    if (delta_of() == 8) return v != no_node ? four_at(0) | four_at(4) : 0;
    for (; p + 4 <= delta_of(); p += 4) {
      ports |= four_at(p);
    }
#endif
    for (; p < delta_of(); ++p) ports |= std::uint64_t{peer(u, static_cast<Port>(p + 1)) == v} << (p + 1);
    return v != no_node ? ports : 0;
  }
  /// The ports of u whose far node is above u, as bits (a free port's, no_node, is above every
  /// node): mobility's pass over the nodes cuts an edge from its lower end only.
  [[nodiscard]] std::uint64_t upper_ports(NodeId u) const {
    const std::uint8_t* far = far_node(u, 1);
    std::uint64_t ports = 0;
    unsigned p = 0;
#if defined(__SSE2__)
    // Unsigned comparisons as signed ones of the numbers with their top bit flipped.
    const __m128i flip = _mm_set1_epi32(static_cast<int>(0x80000000u));
    const __m128i self = _mm_xor_si128(_mm_set1_epi32(static_cast<int>(u)), flip);
    auto four_at = [&](unsigned from) {
      const __m128i four = _mm_xor_si128(far_nodes4(far + std::size_t{4} * from), flip);
      return std::uint64_t{static_cast<unsigned>(_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpgt_epi32(four, self))))}
             << (from + 1);
    };
    if (delta_of() == 8) return four_at(0) | four_at(4);
    for (; p + 4 <= delta_of(); p += 4) ports |= four_at(p);
#endif
    for (; p < delta_of(); ++p) ports |= std::uint64_t{peer(u, static_cast<Port>(p + 1)) > u} << (p + 1);
    return ports;
  }
  /// Starts loading what adjacent(u, .) and adjacent_ports(u, .) read.
  void prefetch_adjacency(NodeId u) const {
    __builtin_prefetch(&port_sets_[u]), __builtin_prefetch(far_node(u, 1));
    // Unpacked, the far nodes may straddle two lines; packed at Delta = 8, they fill half of one.
    if constexpr (!packed_far_ends) __builtin_prefetch(far_node(u, static_cast<Port>(delta_of())));
  }
  /// Starts loading what link(u, ...) and the checks before it read and write.
  void prefetch_link(NodeId u) const {
    __builtin_prefetch(&port_sets_[u], 1), __builtin_prefetch(far_node(u, 1), 1);
    if constexpr (!packed_far_ends) __builtin_prefetch(far_port(u, static_cast<Port>(delta_of())), 1);
  }
  [[nodiscard]] std::uint64_t edges() const { return edges_; }

  /// Establishes edge {u, v} on port pu of u and pv of v (both free).
  void link(NodeId u, Port pu, NodeId v, Port pv) {
    flush_deferred();
    set_far_end(u, pu, v, pv), set_far_end(v, pv, u, pu);
    port_sets_[u].neighbours = static_cast<Word>(port_sets_[u].neighbours | (Word{1} << pu));
    port_sets_[v].neighbours = static_cast<Word>(port_sets_[v].neighbours | (Word{1} << pv));
    // A free port's channel and copy are empty (a cut empties both) unless a test injected
    // messages there; then each end's copy starts as the other end's count.
    if (keep_outgoing_ && injected_on_free_port_) {
      const unsigned at_u = count(u, pu), at_v = count(v, pv);
      counts_byte(u, pu) = static_cast<std::uint8_t>(at_u | at_v << 4);
      counts_byte(v, pv) = static_cast<std::uint8_t>(at_v | at_u << 4);
    }
    ++edges_;
  }
  /// Cuts the edge on port pu of u: its messages in transit are lost, first those waiting at the
  /// other end, each passed to on_lost(node, port, message); both detectors note the port.
  /// Returns the other end.
  template <class OnLost>
  std::pair<NodeId, Port> unlink(NodeId u, Port pu, OnLost&& on_lost) {
    flush_deferred();
    const NodeId v = peer(u, pu);
    const Port pv = peer_port(u, pu);
    drop_channel(v, pv, on_lost);
    drop_channel(u, pu, on_lost);
    set_peer(u, pu, no_node), set_peer(v, pv, no_node);
    port_sets_[u].neighbours = static_cast<Word>(port_sets_[u].neighbours & ~(Word{1} << pu));
    port_sets_[v].neighbours = static_cast<Word>(port_sets_[v].neighbours & ~(Word{1} << pv));
    // The disconnection detector.
    port_sets_[u].detector = static_cast<Word>(port_sets_[u].detector | (Word{1} << pu));
    port_sets_[v].detector = static_cast<Word>(port_sets_[v].detector | (Word{1} << pv));
    --edges_;
    return {v, pv};
  }

  // ---------------------------------------------------------------- channels
  [[nodiscard]] std::size_t channel(NodeId u, Port p) const { return std::size_t{u} * ports_of() + p; }
  [[nodiscard]] std::uint16_t now16() const { return static_cast<std::uint16_t>(now_); }
  [[nodiscard]] std::uint16_t age_of(const Stored& m) const { return static_cast<std::uint16_t>(now16() - m.stamp); }
  [[nodiscard]] unsigned count(NodeId u, Port p) const { return counts_byte(u, p) & count_mask; }
  /// The sender's copy of the far channel's count (kept with deferred writes only).
  [[nodiscard]] unsigned outgoing(NodeId u, Port p) const { return counts_byte(u, p) >> 4; }
  [[nodiscard]] std::uint64_t in_transit() const { return in_transit_; }
  [[nodiscard]] bool has_ids() const { return !id_.empty(); }

  /// Puts a message into `to`'s channel on port p; false if the channel already held
  /// max_channel_count messages (the engine then stops the run with a P4 violation). The caller
  /// updates the sender's `outgoing` (it knows the sender without reading `to`'s peer arrays).
  bool enqueue(NodeId to, Port p, std::uint8_t byte, std::uint64_t id) {
    const std::size_t c = channel(to, p);
    std::uint8_t* rec = record(to);
    const unsigned k = rec[fields().counts(p)] & count_mask;
    if (k == max_channel_count) return false;
    if (k < inline_slots) {
      rec[fields().byte(k, p)] = byte, store_stamp(rec + fields().stamp(k, p), now16());
      if (!id_.empty()) id_[c * inline_slots + k] = id;
    } else {
      overflow_[c].push_back({byte, now16(), id});
    }
    ++rec[fields().counts(p)];
    ++in_transit_;
    return true;
  }
  /// Message i of u's channel on port p.
  [[nodiscard, gnu::always_inline]] Stored stored(NodeId u, Port p, unsigned i) const {
    if (i < inline_slots) {
      const std::uint8_t* rec = record(u);
      return {rec[fields().byte(i, p)], load_stamp(rec + fields().stamp(i, p)),
              id_.empty() ? 0 : id_[channel(u, p) * inline_slots + i]};
    }
    return overflow_.at(channel(u, p))[i - inline_slots];
  }
  /// Message i of channel c (channel(u, p)).
  [[nodiscard]] Stored stored(std::size_t c, unsigned i) const {
    return stored(static_cast<NodeId>(c / ports_of()), static_cast<Port>(c % ports_of()), i);
  }
  /// Removes message i of u's channel on port p (a bag: the last message takes its place).
  [[gnu::always_inline]] void remove(NodeId u, Port p, unsigned i) {
    const std::size_t c = channel(u, p);
    std::uint8_t* rec = record(u);
    const unsigned last = (rec[fields().counts(p)] & count_mask) - 1u;
    if (i != last) {
      const Stored m = stored(u, p, last);
      if (i < inline_slots) {
        rec[fields().byte(i, p)] = m.byte, store_stamp(rec + fields().stamp(i, p), m.stamp);
        if (!id_.empty()) id_[c * inline_slots + i] = m.id;
      } else {
        overflow_[c][i - inline_slots] = m;
      }
    }
    if (last >= inline_slots) {
      auto& spill = overflow_[c];
      spill.pop_back();
      if (spill.empty()) overflow_.erase(c);
    }
    --rec[fields().counts(p)];
    --in_transit_;
    // The sender's copy of this count.
    if (keep_outgoing_ && p != core::self_port && peer(u, p) != no_node) {
      if (batching_)
        write_later(peer(u, p), peer_port(u, p), entry_outgoing_delivered);
      else
        counts_byte(peer(u, p), peer_port(u, p)) -= outgoing_one;
    }
  }

  /// Messages in transit along the edge at `to`'s port p, given the other end.
  [[nodiscard]] unsigned along(NodeId to, Port p, NodeId from, Port from_port) const {
    unsigned n = count(to, p);
    if (p != core::self_port) n += count(from, from_port);
    return n;
  }

  /// The result of posting one message.
  struct Posted {
    unsigned along;  ///< messages in transit along its edge afterwards (P4)
    bool stored;     ///< false: the channel overflowed 255 messages
  };
  /// Sends `byte` from u's port p to `to`'s port `to_port` (an existing edge, or port 0).
  [[gnu::always_inline]] Posted post(NodeId u, Port p, NodeId to, Port to_port, std::uint8_t byte, std::uint64_t id) {
    std::uint8_t& own = counts_byte(u, p);
    if (batching_ && p != core::self_port && (own >> 4) < inline_slots) {
      // Deferred: the message joins the receiver's channel before anything reads it (see
      // write_later); P4 is checked now, from the sender's record alone.
      own = static_cast<std::uint8_t>(own + outgoing_one), ++in_transit_;
      write_later(to, to_port, unsigned{byte} << 1 | entry_message);
      return {(unsigned{own} >> 4) + (unsigned{own} & count_mask), true};
    }
    // An earlier send of this action on this port (a double send, errata E3) may still wait in
    // the receiver's block list: it goes first, as it would have with immediate writes.
    if (pipelined_) [[unlikely]]
      return post_in_pipeline(u, p, to, to_port, byte, id);
    if (batching_ && p != core::self_port && (to >> block_shift_) != block_) {
      if (in_ticks_) [[unlikely]]
        apply_tick_writes();
      else
        apply_block(to >> block_shift_);
    }
    const bool ok = enqueue(to, to_port, byte, id);
    if (ok && keep_outgoing_ && p != core::self_port) own = static_cast<std::uint8_t>(own + outgoing_one);
    return {along(to, to_port, u, p), ok};
  }
  /// A test's message put straight into u's channel on `port`.
  bool inject(NodeId u, Port port, std::uint8_t byte, std::uint64_t id) {
    flush_deferred();
    if (port != core::self_port && peer(u, port) == no_node) injected_on_free_port_ = true;
    const bool ok = enqueue(u, port, byte, id);
    if (keep_outgoing_ && ok && port != core::self_port && peer(u, port) != no_node)
      counts_byte(peer(u, port), peer_port(u, port)) += outgoing_one;
    return ok;
  }

  /// Whether any message waits in u's channels, receivable now or not (one sent in the current
  /// tick is not yet).
  [[nodiscard]] bool has_messages(NodeId u) const {
    for (Port p = 0; p <= delta_of(); ++p)
      if (count(u, p) != 0) return true;
    return false;
  }

  /// Collects the messages u may receive now: those not sent in the current tick and not held
  /// back by the delivery rule.
  void receivable(NodeId u, const DelayRule& delay, Candidates& out) const {
    unsigned k = 0;
    if (!delay.active && overflow_.empty() && ports_of() * inline_slots <= 64) {
      // The common case, without branches on the (unpredictable) channel contents: every channel
      // holds at most the inline slots, and a slot is a candidate if it is occupied and its message
      // was not sent in the current tick. Same candidates, in the same order, as the general loop.
      const std::uint64_t mask = receivable_of(record(u), now16());
      out.masked = true, out.mask = mask;
      out.k = core::PortSet<std::uint64_t>(mask).size();
      return;
    }
    for (Port p = 0; p <= delta_of(); ++p) {
      for (unsigned i = 0; i < count(u, p) && k < out.slots.size(); ++i) {
        const std::uint16_t age = age_of(stored(u, p, i));
        if (age == 0) continue;  // sent by an execution that did not start earlier
        if (delay.active && (u == delay.target || (p && peer(u, p) == delay.target)) && age < delay.patience_ticks)
          continue;  // the target's message is held back, within the fairness bound
        out.slots[k++] = Slot{p, static_cast<std::uint16_t>(i)};
      }
    }
    out.masked = false, out.k = k;
  }

  /// Starts loading what w's activation will touch: its own channels and, for its sends, its
  /// neighbours' channels (with deferred writes, only its peer list).
  void prefetch(NodeId w) const {
    if (!batching_) prefetch_far(w);
    prefetch_own(w);
  }
  /// In two steps, for the asynchronous engine, whose next executions are known a few places ahead:
  /// w's own channels and peer list first, then (a few executions later, once the peer list is in
  /// cache) the neighbours' channels its sends will write.
  void prefetch_own(NodeId w) const {
    // The far ends' first line only: loading their end here too made the asynchronous engine
    // slower (docs/performance.md); it is loaded later, by prefetch_far_ports.
    __builtin_prefetch(far_node(w, 1));
    prefetch_channels(w);
  }
  /// The end of w's far ends' record (5 * Delta bytes: it often straddles two lines), which a
  /// delivery reads with deferred writes (the sender's port, for its `outgoing`).
  /// Packed far ends hold the ports in the words prefetch_own loads: nothing more to load.
  void prefetch_far_ports(NodeId w) const {
    if constexpr (!packed_far_ends) __builtin_prefetch(far_port(w, static_cast<Port>(delta_of())));
  }
  /// w's own channels alone (what a pipelined round's choosing thread reads of w's records).
  void prefetch_channels(NodeId w) const {
    // One line at Delta = 8 (a record of 64 bytes on a 64-byte boundary).
    const std::uint8_t* own = record(w);
    __builtin_prefetch(own, 1);
    if (stride_of() > 64 || stride_of() % 64 != 0) __builtin_prefetch(own + stride_of() - 1, 1);
  }
  /// w's neighbour ports and detector (one record), for an engine that takes nodes in a random
  /// order (the semi-synchronous scan reads them in order, where this would only cost time).
  void prefetch_port_sets(NodeId w) const { __builtin_prefetch(&port_sets_[w], 1); }
  void prefetch_far(NodeId w) const {
    for (Port p : neighbours(w)) __builtin_prefetch(&counts_byte(peer(w, p), peer_port(w, p)), 1);
  }
  /// Before a send: start loading the receivers' channels so that their cache misses overlap
  /// (deferred writes do not load them now).
  void prefetch_receivers(NodeId u, Ports ports) const {
    if (batching_) return;
    for (Port p : ports)
      if (p != core::self_port && peer(u, p) != no_node)
        __builtin_prefetch(&counts_byte(peer(u, p), peer_port(u, p)), 1);
  }

  // ---------------------------------------------------------------- deferred writes
  // In a semi-synchronous round the scan visits nodes in increasing order and each node acts at
  // most once, so a write into another node's channel (a message, or a decrement of the sender's
  // `outgoing` copy at a delivery) need not happen at the send: it only has to happen before its
  // owner's memory is next read. The scan works through blocks of 2^block_shift_ nodes; a write for
  // the current block is made at once, a write for any other block waits in that block's list,
  // which is applied in order when the scan next enters the block, in this round or the next one
  // (end_scan says which lists wait across a round's end, and with which tick).
  // Writes for one channel come from one sender and keep their order,
  // and no monitor reads another node's channel (P4 uses `outgoing`), so every read sees what it
  // would have seen with immediate writes: the same candidates, slots, reports, excerpts and
  // hashes (tests/sim/deferred_writes_test.cpp compares both on every kind of scenario). What it
  // buys is locality: the writes for a block arrive together, just before the scan reads that
  // block's channels, instead of one cache miss per send at a random place.

  /// The semi-synchronous scan of a round begins (writes are deferred from now on, if kept).
  void begin_scan() {
    batching_ = keep_outgoing_;
    if (batching_ && deferred_.empty()) {
      const std::size_t blocks = (std::size_t{n_} >> block_shift_) + 1;
      deferred_.resize(blocks), carried_.assign(blocks, 0), entered_.assign(blocks, ~std::uint64_t{0});
    }
    append_to(deferred_.data(), deferred_count_, deferred_cap_);
    block_ = ~std::size_t{0};
  }
  /// The scan reaches node u in `round`: entering a new block applies the writes waiting for it.
  [[gnu::always_inline]] void enter(std::uint64_t u, std::uint64_t round) {
    if (batching_ && (u >> block_shift_) != block_) {
      block_ = u >> block_shift_, entered_[block_] = round;
      if (pipelined_)
        apply_list(block_, fresh_[block_], 0, fresh_count_);
      else
        apply_block(block_);
    }
  }

  // ---------------------------------------------------------------- the pipelined scan
  // With two threads a semi-synchronous round is a pipeline (engine.cpp, "The pipelined round"):
  // a choosing thread runs the scan ahead and only reads channels, except that it applies the
  // writes carried over from the last round as it enters each block (enter_ahead); the performing
  // thread follows block by block, one block behind at least, and makes every other write: this
  // round's writes into a block are kept in a second set of lists (`fresh_`), applied when the
  // performing thread enters the block. A channel's contents thus change in the order the
  // one-thread scan changes them; the choosing thread reads a block's channels before this round's
  // writes into them arrive, which changes nothing it reads (those messages are not receivable in
  // this round and take slots after the ones it reads).

  /// The scan about to start (after begin_scan) is pipelined; `await_choosing` lets the choosing
  /// thread run to the round's end and waits for it (before a write that cannot wait in a list).
  void begin_pipeline(std::function<void()> await_choosing) {
    pipelined_ = true, ahead_block_ = ~std::size_t{0};
    carried_pending_ = std::exchange(deferred_count_, 0);
    if (fresh_.size() != deferred_.size()) fresh_.resize(deferred_.size());
    append_to(fresh_.data(), fresh_count_, pipelined_cap_);
    await_choosing_ = std::move(await_choosing);
  }
  /// The choosing thread reaches node u: entering a block applies the writes carried over into it.
  void enter_ahead(std::uint64_t u) {
    if ((u >> block_shift_) == ahead_block_) return;
    ahead_block_ = u >> block_shift_;
    apply_list(ahead_block_, deferred_[ahead_block_], deferred_[ahead_block_].size(), carried_pending_,
               carried_applied_);
    carried_[ahead_block_] = 0;
  }
  /// The scan block of node u.
  [[nodiscard]] std::size_t block_of(std::uint64_t u) const { return u >> block_shift_; }
  /// Whether a pipelined scan may start: no channel holds more than its inline slots (the side
  /// table of longer channels is not shared between the threads).
  [[nodiscard]] bool can_pipeline() const { return keep_outgoing_ && overflow_.empty(); }
  /// The scan of `round` is over. The writes for blocks the scan has passed wait for the next
  /// round's scan, which applies them just before it reads those blocks' channels. A block the scan
  /// did not enter has its list applied now, so that what waits was all sent in this round, at
  /// tick `carried_stamp_`.
  void end_scan(std::uint64_t round) {
    if (!batching_) return;
    if (pipelined_) {
      // The carried lists of blocks the choosing thread did not enter, and this round's lists of
      // blocks the performing thread did not enter, as the one-thread scan applies them; what
      // was written into blocks behind waits for the next round, as there.
      merge_choosing_counts();
      for (std::size_t b = 0; b < deferred_.size(); ++b) {
        apply_block(b);
        if (entered_[b] != round) apply_list(b, fresh_[b], 0, fresh_count_);
        std::swap(deferred_[b], fresh_[b]);  // carried_ is set below, as for one thread
      }
      deferred_count_ += fresh_count_, fresh_count_ = 0;
      pipelined_ = false;
      append_to(deferred_.data(), deferred_count_, deferred_cap_);
      await_choosing_ = nullptr;
    }
    for (std::size_t b = 0; b < deferred_.size(); ++b) {
      if (entered_[b] != round) apply_block(b);
      carried_[b] = static_cast<std::uint32_t>(deferred_[b].size());
    }
    carried_stamp_ = now16();
    block_ = ~std::size_t{0}, batching_ = false;
  }
  /// Before anything outside the scan reads or writes channels (a topology change, an injected
  /// message, the summary): the writes carried over from the last round are made.
  void flush_deferred() {
    if (deferred_count_) apply_deferred();
    if (tick_writes_.size()) apply_tick_writes();
  }
  [[nodiscard]] bool batching() const { return batching_; }
  /// Writes deferred so far: those applied, counted per list (one counter in the send path, not
  /// two: GCC fused two adjacent increments into a 16-byte load and store, which the next
  /// increment's load could not take from the narrower stores in between), and those pending.
  [[nodiscard]] std::uint64_t deferred_writes() const {
    return deferred_writes_ + deferred_count_ + tick_writes_.size();
  }

  // ---------------------------------------------------------------- the asynchronous engine's ticks
  // The asynchronous engine takes the executions of a tick in increasing node order, and a message
  // sent at tick t is receivable from t + 1 on (docs/simulator.md). So a write into another node's
  // channel (a message, or the decrement of the sender's `outgoing` at a delivery) only has to be
  // made before that node's next execution: at once if it may still start one at this tick (a
  // node after the writer in the tick's order: the calendar counts them, see
  // WakeupQueue::may_start_in_this_tick), else at the tick's end. The writes of a tick are then
  // applied together, loaded ahead, instead of one cache miss per send at a random place in the
  // channel array. As with the scan's deferred writes, P4 is counted at the send from the
  // sender's own record (`outgoing`), every write into a channel comes from the one node across
  // its edge, in its order, and any write may be made early (flush_deferred), never late.

  /// The executions of a round begin: writes are deferred per tick from now on, if kept.
  /// `executions`: which nodes the tick being taken may still start, kept by whoever hands out the
  /// executions (the calendar, or the engine from a round's schedule).
  void begin_ticks(const TickCounts& executions) {
    if (!keep_outgoing_) return;
    if (!executions.active()) throw std::logic_error("sim: deferred writes in ticks need the calendar's counts");
    batching_ = in_ticks_ = true, block_ = ~std::size_t{0}, executions_ = &executions;
  }
  void begin_ticks(const WakeupQueue& executions) { begin_ticks(executions.tick_counts()); }
  /// The tick being taken ends (before the clock moves on: the writes get its stamp).
  [[gnu::always_inline]] void end_tick() {
    if (tick_writes_.size()) apply_tick_writes();
  }
  /// The executions of a round end: every write is made, and later writes are immediate.
  void end_ticks() {
    if (!in_ticks_) return;
    end_tick();
    batching_ = in_ticks_ = false;
  }

  /// The bytes held, by part (appended to `parts`; the summary's bytes_per_node_by_part).
  void add_memory_parts(std::vector<MemoryPart>& parts) const {
    std::size_t deferred = deferred_.capacity() * sizeof(deferred_[0]) + carried_.capacity() * sizeof(carried_[0]) +
                           entered_.capacity() * sizeof(entered_[0]) + tick_writes_.bytes();
    for (const auto& list : deferred_) deferred += list.bytes();
    for (const auto& list : fresh_) deferred += list.bytes();
    parts.push_back({"port_sets", port_sets_.capacity() * sizeof(PortSets)});
    parts.push_back({"far_ends", far_ends_.capacity()});
    parts.push_back({"channels", channels_.capacity()});
    parts.push_back({"message_ids", id_.capacity() * 8});
    parts.push_back({"deferred_writes", deferred});
  }
  [[nodiscard]] std::size_t bytes() const {
    std::vector<MemoryPart> parts;
    add_memory_parts(parts);
    return total_bytes(parts);
  }

 private:
  template <class OnLost>
  void drop_channel(NodeId u, Port p, OnLost& on_lost) {
    while (const unsigned k = count(u, p)) {
      const Stored m = stored(u, p, k - 1u);
      on_lost(u, p, m);
      remove(u, p, k - 1u);
    }
  }

  /// entry: the channel within its block (the node's place there above port_shift_of() bits of
  /// port), the message byte, the kind bit
  static constexpr unsigned entry_shift = 9;
  static constexpr unsigned entry_message = 0, entry_outgoing_delivered = 1;
  /// Bits of a port in an entry's channel: enough for ports 0..ports - 1.
  [[nodiscard]] static constexpr unsigned port_shift_for(unsigned ports) {
    return static_cast<unsigned>(std::bit_width(ports - 1u));
  }
  [[nodiscard]] constexpr unsigned port_shift_of() const { return port_shift_for(ports_of()); }

  [[nodiscard]] std::size_t block_base(std::size_t b) const { return (b << block_shift_) * stride_of(); }
  [[nodiscard]] std::uint32_t entry(NodeId owner, Port p, unsigned payload) const {
    const std::size_t in_block = std::size_t{owner & ((NodeId{1} << block_shift_) - 1)} << port_shift_of() | p;
    return static_cast<std::uint32_t>(in_block << entry_shift | payload);
  }
  /// A write into owner's channel on port p (its payload as an entry's): made now or later.
  [[gnu::always_inline]] void write_later(NodeId owner, Port p, unsigned payload) {
    // In ticks no block is entered (block_ is none), and the entry numbers the channel in the
    // whole array: the node itself above the port, without the block's arithmetic.
    if (in_ticks_) return write_in_tick(owner, (std::uint64_t{owner} << port_shift_of() | p) << entry_shift | payload);
    const std::uint32_t e = entry(owner, p, payload);
    const std::size_t b = owner >> block_shift_;
    if (b == block_) return apply_write(channels_.data() + block_base(b), e, now16());
    appending_[b].append(e);
    if (++*appending_count_ >= appending_cap_) [[unlikely]]
      over_cap();
  }
  /// write_later in the asynchronous engine's ticks; `e` numbers the channel in the whole array.
  [[gnu::always_inline]] void write_in_tick(NodeId owner, std::uint64_t e) {
    if (executions_->may_start(owner)) return apply_write(channels_.data(), e, now16());
    tick_writes_.append(e);
  }
  /// Entries apply_tick_writes loads ahead.
  static constexpr std::size_t tick_prefetch_distance = 16;
  void apply_tick_writes() {
    const std::size_t size = tick_writes_.size();
    apply_entries<tick_prefetch_distance>(channels_.data(), tick_writes_.data(), 0, size, size, now16());
    deferred_writes_ += size;
    tick_writes_.clear();
  }
  /// Where write_later appends from now on: these lists, counted in `count`, up to `cap`.
  void append_to(WriteList* lists, std::size_t& count, std::size_t cap) {
    appending_ = lists, appending_count_ = &count, appending_cap_ = cap;
  }
  [[gnu::noinline]] void over_cap() {
    if (!pipelined_) return apply_deferred();
    // Only the blocks both threads have left (the choosing thread may be reading those ahead), and
    // of those only the ones whose carried writes are made: in a block the scan did not enter,
    // they wait for end_scan, and this round's must come after them.
    for (std::size_t b = 0; b < block_ && b < fresh_.size(); ++b)
      if (deferred_[b].size() == 0) apply_list(b, fresh_[b], 0, fresh_count_);
    if (fresh_count_ >= pipelined_cap_) apply_deferred_after_choosing();
  }
  /// Applies entry e of the block whose first record is `base`; a message gets the stamp of the
  /// tick it was sent in.
  [[gnu::always_inline]] void apply_write(std::uint8_t* base, std::uint64_t e, std::uint16_t stamp) {
    const std::uint64_t in_block = e >> entry_shift;
    const auto p = static_cast<unsigned>(in_block & ((1u << port_shift_of()) - 1));
    std::uint8_t* rec = base + (in_block >> port_shift_of()) * stride_of();
    const ChannelFields f = fields();
    const unsigned counts = rec[f.counts(p)], k = counts & count_mask;
    const bool message = (e & 1) == entry_message;
    // Only deferred while the receiver held fewer than inline_slots messages (the sender's copy
    // said so), so a message takes an inline slot.
    if (unsigned(message) & unsigned(k >= inline_slots)) [[unlikely]]
      throw std::logic_error("sim: a deferred message found its channel full (its sender's count was wrong)");
    // Without a branch on the entry's kind, which is random (a branch on it mispredicted on about
    // half of the writes): a message's slot gets its stamp and byte, an outgoing decrement
    // rewrites the slot it would have taken (k & 1, free or not) with what it holds.
    const unsigned slot = k & (inline_slots - 1);  // k itself for a message
    std::uint8_t* stamp_at = rec + f.stamp(slot, p);
    std::uint8_t* byte_at = rec + f.byte(slot, p);
    const std::uint16_t old_stamp = load_stamp(stamp_at);
    const std::uint8_t old_byte = *byte_at;
    store_stamp(stamp_at, message ? stamp : old_stamp);
    *byte_at = message ? static_cast<std::uint8_t>(e >> 1) : old_byte;
    rec[f.counts(p)] = static_cast<std::uint8_t>(message ? counts + 1 : counts - outgoing_one);
  }
  /// Entries apply_block prefetches ahead: each write is one miss at a random place in the block,
  /// and 32 in flight rather than 8 made `lmx bench` about 1.1 times faster (docs/simulator.md).
  static constexpr std::size_t apply_prefetch_distance = 32;
  void apply_block(std::size_t b) {
    apply_list(b, deferred_[b], carried_[b], deferred_count_);
    carried_[b] = 0;
  }
  /// Applies `list` to block b, its first `carried` entries with the last round's stamp, and
  /// takes its entries off `pending`.
  void apply_list(std::size_t b, WriteList& list, std::size_t carried, std::size_t& pending) {
    apply_list(b, list, carried, pending, deferred_writes_);
  }
  void apply_list(std::size_t b, WriteList& list, std::size_t carried, std::size_t& pending, std::uint64_t& applied) {
    const std::size_t size = list.size();
    if (size == 0) return;
    // Not &channels_[...]: when n is a multiple of the block size, the last block is empty and
    // its base is the end of the array.
    std::uint8_t* base = channels_.data() + block_base(b);
    // Read once: the channel records' byte stores may alias the clock, or the list's own pointer,
    // for all the compiler knows (reloading them spilled registers at every write).
    const std::uint16_t now = now16(), before = carried_stamp_;
    const std::uint32_t* entries = list.data();
    const std::size_t split = std::min(carried, size);
    apply_entries<apply_prefetch_distance>(base, entries, 0, split, size, before);
    apply_entries<apply_prefetch_distance>(base, entries, split, size, size, now);
    pending -= size, applied += size;
    list.clear();
  }
  /// Applies entries [from, to) of a list of `size` with one stamp, loading the records of those
  /// `distance` places on early: two loops, so that neither tests per entry which stamp it takes or
  /// whether an entry is left to load.
  template <std::size_t distance, class Entry>
  [[gnu::always_inline]] void apply_entries(std::uint8_t* base, const Entry* entries, std::size_t from, std::size_t to,
                                            std::size_t size, std::uint16_t stamp) {
    const std::size_t loaded_to = size > distance ? std::min(to, size - distance) : 0;
    std::size_t i = from;
    for (; i < loaded_to; ++i) {
      __builtin_prefetch(base + (std::uint64_t{entries[i + distance]} >> (entry_shift + port_shift_of())) * stride_of(),
                         1);
      apply_write(base, entries[i], stamp);
    }
    for (; i < to; ++i) apply_write(base, entries[i], stamp);
  }
  void apply_deferred() {
    for (std::size_t b = 0; b < deferred_.size(); ++b) apply_block(b);
    for (std::size_t b = 0; b < fresh_.size(); ++b) apply_list(b, fresh_[b], 0, fresh_count_);
  }
  /// In a pipelined scan, before a write that cannot wait in a list: the choosing thread is let
  /// run to the round's end (it reads channels ahead), and the lists are applied in their order.
  void apply_deferred_after_choosing() {
    if (await_choosing_) await_choosing_();
    merge_choosing_counts();
    apply_deferred();  // per block the carried writes first, then this round's
  }
  /// The choosing thread's counts (kept apart while it runs) joined to the network's.
  void merge_choosing_counts() {
    deferred_count_ += std::exchange(carried_pending_, 0);
    deferred_writes_ += std::exchange(carried_applied_, 0);
  }
  /// post's immediate write in a pipelined scan. A message to the sender's own port 0 that fits an
  /// inline slot is written in this block, which the choosing thread has left. Anything else (a
  /// message beyond a channel's inline slots: P4 is broken) waits for the choosing thread to finish
  /// the round, which only reads the channels ahead: this thread makes every change to them, in the
  /// one-thread scan's order.
  [[gnu::noinline]] Posted post_in_pipeline(NodeId u, Port p, NodeId to, Port to_port, std::uint8_t byte,
                                            std::uint64_t id) {
    if (p != core::self_port || count(to, to_port) >= inline_slots) apply_deferred_after_choosing();
    const bool ok = enqueue(to, to_port, byte, id);
    if (ok && p != core::self_port) counts_byte(u, p) += outgoing_one;
    return {along(to, to_port, u, p), ok};
  }

  NodeId n_;
  unsigned delta_, ports_;  ///< runtime values; read through delta_of() and ports_of()
  [[nodiscard]] constexpr unsigned delta_of() const {
    if constexpr (FixedDelta != 0) return FixedDelta;
    return delta_;
  }
  [[nodiscard]] constexpr unsigned ports_of() const { return delta_of() + 1; }
  [[nodiscard]] constexpr std::size_t far_stride_of() const {
    return std::size_t{packed_far_ends ? 4u : 5u} * delta_of();
  }
  /// The candidate mask for this many ports (used while they fit one 64-bit mask).
  const ReceivableMask receivable_mask_ = ports_ * inline_slots <= 64 ? receivable_mask_for(ports_) : nullptr;
  [[nodiscard]] std::uint64_t receivable_of(const std::uint8_t* rec, std::uint16_t now) const {
    if constexpr (FixedDelta != 0 && (FixedDelta + 1) * inline_slots <= 64)
      return receivable_mask_of<FixedDelta + 1>(rec, now);
    return receivable_mask_(rec, now);
  }
  /// Where the fields of a node's channel record lie (channel.hpp), and the record's size.
  [[nodiscard]] constexpr ChannelFields fields() const { return ChannelFields{ports_of()}; }
  [[nodiscard]] constexpr std::size_t stride_of() const { return fields().stride(); }
  [[nodiscard]] std::uint8_t* record(NodeId u) { return channels_.data() + std::size_t{u} * stride_of(); }
  [[nodiscard]] const std::uint8_t* record(NodeId u) const { return channels_.data() + std::size_t{u} * stride_of(); }
  /// The count (low 4 bits) and the sender's copy (high 4 bits) of u's channel on port p.
  [[nodiscard]] std::uint8_t& counts_byte(NodeId u, Port p) { return record(u)[fields().counts(p)]; }
  [[nodiscard]] const std::uint8_t& counts_byte(NodeId u, Port p) const { return record(u)[fields().counts(p)]; }
  /// A node's two port sets side by side: an execution reads both, so one cache miss, not two.
  struct PortSets {
    Word neighbours = 0;  ///< ports with an edge
    Word detector = 0;    ///< the disconnection detector's D
  };
  BigArray<PortSets> port_sets_;
  /// Per node, the far ends of its ports 1..Delta: Delta node numbers (4 bytes each, unaligned)
  /// and then Delta port numbers, in one record of 5 * Delta bytes, so that a send finds a
  /// neighbour's number and port in the same line or two (they were two arrays, two misses);
  /// packed (packed_far_ends), Delta words of 4 bytes.
  BigArray<std::uint8_t> far_ends_;
  [[nodiscard]] const std::uint8_t* far_node(NodeId u, Port p) const {
    return &far_ends_[std::size_t{u} * far_stride_of() + std::size_t{4} * (p - 1)];
  }
  /// Unpacked far ends only: the byte of port p's far port.
  [[nodiscard]] const std::uint8_t* far_port(NodeId u, Port p) const {
    return &far_ends_[std::size_t{u} * far_stride_of() + std::size_t{4} * delta_of() + (p - 1)];
  }
  [[nodiscard]] std::uint8_t* far_port(NodeId u, Port p) {
    return &far_ends_[std::size_t{u} * far_stride_of() + std::size_t{4} * delta_of() + (p - 1)];
  }
  /// Port p's far node, unpacked; packed, only no_node (a free port's word, ~0).
  void set_peer(NodeId u, Port p, NodeId v) {
    std::memcpy(&far_ends_[std::size_t{u} * far_stride_of() + std::size_t{4} * (p - 1)], &v, sizeof v);
  }
  void set_far_end(NodeId u, Port p, NodeId v, Port pv) {
    if constexpr (packed_far_ends) {
      const std::uint32_t w = v << port_bits | pv;
      std::memcpy(&far_ends_[std::size_t{u} * far_stride_of() + std::size_t{4} * (p - 1)], &w, sizeof w);
    } else {
      set_peer(u, p, v), *far_port(u, p) = pv;
    }
  }
  static constexpr unsigned port_bits = 4;
  static constexpr std::uint32_t port_mask = (1u << port_bits) - 1;
  /// A packed word's far node: no_node for a free port's ~0.
  [[nodiscard]] static NodeId unpacked_node(std::uint32_t w) {
    return static_cast<NodeId>(static_cast<std::int32_t>(w) >> port_bits);
  }
#if defined(__SSE2__)
  /// Four far nodes from `at` (ports p..p+3), unpacked.
  [[nodiscard]] static __m128i far_nodes4(const std::uint8_t* at) {
    const __m128i four = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
    if constexpr (packed_far_ends) return _mm_srai_epi32(four, port_bits);
    return four;
  }
#endif
  /// One record of stride_of() bytes per node (channel.hpp).
  BigArray<std::uint8_t> channels_;
  BigArray<std::uint64_t> id_;
  std::unordered_map<std::size_t, std::vector<Stored>> overflow_;
  bool injected_on_free_port_ = false;  ///< inject wrote to a port without an edge

  /// Nodes per block of the scan: 2^14 (tuned with `lmx bench` among 2^10 to 2^18; their channel
  /// records take 1.1 MiB at Delta = 8); tests use smaller blocks to make blocks that a round's
  /// scan does not enter common.
  const unsigned block_shift_;
  const bool keep_ids_;       ///< message ids are stored (trace lines)
  const bool keep_outgoing_;  ///< the sender's copies of the far counts are kept (deferred writes)
  /// Waiting entries beyond which all are applied at once: 4 bytes of entries a node in the
  /// one-thread scan, 8 in a pipelined one (docs/performance.md, "The deferred writes' cap").
  /// Below n, the one-thread scan got slower; a pipelined one with n, about a tenth slower.
  const std::size_t deferred_cap_, pipelined_cap_;
  const std::uint32_t& now_;
  std::vector<WriteList> deferred_;            ///< deferred writes per block
  std::vector<std::uint32_t> carried_;         ///< per block: its first entries, sent in the last round
  std::vector<std::uint64_t> entered_;         ///< per block: the last round whose scan entered it
  std::vector<WriteList> fresh_;               ///< this round's writes per block, while pipelined
  const TickCounts* executions_ = nullptr;     ///< the asynchronous engine's, while in_ticks_
  BasicWriteList<std::uint64_t> tick_writes_;  ///< the tick's deferred writes (whole-array entries)

  // What changes at every action, on a line of its own: in a pipelined round (begin_pipeline) the
  // recording thread writes these while the choosing thread reads the members above, and a line
  // shared by both moved between the two cores at every action.
  alignas(64) std::uint64_t in_transit_ = 0;
  std::uint64_t edges_ = 0;
  bool batching_ = false;                ///< writes are deferred (semi-synchronous scan)
  bool pipelined_ = false;               ///< and the scan is pipelined
  bool in_ticks_ = false;                ///< or the asynchronous engine's ticks (begin_ticks)
  std::uint16_t carried_stamp_ = 0;      ///< the tick of the carried entries
  std::size_t block_ = ~std::size_t{0};  ///< the block the scan is in
  std::size_t deferred_count_ = 0;
  std::uint64_t deferred_writes_ = 0;
  std::size_t fresh_count_ = 0;     ///< entries in fresh_
  WriteList* appending_ = nullptr;  ///< the lists write_later appends to
  std::size_t* appending_count_ = &deferred_count_;
  std::size_t appending_cap_ = 0;  ///< the cap on *appending_count_
  std::function<void()> await_choosing_;
  // The choosing thread's, on a line of its own too.
  alignas(64) std::size_t ahead_block_ = ~std::size_t{0};  ///< the choosing thread's block
  std::size_t carried_pending_ = 0;                        ///< the choosing thread's part of deferred_count_
  std::uint64_t carried_applied_ = 0;                      ///< and of deferred_writes_
};

}  // namespace lmx::sim
