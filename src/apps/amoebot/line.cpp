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

#include "lmx/apps/amoebot.hpp"

namespace lmx::apps::amoebot {

namespace {

constexpr unsigned line_bit(HexagonState s) { return 1u << static_cast<unsigned>(s); }
constexpr unsigned line_surface = line_bit(seed) | line_bit(retired);  ///< "line neighbours"
constexpr unsigned line_tree = line_bit(follower) | line_bit(root);
constexpr unsigned line_idle = line_bit(idle);

std::int8_t line_state_of(const View& v) { return v.get(line_state); }
bool line_in(std::int8_t state, unsigned mask) { return state >= 0 && ((mask >> state) & 1u); }
bool line_at(const View& v, Port p, unsigned mask) { return v.connected(p) && line_in(v.read(p, line_state), mask); }

/// The first port (in label order) leading to a neighbour whose state is in `mask`, or no_port.
Port line_first(const View& v, unsigned mask) {
  for (Port p = 0; p < v.ports(); ++p)
    if (line_at(v, p, mask)) return p;
  return no_port;
}

/// NextDir(+1), as in hexagon formation: from the first head port leading to a line neighbour,
/// step counterclockwise around the labels while they lead to line neighbours; the direction of
/// the first one that does not (the next node of the walk along the line's surface). -1 without a
/// line neighbour at the head.
int line_next_dir(const View& v) {
  std::array<Port, 6> head{};
  const int count = v.head_ports(head);
  Port label = no_port;
  for (int i = 0; i < count && label == no_port; ++i)
    if (line_at(v, head[i], line_surface)) label = head[i];
  if (label == no_port) return -1;
  const int n = v.ports();
  for (int i = 0; i < n && line_at(v, label, line_surface); ++i) label = (label + 1) % n;
  return v.port_dir(label);
}

/// CanRetire: the port of a line neighbour whose line continues into this (contracted) amoebot:
/// the seed's dir or its opposite, a retired amoebot's dir; no_port if none. The seed points both
/// ways so that the line grows at both ends; a retired amoebot's opposite direction leads back
/// into the line, never to a root, so it is not asked.
Port line_receiving_port(const View& v) {
  for (Port p = 0; p < v.ports(); ++p) {
    if (!line_at(v, p, line_surface)) continue;
    const int dir = v.read(p, line_dir);
    if (dir < 0 || dir > 5) continue;
    if (v.neighbour_points_at(p, dir) != 0) return p;
    if (v.read(p, line_state) == seed && v.neighbour_points_at(p, (dir + 3) % 6) != 0) return p;
  }
  return no_port;
}

/// A neighbour whose parent leads to this amoebot's tail.
bool line_is_tail_child(const View& v, Port p) {
  if (!v.connected(p)) return false;
  const std::int8_t parent = v.read(p, line_parent);
  return parent >= 0 && v.neighbour_points_at(p, parent) == 2;
}

bool line_has_tail_child(const View& v) {
  for (Port p = 0; p < v.ports(); ++p)
    if (line_is_tail_child(v, p)) return true;
  return false;
}

/// The first of the tail's ports (counterclockwise from the head) leading to a contracted tail child.
Port line_contracted_tail_child(const View& v) {
  std::array<Port, 5> tail{};
  const int count = v.tail_ports(tail);
  for (int i = 0; i < count; ++i)
    if (line_is_tail_child(v, tail[i]) && v.neighbour_contracted(tail[i])) return tail[i];
  return no_port;
}

// α1: a contracted idle or follower amoebot next to the line becomes a root.
bool line_a1_guard(const View& v) {
  return v.contracted() && line_in(line_state_of(v), line_bit(idle) | line_bit(follower)) &&
         line_first(v, line_surface) != no_port;
}
void line_a1_run(View& v) {
  v.set(line_parent, -1);
  v.set(line_state, root);
  v.set(line_dir, static_cast<std::int8_t>(line_next_dir(v)));
}

// α2: an idle amoebot next to a follower or root joins the forest.
bool line_a2_guard(const View& v) { return line_state_of(v) == idle && line_first(v, line_tree) != no_port; }
void line_a2_run(View& v) {
  v.set(line_parent, static_cast<std::int8_t>(v.port_dir(line_first(v, line_tree))));
  v.set(line_state, follower);
}

// α3: a contracted root without idle neighbours on the node where the line continues retires; its
// dir continues the line: straight on, away from the line neighbour that pointed at it (hexagon
// formation's α3 turns around the hexagon here instead).
bool line_a3_guard(const View& v) {
  return v.contracted() && line_state_of(v) == root && line_first(v, line_idle) == no_port &&
         line_receiving_port(v) != no_port;
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
  if (!v.contracted() || line_state_of(v) != root) return false;
  const int dir = line_next_dir(v);
  return dir >= 0 && !v.connected(dir);
}
void line_a4_run(View& v) {
  const int dir = line_next_dir(v);
  v.set(line_dir, static_cast<std::int8_t>(dir));
  v.expand(dir);
}

// α5: an expanded follower or root without idle neighbours pulls a contracted tail child.
bool line_a5_guard(const View& v) {
  return v.expanded() && line_in(line_state_of(v), line_tree) && line_first(v, line_idle) == no_port &&
         line_contracted_tail_child(v) != no_port;
}
void line_a5_run(View& v) {
  if (line_state_of(v) == root) v.set(line_dir, static_cast<std::int8_t>(line_next_dir(v)));
  const Port child = line_contracted_tail_child(v);
  // After the handover the child's head is this amoebot's tail node; its parent is then the
  // direction from the tail to the head, in the child's frame.
  v.write(child, line_parent, static_cast<std::int8_t>(v.to_neighbour_dir(child, (v.tail_dir() + 3) % 6)));
  v.pull(child);
}

// α6: an expanded follower or root without idle neighbours or tail children contracts its tail.
bool line_a6_guard(const View& v) {
  return v.expanded() && line_in(line_state_of(v), line_tree) && line_first(v, line_idle) == no_port &&
         !line_has_tail_child(v);
}
void line_a6_run(View& v) {
  if (line_state_of(v) == root) v.set(line_dir, static_cast<std::int8_t>(line_next_dir(v)));
  v.contract_to_head();
}

void line_init(Memory& m, std::uint32_t index) {
  m = {};
  m.v[line_state] = index == 0 ? seed : idle;
  m.v[line_parent] = -1;
  m.v[line_dir] = index == 0 ? 0 : -1;  // the seed's local direction 0 chooses the axis
}

bool line_final(const Memory& m) { return m.v[line_state] == seed || m.v[line_state] == retired; }

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
      {{"alpha1", line_a1_guard, line_a1_run},
       {"alpha2", line_a2_guard, line_a2_run},
       {"alpha3", line_a3_guard, line_a3_run},
       {"alpha4", line_a4_guard, line_a4_run},
       {"alpha5", line_a5_guard, line_a5_run},
       {"alpha6", line_a6_guard, line_a6_run}},
      line_init,
      line_final,
      true,
      line_check_final,
      {"state", "parent", "dir"},
      {"seed", "idle", "follower", "root", "retired"}};
  return alg;
}

}  // namespace lmx::apps::amoebot
