// The HTML run report (report.hpp).
#include "report.hpp"

#include <fmt/format.h>

#include <fstream>
#include <map>
#include <sstream>

#include "lmx/core/protocol.hpp"
#include "web_assets.hpp"

namespace lmx::report {
namespace {

constexpr std::size_t max_violations = 1000;

std::string describe(const nlohmann::json::exception& e) {
  std::string what = e.what();
  // nlohmann prefixes "[json.exception.parse_error.101] "; keep the readable part
  if (auto pos = what.find("] "); pos != std::string::npos) what = what.substr(pos + 2);
  return what;
}

}  // namespace

nlohmann::json read_run(const std::filesystem::path& run_json) {
  std::ifstream in(run_json, std::ios::binary);
  if (!in) throw Error(fmt::format("cannot read {}", run_json.string()));
  std::stringstream buffer;
  buffer << in.rdbuf();
  if (buffer.str().empty())
    throw Error(fmt::format("{} is empty: expected the JSON object printed by `lmx run --json`", run_json.string()));
  nlohmann::json run;
  try {
    run = nlohmann::json::parse(buffer.str());
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("{} is not valid JSON: {}", run_json.string(), describe(e)));
  }
  if (!run.is_object()) throw Error(fmt::format("{}: expected a JSON object (`lmx run --json`)", run_json.string()));
  if (!run.contains("schema") || run["schema"] != 1)
    throw Error(fmt::format("{}: unknown run summary schema {} (this lmx reads schema 1, docs/run-format.md)",
                            run_json.string(), run.contains("schema") ? run["schema"].dump() : "(missing)"));
  return run;
}

nlohmann::json summarize_trace(const std::filesystem::path& trace) {
  std::ifstream in(trace, std::ios::binary);
  if (!in) throw Error(fmt::format("cannot read {}", trace.string()));
  std::string line;
  std::size_t number = 0;
  nlohmann::json header;
  std::map<std::int64_t, double> pending;  // node -> round of its accepted Lock call
  nlohmann::json latencies = nlohmann::json::array();
  nlohmann::json violations = nlohmann::json::array();
  std::int64_t events = 0;
  bool stalled = false, ended = false;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    nlohmann::json e;
    try {
      e = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception& ex) {
      throw Error(fmt::format("{} line {}: malformed JSON ({})", trace.string(), number, describe(ex)));
    }
    if (number == 1) {
      if (!e.is_object() || e.value("type", "") != "lmx-trace")
        throw Error(fmt::format("{} line 1: not an lmx trace header (\"type\" must be \"lmx-trace\")", trace.string()));
      if (e.value("schema", -1) != 1)
        throw Error(fmt::format("{} line 1: unknown trace schema {} (this lmx reads schema 1)", trace.string(),
                                e.contains("schema") ? e["schema"].dump() : "(missing)"));
      header = e;
      header.erase("positions");
      continue;
    }
    if (!e.is_object() || !e.contains("ev") || !e["ev"].is_string())
      throw Error(fmt::format("{} line {}: an event needs \"ev\"", trace.string(), number));
    ++events;
    const std::string ev = e["ev"];
    try {
      if (ev == "call" && e.at("op") == "lock" && e.at("status") == "ok") {
        pending[e.at("node").get<std::int64_t>()] = e.at("round").get<double>();
      } else if (ev == "done" && e.at("op") == "lock") {
        const auto node = e.at("node").get<std::int64_t>();
        if (auto it = pending.find(node); it != pending.end()) {
          latencies.push_back(e.at("round").get<double>() - it->second);
          pending.erase(it);
        }
      } else if (ev == "violation" && violations.size() < max_violations) {
        violations.push_back({{"property", e.at("property")},
                              {"round", e.at("round")},
                              {"nodes", e.value("nodes", nlohmann::json::array())},
                              {"ports", e.value("ports", nlohmann::json::array())},
                              {"detail", e.value("detail", "")}});
      } else if (ev == "end") {
        stalled = e.value("stalled", false);
        ended = true;
      }
    } catch (const nlohmann::json::exception& ex) {
      throw Error(fmt::format("{} line {}: \"{}\" event: {}", trace.string(), number, ev, describe(ex)));
    }
  }
  if (number == 0)
    throw Error(fmt::format("{} is empty: a trace starts with an lmx-trace header line", trace.string()));
  return {{"name", trace.filename().string()}, {"events", events},   {"header", header}, {"latencies", latencies},
          {"violations", violations},          {"stalled", stalled}, {"complete", ended}};
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
  std::optional<nlohmann::json> summary;
  if (trace) summary = summarize_trace(*trace);
  const std::string page = render_report(run, summary);
  std::ofstream file(out, std::ios::binary | std::ios::trunc);
  if (!file) throw Error(fmt::format("cannot write {}", out.string()));
  file << page;
  if (!file.flush()) throw Error(fmt::format("cannot write {}", out.string()));
}

}  // namespace lmx::report
