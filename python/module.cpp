// The `lmx._lmx` extension (docs/python.md): the library's entry points for Python. JSON crosses
// the boundary as text, which the Python layer (python/lmx/) parses with the standard json module,
// so that every figure reaches Python exactly as `--json` prints it. Long runs release the GIL and
// look for Ctrl-C between rounds; errors become lmx.Error with the CLI's one-line message.
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <fstream>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "lmx/apps/amoebot.hpp"
#include "lmx/apps/population.hpp"
#include "lmx/check/checker.hpp"
#include "lmx/sim/scenario.hpp"
#include "lmx/sim/simulation.hpp"

namespace py = pybind11;
using nlohmann::json;

namespace {

/// lmx.Error: bad input, with the one line the CLI would print after "lmx: error: ".
PyObject* lmx_error = nullptr;

[[noreturn]] void raise(const std::string& message) {
  PyErr_SetString(lmx_error, message.c_str());
  throw py::error_already_set();
}

template <class F>
auto guarded(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const lmx::sim::ScenarioError& e) {
    raise(e.what());
  } catch (const lmx::apps::amoebot::ModelError& e) {
    raise(e.what());
  } catch (const lmx::apps::pp::ProtocolError& e) {
    raise(e.what());
  }
}

/// Runs f(stop) on a worker thread with the GIL released, while the calling (main) thread looks
/// for Python signals every 50 ms: on a pending one (Ctrl-C) it raises `stop`, waits for f to
/// return early, and raises the signal handler's exception (KeyboardInterrupt). lmx's input errors
/// are raised as lmx.Error once the GIL is held again.
template <class F>
auto interruptible(F&& f) -> decltype(f(std::declval<const std::atomic<bool>&>())) {
  using Out = decltype(f(std::declval<const std::atomic<bool>&>()));
  std::atomic<bool> stop{false};
  std::optional<Out> out;
  std::optional<std::string> error;
  std::exception_ptr failure;
  std::mutex mutex;
  std::condition_variable changed;
  bool done = false;
  std::thread worker([&] {
    try {
      out.emplace(f(stop));
    } catch (const lmx::sim::ScenarioError& e) {
      error = e.what();
    } catch (const lmx::apps::amoebot::ModelError& e) {
      error = e.what();
    } catch (const lmx::apps::pp::ProtocolError& e) {
      error = e.what();
    } catch (...) {
      failure = std::current_exception();
    }
    const std::lock_guard lock(mutex);
    done = true;
    changed.notify_all();
  });
  bool interrupted = false;
  for (;;) {
    {
      py::gil_scoped_release release;
      std::unique_lock lock(mutex);
      changed.wait_for(lock, std::chrono::milliseconds(50), [&] { return done; });
      if (done) break;
    }
    if (PyErr_CheckSignals() != 0) {  // the exception is set; raised once the worker has ended
      interrupted = true;
      stop = true;
      break;
    }
  }
  {
    py::gil_scoped_release release;
    worker.join();
  }
  if (interrupted) throw py::error_already_set();
  if (failure) std::rethrow_exception(failure);
  if (error) raise(*error);
  return std::move(*out);
}

/// The scenario JSON: a base (JSON text, "" for the built-in default, or a TOML file), then the
/// overrides `key=value` exactly as `--set` applies them, validated as every input is.
std::string scenario(const std::string& base_json, const std::string& toml_path,
                     const std::vector<std::string>& overrides) {
  return guarded([&] {
    json j = !toml_path.empty()  ? lmx::sim::scenario_json_from_toml_file(toml_path)
             : base_json.empty() ? json::object()
                                 : json::parse(base_json, nullptr, false);
    if (j.is_discarded() || !j.is_object()) raise("scenario: expected a table of scenario keys");
    for (const auto& o : overrides) lmx::sim::apply_override(j, o);
    return lmx::sim::scenario_from_json(j).to_json().dump();
  });
}

/// Steps an engine to its end with the GIL released, a few rounds at a time; between them a
/// pending Ctrl-C (or any Python signal handler's exception) stops the run and propagates.
void run_to_end(lmx::sim::Engine& e) {
  for (;;) {
    bool more = true;
    {
      py::gil_scoped_release release;
      const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(50);
      while (more && std::chrono::steady_clock::now() < until)
        for (int i = 0; i < 16 && more; ++i) more = e.step();
    }
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    if (!more) return;
  }
}

/// RunOptions::threads from Python, range-checked as `lmx run --threads` does.
unsigned threads_option(long long threads) {
  if (threads < 1 || threads > lmx::sim::max_threads)
    raise("threads must be a whole number in 1.." + std::to_string(lmx::sim::max_threads) + ", got " +
          std::to_string(threads));
  return static_cast<unsigned>(threads);
}

std::string run(const std::string& scenario_json, const std::string& trace_path, long long threads) {
  const lmx::sim::Scenario s = guarded([&] { return lmx::sim::scenario_from_json(json::parse(scenario_json)); });
  std::optional<std::ofstream> trace;
  lmx::sim::RunOptions o;
  o.threads = threads_option(threads);
  if (!trace_path.empty()) {
    trace.emplace(trace_path, std::ios::binary);
    if (!*trace) raise("trace: cannot write " + trace_path);
    o.trace = &*trace;
  }
  auto engine = guarded([&] { return lmx::sim::make_engine(s, o); });
  run_to_end(*engine);
  json r = engine->finish();
  if (trace && !trace->flush()) raise("trace: writing " + trace_path + " failed");
  return r.dump();
}

/// lmx.Simulation: an engine under Python's control, with the application API and callbacks at
/// each Lock completion and Unlock, so that an application written in Python runs over lmx's locks.
class Simulation final : public lmx::sim::LockListener {
 public:
  Simulation(const std::string& scenario_json, py::object on_locked, py::object on_unlocked, long long threads)
      : on_locked_(std::move(on_locked)), on_unlocked_(std::move(on_unlocked)) {
    const lmx::sim::Scenario s = guarded([&] { return lmx::sim::scenario_from_json(json::parse(scenario_json)); });
    lmx::sim::RunOptions o;
    o.listener = this, o.threads = threads_option(threads);
    engine_ = guarded([&] { return lmx::sim::make_engine(s, o); });
  }
  void locked(lmx::sim::NodeId u, std::uint64_t ports) override {
    if (!on_locked_.is_none()) call(on_locked_, u, ports);
  }
  void unlock_called(lmx::sim::NodeId) override {}
  void unlocked(lmx::sim::NodeId u) override {
    if (!on_unlocked_.is_none()) call(on_unlocked_, u, std::uint64_t{0});
  }
  bool step() {
    const bool more = engine_->step();
    rethrow();
    return more;
  }
  /// Steps with the GIL released, 256 steps at a time (a callback takes it back); between two
  /// batches a pending Ctrl-C is raised, so the simulation stays usable afterwards.
  bool run_until(double round) {
    bool more = true;
    while (more && engine_->now() < round) {
      {
        py::gil_scoped_release release;
        for (unsigned i = 0; i < 256 && more && engine_->now() < round && !failed_; ++i) more = engine_->step();
      }
      rethrow();
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    }
    return more;
  }
  std::string finish() {
    json r = engine_->finish();
    rethrow();
    return r.dump();
  }
  lmx::sim::Engine& engine() { return *engine_; }

 private:
  void call(py::object& f, lmx::sim::NodeId u, std::uint64_t ports) {
    if (failed_) return;
    const py::gil_scoped_acquire acquire;  // run_until steps without the GIL
    try {
      if (ports == 0)
        f(u);
      else
        f(u, ports);
    } catch (py::error_already_set& e) {
      // An exception in a callback ends the run and reaches the caller of step().
      error_.emplace(std::move(e));
      failed_ = true;
      engine_->end_run();
    }
  }
  void rethrow() {
    if (error_) {
      py::error_already_set e = std::move(*error_);
      error_.reset();
      failed_ = false;
      throw e;
    }
  }
  std::unique_ptr<lmx::sim::Engine> engine_;
  py::object on_locked_, on_unlocked_;
  std::optional<py::error_already_set> error_;
  bool failed_ = false;  // error_ is set (read without the GIL)
};

std::string check(const std::string& variant, unsigned nodes, const std::string& edges, unsigned delta, unsigned k,
                  const std::string& locks, unsigned max_changes, bool lock_subsets, bool safety_only,
                  std::uint64_t max_states, double max_seconds) {
  namespace ck = lmx::check;
  ck::Instance inst;
  if (!lmx::core::parse_variant(variant, inst.variant)) raise("unknown variant " + lmx::sim::printable(variant));
  inst.nodes = nodes, inst.delta = delta, inst.k = k, inst.max_changes = max_changes;
  inst.lock_subsets = lock_subsets;
  if (locks == "unbounded") {
    inst.locks = ck::unbounded_locks;
  } else {
    try {
      inst.locks = static_cast<unsigned>(std::stoul(locks));
    } catch (const std::exception&) {
      raise("locks must be 1..15 or unbounded, not " + lmx::sim::printable(locks));
    }
    if (inst.locks < 1 || inst.locks > 15) raise("locks must be 1..15 or unbounded, not " + locks);
  }
  if (auto e = ck::parse_edges(edges, inst.edges); !e.empty()) raise(e);
  if (auto e = ck::validate(inst); !e.empty()) raise(e);
  ck::Options opt;
  opt.liveness = !safety_only;
  opt.max_states = max_states;
  opt.max_seconds = max_seconds;
  const ck::Result r = interruptible([&](const std::atomic<bool>& stop) {
    ck::Options o = opt;
    o.stop = &stop;
    return ck::check(inst, o);
  });
  json j = {{"instance", ck::describe(inst)},
            {"verdict", ck::to_string(r.verdict)},
            {"states", r.states},
            {"transitions", r.transitions},
            {"seconds", r.seconds},
            {"cpu_seconds", r.cpu_seconds},
            {"bytes_per_state", r.bytes_per_state},
            {"max_depth", r.max_depth},
            {"limit", ck::to_string(r.limit)},
            {"violations", json::array()}};
  for (const auto& v : r.violations)
    j["violations"].push_back({{"kind", ck::to_string(v.kind)},
                               {"nodes", v.nodes},
                               {"detail", v.detail},
                               {"depth", v.depth},
                               {"trace", v.trace}});
  return j.dump();
}

std::string amoebot_run(const std::string& algorithm, std::uint32_t n, double hole_prob, std::uint64_t seed,
                        const std::string& execution, const std::string& scenario_json, std::uint64_t max_rounds,
                        bool one_at_a_time, const std::string& trace_path) {
  namespace am = lmx::apps::amoebot;
  const am::Algorithm* alg = am::find_algorithm(algorithm);
  if (alg == nullptr) raise("algorithm: unknown algorithm '" + lmx::sim::printable(algorithm) + "'");
  if (n == 0) raise("n: at least 1 amoebot");
  if (!(hole_prob >= 0 && hole_prob < 1)) raise("hole_prob: expected a number in [0, 1)");
  if (execution == "sequential") {
    am::RunConfig cfg;
    cfg.n = n, cfg.hole_prob = hole_prob, cfg.seed = seed;
    const am::Result r = interruptible([&](const std::atomic<bool>& stop) {
      am::RunConfig c = cfg;
      c.stop = &stop;
      return am::run_sequential(*alg, c);
    });
    return am::to_json(r).dump();
  }
  if (execution != "locks") raise("execution: sequential or locks, not '" + lmx::sim::printable(execution) + "'");
  am::LocksConfig cfg;
  cfg.n = n, cfg.hole_prob = hole_prob, cfg.seed = seed, cfg.max_rounds = max_rounds;
  cfg.one_at_a_time = one_at_a_time;
  cfg.scenario = json::parse(scenario_json.empty() ? "{}" : scenario_json);
  std::optional<std::ofstream> trace;
  if (!trace_path.empty()) {
    trace.emplace(trace_path, std::ios::binary);
    if (!*trace) raise("trace: cannot write " + trace_path);
    cfg.trace = &*trace;
  }
  am::LocksStats stats;
  const am::Result r = interruptible([&](const std::atomic<bool>& stop) {
    am::LocksConfig c = cfg;
    c.stop = &stop;
    return am::run_locks(*alg, c, &stats);
  });
  if (trace && !trace->flush()) raise("trace: writing " + trace_path + " failed");
  return am::to_json(r, stats).dump();
}

/// A population protocol run; the history's rows go back as a list of lists with the states.
std::string pp_run(const std::string& protocol_name_or_path, const std::string& protocol_toml,
                   const std::string& scheduler, std::uint64_t agents, std::uint64_t seed,
                   const std::string& scenario_json, double max_time, double history_every) {
  namespace pp = lmx::apps::pp;
  pp::Protocol p = guarded([&] {
    return protocol_toml.empty() ? pp::load_protocol(protocol_name_or_path)
                                 : pp::protocol_from_toml(protocol_toml, "protocol");
  });
  pp::RunConfig c;
  const auto kind = pp::scheduler_from_word(scheduler);
  if (!kind) raise("scheduler: one of sequential, sequential-graph, lock-neighbourhood, lock-pair");
  c.scheduler = *kind;
  c.agents = agents != 0 ? agents : p.agents;
  c.seed = seed;
  if (!scenario_json.empty()) {
    json j = json::parse(scenario_json);
    j["nodes"] = c.agents < 2 ? 2 : c.agents;
    if (!j.contains("rounds")) j["rounds"] = 1000000;
    c.scenario = guarded([&] { return lmx::sim::scenario_from_json(j); });
  }
  c.max_time = max_time;
  c.history_every = history_every;
  const pp::Result r = interruptible([&](const std::atomic<bool>& stop) {
    pp::RunConfig rc = c;
    rc.stop = &stop;
    return pp::run(p, rc);
  });
  json j = pp::to_json(p, r);
  json rows = json::array();
  for (const pp::HistoryRow& row : r.history) {
    json line = {row.parallel_time, row.interactions, row.round};
    for (auto count : row.counts) line.push_back(count);
    rows.push_back(line);
  }
  j["history"] = {{"columns", json::array({"parallel_time", "interactions", "round"})}, {"rows", rows}};
  for (const auto& s : p.states) j["history"]["columns"].push_back(s);
  return j.dump();
}

}  // namespace

PYBIND11_MODULE(_lmx, m) {
  m.doc() = "lmx's library for Python (docs/python.md); use the lmx package, not this module";
  lmx_error = PyErr_NewExceptionWithDoc("lmx.Error", "Bad input to lmx: the message is the CLI's one line.",
                                        PyExc_ValueError, nullptr);
  m.attr("Error") = py::handle(lmx_error);
  m.def("scenario", &scenario, py::arg("base_json"), py::arg("toml_path"), py::arg("overrides"));
  m.def("apply_override", [](const std::string& j, const std::string& assignment) {
    return guarded([&] {
      json x = json::parse(j);
      lmx::sim::apply_override(x, assignment);
      return x.dump();
    });
  });
  m.def("run", &run, py::arg("scenario_json"), py::arg("trace_path") = "", py::arg("threads") = 1);
  m.def("check", &check);
  m.def("amoebot_run", &amoebot_run);
  m.def("amoebot_algorithms", [] {
    std::vector<std::string> names;
    for (const auto* a : lmx::apps::amoebot::algorithms()) names.push_back(a->name);
    return names;
  });
  m.def("pp_run", &pp_run);
  m.def("pp_protocols", [] {
    std::vector<std::string> names;
    for (const auto& s : lmx::apps::pp::shipped_protocols()) names.emplace_back(s.name);
    return names;
  });
  py::class_<Simulation>(m, "Simulation")
      .def(py::init<const std::string&, py::object, py::object, long long>())
      .def("step", &Simulation::step)
      .def("run_until", &Simulation::run_until)
      .def("finish", &Simulation::finish)
      .def("now", [](Simulation& s) { return s.engine().now(); })
      .def("request_lock",
           [](Simulation& s, lmx::sim::NodeId u, std::optional<std::uint64_t> ports) {
             return ports ? s.engine().request_lock(u, *ports) : s.engine().request_lock(u);
           })
      .def("request_unlock", [](Simulation& s, lmx::sim::NodeId u) { return s.engine().request_unlock(u); })
      .def("connect", [](Simulation& s, lmx::sim::NodeId u, unsigned pu, lmx::sim::NodeId v,
                         unsigned pv) { return s.engine().connect(u, lmx::core::Port(pu), v, lmx::core::Port(pv)); })
      .def("cut", [](Simulation& s, lmx::sim::NodeId u, unsigned p) { return s.engine().cut(u, lmx::core::Port(p)); })
      .def("move", [](Simulation& s, lmx::sim::NodeId u, double x, double y) { s.engine().move(u, x, y); })
      .def("far_end",
           [](Simulation& s, lmx::sim::NodeId u, unsigned p) -> std::optional<std::pair<lmx::sim::NodeId, unsigned>> {
             const lmx::sim::Link l = s.engine().far_end(u, lmx::core::Port(p));
             if (l.node == lmx::sim::no_node) return std::nullopt;
             return std::pair{l.node, unsigned(l.port)};
           })
      .def("node",
           [](Simulation& s, lmx::sim::NodeId u) {
             const lmx::sim::NodeView v = s.engine().node(u);
             py::dict d;
             d["lock_port"] = v.lock_port == lmx::core::no_port ? py::object(py::none()) : py::int_(v.lock_port);
             d["state"] = std::string(lmx::core::to_string(v.state));
             d["phase"] = std::string(lmx::core::to_string(v.phase));
             d["lock_set"] = v.lock_set, d["neighbours"] = v.neighbours;
             d["locks_completed"] = v.locks_completed;
             return d;
           })
      .def("violations", [](Simulation& s) {
        py::list out;
        for (const auto& v : s.engine().violations()) {
          py::dict d;
          d["property"] = v.property, d["round"] = v.round, d["nodes"] = py::cast(v.nodes), d["detail"] = v.detail;
          out.append(d);
        }
        return out;
      });
}
