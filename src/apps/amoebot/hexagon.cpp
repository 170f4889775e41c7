// Hexagon formation, the canonical amoebot paper's case study (docs/amoebot.md, "Hexagon
// formation"): a spanning forest of followers behind roots that walk along the hexagon's surface
// and retire where a retired (or the seed) amoebot's dir points. Written against the View only.
#include <array>

#include "lmx/apps/amoebot.hpp"

namespace lmx::apps::amoebot {

namespace {

constexpr unsigned hex_bit(HexagonState s) { return 1u << static_cast<unsigned>(s); }
constexpr unsigned hex_surface = hex_bit(seed) | hex_bit(retired);  ///< "hexagon neighbours"
constexpr unsigned hex_tree = hex_bit(follower) | hex_bit(root);
constexpr unsigned hex_idle = hex_bit(idle);

std::int8_t hex_state_of(const View& v) { return v.get(hex_state); }
bool hex_in(std::int8_t state, unsigned mask) { return state >= 0 && ((mask >> state) & 1u); }
bool hex_at(const View& v, Port p, unsigned mask) { return v.connected(p) && hex_in(v.read(p, hex_state), mask); }

/// The first port (in label order) leading to a neighbour whose state is in `mask`, or no_port.
Port hex_first(const View& v, unsigned mask) {
  for (Port p = 0; p < v.ports(); ++p)
    if (hex_at(v, p, mask)) return p;
  return no_port;
}

/// NextDir(o): from the first head port leading to a hexagon neighbour, step around the labels
/// in orientation o (+1 counterclockwise, -1 clockwise) while they lead to hexagon neighbours; the
/// direction of the first one that does not. -1 without a hexagon neighbour at the head.
int hex_next_dir(const View& v, int orientation) {
  std::array<Port, 6> head{};
  const int count = v.head_ports(head);
  Port label = no_port;
  for (int i = 0; i < count && label == no_port; ++i)
    if (hex_at(v, head[i], hex_surface)) label = head[i];
  if (label == no_port) return -1;
  const int n = v.ports();
  for (int i = 0; i < n && hex_at(v, label, hex_surface); ++i) label = (label + orientation + n) % n;
  return v.port_dir(label);
}

/// Some hexagon neighbour's dir leads to this amoebot.
bool hex_can_retire(const View& v) {
  for (Port p = 0; p < v.ports(); ++p)
    if (hex_at(v, p, hex_surface) && v.neighbour_points_at(p, v.read(p, hex_dir)) != 0) return true;
  return false;
}

/// A neighbour whose parent leads to this amoebot's tail.
bool hex_is_tail_child(const View& v, Port p) {
  if (!v.connected(p)) return false;
  const std::int8_t parent = v.read(p, hex_parent);
  return parent >= 0 && v.neighbour_points_at(p, parent) == 2;
}

bool hex_has_tail_child(const View& v) {
  for (Port p = 0; p < v.ports(); ++p)
    if (hex_is_tail_child(v, p)) return true;
  return false;
}

/// The first of the tail's ports (counterclockwise from the head) leading to a contracted tail child.
Port hex_contracted_tail_child(const View& v) {
  std::array<Port, 5> tail{};
  const int count = v.tail_ports(tail);
  for (int i = 0; i < count; ++i)
    if (hex_is_tail_child(v, tail[i]) && v.neighbour_contracted(tail[i])) return tail[i];
  return no_port;
}

// α1: a contracted idle or follower amoebot next to the hexagon becomes a root.
bool hex_a1_guard(const View& v) {
  return v.contracted() && hex_in(hex_state_of(v), hex_bit(idle) | hex_bit(follower)) &&
         hex_first(v, hex_surface) != no_port;
}
void hex_a1_run(View& v) {
  v.set(hex_parent, -1);
  v.set(hex_state, root);
  v.set(hex_dir, static_cast<std::int8_t>(hex_next_dir(v, +1)));
}

// α2: an idle amoebot next to a follower or root joins the forest.
bool hex_a2_guard(const View& v) { return hex_state_of(v) == idle && hex_first(v, hex_tree) != no_port; }
void hex_a2_run(View& v) {
  v.set(hex_parent, static_cast<std::int8_t>(v.port_dir(hex_first(v, hex_tree))));
  v.set(hex_state, follower);
}

// α3: a contracted root without idle neighbours that a hexagon amoebot's dir points at retires.
bool hex_a3_guard(const View& v) {
  return v.contracted() && hex_state_of(v) == root && hex_first(v, hex_idle) == no_port && hex_can_retire(v);
}
void hex_a3_run(View& v) {
  v.set(hex_dir, static_cast<std::int8_t>(hex_next_dir(v, -1)));
  v.set(hex_state, retired);
}

// α4: a contracted root expands along the surface when its dir node is empty.
bool hex_a4_guard(const View& v) {
  const int dir = v.get(hex_dir);
  return v.contracted() && hex_state_of(v) == root && dir >= 0 && !v.connected(dir);
}
void hex_a4_run(View& v) { v.expand(v.get(hex_dir)); }

// α5: an expanded follower or root without idle neighbours pulls a contracted tail child.
bool hex_a5_guard(const View& v) {
  return v.expanded() && hex_in(hex_state_of(v), hex_tree) && hex_first(v, hex_idle) == no_port &&
         hex_contracted_tail_child(v) != no_port;
}
void hex_a5_run(View& v) {
  if (hex_state_of(v) == root) v.set(hex_dir, static_cast<std::int8_t>(hex_next_dir(v, +1)));
  const Port child = hex_contracted_tail_child(v);
  // After the handover the child's head is this amoebot's tail node; its parent is then the
  // direction from the tail to the head, in the child's frame.
  v.write(child, hex_parent, static_cast<std::int8_t>(v.to_neighbour_dir(child, (v.tail_dir() + 3) % 6)));
  v.pull(child);
}

// α6: an expanded follower or root without idle neighbours or tail children contracts its tail.
bool hex_a6_guard(const View& v) {
  return v.expanded() && hex_in(hex_state_of(v), hex_tree) && hex_first(v, hex_idle) == no_port &&
         !hex_has_tail_child(v);
}
void hex_a6_run(View& v) {
  if (hex_state_of(v) == root) v.set(hex_dir, static_cast<std::int8_t>(hex_next_dir(v, +1)));
  v.contract_to_head();
}

void hex_init(Memory& m, std::uint32_t index) {
  m = {};
  m.v[hex_state] = index == 0 ? seed : idle;
  m.v[hex_parent] = -1;
  m.v[hex_dir] = index == 0 ? 0 : -1;
}

bool hex_final(const Memory& m) { return m.v[hex_state] == seed || m.v[hex_state] == retired; }

std::string hex_check_final(const Configuration& c) {
  const Amoebot* s = nullptr;
  for (const Amoebot& a : c.amoebots)
    if (a.memory.v[hex_state] == seed) {
      if (s != nullptr) return "more than one seed";
      s = &a;
    }
  if (s == nullptr) return "no seed";
  return check_hexagon(c, s->head);
}

}  // namespace

const Algorithm& hexagon_formation() {
  static const Algorithm alg{
      "hexagon",
      "hexagon formation (the canonical amoebot paper's case study): a hexagon grows around the seed",
      {{"alpha1", hex_a1_guard, hex_a1_run},
       {"alpha2", hex_a2_guard, hex_a2_run},
       {"alpha3", hex_a3_guard, hex_a3_run},
       {"alpha4", hex_a4_guard, hex_a4_run},
       {"alpha5", hex_a5_guard, hex_a5_run},
       {"alpha6", hex_a6_guard, hex_a6_run}},
      hex_init,
      hex_final,
      true,
      hex_check_final,
      {"state", "parent", "dir"},
      {"seed", "idle", "follower", "root", "retired"}};
  return alg;
}

const std::vector<const Algorithm*>& algorithms() {
  static const std::vector<const Algorithm*> all{&hexagon_formation(), &line_formation()};
  return all;
}

const Algorithm* find_algorithm(std::string_view name) {
  for (const Algorithm* a : algorithms())
    if (a->name == name) return a;
  return nullptr;
}

Configuration initial_configuration(const Algorithm& alg, std::uint32_t n, double hole_prob, std::uint64_t seed) {
  Configuration c = random_configuration(n, hole_prob, seed);
  for (std::uint32_t i = 0; i < c.amoebots.size(); ++i) alg.init(c.amoebots[i].memory, i);
  return c;
}

}  // namespace lmx::apps::amoebot
