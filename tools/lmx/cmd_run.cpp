// `lmx run [SCENARIO.toml] [--set key=value]... [--seed N] [--variant NAME] [--trace FILE] [--json]`:
// runs the simulator with every monitor of P1-P7 live (docs/simulator.md, docs/run-format.md).
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>

#include "command.hpp"
#include "lmx/sim/simulation.hpp"
#include "process.hpp"
#include "report.hpp"

namespace {
using nlohmann::json;
using namespace lmx::sim;

struct RunArgs {
  std::string scenario_file;
  std::vector<std::string> sets;
  std::optional<std::uint64_t> seed;
  std::string variant;
  std::string trace;
  std::string report;
  bool json = false;
};

Scenario load(const RunArgs& a) {
  try {
    json j = a.scenario_file.empty() ? json::object() : scenario_json_from_toml_file(a.scenario_file);
    for (const auto& s : a.sets) apply_override(j, s);
    if (a.seed) j["seed"] = *a.seed;
    if (!a.variant.empty()) j["variant"] = a.variant;
    return scenario_from_json(j);
  } catch (const ScenarioError& e) {
    throw lmx::cli::Failure(e.what());
  }
}

/// A progress bar on the status line.
struct Progress {
  lmx::cli::StatusLine line;
  void operator()(double fraction) {
    const int width = 40, filled = static_cast<int>(fraction * width);
    line.show("[" + std::string(static_cast<std::size_t>(filled), '#') +
              std::string(static_cast<std::size_t>(width - filled), ' ') + "] " +
              std::to_string(static_cast<int>(fraction * 100)) + "%");
  }
  void clear() const { line.clear(); }
};

std::string num(const json& v, int precision = 1) {
  if (v.is_null()) return "-";
  if (v.is_number_integer()) return std::to_string(v.get<long long>());
  return fmt::format("{:.{}f}", v.get<double>(), precision);
}

void print_summary(const json& r) {
  const auto& sc = r["scenario"];
  fmt::print("lmx run: scenario '{}', {} nodes, Delta={}, K={}, {} engine, variant {}, seed {}\n",
             sc["name"].get<std::string>(), sc["nodes"].get<unsigned>(), sc["delta"].get<unsigned>(),
             sc["k"].get<unsigned>(), r["engine"].get<std::string>(), r["variant"].get<std::string>(),
             r["seed"].get<std::uint64_t>());
  fmt::print("  adversary: activation {}, delivery {}, topology {} ({}), workload {}\n",
             sc["activation"]["kind"].get<std::string>(), sc["delivery"]["kind"].get<std::string>(),
             sc["topology"]["kind"].get<std::string>(), sc["dynamics"]["kind"].get<std::string>(),
             sc["workload"]["locks"].get<unsigned>()
                 ? fmt::format("{} locks per node", sc["workload"]["locks"].get<unsigned>())
                 : "continuous");
  fmt::print("  rounds {}, actions {}, messages {} ({} lost)\n", num(r["rounds"]), num(r["actions"]),
             num(r["messages"]), num(r["messages_lost"]));
  fmt::print("  locks: {} requested, {} completed, {} per round, {} held at once on average\n",
             num(r["locks_requested"]), num(r["locks_completed"]), num(r["locks_per_round"], 2),
             num(r["mean_locked"], 1));
  const auto& l = r["latency_rounds"];
  fmt::print("  lock latency (rounds): p50 {} p90 {} p99 {} max {}\n", num(l["p50"]), num(l["p90"]), num(l["p99"]),
             num(l["max"]));
  fmt::print("  per lock: {} messages, {} competition trials (max {}); Jain fairness {}\n", num(r["messages_per_lock"]),
             num(r["trials_per_lock"]["mean"], 2), num(r["trials_per_lock"]["max"]), num(r["jain_fairness"], 3));
  fmt::print(
      "  channels: at most {} messages in transit along an edge (Theorem 1: 2); node state {} bits (paper's count "
      "{})\n",
      num(r["max_in_transit_per_edge"]), num(r["bits_per_node"]["layout"]), num(r["bits_per_node"]["paper"]));
  std::string props;
  for (auto it = r["properties"].begin(); it != r["properties"].end(); ++it)
    props += fmt::format(" {}:{}", it.key(), it.value().get<std::string>());
  fmt::print("  monitors:{}\n", props);
  if (r["findings"]["stale_lock_pointers"].get<std::uint64_t>())
    fmt::print(
        "  finding: {} stale lock pointer(s) counted in a newcomer's lock set (design notes §4, docs/simulator.md)\n",
        r["findings"]["stale_lock_pointers"].get<std::uint64_t>());
  if (const auto twice = r["findings"]["send_twice_on_port"].get<std::uint64_t>())
    fmt::print(
        "  finding: {} action(s) sent two messages on one port (the model allows one Send per port; "
        "docs/simulator.md)\n",
        twice);
  std::size_t shown = 0;
  for (const auto& v : r["violations"]) {
    if (++shown > 5) break;
    fmt::print("  VIOLATION {} at round {}: {}\n", v["property"].get<std::string>(), num(v["round"], 3),
               v["detail"].get<std::string>());
    for (const auto& e : v["excerpt"]) fmt::print("      {}\n", e.get<std::string>());
  }
  if (shown > 5)
    fmt::print("  (violations per property: {}; --json lists the first 200)\n", r["violation_counts"].dump());
  fmt::print("  {} actions/s, {:.2f} s, {} bytes per node; trace hash {}{}\n", num(r["actions_per_second"], 0),
             r["wall_seconds"].get<double>(), num(r["bytes_per_node"], 0), r["trace_hash"].get<std::string>(),
             r["stalled"].get<bool>() ? "; STALLED" : "");
}

const lmx::cli::Register reg{
    {"run", 10, [](CLI::App& app, int& exit_code) {
       static RunArgs a;
       static std::uint64_t seed = 0;
       auto* cmd = app.add_subcommand(
           "run", "Simulate a scenario with every property monitored (default: a built-in scenario)");
       cmd->add_option("scenario", a.scenario_file, "Scenario file (TOML, docs/scenarios.md)");
       cmd->add_option("--set", a.sets, "Override a scenario key, e.g. --set topology.kind=ring (repeatable)");
       auto* seed_opt = cmd->add_option("--seed", seed, "Seed of every random choice");
       cmd->add_option("--variant", a.variant, "Algorithm variant: repaired (default) or paper");
       cmd->add_option("--trace", a.trace, "Write the lmx-trace/1 JSON Lines trace to FILE");
       cmd->add_flag("--json", a.json, "Print one JSON object (docs/run-format.md)");
       cmd->add_option("--report", a.report, "Also write a self-contained HTML report (as lmx report) to FILE");
       cmd->callback([&exit_code, seed_opt] {
         if (seed_opt->count()) a.seed = seed;
         const Scenario s = load(a);
         std::ofstream trace_file;
         RunOptions o;
         if (!a.trace.empty()) {
           trace_file.open(a.trace);
           if (!trace_file) throw lmx::cli::Failure("cannot write trace file '" + a.trace + "'");
           o.trace = &trace_file;
         }
         Progress progress;
         o.progress = std::ref(progress);
         json r;
         try {
           r = run(s, o);
         } catch (const ScenarioError& e) {
           throw lmx::cli::Failure(e.what());
         }
         progress.clear();
         if (!a.report.empty()) {
           trace_file.close();  // the report reads the finished trace
           try {
             lmx::report::write_report(
                 r, a.trace.empty() ? std::nullopt : std::optional<std::filesystem::path>(a.trace), a.report);
           } catch (const lmx::report::Error& e) {
             throw lmx::cli::Failure(e.what());
           }
         }
         if (a.json)
           std::cout << r.dump() << "\n";
         else
           print_summary(r);
         if (!r["violations"].empty() || r["stalled"].get<bool>()) exit_code = 1;
       });
     }}};
}  // namespace
