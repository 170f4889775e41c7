// The command language of the golden scenario scripts (testdata/*.txt): one command per line,
// executed on a Network, answering with output lines. Every error (unknown command, bad node or
// port, no network yet) is an output line starting with "error:", never an exception.
//
//   net nodes=N delta=D k=K variant=paper|repaired|fast   a fresh network (defaults 2, 2, 4, repaired)
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
//
// The work of a script is bounded: an interpreter runs at most `work_limit` activations in all
// (each lock, unlock, deliver and act counts one; each step of `run` and each `round` counts the
// number of nodes, as either may look at every node); a command that would go past the limit stops
// with an error line. A script cannot loop for ever.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lmx/script/network.hpp"

namespace lmx::script {

class Interpreter {
 public:
  /// Far above any golden script (the largest runs a few thousand activations).
  static constexpr std::uint64_t default_work_limit = 10'000'000;

  explicit Interpreter(std::uint64_t work_limit = default_work_limit) : work_limit_(work_limit) {}

  /// Runs one command line; returns its output lines.
  std::vector<std::string> execute(std::string_view line);
  /// The network built by the last `net` command, or null before the first.
  [[nodiscard]] Network* network() { return net_ ? &*net_ : nullptr; }
  /// Work counted so far (activations, see above).
  [[nodiscard]] std::uint64_t work_done() const { return work_done_; }

 private:
  std::optional<Network> net_;
  std::uint64_t work_limit_;
  std::uint64_t work_done_ = 0;
};

}  // namespace lmx::script
