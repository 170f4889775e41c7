// What a run measures for its summary (docs/run-format.md): locks, latencies, messages, series.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "lmx/core/message.hpp"

namespace lmx::sim {

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
  [[nodiscard]] nlohmann::json summary() const {
    if (n_ == 0) return {{"p50", nullptr}, {"p90", nullptr}, {"p99", nullptr}, {"max", nullptr}, {"mean", nullptr}};
    return {{"p50", quantile(0.50)},
            {"p90", quantile(0.90)},
            {"p99", quantile(0.99)},
            {"max", max_},
            {"mean", sum_ / double(n_)}};
  }
  [[nodiscard]] nlohmann::json histogram() const {
    // At most 40 bins of equal width over 0..max.
    nlohmann::json edges = nlohmann::json::array(), counts = nlohmann::json::array();
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
  [[nodiscard]] double scale() const { return scale_; }
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

/// Counters and distributions of a run. Plain data: the engine updates it on the hot path.
struct Metrics {
  explicit Metrics(double latency_scale) : latency_rounds(latency_scale) {}

  std::uint64_t actions = 0, sent = 0, received = 0, lost = 0;
  std::uint64_t locks_requested = 0, locks_completed = 0, locks_in_interval = 0;
  std::uint64_t locked_now = 0, mean_locked_sum = 0, trials_sum = 0;
  unsigned trials_max = 0, max_in_transit = 0;
  /// Occupancy of lock sets (src/sim/bound.hpp): the sum over locks of the ticks from CheckDone
  /// to CheckUnlocked, kept as (sum of unlock ticks) - (sum of lock ticks); locks still held at
  /// the end count up to the end.
  std::int64_t occupancy_ticks = 0;
  std::uint64_t locks_open = 0;
  std::uint64_t two_packing = 0, participants = 0;
  std::array<std::uint64_t, core::message_kind_count> sent_by_kind{};
  Histogram latency_rounds, latency_actions, latency_messages;

  /// The series sampled every `series_every` rounds (at most about 1,000 samples a run).
  std::uint64_t series_every = 1;
  std::vector<std::uint64_t> series_round, series_locks, series_locked, series_transit;

  void sample(std::uint64_t round, std::uint64_t in_transit) {
    series_round.push_back(round);
    series_locks.push_back(locks_in_interval);
    series_locked.push_back(locked_now);
    series_transit.push_back(in_transit);
    locks_in_interval = 0;
  }
  [[nodiscard]] std::size_t bytes() const {
    return latency_rounds.bytes() + latency_actions.bytes() + latency_messages.bytes() +
           4 * series_round.capacity() * sizeof(std::uint64_t);
  }
};

}  // namespace lmx::sim
