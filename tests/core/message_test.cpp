// P6: every message is one byte; every one of the 256 byte values decodes to a message or an error.
#include "lmx/core/message.hpp"

#include <gtest/gtest.h>

#include "lmx/core/protocol.hpp"

using namespace lmx::core;

TEST(Message, EveryValidMessageRoundTripsForEveryK) {
  for (unsigned k = k_min; k <= k_max; ++k) {
    for (unsigned kind = 0; kind < message_kind_count; ++kind) {
      const auto mk = static_cast<MessageKind>(kind);
      const unsigned values = mk == MessageKind::request_lock ? k : mk == MessageKind::win ? 2 : 1;
      for (unsigned v = 0; v < values; ++v) {
        const Message m{mk, static_cast<std::uint8_t>(v)};
        const Decoded d = decode(encode(m), k);
        ASSERT_TRUE(d.ok()) << to_string(mk) << " value " << v << " K=" << k;
        EXPECT_EQ(d.message, m);
      }
    }
  }
}

TEST(Message, AllByteValuesDecodeOrFailCleanly) {
  for (unsigned k = k_min; k <= k_max; ++k) {
    unsigned valid = 0;
    for (unsigned byte = 0; byte < 256; ++byte) {
      const Decoded d = decode(static_cast<std::uint8_t>(byte), k);
      if (d.ok()) {
        ++valid;
        EXPECT_EQ(encode(d.message), byte);
        continue;
      }
      // The error names the reason that matches the kind.
      switch (d.message.kind) {
        case MessageKind::request_lock: EXPECT_EQ(d.error, DecodeError::priority_out_of_range); break;
        case MessageKind::win: EXPECT_EQ(d.error, DecodeError::win_value_not_bit); break;
        default: EXPECT_EQ(d.error, DecodeError::unexpected_value); break;
      }
    }
    // 6 kinds without payload, 2 win values, K priorities.
    EXPECT_EQ(valid, 6 + 2 + k) << "K=" << k;
  }
}

TEST(Message, KindNamesRoundTrip) {
  for (unsigned kind = 0; kind < message_kind_count; ++kind) {
    MessageKind parsed{};
    ASSERT_TRUE(parse_message_kind(to_string(static_cast<MessageKind>(kind)), parsed));
    EXPECT_EQ(static_cast<unsigned>(parsed), kind);
  }
  MessageKind unused{};
  EXPECT_FALSE(parse_message_kind("hello", unused));
}
