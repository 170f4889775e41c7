// `lmx pp` end to end: every shipped protocol under every scheduler, bad input as one error line
// and exit 2, the history file, and the isolation monitor's verdict in the exit code.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "lmx_test_support.hpp"

#ifdef LMX_BINARY
namespace {

using lmx::test::run_lmx;
using nlohmann::json;

TEST(PpCli, EveryShippedProtocolRunsUnderEveryScheduler) {
  const auto list = run_lmx("pp list --json");
  ASSERT_EQ(list.exit_code, 0) << list.out;
  const json protocols = json::parse(list.out);
  ASSERT_GE(protocols.size(), 6u);
  for (const auto& p : protocols) {
    const std::string name = p["name"];
    for (const char* scheduler : {"sequential", "sequential-graph", "lock-neighbourhood", "lock-pair"}) {
      // Small populations and short runs: this checks that each combination runs and reports, not
      // how the protocol converges (docs/population.md measures that).
      const bool graph = std::string(scheduler) != "sequential";
      const auto r = run_lmx("pp run " + name + " --scheduler " + scheduler + " --set agents=40 --set max_time=3" +
                             (graph ? " --set topology.kind=regular --set delta=4" : "") + " --seed 2 --json");
      ASSERT_EQ(r.exit_code, 0) << name << " " << scheduler << ": " << r.out;
      const json j = json::parse(r.out);
      EXPECT_EQ(j["protocol"], name);
      EXPECT_EQ(j["scheduler"], scheduler);
      EXPECT_EQ(j["agents"], 40);
      EXPECT_TRUE(j["violations"].empty()) << name << " " << scheduler;
    }
  }
}

TEST(PpCli, BadInputIsOneErrorLineAndExitTwo) {
  lmx::test::ScratchDir dir("pp-cli");
  const std::string bad = dir.file("bad.toml");
  lmx::test::write_file(bad, "states = [\"A\", \"B\"]\nrules = [\"A, Q -> A, A\"]\n[initial]\nA = 1.0\n");
  const std::string not_toml = dir.file("not.toml");
  lmx::test::write_file(not_toml, "states = [\n");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"pp run " + bad, "unknown state 'Q'"},
      {"pp run " + not_toml, "not valid TOML"},
      {"pp run no-such-protocol", "no such protocol file, nor a shipped protocol"},
      {"pp run epidemic --scheduler lottery", "unknown scheduler 'lottery'"},
      {"pp run epidemic --set agents=1", "--set agents: expected an integer"},
      {"pp run epidemic --set nodes=10", "the population size is 'agents'"},
      {"pp run epidemic --set max_time=-1", "max_time"},
      {"pp run epidemic --set topology.kind=ring", "need --scheduler sequential-graph"},
      {"pp run epidemic --scheduler lock-pair --set topology.kind=moon", "topology.kind"},
      {"pp run epidemic --scheduler lock-pair --set workload.idle=3", "the protocol calls Lock and Unlock itself"},
      {"pp run epidemic --trace " + dir.file("t.jsonl"), "writes no trace"},
      {"pp run epidemic --scheduler lock-pair --set interactions_per_round=2", "only the sequential-graph scheduler"},
  };
  for (const auto& [args, expected] : cases) {
    const auto r = run_lmx(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.out;
    EXPECT_NE(r.out.find(expected), std::string::npos) << args << ": " << r.out;
    EXPECT_EQ(lmx::test::line_count(r.out), 1u) << args << ": " << r.out;
  }
  // An output is never written over the protocol it is made from.
  const auto same = run_lmx("pp run " + bad + " --history " + bad);
  EXPECT_EQ(same.exit_code, 2);
  EXPECT_EQ(lmx::test::read_file(bad).rfind("states", 0), 0u);
}

TEST(PpCli, ReportAndTraceOfAGraphRunAndWhatReplaySaysOfThem) {
  lmx::test::ScratchDir dir("pp-report");
  const std::string trace = dir.file("t.jsonl"), report = dir.file("r.html");
  const auto r = run_lmx(
      "pp run epidemic --scheduler lock-pair --set agents=30 --set delta=4 --set topology.kind=regular "
      "--trace " +
      trace + " --report " + report);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string html = lmx::test::read_file(report);
  EXPECT_NE(html.find("\"population\""), std::string::npos) << "the report carries the population figures";
  const std::string lines = lmx::test::read_file(trace);
  EXPECT_NE(lines.find("{\"ev\":\"agents\""), std::string::npos);
  EXPECT_NE(lines.find("{\"ev\":\"interact\""), std::string::npos);
  const auto replay = run_lmx("replay " + trace);
  EXPECT_EQ(replay.exit_code, 2);
  EXPECT_NE(replay.out.find("a population-protocol trace"), std::string::npos) << replay.out;
  const auto sequential = run_lmx("pp run epidemic --report " + dir.file("s.html"));
  EXPECT_EQ(sequential.exit_code, 2);
  EXPECT_NE(sequential.out.find("--history"), std::string::npos) << sequential.out;
}

TEST(PpCli, HistoryIsACsvOfCountsThatSumToTheAgents) {
  lmx::test::ScratchDir dir("pp-history");
  const std::string csv = dir.file("h.csv");
  const auto r = run_lmx("pp run approximate-majority --set agents=500 --history " + csv + " --set history_every=0.5");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  std::istringstream in(lmx::test::read_file(csv));
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "parallel_time,interactions,round,x,y,b");
  int rows = 0;
  while (std::getline(in, line)) {
    ++rows;
    std::istringstream fields(line);
    std::string f;
    std::vector<std::string> v;
    while (std::getline(fields, f, ',')) v.push_back(f);
    ASSERT_EQ(v.size(), 6u) << line;
    EXPECT_EQ(std::stoull(v[3]) + std::stoull(v[4]) + std::stoull(v[5]), 500u) << line;
  }
  EXPECT_GE(rows, 3);
}

}  // namespace
#endif
