// The liveness graph: the actions of node moves and their targets, coded (docs/checker.md,
// Performance, "A coded liveness graph"). Internal to lmx::check; a header so that tests can reach
// the graph's code.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "model.hpp"
#include "storage.hpp"

namespace lmx::check::detail {

// Task identity of an action (node, move, port or action, message), plus flags.
constexpr std::uint32_t completes_bit = 1u << 24;
constexpr std::uint32_t fair_bit = 1u << 25;
constexpr std::uint32_t task_mask = completes_bit - 1;
constexpr std::uint32_t stutter_task = task_mask;
// What the liveness graph keeps of an action: a byte of flags, the node in bits 3..4. The task
// word itself is needed only for the members of end components, and is recomputed for them.
constexpr std::uint8_t flag_probabilistic = 1;
constexpr std::uint8_t flag_completes = 2;
constexpr std::uint8_t flag_fair = 4;

inline std::uint32_t task_of(const Label& l, const Outcome& o) {
  std::uint32_t type = 0, fair = fair_bit;
  switch (l.move) {
    case Move::guarded: type = 0; break;
    case Move::unlock: type = 1; break;
    case Move::deliver: type = 2; break;
    case Move::lock: type = 3, fair = 0; break;  // the application may never call Lock
    default: break;
  }
  const std::uint32_t a = l.move == Move::deliver || l.move == Move::guarded ? l.a : 0;
  const std::uint32_t b = l.move == Move::deliver ? l.b : 0;
  return std::uint32_t{l.node} << 16 | type << 12 | a << 8 | b | fair |
         ((o.completed_lock || o.completed_unlock) ? completes_bit : 0);
}

inline std::uint8_t flags_of(const Label& l, const Outcome& o) {
  const std::uint32_t task = task_of(l, o);
  return static_cast<std::uint8_t>((l.probabilistic ? flag_probabilistic : 0) |
                                   ((task & completes_bit) ? flag_completes : 0) | ((task & fair_bit) ? flag_fair : 0) |
                                   (l.node & 3u) << 3);
}

/// The liveness graph: actions of node moves (no topology moves). An action has K targets if it
/// draws a priority (flag_probabilistic) and one otherwise, so a state's targets follow from its
/// actions without an offset per action.
///
/// Targets are stored as a code, not as a number each: a state's targets, in action order, each as
/// its difference from the previous target (from the state itself for the first), zigzag-mapped
/// and written as a prefix varint (the first byte's trailing zeros give the length), with the
/// target's renaming and twisted bit below it under symmetry reduction. Breadth first, the states
/// first found by one state are numbered consecutively, so most differences are small: about 3
/// bytes per target instead of 5 (docs/checker.md, Performance, "A coded liveness graph").
struct Graph {
  BlockOffsets state_begin;    ///< first action of each state (size states+1)
  Column<std::uint8_t> flags;  ///< per action: flags_of
  unsigned k = 2;

  /// A position in the code: reading the targets of one state, in order.
  struct Cursor {
    std::uint64_t pos;
    std::uint32_t prev;  ///< the previous target read (raw: before the sink is substituted)
  };
  /// A target read with its renaming (node_map of the renaming from the successor to the stored
  /// state) and whether the successor had to be renamed at all (both only under symmetry reduction).
  struct Target {
    std::uint32_t to;
    std::uint8_t nodes;
    bool twisted;
  };
  /// A target that becomes the state numbered in finish(), once it is known (the lifted graph's sink).
  static constexpr std::uint32_t sink_target = UINT32_MAX;

  /// Under symmetry reduction, targets carry their node renaming (as an index among the
  /// permutations of `nodes`) and a twisted bit.
  void keep_renamings(unsigned nodes) {
    std::array<std::uint8_t, max_nodes> p{};
    for (unsigned v = 0; v < nodes; ++v) p[v] = static_cast<std::uint8_t>(v);
    perm_map_.clear();
    do {
      unsigned m = 0;
      for (unsigned v = 0; v < nodes; ++v) m |= unsigned{p[v]} << (2 * v);
      perm_index_[m] = static_cast<std::uint8_t>(perm_map_.size());
      perm_map_.push_back(static_cast<std::uint8_t>(m));
    } while (std::next_permutation(p.begin(), p.begin() + nodes));
    unsigned bits = 0;
    while ((std::size_t{1} << bits) < perm_map_.size()) ++bits;
    meta_bits_ = bits + 1;
  }

  /// Keeps the graph in temporary files (Region::keep_in_file), before the first state: during
  /// the exploration, which only appends to it, its pages can leave memory for the stored states.
  void keep_in_files() {
    state_begin.keep_in_file();
    flags.keep_in_file();
    code_.keep_in_file();
    code_begin_.keep_in_file();
  }

  /// Saves the finished graph to the files of a checkpoint named from `prefix`, after shrink():
  /// the copies need the disk.
  void save(FileSet& out, const std::string& prefix) {
    shrink();
    state_begin.save(out, prefix + "state_begin");
    flags.save(out, prefix + "flags.bin");
    code_.save(out, prefix + "code.bin", 8);  // the 8 readable bytes past the end that next() loads
    code_begin_.save(out, prefix + "code_begin");
  }
  /// Gives back the columns' spare space (Column::shrink): memory, or with keep_in_files the
  /// disk blocks of files grown by doubling, which hold up to twice the graph.
  void shrink() {
    state_begin.shrink();
    flags.shrink();
    code_.shrink();
    code_begin_.shrink();
  }
  /// Reads back a graph saved by save() (after keep_renamings with the same nodes and with k set),
  /// mapped read-only; finished. Throws if its files do not fit together; verify() checks the rest.
  void load(const std::string& prefix) {
    state_begin.load(prefix + "state_begin");
    flags.load(prefix + "flags.bin");
    code_.load(prefix + "code.bin", 8);
    code_begin_.load(prefix + "code_begin");
    if (state_begin.size() == 0 || code_begin_.size() + 1 != state_begin.size() || state_begin.back() != flags.size())
      throw std::runtime_error("check: the graph saved at " + prefix + " does not match");
    sink_ = sink_target;
  }

  /// Whether a graph read back (load) is one the exploration of `states` states and `nodes` nodes
  /// could have written, so that reading it never leaves its files and every target is a state:
  /// offsets non-decreasing and inside the actions and the code, flags of known bits and nodes,
  /// every target coded as save() codes it (a prefix varint of at most 6 bytes, a renaming among
  /// the permutations of the nodes), inside its state's code, which it fills exactly, and below
  /// `states`. Returns an empty text, or what is wrong (graph.cpp).
  [[nodiscard]] std::string verify(std::size_t states, unsigned nodes) const;

  [[nodiscard]] unsigned outcomes(std::uint64_t a) const { return (flags[a] & flag_probabilistic) ? k : 1; }
  [[nodiscard]] std::size_t states() const { return state_begin.size() - 1; }  // after finish()
  [[nodiscard]] std::size_t bytes() const {
    return state_begin.bytes() + flags.size() + code_.size() + code_begin_.bytes();
  }

  /// Starts the actions of the next state.
  void open_state() {
    const std::size_t s = state_begin.size();
    state_begin.push_back(flags.size());
    code_begin_.push_back(code_.size());
    prev_ = static_cast<std::uint32_t>(s);
  }
  /// One node move to `to`: a new action, unless it is a further outcome of a priority draw.
  void add(const Label& l, const Outcome& o, std::uint32_t to, std::uint8_t nodes = 0, bool twisted = false) {
    if (l.prio == 0) flags.push_back(flags_of(l, o));
    put(to, nodes, twisted);
  }
  /// Ends state `self`; if no task was enabled (no node move at all, or only Lock calls, which the
  /// application may never make), time passes: a stutter step, not a task of any node. Returns
  /// whether it added that step. `identity`: node_map of the identity renaming.
  bool close_state(std::uint32_t self, std::uint8_t identity = 0) {
    for (std::size_t a = state_begin.back(); a < flags.size(); ++a)
      if (flags[a] & flag_fair) return false;
    flags.push_back(0);
    put(self, identity, false);
    return true;
  }
  /// Ends the graph (the offsets' final entries); sink_target reads as `sink` from now on.
  void finish(std::uint32_t sink = sink_target) {
    state_begin.push_back(flags.size());
    sink_ = sink;
  }

  /// Appends state `s` of graph `from` (with the same k and renamings) as this graph's next
  /// state, its actions as they are and its targets renumbered by `renumber` (a part of the graph,
  /// numbered apart). The state's stutter step, if any, is copied with it.
  template <class F>
  void copy_state(const Graph& from, std::size_t s, F&& renumber) {
    open_state();
    from.each_action(s, [&](std::uint64_t a, const Target* ts, unsigned m) {
      flags.push_back(from.flags[a]);
      for (unsigned i = 0; i < m; ++i) put(renumber(ts[i].to), ts[i].nodes, ts[i].twisted);
    });
  }

  [[nodiscard]] Cursor first(std::size_t s) const { return {code_begin_[s], static_cast<std::uint32_t>(s)}; }
  /// Reads the next target. Branch-free: the code keeps 8 readable bytes past its end.
  Target next(Cursor& c) const {
    std::uint64_t w;
    std::memcpy(&w, code_.data() + c.pos, 8);
    const unsigned len = static_cast<unsigned>(__builtin_ctzll(w | 0x100)) + 1;  // at most 6 bytes are written
    const std::uint64_t v = (w << (64 - 8 * len)) >> (64 - 8 * len) >> len;
    c.pos += len;
    const auto z = static_cast<std::uint32_t>(v >> meta_bits_);
    c.prev += (z >> 1) ^ (0u - (z & 1u));  // zigzag, modulo 2^32
    const auto meta = static_cast<unsigned>(v & ((1u << meta_bits_) - 1));
    return {c.prev == sink_target ? sink_ : c.prev, meta_bits_ ? perm_map_[meta >> 1] : std::uint8_t{0},
            (meta & 1u) != 0};
  }
  [[nodiscard]] std::uint32_t next_to(Cursor& c) const { return next(c).to; }

  /// Calls f(action, targets, count) for each action of state s.
  template <class F>
  void each_action(std::size_t s, F&& f) const {
    Cursor c = first(s);
    std::array<Target, core::k_max> ts;
    for (std::uint64_t a = state_begin[s]; a < state_begin[s + 1]; ++a) {
      const unsigned m = outcomes(a);
      for (unsigned i = 0; i < m; ++i) ts[i] = next(c);
      f(a, ts.data(), m);
    }
  }
  /// Calls f(target) for each target of state s until f returns false.
  template <class F>
  void each_target(std::size_t s, F&& f) const {
    Cursor c = first(s);
    for (std::uint64_t a = state_begin[s]; a < state_begin[s + 1]; ++a)
      for (unsigned i = outcomes(a); i > 0; --i)
        if (!f(next(c))) return;
  }

 private:
  void put(std::uint32_t to, std::uint8_t nodes, bool twisted) {
    const auto d = static_cast<std::int32_t>(to - prev_);  // modulo 2^32, read back the same way
    prev_ = to;
    const std::uint32_t z = static_cast<std::uint32_t>(d) << 1 ^ static_cast<std::uint32_t>(d >> 31);
    const std::uint64_t meta = meta_bits_ ? (std::uint64_t{perm_index_[nodes]} << 1 | (twisted ? 1u : 0u)) : 0;
    const std::uint64_t v = std::uint64_t{z} << meta_bits_ | meta;
    unsigned len = 1;
    while (len < 8 && (v >> (7 * len)) != 0) ++len;
    code_.append_word((v << len | std::uint64_t{1} << (len - 1)), len);
  }
  Column<std::uint8_t> code_;
  BlockOffsets code_begin_;                     ///< per state: where its targets begin
  std::vector<std::uint8_t> perm_map_;          ///< renaming index -> node_map
  std::array<std::uint8_t, 256> perm_index_{};  ///< node_map -> renaming index
  unsigned meta_bits_ = 0;
  std::uint32_t prev_ = 0;
  std::uint32_t sink_ = sink_target;
};

}  // namespace lmx::check::detail
