// The thread-pool dispatcher: every point reaches the sink once, on the caller's thread; a stop
// drops the unfinished; errors come back to the caller. And run_point against lmx::sim::run, and
// against lmx::apps::pp::run for the points of a population sweep.
#include "lmx/sweep/dispatch.hpp"

#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <thread>

#include "lmx/apps/population.hpp"
#include "lmx/sim/simulation.hpp"
#include "lmx/sweep/store.hpp"

namespace {

using namespace lmx::sweep;
using nlohmann::json;

std::vector<Point> points_of(std::size_t n) {
  std::vector<Point> p(n);
  for (std::size_t i = 0; i < n; ++i) {
    p[i].seed = i;
    p[i].key = point_key(json::object(), i);
  }
  return p;
}

std::vector<const Point*> pointers(const std::vector<Point>& p) {
  std::vector<const Point*> out;
  for (const auto& x : p) out.push_back(&x);
  return out;
}

struct Collect : Sink {
  std::thread::id owner = std::this_thread::get_id();
  std::map<std::uint64_t, int> seen;
  bool wrong_thread = false;
  void finished(const Point& p, json summary) override {
    wrong_thread |= std::this_thread::get_id() != owner;
    EXPECT_EQ(summary["seed"], p.seed);
    ++seen[p.seed];
  }
};

TEST(ThreadPool, EveryPointReachesTheSinkOnceOnTheCallersThread) {
  for (unsigned jobs : {1u, 2u, 5u}) {
    const auto points = points_of(40);
    Collect sink;
    std::atomic<bool> stop{false};
    const auto n = ThreadPool(jobs).run(
        pointers(points),
        [](const Point& p, const std::atomic<bool>&) {
          return json{{"seed", p.seed}};
        },
        sink, stop);
    EXPECT_EQ(n, 40u);
    EXPECT_EQ(sink.seen.size(), 40u);
    for (const auto& [seed, times] : sink.seen) EXPECT_EQ(times, 1) << seed;
    EXPECT_FALSE(sink.wrong_thread);
    EXPECT_FALSE(stop);
  }
}

TEST(ThreadPool, NoPointsIsNothingToDo) {
  Collect sink;
  std::atomic<bool> stop{false};
  EXPECT_EQ(ThreadPool(3).run(
                {}, [](const Point&, const std::atomic<bool>&) { return json(); }, sink, stop),
            0u);
}

TEST(ThreadPool, AStopDropsTheUnfinishedAndDispatchesNoMore) {
  const auto points = points_of(10);
  Collect sink;
  std::atomic<bool> stop{false};
  // the third point is interrupted while it runs: it and every later point are dropped
  const auto n = ThreadPool(1).run(
      pointers(points),
      [](const Point& p, const std::atomic<bool>& s) -> std::optional<json> {
        if (p.seed == 2) const_cast<std::atomic<bool>&>(s) = true;
        if (s) return std::nullopt;
        return json{{"seed", p.seed}};
      },
      sink, stop);
  EXPECT_EQ(n, 2u);
  EXPECT_EQ(sink.seen, (std::map<std::uint64_t, int>{{0, 1}, {1, 1}}));
}

TEST(ThreadPool, ARunnerErrorStopsTheOthersAndIsRethrown) {
  const auto points = points_of(20);
  Collect sink;
  std::atomic<bool> stop{false};
  EXPECT_THROW(ThreadPool(2).run(
                   pointers(points),
                   [](const Point& p, const std::atomic<bool>&) -> std::optional<json> {
                     if (p.seed == 5) throw SweepError("point 5 is infeasible");
                     return json{{"seed", p.seed}};
                   },
                   sink, stop),
               SweepError);
  EXPECT_TRUE(stop);
  EXPECT_LT(sink.seen.size(), 20u);
  EXPECT_FALSE(sink.seen.count(5));
}

TEST(ThreadPool, ASinkErrorJoinsTheWorkersAndIsRethrown) {
  const auto points = points_of(20);
  struct Failing : Sink {
    void finished(const Point&, json) override { throw StoreError("disk full"); }
  } sink;
  std::atomic<bool> stop{false};
  EXPECT_THROW(ThreadPool(3).run(
                   pointers(points),
                   [](const Point& p, const std::atomic<bool>&) {
                     return std::optional<json>(json{{"seed", p.seed}});
                   },
                   sink, stop),
               StoreError);
  EXPECT_TRUE(stop);
}

TEST(RunPoint, MatchesTheSimulatorAndHonoursStop) {
  const auto sweep = parse_sweep("name = \"s\"\nseeds = [3]\n[scenario]\nnodes = 30\nrounds = 40\n", "s.toml");
  const auto point = expand(sweep).at(0);
  std::atomic<bool> stop{false};
  const auto summary = run_point(point, stop);
  ASSERT_TRUE(summary);
  EXPECT_EQ((*summary)["trace_hash"], lmx::sim::run(point.scenario)["trace_hash"]);
  EXPECT_EQ((*summary)["seed"], 3);
  stop = true;
  EXPECT_FALSE(run_point(point, stop));  // stopped after its first step
}

TEST(RunPoint, PointsRunSideBySideGiveTheSequentialResults) {
  const auto sweep = parse_sweep(
      "name = \"s\"\nseeds = 3\n[scenario]\nnodes = 60\nrounds = 30\n[grid]\nengine = [\"async\", \"semi-sync\"]\n"
      "delta = [3, 20]\n",
      "s.toml");
  const auto points = expand(sweep);
  struct Hashes : Sink {
    std::map<std::string, std::string> by_key;
    void finished(const Point& p, json s) override { by_key[p.key] = s["trace_hash"]; }
  } sink;
  std::atomic<bool> stop{false};
  ThreadPool(4).run(pointers(points), run_point, sink, stop);
  ASSERT_EQ(sink.by_key.size(), points.size());
  for (const auto& p : points) EXPECT_EQ(sink.by_key[p.key], lmx::sim::run(p.scenario)["trace_hash"]) << p.key;
}

/// A population run's object without what differs from run to run (wall time and rates).
json deterministic(json j) {
  j.erase("wall_seconds");
  j.erase("interactions_per_second");
  if (j.contains("run")) {
    j["run"].erase("wall_seconds");
    j["run"].erase("actions_per_second");
  }
  return j;
}

const std::string population_sweep = R"(name = "p"
seeds = [4, 5]
[pp]
protocol = "exact-majority"
agents = 21
max_time = 400
[scenario]
delta = 4
topology.kind = "regular"
[grid]
scheduler = ["sequential-graph", "lock-neighbourhood", "lock-pair"]
)";

TEST(RunPoint, APopulationPointIsLmxPpRunAndHonoursStop) {
  const auto points = expand(parse_sweep(population_sweep, "p.toml"));
  ASSERT_EQ(points.size(), 6u);
  for (const auto& p : points) {
    std::atomic<bool> stop{false};
    const auto summary = run_point(p, stop);
    ASSERT_TRUE(summary) << p.key;
    const auto& run = *p.population;
    const auto direct = lmx::apps::pp::to_json(
        *run.protocol, lmx::apps::pp::run(*run.protocol, run.config(p.scenario, p.seed, nullptr)));
    EXPECT_EQ(deterministic(*summary), deterministic(direct)) << p.key;
    EXPECT_EQ((*summary)["scheduler"], p.grid["scheduler"]);
    EXPECT_EQ((*summary)["agents"], 21);
    EXPECT_EQ((*summary)["seed"], p.seed);
    EXPECT_TRUE((*summary)["converged"].get<bool>()) << p.key;
    EXPECT_EQ((*summary)["run"]["nodes"], 21) << p.key;
    stop = true;
    EXPECT_FALSE(run_point(p, stop)) << p.key;  // cut short: dropped
  }
  // the sequential scheduler on the complete graph
  const auto sequential = expand(
      parse_sweep("name = \"q\"\nseeds = 1\n[pp]\nprotocol = \"approximate-majority\"\nagents = 500\n", "q.toml"));
  std::atomic<bool> stop{false};
  const auto summary = run_point(sequential.at(0), stop);
  ASSERT_TRUE(summary);
  EXPECT_EQ((*summary)["scheduler"], "sequential");
  EXPECT_FALSE(summary->contains("run"));
  stop = true;
  EXPECT_FALSE(run_point(sequential.at(0), stop));
}

TEST(RunPoint, PopulationPointsRunSideBySideGiveTheSequentialResults) {
  const auto points = expand(parse_sweep(population_sweep, "p.toml"));
  struct Objects : Sink {
    std::map<std::string, json> by_key;
    void finished(const Point& p, json s) override { by_key[p.key] = deterministic(std::move(s)); }
  } sink;
  std::atomic<bool> stop{false};
  ThreadPool(4).run(pointers(points), run_point, sink, stop);
  ASSERT_EQ(sink.by_key.size(), points.size());
  for (const auto& p : points) {
    std::atomic<bool> never{false};
    EXPECT_EQ(sink.by_key[p.key], deterministic(*run_point(p, never))) << p.key;
  }
}

}  // namespace
