// `lmx demo`: two overlapping Lock requests on the path n0 - n1 - n2, played in synchronous rounds
// and printed as a message sequence. n0 and n2 both want n1; exactly one locks it at a time.
#include <fmt/format.h>

#include "command.hpp"
#include "lmx/script/network.hpp"

namespace {

int run_demo(lmx::core::Variant variant, unsigned shift) {
  using namespace lmx;
  using core::InitiatorState;
  script::Network net(3, core::Config{2, 4, variant});
  fmt::print("Path n0 -(1:1)- n1 -(2:1)- n2, Delta = 2, K = 4, variant {}\n", core::to_string(variant));
  fmt::print("{}\n{}\n", net.connect(0, 1, 1, 1), net.connect(1, 2, 2, 1));
  // Priorities are handed out in draw order; the first two tie, so the first competition fails
  // for both initiators and is retried.
  for (unsigned p : {2u, 2u, 3u, 1u, 0u, 2u}) net.queue_priority((p + shift) % 4);
  fmt::print("{}\n{}\n", net.lock(0), net.lock(2));
  constexpr unsigned critical_section_rounds = 2;
  unsigned held[3] = {0, 0, 0};
  unsigned round = 1;
  for (; round <= 200; ++round) {
    auto lines = net.round();
    for (unsigned u : {0u, 2u})
      if (net.state(u).state == InitiatorState::locked && ++held[u] > critical_section_rounds)
        lines.push_back(net.unlock(u) + "   (critical section over)");
    const bool holding = net.state(0).state == InitiatorState::locked || net.state(2).state == InitiatorState::locked;
    if (lines.empty() && !holding) break;
    if (lines.empty()) continue;
    fmt::print("round {}\n", round);
    for (const auto& line : lines) {
      fmt::print("  {}\n", line);
      for (unsigned u : {0u, 2u})
        if (line.rfind(fmt::format("n{} CheckDone", u), 0) == 0) {
          std::string members;
          for (unsigned v : net.lock_set_of(u)) members += fmt::format(" n{}", v);
          fmt::print("     lock set of n{}:{}\n", u, members);
        }
    }
  }
  fmt::print("\nfinal registers:\n");
  for (unsigned u = 0; u < 3; ++u) fmt::print("  {}\n", net.describe(u));
  const bool ok = net.locks_acquired(0) == 1 && net.locks_acquired(2) == 1 && net.quiescent() &&
                  net.state(0).state == InitiatorState::idle && net.state(2).state == InitiatorState::idle;
  fmt::print("\n{} rounds; n0 locked {} time(s), n2 locked {} time(s): {}\n", round - 1, net.locks_acquired(0),
             net.locks_acquired(2), ok ? "both requests succeeded" : "a request did not complete");
  return ok ? 0 : 1;
}

const lmx::cli::Register demo_command{
    {"demo", 90, [](CLI::App& app, int& exit_code) {
       auto* cmd = app.add_subcommand("demo", "Play two overlapping Lock requests round by round");
       static std::string variant = "repaired";
       static unsigned shift = 0;
       cmd->add_option("--variant", variant, "Algorithm variant: paper, repaired or fast")->capture_default_str();
       cmd->add_option("--shift", shift, "Rotate the scripted priorities (changes who wins first)")
           ->capture_default_str();
       cmd->callback([&exit_code] {
         lmx::core::Variant v;
         if (!lmx::core::parse_variant(variant, v))
           throw lmx::cli::Failure("unknown variant '" + variant + "' (paper, repaired or fast)");
         exit_code = run_demo(v, shift);
       });
     }}};
}  // namespace
