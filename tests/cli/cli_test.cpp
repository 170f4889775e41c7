// End-to-end tests of the `lmx` tool: the binary is run as a user would run it.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "lmx_test_support.hpp"

namespace {

using lmx::test::line_count;
using lmx::test::Result;
using lmx::test::run_lmx;

TEST(Info, JsonHasTheDocumentedKeys) {
  const auto r = run_lmx("info --json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  for (const char* key : {"version", "variants", "k_range", "delta_range", "message_bits", "register_widths"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["variants"], (nlohmann::json{"paper", "repaired", "fast"}));
  EXPECT_EQ(j["default_variant"], "repaired");
  EXPECT_EQ(j["default_scenario_variant"], "fast");
  EXPECT_EQ(j["message_bits"], 8);  // P6: one byte per message
  ASSERT_FALSE(j["register_widths"].empty());
  for (const auto& w : j["register_widths"])
    for (const char* key : {"register_bits", "delta_max", "node_state_bytes"}) EXPECT_TRUE(w.contains(key)) << key;
}

TEST(Info, NodeStateFitsTheMemoryBudget) {  // P5
  const auto j = nlohmann::json::parse(run_lmx("info --json").out);
  bool saw15 = false, saw63 = false;
  for (const auto& w : j["register_widths"]) {
    const auto delta_max = w["delta_max"].get<unsigned>();
    const auto bytes = w["node_state_bytes"].get<unsigned>();
    if (delta_max == 15) {
      EXPECT_LE(bytes, 32u);
      saw15 = true;
    }
    if (delta_max == 63) {
      EXPECT_LE(bytes, 128u);
      saw63 = true;
    }
  }
  EXPECT_TRUE(saw15);
  EXPECT_TRUE(saw63);
}

TEST(Demo, BothRequestsSucceedOnEachVariant) {
  for (const char* variant : {"paper", "repaired"}) {
    const auto r = run_lmx(std::string("demo --variant ") + variant);
    EXPECT_EQ(r.exit_code, 0) << r.out;
    EXPECT_NE(r.out.find("both requests succeeded"), std::string::npos) << r.out;
  }
}

TEST(Errors, UnknownVariantIsOneLineAndNonZero) {
  const auto r = run_lmx("demo --variant nope");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(line_count(r.out), 1u) << r.out;
  EXPECT_NE(r.out.find("nope"), std::string::npos) << r.out;
}

TEST(Errors, UnknownSubcommandIsOneLineAndNonZero) {
  const auto r = run_lmx("frobnicate");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(line_count(r.out), 1u) << r.out;
}

TEST(Errors, HelpStillPrintsTheUsage) {
  const auto r = run_lmx("--help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("demo"), std::string::npos) << r.out;
}

}  // namespace

TEST(Check, WriteCreatesTheDirectoryAndFillsIt) {
  const std::string dir = ::testing::TempDir() + "lmx-cli-write/nested";
  const auto r = run_lmx("check --variant paper --nodes 2 --edges 0-1 --delta 1 --k 2 --locks 1 --write '" + dir + "'");
  EXPECT_EQ(r.exit_code, 1) << r.out;  // the paper variant fails (errata E2)
  // Every violation line names its file ("... -> DIR/N-KIND.jsonl"); each must exist and be a trace.
  std::size_t files = 0;
  for (std::size_t at = r.out.find(" -> "); at != std::string::npos; at = r.out.find(" -> ", at + 1)) {
    const std::string path = r.out.substr(at + 4, r.out.find('\n', at) - at - 4);
    EXPECT_EQ(path.rfind(dir + "/", 0), 0u) << path;
    FILE* f = std::fopen(path.c_str(), "r");
    ASSERT_NE(f, nullptr) << path;
    std::array<char, 32> head{};
    EXPECT_NE(std::fgets(head.data(), static_cast<int>(head.size()), f), nullptr) << path;
    EXPECT_EQ(head[0], '{') << path;
    std::fclose(f);
    ++files;
  }
  EXPECT_GE(files, 2u) << r.out;  // deadlock and P7
}

TEST(Check, WriteIntoAFileIsAClearError) {
  const std::string file = ::testing::TempDir() + "lmx-cli-write-file";
  std::fclose(std::fopen(file.c_str(), "w"));
  const auto r = run_lmx("check --nodes 2 --edges 0-1 --write '" + file + "'");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.out.find("--write: cannot use"), std::string::npos) << r.out;
  EXPECT_EQ(line_count(r.out), 1u) << r.out;
}

// --locks takes 1..15 or "unbounded"; anything else is one clear error line.
TEST(Check, LocksTakeACountOrUnbounded) {
  const auto r =
      run_lmx("check --variant repaired --nodes 2 --edges 0-1 --delta 1 --k 2 --locks unbounded --max-changes 1");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("locks=unbounded"), std::string::npos) << r.out;
  for (const char* bad : {"0", "16", "two", "1.5"}) {
    const auto e = run_lmx(std::string("check --nodes 2 --edges 0-1 --locks ") + bad);
    EXPECT_NE(e.exit_code, 0) << bad;
    EXPECT_NE(e.out.find("--locks must be 1..15 or unbounded"), std::string::npos) << e.out;
    EXPECT_EQ(line_count(e.out), 1u) << e.out;
  }
}

// --max-seconds bounds a sweep's time: a run it stops says so and exits 3 (incomplete); a
// negative value is one clear error line.
TEST(Check, MaxSecondsStopsARunAsIncomplete) {
  const auto r = run_lmx("check --nodes 3 --edges 0-1,1-2 --delta 2 --k 3 --locks 2 --max-changes 2 --max-seconds 0.5");
  EXPECT_EQ(r.exit_code, 3) << r.out;
  EXPECT_NE(r.out.find("verdict: incomplete (stopped by --max-seconds)"), std::string::npos) << r.out;
  const auto bad = run_lmx("check --nodes 2 --edges 0-1 --max-seconds -1");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.out.find("--max-seconds must be"), std::string::npos) << bad.out;
  EXPECT_EQ(line_count(bad.out), 1u) << bad.out;
}

// `lmx bench --json` has the keys the simulator issue names; --immediate-writes runs the same
// simulation (same actions and trace hash) without deferring a single write.
TEST(Bench, JsonKeysAndImmediateWritesRunTheSameSimulation) {
  // More nodes than one block of the scan (2^14), or nothing is deferred.
  const auto deferred = run_lmx("bench --nodes 40000 --rounds 4 --json --lock-nodes 200 --lock-rounds 400");
  const auto immediate =
      run_lmx("bench --nodes 40000 --rounds 4 --json --immediate-writes --lock-nodes 200 --lock-rounds 400");
  ASSERT_EQ(deferred.exit_code, 0) << deferred.out;
  ASSERT_EQ(immediate.exit_code, 0) << immediate.out;
  const auto d = nlohmann::json::parse(deferred.out), i = nlohmann::json::parse(immediate.out);
  for (const char* key :
       {"nodes", "actions", "actions_per_second", "bytes_per_node", "peak_rss_bytes", "core_only_actions_per_second",
        "ratio_to_core_only", "deferred_writes", "trace_hash", "steady_from_round", "steady_actions_per_second"})
    EXPECT_TRUE(d.contains(key)) << key;
  EXPECT_EQ(d["nodes"], 40000);
  EXPECT_EQ(d["steady_from_round"], 2);
  EXPECT_GT(d["steady_actions_per_second"].get<double>(), 0.0);
  EXPECT_GT(d["actions"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(d["actions"], i["actions"]);
  EXPECT_EQ(d["trace_hash"], i["trace_hash"]);
  EXPECT_GT(d["deferred_writes"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(i["deferred_writes"], 0);
  EXPECT_LE(d["bytes_per_node"].get<double>(), 200.0);
  // The deferred writes' lists are counted apart, and only a run that defers holds them.
  EXPECT_GT(d["bytes_per_node_by_part"]["deferred_writes"].get<double>(), 0.0);
  EXPECT_LT(i["bytes_per_node_by_part"]["deferred_writes"].get<double>(),
            d["bytes_per_node_by_part"]["deferred_writes"].get<double>());
  EXPECT_EQ(d["bytes_per_node_by_part"]["channels"].get<double>(), 64.0);  // one line a node
  // The lock workload measures locks, once per variant, and its locks complete.
  const auto& locks = d["lock_workload"];
  EXPECT_EQ(locks["nodes"], 200);
  ASSERT_EQ(locks["runs"].size(), 2u);
  EXPECT_EQ(locks["runs"][0]["variant"], "repaired");
  EXPECT_EQ(locks["runs"][1]["variant"], "fast");
  for (const auto& run : locks["runs"]) {
    EXPECT_GT(run["locks_completed"].get<std::uint64_t>(), 0u) << run.dump();
    EXPECT_GT(run["locks_per_second"].get<double>(), 0.0) << run.dump();
    EXPECT_GT(run["throughput_over_bound"].get<double>(), 0.0) << run.dump();
    EXPECT_LE(run["throughput_over_bound"].get<double>(), 1.0) << run.dump();
    EXPECT_EQ(run["properties"]["P1"], "pass") << run.dump();
  }
  const auto bad = run_lmx("bench --nodes 100 --rounds 2 --lock-nodes 1");
  EXPECT_EQ(bad.exit_code, 2) << bad.out;
  EXPECT_NE(bad.out.find("--lock-nodes must be a whole number in 2..1000000"), std::string::npos) << bad.out;
}

// --progress-every writes whole progress lines, terminal or not: one per phase at least.
TEST(Check, ProgressEveryWritesALineAtEachPhase) {
  const std::string args = "check --variant paper --nodes 2 --edges 0-1 --delta 1 --k 2 --locks 1 --max-changes 1";
  const auto quiet = run_lmx(args);
  EXPECT_EQ(quiet.out.find("check: exploring"), std::string::npos) << "no status line off a terminal";
  const auto logged = run_lmx(args + " --progress-every 1000");
  EXPECT_EQ(logged.exit_code, 1) << logged.out;
  // One line per phase within the interval, and per part in the analysis (two parts: the edge
  // with its move left, and no edge).
  std::map<std::string, unsigned> lines;
  std::istringstream in(logged.out);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("check: ", 0) == 0) {
      const auto part = line.find(", part ");
      ++lines[line.substr(7, line.find(',') - 7) +
              (part == std::string::npos ? "" : line.substr(part, line.find(',', part + 1) - part))];
    }
  EXPECT_EQ(lines, (std::map<std::string, unsigned>{{"exploring", 1},
                                                    {"deadlock", 1},
                                                    {"splitting", 1},
                                                    {"end components, part 1 of 2", 1},
                                                    {"rebuilding, part 1 of 2", 1},
                                                    {"deciding, part 1 of 2", 1},
                                                    {"end components, part 2 of 2", 1},
                                                    {"counterexamples", 1}}))
      << logged.out;
  const auto bad = run_lmx(args + " --progress-every -1");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.out.find("--progress-every must be 0 (off) or more"), std::string::npos) << bad.out;
}

// The decomposition into end components, which takes hours on the largest graphs, says which
// round it is in and how many states it decomposes: each round no more than the one before.
TEST(Check, ProgressGivesTheRoundsOfTheDecomposition) {
  const auto r = run_lmx(
      "check --variant paper --nodes 2 --edges 0-1 --delta 1 --k 2 --locks 2 --max-changes 2 --progress-every "
      "0.000001");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  std::uint64_t before = UINT64_MAX;
  unsigned rounds = 0, parts = 0, most = 0;
  std::string part;  // each part's decomposition counts its own rounds
  for (std::size_t at = r.out.find("check: end components, "); at != std::string::npos;
       at = r.out.find("check: end components, ", at + 1)) {
    const std::string line = r.out.substr(at, r.out.find('\n', at) - at);
    const auto part_at = line.find(", part ");
    ASSERT_NE(part_at, std::string::npos) << line;
    if (line.substr(part_at, line.find(',', part_at + 1) - part_at) != part) {
      part = line.substr(part_at, line.find(',', part_at + 1) - part_at);
      ++parts, rounds = 0, before = UINT64_MAX;
    }
    const auto round = line.find(", round ");
    if (round == std::string::npos) continue;  // the part's first line, before the first round
    most = std::max(most, ++rounds);
    EXPECT_EQ(std::stoul(line.substr(round + 8)), rounds) << line;
    const std::uint64_t decomposing = std::stoull(line.substr(line.find(": ", round) + 2));
    EXPECT_LE(decomposing, before) << line;
    before = decomposing;
  }
  EXPECT_EQ(parts, 3u) << r.out;  // the edge with 2 moves left, no edge with 1, the edge with none
  EXPECT_GE(most, 2u) << r.out;
}

// A flag that changes how the run stores what it explores, not what it finds: the same verdict,
// states, transitions, rebuilt states and violations (their traces included) as without it.
nlohmann::json expect_flag_finds_the_same(const std::string& flag) {
  const std::string args =
      "check --variant paper --nodes 2 --edges 0-1 --delta 1 --k 2 --locks 1 --max-changes 1 --json";
  const auto a = run_lmx(args);
  const auto b = run_lmx(args + " " + flag);
  EXPECT_EQ(a.exit_code, 1) << a.out;
  EXPECT_EQ(b.exit_code, 1) << b.out;
  const auto ja = nlohmann::json::parse(a.out), jb = nlohmann::json::parse(b.out);
  for (const char* key : {"verdict", "states", "transitions", "lifted_states", "violations"})
    EXPECT_EQ(ja.at(key), jb.at(key)) << key;
  EXPECT_FALSE(ja.at("violations").empty());
  return nlohmann::json::array({ja, jb});
}

// --graph-on-disk changes where the liveness graph lives.
TEST(Check, GraphOnDiskFindsTheSame) { expect_flag_finds_the_same("--graph-on-disk"); }

// --no-collapse stores the node records in each state instead of their numbers: more bytes per
// state, and no records numbered.
TEST(Check, NoCollapseFindsTheSame) {
  const auto both = expect_flag_finds_the_same("--no-collapse");
  EXPECT_GT(both[0].at("node_records").get<std::uint64_t>(), 0u);
  EXPECT_EQ(both[1].at("node_records").get<std::uint64_t>(), 0u);
  EXPECT_GT(both[1].at("bytes_per_state").get<std::uint64_t>(), both[0].at("bytes_per_state").get<std::uint64_t>());
}

// --no-parts decides the end components on the whole graph at once, not part by part.
TEST(Check, NoPartsFindsTheSame) {
  const auto both = expect_flag_finds_the_same("--no-parts");
  EXPECT_EQ(both[0].at("analysis_parts").get<unsigned>(), 2u);  // the edge, and no edge
  EXPECT_EQ(both[1].at("analysis_parts").get<unsigned>(), 1u);
}

// --save stops after the exploration (exit 3, limit "saved", a text line that says how to go on);
// --resume, in another process, finds what one run finds. Bad combinations and a missing
// checkpoint are usage errors, said before any exploration.
TEST(Check, SaveThenResumeFindsWhatOneRunFinds) {
  const std::string dir = ::testing::TempDir() + "lmx-cli-checkpoint";
  std::filesystem::remove_all(dir);
  const std::string args = "check --variant paper --nodes 2 --edges 0-1 --delta 1 --k 2 --locks 1 --max-changes 1";
  const auto one = run_lmx(args + " --json");
  const auto saved = run_lmx(args + " --save " + dir);
  EXPECT_EQ(saved.exit_code, 3) << saved.out;
  EXPECT_NE(saved.out.find("exploration saved in " + dir + ": decide it with --resume"), std::string::npos)
      << saved.out;
  const auto resumed = run_lmx(args + " --json --resume " + dir);
  EXPECT_EQ(resumed.exit_code, 1) << resumed.out;
  const auto ja = nlohmann::json::parse(one.out), jb = nlohmann::json::parse(resumed.out);
  for (const char* key : {"verdict", "states", "transitions", "max_depth", "lifted_states", "violations"})
    EXPECT_EQ(ja.at(key), jb.at(key)) << key;
  EXPECT_FALSE(jb.at("violations").empty());

  const auto other = run_lmx("check --nodes 2 --edges 0-1 --delta 1 --k 2 --locks 1 --max-changes 1 --resume " + dir);
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_NE(other.out.find("of another run"), std::string::npos) << other.out;
  const auto both = run_lmx(args + " --save " + dir + " --resume " + dir);
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.out.find("not both"), std::string::npos) << both.out;
  const auto safety = run_lmx(args + " --safety-only --save " + dir);
  EXPECT_EQ(safety.exit_code, 2);
  EXPECT_NE(safety.out.find("not with --safety-only"), std::string::npos) << safety.out;
  const auto missing = run_lmx(args + " --resume " + dir + "/nothing-here");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.out.find("no saved exploration"), std::string::npos) << missing.out;
  std::filesystem::remove_all(dir);
}

namespace readme {

/// The lines of README.md's example output of the default run (the block that starts with
/// "lmx run: scenario 'default'").
std::vector<std::string> readme_default_run() {
  std::ifstream in(std::string(LMX_SOURCE_DIR) + "/README.md");
  std::vector<std::string> lines;
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (!inside && line.starts_with("lmx run: scenario 'default'")) inside = true;
    if (inside && line.starts_with("```")) break;
    if (inside) lines.push_back(line);
  }
  return lines;
}
/// `line` without what depends on the machine: the thread count of the header, and of the last
/// line everything but the trace hash.
std::string machine_free(const std::string& line) {
  if (line.starts_with("lmx run: ")) return line.substr(0, line.rfind(", "));
  if (const auto at = line.find("trace hash "); at != std::string::npos) return line.substr(at);
  return line;
}

// The README shows a newcomer what `lmx run` prints: every figure of the run, and its trace hash,
// must be what the binary prints now (a change of trace must update the README with it).
TEST(Readme, TheDefaultRunPrintsWhatTheReadmeShows) {
  const std::vector<std::string> shown = readme_default_run();
  ASSERT_GE(shown.size(), 10u) << "README.md has no example output of the default run";
  for (const char* threads : {"1", "2"}) {
    const auto r = run_lmx(std::string("run --threads ") + threads);
    ASSERT_EQ(r.exit_code, 0) << r.out;
    std::istringstream out(r.out);
    std::vector<std::string> printed;
    for (std::string line; std::getline(out, line);) printed.push_back(line);
    ASSERT_EQ(printed.size(), shown.size()) << r.out;
    for (std::size_t i = 0; i < shown.size(); ++i)
      EXPECT_EQ(machine_free(printed[i]), machine_free(shown[i])) << threads << " thread(s), line " << i + 1;
  }
}

}  // namespace readme
