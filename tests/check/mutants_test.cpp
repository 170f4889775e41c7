// Teeth: every seeded mutant of the core (docs/checker.md) is caught by the checker on the bounded
// suite's smallest 2-node instances (one edge, Delta = 1, K = 2, at most 1 topology change,
// 1 or 2 Lock calls per node; smallest first) or, for defects that need three nodes (errata E3),
// on the first 300 000 states of a 3-node path with one topology change; the unmutated repaired
// core passes the 2-node instances and shows no violation on that 3-node prefix. The mutant of
// Lock over a subset (subset-ignored) is looked for with Instance::lock_subsets, which the other
// mutants do not need.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <sstream>
#include <string>

#include "check_support.hpp"
#include "lmx/check/checker.hpp"
#include "lmx/check/replay.hpp"
#include "lmx/core/protocol.hpp"

namespace {
using lmx::check::Instance;
using lmx::core::testing::Mutant;

std::vector<Instance> suite(lmx::core::Variant variant = lmx::core::Variant::repaired, bool lock_subsets = false) {
  std::vector<Instance> out;
  for (unsigned changes : {0u, 1u})
    for (unsigned locks : {1u, 2u}) {
      out.push_back(lmx::check::testing::two_nodes(variant, locks, changes));
      out.back().lock_subsets = lock_subsets;
    }
  return out;
}

/// Path n1 - n0 - n2, Delta = 2, K = 2, 1 Lock call per node, 1 topology change: the instance of
/// errata E3 (its counterexample has depth 11, well inside the first 300 000 states).
Instance three_node_path(lmx::core::Variant variant = lmx::core::Variant::repaired) {
  Instance i;
  i.variant = variant;
  i.nodes = 3;
  i.delta = 2;
  i.k = 2;
  i.locks = 1;
  i.max_changes = 1;
  i.edges = {{0, 1}, {0, 2}};
  return i;
}
constexpr std::uint64_t prefix_states = 300'000;

struct Guard {
  explicit Guard(Mutant m) { lmx::core::testing::active_mutant = m; }
  ~Guard() { lmx::core::testing::active_mutant = Mutant::none; }
};

class Mutants : public ::testing::TestWithParam<unsigned> {};

void caught_in(Mutant m, lmx::core::Variant variant) {
  const Guard g(m);
  std::string caught;
  // The full Lock requests every port, so subset-ignored changes nothing without Locks over a subset.
  for (const auto& inst : suite(variant, m == Mutant::subset_ignored)) {
    lmx::check::Options opt;
    opt.max_states = 300'000;  // the unmutated core needs < 100k here; a mutant may blow up after its defect
    const auto r = lmx::check::check(inst, opt);
    if (!r.violations.empty()) {
      caught = lmx::check::describe(inst) + ": " + std::string(to_string(r.violations.front().kind)) + " " +
               r.violations.front().detail;
      break;
    }
  }
  if (caught.empty()) {
    lmx::check::Options opt;
    opt.max_states = prefix_states;
    const auto r = lmx::check::check(three_node_path(variant), opt);
    if (!r.violations.empty())
      caught = lmx::check::describe(three_node_path(variant)) + " (first " + std::to_string(prefix_states) +
               " states): " + std::string(to_string(r.violations.front().kind)) + " " + r.violations.front().detail;
  }
  EXPECT_FALSE(caught.empty()) << "mutant " << lmx::core::testing::to_string(m) << " survived";
  std::printf("mutant %-32s caught (%s) by %s\n", std::string(lmx::core::testing::to_string(m)).c_str(),
              std::string(lmx::core::to_string(variant)).c_str(), caught.c_str());
}

// Each mutant is caught in the repaired variant and in the fast one, which shares its code (the
// fast variant's own mutant, f1-defers-while-held, changes nothing in the repaired one).
TEST_P(Mutants, IsCaught) {
  const auto m = static_cast<Mutant>(GetParam());
  for (const auto variant : {lmx::core::Variant::repaired, lmx::core::Variant::fast}) {
    if (m == Mutant::f1_defers_while_held && variant != lmx::core::Variant::fast) continue;
    SCOPED_TRACE(std::string(lmx::core::to_string(variant)));
    caught_in(m, variant);
  }
}

INSTANTIATE_TEST_SUITE_P(Core, Mutants, ::testing::Range(1u, lmx::core::testing::mutant_count),
                         [](const auto& param_info) {
                           std::string n(lmx::core::testing::to_string(static_cast<Mutant>(param_info.param)));
                           for (auto& c : n)
                             if (c == '-') c = '_';
                           return n;
                         });

TEST(MutantsBaseline, UnmutatedCorePassesTheSameInstances) {
  const Guard g(Mutant::none);
  for (const auto variant : {lmx::core::Variant::repaired, lmx::core::Variant::fast}) {
    for (const bool lock_subsets : {false, true})
      for (const auto& inst : suite(variant, lock_subsets))
        EXPECT_EQ(lmx::check::check(inst).verdict, lmx::check::Verdict::pass) << lmx::check::describe(inst);
    lmx::check::Options opt;
    opt.max_states = prefix_states;
    const auto r = lmx::check::check(three_node_path(variant), opt);
    EXPECT_TRUE(r.violations.empty()) << r.violations.front().kind << " " << r.violations.front().detail;
    EXPECT_EQ(r.verdict, lmx::check::Verdict::incomplete);  // the prefix was explored to its end
    EXPECT_GT(r.states, prefix_states - 64);
  }
}

// subset-ignored (a Lock over a subset takes N[u] whatever it requested) breaks P3 and nothing
// else: its first completion returns a neighbour the request left out. The checker sees it only
// with Locks over a subset (the full Lock requests every port, which the mutant leaves as it is),
// with and without the symmetry reduction, on Delta = 1 and on Delta = 2 (where a request may also
// name a port without edge), and its counterexample replays on the mutated core.
TEST(MutantsSubsets, SubsetIgnoredBreaksP3UnderLocksOverASubset) {
  const Guard g(Mutant::subset_ignored);
  for (const auto variant : {lmx::core::Variant::repaired, lmx::core::Variant::fast})
    for (const unsigned delta : {1u, 2u}) {
      Instance inst = lmx::check::testing::two_nodes(variant, 1, 1);
      inst.delta = delta;
      SCOPED_TRACE(lmx::check::describe(inst));
      EXPECT_EQ(lmx::check::check(inst).verdict, lmx::check::Verdict::pass);  // no subset: nothing to ignore
      inst.lock_subsets = true;
      for (const bool symmetry : {true, false}) {
        lmx::check::Options opt;
        opt.symmetry = symmetry;
        opt.per_kind = 3;
        const auto r = lmx::check::check(inst, opt);
        EXPECT_EQ(r.verdict, lmx::check::Verdict::fail);
        ASSERT_FALSE(r.violations.empty());
        for (const auto& v : r.violations) {
          EXPECT_EQ(v.kind, lmx::check::Property::P3) << v.detail;
          EXPECT_NE(v.trace.find("\"requested\":["), std::string::npos);
          std::istringstream in(v.trace);
          std::ostringstream report;
          EXPECT_TRUE(lmx::check::replay_counterexample(in, report)) << report.str();
        }
      }
    }
}

// The symmetry reduction (renaming nodes and ports, docs/checker.md) decides what the full search
// decides: the same verdict and the same kinds of violation, stuck where, on the paper variant, the
// repaired one and every mutant that a liveness property catches, on 2- and 3-node instances.
TEST(MutantsSymmetry, ReductionGivesTheSameVerdictsAsTheFullSearch) {
  auto findings = [](const lmx::check::Result& r) {
    std::set<std::string> out;
    for (const auto& v : r.violations) {
      const auto stays = v.detail.find(" stay");  // "node N stays in X..." / "node N can stay in X..."
      out.insert(std::string(to_string(v.kind)) + (stays == std::string::npos ? "" : v.detail.substr(stays, 24)));
    }
    return out;
  };
  std::vector<Instance> instances;
  for (unsigned changes : {0u, 1u})
    instances.push_back(lmx::check::testing::two_nodes(lmx::core::Variant::repaired, 1, changes));
  Instance wide = lmx::check::testing::two_nodes(lmx::core::Variant::repaired, 1, 1);
  wide.delta = 2;  // ports to rename
  instances.push_back(wide);
  // Lock calls that recur put most states in end components whose actions rename nodes.
  instances.push_back(lmx::check::testing::two_nodes(lmx::core::Variant::repaired, lmx::check::unbounded_locks, 2));
  Instance three = lmx::check::testing::two_nodes(lmx::core::Variant::repaired, 1, 1);
  three.nodes = 3;
  instances.push_back(three);
  const std::vector<Mutant> mutants = {Mutant::none,
                                       Mutant::skip_cleanup_in_receive_prepare,
                                       Mutant::held_never_released,
                                       Mutant::release_keeps_lock,
                                       Mutant::set_lock_keeps_candidate,
                                       Mutant::without_r1,
                                       Mutant::without_r2,
                                       Mutant::r2_alt_wait_for_applicants};
  unsigned failing = 0;
  for (const auto variant : {lmx::core::Variant::paper, lmx::core::Variant::repaired})
    for (const Mutant m : mutants) {
      if (variant == lmx::core::Variant::paper && m != Mutant::none) continue;
      const Guard g(m);
      for (Instance inst : instances) {
        if (inst.nodes == 3 && m != Mutant::none) continue;  // 3 nodes: both variants, unmutated
        inst.variant = variant;
        lmx::check::Options opt;
        // Above every complete search here (the 3-node ones store < 370k states without the
        // reduction). skip-cleanup-in-receive-prepare under recurring Lock calls never ends: both
        // searches stop at this bound, and must agree there too (both fail, with four findings).
        opt.max_states = 500'000;
        const auto reduced = lmx::check::check(inst, opt);
        opt.symmetry = false;
        const auto full = lmx::check::check(inst, opt);
        const std::string what = std::string(lmx::core::testing::to_string(m)) + " " + lmx::check::describe(inst);
        EXPECT_EQ(reduced.verdict, full.verdict) << what;
        EXPECT_EQ(findings(reduced), findings(full)) << what;
        EXPECT_LE(reduced.states, full.states) << what;
        failing += full.verdict == lmx::check::Verdict::fail;
      }
    }
  EXPECT_GT(failing, 10u);  // the comparison covers failing runs, not only passes
}

}  // namespace

// Saving an exploration that found a violation saves nothing: the violation decides the verdict,
// and the run stops with it and its counterexample (here a mutant's P2 on 2 nodes, no change).
TEST(MutantsSaving, AViolationOfTheExplorationIsReportedNotSaved) {
  const Guard g(Mutant::win_true_to_ties);
  const auto dir = std::filesystem::temp_directory_path() / "lmx-mutant-save";
  std::filesystem::remove_all(dir);
  lmx::check::Options opt;
  opt.save_dir = dir.string();
  const auto r = lmx::check::check(lmx::check::testing::two_nodes(lmx::core::Variant::repaired, 1, 0), opt);
  EXPECT_EQ(r.verdict, lmx::check::Verdict::fail);
  EXPECT_EQ(r.limit, lmx::check::Limit::none);
  ASSERT_FALSE(r.violations.empty());
  EXPECT_EQ(r.violations.front().kind, lmx::check::Property::P2);
  EXPECT_FALSE(r.violations.front().trace.empty());
  EXPECT_FALSE(std::filesystem::exists(dir / "checkpoint"));
  std::filesystem::remove_all(dir);
}
