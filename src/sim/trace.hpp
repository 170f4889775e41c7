// Trace output (lmx-trace/1, docs/trace-format.md) and the two hashes:
//  - the event hash, folded over a compact binary form of every event; always computed (it costs a
//    few multiplications per event) and reported as `trace_hash`;
//  - the line hash, FNV-1a 64 over the JSON lines; computed only when lines are produced
//    (--trace, replay), and written in the `end` line as `hash`.
#pragma once

#include <array>
#include <cstdint>
#include <ostream>
#include <string>

namespace lmx::sim {

/// Event kinds of the compact form (also used for violation excerpts).
enum class EvKind : std::uint8_t { connect, cut, send, lost, act, call, done, move, violation };

/// One event in compact form: 16 bytes.
struct Ev {
  std::uint32_t tick = 0;
  EvKind kind = EvKind::act;
  std::uint8_t b1 = 0, b2 = 0, b3 = 0;
  std::uint32_t u = 0, v = 0;
};

class EventLog {
 public:
  static constexpr std::size_t ring_size = 4096;
  void add(const Ev& e) { add(first_word(e.kind, e.b1, e.b2, e.b3, e.u), second_word(e.v, e.tick)); }
  /// The two hashed words of an event, for callers that build them in parts (a send's words differ
  /// only in the port and the receiver).
  static constexpr std::uint64_t first_word(EvKind kind, std::uint8_t b1, std::uint8_t b2, std::uint8_t b3,
                                            std::uint32_t u) {
    return static_cast<std::uint64_t>(kind) | (std::uint64_t{b1} << 8) | (std::uint64_t{b2} << 16) |
           (std::uint64_t{b3} << 24) | (std::uint64_t{u} << 32);
  }
  static constexpr std::uint64_t second_word(std::uint32_t v, std::uint32_t tick) {
    return std::uint64_t{v} | (std::uint64_t{tick} << 32);
  }
  void add(std::uint64_t w1, std::uint64_t w2) {
    // The ring keeps the two hashed words, not the Ev: one computation serves both, and the
    // index is a mask (ring_size is a power of two).
    fold(w1), fold(w2);
    ring_[count_++ & (ring_size - 1)] = Words{w1, w2};
  }
  [[nodiscard]] std::uint64_t hash() const { return h_; }
  [[nodiscard]] std::uint64_t count() const { return count_; }
  /// Events still in the ring, oldest first, via f(const Ev&).
  template <class F>
  void for_recent(F&& f) const {
    const std::uint64_t first = count_ > ring_size ? count_ - ring_size : 0;
    for (std::uint64_t i = first; i < count_; ++i) f(event(ring_[i & (ring_size - 1)]));
  }

 private:
  static_assert((ring_size & (ring_size - 1)) == 0);
  struct Words {
    std::uint64_t w1, w2;
  };
  static Ev event(const Words& w) {
    Ev e;
    e.kind = static_cast<EvKind>(w.w1 & 0xFF);
    e.b1 = static_cast<std::uint8_t>(w.w1 >> 8), e.b2 = static_cast<std::uint8_t>(w.w1 >> 16);
    e.b3 = static_cast<std::uint8_t>(w.w1 >> 24), e.u = static_cast<std::uint32_t>(w.w1 >> 32);
    e.v = static_cast<std::uint32_t>(w.w2), e.tick = static_cast<std::uint32_t>(w.w2 >> 32);
    return e;
  }
  void fold(std::uint64_t w) {
    h_ = (h_ ^ w) * 0x9E3779B97F4A7C15ull;
    h_ ^= h_ >> 29;
  }
  std::uint64_t h_ = 0xCBF29CE484222325ull;
  std::uint64_t count_ = 0;
  std::array<Words, ring_size> ring_{};
};

/// JSON Lines writer with the FNV-1a line hash.
class LineWriter {
 public:
  LineWriter(std::ostream* out, bool enabled) : out_(out), enabled_(enabled || out != nullptr) {}
  [[nodiscard]] bool enabled() const { return enabled_; }
  /// The line buffer to fill; commit() hashes and writes it.
  std::string& line() { return buf_; }
  void commit() {
    buf_ += '\n';
    for (unsigned char c : buf_) h_ = (h_ ^ c) * 0x100000001B3ull;
    if (out_) out_->write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
    buf_.clear();
    ++t_;
  }
  /// The end line is not part of the hash.
  void write_unhashed(const std::string& s) {
    if (out_) *out_ << s << '\n';
  }
  [[nodiscard]] std::uint64_t hash() const { return h_; }
  [[nodiscard]] std::uint64_t t() const { return t_; }

 private:
  std::ostream* out_;
  bool enabled_;
  std::string buf_;
  std::uint64_t h_ = 0xCBF29CE484222325ull;
  std::uint64_t t_ = 0;
};

}  // namespace lmx::sim
