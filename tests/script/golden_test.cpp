// Golden scenario tests in the style of etcd-raft's datadriven package. Each testdata/*.txt file is
// a sequence of blocks
//
//   # comments and blank lines
//   <command> <args...>
//   ----
//   <expected output lines>
//   <blank line>
//
// run through lmx::script::Interpreter on one fresh interpreter per file. With `--rewrite` (or the
// environment variable LMX_REWRITE=1) the expected outputs are replaced by the actual ones in place.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "lmx/script/interpreter.hpp"

namespace fs = std::filesystem;

namespace {

bool rewrite = false;

struct Block {
  std::vector<std::string> preamble;  // comments and blank lines before the command
  std::string command;
  std::vector<std::string> expected;
  int line = 0;  // of the command, 1-based
};

struct Script {
  std::vector<Block> blocks;
  std::vector<std::string> trailer;  // comments after the last block
};

/// Parses a script; returns an error text on a malformed file.
std::string parse(std::istream& in, Script& script) {
  std::vector<std::string> pending;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line.front() == '#') {
      pending.push_back(line);
      continue;
    }
    Block b{std::move(pending), line, {}, number};
    pending.clear();
    if (!std::getline(in, line) || line != "----") return "line " + std::to_string(number + 1) + ": expected ----";
    ++number;
    while (std::getline(in, line) && !line.empty()) ++number, b.expected.push_back(line);
    ++number;
    script.blocks.push_back(std::move(b));
  }
  script.trailer = std::move(pending);
  return {};
}

void write(std::ostream& out, const Script& script) {
  for (const auto& b : script.blocks) {
    for (const auto& l : b.preamble) out << l << "\n";
    out << b.command << "\n----\n";
    for (const auto& l : b.expected) out << l << "\n";
    out << "\n";
  }
  for (const auto& l : script.trailer) out << l << "\n";
}

std::string join(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

std::vector<fs::path> script_files() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(LMX_TESTDATA_DIR))
    if (entry.path().extension() == ".txt") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

class Golden : public ::testing::TestWithParam<fs::path> {};

TEST_P(Golden, Script) {
  std::ifstream in(GetParam());
  ASSERT_TRUE(in) << "cannot read " << GetParam();
  Script script;
  const auto error = parse(in, script);
  ASSERT_TRUE(error.empty()) << GetParam().string() << ": " << error;
  in.close();

  lmx::script::Interpreter interpreter;
  bool changed = false;
  for (auto& b : script.blocks) {
    const auto actual = interpreter.execute(b.command);
    if (actual == b.expected) continue;
    if (rewrite) {
      b.expected = actual;
      changed = true;
      continue;
    }
    ADD_FAILURE_AT(GetParam().string().c_str(), b.line) << b.command << "\nexpected:\n"
                                                        << join(b.expected) << "actual:\n"
                                                        << join(actual);
  }
  if (changed) {
    std::ofstream out(GetParam());
    write(out, script);
  }
}

std::string test_name(const ::testing::TestParamInfo<fs::path>& info) {
  std::string name = info.param.stem().string();
  std::replace_if(
      name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
  return name;
}

INSTANTIATE_TEST_SUITE_P(Testdata, Golden, ::testing::ValuesIn(script_files()), test_name);

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  const char* env = std::getenv("LMX_REWRITE");
  rewrite = env != nullptr && std::strcmp(env, "1") == 0;
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--rewrite") == 0) rewrite = true;
  return RUN_ALL_TESTS();
}
