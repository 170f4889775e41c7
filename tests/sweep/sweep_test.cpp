// Sweep files: grid expansion (lists, ranges, seeds), base scenarios and every validation error.
#include "lmx/sweep/sweep.hpp"

#include <gtest/gtest.h>

#include <set>

#include "scratch.hpp"

namespace {

using lmx::sweep::expand;
using lmx::sweep::parse_sweep;
using lmx::sweep::SweepError;
using lmx::sweep::testing::Scratch;
using nlohmann::json;

lmx::sweep::Sweep parse(const std::string& text) { return parse_sweep(text, "s.toml"); }

std::vector<json> values(const std::string& grid_line) {
  const auto s = parse("name = \"s\"\nseeds = 1\n[grid]\n" + grid_line + "\n");
  EXPECT_EQ(s.axes.size(), 1u);
  return s.axes.empty() ? std::vector<json>{} : s.axes[0].values;
}

TEST(Grid, ListsKeepTheirOrderAndTypes) {
  EXPECT_EQ(values("k = [8, 2, 4]"), (std::vector<json>{8, 2, 4}));
  EXPECT_EQ(values("engine = [\"async\", \"semi-sync\"]"), (std::vector<json>{"async", "semi-sync"}));
  EXPECT_EQ(values("workload.participation = [0.01, 0.5]"), (std::vector<json>{0.01, 0.5}));
}

TEST(Grid, ArithmeticRangesIncludeTheEnd) {
  EXPECT_EQ(values("delta = {from = 2, to = 6}"), (std::vector<json>{2, 3, 4, 5, 6}));
  EXPECT_EQ(values("delta = {from = 2, to = 7, step = 2}"), (std::vector<json>{2, 4, 6}));
  const auto v = values("workload.participation = {from = 0.1, to = 0.5, step = 0.1}");
  ASSERT_EQ(v.size(), 5u);
  EXPECT_TRUE(v[2].is_number_float());
  EXPECT_EQ(v[2].get<double>(), 0.3);  // not 0.30000000000000004
  EXPECT_EQ(v[4].get<double>(), 0.5);
  EXPECT_EQ(values("k = {from = 3, to = 3}"), (std::vector<json>{3}));
}

TEST(Grid, GeometricRanges) {
  EXPECT_EQ(values("nodes = {from = 1000, to = 100000, times = 10}"), (std::vector<json>{1000, 10000, 100000}));
  EXPECT_EQ(values("k = {from = 2, to = 32, times = 2}"), (std::vector<json>{2, 4, 8, 16, 32}));
  EXPECT_EQ(values("k = {from = 2, to = 20, times = 2}"), (std::vector<json>{2, 4, 8, 16}));
  const auto v = values("activation.p = {from = 0.01, to = 1.0, times = 10.0}");
  EXPECT_EQ(v, (std::vector<json>{0.01, 0.1, 1.0}));
}

TEST(Grid, SeedsAsCountListOrRange) {
  EXPECT_EQ(parse("name = \"s\"\nseeds = 3").seeds, (std::vector<std::uint64_t>{1, 2, 3}));
  EXPECT_EQ(parse("name = \"s\"\nseeds = [7, 3, 100]").seeds, (std::vector<std::uint64_t>{7, 3, 100}));
  EXPECT_EQ(parse("name = \"s\"\nseeds = {from = 10, to = 16, step = 3}").seeds,
            (std::vector<std::uint64_t>{10, 13, 16}));
}

TEST(Grid, AxesFollowTheFileAndDottedKeysEqualNestedTables) {
  const auto s = parse(R"(name = "s"
seeds = 1
[grid]
k = [2, 4]
delta = [4, 8]
topology.kind = ["ring", "regular"]
[grid.workload]
idle = [1, 2]
)");
  ASSERT_EQ(s.axes.size(), 4u);
  EXPECT_EQ(s.axes[0].key, "k");
  EXPECT_EQ(s.axes[1].key, "delta");
  EXPECT_EQ(s.axes[2].key, "topology.kind");
  EXPECT_EQ(s.axes[3].key, "workload.idle");
  EXPECT_EQ(s.grid_size(), 16u);
}

TEST(Grid, ExpansionIsGridMajorWithSeedsInnermost) {
  const auto s = parse(R"(name = "s"
seeds = [5, 6]
[scenario]
nodes = 20
[grid]
delta = [2, 4]
k = [2, 3, 4]
topology.kind = ["ring"]
)");
  const auto points = expand(s);
  ASSERT_EQ(points.size(), 2u * 3u * 1u * 2u);
  EXPECT_EQ(points[0].grid, (json{{"delta", 2}, {"k", 2}, {"topology.kind", "ring"}}));
  EXPECT_EQ(points[0].seed, 5u);
  EXPECT_EQ(points[1].seed, 6u);
  EXPECT_EQ(points[2].grid["k"], 3);  // the last axis varies fastest
  EXPECT_EQ(points[6].grid["delta"], 4);
  EXPECT_EQ(points[6].grid_index, 3u);
  // the scenario holds the base, the grid values and the seed
  EXPECT_EQ(points[7].scenario.nodes, 20u);
  EXPECT_EQ(points[7].scenario.delta, 4u);
  EXPECT_EQ(points[7].scenario.k, 2u);
  EXPECT_EQ(points[7].scenario.topology.kind, lmx::sim::TopologyKind::ring);
  EXPECT_EQ(points[7].scenario.seed, 6u);
  // keys are canonical and unique
  std::set<std::string> keys;
  for (const auto& p : points) keys.insert(p.key);
  EXPECT_EQ(keys.size(), points.size());
  EXPECT_EQ(points[0].key, R"({"grid":{"delta":2,"k":2,"topology.kind":"ring"},"seed":5})");
  EXPECT_EQ(points[0].describe(), R"({delta = 2, k = 2, topology.kind = "ring"} seed 5)");
}

TEST(Grid, NoGridIsOnePointPerSeed) {
  const auto points = expand(parse("name = \"s\"\nseeds = 4\n[scenario]\nnodes = 10\n"));
  ASSERT_EQ(points.size(), 4u);
  EXPECT_EQ(points[3].key, R"({"grid":{},"seed":4})");
}

TEST(Base, FileThenInlineScenarioThenGrid) {
  Scratch dir;
  dir.write("base.toml", "name = \"b\"\nnodes = 77\ndelta = 6\nk = 3\n[workload]\nidle = 9\nhold = 5\n");
  dir.write("s.toml", R"(name = "s"
base = "base.toml"
seeds = 1
[scenario]
k = 5
workload.hold = 1
[grid]
delta = [4]
)");
  const auto s = lmx::sweep::load_sweep(dir / "s.toml");
  const auto p = expand(s).at(0);
  EXPECT_EQ(p.scenario.name, "b");
  EXPECT_EQ(p.scenario.nodes, 77u);
  EXPECT_EQ(p.scenario.k, 5u);      // [scenario] over the file
  EXPECT_EQ(p.scenario.delta, 4u);  // the grid over both
  EXPECT_EQ(p.scenario.workload.idle, 9.0);
  EXPECT_EQ(p.scenario.workload.hold, 1.0);
  const auto inputs = s.inputs();
  ASSERT_EQ(inputs.size(), 2u);
  EXPECT_EQ(std::filesystem::weakly_canonical(inputs[1]), std::filesystem::weakly_canonical(dir / "base.toml"));
}

TEST(Base, HashFollowsTheScenarioNotItsFormatting) {
  const std::string head = "name = \"s\"\nseeds = 2\n";
  const auto a = parse(head + "[scenario]\nnodes = 10\nk = 3\n");
  const auto b = parse(head + "# a comment\n[scenario]\nk = 3\nnodes   = 10\n");
  const auto c = parse(head + "[scenario]\nnodes = 11\nk = 3\n");
  const auto d = parse(head + "[scenario]\nnodes = 10\nk = 3\n[grid]\ndelta = [2, 3]\n");
  EXPECT_EQ(a.base_hash.size(), 16u);
  EXPECT_EQ(a.base_hash, b.base_hash);
  EXPECT_NE(a.base_hash, c.base_hash);
  EXPECT_EQ(a.base_hash, d.base_hash);  // the grid is not the base
}

TEST(Base, EdgeFileNamedInlineIsFoundBesideTheSweep) {
  Scratch dir;
  dir.write("ring.edges", "0 1\n1 2\n2 0\n");
  dir.write("s.toml",
            "name = \"s\"\nseeds = 1\n[scenario]\nnodes = 3\ndelta = 2\ntopology.kind = \"edges\"\n"
            "topology.file = \"ring.edges\"\n");
  const auto s = lmx::sweep::load_sweep(dir / "s.toml");
  const auto p = expand(s).at(0);
  EXPECT_EQ(std::filesystem::path(p.scenario.topology.file), (dir / "ring.edges").lexically_normal());
  EXPECT_EQ(s.inputs().size(), 2u);
}

// Every bad sweep file is one line naming the file and the problem.
struct Bad {
  std::string text;
  std::string message;
};

class BadSweep : public ::testing::TestWithParam<Bad> {};

TEST_P(BadSweep, IsOneClearLine) {
  try {
    expand(parse(GetParam().text));
    FAIL() << "accepted: " << GetParam().text;
  } catch (const SweepError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(GetParam().message), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    EXPECT_EQ(what.rfind("s.toml", 0), 0u) << what;
  }
}

const std::string ok = "name = \"s\"\nseeds = 2\n";
INSTANTIATE_TEST_SUITE_P(
    Validation, BadSweep,
    ::testing::Values(
        Bad{"seeds = 1", "missing 'name'"}, Bad{"name = 3\nseeds = 1", "'name' must be a string"},
        Bad{"name = \"a-b\"\nseeds = 1", "not an identifier"}, Bad{"name = \"9a\"\nseeds = 1", "not an identifier"},
        Bad{"name = \"sqlite_x\"\nseeds = 1", "not an identifier"}, Bad{"name = \"s\"", "missing 'seeds'"},
        Bad{"name = \"s\"\nseeds = 0", "seed count must be in 1.."},
        Bad{"name = \"s\"\nseeds = []", "seeds: the list is empty"},
        Bad{"name = \"s\"\nseeds = [1, 2, 1]", "seed 1 appears twice"},
        Bad{"name = \"s\"\nseeds = [1, -2]", "a seed is a non-negative integer"},
        Bad{"name = \"s\"\nseeds = \"x\"", "seeds: expected a count, a list or a range"},
        Bad{ok + "colour = 1", "unknown key 'colour'"}, Bad{ok + "[grid]\nk = []", "grid key 'k': the list is empty"},
        Bad{ok + "[grid]\nk = [2, 4, 2]", "grid key 'k': value 2 appears twice"},
        Bad{ok + "[grid]\nactivation.p = [0.5, 0.50]", "value 0.5 appears twice"},
        Bad{ok + "[grid]\nk = 4", "expected a list of values or a range"},
        Bad{ok + "[grid]\nk = {from = 8, to = 2}", "range 'from' 8 is above 'to' 2"},
        Bad{ok + "[grid]\nk = {from = 2, to = 8, step = 0}", "'step' must be above 0"},
        Bad{ok + "[grid]\nk = {from = 2, to = 8, step = -1}", "'step' must be above 0"},
        Bad{ok + "[grid]\nk = {from = 2}", "a range needs 'from' and 'to'"},
        Bad{ok + "[grid]\nk = {from = 2, to = 8, by = 2}", "unknown range key 'by'"},
        Bad{ok + "[grid]\nk = {from = 2, to = 8, step = 2, times = 2}", "'step' or 'times', not both"},
        Bad{ok + "[grid]\nk = {from = 2, to = 8, times = 1}", "'times' must be above 1"},
        Bad{ok + "[grid]\nk = {from = 0, to = 8, times = 2}", "geometric range needs 'from' above 0"},
        Bad{ok + "[grid]\nk = {from = \"a\", to = 8}", "range 'from' must be a number"},
        Bad{ok + "[grid]\nnodes = {from = 1, to = 1000000000}", "more than 100000 values"},
        Bad{ok + "[grid]\nseed = [1, 2]", "grid key 'seed': seeds are given by 'seeds'"},
        Bad{ok + "[grid]\nk = [2]\n\"k\" = [3]", "cannot redefine existing"},
        Bad{ok + "[grid]\ntopology.kind = [\"ring\"]\n\"topology.kind\" = [\"grid\"]", "'topology.kind': given twice"},
        Bad{ok + "[grid]\ncolour = [1, 2]", "point {colour = 1} seed 1: scenario key 'colour': unknown key"},
        Bad{ok + "[grid]\nk = [2, 40]", "point {k = 40} seed 1: scenario key 'k': K must be in 2..32"},
        Bad{ok + "[grid]\ndelta = [2, 8]\ntopology.degree = [4]",
            "point {delta = 2, topology.degree = 4} seed 1: scenario key 'topology.degree'"},
        Bad{ok + "[scenario]\nseed = 3", "scenario.seed: seeds are given by 'seeds'"},
        Bad{ok + "[scenario]\nnodes = \"many\"", "scenario key 'nodes': expected an integer"},
        Bad{ok + "base = \"missing.toml\"", "base: cannot read scenario file"},
        Bad{ok + "[grid\nk = [1]", "s.toml:3:"}));

TEST(Validation, UnreadableSweepFile) { EXPECT_THROW(lmx::sweep::load_sweep("/nonexistent/s.toml"), SweepError); }

}  // namespace
