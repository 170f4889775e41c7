// Transitions: one move executed by the real core, its sends put into the receiving bags, and the
// problems it may show (docs/checker.md, "The model explored").
#include <string>

#include "model.hpp"

namespace lmx::check::detail {

using core::Port;

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

Property problem_kind(Problem p) { return p == Problem::p3 ? Property::P3 : Property::internal; }

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
      // The request: every port (InitLock, A1.4 L <- N[u]), or under lock_subsets port 0 and the
      // ports the label names (L <- ({0} u requested) n N[u]). Its persistent neighbours (P2, P3)
      // start as the requested ports that hold an edge now; cuts remove them (Move::cut).
      const Ports requested = inst_.lock_subsets ? Ports(l.a) | Ports::of(core::self_port) : proto_.all_ports();
      const auto fx = inst_.lock_subsets ? proto_.lock(r.s, ctx, requested) : proto_.lock(r.s, ctx);
      if (!unbounded_locks_) --r.locks_left;
      r.persist = static_cast<std::uint8_t>((ctx.neighbours & requested).bits() | 1u);
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

}  // namespace lmx::check::detail
