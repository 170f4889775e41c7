// Replay of a simulator trace, line by line (include/lmx/sim/replay.hpp).
#include "lmx/sim/replay.hpp"

#include <algorithm>
#include <atomic>
#include <istream>
#include <optional>

#include "lmx/sim/simulation.hpp"
#include "lmx/trace/trace.hpp"

namespace lmx::sim {

namespace {
/// The rounds of an interrupted run, from the file's last line, when the stream can seek.
std::optional<std::uint64_t> interrupted_after(std::istream& in) {
  const std::istream::pos_type here = in.tellg();
  if (here == std::istream::pos_type(-1) || !in.seekg(0, std::ios::end)) {
    in.clear();
    return std::nullopt;
  }
  const std::streamoff size = in.tellg() - here;
  // The end line is short: the last 4 KiB of the file hold it.
  const std::streamoff back = std::min<std::streamoff>(size, 4096);
  in.seekg(-back, std::ios::end);
  std::string tail(static_cast<std::size_t>(back), '\0');
  in.read(tail.data(), back);
  in.clear();
  in.seekg(here);
  if (tail.empty() || tail.back() != '\n') return std::nullopt;
  tail.pop_back();
  const auto last = tail.rfind('\n');
  const auto end = nlohmann::json::parse(last == std::string::npos ? tail : tail.substr(last + 1), nullptr, false);
  if (!end.is_object() || end.value("ev", "") != "end" || !end.contains("interrupted") || end["interrupted"] != true ||
      !end.contains("rounds") || !end["rounds"].is_number_unsigned())
    return std::nullopt;
  return end["rounds"].get<std::uint64_t>();
}
}  // namespace

ReplayReport replay_run(std::istream& in, const std::string& name) {
  ReplayReport report;
  trace::Reader reader(in, name);
  const auto& header = reader.header();
  if (header["source"] == "pp")
    reader.fail(1,
                "a population-protocol trace (source \"pp\"): its Lock calls come from the protocol's run, which "
                "lmx replay does not re-run; lmx pp run with the same protocol, scheduler, scenario and seed "
                "reproduces it");
  if (header["source"] == "amoebot")
    reader.fail(1,
                "an amoebot trace (source \"amoebot\"): its Lock calls and topology changes come from the amoebots' "
                "run, which lmx replay does not re-run; lmx amoebot run --execution locks with the same algorithm, "
                "n, hole probability, --set options and seed reproduces it");
  if (header["source"] != "run")
    reader.fail(1, "a trace from source " + lmx::trace::json_excerpt(header["source"]) +
                       " is re-executed on the core (lmx check --replay), not re-run");
  if (!header.contains("scenario")) reader.fail(1, "the header has no \"scenario\" to re-run");
  report.scenario = scenario_from_json(header["scenario"]);
  if (const auto it = header.find("lmx_version"); it != header.end() && it->is_string())
    report.written_by = it->get<std::string>();

  RunOptions o;
  // A run interrupted by its user ends with an end line that says so, after how many rounds: the
  // re-run stops there too.
  if (const auto rounds = interrupted_after(in)) o.stop_after_rounds = *rounds;
  // The re-run's lines are compared with the file's as they are produced; at the first difference
  // the run stops (what follows would differ anyway).
  std::atomic<bool> stop{false};
  o.stop = &stop;
  std::uint64_t number = 0;
  std::string expected;
  auto differ = [&](std::string file_line, std::string_view produced) {
    report.first_difference = number;
    report.expected = std::move(file_line);
    report.got = std::string(produced);
    stop = true;
  };
  o.trace_sink = [&](std::string_view line) {
    if (report.first_difference) return;
    if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
    ++number;
    if (number == 1) {
      if (line != reader.header_line().text) differ(reader.header_line().text, line);
      return;
    }
    if (!std::getline(in, expected)) return differ("", line);
    if (line != expected) differ(expected, line);
  };
  report.summary = run(report.scenario, o);
  if (!report.first_difference && std::getline(in, expected)) {
    ++number;
    differ(expected, "");
  }
  report.lines = number;
  report.same = report.first_difference == 0;
  return report;
}

}  // namespace lmx::sim
