// Breadth-first exploration, invariants, deadlock and fair end components (docs/checker.md).
#include "lmx/check/checker.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <new>
#include <span>
#include <sstream>
#include <stdexcept>
#include <tuple>
#include <type_traits>

#include "graph.hpp"
#include "model.hpp"

namespace lmx::check {

using namespace detail;
using core::InitiatorState;

std::string parse_edges(const std::string& text, std::vector<std::pair<unsigned, unsigned>>& out) {
  out.clear();
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.empty()) continue;
    const auto dash = item.find('-');
    if (dash == std::string::npos) return "edge '" + item + "' is not of the form U-V";
    try {
      out.emplace_back(static_cast<unsigned>(std::stoul(item.substr(0, dash))),
                       static_cast<unsigned>(std::stoul(item.substr(dash + 1))));
    } catch (...) {
      return "edge '" + item + "' is not of the form U-V";
    }
  }
  return {};
}

std::string validate(const Instance& inst) {
  if (inst.nodes < 1 || inst.nodes > max_nodes) return "--nodes must be 1.." + std::to_string(max_nodes);
  if (inst.delta < 1 || inst.delta > max_delta) return "--delta must be 1.." + std::to_string(max_delta);
  if (inst.k < core::k_min || inst.k > core::k_max) return "--k must be 2..32";
  if (inst.locks > 15) return "--locks must be at most 15";
  if (inst.max_changes > 15) return "--max-changes must be at most 15";
  std::vector<unsigned> degree(inst.nodes, 0);
  for (std::size_t i = 0; i < inst.edges.size(); ++i) {
    auto [u, v] = inst.edges[i];
    if (u >= inst.nodes || v >= inst.nodes || u == v)
      return "edge " + std::to_string(u) + "-" + std::to_string(v) + " is not between two distinct nodes";
    for (std::size_t j = 0; j < i; ++j)
      if ((inst.edges[j].first == u && inst.edges[j].second == v) ||
          (inst.edges[j].first == v && inst.edges[j].second == u))
        return "edge " + std::to_string(u) + "-" + std::to_string(v) + " given twice";
    if (++degree[u] > inst.delta || ++degree[v] > inst.delta) return "a node has more than Delta neighbours";
  }
  return {};
}

std::string describe(const Instance& inst) {
  std::string e;
  for (auto [u, v] : inst.edges) e += (e.empty() ? "" : ",") + std::to_string(u) + "-" + std::to_string(v);
  return std::string(core::to_string(inst.variant)) + " nodes=" + std::to_string(inst.nodes) +
         " edges=" + (e.empty() ? "none" : e) + " delta=" + std::to_string(inst.delta) +
         " k=" + std::to_string(inst.k) +
         " locks=" + (inst.locks == unbounded_locks ? std::string("unbounded") : std::to_string(inst.locks)) +
         " changes=" + std::to_string(inst.max_changes);
}

namespace {

/// The set of stored states: an arena of packed states and an open-addressing index (linear
/// probing). Each slot holds the state's number and 32 further bits of its hash, so that a probe
/// compares the stored bytes only when the hashes agree: a mismatch costs no access to the arena.
/// The index may have any number of slots (a state's first slot is the low half of its hash scaled
/// to the table, the high half is the tag), so it grows by half instead of doubling: on the largest
/// instances that is gigabytes, at the end of the exploration and while growing.
class StateSet {
 public:
  explicit StateSet(std::size_t stride) : stride_(stride) { table_ = index_of(slots_); }
  [[nodiscard]] std::size_t size() const { return count_; }
  [[nodiscard]] const std::uint8_t* at(std::size_t i) const { return arena_.data() + i * stride_; }
  /// Makes room for `extra` insertions without growing the index (so prefetched slots stay valid).
  void reserve(std::size_t extra) {
    if (arena_.in_file()) throw std::logic_error("check: an insertion into states moved to a file");
    while ((count_ + extra) * 10 > slots_ * 7) grow();  // load factor at most 0.7
    if ((count_ + extra) * stride_ > arena_.bytes())
      arena_.grow(std::max((count_ + extra) * stride_, 2 * arena_.bytes()));
  }
  [[nodiscard]] std::uint64_t hash(const std::uint8_t* s) const { return hash_bytes(s, stride_); }
  void prefetch(std::uint64_t h) const { __builtin_prefetch(slot() + home(h)); }
  /// Prefetches the stored state the first matching slot points at (a hint: most successors
  /// are already stored, and comparing them is the second cache miss of a lookup).
  void prefetch_match(std::uint64_t h) const {
    const std::uint64_t e = slot()[home(h)];
    if (e != 0 && (e & tag_bits) == (h & tag_bits)) __builtin_prefetch(at(static_cast<std::uint32_t>(e) - 1));
  }
  /// Returns (index, inserted); needs reserve() first. `h` is hash(s).
  std::pair<std::uint32_t, bool> insert(const std::uint8_t* s, std::uint64_t h) {
    const std::uint64_t tag = h & tag_bits;
    std::uint64_t* t = slot();
    for (std::size_t i = home(h);; i = next(i)) {
      const std::uint64_t e = t[i];
      if (e == 0) {
        std::memcpy(arena_.data() + count_ * stride_, s, stride_);
        t[i] = tag | static_cast<std::uint32_t>(++count_);
        return {static_cast<std::uint32_t>(count_ - 1), true};
      }
      if ((e & tag_bits) == tag) {
        const auto idx = static_cast<std::uint32_t>(e) - 1;
        if (std::memcmp(at(idx), s, stride_) == 0) return {idx, false};
      }
    }
  }
  std::pair<std::uint32_t, bool> insert(const std::uint8_t* s) {
    reserve(1);
    return insert(s, hash(s));
  }
  /// The index of a stored state, or UINT32_MAX.
  [[nodiscard]] std::uint32_t find(const std::uint8_t* s) const { return find(s, hash(s)); }
  /// The same, with `h` = hash(s).
  [[nodiscard]] std::uint32_t find(const std::uint8_t* s, std::uint64_t h) const {
    if (table_.bytes() == 0) throw std::logic_error("check: a lookup in a released index");
    const std::uint64_t tag = h & tag_bits;
    for (std::size_t i = home(h);; i = next(i)) {
      const std::uint64_t e = slot()[i];
      if (e == 0) return UINT32_MAX;
      if ((e & tag_bits) == tag && std::memcmp(at(static_cast<std::uint32_t>(e) - 1), s, stride_) == 0)
        return static_cast<std::uint32_t>(e) - 1;
    }
  }
  /// Frees the index (lookups and insertions need restore_index() first); the states stay.
  void release_index() { table_ = Region{}; }
  /// Moves the stored states to a temporary file (Region::move_to_file): no insertions after it.
  bool move_states_to_file() { return arena_.move_to_file(count_ * stride_); }
  /// Builds the index again from the stored states.
  void restore_index() {
    if (table_.bytes() != 0) return;
    rebuild();
  }
  /// Saves the stored states to a file at `path`.
  void save(const std::string& path) const { save_file(path, arena_.data(), count_ * stride_); }
  /// The stored states become those saved at `path` (mapped read-only, as by move_states_to_file),
  /// without an index: restore_index() builds it, sized as the insertions would have.
  void load(const std::string& path) {
    table_ = Region{};
    const std::size_t bytes = arena_.map_file(path);
    if (bytes % stride_ != 0) throw std::runtime_error("check: " + path + " has the wrong size for its states");
    count_ = bytes / stride_;
    constexpr std::size_t most = std::size_t{1} << 32;
    while (count_ * 10 > slots_ * 7 && slots_ < most) slots_ = std::min(slots_ + slots_ / 2, most);
  }
  /// Arena plus index, per stored state.
  [[nodiscard]] std::size_t bytes_per_state() const {
    return count_ == 0 ? stride_ : stride_ + slots_ * sizeof(std::uint64_t) / count_;
  }

 private:
  static constexpr std::uint64_t tag_bits = 0xFFFFFFFF00000000ull;
  [[nodiscard]] std::uint64_t* slot() const { return reinterpret_cast<std::uint64_t*>(table_.data()); }
  // The slots are at most 2^32 (checked in grow), so the product fits 64 bits.
  [[nodiscard]] std::size_t home(std::uint64_t h) const { return (h & 0xFFFFFFFFu) * slots_ >> 32; }
  [[nodiscard]] std::size_t next(std::size_t i) const { return i + 1 == slots_ ? 0 : i + 1; }
  /// Puts an entry known to be absent into table `t` (of slots_ slots), at the first free slot from
  /// the home of its hash `h`.
  void place(std::uint64_t* t, std::uint64_t h, std::uint64_t entry) const {
    std::size_t i = home(h);
    while (t[i] != 0) i = next(i);
    t[i] = entry;
  }
  static Region index_of(std::size_t slots) {
    Region r;
    r.grow(slots * sizeof(std::uint64_t));
    return r;
  }
  void grow() {
    constexpr std::size_t most = std::size_t{1} << 32;  // 0.7 of it exceeds every 32-bit state number
    if (slots_ == most) throw std::length_error("check: state index over 2^32 slots");
    // The old index is freed before the new one is built: the stored states say where each goes
    // (hashing them again, as moving their slots would need to anyway). So growing never holds
    // two indexes, which on the largest instances was the run's peak of memory.
    table_ = Region{};
    slots_ = std::min(slots_ + slots_ / 2, most);
    rebuild();
  }
  /// Every stored state goes to its home slot, a cache miss at a random place of the table; their
  /// hashes are computed `rebuild_ahead` states early and the homes prefetched, so that the misses
  /// overlap instead of coming one after another (growing took a fifth of an exploration).
  static constexpr std::size_t rebuild_ahead = 32;
  void rebuild() {
    table_ = index_of(slots_);
    std::array<std::uint64_t, rebuild_ahead> ring{};
    const std::size_t first = std::min(count_, rebuild_ahead);
    for (std::size_t j = 0; j < first; ++j) {
      ring[j] = hash_bytes(at(j), stride_);
      prefetch(ring[j]);
    }
    for (std::size_t j = 0; j < count_; ++j) {
      const std::uint64_t h = ring[j % rebuild_ahead];
      if (j + rebuild_ahead < count_) {
        const std::uint64_t ahead = hash_bytes(at(j + rebuild_ahead), stride_);
        prefetch(ahead);
        ring[j % rebuild_ahead] = ahead;
      }
      place(slot(), h, (h & tag_bits) | static_cast<std::uint32_t>(j + 1));
    }
  }
  std::size_t stride_;
  std::size_t count_ = 0;
  std::size_t slots_ = std::size_t{1} << 16;
  Region arena_;
  Region table_;
};

struct Pending {
  std::string kind, signature, detail;
  std::vector<unsigned> nodes;
  std::uint32_t state = 0;  ///< the violating state (or the source of a violating transition)
  bool has_label = false;
  Label label;  ///< the violating transition, for transition problems
  /// The concrete state that `nodes` and `label` refer to: under symmetry reduction the path
  /// found to the stored state may end in another member of its orbit, and they are renamed.
  Global where;
  /// The detail begins with the node it is about ("node 0 stays in ..."), renamed with `nodes`.
  bool detail_names_node = false;
};

/// Maximal end components of the sub-MDP restricted to `in`, returned as a component id per
/// state (UINT32_MAX outside), and `allowed` per action.
///
/// Only components that changed are decomposed again: after an iteration every allowed action
/// stays inside its strongly connected component, so a component in which no action and no state
/// was dropped is final (it is strongly connected and closed), and states and actions dropped in
/// one component can only affect that component.
/// `round_started` (optional) is told each round's number (from 1) and the states it decomposes.
std::vector<std::uint32_t> end_components(const Graph& gr, std::vector<bool>& in, std::vector<bool>& allowed,
                                          const std::function<void(unsigned, std::size_t)>& round_started = {}) {
  const std::size_t n = in.size();
  const std::size_t na = gr.flags.size();
  allowed.assign(na, false);
  for (std::size_t s = 0; s < n; ++s)
    if (in[s])
      for (std::uint64_t a = gr.state_begin[s]; a < gr.state_begin[s + 1]; ++a) allowed[a] = true;
  // Tarjan's algorithm in Pearce's form ("A space-efficient algorithm for finding strongly
  // connected components", 2016): one number per state serves as its visit index, its low link
  // and, once its component is closed, that component (numbered down from `closed`, above every
  // visit index, so no minimum picks it): no low-link array, no on-stack flags and no component
  // array, 9 bytes per state less than the textbook form.
  constexpr std::uint32_t unvisited = UINT32_MAX, closed = UINT32_MAX - 1;
  if (n >= closed / 2) throw std::length_error("check: too many states for the end components");
  std::vector<std::uint32_t> index(n, unvisited);
  auto comp = [&](std::size_t s) { return closed - index[s]; };  // for a closed state
  struct Call {
    Graph::Cursor next;    // the next target of the action being followed
    std::uint64_t action;  // the action being followed (a graph may have over 2^32)
    std::uint32_t state;   // the state it belongs to
    std::uint8_t left;     // its targets not read yet (at most K)
    bool root;             // no state visited before this one is reachable (yet)
  };
  static_assert(sizeof(Call) <= 32, "a call record per state on the search path: keep it small");
  static_assert(core::k_max <= UINT8_MAX);
  // Columns, not vectors: on a large graph nearly every state is on `stack` at once (one giant
  // component), and a vector doubling past a gigabyte would briefly hold two copies.
  Column<std::uint32_t> stack;  // visited states whose component is open, not roots
  Column<Call> calls;
  // Per state: in a component to decompose (bits: the largest runs are near the end of memory);
  // per component id: to decompose again.
  std::vector<bool> redo(n, false);
  std::vector<std::uint8_t> dirty;
  bool first = true;
  std::uint32_t next_comp = 0;  // component ids are never reused, so final components keep theirs
  for (unsigned round = 1;; ++round) {
    std::size_t decomposing = 0;
    for (std::size_t s = 0; s < n; ++s) decomposing += redo[s] = in[s] && (first || dirty[comp(s)]);
    first = false;
    if (round_started) round_started(round, decomposing);
    // Drop actions with an outcome outside the set.
    for (std::size_t s = 0; s < n; ++s) {
      if (!redo[s]) continue;
      gr.each_action(s, [&](std::uint64_t a, const Graph::Target* ts, unsigned m) {
        if (!allowed[a]) return;
        for (unsigned i = 0; i < m; ++i)
          if (!in[ts[i].to]) {
            allowed[a] = false;
            break;
          }
      });
    }
    // Strongly connected components over allowed actions (iterative).
    // Allowed actions of a state to decompose lead only to states to decompose (the first time
    // all states are; later, allowed actions stay in their old component, which is dirty).
    for (std::size_t s = 0; s < n; ++s)
      if (redo[s]) index[s] = unvisited;
    std::uint32_t next_index = 0;
    for (std::size_t root = 0; root < n; ++root) {
      if (!redo[root] || index[root] != unvisited) continue;
      auto visit = [&](std::uint32_t s) {
        index[s] = next_index++;
        const std::uint64_t a = gr.state_begin[s];
        calls.push_back(
            Call{gr.first(s), a, s, static_cast<std::uint8_t>(a < gr.state_begin[s + 1] ? gr.outcomes(a) : 0), true});
      };
      visit(static_cast<std::uint32_t>(root));
      while (!calls.empty()) {
        Call& c = calls.back();
        const std::uint32_t s = c.state;
        bool descended = false;
        while (c.action < gr.state_begin[s + 1]) {
          if (!allowed[c.action] || c.left == 0) {
            for (; c.left > 0; --c.left) gr.next(c.next);  // the code is read in order
            ++c.action;
            if (c.action < gr.state_begin[s + 1]) c.left = static_cast<std::uint8_t>(gr.outcomes(c.action));
            continue;
          }
          --c.left;
          const std::uint32_t w = gr.next_to(c.next);
          if (index[w] == unvisited) {
            visit(w);  // invalidates c
            descended = true;
            break;
          }
          if (index[w] < index[s]) index[s] = index[w], c.root = false;  // closed states never lower it
        }
        if (descended) continue;
        if (c.root) {
          // s and the open states visited after it form its component.
          // Component ids are never reused; they must stay above every visit index.
          if (next_comp >= closed - n) throw std::length_error("check: too many end component iterations");
          while (!stack.empty() && index[stack.back()] >= index[s]) {
            index[stack.back()] = closed - next_comp;
            stack.pop_back();
          }
          index[s] = closed - next_comp++;
        } else {
          stack.push_back(s);
        }
        calls.pop_back();
        if (!calls.empty() && index[s] < index[calls.back().state])
          index[calls.back().state] = index[s], calls.back().root = false;
      }
    }
    // Drop actions leaving their component; drop states left without actions.
    dirty.assign(next_comp, 0);
    bool changed = false;
    for (std::size_t s = 0; s < n; ++s) {
      if (!redo[s]) continue;
      bool any = false;
      gr.each_action(s, [&](std::uint64_t a, const Graph::Target* ts, unsigned m) {
        if (!allowed[a]) return;
        for (unsigned i = 0; i < m; ++i)
          if (index[ts[i].to] != index[s]) {
            allowed[a] = false;
            dirty[comp(s)] = 1;  // the component may split: decompose it again
            changed = true;
            break;
          }
        any = any || allowed[a];
      });
      if (!any) {
        in[s] = false;
        dirty[comp(s)] = 1;
        changed = true;
      }
    }
    if (!changed) break;
  }
  for (std::size_t s = 0; s < n; ++s) index[s] = in[s] ? comp(s) : UINT32_MAX;
  return index;
}

/// What no node move changes and every renaming keeps: the topology moves left and the nodes'
/// degrees, sorted (the states with the same key form a part of the analysis).
std::uint32_t part_key(const Global& g, const Instance& inst) {
  std::array<unsigned, max_nodes> degree{};
  for (unsigned u = 0; u < inst.nodes; ++u)
    for (unsigned p = 0; p < inst.delta; ++p) degree[u] += g.n[u].link[p] != no_link;
  std::sort(degree.begin(), degree.end());  // the nodes past inst.nodes have degree 0 in every state
  std::uint32_t key = g.changes_left;
  for (unsigned d : degree) key = key << 2 | d;  // degrees up to max_delta = 3
  return key;
}

/// A renaming's node part, two bits per node (renamed[v] = bits 2v..2v+1).
inline std::uint8_t node_map(const Renaming& r, unsigned nodes) {
  unsigned m = 0;
  for (unsigned v = 0; v < nodes; ++v) m |= unsigned{r.node[v]} << (2 * v);
  return static_cast<std::uint8_t>(m);
}

/// Frees a vector's memory. (`v = {}` would not: it assigns an empty initializer list, which keeps
/// the capacity.)
template <class T>
void release(std::vector<T>& v) {
  std::vector<T>().swap(v);
}

/// The nodes of a successor whose completion is reachable, from those of the stored state it was
/// renamed to (`map`: node_map of that renaming).
inline std::uint8_t pull(std::uint8_t good, std::uint8_t map, unsigned nodes) {
  unsigned m = 0;
  for (unsigned v = 0; v < nodes; ++v) m |= ((good >> ((map >> (2 * v)) & 3u)) & 1u) << v;
  return static_cast<std::uint8_t>(m);
}

Label rename_label(Label l, const Renaming& r) {
  const unsigned u = l.node;
  l.node = r.node[u];
  switch (l.move) {
    case Move::deliver: l.a = r.port[u][l.a]; break;
    case Move::cut: l.a = r.port[u][l.a]; break;
    case Move::connect:
      l.a = r.port[u][l.a];
      l.c = r.port[l.b][l.c];
      l.b = r.node[l.b];
      break;
    default: break;
  }
  return l;
}

/// What a checkpoint must match to be resumed: the instance and every option that changes the
/// stored states or the graph.
std::string checkpoint_identity(const Instance& inst, const Options& opt, const Model& model) {
  return describe(inst) + " symmetry=" + (opt.symmetry ? "1" : "0") + " collapse=" + (opt.collapse ? "1" : "0") +
         " stride=" + std::to_string(model.stride()) + " record=" + std::to_string(model.record_size());
}

constexpr const char* checkpoint_format = "lmx-check-checkpoint 1";

/// The saved exploration's header: "key value" lines after the format line.
std::map<std::string, std::string> read_checkpoint_header(const std::string& dir) {
  const std::string path = dir + "/checkpoint";
  std::ifstream in(path);
  if (!in) throw std::runtime_error("check: no checkpoint in " + dir + " (cannot read " + path + ")");
  std::string line;
  if (!std::getline(in, line) || line != checkpoint_format)
    throw std::runtime_error("check: " + path + " is not a checkpoint of this version ('" + checkpoint_format + "')");
  std::map<std::string, std::string> header;
  while (std::getline(in, line)) {
    const auto space = line.find(' ');
    if (space == std::string::npos) throw std::runtime_error("check: a malformed line in " + path + ": " + line);
    header[line.substr(0, space)] = line.substr(space + 1);
  }
  for (const char* key : {"run", "states", "transitions", "depth", "records", "explore_cpu_seconds", "seconds"})
    if (header.count(key) == 0) throw std::runtime_error("check: " + path + " has no " + key);
  return header;
}

std::uint64_t header_number(const std::map<std::string, std::string>& header, const std::string& key) {
  const std::string& text = header.at(key);
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
    throw std::runtime_error("check: the checkpoint's " + key + " is not a number: " + text);
  return std::stoull(text);
}

/// A fair end component found in the analysis, reported once every part is decided.
struct Found {
  unsigned stage;              ///< 0: decided on stored states, 1: on rebuilt ones
  unsigned node;               ///< whose region it lies in
  std::uint32_t first_stored;  ///< its member's stored state found first
  std::uint32_t member;        ///< that member (in the graph it was decided on)
  std::uint64_t members;       ///< its size
  Global at;                   ///< that member, concrete
};

constexpr const char* analysis_format = "lmx-check-analysis 1";

/// What a resumed run has decided so far, kept beside its checkpoint (the file `analysis`) so
/// that a run resumed again goes on from there: the deadlock check's reports, then each part
/// decided, with what it found and the concrete states it rebuilt.
struct AnalysisRecord {
  struct Part {
    std::uint64_t lifted = 0;
    std::vector<Found> found;
  };
  std::string run;  ///< the checkpoint's identity and the options the results depend on
  bool deadlock_done = false;
  unsigned deadlock_sweeps = 0;
  std::vector<std::pair<unsigned, std::uint32_t>> deadlocks;  ///< (node, stored state), as reported
  unsigned parts = 0;
  std::map<unsigned, Part> parts_done;
  std::vector<std::pair<std::string, double>> phase_cpu_seconds;  ///< of the analysis, all sittings
  double seconds = 0;                                             ///< wall seconds of the analysis, all sittings
};

/// Reads the record at `path` if it is one of run `run`; an empty record otherwise (none yet, or
/// one of other options: the analysis starts over and replaces it).
AnalysisRecord read_analysis(const std::string& path, const std::string& run) {
  AnalysisRecord rec;
  rec.run = run;
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line) || line != analysis_format || !std::getline(in, line) || line != "run " + run)
    return rec;
  AnalysisRecord got;
  got.run = run;
  AnalysisRecord::Part* last = nullptr;
  auto bad = [&] { return std::runtime_error("check: a malformed line in " + path + ": " + line); };
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string key;
    words >> key;
    if (key == "deadlock_sweeps") {
      words >> got.deadlock_sweeps;
      got.deadlock_done = true;
    } else if (key == "deadlock") {
      unsigned u = 0;
      std::uint32_t st = 0;
      words >> u >> st;
      got.deadlocks.emplace_back(u, st);
    } else if (key == "phase") {
      double secs = 0;
      std::string name;
      words >> secs >> std::ws;
      std::getline(words, name);
      got.phase_cpu_seconds.emplace_back(name, secs);
    } else if (key == "seconds") {
      words >> got.seconds;
    } else if (key == "parts") {
      words >> got.parts;
    } else if (key == "part") {
      unsigned p = 0;
      std::string lifted;
      words >> p >> lifted >> got.parts_done[p].lifted;
      last = &got.parts_done[p];
      if (lifted != "lifted") throw bad();
    } else if (key == "found") {
      Found f{};
      std::string hex;
      words >> f.stage >> f.node >> f.first_stored >> f.member >> f.members >> hex;
      if (last == nullptr || hex.size() != 2 * sizeof(Global)) throw bad();
      auto* bytes = reinterpret_cast<std::uint8_t*>(&f.at);
      for (std::size_t i = 0; i < sizeof(Global); ++i)
        bytes[i] = static_cast<std::uint8_t>(std::stoul(hex.substr(2 * i, 2), nullptr, 16));
      last->found.push_back(f);
    } else {
      throw bad();
    }
    if (words.fail()) throw bad();
  }
  return got;
}

/// Writes the record (to a new file, then renamed over the old one: a record is whole or absent).
/// A record that cannot be written costs only the work a later run would redo: it is skipped.
void write_analysis(const std::string& path, const AnalysisRecord& rec) {
  {
    std::ofstream out(path + ".part");
    out << analysis_format << "\nrun " << rec.run << "\n";
    if (rec.deadlock_done) {
      out << "deadlock_sweeps " << rec.deadlock_sweeps << "\n";
      for (auto [u, st] : rec.deadlocks) out << "deadlock " << u << " " << st << "\n";
    }
    for (const auto& [name, secs] : rec.phase_cpu_seconds)
      out << "phase " << std::to_string(secs) << " " << name << "\n";
    out << "seconds " << std::to_string(rec.seconds) << "\nparts " << rec.parts << "\n";
    for (const auto& [p, part] : rec.parts_done) {
      out << "part " << p << " lifted " << part.lifted << "\n";
      for (const Found& f : part.found) {
        out << "found " << f.stage << " " << f.node << " " << f.first_stored << " " << f.member << " " << f.members
            << " ";
        const auto* bytes = reinterpret_cast<const std::uint8_t*>(&f.at);
        for (std::size_t i = 0; i < sizeof(Global); ++i) {
          static constexpr char digits[] = "0123456789abcdef";
          out << digits[bytes[i] >> 4] << digits[bytes[i] & 15];
        }
        out << "\n";
      }
    }
    if (!out.flush()) return;
  }
  std::error_code ignored;
  std::filesystem::rename(path + ".part", path, ignored);
}

}  // namespace

Result check(const Instance& inst, const Options& opt) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::clock_t c0 = std::clock();
  Result res;
  const Model model(inst, Model::default_memo_slots, opt.collapse);
  const bool symmetry = opt.symmetry;
  const std::size_t stride = model.stride();
  StateSet set(stride);
  std::vector<std::uint8_t> buf(stride);
  FileColumn<std::uint32_t> parent;  // read only for counterexamples: kept on disk
  Graph gr;
  gr.k = inst.k;
  if (symmetry) gr.keep_renamings(inst.nodes);
  if (opt.graph_on_disk && opt.liveness) gr.keep_in_files();
  const std::uint8_t identity_nodes = node_map(Renaming{{0, 1, 2, 3}, {}, {}}, inst.nodes);
  std::vector<Pending> pending;
  std::map<std::string, unsigned> seen;
  std::array<unsigned, 2> transition_problems{};  // internal, P3
  const bool saving = !opt.save_dir.empty(), resuming = !opt.resume_dir.empty();
  if ((saving || resuming) && !opt.liveness)
    throw std::invalid_argument("check: saving or resuming an exploration is for full runs, not safety only");
  if (saving && resuming) throw std::invalid_argument("check: a run saves its exploration or resumes one, not both");

  bool twisted = false;  // set by pack: the last state packed is not canonical
  auto pack = [&](const Global& g, std::uint8_t* out) {
    twisted = false;
    if (!symmetry) {
      model.pack(g, out);
      return std::uint8_t{0};
    }
    const Renaming r = model.canonical(g, out, &twisted);
    return node_map(r, inst.nodes);
  };
  auto report = [&](Pending p) {
    if (seen[p.signature]++ >= opt.per_kind) return;
    pending.push_back(std::move(p));
  };
  auto check_state = [&](const Global& g, std::uint32_t idx) {
    std::vector<unsigned> nodes;
    std::string detail;
    const std::string kind = model.invariants(g, nodes, detail);
    if (!kind.empty()) report(Pending{kind, kind, detail, nodes, idx, false, {}, g});
  };

  const Global init = model.initial();
  double saved_cpu = 0, saved_seconds = 0;                      // a resumed run's saved exploration
  double analysis_cpu_before = 0, analysis_seconds_before = 0;  // its analysis in earlier sittings
  if (!resuming) {
    pack(init, buf.data());
    set.insert(buf.data());
    parent.push_back(UINT32_MAX);
    check_state(init, 0);
  } else {
    // The saved exploration found no violation (else nothing was saved): what is left is the
    // analysis, on the stored states, their node records, parent links and graph read back.
    const auto header = read_checkpoint_header(opt.resume_dir);
    const std::string identity = checkpoint_identity(inst, opt, model);
    if (header.at("run") != identity)
      throw std::runtime_error("check: the checkpoint in " + opt.resume_dir +
                               " is of another run: " + header.at("run") + " (this run: " + identity + ")");
    const std::string dir = opt.resume_dir + "/";
    {
      Column<std::uint8_t> records;
      records.load(dir + "records.bin");
      const std::uint64_t count = header_number(header, "records");
      if (records.size() != count * model.record_size())
        throw std::runtime_error("check: " + dir + "records.bin does not hold the checkpoint's " +
                                 std::to_string(count) + " node records");
      model.restore_node_records(records.data(), count);
    }
    set.load(dir + "states.bin");
    parent.load(dir + "parents.bin");
    gr.load(dir + "graph.");
    if (set.size() != header_number(header, "states") || parent.size() != set.size() || gr.states() != set.size())
      throw std::runtime_error("check: the files in " + opt.resume_dir + " do not hold the checkpoint's " +
                               header.at("states") + " states");
    res.transitions = header_number(header, "transitions");
    res.max_depth = static_cast<unsigned>(header_number(header, "depth"));
    saved_cpu = std::stod(header.at("explore_cpu_seconds"));
    saved_seconds = std::stod(header.at("seconds"));
  }
  bool truncated = false;
  auto out_of_time = [&] {
    if (opt.max_seconds <= 0 ||
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() <= opt.max_seconds)
      return false;
    truncated = true;
    res.limit = "seconds";
    return true;
  };
  std::clock_t phase_start = c0;
  std::size_t current_phase = 0;  // in res.phase_cpu_seconds
  unsigned part = 0;              // of the analysis, from 1
  // A phase met again (the analysis's phases, part after part) adds to its first entry.
  auto progress = [&](const char* phase, std::uint64_t lifted = 0, unsigned round = 0, std::uint64_t decomposing = 0) {
    if (res.phase_cpu_seconds.empty() || res.phase_cpu_seconds[current_phase].first != phase) {
      if (!res.phase_cpu_seconds.empty()) {  // the first phase starts with the run
        const std::clock_t now = std::clock();
        res.phase_cpu_seconds[current_phase].second += static_cast<double>(now - phase_start) / CLOCKS_PER_SEC;
        phase_start = now;
      }
      current_phase = 0;
      while (current_phase < res.phase_cpu_seconds.size() && res.phase_cpu_seconds[current_phase].first != phase)
        ++current_phase;
      if (current_phase == res.phase_cpu_seconds.size()) res.phase_cpu_seconds.emplace_back(phase, 0.0);
    }
    if (opt.progress)
      opt.progress(Progress{phase, set.size(), res.transitions, res.max_depth, lifted, round, decomposing, part,
                            res.analysis_parts});
  };
  progress("exploring");
  Global g;
  // The successors of one state are generated first and their index slots prefetched, so that the
  // (mostly cache-missing) lookups of one state overlap instead of running one after another.
  struct Successor {
    Label label;
    Outcome outcome;
    Global next;
    std::uint64_t hash;
    std::uint8_t nodes;
    bool twisted;
  };
  std::vector<Successor> batch;
  std::vector<std::uint8_t> packed;
  // States are numbered breadth first, so the depth of state i is its level: the levels end at
  // the numbers of states stored when the scan reaches them (no depth stored per state).
  unsigned level = 0;
  std::size_t level_end = 1;
  // A resumed run's states are all expanded already.
  for (auto i = static_cast<std::uint32_t>(resuming ? set.size() : 0); i < set.size(); ++i) {
    if (i == level_end) ++level, level_end = set.size();
    if ((i & 4095u) == 0 && out_of_time()) break;
    if ((i & 65535u) == 0 && i > 0) progress("exploring");
    model.unpack(set.at(i), g);
    if (opt.liveness) gr.open_state();
    batch.clear();
    model.successors(g, [&](const Label& l, const Global& next, const Outcome& o) {
      batch.push_back(Successor{l, o, next, 0, 0, false});
    });
    res.transitions += batch.size();
    if (set.size() + batch.size() > opt.max_states) {
      truncated = true;  // stop storing new states; liveness is not decided on a truncated graph
      res.limit = "states";
      for (const Successor& sc : batch)
        if (sc.outcome.problem != Problem::none &&
            transition_problems[sc.outcome.problem == Problem::p3] < opt.per_kind) {
          ++transition_problems[sc.outcome.problem == Problem::p3];
          const std::string kind = problem_kind(sc.outcome.problem);
          report(Pending{kind, kind, problem_text(sc.outcome), {sc.outcome.problem_node}, i, true, sc.label, g});
        }
      continue;
    }
    set.reserve(batch.size());
    packed.resize(batch.size() * stride);
    for (std::size_t b = 0; b < batch.size(); ++b) {
      std::uint8_t* out = packed.data() + b * stride;
      batch[b].nodes = pack(batch[b].next, out);
      batch[b].twisted = twisted;
      batch[b].hash = set.hash(out);
      set.prefetch(batch[b].hash);
    }
    for (const Successor& sc : batch) set.prefetch_match(sc.hash);
    for (std::size_t b = 0; b < batch.size(); ++b) {
      const Label& l = batch[b].label;
      const Outcome& o = batch[b].outcome;
      // Counting per kind first keeps the (frequent) repeats of a known problem allocation-free.
      if (o.problem != Problem::none && transition_problems[o.problem == Problem::p3] < opt.per_kind) {
        ++transition_problems[o.problem == Problem::p3];
        const std::string kind = problem_kind(o.problem);
        report(Pending{kind, kind, problem_text(o), {o.problem_node}, i, true, l, g});
      }
      auto [idx, inserted] = set.insert(packed.data() + b * stride, batch[b].hash);
      if (inserted) {
        parent.push_back(i);
        res.max_depth = level + 1;
        check_state(batch[b].next, idx);
      }
      if (!opt.liveness || l.move == Move::cut || l.move == Move::connect) continue;
      gr.add(l, o, idx, batch[b].nodes, batch[b].twisted);
    }
    if (opt.liveness) gr.close_state(i, identity_nodes);
  }
  res.states = set.size();
  res.explore_cpu_seconds = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC + saved_cpu;
  if (opt.liveness && !resuming) gr.finish();
  const std::size_t graph_bytes = gr.bytes();  // gr is freed early

  // Saving: the exploration goes to files and the run stops, unless it found a violation, which
  // decides the verdict; then it stops with that, and deadlock and P7 are left undecided.
  if (saving && !truncated && pending.empty()) {
    const std::string dir = opt.save_dir + "/";
    std::filesystem::create_directories(opt.save_dir);
    std::filesystem::remove(dir + "checkpoint");  // the header goes last: a partial save has none
    save_file(dir + "records.bin", model.node_record_data(), model.node_records() * model.record_size());
    set.save(dir + "states.bin");
    parent.save(dir + "parents.bin");
    gr.save(dir + "graph.");
    {
      std::ofstream out(dir + "checkpoint.part");
      out << checkpoint_format << "\nrun " << checkpoint_identity(inst, opt, model) << "\nstates " << set.size()
          << "\ntransitions " << res.transitions << "\ndepth " << res.max_depth << "\nrecords " << model.node_records()
          << "\nexplore_cpu_seconds " << std::to_string(res.explore_cpu_seconds) << "\nseconds "
          << std::to_string(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()) << "\n";
      if (!out.flush()) throw std::runtime_error("check: cannot write " + dir + "checkpoint.part");
    }
    std::filesystem::rename(dir + "checkpoint.part", dir + "checkpoint");
    truncated = true;
    res.limit = "saved";
  }

  if (opt.liveness && !truncated && !saving) {
    const std::size_t n = set.size();
    // The index of the stored states is released for the analysis, which runs at a run's peak of
    // memory: rebuilding concrete states (below) looks canonical forms up in its own set, and only
    // the report of a fair end component of rebuilt states builds the index again.
    set.release_index();
    // The analysis reads the stored states in order (and a few members of end components), so
    // they go to a temporary file for it, mapped where they were: the kernel keeps what it has
    // room for. On the largest runs that is 8 GB that the graph's decomposition needs.
    set.move_states_to_file();  // if no file can be made, they stay in memory
    // Which completions are reachable, for all nodes at once: good[s] holds the nodes a completion
    // of which is reachable from s by node moves, the least solution of good[s] = (nodes completing
    // at s) | good[t] for every target t of s. Under symmetry reduction an edge leads to a renamed
    // successor, and the set is renamed back along it (pull). The solution is found by sweeps over
    // the graph, last state first (successors are mostly found after their state, breadth first),
    // until no set grows. Each sweep but the last grows some set, and a set grows at most N times,
    // so there are at most n * N + 1 sweeps; each edge to an earlier state on a path to a
    // completion can cost one, and in practice a handful suffice. Sweeping forward needs no
    // reverse graph, which would take as much memory as the graph's targets.
    // A resumed run keeps a record of its analysis beside the checkpoint (docs/checker.md, "And in
    // more") and goes on from where the last one stopped.
    const std::string record_path = resuming ? opt.resume_dir + "/analysis" : std::string();
    AnalysisRecord record;
    if (resuming) {
      record = read_analysis(record_path, checkpoint_identity(inst, opt, model) + " per_kind=" +
                                              std::to_string(opt.per_kind) + " parts=" + (opt.split_parts ? "1" : "0"));
      for (const auto& [name, secs] : record.phase_cpu_seconds) {
        auto it = std::find_if(res.phase_cpu_seconds.begin(), res.phase_cpu_seconds.end(),
                               [&](const auto& e) { return e.first == name; });
        if (it == res.phase_cpu_seconds.end())
          it = res.phase_cpu_seconds.emplace(res.phase_cpu_seconds.end(), name, 0.0);
        it->second += secs;
        analysis_cpu_before += secs;
      }
      analysis_seconds_before = record.seconds;
    }
    auto save_record = [&] {
      if (!resuming) return;
      record.phase_cpu_seconds.clear();
      for (std::size_t i = 0; i < res.phase_cpu_seconds.size(); ++i) {
        auto [name, secs] = res.phase_cpu_seconds[i];
        if (i == current_phase) secs += static_cast<double>(std::clock() - phase_start) / CLOCKS_PER_SEC;
        if (name != "exploring") record.phase_cpu_seconds.emplace_back(name, secs);
      }
      record.seconds =
          analysis_seconds_before + std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      write_analysis(record_path, record);
    };
    auto report_deadlock = [&](unsigned u, std::uint32_t s) {
      Global at;
      model.unpack(set.at(s), at);
      const std::string where(core::to_string(at.n[u].s.state));
      report(Pending{"deadlock",
                     "deadlock/" + where,
                     "stays in " + where + ": no completion is reachable by node actions alone",
                     {u},
                     s,
                     false,
                     {},
                     at,
                     true});
    };

    progress("deadlock");
    if (record.deadlock_done) {
      res.deadlock_sweeps = record.deadlock_sweeps;
      for (auto [u, s] : record.deadlocks) report_deadlock(u, s);
    } else {
      std::vector<std::uint8_t> good(n, 0);
      for (std::size_t s = 0; s < n; ++s)
        for (std::uint64_t a = gr.state_begin[s]; a < gr.state_begin[s + 1]; ++a)
          if (gr.flags[a] & flag_completes)
            good[s] = static_cast<std::uint8_t>(good[s] | 1u << ((gr.flags[a] >> 3) & 3u));
      const auto all_nodes = static_cast<std::uint8_t>((1u << inst.nodes) - 1);
      bool swept = true;  // false: stopped by the time limit, and the sets are not complete
      for (bool grew = true; grew;) {
        if (out_of_time()) {
          swept = false;
          break;
        }
        grew = false;
        ++res.deadlock_sweeps;
        for (std::size_t s = n; s-- > 0;) {
          std::uint8_t reach = good[s];
          if (reach != all_nodes)
            gr.each_target(s, [&](const Graph::Target& t) {
              reach |= symmetry ? pull(good[t.to], t.nodes, inst.nodes) : good[t.to];
              return reach != all_nodes;
            });
          if (reach != good[s]) good[s] = reach, grew = true;
        }
      }
      // Deadlock: a pending operation of u from which no completion of u is reachable by node moves.
      for (unsigned u = 0; u < inst.nodes && swept; ++u)
        for (std::size_t s = 0; s < n; ++s) {
          const InitiatorState st = model.packed_state(set.at(s), u);
          if (((good[s] >> u) & 1u) != 0 || st == InitiatorState::idle || st == InitiatorState::locked) continue;
          report_deadlock(u, static_cast<std::uint32_t>(s));
        }
      if (swept && resuming) {  // what was reported (a resumed run has found nothing before)
        record.deadlock_done = true;
        record.deadlock_sweeps = res.deadlock_sweeps;
        for (const Pending& p : pending) record.deadlocks.emplace_back(p.nodes.at(0), p.state);
        save_record();
      }
    }
    // The analysis goes part by part (docs/checker.md, "Parts"). Node moves change neither the
    // topology nor the topology moves left, and renaming keeps both up to isomorphism, so the
    // states with the same moves left and the same sorted degrees form a part that no node move
    // leaves: every end component, every rebuilt concrete state and every decision lies in one
    // part, and the largest part, not the whole graph, sets the memory of the analysis. Each part's
    // states keep their order, so each part decides what the whole graph would, and what is found
    // is reported in the order one decision of the whole graph would report it.
    std::vector<std::uint8_t> part_of(n, 0);
    unsigned parts = 1;
    if (opt.split_parts) {
      std::map<std::uint32_t, unsigned> part_id;  // numbered in order of first appearance
      Global at;
      for (std::size_t s = 0; s < n && part_id.size() <= UINT8_MAX; ++s) {
        model.unpack(set.at(s), at);
        part_of[s] = static_cast<std::uint8_t>(
            part_id.emplace(part_key(at, inst), static_cast<unsigned>(part_id.size())).first->second);
      }
      parts = part_id.size() <= UINT8_MAX ? static_cast<unsigned>(part_id.size()) : 1;  // too many: one part
    }
    if (parts == 1) release(part_of);
    res.analysis_parts = parts;
    if (!record.parts_done.empty() && record.parts != parts)
      throw std::runtime_error("check: the analysis recorded in " + record_path + " has " +
                               std::to_string(record.parts) + " parts, this run " + std::to_string(parts));
    record.parts = parts;
    std::vector<bool> part_done(parts, false);  // decided in an earlier sitting
    for (const auto& entry : record.parts_done)
      if (entry.first < parts) part_done[entry.first] = true;
    std::vector<Graph> part_graph;  // with several parts: each part's graph, its states numbered in it
    if (parts > 1) {
      progress("splitting");
      std::vector<std::uint32_t> local(n);  // a state's number in its part
      {
        std::vector<std::uint32_t> count(parts, 0);
        for (std::size_t s = 0; s < n; ++s) local[s] = count[part_of[s]]++;
      }
      part_graph.resize(parts);
      for (Graph& pg : part_graph) {
        pg.k = inst.k;
        if (symmetry) pg.keep_renamings(inst.nodes);
        if (opt.graph_on_disk) pg.keep_in_files();
      }
      for (std::size_t s = 0; s < n; ++s)
        if (!part_done[part_of[s]])
          part_graph[part_of[s]].copy_state(gr, s, [&](std::uint32_t t) {
            if (part_of[t] != part_of[s]) throw std::logic_error("check: a node move leaves its part");
            return local[t];
          });
      for (Graph& pg : part_graph) {
        pg.finish();
        pg.shrink();  // its files were grown by doubling: the disk is needed for the rebuilt graphs
      }
      gr = Graph{};
    }

    std::vector<Found> found;

    // P7 for every node u: a fair end component inside u's region, decided on graph `fg` (its
    // states read with `state_at`, the first `count` of them, those with in_base set considered).
    // `stored_of` gives the stored state of one of them (its number among all stored states, or
    // for a rebuilt state that of its canonical form): a component is reported at its member whose
    // stored state was found first. What is found waits in `found` until every part is decided.
    auto decide = [&](const Graph& fg, std::size_t count,
                      const std::function<const std::uint8_t*(std::uint32_t)>& state_at,
                      const std::function<std::uint32_t(std::uint32_t)>& stored_of, const std::vector<bool>& in_base,
                      unsigned stage) {
      for (unsigned u = 0; u < inst.nodes; ++u) {
        if (out_of_time()) return;  // each node's decomposition can take minutes on a large graph
        std::vector<bool> in(count);
        std::vector<bool> allowed;
        for (std::size_t s = 0; s < count; ++s)
          in[s] = in_base[s] && model.packed_state(state_at(s), u) != InitiatorState::idle;
        const auto comp = end_components(fg, in, allowed);
        release(in);
        // The members of each component, grouped: the member states sorted by (component, state),
        // and where each component's members begin. One allocation instead of one per component,
        // 4 bytes per member and per component, counted before allocating: this runs while the
        // whole graph is in memory, and an array grown by doubling would take three times as much.
        std::size_t member_count = 0;
        for (std::size_t s = 0; s < count; ++s) member_count += comp[s] != UINT32_MAX;
        std::vector<std::uint32_t> member_state;
        member_state.reserve(member_count);
        for (std::size_t s = 0; s < count; ++s)
          if (comp[s] != UINT32_MAX) member_state.push_back(static_cast<std::uint32_t>(s));
        std::sort(member_state.begin(), member_state.end(),
                  [&](std::uint32_t x, std::uint32_t y) { return comp[x] != comp[y] ? comp[x] < comp[y] : x < y; });
        auto starts_group = [&](std::size_t i) { return i == 0 || comp[member_state[i]] != comp[member_state[i - 1]]; };
        std::size_t group_count = 0;
        for (std::size_t i = 0; i < member_count; ++i) group_count += starts_group(i);
        std::vector<std::uint32_t> group_begin;  // group c: [group_begin[c], group_begin[c + 1]) in member_state
        group_begin.reserve(group_count + 1);
        for (std::size_t i = 0; i < member_count; ++i)
          if (starts_group(i)) group_begin.push_back(static_cast<std::uint32_t>(i));
        group_begin.push_back(static_cast<std::uint32_t>(member_count));
        auto members = [&](std::uint32_t c) {
          return std::span<const std::uint32_t>(member_state.data() + group_begin[c],
                                                group_begin[c + 1] - group_begin[c]);
        };
        std::vector<std::array<std::uint32_t, 3>> fair_entries;  // (stored state, member, group)
        std::vector<std::uint32_t> words;                        // the members' task words, in the graph's action order
        for (std::uint32_t c = 0; c + 1 < group_begin.size(); ++c) {
          const auto ms = members(c);
          words.clear();
          for (std::uint32_t s : ms) {
            const std::size_t before = words.size();
            model.unpack(state_at(s), g);
            // The task identity does not depend on the outcome (completes_bit is masked off).
            model.node_moves(g, [&](const Label& l) { words.push_back(task_of(l, Outcome{})); });
            if (std::none_of(words.begin() + static_cast<std::ptrdiff_t>(before), words.end(),
                             [](std::uint32_t w) { return (w & fair_bit) != 0; }))
              words.push_back(stutter_task);  // as Graph::close_state
            if (words.size() - before != fg.state_begin[s + 1] - fg.state_begin[s])
              throw std::logic_error("check: the actions of a state differ from those in the graph");
          }
          // Candidate tasks: fair tasks enabled at the first member.
          std::vector<std::uint32_t> cand;
          for (std::uint64_t a = fg.state_begin[ms[0]]; a < fg.state_begin[ms[0] + 1]; ++a)
            if (fg.flags[a] & flag_fair) cand.push_back(words[a - fg.state_begin[ms[0]]] & task_mask);
          bool fair = true;
          for (std::uint32_t task : cand) {
            bool everywhere = true, taken = false;
            std::size_t w = 0;  // the first word of member s
            for (std::uint32_t s : ms) {
              bool enabled = false;
              for (std::uint64_t a = fg.state_begin[s]; a < fg.state_begin[s + 1]; ++a)
                if ((words[w + (a - fg.state_begin[s])] & task_mask) == task) {
                  enabled = true;
                  if (allowed[a]) taken = true;
                }
              w += fg.state_begin[s + 1] - fg.state_begin[s];
              if (!enabled) everywhere = false;
            }
            if (everywhere && !taken) {
              fair = false;
              break;
            }
          }
          if (!fair) continue;
          // Report the member whose stored state was found first (breadth first: the shallowest).
          std::uint32_t first = ms[0], first_stored = UINT32_MAX;
          for (std::uint32_t m : ms) {
            const std::uint32_t stored = stored_of(m);
            if (stored < first_stored) first_stored = stored, first = m;
          }
          fair_entries.push_back({first_stored, first, c});
        }
        std::sort(fair_entries.begin(), fair_entries.end());
        for (auto [depth_order, s, c] : fair_entries) {
          if (std::getenv("LMX_CHECK_DEBUG") != nullptr)
            for (std::uint32_t m : members(c)) {
              model.unpack(state_at(m), g);
              std::fprintf(stderr, "ec %u state %u:", c, m);
              for (unsigned w = 0; w < inst.nodes; ++w) {
                const auto& r = g.n[w];
                std::fprintf(stderr, " | n%u %s/%s lock=%d L=%x R=%x W=%x/%x H=%x A=%x C=%x P=%x:%x d=%x ch=", w,
                             std::string(core::to_string(r.s.state)).c_str(),
                             std::string(core::to_string(r.s.phase)).c_str(),
                             r.s.lock_port == core::no_port ? -1 : r.s.lock_port, r.s.lock_set.bits(),
                             r.s.replied.bits(), r.s.win_outcomes.won.bits(), r.s.win_outcomes.lost.bits(),
                             r.s.on_hold.bits(), r.s.applicants.bits(), r.s.candidates.bits(),
                             r.s.priorities.ports.bits(), r.s.priorities.planes[0], r.d);
                for (unsigned p = 0; p <= inst.delta; ++p)
                  for (auto code : r.chan[p])
                    if (code) {
                      const auto dm = core::decode(static_cast<std::uint8_t>(code - 1), inst.k).message;
                      std::fprintf(stderr, "%u:%s(%u) ", p, std::string(core::to_string(dm.kind)).c_str(), dm.value);
                    }
              }
              std::fprintf(stderr, "\n");
              fg.each_action(m, [&](std::uint64_t a, const Graph::Target* ts, unsigned outcome_count) {
                std::fprintf(stderr, "   act flags %x allowed=%d ->", fg.flags[a], static_cast<int>(allowed[a]));
                for (unsigned t = 0; t < outcome_count; ++t) std::fprintf(stderr, " %u", ts[t].to);
                std::fprintf(stderr, "\n");
              });
            }
          Found f{stage, u, depth_order, s, members(c).size(), {}};
          model.unpack(state_at(s), f.at);
          found.push_back(f);
        }
      }
    };

    std::vector<std::uint32_t> global;  // with several parts: the part's states, numbered among all stored states
    for (unsigned p = 0; p < parts && !truncated; ++p) {
      part = p + 1;
      if (part_done[p]) {
        const AnalysisRecord::Part& done = record.parts_done.at(p);
        found.insert(found.end(), done.found.begin(), done.found.end());
        res.lifted_states += done.lifted;
        continue;
      }
      const std::size_t found_before = found.size();
      const std::uint64_t lifted_before = res.lifted_states;
      Graph& pg = parts > 1 ? part_graph[p] : gr;
      release(global);
      if (parts > 1) {
        global.reserve(pg.states());
        for (std::size_t s = 0; s < n; ++s)
          if (part_of[s] == p) global.push_back(static_cast<std::uint32_t>(s));
      }
      const std::size_t pn = pg.states();
      auto stored_of = [&](std::uint32_t s) { return parts > 1 ? global[s] : s; };
      auto state_at = [&](std::uint32_t s) { return set.at(stored_of(s)); };
      // Every end component of a node's region (its operation pending) is an end component of the
      // union of the regions (some operation pending), so it lies inside a maximal end component of
      // the union: the union is decomposed once over the part's graph, and each node's decomposition
      // starts from the states left in it (usually a small fraction) instead of from every state.
      std::vector<bool> in_any(pn, false);  // a bit per state, as every membership array of the analysis
      std::vector<bool> allowed_any;        // a bit per action: 7 bytes per state less than a byte each
      for (unsigned u = 0; u < inst.nodes; ++u)
        for (std::size_t s = 0; s < pn; ++s)
          if (model.packed_state(state_at(s), u) != InitiatorState::idle) in_any[s] = true;
      progress("end components");
      auto union_comp = end_components(pg, in_any, allowed_any, [&](unsigned round, std::size_t decomposing) {
        progress("end components", 0, round, decomposing);  // a round can take many minutes on a large graph
      });
      // Fairness refers to node and port identities, which a stored (canonical) state may have
      // renamed. A maximal end component of the union whose actions all reach their successors
      // unrenamed is a piece of the concrete MDP and is decided as it is (without symmetry
      // reduction, all of them). The others are decided on concrete states, rebuilt below with
      // their node moves (those leaving the set go to a sink outside every region). A concrete end
      // component projects onto an end component of the reduced graph (the canonical form is the
      // same for a whole orbit), so it is found there (docs/checker.md, "Symmetry").
      std::vector<std::uint8_t> twisted_comp;
      if (symmetry) {
        std::uint32_t comps = 0;
        for (std::size_t s = 0; s < pn; ++s)
          if (in_any[s]) comps = std::max(comps, union_comp[s] + 1);
        twisted_comp.assign(comps, 0);
        for (std::size_t s = 0; s < pn; ++s) {
          if (!in_any[s]) continue;
          pg.each_action(s, [&](std::uint64_t a, const Graph::Target* ts, unsigned m) {
            if (!allowed_any[a]) return;
            for (unsigned i = 0; i < m; ++i)
              if (ts[i].twisted) twisted_comp[union_comp[s]] = 1;
          });
        }
      }
      release(allowed_any);
      std::vector<bool> in_exact(pn, false), in_lift(pn, false);
      std::vector<std::uint32_t> lift_comp;  // per state with in_lift, in order: its component of the union
      for (std::size_t s = 0; s < pn; ++s) {
        if (!in_any[s]) continue;
        const bool twist = symmetry && twisted_comp[union_comp[s]];
        (twist ? in_lift : in_exact)[s] = true;
        if (twist) lift_comp.push_back(union_comp[s]);
      }
      const bool any_lift = !lift_comp.empty();
      // Past this point only in_lift is needed: the union's components are freed before the exact
      // decision, and the reduced graph after it, so that the rebuilt states take their place.
      release(union_comp);
      release(in_any);
      release(twisted_comp);
      decide(pg, pn, state_at, stored_of, in_exact, 0);
      release(in_exact);
      pg = Graph{};
      if (any_lift && !out_of_time()) {
        // One concrete copy of each such component: the concrete states reachable by node moves
        // from one of its stored states (its first) whose canonical form lies in the same component.
        // The concrete states above a component of the reduced graph split into renamed copies of
        // one another, each strongly connected (a path from x to a renamed copy g(x) repeats, renamed,
        // until it returns to x, as g has finite order), and every concrete end component above it
        // lies in one of them. Renaming maps a fair end component of node u's region in one copy to
        // one of node g(u)'s region in another, and every node's region is decided: one copy
        // decides them all (docs/checker.md, "Symmetry").
        StateSet canon_index(stride);  // the stored states of these components, to look canonical forms up
        StateSet lifted(stride);
        std::vector<std::uint32_t> lifted_comp;  // per rebuilt state: its component
        Graph lg;
        lg.k = inst.k;
        if (opt.graph_on_disk) lg.keep_in_files();  // the rebuilt graph, too, is only appended to first
        Global c;
        {
          std::vector<std::uint8_t> seeded;
          std::size_t i = 0;
          for (std::size_t s = 0; s < pn; ++s) {
            if (!in_lift[s]) continue;
            canon_index.insert(state_at(s));
            const std::uint32_t comp = lift_comp[i++];
            if (comp >= seeded.size()) seeded.resize(comp + 1, 0);
            if (!seeded[comp]) seeded[comp] = 1, lifted.insert(state_at(s)), lifted_comp.push_back(comp);
          }
        }
        release(in_lift);
        std::vector<std::uint8_t> canon(stride);
        for (std::uint32_t s = 0; s < lifted.size(); ++s) {
          // The rebuilt states count against the same limit as the stored ones: past it, P7 is not
          // decided (verdict incomplete) rather than the run running out of memory.
          if (lifted.size() + res.lifted_states + res.states > opt.max_states) {
            truncated = true;
            res.limit = "states";
            break;
          }
          if ((s & 4095u) == 0 && out_of_time()) break;
          if ((s & 65535u) == 0) progress("rebuilding", res.lifted_states + lifted.size());
          model.unpack(lifted.at(s), c);
          lg.open_state();
          // As in the exploration, the successors are packed and their index slots prefetched first,
          // so that their lookups' cache misses overlap; then they are taken in order.
          batch.clear();
          model.successors(c, [&](const Label& l, const Global& next, const Outcome& o) {
            if (l.move != Move::cut && l.move != Move::connect) batch.push_back(Successor{l, o, next, 0, 0, false});
          });
          lifted.reserve(batch.size());
          packed.resize(batch.size() * stride);
          for (std::size_t b = 0; b < batch.size(); ++b) {
            model.pack(batch[b].next, packed.data() + b * stride);
            batch[b].hash = lifted.hash(packed.data() + b * stride);
            lifted.prefetch(batch[b].hash);
          }
          for (const Successor& sc : batch) lifted.prefetch_match(sc.hash);
          for (std::size_t b = 0; b < batch.size(); ++b) {
            const Successor& sc = batch[b];
            const std::uint8_t* mine = packed.data() + b * stride;
            if (const std::uint32_t known = lifted.find(mine, sc.hash); known != UINT32_MAX) {
              lg.add(sc.label, sc.outcome, known);  // most successors: no canonical form needed
              continue;
            }
            model.canonical(sc.next, canon.data());
            if (const std::uint32_t stored = canon_index.find(canon.data());
                stored == UINT32_MAX || lift_comp[stored] != lifted_comp[s]) {
              lg.add(sc.label, sc.outcome, Graph::sink_target);  // to the sink, numbered once all are known
              continue;
            }
            lg.add(sc.label, sc.outcome, lifted.insert(mine, sc.hash).first);
            lifted_comp.push_back(lifted_comp[s]);
          }
          lg.close_state(s);
        }
        canon_index = StateSet(stride);  // freed: the decision needs the rebuilt states alone
        release(lift_comp);
        release(lifted_comp);
        const auto sink = static_cast<std::uint32_t>(lifted.size());
        lg.open_state();  // the sink: a stutter loop
        lg.close_state(sink);
        lg.finish(sink);
        res.lifted_states += sink;
        if (!truncated) {
          std::vector<bool> in_lifted(sink + 1, true);
          in_lifted[sink] = false;
          progress("deciding", res.lifted_states);
          decide(
              lg, sink + 1, [&](std::uint32_t s) { return lifted.at(s); },
              [&](std::uint32_t s) {
                set.restore_index();  // released for the analysis; needed again only here, in failing runs
                model.unpack(lifted.at(s), g);
                model.canonical(g, buf.data());
                return set.find(buf.data());
              },
              in_lifted, 1);
        }
      }
      if (!truncated && resuming) {
        AnalysisRecord::Part& done = record.parts_done[p];
        done.lifted = res.lifted_states - lifted_before;
        done.found.assign(found.begin() + static_cast<std::ptrdiff_t>(found_before), found.end());
        save_record();
      }
    }
    // Reported as one decision of the whole graph would: the components decided on stored states
    // before those on rebuilt ones, node by node, each node's by the stored state found first.
    std::stable_sort(found.begin(), found.end(), [](const Found& x, const Found& y) {
      return std::tie(x.stage, x.node, x.first_stored, x.member) < std::tie(y.stage, y.node, y.first_stored, y.member);
    });
    for (const Found& f : found) {
      const std::string where(core::to_string(f.at.n[f.node].s.state));
      report(Pending{"P7",
                     "P7/" + where,
                     "can stay in " + where +
                         " forever under weak fairness with positive probability (a fair end component of " +
                         std::to_string(f.members) + " states)",
                     {f.node},
                     f.first_stored,
                     false,
                     {},
                     f.at,
                     true});
    }
    part = 0;
  }

  // Counterexamples: re-find each path step on concrete states (works with symmetry reduction).
  if (!pending.empty()) progress("counterexamples", res.lifted_states);
  const std::vector<Renaming> group = symmetry && !pending.empty() ? model.group() : std::vector<Renaming>{};
  for (const Pending& p : pending) {
    std::vector<std::uint32_t> chain;
    for (std::uint32_t s = p.state; s != UINT32_MAX; s = parent[s]) chain.push_back(s);
    std::reverse(chain.begin(), chain.end());
    std::vector<Label> path;
    Global cur = init;
    for (std::size_t i = 1; i < chain.size(); ++i) {
      bool found = false;
      Global chosen;
      Label chosen_label;
      model.successors(cur, [&](const Label& l, const Global& next, const Outcome&) {
        if (found) return;
        pack(next, buf.data());
        if (std::memcmp(buf.data(), set.at(chain[i]), stride) == 0) {
          found = true;
          chosen = next;
          chosen_label = l;
        }
      });
      path.push_back(chosen_label);
      cur = chosen;
    }
    std::vector<unsigned> nodes = p.nodes;
    Label label = p.label;
    if (symmetry) {
      // The path ends in a member of the orbit of the state the violation was found in: rename
      // the violation's nodes and transition to it.
      std::vector<std::uint8_t> target(stride), mine(stride);
      model.pack(cur, target.data());
      Global r;
      for (const Renaming& x : group) {
        model.rename(p.where, x, r);
        model.pack(r, mine.data());
        if (std::memcmp(mine.data(), target.data(), stride) != 0) continue;
        for (unsigned& u : nodes) u = x.node[u];
        label = rename_label(label, x);
        break;
      }
    }
    if (p.has_label) path.push_back(label);
    const std::string detail = p.detail_names_node ? "node " + std::to_string(nodes.at(0)) + " " + p.detail : p.detail;
    Violation v{p.kind, nodes, detail, static_cast<unsigned>(path.size()), {}};
    v.trace = write_trace(model, path, p.kind, nodes, detail);
    res.violations.push_back(std::move(v));
  }
  std::stable_sort(res.violations.begin(), res.violations.end(),
                   [](const Violation& a, const Violation& b) { return a.kind < b.kind; });
  // Stored per state: packed state and index, the parent only if it could not go to a file, and in
  // liveness runs the graph (two offsets per state, a byte of flags per action, the code of the
  // targets), counted in files too with graph_on_disk; the table of node records shared by all.
  res.bytes_per_state = set.bytes_per_state() + (parent.in_file() ? 0 : sizeof(std::uint32_t)) +
                        (opt.liveness && res.states ? graph_bytes / res.states : 0) +
                        (res.states ? model.node_record_bytes() / res.states : 0);
  res.node_records = model.node_records();
  res.verdict = truncated ? "incomplete" : res.violations.empty() ? "pass" : "fail";
  if (truncated && !res.violations.empty()) res.verdict = "fail";
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() + saved_seconds +
                analysis_seconds_before;
  res.cpu_seconds = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC + saved_cpu + analysis_cpu_before;
  if (!res.phase_cpu_seconds.empty())
    res.phase_cpu_seconds[current_phase].second += static_cast<double>(std::clock() - phase_start) / CLOCKS_PER_SEC;
  if (resuming) res.phase_cpu_seconds.front().second += saved_cpu;  // "exploring": reading back, and the saved
  return res;
}

}  // namespace lmx::check
