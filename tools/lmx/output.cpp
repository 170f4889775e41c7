// Checked, atomic outputs and Ctrl-C handling for the commands (output.hpp).
#include "output.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <system_error>

#include "command.hpp"

namespace lmx::cli {

namespace fs = std::filesystem;

namespace {
std::string reason(int error) { return error ? std::string(std::strerror(error)) : std::string("write failed"); }
}  // namespace

OutputFile::OutputFile(std::string path) : path_(std::move(path)) {
  if (path_.empty()) throw Failure("an output file name is empty");
  std::error_code ec;
  const auto status = fs::status(path_, ec);
  if (fs::is_directory(status)) throw Failure("cannot write " + path_ + ": it is a directory");
  const bool special = fs::exists(status) && !fs::is_regular_file(status);
  if (!special) temporary_ = path_ + ".tmp-" + std::to_string(::getpid());
  errno = 0;
  out_.open(special ? path_ : temporary_, std::ios::binary | std::ios::trunc);
  if (!out_) throw Failure("cannot write " + path_ + ": " + reason(errno));
}

OutputFile::~OutputFile() {
  if (committed_ || temporary_.empty()) return;
  out_.close();
  std::error_code ec;
  fs::remove(temporary_, ec);
}

void OutputFile::commit() {
  errno = 0;
  out_.flush();
  const bool written = static_cast<bool>(out_);
  out_.close();
  if (!written || out_.fail()) throw Failure("cannot write " + path_ + ": " + reason(errno));
  if (!temporary_.empty()) {
    std::error_code ec;
    fs::rename(temporary_, path_, ec);
    if (ec) throw Failure("cannot write " + path_ + ": " + ec.message());
  }
  committed_ = true;
}

void refuse_overwriting_inputs(const std::string& flag, const std::string& output,
                               const std::vector<std::string>& inputs) {
  if (output.empty()) return;
  for (const auto& input : inputs) {
    if (input.empty()) continue;
    std::error_code ec;
    const bool same = fs::exists(output, ec) && fs::exists(input, ec)
                          ? fs::equivalent(output, input, ec)
                          : fs::weakly_canonical(output, ec) == fs::weakly_canonical(input, ec);
    if (same) throw Failure(flag + " " + output + " is one of the command's inputs: it would be overwritten");
  }
}

void print_stdout(std::string_view text) {
  errno = 0;
  std::cout.write(text.data(), static_cast<std::streamsize>(text.size()));
  std::cout.flush();
  if (!std::cout) throw Failure("cannot write to standard output: " + reason(errno));
}

namespace {
std::atomic<bool> interrupt_requested{false};
extern "C" void on_interrupt(int) {
  interrupt_requested.store(true);
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C ends the process at once
}
}  // namespace

InterruptGuard::InterruptGuard() {
  interrupt_requested = false;
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, &previous_);
}
InterruptGuard::~InterruptGuard() { sigaction(SIGINT, &previous_, nullptr); }
const std::atomic<bool>& InterruptGuard::requested() { return interrupt_requested; }

std::uint64_t machine_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), size = ::sysconf(_SC_PAGE_SIZE);
  return pages > 0 && size > 0 ? std::uint64_t(pages) * std::uint64_t(size) : 0;
}

std::string memory_size(std::uint64_t bytes) {
  if (bytes < (1ull << 30)) return fmt::format("{:.1f} MiB", double(bytes) / double(1ull << 20));
  return fmt::format("{:.1f} GiB", double(bytes) / double(1ull << 30));
}

}  // namespace lmx::cli
