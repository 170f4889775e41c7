// What the schedulers of population protocols share (docs/population.md, "Schedulers"): the
// edge silence on a graph that stays put, the census with the stop condition, one interaction
// from the table, the agents' initial placement and the history sampler; and the schedulers that
// run() (run.cpp) dispatches to, in sequential.cpp and graph_schedulers.cpp.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "lmx/apps/population.hpp"
#include "sim/rng.hpp"

namespace lmx::apps::pp::detail {

using sim::no_node;
using sim::NodeId;

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
inline std::vector<AgentState> place(const std::vector<std::uint64_t>& counts, std::uint64_t n, sim::Rng& rng) {
  std::vector<AgentState> agents;
  agents.reserve(n);
  for (std::size_t s = 0; s < counts.size(); ++s) agents.insert(agents.end(), counts[s], static_cast<AgentState>(s));
  for (std::uint64_t i = n; i > 1; --i) std::swap(agents[i - 1], agents[rng.below(static_cast<std::uint32_t>(i))]);
  return agents;
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

// ------------------------------------------------------------------ the schedulers
/// sequential (complete graph): sequential.cpp.
void run_sequential(const Protocol& p, const RunConfig& cfg, Result& r);
/// sequential-graph, and the lock schedulers lock-neighbourhood and lock-pair: graph_schedulers.cpp.
void run_sequential_graph(const Protocol& p, const RunConfig& cfg, Result& r);
void run_locked(const Protocol& p, const RunConfig& cfg, Result& r);

}  // namespace lmx::apps::pp::detail
