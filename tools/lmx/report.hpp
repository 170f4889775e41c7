// The self-contained HTML run report: `lmx report RUN.json [--trace TRACE] -o report.html`, and
// `lmx run --report report.html`. The page (web/src/report) is embedded into the binary; the run
// summary (docs/run-format.md) and, with a trace, exact per-Lock latencies and the trace's
// violations are inlined into it, so the one file can be mailed and opened anywhere offline.
#pragma once

#include <filesystem>
#include <istream>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>

namespace lmx::report {

/// Bad input (unreadable file, malformed JSON, unknown schema); what() names the file and line.
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Reads an lmx-trace/1 file (docs/trace-format.md) and returns what the report plots from it:
/// {name, events, header: {...without positions...}, latencies: [rounds per completed Lock],
///  violations: [{property, round, nodes, ports, detail}], stalled}.
nlohmann::json summarize_trace(const std::filesystem::path& trace);
/// The same from a stream; `name` is used in messages, `short_name` as the summary's "name".
nlohmann::json summarize_trace(std::istream& in, const std::string& name, const std::string& short_name);

/// The report page for a run summary, with the trace's summary when given.
std::string render_report(const nlohmann::json& run, const std::optional<nlohmann::json>& trace_summary);

/// Writes the report for `run` (the parsed `lmx run --json` object) to `out`. With `trace`, the
/// trace is read too, and must be of the same run (its event hash is the run's trace hash).
/// Throws Error; a failed write throws lmx::cli::Failure.
void write_report(const nlohmann::json& run, const std::optional<std::filesystem::path>& trace,
                  const std::filesystem::path& out);

/// Reads and checks a run summary file (schema 1). Throws Error.
nlohmann::json read_run(const std::filesystem::path& run_json);
/// The same from the file's text; `name` is used in messages.
nlohmann::json parse_run(const std::string& text, const std::string& name);

/// Checks that a run summary has every field the report reads, with its type. Throws Error
/// naming the field.
void check_run(const nlohmann::json& run, const std::string& name);

}  // namespace lmx::report
