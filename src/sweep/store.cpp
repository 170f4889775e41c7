// The SQLite result store (store.hpp): a thin layer over the C API.
#include "lmx/sweep/store.hpp"

#include <sqlite3.h>

#include <array>
#include <ctime>
#include <set>

#include "lmx/core/protocol.hpp"

namespace lmx::sweep {

using nlohmann::json;

namespace {

// The figure columns: name, JSON pointer into the run summary (docs/run-format.md), kind, label.
constexpr std::array<Figure, 37> figure_table{{
    {"locks_completed", "/locks_completed", Kind::integer, "Locks completed"},
    {"locks_requested", "/locks_requested", Kind::integer, "Locks requested"},
    {"locks_pending", "/locks_pending", Kind::integer, "Locks pending at the end"},
    {"locks_per_round", "/locks_per_round", Kind::real, "Locks completed per round"},
    {"latency_p50", "/latency_rounds/p50", Kind::real, "Lock latency p50 (rounds)"},
    {"latency_p90", "/latency_rounds/p90", Kind::real, "Lock latency p90 (rounds)"},
    {"latency_p99", "/latency_rounds/p99", Kind::real, "Lock latency p99 (rounds)"},
    {"latency_max", "/latency_rounds/max", Kind::real, "Lock latency max (rounds)"},
    {"latency_mean", "/latency_rounds/mean", Kind::real, "Lock latency mean (rounds)"},
    {"pending_p50", "/latency_rounds_with_pending/p50", Kind::real, "Latency p50, pending at their age (rounds)"},
    {"pending_p99", "/latency_rounds_with_pending/p99", Kind::real, "Latency p99, pending at their age (rounds)"},
    {"pending_max", "/latency_rounds_with_pending/max", Kind::real, "Latency max, pending at their age (rounds)"},
    {"throughput_over_bound", "/throughput_over_bound", Kind::real, "Locks per round / throughput limit"},
    {"bound_locks_per_round", "/throughput_bound/locks_per_round", Kind::real, "Throughput limit (locks per round)"},
    {"occupancy_rounds", "/throughput_bound/occupancy_rounds", Kind::real, "Rounds a lock set is occupied"},
    {"messages_per_lock", "/messages_per_lock", Kind::real, "Messages per Lock"},
    {"trials_mean", "/trials_per_lock/mean", Kind::real, "Competition trials per Lock (mean)"},
    {"trials_max", "/trials_per_lock/max", Kind::integer, "Competition trials per Lock (max)"},
    {"jain_fairness", "/jain_fairness", Kind::real, "Jain fairness over nodes"},
    {"mean_locked", "/mean_locked", Kind::real, "LOCKED nodes at once (mean)"},
    {"max_in_transit_per_edge", "/max_in_transit_per_edge", Kind::integer, "Messages in transit per edge (max)"},
    {"messages", "/messages", Kind::integer, "Messages sent"},
    {"actions", "/actions", Kind::integer, "Actions"},
    {"rounds_simulated", "/rounds", Kind::integer, "Rounds simulated"},
    {"wall_seconds", "/wall_seconds", Kind::real, "Wall time (s)"},
    {"actions_per_second", "/actions_per_second", Kind::real, "Actions per second"},
    {"trace_hash", "/trace_hash", Kind::text, "Trace hash"},
    {"stalled", "/stalled", Kind::flag, "Global stall"},
    {"P1", "/properties/P1", Kind::verdict, "P1 mutual exclusion"},
    {"P2", "/properties/P2", Kind::verdict, "P2 isolation"},
    {"P3", "/properties/P3", Kind::verdict, "P3 success semantics"},
    {"P4", "/properties/P4", Kind::verdict, "P4 two messages per edge"},
    {"P5", "/properties/P5", Kind::verdict, "P5 O(Delta) node state"},
    {"P6", "/properties/P6", Kind::verdict, "P6 constant-size messages"},
    {"P7", "/properties/P7", Kind::verdict, "P7 lockout freedom"},
    {"violations", "/violation_counts", Kind::text, "Violations per property"},
    {"edges", "/edges", Kind::integer, "Edges at the end"},
}};

// The figure columns of a population sweep: from the `lmx pp run --json` object (docs/population.md,
// "Results"). Names avoid the scenario and population keys a grid may sweep (rounds,
// interactions_per_round). The P1-P7 verdicts and the stall come from the engine's run (graph
// schedulers; NULL under the sequential scheduler).
constexpr std::array<Figure, 25> population_figure_table{{
    {"converged", "/converged", Kind::flag, "Stop condition reached"},
    {"parallel_time", "/parallel_time", Kind::real, "Parallel time (interactions per agent)"},
    {"interactions", "/interactions", Kind::integer, "Interactions"},
    {"effective_interactions", "/effective_interactions", Kind::integer, "Interactions that changed a state"},
    {"rounds_simulated", "/rounds", Kind::real, "Rounds (graph schedulers)"},
    {"interactions_per_round_measured", "/interactions_per_round", Kind::real, "Interactions per round"},
    {"outcome", "/outcome", Kind::text, "Outcome"},
    {"lock_requests", "/lock/lock_requests", Kind::integer, "Lock calls"},
    {"lock_cycles", "/lock/lock_cycles", Kind::integer, "Locks completed"},
    {"no_partner", "/lock/no_partner", Kind::integer, "Locks completed without a partner"},
    {"messages", "/lock/messages", Kind::integer, "Messages sent"},
    {"messages_per_interaction", "/lock/messages_per_interaction", Kind::real, "Messages per interaction"},
    {"lock_requests_per_interaction", "/lock/lock_requests_per_interaction", Kind::real, "Lock calls per interaction"},
    {"violations", "/violations", Kind::count, "Monitor findings (P1-P7, isolation)"},
    {"stalled", "/run/stalled", Kind::flag, "Global stall"},
    {"P1", "/run/properties/P1", Kind::verdict, "P1 mutual exclusion"},
    {"P2", "/run/properties/P2", Kind::verdict, "P2 isolation"},
    {"P3", "/run/properties/P3", Kind::verdict, "P3 success semantics"},
    {"P4", "/run/properties/P4", Kind::verdict, "P4 two messages per edge"},
    {"P5", "/run/properties/P5", Kind::verdict, "P5 O(Delta) node state"},
    {"P6", "/run/properties/P6", Kind::verdict, "P6 constant-size messages"},
    {"P7", "/run/properties/P7", Kind::verdict, "P7 lockout freedom"},
    {"trace_hash", "/run/trace_hash", Kind::text, "Trace hash"},
    {"wall_seconds", "/wall_seconds", Kind::real, "Wall time (s)"},
    {"interactions_per_second", "/interactions_per_second", Kind::real, "Interactions per second"},
}};

constexpr std::array<std::string_view, 6> fixed_columns{"point",     "seed",        "lmx_version",
                                                        "base_hash", "finished_at", "summary"};

std::string quote(std::string_view name) {
  std::string q = "\"";
  for (char c : name) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string_view sql_type(Kind k) {
  switch (k) {
    case Kind::integer:
    case Kind::flag:
    case Kind::count: return "INTEGER";
    case Kind::real: return "REAL";
    case Kind::text:
    case Kind::verdict: return "TEXT";
  }
  return "";
}

class Statement {
 public:
  Statement(sqlite3* db, const std::string& sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt_, nullptr) != SQLITE_OK) stmt_ = nullptr;
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  [[nodiscard]] bool ok() const { return stmt_ != nullptr; }
  sqlite3_stmt* get() { return stmt_; }
  void bind(int i, const json& v) {
    if (v.is_null())
      sqlite3_bind_null(stmt_, i);
    else if (v.is_boolean())
      sqlite3_bind_int64(stmt_, i, v.get<bool>() ? 1 : 0);
    else if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
      sqlite3_bind_double(stmt_, i, v.get<double>());
    else if (v.is_number_integer())
      sqlite3_bind_int64(stmt_, i, v.get<std::int64_t>());
    else if (v.is_number())
      sqlite3_bind_double(stmt_, i, v.get<double>());
    else
      bind(i, v.is_string() ? v.get<std::string>() : v.dump());
  }
  void bind(int i, const std::string& s) {
    sqlite3_bind_text(stmt_, i, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
  }
  json column(int i) {
    switch (sqlite3_column_type(stmt_, i)) {
      case SQLITE_INTEGER: return sqlite3_column_int64(stmt_, i);
      case SQLITE_FLOAT: return sqlite3_column_double(stmt_, i);
      case SQLITE_NULL: return nullptr;
      default: return text(i);
    }
  }
  std::string text(int i) {
    const auto* p = sqlite3_column_text(stmt_, i);
    return p ? std::string(reinterpret_cast<const char*>(p), static_cast<std::size_t>(sqlite3_column_bytes(stmt_, i)))
             : std::string();
  }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::array<char, 32> text{};
  std::strftime(text.data(), text.size(), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text.data();
}

}  // namespace

std::span<const Figure> figures() { return figure_table; }
std::span<const Figure> population_figures() { return population_figure_table; }
std::span<const Figure> figures(const Sweep& sweep) { return sweep.population ? population_figures() : figures(); }

namespace {
bool is_fixed_or_figure(std::string_view name, std::span<const Figure> figs) {
  for (auto c : fixed_columns)
    if (c == name) return true;
  for (const auto& f : figs)
    if (f.column == name) return true;
  return false;
}
}  // namespace

bool is_reserved_column(std::string_view name) { return is_fixed_or_figure(name, figure_table); }
bool is_reserved_column(std::string_view name, const Sweep& sweep) { return is_fixed_or_figure(name, figures(sweep)); }

json figure_value(const Figure& f, const json& summary) {
  const json::json_pointer ptr{std::string(f.pointer)};
  if (!summary.contains(ptr)) return nullptr;
  const json& v = summary.at(ptr);
  if (f.kind == Kind::text && !v.is_null() && !v.is_string()) return v.dump();  // e.g. the violation counts
  if (f.kind == Kind::count) return v.is_array() || v.is_object() ? json(v.size()) : json(nullptr);
  return v;
}

std::string Store::fail(const std::string& what) const {
  return path_.string() + ": " + what + (db_ ? std::string(": ") + sqlite3_errmsg(db_) : std::string());
}

void Store::exec(const std::string& sql) const {
  char* message = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    const std::string text = message ? message : "unknown error";
    sqlite3_free(message);
    throw StoreError(path_.string() + ": " + text);
  }
}

Store::Store(const std::filesystem::path& db, const Sweep& sweep, Mode mode)
    : path_(db), table_(sweep.name), base_hash_(sweep.base_hash), figures_(figures(sweep)) {
  for (const auto& a : sweep.axes)
    if (is_reserved_column(a.key, sweep))
      throw StoreError("grid key '" + a.key + "' has the name of a store column; sweep it under another name");
  if (mode == Mode::read && !std::filesystem::exists(db))
    throw StoreError("no results yet: " + db.string() + " does not exist (run `lmx sweep " + sweep.source +
                     "` first, or name the store with --db)");
  // Reading opens read-write when it may (nothing is written), so that SQLite can tidy the WAL
  // files away on close; a read-only file is still read.
  int rc =
      sqlite3_open_v2(db.string().c_str(), &db_,
                      mode == Mode::read ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  if (rc != SQLITE_OK && mode == Mode::read) {
    sqlite3_close(db_);
    rc = sqlite3_open_v2(db.string().c_str(), &db_, SQLITE_OPEN_READONLY, nullptr);
  }
  if (rc != SQLITE_OK) {
    const std::string message = fail("cannot open the result store");
    sqlite3_close(db_);
    db_ = nullptr;
    throw StoreError(message);
  }
  try {
    sqlite3_busy_timeout(db_, 10'000);  // another lmx reading the store holds its lock briefly
    // Each finished point is committed on its own; WAL keeps a commit once written even if the
    // process is killed the next instant, and lets --table read while a sweep writes.
    Statement probe(db_, "SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?");
    if (!probe.ok()) throw StoreError(fail("not a result store"));
    probe.bind(1, table_);
    const int found = sqlite3_step(probe.get());
    if (found != SQLITE_ROW && found != SQLITE_DONE) throw StoreError(fail("not a result store"));
    const bool exists = found == SQLITE_ROW;
    // The columns the table has, before anything is added.
    std::set<std::string> have;
    if (exists) {
      Statement info(db_, "SELECT name FROM pragma_table_info(?)");
      info.bind(1, table_);
      while (sqlite3_step(info.get()) == SQLITE_ROW) have.insert(info.text(0));
    }
    // A sweep of scenarios and a population sweep of the same name are two tables' worth of
    // columns: one kind's figure column in the other kind's table tells them apart.
    const auto other_kind = sweep.population ? figures() : population_figures();
    for (const auto& f : other_kind)
      if (have.count(std::string(f.column)) && !is_fixed_or_figure(f.column, figures_))
        throw StoreError(path_.string() + ": table '" + table_ + "' holds the points of " +
                         (sweep.population ? "a sweep of scenarios" : "a population sweep") + ", and sweep '" + table_ +
                         "' is " + (sweep.population ? "a population sweep" : "a sweep of scenarios") +
                         "; give the sweep a new name or use another --db");
    if (mode == Mode::read) {
      if (!exists)
        throw StoreError(path_.string() + " holds no results of sweep '" + table_ + "' (run `lmx sweep " +
                         sweep.source + "` first)");
    } else {
      exec("PRAGMA journal_mode = WAL");
      exec("PRAGMA synchronous = NORMAL");
      if (!exists) {
        std::string sql = "CREATE TABLE " + quote(table_) + " (point TEXT NOT NULL UNIQUE, seed INTEGER NOT NULL";
        for (const auto& a : sweep.axes) sql += ", " + quote(a.key);
        for (const auto& f : figures_) sql += ", " + quote(f.column) + " " + std::string(sql_type(f.kind));
        sql +=
            ", summary TEXT NOT NULL, lmx_version TEXT NOT NULL, base_hash TEXT NOT NULL, finished_at TEXT NOT NULL)";
        exec(sql);
      }
      // A table made by an earlier grid or an earlier lmx gets the columns it lacks.
      if (!exists) {
        Statement info(db_, "SELECT name FROM pragma_table_info(?)");
        info.bind(1, table_);
        while (sqlite3_step(info.get()) == SQLITE_ROW) have.insert(info.text(0));
      }
      for (auto c : fixed_columns)
        if (!have.count(std::string(c)))
          throw StoreError(path_.string() + ": table '" + table_ + "' is not an lmx sweep table (no column " +
                           std::string(c) + ")");
      for (const auto& a : sweep.axes)
        if (!have.count(a.key)) exec("ALTER TABLE " + quote(table_) + " ADD COLUMN " + quote(a.key));
      for (const auto& f : figures_)
        if (!have.count(std::string(f.column))) {
          exec("ALTER TABLE " + quote(table_) + " ADD COLUMN " + quote(f.column) + " " + std::string(sql_type(f.kind)));
          // fill the new column from the summaries already stored
          Statement read(db_, "SELECT rowid, summary FROM " + quote(table_));
          Statement write(db_, "UPDATE " + quote(table_) + " SET " + quote(f.column) + " = ? WHERE rowid = ?");
          if (!read.ok() || !write.ok()) throw StoreError(fail("cannot add column " + std::string(f.column)));
          while (sqlite3_step(read.get()) == SQLITE_ROW) {
            const auto summary = json::parse(read.text(1), nullptr, false);
            write.bind(1, summary.is_discarded() ? json(nullptr) : figure_value(f, summary));
            sqlite3_bind_int64(write.get(), 2, sqlite3_column_int64(read.get(), 0));
            if (sqlite3_step(write.get()) != SQLITE_DONE)
              throw StoreError(fail("cannot fill " + std::string(f.column)));
            sqlite3_reset(write.get());
          }
        }
      if (const auto other = other_base_rows())
        throw StoreError(path_.string() + ": sweep '" + table_ + "' holds " + std::to_string(other) +
                         " point(s) of another base scenario (the sweep file's base hash is " + base_hash_ +
                         "); give the sweep a new name or use another --db");
    }
  } catch (...) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw;
  }
}

Store::~Store() { sqlite3_close(db_); }

std::unordered_set<std::string> Store::stored_keys() const {
  std::unordered_set<std::string> keys;
  Statement s(db_, "SELECT point FROM " + quote(table_));
  if (!s.ok()) throw StoreError(fail("cannot read"));
  int rc;
  while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) keys.insert(s.text(0));
  if (rc != SQLITE_DONE) throw StoreError(fail("cannot read"));
  return keys;
}

bool Store::put(const Point& point, const json& summary) {
  std::string columns = "point, seed", marks = "?, ?";
  for (auto it = point.grid.begin(); it != point.grid.end(); ++it) {
    columns += ", " + quote(it.key());
    marks += ", ?";
  }
  for (const auto& f : figures_) {
    columns += ", " + quote(f.column);
    marks += ", ?";
  }
  columns += ", summary, lmx_version, base_hash, finished_at";
  marks += ", ?, ?, ?, ?";
  // One statement is one transaction: the row is there completely or not at all.
  Statement s(
      db_, "INSERT INTO " + quote(table_) + " (" + columns + ") VALUES (" + marks + ") ON CONFLICT(point) DO NOTHING");
  if (!s.ok()) throw StoreError(fail("cannot store point " + point.describe()));
  int i = 1;
  s.bind(i++, point.key);
  s.bind(i++, json(point.seed));
  for (auto it = point.grid.begin(); it != point.grid.end(); ++it) s.bind(i++, it.value());
  for (const auto& f : figures_) s.bind(i++, figure_value(f, summary));
  s.bind(i++, summary.dump(-1, ' ', false, json::error_handler_t::replace));
  s.bind(i++, std::string(core::version));
  s.bind(i++, base_hash_);
  s.bind(i++, utc_now());
  if (sqlite3_step(s.get()) != SQLITE_DONE) throw StoreError(fail("cannot store point " + point.describe()));
  return sqlite3_changes(db_) == 1;
}

std::vector<Row> Store::rows() const {
  std::string sql = "SELECT point, seed, lmx_version, base_hash";
  for (const auto& f : figures_) sql += ", " + quote(f.column);
  sql += " FROM " + quote(table_) + " ORDER BY rowid";
  Statement s(db_, sql);
  if (!s.ok()) throw StoreError(fail("cannot read"));
  std::vector<Row> rows;
  int rc;
  while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) {
    Row r;
    r.point = s.text(0);
    const auto key = json::parse(r.point, nullptr, false);
    if (key.is_object() && key.contains("grid") && key["grid"].is_object()) r.grid = key["grid"];
    r.seed = static_cast<std::uint64_t>(sqlite3_column_int64(s.get(), 1));
    r.lmx_version = s.text(2);
    r.base_hash = s.text(3);
    for (std::size_t i = 0; i < figures_.size(); ++i) r.values.push_back(s.column(static_cast<int>(4 + i)));
    rows.push_back(std::move(r));
  }
  if (rc != SQLITE_DONE) throw StoreError(fail("cannot read"));
  return rows;
}

std::size_t Store::other_version_rows() const {
  Statement s(db_, "SELECT COUNT(*) FROM " + quote(table_) + " WHERE lmx_version <> ?");
  if (!s.ok()) throw StoreError(fail("cannot read"));
  s.bind(1, std::string(core::version));
  if (sqlite3_step(s.get()) != SQLITE_ROW) throw StoreError(fail("cannot read"));
  return static_cast<std::size_t>(sqlite3_column_int64(s.get(), 0));
}

std::size_t Store::other_base_rows() const {
  Statement s(db_, "SELECT COUNT(*) FROM " + quote(table_) + " WHERE base_hash <> ?");
  if (!s.ok()) throw StoreError(fail("cannot read"));
  s.bind(1, base_hash_);
  if (sqlite3_step(s.get()) != SQLITE_ROW) throw StoreError(fail("cannot read"));
  return static_cast<std::size_t>(sqlite3_column_int64(s.get(), 0));
}

}  // namespace lmx::sweep
