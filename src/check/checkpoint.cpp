// Saving a finished exploration and reading it back (docs/checker.md, "A run in two sittings" and
// "The checkpoint's format"). What is read back is checked whole before any of it is used: the
// header (format version, checksum, fields, run), then each file (present, its size, its
// checksum), then what the files hold (counts, node records, states, parent links, the graph).
#include "checkpoint.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <stdexcept>

#include "checksum.hpp"

namespace lmx::check::detail {

namespace {
constexpr const char* format_line = "lmx-check-checkpoint 2";
constexpr const char* format_prefix = "lmx-check-checkpoint ";

/// The files of a checkpoint, in the order they are written (the header, `checkpoint`, last).
const std::vector<std::string>& checkpoint_files() {
  static const std::vector<std::string> names = {"records.bin",
                                                 "states.bin",
                                                 "parents.bin",
                                                 "graph.state_begin.blocks",
                                                 "graph.state_begin.narrow",
                                                 "graph.state_begin.wide",
                                                 "graph.flags.bin",
                                                 "graph.code.bin",
                                                 "graph.code_begin.blocks",
                                                 "graph.code_begin.narrow",
                                                 "graph.code_begin.wide"};
  return names;
}

/// The header as read: its fields, and per file its size and checksum.
struct Header {
  std::string run;
  std::uint64_t states = 0, transitions = 0, depth = 0, records = 0;
  double explore_cpu_seconds = 0, seconds = 0;
  std::map<std::string, FileSet::Entry> files;
};

/// Reads and checks the header of the checkpoint in `dir`; every problem is one CheckpointError.
Header read_header(const std::string& dir) {
  const std::string path = dir + "/checkpoint";
  auto fail = [&](const std::string& why) -> CheckpointError {
    return CheckpointError("check: cannot resume from " + dir + ": " + why);
  };
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) throw fail("no checkpoint (no file 'checkpoint')");
  std::string text;
  char chunk[4096];
  for (std::size_t got; (got = std::fread(chunk, 1, sizeof chunk, file)) > 0 && text.size() <= (1u << 20);)
    text.append(chunk, got);
  const bool read_error = std::ferror(file) != 0;
  std::fclose(file);
  if (read_error) throw fail("cannot read its file 'checkpoint'");
  if (text.rfind(format_prefix, 0) != 0) throw fail("its file 'checkpoint' is not a checkpoint's header");
  const std::string first = text.substr(0, text.find('\n'));
  if (first != format_line)
    throw fail("its header says checkpoint format '" + first.substr(std::string(format_prefix).size()) +
               "', and this lmx reads format 2 only: save the exploration again");
  if (text.size() > (1u << 20) || text.back() != '\n') throw fail("its header is cut short or corrupt");
  // The last line is the checksum of the bytes before it.
  const auto last = text.rfind('\n', text.size() - 2);
  const std::string sum_line = text.substr(last + 1, text.size() - last - 2);
  if (sum_line != "checksum " + hex16(checkpoint_checksum(text.data(), last + 1)))
    throw fail("its header is corrupt (its checksum does not match its contents)");
  Header h;
  std::map<std::string, std::string> fields;
  for (std::size_t at = first.size() + 1; at <= last;) {
    const std::size_t end = text.find('\n', at);
    const std::string line = text.substr(at, end - at);
    at = end + 1;
    const auto space = line.find(' ');
    if (space == std::string::npos) throw fail("a malformed line in its header: " + line);
    const std::string key = line.substr(0, space), value = line.substr(space + 1);
    if (key == "file") {
      // file NAME BYTES CHECKSUM
      const auto a = value.find(' '), b = value.rfind(' ');
      FileSet::Entry e;
      e.name = value.substr(0, a);
      const std::string bytes = a == b ? "" : value.substr(a + 1, b - a - 1), sum = value.substr(b + 1);
      const auto got = std::from_chars(bytes.data(), bytes.data() + bytes.size(), e.bytes);
      const auto got_sum = std::from_chars(sum.data(), sum.data() + sum.size(), e.checksum, 16);
      if (a == std::string::npos || a == b || got.ec != std::errc{} || got.ptr != bytes.data() + bytes.size() ||
          bytes.empty() || bytes[0] == '+' || sum.size() != 16 || got_sum.ec != std::errc{} ||
          got_sum.ptr != sum.data() + sum.size() || !h.files.emplace(e.name, e).second)
        throw fail("a malformed line in its header: " + line);
      continue;
    }
    if (!fields.emplace(key, value).second) throw fail("its header names " + key + " twice");
  }
  auto field = [&](const char* key) -> const std::string& {
    const auto it = fields.find(key);
    if (it == fields.end()) throw fail(std::string("its header has no ") + key);
    return it->second;
  };
  auto number = [&](const char* key) {
    const std::string& v = field(key);
    std::uint64_t n = 0;
    const auto got = std::from_chars(v.data(), v.data() + v.size(), n);
    if (v.empty() || v[0] < '0' || v[0] > '9' || got.ec != std::errc{} || got.ptr != v.data() + v.size())
      throw fail(std::string("its header's ") + key + " is not a number: " + v);
    return n;
  };
  auto seconds = [&](const char* key) {
    const std::string& v = field(key);
    double d = 0;
    const auto got = std::from_chars(v.data(), v.data() + v.size(), d);
    if (v.empty() || v[0] < '0' || v[0] > '9' || got.ec != std::errc{} || got.ptr != v.data() + v.size() ||
        !std::isfinite(d))
      throw fail(std::string("its header's ") + key + " is not a number of seconds: " + v);
    return d;
  };
  h.run = field("run");
  h.states = number("states");
  h.transitions = number("transitions");
  h.depth = number("depth");
  h.records = number("records");
  h.explore_cpu_seconds = seconds("explore_cpu_seconds");
  h.seconds = seconds("seconds");
  for (const auto& [key, value] : fields)
    if (key != "run" && key != "states" && key != "transitions" && key != "depth" && key != "records" &&
        key != "explore_cpu_seconds" && key != "seconds")
      throw fail("its header has an unknown field " + key);
  return h;
}

/// Reads the file `name` of the checkpoint in `dir` in order and checks its size and checksum
/// against the header's; `each` (optional) sees its bytes, chunk by chunk (each a whole number of
/// 4-byte values), at their offsets.
template <class Each>
void check_file(const std::string& dir, const FileSet::Entry& e, Each&& each) {
  const std::string path = dir + "/" + e.name;
  auto fail = [&](const std::string& why) { return CheckpointError("check: cannot resume from " + dir + ": " + why); };
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw fail(errno == ENOENT ? e.name + " is missing" : e.name + ": " + std::strerror(errno));
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    throw fail(e.name + " is not a file");
  }
  if (static_cast<std::uint64_t>(st.st_size) != e.bytes) {
    close(fd);
    throw fail(e.name + " has " + std::to_string(st.st_size) + " bytes where the checkpoint recorded " +
               std::to_string(e.bytes) + " (cut short, or not this save's)");
  }
  posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);  // a hint
  Checksum sum;
  std::vector<std::uint8_t> chunk(std::size_t{1} << 20);  // a whole number of values
  for (std::uint64_t at = 0; at < e.bytes;) {
    const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(chunk.size(), e.bytes - at));
    std::size_t got = 0;
    while (got < want) {  // the whole chunk (a read may return less)
      const ssize_t n = pread(fd, chunk.data() + got, want - got, static_cast<off_t>(at + got));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        close(fd);
        throw fail("cannot read " + e.name);
      }
      got += static_cast<std::size_t>(n);
    }
    sum.update(chunk.data(), got);
    each(chunk.data(), got, at);
    at += got;
  }
  close(fd);
  if (sum.digest() != e.checksum)
    throw fail(e.name + " is corrupt (its checksum differs from the one the checkpoint recorded)");
}
}  // namespace

std::string checkpoint_identity(const Instance& inst, const Options& opt, const Model& model) {
  return describe(inst) + " symmetry=" + (opt.symmetry ? "1" : "0") + " collapse=" + (opt.collapse ? "1" : "0") +
         " stride=" + std::to_string(model.stride()) + " record=" + std::to_string(model.record_size());
}

void save_checkpoint(Exploration& x) {
  const Options& opt = x.opt;
  const Model& model = x.model;
  const std::string& dir = opt.save_dir;
  std::filesystem::create_directories(dir);
  // The header goes last: a save cut short has none, and is refused. A record of an earlier
  // analysis in the directory is of an earlier save.
  for (const char* stale : {"checkpoint", "analysis"}) std::filesystem::remove(dir + "/" + stale);
  FileSet out(dir);
  out.sync_directory();
  out.write("records.bin", model.node_record_data(), model.node_records() * model.record_size());
  x.set.save(out, "states.bin");
  x.parent.save(out, "parents.bin");
  x.graph.save(out, "graph.");
  std::string header =
      std::string(format_line) + "\nrun " + checkpoint_identity(x.inst, opt, model) + "\nstates " +
      std::to_string(x.set.size()) + "\ntransitions " + std::to_string(x.res.transitions) + "\ndepth " +
      std::to_string(x.res.max_depth) + "\nrecords " + std::to_string(model.node_records()) + "\nexplore_cpu_seconds " +
      std::to_string(x.res.explore_cpu_seconds) + "\nseconds " + std::to_string(x.wall_seconds()) + "\n";
  for (const FileSet::Entry& e : out.entries())
    header += "file " + e.name + " " + std::to_string(e.bytes) + " " + hex16(e.checksum) + "\n";
  header += "checksum " + hex16(checkpoint_checksum(header.data(), header.size())) + "\n";
  out.write("checkpoint", header.data(), header.size());
  out.sync_directory();
  x.truncated = true;
  x.res.limit = Limit::saved;
}

void load_checkpoint(Exploration& x) {
  // The saved exploration found no violation (else nothing was saved): what is left is the
  // analysis, on the stored states, their node records, parent links and graph read back.
  const Options& opt = x.opt;
  const Model& model = x.model;
  const std::string& dir = opt.resume_dir;
  auto fail = [&](const std::string& why) { return CheckpointError("check: cannot resume from " + dir + ": " + why); };
  const Header h = read_header(dir);
  const std::string identity = checkpoint_identity(x.inst, opt, model);
  if (h.run != identity)
    throw CheckpointError("check: the checkpoint in " + dir + " is of another run: " + h.run +
                          " (this run: " + identity + ")");

  // The counts, against what the instance allows and against each other.
  if (h.states == 0 || h.states >= UINT32_MAX) throw fail("its header's count of states is out of range");
  if (h.records > model.record_capacity()) throw fail("its header's count of node records is out of range");
  if (h.depth >= h.states || h.transitions < h.states - 1)
    throw fail("its header's depth or transitions do not fit its states");
  // The files: exactly the checkpoint's, their sizes those the counts give.
  for (const auto& [name, entry] : h.files)
    if (std::find(checkpoint_files().begin(), checkpoint_files().end(), name) == checkpoint_files().end())
      throw fail("its header names a file '" + name + "' that a checkpoint does not have");
  const std::uint64_t n = h.states, blocks = 16 * ((n + 1 + 255) / 256), code_blocks = 16 * ((n + 255) / 256);
  const std::map<std::string, std::uint64_t> sizes = {{"records.bin", h.records * model.record_size()},
                                                      {"states.bin", n * model.stride()},
                                                      {"parents.bin", n * 4},
                                                      {"graph.state_begin.blocks", blocks},
                                                      {"graph.state_begin.narrow", 2 * (n + 1)},
                                                      {"graph.code_begin.blocks", code_blocks},
                                                      {"graph.code_begin.narrow", 2 * n}};
  for (const std::string& name : checkpoint_files()) {
    const auto it = h.files.find(name);
    if (it == h.files.end()) throw fail("its header does not name its file " + name);
    const auto expected = sizes.find(name);
    if (expected != sizes.end() && it->second.bytes != expected->second)
      throw fail("its header gives " + name + " " + std::to_string(it->second.bytes) +
                 " bytes, where its counts need " + std::to_string(expected->second));
  }
  // Each file whole: its size and checksum; the parent links' values on the way (the parent of a
  // state was found before it, and the initial state has none), which are read one at a time later.
  for (const std::string& name : checkpoint_files()) {
    const FileSet::Entry& e = h.files.at(name);
    if (name != "parents.bin") {
      check_file(dir, e, [](const std::uint8_t*, std::size_t, std::uint64_t) {});
      continue;
    }
    bool in_order = true;  // told after the checksum: a corrupt file is reported as corrupt
    check_file(dir, e, [&](const std::uint8_t* p, std::size_t bytes, std::uint64_t at) {
      for (std::size_t i = 0; i < bytes; i += 4) {
        std::uint32_t parent;
        std::memcpy(&parent, p + i, 4);
        const std::uint64_t s = (at + i) / 4;
        in_order = in_order && (s == 0 ? parent == UINT32_MAX : parent < s);
      }
    });
    if (!in_order) throw fail("parents.bin holds a parent link out of order");
  }
  // What the files hold.
  try {
    const std::string prefix = dir + "/";
    {
      Column<std::uint8_t> records;
      records.load(prefix + "records.bin");
      for (std::uint64_t i = 0; i < h.records; ++i)
        if (!model.record_is_valid(records.data() + i * model.record_size()))
          throw fail("records.bin holds a node record that this instance has not");
      model.restore_node_records(records.data(), h.records);
    }
    x.set.load(prefix + "states.bin");
    for (std::size_t s = 0; s < x.set.size(); ++s)
      if (!model.stored_is_valid(x.set.at(s))) throw fail("states.bin holds a state that this instance has not");
    x.parent.load(prefix + "parents.bin");
    x.graph.load(prefix + "graph.");
    if (const std::string why = x.graph.verify(x.set.size(), x.inst.nodes); !why.empty())
      throw fail("its graph does not fit its states: " + why);
  } catch (const CheckpointError&) {
    throw;
  } catch (const std::exception& e) {
    std::string why = e.what();
    if (why.rfind("check: ", 0) == 0) why.erase(0, 7);
    throw fail(why);
  }
  x.res.transitions = h.transitions;
  x.res.max_depth = static_cast<unsigned>(h.depth);
  x.saved_cpu = h.explore_cpu_seconds;
  x.saved_seconds = h.seconds;
}

}  // namespace lmx::check::detail

namespace lmx::check {

std::uint64_t checkpoint_checksum(const void* data, std::size_t size) { return detail::checksum_of(data, size); }

}  // namespace lmx::check
