// `lmx check` as a user runs it, on hostile input: a corrupt save to resume, a place it cannot
// write to, a counterexample it cannot write, output that cannot be written, malformed --edges and
// numbers out of range. Each is one line "lmx: error: ..." and a non-zero exit (2), never a crash,
// never a verdict from a broken save; a counterexample that cannot be written does not hide the
// verdict.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "check_support.hpp"

namespace {
using lmx::check::testing::read_text;
using lmx::check::testing::ScratchDir;
using lmx::check::testing::write_text;
namespace fs = std::filesystem;

struct Outcome {
  int exit_code = -1;  ///< -1: killed by a signal
  std::string out;     ///< standard output and error, interleaved
};

/// Runs `lmx ARGS` through the shell (`before` runs first in the same shell: limits, traps).
Outcome lmx(const std::string& args, const std::string& before = "") {
  const std::string command = "bash -c '" + before + " exec \"" LMX_BINARY "\" " + args + "' 2>&1";
  Outcome r;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return r;
  std::array<char, 4096> buffer{};
  while (std::fgets(buffer.data(), static_cast<int>(buffer.size()), pipe) != nullptr) r.out += buffer.data();
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

unsigned error_lines(const std::string& out) {
  unsigned n = 0;
  for (std::size_t at = 0; (at = out.find("lmx: error: ", at)) != std::string::npos; ++at) ++n;
  return n;
}

const std::string instance = "check --variant repaired --nodes 2 --edges 0-1 --delta 1 --k 2 --locks 1 --max-changes 1";

// A bit flipped in any data file of a real save, in three places each: resuming says which file
// is corrupt, in one line, exit 2. Without the checks this crashed (a segmentation fault from a
// flipped state) or gave a verdict for the broken exploration.
TEST(CheckCommand, ResumingACorruptSaveIsOneErrorNeverACrashOrAVerdict) {
  const ScratchDir saved("cli-save");
  ASSERT_EQ(lmx(instance + " --save " + saved.path.string()).exit_code, 3);
  ASSERT_EQ(lmx(instance + " --resume " + saved.path.string()).exit_code, 0);  // whole, it passes
  fs::remove(saved.path / "analysis");
  for (const char* name : {"states.bin", "records.bin", "parents.bin", "graph.code.bin", "graph.flags.bin",
                           "graph.state_begin.narrow", "graph.code_begin.narrow"}) {
    const auto size = fs::file_size(saved.path / name);
    for (const double where : {0.1, 0.5, 0.9}) {
      const ScratchDir copy("cli-corrupt");
      fs::copy(saved.path, copy.path, fs::copy_options::recursive);
      std::string bytes = read_text(copy.path / name);
      const auto at = static_cast<std::size_t>(static_cast<double>(size) * where);
      bytes[at] = static_cast<char>(bytes[at] ^ 0x10);
      write_text(copy.path / name, bytes);
      const Outcome r = lmx(instance + " --resume " + copy.path.string());
      EXPECT_EQ(r.exit_code, 2) << name << " @" << at << ": " << r.out;
      EXPECT_EQ(error_lines(r.out), 1u) << r.out;
      EXPECT_NE(r.out.find(std::string(name) + " is corrupt"), std::string::npos) << r.out;
      EXPECT_EQ(r.out.find("verdict"), std::string::npos) << r.out;
    }
  }
}

// --write into a place that cannot be written is refused before exploring (one line, exit 2), not
// after a run whose verdict is then lost.
TEST(CheckCommand, WriteIntoAnUnwritablePlaceIsRefusedBeforeExploring) {
  for (const char* place : {"/proc/self", "/proc/self/lmx-cx"}) {
    const Outcome r = lmx(instance + " --write " + place);
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_EQ(error_lines(r.out), 1u) << r.out;
    EXPECT_NE(r.out.find("--write: cannot"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("verdict"), std::string::npos) << r.out;
  }
  const Outcome save = lmx(instance + " --save /proc/self");
  EXPECT_EQ(save.exit_code, 2) << save.out;
  EXPECT_NE(save.out.find("--save: cannot write into /proc/self"), std::string::npos) << save.out;
}

// A counterexample that cannot be written after the run (here past the file-size limit, as on a
// full disk): the verdict and the violations are printed all the same, then one error line naming
// the file, exit 2; no partial trace is left.
TEST(CheckCommand, ACounterexampleThatCannotBeWrittenStillPrintsTheVerdict) {
  const ScratchDir dir("cli-write");
  const std::string paper = "check --variant paper --nodes 2 --edges 0-1 --delta 1 --k 2 --locks 2 --max-changes 1";
  const Outcome r = lmx(paper + " --write " + dir.path.string(), "trap \"\" XFSZ; ulimit -f 4;");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("verdict: fail"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("violation 1: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("lmx: error: --write: cannot write " + dir.path.string() + "/1-P7.jsonl: File too large"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(error_lines(r.out), 1u) << r.out;
  EXPECT_TRUE(fs::is_empty(dir.path));
  const Outcome json = lmx(paper + " --json --write " + dir.path.string(), "trap \"\" XFSZ; ulimit -f 4;");
  EXPECT_EQ(json.exit_code, 2) << json.out;
  EXPECT_NE(json.out.find("\"verdict\":\"fail\""), std::string::npos) << json.out;
}

// --lock-subsets (a Lock may request any subset of its ports) is in the help, names itself in the
// instance, and its counterexamples, whose call lines name the ports requested, replay with
// `lmx replay` and `lmx check --replay`.
TEST(CheckCommand, LockOverASubsetIsAnOptionWhoseCounterexamplesReplay) {
  const Outcome help = lmx("check --help");
  EXPECT_NE(help.out.find("--lock-subsets"), std::string::npos) << help.out;
  const ScratchDir dir("cli-subsets");
  const std::string paper =
      "check --variant paper --nodes 2 --edges 0-1 --delta 2 --k 2 --locks 1 --max-changes 1 --lock-subsets";
  const Outcome r = lmx(paper + " --write " + dir.path.string());
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("instance: paper nodes=2 edges=0-1 delta=2 k=2 locks=1 changes=1 lock-subsets"),
            std::string::npos)
      << r.out;
  unsigned traces = 0;
  for (const auto& entry : fs::directory_iterator(dir.path)) {
    ++traces;
    EXPECT_NE(read_text(entry.path()).find("\"requested\":["), std::string::npos) << entry.path();
    const Outcome replay = lmx("replay " + entry.path().string());
    EXPECT_EQ(replay.exit_code, 0) << replay.out;
    EXPECT_NE(replay.out.find("replay ok"), std::string::npos) << replay.out;
    EXPECT_EQ(lmx("check --replay " + entry.path().string()).exit_code, 0);
  }
  EXPECT_GE(traces, 4u);  // E1 and E2, each as deadlock and P7
  const Outcome repaired = lmx(instance + " --lock-subsets --json");
  EXPECT_EQ(repaired.exit_code, 0) << repaired.out;
  EXPECT_NE(repaired.out.find("changes=1 lock-subsets\""), std::string::npos) << repaired.out;
}

// A save that cannot be written (the same limit) is an error naming the file, exit 2, and leaves
// no checkpoint that looks valid.
TEST(CheckCommand, ASaveThatCannotBeWrittenIsAnError) {
  const ScratchDir dir("cli-save-full");
  const Outcome r = lmx(instance + " --save " + dir.path.string(), "trap \"\" XFSZ; ulimit -f 16;");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("lmx: error: check: cannot write " + dir.path.string() + "/"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(dir.path / "checkpoint"));
  const Outcome resumed = lmx(instance + " --resume " + dir.path.string());
  EXPECT_EQ(resumed.exit_code, 2) << resumed.out;
  EXPECT_NE(resumed.out.find("no saved exploration"), std::string::npos) << resumed.out;
}

// Results that cannot be written to standard output are an error, not a silent success.
TEST(CheckCommand, ResultsThatCannotBeWrittenAreAnError) {
  for (const char* json : {"", " --json"}) {
    const Outcome r = lmx(instance + json + " >/dev/full");
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_NE(r.out.find("lmx: error: cannot write the results to standard output"), std::string::npos) << r.out;
  }
}

// --edges is parsed strictly: each item exactly U-V, digits only, two distinct nodes of the
// instance, no edge twice, no node past Delta; the error names the item. (Before, "0-1-2" was
// read as 0-1, "0-1,,1-2" as two edges, " 1-2" and "+1-2" as 1-2.)
TEST(CheckCommand, EdgesAreParsedStrictly) {
  const std::string three = "check --nodes 3 --delta 2 --safety-only --max-states 1000 --edges ";
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"0-1-2", "item '0-1-2' is not of the form U-V"},
      {"0-1,,1-2", "item 2 is empty"},
      {"0-1,", "item 2 is empty"},
      {",0-1", "item 1 is empty"},
      {R"~("0-1,$(printf "1-2\nx")")~", R"~(item '1-2\x0ax' is not of the form U-V)~"},  // quoted on one line
      {"\" 0-1\"", "item ' 0-1' is not of the form U-V"},
      {"+0-1", "item '+0-1' is not of the form U-V"},
      {"0--1", "item '0--1' is not of the form U-V"},
      {"0-x", "item '0-x' is not of the form U-V"},
      {"01", "item '01' is not of the form U-V"},
      {"0-99999999999", "item '0-99999999999' is not of the form U-V"},
      {"2-2", "item '2-2' joins node 2 to itself"},
      {"0-3", "item '0-3' names node 3, but the nodes are 0..2"},
      {"0-1,1-0", "item '1-0' repeats the edge 0-1"},
      {"0-1,0-2,1-2,0-1", "item '0-1' repeats the edge 0-1"},
  };
  for (const auto& [edges, said] : bad) {
    const Outcome r = lmx(three + edges);
    EXPECT_EQ(r.exit_code, 2) << edges << ": " << r.out;
    EXPECT_EQ(error_lines(r.out), 1u) << r.out;
    EXPECT_NE(r.out.find("lmx: error: --edges: " + said), std::string::npos) << edges << ": " << r.out;
  }
  const Outcome degree = lmx("check --nodes 3 --delta 1 --safety-only --edges 0-1,0-2");
  EXPECT_EQ(degree.exit_code, 2) << degree.out;
  EXPECT_NE(degree.out.find("item '0-2' gives node 0 2 neighbours, more than --delta 1"), std::string::npos)
      << degree.out;
  for (const char* good : {"0-1,1-2", "0-1,1-2,0-2", "\"\"", "00-01"}) {
    const Outcome r = lmx(three + good);
    EXPECT_EQ(r.exit_code, 3) << good << ": " << r.out;  // explored up to --max-states: no error
    EXPECT_NE(r.out.find("verdict: incomplete (stopped by --max-states)"), std::string::npos) << r.out;
  }
}

// Every numeric option of lmx check is a whole number (or seconds) in its range, or one line
// naming the option, the range and the value given, exit 2.
TEST(CheckCommand, NumericOptionsAreRangeChecked) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"--nodes 0", "--nodes must be a whole number from 1 to 4, not '0'"},
      {"--nodes 5", "--nodes must be a whole number from 1 to 4, not '5'"},
      {"--nodes -1", "--nodes must be a whole number from 1 to 4, not '-1'"},
      {"--nodes 2x", "--nodes must be a whole number from 1 to 4, not '2x'"},
      {R"~(--nodes "$(printf "2\nx")")~", R"~(--nodes must be a whole number from 1 to 4, not '2\x0ax')~"},
      {"--nodes 99999999999999999999", "--nodes must be a whole number from 1 to 4"},
      {"--delta 0", "--delta must be a whole number from 1 to 3, not '0'"},
      {"--delta 4", "--delta must be a whole number from 1 to 3, not '4'"},
      {"--k 1", "--k must be a whole number from 2 to 32, not '1'"},
      {"--k 33", "--k must be a whole number from 2 to 32, not '33'"},
      {"--locks 16", "--locks must be 1..15 or unbounded, not '16'"},
      {"--max-changes 16", "--max-changes must be a whole number from 0 to 15, not '16'"},
      {"--max-changes -1", "--max-changes must be a whole number from 0 to 15, not '-1'"},
      {"--max-states 0", "--max-states must be a whole number from 1 to 4000000000, not '0'"},
      {"--max-states 4000000001", "--max-states must be a whole number from 1 to 4000000000"},
      {"--max-states 1e6", "--max-states must be a whole number from 1 to 4000000000, not '1e6'"},
      {"--max-seconds -1", "--max-seconds must be 0 (no limit) or more seconds, not '-1'"},
      {"--max-seconds inf", "--max-seconds must be 0 (no limit) or more seconds, not 'inf'"},
      {"--max-seconds nan", "--max-seconds must be 0 (no limit) or more seconds, not 'nan'"},
      {"--max-seconds 1e999", "--max-seconds must be 0 (no limit) or more seconds, not '1e999'"},
      {"--progress-every x", "--progress-every must be 0 (off) or more seconds, not 'x'"},
  };
  for (const auto& [option, said] : bad) {
    const Outcome r = lmx("check --edges 0-1 " + option);
    EXPECT_EQ(r.exit_code, 2) << option << ": " << r.out;
    EXPECT_EQ(error_lines(r.out), 1u) << r.out;
    EXPECT_NE(r.out.find("lmx: error: " + said), std::string::npos) << option << ": " << r.out;
  }
  const Outcome fine = lmx(instance + " --max-states 4000000000 --max-seconds 0.5e3 --progress-every 0");
  EXPECT_EQ(fine.exit_code, 0) << fine.out;
}

}  // namespace
