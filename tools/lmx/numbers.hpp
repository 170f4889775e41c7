// Numbers given to options, parsed here: CLI11 wraps "-1" into an unsigned option.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <string>
#include <thread>

#if defined(__linux__)
#include <sched.h>
#endif

#include "command.hpp"
#include "lmx/sim/scenario.hpp"
#include "lmx/sim/simulation.hpp"

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

/// `--seed`: a whole number in 0..2^64-1, as a scenario's `seed` key (docs/scenarios.md, "Seeds"):
/// signs, other bases and out-of-range values are errors, never another seed.
inline std::uint64_t seed_option(const std::string& text) {
  try {
    return sim::parse_seed(text, "--seed");
  } catch (const sim::ScenarioError& e) {
    throw Failure(e.what());
  }
}

/// The CPUs this process may run on (its affinity mask, which `taskset` and container cpusets
/// narrow), or the machine's count where the mask is not available; at least 1.
inline unsigned usable_cpus() {
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
#endif
  return std::max(1u, std::thread::hardware_concurrency());
}

/// Threads that help a run: its actions on one, a mobile scenario's plan on a second
/// (docs/simulator.md, "Threads"); more change nothing.
inline constexpr unsigned useful_threads = 2;

/// `--threads`: a whole number in 1..max_threads, or `auto`: as many threads as help a run
/// (useful_threads), but no more than the CPUs this process may use.
inline unsigned threads_option(const std::string& text, const char* option) {
  if (text == "auto") return std::min(useful_threads, usable_cpus());
  try {
    return static_cast<unsigned>(whole_number(text, option, 1, sim::max_threads));
  } catch (const Failure&) {
    throw Failure(fmt::format("{} must be 'auto' or a whole number in 1..{}, got '{}'", option, sim::max_threads,
                              sim::printable(text)));
  }
}

}  // namespace lmx::cli
