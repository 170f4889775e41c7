// lmx: local mutual exclusion toolkit. Each sub-command lives in its own cmd_*.cpp.
#include <algorithm>
#include <iostream>

#include "command.hpp"
#include "lmx/core/protocol.hpp"

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
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version print through CLI11; a usage error is one line, like every other error.
    if (e.get_exit_code() == 0) return app.exit(e);
    std::cerr << "lmx: error: " << e.what() << " (see lmx --help)\n";
    return e.get_exit_code();
  } catch (const Failure& e) {
    std::cerr << "lmx: error: " << e.what() << "\n";
    return e.exit_code;
  } catch (const std::exception& e) {
    std::cerr << "lmx: error: " << e.what() << "\n";
    return 2;
  }
  return exit_code;
}
