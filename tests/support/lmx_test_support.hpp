// Helpers shared by the test folders: running the built `lmx` binary as a user would, and scratch
// directories that clean up after themselves.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace lmx::test {

struct Result {
  int exit_code = -1;
  std::string out;  ///< stdout and stderr, interleaved
};

/// Runs a shell command line and collects its output (with its standard error unless the command
/// redirects that itself) and exit code (-1 if it did not exit).
inline Result run_command(const std::string& command) {
  Result r;
  const bool own_stderr = command.find("2>") != std::string::npos;
  FILE* pipe = popen((own_stderr ? command : command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return r;
  std::array<char, 4096> buffer{};
  std::size_t n = 0;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) r.out.append(buffer.data(), n);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

#ifdef LMX_BINARY
/// Runs `lmx ARGS` (ARGS as a shell would split them).
inline Result run_lmx(const std::string& args) { return run_command(std::string("'") + LMX_BINARY + "' " + args); }
#endif

inline std::size_t line_count(const std::string& s) {
  std::size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

/// A fresh directory under the test's temporary directory, removed at the end of the scope.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& name)
      : path_(std::filesystem::path(::testing::TempDir()) / (name + "-" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  [[nodiscard]] std::string file(const std::string& name) const { return (path_ / name).string(); }
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
inline void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

}  // namespace lmx::test
