// The one-byte message codec and the core stepping on what hostile peers and a hostile host send:
// any byte, any port, any action, any detector snapshot. Every activation must end in one of the
// documented statuses, keep every register within ports 0..Delta, send only to ports 0..Delta, and
// reject (invalid_input) what does not decode or names a port outside the node.
//
// Input: byte 0 picks the register width and the variant, byte 1 Delta, byte 2 K; then one
// activation per 12 bytes: action, port, message byte, a priority draw, D and N(u) as 4 bytes each.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "fuzz_support.hpp"
#include "lmx/core/protocol.hpp"

namespace {

using namespace lmx::core;

/// A broken property is a crash: libFuzzer reports it with the input.
using lmx::fuzz::require;

struct Bytes {
  const std::uint8_t* data;
  std::size_t size;
  std::size_t at = 0;
  std::uint8_t next() { return at < size ? data[at++] : 0; }
  std::uint32_t next32() {
    std::uint32_t x = 0;
    for (int i = 0; i < 4; ++i) x = x << 8 | next();
    return x;
  }
  [[nodiscard]] bool done() const { return at >= size; }
};

void check_codec(unsigned k) {
  for (unsigned byte = 0; byte < 256; ++byte) {
    const Decoded d = decode(static_cast<std::uint8_t>(byte), k);
    require(encode(d.message) == byte);  // the codec loses nothing, valid or not
    const unsigned kind = byte >> 5, value = byte & 0x1Fu;
    const bool valid = kind == 2 ? value < k : kind == 3 ? value < 2 : value == 0;
    require(d.ok() == valid);
  }
}

template <class Word>
void run(const Config& config, Bytes& in) {
  const Protocol<Word> protocol(config);
  using Ports = PortSet<Word>;
  const Ports all = Ports::range(0, static_cast<Port>(config.delta));
  NodeState<Word> s;
  unsigned draw_byte = 0;
  auto draw = [&draw_byte](unsigned bound) { return draw_byte % bound; };
  while (!in.done()) {
    const auto action = static_cast<Action>(in.next());  // any byte, not only the sixteen actions
    const Port port = in.next();
    const std::uint8_t byte = in.next();
    draw_byte = in.next();
    const Context<Word> ctx{Ports(static_cast<Word>(in.next32())), Ports(static_cast<Word>(in.next32()))};
    const Decoded decoded = decode(byte, config.k);
    const Activation a{action, port, decoded.message};
    const auto before = s;
    const Effects<Word> fx = protocol.step(s, a, ctx, PriorityDraw::from(draw));

    require(fx.status == Status::ok || fx.status == Status::not_enabled || fx.status == Status::rejected ||
            fx.status == Status::invalid_input);
    const bool context_valid = ((ctx.disconnected | ctx.neighbours) - (all - Ports::of(self_port))).empty();
    if (!context_valid) require(fx.status == Status::invalid_input);
    if (is_receive(action) && (port > config.delta || !decoded.ok() || receive_action(decoded.message.kind) != action))
      require(fx.status == Status::invalid_input);
    if (fx.status != Status::ok) {
      require(s == before);  // a refused activation changes nothing
      require(fx.send_count == 0);
      continue;
    }
    require(fx.send_count <= 3);
    for (unsigned i = 0; i < fx.send_count; ++i) {
      require((fx.sends[i].ports - all).empty());
      require(decode(encode(fx.sends[i].message), config.k).ok());  // what it sends, a peer accepts
    }
    const Ports registers[] = {s.lock_set, s.replied,    s.win_outcomes.won, s.win_outcomes.lost,
                               s.on_hold,  s.applicants, s.candidates,       s.priorities.ports};
    for (Ports r : registers) require((r - all).empty());
    require(s.lock_port == no_port || s.lock_port <= config.delta);
    for (Port p : s.priorities.ports) require(s.priorities.get(p) < config.k);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Bytes in{data, size};
  const unsigned shape = in.next();
  const unsigned width = 8u << (shape & 3u);  // 8, 16, 32 or 64-bit registers
  Config config;
  config.variant = (shape & 4u) ? Variant::paper : Variant::repaired;
  config.delta = 1 + in.next() % (width - 1);  // 1..width-1: what the width holds
  config.k = k_min + in.next() % (k_max - k_min + 1);
  if (shape & 8u) check_codec(config.k);
  switch (width) {
    case 8: run<std::uint8_t>(config, in); break;
    case 16: run<std::uint16_t>(config, in); break;
    case 32: run<std::uint32_t>(config, in); break;
    default: run<std::uint64_t>(config, in); break;
  }
  return 0;
}
