// The liveness graph's code of targets (src/check/graph.hpp): every target, renaming and twisted
// bit written is read back, whatever the differences between consecutive targets.
#include "graph.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

namespace {

using lmx::check::detail::Graph;
using lmx::check::detail::Label;
using lmx::check::detail::Move;
using lmx::check::detail::Outcome;

struct Written {
  bool probabilistic;
  std::vector<Graph::Target> targets;
};

/// The node maps (two bits per node) of every permutation of `nodes` nodes.
std::vector<std::uint8_t> permutations(unsigned nodes) {
  std::vector<unsigned> p(nodes);
  for (unsigned v = 0; v < nodes; ++v) p[v] = v;
  std::vector<std::uint8_t> maps;
  do {
    unsigned m = 0;
    for (unsigned v = 0; v < nodes; ++v) m |= p[v] << (2 * v);
    maps.push_back(static_cast<std::uint8_t>(m));
  } while (std::next_permutation(p.begin(), p.end()));
  return maps;
}

/// Builds a graph of `states` states with random actions and targets (near and far, the extremes
/// of 32 bits, the sink), reads it back three ways and compares. `in_files`: the graph kept in
/// temporary files (Graph::keep_in_files), with states enough that its code grows past the first
/// mapping several times. `heavy`: every 1000th state has this many actions, so that its block of
/// offsets outgrows 16 bits (BlockOffsets).
void round_trip(unsigned nodes, bool renamings, unsigned k, std::uint32_t seed, bool in_files = false,
                unsigned heavy = 0) {
  std::mt19937_64 rng(seed);
  const std::uint32_t states = in_files ? 400000 : 3000, sink = states;
  const auto maps = permutations(nodes);
  Graph gr;
  gr.k = k;
  if (renamings) gr.keep_renamings(nodes);
  if (in_files) gr.keep_in_files();
  std::vector<std::vector<Written>> written(states);
  auto draw_target = [&](std::uint32_t s) -> std::uint32_t {
    switch (rng() % 6) {
      case 0: return s;
      case 1: return static_cast<std::uint32_t>(std::min<std::uint64_t>(s + rng() % 3, states - 1));
      case 2: return static_cast<std::uint32_t>(rng() % states);
      case 3: return Graph::sink_target;
      case 4: return rng() % 2 ? 0u : UINT32_MAX - 1;  // the largest differences, both signs
      default: return static_cast<std::uint32_t>(rng());
    }
  };
  for (std::uint32_t s = 0; s < states; ++s) {
    gr.open_state();
    const unsigned actions =
        heavy > 0 && s % 1000 == 500 ? heavy : static_cast<unsigned>(rng() % 5);  // 0: the stutter step closes it
    for (unsigned a = 0; a < actions; ++a) {
      Label l;
      l.move = rng() % 2 ? Move::guarded : Move::deliver;
      l.node = static_cast<std::uint8_t>(rng() % nodes);
      l.probabilistic = rng() % 3 == 0;
      Written w{l.probabilistic, {}};
      for (unsigned o = 0; o < (l.probabilistic ? k : 1); ++o) {
        l.prio = static_cast<std::uint8_t>(o);
        const Graph::Target t{draw_target(s), renamings ? maps[rng() % maps.size()] : std::uint8_t{0},
                              renamings && rng() % 2 == 1};
        gr.add(l, Outcome{}, t.to, t.nodes, t.twisted);
        w.targets.push_back(t);
      }
      written[s].push_back(w);
    }
    const std::uint8_t identity = renamings ? maps[0] : 0;
    if (gr.close_state(s, identity)) written[s].push_back(Written{false, {Graph::Target{s, identity, false}}});
  }
  gr.finish(sink);
  ASSERT_EQ(gr.states(), states);
  if (in_files) {
    ASSERT_GT(gr.bytes(), std::size_t{4} << 20) << "the code should have outgrown its first mappings";
  }

  auto expect_same = [&](const Graph::Target& got, const Graph::Target& want, std::uint32_t s) {
    const std::uint32_t to = want.to == Graph::sink_target ? sink : want.to;
    ASSERT_EQ(got.to, to) << "state " << s;
    ASSERT_EQ(got.nodes, want.nodes) << "state " << s;
    ASSERT_EQ(got.twisted, want.twisted) << "state " << s;
  };
  // Backwards, so that no state is read right after the one before it.
  for (std::uint32_t s = states; s-- > 0;) {
    std::size_t i = 0;
    gr.each_action(s, [&](std::uint64_t a, const Graph::Target* ts, unsigned m) {
      ASSERT_LT(i, written[s].size());
      ASSERT_EQ(gr.outcomes(a), written[s][i].targets.size());
      ASSERT_EQ(m, written[s][i].targets.size());
      for (unsigned j = 0; j < m; ++j) expect_same(ts[j], written[s][i].targets[j], s);
      ++i;
    });
    ASSERT_EQ(i, written[s].size());
    std::vector<Graph::Target> flat;
    for (const Written& w : written[s]) flat.insert(flat.end(), w.targets.begin(), w.targets.end());
    std::size_t j = 0;
    gr.each_target(s, [&](const Graph::Target& t) {
      expect_same(t, flat.at(j++), s);
      return true;
    });
    ASSERT_EQ(j, flat.size());
    Graph::Cursor c = gr.first(s);
    for (const Graph::Target& want : flat) expect_same(gr.next(c), want, s);
  }
}

TEST(GraphCode, TargetsReadBackWithoutRenamings) {
  for (std::uint32_t seed = 1; seed <= 4; ++seed) round_trip(3, false, 2 + seed, seed);
}

TEST(GraphCode, TargetsReadBackWithTheirRenamingsForOneToFourNodes) {
  for (unsigned nodes = 1; nodes <= 4; ++nodes) round_trip(nodes, true, 32, 100 + nodes);
}

TEST(GraphCode, TargetsReadBackFromTemporaryFiles) {
  round_trip(3, true, 3, 7, true);
  Graph gr;
  gr.open_state();
  EXPECT_THROW(gr.keep_in_files(), std::logic_error);  // only before the first state
}

TEST(GraphCode, StatesWithManyTargetsReadBack) {
  // 70 000 actions (about 800 000 targets with K = 32) in one state: both its action offsets and
  // its code offsets leave 16 bits within their block.
  round_trip(3, true, 32, 11, false, 70000);
}

TEST(GraphCode, NearTargetsTakeOneByte) {
  // Breadth first, a state's new successors are numbered consecutively: one byte each (two for
  // the first, a frontier away from the state), which is the point of the code.
  Graph gr;
  Label l;
  const std::size_t before = gr.bytes();
  gr.open_state();
  for (std::uint32_t t = 1; t <= 40; ++t) gr.add(l, Outcome{}, t);
  gr.close_state(0);
  gr.finish();
  // 40 targets of one byte, 40 flags, and the offsets: two bytes per value (two of actions, one of
  // code) plus the base of their block.
  constexpr std::size_t block_base = 16;
  EXPECT_EQ(gr.bytes() - before, 40u + 40u + (2 * 2u + block_base) + (2u + block_base));
}

// A graph copied state by state into parts (Graph::copy_state, as the analysis splits the graph):
// each part's states are numbered in it, in their order, and every action keeps its flags, its
// outcomes, and its targets renumbered with their renamings and twisted bits.
TEST(GraphCode, AStateCopiedIntoItsPartKeepsItsActionsRenumbered) {
  constexpr unsigned nodes = 3, k = 3, parts = 3;
  constexpr std::uint32_t states = 6000;
  std::mt19937_64 rng(5);
  const auto maps = permutations(nodes);
  Graph whole;
  whole.k = k;
  whole.keep_renamings(nodes);
  auto part_of = [](std::uint32_t s) { return s % parts; };
  for (std::uint32_t s = 0; s < states; ++s) {
    whole.open_state();
    for (unsigned a = rng() % 4; a > 0; --a) {
      Label l;
      l.move = Move::deliver;
      l.node = static_cast<std::uint8_t>(rng() % nodes);
      l.probabilistic = rng() % 2 == 0;
      for (unsigned o = 0; o < (l.probabilistic ? k : 1); ++o) {
        l.prio = static_cast<std::uint8_t>(o);
        // A target in the same part: near, or anywhere.
        const auto far = static_cast<std::uint32_t>(rng() % (states / parts)) * parts + part_of(s);
        const std::uint32_t to = rng() % 2 ? s : std::min(far, states - parts + part_of(s));
        whole.add(l, Outcome{}, to, maps[rng() % maps.size()], rng() % 2 == 1);
      }
    }
    whole.close_state(s, maps[0]);
  }
  whole.finish();
  std::vector<Graph> part(parts);
  for (Graph& p : part) {
    p.k = k;
    p.keep_renamings(nodes);
  }
  for (std::uint32_t s = 0; s < states; ++s)
    part[part_of(s)].copy_state(whole, s, [&](std::uint32_t t) {
      EXPECT_EQ(part_of(t), part_of(s));
      return t / parts;
    });
  for (Graph& p : part) p.finish();
  for (std::uint32_t s = 0; s < states; ++s) {
    const Graph& p = part[part_of(s)];
    const std::uint32_t local = s / parts;
    ASSERT_EQ(p.state_begin[local + 1] - p.state_begin[local], whole.state_begin[s + 1] - whole.state_begin[s]);
    std::vector<Graph::Target> want;
    whole.each_action(s, [&](std::uint64_t a, const Graph::Target* ts, unsigned m) {
      ASSERT_EQ(p.flags[p.state_begin[local] + (a - whole.state_begin[s])], whole.flags[a]) << "state " << s;
      for (unsigned i = 0; i < m; ++i) want.push_back(ts[i]);
    });
    std::size_t i = 0;
    p.each_target(local, [&](const Graph::Target& t) {
      EXPECT_EQ(t.to, want.at(i).to / parts) << "state " << s;
      EXPECT_EQ(t.nodes, want.at(i).nodes) << "state " << s;
      EXPECT_EQ(t.twisted, want.at(i).twisted) << "state " << s;
      ++i;
      return true;
    });
    ASSERT_EQ(i, want.size()) << "state " << s;
  }
}

}  // namespace

namespace {

using lmx::check::detail::FileColumn;

/// Writes values past several flushes of the buffer and reads them back in a scattered order:
/// flushed ones from the file, the last ones from the buffer.
void file_column_round_trip(bool use_file) {
  FileColumn<std::uint32_t> column(use_file);
  std::mt19937 rng(7);
  std::vector<std::uint32_t> written;
  for (std::size_t i = 0; i < 3 * 65536 + 1234; ++i) {
    written.push_back(static_cast<std::uint32_t>(rng()));
    column.push_back(written.back());
  }
  ASSERT_EQ(column.size(), written.size());
  for (std::size_t i = 0; i < written.size(); i += 997) ASSERT_EQ(column[i], written[i]) << "at " << i;
  for (std::size_t i = written.size() - 1300; i < written.size(); ++i) ASSERT_EQ(column[i], written[i]) << "at " << i;
  column.push_back(42);  // appending after reads
  EXPECT_EQ(column[written.size()], 42u);
  EXPECT_EQ(column[0], written[0]);
}

TEST(FileColumn, ValuesReadBackFromTheFileAndTheBuffer) {
  FileColumn<std::uint32_t> probe;
  ASSERT_TRUE(probe.in_file()) << "no temporary file could be made here";
  file_column_round_trip(true);
}

TEST(FileColumn, ValuesReadBackFromMemoryWithoutAFile) { file_column_round_trip(false); }

}  // namespace

namespace {

using lmx::check::detail::BlockOffsets;

/// Appends non-decreasing values to a BlockOffsets and reads them back against a plain vector. Each
/// block is one of three kinds: steps under 40 (narrow), one step to exactly 2^16 - 1 from the
/// block's base and none after it (narrow, the largest difference), or a step over 2^16 at a random
/// position (the block goes wide there). Some blocks begin 2^33 above the last value.
void block_offsets_round_trip(bool in_file) {
  std::mt19937_64 rng(5);
  BlockOffsets offsets;
  if (in_file) offsets.keep_in_file();
  std::vector<std::uint64_t> want;
  std::uint64_t v = 0;
  unsigned kind = 0;
  std::size_t wide_at = 0;
  for (std::size_t i = 0; i < 200000; ++i) {
    const std::size_t at = i % BlockOffsets::block;
    if (at == 0) {
      kind = static_cast<unsigned>(rng() % 8);
      wide_at = 1 + rng() % (BlockOffsets::block - 1);
      if (rng() % 100 == 0) v += std::uint64_t{1} << 33;  // the block's base absorbs it
    } else if (kind == 0 && at == wide_at) {
      v += 0x10000 + rng() % 5;
    } else if (kind == 1) {
      if (at == 1) v += 0xFFFF;
    } else {
      v += rng() % 40;
    }
    offsets.push_back(v);
    want.push_back(v);
  }
  ASSERT_EQ(offsets.size(), want.size());
  ASSERT_EQ(offsets.back(), want.back());
  for (std::size_t i = want.size(); i-- > 0;) ASSERT_EQ(offsets[i], want[i]) << "value " << i;
  EXPECT_LT(offsets.bytes(), want.size() * 4) << "most blocks should stay narrow";
}

}  // namespace

TEST(BlockOffsets, ValuesReadBackInNarrowAndWideBlocks) { block_offsets_round_trip(false); }

TEST(BlockOffsets, ValuesReadBackFromTemporaryFiles) { block_offsets_round_trip(true); }

TEST(BlockOffsets, ABlockSpanningOver32BitsIsAnError) {
  BlockOffsets offsets;
  offsets.push_back(0);
  EXPECT_THROW(offsets.push_back(std::uint64_t{1} << 32), std::length_error);
}
