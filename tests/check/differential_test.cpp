// Differential test: the simulator and the checker's model agree on the paper's model. Small
// simulated runs (both engines, both variants, several topologies and dynamics, a few seeds each)
// are replayed step by step through the checker's transition model (Model::apply on an unpacked
// Global): every topology change, Lock/Unlock call, delivery and guarded action of the trace must
// be a transition the model offers from its current state, and the node's registers after each
// `act` line, its sends, completions and losses must be the model's (docs/checker.md,
// "Differential test"). The simulator's schedules (semi-synchronous rounds; asynchronous
// executions whose effects apply at their start, a message receivable only by executions starting
// later) are interleavings of the model's atomic moves, so every step must be allowed; a step the
// model does not allow fails the test, naming the trace line.
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "lmx/check/checker.hpp"
#include "lmx/sim/simulation.hpp"
#include "model.hpp"

namespace {
using lmx::check::detail::Global;
using lmx::check::detail::Label;
using lmx::check::detail::Model;
using lmx::check::detail::Move;
using lmx::check::detail::no_link;
using lmx::check::detail::Outcome;
using lmx::check::detail::Problem;
using lmx::check::detail::SentMessage;
using json = nlohmann::json;
namespace core = lmx::core;

/// What the replays covered, to keep the test from passing vacuously.
struct Coverage {
  unsigned runs = 0, acts = 0, deliveries = 0, draws = 0, calls = 0, rejected = 0, connects = 0, cuts = 0, lost = 0,
           completions = 0;
};

json ports_json(unsigned bits) {
  json a = json::array();
  for (unsigned p = 0; p < 8; ++p)
    if ((bits >> p) & 1u) a.push_back(p);
  return a;
}

/// A node's Table-1 registers as the trace writes them.
/// (W is a set of (port, outcome) pairs: compared sorted, as writers list it in their own order.)
json regs_json(const core::NodeState<std::uint8_t>& s) {
  json w = json::array();
  for (unsigned p = 0; p < 8; ++p) {
    if (s.win_outcomes.won.contains(static_cast<core::Port>(p))) w.push_back({p, 1});
    if (s.win_outcomes.lost.contains(static_cast<core::Port>(p))) w.push_back({p, 0});
  }
  std::sort(w.begin(), w.end());
  json pr = json::array();
  for (core::Port p : s.priorities.ports) pr.push_back({p, s.priorities.get(p)});
  return {{"L", ports_json(s.lock_set.bits())},
          {"R", ports_json(s.replied.bits())},
          {"W", w},
          {"H", ports_json(s.on_hold.bits())},
          {"A", ports_json(s.applicants.bits())},
          {"C", ports_json(s.candidates.bits())},
          {"P", pr}};
}

json sorted_w(json regs) {
  std::sort(regs.at("W").begin(), regs.at("W").end());
  return regs;
}

bool same_label(const Label& a, const Label& b) {
  return std::tie(a.move, a.node, a.a, a.b, a.c) == std::tie(b.move, b.node, b.a, b.b, b.c);
}

/// Replays one simulator trace through the model. Returns "" if every step is the model's, else
/// "line N: what the model does not allow".
class Replay {
 public:
  Replay(const Model& m, bool paper, Coverage& cov) : m_(m), paper_(paper), cov_(cov), g_(m.initial()) {}

  std::string run(const std::string& trace) {
    std::istringstream in(trace);
    for (std::string text; std::getline(in, text);) lines_.push_back(json::parse(text));
    for (at_ = 1; at_ < lines_.size(); ++at_) {
      const json& e = lines_[at_];
      const std::string ev = e.at("ev");
      std::string why;
      if (ev == "connect")
        why = connect(e);
      else if (ev == "cut")
        why = cut(e);
      else if (ev == "lost")
        why = lost(e);
      else if (ev == "call")
        why = call(e);
      else if (ev == "act")
        why = act(e);
      else if (ev == "send" || ev == "done")
        why = "a " + ev + " that follows no action";
      else if (ev == "end")
        break;
      // move (positions), violation and finding (the simulator's monitors) change no state
      if (!why.empty()) return "line " + std::to_string(at_ + 1) + " (" + e.dump() + "): " + why;
    }
    if (!lost_.empty()) return "messages lost without a cut";
    return {};
  }

 private:
  struct InTransit {
    std::uint64_t id;
    std::uint8_t code;  ///< as the model's bags hold it: encode(m) + 1
  };

  /// Whether the model offers `l` (a topology move) from the current state. The model's budget of
  /// topology moves bounds its exploration, not its semantics: it is filled up before each one.
  bool offers_topology(const Label& l) {
    g_.changes_left = 15;
    bool found = false;
    m_.successors(g_, [&](const Label& s, const Global&, const Outcome&) { found = found || same_label(s, l); });
    return found;
  }

  bool offers_node_move(const Label& l) const {
    bool found = false;
    m_.node_moves(g_, [&](const Label& s) { found = found || same_label(s, l); });
    return found;
  }

  std::string connect(const json& e) {
    unsigned u = e.at("u"), pu = e.at("pu"), v = e.at("v"), pv = e.at("pv");
    if (u > v) std::swap(u, v), std::swap(pu, pv);
    const Label l{Move::connect,
                  static_cast<std::uint8_t>(u),
                  static_cast<std::uint8_t>(pu),
                  static_cast<std::uint8_t>(v),
                  static_cast<std::uint8_t>(pv),
                  0,
                  false};
    if (!offers_topology(l)) return "the model does not offer this connect (ports taken, or the nodes adjacent)";
    Outcome o;
    m_.apply(g_, l, o);
    ++cov_.connects;
    return {};
  }

  std::string cut(const json& e) {
    unsigned u = e.at("u"), pu = e.at("pu"), v = e.at("v"), pv = e.at("pv");
    if (u > v) std::swap(u, v), std::swap(pu, pv);
    if (g_.n[u].link[pu - 1] != (v << 4 | pv)) return "the model has no such edge";
    const Label l{Move::cut, static_cast<std::uint8_t>(u), static_cast<std::uint8_t>(pu), 0, 0, 0, false};
    if (!offers_topology(l)) return "the model does not offer this cut";
    // The messages in transit along the edge, both ways, are exactly those the trace lost.
    std::multiset<std::uint64_t> in_transit;
    for (auto [w, p] : {std::pair{u, pu}, std::pair{v, pv}}) {
      for (const InTransit& t : transit_[{w, p}]) in_transit.insert(t.id);
      transit_[{w, p}].clear();
    }
    if (in_transit != lost_) return "the messages lost are not those the model had in transit on the edge";
    lost_.clear();
    Outcome o;
    m_.apply(g_, l, o);
    ++cov_.cuts;
    return {};
  }

  std::string lost(const json& e) {
    if (e.at("reason") != "cut") return "a message lost for another reason than a cut, outside an action";
    lost_.insert(e.at("id").get<std::uint64_t>());
    ++cov_.lost;
    return {};
  }

  std::string call(const json& e) {
    const unsigned u = e.at("node");
    const std::string op = e.at("op");
    const auto state = g_.n[u].s.state;
    ++cov_.calls;
    if (e.at("status") == "rejected") {  // not a transition: the core refuses it and nothing changes
      ++cov_.rejected;
      const bool refused = op == "lock" ? state != core::InitiatorState::idle : state != core::InitiatorState::locked;
      return refused ? std::string() : "a call the model's node would accept was rejected";
    }
    pending_call_[u] = op;
    return {};
  }

  std::string act(const json& e) {
    const unsigned u = e.at("node");
    const std::string action = e.at("action");
    Label l{Move::guarded, static_cast<std::uint8_t>(u), 0, 0, 0, 0, false};
    std::deque<InTransit>* bag = nullptr;
    std::size_t delivered = 0;  // its place in `bag`
    if (action == "InitLock" || action == "InitUnlock") {
      const std::string op = action == "InitLock" ? "lock" : "unlock";
      if (pending_call_[u] != op) return "an " + action + " without a call of the application";
      pending_call_[u].clear();
      l.move = op == "lock" ? Move::lock : Move::unlock;
    } else if (!e.at("port").is_null()) {  // Receive*: the message of that id, waiting at that port
      const unsigned p = e.at("port");
      const std::uint64_t id = e.at("msg");
      bag = &transit_[{u, p}];
      while (delivered < bag->size() && (*bag)[delivered].id != id) ++delivered;
      if (delivered == bag->size()) return "the model has no message " + std::to_string(id) + " waiting at that port";
      const std::uint8_t code = (*bag)[delivered].code;
      const core::Decoded d = core::decode(static_cast<std::uint8_t>(code - 1), m_.instance().k);
      if (core::to_string(core::receive_action(d.message.kind)) != action) return "not the message's receive action";
      l.move = Move::deliver;
      l.a = static_cast<std::uint8_t>(p);
      l.b = code;
      ++cov_.deliveries;
    } else {
      core::Action a{};
      if (!core::parse_action(action, a)) return "an unknown action";
      l.a = static_cast<std::uint8_t>(a);
    }
    if (!offers_node_move(l)) return "the model does not offer this action (not enabled there)";
    if (ports_json(g_.n[u].d) != e.at("D")) return "D is not the model's detector";

    // What follows the act line and belongs to it: its sends (each lost at once without an edge),
    // then its completion; the simulator's monitors may write findings and violations between.
    std::vector<json> sends;
    std::size_t next = at_ + 1;
    for (; next < lines_.size(); ++next) {
      const json& f = lines_[next];
      const std::string ev = f.at("ev");
      if (ev == "send")
        sends.push_back(f);
      else if (!(ev == "finding" || ev == "violation" || (ev == "lost" && f.at("reason") == "no-edge")))
        break;
    }
    const json* done = next < lines_.size() && lines_[next].at("ev") == "done" ? &lines_[next] : nullptr;

    // The priority an action draws is the adversary's: the one whose result is the trace's.
    std::string mismatch;
    for (unsigned prio = 0; prio < m_.instance().k; ++prio) {
      Global after = g_;
      Outcome o;
      std::vector<SentMessage> log;
      Label tried = l;
      tried.prio = static_cast<std::uint8_t>(prio);
      m_.apply(after, tried, o, &log);
      mismatch = compare(after, u, o, log, e, sends, done);
      if (mismatch.empty()) {
        if (o.drew) ++cov_.draws;
        if (o.problem != Problem::none && !(paper_ && o.problem == Problem::port_sent_twice))
          return "the model reports " + lmx::check::detail::problem_text(o);
        g_ = after;
        if (bag != nullptr) bag->erase(bag->begin() + static_cast<std::ptrdiff_t>(delivered));
        for (const json& s : sends)
          if (!s.at("to").is_null())
            transit_[{s.at("to").get<unsigned>(), s.at("to_port").get<unsigned>()}].push_back(
                {s.at("id").get<std::uint64_t>(), code_of(s)});
        if (done != nullptr) ++cov_.completions;
        at_ = done != nullptr ? next : next - 1;
        ++cov_.acts;
        return {};
      }
      if (!o.drew) break;  // no draw: one outcome only
    }
    return mismatch;
  }

  std::uint8_t code_of(const json& send) const {
    core::MessageKind kind{};
    core::parse_message_kind(send.at("kind").get<std::string>(), kind);
    return static_cast<std::uint8_t>(core::encode(core::Message{kind, send.at("value").get<std::uint8_t>()}) + 1);
  }

  /// "" if the model's result of the action is the trace's: registers, sends, completion.
  std::string compare(const Global& after, unsigned u, const Outcome& o, const std::vector<SentMessage>& log,
                      const json& e, const std::vector<json>& sends, const json* done) const {
    const auto& s = after.n[u].s;
    const json lock = s.lock_port == core::no_port ? json("BOT") : json(s.lock_port);
    if (lock != e.at("lock") || json(core::to_string(s.state)) != e.at("state") ||
        json(core::to_string(s.phase)) != e.at("phase") || regs_json(s) != sorted_w(e.at("regs")))
      return "the registers after the action are not the model's: the model has lock " + lock.dump() + ", state " +
             std::string(core::to_string(s.state)) + ", phase " + std::string(core::to_string(s.phase)) + ", regs " +
             regs_json(s).dump();
    std::multiset<std::tuple<unsigned, unsigned, std::string, unsigned, int, unsigned>> model, trace;
    for (const SentMessage& m : log)
      model.insert({m.from, m.port, std::string(core::to_string(m.message.kind)), m.message.value, m.to,
                    m.to < 0 ? 0u : unsigned{m.to_port}});
    for (const json& t : sends)
      trace.insert({t.at("from").get<unsigned>(), t.at("port").get<unsigned>(), t.at("kind").get<std::string>(),
                    t.at("value").get<unsigned>(), t.at("to").is_null() ? -1 : t.at("to").get<int>(),
                    t.at("to").is_null() ? 0u : t.at("to_port").get<unsigned>()});
    if (model != trace) return "the sends are not the model's";
    const bool completed = o.completed_lock || o.completed_unlock;
    if (completed != (done != nullptr)) return "a completion the model does not have (or misses)";
    if (done != nullptr) {
      if ((*done).at("op") != (o.completed_lock ? "lock" : "unlock")) return "the completion is of another operation";
      if (o.completed_lock && ports_json(s.lock_set.bits()) != (*done).at("ports"))
        return "Lock returned other ports than the model's L";
    }
    return {};
  }

  const Model& m_;
  bool paper_;
  Coverage& cov_;
  Global g_;
  std::vector<json> lines_;
  std::size_t at_ = 0;
  std::map<std::pair<unsigned, unsigned>, std::deque<InTransit>> transit_;  ///< per receiving (node, port)
  std::multiset<std::uint64_t> lost_;                                       ///< lost lines waiting for their cut
  std::map<unsigned, std::string> pending_call_;
};

struct Network {
  std::string name;
  json scenario;  ///< what differs from the base
};

json scenario(const std::string& engine, const std::string& variant, std::uint64_t seed, const json& setup) {
  json j = {{"nodes", 4},
            {"delta", 2},
            {"k", 2},
            {"engine", engine},
            {"variant", variant},
            {"seed", seed},
            {"rounds", 60},
            {"workload", {{"kind", "auto"}, {"idle", 1.0}, {"hold", 1.0}, {"locks", 0}}}};
  j.merge_patch(setup);
  // The async engine has its own executions: an activation set for it is an error (the
  // scenario validator's), so those networks run there with their activation left out.
  if (engine == "async") j.erase("activation");
  return j;
}

TEST(Differential, EveryStepOfTheSimulatorIsATransitionOfTheModel) {
  const std::vector<Network> networks = {
      {"ring of 3", {{"nodes", 3}, {"topology", {{"kind", "ring"}}}}},
      {"edges",
       {{"delta", 3},
        {"k", 3},
        {"topology", {{"kind", "edges"}, {"edges", {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {0, 2}}}}}}},
      {"churn", {{"topology", {{"kind", "ring"}}}, {"dynamics", {{"kind", "churn"}, {"death", 0.15}, {"birth", 0.3}}}}},
      {"flap", {{"topology", {{"kind", "ring"}}}, {"dynamics", {{"kind", "flap"}, {"bound", 3}, {"batch", 2}}}}},
      {"swizzle",
       {{"delta", 3},
        {"topology", {{"kind", "edges"}, {"edges", {{0, 1}, {1, 2}, {2, 3}, {3, 0}}}}},
        {"dynamics", {{"kind", "swizzle"}, {"batch", 2}}}}},
      {"starve", {{"topology", {{"kind", "ring"}}}, {"dynamics", {{"kind", "starve"}, {"target", 0}, {"bound", 2}}}}},
      {"mobility", {{"delta", 3}, {"topology", {{"kind", "mobility"}, {"radius", 0.6}, {"speed", 0.08}}}}},
      {"ring, every node every round, oldest message first",
       {{"topology", {{"kind", "ring"}}},
        {"activation", {{"kind", "synchronous"}}},
        {"delivery", {{"kind", "oldest"}}},
        {"dynamics", {{"kind", "churn"}, {"death", 0.1}, {"birth", 0.3}}}}},
      {"ring, one node a round, messages of node 1 held back",
       {{"topology", {{"kind", "ring"}}},
        {"activation", {{"kind", "sequential"}}},
        {"delivery", {{"kind", "delay-target"}, {"target", 1}, {"patience", 3}}}}},
  };
  Coverage cov;
  for (const char* engine : {"semi-sync", "async"})
    for (const char* variant : {"repaired", "paper"})
      for (const Network& network : networks)
        for (std::uint64_t seed : {1u, 2u, 3u}) {
          const json j = scenario(engine, variant, seed, network.scenario);
          SCOPED_TRACE(std::string(engine) + " " + variant + " " + network.name + " seed " + std::to_string(seed));
          const lmx::sim::Scenario sc = lmx::sim::scenario_from_json(j);
          std::ostringstream trace;
          lmx::sim::RunOptions run;
          run.trace = &trace;
          (void)lmx::sim::run(sc, run);
          lmx::check::Instance inst;
          inst.variant = sc.variant;
          inst.nodes = sc.nodes;
          inst.delta = sc.delta;
          inst.k = sc.k;
          inst.locks = lmx::check::unbounded_locks;  // the workload calls Lock whenever a node is idle
          inst.max_changes = 15;
          ASSERT_EQ(lmx::check::validate(inst), "");
          const Model model(inst);
          Replay replay(model, sc.variant == core::Variant::paper, cov);
          EXPECT_EQ(replay.run(trace.str()), "");
          ++cov.runs;
        }
  // Not vacuous: every kind of step was replayed many times.
  EXPECT_EQ(cov.runs, 2u * 2u * networks.size() * 3u);
  EXPECT_GT(cov.acts, 5000u);
  EXPECT_GT(cov.deliveries, 2000u);
  EXPECT_GT(cov.draws, 100u);
  EXPECT_GT(cov.calls, 200u);
  EXPECT_GT(cov.completions, 100u);
  EXPECT_GT(cov.connects, 200u);
  EXPECT_GT(cov.cuts, 100u);
  EXPECT_GT(cov.lost, 10u);
  std::printf(
      "replayed %u runs: %u actions (%u deliveries, %u priority draws), %u calls (%u rejected), %u "
      "completions, %u connects, %u cuts, %u messages lost\n",
      cov.runs, cov.acts, cov.deliveries, cov.draws, cov.calls, cov.rejected, cov.completions, cov.connects, cov.cuts,
      cov.lost);
}

// The replay has teeth: a trace changed in one step (a register after an action, a message that
// was never sent, an edge on a port that is taken, a loss that the cut does not explain, an action
// that is not enabled) is refused, naming the line.
TEST(Differential, AStepTheModelDoesNotAllowIsNamed) {
  const json j = scenario("semi-sync", "repaired", 1, {{"nodes", 3}, {"topology", {{"kind", "ring"}}}});
  const lmx::sim::Scenario sc = lmx::sim::scenario_from_json(j);
  std::ostringstream out;
  lmx::sim::RunOptions run;
  run.trace = &out;
  (void)lmx::sim::run(sc, run);
  std::vector<std::string> lines;
  std::istringstream in(out.str());
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  lmx::check::Instance inst;
  inst.variant = sc.variant, inst.nodes = sc.nodes, inst.delta = sc.delta, inst.k = sc.k;
  inst.locks = lmx::check::unbounded_locks, inst.max_changes = 15;
  const Model model(inst);
  Coverage cov;
  auto replay = [&](const std::vector<std::string>& changed) {
    std::string text;
    for (const std::string& line : changed) text += line + "\n";
    return Replay(model, false, cov).run(text);
  };
  ASSERT_EQ(replay(lines), "");
  auto first = [&](const std::string& what) {
    for (std::size_t i = 0; i < lines.size(); ++i)
      if (lines[i].find(what) != std::string::npos) return i;
    ADD_FAILURE() << "no line with " << what;
    return std::size_t{0};
  };
  auto changed = [&](std::size_t i, const std::string& from, const std::string& to) {
    std::vector<std::string> c = lines;
    const auto at = c[i].find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) c[i].replace(at, from.size(), to);
    return c;
  };
  auto named = [&](const std::string& said, std::size_t i, const std::string& why) {
    EXPECT_EQ(said.rfind("line " + std::to_string(i + 1) + " ", 0), 0u) << said;
    EXPECT_NE(said.find(why), std::string::npos) << said;
  };
  const std::size_t init = first("\"action\":\"InitLock\"");
  named(replay(changed(init, "\"state\":\"PREPARE\"", "\"state\":\"COMPETE\"")), init, "registers");
  const std::size_t receive = first("\"action\":\"ReceivePrepare\"");
  const json r = json::parse(lines[receive]);
  named(replay(changed(receive, "\"msg\":" + r.at("msg").dump(), "\"msg\":9999")), receive, "no message 9999");
  const std::size_t connect = first("\"ev\":\"connect\"");
  std::vector<std::string> twice = lines;
  twice.insert(twice.begin() + static_cast<std::ptrdiff_t>(connect) + 1, lines[connect]);
  named(replay(twice), connect + 1, "does not offer this connect");
  std::vector<std::string> lost = lines;
  lost.insert(lost.begin() + static_cast<std::ptrdiff_t>(connect) + 1,
              "{\"ev\":\"lost\",\"t\":0,\"round\":0,\"id\":77,\"reason\":\"cut\"}");
  const json c = json::parse(lines[connect]);
  lost.insert(lost.begin() + static_cast<std::ptrdiff_t>(connect) + 2,
              "{\"ev\":\"cut\",\"t\":0,\"round\":0,\"u\":" + c.at("u").dump() + ",\"pu\":" + c.at("pu").dump() +
                  ",\"v\":" + c.at("v").dump() + ",\"pv\":" + c.at("pv").dump() + "}");
  named(replay(lost), connect + 2, "the messages lost are not those the model had in transit");
  const std::size_t done = first("\"action\":\"CheckDone\"");
  named(replay(changed(done, "\"action\":\"CheckDone\"", "\"action\":\"CheckUnlocked\"")), done,
        "does not offer this action");
}

}  // namespace
