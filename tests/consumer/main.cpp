// A single node locks itself (no neighbours): InitLock, then its own messages in order.
#include <cstdio>
#include <lmx/core/protocol.hpp>
#include <string>

int main() {
  using namespace lmx::core;
  Protocol<std::uint8_t> protocol(Config{3, 4, Variant::repaired});
  State8 node;
  auto zero = [](unsigned) { return 0u; };
  const auto draw = PriorityDraw::from(zero);
  const Context<std::uint8_t> ctx{};
  auto fx = protocol.lock(node, ctx);
  Message pending = fx.sends[0].message;  // prepare to port 0
  for (int step = 0; step < 20 && node.state != InitiatorState::locked; ++step) {
    if (fx.send_count > 0) {
      pending = fx.sends[fx.send_count - 1].message;
      fx = protocol.step(node, Activation{receive_action(pending.kind), self_port, pending}, ctx, draw);
      continue;
    }
    for (Action a : guarded_actions)
      if (protocol.guard(node, a) && a != Action::clean_up) {
        fx = protocol.step(node, Activation{a}, ctx, draw);
        break;
      }
  }
  std::printf("state %s, lock %d\n", std::string(to_string(node.state)).c_str(), int(node.lock_port));
  return node.state == InitiatorState::locked && node.lock_port == self_port ? 0 : 1;
}
