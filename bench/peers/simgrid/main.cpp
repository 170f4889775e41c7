// lmx_simgrid_peer: `lmx bench`'s whole-run workload with lmx::core's protocol run by SimGrid S4U
// actors instead of lmx's simulator (README.md): one actor per node, one mailbox per (node, port),
// the core's one-byte message as the payload; the same graph (lmx's generator and port choice, read
// from an lmx engine built for the same scenario), workload, adversary and seed.
//
//   lmx_simgrid_peer [--nodes N] [--rounds R] [--p P] [--seed S] [--k K] [--variant V] [--json]
//                    [--cfg=simgrid/key:value ...]

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <simgrid/s4u.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "lmx/core/protocol.hpp"
#include "lmx/sim/simulation.hpp"

namespace {

namespace sg4 = simgrid::s4u;
using lmx::core::Action;
using lmx::core::InitiatorState;
using lmx::core::Port;
using lmx::sim::NodeId;

// `lmx bench`'s scenario (tools/lmx/cmd_bench.cpp): Delta = 8; by default K = 4 and the repaired
// variant (--k, --variant: e.g. for locks that complete, as in its lock workload).
constexpr unsigned delta = 8;
constexpr unsigned ports = delta + 1;  // 0 (the self-channel) .. Delta
using Word = std::uint16_t;            // the register width lmx picks for Delta = 8
static_assert(lmx::core::register_bits_for(delta) == 16);
using Ports = lmx::core::PortSet<Word>;
using State = lmx::core::NodeState<Word>;

/// SimGrid's settings for this model, placed before the user's --cfg options (which override
/// them). Constant network: every message takes `latency-factor` seconds whatever the platform, so
/// with rounds of one second a message sent in round i is receivable from round i + 1, as in lmx's
/// semi-synchronous engine; it is also SimGrid's cheapest network model (no bandwidth sharing).
/// Stacks of 16 KiB (SimGrid's manual: its Chord example runs with 16 KiB; this actor overflows
/// 4 KiB and runs in 8 KiB, checked with guard pages), without guard pages: a guard page per actor
/// splits the stacks into more memory maps than Linux allows (65,530) beyond 32,000 actors.
constexpr const char* simgrid_defaults[] = {"--cfg=network/model:Constant", "--cfg=network/latency-factor:0.5",
                                            "--cfg=contexts/stack-size:16", "--cfg=contexts/guard-size:0",
                                            "--log=xbt_cfg.thres:warning"};

/// A node's random stream (activation gaps, the adversary's picks, priority draws): splitmix64
/// from the seed and the node, so that each actor draws alone whatever order SimGrid runs them in.
class Rng {
 public:
  Rng(std::uint64_t seed, NodeId u) : x_(seed ^ (0xD1B54A32D192ED03ull * (std::uint64_t{u} + 1))) {}
  std::uint64_t next() {
    std::uint64_t z = (x_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  unsigned below(unsigned bound) { return static_cast<unsigned>(((next() >> 32) * bound) >> 32); }
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  /// Rounds without activation before the next activated one (each round independently with p).
  double gap(double p) { return p >= 1 ? 0.0 : std::floor(std::log(1.0 - unit()) / std::log1p(-p)); }

 private:
  std::uint64_t x_;
};

/// The payloads: a message is a pointer to its byte in this table (SimGrid passes pointers, and
/// these outlive every communication), with a simulated size of one byte.
std::uint8_t wire[256];

/// Everything the actors share: the graph as mailboxes, the configuration and the counters.
struct World {
  explicit World(lmx::core::Config c) : protocol(c) {}
  lmx::core::Protocol<Word> protocol;
  double rounds = 0, p = 0;
  std::uint64_t seed = 0;
  std::vector<sg4::Mailbox*> inbox;   ///< [u * ports + p]: where u receives on port p
  std::vector<sg4::Mailbox*> outbox;  ///< [u * ports + p]: the far end's inbox (nullptr: no edge)
  std::vector<Word> neighbours;       ///< N(u): ports 1..Delta holding an edge
  std::uint64_t actions = 0, locks_completed = 0, sent = 0, lost = 0, refused = 0;
};

/// Sends one group; each send's Comm is kept in `sending` until the node's next activation.
void send(World& w, NodeId u, const lmx::core::Send<Word>& group, std::vector<sg4::CommPtr>& sending) {
  void* payload = &wire[lmx::core::encode(group.message)];
  for (Port p : group.ports) {
    sg4::Mailbox* to = w.outbox[std::size_t{u} * ports + p];
    ++w.sent;
    if (to == nullptr) {  // a port without an edge: lost at once, as in lmx
      ++w.lost;
      continue;
    }
    sending.push_back(to->put_async(payload, 1));
  }
}

/// One activation: the adversary picks one enabled option uniformly (a due Lock or Unlock call,
/// a useful guarded action, or a delivery), as lmx's engine does (src/sim/engine.cpp, activate).
void activate(World& w, NodeId u, State& s, Rng& rng, std::vector<sg4::CommPtr>& sending) {
  const lmx::core::Context<Word> ctx{Ports{}, Ports(w.neighbours[u])};  // D is empty: the graph is static
  lmx::core::ActionSet guarded = lmx::core::guards_holding(s, w.protocol.config().variant);
  if (guarded.contains(Action::clean_up) && !lmx::core::clean_up_changes_without_d(s)) guarded.erase(Action::clean_up);
  // The ports holding a received message; a delivery takes the oldest on a port drawn uniformly.
  unsigned ready[ports], waiting = 0;
  for (unsigned p = 0; p < ports; ++p)
    if (const sg4::Mailbox* box = w.inbox[std::size_t{u} * ports + p]; box != nullptr && box->ready())
      ready[waiting++] = p;
  // The workload: idle and hold times 0, so Lock is due whenever u is idle, Unlock once it is locked.
  const bool call = s.state == InitiatorState::idle || s.state == InitiatorState::locked;
  const unsigned options = guarded.size() + (waiting ? 1u : 0u) + (call ? 1u : 0u);
  if (options == 0) return;
  unsigned pick = options == 1 ? 0 : rng.below(options);
  auto draw = [&rng](unsigned bound) { return rng.below(bound); };
  lmx::core::Effects<Word> fx;
  if (call && pick-- == 0) {
    fx = s.state == InitiatorState::idle ? w.protocol.lock(s, ctx) : w.protocol.unlock(s, ctx);
  } else if (waiting && pick-- == 0) {
    const Port p = static_cast<Port>(ready[waiting == 1 ? 0 : rng.below(waiting)]);
    const std::uint8_t byte = *w.inbox[std::size_t{u} * ports + p]->get<std::uint8_t>();
    const lmx::core::Decoded d = lmx::core::decode(byte, w.protocol.config().k);
    if (!d.ok()) {
      ++w.refused;
      return;
    }
    fx = w.protocol.step(s, lmx::core::Activation{lmx::core::receive_action(d.message.kind), p, d.message}, ctx,
                         lmx::core::PriorityDraw::from(draw));
  } else {
    for (Action a : lmx::core::guarded_actions)
      if (guarded.contains(a) && pick-- == 0) {
        fx = w.protocol.step(s, lmx::core::Activation{a}, ctx, lmx::core::PriorityDraw::from(draw));
        break;
      }
  }
  if (fx.status != lmx::core::Status::ok) {
    ++w.refused;
    return;
  }
  ++w.actions;
  w.locks_completed += fx.lock_acquired;
  for (unsigned g = 0; g < fx.send_count; ++g) send(w, u, fx.sends[g], sending);
}

/// A node's actor: its state lives on its stack; it sleeps until each round it is activated in.
void node(World& w, NodeId u) {
  State s;
  Rng rng(w.seed, u);
  // The sends of the last activation, completed (Comm::wait, no waiting: a message takes half a
  // round) at the next one. Not detach(): SimGrid 3.32 keeps detached comms in one list of the
  // maestro and finds each in it when it completes, a cost quadratic in the nodes (a set since
  // SimGrid 3.34).
  std::vector<sg4::CommPtr> sending;
  auto complete_sends = [&sending] {
    for (const sg4::CommPtr& comm : sending) comm->wait();
    sending.clear();
  };
  for (double round = rng.gap(w.p); round < w.rounds; round += 1 + rng.gap(w.p)) {
    sg4::this_actor::sleep_until(round);
    complete_sends();
    activate(w, u, s, rng, sending);
  }
  complete_sends();
}

/// VmHWM or VmRSS of this process, in bytes.
std::uint64_t status_bytes(std::string_view field) {
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == field) {
      std::uint64_t kib = 0;
      status >> kib;
      return kib * 1024;
    }
    status.ignore(1 << 12, '\n');
  }
  return 0;
}

/// Starts the peak (VmHWM) anew at the current RSS (Linux >= 4.0), so that the lmx engine used to
/// build the graph is not counted; false if the kernel refuses.
bool reset_peak_rss() {
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";
  clear.flush();
  return static_cast<bool>(clear);
}

[[noreturn]] void usage(const std::string& problem) {
  std::cerr << "lmx_simgrid_peer: " << problem
            << "\nusage: lmx_simgrid_peer [--nodes N] [--rounds R] [--p P] [--seed S] [--k K] "
               "[--variant paper|repaired|fast] [--json] [--cfg=KEY:VALUE ...]\n";
  std::exit(2);
}

std::uint64_t whole(const char* text, const char* option, std::uint64_t lo, std::uint64_t hi) {
  char* end = nullptr;
  const unsigned long long x = std::strtoull(text, &end, 10);
  if (*text < '0' || *text > '9' || *end != '\0' || x < lo || x > hi)
    usage(std::string(option) + " must be a whole number in " + std::to_string(lo) + ".." + std::to_string(hi));
  return x;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<char*> args{argv[0]};
  for (const char* option : simgrid_defaults) args.push_back(const_cast<char*>(option));
  args.insert(args.end(), argv + 1, argv + argc);
  int count = static_cast<int>(args.size());
  args.push_back(nullptr);
  sg4::Engine engine(&count, args.data());  // takes the --cfg and --log options out

  std::uint32_t nodes = 1000;
  unsigned k = 4;
  lmx::core::Variant variant = lmx::core::Variant::repaired;
  std::uint64_t rounds = 20, seed = 1;
  double p = 0.5;
  bool as_json = false;
  for (int i = 1; i < count; ++i) {
    const std::string_view arg = args[i];
    const char* value = i + 1 < count ? args[i + 1] : nullptr;
    if (arg == "--json") {
      as_json = true;
      continue;
    }
    if (arg == "--help" || arg == "-h") usage("lmx::core's protocol as SimGrid actors, lmx bench's workload");
    if (value == nullptr) usage("unknown option or missing value: " + std::string(arg));
    if (arg == "--nodes")
      nodes = static_cast<std::uint32_t>(whole(value, "--nodes", 2, 10'000'000));
    else if (arg == "--rounds")
      rounds = whole(value, "--rounds", 1, 4'000'000);
    else if (arg == "--seed")
      seed = whole(value, "--seed", 0, UINT64_MAX);
    else if (arg == "--k")
      k = static_cast<unsigned>(whole(value, "--k", lmx::core::k_min, lmx::core::k_max));
    else if (arg == "--variant") {
      if (!lmx::core::parse_variant(value, variant)) usage("--variant must be paper, repaired or fast");
    } else if (arg == "--p") {
      char* end = nullptr;
      p = std::strtod(value, &end);
      if (*end != '\0' || !(p >= 1e-6 && p <= 1)) usage("--p must be a number in 0.000001..1");
    } else
      usage("unknown option " + std::string(arg));
    ++i;
  }

  const auto t0 = std::chrono::steady_clock::now();
  World w(lmx::core::Config{delta, k, variant});
  w.rounds = double(rounds), w.p = p, w.seed = seed;
  // The graph of `lmx bench --nodes N --seed S`: lmx's engine for that scenario generates the
  // random regular graph and picks the ports. far[u * ports + q] is the inbox index of the far end
  // of u's port q (none: no edge); the engine is dropped before SimGrid starts.
  constexpr std::uint32_t none = UINT32_MAX;
  std::vector<std::uint32_t> far(std::size_t{nodes} * ports, none);
  w.neighbours.assign(nodes, 0);
  std::uint64_t edges = 0;
  {
    lmx::sim::Scenario s;
    s.name = "bench", s.nodes = nodes, s.delta = delta, s.engine = lmx::sim::EngineKind::semi_sync;
    s.rounds = rounds, s.k = k, s.variant = variant, s.seed = seed, s.activation.p = p;
    s.topology.kind = lmx::sim::TopologyKind::regular, s.workload.idle = 0, s.workload.hold = 0;
    try {
      s = lmx::sim::scenario_from_json(s.to_json());
    } catch (const lmx::sim::ScenarioError& e) {
      usage(e.what());
    }
    const auto lmx_engine = lmx::sim::make_engine(s);
    for (NodeId u = 0; u < nodes; ++u) {
      far[std::size_t{u} * ports] = static_cast<std::uint32_t>(u * ports);  // port 0: to itself
      for (Port q = 1; q <= delta; ++q)
        if (const lmx::sim::Link l = lmx_engine->far_end(u, q); l.node != lmx::sim::no_node) {
          far[std::size_t{u} * ports + q] = static_cast<std::uint32_t>(l.node * ports + l.port);
          w.neighbours[u] = static_cast<Word>(w.neighbours[u] | (1u << q));
          ++edges;
        }
    }
    edges /= 2;
  }
  // From here on the peak RSS is the SimGrid model's (and the 36 bytes per node of `far`).
  const bool peak_reset = reset_peak_rss();
  // The platform: every actor on one host (the Constant network model ignores routes).
  auto* zone = sg4::create_full_zone("world");
  sg4::Host* host = zone->create_host("host", 1e9);
  zone->seal();
  w.inbox.assign(far.size(), nullptr), w.outbox.assign(far.size(), nullptr);
  for (std::size_t i = 0; i < far.size(); ++i)
    if (far[i] != none) w.inbox[i] = sg4::Mailbox::by_name(std::to_string(i / ports) + ":" + std::to_string(i % ports));
  for (std::size_t i = 0; i < far.size(); ++i)
    if (far[i] != none) w.outbox[i] = w.inbox[far[i]];
  std::vector<std::uint32_t>().swap(far);
  for (unsigned b = 0; b < 256; ++b) wire[b] = static_cast<std::uint8_t>(b);
  for (NodeId u = 0; u < nodes; ++u) {
    const sg4::ActorPtr actor = sg4::Actor::create(std::to_string(u), host, [&w, u] { node(w, u); });
    // u is the permanent receiver of its mailboxes, from before any send to after the last: a
    // message flows into the mailbox at the send, and ready() tells which ports hold one (a pending
    // get() per port would block the actor). Set here, not by the actor, whose neighbours may send
    // before it first runs; never unset, as neighbours may send after it ends.
    for (unsigned q = 0; q < ports; ++q)
      if (sg4::Mailbox* box = w.inbox[std::size_t{u} * ports + q]) box->set_receiver(actor);
  }
  const std::uint64_t rss_before_run = status_bytes("VmRSS:");
  const auto t1 = std::chrono::steady_clock::now();
  engine.run();
  const auto t2 = std::chrono::steady_clock::now();
  const double setup = std::chrono::duration<double>(t1 - t0).count(),
               wall = std::chrono::duration<double>(t2 - t1).count();
  const std::uint64_t peak = status_bytes("VmHWM:");
  const nlohmann::json out = {{"peer", "simgrid"},
                              {"simgrid_version", LMX_SIMGRID_VERSION},
                              {"nodes", nodes},
                              {"edges", edges},
                              {"seed", seed},
                              {"rounds", rounds},
                              {"p", p},
                              {"k", k},
                              {"variant", std::string(lmx::core::to_string(variant))},
                              {"actions", w.actions},
                              {"actions_per_second", wall > 0 ? double(w.actions) / wall : 0.0},
                              {"locks_completed", w.locks_completed},
                              {"messages_sent", w.sent},
                              {"messages_lost", w.lost},
                              {"refused", w.refused},
                              {"simulated_seconds", sg4::Engine::get_clock()},
                              {"peak_rss_bytes", peak},
                              {"bytes_per_node", double(peak) / nodes},
                              {"rss_before_run_bytes", rss_before_run},
                              {"peak_reset", peak_reset},
                              {"setup_seconds", setup},
                              {"run_seconds", wall}};
  if (as_json) {
    std::cout << out.dump() << "\n";
  } else {
    std::printf("lmx_simgrid_peer: %u nodes (%llu edges), random graph Delta=8, semi-sync random p=%g, %llu rounds\n",
                nodes, static_cast<unsigned long long>(edges), p, static_cast<unsigned long long>(rounds));
    std::printf("  %llu actions in %.2f s: %.3g actions/s; %llu locks completed, %llu messages\n",
                static_cast<unsigned long long>(w.actions), wall, double(w.actions) / wall,
                static_cast<unsigned long long>(w.locks_completed), static_cast<unsigned long long>(w.sent));
    std::printf("  peak RSS %.1f MiB (%.0f bytes per node%s), setup %.2f s\n", double(peak) / (1 << 20),
                double(peak) / nodes, peak_reset ? "" : ", graph construction included", setup);
  }
  return w.refused == 0 ? 0 : 1;
}
