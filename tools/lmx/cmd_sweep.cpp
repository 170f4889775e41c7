// `lmx sweep SWEEP.toml [--db FILE] [--jobs N]`: runs a grid of scenarios (or of population-protocol
// runs, a sweep file with [pp]) times seeds on all cores and keeps each point's `--json` summary in
// SQLite; `--table [FILE]` and `--report FILE` read the stored points back (docs/sweeps.md).
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "command.hpp"
#include "lmx/sweep/dispatch.hpp"
#ifdef LMX_WITH_MPI
#include "lmx/sweep/mpi.hpp"
#endif
#include "lmx/sweep/store.hpp"
#include "lmx/sweep/sweep.hpp"
#include "lmx/sweep/table.hpp"
#include "process.hpp"
#include "web_assets.hpp"

namespace {
using nlohmann::json;
using namespace lmx::sweep;
namespace fs = std::filesystem;
using lmx::cli::Failure;

struct SweepArgs {
  std::string file;
  std::string db;
  unsigned jobs = 0;
  std::string table_file;
  bool by_point = false;
  bool all = false;
  std::string report;
  bool dry_run = false;
  // Test-only faults, deterministic without timing: SIGKILL right after the N-th commit; SIGINT or
  // SIGKILL from the worker as it starts the N-th point dispatched (a SIGINT then cancels that
  // point after its engine's first step; points dispatched after it never start).
  std::size_t test_kill_after = 0;
  std::size_t test_interrupt_in_point = 0;
  std::size_t test_kill_in_point = 0;
};

// Set by SIGINT/SIGTERM; workers check it between engine steps.
std::atomic<bool> stop_flag{false};
volatile std::sig_atomic_t stop_signal = 0;
static_assert(std::atomic<bool>::is_always_lock_free, "the signal handler stores into stop_flag");

extern "C" void on_stop_signal(int sig) {
  stop_signal = sig;
  stop_flag.store(true);
}

/// Catches SIGINT and SIGTERM while points run; a second signal ends the process at once (the
/// store stays consistent: every row is committed whole).
class SignalGuard {
 public:
  SignalGuard() {
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;
    sigaction(SIGINT, &sa, &old_int_);
    sigaction(SIGTERM, &sa, &old_term_);
  }
  ~SignalGuard() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  SignalGuard(const SignalGuard&) = delete;
  SignalGuard& operator=(const SignalGuard&) = delete;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

bool same_file(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  if (fs::exists(a, ec) && fs::exists(b, ec) && fs::equivalent(a, b, ec)) return true;
  return fs::weakly_canonical(fs::absolute(a), ec) == fs::weakly_canonical(fs::absolute(b), ec);
}

/// Refuses an output path that names one of the sweep's inputs (or another output).
void refuse_inputs(const fs::path& out, const std::string& what, const std::vector<fs::path>& inputs) {
  for (const auto& in : inputs)
    if (same_file(out, in))
      throw Failure(fmt::format("{} '{}' is an input of the sweep ({}); choose another file", what, out.string(),
                                in.filename().string()));
}

void write_file(const fs::path& out, const std::string& text) {
  std::ofstream f(out, std::ios::binary | std::ios::trunc);
  if (!f) throw Failure(fmt::format("cannot write '{}'", out.string()));
  f << text;
  f.close();
  if (!f) throw Failure(fmt::format("writing '{}' failed", out.string()));
}

std::string duration(double seconds) {
  const auto s = static_cast<long long>(seconds + 0.5);
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m {:02}s", s / 60, s % 60);
  return fmt::format("{}h {:02}m", s / 3600, (s / 60) % 60);
}

/// A property failed, a global stall, or (a population sweep) a monitor's finding.
bool failed(const Row& r, std::span<const Figure> figs) {
  for (std::size_t i = 0; i < figs.size(); ++i) {
    const json& v = r.values[i];
    if (figs[i].kind == Kind::verdict && v.is_string() && v.get<std::string>() == "fail") return true;
    if ((figs[i].column == "stalled" || figs[i].kind == Kind::count) && v.is_number() && v.get<double>() != 0)
      return true;
  }
  return false;
}

/// The value of column `name` in a row, null when the sweep has no such figure.
json value_of(const Row& r, std::span<const Figure> figs, std::string_view name) {
  for (std::size_t i = 0; i < figs.size(); ++i)
    if (figs[i].column == name) return r.values[i];
  return nullptr;
}

std::string render_report(const json& data) {
  const auto page = lmx::web::sweep_html();
  if (page.empty()) throw Failure(std::string(lmx::web::not_built_hint));
  // Inside <script type="application/json">, "</" must not appear: JSON allows "\/" instead.
  const std::string text = data.dump(-1, ' ', false, json::error_handler_t::replace);
  std::string safe;
  safe.reserve(text.size() + 16);
  for (std::size_t i = 0; i < text.size(); ++i) {
    safe += text[i];
    if (text[i] == '<' && i + 1 < text.size() && text[i + 1] == '/') safe += '\\';
  }
  std::string html(page);
  const auto at = html.find(lmx::web::sweep_placeholder);
  if (at == std::string::npos) throw Failure("the embedded sweep report page has no data placeholder");
  html.replace(at, lmx::web::sweep_placeholder.size(), safe);
  return html;
}

/// Stores each finished point and keeps the progress line.
class StoreSink final : public Sink {
 public:
  StoreSink(Store& store, const Sweep& sweep, std::size_t total, std::size_t stored, std::size_t todo,
            const SweepArgs& args)
      : store_(store), sweep_(sweep), total_(total), stored_(stored), todo_(todo), args_(args) {}

  void finished(const Point& point, json summary) override {
    if (store_.put(point, summary)) ++stored_;
    ++done_;
    if (args_.test_kill_after && done_ == args_.test_kill_after) std::raise(SIGKILL);
    tick();
  }
  void tick() override {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::string text = fmt::format("sweep '{}': {}/{} points, {}", sweep_.name, stored_, total_, duration(elapsed));
    if (done_ && elapsed > 0) {
      const double rate = static_cast<double>(done_) / elapsed;
      text += fmt::format(", {:.3g} points/s, ~{} left", rate, duration(static_cast<double>(todo_ - done_) / rate));
    }
    line_.show(text);
  }
  void clear() const { line_.clear(); }
  [[nodiscard]] std::size_t done() const { return done_; }
  [[nodiscard]] std::size_t stored() const { return stored_; }

 private:
  Store& store_;
  const Sweep& sweep_;
  std::size_t total_, stored_, todo_;
  const SweepArgs& args_;
  std::size_t done_ = 0;
  lmx::cli::StatusLine line_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

/// True when an MPI launcher (mpirun, mpiexec, srun with PMI or PMIx) started this process: the
/// variables Open MPI's mpirun, PMIx launchers (Open MPI 5, Slurm --mpi=pmix) and PMI-1/2 launchers
/// (MPICH, Slurm) set in every rank.
bool started_by_mpi_launcher() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(name) != nullptr) return true;
  return false;
}

/// How the points are spread: threads of this process, or (rank 0 of) an MPI job.
struct Spread {
#ifdef LMX_WITH_MPI
  const lmx::sweep::mpi::Session* session = nullptr;  // set when the sweep runs on more than one rank
#endif
  bool dispatched = false;  // rank 0 reached the dispatcher (else it releases the other ranks)
};

/// The command reads the store (a table or a report) instead of running points.
bool reads_store(const SweepArgs& a) { return !a.table_file.empty() || !a.report.empty() || a.by_point; }

/// run_point, with the test-only faults when asked for: the N-th point this process starts raises
/// SIGINT or SIGKILL first. `started` counts the points.
PointRunner point_runner(const SweepArgs& a, std::atomic<std::size_t>& started) {
  if (!a.test_interrupt_in_point && !a.test_kill_in_point) return run_point;
  return [&a, &started](const Point& point, const std::atomic<bool>& stop) -> std::optional<json> {
    const auto n = ++started;
    if (n == a.test_interrupt_in_point || n == a.test_kill_in_point)
      std::raise(n == a.test_kill_in_point ? SIGKILL : SIGINT);
    return run_point(point, stop);
  };
}

int run_sweep(const SweepArgs& a, Spread& spread) {
  Sweep sweep;
  std::vector<Point> points;
  try {
    sweep = load_sweep(a.file);
    points = expand(sweep);
  } catch (const SweepError& e) {
    throw Failure(e.what());
  }
  const fs::path db = a.db.empty() ? fs::path(a.file).replace_extension(".sqlite") : fs::path(a.db);
  auto inputs = sweep.inputs();
  refuse_inputs(db, "the result store", inputs);
  const bool reading = reads_store(a);

  if (reading) {
    inputs.push_back(db);
    if (!a.table_file.empty() && a.table_file != "-") refuse_inputs(a.table_file, "the table", inputs);
    if (!a.report.empty()) refuse_inputs(a.report, "the report", inputs);
    try {
      const Store store(db, sweep, Store::Mode::read);
      const Selection selection = select(sweep, points, store.rows(), a.all);
      // The report's verdicts are P1-P7 over every point; the sequential scheduler's points have
      // none (no network run), and the page would count them as passing.
      if (!a.report.empty() && sweep.population) {
        const bool sequential =
            std::any_of(points.begin(), points.end(),
                        [](const Point& p) {
                          return p.population && p.population->scheduler == lmx::apps::pp::SchedulerKind::sequential;
                        }) ||
            std::any_of(selection.rows.begin(), selection.rows.end(),
                        [&](const Row& r) { return value_of(r, selection.figures, "P1").is_null(); });
        if (sequential)
          throw Failure(
              "--report: the sequential scheduler's points have no network run, hence no P1-P7 verdicts, which the "
              "sweep report shows for every point; --table gives their figures (a sweep of the graph schedulers has "
              "a report)");
      }
      if (!a.table_file.empty()) {
        const std::string text = a.by_point ? csv_by_point(selection) : csv(selection);
        if (a.table_file == "-")
          std::cout << text << std::flush;
        else
          write_file(a.table_file, text);
      }
      if (!a.report.empty()) {
        write_file(a.report, render_report(report_data(sweep, selection, points.size())));
        std::cerr << fmt::format("lmx sweep: wrote {}\n", a.report);
      }
      if (selection.hidden)
        std::cerr << fmt::format(
            "lmx sweep: note: {} stored point(s) of other grids or base scenarios not shown (--all shows them)\n",
            selection.hidden);
    } catch (const StoreError& e) {
      throw Failure(e.what());
    }
    return 0;
  }

  // A dry run creates no store; it reads one that exists (and checks its base scenario).
  std::optional<Store> store;
  try {
    if (!a.dry_run || fs::exists(db)) store.emplace(db, sweep, Store::Mode::write);
  } catch (const StoreError& e) {
    throw Failure(e.what());
  }
  const auto keys = store ? store->stored_keys() : std::unordered_set<std::string>{};
  std::vector<const Point*> todo;
  for (const auto& p : points)
    if (!keys.count(p.key)) todo.push_back(&p);
  const std::size_t stored = points.size() - todo.size();
  // Dispatch seed by seed: an interrupted sweep then covers the whole grid with its first seeds.
  std::unordered_map<std::uint64_t, std::size_t> seed_rank;
  for (std::size_t i = 0; i < sweep.seeds.size(); ++i) seed_rank.emplace(sweep.seeds[i], i);
  std::stable_sort(todo.begin(), todo.end(),
                   [&](const Point* x, const Point* y) { return seed_rank[x->seed] < seed_rank[y->seed]; });
  const unsigned jobs = a.jobs ? a.jobs : std::max(1u, std::thread::hardware_concurrency());
  std::string workers = fmt::format("{} thread(s)", std::min<std::size_t>(jobs, todo.size()));
#ifdef LMX_WITH_MPI
  if (spread.session) workers = fmt::format("{} MPI ranks", spread.session->size());
#endif
  const std::string plan = todo.empty() ? std::string("all stored, nothing to run")
                                        : fmt::format("{} stored, {} to run on {}", stored, todo.size(), workers);
  fmt::print("lmx sweep: '{}', {} points ({} grid points x {} seeds): {}; store {}\n", sweep.name, points.size(),
             sweep.grid_size(), sweep.seeds.size(), plan, db.string());
  if (keys.size() > stored)
    fmt::print("  {} stored point(s) of earlier grids are kept and not shown (--table --all shows them)\n",
               keys.size() - stored);
  if (const auto other = store ? store->other_version_rows() : 0)
    fmt::print("  note: {} stored point(s) were computed by another lmx version\n", other);
  std::fflush(stdout);
  if (a.dry_run || todo.empty()) return 0;

  StoreSink sink(*store, sweep, points.size(), stored, todo.size(), a);
  ThreadPool pool(jobs);
  Dispatcher* dispatcher = &pool;
#ifdef LMX_WITH_MPI
  std::optional<lmx::sweep::mpi::Coordinator> coordinator;
  if (spread.session) dispatcher = &coordinator.emplace(*spread.session);
#endif
  std::atomic<std::size_t> started{0};
  const PointRunner runner = point_runner(a, started);
  const auto start = std::chrono::steady_clock::now();
  stop_flag.store(false);
  stop_signal = 0;
  try {
    const SignalGuard guard;
    spread.dispatched = true;
    dispatcher->run(todo, runner, sink, stop_flag);
  } catch (const SweepError& e) {
    sink.clear();
    throw Failure(fmt::format("{}: {} ({} of {} points stored)", sweep.source, e.what(), sink.stored(), points.size()));
  } catch (const StoreError& e) {
    sink.clear();
    throw Failure(e.what());
  }
  sink.clear();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  int signal = stop_signal;
#ifdef LMX_WITH_MPI
  if (!signal && coordinator && coordinator->stopped_by_a_rank()) signal = SIGINT;  // another rank was signalled
#endif
  if (signal) {
    fmt::print("lmx sweep: interrupted: {} of {} points stored ({} now); run the same command to continue\n",
               sink.stored(), points.size(), sink.done());
    return 128 + signal;
  }
  std::size_t failing = 0, converged = 0;
  const Selection current = select(sweep, points, store->rows(), false);
  for (const auto& r : current.rows) {
    failing += failed(r, current.figures);
    converged += value_of(r, current.figures, "converged") == json(1);
  }
  const std::string reached = sweep.population ? fmt::format("{} converged, ", converged) : std::string();
  fmt::print("lmx sweep: '{}': {} of {} points stored ({} run now in {}); {}{} with a violation or a stall\n",
             sweep.name, sink.stored(), points.size(), sink.done(), duration(seconds), reached, failing);
  return 0;
}

#ifdef LMX_WITH_MPI
/// A rank other than 0 of an MPI sweep: runs the points rank 0 hands out. Reading the store and dry
/// runs are rank 0's alone.
int serve_sweep(const SweepArgs& a, const lmx::sweep::mpi::Session& session) {
  if (reads_store(a) || a.dry_run) return 0;
  std::vector<Point> points;
  std::string load_error;
  try {
    points = expand(load_sweep(a.file));
  } catch (const SweepError& e) {
    load_error = e.what();
  }
  stop_flag.store(false);
  stop_signal = 0;
  const SignalGuard guard;
  std::atomic<std::size_t> started{0};
  lmx::sweep::mpi::serve(session, points, point_runner(a, started), stop_flag, load_error);
  return 0;
}
#endif

/// `lmx sweep` in this process, or as one rank of an MPI job.
int sweep_command_main(const SweepArgs& a) {
  Spread spread;
  if (!started_by_mpi_launcher()) return run_sweep(a, spread);
#ifdef LMX_WITH_MPI
  const lmx::sweep::mpi::Session session;
  if (session.size() == 1) return run_sweep(a, spread);  // one rank: the threads of this process
  // Rank 0 says why and exits 2; the others end quietly with 0. Had they exited 2 at once, the
  // launcher could stop the job before rank 0's message was out (seen under load).
  if (a.jobs && session.rank() != 0) return 0;
  if (a.jobs) throw Failure("--jobs: under MPI each rank runs one point at a time; start one rank per core instead");
  if (session.rank() != 0) return serve_sweep(a, session);
  spread.session = &session;
  // Tables, reports and dry runs are rank 0's alone; in a run, every other rank waits for rank 0's
  // word: release them whatever stops rank 0 before its dispatcher does.
  const bool rank0_only = reads_store(a) || a.dry_run;
  try {
    const int code = run_sweep(a, spread);
    if (!rank0_only && !spread.dispatched) lmx::sweep::mpi::dismiss_workers(session);
    return code;
  } catch (...) {
    if (!rank0_only && !spread.dispatched) lmx::sweep::mpi::dismiss_workers(session);
    throw;
  }
#else
  // Every rank fails alike; the rank the launcher gave (when it says) lets only rank 0 say why, and
  // exit 2 (the others end with 0, so that the launcher does not stop rank 0 before it has said it).
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"})
    if (const char* rank = std::getenv(name); rank != nullptr && std::string_view(rank) != "0") return 0;
  throw Failure(
      "this lmx was built without MPI (LMX_BUILD_MPI=OFF), so under mpirun every rank would run the whole sweep; "
      "run it without mpirun, or build it with MPI");
#endif
}

const lmx::cli::Register sweep_command{
    {"sweep", 25, [](CLI::App& app, int& exit_code) {
       static SweepArgs a;
       auto* cmd = app.add_subcommand(
           "sweep",
           "Run a grid of scenarios (or population-protocol runs) x seeds on all cores (or on MPI ranks: mpirun -n N "
           "lmx sweep) into SQLite; tabulate or report the results");
       cmd->add_option("sweep", a.file, "Sweep file (TOML, docs/sweeps.md)")->required();
       cmd->add_option("--db", a.db, "Result store (SQLite; default: the sweep file with .sqlite)");
       cmd->add_option("-j,--jobs", a.jobs, "Points run at once (default: the number of cores)")
           ->check(CLI::Range(1u, 4096u));
       auto* table = cmd->add_option("--table", a.table_file,
                                     "Print the stored points of the grid as CSV (to FILE when given); runs nothing")
                         ->expected(0, 1);
       cmd->add_flag("--by-point", a.by_point, "With --table: one row per grid point, mean/min/max over seeds");
       cmd->add_flag("--all", a.all, "With --table/--report: also rows of points no longer in the grid");
       cmd->add_option("--report", a.report, "Write a self-contained HTML report of the stored points to FILE");
       cmd->add_flag("--dry-run", a.dry_run, "Validate every point and count what would run; runs nothing");
       cmd->add_option("--test-kill-after", a.test_kill_after)->group("");
       cmd->add_option("--test-interrupt-in-point", a.test_interrupt_in_point)->group("");
       cmd->add_option("--test-kill-in-point", a.test_kill_in_point)->group("");
       cmd->callback([&exit_code, table] {
         if (table->count() && a.table_file.empty()) a.table_file = "-";  // --table alone: standard output
         if (a.by_point && a.table_file.empty()) throw Failure("--by-point goes with --table");
         if (a.all && a.table_file.empty() && a.report.empty()) throw Failure("--all goes with --table or --report");
         exit_code = sweep_command_main(a);
       });
     }}};
}  // namespace
