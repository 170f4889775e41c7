// The sequential scheduler on the complete graph (docs/population.md, "Schedulers"): a uniformly
// random ordered pair of distinct agents per interaction, one byte per agent, no engine.
#include <algorithm>
#include <cstdint>

#include "schedulers.hpp"

namespace lmx::apps::pp::detail {

// ------------------------------------------------------------------ sequential (complete graph)
void run_sequential(const Protocol& p, const RunConfig& cfg, Result& r) {
  const std::uint64_t n = r.agents;
  if (n > 0xFFFFFFFFull) throw ProtocolError("agents: the sequential scheduler takes at most 2^32-1 agents");
  sim::Rng rng(cfg.seed, sim::agent_stream), outcome_rng(cfg.seed, sim::application_stream);
  std::vector<AgentState> agents = place(r.initial_counts, n, rng);
  r.memory_bytes = agents.capacity();
  Census census(p, r.initial_counts);
  Sampler sampler{cfg.history_every > 0 ? std::max<std::uint64_t>(1, std::uint64_t(cfg.history_every * double(n))) : 0};
  sampler.maybe(r, census, 0, 0, true);
  const auto limit = static_cast<std::uint64_t>(std::min(cfg.max_time * double(n), 1.8e19));
  const std::size_t s = p.states.size();
  const std::uint32_t* table = p.table().data();
  AgentState* ag = agents.data();
  const auto n32 = static_cast<std::uint32_t>(n), m32 = static_cast<std::uint32_t>(n - 1);
  std::uint64_t done = 0, effective = 0;
  r.converged = census.holds();
  // Checked between batches: the stop flag and the history's next sample.
  while (!r.converged && done < limit) {
    if (cfg.stop && cfg.stop->load(std::memory_order_relaxed)) {
      r.interrupted = true;
      break;
    }
    std::uint64_t batch_end = std::min(limit, done + (std::uint64_t{1} << 20));
    if (sampler.every) batch_end = std::min(batch_end, sampler.next);
    for (; done < batch_end; ++done) {
      // One draw for both agents: the high half picks the initiator, the low half the responder
      // among the other n - 1 (Lemire's multiply-shift on 32-bit halves).
      const std::uint64_t x = rng.next();
      const auto i = static_cast<std::uint32_t>(((x >> 32) * n32) >> 32);
      auto j = static_cast<std::uint32_t>(((x & 0xFFFFFFFFu) * m32) >> 32);
      j += j >= i;
      const AgentState a = ag[i], b = ag[j];
      const auto [c, d] = interact(p, table, s, a, b, outcome_rng);
      if (c == a && d == b) continue;
      ag[i] = c, ag[j] = d;
      census.move(a, c), census.move(b, d);
      ++effective;
      if (census.holds()) {
        r.converged = true;
        ++done;
        break;
      }
    }
    sampler.maybe(r, census, done, 0);
  }
  r.interactions = done, r.effective_interactions = effective;
  r.final_counts = census.counts();
  sampler.maybe(r, census, done, 0, true);
}

}  // namespace lmx::apps::pp::detail
