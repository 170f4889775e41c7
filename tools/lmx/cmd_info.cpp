// `lmx info [--json]`: version, variants, parameter ranges, state and message sizes (P5, P6).
#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "command.hpp"
#include "lmx/core/protocol.hpp"
#include "lmx/sim/scenario.hpp"

namespace {
using namespace lmx::core;

template <class Word>
nlohmann::json width_entry() {
  constexpr unsigned bits = sizeof(Word) * 8;
  const unsigned delta = Protocol<Word>::max_delta;
  return {{"register_bits", bits},
          {"delta_max", delta},
          {"node_state_bytes", sizeof(NodeState<Word>)},
          {"node_state_layout_bits", layout_state_bits(bits)},
          {"paper_bits_at_delta_max_k16", paper_state_bits(delta, 16)},
          {"paper_bits_at_delta_max_k32", paper_state_bits(delta, 32)}};
}

nlohmann::json info() {
  return {{"version", std::string(version)},
          {"variants", {"paper", "repaired", "fast"}},
          {"default_variant", std::string(to_string(default_variant))},
          {"default_scenario_variant", std::string(to_string(lmx::sim::Scenario{}.variant))},
          {"default_scenario_k", lmx::sim::Scenario{}.k},
          {"k_range", {k_min, k_max}},
          {"delta_range", {1, Protocol<std::uint64_t>::max_delta}},
          {"message_bits", message_bits},
          {"message_kinds", message_kind_count},
          {"register_widths",
           {width_entry<std::uint8_t>(), width_entry<std::uint16_t>(), width_entry<std::uint32_t>(),
            width_entry<std::uint64_t>()}}};
}

const lmx::cli::Register info_command{
    {"info", 0, [](CLI::App& app, int&) {
       auto* cmd = app.add_subcommand("info", "Version, algorithm variants and the sizes of node state and messages");
       static bool as_json = false;
       cmd->add_flag("--json", as_json, "Print one JSON object");
       cmd->callback([] {
         const auto j = info();
         if (as_json) {
           std::cout << j.dump(2) << "\n";
           return;
         }
         fmt::print("lmx {} - local mutual exclusion (Daymude, Richa, Scheideler, SAND 2022)\n", version);
         fmt::print(
             "variants: paper (Algorithms 1-3 as printed), repaired (the checker's default), fast (repaired with F1, "
             "F2; the simulator's default, K = {})\n",
             lmx::sim::Scenario{}.k);
         fmt::print(
             "fast: the same state and messages as repaired (no new variable; priorities < K <= 32 in 5 bits)\n");
         fmt::print("K (priority values): {}..{}; messages: {} kinds, {} bits each\n", k_min, k_max, message_kind_count,
                    message_bits);
         fmt::print("{:>14} {:>9} {:>17} {:>22}\n", "register bits", "Delta max", "node state bytes",
                    "paper O(Delta) bits K=16");
         for (const auto& w : j["register_widths"])
           fmt::print("{:>14} {:>9} {:>17} {:>22}\n", w["register_bits"].get<unsigned>(),
                      w["delta_max"].get<unsigned>(), w["node_state_bytes"].get<unsigned>(),
                      w["paper_bits_at_delta_max_k16"].get<unsigned>());
       });
     }}};
}  // namespace
