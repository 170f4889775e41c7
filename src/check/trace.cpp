// Writes checker counterexamples as lmx-trace/1 (docs/trace-format.md), "source":"check".
#include "lmx/trace/trace.hpp"

#include <deque>
#include <nlohmann/json.hpp>
#include <sstream>

#include "model.hpp"

namespace lmx::check::detail {

using core::Port;
using json = nlohmann::ordered_json;

namespace {
json ports_json(unsigned bits) {
  json a = json::array();
  for (unsigned p = 0; p < 8; ++p)
    if ((bits >> p) & 1u) a.push_back(p);
  return a;
}
json state_value(core::InitiatorState s) { return core::to_string(s); }
json regs_json(const NState& s) {
  json w = json::array();
  for (unsigned p = 0; p < 8; ++p) {
    if (s.win_outcomes.won.contains(static_cast<Port>(p))) w.push_back({p, 1});
    if (s.win_outcomes.lost.contains(static_cast<Port>(p))) w.push_back({p, 0});
  }
  json pr = json::array();
  for (Port p : s.priorities.ports) pr.push_back({p, s.priorities.get(p)});
  return {{"L", ports_json(s.lock_set.bits())},
          {"R", ports_json(s.replied.bits())},
          {"W", w},
          {"H", ports_json(s.on_hold.bits())},
          {"A", ports_json(s.applicants.bits())},
          {"C", ports_json(s.candidates.bits())},
          {"P", pr}};
}
json lock_json(Port p) { return p == core::no_port ? json("BOT") : json(p); }

}  // namespace

std::string write_trace(const Model& m, const std::vector<Label>& path, const std::string& property,
                        const std::vector<unsigned>& nodes, const std::string& detail) {
  const Instance& inst = m.instance();
  std::string out;
  trace::Writer writer(
      nullptr, [&out](std::string_view line) { out += line; }, false);
  unsigned t = 0;  // the `t` of the last line written
  auto line = [&](json j) {
    writer.line() = j.dump();
    writer.commit();
  };
  json edges = json::array();
  for (auto [u, v] : inst.edges) edges.push_back(std::to_string(u) + "-" + std::to_string(v));
  json scenario = {{"edges", edges},
                   {"locks", inst.locks == unbounded_locks ? json("unbounded") : json(inst.locks)},
                   {"max_changes", inst.max_changes}};
  if (inst.lock_subsets) scenario["lock_subsets"] = true;
  scenario["property"] = property;
  line({{"type", "lmx-trace"},
        {"schema", trace::schema},
        {"lmx_version", std::string(core::version)},
        {"source", "check"},
        {"variant", std::string(core::to_string(inst.variant))},
        {"delta", inst.delta},
        {"k", inst.k},
        {"nodes", inst.nodes},
        {"seed", 0},
        {"engine", "exhaustive"},
        {"scenario", scenario}});

  Global g = m.initial();
  // Initial edges as connect events.
  for (unsigned u = 0; u < inst.nodes; ++u)
    for (unsigned p = 1; p <= inst.delta; ++p) {
      const auto lk = g.n[u].link[p - 1];
      if (lk == no_link || (lk >> 4) < u) continue;
      line({{"ev", "connect"}, {"t", ++t}, {"round", 0}, {"u", u}, {"pu", p}, {"v", lk >> 4}, {"pv", lk & 15}});
    }
  // Message ids per receiving (node, port), oldest first.
  std::vector<std::vector<std::deque<std::pair<std::uint8_t, unsigned>>>> ids(
      inst.nodes, std::vector<std::deque<std::pair<std::uint8_t, unsigned>>>(inst.delta + 1));
  unsigned next_id = 1;
  unsigned round = 0;
  for (const Label& l : path) {
    ++round;
    const unsigned u = l.node;
    if (l.move == Move::cut) {
      const auto lk = g.n[u].link[l.a - 1];
      const unsigned v = lk >> 4, pv = lk & 15;
      for (auto [w, p] : {std::pair{u, unsigned(l.a)}, std::pair{v, pv}}) {
        for (auto [code, id] : ids[w][p])
          line({{"ev", "lost"}, {"t", ++t}, {"round", round}, {"id", id}, {"reason", "cut"}});
        ids[w][p].clear();
      }
      line({{"ev", "cut"}, {"t", ++t}, {"round", round}, {"u", u}, {"pu", l.a}, {"v", v}, {"pv", pv}});
      Outcome o;
      m.apply(g, l, o);
      continue;
    }
    if (l.move == Move::connect) {
      line({{"ev", "connect"}, {"t", ++t}, {"round", round}, {"u", u}, {"pu", l.a}, {"v", l.b}, {"pv", l.c}});
      Outcome o;
      m.apply(g, l, o);
      continue;
    }
    if (l.move == Move::lock || l.move == Move::unlock) {
      const char* op = l.move == Move::lock ? "lock" : "unlock";
      json call = {{"ev", "call"}, {"t", ++t}, {"round", round}, {"node", u}, {"op", op}, {"status", "ok"}};
      // A Lock over a chosen subset names the ports 1..Delta it asks for (port 0 is always locked).
      if (l.move == Move::lock && inst.lock_subsets) call["requested"] = ports_json(l.a);
      line(call);
    }
    const unsigned d_before = g.n[u].d;
    json msg = nullptr, port = nullptr;
    std::string action;
    if (l.move == Move::lock) action = "InitLock";
    if (l.move == Move::unlock) action = "InitUnlock";
    if (l.move == Move::guarded) action = std::string(core::to_string(static_cast<core::Action>(l.a)));
    if (l.move == Move::deliver) {
      auto& q = ids[u][l.a];
      for (auto it = q.begin(); it != q.end(); ++it)
        if (it->first == l.b) {
          msg = it->second;
          q.erase(it);
          break;
        }
      port = l.a;
      const auto dm = core::decode(static_cast<std::uint8_t>(l.b - 1), inst.k).message;
      action = std::string(core::to_string(core::receive_action(dm.kind)));
    }
    std::vector<SentMessage> log;
    Outcome o;
    m.apply(g, l, o, &log);
    const NState& s = g.n[u].s;
    line({{"ev", "act"},
          {"t", ++t},
          {"round", round},
          {"node", u},
          {"action", action},
          {"port", port},
          {"msg", msg},
          {"D", ports_json(d_before)},
          {"lock", lock_json(s.lock_port)},
          {"state", state_value(s.state)},
          {"phase", core::to_string(s.phase)},
          {"regs", regs_json(s)}});
    for (const auto& sm : log) {
      const unsigned id = next_id++;
      json to = nullptr, to_port = nullptr;
      if (sm.to >= 0) to = sm.to, to_port = sm.to_port;
      line({{"ev", "send"},
            {"t", ++t},
            {"round", round},
            {"id", id},
            {"from", sm.from},
            {"port", sm.port},
            {"kind", core::to_string(sm.message.kind)},
            {"value", sm.message.value},
            {"to", to},
            {"to_port", to_port}});
      if (sm.to < 0) {
        line({{"ev", "lost"}, {"t", ++t}, {"round", round}, {"id", id}, {"reason", "no-edge"}});
      } else {
        ids[static_cast<unsigned>(sm.to)][sm.to_port].push_back(
            {static_cast<std::uint8_t>(core::encode(sm.message) + 1), id});
      }
    }
    if (o.completed_lock || o.completed_unlock) {
      json lock_set = json::array();
      if (g.n[u].s.lock_port == core::self_port) lock_set.push_back(u);
      for (unsigned p = 1; p <= inst.delta; ++p) {
        const auto lk = g.n[u].link[p - 1];
        if (lk != no_link && g.n[lk >> 4].s.lock_port == (lk & 15)) lock_set.push_back(lk >> 4);
      }
      line({{"ev", "done"},
            {"t", ++t},
            {"round", round},
            {"node", u},
            {"op", o.completed_lock ? "lock" : "unlock"},
            {"ports", o.completed_lock ? ports_json(s.lock_set.bits()) : json::array()},
            {"lock_set", lock_set}});
    }
  }
  line({{"ev", "violation"},
        {"t", ++t},
        {"round", round},
        {"property", property},
        {"nodes", nodes},
        {"ports", json::array()},
        {"detail", detail}});
  json end = {{"ev", "end"},
              {"t", t + 1},
              {"round", round},
              {"rounds", round},
              {"events", t},
              {"hash", trace::hex64(writer.hash())},
              {"stalled", property == "deadlock" || property == "P7"}};
  writer.write_unhashed(end.dump());
  return out;
}

}  // namespace lmx::check::detail
