// How the commands write what they produce (every write checked, never over an input) and how a
// long command ends on Ctrl-C. Shared by every cmd_*.cpp and the report writer.
#pragma once

#include <atomic>
#include <csignal>
#include <cstdint>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace lmx::cli {

/// A file being written: into a temporary file beside it, renamed over the target by commit(), so
/// that a failed or interrupted write never leaves a cut file under the target's name (and never
/// destroys what was there). A target that exists and is not a regular file (a terminal, a pipe,
/// /dev/null) is written directly. Every error is reported as "cannot write PATH: reason".
class OutputFile {
 public:
  explicit OutputFile(std::string path);
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile();  ///< removes the temporary file unless committed
  std::ostream& stream() { return out_; }
  /// Flushes, checks and renames; throws Failure (exit 2) if anything failed.
  void commit();
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  std::string path_, temporary_;
  std::ofstream out_;
  bool committed_ = false;
};

/// Throws Failure unless `output` (given to `flag`) differs from every input file: an output is
/// never written over the file it is made from.
void refuse_overwriting_inputs(const std::string& flag, const std::string& output,
                               const std::vector<std::string>& inputs);

/// Writes to standard output and flushes; throws Failure if the write failed (a full disk, a
/// closed pipe), so that a command never exits 0 with its output lost.
void print_stdout(std::string_view text);

/// While alive, Ctrl-C (SIGINT) sets requested() instead of killing the process, so that a long
/// command can end cleanly with what it has; a second Ctrl-C kills as usual.
class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
  static const std::atomic<bool>& requested();

 private:
  struct sigaction previous_ {};
};

/// The exit code of a command ended by Ctrl-C (128 + SIGINT, as shells report it).
inline constexpr int interrupted_exit_code = 130;

/// The machine's physical memory in bytes (0 if unknown).
std::uint64_t machine_memory_bytes();

/// A memory size in the unit that shows it: "12.3 MiB", "1.5 GiB".
std::string memory_size(std::uint64_t bytes);

}  // namespace lmx::cli
