// The four schedulers of population protocols (docs/population.md, "Schedulers"), one result.
#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cmath>
#include <map>
#include <optional>
#include <ostream>

#include "lmx/apps/population.hpp"
#include "sim/rng.hpp"

namespace lmx::apps::pp {

using nlohmann::json;
using sim::no_node;
using sim::NodeId;

namespace {

constexpr std::array<std::string_view, 4> scheduler_words = {"sequential", "sequential-graph", "lock-neighbourhood",
                                                             "lock-pair"};

/// Silence on a graph that stays put: no edge joins two agents whose pair, in either order, has a
/// rule that changes them. Kept as the number of such edges, updated over the two agents' edges at
/// each interaction. On a static graph it is absorbing, and it comes earlier than the census's
/// population-level silence, which needs every pair of present states to be null (discrete
/// averaging on a grid ends balanced edge by edge, with values 14, 15 and 16 left far apart).
class EdgeSilence {
 public:
  EdgeSilence(const sim::Engine& e, const Protocol& p, unsigned delta, const std::vector<AgentState>& agents)
      : e_(e), s_(p.states.size()), delta_(delta), agents_(agents) {
    changes_.assign(s_ * s_, false);
    for (std::size_t a = 0; a < s_; ++a)
      for (std::size_t b = 0; b < s_; ++b)
        changes_[a * s_ + b] = p.changes(AgentState(a), AgentState(b)) || p.changes(AgentState(b), AgentState(a));
    for (NodeId u = 0; u < agents.size(); ++u)
      for (unsigned port = 1; port <= delta_; ++port) {
        const NodeId v = e_.far_end(u, static_cast<core::Port>(port)).node;
        if (v != no_node && u < v) active_ += active(u, v);
      }
  }
  /// Around an interaction of u and v: before() with the old states, after() with the new.
  void before(NodeId u, NodeId v) {
    each_edge(u, v, [this](NodeId x, NodeId w) { active_ -= active(x, w); });
  }
  void after(NodeId u, NodeId v) {
    each_edge(u, v, [this](NodeId x, NodeId w) { active_ += active(x, w); });
  }
  [[nodiscard]] bool silent() const { return active_ == 0; }

 private:
  [[nodiscard]] std::uint64_t active(NodeId x, NodeId w) const { return changes_[agents_[x] * s_ + agents_[w]]; }
  template <class F>
  void each_edge(NodeId u, NodeId v, F f) const {
    for (NodeId x : {u, v})
      for (unsigned port = 1; port <= delta_; ++port) {
        const NodeId w = e_.far_end(x, static_cast<core::Port>(port)).node;
        if (w != no_node && !(x == v && w == u)) f(x, w);
      }
  }
  const sim::Engine& e_;
  std::size_t s_;
  unsigned delta_;
  const std::vector<AgentState>& agents_;
  std::vector<bool> changes_;
  std::uint64_t active_ = 0;
};

/// The population's counts per state and the stop condition, kept up to date per interaction.
/// Consensus is a count of distinct outputs; silence (no present pair has a rule that changes it)
/// is recomputed only after a count crossed 0, 1 or 2, the only moments it can change.
class Census {
 public:
  Census(const Protocol& p, std::vector<std::uint64_t> counts) : p_(p), counts_(std::move(counts)) {
    const auto s = p.states.size();
    std::map<std::string, unsigned> ids;
    for (std::size_t i = 0; i < s; ++i)
      output_of_.push_back(ids.emplace(p.outputs[i], unsigned(ids.size())).first->second);
    output_counts_.assign(ids.size(), 0);
    for (std::size_t i = 0; i < s; ++i) {
      output_counts_[output_of_[i]] += counts_[i];
    }
    for (auto c : output_counts_) distinct_ += c > 0;
    changes_.assign(s * s, false);
    for (std::size_t a = 0; a < s; ++a)
      for (std::size_t b = 0; b < s; ++b) changes_[a * s + b] = p.changes(AgentState(a), AgentState(b));
  }
  void move(AgentState from, AgentState to) {
    if (from == to) return;
    if (--counts_[from] <= 1) dirty_ = true;
    if (++counts_[to] <= 2) dirty_ = true;
    const unsigned of = output_of_[from], ot = output_of_[to];
    if (of != ot) {
      if (--output_counts_[of] == 0) --distinct_;
      if (output_counts_[ot]++ == 0) ++distinct_;
    }
  }
  [[nodiscard]] bool holds() {
    const StopCondition& c = p_.stop;
    switch (c.kind) {
      case StopCondition::Kind::never: return false;
      case StopCondition::Kind::consensus: return distinct_ == 1;
      case StopCondition::Kind::count: {
        const std::uint64_t v = counts_[c.state];
        switch (c.compare) {
          case StopCondition::Compare::eq: return v == c.value;
          case StopCondition::Compare::ne: return v != c.value;
          case StopCondition::Compare::lt: return v < c.value;
          case StopCondition::Compare::le: return v <= c.value;
          case StopCondition::Compare::gt: return v > c.value;
          case StopCondition::Compare::ge: return v >= c.value;
        }
        return false;
      }
      case StopCondition::Kind::silent:
        if (graph_) return graph_->silent();
        if (dirty_) silent_ = compute_silent(), dirty_ = false;
        return silent_;
    }
    return false;
  }
  [[nodiscard]] const std::vector<std::uint64_t>& counts() const { return counts_; }
  [[nodiscard]] bool consensus() const { return distinct_ == 1; }
  /// On a graph that stays put, "silent" is the graph's (EdgeSilence), not the population's.
  void use_graph_silence(const EdgeSilence* graph) { graph_ = graph; }

 private:
  bool compute_silent() const {
    const auto s = counts_.size();
    for (std::size_t a = 0; a < s; ++a) {
      if (counts_[a] == 0) continue;
      for (std::size_t b = 0; b < s; ++b)
        if (counts_[b] > (a == b ? 1u : 0u) && changes_[a * s + b]) return false;
    }
    return true;
  }
  const Protocol& p_;
  std::vector<std::uint64_t> counts_;
  std::vector<unsigned> output_of_;
  std::vector<std::uint64_t> output_counts_;
  unsigned distinct_ = 0;
  std::vector<bool> changes_;
  bool dirty_ = true, silent_ = false;
  const EdgeSilence* graph_ = nullptr;
};

bool graph_stays_put(const sim::Scenario& s) {
  return s.topology.kind != sim::TopologyKind::mobility && s.dynamics.kind == sim::DynamicsKind::static_graph;
}

/// One interaction's outcome from the table (a randomised pair draws from `rng`).
inline std::pair<AgentState, AgentState> interact(const Protocol& p, const std::uint32_t* table, std::size_t s,
                                                  AgentState a, AgentState b, sim::Rng& rng) {
  const std::uint32_t e = table[a * s + b];
  if (!(e & Protocol::randomised)) [[likely]]
    return {static_cast<AgentState>(e & 0xFF), static_cast<AgentState>((e >> 8) & 0xFF)};
  const auto& list = p.outcomes(a, b);
  double x = rng.unit();
  for (const Outcome& o : list) {
    if (x < o.probability) return {o.initiator, o.responder};
    x -= o.probability;
  }
  return {list.back().initiator, list.back().responder};
}

/// The agents' initial states: the counts, placed in a uniformly random order.
std::vector<AgentState> place(const std::vector<std::uint64_t>& counts, std::uint64_t n, sim::Rng& rng) {
  std::vector<AgentState> agents;
  agents.reserve(n);
  for (std::size_t s = 0; s < counts.size(); ++s) agents.insert(agents.end(), counts[s], static_cast<AgentState>(s));
  for (std::uint64_t i = n; i > 1; --i) std::swap(agents[i - 1], agents[rng.below(static_cast<std::uint32_t>(i))]);
  return agents;
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

/// Samples the history every `every` interactions.
struct Sampler {
  std::uint64_t every = 0, next = 0;
  void maybe(Result& r, const Census& c, std::uint64_t interactions, double round, bool force = false) {
    if (!every || (!force && interactions < next)) return;
    if (!r.history.empty() && r.history.back().interactions == interactions) return;
    r.history.push_back({double(interactions) / double(r.agents), interactions, round, c.counts()});
    next = (interactions / every + 1) * every;
  }
};

std::string outcome_text(const Protocol& p, const std::vector<std::uint64_t>& counts) {
  std::map<std::string, std::uint64_t> by_output;
  for (std::size_t s = 0; s < counts.size(); ++s)
    if (counts[s]) by_output[p.outputs[s]] += counts[s];
  if (by_output.size() == 1) return "consensus " + by_output.begin()->first;
  std::string text;
  for (auto& [o, c] : by_output) text += (text.empty() ? "" : " ") + o + ":" + std::to_string(c);
  return text;
}

// ------------------------------------------------------------------ sequential (complete graph)
void run_sequential(const Protocol& p, const RunConfig& cfg, Result& r) {
  const std::uint64_t n = r.agents;
  if (n > 0xFFFFFFFFull) throw ProtocolError("agents: the sequential scheduler takes at most 2^32-1 agents");
  sim::Rng rng(cfg.seed, sim::agent_stream), outcome_rng(cfg.seed, sim::application_stream);
  std::vector<AgentState> agents = place(r.initial_counts, n, rng);
  r.memory_bytes = agents.capacity();
  Census census(p, r.initial_counts);
  Sampler sampler{cfg.history_every > 0 ? std::max<std::uint64_t>(1, std::uint64_t(cfg.history_every * double(n))) : 0};
  sampler.maybe(r, census, 0, 0, true);
  const auto limit = static_cast<std::uint64_t>(std::min(cfg.max_time * double(n), 1.8e19));
  const std::size_t s = p.states.size();
  const std::uint32_t* table = p.table().data();
  AgentState* ag = agents.data();
  const auto n32 = static_cast<std::uint32_t>(n), m32 = static_cast<std::uint32_t>(n - 1);
  std::uint64_t done = 0, effective = 0;
  r.converged = census.holds();
  // Checked between batches: the stop flag and the history's next sample.
  while (!r.converged && done < limit) {
    if (cfg.stop && cfg.stop->load(std::memory_order_relaxed)) {
      r.interrupted = true;
      break;
    }
    std::uint64_t batch_end = std::min(limit, done + (std::uint64_t{1} << 20));
    if (sampler.every) batch_end = std::min(batch_end, sampler.next);
    for (; done < batch_end; ++done) {
      // One draw for both agents: the high half picks the initiator, the low half the responder
      // among the other n - 1 (Lemire's multiply-shift on 32-bit halves).
      const std::uint64_t x = rng.next();
      const auto i = static_cast<std::uint32_t>(((x >> 32) * n32) >> 32);
      auto j = static_cast<std::uint32_t>(((x & 0xFFFFFFFFu) * m32) >> 32);
      j += j >= i;
      const AgentState a = ag[i], b = ag[j];
      const auto [c, d] = interact(p, table, s, a, b, outcome_rng);
      if (c == a && d == b) continue;
      ag[i] = c, ag[j] = d;
      census.move(a, c), census.move(b, d);
      ++effective;
      if (census.holds()) {
        r.converged = true;
        ++done;
        break;
      }
    }
    sampler.maybe(r, census, done, 0);
  }
  r.interactions = done, r.effective_interactions = effective;
  r.final_counts = census.counts();
  sampler.maybe(r, census, done, 0, true);
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

}  // namespace

std::string_view to_string(SchedulerKind k) { return scheduler_words[static_cast<std::size_t>(k)]; }
std::optional<SchedulerKind> scheduler_from_word(std::string_view word) {
  for (std::size_t i = 0; i < scheduler_words.size(); ++i)
    if (scheduler_words[i] == word) return static_cast<SchedulerKind>(i);
  return std::nullopt;
}

Result run(const Protocol& p, const RunConfig& cfg) {
  Result r;
  r.scheduler = cfg.scheduler;
  r.agents = cfg.agents ? cfg.agents : p.agents;
  r.seed = cfg.seed;
  if (r.agents < 2) throw ProtocolError("agents: a population needs at least 2 agents");
  if (!(cfg.max_time > 0) || !std::isfinite(cfg.max_time)) throw ProtocolError("max_time: must be a number > 0");
  if (!(cfg.history_every >= 0) || !std::isfinite(cfg.history_every))
    throw ProtocolError("history_every: must be a number >= 0");
  if (!(cfg.interactions_per_round > 0) || !std::isfinite(cfg.interactions_per_round))
    throw ProtocolError("interactions_per_round: must be a number > 0");
  r.initial_counts = p.initial_counts_for(r.agents);
  const auto start = std::chrono::steady_clock::now();
  switch (cfg.scheduler) {
    case SchedulerKind::sequential: run_sequential(p, cfg, r); break;
    case SchedulerKind::sequential_graph: run_sequential_graph(p, cfg, r); break;
    case SchedulerKind::lock_neighbourhood:
    case SchedulerKind::lock_pair: run_locked(p, cfg, r); break;
  }
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.parallel_time = double(r.interactions) / double(r.agents);
  r.outcome = outcome_text(p, r.final_counts);
  return r;
}

json to_json(const Protocol& p, const Result& r) {
  auto counts = [&](const std::vector<std::uint64_t>& c) {
    json o = json::object();
    for (std::size_t s = 0; s < c.size(); ++s)
      if (c[s]) o[p.states[s]] = c[s];
    return o;
  };
  json j = {{"protocol", p.name},
            {"scheduler", to_string(r.scheduler)},
            {"agents", r.agents},
            {"seed", r.seed},
            {"stop", p.stop.text},
            {"converged", r.converged},
            {"interrupted", r.interrupted},
            {"outcome", r.outcome},
            {"interactions", r.interactions},
            {"effective_interactions", r.effective_interactions},
            {"parallel_time", r.parallel_time},
            {"initial_counts", counts(r.initial_counts)},
            {"final_counts", counts(r.final_counts)},
            {"wall_seconds", r.wall_seconds},
            {"interactions_per_second", r.wall_seconds > 0 ? double(r.interactions) / r.wall_seconds : 0.0}};
  if (r.scheduler == SchedulerKind::sequential) {
    j["agent_state_bytes"] = r.memory_bytes;
  } else {
    j["graph"] = {{"components", r.components}, {"edges", r.edges}, {"connected", r.components == 1}};
    j["rounds"] = r.rounds;
    j["interactions_per_round"] = r.rounds > 0 ? double(r.interactions) / r.rounds : 0.0;
  }
  if (r.scheduler == SchedulerKind::lock_neighbourhood || r.scheduler == SchedulerKind::lock_pair) {
    const double per = r.interactions ? 1.0 / double(r.interactions) : 0.0;
    j["lock"] = {{"lock_requests", r.lock_requests},
                 {"lock_cycles", r.lock_cycles},
                 {"no_partner", r.no_partner},
                 {"messages", r.messages},
                 {"messages_per_interaction", double(r.messages) * per},
                 {"lock_requests_per_interaction", double(r.lock_requests) * per},
                 {"isolation_checks", r.isolation_checks}};
  }
  json v = json::array();
  for (const auto& x : r.violations)
    v.push_back({{"property", x.property}, {"round", x.round}, {"nodes", x.nodes}, {"detail", x.detail}});
  j["violations"] = v;
  if (!r.run_summary.is_null()) j["run"] = r.run_summary;
  return j;
}

json report_json(const Protocol& p, const Result& r) {
  json j = to_json(p, r);
  j.erase("run");
  j.erase("violations");
  j["states"] = p.states;
  json times = json::array(), rounds = json::array(), counts = json::object();
  for (const auto& s : p.states) counts[s] = json::array();
  for (const HistoryRow& row : r.history) {
    times.push_back(row.parallel_time);
    rounds.push_back(row.round);
    for (std::size_t s = 0; s < p.states.size(); ++s) counts[p.states[s]].push_back(row.counts[s]);
  }
  j["history"] = {{"parallel_time", times}, {"round", rounds}, {"counts", counts}};
  return j;
}

void write_history_csv(std::ostream& out, const Protocol& p, const Result& r) {
  out << "parallel_time,interactions,round";
  for (const auto& s : p.states) out << ',' << s;
  out << '\n';
  for (const HistoryRow& row : r.history) {
    out << json(row.parallel_time).dump() << ',' << row.interactions << ',' << json(row.round).dump();
    for (auto c : row.counts) out << ',' << c;
    out << '\n';
  }
}

}  // namespace lmx::apps::pp
