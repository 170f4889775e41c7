// Re-executes an lmx-trace/1 counterexample ("source":"check") on the real core.
#include "lmx/check/replay.hpp"

#include <deque>
#include <istream>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "lmx/core/protocol.hpp"

namespace lmx::check {

namespace {
using json = nlohmann::json;
using Word = std::uint64_t;
using Ports = core::PortSet<Word>;

struct Link {
  int node = -1;
  unsigned port = 0;
};
struct Node {
  core::NodeState<Word> s;
  Ports d;
  std::vector<Link> links;
};
struct InTransit {
  unsigned to, to_port;
  core::Message m;
};

Ports ports_of(const json& a) {
  Ports p;
  for (const auto& x : a) p.insert(static_cast<core::Port>(x.get<unsigned>()));
  return p;
}
}  // namespace

bool replay_counterexample(std::istream& in, std::ostream& report) {
  std::string text;
  unsigned lineno = 0, mismatches = 0, acts = 0;
  auto fail = [&](const std::string& why) {
    report << "line " << lineno << ": " << why << "\n";
    ++mismatches;
  };
  if (!std::getline(in, text)) {
    report << "empty trace\n";
    return false;
  }
  ++lineno;
  json h;
  try {
    h = json::parse(text);
  } catch (const std::exception& e) {
    report << "line 1: not JSON: " << e.what() << "\n";
    return false;
  }
  if (h.value("type", "") != "lmx-trace" || h.value("schema", 0) != 1) {
    report << "line 1: not an lmx-trace/1 header\n";
    return false;
  }
  core::Variant variant{};
  if (!core::parse_variant(h.value("variant", ""), variant)) {
    report << "line 1: unknown variant\n";
    return false;
  }
  const unsigned delta = h.value("delta", 0u), k = h.value("k", 0u), n = h.value("nodes", 0u);
  if (delta < 1 || delta > 63 || k < core::k_min || k > core::k_max || n < 1 || n > 64) {
    report << "line 1: parameters out of range\n";
    return false;
  }
  const core::Protocol<Word> proto(core::Config{delta, k, variant});
  std::vector<Node> nodes(n);
  for (auto& nd : nodes) nd.links.resize(delta + 1);
  std::map<std::uint64_t, InTransit> transit;
  std::deque<std::pair<std::uint64_t, InTransit>> expected_sends;  // produced by the last action
  core::Effects<Word> last{};
  int last_node = -1;
  bool last_valid = false;
  bool pending_call = false;

  auto neighbours = [&](unsigned u) {
    Ports p;
    for (unsigned q = 1; q <= delta; ++q)
      if (nodes[u].links[q].node >= 0) p.insert(static_cast<core::Port>(q));
    return p;
  };
  auto produce = [&](unsigned u, const core::Effects<Word>& fx) {
    last = fx;
    last_node = static_cast<int>(u);
    last_valid = fx.status == core::Status::ok;
    expected_sends.clear();
    if (fx.status != core::Status::ok) return;
    nodes[u].d.clear();
    for (unsigned i = 0; i < fx.send_count; ++i)
      for (core::Port p : fx.sends[i].ports) {
        InTransit t{u, p, fx.sends[i].message};
        if (p == 0) {
          t.to = u, t.to_port = 0;
        } else if (nodes[u].links[p].node >= 0) {
          t.to = static_cast<unsigned>(nodes[u].links[p].node), t.to_port = nodes[u].links[p].port;
        } else {
          t.to = UINT32_MAX;
        }
        expected_sends.push_back({p, t});
      }
  };

  while (std::getline(in, text)) {
    ++lineno;
    if (text.empty()) continue;
    json e;
    try {
      e = json::parse(text);
    } catch (const std::exception& ex) {
      fail(std::string("not JSON: ") + ex.what());
      continue;
    }
    const std::string ev = e.value("ev", "");
    try {
      if (ev == "connect") {
        const unsigned u = e["u"], pu = e["pu"], v = e["v"], pv = e["pv"];
        if (u >= n || v >= n || pu < 1 || pu > delta || pv < 1 || pv > delta || nodes[u].links[pu].node >= 0 ||
            nodes[v].links[pv].node >= 0) {
          fail("connect on a taken or invalid port");
          continue;
        }
        nodes[u].links[pu] = {static_cast<int>(v), pv};
        nodes[v].links[pv] = {static_cast<int>(u), pu};
      } else if (ev == "cut") {
        const unsigned u = e["u"], pu = e["pu"], v = e["v"], pv = e["pv"];
        if (u >= n || pu < 1 || pu > delta || nodes[u].links[pu].node != static_cast<int>(v) ||
            nodes[u].links[pu].port != pv) {
          fail("cut of an edge that does not exist");
          continue;
        }
        for (auto it = transit.begin(); it != transit.end();)
          if ((it->second.to == u && it->second.to_port == pu) || (it->second.to == v && it->second.to_port == pv))
            it = transit.erase(it);
          else
            ++it;
        nodes[u].links[pu] = {};
        nodes[v].links[pv] = {};
        nodes[u].d.insert(static_cast<core::Port>(pu));
        nodes[v].d.insert(static_cast<core::Port>(pv));
      } else if (ev == "call") {
        const unsigned u = e["node"];
        const std::string op = e["op"], status = e["status"];
        const core::Context<Word> ctx{nodes[u].d, neighbours(u)};
        const auto fx = op == "lock" ? proto.lock(nodes[u].s, ctx) : proto.unlock(nodes[u].s, ctx);
        const bool ok = fx.status == core::Status::ok;
        if (ok != (status == "ok")) fail("call " + op + " status differs");
        if (ok) produce(u, fx);
        pending_call = ok;
      } else if (ev == "act") {
        ++acts;
        const unsigned u = e["node"];
        const std::string name = e["action"];
        core::Action action{};
        if (!core::parse_action(name, action)) {
          fail("unknown action " + name);
          continue;
        }
        if (ports_of(e["D"]) != nodes[u].d &&
            !(pending_call && (action == core::Action::init_lock || action == core::Action::init_unlock)))
          fail("D differs from the detector");
        if (action == core::Action::init_lock || action == core::Action::init_unlock) {
          if (!pending_call) fail(name + " without an accepted call");
          pending_call = false;
        } else if (core::is_receive(action)) {
          const std::uint64_t id = e["msg"];
          const unsigned port = e["port"];
          auto it = transit.find(id);
          if (it == transit.end() || it->second.to != u || it->second.to_port != port) {
            fail("message " + std::to_string(id) + " is not waiting at that port");
            continue;
          }
          const core::Message m = it->second.m;
          transit.erase(it);
          auto draw = [](unsigned) { return 0u; };
          produce(u, proto.step(nodes[u].s, core::Activation{action, static_cast<core::Port>(port), m},
                                core::Context<Word>{nodes[u].d, neighbours(u)}, core::PriorityDraw::from(draw)));
        } else {
          // The priority drawn is the value of the request-lock sends that follow.
          unsigned prio = 0;
          std::streampos pos = in.tellg();
          std::string peek;
          if (std::getline(in, peek)) {
            const json pj = json::parse(peek);
            if (pj.value("ev", "") == "send" && pj.value("kind", "") == "request-lock") prio = pj["value"];
          }
          in.clear();
          in.seekg(pos);
          auto draw = [prio](unsigned bound) { return prio % bound; };
          produce(u, proto.step(nodes[u].s, core::Activation{action}, core::Context<Word>{nodes[u].d, neighbours(u)},
                                core::PriorityDraw::from(draw)));
        }
        if (!last_valid) {
          fail(name + " is not enabled here");
          continue;
        }
        const auto& s = nodes[u].s;
        const json lock = s.lock_port == core::no_port ? json("BOT") : json(s.lock_port);
        if (e["lock"] != lock) fail("lock differs");
        if (e["state"] != std::string(core::to_string(s.state))) fail("state differs");
        if (e["phase"] != std::string(core::to_string(s.phase))) fail("phase differs");
        const json& r = e["regs"];
        if (ports_of(r["L"]) != s.lock_set || ports_of(r["R"]) != s.replied || ports_of(r["H"]) != s.on_hold ||
            ports_of(r["A"]) != s.applicants || ports_of(r["C"]) != s.candidates)
          fail("registers L/R/H/A/C differ");
        Ports won, lost, pp;
        for (const auto& w : r["W"])
          (w[1].get<int>() ? won : lost).insert(static_cast<core::Port>(w[0].get<unsigned>()));
        for (const auto& x : r["P"]) {
          pp.insert(static_cast<core::Port>(x[0].get<unsigned>()));
          if (s.priorities.get(static_cast<core::Port>(x[0].get<unsigned>())) != x[1].get<unsigned>())
            fail("P differs");
        }
        if (won != s.win_outcomes.won || lost != s.win_outcomes.lost) fail("W differs");
        if (pp != s.priorities.ports) fail("P differs");
      } else if (ev == "send") {
        if (expected_sends.empty()) {
          fail("send not produced by the last action");
          continue;
        }
        auto [from_port, t] = expected_sends.front();
        expected_sends.pop_front();
        const std::uint64_t id = e["id"];
        core::MessageKind kind{};
        core::parse_message_kind(e["kind"].get<std::string>(), kind);
        if (e["from"] != static_cast<unsigned>(last_node) || e["port"] != from_port || kind != t.m.kind ||
            e["value"] != t.m.value)
          fail("send differs from the core's");
        if (t.to != UINT32_MAX) {
          if (e["to"] != t.to || e["to_port"] != t.to_port) fail("send destination differs");
          transit[id] = t;
        } else if (!e["to"].is_null()) {
          fail("send to a port without edge");
        }
      } else if (ev == "done") {
        const unsigned u = e["node"];
        const bool lock_op = e["op"] == "lock";
        if (last_node != static_cast<int>(u) || (lock_op ? !last.lock_acquired : !last.unlocked))
          fail("done without a completion");
        if (lock_op && ports_of(e["ports"]) != last.locked_ports) fail("done ports differ");
      } else if (ev == "lost" || ev == "violation" || ev == "end" || ev == "move") {
        // informational
      } else {
        fail("unknown event " + ev);
      }
    } catch (const std::exception& ex) {
      fail(std::string("malformed event: ") + ex.what());
    }
  }
  report << (mismatches == 0 ? "replay ok: " : "replay FAILED: ") << acts << " actions re-executed, " << mismatches
         << " mismatches\n";
  return mismatches == 0;
}

}  // namespace lmx::check
