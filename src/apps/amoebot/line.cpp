// Line formation (Derakhshandeh, Gmyr, Richa, Scheideler, Strothmann, "An algorithmic framework
// for shape formation problems in self-organizing particle systems", NANOCOM 2015; docs/amoebot.md,
// "Line formation"): hexagon formation's spanning forest of followers behind roots that walk along
// the surface of the structure built so far, here a straight line through the seed. A root
// retires where the line continues: at the node the seed's dir or its opposite points at (the line
// grows both ways along the axis of the seed's local direction 0), or where a retired amoebot's
// dir points; a retiring amoebot's dir points on along the line, away from the amoebot it joined.
// Written against the View only. (Unity build: every name here carries the line_ prefix.)
#include <algorithm>
#include <array>
#include <string>
#include <unordered_map>
#include <vector>

#include "forest.hpp"
#include "lmx/apps/amoebot.hpp"

namespace lmx::apps::amoebot {

namespace {

using namespace forest;  // NOLINT: the shared spanning-forest helpers and rules α1, α2, α5, α6

/// CanRetire: the port of a line neighbour whose line continues into this (contracted) amoebot:
/// the seed's dir or its opposite, a retired amoebot's dir; no_port if none. The seed points both
/// ways so that the line grows at both ends; a retired amoebot's opposite direction leads back
/// into the line, never to a root, so it is not asked.
Port line_receiving_port(const View& v) {
  for (Port p = 0; p < v.ports(); ++p) {
    if (!at(v, p, surface)) continue;
    const int dir = v.read(p, line_dir);
    if (dir < 0 || dir > 5) continue;
    if (v.neighbour_points_at(p, dir) != 0) return p;
    if (v.read(p, line_state) == seed && v.neighbour_points_at(p, (dir + 3) % 6) != 0) return p;
  }
  return no_port;
}

// α3: a contracted root without idle neighbours on the node where the line continues retires; its
// dir continues the line: straight on, away from the line neighbour that pointed at it (hexagon
// formation's α3 turns around the hexagon here instead).
bool line_a3_guard(const View& v) {
  return v.contracted() && state_of(v) == root && first(v, idle_mask) == no_port && line_receiving_port(v) != no_port;
}
void line_a3_run(View& v) {
  // Contracted: the port is the local direction to the line neighbour.
  v.set(line_dir, static_cast<std::int8_t>((line_receiving_port(v) + 3) % 6));
  v.set(line_state, retired);
}

// α4: a contracted root expands along the surface when the next node of its walk is empty. The
// walk direction is NextDir(+1) afresh, not the stored dir: a retirement next to a waiting root can
// turn the node its dir points at into part of the line (the line's end need not be entered along
// the walk, unlike hexagon formation's next ring node), and the root would wait for it forever.
bool line_a4_guard(const View& v) {
  if (!v.contracted() || state_of(v) != root) return false;
  const int dir = next_dir(v, +1);
  return dir >= 0 && !v.connected(dir);
}
void line_a4_run(View& v) {
  const int dir = next_dir(v, +1);
  v.set(line_dir, static_cast<std::int8_t>(dir));
  v.expand(dir);
}

std::string line_node_text(Node n) { return "(" + std::to_string(n.x) + ", " + std::to_string(n.y) + ")"; }

/// Every amoebot contracted, on the line through the seed along the axis of the seed's dir (global
/// direction compass + dir and its opposite), on pairwise distinct nodes, contiguous.
std::string line_check_final(const Configuration& c) {
  const Amoebot* s = nullptr;
  for (const Amoebot& a : c.amoebots)
    if (a.memory.v[line_state] == seed) {
      if (s != nullptr) return "more than one seed";
      s = &a;
    }
  if (s == nullptr) return "no seed";
  const int seed_dir = s->memory.v[line_dir];
  if (seed_dir < 0 || seed_dir > 5) return "the seed's dir " + std::to_string(seed_dir) + " is no direction";
  const int axis = (s->compass + seed_dir) % 6;
  const Node u = directions[axis];
  const auto n = static_cast<std::int64_t>(c.amoebots.size());
  // Position k on the line: seed + k u, k in -(n-1)..n-1 for a line of n through the seed.
  std::unordered_map<std::int64_t, std::size_t> at;
  std::int64_t lo = 0, hi = 0;
  for (std::size_t i = 0; i < c.amoebots.size(); ++i) {
    const Amoebot& a = c.amoebots[i];
    const std::string who = "amoebot " + std::to_string(i);
    if (!a.contracted()) return who + " is expanded";
    const std::int64_t dx = a.head.x - s->head.x, dy = a.head.y - s->head.y;
    if (dx * u.y != dy * u.x)
      return who + " at " + line_node_text(a.head) + " is off the line through the seed " + line_node_text(s->head) +
             " along global direction " + std::to_string(axis) + " (the seed's dir)";
    const std::int64_t k = u.x != 0 ? dx / u.x : dy / u.y;
    if (auto [it, fresh] = at.try_emplace(k, i); !fresh)
      return "two amoebots on one node: " + std::to_string(it->second) + " and " + std::to_string(i) + " at " +
             line_node_text(a.head);
    lo = std::min(lo, k), hi = std::max(hi, k);
  }
  if (hi - lo + 1 != n) {
    for (std::int64_t k = lo; k <= hi; ++k)
      if (at.count(k) == 0)
        return "a gap in the line at " + line_node_text({static_cast<std::int32_t>(s->head.x + k * u.x),
                                                         static_cast<std::int32_t>(s->head.y + k * u.y)});
  }
  return {};
}

}  // namespace

const Algorithm& line_formation() {
  static const Algorithm alg{
      "line",
      "line formation (the shape formation framework's line): a straight line grows both ways from the seed "
      "along its local direction 0's axis",
      {{"alpha1", forest::a1_guard, forest::a1_run},
       {"alpha2", forest::a2_guard, forest::a2_run},
       {"alpha3", line_a3_guard, line_a3_run},
       {"alpha4", line_a4_guard, line_a4_run},
       {"alpha5", forest::a5_guard, forest::a5_run},
       {"alpha6", forest::a6_guard, forest::a6_run}},
      forest::init,
      forest::final_state,
      true,
      line_check_final,
      {"state", "parent", "dir"},
      {"seed", "idle", "follower", "root", "retired"}};
  return alg;
}

}  // namespace lmx::apps::amoebot
