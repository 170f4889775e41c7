// `lmx sweep` end to end: the binary is run as a user would run it, and its store is read back.
// Population sweeps likewise, each point checked against `lmx pp run`.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <csignal>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "lmx/sweep/store.hpp"
#include "lmx/sweep/table.hpp"
#include "scratch.hpp"

namespace {

using namespace lmx::sweep;
using lmx::sweep::testing::Scratch;
using nlohmann::json;

using lmx::sweep::testing::q;
using lmx::sweep::testing::Result;

Result lmx(const std::string& args) {
  return lmx::sweep::testing::run_shell(std::string("'") + LMX_BINARY + "' " + args);
}

std::size_t lines(const std::string& s) {
  std::size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

// A 2 x 2 grid of tiny scenarios times 3 seeds: 12 points of a few milliseconds each.
const std::string small = R"(name = "small"
seeds = 3
[scenario]
nodes = 24
rounds = 40
topology.kind = "regular"
[grid]
delta = [3, 4]
k = [2, 4]
)";

/// point key -> trace hash, for every row in the store (any grid).
std::map<std::string, std::string> hashes(const std::filesystem::path& db, const std::filesystem::path& sweep_file,
                                          std::size_t* rows = nullptr) {
  const auto sweep = load_sweep(sweep_file);
  const Store store(db, sweep, Store::Mode::read);
  std::size_t column = 0;
  while (figures(sweep)[column].column != "trace_hash") ++column;
  std::map<std::string, std::string> out;
  const auto all = store.rows();
  if (rows) *rows = all.size();
  for (const auto& r : all) out[r.point] = r.values[column].get<std::string>();
  return out;
}

TEST(SweepCli, RunsGridTimesSeedsAndStoresEachPointOnce) {
  Scratch dir;
  const auto file = dir.write("small.toml", small);
  const auto r = lmx("sweep " + q(file) + " --jobs 2");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("12 points (4 grid points x 3 seeds): 0 stored, 12 to run on 2 thread(s)"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("12 of 12 points stored (12 run now"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("0 with a violation or a stall"), std::string::npos) << r.out;
  ASSERT_TRUE(std::filesystem::exists(dir / "small.sqlite"));  // the default store, beside the sweep file
  std::size_t rows = 0;
  const auto h = hashes(dir / "small.sqlite", file, &rows);
  EXPECT_EQ(rows, 12u);
  EXPECT_EQ(h.size(), 12u);
  for (const auto& p : expand(load_sweep(file))) EXPECT_TRUE(h.count(p.key)) << p.key;
}

TEST(SweepCli, APointIsWhatLmxRunGivesForItsSettings) {
  Scratch dir;
  const auto file = dir.write("small.toml", small);
  ASSERT_EQ(lmx("sweep " + q(file)).exit_code, 0);
  const auto run =
      lmx("run --json --set nodes=24 --set rounds=40 --set topology.kind=regular --set delta=4 --set k=2 "
          "--seed 3");
  ASSERT_EQ(run.exit_code, 0) << run.out;
  const auto h = hashes(dir / "small.sqlite", file);
  EXPECT_EQ(h.at(point_key({{"delta", 4}, {"k", 2}}, 3)), json::parse(run.out)["trace_hash"]);
}

TEST(SweepCli, ARerunRunsNothing) {
  Scratch dir;
  const auto file = dir.write("small.toml", small);
  ASSERT_EQ(lmx("sweep " + q(file)).exit_code, 0);
  const auto before = hashes(dir / "small.sqlite", file);
  const auto r = lmx("sweep " + q(file));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("12 points (4 grid points x 3 seeds): all stored, nothing to run"), std::string::npos) << r.out;
  std::size_t rows = 0;
  EXPECT_EQ(hashes(dir / "small.sqlite", file, &rows), before);
  EXPECT_EQ(rows, 12u);
}

TEST(SweepCli, AChangedGridRunsOnlyTheNewPoints) {
  Scratch dir;
  const auto file = dir.write("small.toml", small);
  ASSERT_EQ(lmx("sweep " + q(file)).exit_code, 0);
  const auto before = hashes(dir / "small.sqlite", file);
  // one more delta, one k less, one more seed
  std::string grown = small;
  grown.replace(grown.find("delta = [3, 4]"), 14, "delta = [3, 4, 5]");
  grown.replace(grown.find("k = [2, 4]"), 10, "k = [4]");
  grown.replace(grown.find("seeds = 3"), 9, "seeds = 4");
  dir.write("small.toml", grown);
  const auto r = lmx("sweep " + q(file));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  // 3 x 1 x 4 = 12 points, of which delta 3 and 4 with k 4 and seeds 1..3 are stored
  EXPECT_NE(r.out.find("12 points (3 grid points x 4 seeds): 6 stored, 6 to run"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("6 stored point(s) of earlier grids are kept"), std::string::npos) << r.out;
  std::size_t rows = 0;
  const auto after = hashes(dir / "small.sqlite", file, &rows);
  EXPECT_EQ(rows, 18u);
  for (const auto& [key, hash] : before) EXPECT_EQ(after.at(key), hash) << key;
  // the table shows the current grid; --all every row
  const auto table = lmx("sweep " + q(file) + " --table");
  ASSERT_EQ(table.exit_code, 0) << table.out;
  EXPECT_EQ(lines(table.out), 1u + 12u + 1u);  // header, rows, the note on stderr
  EXPECT_NE(table.out.find("6 stored point(s) of other grids or base scenarios not shown"), std::string::npos);
  EXPECT_EQ(lines(lmx("sweep " + q(file) + " --table --all").out), 1u + 18u);
}

TEST(SweepCli, TableIsCsvOfTheStoredPoints) {
  Scratch dir;
  const auto file = dir.write("small.toml", small);
  ASSERT_EQ(lmx("sweep " + q(file)).exit_code, 0);
  const auto r = lmx("sweep " + q(file) + " --table " + q(dir / "t.csv"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out, "");
  const std::string text = dir.read("t.csv");
  std::stringstream in(text);
  std::string header, first;
  std::getline(in, header);
  std::getline(in, first);
  EXPECT_EQ(header.rfind("delta,k,seed,locks_completed,locks_requested,locks_pending,locks_per_round,latency_p50,", 0),
            0u)
      << header;
  EXPECT_NE(header.find(",trace_hash,stalled,P1,P2,P3,P4,P5,P6,P7,"), std::string::npos) << header;
  EXPECT_EQ(first.rfind("3,2,1,", 0), 0u) << first;
  EXPECT_NE(first.find(hashes(dir / "small.sqlite", file).at(point_key({{"delta", 3}, {"k", 2}}, 1))),
            std::string::npos);
  EXPECT_NE(first.find(",0,pass,pass,pass,pass,pass,pass,pass,"), std::string::npos) << first;
  EXPECT_EQ(lines(text), 13u);
  // standard output holds the same table
  EXPECT_EQ(lmx("sweep " + q(file) + " --table").out, text);
  // aggregated: one row per grid point
  const auto by = lmx("sweep " + q(file) + " --table --by-point");
  ASSERT_EQ(by.exit_code, 0) << by.out;
  EXPECT_EQ(lines(by.out), 5u);
  EXPECT_EQ(by.out.rfind("delta,k,seeds,locks_completed_mean,locks_completed_min,locks_completed_max,", 0), 0u);
  EXPECT_NE(by.out.find("\n3,2,3,"), std::string::npos) << by.out;
}

TEST(SweepCli, ReportIsOneSelfContainedPage) {
  Scratch dir;
  const auto file = dir.write("small.toml", small);
  ASSERT_EQ(lmx("sweep " + q(file)).exit_code, 0);
  const auto r = lmx("sweep " + q(file) + " --report " + q(dir / "r.html"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string html = dir.read("r.html");
  EXPECT_EQ(html.find("__LMX_SWEEP_DATA__"), std::string::npos);
  EXPECT_NE(html.find("\"name\":\"small\""), std::string::npos);
  EXPECT_EQ(html.find("<script src="), std::string::npos);
}

TEST(SweepCli, TableOrReportWithoutResultsIsAnError) {
  Scratch dir;
  const auto file = dir.write("small.toml", small);
  const auto r = lmx("sweep " + q(file) + " --table");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("lmx: error: no results yet"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(dir / "small.sqlite"));
}

TEST(SweepCli, BadSweepFilesAreOneLineAndExit2BeforeAnythingRuns) {
  Scratch dir;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"name = \"x\"\n", "missing 'seeds'"},
      {"name = \"x\"\nseeds = 2\nfoo = 1\n", "unknown key 'foo'"},
      {"name = \"x\"\nseeds = 2\n[grid]\nk = []\n", "grid key 'k': the list is empty"},
      {"name = \"x\"\nseeds = 2\n[grid]\nk = {from = 4, to = 2}\n", "range 'from' 4 is above 'to' 2"},
      {"name = \"x\"\nseeds = 2\n[grid]\nk = [2, 2]\n", "value 2 appears twice"},
      // the bad point is the last one: nothing may have run before it is found
      {"name = \"x\"\nseeds = 2\n[scenario]\nnodes = 10\ntopology.kind = \"regular\"\n[grid]\ndelta = [4, "
       "8]\ntopology.degree = [2, 6]\n",
       "point {delta = 4, topology.degree = 6} seed 1: scenario key 'topology.degree'"},
  };
  for (const auto& [text, message] : cases) {
    const auto file = dir.write("bad.toml", text);
    const auto r = lmx("sweep " + q(file));
    EXPECT_EQ(r.exit_code, 2) << text << r.out;
    EXPECT_EQ(lines(r.out), 1u) << r.out;
    EXPECT_EQ(r.out.rfind("lmx: error: ", 0), 0u) << r.out;
    EXPECT_NE(r.out.find(message), std::string::npos) << r.out;
    EXPECT_FALSE(std::filesystem::exists(dir / "bad.sqlite")) << text;
  }
  const auto missing = lmx("sweep " + q(dir / "none.toml"));
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.out.find("cannot read sweep file"), std::string::npos) << missing.out;
  const auto jobs = lmx("sweep " + q(dir / "bad.toml") + " --jobs 0");
  EXPECT_NE(jobs.exit_code, 0);
}

TEST(SweepCli, APointThatCannotBeBuiltStopsTheSweepKeepingTheFinished) {
  Scratch dir;
  dir.write("path.edges", "0 1\n1 2\n");
  // edge-list files in the grid are relative to the sweep file; the second one does not exist
  const auto file = dir.write("files.toml",
                              "name = \"files\"\nseeds = 2\n[scenario]\nnodes = 3\ndelta = 2\nrounds = 30\n"
                              "topology.kind = \"edges\"\n[grid]\ntopology.file = [\"path.edges\", \"none.edges\"]\n");
  const auto r = lmx("sweep " + q(file) + " --jobs 1");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("lmx: error: " + file.string() +
                       ": point {topology.file = \"none.edges\"} seed 1: cannot read edge-list file"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("(1 of 4 points stored)"), std::string::npos) << r.out;
  std::size_t rows = 0;
  const auto h = hashes(dir / "files.sqlite", file, &rows);
  EXPECT_EQ(rows, 1u);
  EXPECT_TRUE(h.count(point_key({{"topology.file", "path.edges"}}, 1)));
}

TEST(SweepCli, NeverOverwritesAnInput) {
  Scratch dir;
  dir.write("base.toml", "nodes = 20\nrounds = 20\n");
  const auto file = dir.write("s.toml", "name = \"s\"\nbase = \"base.toml\"\nseeds = 1\n");
  for (const std::string target : {"s.toml", "base.toml"}) {
    const auto r = lmx("sweep " + q(file) + " --db " + q(dir / target));
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_NE(r.out.find("is an input of the sweep"), std::string::npos) << r.out;
  }
  EXPECT_EQ(dir.read("s.toml"), "name = \"s\"\nbase = \"base.toml\"\nseeds = 1\n");
  EXPECT_EQ(dir.read("base.toml"), "nodes = 20\nrounds = 20\n");
  ASSERT_EQ(lmx("sweep " + q(file)).exit_code, 0);
  for (const std::string option : {"--table", "--report"}) {
    for (const std::string target : {"s.toml", "base.toml", "s.sqlite"}) {
      const auto r = lmx("sweep " + q(file) + " " + option + " " + q(dir / target));
      EXPECT_EQ(r.exit_code, 2) << option << " " << target << ": " << r.out;
    }
  }
  EXPECT_EQ(dir.read("s.toml"), "name = \"s\"\nbase = \"base.toml\"\nseeds = 1\n");
}

TEST(SweepCli, AChangedBaseScenarioIsRefused) {
  Scratch dir;
  dir.write("base.toml", "nodes = 20\nrounds = 20\n");
  const auto file = dir.write("s.toml", "name = \"s\"\nbase = \"base.toml\"\nseeds = 2\n");
  ASSERT_EQ(lmx("sweep " + q(file)).exit_code, 0);
  dir.write("base.toml", "nodes = 21\nrounds = 20\n");
  const auto r = lmx("sweep " + q(file));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("holds 2 point(s) of another base scenario"), std::string::npos) << r.out;
  // a new name is a new table in the same store
  dir.write("s.toml", "name = \"s2\"\nbase = \"base.toml\"\nseeds = 2\n");
  EXPECT_EQ(lmx("sweep " + q(file) + " --db " + q(dir / "s.sqlite")).exit_code, 0);
}

TEST(SweepCli, SigintStoresOnlyCompletePointsAndTheRerunFinishes) {
  Scratch dir;
  const auto file = dir.write("small.toml", small);
  ASSERT_EQ(lmx("sweep " + q(file) + " --db " + q(dir / "ref.sqlite") + " --jobs 1").exit_code, 0);
  const auto reference = hashes(dir / "ref.sqlite", file);
  // SIGINT as the 4th point starts: it is cancelled after its first step, no later point starts
  auto r = lmx("sweep " + q(file) + " --jobs 1 --test-interrupt-in-point 4");
  EXPECT_EQ(r.exit_code, 130) << r.out;
  EXPECT_NE(r.out.find("interrupted: 3 of 12 points stored (3 now); run the same command to continue"),
            std::string::npos)
      << r.out;
  std::size_t rows = 0;
  auto part = hashes(dir / "small.sqlite", file, &rows);
  EXPECT_EQ(rows, 3u);
  for (const auto& [key, hash] : part) EXPECT_EQ(reference.at(key), hash) << key;
  // on two threads, the other worker's point is cancelled too or finishes whole: points 1 and 2,
  // and point 4 when the other worker took it between the take of point 3 and its SIGINT and its
  // last step came before it looked at the stop flag (seen under load)
  r = lmx("sweep " + q(file) + " --jobs 2 --test-interrupt-in-point 3");
  EXPECT_EQ(r.exit_code, 130) << r.out;
  part = hashes(dir / "small.sqlite", file, &rows);
  EXPECT_GE(rows, 3u);
  EXPECT_LE(rows, 3u + 3u);
  for (const auto& [key, hash] : part) EXPECT_EQ(reference.at(key), hash) << key;
  const auto again = lmx("sweep " + q(file));
  ASSERT_EQ(again.exit_code, 0) << again.out;
  EXPECT_NE(again.out.find(std::to_string(rows) + " stored, " + std::to_string(12 - rows) + " to run"),
            std::string::npos)
      << again.out;
  EXPECT_EQ(hashes(dir / "small.sqlite", file, &rows), reference);
  EXPECT_EQ(rows, 12u);
}

TEST(SweepCli, SigkillLosesAndDuplicatesNothing) {
  Scratch dir;
  const auto file = dir.write("small.toml", small);
  ASSERT_EQ(lmx("sweep " + q(file) + " --db " + q(dir / "ref.sqlite") + " --jobs 1").exit_code, 0);
  const auto reference = hashes(dir / "ref.sqlite", file);
  // killed right after its 4th commit (the other worker in the middle of a point or done with
  // one not yet stored)
  auto r = lmx("sweep " + q(file) + " --jobs 2 --test-kill-after 4");
  EXPECT_EQ(r.exit_code, 128 + SIGKILL) << r.out;
  std::size_t rows = 0;
  hashes(dir / "small.sqlite", file, &rows);
  EXPECT_EQ(rows, 4u);
  // killed again 2 commits later
  r = lmx("sweep " + q(file) + " --jobs 2 --test-kill-after 2");
  EXPECT_EQ(r.exit_code, 128 + SIGKILL) << r.out;
  EXPECT_NE(r.out.find("4 stored, 8 to run"), std::string::npos) << r.out;
  hashes(dir / "small.sqlite", file, &rows);
  EXPECT_EQ(rows, 6u);
  // killed by a worker as it starts the 3rd point of this run: at most the 2 before it are stored
  r = lmx("sweep " + q(file) + " --jobs 2 --test-kill-in-point 3");
  EXPECT_EQ(r.exit_code, 128 + SIGKILL) << r.out;
  hashes(dir / "small.sqlite", file, &rows);
  EXPECT_GE(rows, 6u);
  EXPECT_LE(rows, 8u);
  r = lmx("sweep " + q(file) + " --jobs 2");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find(std::to_string(rows) + " stored, " + std::to_string(12 - rows) + " to run"), std::string::npos)
      << r.out;
  EXPECT_EQ(hashes(dir / "small.sqlite", file, &rows), reference);
  EXPECT_EQ(rows, 12u);  // each point exactly once, with the figures of an uninterrupted sweep
}

TEST(SweepCli, DryRunValidatesAndCountsOnly) {
  Scratch dir;
  const auto file = dir.write("small.toml", small);
  const auto r = lmx("sweep " + q(file) + " --dry-run");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("0 stored, 12 to run"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(dir / "small.sqlite"));
  ASSERT_EQ(lmx("sweep " + q(file) + " --test-kill-after 5").exit_code, 128 + SIGKILL);
  const auto again = lmx("sweep " + q(file) + " --dry-run");
  EXPECT_NE(again.out.find("5 stored, 7 to run"), std::string::npos) << again.out;
  std::size_t rows = 0;
  hashes(dir / "small.sqlite", file, &rows);
  EXPECT_EQ(rows, 5u);
}

// ------------------------------------------------------------------ population sweeps

// 2 schedulers x 2 population sizes x 2 seeds of exact majority on a 4-regular graph: 8 points
// of a few milliseconds each.
const std::string pp_small = R"(name = "pps"
seeds = 2
[pp]
protocol = "exact-majority"
max_time = 400
[scenario]
delta = 4
topology.kind = "regular"
[grid]
scheduler = ["sequential-graph", "lock-pair"]
agents = [21, 25]
)";

/// point key -> "interactions outcome trace_hash" for every row of a population sweep's store.
std::map<std::string, std::string> pp_results(const std::filesystem::path& db, const std::filesystem::path& sweep_file,
                                              std::size_t* rows = nullptr) {
  const auto sweep = load_sweep(sweep_file);
  const Store store(db, sweep, Store::Mode::read);
  const auto figs = figures(sweep);
  auto column = [&](std::string_view name) {
    std::size_t c = 0;
    while (figs[c].column != name) ++c;
    return c;
  };
  std::map<std::string, std::string> out;
  const auto all = store.rows();
  if (rows) *rows = all.size();
  for (const auto& r : all)
    out[r.point] = r.values[column("interactions")].dump() + " " + r.values[column("outcome")].dump() + " " +
                   r.values[column("trace_hash")].dump();
  return out;
}

TEST(PopulationSweepCli, RunsStoresAndTabulatesAndEachPointIsLmxPpRun) {
  Scratch dir;
  const auto file = dir.write("pps.toml", pp_small);
  const auto r = lmx("sweep " + q(file) + " --jobs 2");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("'pps', 8 points (4 grid points x 2 seeds): 0 stored, 8 to run on 2 thread(s)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("8 of 8 points stored (8 run now in "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("; 8 converged, 0 with a violation or a stall"), std::string::npos) << r.out;
  std::size_t rows = 0;
  const auto results = pp_results(dir / "pps.sqlite", file, &rows);
  EXPECT_EQ(rows, 8u);
  for (const auto& p : expand(load_sweep(file))) EXPECT_TRUE(results.count(p.key)) << p.key;
  // a point is `lmx pp run` with the same settings
  const auto run =
      lmx("pp run exact-majority --scheduler lock-pair --set agents=25 --set max_time=400 --set delta=4 "
          "--set topology.kind=regular --seed 2 --json");
  ASSERT_EQ(run.exit_code, 0) << run.out;
  const auto j = json::parse(run.out);
  EXPECT_EQ(results.at(point_key({{"agents", 25}, {"scheduler", "lock-pair"}}, 2)),
            j["interactions"].dump() + " " + j["outcome"].dump() + " " + j["run"]["trace_hash"].dump());
  // the table: grid keys, seed, the population figures
  const auto table = lmx("sweep " + q(file) + " --table");
  ASSERT_EQ(table.exit_code, 0) << table.out;
  EXPECT_EQ(lines(table.out), 9u);
  EXPECT_EQ(table.out.rfind("scheduler,agents,seed,converged,parallel_time,interactions,effective_interactions,"
                            "rounds_simulated,interactions_per_round_measured,outcome,lock_requests,lock_cycles,"
                            "no_partner,messages,messages_per_interaction,lock_requests_per_interaction,violations,"
                            "stalled,P1,",
                            0),
            0u)
      << table.out;
  EXPECT_NE(table.out.find("\nsequential-graph,21,1,1,"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find(",consensus X,"), std::string::npos) << table.out;
  const auto by = lmx("sweep " + q(file) + " --table --by-point");
  ASSERT_EQ(by.exit_code, 0) << by.out;
  EXPECT_EQ(lines(by.out), 5u);
  EXPECT_EQ(by.out.rfind("scheduler,agents,seeds,converged_count,parallel_time_mean,", 0), 0u) << by.out;
  EXPECT_NE(by.out.find("\nlock-pair,25,2,2,"), std::string::npos) << by.out;
  // the SQL a user would write
  const auto again = lmx("sweep " + q(file));
  EXPECT_NE(again.out.find("8 points (4 grid points x 2 seeds): all stored, nothing to run"), std::string::npos)
      << again.out;
}

TEST(PopulationSweepCli, ASigintStopsCleanlyAndTheRerunFinishesAChangedGridRunsOnlyNewPoints) {
  Scratch dir;
  const auto file = dir.write("pps.toml", pp_small);
  ASSERT_EQ(lmx("sweep " + q(file) + " --db " + q(dir / "ref.sqlite") + " --jobs 1").exit_code, 0);
  const auto reference = pp_results(dir / "ref.sqlite", file);
  // SIGINT as the 3rd point starts: it is cut short and dropped, no later point starts
  auto r = lmx("sweep " + q(file) + " --jobs 1 --test-interrupt-in-point 3");
  EXPECT_EQ(r.exit_code, 130) << r.out;
  EXPECT_NE(r.out.find("interrupted: 2 of 8 points stored (2 now); run the same command to continue"),
            std::string::npos)
      << r.out;
  std::size_t rows = 0;
  auto part = pp_results(dir / "pps.sqlite", file, &rows);
  EXPECT_EQ(rows, 2u);
  for (const auto& [key, result] : part) EXPECT_EQ(reference.at(key), result) << key;
  // two threads: the 3rd point starts once one of the first two finished; the other worker's point
  // is cut short too, or finishes whole
  r = lmx("sweep " + q(file) + " --jobs 2 --test-interrupt-in-point 3");
  EXPECT_EQ(r.exit_code, 130) << r.out;
  part = pp_results(dir / "pps.sqlite", file, &rows);
  EXPECT_GE(rows, 3u);
  EXPECT_LE(rows, 4u);
  for (const auto& [key, result] : part) EXPECT_EQ(reference.at(key), result) << key;
  r = lmx("sweep " + q(file));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find(std::to_string(rows) + " stored, " + std::to_string(8 - rows) + " to run"), std::string::npos)
      << r.out;
  EXPECT_EQ(pp_results(dir / "pps.sqlite", file, &rows), reference);
  EXPECT_EQ(rows, 8u);
  // one more population size and one more seed: only the new points run
  std::string grown = pp_small;
  grown.replace(grown.find("agents = [21, 25]"), 17, "agents = [21, 25, 29]");
  grown.replace(grown.find("seeds = 2"), 9, "seeds = 3");
  dir.write("pps.toml", grown);
  r = lmx("sweep " + q(file));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("18 points (6 grid points x 3 seeds): 8 stored, 10 to run"), std::string::npos) << r.out;
  const auto after = pp_results(dir / "pps.sqlite", file, &rows);
  EXPECT_EQ(rows, 18u);
  for (const auto& [key, result] : reference) EXPECT_EQ(after.at(key), result) << key;
}

TEST(PopulationSweepCli, AChangedProtocolOrPpTableIsAnotherBase) {
  Scratch dir;
  const std::string protocol =
      "states = [\"I\", \"S\"]\nstop = \"consensus\"\nsymmetric = true\nrules = [\"I, S -> I, I\"]\n"
      "[initial]\nI = 1\nS = 19\n";
  dir.write("infect.toml", protocol);
  const auto file =
      dir.write("p.toml",
                "name = \"p\"\nseeds = 2\n[pp]\nprotocol = \"infect.toml\"\nscheduler = \"lock-neighbourhood\"\n"
                "[scenario]\ntopology.kind = \"ring\"\ndelta = 2\n");
  auto r = lmx("sweep " + q(file));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("2 converged"), std::string::npos) << r.out;
  // the protocol file is an input
  r = lmx("sweep " + q(file) + " --db " + q(dir / "infect.toml"));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("is an input of the sweep (infect.toml)"), std::string::npos) << r.out;
  EXPECT_EQ(dir.read("infect.toml"), protocol);
  // a comment changes nothing; a rule does
  dir.write("infect.toml", "# the epidemic\n" + protocol);
  EXPECT_EQ(lmx("sweep " + q(file)).exit_code, 0);
  dir.write("infect.toml", "description = \"slower\"\n" + protocol);
  r = lmx("sweep " + q(file));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("holds 2 point(s) of another base scenario"), std::string::npos) << r.out;
}

TEST(PopulationSweepCli, BadFilesAreOneLineAndExit2BeforeAnythingRuns) {
  Scratch dir;
  const std::string head = "name = \"x\"\nseeds = 2\n[pp]\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {head + "protocol = \"majority\"\n", "pp.protocol: 'majority' is neither a protocol file"},
      {head + "protocol = \"epidemic\"\nrounds = 5\n", "pp: unknown key 'rounds'"},
      {head + "protocol = \"epidemic\"\nnodes = 5\n", "pp.nodes: the population size is 'agents'"},
      {head + "protocol = \"epidemic\"\nscheduler = \"lock-pair\"\n[grid]\nnodes = [10]\n",
       "grid key 'nodes': the population size is 'agents'"},
      {head + "protocol = \"epidemic\"\nscheduler = \"lock-pair\"\n[grid]\nagent = [10]\n",
       "point {agent = 10} seed 1: scenario key 'agent': unknown key (nor a population key"},
      {head + "protocol = \"epidemic\"\n[grid]\ndelta = [3, 4]\n",
       "the sequential scheduler runs on the complete graph, without a scenario, but grid key 'delta' is a scenario "
       "key"},
      // the bad point is the last one: nothing may have run before it is found
      {head + "protocol = \"epidemic\"\nscheduler = \"lock-pair\"\n[scenario]\ntopology.kind = \"regular\"\n"
              "[grid]\ndelta = [4, 8]\ntopology.degree = [2, 6]\n",
       "point {delta = 4, topology.degree = 6} seed 1: scenario key 'topology.degree'"},
  };
  for (const auto& [text, message] : cases) {
    const auto file = dir.write("bad.toml", text);
    const auto r = lmx("sweep " + q(file));
    EXPECT_EQ(r.exit_code, 2) << text << r.out;
    EXPECT_EQ(lines(r.out), 1u) << r.out;
    EXPECT_EQ(r.out.rfind("lmx: error: ", 0), 0u) << r.out;
    EXPECT_NE(r.out.find(message), std::string::npos) << r.out;
    EXPECT_FALSE(std::filesystem::exists(dir / "bad.sqlite")) << text;
  }
}

TEST(PopulationSweepCli, TheReportIsForTheGraphSchedulers) {
  Scratch dir;
  const auto file = dir.write("pps.toml", pp_small);
  ASSERT_EQ(lmx("sweep " + q(file)).exit_code, 0);
  auto r = lmx("sweep " + q(file) + " --report " + q(dir / "r.html"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string html = dir.read("r.html");
  EXPECT_NE(html.find("\"name\":\"pps\""), std::string::npos);
  EXPECT_NE(html.find("\"column\":\"parallel_time\""), std::string::npos);
  EXPECT_NE(html.find("\"column\":\"P7\""), std::string::npos);  // the page's verdicts
  // the sequential scheduler has no P1-P7 verdicts for the page to show: refused, the table works
  const auto sequential =
      dir.write("seq.toml", "name = \"seq\"\nseeds = 2\n[pp]\nprotocol = \"epidemic\"\n[grid]\nagents = [50, 100]\n");
  ASSERT_EQ(lmx("sweep " + q(sequential)).exit_code, 0);
  r = lmx("sweep " + q(sequential) + " --report " + q(dir / "s.html"));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_EQ(lines(r.out), 1u) << r.out;
  EXPECT_NE(r.out.find("lmx: error: --report: the sequential scheduler's points have no network run"),
            std::string::npos)
      << r.out;
  EXPECT_FALSE(std::filesystem::exists(dir / "s.html"));
  r = lmx("sweep " + q(sequential) + " --table");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(lines(r.out), 5u);
  EXPECT_NE(r.out.find("\n50,1,1,"), std::string::npos) << r.out;  // agents, seed, converged
}

TEST(PopulationSweepCli, ASweepOfScenariosAndAPopulationSweepShareAStoreNotATable) {
  Scratch dir;
  const auto scenarios = dir.write("a.toml", small);
  ASSERT_EQ(lmx("sweep " + q(scenarios) + " --db " + q(dir / "shared.sqlite")).exit_code, 0);
  std::string same_name = pp_small;
  same_name.replace(same_name.find("\"pps\""), 5, "\"small\"");
  const auto population = dir.write("b.toml", same_name);
  auto r = lmx("sweep " + q(population) + " --db " + q(dir / "shared.sqlite"));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("table 'small' holds the points of a sweep of scenarios, and sweep 'small' is a population "
                       "sweep; give the sweep a new name or use another --db"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(lmx("sweep " + q(population) + " --db " + q(dir / "shared.sqlite") + " --table").exit_code, 2);
  dir.write("b.toml", pp_small);
  EXPECT_EQ(lmx("sweep " + q(population) + " --db " + q(dir / "shared.sqlite")).exit_code, 0);
  std::size_t rows = 0;
  hashes(dir / "shared.sqlite", scenarios, &rows);
  EXPECT_EQ(rows, 12u);  // untouched
}

TEST(SweepExamples, EveryStudyFileIsValidAndTheSmokeSweepRuns) {
  Scratch dir;
  const std::filesystem::path examples = LMX_EXAMPLES;
  const std::map<std::string, std::string> files = {{"latency.toml", "800 points (80 grid points x 10 seeds)"},
                                                    {"participation.toml", "80 points (8 grid points x 10 seeds)"},
                                                    {"topology.toml", "60 points (6 grid points x 10 seeds)"},
                                                    {"churn.toml", "40 points (4 grid points x 10 seeds)"},
                                                    {"engine.toml", "40 points (4 grid points x 10 seeds)"},
                                                    {"nodes.toml", "18 points (6 grid points x 3 seeds)"},
                                                    {"variant.toml", "30 points (3 grid points x 10 seeds)"},
                                                    {"smoke.toml", "8 points (4 grid points x 2 seeds)"},
                                                    {"pp-schedulers.toml", "60 points (6 grid points x 10 seeds)"}};
  for (const auto& [file, plan] : files) {
    const auto r = lmx("sweep " + q(examples / file) + " --dry-run --db " + q(dir / (file + ".sqlite")));
    EXPECT_EQ(r.exit_code, 0) << file << ": " << r.out;
    EXPECT_NE(r.out.find(plan), std::string::npos) << file << ": " << r.out;
  }
  // the main grid is the study's: every node locking on random regular graphs, n = 1000
  const auto points = expand(load_sweep(examples / "latency.toml"));
  for (const auto& p : points) {
    EXPECT_EQ(p.scenario.nodes, 1000u);
    EXPECT_EQ(p.scenario.topology.kind, lmx::sim::TopologyKind::regular);
    EXPECT_EQ(p.scenario.workload.participation, 1.0);
    EXPECT_EQ(p.scenario.engine, lmx::sim::EngineKind::async);
    EXPECT_EQ(p.scenario.rounds, 2000u);
  }
  const auto r = lmx("sweep " + q(examples / "smoke.toml") + " --db " + q(dir / "smoke.sqlite"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("8 of 8 points stored"), std::string::npos) << r.out;
}

}  // namespace
