// `lmx check`: exhaustive exploration of a small instance (docs/checker.md).
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "command.hpp"
#include "lmx/check/checker.hpp"
#include "lmx/check/replay.hpp"
#include "lmx/trace/trace.hpp"
#include "process.hpp"

namespace {

// Numeric options are taken as text and parsed here, strictly, so that every bad value gets one
// line naming the option, the value and the range, and exit status 2.
struct Args {
  std::string variant = "repaired";
  std::string nodes = "2", delta = "1", k = "2", max_changes = "0";
  std::string locks = "1";
  std::string edges = "0-1";
  bool json = false, safety_only = false, no_symmetry = false, graph_on_disk = false, no_collapse = false,
       no_parts = false, lock_subsets = false;
  std::string write_dir, replay, save_dir, resume_dir;
  std::string max_states = "60000000";
  std::string max_seconds = "0";
  std::string progress_every = "0";
};

/// `text` in quotes, printable: a control or non-ASCII byte as \xNN, so that an error quoting the
/// user's input stays one line.
std::string printable(const std::string& text) {
  std::string out = "'";
  for (unsigned char c : text)
    out += c >= 0x20 && c < 0x7f && c != '\\' ? std::string(1, static_cast<char>(c)) : fmt::format("\\x{:02x}", c);
  return out + "'";
}

/// The most states --max-states allows: a stored state is numbered in 32 bits.
constexpr std::uint64_t most_states = 4'000'000'000;

/// A whole number from `low` to `high`, written in decimal digits only.
std::uint64_t parse_whole(const std::string& flag, const std::string& text, std::uint64_t low, std::uint64_t high) {
  std::uint64_t n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (text.empty() || text[0] < '0' || text[0] > '9' || ec != std::errc{} || end != text.data() + text.size() ||
      n < low || n > high)
    throw lmx::cli::Failure(
        fmt::format("{} must be a whole number from {} to {}, not {}", flag, low, high, printable(text)));
  return n;
}

/// A number of seconds: decimal, 0 or more, finite.
double parse_seconds(const std::string& flag, const std::string& text, const char* zero) {
  double d = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), d);
  if (text.empty() || !((text[0] >= '0' && text[0] <= '9') || text[0] == '.') || ec != std::errc{} ||
      end != text.data() + text.size() || !std::isfinite(d) || d < 0)
    throw lmx::cli::Failure(fmt::format("{} must be 0 ({}) or more seconds, not {}", flag, zero, printable(text)));
  return d;
}

/// --locks: 1..15 or "unbounded" (0 would be an instance without requests, which proves nothing).
unsigned parse_locks(const std::string& text) {
  if (text == "unbounded") return lmx::check::unbounded_locks;
  const std::string error = "--locks must be 1..15 or unbounded, not " + printable(text);
  if (text.empty() || text.size() > 2 || text.find_first_not_of("0123456789") != std::string::npos)
    throw lmx::cli::Failure(error);
  const unsigned n = static_cast<unsigned>(std::stoul(text));
  if (n < 1 || n > 15) throw lmx::cli::Failure(error);
  return n;
}

/// Makes the directory a flag names (and its parents) and makes sure a file can be written into it,
/// or fails saying why: before a long run, not after it.
void make_writable_directory(const std::string& flag, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir))
    throw lmx::cli::Failure(flag + ": cannot use " + dir + " as a directory" + (ec ? ": " + ec.message() : ""));
  const std::string probe = dir + "/.lmx-write-test-" + std::to_string(::getpid());
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  const char byte = '\n';
  const bool ok = fd >= 0 && ::write(fd, &byte, 1) == 1;
  const int error = errno;
  if (fd >= 0) {
    ::close(fd);
    ::unlink(probe.c_str());
  }
  if (!ok) throw lmx::cli::Failure(flag + ": cannot write into " + dir + ": " + std::strerror(error));
}

/// Writes `text` to a new file at `path`, every write checked; on a failure returns why and
/// removes what was written.
std::string write_file(const std::string& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return std::strerror(errno);
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  const int error = done == text.size() ? 0 : errno == 0 ? EIO : errno;
  if (::close(fd) != 0 || error != 0) {
    const std::string why = std::strerror(error != 0 ? error : errno);
    ::unlink(path.c_str());
    return why;
  }
  return {};
}

const lmx::cli::Register check_command{
    {"check", 20, [](CLI::App& app, int& exit_code) {
       auto* cmd = app.add_subcommand(
           "check", "Explore every reachable state of a small instance and decide P1-P4, deadlock and P7");
       static Args a;
       cmd->add_option("--variant", a.variant, "paper, repaired or fast")->capture_default_str();
       cmd->add_option("--nodes", a.nodes, "number of nodes (1..4)")->capture_default_str();
       cmd->add_option("--edges", a.edges, "initial graph, e.g. 0-1,1-2 (empty: no edges)")->capture_default_str();
       cmd->add_option("--delta", a.delta, "ports per node (1..3)")->capture_default_str();
       cmd->add_option("--k", a.k, "number of priority values (2..32)")->capture_default_str();
       cmd->add_option("--locks", a.locks,
                       "Lock calls per node (1..15), or 'unbounded': any number, which contains every bounded run")
           ->capture_default_str();
       cmd->add_option("--max-changes", a.max_changes, "topology moves in total (0..15)")->capture_default_str();
       cmd->add_flag("--lock-subsets", a.lock_subsets,
                     "Lock over a chosen subset: a Lock call may request any subset of ports 1..delta (each a "
                     "transition of its own; port 0 is always locked), and P3 wants exactly port 0 plus the "
                     "requested ports connected throughout the request (off: every Lock takes the whole "
                     "neighbourhood)");
       cmd->add_option("--max-states", a.max_states, "stop after this many states (verdict incomplete; 1..4000000000)")
           ->capture_default_str();
       cmd->add_option("--max-seconds", a.max_seconds,
                       "stop after this many seconds of wall-clock time (verdict incomplete; 0: no limit)")
           ->capture_default_str();
       cmd->add_option("--progress-every", a.progress_every,
                       "write a progress line to standard error at each phase and at most every this many "
                       "seconds, terminal or not (for long runs written to a log; 0: off)")
           ->capture_default_str();
       cmd->add_flag("--json", a.json, "print one JSON object");
       cmd->add_flag("--safety-only", a.safety_only,
                     "invariants only: P1-P4, P3 and the core's checks (no graph kept)");
       cmd->add_flag("--no-symmetry", a.no_symmetry,
                     "explore every state, without reducing by renaming nodes and ports");
       cmd->add_flag("--graph-on-disk", a.graph_on_disk,
                     "keep the liveness graph in a temporary file, so that its pages may leave memory while "
                     "exploring (for runs larger than memory; same results)");
       cmd->add_flag("--no-collapse", a.no_collapse,
                     "store each state's node records in it, not their numbers in a table of records (more "
                     "memory; same results)");
       cmd->add_flag("--no-parts", a.no_parts,
                     "decide the end components on the whole graph at once, not part by part (more memory; same "
                     "results)");
       cmd->add_option("--save", a.save_dir,
                       "save the finished exploration in this directory and stop (exit 3), for --resume to decide "
                       "deadlock and P7 later: a run too long for one sitting, in two");
       cmd->add_option("--resume", a.resume_dir,
                       "decide deadlock and P7 from the exploration that --save left in this directory (the same "
                       "instance and options) instead of exploring; the analysis is recorded there part by part, "
                       "and a run resumed again goes on from the record");
       cmd->add_option("--write", a.write_dir, "write each counterexample trace into this directory");
       cmd->add_option("--replay", a.replay, "re-execute a counterexample trace on the core and exit");
       cmd->callback([&exit_code] {
         if (!a.replay.empty()) {
           // Bad input exits 2 (not 1, the verdict "fail"): a directory, an empty file, or a file
           // whose first line is not a checker counterexample's header.
           if (std::error_code ec; std::filesystem::is_directory(a.replay, ec))
             throw lmx::cli::Failure(a.replay + " is a directory, not a trace file");
           std::ifstream in(a.replay, std::ios::binary);
           if (!in) throw lmx::cli::Failure("cannot open " + a.replay);
           try {
             const lmx::trace::Reader header(in, a.replay);  // the shared header checks
             if (header.header().value("source", "") != "check")
               throw lmx::cli::Failure(a.replay +
                                       " line 1: not a checker counterexample (its header's \"source\" is not "
                                       "\"check\"; lmx replay re-runs a simulator trace)");
           } catch (const lmx::trace::Error& e) {
             throw lmx::cli::Failure(e.what());
           }
           in.clear();
           in.seekg(0);
           exit_code = lmx::check::replay_counterexample(in, std::cout) ? 0 : 1;
           return;
         }
         lmx::check::Instance inst;
         if (!lmx::core::parse_variant(a.variant, inst.variant))
           throw lmx::cli::Failure("unknown variant " + printable(a.variant));
         inst.nodes = static_cast<unsigned>(parse_whole("--nodes", a.nodes, 1, lmx::check::max_nodes));
         inst.delta = static_cast<unsigned>(parse_whole("--delta", a.delta, 1, lmx::check::max_delta));
         inst.k = static_cast<unsigned>(parse_whole("--k", a.k, lmx::core::k_min, lmx::core::k_max));
         inst.max_changes = static_cast<unsigned>(parse_whole("--max-changes", a.max_changes, 0, 15));
         inst.locks = parse_locks(a.locks);
         inst.lock_subsets = a.lock_subsets;
         if (auto e = lmx::check::parse_edges(a.edges, inst.edges); !e.empty()) throw lmx::cli::Failure(e);
         if (auto e = lmx::check::validate(inst); !e.empty()) throw lmx::cli::Failure(e);
         const std::uint64_t max_states = parse_whole("--max-states", a.max_states, 1, most_states);
         const double max_seconds = parse_seconds("--max-seconds", a.max_seconds, "no limit");
         const double progress_every = parse_seconds("--progress-every", a.progress_every, "off");
         if (!a.write_dir.empty()) make_writable_directory("--write", a.write_dir);
         lmx::check::Options opt;
         opt.save_dir = a.save_dir, opt.resume_dir = a.resume_dir;
         if ((!a.save_dir.empty() || !a.resume_dir.empty()) && a.safety_only)
           throw lmx::cli::Failure("--save and --resume are for full runs: not with --safety-only");
         if (!a.save_dir.empty() && !a.resume_dir.empty())
           throw lmx::cli::Failure("--save and --resume: a run saves its exploration or resumes one, not both");
         if (!a.save_dir.empty()) make_writable_directory("--save", a.save_dir);
         if (!a.resume_dir.empty() && !std::filesystem::exists(a.resume_dir + "/checkpoint"))
           throw lmx::cli::Failure("--resume: no saved exploration in " + a.resume_dir + " (no file 'checkpoint')");
         opt.liveness = !a.safety_only;
         opt.symmetry = !a.no_symmetry;
         opt.graph_on_disk = a.graph_on_disk;
         opt.collapse = !a.no_collapse;
         opt.split_parts = !a.no_parts;
         opt.max_states = max_states;
         opt.max_seconds = max_seconds;
         lmx::cli::StatusLine line;  // long runs: where the search is, on a terminal
         const auto start = std::chrono::steady_clock::now();
         std::string logged_phase;
         unsigned logged_part = 0;
         double logged_at = 0;
         opt.progress = [&](const lmx::check::Progress& p) {
           const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
           const std::string phase(lmx::check::to_string(p.phase));
           const std::string text =
               fmt::format("check: {}, {} states, depth {}{}{}{}, {:.0f} s, peak {:.2f} GiB", phase, p.states, p.depth,
                           p.lifted ? fmt::format(", {} rebuilt", p.lifted) : "",
                           p.part ? fmt::format(", part {} of {}", p.part, p.parts) : "",
                           p.round ? fmt::format(", round {}: {} states to decompose", p.round, p.decomposing) : "",
                           secs, static_cast<double>(lmx::cli::peak_rss_bytes()) / (1 << 30));
           if (progress_every > 0) {  // whole lines, for a log: a new phase at once, the rest spaced out
             if (phase != logged_phase || p.part != logged_part || secs - logged_at >= progress_every) {
               std::fprintf(stderr, "%s\n", text.c_str());
               logged_phase = phase, logged_part = p.part, logged_at = secs;
             }
             return;
           }
           line.show(text);
         };
         const auto r = lmx::check::check(inst, opt);  // a checkpoint's errors: "lmx: error: ...", exit 2
         line.clear();
         const std::uint64_t peak = lmx::cli::peak_rss_bytes();
         // The counterexamples are written first, so that the summary can name their files; one that
         // cannot be written does not hide the verdict: it is printed, then the error (exit 2).
         std::vector<std::string> files;
         std::string write_error;
         if (!a.write_dir.empty())
           for (std::size_t i = 0; i < r.violations.size(); ++i) {
             const auto& v = r.violations[i];
             const std::string f = fmt::format("{}/{}-{}.jsonl", a.write_dir, i + 1, lmx::check::to_string(v.kind));
             if (const std::string why = write_file(f, v.trace); !why.empty()) {
               write_error = fmt::format("--write: cannot write {}: {} ({} of {} counterexamples written)", f, why,
                                         files.size(), r.violations.size());
               break;
             }
             files.push_back(f);
           }
         if (a.json) {
           nlohmann::json j = {{"instance", lmx::check::describe(inst)},
                               {"verdict", lmx::check::to_string(r.verdict)},
                               {"states", r.states},
                               {"transitions", r.transitions},
                               {"seconds", r.seconds},
                               {"states_per_second", r.seconds > 0 ? r.states / r.seconds : 0.0},
                               {"cpu_seconds", r.cpu_seconds},
                               {"states_per_cpu_second", r.cpu_seconds > 0 ? r.states / r.cpu_seconds : 0.0},
                               {"explore_cpu_seconds", r.explore_cpu_seconds},
                               {"bytes_per_state", r.bytes_per_state},
                               {"peak_rss_bytes", peak},
                               {"max_depth", r.max_depth},
                               {"symmetry", opt.symmetry},
                               {"lifted_states", r.lifted_states},
                               {"node_records", r.node_records},
                               {"deadlock_sweeps", r.deadlock_sweeps},
                               {"analysis_parts", r.analysis_parts},
                               {"limit", lmx::check::to_string(r.limit)}};
           j["phase_cpu_seconds"] = nlohmann::json::object();
           for (const auto& [phase, secs] : r.phase_cpu_seconds)
             j["phase_cpu_seconds"][std::string(lmx::check::to_string(phase))] = secs;
           j["violations"] = nlohmann::json::array();
           for (const auto& v : r.violations)
             j["violations"].push_back({{"kind", lmx::check::to_string(v.kind)},
                                        {"nodes", v.nodes},
                                        {"detail", v.detail},
                                        {"depth", v.depth},
                                        {"trace", v.trace}});
           std::cout << j.dump() << "\n";
         } else {
           fmt::print("instance: {}\n", lmx::check::describe(inst));
           fmt::print(
               "verdict: {}{}\nstates: {}\ntransitions: {}\nseconds: {:.3f} (processor {:.3f}, exploration "
               "{:.3f})\nstates/s: "
               "{:.0f} (per processor second {:.0f})\nbytes/state: {} (peak memory {:.1f} MiB)\nmax depth: "
               "{}\nsymmetry "
               "reduction: {}{}\n",
               lmx::check::to_string(r.verdict),
               r.limit == lmx::check::Limit::none ? ""
               : r.limit == lmx::check::Limit::saved
                   ? " (exploration saved in " + a.save_dir + ": decide it with --resume)"
                   : " (stopped by --max-" + std::string(lmx::check::to_string(r.limit)) + ")",
               r.states, r.transitions, r.seconds, r.cpu_seconds, r.explore_cpu_seconds,
               r.seconds > 0 ? r.states / r.seconds : 0.0, r.cpu_seconds > 0 ? r.states / r.cpu_seconds : 0.0,
               r.bytes_per_state, static_cast<double>(peak) / (1 << 20), r.max_depth,
               opt.symmetry ? "nodes and ports" : "none",
               r.lifted_states ? fmt::format(" ({} concrete states rebuilt for fairness)", r.lifted_states) : "");
           std::string phases;
           for (const auto& [phase, secs] : r.phase_cpu_seconds)
             phases += fmt::format("{}{} {:.2f}", phases.empty() ? "" : ", ", lmx::check::to_string(phase), secs);
           fmt::print("processor seconds by phase: {}\n", phases);
           if (r.node_records) fmt::print("node records: {} (states stored as their numbers)\n", r.node_records);
           for (std::size_t i = 0; i < r.violations.size(); ++i) {
             const auto& v = r.violations[i];
             fmt::print("violation {}: {} (depth {}): {}{}\n", i + 1, lmx::check::to_string(v.kind), v.depth, v.detail,
                        i < files.size() ? " -> " + files[i] : "");
           }
         }
         exit_code = r.verdict == lmx::check::Verdict::pass ? 0 : r.verdict == lmx::check::Verdict::fail ? 1 : 3;
         std::cout.flush();
         if (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout))
           throw lmx::cli::Failure("cannot write the results to standard output");
         if (!write_error.empty()) throw lmx::cli::Failure(write_error);
       });
     }}};
}  // namespace
