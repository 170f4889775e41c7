// What the simulator records of a run (docs/trace-format.md, docs/simulator.md "Trace and hashes"):
//  - EventLog: a compact binary form of every event, folded into the event hash (`trace_hash`,
//    always computed: a few multiplications per event) and kept in a ring of the last 4,096 events
//    for the violation excerpts;
//  - TraceWriter: the lmx-trace/1 lines of the same events (only when a trace or its line hash is
//    wanted: formatting JSON for every event would dominate large runs), through lmx::trace::Writer.
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "lmx/core/protocol.hpp"
#include "lmx/sim/scenario.hpp"
#include "lmx/trace/trace.hpp"

namespace lmx::sim {

/// Event kinds of the compact form (also used for violation excerpts).
enum class EvKind : std::uint8_t { connect, cut, send, lost, act, call, done, move, violation };

/// One event in compact form: 16 bytes.
struct Ev {
  std::uint32_t tick = 0;
  EvKind kind = EvKind::act;
  std::uint8_t b1 = 0, b2 = 0, b3 = 0;
  std::uint32_t u = 0, v = 0;
};

class EventLog {
 public:
  static constexpr std::size_t ring_size = 4096;
  // Inline by force: every action logs an event, and GCC kept this out of line.
  [[gnu::always_inline]] void add(const Ev& e) {
    add(first_word(e.kind, e.b1, e.b2, e.b3, e.u), second_word(e.v, e.tick));
  }
  /// The two hashed words of an event, for callers that build them in parts (a send's words differ
  /// only in the port and the receiver).
  static constexpr std::uint64_t first_word(EvKind kind, std::uint8_t b1, std::uint8_t b2, std::uint8_t b3,
                                            std::uint32_t u) {
    return static_cast<std::uint64_t>(kind) | (std::uint64_t{b1} << 8) | (std::uint64_t{b2} << 16) |
           (std::uint64_t{b3} << 24) | (std::uint64_t{u} << 32);
  }
  static constexpr std::uint64_t second_word(std::uint32_t v, std::uint32_t tick) {
    return std::uint64_t{v} | (std::uint64_t{tick} << 32);
  }
  [[gnu::always_inline]] void add(std::uint64_t w1, std::uint64_t w2) {
    // The ring keeps the two hashed words, not the Ev: one computation serves both, and the
    // index is a mask (ring_size is a power of two).
    fold(w1), fold(w2);
    ring_[count_++ & (ring_size - 1)] = Words{w1, w2};
  }
  [[nodiscard]] std::uint64_t hash() const { return h_; }
  [[nodiscard]] std::uint64_t count() const { return count_; }
  /// Events still in the ring, oldest first, via f(const Ev&).
  template <class F>
  void for_recent(F&& f) const {
    const std::uint64_t first = count_ > ring_size ? count_ - ring_size : 0;
    for (std::uint64_t i = first; i < count_; ++i) f(event(ring_[i & (ring_size - 1)]));
  }

 private:
  static_assert((ring_size & (ring_size - 1)) == 0);
  struct Words {
    std::uint64_t w1, w2;
  };
  static Ev event(const Words& w) {
    Ev e;
    e.kind = static_cast<EvKind>(w.w1 & 0xFF);
    e.b1 = static_cast<std::uint8_t>(w.w1 >> 8), e.b2 = static_cast<std::uint8_t>(w.w1 >> 16);
    e.b3 = static_cast<std::uint8_t>(w.w1 >> 24), e.u = static_cast<std::uint32_t>(w.w1 >> 32);
    e.v = static_cast<std::uint32_t>(w.w2), e.tick = static_cast<std::uint32_t>(w.w2 >> 32);
    return e;
  }
  void fold(std::uint64_t w) {
    h_ = (h_ ^ w) * 0x9E3779B97F4A7C15ull;
    h_ ^= h_ >> 29;
  }
  std::uint64_t h_ = 0xCBF29CE484222325ull;
  std::uint64_t count_ = 0;
  std::array<Words, ring_size> ring_{};
};

/// Ports as a JSON array text, "[0,2,5]".
template <class Word>
[[nodiscard]] std::string ports_json(core::PortSet<Word> s) {
  std::string out = "[";
  for (core::Port p : s) out += (out.size() > 1 ? "," : "") + std::to_string(p);
  return out + "]";
}
/// Ports as set notation for messages, "{0,2,5}".
template <class Word>
[[nodiscard]] std::string ports_text(core::PortSet<Word> s) {
  std::string out = "{";
  for (core::Port p : s) out += (out.size() > 1 ? "," : "") + std::to_string(p);
  return out + "}";
}
[[nodiscard]] inline std::string port_name(core::Port l) { return l == core::no_port ? "BOT" : std::to_string(l); }

/// The lmx-trace/1 lines of a simulator run. Every method formats its line only when lines are
/// wanted (`enabled()`); callers test it first on hot paths.
template <class Word>
class TraceWriter {
  using Ports = core::PortSet<Word>;
  using State = core::NodeState<Word>;

 public:
  /// `now` is the engine's clock in ticks, `ticks_per_round` its resolution.
  TraceWriter(std::ostream* out, trace::Writer::Sink sink, bool hash_lines, const std::uint32_t& now,
              std::uint32_t ticks_per_round)
      : lines_(out, std::move(sink), hash_lines), now_(now), tpr_(ticks_per_round) {}

  [[nodiscard]] bool enabled() const { return lines_.enabled(); }
  [[nodiscard]] bool good() const { return lines_.good(); }
  [[nodiscard]] std::uint64_t line_hash() const { return lines_.hash(); }
  [[nodiscard]] std::uint64_t lines() const { return lines_.t(); }
  EventLog& events() { return events_; }
  const EventLog& events() const { return events_; }

  /// A tick as rounds: an integer for the semi-synchronous engine, a fraction for the async one.
  [[nodiscard]] std::string fmt_round(std::uint64_t tick) const {
    if (tpr_ == 1) return std::to_string(tick);
    return nlohmann::json(double(tick) / tpr_).dump();
  }

  void header(const nlohmann::ordered_json& h) {
    lines_.line() = h.dump();
    lines_.commit();
  }
  void edge(const char* kind, NodeId u, core::Port pu, NodeId v, core::Port pv) {
    begin(kind);
    line_ += ",\"u\":" + std::to_string(u) + ",\"pu\":" + std::to_string(pu) + ",\"v\":" + std::to_string(v) +
             ",\"pv\":" + std::to_string(pv) + "}";
    commit();
  }
  /// `requested`: a Lock over a chosen subset names its ports (none: the whole neighbourhood).
  void call(NodeId u, const char* op, bool ok, std::optional<Ports> requested = std::nullopt) {
    begin("call");
    line_ +=
        ",\"node\":" + std::to_string(u) + ",\"op\":\"" + op + "\",\"status\":\"" + (ok ? "ok" : "rejected") + "\"";
    if (requested) line_ += ",\"requested\":" + ports_json(*requested);
    line_ += "}";
    commit();
  }
  /// An application's line (docs/trace-format.md, "Application lines"): `fields` after ev, t, round.
  void app_line(const char* ev, const nlohmann::ordered_json& fields) {
    begin(ev);
    for (const auto& [key, value] : fields.items()) line_ += "," + nlohmann::json(key).dump() + ":" + value.dump();
    line_ += "}";
    commit();
  }
  void move(NodeId u, double x, double y) {
    begin("move");
    line_ += ",\"node\":" + std::to_string(u) + ",\"x\":" + nlohmann::json(x).dump() +
             ",\"y\":" + nlohmann::json(y).dump() + "}";
    commit();
  }
  void send(std::uint64_t id, NodeId u, core::Port p, core::Message m, NodeId to, core::Port to_port) {
    begin("send");
    line_ += ",\"id\":" + std::to_string(id) + ",\"from\":" + std::to_string(u) + ",\"port\":" + std::to_string(p) +
             ",\"kind\":\"" + std::string(core::to_string(m.kind)) + "\",\"value\":" + std::to_string(m.value) +
             ",\"to\":" + (to == no_node ? std::string("null") : std::to_string(to)) +
             ",\"to_port\":" + (to == no_node ? std::string("null") : std::to_string(to_port)) + "}";
    commit();
  }
  void lost(std::uint64_t id, const char* reason) {
    begin("lost");
    line_ += ",\"id\":" + std::to_string(id) + ",\"reason\":\"" + reason + "\"}";
    commit();
  }
  /// An action of u; `msg_id` is the received message's id (0: none). `s` is u's state after it.
  void act(NodeId u, const core::Activation& a, bool received, std::uint64_t msg_id, Ports d, const State& s) {
    begin("act");
    line_ += ",\"node\":" + std::to_string(u) + ",\"action\":\"" + std::string(core::to_string(a.action)) +
             "\",\"port\":" + (received ? std::to_string(a.port) : std::string("null")) +
             ",\"msg\":" + (received ? std::to_string(msg_id) : std::string("null")) + ",\"D\":" + ports_json(d) +
             ",\"lock\":" + (s.lock_port == core::no_port ? std::string("\"BOT\"") : std::to_string(s.lock_port)) +
             ",\"state\":\"" + std::string(core::to_string(s.state)) + "\",\"phase\":\"" +
             std::string(core::to_string(s.phase)) + "\",\"regs\":{\"L\":" + ports_json(s.lock_set) +
             ",\"R\":" + ports_json(s.replied) + ",\"W\":" + win_json(s) + ",\"H\":" + ports_json(s.on_hold) +
             ",\"A\":" + ports_json(s.applicants) + ",\"C\":" + ports_json(s.candidates) +
             ",\"P\":" + priorities_json(s) + "}}";
    commit();
  }
  /// CheckDone returned `ports`; `lock_set` is the paper's lock set as a JSON array text.
  void lock_done(NodeId u, Ports ports, const std::string& lock_set) {
    begin("done");
    line_ += ",\"node\":" + std::to_string(u) + ",\"op\":\"lock\",\"ports\":" + ports_json(ports) +
             ",\"lock_set\":" + lock_set + "}";
    commit();
  }
  void unlock_done(NodeId u) {
    begin("done");
    line_ += ",\"node\":" + std::to_string(u) + ",\"op\":\"unlock\",\"ports\":[],\"lock_set\":[]}";
    commit();
  }
  void violation(const std::string& property, const std::vector<NodeId>& nodes, const std::vector<unsigned>& ports,
                 const std::string& detail) {
    begin("violation");
    line_ += ",\"property\":\"" + property + "\",\"nodes\":" + nlohmann::json(nodes).dump() +
             ",\"ports\":" + nlohmann::json(ports).dump() + ",\"detail\":" + nlohmann::json(detail).dump() + "}";
    commit();
  }
  void finding(const char* kind, NodeId u, Ports ports, const std::string& detail) {
    begin("finding");
    line_ += std::string(",\"kind\":\"") + kind + "\",\"node\":" + std::to_string(u) +
             ",\"ports\":" + ports_json(ports) + ",\"detail\":" + nlohmann::json(detail).dump() + "}";
    commit();
  }
  /// An activation at which the node had nothing enabled (no state-changing action, no message, no
  /// call): recorded so that a reader can check the adversary's fairness from the trace alone.
  void idle(NodeId u) {
    begin("idle");
    line_ += ",\"node\":" + std::to_string(u) + "}";
    commit();
  }
  /// The asynchronous engine learns an execution's end after its effects: the lines of one
  /// execution wait between hold() and release(end), which writes them with the end time in the
  /// execution's act or idle line.
  void hold() { holding_ = true; }
  void release(std::uint64_t end_tick) {
    holding_ = false;
    // The execution's act (or idle) line: the call line of an InitLock may come before it.
    for (auto& line : held_)
      if (line.starts_with("{\"ev\":\"act\"") || line.starts_with("{\"ev\":\"idle\"")) {
        line.pop_back();  // the closing '}'
        line += ",\"end\":" + fmt_round(end_tick) + "}";
        break;
      }
    for (auto& line : held_) {
      lines_.line() = std::move(line);
      lines_.commit();
    }
    held_.clear();
  }
  /// The last line, outside the line hash.
  void end(const nlohmann::json& fields) { lines_.write_unhashed(fields.dump()); }

 private:
  void begin(const char* ev) {
    line_.clear();
    line_ += "{\"ev\":\"";
    line_ += ev;
    line_ += "\",\"t\":" + std::to_string(lines_.t() + held_.size()) + ",\"round\":" + fmt_round(now_);
  }
  void commit() {
    if (holding_) return held_.push_back(line_);
    lines_.line() = line_;
    lines_.commit();
  }
  static std::string win_json(const State& s) {
    std::string out = "[";
    for (core::Port p : s.win_outcomes.won) out += (out.size() > 1 ? "," : "") + ("[" + std::to_string(p) + ",1]");
    for (core::Port p : s.win_outcomes.lost) out += (out.size() > 1 ? "," : "") + ("[" + std::to_string(p) + ",0]");
    return out + "]";
  }
  static std::string priorities_json(const State& s) {
    std::string out = "[";
    for (core::Port p : s.priorities.ports)
      out += (out.size() > 1 ? "," : "") + ("[" + std::to_string(p) + "," + std::to_string(s.priorities.get(p)) + "]");
    return out + "]";
  }

  trace::Writer lines_;
  std::string line_;
  bool holding_ = false;
  std::vector<std::string> held_;  ///< the lines of an execution whose end is not known yet
  EventLog events_;
  const std::uint32_t& now_;
  std::uint32_t tpr_;
};

}  // namespace lmx::sim
