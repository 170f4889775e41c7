// A saved exploration is checked whole before it is resumed (docs/checker.md, "The checkpoint's
// format"): every file of a real save flipped, cut or deleted, a header changed, contents that do
// not fit past matching checksums, another version or another run: each is one CheckpointError
// naming what is wrong, never a crash or a verdict. Saves are written whole or not at all.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "check_support.hpp"
#include "checksum.hpp"
#include "lmx/check/checker.hpp"

namespace {
using lmx::check::CheckpointError;
using lmx::check::Instance;
using lmx::check::Limit;
using lmx::check::Options;
using lmx::check::Verdict;
using lmx::check::testing::read_text;
using lmx::check::testing::reseal_checkpoint;
using lmx::check::testing::ScratchDir;
using lmx::check::testing::sealed;
using lmx::check::testing::two_nodes;
using lmx::check::testing::unsealed;
using lmx::check::testing::write_text;
using lmx::core::Variant;
namespace fs = std::filesystem;

/// A saved exploration of `inst`, made once per test in `dir`.
void save(const Instance& inst, Options opt, const fs::path& dir) {
  opt.save_dir = dir.string();
  ASSERT_EQ(lmx::check::check(inst, opt).limit, Limit::saved);
}

/// What resuming from `dir` says: the CheckpointError's text, "accepted" if the run goes on, or
/// the text of any other exception (which the tests treat as a failure).
std::string resume(const Instance& inst, Options opt, const fs::path& dir) {
  opt.resume_dir = dir.string();
  try {
    lmx::check::verify_checkpoint(inst, opt);
  } catch (const CheckpointError& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("not a CheckpointError: ") + e.what();
  }
  return "accepted";
}

/// A copy of a saved exploration, to break one file of.
struct Copy : ScratchDir {
  Copy(const fs::path& from, const std::string& name) : ScratchDir(name) {
    fs::copy(from, path, fs::copy_options::recursive);
  }
};

void flip_bit(const fs::path& file, std::size_t byte, unsigned bit) {
  std::string bytes = read_text(file);
  bytes.at(byte) = static_cast<char>(bytes.at(byte) ^ (1u << bit));
  write_text(file, bytes);
}

// Every file of a real save, with one bit flipped (first, middle and last byte), cut short by a
// byte or to nothing, or deleted, is refused with an error that names it; the save itself resumes.
// Two saves: states as record numbers, and (no collapse) as records, without the reduction.
TEST(Checkpoint, EveryFileFlippedCutOrMissingIsOneClearError) {
  const Instance inst = two_nodes(Variant::paper, 1, 1);
  Options plain;
  plain.collapse = false, plain.symmetry = false;
  for (const Options& opt : {Options{}, plain}) {
    const ScratchDir saved("checkpoint-files");
    save(inst, opt, saved.path);
    ASSERT_EQ(resume(inst, opt, saved.path), "accepted");
    std::vector<std::string> files;
    for (const auto& entry : fs::directory_iterator(saved.path)) files.push_back(entry.path().filename().string());
    ASSERT_EQ(files.size(), 12u);  // the header and the eleven files it lists
    for (const std::string& name : files) {
      SCOPED_TRACE(name);
      const bool header = name == "checkpoint";
      const auto size = fs::file_size(saved.path / name);
      for (std::size_t byte : {std::size_t{0}, size / 2, size - 1}) {
        if (size == 0) break;
        const Copy copy(saved.path, "checkpoint-flip");
        flip_bit(copy.path / name, byte, static_cast<unsigned>(byte % 8));
        const std::string said = resume(inst, opt, copy.path);
        EXPECT_EQ(said.rfind("check: cannot resume from " + copy.path.string() + ": ", 0), 0u) << said;
        EXPECT_NE(said.find(header ? "header" : name + " is corrupt"), std::string::npos) << said;
      }
      for (std::uintmax_t cut : {size - 1, std::uintmax_t{0}}) {
        if (size == 0) break;
        const Copy copy(saved.path, "checkpoint-cut");
        fs::resize_file(copy.path / name, cut);
        const std::string said = resume(inst, opt, copy.path);
        EXPECT_EQ(said.rfind("check: cannot resume from " + copy.path.string() + ": ", 0), 0u) << said;
        EXPECT_NE(said.find(header ? "header" : name + " has " + std::to_string(cut) + " bytes"), std::string::npos)
            << said;
      }
      const Copy copy(saved.path, "checkpoint-missing");
      fs::remove(copy.path / name);
      const std::string said = resume(inst, opt, copy.path);
      EXPECT_NE(said.find(name == "checkpoint" ? "no checkpoint" : name + " is missing"), std::string::npos) << said;
    }
  }
}

// The header: a changed field is caught by its checksum; sealed again, by the counts it no longer
// fits. Another format version, a foreign file, another run and a field given twice are refused.
TEST(Checkpoint, AHeaderWithAChangedFieldIsRefused) {
  const Instance inst = two_nodes(Variant::paper, 1, 1);
  const ScratchDir saved("checkpoint-header");
  save(inst, {}, saved.path);
  const std::string header = read_text(saved.path / "checkpoint");
  const std::string body = unsealed(header);
  auto with_header = [&](const std::string& text) {
    const Copy copy(saved.path, "checkpoint-header-copy");
    write_text(copy.path / "checkpoint", text);
    return resume(inst, {}, copy.path);
  };
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string b = body;
    const auto at = b.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return at == std::string::npos ? b : b.replace(at, from.size(), to);
  };
  const auto states = body.find("\nstates ") + 8;
  const std::string count = body.substr(states, body.find('\n', states) - states);
  const std::string more = std::to_string(std::stoul(count) + 1);
  EXPECT_NE(with_header(replaced("states " + count, "states " + more) + header.substr(body.size()))
                .find("its header is corrupt"),
            std::string::npos);
  EXPECT_NE(with_header(sealed(replaced("states " + count, "states " + more))).find("need"), std::string::npos);
  EXPECT_NE(with_header(sealed(replaced("records ", "records 9"))).find("records.bin"), std::string::npos);
  EXPECT_NE(with_header(sealed(replaced("depth ", "depth 99999"))).find("depth"), std::string::npos);
  EXPECT_NE(with_header(sealed(replaced("seconds ", "seconds -"))).find("not a number of seconds"), std::string::npos);
  EXPECT_NE(with_header(sealed(body + "states 1\n")).find("names states twice"), std::string::npos);
  EXPECT_NE(with_header(sealed(body + "file other.bin 0 0000000000000000\n")).find("other.bin"), std::string::npos);
  const auto file_line = body.find("\nfile parents.bin ");
  EXPECT_NE(with_header(sealed(body.substr(0, file_line + 1) + body.substr(body.find('\n', file_line + 1) + 1)))
                .find("does not name its file parents.bin"),
            std::string::npos);
  EXPECT_NE(with_header(sealed(replaced("lmx-check-checkpoint 2", "lmx-check-checkpoint 1"))).find("format '1'"),
            std::string::npos);
  EXPECT_NE(with_header("lmx-check-checkpoint 1\nrun x\n").find("save the exploration again"), std::string::npos);
  EXPECT_NE(with_header("hello\n").find("not a checkpoint"), std::string::npos);
  EXPECT_NE(with_header("").find("not a checkpoint"), std::string::npos);
  EXPECT_NE(with_header(sealed(replaced("run paper", "run repaired"))).find("of another run"), std::string::npos);
  EXPECT_EQ(with_header(header), "accepted");
}

// A checkpoint is resumed only by the run that saved it: another instance or other options, or a
// safety-only run, are refused before any analysis.
TEST(Checkpoint, ResumingRefusesAnotherRun) {
  const Instance inst = two_nodes(Variant::paper, 1, 1);
  const ScratchDir saved("checkpoint-run");
  save(inst, {}, saved.path);
  EXPECT_NE(resume(two_nodes(Variant::repaired, 1, 1), {}, saved.path).find("of another run"), std::string::npos);
  Options plain;
  plain.collapse = false;
  EXPECT_NE(resume(inst, plain, saved.path).find("of another run"), std::string::npos);
  Options safety;
  safety.liveness = false;
  EXPECT_NE(resume(inst, safety, saved.path).find("not safety only"), std::string::npos);
  // Lock over a subset explores other transitions: a save made with it is another run's, both ways.
  Instance subsets = inst;
  subsets.lock_subsets = true;
  EXPECT_NE(resume(subsets, {}, saved.path).find("of another run"), std::string::npos);
  const ScratchDir saved_subsets("checkpoint-run-subsets");
  save(subsets, {}, saved_subsets.path);
  EXPECT_NE(resume(inst, {}, saved_subsets.path).find("of another run"), std::string::npos);
  EXPECT_EQ(resume(subsets, {}, saved_subsets.path), "accepted");
  EXPECT_EQ(resume(inst, {}, saved.path), "accepted");
}

// Past matching checksums (a file changed and the header sealed again, as a save by a faulty
// writer would be), what the files hold is checked: a state's record number past the records, a
// record's field out of range, a parent link out of order, a graph whose target is not a state, a
// target's code broken, an action's flags unknown, offsets out of order, a wide block outside the
// wide offsets. Each is refused, naming the file or the graph, and nothing is read out of range
// (the sanitizers' build runs this too).
TEST(Checkpoint, ContentsAreCheckedPastMatchingChecksums) {
  const Instance inst = two_nodes(Variant::paper, 1, 1);
  const ScratchDir saved("checkpoint-contents");
  save(inst, {}, saved.path);
  auto broken = [&](const std::string& name, const std::function<void(std::string&)>& change) {
    const Copy copy(saved.path, "checkpoint-contents-copy");
    std::string bytes = read_text(copy.path / name);
    change(bytes);
    write_text(copy.path / name, bytes);
    reseal_checkpoint(copy.path);
    return resume(inst, {}, copy.path);
  };
  auto fill = [](std::size_t at, std::size_t n, char value) {
    return [=](std::string& b) { std::memset(b.data() + at, value, std::min(n, b.size() - at)); };
  };
  // stride 7 with 2 nodes: 1 + 2 * 26 bits; all ones: record numbers past the table, moves left past the budget
  EXPECT_NE(broken("states.bin", fill(7 * 5, 7, '\xff')).find("states.bin holds a state"), std::string::npos);
  EXPECT_NE(broken("records.bin", fill(7 * 3, 7, '\xff')).find("records.bin holds a node record"), std::string::npos);
  EXPECT_NE(broken("parents.bin", fill(4 * 10, 4, '\x7f')).find("parents.bin holds a parent link out of order"),
            std::string::npos);
  EXPECT_NE(broken("parents.bin", fill(0, 4, '\0')).find("out of order"), std::string::npos);
  EXPECT_NE(broken("graph.flags.bin", fill(3, 1, '\x40')).find("flags"), std::string::npos);
  EXPECT_NE(broken("graph.code.bin", fill(0, 1, '\0')).find("code is broken"), std::string::npos);
  EXPECT_NE(broken("graph.code.bin", fill(0, 1, '\xfe')).find("its graph does not fit"), std::string::npos);
  // A target's difference made large: one byte, zigzag 126 / 2 far ahead, with its renaming bits.
  EXPECT_NE(broken("graph.code.bin", fill(0, 1, '\x7f')).find("its graph does not fit"), std::string::npos);
  EXPECT_NE(broken("graph.state_begin.narrow", fill(2 * 7, 2, '\xff')).find("out of order"), std::string::npos);
  EXPECT_NE(broken("graph.code_begin.narrow", fill(2 * 7, 2, '\xff')).find("out of order"), std::string::npos);
  EXPECT_NE(broken("graph.code_begin.blocks", fill(8, 4, '\x05')).find("do not match"), std::string::npos);
  EXPECT_EQ(broken("states.bin", [](std::string&) {}), "accepted");  // sealed again unchanged: whole
}

// A save is written whole or not at all: when a write fails (here the file-size limit, as a full
// disk would), the run stops with an error naming the file, no header is left (so the directory is
// not a checkpoint), and no temporary file either.
TEST(Checkpoint, ASaveThatCannotBeWrittenLeavesNoCheckpoint) {
  const Instance inst = two_nodes(Variant::paper, 1, 1);
  const ScratchDir dir("checkpoint-full");
  Options opt;
  opt.save_dir = dir.path.string();
  struct FileSizeLimit {  // the process's file-size limit, lowered for the save and restored
    rlimit old{};
    explicit FileSizeLimit(rlim_t bytes) {
      std::signal(SIGXFSZ, SIG_IGN);  // a write past the limit then fails with EFBIG instead
      getrlimit(RLIMIT_FSIZE, &old);
      rlimit low = old;
      low.rlim_cur = bytes;
      setrlimit(RLIMIT_FSIZE, &low);
    }
    ~FileSizeLimit() {
      setrlimit(RLIMIT_FSIZE, &old);
      std::signal(SIGXFSZ, SIG_DFL);
    }
  };
  std::string said;
  {
    const FileSizeLimit limit(30000);  // records.bin fits, states.bin (about 68 KB) does not
    try {
      (void)lmx::check::check(inst, opt);
    } catch (const std::runtime_error& e) {
      said = e.what();
    }
  }
  EXPECT_NE(said.find("cannot write " + (dir.path / "states.bin").string() + ": File too large"), std::string::npos)
      << said;
  EXPECT_FALSE(fs::exists(dir.path / "checkpoint"));
  for (const auto& entry : fs::directory_iterator(dir.path))
    EXPECT_NE(entry.path().extension(), ".part") << entry.path();
  EXPECT_NE(resume(inst, {}, dir.path).find("no checkpoint"), std::string::npos);
  // Saved again into the same directory, whole this time: it resumes, and finds what one run finds.
  const auto again = lmx::check::check(inst, opt);
  EXPECT_EQ(again.limit, Limit::saved);
  Options resumed;
  resumed.resume_dir = dir.path.string();
  EXPECT_EQ(lmx::check::check(inst, resumed).verdict, lmx::check::check(inst).verdict);
}

// The checksum: computed in pieces of any size, it is the checksum of the whole; any one flipped
// bit, and any change of length, changes it.
TEST(Checkpoint, TheChecksumSeesEveryBitAndTheLength) {
  std::string bytes(200, '\0');
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 37 + 11);
  const std::uint64_t whole = lmx::check::checkpoint_checksum(bytes.data(), bytes.size());
  for (std::size_t piece : {1u, 3u, 8u, 31u, 32u, 33u, 199u}) {
    lmx::check::detail::Checksum c;
    for (std::size_t at = 0; at < bytes.size(); at += piece)
      c.update(bytes.data() + at, std::min(piece, bytes.size() - at));
    EXPECT_EQ(c.digest(), whole) << piece;
  }
  for (std::size_t byte = 0; byte < bytes.size(); ++byte)
    for (unsigned bit = 0; bit < 8; ++bit) {
      std::string b = bytes;
      b[byte] = static_cast<char>(b[byte] ^ (1u << bit));
      ASSERT_NE(lmx::check::checkpoint_checksum(b.data(), b.size()), whole) << byte << " " << bit;
    }
  for (std::size_t n = 0; n < bytes.size(); ++n)
    ASSERT_NE(lmx::check::checkpoint_checksum(bytes.data(), n), whole) << n;
  const std::string zeros(64, '\0');
  EXPECT_NE(lmx::check::checkpoint_checksum(zeros.data(), 63), lmx::check::checkpoint_checksum(zeros.data(), 64));
}

}  // namespace
