// Helpers shared by the checker's tests (tests/check): the bounded suite's smallest instances,
// printing the checker's enums, scratch directories and whole files.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <ostream>
#include <sstream>
#include <string>

#include "lmx/check/checker.hpp"

namespace lmx::check {
// gtest and streams print the checker's enums by their names.
inline std::ostream& operator<<(std::ostream& os, Verdict v) { return os << to_string(v); }
inline std::ostream& operator<<(std::ostream& os, Limit l) { return os << '\'' << to_string(l) << '\''; }
inline std::ostream& operator<<(std::ostream& os, Property p) { return os << to_string(p); }
inline std::ostream& operator<<(std::ostream& os, Phase p) { return os << to_string(p); }
}  // namespace lmx::check

namespace lmx::check::testing {

/// Two nodes joined by one edge, Delta = 1, K = 2: the smallest instances of the bounded suite.
inline Instance two_nodes(core::Variant v, unsigned locks, unsigned changes) {
  Instance i;
  i.variant = v;
  i.nodes = 2;
  i.delta = 1;
  i.k = 2;
  i.locks = locks;
  i.max_changes = changes;
  i.edges = {{0, 1}};
  return i;
}

/// The path 0-1-2, Delta = 2, K = 2.
inline Instance path_of_three(core::Variant v, unsigned locks, unsigned changes) {
  Instance i = two_nodes(v, locks, changes);
  i.nodes = 3;
  i.delta = 2;
  i.edges = {{0, 1}, {1, 2}};
  return i;
}

/// A fresh, empty directory for one test's files, removed with it.
struct ScratchDir {
  std::filesystem::path path;
  explicit ScratchDir(const std::string& name)
      : path(std::filesystem::temp_directory_path() / ("lmx-" + name + "-" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path);
  }
  ~ScratchDir() { std::filesystem::remove_all(path); }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
};

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

/// A checksum as the checkpoint's header and the record of the analysis write it.
inline std::string checksum_hex(const std::string& bytes) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx",
                static_cast<unsigned long long>(checkpoint_checksum(bytes.data(), bytes.size())));
  return text;
}

/// A text that ends with its checksum line (the header, the record of the analysis), without it.
inline std::string unsealed(const std::string& text) {
  const auto last = text.rfind("\nchecksum ");
  return last == std::string::npos ? text : text.substr(0, last + 1);
}

/// `body` with its checksum line: as the checker writes it, so that a test can change a field and
/// have it read (and checked) as the checker's own.
inline std::string sealed(const std::string& body) { return body + "checksum " + checksum_hex(body) + "\n"; }

/// Makes the checkpoint in `dir` consistent with its files as they are now: each file's size and
/// checksum in the header, then the header's checksum. So a test can change what a file holds
/// and see what the checks of its contents say, past the checksums.
inline void reseal_checkpoint(const std::filesystem::path& dir) {
  std::istringstream in(unsealed(read_text(dir / "checkpoint")));
  std::string body;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("file ", 0) == 0) {
      const std::string name = line.substr(5, line.find(' ', 5) - 5);
      const std::string bytes = read_text(dir / name);
      line = "file " + name + " " + std::to_string(bytes.size()) + " " + checksum_hex(bytes);
    }
    body += line + "\n";
  }
  write_text(dir / "checkpoint", sealed(body));
}

}  // namespace lmx::check::testing
