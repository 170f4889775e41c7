// The record of a resumed run's analysis (docs/checker.md, "And in more"): text, one step a line.
#include "analysis_record.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>

#include "checkpoint.hpp"
#include "checksum.hpp"

namespace lmx::check::detail {

namespace {
constexpr const char* analysis_format = "lmx-check-analysis 2";

bool parse_phase(const std::string& name, Phase& out) {
  for (unsigned p = 0; p <= static_cast<unsigned>(Phase::counterexamples); ++p)
    if (to_string(static_cast<Phase>(p)) == name) {
      out = static_cast<Phase>(p);
      return true;
    }
  return false;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}
}  // namespace

AnalysisRecord read_analysis(const std::string& dir, const std::string& run, const Exploration& x) {
  const std::string path = dir + "/analysis";
  AnalysisRecord rec;
  rec.run = run;
  std::ifstream in(path, std::ios::binary);
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  const std::string head = std::string(analysis_format) + "\nrun " + run + "\n";
  if (!in || text.rfind(head, 0) != 0) return rec;  // none, of other options or another format
  auto corrupt = [&](const std::string& why) {
    return CheckpointError("check: the analysis recorded in " + path + " " + why +
                           ": delete it to decide the analysis again");
  };
  // The last line is the checksum of the bytes before it.
  const auto last = text.size() < 2 || text.back() != '\n' ? std::string::npos : text.rfind('\n', text.size() - 2);
  if (last == std::string::npos || last + 1 < head.size() ||
      text.compare(last + 1, std::string::npos,
                   "checksum " + hex16(checkpoint_checksum(text.data(), last + 1)) + "\n") != 0)
    throw corrupt("is corrupt (its checksum does not match its contents)");
  AnalysisRecord got;
  got.run = run;
  AnalysisRecord::Part* last_part = nullptr;
  const std::uint64_t n = x.set.size();
  const unsigned nodes = x.inst.nodes;
  std::istringstream lines(text.substr(head.size(), last + 1 - head.size()));
  std::string line;
  auto bad = [&] { return corrupt("has a malformed line: " + line); };
  while (std::getline(lines, line)) {
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
      if (u >= nodes || st >= n) throw bad();
      got.deadlocks.emplace_back(u, st);
    } else if (key == "phase") {
      double secs = 0;
      std::string name;
      words >> secs >> std::ws;
      std::getline(words, name);
      Phase phase{};
      if (!parse_phase(name, phase) || !(secs >= 0)) throw bad();
      got.phase_cpu_seconds.emplace_back(phase, secs);
    } else if (key == "seconds") {
      words >> got.seconds;
      if (!(got.seconds >= 0)) throw bad();
    } else if (key == "parts") {
      words >> got.parts;  // 0 until the parts are known
      if (got.parts > UINT8_MAX) throw bad();
    } else if (key == "part") {
      unsigned p = 0;
      std::string lifted;
      words >> p >> lifted;
      if (p >= got.parts || lifted != "lifted") throw bad();
      last_part = &got.parts_done[p];
      words >> last_part->lifted;
    } else if (key == "found") {
      Found f{};
      std::string hex;
      words >> f.stage >> f.node >> f.first_stored >> f.member >> f.members >> hex;
      if (last_part == nullptr || f.stage > 1 || f.node >= nodes || f.first_stored >= n ||
          hex.size() != 2 * sizeof(Global))
        throw bad();
      auto* bytes = reinterpret_cast<std::uint8_t*>(&f.at);
      for (std::size_t i = 0; i < sizeof(Global); ++i) {
        const int high = hex_digit(hex[2 * i]), low = hex_digit(hex[2 * i + 1]);
        if (high < 0 || low < 0) throw bad();
        bytes[i] = static_cast<std::uint8_t>(high << 4 | low);
      }
      if (!x.model.is_valid(f.at)) throw bad();
      last_part->found.push_back(f);
    } else {
      throw bad();
    }
    if (words.fail()) throw bad();
    std::string rest;
    if (key != "phase" && (words >> rest)) throw bad();  // nothing more on the line
  }
  return got;
}

void write_analysis(const std::string& dir, const AnalysisRecord& rec) {
  std::ostringstream out;
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
  std::string text = out.str();
  text += "checksum " + hex16(checkpoint_checksum(text.data(), text.size())) + "\n";
  try {
    FileSet(dir).write("analysis", text.data(), text.size());
  } catch (const std::runtime_error&) {
    // skipped: a later run decides again what this one could not record
  }
}

AnalysisLog::AnalysisLog(Exploration& x) : keep(x.resuming) {
  if (!keep) return;
  dir = x.opt.resume_dir;
  path = dir + "/analysis";
  const std::string run = checkpoint_identity(x.inst, x.opt, x.model) + " per_kind=" + std::to_string(x.opt.per_kind) +
                          " parts=" + (x.opt.split_parts ? "1" : "0");
  record = read_analysis(dir, run, x);
  auto& phases = x.res.phase_cpu_seconds;
  for (const auto& [recorded, secs] : record.phase_cpu_seconds) {
    const Phase phase = recorded;  // (a structured binding is not captured by every compiler's lambdas)
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
  write_analysis(dir, record);
}

}  // namespace lmx::check::detail
