// Traces are self-contained: a trace's header alone re-runs the scenario (lmx replay).
#include "lmx/trace/trace.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "lmx/sim/replay.hpp"
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
  s.nodes = 6, s.delta = 3, s.rounds = 80, s.engine = lmx::sim::EngineKind::semi_sync;
  s.topology.kind = lmx::sim::TopologyKind::edges, s.topology.file = file.string();
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
  s.nodes = 40, s.rounds = 40, s.topology.kind = lmx::sim::TopologyKind::regular, s.delta = 4;
  std::ostringstream trace;
  RunOptions o;
  o.trace = &trace;
  run(s, o);
  expect_replays(trace.str());
}

}  // namespace
}  // namespace lmx::sim

namespace lmx::sim {
namespace {

std::string small_trace(const std::string& engine) {
  Scenario s;
  s.nodes = 12, s.delta = 3, s.rounds = 30, s.engine = kind_from_word<EngineKind>(engine).value(),
  s.topology.kind = lmx::sim::TopologyKind::regular;
  std::ostringstream trace;
  RunOptions o;
  o.trace = &trace;
  run(s, o);
  return trace.str();
}
std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}
std::string join_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}
ReplayReport replay_text(const std::string& text) {
  std::istringstream in(text);
  return replay_run(in, "trace");
}

TEST(Replay, AnUntouchedTraceIsTheSame) {
  for (const char* engine : {"semi-sync", "async"}) {
    const std::string trace = small_trace(engine);
    const auto r = replay_text(trace);
    EXPECT_TRUE(r.same) << engine << ": line " << r.first_difference << "\n" << r.expected << "\n" << r.got;
    EXPECT_EQ(r.lines, split_lines(trace).size());
  }
}

/// Every kind of edit is found, at its line.
TEST(Replay, EveryEditIsFoundAtItsLine) {
  const auto lines = split_lines(small_trace("async"));
  ASSERT_GT(lines.size(), 100u);
  const std::size_t at = 60;  // 0-based: file line 61
  struct Edit {
    const char* what;
    std::vector<std::string> lines;
    std::uint64_t line;  // the first line that must differ
  };
  std::vector<Edit> edits;
  {
    auto e = lines;
    e[at].insert(e[at].size() - 1, ",\"x\":1");
    edits.push_back({"a changed event", e, at + 1});
  }
  {
    auto e = lines;
    e.erase(e.begin() + static_cast<std::ptrdiff_t>(at));
    edits.push_back({"a removed event", e, at + 1});
  }
  {
    auto e = lines;
    e.insert(e.begin() + static_cast<std::ptrdiff_t>(at), e[at]);
    edits.push_back({"a duplicated event", e, at + 2});
  }
  {
    auto e = lines;
    std::swap(e[at], e[at + 1]);
    edits.push_back({"two events swapped", e, at + 1});
  }
  {
    auto e = lines;
    e[at][e[at].size() / 2] = '\0';
    edits.push_back({"a NUL byte", e, at + 1});
  }
  {
    auto e = lines;
    const auto seed = e[0].find("\"seed\":1,");
    ASSERT_NE(seed, std::string::npos);
    e[0].replace(seed, 9, "\"seed\":2,");
    edits.push_back({"the header's seed", e, 1});
  }
  {
    auto e = lines;
    e.push_back("{\"ev\":\"note\"}");
    edits.push_back({"a line after the end", e, lines.size() + 1});
  }
  {
    auto e = lines;
    e.pop_back();
    edits.push_back({"the end line removed", e, lines.size()});
  }
  for (const auto& edit : edits) {
    const auto r = replay_text(join_lines(edit.lines));
    EXPECT_FALSE(r.same) << edit.what;
    EXPECT_EQ(r.first_difference, edit.line) << edit.what;
  }
}

TEST(Replay, AMalformedHeaderIsAClearError) {
  EXPECT_THROW(replay_text(""), trace::Error);
  EXPECT_THROW(replay_text("{\"type\":\"other\"}\n"), trace::Error);
  EXPECT_THROW(replay_text("{\"type\":\"lmx-trace\",\"schema\":99,\"source\":\"run\"}\n"), trace::Error);
  EXPECT_THROW(replay_text("{\"type\":\"lmx-trace\",\"schema\":1,\"source\":\"run\",\"scenario\":{\"nodes\":-1}}\n"),
               ScenarioError);
}

TEST(Trace, MalformedJsonIsNamedWithLineAndColumn) {
  std::istringstream in("{\"type\":\"lmx-trace\",\"schema\":1,\"source\":\"run\"}\n{\"ev\":\n");
  trace::Reader reader(in, "t.jsonl");
  trace::Line line;
  try {
    reader.next(line);
    FAIL() << "a cut line was read";
  } catch (const trace::Error& e) {
    EXPECT_EQ(e.line, 2u);
    EXPECT_NE(std::string(e.what()).find("t.jsonl line 2: malformed JSON at column 7: unexpected end of input"),
              std::string::npos)
        << e.what();
  }
}

/// The library's excerpt of a malformed line escapes C0 controls but not DEL: the error escapes it
/// too, so that no input byte reaches the terminal raw (found by report_run_fuzz).
TEST(Trace, AMalformedLinesErrorIsPrintable) {
  std::istringstream in("{\"type\":\"lmx-trace\",\"bound\x7f:8}\n");
  try {
    trace::Reader reader(in, "t.jsonl");
    FAIL() << "a malformed header was read";
  } catch (const trace::Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("<U+007F>"), std::string::npos) << what;
    for (const char c : what) EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20 || c == 0x7F) << what;
  }
}

// A value from the input quoted in an error is escaped and cut short: DEL as \u007f (found by
// trace_reader_fuzz: an unknown schema holding a DEL byte reached the terminal raw).
TEST(Trace, AValueQuotedInAnErrorIsPrintableAndShort) {
  std::istringstream in("{\"type\":\"lmx-trace\",\"schema\":{\"name\":\"a\x7f" + std::string(200, 'x') + "\"}}\n");
  try {
    trace::Reader reader(in, "t.jsonl");
    FAIL() << "a header with an unknown schema was read";
  } catch (const trace::Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("unknown trace schema {\"name\":\"a\\u007fxxx"), std::string::npos) << what;
    EXPECT_LT(what.size(), 200u) << what;
    for (const char c : what) EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20 || c == 0x7F) << what;
  }
}

// A number too large for a double is not a parse error to the JSON library but out_of_range
// (found by trace_reader_fuzz, which then stopped on the uncaught exception): one clear error.
TEST(Trace, ANumberTooLargeForADoubleIsAMalformedLine) {
  std::istringstream header("{\"type\":\"lmx-trace\",\"schema\":2.0e37109375}\n");
  EXPECT_THROW(trace::Reader(header, "t.jsonl"), trace::Error);
  try {
    std::istringstream in("{\"type\":\"lmx-trace\",\"schema\":2.0e37109375}\n");
    trace::Reader reader(in, "t.jsonl");
  } catch (const trace::Error& e) {
    EXPECT_NE(std::string(e.what()).find("line 1: the header is malformed JSON: number overflow"), std::string::npos)
        << e.what();
  }
}

/// The asynchronous engine's act and idle lines carry each execution's end: an independent reader
/// checks from the trace alone that a node's executions never overlap and that every node acts.
TEST(Trace, AsyncExecutionsAreIntervalsThatNeverOverlap) {
  const auto lines = split_lines(small_trace("async"));
  std::map<std::uint64_t, std::vector<std::pair<double, double>>> executions;
  std::size_t idle = 0;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const json e = json::parse(lines[i]);
    if (e["ev"] != "act" && e["ev"] != "idle") continue;
    idle += e["ev"] == "idle";
    ASSERT_TRUE(e.contains("end")) << lines[i];
    const double start = e["round"].get<double>(), end = e["end"].get<double>();
    EXPECT_GT(end, start) << lines[i];
    EXPECT_LE(end - start, 1.0) << lines[i];
    executions[e["node"].get<std::uint64_t>()].emplace_back(start, end);
  }
  EXPECT_GT(idle, 0u);
  ASSERT_EQ(executions.size(), 12u);  // every node executes
  for (auto& [node, list] : executions) {
    std::sort(list.begin(), list.end());
    for (std::size_t i = 1; i < list.size(); ++i) EXPECT_LT(list[i - 1].second, list[i].first) << "node " << node;
  }
}

/// Every violation is written to the trace; the summary keeps the first 200 with excerpts.
TEST(Trace, EveryViolationIsTraced) {
  Scenario s;
  s.nodes = 400, s.delta = 6, s.k = 2, s.engine = lmx::sim::EngineKind::semi_sync, s.rounds = 400, s.horizon = 50;
  s.topology.kind = lmx::sim::TopologyKind::regular, s.workload.idle = 0, s.workload.hold = 0;
  std::ostringstream trace;
  RunOptions o;
  o.trace = &trace;
  const json r = run(s, o);
  const auto count = r["violation_counts"].value("P7", std::uint64_t{0});
  ASSERT_GT(count, 200u);
  EXPECT_EQ(r["violations"].size(), 200u);
  std::uint64_t traced = 0;
  for (const auto& line : split_lines(trace.str())) traced += line.find("\"ev\":\"violation\"") != std::string::npos;
  EXPECT_EQ(traced, count);
}

/// An interrupted run's summary and trace say so, and the trace replays to its interruption.
TEST(Trace, AnInterruptedRunSaysSoAndReplays) {
  Scenario s;
  s.nodes = 30, s.delta = 4, s.rounds = 400, s.topology.kind = lmx::sim::TopologyKind::regular;
  std::ostringstream trace;
  std::atomic<bool> stop{false};
  RunOptions o;
  o.trace = &trace;
  o.stop = &stop;
  o.progress = [&stop](double fraction) {
    if (fraction >= 0.25) stop = true;
  };
  const json r = run(s, o);
  EXPECT_TRUE(r["interrupted"].get<bool>());
  EXPECT_LT(r["rounds"].get<std::uint64_t>(), 400u);
  const auto lines = split_lines(trace.str());
  const json end = json::parse(lines.back());
  EXPECT_EQ(end["ev"], "end");
  EXPECT_EQ(end["interrupted"], true);
  EXPECT_EQ(end["rounds"], r["rounds"]);
  const auto again = replay_text(trace.str());
  EXPECT_TRUE(again.same) << again.first_difference << "\n" << again.expected << "\n" << again.got;
  EXPECT_TRUE(again.summary["interrupted"].get<bool>());
}

/// Interrupted before its first round (Ctrl-C while the graph was being built): the replay stops
/// there too, rather than reading "0 rounds" as "no limit" and running on.
TEST(Trace, ARunInterruptedBeforeItsFirstRoundReplays) {
  Scenario s;
  s.nodes = 30, s.delta = 4, s.rounds = 400, s.topology.kind = lmx::sim::TopologyKind::regular;
  std::ostringstream trace;
  const std::atomic<bool> stop{true};
  RunOptions o;
  o.trace = &trace;
  o.stop = &stop;
  const json r = run(s, o);
  EXPECT_TRUE(r["interrupted"].get<bool>());
  EXPECT_EQ(r["rounds"].get<std::uint64_t>(), 0u);
  const auto again = replay_text(trace.str());
  EXPECT_TRUE(again.same) << again.first_difference << "\n" << again.expected << "\n" << again.got;
  EXPECT_EQ(again.summary["rounds"].get<std::uint64_t>(), 0u);
}

}  // namespace
}  // namespace lmx::sim
