// The built web pages, embedded into the binary at build time (tools/lmx/embed_web.cmake).
#pragma once

#include <string_view>

namespace lmx::web {
/// False when the binary was built without web/dist (then both pages are empty).
bool built();
/// The trace viewer: one self-contained HTML page (web/src/viewer).
std::string_view viewer_html();
/// The report template (web/src/report); its data block holds the placeholder below.
std::string_view report_html();
inline constexpr std::string_view report_placeholder = "__LMX_REPORT_DATA__";
/// The sweep report template (web/src/sweep); empty when the web build had no sweep page.
std::string_view sweep_html();
inline constexpr std::string_view sweep_placeholder = "__LMX_SWEEP_DATA__";
/// What to tell a user whose binary has no pages.
inline constexpr std::string_view not_built_hint =
    "this lmx was built without the web pages: run `bash scripts/setup.sh` (it runs `npm ci` and "
    "`npm run build` in web/), then build again";
}  // namespace lmx::web
