// The canonical amoebot model (docs/amoebot.md, "The model"): the lattice, port labels, random
// configurations, the checks, the system's occupancy and operations, and the View.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <unordered_map>

#include "lmx/apps/amoebot.hpp"
#include "sim/rng.hpp"

namespace lmx::apps::amoebot {

namespace {

std::string node_text(Node n) { return "(" + std::to_string(n.x) + ", " + std::to_string(n.y) + ")"; }

std::uint64_t node_key(Node n) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(n.x)) << 32) | static_cast<std::uint32_t>(n.y);
}

/// The expanded labelling, computed from the geometry once: per local tail direction, per label,
/// where the port sits; and back.
struct ExpandedLabels {
  std::array<std::array<PortPlace, 10>, 6> place{};
  std::array<std::array<std::array<std::int8_t, 6>, 2>, 6> label{};
  ExpandedLabels() {
    for (int t = 0; t < 6; ++t) {
      // Counterclockwise around the outline: the head's ports from just after the tail, then the
      // tail's from just after the head (the internal edge is neither's port).
      std::array<PortPlace, 10> cycle{};
      for (int k = 1; k <= 5; ++k) cycle[k - 1] = {false, (t + k) % 6};
      for (int k = 0; k < 5; ++k) cycle[5 + k] = {true, (t + 4 + k) % 6};
      // Label 0: the direction-0 port of the node lying further in direction 0 (the tail when
      // the tail direction has a positive component along direction 0).
      const bool tail_further = t == 0 || t == 1 || t == 5;
      int start = 0;
      for (int i = 0; i < 10; ++i)
        if (cycle[i].at_tail == tail_further && cycle[i].dir == 0) start = i;
      for (auto& side : label[t]) side.fill(-1);
      for (int l = 0; l < 10; ++l) {
        place[t][l] = cycle[(start + l) % 10];
        label[t][place[t][l].at_tail ? 1 : 0][place[t][l].dir] = static_cast<std::int8_t>(l);
      }
    }
  }
};
const ExpandedLabels& expanded_labels() {
  static const ExpandedLabels table;
  return table;
}

int hexagon_radius_for(std::uint64_t n) {
  int r = 0;
  while (1 + 3ull * (r + 1) * (r + 2) <= n) ++r;
  return r;
}

}  // namespace

int distance(Node a, Node b) {
  const int dx = b.x - a.x, dy = b.y - a.y;
  return (std::abs(dx) + std::abs(dy) + std::abs(dx + dy)) / 2;
}

int direction_between(Node a, Node b) {
  for (int d = 0; d < 6; ++d)
    if (step(a, d) == b) return d;
  return -1;
}

PortPlace expanded_port(int tail_dir, Port label) { return expanded_labels().place[tail_dir][label]; }

Port expanded_label(int tail_dir, bool at_tail, int dir) { return expanded_labels().label[tail_dir][at_tail][dir]; }

// ---------------------------------------------------------------------------------------------
// Configurations and checks.

Configuration random_configuration(std::uint32_t n, double hole_prob, std::uint64_t seed) {
  if (n == 0) throw ModelError("n: must be at least 1");
  if (!(hole_prob >= 0 && hole_prob < 1)) throw ModelError("hole probability: must be in [0, 1)");
  sim::Rng rng(seed, sim::topology_stream);
  Configuration c;
  c.amoebots.reserve(n);
  std::unordered_map<std::uint64_t, std::uint8_t> state;  // 1 occupied, 2 candidate
  std::vector<Node> candidates;
  auto add = [&](Node at) {
    c.amoebots.push_back({at, at, static_cast<int>(rng.below(6)), {}});
    state[node_key(at)] = 1;
    for (int d = 0; d < 6; ++d) {
      const Node m = step(at, d);
      auto [it, fresh] = state.try_emplace(node_key(m), 2);
      if (fresh || it->second == 0) it->second = 2, candidates.push_back(m);
    }
  };
  add({0, 0});
  while (c.amoebots.size() < n) {
    if (candidates.empty()) {
      // Every candidate was skipped: every empty node next to a placed amoebot is one again.
      for (const Amoebot& a : c.amoebots)
        for (int d = 0; d < 6; ++d) {
          auto& s = state[node_key(step(a.head, d))];
          if (s == 0) s = 2, candidates.push_back(step(a.head, d));
        }
    }
    const std::uint32_t i = rng.below(static_cast<std::uint32_t>(candidates.size()));
    const Node at = candidates[i];
    candidates[i] = candidates.back();
    candidates.pop_back();
    state[node_key(at)] = 0;
    if (rng.chance(1.0 - hole_prob)) add(at);
  }
  return c;
}

std::string check_positions(const Configuration& c) {
  std::unordered_map<std::uint64_t, std::size_t> owner;
  for (std::size_t i = 0; i < c.amoebots.size(); ++i) {
    const Amoebot& a = c.amoebots[i];
    if (a.compass < 0 || a.compass > 5) return "amoebot " + std::to_string(i) + ": compass offset not in 0..5";
    if (!a.contracted() && direction_between(a.head, a.tail) < 0)
      return "amoebot " + std::to_string(i) + " is expanded over non-adjacent nodes " + node_text(a.head) + " and " +
             node_text(a.tail);
    for (int k = 0; k < (a.contracted() ? 1 : 2); ++k) {
      const Node n = k == 0 ? a.head : a.tail;
      auto [it, fresh] = owner.try_emplace(node_key(n), i);
      if (!fresh)
        return "two amoebots on one node: " + std::to_string(it->second) + " and " + std::to_string(i) + " at " +
               node_text(n);
    }
  }
  return {};
}

bool is_connected(const Configuration& c) {
  if (c.amoebots.empty()) return true;
  std::unordered_map<std::uint64_t, bool> occupied;  // node -> reached
  for (const Amoebot& a : c.amoebots) occupied[node_key(a.head)] = false, occupied[node_key(a.tail)] = false;
  std::vector<Node> stack{c.amoebots[0].head};
  occupied[node_key(c.amoebots[0].head)] = true;
  std::size_t reached = 1;
  while (!stack.empty()) {
    const Node at = stack.back();
    stack.pop_back();
    for (int d = 0; d < 6; ++d) {
      const Node m = step(at, d);
      auto it = occupied.find(node_key(m));
      if (it != occupied.end() && !it->second) it->second = true, ++reached, stack.push_back(m);
    }
  }
  return reached == occupied.size();
}

std::string check_hexagon(const Configuration& c, Node center) {
  const std::uint64_t n = c.amoebots.size();
  const int r = hexagon_radius_for(n);  // rings 0..r full
  const std::uint64_t full = 1 + 3ull * r * (r + 1);
  std::vector<std::uint64_t> per_ring(r + 2, 0);
  std::unordered_map<std::uint64_t, bool> outer;
  for (std::size_t i = 0; i < n; ++i) {
    const Amoebot& a = c.amoebots[i];
    if (!a.contracted()) return "amoebot " + std::to_string(i) + " is expanded";
    const int k = distance(center, a.head);
    if (k > r + 1)
      return "amoebot " + std::to_string(i) + " at " + node_text(a.head) + " lies on ring " + std::to_string(k) +
             ", beyond ring " + std::to_string(r + 1);
    ++per_ring[k];
    if (k == r + 1) outer[node_key(a.head)] = true;
  }
  for (int k = 0; k <= r; ++k) {
    const std::uint64_t want = k == 0 ? 1 : 6ull * k;
    if (per_ring[k] != want)
      return "ring " + std::to_string(k) + " holds " + std::to_string(per_ring[k]) + " of its " + std::to_string(want) +
             " nodes";
  }
  if (per_ring[r + 1] != n - full) return "the outer ring holds the wrong number of amoebots";
  if (outer.empty()) return {};
  // The outer ring in cyclic order; its occupied nodes must form one run.
  const int k = r + 1;
  std::vector<bool> on;
  Node at{center.x + k * directions[4].x, center.y + k * directions[4].y};
  for (int side = 0; side < 6; ++side)
    for (int j = 0; j < k; ++j) on.push_back(outer.count(node_key(at)) != 0), at = step(at, side);
  int runs = 0;
  for (std::size_t i = 0; i < on.size(); ++i)
    if (on[i] && !on[(i + on.size() - 1) % on.size()]) ++runs;
  if (runs > 1) return "the outer ring's " + std::to_string(outer.size()) + " amoebots are not one contiguous arc";
  return {};
}

// ---------------------------------------------------------------------------------------------
// The system.

System::System(const Configuration& c) {
  if (std::string why = check_positions(c); !why.empty()) throw ModelError(why);
  if (c.amoebots.empty()) throw ModelError("a system needs at least one amoebot");
  std::int32_t lo_x = c.amoebots[0].head.x, hi_x = lo_x, lo_y = c.amoebots[0].head.y, hi_y = lo_y;
  for (const Amoebot& a : c.amoebots)
    for (const Node n : {a.head, a.tail})
      lo_x = std::min(lo_x, n.x), hi_x = std::max(hi_x, n.x), lo_y = std::min(lo_y, n.y), hi_y = std::max(hi_y, n.y);
  // A margin of a hexagon's radius for all the amoebots: room for the shapes the algorithms build
  // around a node of the start; the window grows should an amoebot reach its border anyway.
  const std::int32_t margin = hexagon_radius_for(c.amoebots.size()) + 4;
  x0_ = lo_x - margin, y0_ = lo_y - margin;
  width_ = static_cast<std::uint32_t>(hi_x - lo_x + 1 + 2 * margin);
  height_ = static_cast<std::uint32_t>(hi_y - lo_y + 1 + 2 * margin);
  const std::int64_t w = width_;
  delta_ = {1, w, w - 1, -1, -w, 1 - w};
  occ_.assign(std::size_t{width_} * height_, 0);
  seen_.assign(occ_.size(), 0);
  body_.resize(c.amoebots.size());
  memory_.resize(c.amoebots.size());
  for (AmoebotId i = 0; i < c.amoebots.size(); ++i) {
    const Amoebot& a = c.amoebots[i];
    Body& b = body_[i];
    b.head = index_of(a.head), b.tail = index_of(a.tail);
    b.tail_dir = static_cast<std::int8_t>(a.contracted() ? -1 : direction_between(a.head, a.tail));
    b.compass = static_cast<std::uint8_t>(a.compass);
    memory_[i] = a.memory;
    place(i, b.head), place(i, b.tail);
  }
}

std::uint32_t System::index_of(Node n) const {
  return static_cast<std::uint32_t>(std::int64_t{n.y - y0_} * width_ + (n.x - x0_));
}

Node System::node_of(std::uint32_t n) const {
  return {static_cast<std::int32_t>(n % width_) + x0_, static_cast<std::int32_t>(n / width_) + y0_};
}

Configuration System::snapshot() const {
  Configuration c;
  c.amoebots.reserve(body_.size());
  for (AmoebotId i = 0; i < body_.size(); ++i) c.amoebots.push_back(amoebot(i));
  return c;
}

Amoebot System::amoebot(AmoebotId a) const {
  const Body& b = body_[a];
  return {node_of(b.head), node_of(b.tail), b.compass, memory_[a]};
}

AmoebotId System::at(Node n) const {
  if (n.x <= x0_ || n.y <= y0_ || n.x >= x0_ + std::int32_t(width_) - 1 || n.y >= y0_ + std::int32_t(height_) - 1)
    return no_amoebot;
  return occ_[index_of(n)] - 1;
}

void System::grow_if_near_border(std::uint32_t n) {
  const std::uint32_t x = n % width_, y = n / width_;
  if (x > 0 && y > 0 && x + 1 < width_ && y + 1 < height_) return;
  // Rebuild the window with a wider margin; node indices change, nothing else does.
  std::vector<std::pair<Node, Node>> at(body_.size());
  for (AmoebotId i = 0; i < body_.size(); ++i) at[i] = {node_of(body_[i].head), node_of(body_[i].tail)};
  std::vector<Node> vacated_nodes;
  for (const std::uint32_t v : vacated_) vacated_nodes.push_back(node_of(v));
  const std::int32_t extra = static_cast<std::int32_t>(std::max(width_, height_) / 2 + 8);
  x0_ -= extra, y0_ -= extra;
  width_ += 2 * extra, height_ += 2 * extra;
  const std::int64_t w = width_;
  delta_ = {1, w, w - 1, -1, -w, 1 - w};
  occ_.assign(std::size_t{width_} * height_, 0);
  seen_.assign(occ_.size(), 0);
  stamp_ = 0;
  for (AmoebotId i = 0; i < body_.size(); ++i) {
    body_[i].head = index_of(at[i].first), body_[i].tail = index_of(at[i].second);
    place(i, body_[i].head), place(i, body_[i].tail);
  }
  for (std::size_t i = 0; i < vacated_.size(); ++i) vacated_[i] = index_of(vacated_nodes[i]);
}

std::uint32_t System::port_origin(AmoebotId a, Port p) const {
  const Body& b = body_[a];
  if (b.tail_dir < 0) return p >= 0 && p < 6 ? b.head : bad_index;
  if (p < 0 || p >= 10) return bad_index;
  const int t = (b.tail_dir - b.compass + 6) % 6;
  return expanded_labels().place[t][p].at_tail ? b.tail : b.head;
}

std::uint32_t System::port_target(AmoebotId a, Port p) const {
  const Body& b = body_[a];
  if (b.tail_dir < 0) {
    if (p < 0 || p >= 6) return bad_index;
    return static_cast<std::uint32_t>(b.head + delta_[(b.compass + p) % 6]);
  }
  if (p < 0 || p >= 10) return bad_index;
  const int t = (b.tail_dir - b.compass + 6) % 6;
  const PortPlace& pl = expanded_labels().place[t][p];
  return static_cast<std::uint32_t>((pl.at_tail ? b.tail : b.head) + delta_[(b.compass + pl.dir) % 6]);
}

Port System::far_port(AmoebotId a, Port p) const {
  const std::uint32_t target = port_target(a, p);
  if (target == bad_index || occ_[target] == 0) return no_port;
  const Body& me = body_[a];
  const int dir = me.tail_dir < 0 ? p : expanded_labels().place[(me.tail_dir - me.compass + 6) % 6][p].dir;
  const int back = ((me.compass + dir) % 6 + 3) % 6;  // global, from the target to a
  const Body& nb = body_[occ_[target] - 1];
  const int local = (back - nb.compass + 6) % 6;
  if (nb.tail_dir < 0) return local;
  return expanded_label((nb.tail_dir - nb.compass + 6) % 6, target == nb.tail && target != nb.head, local);
}

int System::neighbours(AmoebotId a, std::array<AmoebotId, 10>& out) const {
  int count = 0;
  for (Port p = 0; p < ports(a); ++p) {
    const AmoebotId b = neighbour(a, p);
    if (b == no_amoebot || std::find(out.begin(), out.begin() + count, b) != out.begin() + count) continue;
    out[count++] = b;
  }
  return count;
}

bool System::expand(AmoebotId a, Port p) {
  Body& b = body_[a];
  if (b.tail_dir >= 0 || p < 0 || p >= 6) return false;
  const int g = (b.compass + p) % 6;
  const auto target = static_cast<std::uint32_t>(b.head + delta_[g]);
  if (occ_[target] != 0) return false;
  b.tail = b.head, b.head = target, b.tail_dir = static_cast<std::int8_t>((g + 3) % 6);
  place(a, target);
  ++moves_;
  grow_if_near_border(target);
  return true;
}

bool System::contract_to_head(AmoebotId a) {
  Body& b = body_[a];
  if (b.tail_dir < 0) return false;
  occ_[b.tail] = 0;
  vacated_.push_back(b.tail);
  b.tail = b.head, b.tail_dir = -1;
  ++moves_;
  return true;
}

bool System::contract_to_tail(AmoebotId a) {
  Body& b = body_[a];
  if (b.tail_dir < 0) return false;
  occ_[b.head] = 0;
  vacated_.push_back(b.head);
  b.head = b.tail, b.tail_dir = -1;
  ++moves_;
  return true;
}

bool System::pull(AmoebotId a, Port p) {
  Body& b = body_[a];
  if (b.tail_dir < 0) return false;
  const std::uint32_t target = port_target(a, p);
  if (target == bad_index || occ_[target] == 0) return false;
  const AmoebotId other = occ_[target] - 1;
  Body& o = body_[other];
  if (o.tail_dir >= 0) return false;
  const std::uint32_t handover = port_origin(a, p);
  const int t = (b.tail_dir - b.compass + 6) % 6;
  const int pull_dir = (b.compass + expanded_labels().place[t][p].dir) % 6;  // global, handover -> other
  if (handover == b.head) {
    b.head = b.tail;
  } else {
    b.tail = b.head;
  }
  b.tail_dir = -1;
  o.head = handover, o.tail_dir = static_cast<std::int8_t>(pull_dir);
  place(other, handover);
  moves_ += 2;
  return true;
}

bool System::push(AmoebotId a, Port p) {
  Body& b = body_[a];
  if (b.tail_dir >= 0 || p < 0 || p >= 6) return false;
  const int g = (b.compass + p) % 6;
  const auto target = static_cast<std::uint32_t>(b.head + delta_[g]);
  if (occ_[target] == 0) return false;
  const AmoebotId other = occ_[target] - 1;
  Body& o = body_[other];
  if (o.tail_dir < 0) return false;
  if (target == o.head) o.head = o.tail;
  o.tail = o.head, o.tail_dir = -1;
  b.tail = b.head, b.head = target, b.tail_dir = static_cast<std::int8_t>((g + 3) % 6);
  place(a, target);
  moves_ += 2;
  return true;
}

bool System::still_connected_after_vacating(std::uint32_t v) const {
  std::array<bool, 6> on{};
  for (int d = 0; d < 6; ++d) on[d] = occ_[neighbour_index(v, d)] != 0;
  std::array<std::uint32_t, 3> reps{};
  int arcs = 0;
  for (int d = 0; d < 6; ++d)
    if (on[d] && !on[(d + 5) % 6]) reps[arcs++] = neighbour_index(v, d);
  if (arcs <= 1) return true;
  // Two or three arcs around v: search from the first for the others.
  if (++stamp_ == 0) std::fill(seen_.begin(), seen_.end(), 0), stamp_ = 1;
  int found = 1;
  std::vector<std::uint32_t> stack{reps[0]};
  seen_[reps[0]] = stamp_;
  seen_[v] = stamp_;  // vacated: never entered
  while (!stack.empty()) {
    const std::uint32_t at = stack.back();
    stack.pop_back();
    for (int d = 0; d < 6; ++d) {
      const std::uint32_t m = neighbour_index(at, d);
      if (occ_[m] == 0 || seen_[m] == stamp_) continue;
      seen_[m] = stamp_;
      for (int i = 1; i < arcs; ++i)
        if (m == reps[i] && ++found == arcs) return true;
      stack.push_back(m);
    }
  }
  return false;
}

std::string System::check_amoebot(AmoebotId a) const {
  const Body& b = body_[a];
  const std::string who = "amoebot " + std::to_string(a);
  if (occ_[b.head] != a + 1) return "two amoebots on one node: " + who + "'s head " + node_text(node_of(b.head));
  if (occ_[b.tail] != a + 1) return "two amoebots on one node: " + who + "'s tail " + node_text(node_of(b.tail));
  if (b.tail_dir < 0 ? b.tail != b.head : b.tail != neighbour_index(b.head, b.tail_dir))
    return who + "'s head and tail are not one node (contracted) or two adjacent nodes (expanded)";
  return {};
}

// ---------------------------------------------------------------------------------------------
// The View.

int View::tail_dir() const {
  const System::Body& b = s_.body(me_);
  return b.tail_dir < 0 ? -1 : (b.tail_dir - b.compass + 6) % 6;
}

int View::head_ports(std::array<Port, 6>& out) const {
  const int t = tail_dir();
  if (t < 0) {
    for (int p = 0; p < 6; ++p) out[p] = p;
    return 6;
  }
  for (int k = 1; k <= 5; ++k) out[k - 1] = expanded_label(t, false, (t + k) % 6);
  return 5;
}

int View::tail_ports(std::array<Port, 5>& out) const {
  const int t = tail_dir();
  if (t < 0) return 0;
  for (int k = 0; k < 5; ++k) out[k] = expanded_label(t, true, (t + 4 + k) % 6);
  return 5;
}

int View::port_dir(Port p) const {
  const int t = tail_dir();
  return t < 0 ? p : expanded_port(t, p).dir;
}

void View::check_scope(AmoebotId a) const {
  if (scope_.empty() || a == me_) return;
  if (std::find(scope_.begin(), scope_.end(), a) == scope_.end())
    throw ScopeError("amoebot " + std::to_string(me_) + " touched amoebot " + std::to_string(a) +
                     ", outside its allowed set (the lock set)");
}

AmoebotId View::other(Port p) const {
  const AmoebotId a = s_.neighbour(me_, p);
  if (a == no_amoebot)
    throw ScopeError("amoebot " + std::to_string(me_) + " read or wrote through port " + std::to_string(p) +
                     ", which leads to no neighbour");
  check_scope(a);
  return a;
}

void View::touch(AmoebotId a) {
  for (std::uint32_t i = 0; i < touched_count_; ++i)
    if (touched_[i] == a) return;
  if (touched_count_ < touched_.size()) touched_[touched_count_++] = a;
}

void View::write(Port p, unsigned var, std::int8_t value) {
  const AmoebotId a = other(p);
  s_.memory(a).v[var] = value;
  touch(a);
}

int View::neighbour_points_at(Port p, int dir) const {
  const AmoebotId a = other(p);
  if (dir < 0 || dir > 5) return 0;
  const System::Body& nb = s_.body(a);
  const std::uint32_t reached = s_.neighbour_index(nb.head, (nb.compass + dir) % 6);
  const System::Body& me = s_.body(me_);
  if (reached == me.head) return 1;
  if (reached == me.tail) return 2;
  return 0;
}

int View::to_neighbour_dir(Port p, int dir) const {
  const AmoebotId a = other(p);
  return (s_.body(me_).compass + dir - s_.body(a).compass + 12) % 6;
}

bool View::moved(bool ok, std::uint32_t moves) {
  if (ok) {
    moves_ += moves;
  } else {
    ++failed_;
  }
  return ok;
}

bool View::expand(Port p) { return moved(s_.expand(me_, p), 1); }
bool View::contract_to_head() { return moved(s_.contract_to_head(me_), 1); }
bool View::contract_to_tail() { return moved(s_.contract_to_tail(me_), 1); }

bool View::pull(Port p) {
  const AmoebotId a = s_.neighbour(me_, p);
  if (a != no_amoebot) check_scope(a);
  const bool ok = s_.pull(me_, p);
  if (ok) partner_ = a, touch(a);
  return moved(ok, 2);
}

bool View::push(Port p) {
  const AmoebotId a = s_.neighbour(me_, p);
  if (a != no_amoebot) check_scope(a);
  const bool ok = s_.push(me_, p);
  if (ok) partner_ = a, touch(a);
  return moved(ok, 2);
}

}  // namespace lmx::apps::amoebot
