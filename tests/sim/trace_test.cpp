// Traces are self-contained: a trace's header alone re-runs the scenario (lmx replay).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "lmx/sim/simulation.hpp"

namespace lmx::sim {
namespace {

using nlohmann::json;

/// What `lmx replay` does: rebuild the scenario from the header, re-run it, and compare hashes.
void expect_replays(const std::string& trace) {
  std::istringstream in(trace);
  std::string header_line, line, last;
  ASSERT_TRUE(std::getline(in, header_line));
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  const json header = json::parse(header_line), end = json::parse(last);
  ASSERT_EQ(end["ev"], "end");
  const Scenario again = scenario_from_json(header.at("scenario"));
  RunOptions o;
  o.hash_lines = true;
  const json r = run(again, o);
  EXPECT_EQ(r["line_hash"], end["hash"]);
  EXPECT_EQ(r["trace_hash"], end["event_hash"]);
}

TEST(Trace, EdgeFileIsInlinedSoReplayDoesNotNeedIt) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "lmx_trace_test_edge_file";
  std::filesystem::create_directories(dir);
  const std::filesystem::path file = dir / "ring.edges";
  {
    std::ofstream out(file);
    out << "# a ring of 6 and one chord\n";
    for (int u = 0; u < 6; ++u) out << u << " " << (u + 1) % 6 << "\n";
  }
  Scenario s;
  s.nodes = 6, s.delta = 3, s.rounds = 80, s.engine = "semi-sync";
  s.topology.kind = "edges", s.topology.file = file.string();
  s.topology.edges = {{0, 3}};  // inline edges are added after the file's
  std::ostringstream trace;
  RunOptions o;
  o.trace = &trace;
  const json r = run(s, o);
  EXPECT_GT(r["locks_completed"].get<std::uint64_t>(), 0u);
  std::filesystem::remove_all(dir);
  ASSERT_FALSE(std::filesystem::exists(file));

  const json header = json::parse(trace.str().substr(0, trace.str().find('\n')));
  EXPECT_EQ(header["scenario"]["topology"]["file"], "");
  EXPECT_EQ(header["scenario"]["topology"]["edges"].size(), 7u);
  expect_replays(trace.str());
}

TEST(Trace, GeneratedTopologiesReplayFromTheHeader) {
  Scenario s;
  s.nodes = 40, s.rounds = 40, s.topology.kind = "regular", s.delta = 4;
  std::ostringstream trace;
  RunOptions o;
  o.trace = &trace;
  run(s, o);
  expect_replays(trace.str());
}

}  // namespace
}  // namespace lmx::sim
