// Sweep files: grid expansion (lists, ranges, seeds), base scenarios and every validation error;
// population sweeps ([pp]): their points, their base hash and their errors.
#include "lmx/sweep/sweep.hpp"

#include <gtest/gtest.h>

#include <atomic>
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
        Bad{ok + "[grid]\nnodes = {from = 1, to = 1001}\nrounds = {from = 1, to = 1000}", "more than 1000000 points"},
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

// ------------------------------------------------------------------ population sweeps ([pp])

using lmx::apps::pp::SchedulerKind;

const std::string pp_head = "name = \"p\"\nseeds = 2\n[pp]\nprotocol = \"exact-majority\"\n";

TEST(PopulationGrid, PopulationKeysAreTheRunsAndTheOthersTheGraphs) {
  const auto s = parse(pp_head + R"(agents = 21
max_time = 500
[scenario]
delta = 4
[grid]
scheduler = ["sequential-graph", "lock-pair"]
topology.kind = ["regular", "mobility"]
agents = [21, 31]
)");
  ASSERT_TRUE(s.population);
  EXPECT_EQ(s.population->protocol, "exact-majority");
  EXPECT_TRUE(s.population->protocol_file.empty());  // shipped
  ASSERT_TRUE(s.population->loaded);
  EXPECT_EQ(s.population->loaded->name, "exact-majority");
  EXPECT_EQ(s.population->keys, (json{{"agents", 21}, {"max_time", 500}}));
  const auto points = expand(s);
  ASSERT_EQ(points.size(), 2u * 2u * 2u * 2u);
  const auto& p = points[3];  // sequential-graph, regular, 31 agents, seed 2
  EXPECT_EQ(p.grid, (json{{"agents", 31}, {"scheduler", "sequential-graph"}, {"topology.kind", "regular"}}));
  EXPECT_EQ(p.seed, 2u);
  ASSERT_TRUE(p.population);
  EXPECT_EQ(p.population->scheduler, SchedulerKind::sequential_graph);
  EXPECT_EQ(p.population->agents, 31u);  // the grid over [pp]
  EXPECT_EQ(p.population->max_time, 500.0);
  EXPECT_EQ(p.population->interactions_per_round, 1.0);  // lmx pp run's default
  EXPECT_EQ(p.population->protocol, s.population->loaded);
  // the graph: as many nodes as agents, a long run, the point's seed
  EXPECT_EQ(p.scenario.nodes, 31u);
  EXPECT_EQ(p.scenario.delta, 4u);
  EXPECT_EQ(p.scenario.topology.kind, lmx::sim::TopologyKind::regular);
  EXPECT_EQ(p.scenario.rounds, 1000000u);
  EXPECT_EQ(p.scenario.seed, 2u);
  EXPECT_EQ(points.back().population->scheduler, SchedulerKind::lock_pair);
  EXPECT_EQ(points.back().scenario.topology.kind, lmx::sim::TopologyKind::mobility);
  // the run's configuration is lmx pp run's for the same settings
  std::atomic<bool> stop{false};
  const auto c = p.population->config(p.scenario, p.seed, &stop);
  EXPECT_EQ(c.scheduler, SchedulerKind::sequential_graph);
  EXPECT_EQ(c.agents, 31u);
  EXPECT_EQ(c.seed, 2u);
  EXPECT_EQ(c.scenario.nodes, 31u);
  EXPECT_EQ(c.history_every, 0.0);
  EXPECT_EQ(c.stop, &stop);
  EXPECT_EQ(c.trace, nullptr);
}

TEST(PopulationGrid, TheSequentialSchedulerAndTheProtocolsDefaults) {
  const auto s = parse(pp_head + "[grid]\nmax_time = [10, 20.5]\n");
  const auto points = expand(s);
  ASSERT_EQ(points.size(), 4u);
  for (const auto& p : points) {
    ASSERT_TRUE(p.population);
    EXPECT_EQ(p.population->scheduler, SchedulerKind::sequential);  // lmx pp run's default
    EXPECT_EQ(p.population->agents, 1001u);                         // the protocol file's
  }
  EXPECT_EQ(points[2].population->max_time, 20.5);
  EXPECT_EQ(points[2].key, R"({"grid":{"max_time":20.5},"seed":1})");
  // a sweep of scenarios has no population
  EXPECT_FALSE(parse("name = \"s\"\nseeds = 1\n").population);
  EXPECT_FALSE(expand(parse("name = \"s\"\nseeds = 1\n"))[0].population);
}

TEST(PopulationGrid, AProtocolFileIsFoundBesideTheSweepAndIsAnInput) {
  Scratch dir;
  std::filesystem::create_directories(dir / "protocols");
  dir.write("protocols/flip.toml",
            "states = [\"a\", \"b\"]\nagents = 10\nstop = \"consensus\"\nrules = [\"a, b -> a, a\"]\n"
            "[initial]\na = 0.5\nb = 0.5\n");
  dir.write("graph.toml", "nodes = 5000\ndelta = 3\ntopology.kind = \"ring\"\n");
  dir.write("s.toml", R"(name = "s"
base = "graph.toml"
seeds = 1
[pp]
protocol = "protocols/flip.toml"
scheduler = "lock-neighbourhood"
)");
  const auto s = lmx::sweep::load_sweep(dir / "s.toml");
  ASSERT_TRUE(s.population);
  EXPECT_EQ(s.population->loaded->name, "flip");
  const auto inputs = s.inputs();
  ASSERT_EQ(inputs.size(), 3u);  // the sweep, its base scenario, the protocol
  EXPECT_EQ(std::filesystem::weakly_canonical(inputs[2]),
            std::filesystem::weakly_canonical(dir / "protocols/flip.toml"));
  const auto p = expand(s).at(0);
  EXPECT_EQ(p.scenario.nodes, 10u);  // the base file's nodes give way to the agents
  EXPECT_EQ(p.scenario.delta, 3u);
  EXPECT_EQ(p.scenario.topology.kind, lmx::sim::TopologyKind::ring);
}

TEST(PopulationGrid, TheBaseHashCoversTheProtocolAndPpButNotTheGrid) {
  Scratch dir;
  const std::string protocol =
      "states = [\"a\", \"b\"]\nagents = 10\nstop = \"consensus\"\nrules = [\"a, b -> a, a\"]\n[initial]\na = 0.5\n"
      "b = 0.5\n";
  dir.write("flip.toml", protocol);
  const std::string head = "name = \"s\"\nseeds = 1\n[pp]\nprotocol = \"flip.toml\"\n";
  auto hash = [&](const std::string& text) {
    dir.write("s.toml", text);
    return lmx::sweep::load_sweep(dir / "s.toml").base_hash;
  };
  const auto a = hash(head);
  EXPECT_EQ(a.size(), 16u);
  EXPECT_EQ(hash(head + "[grid]\nagents = [10, 20]\n"), a);  // the grid is not the base
  EXPECT_NE(hash(head + "agents = 20\n"), a);                // [pp] is
  EXPECT_NE(hash(head + "scheduler = \"lock-pair\"\n"), a);  // the scheduler too
  EXPECT_NE(hash("name = \"s\"\nseeds = 1\n[pp]\nprotocol = \"exact-majority\"\n"), a);
  dir.write("flip.toml", "# a comment\n" + protocol);  // formatting is not content
  EXPECT_EQ(hash(head), a);
  dir.write("flip.toml", "symmetric = true\n" + protocol);  // content is
  EXPECT_NE(hash(head), a);
  // a sweep of scenarios keeps the hash it had before population sweeps
  EXPECT_EQ(parse("name = \"s\"\nseeds = 1\n").base_hash, parse("name = \"t\"\nseeds = 3\n").base_hash);
}

class BadPopulationSweep : public BadSweep {};

TEST_P(BadPopulationSweep, IsOneClearLine) {
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

const std::string pp_graph = "name = \"s\"\nseeds = 2\n[pp]\nprotocol = \"epidemic\"\nscheduler = \"lock-pair\"\n";
INSTANTIATE_TEST_SUITE_P(
    Validation, BadPopulationSweep,
    ::testing::Values(
        Bad{ok + "pp = 3", "'pp' must be a table"},
        Bad{ok + "[pp]\nscheduler = \"lock-pair\"", "pp: missing 'protocol'"},
        Bad{ok + "[pp]\nprotocol = 3", "pp.protocol: expected a shipped protocol's name or a protocol file"},
        Bad{ok + "[pp]\nprotocol = \"majority\"",
            "pp.protocol: 'majority' is neither a protocol file (relative to the sweep file) nor a shipped protocol "
            "(approximate-majority"},
        Bad{ok + "[pp]\nprotocol = \"epidemic\"\ncolour = 1",
            "pp: unknown key 'colour' (expected protocol, scheduler, agents, max_time, interactions_per_round"},
        Bad{ok + "[pp]\nprotocol = \"epidemic\"\ndelta = 4", "scenario keys go in [scenario]"},
        Bad{ok + "[pp]\nprotocol = \"epidemic\"\nnodes = 40", "pp.nodes: the population size is 'agents'"},
        Bad{ok + "[pp]\nprotocol = \"epidemic\"\nseed = 4", "pp.seed: seeds are given by 'seeds'"},
        Bad{ok + "[pp]\nprotocol = \"epidemic\"\nhistory_every = 1.0", "pp.history_every: a sweep stores no history"},
        Bad{ok + "[pp]\nprotocol = \"epidemic\"\nscheduler = \"fifo\"",
            "pp.scheduler: unknown scheduler 'fifo' (one of sequential, sequential-graph, lock-neighbourhood, "
            "lock-pair)"},
        Bad{ok + "[pp]\nprotocol = \"epidemic\"\nagents = 1", "pp.agents: expected an integer in 2..4294967294, got 1"},
        Bad{ok + "[pp]\nprotocol = \"epidemic\"\nagents = 5000000000", "pp.agents: expected an integer in 2.."},
        Bad{ok + "[pp]\nprotocol = \"epidemic\"\nagents = 10.0", "pp.agents: expected an integer"},
        Bad{ok + "[pp]\nprotocol = \"epidemic\"\nagents = [10, 20]", "got [10,20] (swept values go in [grid])"},
        Bad{ok + "[pp]\nprotocol = \"epidemic\"\nmax_time = 0", "pp.max_time: expected a number above 0, got 0"},
        Bad{ok + "[pp]\nprotocol = \"epidemic\"\nmax_time = nan", "pp.max_time: expected a number above 0"},
        Bad{ok + "[pp]\nprotocol = \"epidemic\"\nscheduler = \"lock-pair\"\ninteractions_per_round = 2",
            "pp.interactions_per_round: only the sequential-graph scheduler uses it"},
        Bad{pp_graph + "[grid]\ninteractions_per_round = [1, 2]",
            "grid key 'interactions_per_round': only the sequential-graph scheduler uses it"},
        Bad{pp_graph + "[grid]\nnodes = [10, 20]", "grid key 'nodes': the population size is 'agents'"},
        Bad{pp_graph + "[grid]\nprotocol = [\"epidemic\"]", "grid key 'protocol': one protocol per sweep"},
        Bad{pp_graph + "[grid]\nhistory_every = [1.0]", "grid key 'history_every': a sweep stores no history"},
        Bad{pp_graph + "[grid]\nworkload.idle = [1, 2]",
            "grid key 'workload.idle': the protocol calls Lock and Unlock itself"},
        Bad{pp_graph + "[grid]\nagents = [10, 1]", "grid key 'agents': expected an integer in 2..4294967294, got 1"},
        Bad{pp_graph + "[grid]\nscheduler = [\"lock-pair\", \"sequntial\"]",
            "grid key 'scheduler': unknown scheduler 'sequntial'"},
        Bad{pp_graph + "[grid]\ncolour = [1]",
            "point {colour = 1} seed 1: scenario key 'colour': unknown key (nor a population key: scheduler, agents, "
            "max_time, interactions_per_round)"},
        Bad{pp_graph + "[scenario]\ntopology.kind = \"regular\"\n[grid]\ndelta = [4, 2]\ntopology.degree = [4]",
            "point {delta = 2, topology.degree = 4} seed 1: scenario key 'topology.degree'"},
        Bad{pp_graph + "[scenario]\nnodes = 40", "scenario.nodes: the population size is 'agents'"},
        Bad{pp_graph + "[scenario]\nagents = 40", "scenario.agents: a population key: it belongs in [pp]"},
        Bad{pp_graph + "[scenario]\nworkload.hold = 2", "scenario.workload: the protocol calls Lock and Unlock"},
        Bad{ok + "[pp]\nprotocol = \"epidemic\"\n[scenario]\ndelta = 4",
            "the sequential scheduler runs on the complete graph, without a scenario, but [scenario] sets scenario "
            "key 'delta'; scenario keys need sequential-graph, lock-neighbourhood or lock-pair"},
        Bad{ok + "[pp]\nprotocol = \"epidemic\"\n[grid]\ntopology.kind = [\"ring\"]",
            "the sequential scheduler runs on the complete graph, without a scenario, but grid key 'topology.kind' is "
            "a scenario key"},
        Bad{ok + "[pp]\nprotocol = \"epidemic\"\n[grid]\nscheduler = [\"sequential\", \"lock-pair\"]\ndelta = [4]",
            "grid key 'scheduler': the sequential scheduler runs on the complete graph"},
        // pp keys in a sweep of scenarios
        Bad{ok + "[grid]\nagents = [10, 20]",
            "grid key 'agents': a population-protocol key: a population sweep names its protocol in a [pp] table"},
        Bad{ok + "[grid]\nscheduler = [\"lock-pair\"]", "grid key 'scheduler': a population-protocol key"},
        Bad{ok + "[scenario]\nprotocol = \"epidemic\"", "scenario.protocol: a population-protocol key"}));

TEST(PopulationValidation, ABadProtocolFileOrBaseIsNamed) {
  Scratch dir;
  dir.write("bad.toml", "states = [\"a\"]\nrules = [\"a, z -> a, a\"]\n[initial]\na = 1.0\n");
  dir.write("s.toml", "name = \"s\"\nseeds = 1\n[pp]\nprotocol = \"bad.toml\"\n");
  try {
    lmx::sweep::load_sweep(dir / "s.toml");
    FAIL();
  } catch (const SweepError& e) {
    EXPECT_NE(std::string(e.what()).find("s.toml: pp.protocol: "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("unknown state 'z'"), std::string::npos) << e.what();
  }
  dir.write("graph.toml", "delta = 4\n[workload]\nidle = 3\n");
  dir.write("s.toml", "name = \"s\"\nbase = \"graph.toml\"\nseeds = 1\n[pp]\nprotocol = \"epidemic\"\n");
  try {
    lmx::sweep::load_sweep(dir / "s.toml");
    FAIL();
  } catch (const SweepError& e) {
    EXPECT_NE(std::string(e.what()).find("s.toml: base: scenario key 'workload': the protocol calls Lock and Unlock"),
              std::string::npos)
        << e.what();
  }
  // a base scenario is a graph: not for the sequential scheduler
  dir.write("graph.toml", "delta = 4\n");
  try {
    lmx::sweep::load_sweep(dir / "s.toml");
    FAIL();
  } catch (const SweepError& e) {
    EXPECT_NE(std::string(e.what()).find("but the sweep has a base scenario; scenario keys need"), std::string::npos)
        << e.what();
  }
}

}  // namespace
