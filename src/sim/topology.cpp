#include "topology.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "radix_sort.hpp"

namespace lmx::sim {

namespace {

/// An edge line is short; a longer one means the file is not an edge list (or a device).
constexpr std::size_t max_edge_line = 4096;

std::vector<std::pair<NodeId, NodeId>> read_edge_file(const std::string& path, NodeId n) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw ScenarioError("edge-list file '" + printable(path) + "' is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ScenarioError("cannot read edge-list file '" + printable(path) + "': " + std::strerror(errno));
  return parse_edge_list(in, path, n);
}

[[noreturn]] void fail_at(const std::string& source, std::uint64_t line, const std::string& problem) {
  throw ScenarioError(printable(source) + ":" + std::to_string(line) + ": " + problem);
}

bool blank(char c) { return c == ' ' || c == '\t'; }

/// A node number at line[i]: decimal digits only; advances i past them.
std::optional<std::uint64_t> node_number(std::string_view line, std::size_t& i) {
  std::uint64_t value = 0;
  const char* first = line.data() + i;
  const auto [end, ec] = std::from_chars(first, line.data() + line.size(), value);
  if (end == first) return std::nullopt;  // no digit (from_chars takes no sign for unsigned)
  i += static_cast<std::size_t>(end - first);
  if (ec != std::errc{}) return std::numeric_limits<std::uint64_t>::max();  // too large: out of range below
  return value;
}

/// n positions drawn uniformly in the unit square, then numbered along a Hilbert curve over the
/// cells of side about r, starting at a random one (docs/simulator.md, "Node numbers of geometric
/// graphs").
std::vector<std::pair<double, double>> random_positions(NodeId n, double r, Rng& rng) {
  std::vector<std::pair<double, double>> pos(n);
  for (auto& p : pos) p = {rng.unit(), rng.unit()};
  number_along_hilbert_curve(pos, CellGrid::cells_per_side(n, r), rng.below(n));
  return pos;
}

void check_simple(const std::vector<std::pair<NodeId, NodeId>>& edges, NodeId n) {
  std::unordered_set<std::uint64_t> seen;
  for (auto [u, v] : edges) {
    if (u >= n || v >= n)
      throw ScenarioError("topology: edge {" + std::to_string(u) + "," + std::to_string(v) +
                          "} names a node outside 0.." + std::to_string(n - 1));
    if (u == v) throw ScenarioError("topology: self-loop at node " + std::to_string(u));
    const std::uint64_t key = (std::uint64_t{std::min(u, v)} << 32) | std::max(u, v);
    if (!seen.insert(key).second)
      throw ScenarioError("topology: duplicate edge {" + std::to_string(u) + "," + std::to_string(v) + "}");
  }
}

}  // namespace

std::vector<std::pair<NodeId, NodeId>> parse_edge_list(std::istream& in, const std::string& source, NodeId n) {
  std::vector<std::pair<NodeId, NodeId>> edges;
  std::unordered_map<std::uint64_t, std::uint64_t> first_line;  // edge {min, max} -> its line
  std::string buffer(max_edge_line + 1, '\0');
  std::uint64_t number = 1;
  auto fail = [&](const std::string& problem) { fail_at(source, number, problem); };
  for (;; ++number) {
    in.getline(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const auto got = static_cast<std::size_t>(in.gcount());
    if (in.bad()) fail("read error");
    if (in.fail() && !in.eof()) fail("line longer than " + std::to_string(max_edge_line) + " bytes: not an edge list");
    if (got == 0 && in.eof()) break;
    std::string_view line(buffer.data(), in.eof() ? got : got - 1);  // without the newline
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    // Text only: a binary file must not pass for an edge list with its lines skipped.
    if (line.find('\0') != std::string_view::npos) fail("holds a NUL byte: not a text file");
    if (!valid_utf8(line)) fail("not valid UTF-8: \"" + printable(line) + "\"");
    for (char c : line)
      if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7F)
        fail("holds the control character " + printable(std::string_view(&c, 1)));
    std::size_t i = 0;
    while (i < line.size() && blank(line[i])) ++i;
    if (i == line.size() || line[i] == '#') {
      if (in.eof()) break;
      continue;  // a blank line or a comment
    }
    // Two node numbers separated by blanks, then nothing or a comment.
    const auto u = node_number(line, i);
    const bool separated = i < line.size() && blank(line[i]);
    while (i < line.size() && blank(line[i])) ++i;
    const auto v = separated ? node_number(line, i) : std::nullopt;
    while (i < line.size() && blank(line[i])) ++i;
    if (!u || !v || (i < line.size() && line[i] != '#'))
      fail("expected two node numbers 'u v', got \"" + printable(line) + "\"");
    for (const std::uint64_t x : {*u, *v})
      if (x >= n)
        fail((x == std::numeric_limits<std::uint64_t>::max() ? std::string("node number too large")
                                                             : "node " + std::to_string(x) + " outside") +
             " (the scenario has " + std::to_string(n) + " nodes, 0.." + std::to_string(n - 1) + ")");
    if (*u == *v) fail("self-loop at node " + std::to_string(*u));
    const std::uint64_t key = (std::min(*u, *v) << 32) | std::max(*u, *v);
    if (const auto [it, fresh] = first_line.emplace(key, number); !fresh)
      fail("duplicate edge {" + std::to_string(*u) + "," + std::to_string(*v) + "} (first on line " +
           std::to_string(it->second) + ")");
    edges.emplace_back(static_cast<NodeId>(*u), static_cast<NodeId>(*v));
    if (in.eof()) break;
  }
  return edges;
}

std::uint64_t hilbert_index(unsigned order, std::uint32_t x, std::uint32_t y) {
  // The classic conversion: at each scale s, the quadrant's place on the curve, then the
  // quadrant turned so that the curve inside it starts and ends where the next scale expects.
  const std::uint32_t side = std::uint32_t{1} << order;
  std::uint64_t d = 0;
  for (std::uint32_t scale = side >> 1; scale > 0; scale >>= 1) {
    const std::uint32_t rx = (x & scale) ? 1 : 0, ry = (y & scale) ? 1 : 0;
    d += std::uint64_t{scale} * scale * ((3 * rx) ^ ry);
    if (ry == 0) {
      if (rx == 1) x = side - 1 - x, y = side - 1 - y;
      std::swap(x, y);
    }
  }
  return d;
}

void number_along_hilbert_curve(std::vector<std::pair<double, double>>& pos, std::uint32_t cells, NodeId first) {
  const auto n = static_cast<NodeId>(pos.size());
  if (n == 0) return;
  // At most 2^15 cells a side: the place then takes at most 30 bits, below the drawn number's 32
  // and the done mark's bit 63 (10^8 nodes need 20 000 cells a side; more nodes get coarser cells).
  cells = std::clamp(cells, std::uint32_t{1}, std::uint32_t{1} << 15);
  unsigned order = 0;
  while ((std::uint32_t{1} << order) < cells) ++order;
  auto cell_of = [&](double c) { return std::min(cells - 1, static_cast<std::uint32_t>(c * cells)); };
  // Key: the cell's place on the curve above, the drawn number below; sorted by the place, stably.
  std::vector<std::uint64_t> keys(n), scratch(n);
  for (NodeId u = 0; u < n; ++u)
    keys[u] = hilbert_index(order, cell_of(pos[u].first), cell_of(pos[u].second)) << 32 | u;
  radix_sort<11>(keys.data(), scratch.data(), n, 2 * order, [](std::uint64_t k) { return k >> 32; });
  scratch = {};
  // Node i takes the point of rank first + i, by following the permutation's cycles in place (a
  // copy of the points would hold 16 more bytes per node at the set-up's peak); the place bits,
  // no longer needed, mark the nodes done.
  constexpr std::uint64_t done = std::uint64_t{1} << 63;
  auto rank_of = [&](NodeId i) -> std::uint64_t& { return keys[(std::size_t{first} + i) % n]; };
  for (NodeId start = 0; start < n; ++start) {
    if (rank_of(start) & done) continue;
    const auto kept = pos[start];
    NodeId i = start;
    for (;;) {
      const auto from = static_cast<NodeId>(rank_of(i) & 0xffffffffu);
      rank_of(i) |= done;
      if (from == start) {
        pos[i] = kept;
        break;
      }
      pos[i] = pos[from];
      i = from;
    }
  }
}

std::vector<std::pair<NodeId, NodeId>> pairs_within(const std::vector<std::pair<double, double>>& pos, double r) {
  std::vector<std::pair<NodeId, NodeId>> out;
  CellGrid grid;
  grid.for_each_pair_within(pos, r, [&](NodeId u, NodeId v) { out.emplace_back(u, v); });
  return out;
}

void CellGrid::build(const std::vector<std::pair<double, double>>& pos, double r) {
  cells_ = cells_per_side(pos.size(), r);
  auto cell_of = [&](double c) { return std::min(cells_ - 1, static_cast<std::uint32_t>(c * cells_)); };
  const auto n = static_cast<NodeId>(pos.size());
  const std::size_t count = std::size_t{cells_} * cells_;
  start_.assign(count + 1, 0);
  cell_x_.resize(n), cell_y_.resize(n), members_.resize(n);
  for (NodeId u = 0; u < n; ++u) {
    cell_x_[u] = cell_of(pos[u].first), cell_y_[u] = cell_of(pos[u].second);
    ++start_[std::size_t{cell_y_[u]} * cells_ + cell_x_[u] + 1];
  }
  for (std::size_t c = 0; c < count; ++c) start_[c + 1] += start_[c];
  // Filled in increasing node order, each cell's slice ends sorted; start_ is shifted back after.
  member_pos_.resize(n);
  for (NodeId u = 0; u < n; ++u) {
    const std::uint32_t at = start_[std::size_t{cell_y_[u]} * cells_ + cell_x_[u]]++;
    members_[at] = u, member_pos_[at] = pos[u];
  }
  for (std::size_t c = count; c > 0; --c) start_[c] = start_[c - 1];
  start_[0] = 0;
}

void CellGrid::sort_pairs() {
  const std::size_t size = pairs_.size();
  if (size < 256) {
    std::sort(pairs_.begin(), pairs_.end());
    return;
  }
  NodeId any_u = 0, any_v = 0;
  for (const auto& [u, v] : pairs_) any_u |= u, any_v |= v;
  sorted_.resize(size);
  // Least significant first: by v, then (stably) by u.
  radix_sort<11>(pairs_.data(), sorted_.data(), size, static_cast<unsigned>(std::bit_width(any_v)),
                 [](const std::pair<NodeId, NodeId>& p) { return p.second; });
  radix_sort<11>(pairs_.data(), sorted_.data(), size, static_cast<unsigned>(std::bit_width(any_u)),
                 [](const std::pair<NodeId, NodeId>& p) { return p.first; });
}

InitialTopology build_topology(const Scenario& s, Rng& rng) {
  InitialTopology t;
  const NodeId n = s.nodes;
  const auto& kind = s.topology.kind;
  if (kind == TopologyKind::edges) {
    t.edges = s.topology.file.empty() ? s.topology.edges : read_edge_file(s.topology.file, n);
    if (!s.topology.file.empty() && !s.topology.edges.empty())
      t.edges.insert(t.edges.end(), s.topology.edges.begin(), s.topology.edges.end());
    check_simple(t.edges, n);  // the file's edges were checked line by line; this checks the union
  } else if (kind == TopologyKind::ring) {
    if (n == 2) t.edges.emplace_back(0, 1);
    if (n >= 3)
      for (NodeId u = 0; u < n; ++u) t.edges.emplace_back(u, (u + 1) % n);
  } else if (kind == TopologyKind::grid) {
    const NodeId w = s.topology.width ? s.topology.width : static_cast<NodeId>(std::ceil(std::sqrt(double(n))));
    for (NodeId u = 0; u < n; ++u) {
      if ((u % w) + 1 < w && u + 1 < n) t.edges.emplace_back(u, u + 1);
      if (u + w < n) t.edges.emplace_back(u, u + w);
    }
  } else if (kind == TopologyKind::regular) {
    // Configuration model: every node gets `degree` stubs, stubs are paired at random, and the
    // self-loops and duplicate pairs this produces are dropped (so degrees are <= degree).
    const unsigned d = s.topology.degree ? s.topology.degree : s.delta;
    // The stubs are shuffled where the edges will be: stub i is one end of pair i / 2 (the last
    // one, for an odd count, on its own), so the set-up holds one array of n * d node numbers
    // rather than the stubs and then the edges (32 bytes per node less at the peak for d = 8,
    // with the same draws and the same edges).
    const std::size_t stubs = std::size_t{n} * d;
    t.edges.resize(stubs / 2);
    NodeId unpaired = 0;
    auto stub = [&](std::size_t i) -> NodeId& {
      if (i == stubs - 1 && stubs % 2 == 1) return unpaired;
      auto& pair = t.edges[i / 2];
      return i % 2 == 0 ? pair.first : pair.second;
    };
    for (std::size_t i = 0; i < stubs; ++i) stub(i) = static_cast<NodeId>(i / d);
    for (std::size_t i = stubs; i > 1; --i) std::swap(stub(i - 1), stub(rng.below(static_cast<std::uint32_t>(i))));
    // Self-loops dropped, in place and in order.
    std::size_t kept = 0;
    for (const auto& pair : t.edges)
      if (pair.first != pair.second) t.edges[kept++] = pair;
    t.edges.resize(kept);
    t.cap_is_error = false;  // duplicates are dropped by the engine's connect
  } else {                   // unit-disk, mobility
    t.positions = random_positions(n, s.topology.radius, rng);
    t.edges = pairs_within(t.positions, s.topology.radius);
    t.cap_is_error = false;
  }
  return t;
}

}  // namespace lmx::sim
