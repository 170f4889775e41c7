// Sub-commands of the `lmx` tool register themselves here, one file per command (cmd_*.cpp), so
// that adding a command touches no other file.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace lmx::cli {

/// Thrown by a command for bad input or a failed run: main prints "lmx: error: <what>" and exits
/// with `exit_code`.
struct Failure : std::runtime_error {
  Failure(const std::string& what, int code = 2) : std::runtime_error(what), exit_code(code) {}
  int exit_code;
};

/// A command adds its CLI11 sub-command to the app; its callback may set `exit_code`.
struct Command {
  std::string name;
  int order;  // position in --help
  std::function<void(CLI::App& app, int& exit_code)> add;
};

std::vector<Command>& registry();

struct Register {
  explicit Register(Command c) { registry().push_back(std::move(c)); }
};

}  // namespace lmx::cli
