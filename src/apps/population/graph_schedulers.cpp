// The schedulers on a graph (docs/population.md, "Schedulers"): the scenario with as many nodes
// as agents, sequential-graph (a uniformly random edge of the current graph per interaction, the
// engine's rounds moving the graph) and the two lock schedulers, lock-neighbourhood and lock-pair
// (LockDriver, with the isolation monitor).
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <optional>
#include <string>

#include "schedulers.hpp"

namespace lmx::apps::pp::detail {

using nlohmann::json;

namespace {

bool graph_stays_put(const sim::Scenario& s) {
  return s.topology.kind != sim::TopologyKind::mobility && s.dynamics.kind == sim::DynamicsKind::static_graph;
}

/// The initial graph's connected components and edges, by a breadth-first search over the ports.
void measure_graph(const sim::Engine& e, std::uint64_t n, unsigned delta, Result& r) {
  std::vector<bool> seen(n, false);
  std::vector<NodeId> queue;
  std::uint64_t ends = 0;
  for (NodeId start = 0; start < n; ++start) {
    if (seen[start]) continue;
    ++r.components;
    seen[start] = true, queue.assign(1, start);
    while (!queue.empty()) {
      const NodeId u = queue.back();
      queue.pop_back();
      for (unsigned port = 1; port <= delta; ++port) {
        const NodeId v = e.far_end(u, static_cast<core::Port>(port)).node;
        if (v == no_node) continue;
        ++ends;
        if (!seen[v]) seen[v] = true, queue.push_back(v);
      }
    }
  }
  r.edges = ends / 2;
}

/// The trace's first application line: the protocol and every agent's initial state, so that a
/// reader (the viewer) can follow each agent's state through the interaction lines.
void trace_agents(sim::Engine& e, const Protocol& p, const std::vector<AgentState>& agents, bool tracing) {
  if (!tracing) return;
  json initial = json::array();
  for (AgentState a : agents) initial.push_back(a);
  e.trace_line("agents", {{"protocol", p.name}, {"states", p.states}, {"initial", std::move(initial)}});
}
/// An interaction line: the two agents and their states before and after.
void trace_interaction(sim::Engine& e, const Protocol& p, NodeId u, NodeId v, AgentState a, AgentState b, AgentState c,
                       AgentState d) {
  e.trace_line("interact", {{"initiator", u},
                            {"responder", v},
                            {"before", {p.states[a], p.states[b]}},
                            {"after", {p.states[c], p.states[d]}}});
}

// ------------------------------------------------------------------ the graph schedulers
sim::Scenario graph_scenario(const RunConfig& cfg, std::uint64_t n) {
  sim::Scenario sc = cfg.scenario;
  if (n > 0xFFFFFFFEull) throw ProtocolError("agents: at most 2^32-2 agents on a graph");
  sc.nodes = static_cast<NodeId>(n);
  sc.seed = cfg.seed;
  sc.workload.kind = sim::WorkloadKind::manual;
  // Every agent locks all the time (full contention), so waits are far longer than under the
  // derived horizon's assumption (30 uncontended Locks); P7 then flags a request pending longer
  // than this, unless the scenario sets its own horizon (docs/population.md, "Monitors").
  if (sc.horizon == 0) sc.horizon = full_contention_horizon;
  return sc;
}

}  // namespace

void run_sequential_graph(const Protocol& p, const RunConfig& cfg, Result& r) {
  const std::uint64_t n = r.agents;
  sim::RunOptions opt;
  opt.source = "pp";
  opt.trace = cfg.trace;
  opt.stop = cfg.stop;
  const sim::Scenario sc = graph_scenario(cfg, n);
  auto engine = sim::make_engine(sc, opt);
  sim::Rng rng(cfg.seed, sim::agent_stream), outcome_rng(cfg.seed, sim::application_stream);
  std::vector<AgentState> agents = place(r.initial_counts, n, rng);
  Census census(p, r.initial_counts);
  std::optional<EdgeSilence> edges;
  if (graph_stays_put(sc)) edges.emplace(*engine, p, sc.delta, agents), census.use_graph_silence(&*edges);
  trace_agents(*engine, p, agents, cfg.trace != nullptr);
  measure_graph(*engine, n, sc.delta, r);
  Sampler sampler{cfg.history_every > 0 ? std::max<std::uint64_t>(1, std::uint64_t(cfg.history_every * double(n))) : 0};
  sampler.maybe(r, census, 0, 0, true);
  const auto limit = static_cast<std::uint64_t>(std::min(cfg.max_time * double(n), 1.8e19));
  const auto per_round =
      std::max<std::uint64_t>(1, std::uint64_t(std::llround(cfg.interactions_per_round * double(n))));
  const std::size_t s = p.states.size();
  const std::uint32_t* table = p.table().data();
  const auto n32 = static_cast<std::uint32_t>(n);
  std::uint64_t done = 0, effective = 0;
  r.converged = census.holds();
  double round = 0;
  std::uint64_t round_start = 0;  // interactions before the current round
  while (!r.converged && done < limit) {
    // A uniform edge of the current graph: a uniform (node, port) slot holding an edge; each edge
    // has two slots, so each is drawn with the same probability, in either orientation. A round
    // with no edge at all (n * Delta * 8 empty slots in a row) passes without interactions.
    const std::uint64_t target = std::min(limit, done + per_round);
    std::uint64_t misses = 0;
    const std::uint64_t miss_limit = std::uint64_t{8} * n * sc.delta;
    while (done < target && misses < miss_limit) {
      const NodeId u = rng.below(n32);
      const auto port = static_cast<core::Port>(1 + rng.below(sc.delta));
      const sim::Link l = engine->far_end(u, port);
      if (l.node == no_node) {
        ++misses;
        continue;
      }
      misses = 0;
      ++done;
      const AgentState a = agents[u], b = agents[l.node];
      const auto [c, d] = interact(p, table, s, a, b, outcome_rng);
      if (cfg.trace) trace_interaction(*engine, p, u, l.node, a, b, c, d);
      if (c == a && d == b) continue;
      if (edges) edges->before(u, l.node);
      agents[u] = c, agents[l.node] = d;
      if (edges) edges->after(u, l.node);
      census.move(a, c), census.move(b, d);
      ++effective;
      if (census.holds()) {
        r.converged = true;
        break;
      }
    }
    sampler.maybe(r, census, done, round);
    if (r.converged) break;
    if (!engine->step()) {
      r.interrupted = engine->now() < double(sc.rounds) && cfg.stop && cfg.stop->load();
      break;
    }
    round = engine->now(), round_start = done;
  }
  engine->end_run();
  r.run_summary = engine->finish();
  // The last round counts for the share of its interactions that ran before the stop.
  r.rounds = round + double(done - round_start) / double(per_round);
  r.interactions = done, r.effective_interactions = effective;
  r.final_counts = census.counts();
  r.violations = engine->violations();
  sampler.maybe(r, census, done, round, true);
}

namespace {

/// The lock schedulers: the engine calls back at each completion (sim::LockListener).
class LockDriver final : public sim::LockListener {
 public:
  LockDriver(const Protocol& p, const RunConfig& cfg, Result& r, std::vector<AgentState> agents, Census& census)
      : p_(p),
        cfg_(cfg),
        r_(r),
        agents_(std::move(agents)),
        census_(census),
        rng_(cfg.seed, sim::application_stream),
        pair_(cfg.scheduler == SchedulerKind::lock_pair),
        group_each_(cfg.scheduler == SchedulerKind::lock_neighbourhood && p.group == GroupRule::each),
        busy_(r.agents, no_node),
        partner_(r.agents, no_node) {
    sampler_.every =
        cfg.history_every > 0 ? std::max<std::uint64_t>(1, std::uint64_t(cfg.history_every * double(r.agents))) : 0;
    limit_ = static_cast<std::uint64_t>(std::min(cfg.max_time * double(r.agents), 1.8e19));
  }
  void attach(sim::Engine& e, bool static_graph) {
    engine_ = &e;
    if (static_graph) edges_.emplace(e, p_, cfg_.scenario.delta, agents_), census_.use_graph_silence(&*edges_);
  }
  void start() {
    trace_agents(*engine_, p_, agents_, cfg_.trace != nullptr);
    sampler_.maybe(r_, census_, 0, 0, true);
    r_.converged = census_.holds();
    if (r_.converged) return engine_->end_run();
    for (NodeId u = 0; u < r_.agents; ++u) request(u);
  }

  void locked(NodeId u, std::uint64_t ports) override {
    ++r_.lock_cycles;
    sim::Engine& e = *engine_;
    std::uint64_t partners = ports & ~std::uint64_t{1};
    if (cfg_.unsafe_partner) partners = e.node(u).neighbours;  // test-only: the isolation monitor must fire
    if (partners == 0 || ended_) {
      if (partners == 0) ++r_.no_partner;
      e.request_unlock(u);
      return;
    }
    // A uniformly random locked neighbour (the application's choice; any would do), or, with the
    // protocol's group rule "each" under lock-neighbourhood, every locked neighbour in a random
    // order, all inside the one critical section.
    std::array<core::Port, 64> order{};
    unsigned count = 0;
    for (std::uint64_t rest = partners; rest; rest &= rest - 1)
      order[count++] = static_cast<core::Port>(std::countr_zero(rest));
    if (!group_each_) {
      order[0] = order[rng_.below(count)], count = 1;
    } else {
      for (unsigned i = count; i > 1; --i) std::swap(order[i - 1], order[rng_.below(i)]);
    }
    for (unsigned i = 0; i < count && !r_.converged; ++i) interact_with(e, u, order[i]);
    sampler_.maybe(r_, census_, r_.interactions, e.now());
    if (r_.converged || r_.interactions >= limit_) ended_ = true, e.end_run();
    e.request_unlock(u);
  }
  /// One interaction of u with the agent on its locked port.
  void interact_with(sim::Engine& e, NodeId u, core::Port port) {
    const sim::Link l = e.far_end(u, port);
    const NodeId v = l.node;
    if (v == no_node) {  // P3 says a returned port holds an edge; report rather than crash
      e.report("isolation", {u},
               "node " + std::to_string(u) + "'s lock returned port " + std::to_string(port) + ", which holds no edge");
      return;
    }
    check_isolation(e, u, v, l.port);
    const AgentState a = agents_[u], b = agents_[v];
    const auto [c, d] = interact(p_, p_.table().data(), p_.states.size(), a, b, rng_);
    if (edges_) edges_->before(u, v);
    agents_[u] = c, agents_[v] = d;
    if (edges_) edges_->after(u, v);
    busy_[u] = busy_[v] = u, partner_[u] = v;
    ++r_.interactions;
    if (cfg_.trace) trace_interaction(e, p_, u, v, a, b, c, d);
    if (c != a || d != b) {
      census_.move(a, c), census_.move(b, d);
      ++r_.effective_interactions;
      if (census_.holds()) r_.converged = true;
    }
  }
  void unlock_called(NodeId u) override {
    if (partner_[u] != no_node) busy_[partner_[u]] = no_node, partner_[u] = no_node;
    busy_[u] = no_node;
  }
  void unlocked(NodeId u) override {
    if (!ended_) request(u);
  }
  void finish_history(double round) { sampler_.maybe(r_, census_, r_.interactions, round, true); }

 private:
  void request(NodeId u) {
    ++r_.lock_requests;
    if (!pair_) {
      engine_->request_lock(u);
      return;
    }
    // The second implementation: choose the partner first, among the current neighbours, and
    // Lock only the two (none: Lock only u, which finds no partner).
    const std::uint64_t neighbours = engine_->node(u).neighbours;
    std::uint64_t chosen = 0;
    if (neighbours) {
      unsigned pick = rng_.below(static_cast<std::uint32_t>(std::popcount(neighbours)));
      std::uint64_t rest = neighbours;
      while (pick--) rest &= rest - 1;
      chosen = rest & (~rest + 1);
    }
    engine_->request_lock(u, chosen);
  }
  /// The isolation monitor: u's interaction with v happens while both are in u's lock set (u's lock
  /// names itself, v's names its port to u) and neither is in another interaction.
  void check_isolation(sim::Engine& e, NodeId u, NodeId v, core::Port v_port) {
    ++r_.isolation_checks;
    const sim::NodeView nu = e.node(u), nv = e.node(v);
    std::string problem;
    if (nu.lock_port != core::self_port) problem = "the initiator's lock does not name itself";
    if (nv.lock_port != v_port)
      problem = "the responder " + std::to_string(v) + " is not in the initiator's lock set (its lock names port " +
                (nv.lock_port == core::no_port ? std::string("none") : std::to_string(nv.lock_port)) + ", not " +
                std::to_string(v_port) + ")";
    for (NodeId x : {u, v})
      if (busy_[x] != no_node && busy_[x] != u && still_held(e, x, busy_[x]))
        problem =
            "agent " + std::to_string(x) + " is already in the interaction initiated by " + std::to_string(busy_[x]);
    if (!problem.empty())
      e.report("isolation", {u, v},
               "interaction of " + std::to_string(u) + " with " + std::to_string(v) + ": " + problem);
  }

  /// Whether x is still in the lock set of w, whose interaction it was in: its lock names its port
  /// to w. An edge cut ends x's part in w's interaction (x's CleanUp releases the lock, and x may
  /// then be locked by another initiator, as the paper's lock set is of connected neighbours).
  [[nodiscard]] bool still_held(const sim::Engine& e, NodeId x, NodeId w) const {
    const core::Port lock = e.node(x).lock_port;
    if (x == w) return lock == core::self_port;
    return lock != core::no_port && lock != core::self_port && e.far_end(x, lock).node == w;
  }

  const Protocol& p_;
  const RunConfig& cfg_;
  Result& r_;
  std::vector<AgentState> agents_;
  Census& census_;
  sim::Rng rng_;
  bool pair_;
  bool group_each_;              ///< lock-neighbourhood with the protocol's group rule "each"
  std::vector<NodeId> busy_;     ///< per agent: the initiator of the interaction it is in
  std::vector<NodeId> partner_;  ///< per initiator: its partner in the open interaction
  sim::Engine* engine_ = nullptr;
  std::optional<EdgeSilence> edges_;
  Sampler sampler_;
  std::uint64_t limit_ = 0;
  bool ended_ = false;
};

}  // namespace

void run_locked(const Protocol& p, const RunConfig& cfg, Result& r) {
  const std::uint64_t n = r.agents;
  const sim::Scenario sc = graph_scenario(cfg, n);
  sim::Rng rng(cfg.seed, sim::agent_stream);
  Census census(p, r.initial_counts);
  LockDriver driver(p, cfg, r, place(r.initial_counts, n, rng), census);
  sim::RunOptions opt;
  opt.source = "pp";
  opt.trace = cfg.trace;
  opt.stop = cfg.stop;
  opt.listener = &driver;
  auto engine = sim::make_engine(sc, opt);
  driver.attach(*engine, graph_stays_put(sc));
  measure_graph(*engine, n, sc.delta, r);
  driver.start();
  while (engine->step()) {
  }
  r.interrupted = cfg.stop && cfg.stop->load();
  r.rounds = engine->now();
  r.run_summary = engine->finish();
  r.final_counts = census.counts();
  r.violations = engine->violations();
  r.messages = r.run_summary.value("messages", std::uint64_t{0});
  driver.finish_history(r.rounds);
}

}  // namespace lmx::apps::pp::detail
