// What the commands write: every write checked, never over an input, an interrupted run ended
// cleanly, a run that cannot fit refused before it starts (docs/run-format.md, docs/reliability.md).
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "lmx_test_support.hpp"

namespace {

using lmx::test::read_file;
using lmx::test::run_command;
using lmx::test::run_lmx;
using lmx::test::ScratchDir;
using lmx::test::write_file;
using nlohmann::json;

const std::string small = "--set nodes=20 --set rounds=20";

std::string lmx() { return std::string("'") + LMX_BINARY + "'"; }

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(Output, SummaryToAFullDiskFails) {
  for (const char* format : {"--json", ""}) {
    const auto r = run_command(lmx() + " run " + small + " " + format + " 2>&1 >/dev/full");
    EXPECT_NE(r.exit_code, 0) << format;
    EXPECT_TRUE(has(r.out, "cannot write to standard output")) << r.out;
  }
}

// Every command that prints, not only run: what sits in the output buffers is written at the
// end, and a failure there is an error too (they exited 0 before).
TEST(Output, EveryCommandsOutputToAFullDiskFails) {
  const std::string sweep = std::string("'") + LMX_SOURCE_DIR + "/examples/sweeps/smoke.toml'";
  for (const std::string& command :
       {std::string("info"), std::string("info --json"), std::string("demo"),
        std::string("bench --nodes 100 --rounds 2 --lock-nodes 10 --lock-rounds 10"),
        std::string("bench --nodes 100 --rounds 2 --lock-nodes 10 --lock-rounds 10 --json"),
        "sweep " + sweep + " --dry-run"}) {
    const auto r = run_command(lmx() + " " + command + " 2>&1 >/dev/full");
    EXPECT_EQ(r.exit_code, 2) << command << ": " << r.out;
    EXPECT_TRUE(has(r.out, "cannot write to standard output")) << command << ": " << r.out;
  }
}

// Bad usage exits 2 like all bad input (CLI11's own codes were 104..114), in one line; a first
// word that is no command is named.
TEST(Output, UsageErrorsExitTwoAndNameAnUnknownCommand) {
  for (const char* args :
       {"check --bogus", "check --nodes", "run --seed 1.5", "sweep x.toml -j 0", "run extra words"}) {
    const auto r = run_lmx(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.out;
    EXPECT_TRUE(has(r.out, "lmx: error: ")) << args << ": " << r.out;
  }
  const auto r = run_lmx("nosuchcmd");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(has(r.out, "unknown command 'nosuchcmd'")) << r.out;
  EXPECT_TRUE(has(r.out, "run")) << r.out;
}

// --seed is a whole number in 0..2^64-1 for every command (docs/scenarios.md, "Seeds"): nothing
// wraps onto another seed (lmx run and lmx pp run took -1 as 2^64-1 and 0x10 as 16).
TEST(Output, SeedsOutOfRangeOrInAnotherFormAreErrors) {
  for (const char* seed : {"-1", "18446744073709551616", "+5", "0x10", "''", "1.5"})
    for (const std::string& command :
         {std::string("run --set nodes=20 --set rounds=2"), std::string("pp run epidemic --set agents=100"),
          std::string("bench --scenario --nodes 20 --rounds 2")}) {
      const auto r = run_lmx(command + " --seed " + seed);
      EXPECT_EQ(r.exit_code, 2) << command << " --seed " << seed << ": " << r.out;
      EXPECT_TRUE(has(r.out, "--seed")) << command << " --seed " << seed << ": " << r.out;
    }
  const auto r = run_lmx("run --set nodes=20 --set rounds=2 --seed 18446744073709551615 --json");
  EXPECT_EQ(r.exit_code, 0) << r.out;
}

// A tiny radius is valid (few or no edges): its cell grid is sized by the nodes, not by 1/r^2
// cells (10^12 for r = 10^-6, which the memory check refused and which failed to allocate).
TEST(Output, ATinyRadiusRunsInLittleMemory) {
  for (const char* args : {"--set topology.radius=1e-6", "--set topology.radius=5e-5",
                           "--set topology.kind=unit-disk --set topology.radius=0"}) {
    const auto r = run_lmx(std::string("run --set nodes=20 --set rounds=5 --json ") + args);
    ASSERT_EQ(r.exit_code, 0) << args << ": " << r.out;
    const json j = json::parse(r.out);
    EXPECT_LT(j["peak_rss_bytes"].get<double>(), 200e6) << args;
  }
}

TEST(Output, TraceToAFullDiskFails) {
  const auto r = run_lmx("run " + small + " --trace /dev/full");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(has(r.out, "cannot write /dev/full")) << r.out;
}

TEST(Output, TraceIsWrittenWholeAndLeavesNoTemporaryFile) {
  ScratchDir dir("lmx-output-trace");
  const auto r = run_lmx("run " + small + " --trace " + dir.file("t.jsonl"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& f : std::filesystem::directory_iterator(dir.path())) ++files;
  EXPECT_EQ(files, 1u);
  EXPECT_EQ(run_lmx("replay " + dir.file("t.jsonl")).exit_code, 0);
}

TEST(Output, OutputsNeverOverwriteInputs) {
  ScratchDir dir("lmx-output-inputs");
  const std::string scenario = dir.file("s.toml"), edges = dir.file("g.edges");
  write_file(edges, "0 1\n1 2\n");
  write_file(scenario, "nodes = 3\ndelta = 2\nrounds = 10\n[topology]\nkind = \"edges\"\nfile = \"g.edges\"\n");
  const std::string before = read_file(scenario), edges_before = read_file(edges);
  for (const std::string& args : {"run " + scenario + " --trace " + scenario, "run " + scenario + " --trace " + edges,
                                  "run " + scenario + " --report " + scenario}) {
    const auto r = run_lmx(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.out;
    EXPECT_TRUE(has(r.out, "is one of the command's inputs")) << r.out;
  }
  EXPECT_EQ(read_file(scenario), before);
  EXPECT_EQ(read_file(edges), edges_before);
}

TEST(Output, ARunThatCannotFitIsRefusedBeforeItStarts) {
  // about 140 GiB: more than a test machine has (a smaller run could start on a big one)
  const auto r = run_lmx("run --set nodes=100000000 --set rounds=1 --set delta=63 --set topology.kind=regular");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(has(r.out, "needs about")) << r.out;
  EXPECT_TRUE(has(r.out, "GiB")) << r.out;
  EXPECT_TRUE(has(r.out, "--no-memory-check")) << r.out;
}

// Ctrl-C ends a run cleanly: exit 130, the summary so far marked interrupted, a trace that says so
// and replays to the same interruption. (The run is far longer than the time before the signal.)
TEST(Output, InterruptEndsARunCleanly) {
  ScratchDir dir("lmx-output-interrupt");
  const std::string trace = dir.file("t.jsonl");
  // SIGINT once the run is under way: its trace's temporary file exists (written after the
  // handler is installed); the run is far longer than any machine takes to get there.
  const std::string summary_file = dir.file("summary.json");
  const auto r = run_command("(" + lmx() + " run --set nodes=2000 --set rounds=2000000 --json --trace " + trace +
                             " > " + summary_file + " 2>/dev/null & pid=$!; until ls " + trace +
                             ".tmp-* >/dev/null 2>&1; do kill -0 $pid 2>/dev/null || break; sleep 0.05; done; kill "
                             "-INT $pid; wait $pid; echo \"exit $?\")");
  EXPECT_TRUE(has(r.out, "exit 130")) << r.out;
  const json summary = json::parse(read_file(summary_file));
  EXPECT_TRUE(summary["interrupted"].get<bool>());
  EXPECT_LT(summary["rounds"].get<std::uint64_t>(), 2000000u);
  const std::string text = read_file(trace);
  ASSERT_FALSE(text.empty());
  const auto last = text.rfind('\n', text.size() - 2);
  const json end = json::parse(text.substr(last + 1));
  EXPECT_EQ(end["ev"], "end");
  EXPECT_EQ(end["interrupted"], true);
  const auto again = run_lmx("replay " + trace);
  EXPECT_EQ(again.exit_code, 0) << again.out;
  EXPECT_TRUE(has(again.out, "same trace")) << again.out;
}

TEST(Replay, AnEditedTraceIsFoundAtItsLine) {
  ScratchDir dir("lmx-output-replay");
  const std::string trace = dir.file("t.jsonl");
  ASSERT_EQ(run_lmx("run " + small + " --trace " + trace).exit_code, 0);
  std::string text = read_file(trace);
  std::size_t at = 0;
  for (int line = 1; line < 30; ++line) at = text.find('\n', at) + 1;  // the start of line 30
  text.insert(text.find('}', at), ",\"edited\":true");
  write_file(trace, text);
  const auto r = run_lmx("replay " + trace);
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_TRUE(has(r.out, "line 30 differs")) << r.out;
  EXPECT_FALSE(has(r.out, "written by")) << "same version: no note\n" << r.out;
}

// A trace of another lmx version that no longer replays says so (a run may differ between versions,
// as geometric scenarios' node numbers did in 0.2.0).
TEST(Replay, ATraceOfAnotherVersionThatDiffersSaysWhichVersions) {
  ScratchDir dir("lmx-output-replay-version");
  const std::string trace = dir.file("t.jsonl");
  ASSERT_EQ(run_lmx("run " + small + " --trace " + trace).exit_code, 0);
  std::string text = read_file(trace);
  const std::string version = json::parse(text.substr(0, text.find('\n')))["lmx_version"].get<std::string>();
  const std::string current = "\"lmx_version\":\"" + version + "\"";
  const auto at = text.find(current);
  ASSERT_NE(at, std::string::npos) << text.substr(0, 200);
  text.replace(at, current.size(), "\"lmx_version\":\"0.0.9\"");
  write_file(trace, text);
  const auto r = run_lmx("replay " + trace);
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_TRUE(has(r.out, "line 1 differs")) << r.out;
  EXPECT_TRUE(has(r.out, "written by lmx 0.0.9, this is lmx " + version)) << r.out;
}

class Report : public ::testing::Test {
 protected:
  ScratchDir dir{"lmx-output-report"};
  std::string run_json = dir.file("run.json"), trace = dir.file("t.jsonl");
  void SetUp() override {
    const auto r = run_command(lmx() + " run " + small + " --json --trace " + trace + " > " + run_json);
    ASSERT_EQ(r.exit_code, 0) << r.out;
  }
};

TEST_F(Report, OutputEqualToAnInputIsRefused) {
  const std::string before = read_file(run_json);
  for (const std::string& out : {run_json, trace}) {
    const auto r = run_lmx("report " + run_json + " --trace " + trace + " -o " + out);
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_TRUE(has(r.out, "is one of the command's inputs")) << r.out;
  }
  EXPECT_EQ(read_file(run_json), before);
}

TEST_F(Report, ATraceOfAnotherRunIsRefused) {
  const std::string other = dir.file("other.jsonl");
  ASSERT_EQ(run_lmx("run " + small + " --seed 2 --trace " + other).exit_code, 0);
  const auto r = run_lmx("report " + run_json + " --trace " + other + " -o " + dir.file("r.html"));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(has(r.out, "is the trace of another run")) << r.out;
  EXPECT_FALSE(std::filesystem::exists(dir.file("r.html")));
}

TEST_F(Report, ASummaryWithWrongTypesIsRefused) {
  json run = json::parse(read_file(run_json));
  run["locks_completed"] = "many";
  write_file(run_json, run.dump());
  const auto r = run_lmx("report " + run_json + " -o " + dir.file("r.html"));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(has(r.out, "\"locks_completed\" must be an unsigned integer")) << r.out;
}

TEST_F(Report, MemoryFiguresAreOptionalButTypedWhenGiven) {
  // A summary derived from a trace (the report's own fixtures) cannot know the memory figures.
  json run = json::parse(read_file(run_json));
  run["bits_per_node"] = nullptr;
  write_file(run_json, run.dump());
  EXPECT_EQ(run_lmx("report " + run_json + " -o " + dir.file("r.html")).exit_code, 0);
  run["bits_per_node"] = json{{"layout", "wide"}, {"paper", 99}};
  write_file(run_json, run.dump());
  const auto r = run_lmx("report " + run_json + " -o " + dir.file("r2.html"));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(has(r.out, "\"bits_per_node\" must be an object with numbers")) << r.out;
}

TEST_F(Report, AChangedTraceIsRefused) {
  std::string text = read_file(trace);
  const auto at = text.find("\"ev\":\"act\"");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 10, "\"ev\":\"act\",\"x\":0");
  write_file(trace, text);
  const auto r = run_lmx("report " + run_json + " --trace " + trace + " -o " + dir.file("r.html"));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(has(r.out, "the trace was changed")) << r.out;
}

// A node number that no integer type holds is an error at its line (found by report_run_fuzz: it
// was converted to a 64-bit integer, undefined behaviour).
TEST_F(Report, ANodeNumberOutOfRangeIsAnErrorAtItsLine) {
  std::string text = read_file(trace);
  const auto call = text.find("\"ev\":\"call\"");
  ASSERT_NE(call, std::string::npos);
  const auto node = text.find("\"node\":", call);
  text.replace(node, text.find_first_of(",}", node) - node, "\"node\":5.5e115");
  write_file(trace, text);
  const auto r = run_lmx("report " + run_json + " --trace " + trace + " -o " + dir.file("r.html"));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(has(r.out, "\"node\" must be an integer in 0..4294967295, got 5.5e+115")) << r.out;
  EXPECT_FALSE(std::filesystem::exists(dir.file("r.html")));
}

}  // namespace
