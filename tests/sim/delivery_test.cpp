// The delay-target adversary ("delays as long as fairness allows") and the 16-bit message ages.
#include <gtest/gtest.h>

#include "lmx/sim/simulation.hpp"

namespace lmx::sim {
namespace {

using nlohmann::json;

/// Two nodes, one edge, each locking once; every message to or from node 0 is held back.
Scenario patient(const std::string& engine, std::uint32_t patience) {
  json j = {{"nodes", 2},
            {"delta", 1},
            {"engine", engine},
            {"rounds", 20 * patience},
            {"topology", {{"kind", "edges"}, {"edges", {{0, 1}}}}},
            {"delivery", {{"kind", "delay-target"}, {"target", 0}, {"patience", patience}}},
            {"workload", {{"participation", 1.0}, {"locks", 1}, {"idle", 0}, {"hold", 0}}}};
  return scenario_from_json(j);
}

std::string error_of(const std::string& engine, std::uint32_t patience) {
  try {
    (void)patient(engine, patience);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

// Message ages are stored modulo 2^16 ticks. A patience of 2^16 ticks or more would make a held
// message look young again after wrapping and hold it forever, breaking fairness; so patience is
// capped (60000 rounds semi-synchronous, 60 rounds asynchronous at 1024 ticks per round).
TEST(Delivery, PatienceIsCappedBelowTheAgeWrap) {
  EXPECT_EQ(error_of("semi-sync", 60000), "");
  EXPECT_NE(error_of("semi-sync", 60001).find("'delivery.patience': must be in 1..60000"), std::string::npos)
      << error_of("semi-sync", 60001);
  EXPECT_EQ(error_of("async", 60), "");
  EXPECT_NE(error_of("async", 61).find("must be in 1..60"), std::string::npos) << error_of("async", 61);
  // A scenario built in code bypasses the validator; the engine refuses it too.
  Scenario s = patient("async", 60);
  s.delivery.patience = 64;  // 64 * 1024 ticks = 2^16
  EXPECT_THROW(make_engine(s), ScenarioError);
}

// At the cap the adversary still delivers: the held messages become candidates after `patience`
// rounds, so the lock completes, later than `patience` rounds after the call.
TEST(Delivery, HeldMessagesAreDeliveredAtTheLargestPatience) {
  for (auto [engine, patience] : {std::pair{"semi-sync", 60000u}, std::pair{"async", 60u}}) {
    const json r = run(patient(engine, patience));
    EXPECT_EQ(r["locks_completed"], 2) << engine;
    EXPECT_EQ(r["violation_counts"], json::object()) << engine << " " << r["violation_counts"].dump();
    EXPECT_GE(r["latency_rounds"]["max"].get<double>(), double(patience)) << engine;
  }
}

}  // namespace
}  // namespace lmx::sim
