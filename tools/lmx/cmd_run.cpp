// `lmx run [SCENARIO.toml] [--set key=value]... [--seed N] [--variant NAME] [--trace FILE] [--json]`:
// runs the simulator with every monitor of P1-P7 live (docs/simulator.md, docs/run-format.md).
// Ctrl-C ends the run cleanly: the summary so far, marked interrupted, and a trace that says so.
#include <fmt/format.h>

#include <iostream>
#include <optional>

#include "command.hpp"
#include "lmx/sim/simulation.hpp"
#include "numbers.hpp"
#include "output.hpp"
#include "process.hpp"
#include "report.hpp"

namespace {
using nlohmann::json;
using namespace lmx::sim;
using lmx::cli::Failure;

struct RunArgs {
  std::string scenario_file;
  std::vector<std::string> sets;
  std::optional<std::uint64_t> seed;
  std::string variant;
  std::string trace;
  std::string report;
  bool json = false;
  bool no_memory_check = false;
  std::string threads = "auto";
};

Scenario load(const RunArgs& a) {
  try {
    json j = a.scenario_file.empty() ? json::object() : scenario_json_from_toml_file(a.scenario_file);
    for (const auto& s : a.sets) apply_override(j, s);
    if (a.seed) j["seed"] = *a.seed;
    if (!a.variant.empty()) j["variant"] = a.variant;
    return scenario_from_json(j);
  } catch (const ScenarioError& e) {
    throw Failure(e.what());
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

/// The adversary as it acts: the asynchronous engine has no activation probability of its own.
std::string adversary(const json& sc) {
  std::string activation =
      sc["engine"] == "async"
          ? std::string("asynchronous executions")
          : sc["activation"]["kind"].get<std::string>() +
                (sc["activation"]["kind"] == "random" ? fmt::format(" (p = {})", num(sc["activation"]["p"], 2)) : "");
  return fmt::format("activation {}, delivery {}, topology {} ({}), workload {}", activation,
                     sc["delivery"]["kind"].get<std::string>(), sc["topology"]["kind"].get<std::string>(),
                     sc["dynamics"]["kind"].get<std::string>(),
                     sc["workload"]["kind"] == "manual"
                         ? std::string("manual (Lock and Unlock called by the application)")
                     : sc["workload"]["locks"].get<unsigned>()
                         ? fmt::format("{} locks per node", sc["workload"]["locks"].get<unsigned>())
                         : std::string("continuous"));
}

std::string summary_text(const json& r) {
  const auto& sc = r["scenario"];
  std::string out;
  auto line = [&out](const std::string& s) { out += s + "\n"; };
  const unsigned threads = r.value("threads", 1u);
  line(fmt::format("lmx run: scenario '{}', {} nodes, Delta={}, K={}, {} engine, variant {}, seed {}, {} thread{}",
                   sc["name"].get<std::string>(), sc["nodes"].get<unsigned>(), sc["delta"].get<unsigned>(),
                   sc["k"].get<unsigned>(), r["engine"].get<std::string>(), r["variant"].get<std::string>(),
                   r["seed"].get<std::uint64_t>(), threads, threads == 1 ? "" : "s"));
  line("  adversary: " + adversary(sc));
  line(fmt::format("  rounds {}, actions {}, messages {} ({} lost){}", num(r["rounds"]), num(r["actions"]),
                   num(r["messages"]), num(r["messages_lost"]),
                   r["interrupted"].get<bool>() ? "; INTERRUPTED before its last round" : ""));
  line(fmt::format("  locks: {} requested, {} completed, {} per round, {} held at once on average",
                   num(r["locks_requested"]), num(r["locks_completed"]), num(r["locks_per_round"], 2),
                   num(r["mean_locked"], 1)));
  if (const auto& b = r["throughput_bound"]; b["locks_per_round"].is_number())
    line(
        fmt::format("  throughput limit (estimate, docs/performance.md): {} locks per round ({} disjoint lock sets of "
                    "the initial graph, each held {} rounds); this run: {} of it",
                    num(b["locks_per_round"], 2), num(b["two_packing"]), num(b["occupancy_rounds"], 1),
                    num(r["throughput_over_bound"], 2)));
  else if (!r["throughput_bound"]["static_graph"].get<bool>())
    line("  throughput limit: none for a graph that changes during the run (docs/performance.md)");
  const auto& l = r["latency_rounds"];
  line(fmt::format("  lock latency (rounds): p50 {} p90 {} p99 {} max {}", num(l["p50"]), num(l["p90"]), num(l["p99"]),
                   num(l["max"])));
  const auto& pending = r["pending_requests"];
  line(fmt::format("  pending at the end: {} request(s), oldest {} rounds (P7 horizon {} rounds)",
                   num(pending["count"]), num(pending["age_rounds"]["max"]), num(pending["horizon_rounds"])));
  line(fmt::format("  per lock: {} messages, {} competition trials (max {}); Jain fairness {}",
                   num(r["messages_per_lock"]), num(r["trials_per_lock"]["mean"], 2), num(r["trials_per_lock"]["max"]),
                   num(r["jain_fairness"], 3)));
  line(fmt::format(
      "  channels: at most {} messages in transit along an edge (Theorem 1: 2); node state {} bits (paper's count {})",
      num(r["max_in_transit_per_edge"]), num(r["bits_per_node"]["layout"]), num(r["bits_per_node"]["paper"])));
  std::string props;
  for (auto it = r["properties"].begin(); it != r["properties"].end(); ++it)
    props += fmt::format(" {}:{}", it.key(), it.value().get<std::string>());
  line("  monitors:" + props);
  if (const auto stale = r["findings"]["stale_lock_pointers"].get<std::uint64_t>())
    line(fmt::format("  finding: {} stale lock pointer(s) counted in a newcomer's lock set (docs/model.md)", stale));
  if (const auto twice = r["findings"]["send_twice_on_port"].get<std::uint64_t>())
    line(
        fmt::format("  finding: {} action(s) sent two messages on one port (the model allows one Send per port; "
                    "docs/model.md)",
                    twice));
  std::size_t shown = 0;
  for (const auto& v : r["violations"]) {
    if (++shown > 5) break;
    line(fmt::format("  VIOLATION {} at round {}: {}", v["property"].get<std::string>(), num(v["round"], 3),
                     v["detail"].get<std::string>()));
    for (const auto& e : v["excerpt"]) line("      " + e.get<std::string>());
  }
  if (shown > 5)
    line(fmt::format("  (violations per property: {}; --json lists the first 200, a trace all of them)",
                     r["violation_counts"].dump()));
  line(fmt::format("  {} actions/s, {:.2f} s, {} bytes per node, peak memory {}; trace hash {}{}",
                   num(r["actions_per_second"], 0), r["wall_seconds"].get<double>(), num(r["bytes_per_node"], 0),
                   lmx::cli::memory_size(r["peak_rss_bytes"].get<std::uint64_t>()), r["trace_hash"].get<std::string>(),
                   r["stalled"].get<bool>() ? "; STALLED" : ""));
  return out;
}

const lmx::cli::Register run_command{
    {"run", 10, [](CLI::App& app, int& exit_code) {
       static RunArgs a;
       static std::string seed_text;
       auto* cmd = app.add_subcommand(
           "run", "Simulate a scenario with every property monitored (default: a built-in scenario)");
       cmd->add_option("scenario", a.scenario_file, "Scenario file (TOML, docs/scenarios.md)");
       cmd->add_option("--set", a.sets, "Override a scenario key, e.g. --set topology.kind=ring (repeatable)");
       auto* seed_opt = cmd->add_option("--seed", seed_text, "Seed of every random choice, 0..18446744073709551615");
       cmd->add_option("--variant", a.variant, "Algorithm variant: fast (default), repaired or paper");
       cmd->add_option("--trace", a.trace, "Write the lmx-trace/1 JSON Lines trace to FILE");
       cmd->add_flag("--json", a.json, "Print one JSON object (docs/run-format.md)");
       cmd->add_option("--report", a.report, "Also write a self-contained HTML report (as lmx report) to FILE");
       cmd->add_flag("--no-memory-check", a.no_memory_check,
                     "Run even if the estimated memory exceeds the machine's (the run may then be killed)");
       cmd->add_option(
           "--threads", a.threads,
           "Threads, 1..64 or auto (default auto: 2 if this process may use 2 CPUs, else 1): with 2 or more "
           "a mobile scenario plans each round's mobility, and an asynchronous one takes each round's executions "
           "out of its calendar, on a second thread; the run and its trace are the same for every count");
       cmd->callback([&exit_code, seed_opt] {
         if (seed_opt->count()) a.seed = lmx::cli::seed_option(seed_text);
         const auto threads = lmx::cli::threads_option(a.threads, "--threads");
         const Scenario s = load(a);
         // Outputs are never written over the inputs, nor over each other.
         const std::vector<std::string> inputs{a.scenario_file, s.topology.file};
         lmx::cli::refuse_overwriting_inputs("--trace", a.trace, inputs);
         lmx::cli::refuse_overwriting_inputs("--report", a.report, inputs);
         lmx::cli::refuse_overwriting_inputs("--report", a.report, {a.trace});
         // A run that cannot fit is refused before anything is allocated.
         const std::uint64_t need = estimate_memory_bytes(s, !a.trace.empty(), threads),
                             have = lmx::cli::machine_memory_bytes();
         if (!a.no_memory_check && have && need > have)
           throw Failure(
               fmt::format("the scenario needs about {} of memory (estimated), more than this machine's {}; "
                           "fewer nodes or, for unit-disk and mobility graphs, a smaller radius would fit "
                           "(--no-memory-check runs it anyway)",
                           lmx::cli::memory_size(need), lmx::cli::memory_size(have)));
         // Ctrl-C is caught before the trace's temporary file exists: once it does, an interrupt
         // ends the run cleanly (the tests wait for that file before they send one).
         lmx::cli::InterruptGuard interrupt;
         std::optional<lmx::cli::OutputFile> trace_file;
         RunOptions o;
         o.threads = threads;
         if (!a.trace.empty()) trace_file.emplace(a.trace), o.trace = &trace_file->stream();
         o.stop = &lmx::cli::InterruptGuard::requested();
         Progress progress;
         o.progress = std::ref(progress);
         json r;
         try {
           r = run(s, o);
         } catch (const ScenarioError& e) {
           throw Failure(e.what());
         }
         progress.clear();
         r["peak_rss_bytes"] = lmx::cli::peak_rss_bytes();
         r["threads"] = threads;
         if (trace_file) trace_file->commit();  // the report reads the finished trace
         if (!a.report.empty()) {
           try {
             lmx::report::write_report(
                 r, a.trace.empty() ? std::nullopt : std::optional<std::filesystem::path>(a.trace), a.report);
           } catch (const lmx::report::Error& e) {
             throw Failure(e.what());
           }
         }
         lmx::cli::print_stdout(a.json ? r.dump() + "\n" : summary_text(r));
         if (!r["violations"].empty() || r["stalled"].get<bool>()) exit_code = 1;
         if (r["interrupted"].get<bool>()) exit_code = lmx::cli::interrupted_exit_code;
       });
     }}};
}  // namespace
