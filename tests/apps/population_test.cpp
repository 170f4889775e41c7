// Population protocols: protocol files (every validation error), the shipped protocols, the four
// schedulers and the isolation monitor.
#include "lmx/apps/population.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <numeric>

namespace {

using namespace lmx::apps::pp;
using nlohmann::json;

json minimal() { return {{"states", {"A", "B"}}, {"initial", {{"A", 0.5}, {"B", 0.5}}}, {"rules", {"A, B -> A, A"}}}; }

/// The message of the ProtocolError that `j` raises ("" if none).
std::string error_of(const json& j) {
  try {
    (void)protocol_from_json(j, "p.toml");
  } catch (const ProtocolError& e) {
    return e.what();
  }
  return "";
}

TEST(ProtocolFile, EveryProblemIsOneLineNamingIt) {
  struct Case {
    const char* what;
    std::function<void(json&)> edit;
    const char* expected;
  };
  const std::vector<Case> cases = {
      {"unknown key", [](json& j) { j["rule"] = json::array(); }, "unknown key 'rule'"},
      {"no states", [](json& j) { j.erase("states"); }, "key 'states' is missing"},
      {"empty states", [](json& j) { j["states"] = json::array(); }, "key 'states' must be a list"},
      {"duplicate state",
       [](json& j) {
         j["states"] = {"A", "A"};
       },
       "duplicate state 'A'"},
      {"bad state name",
       [](json& j) {
         j["states"] = {"A", "B C"};
       },
       "is not a state name"},
      {"unknown state in a rule", [](json& j) { j["rules"] = {"A, Z -> A, A"}; }, "unknown state 'Z'"},
      {"no arrow", [](json& j) { j["rules"] = {"A, B, A, A"}; }, "expected \"A, B -> C, D\""},
      {"no comma", [](json& j) { j["rules"] = {"A B -> A, A"}; }, "expected two states separated by a comma"},
      {"duplicate rule",
       [](json& j) {
         j["rules"] = {"A, B -> A, A", "A, B -> B, B"};
       },
       "duplicate rule"},
      {"same rule twice",
       [](json& j) {
         j["rules"] = {"A, B -> A, A @ 0.5", "A, B -> A, A @ 0.5"};
       },
       "duplicate rule for the pair (A, B) -> (A, A)"},
      {"probabilities",
       [](json& j) {
         j["rules"] = {"A, B -> A, A @ 0.5", "A, B -> B, B @ 0.4"};
       },
       "summing to 0.9, not 1"},
      {"probability range", [](json& j) { j["rules"] = {"A, B -> A, A @ 1.5"}; }, "a probability must be in (0, 1]"},
      {"probability text", [](json& j) { j["rules"] = {"A, B -> A, A @ half"}; }, "must be a number"},
      {"rule not a string", [](json& j) { j["rules"] = {1}; }, "a rule is a string"},
      {"no initial", [](json& j) { j.erase("initial"); }, "key 'initial' is missing"},
      {"initial unknown state",
       [](json& j) {
         j["initial"] = {{"Q", 1.0}};
       },
       "key 'initial': unknown state 'Q'"},
      {"fractions",
       [](json& j) {
         j["initial"] = {{"A", 0.5}, {"B", 0.4}};
       },
       "fractions sum to 0.9, not 1"},
      {"negative",
       [](json& j) {
         j["initial"] = {{"A", -1}};
       },
       "must be a number >= 0"},
      {"nobody",
       [](json& j) {
         j["initial"] = {{"A", 0}};
       },
       "no agent in any state"},
      {"agents", [](json& j) { j["agents"] = 1; }, "key 'agents' must be an integer in 2..2^40"},
      {"stop", [](json& j) { j["stop"] = "forever"; }, "expected 'silent', 'consensus', 'never' or 'count(STATE)"},
      {"stop state", [](json& j) { j["stop"] = "count(Z) == 1"; }, "unknown state 'Z'"},
      {"stop operator", [](json& j) { j["stop"] = "count(A) ~ 1"; }, "expected 'silent'"},
      {"output state",
       [](json& j) {
         j["output"] = {{"Q", "q"}};
       },
       "key 'output': unknown state 'Q'"},
      {"output value",
       [](json& j) {
         j["output"] = {{"A", 3}};
       },
       "must be a string of 1 to 32 characters"},
      {"symmetric type", [](json& j) { j["symmetric"] = "yes"; }, "key 'symmetric' must be true or false"},
      {"group", [](json& j) { j["group"] = "all"; }, "key 'group' must be \"one\""},
      {"symmetric conflict",
       [](json& j) {
         j["symmetric"] = true;
         j["rules"] = {"A, B -> A, A", "B, A -> B, B"};
       },
       "are not mirror images"},
  };
  for (const Case& c : cases) {
    json j = minimal();
    c.edit(j);
    const std::string message = error_of(j);
    EXPECT_NE(message.find(c.expected), std::string::npos) << c.what << ": got '" << message << "'";
    EXPECT_EQ(message.find('\n'), std::string::npos) << c.what;
    EXPECT_EQ(message.rfind("p.toml", 0), 0u) << c.what << ": the message names the file first";
  }
  EXPECT_EQ(error_of(minimal()), "") << "the minimal protocol is valid";
}

TEST(ProtocolFile, SymmetricRulesAreMirrored) {
  json j = minimal();
  j["symmetric"] = true;
  j["rules"] = {"A, B -> A, A"};
  const Protocol p = protocol_from_json(j, "p.toml");
  ASSERT_EQ(p.outcomes(1, 0).size(), 1u);  // B, A -> A, A
  EXPECT_EQ(p.outcomes(1, 0)[0].initiator, 0);
  EXPECT_EQ(p.outcomes(1, 0)[0].responder, 0);
  j["symmetric"] = false;
  EXPECT_TRUE(protocol_from_json(j, "p.toml").outcomes(1, 0).empty());
}

TEST(ProtocolFile, CountsFixThePopulationAndFractionsAreRoundedToIt) {
  json j = minimal();
  j["initial"] = {{"A", 7}, {"B", 3}};
  const Protocol counts = protocol_from_json(j, "p.toml");
  EXPECT_TRUE(counts.initial_counts);
  EXPECT_EQ(counts.agents, 10u);
  EXPECT_EQ(counts.initial_counts_for(10), (std::vector<std::uint64_t>{7, 3}));
  j["initial"] = {{"A", 1.0 / 3}, {"B", 2.0 / 3}};
  const Protocol fractions = protocol_from_json(j, "p.toml");
  const auto c = fractions.initial_counts_for(100);
  EXPECT_EQ(c[0] + c[1], 100u);
  EXPECT_EQ(c[1], 67u);  // 66.67 has the larger remainder
}

// A symmetric file without rules read every pair's rules before any list existed (out of bounds;
// found by fuzz/pp_protocol_fuzz.cpp). Every pair is null.
TEST(ProtocolFile, ASymmetricFileWithoutRulesHasOnlyNullPairs) {
  json j = minimal();
  j["symmetric"] = true;
  j["rules"] = json::array();
  const Protocol p = protocol_from_json(j, "p.toml");
  for (AgentState a = 0; a < p.states.size(); ++a)
    for (AgentState b = 0; b < p.states.size(); ++b) {
      EXPECT_TRUE(p.outcomes(a, b).empty());
      EXPECT_FALSE(p.changes(a, b));
    }
}

// The JSON form reads back as the same protocol. It wrote counts as 7.0 and 3.0, which read back
// as fractions summing to 10 (found by fuzz/pp_protocol_fuzz.cpp).
TEST(ProtocolFile, TheJsonFormReadsBackAsTheSameProtocol) {
  json j = minimal();
  for (const json& initial : {json{{"A", 7}, {"B", 3}}, json{{"A", 0.25}, {"B", 0.75}}}) {
    j["initial"] = initial;
    const Protocol p = protocol_from_json(j, "p.toml");
    const Protocol again = protocol_from_json(p.to_json(), "again");
    EXPECT_EQ(again.to_json(), p.to_json()) << initial;
    EXPECT_EQ(again.initial_counts, p.initial_counts) << initial;
    EXPECT_EQ(again.agents, p.agents) << initial;
  }
}

TEST(ShippedProtocols, AllParseAndTheAveragingFileIsTheCxxProtocol) {
  std::set<std::string> names;
  for (const ShippedProtocol& s : shipped_protocols()) {
    EXPECT_NO_THROW((void)protocol_from_toml(s.toml, std::string(s.name))) << s.name;
    names.insert(std::string(s.name));
  }
  for (const char* required : {"approximate-majority", "approximate-majority-double-b", "exact-majority",
                               "leader-election", "epidemic", "averaging"})
    EXPECT_TRUE(names.count(required)) << required;
  const Protocol file = load_protocol(std::string(LMX_PROTOCOLS_DIR) + "/averaging.toml");
  const Protocol code = averaging(32);
  ASSERT_GE(file.states.size(), 20u);
  EXPECT_EQ(file.states, code.states);
  EXPECT_EQ(file.table(), code.table()) << "the file's rules and averaging(32)'s transition function differ";
  // load_protocol finds a shipped protocol by name, and names the shipped ones when it does not.
  EXPECT_EQ(load_protocol("leader-election").name, "leader-election");
  try {
    (void)load_protocol("no-such-protocol");
    ADD_FAILURE() << "expected an error";
  } catch (const ProtocolError& e) {
    EXPECT_NE(std::string(e.what()).find("shipped: "), std::string::npos) << e.what();
  }
}

TEST(ProtocolFile, TheDefaultNameIsTheFilesStemHoweverLongThePath) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / std::string(90, 'd');
  std::filesystem::create_directories(dir);
  const auto file = dir / "my-protocol.toml";
  {
    std::ofstream out(file);
    out << "states = [\"A\", \"B\"]\nrules = [\"A, B -> A, A\"]\n[initial]\nA = 0.5\nB = 0.5\n";
  }
  EXPECT_EQ(protocol_from_toml_file(file.string()).name, "my-protocol");
  std::filesystem::remove_all(dir);
}

TEST(FromFunction, RejectsAStateOutsideTheProtocol) {
  EXPECT_THROW((void)Protocol::from_function("bad", {"a", "b"},
                                             [](AgentState, AgentState) {
                                               return std::pair<AgentState, AgentState>{0, 2};
                                             }),
               ProtocolError);
}

RunConfig sequential(std::uint64_t seed, std::uint64_t agents = 0) {
  RunConfig c;
  c.seed = seed;
  c.agents = agents;
  return c;
}

std::uint64_t total(const std::vector<std::uint64_t>& v) {
  return std::accumulate(v.begin(), v.end(), std::uint64_t{0});
}

TEST(Sequential, SameSeedSameRunAndAnotherSeedAnother) {
  const Protocol p = load_protocol("approximate-majority");
  const Result a = run(p, sequential(5)), b = run(p, sequential(5)), c = run(p, sequential(6));
  EXPECT_EQ(a.interactions, b.interactions);
  EXPECT_EQ(a.final_counts, b.final_counts);
  EXPECT_NE(a.interactions, c.interactions);
  EXPECT_TRUE(a.converged);
  EXPECT_EQ(total(a.final_counts), a.agents);
}

TEST(Sequential, ExactMajorityIsAlwaysRightAndLeaderElectionLeavesOneLeader) {
  const Protocol majority = load_protocol("exact-majority");  // X = 501, Y = 500
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const Result r = run(majority, sequential(seed));
    ASSERT_TRUE(r.converged) << seed;
    EXPECT_EQ(r.outcome, "consensus X") << seed;
  }
  const Protocol leader = load_protocol("leader-election");
  const Result r = run(leader, sequential(3, 200));
  ASSERT_TRUE(r.converged);
  EXPECT_EQ(r.final_counts[*leader.state("L")], 1u);
  EXPECT_EQ(r.final_counts[*leader.state("F")], 199u);
}

TEST(Sequential, RandomisedOutcomesFollowTheirProbabilities) {
  // A, A -> B, A with probability 1/4 (else nothing), counted over many A, A meetings before the
  // first B appears: the number of A, A meetings until the first success is geometric(1/4).
  json j = {{"states", {"A", "B"}},
            {"initial", {{"A", 1.0}}},
            {"rules", {"A, A -> B, A @ 0.25", "A, A -> A, A @ 0.75"}},
            {"stop", "count(B) >= 1"}};
  const Protocol p = protocol_from_json(j, "p.toml");
  double sum = 0;
  const int runs = 4000;
  for (int seed = 1; seed <= runs; ++seed) sum += double(run(p, sequential(std::uint64_t(seed), 10)).interactions);
  // Mean 4, standard deviation sqrt(12) per run: the mean of 4000 runs is within 0.25 of 4 with
  // probability above 1 - 10^-5.
  EXPECT_NEAR(sum / runs, 4.0, 0.25);
}

TEST(Sequential, HistorySamplesConserveThePopulation) {
  const Protocol p = load_protocol("epidemic");
  RunConfig c = sequential(2);
  c.history_every = 0.5;
  const Result r = run(p, c);
  ASSERT_GE(r.history.size(), 3u);
  for (const auto& row : r.history) EXPECT_EQ(total(row.counts), r.agents);
  EXPECT_EQ(r.history.front().interactions, 0u);
  EXPECT_EQ(r.history.back().interactions, r.interactions);
  for (std::size_t i = 1; i < r.history.size(); ++i)
    EXPECT_GT(r.history[i].interactions, r.history[i - 1].interactions);
}

RunConfig on_graph(SchedulerKind kind, std::uint64_t seed, std::uint64_t agents) {
  RunConfig c;
  c.scheduler = kind;
  c.seed = seed;
  c.agents = agents;
  c.scenario.topology.kind = lmx::sim::TopologyKind::grid;  // connected, static, degree <= 4
  c.scenario.delta = 4;
  c.scenario.rounds = 200000;
  return c;
}

TEST(LockSchedulers, ExactMajorityIsRightOnAGridUnderEveryGraphScheduler) {
  json j = {{"states", {"X", "Y", "x", "y"}},
            {"initial", {{"X", 13}, {"Y", 12}}},
            {"symmetric", true},
            {"rules", {"X, Y -> x, y", "X, y -> x, X", "Y, x -> y, Y", "X, x -> x, X", "Y, y -> y, Y"}},
            {"output", {{"x", "X"}, {"y", "Y"}}},
            {"stop", "consensus"}};
  const Protocol p = protocol_from_json(j, "p.toml");
  for (auto kind : {SchedulerKind::sequential_graph, SchedulerKind::lock_neighbourhood, SchedulerKind::lock_pair})
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      const Result r = run(p, on_graph(kind, seed, 25));
      ASSERT_TRUE(r.converged) << to_string(kind) << " seed " << seed;
      EXPECT_EQ(r.outcome, "consensus X") << to_string(kind) << " seed " << seed;
      EXPECT_TRUE(r.violations.empty()) << to_string(kind) << ": " << r.violations.front().detail;
      if (kind != SchedulerKind::sequential_graph) {
        EXPECT_EQ(r.isolation_checks, r.interactions);
        EXPECT_EQ(r.no_partner, 0u) << "a static grid never leaves an agent alone";
      }
    }
}

TEST(GraphSchedulers, OnAStaticGraphSilenceIsTheGraphs) {
  // Discrete averaging on a ring of 40 with values 0 and 31 ends balanced edge by edge: values
  // that differ by 2 or more may remain, on agents that are not neighbours. The population-level
  // silence would never come; the graph's does, and then no edge can change any more.
  const Protocol p = averaging(32);
  for (auto kind : {SchedulerKind::sequential_graph, SchedulerKind::lock_neighbourhood, SchedulerKind::lock_pair}) {
    RunConfig c = on_graph(kind, 3, 40);
    c.scenario.topology.kind = lmx::sim::TopologyKind::ring;
    c.max_time = 20000;
    const Result r = run(p, c);
    ASSERT_TRUE(r.converged) << to_string(kind);
    std::uint64_t sum = 0, initial_sum = 0;
    for (std::size_t s = 0; s < r.final_counts.size(); ++s)
      sum += s * r.final_counts[s], initial_sum += s * r.initial_counts[s];
    EXPECT_EQ(sum, initial_sum) << "averaging keeps the sum";
  }
}

TEST(LockSchedulers, LockPairLocksOnlyThePairAndPassesP3) {
  const Protocol p = load_protocol("epidemic");
  RunConfig c = on_graph(SchedulerKind::lock_pair, 4, 64);
  const Result r = run(p, c);
  ASSERT_TRUE(r.converged);
  EXPECT_TRUE(r.violations.empty());
  EXPECT_EQ(r.run_summary["properties"]["P3"], "pass");
  // Every lock returned exactly the agent and its chosen partner: one lock cycle per interaction.
  EXPECT_EQ(r.lock_cycles, r.interactions + r.no_partner);
}

TEST(LockSchedulers, TheSubsetLockMakesRoomForMoreInteractionsPerRound) {
  // Every agent locking at once on a 4-regular static graph: locking a pair leaves the rest of
  // the neighbourhood free for other pairs (the paper's reason for its second implementation).
  const Protocol p = load_protocol("approximate-majority");
  RunConfig c = on_graph(SchedulerKind::lock_neighbourhood, 1, 400);
  c.scenario.topology.kind = lmx::sim::TopologyKind::regular;
  c.max_time = 2;
  const Result whole = run(p, c);
  c.scheduler = SchedulerKind::lock_pair;
  const Result pair = run(p, c);
  ASSERT_GT(whole.rounds, 0);
  ASSERT_GT(pair.rounds, 0);
  EXPECT_GT(double(pair.interactions) / pair.rounds, double(whole.interactions) / whole.rounds);
}

TEST(LockSchedulers, TheGroupRuleEachInteractsWithEveryLockedNeighbour) {
  json j = {{"states", {"I", "S"}},
            {"initial", {{"I", 1}, {"S", 63}}},
            {"symmetric", true},
            {"rules", {"I, S -> I, I"}},
            {"stop", "count(S) == 0"}};
  Protocol p = protocol_from_json(j, "p.toml");
  RunConfig c = on_graph(SchedulerKind::lock_neighbourhood, 5, 64);
  const Result one = run(p, c);
  EXPECT_EQ(one.interactions, one.lock_cycles - one.no_partner) << "one interaction per lock with a partner";
  j["group"] = "each";
  p = protocol_from_json(j, "p.toml");
  const Result each = run(p, c);
  ASSERT_TRUE(each.converged);
  EXPECT_TRUE(each.violations.empty()) << each.violations.front().detail;
  EXPECT_GT(each.interactions, 2 * (each.lock_cycles - each.no_partner)) << "a grid's locks hold 2 to 4 neighbours";
  EXPECT_LT(each.rounds, one.rounds) << "infecting a whole neighbourhood per lock spreads faster";
  c.scheduler = SchedulerKind::lock_pair;  // a pair has one partner: the group rule changes nothing
  const Result pair = run(p, c);
  EXPECT_EQ(pair.interactions, pair.lock_cycles - pair.no_partner);
}

TEST(IsolationMonitor, FiresWhenAnAgentInteractsOutsideTheLock) {
  const Protocol p = load_protocol("approximate-majority");
  RunConfig c = on_graph(SchedulerKind::lock_pair, 1, 100);
  c.scenario.topology.kind = lmx::sim::TopologyKind::regular;
  c.max_time = 1;
  const Result fine = run(p, c);
  EXPECT_TRUE(fine.violations.empty());
  c.unsafe_partner = true;  // partners drawn from all neighbours, locked or not
  const Result broken = run(p, c);
  ASSERT_FALSE(broken.violations.empty());
  EXPECT_EQ(broken.violations.front().property, "isolation");
  EXPECT_NE(broken.violations.front().detail.find("not in the initiator's lock set"), std::string::npos)
      << broken.violations.front().detail;
  EXPECT_EQ(broken.run_summary["violations"].size(), broken.violations.size());
}

TEST(IsolationMonitor, AnEdgeCutEndsThePartnersPartInAnInteraction) {
  // On a mobility graph a partner may move away while its initiator still holds the lock: its
  // CleanUp releases it, and another initiator may lock it before the first one calls Unlock. That
  // is no breach (the paper's lock set is of connected neighbours). Seed 11 did this at round 1280
  // in a monitor that kept the partner busy until the Unlock call.
  const Protocol p = load_protocol("approximate-majority");
  for (std::uint64_t seed : {11, 12, 13, 14}) {
    RunConfig c;
    c.scheduler = SchedulerKind::lock_pair;
    c.seed = seed;
    c.agents = 65;
    const Result r = run(p, c);
    EXPECT_TRUE(r.violations.empty()) << seed << ": " << r.violations.front().detail;
    EXPECT_TRUE(r.converged) << seed;
  }
}

TEST(LockSchedulers, InteractionsAreTraceLines) {
  const Protocol p = load_protocol("epidemic");
  RunConfig c = on_graph(SchedulerKind::lock_neighbourhood, 2, 16);
  std::ostringstream trace;
  c.trace = &trace;
  const Result r = run(p, c);
  ASSERT_TRUE(r.converged);
  std::istringstream lines(trace.str());
  std::string line;
  std::uint64_t interactions = 0;
  while (std::getline(lines, line)) {
    const json e = json::parse(line);
    if (e.value("ev", "") != "interact") continue;
    ++interactions;
    EXPECT_TRUE(e.contains("initiator") && e.contains("responder") && e["before"].size() == 2 &&
                e["after"].size() == 2);
  }
  EXPECT_EQ(interactions, r.interactions);
  EXPECT_NE(trace.str().find("\"source\":\"pp\""), std::string::npos);
}

}  // namespace
