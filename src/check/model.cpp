#include "model.hpp"

#include <algorithm>

namespace lmx::check::detail {

using core::InitiatorState;
using core::Message;
using core::Port;

Model::Model(const Instance& inst) : inst_(inst), proto_(core::Config{inst.delta, inst.k, inst.variant}) {
  std::array<std::uint8_t, max_nodes> p{};
  const unsigned n = std::min(inst.nodes, max_nodes);
  for (unsigned i = 0; i < max_nodes; ++i) p[i] = static_cast<std::uint8_t>(i);
  do perms_.push_back(p);
  while (std::next_permutation(p.begin(), p.begin() + n));
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

void Model::pack(const Global& g, std::uint8_t* out) const {
  out[0] = g.changes_left;
  std::memcpy(out + 1, g.n.data(), inst_.nodes * sizeof(NodeRec));
}

void Model::unpack(const std::uint8_t* in, Global& g) const {
  g = Global{};
  g.changes_left = in[0];
  std::memcpy(g.n.data(), in + 1, inst_.nodes * sizeof(NodeRec));
}

void Model::canonical(const Global& g, std::uint8_t* out, std::uint8_t* scratch) const {
  pack(g, out);
  const std::size_t len = stride();
  for (std::size_t i = 1; i < perms_.size(); ++i) {
    const auto& perm = perms_[i];  // perm[old] = new
    scratch[0] = g.changes_left;
    for (unsigned u = 0; u < inst_.nodes; ++u) {
      NodeRec r = g.n[u];
      for (auto& lk : r.link)
        if (lk != no_link) lk = static_cast<std::uint8_t>(perm[lk >> 4] << 4 | (lk & 15));
      std::memcpy(scratch + 1 + perm[u] * sizeof(NodeRec), &r, sizeof(NodeRec));
    }
    if (std::memcmp(scratch, out, len) < 0) std::memcpy(out, scratch, len);
  }
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

void Model::finish(Global& g, unsigned u, const core::Effects<Word>& fx, Outcome& out,
                   std::vector<SentMessage>* log) const {
  NodeRec& r = g.n[u];
  if (fx.status != core::Status::ok) {
    out.problem = "internal: core returned " + std::string(core::to_string(fx.status));
    out.problem_nodes = {u};
    return;
  }
  r.d = 0;  // the action consumed the detector's snapshot
  if (fx.port_sent_twice) out.problem = "internal: a port was sent two messages in one action";
  if (fx.priority_overwritten) out.problem = "internal: a second priority arrived from one port";
  if (!out.problem.empty()) out.problem_nodes = {u};
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
  if (overflow && out.problem.empty()) {
    out.problem = "internal: more than " + std::to_string(channel_capacity) + " messages wait at one port";
    out.problem_nodes = {u};
  }
  if (fx.lock_acquired) {
    out.completed_lock = true;
    // P3: the ports returned are exactly port 0 plus the persistent neighbours of the request.
    if (fx.locked_ports.bits() != r.persist && out.problem.empty()) {
      out.problem = "P3: Lock returned ports " + std::to_string(fx.locked_ports.bits()) +
                    " (bit mask) but the persistent neighbourhood is " + std::to_string(r.persist);
      out.problem_nodes = {u};
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
      --r.locks_left;
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
    std::vector<unsigned> held{u};
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
      if (r.s.lock_set.contains(static_cast<Port>(p))) held.push_back(v);
    }
    for (unsigned w : held) {
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
