// Names of the protocol's enums, spelt as in the paper where the paper names them.
#include <array>

#include "lmx/core/message.hpp"
#include "lmx/core/protocol.hpp"

namespace lmx::core {

namespace {
constexpr std::array<std::string_view, message_kind_count> message_names = {
    "prepare", "ready", "request-lock", "win", "set-lock", "ack-lock", "release-lock", "ack-unlock"};
constexpr std::array<std::string_view, action_count> action_names = {
    "InitLock",        "ReceivePrepare", "ReceiveReady",     "CheckStart",     "CleanUp",        "ReceiveRequest",
    "CheckPriorities", "ReceiveWin",     "CheckWin",         "ReceiveSetLock", "ReceiveAckLock", "CheckDone",
    "InitUnlock",      "ReceiveRelease", "ReceiveAckUnlock", "CheckUnlocked"};

template <class Array, class Enum>
bool parse_by_name(const Array& names, std::string_view name, Enum& out) {
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) {
      out = static_cast<Enum>(i);
      return true;
    }
  return false;
}
}  // namespace

std::string_view to_string(MessageKind kind) { return message_names[static_cast<unsigned>(kind)]; }
bool parse_message_kind(std::string_view name, MessageKind& out) { return parse_by_name(message_names, name, out); }

std::string_view to_string(DecodeError error) {
  switch (error) {
    case DecodeError::none: return "ok";
    case DecodeError::priority_out_of_range: return "request-lock priority not below K";
    case DecodeError::win_value_not_bit: return "win value is neither 0 nor 1";
    case DecodeError::unexpected_value: return "message kind carries no value but the value bits are not zero";
  }
  return "unknown";
}

std::string_view to_string(Action a) { return action_names[static_cast<unsigned>(a)]; }
bool parse_action(std::string_view name, Action& out) { return parse_by_name(action_names, name, out); }

std::string_view to_string(InitiatorState s) {
  constexpr std::array<std::string_view, 6> names = {"BOT", "PREPARE", "COMPETE", "WIN", "LOCKED", "UNLOCK"};
  return names[static_cast<unsigned>(s)];
}
std::string_view to_string(ParticipantPhase p) {
  constexpr std::array<std::string_view, 3> names = {"BOT", "PREPARE", "COMPETE"};
  return names[static_cast<unsigned>(p)];
}
std::string_view to_string(Variant v) {
  return v == Variant::paper ? "paper" : v == Variant::fast ? "fast" : "repaired";
}
bool parse_variant(std::string_view name, Variant& out) {
  if (name == "paper") return out = Variant::paper, true;
  if (name == "fast") return out = Variant::fast, true;
  if (name == "repaired" || name == "default") return out = Variant::repaired, true;
  return false;
}

std::string_view to_string(Status s) {
  switch (s) {
    case Status::ok: return "ok";
    case Status::not_enabled: return "not enabled";
    case Status::rejected: return "rejected";
    case Status::invalid_input: return "invalid input";
  }
  return "unknown";
}

}  // namespace lmx::core
