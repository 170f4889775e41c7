// The golden-script interpreter on input no golden script holds: its work is bounded, and bad
// commands are error lines, never a crash.
#include "lmx/script/interpreter.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace lmx::script {
namespace {

/// Two neighbours that both lock: enough activations for any small limit.
void two_lockers(Interpreter& i) {
  i.execute("net nodes=2 delta=1 k=2 variant=repaired");
  i.execute("connect 0:1 1:1");
  i.execute("lock 0");
  i.execute("lock 1");
}

// `round N` and `run N` took any N (up to 2^32 - 1): a script could run for hours.
TEST(Interpreter, WorkLimitStopsACommandWithAnErrorLine) {
  Interpreter i(20);
  two_lockers(i);  // the two locks are 2 activations
  const auto out = i.execute("run 4294967295");
  ASSERT_FALSE(out.empty());
  EXPECT_EQ(out.back(), "error: work limit reached: this script may run at most 20 activations");
  EXPECT_EQ(out.size(), 10u);  // 9 steps of two nodes each, then the error
  EXPECT_EQ(i.work_done(), 20u);
  EXPECT_EQ(i.execute("lock 0"), (std::vector<std::string>{"error: work limit reached: this script may run at most "
                                                           "20 activations"}));
  EXPECT_EQ(i.execute("state 0").size(), 1u);  // reading the network costs nothing
}

TEST(Interpreter, WorkLimitCountsEveryNodeOfARound) {
  Interpreter i(5);
  two_lockers(i);
  const auto out = i.execute("round 4294967295");
  EXPECT_EQ(out.back(), "error: work limit reached: this script may run at most 5 activations");
  EXPECT_EQ(i.work_done(), 4u);  // one round of two nodes fitted; the next did not
}

// These two keep competing (K = 2, ties drawn again and again): `run` never runs out of steps.
TEST(Interpreter, DefaultLimitLeavesLongScriptsAlone) {
  Interpreter i;
  two_lockers(i);
  const auto out = i.execute("run 100000");
  ASSERT_FALSE(out.empty());
  EXPECT_EQ(out.back(), "stopped after 100000 steps: still changing");
  EXPECT_EQ(i.work_done(), 200002u);  // two nodes per step
}

}  // namespace
}  // namespace lmx::script
