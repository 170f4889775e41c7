// Hostile input on the command line: each bad scenario, edge list, seed or option is one clear
// `lmx: error:` line and exit code 2, never a crash, never silent nonsense. The binary is run as a
// user would run it.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

struct Result {
  int exit_code = -1;
  std::string out;  // stdout and stderr, interleaved
};

Result run_lmx(const std::string& args) {
  const std::string command = std::string("'") + LMX_BINARY + "' " + args + " 2>&1";
  Result r;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return r;
  std::array<char, 4096> buffer{};
  std::size_t got = 0;
  while ((got = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) r.out.append(buffer.data(), got);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

/// Single-quoted for the shell.
std::string quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

/// A bad-input verdict: exit code 2 and exactly one line, `lmx: error: ...`, holding `needle`, and
/// nothing a terminal would interpret (no control characters besides the final newline).
void expect_one_error_line(const Result& r, const std::string& needle) {
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_EQ(r.out.rfind("lmx: error: ", 0), 0u) << r.out;
  ASSERT_FALSE(r.out.empty());
  EXPECT_EQ(r.out.find('\n'), r.out.size() - 1) << r.out;
  EXPECT_NE(r.out.find(needle), std::string::npos) << "expected '" << needle << "' in: " << r.out;
  for (std::size_t i = 0; i + 1 < r.out.size(); ++i)
    EXPECT_GE(static_cast<unsigned char>(r.out[i]), 0x20u) << "control character at " << i << " in: " << r.out;
}

class Files : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ =
        fs::path(::testing::TempDir()) / (std::string("lmx_parsing_") + info->test_suite_name() + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string file(const std::string& name, const std::string& content) {
    const fs::path p = dir_ / name;
    std::ofstream out(p, std::ios::binary);
    out << content;
    return p.string();
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

// A small edge-list scenario: six nodes, the edge file next to it.
std::string edge_scenario(const std::string& edge_file) {
  return "nodes = 6\ndelta = 3\nrounds = 5\nengine = \"semi-sync\"\n[topology]\nkind = \"edges\"\nfile = \"" +
         edge_file + "\"\n";
}

// ---------------------------------------------------------------- edge-list files

using EdgeFile = Files;

TEST_F(EdgeFile, ALineThatIsNotAnEdgeIsAnErrorNamingFileAndLine) {
  file("g.edges", "0 1\n1 2\nfoo bar\n2 0\n");
  const auto r = run_lmx("run " + quoted(file("s.toml", edge_scenario("g.edges"))));
  expect_one_error_line(r, "g.edges:3: expected two node numbers 'u v', got \"foo bar\"");
}

TEST_F(EdgeFile, BinaryContentIsAnError) {
  file("nul.edges", std::string("0 1\n\0\0\x01\x02\n", 10));
  expect_one_error_line(run_lmx("run " + quoted(file("a.toml", edge_scenario("nul.edges")))),
                        "nul.edges:2: holds a NUL byte: not a text file");
  file("latin1.edges", "0 1\n# caf\xe9\n");
  expect_one_error_line(run_lmx("run " + quoted(file("b.toml", edge_scenario("latin1.edges")))),
                        "latin1.edges:2: not valid UTF-8: \"# caf\\xe9\"");
}

TEST_F(EdgeFile, BadEdgesNameTheirLine) {
  file("range.edges", "0 1\n1 6\n");
  expect_one_error_line(run_lmx("run " + quoted(file("a.toml", edge_scenario("range.edges")))),
                        "range.edges:2: node 6 outside (the scenario has 6 nodes, 0..5)");
  file("loop.edges", "0 1\n\n2 2\n");
  expect_one_error_line(run_lmx("run " + quoted(file("b.toml", edge_scenario("loop.edges")))),
                        "loop.edges:3: self-loop at node 2");
  file("dup.edges", "0 1\n1 2\n# again\n1 0\n");
  expect_one_error_line(run_lmx("run " + quoted(file("c.toml", edge_scenario("dup.edges")))),
                        "dup.edges:4: duplicate edge {1,0} (first on line 1)");
}

TEST_F(EdgeFile, CommentsAndBlankLinesStillWork) {
  file("g.edges", "# two triangles\n\n0 1\n1 2  # trailing\n2 0\n3 4\n4 5\n5 3\n");
  const auto r = run_lmx("run " + quoted(file("s.toml", edge_scenario("g.edges"))));
  EXPECT_EQ(r.exit_code, 0) << r.out;
}

TEST_F(EdgeFile, DirectoriesAreNotEmptyFiles) {
  fs::create_directories(dir_ / "d.edges");
  expect_one_error_line(run_lmx("run " + quoted(file("s.toml", edge_scenario("d.edges")))),
                        "edge-list file '" + path("d.edges") + "' is a directory");
  expect_one_error_line(run_lmx("run " + quoted(dir_.string())),
                        "scenario file '" + dir_.string() + "' is a directory");
}

TEST(Topology, InlineEdgesForAGeneratedTopologyAreAnError) {
  expect_one_error_line(run_lmx("run --set topology.kind=ring --set nodes=4 --set 'topology.edges=[[0, 1]]'"),
                        "scenario key 'topology.edges': topology kind 'ring' does not use it (only edges does)");
  expect_one_error_line(run_lmx("run --set topology.kind=grid --set topology.file=g.edges"),
                        "scenario key 'topology.file': topology kind 'grid' does not use it");
  expect_one_error_line(run_lmx("run --set topology.kind=ring --set topology.speed=0.1"),
                        "scenario key 'topology.speed': topology kind 'ring' does not use it (only mobility does)");
}

// Activation keys the async engine would ignore, p for an activation that is not random, and
// workload keys for the manual workload were accepted and silently ignored.
TEST(Scenario, KeysTheChosenKindIgnoresAreErrors) {
  expect_one_error_line(run_lmx("run --set activation.p=0.3"),
                        "scenario key 'activation.p': the async engine does not use it");
  expect_one_error_line(run_lmx("run --set activation.kind=synchronous"),
                        "scenario key 'activation.kind': the async engine does not use it");
  expect_one_error_line(run_lmx("run --set engine=semi-sync --set activation.kind=sequential --set activation.p=0.3"),
                        "scenario key 'activation.p': activation kind 'sequential' does not use it (only random does)");
  for (const char* key : {"participation=0.1", "idle=3", "hold=7", "locks=2"})
    expect_one_error_line(run_lmx(std::string("run --set workload.kind=manual --set workload.") + key),
                          "workload kind 'manual' does not use it (only auto does)");
  EXPECT_EQ(run_lmx("run --set engine=semi-sync --set activation.p=0.3 --set nodes=20 --set rounds=5").exit_code, 0);
}

// ---------------------------------------------------------------- seeds

TEST(Seed, SetSeedRejectsWhatWouldWrap) {
  expect_one_error_line(run_lmx("run --set seed=-1"),
                        "scenario key 'seed': expected a whole number in 0..18446744073709551615, got -1");
  expect_one_error_line(run_lmx("run --set seed=18446744073709551616"),
                        "scenario key 'seed': seed 18446744073709551616 is too large");
  expect_one_error_line(run_lmx("run --set seed=abc"),
                        "scenario key 'seed': expected a whole number in 0..18446744073709551615, got 'abc'");
  const auto r = run_lmx("run --set seed=18446744073709551615 --set nodes=3 --set rounds=2");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("seed 18446744073709551615"), std::string::npos) << r.out;
}

TEST_F(Files, TomlSeedsAboveTwoToThe63AreStrings) {
  const auto r = run_lmx("run " + quoted(file("s.toml", "seed = \"18446744073709551615\"\nnodes = 3\nrounds = 2\n")));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("seed 18446744073709551615"), std::string::npos) << r.out;
}

TEST(Seed, BenchSeedRejectsWhatWouldWrapAndSelectsTheRun) {
  expect_one_error_line(
      run_lmx("bench --nodes 20 --rounds 2 --seed -1"),
      "--seed: expected a whole number in 0..18446744073709551615, got '-1' (seeds are not negative)");
  expect_one_error_line(run_lmx("bench --nodes 20 --rounds 2 --seed 18446744073709551616"),
                        "--seed: seed 18446744073709551616 is too large");
  expect_one_error_line(run_lmx("bench --nodes 20 --rounds 2 --seed 1x"), "--seed: expected a whole number");
  auto hash = [](const char* seed) {
    // With the smallest lock workload: the hash compared is the main run's, and the default
    // workload took most of the time.
    const auto r =
        run_lmx(std::string("bench --nodes 200 --rounds 4 --lock-nodes 2 --lock-rounds 1 --json --seed ") + seed);
    EXPECT_EQ(r.exit_code, 0) << r.out;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["seed"].get<std::uint64_t>(), std::stoull(seed));
    return j["trace_hash"].get<std::string>();
  };
  EXPECT_EQ(hash("7"), hash("7"));
  EXPECT_NE(hash("7"), hash("18446744073709551615"));
}

// ---------------------------------------------------------------- lmx bench options

// Each case is small in the options it does not test, so that a regression runs quickly.
TEST(Bench, EveryOptionIsRangeChecked) {
  struct Case {
    const char* args;
    const char* error;
  };
  for (const Case& c :
       {Case{"--nodes 20 --rounds 2 --p 0", "--p must be a number in 0.000001..1, got '0'"},
        Case{"--nodes 20 --rounds 2 --p nan", "--p must be a number in 0.000001..1, got 'nan'"},
        Case{"--nodes 20 --rounds 2 --p inf", "--p must be a number in 0.000001..1, got 'inf'"},
        Case{"--nodes 20 --rounds 2 --p 1.5", "--p must be a number in 0.000001..1, got '1.5'"},
        Case{"--nodes 20 --rounds 2 --p -0.5", "--p must be a number in 0.000001..1, got '-0.5'"},
        Case{"--nodes 20 --rounds 2 --p 0.5x", "--p must be a number in 0.000001..1, got '0.5x'"},
        Case{"--nodes 0 --rounds 2", "--nodes must be a whole number in 1..100000000, got '0'"},
        Case{"--nodes -5 --rounds 2", "--nodes must be a whole number in 1..100000000, got '-5'"},
        Case{"--nodes 1e3 --rounds 2", "--nodes must be a whole number in 1..100000000, got '1e3'"},
        Case{"--nodes 4294967296 --rounds 2", "--nodes must be a whole number in 1..100000000, got '4294967296'"},
        Case{"--nodes 20 --rounds 0", "--rounds must be a whole number in 1..4000000, got '0'"},
        Case{"--nodes 20 --rounds -1", "--rounds must be a whole number in 1..4000000, got '-1'"},
        Case{"--nodes 20 --rounds 4000001", "--rounds must be a whole number in 1..4000000, got '4000001'"}})
    expect_one_error_line(run_lmx(std::string("bench ") + c.args), c.error);
  const auto ok = run_lmx("bench --nodes 50 --rounds 2 --p 1 --lock-nodes 2 --lock-rounds 1 --json");
  EXPECT_EQ(ok.exit_code, 0) << ok.out;
}

// ---------------------------------------------------------------- numbers and text

TEST_F(Files, NonFiniteNumbersAreNamedNotNull) {
  expect_one_error_line(run_lmx("run --set activation.p=nan"),
                        "scenario key 'activation.p': expected a finite number, got nan");
  expect_one_error_line(run_lmx("run " + quoted(file("s.toml", "[topology]\nradius = -inf\n"))),
                        "scenario key 'topology.radius': expected a finite number, got -inf");
  const auto r = run_lmx("run --set workload.idle=inf");
  EXPECT_EQ(r.out.find("null"), std::string::npos) << r.out;
}

TEST_F(Files, TomlErrorsAreOneLineWithFileLineAndColumn) {
  const std::string bad = file("bad.toml", "nodes = 5\nrounds = \n");
  expect_one_error_line(run_lmx("run " + quoted(bad)),
                        bad + ":2:10: not valid TOML (key-value pair): expected value, saw '\\n'");
  const std::string binary = file("binary.toml", std::string("\x7f"
                                                             "ELF\x02\x01\x01\0\0\0",
                                                             10));
  expect_one_error_line(run_lmx("run " + quoted(binary)), binary + ":1:1: not valid TOML");
  const std::string date = file("date.toml", "seed = 2024-01-01\n");
  expect_one_error_line(run_lmx("run " + quoted(date)), date + ":1:8: dates and times are not scenario values");
}

TEST_F(Files, ControlCharactersInANameAreRejectedNotPrinted) {
  expect_one_error_line(run_lmx("run --set " + quoted("name=\x1b[2J\x1b[31mred")),
                        "scenario key 'name': holds the control character \\x1b");
  expect_one_error_line(run_lmx("run " + quoted(file("s.toml", "name = \"a\\u0007b\"\n"))),
                        "scenario key 'name': holds the control character \\x07");
  expect_one_error_line(run_lmx("run --set name=" + std::string(101, 'n')),
                        "scenario key 'name': is 101 characters long, at most 100");
  // Echoed keys and values are escaped too.
  expect_one_error_line(run_lmx("run --set " + quoted("col\x1bour=3")), "scenario key 'col\\x1bour': unknown key");
  expect_one_error_line(run_lmx("run --set " + quoted("engine=\x1b[5m")), "unknown value '\\x1b[5m'");
}

// ---------------------------------------------------------------- lmx view

/// A socket listening on 127.0.0.1 with SO_REUSEPORT, as cpp-httplib's default options make it
/// (and as a first `lmx view` made it): a server with the same options could share its port.
struct SharingListener {
  int fd = -1;
  int port = 0;
  SharingListener() {
    fd = ::socket(AF_INET, SOCK_STREAM, 0);
    int yes = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &yes, sizeof(yes));
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0 || ::listen(fd, 4) != 0) return;
    socklen_t length = sizeof(a);
    getsockname(fd, reinterpret_cast<sockaddr*>(&a), &length);
    port = ntohs(a.sin_port);
  }
  void close() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
  ~SharingListener() { close(); }
};

/// Fetches a path from 127.0.0.1:port (what a browser would do), ignoring the answer.
void fetch(int port, const std::string& path) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0) {
    const std::string request = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    if (::write(fd, request.data(), request.size()) == static_cast<ssize_t>(request.size())) {
      std::array<char, 4096> buffer{};
      while (::read(fd, buffer.data(), buffer.size()) > 0) {
      }
    }
  }
  ::close(fd);
}

// check --replay on what is not a checker counterexample is bad input, exit 2, not the verdict
// "fail" (exit 1): a directory, an empty file, and a simulator trace (lmx replay's).
TEST_F(Files, CheckReplayOfAFileThatIsNotACounterexampleIsAnInputError) {
  file("empty.jsonl", "");
  const std::string run_trace = path("run.jsonl");
  ASSERT_EQ(run_lmx("run --set nodes=4 --set rounds=3 --trace " + quoted(run_trace)).exit_code, 0);
  for (const std::string& input : {dir_.string(), path("empty.jsonl"), run_trace}) {
    const auto r = run_lmx("check --replay " + quoted(input));
    EXPECT_EQ(r.exit_code, 2) << input << ": " << r.out;
    EXPECT_NE(r.out.find("lmx: error: "), std::string::npos) << input << ": " << r.out;
  }
}

// A file that is not a trace is refused before anything is served (it was served, and the page
// failed to load it), as lmx replay and lmx report refuse it.
TEST_F(Files, ViewRefusesAFileThatIsNotATrace) {
  file("empty.jsonl", "");
  file("scenario.toml", "nodes = 10\n");
  const char binary[] = "\x01\x00\xff\xfe garbage";
  file("binary.bin", std::string(binary, sizeof binary - 1));
  for (const char* name : {"empty.jsonl", "scenario.toml", "binary.bin"}) {
    const auto r = run_lmx("view --once --port 0 " + quoted(path(name)));
    if (r.out.find("without the web pages") != std::string::npos) GTEST_SKIP() << "lmx was built without web/dist";
    EXPECT_EQ(r.exit_code, 2) << name << ": " << r.out;
    EXPECT_NE(r.out.find("line 1"), std::string::npos) << name << ": " << r.out;
  }
}

// cpp-httplib binds with SO_REUSEPORT, so a second `lmx view` on a port in use bound too and the
// two servers shared the connections. Now the second one fails and says why.
TEST_F(Files, ViewOnAPortInUseFails) {
  const std::string trace = path("t.jsonl");
  const auto made = run_lmx("run --set nodes=4 --set rounds=3 --trace " + quoted(trace));
  ASSERT_EQ(made.exit_code, 0) << made.out;
  SharingListener other;
  ASSERT_GT(other.port, 0);
  const std::string command = std::string("'") + LMX_BINARY + "' view --once --port " + std::to_string(other.port) +
                              " " + quoted(trace) + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::array<char, 4096> line{};
  const std::string first = std::fgets(line.data(), static_cast<int>(line.size()), pipe) ? line.data() : "";
  if (first.find("without the web pages") != std::string::npos) {
    pclose(pipe);
    GTEST_SKIP() << "lmx was built without web/dist";
  }
  if (first.rfind("lmx view: serving", 0) == 0) {
    // The regression: it shares the port. Stop it (it serves the trace once) before failing.
    other.close();
    fetch(other.port, "/trace/t.jsonl");
  }
  const int status = pclose(pipe);
  EXPECT_EQ(first, "lmx: error: port " + std::to_string(other.port) +
                       " is in use: another server listens on 127.0.0.1:" + std::to_string(other.port) +
                       " (choose another --port, or --port 0 for any free port)\n");
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 2);
}

}  // namespace
