// lmx: local mutual exclusion toolkit. Each sub-command lives in its own cmd_*.cpp.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include "command.hpp"
#include "lmx/core/protocol.hpp"
#include "lmx/sim/scenario.hpp"

namespace lmx::cli {
std::vector<Command>& registry() {
  static std::vector<Command> commands;
  return commands;
}
}  // namespace lmx::cli

int main(int argc, char** argv) {
  using namespace lmx::cli;
  CLI::App app{"lmx: local mutual exclusion in dynamic, anonymous, bounded-memory networks"};
  app.set_version_flag("--version", std::string(lmx::core::version));
  app.require_subcommand(1);
  int exit_code = 0;
  auto& commands = registry();
  std::sort(commands.begin(), commands.end(), [](const Command& a, const Command& b) { return a.order < b.order; });
  for (auto& c : commands) c.add(app, exit_code);
  // A first word that names no command is said so (CLI11 would only say that one is required).
  if (argc > 1 && argv[1][0] != '-') {
    const std::string word = argv[1];
    std::string names;
    bool known = false;
    for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
      known = known || sub->get_name() == word;
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    if (!known) {
      std::cerr << "lmx: error: unknown command '" << lmx::sim::printable(word) << "' (commands: " << names
                << "; see lmx --help)\n";
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version print through CLI11; a usage error is one line, like every other error,
    // and exits 2 as all bad input does (CLI11's own codes would tell the kind of parse error).
    if (e.get_exit_code() == 0) return app.exit(e);
    std::cerr << "lmx: error: " << e.what() << " (see lmx --help)\n";
    return 2;
  } catch (const Failure& e) {
    std::cerr << "lmx: error: " << e.what() << "\n";
    return e.exit_code;
  } catch (const std::exception& e) {
    std::cerr << "lmx: error: " << e.what() << "\n";
    return 2;
  }
  // Whatever a command printed is only out once the buffers are flushed: a full disk or a closed
  // pipe is an error there, not a silent success.
  errno = 0;
  std::cout.flush();
  if (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout)) {
    std::cerr << "lmx: error: cannot write to standard output"
              << (errno ? std::string(": ") + std::strerror(errno) : "") << "\n";
    return 2;
  }
  return exit_code;
}
