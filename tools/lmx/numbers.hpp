// Numbers given to options, parsed here: CLI11 wraps "-1" into an unsigned option.
#pragma once

#include <fmt/format.h>

#include <charconv>
#include <cstdint>
#include <string>

#include "command.hpp"
#include "lmx/sim/scenario.hpp"

namespace lmx::cli {

/// An option's whole number in lo..hi, decimal digits only; throws Failure naming `option`
/// otherwise.
inline std::uint64_t whole_number(const std::string& text, const char* option, std::uint64_t lo, std::uint64_t hi) {
  std::uint64_t x = 0;
  const char* end = text.data() + text.size();
  const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
  if (!digits || std::from_chars(text.data(), end, x).ec != std::errc{} || x < lo || x > hi)
    throw Failure(fmt::format("{} must be a whole number in {}..{}, got '{}'", option, lo, hi, sim::printable(text)));
  return x;
}

}  // namespace lmx::cli
