// The locks execution (docs/amoebot.md, "The locks execution"): the canonical amoebot model's
// concurrency control framework with lmx's Lock. Every amoebot is a node of the simulator; the
// lattice adjacency of the amoebots is the topology, one edge per pair of neighbouring amoebots,
// changed through Engine::connect / cut as they move (the paper's Section 6: "active dynamics").
//
// An awake amoebot calls Lock. At its completion (plan) the framework evaluates the guards over
// the locked neighbourhood and, if an action is enabled, fixes it; the action's operations take
// effect when the amoebot's Unlock call executes (commit), a time later during which the others
// go on. At commit the framework checks that nothing it planned from changed (isolation makes the
// locked amoebots' memory and bodies stay put; only an amoebot moving next to it from outside can
// change its neighbourhood, and then the action is given up and retried), runs the action, updates
// the topology and wakes whoever can see the change. Every commit is replayed on a sequential copy
// of the system (serializability).
//
// This file builds the scenario from the lattice, runs it (run_locks) and writes the statistics;
// the framework is in framework.hpp and framework.cpp.
#include <algorithm>
#include <chrono>

#include "framework.hpp"
#include "lmx/apps/amoebot.hpp"
#include "lmx/sim/simulation.hpp"

namespace lmx::apps::amoebot {

namespace {

using sim::NodeId;

/// The scenario: the user's adversary, and what the lattice decides.
sim::Scenario locks_scenario(const LocksConfig& cfg, std::uint32_t n,
                             const std::vector<std::pair<NodeId, NodeId>>& edges) {
  if (!cfg.scenario.is_object()) throw ModelError("scenario: expected a table of scenario keys");
  for (const char* key : {"nodes", "delta", "topology", "dynamics", "workload", "seed", "rounds"})
    if (cfg.scenario.contains(key))
      throw ModelError(std::string("scenario: '") + key +
                       "' is decided by the amoebot system (the lattice, the framework, --seed, --max-rounds), "
                       "not by the scenario");
  nlohmann::json j = cfg.scenario;
  j["nodes"] = n;
  j["delta"] = detail::lattice_delta;
  j["seed"] = cfg.seed;
  j["rounds"] = cfg.max_rounds != 0 ? cfg.max_rounds : 1;  // the default is set below, once the engine is known
  nlohmann::json list = nlohmann::json::array();
  for (const auto& [u, v] : edges) list.push_back({u, v});
  j["topology"] = {{"kind", "edges"}, {"edges", std::move(list)}};
  j["dynamics"] = {{"kind", "static"}};
  j["workload"] = {{"kind", "manual"}};
  // Every awake amoebot locks at once near the hexagon's surface: waits are longer than the
  // derived horizon assumes (30 uncontended Locks), as for population protocols.
  if (!j.contains("horizon")) j["horizon"] = 100000;
  sim::Scenario sc;
  try {
    sc = sim::scenario_from_json(j);
  } catch (const sim::ScenarioError& e) {
    throw ModelError(e.what());
  }
  if (cfg.max_rounds == 0) {
    // The default: 1000 n + 10^5 rounds of nodes that act about once a round (hexagon formation
    // takes about 150 n under the async engine), scaled by how much less often the semi-synchronous
    // adversary activates a node, within the engines' limits (2 000 000 rounds for the async
    // engine, 4 000 000 for the semi-synchronous one).
    double per_round = 1;
    if (sc.engine == sim::EngineKind::semi_sync && sc.activation.kind == sim::ActivationKind::random)
      per_round = sc.activation.p;
    if (sc.engine == sim::EngineKind::semi_sync && sc.activation.kind == sim::ActivationKind::sequential)
      per_round = 1.0 / n;
    const double limit = sc.engine == sim::EngineKind::async ? 2e6 : 4e6;
    sc.rounds = static_cast<std::uint64_t>(std::min(limit, (1000.0 * n + 1e5) / per_round));
  }
  return sc;
}

}  // namespace

Result run_locks(const Algorithm& alg, const LocksConfig& cfg, LocksStats* stats) {
  return run_locks(alg, initial_configuration(alg, cfg.n, cfg.hole_prob, cfg.seed), cfg, stats);
}

Result run_locks(const Algorithm& alg, const Configuration& start, const LocksConfig& cfg, LocksStats* stats) {
  const auto t0 = std::chrono::steady_clock::now();
  LocksStats local;
  LocksStats& st = stats != nullptr ? *stats : local;
  st = LocksStats{};
  Result r;
  r.algorithm = alg.name;
  r.execution = cfg.one_at_a_time ? "locks-one-at-a-time" : "locks";
  r.seed = cfg.seed;
  r.hole_prob = cfg.hole_prob;
  detail::Framework fw(alg, start, cfg, r, st);
  r.n = static_cast<std::uint32_t>(start.amoebots.size());
  const sim::Scenario sc = locks_scenario(cfg, r.n, fw.edges());
  sim::RunOptions opt;
  opt.source = "amoebot";
  opt.trace = cfg.trace;
  opt.listener = &fw;
  opt.stop = cfg.stop;
  // Most amoebots are asleep most of the time: their nodes' executions would be idle.
  opt.skip_dormant = true;
  auto engine = sim::make_engine(sc, opt);
  fw.attach(*engine);
  fw.start();
  while (engine->step()) {
  }
  const nlohmann::json summary = engine->finish();
  st.model_rounds = engine->now();
  fw.finish(r);
  for (const sim::Violation& v : engine->violations()) {
    if (st.excerpt.empty()) st.excerpt = v.excerpt;
    if (v.property != "amoebot")
      r.violations.push_back(v.property + " at round " + std::to_string(v.round) + ": " + v.detail);
  }
  r.interrupted = cfg.stop != nullptr && cfg.stop->load();
  if (!r.terminated && !r.interrupted && r.violations.empty())
    r.violations.push_back("termination: not every amoebot asleep after " + std::to_string(st.model_rounds) +
                           " model rounds (--max-rounds)");
  if (engine->in_transit() != 0 && r.terminated)
    r.violations.push_back("termination: " + std::to_string(engine->in_transit()) + " messages still in transit");
  st.messages = summary.value("messages", std::uint64_t{0});
  st.run_summary = summary;
  st.protocol_actions = engine->actions();
  // A run interrupted before any Lock completed has no latencies (null).
  if (const auto it = summary.find("latency_rounds"); it != summary.end() && it->is_object()) {
    auto number = [&](const char* key) {
      const auto v = it->find(key);
      return v != it->end() && v->is_number() ? v->get<double>() : 0.0;
    };
    st.lock_latency_p50 = number("p50"), st.lock_latency_p99 = number("p99");
  }
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

nlohmann::json report_json(const Result& r, const LocksStats& s, const Result* sequential) {
  nlohmann::json j = to_json(r, s);
  j.erase("violations");
  if (sequential != nullptr)
    j["sequential"] = {{"rounds", sequential->rounds},
                       {"activations", sequential->activations},
                       {"actions", sequential->actions},
                       {"moves", sequential->moves},
                       {"terminated", sequential->terminated}};
  nlohmann::json h = {{"model_round", nlohmann::json::array()}, {"amoebot_round", nlohmann::json::array()},
                      {"final", nlohmann::json::array()},       {"awake", nlohmann::json::array()},
                      {"acting", nlohmann::json::array()},      {"moves", nlohmann::json::array()}};
  for (const LocksStats::Sample& x : s.history) {
    h["model_round"].push_back(x.model_round);
    h["amoebot_round"].push_back(x.amoebot_round);
    h["final"].push_back(x.final);
    h["awake"].push_back(x.awake);
    h["acting"].push_back(x.acting);
    h["moves"].push_back(x.moves);
  }
  j["history"] = std::move(h);
  return j;
}

nlohmann::json to_json(const Result& r, const LocksStats& s) {
  nlohmann::json j = to_json(r);
  const double per = r.actions ? 1.0 / double(r.actions) : 0.0;
  j["locks"] = {{"model_rounds", s.model_rounds},
                {"lock_requests", s.lock_requests},
                {"lock_cycles", s.lock_cycles},
                {"incomplete_locks", s.incomplete_locks},
                {"sleeps", s.sleeps},
                {"aborted", s.aborted},
                {"expansion_conflicts", s.expansion_conflicts},
                {"isolation_checks", s.isolation_checks},
                {"serializability_checks", s.serializability_checks},
                {"messages", s.messages},
                {"messages_per_action", double(s.messages) * per},
                {"protocol_actions", s.protocol_actions},
                {"protocol_actions_per_second", r.wall_seconds > 0 ? double(s.protocol_actions) / r.wall_seconds : 0.0},
                {"max_acting", s.max_acting},
                {"mean_acting", s.mean_acting},
                {"max_locking", s.max_locking},
                {"mean_locking", s.mean_locking},
                {"lock_latency_p50", s.lock_latency_p50},
                {"lock_latency_p99", s.lock_latency_p99}};
  if (!s.excerpt.empty()) j["locks"]["excerpt"] = s.excerpt;
  return j;
}

}  // namespace lmx::apps::amoebot
