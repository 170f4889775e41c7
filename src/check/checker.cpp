// The checker's run: its record (Exploration) and the phases in order (docs/checker.md, "Source
// files"): exploring, saving or the analysis (deadlock, parts, fair end components), counterexamples.
#include "lmx/check/checker.hpp"

#include <chrono>
#include <ctime>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis.hpp"
#include "checkpoint.hpp"
#include "exploration.hpp"

namespace lmx::check {

namespace detail {

Exploration::Exploration(const Instance& instance, const Options& options, std::size_t memo_slots)
    : inst(instance),
      opt(options),
      model(instance, memo_slots, options.collapse),
      symmetry(options.symmetry),
      saving(!options.save_dir.empty()),
      resuming(!options.resume_dir.empty()),
      stride(model.stride()),
      set(stride),
      identity_nodes(node_map(Renaming{{0, 1, 2, 3}, {}, {}}, instance.nodes)),
      init(model.initial()) {
  graph.k = inst.k;
  if (symmetry) graph.keep_renamings(inst.nodes);
  if (opt.graph_on_disk && opt.liveness) graph.keep_in_files();
  if ((saving || resuming) && !opt.liveness)
    throw std::invalid_argument("check: saving or resuming an exploration is for full runs, not safety only");
  if (saving && resuming) throw std::invalid_argument("check: a run saves its exploration or resumes one, not both");
}

void Exploration::report(Pending p) {
  if (seen[p.signature]++ >= opt.per_kind) return;
  pending.push_back(std::move(p));
}

void Exploration::check_state(const Global& g, std::uint32_t idx) {
  std::vector<unsigned> nodes;
  std::string detail;
  if (const auto kind = model.invariants(g, nodes, detail))
    report(Pending{{*kind}, detail, nodes, idx, false, {}, g, false});
}

bool Exploration::out_of_time() {
  if (opt.stop != nullptr && opt.stop->load(std::memory_order_relaxed)) {
    truncated = true;
    res.limit = Limit::interrupted;
    return true;
  }
  if (opt.max_seconds <= 0 || wall_seconds() <= opt.max_seconds) return false;
  truncated = true;
  res.limit = Limit::seconds;
  return true;
}

double Exploration::wall_seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void Exploration::progress(Phase phase, std::uint64_t lifted, unsigned round, std::uint64_t decomposing) {
  auto& phases = res.phase_cpu_seconds;
  if (phases.empty() || phases[current_phase].first != phase) {
    if (!phases.empty()) {  // the first phase starts with the run
      const std::clock_t now = std::clock();
      phases[current_phase].second += static_cast<double>(now - phase_start) / CLOCKS_PER_SEC;
      phase_start = now;
    }
    current_phase = 0;
    while (current_phase < phases.size() && phases[current_phase].first != phase) ++current_phase;
    if (current_phase == phases.size()) phases.emplace_back(phase, 0.0);
  }
  if (opt.progress)
    opt.progress(Progress{phase, set.size(), res.transitions, res.max_depth, lifted, round, decomposing, part,
                          res.analysis_parts});
}

std::vector<std::pair<Phase, double>> Exploration::phase_cpu_so_far() const {
  auto phases = res.phase_cpu_seconds;
  if (current_phase < phases.size())
    phases[current_phase].second += static_cast<double>(std::clock() - phase_start) / CLOCKS_PER_SEC;
  return phases;
}

Result Exploration::finish() {
  // Stored per state: packed state and index, the parent only if it could not go to a file, and in
  // liveness runs the graph (two offsets per state, a byte of flags per action, the code of the
  // targets), counted in files too with graph_on_disk; the table of node records shared by all.
  res.bytes_per_state = set.bytes_per_state() + (parent.in_file() ? 0 : sizeof(std::uint32_t)) +
                        (opt.liveness && res.states ? graph_bytes / res.states : 0) +
                        (res.states ? model.node_record_bytes() / res.states : 0);
  res.node_records = model.node_records();
  res.verdict = truncated ? Verdict::incomplete : res.violations.empty() ? Verdict::pass : Verdict::fail;
  if (truncated && !res.violations.empty()) res.verdict = Verdict::fail;
  res.seconds = wall_seconds() + saved_seconds + analysis_seconds_before;
  res.cpu_seconds = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC + saved_cpu + analysis_cpu_before;
  if (!res.phase_cpu_seconds.empty())
    res.phase_cpu_seconds[current_phase].second += static_cast<double>(std::clock() - phase_start) / CLOCKS_PER_SEC;
  if (resuming) res.phase_cpu_seconds.front().second += saved_cpu;  // exploring: reading back, and the saved
  return std::move(res);
}

void analyse(Exploration& x) {
  // The index of the stored states is released for the analysis, which runs at a run's peak of
  // memory: rebuilding concrete states looks canonical forms up in its own set, and only the
  // report of a fair end component of rebuilt states builds the index again.
  x.set.release_index();
  // The analysis reads the stored states in order (and a few members of end components), so
  // they go to a temporary file for it, mapped where they were: the kernel keeps what it has
  // room for. On the largest runs that is 8 GB that the graph's decomposition needs.
  x.set.move_states_to_file();  // if no file can be made, they stay in memory
  // A resumed run keeps a record of its analysis beside the checkpoint (docs/checker.md, "And in
  // more") and goes on from where the last one stopped.
  AnalysisLog log(x);
  find_deadlocks(x, log);
  Parts parts = split_into_parts(x, log);
  decide_fair_end_components(x, log, parts);
}

}  // namespace detail

Result check(const Instance& inst, const Options& opt) {
  detail::Exploration x(inst, opt);
  if (x.resuming) detail::load_checkpoint(x);
  detail::explore(x);
  // Saving: the exploration goes to files and the run stops, unless it found a violation, which
  // decides the verdict; then it stops with that, and deadlock and P7 are left undecided.
  if (x.saving && !x.truncated && x.pending.empty()) detail::save_checkpoint(x);
  if (opt.liveness && !x.truncated && !x.saving) detail::analyse(x);
  detail::write_counterexamples(x);
  return x.finish();
}

void verify_checkpoint(const Instance& inst, const Options& opt) {
  if (opt.resume_dir.empty()) throw std::invalid_argument("check: no checkpoint to verify (Options::resume_dir)");
  detail::Exploration x(inst, opt, 1);
  detail::load_checkpoint(x);
  const detail::AnalysisLog log(x);  // reads and checks the record of the analysis, if there is one
}

}  // namespace lmx::check
