// Ways of running that must find what one plain run finds: the graph on disk, node records by
// number, the analysis part by part, and a run in two sittings (saved, then resumed, with the record
// of its analysis).
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <sstream>
#include <string>

#include "check_support.hpp"
#include "lmx/check/checker.hpp"

namespace {
using lmx::check::Instance;
using lmx::check::Limit;
using lmx::check::Phase;
using lmx::check::Property;
using lmx::check::Verdict;
using lmx::check::testing::path_of_three;
using lmx::check::testing::read_text;
using lmx::check::testing::ScratchDir;
using lmx::check::testing::sealed;
using lmx::check::testing::two_nodes;
using lmx::check::testing::unsealed;
using lmx::check::testing::write_text;
using lmx::core::Variant;

// Two runs of one instance in ways that must not change what is found: the same verdict, states,
// transitions, depth, rebuilt states, sweeps, and counterexamples with their traces.
void expect_same_results(const lmx::check::Result& a, const lmx::check::Result& b) {
  EXPECT_EQ(a.verdict, b.verdict);
  EXPECT_EQ(a.states, b.states);
  EXPECT_EQ(a.transitions, b.transitions);
  EXPECT_EQ(a.max_depth, b.max_depth);
  EXPECT_EQ(a.lifted_states, b.lifted_states);
  EXPECT_EQ(a.deadlock_sweeps, b.deadlock_sweeps);
  ASSERT_EQ(a.violations.size(), b.violations.size());
  for (std::size_t i = 0; i < a.violations.size(); ++i) {
    EXPECT_EQ(a.violations[i].kind, b.violations[i].kind);
    EXPECT_EQ(a.violations[i].detail, b.violations[i].detail);
    EXPECT_EQ(a.violations[i].trace, b.violations[i].trace);
  }
}

// The graph kept in temporary files (--graph-on-disk) is read back as it was written: the same
// verdict, states, transitions, rebuilt states and counterexamples, on a failing instance of the
// paper variant (every kind of liveness violation) and a passing one with renamed end components.
TEST(Checker, TheGraphOnDiskGivesTheSameResults) {
  for (const Instance& inst : {two_nodes(Variant::paper, 2, 2), two_nodes(Variant::repaired, 2, 2)}) {
    lmx::check::Options in_memory, on_disk;
    on_disk.graph_on_disk = true;
    const auto a = lmx::check::check(inst, in_memory);
    const auto b = lmx::check::check(inst, on_disk);
    expect_same_results(a, b);
    EXPECT_GT(a.lifted_states, 0u);  // renamed end components were rebuilt and decided
  }
}

// Storing states as the numbers of their node records changes no result: the same verdict,
// states, transitions, rebuilt states and counterexamples as storing the records, on a failing
// instance of the paper variant, a passing one with renamed end components, and three nodes with
// topology changes. It stores fewer bytes per state, and numbers the records only where it is on.
TEST(Checker, NodeRecordsByNumberGiveTheSameResults) {
  Instance three = two_nodes(Variant::repaired, 1, 1);
  three.nodes = 3;
  for (const Instance& inst : {two_nodes(Variant::paper, 2, 2), two_nodes(Variant::repaired, 2, 2), three}) {
    lmx::check::Options numbered, plain;
    plain.collapse = false;
    const auto a = lmx::check::check(inst, numbered);
    const auto b = lmx::check::check(inst, plain);
    expect_same_results(a, b);
    EXPECT_GT(a.node_records, 0u);
    EXPECT_LT(a.node_records, a.states);
    EXPECT_EQ(b.node_records, 0u);
    EXPECT_LT(a.bytes_per_state, b.bytes_per_state);
  }
}

// A run in two (an exploration saved, then resumed in another call) finds what one run finds:
// the same verdict, counts and counterexamples, on a failing paper instance, a passing one with
// renamed end components (rebuilt states), three nodes with a change, and without the reduction,
// numbered records, or memory graph. The saving run stops after the exploration, undecided.
TEST(Checker, AResumedRunFindsWhatOneRunFinds) {
  Instance three = two_nodes(Variant::repaired, 1, 1);
  three.nodes = 3;
  Instance subsets = two_nodes(Variant::paper, 1, 1);  // counterexamples with Locks over a subset
  subsets.delta = 2;
  subsets.lock_subsets = true;
  struct Case {
    Instance inst;
    bool symmetry, collapse, graph_on_disk;
  };
  for (const Case& c : {Case{two_nodes(Variant::paper, 2, 2), true, true, false},
                        Case{two_nodes(Variant::repaired, 2, 2), true, true, true}, Case{three, true, true, false},
                        Case{two_nodes(Variant::paper, 1, 1), false, false, false}, Case{subsets, true, true, false}}) {
    SCOPED_TRACE(lmx::check::describe(c.inst));
    const ScratchDir dir("resume");
    lmx::check::Options whole;
    whole.symmetry = c.symmetry, whole.collapse = c.collapse, whole.graph_on_disk = c.graph_on_disk;
    lmx::check::Options first = whole, second = whole;
    first.save_dir = dir.path.string();
    second.resume_dir = dir.path.string();
    const auto one = lmx::check::check(c.inst, whole);
    const auto saved = lmx::check::check(c.inst, first);
    EXPECT_EQ(saved.verdict, Verdict::incomplete);
    EXPECT_EQ(saved.limit, Limit::saved);
    EXPECT_EQ(saved.states, one.states);
    EXPECT_TRUE(saved.violations.empty());
    EXPECT_TRUE(std::filesystem::exists(dir.path / "checkpoint"));
    const auto resumed = lmx::check::check(c.inst, second);
    expect_same_results(one, resumed);
    EXPECT_EQ(resumed.node_records, one.node_records);
    EXPECT_EQ(resumed.limit, Limit::none);
    EXPECT_GE(resumed.explore_cpu_seconds, saved.explore_cpu_seconds);  // the saved exploration's time counts
  }
}

// Deciding the end components part by part (Options::split_parts: the states no node move
// connects, decided apart) changes no result: the same verdict, states, rebuilt states and
// counterexamples, in the same order, as deciding the whole graph at once. The instances report
// up to 20 violations per kind, found in several parts, so that their order is compared too. One
// edge with Delta = 1 and two topology moves has three parts: the edge with two moves left, no
// edge with one, the edge again with none.
TEST(Checker, DecidingPartByPartFindsWhatTheWholeGraphFinds) {
  Instance three = two_nodes(Variant::paper, 1, 1);
  three.nodes = 3;
  for (const Instance& inst : {two_nodes(Variant::paper, 2, 2), two_nodes(Variant::repaired, 2, 2), three}) {
    SCOPED_TRACE(lmx::check::describe(inst));
    lmx::check::Options parts, whole;
    whole.split_parts = false;
    parts.per_kind = whole.per_kind = 20;
    const auto a = lmx::check::check(inst, whole);
    const auto b = lmx::check::check(inst, parts);
    expect_same_results(a, b);
    EXPECT_EQ(a.analysis_parts, 1u);
    EXPECT_EQ(b.analysis_parts, inst.max_changes == 2 ? 3u : 2u);
  }
  // Without topology moves the graph is one part.
  EXPECT_EQ(lmx::check::check(two_nodes(Variant::repaired, 1, 0)).analysis_parts, 1u);
}

// A resumed run records its analysis beside the checkpoint (the deadlock check, then each part
// decided), and a run resumed again goes on from the record: it decides only the parts the record
// lacks, and finds what one run finds (the paper's failing instance, three parts, up to 20
// violations per kind). A record of other options is not used; a malformed one is an error.
TEST(Checker, AResumedAnalysisGoesOnFromItsRecord) {
  const Instance inst = two_nodes(Variant::paper, 2, 2);
  const ScratchDir dir("record");
  lmx::check::Options whole, save, resume;
  whole.per_kind = save.per_kind = resume.per_kind = 20;
  save.save_dir = dir.path.string();
  resume.resume_dir = dir.path.string();
  std::set<unsigned> decided;  // the parts whose end components were decomposed
  resume.progress = [&](const lmx::check::Progress& p) {
    if (p.phase == Phase::end_components) decided.insert(p.part);
  };
  const auto one = lmx::check::check(inst, whole);
  ASSERT_EQ(one.verdict, Verdict::fail);
  ASSERT_EQ(lmx::check::check(inst, save).limit, Limit::saved);
  const auto first = lmx::check::check(inst, resume);
  expect_same_results(one, first);
  EXPECT_EQ(decided, (std::set<unsigned>{1, 2, 3}));
  const std::filesystem::path record = dir.path / "analysis";
  const std::string text = read_text(record);
  ASSERT_NE(text.find("\npart 2 lifted "), std::string::npos) << text;
  EXPECT_NE(text.find("\nfound "), std::string::npos) << text;  // the paper's P7 violations

  decided.clear();
  const auto again = lmx::check::check(inst, resume);
  expect_same_results(one, again);
  EXPECT_TRUE(decided.empty());
  // The earlier sittings' time counts: each phase of the analysis at least what the record holds.
  std::istringstream lines(text);
  unsigned recorded = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("phase ", 0) != 0) continue;
    const auto space = line.find(' ', 6);
    const double secs = std::stod(line.substr(6, space - 6));
    const std::string name = line.substr(space + 1);
    for (const auto& [phase, own] : again.phase_cpu_seconds)
      if (to_string(phase) == name) {
        EXPECT_GE(own, secs) << name;
        ++recorded;
      }
  }
  EXPECT_GE(recorded, 4u) << text;

  // The record cut after its second part (and sealed again, as if a run had stopped there): the
  // third is decided again.
  const std::string body = unsealed(text);
  write_text(record, sealed(body.substr(0, body.find("\npart 2 lifted ") + 1)));
  decided.clear();
  expect_same_results(one, lmx::check::check(inst, resume));
  EXPECT_EQ(decided, (std::set<unsigned>{3}));

  // The deadlock sweeps are taken from the record, not done again.
  const auto sweeps = body.find("deadlock_sweeps ");
  write_text(record, sealed(body.substr(0, sweeps) + "deadlock_sweeps 99" + body.substr(body.find('\n', sweeps))));
  EXPECT_EQ(lmx::check::check(inst, resume).deadlock_sweeps, 99u);

  // A record of other options (fewer reports per kind) is decided again, and replaced.
  lmx::check::Options fewer = resume;
  fewer.per_kind = 1;
  decided.clear();
  EXPECT_EQ(lmx::check::check(inst, fewer).verdict, Verdict::fail);
  EXPECT_EQ(decided, (std::set<unsigned>{1, 2, 3}));
  EXPECT_NE(read_text(record).find(" per_kind=1 "), std::string::npos);

  // A record of this run that is corrupt, malformed, or names what the exploration has not, is an
  // error that says so, and how to go on.
  const std::string good = unsealed(read_text(record));
  auto refusal = [&](const std::string& contents) {
    write_text(record, contents);
    try {
      (void)lmx::check::check(inst, fewer);
    } catch (const lmx::check::CheckpointError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(refusal(good + "nonsense 1\n" + "checksum 0123456789abcdef\n").find("is corrupt"), std::string::npos);
  EXPECT_NE(refusal(good).find("is corrupt"), std::string::npos);  // no checksum line
  EXPECT_NE(refusal(sealed(good + "nonsense 1\n")).find("has a malformed line: nonsense 1"), std::string::npos);
  const auto part = good.find("\npart ");
  ASSERT_NE(part, std::string::npos) << good;
  EXPECT_NE(refusal(sealed(good.substr(0, part + 1) + "deadlock 0 99999999\n" + good.substr(part + 1)))
                .find("malformed line: deadlock 0 99999999"),
            std::string::npos);
  EXPECT_NE(refusal(sealed(good.substr(0, part + 1) + "deadlock 7 0\n" + good.substr(part + 1)))
                .find("malformed line: deadlock 7 0"),
            std::string::npos);
  EXPECT_NE(refusal(sealed(good + "part 200 lifted 0\n")).find("malformed line: part 200"), std::string::npos);
  const auto found = good.find("\nfound ");
  ASSERT_NE(found, std::string::npos) << good;
  std::string bad_state = good;
  bad_state[good.find('\n', found + 1) - 3] = 'f';  // a byte of the member's state (node 3, unused: not empty)
  EXPECT_NE(refusal(sealed(bad_state)).find("malformed line: found"), std::string::npos);
  EXPECT_NE(refusal(sealed(good)).find("accepted"), std::string::npos);
}

}  // namespace
