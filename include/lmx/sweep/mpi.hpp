// Sweeps over MPI (`mpirun -n N lmx sweep SWEEP.toml`): every rank reads the sweep file and expands
// the same points; rank 0 owns the store and is the only rank that prints. It hands points out one
// at a time on request (dynamic load balancing: a rank that finishes early gets the next point),
// runs points itself on one worker thread, and gives every finished summary to the Sink on its
// main thread. Each rank runs one point at a time, so one rank per core is the usual layout.
//
// Messages (tags below) are small: a point is named by its key, a result is its summary as JSON
// text. A worker holds at most two points (one running, one queued), so it never waits for rank 0
// between points. Only the main thread of a rank calls MPI (MPI_THREAD_FUNNELED).
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "lmx/sweep/dispatch.hpp"

namespace lmx::sweep::mpi {

/// MPI_Init_thread on construction, MPI_Finalize on destruction.
class Session {
 public:
  Session();
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  [[nodiscard]] int rank() const { return rank_; }
  [[nodiscard]] int size() const { return size_; }

 private:
  int rank_ = 0;
  int size_ = 1;
};

/// Rank 0's dispatcher: the other ranks (running `serve`) and one local worker thread run the
/// points. The same contract as ThreadPool: every point given to a worker that finished is given
/// to the sink, even after `stop`; an error on any rank raises `stop`, lets the running points end,
/// and is rethrown here as SweepError naming the rank. Every rank that asks for work after the end
/// is told to finish, so `run` returns only when every rank is done.
class Coordinator final : public Dispatcher {
 public:
  explicit Coordinator(const Session& session, std::chrono::milliseconds tick = std::chrono::milliseconds(500))
      : session_(session), tick_(tick) {}
  std::size_t run(const std::vector<const Point*>& points, const PointRunner& runner, Sink& sink,
                  std::atomic<bool>& stop) override;
  /// After run(): the sweep stopped because a rank other than 0 was signalled (rank 0 was not).
  [[nodiscard]] bool stopped_by_a_rank() const { return worker_stopped_; }

 private:
  const Session& session_;
  std::chrono::milliseconds tick_;
  bool worker_stopped_ = false;
};

/// Releases the other ranks without giving them work (rank 0 could not start the sweep, or there
/// is nothing to run, or it only reads the store).
void dismiss_workers(const Session& session);

/// A rank other than 0: asks rank 0 for points, runs them with `runner`, sends back each summary,
/// until rank 0 says the sweep is over. `points` is this rank's expansion of the sweep file (a
/// point named by rank 0 that it does not have is reported as an error: the ranks must read the
/// same file). `load_error`, when not empty, is reported to rank 0 at once (this rank could not
/// read the sweep file), and then the rank waits to be released.
void serve(const Session& session, const std::vector<Point>& points, const PointRunner& runner, std::atomic<bool>& stop,
           const std::string& load_error = {});

}  // namespace lmx::sweep::mpi
