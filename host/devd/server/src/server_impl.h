// The server's insides, shared by server.cpp, session.cpp and leases.cpp.
#pragma once

#include <array>
#include <atomic>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <deque>
#include <list>
#include <memory>

#include "tessera/devd/protocol.h"
#include "tessera/devd/server.h"

namespace tessera::devd {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

class Session;

// One served device: who holds it, who waits for it.
struct Slot {
  ServedDevice served;
  std::unique_ptr<device::Device> device;  // null if reopening it failed
  Session* holder = nullptr;
  std::deque<std::weak_ptr<Session>> queue;
};

struct Counters {
  std::atomic<uint64_t> connections{0}, refused{0}, auth_failures{0}, protocol_errors{0},
      timeouts{0};
  std::atomic<uint64_t> leases{0}, releases{0}, requests{0};
};

struct Server::Impl {
  explicit Impl(ServerOptions options);
  void accept();
  void log(const std::string& who, const std::string& what);

  // Leases (leases.cpp).
  Slot* find_slot(const std::string& name);
  void release(Slot& slot);  // reset the device, grant the next in the queue

  ServerOptions o;
  bool tls = false;
  asio::ssl::context ssl{asio::ssl::context::tls_server};
  asio::io_context ioc;
  tcp::acceptor acceptor{ioc};
  std::deque<Slot> slots;  // stable addresses
  std::list<std::weak_ptr<Session>> sessions;
  Counters stats;
  std::atomic<unsigned> held{0};
  asio::thread_pool pool;  // last: joined first when the server goes
};

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(Server::Impl& server, tcp::socket sock);
  void start();
  // Closes the connection; a lease is released at once, or when the device operation in
  // flight finishes.
  void close(const std::string& why);
  // The queue gave this session the device it waits for (leases.cpp).
  bool waiting() const { return waiting_ && !closed_; }
  void grant(Slot& slot);

 private:
  void read_header();
  void read_body(uint32_t length);
  void handle();
  void dispatch(Request& r);
  void hello(const Hello& h);
  void lease(const Lease& l);
  void device_op(Request r);
  void reply(const Reply& r, bool close_after = false);
  void protocol_error(const std::string& what);
  void arm(std::chrono::milliseconds t, const char* what);
  // Runs f on the stream: TLS, or the plain socket under it.
  template <class F>
  void io(F&& f) {
    if (s_.tls)
      f(stream_);
    else
      f(stream_.next_layer());
  }

  Server::Impl& s_;
  asio::ssl::stream<tcp::socket> stream_;
  asio::steady_timer deadline_;
  asio::steady_timer lease_timer_;
  std::string peer_;
  std::array<std::byte, kFrameHeader> header_{};
  std::vector<std::byte> body_;
  bool authed_ = false, closed_ = false, busy_ = false, waiting_ = false;
  Slot* lease_ = nullptr;
};

// Runs one device request on `device` (on the pool): the reply, or an Error for a refusal.
Reply run_device_request(device::Device* device, Request& r, const ServerOptions& o);

}  // namespace tessera::devd
