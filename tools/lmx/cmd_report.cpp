// `lmx report RUN.json [--trace TRACE] -o report.html`: one self-contained HTML report of a run.
#include <fmt/format.h>

#include "command.hpp"
#include "output.hpp"
#include "report.hpp"

namespace {

const lmx::cli::Register report_command{
    {"report", 60, [](CLI::App& app, int&) {
       auto* cmd = app.add_subcommand("report", "Write a self-contained HTML report of an `lmx run --json` summary");
       static std::string run_path, trace_path, out_path = "report.html";
       cmd->add_option("RUN", run_path, "Run summary written by `lmx run --json`")->required();
       cmd->add_option("--trace", trace_path,
                       "Trace of the same run (`lmx run --trace`): exact latencies and violations");
       cmd->add_option("-o,--output", out_path, "HTML file to write")->capture_default_str();
       cmd->callback([] {
         lmx::cli::refuse_overwriting_inputs("-o", out_path, {run_path, trace_path});
         try {
           const auto run = lmx::report::read_run(run_path);
           std::optional<std::filesystem::path> trace;
           if (!trace_path.empty()) trace = trace_path;
           lmx::report::write_report(run, trace, out_path);
         } catch (const lmx::report::Error& e) {
           throw lmx::cli::Failure(e.what());
         }
         fmt::print("lmx report: wrote {}\n", out_path);
       });
     }}};

}  // namespace
