// Scenario validation: TOML files, `--set` overrides, edge-list files and the helpers the commands
// share (seeds, printable text). Every bad input is one ScenarioError line naming what is wrong.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <vector>

#include "lmx/sim/simulation.hpp"

namespace lmx::sim {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

/// The error of applying the assignments to an empty scenario and validating it ("" if none).
std::string error_of(std::initializer_list<std::string> assignments) {
  json j = json::object();
  try {
    for (const auto& a : assignments) apply_override(j, a);
    (void)scenario_from_json(j);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}
std::string error_of(const std::string& assignment) { return error_of({assignment}); }

/// The error of validating `j` ("" if none). Any other exception fails the test.
std::string error_of_json(const json& j) {
  try {
    (void)scenario_from_json(j);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

std::string edge_error(const std::string& content, NodeId nodes = 6) {
  std::istringstream in(content);
  try {
    (void)parse_edge_list(in, "g.edges", nodes);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

std::vector<std::pair<NodeId, NodeId>> edges_of(const std::string& content, NodeId nodes = 6) {
  std::istringstream in(content);
  return parse_edge_list(in, "g.edges", nodes);
}

/// A scratch directory for files, removed by the caller's test.
fs::path scratch(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("lmx_scenario_test_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void write(const fs::path& file, const std::string& content) {
  std::ofstream out(file, std::ios::binary);
  out << content;
}

bool one_line(const std::string& s) { return !s.empty() && s.find('\n') == std::string::npos; }

#define EXPECT_CONTAINS(haystack, needle)                                        \
  do {                                                                           \
    const std::string found_in_ = (haystack);                                    \
    EXPECT_NE(found_in_.find(needle), std::string::npos) << "in: " << found_in_; \
  } while (0)

TEST(Scenario, RejectsBadInputWithOneLine) {
  EXPECT_CONTAINS(error_of("colour=3"), "'colour': unknown key");
  EXPECT_CONTAINS(error_of("topology.colour=3"), "'topology.colour'");
  EXPECT_CONTAINS(error_of("nodes=\"many\""), "expected an integer");
  EXPECT_CONTAINS(error_of("delta=64"), "Delta must be in 1..63");
  EXPECT_CONTAINS(error_of("delta=0"), "Delta must be in 1..63");
  EXPECT_CONTAINS(error_of("k=33"), "K must be in 2..32");
  EXPECT_CONTAINS(error_of("engine=warp"), "unknown value 'warp'");
  EXPECT_CONTAINS(error_of("activation.p=2"), "value 2.0 outside 1e-06..1.0");
  EXPECT_EQ(error_of("variant=paper"), "");
  EXPECT_THROW(scenario_json_from_toml_file("/nonexistent/scenario.toml"), ScenarioError);
}

/// Every word of every kind reads into its enum and is written back the same (files, summaries
/// and trace headers keep their words); a word of another kind is refused.
template <class Kind>
void expect_words_round_trip(const std::string& key) {
  for (std::string_view w : KindWords<Kind>::words) {
    const auto kind = kind_from_word<Kind>(w);
    ASSERT_TRUE(kind.has_value()) << w;
    EXPECT_EQ(word(*kind), w);
    json j = json::object();
    apply_override(j, key + "=" + std::string(w));
    // Some kinds need more keys to be valid; the word itself is what is checked here.
    if (w == "edges") apply_override(j, "topology.edges=[[0, 1]]");
    if (key == "activation.kind") apply_override(j, "engine=semi-sync");  // the async engine has none
    const Scenario s = scenario_from_json(j);
    EXPECT_EQ(s.to_json().at(json::json_pointer(
                  "/" + std::string(key == "engine" ? "engine" : key.substr(0, key.find('.')) + "/kind"))),
              std::string(w));
  }
  EXPECT_FALSE(kind_from_word<Kind>("warp").has_value());
}

TEST(Scenario, EveryKindIsReadAndWrittenAsItsWord) {
  expect_words_round_trip<EngineKind>("engine");
  expect_words_round_trip<ActivationKind>("activation.kind");
  expect_words_round_trip<DeliveryKind>("delivery.kind");
  expect_words_round_trip<TopologyKind>("topology.kind");
  expect_words_round_trip<DynamicsKind>("dynamics.kind");
  expect_words_round_trip<WorkloadKind>("workload.kind");
  EXPECT_FALSE(kind_from_word<TopologyKind>("static").has_value());  // a dynamics word
}

TEST(Scenario, TopologyBreakingTheDeltaCapIsAnError) {
  Scenario s;
  s.nodes = 4, s.delta = 2, s.topology.kind = lmx::sim::TopologyKind::edges,
  s.topology.edges = {{0, 1}, {0, 2}, {0, 3}};
  EXPECT_THROW(make_engine(s), ScenarioError);
  s.topology.edges = {{0, 1}, {1, 0}};
  EXPECT_THROW(make_engine(s), ScenarioError);
}

TEST(Scenario, JsonRoundTrip) {
  Scenario s;
  s.nodes = 60, s.rounds = 60, s.variant = core::Variant::paper;
  s.topology.kind = lmx::sim::TopologyKind::edges, s.topology.edges = {{0, 1}, {2, 3}};
  s.seed = std::numeric_limits<std::uint64_t>::max();  // above TOML's signed integers
  EXPECT_EQ(scenario_from_json(s.to_json()).to_json(), s.to_json());
  // Through text, as a trace header is read back.
  EXPECT_EQ(scenario_from_json(json::parse(s.to_json().dump())).seed, s.seed);
}

TEST(Scenario, ExamplesParse) {
  for (const char* name : {"default.toml", "ring-paper.toml", "hostile-flap.toml", "churn.toml", "edges.toml"}) {
    const std::string path = std::string(LMX_SIM_TEST_DATA) + "/../../examples/" + name;
    const json j = scenario_json_from_toml_file(path);
    EXPECT_NO_THROW((void)make_engine(scenario_from_json(j))) << name;
  }
}

// ---------------------------------------------------------------- edge-list files

TEST(EdgeList, CommentsBlankLinesAndTrailingCommentsAreTheOnlyNonEdges) {
  const auto edges = edges_of("# two edges\n\n   \t\n  # indented comment\n0 1   # trailing comment\n1\t2\r\n4 5");
  EXPECT_EQ(edges, (std::vector<std::pair<NodeId, NodeId>>{{0, 1}, {1, 2}, {4, 5}}));
  EXPECT_TRUE(edges_of("").empty());
}

// A line that is not two node numbers used to be skipped as if it were a comment.
TEST(EdgeList, ALineThatIsNotAnEdgeIsAnErrorNamingFileAndLine) {
  EXPECT_EQ(edge_error("0 1\nfoo bar\n"), "g.edges:2: expected two node numbers 'u v', got \"foo bar\"");
  for (const char* bad : {"1\n", "1 2 3\n", "-1 2\n", "+1 2\n", "1x 2\n", "0x1 2\n", "1,2\n", "1 2x\n", "1e0 2\n",
                          "1 2 // c\n", "one two\n"}) {
    const std::string e = edge_error(bad);
    EXPECT_EQ(e.rfind("g.edges:1: expected two node numbers", 0), 0u) << bad << " -> " << e;
    EXPECT_TRUE(one_line(e)) << e;
  }
}

TEST(EdgeList, BinaryContentIsAClearError) {
  EXPECT_EQ(edge_error(std::string("0 1\n\0\x01\x02\n", 8)), "g.edges:2: holds a NUL byte: not a text file");
  EXPECT_EQ(edge_error("0 1\n1 2\n\xff\xfe 3\n"), "g.edges:3: not valid UTF-8: \"\\xff\\xfe 3\"");
  EXPECT_EQ(edge_error("0 1\x1b[2J\n"), "g.edges:1: holds the control character \\x1b");
  EXPECT_EQ(edge_error("# caf\xc3\xa9 \xe2\x9c\x93\n0 1\n"), "");  // UTF-8 comments are fine
  EXPECT_EQ(edge_error(std::string(5000, '7')), "g.edges:1: line longer than 4096 bytes: not an edge list");
}

TEST(EdgeList, BadEdgesNameTheirLine) {
  EXPECT_EQ(edge_error("0 1\n1 6\n"), "g.edges:2: node 6 outside (the scenario has 6 nodes, 0..5)");
  EXPECT_EQ(edge_error("99999999999999999999999 1\n"),
            "g.edges:1: node number too large (the scenario has 6 nodes, 0..5)");
  EXPECT_EQ(edge_error("0 1\n# c\n3 3\n"), "g.edges:3: self-loop at node 3");
  EXPECT_EQ(edge_error("0 1\n1 2\n1 0\n"), "g.edges:3: duplicate edge {1,0} (first on line 1)");
}

TEST(EdgeList, ADirectoryIsNotAnEmptyFile) {
  const fs::path dir = scratch("dir");
  Scenario s;
  s.nodes = 4, s.topology.kind = lmx::sim::TopologyKind::edges, s.topology.file = dir.string();
  try {
    (void)make_engine(s);
    ADD_FAILURE() << "a directory was read as an edge list";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(std::string(e.what()), "edge-list file '" + dir.string() + "' is a directory");
  }
  try {
    (void)scenario_json_from_toml_file(dir.string());
    ADD_FAILURE() << "a directory was read as a scenario";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(std::string(e.what()), "scenario file '" + dir.string() + "' is a directory");
  }
  s.topology.file = (dir / "missing.edges").string();
  try {
    (void)make_engine(s);
    ADD_FAILURE() << "a missing file was read";
  } catch (const ScenarioError& e) {
    EXPECT_CONTAINS(std::string(e.what()), "missing.edges': No such file or directory");
  }
  fs::remove_all(dir);
}

TEST(EdgeList, FileEdgesAreCheckedWithTheirLineThroughTheEngine) {
  const fs::path dir = scratch("file");
  write(dir / "g.edges", "0 1\n\n1 2\n2 0\nfoo\n");
  Scenario s;
  s.nodes = 3, s.delta = 2, s.topology.kind = lmx::sim::TopologyKind::edges,
  s.topology.file = (dir / "g.edges").string();
  try {
    (void)make_engine(s);
    ADD_FAILURE() << "a non-edge line was skipped";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(std::string(e.what()), (dir / "g.edges").string() + ":5: expected two node numbers 'u v', got \"foo\"");
  }
  write(dir / "g.edges", "0 1\n\n1 2\n2 0\n");
  EXPECT_NO_THROW((void)make_engine(s));
  s.topology.edges = {{1, 0}};  // inline edges join the file's: a duplicate across the two
  EXPECT_THROW((void)make_engine(s), ScenarioError);
  fs::remove_all(dir);
}

// ---------------------------------------------------------------- keys a kind ignores

TEST(Scenario, InlineEdgesAndFilesNeedKindEdges) {
  for (const char* kind : {"ring", "grid", "regular", "unit-disk", "mobility"}) {
    const std::string k = std::string("topology.kind=") + kind;
    EXPECT_EQ(error_of({k, "topology.edges=[[0, 1]]"}),
              std::string("scenario key 'topology.edges': topology kind '") + kind +
                  "' does not use it (only edges does): remove the key or change topology.kind");
    EXPECT_CONTAINS(error_of({k, "topology.file=\"g.edges\""}), "scenario key 'topology.file': topology kind");
    EXPECT_EQ(error_of({k, "topology.edges=[]", "topology.file=\"\""}), "") << kind;  // the defaults
  }
  EXPECT_EQ(error_of({"topology.kind=edges", "topology.edges=[[0, 1]]"}), "");
}

TEST(Scenario, KeysTheKindIgnoresAreErrorsUnlessLeftAtTheirDefault) {
  EXPECT_CONTAINS(error_of({"topology.kind=ring", "topology.degree=2"}), "'topology.degree': topology kind 'ring'");
  EXPECT_CONTAINS(error_of({"topology.kind=ring", "topology.width=2"}), "'topology.width'");
  EXPECT_CONTAINS(error_of({"topology.kind=grid", "topology.radius=0.1"}), "(only unit-disk and mobility do)");
  EXPECT_CONTAINS(error_of({"topology.kind=unit-disk", "topology.speed=0.1"}), "'topology.speed'");
  EXPECT_CONTAINS(error_of({"delivery.kind=oldest", "delivery.patience=3"}), "'delivery.patience'");
  EXPECT_CONTAINS(error_of({"delivery.target=1"}), "'delivery.target': delivery kind 'random'");
  EXPECT_CONTAINS(error_of({"dynamics.kind=flap", "dynamics.birth=0.5"}), "'dynamics.birth'");
  EXPECT_CONTAINS(error_of({"dynamics.kind=churn", "dynamics.target=3"}), "'dynamics.target'");
  EXPECT_CONTAINS(error_of({"dynamics.kind=swizzle", "dynamics.bound=3"}), "(only starve and flap do)");
  EXPECT_CONTAINS(error_of({"dynamics.kind=starve", "dynamics.batch=3"}), "'dynamics.batch'");
  // The kinds that read them, and defaults written out, are fine.
  EXPECT_EQ(error_of({"topology.kind=regular", "topology.degree=2"}), "");
  EXPECT_EQ(error_of({"topology.kind=grid", "topology.width=2"}), "");
  EXPECT_EQ(error_of({"topology.kind=unit-disk", "topology.radius=0.1"}), "");
  EXPECT_EQ(error_of({"topology.kind=ring", "topology.radius=0.045", "topology.speed=0.004"}), "");
  EXPECT_EQ(error_of({"delivery.kind=delay-target", "delivery.target=1", "delivery.patience=3"}), "");
  EXPECT_EQ(error_of({"dynamics.kind=flap", "dynamics.bound=3", "dynamics.batch=2"}), "");
  EXPECT_EQ(error_of({"dynamics.kind=swizzle", "dynamics.batch=2"}), "");
  // What a trace header holds (every key, unused ones at their defaults) validates again.
  Scenario ring;
  ring.topology.kind = lmx::sim::TopologyKind::ring;
  EXPECT_EQ(error_of_json(ring.to_json()), "");
}

// ---------------------------------------------------------------- seeds

TEST(Seed, ParseSeedTakesDecimalDigitsUpToTwoToThe64Minus1) {
  EXPECT_EQ(parse_seed("0"), 0u);
  EXPECT_EQ(parse_seed("18446744073709551615"), std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(parse_seed("0007"), 7u);
  auto error = [](std::string_view text) {
    try {
      (void)parse_seed(text, "--seed");
    } catch (const ScenarioError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(error("-1"),
            "--seed: expected a whole number in 0..18446744073709551615, got '-1' (seeds are not negative)");
  EXPECT_EQ(error("18446744073709551616"),
            "--seed: seed 18446744073709551616 is too large (seeds are 0..18446744073709551615)");
  EXPECT_EQ(error("99999999999999999999999999"),
            "--seed: seed 99999999999999999999999999 is too large (seeds are 0..18446744073709551615)");
  for (const char* bad : {"", " 1", "1 ", "+1", "0x10", "1e3", "1.0", "abc", "-", "1_000"})
    EXPECT_EQ(error(bad), std::string("--seed: expected a whole number in 0..18446744073709551615, got '") + bad + "'")
        << bad;
  EXPECT_EQ(error("\x1b[2J"), "--seed: expected a whole number in 0..18446744073709551615, got '\\x1b[2J'");
}

// Seeds used to wrap: -1 became 2^64-1; a seed of 2^63 or more could not be written at all.
TEST(Seed, ScenarioSeedsAreUnsigned64Bit) {
  EXPECT_EQ(error_of("seed=-1"),
            "scenario key 'seed': expected a whole number in 0..18446744073709551615, got -1 (seeds are not negative)");
  EXPECT_EQ(error_of("seed=18446744073709551616"),
            "scenario key 'seed': seed 18446744073709551616 is too large (seeds are 0..18446744073709551615)");
  EXPECT_EQ(error_of("seed=abc"), "scenario key 'seed': expected a whole number in 0..18446744073709551615, got 'abc'");
  EXPECT_EQ(error_of("seed=1.5"), "scenario key 'seed': expected a whole number in 0..18446744073709551615, got 1.5");
  EXPECT_EQ(error_of("seed=true"), "scenario key 'seed': expected a whole number in 0..18446744073709551615, got true");
  json j = json::object();
  for (const char* a : {"seed=9223372036854775807", "seed=\"18446744073709551615\"", "seed=18446744073709551615"}) {
    apply_override(j, a);
    EXPECT_NO_THROW((void)scenario_from_json(j)) << a;
  }
  EXPECT_EQ(scenario_from_json(j).seed, std::numeric_limits<std::uint64_t>::max());
  // In a TOML file: an integer up to 2^63-1, a string of digits for any seed.
  const json from_file = scenario_json_from_toml("seed = \"18446744073709551615\"\n", "s.toml");
  EXPECT_EQ(scenario_from_json(from_file).seed, std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(scenario_from_json(scenario_json_from_toml("seed = 42\n", "s.toml")).seed, 42u);
}

// ---------------------------------------------------------------- numbers, text

// NaN and infinities used to be reported as "value null" (JSON's spelling) or slip through.
TEST(Scenario, NonFiniteNumbersAreRejectedByName) {
  EXPECT_EQ(error_of("activation.p=nan"), "scenario key 'activation.p': expected a finite number, got nan");
  EXPECT_EQ(error_of("topology.radius=inf"), "scenario key 'topology.radius': expected a finite number, got inf");
  EXPECT_EQ(error_of("workload.hold=-inf"), "scenario key 'workload.hold': expected a finite number, got -inf");
  EXPECT_EQ(error_of("nodes=nan"), "scenario key 'nodes': expected an integer, got nan");
  const json from_file = scenario_json_from_toml("[dynamics]\nkind = \"churn\"\nbirth = +nan\n", "s.toml");
  EXPECT_EQ(error_of_json(from_file), "scenario key 'dynamics.birth': expected a finite number, got nan");
  json j = {{"activation", {{"p", std::numeric_limits<double>::quiet_NaN()}}}};
  EXPECT_EQ(error_of_json(j), "scenario key 'activation.p': expected a finite number, got nan");
}

TEST(Scenario, TomlSyntaxErrorsAreOneLineWithFileLineAndColumn) {
  auto error = [](const std::string& text) {
    try {
      (void)scenario_json_from_toml(text, "s.toml");
    } catch (const ScenarioError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(error("nodes = \n"), "s.toml:1:9: not valid TOML (key-value pair): expected value, saw '\\n'");
  const std::vector<std::string> bad_documents = {"nodes = 3\nnodes = 4\n",      "[a\n",       "x = \"unterminated\n",
                                                  std::string("x = 1\0", 6),     "x = \xff\n", "name = \"a\x01\"\n",
                                                  "x = " + std::string(300, '[')};
  for (const std::string& bad : bad_documents) {
    const std::string e = error(bad);
    EXPECT_EQ(e.rfind("s.toml:", 0), 0u) << e;
    EXPECT_CONTAINS(e, ": not valid TOML");
    EXPECT_TRUE(one_line(e)) << e;
    for (char c : e) EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20) << e;
  }
  EXPECT_EQ(error("when = 1979-05-27\n"), "s.toml:1:8: dates and times are not scenario values");
}

// Control characters in a name reach the terminal in every summary line.
TEST(Scenario, NamesArePrintableAndShort) {
  EXPECT_EQ(error_of("name=\"a\\u001b[31mred\""),
            "scenario key 'name': holds the control character \\x1b (a name is printed on terminals; use visible "
            "characters)");
  for (const char* bad : {"name=\"a\\nb\"", "name=\"a\\u007f\"", "name=\"a\\u0085\"", "name=\"evil\\u202etxt.exe\"",
                          "name=\"a\\u0000b\""})
    EXPECT_CONTAINS(error_of(bad), "holds the control character");
  EXPECT_EQ(error_of("name=\"" + std::string(max_name_length, 'x') + "\""), "");
  EXPECT_EQ(error_of("name=\"" + std::string(max_name_length + 1, 'x') + "\""),
            "scenario key 'name': is 101 characters long, at most 100");
  std::string wide;  // 100 characters of two bytes each: the limit counts characters
  for (std::size_t i = 0; i < max_name_length; ++i) wide += "\xc3\xa9";
  EXPECT_EQ(error_of("name=\"" + wide + "\""), "");
  EXPECT_EQ(error_of("name=\"Z\xc3\xbcrich \xe2\x9c\x93\""), "");
  EXPECT_EQ(error_of_json({{"name", "\xff"}}), "scenario key 'name': not valid UTF-8: \"\\xff\"");
}

// Echoed input is escaped; invalid UTF-8 used to escape as a JSON library exception.
TEST(Scenario, EchoedTextIsPrintableAndNeverALibraryError) {
  EXPECT_EQ(error_of("a\x01"
                     "b=3"),
            "scenario key 'a\\x01b': unknown key");
  EXPECT_EQ(error_of("engine=\"\\u001b[2J\""),
            "scenario key 'engine': unknown value '\\x1b[2J' (expected one of: semi-sync, async)");
  EXPECT_EQ(error_of_json({{"nodes", "\xff\xfe"}}), "scenario key 'nodes': expected an integer, got \"\\xff\\xfe\"");
  EXPECT_EQ(error_of_json({{"nodes", {"\xff"}}}), "scenario key 'nodes': expected an integer, got [\"\xef\xbf\xbd\"]");
  EXPECT_EQ(error_of_json({{"variant", "\xc0\x80"}}), "scenario key 'variant': not valid UTF-8: \"\\xc0\\x80\"");
  EXPECT_EQ(error_of("x=1\ny=2"), "--set 'x=1\\ny=2': the value is not one TOML value");
}

TEST(Text, PrintableEscapesWhatATerminalWouldObey) {
  EXPECT_EQ(printable("plain text"), "plain text");
  EXPECT_EQ(printable("a\nb\tc\rd\x1b"
                      "e\x7f"),
            "a\\nb\\tc\\rd\\x1be\\x7f");
  EXPECT_EQ(printable("\xc2\x85 \xe2\x80\xae \xe2\x81\xa6"), "\\u0085 \\u202e \\u2066");
  EXPECT_EQ(printable("caf\xc3\xa9 \xe2\x9c\x93"), "caf\xc3\xa9 \xe2\x9c\x93");
  EXPECT_EQ(printable("\xff\xc3"), "\\xff\\xc3");
  EXPECT_EQ(printable(std::string(100, 'x'), 10), "xxxxxxxxxx...");
  EXPECT_EQ(printable(std::string(10, 'x'), 10), "xxxxxxxxxx");
}

TEST(Text, ValidUtf8RejectsMalformedSequences) {
  EXPECT_TRUE(valid_utf8(""));
  EXPECT_TRUE(valid_utf8("ascii \xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80"));
  for (const char* bad : {"\x80", "\xc3", "\xc0\x80", "\xe0\x80\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80",
                          "\xf8\x88\x80\x80\x80", "\xe2\x9c"})
    EXPECT_FALSE(valid_utf8(bad)) << printable(bad);
}

}  // namespace
}  // namespace lmx::sim

namespace lmx::sim {
namespace {

/// The mean degree of a unit-disk graph built from the scenario (one round, no Lock calls).
double mean_degree(const std::string& kind, std::uint32_t nodes) {
  json j = {{"nodes", nodes}, {"rounds", 1}, {"topology", {{"kind", kind}}}, {"delta", 32}};
  j["workload"] = {{"participation", 0.0}};
  const auto summary = run(scenario_from_json(j));
  return 2.0 * summary.at("edges").get<double>() / nodes;
}

TEST(Scenario, DefaultRadiusKeepsTheMeanDegreeAtEveryNodeCount) {
  const auto at = [](std::uint32_t nodes) {
    return scenario_from_json({{"nodes", nodes}, {"topology", {{"kind", "mobility"}}}}).topology;
  };
  EXPECT_DOUBLE_EQ(at(1000).radius, 0.045);  // as written at the reference size
  EXPECT_DOUBLE_EQ(at(1000).speed, 0.004);
  EXPECT_DOUBLE_EQ(at(100000).radius, 0.0045);
  EXPECT_DOUBLE_EQ(at(100000).speed, 0.0004);
  EXPECT_DOUBLE_EQ(at(10).radius, 0.45);
  // a given radius or speed is kept; other topologies keep the written default
  const auto given =
      scenario_from_json({{"nodes", 100000}, {"topology", {{"kind", "mobility"}, {"radius", 0.01}}}}).topology;
  EXPECT_DOUBLE_EQ(given.radius, 0.01);
  EXPECT_DOUBLE_EQ(given.speed, 0.0004);
  const auto speed =
      scenario_from_json({{"nodes", 100000}, {"topology", {{"kind", "mobility"}, {"speed", 0.002}}}}).topology;
  EXPECT_DOUBLE_EQ(speed.radius, 0.0045);
  EXPECT_DOUBLE_EQ(speed.speed, 0.002);
  EXPECT_DOUBLE_EQ(scenario_from_json({{"nodes", 100000}, {"topology", {{"kind", "ring"}}}}).topology.radius, 0.045);
  // the written form replays to the same radius (a trace header holds it)
  const Scenario s = scenario_from_json({{"nodes", 4000}, {"topology", {{"kind", "mobility"}}}});
  EXPECT_DOUBLE_EQ(scenario_from_json({{"nodes", 100000}, {"topology", {{"kind", "unit-disk"}}}}).topology.speed,
                   0.004);
  EXPECT_DOUBLE_EQ(scenario_from_json(s.to_json()).topology.radius, s.topology.radius);
  // and the graphs built have about the same mean degree (boundary effects aside)
  const double small = mean_degree("unit-disk", 1000), large = mean_degree("unit-disk", 16000);
  EXPECT_NEAR(large / small, 1.0, 0.1) << small << " vs " << large;
}

// `--set` and the sweep's grid set dotted keys through one function (set_dotted_key).
TEST(Scenario, DottedKeysCreateTablesAndNameWhatIsNotATable) {
  json j = {{"topology", {{"kind", "ring"}}}};
  set_dotted_key(j, "dynamics.churn.birth", 0.5);
  EXPECT_EQ(j["dynamics"]["churn"]["birth"], 0.5);
  auto error = [&](const std::string& assignment) {
    try {
      apply_override(j, assignment);
    } catch (const ScenarioError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error("topology.kind.x=1"), "--set 'topology.kind.x=1': 'topology.kind' is not a table");
  EXPECT_EQ(error("topology..x=1"), "--set 'topology..x=1': empty key part");
  EXPECT_EQ(j["topology"]["kind"], "ring");  // unchanged by the failed assignments
}

}  // namespace
}  // namespace lmx::sim
