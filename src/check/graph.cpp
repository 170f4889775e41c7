// Verifying a liveness graph read back from a checkpoint (docs/checker.md, "The checkpoint's
// format"): the checks that let the analysis read it without leaving its files.
#include "graph.hpp"

namespace lmx::check::detail {

std::string Graph::verify(std::size_t states, unsigned nodes) const {
  if (this->states() != states) return "its states are not the checkpoint's";
  if (!state_begin.verify(0, flags.size())) return "its offsets of actions are out of order";
  if (code_begin_.size() != states || !code_begin_.verify(0, code_.size()))
    return "its offsets of targets are out of order";
  for (std::size_t a = 0; a < flags.size(); ++a)
    if ((flags[a] & ~0x1Fu) != 0 || ((flags[a] >> 3) & 3u) >= nodes) return "an action's flags are not an action's";
  const std::uint8_t* code = code_.data();
  for (std::size_t s = 0; s < states; ++s) {
    if (state_begin[s + 1] == state_begin[s]) return "a state has no action";
    std::uint64_t pos = code_begin_[s];
    const std::uint64_t end = s + 1 < states ? code_begin_[s + 1] : code_.size();
    auto prev = static_cast<std::uint32_t>(s);
    for (std::uint64_t a = state_begin[s]; a < state_begin[s + 1]; ++a)
      for (unsigned i = outcomes(a); i > 0; --i) {
        // As next() reads a target, with every bound checked (next() checks none).
        if (pos >= end || code[pos] == 0) return "a target's code is broken";
        const unsigned len = static_cast<unsigned>(__builtin_ctz(code[pos])) + 1;
        if (len > 6 || end - pos < len) return "a target's code is broken";
        std::uint64_t v = 0;
        for (unsigned b = 0; b < len; ++b) v |= std::uint64_t{code[pos + b]} << (8 * b);
        v >>= len;
        pos += len;
        if ((v >> meta_bits_) > UINT32_MAX) return "a target's code is broken";
        const auto z = static_cast<std::uint32_t>(v >> meta_bits_);
        prev += (z >> 1) ^ (0u - (z & 1u));
        if (prev >= states) return "a target is not a state";
        if (meta_bits_ != 0 && ((v & ((1u << meta_bits_) - 1)) >> 1) >= perm_map_.size())
          return "a target's renaming is not one";
      }
    if (pos != end) return "a state's targets do not fill its code";
  }
  return {};
}

}  // namespace lmx::check::detail
