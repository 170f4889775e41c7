// `lmx amoebot run [--algorithm hexagon] [--n N] [--hole-prob P] [--execution sequential|locks]
// [--set key=value]... [--seed N] [--max-activations N] [--max-rounds N] [--json] [--trace FILE]`:
// amoebot algorithms in the canonical amoebot model (docs/amoebot.md), one amoebot at a time or
// concurrently on lmx locks.
#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <vector>

#include "command.hpp"
#include "lmx/apps/amoebot.hpp"
#include "lmx/sim/scenario.hpp"
#include "output.hpp"
#include "report.hpp"

namespace {

// Declared one by one: in a unity build other commands' using-directives are in scope.
using lmx::cli::Failure;

struct AmoebotArgs {
  std::string algorithm = "hexagon";
  std::string n = "200";
  std::string hole_prob = "0.2";
  std::string execution = "sequential";
  std::string seed = "1";
  std::string max_activations = "0";
  std::string max_rounds = "0";
  std::vector<std::string> sets;
  std::string trace;
  std::string report;
  bool json = false;
  bool one_at_a_time = false;
  bool evaluate_asleep = false;
};

std::uint64_t amoebot_unsigned(const std::string& option, const std::string& text, std::uint64_t lo, std::uint64_t hi) {
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v < lo || v > hi)
    throw Failure(
        fmt::format("{}: expected an integer in {}..{}, got '{}'", option, lo, hi, lmx::sim::printable(text)));
  return v;
}

double amoebot_probability(const std::string& option, const std::string& text) {
  char* end = nullptr;
  const double v = text.empty() ? NAN : std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !(v >= 0 && v < 1))
    throw Failure(fmt::format("{}: expected a number in [0, 1), got '{}'", option, lmx::sim::printable(text)));
  return v;
}

std::string amoebot_summary(const lmx::apps::amoebot::Result& r, const lmx::apps::amoebot::LocksStats* locks) {
  std::string line =
      locks == nullptr
          ? fmt::format(
                "lmx amoebot: {} ({}), n {}, hole-prob {}, seed {}: {} after {} activations, {} rounds, {} moves; "
                "final shape {}; {:.0f} activations/s, {:.3f} s\n",
                r.algorithm, r.execution, r.n, r.hole_prob, r.seed,
                r.interrupted  ? "INTERRUPTED"
                : r.terminated ? "terminated"
                               : "NOT terminated",
                r.activations, r.rounds, r.moves, r.shape_ok ? "ok" : "WRONG (" + r.shape_detail + ")",
                r.wall_seconds > 0 ? double(r.activations) / r.wall_seconds : 0.0, r.wall_seconds)
          : fmt::format(
                "lmx amoebot: {} ({}), n {}, hole-prob {}, seed {}: {} after {} rounds ({:.0f} engine rounds), {} "
                "actions, {} "
                "moves, {} Locks ({} slept, {} incomplete, {} actions given up); at most {} amoebots acting at "
                "once; final shape {}; serializable ({} actions replayed); {:.0f} protocol actions/s, {:.3f} s\n",
                r.algorithm, r.execution, r.n, r.hole_prob, r.seed,
                r.interrupted  ? "INTERRUPTED"
                : r.terminated ? "terminated"
                               : "NOT terminated",
                r.rounds, locks->model_rounds, r.actions, r.moves, locks->lock_cycles, locks->sleeps,
                locks->incomplete_locks, locks->aborted, locks->max_acting,
                r.shape_ok ? "ok" : "WRONG (" + r.shape_detail + ")", locks->serializability_checks,
                r.wall_seconds > 0 ? double(locks->protocol_actions) / r.wall_seconds : 0.0, r.wall_seconds);
  for (std::size_t i = 0; i < r.violations.size() && i < 5; ++i) line += "  VIOLATION " + r.violations[i] + "\n";
  if (locks != nullptr && !locks->excerpt.empty()) {
    line += "  the last events of the amoebots involved:\n";
    for (const std::string& e : locks->excerpt) line += "    " + e + "\n";
  }
  return line;
}

const lmx::cli::Register amoebot_command{
    {"amoebot", 36, [](CLI::App& app, int& exit_code) {
       static AmoebotArgs a;
       auto* top = app.add_subcommand("amoebot", "Amoebot algorithms in the canonical amoebot model (docs/amoebot.md)");
       top->require_subcommand(1);
       auto* run = top->add_subcommand("run", "Run an amoebot algorithm from a random connected configuration");
       run->add_option("--algorithm", a.algorithm,
                       "The algorithm: hexagon (hexagon formation) or line (line formation)");
       run->add_option("--n", a.n, "Number of amoebots (default 200)");
       run->add_option("--hole-prob", a.hole_prob, "Probability of skipping a candidate node while growing (0.2)");
       run->add_option("--execution", a.execution,
                       "sequential (one amoebot at a time) or locks (concurrent, each action under an lmx Lock)");
       run->add_option("--set", a.sets,
                       "locks: a scenario key of the adversary, as in lmx run (engine, activation.kind, delivery.kind, "
                       "variant, k, horizon...); repeatable");
       run->add_option("--max-rounds", a.max_rounds,
                       "locks: model rounds before the run is unterminated (0: 1000 n + 10^5, divided by the "
                       "activation probability of the semi-synchronous adversary, at most the engine limit)");
       run->add_option("--trace", a.trace, "locks: write the lmx-trace/1 trace with the amoebot lines to FILE");
       run->add_flag("--one-at-a-time", a.one_at_a_time,
                     "locks: one Lock cycle in the system at a time (the baseline of what concurrency buys)");
       run->add_option("--report", a.report,
                       "locks: write the HTML run report (the lock figures, the same configuration run sequentially, "
                       "the run over time) to FILE");
       run->add_option("--seed", a.seed, "Seed of the configuration and the activations (default 1)");
       run->add_option("--max-activations", a.max_activations, "Stop after this many activations (0: 100 n^2 + 10^6)");
       run->add_flag("--json", a.json, "Print one JSON object (docs/amoebot.md)");
       run->add_flag("--evaluate-asleep", a.evaluate_asleep,
                     "Evaluate the guards of asleep amoebots too (checks the wake-up rule; slower)");
       run->callback([&exit_code] {
         namespace am = lmx::apps::amoebot;
         const am::Algorithm* alg = am::find_algorithm(a.algorithm);
         if (alg == nullptr) {
           std::string names;
           for (const am::Algorithm* x : am::algorithms()) names += (names.empty() ? "" : ", ") + x->name;
           throw Failure("--algorithm: unknown algorithm '" + lmx::sim::printable(a.algorithm) + "' (one of " + names +
                         ")");
         }
         if (a.execution != "sequential" && a.execution != "locks")
           throw Failure("--execution: unknown execution '" + lmx::sim::printable(a.execution) +
                         "' (sequential or locks)");
         const bool locks = a.execution == "locks";
         if (!locks && !a.sets.empty())
           throw Failure("--set: only the locks execution has a scenario (--execution locks)");
         if (!locks && !a.trace.empty())
           throw Failure("--trace: only the locks execution writes a trace (--execution locks)");
         if (!locks && a.one_at_a_time)
           throw Failure("--one-at-a-time: only for the locks execution (the sequential one is one at a time)");
         if (!locks && !a.report.empty())
           throw Failure("--report: only the locks execution has a network run to report (--execution locks)");
         lmx::cli::refuse_overwriting_inputs("--report", a.report, {a.trace});
         if (!locks && a.max_rounds != "0")
           throw Failure("--max-rounds: only for --execution locks (sequential: --max-activations)");
         if (locks && a.evaluate_asleep)
           throw Failure(
               "--evaluate-asleep: only for the sequential execution (the locks execution evaluates every "
               "amoebot at the end)");
         if (locks && a.max_activations != "0")
           throw Failure("--max-activations: only for the sequential execution (locks: --max-rounds)");
         am::RunConfig cfg;
         cfg.n = static_cast<std::uint32_t>(amoebot_unsigned("--n", a.n, 1, 10000000));
         cfg.hole_prob = amoebot_probability("--hole-prob", a.hole_prob);
         cfg.seed = amoebot_unsigned("--seed", a.seed, 0, UINT64_MAX);
         cfg.max_activations = amoebot_unsigned("--max-activations", a.max_activations, 0, UINT64_MAX);
         cfg.skip_asleep = !a.evaluate_asleep;
         am::Result r;
         am::LocksStats stats;
         if (!locks) {
           lmx::cli::InterruptGuard interrupt;
           cfg.stop = &lmx::cli::InterruptGuard::requested();
           try {
             r = am::run_sequential(*alg, cfg);
           } catch (const am::ModelError& e) {
             throw Failure(e.what());
           }
           lmx::cli::print_stdout(a.json ? am::to_json(r).dump() + "\n" : amoebot_summary(r, nullptr));
           if (!r.ok()) exit_code = 1;
           if (r.interrupted) exit_code = lmx::cli::interrupted_exit_code;
           return;
         }
         am::LocksConfig lc;
         lc.n = cfg.n, lc.hole_prob = cfg.hole_prob, lc.seed = cfg.seed;
         lc.one_at_a_time = a.one_at_a_time;
         lc.max_rounds = amoebot_unsigned("--max-rounds", a.max_rounds, 0, 4000000);
         try {
           for (const std::string& s : a.sets) lmx::sim::apply_override(lc.scenario, s);
         } catch (const lmx::sim::ScenarioError& e) {
           throw Failure(e.what());
         }
         // Ctrl-C is caught before the trace's temporary file exists: once it does, an interrupt
         // ends the run cleanly, with the trace and the summary so far.
         lmx::cli::InterruptGuard interrupt;
         lc.stop = &lmx::cli::InterruptGuard::requested();
         std::optional<lmx::cli::OutputFile> trace_file;
         if (!a.trace.empty()) trace_file.emplace(a.trace), lc.trace = &trace_file->stream();
         try {
           r = am::run_locks(*alg, lc, &stats);
         } catch (const am::ModelError& e) {
           throw Failure(e.what());
         } catch (const lmx::sim::ScenarioError& e) {
           throw Failure(e.what());
         }
         if (trace_file) trace_file->commit();
         if (!a.report.empty()) {
           // The same configuration one amoebot at a time, for the comparison.
           const am::Result sequential = am::run_sequential(*alg, cfg);
           nlohmann::json summary = stats.run_summary;
           summary["amoebot"] = am::report_json(r, stats, &sequential);
           try {
             lmx::report::write_report(
                 summary, a.trace.empty() ? std::nullopt : std::optional<std::filesystem::path>(a.trace), a.report);
           } catch (const lmx::report::Error& e) {
             throw Failure(e.what());
           }
         }
         lmx::cli::print_stdout(a.json ? am::to_json(r, stats).dump() + "\n" : amoebot_summary(r, &stats));
         if (!r.ok()) exit_code = 1;
         if (r.interrupted) exit_code = lmx::cli::interrupted_exit_code;
       });
     }}};

}  // namespace
