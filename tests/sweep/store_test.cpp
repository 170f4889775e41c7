// The SQLite store: the figure table, NULLs, uniqueness, new grid keys, base scenario changes; the
// figure table of population sweeps and the two kinds of sweep kept apart.
#include "lmx/sweep/store.hpp"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <set>

#include "scratch.hpp"

namespace {

using namespace lmx::sweep;
using lmx::sweep::testing::Scratch;
using nlohmann::json;

Sweep sweep_of(const std::string& text) { return parse_sweep(text, "s.toml"); }

const std::string small = R"(name = "small"
seeds = 2
[scenario]
nodes = 12
rounds = 20
[grid]
k = [2, 3]
)";

std::size_t column_of(std::string_view name) {
  const auto f = figures();
  for (std::size_t i = 0; i < f.size(); ++i)
    if (f[i].column == name) return i;
  ADD_FAILURE() << "no figure " << name;
  return 0;
}

json summary() {
  return {{"locks_completed", 10},
          {"locks_requested", 12},
          {"latency_rounds", {{"p50", 3.5}, {"p90", nullptr}}},
          {"trials_per_lock", {{"mean", 1.25}, {"max", 4}}},
          {"stalled", false},
          {"trace_hash", "00112233aabbccdd"},
          {"violation_counts", {{"P7", 2}}},
          {"properties", {{"P1", "pass"}, {"P7", "fail"}}}};
}

TEST(Figures, ColumnsAreUniqueIdentifiersWithPointers) {
  std::set<std::string_view> names;
  for (const auto& f : figures()) {
    EXPECT_TRUE(is_identifier(std::string(f.column))) << f.column;
    EXPECT_TRUE(names.insert(f.column).second) << f.column;
    EXPECT_EQ(f.pointer.substr(0, 1), "/") << f.column;
    EXPECT_FALSE(f.label.empty());
  }
  for (const char* p : {"P1",
                        "P2",
                        "P3",
                        "P4",
                        "P5",
                        "P6",
                        "P7",
                        "locks_completed",
                        "locks_requested",
                        "locks_pending",
                        "locks_per_round",
                        "latency_p50",
                        "latency_p90",
                        "latency_p99",
                        "latency_max",
                        "latency_mean",
                        "messages_per_lock",
                        "trials_mean",
                        "trials_max",
                        "actions",
                        "rounds_simulated",
                        "wall_seconds",
                        "actions_per_second",
                        "trace_hash",
                        "stalled"})
    EXPECT_TRUE(names.count(p)) << p;
}

TEST(Figures, MissingOrNullIsNull) {
  const json s = summary();
  EXPECT_EQ(figure_value(figures()[column_of("latency_p50")], s), 3.5);
  EXPECT_TRUE(figure_value(figures()[column_of("latency_p90")], s).is_null());  // null
  EXPECT_TRUE(figure_value(figures()[column_of("latency_p99")], s).is_null());  // missing
  EXPECT_TRUE(figure_value(figures()[column_of("messages_per_lock")], s).is_null());
  EXPECT_EQ(figure_value(figures()[column_of("violations")], s), R"({"P7":2})");  // text: the JSON
}

TEST(Store, StoresEachPointOnceWithItsFigures) {
  Scratch dir;
  const auto sweep = sweep_of(small);
  const auto points = expand(sweep);
  Store store(dir / "r.sqlite", sweep, Store::Mode::write);
  EXPECT_TRUE(store.stored_keys().empty());
  EXPECT_TRUE(store.put(points[1], summary()));
  EXPECT_FALSE(store.put(points[1], summary()));  // the UNIQUE point key
  EXPECT_TRUE(store.put(points[0], summary()));
  EXPECT_EQ(store.stored_keys(), (std::unordered_set<std::string>{points[0].key, points[1].key}));
  const auto rows = store.rows();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].point, points[1].key);  // insertion order
  EXPECT_EQ(rows[0].grid, points[1].grid);
  EXPECT_EQ(rows[0].seed, points[1].seed);
  EXPECT_EQ(rows[0].base_hash, sweep.base_hash);
  EXPECT_EQ(rows[0].values[column_of("locks_completed")], 10);
  EXPECT_EQ(rows[0].values[column_of("latency_p50")], 3.5);
  EXPECT_TRUE(rows[0].values[column_of("latency_p90")].is_null());
  EXPECT_TRUE(rows[0].values[column_of("latency_p99")].is_null());
  EXPECT_EQ(rows[0].values[column_of("trials_max")], 4);
  EXPECT_EQ(rows[0].values[column_of("stalled")], 0);
  EXPECT_EQ(rows[0].values[column_of("trace_hash")], "00112233aabbccdd");
  EXPECT_EQ(rows[0].values[column_of("P1")], "pass");
  EXPECT_EQ(rows[0].values[column_of("P7")], "fail");
  EXPECT_TRUE(rows[0].values[column_of("P2")].is_null());
}

TEST(Store, KeepsTheWholeSummaryAndTheGridColumns) {
  Scratch dir;
  const auto sweep = sweep_of(small);
  const auto points = expand(sweep);
  {
    Store store(dir / "r.sqlite", sweep, Store::Mode::write);
    store.put(points[2], summary());
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((dir / "r.sqlite").string().c_str(), &db), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT k, seed, summary, lmx_version FROM small", -1, &st, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_type(st, 0), SQLITE_INTEGER);
  EXPECT_EQ(sqlite3_column_int(st, 0), 3);
  EXPECT_EQ(sqlite3_column_int(st, 1), 1);
  EXPECT_EQ(json::parse(reinterpret_cast<const char*>(sqlite3_column_text(st, 2))), summary());
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(sqlite3_column_text(st, 3))), lmx::core::version);
  sqlite3_finalize(st);
  sqlite3_close(db);
}

TEST(Store, ANewGridKeyGetsAColumnAndOldRowsStay) {
  Scratch dir;
  const auto first = sweep_of(small);
  Store(dir / "r.sqlite", first, Store::Mode::write).put(expand(first)[0], summary());
  const auto second = sweep_of(small + "delta = [4, 6]\n");
  Store store(dir / "r.sqlite", second, Store::Mode::write);
  const auto points = expand(second);
  EXPECT_TRUE(store.put(points[0], summary()));
  const auto rows = store.rows();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_FALSE(rows[0].grid.contains("delta"));
  EXPECT_EQ(rows[1].grid["delta"], 4);
}

TEST(Store, RefusesToMixBaseScenarios) {
  Scratch dir;
  const auto first = sweep_of(small);
  Store(dir / "r.sqlite", first, Store::Mode::write).put(expand(first)[0], summary());
  std::string changed = small;
  changed.replace(changed.find("nodes = 12"), 10, "nodes = 13");
  const auto second = sweep_of(changed);
  try {
    Store store(dir / "r.sqlite", second, Store::Mode::write);
    FAIL() << "mixed base scenarios";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("holds 1 point(s) of another base scenario"), std::string::npos) << e.what();
  }
  // reading shows them as rows of another base
  const Store reader(dir / "r.sqlite", second, Store::Mode::read);
  EXPECT_EQ(reader.other_base_rows(), 1u);
  // another sweep name is another table: no conflict
  std::string renamed = changed;
  renamed.replace(renamed.find("small"), 5, "small2");
  EXPECT_NO_THROW(Store(dir / "r.sqlite", sweep_of(renamed), Store::Mode::write));
}

TEST(Store, ReadingNeedsAStoreAndATable) {
  Scratch dir;
  const auto sweep = sweep_of(small);
  EXPECT_THROW(Store(dir / "none.sqlite", sweep, Store::Mode::read), StoreError);
  EXPECT_FALSE(std::filesystem::exists(dir / "none.sqlite"));
  { Store(dir / "r.sqlite", sweep_of("name = \"other\"\nseeds = 1"), Store::Mode::write); }
  EXPECT_THROW(Store(dir / "r.sqlite", sweep, Store::Mode::read), StoreError);
}

TEST(Store, NotADatabaseIsAClearError) {
  Scratch dir;
  dir.write("junk.sqlite", "this is not a database, just text that is long enough to have a header");
  try {
    Store store(dir / "junk.sqlite", sweep_of(small), Store::Mode::write);
    FAIL();
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("junk.sqlite"), std::string::npos) << e.what();
  }
}

TEST(Store, AGridKeyMayNotTakeAStoreColumnName) {
  Scratch dir;
  auto sweep = sweep_of(small);
  sweep.axes.push_back({"summary", {1}});
  EXPECT_THROW(Store(dir / "r.sqlite", sweep, Store::Mode::write), StoreError);
  EXPECT_TRUE(is_reserved_column("point"));
  EXPECT_TRUE(is_reserved_column("latency_p50"));
  EXPECT_FALSE(is_reserved_column("delta"));
  EXPECT_FALSE(is_reserved_column("rounds"));  // the scenario key: the figure is rounds_simulated
}

// ------------------------------------------------------------------ population sweeps

const std::string population = R"(name = "pop"
seeds = 2
[pp]
protocol = "epidemic"
scheduler = "lock-pair"
agents = 12
[grid]
topology.kind = ["regular", "ring"]
)";

std::size_t population_column(std::string_view name) {
  const auto f = population_figures();
  for (std::size_t i = 0; i < f.size(); ++i)
    if (f[i].column == name) return i;
  ADD_FAILURE() << "no population figure " << name;
  return 0;
}

json pp_summary() {
  return {{"protocol", "epidemic"},
          {"converged", true},
          {"outcome", "consensus I"},
          {"interactions", 300},
          {"parallel_time", 25.0},
          {"rounds", 80.5},
          {"interactions_per_round", 3.7},
          {"lock", {{"no_partner", 2}, {"messages_per_interaction", 18.5}}},
          {"violations", json::array({json{{"property", "isolation"}}, json{{"property", "P1"}}})},
          {"run", {{"stalled", false}, {"trace_hash", "0123456789abcdef"}, {"properties", {{"P1", "fail"}}}}}};
}

TEST(PopulationFigures, ColumnsAreUniqueAndNoGridKeyOfAPopulationSweep) {
  std::set<std::string_view> names;
  for (const auto& f : population_figures()) {
    EXPECT_TRUE(is_identifier(std::string(f.column))) << f.column;
    EXPECT_TRUE(names.insert(f.column).second) << f.column;
    EXPECT_EQ(f.pointer.substr(0, 1), "/") << f.column;
    EXPECT_FALSE(f.label.empty());
    // a population sweep's grid keys: its own keys and scenario keys
    EXPECT_FALSE(is_population_key(std::string(f.column))) << f.column;
  }
  for (const char* key : {"rounds", "nodes", "delta", "k", "engine", "variant", "horizon", "name", "agents",
                          "scheduler", "max_time", "interactions_per_round"})
    EXPECT_FALSE(names.count(key)) << key;
  for (const char* c : {"converged", "parallel_time", "interactions", "effective_interactions", "rounds_simulated",
                        "interactions_per_round_measured", "outcome", "no_partner", "lock_cycles", "lock_requests",
                        "messages_per_interaction", "violations", "wall_seconds", "interactions_per_second", "P1", "P7",
                        "stalled", "trace_hash"})
    EXPECT_TRUE(names.count(c)) << c;
  const auto sweep = sweep_of(population);
  EXPECT_EQ(figures(sweep).data(), population_figures().data());
  EXPECT_EQ(figures(sweep_of(small)).data(), figures().data());
  EXPECT_TRUE(is_reserved_column("converged", sweep));
  EXPECT_TRUE(is_reserved_column("summary", sweep));
  EXPECT_FALSE(is_reserved_column("converged"));
  EXPECT_FALSE(is_reserved_column("topology.kind", sweep));
}

TEST(PopulationFigures, ValuesAndCounts) {
  const json s = pp_summary();
  const auto f = population_figures();
  EXPECT_EQ(figure_value(f[population_column("converged")], s), true);
  EXPECT_EQ(figure_value(f[population_column("outcome")], s), "consensus I");
  EXPECT_EQ(figure_value(f[population_column("rounds_simulated")], s), 80.5);
  EXPECT_EQ(figure_value(f[population_column("interactions_per_round_measured")], s), 3.7);
  EXPECT_EQ(figure_value(f[population_column("no_partner")], s), 2);
  EXPECT_EQ(figure_value(f[population_column("violations")], s), 2);  // a count of the list
  EXPECT_EQ(figure_value(f[population_column("violations")], json{{"violations", json::array()}}), 0);
  EXPECT_TRUE(figure_value(f[population_column("violations")], json::object()).is_null());
  EXPECT_EQ(figure_value(f[population_column("P1")], s), "fail");
  EXPECT_TRUE(figure_value(f[population_column("P2")], s).is_null());
  EXPECT_TRUE(figure_value(f[population_column("lock_cycles")], s).is_null());  // not a lock scheduler
}

TEST(Store, APopulationSweepStoresItsFigures) {
  Scratch dir;
  const auto sweep = sweep_of(population);
  const auto points = expand(sweep);
  {
    Store store(dir / "r.sqlite", sweep, Store::Mode::write);
    EXPECT_TRUE(store.put(points[2], pp_summary()));
    EXPECT_FALSE(store.put(points[2], pp_summary()));
    const auto rows = store.rows();
    ASSERT_EQ(rows.size(), 1u);
    ASSERT_EQ(rows[0].values.size(), population_figures().size());
    EXPECT_EQ(rows[0].grid, points[2].grid);
    EXPECT_EQ(rows[0].values[population_column("converged")], 1);
    EXPECT_EQ(rows[0].values[population_column("violations")], 2);
    EXPECT_EQ(rows[0].values[population_column("outcome")], "consensus I");
    EXPECT_EQ(rows[0].values[population_column("stalled")], 0);
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((dir / "r.sqlite").string().c_str(), &db), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT \"topology.kind\", converged, violations, parallel_time, summary FROM pop",
                               -1, &st, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(sqlite3_column_text(st, 0))), "ring");
  EXPECT_EQ(sqlite3_column_type(st, 1), SQLITE_INTEGER);
  EXPECT_EQ(sqlite3_column_type(st, 2), SQLITE_INTEGER);
  EXPECT_EQ(sqlite3_column_double(st, 3), 25.0);
  EXPECT_EQ(json::parse(reinterpret_cast<const char*>(sqlite3_column_text(st, 4))), pp_summary());
  sqlite3_finalize(st);
  sqlite3_close(db);
}

TEST(Store, KeepsTheTwoKindsOfSweepApart) {
  Scratch dir;
  // a sweep of scenarios and a population sweep of the same name: neither opens the other's table,
  // in either mode, and nothing is added to it
  std::string scenarios = small;
  scenarios.replace(scenarios.find("small"), 5, "pop");
  const auto run_sweep = sweep_of(scenarios);
  Store(dir / "a.sqlite", run_sweep, Store::Mode::write).put(expand(run_sweep)[0], summary());
  for (auto mode : {Store::Mode::write, Store::Mode::read}) {
    try {
      Store store(dir / "a.sqlite", sweep_of(population), mode);
      FAIL() << "a population sweep opened a table of scenarios";
    } catch (const StoreError& e) {
      EXPECT_NE(std::string(e.what()).find(
                    "table 'pop' holds the points of a sweep of scenarios, and sweep 'pop' is a population sweep; "
                    "give the sweep a new name or use another --db"),
                std::string::npos)
          << e.what();
    }
  }
  EXPECT_EQ(Store(dir / "a.sqlite", run_sweep, Store::Mode::read).rows().size(), 1u);
  const auto pop = sweep_of(population);
  { Store(dir / "b.sqlite", pop, Store::Mode::write); }  // an empty table is of its kind too
  try {
    Store store(dir / "b.sqlite", run_sweep, Store::Mode::write);
    FAIL() << "a sweep of scenarios opened a population table";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("holds the points of a population sweep"), std::string::npos) << e.what();
  }
}

}  // namespace
