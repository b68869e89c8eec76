// tessera-devd's server: serves registry devices over TCP to remote backends (docs/devd.md).
// Boost.Asio: one network thread runs every connection asynchronously; device operations
// (which block: an emulator computing, a card's DMA) run on a pool with a thread per device,
// so a slow or dead client never holds up another.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tessera/registry/registry.h"

namespace tessera::devd {

struct ServedDevice {
  std::string name;  // what clients lease (remote://HOST:PORT/NAME)
  std::string uri;   // what the registry builds, e.g. emu-native
};

struct ServerOptions {
  std::vector<ServedDevice> devices;
  std::string listen = "127.0.0.1";  // the address to bind: loopback unless told otherwise
  uint16_t port = 0;                 // 0: any free port (port() says which)
  std::string token;                 // the shared secret every client must present
  // TLS (both set): the server's certificate chain and private key, PEM files. Every
  // connection then starts with a TLS handshake (TLS 1.2 or later) before HELLO.
  std::string tls_cert, tls_key;
  uint32_t max_frame = 8u << 20;  // the largest frame body accepted
  unsigned max_clients = 64;      // connections beyond are refused
  // A connection must finish HELLO within `handshake_timeout`; a frame, once begun, within
  // `frame_timeout`; between frames a client may be silent for `idle_timeout`.
  std::chrono::milliseconds handshake_timeout{10000};
  std::chrono::milliseconds frame_timeout{30000};
  std::chrono::milliseconds idle_timeout{600000};
  std::chrono::milliseconds max_lease_wait{600000};  // a LEASE waits in the queue at most this
  std::chrono::milliseconds max_wait_slice{1000};    // one WAIT blocks a device thread at most this
  registry::Options device_options;                  // threads, console of the served devices
  std::FILE* log = stderr;  // one line per connection event (nullptr: none)
};

// Counters for tests and the log.
struct ServerStats {
  uint64_t connections = 0, refused = 0, auth_failures = 0, protocol_errors = 0, timeouts = 0;
  uint64_t leases = 0, releases = 0, requests = 0;
};

class Server {
 public:
  // Opens every device (the registry checks each URI) and binds. Throws std::runtime_error
  // naming what failed.
  explicit Server(ServerOptions options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  uint16_t port() const;
  // Serves until stop(); call from one thread.
  void run();
  // Thread-safe: closes every connection and makes run() return.
  void stop();
  ServerStats stats() const;
  // How many leases are held now (tests: a dead client's lease is released).
  unsigned leases_held() const;

  struct Impl;  // the server's insides (src/server_impl.h)

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace tessera::devd
