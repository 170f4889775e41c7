// Hexagon formation, the canonical amoebot paper's case study (docs/amoebot.md, "Hexagon
// formation"): a spanning forest of followers behind roots that walk along the hexagon's surface
// and retire where a retired (or the seed) amoebot's dir points. Written against the View only.
#include <array>

#include "forest.hpp"
#include "lmx/apps/amoebot.hpp"

namespace lmx::apps::amoebot {

namespace {

using namespace forest;  // NOLINT: the shared spanning-forest helpers and rules α1, α2, α5, α6

/// CanRetire: some surface neighbour's dir leads to this amoebot.
bool hex_can_retire(const View& v) {
  for (Port p = 0; p < v.ports(); ++p)
    if (at(v, p, surface) && v.neighbour_points_at(p, v.read(p, hex_dir)) != 0) return true;
  return false;
}

// α3: a contracted root without idle neighbours that a hexagon amoebot's dir points at retires;
// its dir turns around the hexagon (NextDir(-1)).
bool hex_a3_guard(const View& v) {
  return v.contracted() && state_of(v) == root && first(v, idle_mask) == no_port && hex_can_retire(v);
}
void hex_a3_run(View& v) {
  v.set(hex_dir, static_cast<std::int8_t>(next_dir(v, -1)));
  v.set(hex_state, retired);
}

// α4: a contracted root expands along the surface when its dir node is empty.
bool hex_a4_guard(const View& v) {
  const int dir = v.get(hex_dir);
  return v.contracted() && state_of(v) == root && dir >= 0 && !v.connected(dir);
}
void hex_a4_run(View& v) { v.expand(v.get(hex_dir)); }

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
      {{"alpha1", forest::a1_guard, forest::a1_run},
       {"alpha2", forest::a2_guard, forest::a2_run},
       {"alpha3", hex_a3_guard, hex_a3_run},
       {"alpha4", hex_a4_guard, hex_a4_run},
       {"alpha5", forest::a5_guard, forest::a5_run},
       {"alpha6", forest::a6_guard, forest::a6_run}},
      forest::init,
      forest::final_state,
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
