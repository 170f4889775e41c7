// What a scenario will cost before it runs (simulation.hpp, estimate_memory_bytes): `lmx run`
// refuses a run that cannot fit the machine before allocating anything.
#include <algorithm>
#include <cmath>
#include <numbers>

#include "channel.hpp"
#include "dynamics.hpp"
#include "lmx/sim/simulation.hpp"
#include "node_states.hpp"
#include "topology.hpp"

namespace lmx::sim {

/// The record of one action prepared ahead in a pipelined round (engine.cpp).
std::size_t pipeline_record_bytes(unsigned delta);

namespace {
std::size_t state_bytes(unsigned delta) {
  if (delta == 8) return sizeof(PackedState);  // the engine built for Delta = 8 packs (node_states.hpp)
  switch (core::register_bits_for(delta)) {
    case 8: return sizeof(core::State8);
    case 16: return sizeof(core::State16);
    case 32: return sizeof(core::State32);
    default: return sizeof(core::State64);
  }
}
}  // namespace

std::uint64_t estimate_memory_bytes(const Scenario& s, bool tracing, unsigned threads) {
  const double n = s.nodes, delta = s.delta, word = core::register_bits_for(s.delta) / 8.0;
  // The engine's arrays (network.hpp, workload.hpp, monitors.hpp), per node.
  // The far ends: 5 bytes a port, 4 in the engine built for Delta = 8 (network.hpp, packed_far_ends).
  const double far_ends = (s.delta == 8 ? 4 : 5) * delta;
  // Then the channels (one record a node, channel.hpp), the application's record (12), the
  // monitors' holder as a port (1) and a byte of flags.
  const double channels = double(ChannelFields{s.delta + 1}.stride());
  double per_node = double(state_bytes(s.delta)) + 3 * word + far_ends + channels + 12 + 1 + 1;
  if (tracing) per_node += 16 * (delta + 1);  // message ids
  // P7's queue of Lock calls: at most about two entries of 8 bytes a node (monitors.hpp).
  if (s.workload.kind == WorkloadKind::automatic) per_node += 16 * s.workload.participation;
  if (s.engine == EngineKind::async) per_node += 32;  // the executions' queue
  // Deferred writes: at most n waiting (4 bytes each), the lists' capacities about twice that.
  if (s.engine == EngineKind::semi_sync) per_node += 8;
  const bool geometric = s.topology.kind == TopologyKind::unit_disk || s.topology.kind == TopologyKind::mobility;
  // Positions; mobility adds waypoints, its plan's view of the ports and the ports its pair scan
  // confirms (dynamics.hpp: 1, 2 or 8 bytes as Delta needs).
  if (geometric)
    per_node += s.topology.kind == TopologyKind::mobility ? 44 + (delta <= 8 ? 1 : delta <= 16 ? 2 : 8) : 16;
  // The plan made ahead on a second thread moves nodes to a second array of positions.
  if (s.topology.kind == TopologyKind::mobility && threads >= 2) per_node += 16;
  // Asynchronous rounds taken out of the calendar on a second thread: two rounds' schedules, room
  // for 1.25 executions of 4 bytes per node each.
  if (s.engine == EngineKind::async && threads >= 2 && !tracing && s.nodes >= Dynamics::min_nodes_ahead) per_node += 10;
  // A pipelined semi-synchronous round (RunOptions::threads): a record per activated node, the
  // monitors' view of the locks (2 bytes a node) and a second set of deferred-write lists, the
  // cap on both sets twice the one-thread scan's (network.hpp, pipelined_cap_).
  const bool scans = s.engine == EngineKind::semi_sync && s.activation.kind != ActivationKind::sequential;
  if (scans && !tracing && (s.nodes >> 14) > 0 && threads >= (s.topology.kind == TopologyKind::mobility ? 3u : 2u)) {
    const double activated = s.activation.kind == ActivationKind::random ? s.activation.p : 1.0;
    per_node += activated * double(pipeline_record_bytes(s.delta)) + 2 + 24;
  }
  // The initial topology while it is built: node pairs of 8 bytes.
  double pairs = 0;
  if (s.topology.kind == TopologyKind::regular)  // the stubs, shuffled in place as the edges
    pairs = n * (s.topology.degree ? s.topology.degree : delta) / 2;
  if (s.topology.kind == TopologyKind::ring || s.topology.kind == TopologyKind::grid) pairs = 2 * n;
  if (s.topology.kind == TopologyKind::edges) pairs = double(s.topology.edges.size()) * 2 + 2 * n * delta;
  if (geometric) {
    // Pairs within distance r of uniform points: about n^2 pi r^2 / 2, plus the cell grid.
    const double r = std::min(s.topology.radius, 1.0);
    pairs = n * (n - 1) / 2 * std::min(1.0, std::numbers::pi * r * r) * 2 + n;
    const double cells = CellGrid::cells_per_side(n, r);
    per_node += 4 + cells * cells * 24 / n;
  }
  // The pairs are freed before the channel records are allocated (engine.cpp), so the peak holds
  // only one of them; both are counted, a margin for what the terms above leave out (at 10^6 nodes
  // the main job's peak was 8 % above them without the pairs).
  const double bytes = n * per_node + pairs * 8 + (64 << 20);  // and the program itself
  return bytes >= 1.8e19 ? UINT64_MAX : static_cast<std::uint64_t>(bytes);
}

}  // namespace lmx::sim
