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

// The in-place entries (step_into, lock_into, unlock_into) are the returning ones exactly: the
// same effects and the same state after every activation of a long random walk over actions,
// ports, messages and contexts (valid or not, so that refusals are compared too), with `out`
// full of leftovers from an earlier activation each time, which they must reset.
namespace {
struct Lcg {
  std::uint64_t x;
  unsigned below(unsigned bound) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<unsigned>((x >> 33) % bound);
  }
};
unsigned draw_lcg(void* lcg, unsigned bound) { return static_cast<Lcg*>(lcg)->below(bound); }
void expect_same(const Effects<Word>& a, const Effects<Word>& b, unsigned step) {
  EXPECT_EQ(a.status, b.status) << "step " << step;
  EXPECT_EQ(a.send_count, b.send_count) << "step " << step;
  for (unsigned i = 0; i < a.sends.size(); ++i) {
    EXPECT_EQ(a.sends[i].ports, b.sends[i].ports) << "step " << step << ", group " << i;
    EXPECT_EQ(a.sends[i].message, b.sends[i].message) << "step " << step << ", group " << i;
  }
  EXPECT_EQ(a.port_sent_twice, b.port_sent_twice) << "step " << step;
  EXPECT_EQ(a.priority_overwritten, b.priority_overwritten) << "step " << step;
  EXPECT_EQ(a.lock_acquired, b.lock_acquired) << "step " << step;
  EXPECT_EQ(a.unlocked, b.unlocked) << "step " << step;
  EXPECT_EQ(a.locked_ports, b.locked_ports) << "step " << step;
}
}  // namespace

TEST(InPlace, StepLockAndUnlockIntoAreTheReturningOnes) {
  for (Variant variant : {Variant::paper, Variant::repaired, Variant::fast}) {
    const Protocol<Word> protocol{Config{5, 8, variant}};
    Lcg walk{static_cast<std::uint64_t>(variant) + 1};
    NodeState<Word> returned_state, in_place_state;
    Effects<Word> leftovers;  // the last in-place effects, never cleared by the test
    unsigned compared_ok = 0;
    for (unsigned step = 0; step < 20000; ++step) {
      // Mostly valid contexts (ports 1..5), sometimes one naming port 6 > Delta.
      const Ports neighbours(static_cast<Word>((walk.below(64) << 1) & (walk.below(16) ? 0x3E : 0x7E)));
      const Context<Word> ctx{Ports(static_cast<Word>(neighbours.bits() & (walk.below(4) << 1))), neighbours};
      const unsigned what = walk.below(20);
      Lcg returned_draws{step}, in_place_draws{step};
      Effects<Word> returned;
      if (what == 0) {
        returned = protocol.lock(returned_state, ctx);
        protocol.lock_into(in_place_state, ctx, Ports::range(0, 5), leftovers);
      } else if (what == 1) {
        returned = protocol.unlock(returned_state, ctx);
        protocol.unlock_into(in_place_state, ctx, leftovers);
      } else {
        Activation act;
        act.action = static_cast<Action>(walk.below(action_count + 1));  // one past the last: refused
        act.port = static_cast<Port>(walk.below(7));
        act.message = Message{static_cast<MessageKind>(walk.below(message_kind_count)),
                              static_cast<std::uint8_t>(walk.below(3) ? walk.below(2) : walk.below(10))};
        if (walk.below(2)) act.action = receive_action(act.message.kind);  // mostly a matching receipt
        returned = protocol.step(returned_state, act, ctx, PriorityDraw{&draw_lcg, &returned_draws});
        protocol.step_into(in_place_state, act, ctx, PriorityDraw{&draw_lcg, &in_place_draws}, leftovers);
      }
      expect_same(returned, leftovers, step);
      ASSERT_EQ(returned_state, in_place_state) << "step " << step;
      ASSERT_EQ(returned_draws.x, in_place_draws.x) << "step " << step;
      compared_ok += returned.status == Status::ok && returned.send_count > 0;
    }
    EXPECT_GT(compared_ok, 500u) << "the walk reaches actions that send";
  }
}

}  // namespace protocol_test
