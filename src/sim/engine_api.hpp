// EngineImpl's members defined out of its body, so that engine.cpp holds the hot path: the
// application API of lmx/sim/simulation.hpp's Engine (Lock and Unlock requests, topology changes,
// a node's view, injected faults), the global-stall check and the run summary. Not a header of its
// own: engine.cpp includes it once, after the class, which lives in engine.cpp's unnamed namespace.
#pragma once

namespace lmx::sim {
namespace {

template <class Word, unsigned FixedDelta>
bool EngineImpl<Word, FixedDelta>::request_lock(NodeId u) {
  resume(u);
  App& a = work_.app(u);
  if (!requested_.empty()) requested_[u] = protocol_.all_ports().bits();
  if (state_.at(u).state != InitiatorState::idle || a.phase == AppPhase::requesting || a.phase == AppPhase::wait_lock) {
    trace_call(u, "lock", false);
    return false;
  }
  a.phase = AppPhase::wait_lock, a.timer = now_;
  return true;
}

template <class Word, unsigned FixedDelta>
bool EngineImpl<Word, FixedDelta>::request_lock(NodeId u, std::uint64_t requested) {
  if (!request_lock(u)) return false;
  // Kept only once some node asks for a subset: full-neighbourhood runs do not pay for it.
  if (requested_.empty()) requested_.assign(n_, protocol_.all_ports().bits());
  requested_[u] = static_cast<Word>((requested & protocol_.all_ports().bits()) | 1u);
  return true;
}

template <class Word, unsigned FixedDelta>
bool EngineImpl<Word, FixedDelta>::request_unlock(NodeId u) {
  resume(u);
  App& a = work_.app(u);
  if (state_.at(u).state != InitiatorState::locked || a.phase == AppPhase::wait_unlock) {
    trace_call(u, "unlock", false);
    return false;
  }
  a.phase = AppPhase::wait_unlock, a.timer = now_;
  return true;
}

template <class Word, unsigned FixedDelta>
std::string EngineImpl<Word, FixedDelta>::connect(NodeId u, Port pu, NodeId v, Port pv) {
  dynamics_.discard_plan();  // before the port draws below, and the graph's change
  if (u >= n_ || v >= n_ || u == v) return "connect: bad nodes";
  if (pu == 0) pu = dynamics_.random_free_port(net_.free_ports(u));
  if (pv == 0) pv = dynamics_.random_free_port(net_.free_ports(v));
  if (pu == 0 || pv == 0) return "connect: the Delta cap leaves no free port";
  if (pu > delta_ || pv > delta_) return "connect: port outside 1..Delta";
  if (net_.peer(u, pu) != no_node || net_.peer(v, pv) != no_node) return "connect: port taken";
  if (net_.adjacent(u, v)) return "connect: already neighbours";
  link(u, pu, v, pv);
  return {};
}

template <class Word, unsigned FixedDelta>
std::string EngineImpl<Word, FixedDelta>::cut(NodeId u, Port pu) {
  dynamics_.discard_plan();
  if (u >= n_ || pu == 0 || pu > delta_ || net_.peer(u, pu) == no_node) return "cut: no edge";
  unlink(u, pu);
  return {};
}

template <class Word, unsigned FixedDelta>
void EngineImpl<Word, FixedDelta>::move(NodeId u, double x, double y) {
  dynamics_.discard_plan();
  auto& positions = dynamics_.positions();
  if (positions.size() != n_) positions.assign(n_, {0.5, 0.5});
  positions.at(u) = {x, y};
  moved(u);
}

template <class Word, unsigned FixedDelta>
NodeView EngineImpl<Word, FixedDelta>::node(NodeId u) const {
  const State s = state_.at(u);
  NodeView v;
  v.lock_port = s.lock_port, v.state = s.state, v.phase = s.phase;
  v.lock_set = s.lock_set.bits(), v.replied = s.replied.bits();
  v.neighbours = net_.neighbours(u).bits(), v.disconnected = net_.detector(u).bits();
  v.locks_completed = static_cast<decltype(v.locks_completed)>(work_.locks(u));
  return v;
}

template <class Word, unsigned FixedDelta>
void EngineImpl<Word, FixedDelta>::inject_message(NodeId u, Port port, std::uint8_t byte) {
  resume(u);
  if (!net_.inject(u, port, byte, next_id_++)) channel_overflow(u, port);
  if (port == core::self_port || net_.peer(u, port) != no_node) {
    const NodeId from = port ? net_.peer(u, port) : u;
    monitors_.edge_bound(u, port, net_.along(u, port, from, port ? net_.peer_port(u, port) : Port{0}));
  }
}

template <class Word, unsigned FixedDelta>
std::string EngineImpl<Word, FixedDelta>::paper_lock_set(NodeId u) const {
  std::vector<NodeId> set;
  if (state_.lock_port(u) == core::self_port) set.push_back(u);
  for (Port p : net_.neighbours(u)) {
    const NodeId v = net_.peer(u, p);
    if (state_.lock_port(v) == net_.peer_port(u, p)) set.push_back(v);
  }
  std::sort(set.begin(), set.end());
  return json(set).dump();
}

template <class Word, unsigned FixedDelta>
void EngineImpl<Word, FixedDelta>::check_stall() {
  if (work_.pending == 0 && work_.unlocking == 0) return;
  if (net_.in_transit() != 0) return;
  std::vector<NodeId> stuck;
  for (NodeId u = 0; u < n_; ++u) {
    const App& a = work_.app(u);
    if (a.phase == AppPhase::wait_lock || a.phase == AppPhase::wait_unlock) return;  // a call will come
    if (!useful_guarded(u, state_.get(u)).empty()) return;
    if (a.phase == AppPhase::requesting || a.phase == AppPhase::unlocking) stuck.push_back(u);
  }
  if (stuck.empty()) return;
  stalled_ = true;
  const State s = state_.get(stuck[0]);
  std::string detail = "global stall: " + std::to_string(stuck.size()) +
                       " request(s) pending, nothing in transit, no enabled action changes state; e.g. node " +
                       std::to_string(stuck[0]) + " in state " + std::string(core::to_string(s.state)) +
                       " with L=" + ports_text(s.lock_set) + " R=" + ports_text(s.replied) +
                       " D=" + ports_text(net_.detector(stuck[0]));
  if (stuck.size() > 8) stuck.resize(8);
  monitors_.report("P7", stuck, {}, detail);
  done_ = true;
}

template <class Word, unsigned FixedDelta>
json EngineImpl<Word, FixedDelta>::summary() {
  dynamics_.discard_plan();  // a run ended early may have one in flight, which reads the graph
  schedule_worker_.wait();   // and a schedule, which changes the calendar that memory_parts reads
  net_.flush_deferred();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_wall_).count();
  const std::uint64_t events_hash = trace_.events().hash();
  json result = summarize(RunRecord<Word, FixedDelta>{sc_, n_, delta_, now_, tpr_, horizon_, rounds_done_, stalled_,
                                                      interrupted_, state_, net_, work_, monitors_, metrics_,
                                                      memory_parts(), wall, events_hash});
  if (trace_.enabled()) {
    result["line_hash"] = trace::hex64(trace_.line_hash());
    json end = {{"ev", "end"},
                {"t", trace_.lines()},
                {"round", rounds_done_},
                {"rounds", rounds_done_},
                {"events", trace_.lines() - 1},
                {"hash", trace::hex64(trace_.line_hash())},
                {"event_hash", trace::hex64(events_hash)},
                {"stalled", stalled_}};
    if (interrupted_) end["interrupted"] = true;  // the run stopped before its last round
    trace_.end(end);
  }
  return result;
}

}  // namespace
}  // namespace lmx::sim
