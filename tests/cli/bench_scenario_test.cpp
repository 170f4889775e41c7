// `lmx bench --scenario [FILE]`: the main job as a benchmark. Its run must be the run `lmx run`
// makes of the same scenario (the same trace hash), or it would measure something else; its bad
// input is one error line and exit code 2. No timing is asserted: only that the figures are there.
#include <gtest/gtest.h>
#include <sched.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "lmx_test_support.hpp"

namespace lmx::test::bench_scenario_test {

using nlohmann::json;

/// `lmx ARGS --json`, which must exit 0, parsed.
json run_json(const std::string& args) {
  const auto r = run_lmx(args + " --json");
  EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.out;
  if (r.exit_code != 0) return json::object();
  return json::parse(r.out);
}

std::string quoted(const std::string& path) { return "'" + path + "'"; }

void expect_one_error_line(const Result& r, const std::string& part) {
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_EQ(line_count(r.out), 1u) << r.out;
  EXPECT_EQ(r.out.rfind("lmx: error: ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find(part), std::string::npos) << "expected '" << part << "' in: " << r.out;
}

// The built-in scenario scaled to n: the radius and speed of `lmx run --set nodes=n` (the default's
// scaled as 1/sqrt(n)), locks that complete, and the trace hash of that run.
TEST(BenchScenario, ScaledDefaultIsTheRunOfLmxRun) {
  const json b = run_json("bench --scenario --nodes 3000 --rounds 60 --seed 3");
  ASSERT_FALSE(b.empty());
  for (const char* key : {"scenario",
                          "scenario_file",
                          "nodes",
                          "seed",
                          "threads",
                          "engine",
                          "variant",
                          "topology",
                          "radius",
                          "speed",
                          "mean_degree_at_end",
                          "rounds",
                          "actions",
                          "actions_per_second",
                          "steady_from_round",
                          "steady_actions_per_second",
                          "locks_completed",
                          "locks_per_round",
                          "locks_per_second",
                          "steady_locks_per_second",
                          "bytes_per_node",
                          "bytes_per_node_by_part",
                          "peak_rss_bytes",
                          "peak_rss_bytes_per_node",
                          "setup_seconds",
                          "run_seconds",
                          "wall_seconds",
                          "properties",
                          "violation_counts",
                          "stalled",
                          "trace_hash"})
    EXPECT_TRUE(b.contains(key)) << key;
  EXPECT_TRUE(b["scenario_file"].is_null());
  EXPECT_EQ(b["nodes"], 3000);
  EXPECT_EQ(b["rounds"], 60);
  EXPECT_EQ(b["seed"], 3);
  EXPECT_EQ(b["engine"], "async");
  EXPECT_EQ(b["topology"], "mobility");
  EXPECT_NEAR(b["radius"].get<double>(), 0.045 * std::sqrt(1000.0 / 3000.0), 1e-12);
  EXPECT_NEAR(b["speed"].get<double>(), 0.004 * std::sqrt(1000.0 / 3000.0), 1e-12);
  EXPECT_GT(b["locks_completed"].get<std::uint64_t>(), 0u);
  EXPECT_GT(b["locks_per_second"].get<double>(), 0.0);
  EXPECT_GT(b["actions_per_second"].get<double>(), 0.0);
  EXPECT_GT(b["peak_rss_bytes"].get<std::uint64_t>(), 0u);
  EXPECT_GT(b["bytes_per_node"].get<double>(), 0.0);
  EXPECT_EQ(b["steady_from_round"], 30);
  EXPECT_EQ(b["stalled"], false);
  EXPECT_TRUE(b["violation_counts"].empty()) << b.dump();
  // The degree the scaling keeps: n·π·r² is about 6.4 at every n (the Delta cap and the square's
  // border take a little off; random waypoint gathers nodes in the middle and adds some).
  EXPECT_GT(b["mean_degree_at_end"].get<double>(), 5.0);
  EXPECT_LT(b["mean_degree_at_end"].get<double>(), 8.0);

  const json r = run_json("run --set nodes=3000 --set rounds=60 --seed 3");
  ASSERT_FALSE(r.empty());
  EXPECT_EQ(b["trace_hash"], r["trace_hash"]);
  EXPECT_EQ(b["actions"], r["actions"]);
  EXPECT_EQ(b["locks_completed"], r["locks_completed"]);
  EXPECT_EQ(b["bytes_per_node"], r["bytes_per_node"]);
  EXPECT_EQ(b["bytes_per_node_by_part"], r["bytes_per_node_by_part"]);
}

// Without --rounds the built-in scenario runs 100 rounds; the text form names every figure.
TEST(BenchScenario, TextNamesTheFiguresAndDefaultRoundsAreAHundred) {
  const auto t = run_lmx("bench --scenario --nodes 400");
  ASSERT_EQ(t.exit_code, 0) << t.out;
  for (const char* part : {"lmx bench --scenario: 'default' (built-in, scaled to --nodes), 400 nodes", "100 rounds",
                           "actions/s", "locks: ", "per second (wall)", "peak RSS", "bytes per node (peak RSS / nodes)",
                           "(engine's estimate)", "bytes per node by part: ", "channels 64.0", "trace hash "})
    EXPECT_NE(t.out.find(part), std::string::npos) << part << "\n" << t.out;
  const json r = run_json("run --set nodes=400 --set rounds=100");
  EXPECT_NE(t.out.find("trace hash " + r["trace_hash"].get<std::string>()), std::string::npos) << t.out;
}

// A scenario file runs as `lmx run FILE` runs it, with --nodes, --rounds and --seed as overrides.
TEST(BenchScenario, FileRunsAsLmxRunRunsIt) {
  ScratchDir dir("bench-scenario");
  const std::string file = dir.file("s.toml");
  write_file(file,
             "name = \"small\"\nnodes = 300\nrounds = 80\nengine = \"semi-sync\"\n"
             "[topology]\nkind = \"unit-disk\"\n[dynamics]\nkind = \"churn\"\n");
  const json b = run_json("bench --scenario " + quoted(file));
  ASSERT_FALSE(b.empty());
  EXPECT_EQ(b["scenario"], "small");
  EXPECT_EQ(b["scenario_file"], file);
  EXPECT_EQ(b["nodes"], 300);
  EXPECT_EQ(b["rounds"], 80);
  EXPECT_EQ(b["engine"], "semi-sync");
  EXPECT_EQ(b["topology"], "unit-disk");
  EXPECT_TRUE(b["speed"].is_null());
  EXPECT_EQ(b["trace_hash"], run_json("run " + quoted(file))["trace_hash"]);

  const json o = run_json("bench --scenario " + quoted(file) + " --nodes 500 --rounds 40 --seed 11");
  ASSERT_FALSE(o.empty());
  EXPECT_EQ(o["nodes"], 500);
  EXPECT_EQ(o["rounds"], 40);
  EXPECT_EQ(o["seed"], 11);
  EXPECT_EQ(o["trace_hash"],
            run_json("run " + quoted(file) + " --set nodes=500 --set rounds=40 --seed 11")["trace_hash"]);

  // A radius the file sets does not scale with --nodes; the text says so.
  const std::string fixed = dir.file("fixed.toml");
  write_file(fixed, "nodes = 200\nrounds = 10\n[topology]\nradius = 0.1\n");
  const auto t = run_lmx("bench --scenario " + quoted(fixed) + " --nodes 400");
  EXPECT_EQ(t.exit_code, 0) << t.out;
  EXPECT_NE(t.out.find("note: the scenario sets topology.radius"), std::string::npos) << t.out;
}

// Bad input: one `lmx: error:` line, exit code 2, as everywhere in the CLI.
TEST(BenchScenario, BadInputIsOneErrorLine) {
  ScratchDir dir("bench-scenario-bad");
  const std::string bad_toml = dir.file("bad.toml"), bad_key = dir.file("key.toml"), bad_range = dir.file("p.toml");
  write_file(bad_toml, "nodes = 3\n[topology\n");
  write_file(bad_key, "nodez = 3\n");
  write_file(bad_range, "[activation]\np = 2\n");
  expect_one_error_line(run_lmx("bench --scenario " + quoted(dir.file("missing.toml"))), "cannot read scenario file");
  expect_one_error_line(run_lmx("bench --scenario " + quoted(dir.path().string())), "is a directory");
  expect_one_error_line(run_lmx("bench --scenario " + quoted(bad_toml)), "not valid TOML");
  expect_one_error_line(run_lmx("bench --scenario " + quoted(bad_key)), "nodez");
  expect_one_error_line(run_lmx("bench --scenario " + quoted(bad_range)), "scenario key 'activation.p'");
  expect_one_error_line(run_lmx("bench --scenario --nodes 0"), "--nodes must be a whole number in 1..100000000");
  expect_one_error_line(run_lmx("bench --scenario --nodes 1e3"), "--nodes must be a whole number");
  expect_one_error_line(run_lmx("bench --scenario --rounds 0 --nodes 10"), "--rounds must be a whole number");
  expect_one_error_line(run_lmx("bench --scenario --rounds 3000000 --nodes 10"),
                        "scenario key 'rounds': must be in 1..2000000 for the async engine");
  expect_one_error_line(run_lmx("bench --scenario --nodes 10 --seed -1"), "--seed: expected a whole number");
  expect_one_error_line(run_lmx("bench --scenario --nodes 10 --p 0.3"), "--p does not apply to --scenario");
  expect_one_error_line(run_lmx("bench --scenario --nodes 10 --lock-rounds 5"),
                        "--lock-rounds does not apply to --scenario");
  expect_one_error_line(run_lmx("bench --scenario --nodes 10 --threads 0"),
                        "--threads must be 'auto' or a whole number in 1..64");
  expect_one_error_line(run_lmx("bench --threads 0"), "--threads must be 'auto' or a whole number in 1..64");
  expect_one_error_line(run_lmx("run --threads 65"), "--threads must be 'auto' or a whole number in 1..64, got '65'");
  expect_one_error_line(run_lmx("run --threads two"), "--threads must be 'auto' or a whole number in 1..64");
  expect_one_error_line(run_lmx("run --threads ''"), "--threads must be 'auto' or a whole number in 1..64");
  expect_one_error_line(run_lmx("run --threads 99999999999999999999"),
                        "--threads must be 'auto' or a whole number in 1..64");
}

// --threads (docs/simulator.md, "Threads"): lmx run and lmx bench --scenario give the run of one
// thread, with mobility planned ahead (5000 nodes: enough for it).
TEST(BenchScenario, ThreadsGiveTheSameRun) {
  const json one = run_json("run --set nodes=5000 --set rounds=20 --seed 5 --threads 1");
  const json two = run_json("run --set nodes=5000 --set rounds=20 --seed 5 --threads 2");
  const json bench = run_json("bench --scenario --nodes 5000 --rounds 20 --seed 5 --threads 2");
  ASSERT_FALSE(one.empty());
  ASSERT_FALSE(two.empty());
  ASSERT_FALSE(bench.empty());
  EXPECT_GT(one["locks_completed"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(two["trace_hash"], one["trace_hash"]);
  EXPECT_EQ(two["locks_completed"], one["locks_completed"]);
  EXPECT_EQ(bench["trace_hash"], one["trace_hash"]);
  EXPECT_EQ(bench["threads"], 2);
}

// The built-in benchmark (semi-synchronous, static graph) runs its rounds as a pipeline on two
// threads (docs/simulator.md, "Threads"): the same run as on one.
TEST(BenchScenario, TheBuiltInBenchmarkOnTwoThreadsIsTheSameRun) {
  const char* args = "bench --nodes 40000 --rounds 6 --lock-nodes 2 --lock-rounds 1 --seed 3";
  const json one = run_json(std::string(args) + " --threads 1");
  const json two = run_json(std::string(args) + " --threads 2");
  ASSERT_FALSE(one.empty());
  ASSERT_FALSE(two.empty());
  EXPECT_EQ(one["threads"], 1);
  EXPECT_EQ(two["threads"], 2);
  EXPECT_GT(one["actions"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(two["actions"], one["actions"]);
  EXPECT_EQ(two["deferred_writes"], one["deferred_writes"]);
  EXPECT_EQ(two["trace_hash"], one["trace_hash"]);
}

// --threads auto, lmx run's default: 2 threads where this process may use 2 CPUs (the most that
// help a run), else 1; the same run either way.
TEST(BenchScenario, AutoThreadsAreTheUsableCpusUpToTwo) {
  cpu_set_t set;
  CPU_ZERO(&set);
  ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  const unsigned expected = std::min(2, CPU_COUNT(&set));
  const json one = run_json("run --set nodes=5000 --set rounds=10 --seed 7 --threads 1");
  const json by_default = run_json("run --set nodes=5000 --set rounds=10 --seed 7");
  const json bench = run_json("bench --scenario --nodes 5000 --rounds 10 --seed 7 --threads auto");
  ASSERT_FALSE(one.empty());
  ASSERT_FALSE(by_default.empty());
  ASSERT_FALSE(bench.empty());
  EXPECT_EQ(bench["threads"], expected);
  EXPECT_EQ(by_default["threads"], expected);
  EXPECT_EQ(one["threads"], 1);
  EXPECT_EQ(by_default["trace_hash"], one["trace_hash"]);
  EXPECT_EQ(bench["trace_hash"], one["trace_hash"]);
}

}  // namespace lmx::test::bench_scenario_test
