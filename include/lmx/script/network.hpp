// A small network driven by hand: the host the golden scenario tests, the `lmx demo` command and
// documentation examples use to play Algorithms 1-3 step by step. It implements the model of
// Section 3.1 literally but lets the caller choose every activation, delivery, topology change and
// priority, and logs each step in a readable line.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "lmx/core/protocol.hpp"

namespace lmx::script {

using Word = std::uint64_t;
using Ports = core::PortSet<Word>;
using State = core::NodeState<Word>;

/// A message waiting at a port of its receiver.
struct InTransit {
  core::Message message;
  std::uint64_t id = 0;  ///< send order, unique per network
};

class Network {
 public:
  Network(unsigned nodes, core::Config config);

  [[nodiscard]] unsigned size() const { return static_cast<unsigned>(nodes_.size()); }
  [[nodiscard]] const core::Config& config() const { return protocol_.config(); }
  [[nodiscard]] const State& state(unsigned u) const { return nodes_.at(u).state; }
  [[nodiscard]] Ports disconnected(unsigned u) const { return nodes_.at(u).disconnected; }
  [[nodiscard]] Ports neighbours(unsigned u) const;
  /// Messages waiting at port `port` of node u, oldest first.
  [[nodiscard]] const std::vector<InTransit>& waiting(unsigned u, core::Port port) const;
  /// The node and port at the other end of u's port, if connected.
  [[nodiscard]] std::optional<std::pair<unsigned, core::Port>> peer(unsigned u, core::Port port) const;

  // Topology (the adversary's moves). Each returns an error text, empty on success.
  std::string connect(unsigned u, core::Port pu, unsigned v, core::Port pv);
  std::string cut(unsigned u, core::Port pu);

  /// Priorities to hand out, in order, before falling back to the seeded generator.
  void queue_priority(unsigned p) { scripted_priorities_.push_back(p); }

  // Node activations. Each returns the log line describing what happened (or the error).
  std::string lock(unsigned u);
  std::string unlock(unsigned u);
  /// Delivers the oldest message waiting at u's port (or the one of the given kind).
  std::string deliver(unsigned u, core::Port port, std::optional<core::MessageKind> kind = std::nullopt);
  std::string act(unsigned u, core::Action action);
  /// Runs one deterministic step that changes something: the oldest waiting message anywhere is
  /// delivered, else the first enabled guarded action (node order, action order) whose execution
  /// changes the node's state or sends a message. Returns empty when nothing can change. Not weakly
  /// fair: while messages keep flowing, guarded actions wait (use round() for fair progress).
  std::string step_any();
  /// One synchronous round of the semi-synchronous schedule with every node activated: each node
  /// runs its first effective guarded action, else receives its oldest message sent before the
  /// round began. Returns the log lines (empty when nothing can change).
  std::vector<std::string> round();

  /// Guarded actions enabled at u, and whether any message waits for it.
  [[nodiscard]] core::ActionSet enabled(unsigned u) const { return protocol_.enabled_guarded(state(u)); }
  [[nodiscard]] bool quiescent() const;
  /// Whether step_any() would change something (a message waits, or an effective guarded action).
  [[nodiscard]] bool can_step() const;

  /// Table-1 registers of u in the paper's notation, one line.
  [[nodiscard]] std::string describe(unsigned u) const;
  [[nodiscard]] unsigned locks_acquired(unsigned u) const { return nodes_.at(u).locks_acquired; }
  [[nodiscard]] Ports last_lock_set(unsigned u) const { return nodes_.at(u).last_lock_set; }
  /// Lock set of u as the paper defines it: v with lock(v) = label_v(u), plus u if lock(u) = 0.
  [[nodiscard]] std::vector<unsigned> lock_set_of(unsigned u) const;

  /// Effects of the last activation that ran (status ok or not).
  [[nodiscard]] const core::Effects<Word>& last_effects() const { return last_effects_; }
  /// Messages in transit along the edge at u's port, both directions (property P4 bounds it by 2).
  [[nodiscard]] std::size_t in_transit_on_edge(unsigned u, core::Port port) const;
  /// Every violated invariant, one readable line each (empty when all hold): the local invariants of
  /// Table 1's sets (C and A disjoint, ports of P within C, H disjoint from A and C, registers
  /// within ports 0..Delta, lock within bottom and 0..Delta), P1 (lock sets pairwise disjoint),
  /// P2 (a LOCKED node's lock set holds every port of L whose edge persisted since it last acted),
  /// P4 (at most two messages in transit on an edge), and the defect flags of the last activation.
  [[nodiscard]] std::vector<std::string> violations() const;

 private:
  struct Link {
    unsigned node = 0;
    core::Port port = 0;
    bool connected = false;
  };
  struct Node {
    State state;
    Ports disconnected;
    std::vector<Link> links;  // index = port; links[0] unused (self)
    // index = port; a few messages at most (P4), and an empty vector allocates nothing, unlike a
    // deque: a network of 64 nodes with Delta = 63 has 4160 of them.
    std::vector<std::vector<InTransit>> inbox;
    unsigned locks_acquired = 0;
    Ports last_lock_set;
  };

  core::Protocol<Word> protocol_;
  std::vector<Node> nodes_;
  std::deque<unsigned> scripted_priorities_;
  std::uint64_t rng_state_ = 0x9E3779B97F4A7C15ull;
  std::uint64_t next_message_id_ = 1;
  core::Effects<Word> last_effects_{};

  core::Context<Word> context(unsigned u) const;
  unsigned draw_priority(unsigned bound);
  std::string apply(unsigned u, const std::string& what, const core::Effects<Word>& fx);
  std::string check_node(unsigned u) const;
  std::string check_port(unsigned u, core::Port p, bool allow_self) const;
  std::optional<core::Action> effective_guarded(unsigned u) const;
};

/// "{0,2,3}" for a port set.
std::string format_ports(Ports ports);
/// "request-lock(2)", "win(true)", "ack-lock": the paper's spelling of a message.
std::string format_message(core::Message m);
/// A node as scripts and invariant reports name it: n0, n1, ...
std::string node_name(unsigned u);

}  // namespace lmx::script
