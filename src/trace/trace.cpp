// The shared trace writer and reader (include/lmx/trace/trace.hpp, docs/trace-format.md).
#include "lmx/trace/trace.hpp"

#include <cstdio>
#include <istream>
#include <ostream>

namespace lmx::trace {

std::string hex64(std::uint64_t value) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, value >>= 4) s[static_cast<std::size_t>(i)] = digits[value & 15];
  return s;
}

Writer::Writer(std::ostream* out, Sink sink, bool hash_only)
    : out_(out), sink_(std::move(sink)), enabled_(hash_only || out != nullptr || static_cast<bool>(sink_)) {}

void Writer::emit(std::string_view text) {
  if (out_) out_->write(text.data(), static_cast<std::streamsize>(text.size()));
  if (sink_) sink_(text);
}

void Writer::commit() {
  buf_ += '\n';
  hash_.add(buf_);
  emit(buf_);
  buf_.clear();
  ++t_;
}

void Writer::write_unhashed(std::string_view text) {
  std::string with_newline(text);
  with_newline += '\n';
  emit(with_newline);
}

bool Writer::good() const { return out_ == nullptr || out_->good(); }

Error::Error(const std::string& name, std::uint64_t line_number, const std::string& problem)
    : std::runtime_error(name + " line " + std::to_string(line_number) + ": " + problem), line(line_number) {}

std::string json_error_text(const nlohmann::json::exception& e) {
  std::string what = e.what();
  // nlohmann prefixes "[json.exception.parse_error.101] "; keep the readable part.
  if (auto pos = what.find("] "); pos != std::string::npos) what = what.substr(pos + 2);
  std::string text;
  for (const char c : what) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7F) {
      char escaped[9];
      std::snprintf(escaped, sizeof escaped, "<U+%04X>", byte);
      text += escaped;
    } else {
      text += c;
    }
  }
  return text;
}

std::string json_excerpt(const nlohmann::json& value) {
  const std::string dumped = value.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
  std::string text;
  for (const char c : dumped) {
    if (text.size() >= 60) return text + "...";
    if (c == 0x7F)
      text += "\\u007f";
    else
      text += c;
  }
  return text;
}

namespace {

// "malformed JSON at column 7: unexpected end of input; expected ..." rather than the library's wording.
// The parser also throws out_of_range (406) for a number too large for a double, "2.0e37109375";
// that is malformed input too, and has no column.
std::string malformed(const nlohmann::json::exception& e) {
  std::string what = json_error_text(e);
  if (auto pos = what.find(" - "); pos != std::string::npos) what = what.substr(pos + 3);
  if (const auto* parse = dynamic_cast<const nlohmann::json::parse_error*>(&e))
    return "malformed JSON at column " + std::to_string(parse->byte) + ": " + what;
  return "malformed JSON: " + what;
}
}  // namespace

void Reader::fail(std::uint64_t line, const std::string& problem) const { throw Error(name_, line, problem); }

bool Reader::read_text(std::string& text) {
  if (!std::getline(in_, text)) {
    if (in_.bad()) fail(number_ + 1, "read error");
    return false;
  }
  ++number_;
  if (in_.eof()) fail(number_, "the line has no newline at its end (the file was cut short)");
  if (text.empty()) fail(number_, "empty line (a trace has one JSON object on every line)");
  if (text.find('\0') != std::string::npos) fail(number_, "NUL byte in the line");
  if (text.back() == '\r') fail(number_, "carriage return at the end of the line (lines end with \\n alone)");
  return true;
}

Reader::Reader(std::istream& in, std::string name) : in_(in), name_(std::move(name)) {
  if (!read_text(header_.text)) fail(1, "the file is empty: a trace starts with an lmx-trace header line");
  header_.number = 1;
  try {
    header_.event = nlohmann::json::parse(header_.text);
  } catch (const nlohmann::json::exception& e) {
    fail(1, "the header is " + malformed(e));
  }
  const auto& h = header_.event;
  if (!h.is_object() || !h.contains("type") || h["type"] != "lmx-trace")
    fail(1, "not an lmx trace header (\"type\" must be \"lmx-trace\")");
  if (!h.contains("schema") || h["schema"] != schema)
    fail(1, "unknown trace schema " + (h.contains("schema") ? json_excerpt(h["schema"]) : std::string("(missing)")) +
                " (this lmx reads schema " + std::to_string(schema) + ")");
  if (!h.contains("source") || !h["source"].is_string()) fail(1, "the header has no \"source\"");
  hash_.add(header_.text), hash_.add("\n");
}

bool Reader::next(Line& line) {
  if (ended_) {
    std::string extra;
    if (read_text(extra)) fail(number_, "a line after the end line");
    return false;
  }
  if (!read_text(line.text)) return false;
  line.number = number_;
  try {
    line.event = nlohmann::json::parse(line.text);
  } catch (const nlohmann::json::exception& e) {
    fail(number_, malformed(e));
  }
  const auto& e = line.event;
  if (!e.is_object() || !e.contains("ev") || !e["ev"].is_string()) fail(number_, "an event needs a string \"ev\"");
  line.ev = e["ev"].get<std::string>();
  const std::uint64_t want_t = number_ - 1;
  if (!e.contains("t") || !e["t"].is_number_unsigned() || e["t"].get<std::uint64_t>() != want_t)
    fail(number_, "\"t\" must be " + std::to_string(want_t) + " (the line's position after the header), got " +
                      (e.contains("t") ? json_excerpt(e["t"]) : std::string("none")));
  if (line.ev == "end") {
    if (!e.contains("hash") || !e["hash"].is_string()) fail(number_, "the end line has no \"hash\"");
    if (e["hash"] != hex64(hash_.value()))
      fail(number_, "the end line's hash " + json_excerpt(e["hash"]) + " is not the hash of the lines before it (" +
                        hex64(hash_.value()) + "): the trace was changed");
    ended_ = true;
    return true;
  }
  hash_.add(line.text), hash_.add("\n");
  return true;
}

std::uint64_t get_uint(const Reader& reader, const Line& line, const char* key, std::uint64_t lo, std::uint64_t hi) {
  const auto& e = line.event;
  // the event's name as JSON: escaped, never a raw control character
  if (!e.contains(key)) reader.fail(line.number, json_excerpt(nlohmann::json(line.ev)) + " needs \"" + key + "\"");
  const auto& v = e[key];
  if (!v.is_number_unsigned() || v.get<std::uint64_t>() < lo || v.get<std::uint64_t>() > hi)
    reader.fail(line.number, std::string("\"") + key + "\" must be an integer in " + std::to_string(lo) + ".." +
                                 std::to_string(hi) + ", got " + json_excerpt(v));
  return v.get<std::uint64_t>();
}

}  // namespace lmx::trace
