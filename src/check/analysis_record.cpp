// The record of a resumed run's analysis (docs/checker.md, "And in more"): text, one step a line.
#include "analysis_record.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "checkpoint.hpp"

namespace lmx::check::detail {

namespace {
constexpr const char* analysis_format = "lmx-check-analysis 1";

bool parse_phase(const std::string& name, Phase& out) {
  for (unsigned p = 0; p <= static_cast<unsigned>(Phase::counterexamples); ++p)
    if (to_string(static_cast<Phase>(p)) == name) {
      out = static_cast<Phase>(p);
      return true;
    }
  return false;
}
}  // namespace

AnalysisRecord read_analysis(const std::string& path, const std::string& run) {
  AnalysisRecord rec;
  rec.run = run;
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line) || line != analysis_format || !std::getline(in, line) || line != "run " + run)
    return rec;
  AnalysisRecord got;
  got.run = run;
  AnalysisRecord::Part* last = nullptr;
  auto bad = [&] { return std::runtime_error("check: a malformed line in " + path + ": " + line); };
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string key;
    words >> key;
    if (key == "deadlock_sweeps") {
      words >> got.deadlock_sweeps;
      got.deadlock_done = true;
    } else if (key == "deadlock") {
      unsigned u = 0;
      std::uint32_t st = 0;
      words >> u >> st;
      got.deadlocks.emplace_back(u, st);
    } else if (key == "phase") {
      double secs = 0;
      std::string name;
      words >> secs >> std::ws;
      std::getline(words, name);
      Phase phase{};
      if (!parse_phase(name, phase)) throw bad();
      got.phase_cpu_seconds.emplace_back(phase, secs);
    } else if (key == "seconds") {
      words >> got.seconds;
    } else if (key == "parts") {
      words >> got.parts;
    } else if (key == "part") {
      unsigned p = 0;
      std::string lifted;
      words >> p >> lifted >> got.parts_done[p].lifted;
      last = &got.parts_done[p];
      if (lifted != "lifted") throw bad();
    } else if (key == "found") {
      Found f{};
      std::string hex;
      words >> f.stage >> f.node >> f.first_stored >> f.member >> f.members >> hex;
      if (last == nullptr || hex.size() != 2 * sizeof(Global)) throw bad();
      auto* bytes = reinterpret_cast<std::uint8_t*>(&f.at);
      for (std::size_t i = 0; i < sizeof(Global); ++i)
        bytes[i] = static_cast<std::uint8_t>(std::stoul(hex.substr(2 * i, 2), nullptr, 16));
      last->found.push_back(f);
    } else {
      throw bad();
    }
    if (words.fail()) throw bad();
  }
  return got;
}

void write_analysis(const std::string& path, const AnalysisRecord& rec) {
  {
    std::ofstream out(path + ".part");
    out << analysis_format << "\nrun " << rec.run << "\n";
    if (rec.deadlock_done) {
      out << "deadlock_sweeps " << rec.deadlock_sweeps << "\n";
      for (auto [u, st] : rec.deadlocks) out << "deadlock " << u << " " << st << "\n";
    }
    for (const auto& [name, secs] : rec.phase_cpu_seconds)
      out << "phase " << std::to_string(secs) << " " << to_string(name) << "\n";
    out << "seconds " << std::to_string(rec.seconds) << "\nparts " << rec.parts << "\n";
    for (const auto& [p, part] : rec.parts_done) {
      out << "part " << p << " lifted " << part.lifted << "\n";
      for (const Found& f : part.found) {
        out << "found " << f.stage << " " << f.node << " " << f.first_stored << " " << f.member << " " << f.members
            << " ";
        const auto* bytes = reinterpret_cast<const std::uint8_t*>(&f.at);
        for (std::size_t i = 0; i < sizeof(Global); ++i) {
          static constexpr char digits[] = "0123456789abcdef";
          out << digits[bytes[i] >> 4] << digits[bytes[i] & 15];
        }
        out << "\n";
      }
    }
    if (!out.flush()) return;
  }
  std::error_code ignored;
  std::filesystem::rename(path + ".part", path, ignored);
}

AnalysisLog::AnalysisLog(Exploration& x) : keep(x.resuming) {
  if (!keep) return;
  path = x.opt.resume_dir + "/analysis";
  record =
      read_analysis(path, checkpoint_identity(x.inst, x.opt, x.model) + " per_kind=" + std::to_string(x.opt.per_kind) +
                              " parts=" + (x.opt.split_parts ? "1" : "0"));
  auto& phases = x.res.phase_cpu_seconds;
  for (const auto& [phase, secs] : record.phase_cpu_seconds) {
    auto it = std::find_if(phases.begin(), phases.end(), [&](const auto& e) { return e.first == phase; });
    if (it == phases.end()) it = phases.emplace(phases.end(), phase, 0.0);
    it->second += secs;
    x.analysis_cpu_before += secs;
  }
  x.analysis_seconds_before = record.seconds;
}

void AnalysisLog::save(const Exploration& x) {
  if (!keep) return;
  record.phase_cpu_seconds.clear();
  for (const auto& [phase, secs] : x.phase_cpu_so_far())
    if (phase != Phase::exploring) record.phase_cpu_seconds.emplace_back(phase, secs);
  record.seconds = x.analysis_seconds_before + x.wall_seconds();
  write_analysis(path, record);
}

}  // namespace lmx::check::detail
