// The MPI dispatcher (include/lmx/sweep/mpi.hpp): rank 0 coordinates and stores, every rank runs
// points. Waiting is polling with a short, growing sleep rather than a blocking MPI call: Open MPI
// spins inside blocking calls, which would take a core from the points on a machine with as many
// ranks as cores.
#include "lmx/sweep/mpi.hpp"

#include <mpi.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <exception>
#include <limits>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>

namespace lmx::sweep::mpi {

using nlohmann::json;

namespace {

// Worker -> rank 0.
constexpr int tag_hello = 1;    // ready for work (empty)
constexpr int tag_result = 2;   // key '\0' summary JSON: a finished point
constexpr int tag_dropped = 3;  // key: the point was not finished because this rank was stopped
constexpr int tag_error = 4;    // key '\0' message: the point (or, key empty, the rank) failed
// Rank 0 -> worker.
constexpr int tag_assign = 10;  // key: run this point
constexpr int tag_finish = 11;  // (empty) the sweep is over for this rank

/// Points a rank holds at once: one running and one queued, so that it never waits for rank 0.
constexpr int points_per_rank = 2;

void send(int rank, int tag, const std::string& payload) {
  if (payload.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw SweepError("a message of " + std::to_string(payload.size()) + " bytes is too large for MPI");
  MPI_Send(payload.data(), static_cast<int>(payload.size()), MPI_CHAR, rank, tag, MPI_COMM_WORLD);
}

struct Message {
  int source = 0;
  int tag = 0;
  std::string payload;
};

/// The next message from anyone, if one has arrived.
std::optional<Message> poll() {
  int flag = 0;
  MPI_Status status;
  MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status);
  if (!flag) return std::nullopt;
  int count = 0;
  MPI_Get_count(&status, MPI_CHAR, &count);
  Message m{status.MPI_SOURCE, status.MPI_TAG, std::string(static_cast<std::size_t>(count), '\0')};
  MPI_Recv(m.payload.data(), count, MPI_CHAR, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return m;
}

/// Sleeps a little longer each time nothing happened: 20 us doubling up to 2 ms.
class Backoff {
 public:
  void idle() {
    std::this_thread::sleep_for(std::chrono::microseconds(wait_));
    wait_ = std::min(wait_ * 2, 2000);
  }
  void busy() { wait_ = 20; }

 private:
  int wait_ = 20;
};

std::pair<std::string, std::string> split(const std::string& payload) {
  const auto at = payload.find('\0');
  if (at == std::string::npos) return {payload, {}};
  return {payload.substr(0, at), payload.substr(at + 1)};
}

/// Rank 0's own worker: a thread that runs the points it is given, in order.
class LocalWorker {
 public:
  LocalWorker(const PointRunner& runner, std::atomic<bool>& stop) : runner_(runner), stop_(stop) {
    thread_ = std::thread([this] { work(); });
  }
  ~LocalWorker() { close(); }
  LocalWorker(const LocalWorker&) = delete;
  LocalWorker& operator=(const LocalWorker&) = delete;

  void give(const Point* point) {
    {
      const std::lock_guard lock(mutex_);
      inbox_.push_back(point);
      ++outstanding_;
    }
    changed_.notify_all();
  }
  /// No more points: the thread ends when its queue is empty.
  void close() {
    {
      const std::lock_guard lock(mutex_);
      closed_ = true;
    }
    changed_.notify_all();
    if (thread_.joinable()) thread_.join();
  }
  struct Done {
    const Point* point;
    std::optional<json> summary;  // nothing: dropped by the stop
    std::exception_ptr error;
  };
  std::deque<Done> take() {
    const std::lock_guard lock(mutex_);
    std::deque<Done> out;
    out.swap(done_);
    outstanding_ -= static_cast<int>(out.size());
    return out;
  }
  [[nodiscard]] int outstanding() {
    const std::lock_guard lock(mutex_);
    return outstanding_;
  }

 private:
  void work() {
    for (;;) {
      const Point* point = nullptr;
      {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return !inbox_.empty() || closed_; });
        if (inbox_.empty()) return;
        point = inbox_.front();
        inbox_.pop_front();
      }
      Done d{point, std::nullopt, nullptr};
      if (!stop_.load()) {
        try {
          d.summary = runner_(*point, stop_);
        } catch (...) {
          d.error = std::current_exception();
        }
      }
      const std::lock_guard lock(mutex_);
      done_.push_back(std::move(d));
    }
  }

  const PointRunner& runner_;
  std::atomic<bool>& stop_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<const Point*> inbox_;
  std::deque<Done> done_;
  int outstanding_ = 0;
  bool closed_ = false;
  std::thread thread_;
};

}  // namespace

Session::Session() {
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

Session::~Session() { MPI_Finalize(); }

void dismiss_workers(const Session& session) {
  int waiting = session.size() - 1;
  Backoff backoff;
  while (waiting > 0) {
    auto m = poll();
    if (!m) {
      backoff.idle();
      continue;
    }
    backoff.busy();
    // Each worker's first message is its hello (or its load error); it holds no point yet.
    if (m->tag == tag_hello || m->tag == tag_error) {
      send(m->source, tag_finish, {});
      --waiting;
    }
  }
}

std::size_t Coordinator::run(const std::vector<const Point*>& points, const PointRunner& runner, Sink& sink,
                             std::atomic<bool>& stop) {
  std::unordered_map<std::string, const Point*> by_key;
  by_key.reserve(points.size());
  for (const Point* p : points) by_key.emplace(p->key, p);

  struct Rank {
    bool hello = false;
    bool finished = false;  // told to finish
    bool failed = false;
    int outstanding = 0;
  };
  std::vector<Rank> ranks(static_cast<std::size_t>(session_.size()));
  ranks[0].hello = true;  // rank 0's worker is the local thread, not a message partner
  std::exception_ptr error;
  std::size_t next = 0, given = 0;
  bool worker_stopped = false;
  bool sink_failed = false;

  // As in ThreadPool, a point that finished is stored even after an error elsewhere; only a
  // failing sink stops the storing.
  auto deliver = [&](const Point& point, json summary) {
    if (sink_failed) return;
    try {
      sink.finished(point, std::move(summary));
      ++given;
    } catch (...) {
      sink_failed = true;
      error = std::current_exception();
      stop = true;
    }
  };
  auto fail = [&](std::exception_ptr e) {
    if (!error) error = e;
    stop = true;
  };

  LocalWorker local(runner, stop);
  bool local_closed = false;
  Backoff backoff;
  auto last_tick = std::chrono::steady_clock::now();
  for (;;) {
    bool progress = false;
    while (auto m = poll()) {
      progress = true;
      auto& r = ranks[static_cast<std::size_t>(m->source)];
      switch (m->tag) {
        case tag_hello: r.hello = true; break;
        case tag_result: {
          --r.outstanding;
          auto [key, text] = split(m->payload);
          const auto it = by_key.find(key);
          if (it == by_key.end()) {
            fail(std::make_exception_ptr(
                SweepError("rank " + std::to_string(m->source) + " returned a point that was not given out")));
            break;
          }
          json summary;
          try {
            summary = json::parse(text);
          } catch (const json::exception&) {
            fail(std::make_exception_ptr(
                SweepError("rank " + std::to_string(m->source) + " returned a summary that is not JSON")));
            break;
          }
          deliver(*it->second, std::move(summary));
          break;
        }
        case tag_dropped:
          // A rank stops only when it was signalled: the whole sweep stops, as after a Ctrl-C.
          --r.outstanding;
          worker_stopped = true;
          stop = true;
          break;
        case tag_error: {
          auto [key, text] = split(m->payload);
          if (!key.empty()) --r.outstanding;
          r.hello = true;  // a rank that failed to load says so instead of hello
          r.failed = true;
          fail(std::make_exception_ptr(SweepError(text)));
          break;
        }
        default:
          fail(std::make_exception_ptr(
              SweepError("rank " + std::to_string(m->source) + " sent an unknown message " + std::to_string(m->tag))));
      }
    }
    for (auto& d : local.take()) {
      progress = true;
      if (d.error)
        fail(d.error);
      else if (d.summary)
        deliver(*d.point, std::move(*d.summary));
    }

    const bool over = stop.load() || next == points.size();
    for (std::size_t i = 1; i < ranks.size(); ++i) {
      auto& r = ranks[i];
      if (!r.hello || r.finished) continue;
      while (!over && !r.failed && r.outstanding < points_per_rank && next < points.size()) {
        send(static_cast<int>(i), tag_assign, points[next++]->key);
        ++r.outstanding;
        progress = true;
      }
      if ((stop.load() || next == points.size()) && r.outstanding == 0) {
        send(static_cast<int>(i), tag_finish, {});
        r.finished = true;
        progress = true;
      }
    }
    while (!stop.load() && local.outstanding() < points_per_rank && next < points.size()) {
      local.give(points[next++]);
      progress = true;
    }
    if (!local_closed && (stop.load() || next == points.size()) && local.outstanding() == 0) {
      local.close();
      local_closed = true;
    }
    const bool all_finished = std::all_of(ranks.begin() + 1, ranks.end(), [](const Rank& r) { return r.finished; });
    if (all_finished && local_closed) break;

    const auto now = std::chrono::steady_clock::now();
    if (now - last_tick >= tick_ && !sink_failed) {
      last_tick = now;
      try {
        sink.tick();
      } catch (...) {
        sink_failed = true;
        fail(std::current_exception());
      }
    }
    if (progress)
      backoff.busy();
    else
      backoff.idle();
  }
  worker_stopped_ = worker_stopped;
  if (error) std::rethrow_exception(error);
  return given;
}

void serve(const Session& session, const std::vector<Point>& points, const PointRunner& runner, std::atomic<bool>& stop,
           const std::string& load_error) {
  std::unordered_map<std::string, const Point*> by_key;
  by_key.reserve(points.size());
  for (const auto& p : points) by_key.emplace(p.key, &p);
  const std::string me = "rank " + std::to_string(session.rank());
  bool failed = !load_error.empty();
  if (failed)
    send(0, tag_error, std::string(1, '\0') + me + ": " + load_error);
  else
    send(0, tag_hello, {});

  std::deque<std::string> queue;
  Backoff backoff;
  for (;;) {
    bool finish = false;
    // Take what rank 0 sent; wait only when there is nothing to run.
    for (;;) {
      auto m = poll();
      if (!m) {
        if (!queue.empty()) break;
        backoff.idle();
        continue;
      }
      backoff.busy();
      if (m->tag == tag_assign) queue.push_back(std::move(m->payload));
      if (m->tag == tag_finish) {
        finish = true;
        break;
      }
    }
    if (finish) return;  // rank 0 sends it only when this rank holds no point
    const std::string key = std::move(queue.front());
    queue.pop_front();
    if (failed) {
      // Rank 0 knows of the failure and gives no new work; the point was handed out before.
      send(0, tag_error, key + '\0' + me + ": stopped after an earlier error");
      continue;
    }
    const auto it = by_key.find(key);
    if (it == by_key.end()) {
      failed = true;
      send(0, tag_error,
           key + '\0' + me + ": point " + key +
               " is not in its reading of the sweep file (every rank must read the same file)");
      continue;
    }
    if (stop.load()) {
      send(0, tag_dropped, key);
      continue;
    }
    try {
      auto summary = runner(*it->second, stop);
      if (summary)
        send(0, tag_result, key + '\0' + summary->dump());
      else
        send(0, tag_dropped, key);
    } catch (const std::exception& e) {
      failed = true;
      send(0, tag_error, key + '\0' + e.what());
    }
  }
}

}  // namespace lmx::sweep::mpi
