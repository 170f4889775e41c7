// `lmx bench [--nodes N] [--rounds R] [--json]`: the simulator's whole-run benchmark (the issue's
// performance goals): a random graph with Delta = 8, every node locking continuously, the
// semi-synchronous random adversary. Reports speed, memory per node and peak RSS.
#include <fmt/format.h>

#include <chrono>
#include <iostream>

#include "command.hpp"
#include "lmx/sim/simulation.hpp"
#include "process.hpp"

namespace {
using nlohmann::json;

using lmx::cli::peak_rss_bytes;

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

const lmx::cli::Register reg{
    {"bench", 14, [](CLI::App& app, int&) {
       static std::uint32_t nodes = 1'000'000;
       static std::uint64_t rounds = 20;
       static double p = 0.5;
       static bool as_json = false;
       static bool immediate = false;
       auto* cmd =
           app.add_subcommand("bench", "Whole-run benchmark: random graph, Delta = 8, every node locking continuously");
       cmd->add_option("--nodes", nodes, "Nodes (default 1000000)");
       cmd->add_option("--rounds", rounds, "Semi-synchronous rounds (default 20)");
       cmd->add_option("--p", p, "Activation probability per round (default 0.5)");
       cmd->add_flag("--json", as_json, "Print one JSON object");
       cmd->add_flag("--immediate-writes", immediate,
                     "Write each message into the receiver's channel at the send (no deferred writes; same run, "
                     "for comparison)");
       cmd->callback([] {
         lmx::sim::Scenario s;
         s.name = "bench", s.nodes = nodes, s.delta = 8, s.engine = "semi-sync", s.rounds = rounds;
         s.activation.p = p, s.topology.kind = "regular", s.workload.idle = 0, s.workload.hold = 0;
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
