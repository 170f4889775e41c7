// The in-process dispatcher: worker threads take points in order; the caller's thread drains the
// finished ones into the sink.
#include "lmx/sweep/dispatch.hpp"

#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>

#include "lmx/sim/simulation.hpp"

namespace lmx::sweep {

using nlohmann::json;

namespace {

/// A population point: `lmx pp run`'s result object, or nothing when the stop cut the run short.
std::optional<json> run_population_point(const Point& point, const PopulationRun& run, const std::atomic<bool>& stop) {
  apps::pp::Result result;
  try {
    result = apps::pp::run(*run.protocol, run.config(point.scenario, point.seed, &stop));
  } catch (const apps::pp::ProtocolError& e) {
    throw SweepError("point " + point.describe() + ": " + e.what());
  } catch (const sim::ScenarioError& e) {
    throw SweepError("point " + point.describe() + ": " + e.what());
  }
  if (result.interrupted) return std::nullopt;
  return apps::pp::to_json(*run.protocol, result);
}

}  // namespace

std::optional<json> run_point(const Point& point, const std::atomic<bool>& stop) {
  if (point.population) return run_population_point(point, *point.population, stop);
  std::unique_ptr<sim::Engine> engine;
  try {
    engine = sim::make_engine(point.scenario);
  } catch (const sim::ScenarioError& e) {
    throw SweepError("point " + point.describe() + ": " + e.what());
  }
  // Each engine owns all its state, so points run side by side without sharing anything.
  while (engine->step())
    if (stop.load(std::memory_order_relaxed)) return std::nullopt;
  return engine->finish();
}

std::size_t ThreadPool::run(const std::vector<const Point*>& points, const PointRunner& runner, Sink& sink,
                            std::atomic<bool>& stop) {
  std::mutex mutex;
  std::condition_variable changed;
  std::deque<std::pair<const Point*, json>> finished;
  std::exception_ptr error;
  std::size_t next = 0;
  const unsigned workers = static_cast<unsigned>(std::min<std::size_t>(jobs_, points.size()));
  unsigned active = workers;

  auto work = [&] {
    for (;;) {
      const Point* point = nullptr;
      {
        std::lock_guard lock(mutex);
        if (stop.load() || next == points.size()) break;
        point = points[next++];
      }
      try {
        auto summary = runner(*point, stop);
        if (!summary) continue;  // cancelled: dropped whole
        std::lock_guard lock(mutex);
        finished.emplace_back(point, std::move(*summary));
      } catch (...) {
        std::lock_guard lock(mutex);
        if (!error) error = std::current_exception();
        stop = true;
      }
      changed.notify_one();
    }
    std::lock_guard lock(mutex);
    --active;
    changed.notify_one();
  };

  std::vector<std::thread> threads;
  threads.reserve(workers);
  auto join = [&] {
    for (auto& t : threads)
      if (t.joinable()) t.join();
  };
  std::size_t given = 0;
  try {
    for (unsigned i = 0; i < workers; ++i) threads.emplace_back(work);
    std::unique_lock lock(mutex);
    for (;;) {
      // The timeout only paces sink.tick() (the progress line); results arrive by notification.
      changed.wait_for(lock, tick_, [&] { return !finished.empty() || active == 0; });
      while (!finished.empty()) {
        auto [point, summary] = std::move(finished.front());
        finished.pop_front();
        lock.unlock();
        sink.finished(*point, std::move(summary));
        ++given;
        lock.lock();
      }
      if (active == 0) break;
      lock.unlock();
      sink.tick();
      lock.lock();
    }
  } catch (...) {
    stop = true;
    join();
    throw;
  }
  join();
  if (error) std::rethrow_exception(error);
  return given;
}

}  // namespace lmx::sweep
