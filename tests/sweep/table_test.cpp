// Tables of stored points: the selection of the current grid, CSV and the per-point aggregate.
#include "lmx/sweep/table.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace {

using namespace lmx::sweep;
using nlohmann::json;

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream s(text);
  for (std::string l; std::getline(s, l);) out.push_back(l);
  return out;
}

std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        out.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

std::size_t column_of(const std::vector<std::string>& header, const std::string& name) {
  for (std::size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return i;
  ADD_FAILURE() << "no column " << name;
  return 0;
}

Row row(const Point& p, const std::string& base_hash, double p50, const std::string& p7) {
  Row r;
  r.point = p.key;
  r.grid = p.grid;
  r.seed = p.seed;
  r.base_hash = base_hash;
  for (const auto& f : figures()) {
    if (f.column == "latency_p50")
      r.values.emplace_back(p50);
    else if (f.column == "P7")
      r.values.emplace_back(p7);
    else if (f.column == "trace_hash")
      r.values.emplace_back("a,\"b\"");
    else if (f.column == "locks_completed")
      r.values.emplace_back(static_cast<std::int64_t>(p50 * 10));
    else if (f.column == "stalled")
      r.values.emplace_back(p7 == "fail" ? 1 : 0);
    else
      r.values.emplace_back(nullptr);
  }
  return r;
}

struct Fixture : ::testing::Test {
  Sweep sweep = parse_sweep("name = \"t\"\nseeds = 2\n[grid]\nk = [2, 4]\ntopology.kind = [\"ring\"]\n", "t.toml");
  std::vector<Point> points = expand(sweep);
  std::vector<Row> stored() {
    // stored out of order, with one row of a point no longer in the grid and one of another base
    Point old;
    old.grid = {{"k", 8}};
    old.seed = 1;
    old.key = point_key(old.grid, 1);
    Point other_base = points[0];
    other_base.key = point_key({{"k", 2}, {"topology.kind", "grid"}}, 1);
    other_base.grid = {{"k", 2}, {"topology.kind", "grid"}};
    return {row(points[3], sweep.base_hash, 4.5, "pass"), row(old, sweep.base_hash, 9, "pass"),
            row(points[0], sweep.base_hash, 1.0, "pass"), row(points[1], sweep.base_hash, 2.0, "fail"),
            row(points[2], sweep.base_hash, 3.5, "pass"), row(other_base, "0000000000000000", 7, "pass")};
  }
};

TEST_F(Fixture, SelectionShowsTheCurrentGridInOrder) {
  const auto s = select(sweep, points, stored(), false);
  ASSERT_EQ(s.rows.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(s.rows[i].point, points[i].key);
  EXPECT_EQ(s.hidden, 2u);
  EXPECT_EQ(s.grid_keys, (std::vector<std::string>{"k", "topology.kind"}));
  const auto all = select(sweep, points, stored(), true);
  EXPECT_EQ(all.rows.size(), 6u);
  EXPECT_EQ(all.hidden, 0u);
}

TEST_F(Fixture, CsvHasGridSeedAndEveryFigure) {
  const auto out = lines(csv(select(sweep, points, stored(), false)));
  ASSERT_EQ(out.size(), 5u);
  const auto header = fields(out[0]);
  EXPECT_EQ(header[0], "k");
  EXPECT_EQ(header[1], "topology.kind");
  EXPECT_EQ(header[2], "seed");
  EXPECT_EQ(header.size(), 3 + figures().size());
  const auto first = fields(out[1]);
  ASSERT_EQ(first.size(), header.size());
  EXPECT_EQ(first[0], "2");
  EXPECT_EQ(first[1], "ring");
  EXPECT_EQ(first[2], "1");
  EXPECT_EQ(first[column_of(header, "latency_p50")], "1.0");
  EXPECT_EQ(first[column_of(header, "locks_completed")], "10");
  EXPECT_EQ(first[column_of(header, "trace_hash")], "a,\"b\"");  // quoted, and read back whole
  EXPECT_EQ(first[column_of(header, "latency_p90")], "");        // NULL
  EXPECT_EQ(fields(out[2])[column_of(header, "P7")], "fail");
}

TEST_F(Fixture, CsvAllAddsTheColumnsOfEarlierGrids) {
  const auto out = lines(csv(select(sweep, points, stored(), true)));
  ASSERT_EQ(out.size(), 7u);
  EXPECT_EQ(fields(out[0])[2], "seed");
  const auto old = fields(out[5]);
  EXPECT_EQ(old[0], "8");
  EXPECT_EQ(old[1], "");  // no topology.kind in that grid
}

TEST_F(Fixture, ByPointAggregatesOverSeeds) {
  const auto out = lines(csv_by_point(select(sweep, points, stored(), false)));
  ASSERT_EQ(out.size(), 3u);
  const auto header = fields(out[0]);
  EXPECT_EQ(header[2], "seeds");
  const auto first = fields(out[1]);
  ASSERT_EQ(first.size(), header.size());
  EXPECT_EQ(first[0], "2");
  EXPECT_EQ(first[2], "2");
  EXPECT_EQ(first[column_of(header, "latency_p50_mean")], "1.5");
  EXPECT_EQ(first[column_of(header, "latency_p50_min")], "1.0");
  EXPECT_EQ(first[column_of(header, "latency_p50_max")], "2.0");
  EXPECT_EQ(first[column_of(header, "locks_completed_min")], "10");
  EXPECT_EQ(first[column_of(header, "locks_completed_max")], "20");
  EXPECT_EQ(first[column_of(header, "P7_fail")], "1");
  EXPECT_EQ(first[column_of(header, "stalled_count")], "1");
  EXPECT_EQ(first[column_of(header, "latency_p90_mean")], "");   // no values
  for (const auto& h : header) EXPECT_NE(h, "trace_hash_mean");  // text is not aggregated
  const auto second = fields(out[2]);
  EXPECT_EQ(second[column_of(header, "latency_p50_mean")], "4.0");
  EXPECT_EQ(second[column_of(header, "P7_fail")], "0");
}

TEST_F(Fixture, ReportDataNamesAxesFiguresAndRows) {
  const auto d = report_data(sweep, select(sweep, points, stored(), false), points.size());
  EXPECT_EQ(d["name"], "t");
  EXPECT_EQ(d["axes"][0]["key"], "k");
  EXPECT_EQ(d["axes"][0]["values"], (json{2, 4}));
  EXPECT_EQ(d["seeds"], (json{1, 2}));
  EXPECT_EQ(d["total_points"], 4);
  EXPECT_EQ(d["hidden"], 2);
  EXPECT_EQ(d["figures"].size(), figures().size());
  ASSERT_EQ(d["rows"].size(), 4u);
  EXPECT_EQ(d["rows"][0]["grid"], points[0].grid);
  EXPECT_EQ(d["rows"][0]["values"].size(), figures().size());
}

TEST(PopulationTable, CsvAndReportDataUseThePopulationFigures) {
  const auto sweep = parse_sweep(
      "name = \"p\"\nseeds = 2\n[pp]\nprotocol = \"epidemic\"\nscheduler = \"lock-pair\"\nagents = 12\n[grid]\n"
      "topology.kind = [\"regular\", \"ring\"]\n",
      "p.toml");
  const auto points = expand(sweep);
  std::vector<Row> stored;
  for (const auto& p : points) {
    Row r;
    r.point = p.key;
    r.grid = p.grid;
    r.seed = p.seed;
    r.base_hash = sweep.base_hash;
    for (const auto& f : population_figures()) {
      if (f.column == "converged")
        r.values.emplace_back(p.seed == 1 ? 1 : 0);
      else if (f.column == "violations")
        r.values.emplace_back(p.seed);
      else if (f.column == "outcome")
        r.values.emplace_back("consensus I");
      else
        r.values.emplace_back(nullptr);
    }
    stored.push_back(std::move(r));
  }
  const auto s = select(sweep, points, stored, false);
  EXPECT_EQ(s.figures.data(), population_figures().data());
  const auto out = lines(csv(s));
  ASSERT_EQ(out.size(), 5u);
  const auto header = fields(out[0]);
  EXPECT_EQ(header.size(), 2 + population_figures().size());
  EXPECT_EQ(out[0].rfind("topology.kind,seed,converged,parallel_time,interactions,", 0), 0u) << out[0];
  EXPECT_EQ(fields(out[1])[column_of(header, "outcome")], "consensus I");
  const auto by = lines(csv_by_point(s));
  ASSERT_EQ(by.size(), 3u);
  const auto by_header = fields(by[0]);
  const auto first = fields(by[1]);
  EXPECT_EQ(first[column_of(by_header, "converged_count")], "1");
  EXPECT_EQ(first[column_of(by_header, "violations_mean")], "1.5");
  EXPECT_EQ(first[column_of(by_header, "violations_max")], "2");  // a count is an integer
  const auto d = report_data(sweep, s, points.size());
  EXPECT_EQ(d["figures"].size(), population_figures().size());
  EXPECT_EQ(d["base"]["pp"], (json{{"protocol", "epidemic"}, {"scheduler", "lock-pair"}, {"agents", 12}}));
  for (const auto& f : d["figures"]) {
    if (f["column"] == "violations") {
      EXPECT_EQ(f["kind"], "integer");  // the report plots it
    }
  }
}

}  // namespace
