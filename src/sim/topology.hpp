// Initial topologies: edge lists and generators. Each returns node pairs; the engine assigns the
// ports (the adversary's choice) and enforces the Delta cap.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "lmx/sim/scenario.hpp"
#include "rng.hpp"

namespace lmx::sim {

struct InitialTopology {
  std::vector<std::pair<NodeId, NodeId>> edges;
  std::vector<std::pair<double, double>> positions;  ///< empty unless the kind has positions
  bool cap_is_error = true;  ///< explicit topologies must respect Delta; geometric ones drop extra edges
};

/// Throws ScenarioError for unreadable files, bad node numbers, self-loops and duplicate edges.
InitialTopology build_topology(const Scenario& s, Rng& rng);

/// The place of cell (x, y) on a Hilbert curve over the 2^order x 2^order cells (x, y < 2^order):
/// consecutive places are adjacent cells.
std::uint64_t hilbert_index(unsigned order, std::uint32_t x, std::uint32_t y);

/// Renumbers the positions along a Hilbert curve over `cells` x `cells` cells of the unit square:
/// in the curve's order of their cells (in the given order within a cell), starting at the
/// position of rank `first` and wrapping around. Nodes near in the plane get near numbers, so a
/// node's neighbours' records lie near its own in the engine's arrays; `first` drawn at random
/// keeps every node number's position uniform over the square.
void number_along_hilbert_curve(std::vector<std::pair<double, double>>& pos, std::uint32_t cells, NodeId first);

/// Pairs of nodes closer than r, via a grid of cells of side r (positions in the unit square),
/// sorted.
std::vector<std::pair<NodeId, NodeId>> pairs_within(const std::vector<std::pair<double, double>>& pos, double r);

/// The cell grid behind pairs_within, kept between calls: mobility asks for the pairs within r
/// every round, and rebuilding a vector per cell and sorting every pair cost a third of a round.
/// The cells are a counting sort into flat arrays, reused; the pairs come out per node, each
/// node's partners sorted, so that the order is pairs_within's (increasing (u, v)).
class CellGrid {
 public:
  /// Cells per side of the unit square for n nodes and radius r: cells of side at least r (so a
  /// pair within r lies in the same or adjacent cells), but no more than about 4n cells in all,
  /// which a tiny radius would otherwise make (10^12 cells for r = 10^-6). Fewer, larger cells
  /// find the same pairs; the pairs come out sorted, so their order does not depend on it.
  [[nodiscard]] static std::uint32_t cells_per_side(std::size_t n, double r) {
    const double by_radius = std::floor(1.0 / std::max(r, 1e-12));
    const double by_nodes = 2.0 * std::ceil(std::sqrt(double(std::max<std::size_t>(n, 1))));
    return static_cast<std::uint32_t>(std::max(1.0, std::min(by_radius, by_nodes)));
  }
  /// Calls f(u, v) for every pair u < v with |pos[u] - pos[v]| <= r, in increasing (u, v) order.
  template <class F>
  void for_each_pair_within(const std::vector<std::pair<double, double>>& pos, double r, F&& f) {
    if (r <= 0) return;
    build(pos, r);
    const double r2 = r * r;
    const auto n = static_cast<NodeId>(pos.size());
    for (NodeId u = 0; u < n; ++u) {
      partners_.clear();
      const std::uint32_t cx = cell_x_[u], cy = cell_y_[u];
      const auto [ux, uy] = pos[u];
      for (std::uint32_t y = cy ? cy - 1 : 0; y <= std::min(cells_ - 1, cy + 1); ++y)
        for (std::uint32_t x = cx ? cx - 1 : 0; x <= std::min(cells_ - 1, cx + 1); ++x) {
          const std::size_t c = std::size_t{y} * cells_ + x;
          for (std::uint32_t i = start_[c]; i < start_[c + 1]; ++i) {
            const NodeId v = members_[i];
            if (v <= u) continue;
            const double dx = ux - member_pos_[i].first, dy = uy - member_pos_[i].second;
            if (dx * dx + dy * dy <= r2) partners_.push_back(v);
          }
        }
      std::sort(partners_.begin(), partners_.end());
      for (const NodeId v : partners_) f(u, v);
    }
  }
  /// Calls f(u, v) for every pair u < v with |pos[u] - pos[v]| <= r and !excluded(u, v), in
  /// increasing (u, v) order: for_each_pair_within with the excluded pairs left out, when f
  /// does nothing for them, as long as f never changes `excluded` for a pair not yet seen.
  /// Mobility's new edges: the excluded pairs are the adjacent ones, most pairs within r.
  ///
  /// The scan runs over the cells in memory order, each pair once (a cell with itself and four of
  /// its neighbours: right, and the three below), so it reads the cells' slices nearly in order
  /// where a scan by node jumped to a random cell for every node; only the pairs kept are sorted.
  /// The distance test is for_each_pair_within's: (a - b)^2 is the same float as (b - a)^2.
  /// `excluded(u, v)` reads u's records at random: prefetch(u) is called a few pairs before it.
  template <class Prefetch, class Excluded, class F>
  void for_each_new_pair_within(const std::vector<std::pair<double, double>>& pos, double r, Prefetch&& prefetch,
                                Excluded&& excluded, F&& f) {
    for (const auto& [u, v] : new_pairs_within(pos, r, prefetch, excluded)) f(u, v);
  }
  /// The pairs for_each_new_pair_within calls f for, in that order (valid until the next call):
  /// for a caller that loads what it will read of a pair a few pairs ahead.
  template <class Prefetch, class Excluded>
  const std::vector<std::pair<NodeId, NodeId>>& new_pairs_within(const std::vector<std::pair<double, double>>& pos,
                                                                 double r, Prefetch&& prefetch, Excluded&& excluded) {
    pairs_.clear();
    if (r <= 0) return pairs_;
    build(pos, r);
    const double r2 = r * r;
    pairs_.clear();
    // The pairs within r are written to `within` without a branch on the distance (about a third
    // of the pairs examined are within r, a coin flip for the branch predictor), and handed on
    // whenever it may fill up: each as (smaller, larger) to `excluded`, whose reads of the smaller
    // node's records were started `lag` pairs before.
    constexpr std::uint32_t batch = 256, lag = 16;
    std::pair<NodeId, NodeId> within[batch];
    std::uint32_t found = 0;
    auto hand_on = [&] {
      for (std::uint32_t k = 0; k < found; ++k)
        within[k] = {std::min(within[k].first, within[k].second), std::max(within[k].first, within[k].second)};
      for (std::uint32_t k = 0; k < std::min(found, lag); ++k) prefetch(within[k].first);
      for (std::uint32_t k = 0; k < found; ++k) {
        if (k + lag < found) prefetch(within[k + lag].first);
        if (!excluded(within[k].first, within[k].second)) pairs_.push_back(within[k]);
      }
      found = 0;
    };
    // Member i against members [from, to), all in cells after i's (or after i in its own cell).
    // The buffer's room is checked once per member, unless its partners alone may not fit.
    auto against = [&](std::uint32_t i, std::uint32_t from, std::uint32_t to) {
      const auto [x, y] = member_pos_[i];
      const NodeId a = members_[i];
      for (std::uint32_t j = from; j < to; ++j) {
        const double dx = x - member_pos_[j].first, dy = y - member_pos_[j].second;
        within[found] = {a, members_[j]};
        found += dx * dx + dy * dy <= r2;
      }
    };
    auto against_checked = [&](std::uint32_t i, std::uint32_t from, std::uint32_t to) {
      for (std::uint32_t j = from; j < to; ++j) {
        if (found == batch) hand_on();
        against(i, j, j + 1);
      }
    };
    // A cell's members in memory order are followed by its right neighbour's, and the three cells
    // below it are one slice too: two ranges per member instead of five.
    for (std::uint32_t cy = 0; cy < cells_; ++cy)
      for (std::uint32_t cx = 0; cx < cells_; ++cx) {
        const std::size_t c = std::size_t{cy} * cells_ + cx;
        const std::uint32_t begin = start_[c], end = start_[c + 1];
        if (begin == end) continue;
        const std::uint32_t right_end = cx + 1 < cells_ ? start_[c + 2] : end;
        std::uint32_t below_begin = 0, below_end = 0;
        if (cy + 1 < cells_) {
          const std::size_t below = c + cells_;
          below_begin = start_[cx > 0 ? below - 1 : below], below_end = start_[cx + 1 < cells_ ? below + 2 : below + 1];
        }
        for (std::uint32_t i = begin; i < end; ++i) {
          const std::uint32_t partners = (right_end - i - 1) + (below_end - below_begin);
          if (partners > batch) [[unlikely]] {
            against_checked(i, i + 1, right_end), against_checked(i, below_begin, below_end);
            continue;
          }
          if (found + partners > batch) hand_on();
          against(i, i + 1, right_end);
          against(i, below_begin, below_end);
        }
      }
    hand_on();
    sort_pairs();
    return pairs_;
  }
  [[nodiscard]] std::size_t bytes() const {
    return (start_.capacity() + members_.capacity() + cell_x_.capacity() + cell_y_.capacity() + partners_.capacity()) *
               4 +
           member_pos_.capacity() * 16 + (pairs_.capacity() + sorted_.capacity()) * 8;
  }

 private:
  void build(const std::vector<std::pair<double, double>>& pos, double r);
  /// pairs_ in increasing (u, v) order: a radix sort by 11-bit digits, v's first, then u's (about
  /// a third of std::sort's time for the 10^5 to 10^6 pairs a round of 10^6 mobile nodes keeps).
  void sort_pairs();
  std::uint32_t cells_ = 0;
  std::vector<std::uint32_t> start_;  ///< per cell (row-major), the first index in members_; one past the end last
  std::vector<NodeId> members_;       ///< the nodes by cell, each cell's in increasing order
  /// Their positions in the same order: the scan of a cell reads memory in order, where reading
  /// pos[v] missed the cache for every candidate at 10^6 nodes.
  std::vector<std::pair<double, double>> member_pos_;
  std::vector<std::uint32_t> cell_x_, cell_y_;
  std::vector<NodeId> partners_;
  std::vector<std::pair<NodeId, NodeId>> pairs_;   ///< for_each_new_pair_within's pairs, reused
  std::vector<std::pair<NodeId, NodeId>> sorted_;  ///< sort_pairs' second buffer, reused
};

}  // namespace lmx::sim
