// The adversary's timing choices (docs/simulator.md, "Adversaries"): which nodes act when
// (activation: the semi-synchronous scan, one node per round, or asynchronous executions on a
// time line), and which waiting message an activated node receives (delivery).
#pragma once

#include <bit>
#include <cstdint>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

#include "lmx/sim/scenario.hpp"
#include "network.hpp"
#include "rng.hpp"
#include "wakeup_queue.hpp"

namespace lmx::sim {

/// The activation adversary.
class Scheduler {
 public:
  Scheduler(const Scenario& s, std::uint32_t ticks_per_round)
      : rng_(s.seed, activation_stream),
        tpr_(ticks_per_round),
        skip_(scan_p(s)),
        trials_(scan_p(s)),
        trials_by_word_(scan_p(s) >= 1.0 / 16),
        wakeups_(2 * ticks_per_round) {}

  /// The stream also picks the action of an activated node among its options.
  Rng& rng() { return rng_; }

  /// The semi-synchronous scan: visit(u) for each activated node of 0..n-1, in increasing order;
  /// each node independently with probability p.
  template <class Visit>
  void scan(NodeId n, Visit&& visit) {
    if (trials_by_word_) {
      // 64 nodes' trials per word.
      for (std::uint64_t base = 0; base < n; base += 64) {
        std::uint64_t chosen = rng_.bernoulli64(trials_);
        if (n - base < 64) chosen &= (std::uint64_t{1} << (n - base)) - 1;
        for (; chosen != 0; chosen &= chosen - 1) visit(base + static_cast<unsigned>(std::countr_zero(chosen)));
      }
    } else {
      // For small p, skip the gaps between activated nodes: one draw per activation.
      for (std::uint64_t u = rng_.geometric(skip_); u < n; u += 1 + rng_.geometric(skip_)) visit(u);
    }
  }
  /// `sequential`: one enabled node per round, chosen uniformly: random nodes first, then a scan
  /// from a random start. activate(u) returns whether u had something enabled.
  template <class Activate>
  void sequential(NodeId n, Activate&& activate) {
    for (int tries = 0; tries < 32; ++tries)
      if (activate(rng_.below(n))) return;
    const NodeId start = rng_.below(n);
    for (NodeId i = 0; i < n; ++i)
      if (activate((start + i) % n)) return;
  }

  /// Asynchronous executions: every node's first execution starts within the first round.
  void start_async(NodeId n) {
    for (NodeId u = 0; u < n; ++u) wakeups_.push(rng_.below(tpr_), u);
  }
  /// The next execution starting before tick `end`, if any.
  bool next_execution(std::uint64_t end, std::uint64_t& start, NodeId& u) { return wakeups_.pop_before(end, start, u); }
  /// The node whose execution comes `ahead` places after the last one taken, if known (a hint for
  /// prefetching; no_node otherwise).
  [[nodiscard]] NodeId upcoming(unsigned ahead) const { return wakeups_.upcoming(ahead, no_node); }
  /// The pending executions (the asynchronous engine's deferred writes ask which nodes the tick
  /// being taken still holds).
  WakeupQueue& wakeups() { return wakeups_; }
  /// The execution of u that started at `start` lasts a time uniform in (0, 1] round; the next
  /// starts after a gap uniform in [0, 1) round. Returns the end of this execution.
  std::uint64_t finish_execution(std::uint64_t start, NodeId u) {
    const std::uint32_t duration = 1 + rng_.below(tpr_);
    const std::uint32_t gap = rng_.below(tpr_);
    wakeups_.push_later(start + duration + gap, u);  // after `start`, the tick being taken
    return start + duration;
  }
  /// The same for an execution after which u goes dormant: no next execution is scheduled.
  std::uint64_t finish_dormant(std::uint64_t start) { return start + 1 + rng_.below(tpr_); }
  /// A dormant node resumes: its next execution starts after `after` plus a gap uniform in
  /// [0, 1) round.
  void resume(std::uint64_t after, NodeId u) { wakeups_.push(after + rng_.below(tpr_), u); }
  [[nodiscard]] std::size_t bytes() const { return wakeups_.bytes(); }

 private:
  /// The probability that the semi-synchronous scan activates a node.
  static double scan_p(const Scenario& s) {
    return s.activation.kind == ActivationKind::synchronous ? 1.0 : s.activation.p;
  }

  Rng rng_;
  std::uint32_t tpr_;
  Rng::Geometric skip_;      ///< the scan's skips (activation p), tabulated once
  Rng::Bernoulli64 trials_;  ///< the same activations, drawn 64 nodes at a time
  /// Which of the two the scan uses: a word of trials costs about 7 draws per 64 nodes (one for
  /// p = 1/2), the skips one draw per activation, so words win above p of about 1/16.
  bool trials_by_word_;
  /// Pending asynchronous executions; a start lies at most 2 rounds after the execution that
  /// schedules it (a duration and a gap, each below a round), the calendar's window.
  WakeupQueue wakeups_;
};

/// The delivery adversary: which of the candidates an activated node receives.
class Delivery {
 public:
  Delivery(const Scenario& s, std::uint32_t ticks_per_round)
      : rng_(s.seed, delivery_stream), oldest_first_(s.delivery.kind == DeliveryKind::oldest) {
    rule_.active = s.delivery.kind == DeliveryKind::delay_target;
    rule_.target = s.delivery.target;
    rule_.patience_ticks = std::uint64_t{s.delivery.patience} * ticks_per_round;
  }
  [[nodiscard]] const DelayRule& rule() const { return rule_; }
  /// The index of the chosen candidate; age(slot) is the age of a candidate's message.
  template <class Age>
  unsigned pick(const Candidates& candidates, Age&& age) {
    const unsigned k = candidates.k;
    unsigned pick = 0;
    if (oldest_first_) {
      int best = -1;
      for (unsigned i = 0; i < k; ++i) {
        const int a = age(candidates.at(i));
        if (a > best) best = a, pick = i;
      }
    } else if (k > 1) {
      pick = rng_.below(k);
    }
    return pick;
  }

 private:
  Rng rng_;
  bool oldest_first_;
  DelayRule rule_;
};

}  // namespace lmx::sim
