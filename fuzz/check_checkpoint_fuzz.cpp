// Fuzz target: the checks `lmx check --resume` makes of a saved exploration before any analysis
// (lmx::check::verify_checkpoint; docs/checker.md, "The checkpoint's format"). Whatever the files
// hold, the checks must refuse them with a CheckpointError or accept them, never crash, read out
// of range or leak; any other exception traps.
//
// Input framing: byte 0 chooses the run (bit 0: seal the header; bit 1: the two-node instance
// instead of the one-node one; bit 2: without symmetry reduction and collapse), then records of
// [file index: 1 byte][length: 4 bytes, little-endian][bytes], the last one cut at the end of the
// input. The file index, modulo 13, names the header `checkpoint` (0), one of the eleven data files
// (1..11) or the record of the analysis (12). Sealing rewrites the header as a save would have
// written it for the files given: each `file` line's size and checksum, then the header's own
// checksum, so that the checks of the files' contents are reached past the checksums. The seed
// corpus (fuzz/corpus/check_checkpoint) holds real saves of both instances in this framing.
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "lmx/check/checker.hpp"

namespace {
const std::array<const char*, 13> names = {"checkpoint",
                                           "records.bin",
                                           "states.bin",
                                           "parents.bin",
                                           "graph.state_begin.blocks",
                                           "graph.state_begin.narrow",
                                           "graph.state_begin.wide",
                                           "graph.flags.bin",
                                           "graph.code.bin",
                                           "graph.code_begin.blocks",
                                           "graph.code_begin.narrow",
                                           "graph.code_begin.wide",
                                           "analysis"};

/// This process's scratch directory, emptied for each input.
const std::filesystem::path& scratch() {
  static const std::filesystem::path dir = [] {
    char name[] = "/tmp/lmx-fuzz-checkpoint-XXXXXX";
    if (mkdtemp(name) == nullptr) std::abort();
    return std::filesystem::path(name);
  }();
  return dir;
}

std::string hex16(std::uint64_t v) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(v));
  return text;
}

/// The header, as a save writes it for these files: every line kept but the checksum, each file
/// line's size and checksum those of the file given, the checksum of the rest last.
std::string sealed(const std::string& header, const std::map<std::string, std::string>& files) {
  std::istringstream in(header);
  std::string body;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("checksum ", 0) == 0) continue;
    if (line.rfind("file ", 0) == 0) {
      const std::string name = line.substr(5, line.find(' ', 5) - 5);
      if (const auto it = files.find(name); it != files.end())
        line = "file " + name + " " + std::to_string(it->second.size()) + " " +
               hex16(lmx::check::checkpoint_checksum(it->second.data(), it->second.size()));
    }
    body += line + "\n";
  }
  return body + "checksum " + hex16(lmx::check::checkpoint_checksum(body.data(), body.size())) + "\n";
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t flags = data[0];
  std::map<std::string, std::string> files;
  for (std::size_t at = 1; at + 5 <= size;) {
    const char* name = names[data[at] % names.size()];
    std::uint32_t length = 0;
    for (unsigned i = 0; i < 4; ++i) length |= std::uint32_t{data[at + 1 + i]} << (8 * i);
    at += 5;
    const std::size_t n = std::min<std::size_t>(length, size - at);
    files[name].assign(reinterpret_cast<const char*>(data + at), n);
    at += n;
  }
  if ((flags & 1u) != 0 && files.count("checkpoint") != 0) files["checkpoint"] = sealed(files["checkpoint"], files);

  const std::filesystem::path& dir = scratch();
  for (const auto& entry : std::filesystem::directory_iterator(dir)) std::filesystem::remove(entry.path());
  for (const auto& [name, bytes] : files) {
    std::ofstream out(dir / name, std::ios::binary);
    out << bytes;
    if (!out.flush()) std::abort();
  }

  lmx::check::Instance inst;  // the seed corpus's instances
  inst.variant = lmx::core::Variant::paper;
  inst.nodes = (flags & 2u) != 0 ? 2 : 1;
  inst.edges = (flags & 2u) != 0 ? std::vector<std::pair<unsigned, unsigned>>{{0, 1}}
                                 : std::vector<std::pair<unsigned, unsigned>>{};
  inst.delta = 1;
  inst.k = 2;
  inst.locks = 1;
  inst.max_changes = (flags & 2u) != 0 ? 0 : 1;
  lmx::check::Options opt;
  opt.symmetry = opt.collapse = (flags & 4u) == 0;
  opt.resume_dir = dir.string();
  try {
    lmx::check::verify_checkpoint(inst, opt);
  } catch (const lmx::check::CheckpointError&) {
    // refused: what every broken save must get
  }
  return 0;
}
