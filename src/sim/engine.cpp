// The simulation engine, one instantiation per register width. See docs/simulator.md.
//
// Storage is structure-of-arrays indexed by node (and by node * (Delta + 1) + port for channels),
// sized once at construction; an action allocates nothing unless a channel overflows the P4 bound
// (the overflow goes to a side table and is reported as a P4 violation).
#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <queue>
#include <stdexcept>
#include <unordered_map>

#include "big_array.hpp"
#include "channel.hpp"
#include "lmx/sim/guards.hpp"
#include "lmx/sim/simulation.hpp"
#include "rng.hpp"
#include "topology.hpp"
#include "trace.hpp"

namespace lmx::sim {

using core::Action;
using core::InitiatorState;
using core::Message;
using core::MessageKind;
using core::ParticipantPhase;
using core::Port;
using nlohmann::json;

std::string hex64(std::uint64_t h) {
  static const char* digits = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, h >>= 4) s[static_cast<std::size_t>(i)] = digits[h & 15];
  return s;
}

namespace {

/// Ticks per round: the async engine places executions at sub-round times.
constexpr std::uint32_t async_ticks = 1024;
constexpr std::uint64_t max_recorded_violations = 200;

/// A histogram of non-negative values with `scale` buckets per unit, for exact percentiles
/// without storing every sample.
class Histogram {
 public:
  explicit Histogram(double scale = 1) : scale_(scale) {}
  void add(double value) {
    const auto b = static_cast<std::size_t>(std::min(value * scale_, 4.0e6));
    if (b >= counts_.size()) counts_.resize(b + 1);
    ++counts_[b], ++n_, sum_ += value, max_ = std::max(max_, value);
  }
  [[nodiscard]] json summary() const {
    if (n_ == 0) return {{"p50", nullptr}, {"p90", nullptr}, {"p99", nullptr}, {"max", nullptr}, {"mean", nullptr}};
    return {{"p50", quantile(0.50)},
            {"p90", quantile(0.90)},
            {"p99", quantile(0.99)},
            {"max", max_},
            {"mean", sum_ / double(n_)}};
  }
  [[nodiscard]] json histogram() const {
    // At most 40 bins of equal width over 0..max.
    json edges = json::array(), counts = json::array();
    if (n_ == 0) return {{"bin_edges", edges}, {"counts", counts}};
    const double width = std::max(1.0 / scale_, std::ceil((max_ + 1) / 40.0));
    std::vector<std::uint64_t> bins(static_cast<std::size_t>(max_ / width) + 1);
    for (std::size_t b = 0; b < counts_.size(); ++b)
      if (counts_[b])
        bins[std::min(bins.size() - 1, static_cast<std::size_t>(double(b) / scale_ / width))] += counts_[b];
    for (std::size_t i = 0; i <= bins.size(); ++i) edges.push_back(double(i) * width);
    for (auto c : bins) counts.push_back(c);
    return {{"bin_edges", edges}, {"counts", counts}};
  }
  [[nodiscard]] std::uint64_t count() const { return n_; }
  [[nodiscard]] double sum() const { return sum_; }
  [[nodiscard]] std::size_t bytes() const { return counts_.capacity() * sizeof(std::uint64_t); }

 private:
  [[nodiscard]] double quantile(double q) const {
    const auto rank = static_cast<std::uint64_t>(std::ceil(q * double(n_)));
    std::uint64_t seen = 0;
    for (std::size_t b = 0; b < counts_.size(); ++b)
      if ((seen += counts_[b]) >= std::max<std::uint64_t>(rank, 1)) return double(b) / scale_;
    return max_;
  }
  double scale_;
  std::vector<std::uint64_t> counts_;
  std::uint64_t n_ = 0;
  double sum_ = 0, max_ = 0;
};

/// The application's side of a node (workload or manual API calls).
enum class AppPhase : std::uint8_t {
  none,         ///< not participating, or done
  wait_lock,    ///< will call Lock at `timer`
  requesting,   ///< Lock called at `timer`, waiting for CheckDone
  wait_unlock,  ///< LOCKED; will call Unlock at `timer`
  unlocking,    ///< Unlock called, waiting for CheckUnlocked
};

struct App {
  std::uint32_t timer = 0;  ///< call time (wait_*), or the tick the pending request started
  AppPhase phase = AppPhase::none;
  std::uint8_t trials = 0;     ///< competitions of the pending request (saturating)
  std::uint16_t actions = 0;   ///< activations of the requester during the request (saturating)
  std::uint32_t messages = 0;  ///< messages the requester sent during the request
  std::uint32_t locks = 0;     ///< completed locks
};

/// A message in transit: its byte, the (wrapping, 16-bit) tick it was sent at, and its trace id.
struct Stored {
  std::uint8_t byte;
  std::uint16_t stamp;
  std::uint64_t id;
};

/// A growable list of 4-byte entries whose append inlines (std::vector's does not, here).
class WriteList {
 public:
  void append(std::uint32_t entry) {
    if (size_ == capacity_) [[unlikely]]
      grow();
    data_[size_++] = entry;
  }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] std::uint32_t operator[](std::size_t i) const { return data_[i]; }
  void clear() { size_ = 0; }
  [[nodiscard]] std::size_t bytes() const { return capacity_ * sizeof(std::uint32_t); }

 private:
  [[gnu::noinline]] void grow() {
    const std::size_t capacity = std::max<std::size_t>(64, capacity_ * 2);
    // Not zeroed: an entry is always written before it is read.
    auto data = std::make_unique_for_overwrite<std::uint32_t[]>(capacity);
    std::copy(data_.get(), data_.get() + size_, data.get());
    data_ = std::move(data), capacity_ = capacity;
  }
  std::unique_ptr<std::uint32_t[]> data_;
  std::size_t size_ = 0, capacity_ = 0;
};

/// A delivered message's coordinates in a channel.
struct Slot {
  Port port;
  std::uint16_t index;
};

template <class Word>
class EngineImpl final : public Engine {
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
        ports_(s.delta + 1),
        tpr_(s.engine == "async" ? async_ticks : 1),
        act_rng_(s.seed, activation_stream),
        del_rng_(s.seed, delivery_stream),
        topo_rng_(s.seed, topology_stream),
        work_rng_(s.seed, workload_stream),
        prio_rng_(s.seed, priority_stream),
        lines_(o.trace, o.hash_lines),
        latency_rounds_(s.engine == "async" ? 16 : 1),
        start_wall_(std::chrono::steady_clock::now()),
        async_(s.engine == "async"),
        delay_target_(s.delivery.kind == "delay-target"),
        oldest_first_(s.delivery.kind == "oldest"),
        auto_workload_(s.workload.kind == "auto"),
        skip_(scan_p(s)),
        trials_(scan_p(s)),
        trials_by_word_(scan_p(s) >= 1.0 / 16) {
    // Message ages are kept modulo 2^16 ticks (Channel): a patience of 2^16 ticks or more would
    // hold the target's messages forever. The scenario validator caps it; scenarios built in code
    // reach this check instead.
    if (delay_target_ && std::uint64_t{s.delivery.patience} * tpr_ >= 0x10000)
      throw ScenarioError("scenario key 'delivery.patience': " + std::to_string(s.delivery.patience) +
                          " rounds exceed the 2^16-tick message age of the " + s.engine + " engine");
    state_.resize(n_);
    detector_.assign(n_, Word{0});
    neighbours_.assign(n_, Word{0});
    peer_.assign(std::size_t{n_} * delta_, no_node);
    peer_port_.assign(std::size_t{n_} * delta_, Port{0});
    channels_.assign(std::size_t{n_} * ports_, Channel{});
    if (lines_.enabled()) id_.assign(std::size_t{n_} * ports_ * inline_slots, std::uint64_t{0});
    app_.resize(n_);
    persistent_.assign(n_, Word{0});
    held_by_.assign(n_, no_node);
    participating_.assign(n_, false);

    auto topo = build_topology(s, topo_rng_);
    positions_ = std::move(topo.positions);
    if (s.topology.kind == "mobility") waypoints_ = positions_, shuffle_waypoints();
    write_header(topo.edges);
    // Only churn and swizzle revisit the initial edges; other runs do not pay for the list.
    const bool keep_initial_edges = s.dynamics.kind == "churn" || s.dynamics.kind == "swizzle";
    for (auto [u, v] : topo.edges) {
      if (topo.cap_is_error) {
        for (NodeId x : {u, v})
          if (neighbours_[x] == Word(all_neighbour_ports().bits()))
            throw ScenarioError("topology breaks the Delta cap: node " + std::to_string(x) + " has more than " +
                                std::to_string(delta_) + " neighbours");
      }
      if (connect_random(u, v) && keep_initial_edges) initial_edges_.emplace_back(u, v);
    }
    initial_edges_.shrink_to_fit();
    setup_workload();
    if (sc_.engine == "async")
      for (NodeId u = 0; u < n_; ++u) wakeups_.push({act_rng_.below(tpr_), u});
    series_every_ = std::max<std::uint64_t>(1, sc_.rounds / 1000);
  }

  // ---------------------------------------------------------------- application API
  bool request_lock(NodeId u) override {
    App& a = app_.at(u);
    if (state_[u].state != InitiatorState::idle || a.phase == AppPhase::requesting || a.phase == AppPhase::wait_lock) {
      trace_call(u, "lock", false);
      return false;
    }
    a.phase = AppPhase::wait_lock, a.timer = now_;
    return true;
  }
  bool request_unlock(NodeId u) override {
    App& a = app_.at(u);
    if (state_[u].state != InitiatorState::locked || a.phase == AppPhase::wait_unlock) {
      trace_call(u, "unlock", false);
      return false;
    }
    a.phase = AppPhase::wait_unlock, a.timer = now_;
    return true;
  }
  std::string connect(NodeId u, Port pu, NodeId v, Port pv) override {
    if (u >= n_ || v >= n_ || u == v) return "connect: bad nodes";
    if (pu == 0) pu = random_free_port(u);
    if (pv == 0) pv = random_free_port(v);
    if (pu == 0 || pv == 0) return "connect: the Delta cap leaves no free port";
    if (pu > delta_ || pv > delta_) return "connect: port outside 1..Delta";
    if (peer(u, pu) != no_node || peer(v, pv) != no_node) return "connect: port taken";
    if (adjacent(u, v)) return "connect: already neighbours";
    link(u, pu, v, pv);
    return {};
  }
  std::string cut(NodeId u, Port pu) override {
    if (u >= n_ || pu == 0 || pu > delta_ || peer(u, pu) == no_node) return "cut: no edge";
    unlink(u, pu);
    return {};
  }
  void move(NodeId u, double x, double y) override {
    if (positions_.size() != n_) positions_.assign(n_, {0.5, 0.5});
    positions_.at(u) = {x, y};
    trace_move(u);
  }
  [[nodiscard]] NodeView node(NodeId u) const override {
    const State& s = state_.at(u);
    NodeView v;
    v.lock_port = s.lock_port, v.state = s.state, v.phase = s.phase;
    v.lock_set = s.lock_set.bits(), v.replied = s.replied.bits();
    v.neighbours = neighbours_[u], v.disconnected = detector_[u];
    v.locks_completed = app_[u].locks;
    return v;
  }
  [[nodiscard]] const std::vector<Violation>& violations() const override { return violations_; }
  [[nodiscard]] std::uint64_t in_transit() const override { return in_transit_; }
  [[nodiscard]] std::uint64_t actions() const override { return actions_; }
  [[nodiscard]] double now() const override { return double(now_) / tpr_; }
  [[nodiscard]] std::uint64_t deferred_writes() const override { return deferred_writes_; }
  void inject_lock_port(NodeId u, Port p) override {
    state_.at(u).lock_port = p;
    after_lock_change(u);
  }
  void inject_detector(NodeId u, std::uint64_t ports) override { detector_.at(u) = static_cast<Word>(ports); }
  void inject_message(NodeId u, Port port, std::uint8_t byte) override {
    flush_deferred();
    if (port != core::self_port && peer(u, port) == no_node) injected_on_free_port_ = true;
    const bool stored = enqueue(u, port, byte, next_id_++);
    if (keep_outgoing_ && stored && port != core::self_port && peer(u, port) != no_node)
      ++channels_[channel(peer(u, port), peer_port(u, port))].outgoing;
    if (port == core::self_port || peer(u, port) != no_node)
      check_edge_bound(u, port, port ? peer(u, port) : u, port ? peer_port(u, port) : Port{0});
  }

  // ---------------------------------------------------------------- running
  bool step() override {
    if (done_) return false;
    const std::uint64_t round = now_ / tpr_;
    topology_step(round);
    if (async_)
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

 private:
  // ---------------------------------------------------------------- graph
  [[nodiscard]] NodeId peer(NodeId u, Port p) const { return peer_[std::size_t{u} * delta_ + p - 1]; }
  [[nodiscard]] Port peer_port(NodeId u, Port p) const { return peer_port_[std::size_t{u} * delta_ + p - 1]; }
  [[nodiscard]] Ports all_neighbour_ports() const { return Ports::range(1, static_cast<Port>(delta_)); }
  [[nodiscard]] bool adjacent(NodeId u, NodeId v) const {
    for (Port p : Ports(neighbours_[u]))
      if (peer(u, p) == v) return true;
    return false;
  }
  /// The adversary's port choice: a uniformly random free port (0 if none). Often the port just
  /// freed by a cut, so ports are re-used before their node acts (footnote 1 of the paper).
  Port random_free_port(NodeId u) {
    const Ports free = all_neighbour_ports() - Ports(neighbours_[u]);
    if (free.empty()) return 0;
    unsigned pick = topo_rng_.below(free.size());
    for (Port p : free)
      if (pick-- == 0) return p;
    return 0;
  }
  bool connect_random(NodeId u, NodeId v) {
    if (u == v || adjacent(u, v)) return false;
    const Port pu = random_free_port(u), pv = random_free_port(v);
    if (pu == 0 || pv == 0) return false;
    link(u, pu, v, pv);
    return true;
  }
  void link(NodeId u, Port pu, NodeId v, Port pv) {
    flush_deferred();
    peer_[std::size_t{u} * delta_ + pu - 1] = v, peer_port_[std::size_t{u} * delta_ + pu - 1] = pv;
    peer_[std::size_t{v} * delta_ + pv - 1] = u, peer_port_[std::size_t{v} * delta_ + pv - 1] = pu;
    neighbours_[u] = static_cast<Word>(neighbours_[u] | (Word{1} << pu));
    neighbours_[v] = static_cast<Word>(neighbours_[v] | (Word{1} << pv));
    // A free port's channel and copy are empty (a cut empties both) unless a test injected
    // messages there; then each end's copy starts as the other end's count.
    if (keep_outgoing_ && injected_on_free_port_) {
      channels_[channel(u, pu)].outgoing = channels_[channel(v, pv)].count;
      channels_[channel(v, pv)].outgoing = channels_[channel(u, pu)].count;
    }
    ++edges_;
    log({tick32(), EvKind::connect, pu, pv, 0, u, v});
    trace_edge("connect", u, pu, v, pv);
    // Lock-set fine print (design notes §4): a node whose lock still names a port whose edge was
    // cut, and that has not acted since, is counted by the paper's definition in the lock set of
    // whichever node now connects on that port.
    for (auto [x, px, y] : {std::tuple{u, pu, v}, std::tuple{v, pv, u}})
      if (state_[x].lock_port == px) {
        ++stale_lock_pointers_;
        if (stale_examples_.size() < 20)
          stale_examples_.push_back({{"round", now()}, {"node", x}, {"port", px}, {"newcomer", y}});
      }
  }
  /// The trace line of a topology change: both ends with their port labels.
  void trace_edge(const char* kind, NodeId u, Port pu, NodeId v, Port pv) {
    if (!lines_.enabled()) return;
    begin_line(kind);
    line_ += ",\"u\":" + std::to_string(u) + ",\"pu\":" + std::to_string(pu) + ",\"v\":" + std::to_string(v) +
             ",\"pv\":" + std::to_string(pv) + "}";
    commit_line();
  }
  void unlink(NodeId u, Port pu) {
    flush_deferred();
    const NodeId v = peer(u, pu);
    const Port pv = peer_port(u, pu);
    drop_channel(v, pv);
    drop_channel(u, pu);
    peer_[std::size_t{u} * delta_ + pu - 1] = no_node;
    peer_[std::size_t{v} * delta_ + pv - 1] = no_node;
    neighbours_[u] = static_cast<Word>(neighbours_[u] & ~(Word{1} << pu));
    neighbours_[v] = static_cast<Word>(neighbours_[v] & ~(Word{1} << pv));
    detector_[u] = static_cast<Word>(detector_[u] | (Word{1} << pu));  // the disconnection detector
    detector_[v] = static_cast<Word>(detector_[v] | (Word{1} << pv));
    --edges_;
    log({tick32(), EvKind::cut, pu, pv, 0, u, v});
    trace_edge("cut", u, pu, v, pv);
    // Persistence (P2, P3): the neighbour on this port is no longer persistent for either end.
    for (auto [x, px, y] : {std::tuple{u, pu, v}, std::tuple{v, pv, u}}) {
      persistent_[x] = static_cast<Word>(persistent_[x] & ~(Word{1} << px));
      if (held_by_[y] == x) held_by_[y] = no_node;
    }
  }

  // ---------------------------------------------------------------- channels
  [[nodiscard]] std::size_t channel(NodeId u, Port p) const { return std::size_t{u} * ports_ + p; }
  [[nodiscard]] std::uint16_t now16() const { return static_cast<std::uint16_t>(now_); }
  [[nodiscard]] std::uint16_t age_of(const Stored& m) const { return static_cast<std::uint16_t>(now16() - m.stamp); }
  /// Puts a message into `to`'s channel on port p; false if the run stopped instead. The caller
  /// updates the sender's `outgoing` (it knows the sender without reading `to`'s peer arrays).
  bool enqueue(NodeId to, Port p, std::uint8_t byte, std::uint64_t id) {
    const std::size_t c = channel(to, p);
    Channel& ch = channels_[c];
    const unsigned k = ch.count;
    if (k < inline_slots) {
      ch.byte[k] = byte, ch.stamp[k] = now16();
      if (!id_.empty()) id_[c * inline_slots + k] = id;
    } else {
      overflow_[c].push_back({byte, now16(), id});
    }
    if (k == 255) {
      report("P4", {to}, {p}, "more than 255 messages waiting on one channel; the run stops");
      done_ = true;
      return false;
    }
    ch.count = static_cast<std::uint8_t>(k + 1);
    ++in_transit_;
    return true;
  }
  [[nodiscard]] Stored stored(std::size_t c, unsigned i) const {
    if (i < inline_slots)
      return {channels_[c].byte[i], channels_[c].stamp[i], id_.empty() ? 0 : id_[c * inline_slots + i]};
    return overflow_.at(c)[i - inline_slots];
  }
  /// Removes message i of u's channel on port p (a bag: the last message takes its place).
  void remove(NodeId u, Port p, unsigned i) {
    const std::size_t c = channel(u, p);
    const unsigned last = channels_[c].count - 1u;
    if (i != last) {
      const Stored m = stored(c, last);
      if (i < inline_slots) {
        channels_[c].byte[i] = m.byte, channels_[c].stamp[i] = m.stamp;
        if (!id_.empty()) id_[c * inline_slots + i] = m.id;
      } else {
        overflow_[c][i - inline_slots] = m;
      }
    }
    if (last >= inline_slots) {
      auto& spill = overflow_[c];
      spill.pop_back();
      if (spill.empty()) overflow_.erase(c);
    }
    channels_[c].count = static_cast<std::uint8_t>(last);
    --in_transit_;
    // The sender's copy of this count.
    if (keep_outgoing_ && p != core::self_port && peer(u, p) != no_node) {
      if (batching_)
        write_later(peer(u, p), entry(peer(u, p), peer_port(u, p), entry_outgoing_delivered));
      else
        --channels_[channel(peer(u, p), peer_port(u, p))].outgoing;
    }
  }
  void drop_channel(NodeId u, Port p) {
    const std::size_t c = channel(u, p);
    while (channels_[c].count) {
      const Stored m = stored(c, channels_[c].count - 1u);
      ++lost_;
      log({tick32(), EvKind::lost, p, m.byte, 0, u, 0});
      if (lines_.enabled()) {
        begin_line("lost");
        line_ += ",\"id\":" + std::to_string(m.id) + ",\"reason\":\"cut\"}";
        commit_line();
      }
      remove(u, p, channels_[c].count - 1u);
    }
  }
  /// P4 after a message arrived in `to`'s channel on port p; (from, from_port) is the other end.
  void check_edge_bound(NodeId to, Port p, NodeId from, Port from_port) {
    unsigned along = channels_[channel(to, p)].count;
    if (p != core::self_port) along += channels_[channel(from, from_port)].count;
    edge_bound(to, p, along);
  }
  /// P4 with `along` messages in transit along the edge at `to`'s port p.
  [[gnu::always_inline]] void edge_bound(NodeId to, Port p, unsigned along) {
    max_in_transit_ = std::max(max_in_transit_, along);
    if (along > 2 && p != core::self_port) [[unlikely]]
      edge_bound_broken(to, p, along);
  }
  [[gnu::noinline]] void edge_bound_broken(NodeId to, Port p, unsigned along) {
    report("P4", {to, peer(to, p)}, {p, peer_port(to, p)},
           std::to_string(along) + " messages in transit along one edge (Theorem 1 allows 2)");
  }

  // ---------------------------------------------------------------- workload
  void setup_workload() {
    if (sc_.workload.kind != "auto") return;
    for (NodeId u = 0; u < n_; ++u) {
      participating_[u] = work_rng_.unit() < sc_.workload.participation;
      if (participating_[u]) schedule_lock(u, true);
    }
  }
  std::uint32_t draw_delay(double mean_rounds) {
    // Uniform on [0, 2 * mean] rounds, in ticks.
    const double ticks = mean_rounds * 2 * tpr_;
    return static_cast<std::uint32_t>(work_rng_.unit() * (ticks + 1));
  }
  void schedule_lock(NodeId u, bool first) {
    App& a = app_[u];
    if (sc_.workload.locks && a.locks >= sc_.workload.locks) {
      a.phase = AppPhase::none;
      return;
    }
    a.phase = AppPhase::wait_lock;
    a.timer = now_ + (first ? draw_delay(sc_.workload.idle) / 2 : draw_delay(sc_.workload.idle));
  }
  [[nodiscard]] bool call_due(NodeId u) const {
    const App& a = app_[u];
    return (a.phase == AppPhase::wait_lock && a.timer <= now_ && state_[u].state == InitiatorState::idle) ||
           (a.phase == AppPhase::wait_unlock && a.timer <= now_ && state_[u].state == InitiatorState::locked);
  }

  // ---------------------------------------------------------------- activation
  /// The messages u may receive now (the delivery adversary's candidates), in channel order: port
  /// 0..Delta, slot by slot. In the common case a bit mask over (port, slot) pairs, bit
  /// port * inline_slots + slot, so that an activation that does not deliver writes no list.
  struct Candidates {
    unsigned k = 0;          ///< how many
    bool masked = false;     ///< given by `mask`, not by `slots`
    std::uint64_t mask = 0;  ///< the candidates' bits, when masked
    std::array<Slot, 64> slots;
    /// Candidate i (0-based, in channel order).
    [[nodiscard]] Slot at(unsigned i) const {
      if (!masked) return slots[i];
      const unsigned b = nth_set_bit(mask, i);
      return Slot{static_cast<Port>(b / inline_slots), static_cast<std::uint16_t>(b % inline_slots)};
    }
  };
  /// Collects the messages u may receive now.
  void receivable(NodeId u, Candidates& out) {
    unsigned k = 0;
    const bool delaying = delay_target_;
    if (!delaying && overflow_.empty() && ports_ * inline_slots <= 64) {
      // The common case, without branches on the (unpredictable) channel contents: every channel
      // holds at most the inline slots, and a slot is a candidate if it is occupied and its message
      // was not sent in the current tick. Same candidates, in the same order, as the general loop.
      const std::uint64_t mask = receivable_mask_(&channels_[channel(u, 0)], now16());
      out.masked = true, out.mask = mask;
      out.k = core::PortSet<std::uint64_t>(mask).size();
      return;
    }
    for (Port p = 0; p <= delta_; ++p) {
      const std::size_t c = channel(u, p);
      for (unsigned i = 0; i < channels_[c].count && k < out.slots.size(); ++i) {
        const std::uint16_t age = age_of(stored(c, i));
        if (age == 0) continue;  // sent by an execution that did not start earlier
        if (delaying && (u == sc_.delivery.target || (p && peer(u, p) == sc_.delivery.target)) &&
            age < std::uint64_t{sc_.delivery.patience} * tpr_)
          continue;  // the target's message is held back, within the fairness bound
        out.slots[k++] = Slot{p, static_cast<std::uint16_t>(i)};
      }
    }
    out.masked = false, out.k = k;
  }

  /// Whether running CleanUp would change anything (with D empty it is often a no-op, which is
  /// equivalent to not executing it; the adversary skips those and the stall monitor ignores them).
  /// Decided from the state (guards.hpp; tests/sim/guards_test.cpp checks it against a trial
  /// execution of the core).
  [[nodiscard]] bool clean_up_changes(NodeId u) const {
    return detector_[u] != 0 || clean_up_changes_without_d(state_[u]);
  }
  [[nodiscard]] core::Context<Word> context(NodeId u) const { return {Ports(detector_[u]), Ports(neighbours_[u])}; }

  /// Guarded actions of u that would change its state.
  [[nodiscard]] core::ActionSet useful_guarded(NodeId u) const {
    core::ActionSet set = enabled_guarded(state_[u], sc_.variant);  // as the core's (guards_test)
    if (set.contains(Action::clean_up) && !clean_up_changes(u))
      set.bits = static_cast<std::uint16_t>(set.bits & ~(1u << unsigned(Action::clean_up)));
    return set;
  }

  /// One activation of u: the adversary picks one enabled action uniformly (a due application
  /// call, a guarded action, or a message delivery). Returns false if u has nothing enabled.
  bool activate(NodeId u) {
    Candidates candidates;
    receivable(u, candidates);
    const unsigned k = candidates.k;
    const core::ActionSet guarded = useful_guarded(u);
    const bool call = call_due(u);
    const unsigned options = count_actions(guarded) + (k ? 1u : 0u) + (call ? 1u : 0u);
    if (options == 0) return false;
    unsigned pick = options == 1 ? 0 : act_rng_.below(options);
    if (call && pick-- == 0) return app_call(u), true;
    if (k && pick-- == 0) return deliver(u, candidates), true;
    for (Action a : core::guarded_actions)
      if (guarded.contains(a) && pick-- == 0) {
        execute(u, core::Activation{a}, nullptr);
        return true;
      }
    return false;
  }

  void deliver(NodeId u, const Candidates& candidates) {
    const unsigned k = candidates.k;
    unsigned pick = 0;
    if (oldest_first_) {
      int best = -1;
      for (unsigned i = 0; i < k; ++i) {
        const Slot slot = candidates.at(i);
        const int age = age_of(stored(channel(u, slot.port), slot.index));
        if (age > best) best = age, pick = i;
      }
    } else if (k > 1) {
      pick = del_rng_.below(k);
    }
    const Slot chosen = candidates.at(pick);
    const std::size_t c = channel(u, chosen.port);
    const Stored m = stored(c, chosen.index);
    remove(u, chosen.port, chosen.index);
    const core::Decoded d = core::decode(m.byte, sc_.k);
    if (!d.ok()) [[unlikely]]
      return malformed(u, chosen.port, m.byte, d.error);
    ++received_;
    // Field by field: copying d.message whole reloaded its two bytes as one word from the stack,
    // a stalled store-to-load forward on every delivery.
    core::Activation act;
    act.action = core::receive_action(d.message.kind), act.port = chosen.port;
    act.message.kind = d.message.kind, act.message.value = d.message.value;
    execute_inline(u, act, &m);
  }

  /// P6: every message is one valid byte. A malformed one is reported and dropped.
  [[gnu::noinline]] void malformed(NodeId u, Port p, std::uint8_t byte, core::DecodeError error) {
    report("P6", {u}, {p},
           "received byte " + std::to_string(byte) + " that is not a message: " + std::string(core::to_string(error)));
  }

  void app_call(NodeId u) {
    App& a = app_[u];
    if (a.phase == AppPhase::wait_lock) {
      trace_call(u, "lock", true);
      a.phase = AppPhase::requesting, a.timer = now_, a.trials = 0, a.actions = 0, a.messages = 0;
      persistent_[u] = neighbours_[u];  // N(u) at the call: the candidates for persistence
      ++locks_requested_, ++pending_;
      pending_queue_.push_back({now_, u});
      execute(u, core::Activation{Action::init_lock}, nullptr);
    } else {
      trace_call(u, "unlock", true);
      a.phase = AppPhase::unlocking;
      ++unlocking_count_;
      release_held(u);
      execute(u, core::Activation{Action::init_unlock}, nullptr);
    }
  }

  void execute(NodeId u, const core::Activation& act, const Stored* msg) { execute_inline(u, act, msg); }
  /// execute, inlined where most actions come from (a delivery): the call and its register
  /// saves were about 3 % of an action's instructions.
  [[gnu::always_inline]] void execute_inline(NodeId u, const core::Activation& act, const Stored* msg) {
    State& s = state_[u];
    const State before = s;
    const core::Context<Word> ctx = context(u);
    auto draw = [this](unsigned bound) { return prio_rng_.below(bound); };
    Fx fx;
    if (act.action == Action::init_lock)
      fx = protocol_.lock(s, ctx);
    else if (act.action == Action::init_unlock)
      fx = protocol_.unlock(s, ctx);
    else
      fx = protocol_.step(s, act, ctx, core::PriorityDraw::from(draw));
    if (fx.status != core::Status::ok) {
      report("P7", {u}, {},
             "the core refused " + std::string(core::to_string(act.action)) + ": " +
                 std::string(core::to_string(fx.status)));
      return;
    }
    ++actions_;
    detector_[u] = 0;  // the snapshot was consumed by this action
    App& a = app_[u];
    if (a.phase == AppPhase::requesting) a.actions = static_cast<std::uint16_t>(std::min(0xFFFF, a.actions + 1));
    if ((act.action == Action::check_start || act.action == Action::check_win) && a.trials < 255) ++a.trials;

    const std::uint8_t msg_byte = msg ? msg->byte : 0xFF;
    log({tick32(), EvKind::act, static_cast<std::uint8_t>(act.action), act.port, msg_byte, u,
         static_cast<std::uint32_t>(s.lock_port) | (static_cast<std::uint32_t>(s.state) << 8) |
             (static_cast<std::uint32_t>(s.phase) << 16)});
    if (lines_.enabled()) trace_act(u, act, msg, ctx.disconnected);

    for (unsigned g = 0; g < fx.send_count; ++g) send(u, fx.sends[g]);
    if (fx.port_sent_twice) one_send_per_port(u, act.action, fx);
    if (fx.priority_overwritten) ++priority_overwrites_;
    if (s.lock_port != before.lock_port) after_lock_change(u);
    if (s.state == InitiatorState::locked && before.state != InitiatorState::locked) ++locked_now_;
    if (s.state != InitiatorState::locked && before.state == InitiatorState::locked) --locked_now_;
    if (s.state == InitiatorState::win && before.state != InitiatorState::win) entered_win_.push_back(u);
    if (fx.lock_acquired) lock_done(u, fx.locked_ports);
    if (fx.unlocked) unlock_done(u);
  }

  void send(NodeId u, const core::Send<Word>& group) {
    const std::uint8_t byte = core::encode(group.message);
    const core::Decoded d = core::decode(byte, sc_.k);
    if (!d.ok() || d.message != group.message) [[unlikely]]
      report("P6", {u}, {}, "a " + std::string(core::to_string(group.message.kind)) + " message does not fit one byte");
    ++sent_by_kind_[static_cast<unsigned>(group.message.kind)];
    // Members read in the loop are copied first: the loop stores single bytes into channel
    // records, which the compiler must assume may alias any member, and would reload them all.
    const bool batching = batching_, lines = lines_.enabled();
    // The receivers' channels are scattered in memory: start loading all of them before the first
    // is needed, so their cache misses overlap (deferred writes do not load them now).
    if (!batching)
      for (Port p : group.ports)
        if (p != core::self_port && peer(u, p) != no_node)
          __builtin_prefetch(&channels_[channel(peer(u, p), peer_port(u, p))], 1);
    Channel* const own_channels = &channels_[channel(u, 0)];
    std::uint64_t id = next_id_;
    // The send events' words (EventLog), apart from the port and the receiver.
    const std::uint64_t send_word = EventLog::first_word(EvKind::send, 0, byte, 0, u);
    const std::uint64_t tick_word = EventLog::second_word(0, tick32());
    for (Port p : group.ports) {
      const std::uint64_t this_id = id++;
      NodeId to = u;
      Port to_port = core::self_port;
      if (p != core::self_port) {
        to = peer(u, p);
        to_port = to == no_node ? Port{0} : peer_port(u, p);
      }
      events_.add(send_word | std::uint64_t{p} << 8, tick_word | to);  // log({tick, send, p, byte, 0, u, to})
      if (lines) trace_send(this_id, u, p, group.message, to, to_port);
      if (to == no_node) {
        ++lost_;
        log({tick32(), EvKind::lost, p, byte, 1, u, 0});
        if (lines) {
          begin_line("lost");
          line_ += ",\"id\":" + std::to_string(this_id) + ",\"reason\":\"no-edge\"}";
          commit_line();
        }
        continue;
      }
      Channel& own = own_channels[p];
      if (batching && p != core::self_port && own.outgoing < inline_slots) {
        // Deferred: the message joins the receiver's channel before anything reads it (see
        // write_later); P4 is checked now, from the sender's record alone.
        ++own.outgoing, ++in_transit_;
        write_later(to, entry(to, to_port, unsigned{byte} << 1 | entry_message));
        edge_bound(to, to_port, unsigned{own.outgoing} + own.count);
        continue;
      }
      // An earlier send of this action on this port (a double send, errata E3) may still wait in
      // the receiver's block list: it goes first, as it would have with immediate writes.
      if (batching && p != core::self_port && (to >> block_shift_) != block_) apply_block(to >> block_shift_);
      if (enqueue(to, to_port, byte, this_id) && keep_outgoing_ && p != core::self_port) ++own.outgoing;
      check_edge_bound(to, to_port, u, p);
    }
    // Counted once per group (the loop's byte stores would make per-port increments reload them).
    const std::uint64_t sends = id - next_id_;
    next_id_ = id, sent_ += sends;
    App& a = app_[u];
    if (a.phase == AppPhase::requesting) a.messages += static_cast<std::uint32_t>(sends);
  }

  // ---------------------------------------------------------------- deferred writes
  // In a semi-synchronous round the scan visits nodes in increasing order and each node acts at
  // most once, so a write into another node's channel (a message, or a decrement of the sender's
  // `outgoing` copy at a delivery) need not happen at the send: it only has to happen before its
  // owner's memory is next read. The scan works through blocks of 2^block_shift_ nodes; a write for
  // the current block is made at once, a write for any other block waits in that block's list,
  // which is applied in order when the scan next enters the block, in this round or the next one
  // (the end of semi_sync_round says which lists wait across a round's end, and with which tick).
  // Writes for one channel come from one sender and keep their order,
  // and no monitor reads another node's channel (P4 uses `outgoing`), so every read sees what it
  // would have seen with immediate writes: the same candidates, slots, reports, excerpts and
  // hashes (tests/sim/deferred_writes_test.cpp compares both on every kind of scenario). What it
  // buys is locality: the writes for a block arrive together, just before the scan reads that
  // block's channels, instead of one cache miss per send at a random place.
  /// entry: the channel's index within its block, the message byte, the kind bit
  static constexpr unsigned entry_shift = 9;
  static constexpr unsigned entry_message = 0, entry_outgoing_delivered = 1;

  [[nodiscard]] std::size_t block_base(std::size_t b) const { return (b << block_shift_) * ports_; }
  [[nodiscard]] std::uint32_t entry(NodeId owner, Port p, unsigned payload) const {
    const std::size_t in_block = std::size_t{owner & ((NodeId{1} << block_shift_) - 1)} * ports_ + p;
    return static_cast<std::uint32_t>(in_block << entry_shift | payload);
  }
  void write_later(NodeId owner, std::uint32_t e) {
    const std::size_t b = owner >> block_shift_;
    if (b == block_) return apply_write(&channels_[block_base(b)], e, now16());
    deferred_[b].append(e);
    ++deferred_writes_;
    if (++deferred_count_ >= deferred_cap_) apply_deferred();
  }
  /// Where a field of a Channel lies in the record read as one native 8-byte word.
  static constexpr unsigned field_shift(std::size_t offset, std::size_t size) {
    return static_cast<unsigned>(std::endian::native == std::endian::little ? 8 * offset
                                                                            : 8 * (sizeof(Channel) - offset - size));
  }
  /// Applies entry e of the block whose first channel is `base`; a message gets the stamp of the
  /// tick it was sent in.
  void apply_write(Channel* base, std::uint32_t e, std::uint16_t stamp) {
    Channel& ch = base[e >> entry_shift];
    std::uint64_t record;
    std::memcpy(&record, &ch, sizeof record);
    constexpr unsigned count_at = field_shift(offsetof(Channel, count), 1),
                       outgoing_at = field_shift(offsetof(Channel, outgoing), 1);
    const unsigned k = static_cast<std::uint8_t>(record >> count_at);
    const bool message = (e & 1) == entry_message;
    // Only deferred while the receiver held fewer than inline_slots messages (the sender's copy
    // said so), so a message takes an inline slot.
    if (unsigned(message) & unsigned(k >= inline_slots)) [[unlikely]]
      throw std::logic_error("sim: a deferred message found its channel full (its sender's count was wrong)");
    // Both outcomes computed on the record's 8 bytes as one word, one kept: the entry's kind is
    // random, and a branch on it mispredicted on about half of the writes. (Building the arrival
    // in a Channel and reloading it as a word stalled on every write: a load cannot be forwarded
    // from the three narrower stores just made into its bytes.)
    const unsigned slot = k & (inline_slots - 1);  // k itself for a message
    const unsigned stamp_at =
                       field_shift(offsetof(Channel, stamp) + slot * sizeof(std::uint16_t), sizeof(std::uint16_t)),
                   byte_at = field_shift(offsetof(Channel, byte) + slot, 1);
    const std::uint64_t arrived_record =
        ((record & ~(std::uint64_t{0xFFFF} << stamp_at) & ~(std::uint64_t{0xFF} << byte_at)) |
         std::uint64_t{stamp} << stamp_at | std::uint64_t{(e >> 1) & 0xFFu} << byte_at) +
        (std::uint64_t{1} << count_at);  // k + 1 <= inline_slots: no carry out of the count
    const std::uint64_t delivered_record = record - (std::uint64_t{1} << outgoing_at);
    const std::uint64_t keep = std::uint64_t{0} - std::uint64_t{message};  // all ones for a message
    record = (arrived_record & keep) | (delivered_record & ~keep);
    std::memcpy(&ch, &record, sizeof record);
  }
  /// Entries apply_block prefetches ahead: each write is one miss at a random place in the block,
  /// and 32 in flight rather than 8 made `lmx bench` about 1.1 times faster (docs/simulator.md).
  static constexpr std::size_t apply_prefetch_distance = 32;
  void apply_block(std::size_t b) {
    WriteList& list = deferred_[b];
    const std::size_t size = list.size(), carried = carried_[b];
    if (size == 0) return;
    // Not &channels_[...]: when n is a multiple of the block size, the last block is empty and
    // its base is the end of the array.
    Channel* base = channels_.data() + block_base(b);
    for (std::size_t i = 0; i < size; ++i) {
      if (i + apply_prefetch_distance < size)
        __builtin_prefetch(base + (list[i + apply_prefetch_distance] >> entry_shift), 1);
      apply_write(base, list[i], i < carried ? carried_stamp_ : now16());
    }
    deferred_count_ -= size;
    list.clear();
    carried_[b] = 0;
  }
  void apply_deferred() {
    for (std::size_t b = 0; b < deferred_.size(); ++b) apply_block(b);
  }
  /// Before anything outside the scan reads or writes channels (a topology change, an injected
  /// message, the summary): the writes carried over from the last round are made.
  void flush_deferred() {
    if (deferred_count_) apply_deferred();
  }
  /// Deferred writes apply to the semi-synchronous scan (not to the sequential activation, which
  /// picks nodes at random) without trace lines (message ids live in `id_`, written at the send)
  /// and with more than one block. Runs that never defer do not keep `outgoing` either (keeping
  /// it costs a write into the sender's record at every delivery).
  [[nodiscard]] bool defer_writes() const {
    return opt_.defer_writes && !lines_.enabled() && (n_ >> block_shift_) > 0 && sc_.engine == "semi-sync" &&
           sc_.activation.kind != "sequential" &&
           (std::size_t{ports_} << (block_shift_ + entry_shift)) <= (std::size_t{1} << 32);
  }

  /// The model's rule (iii) (paper, Section 3.1): an action makes at most one Send per port. The
  /// printed algorithm breaks it when an action's CleanUp helper sends ready to H and the action
  /// then sends to L, which may share a port. Not one of Theorem 1's claims (P4 counts the messages
  /// along edges separately), so it is a finding, counted and exemplified, not a violation.
  void one_send_per_port(NodeId u, Action a, const Fx& fx) {
    ++double_sends_;
    if (double_send_examples_.size() >= 20) return;
    Ports twice;
    Ports seen;
    for (unsigned g = 0; g < fx.send_count; ++g) twice |= seen & fx.sends[g].ports, seen |= fx.sends[g].ports;
    json kinds = json::array();
    for (unsigned g = 0; g < fx.send_count; ++g)
      kinds.push_back(std::string(core::to_string(fx.sends[g].message.kind)));
    double_send_examples_.push_back({{"round", now()},
                                     {"node", u},
                                     {"action", std::string(core::to_string(a))},
                                     {"ports", ports_text(twice)},
                                     {"kinds", kinds}});
    if (lines_.enabled()) {
      begin_line("finding");
      line_ += ",\"kind\":\"send-twice-on-port\",\"node\":" + std::to_string(u) + ",\"ports\":" + ports_json(twice) +
               ",\"detail\":\"" + std::string(core::to_string(a)) +
               " sends two messages on one port (model rule iii allows one)\"}";
      commit_line();
    }
  }

  // ---------------------------------------------------------------- monitors P1-P3
  /// P2: while a node x is LOCKED, each node it holds (x itself and its persistent neighbours)
  /// keeps its lock pointing at x. Checked whenever a held node's lock variable changes.
  void after_lock_change(NodeId w) {
    const NodeId holder = held_by_[w];
    if (holder == no_node) return;
    const Port l = state_[w].lock_port;
    const bool points =
        holder == w ? l == core::self_port : (l != core::no_port && l != 0 && l <= delta_ && peer(w, l) == holder);
    if (!points) {
      report("P2", {holder, w}, {l},
             "node " + std::to_string(w) + " is held by LOCKED node " + std::to_string(holder) +
                 " but its lock variable changed to " + port_name(l));
    }
  }
  static std::string port_name(Port l) { return l == core::no_port ? "BOT" : std::to_string(l); }

  void lock_done(NodeId u, Ports locked) {
    App& a = app_[u];
    ++locks_completed_, ++locks_in_interval_, --pending_;
    ++a.locks;
    const double rounds = double(now_ - a.timer) / tpr_;
    latency_rounds_.add(rounds);
    latency_actions_.add(a.actions);
    latency_messages_.add(a.messages);
    trials_sum_ += a.trials, trials_max_ = std::max<unsigned>(trials_max_, a.trials);
    // P3: the returned ports are port 0 plus the ports of the persistent neighbours.
    const Ports expected = Ports(persistent_[u]) | Ports::of(core::self_port);
    if (!(locked == expected)) {
      std::vector<unsigned> diff;
      for (Port p : (locked - expected) | (expected - locked)) diff.push_back(p);
      report("P3", {u}, diff,
             "CheckDone returned " + ports_text(locked) + " but port 0 plus the persistent neighbours are " +
                 ports_text(expected));
    }
    // P1 and P2: u now holds itself and its persistent neighbours.
    std::vector<NodeId> held{u};
    for (Port p : Ports(persistent_[u])) held.push_back(peer(u, p));
    for (NodeId w : held) {
      const NodeId other = held_by_[w];
      if (other != no_node && other != u && state_[other].state == InitiatorState::locked)
        report("P1", {u, other, w}, {},
               "node " + std::to_string(w) + " is held by LOCKED nodes " + std::to_string(u) + " and " +
                   std::to_string(other));
      held_by_[w] = u;
      after_lock_change(w);
    }
    if (lines_.enabled()) {
      begin_line("done");
      line_ += ",\"node\":" + std::to_string(u) + ",\"op\":\"lock\",\"ports\":" + ports_json(locked) +
               ",\"lock_set\":" + paper_lock_set(u) + "}";
      commit_line();
    }
    log({tick32(), EvKind::done, 0, 0, 0, u, static_cast<std::uint32_t>(locked.bits())});
    if (a.phase == AppPhase::requesting) {
      a.phase = auto_workload_ ? AppPhase::wait_unlock : AppPhase::none;
      a.timer = now_ + draw_delay(sc_.workload.hold);
    }
  }
  void release_held(NodeId u) {
    if (held_by_[u] == u) held_by_[u] = no_node;
    for (Port p : Ports(neighbours_[u])) {
      const NodeId w = peer(u, p);
      if (held_by_[w] == u) held_by_[w] = no_node;
    }
  }
  void unlock_done(NodeId u) {
    App& a = app_[u];
    if (lines_.enabled()) {
      begin_line("done");
      line_ += ",\"node\":" + std::to_string(u) + ",\"op\":\"unlock\",\"ports\":[],\"lock_set\":[]}";
      commit_line();
    }
    log({tick32(), EvKind::done, 1, 0, 0, u, 0});
    if (a.phase == AppPhase::unlocking) {
      --unlocking_count_;
      if (auto_workload_)
        schedule_lock(u, false);
      else
        a.phase = AppPhase::none;
    }
  }
  /// The paper's lock set of u (Section 3.2): u if lock(u) = 0, plus the neighbours whose lock
  /// names their port to u.
  std::string paper_lock_set(NodeId u) const {
    std::vector<NodeId> set;
    if (state_[u].lock_port == core::self_port) set.push_back(u);
    for (Port p : Ports(neighbours_[u])) {
      const NodeId v = peer(u, p);
      if (state_[v].lock_port == peer_port(u, p)) set.push_back(v);
    }
    std::sort(set.begin(), set.end());
    std::string out = "[";
    for (std::size_t i = 0; i < set.size(); ++i) out += (i ? "," : "") + std::to_string(set[i]);
    return out + "]";
  }

  // ---------------------------------------------------------------- monitor P7
  /// Reports requests pending past the horizon, oldest first (the queue is in call order).
  void check_horizon() {
    const std::uint64_t horizon = sc_.effective_horizon() * tpr_;
    while (!pending_queue_.empty()) {
      auto [start, u] = pending_queue_.front();
      const App& a = app_[u];
      if (a.phase != AppPhase::requesting || a.timer != start) {
        pending_queue_.pop_front();
        continue;
      }
      if (now_ - start <= horizon) break;
      report("P7", {u}, {},
             "Lock called at round " + fmt_round(start) + " still pending after " +
                 std::to_string(sc_.effective_horizon()) + " rounds (state " +
                 std::string(core::to_string(state_[u].state)) + ")");
      pending_queue_.pop_front();
    }
  }
  /// A global stall: requests pending, nothing in transit, no enabled action that changes state,
  /// and no application call left that could change that. Nothing can happen any more.
  void check_stall() {
    if (pending_ == 0 && unlocking_pending() == 0) return;
    if (in_transit_ != 0) return;
    std::vector<NodeId> stuck;
    for (NodeId u = 0; u < n_; ++u) {
      const App& a = app_[u];
      if (a.phase == AppPhase::wait_lock || a.phase == AppPhase::wait_unlock) return;  // a call will come
      if (!useful_guarded(u).empty()) return;
      if (a.phase == AppPhase::requesting || a.phase == AppPhase::unlocking) stuck.push_back(u);
    }
    if (stuck.empty()) return;
    stalled_ = true;
    std::string detail = "global stall: " + std::to_string(stuck.size()) +
                         " request(s) pending, nothing in transit, no enabled action changes state; e.g. node " +
                         std::to_string(stuck[0]) + " in state " +
                         std::string(core::to_string(state_[stuck[0]].state)) +
                         " with L=" + ports_text(state_[stuck[0]].lock_set) +
                         " R=" + ports_text(state_[stuck[0]].replied) + " D=" + ports_text(Ports(detector_[stuck[0]]));
    if (stuck.size() > 8) stuck.resize(8);
    report("P7", stuck, {}, detail);
    done_ = true;
  }
  [[nodiscard]] std::uint64_t unlocking_pending() const { return unlocking_count_; }

  // ---------------------------------------------------------------- engines
  void semi_sync_round(std::uint64_t round) {
    now_ = static_cast<std::uint32_t>(round);
    const auto& kind = sc_.activation.kind;
    if (kind == "sequential") {
      // One enabled node per round, chosen uniformly: try random nodes, then scan.
      for (int tries = 0; tries < 32; ++tries)
        if (activate(act_rng_.below(n_))) return;
      const NodeId start = act_rng_.below(n_);
      for (NodeId i = 0; i < n_; ++i)
        if (activate((start + i) % n_)) return;
      return;
    }
    const Rng::Geometric& skip = skip_;
    NodeId prefetched = 0;  // nodes below this have had their neighbours' channels prefetched
    batching_ = keep_outgoing_;
    if (batching_ && deferred_.empty()) {
      const std::size_t blocks = (std::size_t{n_} >> block_shift_) + 1;
      deferred_.resize(blocks), carried_.assign(blocks, 0), entered_.assign(blocks, ~std::uint64_t{0});
    }
    block_ = ~std::size_t{0};
    auto visit = [&](std::uint64_t u) {
      if (batching_ && (u >> block_shift_) != block_) {
        block_ = u >> block_shift_, entered_[block_] = round;
        apply_block(block_);
      }
      // The scan visits nodes in increasing order, so the nodes just ahead are likely to act soon,
      // and most actions send to every neighbour. Loading those neighbours' channels a few nodes
      // early overlaps their cache misses with the work in between; this reads no random numbers
      // and changes nothing but timing.
      const NodeId ahead = static_cast<NodeId>(std::min<std::uint64_t>(n_, u + prefetch_distance));
      for (prefetched = std::max(prefetched, static_cast<NodeId>(u)); prefetched < ahead; ++prefetched)
        prefetch_neighbour_channels(prefetched);
      activate(static_cast<NodeId>(u));
    };
    if (trials_by_word_) {
      // Each node is activated with probability p, independently: 64 nodes' trials per word.
      for (std::uint64_t base = 0; base < n_; base += 64) {
        std::uint64_t chosen = act_rng_.bernoulli64(trials_);
        if (n_ - base < 64) chosen &= (std::uint64_t{1} << (n_ - base)) - 1;
        for (; chosen != 0; chosen &= chosen - 1) visit(base + static_cast<unsigned>(std::countr_zero(chosen)));
      }
    } else {
      // For small p, skip the gaps between activated nodes: one draw per activation.
      for (std::uint64_t u = act_rng_.geometric(skip); u < n_; u += 1 + act_rng_.geometric(skip)) visit(u);
    }
    if (batching_) {
      // The writes for blocks the scan has passed wait for the next round's scan, which applies
      // them just before it reads those blocks' channels. A block the scan did not enter has its
      // list applied now, so that what waits was all sent in this round, at tick `carried_stamp_`.
      for (std::size_t b = 0; b < deferred_.size(); ++b) {
        if (entered_[b] != round) apply_block(b);
        carried_[b] = static_cast<std::uint32_t>(deferred_[b].size());
      }
      carried_stamp_ = now16();
      block_ = ~std::size_t{0}, batching_ = false;
    }
  }
  /// Nodes the semi-synchronous scan prefetches ahead (tuned with `lmx bench`).
  static constexpr NodeId prefetch_distance = 4;
  void prefetch_neighbour_channels(NodeId w) const {
    if (!batching_)
      for (Port p : Ports(neighbours_[w])) __builtin_prefetch(&channels_[channel(peer(w, p), peer_port(w, p))], 1);
    else  // w's neighbours, read at its deliveries and sends
      __builtin_prefetch(&peer_[std::size_t{w} * delta_]);
    // And w's own channels (read to collect its candidates) and state.
    const char* own = reinterpret_cast<const char*>(&channels_[channel(w, 0)]);
    __builtin_prefetch(own, 1), __builtin_prefetch(own + sizeof(Channel) * (ports_ - 1), 1);
    __builtin_prefetch(&state_[w], 1);
  }

  /// Asynchronous executions (paper, Section 5): each node's executions occupy disjoint intervals
  /// [t, t + d] at sub-round times; executions of different nodes overlap arbitrarily and topology
  /// changes happen in between. An execution's effects are applied at its start, which the
  /// paper's Lemma (Section 5) shows is outcome-equivalent; a message sent at t1 is receivable by
  /// an execution starting at t2 > t1, and lost if its edge is cut in between.
  void async_round(std::uint64_t round) {
    const std::uint64_t end = (round + 1) * tpr_;
    while (!wakeups_.empty() && wakeups_.top().first < end && !done_) {
      auto [t, u] = wakeups_.top();
      wakeups_.pop();
      now_ = static_cast<std::uint32_t>(t);
      activate(u);
      const std::uint32_t duration = 1 + act_rng_.below(tpr_);  // the execution's length
      const std::uint32_t gap = act_rng_.below(tpr_);           // until the next one starts
      wakeups_.push({t + duration + gap, u});
    }
    now_ = static_cast<std::uint32_t>(end);
  }

  void end_of_round(std::uint64_t round) {
    mean_locked_sum_ += locked_now_;
    check_horizon();
    if (in_transit_ == 0) check_stall();
    if (round % series_every_ == 0) {
      series_round_.push_back(round);
      series_locks_.push_back(locks_in_interval_);
      series_locked_.push_back(locked_now_);
      series_transit_.push_back(in_transit_);
      locks_in_interval_ = 0;
    }
    ++rounds_done_;
    if (!async_) now_ = static_cast<std::uint32_t>(round + 1);
    if (rounds_done_ >= sc_.rounds) done_ = true;
    if (sc_.workload.kind == "auto" && sc_.workload.locks && pending_ == 0 && unlocking_count_ == 0 &&
        in_transit_ == 0 && all_done())
      done_ = true;
    if (opt_.progress && (round % std::max<std::uint64_t>(1, sc_.rounds / 100)) == 0)
      opt_.progress(double(round) / double(sc_.rounds));
  }
  [[nodiscard]] bool all_done() {
    for (; done_scan_ < n_; ++done_scan_)
      if (app_[done_scan_].phase != AppPhase::none) return false;
    return true;
  }

  // ---------------------------------------------------------------- topology dynamics
  void topology_step(std::uint64_t round) {
    if (async_) now_ = static_cast<std::uint32_t>(round * tpr_);
    if (sc_.topology.kind == "mobility") mobility_step();
    const auto& kind = sc_.dynamics.kind;
    if (kind == "churn") churn_step();
    if (kind == "starve") starve_step(round);
    if (kind == "flap") flap_step(round);
    if (kind == "swizzle") swizzle_step(round);
    // Restorations due now (hostile strategies keep every cut at most `bound` rounds).
    while (!restore_.empty() && restore_.begin()->first <= round) {
      auto [u, v] = restore_.begin()->second;
      restore_.erase(restore_.begin());
      connect_random(u, v);
    }
    entered_win_.clear();
  }
  void cut_pair(NodeId u, NodeId v) {
    for (Port p : Ports(neighbours_[u]))
      if (peer(u, p) == v) return unlink(u, p);
  }
  void churn_step() {
    // Edge-Markovian: each initial edge is present or absent; present edges die with `death`,
    // absent ones are born again with `birth` (if both ends have a free port).
    for (auto [u, v] : initial_edges_) {
      if (adjacent(u, v)) {
        if (topo_rng_.chance(sc_.dynamics.death)) cut_pair(u, v);
      } else if (topo_rng_.chance(sc_.dynamics.birth)) {
        connect_random(u, v);
      }
    }
  }
  void starve_step(std::uint64_t round) {
    // Starve a target: whenever it has called Lock and holds neighbours, cut its whole
    // neighbourhood; every edge comes back `bound` rounds later.
    const NodeId t = sc_.dynamics.target;
    if (app_[t].phase != AppPhase::requesting || neighbours_[t] == 0) return;
    for (Port p : Ports(neighbours_[t])) {
      const NodeId v = peer(t, p);
      unlink(t, p);
      restore_.insert({round + sc_.dynamics.bound, {t, v}});
    }
  }
  void flap_step(std::uint64_t round) {
    // Flap lock holders: a node that has just won its competition (state WIN, collecting
    // ack-lock) loses one random edge, restored `bound` rounds later.
    unsigned budget = sc_.dynamics.batch;
    for (NodeId u : entered_win_) {
      if (budget == 0) break;
      if (neighbours_[u] == 0 || state_[u].state != InitiatorState::win) continue;
      const Ports nb(neighbours_[u]);
      unsigned pick = topo_rng_.below(nb.size());
      for (Port p : nb)
        if (pick-- == 0) {
          const NodeId v = peer(u, p);
          unlink(u, p);
          restore_.insert({round + sc_.dynamics.bound, {u, v}});
          --budget;
          break;
        }
    }
  }
  void swizzle_step(std::uint64_t round) {
    // Swizzle-clog: in cycles of 2 * batch rounds, cut one random edge per round for `batch`
    // rounds, then restore them one per round in random order.
    const std::uint64_t phase = round % (2ull * sc_.dynamics.batch);
    if (phase < sc_.dynamics.batch) {
      if (initial_edges_.empty()) return;
      auto [u, v] = initial_edges_[topo_rng_.below(static_cast<std::uint32_t>(initial_edges_.size()))];
      if (adjacent(u, v)) cut_pair(u, v), swizzled_.emplace_back(u, v);
    } else if (!swizzled_.empty()) {
      const auto i = topo_rng_.below(static_cast<std::uint32_t>(swizzled_.size()));
      auto [u, v] = swizzled_[i];
      swizzled_[i] = swizzled_.back();
      swizzled_.pop_back();
      connect_random(u, v);
    }
  }
  void shuffle_waypoints() {
    for (auto& w : waypoints_) w = {topo_rng_.unit(), topo_rng_.unit()};
  }
  void mobility_step() {
    // Random waypoint: each node walks towards its waypoint at `speed` per round and draws a new
    // one on arrival. Edges are cut when longer than r and created between nodes within r that
    // both have a free port (the Delta cap).
    const double speed = sc_.topology.speed, r = sc_.topology.radius;
    if (speed <= 0) return;
    for (NodeId u = 0; u < n_; ++u) {
      auto& [x, y] = positions_[u];
      const double dx = waypoints_[u].first - x, dy = waypoints_[u].second - y;
      const double dist = std::sqrt(dx * dx + dy * dy);
      if (dist <= speed) {
        x = waypoints_[u].first, y = waypoints_[u].second;
        waypoints_[u] = {topo_rng_.unit(), topo_rng_.unit()};
      } else {
        x += dx / dist * speed, y += dy / dist * speed;
      }
      trace_move(u);
    }
    const double r2 = r * r;
    for (NodeId u = 0; u < n_; ++u)
      for (Port p : Ports(neighbours_[u])) {
        const NodeId v = peer(u, p);
        if (v < u) continue;
        const double dx = positions_[u].first - positions_[v].first, dy = positions_[u].second - positions_[v].second;
        if (dx * dx + dy * dy > r2) unlink(u, p);
      }
    for (auto [u, v] : pairs_within(positions_, r))
      if (!adjacent(u, v)) connect_random(u, v);
  }

  // ---------------------------------------------------------------- reporting
  std::uint32_t tick32() const { return now_; }
  std::string fmt_round(std::uint64_t tick) const {
    if (tpr_ == 1) return std::to_string(tick);
    json j = double(tick) / tpr_;
    return j.dump();
  }
  static std::string ports_text(Ports s) {
    std::string out = "{";
    for (Port p : s) out += (out.size() > 1 ? "," : "") + std::to_string(p);
    return out + "}";
  }
  static std::string ports_json(Ports s) {
    std::string out = "[";
    for (Port p : s) out += (out.size() > 1 ? "," : "") + std::to_string(p);
    return out + "]";
  }
  void log(const Ev& e) { events_.add(e); }

  void report(const std::string& property, std::vector<NodeId> nodes, std::vector<unsigned> ports,
              const std::string& detail) {
    ++violation_counts_[property];
    if (violations_.size() >= max_recorded_violations) return;
    Violation v{property, now(), nodes, ports, detail, {}};
    // The excerpt: the most recent events that involve one of the nodes.
    std::vector<std::string> lines;
    events_.for_recent([&](const Ev& e) {
      if (std::find(nodes.begin(), nodes.end(), e.u) == nodes.end() &&
          !((e.kind == EvKind::connect || e.kind == EvKind::cut || e.kind == EvKind::send) &&
            std::find(nodes.begin(), nodes.end(), e.v) != nodes.end()))
        return;
      if (e.kind != EvKind::move) lines.push_back(describe(e));
    });
    const std::size_t keep = 24;
    v.excerpt.assign(lines.size() > keep ? lines.end() - keep : lines.begin(), lines.end());
    if (lines_.enabled()) {
      begin_line("violation");
      json nodes_j = nodes, ports_j = ports;
      line_ += ",\"property\":\"" + property + "\",\"nodes\":" + nodes_j.dump() + ",\"ports\":" + ports_j.dump() +
               ",\"detail\":" + json(detail).dump() + "}";
      commit_line();
    }
    violations_.push_back(std::move(v));
  }
  std::string describe(const Ev& e) const {
    const std::string r = "round " + fmt_round(e.tick) + ": ";
    auto msg = [](std::uint8_t byte) {
      const core::Decoded d = core::decode(byte, 32);
      std::string s(core::to_string(d.message.kind));
      if (d.message.kind == MessageKind::request_lock || d.message.kind == MessageKind::win)
        s += "(" + std::to_string(d.message.value) + ")";
      return s;
    };
    switch (e.kind) {
      case EvKind::connect:
        return r + "connect n" + std::to_string(e.u) + ":" + std::to_string(e.b1) + " n" + std::to_string(e.v) + ":" +
               std::to_string(e.b2);
      case EvKind::cut:
        return r + "cut n" + std::to_string(e.u) + ":" + std::to_string(e.b1) + " n" + std::to_string(e.v) + ":" +
               std::to_string(e.b2);
      case EvKind::send:
        return r + "n" + std::to_string(e.u) + " sends " + msg(e.b2) + " on port " + std::to_string(e.b1) +
               (e.v == no_node ? " (no edge)" : " to n" + std::to_string(e.v));
      case EvKind::lost:
        return r + "message " + msg(e.b2) + " lost at n" + std::to_string(e.u) + ":" + std::to_string(e.b1);
      case EvKind::act: {
        std::string s = r + "n" + std::to_string(e.u) + " " + std::string(core::to_string(static_cast<Action>(e.b1)));
        if (e.b3 != 0xFF) s += " " + msg(e.b3) + "@" + std::to_string(e.b2);
        return s + " -> lock=" + port_name(static_cast<Port>(e.v & 0xFF)) +
               " state=" + std::string(core::to_string(static_cast<InitiatorState>((e.v >> 8) & 0xFF))) +
               " phase=" + std::string(core::to_string(static_cast<ParticipantPhase>((e.v >> 16) & 0xFF)));
      }
      case EvKind::call:
        return r + "n" + std::to_string(e.u) + " calls " + (e.b1 ? "Unlock" : "Lock") + (e.b2 ? "" : " (rejected)");
      case EvKind::done: return r + "n" + std::to_string(e.u) + (e.b1 ? " unlocked" : " locked");
      default: return r + "event";
    }
  }

  // ---------------------------------------------------------------- trace lines
  std::string& begin_line(const char* ev) {
    line_.clear();
    line_ += "{\"ev\":\"";
    line_ += ev;
    line_ += "\",\"t\":" + std::to_string(lines_.t()) + ",\"round\":" + fmt_round(now_);
    return line_;
  }
  /// The header names everything a replay needs. An edge list read from a file is written inline
  /// (and the file name dropped), so that the trace stays replayable after the file is gone or
  /// changed: the replayed scenario then builds the same edges in the same order.
  void write_header(const std::vector<std::pair<NodeId, NodeId>>& initial_edges) {
    if (!lines_.enabled()) return;
    Scenario replayable = sc_;
    if (sc_.topology.kind == "edges" && !sc_.topology.file.empty()) {
      replayable.topology.file.clear();
      replayable.topology.edges = initial_edges;  // the file's edges, then the inline ones
    }
    nlohmann::ordered_json h = {{"type", "lmx-trace"},
                                {"schema", 1},
                                {"lmx_version", std::string(core::version)},
                                {"source", opt_.source},
                                {"variant", std::string(core::to_string(sc_.variant))},
                                {"delta", delta_},
                                {"k", sc_.k},
                                {"nodes", n_},
                                {"seed", sc_.seed},
                                {"engine", sc_.engine},
                                {"scenario", nlohmann::ordered_json::parse(replayable.to_json().dump())}};
    if (!positions_.empty()) {
      nlohmann::ordered_json pos = nlohmann::ordered_json::array();
      for (auto [x, y] : positions_) pos.push_back({x, y});
      h["positions"] = pos;
    }
    lines_.line() = h.dump();
    lines_.commit();
  }
  void trace_call(NodeId u, const char* op, bool ok) {
    log({tick32(), EvKind::call, static_cast<std::uint8_t>(op[0] == 'u'), static_cast<std::uint8_t>(ok), 0, u, 0});
    if (!lines_.enabled()) return;
    begin_line("call");
    line_ +=
        ",\"node\":" + std::to_string(u) + ",\"op\":\"" + op + "\",\"status\":\"" + (ok ? "ok" : "rejected") + "\"}";
    commit_line();
  }
  void trace_move(NodeId u) {
    const auto qx = static_cast<std::uint32_t>(positions_[u].first * 1e6),
               qy = static_cast<std::uint32_t>(positions_[u].second * 1e6);
    log({tick32(), EvKind::move, 0, 0, 0, u, qx * 1000003u + qy});
    if (!lines_.enabled()) return;
    begin_line("move");
    line_ += ",\"node\":" + std::to_string(u) + ",\"x\":" + json(positions_[u].first).dump() +
             ",\"y\":" + json(positions_[u].second).dump() + "}";
    commit_line();
  }
  void trace_send(std::uint64_t id, NodeId u, Port p, Message m, NodeId to, Port to_port) {
    begin_line("send");
    line_ += ",\"id\":" + std::to_string(id) + ",\"from\":" + std::to_string(u) + ",\"port\":" + std::to_string(p) +
             ",\"kind\":\"" + std::string(core::to_string(m.kind)) + "\",\"value\":" + std::to_string(m.value) +
             ",\"to\":" + (to == no_node ? std::string("null") : std::to_string(to)) +
             ",\"to_port\":" + (to == no_node ? std::string("null") : std::to_string(to_port)) + "}";
    commit_line();
  }
  void trace_act(NodeId u, const core::Activation& act, const Stored* msg, Ports d) {
    const State& s = state_[u];
    begin_line("act");
    line_ += ",\"node\":" + std::to_string(u) + ",\"action\":\"" + std::string(core::to_string(act.action)) +
             "\",\"port\":" + (msg ? std::to_string(act.port) : std::string("null")) +
             ",\"msg\":" + (msg ? std::to_string(msg->id) : std::string("null")) + ",\"D\":" + ports_json(d) +
             ",\"lock\":" + (s.lock_port == core::no_port ? std::string("\"BOT\"") : std::to_string(s.lock_port)) +
             ",\"state\":\"" + upper(core::to_string(s.state)) + "\",\"phase\":\"" + upper(core::to_string(s.phase)) +
             "\",\"regs\":{\"L\":" + ports_json(s.lock_set) + ",\"R\":" + ports_json(s.replied) +
             ",\"W\":" + win_json(s) + ",\"H\":" + ports_json(s.on_hold) + ",\"A\":" + ports_json(s.applicants) +
             ",\"C\":" + ports_json(s.candidates) + ",\"P\":" + priorities_json(s) + "}}";
    commit_line();
  }
  static std::string upper(std::string_view v) { return std::string(v); }  // the core already uses the paper's names
  static std::string win_json(const State& s) {
    std::string out = "[";
    for (Port p : s.win_outcomes.won) out += (out.size() > 1 ? "," : "") + ("[" + std::to_string(p) + ",1]");
    for (Port p : s.win_outcomes.lost) out += (out.size() > 1 ? "," : "") + ("[" + std::to_string(p) + ",0]");
    return out + "]";
  }
  static std::string priorities_json(const State& s) {
    std::string out = "[";
    for (Port p : s.priorities.ports)
      out += (out.size() > 1 ? "," : "") + ("[" + std::to_string(p) + "," + std::to_string(s.priorities.get(p)) + "]");
    return out + "]";
  }
  void commit_line() {
    lines_.line() = line_;
    lines_.commit();
  }

  // ---------------------------------------------------------------- summary
  [[nodiscard]] std::size_t memory_bytes() const {
    return state_.capacity() * sizeof(State) + detector_.capacity() * sizeof(Word) +
           neighbours_.capacity() * sizeof(Word) + peer_.capacity() * sizeof(NodeId) + peer_port_.capacity() +
           channels_.capacity() * sizeof(Channel) + id_.capacity() * 8 + app_.capacity() * sizeof(App) +
           persistent_.capacity() * sizeof(Word) + held_by_.capacity() * sizeof(NodeId) +
           participating_.capacity() / 8 + positions_.capacity() * 16 + waypoints_.capacity() * 16 +
           initial_edges_.capacity() * 8 + wakeups_.size() * 16 + deferred_bytes();
  }
  [[nodiscard]] std::size_t deferred_bytes() const {
    std::size_t bytes = deferred_.capacity() * sizeof(deferred_[0]) + carried_.capacity() * sizeof(carried_[0]) +
                        entered_.capacity() * sizeof(entered_[0]);
    for (const auto& list : deferred_) bytes += list.bytes();
    return bytes;
  }

  json summary() {
    flush_deferred();
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_wall_).count();
    std::uint64_t events_hash = events_.hash();
    json props = json::object();
    for (const char* p : {"P1", "P2", "P3", "P4", "P5", "P6", "P7"})
      props[p] = violation_counts_.count(p) ? "fail" : "pass";
    const unsigned layout_bits = core::layout_state_bits(sizeof(Word) * 8),
                   paper_bits = core::paper_state_bits(delta_, sc_.k);
    if (!p5_holds(layout_bits, paper_bits)) props["P5"] = "fail";
    json viol = json::array();
    for (const auto& v : violations_)
      viol.push_back({{"property", v.property},
                      {"round", v.round},
                      {"nodes", v.nodes},
                      {"ports", v.ports},
                      {"detail", v.detail},
                      {"excerpt", v.excerpt}});
    json by_kind = json::object();
    const double locks = double(locks_completed_);
    for (unsigned i = 0; i < core::message_kind_count; ++i)
      by_kind[std::string(core::to_string(static_cast<MessageKind>(i)))] =
          locks ? json(double(sent_by_kind_[i]) / locks) : json(nullptr);
    std::vector<double> per_node;
    json per_node_j = json::array();
    double sx = 0, sxx = 0;
    for (NodeId u = 0; u < n_; ++u)
      if (participating_[u] || app_[u].locks) {
        const double x = app_[u].locks;
        sx += x, sxx += x * x, per_node.push_back(x);
        if (n_ <= 100000) per_node_j.push_back(app_[u].locks);
      }
    const double jain = sxx > 0 ? sx * sx / (double(per_node.size()) * sxx) : 0;
    const double rounds = double(rounds_done_);
    json result = {
        {"schema", 1},
        {"scenario", sc_.to_json()},
        {"seed", sc_.seed},
        {"variant", std::string(core::to_string(sc_.variant))},
        {"engine", sc_.engine},
        {"rounds", rounds_done_},
        {"actions", actions_},
        {"nodes", n_},
        {"edges", edges_},
        {"locks_requested", locks_requested_},
        {"locks_completed", locks_completed_},
        {"locks_pending", pending_},
        {"violations", viol},
        {"violation_counts", violation_counts_},
        {"stalled", stalled_},
        {"properties", props},
        {"findings",
         {{"stale_lock_pointers", stale_lock_pointers_},
          {"stale_lock_pointer_examples", stale_examples_},
          {"priority_overwrites", priority_overwrites_},
          {"send_twice_on_port", double_sends_},
          {"send_twice_on_port_examples", double_send_examples_}}},
        {"latency_rounds", latency_rounds_.summary()},
        {"latency_activations", latency_actions_.summary()},
        {"latency_messages", latency_messages_.summary()},
        {"trials_per_lock",
         {{"mean", locks ? json(double(trials_sum_) / locks) : json(nullptr)},
          {"max", locks ? json(trials_max_) : json(nullptr)}}},
        {"messages", sent_},
        {"messages_lost", lost_},
        {"messages_per_lock", locks ? json(double(sent_) / locks) : json(nullptr)},
        {"messages_per_lock_by_kind", by_kind},
        {"locks_per_round", rounds ? locks / rounds : 0.0},
        {"mean_locked", rounds ? double(mean_locked_sum_) / rounds : 0.0},
        {"jain_fairness", per_node.empty() || sxx == 0 ? json(nullptr) : json(jain)},
        {"max_in_transit_per_edge", max_in_transit_},
        {"bits_per_node", {{"layout", layout_bits}, {"paper", paper_bits}}},
        {"bytes_per_node", double(memory_bytes()) / n_},
        {"actions_per_second", wall > 0 ? double(actions_) / wall : 0.0},
        {"wall_seconds", wall},
        {"trace_hash", hex64(events_hash)},
        {"series",
         {{"round", series_round_},
          {"locks_completed", series_locks_},
          {"locked_nodes", series_locked_},
          {"in_transit", series_transit_}}},
        {"latency_histogram", latency_rounds_.histogram()},
        {"per_node_locks", per_node_j},
    };
    if (lines_.enabled()) {
      result["line_hash"] = hex64(lines_.hash());
      json end = {{"ev", "end"},
                  {"t", lines_.t()},
                  {"round", rounds_done_},
                  {"rounds", rounds_done_},
                  {"events", lines_.t() - 1},
                  {"hash", hex64(lines_.hash())},
                  {"event_hash", hex64(events_hash)},
                  {"stalled", stalled_}};
      lines_.write_unhashed(end.dump());
    }
    return result;
  }

  // ---------------------------------------------------------------- data
  Scenario sc_;
  RunOptions opt_;
  core::Protocol<Word> protocol_;
  NodeId n_;
  unsigned delta_, ports_;
  /// The candidate mask for this many ports (used while they fit one 64-bit mask).
  const ReceivableMask receivable_mask_ = ports_ * inline_slots <= 64 ? receivable_mask_for(ports_) : nullptr;
  std::uint32_t tpr_;
  Rng act_rng_, del_rng_, topo_rng_, work_rng_, prio_rng_;
  LineWriter lines_;
  std::string line_;
  EventLog events_;

  BigArray<State> state_;
  BigArray<Word> detector_, neighbours_;
  BigArray<NodeId> peer_;
  BigArray<Port> peer_port_;
  BigArray<Channel> channels_;
  BigArray<std::uint64_t> id_;
  std::unordered_map<std::size_t, std::vector<Stored>> overflow_;
  bool injected_on_free_port_ = false;  ///< inject_message wrote to a port without an edge
  /// Nodes per block of the scan: 2^14 (tuned with `lmx bench` among 2^10 to 2^18; their channel
  /// records take 1.1 MiB at Delta = 8); tests use smaller blocks to make blocks that a round's
  /// scan does not enter common.
  const unsigned block_shift_ = std::min(14u, opt_.scan_block_shift);
  const bool keep_outgoing_ = defer_writes();  ///< `Channel::outgoing` is kept (deferred writes)
  bool batching_ = false;                      ///< writes are deferred (semi-synchronous scan)
  std::size_t block_ = ~std::size_t{0};        ///< the block the scan is in
  std::vector<WriteList> deferred_;            ///< deferred writes per block
  std::vector<std::uint32_t> carried_;         ///< per block: its first entries, sent in the last round
  std::vector<std::uint64_t> entered_;         ///< per block: the last round whose scan entered it
  std::uint16_t carried_stamp_ = 0;            ///< the tick of the carried entries
  std::size_t deferred_count_ = 0;
  std::uint64_t deferred_writes_ = 0;
  /// Waiting entries beyond which all are applied at once (at most 8 bytes of entries a node).
  const std::size_t deferred_cap_ = std::max<std::size_t>(std::size_t{1} << 12, std::size_t{n_} * 2);
  BigArray<App> app_;
  BigArray<Word> persistent_;
  BigArray<NodeId> held_by_;
  std::vector<bool> participating_;
  std::vector<std::pair<double, double>> positions_, waypoints_;
  std::vector<std::pair<NodeId, NodeId>> initial_edges_, swizzled_;
  std::multimap<std::uint64_t, std::pair<NodeId, NodeId>> restore_;
  std::vector<NodeId> entered_win_;
  std::priority_queue<std::pair<std::uint64_t, NodeId>, std::vector<std::pair<std::uint64_t, NodeId>>, std::greater<>>
      wakeups_;
  std::deque<std::pair<std::uint32_t, NodeId>> pending_queue_;

  std::uint32_t now_ = 0;
  bool done_ = false, stalled_ = false;
  NodeId done_scan_ = 0;
  std::uint64_t rounds_done_ = 0, actions_ = 0, sent_ = 0, received_ = 0, lost_ = 0, next_id_ = 1, in_transit_ = 0,
                edges_ = 0;
  std::uint64_t locks_requested_ = 0, locks_completed_ = 0, pending_ = 0, unlocking_count_ = 0, locks_in_interval_ = 0;
  std::uint64_t locked_now_ = 0, mean_locked_sum_ = 0, trials_sum_ = 0, stale_lock_pointers_ = 0,
                priority_overwrites_ = 0;
  unsigned trials_max_ = 0, max_in_transit_ = 0;
  std::array<std::uint64_t, core::message_kind_count> sent_by_kind_{};
  Histogram latency_rounds_, latency_actions_, latency_messages_;
  std::map<std::string, std::uint64_t> violation_counts_;
  std::vector<Violation> violations_;
  json stale_examples_ = json::array();
  std::uint64_t double_sends_ = 0;
  json double_send_examples_ = json::array();
  std::uint64_t series_every_ = 1;
  std::vector<std::uint64_t> series_round_, series_locks_, series_locked_, series_transit_;
  std::chrono::steady_clock::time_point start_wall_;
  // The scenario's choices, decoded once (the hot path compares no strings).
  bool async_, delay_target_, oldest_first_, auto_workload_;
  Rng::Geometric skip_;      ///< the semi-synchronous scan's skips (activation p), tabulated once
  Rng::Bernoulli64 trials_;  ///< the same activations, drawn 64 nodes at a time
  /// Which of the two the scan uses: a word of trials costs about 7 draws per 64 nodes (one for
  /// p = 1/2), the skips one draw per activation, so words win above p of about 1/16.
  bool trials_by_word_;
  /// The probability that the semi-synchronous scan activates a node.
  static double scan_p(const Scenario& s) { return s.activation.kind == "synchronous" ? 1.0 : s.activation.p; }
};

}  // namespace

bool p5_holds(unsigned layout_bits, unsigned paper_bits) { return layout_bits <= 8 * paper_bits; }

std::unique_ptr<Engine> make_engine(const Scenario& s, const RunOptions& o) {
  switch (core::register_bits_for(s.delta)) {
    case 8: return std::make_unique<EngineImpl<std::uint8_t>>(s, o);
    case 16: return std::make_unique<EngineImpl<std::uint16_t>>(s, o);
    case 32: return std::make_unique<EngineImpl<std::uint32_t>>(s, o);
    case 64: return std::make_unique<EngineImpl<std::uint64_t>>(s, o);
    default: throw ScenarioError("scenario key 'delta': Delta must be in 1..63, got " + std::to_string(s.delta));
  }
}

json run(const Scenario& s, const RunOptions& o) { return make_engine(s, o)->finish(); }

}  // namespace lmx::sim
