#include "lmx/script/network.hpp"

#include <sstream>

namespace lmx::script {

using core::Action;
using core::Message;
using core::MessageKind;
using core::Port;

std::string format_ports(Ports ports) {
  std::string s = "{";
  bool first = true;
  for (Port p : ports) {
    if (!first) s += ",";
    s += std::to_string(p);
    first = false;
  }
  return s + "}";
}

std::string format_message(Message m) {
  std::string s(core::to_string(m.kind));
  if (m.kind == MessageKind::request_lock) s += "(" + std::to_string(m.value) + ")";
  if (m.kind == MessageKind::win) s += m.value ? "(true)" : "(false)";
  return s;
}

std::string node_name(unsigned u) { return "n" + std::to_string(u); }

Network::Network(unsigned nodes, core::Config config) : protocol_(config), nodes_(nodes) {
  for (auto& n : nodes_) {
    n.links.resize(config.delta + 1);
    n.inbox.resize(config.delta + 1);
  }
}

Ports Network::neighbours(unsigned u) const {
  Ports s;
  const auto& n = nodes_.at(u);
  for (Port p = 1; p < n.links.size(); ++p)
    if (n.links[p].connected) s.insert(p);
  return s;
}

const std::vector<InTransit>& Network::waiting(unsigned u, Port port) const { return nodes_.at(u).inbox.at(port); }

std::optional<std::pair<unsigned, Port>> Network::peer(unsigned u, Port port) const {
  const auto& l = nodes_.at(u).links.at(port);
  if (port == core::self_port || !l.connected) return std::nullopt;
  return std::make_pair(l.node, l.port);
}

std::string Network::check_node(unsigned u) const {
  if (u >= nodes_.size())
    return "no node " + std::to_string(u) + " (network has " + std::to_string(nodes_.size()) + ")";
  return {};
}

std::string Network::check_port(unsigned u, Port p, bool allow_self) const {
  if (auto e = check_node(u); !e.empty()) return e;
  if (p > config().delta || (!allow_self && p == core::self_port))
    return "port " + std::to_string(p) + " is not a neighbour port 1.." + std::to_string(config().delta);
  return {};
}

std::string Network::connect(unsigned u, Port pu, unsigned v, Port pv) {
  if (auto e = check_port(u, pu, false); !e.empty()) return "error: " + e;
  if (auto e = check_port(v, pv, false); !e.empty()) return "error: " + e;
  if (u == v) return "error: an edge joins two distinct nodes";
  if (nodes_[u].links[pu].connected)
    return "error: port " + std::to_string(pu) + " of n" + std::to_string(u) + " is taken";
  if (nodes_[v].links[pv].connected)
    return "error: port " + std::to_string(pv) + " of n" + std::to_string(v) + " is taken";
  for (Port p = 1; p <= config().delta; ++p)
    if (nodes_[u].links[p].connected && nodes_[u].links[p].node == v)
      return "error: n" + std::to_string(u) + " and n" + std::to_string(v) + " are already neighbours";
  nodes_[u].links[pu] = Link{v, pv, true};
  nodes_[v].links[pv] = Link{u, pu, true};
  return "connect " + node_name(u) + ":" + std::to_string(pu) + " " + node_name(v) + ":" + std::to_string(pv);
}

std::string Network::cut(unsigned u, Port pu) {
  if (auto e = check_port(u, pu, false); !e.empty()) return "error: " + e;
  auto& l = nodes_[u].links[pu];
  if (!l.connected) return "error: port " + std::to_string(pu) + " of n" + std::to_string(u) + " holds no edge";
  const unsigned v = l.node;
  const Port pv = l.port;
  std::string lost;
  for (auto [node, port] : {std::pair{u, pu}, std::pair{v, pv}}) {
    for (const auto& m : nodes_[node].inbox[port]) lost += " " + format_message(m.message) + "->" + node_name(node);
    nodes_[node].inbox[port].clear();
    nodes_[node].links[port].connected = false;
    nodes_[node].disconnected.insert(port);  // the disconnection detector (Section 3.1)
  }
  return "cut " + node_name(u) + ":" + std::to_string(pu) + " " + node_name(v) + ":" + std::to_string(pv) +
         (lost.empty() ? "" : " lost" + lost);
}

core::Context<Word> Network::context(unsigned u) const { return {nodes_[u].disconnected, neighbours(u)}; }

unsigned Network::draw_priority(unsigned bound) {
  if (!scripted_priorities_.empty()) {
    const unsigned p = scripted_priorities_.front();
    scripted_priorities_.pop_front();
    return p % bound;
  }
  // splitmix64: deterministic, seeded once per network.
  std::uint64_t z = (rng_state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<unsigned>((z >> 32) % bound);
}

std::string Network::apply(unsigned u, const std::string& what, const core::Effects<Word>& fx) {
  last_effects_ = fx;
  if (fx.status != core::Status::ok) return node_name(u) + " " + what + ": " + std::string(core::to_string(fx.status));
  nodes_[u].disconnected.clear();  // the snapshot was consumed by this action
  std::ostringstream line;
  line << node_name(u) << " " << what;
  for (unsigned i = 0; i < fx.send_count; ++i) {
    const auto& s = fx.sends[i];
    line << " -> " << format_message(s.message) << "@" << format_ports(s.ports);
    for (Port p : s.ports) {
      if (p == core::self_port) {
        nodes_[u].inbox[0].push_back({s.message, next_message_id_++});
      } else if (nodes_[u].links[p].connected) {
        const auto& l = nodes_[u].links[p];
        nodes_[l.node].inbox[l.port].push_back({s.message, next_message_id_++});
      } else {
        line << " (lost on empty port " << int(p) << ")";
      }
    }
  }
  if (fx.port_sent_twice) line << " [port sent twice]";
  if (fx.priority_overwritten) line << " [priority overwritten]";
  if (fx.lock_acquired) {
    nodes_[u].locks_acquired++;
    nodes_[u].last_lock_set = fx.locked_ports;
    line << " => locked " << format_ports(fx.locked_ports);
  }
  if (fx.unlocked) line << " => unlocked";
  return line.str();
}

std::string Network::lock(unsigned u) {
  if (auto e = check_node(u); !e.empty()) return "error: " + e;
  auto& s = nodes_[u].state;
  return apply(u, "InitLock", protocol_.lock(s, context(u)));
}

std::string Network::unlock(unsigned u) {
  if (auto e = check_node(u); !e.empty()) return "error: " + e;
  auto& s = nodes_[u].state;
  return apply(u, "InitUnlock", protocol_.unlock(s, context(u)));
}

std::string Network::deliver(unsigned u, Port port, std::optional<MessageKind> kind) {
  if (auto e = check_port(u, port, true); !e.empty()) return "error: " + e;
  auto& box = nodes_[u].inbox[port];
  auto it = box.begin();
  if (kind)
    while (it != box.end() && it->message.kind != *kind) ++it;
  if (it == box.end()) return "error: no message waiting at n" + std::to_string(u) + ":" + std::to_string(port);
  const Message m = it->message;
  box.erase(it);
  core::Activation a{core::receive_action(m.kind), port, m};
  auto draw = [this](unsigned bound) { return draw_priority(bound); };
  auto fx = protocol_.step(nodes_[u].state, a, context(u), core::PriorityDraw::from(draw));
  return apply(u, std::string(core::to_string(a.action)) + " " + format_message(m) + "@" + std::to_string(port), fx);
}

std::string Network::act(unsigned u, Action action) {
  if (auto e = check_node(u); !e.empty()) return "error: " + e;
  if (action == Action::init_lock) return lock(u);
  if (action == Action::init_unlock) return unlock(u);
  if (core::is_receive(action)) return "error: a Receive action runs by delivering a message";
  auto draw = [this](unsigned bound) { return draw_priority(bound); };
  auto fx = protocol_.step(nodes_[u].state, core::Activation{action}, context(u), core::PriorityDraw::from(draw));
  return apply(u, std::string(core::to_string(action)), fx);
}

bool Network::quiescent() const {
  for (const auto& n : nodes_)
    for (const auto& box : n.inbox)
      if (!box.empty()) return false;
  return true;
}

bool Network::can_step() const {
  if (!quiescent()) return true;
  for (unsigned u = 0; u < nodes_.size(); ++u)
    if (effective_guarded(u)) return true;
  return false;
}

std::string Network::step_any() {
  // Oldest message first (a fair, FIFO-like delivery for readable demos).
  std::uint64_t best = 0;
  unsigned best_node = 0;
  Port best_port = 0;
  for (unsigned u = 0; u < nodes_.size(); ++u)
    for (Port p = 0; p < nodes_[u].inbox.size(); ++p)
      if (!nodes_[u].inbox[p].empty() && (best == 0 || nodes_[u].inbox[p].front().id < best)) {
        best = nodes_[u].inbox[p].front().id;
        best_node = u;
        best_port = p;
      }
  if (best != 0) return deliver(best_node, best_port);
  for (unsigned u = 0; u < nodes_.size(); ++u)
    if (auto a = effective_guarded(u)) return act(u, *a);
  return {};
}

std::optional<Action> Network::effective_guarded(unsigned u) const {
  for (Action a : core::guarded_actions) {
    if (!protocol_.guard(nodes_[u].state, a)) continue;
    State probe = nodes_[u].state;
    auto draw = [](unsigned) { return 0u; };
    auto fx = protocol_.step(probe, core::Activation{a}, context(u), core::PriorityDraw::from(draw));
    if (probe != nodes_[u].state || fx.send_count > 0 || !nodes_[u].disconnected.empty()) return a;
  }
  return std::nullopt;
}

std::vector<std::string> Network::round() {
  std::vector<std::string> lines;
  const std::uint64_t round_start = next_message_id_;
  for (unsigned u = 0; u < nodes_.size(); ++u) {
    if (auto a = effective_guarded(u)) {
      lines.push_back(act(u, *a));
      continue;
    }
    std::uint64_t best = 0;
    Port best_port = 0;
    for (Port p = 0; p < nodes_[u].inbox.size(); ++p)
      if (!nodes_[u].inbox[p].empty()) {
        const auto id = nodes_[u].inbox[p].front().id;
        if (id < round_start && (best == 0 || id < best)) best = id, best_port = p;
      }
    if (best != 0) lines.push_back(deliver(u, best_port));
  }
  return lines;
}

std::vector<unsigned> Network::lock_set_of(unsigned u) const {
  std::vector<unsigned> set;
  if (nodes_.at(u).state.lock_port == core::self_port) set.push_back(u);
  for (Port p = 1; p <= config().delta; ++p) {
    const auto& l = nodes_[u].links[p];
    if (l.connected && nodes_[l.node].state.lock_port == l.port) set.push_back(l.node);
  }
  return set;
}

std::string Network::describe(unsigned u) const {
  const State& s = nodes_.at(u).state;
  std::ostringstream o;
  o << node_name(u) << ": lock=" << (s.lock_port == core::no_port ? std::string("BOT") : std::to_string(s.lock_port))
    << " state=" << core::to_string(s.state) << " phase=" << core::to_string(s.phase)
    << " L=" << format_ports(s.lock_set) << " R=" << format_ports(s.replied) << " W={";
  bool first = true;
  for (Port p : s.win_outcomes.won | s.win_outcomes.lost) {
    if (s.win_outcomes.won.contains(p)) o << (first ? "" : ",") << "(" << int(p) << ",T)", first = false;
    if (s.win_outcomes.lost.contains(p)) o << (first ? "" : ",") << "(" << int(p) << ",F)", first = false;
  }
  o << "} H=" << format_ports(s.on_hold) << " A=" << format_ports(s.applicants) << " C=" << format_ports(s.candidates)
    << " P={";
  first = true;
  for (Port p : s.priorities.ports)
    o << (first ? "" : ",") << "(" << int(p) << "," << s.priorities.get(p) << ")", first = false;
  o << "}";
  return o.str();
}

}  // namespace lmx::script
