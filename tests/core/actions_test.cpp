// One test (or a few) per action of Algorithms 1-3, each naming the line of docs/algorithm.md it
// checks. Complements protocol_test.cpp, which covers the main path of the competition; these
// tests pin the remaining statements: the CleanUp call at the head of each action and its effect
// on the rest of the action, guards, register resets and the messages' payloads.
#include <gtest/gtest.h>

#include <vector>

#include "lmx/core/protocol.hpp"

using namespace lmx::core;

namespace {
using Word = std::uint8_t;  // the narrowest registers (Delta <= 7)
using Ports = PortSet<Word>;
using State = NodeState<Word>;

Ports ports(std::initializer_list<Port> ps) {
  Ports s;
  for (Port p : ps) s.insert(p);
  return s;
}

/// Records the bound of each draw and answers a fixed priority.
struct Draw {
  unsigned answer = 0;
  unsigned calls = 0;
  unsigned last_bound = 0;
  unsigned operator()(unsigned bound) { return ++calls, last_bound = bound, answer; }
};

struct Actions : ::testing::Test {
  static constexpr unsigned k = 8;
  Protocol<Word> paper{Config{3, k, Variant::paper}};
  State s;
  Draw draw;

  Effects<Word> run(Action a, Ports disconnected = {}) {
    return paper.step(s, Activation{a}, Context<Word>{disconnected, {}}, PriorityDraw::from(draw));
  }
  Effects<Word> receive(MessageKind kind, Port from, std::uint8_t value = 0, Ports disconnected = {}) {
    return paper.step(s, Activation{receive_action(kind), from, Message{kind, value}}, Context<Word>{disconnected, {}},
                      PriorityDraw::from(draw));
  }
};

/// The single Send group of an activation, checked for kind and ports.
void expect_only_send(const Effects<Word>& fx, Message m, Ports to) {
  ASSERT_EQ(fx.status, Status::ok);
  ASSERT_EQ(fx.send_count, 1);
  EXPECT_EQ(fx.sends[0].message, m);
  EXPECT_EQ(fx.sends[0].ports, to);
}
}  // namespace

// ---- Algorithm 1 ---------------------------------------------------------------------------------

TEST_F(Actions, InitLockRunsCleanUpBeforeTakingTheNeighbourhood) {  // A1.3, A1.4
  s.lock_port = 2;  // locked by the neighbour on port 2, whose edge was cut
  const auto fx = paper.lock(s, Context<Word>{ports({2}), ports({1, 3})});
  EXPECT_EQ(s.lock_port, no_port);                                           // A1.24 via A1.3
  EXPECT_EQ(s.lock_set, ports({0, 1, 3}));                                   // A1.4: N[u], port 2 is no neighbour now
  expect_only_send(fx, Message{MessageKind::prepare, 0}, ports({0, 1, 3}));  // A1.5
}

// InitLock over a chosen subset (Section 6, population protocols: "lock only u and v"): A1.4 takes
// L <- ({0} u requested) n N[u] instead of N[u]; the rest of InitLock is unchanged.

namespace {
/// Two activations' effects are the same: status, sends in order, flags and the ports returned.
void expect_same_effects(const Effects<Word>& a, const Effects<Word>& b) {
  EXPECT_EQ(a.status, b.status);
  ASSERT_EQ(a.send_count, b.send_count);
  for (unsigned i = 0; i < a.send_count; ++i) {
    EXPECT_EQ(a.sends[i].ports, b.sends[i].ports) << "send " << i;
    EXPECT_EQ(a.sends[i].message, b.sends[i].message) << "send " << i;
  }
  EXPECT_EQ(a.port_sent_twice, b.port_sent_twice);
  EXPECT_EQ(a.priority_overwritten, b.priority_overwritten);
  EXPECT_EQ(a.lock_acquired, b.lock_acquired);
  EXPECT_EQ(a.unlocked, b.unlocked);
  EXPECT_EQ(a.locked_ports, b.locked_ports);
}
}  // namespace

TEST_F(Actions, InitLockOverASubsetRefusesPortsOutsideZeroToDelta) {  // the API's input check
  s.lock_port = 2;
  s.on_hold = ports({1});
  s.phase = ParticipantPhase::prepare;
  const State before = s;
  for (const Port bad : {Port{4}, Port{7}}) {  // Delta = 3; a register holds ports 0..7
    const auto fx = paper.lock(s, Context<Word>{ports({2}), ports({1, 3})}, ports({1, bad}));
    EXPECT_EQ(fx.status, Status::invalid_input) << unsigned{bad};
    EXPECT_EQ(fx.send_count, 0);
    EXPECT_EQ(s, before) << "nothing changed, not even the CleanUp of A1.3";
  }
  s.state = InitiatorState::locked;  // the input is checked before the state (A1.2)
  EXPECT_EQ(paper.lock(s, Context<Word>{{}, ports({1})}, ports({5})).status, Status::invalid_input);
}

TEST_F(Actions, InitLockOverASubsetPreparesOnlyTheRequestedNeighbours) {  // A1.4 (SUBSET), A1.5
  const Context<Word> ctx{{}, ports({1, 2, 3})};
  auto fx = paper.lock(s, ctx, ports({2}));
  EXPECT_EQ(s.state, InitiatorState::prepare);                            // A1.4
  EXPECT_EQ(s.lock_set, ports({0, 2}));                                   // A1.4: ({0} u {2}) n N[u]
  expect_only_send(fx, Message{MessageKind::prepare, 0}, ports({0, 2}));  // A1.5: only to L
  s = State{};
  fx = paper.lock(s, ctx, ports({0, 1, 3}));  // naming port 0 changes nothing: it is always in L
  EXPECT_EQ(s.lock_set, ports({0, 1, 3}));
  expect_only_send(fx, Message{MessageKind::prepare, 0}, ports({0, 1, 3}));
  s = State{};
  fx = paper.lock(s, ctx, Ports{});  // the empty subset: u locks only itself
  EXPECT_EQ(s.lock_set, ports({0}));
  expect_only_send(fx, Message{MessageKind::prepare, 0}, ports({0}));
}

TEST_F(Actions, InitLockOverASubsetDropsARequestedPortWithoutEdge) {  // A1.3, A1.4 (SUBSET)
  auto fx = paper.lock(s, Context<Word>{{}, ports({1})}, ports({1, 3}));
  EXPECT_EQ(s.lock_set, ports({0, 1}));  // port 3 holds no edge
  expect_only_send(fx, Message{MessageKind::prepare, 0}, ports({0, 1}));
  // A requested port whose edge was cut: CleanUp (A1.3) forgets it, and L does not take it.
  s = State{};
  s.lock_port = 3;
  fx = paper.lock(s, Context<Word>{ports({3}), ports({1})}, ports({3}));
  EXPECT_EQ(s.lock_port, no_port);  // A1.24 via A1.3
  EXPECT_EQ(s.lock_set, ports({0}));
  expect_only_send(fx, Message{MessageKind::prepare, 0}, ports({0}));
}

TEST_F(Actions, InitLockOverASubsetHoldsOnlyTheHeldPortsItPrepares) {  // A1.3 (REPAIR R3), A1.28-A1.29
  // Held ports 1 and 2; the request names port 2. Repaired, CleanUp releases port 1 (ready) at
  // once and keeps port 2, which gets prepare in this action, held (R3): one message per port.
  const Protocol<Word> repaired{Config{3, k, Variant::repaired}};
  s.on_hold = ports({1, 2});
  s.phase = ParticipantPhase::prepare;
  const auto fx = repaired.lock(s, Context<Word>{{}, ports({1, 2, 3})}, ports({2}));
  ASSERT_EQ(fx.status, Status::ok);
  EXPECT_FALSE(fx.port_sent_twice);
  ASSERT_EQ(fx.send_count, 2);
  EXPECT_EQ(fx.sends[0].message, (Message{MessageKind::ready, 0}));
  EXPECT_EQ(fx.sends[0].ports, ports({1}));
  EXPECT_EQ(fx.sends[1].message, (Message{MessageKind::prepare, 0}));
  EXPECT_EQ(fx.sends[1].ports, ports({0, 2}));
  EXPECT_EQ(s.on_hold, ports({2}));
  EXPECT_EQ(s.applicants, ports({1}));
}

TEST_F(Actions, InitLockRequestingEveryPortIsInitLock) {  // A1.1-A1.5
  // Every port requested: the same state and effects as lock(s, ctx), in each variant, for every
  // D and N(u) of Delta = 3 and participant states with a lock, held ports, applicants, candidates.
  std::vector<State> starts(4);
  starts[1].lock_port = 2;
  starts[2].on_hold = ports({1, 2}), starts[2].applicants = ports({3}), starts[2].phase = ParticipantPhase::prepare;
  starts[3].candidates = ports({1, 3}), starts[3].priorities.set(1, 5), starts[3].on_hold = ports({2});
  starts[3].phase = ParticipantPhase::compete, starts[3].lock_port = 1;
  unsigned compared = 0;
  for (const Variant v : {Variant::paper, Variant::repaired, Variant::fast}) {
    const Protocol<Word> p{Config{3, k, v}};
    for (unsigned d = 0; d < 16; d += 2)
      for (unsigned n = 0; n < 16; n += 2)
        for (const State& start : starts) {
          const Context<Word> ctx{Ports(static_cast<Word>(d)), Ports(static_cast<Word>(n))};
          State whole = start, every = start;
          const auto a = p.lock(whole, ctx);
          const auto b = p.lock(every, ctx, p.all_ports());
          EXPECT_EQ(whole, every) << "D " << d << " N " << n;
          expect_same_effects(a, b);
          ++compared;
        }
  }
  EXPECT_EQ(compared, 3u * 8u * 8u * 4u);
}

TEST_F(Actions, InitLockOverASubsetIsRejectedUnlessIdle) {  // A1.2 and the API contract
  for (const InitiatorState st : {InitiatorState::prepare, InitiatorState::compete, InitiatorState::win,
                                  InitiatorState::locked, InitiatorState::unlock}) {
    s = State{};
    s.state = st;
    s.lock_set = ports({0, 1});
    s.lock_port = 1;
    const State before = s;
    const auto fx = paper.lock(s, Context<Word>{ports({1}), ports({2})}, ports({2}));
    EXPECT_EQ(fx.status, Status::rejected) << to_string(st);
    EXPECT_EQ(fx.send_count, 0);
    EXPECT_EQ(s, before) << "a rejected call consumes nothing (the snapshot's CleanUp does not run)";
  }
}

TEST_F(Actions, ReceivePrepareRunsCleanUpBeforeChoosingHoldOrAdmit) {  // A1.7, A1.8-A1.10
  // Competing only for the candidate on port 2, whose edge is cut: CleanUp empties C first, the
  // phase falls to bottom, and the newcomer is admitted rather than held.
  s.phase = ParticipantPhase::compete;
  s.candidates = ports({2});
  const auto fx = receive(MessageKind::prepare, 1, 0, ports({2}));
  EXPECT_TRUE(s.on_hold.empty());
  EXPECT_EQ(s.applicants, ports({1}));
  EXPECT_EQ(s.phase, ParticipantPhase::prepare);
  expect_only_send(fx, Message{MessageKind::ready, 0}, ports({1}));  // A1.11
}

TEST_F(Actions, ReceiveReadyRecordsTheReplyAfterCleanUp) {  // A1.13, A1.14
  s.state = InitiatorState::prepare;
  s.lock_set = ports({0, 1, 2});
  const auto fx = receive(MessageKind::ready, 1, 0, ports({2}));
  EXPECT_EQ(fx.send_count, 0);
  EXPECT_EQ(s.replied, ports({1}));
  EXPECT_EQ(s.lock_set, ports({0, 1}));  // A1.25
}

TEST_F(Actions, CheckStartIsGuardedByStatePrepareAndAllReplies) {  // A1.15
  s.state = InitiatorState::prepare;
  s.lock_set = ports({0, 1});
  s.replied = ports({0});
  EXPECT_FALSE(paper.guard(s, Action::check_start));
  s.replied = ports({0, 1});
  EXPECT_TRUE(paper.guard(s, Action::check_start));
  s.state = InitiatorState::compete;
  EXPECT_FALSE(paper.guard(s, Action::check_start));
}

TEST_F(Actions, CheckStartDrawsAPriorityBelowKAndRequestsEveryPortOfL) {  // A1.16-A1.19
  s.state = InitiatorState::prepare;
  s.lock_set = s.replied = ports({0, 1, 3});
  s.win_outcomes.lost = ports({1});  // a stale outcome: A1.17 resets W
  draw.answer = 5;
  const auto fx = run(Action::check_start);
  EXPECT_EQ(s.state, InitiatorState::compete);  // A1.17
  EXPECT_TRUE(s.replied.empty());
  EXPECT_EQ(s.win_outcomes.size(), 0u);
  EXPECT_EQ(draw.calls, 1u);  // A1.18: one uniform draw from {0..K-1}
  EXPECT_EQ(draw.last_bound, k);
  expect_only_send(fx, Message{MessageKind::request_lock, 5}, ports({0, 1, 3}));  // A1.19
}

TEST_F(Actions, CleanUpActionGuardOnThePaper) {    // A1.20
  EXPECT_FALSE(paper.guard(s, Action::clean_up));  // all bottom
  s.state = InitiatorState::locked;
  EXPECT_FALSE(paper.guard(s, Action::clean_up));
  s.state = InitiatorState::unlock;
  EXPECT_TRUE(paper.guard(s, Action::clean_up));
  s.state = InitiatorState::idle;
  s.phase = ParticipantPhase::prepare;
  EXPECT_TRUE(paper.guard(s, Action::clean_up));
}

TEST_F(Actions, CleanUpHelperResetsThePhaseWhenNoApplicantIsLeft) {  // A1.27, A1.30, A1.31
  s.phase = ParticipantPhase::prepare;
  s.applicants = ports({1, 2});
  run(Action::clean_up, ports({1}));
  EXPECT_EQ(s.applicants, ports({2}));            // A1.26
  EXPECT_EQ(s.phase, ParticipantPhase::prepare);  // A1.30
  run(Action::clean_up, ports({2}));
  EXPECT_TRUE(s.applicants.empty());
  EXPECT_EQ(s.phase, ParticipantPhase::idle);  // A1.31
}

TEST_F(Actions, CleanUpHelperKeepsTheLockOfAPersistentLocker) {  // A1.24
  s.lock_port = 1;
  s.phase = ParticipantPhase::prepare;
  s.applicants = ports({2});
  run(Action::clean_up, ports({3}));
  EXPECT_EQ(s.lock_port, 1);
}

// ---- Algorithm 2 ---------------------------------------------------------------------------------

TEST_F(Actions, ReceiveRequestPromotesAnApplicantAndRecordsItsPriority) {  // A2.3, A2.4
  s.phase = ParticipantPhase::prepare;
  s.applicants = ports({1, 2});
  const auto fx = receive(MessageKind::request_lock, 2, 6);
  EXPECT_EQ(fx.send_count, 0);
  EXPECT_EQ(s.applicants, ports({1}));
  EXPECT_EQ(s.candidates, ports({2}));
  EXPECT_EQ(s.priorities.ports, ports({2}));
  EXPECT_EQ(s.priorities.get(2), 6u);
  EXPECT_EQ(s.phase, ParticipantPhase::compete);
}

TEST_F(Actions, ReceiveRequestFromACandidateRetryingKeepsItInC) {  // A2.3 (l not in A), A2.4
  s.phase = ParticipantPhase::compete;
  s.candidates = ports({1, 2});
  receive(MessageKind::request_lock, 1, 3);
  EXPECT_EQ(s.candidates, ports({1, 2}));
  EXPECT_TRUE(s.applicants.empty());
  EXPECT_EQ(s.priorities.get(1), 3u);
}

TEST_F(Actions, CheckPrioritiesWaitsForEveryCandidatesPriority) {  // A2.5
  s.phase = ParticipantPhase::compete;
  s.candidates = ports({1, 2});
  s.priorities.set(1, 4);
  EXPECT_FALSE(paper.guard(s, Action::check_priorities));
  s.priorities.set(2, 4);
  EXPECT_TRUE(paper.guard(s, Action::check_priorities));
  s.phase = ParticipantPhase::prepare;
  EXPECT_FALSE(paper.guard(s, Action::check_priorities));
}

TEST_F(Actions, CheckPrioritiesRefusesEveryoneWhileLocked) {  // A2.7 (lock = bottom), A2.9, A2.10
  s.phase = ParticipantPhase::compete;
  s.lock_port = 3;
  s.candidates = ports({1, 2});
  s.priorities.set(1, 7);  // a unique highest priority does not help while u is locked
  s.priorities.set(2, 0);
  const auto fx = run(Action::check_priorities);
  expect_only_send(fx, Message{MessageKind::win, 0}, ports({1, 2}));
  EXPECT_EQ(s.priorities.size(), 0u);
  EXPECT_EQ(s.candidates, ports({1, 2}));  // losers remain candidates for the next trial
}

TEST_F(Actions, ReceiveWinRecordsBothOutcomes) {  // A2.12, A2.13
  s.state = InitiatorState::compete;
  s.lock_set = ports({0, 1, 2});
  receive(MessageKind::win, 1, 1);
  receive(MessageKind::win, 2, 0);
  EXPECT_EQ(s.win_outcomes.won, ports({1}));
  EXPECT_EQ(s.win_outcomes.lost, ports({2}));
  EXPECT_EQ(s.win_outcomes.size(), 2u);
}

TEST_F(Actions, CheckWinWaitsForAVerdictFromEveryPortOfL) {  // A2.14
  s.state = InitiatorState::compete;
  s.lock_set = ports({0, 1});
  s.win_outcomes.won = ports({0});
  EXPECT_FALSE(paper.guard(s, Action::check_win));
  s.win_outcomes.won = ports({0, 1});
  EXPECT_TRUE(paper.guard(s, Action::check_win));
}

TEST_F(Actions, CheckWinAfterALossDrawsAgainAndStaysCompeting) {  // A2.16-A2.18, A2.22
  s.state = InitiatorState::compete;
  s.lock_set = ports({0, 1});
  s.win_outcomes.won = ports({0});
  s.win_outcomes.lost = ports({1});
  draw.answer = 2;
  const auto fx = run(Action::check_win);
  EXPECT_EQ(s.state, InitiatorState::compete);
  EXPECT_EQ(draw.calls, 1u);
  EXPECT_EQ(draw.last_bound, k);
  expect_only_send(fx, Message{MessageKind::request_lock, 2}, ports({0, 1}));
  EXPECT_EQ(s.win_outcomes.size(), 0u);
}

TEST_F(Actions, CheckWinAfterWinningEverywhereSendsSetLock) {  // A2.19-A2.22
  s.state = InitiatorState::compete;
  s.lock_set = ports({0, 1});
  s.win_outcomes.won = ports({0, 1});
  s.replied = ports({1});  // stale: A2.20 resets R for the ack-locks
  const auto fx = run(Action::check_win);
  EXPECT_EQ(s.state, InitiatorState::win);
  EXPECT_TRUE(s.replied.empty());
  EXPECT_EQ(draw.calls, 0u);
  expect_only_send(fx, Message{MessageKind::set_lock, 0}, ports({0, 1}));
  EXPECT_EQ(s.win_outcomes.size(), 0u);
}

TEST_F(Actions, ReceiveSetLockLocksToTheWinnerAndAcknowledges) {  // A2.24, A2.26
  s.phase = ParticipantPhase::compete;
  s.candidates = ports({1, 2});
  const auto fx = receive(MessageKind::set_lock, 2);
  EXPECT_EQ(s.lock_port, 2);
  EXPECT_EQ(s.candidates, ports({1}));
  expect_only_send(fx, Message{MessageKind::ack_lock, 0}, ports({2}));
}

TEST_F(Actions, ReceiveSetLockOfTheLastCandidatePromotesHeldNodesFirst) {  // A2.24, A2.25 (A1.27-A1.30)
  s.phase = ParticipantPhase::compete;
  s.candidates = ports({2});
  s.on_hold = ports({1, 3});
  const auto fx = receive(MessageKind::set_lock, 2);
  ASSERT_EQ(fx.send_count, 2);
  EXPECT_EQ(fx.sends[0].message.kind, MessageKind::ready);  // CleanUp runs before A2.26
  EXPECT_EQ(fx.sends[0].ports, ports({1, 3}));
  EXPECT_EQ(fx.sends[1].message.kind, MessageKind::ack_lock);
  EXPECT_EQ(s.applicants, ports({1, 3}));
  EXPECT_EQ(s.phase, ParticipantPhase::prepare);
  EXPECT_EQ(s.lock_port, 2);
}

TEST_F(Actions, ReceiveAckLockRecordsTheReply) {  // A2.28, A2.29
  s.state = InitiatorState::win;
  s.lock_set = ports({0, 1, 2});
  s.replied = ports({0});
  receive(MessageKind::ack_lock, 2);
  EXPECT_EQ(s.replied, ports({0, 2}));
}

TEST_F(Actions, CheckDoneReturnsLAndEntersLocked) {  // A2.30-A2.33
  s.state = InitiatorState::win;
  s.lock_set = ports({0, 2});
  s.replied = ports({0});
  EXPECT_FALSE(paper.guard(s, Action::check_done));
  s.replied = ports({0, 2});
  const auto fx = run(Action::check_done);
  ASSERT_EQ(fx.status, Status::ok);
  EXPECT_EQ(s.state, InitiatorState::locked);
  EXPECT_TRUE(s.replied.empty());
  EXPECT_TRUE(fx.lock_acquired);
  EXPECT_EQ(fx.locked_ports, ports({0, 2}));
  EXPECT_EQ(fx.send_count, 0);
}

// ---- Algorithm 3 ---------------------------------------------------------------------------------

TEST_F(Actions, InitUnlockReleasesThePersistentPartOfL) {  // A3.2-A3.5
  s.state = InitiatorState::locked;
  s.lock_port = 0;
  s.lock_set = ports({0, 1, 2});
  s.replied = ports({1});
  const auto fx = paper.unlock(s, Context<Word>{ports({2}), ports({1})});
  EXPECT_EQ(s.state, InitiatorState::unlock);
  EXPECT_TRUE(s.replied.empty());
  EXPECT_EQ(s.lock_set, ports({0, 1}));  // A3.3: the cut port is forgotten before releasing
  expect_only_send(fx, Message{MessageKind::release_lock, 0}, ports({0, 1}));
}

TEST_F(Actions, ReceiveReleaseUnlocksAndAcknowledges) {  // A3.7, A3.8
  s.lock_port = 1;
  const auto fx = receive(MessageKind::release_lock, 1);
  EXPECT_EQ(s.lock_port, no_port);
  expect_only_send(fx, Message{MessageKind::ack_unlock, 0}, ports({1}));
}

TEST_F(Actions, ReceiveAckUnlockRecordsTheReply) {  // A3.10, A3.11
  s.state = InitiatorState::unlock;
  s.lock_set = ports({0, 1});
  receive(MessageKind::ack_unlock, 1);
  EXPECT_EQ(s.replied, ports({1}));
}

TEST_F(Actions, CheckUnlockedReturnsToBottom) {  // A3.12-A3.14
  s.state = InitiatorState::unlock;
  s.lock_set = ports({0, 1});
  s.replied = ports({0});
  EXPECT_FALSE(paper.guard(s, Action::check_unlocked));
  s.replied = ports({0, 1});
  const auto fx = run(Action::check_unlocked);
  EXPECT_EQ(s.state, InitiatorState::idle);
  EXPECT_TRUE(s.replied.empty());
  EXPECT_TRUE(fx.unlocked);
  EXPECT_EQ(s.lock_set, ports({0, 1}));  // A3.14 does not reset L; the next InitLock does (A1.4)
}
