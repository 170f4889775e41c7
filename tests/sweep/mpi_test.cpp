// `mpirun -n 3 lmx sweep` end to end: the same store as a local sweep, point for point; a killed job
// resumed without a point lost or stored twice; errors on one rank end the job with one message.
// Three ranks on this machine's cores (--oversubscribe), as root when the tests run as root.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "scratch.hpp"

namespace sweep_mpi_test {

using lmx::sweep::testing::Scratch;
using nlohmann::json;

using lmx::sweep::testing::q;
using lmx::sweep::testing::Result;
using lmx::sweep::testing::run_shell;

Result lmx(const std::string& args) { return run_shell(std::string("'") + LMX_BINARY + "' " + args); }

// Open MPI refuses root unless told twice; containers often forbid the single-copy mechanism
// between processes, so the shared-memory transport copies through its buffers instead.
Result mpirun(int ranks, const std::string& args) {
  return run_shell(
      "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none "
      "'" MPIEXEC "' -n " +
      std::to_string(ranks) + " --oversubscribe '" + LMX_BINARY + "' " + args);
}

// 2 x 3 grid points x 4 seeds = 24 points of a few milliseconds, unequal in cost (n differs).
const std::string grid = R"(name = "grid"
seeds = 4
[scenario]
rounds = 60
topology.kind = "regular"
[grid]
nodes = [20, 60]
k = [2, 4, 8]
)";

/// point key -> the stored summary without its timings (the only figures that differ between two
/// runs of a point), for every row of table `name`.
std::map<std::string, json> summaries(const std::filesystem::path& db, const std::string& name) {
  std::map<std::string, json> out;
  if (!std::filesystem::exists(db)) return out;
  sqlite3* handle = nullptr;
  EXPECT_EQ(sqlite3_open_v2(db.c_str(), &handle, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* rows = nullptr;
  const std::string sql = "SELECT point, summary FROM \"" + name + "\"";
  if (sqlite3_prepare_v2(handle, sql.c_str(), -1, &rows, nullptr) == SQLITE_OK) {
    while (sqlite3_step(rows) == SQLITE_ROW) {
      const std::string point = reinterpret_cast<const char*>(sqlite3_column_text(rows, 0));
      json s = json::parse(reinterpret_cast<const char*>(sqlite3_column_text(rows, 1)));
      s.erase("wall_seconds");
      s.erase("actions_per_second");
      EXPECT_FALSE(out.count(point)) << "stored twice: " << point;
      out[point] = std::move(s);
    }
  }
  sqlite3_finalize(rows);
  sqlite3_close(handle);
  return out;
}

/// The grid sweep run locally on 2 threads into local.sqlite: the reference every MPI run must match.
std::map<std::string, json> local_reference(const Scratch& dir, const std::filesystem::path& file) {
  const auto local = lmx("sweep " + q(file) + " --db " + q(dir / "local.sqlite") + " --jobs 2");
  EXPECT_EQ(local.exit_code, 0) << local.out;
  return summaries(dir / "local.sqlite", "grid");
}

TEST(SweepMpi, ThreeRanksStoreWhatALocalSweepStoresPointForPoint) {
  Scratch dir;
  const auto file = dir.write("grid.toml", grid);
  const auto reference = local_reference(dir, file);
  ASSERT_EQ(reference.size(), 24u);
  const auto r = mpirun(3, "sweep " + q(file) + " --db " + q(dir / "mpi.sqlite"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("0 stored, 24 to run on 3 MPI ranks"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("24 of 24 points stored"), std::string::npos) << r.out;
  // Only rank 0 prints: one plan line, one result line.
  EXPECT_EQ(r.out.find("lmx sweep: 'grid', 24 points"), r.out.rfind("lmx sweep: 'grid', 24 points")) << r.out;
  EXPECT_EQ(summaries(dir / "mpi.sqlite", "grid"), reference);
  // Tables are rank 0's alone, and the same as the local store's.
  const auto table =
      mpirun(2, "sweep " + q(file) + " --db " + q(dir / "mpi.sqlite") + " --table " + q(dir / "mpi.csv"));
  ASSERT_EQ(table.exit_code, 0) << table.out;
  // (The rows differ in their timings; the columns and the number of rows are the same.)
  const std::string csv = dir.read("mpi.csv");
  const std::string local_csv = lmx("sweep " + q(file) + " --db " + q(dir / "local.sqlite") + " --table").out;
  EXPECT_EQ(csv.substr(0, csv.find('\n')), local_csv.substr(0, local_csv.find('\n')));
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 25);
  EXPECT_EQ(std::count(local_csv.begin(), local_csv.end(), '\n'), 25);
}

TEST(SweepMpi, AKilledJobResumesLosingAndDuplicatingNothing) {
  Scratch dir;
  const auto file = dir.write("grid.toml", grid);
  const auto reference = local_reference(dir, file);
  // Rank 0 is killed right after its 5th commit: mpirun ends the whole job.
  auto r = mpirun(3, "sweep " + q(file) + " --test-kill-after 5");
  EXPECT_NE(r.exit_code, 0) << r.out;
  EXPECT_EQ(summaries(dir / "grid.sqlite", "grid").size(), 5u);
  // Every rank kills itself as it starts its 2nd point: at most the points finished before are kept.
  r = mpirun(3, "sweep " + q(file) + " --test-kill-in-point 2");
  EXPECT_NE(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("5 stored, 19 to run on 3 MPI ranks"), std::string::npos) << r.out;
  const auto part = summaries(dir / "grid.sqlite", "grid");
  EXPECT_GE(part.size(), 5u);
  EXPECT_LE(part.size(), 5u + 3u);
  for (const auto& [key, summary] : part) EXPECT_EQ(reference.at(key), summary) << key;
  r = mpirun(3, "sweep " + q(file));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find(std::to_string(part.size()) + " stored, " + std::to_string(24 - part.size()) + " to run"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(summaries(dir / "grid.sqlite", "grid"), reference);
}

TEST(SweepMpi, ASignalledRankStopsTheSweepKeepingTheFinishedPoints) {
  Scratch dir;
  const auto file = dir.write("grid.toml", grid);
  const auto reference = local_reference(dir, file);
  // Every rank raises SIGINT at its 3rd point: the sweep stops as after a Ctrl-C.
  auto r = mpirun(3, "sweep " + q(file) + " --test-interrupt-in-point 3");
  EXPECT_NE(r.out.find("interrupted: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("run the same command to continue"), std::string::npos) << r.out;
  const auto part = summaries(dir / "grid.sqlite", "grid");
  EXPECT_GE(part.size(), 2u);
  EXPECT_LT(part.size(), 24u);
  for (const auto& [key, summary] : part) EXPECT_EQ(reference.at(key), summary) << key;
  r = mpirun(2, "sweep " + q(file));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(summaries(dir / "grid.sqlite", "grid"), reference);
}

TEST(SweepMpi, ErrorsAreOneMessageFromRankZeroAndNoRankHangs) {
  Scratch dir;
  // A bad sweep file: every rank sees it; rank 0 says so, the others are released.
  const auto bad = dir.write("bad.toml", "name = \"bad\"\nseeds = 2\n[grid]\ncolour = [1]\n");
  auto r = mpirun(3, "sweep " + q(bad));
  EXPECT_NE(r.exit_code, 0) << r.out;
  const std::string message = "lmx: error: " + bad.string() + ": point {colour = 1} seed 1";
  EXPECT_NE(r.out.find(message), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(message), r.out.rfind(message)) << r.out;
  // A point that cannot be built, run by whichever rank: the sweep stops, the finished stay.
  dir.write("path.edges", "0 1\n1 2\n");
  const auto files = dir.write("files.toml",
                               "name = \"files\"\nseeds = 3\n[scenario]\nnodes = 3\ndelta = 2\nrounds = 30\n"
                               "topology.kind = \"edges\"\n[grid]\ntopology.file = [\"path.edges\", \"none.edges\"]\n");
  r = mpirun(3, "sweep " + q(files));
  EXPECT_NE(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find(": point {topology.file = \"none.edges\"} seed "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("cannot read edge-list file"), std::string::npos) << r.out;
  EXPECT_LE(summaries(dir / "files.sqlite", "files").size(), 3u);
  // --jobs means threads of one process; under MPI each rank runs one point.
  r = mpirun(2, "sweep " + q(files) + " --jobs 2");
  EXPECT_NE(r.exit_code, 0) << r.out;
  const std::string jobs = "lmx: error: --jobs: under MPI each rank runs one point at a time";
  EXPECT_NE(r.out.find(jobs), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(jobs), r.out.rfind(jobs)) << r.out;
}

}  // namespace sweep_mpi_test
