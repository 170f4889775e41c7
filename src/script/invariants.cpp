// Network::violations: the invariants every reachable state must satisfy, checked on the whole
// network after any step. Used by the property tests and by the `check` command of golden scripts.
#include <string>
#include <vector>

#include "lmx/script/network.hpp"

namespace lmx::script {

using core::Port;

std::size_t Network::in_transit_on_edge(unsigned u, Port port) const {
  const auto there = peer(u, port);
  if (!there) return 0;
  return nodes_.at(u).inbox.at(port).size() + nodes_.at(there->first).inbox.at(there->second).size();
}

std::vector<std::string> Network::violations() const {
  std::vector<std::string> found;
  const Ports all = Ports::range(0, static_cast<Port>(config().delta));
  for (unsigned u = 0; u < size(); ++u) {
    const State& s = nodes_[u].state;
    const std::string who = node_name(u) + ": ";
    if (!(s.candidates & s.applicants).empty()) found.push_back(who + "C and A intersect");
    if (!(s.priorities.ports - s.candidates).empty()) found.push_back(who + "P names a port outside C");
    if (!(s.on_hold & (s.applicants | s.candidates)).empty()) found.push_back(who + "H intersects A or C");
    const Ports registers[] = {s.lock_set, s.replied,    s.win_outcomes.won, s.win_outcomes.lost,
                               s.on_hold,  s.applicants, s.candidates,       s.priorities.ports};
    for (Ports r : registers)
      if (!(r - all).empty()) found.push_back(who + "a register holds a port beyond Delta");
    if (s.lock_port != core::no_port && s.lock_port > config().delta) found.push_back(who + "lock beyond Delta");

    // P2: while u is LOCKED, every port of L whose edge persisted since u last acted (not in D)
    // leads to a node whose lock points back at u.
    if (s.state == core::InitiatorState::locked) {
      for (Port l : s.lock_set - nodes_[u].disconnected) {
        if (l == core::self_port) {
          if (s.lock_port != core::self_port) found.push_back(who + "LOCKED but lock(u) is not 0 (P2)");
          continue;
        }
        const auto there = peer(u, l);
        if (there && nodes_[there->first].state.lock_port != there->second)
          found.push_back(who + "LOCKED but " + node_name(there->first) + " does not point back (P2)");
      }
    }
    // P4, each edge counted once, from its lower-numbered end.
    for (Port p = 1; p <= config().delta; ++p) {
      const auto there = peer(u, p);
      if (there && there->first > u && in_transit_on_edge(u, p) > 2)
        found.push_back(who + std::to_string(in_transit_on_edge(u, p)) + " messages in transit on port " +
                        std::to_string(p) + " (P4)");
    }
  }
  // P1: lock sets pairwise disjoint.
  std::vector<int> owner(size(), -1);
  for (unsigned u = 0; u < size(); ++u)
    for (unsigned v : lock_set_of(u)) {
      if (owner[v] >= 0)
        found.push_back(node_name(v) + " is in the lock sets of " + node_name(static_cast<unsigned>(owner[v])) +
                        " and " + node_name(u) + " (P1)");
      owner[v] = static_cast<int>(u);
    }
  if (last_effects_.port_sent_twice) found.push_back("last action sent two messages to one port");
  if (last_effects_.priority_overwritten) found.push_back("last action overwrote a priority in P");
  return found;
}

}  // namespace lmx::script
