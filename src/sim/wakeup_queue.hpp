// The asynchronous engine's pending executions: (start tick, node) pairs taken smallest first, ties
// by the smaller node, exactly the order of a binary heap of pairs (the engine's traces depend on
// it). A calendar queue: every start lies less than two rounds after the execution being run, so a
// ring of one bucket per tick over a window of that span holds them all; a bucket is sorted once,
// when its tick comes. Pushing and taking cost O(1) plus the sort of a bucket of about n / 1024
// nodes, against O(log n) cache-missing steps for the heap. A start outside the window (never, with
// the engine's draws, but allowed) goes to a heap beside the ring, which `pop_before` consults too.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <queue>
#include <stdexcept>
#include <utility>
#include <vector>

#include "lmx/sim/scenario.hpp"
#include "radix_sort.hpp"
#include "round_schedule.hpp"

namespace lmx::sim {

class WakeupQueue {
 public:
  /// `window`: ticks after the current one that a start may lie at without going to the heap.
  explicit WakeupQueue(std::uint32_t window) : buckets_(std::bit_ceil(std::size_t{window} + 1)) {
    mask_ = buckets_.size() - 1;
    occupied_.assign((buckets_.size() + 63) / 64, 0);
  }

  void push(std::uint64_t t, NodeId u) {
    if (counting() && t <= base_) [[unlikely]]
      throw std::logic_error("sim: a start pushed into or before the tick being taken while its nodes are counted");
    if (t - base_ > mask_) {  // outside [base_, base_ + size); also a t before base_ (unsigned wrap)
      outside_.push({t, u});
      return;
    }
    auto& b = buckets_[t & mask_];
    if (b.empty()) set_occupied(t & mask_);  // a full ring's buckets rarely are: no store then
    ++held_;
    if (t == base_ && sorted_) {  // the bucket being taken is kept in descending order
      b.insert(std::upper_bound(b.begin(), b.end(), u, std::greater<>()), u);
      return;
    }
    b.push_back(u);
  }

  /// push(t, u) for a t after the tick being taken, made two calls later: the bucket's header is
  /// loaded now and its end the next call, so that the store finds its line in cache (a bucket's
  /// end is one of about two thousand, and the executions between two pushes to it evict it).
  /// Pops see the same queue: a start after the current tick cannot be taken before the ring
  /// advances, and every delayed push is made before it does; size() counts them.
  void push_later(std::uint64_t t, NodeId u) {
    if (t <= base_) return push(t, u);  // not after the tick being taken: it may be taken next
    if (delayed_ == std::size(later_)) push(later_[0].first, later_[0].second), later_[0] = later_[1], delayed_ = 1;
    if (delayed_ == 1 && later_[0].first - base_ <= mask_) {
      const auto& b = buckets_[later_[0].first & mask_];
      __builtin_prefetch(b.data() + b.size(), 1);
    }
    later_[delayed_++] = {t, u};
    __builtin_prefetch(&buckets_[t & mask_]);
  }

  /// Takes the smallest (t, u) with t < end, if there is one.
  bool pop_before(std::uint64_t end, std::uint64_t& t, NodeId& u) {
    for (;;) {
      auto& b = buckets_[base_ & mask_];
      if (b.empty() && delayed_ != 0) {  // the ring may advance: the delayed pushes first
        flush_later();
        continue;
      }
      // While counting, the starts of this tick held in the heap beside the ring join its bucket
      // before it is sorted, so that the counts cover every start of the tick.
      if (!sorted_ && counting())
        while (!outside_.empty() && outside_.top().first == base_)
          b.push_back(outside_.top().second), ++held_, outside_.pop(), set_occupied(base_ & mask_);
      if (!b.empty()) {
        if (!sorted_) {
          sort_descending(b), sorted_ = true;
          if (counting())
            for (const NodeId v : b) remaining_.add(v);
        }
        if (!outside_.empty() && outside_.top() < std::pair<std::uint64_t, NodeId>{base_, b.back()})
          return take_outside(end, t, u);
        if (base_ >= end) return false;
        t = base_, u = b.back();
        b.pop_back(), --held_;
        if (counting()) remaining_.take(u);
        return true;
      }
      if (!outside_.empty() && outside_.top().first <= base_) return take_outside(end, t, u);
      if (base_ >= end) return false;
      if (held_ == 0) {  // only the heap holds starts: jump to the next of them, or to end
        const std::uint64_t next = outside_.empty() ? end : std::min(end, outside_.top().first);
        advance(next);
        continue;
      }
      // The ring holds starts, none at this tick: go to the next tick whose bucket holds one, or
      // to the next start in the heap, or to end, whichever comes first. The buckets in between
      // are empty, so this is stepping one tick at a time, without visiting each empty bucket (a
      // few nodes over a window of a round's ticks left ~(ticks / n) of them between two starts).
      // (A full ring, 10^5 nodes and more, holds a start at the next tick: no search then.)
      std::uint64_t next = buckets_[(base_ + 1) & mask_].empty() ? next_held_tick() : base_ + 1;
      next = std::min(end, next);
      if (!outside_.empty()) next = std::min(next, outside_.top().first);
      advance(next);
    }
  }

  /// A hint for prefetching: the node `ahead` places after the one last taken, if the tick being
  /// taken holds that many more (else `none`).
  [[nodiscard]] NodeId upcoming(unsigned ahead, NodeId none) const {
    const auto& b = buckets_[base_ & mask_];
    return sorted_ && b.size() >= ahead ? b[b.size() - ahead] : none;
  }

  /// Counts, from now on, which nodes the tick being taken still holds (for the asynchronous
  /// engine's deferred writes, Network::begin_ticks): one count per slot of `slots` (a power of
  /// two), the nodes v with v mod slots there. A slot's count is exact, so "none" is certain;
  /// "some" may be another node of the slot. Within a tick the counts only fall, which the
  /// deferred writes rely on (a node found not to start again in the tick must not start again
  /// in it), so while counting a start pushed into the tick being taken, or before it, is an
  /// error (the engine's draws never make one: every start is after the execution that
  /// schedules it, and one between rounds after the round's end); starts beyond the window,
  /// held in the heap beside the ring, join their tick's bucket when it is sorted.
  void count_remaining(std::size_t slots) {
    remaining_.assign(slots);
    if (sorted_)
      for (const NodeId v : buckets_[base_ & mask_]) remaining_.add(v);
  }
  /// Whether v may still start an execution at the tick being taken (counted from the node's
  /// slot). Only after count_remaining.
  [[nodiscard]] bool may_start_in_this_tick(NodeId v) const { return remaining_.may_start(v); }
  [[nodiscard]] bool counting() const { return remaining_.active(); }
  /// The counts themselves (for Network::begin_ticks).
  [[nodiscard]] const TickCounts& tick_counts() const { return remaining_; }

  /// The digit width (6, 8 or 10 bits) of the fewest instructions for `size` keys of `bits` bits:
  /// each pass counts and moves every key (about 6 instructions a key) and clears and sums one
  /// counter per digit value (about 3 each). A bucket of a hundred nodes (10^5 nodes in all) spent
  /// two thirds of a 10-bit sort's instructions on its 1 024 counters.
  [[nodiscard]] static unsigned digit_bits(std::size_t size, unsigned bits) {
    unsigned best = 10;
    std::size_t least = ~std::size_t{0};
    for (const unsigned d : {10u, 8u, 6u}) {
      const std::size_t passes = (bits + d - 1) / d;
      const std::size_t cost = passes * ((std::size_t{3} << d) + 6 * size);
      if (cost < least) least = cost, best = d;
    }
    return best;
  }
  [[nodiscard]] std::size_t size() const { return held_ + outside_.size() + delayed_; }
  [[nodiscard]] std::size_t bytes() const {
    std::size_t total = buckets_.size() * sizeof(std::vector<NodeId>) + outside_.size() * 16;
    for (const auto& b : buckets_) total += b.capacity() * sizeof(NodeId);
    total += scratch_.capacity() * sizeof(NodeId) + remaining_.bytes() + occupied_.size() * 8;
    return total;
  }

 private:
  /// A bucket in descending order (the smallest node last, taken first). A bucket holds about
  /// n / 1024 nodes (a thousand at 10^6): a least-significant-digit radix sort by 10-bit digits
  /// (two passes below 2^20 nodes) took a tenth of std::sort's time there; small buckets use
  /// std::sort. Same order either way: the nodes are sorted, whatever sorts them.
  void sort_descending(std::vector<NodeId>& b) {
    if (b.size() < radix_from) {
      std::sort(b.begin(), b.end(), std::greater<>());
      return;
    }
    radix_descending(b);
  }
  /// sort_descending for a bucket of radix_from nodes or more.
  void radix_descending(std::vector<NodeId>& b) {
    NodeId any = 0;
    for (const NodeId u : b) any |= u;
    scratch_.resize(b.size());
    // Ascending in ~u is descending in u; the digits of ~u at bit_width(any) and above are all
    // ones, so the passes stop there.
    const auto bits = static_cast<unsigned>(std::bit_width(any));
    const auto descending = [](NodeId u) { return static_cast<NodeId>(~u); };
    switch (digit_bits(b.size(), bits)) {
      case 6: return radix_sort<6>(b.data(), scratch_.data(), b.size(), bits, descending);
      case 8: return radix_sort<8>(b.data(), scratch_.data(), b.size(), bits, descending);
      default: return radix_sort<10>(b.data(), scratch_.data(), b.size(), bits, descending);
    }
  }
  static constexpr std::size_t radix_from = 64;

  /// The ring's buckets below `to` are empty: move the window so that it starts at `to`. Starts
  /// held in the heap whose ticks now fall inside the window stay there (pop_before looks at both).
  void advance(std::uint64_t to) {
    const std::size_t i = base_ & mask_;  // the bucket being left, empty
    occupied_[i >> 6] &= ~(std::uint64_t{1} << (i & 63));
    base_ = to, sorted_ = false;
  }

  void set_occupied(std::size_t i) { occupied_[i >> 6] |= std::uint64_t{1} << (i & 63); }

  /// The tick of the first bucket after the one being taken that holds a start (one must: the
  /// ring holds starts and the current bucket is empty). The ring's buckets, read from the one
  /// after base_ round to the one before it, are in tick order.
  [[gnu::noinline]] [[nodiscard]] std::uint64_t next_held_tick() const {
    const std::size_t from = (base_ + 1) & mask_;
    std::size_t found = first_occupied(from, buckets_.size());
    if (found == buckets_.size()) found = first_occupied(0, from);
    return base_ + ((found - base_) & mask_);
  }
  /// The first bucket in [from, to) whose bit is set, or `to`.
  [[nodiscard]] std::size_t first_occupied(std::size_t from, std::size_t to) const {
    for (std::size_t i = from; i < to;) {
      const std::uint64_t bits = occupied_[i >> 6] >> (i & 63);
      if (bits != 0) return std::min(to, i + static_cast<std::size_t>(std::countr_zero(bits)));
      i = (i | 63) + 1;
    }
    return to;
  }

  void flush_later() {
    for (unsigned i = 0; i < delayed_; ++i) push(later_[i].first, later_[i].second);
    delayed_ = 0;
  }

  bool take_outside(std::uint64_t end, std::uint64_t& t, NodeId& u) {
    if (outside_.top().first >= end) return false;
    t = outside_.top().first, u = outside_.top().second;
    outside_.pop();
    return true;
  }

  std::vector<std::vector<NodeId>> buckets_;
  std::vector<NodeId> scratch_;  ///< sort_descending's second buffer, kept
  std::size_t mask_ = 0;
  std::uint64_t base_ = 0;  ///< the tick of the bucket being taken; every bucket before it is empty
  bool sorted_ = false;     ///< that bucket has been sorted (descending: the smallest node is last)
  std::size_t held_ = 0;    ///< starts in the ring
  /// One bit per bucket, set while it holds starts (the bucket being taken may keep its bit after
  /// its last start is taken; advance clears it), so that pop_before skips empty buckets a word
  /// at a time.
  std::vector<std::uint64_t> occupied_;
  /// count_remaining's counts: the nodes of the sorted bucket being taken, per slot of v & mask.
  TickCounts remaining_;
  std::array<std::pair<std::uint64_t, NodeId>, 2> later_{};  ///< push_later's delayed pushes, oldest first
  unsigned delayed_ = 0;
  std::priority_queue<std::pair<std::uint64_t, NodeId>, std::vector<std::pair<std::uint64_t, NodeId>>, std::greater<>>
      outside_;
};

}  // namespace lmx::sim
