// `lmx bench [--nodes N] [--rounds R] [--p P] [--seed S] [--json]`: the simulator's whole-run
// benchmark (the performance goals): a random graph with Delta = 8, every node locking
// continuously, the semi-synchronous random adversary. Reports speed, memory per node and peak RSS;
// then a lock workload where locks complete (lock_workload), once per variant: locks per round, per
// second and against the throughput limit.
#include <fmt/format.h>

#include <charconv>
#include <chrono>
#include <cmath>
#include <iostream>

#include "command.hpp"
#include "lmx/sim/simulation.hpp"
#include "process.hpp"

namespace {
using nlohmann::json;

using lmx::cli::peak_rss_bytes;

// The options are read as text and parsed here: CLI11 wraps "-1" into an unsigned option and takes
// "nan" as a double, and its range check lets NaN through.

/// A whole number in lo..hi, decimal digits only.
std::uint64_t whole_number(const std::string& text, const char* option, std::uint64_t lo, std::uint64_t hi) {
  std::uint64_t x = 0;
  const char* end = text.data() + text.size();
  const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
  if (!digits || std::from_chars(text.data(), end, x).ec != std::errc{} || x < lo || x > hi)
    throw lmx::cli::Failure(
        fmt::format("{} must be a whole number in {}..{}, got '{}'", option, lo, hi, lmx::sim::printable(text)));
  return x;
}

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

/// Baseline measured in the same process: the core alone, one node stepping through InitLock,
/// ReceivePrepare, ReceiveReady, CheckStart ... on its own messages (no simulator around it).
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

const lmx::cli::Register bench_command{
    {"bench", 14, [](CLI::App& app, int&) {
       static std::string nodes_text = "1000000", rounds_text = "20", p_text = "0.5", seed_text = "1";
       static std::string lock_nodes_text = "1000", lock_rounds_text = "2000";
       static bool as_json = false;
       static bool immediate = false;
       auto* cmd =
           app.add_subcommand("bench", "Whole-run benchmark: random graph, Delta = 8, every node locking continuously");
       cmd->add_option("--nodes", nodes_text, "Nodes, 1..100000000 (default 1000000)");
       cmd->add_option("--rounds", rounds_text, "Semi-synchronous rounds, 1..4000000 (default 20)");
       cmd->add_option("--p", p_text, "Activation probability per round, 0.000001..1 (default 0.5)");
       cmd->add_option("--seed", seed_text, "Seed of every random choice, 0..18446744073709551615 (default 1)");
       cmd->add_option(
           "--lock-nodes", lock_nodes_text,
           "Nodes of the lock workload (Delta = 8, K = 32, async, idle 4, hold 2), 2..1000000 (default 1000)");
       cmd->add_option("--lock-rounds", lock_rounds_text, "Rounds of the lock workload, 1..1000000 (default 2000)");
       cmd->add_flag("--json", as_json, "Print one JSON object");
       cmd->add_flag("--immediate-writes", immediate,
                     "Write each message into the receiver's channel at the send (no deferred writes; same run, "
                     "for comparison)");
       cmd->callback([] {
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
         options.defer_writes = !immediate;
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
         fmt::print("lmx bench: {} nodes, random graph Delta=8, semi-sync random p={}, {} rounds\n", nodes, p, rounds);
         fmt::print("  {} actions in {:.2f} s: {:.3g} actions/s (core alone: {:.3g}/s, ratio {:.2f})\n", actions, wall,
                    double(actions) / wall, baseline, double(actions) / wall / baseline);
         fmt::print("  from round {} on: {:.3g} actions/s\n", steady_from, steady_rate);
         fmt::print("  {:.0f} bytes per node (simulator state), peak RSS {:.1f} MiB, setup {:.2f} s\n",
                    r["bytes_per_node"].get<double>(), double(peak_rss_bytes()) / (1 << 20), setup);
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
