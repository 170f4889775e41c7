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
                                                    "r2-alt-winner-leaves-candidates"};
  return names[static_cast<unsigned>(m)];
}
}  // namespace testing
#define LMX_MUTANT(name) (::lmx::core::testing::active_mutant == ::lmx::core::testing::Mutant::name)
#else
#define LMX_MUTANT(name) false
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
    const Ports released =
        config_.variant == Variant::repaired && !LMX_MUTANT(without_r3) ? s.on_hold - busy : s.on_hold;
    send(out, released, Message{MessageKind::ready, 0});  // A1.28 Send(ready, l) for l in H
    s.applicants |= released;                             // A1.29 A <- A u H
    s.on_hold -= released;                                // A1.29 H <- empty (R3: the held ports kept above remain)
    s.phase = s.applicants.empty() && s.on_hold.empty() ? ParticipantPhase::idle      // A1.31 else phase <- bottom
                                                        : ParticipantPhase::prepare;  // A1.30 if A nonempty: PREPARE
  }
}

template <class Word>
bool Protocol<Word>::guard(const State& s, Action a) const {
  switch (a) {
    case Action::check_start:  // A1.15
      return s.state == InitiatorState::prepare && s.replied == s.lock_set;
    case Action::clean_up:  // A1.20
      if (s.phase != ParticipantPhase::idle || s.state == InitiatorState::unlock) return true;
      // REPAIR R1 (docs/errata.md, E1): an initiator in WIN whose own participant role has gone
      // idle must still be able to process a disconnection, or CheckDone waits forever for an
      // ack-lock lost with its edge.
      return config_.variant == Variant::repaired && !LMX_MUTANT(without_r1) && s.state == InitiatorState::win;
    case Action::check_priorities:  // A2.5
      return s.phase == ParticipantPhase::compete && s.candidates.size() == s.priorities.size() &&
             (!LMX_MUTANT(r2_alt_wait_for_applicants) || s.applicants.empty());
    case Action::check_win:  // A2.14
      return s.state == InitiatorState::compete && s.win_outcomes.size() == s.lock_set.size();
    case Action::check_done:  // A2.30
      return s.state == InitiatorState::win &&
             (s.replied == s.lock_set || (LMX_MUTANT(check_done_early) && s.replied.size() + 1 >= s.lock_set.size()));
    case Action::check_unlocked:  // A3.12
      return s.state == InitiatorState::unlock && s.replied == s.lock_set;
    default: return false;
  }
}

template <class Word>
ActionSet Protocol<Word>::enabled_guarded(const State& s) const {
  ActionSet set;
  for (Action a : guarded_actions)
    if (guard(s, a)) set.insert(a);
  return set;
}

// A1.1-A1.5 InitLock, on Lock being called.
template <class Word>
Effects<Word> Protocol<Word>::lock(State& s, const Context<Word>& ctx) const {
  Out out;
  if (!valid(ctx)) return out.status = Status::invalid_input, out;
  if (s.state != InitiatorState::idle) return out.status = Status::rejected, out;  // A1.2
  clean_up(s, ctx, out, ctx.neighbours | Ports::of(self_port));                    // A1.3 (L is N[u] below)
  s.state = InitiatorState::prepare;                                               // A1.4
  s.lock_set = ctx.neighbours | Ports::of(self_port);                              // A1.4 L <- N[u]
  send(out, s.lock_set, Message{MessageKind::prepare, 0});                         // A1.5
  return out;
}

// A3.1-A3.5 InitUnlock, on Unlock being called.
template <class Word>
Effects<Word> Protocol<Word>::unlock(State& s, const Context<Word>& ctx) const {
  Out out;
  if (!valid(ctx)) return out.status = Status::invalid_input, out;
  if (s.state != InitiatorState::locked) return out.status = Status::rejected, out;  // A3.2
  clean_up(s, ctx, out, s.lock_set - ctx.disconnected);                              // A3.3
  s.state = InitiatorState::unlock;                                                  // A3.4
  s.replied.clear();                                                                 // A3.4
  send(out, s.lock_set, Message{MessageKind::release_lock, 0});                      // A3.5
  return out;
}

template <class Word>
Effects<Word> Protocol<Word>::step(State& s, const Activation& a, const Context<Word>& ctx, PriorityDraw draw) const {
  Out out;
  if (!valid(ctx)) return out.status = Status::invalid_input, out;
  if (a.action == Action::init_lock) return lock(s, ctx);
  if (a.action == Action::init_unlock) return unlock(s, ctx);
  const Port l = a.port;
  if (is_receive(a.action)) {
    if (l > config_.delta || receive_action(a.message.kind) != a.action) return out.status = Status::invalid_input, out;
    const Decoded d = decode(encode(a.message), config_.k);
    if (!d.ok() || d.message != a.message) return out.status = Status::invalid_input, out;
  } else if (!guard(s, a.action)) {
    return out.status = Status::not_enabled, out;
  }

  switch (a.action) {
    case Action::receive_prepare:                                                             // A1.6
      if (!LMX_MUTANT(skip_cleanup_in_receive_prepare)) clean_up(s, ctx, out, Ports::of(l));  // A1.7
      if (s.phase == ParticipantPhase::compete) {                                             // A1.8
        s.on_hold.insert(l);                                                                  // A1.8 H <- H u {l}
      } else {                                                                                // A1.9
        s.applicants.insert(l);                                                               // A1.10 A <- A u {l}
        s.phase = ParticipantPhase::prepare;                                                  // A1.10 phase <- PREPARE
        send(out, Ports::of(l), Message{MessageKind::ready, 0});                              // A1.11
      }
      break;

    case Action::receive_ready:  // A1.12
      clean_up(s, ctx, out);     // A1.13
      s.replied.insert(l);       // A1.14 R <- R u {l}
      break;

    case Action::check_start: {                                      // A1.15
      clean_up(s, ctx, out, s.lock_set - ctx.disconnected);          // A1.16
      s.state = InitiatorState::compete;                             // A1.17
      s.replied.clear();                                             // A1.17
      s.win_outcomes.clear();                                        // A1.17
      const auto p = static_cast<std::uint8_t>(draw(config_.k));     // A1.18
      send(out, s.lock_set, Message{MessageKind::request_lock, p});  // A1.19
      break;
    }

    case Action::clean_up:    // A1.20
      clean_up(s, ctx, out);  // A1.21
      break;

    case Action::receive_request:           // A2.1
      clean_up(s, ctx, out, Ports::of(l));  // A2.2 (R2 may answer l)
      if (s.applicants.contains(l)) {       // A2.3
        s.applicants.erase(l);              // A2.3 A <- A \ {l}
        // REPAIR R2 (docs/errata.md, E2): a trial of this competition has already been decided
        // and some candidate has not answered it yet (C \ P nonempty: a winner that may still
        // set the lock, or a loser that has not re-requested). The late applicant cannot win this
        // trial; keeping its priority would make the next trial wait for that candidate while the
        // candidate waits for the applicant's own participant (a cycle). Answer it at once.
        if (config_.variant == Variant::repaired && !LMX_MUTANT(without_r2) &&
            !LMX_MUTANT(r2_alt_wait_for_applicants) && !LMX_MUTANT(r2_alt_winner_leaves_candidates) &&
            !(s.candidates - s.priorities.ports).empty()) {
          s.candidates.insert(l);
          s.phase = ParticipantPhase::compete;
          send(out, Ports::of(l), Message{MessageKind::win, 0});
          break;
        }
        s.candidates.insert(l);  //      C <- C u {l}
      }
      if (s.priorities.ports.contains(l) && s.priorities.get(l) != a.message.value) out.priority_overwritten = true;
      s.priorities.set(l, a.message.value);  // A2.4 P <- P u {(l, p)}
      s.phase = ParticipantPhase::compete;   // A2.4 phase <- COMPETE
      break;

    case Action::check_priorities: {                           // A2.5
      clean_up(s, ctx, out, s.candidates - ctx.disconnected);  // A2.6
      const Ports best = s.priorities.highest();
      if ((s.lock_port == no_port || LMX_MUTANT(win_ignores_lock)) &&
          (best.single() || (LMX_MUTANT(win_true_to_ties) && !best.empty()))) {  // A2.7 lock = bottom, unique highest p
        send(out, best, Message{MessageKind::win, 1});                           // A2.8 win(true)
        send(out, s.candidates - best, Message{MessageKind::win, 0});            // A2.8 win(false)
        if (LMX_MUTANT(r2_alt_winner_leaves_candidates)) s.candidates -= best;
      } else {
        send(out, s.candidates, Message{MessageKind::win, 0});  // A2.9 win(false) to all of C
      }
      if (!LMX_MUTANT(priorities_not_reset)) s.priorities.clear();  // A2.10 P <- empty
      break;
    }

    case Action::receive_win:  // A2.11
      clean_up(s, ctx, out);   // A2.12
      if (a.message.value != 0)
        s.win_outcomes.won.insert(l);  // A2.13 W <- W u {(l, true)}
      else
        s.win_outcomes.lost.insert(l);  // A2.13 W <- W u {(l, false)}
      break;

    case Action::check_win:                                                        // A2.14
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
      break;

    case Action::receive_set_lock:                                       // A2.23
      s.lock_port = l;                                                   // A2.24 lock <- l
      if (!LMX_MUTANT(set_lock_keeps_candidate)) s.candidates.erase(l);  // A2.24 C <- C \ {l}
      clean_up(s, ctx, out, Ports::of(l));                               // A2.25
      send(out, Ports::of(l), Message{MessageKind::ack_lock, 0});        // A2.26
      break;

    case Action::receive_ack_lock:  // A2.27
      clean_up(s, ctx, out);        // A2.28
      s.replied.insert(l);          // A2.29
      break;

    case Action::check_done:             // A2.30
      clean_up(s, ctx, out);             // A2.31
      s.state = InitiatorState::locked;  // A2.32
      s.replied.clear();                 // A2.32
      out.lock_acquired = true;          // A2.33 return L
      out.locked_ports = s.lock_set;
      break;

    case Action::receive_release:                                    // A3.6
      clean_up(s, ctx, out, Ports::of(l));                           // A3.7
      if (!LMX_MUTANT(release_keeps_lock)) s.lock_port = no_port;    // A3.8 lock <- bottom
      send(out, Ports::of(l), Message{MessageKind::ack_unlock, 0});  // A3.8
      break;

    case Action::receive_ack_unlock:  // A3.9
      clean_up(s, ctx, out);          // A3.10
      s.replied.insert(l);            // A3.11
      break;

    case Action::check_unlocked:       // A3.12
      clean_up(s, ctx, out);           // A3.13
      s.state = InitiatorState::idle;  // A3.14
      s.replied.clear();               // A3.14
      out.unlocked = true;
      break;

    default: out.status = Status::invalid_input; break;
  }
  return out;
}

template class Protocol<std::uint8_t>;
template class Protocol<std::uint16_t>;
template class Protocol<std::uint32_t>;
template class Protocol<std::uint64_t>;

}  // namespace lmx::core
