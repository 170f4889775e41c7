// Maximal end components of a sub-MDP of the liveness graph (docs/checker.md, "P7 as a fair
// end-component problem"). Internal to lmx::check.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "graph.hpp"

namespace lmx::check::detail {

/// Maximal end components of the sub-MDP restricted to `in`, returned as a component id per
/// state (UINT32_MAX outside; the ids of the components found are 0, 1, ..., none unused), and
/// `allowed` per action.
///
/// Only components that changed are decomposed again: after an iteration every allowed action
/// stays inside its strongly connected component, so a component in which no action and no state
/// was dropped is final (it is strongly connected and closed), and states and actions dropped in
/// one component can only affect that component.
/// `round_started` (optional) is told each round's number (from 1) and the states it decomposes.
std::vector<std::uint32_t> end_components(const Graph& gr, std::vector<bool>& in, std::vector<bool>& allowed,
                                          const std::function<void(unsigned, std::size_t)>& round_started = {});

}  // namespace lmx::check::detail
