// Symmetry: renaming nodes and ports, the group, and the canonical member of an orbit with the
// memo of node records it reads (docs/checker.md, "Symmetry").
#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "model.hpp"
#include "packing.hpp"

namespace lmx::check::detail {

// Fills c for record a: everything packing and canonicalising need of a node but its links'
// peers. The checks a field-by-field packing would make are made here, once per record.
void Model::fill(NodeCanon& c, const NodeRec& a) const {
  const unsigned delta = inst_.delta;
  for (unsigned b = planes_; b < core::priority_planes; ++b)
    if (a.s.priorities.planes[b] != 0) throw std::logic_error("check: a priority plane beyond ceil(log2 K) is set");
  const auto* regs = reinterpret_cast<const std::uint8_t*>(&a.s);
  std::uint8_t sets = static_cast<std::uint8_t>(a.d | a.persist);  // port sets: no port above Delta
  for (std::size_t i = 0; i < planes_offset + planes_; ++i) sets = static_cast<std::uint8_t>(sets | regs[i]);
  if ((sets >> (delta + 1)) != 0) does_not_fit();
  if (a.s.lock_port != core::no_port && a.s.lock_port > delta) does_not_fit();
  const auto state = static_cast<std::uint32_t>(a.s.state), phase = static_cast<std::uint32_t>(a.s.phase);
  if ((state >> state_bits) != 0 || (phase >> phase_bits) != 0 || (a.locks_left >> locks_bits_) != 0) does_not_fit();
  c.filled = false;  // until every check below has passed
  c.tie_count = 0;
  c.number.fill({});
  for (std::size_t pi = 0; pi < port_perms_.size(); ++pi) {
    const auto& pm = port_perms_[pi];
    const auto& bits = bit_perms_[pi];
    // The fields before the links, one after another from bit 0 of front[0] on (front_bits_ <= 128).
    const std::uint32_t lock = a.s.lock_port == core::no_port ? 0u : pm[a.s.lock_port] + 1u;
    std::array<std::uint64_t, 2> front{};
    unsigned at = 0;
    auto field = [&](std::uint64_t v, unsigned width) {
      front[at / 64] |= v << (at % 64);
      if (at % 64 + width > 64) front[1] |= v >> (64 - at % 64);
      at += width;
    };
    for (std::size_t i = 0; i < planes_offset + planes_; ++i) field(bits[regs[i] & 15u], reg_bits_);
    field(lock, lock_bits_);
    field(state, state_bits);
    field(phase, phase_bits);
    field(bits[a.d & 15u], reg_bits_);
    field(bits[a.persist & 15u], reg_bits_);
    field(a.locks_left, locks_bits_);
    c.front[pi] = front;

    // The local key at this port order, and whether it is the smallest so far.
    LocalKey key;
    auto& k = key.b;
    std::size_t i = 0;
    for (; i < planes_offset + planes_; ++i) k[i] = bits[regs[i] & 15u];
    k[i++] = a.s.lock_port == core::no_port ? 0xFF : pm[a.s.lock_port];
    k[i++] = static_cast<std::uint8_t>(a.s.state);
    k[i++] = static_cast<std::uint8_t>(a.s.phase);
    k[i++] = bits[a.d & 15u];
    k[i++] = bits[a.persist & 15u];
    k[i++] = a.locks_left;
    std::uint8_t linked = 0;
    for (unsigned q = 1; q <= delta; ++q)
      if (a.link[q - 1] != no_link) linked = static_cast<std::uint8_t>(linked | 1u << pm[q]);
    k[i++] = linked;
    std::memcpy(&k[i], a.chan[0].data(), channel_capacity);
    for (unsigned q = 1; q <= delta; ++q)
      std::memcpy(&k[i + pm[q] * channel_capacity], a.chan[q].data(), channel_capacity);
    const int order = pi == 0 ? -1 : key.compare(c.best);
    if (order < 0) {
      c.best = key;
      c.tie_count = 0;
    }
    // Port orders that agree on the linked ports give the same links: keep one of them (free
    // ports are interchangeable: their local keys are equal and they have no peer).
    bool same_links = false;
    for (unsigned t = 0; order == 0 && t < c.tie_count && !same_links; ++t) {
      same_links = true;
      for (unsigned q = 1; q <= delta; ++q)
        if (a.link[q - 1] != no_link && port_perms_[c.ties[t]][q] != pm[q]) same_links = false;
    }
    if (order <= 0 && !same_links) c.ties[c.tie_count++] = static_cast<std::uint8_t>(pi);
  }
  for (unsigned q = 0; q <= delta; ++q) {
    c.bags[q] = bag_rank(a.chan[q]);
    if ((std::uint64_t{c.bags[q]} >> bag_bits_) != 0) does_not_fit();
  }
  if (bags_fit_)
    for (std::size_t pi = 0; pi < port_perms_.size(); ++pi) {
      std::uint64_t packed = 0;
      for (unsigned q = 0; q <= delta; ++q) packed |= std::uint64_t{c.bags[port_inverse_[pi][q]]} << (q * bag_bits_);
      c.bags_packed[pi] = packed;
    }
  c.rec = a;
  c.filled = true;
}

void Model::rename(const Global& g, const Renaming& r, Global& out) const {
  out = g;
  for (unsigned u = 0; u < inst_.nodes; ++u) {
    const NodeRec& a = g.n[u];
    NodeRec& b = out.n[r.node[u]];
    const auto& pm = r.port[u];
    b = a;
    const auto& bits = bit_perms_[r.port_order[u]];  // port sets hold ports 0..Delta <= 3: 4 bits
    const auto* from = reinterpret_cast<const std::uint8_t*>(&a.s);
    auto* to = reinterpret_cast<std::uint8_t*>(&b.s);
    for (std::size_t i = 0; i < planes_offset + core::priority_planes; ++i) to[i] = bits[from[i] & 15u];
    if (a.s.lock_port != core::no_port) b.s.lock_port = pm[a.s.lock_port];
    b.d = bits[a.d & 15u];
    b.persist = bits[a.persist & 15u];
    b.link.fill(no_link);
    for (unsigned q = 1; q <= inst_.delta; ++q) {
      b.chan[pm[q]] = a.chan[q];
      const std::uint8_t lk = a.link[q - 1];
      if (lk != no_link) b.link[pm[q] - 1] = static_cast<std::uint8_t>(r.node[lk >> 4] << 4 | r.port[lk >> 4][lk & 15]);
    }
  }
}

std::vector<Renaming> Model::group() const {
  std::vector<Renaming> all;
  std::size_t orders = 1;
  for (unsigned u = 0; u < inst_.nodes; ++u) orders *= port_perms_.size();
  for (const auto& perm : perms_)
    for (std::size_t c = 0; c < orders; ++c) {
      Renaming r;
      r.node = perm;
      std::size_t rest = c;
      for (unsigned u = 0; u < max_nodes; ++u) {
        r.port_order[u] = static_cast<std::uint8_t>(u < inst_.nodes ? rest % port_perms_.size() : 0);
        r.port[u] = port_perms_[r.port_order[u]];
        if (u < inst_.nodes) rest /= port_perms_.size();
      }
      all.push_back(r);
    }
  return all;
}

// The canonical member of an orbit is the one whose key (the nodes' local keys in node order,
// then every link as (peer, peer port)) is lexicographically smallest; the key determines the
// state, so the canonical member is unique. The smallest key starts with the local keys sorted,
// each node's at its best port order, so only node orders that sort the keys and port orders
// that reach a node's best key are tried for the links (usually one of each).
Renaming Model::canonical(const Global& g, std::uint8_t* out, bool* moved) const {
  const unsigned n = inst_.nodes;
  std::array<const NodeCanon*, max_nodes> entry{};
  bool evicted = false;
  for (unsigned u = 0; u < n; ++u) entry[u] = &canon_of(g.n[u]);
  for (unsigned u = 0; u < n; ++u) evicted = evicted || !same_record(entry[u]->rec, words_of(g.n[u]));
  if (evicted) [[unlikely]] {  // two records shared a memo entry: work on copies
    std::array<NodeCanon, max_nodes> own;
    for (unsigned u = 0; u < n; ++u) fill(own[u], g.n[u]), entry[u] = &own[u];
    return canonical_from(g, entry, out, moved);
  }
  return canonical_from(g, entry, out, moved);
}

Renaming Model::canonical_from(const Global& g, const std::array<const NodeCanon*, max_nodes>& entry, std::uint8_t* out,
                               bool* moved) const {
  const unsigned n = inst_.nodes, delta = inst_.delta;
  auto node = [&](unsigned u) -> const NodeCanon& { return *entry[u]; };
  Renaming chosen, r;
  // A node order sorts the local keys iff it puts each node within the block of nodes with its key:
  // at or after the `below` nodes with smaller keys, and before the `equal` ones with the same key.
  std::array<unsigned, max_nodes> below{}, equal{};
  for (unsigned u = 0; u < n; ++u)
    for (unsigned v = u + 1; v < n; ++v) {
      const int order = node(u).best.compare(node(v).best);
      if (order < 0) ++below[v];
      if (order > 0) ++below[u];
      if (order == 0) ++equal[u], ++equal[v];
    }
  bool single = true;  // one sorting node order and one port order per node: no links to compare
  for (unsigned u = 0; u < n; ++u) single = single && equal[u] == 0 && node(u).tie_count == 1;
  if (single) {
    for (unsigned u = 0; u < n; ++u) {
      chosen.node[u] = static_cast<std::uint8_t>(below[u]);
      chosen.port_order[u] = node(u).ties[0];
      chosen.port[u] = port_perms_[chosen.port_order[u]];
    }
    for (unsigned u = n; u < max_nodes; ++u) chosen.node[u] = static_cast<std::uint8_t>(u);  // as perms_ has them
  }
  bool have = false;
  std::array<std::uint8_t, max_nodes * max_delta> links{}, best_links{};
  std::array<unsigned, max_nodes> pick{};
  for (const auto& perm : perms_) {
    if (single) break;
    bool sorted = true;
    for (unsigned u = 0; u < n && sorted; ++u) sorted = perm[u] >= below[u] && perm[u] <= below[u] + equal[u];
    if (!sorted) continue;
    r.node = perm;
    pick.fill(0);
    for (;;) {  // every combination of tied port orders
      for (unsigned u = 0; u < n; ++u)
        r.port_order[u] = node(u).ties[pick[u]], r.port[u] = port_perms_[node(u).ties[pick[u]]];
      links.fill(0);
      for (unsigned u = 0; u < n; ++u)
        for (unsigned q = 1; q <= delta; ++q) {
          const std::uint8_t lk = g.n[u].link[q - 1];
          if (lk != no_link)
            links[perm[u] * max_delta + r.port[u][q] - 1] =
                static_cast<std::uint8_t>(1 + (r.node[lk >> 4] << 4 | r.port[lk >> 4][lk & 15]));
        }
      if (!have || std::memcmp(links.data(), best_links.data(), links.size()) < 0) {
        have = true;
        best_links = links;
        chosen = r;
      }
      unsigned u = 0;
      while (u < n && ++pick[u] == node(u).tie_count) pick[u++] = 0;
      if (u == n) break;
    }
  }
  // Pack the renamed state (nodes in their new order).
  std::array<std::uint8_t, max_nodes> old{};
  bool identity = true;
  for (unsigned u = 0; u < n; ++u) {
    old[chosen.node[u]] = static_cast<std::uint8_t>(u);
    identity = identity && chosen.node[u] == u && chosen.port_order[u] == 0;
  }
  BitWriter w{out};
  w.put(g.changes_left, changes_bits_);
  for (unsigned j = 0; j < n; ++j) put_node(g.n[old[j]], node(old[j]), chosen, old[j], w);
  w.finish();
  // g is its own canonical member iff the identity reaches the smallest key; it is then the first
  // candidate tried (the first node order, each node's port order 0 as its first tie) and only a
  // strictly smaller key replaces it. So no other renaming is chosen for a canonical g.
  if (moved != nullptr) *moved = !identity;
  return chosen;
}

}  // namespace lmx::check::detail
