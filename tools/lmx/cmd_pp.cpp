// `lmx pp run PROTOCOL [--scheduler NAME] [--scenario FILE] [--set key=value]... [--seed N] [--json]
// [--trace FILE] [--history FILE]` and `lmx pp list`: population protocols under the sequential
// schedulers and on lmx locks (docs/population.md).
#include <fmt/format.h>

#include <cmath>
#include <iostream>
#include <optional>
#include <set>

#include "command.hpp"
#include "lmx/apps/population.hpp"
#include "lmx/sim/simulation.hpp"
#include "numbers.hpp"
#include "output.hpp"
#include "report.hpp"

namespace {
using nlohmann::json;
// Declared one by one: in a unity build other commands' using-directives are in scope (core::Protocol).
using lmx::apps::pp::load_protocol;
using lmx::apps::pp::Protocol;
using lmx::apps::pp::protocol_from_toml;
using lmx::apps::pp::ProtocolError;
using lmx::apps::pp::report_json;
using lmx::apps::pp::Result;
using lmx::apps::pp::RunConfig;
using lmx::apps::pp::scheduler_from_word;
using lmx::apps::pp::SchedulerKind;
using lmx::apps::pp::shipped_protocols;
using lmx::apps::pp::ShippedProtocol;
using lmx::apps::pp::to_json;
using lmx::apps::pp::to_string;
using lmx::apps::pp::write_history_csv;
using lmx::cli::Failure;

struct PpArgs {
  std::string protocol;
  std::string scheduler = "sequential";
  std::string scenario_file;
  std::vector<std::string> sets;
  std::optional<std::uint64_t> seed;
  std::string trace;
  std::string history;
  std::string report;
  bool json = false;
};

/// The run's own keys; every other --set key is the graph scenario's (as in `lmx run`).
const std::set<std::string> run_keys = {"agents", "max_time", "history_every", "interactions_per_round"};

/// --set values of the run's own keys, as numbers.
double number_of(const std::string& key, const json& v) {
  if (!v.is_number()) throw Failure("--set " + key + ": expected a number, got " + v.dump());
  return v.get<double>();
}

struct Loaded {
  Protocol protocol;
  RunConfig config;
};

Loaded load(const PpArgs& a) {
  Loaded l;
  try {
    l.protocol = load_protocol(a.protocol);
  } catch (const ProtocolError& e) {
    throw Failure(e.what());
  }
  const auto kind = scheduler_from_word(a.scheduler);
  if (!kind)
    throw Failure("--scheduler: unknown scheduler '" + lmx::sim::printable(a.scheduler) +
                  "' (one of sequential, sequential-graph, lock-neighbourhood, lock-pair)");
  RunConfig& c = l.config;
  c.scheduler = *kind;
  c.agents = l.protocol.agents;
  json run = json::object();
  json scenario;
  try {
    scenario = a.scenario_file.empty() ? json::object() : lmx::sim::scenario_json_from_toml_file(a.scenario_file);
    for (const auto& s : a.sets) {
      const std::string key = s.substr(0, s.find('='));
      if (key == "nodes") throw Failure("--set nodes: the population size is 'agents' (--set agents=N)");
      if (key == "seed") throw Failure("--set seed: use --seed N");
      if (run_keys.count(key)) {
        lmx::sim::apply_override(run, s);
      } else {
        lmx::sim::apply_override(scenario, s);
      }
    }
  } catch (const lmx::sim::ScenarioError& e) {
    throw Failure(e.what());
  }
  if (run.contains("agents")) {
    const json& v = run["agents"];
    if (!v.is_number_integer() || v.get<std::int64_t>() < 2 || v.get<std::int64_t>() > 0xFFFFFFFELL)
      throw Failure("--set agents: expected an integer in 2..4294967294, got " + v.dump());
    c.agents = v.get<std::uint64_t>();
  }
  if (run.contains("max_time")) c.max_time = number_of("max_time", run["max_time"]);
  if (run.contains("history_every")) c.history_every = number_of("history_every", run["history_every"]);
  if (run.contains("interactions_per_round") && c.scheduler != SchedulerKind::sequential_graph)
    throw Failure(
        "--set interactions_per_round: only the sequential-graph scheduler takes it (the lock schedulers' "
        "rate is what the run measures)");
  if (run.contains("interactions_per_round"))
    c.interactions_per_round = number_of("interactions_per_round", run["interactions_per_round"]);
  if (a.seed) c.seed = *a.seed;
  if (!a.history.empty() && c.history_every == 0) c.history_every = 1;
  const bool on_graph = c.scheduler != SchedulerKind::sequential;
  if (!on_graph && (!a.scenario_file.empty() || !scenario.empty()))
    throw Failure("the sequential scheduler runs on the complete graph: scenario keys (" +
                  (a.scenario_file.empty() ? scenario.begin().key() : std::string("--scenario")) +
                  ") need --scheduler sequential-graph, lock-neighbourhood or lock-pair");
  if (on_graph) {
    // The graph's scenario: `lmx run`'s, with as many nodes as agents and a long run (the
    // protocol's stop condition or max_time ends it first).
    if (!scenario.contains("rounds")) scenario["rounds"] = 1000000;
    scenario["nodes"] = c.agents;
    if (scenario.contains("workload"))
      throw Failure("scenario key 'workload': the protocol calls Lock and Unlock itself (no workload keys)");
    try {
      c.scenario = lmx::sim::scenario_from_json(scenario);
    } catch (const lmx::sim::ScenarioError& e) {
      throw Failure(e.what());
    }
  }
  if (!(c.max_time > 0) || !std::isfinite(c.max_time)) throw Failure("--set max_time: must be a finite number > 0");
  if (!(c.history_every >= 0)) throw Failure("--set history_every: must be >= 0");
  if (!(c.interactions_per_round > 0)) throw Failure("--set interactions_per_round: must be > 0");
  return l;
}

std::string summary_text(const Protocol& p, const Result& r, const json& j) {
  std::string out;
  auto line = [&out](const std::string& s) { out += s + "\n"; };
  line(fmt::format("lmx pp: protocol '{}' ({} states), {} agents, scheduler {}, seed {}", p.name, p.states.size(),
                   r.agents, to_string(r.scheduler), r.seed));
  line(fmt::format("  stop '{}': {} after {} interactions ({} changed a state), parallel time {:.3f}{}", p.stop.text,
                   r.converged ? "reached" : "NOT reached", r.interactions, r.effective_interactions, r.parallel_time,
                   r.interrupted ? "; INTERRUPTED" : ""));
  line("  outcome: " + r.outcome);
  if (r.scheduler != SchedulerKind::sequential)
    line(fmt::format("  rounds {:.2f}, {:.2f} interactions per round", r.rounds,
                     r.rounds > 0 ? double(r.interactions) / r.rounds : 0.0));
  if (j.contains("lock")) {
    const json& l = j["lock"];
    line(
        fmt::format("  locks: {} requests, {} completed, {} without a partner; per interaction {:.1f} messages, "
                    "{:.2f} lock requests; isolation checked on {} interactions",
                    r.lock_requests, r.lock_cycles, r.no_partner, l["messages_per_interaction"].get<double>(),
                    l["lock_requests_per_interaction"].get<double>(), r.isolation_checks));
  }
  if (j.contains("run")) {
    std::string props;
    for (auto it = j["run"]["properties"].begin(); it != j["run"]["properties"].end(); ++it)
      props += fmt::format(" {}:{}", it.key(), it.value().get<std::string>());
    line("  monitors:" + props);
  }
  std::size_t shown = 0;
  for (const auto& v : r.violations) {
    if (++shown > 5) break;
    line(fmt::format("  VIOLATION {} at round {:.3f}: {}", v.property, v.round, v.detail));
  }
  line(fmt::format("  {:.0f} interactions/s, {:.3f} s",
                   r.wall_seconds > 0 ? double(r.interactions) / r.wall_seconds : 0.0, r.wall_seconds));
  return out;
}

const lmx::cli::Register pp_command{
    {"pp", 35, [](CLI::App& app, int& exit_code) {
       static PpArgs a;
       static std::string seed_text;
       static bool list_json = false;
       auto* pp =
           app.add_subcommand("pp", "Population protocols: sequential schedulers and lmx locks (docs/population.md)");
       pp->require_subcommand(1);
       auto* run = pp->add_subcommand("run", "Run a population protocol under a scheduler");
       run->add_option("protocol", a.protocol, "Protocol file (TOML) or a shipped protocol's name (lmx pp list)")
           ->required();
       run->add_option("--scheduler", a.scheduler,
                       "sequential (complete graph, default), sequential-graph, lock-neighbourhood or lock-pair");
       run->add_option("--scenario", a.scenario_file, "The graph schedulers' scenario file (as for lmx run)");
       run->add_option("--set", a.sets,
                       "agents=N, max_time=T, history_every=T, interactions_per_round=X, or a scenario key "
                       "(topology.kind=grid, delta=4, ...) (repeatable)");
       auto* seed_opt = run->add_option("--seed", seed_text, "Seed of every random choice, 0..18446744073709551615");
       run->add_option("--trace", a.trace, "Lock schedulers: write the lmx-trace/1 trace, with interaction lines");
       run->add_option("--history", a.history, "Write the state counts over time as CSV to FILE");
       run->add_flag("--json", a.json, "Print one JSON object (docs/population.md)");
       run->add_option("--report", a.report,
                       "Graph schedulers: write the HTML run report, with the state counts over time, to FILE");
       run->callback([&exit_code, seed_opt] {
         if (seed_opt->count()) a.seed = lmx::cli::seed_option(seed_text);
         Loaded l = load(a);
         const std::vector<std::string> inputs{a.protocol, a.scenario_file, l.config.scenario.topology.file};
         lmx::cli::refuse_overwriting_inputs("--trace", a.trace, inputs);
         lmx::cli::refuse_overwriting_inputs("--history", a.history, inputs);
         lmx::cli::refuse_overwriting_inputs("--history", a.history, {a.trace});
         lmx::cli::refuse_overwriting_inputs("--report", a.report, inputs);
         lmx::cli::refuse_overwriting_inputs("--report", a.report, {a.trace, a.history});
         if (!a.report.empty() && l.config.scheduler == SchedulerKind::sequential)
           throw Failure(
               "--report: the sequential scheduler on the complete graph has no network run to report (--history "
               "FILE.csv gives its counts over time)");
         // The report plots the counts over time: four samples per unit of parallel time unless told otherwise.
         if (!a.report.empty() && l.config.history_every == 0) l.config.history_every = 0.25;
         if (!a.trace.empty() && (l.config.scheduler == SchedulerKind::sequential))
           throw Failure(
               "--trace: the sequential scheduler on the complete graph writes no trace (a graph scheduler does)");
         // A run that cannot fit is refused before anything is allocated: a byte per agent for the
         // sequential scheduler; the engine's estimate plus the driver's 9 bytes per agent on a graph.
         const std::uint64_t need =
             l.config.scheduler == SchedulerKind::sequential
                 ? l.config.agents
                 : lmx::sim::estimate_memory_bytes(l.config.scenario, !a.trace.empty()) + 9 * l.config.agents;
         if (const std::uint64_t have = lmx::cli::machine_memory_bytes(); have && need > have)
           throw Failure(
               fmt::format("the run needs about {:.1f} GiB of memory (estimated), more than this machine's "
                           "{:.1f} GiB; fewer agents would fit",
                           double(need) / double(1ull << 30), double(have) / double(1ull << 30)));
         lmx::cli::InterruptGuard interrupt;
         std::optional<lmx::cli::OutputFile> trace_file, history_file;
         if (!a.trace.empty()) trace_file.emplace(a.trace), l.config.trace = &trace_file->stream();
         if (!a.history.empty()) history_file.emplace(a.history);
         l.config.stop = &lmx::cli::InterruptGuard::requested();
         Result r;
         try {
           r = lmx::apps::pp::run(l.protocol, l.config);
         } catch (const ProtocolError& e) {
           throw Failure(e.what());
         } catch (const lmx::sim::ScenarioError& e) {
           throw Failure(e.what());
         }
         if (trace_file) trace_file->commit();
         if (history_file) {
           write_history_csv(history_file->stream(), l.protocol, r);
           history_file->commit();
         }
         const json j = to_json(l.protocol, r);
         if (!a.report.empty()) {
           json summary = r.run_summary;
           summary["population"] = report_json(l.protocol, r);
           try {
             lmx::report::write_report(
                 summary, a.trace.empty() ? std::nullopt : std::optional<std::filesystem::path>(a.trace), a.report);
           } catch (const lmx::report::Error& e) {
             throw Failure(e.what());
           }
         }
         lmx::cli::print_stdout(a.json ? j.dump() + "\n" : summary_text(l.protocol, r, j));
         if (!r.violations.empty()) exit_code = 1;
         if (r.interrupted) exit_code = lmx::cli::interrupted_exit_code;
       });
       auto* list = pp->add_subcommand("list", "List the shipped protocols");
       list->add_flag("--json", list_json, "Print a JSON array");
       list->callback([] {
         json all = json::array();
         std::string text;
         for (const ShippedProtocol& s : shipped_protocols()) {
           const Protocol p = protocol_from_toml(s.toml, std::string(s.name) + ".toml");
           all.push_back({{"name", s.name},
                          {"states", p.states.size()},
                          {"rules", p.to_json()["rules"].size()},
                          {"stop", p.stop.text},
                          {"description", p.description}});
           text += fmt::format("{:<32} {:>3} states  {}\n", s.name, p.states.size(), p.description);
         }
         lmx::cli::print_stdout(list_json ? all.dump() + "\n" : text);
       });
     }}};
}  // namespace
