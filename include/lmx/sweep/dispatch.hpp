// Running the points of a sweep. A Dispatcher hands points to whatever runs them and brings each
// finished point's summary back to one Sink, on the thread that called run(): the Sink owns the
// store, so a dispatcher never touches it. ThreadPool runs points in-process on N threads;
// mpi::Coordinator (mpi.hpp) spreads them over MPI ranks, with the same grid and the same store.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "lmx/sweep/sweep.hpp"

namespace lmx::sweep {

/// Runs one point to its end and returns its `lmx run --json` summary (a population point: its
/// `lmx pp run --json` object), or nothing when `stop` was raised first (the point is then
/// dropped: nothing partial is kept).
using PointRunner = std::function<std::optional<nlohmann::json>(const Point&, const std::atomic<bool>& stop)>;

/// The default runner: builds the point's engine and steps it, checking `stop` between steps; a
/// population point runs apps::pp::run, which checks `stop` between rounds or batches.
std::optional<nlohmann::json> run_point(const Point& point, const std::atomic<bool>& stop);

/// Receives finished points, one at a time, on the thread that called Dispatcher::run.
class Sink {
 public:
  virtual ~Sink() = default;
  virtual void finished(const Point& point, nlohmann::json summary) = 0;
  /// Called now and then while points run (for a progress line).
  virtual void tick() {}
};

class Dispatcher {
 public:
  virtual ~Dispatcher() = default;
  /// Runs `points` (in order of dispatch) until all are finished or `stop` is raised. A point that
  /// finished is always given to the sink, even after `stop`; one that did not is dropped. An
  /// exception from the runner or the sink raises `stop`, waits for the running points to end,
  /// and is rethrown. Returns the number of points given to the sink.
  virtual std::size_t run(const std::vector<const Point*>& points, const PointRunner& runner, Sink& sink,
                          std::atomic<bool>& stop) = 0;
};

/// `jobs` worker threads in this process; the caller's thread is the sink's.
class ThreadPool final : public Dispatcher {
 public:
  explicit ThreadPool(unsigned jobs, std::chrono::milliseconds tick = std::chrono::milliseconds(500))
      : jobs_(jobs ? jobs : 1), tick_(tick) {}
  std::size_t run(const std::vector<const Point*>& points, const PointRunner& runner, Sink& sink,
                  std::atomic<bool>& stop) override;

 private:
  unsigned jobs_;
  std::chrono::milliseconds tick_;
};

}  // namespace lmx::sweep
