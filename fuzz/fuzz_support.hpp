// What every fuzz target checks the same way: a broken property is a crash (libFuzzer keeps the
// input), and an error message is one printable line (it goes to a terminal as it is).
#pragma once

#include <string>

namespace lmx::fuzz {

inline void require(bool holds) {
  if (!holds) __builtin_trap();
}

/// One line without control characters (C0 or DEL).
inline bool printable_line(const std::string& text) {
  for (const char c : text)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) return false;
  return true;
}

}  // namespace lmx::fuzz
