// `lmx bench [--nodes N] [--rounds R] [--p P] [--seed S] [--json]`: the simulator's whole-run
// benchmark (the performance goals): a random graph with Delta = 8, every node locking
// continuously, the semi-synchronous random adversary. Reports speed, memory per node and peak RSS;
// then a lock workload where locks complete (lock_workload), once per variant: locks per round, per
// second and against the throughput limit.
//
// `lmx bench --scenario [FILE]`: the main job as a benchmark (bench_scenario below): the scenario
// `lmx run` would run (the built-in default scaled to --nodes, or FILE), timed in its setup and its
// rounds, with actions and locks per second, memory per node and the trace hash of `lmx run`.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <iostream>
#include <numbers>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "command.hpp"
#include "lmx/sim/simulation.hpp"
#include "numbers.hpp"
#include "output.hpp"
#include "process.hpp"

namespace {
using nlohmann::json;

using lmx::cli::peak_rss_bytes;

// The options are read as text and parsed here: CLI11 wraps "-1" into an unsigned option and takes
// "nan" as a double, and its range check lets NaN through.

using lmx::cli::whole_number;

/// A finite number in lo..hi (`range` says it as the user would write it).
double real_number(const std::string& text, const char* option, double lo, double hi, const char* range) {
  double x = 0;
  const char* end = text.data() + text.size();
  const auto [stop, ec] = std::from_chars(text.data(), end, x);
  if (text.empty() || ec != std::errc{} || stop != end || !std::isfinite(x) || x < lo || x > hi)
    throw lmx::cli::Failure(
        fmt::format("{} must be a number in {}, got '{}'", option, range, lmx::sim::printable(text)));
  return x;
}

/// The summary's bytes_per_node_by_part in one line, the largest first, parts of 0.05 bytes or less
/// left out ("channels 72.0, far_ends 32.0, ...").
std::string parts_text(const json& by_part) {
  std::vector<std::pair<double, std::string>> parts;
  for (auto it = by_part.begin(); it != by_part.end(); ++it)
    if (it.value().get<double>() > 0.05) parts.emplace_back(it.value().get<double>(), it.key());
  std::stable_sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string out;
  for (const auto& [bytes, name] : parts) out += fmt::format("{}{} {:.1f}", out.empty() ? "" : ", ", name, bytes);
  return out;
}

/// Baseline measured in the same process: the core alone, one node stepping through InitLock,
/// ReceivePrepare, ReceiveReady, CheckStart ... on its own messages (no simulator around it):
/// 400 000 locks (about 0.1 s in an optimised build), or as many as fit in 0.25 s (a sanitized
/// build steps ten times slower, and its tests run lmx bench often).
double core_actions_per_second() {
  using namespace lmx::core;
  const Protocol<std::uint16_t> protocol(Config{8, 4, default_variant});
  std::uint32_t rng = 1;
  auto draw = [&rng](unsigned bound) {
    return (rng = rng * 1664525u + 1013904223u) >> 16 & 0xFFFF ? (rng >> 16) % bound : 0u;
  };
  const Context<std::uint16_t> ctx{PortSet<std::uint16_t>{}, PortSet<std::uint16_t>{}};
  std::uint64_t actions = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int rep = 0; rep < 400000; ++rep) {
    if (rep % 8192 == 8191 && std::chrono::steady_clock::now() - start > std::chrono::milliseconds(250)) break;
    NodeState<std::uint16_t> s;
    auto fx = protocol.lock(s, ctx);
    Message inbox[4];
    unsigned waiting = 0;
    auto collect = [&](const Effects<std::uint16_t>& e) {
      for (unsigned g = 0; g < e.send_count; ++g)
        if (waiting < 4) inbox[waiting++] = e.sends[g].message;
    };
    collect(fx);
    ++actions;
    for (int i = 0; i < 12 && s.state != InitiatorState::locked; ++i) {
      if (waiting) {
        const Message m = inbox[--waiting];
        auto e = protocol.step(s, Activation{receive_action(m.kind), 0, m}, ctx, PriorityDraw::from(draw));
        collect(e);
      } else {
        const ActionSet en = protocol.enabled_guarded(s);
        for (Action a : guarded_actions)
          if (en.contains(a)) {
            collect(protocol.step(s, Activation{a}, ctx, PriorityDraw::from(draw)));
            break;
          }
      }
      ++actions;
    }
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return double(actions) / secs;
}

/// The lock workload (docs/performance.md, "lmx bench"): the latency study's middle point, where
/// locks complete under contention: n nodes on a random 8-regular graph, K = 32, every node locking
/// continuously (idle 4, hold 2), the asynchronous engine, for `rounds` rounds; one run per variant.
json lock_workload(lmx::core::Variant variant, std::uint32_t nodes, std::uint64_t rounds, std::uint64_t seed) {
  lmx::sim::Scenario s;
  s.name = "bench-locks", s.nodes = nodes, s.delta = 8, s.k = 32, s.variant = variant, s.seed = seed;
  s.engine = lmx::sim::EngineKind::async, s.rounds = rounds, s.topology.kind = lmx::sim::TopologyKind::regular;
  s.workload.idle = 4, s.workload.hold = 2;
  try {
    s = lmx::sim::scenario_from_json(s.to_json());
  } catch (const lmx::sim::ScenarioError& e) {
    throw lmx::cli::Failure(e.what());
  }
  const auto t0 = std::chrono::steady_clock::now();
  const json r = lmx::sim::run(s, lmx::sim::RunOptions{});
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const auto locks = r["locks_completed"].get<std::uint64_t>();
  return {{"variant", std::string(lmx::core::to_string(variant))},
          {"locks_completed", locks},
          {"locks_per_round", r["locks_per_round"]},
          {"locks_per_second", wall > 0 ? double(locks) / wall : 0.0},
          {"throughput_over_bound", r["throughput_over_bound"]},
          {"messages_per_lock", r["messages_per_lock"]},
          {"latency_p50_with_pending", r["latency_rounds_with_pending"]["p50"]},
          {"actions_per_second", wall > 0 ? r["actions"].get<double>() / wall : 0.0},
          {"properties", r["properties"]},
          {"run_seconds", wall}};
}

}  // namespace

// The scenario benchmark, in a namespace of its own: the commands are compiled as one unity source,
// where helpers of an anonymous namespace would meet those of the other commands.
namespace lmx::cli::bench_scenario {
using nlohmann::json;

/// What `--scenario` runs: FILE (empty: the built-in default) with the overrides given.
struct Request {
  std::string file;
  std::optional<std::uint32_t> nodes;
  std::optional<std::uint64_t> rounds;
  std::optional<std::uint64_t> seed;
  bool defer_writes = true;
  unsigned threads = 1;
};

/// Rounds of the built-in scenario when --rounds is not given: its locks settle to a steady rate
/// by round 30 or so (the first Lock calls wait 4 rounds on average, a lock about 30), so 100
/// rounds give a steady second half. A file's own `rounds` (or `lmx run`'s 400) otherwise.
constexpr std::uint64_t default_rounds = 100;

/// The scenario of the request, as `lmx run FILE --set nodes=N --set rounds=R --seed S` would
/// validate it. Without a file it is the built-in default at n nodes: the validator scales a
/// radius and a speed that the scenario does not give as 1/sqrt(n) (Scenario::topology), which
/// keeps the default's mean degree n·π·r² and a node's rounds to cross a neighbourhood at every n.
lmx::sim::Scenario load(const Request& q, std::string& fixed_keys) {
  try {
    json j = q.file.empty() ? json::object() : lmx::sim::scenario_json_from_toml_file(q.file);
    if (j.contains("topology") && j["topology"].is_object())
      for (const char* key : {"radius", "speed"})
        if (j["topology"].contains(key))
          fixed_keys += (fixed_keys.empty() ? "topology." : " and topology.") + std::string(key);
    if (q.nodes) j["nodes"] = *q.nodes;
    if (q.rounds)
      j["rounds"] = *q.rounds;
    else if (q.file.empty())
      j["rounds"] = default_rounds;
    if (q.seed) j["seed"] = *q.seed;
    return lmx::sim::scenario_from_json(j);
  } catch (const lmx::sim::ScenarioError& e) {
    throw Failure(e.what());
  }
}

/// Locks completed so far (the engine counts them per node; summed between the timed parts).
std::uint64_t locks_so_far(const lmx::sim::Engine& engine, std::uint32_t nodes) {
  std::uint64_t locks = 0;
  for (lmx::sim::NodeId u = 0; u < nodes; ++u) locks += engine.node(u).locks_completed;
  return locks;
}

/// Runs the scenario as `lmx run` does (the same engine, options and trace hash, no trace) with
/// its setup and its rounds timed apart, and the second half of the rounds on its own (the first
/// carry every node's first Lock calls). Returns the benchmark's object.
json run(const Request& q, std::string& note) {
  std::string fixed_keys;
  const lmx::sim::Scenario s = load(q, fixed_keys);
  if (!fixed_keys.empty() && q.nodes)
    note = "the scenario sets " + fixed_keys + ", which --nodes leaves as written (only what a scenario leaves out " +
           "scales as 1/sqrt(n)): the mean degree or the rounds to cross a neighbourhood are not the file's";
  // A run that cannot fit is refused before anything is allocated, as `lmx run` refuses it.
  const std::uint64_t need = lmx::sim::estimate_memory_bytes(s, false, q.threads), have = machine_memory_bytes();
  if (have && need > have)
    throw Failure(fmt::format("the scenario needs about {} of memory (estimated), more than this machine's {}",
                              memory_size(need), memory_size(have)));
  lmx::sim::RunOptions options;
  options.defer_writes = q.defer_writes, options.threads = q.threads;
  const auto t0 = std::chrono::steady_clock::now();
  std::unique_ptr<lmx::sim::Engine> engine;
  try {
    engine = lmx::sim::make_engine(s, options);
  } catch (const lmx::sim::ScenarioError& e) {
    throw Failure(e.what());
  }
  const auto t1 = std::chrono::steady_clock::now();
  const std::uint64_t steady_from = s.rounds / 2;
  for (std::uint64_t round = 0; round < steady_from && engine->step(); ++round) {
  }
  const auto t_half = std::chrono::steady_clock::now();
  const std::uint64_t actions_half = engine->actions(), locks_half = locks_so_far(*engine, s.nodes);
  const auto t_steady = std::chrono::steady_clock::now();  // the count above is not timed
  while (engine->step()) {
  }
  const auto t_end = std::chrono::steady_clock::now();
  const std::uint64_t steady_actions = engine->actions() - actions_half;
  const std::uint64_t steady_locks = locks_so_far(*engine, s.nodes) - locks_half;
  const auto t_finish = std::chrono::steady_clock::now();
  const json r = engine->finish();
  const auto t2 = std::chrono::steady_clock::now();
  auto seconds = [](auto from, auto to) { return std::chrono::duration<double>(to - from).count(); };
  const double setup = seconds(t0, t1), steady_wall = seconds(t_steady, t_end);
  const double run_wall = seconds(t1, t_half) + steady_wall + seconds(t_finish, t2);
  const auto actions = r["actions"].get<std::uint64_t>(), locks = r["locks_completed"].get<std::uint64_t>();
  const std::uint64_t rss = peak_rss_bytes();
  const json& topology = r["scenario"]["topology"];
  const bool geometric = topology["kind"] == "mobility" || topology["kind"] == "unit-disk";
  auto rate = [](double count, double wall) { return wall > 0 ? count / wall : 0.0; };
  return {{"scenario", r["scenario"]["name"]},
          {"scenario_file", q.file.empty() ? json(nullptr) : json(q.file)},
          {"nodes", s.nodes},
          {"seed", s.seed},
          {"threads", q.threads},
          {"engine", r["engine"]},
          {"variant", r["variant"]},
          {"topology", topology["kind"]},
          {"radius", geometric ? topology["radius"] : json(nullptr)},
          {"speed", topology["kind"] == "mobility" ? topology["speed"] : json(nullptr)},
          {"mean_degree_at_end", 2.0 * r["edges"].get<double>() / s.nodes},
          {"rounds", r["rounds"]},
          {"actions", actions},
          {"actions_per_second", rate(double(actions), run_wall)},
          {"steady_from_round", steady_from},
          {"steady_actions_per_second", rate(double(steady_actions), steady_wall)},
          {"locks_completed", locks},
          {"locks_per_round", r["locks_per_round"]},
          {"locks_per_second", rate(double(locks), run_wall)},
          {"steady_locks_per_second", rate(double(steady_locks), steady_wall)},
          {"bytes_per_node", r["bytes_per_node"]},
          {"bytes_per_node_by_part", r["bytes_per_node_by_part"]},
          {"peak_rss_bytes", rss},
          {"peak_rss_bytes_per_node", double(rss) / s.nodes},
          {"setup_seconds", setup},
          {"run_seconds", run_wall},
          {"wall_seconds", setup + run_wall},
          {"deferred_writes", engine->deferred_writes()},
          {"properties", r["properties"]},
          {"violation_counts", r["violation_counts"]},
          {"stalled", r["stalled"]},
          {"trace_hash", r["trace_hash"]}};
}

std::string text(const json& b, const std::string& note) {
  std::string out;
  auto line = [&out](const std::string& l) { out += l + "\n"; };
  const std::string source =
      b["scenario_file"].is_null() ? std::string("built-in, scaled to --nodes") : b["scenario_file"].get<std::string>();
  line(fmt::format("lmx bench --scenario: '{}' ({}), {} nodes, {} engine, variant {}, seed {}, {} rounds, {} thread{}",
                   b["scenario"].get<std::string>(), lmx::sim::printable(source), b["nodes"].get<std::uint32_t>(),
                   b["engine"].get<std::string>(), b["variant"].get<std::string>(), b["seed"].get<std::uint64_t>(),
                   b["rounds"].get<std::uint64_t>(), b["threads"].get<unsigned>(),
                   b["threads"].get<unsigned>() == 1 ? "" : "s"));
  if (b["radius"].is_number()) {
    const double r = b["radius"].get<double>();
    line(fmt::format(
        "  topology {}: radius {:.3g} (n·π·r² = {:.2f} before the Delta cap){}; mean degree at the end {:.2f}",
        b["topology"].get<std::string>(), r, std::numbers::pi * r * r * b["nodes"].get<double>(),
        b["speed"].is_number() ? fmt::format(", speed {:.3g} per round", b["speed"].get<double>()) : "",
        b["mean_degree_at_end"].get<double>()));
  } else {
    line(fmt::format("  topology {}; mean degree at the end {:.2f}", b["topology"].get<std::string>(),
                     b["mean_degree_at_end"].get<double>()));
  }
  line(fmt::format("  {} actions in {:.2f} s: {:.3g} actions/s; from round {} on: {:.3g} actions/s",
                   b["actions"].get<std::uint64_t>(), b["run_seconds"].get<double>(),
                   b["actions_per_second"].get<double>(), b["steady_from_round"].get<std::uint64_t>(),
                   b["steady_actions_per_second"].get<double>()));
  line(fmt::format(
      "  locks: {} completed, {:.3g} per second (wall), {:.2f} per round; from round {} on: {:.3g} per second",
      b["locks_completed"].get<std::uint64_t>(), b["locks_per_second"].get<double>(),
      b["locks_per_round"].get<double>(), b["steady_from_round"].get<std::uint64_t>(),
      b["steady_locks_per_second"].get<double>()));
  line(fmt::format("  memory: peak RSS {}, {:.0f} bytes per node (peak RSS / nodes), {:.0f} (engine's estimate)",
                   memory_size(b["peak_rss_bytes"].get<std::uint64_t>()), b["peak_rss_bytes_per_node"].get<double>(),
                   b["bytes_per_node"].get<double>()));
  line("  bytes per node by part: " + parts_text(b["bytes_per_node_by_part"]));
  std::string props;
  for (auto it = b["properties"].begin(); it != b["properties"].end(); ++it)
    props += fmt::format(" {}:{}", it.key(), it.value().get<std::string>());
  line(fmt::format("  setup {:.2f} s, wall {:.2f} s; monitors:{}; trace hash {}{}", b["setup_seconds"].get<double>(),
                   b["wall_seconds"].get<double>(), props, b["trace_hash"].get<std::string>(),
                   b["stalled"].get<bool>() ? "; STALLED" : ""));
  if (!note.empty()) line("  note: " + note);
  return out;
}

}  // namespace lmx::cli::bench_scenario

namespace {

const lmx::cli::Register bench_command{
    {"bench", 14, [](CLI::App& app, int& exit_code) {
       static std::string nodes_text = "1000000", rounds_text = "20", p_text = "0.5", seed_text = "1";
       static std::string lock_nodes_text = "1000", lock_rounds_text = "2000";
       static std::string scenario_file, threads_text = "1";
       static bool as_json = false;
       static bool immediate = false;
       auto* cmd =
           app.add_subcommand("bench",
                              "Whole-run benchmark: random graph, Delta = 8, every node locking continuously; with "
                              "--scenario, the main job (lmx run's scenario)");
       auto* scenario_opt =
           cmd->add_option("--scenario", scenario_file,
                           "Benchmark the main job instead: FILE (TOML, as lmx run), or without FILE the built-in "
                           "scenario of lmx run at --nodes (radius and speed scaled as 1/sqrt(n), 100 rounds)")
               ->expected(0, 1)
               ->type_name("[FILE]");
       auto* nodes_opt = cmd->add_option("--nodes", nodes_text, "Nodes, 1..100000000 (default 1000000)");
       auto* rounds_opt =
           cmd->add_option("--rounds", rounds_text, "Rounds, 1..4000000 (default 20; with --scenario 100, or FILE's)");
       auto* p_opt = cmd->add_option("--p", p_text, "Activation probability per round, 0.000001..1 (default 0.5)");
       auto* seed_opt = cmd->add_option("--seed", seed_text,
                                        "Seed of every random choice, 0..18446744073709551615 (default 1, or FILE's)");
       auto* lock_nodes_opt = cmd->add_option(
           "--lock-nodes", lock_nodes_text,
           "Nodes of the lock workload (Delta = 8, K = 32, async, idle 4, hold 2), 2..1000000 (default 1000)");
       auto* lock_rounds_opt =
           cmd->add_option("--lock-rounds", lock_rounds_text, "Rounds of the lock workload, 1..1000000 (default 2000)");
       cmd->add_option("--threads", threads_text,
                       "Threads, 1..64 or auto (default 1), as lmx run --threads: a semi-synchronous "
                       "round runs as a pipeline on two, a mobile scenario plans its mobility on "
                       "one more; same run, same trace hash");
       cmd->add_flag("--json", as_json, "Print one JSON object");
       cmd->add_flag("--immediate-writes", immediate,
                     "Write each message into the receiver's channel at the send (no deferred writes; same run, "
                     "for comparison)");
       cmd->callback([=, &exit_code] {
         if (scenario_opt->count()) {
           // The options of the built-in workloads do not apply: the scenario sets the run.
           for (const auto* opt : {p_opt, lock_nodes_opt, lock_rounds_opt})
             if (opt->count())
               throw lmx::cli::Failure(opt->get_name() +
                                       " does not apply to --scenario (the scenario sets its adversary and workload)");
           namespace bs = lmx::cli::bench_scenario;
           bs::Request q;
           q.file = scenario_file, q.defer_writes = !immediate;
           q.threads = lmx::cli::threads_option(threads_text, "--threads");
           // The scenario's limits for --nodes and --rounds (the async engine's lower cap on rounds
           // is the validator's word). The built-in scenario runs at --nodes, given or not; a file
           // keeps its own unless --nodes is given.
           if (nodes_opt->count() || scenario_file.empty())
             q.nodes = static_cast<std::uint32_t>(whole_number(nodes_text, "--nodes", 1, 100'000'000));
           if (rounds_opt->count()) q.rounds = whole_number(rounds_text, "--rounds", 1, 4'000'000);
           if (seed_opt->count()) q.seed = lmx::cli::seed_option(seed_text);
           std::string note;
           const json out = bs::run(q, note);
           lmx::cli::print_stdout(as_json ? out.dump() + "\n" : bs::text(out, note));
           // As `lmx run`: a monitor's violation or a global stall is exit code 1.
           if (!out["violation_counts"].empty() || out["stalled"].get<bool>()) exit_code = 1;
           return;
         }
         const unsigned threads = lmx::cli::threads_option(threads_text, "--threads");
         // The scenario's own limits, so that the benchmark runs what `lmx run` would accept.
         const auto nodes = static_cast<std::uint32_t>(whole_number(nodes_text, "--nodes", 1, 100'000'000));
         const std::uint64_t rounds = whole_number(rounds_text, "--rounds", 1, 4'000'000);
         const double p = real_number(p_text, "--p", 1e-6, 1.0, "0.000001..1");
         const auto lock_nodes =
             static_cast<std::uint32_t>(whole_number(lock_nodes_text, "--lock-nodes", 2, 1'000'000));
         const std::uint64_t lock_rounds = whole_number(lock_rounds_text, "--lock-rounds", 1, 1'000'000);
         lmx::sim::Scenario s;
         try {
           s.seed = lmx::sim::parse_seed(seed_text, "--seed");
         } catch (const lmx::sim::ScenarioError& e) {
           throw lmx::cli::Failure(e.what());
         }
         s.name = "bench", s.nodes = nodes, s.delta = 8, s.engine = lmx::sim::EngineKind::semi_sync, s.rounds = rounds;
         s.k = 4, s.variant = lmx::core::Variant::repaired;  // the benchmark's scenario, whatever the default
         s.activation.p = p, s.topology.kind = lmx::sim::TopologyKind::regular, s.workload.idle = 0,
         s.workload.hold = 0;
         try {
           s = lmx::sim::scenario_from_json(s.to_json());  // the validator's word on the rest
         } catch (const lmx::sim::ScenarioError& e) {
           throw lmx::cli::Failure(e.what());
         }
         const double baseline = core_actions_per_second();
         const auto t0 = std::chrono::steady_clock::now();
         lmx::sim::RunOptions options;
         options.defer_writes = !immediate, options.threads = threads;
         auto engine = lmx::sim::make_engine(s, options);
         const auto t1 = std::chrono::steady_clock::now();
         // The first rounds carry every node's first Lock call, eight prepare messages an action;
         // the rounds after the first half measure the continuous locking on its own.
         const std::uint64_t steady_from = rounds / 2;
         for (std::uint64_t round = 0; round < steady_from && engine->step(); ++round) {
         }
         const std::uint64_t actions_before = engine->actions();
         const auto t_steady = std::chrono::steady_clock::now();
         while (engine->step()) {
         }
         const std::uint64_t steady_actions = engine->actions() - actions_before;
         const double steady_wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_steady).count();
         const json r = engine->finish();  // the summary
         const auto t2 = std::chrono::steady_clock::now();
         const double setup = std::chrono::duration<double>(t1 - t0).count(),
                      wall = std::chrono::duration<double>(t2 - t1).count();
         const auto actions = r["actions"].get<std::uint64_t>();
         const double steady_rate = steady_wall > 0 ? double(steady_actions) / steady_wall : 0.0;
         // Both variants on the lock workload, one after the other in this process.
         json lock_runs = json::array();
         for (const auto variant : {lmx::core::Variant::repaired, lmx::core::Variant::fast})
           lock_runs.push_back(lock_workload(variant, lock_nodes, lock_rounds, s.seed));
         const json out = {
             {"nodes", nodes},
             {"seed", s.seed},
             {"rounds", r["rounds"]},
             {"threads", threads},
             {"actions", actions},
             {"actions_per_second", double(actions) / wall},
             {"steady_from_round", steady_from},
             {"steady_actions_per_second", steady_rate},
             {"core_only_actions_per_second", baseline},
             {"ratio_to_core_only", double(actions) / wall / baseline},
             {"locks_completed", r["locks_completed"]},
             {"stalled", r["stalled"]},
             {"violation_counts", r["violation_counts"]},
             {"bytes_per_node", r["bytes_per_node"]},
             {"bytes_per_node_by_part", r["bytes_per_node_by_part"]},
             {"peak_rss_bytes", peak_rss_bytes()},
             {"setup_seconds", setup},
             {"run_seconds", wall},
             {"deferred_writes", engine->deferred_writes()},
             {"trace_hash", r["trace_hash"]},
             {"lock_workload",
              {{"nodes", lock_nodes},
               {"rounds", lock_rounds},
               {"scenario", "random 8-regular graph, K = 32, async engine, every node locking (idle 4, hold 2)"},
               {"runs", lock_runs}}}};
         if (as_json) {
           std::cout << out.dump() << "\n";
           return;
         }
         fmt::print("lmx bench: {} nodes, random graph Delta=8, semi-sync random p={}, {} rounds, {} thread{}\n", nodes,
                    p, rounds, threads, threads == 1 ? "" : "s");
         fmt::print("  {} actions in {:.2f} s: {:.3g} actions/s (core alone: {:.3g}/s, ratio {:.2f})\n", actions, wall,
                    double(actions) / wall, baseline, double(actions) / wall / baseline);
         fmt::print("  from round {} on: {:.3g} actions/s\n", steady_from, steady_rate);
         fmt::print("  {:.0f} bytes per node (simulator state), peak RSS {:.1f} MiB, setup {:.2f} s\n",
                    r["bytes_per_node"].get<double>(), double(peak_rss_bytes()) / (1 << 20), setup);
         fmt::print("  bytes per node by part: {}\n", parts_text(r["bytes_per_node_by_part"]));
         const auto bench_locks = r["locks_completed"].get<std::uint64_t>();
         fmt::print("  locks completed: {}{}\n", bench_locks,
                    bench_locks ? "" : " (too few rounds for a lock to complete: see the lock workload)");
         fmt::print("lock workload: {} nodes, random graph Delta=8, K=32, async, every node locking, {} rounds\n",
                    lock_nodes, lock_rounds);
         for (const auto& run : lock_runs) {
           const auto ratio = run["throughput_over_bound"];
           fmt::print(
               "  {:<8} {:>7} locks, {:.3f} per round, {:.3g} per second, {:.2f} of the limit, {:.0f} messages "
               "per lock\n",
               run["variant"].get<std::string>(), run["locks_completed"].get<std::uint64_t>(),
               run["locks_per_round"].get<double>(), run["locks_per_second"].get<double>(),
               ratio.is_number() ? ratio.get<double>() : 0.0,
               run["messages_per_lock"].is_number() ? run["messages_per_lock"].get<double>() : 0.0);
         }
       });
     }}};
}  // namespace
