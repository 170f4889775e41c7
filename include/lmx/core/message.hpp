// The eight message kinds of Algorithms 1-3 and their one-byte wire format (property P6).
#pragma once

#include <cstdint>
#include <string_view>

namespace lmx::core {

enum class MessageKind : std::uint8_t {
  prepare,       // Alg. 1: initiator -> participant, "I intend to lock you"
  ready,         // Alg. 1: participant -> initiator, applicant admitted
  request_lock,  // Alg. 2: carries a priority p < K
  win,           // Alg. 2: carries the outcome bit
  set_lock,      // Alg. 2
  ack_lock,      // Alg. 2
  release_lock,  // Alg. 3
  ack_unlock,    // Alg. 3
};
inline constexpr unsigned message_kind_count = 8;

struct Message {
  MessageKind kind = MessageKind::prepare;
  /// request-lock: the priority; win: 1 for true, 0 for false; otherwise 0.
  std::uint8_t value = 0;
  constexpr bool operator==(const Message&) const = default;
};

/// Wire format: bits 7..5 the kind, bits 4..0 the value. Always one byte (K <= 32).
inline constexpr unsigned message_bits = 8;

[[nodiscard]] constexpr std::uint8_t encode(Message m) {
  return static_cast<std::uint8_t>((static_cast<unsigned>(m.kind) << 5) | (m.value & 0x1Fu));
}

enum class DecodeError : std::uint8_t {
  none,
  priority_out_of_range,  // request-lock with p >= K
  win_value_not_bit,      // win with a value other than 0 or 1
  unexpected_value,       // a kind without payload carrying a non-zero value
};

struct Decoded {
  Message message;
  DecodeError error = DecodeError::none;
  [[nodiscard]] constexpr bool ok() const { return error == DecodeError::none; }
};

/// Validates every byte: each of the 256 values decodes to a message or to an error.
[[nodiscard]] constexpr Decoded decode(std::uint8_t byte, unsigned k) {
  const auto kind = static_cast<MessageKind>(byte >> 5);
  const auto value = static_cast<std::uint8_t>(byte & 0x1Fu);
  // Selections rather than a switch on the kind: the kinds arrive in no predictable order.
  const bool request = kind == MessageKind::request_lock, win = kind == MessageKind::win;
  const unsigned bound = request ? k : win ? 2u : 1u;  // the valid payloads are those below it
  const DecodeError over = request ? DecodeError::priority_out_of_range
                           : win   ? DecodeError::win_value_not_bit
                                   : DecodeError::unexpected_value;
  return Decoded{Message{kind, value}, value >= bound ? over : DecodeError::none};
}

/// The paper's spelling: "prepare", "ready", "request-lock", "win", "set-lock", ...
std::string_view to_string(MessageKind kind);
std::string_view to_string(DecodeError error);
/// Parses the paper's spelling; returns false when the name is unknown.
bool parse_message_kind(std::string_view name, MessageKind& out);

}  // namespace lmx::core
