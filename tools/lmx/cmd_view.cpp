// `lmx view TRACE [--port N]`: serves the embedded trace viewer and the trace on 127.0.0.1 and
// prints the URL to open. Runs until interrupted; `--once` stops after the trace was served once
// (for scripts and tests).
#include <arpa/inet.h>
#include <fmt/format.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <thread>

#include "command.hpp"
#include "lmx/sim/scenario.hpp"
#include "lmx/trace/trace.hpp"
#include "web_assets.hpp"

namespace {

std::string url_escape(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~')
      out += static_cast<char>(c);
    else
      out += fmt::format("%{:02X}", c);
  }
  return out;
}

/// Sockets of this server: SO_REUSEADDR only (a restart may bind while old connections linger in
/// TIME_WAIT). cpp-httplib's default also sets SO_REUSEPORT, with which a second `lmx view` on the
/// same port binds too and the two share the connections.
void exclusive_socket_options(socket_t sock) {
  int yes = 1;
  setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
}

/// Binds 127.0.0.1:port the way the server will and lets go: 0 if that works, else the errno
/// (cpp-httplib only says that binding failed, not why).
int bind_error(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return errno;
  exclusive_socket_options(fd);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const int error = ::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) == 0 ? 0 : errno;
  ::close(fd);
  return error;
}

int serve(const std::filesystem::path& trace, int port, bool once) {
  namespace fs = std::filesystem;
  if (!lmx::web::built()) throw lmx::cli::Failure(std::string(lmx::web::not_built_hint));
  std::error_code ec;
  const std::string shown = lmx::sim::printable(trace.string());
  if (fs::is_directory(trace, ec)) throw lmx::cli::Failure(fmt::format("{}: is a directory, not a trace", shown));
  if (!fs::is_regular_file(trace, ec)) throw lmx::cli::Failure(fmt::format("{}: no such trace file", shown));
  const auto size = fs::file_size(trace, ec);
  if (ec) throw lmx::cli::Failure(fmt::format("cannot read {}: {}", shown, ec.message()));
  // Its header, checked before anything is served: a file that is not a trace is an error here,
  // as it is for lmx replay and lmx report, not a page that fails to load.
  {
    std::ifstream in(trace, std::ios::binary);
    if (!in) throw lmx::cli::Failure(fmt::format("cannot read {}", shown));
    try {
      const lmx::trace::Reader header(in, shown);
    } catch (const lmx::trace::Error& e) {
      throw lmx::cli::Failure(e.what());
    }
  }
  const std::string name = url_escape(trace.filename().string());

  httplib::Server server;
  // --once: a helper thread stops the server when the trace has been sent completely.
  std::mutex mutex;
  std::condition_variable wake;
  bool served = false, finished = false;
  std::thread stopper;
  if (once)
    stopper = std::thread([&] {
      std::unique_lock lock(mutex);
      wake.wait(lock, [&] { return served || finished; });
      if (served) server.stop();
    });
  auto finish = [&] {
    {
      std::lock_guard lock(mutex);
      finished = true;
    }
    wake.notify_all();
    if (stopper.joinable()) stopper.join();
  };
  server.Get("/", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(std::string(lmx::web::viewer_html()), "text/html; charset=utf-8");
    res.set_header("Cache-Control", "no-store");
  });
  server.Get("/trace/" + name, [&](const httplib::Request&, httplib::Response& res) {
    auto file = std::make_shared<std::ifstream>(trace, std::ios::binary);
    if (!*file) {
      res.status = 404;
      res.set_content(fmt::format("cannot read {}", shown), "text/plain");
      return;
    }
    res.set_header("Cache-Control", "no-store");
    res.set_content_provider(
        static_cast<std::size_t>(size), "application/x-ndjson",
        [file](std::size_t offset, std::size_t length, httplib::DataSink& sink) {
          std::vector<char> buffer(std::min<std::size_t>(length, 1 << 20));
          file->clear();
          file->seekg(static_cast<std::streamoff>(offset));
          file->read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
          const auto got = static_cast<std::size_t>(file->gcount());
          if (got == 0) return false;
          sink.write(buffer.data(), got);
          return true;
        },
        [&](bool success) {
          if (!success) return;
          {
            std::lock_guard lock(mutex);
            served = true;
          }
          wake.notify_all();
        });
  });
  if (once) server.set_keep_alive_max_count(1);  // no idle keep-alive connection delays the stop
  server.set_socket_options(exclusive_socket_options);
  const std::string host = "127.0.0.1";
  int bound = port;
  if (port != 0) {
    if (const int error = bind_error(port); error != 0) {
      finish();
      throw lmx::cli::Failure(error == EADDRINUSE
                                  ? fmt::format("port {} is in use: another server listens on {}:{} (choose another "
                                                "--port, or --port 0 for any free port)",
                                                port, host, port)
                                  : fmt::format("cannot listen on {}:{}: {}", host, port, std::strerror(error)));
    }
  }
  if (port == 0) {
    bound = server.bind_to_any_port(host);
  } else if (!server.bind_to_port(host, port)) {
    bound = -1;
  }
  if (bound < 0) {
    finish();
    throw lmx::cli::Failure(fmt::format("cannot listen on {}:{} (port {} is in use?)", host, port, port));
  }
  fmt::print("lmx view: serving {} ({} bytes)\n  open http://{}:{}/?trace=/trace/{}\n{}", shown, size, host, bound,
             name, once ? "  (--once: stops after the trace was loaded)\n" : "  (Ctrl-C to stop)\n");
  std::fflush(stdout);
  const bool ok = server.listen_after_bind();
  finish();
  if (!ok && !served) throw lmx::cli::Failure("the server stopped unexpectedly");
  return 0;
}

const lmx::cli::Register view_command{
    {"view", 65, [](CLI::App& app, int& exit_code) {
       auto* cmd = app.add_subcommand("view", "Serve the trace viewer for a trace on 127.0.0.1 and print its URL");
       static std::string trace;
       static int port = 8765;
       static bool once = false;
       cmd->add_option("TRACE", trace, "Trace (JSON Lines) from `lmx run --trace` or a checker counterexample")
           ->required();
       cmd->add_option("--port", port, "Port on 127.0.0.1 (0: any free port)")
           ->capture_default_str()
           ->check(CLI::Range(0, 65535));
       cmd->add_flag("--once", once, "Stop after the viewer has loaded the trace once");
       cmd->callback([&exit_code] { exit_code = serve(trace, port, once); });
     }}};

}  // namespace
