// One job at a time on a second thread: the engine's mobility planner runs the next round's plan
// there while the round's executions run on the calling thread (dynamics.hpp, "Mobility ahead").
// The job's exception, if any, is rethrown by wait().
#pragma once

#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>

namespace lmx::sim {

class BackgroundWorker {
 public:
  BackgroundWorker() = default;
  BackgroundWorker(const BackgroundWorker&) = delete;
  BackgroundWorker& operator=(const BackgroundWorker&) = delete;
  ~BackgroundWorker() {
    {
      std::lock_guard lock(mutex_);
      quit_ = true;
    }
    changed_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

  /// Starts `job` on the worker (the thread starts with the first job). The last job must have
  /// been waited for.
  void run(std::function<void()> job) {
    if (!thread_.joinable()) thread_ = std::thread([this] { serve(); });
    {
      std::lock_guard lock(mutex_);
      job_ = std::move(job), busy_ = true;
    }
    changed_.notify_all();
  }
  /// Blocks until the job started last is done (at once if none is running); rethrows what it threw.
  void wait() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [this] { return !busy_; });
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  }

 private:
  void serve() {
    std::unique_lock lock(mutex_);
    for (;;) {
      changed_.wait(lock, [this] { return busy_ || quit_; });
      if (quit_ && !busy_) return;
      auto job = std::move(job_);
      lock.unlock();
      std::exception_ptr error;
      try {
        job();
      } catch (...) {
        error = std::current_exception();
      }
      lock.lock();
      error_ = error, busy_ = false;
      changed_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  std::function<void()> job_;
  bool busy_ = false, quit_ = false;
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace lmx::sim
