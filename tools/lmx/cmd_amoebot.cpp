// `lmx amoebot run [--algorithm hexagon] [--n N] [--hole-prob P] [--execution sequential]
// [--seed N] [--max-activations N] [--json]`: amoebot algorithms in the canonical amoebot model
// (docs/amoebot.md). The `locks` execution is not there yet.
#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <optional>

#include "command.hpp"
#include "lmx/apps/amoebot.hpp"
#include "lmx/sim/scenario.hpp"
#include "output.hpp"

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
  bool json = false;
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

std::string amoebot_summary(const lmx::apps::amoebot::Result& r) {
  std::string line = fmt::format(
      "lmx amoebot: {} ({}), n {}, hole-prob {}, seed {}: {} after {} activations, {} rounds, {} moves; "
      "final shape {}; {:.0f} activations/s, {:.3f} s\n",
      r.algorithm, r.execution, r.n, r.hole_prob, r.seed, r.terminated ? "terminated" : "NOT terminated", r.activations,
      r.rounds, r.moves, r.shape_ok ? "ok" : "WRONG (" + r.shape_detail + ")",
      r.wall_seconds > 0 ? double(r.activations) / r.wall_seconds : 0.0, r.wall_seconds);
  for (std::size_t i = 0; i < r.violations.size() && i < 5; ++i) line += "  VIOLATION " + r.violations[i] + "\n";
  return line;
}

const lmx::cli::Register amoebot_command{
    {"amoebot", 36, [](CLI::App& app, int& exit_code) {
       static AmoebotArgs a;
       auto* top = app.add_subcommand("amoebot", "Amoebot algorithms in the canonical amoebot model (docs/amoebot.md)");
       top->require_subcommand(1);
       auto* run = top->add_subcommand("run", "Run an amoebot algorithm from a random connected configuration");
       run->add_option("--algorithm", a.algorithm, "The algorithm (hexagon)");
       run->add_option("--n", a.n, "Number of amoebots (default 200)");
       run->add_option("--hole-prob", a.hole_prob, "Probability of skipping a candidate node while growing (0.2)");
       run->add_option("--execution", a.execution, "sequential (locks: not yet)");
       run->add_option("--seed", a.seed, "Seed of the configuration and the activations (default 1)");
       run->add_option("--max-activations", a.max_activations, "Stop after this many activations (0: 100 n^2 + 10^6)");
       run->add_flag("--json", a.json, "Print one JSON object (docs/amoebot.md)");
       run->add_flag("--evaluate-asleep", a.evaluate_asleep,
                     "Evaluate the guards of asleep amoebots too (checks the wake-up rule; slower)");
       run->callback([&exit_code] {
         namespace am = lmx::apps::amoebot;
         const am::Algorithm* alg = am::find_algorithm(a.algorithm);
         if (alg == nullptr)
           throw Failure("--algorithm: unknown algorithm '" + lmx::sim::printable(a.algorithm) + "' (one of hexagon)");
         if (a.execution == "locks") throw Failure("--execution locks: not yet (only sequential for now)");
         if (a.execution != "sequential")
           throw Failure("--execution: unknown execution '" + lmx::sim::printable(a.execution) +
                         "' (sequential; locks: not yet)");
         am::RunConfig cfg;
         cfg.n = static_cast<std::uint32_t>(amoebot_unsigned("--n", a.n, 1, 10000000));
         cfg.hole_prob = amoebot_probability("--hole-prob", a.hole_prob);
         cfg.seed = amoebot_unsigned("--seed", a.seed, 0, UINT64_MAX);
         cfg.max_activations = amoebot_unsigned("--max-activations", a.max_activations, 0, UINT64_MAX);
         cfg.skip_asleep = !a.evaluate_asleep;
         am::Result r;
         try {
           r = am::run_sequential(*alg, cfg);
         } catch (const am::ModelError& e) {
           throw Failure(e.what());
         }
         lmx::cli::print_stdout(a.json ? am::to_json(r).dump() + "\n" : amoebot_summary(r));
         if (!r.ok()) exit_code = 1;
       });
     }}};

}  // namespace
