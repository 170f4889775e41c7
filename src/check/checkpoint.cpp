// Saving a finished exploration and reading it back (docs/checker.md, "A run in two sittings").
#include "checkpoint.hpp"

#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>

namespace lmx::check::detail {

namespace {
constexpr const char* checkpoint_format = "lmx-check-checkpoint 1";

/// The saved exploration's header: "key value" lines after the format line.
std::map<std::string, std::string> read_checkpoint_header(const std::string& dir) {
  const std::string path = dir + "/checkpoint";
  std::ifstream in(path);
  if (!in) throw std::runtime_error("check: no checkpoint in " + dir + " (cannot read " + path + ")");
  std::string line;
  if (!std::getline(in, line) || line != checkpoint_format)
    throw std::runtime_error("check: " + path + " is not a checkpoint of this version ('" + checkpoint_format + "')");
  std::map<std::string, std::string> header;
  while (std::getline(in, line)) {
    const auto space = line.find(' ');
    if (space == std::string::npos) throw std::runtime_error("check: a malformed line in " + path + ": " + line);
    header[line.substr(0, space)] = line.substr(space + 1);
  }
  for (const char* key : {"run", "states", "transitions", "depth", "records", "explore_cpu_seconds", "seconds"})
    if (header.count(key) == 0) throw std::runtime_error("check: " + path + " has no " + key);
  return header;
}

std::uint64_t header_number(const std::map<std::string, std::string>& header, const std::string& key) {
  const std::string& text = header.at(key);
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
    throw std::runtime_error("check: the checkpoint's " + key + " is not a number: " + text);
  return std::stoull(text);
}
}  // namespace

std::string checkpoint_identity(const Instance& inst, const Options& opt, const Model& model) {
  return describe(inst) + " symmetry=" + (opt.symmetry ? "1" : "0") + " collapse=" + (opt.collapse ? "1" : "0") +
         " stride=" + std::to_string(model.stride()) + " record=" + std::to_string(model.record_size());
}

void save_checkpoint(Exploration& x) {
  const Options& opt = x.opt;
  const Model& model = x.model;
  const std::string dir = opt.save_dir + "/";
  std::filesystem::create_directories(opt.save_dir);
  std::filesystem::remove(dir + "checkpoint");  // the header goes last: a partial save has none
  save_file(dir + "records.bin", model.node_record_data(), model.node_records() * model.record_size());
  x.set.save(dir + "states.bin");
  x.parent.save(dir + "parents.bin");
  x.graph.save(dir + "graph.");
  {
    std::ofstream out(dir + "checkpoint.part");
    out << checkpoint_format << "\nrun " << checkpoint_identity(x.inst, opt, model) << "\nstates " << x.set.size()
        << "\ntransitions " << x.res.transitions << "\ndepth " << x.res.max_depth << "\nrecords "
        << model.node_records() << "\nexplore_cpu_seconds " << std::to_string(x.res.explore_cpu_seconds) << "\nseconds "
        << std::to_string(x.wall_seconds()) << "\n";
    if (!out.flush()) throw std::runtime_error("check: cannot write " + dir + "checkpoint.part");
  }
  std::filesystem::rename(dir + "checkpoint.part", dir + "checkpoint");
  x.truncated = true;
  x.res.limit = Limit::saved;
}

void load_checkpoint(Exploration& x) {
  // The saved exploration found no violation (else nothing was saved): what is left is the
  // analysis, on the stored states, their node records, parent links and graph read back.
  const Options& opt = x.opt;
  const Model& model = x.model;
  const auto header = read_checkpoint_header(opt.resume_dir);
  const std::string identity = checkpoint_identity(x.inst, opt, model);
  if (header.at("run") != identity)
    throw std::runtime_error("check: the checkpoint in " + opt.resume_dir + " is of another run: " + header.at("run") +
                             " (this run: " + identity + ")");
  const std::string dir = opt.resume_dir + "/";
  {
    Column<std::uint8_t> records;
    records.load(dir + "records.bin");
    const std::uint64_t count = header_number(header, "records");
    if (records.size() != count * model.record_size())
      throw std::runtime_error("check: " + dir + "records.bin does not hold the checkpoint's " + std::to_string(count) +
                               " node records");
    model.restore_node_records(records.data(), count);
  }
  x.set.load(dir + "states.bin");
  x.parent.load(dir + "parents.bin");
  x.graph.load(dir + "graph.");
  if (x.set.size() != header_number(header, "states") || x.parent.size() != x.set.size() ||
      x.graph.states() != x.set.size())
    throw std::runtime_error("check: the files in " + opt.resume_dir + " do not hold the checkpoint's " +
                             header.at("states") + " states");
  x.res.transitions = header_number(header, "transitions");
  x.res.max_depth = static_cast<unsigned>(header_number(header, "depth"));
  x.saved_cpu = std::stod(header.at("explore_cpu_seconds"));
  x.saved_seconds = std::stod(header.at("seconds"));
}

}  // namespace lmx::check::detail
