// The server: an acceptor, a Session per connection (session.cpp's protocol steps), the
// leased devices (leases.cpp). Everything but device operations runs on the one network
// thread, so the state here needs no locks; device operations run on the pool and post
// their replies back.
#include <stdexcept>

#include "server_impl.h"

namespace tessera::devd {

Server::Server(ServerOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
Server::~Server() = default;

Server::Impl::Impl(ServerOptions options)
    : o(std::move(options)), pool(std::max<size_t>(1, o.devices.size()) + 1) {
  if (o.devices.empty()) throw std::runtime_error("tessera-devd: no devices to serve");
  if (o.token.size() < 16)
    throw std::runtime_error("tessera-devd: the token must have at least 16 characters");
  if (o.max_frame < kMinMaxFrame)
    throw std::runtime_error("tessera-devd: the frame limit must be at least 64 KiB");
  if (o.tls_cert.empty() != o.tls_key.empty())
    throw std::runtime_error("tessera-devd: TLS needs both a certificate and a key");
  if (!o.tls_cert.empty()) {
    tls = true;
    ssl.set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                    asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 |
                    asio::ssl::context::no_tlsv1_1 | asio::ssl::context::single_dh_use);
    boost::system::error_code ec;
    ssl.use_certificate_chain_file(o.tls_cert, ec);
    if (ec)
      throw std::runtime_error("tessera-devd: TLS certificate '" + o.tls_cert +
                               "': " + ec.message());
    ssl.use_private_key_file(o.tls_key, asio::ssl::context::pem, ec);
    if (ec) throw std::runtime_error("tessera-devd: TLS key '" + o.tls_key + "': " + ec.message());
  }
  for (const ServedDevice& d : o.devices) {
    if (d.name.empty() || d.name.size() > kMaxName)
      throw std::runtime_error("tessera-devd: device name '" + d.name +
                               "' must have 1 to 64 characters");
    for (const Slot& s : slots)
      if (s.served.name == d.name)
        throw std::runtime_error("tessera-devd: two devices named '" + d.name + "'");
    Slot s;
    s.served = d;
    try {
      s.device = registry::open(d.uri, o.device_options);
    } catch (const std::exception& e) {
      throw std::runtime_error("tessera-devd: device '" + d.name + "': " + e.what());
    }
    slots.push_back(std::move(s));
  }
  boost::system::error_code ec;
  const auto addr = asio::ip::make_address(o.listen, ec);
  if (ec)
    throw std::runtime_error("tessera-devd: --listen '" + o.listen + "' is not an IP address");
  const tcp::endpoint ep(addr, o.port);
  acceptor.open(ep.protocol());
  acceptor.set_option(tcp::acceptor::reuse_address(true));
  acceptor.bind(ep, ec);
  if (ec)
    throw std::runtime_error("tessera-devd: cannot listen on " + o.listen + ":" +
                             std::to_string(o.port) + ": " + ec.message());
  acceptor.listen();
  accept();
}

void Server::Impl::accept() {
  acceptor.async_accept([this](boost::system::error_code ec, tcp::socket sock) {
    if (ec) {
      if (ec != asio::error::operation_aborted) log("-", "accept failed: " + ec.message());
      if (acceptor.is_open()) accept();
      return;
    }
    ++stats.connections;
    sessions.remove_if([](const std::weak_ptr<Session>& w) { return w.expired(); });
    if (sessions.size() >= o.max_clients) {
      ++stats.refused;
      log("-", "refused a connection: " + std::to_string(o.max_clients) + " clients already");
      boost::system::error_code ignored;
      sock.close(ignored);
    } else {
      auto s = std::make_shared<Session>(*this, std::move(sock));
      sessions.push_back(s);
      s->start();
    }
    accept();
  });
}

void Server::Impl::log(const std::string& who, const std::string& what) {
  if (o.log) std::fprintf(o.log, "tessera-devd: %s: %s\n", who.c_str(), what.c_str());
}

uint16_t Server::port() const { return impl_->acceptor.local_endpoint().port(); }

void Server::run() { impl_->ioc.run(); }

void Server::stop() {
  asio::post(impl_->ioc, [impl = impl_.get()] {
    boost::system::error_code ignored;
    impl->acceptor.close(ignored);
    for (auto& w : impl->sessions)
      if (auto s = w.lock()) s->close("the server stops");
    impl->ioc.stop();
  });
}

ServerStats Server::stats() const {
  const auto& s = impl_->stats;
  return {s.connections, s.refused, s.auth_failures, s.protocol_errors,
          s.timeouts,    s.leases,  s.releases,      s.requests};
}

unsigned Server::leases_held() const { return impl_->held.load(); }

}  // namespace tessera::devd
