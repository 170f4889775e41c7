// Unit tests of single actions against the paper's text. Lines cited as in src/core/protocol.cpp.
#include "lmx/core/protocol.hpp"

#include <gtest/gtest.h>

// A named namespace: the core tests are also compiled as one unity source, where another file
// gives Word and Ports other widths.
namespace protocol_test {

using namespace lmx::core;
using Word = std::uint16_t;
using Ports = PortSet<Word>;

namespace {
Ports ports(std::initializer_list<Port> ps) {
  Ports s;
  for (Port p : ps) s.insert(p);
  return s;
}
unsigned fixed_priority = 0;
unsigned draw_fixed(void*, unsigned) { return fixed_priority; }
const PriorityDraw fixed_draw{&draw_fixed, nullptr};

struct Fixture : ::testing::Test {
  Protocol<Word> paper{Config{4, 4, Variant::paper}};
  Protocol<Word> repaired{Config{4, 4, Variant::repaired}};
  NodeState<Word> s;
  Context<Word> ctx{Ports{}, ports({1, 2})};
  Effects<Word> receive(const Protocol<Word>& p, MessageKind k, Port port, std::uint8_t value = 0,
                        Context<Word> c = {}) {
    return p.step(s, Activation{receive_action(k), port, Message{k, value}}, c, fixed_draw);
  }
};
}  // namespace

TEST(NodeSize, RegistersFitTheIssueBudget) {
  EXPECT_LE(sizeof(State16), 32u);
  EXPECT_LE(sizeof(State64), 128u);
  EXPECT_EQ(paper_state_bits(15, 16), 5u + 3 + 2 + 16 * 5 + 16 * 2 + 16 * 5);
}

TEST_F(Fixture, InitLockPreparesTheClosedNeighbourhood) {  // A1.1-A1.5
  auto fx = paper.lock(s, ctx);
  ASSERT_EQ(fx.status, Status::ok);
  EXPECT_EQ(s.state, InitiatorState::prepare);
  EXPECT_EQ(s.lock_set, ports({0, 1, 2}));
  ASSERT_EQ(fx.send_count, 1);
  EXPECT_EQ(fx.sends[0].ports, ports({0, 1, 2}));
  EXPECT_EQ(fx.sends[0].message.kind, MessageKind::prepare);
}

TEST_F(Fixture, LockWhileBusyIsRejectedAndKeepsTheSnapshot) {  // A1.2 and the API contract
  ASSERT_EQ(paper.lock(s, ctx).status, Status::ok);
  const auto before = s;
  auto fx = paper.lock(s, Context<Word>{ports({1}), ports({2})});
  EXPECT_EQ(fx.status, Status::rejected);
  EXPECT_EQ(s, before);                                      // CleanUp did not run: D was not consumed
  EXPECT_EQ(paper.unlock(s, ctx).status, Status::rejected);  // A3.2
}

TEST_F(Fixture, PrepareWhileCompetingGoesOnHold) {  // A1.8
  s.phase = ParticipantPhase::compete;
  s.candidates = ports({2});
  auto fx = receive(paper, MessageKind::prepare, 1);
  EXPECT_EQ(s.on_hold, ports({1}));
  EXPECT_EQ(fx.send_count, 0);
}

TEST_F(Fixture, PrepareOtherwiseAdmitsAnApplicant) {  // A1.9-A1.11
  auto fx = receive(paper, MessageKind::prepare, 1);
  EXPECT_EQ(s.applicants, ports({1}));
  EXPECT_EQ(s.phase, ParticipantPhase::prepare);
  ASSERT_EQ(fx.send_count, 1);
  EXPECT_EQ(fx.sends[0].message.kind, MessageKind::ready);
  EXPECT_EQ(fx.sends[0].ports, ports({1}));
}

TEST_F(Fixture, CleanUpForgetsDisconnectedPortsEverywhere) {  // A1.22-A1.26
  s.lock_port = 3;
  s.lock_set = s.replied = s.on_hold = s.applicants = s.candidates = ports({0, 3});
  s.win_outcomes.won = ports({3});
  s.priorities.set(3, 2);
  s.phase = ParticipantPhase::compete;
  auto fx = paper.step(s, Activation{Action::clean_up}, Context<Word>{ports({3}), {}}, fixed_draw);
  ASSERT_EQ(fx.status, Status::ok);
  EXPECT_EQ(s.lock_port, no_port);
  for (Ports set : {s.lock_set, s.replied, s.on_hold, s.candidates}) EXPECT_FALSE(set.contains(3));
  EXPECT_EQ(s.win_outcomes.size(), 0u);
  EXPECT_EQ(s.priorities.size(), 0u);
}

TEST_F(Fixture, EmptyCandidatesPromoteHeldNodes) {  // A1.27-A1.30
  s.phase = ParticipantPhase::compete;
  s.on_hold = ports({1, 2});
  auto fx = paper.step(s, Activation{Action::clean_up}, Context<Word>{}, fixed_draw);
  ASSERT_EQ(fx.send_count, 1);
  EXPECT_EQ(fx.sends[0].message.kind, MessageKind::ready);
  EXPECT_EQ(fx.sends[0].ports, ports({1, 2}));
  EXPECT_EQ(s.applicants, ports({1, 2}));
  EXPECT_TRUE(s.on_hold.empty());
  EXPECT_EQ(s.phase, ParticipantPhase::prepare);
}

TEST_F(Fixture, UniqueHighestPriorityWins) {  // A2.5-A2.10
  s.phase = ParticipantPhase::compete;
  s.candidates = ports({0, 1, 2});
  s.priorities.set(0, 1);
  s.priorities.set(1, 3);
  s.priorities.set(2, 2);
  auto fx = paper.step(s, Activation{Action::check_priorities}, Context<Word>{}, fixed_draw);
  ASSERT_EQ(fx.status, Status::ok);
  ASSERT_EQ(fx.send_count, 2);
  EXPECT_EQ(fx.sends[0].ports, ports({1}));
  EXPECT_EQ(fx.sends[0].message, (Message{MessageKind::win, 1}));
  EXPECT_EQ(fx.sends[1].ports, ports({0, 2}));
  EXPECT_EQ(fx.sends[1].message, (Message{MessageKind::win, 0}));
  EXPECT_EQ(s.priorities.size(), 0u);
}

TEST_F(Fixture, TiedHighestPriorityLosesEverywhere) {  // A2.9
  s.phase = ParticipantPhase::compete;
  s.candidates = ports({1, 2});
  s.priorities.set(1, 3);
  s.priorities.set(2, 3);
  auto fx = paper.step(s, Activation{Action::check_priorities}, Context<Word>{}, fixed_draw);
  ASSERT_EQ(fx.send_count, 1);
  EXPECT_EQ(fx.sends[0].ports, ports({1, 2}));
  EXPECT_EQ(fx.sends[0].message, (Message{MessageKind::win, 0}));
}

// FAST F2: the participant breaks the tie with its draw: the tied port at index draw mod |tied|
// (port order) gets win(true), every other candidate win(false); each tied port can be drawn.
TEST_F(Fixture, FastBreaksATieWithItsDraw) {
  const Protocol<Word> fast{Config{4, 4, Variant::fast}};
  for (unsigned drawn = 0; drawn < 4; ++drawn) {
    s = NodeState<Word>{};
    s.phase = ParticipantPhase::compete;
    s.candidates = ports({0, 1, 2});
    s.priorities.set(0, 1);
    s.priorities.set(1, 3);
    s.priorities.set(2, 3);
    fixed_priority = drawn;
    auto fx = fast.step(s, Activation{Action::check_priorities}, Context<Word>{}, fixed_draw);
    ASSERT_EQ(fx.status, Status::ok);
    ASSERT_EQ(fx.send_count, 2);
    const Ports winner = drawn % 2 == 0 ? ports({1}) : ports({2});
    EXPECT_EQ(fx.sends[0].ports, winner) << drawn;
    EXPECT_EQ(fx.sends[0].message, (Message{MessageKind::win, 1}));
    EXPECT_EQ(fx.sends[1].ports, ports({0, 1, 2}) - winner);
    EXPECT_EQ(fx.sends[1].message, (Message{MessageKind::win, 0}));
  }
  fixed_priority = 0;
}

// FAST F1: a participant whose lock is set does not run its trial (the repaired variant runs it
// and fails everyone); it runs once ReceiveRelease has set lock to bottom.
TEST_F(Fixture, FastDefersTheTrialWhileLocked) {
  const Protocol<Word> fast{Config{4, 4, Variant::fast}};
  s.phase = ParticipantPhase::compete;
  s.candidates = ports({1, 2});
  s.priorities.set(1, 3);
  s.priorities.set(2, 1);
  s.lock_port = 3;
  EXPECT_TRUE(repaired.guard(s, Action::check_priorities));
  EXPECT_FALSE(fast.guard(s, Action::check_priorities));
  EXPECT_EQ(fast.step(s, Activation{Action::check_priorities}, Context<Word>{}, fixed_draw).status,
            Status::not_enabled);
  auto released = fast.step(s, Activation{Action::receive_release, 3, Message{MessageKind::release_lock, 0}},
                            Context<Word>{}, fixed_draw);  // A3.6-A3.8
  ASSERT_EQ(released.status, Status::ok);
  EXPECT_TRUE(fast.guard(s, Action::check_priorities));
  auto fx = fast.step(s, Activation{Action::check_priorities}, Context<Word>{}, fixed_draw);
  ASSERT_EQ(fx.status, Status::ok);
  EXPECT_EQ(fx.sends[0].ports, ports({1}));
  EXPECT_EQ(fx.sends[0].message, (Message{MessageKind::win, 1}));
}

TEST_F(Fixture, GuardedActionRefusedWhenGuardIsFalse) {
  auto fx = paper.step(s, Activation{Action::check_done}, ctx, fixed_draw);
  EXPECT_EQ(fx.status, Status::not_enabled);
}

TEST_F(Fixture, BadInputIsRejectedNotExecuted) {
  // D naming port 0, a port beyond Delta, a message that does not match the action.
  EXPECT_EQ(paper.lock(s, Context<Word>{ports({0}), {}}).status, Status::invalid_input);
  EXPECT_EQ(receive(paper, MessageKind::ready, 9).status, Status::invalid_input);
  EXPECT_EQ(paper.step(s, Activation{Action::receive_win, 1, Message{MessageKind::ready, 0}}, {}, fixed_draw).status,
            Status::invalid_input);
  EXPECT_EQ(receive(paper, MessageKind::request_lock, 1, 7).status, Status::invalid_input);  // p >= K
  // a value that is none of the sixteen actions (found by fuzz/message_fuzz.cpp: a shift past 16 bits)
  EXPECT_EQ(paper.step(s, Activation{static_cast<Action>(49)}, ctx, fixed_draw).status, Status::invalid_input);
  EXPECT_FALSE(paper.guard(s, static_cast<Action>(200)));
}

// E1 (docs/errata.md): an initiator in WIN whose participant phase is idle has no enabled action
// after losing the edge that carried its last ack-lock; the repaired variant enables CleanUp.
TEST_F(Fixture, WinningInitiatorCanProcessADisconnectionOnlyWhenRepaired) {
  s.state = InitiatorState::win;
  s.lock_set = ports({0, 1});
  s.replied = ports({0});
  s.lock_port = 0;
  s.phase = ParticipantPhase::idle;
  EXPECT_TRUE(paper.enabled_guarded(s).empty());
  EXPECT_TRUE(repaired.enabled_guarded(s).contains(Action::clean_up));
  auto fx = repaired.step(s, Activation{Action::clean_up}, Context<Word>{ports({1}), {}}, fixed_draw);
  ASSERT_EQ(fx.status, Status::ok);
  EXPECT_TRUE(repaired.guard(s, Action::check_done));
}

namespace {
/// The node of testdata/e3_double_send.txt just before its CheckStart: an initiator in PREPARE
/// with every ready in, and a participant in COMPETE whose only candidate (port 1) was just cut
/// while port 2, also in L, is on hold.
NodeState<Word> held_port_in_lock_set() {
  NodeState<Word> s;
  s.state = InitiatorState::prepare;
  s.lock_set = ports({0, 1, 2});
  s.replied = ports({0, 1, 2});
  s.phase = ParticipantPhase::compete;
  s.on_hold = ports({2});
  s.applicants = ports({0});
  s.candidates = ports({1});
  s.priorities.set(1, 0);
  return s;
}
}  // namespace

TEST_F(Fixture, PaperCheckStartSendsTwiceToAHeldPortInL) {  // errata E3: A1.28 then A1.19
  s = held_port_in_lock_set();
  auto fx = paper.step(s, Activation{Action::check_start}, Context<Word>{ports({1}), ports({2})}, fixed_draw);
  ASSERT_EQ(fx.status, Status::ok);
  EXPECT_TRUE(fx.port_sent_twice);
  EXPECT_TRUE(s.on_hold.empty());
}

TEST_F(Fixture, RepairedCheckStartDefersReleasingAHeldPortInL) {  // REPAIR R3
  s = held_port_in_lock_set();
  auto fx = repaired.step(s, Activation{Action::check_start}, Context<Word>{ports({1}), ports({2})}, fixed_draw);
  ASSERT_EQ(fx.status, Status::ok);
  EXPECT_FALSE(fx.port_sent_twice);
  ASSERT_EQ(fx.send_count, 1);
  EXPECT_EQ(fx.sends[0].message.kind, MessageKind::request_lock);
  EXPECT_EQ(fx.sends[0].ports, ports({0, 2}));
  EXPECT_EQ(s.on_hold, ports({2}));               // still held
  EXPECT_EQ(s.phase, ParticipantPhase::prepare);  // so the CleanUp action (A1.20) stays enabled
  ASSERT_TRUE(repaired.enabled_guarded(s).contains(Action::clean_up));
  fx = repaired.step(s, Activation{Action::clean_up}, Context<Word>{{}, ports({2})}, fixed_draw);
  ASSERT_EQ(fx.send_count, 1);
  EXPECT_EQ(fx.sends[0].message.kind, MessageKind::ready);  // A1.28, one action later
  EXPECT_EQ(fx.sends[0].ports, ports({2}));
  EXPECT_TRUE(s.on_hold.empty());
  EXPECT_EQ(s.applicants, ports({0, 2}));  // A1.29
}

TEST_F(Fixture, RepairedReleasesHeldPortsNotSentToAtOnce) {  // R3 defers only the overlap
  s = held_port_in_lock_set();
  s.on_hold = ports({2, 3});
  auto fx = repaired.step(s, Activation{Action::check_start}, Context<Word>{ports({1}), ports({2, 3})}, fixed_draw);
  ASSERT_EQ(fx.send_count, 2);
  EXPECT_EQ(fx.sends[0].message.kind, MessageKind::ready);
  EXPECT_EQ(fx.sends[0].ports, ports({3}));
  EXPECT_EQ(s.on_hold, ports({2}));
}

}  // namespace protocol_test
