// What the commands share about the running process: its peak memory, and a status line on the
// terminal for long runs.
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

namespace lmx::cli {

/// The process's peak resident memory (VmHWM), in bytes; 0 where /proc is not available.
inline std::uint64_t peak_rss_bytes() {
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == "VmHWM:") {
      std::uint64_t kib = 0;
      status >> kib;
      return kib * 1024;
    }
    status.ignore(1 << 12, '\n');
  }
  return 0;
}

/// One line on stderr, rewritten in place: shown only on a terminal and only once a run has taken
/// 2 s, so that short runs and redirected output stay clean.
class StatusLine {
 public:
  void show(const std::string& text) {
    if (!isatty(STDERR_FILENO)) return;
    if (std::chrono::steady_clock::now() - start_ < std::chrono::seconds(2)) return;
    shown_ = true;
    std::fprintf(stderr, "\r%-79.79s", text.c_str());
    std::fflush(stderr);
  }
  void clear() const {
    if (shown_) std::fprintf(stderr, "\r%79s\r", "");
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  bool shown_ = false;
};

}  // namespace lmx::cli
