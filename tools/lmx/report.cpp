// The HTML run report (report.hpp).
#include "report.hpp"

#include <fmt/format.h>

#include <fstream>
#include <map>
#include <sstream>

#include "lmx/core/protocol.hpp"
#include "lmx/trace/trace.hpp"
#include "output.hpp"
#include "web_assets.hpp"

namespace lmx::report {
namespace {

constexpr std::size_t max_violations = 1000;

std::string describe(const nlohmann::json::exception& e) { return lmx::trace::json_error_text(e); }

}  // namespace

nlohmann::json read_run(const std::filesystem::path& run_json) {
  if (std::error_code ec; std::filesystem::is_directory(run_json, ec))
    throw Error(fmt::format("{} is a directory, not the JSON object printed by `lmx run --json`", run_json.string()));
  std::ifstream in(run_json, std::ios::binary);
  if (!in) throw Error(fmt::format("cannot read {}", run_json.string()));
  std::stringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw Error(fmt::format("cannot read {}", run_json.string()));
  return parse_run(buffer.str(), run_json.string());
}

nlohmann::json parse_run(const std::string& text, const std::string& name) {
  if (text.empty()) throw Error(fmt::format("{} is empty: expected the JSON object printed by `lmx run --json`", name));
  nlohmann::json run;
  try {
    run = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("{} is not valid JSON: {}", name, describe(e)));
  }
  if (!run.is_object()) throw Error(fmt::format("{}: expected a JSON object (`lmx run --json`)", name));
  if (!run.contains("schema") || run["schema"] != 1)
    throw Error(fmt::format("{}: unknown run summary schema {} (this lmx reads schema 1, docs/run-format.md)", name,
                            run.contains("schema") ? lmx::trace::json_excerpt(run["schema"]) : "(missing)"));
  check_run(run, name);
  return run;
}

void check_run(const nlohmann::json& run, const std::string& name) {
  // What the report reads, with the JSON kind it must have (docs/run-format.md).
  struct Field {
    const char* pointer;
    bool (nlohmann::json::*is)() const noexcept;
    const char* what;
  };
  static const Field fields[] = {
      {"/scenario", &nlohmann::json::is_object, "an object"},
      {"/scenario/name", &nlohmann::json::is_string, "a string"},
      {"/seed", &nlohmann::json::is_number_unsigned, "an unsigned integer"},
      {"/variant", &nlohmann::json::is_string, "a string"},
      {"/engine", &nlohmann::json::is_string, "a string"},
      {"/rounds", &nlohmann::json::is_number_unsigned, "an unsigned integer"},
      {"/locks_requested", &nlohmann::json::is_number_unsigned, "an unsigned integer"},
      {"/locks_completed", &nlohmann::json::is_number_unsigned, "an unsigned integer"},
      {"/locks_per_round", &nlohmann::json::is_number, "a number"},
      {"/properties", &nlohmann::json::is_object, "an object"},
      {"/violations", &nlohmann::json::is_array, "an array"},
      {"/stalled", &nlohmann::json::is_boolean, "true or false"},
      {"/trace_hash", &nlohmann::json::is_string, "a string"},
      {"/latency_rounds", &nlohmann::json::is_object, "an object"},
      {"/latency_histogram/bin_edges", &nlohmann::json::is_array, "an array"},
      {"/latency_histogram/counts", &nlohmann::json::is_array, "an array"},
      {"/series/round", &nlohmann::json::is_array, "an array"},
      {"/series/locks_completed", &nlohmann::json::is_array, "an array"},
      {"/series/locked_nodes", &nlohmann::json::is_array, "an array"},
      {"/per_node_locks", &nlohmann::json::is_array, "an array"},
      {"/messages_per_lock_by_kind", &nlohmann::json::is_object, "an object"},
  };
  for (const auto& f : fields) {
    const nlohmann::json::json_pointer at(f.pointer);
    if (!run.contains(at))
      throw Error(fmt::format("{}: \"{}\" is missing (not an `lmx run --json` summary?)", name, f.pointer + 1));
    if (!(run[at].*f.is)())
      throw Error(
          fmt::format("{}: \"{}\" must be {}, not {}", name, f.pointer + 1, f.what, lmx::trace::json_excerpt(run[at])));
  }
  // Memory is known only to the run itself (a summary derived from a trace has null): if given, numbers.
  if (run.contains("bits_per_node") && !run["bits_per_node"].is_null()) {
    const auto& bits = run["bits_per_node"];
    for (const char* key : {"layout", "paper"})
      if (!bits.is_object() || !bits.contains(key) || !bits[key].is_number())
        throw Error(fmt::format("{}: \"bits_per_node\" must be an object with numbers \"layout\" and \"paper\", not {}",
                                name, lmx::trace::json_excerpt(bits)));
  }
  // The series and histograms are plotted: every value a number.
  for (const char* array : {"/latency_histogram/bin_edges", "/latency_histogram/counts", "/series/round",
                            "/series/locks_completed", "/series/locked_nodes", "/per_node_locks"})
    for (const auto& v : run[nlohmann::json::json_pointer(array)])
      if (!v.is_number())
        throw Error(fmt::format("{}: \"{}\" holds {}, not a number", name, array + 1, lmx::trace::json_excerpt(v)));
}

nlohmann::json summarize_trace(const std::filesystem::path& trace) {
  if (std::error_code ec; std::filesystem::is_directory(trace, ec))
    throw Error(fmt::format("{} is a directory, not a trace file", trace.string()));
  std::ifstream in(trace, std::ios::binary);
  if (!in) throw Error(fmt::format("cannot read {}", trace.string()));
  return summarize_trace(in, trace.string(), trace.filename().string());
}

nlohmann::json summarize_trace(std::istream& in, const std::string& name, const std::string& short_name) {
  std::map<std::int64_t, double> pending;  // node -> round of its accepted Lock call
  nlohmann::json latencies = nlohmann::json::array();
  nlohmann::json violations = nlohmann::json::array();
  std::int64_t events = 0;
  nlohmann::json header, end;
  try {
    // The shared reader checks every line's form and order, and the end line's hash.
    lmx::trace::Reader reader(in, name);
    header = reader.header();
    header.erase("positions");
    lmx::trace::Line e;
    while (reader.next(e)) {
      if (e.ev == "end") {
        end = e.event;
        continue;
      }
      ++events;
      try {
        const auto& j = e.event;
        // A node number through the shared accessor (a number too large for 64 bits, or a
        // fraction, is an error line, not a conversion that overflows), a round as a number.
        auto node_of = [&] {
          return static_cast<std::int64_t>(lmx::trace::get_uint(reader, e, "node", 0, UINT32_MAX));
        };
        auto round_of = [&] {
          if (!j.at("round").is_number())
            throw Error(fmt::format("{} line {}: \"round\" must be a number", name, e.number));
          return j.at("round").get<double>();
        };
        if (e.ev == "call" && j.at("op") == "lock" && j.at("status") == "ok") {
          pending[node_of()] = round_of();
        } else if (e.ev == "done" && j.at("op") == "lock") {
          const auto node = node_of();
          if (auto it = pending.find(node); it != pending.end()) {
            latencies.push_back(round_of() - it->second);
            pending.erase(it);
          }
        } else if (e.ev == "violation" && violations.size() < max_violations) {
          violations.push_back({{"property", j.at("property")},
                                {"round", j.at("round")},
                                {"nodes", j.value("nodes", nlohmann::json::array())},
                                {"ports", j.value("ports", nlohmann::json::array())},
                                {"detail", j.value("detail", "")}});
        }
      } catch (const nlohmann::json::exception& ex) {
        // the event's name as JSON: escaped, never a raw control character
        throw Error(fmt::format("{} line {}: {} event: {}", name, e.number,
                                lmx::trace::json_excerpt(nlohmann::json(e.ev)), describe(ex)));
      }
    }
    if (!reader.complete())
      throw Error(fmt::format("{}: the trace has no end line (the run did not finish writing it)", name));
  } catch (const lmx::trace::Error& ex) {
    throw Error(ex.what());
  }
  // The end line's fields, if present, must have their types (a summary never holds a wrong one).
  const auto end_field = [&](const char* key, bool (nlohmann::json::*is)() const noexcept, const char* what) {
    if (end.contains(key) && !(end[key].*is)())
      throw Error(fmt::format("{}: the end line's \"{}\" must be {}, not {}", name, key, what,
                              lmx::trace::json_excerpt(end[key])));
    return end.contains(key);
  };
  const bool stalled = end_field("stalled", &nlohmann::json::is_boolean, "true or false") && end["stalled"].get<bool>();
  const std::string event_hash =
      end_field("event_hash", &nlohmann::json::is_string, "a string") ? end["event_hash"].get<std::string>() : "";
  return {{"name", short_name},       {"events", events},   {"header", header}, {"latencies", latencies},
          {"violations", violations}, {"stalled", stalled}, {"complete", true}, {"event_hash", event_hash}};
}

std::string render_report(const nlohmann::json& run, const std::optional<nlohmann::json>& trace_summary) {
  if (!web::built()) throw Error(std::string(web::not_built_hint));
  nlohmann::json data = {{"run", run},
                         {"trace", trace_summary ? *trace_summary : nlohmann::json(nullptr)},
                         {"lmx_version", std::string(core::version)}};
  // Inside <script type="application/json">, "</" must not appear: JSON allows "\/" instead.
  std::string json = data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string safe;
  safe.reserve(json.size() + 16);
  for (std::size_t i = 0; i < json.size(); ++i) {
    if (json[i] == '<' && i + 1 < json.size() && json[i + 1] == '/') {
      safe += "<\\/";
      ++i;
    } else {
      safe += json[i];
    }
  }
  std::string page(web::report_html());
  const auto at = page.find(web::report_placeholder);
  if (at == std::string::npos) throw Error("the embedded report page has no data placeholder (rebuild web/)");
  page.replace(at, web::report_placeholder.size(), safe);
  return page;
}

void write_report(const nlohmann::json& run, const std::optional<std::filesystem::path>& trace,
                  const std::filesystem::path& out) {
  check_run(run, "the run summary");
  std::optional<nlohmann::json> summary;
  if (trace) {
    summary = summarize_trace(*trace);
    // The trace must be of this run: its end line's event hash is the run's trace hash.
    if ((*summary)["event_hash"] != run["trace_hash"])
      throw Error(fmt::format("{} is the trace of another run: its event hash {} is not the summary's trace hash {}",
                              trace->string(), lmx::trace::json_excerpt((*summary)["event_hash"]),
                              lmx::trace::json_excerpt(run["trace_hash"])));
  }
  const std::string page = render_report(run, summary);
  lmx::cli::OutputFile file(out.string());
  file.stream() << page;
  file.commit();
}

}  // namespace lmx::report
