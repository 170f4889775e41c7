// The invariants P1, P2 and P4 on one state (docs/checker.md, "Properties and how they are decided").
#include <array>
#include <optional>
#include <string>

#include "model.hpp"

namespace lmx::check::detail {

using core::InitiatorState;
using core::Port;

std::optional<Property> Model::invariants(const Global& g, std::vector<unsigned>& nodes, std::string& detail) const {
  // P4: at most two messages in transit along any edge.
  for (unsigned u = 0; u < inst_.nodes; ++u)
    for (unsigned p = 1; p <= inst_.delta; ++p) {
      const std::uint8_t lk = g.n[u].link[p - 1];
      if (lk == no_link || (lk >> 4) < u) continue;
      const unsigned c = bag_count(g.n[u].chan[p]) + bag_count(g.n[lk >> 4].chan[lk & 15]);
      if (c > 2) {
        nodes = {u, static_cast<unsigned>(lk >> 4)};
        detail = std::to_string(c) + " messages in transit along one edge";
        return Property::P4;
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
      return Property::P2;
    }
    for (unsigned p = 1; p <= inst_.delta; ++p) {
      if (!((r.persist >> p) & 1u)) continue;
      const std::uint8_t lk = r.link[p - 1];
      const unsigned v = lk >> 4;
      if (g.n[v].s.lock_port != (lk & 15)) {
        nodes = {u, v};
        detail = "a persistent neighbour of a LOCKED node does not point at it";
        return Property::P2;
      }
      if (r.s.lock_set.contains(static_cast<Port>(p))) held[held_count++] = v;
    }
    for (unsigned i = 0; i < held_count; ++i) {
      const unsigned w = held[i];
      if (owner[w] >= 0) {
        nodes = {static_cast<unsigned>(owner[w]), u, w};
        detail = "two LOCKED nodes hold one node";
        return Property::P1;
      }
      owner[w] = static_cast<int>(u);
    }
  }
  return std::nullopt;
}

}  // namespace lmx::check::detail
