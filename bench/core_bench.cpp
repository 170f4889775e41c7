// ns per activation of every handler of Algorithms 1-3 (Protocol::step, Protocol::lock/unlock), at
// Delta in {2, 6, 8, 15, 63} with the narrowest register that holds ports 0..Delta. Each state is
// prepared so that the action's guard holds with full-size sets (every port 0..Delta in the sets
// the action reads), and each iteration copies it before stepping, so every iteration does the
// same work. `copy/...` measures the copy alone: the baseline to compare against on a noisy host.
//
//   build/release/bench/core_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <functional>
#include <string>

#include "lmx/core/protocol.hpp"

namespace {
using namespace lmx::core;

constexpr unsigned k = 32;
constexpr Port from = 1;  // the port every delivered message arrives on

unsigned draw_constant(void*, unsigned bound) { return bound - 1; }

template <class Word>
struct Setup {
  NodeState<Word> state;
  Activation activation;
};

/// A state where `action` is enabled and its sets are full, for ports 0..delta.
template <class Word>
Setup<Word> prepare(Action action, unsigned delta) {
  using Ports = PortSet<Word>;
  const Ports all = Ports::range(0, static_cast<Port>(delta));
  Setup<Word> x;
  auto& s = x.state;
  auto deliver = [&](MessageKind kind, std::uint8_t value = 0) { x.activation = {action, from, Message{kind, value}}; };
  x.activation = {action, self_port, {}};
  switch (action) {
    case Action::init_lock:
    case Action::init_unlock:
      s.state = action == Action::init_lock ? InitiatorState::idle : InitiatorState::locked;
      s.lock_set = all;
      break;
    case Action::receive_prepare:  // competing for everyone else: the newcomer goes on hold
      s.phase = ParticipantPhase::compete;
      s.candidates = all - Ports::of(from);
      deliver(MessageKind::prepare);
      break;
    case Action::receive_ready:
    case Action::receive_ack_lock:
    case Action::receive_ack_unlock:
      s.state = action == Action::receive_ready      ? InitiatorState::prepare
                : action == Action::receive_ack_lock ? InitiatorState::win
                                                     : InitiatorState::unlock;
      s.lock_set = all;
      s.replied = all - Ports::of(from);
      deliver(action == Action::receive_ready      ? MessageKind::ready
              : action == Action::receive_ack_lock ? MessageKind::ack_lock
                                                   : MessageKind::ack_unlock);
      break;
    case Action::check_start:
    case Action::check_done:
    case Action::check_unlocked:
      s.state = action == Action::check_start  ? InitiatorState::prepare
                : action == Action::check_done ? InitiatorState::win
                                               : InitiatorState::unlock;
      s.lock_set = s.replied = all;
      break;
    case Action::clean_up: {  // every register full, one port disconnected (passed in the context)
      s.phase = ParticipantPhase::compete;
      s.lock_set = s.replied = all;
      s.win_outcomes.won = all;
      Ports even;
      for (Port p : all)
        if (p % 2 == 0) even.insert(p);
      s.candidates = even;
      s.applicants = all - even;
      for (Port p : even) s.priorities.set(p, p % k);
      break;
    }
    case Action::receive_request:
      s.phase = ParticipantPhase::prepare;
      s.applicants = all;
      deliver(MessageKind::request_lock, 7);
      break;
    case Action::check_priorities:
      s.phase = ParticipantPhase::compete;
      s.candidates = all;
      for (Port p : all) s.priorities.set(p, p % k);
      break;
    case Action::receive_win:
      s.state = InitiatorState::compete;
      s.lock_set = all;
      s.win_outcomes.won = all - Ports::of(from);
      deliver(MessageKind::win, 1);
      break;
    case Action::check_win:  // won everywhere: the set-lock path
      s.state = InitiatorState::compete;
      s.lock_set = all;
      s.win_outcomes.won = all;
      break;
    case Action::receive_set_lock:
      s.phase = ParticipantPhase::compete;
      s.candidates = all;
      deliver(MessageKind::set_lock);
      break;
    case Action::receive_release:
      s.lock_port = from;
      deliver(MessageKind::release_lock);
      break;
  }
  return x;
}

template <class Word>
void register_delta(unsigned delta) {
  using Ports = PortSet<Word>;
  const std::string suffix = "/delta:" + std::to_string(delta) + "/bits:" + std::to_string(sizeof(Word) * 8);
  const Ports neighbours = Ports::range(1, static_cast<Port>(delta));

  benchmark::RegisterBenchmark(("copy" + suffix).c_str(), [delta](benchmark::State& st) {
    const auto x = prepare<Word>(Action::check_priorities, delta);
    for (auto _ : st) {
      NodeState<Word> copy = x.state;
      benchmark::DoNotOptimize(copy);
      benchmark::ClobberMemory();
    }
  });

  for (unsigned i = 0; i < action_count; ++i) {
    const auto action = static_cast<Action>(i);
    benchmark::RegisterBenchmark((std::string(to_string(action)) + suffix).c_str(), [delta, action,
                                                                                     neighbours](benchmark::State& st) {
      const Protocol<Word> protocol(Config{delta, k, Variant::repaired});
      const auto x = prepare<Word>(action, delta);
      const Context<Word> ctx{action == Action::clean_up ? Ports::of(static_cast<Port>(delta)) : Ports{}, neighbours};
      const PriorityDraw draw(&draw_constant, nullptr);
      if (!protocol.guard(x.state, action) && !is_receive(action) && action != Action::init_lock &&
          action != Action::init_unlock) {
        st.SkipWithError("guard does not hold in the prepared state");
        return;
      }
      for (auto _ : st) {
        NodeState<Word> copy = x.state;
        auto fx = protocol.step(copy, x.activation, ctx, draw);
        benchmark::DoNotOptimize(fx);
        benchmark::DoNotOptimize(copy);
        benchmark::ClobberMemory();
      }
    });
  }
}

[[maybe_unused]] const bool registered = [] {
  register_delta<std::uint8_t>(2);
  register_delta<std::uint8_t>(6);
  register_delta<std::uint16_t>(8);
  register_delta<std::uint16_t>(15);
  register_delta<std::uint64_t>(63);
  return true;
}();

}  // namespace
