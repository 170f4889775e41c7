// The Delta = 8 engine's packed node states (node_states.hpp): every field of Table 1 through a
// round trip, the fields read without unpacking, and what the packing cannot hold refused.
// (fixed_delta_test.cpp checks that runs with packed states are the generic engine's runs.)
#include "sim/node_states.hpp"

#include <gtest/gtest.h>

#include <random>
#include <stdexcept>

namespace lmx::sim {
namespace {

using State = core::NodeState<std::uint16_t>;
using Ports = core::PortSet<std::uint16_t>;
using Packing = StatePacking<std::uint16_t>;

constexpr std::uint16_t all_ports = 0x1FF;  // ports 0..8

State random_state(std::mt19937_64& rng) {
  auto ports = [&rng] { return Ports(static_cast<std::uint16_t>(rng() & all_ports)); };
  State s;
  s.lock_set = ports(), s.replied = ports(), s.win_outcomes.won = ports(), s.win_outcomes.lost = ports();
  s.on_hold = ports(), s.applicants = ports(), s.candidates = ports(), s.priorities.ports = ports();
  for (auto& plane : s.priorities.planes) plane = ports().bits();
  const unsigned lock = rng() % 10;  // 0..8 a port, 9 bottom
  s.lock_port = lock == 9 ? core::no_port : static_cast<core::Port>(lock);
  s.state = static_cast<core::InitiatorState>(rng() % 6);
  s.phase = static_cast<core::ParticipantPhase>(rng() % 3);
  return s;
}

TEST(NodeStates, EveryValidStateSurvivesARoundTrip) {
  std::mt19937_64 rng(29);
  for (int i = 0; i < 100000; ++i) {
    const State s = random_state(rng);
    const PackedState p = Packing::pack(s);
    ASSERT_EQ(Packing::unpack(p), s) << "state " << i;
    EXPECT_EQ(Packing::lock_of(p.lo), s.lock_port);
    EXPECT_EQ(Packing::initiator_of(p.lo), s.state);
    EXPECT_TRUE(Packing::fits(s));
  }
}

TEST(NodeStates, EachFieldHasBitsOfItsOwn) {
  // One field at its extreme, the others zero: a field that overlapped another would show up in it.
  const State zero;
  std::vector<State> singles(12, zero);
  singles[0].lock_set = Ports(all_ports), singles[1].replied = Ports(all_ports);
  singles[2].win_outcomes.won = Ports(all_ports), singles[3].win_outcomes.lost = Ports(all_ports);
  singles[4].on_hold = Ports(all_ports), singles[5].applicants = Ports(all_ports);
  singles[6].candidates = Ports(all_ports), singles[7].priorities.ports = Ports(all_ports);
  singles[8].priorities.planes[core::priority_planes - 1] = all_ports;
  singles[9].lock_port = 8, singles[10].state = core::InitiatorState::unlock;
  singles[11].phase = core::ParticipantPhase::compete;
  for (std::size_t i = 0; i < singles.size(); ++i) {
    EXPECT_EQ(Packing::unpack(Packing::pack(singles[i])), singles[i]) << "field " << i;
    for (std::size_t j = 0; j < singles.size(); ++j) {
      if (i == j) continue;
      const PackedState a = Packing::pack(singles[i]), b = Packing::pack(singles[j]);
      const PackedState z = Packing::pack(zero);
      EXPECT_EQ((a.lo ^ z.lo) & (b.lo ^ z.lo), 0u) << "fields " << i << " and " << j;
      EXPECT_EQ((a.hi ^ z.hi) & (b.hi ^ z.hi), 0u) << "fields " << i << " and " << j;
    }
  }
  EXPECT_EQ(Packing::unpack(Packing::pack(zero)), zero);
  EXPECT_EQ(Packing::lock_of(Packing::pack(zero).lo), core::no_port);
}

TEST(NodeStates, WhatThePackingCannotHoldIsNotAFit) {
  State s;
  s.candidates = Ports(std::uint16_t{1} << 9);  // port 9: beyond Delta = 8
  EXPECT_FALSE(Packing::fits(s));
  State t;
  t.lock_port = 15;
  EXPECT_FALSE(Packing::fits(t));
  State u;
  u.priorities.planes[0] = std::uint16_t{1} << 12;
  EXPECT_FALSE(Packing::fits(u));
}

TEST(NodeStates, TheStoreRefusesAStateItCannotHold) {
  // Each port set in turn naming port 9 (or a plane its top bit), and the lock port 15: the store
  // refuses it and keeps the node's variables as they were; every valid state passes the check.
  std::vector<State> wide(11);
  wide[0].lock_set = Ports::of(9), wide[1].replied = Ports::of(9), wide[2].win_outcomes.won = Ports::of(9);
  wide[3].win_outcomes.lost = Ports::of(9), wide[4].on_hold = Ports::of(9), wide[5].applicants = Ports::of(9);
  wide[6].candidates = Ports::of(9), wide[7].priorities.ports = Ports::of(9);
  wide[8].priorities.planes[core::priority_planes - 1] = std::uint16_t{1} << 15;
  wide[9].lock_port = 15, wide[10].lock_port = 200;
  NodeStates<std::uint16_t, true> packed;
  packed.resize(2);
  std::mt19937_64 rng(12);
  const State kept = random_state(rng);
  packed.put(1, kept);
  for (std::size_t i = 0; i < wide.size(); ++i) {
    EXPECT_FALSE(Packing::ports_fit(wide[i])) << "field " << i;
    EXPECT_FALSE(Packing::fits(wide[i])) << "field " << i;
    EXPECT_THROW(packed.put_checked(1, wide[i]), std::logic_error) << "field " << i;
    if (packed.checked_stores) {
      EXPECT_THROW(packed.put(1, wide[i]), std::logic_error) << "field " << i;
    }
    EXPECT_EQ(packed.get(1), kept) << "field " << i;
  }
  for (int i = 0; i < 10000; ++i) EXPECT_TRUE(Packing::ports_fit(random_state(rng)));
  State lock_14;  // the lock's 4 bits hold ports up to 14
  lock_14.lock_port = 14;
  EXPECT_TRUE(Packing::ports_fit(lock_14) && Packing::fits(lock_14));
  NodeStates<std::uint16_t, false> plain;
  plain.resize(1);
  plain.put_checked(0, wide[6]);  // the core's layout holds every port of its register
  EXPECT_EQ(plain.get(0), wide[6]);
}

TEST(NodeStates, TheStoreKeepsEachNodesStateIn16Bytes) {
  NodeStates<std::uint16_t, true> packed;
  NodeStates<std::uint16_t, false> plain;
  packed.resize(1000), plain.resize(1000);
  EXPECT_EQ(packed.bytes(), 1000 * sizeof(PackedState));
  EXPECT_EQ(plain.bytes(), 1000 * sizeof(State));
  EXPECT_EQ(packed.stored_bits(), core::paper_state_bits(8, 32));
  EXPECT_EQ(plain.stored_bits(), core::layout_state_bits(16));
  std::mt19937_64 rng(8);
  std::vector<State> written(1000);
  for (NodeId u = 0; u < 1000; ++u) {
    written[u] = random_state(rng);
    packed.put(u, written[u]), plain.put(u, written[u]);
  }
  for (NodeId u = 0; u < 1000; ++u) {
    EXPECT_EQ(packed.get(u), written[u]);
    EXPECT_EQ(plain.get(u), written[u]);
    EXPECT_EQ(packed.initiator(u), written[u].state);
    EXPECT_EQ(packed.lock_port(u), written[u].lock_port);
  }
  NodeStates<std::uint16_t, true> fresh;
  fresh.resize(3);
  EXPECT_EQ(fresh.get(2), State{});
}

TEST(NodeStates, SettingALockChangesNothingElseAndRefusesWhatCannotFit) {
  NodeStates<std::uint16_t, true> packed;
  packed.resize(4);
  std::mt19937_64 rng(3);
  State s = random_state(rng);
  packed.put(1, s);
  packed.set_lock_port(1, 7);
  s.lock_port = 7;
  EXPECT_EQ(packed.get(1), s);
  packed.set_lock_port(1, core::no_port);
  s.lock_port = core::no_port;
  EXPECT_EQ(packed.get(1), s);
  EXPECT_THROW(packed.set_lock_port(1, 15), std::invalid_argument);
  EXPECT_EQ(packed.get(1), s);
  EXPECT_THROW(packed.set_lock_port(4, 0), std::out_of_range);
  EXPECT_THROW((void)packed.at(4), std::out_of_range);
  NodeStates<std::uint16_t, false> plain;
  plain.resize(1);
  plain.set_lock_port(0, 15);  // the core's layout holds any byte
  EXPECT_EQ(plain.lock_port(0), 15);
}

}  // namespace
}  // namespace lmx::sim
