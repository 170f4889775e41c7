// Algorithms 1-3 of the paper, one handler per action. Every statement cites the algorithm and
// line it implements: "A2.8" is Algorithm 2, line 8. Lines are numbered as the paper prints them
// (algpseudocode with noend): each \State, \If, \Else, \ForAll and \Function is one line, and
// the \Indent markers print nothing. docs/algorithm.md lists every line with its number.
// Deviations of the repaired variant are marked REPAIR and explained in docs/errata.md.
#include "lmx/core/protocol.hpp"

namespace lmx::core {

#ifdef LMX_MUTANTS
namespace testing {
Mutant active_mutant = Mutant::none;
std::string_view to_string(Mutant m) {
  constexpr std::string_view names[mutant_count] = {"none",
                                                    "skip-cleanup-in-receive-prepare",
                                                    "priorities-not-reset",
                                                    "win-true-to-ties",
                                                    "held-never-released",
                                                    "lost-ack-counted",
                                                    "win-ignores-lock",
                                                    "release-keeps-lock",
                                                    "set-lock-keeps-candidate",
                                                    "check-win-ignores-false",
                                                    "check-done-early",
                                                    "without-r1",
                                                    "without-r2",
                                                    "without-r3",
                                                    "r2-alt-wait-for-applicants",
                                                    "r2-alt-winner-leaves-candidates",
                                                    "f1-defers-while-held",
                                                    "subset-ignored"};
  return names[static_cast<unsigned>(m)];
}
}  // namespace testing
#define LMX_MUTANT(name) (::lmx::core::testing::active_mutant == ::lmx::core::testing::Mutant::name)
#else
#define LMX_MUTANT(name) false
#endif

// The handlers are written one per action, but compiled into step()'s switch: as calls, their
// argument passing and register saves cost about 3 % of a simulated action (lmx bench).
#if defined(__GNUC__)
#define LMX_HANDLER [[gnu::always_inline]] inline
#else
#define LMX_HANDLER inline
#endif

namespace {
constexpr unsigned ceil_log2(unsigned x) {
  unsigned bits = 0;
  while ((1u << bits) < x) ++bits;
  return bits;
}
}  // namespace

unsigned paper_state_bits(unsigned delta, unsigned k) {
  const unsigned ports = delta + 1;
  return ceil_log2(delta + 2) + 3 + 2 + 5 * ports + 2 * ports + ports * (1 + ceil_log2(k));
}

unsigned layout_state_bits(unsigned register_bits) {
  // L, R, W (2), H, A, C, P's presence, P's 5 planes; lock, state and phase one byte each.
  return register_bits * (8 + priority_planes) + 3 * 8;
}

template <class Word>
Protocol<Word>::Protocol(Config config)
    : config_(config), all_ports_(Ports::range(0, static_cast<Port>(config.delta))) {}

template <class Word>
bool Protocol<Word>::valid(const Context<Word>& ctx) const {
  // D and N(u) name ports 1..Delta only; port 0 never disconnects.
  const Ports neighbour_ports = all_ports_ - Ports::of(self_port);
  return (ctx.disconnected - neighbour_ports).empty() && (ctx.neighbours - neighbour_ports).empty();
}

template <class Word>
void Protocol<Word>::send(Out& out, Ports ports, Message m) {
  if (ports.empty()) return;
  if (!(out.sent_ports() & ports).empty()) out.port_sent_twice = true;
  out.sends[out.send_count++] = Send<Word>{ports, m};
}

// A1.22-A1.31: the CleanUp helper, processing disconnections D.
template <class Word>
void Protocol<Word>::clean_up(State& s, const Context<Word>& ctx, Out& out, Ports busy) const {
  const Ports d = ctx.disconnected;
  if (!d.empty()) {                                                                // A1.23 for all l in D
    if (s.lock_port != no_port && d.contains(s.lock_port)) s.lock_port = no_port;  // A1.24
    const Ports kept = LMX_MUTANT(lost_ack_counted) ? d & s.lock_set : Ports{};    // empty unless mutant
    s.lock_set -= d;                                                               // A1.25 L <- L \ {l}
    s.replied -= d;                                                                // A1.25 R <- R \ {l}
    s.lock_set |= kept, s.replied |= kept;
    s.win_outcomes.erase(d);  // A1.25 W <- W \ {(l,.)}
    s.on_hold -= d;           // A1.25 H <- H \ {l}
    s.applicants -= d;        // A1.26 A <- A \ {l}
    s.candidates -= d;        // A1.26 C <- C \ {l}
    s.priorities.erase(d);    // A1.26 P <- P \ {(l,.)}
  }
  if (s.candidates.empty() && LMX_MUTANT(held_never_released)) {
    s.phase = s.applicants.empty() && s.on_hold.empty() ? ParticipantPhase::idle : ParticipantPhase::prepare;
  } else if (s.candidates.empty()) {  // A1.27 if C is empty
    // REPAIR R3 (docs/errata.md, E3): a held port that the calling action is about to send to
    // stays held, so that no port gets two messages in one action (model rule iii). It is
    // released by the next CleanUp, which the CleanUp action (A1.20) makes sure happens: phase
    // stays PREPARE while H is nonempty.
    const Ports released = config_.variant != Variant::paper && !LMX_MUTANT(without_r3) ? s.on_hold - busy : s.on_hold;
    send(out, released, Message{MessageKind::ready, 0});  // A1.28 Send(ready, l) for l in H
    s.applicants |= released;                             // A1.29 A <- A u H
    s.on_hold -= released;                                // A1.29 H <- empty (R3: the held ports kept above remain)
    s.phase = s.applicants.empty() && s.on_hold.empty() ? ParticipantPhase::idle      // A1.31 else phase <- bottom
                                                        : ParticipantPhase::prepare;  // A1.30 if A nonempty: PREPARE
  }
}

template <class Word>
ActionSet Protocol<Word>::enabled_guarded(const State& s) const {
  ActionSet set = guards_holding(s, config_.variant);
#ifdef LMX_MUTANTS
  // The seeded defects that change guards (docs/checker.md, "Teeth").
  if (LMX_MUTANT(without_r1) && s.phase == ParticipantPhase::idle && s.state == InitiatorState::win)
    set.erase(Action::clean_up);
  if (LMX_MUTANT(r2_alt_wait_for_applicants) && !s.applicants.empty()) set.erase(Action::check_priorities);
  if (LMX_MUTANT(f1_defers_while_held) && config_.variant == Variant::fast && !s.on_hold.empty())
    set.erase(Action::check_priorities);
  // In the fast variant the lock is read by the guard (F1), so ignoring it means running the trial.
  if (LMX_MUTANT(win_ignores_lock) && s.phase == ParticipantPhase::compete &&
      s.candidates.size() == s.priorities.size())
    set.insert(Action::check_priorities);
  if (LMX_MUTANT(check_done_early) && s.state == InitiatorState::win && s.replied.size() + 1 >= s.lock_set.size())
    set.insert(Action::check_done);
#endif
  return set;
}

template <class Word>
bool Protocol<Word>::guard(const State& s, Action a) const {
  if (static_cast<unsigned>(a) >= action_count) return false;  // not one of the sixteen actions
  return enabled_guarded(s).contains(a);
}

// A1.1-A1.5 InitLock, on Lock being called.
template <class Word>
Effects<Word> Protocol<Word>::lock(State& s, const Context<Word>& ctx) const {
  return lock(s, ctx, all_ports_);
}

// A1.1-A1.5 InitLock over a chosen subset of N[u]. SUBSET (Section 6, population protocols, second
// implementation: "try to lock only u and v"): A1.4 sets L <- ({0} u requested) n N[u] instead of
// N[u]. Every later action reads L, never N(u), so the rest of Algorithms 1-3 runs unchanged on
// the smaller set; with requested = all ports this is the paper's InitLock exactly.
template <class Word>
Effects<Word> Protocol<Word>::lock(State& s, const Context<Word>& ctx, Ports requested) const {
  Out out;
  lock_into(s, ctx, requested, out);
  return out;
}
template <class Word>
void Protocol<Word>::lock_into(State& s, const Context<Word>& ctx, Ports requested, Out& out) const {
  out = Out{};
  if (!valid(ctx) || !(requested - all_ports_).empty()) {
    out.status = Status::invalid_input;
    return;
  }
  if (s.state != InitiatorState::idle) {  // A1.2
    out.status = Status::rejected;
    return;
  }
  const Ports asked = LMX_MUTANT(subset_ignored) ? all_ports_ : requested;  // `requested` (mutant: all)
  const Ports lock_set = (ctx.neighbours & asked) | Ports::of(self_port);   // A1.4 L <- N[u] (SUBSET)
  clean_up(s, ctx, out, lock_set);                                          // A1.3 (L is set below)
  s.state = InitiatorState::prepare;                                        // A1.4
  s.lock_set = lock_set;                                                    // A1.4
  send(out, s.lock_set, Message{MessageKind::prepare, 0});                  // A1.5
}

// A3.1-A3.5 InitUnlock, on Unlock being called.
template <class Word>
Effects<Word> Protocol<Word>::unlock(State& s, const Context<Word>& ctx) const {
  Out out;
  unlock_into(s, ctx, out);
  return out;
}
template <class Word>
void Protocol<Word>::unlock_into(State& s, const Context<Word>& ctx, Out& out) const {
  out = Out{};
  if (!valid(ctx)) {
    out.status = Status::invalid_input;
    return;
  }
  if (s.state != InitiatorState::locked) {  // A3.2
    out.status = Status::rejected;
    return;
  }
  clean_up(s, ctx, out, s.lock_set - ctx.disconnected);          // A3.3
  s.state = InitiatorState::unlock;                              // A3.4
  s.replied.clear();                                             // A3.4
  send(out, s.lock_set, Message{MessageKind::release_lock, 0});  // A3.5
}

// Checks the activation, then dispatches to the action's handler.
template <class Word>
Effects<Word> Protocol<Word>::step(State& s, const Activation& a, const Context<Word>& ctx, PriorityDraw draw) const {
  Out out;
  step_into(s, a, ctx, draw, out);
  return out;
}
template <class Word>
void Protocol<Word>::step_into(State& s, const Activation& a, const Context<Word>& ctx, PriorityDraw draw,
                               Out& out) const {
  if (a.action == Action::init_lock) return lock_into(s, ctx, all_ports_, out);
  if (a.action == Action::init_unlock) return unlock_into(s, ctx, out);
  out = Out{};
  const Port l = a.port;
  if (!valid(ctx) || static_cast<unsigned>(a.action) >= action_count) {
    out.status = Status::invalid_input;
    return;
  }
  if (is_receive(a.action)) {
    if (l > config_.delta || receive_action(a.message.kind) != a.action) {
      out.status = Status::invalid_input;
      return;
    }
    const Decoded d = decode(encode(a.message), config_.k);
    if (!d.ok() || d.message != a.message) {
      out.status = Status::invalid_input;
      return;
    }
  } else if (!guard(s, a.action)) {
    out.status = Status::not_enabled;
    return;
  }
  switch (a.action) {
    case Action::receive_prepare: receive_prepare(s, l, ctx, out); break;
    case Action::receive_ready: receive_ready(s, l, ctx, out); break;
    case Action::check_start: check_start(s, ctx, draw, out); break;
    case Action::clean_up: clean_up_action(s, ctx, out); break;
    case Action::receive_request: receive_request(s, l, a.message, ctx, out); break;
    case Action::check_priorities: check_priorities(s, ctx, draw, out); break;
    case Action::receive_win: receive_win(s, l, a.message, ctx, out); break;
    case Action::check_win: check_win(s, ctx, draw, out); break;
    case Action::receive_set_lock: receive_set_lock(s, l, ctx, out); break;
    case Action::receive_ack_lock: receive_ack_lock(s, l, ctx, out); break;
    case Action::check_done: check_done(s, ctx, out); break;
    case Action::receive_release: receive_release(s, l, ctx, out); break;
    case Action::receive_ack_unlock: receive_ack_unlock(s, l, ctx, out); break;
    case Action::check_unlocked: check_unlocked(s, ctx, out); break;
    default: out.status = Status::invalid_input; break;
  }
}

// A1.6-A1.11 ReceivePrepare: on receiving prepare via port l.
template <class Word>
LMX_HANDLER void Protocol<Word>::receive_prepare(State& s, Port l, const Context<Word>& ctx, Out& out) const {
  if (!LMX_MUTANT(skip_cleanup_in_receive_prepare)) clean_up(s, ctx, out, Ports::of(l));  // A1.7
  if (s.phase == ParticipantPhase::compete) {                                             // A1.8
    s.on_hold.insert(l);                                                                  // A1.8 H <- H u {l}
  } else {                                                                                // A1.9
    s.applicants.insert(l);                                                               // A1.10 A <- A u {l}
    s.phase = ParticipantPhase::prepare;                                                  // A1.10 phase <- PREPARE
    send(out, Ports::of(l), Message{MessageKind::ready, 0});                              // A1.11
  }
}

// A1.12-A1.14 ReceiveReady: on receiving ready via port l.
template <class Word>
LMX_HANDLER void Protocol<Word>::receive_ready(State& s, Port l, const Context<Word>& ctx, Out& out) const {
  clean_up(s, ctx, out);  // A1.13
  s.replied.insert(l);    // A1.14 R <- R u {l}
}

// A1.15-A1.19 CheckStart: (state = PREPARE) and (R = L).
template <class Word>
LMX_HANDLER void Protocol<Word>::check_start(State& s, const Context<Word>& ctx, PriorityDraw draw, Out& out) const {
  clean_up(s, ctx, out, s.lock_set - ctx.disconnected);          // A1.16
  s.state = InitiatorState::compete;                             // A1.17
  s.replied.clear();                                             // A1.17
  s.win_outcomes.clear();                                        // A1.17
  const auto p = static_cast<std::uint8_t>(draw(config_.k));     // A1.18
  send(out, s.lock_set, Message{MessageKind::request_lock, p});  // A1.19
}

// A1.20-A1.21 the CleanUp action: (phase != bottom) or (state = UNLOCK) [or, R1, state = WIN].
template <class Word>
LMX_HANDLER void Protocol<Word>::clean_up_action(State& s, const Context<Word>& ctx, Out& out) const {
  clean_up(s, ctx, out);  // A1.21
}

// A2.1-A2.4 ReceiveRequest: on receiving request-lock(p) via port l.
template <class Word>
LMX_HANDLER void Protocol<Word>::receive_request(State& s, Port l, Message m, const Context<Word>& ctx,
                                                 Out& out) const {
  clean_up(s, ctx, out, Ports::of(l));  // A2.2 (R2 may answer l)
  if (s.applicants.contains(l)) {       // A2.3
    s.applicants.erase(l);              // A2.3 A <- A \ {l}
    // REPAIR R2 (docs/errata.md, E2): a trial of this competition has already been decided and
    // some candidate has not answered it yet (C \ P nonempty: a winner that may still set the
    // lock, or a loser that has not re-requested). The late applicant cannot win this trial;
    // keeping its priority would make the next trial wait for that candidate while the candidate
    // waits for the applicant's own participant (a cycle). Answer it at once.
    if (config_.variant != Variant::paper && !LMX_MUTANT(without_r2) && !LMX_MUTANT(r2_alt_wait_for_applicants) &&
        !LMX_MUTANT(r2_alt_winner_leaves_candidates) && !(s.candidates - s.priorities.ports).empty()) {
      s.candidates.insert(l);
      s.phase = ParticipantPhase::compete;
      send(out, Ports::of(l), Message{MessageKind::win, 0});
      return;
    }
    s.candidates.insert(l);  //      C <- C u {l}
  }
  if (s.priorities.ports.contains(l) && s.priorities.get(l) != m.value) out.priority_overwritten = true;
  s.priorities.set(l, m.value);         // A2.4 P <- P u {(l, p)}
  s.phase = ParticipantPhase::compete;  // A2.4 phase <- COMPETE
}

// A2.5-A2.10 CheckPriorities: (phase = COMPETE) and (|C| = |P|) [fast, F1: and lock = bottom].
template <class Word>
LMX_HANDLER void Protocol<Word>::check_priorities(State& s, const Context<Word>& ctx, PriorityDraw draw,
                                                  Out& out) const {
  clean_up(s, ctx, out, s.candidates - ctx.disconnected);  // A2.6
  Ports best = s.priorities.highest();
  // FAST F2: a tie for the highest priority is broken by the participant, with one draw in [0, K)
  // (the same draw as A1.18, so that hosts and the checker see one kind of random choice): the
  // tied candidate at index draw mod |best|. The paper sends win(false) to all of them (A2.9),
  // which wastes the trial of every tied candidate and of the participant.
  if (config_.variant == Variant::fast && !best.empty() && !best.single() && !LMX_MUTANT(win_true_to_ties)) {
    unsigned index = draw(config_.k) % best.size();
    for (Port l : best)
      if (index-- == 0) {
        best = Ports::of(l);
        break;
      }
  }
  if ((s.lock_port == no_port || LMX_MUTANT(win_ignores_lock)) &&
      (best.single() || (LMX_MUTANT(win_true_to_ties) && !best.empty()))) {  // A2.7 lock = bottom, unique highest p
    send(out, best, Message{MessageKind::win, 1});                           // A2.8 win(true)
    send(out, s.candidates - best, Message{MessageKind::win, 0});            // A2.8 win(false)
    if (LMX_MUTANT(r2_alt_winner_leaves_candidates)) s.candidates -= best;
  } else {
    send(out, s.candidates, Message{MessageKind::win, 0});  // A2.9 win(false) to all of C
  }
  if (!LMX_MUTANT(priorities_not_reset)) s.priorities.clear();  // A2.10 P <- empty
}

// A2.11-A2.13 ReceiveWin: on receiving win(b) via port l.
template <class Word>
LMX_HANDLER void Protocol<Word>::receive_win(State& s, Port l, Message m, const Context<Word>& ctx, Out& out) const {
  clean_up(s, ctx, out);  // A2.12
  if (m.value != 0)
    s.win_outcomes.won.insert(l);  // A2.13 W <- W u {(l, true)}
  else
    s.win_outcomes.lost.insert(l);  // A2.13 W <- W u {(l, false)}
}

// A2.14-A2.22 CheckWin: (state = COMPETE) and (|W| = |L|).
template <class Word>
LMX_HANDLER void Protocol<Word>::check_win(State& s, const Context<Word>& ctx, PriorityDraw draw, Out& out) const {
  clean_up(s, ctx, out, s.lock_set - ctx.disconnected);                        // A2.15
  if (!s.win_outcomes.lost.empty() && !LMX_MUTANT(check_win_ignores_false)) {  // A2.16 some (., false)
    const auto p = static_cast<std::uint8_t>(draw(config_.k));                 // A2.17
    send(out, s.lock_set, Message{MessageKind::request_lock, p});              // A2.18
  } else {                                                                     // A2.19
    s.state = InitiatorState::win;                                             // A2.20
    s.replied.clear();                                                         // A2.20
    send(out, s.lock_set, Message{MessageKind::set_lock, 0});                  // A2.21
  }
  s.win_outcomes.clear();  // A2.22
}

// A2.23-A2.26 ReceiveSetLock: on receiving set-lock via port l.
template <class Word>
LMX_HANDLER void Protocol<Word>::receive_set_lock(State& s, Port l, const Context<Word>& ctx, Out& out) const {
  s.lock_port = l;                                                   // A2.24 lock <- l
  if (!LMX_MUTANT(set_lock_keeps_candidate)) s.candidates.erase(l);  // A2.24 C <- C \ {l}
  clean_up(s, ctx, out, Ports::of(l));                               // A2.25
  send(out, Ports::of(l), Message{MessageKind::ack_lock, 0});        // A2.26
}

// A2.27-A2.29 ReceiveAckLock: on receiving ack-lock via port l.
template <class Word>
LMX_HANDLER void Protocol<Word>::receive_ack_lock(State& s, Port l, const Context<Word>& ctx, Out& out) const {
  clean_up(s, ctx, out);  // A2.28
  s.replied.insert(l);    // A2.29
}

// A2.30-A2.33 CheckDone: (state = WIN) and (R = L).
template <class Word>
LMX_HANDLER void Protocol<Word>::check_done(State& s, const Context<Word>& ctx, Out& out) const {
  clean_up(s, ctx, out);             // A2.31
  s.state = InitiatorState::locked;  // A2.32
  s.replied.clear();                 // A2.32
  out.lock_acquired = true;          // A2.33 return L
  out.locked_ports = s.lock_set;
}

// A3.6-A3.8 ReceiveRelease: on receiving release-lock via port l.
template <class Word>
LMX_HANDLER void Protocol<Word>::receive_release(State& s, Port l, const Context<Word>& ctx, Out& out) const {
  clean_up(s, ctx, out, Ports::of(l));                           // A3.7
  if (!LMX_MUTANT(release_keeps_lock)) s.lock_port = no_port;    // A3.8 lock <- bottom
  send(out, Ports::of(l), Message{MessageKind::ack_unlock, 0});  // A3.8
}

// A3.9-A3.11 ReceiveAckUnlock: on receiving ack-unlock via port l.
template <class Word>
LMX_HANDLER void Protocol<Word>::receive_ack_unlock(State& s, Port l, const Context<Word>& ctx, Out& out) const {
  clean_up(s, ctx, out);  // A3.10
  s.replied.insert(l);    // A3.11
}

// A3.12-A3.14 CheckUnlocked: (state = UNLOCK) and (R = L).
template <class Word>
LMX_HANDLER void Protocol<Word>::check_unlocked(State& s, const Context<Word>& ctx, Out& out) const {
  clean_up(s, ctx, out);           // A3.13
  s.state = InitiatorState::idle;  // A3.14
  s.replied.clear();               // A3.14
  out.unlocked = true;
}

template class Protocol<std::uint8_t>;
template class Protocol<std::uint16_t>;
template class Protocol<std::uint32_t>;
template class Protocol<std::uint64_t>;

}  // namespace lmx::core
