// `lmx replay TRACE`: re-runs a simulator trace from its header (scenario, seed, variant) and
// confirms that the new run produces the same trace (same line hash and event hash). A checker
// counterexample ("source":"check") is re-executed on the core instead, every act line compared.
#include <fmt/format.h>

#include <fstream>
#include <iostream>

#include "command.hpp"
#include "lmx/check/replay.hpp"
#include "lmx/sim/simulation.hpp"

namespace {
using lmx::cli::Failure;
using nlohmann::json;

json parse_line(const std::string& line, const std::string& what) {
  try {
    return json::parse(line);
  } catch (const json::parse_error&) {
    throw Failure(what + " is not a JSON object");
  }
}

const lmx::cli::Register reg{
    {"replay", 12, [](CLI::App& app, int& exit_code) {
       static std::string path;
       auto* cmd = app.add_subcommand(
           "replay",
           "Re-run a trace: a simulator run from its header (same trace hash), a checker counterexample on the core");
       cmd->add_option("trace", path, "Trace file (lmx-trace/1)")->required();
       cmd->callback([&exit_code] {
         std::ifstream in(path);
         if (!in) throw Failure("cannot read trace file '" + path + "'");
         std::string first, line, last;
         if (!std::getline(in, first)) throw Failure("trace file '" + path + "' is empty");
         while (std::getline(in, line))
           if (!line.empty()) last = line;
         const json header = parse_line(first, "the trace header");
         if (header.value("type", "") != "lmx-trace")
           throw Failure("'" + path + "' is not an lmx trace (header type is not lmx-trace)");
         if (header.value("schema", 0) != 1)
           throw Failure("trace schema " + header.value("schema", json(0)).dump() +
                         " is not supported (this lmx reads schema 1)");
         const std::string source = header.value("source", "");
         if (source == "check") {
           std::ifstream again(path);
           const bool same = lmx::check::replay_counterexample(again, std::cout);
           if (!same) exit_code = 1;
           return;
         }
         if (source != "run")
           throw Failure("traces from source '" + source + "' cannot be replayed (sources: run, check)");
         const json end = parse_line(last, "the last trace line");
         if (end.value("ev", "") != "end")
           throw Failure("trace '" + path + "' is truncated: its last line is not an end event");
         lmx::sim::Scenario s;
         try {
           s = lmx::sim::scenario_from_json(header.at("scenario"));
         } catch (const std::exception& e) {
           throw Failure(std::string("trace header: ") + e.what());
         }
         lmx::sim::RunOptions o;
         o.hash_lines = true;
         const json r = lmx::sim::run(s, o);
         const std::string want_lines = end.value("hash", ""), got_lines = r.value("line_hash", "");
         const std::string want_events = end.value("event_hash", ""), got_events = r.value("trace_hash", "");
         const bool same = want_lines == got_lines && (want_events.empty() || want_events == got_events);
         fmt::print("replay {}: scenario '{}', seed {}, variant {}: {} rounds, {} actions\n", path, s.name, s.seed,
                    std::string(lmx::core::to_string(s.variant)), r["rounds"].get<std::uint64_t>(),
                    r["actions"].get<std::uint64_t>());
         fmt::print("  line hash  {} (trace) {} (replay)\n  event hash {} (trace) {} (replay)\n  {}\n", want_lines,
                    got_lines, want_events.empty() ? "-" : want_events, got_events,
                    same ? "same trace" : "DIFFERENT trace");
         if (!same) exit_code = 1;
       });
     }}};
}  // namespace
