// The spanning-forest scheme shared by hexagon and line formation (docs/amoebot.md): states
// seed, idle, follower, root, retired in variable 0, parent in 1, dir in 2; roots walk along the
// surface of the structure (the seed and the retired amoebots) with followers behind them. The
// helpers read through the View only. Each algorithm keeps its own α3 and α4.
#pragma once

#include <array>

#include "lmx/apps/amoebot.hpp"

namespace lmx::apps::amoebot::forest {

constexpr unsigned bit(HexagonState s) { return 1u << static_cast<unsigned>(s); }
constexpr unsigned surface = bit(seed) | bit(retired);  ///< the structure built so far
constexpr unsigned tree = bit(follower) | bit(root);
constexpr unsigned idle_mask = bit(idle);

inline std::int8_t state_of(const View& v) { return v.get(hex_state); }
inline bool in(std::int8_t state, unsigned mask) { return state >= 0 && ((mask >> state) & 1u); }
inline bool at(const View& v, Port p, unsigned mask) { return v.connected(p) && in(v.read(p, hex_state), mask); }

/// The first port (in label order) leading to a neighbour whose state is in `mask`, or no_port.
inline Port first(const View& v, unsigned mask) {
  for (Port p = 0; p < v.ports(); ++p)
    if (at(v, p, mask)) return p;
  return no_port;
}

/// NextDir(o): from the first head port leading to a surface neighbour, step around the labels in
/// orientation o (+1 counterclockwise, -1 clockwise) while they lead to surface neighbours; the
/// direction of the first one that does not. -1 without a surface neighbour at the head.
inline int next_dir(const View& v, int orientation) {
  std::array<Port, 6> head{};
  const int count = v.head_ports(head);
  Port label = no_port;
  for (int i = 0; i < count && label == no_port; ++i)
    if (at(v, head[i], surface)) label = head[i];
  if (label == no_port) return -1;
  const int n = v.ports();
  for (int i = 0; i < n && at(v, label, surface); ++i) label = (label + orientation + n) % n;
  return v.port_dir(label);
}

/// A neighbour whose parent leads to this amoebot's tail.
inline bool is_tail_child(const View& v, Port p) {
  if (!v.connected(p)) return false;
  const std::int8_t parent = v.read(p, hex_parent);
  return parent >= 0 && v.neighbour_points_at(p, parent) == 2;
}

inline bool has_tail_child(const View& v) {
  for (Port p = 0; p < v.ports(); ++p)
    if (is_tail_child(v, p)) return true;
  return false;
}

/// The first of the tail's ports (counterclockwise from the head) leading to a contracted tail child.
inline Port contracted_tail_child(const View& v) {
  std::array<Port, 5> tail{};
  const int count = v.tail_ports(tail);
  for (int i = 0; i < count; ++i)
    if (is_tail_child(v, tail[i]) && v.neighbour_contracted(tail[i])) return tail[i];
  return no_port;
}

// The rules both algorithms share.
/// α1: a contracted idle or follower amoebot next to the structure becomes a root.
inline bool a1_guard(const View& v) {
  return v.contracted() && in(state_of(v), bit(idle) | bit(follower)) && first(v, surface) != no_port;
}
inline void a1_run(View& v) {
  v.set(hex_parent, -1);
  v.set(hex_state, root);
  v.set(hex_dir, static_cast<std::int8_t>(next_dir(v, +1)));
}
/// α2: an idle amoebot next to a follower or root joins the forest.
inline bool a2_guard(const View& v) { return state_of(v) == idle && first(v, tree) != no_port; }
inline void a2_run(View& v) {
  v.set(hex_parent, static_cast<std::int8_t>(v.port_dir(first(v, tree))));
  v.set(hex_state, follower);
}
/// α5: an expanded follower or root without idle neighbours pulls a contracted tail child.
inline bool a5_guard(const View& v) {
  return v.expanded() && in(state_of(v), tree) && first(v, idle_mask) == no_port && contracted_tail_child(v) != no_port;
}
inline void a5_run(View& v) {
  if (state_of(v) == root) v.set(hex_dir, static_cast<std::int8_t>(next_dir(v, +1)));
  const Port child = contracted_tail_child(v);
  // After the handover the child's head is this amoebot's tail node; its parent is then the
  // direction from the tail to the head, in the child's frame.
  v.write(child, hex_parent, static_cast<std::int8_t>(v.to_neighbour_dir(child, (v.tail_dir() + 3) % 6)));
  v.pull(child);
}
/// α6: an expanded follower or root without idle neighbours or tail children contracts its tail.
inline bool a6_guard(const View& v) {
  return v.expanded() && in(state_of(v), tree) && first(v, idle_mask) == no_port && !has_tail_child(v);
}
inline void a6_run(View& v) {
  if (state_of(v) == root) v.set(hex_dir, static_cast<std::int8_t>(next_dir(v, +1)));
  v.contract_to_head();
}

/// The seed (index 0) and idle amoebots; the seed's dir is its local direction 0.
inline void init(Memory& m, std::uint32_t index) {
  m = {};
  m.v[hex_state] = index == 0 ? seed : idle;
  m.v[hex_parent] = -1;
  m.v[hex_dir] = index == 0 ? 0 : -1;
}
inline bool final_state(const Memory& m) { return m.v[hex_state] == seed || m.v[hex_state] == retired; }

}  // namespace lmx::apps::amoebot::forest
