// `lmx bench [--nodes N] [--rounds R] [--p P] [--seed S] [--json]`: the simulator's whole-run
// benchmark (the performance goals): a random graph with Delta = 8, every node locking
// continuously, the semi-synchronous random adversary. Reports speed, memory per node and peak RSS.
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

const lmx::cli::Register bench_command{
    {"bench", 14, [](CLI::App& app, int&) {
       static std::string nodes_text = "1000000", rounds_text = "20", p_text = "0.5", seed_text = "1";
       static bool as_json = false;
       static bool immediate = false;
       auto* cmd =
           app.add_subcommand("bench", "Whole-run benchmark: random graph, Delta = 8, every node locking continuously");
       cmd->add_option("--nodes", nodes_text, "Nodes, 1..100000000 (default 1000000)");
       cmd->add_option("--rounds", rounds_text, "Semi-synchronous rounds, 1..4000000 (default 20)");
       cmd->add_option("--p", p_text, "Activation probability per round, 0.000001..1 (default 0.5)");
       cmd->add_option("--seed", seed_text, "Seed of every random choice, 0..18446744073709551615 (default 1)");
       cmd->add_flag("--json", as_json, "Print one JSON object");
       cmd->add_flag("--immediate-writes", immediate,
                     "Write each message into the receiver's channel at the send (no deferred writes; same run, "
                     "for comparison)");
       cmd->callback([] {
         // The scenario's own limits, so that the benchmark runs what `lmx run` would accept.
         const auto nodes = static_cast<std::uint32_t>(whole_number(nodes_text, "--nodes", 1, 100'000'000));
         const std::uint64_t rounds = whole_number(rounds_text, "--rounds", 1, 4'000'000);
         const double p = real_number(p_text, "--p", 1e-6, 1.0, "0.000001..1");
         lmx::sim::Scenario s;
         try {
           s.seed = lmx::sim::parse_seed(seed_text, "--seed");
         } catch (const lmx::sim::ScenarioError& e) {
           throw lmx::cli::Failure(e.what());
         }
         s.name = "bench", s.nodes = nodes, s.delta = 8, s.engine = lmx::sim::EngineKind::semi_sync, s.rounds = rounds;
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
         const json out = {{"nodes", nodes},
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
                           {"trace_hash", r["trace_hash"]}};
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
       });
     }}};
}  // namespace
