// The simulation engine, one instantiation per register width (docs/simulator.md). It drives the
// protocol core through the model's parts, each in its own header:
//   network.hpp       the time-varying graph, detectors, channels and the scan's deferred writes;
//   scheduler.hpp     the activation and delivery adversaries;
//   dynamics.hpp      the topology adversary (port choice, mobility, churn, hostile strategies);
//   workload.hpp      the application's Lock and Unlock calls;
//   monitors.hpp      P1-P7 and the findings;
//   metrics.hpp       what the summary measures;
//   trace_writer.hpp  the event hash and the lmx-trace/1 lines;
//   summary.hpp       the run summary and the trace header;
//   engine_api.hpp    this class's application API, stall check and summary, defined out of it.
// This file holds an activation (the hot path: candidates, the adversary's pick, the core's step,
// its sends) and the rounds of both engines; the parts' methods it calls are inline.
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <initializer_list>
#include <memory>
#include <stdexcept>
#include <thread>

#include "background.hpp"
#include "dynamics.hpp"
#include "lmx/sim/simulation.hpp"
#include "metrics.hpp"
#include "monitors.hpp"
#include "network.hpp"
#include "round_schedule.hpp"
#include "scheduler.hpp"
#include "summary.hpp"
#include "topology.hpp"
#include "trace_writer.hpp"
#include "workload.hpp"

namespace lmx::sim {

using core::Action;
using core::InitiatorState;
using core::Message;
using core::MessageKind;
using core::ParticipantPhase;
using core::Port;
using nlohmann::json;

std::size_t pipeline_record_bytes(unsigned delta);  // resources.cpp's word on a pipelined round

namespace {

/// Ticks per round: the async engine places executions at sub-round times.
constexpr std::uint32_t async_ticks = 1024;

/// `FixedDelta`: 0, or the scenario's Delta known at compile time (make_engine builds Delta = 8, the
/// default and lmx bench's, so; network.hpp): the same engine with constants for its port count.
template <class Word, unsigned FixedDelta = 0>
class EngineImpl final : public Engine {
  friend std::size_t lmx::sim::pipeline_record_bytes(unsigned delta);
  using Ports = core::PortSet<Word>;
  using State = core::NodeState<Word>;
  using Fx = core::Effects<Word>;

 public:
  EngineImpl(const Scenario& s, const RunOptions& o)
      : sc_(s),
        opt_(o),
        protocol_(core::Config{s.delta, s.k, s.variant}),
        n_(s.nodes),
        delta_(s.delta),
        async_(s.engine == EngineKind::async),
        tpr_(async_ ? async_ticks : 1),
        trace_(o.trace, o.trace_sink, o.hash_lines, now_, tpr_),
        net_(n_, delta_, trace_.enabled(), defer_writes(s, o, trace_.enabled()), o.scan_block_shift, now_,
             /*channels_later=*/true),
        scheduler_(s, tpr_),
        delivery_(s, tpr_),
        dynamics_(sc_),
        work_(s, n_, tpr_),
        monitors_(net_, state_, trace_, now_, tpr_),
        metrics_(async_ ? 16 : 1),
        prio_rng_(s.seed, priority_stream),
        choice_rng_(s.seed, choice_stream),
        start_wall_(std::chrono::steady_clock::now()) {
    static_assert(threads_lines_apart(), "members of two threads share a cache line (threads_lines_apart)");
    // Message ages are kept modulo 2^16 ticks (Channel): a patience of 2^16 ticks or more would
    // hold the target's messages forever. The scenario validator caps it; scenarios built in code
    // reach this check instead.
    if (delivery_.rule().active && delivery_.rule().patience_ticks >= 0x10000)
      throw ScenarioError("scenario key 'delivery.patience': " + std::to_string(s.delivery.patience) +
                          " rounds exceed the 2^16-tick message age of the " + std::string(word(s.engine)) + " engine");
    state_.resize(n_);

    {
      auto topo = build_topology(s, dynamics_.rng());  // its node pairs are freed before the packing below
      dynamics_.place(std::move(topo.positions));
      write_header(topo.edges);
      // The initial edges come in the generator's order, at random places of the node arrays: the
      // records of the edge `ahead` places on are loaded early (timing only; the same draws).
      constexpr std::size_t ahead = 16;
      const auto& edges = topo.edges;
      for (std::size_t i = 0; i < edges.size(); ++i) {
        if (i + ahead < edges.size())
          net_.prefetch_link(edges[i + ahead].first), net_.prefetch_link(edges[i + ahead].second);
        const auto [u, v] = edges[i];
        if (topo.cap_is_error) {
          for (NodeId x : {u, v})
            if (net_.neighbours(x) == net_.all_neighbour_ports())
              throw ScenarioError("topology breaks the Delta cap: node " + std::to_string(x) + " has more than " +
                                  std::to_string(delta_) + " neighbours");
        }
        if (connect_random(u, v)) dynamics_.initial_edge(u, v);
      }
    }
    // The channel records only now, the edge list freed: the set-up's peak of memory held both
    // (at Delta = 8, 72 bytes a node and the list's 32 of a regular graph).
    net_.allocate_channels();
    initial_topology_ = false;
    dynamics_.initial_edges_done();
    work_.start(now_);
    // The throughput limit's packing (bound.hpp), for graphs that stay put: 8 bytes per
    // participant for a moment, less than the topology's pairs just freed (resources.cpp).
    if (graph_stays_put(s)) metrics_.two_packing = greedy_two_packing(net_, work_, n_);
    for (NodeId u = 0; u < n_; ++u) metrics_.participants += work_.participating(u);
    if (async_) scheduler_.start_async(n_);
    if (async_ && opt_.skip_dormant && sc_.delivery.kind != DeliveryKind::delay_target)
      dormant_.assign(n_, 0), dormant_until_.assign(n_, 0);
    // With a thread to spare, a round's executions are taken out of the calendar during the round
    // before (plan_schedule): their times come from the activation stream alone. Not for dormant
    // nodes (whose next execution waits for what the round does) nor with trace lines (which
    // show each execution's end), and not for runs too small to gain from the hand-over.
    schedules_ahead_ =
        async_ && opt_.threads >= 2 && dormant_.empty() && !trace_.enabled() && n_ >= Dynamics::min_nodes_ahead;
    // A round holds about one execution per node (a gap and a duration average a round); the
    // first about 7/6 (every node starts in it, and about a sixth start again before its end).
    if (schedules_ahead_)
      for (RoundSchedule& r : schedules_) r.reserve(std::size_t{n_} + n_ / 4 + 64);
    // Deferred writes in the asynchronous engine's ticks ask which nodes a tick still holds: a
    // count per slot of about 32 nodes (64 KiB at 10^6 nodes; a slot shared by a node of the tick
    // makes a write immediate, which is allowed, only slower). The calendar keeps the counts, or
    // the engine from the round's schedule.
    if (async_ && defer_writes(sc_, opt_, trace_.enabled())) {
      const std::size_t slots = std::clamp<std::size_t>(std::size_t{n_} / 32, 1024, std::size_t{1} << 22);
      if (schedules_ahead_)
        tick_counts_.assign(slots);
      else
        scheduler_.wakeups().count_remaining(slots);
    }
    metrics_.series_every = std::max<std::uint64_t>(1, sc_.rounds / 1000);
    // A mobile run's planner takes a thread of its own.
    pipeline_ = !async_ && defer_writes(sc_, opt_, trace_.enabled()) &&
                opt_.threads >= (dynamics_.plans_ahead(opt_.threads) ? 3u : 2u);
  }

  // ---------------------------------------------------------------- application API (engine_api.hpp)
  bool request_lock(NodeId u) override;
  bool request_lock(NodeId u, std::uint64_t requested) override;
  bool request_unlock(NodeId u) override;
  std::string connect(NodeId u, Port pu, NodeId v, Port pv) override;
  std::string cut(NodeId u, Port pu) override;
  void move(NodeId u, double x, double y) override;
  [[nodiscard]] Link far_end(NodeId u, Port p) const override {
    if (u >= n_ || p == 0 || p > delta_) return {};
    const NodeId v = net_.peer(u, p);
    return v == no_node ? Link{} : Link{v, net_.peer_port(u, p)};
  }
  void end_run() override { done_ = true; }
  void report(const std::string& property, const std::vector<NodeId>& nodes, const std::string& detail) override {
    monitors_.report(property, nodes, {}, detail);
  }
  void trace_line(const char* ev, const nlohmann::ordered_json& fields) override {
    if (trace_.enabled()) trace_.app_line(ev, fields);
  }
  [[nodiscard]] NodeView node(NodeId u) const override;
  [[nodiscard]] const std::vector<Violation>& violations() const override { return monitors_.violations(); }
  [[nodiscard]] std::uint64_t in_transit() const override { return net_.in_transit(); }
  [[nodiscard]] std::uint64_t actions() const override { return metrics_.actions; }
  [[nodiscard]] double now() const override { return double(now_) / tpr_; }
  [[nodiscard]] std::uint64_t deferred_writes() const override { return net_.deferred_writes(); }
  [[nodiscard]] std::uint64_t mobility_planned_ahead() const override { return dynamics_.planned_ahead(); }
  [[nodiscard]] std::uint64_t pipelined_rounds() const override { return pipelined_rounds_; }
  [[nodiscard]] std::uint64_t schedules_planned_ahead() const override { return schedules_planned_ahead_; }
  [[nodiscard]] unsigned compiled_delta() const override { return FixedDelta; }
  void inject_lock_port(NodeId u, Port p) override {
    state_.set_lock_port(u, p);
    if (monitors_.viewing()) monitors_.view(u, p, state_.initiator(u) == InitiatorState::locked);
    monitors_.lock_changed(u);
  }
  void inject_detector(NodeId u, std::uint64_t ports) override {
    resume(u);
    net_.set_detector(u, Ports(static_cast<Word>(ports)));
  }
  void inject_message(NodeId u, Port port, std::uint8_t byte) override;

  // ---------------------------------------------------------------- running
  bool step() override {
    if (done_) return false;
    if ((opt_.stop && opt_.stop->load(std::memory_order_relaxed)) ||
        (opt_.stop_after_rounds && rounds_done_ >= *opt_.stop_after_rounds)) {
      interrupted_ = done_ = true;
      return false;
    }
    const std::uint64_t round = now_ / tpr_;
    if (async_) now_ = static_cast<std::uint32_t>(round * tpr_);
    dynamics_.step(*this, round);
    // A round an exception left goes on from its list, whose next round's is made already.
    const bool taking = schedules_ahead_ && !resume_;
    if (taking) take_schedule(round);
    const bool next = rounds_done_ + 1 < sc_.rounds;
    // The next round's schedule is made on the thread that plans its mobility, first, or on a
    // thread of its own for a graph without mobility.
    std::function<void()> next_schedule;
    if (taking && next) next_schedule = [this, round] { plan_schedule(round + 1); };
    if (!(next && dynamics_.plan_ahead(*this, opt_.threads, next_schedule)) && next_schedule)
      schedule_worker_.run(std::move(next_schedule));
    if (taking && next) schedule_ahead_of_ = round + 1;
    if (schedules_ahead_)
      async_scheduled_round(round);
    else if (async_)
      async_round(round);
    else
      semi_sync_round(round);
    end_of_round(round);
    return !done_;
  }

  json finish() override {
    while (step()) {
    }
    return summary();
  }

  // ---------------------------------------------------------------- the topology adversary's host
  // (dynamics.hpp): every topology change goes through here, with its trace lines and monitors.
  [[nodiscard]] bool adjacent(NodeId u, NodeId v) const { return net_.adjacent(u, v); }
  [[nodiscard]] std::uint64_t adjacent_ports(NodeId u, NodeId v) const { return net_.adjacent_ports(u, v); }
  [[nodiscard]] std::uint64_t upper_ports(NodeId u) const { return net_.upper_ports(u); }
  void prefetch_adjacency(NodeId u) const { net_.prefetch_adjacency(u); }
  [[nodiscard]] Ports neighbours(NodeId u) const { return net_.neighbours(u); }
  [[nodiscard]] NodeId peer(NodeId u, Port p) const { return net_.peer(u, p); }
  [[nodiscard]] Port peer_port(NodeId u, Port p) const { return net_.peer_port(u, p); }
  [[nodiscard]] bool requesting(NodeId u) const { return work_.app(u).phase == AppPhase::requesting; }
  [[nodiscard]] bool in_win(NodeId u) const { return state_.initiator(u) == InitiatorState::win; }
  bool connect_random(NodeId u, NodeId v) {
    if (u == v || net_.adjacent(u, v)) return false;
    const Port pu = dynamics_.random_free_port(net_.free_ports(u)), pv = dynamics_.random_free_port(net_.free_ports(v));
    if (pu == 0 || pv == 0) return false;
    link(u, pu, v, pv);
    return true;
  }
  /// Mobility's planned connection (both ports free, the nodes not adjacent).
  void connect_at(NodeId u, Port pu, NodeId v, Port pv) { link(u, pu, v, pv); }
  void cut_edge(NodeId u, Port p) { unlink(u, p); }
  void cut_pair(NodeId u, NodeId v) {
    for (Port p : net_.neighbours(u))
      if (net_.peer(u, p) == v) return unlink(u, p);
  }
  void moved(NodeId u) {
    const auto [x, y] = dynamics_.positions()[u];
    const auto qx = static_cast<std::uint32_t>(x * 1e6), qy = static_cast<std::uint32_t>(y * 1e6);
    log({now_, EvKind::move, 0, 0, 0, u, qx * 1000003u + qy});
    if (trace_.enabled()) trace_.move(u, x, y);
  }

 private:
  void link(NodeId u, Port pu, NodeId v, Port pv) {
    resume(u), resume(v);
    net_.link(u, pu, v, pv);
    log({now_, EvKind::connect, pu, pv, 0, u, v});
    if (trace_.enabled()) trace_.edge("connect", u, pu, v, pv);
    // No lock variable names a port before any node has acted, so the initial edges cannot meet
    // a stale lock pointer; skipping the look saves two random reads an edge (a third of the
    // set-up time at 10^6 nodes).
    if (!initial_topology_) monitors_.linked(u, pu, v, pv);
  }
  void unlink(NodeId u, Port pu) {
    if (!dormant_.empty()) resume(u), resume(net_.peer(u, pu));
    const auto [v, pv] = net_.unlink(u, pu, [this](NodeId w, Port p, const Stored& m) {
      ++metrics_.lost;
      log({now_, EvKind::lost, p, m.byte, 0, w, 0});
      if (trace_.enabled()) trace_.lost(m.id, "cut");
    });
    log({now_, EvKind::cut, pu, pv, 0, u, v});
    if (trace_.enabled()) trace_.edge("cut", u, pu, v, pv);
    monitors_.cut(u, pu, v, pv);
  }

  // ---------------------------------------------------------------- activation
  [[nodiscard]] bool call_due(NodeId u) const {
    const App& a = work_.app(u);
    return (a.phase == AppPhase::wait_lock && a.timer <= now_ && state_.initiator(u) == InitiatorState::idle) ||
           (a.phase == AppPhase::wait_unlock && a.timer <= now_ && state_.initiator(u) == InitiatorState::locked);
  }
  /// Whether running CleanUp would change anything (with D empty it is often a no-op, which is
  /// equivalent to not executing it; the adversary skips those and the stall monitor ignores them).
  /// Decided from the state (core::clean_up_changes_without_d; tests/core/guards_test.cpp checks
  /// it against a trial execution of the core).
  [[nodiscard, gnu::always_inline]] bool clean_up_changes(NodeId u, const State& s) const {
    return !net_.detector(u).empty() || core::clean_up_changes_without_d(s);
  }
  [[nodiscard]] core::Context<Word> context(NodeId u) const { return {net_.detector(u), net_.neighbours(u)}; }

  /// Guarded actions of u (whose variables are s) that would change its state.
  [[nodiscard, gnu::always_inline]] core::ActionSet useful_guarded(NodeId u, const State& s) const {
    core::ActionSet set = core::guards_holding(s, sc_.variant);  // the core's guards, inline
    if (set.contains(Action::clean_up) && !clean_up_changes(u, s)) set.erase(Action::clean_up);
    return set;
  }

  /// What an activation chose: the adversary's pick among u's enabled actions (choose), carried
  /// out by perform (activate runs both). The pipelined round splits an activation elsewhere:
  /// the choice and the core's step (prepare), then the records (finish).
  struct Choice {
    NodeId u;
    std::uint8_t what;   ///< idle, call, deliver, or guarded + the action
    core::Port port;     ///< a delivery's port
    std::uint16_t slot;  ///< and its index in that port's channel
    static constexpr std::uint8_t idle = 0, call = 1, deliver = 2, guarded = 3;  // guarded + Action < 0xFF
  };
  static_assert(sizeof(Choice) == 8);

  /// The adversary picks one enabled action of u uniformly (a due application call, a guarded
  /// action, or a message delivery). Reads u's state, channels and application record, and draws
  /// from the activation and delivery streams only; writes nothing else. `s`: u's variables
  /// (NodeStates::get), unpacked once for the choice and the core's step that follows it.
  [[gnu::always_inline]] Choice choose(NodeId u, const State& s) {
    Candidates candidates;
    net_.receivable(u, delivery_.rule(), candidates);
    const unsigned k = candidates.k;
    const core::ActionSet guarded = useful_guarded(u, s);
    const bool call = call_due(u);
    const unsigned options = guarded.size() + (k ? 1u : 0u) + (call ? 1u : 0u);
    Choice c{u, Choice::idle, 0, 0};
    if (options == 0) return c;
    // The asynchronous engine picks from a stream of its own, so that the activation stream draws
    // the executions' times alone (plan_schedule); the semi-synchronous one from the activation
    // stream.
    unsigned pick = options == 1 ? 0 : (async_ ? choice_rng_ : scheduler_.rng()).below(options);
    if (call && pick-- == 0) {
      c.what = Choice::call;
      return c;
    }
    if (k && pick-- == 0) {
      const unsigned i = delivery_.pick(
          candidates, [&](Slot slot) { return int(net_.age_of(net_.stored(u, slot.port, slot.index))); });
      const Slot chosen = candidates.at(i);
      c.what = Choice::deliver, c.port = chosen.port, c.slot = chosen.index;
      return c;
    }
    for (Action a : core::guarded_actions)
      if (guarded.contains(a) && pick-- == 0) {
        c.what = static_cast<std::uint8_t>(Choice::guarded + static_cast<unsigned>(a));
        return c;
      }
    return c;
  }
  /// Carries out a choice that is not idle.
  [[gnu::always_inline]] void perform(const Choice& c, State& s) {
    if (c.what == Choice::call) return app_call(c.u, s);
    if (c.what == Choice::deliver) return deliver(c.u, Slot{c.port, c.slot}, s);
    execute(c.u, core::Activation{static_cast<Action>(c.what - Choice::guarded)}, nullptr, s);
  }
  /// One activation of u. Returns false if u has nothing enabled.
  bool activate(NodeId u) {
    State s = state_.get(u);
    const Choice c = choose(u, s);
    if (c.what == Choice::idle) return false;
    perform(c, s);
    return true;
  }

  void deliver(NodeId u, Slot chosen, State& s) {
    const Stored m = net_.stored(u, chosen.port, chosen.index);
    net_.remove(u, chosen.port, chosen.index);
    const core::Decoded d = decoded_[m.byte];
    if (!d.ok()) [[unlikely]]
      return monitors_.malformed(u, chosen.port, m.byte, d.error);
    ++metrics_.received;
    execute_inline(u, receipt(d, chosen.port), &m, s);
  }
  /// The Receive action of a decoded message that arrived on `port`.
  [[gnu::always_inline]] static core::Activation receipt(const core::Decoded& d, Port port) {
    // Field by field: copying d.message whole reloaded its two bytes as one word from the stack,
    // a stalled store-to-load forward on every delivery.
    core::Activation act;
    act.action = core::receive_action(d.message.kind), act.port = port;
    act.message.kind = d.message.kind, act.message.value = d.message.value;
    return act;
  }

  void app_call(NodeId u, State& s) { execute(u, core::Activation{app_call_records(u)}, nullptr, s); }
  /// The records of u's due application call, made before its action (Lock or Unlock), which
  /// this returns.
  Action app_call_records(NodeId u) {
    App& a = work_.app(u);
    if (a.phase == AppPhase::wait_lock) {
      trace_call(u, "lock", true, lock_request(u));
      a.phase = AppPhase::requesting, a.timer = now_, a.trials = 0, a.actions = 0;
      work_.start_request(u);
      monitors_.lock_called(u, lock_request(u));  // N(u) at the call: the candidates for persistence
      ++metrics_.locks_requested, ++work_.pending;
      monitors_.requested(now_, u);
      return Action::init_lock;
    }
    trace_call(u, "unlock", true);
    a.phase = AppPhase::unlocking;
    ++work_.unlocking;
    monitors_.release_held(u);
    if (opt_.listener) opt_.listener->unlock_called(u);
    return Action::init_unlock;
  }

  /// What the core did in one activation (run_core), for the records made of it (record_outcome).
  struct Outcome {
    Fx fx;
    core::Activation act;
    Port before_lock = 0, after_lock = 0;
    InitiatorState before_state{}, after_state{};
    // Between after_state and after_phase: the two copied side by side from the state, which the
    // core has just written byte by byte, became one 2-byte load that could not take its bytes
    // from those stores (a stall on every action).
    Word disconnected = 0;  ///< D as the action saw it
    ParticipantPhase after_phase{};
  };

  void execute(NodeId u, const core::Activation& act, const Stored* msg, State& s) { execute_inline(u, act, msg, s); }
  /// execute, inlined where most actions come from (a delivery): the call and its register
  /// saves were about 3 % of an action's instructions.
  [[gnu::always_inline]] void execute_inline(NodeId u, const core::Activation& act, const Stored* msg, State& s) {
    Outcome o;
    o.act = act;
    run_core(u, o, s);
    record_outcome(u, o, msg);
  }
  /// The core's action `o.act` at u (Algorithms 1-3): u's state and detector change, and the
  /// priority stream is drawn from. Nothing else is written. `s`: u's variables as the choice
  /// read them (the core steps on its own layout; a packed record is written back below).
  [[gnu::always_inline]] void run_core(NodeId u, Outcome& o, State& s) {
    o.before_lock = s.lock_port, o.before_state = s.state;
    const core::Context<Word> ctx = context(u);
    o.disconnected = ctx.disconnected.bits();
    auto draw = [this](unsigned bound) { return prio_rng_.below(bound); };
    // Written in place (core::Protocol::step_into): an assigned copy stalled on the core's stores.
    if (o.act.action == Action::init_lock)
      protocol_.lock_into(s, ctx, lock_request(u), o.fx);
    else if (o.act.action == Action::init_unlock)
      protocol_.unlock_into(s, ctx, o.fx);
    else
      protocol_.step_into(s, o.act, ctx, core::PriorityDraw::from(draw), o.fx);
    if (o.fx.status == core::Status::ok) net_.set_detector(u, Ports{});  // the snapshot was consumed by this action
    o.after_lock = s.lock_port, o.after_state = s.state, o.after_phase = s.phase;
    state_.put(u, s);
  }
  /// The rest of an activation of u, after its core step: its counts, trace event, sends, monitors
  /// and completions.
  [[gnu::always_inline]] void record_outcome(NodeId u, const Outcome& o, const Stored* msg) {
    const Fx& fx = o.fx;
    if (fx.status != core::Status::ok) {
      monitors_.report("P7", {u}, {},
                       "the core refused " + std::string(core::to_string(o.act.action)) + ": " +
                           std::string(core::to_string(fx.status)));
      return;
    }
    ++metrics_.actions;
    const bool was_locked = o.before_state == InitiatorState::locked,
               is_locked = o.after_state == InitiatorState::locked;
    if (monitors_.viewing()) [[unlikely]]
      monitors_.view(u, o.after_lock, is_locked);
    App& a = work_.app(u);
    if (a.phase == AppPhase::requesting) a.actions = static_cast<std::uint16_t>(std::min(0xFFFF, a.actions + 1));
    if ((o.act.action == Action::check_start || o.act.action == Action::check_win) && a.trials < 255) ++a.trials;

    const std::uint8_t msg_byte = msg ? msg->byte : 0xFF;
    log({now_, EvKind::act, static_cast<std::uint8_t>(o.act.action), o.act.port, msg_byte, u,
         static_cast<std::uint32_t>(o.after_lock) | (static_cast<std::uint32_t>(o.after_state) << 8) |
             (static_cast<std::uint32_t>(o.after_phase) << 16)});
    if (trace_.enabled()) trace_.act(u, o.act, msg != nullptr, msg ? msg->id : 0, Ports(o.disconnected), state_.get(u));

    for (unsigned g = 0; g < fx.send_count; ++g) send(u, fx.sends[g]);
    if (fx.port_sent_twice) monitors_.send_twice(u, o.act.action, fx);
    if (fx.priority_overwritten) monitors_.priority_overwritten();
    if (o.after_lock != o.before_lock) monitors_.lock_changed(u);
    if (is_locked && !was_locked) ++metrics_.locked_now;
    if (!is_locked && was_locked) --metrics_.locked_now;
    if (o.after_state == InitiatorState::win && o.before_state != InitiatorState::win) dynamics_.entered_win(u);
    if (fx.lock_acquired) lock_done(u, fx.locked_ports);
    if (fx.unlocked) unlock_done(u);
  }

  void send(NodeId u, const core::Send<Word>& group) {
    const std::uint8_t byte = core::encode(group.message);
    const core::Decoded d = decoded_[byte];
    if (!d.ok() || d.message != group.message) [[unlikely]]
      monitors_.report("P6", {u}, {},
                       "a " + std::string(core::to_string(group.message.kind)) + " message does not fit one byte");
    ++metrics_.sent_by_kind[static_cast<unsigned>(group.message.kind)];
    // Members read in the loop are copied first: the loop stores single bytes into channel
    // records, which the compiler must assume may alias any member, and would reload them all.
    const bool lines = trace_.enabled();
    net_.prefetch_receivers(u, group.ports);
    std::uint64_t id = next_id_;
    // The send events' words (EventLog), apart from the port and the receiver.
    const std::uint64_t send_word = EventLog::first_word(EvKind::send, 0, byte, 0, u);
    const std::uint64_t tick_word = EventLog::second_word(0, now_);
    for (Port p : group.ports) {
      const std::uint64_t this_id = id++;
      NodeId to = u;
      Port to_port = core::self_port;
      if (p != core::self_port) {
        to = net_.peer(u, p);
        to_port = to == no_node ? Port{0} : net_.peer_port(u, p);
      }
      trace_.events().add(send_word | std::uint64_t{p} << 8, tick_word | to);  // log({tick, send, p, byte, 0, u, to})
      if (lines) trace_.send(this_id, u, p, group.message, to, to_port);
      if (to == no_node) {
        ++metrics_.lost;
        log({now_, EvKind::lost, p, byte, 1, u, 0});
        if (lines) trace_.lost(this_id, "no-edge");
        continue;
      }
      if (!dormant_.empty()) [[unlikely]]
        resume(to);
      const auto posted = net_.post(u, p, to, to_port, byte, this_id);
      if (!posted.stored) [[unlikely]]
        channel_overflow(to, to_port);
      monitors_.edge_bound(to, to_port, posted.along);
    }
    // Counted once per group (the loop's byte stores would make per-port increments reload them).
    const std::uint64_t sends = id - next_id_;
    next_id_ = id, metrics_.sent += sends;
    if (work_.app(u).phase == AppPhase::requesting) work_.add_messages(u, sends);
  }
  [[gnu::noinline]] void channel_overflow(NodeId to, Port p) {
    monitors_.report(
        "P4", {to}, {p},
        "more than " + std::to_string(max_channel_count) + " messages waiting on one channel; the run stops");
    done_ = true;
  }

  // ---------------------------------------------------------------- completions
  void lock_done(NodeId u, Ports locked) {
    App& a = work_.app(u);
    ++metrics_.locks_completed, ++metrics_.locks_in_interval, --work_.pending;
    work_.add_lock(u);
    metrics_.latency_rounds.add(double(now_ - a.timer) / tpr_);
    metrics_.latency_actions.add(a.actions);
    metrics_.latency_messages.add(double(work_.messages(u)));
    metrics_.trials_sum += a.trials, metrics_.trials_max = std::max<unsigned>(metrics_.trials_max, a.trials);
    monitors_.completed(u, a.timer, horizon_);
    metrics_.occupancy_ticks -= now_, ++metrics_.locks_open;
    monitors_.lock_done(u, locked);
    if (trace_.enabled()) trace_.lock_done(u, locked, paper_lock_set(u));
    log({now_, EvKind::done, 0, 0, 0, u, static_cast<std::uint32_t>(locked.bits())});
    work_.locked(u, now_);
    if (opt_.listener) opt_.listener->locked(u, locked.bits());
  }
  void unlock_done(NodeId u) {
    if (metrics_.locks_open > 0) metrics_.occupancy_ticks += now_, --metrics_.locks_open;
    if (trace_.enabled()) trace_.unlock_done(u);
    log({now_, EvKind::done, 1, 0, 0, u, 0});
    work_.unlocked(u, now_);
    if (opt_.listener) opt_.listener->unlocked(u);
  }
  /// The paper's lock set of u (Section 3.2): u if lock(u) = 0, plus the neighbours whose lock
  /// names their port to u; as a JSON array text.
  std::string paper_lock_set(NodeId u) const;

  /// A global stall: requests pending, nothing in transit, no enabled action that changes state,
  /// and no application call left that could change that. Nothing can happen any more.
  void check_stall();

  // ---------------------------------------------------------------- engines
  void semi_sync_round(std::uint64_t round) {
    now_ = static_cast<std::uint32_t>(round);
    if (sc_.activation.kind == ActivationKind::sequential) {
      scheduler_.sequential(n_, [this](NodeId u) { return activate(u); });
      return;
    }
    if (pipelined_scan()) return pipelined_round(round);
    NodeId prefetched = 0;  // nodes below this have had their neighbours' channels prefetched
    // Tested first: whether a node had something to do is a coin flip for the branch predictor,
    // and testing it on every activation cost about one mispredicted branch per action.
    const bool lines = trace_.enabled();
    net_.begin_scan();
    scheduler_.scan(n_, [&](std::uint64_t u) {
      net_.enter(u, round);
      // The scan visits nodes in increasing order, so the nodes just ahead are likely to act soon,
      // and most actions send to every neighbour. Loading those neighbours' channels a few nodes
      // early overlaps their cache misses with the work in between; this reads no random numbers
      // and changes nothing but timing.
      load_ahead(u, prefetched, [this](NodeId w) {
        net_.prefetch(w);
        __builtin_prefetch(state_.address(w), 1);
      });
      const bool acted = activate(static_cast<NodeId>(u));
      if (lines && !acted) trace_.idle(static_cast<NodeId>(u));
    });
    net_.end_scan(round);
  }
  /// Nodes the semi-synchronous scan prefetches ahead (tuned with `lmx bench`).
  static constexpr NodeId prefetch_distance = 4;
  /// The scan at u: load(w) for the nodes new to the window of prefetch_distance nodes from u
  /// (those below `prefetched` were loaded). The new nodes are at most prefetch_distance; a fixed
  /// count of loads, the last node repeated when fewer are new, because a loop over the (random)
  /// number of new nodes mispredicted its exit on most activations.
  template <class Load>
  [[gnu::always_inline]] void load_ahead(std::uint64_t u, NodeId& prefetched, Load&& load) {
    const NodeId ahead = static_cast<NodeId>(std::min<std::uint64_t>(n_, u + prefetch_distance));
    const NodeId first = std::max(prefetched, static_cast<NodeId>(u));
    for (NodeId i = 0; i < prefetch_distance; ++i) load(std::min<NodeId>(first + i, ahead - 1));
    prefetched = std::max(first, ahead);
  }

  // ---------------------------------------------------------------- the pipelined round
  // With two threads (RunOptions::threads) a semi-synchronous round runs as a pipeline. A choosing
  // thread scans ahead and prepares each activated node's action: the activation coins, the pick
  // among enabled actions, the delivery pick, and the core's step (the node's state and detector,
  // the priority draws). This thread follows in the same order and records each one (the
  // delivered message's removal, then record_outcome: the counts, the trace event, the sends, the
  // monitors and the workload). Each random stream is drawn by one thread in the scan's order; a
  // node's state and detector are written by the choosing thread and everything else, channels
  // included, by this one in the scan's order; so the round is the one-thread round, with the same
  // trace hash for any thread count (tests/sim/pipeline_test.cpp). What that takes:
  //  - this thread starts a block once the choosing thread has left it, and writes into blocks
  //    ahead only through lists (Network, "the pipelined scan");
  //  - the monitors read other nodes' lock variables from their own view (Monitors, "view"),
  //    since the states ahead are already past their actions;
  //  - a message sent beyond a channel's inline slots (P4 broken) waits for the choosing thread to
  //    finish the round (Network::post_in_pipeline).

  /// Whether this round runs pipelined: a scan (not the sequential adversary) with deferred
  /// writes, without trace lines or an application listener (both run on this thread with the
  /// choices made in between) and without overlong channels (Network::can_pipeline).
  [[nodiscard]] bool pipelined_scan() const {
    return pipeline_ && sc_.activation.kind != ActivationKind::sequential && !trace_.enabled() && !opt_.listener &&
           net_.can_pipeline();
  }
  /// Blocks the choosing thread may enter ahead of the performing one: the lines it loaded are
  /// still in the shared cache when this thread writes them.
  static constexpr std::size_t max_blocks_ahead = 3;
  /// Prepared actions this thread loads the records of ahead.
  static constexpr std::size_t record_prefetch = 8;

  /// One activation prepared on the choosing thread: the choice and what the core did.
  struct Prepared {
    Outcome o;
    Choice c;
    std::uint8_t byte;    ///< the delivered message
    std::uint16_t stamp;  ///< and its send tick
  };
  static constexpr std::uint8_t malformed_delivery = 0xFF;  ///< Choice::what: the byte was not a message

  /// The choosing thread's part of an activation of u.
  [[gnu::always_inline]] void prepare(NodeId u, Prepared& r) {
    State s = state_.get(u);
    r.c = choose(u, s);
    switch (r.c.what) {
      case Choice::idle: return;
      case Choice::call:
        r.o.act = core::Activation{work_.app(u).phase == AppPhase::wait_lock ? Action::init_lock : Action::init_unlock};
        break;
      case Choice::deliver: {
        const Stored m = net_.stored(u, r.c.port, r.c.slot);
        r.byte = m.byte, r.stamp = m.stamp;
        const core::Decoded d = decoded_[m.byte];
        if (!d.ok()) [[unlikely]] {
          r.c.what = malformed_delivery;
          return;
        }
        r.o.act = receipt(d, r.c.port);
        break;
      }
      default: r.o.act = core::Activation{static_cast<Action>(r.c.what - Choice::guarded)};
    }
    run_core(u, r.o, s);
  }
  /// This thread's part, in the order the one-thread activation makes it.
  [[gnu::always_inline]] void finish(const Prepared& r) {
    const NodeId u = r.c.u;
    switch (r.c.what) {
      case Choice::idle: return;
      case Choice::call: app_call_records(u); return record_outcome(u, r.o, nullptr);
      case Choice::deliver: {
        net_.remove(u, r.c.port, r.c.slot);
        ++metrics_.received;
        const Stored m{r.byte, r.stamp, 0};
        return record_outcome(u, r.o, &m);
      }
      case malformed_delivery:
        net_.remove(u, r.c.port, r.c.slot);
        return monitors_.malformed(u, r.c.port, r.byte, decoded_[r.byte].error);
      default: return record_outcome(u, r.o, nullptr);
    }
  }

  /// Waits until ready() holds: a short spin, then asleep on `signal` (which the other thread
  /// bumps, after making ready() hold, and notifies), so that a waiting thread gives its CPU up,
  /// should both threads share one.
  template <class Ready>
  static void wait_until(std::atomic<std::uint32_t>& signal, Ready&& ready) {
    for (unsigned spins = 0; !ready(); ++spins) {
      if (spins < 2048) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
        continue;
      }
      const std::uint32_t seen = signal.load(std::memory_order_acquire);
      if (ready()) return;
      signal.wait(seen, std::memory_order_acquire);
    }
  }
  static void bump(std::atomic<std::uint32_t>& signal) {
    signal.fetch_add(1, std::memory_order_release);
    signal.notify_one();
  }

  void pipelined_round(std::uint64_t round) {
    // Room for every node (only the pages of activated ones are touched).
    if (!prepared_) prepared_ = std::make_unique_for_overwrite<Prepared[]>(n_);
    monitors_.start_view();
    published_.store(0, std::memory_order_relaxed), performing_blocks_.store(0, std::memory_order_relaxed);
    unthrottled_.store(false, std::memory_order_relaxed), prepared_all_.store(false, std::memory_order_release);
    net_.begin_scan();
    net_.begin_pipeline([this] { await_choosing(); });
    chooser_.run([this] { choose_round(); });
    try {
      perform_round(round);
    } catch (...) {
      // The choosing thread finishes, and the network leaves the pipelined scan, before the error
      // goes up.
      await_choosing();
      try {
        chooser_.wait();
        net_.end_scan(round);
      } catch (...) {
      }
      throw;
    }
    chooser_.wait();
    net_.end_scan(round);
    ++pipelined_rounds_;
    // The records' pages in use: those of the round with the most activations so far.
    prepared_peak_ = std::max(prepared_peak_, published_.load(std::memory_order_relaxed));
  }
  /// Lets the choosing thread run to the round's end, and waits for it.
  void await_choosing() {
    unthrottled_.store(true, std::memory_order_release);
    bump(performing_signal_);
    wait_until(choosing_signal_, [this] { return prepared_all_.load(std::memory_order_acquire); });
  }
  void publish(std::size_t count) { published_.store(count, std::memory_order_release); }
  /// The choosing thread: the scan, its prepared actions published block by block.
  void choose_round() {
    std::size_t count = 0, block = ~std::size_t{0}, blocks = 0;  // blocks entered (with activated nodes)
    NodeId prefetched = 0;
    // Read once: the loop's byte stores may alias the pointer for all the compiler knows.
    Prepared* const prepared = prepared_.get();
    auto finished = [&] {
      publish(count);
      prepared_all_.store(true, std::memory_order_release);
      bump(choosing_signal_);
    };
    try {
      scheduler_.scan(n_, [&](std::uint64_t u) {
        if (const std::size_t b = net_.block_of(u); b != block) {
          publish(count);
          bump(choosing_signal_);
          block = b, ++blocks;
          // Counted in blocks entered, not in block numbers: the scan may skip blocks that have no
          // activated node, and the other thread can only reach the blocks published so far.
          wait_until(performing_signal_, [&] {
            return blocks <= performing_blocks_.load(std::memory_order_acquire) + max_blocks_ahead ||
                   unthrottled_.load(std::memory_order_acquire);
          });
          net_.enter_ahead(u);
        }
        // As in semi_sync_round: the records of the next nodes loaded early (not their far ends,
        // which only the recording thread reads).
        load_ahead(u, prefetched, [this](NodeId w) {
          net_.prefetch_channels(w);
          __builtin_prefetch(state_.address(w), 1);
        });
        prepare(static_cast<NodeId>(u), prepared[count]);
        ++count;  // after: a record is published whole
      });
    } catch (...) {
      finished();
      throw;
    }
    finished();
  }
  /// This thread: the prepared actions recorded in the scan's order, a block once the choosing
  /// thread has left it.
  void perform_round(std::uint64_t round) {
    std::size_t i = 0, block = ~std::size_t{0}, blocks = 0;
    const Prepared* const prepared = prepared_.get();
    for (;;) {
      std::size_t ready = 0;
      bool all = false;
      wait_until(choosing_signal_, [&] {
        all = prepared_all_.load(std::memory_order_acquire);  // before the count: then it is final
        ready = published_.load(std::memory_order_acquire);
        return ready > i || all;
      });
      if (ready == i) break;  // all prepared, all recorded
      for (; i < ready; ++i) {
        if (i + record_prefetch < ready) {
          const NodeId w = prepared[i + record_prefetch].c.u;
          net_.prefetch_own(w);
          __builtin_prefetch(&work_.app(w), 1);
        }
        const Prepared& r = prepared[i];
        net_.enter(r.c.u, round);
        if (const std::size_t b = net_.block_of(r.c.u); b != block) {
          block = b;
          performing_blocks_.store(++blocks, std::memory_order_release);
          bump(performing_signal_);
        }
        finish(r);
      }
    }
  }
  /// Asynchronous executions (paper, Section 5): each node's executions occupy disjoint intervals
  /// [t, t + d] at sub-round times; executions of different nodes overlap arbitrarily and topology
  /// changes happen in between. An execution's effects are applied at its start, which the
  /// paper's Lemma (Section 5) shows is outcome-equivalent; a message sent at t1 is receivable by
  /// an execution starting at t2 > t1, and lost if its edge is cut in between.
  void async_round(std::uint64_t round) {
    const std::uint64_t end = (round + 1) * tpr_;
    std::uint64_t t = 0;
    NodeId u = 0;
    const bool lines = trace_.enabled();
    net_.begin_ticks(scheduler_.wakeups());
    const bool deferring = net_.batching();
    std::uint64_t tick = ~std::uint64_t{0};
    // An exception (a listener's, or a broken invariant) leaves no write waiting: the caller may
    // read the channels, or go on.
    try {
      while (!done_ && scheduler_.next_execution(end, t, u)) {
        if (t != tick) net_.end_tick(), tick = t;  // the tick's deferred writes, with its stamp
        now_ = static_cast<std::uint32_t>(t);
        if (const NodeId w = scheduler_.upcoming(2 * prefetch_distance); w != no_node) load_own_records(w);
        if (const NodeId w = scheduler_.upcoming(prefetch_distance); w != no_node) load_far_records(w, deferring);
        if (lines) trace_.hold();
        // The execution's end and the next start are drawn before it runs where they do not
        // depend on it (no dormant nodes; nothing else draws from the activation stream then), so
        // that an exception from the execution leaves its node a next execution, as a schedule
        // made ahead (plan_schedule) does. The same draws in the same order either way.
        const bool dormancy = !dormant_.empty();
        std::uint64_t finished = dormancy ? 0 : scheduler_.finish_execution(t, u);
        const bool acted = activate(u);
        if (dormancy) finished = !acted && !net_.has_messages(u) ? go_dormant(t, u) : scheduler_.finish_execution(t, u);
        if (lines) {
          if (!acted) trace_.idle(u);
          trace_.release(finished);
        }
      }
    } catch (...) {
      net_.end_ticks();
      throw;
    }
    net_.end_ticks();
    now_ = static_cast<std::uint32_t>(end);
  }

  // The executions come in a random order of nodes: the records of the ones a few places ahead
  // are loaded early (as the semi-synchronous scan does), which changes nothing but timing. Its
  // own records (channels, far ends, port sets, state, the application's record) eight places
  // ahead; four places ahead the end of its far ends (with deferred writes) or the neighbours'
  // channels its sends write (their addresses come from the far ends, by then in cache).
  // docs/performance.md has the gain of each step.
  [[gnu::always_inline]] void load_own_records(NodeId w) {
    net_.prefetch_own(w), net_.prefetch_port_sets(w);
    // The state's both ends: a 30-byte state straddles two cache lines about half the time (a
    // packed one, 16 bytes at 16-byte places, never does).
    const char* state = reinterpret_cast<const char*>(state_.address(w));
    __builtin_prefetch(state, 1);
    if constexpr (sizeof(*state_.address(w)) > 16) __builtin_prefetch(state + sizeof(*state_.address(w)) - 1, 1);
    __builtin_prefetch(&work_.app(w), 1);
  }
  [[gnu::always_inline]] void load_far_records(NodeId w, bool deferring) {
    deferring ? net_.prefetch_far_ports(w) : net_.prefetch_far(w);
  }

  /// The executions of `round` taken out of the calendar: its starts in order, each one's next start
  /// drawn and pushed as the execution's end would (Scheduler::finish_execution). The draws do not
  /// depend on what the executions do (no dormant nodes; the action's pick has its own stream), so
  /// this is the order and the draws of async_round, made before the round.
  void plan_schedule(std::uint64_t round) {
    RoundSchedule& s = schedules_[round & 1];
    s.clear(round * tpr_, tpr_);
    const std::uint64_t end = (round + 1) * tpr_;
    std::uint64_t t = 0;
    NodeId u = 0;
    while (scheduler_.next_execution(end, t, u)) s.add(t, u), scheduler_.finish_execution(t, u);
    s.close();
  }
  /// The schedule of `round` is ready: made during the round before (on the planner's thread or
  /// on a thread of its own), or made now.
  void take_schedule(std::uint64_t round) {
    dynamics_.wait_ahead();
    schedule_worker_.wait();
    if (schedule_ahead_of_ == round)
      ++schedules_planned_ahead_;
    else
      plan_schedule(round);
    schedule_ahead_of_ = ~std::uint64_t{0};
  }
  /// async_round from the round's schedule: the same executions in the same order, with the same
  /// counts for the deferred writes, the records of the executions a few places ahead loaded
  /// early (across ticks too: the schedule knows them).
  /// An exception from an execution (a listener's, or a broken invariant) leaves the round's
  /// list where it was, past that execution: the next step goes on from there, as async_round
  /// goes on with the calendar, instead of taking the round's executions out again.
  void async_scheduled_round(std::uint64_t round) {
    const RoundSchedule& s = schedules_[round & 1];
    const NodeId* nodes = s.nodes().data();
    const std::size_t total = s.nodes().size();
    const bool counting = tick_counts_.active();
    if (counting) net_.begin_ticks(tick_counts_);
    const bool deferring = net_.batching();
    const std::uint32_t from = resume_ ? resume_at_ : 0;
    resume_ = false;
    // Where the round goes on after an exception: past the execution being run, and the rest of
    // its tick, whose counts were added, still to take.
    std::uint32_t next = from, tick_end = from;
    try {
      for (std::uint32_t k = 0; k < s.ticks() && !done_; ++k) {
        const std::uint32_t begin = std::max(s.begin(k), from), end = s.begin(k + 1);
        if (begin >= end) continue;
        now_ = static_cast<std::uint32_t>(s.first() + k);
        if (counting)
          for (std::uint32_t i = begin; i < end; ++i) tick_counts_.add(nodes[i]);
        tick_end = end;
        std::uint32_t i = begin;
        for (; i < end && !done_; ++i) {
          const NodeId u = nodes[i];
          next = i + 1;
          if (counting) tick_counts_.take(u);
          if (i + 2 * prefetch_distance < total) load_own_records(nodes[i + 2 * prefetch_distance]);
          if (i + prefetch_distance < total) load_far_records(nodes[i + prefetch_distance], deferring);
          activate(u);
        }
        if (counting)  // a run that ended within the tick: the tick's counts back to none
          for (; i < end; ++i) tick_counts_.take(nodes[i]);
        tick_end = next = end;
        net_.end_tick();
      }
    } catch (...) {
      if (counting)  // the tick's counts back to none (the throwing execution's are taken)
        for (std::uint32_t j = next; j < tick_end; ++j) tick_counts_.take(nodes[j]);
      resume_ = true, resume_at_ = next;
      net_.end_ticks();
      throw;
    }
    net_.end_ticks();
    now_ = static_cast<std::uint32_t>((round + 1) * tpr_);
  }

  /// RunOptions::skip_dormant: u's execution at t found nothing to do; it ends, and no next one is
  /// scheduled until resume(u).
  std::uint64_t go_dormant(std::uint64_t t, NodeId u) {
    const std::uint64_t end = scheduler_.finish_dormant(t);
    dormant_[u] = 1, dormant_until_[u] = end;
    return end;
  }
  /// Something may have enabled an action of u (a message, a call, a topology change at u).
  void resume(NodeId u) {
    if (dormant_.empty() || u >= n_ || !dormant_[u]) return;
    dormant_[u] = 0;
    scheduler_.resume(std::max<std::uint64_t>(std::uint64_t{now_} + 1, dormant_until_[u]), u);
  }

  void end_of_round(std::uint64_t round) {
    metrics_.mean_locked_sum += metrics_.locked_now;
    monitors_.check_horizon(work_, horizon_);
    if (net_.in_transit() == 0) check_stall();
    if (round % metrics_.series_every == 0) metrics_.sample(round, net_.in_transit());
    ++rounds_done_;
    if (!async_) now_ = static_cast<std::uint32_t>(round + 1);
    if (rounds_done_ >= sc_.rounds) done_ = true;
    if (work_.automatic() && sc_.workload.locks && work_.pending == 0 && work_.unlocking == 0 &&
        net_.in_transit() == 0 && work_.all_done())
      done_ = true;
    if (opt_.progress && (round % std::max<std::uint64_t>(1, sc_.rounds / 100)) == 0)
      opt_.progress(double(round) / double(sc_.rounds));
  }

  // ---------------------------------------------------------------- records
  void log(const Ev& e) { trace_.events().add(e); }
  void trace_call(NodeId u, const char* op, bool ok, Ports requested = Ports{}) {
    log({now_, EvKind::call, static_cast<std::uint8_t>(op[0] == 'u'), static_cast<std::uint8_t>(ok), 0, u,
         static_cast<std::uint32_t>(requested == protocol_.all_ports() ? 0 : requested.bits())});
    if (trace_.enabled())
      trace_.call(u, op, ok,
                  requested.empty() || requested == protocol_.all_ports()
                      ? std::nullopt
                      : std::optional(requested - Ports::of(core::self_port)));
  }
  /// The ports u's Lock call asks for: all of them, unless the application chose a subset.
  [[nodiscard]] Ports lock_request(NodeId u) const {
    return requested_.empty() ? protocol_.all_ports() : Ports(requested_[u]);
  }
  /// The header names everything a replay needs (run_header in summary.hpp).
  void write_header(const std::vector<std::pair<NodeId, NodeId>>& initial_edges) {
    if (trace_.enabled()) trace_.header(run_header(sc_, opt_.source, initial_edges, dynamics_.positions()));
  }

  // ---------------------------------------------------------------- summary
  /// What the engine's arrays hold, by part: where a node's bytes go (the summary's
  /// bytes_per_node_by_part, docs/run-format.md).
  [[nodiscard]] std::vector<MemoryPart> memory_parts() const {
    std::vector<MemoryPart> parts{{"node_states", state_.bytes()}};
    net_.add_memory_parts(parts);
    parts.push_back({"workload", work_.bytes()});
    parts.push_back({"monitors", monitors_.bytes()});
    dynamics_.add_memory_parts(parts);
    parts.push_back(
        {"scheduler", scheduler_.bytes() + schedules_[0].bytes() + schedules_[1].bytes() + tick_counts_.bytes()});
    parts.push_back({"pipeline", prepared_peak_ * sizeof(Prepared)});
    return parts;
  }

  json summary();

  /// Deferred writes apply to the semi-synchronous scan with more than one block (not to the
  /// sequential activation, which picks nodes at random) and to the asynchronous engine's ticks
  /// (Network::begin_ticks), without trace lines (message ids live in the channels' id array,
  /// written at the send). Runs that never defer do not keep
  /// `outgoing` either (keeping it costs a write into the sender's record at every delivery).
  static bool defer_writes(const Scenario& s, const RunOptions& o, bool lines) {
    if (!o.defer_writes || lines) return false;
    if (s.engine == EngineKind::async)
      return Network<Word, FixedDelta>::can_defer_in_ticks(s.delta, o.scan_block_shift);
    return s.activation.kind != ActivationKind::sequential &&
           Network<Word, FixedDelta>::can_defer(s.nodes, s.delta, o.scan_block_shift);
  }

  // ---------------------------------------------------------------- the threads' cache lines
  /// A member's bytes within the engine, whose object starts on a 64-byte line (alignas members;
  /// operator new honours the alignment), so that offsets tell lines.
  struct Span {
    std::size_t begin, size;
  };
  [[nodiscard]] static constexpr bool apart(Span a, Span b) {
    return (a.begin + a.size - 1) / 64 < b.begin / 64 || (b.begin + b.size - 1) / 64 < a.begin / 64;
  }
  [[nodiscard]] static constexpr bool all_apart(std::initializer_list<Span> one, std::initializer_list<Span> other) {
    for (Span a : one)
      for (Span b : other)
        if (!apart(a, b)) return false;
    return true;
  }
  /// Whether what one thread writes at every action shares no cache line with what the other
  /// reads or writes at every action, for both pairs of threads: a shared line moves between the
  /// cores at each write. next_id_ beside prepared_ (which the choosing thread reads at every
  /// action) made a pipelined round about 1.3 times slower (docs/performance.md, "Threads: the
  /// semi-synchronous round as a pipeline").
  static constexpr bool threads_lines_apart() {
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winvalid-offsetof"  // offsets of a class with members that are not standard-layout
#endif
#define LMX_SPAN(member) \
  Span { offsetof(EngineImpl, member), sizeof(EngineImpl::member) }
    // The pipelined round: the choosing thread's reads and writes, against the recording thread's writes.
    const bool pipeline =
        all_apart({LMX_SPAN(sc_), LMX_SPAN(protocol_), LMX_SPAN(decoded_), LMX_SPAN(n_), LMX_SPAN(async_),
                   LMX_SPAN(now_), LMX_SPAN(state_), LMX_SPAN(scheduler_), LMX_SPAN(delivery_), LMX_SPAN(work_),
                   LMX_SPAN(prio_rng_), LMX_SPAN(requested_), LMX_SPAN(prepared_)},
                  {LMX_SPAN(trace_), LMX_SPAN(monitors_), LMX_SPAN(metrics_), LMX_SPAN(next_id_)});
    // The asynchronous engine's schedule and mobility made ahead: the planning thread's writes,
    // against the executions' reads and writes; and the two rounds' schedules, one being made
    // while the executions read the other.
    const Span schedule0{offsetof(EngineImpl, schedules_), sizeof(RoundSchedule)},
        schedule1{offsetof(EngineImpl, schedules_) + sizeof(schedules_[0]), sizeof(RoundSchedule)};
    const bool ahead = apart(schedule0, schedule1) &&
                       all_apart({LMX_SPAN(scheduler_), LMX_SPAN(schedules_), LMX_SPAN(dynamics_)},
                                 {LMX_SPAN(now_), LMX_SPAN(state_), LMX_SPAN(trace_), LMX_SPAN(tick_counts_),
                                  LMX_SPAN(delivery_), LMX_SPAN(work_), LMX_SPAN(monitors_), LMX_SPAN(metrics_),
                                  LMX_SPAN(prio_rng_), LMX_SPAN(choice_rng_), LMX_SPAN(next_id_)});
#undef LMX_SPAN
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
    return pipeline && ahead;
  }

  // ---------------------------------------------------------------- data
  // Declaration order is construction order: the parts hold references to the clock, the
  // scenario and the states declared before them.
  Scenario sc_;
  RunOptions opt_;
  core::Protocol<Word> protocol_;
  /// core::decode(byte, K) of every byte, computed once: every delivery decodes its message and
  /// every send checks that its message survives the trip through one byte (P6).
  std::array<core::Decoded, 256> decoded_ = [k = sc_.k] {
    std::array<core::Decoded, 256> table{};
    for (unsigned byte = 0; byte < 256; ++byte) table[byte] = core::decode(static_cast<std::uint8_t>(byte), k);
    return table;
  }();
  NodeId n_;
  unsigned delta_;
  bool async_;
  std::uint32_t tpr_;
  std::vector<std::uint8_t> dormant_;                ///< RunOptions::skip_dormant: no execution scheduled
  std::vector<std::uint64_t> dormant_until_;         ///< the end of a dormant node's last execution
  std::uint64_t horizon_ = sc_.effective_horizon();  ///< P7's, in rounds
  std::uint32_t now_ = 0;                            ///< the clock, in ticks (tpr_ per round)
  EngineStates<Word, FixedDelta> state_;             ///< Table 1's variables of every node (node_states.hpp)
  // In a pipelined round the choosing thread writes the activation, delivery and priority streams
  // and the recording thread the trace writer, the counts and the monitors, each on cache lines of
  // its own (alignas): a line both wrote moved between the cores at every action. The same holds
  // for the asynchronous engine's second thread (the calendar, the next schedule, the mobility
  // plan). threads_lines_apart checks it at compile time.
  alignas(64) TraceWriter<Word> trace_;
  Network<Word, FixedDelta> net_;  // aligned by its members
  alignas(64) Scheduler scheduler_;
  // Before dynamics_: the planner's thread may be making a schedule until dynamics_ is destroyed.
  /// The schedules of an even and an odd round (plan_schedule), each on lines of its own.
  struct alignas(64) AlignedSchedule : RoundSchedule {};
  AlignedSchedule schedules_[2];
  TickCounts tick_counts_;  ///< the deferred writes' counts, kept here when schedules are made ahead
  bool schedules_ahead_ = false;
  std::uint64_t schedule_ahead_of_ = ~std::uint64_t{0};  ///< the round whose schedule is being made ahead
  std::uint64_t schedules_planned_ahead_ = 0;
  bool resume_ = false;  ///< an exception left the round's list at resume_at_
  std::uint32_t resume_at_ = 0;
  Delivery delivery_;
  alignas(64) Dynamics dynamics_;
  alignas(64) Workload work_;
  alignas(64) Monitors<Word, FixedDelta> monitors_;
  Metrics metrics_;
  alignas(64) Rng prio_rng_;
  Rng choice_rng_;                         ///< the asynchronous engine's picks among an activated node's options
  std::vector<Word> requested_;            ///< per node: the ports its next Lock asks for (empty: all, for every node)
  alignas(64) std::uint64_t next_id_ = 1;  ///< the next message's trace id
  // From here on, members neither thread touches at every action (threads_lines_apart).
  alignas(64) std::uint64_t rounds_done_ = 0;
  bool done_ = false, stalled_ = false, interrupted_ = false;
  bool initial_topology_ = true;  ///< the constructor is connecting the initial edges
  std::chrono::steady_clock::time_point start_wall_;
  // The pipelined round.
  bool pipeline_ = false;                 ///< semi-synchronous rounds may run pipelined (set once the nodes are placed)
  std::unique_ptr<Prepared[]> prepared_;  ///< the round's prepared actions, in the scan's order
  std::uint64_t pipelined_rounds_ = 0;
  std::size_t prepared_peak_ = 0;                  ///< the most actions prepared in one round
  std::atomic<std::size_t> published_{0};          ///< prepared actions of the blocks the choosing thread has left
  std::atomic<std::size_t> performing_blocks_{0};  ///< blocks this thread has entered in the round
  std::atomic<bool> prepared_all_{false}, unthrottled_{false};
  /// Bumped by the choosing thread as it publishes, and by this one as it enters a block or lets
  /// the other run free (wait_until).
  std::atomic<std::uint32_t> choosing_signal_{0}, performing_signal_{0};
  BackgroundWorker schedule_worker_;  ///< makes the next round's schedule of a graph without mobility
  BackgroundWorker chooser_;          ///< last: destroyed first, so a round in flight ends before the rest
};

}  // namespace
}  // namespace lmx::sim

// The members defined out of the class (the application API, the stall check, the summary).
#include "engine_api.hpp"

namespace lmx::sim {

bool p5_holds(unsigned layout_bits, unsigned paper_bits) { return layout_bits <= 8 * paper_bits; }

std::size_t pipeline_record_bytes(unsigned delta) {
  switch (core::register_bits_for(delta)) {
    case 8: return sizeof(EngineImpl<std::uint8_t>::Prepared);
    case 16: return sizeof(EngineImpl<std::uint16_t>::Prepared);
    case 32: return sizeof(EngineImpl<std::uint32_t>::Prepared);
    default: return sizeof(EngineImpl<std::uint64_t>::Prepared);
  }
}

std::unique_ptr<Engine> make_engine(const Scenario& s, const RunOptions& o) {
  switch (core::register_bits_for(s.delta)) {
    case 8: return std::make_unique<EngineImpl<std::uint8_t>>(s, o);
    case 16:
      if (s.delta == 8 && o.fixed_delta) return std::make_unique<EngineImpl<std::uint16_t, 8>>(s, o);
      return std::make_unique<EngineImpl<std::uint16_t>>(s, o);
    case 32: return std::make_unique<EngineImpl<std::uint32_t>>(s, o);
    case 64: return std::make_unique<EngineImpl<std::uint64_t>>(s, o);
    default: throw ScenarioError("scenario key 'delta': Delta must be in 1..63, got " + std::to_string(s.delta));
  }
}

json run(const Scenario& s, const RunOptions& o) { return make_engine(s, o)->finish(); }

}  // namespace lmx::sim
