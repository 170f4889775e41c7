// The lmx-trace/1 format (docs/trace-format.md), shared by everything that writes or reads a trace:
// the simulator (`lmx run --trace`, `lmx replay`), the exhaustive checker (counterexamples), the
// report and the replay of counterexamples on the core.
//  - LineHash: the trace hash, FNV-1a 64 over the bytes of every line before the `end` line.
//  - Writer:   JSON Lines out, each line counted (`t`) and hashed; to a stream or to a callback;
//              a failed write is remembered and reported, never ignored.
//  - Reader:   JSON Lines in, every line checked: one JSON object, an `ev`, `t` in order, nothing
//              after `end`, and the `end` line's hash equal to the hash of the lines read.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>

namespace lmx::trace {

/// The schema this lmx writes and reads.
inline constexpr int schema = 1;

/// A 64-bit value as 16 lowercase hex digits (the form of every hash in traces and summaries).
[[nodiscard]] std::string hex64(std::uint64_t value);
/// A JSON library error as one printable line: without the library's "[json.exception...]" prefix,
/// and with the control characters its excerpt of the input may carry (it escapes C0 but not DEL)
/// written as <U+007F>, the library's own notation.
[[nodiscard]] std::string json_error_text(const nlohmann::json::exception& e);
/// A value from the input as an error message shows it: compact JSON, non-ASCII as \uXXXX, DEL
/// as \u007f (the library escapes C0 controls only), cut to 60 characters with "...".
[[nodiscard]] std::string json_excerpt(const nlohmann::json& value);

/// FNV-1a 64 over bytes.
class LineHash {
 public:
  static constexpr std::uint64_t offset_basis = 0xCBF29CE484222325ull;
  void add(std::string_view bytes) {
    for (unsigned char c : bytes) h_ = (h_ ^ c) * 0x100000001B3ull;
  }
  [[nodiscard]] std::uint64_t value() const { return h_; }

 private:
  std::uint64_t h_ = offset_basis;
};

/// Writes trace lines. `enabled()` is false when neither a stream nor a sink was given and no hash
/// was asked for: the producer then formats no line at all.
class Writer {
 public:
  using Sink = std::function<void(std::string_view line_with_newline)>;
  Writer() = default;
  /// Lines go to `out` (may be null) and to `sink` (may be empty); with `hash_only`, lines are
  /// produced and hashed even with neither.
  Writer(std::ostream* out, Sink sink, bool hash_only);
  [[nodiscard]] bool enabled() const { return enabled_; }
  /// The buffer of the line being built; commit() hashes it, writes it and counts it.
  std::string& line() { return buf_; }
  void commit();
  /// Writes a line that is not part of the hash (the `end` line).
  void write_unhashed(std::string_view text);
  [[nodiscard]] std::uint64_t hash() const { return hash_.value(); }
  /// Lines committed so far: the `t` of the next line.
  [[nodiscard]] std::uint64_t t() const { return t_; }
  /// Whether every write to the stream succeeded so far.
  [[nodiscard]] bool good() const;

 private:
  void emit(std::string_view text);
  std::ostream* out_ = nullptr;
  Sink sink_;
  bool enabled_ = false;
  std::string buf_;
  LineHash hash_;
  std::uint64_t t_ = 0;
};

/// A malformed trace: what() is "NAME line N: problem".
struct Error : std::runtime_error {
  Error(const std::string& name, std::uint64_t line, const std::string& problem);
  std::uint64_t line;
};

/// One line read from a trace.
struct Line {
  std::uint64_t number = 0;  ///< 1-based line number in the file
  std::string text;          ///< the line without its newline
  nlohmann::json event;      ///< the parsed object
  std::string ev;            ///< its `ev` ("" for the header)
};

/// Reads a trace, validating as it goes. Throws Error for the first problem, naming the line.
class Reader {
 public:
  /// Reads and checks the header (type, schema, source). `name` is used in messages.
  Reader(std::istream& in, std::string name);
  [[nodiscard]] const nlohmann::json& header() const { return header_.event; }
  [[nodiscard]] const Line& header_line() const { return header_; }
  /// The next event line; false after the `end` line or, for a trace without one, at the end of
  /// the file (then `complete()` is false).
  bool next(Line& line);
  /// Whether the `end` line was read, and its hash matched the lines before it.
  [[nodiscard]] bool complete() const { return ended_; }
  /// The hash of the lines read so far (all before `end` once complete).
  [[nodiscard]] std::uint64_t hash() const { return hash_.value(); }
  [[nodiscard]] const std::string& name() const { return name_; }
  [[noreturn]] void fail(std::uint64_t line, const std::string& problem) const;

 private:
  bool read_text(std::string& text);
  std::istream& in_;
  std::string name_;
  Line header_;
  LineHash hash_;
  std::uint64_t number_ = 0;
  bool ended_ = false;
};

/// Reads a numeric field of an event as an integer in [lo, hi] (throws through `reader.fail`).
std::uint64_t get_uint(const Reader& reader, const Line& line, const char* key, std::uint64_t lo, std::uint64_t hi);

}  // namespace lmx::trace
