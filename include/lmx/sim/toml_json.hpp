// TOML values as JSON, for the files that are TOML on disk and JSON inside (scenarios, sweeps):
// tables, arrays, integers, floats, booleans and strings map one to one; dates and times have no
// JSON form, and the caller says where one was found. Needs toml++ (Debian libtomlplusplus-dev).
#pragma once

#include <toml++/toml.h>

#include <functional>
#include <nlohmann/json.hpp>

namespace lmx::sim {

/// The JSON form of `value`. For a date or time anywhere inside it, calls `on_date` with that
/// node, which must throw (its error names the place, in the caller's terms).
nlohmann::json json_from_toml(const toml::node& value, const std::function<void(const toml::node&)>& on_date);

}  // namespace lmx::sim
