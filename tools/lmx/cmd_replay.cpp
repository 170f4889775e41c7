// `lmx replay TRACE`: re-runs a simulator trace from its header (scenario, seed, variant) and
// compares every line the re-run produces with the file's; a checker counterexample
// ("source":"check") is re-executed on the core instead, every act line compared.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>

#include "command.hpp"
#include "lmx/check/replay.hpp"
#include "lmx/sim/replay.hpp"
#include "lmx/sim/simulation.hpp"
#include "lmx/trace/trace.hpp"

namespace {
using lmx::cli::Failure;

/// A line for the terminal: long lines (a header with positions) are cut, control bytes escaped.
std::string shown(const std::string& line, const char* ended) {
  if (line.empty()) return std::string("(none: ") + ended + " had ended)";
  std::string out;
  for (char c : line.substr(0, 240)) out += static_cast<unsigned char>(c) < 0x20 ? '?' : c;
  if (line.size() > 240) out += fmt::format(" ... ({} bytes)", line.size());
  return out;
}

const lmx::cli::Register replay_command{
    {"replay", 12, [](CLI::App& app, int& exit_code) {
       static std::string path;
       auto* cmd = app.add_subcommand(
           "replay",
           "Re-run a trace and compare every line: a simulator run from its header, a checker counterexample on "
           "the core");
       cmd->add_option("trace", path, "Trace file (lmx-trace/1)")->required();
       cmd->callback([&exit_code] {
         if (std::error_code ec; std::filesystem::is_directory(path, ec))
           throw Failure("'" + path + "' is a directory, not a trace file");
         std::ifstream in(path, std::ios::binary);
         if (!in) throw Failure("cannot read trace file '" + path + "'");
         std::string first;
         std::getline(in, first);
         const auto header = nlohmann::json::parse(first, nullptr, false);
         in.clear();
         in.seekg(0);
         if (header.is_object() && header.value("source", "") == "check") {
           const bool same = lmx::check::replay_counterexample(in, std::cout, path);
           if (!same) exit_code = 1;
           return;
         }
         lmx::sim::ReplayReport r;
         try {
           r = lmx::sim::replay_run(in, path);
         } catch (const lmx::trace::Error& e) {
           throw Failure(e.what());
         } catch (const lmx::sim::ScenarioError& e) {
           throw Failure(path + " line 1: the header's scenario: " + e.what());
         }
         fmt::print("replay {}: scenario '{}', seed {}, variant {}: {} rounds, {} actions\n", path, r.scenario.name,
                    r.scenario.seed, std::string(lmx::core::to_string(r.scenario.variant)),
                    r.summary["rounds"].get<std::uint64_t>(), r.summary["actions"].get<std::uint64_t>());
         if (r.same) {
           fmt::print("  every line equal ({} lines){}: same trace\n", r.lines,
                      r.summary.value("interrupted", false) ? ", the run interrupted where the trace says" : "");
           return;
         }
         fmt::print("  DIFFERENT trace: line {} differs\n    trace:  {}\n    replay: {}\n", r.first_difference,
                    shown(r.expected, "the file"), shown(r.got, "the re-run"));
         if (r.written_by != lmx::core::version)
           fmt::print(
               "  note: the trace was written by lmx {}, this is lmx {}; runs may differ between versions "
               "(docs/trace-format.md, \"Compatibility\")\n",
               r.written_by.empty() ? "of unknown version" : r.written_by, lmx::core::version);
         exit_code = 1;
       });
     }}};
}  // namespace
