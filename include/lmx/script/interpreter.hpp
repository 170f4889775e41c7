// The command language of the golden scenario scripts (testdata/*.txt): one command per line,
// executed on a Network, answering with output lines. Every error (unknown command, bad node or
// port, no network yet) is an output line starting with "error:", never an exception.
//
//   net nodes=N delta=D k=K variant=paper|repaired   a fresh network (defaults 2, 2, 4, repaired)
//   connect U:P V:Q        add the edge between port P of U and port Q of V
//   cut U:P                remove the edge at port P of U (messages on it are lost)
//   lock U / unlock U      the application calls Lock / Unlock at U
//   deliver U:P [kind]     U receives the oldest message (of that kind) waiting at its port P
//   act U Action           U executes the guarded action (CheckStart, CleanUp, ...)
//   priority P...          queue priorities for the next random draws
//   round [N]              N synchronous rounds (default 1), every node activated
//   run [max]              deterministic steps until nothing changes (default max 1000)
//   state [U]              Table-1 registers of U (all nodes without U), and D
//   enabled U              guarded actions whose guard holds at U
//   waiting U              messages waiting at U, per port
//   lockset U              U's lock set as the paper defines it
//   check                  every invariant of Network::violations, or "ok"
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lmx/script/network.hpp"

namespace lmx::script {

class Interpreter {
 public:
  /// Runs one command line; returns its output lines.
  std::vector<std::string> execute(std::string_view line);
  /// The network built by the last `net` command, or null before the first.
  [[nodiscard]] Network* network() { return net_ ? &*net_ : nullptr; }

 private:
  std::optional<Network> net_;
};

}  // namespace lmx::script
