// A population protocol's run (docs/population.md, "Schedulers", "Results"): the scheduler names,
// run() with its checks and the dispatch to the four schedulers (sequential.cpp,
// graph_schedulers.cpp), one result; the result as JSON and as a history CSV.
#include <array>
#include <chrono>
#include <cmath>
#include <map>
#include <optional>
#include <ostream>
#include <string_view>

#include "lmx/apps/population.hpp"
#include "schedulers.hpp"

namespace lmx::apps::pp {

using nlohmann::json;

namespace {

constexpr std::array<std::string_view, 4> scheduler_words = {"sequential", "sequential-graph", "lock-neighbourhood",
                                                             "lock-pair"};

std::string outcome_text(const Protocol& p, const std::vector<std::uint64_t>& counts) {
  std::map<std::string, std::uint64_t> by_output;
  for (std::size_t s = 0; s < counts.size(); ++s)
    if (counts[s]) by_output[p.outputs[s]] += counts[s];
  if (by_output.size() == 1) return "consensus " + by_output.begin()->first;
  std::string text;
  for (auto& [o, c] : by_output) text += (text.empty() ? "" : " ") + o + ":" + std::to_string(c);
  return text;
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
    case SchedulerKind::sequential: detail::run_sequential(p, cfg, r); break;
    case SchedulerKind::sequential_graph: detail::run_sequential_graph(p, cfg, r); break;
    case SchedulerKind::lock_neighbourhood:
    case SchedulerKind::lock_pair: detail::run_locked(p, cfg, r); break;
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
