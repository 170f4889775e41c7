// Re-executes an lmx-trace/1 trace on the real core (include/lmx/check/replay.hpp). The trace is
// read with the shared reader (lmx/trace/trace.hpp), which checks every line's form, order and the
// end line's hash; every field used here is range-checked before use.
#include "lmx/check/replay.hpp"

#include <deque>
#include <istream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "lmx/core/protocol.hpp"
#include "lmx/trace/trace.hpp"

namespace lmx::check {

namespace {
using json = nlohmann::json;
using Word = std::uint64_t;
using Ports = core::PortSet<Word>;
using trace::get_uint;

struct Link {
  int node = -1;
  unsigned port = 0;
};
struct Node {
  core::NodeState<Word> s;
  Ports d;
  std::vector<Link> links;
};
struct InTransit {
  unsigned to, to_port;
  core::Message m;
};

/// The re-execution of one trace.
class Replay {
 public:
  Replay(trace::Reader& reader, std::ostream& report) : reader_(reader), report_(report) {
    const json& h = reader.header();
    if (!h.contains("variant") || !h["variant"].is_string() ||
        !core::parse_variant(h["variant"].get<std::string>(), variant_))
      reader.fail(1, "the header needs a known \"variant\" (paper, repaired or fast)");
    const trace::Line& header = reader.header_line();
    delta_ = static_cast<unsigned>(get_uint(reader, header, "delta", 1, 63));
    k_ = static_cast<unsigned>(get_uint(reader, header, "k", core::k_min, core::k_max));
    n_ = static_cast<unsigned>(get_uint(reader, header, "nodes", 1, 64));
    nodes_.resize(n_);
    for (auto& nd : nodes_) nd.links.resize(delta_ + 1);
  }

  /// Processes every line; returns the number of mismatches.
  unsigned run() {
    trace::Line current, ahead;
    bool more = reader_.next(ahead);
    while (more) {
      current = std::move(ahead);
      more = reader_.next(ahead);
      if (current.ev == "end") break;
      event(current, more ? &ahead : nullptr);
    }
    if (!reader_.complete())
      reader_.fail(current.number + 1, "the trace ends without its end line (the file was cut short)");
    return mismatches_;
  }
  [[nodiscard]] unsigned acts() const { return acts_; }

 private:
  void mismatch(const trace::Line& line, const std::string& why) {
    report_ << "line " << line.number << ": " << why << "\n";
    ++mismatches_;
  }
  unsigned node(const trace::Line& l, const char* key) const {
    return static_cast<unsigned>(get_uint(reader_, l, key, 0, n_ - 1));
  }
  unsigned port(const trace::Line& l, const char* key, unsigned lo) const {
    return static_cast<unsigned>(get_uint(reader_, l, key, lo, delta_));
  }
  std::string text(const trace::Line& l, const char* key) const {
    if (!l.event.contains(key) || !l.event[key].is_string())
      reader_.fail(l.number, std::string("\"") + l.ev + "\" needs a string \"" + key + "\"");
    return l.event[key].get<std::string>();
  }
  /// A port set: an array of ports 0..Delta.
  Ports ports(const trace::Line& l, const json& a, const char* what) const {
    if (!a.is_array()) reader_.fail(l.number, std::string(what) + " must be an array of ports");
    Ports p;
    for (const auto& x : a) {
      if (!x.is_number_unsigned() || x.get<std::uint64_t>() > delta_)
        reader_.fail(l.number, std::string(what) + " holds " + lmx::trace::json_excerpt(x) + ", not a port 0.." +
                                   std::to_string(delta_));
      p.insert(static_cast<core::Port>(x.get<unsigned>()));
    }
    return p;
  }
  /// An array of [port, value] pairs with value < bound.
  std::vector<std::pair<core::Port, unsigned>> pairs(const trace::Line& l, const json& a, const char* what,
                                                     unsigned bound) const {
    if (!a.is_array()) reader_.fail(l.number, std::string(what) + " must be an array of [port, value] pairs");
    std::vector<std::pair<core::Port, unsigned>> out;
    for (const auto& x : a) {
      if (!x.is_array() || x.size() != 2 || !x[0].is_number_unsigned() || x[0].get<std::uint64_t>() > delta_ ||
          !x[1].is_number_unsigned() || x[1].get<std::uint64_t>() >= bound)
        reader_.fail(l.number,
                     std::string(what) + " holds " + lmx::trace::json_excerpt(x) + ", not a [port, value] pair");
      out.emplace_back(static_cast<core::Port>(x[0].get<unsigned>()), x[1].get<unsigned>());
    }
    return out;
  }
  const json& field(const trace::Line& l, const char* key) const {
    if (!l.event.contains(key))
      reader_.fail(l.number, lmx::trace::json_excerpt(nlohmann::json(l.ev)) + " needs \"" + key + "\"");
    return l.event[key];
  }

  Ports neighbours(unsigned u) const {
    Ports p;
    for (unsigned q = 1; q <= delta_; ++q)
      if (nodes_[u].links[q].node >= 0) p.insert(static_cast<core::Port>(q));
    return p;
  }
  void produce(unsigned u, const core::Effects<Word>& fx) {
    last_ = fx;
    last_node_ = static_cast<int>(u);
    last_valid_ = fx.status == core::Status::ok;
    expected_sends_.clear();
    if (fx.status != core::Status::ok) return;
    nodes_[u].d.clear();
    for (unsigned i = 0; i < fx.send_count; ++i)
      for (core::Port p : fx.sends[i].ports) {
        InTransit t{u, p, fx.sends[i].message};
        if (p == 0) {
          t.to = u, t.to_port = 0;
        } else if (nodes_[u].links[p].node >= 0) {
          t.to = static_cast<unsigned>(nodes_[u].links[p].node), t.to_port = nodes_[u].links[p].port;
        } else {
          t.to = UINT32_MAX;
        }
        expected_sends_.push_back({p, t});
      }
  }

  void event(const trace::Line& e, const trace::Line* ahead) {
    const std::string& ev = e.ev;
    if (ev == "connect") {
      const unsigned u = node(e, "u"), pu = port(e, "pu", 1), v = node(e, "v"), pv = port(e, "pv", 1);
      if (u == v || nodes_[u].links[pu].node >= 0 || nodes_[v].links[pv].node >= 0)
        return mismatch(e, "connect on a taken port, or of a node with itself");
      nodes_[u].links[pu] = {static_cast<int>(v), pv};
      nodes_[v].links[pv] = {static_cast<int>(u), pu};
    } else if (ev == "cut") {
      const unsigned u = node(e, "u"), pu = port(e, "pu", 1), v = node(e, "v"), pv = port(e, "pv", 1);
      if (nodes_[u].links[pu].node != static_cast<int>(v) || nodes_[u].links[pu].port != pv)
        return mismatch(e, "cut of an edge that does not exist");
      for (auto it = transit_.begin(); it != transit_.end();)
        if ((it->second.to == u && it->second.to_port == pu) || (it->second.to == v && it->second.to_port == pv))
          it = transit_.erase(it);
        else
          ++it;
      nodes_[u].links[pu] = {};
      nodes_[v].links[pv] = {};
      nodes_[u].d.insert(static_cast<core::Port>(pu));
      nodes_[v].d.insert(static_cast<core::Port>(pv));
    } else if (ev == "call") {
      const unsigned u = node(e, "node");
      const std::string op = text(e, "op"), status = text(e, "status");
      if (op != "lock" && op != "unlock") reader_.fail(e.number, "\"op\" must be lock or unlock");
      const core::Context<Word> ctx{nodes_[u].d, neighbours(u)};
      // A Lock over a chosen subset names the ports it asks for (port 0 is always locked); without
      // "requested" a Lock takes every port.
      const bool subset = op == "lock" && e.event.contains("requested");
      const Ports requested =
          subset ? ports(e, e.event["requested"], "\"requested\"") | Ports::of(core::self_port) : Ports{};
      const auto fx = op == "unlock" ? proto_().unlock(nodes_[u].s, ctx)
                      : subset       ? proto_().lock(nodes_[u].s, ctx, requested)
                                     : proto_().lock(nodes_[u].s, ctx);
      const bool ok = fx.status == core::Status::ok;
      if (ok != (status == "ok")) mismatch(e, "call " + op + " status differs");
      if (ok) produce(u, fx);
      pending_call_ = ok;
    } else if (ev == "act") {
      act(e, ahead);
    } else if (ev == "send") {
      send(e);
    } else if (ev == "done") {
      const unsigned u = node(e, "node");
      const std::string op = text(e, "op");
      if (last_node_ != static_cast<int>(u) || (op == "lock" ? !last_.lock_acquired : !last_.unlocked))
        return mismatch(e, "done without a completion");
      if (op == "lock" && ports(e, field(e, "ports"), "\"ports\"") != last_.locked_ports)
        mismatch(e, "done ports differ");
    } else if (ev == "lost" || ev == "violation" || ev == "move" || ev == "finding" || ev == "idle") {
      // informational
    } else {
      mismatch(e, "unknown event " + ev);
    }
  }

  void act(const trace::Line& e, const trace::Line* ahead) {
    ++acts_;
    const unsigned u = node(e, "node");
    const std::string name = text(e, "action");
    core::Action action{};
    if (!core::parse_action(name, action)) return mismatch(e, "unknown action " + name);
    const bool api = action == core::Action::init_lock || action == core::Action::init_unlock;
    if (ports(e, field(e, "D"), "\"D\"") != nodes_[u].d && !(pending_call_ && api))
      mismatch(e, "D differs from the detector");
    if (api) {
      if (!pending_call_) mismatch(e, name + " without an accepted call");
      pending_call_ = false;
    } else if (core::is_receive(action)) {
      const std::uint64_t id = get_uint(reader_, e, "msg", 1, UINT64_MAX);
      const unsigned p = port(e, "port", 0);
      auto it = transit_.find(id);
      if (it == transit_.end() || it->second.to != u || it->second.to_port != p)
        return mismatch(e, "message " + std::to_string(id) + " is not waiting at that port");
      const core::Message m = it->second.m;
      transit_.erase(it);
      auto draw = [](unsigned) { return 0u; };
      produce(u, proto_().step(nodes_[u].s, core::Activation{action, static_cast<core::Port>(p), m},
                               core::Context<Word>{nodes_[u].d, neighbours(u)}, core::PriorityDraw::from(draw)));
    } else {
      // The priority drawn is the value of the request-lock sends that follow. A tie broken by
      // CheckPriorities (fast variant, F2) drew the index, among the tied ports in port order, of
      // the port that win(true) goes to (the first send that follows).
      unsigned prio = 0;
      if (ahead && ahead->ev == "send" && ahead->event.value("kind", "") == "request-lock")
        prio = static_cast<unsigned>(get_uint(reader_, *ahead, "value", 0, k_ - 1));
      if (action == core::Action::check_priorities && ahead && ahead->ev == "send" &&
          ahead->event.value("kind", "") == "win" && ahead->event.value("value", 0) == 1) {
        const unsigned winner = port(*ahead, "port", 0);
        auto tied = nodes_[u].s.priorities;
        tied.erase(nodes_[u].d);  // the CleanUp of A2.6 runs first
        for (core::Port l : tied.highest()) {
          if (l == winner) break;
          ++prio;
        }
      }
      auto draw = [prio](unsigned bound) { return prio % bound; };
      produce(u, proto_().step(nodes_[u].s, core::Activation{action}, core::Context<Word>{nodes_[u].d, neighbours(u)},
                               core::PriorityDraw::from(draw)));
    }
    if (!last_valid_) return mismatch(e, name + " is not enabled here");
    const auto& s = nodes_[u].s;
    const json& lock = field(e, "lock");
    const json want_lock = s.lock_port == core::no_port ? json("BOT") : json(s.lock_port);
    if (lock != want_lock) mismatch(e, "lock differs");
    if (text(e, "state") != core::to_string(s.state)) mismatch(e, "state differs");
    if (text(e, "phase") != core::to_string(s.phase)) mismatch(e, "phase differs");
    const json& r = field(e, "regs");
    if (!r.is_object()) reader_.fail(e.number, "\"regs\" must be an object");
    auto reg = [&](const char* key) -> const json& {
      if (!r.contains(key)) reader_.fail(e.number, std::string("\"regs\" needs \"") + key + "\"");
      return r[key];
    };
    if (ports(e, reg("L"), "L") != s.lock_set || ports(e, reg("R"), "R") != s.replied ||
        ports(e, reg("H"), "H") != s.on_hold || ports(e, reg("A"), "A") != s.applicants ||
        ports(e, reg("C"), "C") != s.candidates)
      mismatch(e, "registers L/R/H/A/C differ");
    Ports won, lost, pp;
    for (auto [p, b] : pairs(e, reg("W"), "W", 2)) (b ? won : lost).insert(p);
    bool priorities_equal = true;
    for (auto [p, value] : pairs(e, reg("P"), "P", k_)) {
      pp.insert(p);
      if (s.priorities.ports.contains(p) && s.priorities.get(p) != value) priorities_equal = false;
    }
    if (won != s.win_outcomes.won || lost != s.win_outcomes.lost) mismatch(e, "W differs");
    if (pp != s.priorities.ports || !priorities_equal) mismatch(e, "P differs");
  }

  void send(const trace::Line& e) {
    if (expected_sends_.empty()) return mismatch(e, "send not produced by the last action");
    auto [from_port, t] = expected_sends_.front();
    expected_sends_.pop_front();
    const std::uint64_t id = get_uint(reader_, e, "id", 1, UINT64_MAX);
    core::MessageKind kind{};
    if (!core::parse_message_kind(text(e, "kind"), kind)) reader_.fail(e.number, "unknown message kind");
    if (node(e, "from") != static_cast<unsigned>(last_node_) || port(e, "port", 0) != from_port || kind != t.m.kind ||
        get_uint(reader_, e, "value", 0, 31) != t.m.value)
      mismatch(e, "send differs from the core's");
    const json& to = field(e, "to");
    if (t.to != UINT32_MAX) {
      if (to.is_null() || node(e, "to") != t.to || port(e, "to_port", 0) != t.to_port)
        mismatch(e, "send destination differs");
      if (transit_.count(id)) return mismatch(e, "message id " + std::to_string(id) + " is used twice");
      transit_[id] = t;
    } else if (!to.is_null()) {
      mismatch(e, "send to a port without edge");
    }
  }

  const core::Protocol<Word>& proto_() {
    if (!proto_ptr_) proto_ptr_ = std::make_unique<core::Protocol<Word>>(core::Config{delta_, k_, variant_});
    return *proto_ptr_;
  }

  trace::Reader& reader_;
  std::ostream& report_;
  core::Variant variant_{};
  unsigned delta_ = 0, k_ = 0, n_ = 0;
  std::unique_ptr<core::Protocol<Word>> proto_ptr_;
  std::vector<Node> nodes_;
  std::map<std::uint64_t, InTransit> transit_;
  std::deque<std::pair<unsigned, InTransit>> expected_sends_;  // produced by the last action
  core::Effects<Word> last_{};
  int last_node_ = -1;
  bool last_valid_ = false, pending_call_ = false;
  unsigned mismatches_ = 0, acts_ = 0;
};
}  // namespace

bool replay_counterexample(std::istream& in, std::ostream& report, const std::string& name) {
  try {
    trace::Reader reader(in, name);
    Replay replay(reader, report);
    const unsigned mismatches = replay.run();
    report << (mismatches == 0 ? "replay ok: " : "replay FAILED: ") << replay.acts() << " actions re-executed, "
           << mismatches << " mismatches\n";
    return mismatches == 0;
  } catch (const trace::Error& e) {
    report << "replay FAILED: " << e.what() << "\n";
    return false;
  }
}

}  // namespace lmx::check
