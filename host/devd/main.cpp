// tessera-devd: serves devices of the registry over TCP to `tessera run --device
// remote://HOST:PORT[/NAME]` (docs/devd.md).
//
//   tessera-devd --token-file FILE [--device NAME=URI]... [--listen ADDR] [--port N]
//                [--threads N] [--max-clients N] [--max-frame BYTES] [--port-file FILE]
//                [--handshake-timeout-ms N] [--frame-timeout-ms N] [--idle-timeout-ms N]
//                [--tls-cert PEM --tls-key PEM]
#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <thread>

#include "tessera/devd/protocol.h"
#include "tessera/devd/server.h"
#include "tessera/devd/token.h"

int main(int argc, char** argv) {
  using namespace tessera;
  CLI::App app("tessera-devd: serves Tessera devices over TCP (docs/devd.md)");
  std::vector<std::string> devices;
  std::string token_file, port_file;
  devd::ServerOptions o;
  unsigned threads = 1;
  unsigned handshake_ms = 10000, frame_ms = 30000, idle_ms = 600000;
  app.add_option(
      "--device", devices,
      "NAME=URI: serve the registry's URI as NAME (default: emu0=emu-native); repeatable");
  app.add_option("--token-file", token_file,
                 "the shared token (16 to 256 characters; the file must be private, chmod 600)")
      ->required();
  app.add_option("--listen", o.listen,
                 "the address to listen on (default 127.0.0.1: loopback only)");
  app.add_option("--port", o.port, "the TCP port (default 7341; 0: any free port)")
      ->check(CLI::Range(0, 65535));
  app.add_option("--port-file", port_file,
                 "write the port listened on to this file once listening");
  app.add_option("--threads", threads, "host threads of each emulated device")
      ->check(CLI::Range(1u, 1024u));
  app.add_option("--max-clients", o.max_clients, "connections at once; more are refused")
      ->check(CLI::Range(1u, 100000u));
  app.add_option("--max-frame", o.max_frame, "the largest frame accepted, in bytes")
      ->check(CLI::Range(devd::kMinMaxFrame, 1u << 30));
  app.add_option("--handshake-timeout-ms", handshake_ms,
                 "a new connection must say HELLO within this")
      ->check(CLI::Range(1u, 3600000u));
  app.add_option("--frame-timeout-ms", frame_ms, "a frame, once begun, must arrive within this")
      ->check(CLI::Range(1u, 3600000u));
  app.add_option("--idle-timeout-ms", idle_ms,
                 "a client silent this long between frames is closed (its lease released)")
      ->check(CLI::Range(1u, 86400000u));
  app.add_option("--tls-cert", o.tls_cert,
                 "TLS: the server's certificate chain (PEM); clients then need --tls-ca")
      ->check(CLI::ExistingFile);
  app.add_option("--tls-key", o.tls_key, "TLS: the certificate's private key (PEM)")
      ->check(CLI::ExistingFile);
  o.port = 7341;
  CLI11_PARSE(app, argc, argv);

  try {
    o.token = devd::read_token_file(token_file, true);
    if (devices.empty()) devices.push_back("emu0=emu-native");
    for (const std::string& d : devices) {
      const size_t eq = d.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == d.size())
        throw std::runtime_error("--device '" + d + "': expected NAME=URI, e.g. emu0=emu-native");
      o.devices.push_back({d.substr(0, eq), d.substr(eq + 1)});
    }
    o.device_options.threads = threads;
    o.device_options.console = stderr;
    o.handshake_timeout = std::chrono::milliseconds(handshake_ms);
    o.frame_timeout = std::chrono::milliseconds(frame_ms);
    o.idle_timeout = std::chrono::milliseconds(idle_ms);

    // SIGINT and SIGTERM stop the server: blocked here (every thread inherits that), taken
    // by one thread with sigwait.
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &sigs, nullptr);

    const bool loopback = o.listen == "127.0.0.1" || o.listen == "::1";
    devd::Server server(o);
    const bool tls = !o.tls_cert.empty();
    std::fprintf(
        stderr, "tessera-devd: listening on port %u%s%s\n", server.port(), tls ? " with TLS" : "",
        loopback ? " (loopback only)"
        : tls    ? ""
                 : " (NOT loopback and no TLS: the token and data cross in clear; docs/devd.md)");
    if (!port_file.empty()) {
      std::ofstream f(port_file);
      f << server.port() << "\n";
      if (!f.flush()) throw std::runtime_error("--port-file '" + port_file + "': cannot write");
    }
    std::thread waiter([&] {
      int sig = 0;
      sigwait(&sigs, &sig);
      std::fprintf(stderr, "tessera-devd: signal %d, stopping\n", sig);
      server.stop();
    });
    server.run();
    // run() returns only after stop(); wake the waiter if it still waits (stop from elsewhere).
    pthread_kill(waiter.native_handle(), SIGTERM);
    waiter.join();
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tessera-devd: %s\n", e.what());
    return 1;
  }
}
