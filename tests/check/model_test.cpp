// The model: its bit packing, the table of node records and numbered packing, renaming nodes and
// ports, and the memo of node records (docs/checker.md, "The model explored" and "Symmetry").
#include "model.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "check_support.hpp"

namespace {
using lmx::check::Instance;
using lmx::check::Limit;
using lmx::check::Phase;
using lmx::check::Property;
using lmx::check::Verdict;
using lmx::check::testing::path_of_three;
using lmx::check::testing::two_nodes;
using lmx::core::Variant;

// The bit packing is injective: every bag of at most four messages (any kinds and values) packs to
// its own bits and unpacks to itself, and so do the other fields at their extreme values.
TEST(Checker, BitPackingIsInjective) {
  Instance i = two_nodes(Variant::repaired, 2, 3);
  i.nodes = 3;
  i.delta = 2;
  i.k = 3;
  const lmx::check::detail::Model m(i);
  std::vector<std::uint8_t> codes;  // encoded byte + 1, as the bags hold them
  for (unsigned b = 0; b < 255; ++b)
    if (lmx::core::decode(static_cast<std::uint8_t>(b), i.k).ok()) codes.push_back(static_cast<std::uint8_t>(b + 1));
  ASSERT_EQ(codes.size(), i.k + 8);
  std::set<std::vector<std::uint8_t>> seen;
  std::vector<std::uint8_t> buf(m.stride()), again(m.stride());
  unsigned bags = 0;
  const auto n = static_cast<unsigned>(codes.size());
  for (unsigned a = 0; a <= n; ++a)
    for (unsigned b = a; b <= n; ++b)
      for (unsigned c = b; c <= n; ++c)
        for (unsigned d = c; d <= n; ++d) {
          auto g = m.initial();
          std::array<std::uint8_t, lmx::check::channel_capacity> bag{};
          unsigned j = 0;
          for (unsigned x : {a, b, c, d})  // x = n: no message in this slot
            if (x < n) bag[j++] = codes[x];
          g.n[2].chan[1] = bag;
          g.n[1].s.lock_port = 2;
          g.n[0].s.state = lmx::core::InitiatorState::unlock;
          g.n[0].locks_left = 2;
          g.n[1].d = 7;
          m.pack(g, buf.data());
          lmx::check::detail::Global back;
          m.unpack(buf.data(), back);
          EXPECT_EQ(back.n[2].chan[1], bag);
          EXPECT_EQ(back.n[1].s, g.n[1].s);
          EXPECT_EQ(back.n[0].s.state, g.n[0].s.state);
          EXPECT_EQ(back.n[0].link, g.n[0].link);
          EXPECT_EQ(m.packed_state(buf.data(), 0), lmx::core::InitiatorState::unlock);
          m.pack(back, again.data());
          EXPECT_EQ(buf, again);
          seen.insert(buf);
          ++bags;
        }
  EXPECT_EQ(seen.size(), bags);  // C(K + 12, 4) distinct bags, distinct packings
  EXPECT_EQ(bags, 1365u);        // C(15, 4)
}

// Renaming nodes and ports is a symmetry of the model, which the reduction relies on: on every
// state of a prefix of an instance whose topology changes (so ports are re-used in every order),
// the canonical form is the same for renamed copies, and the real core's transitions commute with
// renaming (the same successors, renamed, with the same completions and problems). A core that
// treated some port specially (a lowest-port tie-break, say) fails this.
void expect_renaming_commutes(const Instance& i, std::size_t group_size, std::size_t prefix, std::size_t step) {
  const lmx::check::detail::Model m(i);
  const auto group = m.group();
  ASSERT_EQ(group.size(), group_size);
  using lmx::check::detail::Global;
  using lmx::check::detail::Label;
  using lmx::check::detail::Outcome;
  const std::size_t w = m.stride();
  auto successors = [&](const Global& g) {
    std::multiset<std::string> out;
    m.successors(g, [&](const Label&, const Global& next, const Outcome& o) {
      std::string key(w, '\0');
      m.pack(next, reinterpret_cast<std::uint8_t*>(key.data()));
      key += static_cast<char>(o.completed_lock) + static_cast<char>(2 * o.completed_unlock) +
             static_cast<char>(4 * static_cast<int>(o.problem));
      out.insert(key);
    });
    return out;
  };
  std::vector<Global> frontier{m.initial()};
  std::set<std::string> seen;
  std::string canon(w, '\0'), other(w, '\0');
  std::size_t checked = 0, renamed_apart = 0, moved_seen = 0, unmoved_seen = 0;
  while (!frontier.empty() && checked < prefix) {
    const Global g = frontier.front();
    frontier.erase(frontier.begin());
    // `moved` says whether the canonical member differs from the state itself (decided from the
    // renaming chosen, without packing the state a second time).
    auto expect_moved_is_exact = [&](const Global& x) {
      std::string plain(w, '\0'), canonical(w, '\0');
      bool moved = false;
      m.canonical(x, reinterpret_cast<std::uint8_t*>(canonical.data()), &moved);
      m.pack(x, reinterpret_cast<std::uint8_t*>(plain.data()));
      EXPECT_EQ(moved, plain != canonical);
      moved_seen += moved;
      unmoved_seen += !moved;
    };
    m.canonical(g, reinterpret_cast<std::uint8_t*>(canon.data()));
    expect_moved_is_exact(g);
    const auto mine = successors(g);
    for (std::size_t k = 1 + checked % step; k < group.size(); k += step) {  // a spread of renamings
      Global r;
      m.rename(g, group[k], r);
      m.canonical(r, reinterpret_cast<std::uint8_t*>(other.data()));
      ASSERT_EQ(canon, other) << "canonical form differs on a renamed copy";
      expect_moved_is_exact(r);
      std::multiset<std::string> expected;
      for (const auto& key : mine) {
        Global next;
        m.unpack(reinterpret_cast<const std::uint8_t*>(key.data()), next);
        Global renamed;
        m.rename(next, group[k], renamed);
        std::string packed(w, '\0');
        m.pack(renamed, reinterpret_cast<std::uint8_t*>(packed.data()));
        expected.insert(packed + key.substr(w));
      }
      const auto theirs = successors(r);
      ASSERT_EQ(theirs, expected) << "the core's transitions do not commute with a renaming";
      std::string plain(w, '\0'), renamed(w, '\0');
      m.pack(g, reinterpret_cast<std::uint8_t*>(plain.data()));
      m.pack(r, reinterpret_cast<std::uint8_t*>(renamed.data()));
      renamed_apart += plain != renamed;
    }
    ++checked;
    m.successors(g, [&](const Label&, const Global& next, const Outcome&) {
      std::string key(w, '\0');
      m.pack(next, reinterpret_cast<std::uint8_t*>(key.data()));
      if (seen.insert(key).second) frontier.push_back(next);
    });
  }
  EXPECT_EQ(checked, prefix);
  EXPECT_GT(renamed_apart, 0u);  // the renamings did move states
  EXPECT_GT(moved_seen, 0u);
  EXPECT_GT(unmoved_seen, 0u);
}

TEST(Checker, RenamingNodesAndPortsCommutesWithTheCore) {
  expect_renaming_commutes(path_of_three(Variant::repaired, 1, 2), 6u * 8u, 400,
                           5);  // 3! node orders, 2! port orders at each node
  // Lock over a subset: a renamed request is a request (every subset of ports 1..Delta is offered),
  // and the persistent ports it starts with are renamed with the node's ports.
  Instance subsets = path_of_three(Variant::repaired, 1, 2);
  subsets.lock_subsets = true;
  expect_renaming_commutes(subsets, 6u * 8u, 400, 5);
  Instance four = two_nodes(Variant::paper, 2, 3);
  four.nodes = 4;
  four.delta = 3;
  four.k = 3;
  four.edges = {{0, 1}, {1, 2}, {1, 3}};
  expect_renaming_commutes(four, 24u * 6u * 6u * 6u * 6u, 60, 997);
}

// Packing and canonical forms read a memo of node records. With a single entry, every record
// but the last looked up is evicted (canonical forms then work on copies) and refilled. On a
// prefix of two instances where ports are re-used (one whose bags are packed in one word, one with
// Delta = 3 and K = 32, whose bags are not), the packed bytes, the canonical forms, the renamings
// and whether the state moved must be those of the default memo, and unpacking must give the
// state back.
void expect_memo_is_transparent(const Instance& i, std::size_t prefix) {
  using lmx::check::detail::Global;
  using lmx::check::detail::Label;
  using lmx::check::detail::Model;
  using lmx::check::detail::Outcome;
  const Model cached(i), evicting(i, 1);
  const std::size_t w = cached.stride();
  std::vector<Global> frontier{cached.initial()};
  std::set<std::string> seen;
  std::size_t checked = 0, moved_seen = 0;
  while (checked < frontier.size() && checked < prefix) {
    const Global g = frontier[checked++];
    std::string a(w, '\0'), b(w, '\0');
    // The models number node records in the order they first pack them, which differs (only the
    // cached one packs the successors): the packed states are compared unpacked.
    auto same = [&](const std::string& x, const std::string& y) {
      Global gx, gy;
      cached.unpack(reinterpret_cast<const std::uint8_t*>(x.data()), gx);
      evicting.unpack(reinterpret_cast<const std::uint8_t*>(y.data()), gy);
      return gx.changes_left == gy.changes_left && std::memcmp(&gx.n, &gy.n, sizeof gx.n) == 0;
    };
    cached.pack(g, reinterpret_cast<std::uint8_t*>(a.data()));
    evicting.pack(g, reinterpret_cast<std::uint8_t*>(b.data()));
    ASSERT_TRUE(same(a, b));
    Global back;
    evicting.unpack(reinterpret_cast<const std::uint8_t*>(b.data()), back);
    ASSERT_EQ(back.changes_left, g.changes_left);
    for (unsigned u = 0; u < i.nodes; ++u)
      ASSERT_EQ(std::memcmp(&back.n[u], &g.n[u], sizeof g.n[u]), 0) << "unpacking does not give node " << u << " back";
    bool moved_a = false, moved_b = false;
    const auto ra = cached.canonical(g, reinterpret_cast<std::uint8_t*>(a.data()), &moved_a);
    const auto rb = evicting.canonical(g, reinterpret_cast<std::uint8_t*>(b.data()), &moved_b);
    ASSERT_TRUE(same(a, b)) << "canonical forms differ";
    ASSERT_EQ(moved_a, moved_b);
    ASSERT_EQ(ra.node, rb.node);
    ASSERT_EQ(ra.port_order, rb.port_order);
    ASSERT_EQ(ra.port, rb.port);
    moved_seen += moved_a;
    cached.successors(g, [&](const Label&, const Global& next, const Outcome&) {
      std::string key(w, '\0');
      cached.canonical(next, reinterpret_cast<std::uint8_t*>(key.data()));
      if (seen.insert(key).second) frontier.push_back(next);
    });
  }
  EXPECT_EQ(checked, prefix);
  EXPECT_GT(moved_seen, 0u);
}

TEST(Checker, TheMemoOfNodeRecordsChangesNoPackedState) {
  const Instance path = path_of_three(Variant::repaired, 1, 2);
  expect_memo_is_transparent(path, 3000);
  Instance wide = two_nodes(Variant::paper, 2, 2);
  wide.nodes = 4;
  wide.delta = 3;
  wide.k = 32;  // a bag takes 18 bits: four do not fit one word
  wide.edges = {{0, 1}, {1, 2}};
  expect_memo_is_transparent(wide, 1500);
  EXPECT_THROW(lmx::check::detail::Model(path, 3), std::invalid_argument);
}

// The table of node records numbers records in order of first sight, gives a known record its
// number again (across its index's growth), reads records back by number, and refuses a record
// past its capacity with an error that names the way out.
TEST(RecordTable, NumbersRecordsInOrderAndReadsThemBack) {
  lmx::check::detail::RecordTable t;
  t.reset(11, 20000);
  auto record = [](std::uint32_t i) {
    std::array<std::uint8_t, 11> r{};
    for (unsigned b = 0; b < r.size(); ++b) r[b] = static_cast<std::uint8_t>((i * 2654435761u) >> (b % 4 * 8));
    r[10] = static_cast<std::uint8_t>(i >> 8);
    return r;
  };
  for (std::uint32_t i = 0; i < 20000; ++i) ASSERT_EQ(t.intern(record(i).data()), i);
  EXPECT_EQ(t.size(), 20000u);
  for (std::uint32_t i = 0; i < 20000; i += 7) {
    ASSERT_EQ(t.intern(record(i).data()), i);
    ASSERT_EQ(std::memcmp(t.at(i), record(i).data(), 11), 0);
  }
  EXPECT_EQ(t.size(), 20000u);
  try {
    (void)t.intern(record(20000).data());
    FAIL() << "a record past the capacity was numbered";
  } catch (const std::length_error& e) {
    EXPECT_NE(std::string(e.what()).find("--no-collapse"), std::string::npos);
  }
  EXPECT_EQ(t.intern(record(5).data()), 5u);  // known records still have their numbers
}

// A state packed with numbered records unpacks to itself, its state registers read the same, and
// two states get the same numbers exactly when they get the same plain packing (and the same
// canonical forms likewise), on every state of a prefix of three nodes with topology changes.
TEST(Checker, NumberedPackingIsInjectiveLikeThePlainOne) {
  using namespace lmx::check::detail;
  const Instance i = path_of_three(Variant::repaired, 1, 2);
  const Model numbered(i), plain(i, Model::default_memo_slots, false);
  ASSERT_TRUE(numbered.collapsed());
  ASSERT_FALSE(plain.collapsed());
  ASSERT_LT(numbered.stride(), plain.stride());
  std::map<std::string, std::string> to_plain, to_numbered, canon_to_plain, canon_to_numbered;
  std::vector<Global> frontier{numbered.initial()};
  std::set<std::string> seen;
  for (std::size_t k = 0; k < frontier.size() && k < 4000; ++k) {
    const Global g = frontier[k];
    std::string a(numbered.stride(), '\0'), b(plain.stride(), '\0');
    numbered.pack(g, reinterpret_cast<std::uint8_t*>(a.data()));
    plain.pack(g, reinterpret_cast<std::uint8_t*>(b.data()));
    ASSERT_EQ(to_plain.emplace(a, b).first->second, b) << "two states share their numbers";
    ASSERT_EQ(to_numbered.emplace(b, a).first->second, a) << "one state got two packings";
    Global back;
    numbered.unpack(reinterpret_cast<const std::uint8_t*>(a.data()), back);
    ASSERT_EQ(back.changes_left, g.changes_left);
    for (unsigned u = 0; u < i.nodes; ++u) {
      ASSERT_EQ(std::memcmp(&back.n[u], &g.n[u], sizeof g.n[u]), 0) << "node " << u << " not unpacked";
      ASSERT_EQ(numbered.packed_state(reinterpret_cast<const std::uint8_t*>(a.data()), u), g.n[u].s.state);
    }
    numbered.canonical(g, reinterpret_cast<std::uint8_t*>(a.data()));
    plain.canonical(g, reinterpret_cast<std::uint8_t*>(b.data()));
    ASSERT_EQ(canon_to_plain.emplace(a, b).first->second, b);
    ASSERT_EQ(canon_to_numbered.emplace(b, a).first->second, a);
    if (!seen.insert(a).second) continue;
    numbered.successors(g, [&](const Label&, const Global& next, const Outcome&) { frontier.push_back(next); });
  }
  EXPECT_GT(numbered.node_records(), 100u);
  EXPECT_GT(canon_to_plain.size(), 1000u);
}

}  // namespace
