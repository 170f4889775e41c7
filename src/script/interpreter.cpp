#include "lmx/script/interpreter.hpp"

#include <algorithm>
#include <charconv>
#include <iterator>
#include <stdexcept>

namespace lmx::script {

using core::Port;

namespace {

/// A bad argument: reported as one "error:" line by execute().
struct ScriptError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

unsigned parse_number(std::string_view text, std::string_view what) {
  unsigned value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || text.empty())
    throw ScriptError("bad " + std::string(what) + " '" + std::string(text) + "'");
  return value;
}

/// "n3" or "3".
unsigned parse_node(std::string_view text) {
  if (!text.empty() && text.front() == 'n') text.remove_prefix(1);
  return parse_number(text, "node");
}

/// "U:P", port within 0..255 (the network checks it against Delta).
std::pair<unsigned, Port> parse_node_port(std::string_view text) {
  const auto colon = text.find(':');
  if (colon == std::string_view::npos) throw ScriptError("expected NODE:PORT, got '" + std::string(text) + "'");
  const unsigned port = parse_number(text.substr(colon + 1), "port");
  if (port > 255) throw ScriptError("bad port '" + std::string(text.substr(colon + 1)) + "'");
  return {parse_node(text.substr(0, colon)), static_cast<Port>(port)};
}

std::vector<std::string_view> split(std::string_view line) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && line[i] == ' ') ++i;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ') ++i;
    if (i > start) words.push_back(line.substr(start, i - start));
  }
  return words;
}

void expect_args(const std::vector<std::string_view>& args, std::size_t min, std::size_t max, std::string_view usage) {
  if (args.size() < min || args.size() > max) throw ScriptError("usage: " + std::string(usage));
}

}  // namespace

std::vector<std::string> Interpreter::execute(std::string_view line) {
  auto words = split(line);
  if (words.empty()) return {};
  const std::string_view command = words.front();
  const std::vector<std::string_view> args(words.begin() + 1, words.end());
  std::vector<std::string> out;

  auto network = [this]() -> Network& {
    if (!net_) throw ScriptError("no network: start with 'net nodes=N delta=D k=K variant=V'");
    return *net_;
  };
  // Counts `units` activations against the limit; refuses them (an error line) past it.
  auto spend = [&](std::uint64_t units) {
    if (units > work_limit_ - work_done_)
      throw ScriptError("work limit reached: this script may run at most " + std::to_string(work_limit_) +
                        " activations");
    work_done_ += units;
  };
  auto node = [&](std::string_view text) {
    const unsigned u = parse_node(text);
    if (u >= network().size()) throw ScriptError("no node " + std::to_string(u));
    return u;
  };

  // The command, looked up in a fixed table: no allocation per line (the fuzzer runs millions).
  enum class Command {
    net,
    connect,
    cut,
    lock,
    unlock,
    deliver,
    act,
    priority,
    round,
    run,
    state,
    enabled,
    waiting,
    lockset,
    check
  };
  static constexpr std::pair<std::string_view, Command> commands[] = {
      {"net", Command::net},         {"connect", Command::connect},   {"cut", Command::cut},
      {"lock", Command::lock},       {"unlock", Command::unlock},     {"deliver", Command::deliver},
      {"act", Command::act},         {"priority", Command::priority}, {"round", Command::round},
      {"run", Command::run},         {"state", Command::state},       {"enabled", Command::enabled},
      {"waiting", Command::waiting}, {"lockset", Command::lockset},   {"check", Command::check}};
  const auto* found =
      std::find_if(std::begin(commands), std::end(commands), [&](const auto& c) { return c.first == command; });
  if (found == std::end(commands)) return {"error: unknown command '" + std::string(command) + "'"};
  try {
    switch (found->second) {
      case Command::net: {
        unsigned nodes = 2;
        core::Config config{2, 4, core::default_variant};
        for (auto arg : args) {
          const auto eq = arg.find('=');
          const auto key = arg.substr(0, eq);
          const auto value = eq == std::string_view::npos ? std::string_view{} : arg.substr(eq + 1);
          if (key == "nodes")
            nodes = parse_number(value, "nodes");
          else if (key == "delta")
            config.delta = parse_number(value, "delta");
          else if (key == "k")
            config.k = parse_number(value, "k");
          else if (key == "variant") {
            if (!core::parse_variant(value, config.variant))
              throw ScriptError("unknown variant '" + std::string(value) + "' (paper, repaired)");
          } else {
            throw ScriptError("unknown net argument '" + std::string(arg) + "' (nodes, delta, k, variant)");
          }
        }
        if (nodes < 1 || nodes > 64) throw ScriptError("nodes must be 1..64");
        if (config.delta < 1 || config.delta > core::Protocol<Word>::max_delta)
          throw ScriptError("delta must be 1..63");
        if (config.k < core::k_min || config.k > core::k_max) throw ScriptError("k must be 2..32");
        net_.emplace(nodes, config);
        out.push_back("network of " + std::to_string(nodes) + " nodes, delta=" + std::to_string(config.delta) +
                      " k=" + std::to_string(config.k) + " variant=" + std::string(core::to_string(config.variant)));
        break;
      }
      case Command::connect: {
        expect_args(args, 2, 2, "connect U:P V:Q");
        const auto [u, pu] = parse_node_port(args[0]);
        const auto [v, pv] = parse_node_port(args[1]);
        out.push_back(network().connect(u, pu, v, pv));
        break;
      }
      case Command::cut: {
        expect_args(args, 1, 1, "cut U:P");
        const auto [u, pu] = parse_node_port(args[0]);
        out.push_back(network().cut(u, pu));
        break;
      }
      case Command::lock: {
        expect_args(args, 1, 1, "lock U");
        const unsigned u = node(args[0]);
        spend(1);
        out.push_back(network().lock(u));
        break;
      }
      case Command::unlock: {
        expect_args(args, 1, 1, "unlock U");
        const unsigned u = node(args[0]);
        spend(1);
        out.push_back(network().unlock(u));
        break;
      }
      case Command::deliver: {
        expect_args(args, 1, 2, "deliver U:P [kind]");
        const auto [u, port] = parse_node_port(args[0]);
        std::optional<core::MessageKind> kind;
        if (args.size() == 2) {
          core::MessageKind k;
          if (!core::parse_message_kind(args[1], k))
            throw ScriptError("unknown message kind '" + std::string(args[1]) + "'");
          kind = k;
        }
        Network& net = network();
        spend(1);
        out.push_back(net.deliver(u, port, kind));
        break;
      }
      case Command::act: {
        expect_args(args, 2, 2, "act U Action");
        const unsigned u = node(args[0]);
        core::Action a;
        if (!core::parse_action(args[1], a)) throw ScriptError("unknown action '" + std::string(args[1]) + "'");
        spend(1);
        out.push_back(network().act(u, a));
        break;
      }
      case Command::priority: {
        expect_args(args, 1, 64, "priority P...");
        Network& net = network();
        for (auto arg : args) {
          const unsigned p = parse_number(arg, "priority");
          if (p >= net.config().k) throw ScriptError("priority " + std::string(arg) + " is not below K");
          net.queue_priority(p);
        }
        out.push_back("queued " + std::to_string(args.size()) + " priorities");
        break;
      }
      case Command::round: {
        expect_args(args, 0, 1, "round [N]");
        const unsigned rounds = args.empty() ? 1 : parse_number(args[0], "round count");
        Network& net = network();
        for (unsigned i = 1; i <= rounds; ++i) {
          spend(net.size());  // a round visits every node
          const auto lines = net.round();
          if (lines.empty()) {
            out.push_back("round " + std::to_string(i) + ": nothing can change");
            break;
          }
          out.push_back("round " + std::to_string(i));
          for (const auto& l : lines) out.push_back("  " + l);
        }
        break;
      }
      case Command::run: {
        expect_args(args, 0, 1, "run [max]");
        const unsigned max = args.empty() ? 1000 : parse_number(args[0], "step count");
        unsigned steps = 0;
        Network& net = network();
        for (; steps < max; ++steps) {
          spend(net.size());  // a step may look at every node for an effective action
          auto l = net.step_any();
          if (l.empty()) break;
          out.push_back(std::move(l));
        }
        if (steps == max && net.can_step())
          out.push_back("stopped after " + std::to_string(max) + " steps: still changing");
        break;
      }
      case Command::state: {
        expect_args(args, 0, 1, "state [U]");
        Network& net = network();
        auto describe = [&](unsigned u) { out.push_back(net.describe(u) + " D=" + format_ports(net.disconnected(u))); };
        if (args.empty())
          for (unsigned u = 0; u < net.size(); ++u) describe(u);
        else
          describe(node(args[0]));
        break;
      }
      case Command::enabled: {
        expect_args(args, 1, 1, "enabled U");
        const unsigned u = node(args[0]);
        std::string l = "n" + std::to_string(u) + ":";
        const auto set = network().enabled(u);
        for (core::Action a : core::guarded_actions)
          if (set.contains(a)) l += " " + std::string(core::to_string(a));
        out.push_back(set.empty() ? l + " none" : l);
        break;
      }
      case Command::waiting: {
        expect_args(args, 1, 1, "waiting U");
        const unsigned u = node(args[0]);
        Network& net = network();
        for (Port p = 0; p <= net.config().delta; ++p) {
          if (net.waiting(u, p).empty()) continue;
          std::string l = "n" + std::to_string(u) + ":" + std::to_string(p);
          for (const auto& m : net.waiting(u, p)) l += " " + format_message(m.message);
          out.push_back(l);
        }
        if (out.empty()) out.push_back("n" + std::to_string(u) + ": nothing waiting");
        break;
      }
      case Command::lockset: {
        expect_args(args, 1, 1, "lockset U");
        const unsigned u = node(args[0]);
        std::string l = "lock set of n" + std::to_string(u) + ": {";
        bool first = true;
        for (unsigned v : network().lock_set_of(u)) l += (first ? "n" : ",n") + std::to_string(v), first = false;
        out.push_back(l + "}");
        break;
      }
      case Command::check: {
        expect_args(args, 0, 0, "check");
        out = network().violations();
        if (out.empty()) out.push_back("ok");
        break;
      }
    }
  } catch (const ScriptError& e) {
    out.push_back(std::string("error: ") + e.what());
  }
  return out;
}

}  // namespace lmx::script
